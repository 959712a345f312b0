//! Facts across calls: programs whose error check in a caller needs a fact a callee
//! establishes, through the loop (the library). Newton's predicates in the callee's scope — the
//! return projection of the caller's fact (its globals after the call, given the caller's
//! state at the call), its weakest preconditions inside the callee, and the caller's half —
//! let the abstraction carry the fact back to the caller, so the loop proves the program with
//! new predicates alone (`--constrain off`) at cube lengths 3 and `inf`, and with the default
//! options at every cube length. Each has a mutant with a reachable error (one checked edit of
//! its text) that is FALSE, with a counterexample replayed on the concrete interpreter.
//!
//! - `callee_sets_global.c`: `g == 200` is set two calls down; the caller compares `g`, read
//!   through a pointer, with a local of its own (`y + 1 > *w`).

mod common;

use std::path::Path;

use slam_run::{ConstrainMode, Verdict};

/// The text of the program `name` of `tests/data/calls/`.
fn source(name: &str) -> String {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/calls");
    std::fs::read_to_string(dir.join(name)).expect("read")
}

/// The loop's result on C `text` (a scratch file named `name`) at `cube_len` with `mode`.
fn verdict(name: &str, text: &str, cube_len: Option<usize>, mode: ConstrainMode) -> Verdict {
    let c2bp = c2bp::Options {
        cube_len,
        ..c2bp::Options::default()
    };
    let cfg = slam_run::Config {
        c2bp,
        constrain: mode,
        max_iterations: 30,
        // At the cube length given: the facts come from the predicates, not longer cubes.
        max_cube_len: 0,
        ..slam_run::Config::default()
    };
    common::run_text(name, text, &cfg).verdict
}

/// `name` is TRUE with `--constrain off` at cube lengths 3 and `inf`, and with the default
/// constrain mode at 1, 3 and `inf`.
fn proved(name: &str) {
    let text = source(name);
    let runs = [
        (Some(3), ConstrainMode::Off),
        (None, ConstrainMode::Off),
        (Some(1), ConstrainMode::Lazy),
        (Some(3), ConstrainMode::Lazy),
        (None, ConstrainMode::Lazy),
    ];
    for (cube_len, mode) in runs {
        let v = verdict(name, &text, cube_len, mode);
        assert!(
            matches!(v, Verdict::True),
            "{name}, cube length {cube_len:?}, {mode:?}: {}",
            v.line()
        );
    }
}

/// The mutant (`from` replaced by `to`, once) is FALSE with a replayed counterexample at each
/// cube length.
fn mutant_is_false(name: &str, from: &str, to: &str) {
    let text = source(name);
    assert_eq!(text.matches(from).count(), 1, "{name}: the edit `{from}`");
    let text = text.replace(from, to);
    for cube_len in [Some(1), Some(3), None] {
        match verdict(
            &format!("mutant-{name}"),
            &text,
            cube_len,
            ConstrainMode::Lazy,
        ) {
            Verdict::False(cex) => assert!(!cex.steps.is_empty(), "{name}: empty counterexample"),
            v => panic!(
                "{name} mutant, cube length {cube_len:?}: expected FALSE, got {}",
                v.line()
            ),
        }
    }
}

#[test]
fn a_global_set_two_calls_down_read_through_a_pointer() {
    proved("callee_sets_global.c");
    mutant_is_false(
        "callee_sets_global.c",
        "unsigned char t = 200;",
        "unsigned char t = 0;",
    );
}
