//! Soundness by execution. C programs — the hand-written golden inputs
//! and generated ones (several procedures, pointers to locals, structure fields, heap
//! structures linked by pointer fields, signed and unsigned arithmetic, calls whose actuals
//! change, recursion) — are run on random concrete
//! inputs by `cir::interp`; the predicate values along every run must be a run of the Boolean
//! program c2bp produced, checked step by step with the reference interpreter of `bp-testkit`
//! with `enforce` in force ([`check`]), for cube lengths 1, 3 and `inf`, with the program's own
//! predicates and with those plus its branch conditions. Golden programs: with `--enforce-len`
//! 2 and 3. Generated programs: branch conditions for every fourth one, with a small query
//! budget per cube search (capped searches are checked too), and each semantics in turn:
//! mathematical integers (ILP32), `--bitvector`, LP64. The exact abstraction
//! (`--abstraction exact`) is checked on the golden programs and on every fourth generated
//! one, once with the default `--max-cubes` and once with a tiny one (2), so that statements
//! whose relation stops short (Cartesian conjoined with the clauses found) are checked too.
//!
//! `SOUNDNESS_SEEDS=N` runs N generated programs (default 40); a failure prints the seed, the
//! program, the predicates and the Boolean program.

#[path = "soundness/check.rs"]
mod check;
mod common;
#[path = "soundness/programs.rs"]
mod programs;

use std::path::Path;

use bp_testkit::prng::SplitMix64;
use check::{Checker, Random, Verdict};

/// Totals over all checks.
#[derive(Default, Debug)]
struct Tally {
    programs: usize,
    skipped: usize,
    runs: usize,
    covered: usize,
    errors: usize,
    stopped: usize,
    edges: usize,
}

/// Abstracts `c` with `preds` at each cube length and checks `runs` random runs of each.
fn check_program(
    c: &Path,
    prog: &cir::Program,
    preds: &cir::pred::PredicateSet,
    seed: u64,
    runs: usize,
    base: &c2bp::Options,
    tally: &mut Tally,
) -> Result<(), String> {
    // The exact abstraction does not depend on the cube length (but its capped statements'
    // Cartesian part does): 1 and 3.
    let lens: &[Option<usize>] = match base.abstraction {
        c2bp::Abstraction::Exact => &[Some(1), Some(3)],
        c2bp::Abstraction::Cartesian => &[Some(1), Some(3), None],
    };
    for &cube_len in lens {
        let opts = c2bp::Options {
            cube_len,
            ..base.clone()
        };
        let t = std::time::Instant::now();
        let out = common::abstract_file(c, prog, preds, &opts);
        let abstraction = t.elapsed();
        let bp = bp_grammar::parse_and_check(&out.text, &bp_grammar::ParseOptions::default())
            .map_err(|d| format!("c2bp output does not check: {d:?}"))?;
        let checker = match Checker::new(prog, preds, &bp) {
            Ok(c) => c,
            Err(e) => {
                eprintln!("{}: skipped: {e}", c.display());
                tally.skipped += 1;
                continue;
            }
        };
        tally.programs += 1;
        let t = std::time::Instant::now();
        for r in 0..runs {
            let mut oracle = Random(SplitMix64::new(
                seed.wrapping_mul(1000).wrapping_add(r as u64),
            ));
            tally.runs += 1;
            match checker.check_run(&mut oracle, 2_000) {
                Verdict::Covered { steps, error } => {
                    tally.covered += 1;
                    tally.errors += usize::from(error);
                    tally.edges += steps;
                }
                Verdict::Stopped { steps, .. } | Verdict::Budget { steps } => {
                    tally.stopped += 1;
                    tally.edges += steps;
                }
                Verdict::Unsound(why) => {
                    return Err(format!(
                        "{} (max-cubes {}), cube length {cube_len:?}, run {r}: {why}\n\
                         --- Boolean program ---\n{}",
                        opts.abstraction, opts.max_cubes, out.text
                    ));
                }
            }
        }
        eprintln!(
            "{} {} cube-len {cube_len:?}: abstraction {abstraction:.2?}, {runs} runs {:.2?}",
            c.display(),
            opts.abstraction,
            t.elapsed()
        );
    }
    Ok(())
}

/// Both predicate sets of a program: its own, and its own plus its branch conditions.
fn predicate_sets(
    prog: &cir::Program,
    own: cir::pred::PredicateSet,
) -> Vec<(&'static str, cir::pred::PredicateSet)> {
    let mut with_branches = own.clone();
    let branches = cir::pred::branch_predicates(prog);
    for p in branches.global {
        if !with_branches.global.contains(&p) {
            with_branches.global.push(p);
        }
    }
    for (f, ps) in branches.per_function {
        let list = with_branches.per_function.entry(f).or_default();
        for p in ps {
            if !list.contains(&p) {
                list.push(p);
            }
        }
    }
    vec![("own", own), ("own+branches", with_branches)]
}

/// Every golden program, under each of its variants and predicate sets, abstracted with each
/// of `options` (a label and the options), checked in lockstep; the tally must show enough
/// complete runs and some that reach an error.
fn check_goldens(label: &str, options: &[(String, c2bp::Options)]) {
    let cs = common::golden_c_files();
    let mut tally = Tally::default();
    for c in &cs {
        let name = c.file_stem().expect("stem").to_string_lossy().to_string();
        for (variant, lower) in common::golden_variants(&name) {
            let prog = common::load(c, &lower);
            let own = common::preds(&prog, Some(&c.with_extension("preds")));
            for (which, preds) in predicate_sets(&prog, own) {
                for (what, opts) in options {
                    if let Err(e) = check_program(c, &prog, &preds, 7, 30, opts, &mut tally) {
                        panic!("{variant} ({which} predicates, {what}): {e}");
                    }
                }
            }
        }
    }
    eprintln!("{label}: {tally:?}");
    assert!(
        tally.covered > tally.runs / 2,
        "too few complete runs: {tally:?}"
    );
    assert!(tally.errors > 0, "no run reached an error: {tally:?}");
}

#[test]
fn golden_programs_runs_are_runs_of_their_abstractions() {
    // The default enforce (cubes of 2) and a stronger one (3): a stronger enforce must still
    // exclude only inconsistent states.
    let options: Vec<(String, c2bp::Options)> = [2, 3]
        .into_iter()
        .map(|enforce_len| {
            let opts = c2bp::Options {
                enforce_len,
                ..c2bp::Options::default()
            };
            (format!("enforce-len {enforce_len}"), opts)
        })
        .collect();
    check_goldens("golden", &options);
}

/// The exact abstractions' variants: the default `--max-cubes`, and 2, which stops most
/// relations short (their statements keep the Cartesian abstraction besides the clauses).
fn exact_variants(base: &c2bp::Options) -> Vec<c2bp::Options> {
    [c2bp::DEFAULT_MAX_CUBES, 2]
        .into_iter()
        .map(|max_cubes| c2bp::Options {
            abstraction: c2bp::Abstraction::Exact,
            max_cubes,
            ..base.clone()
        })
        .collect()
}

#[test]
fn golden_programs_runs_are_runs_of_their_exact_abstractions() {
    let options: Vec<(String, c2bp::Options)> = exact_variants(&c2bp::Options::default())
        .into_iter()
        .map(|o| (format!("max-cubes {}", o.max_cubes), o))
        .collect();
    check_goldens("golden, exact", &options);
}

#[test]
fn generated_programs_runs_are_runs_of_their_abstractions() {
    let seeds: u64 = std::env::var("SOUNDNESS_SEEDS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(40);
    let dir = std::env::temp_dir().join(format!("c2bp-soundness-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let mut tally = Tally::default();
    for seed in 0..seeds {
        let g = programs::generate_with_heap(seed);
        let c = dir.join(format!("gen{seed}.c"));
        std::fs::write(&c, &g.c).expect("write C");
        // The semantics vary with the seed: integers (ILP32), bit-vectors, LP64.
        let sem = cir::smt::Semantics {
            data_model: if seed % 3 == 2 {
                cir::DataModel::Lp64
            } else {
                cir::DataModel::Ilp32
            },
            bitvector: seed % 3 == 1,
        };
        let lower = cir::LowerOptions {
            data_model: sem.data_model,
            ..cir::LowerOptions::default()
        };
        let prog = common::load(&c, &lower);
        let own = cir::pred::parse_predicates(&g.preds, "gen.preds", &prog)
            .unwrap_or_else(|e| panic!("seed {seed}: {e}\n{}\n{}", g.c, g.preds));
        // With every branch condition added, a search may stop at its query budget: a small
        // one keeps these pointer-heavy programs fast and checks that capped searches (more
        // `*`) stay sound too.
        // (Every fourth program only: they are the slow part of this test.)
        for (which, preds) in predicate_sets(&prog, own) {
            if which != "own" && seed % 4 != 0 {
                continue;
            }
            let budget = if which == "own" {
                c2bp::Options::default().max_queries
            } else {
                200
            };
            let base = c2bp::Options {
                max_queries: budget,
                sem,
                ..c2bp::Options::default()
            };
            let mut variants = vec![base.clone()];
            if which == "own" && seed % 4 == 1 {
                variants.extend(exact_variants(&base));
            }
            for opts in variants {
                if let Err(e) = check_program(&c, &prog, &preds, seed, 20, &opts, &mut tally) {
                    panic!(
                        "seed {seed} ({which} predicates): {e}\n--- C ---\n{}\n\
                         --- predicates ---\n{}",
                        g.c, g.preds
                    );
                }
            }
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    eprintln!("generated: {tally:?}");
    assert!(
        tally.covered > tally.runs / 2,
        "too few complete runs: {tally:?}"
    );
    assert!(tally.errors > 0, "no run reached an error: {tally:?}");
}
