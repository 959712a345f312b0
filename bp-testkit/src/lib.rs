//! Test utilities for Boolean programs (`.bp`): a random generator of small well-formed
//! programs, an explicit-state reference interpreter of the semantics in
//! `docs/bp-semantics.md`, and a replayer that checks `bebop`'s counterexample traces against
//! it.
//!
//! - [`generator`]: [`generator::random_program`]`(seed, &`[`generator::GenConfig`]`)`,
//!   reproducible from the seed, well-formed by construction; [`generator::labels`] lists the
//!   labels of a program (for `Label` properties). (The module is not called `gen`: that is a
//!   reserved word in Rust 2024.)
//! - [`reference`](mod@reference): [`reference::reachable_error`] and [`reference::analyze`]
//!   (exhaustive tabulation over explicit states, unbounded recursion via summaries, reachable
//!   states per statement), the small-step API [`reference::Machine`] (one statement in one
//!   state → every legal outcome) and [`reference::possible_values`] (an expression in a state).
//! - [`replay`](mod@replay): [`replay::replay`] checks that a [`bp_grammar::trace::Trace`] is a
//!   real execution reaching the error, or says which step is wrong and why.
//! - [`sim`]: random concrete runs written as traces (real executions by construction).
//! - [`cases`]: hand-written programs with known verdicts, one or more per semantic rule.
//! - [`shrink`]: a greedy reducer of failing programs.
//! - [`build`]: terse AST constructors for hand-written test programs.
//! - [`text`]: a plain `.bp` writer for reports (independent of `bp_grammar::print`).
//! - [`prng`]: the SplitMix64 generator behind [`generator`] and [`sim`], and the one
//!   pseudo-random generator of every test and benchmark generator in the workspace.
//! - [`expect`]: golden files and the one blessing convention (`UPDATE_EXPECT=1`).
//!
//! The interpreter is written independently of `bebop` on purpose: the differential test
//! (`tests/differential.rs` of the workspace root) compares the two on thousands of random
//! programs and replays every trace `bebop` produces.
//!
//! ```
//! use bp_testkit::{generator, reference};
//! let prog = generator::random_program(7, &generator::GenConfig::default());
//! let unsafe_ = reference::reachable_error(&prog, &reference::RefProperty::AssertsAndSlicError);
//! # let _ = unsafe_;
//! ```
#![deny(missing_docs)]

pub mod build;
pub mod cases;
pub mod expect;
pub mod generator;
pub mod prng;
pub mod reference;
pub mod replay;
pub mod shrink;
pub mod sim;
pub mod text;

pub use generator::{GenConfig, random_program};
pub use reference::{RefProperty, reachable_error};
pub use replay::{ReplayError, replay};
