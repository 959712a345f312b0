//! `slam-run`: the counterexample-guided refinement loop of SLAM, as the Constrain paper
//! ("Refining Approximations in Software Predicate Abstraction", TACAS'04) summarises it in §2.
//!
//! - `cegar`: [`run`], the loop — abstract (c2bp), check (bebop), refine (newton), and at NDF
//!   ("no difference found": refinement no longer changes the abstraction) constrain (§3.3).
//! - `config`: [`Config`], [`ConstrainMode`] and [`Precision`].
//! - `divergence`: the detector of predicates that follow a loop one iteration at a time.
//! - `falsify`: the bounded concrete-execution falsifier, called when a trace goes round a
//!   loop: a concrete run that reaches the error is replayed into a counterexample.
//! - `verdict`: [`Verdict`] and the typed [`UnknownReason`].
//! - `stats`: the [`Iteration`] records with each phase's breakdown, [`RunResult`],
//!   `--stats-json` and the summary line, the [`Journal`] of a run a limit may cut.
//! - `keep`: the `--keep` directory (each round's files, `commands.txt`).
//! - [`witness`]: SV-COMP witnesses of the verdict and their checkers.
//!
//! Soundness rests on the tools, not on this loop: TRUE only when bebop proves the abstraction
//! (sound by c2bp's construction) safe; FALSE only with a path replayed on the concrete
//! interpreter; anything else is UNKNOWN with its reason.
//!
//! The C program is parsed and lowered once, its points-to analysis computed once; each
//! iteration's files can be kept ([`Config::keep`]), each re-runnable by hand with the
//! standalone tools to the same result (the options are recorded in the `.bp` header).

mod block;
mod cegar;
mod config;
mod divergence;
mod error;
mod falsify;
mod keep;
mod stats;
mod verdict;
pub mod witness;

pub use cegar::{Progress, run};
pub use config::{
    Config, ConstrainMode, DEFAULT_MAX_CUBE_LEN, DEFAULT_TRACES_PER_ITERATION, Precision,
};
pub use error::RunError;
pub use falsify::{FalsifyMode, FalsifyOptions};
pub use keep::clear_stale;
pub use stats::{
    AddedPredicate, BebopPhase, C2bpPhase, C2bpProcedure, CubeRaise, FalsifyOutcome, FalsifyRun,
    Iteration, IterationOutcome, Journal, Phase, RefinedTrace, RunResult, STATS_FORMAT, StatsJson,
    TracesEnd, Trigger, process_usage,
};
pub use verdict::{UnknownReason, Verdict};
