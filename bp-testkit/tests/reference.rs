//! Unit tests of the reference interpreter, one or more per rule of `docs/bp-semantics.md`
//! ("Semantics"), plus Boppo's regression expectations.

use bp_grammar::ast::{RetType, StmtId};
use bp_grammar::trace::Valuation;
use bp_testkit::build::*;
use bp_testkit::reference::{
    Limits, Loc, Machine, RefError, RefProperty, Successor, analyze, reachable_error,
};

fn parse(src: &str) -> bp_grammar::Program {
    let prog = bp_grammar::parse(src).unwrap_or_else(|e| panic!("does not parse: {e:?}\n{src}"));
    let errors: Vec<_> = bp_grammar::check(&prog, src)
        .into_iter()
        .filter(|d| d.is_error())
        .collect();
    assert!(errors.is_empty(), "ill-formed: {errors:?}\n{src}");
    prog
}

fn unsafe_(src: &str) -> bool {
    reachable_error(&parse(src), &RefProperty::AssertsAndSlicError)
}

fn label_reachable(src: &str, label: &str) -> bool {
    reachable_error(&parse(src), &RefProperty::Label(label.to_string()))
}

fn val(pairs: &[(&str, bool)]) -> Valuation {
    pairs.iter().map(|(k, v)| (k.to_string(), *v)).collect()
}

// --- Boppo's regression suite (expectations from EXPECTED.tsv) -------------------------------

#[test]
fn boppo_constrain1_schoose_ff_constrained_is_safe() {
    assert!(!unsafe_(
        "decl g0; void main() begin g0:=schoose[F,F] constrain 'g0; assert(g0); end"
    ));
}

#[test]
fn boppo_initialization1_locals_start_arbitrary() {
    assert!(unsafe_("void main() begin decl a; assert(!a); end"));
}

#[test]
fn boppo_local_variables1_fresh_locals_at_every_call() {
    assert!(unsafe_(
        "void f(a) begin decl l; if a then assert(l); else l:=1; fi end
         void main() begin f(0); f(1); end"
    ));
}

#[test]
fn boppo_enforce1_enforce_cuts_violating_steps() {
    assert!(!unsafe_(
        "decl a, b;
         void f() begin enforce a & !b; assert(a&!b); a, b:=*,*; assert(a&!b); end
         void main() begin a,b:=*,*; f(); end"
    ));
}

#[test]
fn boppo_shared_corpus_expectations() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/corpus/bp/boppo");
    let Ok(expected) = std::fs::read_to_string(dir.join("EXPECTED.tsv")) else {
        eprintln!("shared Boppo corpus not present; skipped");
        return;
    };
    let mut checked = 0;
    for line in expected.lines().skip(1) {
        let cols: Vec<&str> = line.split('\t').collect();
        let (task, verdict, note) = (cols[0], cols[1], cols.get(2).copied().unwrap_or(""));
        let src = std::fs::read_to_string(dir.join(task).join("main.bp")).expect("task file");
        let prog = parse(&src);
        let widest = prog
            .procs
            .iter()
            .map(|p| prog.global_vars().count() + p.frame_vars().count())
            .max()
            .unwrap_or(0);
        if widest > 16 {
            // 2^30 initial states (Fixpoint2): beyond explicit-state exploration.
            eprintln!("Boppo {task}: {widest} variables in scope, skipped");
            continue;
        }
        let property = match note.split_once("-l ") {
            Some((_, label)) => RefProperty::Label(label.trim().to_string()),
            None => RefProperty::AssertsAndSlicError,
        };
        let got = reachable_error(&prog, &property);
        assert_eq!(got, verdict == "unsafe", "Boppo {task}: expected {verdict}");
        checked += 1;
    }
    assert!(checked >= 19, "only {checked} tasks");
}

// --- Rules ----------------------------------------------------------------------------------

#[test]
fn every_semantic_case_has_its_verdict() {
    for case in bp_testkit::cases::CASES {
        let got = reachable_error(&parse(case.src), &case.property());
        assert_eq!(
            got,
            case.unsafe_,
            "case {} ({}): expected {}",
            case.name,
            case.rule,
            if case.unsafe_ { "unsafe" } else { "safe" }
        );
    }
}

#[test]
fn initial_globals_and_main_parameters_are_arbitrary() {
    assert!(unsafe_("decl g; void main() begin assert(g); end"));
    assert!(unsafe_("decl g; void main() begin assert(!g); end"));
    assert!(unsafe_("void main(p) begin assert(p); end"));
    assert!(!unsafe_("decl g; void main() begin g := T; assert(g); end"));
}

#[test]
fn nondet_is_fresh_at_every_occurrence() {
    // `* = *` may be F; `y = y` may not.
    assert!(unsafe_(
        "void main() begin decl x; x := (* = *); assert(x); end"
    ));
    assert!(!unsafe_(
        "void main() begin decl x, y; y := *; x := (y = y); assert(x); end"
    ));
    // `*` as a decider: both ways.
    assert!(unsafe_("void main() begin if * then assert(F); fi end"));
    assert!(unsafe_(
        "void main() begin if * then skip; else assert(F); fi end"
    ));
    // History1: `* & g1` may be F.
    assert!(unsafe_(
        "decl g1; void main() begin g1:=*; assume(g1); goto L5, L8; L8: g1:=* & g1; L5: assert(g1); end"
    ));
}

#[test]
fn schoose_rules() {
    // schoose[T, x] is T; schoose[x, T] is x; schoose[F, F] is either; schoose[a, !a] is a.
    assert!(!unsafe_(
        "void main() begin decl x, y; x := schoose[T, y]; assert(x); end"
    ));
    assert!(!unsafe_(
        "void main() begin decl x, y; x := schoose[y, T]; assert(x = y); end"
    ));
    assert!(unsafe_(
        "void main() begin decl x; x := schoose[F, F]; assert(x); end"
    ));
    assert!(unsafe_(
        "void main() begin decl x; x := schoose[F, F]; assert(!x); end"
    ));
    assert!(!unsafe_(
        "void main() begin decl x, a; x := schoose[a, !a]; assert(x = a); end"
    ));
    // Neither holds: either value.
    assert!(unsafe_(
        "void main() begin decl x, a; assume(!a); x := schoose[a, a]; assert(!x); end"
    ));
}

#[test]
fn parallel_assignment_reads_the_pre_state() {
    assert!(!unsafe_(
        "void main() begin decl a, b, c, d; c, d := a, b; a, b := b, a; assert(a = d & b = c); end"
    ));
    // Unassigned variables keep their values.
    assert!(!unsafe_(
        "void main() begin decl a, b, c; c := b; a := *; assert(b = c); end"
    ));
}

#[test]
fn constrain_primed_and_unprimed() {
    // Constrain2: 'g0 = 'g1 after the assignment.
    assert!(!unsafe_(
        "decl g0, g1; void main() begin g0, g1 := *, * constrain ('g0 & 'g1) | (!'g0 & !'g1); assert(g0 = g1); end"
    ));
    // An unassigned primed variable is its old value: the step is blocked when b holds.
    assert!(!unsafe_(
        "decl a, b; void main() begin assume(b); a := T constrain !'b; assert(F); end"
    ));
    assert!(unsafe_(
        "decl a, b; void main() begin a := T constrain !'b; assert(F); end"
    ));
    // Unprimed variables are the pre-state.
    assert!(!unsafe_(
        "decl a; void main() begin a := !a constrain a; assert(!a); end"
    ));
    // No post-state satisfies the clause: blocked.
    assert!(!unsafe_(
        "decl a; void main() begin a := * constrain F; assert(F); end"
    ));
}

#[test]
fn calls_are_by_value_and_return_values() {
    // Arguments1.
    assert!(!unsafe_(
        "bool f(a) begin return !a; end
         void main() begin decl l1, l2; l1,l2:=*,*; l2:=f(l1); assert(l1=!l2); end"
    ));
    // The callee's parameter changes do not reach the caller.
    assert!(!unsafe_(
        "void f(a) begin a := !a; end
         void main() begin decl x, y; y := x; f(x); assert(x = y); end"
    ));
    // Globals are as the callee left them; _ discards.
    assert!(!unsafe_(
        "decl g; bool<2> f() begin g := T; return F, T; end
         void main() begin decl x; g := F; _, x := f(); assert(g & x); end"
    ));
    // A global target gets the returned value, not the callee's global.
    assert!(!unsafe_(
        "decl g; bool f() begin g := T; return F; end
         void main() begin g := f(); assert(!g); end"
    ));
    // Return expressions are evaluated in the callee's state.
    assert!(!unsafe_(
        "decl g; bool f() begin decl l; l := g; g := !g; return l; end
         void main() begin decl x, y; y := g; x := f(); assert(x = y & g = !y); end"
    ));
}

#[test]
fn falling_off_end_returns_arbitrary_values() {
    let src = |claim: &str| {
        format!("bool f() begin skip; end void main() begin decl x; x := f(); assert({claim}); end")
    };
    assert!(unsafe_(&src("x")));
    assert!(unsafe_(&src("!x")));
    // An empty body returns too.
    assert!(unsafe_(
        "bool<2> f() begin end void main() begin decl x, y; x, y := f(); assert(x = y); end"
    ));
}

#[test]
fn return_in_main_ends_the_run() {
    assert!(!unsafe_("void main() begin return; assert(F); end"));
    // Return2.
    assert!(!unsafe_(
        "decl g; bool<2> f() begin return g, !g; end
         bool<2> main() begin decl l1, l2; g:=*; l1,l2:=f(); return l1,l2; assert(0); end"
    ));
}

#[test]
fn recursion_is_unbounded() {
    // g toggles any number of times: both parities reachable.
    let toggles = |claim: &str| {
        format!(
            "decl g; void f() begin g := !g; if * then f(); fi end
             void main() begin g := F; f(); assert({claim}); end"
        )
    };
    assert!(unsafe_(&toggles("g")));
    assert!(unsafe_(&toggles("!g")));
    // Mutual recursion preserving an invariant.
    assert!(!unsafe_(
        "decl g, h;
         void even() begin if * then g, h := h, g; odd(); fi end
         void odd() begin g, h := h, g; even(); end
         void main() begin assume(g = h); even(); assert(g = h); end"
    ));
    // A call that never returns.
    assert!(!unsafe_(
        "void f() begin f(); end void main() begin f(); assert(F); end"
    ));
    // Depth-dependent result: f(n) returns after an unbounded descent; values flow back.
    assert!(!unsafe_(
        "bool f(a) begin decl r; if * then r := f(a); return r; fi return a; end
         void main() begin decl x, y; x := *; y := f(x); assert(x = y); end"
    ));
}

#[test]
fn enforce_on_entry_after_steps_and_after_returns() {
    // On entry: f is entered only where g holds.
    assert!(!unsafe_(
        "decl g; void f() begin enforce g; assert(g); end
         void main() begin g := *; f(); end"
    ));
    // After a call returns into the enforcing procedure.
    assert!(!unsafe_(
        "decl g; void f() begin g := T; end
         void main() begin enforce !g; f(); assert(F); end"
    ));
    assert!(unsafe_(
        "decl g; void f() begin g := T; end
         void main() begin f(); assert(F); end"
    ));
    // main's enforce restricts the initial states.
    assert!(!unsafe_(
        "void main() begin decl a; enforce a; assert(a); end"
    ));
    // An unsatisfiable enforce blocks everything.
    assert!(!unsafe_("void main() begin enforce F; assert(F); end"));
}

#[test]
fn control_if_elsif_while_goto() {
    // Arms are tried in order.
    assert!(!unsafe_(
        "void main() begin if T then skip; elsif T then assert(F); else assert(F); fi end"
    ));
    assert!(unsafe_(
        "void main() begin if F then skip; elsif T then assert(F); fi end"
    ));
    // The loop exits only when its condition is false.
    assert!(!unsafe_(
        "decl g; void main() begin while g do g := *; od assert(!g); end"
    ));
    // A backward goto loop that is eventually left.
    assert!(unsafe_(
        "decl g; void main() begin g := F; L: if * then g := T; goto L; fi assert(!g); end"
    ));
    // Taken1 / Taken2 / Simple2 / Simple3.
    assert!(unsafe_(
        "decl g1; void main() begin L0: g1:=*; L1: if g1 then goto l; fi; L2: goto endl; L3: l: assert(0); L4: endl: skip; end"
    ));
    assert!(!unsafe_(
        "decl g0; void main() begin g0:=schoose[F,F]; if g0 then goto L1; fi; assert(!g0); L1: skip end"
    ));
    // A goto into a loop body returns to the loop head at the end of the body.
    assert!(unsafe_(
        "decl g; void main() begin g := F; goto In; while F do In: g := T; od assert(!g); end"
    ));
    // assume cuts.
    assert!(!unsafe_(
        "decl g; void main() begin assume(g & !g); assert(F); end"
    ));
}

#[test]
fn dead_havocs() {
    assert!(unsafe_(
        "void main() begin decl x; x := T; dead x; assert(x); end"
    ));
    assert!(!unsafe_(
        "void main() begin decl x, y; x, y := T, T; dead x; assert(y); end"
    ));
}

#[test]
fn assert_continues_only_where_true() {
    let prog = parse("decl g; void main() begin assert(g); assert(g); L: skip; end");
    let a =
        analyze(&prog, &RefProperty::AssertsAndSlicError, &Limits::default()).expect("analysis");
    assert_eq!(a.error_sites(), vec![("main".to_string(), StmtId(0))]);
    assert_eq!(
        a.reachable_states("main", StmtId(2)).expect("stmt"),
        vec![val(&[("g", true)])]
    );
}

#[test]
fn slic_error_is_reached_before_it_runs() {
    assert!(unsafe_("void main() begin SLIC_ERROR: assume(F); end"));
    assert!(!unsafe_(
        "decl g; void main() begin assume(!g); if g then SLIC_ERROR: skip; fi end"
    ));
    // In a callee.
    assert!(unsafe_(
        "void f() begin SLIC_ERROR: skip; end void main() begin f(); end"
    ));
}

#[test]
fn label_property_asserts_are_assumes() {
    let src = "decl g; void main() begin assert(g); MY: skip; end";
    assert!(label_reachable(src, "MY"));
    assert!(!label_reachable(
        "decl g; void main() begin assume(!g); assert(g); MY: skip; end",
        "MY"
    ));
    // Under a label property, a failing assert is not an error, nor is SLIC_ERROR.
    assert!(!label_reachable(
        "void main() begin assert(F); SLIC_ERROR: skip; end",
        "MY"
    ));
    // Reachability1.
    assert!(label_reachable(
        "decl g0; void main() begin g0:=*; if g0 then MY_ERROR_LABEL: skip; fi; end",
        "MY_ERROR_LABEL"
    ));
    // The same label in two procedures: either counts.
    assert!(!label_reachable(
        "void f() begin L: skip; end void main() begin assume(F); L: skip; end
         void g() begin f(); end",
        "L"
    ));
    assert!(label_reachable(
        "void f() begin L: skip; end void main() begin f(); assume(F); L: skip; end",
        "L"
    ));
}

#[test]
fn reachable_states_are_invariants() {
    let prog = parse(
        "decl g; void f(a) begin decl l; l := !a; g := l; end
         void main() begin g := F; f(g); f(T); end",
    );
    let a =
        analyze(&prog, &RefProperty::AssertsAndSlicError, &Limits::default()).expect("analysis");
    // f's statement 1 (`g := l`) runs with l = !a and g from the caller.
    let states: std::collections::BTreeSet<Valuation> = a
        .reachable_states("f", StmtId(1))
        .expect("stmt")
        .into_iter()
        .collect();
    let expected = [
        val(&[("g", false), ("a", false), ("l", true)]),
        val(&[("g", true), ("a", true), ("l", false)]),
    ]
    .into_iter()
    .collect();
    assert_eq!(states, expected);
    assert_eq!(states.len(), 2);
    assert!(!a.error_reachable());
    assert!(a.is_reachable("main", StmtId(2)).expect("stmt"));
}

// --- The small-step API ---------------------------------------------------------------------

#[test]
fn small_step_outcomes() {
    let prog = parse(
        "decl g;
         bool f(a) begin decl l; enforce !l | g; return a & *; end
         void main() begin decl x;
           if g then x := f(g); elsif * then goto A, B; fi
           A: assert(x);
           B: x := * constrain 'x = g;
         end",
    );
    let m = Machine::new(&prog).expect("compiles");
    assert_eq!(m.scope("main").expect("main"), ["g", "x"]);
    assert_eq!(m.scope("f").expect("f"), ["g", "a", "l"]);
    assert_eq!(m.entry("main").expect("main"), Loc::Stmt(StmtId(0)));
    let p = RefProperty::AssertsAndSlicError;
    // if with g = F: arm 1 (elsif *) or fall through (taken 2).
    let s = m
        .step("main", StmtId(0), &val(&[("g", false), ("x", true)]), &p)
        .expect("step");
    let taken: Vec<Option<u32>> = s
        .iter()
        .map(|o| match o {
            Successor::Next { taken, .. } => *taken,
            _ => panic!("unexpected {o:?}"),
        })
        .collect();
    assert_eq!(taken, vec![Some(1), Some(2)]);
    // The elsif body is the goto (stmt 2); falling through goes to A (stmt 3).
    assert!(s.contains(&Successor::Next {
        taken: Some(2),
        to: Loc::Stmt(StmtId(3)),
        after: val(&[("g", false), ("x", true)])
    }));
    // The call with g = T: entries with a = T and l arbitrary, cut by !l | g (g = T: both).
    let s = m
        .step("main", StmtId(1), &val(&[("g", true), ("x", false)]), &p)
        .expect("step");
    assert_eq!(s.len(), 2);
    assert!(s.contains(&Successor::Call {
        callee: "f".into(),
        entry: val(&[("g", true), ("a", true), ("l", true)])
    }));
    // With g = F the enforce of f forces l = F.
    let s = m
        .step("main", StmtId(1), &val(&[("g", false), ("x", false)]), &p)
        .expect("step");
    assert_eq!(
        s,
        vec![Successor::Call {
            callee: "f".into(),
            entry: val(&[("g", false), ("a", false), ("l", false)])
        }]
    );
    // return a & *: with a = T, either value.
    let r = m
        .return_values(
            "f",
            Loc::Stmt(StmtId(0)),
            &val(&[("g", true), ("a", true), ("l", false)]),
        )
        .expect("values");
    assert_eq!(r, vec![vec![false], vec![true]]);
    let back = m
        .return_to(
            "main",
            StmtId(1),
            &val(&[("g", true), ("x", false)]),
            &val(&[("g", false), ("a", true), ("l", false)]),
            &[true],
        )
        .expect("return");
    assert_eq!(back, Some(val(&[("g", false), ("x", true)])));
    // The assert with x = F fails and cannot continue.
    let s = m
        .step("main", StmtId(3), &val(&[("g", false), ("x", false)]), &p)
        .expect("step");
    assert_eq!(s, vec![Successor::AssertFails]);
    let s = m
        .step(
            "main",
            StmtId(3),
            &val(&[("g", false), ("x", false)]),
            &RefProperty::Label("A".into()),
        )
        .expect("step");
    assert!(
        s.is_empty(),
        "under a label property the assert is an assume"
    );
    assert!(
        m.is_target("main", StmtId(3), &RefProperty::Label("A".into()))
            .expect("stmt")
    );
    // constrain 'x = g: x becomes g; the last statement falls off the end.
    let s = m
        .step("main", StmtId(4), &val(&[("g", true), ("x", false)]), &p)
        .expect("step");
    assert_eq!(
        s,
        vec![Successor::Next {
            taken: None,
            to: Loc::End,
            after: val(&[("g", true), ("x", true)])
        }]
    );
    // Valuations must cover the scope exactly.
    assert!(matches!(
        m.step("main", StmtId(4), &val(&[("g", true)]), &p),
        Err(RefError::BadValuation { .. })
    ));
    assert!(matches!(
        m.step("main", StmtId(9), &val(&[("g", true), ("x", true)]), &p),
        Err(RefError::UnknownStmt { .. })
    ));
}

#[test]
fn built_asts_work_without_the_parser() {
    // Local_Variables1, built by hand.
    let prog = program(
        &[],
        vec![
            procedure(
                "f",
                RetType::Void,
                &["a"],
                &["l"],
                None,
                vec![if_(
                    var("a"),
                    vec![assert_(var("l"))],
                    Some(vec![assign(&["l"], vec![t()])]),
                )],
            ),
            procedure(
                "main",
                RetType::Void,
                &[],
                &[],
                None,
                vec![call(&[], "f", vec![f()]), call(&[], "f", vec![t()])],
            ),
        ],
    );
    assert!(reachable_error(&prog, &RefProperty::AssertsAndSlicError));
}

#[test]
fn ill_formed_programs_are_errors_not_panics() {
    let no_main = program(
        &[],
        vec![procedure("f", RetType::Void, &[], &[], None, vec![])],
    );
    assert!(Machine::new(&no_main).is_err());
    let undeclared = program(
        &[],
        vec![procedure(
            "main",
            RetType::Void,
            &[],
            &[],
            None,
            vec![assert_(var("x"))],
        )],
    );
    assert!(matches!(
        Machine::new(&undeclared),
        Err(RefError::IllFormed(_))
    ));
    let bad_label = program(
        &[],
        vec![procedure(
            "main",
            RetType::Void,
            &[],
            &[],
            None,
            vec![goto(&["Nowhere"])],
        )],
    );
    assert!(Machine::new(&bad_label).is_err());
}
