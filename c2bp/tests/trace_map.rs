//! Every abstract counterexample is a path of the C program: for the golden programs and every
//! corpus program whose abstraction (with its branch conditions as predicates) is unsafe,
//! bebop's trace of the `.bp` maps back, through c2bp's `edge=` annotations, to C edges that
//! follow the control-flow graph through calls and returns and end at an error edge
//! (`bp_c::trace::c_path`, the first step of newton).

mod common;

use std::path::Path;

fn check(c: &Path, prog: &cir::Program, preds: &cir::pred::PredicateSet) -> Option<usize> {
    let out = common::abstract_file(c, prog, preds, &c2bp::Options::default());
    let bp = bp_grammar::parse_and_check(&out.text, &bp_grammar::ParseOptions::default())
        .expect("c2bp output checks");
    let res = bebop::verify(&bp, &bebop::Options::default()).expect("bebop runs");
    let bebop::Verdict::Unsafe(trace) = res.verdict else {
        return None;
    };
    let path = bp_c::trace::c_path(prog, &bp, &trace)
        .unwrap_or_else(|e| panic!("{}: {e}\n{}", c.display(), out.text));
    // The check can fail: dropping a step that takes an edge breaks the path.
    let n = trace.steps.len();
    let dropped = (1..n.saturating_sub(1)).any(|i| {
        let mut t = (*trace).clone();
        t.steps.remove(i);
        bp_c::trace::c_path(prog, &bp, &t).is_err()
    });
    assert!(
        dropped || path.len() < 3,
        "{}: no dropped step is noticed",
        c.display()
    );
    assert!(
        bp_c::trace::ends_in_error(prog, &path),
        "{}: the C path does not end at an error edge: {:?}",
        c.display(),
        path.last()
    );
    Some(path.len())
}

#[test]
fn golden_traces_are_c_paths() {
    let dir = common::data_dir();
    let mut checked = 0;
    for entry in std::fs::read_dir(&dir).expect("golden dir") {
        let c = entry.expect("entry").path();
        if c.extension().is_none_or(|e| e != "c") {
            continue;
        }
        let name = c.file_stem().expect("stem").to_string_lossy().to_string();
        for (_, lower) in common::golden_variants(&name) {
            let prog = common::load(&c, &lower);
            for preds in [
                common::preds(&prog, Some(&c.with_extension("preds"))),
                cir::pred::PredicateSet::default(),
            ] {
                if check(&c, &prog, &preds).is_some() {
                    checked += 1;
                }
            }
        }
    }
    assert!(checked >= 10, "only {checked} traces checked");
}

#[test]
fn corpus_traces_are_c_paths() {
    let Some(root) = common::corpus_root() else {
        println!("SKIP: ../shared/corpus/sv-benchmarks not found");
        return;
    };
    let mut lengths = Vec::new();
    for c in common::dev_corpus_files(&root) {
        let prog = common::load(&c, &cir::LowerOptions::default());
        let preds = cir::pred::branch_predicates(&prog);
        if let Some(n) = check(&c, &prog, &preds) {
            lengths.push(n);
        }
    }
    println!(
        "{} traces mapped, C path lengths {lengths:?}",
        lengths.len()
    );
    assert!(lengths.len() >= 10, "too few traces: {}", lengths.len());
}
