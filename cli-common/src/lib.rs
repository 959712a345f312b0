//! What every command of the toolkit shares, and nothing else: the exit-code table ([`exit`])
//! and the logging convention ([`logging`]). A crate of its own so that a tool links only what
//! it uses (`slam-bench` needs the exit codes but neither the Boolean-program grammar nor Z3).
#![deny(missing_docs)]

pub mod exit;
pub mod logging;
