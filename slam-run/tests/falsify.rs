//! The concrete-execution falsifier (`--falsify auto`): bugs behind 1,000 loop iterations are
//! FALSE with a counterexample replayed on the concrete interpreter and a violation witness
//! that checks, whether they need no input, the input 0, a large input or the non-zero
//! elements of an uninitialised array; a safe loop stays
//! TRUE with the falsifier's steps within the run's budget; a run that meets undefined
//! behaviour before the error is no counterexample; a program the interpreter cannot start
//! costs one start, not the whole budget.

mod common;

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use slam_run::witness::{check_violation, violation};
use slam_run::{FalsifyOptions, FalsifyOutcome, FalsifyRun, Verdict};

fn data(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/falsify")
        .join(name)
}

fn config(refine: newton::RefineMode, falsify: FalsifyOptions) -> slam_run::Config {
    slam_run::Config {
        refine,
        falsify,
        max_iterations: 12,
        deadline: Some(Instant::now() + Duration::from_secs(120)),
        ..slam_run::Config::default()
    }
}

/// Every falsifier call of the run.
fn calls(r: &slam_run::RunResult) -> Vec<&FalsifyRun> {
    r.iterations.iter().flat_map(|i| &i.falsify).collect()
}

/// Runs `name` with the falsifier on (and the weakest-precondition refiner, which alone
/// would follow the loop one iteration at a time), expects FALSE from the falsifier, and
/// checks the counterexample's violation witness; the witness's text.
fn false_with_witness(name: &str) -> String {
    let path = data(name);
    let cfg = config(newton::RefineMode::Wp, FalsifyOptions::default());
    let r = common::run_file(&path, &cfg);
    let Verdict::False(cex) = &r.verdict else {
        panic!("{name}: {}", r.verdict.line());
    };
    let found = calls(&r);
    assert!(
        found
            .last()
            .is_some_and(|c| c.outcome == FalsifyOutcome::Counterexample),
        "{name}: {found:?}"
    );
    assert!(cex.steps.len() > 1000, "{name}: {} steps", cex.steps.len());
    let source = std::fs::read(&path).expect("source");
    let prog = cir::load_file(&path, &cir::LowerOptions::default()).expect("lowers");
    let info = common::witness_info(&path, &source);
    let w = violation(&prog, cex, &info);
    let checked = check_violation(&prog, &source, &w).expect("the witness checks");
    assert!(checked.steps > 1000, "{name}: {checked:?}");
    w
}

#[test]
fn a_bug_behind_a_thousand_iterations_is_false_with_a_witness() {
    let size = false_with_witness("deep_const_bug.c").len();
    // One node and one edge per step: a few hundred bytes each.
    assert!(size < 2_000_000, "{size} bytes");
}

#[test]
fn a_bug_behind_a_thousand_iterations_with_input_zero_is_false() {
    false_with_witness("deep_zero_input_bug.c");
}

#[test]
fn a_bug_that_needs_a_large_input_is_found_by_the_seeded_runs() {
    false_with_witness("deep_large_input_bug.c");
}

/// The seeded runs draw the elements of an uninitialised local array too; the witness gives
/// them (`a[3] == V;`), and without them its replay does not reach the error.
#[test]
fn a_bug_behind_an_uninitialised_array_has_a_witness_with_its_elements() {
    let name = "deep_array_bug.c";
    let w = false_with_witness(name);
    let given: Vec<&str> = w.match_indices("a[").map(|(i, _)| &w[i..]).collect();
    assert!(given.len() > 600, "{} elements given", given.len());
    assert!(w.contains("a[0] == "));
    // The same witness with every element's assumption removed replays with zeros.
    let stripped: String = w
        .lines()
        .map(|l| {
            if l.contains("<data key=\"assumption\">a[") {
                let kept: Vec<&str> = l.split(';').filter(|p| !p.contains("a[")).collect();
                kept.join(";")
            } else {
                l.to_string()
            }
        })
        .collect::<Vec<_>>()
        .join("\n");
    let path = data(name);
    let source = std::fs::read(&path).expect("source");
    let prog = cir::load_file(&path, &cir::LowerOptions::default()).expect("lowers");
    assert!(check_violation(&prog, &source, &stripped).is_err());
}

#[test]
fn a_safe_loop_stays_true_within_the_step_budget() {
    let total = 1 << 18;
    let falsify = FalsifyOptions {
        total_steps: total,
        ..FalsifyOptions::default()
    };
    let r = common::run_file(
        &data("deep_safe.c"),
        &config(newton::RefineMode::Auto, falsify),
    );
    assert!(matches!(r.verdict, Verdict::True), "{}", r.verdict.line());
    let found = calls(&r);
    let steps: u64 = found.iter().map(|c| c.steps).sum();
    assert!(steps <= total, "{steps} steps: {found:?}");
    assert!(
        found
            .iter()
            .all(|c| c.outcome != FalsifyOutcome::Counterexample),
        "{found:?}"
    );
}

#[test]
fn a_program_the_interpreter_cannot_start_costs_one_start() {
    // Every run stops at `main`'s entry without a step: the first two runs (all-zero, one
    // seeded) show it, and no later call runs again.
    let r = common::run_file(
        &data("vla_start.c"),
        &config(newton::RefineMode::Wp, FalsifyOptions::default()),
    );
    let found = calls(&r);
    assert!(!found.is_empty(), "the falsifier ran: {}", r.verdict.line());
    let runs: usize = found.iter().map(|c| c.runs).sum();
    assert!(runs <= 2, "{runs} runs: {found:?}");
    assert!(
        found.iter().all(|c| c.outcome == FalsifyOutcome::Exhausted),
        "{found:?}"
    );
}

#[test]
fn undefined_behaviour_before_the_error_is_no_counterexample() {
    // Few iterations: the falsifier runs at the first trace through the loop and at the
    // give-up.
    let cfg = slam_run::Config {
        max_iterations: 3,
        ..config(newton::RefineMode::Wp, FalsifyOptions::default())
    };
    let r = common::run_file(&data("overflow_before_bug.c"), &cfg);
    let found = calls(&r);
    assert!(!found.is_empty(), "the falsifier ran: {}", r.verdict.line());
    assert!(
        found
            .iter()
            .all(|c| c.outcome != FalsifyOutcome::Counterexample),
        "{found:?}"
    );
    assert!(
        !matches!(r.verdict, Verdict::False(_)),
        "{}",
        r.verdict.line()
    );
}

#[test]
fn with_falsify_off_the_falsifier_does_not_run() {
    let falsify = FalsifyOptions {
        mode: slam_run::FalsifyMode::Off,
        ..FalsifyOptions::default()
    };
    let r = common::run_file(
        &data("deep_const_bug.c"),
        &config(newton::RefineMode::Wp, falsify),
    );
    assert!(calls(&r).is_empty());
    assert!(
        !matches!(r.verdict, Verdict::False(_)),
        "{}",
        r.verdict.line()
    );
}
