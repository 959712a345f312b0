//! slam-run on the SV-COMP corpus (issue 4, acceptance 2), the command with `--timeout 10` per
//! task: never a wrong verdict (TRUE for a `false` task, FALSE for a `true` one) in any
//! directory; every `locks` task correct. The counts of the other directories are printed
//! (`make slam-table` prints the full table with the release build). Skipped, saying so, when
//! `../shared/corpus` is absent.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

fn corpus() -> Option<PathBuf> {
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/corpus/sv-benchmarks");
    p.is_dir().then_some(p)
}

/// The tasks of a directory: `.yml` definitions, or old-style `.i` files named by verdict.
fn tasks(dir: &Path) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|rd| rd.filter_map(|e| e.ok().map(|e| e.path())).collect())
        .unwrap_or_default();
    out.retain(|p| {
        let ext = p.extension().and_then(|e| e.to_str()).unwrap_or("");
        ext == "yml" || (ext == "i" && !p.with_extension("yml").exists())
    });
    out.sort();
    out
}

struct Tally {
    correct: usize,
    unknown: usize,
    wrong: Vec<String>,
    total: usize,
}

fn run_dir(root: &Path, name: &str, limit: Duration) -> Tally {
    let mut t = Tally {
        correct: 0,
        unknown: 0,
        wrong: Vec::new(),
        total: 0,
    };
    for task in tasks(&root.join(name)) {
        let def = slam_run::task::load(&task).expect("task definition");
        let Some(expected) = def.expected else {
            continue;
        };
        t.total += 1;
        // The command, not the library: its --timeout is a real limit (a single c2bp or
        // bebop stage can outlast the library's between-stage deadline).
        let start = Instant::now();
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_slam-run"))
            .arg("--timeout")
            .arg(limit.as_secs_f64().to_string())
            .arg(&task)
            .output()
            .expect("slam-run runs");
        let stdout = String::from_utf8_lossy(&out.stdout);
        let verdict = stdout.lines().next().unwrap_or("").to_string();
        let summary = stdout
            .lines()
            .find(|l| l.starts_with("summary:"))
            .unwrap_or("");
        eprintln!(
            "{name}/{}: expected {}, {verdict}, {summary}, {:.2} s",
            task.file_name()
                .map(|f| f.to_string_lossy().to_string())
                .unwrap_or_default(),
            if expected { "TRUE" } else { "FALSE" },
            start.elapsed().as_secs_f64()
        );
        assert!(
            matches!(out.status.code(), Some(0 | 5 | 10)),
            "{}: exit code {:?}: {}",
            task.display(),
            out.status.code(),
            String::from_utf8_lossy(&out.stderr)
        );
        match (verdict.as_str(), expected) {
            ("TRUE", true) | ("FALSE(unreach-call)", false) => t.correct += 1,
            (v, _) if v.starts_with("UNKNOWN") => t.unknown += 1,
            _ => t.wrong.push(format!("{}: {verdict}", task.display())),
        }
    }
    eprintln!(
        "{name}: {}/{} correct, {} unknown, {} wrong",
        t.correct,
        t.total,
        t.unknown,
        t.wrong.len()
    );
    t
}

#[test]
fn the_corpus_gets_no_wrong_verdict_and_locks_are_all_correct() {
    let Some(root) = corpus() else {
        eprintln!("SKIP: ../shared/corpus/sv-benchmarks not found");
        return;
    };
    let limit = Duration::from_secs(10);
    let mut wrong = Vec::new();
    let locks = run_dir(&root, "locks", limit);
    wrong.extend(locks.wrong.iter().cloned());
    for d in [
        "ntdrivers-simplified",
        "loop-acceleration",
        "svcomp16-loop-acceleration",
    ] {
        wrong.extend(run_dir(&root, d, limit).wrong);
    }
    assert!(wrong.is_empty(), "wrong verdicts:\n{}", wrong.join("\n"));
    assert_eq!(locks.total, 13, "the locks directory has 13 tasks");
    assert_eq!(locks.correct, 13, "every locks task is solved within 10 s");
}
