//! The NDF suite: programs on which refinement by new predicates alone stops making a difference —
//! `--constrain off` really ends `UNKNOWN (no difference found)`, checked — and `lazy` proves them
//! (TRUE), through the library. Each has a mutant with a reachable error (one checked edit of its
//! text) that is FALSE, with a counterexample replayed on the concrete interpreter, in every mode
//! (off, lazy, eager).
//!
//! - `fig1.c`: the Constrain paper's Fig. 1 (transitivity), default options; the constraints
//!   exclude the abstract state `x<y ∧ y<z ∧ ¬(x<z)`.
//! - `chain4.c`: transitivity along four variables.
//! - `fig3.c`: the paper's Fig. 3 (a call and its return) at cube length 1: a constraint on the
//!   statement after the call relates the return temporary to the caller's predicates; with
//!   the default options it is TRUE without constrain.
//! - `branch.c`: bounds and their sum at cube length 1.
//! - `step.c`: an increment after a comparison (from `x < y`, `x = x + 1` leads to `x <= y`,
//!   which the Cartesian abstraction loses; newton's predicates make the lost state
//!   expressible, and the constraint is an `enforce`).
//! - `alias.c`: the same increment through a pointer, at cube length 1: a clause on the
//!   assignment relating the state before it (`p == &y`, `x <= y`) to the state after it
//!   (`x < y`), which no `enforce` expresses; and a clause on an `assume` whose condition
//!   (`x == y`) is not a predicate.
//!
//! The runs keep their cube lengths (`--max-cube-len 0`), as in the paper: with the default
//! raise of the cube lengths at NDF, `--constrain off` proves Fig. 1 too (checked).
//!
//! The exact abstraction (`--abstraction exact`, SATABS's) keeps the correlations Cartesian
//! abstraction loses: with `--constrain off` it proves every program of the suite (Fig. 1 also
//! at `--enforce-len 0 --cube-len 1`).

mod common;

use std::path::{Path, PathBuf};

use slam_run::{ConstrainMode, Verdict};

fn data(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/ndf")
        .join(name)
}

/// Runs the loop on C text (written to a temporary file named after `name`).
fn run_text(
    name: &str,
    text: &str,
    cube_len: Option<usize>,
    mode: ConstrainMode,
) -> slam_run::RunResult {
    let opts = c2bp::Options {
        cube_len,
        ..c2bp::Options::default()
    };
    run_with(name, text, opts, mode)
}

/// [`run_text`] with the abstraction's options.
fn run_with(
    name: &str,
    text: &str,
    c2bp: c2bp::Options,
    mode: ConstrainMode,
) -> slam_run::RunResult {
    let cfg = slam_run::Config {
        c2bp,
        constrain: mode,
        max_iterations: 30,
        // The paper's loop: the cube lengths stay as given.
        max_cube_len: 0,
        ..slam_run::Config::default()
    };
    common::run_text(name, text, &cfg)
}

/// One program of the suite: off ends in NDF, lazy proves it; returns lazy's result.
fn ndf_then_true(name: &str, cube_len: Option<usize>) -> slam_run::RunResult {
    let text = std::fs::read_to_string(data(name)).expect("read");
    let off = run_text(name, &text, cube_len, ConstrainMode::Off);
    match &off.verdict {
        Verdict::Unknown(r) if r.is_no_difference() => {}
        v => panic!("{name}: --constrain off should reach NDF, got {}", v.line()),
    }
    let lazy = run_text(name, &text, cube_len, ConstrainMode::Lazy);
    assert!(
        matches!(lazy.verdict, Verdict::True),
        "{name}: --constrain lazy: {}",
        lazy.verdict.line()
    );
    assert!(!lazy.constraints.is_empty(), "{name}: no constraint");
    lazy
}

/// The mutant (`from` replaced by `to`, once) is FALSE with a replayed counterexample in every
/// mode.
fn mutant_is_false(name: &str, cube_len: Option<usize>, from: &str, to: &str) {
    let text = std::fs::read_to_string(data(name)).expect("read");
    assert_eq!(text.matches(from).count(), 1, "{name}: the edit `{from}`");
    let text = text.replace(from, to);
    for mode in [
        ConstrainMode::Off,
        ConstrainMode::Lazy,
        ConstrainMode::Eager,
    ] {
        let r = run_text(&format!("mutant-{name}"), &text, cube_len, mode);
        match &r.verdict {
            Verdict::False(cex) => assert!(!cex.steps.is_empty(), "{name}: empty counterexample"),
            v => panic!("{name} mutant, {mode:?}: expected FALSE, got {}", v.line()),
        }
    }
}

fn lits(c: &constrain::Constraint) -> Vec<(String, bool)> {
    c.pre.iter().chain(&c.post).cloned().collect()
}

#[test]
fn fig1_transitivity() {
    let r = ndf_then_true("fig1.c", Some(3));
    // Some constraint excludes x<y ∧ y<z ∧ ¬(x<z): each of its literals holds there. (newton
    // also learns `y < x`, the projection of `y < z ∧ z <= x` before `z` is read, written
    // `y + -1 * x <= -1`: false there.)
    let holds_there = |(n, v): &(String, bool)| {
        matches!(
            (n.as_str(), *v),
            ("{x < y}", true)
                | ("{y <= x}", false)
                | ("{y + -1 * x <= -1}", false)
                | ("{y < z}", true)
                | ("{z <= y}", false)
                | ("{x < z}", false)
                | ("{z <= x}", true)
        )
    };
    assert!(
        r.constraints
            .iter()
            .any(|c| !lits(c).is_empty() && lits(c).iter().all(holds_there)),
        "no constraint excludes x<y & y<z & !(x<z): {}",
        constrain::constraints_text(&r.constraints)
    );
    mutant_is_false("fig1.c", Some(3), "if (!(x < z))", "if (!(x + 2 < z))");
    // Without constrain, the default raise of the cube lengths proves it: the enforce length
    // 3 excludes the same state.
    let text = std::fs::read_to_string(data("fig1.c")).expect("read");
    let cfg = slam_run::Config {
        constrain: ConstrainMode::Off,
        max_iterations: 30,
        ..slam_run::Config::default()
    };
    let raised = common::run_text("fig1.c", &text, &cfg);
    assert!(
        matches!(raised.verdict, Verdict::True),
        "{}",
        raised.verdict.line()
    );
    assert!(raised.cube_raises().count() > 0);
}

#[test]
fn chain_of_four() {
    ndf_then_true("chain4.c", Some(3));
    mutant_is_false("chain4.c", Some(3), "if (!(x < w))", "if (!(x + 3 < w))");
}

#[test]
fn fig3_call_and_return() {
    let r = ndf_then_true("fig3.c", Some(1));
    assert!(
        r.constraints.iter().any(|c| {
            c.kind == constrain::Kind::Constrain
                && c.proc == "main"
                && lits(c).iter().any(|(n, _)| n.starts_with("{ret "))
                && lits(c).iter().any(|(n, _)| !n.starts_with("{ret "))
        }),
        "no constraint relates the return temporary to main's predicates: {}",
        constrain::constraints_text(&r.constraints)
    );
    let text = std::fs::read_to_string(data("fig3.c")).expect("read");
    let default = run_text("fig3.c", &text, Some(3), ConstrainMode::Lazy);
    assert!(matches!(default.verdict, Verdict::True));
    mutant_is_false("fig3.c", Some(1), "if (!(x < z))", "if (!(x + 2 < z))");
}

#[test]
fn bounds_and_their_sum() {
    ndf_then_true("branch.c", Some(1));
    mutant_is_false("branch.c", Some(1), "if (x + y <= 4)", "if (x + y <= 6)");
}

#[test]
fn increment_after_comparison() {
    ndf_then_true("step.c", Some(3));
    mutant_is_false(
        "step.c",
        Some(3),
        "if (!(x == y) && !(x < y))",
        "if (!(x + 1 == y) && !(x < y))",
    );
}

#[test]
fn increment_through_a_pointer() {
    let r = ndf_then_true("alias.c", Some(1));
    let local = |(n, _): &(String, bool)| !n.starts_with("{ret ") && !n.starts_with("{arg ");
    // A clause on the assignment with literals of both states, none of them a call temporary
    // (constrain files it only when neither state is impossible by itself, else an enforce).
    assert!(
        r.constraints.iter().any(|c| {
            c.kind == constrain::Kind::Constrain
                && c.part.as_deref() == Some("assign")
                && !c.pre.is_empty()
                && !c.post.is_empty()
                && lits(c).iter().all(local)
        }),
        "no clause relates the states before and after an assignment: {}",
        constrain::constraints_text(&r.constraints)
    );
    assert!(
        r.constraints
            .iter()
            .any(|c| c.kind == constrain::Kind::Assume && c.part.as_deref() == Some("cond")),
        "no constraint on an assume: {}",
        constrain::constraints_text(&r.constraints)
    );
    mutant_is_false("alias.c", Some(1), "if (x < y) {", "if (y < x) {");
}

#[test]
fn exact_abstraction_proves_the_suite_without_constrain() {
    let exact = |enforce_len, cube_len| c2bp::Options {
        abstraction: c2bp::Abstraction::Exact,
        enforce_len,
        cube_len,
        ..c2bp::Options::default()
    };
    let runs = [
        ("fig1.c", exact(0, Some(1))),
        ("fig1.c", exact(2, Some(3))),
        ("chain4.c", exact(2, Some(3))),
        ("fig3.c", exact(2, Some(1))),
        ("branch.c", exact(2, Some(1))),
        ("step.c", exact(2, Some(3))),
        ("alias.c", exact(2, Some(1))),
    ];
    for (name, opts) in runs {
        let text = std::fs::read_to_string(data(name)).expect("read");
        let r = run_with(name, &text, opts.clone(), ConstrainMode::Off);
        assert!(
            matches!(r.verdict, Verdict::True),
            "{name} ({}): {}",
            opts.describe(),
            r.verdict.line()
        );
        assert!(
            r.constraints.is_empty(),
            "{name}: constraints with constrain off"
        );
    }
    // And a reachable error stays reachable.
    let text = std::fs::read_to_string(data("fig3.c")).expect("read");
    let text = text.replace("if (!(x < z))", "if (!(x + 2 < z))");
    let r = run_with(
        "mutant-fig3.c",
        &text,
        exact(2, Some(1)),
        ConstrainMode::Off,
    );
    assert!(
        matches!(r.verdict, Verdict::False(_)),
        "fig3 mutant: {}",
        r.verdict.line()
    );
}
