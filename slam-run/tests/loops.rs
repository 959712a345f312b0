//! The loop suite (`tests/data/loops/`): programs whose proofs need loop invariants that no
//! single trace's weakest preconditions contain — counters to a constant and to a parameter,
//! a counter by two (its parity), a step through a call, a counter behind a faster one,
//! variables moving together, nested loops, a flag and a phase change, a loop in a callee,
//! recursion, a state machine, an array index kept in bounds, an array cell set by a loop,
//! a scan to a zero the program wrote, a copy cell by cell, a sum by two, an irreducible loop
//! — each with a buggy mutant (`*_bug.c`), and two bugs behind 100 or more loop iterations. Run through the
//! library with `--refine auto` (the default): each safe program is TRUE, each mutant FALSE
//! with a counterexample replayed on the concrete interpreter, and the final predicates of the
//! programs listed in [`HORN_PROVED`] include one the Horn refiner (path invariants) proposed.

mod common;

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use slam_run::Verdict;

fn data(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/loops")
        .join(name)
}

fn run(name: &str, refine: newton::RefineMode) -> slam_run::RunResult {
    run_with(name, refine, slam_run::FalsifyMode::Auto)
}

/// [`run`] with the concrete-execution falsifier on or off.
fn run_with(
    name: &str,
    refine: newton::RefineMode,
    falsify: slam_run::FalsifyMode,
) -> slam_run::RunResult {
    let cfg = slam_run::Config {
        refine,
        max_iterations: 20,
        deadline: Some(Instant::now() + Duration::from_secs(120)),
        falsify: slam_run::FalsifyOptions {
            mode: falsify,
            ..slam_run::FalsifyOptions::default()
        },
        ..slam_run::Config::default()
    };
    common::run_file(&data(name), &cfg)
}

/// The safe programs the loop proves with `--refine auto`.
const SAFE: &[&str] = &[
    "array_cell",
    "array_copy",
    "array_index",
    "array_scan",
    "call_parity",
    "callee_loop",
    "count_down",
    "counter_const",
    "counter_param",
    "double_step",
    "flag_phase",
    "goto_loop",
    "nested",
    "order_count",
    "recursion",
    "state_machine",
    "step_parity",
    "sum_nonneg",
    "sum_step",
    "two_vars",
];

/// Safe programs whose final predicates include a Horn-proposed one.
const HORN_PROVED: &[&str] = &[
    "array_cell",
    "array_copy",
    "array_scan",
    "call_parity",
    "callee_loop",
    "count_down",
    "counter_const",
    "counter_param",
    "double_step",
    "flag_phase",
    "goto_loop",
    "order_count",
    "recursion",
    "step_parity",
    "sum_nonneg",
    "sum_step",
    "two_vars",
];

/// The final predicates of `r` that came from the Horn refiner.
fn horn_predicates(r: &slam_run::RunResult) -> Vec<&str> {
    r.sources
        .iter()
        .filter(|p| p.source == "horn")
        .map(|p| p.predicate.as_str())
        .collect()
}

/// Whether some final predicate of `r` came from the Horn refiner.
fn horn_in_final(r: &slam_run::RunResult) -> bool {
    !horn_predicates(r).is_empty()
}

#[test]
fn the_safe_programs_are_true() {
    let mut failures = Vec::new();
    for name in SAFE {
        let r = run(&format!("{name}.c"), newton::RefineMode::Auto);
        if !matches!(r.verdict, Verdict::True) {
            failures.push(format!("{name}: {}", r.verdict.line()));
        } else if HORN_PROVED.contains(name) != horn_in_final(&r) {
            failures.push(format!(
                "{name}: a Horn predicate in the final set: {} (expected {})",
                horn_in_final(&r),
                HORN_PROVED.contains(name)
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The mutants, each found with `--refine auto`.
const MUTANTS: &[&str] = &[
    "array_cell_bug",
    "array_copy_bug",
    "array_scan_bug",
    "array_index_bug",
    "call_parity_bug",
    "callee_loop_bug",
    "count_down_bug",
    "counter_const_bug",
    "counter_param_bug",
    "double_step_bug",
    "flag_phase_bug",
    "goto_loop_bug",
    "nested_bug",
    "order_count_bug",
    "recursion_bug",
    "state_machine_bug",
    "step_parity_bug",
    "sum_nonneg_bug",
    "sum_step_bug",
    "two_vars_bug",
];

#[test]
fn the_mutants_are_false_with_a_replayed_counterexample() {
    let mut failures = Vec::new();
    for name in MUTANTS {
        let r = run(&format!("{name}.c"), newton::RefineMode::Auto);
        match &r.verdict {
            // A FALSE verdict carries the counterexample the concrete interpreter replayed to
            // the error.
            Verdict::False(cex) if !cex.steps.is_empty() => {}
            v => failures.push(format!("{name}: {}", v.line())),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// A bug behind 100 loop iterations costs that many refinements one trace at a time;
/// the path program's derivation, replayed, finds it within 3 (with the concrete-execution
/// falsifier off, which would find it first).
#[test]
fn bugs_behind_a_hundred_iterations_are_found_in_three_refinements() {
    for name in ["deep_counter_bug.c", "deep_sum_bug.c"] {
        let r = run_with(name, newton::RefineMode::Auto, slam_run::FalsifyMode::Off);
        assert!(
            matches!(r.verdict, Verdict::False(_)),
            "{name}: {}",
            r.verdict.line()
        );
        assert!(
            r.iterations.len() <= 3,
            "{name}: {} iterations",
            r.iterations.len()
        );
    }
}

/// With `--refine wp` the unrolling of `counter_const_bug.c` (`x >= 99`, `x + 1 >= 99`, …) is
/// reported as divergence, naming the predicates, instead of running into the limits (with the
/// concrete-execution falsifier off: it would find the bug first).
#[test]
fn wp_reports_divergence() {
    let r = run_with(
        "counter_const_bug.c",
        newton::RefineMode::Wp,
        slam_run::FalsifyMode::Off,
    );
    match &r.verdict {
        Verdict::Unknown(slam_run::UnknownReason::Divergence(chain)) => {
            assert_eq!(chain.len(), 3, "{chain:?}");
            assert!(chain.iter().all(|p| p.contains("99")), "{chain:?}");
        }
        v => panic!("{}", v.line()),
    }
}

/// A path program met again is answered from the Horn refiner's cache of decided answers,
/// without solving it again: `double_step.c`'s later traces unroll its loop along the same
/// edges as an earlier one.
#[test]
fn a_path_program_met_again_is_answered_from_the_cache() {
    let r = run("double_step.c", newton::RefineMode::Auto);
    assert!(matches!(r.verdict, Verdict::True), "{}", r.verdict.line());
    let attempts: Vec<&Vec<String>> = r
        .iterations
        .iter()
        .filter_map(|i| i.horn.as_ref().map(|h| &h.attempts))
        .collect();
    assert!(
        attempts.iter().any(|a| a.as_slice() == ["cached: unsat"]),
        "{attempts:?}"
    );
}

/// `array_cell.c`: the Horn refiner tracks the cell the assertion reads (`a[1023]`) as a
/// value of its own, updated where the loop's write may hit it, and proposes facts about it.
#[test]
fn an_array_cell_at_a_constant_index_is_tracked_by_the_horn_refiner() {
    let r = run("array_cell.c", newton::RefineMode::Auto);
    assert!(matches!(r.verdict, Verdict::True), "{}", r.verdict.line());
    let horn = horn_predicates(&r);
    assert!(
        horn.iter().any(|p| p.contains("a[1023]")),
        "{:?}",
        r.sources
    );
}

/// Houdini's cell candidates decide the path programs of `array_scan.c` (the scan's index
/// below the cell it stops at, `i <= 511`, with the constant written there, `a[511] == 0`)
/// and of `array_copy.c` (the cell equal once the copy's index has passed it,
/// `i <= 256 || a[256] == b[256]`, which reaches the abstraction with both bounds of `i`;
/// `a[256] == b[256]` is there from the start, as the error's guard).
#[test]
fn houdini_proposes_array_cell_invariants() {
    // Proves `name`; its Horn predicates in the final set, and its first Horn call's attempts.
    let proved = |name: &str| -> (Vec<String>, Option<Vec<String>>) {
        let r = run(name, newton::RefineMode::Auto);
        assert!(
            matches!(r.verdict, Verdict::True),
            "{name}: {}",
            r.verdict.line()
        );
        let preds = horn_predicates(&r).into_iter().map(String::from).collect();
        let first = r.iterations.iter().find_map(|i| i.horn.as_ref());
        (preds, first.map(|h| h.attempts.clone()))
    };
    let bound =
        |preds: &[String], op: &str| preds.iter().any(|p| p.starts_with("i ") && p.contains(op));
    let houdini = Some(vec!["houdini: unsat".to_string()]);
    let (scan, first) = proved("array_scan.c");
    assert!(scan.iter().any(|p| p == "a[511] == 0"), "{scan:?}");
    assert!(bound(&scan, "<= 511"), "{scan:?}");
    assert_eq!(first, houdini);
    let (copy, first) = proved("array_copy.c");
    assert!(bound(&copy, "<= 256") && bound(&copy, ">= 256"), "{copy:?}");
    assert_eq!(first, houdini);
}

/// `two_vars.c` needs `x - y == i - j`, which Houdini guesses from the two equal steps and
/// the values the variables start from; with it and the loop's exit, the error's guard needs a
/// four-literal cube, so the run raises the enforce length after constrain stops helping.
#[test]
fn two_variables_moving_together_are_proved_with_longer_cubes() {
    let r = run("two_vars.c", newton::RefineMode::Auto);
    assert!(matches!(r.verdict, Verdict::True), "{}", r.verdict.line());
    let horn = horn_predicates(&r);
    assert!(horn.contains(&"x - y == i - j"), "{horn:?}");
    let raises: Vec<_> = r.cube_raises().map(|(_, c)| c.clone()).collect();
    assert!(
        raises.last().is_some_and(|c| c.enforce_len >= 4),
        "{raises:?}"
    );
}

/// `callee_loop.c` is proved only once the enforce length is raised; with
/// `--max-cube-len 0` the run ends as it did before raises existed, never with a verdict.
#[test]
fn no_difference_found_raises_the_cube_lengths() {
    let r = run("callee_loop.c", newton::RefineMode::Auto);
    assert!(matches!(r.verdict, Verdict::True), "{}", r.verdict.line());
    let raises: Vec<_> = r.cube_raises().map(|(_, c)| c.clone()).collect();
    assert!(!raises.is_empty());
    assert_eq!(raises[0].reason, slam_run::UnknownReason::NoDifferenceFound);
    let cfg = slam_run::Config {
        max_cube_len: 0,
        max_iterations: 20,
        ..slam_run::Config::default()
    };
    let r = common::run_file(&data("callee_loop.c"), &cfg);
    assert!(
        matches!(
            r.verdict,
            Verdict::Unknown(slam_run::UnknownReason::NoDifferenceFound)
        ),
        "{}",
        r.verdict.line()
    );
    assert_eq!(r.cube_raises().count(), 0);
}

/// Houdini over the atoms the program spells out decides `counter_const.c`'s path program
/// before Spacer is asked (`x <= 100` is the non-strict form of the loop condition), and its
/// invariant is among the final predicates.
#[test]
fn houdini_decides_the_counter_to_a_constant() {
    let r = run("counter_const.c", newton::RefineMode::Auto);
    assert!(matches!(r.verdict, Verdict::True), "{}", r.verdict.line());
    let attempts: Vec<&Vec<String>> = r
        .iterations
        .iter()
        .filter_map(|i| i.horn.as_ref().map(|h| &h.attempts))
        .collect();
    assert_eq!(
        attempts.first().map(|a| a.as_slice()),
        Some(&["houdini: unsat".to_string()][..]),
        "{attempts:?}"
    );
    assert!(horn_in_final(&r));
}

/// `step_parity.c`: Houdini refutes the path program with the parity the step keeps
/// (`i % 2 == 0`) and the bound it makes inductive (`i <= 1000000`); the abstraction with them
/// and the error's guard `i != 1000000` still has a spurious path, on which Spacer's second
/// opinion gets the smallest share of its budget before constrain excludes it.
#[test]
fn houdini_finds_a_parity_and_spacer_second_guesses_it_on_a_budget() {
    let r = run("step_parity.c", newton::RefineMode::Auto);
    assert!(matches!(r.verdict, Verdict::True), "{}", r.verdict.line());
    let final_horn = horn_predicates(&r);
    assert!(final_horn.contains(&"i % 2 == 0"), "{final_horn:?}");
    let attempts: Vec<&Vec<String>> = r
        .iterations
        .iter()
        .filter_map(|i| i.horn.as_ref().map(|h| &h.attempts))
        .collect();
    let full = newton::horn::HornOptions::default().rlimit;
    let budget = format!("budget: rlimit {}", full / 64);
    assert!(
        attempts
            .iter()
            .any(|a| a.first().is_some_and(|x| x == "cached: unsat") && a.contains(&budget)),
        "{attempts:?}"
    );
}
