//! Semantic unit tests: one small program per construct of `docs/bp-semantics.md`, with the
//! expected verdict and, for failures, properties of the trace (which is also replayed by
//! bebop's self-check and by the reference replayer, see `common`).

mod common;

use bebop::Property;
use bp_grammar::trace::{StepKind, Target};
use common::*;

// ---- initial values, nondeterminism ----

#[test]
fn globals_and_locals_start_arbitrary() {
    unsafe_("decl g; void main() begin assert(g); end");
    unsafe_("decl g; void main() begin assert(!g); end");
    unsafe_("void main() begin decl a; assert(!a); end");
    unsafe_("void main(p) begin assert(p); end");
    // Locals are fresh at each call.
    unsafe_(
        "void f(a) begin decl l; if a then assert(l); else l := T; fi end
         void main() begin f(F); f(T); end",
    );
}

#[test]
fn free_values_are_false_in_traces() {
    let tr = unsafe_("decl g, h; void main() begin assert(F); end");
    let first = &tr.steps[0];
    assert_eq!(first.before.get("g"), Some(&false));
    assert_eq!(first.before.get("h"), Some(&false));
}

#[test]
fn each_star_is_fresh() {
    // Two occurrences can differ...
    unsafe_("decl a; void main() begin a := (* = *); assert(a); end");
    // ...and one occurrence is one value.
    safe("decl a, b; void main() begin a := *; b := a; assert(a = b); end");
    safe("decl a, b; void main() begin a, b := *, *; assume(a = b); assert(!(a ^ b)); end");
    // A star in an argument is evaluated once, in the caller.
    safe(
        "bool id(x) begin return x; end
         void main() begin decl a, b; a := id(*); b := id(a); assert(a = b); end",
    );
    unsafe_("bool id(x) begin return x; end void main() begin decl a; a := id(*); assert(a); end");
    unsafe_("bool id(x) begin return x; end void main() begin decl a; a := id(*); assert(!a); end");
}

// ---- schoose ----

#[test]
fn schoose_cases() {
    // schoose[T, x] = T
    safe("decl a, x; void main() begin x := *; a := schoose[T, x]; assert(a); end");
    // schoose[x, T] = x
    safe("decl a, x; void main() begin x := *; a := schoose[x, T]; assert(a = x); end");
    // schoose[a, !a] = a
    safe("decl a, x; void main() begin x := *; a := schoose[x, !x]; assert(a = x); end");
    // schoose[F, F] = *
    unsafe_("decl a; void main() begin a := schoose[F, F]; assert(a); end");
    unsafe_("decl a; void main() begin a := schoose[F, F]; assert(!a); end");
    // schoose[p, n] with both false is free; with n true and p false it is F.
    safe("decl a; void main() begin a := schoose[F, T]; assert(!a); end");
}

// ---- constrain ----

#[test]
fn constrain_restricts_the_post_state() {
    safe("decl g0; void main() begin g0 := schoose[F, F] constrain 'g0; assert(g0); end");
    safe(
        "decl g0, g1; void main() begin
           g0, g1 := *, * constrain ('g0 & 'g1) | (!'g0 & !'g1); assert(g0 = g1); end",
    );
    // No post-state satisfies the clause: the path is blocked.
    safe("decl a; void main() begin a := T constrain F; assert(F); end");
    safe("decl a; void main() begin a := T constrain !'a; assert(F); end");
    // Unprimed variables are the pre-state.
    safe("decl a; void main() begin a := F; a := * constrain a = !'a; assert(a); end");
}

#[test]
fn constrain_unassigned_prime_keeps_its_value() {
    // 'b with b unassigned is b's (old = new) value.
    safe("decl a, b; void main() begin b := T; a := * constrain 'a = !'b; assert(!a); end");
    safe("decl a, b; void main() begin b := *; a := * constrain 'a = 'b; assert(a = b); end");
    unsafe_("decl a, b; void main() begin b := *; a := * constrain 'a = 'b; assert(a); end");
    // Constrain4 of the Boppo suite: the unassigned 'b2 equals b2.
    safe(
        "decl b0, b1, b2, b3, b4, b5;
         void main() begin
           L1: b0,b1,b3,b4,b5 := *,*,*,*,*;
           L7: b0,b1,b3,b4,b5 := 1,*,*,*,* constrain (!'b0 | !'b2 | 'b5);
           L13: assert(!b0 | !b2 | b5);
         end",
    );
}

// ---- enforce ----

#[test]
fn enforce_is_assumed_after_every_step() {
    safe(
        "decl a, b;
         void f() begin enforce a & !b; assert(a & !b); a, b := *, *; assert(a & !b); end
         void main() begin a, b := *, *; f(); end",
    );
    safe("decl g; void main() begin enforce !g; g := *; assert(!g); end");
    // dead is a step too.
    safe("decl g; void main() begin enforce g; dead g; assert(g); end");
}

#[test]
fn enforce_blocks_entry_and_return() {
    // The callee cannot be entered in a state violating its enforce.
    safe(
        "decl a; void f() begin enforce a; skip; end
         void main() begin a := F; f(); assert(F); end",
    );
    unsafe_(
        "decl a; void f() begin enforce a; skip; end
         void main() begin a := *; f(); assert(a); assert(F); end",
    );
    // The caller's enforce holds again after the call returns.
    safe(
        "decl g; void f() begin g := T; end
         void main() begin enforce !g; f(); assert(F); end",
    );
    // Locals of the callee are chosen to satisfy its enforce.
    safe(
        "void f() begin decl l; enforce l; assert(l); end
         void main() begin f(); end",
    );
}

// ---- assignments, calls, returns ----

#[test]
fn parallel_assignment_reads_the_pre_state() {
    safe("decl a, b; void main() begin a, b := T, F; a, b := b, a; assert(!a & b); end");
}

#[test]
fn calls_by_value_and_scopes() {
    // The caller's locals are untouched; globals are as the callee left them.
    safe(
        "decl g;
         void f() begin decl l; l := F; g := T; end
         void main() begin decl l; l := T; g := F; f(); assert(l & g); end",
    );
    // Parameters are copies.
    safe(
        "void f(a) begin a := !a; end
         void main() begin decl x; x := T; f(x); assert(x); end",
    );
    // A global target is assigned after the callee's globals are taken.
    safe(
        "decl g; bool f() begin g := F; return !g; end
         void main() begin g := f(); assert(g); end",
    );
}

#[test]
fn multiple_return_values() {
    safe(
        "bool<3> f() begin return T, F, T; end
         void main() begin decl a, b, c; a, b, c := f(); assert(a & !b & c); end",
    );
    safe(
        "bool<3> f() begin return T, F, T; end
         void main() begin decl a, c; a, _, c := f(); assert(a & c); end",
    );
    safe(
        "decl g;
         bool<2> f(a, b) begin a, b := !a, !b; return a, b; end
         void main() begin decl ma, mb; g := *; _, _ := f(g, g); ma, mb := f(g, g);
           assert(ma = !g); assert(mb = !g); end",
    );
    // A call statement may ignore the results.
    safe("bool f() begin return T; end void main() begin f(); end");
}

#[test]
fn falling_off_end_returns_arbitrary_values() {
    let tr = unsafe_("bool f() begin skip; end void main() begin decl a; a := f(); assert(a); end");
    let ret = steps_of(&tr, StepKind::Return);
    assert_eq!(ret.len(), 1);
    assert_eq!(ret[0].stmt, None, "the implicit return at `end`");
    assert_eq!(ret[0].text, "end");
    assert_eq!(ret[0].line, 1);
    unsafe_("bool f() begin skip; end void main() begin decl a; a := f(); assert(!a); end");
    // A `return` with values gives exactly those.
    safe(
        "bool f(x) begin if x then return T; fi end
         void main() begin decl a; a := f(T); assert(a); end",
    );
}

#[test]
fn return_in_main_ends_the_run() {
    safe("void main() begin return; assert(F); end");
    safe(
        "decl g; bool<2> f() begin return g, !g; end
         bool<2> main() begin decl l1, l2; g := *; l1, l2 := f(); return l1, l2; assert(0); end",
    );
    safe("void main() begin skip; end");
}

#[test]
fn empty_procedures() {
    safe("void f() begin end void main() begin f(); f(); end");
    let tr = unsafe_("decl g; void f() begin end void main() begin g := F; f(); assert(g); end");
    assert_eq!(steps_of(&tr, StepKind::Call).len(), 1);
}

// ---- recursion ----

/// A 2-bit counter incremented at each level; the error needs the recursion depth 4
/// (00 → 01 → 10 → 11, three recursive calls).
const RECURSIVE_COUNTER: &str = "
decl g0, g1;
void r() begin
  if g0 & g1 then SLIC_ERROR: skip; fi
  if !g0 then g0 := T; r();
  elsif !g1 then g0, g1 := F, T; r();
  fi
end
void main() begin g0, g1 := F, F; r(); end";

#[test]
fn recursion_error_needs_depth_3() {
    let tr = unsafe_(RECURSIVE_COUNTER);
    assert!(
        matches!(&tr.target, Target::Label { label, proc, .. } if label == "SLIC_ERROR" && proc == "r")
    );
    assert_eq!(steps_of(&tr, StepKind::Call).len(), 4);
    assert_eq!(last(&tr).depth, 4);
    assert_eq!(last(&tr).before.get("g0"), Some(&true));
    assert_eq!(last(&tr).before.get("g1"), Some(&true));
}

#[test]
fn recursion_with_returns() {
    let src = "
decl g0, g1;
bool deep() begin
  decl r;
  if g0 & g1 then return T; fi
  g0, g1 := !g0, g1 ^ g0;
  r := deep();
  return r;
end
void main() begin decl x; g0, g1 := F, F; x := deep(); assert(!x); end";
    let tr = unsafe_(src);
    assert_eq!(steps_of(&tr, StepKind::Call).len(), 4);
    assert_eq!(steps_of(&tr, StepKind::Return).len(), 4);
    assert_eq!(tr.steps.iter().map(|s| s.depth).max(), Some(4));
    assert_eq!(last(&tr).depth, 0);
    // The same program cannot return F.
    safe(&src.replace("assert(!x)", "assert(x)"));
}

#[test]
fn mutual_recursion_and_unbounded_depth() {
    // even/odd parity of a down-counter: terminates through summaries, no bound on depth.
    safe(
        "decl a, b;
         bool even() begin decl r; if !a & !b then return T; fi
           if a then a := F; else a, b := T, F; fi r := odd(); return r; end
         bool odd() begin decl r; if !a & !b then return F; fi
           if a then a := F; else a, b := T, F; fi r := even(); return r; end
         void main() begin decl x; a, b := F, T; x := even(); assert(x); end",
    );
    // Infinite recursion without an error is safe.
    safe("void f() begin f(); end void main() begin f(); assert(F); end");
}

// ---- control ----

#[test]
fn goto_with_several_targets() {
    let tr = unsafe_(
        "decl g; void main() begin
           g := F; goto A, B;
           A: skip; goto E;
           B: g := T;
           E: assert(!g);
         end",
    );
    let goto = tr
        .steps
        .iter()
        .find(|s| s.text.starts_with("goto A"))
        .expect("the goto is in the trace");
    assert_eq!(
        goto.taken,
        Some(1),
        "only the second target leads to the error"
    );
    // History1 of the Boppo suite.
    unsafe_(
        "decl g1; void main() begin g1:=*; assume(g1); goto L5, L8;
         L8: g1:=* & g1; L5: assert(g1); end",
    );
}

#[test]
fn if_elsif_else_and_while() {
    for (arm, taken) in [("A", 0u32), ("B", 1), ("C", 2)] {
        let src = "void main() begin
               if * then A: skip; elsif * then B: skip; else C: skip; fi
             end";
        let o = run_prop(src, Property::Label(arm.into()));
        let tr = o.verdict.trace().expect("reachable");
        assert_eq!(tr.steps[0].taken, Some(taken));
    }
    // elsif conditions are evaluated in order.
    safe(
        "decl a; void main() begin a := T;
           if a then skip; elsif a then assert(F); fi end",
    );
    safe("decl i; void main() begin i := F; while !i do i := T; od assert(i); end");
    let tr = unsafe_("decl i; void main() begin i := F; while * do i := !i; od assert(!i); end");
    let loops: Vec<_> = tr
        .steps
        .iter()
        .filter(|s| s.text.starts_with("while"))
        .collect();
    assert_eq!(
        loops.iter().map(|s| s.taken).collect::<Vec<_>>(),
        [Some(1), Some(0)]
    );
    // A loop without exit.
    safe("void main() begin while T do skip; od assert(F); end");
}

#[test]
fn dead_is_a_havoc() {
    unsafe_("decl g; void main() begin g := T; dead g; assert(g); end");
    safe("decl g, h; void main() begin g, h := T, T; dead g; assert(h); end");
}

#[test]
fn assume_and_unreachable_code() {
    safe("decl g; void main() begin g := *; assume(g); assert(g); end");
    safe("void main() begin assume(F); assert(F); end");
    safe("void f() begin assert(F); end void main() begin skip; end");
}

// ---- the property ----

#[test]
fn assert_continues_only_where_true() {
    // The second assert could only fail where the first failed.
    let tr = unsafe_("decl g; void main() begin g := *; assert(g); assert(g); end");
    assert!(matches!(tr.target, Target::Assert { stmt, .. } if stmt.0 == 1));
    // Under --label, asserts act as assumes.
    let o = run_prop(
        "decl g; void main() begin g := *; assert(g); if !g then L: skip; fi end",
        Property::Label("L".into()),
    );
    assert!(o.verdict.is_safe());
    // And with invariants: after `assert(g)` only g = T is reachable.
    let prog = parse("decl g; void main() begin g := *; assert(g); skip; end");
    let out = bebop::verify(
        &prog,
        &bebop::Options {
            invariants: true,
            ..Default::default()
        },
    )
    .expect("runs");
    let invs = out.invariants.expect("asked for");
    assert_eq!(invs[2].formula, "g");
}

#[test]
fn slic_error_label_and_label_property() {
    let tr = unsafe_("decl g; void main() begin g := *; if g then SLIC_ERROR: skip; fi end");
    assert!(matches!(&tr.target, Target::Label { label, .. } if label == "SLIC_ERROR"));
    assert_eq!(last(&tr).kind, StepKind::Error);
    assert_eq!(last(&tr).before.get("g"), Some(&true));
    // Reachability1 of the Boppo suite, with its label.
    let o = run_prop(
        "decl g0; void main() begin g0:=*; if g0 then MY_ERROR_LABEL: skip; fi; end",
        Property::Label("MY_ERROR_LABEL".into()),
    );
    assert!(!o.verdict.is_safe());
    // Under --label, SLIC_ERROR and asserts are not errors.
    let o = run_prop(
        "void main() begin assert(F); SLIC_ERROR: skip; end",
        Property::Label("NOWHERE".into()),
    );
    assert!(o.verdict.is_safe());
    // A failing assert blocks: the label after it is reached only where it held.
    let o = run_prop(
        "void main() begin assert(F); L: skip; end",
        Property::Label("L".into()),
    );
    assert!(o.verdict.is_safe());
    // Labels in callees, with the label in several procedures.
    let o = run_prop(
        "decl g; void f() begin if g then L: skip; fi end
         void h() begin L: skip; end
         void main() begin g := F; f(); end",
        Property::Label("L".into()),
    );
    assert!(o.verdict.is_safe());
}

// ---- traces ----

#[test]
fn taken1_trace_passes_l1_with_g1_true() {
    let tr = unsafe_(
        "decl g1;
void main() begin
L0:  g1:=*;
L1:  if g1 then goto l; fi;
L2:  goto endl;
L3:  l: assert(0);
L4:  endl: skip;
end",
    );
    let l1 = tr
        .steps
        .iter()
        .find(|s| s.labels.contains(&"L1".to_string()))
        .expect("the trace passes L1");
    assert_eq!(l1.before.get("g1"), Some(&true));
    assert_eq!(l1.taken, Some(0));
    assert_eq!((l1.line, l1.col), (4, 1));
    let kinds: Vec<_> = tr.steps.iter().map(|s| s.kind).collect();
    assert_eq!(
        kinds,
        [
            StepKind::Stmt,
            StepKind::Stmt,
            StepKind::Stmt,
            StepKind::Error
        ]
    );
    assert_eq!(tr.steps[0].after.get("g1"), Some(&true));
    assert!(
        matches!(tr.target, Target::Assert { ref proc, stmt } if proc == "main" && stmt.0 == 4)
    );
}

#[test]
fn call_and_return_steps_carry_both_scopes() {
    let tr = unsafe_(
        "decl g;
         bool f(a) begin decl l; l := !a; g := l; return l; end
         void main() begin decl x; x := f(T); assert(x); end",
    );
    let call = steps_of(&tr, StepKind::Call)[0];
    assert_eq!(call.proc, "main");
    assert_eq!(call.depth, 0);
    assert!(call.before.contains_key("x") && !call.before.contains_key("a"));
    assert!(call.after.contains_key("a") && call.after.contains_key("l"));
    assert_eq!(call.after.get("a"), Some(&true));
    let ret = steps_of(&tr, StepKind::Return)[0];
    assert_eq!(ret.proc, "f");
    assert_eq!(ret.depth, 1);
    assert_eq!(ret.text, "return l;");
    assert!(ret.after.contains_key("x") && !ret.after.contains_key("a"));
    assert_eq!(ret.after.get("x"), Some(&false));
    assert_eq!(ret.after.get("g"), Some(&false));
}

#[test]
fn annotations_are_copied_into_steps() {
    let tr = unsafe_(
        "//@@ source=prog.c
         decl g;
         void main() begin
           //@ edge=main#17 note=\"two words\"
           g := *;
           assert(g);
         end",
    );
    assert_eq!(tr.header.get("source"), Some("prog.c"));
    assert_eq!(tr.steps[0].annotations.get("edge"), Some("main#17"));
    assert_eq!(tr.steps[0].annotations.get("note"), Some("two words"));
    assert!(tr.steps[1].annotations.is_empty());
}
