//! Soundness of constrain: no constraint or `enforce` it produces ever
//! excludes the abstraction of a concrete step. Generated C programs (those of c2bp's soundness
//! test: several procedures, pointers to locals, fields, signed and unsigned arithmetic) are
//! abstracted at cube lengths 1 and 3 and with `--havoc-all`; bebop's error trace goes to constrain (up to 200
//! constraints per pass), the constraints are applied, and bebop and constrain alternate up to
//! four times. The patched Boolean program must re-parse and pass the checker, and random
//! concrete runs of the C program — executed by `cir::interp`, not by the SMT encoding that
//! produced the constraints — must each map, through the predicates' values, to a run of it
//! (the lockstep check of c2bp's soundness test, with `constrain` clauses and `enforce` in
//! force).
//!
//! `CONSTRAIN_SEEDS=N` programs (default 24); a failure prints the seed, the constraints and the
//! patched Boolean program.

#[path = "../c2bp/tests/soundness/check.rs"]
mod check;
#[path = "../c2bp/tests/soundness/programs.rs"]
mod programs;

use bp_testkit::prng::SplitMix64;
use check::{Checker, Random, Verdict};

#[test]
fn constraints_never_exclude_a_concrete_step() {
    let seeds: u64 = std::env::var("CONSTRAIN_SEEDS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(24);
    let dir = std::env::temp_dir().join(format!("constrain-soundness-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let (mut traces, mut constraints, mut runs, mut covered) = (0, 0, 0, 0);
    let mut by_part: std::collections::BTreeMap<String, usize> = Default::default();
    for seed in 0..seeds {
        let g = programs::generate(seed);
        let c = dir.join(format!("gen{seed}.c"));
        std::fs::write(&c, &g.c).expect("write C");
        let prog = cir::load_file(&c, &cir::LowerOptions::default())
            .unwrap_or_else(|e| panic!("seed {seed}: {e}"));
        let preds = cir::pred::parse_predicates(&g.preds, "gen.preds", &prog)
            .unwrap_or_else(|e| panic!("seed {seed}: {e}"));
        let pts = cir::pointsto::PointsTo::analyze(&prog);
        let sources = bp_c::header::Sources {
            c_path: "gen.c".into(),
            c_sha256: bp_c::header::sha256_hex(g.c.as_bytes()),
            preds_path: None,
            extra: Vec::new(),
        };
        // Cube lengths 1 and 3, and `--havoc-all` (the eager configuration: every update `*`,
        // so most transitions of a trace are spurious).
        for (cube_len, havoc_all) in [(Some(1), false), (Some(3), false), (Some(3), true)] {
            let opts = c2bp::Options {
                cube_len,
                havoc_all,
                max_queries: 2_000,
                ..c2bp::Options::default()
            };
            let out = c2bp::abstract_program(&prog, &preds, &opts, &sources)
                .unwrap_or_else(|e| panic!("seed {seed}: {e}"));
            let mut bp =
                bp_grammar::parse_and_check(&out.text, &bp_grammar::ParseOptions::default())
                    .expect("c2bp's output checks");
            let copts = constrain::Options {
                max_constraints: 200,
                ..constrain::Options::default()
            };
            let mut found: Vec<constrain::Constraint> = Vec::new();
            for _ in 0..4 {
                let res = bebop::verify(&bp, &bebop::Options::default()).expect("bebop runs");
                let Some(trace) = res.verdict.trace() else {
                    break;
                };
                traces += 1;
                let pass = constrain::analyze(&prog, &pts, &bp, trace, &copts)
                    .unwrap_or_else(|e| panic!("seed {seed}: {e}"));
                if pass.constraints.is_empty() {
                    break;
                }
                constrain::apply(&mut bp, &pass.constraints);
                found.extend(pass.constraints);
                let text = bp_grammar::print::print(&bp);
                bp = bp_grammar::parse_and_check(&text, &bp_grammar::ParseOptions::default())
                    .unwrap_or_else(|d| {
                        panic!("seed {seed}: the patched program does not check: {d:?}\n{text}")
                    });
            }
            if found.is_empty() {
                continue;
            }
            constraints += found.len();
            for c in &found {
                *by_part
                    .entry(c.part.clone().unwrap_or_else(|| "enforce".into()))
                    .or_default() += 1;
            }
            let Ok(checker) = Checker::new(&prog, &preds, &bp) else {
                continue;
            };
            for r in 0..20u64 {
                let mut oracle = Random(SplitMix64::new(seed.wrapping_mul(7919).wrapping_add(r)));
                runs += 1;
                match checker.check_run(&mut oracle, 2_000) {
                    Verdict::Unsound(why) => panic!(
                        "seed {seed}, cube length {cube_len:?}, havoc-all {havoc_all}, run {r}: a constraint excludes a \
                         concrete step: {why}\n--- constraints ---\n{}--- C ---\n{}\n--- patched \
                         Boolean program ---\n{}",
                        constrain::constraints_text(&found),
                        g.c,
                        bp_grammar::print::print(&bp)
                    ),
                    Verdict::Covered { .. } => covered += 1,
                    _ => {}
                }
            }
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    eprintln!(
        "constrain soundness: {traces} traces, {constraints} constraints {by_part:?}, {runs} \
         concrete runs ({covered} covered to their end)"
    );
    // The check is not vacuous: constraints were produced and runs checked against them.
    assert!(constraints > 0 && covered > 0, "nothing was checked");
}
