//! `cir`: the C side of the toolkit. It parses C with `lang-c` after `gcc -E` ([`frontend`]),
//! records C types ([`types`]) and lowers every function to a small control-flow IR ([`ir`],
//! built by [`lower`]). Predicates ([`pred`]), weakest preconditions ([`wp`]), points-to
//! ([`pointsto`]), the Z3 encoding ([`smt`]) and the concrete interpreter ([`interp`]) build on
//! this IR.
//!
//! ```no_run
//! let prog = cir::load_file("prog.c".as_ref(), &cir::LowerOptions::default()).expect("valid C");
//! print!("{prog}");
//! ```

pub mod constprop;
pub mod error;
pub mod frontend;
pub mod interp;
pub mod ir;
pub mod lower;
pub mod pointsto;
pub mod pred;
pub mod smt;
pub mod types;
pub mod wp;

pub use error::{CirError, Loc};
pub use ir::Program;
pub use lower::LowerOptions;
pub use types::DataModel;

/// Preprocesses, parses and lowers a C file, then replaces reads of globals whose value is
/// known by constants ([`constprop`]; unless [`LowerOptions::keep_global_reads`]).
pub fn load_file(path: &std::path::Path, opts: &LowerOptions) -> Result<Program, CirError> {
    let parsed = frontend::parse_file(path, &frontend::FrontendOptions::default())?;
    let mut prog = lower::lower(&parsed, opts)?;
    if !opts.keep_global_reads {
        let report = constprop::propagate(&mut prog);
        tracing::debug!(
            tracked = report.tracked,
            replaced = report.replaced,
            "reads of constant globals replaced"
        );
    }
    Ok(prog)
}
