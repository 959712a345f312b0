//! Precision on demand (`--precision`): programs whose error path goes through an operation
//! integer mode leaves uninterpreted within range, so that the solver's integer model of the
//! path does not replay on the program. Each is `UNKNOWN` (newton: the replay does not follow
//! the path) with `--precision int`, decided (TRUE) with `auto` — which re-checks that path
//! bit-precisely and continues bit-precisely, as the statistics record — and with `bv`. Each
//! has a mutant with a reachable error (one checked edit of its text) that is FALSE in `auto`
//! with a counterexample replayed on the concrete interpreter.
//!
//! - `xor.c`: XOR and OR with a variable operand (`(x ^ y) + 5` with `y == x`, `4 | x`).
//! - `wrap.c`: the wrap-around of an unsigned counter (`c + 1 < c`) and a bit set in it.
//! - `mix.c`: a negative `int` converted to `unsigned int`, with a bit OR-ed in.
//!
//! `powers.c` is the other reason to switch: its paths replay in integer mode and newton
//! refutes them, but the predicates it finds (`y * 2 * 2 % 3 == 0` over an unsigned `y`:
//! nested wrap-arounds) raise queries integer mode cannot decide, so the abstraction never
//! gets precise enough; `auto` switches when the bit-precise check refutes the path with
//! predicates it decides.

mod common;

use std::path::{Path, PathBuf};

use slam_run::{Precision, UnknownReason, Verdict};

fn data(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/precision")
        .join(name)
}

/// Runs the loop on C text (written to a scratch file named `name`) at `precision`.
fn run_text(name: &str, text: &str, precision: Precision) -> slam_run::RunResult {
    let cfg = slam_run::Config {
        precision,
        max_iterations: 30,
        ..slam_run::Config::default()
    };
    common::run_text(name, text, &cfg)
}

/// `name` is UNKNOWN because of the integer encoding in `int`, TRUE in `auto` (switching to
/// bit-precise reasoning at the first iteration, for that reason) and in `bv`.
fn undecided_in_int_decided_in_auto(name: &str) {
    let text = std::fs::read_to_string(data(name)).expect("read");
    let int = run_text(name, &text, Precision::Int);
    match &int.verdict {
        Verdict::Unknown(UnknownReason::Newton(r))
            if r.starts_with("the concrete replay does not follow the path") => {}
        v => panic!("{name}, int: expected UNKNOWN (replay), got {}", v.line()),
    }
    assert!(int.precision_change().is_none(), "{name}: int switched");
    assert!(int.iterations.iter().all(|i| !i.bitvector));

    let auto = run_text(name, &text, Precision::Auto);
    assert!(
        matches!(auto.verdict, Verdict::True),
        "{name}, auto: {}",
        auto.verdict.line()
    );
    let (at, why) = auto.precision_change().expect("auto switched");
    assert!(
        why.starts_with("the concrete replay does not follow the path"),
        "{name}: {why}"
    );
    // Integer rounds up to the one whose path made the switch, bit-precise ones after it.
    for i in &auto.iterations {
        assert_eq!(i.bitvector, i.index > at, "{name}: round {}", i.index);
    }
    assert!(auto.summary().contains(&format!(" precision=int→bv@{at}")));
    let json: serde_json::Value = serde_json::from_str(&auto.stats_json(name)).expect("json");
    assert_eq!(json["precision"]["start"], "int");
    assert_eq!(json["precision"]["end"], "bv");
    assert_eq!(json["precision"]["changed_at"], at);
    assert_eq!(json["precision"]["reason"], why);

    let bv = run_text(name, &text, Precision::Bv);
    assert!(
        matches!(bv.verdict, Verdict::True),
        "{name}, bv: {}",
        bv.verdict.line()
    );
    assert!(bv.precision_change().is_none() && bv.iterations.iter().all(|i| i.bitvector));
}

/// The mutant (`from` replaced by `to`, once) is FALSE in `auto`, with a counterexample
/// replayed on the concrete program.
fn mutant_is_false(name: &str, from: &str, to: &str) {
    let text = std::fs::read_to_string(data(name)).expect("read");
    assert_eq!(text.matches(from).count(), 1, "{name}: the edit `{from}`");
    let text = text.replace(from, to);
    let r = run_text(&format!("mutant-{name}"), &text, Precision::Auto);
    match &r.verdict {
        Verdict::False(cex) => assert!(!cex.steps.is_empty(), "{name}: empty counterexample"),
        v => panic!("{name} mutant: expected FALSE, got {}", v.line()),
    }
}

#[test]
fn xor_and_or_with_a_variable() {
    undecided_in_int_decided_in_auto("xor.c");
    mutant_is_false("xor.c", "(4 | x) < 4", "(4 | x) < 5");
}

#[test]
fn wrap_around_of_an_unsigned_counter() {
    undecided_in_int_decided_in_auto("wrap.c");
    mutant_is_false("wrap.c", "(c | k) != c", "(c ^ k) != c");
}

#[test]
fn signed_unsigned_mix() {
    undecided_in_int_decided_in_auto("mix.c");
    mutant_is_false("mix.c", "v = u | k", "v = u & k");
}

/// `powers.c` (module doc) is TRUE in `auto`, which switches for the undecided queries (in
/// integer mode c2bp spends about a minute on them and the run does not end); `y % 4`
/// instead of `y % 3` is FALSE. With the `wp` refiner: the Horn refiner's Spacer spends
/// seconds on the wrap-arounds and helps no more here.
#[test]
fn predicates_integer_mode_cannot_decide() {
    let text = std::fs::read_to_string(data("powers.c")).expect("read");
    let cfg = |precision| slam_run::Config {
        precision,
        refine: newton::RefineMode::Wp,
        max_iterations: 30,
        ..slam_run::Config::default()
    };
    let auto = common::run_text("powers.c", &text, &cfg(Precision::Auto));
    assert!(
        matches!(auto.verdict, Verdict::True),
        "auto: {}",
        auto.verdict.line()
    );
    let (at, why) = auto.precision_change().expect("auto switched");
    assert!(why.ends_with("undecided in integer mode"), "{why}");
    for i in &auto.iterations {
        assert_eq!(i.bitvector, i.index > at, "round {}", i.index);
    }

    let mutant = text.replace("y % 3 == 0", "y % 4 == 0");
    let r = common::run_text("mutant-powers.c", &mutant, &cfg(Precision::Auto));
    match &r.verdict {
        Verdict::False(cex) => assert!(!cex.steps.is_empty(), "empty counterexample"),
        v => panic!("mutant: expected FALSE, got {}", v.line()),
    }
}

/// `--bitvector` is `--precision bv`: with `--precision int` it is a usage error.
#[test]
fn bitvector_contradicts_precision_int() {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_slam-run"))
        .arg(data("xor.c"))
        .args(["--bitvector", "--precision", "int"])
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(1), "a usage error");
    assert!(String::from_utf8_lossy(&out.stderr).contains("--precision int"));
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_slam-run"))
        .arg(data("xor.c"))
        .args(["--bitvector", "--precision", "bv"])
        .output()
        .expect("runs");
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(String::from_utf8_lossy(&out.stdout).starts_with("TRUE\n"));
}
