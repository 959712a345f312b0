//! The `newton` command: `newton FILE.c FILE.bp TRACE.json` (SLAM's Newton). Is the abstract
//! error trace bebop found in `FILE.bp` (written by c2bp for `FILE.c`) a real execution of the C
//! program? Prints the replayed counterexample, or the shortest infeasible prefix and the new
//! predicates. Exit codes (`cli_common::exit`): 10 feasible, 0 infeasible, 5 unknown,
//! 2 input error, 1 usage error.

use std::path::PathBuf;
use std::process::ExitCode;

use cli_common::exit;
use std::io::Write as _;

/// SLAM's Newton: replays an abstract error trace on the C program.
///
/// The trace (bebop --json) is mapped back to C edges through the .bp's annotations; the
/// path formula is built by weakest preconditions through calls and returns and decided by Z3.
/// A satisfiable path is replayed on the concrete interpreter with the solver's input values:
/// only a replay that reaches the error is reported FEASIBLE. An infeasible path yields its
/// shortest infeasible prefix, a minimal core of conditions and new predicates (predicate-file
/// format) that c2bp can use next.
#[derive(clap::Parser, Debug)]
#[command(
    name = "newton",
    version,
    after_help = "Exit codes: 10 feasible (a real error path), 0 infeasible, 5 unknown, \
                  1 usage error, 2 input error (missing file, C or trace error, .bp not from this C file)."
)]
struct Args {
    /// The C file the Boolean program was abstracted from.
    c_file: PathBuf,
    /// The Boolean program (written by c2bp; its header records the settings).
    bp_file: PathBuf,
    /// The trace (bebop --json).
    trace: PathBuf,
    /// The predicates the .bp was built from (default: read back from its variable names).
    #[arg(short, long, value_name = "FILE")]
    preds: Option<PathBuf>,
    /// Write the result as JSON (format newton-result/1).
    #[arg(long, value_name = "FILE")]
    json: Option<PathBuf>,
    /// Write the current predicates plus the new ones (predicate-file format) to FILE.
    #[arg(long = "write-preds", value_name = "FILE")]
    write_preds: Option<PathBuf>,
    /// Z3's deterministic resource limit per query.
    #[arg(long, value_name = "N", default_value_t = cir::smt::DEFAULT_RLIMIT)]
    rlimit: u32,
    /// How an infeasible trace is refined: wp (the weakest preconditions of the trace), horn
    /// (also the invariants of its path program — the program restricted to the trace's
    /// edges, loops kept — solved as Horn clauses by Spacer; a path through it to the error is
    /// replayed concretely) or auto (horn when the trace passes a loop head twice).
    #[arg(long, value_name = "MODE", default_value = "auto")]
    refine: newton::RefineMode,
    /// The path program: the trace's own edges (path) or with the whole body of every loop
    /// whose head it visits (loops).
    #[arg(long = "path-program", value_name = "VARIANT", default_value = "path")]
    path_program: newton::pathprog::Variant,
    /// Z3's resource limit of each Spacer configuration of the Horn refiner.
    #[arg(long = "horn-rlimit", value_name = "N", default_value_t = newton::horn::HornOptions::default().rlimit)]
    horn_rlimit: u32,
    /// Log progress to standard error (-v, -vv, -vvv); NEWTON_LOG or RUST_LOG override.
    #[arg(short, long, action = clap::ArgAction::Count)]
    verbose: u8,
}

fn fail(code: i32, msg: impl std::fmt::Display) -> ExitCode {
    eprintln!("newton: {msg}");
    exit::code(code)
}

fn read(p: &PathBuf) -> Result<String, ExitCode> {
    std::fs::read_to_string(p).map_err(|e| fail(exit::INPUT_ERROR, format!("{}: {e}", p.display())))
}

fn main() -> ExitCode {
    cir::smt::keep_freed_memory();
    let args: Args = cli_common::args::parse(&[
        (
            exit::SAFE,
            "the trace is infeasible (new predicates printed)",
        ),
        (
            exit::UNSAFE,
            "the trace is feasible: a counterexample replayed on the C program",
        ),
        (exit::UNKNOWN, "Z3 could not decide the path"),
    ]);
    cli_common::logging::init(args.verbose, "NEWTON_LOG");
    match run(&args) {
        Ok(c) | Err(c) => c,
    }
}

fn run(args: &Args) -> Result<ExitCode, ExitCode> {
    let inputs =
        bp_c::trace::load_trace_inputs(&args.c_file, &args.bp_file, &args.trace).map_err(|e| {
            for d in &e.details {
                eprintln!("{d}");
            }
            fail(exit::INPUT_ERROR, e.message)
        })?;
    let bp_c::trace::TraceInputs {
        prog,
        bp,
        settings,
        trace,
    } = inputs;
    let path = bp_c::trace::c_path(&prog, &bp, &trace)
        .map_err(|e| fail(exit::INPUT_ERROR, format!("{}: {e}", args.trace.display())))?;
    if !bp_c::trace::ends_in_error(&prog, &path) {
        return Err(fail(
            exit::INPUT_ERROR,
            format!(
                "{}: the trace does not end at an error of the C program",
                args.trace.display()
            ),
        ));
    }
    let preds = match &args.preds {
        Some(p) => {
            let text = read(p)?;
            cir::pred::parse_predicates(&text, &p.display().to_string(), &prog)
                .map_err(|e| fail(exit::INPUT_ERROR, e))?
        }
        None => newton::predicates_of_bp(&prog, &bp).map_err(|e| {
            fail(
                exit::INPUT_ERROR,
                format!("{}: {e}", args.bp_file.display()),
            )
        })?,
    };
    let pts = cir::pointsto::PointsTo::analyze(&prog);
    let opts = newton::Options {
        sem: settings.sem,
        rlimit: args.rlimit,
        refine: args.refine,
        horn: newton::horn::HornOptions {
            variant: args.path_program,
            rlimit: args.horn_rlimit,
            ..newton::horn::HornOptions::default()
        },
    };
    let out = newton::analyze_refined(
        &prog,
        &pts,
        &preds,
        &path,
        &opts,
        false,
        &mut newton::horn::HornCache::default(),
    );
    let mut stdout = cli_common::output::stdout();
    let _ = write!(stdout, "{}", newton::outcome_text(&out));
    stdout.check().map_err(|e| {
        fail(
            exit::INTERNAL,
            format!("cannot write to standard output: {e}"),
        )
    })?;
    if let Some(j) = &args.json {
        std::fs::write(j, newton::outcome_json(&out))
            .map_err(|e| fail(exit::INPUT_ERROR, format!("{}: {e}", j.display())))?;
    }
    if let Some(w) = &args.write_preds {
        let mut all = preds.clone();
        if let newton::Outcome::Infeasible(r) = &out {
            cir::pred::merge_into(&mut all, r.preds.clone());
        }
        std::fs::write(w, cir::pred::predicate_file_text(&all))
            .map_err(|e| fail(exit::INPUT_ERROR, format!("{}: {e}", w.display())))?;
    }
    Ok(exit::code(out.exit_code()))
}
