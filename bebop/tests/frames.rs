//! The shapes of c2bp's state machines that made bebop exponential: the predicates over a
//! formal's state field are a procedure's parameters, those over a local copy of the state
//! are its locals, and statements copy one group to the other or test them pairwise, with an
//! `enforce` that allows at most one state at a time. These check the variable layout and the
//! sizes of the transfer relations (BDD nodes, which do not depend on the machine), and the
//! verdicts; the time is measured by `make bench` and slam-bench, never here.

mod common;

use bebop::Property;
use bebop::lower::{EdgeKind, lower};
use bebop::vars::{Slot, Ver};
use common::parse;
use std::fmt::Write as _;

/// States per group (the layout and size tests).
const N: usize = 16;
/// States per group where the reference interpreter checks the verdict (it enumerates states).
const SMALL: usize = 5;

/// `!(v_i & v_j)` for every pair: at most one of the `v`s holds.
fn at_most_one(n: usize, v: &str) -> String {
    let mut parts = Vec::new();
    for i in 0..n {
        for j in i + 1..n {
            parts.push(format!("!({v}{i} & {v}{j})"));
        }
    }
    parts.join(" & ")
}

fn list(n: usize, v: &str) -> String {
    (0..n)
        .map(|i| format!("{v}{i}"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// `machine(s0..)` copies its state parameters `s` to the locals `t`, sets `same` when some
/// state is in both groups (the pairwise test), moves the state one step in the locals
/// (`t_i := t_{i-1}`), copies it back and returns it. `main` starts it in state 0 and asserts state 1 afterwards (safe), or
/// state 0 (unsafe).
fn machine(n: usize, unsafe_: bool) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "void main() begin");
    let _ = writeln!(s, "  decl {}, {}, ok;", list(n, "a"), list(n, "r"));
    let init: Vec<&str> = (0..n).map(|i| if i == 0 { "T" } else { "F" }).collect();
    let _ = writeln!(s, "  {} := {};", list(n, "a"), init.join(", "));
    let _ = writeln!(s, "  {}, ok := machine({});", list(n, "r"), list(n, "a"));
    let want = if unsafe_ { "r0" } else { "r1" };
    let _ = writeln!(s, "  assert({want} & ok);");
    let _ = writeln!(s, "end");
    let _ = writeln!(s, "bool<{}> machine({}) begin", n + 1, list(n, "s"));
    let _ = writeln!(s, "  decl {}, same;", list(n, "t"));
    let _ = writeln!(
        s,
        "  enforce {} & {};",
        at_most_one(n, "s"),
        at_most_one(n, "t")
    );
    let _ = writeln!(s, "  {} := {};", list(n, "t"), list(n, "s"));
    let pairs: Vec<String> = (0..n).map(|i| format!("(s{i} & t{i})")).collect();
    let _ = writeln!(s, "  same := schoose[{}, F];", pairs.join(" | "));
    let shifted: Vec<String> = (0..n).map(|i| format!("t{}", (i + n - 1) % n)).collect();
    let _ = writeln!(s, "  {} := {};", list(n, "t"), shifted.join(", "));
    let _ = writeln!(s, "  {} := {};", list(n, "s"), list(n, "t"));
    let _ = writeln!(s, "  return {}, same;", list(n, "s"));
    let _ = writeln!(s, "end");
    s
}

/// A procedure without parameters whose two groups of locals the `enforce` keeps apart in
/// the static order (its pairwise constraints outweigh the one test that relates them).
fn locals_only() -> String {
    let mut s = String::new();
    let _ = writeln!(s, "void main() begin");
    let _ = writeln!(s, "  decl {}, {}, same;", list(N, "x"), list(N, "y"));
    let _ = writeln!(
        s,
        "  enforce {} & {};",
        at_most_one(N, "x"),
        at_most_one(N, "y")
    );
    let pairs: Vec<String> = (0..N).map(|i| format!("(x{i} & y{i})")).collect();
    let _ = writeln!(s, "  same := schoose[{}, F];", pairs.join(" | "));
    let _ = writeln!(s, "  assert(!same | (x0 | !x0));");
    let _ = writeln!(s, "end");
    s
}

/// The largest transfer relation of the program (BDD nodes, all clusters).
fn largest_relation(src: &str) -> usize {
    let prog = parse(src);
    let m = lower(&prog, &Property::AssertsAndSlicError, Some(src)).expect("lowers");
    m.edges
        .iter()
        .map(|e| match &e.kind {
            EdgeKind::Transfer(t) => t.rel.size(),
            EdgeKind::Call(c) => c.arg_rel.size(),
            EdgeKind::Return(r) => r.as_ref().map_or(0, |b| b.size()),
        })
        .max()
        .unwrap_or(0)
}

#[test]
fn each_local_copied_from_a_parameter_sits_next_to_it() {
    let src = machine(N, false);
    let prog = parse(&src);
    let m = lower(&prog, &Property::AssertsAndSlicError, Some(&src)).expect("lowers");
    let p = m
        .procs
        .iter()
        .find(|p| p.name == "machine")
        .expect("machine");
    let at = |name: &str| {
        let slot = Slot::Frame(p.frame_index[name]);
        m.vars.var(slot, Ver::Cur).to_index() as i64
    };
    for i in 0..N {
        let (s, t) = (at(&format!("s{i}")), at(&format!("t{i}")));
        // Adjacent slots (three versions each), a return slot between them at most.
        assert!((s - t).abs() <= 6, "s{i} at {s}, t{i} at {t}");
    }
    // main passes its `a`s directly: each sits in the slot of the parameter it binds.
    let main = m.proc(m.main);
    for i in 0..N {
        assert_eq!(main.frame_index[&format!("a{i}")], i as u32, "a{i}");
    }
}

#[test]
fn copies_and_pairwise_tests_between_parameters_and_locals_stay_small() {
    // With the parameters before the locals, the pairwise test alone takes 2^16 nodes.
    let largest = largest_relation(&machine(N, false));
    assert!(largest <= 40 * N, "largest relation: {largest} nodes");
}

#[test]
fn a_test_over_two_groups_apart_in_the_order_is_built_within_the_enforce() {
    // FORCE keeps the groups apart here (each is tied together by its enforce pairs), so
    // the pairwise test is exponential unless built on the states the enforce allows.
    let largest = largest_relation(&locals_only());
    assert!(largest <= 40 * N, "largest relation: {largest} nodes");
}

#[test]
fn the_state_machine_keeps_its_verdicts() {
    let run = |src: &str| common::run_prop(src, Property::AssertsAndSlicError);
    assert!(
        run(&machine(SMALL, false)).verdict.is_safe(),
        "the safe machine"
    );
    assert!(
        !run(&machine(SMALL, true)).verdict.is_safe(),
        "the unsafe machine"
    );
    // At full size bebop alone (its own replay of the trace checks it).
    let opts = bebop::Options {
        self_check: true,
        ..bebop::Options::default()
    };
    let big = |u| bebop::verify(&parse(&machine(N, u)), &opts).expect("bebop runs");
    assert!(big(false).verdict.is_safe(), "the safe machine, {N} states");
    assert!(
        !big(true).verdict.is_safe(),
        "the unsafe machine, {N} states"
    );
}
