//! Diagnostics: every problem found in a `.bp` file, with its position and offending text.
//!
//! The parser and the checker both report through [`Diagnostic`]; nothing here prints. A
//! diagnostic renders as `file:line:col: error[code]: message: `text`` so that editors and
//! scripts can jump to it ([`Diagnostic::render`]), and, for people, with the source line and a
//! caret under the offending text as rustc does ([`Diagnostic::render_source`], drawn by the
//! `ariadne` crate under that same first line). The checker collects all of them; the parser
//! reports the first syntax error of each procedure (it resynchronises at procedure
//! boundaries).

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

    /// Renders as `file:line:col: error[code]: message: `snippet`` (the snippet left out when
    /// the message already quotes it).
    pub fn render(&self, file: &str) -> String {
        format!("{}: {}", self.head(file), self.message_with_snippet())
    }

    /// `file:line:col: error[code]`.
    fn head(&self, file: &str) -> String {
        let sev = match self.severity {
            Severity::Error => "error",
            Severity::Warning => "warning",
        };
        format!(
            "{file}:{}:{}: {sev}[{}]",
            self.span.line, self.span.col, self.code
        )
    }

    fn message_with_snippet(&self) -> String {
        if self.snippet.is_empty() || self.message.contains(&format!("`{}`", self.snippet)) {
            self.message.clone()
        } else {
            format!("{}: `{}`", self.message, self.snippet)
        }
    }

    /// Renders for people: [`Diagnostic::render`]'s line, then the source lines of the span in
    /// `src` (the text the diagnostic was made from) with a caret line under the offending
    /// text. Without colour, so that the text is the same on a terminal and in a file.
    pub fn render_source(&self, file: &str, src: &str) -> String {
        use ariadne::{Config, IndexType, Label, Report, ReportKind, Source};
        let start = floor_char_boundary(src, self.span.start.min(src.len()));
        let end = floor_char_boundary(src, self.span.end.clamp(start, src.len()));
        let head = self.head(file);
        let colour = match self.severity {
            Severity::Error => ariadne::Color::Red,
            Severity::Warning => ariadne::Color::Yellow,
        };
        let report = Report::build(ReportKind::Custom(&head, colour), (file, start..end))
            .with_config(
                Config::default()
                    .with_color(false)
                    .with_index_type(IndexType::Byte),
            )
            .with_message(self.message_with_snippet())
            .with_label(Label::new((file, start..end)).with_message("here"))
            .finish();
        let mut out = Vec::new();
        if report.write((file, Source::from(src)), &mut out).is_err() {
            return self.render(file);
        }
        // The first line is ariadne's header, coloured whatever the configuration says:
        // the plain line replaces it.
        let text = String::from_utf8_lossy(&out);
        match text.trim_end().split_once('\n') {
            Some((_, drawing)) => format!("{}\n{drawing}", self.render(file)),
            None => self.render(file),
        }
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

    #[test]
    fn a_quoted_snippet_is_not_repeated() {
        let src = "void main() begin mc := T; end";
        let d = Diagnostic::error(
            "undeclared-var",
            "undeclared variable `mc`",
            span_at(src, 18, 20),
            src,
        );
        assert_eq!(
            d.render("a.bp"),
            "a.bp:1:19: error[undeclared-var]: undeclared variable `mc`"
        );
    }

    #[test]
    fn render_source_shows_the_line_and_a_caret_under_the_plain_first_line() {
        let src = "decl x;\nvoid main() begin\n  y := T;\nend\n";
        let d = Diagnostic::error(
            "undeclared-var",
            "undeclared variable",
            span_at(src, 28, 29),
            src,
        );
        let text = d.render_source("a.bp", src);
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines[0], d.render("a.bp"), "{text}");
        let shown = lines
            .iter()
            .position(|l| l.ends_with("  y := T;"))
            .unwrap_or_else(|| panic!("the source line: {text}"));
        let caret = lines[shown + 1];
        let col = caret
            .find(|c: char| c != ' ' && c != '│' && c != '|')
            .expect("a mark");
        assert_eq!(col, lines[shown].find('y').expect("y"), "{text}");
        // At the end of the file, and with multi-byte text before the span.
        let src = "// é\nvoid main() begin skip;";
        let d = Diagnostic::error(
            "syntax",
            "expected `end`",
            span_at(src, src.len(), src.len()),
            src,
        );
        assert!(
            d.render_source("b.bp", src)
                .starts_with("b.bp:2:24: error[syntax]")
        );
    }
}
