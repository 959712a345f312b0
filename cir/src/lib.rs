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
    load_on_large_stack(path, opts, false)
}

/// [`load_file`] of a C source held in a string, for the crate's unit tests: written to a file
/// of its own under the system's temporary directory (the tests run in parallel).
#[cfg(test)]
pub(crate) fn load_test_source(src: &str, opts: &LowerOptions) -> Program {
    use std::sync::atomic::{AtomicUsize, Ordering};
    static NEXT: AtomicUsize = AtomicUsize::new(0);
    let dir = std::env::temp_dir().join(format!("cir-unit-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let path = dir.join(format!("t{}.c", NEXT.fetch_add(1, Ordering::Relaxed)));
    std::fs::write(&path, src).expect("write the test's C file");
    load_file(&path, opts).expect("the test's program lowers")
}

/// [`load_file`] for a program to verify: one without a function `main` (an empty file, a
/// library) is an input error located at the end of the file, since every tool starts there.
pub fn load_program(path: &std::path::Path, opts: &LowerOptions) -> Result<Program, CirError> {
    load_on_large_stack(path, opts, true)
}

fn load_on_large_stack(
    path: &std::path::Path,
    opts: &LowerOptions,
    require_main: bool,
) -> Result<Program, CirError> {
    // lang-c and the lowering recurse per level of nesting: give them a large stack
    // (`frontend::PARSE_STACK`), whatever the caller's; on this thread if none can be started.
    let run = || load_file_here(path, opts, require_main);
    let joined = std::thread::scope(|scope| {
        std::thread::Builder::new()
            .name("cir-load".into())
            .stack_size(frontend::PARSE_STACK)
            .spawn_scoped(scope, run)
            .ok()
            .map(|handle| handle.join())
    });
    match joined {
        Some(Ok(result)) => result,
        Some(Err(panic)) => std::panic::resume_unwind(panic),
        None => load_file_here(path, opts, require_main),
    }
}

fn load_file_here(
    path: &std::path::Path,
    opts: &LowerOptions,
    require_main: bool,
) -> Result<Program, CirError> {
    let parsed = frontend::parse_file(path, &frontend::FrontendOptions::default())?;
    let mut prog = lower::lower(&parsed, opts)?;
    // Every tool starts at `main`: a program without one (an empty file, a library) is an
    // input error here, not an ill-formed abstraction later.
    if require_main && !prog.functions.iter().any(|f| f.name == "main") {
        // At the end of the file (line 1 of a file that declares nothing).
        let (line, col) = match parsed.lines.position(parsed.source.len()) {
            (_, 0, _) => (1, 1),
            (_, line, col) => (line, col),
        };
        return Err(CirError::Invalid {
            loc: Loc {
                file: parsed.path.clone(),
                line,
                col,
            },
            message: if parsed.unit.0.is_empty() {
                "the file declares nothing: there is no function `main` to verify".into()
            } else {
                "there is no function `main` (with a body) to verify".into()
            },
        });
    }
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
