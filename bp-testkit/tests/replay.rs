//! The replayer accepts real executions and rejects corrupted traces (a flipped value, a
//! dropped step, a wrong branch, a bad call entry or return, a misplaced error, ...).

use bp_grammar::ast::{Annotations, StmtId};
use bp_grammar::trace::{Step, StepKind, TRACE_FORMAT, Target, Trace, Valuation};
use bp_testkit::reference::RefProperty;
use bp_testkit::replay::{ReplayError, replay};

const PROG: &str = "
decl g;
bool f(a) begin
  decl l;
  g := !a;
  return g;
end
void main() begin
  decl x;
  g := T;
  if g then
    x := f(g);
  fi
  assert(x);
end
";

fn parse(src: &str) -> bp_grammar::Program {
    bp_grammar::parse(src).expect("parses")
}

fn val(pairs: &[(&str, bool)]) -> Valuation {
    pairs.iter().map(|(k, v)| (k.to_string(), *v)).collect()
}

fn step(
    kind: StepKind,
    depth: u32,
    proc: &str,
    stmt: Option<u32>,
    taken: Option<u32>,
    before: Valuation,
    after: Valuation,
) -> Step {
    Step {
        kind,
        depth,
        proc: proc.to_string(),
        stmt: stmt.map(StmtId),
        line: 0,
        col: 0,
        text: String::new(),
        labels: Vec::new(),
        annotations: Annotations::default(),
        taken,
        before,
        after,
    }
}

fn trace(target: Target, steps: Vec<Step>) -> Trace {
    Trace {
        format: TRACE_FORMAT.to_string(),
        program: "test.bp".to_string(),
        header: Annotations::default(),
        target,
        steps,
    }
}

/// g := T; if g (arm 0); x := f(g) [f: g := !a; return g]; assert(x) fails.
fn good() -> Trace {
    use StepKind::*;
    trace(
        Target::Assert {
            proc: "main".into(),
            stmt: StmtId(3),
        },
        vec![
            step(
                Stmt,
                0,
                "main",
                Some(0),
                None,
                val(&[("g", false), ("x", true)]),
                val(&[("g", true), ("x", true)]),
            ),
            step(
                Stmt,
                0,
                "main",
                Some(1),
                Some(0),
                val(&[("g", true), ("x", true)]),
                val(&[("g", true), ("x", true)]),
            ),
            step(
                Call,
                0,
                "main",
                Some(2),
                None,
                val(&[("g", true), ("x", true)]),
                val(&[("g", true), ("a", true), ("l", false)]),
            ),
            step(
                Stmt,
                1,
                "f",
                Some(0),
                None,
                val(&[("g", true), ("a", true), ("l", false)]),
                val(&[("g", false), ("a", true), ("l", false)]),
            ),
            step(
                Return,
                1,
                "f",
                Some(1),
                None,
                val(&[("g", false), ("a", true), ("l", false)]),
                val(&[("g", false), ("x", false)]),
            ),
            step(
                Error,
                0,
                "main",
                Some(3),
                None,
                val(&[("g", false), ("x", false)]),
                val(&[("g", false), ("x", false)]),
            ),
        ],
    )
}

fn check(t: &Trace) -> Result<(), ReplayError> {
    replay(&parse(PROG), t, &RefProperty::AssertsAndSlicError)
}

fn rejected_at(t: &Trace, index: usize, words: &str) {
    match check(t) {
        Ok(()) => panic!("corrupted trace accepted:\n{}", t.to_json()),
        Err(e) => {
            assert_eq!(e.step, index, "wrong step blamed: {e}");
            assert!(e.reason.contains(words), "unexpected reason: {e}");
        }
    }
}

#[test]
fn a_real_execution_replays() {
    check(&good()).expect("the hand-written trace is a real run");
    // The JSON form too.
    let t = Trace::from_json(&good().to_json()).expect("json");
    check(&t).expect("after a JSON round trip");
}

#[test]
fn callee_locals_are_arbitrary() {
    let mut t = good();
    for i in [2, 3] {
        t.steps[i].after.insert("l".into(), true);
    }
    t.steps[3].before.insert("l".into(), true);
    t.steps[4].before.insert("l".into(), true);
    check(&t).expect("any initial value of a callee local");
}

#[test]
fn a_flipped_value_breaks_the_chain() {
    let mut t = good();
    t.steps[1].before.insert("x".into(), false);
    rejected_at(&t, 1, "previous step");
    // A flipped `after` alone is an illegal transition.
    let mut t = good();
    t.steps[0].after.insert("g".into(), false);
    rejected_at(&t, 0, "illegal transition");
}

#[test]
fn an_impossible_assignment_is_rejected() {
    let mut t = good();
    // `g := T` leaving g false, consistently carried into the next step.
    t.steps[0].after.insert("g".into(), false);
    t.steps[1].before.insert("g".into(), false);
    rejected_at(&t, 0, "illegal transition");
}

#[test]
fn a_dropped_step_is_rejected() {
    let mut t = good();
    t.steps.remove(1);
    rejected_at(&t, 1, "control is elsewhere");
    let mut t = good();
    t.steps.remove(3);
    rejected_at(&t, 3, "control is elsewhere");
}

#[test]
fn a_wrong_branch_is_rejected() {
    let mut t = good();
    t.steps[1].taken = Some(1);
    rejected_at(&t, 1, "taken");
    let mut t = good();
    t.steps[1].taken = None;
    rejected_at(&t, 1, "taken");
}

#[test]
fn a_bad_call_entry_is_rejected() {
    let mut t = good();
    // The parameter does not get the actual's value.
    t.steps[2].after.insert("a".into(), false);
    t.steps[3].before.insert("a".into(), false);
    t.steps[3].after.insert("a".into(), false);
    t.steps[3].after.insert("g".into(), true);
    t.steps[4].before = t.steps[3].after.clone();
    rejected_at(&t, 2, "legal entry state");
    let mut t = good();
    // The globals change at the call.
    t.steps[2].after.insert("g".into(), false);
    t.steps[3].before.insert("g".into(), false);
    rejected_at(&t, 2, "legal entry state");
}

#[test]
fn a_bad_return_is_rejected() {
    let mut t = good();
    // x receives T although f returns g = F.
    t.steps[4].after.insert("x".into(), true);
    t.steps[5].before.insert("x".into(), true);
    t.steps[5].after.insert("x".into(), true);
    rejected_at(&t, 4, "after the return");
    let mut t = good();
    // The callee's global effect is lost.
    t.steps[4].after.insert("g".into(), true);
    t.steps[5].before.insert("g".into(), true);
    t.steps[5].after.insert("g".into(), true);
    rejected_at(&t, 4, "after the return");
}

#[test]
fn a_wrong_depth_is_rejected() {
    let mut t = good();
    t.steps[3].depth = 0;
    rejected_at(&t, 3, "depth");
}

#[test]
fn the_error_must_be_real_and_last() {
    // Truncated: no error step.
    let mut t = good();
    t.steps.pop();
    rejected_at(&t, 5, "does not end with an error");
    // The target is another statement.
    let mut t = good();
    t.target = Target::Assert {
        proc: "main".into(),
        stmt: StmtId(2),
    };
    rejected_at(&t, 5, "target");
    // A label target under the default property, at a statement without it.
    let mut t = good();
    t.target = Target::Label {
        label: "SLIC_ERROR".into(),
        proc: "main".into(),
        stmt: StmtId(3),
    };
    rejected_at(&t, 5, "no label");
    // An error step that changes the state.
    let mut t = good();
    t.steps[5].after.insert("g".into(), true);
    rejected_at(&t, 5, "changes the state");
    // Steps after the error.
    let mut t = good();
    let extra = t.steps[5].clone();
    t.steps.push(extra);
    rejected_at(&t, 5, "not the last step");
    // Under a label property, the assert is no error.
    let t = good();
    let e = replay(&parse(PROG), &t, &RefProperty::Label("L".into())).expect_err("label");
    assert_eq!(e.step, 5);
}

#[test]
fn an_assert_that_holds_is_no_error() {
    let prog = parse("decl g; void main() begin g := T; assert(g); end");
    let t = trace(
        Target::Assert {
            proc: "main".into(),
            stmt: StmtId(1),
        },
        vec![
            step(
                StepKind::Stmt,
                0,
                "main",
                Some(0),
                None,
                val(&[("g", false)]),
                val(&[("g", true)]),
            ),
            step(
                StepKind::Error,
                0,
                "main",
                Some(1),
                None,
                val(&[("g", true)]),
                val(&[("g", true)]),
            ),
        ],
    );
    let e = replay(&prog, &t, &RefProperty::AssertsAndSlicError).expect_err("holds");
    assert!(e.reason.contains("cannot fail"), "{e}");
}

#[test]
fn a_nondeterministic_assert_may_fail() {
    let prog = parse("void main() begin assert(*); end");
    let t = trace(
        Target::Assert {
            proc: "main".into(),
            stmt: StmtId(0),
        },
        vec![step(
            StepKind::Error,
            0,
            "main",
            Some(0),
            None,
            val(&[]),
            val(&[]),
        )],
    );
    replay(&prog, &t, &RefProperty::AssertsAndSlicError).expect("assert(*) can fail");
}

#[test]
fn labels_fall_off_end_and_enforce() {
    let prog = parse(
        "decl g;
         void f() begin g := T; end
         void main() begin decl x; enforce !x; f(); L: skip; end",
    );
    let prop = RefProperty::Label("L".into());
    let mk = |x0: bool, label: &str| {
        let mut error = step(
            StepKind::Error,
            0,
            "main",
            Some(1),
            None,
            val(&[("g", true), ("x", x0)]),
            val(&[("g", true), ("x", x0)]),
        );
        error.labels = vec![label.to_string()];
        trace(
            Target::Label {
                label: "L".into(),
                proc: "main".into(),
                stmt: StmtId(1),
            },
            vec![
                step(
                    StepKind::Call,
                    0,
                    "main",
                    Some(0),
                    None,
                    val(&[("g", false), ("x", x0)]),
                    val(&[("g", false)]),
                ),
                step(
                    StepKind::Stmt,
                    1,
                    "f",
                    Some(0),
                    None,
                    val(&[("g", false)]),
                    val(&[("g", true)]),
                ),
                step(
                    StepKind::Return,
                    1,
                    "f",
                    None,
                    None,
                    val(&[("g", true)]),
                    val(&[("g", true), ("x", x0)]),
                ),
                error,
            ],
        )
    };
    replay(&prog, &mk(false, "L"), &prop).expect("a real run to L");
    // main's enforce !x rules out the initial state.
    let e = replay(&prog, &mk(true, "L"), &prop).expect_err("enforce");
    assert_eq!(e.step, 0);
    assert!(e.reason.contains("enforce"), "{e}");
    // The step's labels must be the statement's.
    let e = replay(&prog, &mk(false, "M"), &prop).expect_err("labels");
    assert_eq!(e.step, 3);
    // The property's label must be the target's.
    let e = replay(&prog, &mk(false, "L"), &RefProperty::Label("M".into())).expect_err("label");
    assert_eq!(e.step, 3);
    // A return step out of main is impossible.
    let mut t = mk(false, "L");
    t.steps.truncate(1);
    t.steps[0] = step(
        StepKind::Return,
        0,
        "main",
        Some(0),
        None,
        val(&[("g", false), ("x", false)]),
        val(&[("g", false), ("x", false)]),
    );
    let e = replay(&prog, &t, &prop).expect_err("return from main");
    assert!(e.reason.contains("outermost"), "{e}");
}

#[test]
fn missing_or_extra_variables_are_rejected() {
    let mut t = good();
    t.steps[0].before.remove("x");
    assert_eq!(check(&t).expect_err("missing").step, 0);
    let mut t = good();
    t.steps[0].before.insert("zz".into(), true);
    assert_eq!(check(&t).expect_err("extra").step, 0);
}
