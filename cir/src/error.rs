//! The crate's error type: a typed error with `file:line:col`.
//!
//! Every error that refers to the C program carries a [`Loc`] in the user's file (mapped
//! through the `#line` markers of the preprocessed text).

use std::fmt;

/// A position in a source file, 1-based.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Loc {
    /// File name as the preprocessor wrote it.
    pub file: String,
    /// Line (1-based).
    pub line: u32,
    /// Column (1-based, in bytes).
    pub col: u32,
}

impl fmt::Display for Loc {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}:{}", self.file, self.line, self.col)
    }
}

/// Errors of the C front end and the lowering.
#[derive(Debug, thiserror::Error)]
pub enum CirError {
    /// The file could not be read.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: String,
        /// The cause.
        source: std::io::Error,
    },
    /// `gcc -E` failed.
    #[error("{path}: preprocessor failed: {message}")]
    Preprocess {
        /// The file.
        path: String,
        /// gcc's diagnostics.
        message: String,
    },
    /// lang-c rejected the preprocessed text.
    #[error("{loc}: syntax error: unexpected token, expected one of {expected}")]
    Syntax {
        /// Where.
        loc: Loc,
        /// The tokens lang-c expected.
        expected: String,
    },
    /// A construct the lowering does not support (rejected, never silently dropped).
    #[error("{loc}: unsupported: {what}")]
    Unsupported {
        /// Where.
        loc: Loc,
        /// The construct.
        what: String,
    },
    /// The program is not valid C as far as the lowering can tell.
    #[error("{loc}: {message}")]
    Invalid {
        /// Where.
        loc: Loc,
        /// What is wrong.
        message: String,
    },
}
