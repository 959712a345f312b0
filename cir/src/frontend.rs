//! The C front end: preprocess with `gcc -E`, parse with `lang-c`
//! (GNU C11 flavour: `__attribute__`, `__extension__`, `__restrict`, …), and map byte offsets
//! of the preprocessed text back to the user's file, line and column through the `#line`
//! markers that `gcc -E` writes.
//!
//! Stack safety: lang-c's parser and the lowering recurse once per level of nesting (about
//! 2.5 KiB per level in a release build), so a file nesting a few thousand parentheses would
//! overflow an 8 MiB main-thread stack. The token stream's bracket nesting and runs of prefix
//! operators are bounded first ([`MAX_NESTING`], a located error beyond), and
//! [`crate::load_file`] parses and lowers on a thread with a large stack
//! ([`PARSE_STACK`]), which also covers the chains no bracket shows (casts, `else if`).
//!
//! `.i` files are already preprocessed: `gcc -E` would output nothing for them (gcc treats them
//! as "cpp-output" and skips preprocessing), so they are read as they are, with a `# 1 "file"`
//! marker prepended.

use std::path::Path;
use std::process::Command;

use lang_c::ast::TranslationUnit;
use lang_c::driver::{Config, Flavor, parse_preprocessed};

use crate::error::{CirError, Loc};

/// Front-end options.
#[derive(Debug, Clone)]
pub struct FrontendOptions {
    /// The preprocessor command (default `gcc`).
    pub cpp: String,
    /// Extra preprocessor arguments (`-D`, `-I`, …).
    pub cpp_args: Vec<String>,
}

impl Default for FrontendOptions {
    fn default() -> Self {
        FrontendOptions {
            cpp: "gcc".into(),
            cpp_args: Vec::new(),
        }
    }
}

/// A parsed translation unit with its preprocessed text and position map.
#[derive(Debug)]
pub struct Parsed {
    /// The file as given.
    pub path: String,
    /// The preprocessed text (offsets of the AST's spans refer to it).
    pub source: String,
    /// The AST.
    pub unit: TranslationUnit,
    /// Offset to position map.
    pub lines: LineMap,
}

/// Maps byte offsets of preprocessed text to positions in the original files.
#[derive(Debug, Clone)]
pub struct LineMap {
    /// Byte offset where each preprocessed line starts.
    starts: Vec<usize>,
    /// For each preprocessed line: (file index, original line); `None` for marker lines.
    origin: Vec<(u32, u32)>,
    /// File names, in order of first appearance.
    pub files: Vec<String>,
}

impl LineMap {
    /// Builds the map from preprocessed text.
    pub fn new(source: &str, default_file: &str) -> LineMap {
        let mut files = vec![default_file.to_string()];
        let mut starts = Vec::new();
        let mut origin = Vec::new();
        let (mut file, mut line) = (0u32, 1u32);
        let mut off = 0;
        for text in source.split_inclusive('\n') {
            starts.push(off);
            off += text.len();
            origin.push((file, line));
            if let Some((l, f)) = parse_marker(text) {
                let idx = match files.iter().position(|x| *x == f) {
                    Some(i) => i,
                    None => {
                        files.push(f);
                        files.len() - 1
                    }
                };
                file = idx as u32;
                line = l;
            } else {
                line += 1;
            }
        }
        LineMap {
            starts,
            origin,
            files,
        }
    }

    /// The (file index, line, column) of a byte offset.
    pub fn position(&self, offset: usize) -> (u32, u32, u32) {
        if self.starts.is_empty() {
            return (0, 1, 1);
        }
        let i = match self.starts.binary_search(&offset) {
            Ok(i) => i,
            Err(i) => i.saturating_sub(1),
        };
        let (f, l) = self.origin[i];
        (f, l, (offset.saturating_sub(self.starts[i]) + 1) as u32)
    }

    /// The [`Loc`] of a byte offset.
    pub fn loc(&self, offset: usize) -> Loc {
        let (f, line, col) = self.position(offset);
        Loc {
            file: self.files[f as usize].clone(),
            line,
            col,
        }
    }
}

/// Parses `# 12 "file" flags` and `#line 12 "file"`.
fn parse_marker(text: &str) -> Option<(u32, String)> {
    let t = text.trim_start();
    let rest = t.strip_prefix('#')?.trim_start();
    let rest = rest.strip_prefix("line").unwrap_or(rest).trim_start();
    let digits: String = rest.chars().take_while(|c| c.is_ascii_digit()).collect();
    if digits.is_empty() {
        return None;
    }
    let line: u32 = digits.parse().ok()?;
    let after = rest[digits.len()..].trim_start();
    let name = after.strip_prefix('"')?;
    let end = name.find('"')?;
    Some((line, name[..end].to_string()))
}

/// Preprocesses (unless the file ends in `.i`) and parses a C file.
pub fn parse_file(path: &Path, opts: &FrontendOptions) -> Result<Parsed, CirError> {
    let shown = path.display().to_string();
    let source = if path.extension().is_some_and(|e| e == "i") {
        let text = std::fs::read_to_string(path).map_err(|source| CirError::Io {
            path: shown.clone(),
            source,
        })?;
        format!("# 1 \"{shown}\"\n{text}")
    } else {
        let out = Command::new(&opts.cpp)
            .arg("-E")
            .args(&opts.cpp_args)
            .arg(path)
            .output()
            .map_err(|source| CirError::Io {
                path: format!("{} (running {})", shown, opts.cpp),
                source,
            })?;
        if !out.status.success() {
            return Err(CirError::Preprocess {
                path: shown,
                message: String::from_utf8_lossy(&out.stderr).trim().to_string(),
            });
        }
        String::from_utf8(out.stdout).map_err(|e| CirError::Preprocess {
            path: shown.clone(),
            message: format!("output is not UTF-8: {e}"),
        })?
    };
    parse_preprocessed_text(&shown, source)
}

/// The deepest nesting of parentheses, brackets and braces, and the longest run of prefix
/// operators, that the front end accepts (real programs stay in the dozens).
pub const MAX_NESTING: usize = 1000;

/// The most `++`/`--` tokens in one run of prefix operators. lang-c's parser backtracks over
/// each of them when the run does not end in an operand, in time exponential in their number
/// (20 take seconds, 30 hours); real programs have one or two.
pub const MAX_INC_DEC_RUN: usize = 4;

/// The stack of the thread [`crate::load_file`] parses and lowers on: reserved, committed
/// only as used; enough for [`MAX_NESTING`] levels with a wide margin.
pub const PARSE_STACK: usize = 256 << 20;

/// Rejects text nested more deeply than [`MAX_NESTING`], at the first token too deep: string
/// and character literals, comments and `#` lines are skipped.
fn check_nesting(source: &str, lines: &LineMap) -> Result<(), CirError> {
    let b = source.as_bytes();
    let (mut depth, mut prefix_run, mut inc_dec, mut i) = (0usize, 0usize, 0usize, 0usize);
    let mut line_start = true;
    while i < b.len() {
        let c = b[i];
        let next = b.get(i + 1).copied();
        if line_start && c == b'#' {
            i = b[i..]
                .iter()
                .position(|&c| c == b'\n')
                .map_or(b.len(), |p| i + p);
            continue;
        }
        line_start = c == b'\n' || (line_start && c.is_ascii_whitespace());
        match c {
            b'"' | b'\'' => {
                i += 1;
                while i < b.len() && b[i] != c && b[i] != b'\n' {
                    i += if b[i] == b'\\' { 2 } else { 1 };
                }
            }
            b'/' if next == Some(b'/') => {
                i = b[i..]
                    .iter()
                    .position(|&c| c == b'\n')
                    .map_or(b.len(), |p| i + p);
                continue;
            }
            b'/' if next == Some(b'*') => {
                i = b[i + 2..]
                    .windows(2)
                    .position(|w| w == b"*/")
                    .map_or(b.len(), |p| i + 2 + p + 1);
            }
            b'(' | b'[' | b'{' => depth += 1,
            b')' | b']' | b'}' => depth = depth.saturating_sub(1),
            b'-' | b'+' if next == Some(c) => {
                // `++`/`--`, one token (the lexer's longest match).
                prefix_run += 1;
                inc_dec += 1;
                i += 1;
            }
            b'!' | b'~' | b'-' | b'+' | b'*' | b'&' => prefix_run += 1,
            c if c.is_ascii_whitespace() => {}
            _ => (prefix_run, inc_dec) = (0, 0),
        }
        if matches!(c, b'(' | b'[' | b'{' | b')' | b']' | b'}') {
            (prefix_run, inc_dec) = (0, 0);
        }
        if inc_dec > MAX_INC_DEC_RUN {
            return Err(CirError::Unsupported {
                loc: lines.loc(i),
                what: format!("more than {MAX_INC_DEC_RUN} `++`/`--` in a row"),
            });
        }
        if depth > MAX_NESTING || prefix_run > MAX_NESTING {
            return Err(CirError::Unsupported {
                loc: lines.loc(i),
                what: format!(
                    "nesting deeper than {MAX_NESTING} levels (parentheses, brackets, braces or \
                     prefix operators)"
                ),
            });
        }
        i += 1;
    }
    Ok(())
}

/// Parses already preprocessed text (positions map through its `#line` markers; lines before
/// the first marker belong to `name`).
pub fn parse_preprocessed_text(name: &str, source: String) -> Result<Parsed, CirError> {
    let lines = LineMap::new(&source, name);
    check_nesting(&source, &lines)?;
    let config = Config {
        cpp_command: "gcc".into(),
        cpp_options: vec![],
        flavor: Flavor::GnuC11,
    };
    match parse_preprocessed(&config, source) {
        Ok(p) => Ok(Parsed {
            path: name.to_string(),
            source: p.source,
            unit: p.unit,
            lines,
        }),
        Err(e) => {
            let mut expected: Vec<&str> = e.expected.iter().copied().collect();
            expected.sort_unstable();
            Err(CirError::Syntax {
                loc: lines.loc(e.offset),
                expected: expected.join(" "),
            })
        }
    }
}
