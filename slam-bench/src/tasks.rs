//! Benchmark tasks: what a task set argument names, and each task's expected verdict.
//!
//! An argument is
//! - a directory: its SV-COMP task definitions (`*.yml`) and its C files (`*.c`, `*.i`) whose
//!   names carry `_true-unreach-call` or `_false-unreach-call` and that no `.yml` of the same
//!   stem defines;
//! - a `.yml` or C file: that task;
//! - a list file (any other file, e.g. an SV-COMP `.set`): one path per line, relative to the
//!   list file, `#` comments, and `*` wildcards in the last component.
//!
//! A task's set is the name of the directory holding it. Tasks without an `unreach-call`
//! property (the only one `slam-run` checks) are skipped with a note, not an error.

use std::path::{Path, PathBuf};

use crate::BenchError;

/// One verification task.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Task {
    /// Identifier in results: `set/file name`.
    pub id: String,
    /// The task set (the directory's name).
    pub set: String,
    /// What `slam-run` is given (the `.yml` or the C file).
    pub path: PathBuf,
    /// Expected verdict of `unreach-call`: `Some(true)` when the error is unreachable.
    pub expected: Option<bool>,
}

/// The tasks named by `args`, sorted by id and without duplicates, with notes about what was
/// skipped.
pub fn collect(args: &[PathBuf]) -> Result<(Vec<Task>, Vec<String>), BenchError> {
    let mut files = Vec::new();
    for a in args {
        expand(a, &mut files, 0)?;
    }
    let mut tasks = Vec::new();
    let mut notes = Vec::new();
    for f in files {
        match task_of(&f) {
            Ok(t) => tasks.push(t),
            Err(why) => notes.push(format!("{}: skipped: {why}", f.display())),
        }
    }
    tasks.sort_by(|a, b| a.id.cmp(&b.id));
    tasks.dedup_by(|a, b| a.id == b.id);
    Ok((tasks, notes))
}

fn is_c(p: &Path) -> bool {
    p.extension().is_some_and(|e| e == "c" || e == "i")
}

fn is_yml(p: &Path) -> bool {
    p.extension().is_some_and(|e| e == "yml" || e == "yaml")
}

fn named_verdict(p: &Path) -> bool {
    let n = p.file_name().unwrap_or_default().to_string_lossy();
    n.contains("_true-unreach-call") || n.contains("_false-unreach-call")
}

fn read_dir_sorted(dir: &Path) -> Result<Vec<PathBuf>, BenchError> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .map_err(|e| BenchError::io(dir, e))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .collect();
    v.sort();
    Ok(v)
}

fn expand(a: &Path, out: &mut Vec<PathBuf>, depth: usize) -> Result<(), BenchError> {
    if depth > 8 {
        return Err(BenchError::Input(format!(
            "{}: list files nest too deeply",
            a.display()
        )));
    }
    if a.is_dir() {
        let entries = read_dir_sorted(a)?;
        for p in &entries {
            let c_task = is_c(p) && named_verdict(p) && !p.with_extension("yml").exists();
            if is_yml(p) || c_task {
                out.push(p.clone());
            }
        }
        return Ok(());
    }
    if a.to_string_lossy().contains('*') {
        let dir = a.parent().unwrap_or(Path::new("."));
        let pat = a.file_name().unwrap_or_default().to_string_lossy();
        for p in read_dir_sorted(dir)? {
            let n = p
                .file_name()
                .unwrap_or_default()
                .to_string_lossy()
                .to_string();
            if wildcard(&pat, &n) && (is_yml(&p) || is_c(&p)) {
                out.push(p);
            }
        }
        return Ok(());
    }
    if !a.exists() {
        return Err(BenchError::Input(format!(
            "{}: no such file or directory",
            a.display()
        )));
    }
    if is_yml(a) || is_c(a) {
        out.push(a.to_path_buf());
        return Ok(());
    }
    // A list file.
    let text = std::fs::read_to_string(a).map_err(|e| BenchError::io(a, e))?;
    let base = a.parent().unwrap_or(Path::new("."));
    for (i, line) in text.lines().enumerate() {
        let l = line.split('#').next().unwrap_or("").trim();
        if l.is_empty() {
            continue;
        }
        let p = base.join(l);
        if !p.to_string_lossy().contains('*') && !p.exists() {
            return Err(BenchError::Input(format!(
                "{}:{}: {l}: no such file or directory",
                a.display(),
                i + 1
            )));
        }
        expand(&p, out, depth + 1)?;
    }
    Ok(())
}

/// The error for task set arguments that name no task: what a task is and how to write one,
/// and which C files of the directories given were passed over for want of a verdict in
/// their names.
pub fn no_tasks(args: &[PathBuf]) -> BenchError {
    let mut unnamed: Vec<PathBuf> = Vec::new();
    for a in args.iter().filter(|a| a.is_dir()) {
        if let Ok(entries) = read_dir_sorted(a) {
            unnamed.extend(entries.into_iter().filter(|p| is_c(p) && !named_verdict(p)));
        }
    }
    let mut m = format!(
        "no tasks found in {}.\n\
         A task is either\n\
         - an SV-COMP task definition, NAME.yml, with an unreach-call property, such as\n\
         \x20   format_version: '2.0'\n\
         \x20   input_files: 'NAME.c'\n\
         \x20   properties:\n\
         \x20     - property_file: ../properties/unreach-call.prp\n\
         \x20       expected_verdict: true\n\
         \x20 (expected_verdict: true when the error is unreachable, false when it is reachable;\n\
         \x20 the property file, as in SV-COMP, says CHECK( init(main()), LTL(G ! call(reach_error())) ));\n\
         - or a C file (.c, .i) whose name says its expected verdict: NAME_true-unreach-call.c\n\
         \x20 (the error is unreachable) or NAME_false-unreach-call.c (it is reachable).",
        args.iter()
            .map(|a| a.display().to_string())
            .collect::<Vec<_>>()
            .join(", ")
    );
    if !unnamed.is_empty() {
        let shown: Vec<String> = unnamed
            .iter()
            .take(5)
            .map(|p| {
                p.file_name()
                    .unwrap_or_default()
                    .to_string_lossy()
                    .into_owned()
            })
            .collect();
        m.push_str(&format!(
            "\n{} C file(s) here name no verdict ({}{}): write a .yml for each, rename them, \
             or give them one by one as arguments (then their verdicts are not checked).",
            unnamed.len(),
            shown.join(", "),
            if unnamed.len() > shown.len() {
                ", …"
            } else {
                ""
            }
        ));
    }
    BenchError::Input(m)
}

/// `*` matches any run of characters; everything else matches itself.
fn wildcard(pat: &str, s: &str) -> bool {
    let parts: Vec<&str> = pat.split('*').collect();
    if parts.len() == 1 {
        return pat == s;
    }
    let (first, last) = (parts[0], parts[parts.len() - 1]);
    if !s.starts_with(first) || !s[first.len()..].ends_with(last) {
        return false;
    }
    let mut rest = &s[first.len()..s.len() - last.len()];
    for p in &parts[1..parts.len() - 1] {
        match rest.find(p) {
            Some(k) => rest = &rest[k + p.len()..],
            None => return false,
        }
    }
    true
}

fn task_of(f: &Path) -> Result<Task, String> {
    let t = svcomp::task::load(f).map_err(|e| e.message)?;
    let set = f
        .parent()
        .and_then(|p| p.file_name())
        .map(|n| n.to_string_lossy().to_string())
        .unwrap_or_else(|| ".".into());
    let name = f.file_name().unwrap_or_default().to_string_lossy();
    Ok(Task {
        id: format!("{set}/{name}"),
        set,
        path: f.to_path_buf(),
        expected: t.expected,
    })
}

#[cfg(test)]
mod tests {
    use super::wildcard;

    #[test]
    fn wildcards() {
        assert!(wildcard("*.yml", "a.yml"));
        assert!(wildcard("test_*_5.yml", "test_locks_5.yml"));
        assert!(!wildcard("*.yml", "a.c"));
        assert!(!wildcard("a*b*c", "acb"));
        assert!(wildcard("a*b*c", "axbyc"));
        assert!(wildcard("abc", "abc"));
    }
}
