//! The single Z3 encoding of C expressions: every tool that asks a question about C values
//! (`c2bp`, `newton`, `constrain`) asks it here. The semantics it implements (integers with
//! range facts, unsigned wrap-around, C division, conversions, bit-precise mode, the logical
//! memory model, what is uninterpreted) is the toolkit's C semantics, documented in
//! `docs/c-semantics.md`.
//!
//! The module owns the [`Prover`] (validity and satisfiability with a cache and statistics;
//! its doc says how threads, determinism and the cache work), the Z3 contexts,
//! solvers and incremental [`Session`]s of a [`SolverCx`], the [`canonical`] text that keys
//! the cache, the encoder of IR expressions into Z3 terms, and the projection (quantifier
//! elimination back to C, [`Prover::project`]), and constrained Horn clauses over the same
//! encoding solved by Spacer ([`horn`]).

use std::fmt;

use crate::types::DataModel;

mod canon;
mod encode;
pub mod horn;
mod lanes;
mod project;
mod prover;
mod session;
mod syntactic;

pub use canon::canonical;
pub use lanes::Lanes;
pub use prover::Prover;
pub use session::{Session, SolverCx, keep_freed_memory, one_context};

/// Default resource limit of one query (Z3's `rlimit`, deterministic).
pub const DEFAULT_RLIMIT: u32 = 5_000_000;

/// Which C semantics a query uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Semantics {
    /// Widths of `long` and pointers.
    pub data_model: DataModel,
    /// Bit-precise reasoning (`--bitvector`) instead of mathematical integers with ranges.
    pub bitvector: bool,
}

impl fmt::Display for Semantics {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}/{}",
            self.data_model,
            if self.bitvector { "bv" } else { "int" }
        )
    }
}

/// Answer of a validity query. `Unknown` (resource limit reached, or a theory Z3 gave up on)
/// means "not proved".
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Answer {
    /// The assumptions imply the goal in every state.
    Valid,
    /// Some state satisfies the assumptions and not the goal.
    NotValid,
    /// Not decided within the resource limit.
    Unknown,
}

impl Answer {
    /// Proved valid (`Unknown` is not).
    pub fn is_valid(self) -> bool {
        self == Answer::Valid
    }
}

/// Answer of a satisfiability query. `Unknown` counts as satisfiable.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SatAnswer {
    /// Some state satisfies all the formulas.
    Sat,
    /// No state does.
    Unsat,
    /// Not decided within the resource limit.
    Unknown,
}

impl SatAnswer {
    /// Possibly satisfiable (`Sat` or `Unknown`): the sound reading.
    pub fn maybe_sat(self) -> bool {
        self != SatAnswer::Unsat
    }
}

/// Counters of a [`Prover`] (for `--stats`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Stats {
    /// Queries asked (validity and satisfiability).
    pub queries: u64,
    /// Queries answered from the cache.
    pub cache_hits: u64,
    /// Queries sent to Z3.
    pub solver_calls: u64,
    /// Z3 answers `unknown` (never cached).
    pub unknowns: u64,
}

impl fmt::Display for Stats {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "prover queries {}, cache hits {}, solver calls {}, unknown {}",
            self.queries, self.cache_hits, self.solver_calls, self.unknowns
        )
    }
}
