//! The one table of exit codes shared by every tool of the toolkit.
//!
//! | code | meaning |
//! |---|---|
//! | 0 | safe / TRUE: the error is unreachable |
//! | 10 | unsafe / FALSE: the error is reachable (a trace or counterexample was printed) |
//! | 5 | unknown: no verdict (timeout, limits, unsupported feature); the reason is printed |
//! | 1 | usage error (bad command-line flags) |
//! | 2 | input error (malformed or ill-typed input file, missing file) |
//! | 6 | internal error (a bug in the toolkit) |
//!
//! The same numbers as CBMC's `exit_codes.h` where they overlap.

/// The error is unreachable.
pub const SAFE: i32 = 0;
/// A usage error (bad flags).
pub const USAGE: i32 = 1;
/// An input error: the file is missing, malformed or ill-typed.
pub const INPUT_ERROR: i32 = 2;
/// No verdict: the reason is printed.
pub const UNKNOWN: i32 = 5;
/// An internal error.
pub const INTERNAL: i32 = 6;
/// The error is reachable.
pub const UNSAFE: i32 = 10;
