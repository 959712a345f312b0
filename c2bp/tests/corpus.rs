//! The corpus: every program of `../shared/corpus/sv-benchmarks/` is abstracted with
//! an empty predicate set and with the predicates of its branch conditions; the `.bp` re-parses
//! and checks (c2bp itself re-checks its output, an internal error otherwise), and for every
//! task whose expected verdict is `false` bebop finds the error reachable in every abstraction
//! (an abstraction that hid a real error would be unsound). Skipped, saying so, when the corpus
//! is absent. Timing per program is `make bench`'s business, not this test's.

mod common;

#[test]
fn every_corpus_program_is_abstracted_soundly() {
    let Some(root) = common::corpus_root() else {
        println!("SKIP: ../shared/corpus/sv-benchmarks not found");
        return;
    };
    let files = common::dev_corpus_files(&root);
    assert!(
        files.len() >= 39,
        "expected the whole corpus, found {}",
        files.len()
    );
    let mut false_tasks = 0;
    for c in &files {
        let prog = common::load(c, &cir::LowerOptions::default());
        let expect_false = svcomp::property::error_expected_reachable(c)
            .unwrap_or_else(|| panic!("{}: no expected verdict", c.display()));
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
