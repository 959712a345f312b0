//! The parser: `.bp` text to [`crate::ast::Program`] (placeholder until the grammar lands).

use crate::ast::Program;
use crate::diag::Diagnostic;

/// How unparenthesised mixes of binary operators are read (`bp-language.md` §1.4).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Precedence {
    /// Moped/SLAM (`bp.y`): `!` > `= !=` > `&` > `^` > `|` > `=>` (the default).
    #[default]
    Moped,
    /// CPROVER (`parser.y`): `'` > `&` > `|` > `^` > `=> = !=`.
    Cprover,
}

/// Options of the parser.
#[derive(Clone, Debug, Default)]
pub struct ParseOptions {
    /// Operator precedence dialect.
    pub precedence: Precedence,
}

/// Parses with default options.
pub fn parse(src: &str) -> Result<Program, Vec<Diagnostic>> {
    parse_with(src, &ParseOptions::default())
}

/// Parses `src`.
pub fn parse_with(src: &str, _opts: &ParseOptions) -> Result<Program, Vec<Diagnostic>> {
    let _ = src;
    unimplemented!("parser not written yet")
}
