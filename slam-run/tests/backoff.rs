//! What the loop stops paying for on a state machine whose every trace goes round its loop:
//! the Horn refiner's back-off after path programs it could not use (`tests/data/backoff/`,
//! a `while (1) switch (s.state)` over a structure, as OpenSSL's servers are written), and the
//! falsifier's budget for the calls rounds trigger.

mod common;

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use newton::HornResult;
use slam_run::{FalsifyOptions, Trigger, Verdict};

fn data(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/backoff")
        .join(name)
}

/// The loop's defaults, but for a falsifier budget small enough for a test: the first call
/// 2^10 steps, each triggered one at most 2^13, together at most 2^15.
fn config() -> slam_run::Config {
    slam_run::Config {
        max_iterations: 20,
        deadline: Some(Instant::now() + Duration::from_secs(120)),
        falsify: FalsifyOptions {
            first_steps: 1 << 10,
            max_call_steps: 1 << 13,
            triggered_steps: 1 << 15,
            ..FalsifyOptions::default()
        },
        // One state at a time, so that several traces go round the loop: with the siblings of
        // a tested state the abstraction has the machine's states at once, and the run ends
        // before a second Horn call.
        sibling_predicates: false,
        ..slam_run::Config::default()
    }
}

/// The Horn refiner fails on the state machine's path program (the structure's fields are
/// fresh values in its clauses, so Spacer's error path does not replay), and the next call on
/// a path program of the same loop is skipped, with the reason in the record; the run is
/// still TRUE, and `--stats-json` counts the calls made and skipped apart. (One run for the
/// falsifier's budget too: every round of it triggers a call.)
#[test]
fn a_failed_horn_call_skips_the_next_on_the_same_loop() {
    let path = data("struct_state_machine.c");
    let r = common::run_file(&path, &config());
    assert!(matches!(r.verdict, Verdict::True), "{}", r.verdict.line());
    let runs: Vec<&newton::HornSummary> = r.iterations.iter().flat_map(|i| i.horn_runs()).collect();
    let first_failed = runs
        .iter()
        .position(|h| h.outcome == HornResult::Failed)
        .expect("a failed Horn call");
    assert!(
        runs[first_failed].reason.contains("does not replay"),
        "{:?}",
        runs[first_failed]
    );
    let next = runs.get(first_failed + 1).expect("a later call");
    assert_eq!(next.outcome, HornResult::Skipped, "{next:?}");
    assert!(next.reason.starts_with("back-off: 1 failure"), "{next:?}");
    assert_eq!(next.attempts, Vec::<String>::new());
    // A skipped call does not trigger the falsifier as a failed one does.
    for it in &r.iterations {
        if it
            .horn
            .as_ref()
            .is_some_and(|h| h.outcome == HornResult::Skipped)
        {
            assert!(
                it.falsify.iter().all(|c| c.trigger != Trigger::Horn),
                "{:?}",
                it.falsify
            );
        }
    }
    let json: serde_json::Value =
        serde_json::from_str(&r.stats_json("struct_state_machine.c")).expect("json");
    let skipped = runs
        .iter()
        .filter(|h| h.outcome == HornResult::Skipped)
        .count();
    assert_eq!(json["horn_skipped"], skipped);
    assert_eq!(json["horn_calls"], runs.len() - skipped);
    triggered_falsifier_calls_stay_within_their_share(&r);
}

/// The calls rounds trigger stay within their cap each and their share together, however
/// many rounds trigger one; the first budgets still grow fourfold ([`config`]).
fn triggered_falsifier_calls_stay_within_their_share(r: &slam_run::RunResult) {
    let calls: Vec<_> = r.iterations.iter().flat_map(|i| &i.falsify).collect();
    assert!(calls.len() >= 3, "{calls:?}");
    assert_eq!(calls[0].budget, 1 << 10);
    assert_eq!(calls[1].budget, 1 << 12);
    assert!(calls.iter().all(|c| c.budget <= 1 << 13), "{calls:?}");
    assert!(calls.iter().any(|c| c.budget == 1 << 13), "{calls:?}");
    let total: u64 = calls.iter().map(|c| c.steps).sum();
    assert!(total <= 1 << 15, "{total}: {calls:?}");
}
