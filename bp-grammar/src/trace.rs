//! The trace format: what `bebop` writes for a reachable error and `newton`/`constrain` read.
//!
//! A [`Trace`] is a fully expanded, hierarchical path from the entry of `main` to the error
//! (Ball & Rajamani, Bebop, SPIN 2000 §4). Steps come in
//! execution order; a call is followed by the callee's steps (one level deeper) and its
//! `return` step, then the caller resumes. The JSON form is `serde_json` of these types
//! (schema documented in `ARCHITECTURE.md` and in the field docs below); the text form for people
//! is rendered by `bebop`.
//!
//! Step semantics (every valuation maps each variable in scope to its value):
//! - `stmt`: a non-call statement of `proc` runs; `before`/`after` are over the scope of `proc`
//!   (globals, parameters, locals). For `if`/`while`/`goto`/`assume` the state does not change;
//!   `taken` says where control went (see [`Step::taken`]).
//! - `call`: the call statement of `proc` (the caller); `before` is the caller's state,
//!   `after` the callee's state at its entry (globals, parameters bound to the actuals, locals
//!   with their arbitrary initial values). The callee's steps follow at `depth + 1`.
//! - `return`: the `return` statement (or the fall-off at `end`, `stmt: null`) of `proc` (the
//!   callee); `before` is the callee's state, `after` the caller's state once the returned
//!   values are assigned. The caller's steps follow at `depth - 1`.
//! - `error`: the last step: the failing `assert` (`before` = `after` = the state in which its
//!   condition is false) or the statement carrying the target label, about to run.

use crate::ast::{Annotations, StmtId};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// The current version of the JSON format, stored in [`Trace::format`].
pub const TRACE_FORMAT: &str = "bebop-trace/1";

/// A valuation of the variables in scope, by name.
pub type Valuation = BTreeMap<String, bool>;

/// What the trace reaches.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub enum Target {
    /// An `assert` whose condition is false.
    Assert {
        /// The procedure holding the assert.
        proc: String,
        /// The assert statement.
        stmt: StmtId,
    },
    /// A statement carrying this label (`SLIC_ERROR` by default, or `--label L`).
    Label {
        /// The label.
        label: String,
        /// The procedure holding it.
        proc: String,
        /// The labelled statement.
        stmt: StmtId,
    },
}

/// The kind of a trace step.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum StepKind {
    /// A non-call statement.
    Stmt,
    /// A call: from the caller's state to the callee's entry state.
    Call,
    /// A return: from the callee's state to the caller's state after the assignment.
    Return,
    /// The error: the failing assert or the target label.
    Error,
}

/// One step of a trace.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Step {
    /// Kind of step.
    pub kind: StepKind,
    /// Call depth: 0 in `main`.
    pub depth: u32,
    /// The procedure whose statement this is (for `return`: the callee).
    pub proc: String,
    /// The statement (pre-order index in `proc`); `None` for the implicit return at `end`.
    pub stmt: Option<StmtId>,
    /// Line of the statement in the `.bp` file (of `end` for an implicit return).
    pub line: u32,
    /// Column of the statement in the `.bp` file.
    pub col: u32,
    /// The statement's text, canonical and on one line (compound statements: their head,
    /// e.g. `if (g) then`).
    pub text: String,
    /// The statement's labels.
    pub labels: Vec<String>,
    /// The statement's annotations, copied from the `.bp` file.
    pub annotations: Annotations,
    /// Where control went: for `if`, the index of the arm taken (`arms.len()` for `else` or
    /// for falling through); for `while`, 1 = into the body, 0 = past the loop; for `goto`, the
    /// index of the target taken; `None` for other statements.
    pub taken: Option<u32>,
    /// The state before the step.
    pub before: Valuation,
    /// The state after the step.
    pub after: Valuation,
}

/// A path to an error.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Trace {
    /// Always [`TRACE_FORMAT`].
    pub format: String,
    /// The `.bp` file the trace is for, as given on the command line.
    pub program: String,
    /// The program's header annotations (e.g. `source`, `sha256`).
    pub header: Annotations,
    /// What was reached.
    pub target: Target,
    /// The steps, in execution order.
    pub steps: Vec<Step>,
}

impl Trace {
    /// The JSON form.
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).expect("a trace always serialises")
    }

    /// Reads the JSON form.
    pub fn from_json(text: &str) -> Result<Trace, serde_json::Error> {
        serde_json::from_str(text)
    }
}
