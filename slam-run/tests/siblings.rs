//! Sibling predicates (`--sibling-predicates`): a state machine whose safety needs a predicate
//! per state. With siblings, once refutations have tested `state` against a second constant,
//! the tests against all the others arrive together, and the proof takes fewer iterations; the verdicts are
//! the same either way, and the bug's counterexample still replays.
//!
//! - `machine.c`: states 1–7 in a `while`/`switch`; the error is reachable only in state 6
//!   without `flag`, and state 6 is reached only through state 2, which sets `flag`.
//! - its mutant (`MUTANT` defined): state 2 no longer sets `flag`.

mod common;

use std::path::{Path, PathBuf};

use slam_run::Verdict;

fn data(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/siblings")
        .join(name)
}

fn config(siblings: bool) -> slam_run::Config {
    slam_run::Config {
        sibling_predicates: siblings,
        refine: newton::RefineMode::Wp,
        falsify: slam_run::FalsifyOptions {
            mode: slam_run::FalsifyMode::Off,
            ..slam_run::FalsifyOptions::default()
        },
        ..slam_run::Config::default()
    }
}

#[test]
fn the_states_arrive_together_and_the_proof_is_shorter() {
    let path = data("machine.c");
    let with = common::run_file(&path, &config(true));
    let without = common::run_file(&path, &config(false));
    assert!(
        matches!(with.verdict, Verdict::True),
        "{}",
        with.verdict.line()
    );
    assert!(
        matches!(without.verdict, Verdict::True),
        "{}",
        without.verdict.line()
    );
    assert!(
        with.iterations.len() < without.iterations.len(),
        "{} iterations with siblings, {} without",
        with.iterations.len(),
        without.iterations.len()
    );
    let siblings: Vec<&str> = with
        .iterations
        .iter()
        .flat_map(|it| &it.added)
        .filter(|a| a.source == "siblings")
        .map(|a| a.predicate.as_str())
        .collect();
    assert!(
        siblings
            .iter()
            .any(|p| p.starts_with("state#") || p.starts_with("state ==")),
        "{siblings:?}"
    );
    assert!(
        without
            .iterations
            .iter()
            .flat_map(|it| &it.added)
            .all(|a| a.source != "siblings")
    );
}

#[test]
fn the_bug_is_found_either_way_and_replays() {
    let text = std::fs::read_to_string(data("machine.c")).expect("read");
    let dir = common::scratch_dir("siblings");
    let path = dir.join("machine_mutant.c");
    std::fs::write(&path, format!("#define MUTANT 1\n{text}")).expect("write");
    let prog = cir::load_file(&path, &cir::LowerOptions::default()).expect("lowers");
    let source = std::fs::read(&path).expect("read");
    let info = common::witness_info(&path, &source);
    for siblings in [true, false] {
        let r = common::run_file(&path, &config(siblings));
        let Verdict::False(cex) = &r.verdict else {
            panic!("siblings {siblings}: {}", r.verdict.line());
        };
        let w = slam_run::witness::violation(&prog, cex, &info);
        slam_run::witness::check_violation(&prog, &source, &w).expect("the counterexample checks");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn the_command_brings_siblings_by_default() {
    let dir = common::scratch_dir("siblings-default");
    let stats = dir.join("stats.json");
    let path = data("machine.c");
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_slam-run"))
        .arg(&path)
        .args(["--refine", "wp", "--falsify", "off", "--stats-json"])
        .arg(&stats)
        .output()
        .expect("slam-run runs");
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    let doc: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&stats).expect("stats written"))
            .expect("JSON");
    let sources: Vec<&str> = doc["iterations"]
        .as_array()
        .expect("iterations")
        .iter()
        .flat_map(|it| it["added"].as_array().into_iter().flatten())
        .filter_map(|a| a["source"].as_str())
        .collect();
    assert!(sources.contains(&"siblings"), "{sources:?}");
    let _ = std::fs::remove_dir_all(&dir);
}
