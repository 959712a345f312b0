//! [`RunError`]: what ends a run before a verdict.

use std::path::PathBuf;

/// Errors that end a run before a verdict: a bug in a tool, or a kept file that cannot be
/// written.
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    /// Writing a kept file failed.
    #[error("{0}: {1}")]
    Io(PathBuf, std::io::Error),
    /// A tool failed (a bug).
    #[error("internal error: {0}")]
    Internal(String),
}
