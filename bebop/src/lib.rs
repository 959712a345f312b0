//! BDD-based interprocedural reachability for Boolean programs (Ball & Rajamani's Bebop).
//!
//! Public API (the contract used by the CLI, the tests and later tools):
//! [`verify`] checks a parsed, well-formed program for the property in [`Options`] and returns an
//! [`Outcome`]: safe, or unsafe with a fully expanded [`bp_grammar::trace::Trace`].

use bp_grammar::Program;
use bp_grammar::trace::Trace;

/// What `bebop` is asked.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum Property {
    /// Can an `assert` fail, or a statement labelled `SLIC_ERROR` be reached? (the default)
    #[default]
    AssertsAndSlicError,
    /// Can a statement carrying this label be reached?
    Label(String),
}

/// Options of a check.
#[derive(Clone, Debug, Default)]
pub struct Options {
    /// The question.
    pub property: Property,
    /// Compute per-statement invariants (reachable valuations) too.
    pub invariants: bool,
    /// The file name to record in traces.
    pub program_name: String,
}

/// The answer.
#[derive(Clone, Debug)]
pub enum Verdict {
    /// The error is unreachable.
    Safe,
    /// The error is reachable; the trace shows how.
    Unsafe(Box<Trace>),
}

/// Everything a check produced.
#[derive(Clone, Debug)]
pub struct Outcome {
    /// Safe or unsafe.
    pub verdict: Verdict,
}

/// Errors of a check (the program must already have passed `bp_grammar::check`).
#[derive(Debug, thiserror::Error)]
pub enum BebopError {
    /// The program has no `main`.
    #[error("the program has no procedure `main`")]
    NoMain,
}

/// Checks `prog` (which must have passed `bp_grammar::check`).
pub fn verify(_prog: &Program, _opts: &Options) -> Result<Outcome, BebopError> {
    unimplemented!("bebop engine not written yet")
}
