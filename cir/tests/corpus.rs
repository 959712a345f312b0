//! Every program of the shared SV-COMP corpus (`../shared/corpus/sv-benchmarks/`) parses and
//! lowers without panic. Skipped, saying so, when the corpus is absent.

mod common;

use bp_testkit::prng::SplitMix64;
use common::corpus_files;

#[test]
fn every_corpus_program_lowers() {
    let Some(files) = corpus_files() else {
        println!("SKIP: ../shared/corpus/sv-benchmarks not found");
        return;
    };
    assert!(
        files.len() >= 39,
        "expected the whole corpus, found {}",
        files.len()
    );
    let (mut funcs, mut edges, mut warns, mut errors) = (0, 0, 0, 0);
    for f in &files {
        let p = cir::load_file(f, &cir::LowerOptions::default())
            .unwrap_or_else(|e| panic!("{}: {e}", f.display()));
        let ne: usize = p.functions.iter().map(|f| f.edges.len()).sum();
        let nerr = p
            .functions
            .iter()
            .flat_map(|f| &f.edges)
            .filter(|e| matches!(e.kind, cir::ir::EdgeKind::Error { .. }))
            .count();
        println!(
            "{}: {} functions, {} edges, {} error edges, {} externals, {} warnings",
            f.display(),
            p.functions.len(),
            ne,
            nerr,
            p.externals.iter().filter(|x| x.called).count(),
            p.warnings.len()
        );
        assert!(nerr > 0, "{}: no error edge found", f.display());
        for func in &p.functions {
            for e in &func.edges {
                assert!(e.from.0 < func.nodes && e.to.0 < func.nodes);
                assert!(
                    e.pos.line > 0,
                    "{}: edge {} without position",
                    f.display(),
                    p.edge_name(e.id)
                );
            }
        }
        // printing never panics and is deterministic
        let again = cir::load_file(f, &cir::LowerOptions::default()).expect("second load");
        assert_eq!(p.to_string(), again.to_string());
        funcs += p.functions.len();
        edges += ne;
        warns += p.warnings.len();
        errors += nerr;
    }
    println!(
        "corpus: {} programs, {funcs} functions, {edges} edges, {errors} error edges, {warns} warnings",
        files.len()
    );
}

/// An oracle over the workspace's seeded generator, favouring small values and bounds.
struct Inputs(SplitMix64);

impl cir::interp::Oracle for Inputs {
    fn value(&mut self, lo: i128, hi: i128) -> i128 {
        let r = self.0.next_u64();
        let v = match r % 8 {
            0 => lo,
            1 => hi,
            2..=5 => (r >> 8) as i128 % 5,
            _ => lo + ((r >> 8) as i128).rem_euclid(hi - lo + 1),
        };
        v.clamp(lo, hi)
    }

    fn choose(&mut self, n: usize) -> usize {
        self.0.below(n)
    }
}

/// The concrete interpreter runs every corpus program without panicking: random runs of up to
/// 20,000 steps; how each ended is printed (the semantics' executable form). No run
/// of a task whose expected verdict is `true` may reach the error: that would be a bug in the
/// lowering or the interpreter.
#[test]
fn every_corpus_program_runs_in_the_interpreter() {
    use cir::interp::{End, Event, Interp};
    let Some(files) = corpus_files() else {
        println!("SKIP: ../shared/corpus/sv-benchmarks not found");
        return;
    };
    let mut total_steps = 0u64;
    for f in &files {
        let p = cir::load_file(f, &cir::LowerOptions::default())
            .unwrap_or_else(|e| panic!("{}: {e}", f.display()));
        let mut outcomes = Vec::new();
        let mut steps_here = 0u64;
        for seed in 1..=5u64 {
            let mut o = Inputs(SplitMix64::new(seed));
            let mut it = match Interp::new(&p, &mut o) {
                Ok(it) => it,
                Err(fault) => {
                    outcomes.push(format!("start: {fault}"));
                    continue;
                }
            };
            let mut outcome = "budget".to_string();
            for _ in 0..20_000 {
                steps_here += 1;
                match it.step(&mut o) {
                    Ok(Event::End(End::Exit)) => outcome = "exit".into(),
                    Ok(Event::End(End::Error(e))) => {
                        assert_ne!(
                            svcomp::property::error_expected_reachable(f),
                            Some(false),
                            "{}: a run of a safe task reaches the error at {}",
                            f.display(),
                            p.edge_name(e)
                        );
                        outcome = format!("error {}", p.edge_name(e));
                    }
                    Ok(Event::End(End::Halt(_))) => outcome = "halt".into(),
                    Ok(Event::End(End::Blocked)) => outcome = "blocked".into(),
                    Ok(_) => continue,
                    Err(fault) => outcome = fault.to_string(),
                }
                break;
            }
            outcomes.push(outcome);
        }
        total_steps += steps_here;
        println!(
            "{}: {steps_here} steps: {}",
            f.display(),
            outcomes.join("; ")
        );
    }
    println!("interpreter: {} programs, {total_steps} steps", files.len());
    assert!(
        total_steps > files.len() as u64 * 5,
        "the runs did not get going"
    );
}
