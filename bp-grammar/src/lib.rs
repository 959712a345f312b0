//! The Boolean-program (`.bp`) language: the API boundary between every tool of the toolkit.
//!
//! Owns the grammar ([`parse()`]), the typed AST with spans ([`ast`]), the well-formedness
//! checker ([`check()`]), the canonical printer ([`print()`]) and the trace format ([`trace`]) that
//! `bebop` writes and `newton`/`constrain` read. Knows nothing of C, SMT or BDDs.
//!
//! ```
//! let src = "decl g; void main() begin g := *; assert(g | !g); end";
//! let prog = bp_grammar::parse(src).expect("parses");
//! assert!(bp_grammar::check(&prog, src).is_empty());
//! let text = bp_grammar::print(&prog);
//! assert_eq!(bp_grammar::parse(&text).expect("re-parses"), prog);
//! ```
#![deny(missing_docs)]

pub mod ast;
pub mod check;
pub mod diag;
pub mod parse;
pub mod print;
pub mod trace;

pub use ast::*;
pub use check::check;
pub use diag::{Diagnostic, Severity};
pub use parse::{ParseOptions, Precedence, comments, parse, parse_with};
pub use print::{print, print_expr, print_stmt_head};

/// Parses and checks `src`: the program if it is well-formed, otherwise every error found
/// (warnings are dropped; use [`parse()`] and [`check()`] separately to see them).
pub fn parse_and_check(src: &str, opts: &ParseOptions) -> Result<Program, Vec<Diagnostic>> {
    let prog = parse_with(src, opts)?;
    let errors: Vec<Diagnostic> = check(&prog, src)
        .into_iter()
        .filter(Diagnostic::is_error)
        .collect();
    if errors.is_empty() {
        Ok(prog)
    } else {
        Err(errors)
    }
}
