//! The checker (placeholder).

use crate::ast::Program;
use crate::diag::Diagnostic;

/// Checks a parsed program; `src` is the text it was parsed from (for snippets).
pub fn check(_prog: &Program, _src: &str) -> Vec<Diagnostic> {
    Vec::new()
}
