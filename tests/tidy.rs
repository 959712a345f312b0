//! Tidy checks over the source tree, after rust-analyzer's `tidy.rs`: rules about the code as
//! text that no compiler checks.
//!
//! - every Rust source file starts with a `//!` module doc saying what it owns;
//! - no non-test source file is over [`MAX_FILE_LINES`] lines, and no function outside tests is
//!   over [`MAX_FN_LINES`] lines unless ARCHITECTURE.md names it and says why;
//! - the modules of a crate import each other without cycles (read from `use crate::…` and
//!   `crate::…` paths in code outside `#[cfg(test)]` modules; doc links do not count);
//! - comments, docs and Markdown speak of the code, not of the project's history: no issue or
//!   acceptance numbers, no pointers to documents outside the repository.
//!
//! Functions are found textually: the code is `rustfmt`-formatted, so a function's body ends at
//! the first line that is its closing brace at the indentation of its `fn` line.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// The longest a non-test source file may be.
const MAX_FILE_LINES: usize = 1500;
/// The longest a function outside tests may be (its `fn` line to its closing brace).
const MAX_FN_LINES: usize = 150;

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// Files under `dir` whose name ends with one of `exts`, skipping build output, hidden
/// directories and test data.
fn files(dir: &Path, exts: &[&str], out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        let name = entry.file_name();
        let name = name.to_string_lossy();
        if path.is_dir() {
            if name != "target" && !name.starts_with('.') && name != "data" {
                files(&path, exts, out);
            }
        } else if exts.iter().any(|e| name.ends_with(e)) {
            out.push(path);
        }
    }
}

fn rust_files() -> Vec<PathBuf> {
    let mut out = Vec::new();
    files(root(), &[".rs"], &mut out);
    out.sort();
    out
}

fn rel(p: &Path) -> String {
    p.strip_prefix(root()).unwrap_or(p).display().to_string()
}

fn read(p: &Path) -> String {
    std::fs::read_to_string(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

/// A test file: under a `tests/` or `benches/` directory (integration tests and their helpers).
fn is_test_file(p: &Path) -> bool {
    p.components()
        .any(|c| c.as_os_str() == "tests" || c.as_os_str() == "benches")
}

/// The lines of `text` before its first `#[cfg(test)]` item (unit tests sit at the end of a
/// file, the project's convention).
fn non_test_lines(text: &str) -> Vec<&str> {
    text.lines()
        .take_while(|l| !l.trim_start().starts_with("#[cfg(test)]"))
        .collect()
}

/// The name of the function a line opens, if it opens one with a body.
fn fn_name(line: &str) -> Option<&str> {
    let t = line.trim_start();
    let mut rest = t;
    for prefix in [
        "pub(crate) ",
        "pub(super) ",
        "pub ",
        "const ",
        "async ",
        "unsafe ",
        "extern \"C\" ",
    ] {
        rest = rest.strip_prefix(prefix).unwrap_or(rest);
    }
    let rest = rest.strip_prefix("fn ")?;
    let end = rest
        .find(|c: char| !(c.is_alphanumeric() || c == '_'))
        .unwrap_or(rest.len());
    (end > 0 && !t.ends_with(';')).then_some(&rest[..end])
}

/// Functions of `lines` longer than `max`: (name, first line 1-based, length).
fn long_functions(lines: &[&str], max: usize) -> Vec<(String, usize, usize)> {
    let mut out = Vec::new();
    for (i, l) in lines.iter().enumerate() {
        let Some(name) = fn_name(l) else { continue };
        let indent = &l[..l.len() - l.trim_start().len()];
        let closing = format!("{indent}}}");
        if l.trim_end().ends_with('}') {
            continue; // a one-line function
        }
        let Some(end) = lines[i + 1..].iter().position(|m| m.trim_end() == closing) else {
            continue;
        };
        let len = end + 2;
        if len > max {
            out.push((name.to_string(), i + 1, len));
        }
    }
    out
}

#[test]
fn every_rust_file_starts_with_a_module_doc() {
    let files = rust_files();
    assert!(files.len() > 5, "found only {} Rust files", files.len());
    let missing: Vec<String> = files
        .iter()
        .filter(|f| {
            let text = read(f);
            let first = text.lines().find(|l| !l.trim().is_empty()).unwrap_or("");
            !first.starts_with("//!")
        })
        .map(|f| rel(f))
        .collect();
    assert!(
        missing.is_empty(),
        "these files lack a leading `//!` module doc:\n  {}",
        missing.join("\n  ")
    );
}

#[test]
fn no_source_file_is_over_the_size_limit() {
    let over: Vec<String> = rust_files()
        .into_iter()
        .filter(|f| !is_test_file(f))
        .filter_map(|f| {
            let n = non_test_lines(&read(&f)).len();
            (n > MAX_FILE_LINES).then(|| format!("{} ({n} lines)", rel(&f)))
        })
        .collect();
    assert!(
        over.is_empty(),
        "source files over {MAX_FILE_LINES} lines (tests excluded); split them by concern:\n  {}",
        over.join("\n  ")
    );
}

/// The functions ARCHITECTURE.md allows to be long: lines of its section "Long functions"
/// that start with `` - `path::name` ``.
fn allowed_long_functions() -> BTreeSet<String> {
    let text = read(&root().join("ARCHITECTURE.md"));
    let Some(start) = text.find("### Long functions") else {
        return BTreeSet::new();
    };
    text[start..]
        .lines()
        .skip(1)
        .take_while(|l| !l.starts_with('#'))
        .filter_map(|l| l.strip_prefix("- `"))
        .filter_map(|l| l.split('`').next())
        .map(str::to_string)
        .collect()
}

#[test]
fn no_function_is_over_the_length_limit() {
    let allowed = allowed_long_functions();
    let mut over = Vec::new();
    for f in rust_files().into_iter().filter(|f| !is_test_file(f)) {
        let text = read(&f);
        for (name, line, len) in long_functions(&non_test_lines(&text), MAX_FN_LINES) {
            let key = format!("{}::{name}", rel(&f));
            if !allowed.contains(&key) {
                over.push(format!("{}:{line}: `{name}` ({len} lines)", rel(&f)));
            }
        }
    }
    assert!(
        over.is_empty(),
        "functions over {MAX_FN_LINES} lines (split them, or list them with a reason in \
         ARCHITECTURE.md's \"Long functions\"):\n  {}",
        over.join("\n  ")
    );
}

/// The crates of the workspace: directories with a `Cargo.toml` and a `src/`.
fn crate_dirs() -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = std::fs::read_dir(root())
        .expect("readable root")
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.join("Cargo.toml").is_file() && p.join("src").is_dir())
        .collect();
    out.sort();
    out
}

/// The module a source file defines, as a path from the crate root (`smt::project`); the crate
/// root files (`lib.rs`, `main.rs`, `bin/*.rs`) are `None`.
fn module_of(src: &Path, file: &Path) -> Option<String> {
    let r = file.strip_prefix(src).ok()?.with_extension("");
    let parts: Vec<String> = r
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    match parts.as_slice() {
        [one] if one == "lib" || one == "main" => None,
        [first, ..] if first == "bin" => None,
        _ => {
            let mut parts = parts;
            if parts.last().is_some_and(|p| p == "mod") {
                parts.pop();
            }
            Some(parts.join("::"))
        }
    }
}

/// The top-level module each `crate::a::…` path of `text` names, from `use crate::…` lines
/// (including `use crate::{a, b::c}` groups) and inline `crate::a::` paths.
fn crate_refs(text: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let mut rest = text;
    while let Some(i) = rest.find("crate::") {
        let before = rest[..i].chars().last();
        rest = &rest[i + "crate::".len()..];
        if before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == '$') {
            continue;
        }
        if let Some(group) = rest.strip_prefix('{') {
            let end = group.find(';').unwrap_or(group.len());
            // Top-level names of the group: identifiers at brace depth 0.
            let mut depth = 0;
            let mut word = String::new();
            let mut first = true;
            for c in group[..end].chars() {
                match c {
                    '{' => depth += 1,
                    '}' => depth -= 1,
                    _ => {}
                }
                if depth == 0 && (c.is_alphanumeric() || c == '_') {
                    if first {
                        word.push(c);
                    }
                } else if depth == 0 && c == ',' {
                    if !word.is_empty() {
                        out.insert(std::mem::take(&mut word));
                    }
                    first = true;
                } else if !word.is_empty() {
                    out.insert(std::mem::take(&mut word));
                    first = false;
                }
            }
            if !word.is_empty() {
                out.insert(word);
            }
        } else {
            let end = rest
                .find(|c: char| !(c.is_alphanumeric() || c == '_'))
                .unwrap_or(rest.len());
            if end > 0 {
                out.insert(rest[..end].to_string());
            }
        }
    }
    out
}

/// The cycles of a directed graph (its strongly connected components of more than one node).
fn cycles(graph: &BTreeMap<String, BTreeSet<String>>) -> Vec<Vec<String>> {
    // Tarjan's algorithm, iteratively small enough to write recursively here.
    struct St<'a> {
        g: &'a BTreeMap<String, BTreeSet<String>>,
        index: BTreeMap<&'a str, usize>,
        low: BTreeMap<&'a str, usize>,
        stack: Vec<&'a str>,
        on: BTreeSet<&'a str>,
        out: Vec<Vec<String>>,
    }
    fn visit<'a>(s: &mut St<'a>, v: &'a str) {
        let n = s.index.len();
        s.index.insert(v, n);
        s.low.insert(v, n);
        s.stack.push(v);
        s.on.insert(v);
        for w in s.g.get(v).into_iter().flatten() {
            let w = w.as_str();
            if !s.g.contains_key(w) {
                continue;
            }
            if !s.index.contains_key(w) {
                visit(s, w);
                let lw = s.low[w];
                let lv = s.low.get_mut(v).expect("visited");
                *lv = (*lv).min(lw);
            } else if s.on.contains(w) {
                let iw = s.index[w];
                let lv = s.low.get_mut(v).expect("visited");
                *lv = (*lv).min(iw);
            }
        }
        if s.low[v] == s.index[v] {
            let mut comp = Vec::new();
            while let Some(w) = s.stack.pop() {
                s.on.remove(w);
                comp.push(w.to_string());
                if w == v {
                    break;
                }
            }
            if comp.len() > 1 {
                comp.sort();
                s.out.push(comp);
            }
        }
    }
    let mut s = St {
        g: graph,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on: BTreeSet::new(),
        out: Vec::new(),
    };
    for v in graph.keys() {
        if !s.index.contains_key(v.as_str()) {
            visit(&mut s, v);
        }
    }
    s.out
}

#[test]
fn modules_of_a_crate_import_each_other_without_cycles() {
    let mut found = Vec::new();
    for dir in crate_dirs() {
        let src = dir.join("src");
        let mut sources = Vec::new();
        files(&src, &[".rs"], &mut sources);
        // Edges between top-level modules: a submodule (`smt::project`) belongs to its parent.
        let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
        for f in &sources {
            let Some(module) = module_of(&src, f) else {
                continue;
            };
            let top = module.split("::").next().unwrap_or(&module).to_string();
            // Code only: a doc link to another module is not an import.
            let source = read(f);
            let text: Vec<&str> = non_test_lines(&source)
                .into_iter()
                .map(|l| match l.find("//") {
                    Some(k) => &l[..k],
                    None => l,
                })
                .collect();
            let refs = crate_refs(&text.join("\n"));
            let entry = graph.entry(top.clone()).or_default();
            entry.extend(refs.into_iter().filter(|r| *r != top));
        }
        let modules: BTreeSet<String> = graph.keys().cloned().collect();
        for targets in graph.values_mut() {
            targets.retain(|t| modules.contains(t));
        }
        for c in cycles(&graph) {
            found.push(format!("{}: {}", rel(&dir), c.join(" ↔ ")));
        }
    }
    assert!(
        found.is_empty(),
        "import cycles between modules (move what both need into one of them, or a third):\n  {}",
        found.join("\n  ")
    );
}

/// The comment lines of a source file: Rust `//` comments (also after code) and `#` comments
/// of shell, Python, TOML and Makefiles.
fn comment_lines(path: &Path, text: &str) -> Vec<(usize, String)> {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let rust = name.ends_with(".rs") || name.ends_with(".pest");
    text.lines()
        .enumerate()
        .filter_map(|(i, l)| {
            let t = l.trim_start();
            let c = if rust {
                if t.starts_with("//") {
                    Some(t)
                } else {
                    l.find(" // ").map(|k| &l[k + 1..])
                }
            } else {
                t.starts_with('#').then_some(t)
            };
            c.map(|c| (i + 1, c.to_string()))
        })
        .collect()
}

/// Why a line of prose speaks of the project's history or of documents outside the
/// repository, if it does. `test_code` allows PRNG seeds.
fn history_reference(line: &str, test_code: bool) -> Option<&'static str> {
    let l = line.to_ascii_lowercase();
    let number_after = |word: &str| {
        l.match_indices(word).any(|(i, _)| {
            let before = l[..i].chars().last();
            let starts_word = !before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == '-');
            let rest = l[i + word.len()..].trim_start_matches([' ', '#']);
            starts_word && rest.starts_with(|c: char| c.is_ascii_digit())
        })
    };
    if number_after("issue") {
        return Some("an issue number");
    }
    if number_after("acceptance") {
        return Some("an acceptance point");
    }
    if number_after("stop") {
        return Some("a stop number");
    }
    if !test_code && (number_after("seed") || number_after("seeds")) {
        return Some("a seed of a test program");
    }
    for doc in [
        "slam-algorithms",
        "seed-digest",
        "shared/seeds",
        "shared/design",
    ] {
        if l.contains(doc) {
            return Some("a document outside the repository");
        }
    }
    if l.contains("../shared") && !l.contains("shared/corpus") {
        return Some("a document outside the repository");
    }
    None
}

#[test]
fn comments_and_docs_speak_of_the_code_not_its_history() {
    let mut sources = Vec::new();
    files(
        root(),
        &[".rs", ".pest", ".sh", ".py", ".toml", "Makefile", ".md"],
        &mut sources,
    );
    sources.sort();
    let mut found = Vec::new();
    for f in &sources {
        let text = read(f);
        let lines: Vec<(usize, String)> = if f.extension().is_some_and(|e| e == "md") {
            text.lines()
                .enumerate()
                .map(|(i, l)| (i + 1, l.to_string()))
                .collect()
        } else {
            comment_lines(f, &text)
        };
        let test_code = is_test_file(f);
        for (n, l) in lines {
            if let Some(why) = history_reference(&l, test_code) {
                found.push(format!("{}:{n}: {why}: {}", rel(f), l.trim()));
            }
        }
    }
    assert!(
        found.is_empty(),
        "{} lines of comments and docs speak of the project's history or of documents outside \
         the repository (cite papers by title and section instead):\n  {}",
        found.len(),
        found.join("\n  ")
    );
}

#[test]
fn the_tidy_rules_catch_what_they_are_for() {
    assert_eq!(
        history_reference("// issue 3 §1", false),
        Some("an issue number")
    );
    assert_eq!(
        history_reference("(Issue #12)", false),
        Some("an issue number")
    );
    assert_eq!(
        history_reference("acceptance 4", false),
        Some("an acceptance point")
    );
    assert_eq!(
        history_reference("progress seed 180 ...", false),
        Some("a seed of a test program")
    );
    assert_eq!(history_reference("seed 180", true), None);
    assert_eq!(
        history_reference("see ../shared/design/peers.md", false),
        Some("a document outside the repository")
    );
    assert_eq!(
        history_reference("skipped when ../shared/corpus is absent", false),
        None
    );
    assert_eq!(history_reference("the issue of aliasing", false), None);
    assert_eq!(history_reference("non-stop 3", false), None);
    let src = "fn short() {\n    1\n}\n    pub fn long(\n        x: u8,\n    ) -> u8 {\n        x\n    }\n";
    let lines: Vec<&str> = src.lines().collect();
    assert_eq!(long_functions(&lines, 3), vec![("long".to_string(), 4, 5)]);
    let refs = crate_refs("use crate::a::b;\nuse crate::{c, d::{e, f}, g};\nlet x = crate::h::y;");
    let refs: Vec<&str> = refs.iter().map(String::as_str).collect();
    assert_eq!(refs, vec!["a", "c", "d", "g", "h"]);
    let mut g = BTreeMap::new();
    g.insert("a".to_string(), BTreeSet::from(["b".to_string()]));
    g.insert("b".to_string(), BTreeSet::from(["a".to_string()]));
    g.insert("c".to_string(), BTreeSet::from(["a".to_string()]));
    assert_eq!(cycles(&g), vec![vec!["a".to_string(), "b".to_string()]]);
}
