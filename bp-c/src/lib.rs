//! The contract between c2bp and the tools that read its Boolean programs (newton, constrain,
//! slam-run): what a `.bp` written by c2bp means in C. c2bp writes by it; the readers depend on
//! this crate and never on the abstractor.
//!
//! - [`header`]: the `//@@` header (source file and its SHA-256, options, error convention) and
//!   the lowering settings read back from it;
//! - [`names`]: the call temporaries (`{arg …}`, `{ret …}`) and a callee's predicate read in
//!   the caller;
//! - [`trace`]: the inverse of the statement annotations — the C path a bebop trace follows —
//!   the predicates read back from the variable names, and the checked loading of a C file,
//!   its `.bp` and a trace.
#![deny(missing_docs)]

pub mod header;
pub mod names;
pub mod trace;
