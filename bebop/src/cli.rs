//! The command line: `bebop [OPTIONS] FILE.bp`.
//!
//! Prints `VERIFICATION SUCCESSFUL` (exit 0) or `VERIFICATION FAILED` (exit 10) on the first
//! line of standard output, then for a failure a readable trace (one line per step, indented by
//! call depth). Input errors (missing file, syntax, ill-formed program) print every diagnostic
//! on standard error and exit 2; bad flags exit 1; an internal error exits 6; a program too
//! large for the BDD library exits 5 (no verdict). Exit codes: [`cli_common::exit`].

use crate::{BebopError, Options, Property, Verdict, verify};
use clap::Parser;
use cli_common::exit;
use std::io::Write;
use std::path::PathBuf;

/// BDD-based reachability checker for Boolean programs (Ball & Rajamani's Bebop).
///
/// Checks whether an `assert` of FILE can fail or a statement labelled SLIC_ERROR can be
/// reached (or, with --label, a statement with that label), and prints a trace if so.
#[derive(Parser, Debug)]
#[command(
    name = "bebop",
    version,
    after_help = "Exit codes: 0 safe (VERIFICATION SUCCESSFUL), 10 error reachable (VERIFICATION FAILED, \
                  trace follows), 2 input error (missing file, syntax or checker errors, all listed \
                  as file:line:col), 1 usage error, 5 no verdict (e.g. too many variables), \
                  6 internal error.\n\nThe .bp language and its semantics: docs/bp-semantics.md; \
                  the JSON trace format: bp-grammar/src/trace.rs (format bebop-trace/1)."
)]
pub struct Cli {
    /// The Boolean program (.bp) to check.
    pub file: PathBuf,
    /// Check whether a statement labelled L is reachable (asserts then act as assumes).
    #[arg(short = 'l', long = "label", value_name = "L")]
    pub label: Option<String>,
    /// Write the error trace as JSON (format bebop-trace/1) to FILE.
    #[arg(long, value_name = "FILE")]
    pub trace_json: Option<PathBuf>,
    /// Print the reachable valuations before every statement.
    #[arg(long)]
    pub invariants: bool,
    /// Print statistics (sizes, iterations, time).
    #[arg(long)]
    pub stats: bool,
    /// Read operators with CPROVER's precedence instead of Moped/SLAM's.
    #[arg(long)]
    pub cprover_precedence: bool,
    /// Print only the verdict line.
    #[arg(short, long)]
    pub quiet: bool,
    /// Log progress to standard error (repeat for more; BEBOP_LOG or RUST_LOG filter it).
    #[arg(short, long, action = clap::ArgAction::Count)]
    pub verbose: u8,
}

/// Runs the command line with `args` (including the program name), writing to `out` and `err`;
/// returns the exit code.
pub fn run_cli(args: Vec<String>, out: &mut dyn Write, err: &mut dyn Write) -> i32 {
    let cli = match Cli::try_parse_from(args) {
        Ok(c) => c,
        Err(e) => {
            use clap::error::ErrorKind;
            let text = e.render().to_string();
            return match e.kind() {
                ErrorKind::DisplayHelp | ErrorKind::DisplayVersion => {
                    let _ = write!(out, "{text}");
                    exit::SAFE
                }
                _ => {
                    let _ = write!(err, "{text}");
                    exit::USAGE
                }
            };
        }
    };
    cli_common::logging::init(cli.verbose, "BEBOP_LOG");
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        run(&cli, &mut *out, &mut *err)
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

fn run(cli: &Cli, out: &mut dyn Write, err: &mut dyn Write) -> i32 {
    let file = cli.file.display().to_string();
    let src = match std::fs::read_to_string(&cli.file) {
        Ok(s) => s,
        Err(e) => {
            let _ = writeln!(err, "bebop: cannot read {file}: {e}");
            return exit::INPUT_ERROR;
        }
    };
    let popts = bp_grammar::ParseOptions {
        precedence: if cli.cprover_precedence {
            bp_grammar::Precedence::Cprover
        } else {
            bp_grammar::Precedence::Moped
        },
    };
    let prog = match bp_grammar::parse_with(&src, &popts) {
        Ok(p) => p,
        Err(diags) => {
            for d in &diags {
                let _ = writeln!(err, "{}", d.render(&file));
            }
            return exit::INPUT_ERROR;
        }
    };
    let diags = bp_grammar::check(&prog, &src);
    for d in &diags {
        let _ = writeln!(err, "{}", d.render(&file));
    }
    if diags.iter().any(|d| d.is_error()) {
        return exit::INPUT_ERROR;
    }
    let property = match &cli.label {
        Some(l) => {
            let occurs = prog.procs.iter().any(|p| {
                p.stmts_preorder()
                    .iter()
                    .any(|(_, s)| s.labels.iter().any(|x| x.name == *l))
            });
            if !occurs {
                let _ = writeln!(err, "bebop: warning: no statement is labelled `{l}`");
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
        trace_budget: None,
        invariant_hide: Vec::new(),
        invariant_at: None,
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
            if let Some(path) = &cli.trace_json
                && let Err(e) = std::fs::write(path, tr.to_json())
            {
                let _ = writeln!(err, "bebop: cannot write {}: {e}", path.display());
                return exit::INPUT_ERROR;
            }
            exit::UNSAFE
        }
    };
    if !cli.quiet {
        if let Some(invs) = &outcome.invariants {
            let _ = write!(out, "{}", crate::report::render_invariants(invs));
        }
        if cli.stats {
            let _ = write!(out, "{}", crate::report::render_stats(&outcome.stats));
        }
    }
    code
}
