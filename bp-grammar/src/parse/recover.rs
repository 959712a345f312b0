//! Error recovery at procedure boundaries. pest stops at the first syntax error; to report the
//! errors of the other procedures as well, the parse resumes at the next line that starts a
//! procedure (`void f(`, `bool g(`, `bool<2> h(`, after an optional `dfs`), with the text
//! before it blanked out (every byte but newlines a space), so that offsets, lines and columns
//! stay those of the file. Each resumed parse contributes its first syntax error; an error
//! that resynchronisation might have caused itself cannot arise, since the resumed text starts
//! at a procedure.

use super::grammar::{BpParser, Rule};
use super::syntax_error;
use crate::diag::Diagnostic;
use pest::Parser as _;

/// At most this many syntax errors are reported for one file (each costs a parse).
const MAX_SYNTAX_ERRORS: usize = 20;

/// `first`, the first syntax error of `src`, and the first syntax error of every later
/// procedure that has one.
pub(super) fn syntax_errors(src: &str, first: Diagnostic) -> Vec<Diagnostic> {
    let mut from = first.span.start;
    let mut errors = vec![first];
    while errors.len() < MAX_SYNTAX_ERRORS {
        let Some(start) = next_procedure_start(src, from) else {
            break;
        };
        let rest = blank_before(src, start);
        match BpParser::parse(Rule::program, &rest) {
            Ok(_) => break,
            Err(e) => {
                let d = syntax_error(&rest, &e);
                // Each round must move on: the next search starts after this error.
                if d.span.start <= from && errors.len() > 1 {
                    break;
                }
                from = d.span.start.max(from) + 1;
                errors.push(d);
            }
        }
    }
    errors
}

/// `src` with every byte before `start` that is not a newline replaced by a space.
fn blank_before(src: &str, start: usize) -> String {
    let mut s: String = src[..start]
        .bytes()
        .map(|b| if b == b'\n' { '\n' } else { ' ' })
        .collect();
    s.push_str(&src[start..]);
    s
}

/// The offset of the first line that starts a procedure whose head begins after `from`
/// (the line of `from` itself when the error is in front of its head, as in `decl g` followed
/// by `void main()`, which pest reports at `void`).
fn next_procedure_start(src: &str, from: usize) -> Option<usize> {
    let from = from.min(src.len());
    // Byte-wise: `from` may fall inside a character; `at` is always after a newline.
    let mut at = src.as_bytes()[..from]
        .iter()
        .rposition(|&b| b == b'\n')
        .map_or(0, |i| i + 1);
    while at < src.len() {
        let line_end = src[at..].find('\n').map_or(src.len(), |i| at + i);
        let line = &src[at..line_end];
        let head = at + (line.len() - line.trim_start().len());
        if head >= from && starts_procedure(line) {
            return Some(at);
        }
        at = line_end + 1;
    }
    None
}

/// Whether `line` starts with a procedure's head: `[dfs] void|bool[<n>] NAME (`.
fn starts_procedure(line: &str) -> bool {
    let mut t = line.trim_start();
    if let Some(r) = keyword(t, "dfs") {
        t = r;
    }
    // The name, after the return type and the blanks or `>` that end it.
    let name = if let Some(r) = keyword(t, "void") {
        r
    } else if let Some(r) = t.strip_prefix("bool") {
        let trimmed = r.trim_start();
        match trimmed.strip_prefix('<') {
            Some(w) => match w.split_once('>') {
                Some((n, rest)) if n.trim().chars().all(|c| c.is_ascii_digit()) => {
                    rest.trim_start()
                }
                _ => return false,
            },
            None if trimmed.len() < r.len() => trimmed,
            None => return false,
        }
    } else {
        return false;
    };
    let rest = if let Some(braced) = name.strip_prefix('{') {
        match braced.split_once('}') {
            Some((_, rest)) => rest,
            None => return false,
        }
    } else {
        let end = name
            .find(|c: char| !(c.is_ascii_alphanumeric() || "_$#-".contains(c)))
            .unwrap_or(name.len());
        if end == 0 {
            return false;
        }
        &name[end..]
    };
    rest.trim_start().starts_with('(')
}

/// `t` after the keyword `kw` and at least one blank.
fn keyword<'t>(t: &'t str, kw: &str) -> Option<&'t str> {
    let r = t.strip_prefix(kw)?;
    let trimmed = r.trim_start();
    (trimmed.len() < r.len()).then_some(trimmed)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn procedure_heads() {
        for yes in [
            "void main() begin",
            "  bool f(a, b)",
            "bool<2> g ()",
            "bool <3> g(x)",
            "dfs void h()",
            "void {a b}(x)",
        ] {
            assert!(starts_procedure(yes), "{yes}");
        }
        for no in [
            "decl x;",
            "voidmain()",
            "bool<x> f()",
            "  x := f();",
            "void main",
            "boolean f()",
        ] {
            assert!(!starts_procedure(no), "{no}");
        }
    }

    #[test]
    fn blanking_keeps_offsets_and_lines() {
        let src = "décl x;\nvoid main() begin end\n";
        let b = blank_before(src, 9);
        assert_eq!(b.len(), src.len());
        assert_eq!(&b[9..], &src[9..]);
        assert_eq!(b.matches('\n').count(), src.matches('\n').count());
    }
}
