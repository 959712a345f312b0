//! Acceptance 5 of issue 3: every program of `../shared/corpus/sv-benchmarks/` is abstracted with
//! an empty predicate set and with the predicates of its branch conditions; the `.bp` re-parses
//! and checks (c2bp itself re-checks its output, an internal error otherwise), and for every
//! task whose expected verdict is `false` bebop finds the error reachable in every abstraction
//! (an abstraction that hid a real error would be unsound). Skipped, saying so, when the corpus
//! is absent. Timing per program is `make bench`'s business, not this test's.

mod common;

use std::path::{Path, PathBuf};

fn corpus_root() -> Option<PathBuf> {
    let here = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/corpus/sv-benchmarks");
    [here, PathBuf::from("/work/shared/corpus/sv-benchmarks")]
        .into_iter()
        .find(|p| p.is_dir())
}

/// The expected verdict of a program: from its task `.yml` (`unreach-call.prp` entry) or from
/// its file name (`_true-unreach-call` / `_false-unreach-call`, the 2016 format).
fn expected_false(c: &Path) -> Option<bool> {
    let name = c.file_name()?.to_string_lossy().to_string();
    if name.contains("_false-unreach-call") {
        return Some(true);
    }
    if name.contains("_true-unreach-call") {
        return Some(false);
    }
    let yml = std::fs::read_to_string(c.with_extension("yml")).ok()?;
    let mut in_reach = false;
    for l in yml.lines() {
        if l.contains("property_file") {
            in_reach = l.contains("unreach-call.prp");
        } else if in_reach && l.trim_start().starts_with("expected_verdict:") {
            return Some(l.contains("false"));
        }
    }
    None
}

fn corpus_files(root: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    for dir in std::fs::read_dir(root).expect("readable corpus") {
        let dir = dir.expect("entry").path();
        if !dir.is_dir() {
            continue;
        }
        for f in std::fs::read_dir(&dir).expect("readable dir") {
            let f = f.expect("entry").path();
            if f.extension().is_some_and(|e| e == "c" || e == "i") {
                files.push(f);
            }
        }
    }
    files.sort();
    files
}

#[test]
fn every_corpus_program_is_abstracted_soundly() {
    let Some(root) = corpus_root() else {
        println!("SKIP: ../shared/corpus/sv-benchmarks not found");
        return;
    };
    let files = corpus_files(&root);
    assert!(
        files.len() >= 39,
        "expected the whole corpus, found {}",
        files.len()
    );
    let mut false_tasks = 0;
    for c in &files {
        let prog = common::load(c, &cir::LowerOptions::default());
        let expect_false =
            expected_false(c).unwrap_or_else(|| panic!("{}: no expected verdict", c.display()));
        for (mode, preds) in [
            ("empty", cir::pred::PredicateSet::default()),
            ("branch", cir::pred::branch_predicates(&prog)),
        ] {
            let t0 = std::time::Instant::now();
            let out = common::abstract_file(c, &prog, &preds, &c2bp::Options::default());
            let unsafe_ = common::bebop_unsafe(&out.text);
            let (u, s) = out.updates();
            println!(
                "{:<48} {mode:<6} {:>4} preds {:>7} queries {:>5}/{:<5} `*` {:>6.2}s  {}",
                c.file_name().unwrap_or_default().to_string_lossy(),
                preds.len(),
                out.prover.queries,
                s,
                u,
                t0.elapsed().as_secs_f64(),
                if unsafe_ { "error reachable" } else { "safe" }
            );
            if expect_false {
                assert!(
                    unsafe_,
                    "{} ({mode} predicates): the task's error is real but the abstraction hides it",
                    c.display()
                );
            }
        }
        false_tasks += usize::from(expect_false);
    }
    assert!(
        false_tasks > 0,
        "no false task found: expected verdicts not read"
    );
}
