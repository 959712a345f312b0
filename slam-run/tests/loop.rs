//! The refinement loop end to end: the Lazy Abstraction paper's locking example and its mutants,
//! through the library and through the `slam-run` command, and the command's answers to bad input.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use cir::pred::{PredScope, PredicateSet, parse_predicate};

fn manifest(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(rel)
}

fn run_lib(path: &Path) -> slam_run::RunResult {
    common::run_file(path, &slam_run::Config::default())
}

/// Whether `set` holds `text` (in `scope`, or globally) up to negation.
fn holds(set: &PredicateSet, prog: &cir::Program, func: &str, text: &str) -> bool {
    let f = prog.function(func).expect("function").id;
    let norm = |t: &str, sc| parse_predicate(t, sc, prog).map(|p| p.text);
    let neg = format!("!({text})");
    let wanted: Vec<String> = [
        norm(text, PredScope::Function(f)),
        norm(&neg, PredScope::Function(f)),
    ]
    .into_iter()
    .flatten()
    .collect();
    set.in_scope(func).any(|p| wanted.contains(&p.text))
}

#[test]
fn funlock_is_safe_with_the_papers_predicates() {
    let path = manifest("../examples/c/funlock.c");
    let r = run_lib(&path);
    assert!(
        matches!(r.verdict, slam_run::Verdict::True),
        "{}",
        r.verdict.line()
    );
    let prog = cir::load_file(&path, &cir::LowerOptions::default()).expect("lowers");
    for (func, p) in [
        ("Example", "LOCK == 0"),
        ("Example", "LOCK == 1"),
        ("Example", "new == old"),
        ("Example", "got_lock == 0"),
    ] {
        assert!(
            holds(&r.predicates, &prog, func, p),
            "missing {p}; predicates:\n{}",
            cir::pred::predicate_file_text(&r.predicates)
        );
    }
    assert!(r.predicates.len() <= 8, "{} predicates", r.predicates.len());
}

/// Three mutants of `examples/c/funlock.c` (the Lazy Abstraction paper's locking example), one
/// edit each: (a) deletes `new++`, (b) deletes `got_lock++`, (c) replaces `if (got_lock)` by a
/// nondeterministic test. (b) looks safe, but its right loop can `lock()` and leave it held,
/// and the left loop then locks again: a real double acquire, which the replayed
/// counterexample shows. All three are FALSE.
#[test]
fn funlock_mutants_are_false_with_replayed_counterexamples() {
    let original = std::fs::read_to_string(manifest("../examples/c/funlock.c")).expect("read");
    let dir = std::env::temp_dir().join(format!("slam-run-mutants-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("dir");
    for (m, from, to) in [
        ("a", "      new++;\n", ""),
        ("b", "        got_lock++;\n", ""),
        ("c", "if (got_lock) {", "if (__VERIFIER_nondet_int()) {"),
    ] {
        assert_eq!(
            original.matches(from).count(),
            1,
            "mutant ({m}): `{from}` once"
        );
        let path = dir.join(format!("funlock_{m}.c"));
        std::fs::write(&path, original.replace(from, to)).expect("write");
        let r = run_lib(&path);
        let slam_run::Verdict::False(cex) = &r.verdict else {
            panic!("mutant ({m}): {}", r.verdict.line());
        };
        let last = cex.steps.last().expect("a path");
        assert!(
            last.text.contains("error"),
            "mutant ({m}) ends at {}",
            last.text
        );
        assert!(
            cex.steps
                .iter()
                .any(|s| s.function == "unlock" || s.function == "lock"),
            "mutant ({m}): the path goes through the lock functions"
        );
    }
}

fn slam_run_cmd(args: &[&str]) -> (Option<i32>, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_slam-run"))
        .args(args)
        .output()
        .expect("slam-run runs");
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn the_command_prints_verdicts_counterexamples_and_keeps_rerunnable_files() {
    let safe = manifest("../examples/c/funlock.c");
    let (code, out, _) = slam_run_cmd(&[safe.to_str().expect("utf-8")]);
    assert_eq!(code, Some(0));
    assert_eq!(out.lines().next(), Some("TRUE"));
    assert!(out.contains("summary: iterations="), "{out}");

    let bug = manifest("../examples/c/funlock-bug.c");
    let keep = std::env::temp_dir().join(format!("slam-run-keep-{}", std::process::id()));
    let stats = keep.with_extension("json");
    let (code, out, _) = slam_run_cmd(&[
        bug.to_str().expect("utf-8"),
        "--keep",
        keep.to_str().expect("utf-8"),
        "--stats-json",
        stats.to_str().expect("utf-8"),
        // The falsifier would find this bug by executing the program, before newton; the
        // kept files hold the tools' iterations only.
        "--falsify",
        "off",
    ]);
    assert_eq!(code, Some(10), "{out}");
    assert_eq!(out.lines().next(), Some("FALSE(unreach-call)"));
    assert!(out.contains("counterexample"), "{out}");
    assert!(
        out.contains("__VERIFIER_nondet_int()"),
        "inputs listed: {out}"
    );
    let doc: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&stats).expect("stats")).expect("json");
    assert_eq!(doc["verdict"], "FALSE(unreach-call)");
    assert!(doc["iterations"].as_array().is_some_and(|a| !a.is_empty()));
    // Every iteration's files, and the standalone newton gives the kept result again.
    let last = doc["iterations"].as_array().map_or(0, Vec::len) - 1;
    let n = |ext: &str| keep.join(format!("iter{last:03}.{ext}"));
    for ext in ["preds", "bp", "trace.json", "newton.json"] {
        assert!(n(ext).exists(), "{} kept", n(ext).display());
    }
    assert!(keep.join("commands.txt").exists());
    let newton = PathBuf::from(env!("CARGO_BIN_EXE_slam-run")).with_file_name("newton");
    if newton.exists() {
        let json = keep.join("again.json");
        let st = Command::new(&newton)
            .arg(&bug)
            .arg(n("bp"))
            .arg(n("trace.json"))
            .arg("--json")
            .arg(&json)
            .output()
            .expect("newton runs");
        assert_eq!(st.status.code(), Some(10));
        assert_eq!(
            std::fs::read_to_string(&json).expect("again"),
            std::fs::read_to_string(n("newton.json")).expect("kept"),
            "re-running newton on the kept files gives the kept result"
        );
    } else {
        eprintln!("newton binary not built next to slam-run: re-run part skipped");
    }
}

#[test]
fn bad_input_gets_one_clear_line_and_exit_code_2() {
    let dir = std::env::temp_dir().join(format!("slam-run-bad-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("dir");
    // A missing file.
    let (code, out, err) = slam_run_cmd(&["/nonexistent/prog.c"]);
    assert_eq!(code, Some(2));
    assert!(out.is_empty());
    assert!(err.contains("/nonexistent/prog.c"), "{err}");
    assert_eq!(err.trim().lines().count(), 1, "{err}");
    // A C syntax error, with file:line:col.
    let bad = dir.join("syntax.c");
    std::fs::write(&bad, "int main(void) {\n  int x = ;\n  return 0;\n}\n").expect("write");
    let (code, _, err) = slam_run_cmd(&[bad.to_str().expect("utf-8")]);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("syntax.c:2:"), "{err}");
    // An unsupported construct (a compound literal), rejected with its position.
    let uns = dir.join("unsupported.c");
    std::fs::write(
        &uns,
        "struct P { int x; };\nint main(void) {\n  struct P p = (struct P){ 1 };\n  return p.x;\n}\n",
    )
    .expect("write");
    let (code, _, err) = slam_run_cmd(&[uns.to_str().expect("utf-8")]);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("unsupported.c:3:"), "{err}");
    // A task without an unreach-call property.
    let yml = dir.join("task.yml");
    std::fs::write(
        &yml,
        "format_version: '2.0'\ninput_files: 'syntax.c'\nproperties:\n  - property_file: ../properties/termination.prp\n    expected_verdict: true\n",
    )
    .expect("write");
    let (code, _, err) = slam_run_cmd(&[yml.to_str().expect("utf-8")]);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("unreach-call"), "{err}");
}

#[test]
fn a_timeout_is_unknown_not_a_crash() {
    let src = manifest("../examples/c/funlock.c");
    let (code, out, _) = slam_run_cmd(&[src.to_str().expect("utf-8"), "--timeout", "0"]);
    assert_eq!(code, Some(5), "{out}");
    assert_eq!(out.lines().next(), Some("UNKNOWN (timeout)"));
    let (code, out, _) = slam_run_cmd(&[src.to_str().expect("utf-8"), "--max-iterations", "1"]);
    assert_eq!(code, Some(5), "{out}");
    assert_eq!(out.lines().next(), Some("UNKNOWN (iterations)"));
}
