//! The pre-scan of the parser: the raw text (comments and `{...}` identifiers skipped) checked
//! for what the grammar must never see, before it runs (see the doc of the parent module):
//! nesting deeper than the limits (`too-deep`) and the unsupported constructs
//! (`unsupported-concurrency`, `unsupported`).

use crate::ast::{MAX_PAREN_DEPTH, MAX_STMT_DEPTH};
use crate::diag::{Diagnostic, span_at};

/// Keywords of concurrent Boolean programs, rejected with `unsupported-concurrency`.
pub(super) const CONCURRENCY_KEYWORDS: [&str; 6] = [
    "start_thread",
    "end_thread",
    "atomic_begin",
    "atomic_end",
    "sync",
    "thread_local",
];

fn is_ident_start(c: u8) -> bool {
    c.is_ascii_alphabetic() || c == b'_' || c == b'$'
}

pub(super) fn is_ident_char(c: u8) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, b'_' | b'$' | b'#' | b'-')
}

/// The ordinary comments of `src` as byte ranges: `// ...` lines other than the `//@` and
/// `//@@` annotations, and `/* ... */` blocks (an unterminated one runs to the end). The
/// canonical printer does not keep them, so a formatter must not silently drop them.
pub fn comments(src: &str) -> Vec<(usize, usize)> {
    let b = src.as_bytes();
    let n = b.len();
    let mut out = Vec::new();
    let mut i = 0;
    while i < n {
        match (b[i], b.get(i + 1).copied()) {
            (b'/', Some(b'/')) => {
                let end = b[i..].iter().position(|&c| c == b'\n').map_or(n, |p| i + p);
                if b.get(i + 2) != Some(&b'@') {
                    out.push((i, end));
                }
                i = end;
            }
            (b'/', Some(b'*')) => {
                let end = find(b, i + 2, b"*/").map_or(n, |p| p + 2);
                out.push((i, end));
                i = end;
            }
            (b'{', _) => {
                i = b[i..]
                    .iter()
                    .position(|&c| c == b'}' || c == b'\n')
                    .map_or(n, |p| i + p + 1);
            }
            _ => i += 1,
        }
    }
    out
}

/// What came before, for the pre-scan's few context-dependent checks.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Prev<'s> {
    Start,
    Word(&'s str),
    Punct(u8),
    Other,
}

/// The state of the pre-scan.
struct Prescan<'s> {
    src: &'s str,
    /// The unsupported constructs found so far.
    errs: Vec<Diagnostic>,
    /// Open parentheses/brackets; for each level (plus the outermost), the prefix operators
    /// still waiting for their operand at that level.
    pending: Vec<usize>,
    /// Open parentheses + pending prefix operators.
    nesting: usize,
    stmt_depth: usize,
    max_nesting: usize,
    max_stmt_depth: usize,
    prev: Prev<'s>,
}

/// Scans the raw text for what must be rejected before the grammar runs (see the module doc).
/// Too-deep nesting stops the scan at once; unsupported constructs are all collected. Returns
/// the deepest parenthesis/negation nesting plus the deepest `if`/`while` nesting.
pub(super) fn prescan(src: &str) -> Result<usize, Vec<Diagnostic>> {
    let b = src.as_bytes();
    let n = b.len();
    let mut s = Prescan {
        src,
        errs: Vec::new(),
        pending: vec![0],
        nesting: 0,
        stmt_depth: 0,
        max_nesting: 0,
        max_stmt_depth: 0,
        prev: Prev::Start,
    };
    let mut i = 0;
    while i < n {
        let c = b[i];
        let next = b.get(i + 1).copied();
        match c {
            b' ' | b'\t' | b'\r' | b'\n' | 0x0c => i += 1,
            b'/' if next == Some(b'/') => {
                i = b[i..]
                    .iter()
                    .position(|&c| c == b'\n')
                    .map_or(n, |p| i + p + 1);
            }
            b'/' if next == Some(b'*') => {
                i = find(b, i + 2, b"*/").map_or(n, |p| p + 2);
            }
            b'{' => i = s.escaped_name(i),
            b'(' | b'[' => {
                s.pending.push(0);
                s.deeper(i)?;
                s.prev = Prev::Punct(c);
                i += 1;
            }
            b')' | b']' => {
                if s.pending.len() > 1 {
                    let top = s.pending.pop().unwrap_or(0);
                    s.nesting -= top + 1;
                    s.operand_done();
                }
                s.prev = Prev::Punct(c);
                i += 1;
            }
            b'!' | b'~' if !(c == b'!' && next == Some(b'=')) => {
                if let Some(top) = s.pending.last_mut() {
                    *top += 1;
                }
                s.deeper(i)?;
                s.prev = Prev::Punct(c);
                i += 1;
            }
            b'*' | b'?' => {
                s.operand_done();
                s.prev = Prev::Punct(c);
                i += 1;
            }
            b':' if next == Some(b'=') => {
                s.prev = Prev::Other;
                i += 2;
            }
            c if c.is_ascii_digit() => {
                while i < n && b[i].is_ascii_digit() {
                    i += 1;
                }
                s.operand_done();
                s.prev = Prev::Other;
            }
            c if is_ident_start(c) => {
                let start = i;
                while i < n && is_ident_char(b[i]) {
                    i += 1;
                }
                s.word(start, i)?;
            }
            b';' | b':' => {
                s.prev = Prev::Punct(c);
                i += 1;
            }
            _ => {
                s.prev = Prev::Other;
                i += 1;
            }
        }
    }
    if s.errs.is_empty() {
        Ok(s.max_nesting + s.max_stmt_depth)
    } else {
        Err(s.errs)
    }
}

impl<'s> Prescan<'s> {
    /// The error for nesting deeper than `limit`.
    fn too_deep(&self, what: &str, limit: usize, start: usize, end: usize) -> Vec<Diagnostic> {
        vec![Diagnostic::error(
            "too-deep",
            format!("{what} nested deeper than {limit} levels"),
            span_at(self.src, start, end),
            self.src,
        )]
    }

    /// An operand ended at the current level: its prefix operators are complete.
    fn operand_done(&mut self) {
        if let Some(top) = self.pending.last_mut() {
            self.nesting -= *top;
            *top = 0;
        }
    }

    /// One more open parenthesis or pending negation, at byte `i`.
    fn deeper(&mut self, i: usize) -> Result<(), Vec<Diagnostic>> {
        self.nesting += 1;
        self.max_nesting = self.max_nesting.max(self.nesting);
        if self.nesting > MAX_PAREN_DEPTH {
            return Err(self.too_deep("parentheses and negations are", MAX_PAREN_DEPTH, i, i + 1));
        }
        Ok(())
    }

    /// A `{` at byte `i`: an escaped name (an operand) when a `}` closes it on the same line
    /// with no other brace in between. Where the scan goes on.
    fn escaped_name(&mut self, i: usize) -> usize {
        let b = self.src.as_bytes();
        let close = b[i + 1..]
            .iter()
            .position(|&c| matches!(c, b'{' | b'}' | b'\n' | b'\r'))
            .map(|p| i + 1 + p);
        match close {
            Some(j) if b[j] == b'}' && j > i + 1 => {
                self.operand_done();
                self.prev = Prev::Word("{}");
                j + 1
            }
            _ => {
                self.prev = Prev::Other;
                i + 1
            }
        }
    }

    /// The word `src[start..end]`: `if`/`while` nesting, and the unsupported constructs
    /// (`abortif`, a stand-alone `constrain`, concurrency keywords and thread-start labels).
    fn word(&mut self, start: usize, end: usize) -> Result<(), Vec<Diagnostic>> {
        let src = self.src;
        let word = &src[start..end];
        match word {
            "if" | "while" => {
                self.stmt_depth += 1;
                self.max_stmt_depth = self.max_stmt_depth.max(self.stmt_depth);
                if self.stmt_depth > MAX_STMT_DEPTH {
                    return Err(self.too_deep(
                        "`if`/`while` statements are",
                        MAX_STMT_DEPTH,
                        start,
                        end,
                    ));
                }
            }
            "fi" | "od" => self.stmt_depth = self.stmt_depth.saturating_sub(1),
            "abortif" => self.errs.push(Diagnostic::error(
                "unsupported",
                "`abortif` is not supported (a CPROVER dialect feature)",
                span_at(src, start, end),
                src,
            )),
            "constrain" if starts_statement(self.prev) => self.errs.push(Diagnostic::error(
                "unsupported",
                "stand-alone `constrain(e);` is not supported; \
                 write `x := e constrain c;`",
                span_at(src, start, end),
                src,
            )),
            w if CONCURRENCY_KEYWORDS.contains(&w) => self.errs.push(Diagnostic::error(
                "unsupported-concurrency",
                format!(
                    "concurrency construct `{w}` is not supported \
                     (sequential Boolean programs only)"
                ),
                span_at(src, start, end),
                src,
            )),
            w if w.starts_with("ASYNC_") && is_label_colon(src.as_bytes(), end) => {
                self.errs.push(Diagnostic::error(
                    "unsupported-concurrency",
                    format!(
                        "concurrency construct `{w}:` (thread start) is not supported \
                         (sequential Boolean programs only)"
                    ),
                    span_at(src, start, end),
                    src,
                ))
            }
            _ => {}
        }
        if word != "schoose" {
            self.operand_done();
        }
        self.prev = Prev::Word(word);
        Ok(())
    }
}

/// True when a statement may start after `prev` (for spotting a stand-alone `constrain`).
fn starts_statement(prev: Prev<'_>) -> bool {
    match prev {
        Prev::Punct(b';') | Prev::Punct(b':') => true,
        Prev::Word(w) => matches!(w, "begin" | "then" | "else" | "do" | "fi" | "od"),
        _ => false,
    }
}

/// True when the word ending at `i` is followed by a label colon (`:` but not `:=`).
fn is_label_colon(b: &[u8], mut i: usize) -> bool {
    while i < b.len() && matches!(b[i], b' ' | b'\t' | b'\r' | b'\n') {
        i += 1;
    }
    b.get(i) == Some(&b':') && b.get(i + 1) != Some(&b'=')
}

/// The first occurrence of `needle` in `hay` at or after `from`.
fn find(hay: &[u8], from: usize, needle: &[u8]) -> Option<usize> {
    hay.get(from..)?
        .windows(needle.len())
        .position(|w| w == needle)
        .map(|p| from + p)
}
