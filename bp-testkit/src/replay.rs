//! The trace replayer: checks that a `bebop` trace ([`bp_grammar::trace::Trace`]) is a real
//! execution of the program under the reference semantics (`docs/bp-semantics.md`), step by
//! step, using the small-step API of [`crate::reference::Machine`].
//!
//! What is checked (trace format: `bp_grammar::trace` module doc):
//! - step 0 is at the first statement of `main`, depth 0, in a state over main's scope that
//!   satisfies main's `enforce` (globals, parameters and locals are otherwise free);
//! - every step is at the statement where control actually is, in the procedure on top of the
//!   call stack, at depth = stack height; its labels are the statement's labels;
//! - consecutive steps chain: each step's `before` equals the previous step's `after`;
//! - a `stmt` step is a legal transition of a non-call, non-return statement
//!   ([`Machine::step`]: `*`, `schoose`, `constrain`, `dead` and enforce included) and its
//!   `taken` agrees with where control goes;
//! - a `call` step's `after` is a legal entry state of the callee: globals unchanged, parameters
//!   among the values of the actuals in `before`, callee's enforce holds; the callee's steps
//!   follow one level deeper;
//! - a `return` step (at a `return` statement, or `stmt: None` at `end`) leaves a callee: its
//!   `after` is the caller's state at the call with the globals as the callee left them and the
//!   targets assigned values the callee may return (the `return` expressions in `before`, or
//!   anything at `end`), and the caller's enforce holds. A `return` from the outermost `main`
//!   ends the run, so it can never be a step;
//! - the last step, and only it, is `error`, with `before == after`, at the trace's `target`:
//!   a failing `assert` (its condition can be false in that state; default property only) or a
//!   statement carrying the property's label.

use crate::reference::{Loc, Machine, RefError, RefProperty, Successor};
use bp_grammar::ast::{StmtId, StmtKind};
use bp_grammar::trace::{Step, StepKind, Target, Trace, Valuation};
use std::fmt;

/// Why a trace is not a real execution.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReplayError {
    /// Index of the offending step (`steps.len()` for a problem with the end of the trace).
    pub step: usize,
    /// The procedure the step claims to be in.
    pub proc: String,
    /// The statement it claims to run.
    pub stmt: Option<StmtId>,
    /// Its line in the `.bp` file, as recorded in the trace.
    pub line: u32,
    /// What is wrong.
    pub reason: String,
    /// What the reference semantics allows, when that is short to say.
    pub expected: Option<String>,
    /// What the trace says.
    pub got: Option<String>,
}

impl fmt::Display for ReplayError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "step {} (`{}`", self.step, self.proc)?;
        if let Some(s) = self.stmt {
            write!(f, " stmt {}", s.0)?;
        }
        write!(f, ", line {}): {}", self.line, self.reason)?;
        if let Some(e) = &self.expected {
            write!(f, "; expected {e}")?;
        }
        if let Some(g) = &self.got {
            write!(f, "; got {g}")?;
        }
        Ok(())
    }
}

impl std::error::Error for ReplayError {}

/// `{a=1, b=0}` for messages.
pub fn show_valuation(v: &Valuation) -> String {
    let parts: Vec<String> = v
        .iter()
        .map(|(k, b)| format!("{k}={}", u8::from(*b)))
        .collect();
    format!("{{{}}}", parts.join(", "))
}

/// A caller waiting for its callee.
struct Frame {
    proc: String,
    call: StmtId,
    state: Valuation,
}

struct Replayer<'a, 'p> {
    m: &'a Machine<'p>,
    property: &'a RefProperty,
    trace: &'a Trace,
    index: usize,
}

impl Replayer<'_, '_> {
    fn step(&self) -> &Step {
        &self.trace.steps[self.index]
    }

    fn fail(&self, reason: impl Into<String>) -> ReplayError {
        let (proc, stmt, line) = match self.trace.steps.get(self.index) {
            Some(s) => (s.proc.clone(), s.stmt, s.line),
            None => (String::new(), None, 0),
        };
        ReplayError {
            step: self.index,
            proc,
            stmt,
            line,
            reason: reason.into(),
            expected: None,
            got: None,
        }
    }

    fn mismatch(
        &self,
        reason: impl Into<String>,
        expected: impl Into<String>,
        got: impl Into<String>,
    ) -> ReplayError {
        ReplayError {
            expected: Some(expected.into()),
            got: Some(got.into()),
            ..self.fail(reason)
        }
    }

    fn reference(&self, e: RefError) -> ReplayError {
        self.fail(format!("the reference interpreter rejects the step: {e}"))
    }

    fn run(&mut self) -> Result<(), ReplayError> {
        let steps = &self.trace.steps;
        if steps.is_empty() {
            return Err(self.fail("the trace has no steps"));
        }
        let mut stack: Vec<Frame> = Vec::new();
        let mut proc = "main".to_string();
        let mut loc = self.m.entry("main").map_err(|e| self.reference(e))?;
        let mut state: Option<Valuation> = None;
        for i in 0..steps.len() {
            self.index = i;
            let step = self.step();
            // Where control is.
            if step.depth as usize != stack.len() {
                return Err(self.mismatch(
                    "wrong call depth",
                    stack.len().to_string(),
                    step.depth.to_string(),
                ));
            }
            if step.proc != proc {
                return Err(self.mismatch("wrong procedure", proc.as_str(), step.proc.as_str()));
            }
            let expected_stmt = match loc {
                Loc::Stmt(id) => Some(id),
                Loc::End => None,
            };
            if step.stmt != expected_stmt {
                let show = |s: Option<StmtId>| s.map_or("end".to_string(), |s| s.0.to_string());
                return Err(self.mismatch(
                    "control is elsewhere",
                    format!("statement {}", show(expected_stmt)),
                    format!("statement {}", show(step.stmt)),
                ));
            }
            if let Loc::Stmt(id) = loc {
                let s = self.m.stmt(&proc, id).map_err(|e| self.reference(e))?;
                let labels: Vec<String> = s.labels.iter().map(|l| l.name.clone()).collect();
                if step.labels != labels {
                    return Err(self.mismatch(
                        "wrong labels",
                        format!("{labels:?}"),
                        format!("{:?}", step.labels),
                    ));
                }
            }
            // The state chains.
            match &state {
                None => {
                    let ok = self
                        .m
                        .enforce_holds("main", &step.before)
                        .map_err(|e| self.reference(e))?;
                    if !ok {
                        return Err(self.fail("the initial state violates main's enforce"));
                    }
                }
                Some(prev) => {
                    if *prev != step.before {
                        return Err(self.mismatch(
                            "`before` is not the previous step's `after`",
                            show_valuation(prev),
                            show_valuation(&step.before),
                        ));
                    }
                }
            }
            match step.kind {
                StepKind::Error => {
                    self.error_step(&proc, loc)?;
                    if i + 1 != steps.len() {
                        return Err(self.fail("the error step is not the last step"));
                    }
                    return Ok(());
                }
                StepKind::Stmt => {
                    loc = self.stmt_step(&proc, loc)?;
                }
                StepKind::Call => {
                    let Loc::Stmt(id) = loc else {
                        return Err(self.fail("a call step at `end`"));
                    };
                    let callee = self.call_step(&proc, id)?;
                    stack.push(Frame {
                        proc: std::mem::replace(&mut proc, callee),
                        call: id,
                        state: step.before.clone(),
                    });
                    loc = self.m.entry(&proc).map_err(|e| self.reference(e))?;
                }
                StepKind::Return => {
                    let Some(frame) = stack.pop() else {
                        return Err(self.fail(
                            "a return step out of the outermost `main` (that ends the run)",
                        ));
                    };
                    self.return_step(&proc, loc, &frame)?;
                    loc = self
                        .m
                        .fallthrough(&frame.proc, frame.call)
                        .map_err(|e| self.reference(e))?;
                    proc = frame.proc;
                }
            }
            state = Some(self.step().after.clone());
        }
        self.index = steps.len();
        Err(self.fail("the trace does not end with an error step"))
    }

    fn stmt_step(&self, proc: &str, loc: Loc) -> Result<Loc, ReplayError> {
        let step = self.step();
        let Loc::Stmt(id) = loc else {
            return Err(self.fail("a stmt step at `end` (expected a return step)"));
        };
        let s = self.m.stmt(proc, id).map_err(|e| self.reference(e))?;
        match s.kind {
            StmtKind::Call { .. } => return Err(self.fail("a call statement as a stmt step")),
            StmtKind::Return(_) => {
                return Err(self.fail("a return statement as a stmt step"));
            }
            _ => {}
        }
        let succ = self
            .m
            .step(proc, id, &step.before, self.property)
            .map_err(|e| self.reference(e))?;
        let mut legal_afters = Vec::new();
        let mut legal_taken = Vec::new();
        for s in &succ {
            if let Successor::Next { taken, to, after } = s {
                if *taken == step.taken && *after == step.after {
                    return Ok(*to);
                }
                if *after == step.after {
                    legal_taken.push(format!("{taken:?}"));
                }
                if *taken == step.taken {
                    legal_afters.push(show_valuation(after));
                }
            }
        }
        if !legal_taken.is_empty() {
            return Err(self.mismatch(
                "`taken` disagrees with the branch the state allows",
                legal_taken.join(" or "),
                format!("{:?}", step.taken),
            ));
        }
        if legal_afters.is_empty() {
            return Err(self.mismatch(
                "no transition with this `taken` from `before` (blocked or wrong branch)",
                "a possible branch",
                format!(
                    "taken {:?} from {}",
                    step.taken,
                    show_valuation(&step.before)
                ),
            ));
        }
        legal_afters.truncate(8);
        Err(self.mismatch(
            "illegal transition",
            legal_afters.join(" or "),
            show_valuation(&step.after),
        ))
    }

    /// Checks a call step; returns the callee.
    fn call_step(&self, proc: &str, id: StmtId) -> Result<String, ReplayError> {
        let step = self.step();
        let s = self.m.stmt(proc, id).map_err(|e| self.reference(e))?;
        let StmtKind::Call { callee, .. } = &s.kind else {
            return Err(self.fail("a call step at a statement that is not a call"));
        };
        let succ = self
            .m
            .step(proc, id, &step.before, self.property)
            .map_err(|e| self.reference(e))?;
        let ok = succ
            .iter()
            .any(|s| matches!(s, Successor::Call { entry, .. } if *entry == step.after));
        if ok {
            return Ok(callee.name.clone());
        }
        // Say why: globals, parameters or enforce.
        let mut reason = format!("`after` is not a legal entry state of `{}`", callee.name);
        if let Ok(false) = self.m.enforce_holds(&callee.name, &step.after) {
            reason.push_str(" (the callee's enforce fails)");
        }
        let entries: Vec<String> = succ
            .iter()
            .filter_map(|s| match s {
                Successor::Call { entry, .. } => Some(show_valuation(entry)),
                _ => None,
            })
            .take(8)
            .collect();
        Err(self.mismatch(
            reason,
            if entries.is_empty() {
                "no entry state at all".to_string()
            } else {
                entries.join(" or ")
            },
            show_valuation(&step.after),
        ))
    }

    fn return_step(&self, proc: &str, loc: Loc, frame: &Frame) -> Result<(), ReplayError> {
        let step = self.step();
        if let Loc::Stmt(id) = loc {
            let s = self.m.stmt(proc, id).map_err(|e| self.reference(e))?;
            if !matches!(s.kind, StmtKind::Return(_)) {
                return Err(self.fail("a return step at a statement that is not `return`"));
            }
        }
        let values = self
            .m
            .return_values(proc, loc, &step.before)
            .map_err(|e| self.reference(e))?;
        let mut candidates = Vec::new();
        for v in &values {
            let r = self
                .m
                .return_to(&frame.proc, frame.call, &frame.state, &step.before, v)
                .map_err(|e| self.reference(e))?;
            if let Some(r) = r {
                if r == step.after {
                    return Ok(());
                }
                candidates.push(show_valuation(&r));
            }
        }
        candidates.truncate(8);
        Err(self.mismatch(
            format!(
                "`after` is not the state of `{}` after the return",
                frame.proc
            ),
            if candidates.is_empty() {
                "no state (the caller's enforce cuts every return)".to_string()
            } else {
                candidates.join(" or ")
            },
            show_valuation(&step.after),
        ))
    }

    fn error_step(&self, proc: &str, loc: Loc) -> Result<(), ReplayError> {
        let step = self.step();
        let Loc::Stmt(id) = loc else {
            return Err(self.fail("an error step at `end`"));
        };
        if step.before != step.after {
            return Err(self.mismatch(
                "an error step changes the state",
                show_valuation(&step.before),
                show_valuation(&step.after),
            ));
        }
        let s = self.m.stmt(proc, id).map_err(|e| self.reference(e))?;
        match &self.trace.target {
            Target::Assert { proc: tp, stmt } => {
                if tp != proc || *stmt != id {
                    return Err(self.mismatch(
                        "the error step is not at the trace's target",
                        format!("{tp} stmt {}", stmt.0),
                        format!("{proc} stmt {}", id.0),
                    ));
                }
                if !self.property.asserts_are_errors() {
                    return Err(self.fail("an assert target under a label property"));
                }
                if !matches!(s.kind, StmtKind::Assert(_)) {
                    return Err(self.fail("an assert target at a statement that is not `assert`"));
                }
                let succ = self
                    .m
                    .step(proc, id, &step.before, self.property)
                    .map_err(|e| self.reference(e))?;
                if !succ.contains(&Successor::AssertFails) {
                    return Err(self.fail("the assertion cannot fail in this state"));
                }
            }
            Target::Label {
                label,
                proc: tp,
                stmt,
            } => {
                if tp != proc || *stmt != id {
                    return Err(self.mismatch(
                        "the error step is not at the trace's target",
                        format!("{tp} stmt {}", stmt.0),
                        format!("{proc} stmt {}", id.0),
                    ));
                }
                if label != self.property.target_label() {
                    return Err(self.mismatch(
                        "the target label is not the property's",
                        self.property.target_label(),
                        label.as_str(),
                    ));
                }
                if !s.labels.iter().any(|l| l.name == *label) {
                    return Err(self.fail(format!("the statement has no label `{label}`")));
                }
            }
        }
        Ok(())
    }
}

/// Checks that `trace` is a real execution of `prog` reaching the error of `property` (see the
/// module doc for every rule); the first violation found is returned.
pub fn replay(
    prog: &bp_grammar::ast::Program,
    trace: &Trace,
    property: &RefProperty,
) -> Result<(), ReplayError> {
    let m = Machine::new(prog).map_err(|e| ReplayError {
        step: 0,
        proc: String::new(),
        stmt: None,
        line: 0,
        reason: format!("the program cannot be interpreted: {e}"),
        expected: None,
        got: None,
    })?;
    replay_with(&m, trace, property)
}

/// [`replay`] with an already compiled program.
pub fn replay_with(m: &Machine, trace: &Trace, property: &RefProperty) -> Result<(), ReplayError> {
    Replayer {
        m,
        property,
        trace,
        index: 0,
    }
    .run()
}
