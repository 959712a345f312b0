//! What every command of the toolkit shares, and nothing else: the exit-code table ([`exit`]),
//! command-line parsing that prints it and exits 1 on usage errors ([`args`]), standard output
//! that survives a closed pipe ([`output`]) and the logging convention ([`logging`]). A crate of
//! its own so that a tool links only what it uses (`slam-bench` needs the exit codes but neither
//! the Boolean-program grammar nor Z3).
#![deny(missing_docs)]

pub mod args;
pub mod exit;
pub mod logging;
pub mod output;
