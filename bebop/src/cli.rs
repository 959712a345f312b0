//! The command line: `bebop [OPTIONS] FILE.bp`, and `bebop --check FILE...`.
//!
//! Prints `VERIFICATION SUCCESSFUL` (exit 0) or `VERIFICATION FAILED` (exit 10) on the first
//! line of standard output, then for a failure a readable trace (one line per step, indented by
//! call depth). Input errors (missing file, syntax, ill-formed program, a `--label` no statement
//! carries) print every diagnostic on standard error, with the source line and a caret, and
//! exit 2; bad flags exit 1; an internal error exits 6; a program too large for the BDD library
//! exits 5 (no verdict). `--check` only parses and checks: diagnostics, exit 0 or 2. Statistics
//! go to standard error (measurements, not results). Exit codes: [`cli_common::exit`].

use crate::{BebopError, Options, Property, Verdict, verify};
use clap::Parser;
use cli_common::exit;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};

/// BDD-based reachability checker for Boolean programs (Ball & Rajamani's Bebop).
///
/// Checks whether an `assert` of FILE can fail or a statement labelled SLIC_ERROR can be
/// reached (or, with --label, a statement with that label), and prints a trace if so. With
/// --check, only parses and checks each FILE and prints its diagnostics.
#[derive(Parser, Debug)]
#[command(
    name = "bebop",
    version,
    after_help = "The .bp language and its semantics: docs/bp-semantics.md; the JSON trace \
                  format: bp-grammar/src/trace.rs (format bebop-trace/1). Formatting: bp-fmt."
)]
pub struct Cli {
    /// The Boolean program (.bp) to verify; with --check, any number of them.
    #[arg(value_name = "FILE", required = true)]
    pub files: Vec<PathBuf>,
    /// Only parse and check the files: print every diagnostic (errors and warnings); exit 0
    /// when every file is well-formed, 2 otherwise.
    #[arg(long)]
    pub check: bool,
    /// Check whether a statement labelled L is reachable (asserts then act as assumes). A label
    /// that no statement carries is an input error.
    #[arg(short = 'l', long = "label", value_name = "L")]
    pub label: Option<String>,
    /// Write the error trace as JSON (format bebop-trace/1) to FILE; when no error is
    /// reachable, FILE is removed (so it never holds the trace of an earlier run).
    #[arg(long = "json", visible_alias = "trace-json", value_name = "FILE")]
    pub json: Option<PathBuf>,
    /// Print the reachable valuations before every statement.
    #[arg(long)]
    pub invariants: bool,
    /// Print statistics (sizes, iterations, time) to standard error.
    #[arg(long)]
    pub stats: bool,
    /// Read operators with CPROVER's precedence instead of Moped/SLAM's.
    #[arg(long)]
    pub cprover_precedence: bool,
    /// Print only the verdict line (and the statistics, when asked).
    #[arg(short, long)]
    pub quiet: bool,
    /// Log progress to standard error (repeat for more; BEBOP_LOG or RUST_LOG filter it).
    #[arg(short, long, action = clap::ArgAction::Count)]
    pub verbose: u8,
}

/// What the exit codes mean for bebop (appended to the table in `--help`).
const EXIT_NOTES: [(i32, &str); 4] = [
    (
        exit::SAFE,
        "VERIFICATION SUCCESSFUL; with --check, every file is well-formed",
    ),
    (exit::UNSAFE, "VERIFICATION FAILED, the trace follows"),
    (exit::UNKNOWN, "too many variables for the BDD library"),
    (
        exit::INPUT_ERROR,
        "every diagnostic is listed; also an unknown --label",
    ),
];

/// Whether the process exits as soon as [`run_cli`] returns (set by the `bebop` binary, not
/// by tests that run the command in-process).
static EXITS_AFTER_RUN: AtomicBool = AtomicBool::new(false);

/// Declares that the process exits as soon as [`run_cli`] returns: the program and the
/// verdict (a long trace is millions of small strings) are then left to the process's exit
/// instead of being freed one by one, which on a large program costs a few percent of the run.
pub fn exit_after_run() {
    EXITS_AFTER_RUN.store(true, Ordering::Relaxed);
}

/// Frees `x`, unless the process is about to exit (see [`exit_after_run`]).
fn release<T>(x: T) {
    if EXITS_AFTER_RUN.load(Ordering::Relaxed) {
        std::mem::forget(x);
    }
}

/// Runs the command line with `args` (including the program name), writing to `out` and `err`;
/// returns the exit code.
pub fn run_cli(args: Vec<String>, out: &mut dyn Write, err: &mut dyn Write) -> i32 {
    let cli: Cli = match cli_common::args::try_parse_from(args, &EXIT_NOTES, out, err) {
        Ok(c) => c,
        Err(code) => return code,
    };
    if !cli.check && cli.files.len() != 1 {
        return cli_common::args::usage_error(
            err,
            "bebop: give one FILE to verify (several only with --check)",
        );
    }
    cli_common::logging::init(cli.verbose, "BEBOP_LOG");
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        if cli.check {
            check_files(&cli, &mut *err)
        } else {
            run(&cli, &mut *out, &mut *err)
        }
    }));
    match result {
        Ok(code) => code,
        Err(p) => {
            let msg = if let Some(s) = p.downcast_ref::<&str>() {
                (*s).to_string()
            } else if let Some(s) = p.downcast_ref::<String>() {
                s.clone()
            } else {
                "panic".into()
            };
            let _ = writeln!(err, "bebop: internal error: {msg}");
            exit::INTERNAL
        }
    }
}

/// The parser's options of the command line.
fn parse_options(cli: &Cli) -> bp_grammar::ParseOptions {
    bp_grammar::ParseOptions {
        precedence: if cli.cprover_precedence {
            bp_grammar::Precedence::Cprover
        } else {
            bp_grammar::Precedence::Moped
        },
    }
}

/// Reads, parses and checks `path`, printing every diagnostic to `err`: the program and its
/// text when it is well-formed, otherwise the exit code.
fn load(
    path: &Path,
    opts: &bp_grammar::ParseOptions,
    err: &mut dyn Write,
) -> Result<(bp_grammar::Program, String), i32> {
    let file = path.display().to_string();
    let src = match std::fs::read_to_string(path) {
        Ok(s) => s,
        Err(e) => {
            let _ = writeln!(err, "bebop: cannot read {file}: {e}");
            return Err(exit::INPUT_ERROR);
        }
    };
    let prog = match bp_grammar::parse_with(&src, opts) {
        Ok(p) => p,
        Err(diags) => {
            for d in &diags {
                let _ = writeln!(err, "{}", d.render_source(&file, &src));
            }
            return Err(exit::INPUT_ERROR);
        }
    };
    let diags = bp_grammar::check(&prog, &src);
    for d in &diags {
        let _ = writeln!(err, "{}", d.render_source(&file, &src));
    }
    if diags.iter().any(|d| d.is_error()) {
        return Err(exit::INPUT_ERROR);
    }
    Ok((prog, src))
}

/// `--check`: every file's diagnostics; 0 when all are well-formed, 2 otherwise.
fn check_files(cli: &Cli, err: &mut dyn Write) -> i32 {
    let opts = parse_options(cli);
    let mut code = exit::SAFE;
    for f in &cli.files {
        if let Err(c) = load(f, &opts, err) {
            code = c;
        }
    }
    code
}

fn run(cli: &Cli, out: &mut dyn Write, err: &mut dyn Write) -> i32 {
    let file = cli.files[0].display().to_string();
    if let Some(path) = &cli.json
        && let Err(e) = std::fs::remove_file(path)
        && e.kind() != std::io::ErrorKind::NotFound
    {
        let _ = writeln!(err, "bebop: cannot remove {}: {e}", path.display());
        return exit::INPUT_ERROR;
    }
    let (prog, src) = match load(&cli.files[0], &parse_options(cli), err) {
        Ok(p) => p,
        Err(code) => return code,
    };
    let property = match &cli.label {
        Some(l) => {
            let occurs = prog.procs.iter().any(|p| {
                p.stmts_preorder()
                    .iter()
                    .any(|(_, s)| s.labels.iter().any(|x| x.name == *l))
            });
            if !occurs {
                let _ = writeln!(err, "bebop: {file}: no statement is labelled `{l}`");
                return exit::INPUT_ERROR;
            }
            Property::Label(l.clone())
        }
        None => Property::AssertsAndSlicError,
    };
    let opts = Options {
        property,
        invariants: cli.invariants,
        program_name: file.clone(),
        source: Some(src.clone()),
        self_check: false,
        trace_budget: crate::TraceBudget::default(),
        invariant_hide: Vec::new(),
        invariant_at: None,
        remember_orders: false,
    };
    let outcome = match verify(&prog, &opts) {
        Ok(o) => o,
        Err(e) => {
            let _ = writeln!(err, "bebop: {e}");
            return match e {
                BebopError::NoMain => exit::INPUT_ERROR,
                BebopError::TooManyVariables { .. } => {
                    let _ = writeln!(out, "VERIFICATION UNKNOWN");
                    exit::UNKNOWN
                }
                BebopError::Internal(_) => exit::INTERNAL,
            };
        }
    };
    let code = match &outcome.verdict {
        Verdict::Safe => {
            let _ = writeln!(out, "VERIFICATION SUCCESSFUL");
            exit::SAFE
        }
        Verdict::Unsafe(tr) => {
            let _ = writeln!(out, "VERIFICATION FAILED");
            if !cli.quiet {
                let _ = write!(out, "{}", crate::report::render_trace(&prog, tr));
            }
            if let Some(path) = &cli.json
                && let Err(e) = std::fs::write(path, tr.to_json())
            {
                let _ = writeln!(err, "bebop: cannot write {}: {e}", path.display());
                return exit::INPUT_ERROR;
            }
            exit::UNSAFE
        }
    };
    if !cli.quiet
        && let Some(invs) = &outcome.invariants
    {
        let _ = write!(out, "{}", crate::report::render_invariants(invs));
    }
    if cli.stats {
        let _ = write!(err, "{}", crate::report::render_stats(&outcome.stats));
    }
    release(outcome);
    release(prog);
    code
}
