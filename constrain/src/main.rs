//! The `constrain` command: `constrain FILE.c FILE.bp TRACE.json [--apply OUT.bp]` (the
//! Constrain paper, TACAS'04 §3). Finds the spurious abstract transitions of a bebop trace of
//! `FILE.bp` (written by c2bp for `FILE.c`) and prints the constraints that exclude them;
//! `--apply` writes the patched Boolean program. Exit codes (`cli_common::exit`): 0 constraints found, 5 none (the trace has
//! no spurious transition this version can see), 2 input error, 1 usage error.

use std::path::PathBuf;
use std::process::ExitCode;

use cli_common::exit;
use std::io::Write as _;

/// Constrain (Das & Dill refinement, as in SLAM): excludes spurious transitions of an abstract
/// trace using only the Boolean variables already present.
///
/// Each C edge the trace traverses is checked with Spurious: the transition from the state
/// before to the state after is spurious when no concrete state of the first has a successor
/// in the second. A spurious transition becomes a `constrain` clause on the assignment, a
/// conjunct of the `assume`, or (when the state after is impossible by itself) an `enforce` of
/// the procedure; each is first strengthened by dropping literals.
#[derive(clap::Parser, Debug)]
#[command(
    name = "constrain",
    version,
    after_help = "Exit codes: 0 constraints found, 5 no spurious transition found, \
                  1 usage error, 2 input error (missing file, C or trace error, .bp not from this C file)."
)]
struct Args {
    /// The C file the Boolean program was abstracted from.
    c_file: PathBuf,
    /// The Boolean program (written by c2bp; its header records the settings).
    bp_file: PathBuf,
    /// The trace (bebop --json), with the valuation at every step.
    trace: PathBuf,
    /// Write the Boolean program with the constraints added to FILE.
    #[arg(long, value_name = "FILE")]
    apply: Option<PathBuf>,
    /// At most N constraints (the Constrain paper, §3.3: 5 when used lazily).
    #[arg(long = "max-constraints", value_name = "N", default_value_t = 5)]
    max_constraints: usize,
    /// Write the result as JSON (format constrain-result/1).
    #[arg(long, value_name = "FILE")]
    json: Option<PathBuf>,
    /// Z3's deterministic resource limit per query.
    #[arg(long, value_name = "N", default_value_t = cir::smt::DEFAULT_RLIMIT)]
    rlimit: u32,
    /// Log progress to standard error (-v, -vv, -vvv); CONSTRAIN_LOG or RUST_LOG override.
    #[arg(short, long, action = clap::ArgAction::Count)]
    verbose: u8,
}

fn fail(code: i32, msg: impl std::fmt::Display) -> ExitCode {
    eprintln!("constrain: {msg}");
    exit::code(code)
}

fn main() -> ExitCode {
    let args: Args = cli_common::args::parse(&[
        (exit::SAFE, "constraints found"),
        (exit::UNKNOWN, "no spurious transition found"),
    ]);
    cli_common::logging::init(args.verbose, "CONSTRAIN_LOG");
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
        mut bp,
        settings,
        trace,
    } = inputs;
    let pts = cir::pointsto::PointsTo::analyze(&prog);
    let opts = constrain::Options {
        sem: settings.sem,
        rlimit: args.rlimit,
        max_constraints: args.max_constraints,
    };
    let pass = constrain::analyze(&prog, &pts, &bp, &trace, &opts)
        .map_err(|e| fail(exit::INPUT_ERROR, format!("{}: {e}", args.trace.display())))?;
    let mut stdout = cli_common::output::stdout();
    if pass.constraints.is_empty() {
        let _ = writeln!(
            stdout,
            "no spurious transition ({} of {} instructions examined)",
            pass.examined, pass.instructions
        );
    } else {
        let _ = write!(stdout, "{}", constrain::constraints_text(&pass.constraints));
    }
    stdout.check().map_err(|e| {
        fail(
            exit::INTERNAL,
            format!("cannot write to standard output: {e}"),
        )
    })?;
    if let Some(j) = &args.json {
        std::fs::write(j, constrain::pass_json(&pass))
            .map_err(|e| fail(exit::INPUT_ERROR, format!("{}: {e}", j.display())))?;
    }
    if let Some(out) = &args.apply {
        constrain::apply(&mut bp, &pass.constraints);
        let text = bp_grammar::print::print(&bp);
        std::fs::write(out, text)
            .map_err(|e| fail(exit::INPUT_ERROR, format!("{}: {e}", out.display())))?;
    }
    Ok(exit::code(if pass.constraints.is_empty() {
        exit::UNKNOWN
    } else {
        exit::SAFE
    }))
}
