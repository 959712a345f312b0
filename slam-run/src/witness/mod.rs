//! SV-COMP witnesses (GraphML, the sv-witnesses format 1.0) of slam-run's verdicts, and their
//! checkers:
//!
//! - `graphml`: the XML prolog, the keys and the graph data every witness carries, and the
//!   reader of a witness (well-formedness, declared keys, the program's hash);
//! - `violation`: the counterexample of a FALSE verdict as a path automaton, and its replay
//!   on the concrete interpreter ([`check_violation`]);
//! - `correctness`: the loop-head invariants of the Boolean program bebop proved safe, as a
//!   correctness witness, and its check ([`check_correctness`]);
//! - `induct`: the cut points (function entries and loop heads) and the SSA encoding that
//!   proves a correctness witness's invariants inductive.
//!
//! A witness is written only from what proved the verdict; the checkers share no code with the
//! producers except the GraphML reader.

mod correctness;
mod graphml;
mod induct;
mod violation;

pub use correctness::{LoopInvariant, Proved, check_correctness, correctness, loop_invariants};
pub use graphml::specification;
pub use induct::loop_heads;
pub use violation::{Checked, check_violation, violation};

use cir::types::DataModel;

/// What a witness says about the verification run besides the path.
#[derive(Debug, Clone)]
pub struct WitnessInfo {
    /// The verified file as given (`programfile`).
    pub program_file: String,
    /// Its bytes (hashed into `programhash`).
    pub source: Vec<u8>,
    /// The data model (`architecture`).
    pub data_model: DataModel,
    /// The error functions (the first names the specification).
    pub error_fns: Vec<String>,
    /// `producer`.
    pub producer: String,
}

/// A witness that does not check.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("witness: {0}")]
pub struct WitnessError(pub String);

fn err<T>(s: impl Into<String>) -> Result<T, WitnessError> {
    Err(WitnessError(s.into()))
}
