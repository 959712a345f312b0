//! Diagnostics: every problem found in a `.bp` file, with its position and offending text.
//!
//! The parser and the checker both report through [`Diagnostic`]; nothing here prints. A
//! diagnostic renders as `file:line:col: error[code]: message: `text`` so that editors and
//! people can jump to it. The checker collects all of them; the parser stops at the first
//! syntax error (pest reports one), but still reports it with a position.

use crate::ast::Span;
use serde::{Deserialize, Serialize};
use std::fmt;

/// How bad a diagnostic is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Severity {
    /// The program is rejected.
    Error,
    /// The program is accepted, but something looks wrong.
    Warning,
}

/// One problem in a `.bp` file.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Diagnostic {
    /// Error or warning.
    pub severity: Severity,
    /// A stable short code, e.g. `syntax`, `undeclared-var`, `unsupported-concurrency`.
    pub code: String,
    /// What is wrong, in a short sentence.
    pub message: String,
    /// Where (line and column are 1-based).
    pub span: Span,
    /// The offending text (possibly shortened); empty when there is none (e.g. end of file).
    pub snippet: String,
}

impl Diagnostic {
    /// An error at `span` of `src`, quoting the text there (first line, at most 60 characters).
    pub fn error(code: &str, message: impl Into<String>, span: Span, src: &str) -> Diagnostic {
        Diagnostic {
            severity: Severity::Error,
            code: code.to_string(),
            message: message.into(),
            span,
            snippet: snippet_of(span.text(src)),
        }
    }

    /// A warning at `span` of `src`.
    pub fn warning(code: &str, message: impl Into<String>, span: Span, src: &str) -> Diagnostic {
        Diagnostic {
            severity: Severity::Warning,
            ..Diagnostic::error(code, message, span, src)
        }
    }

    /// True for errors.
    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }

    /// Renders as `file:line:col: error[code]: message: `snippet``.
    pub fn render(&self, file: &str) -> String {
        let sev = match self.severity {
            Severity::Error => "error",
            Severity::Warning => "warning",
        };
        let mut s = format!(
            "{file}:{}:{}: {sev}[{}]: {}",
            self.span.line, self.span.col, self.code, self.message
        );
        if !self.snippet.is_empty() {
            s.push_str(&format!(": `{}`", self.snippet));
        }
        s
    }
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.render("<input>"))
    }
}

/// The first line of `text`, at most 60 characters, with `...` when shortened.
pub fn snippet_of(text: &str) -> String {
    let first = text.lines().next().unwrap_or("").trim_end();
    let shortened: String = first.chars().take(60).collect();
    if shortened.len() < text.trim_end().len() {
        format!("{shortened}...")
    } else {
        shortened
    }
}

/// Line and column (1-based, column in characters) of byte offset `pos` in `src`.
pub fn line_col(src: &str, pos: usize) -> (u32, u32) {
    let pos = pos.min(src.len());
    let before = &src[..floor_char_boundary(src, pos)];
    let line = before.matches('\n').count() as u32 + 1;
    let col = before
        .rsplit_once('\n')
        .map_or(before, |(_, rest)| rest)
        .chars()
        .count() as u32
        + 1;
    (line, col)
}

/// A span over `start..end` of `src` with its line and column computed.
pub fn span_at(src: &str, start: usize, end: usize) -> Span {
    let (line, col) = line_col(src, start);
    Span {
        start,
        end: end.max(start),
        line,
        col,
    }
}

fn floor_char_boundary(s: &str, mut i: usize) -> usize {
    while i > 0 && !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_col_counts_lines_and_characters() {
        let src = "ab\ncdé\nf";
        assert_eq!(line_col(src, 0), (1, 1));
        assert_eq!(line_col(src, 3), (2, 1));
        assert_eq!(line_col(src, 7), (2, 4));
        assert_eq!(line_col(src, 8), (3, 1));
    }

    #[test]
    fn render_has_position_code_and_snippet() {
        let src = "decl x;\nvoid main() begin y := T; end";
        let d = Diagnostic::error(
            "undeclared-var",
            "undeclared variable",
            span_at(src, 26, 27),
            src,
        );
        assert_eq!(
            d.render("a.bp"),
            "a.bp:2:19: error[undeclared-var]: undeclared variable: `y`"
        );
    }
}
