//! Traces are shortest in Bebop's sense: fewest steps at each call level, a call counting as
//! one step of its caller (Ball & Rajamani, Bebop, SPIN 2000 §4). Every trace is also replayed by
//! bebop's self-check and by the reference replayer (see `common`).

mod common;

use bp_grammar::trace::{StepKind, Trace};
use common::*;

/// The steps at `depth`, as `(kind, text)`.
fn level(tr: &Trace, depth: u32) -> Vec<(StepKind, String)> {
    tr.steps
        .iter()
        .filter(|s| s.depth == depth)
        .map(|s| (s.kind, s.text.clone()))
        .collect()
}

fn texts(tr: &Trace, depth: u32) -> Vec<String> {
    level(tr, depth).into_iter().map(|(_, t)| t).collect()
}

#[test]
fn top_level_takes_the_shorter_of_two_paths() {
    // The long path is the `then` arm, the short one the `else` arm.
    let tr = unsafe_(
        "decl g; void main() begin
           if * then g := T; g := F; g := T; g := F; else skip; fi
           assert(F);
         end",
    );
    assert_eq!(
        texts(&tr, 0),
        ["if * then", "skip;", "assert F;"],
        "{}",
        tr.to_json()
    );
    // With a loop: the error needs one round of the loop, not more.
    let tr = unsafe_(
        "decl a, b; void main() begin
           a, b := F, F;
           while !b do
             if * then a := T; else b := T; fi
           od
           assert(!b);
         end",
    );
    assert_eq!(tr.steps.len(), 6, "{}", tr.to_json());
}

#[test]
fn callee_takes_the_shorter_of_two_paths() {
    // Error inside the callee.
    let tr = unsafe_(
        "decl g; void f() begin
           if * then g := T; g := F; g := T; g := F; else skip; fi
           assert(F);
         end
         void main() begin f(); end",
    );
    assert_eq!(texts(&tr, 0), ["f();"]);
    assert_eq!(texts(&tr, 1), ["if * then", "skip;", "assert F;"]);
    // The callee returns the value the error needs: its shortest way to the exit.
    let tr = unsafe_(
        "decl g; bool f() begin
           if * then g := T; g := F; g := T; g := F; return T; else skip; return T; fi
         end
         void main() begin decl a; a := f(); assert(!a); end",
    );
    assert_eq!(texts(&tr, 0), ["a := f();", "assert !a;"]);
    assert_eq!(texts(&tr, 1), ["if * then", "skip;", "return T;"]);
}

#[test]
fn a_call_counts_as_one_step() {
    let tr = unsafe_(
        "decl g; void long() begin
           g := T; g := F; g := T; g := F; g := T; g := F; g := T; g := F;
         end
         void main() begin
           if * then skip; skip; skip; else long(); fi
           assert(F);
         end",
    );
    assert_eq!(
        texts(&tr, 0),
        ["if * then", "long();", "assert F;"],
        "{}",
        tr.to_json()
    );
    assert_eq!(level(&tr, 1).len(), 9, "the body of long and its return");
    assert_eq!(
        level(&tr, 1).last().map(|(k, _)| *k),
        Some(StepKind::Return)
    );
}

#[test]
fn earliest_found_path_is_not_taken_when_longer() {
    // The worklist visits a procedure's nodes in reverse post-order of its CFG, which processes
    // the `else` arm (here the long one) before the `then` arm: the error is first found along
    // the long path. The trace still takes the short one.
    let tr = unsafe_(
        "decl g; void main() begin
           if * then skip; else g := T; g := F; g := T; g := F; fi
           assert(F);
         end",
    );
    assert_eq!(
        texts(&tr, 0),
        ["if * then", "skip;", "assert F;"],
        "{}",
        tr.to_json()
    );
    // The same inside a callee that returns.
    let tr = unsafe_(
        "decl g; bool f() begin
           if * then skip; return T; else g := T; g := F; g := T; g := F; return T; fi
         end
         void main() begin decl a; a := f(); assert(!a); end",
    );
    assert_eq!(
        texts(&tr, 1),
        ["if * then", "skip;", "return T;"],
        "{}",
        tr.to_json()
    );
    // Two errors: the one the worklist meets first is the farther one.
    let tr = unsafe_(
        "decl g; void main() begin
           if * then assert(F); else g := T; g := F; g := T; assert(F); fi
         end",
    );
    assert_eq!(
        texts(&tr, 0),
        ["if * then", "assert F;"],
        "{}",
        tr.to_json()
    );
}

#[test]
fn the_error_in_a_callee_is_entered_by_the_shortest_way() {
    // Two ways to call the failing procedure from main; the trace takes the shorter, and the
    // shorter path to the assert inside it.
    let tr = unsafe_(
        "decl g; void f(x) begin
           if x then skip; skip; skip; assert(F); else assert(F); fi
         end
         void main() begin
           if * then g := T; f(T); else g := F; g := T; g := F; f(F); fi
         end",
    );
    assert_eq!(
        texts(&tr, 0),
        ["if * then", "g := T;", "f(T);"],
        "{}",
        tr.to_json()
    );
    assert_eq!(
        texts(&tr, 1),
        ["if x then", "skip;", "skip;", "skip;", "assert F;"]
    );
}

#[test]
fn recursion_does_not_make_the_expansion_cyclic() {
    // Inside `f`, the call `f()` returning `g = T` is one step, so the shortest way to the exit
    // of `f` with `g = T` would call `f` itself in the same context, for the same exit state:
    // the expansion only uses summary parts found before the one it expands, and ends.
    let tr = unsafe_(
        "decl g; void f() begin
           if * then g := T; skip; skip; skip; return; fi
           f();
         end
         void main() begin g := F; f(); assert(!g); end",
    );
    assert!(tr.steps.len() < 40, "{}", tr.to_json());
    // The error inside `f` would be one step closer through the recursive call in the same
    // context: a failing call is entered only in a context that fails with fewer nested calls.
    let tr = unsafe_(
        "void f() begin
           if * then f(); else skip; skip; fi
           assert(F);
         end
         void main() begin f(); end",
    );
    assert_eq!(texts(&tr, 0), ["f();"]);
    assert_eq!(texts(&tr, 1), ["if * then", "skip;", "skip;", "assert F;"]);
}

/// `ifs` statements `if * then … else … fi` over `x` and `y` whose arms have different
/// lengths (about `4 * ifs` statements), each line indented by two spaces.
fn ifs_body(ifs: usize) -> String {
    let mut s = String::new();
    for i in 0..ifs {
        if i % 2 == 0 {
            s.push_str("  if * then x := !x; skip; else y := !y; fi\n");
        } else {
            s.push_str("  if * then skip; else y := !y; x := !x; skip; fi\n");
        }
    }
    s
}

/// A long straight-line program of [`ifs_body`], ending in a failing assert.
fn long_straight(ifs: usize) -> String {
    format!(
        "decl x, y;\nvoid main() begin\n  x, y := F, F;\n{}  assert(x & !x);\nend\n",
        ifs_body(ifs)
    )
}

#[test]
fn past_the_search_budget_the_trace_is_real_but_not_shortest() {
    let src = long_straight(750);
    let prog = parse(&src);
    let opts = bebop::Options {
        self_check: true,
        program_name: "test.bp".into(),
        source: Some(src.clone()),
        trace_budget: bebop::TraceBudget::Fixed(1_000),
        ..bebop::Options::default()
    };
    let out = bebop::verify(&prog, &opts).expect("bebop runs");
    assert!(!out.stats.trace_shortest);
    let tr = out.verdict.trace().expect("unsafe");
    // bebop's own replay, the reference replayer, the JSON round trip.
    validate(&prog, &opts, tr, &src);
    assert_eq!(last(tr).kind, StepKind::Error);
    assert!(tr.steps.len() > 750 * 2, "{}", tr.steps.len());
    // The same program, small enough for the default budget: shortest.
    let tr = unsafe_(&long_straight(20));
    assert_eq!(last(&tr).kind, StepKind::Error);
}

#[test]
fn the_scaled_budgets_floor_decides_between_search_and_walk() {
    // The error needs a second pass through a loop whose body is a stretch of `if`s: the
    // CFG distance to the error says one pass, so the search expands every layer of the
    // first pass (a node in as many layers as there are path lengths to it), many times the
    // engine's work. Under the default floor the trace is still shortest; with no floor the
    // search gives up at twice the engine's work and the walk over the stamps gives a real
    // trace.
    let body = ifs_body(50);
    let src = format!(
        "decl x, y, z;\nvoid main() begin\n  x, y, z := F, F, F;\n  while * do\n{body}  if z then assert(F); fi\n  z := T;\n  od\nend\n"
    );
    let prog = parse(&src);
    let run = |budget: bebop::TraceBudget| {
        let opts = bebop::Options {
            self_check: true,
            program_name: "test.bp".into(),
            source: Some(src.clone()),
            trace_budget: budget,
            ..bebop::Options::default()
        };
        let out = bebop::verify(&prog, &opts).expect("bebop runs");
        let tr = out.verdict.trace().expect("unsafe").clone();
        validate(&prog, &opts, &tr, &src);
        out.stats.trace_shortest
    };
    assert!(run(bebop::TraceBudget::default()));
    assert!(!run(bebop::TraceBudget::Scaled { floor: 0 }));
}

#[test]
fn the_search_leaves_out_what_cannot_be_on_a_shortest_path() {
    // A side region whose arms of different lengths spread every layer over many nodes, and
    // which ends in `assume(F)`, before a straight line of 200 steps to the error. A
    // breadth-first search expands the side region at each of the 200 layers; the distance
    // to the error keeps the search out of it, so a budget far below that suffices.
    let side = ifs_body(40);
    let line = "  x := !x;\n".repeat(200);
    let src = format!(
        "decl x, y;\nvoid main() begin\n  x, y := F, F;\n  if * then\n{side}  assume(F);\n  fi\n{line}  assert(F);\nend\n"
    );
    let prog = parse(&src);
    let run = |budget: u64| {
        let opts = bebop::Options {
            self_check: true,
            program_name: "test.bp".into(),
            source: Some(src.clone()),
            trace_budget: bebop::TraceBudget::Fixed(budget),
            ..bebop::Options::default()
        };
        let out = bebop::verify(&prog, &opts).expect("bebop runs");
        let tr = out.verdict.trace().expect("unsafe").clone();
        validate(&prog, &opts, &tr, &src);
        (out.stats.trace_shortest, tr)
    };
    let (shortest, tr) = run(10_000);
    assert!(shortest);
    // The assignment, the `if` not taken, the line and the error.
    assert_eq!(texts(&tr, 0).len(), 1 + 1 + 200 + 1);
}

#[test]
fn the_stamp_walk_expands_calls() {
    // With no budget at all, every trace comes from the walk over the engine's stamps: calls
    // that return, errors inside callees, recursion.
    for src in [
        "decl g; bool f() begin
           if * then g := T; g := F; g := T; g := F; return T; else skip; return T; fi
         end
         void main() begin decl a; a := f(); assert(!a); end",
        "decl g; void f() begin
           if * then g := T; g := F; else skip; fi
           assert(F);
         end
         void main() begin f(); end",
        "decl g; void r(x) begin
           if x then g := !g; r(F); else assert(!g); fi
         end
         void main() begin g := F; r(T); end",
    ] {
        let prog = parse(src);
        let opts = bebop::Options {
            self_check: true,
            source: Some(src.to_string()),
            trace_budget: bebop::TraceBudget::Fixed(0),
            ..bebop::Options::default()
        };
        let out = bebop::verify(&prog, &opts).expect("bebop runs");
        assert!(!out.stats.trace_shortest);
        let tr = out.verdict.trace().expect("unsafe");
        validate(&prog, &opts, tr, src);
    }
}
