//! The `slam-run` command: the refinement loop on a C program or an SV-COMP task. The verdict is
//! the first line of stdout (`TRUE`, `FALSE(unreach-call)`, `UNKNOWN (reason)`), followed by the
//! counterexample of a FALSE verdict and a summary line; progress and warnings go to stderr. Exit
//! codes (`cli_common::exit`): 0 TRUE, 10 FALSE, 5 UNKNOWN, 1 usage error, 2 input error, 6
//! internal error.

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, mpsc};
use std::time::{Duration, Instant};

use anyhow::Context as _;
use cir::pred::PredicateSet;
use cli_common::exit;

/// mimalloc rather than the system allocator: the loop builds and drops a Boolean program, its
/// parse and its BDDs every iteration, and glibc's malloc and free were the largest items of a
/// driver task's CPU profile.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// Can the C program reach its error? SLAM's refinement loop: c2bp abstracts the program into
/// a Boolean program for the current predicates, bebop checks it, newton replays bebop's error
/// trace on the C program and either confirms it (FALSE, with a counterexample replayed on the
/// concrete interpreter) or finds new predicates; until bebop proves the abstraction safe
/// (TRUE). When new predicates stop helping (the same C path again, or nothing new: NDF),
/// constrain excludes the trace's spurious transitions with the predicates already present and
/// bebop checks again (--constrain lazy: 5 constraints per pass, 4 alternations; eager: 200 and
/// 200, with --havoc-all); with --constrain off, or when constrain finds nothing, the run ends
/// with UNKNOWN (no difference found).
///
/// The error is a call of reach_error() or __VERIFIER_error(), or what --error-fn,
/// --error-label, --assert or the task's property name.
#[derive(clap::Parser, Debug)]
#[command(
    name = "slam-run",
    version,
    after_help = "Output: the verdict on the first line of stdout — TRUE, FALSE(unreach-call) or \
                  UNKNOWN (reason) — then the counterexample (FALSE) and a summary line."
)]
struct Args {
    /// A C file (`.c` is preprocessed with `gcc -E`, `.i` is read as is) or an SV-COMP task
    /// definition (`.yml`: its input file, unreach-call property and data model).
    file: PathBuf,
    /// Initial predicates (predicate-file format; default: none besides the error guards).
    #[arg(short, long, value_name = "FILE")]
    preds: Option<PathBuf>,
    /// Do not start from the conditions that guard the error (`if (lk != 1) goto ERROR;`
    /// gives `lk != 1`): let newton find every predicate.
    #[arg(long = "no-guard-preds")]
    no_guard_preds: bool,
    /// Maximum cube length of the abstraction: a number, or `inf`.
    #[arg(long = "cube-len", value_name = "K", default_value = "3")]
    cube_len: c2bp::CubeLen,
    /// Maximum length of the inconsistent cubes `enforce` excludes (0: no enforce).
    #[arg(long = "enforce-len", value_name = "N", default_value_t = 2)]
    enforce_len: usize,
    /// When refinement makes no difference and constrain cannot help (except when it finds
    /// no spurious transition on the trace: longer cubes keep such a trace too), abstract the
    /// same predicates again with longer cubes rather than answer UNKNOWN, one literal at a time:
    /// --enforce-len first (up to one more than --cube-len), then --cube-len, each up to K
    /// (the summary line says `cube-len=K/N@I` for each raise, I being the first iteration
    /// with cube length K and enforce length N). 0: never.
    #[arg(long = "max-cube-len", value_name = "K", default_value_t = slam_run::DEFAULT_MAX_CUBE_LEN)]
    max_cube_len: usize,
    /// The C semantics: int (mathematical integers with ranges; `^`, `|`, `&` with a
    /// non-constant operand uninterpreted within range), bv (bit-precise: machine integers
    /// with wrap-around everywhere) or auto (int, and bv for the rest of the run from the
    /// first path whose integer model does not replay on the program and that the
    /// bit-precise check decides, or whose new predicates raise queries integer mode leaves
    /// undecided and that the bit-precise check refutes with decidable ones; the summary line
    /// says `precision=int→bv@N`). Default: auto.
    #[arg(long, value_name = "MODE")]
    precision: Option<slam_run::Precision>,
    /// The same as --precision bv (an error with --precision int or auto).
    #[arg(long)]
    bitvector: bool,
    /// Data model: ILP32 or LP64 (default: the task's, else ILP32).
    #[arg(long = "data-model")]
    data_model: Option<cir::DataModel>,
    /// A function whose call is the error (besides reach_error, __VERIFIER_error).
    #[arg(long = "error-fn", value_name = "NAME")]
    error_fn: Vec<String>,
    /// A label whose reaching is the error.
    #[arg(long = "error-label", value_name = "NAME")]
    error_label: Vec<String>,
    /// A failing `assert` (__assert_fail) is the error.
    #[arg(long)]
    assert: bool,
    /// An SV-COMP property file (unreach-call): its function is the error.
    #[arg(long, value_name = "FILE")]
    property: Option<PathBuf>,
    /// Give up with UNKNOWN (iterations) after N refinement iterations.
    #[arg(long = "max-iterations", value_name = "N", default_value_t = 200)]
    max_iterations: usize,
    /// Give up with UNKNOWN (timeout) after this many seconds of wall-clock time (a number
    /// ≥ 0, or `inf` for no limit). A CPU-time limit of the process (RLIMIT_CPU, as slam-bench
    /// sets it) ends the run the same way when its soft limit is reached. Either way the
    /// statistics of what was completed are written (--json), with the phase that was cut.
    #[arg(long, value_name = "SECONDS", value_parser = parse_timeout)]
    timeout: Option<Timeout>,
    /// Keep every iteration's predicate file, .bp, trace and newton result in DIR
    /// (iterNNN.*; commands.txt re-runs them with the standalone tools). The files of an
    /// earlier run in DIR (iter*, commands.txt) are removed first, saying so on stderr. The
    /// further traces of --traces-per-iteration are kept as iterNNN-tJ.* (the Boolean program
    /// with the edges refuted before blocked, and the predicates newton refined against). Not
    /// kept yet: a FALSE the concrete-execution falsifier found (its counterexample is in the
    /// witness and --json).
    #[arg(long, value_name = "DIR")]
    keep: Option<PathBuf>,
    /// Write a witness (GraphML, SV-COMP witness format 1.0): a violation witness for FALSE (the
    /// counterexample), a correctness witness for TRUE (the loop-head invariants the final
    /// abstraction proves, and the entry invariant of each function other than main that has a
    /// loop). UNKNOWN writes none. It is made within --timeout; if it cannot be, stderr says
    /// why and the verdict stands.
    #[arg(long, value_name = "FILE")]
    witness: Option<PathBuf>,
    /// Write everything measured as JSON (format slam-run-stats/2): per iteration, each
    /// phase's wall-clock and CPU seconds, c2bp's prover queries and cache hits per function,
    /// bebop's BDD sizes, newton's answer and the predicates added; the peak memory.
    #[arg(long = "json", visible_alias = "stats-json", value_name = "FILE")]
    stats_json: Option<PathBuf>,
    /// Z3's deterministic resource limit per query.
    #[arg(long, value_name = "N", default_value_t = cir::smt::DEFAULT_RLIMIT)]
    rlimit: u32,
    /// Maximum solver queries of one cube search (beyond it: the cubes found so far, more `*`;
    /// the search for the inconsistent cubes of `enforce` gets 5 times as many).
    #[arg(long = "max-queries", value_name = "N", default_value_t = 20_000)]
    max_queries: u64,
    /// How c2bp abstracts a statement: cartesian (each predicate on its own, cubes of at most
    /// --cube-len literals) or exact (the exact relation of the predicates before and after
    /// it, as a `constrain` clause; usually with --constrain off).
    #[arg(long, value_name = "MODE", default_value = "cartesian")]
    abstraction: c2bp::Abstraction,
    /// With --abstraction exact only: the most clauses of one statement's relation (beyond it
    /// the statement keeps its Cartesian abstraction besides the clauses found) [default: 1000].
    #[arg(long = "max-cubes", value_name = "N",
          value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..))]
    max_cubes: Option<usize>,
    /// What to do at NDF: off (no constrain), lazy (constrain and bebop, at most 4 times, 5
    /// constraints each) or eager (c2bp --havoc-all; 200 constraints, 200 alternations). When
    /// that does not help, longer cubes (--max-cube-len), then UNKNOWN.
    #[arg(long, value_name = "MODE", default_value = "lazy")]
    constrain: slam_run::ConstrainMode,
    /// How infeasible traces are refined. wp: newton's weakest preconditions of the trace;
    /// when they diverge (the same predicate up to constants, or a growing term, from one
    /// condition in 3 consecutive iterations) the run ends UNKNOWN (divergence: ...). horn: also
    /// the invariants of the trace's path program (the program restricted to the trace's
    /// edges, loops kept as loops) solved as Horn clauses by Z3's Spacer, on every trace; an
    /// error path through it is replayed concretely (FALSE only then). auto: newton first, and
    /// the path program when the trace passes a loop head twice, when the predicates diverge,
    /// or before constrain at NDF. (The Horn clauses are in integer semantics: in bit-precise
    /// mode — --precision bv, or after --precision auto switched — auto and horn refine as wp,
    /// without ending at divergence.) Back-off: after the k-th call in a row that finds nothing
    /// (Spacer's unknown, an error path that does not replay, no encoding) on path programs with
    /// the same loop heads, the next 4^k - 1 calls on such path programs are skipped (at most
    /// 63; a call that gives predicates ends it; a path program with a cached answer is never
    /// skipped): the clauses depend on the path program only, not on the predicates, and every
    /// trace of a state machine is its loop unrolled again. Skipped calls are counted in
    /// --stats-json (horn_skipped; each round's horn with outcome skipped and the reason).
    #[arg(long, value_name = "MODE", default_value = "auto")]
    refine: newton::RefineMode,
    /// The path program of the Horn refiner: the trace's own edges (path) or with the whole
    /// body of every loop whose head the trace visits (loops).
    #[arg(long = "path-program", value_name = "VARIANT", default_value = "path")]
    path_program: newton::pathprog::Variant,
    /// Z3's resource limit of each Spacer configuration the Horn refiner tries (deterministic).
    #[arg(long = "horn-rlimit", value_name = "N", default_value_t = newton::horn::HornOptions::default().rlimit)]
    horn_rlimit: u32,
    /// The concrete-execution falsifier: off, or auto — when a trace goes round a loop (it
    /// passes a loop head twice, the predicates diverge, the Horn refiner fails on its path
    /// program) or the loop is about to answer UNKNOWN, run the program on the concrete
    /// interpreter from main for a bounded number of steps, inputs first all 0, then drawn
    /// from a seeded generator; a run that reaches the error is replayed as a counterexample
    /// (FALSE). Each call's step budget is 4 times the previous one (the first 65536), at most
    /// 2^18 steps for a call a round triggers, and such calls together at most 2^20 steps; the
    /// call at the give-up gets all that is left of --falsify-steps.
    #[arg(long, value_name = "MODE", default_value = "auto")]
    falsify: slam_run::FalsifyMode,
    /// Sibling predicates: when refutations have brought state tests `e == c` (or `e != c`)
    /// for a second constant c, also `e == c'` for every other constant c' the function
    /// assigns to `e` (or to a variable copied into it) or compares it with (at most 64;
    /// global predicates: in any function), so that the states of a state machine arrive at
    /// once rather than one per iteration; likewise for bounds `e <= c` (`<`, `>`, `>=`),
    /// `e <= c'` at the same constants (on or off; on by default).
    #[arg(long = "sibling-predicates", value_name = "ON|OFF", default_value = "on", value_parser = on_off, action = clap::ArgAction::Set)]
    sibling_predicates: bool,
    /// The falsifier's steps of the concrete interpreter over the whole run (deterministic:
    /// steps, not seconds; --timeout still applies).
    #[arg(long = "falsify-steps", value_name = "N", default_value_t = slam_run::FalsifyOptions::default().total_steps)]
    falsify_steps: u64,
    /// Abstract error traces refined per abstraction (≥ 1; 1: one, the classic loop). After
    /// newton refutes bebop's trace with new predicates, the edge that made it infeasible is
    /// blocked (its assume made `assume F`) in a copy of the Boolean program and bebop asked
    /// for another trace, which newton refines too; and so on, up to N traces, until the
    /// blocked program is safe (or, with --traces-time-bound, until these extra checks and
    /// refinements have cost more CPU time than the iteration's own). All the
    /// predicates go into the next abstraction: fewer iterations, each re-abstracting once. A
    /// further trace that replays to the error is a counterexample (FALSE). Verdicts come from
    /// the same places as with 1. (--json: each iteration's `traces` and `traces_end`.)
    /// --keep keeps each further trace's files (iterNNN-tJ.*).
    #[arg(long = "traces-per-iteration", value_name = "N",
          default_value_t = slam_run::DEFAULT_TRACES_PER_ITERATION,
          value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..))]
    traces_per_iteration: usize,
    /// Also stop the search for more traces once it has cost more CPU time than the round's
    /// abstraction, check and first refinement. Off by default: it is the one choice of the
    /// loop that would depend on timing (how many predicates arrive in an iteration rather
    /// than a later one), and without it the same input gives the same run.
    #[arg(long = "traces-time-bound")]
    traces_time_bound: bool,
    /// Log to standard error (-v stages, -vv details, -vvv everything); SLAM_LOG or RUST_LOG
    /// override.
    #[arg(short, long, action = clap::ArgAction::Count)]
    verbose: u8,
}

/// A `--timeout`: seconds, or none for `inf`.
#[derive(Debug, Clone, Copy)]
struct Timeout(Option<Duration>);

/// Reads `--timeout`: a finite number of seconds ≥ 0 (`Duration` rejects NaN, negative and
/// too large values without panicking), or `inf`.
fn on_off(s: &str) -> Result<bool, String> {
    match s {
        "on" => Ok(true),
        "off" => Ok(false),
        _ => Err(format!("`{s}`: expected on or off")),
    }
}

fn parse_timeout(s: &str) -> Result<Timeout, String> {
    if matches!(s, "inf" | "infinity" | "none") {
        return Ok(Timeout(None));
    }
    let secs: f64 = s
        .parse()
        .map_err(|_| format!("`{s}` is not a number of seconds (or `inf`)"))?;
    if secs.is_infinite() && secs > 0.0 {
        return Ok(Timeout(None));
    }
    Duration::try_from_secs_f64(secs)
        .map(|d| Timeout(Some(d)))
        .map_err(|_| format!("`{s}`: expected a number of seconds ≥ 0, or `inf`"))
}

/// What the exit codes mean for slam-run (appended to the table in `--help`).
const EXIT_NOTES: [(i32, &str); 4] = [
    (exit::SAFE, "TRUE"),
    (exit::UNSAFE, "FALSE(unreach-call), with a counterexample"),
    (exit::UNKNOWN, "UNKNOWN (reason)"),
    (
        exit::INPUT_ERROR,
        "a missing file, a C error, an unsupported construct, a bad task",
    ),
];

/// An input error (exit code 2) or an internal one (6).
struct Failure(i32, anyhow::Error);

fn input<E: Into<anyhow::Error>>(e: E) -> Failure {
    Failure(exit::INPUT_ERROR, e.into())
}

fn main() {
    cir::smt::keep_freed_memory();
    let args: Args = cli_common::args::parse(&EXIT_NOTES);
    if let Some(p) = args
        .precision
        .filter(|p| args.bitvector && *p != slam_run::Precision::Bv)
    {
        let message = format!(
            "error: --bitvector (bit-precise) contradicts --precision {}",
            p.name()
        );
        leave(cli_common::args::usage_error(
            &mut std::io::stderr(),
            &message,
        ));
    }
    if args.max_cubes.is_some() && args.abstraction != c2bp::Abstraction::Exact {
        let message = "error: --max-cubes bounds the exact abstraction: give --abstraction exact";
        leave(cli_common::args::usage_error(
            &mut std::io::stderr(),
            message,
        ));
    }
    cli_common::logging::init(args.verbose, "SLAM_LOG");
    let mut out = cli_common::output::stdout();
    let code = match run(args, &mut out) {
        Ok(code) => code,
        Err(Failure(code, e)) => {
            eprintln!("slam-run: {e:#}");
            code
        }
    };
    if let Err(e) = out.check() {
        eprintln!("slam-run: cannot write to standard output: {e}");
        leave(exit::INTERNAL);
    }
    leave(code)
}

/// Ends the process with `code` without running exit handlers. The analysis thread may still
/// be inside Z3 (a stage cut by the time limit, a witness not made in time), and the normal
/// exit runs libz3's static destructors under its feet, which can crash the process after
/// the verdict was printed. Everything slam-run writes is complete before this point; only
/// the standard streams are buffered, and they are flushed here (a closed pipe is ignored).
fn leave(code: i32) -> ! {
    let _ = std::io::stdout().flush();
    let _ = std::io::stderr().flush();
    // SAFETY: `_exit` ends the process at once; no Rust state is observed after it.
    unsafe { libc::_exit(code) }
}

fn run(args: Args, out: &mut cli_common::output::Stdout) -> Result<i32, Failure> {
    let t0 = Instant::now();
    catch_cpu_limit();
    // A limit too far away to be an `Instant` is no limit.
    let deadline = args
        .timeout
        .and_then(|t| t.0)
        .and_then(|d| t0.checked_add(d));
    let task = svcomp::task::load(&args.file).map_err(input)?;
    for w in &task.warnings {
        eprintln!("slam-run: warning: {w}");
    }
    let settings = header_settings(&args, &task)?;
    let c_bytes = std::fs::read(&task.c_file)
        .with_context(|| task.c_file.display().to_string())
        .map_err(input)?;
    let prog = cir::load_program(&task.c_file, &settings.lower_options()).map_err(input)?;
    for w in &prog.warnings {
        eprintln!(
            "slam-run: warning: {}:{}: {}",
            task.c_file.display(),
            prog.show_pos(w.pos),
            w.message
        );
    }
    let preds = initial_predicates(&args, &prog)?;
    if let Some(dir) = &args.keep {
        let removed = slam_run::clear_stale(dir).map_err(input)?;
        if !removed.is_empty() {
            eprintln!(
                "slam-run: --keep {}: removed {} files of an earlier run (iter*, commands.txt)",
                dir.display(),
                removed.len()
            );
        }
    }
    let data_model = settings.sem.data_model;
    let cfg = loop_config(&args, settings, deadline);
    let file = task.c_file.display().to_string();
    let winfo = args
        .witness
        .as_ref()
        .map(|_| slam_run::witness::WitnessInfo {
            program_file: file.clone(),
            source: c_bytes.clone(),
            data_model,
            error_fns: cfg.settings.error_fns.clone(),
            producer: format!("slam-run {}", env!("CARGO_PKG_VERSION")),
        });
    let work = Work {
        prog,
        c_file: task.c_file.clone(),
        c_bytes,
        preds,
        cfg,
        witness: winfo,
    };
    let journal = Arc::new(Mutex::new(slam_run::Journal::default()));
    let (rx, wrx) = spawn_loop(work, t0, journal.clone())?;
    let mut result = match wait_for_verdict(&rx, deadline) {
        Waited::Answer(r) => r.map_err(|e| Failure(exit::INTERNAL, e.into()))?,
        Waited::Limit => stop_at_limit(&args, &file, t0, &journal, out)?,
        Waited::Lost => {
            return Err(Failure(
                exit::INTERNAL,
                anyhow::anyhow!("the analysis thread stopped without an answer (a bug)"),
            ));
        }
    };
    if matches!(
        result.verdict,
        slam_run::Verdict::Unknown(slam_run::UnknownReason::Timeout)
    ) {
        // The loop stopped itself at the deadline, between two phases.
        result.stopped_in = Some(lock(&journal).phase());
    }
    let _ = writeln!(out, "{}", result.verdict.line());
    if let slam_run::Verdict::False(cex) = &result.verdict {
        let _ = writeln!(out, "counterexample (replayed on the concrete program):");
        let _ = write!(out, "{}", newton::counterexample_text(cex));
    }
    let _ = writeln!(out, "{}", result.summary());
    let _ = out.flush();
    if let Some(p) = &args.witness {
        write_witness(p, &wrx, deadline, &result.verdict)?;
    }
    write_stats(args.stats_json.as_deref(), &result, &file)?;
    Ok(result.verdict.exit_code())
}

/// Writes `--stats-json` (when asked for) of `result`.
fn write_stats(
    path: Option<&Path>,
    result: &slam_run::RunResult,
    file: &str,
) -> Result<(), Failure> {
    if let Some(p) = path {
        std::fs::write(p, result.stats_json(file))
            .with_context(|| p.display().to_string())
            .map_err(input)?;
    }
    Ok(())
}

/// The error conventions and semantics: the task's error functions, `--error-fn` and the
/// `--property` file's, `--error-label`, `--assert`, the data model (`--data-model`, else
/// the task's) and `--bitvector`.
fn header_settings(
    args: &Args,
    task: &svcomp::task::Task,
) -> Result<bp_c::header::HeaderSettings, Failure> {
    let mut error_fns = task.error_fns.clone();
    error_fns.extend(args.error_fn.iter().cloned());
    if let Some(p) = &args.property {
        let text = std::fs::read_to_string(p)
            .with_context(|| p.display().to_string())
            .map_err(input)?;
        let fs = svcomp::property::parse_prp(&text)
            .map_err(|e| input(anyhow::anyhow!("{}:{e}", p.display())))?;
        error_fns.extend(fs);
    }
    error_fns.sort();
    error_fns.dedup();
    Ok(bp_c::header::HeaderSettings {
        error_fns,
        error_labels: args.error_label.clone(),
        assert_is_error: args.assert,
        sem: cir::smt::Semantics {
            data_model: args.data_model.unwrap_or(task.data_model),
            bitvector: precision(args) == slam_run::Precision::Bv,
        },
        sha256: None,
    })
}

/// `--precision`, `bv` with `--bitvector`.
fn precision(args: &Args) -> slam_run::Precision {
    if args.bitvector {
        slam_run::Precision::Bv
    } else {
        args.precision.unwrap_or_default()
    }
}

/// The predicates of `--preds` (none without it).
fn initial_predicates(args: &Args, prog: &cir::Program) -> Result<PredicateSet, Failure> {
    Ok(match &args.preds {
        None => PredicateSet::default(),
        Some(p) => {
            let text = std::fs::read_to_string(p)
                .with_context(|| p.display().to_string())
                .map_err(input)?;
            cir::pred::parse_predicates(&text, &p.display().to_string(), prog).map_err(input)?
        }
    })
}

/// The loop's configuration from the command line.
fn loop_config(
    args: &Args,
    settings: bp_c::header::HeaderSettings,
    deadline: Option<Instant>,
) -> slam_run::Config {
    slam_run::Config {
        c2bp: c2bp::Options {
            cube_len: args.cube_len.0,
            enforce_len: args.enforce_len,
            havoc_all: false,
            sem: settings.sem,
            rlimit: args.rlimit,
            max_queries: args.max_queries,
            abstraction: args.abstraction,
            max_cubes: args.max_cubes.unwrap_or(c2bp::DEFAULT_MAX_CUBES),
        },
        max_iterations: args.max_iterations,
        constrain: args.constrain,
        guard_preds: !args.no_guard_preds,
        precision: precision(args),
        refine: args.refine,
        horn: newton::horn::HornOptions {
            variant: args.path_program,
            rlimit: args.horn_rlimit,
            ..newton::horn::HornOptions::default()
        },
        falsify: slam_run::FalsifyOptions {
            mode: args.falsify,
            total_steps: args.falsify_steps,
            ..slam_run::FalsifyOptions::default()
        },
        traces_per_iteration: args.traces_per_iteration,
        traces_time_bound: args.traces_time_bound,
        sibling_predicates: args.sibling_predicates,
        max_cube_len: args.max_cube_len,
        keep: args.keep.clone(),
        deadline,
        settings,
    }
}

/// What the worker thread runs the loop on.
struct Work {
    prog: cir::Program,
    c_file: PathBuf,
    c_bytes: Vec<u8>,
    preds: PredicateSet,
    cfg: slam_run::Config,
    /// What a witness says besides the path, when one is asked for.
    witness: Option<slam_run::witness::WitnessInfo>,
}

type LoopAnswer = Result<slam_run::RunResult, slam_run::RunError>;
type WitnessAnswer = Result<String, slam_run::witness::WitnessError>;

/// Runs the loop on a worker thread, so that the time limit is a real one: when it passes,
/// the verdict is UNKNOWN (timeout) whatever stage is running (kept files are written
/// atomically, so they stay consistent). The thread sends the loop's answer, then the
/// witness (made after the verdict is sent: its time is not the verdict's).
fn spawn_loop(
    work: Work,
    t0: Instant,
    journal: Arc<Mutex<slam_run::Journal>>,
) -> Result<(mpsc::Receiver<LoopAnswer>, mpsc::Receiver<WitnessAnswer>), Failure> {
    let (tx, rx) = mpsc::channel();
    let (wtx, wrx) = mpsc::channel();
    std::thread::Builder::new()
        .name("slam-run".into())
        .stack_size(64 * 1024 * 1024)
        .spawn(move || {
            let mut last = Instant::now();
            let mut progress = |p: slam_run::Progress<'_>| {
                lock(&journal).observe(p.done, p.current, p.predicates, p.stage);
                if t0.elapsed() > Duration::from_secs(1)
                    && last.elapsed() > Duration::from_millis(200)
                {
                    last = Instant::now();
                    eprintln!(
                        "slam-run: {:6.1} s  iteration {}  {} predicates  {}",
                        t0.elapsed().as_secs_f64(),
                        p.iteration,
                        p.predicates.len(),
                        p.stage
                    );
                }
            };
            let Work {
                prog,
                c_file,
                c_bytes,
                preds,
                cfg,
                witness,
            } = work;
            let r = slam_run::run(&prog, &c_file, &c_bytes, preds, &cfg, &mut progress);
            let verdict_of = r
                .as_ref()
                .ok()
                .map(|res| (res.verdict.clone(), res.abstraction.clone()));
            let _ = tx.send(r);
            if let (Some((verdict, abstraction)), Some(info)) = (verdict_of, &witness)
                && let Some(w) = make_witness(&prog, &verdict, abstraction.as_deref(), info)
            {
                let _ = wtx.send(w);
            }
        })
        .map_err(|e| Failure(exit::INTERNAL, e.into()))?;
    Ok((rx, wrx))
}

/// The witness of a verdict: a violation witness for FALSE, a correctness witness for TRUE
/// (from the Boolean program bebop proved safe); none otherwise.
fn make_witness(
    prog: &cir::Program,
    verdict: &slam_run::Verdict,
    abstraction: Option<&str>,
    info: &slam_run::witness::WitnessInfo,
) -> Option<WitnessAnswer> {
    match (verdict, abstraction) {
        (slam_run::Verdict::False(cex), _) => {
            Some(Ok(slam_run::witness::violation(prog, cex, info)))
        }
        (slam_run::Verdict::True, Some(bp)) => Some(
            slam_run::witness::loop_invariants(prog, bp)
                .map(|invs| slam_run::witness::correctness(&invs, info)),
        ),
        _ => None,
    }
}

/// The run's journal, even if a panic poisoned its lock (it holds plain records).
fn lock(j: &Mutex<slam_run::Journal>) -> std::sync::MutexGuard<'_, slam_run::Journal> {
    j.lock().unwrap_or_else(|e| e.into_inner())
}

/// Set when the process reaches the soft limit of its CPU time (SIGXCPU).
static CPU_LIMIT_REACHED: AtomicBool = AtomicBool::new(false);

extern "C" fn on_cpu_limit(_: libc::c_int) {
    // Only an atomic store: async-signal-safe.
    CPU_LIMIT_REACHED.store(true, Ordering::SeqCst);
}

/// Makes the soft limit of the process's CPU time (RLIMIT_CPU: slam-bench sets one) end the
/// run like `--timeout`, with its statistics, instead of killing the process: the kernel
/// sends SIGXCPU at the soft limit (and again every second up to the hard limit, where it
/// kills).
fn catch_cpu_limit() {
    let handler: extern "C" fn(libc::c_int) = on_cpu_limit;
    // SAFETY: installs a handler that only stores to an atomic.
    unsafe {
        libc::signal(libc::SIGXCPU, handler as libc::sighandler_t);
    }
}

/// How waiting for the loop ended.
enum Waited {
    /// The loop answered.
    Answer(LoopAnswer),
    /// The deadline passed or the CPU-time limit was reached first.
    Limit,
    /// The worker ended without an answer.
    Lost,
}

/// How often the main thread looks at the CPU-time flag while it waits.
const POLL: Duration = Duration::from_millis(20);

/// Waits for the loop's answer, the deadline (`--timeout`) or the CPU-time limit.
fn wait_for_verdict(rx: &mpsc::Receiver<LoopAnswer>, deadline: Option<Instant>) -> Waited {
    // A little grace after the deadline: the loop checks it between stages and answers itself
    // with its complete records when it is between two.
    let grace = deadline.map(|d| d + Duration::from_millis(50));
    loop {
        if CPU_LIMIT_REACHED.load(Ordering::SeqCst) {
            return Waited::Limit;
        }
        let wait = grace.map_or(POLL, |g| {
            g.saturating_duration_since(Instant::now()).min(POLL)
        });
        match rx.recv_timeout(wait) {
            Ok(r) => return Waited::Answer(r),
            Err(mpsc::RecvTimeoutError::Disconnected) => return Waited::Lost,
            Err(mpsc::RecvTimeoutError::Timeout) => {
                if grace.is_some_and(|g| Instant::now() >= g) {
                    return Waited::Limit;
                }
            }
        }
    }
}

/// Prints `UNKNOWN (timeout)` with the summary and statistics of what the loop completed (its
/// journal) and the phase that was cut, and leaves at once: the worker may be inside a long
/// stage.
fn stop_at_limit(
    args: &Args,
    file: &str,
    t0: Instant,
    journal: &Mutex<slam_run::Journal>,
    out: &mut cli_common::output::Stdout,
) -> Result<slam_run::RunResult, Failure> {
    let result = lock(journal).cut(t0.elapsed().as_secs_f64());
    let _ = writeln!(out, "{}", result.verdict.line());
    let _ = writeln!(out, "{}", result.summary());
    let _ = out.flush();
    write_stats(args.stats_json.as_deref(), &result, file)?;
    leave(exit::UNKNOWN);
}

/// Writes the witness to `path` if the worker makes it within the time limit of the verdict;
/// otherwise says on stderr why there is none (the verdict stands).
fn write_witness(
    path: &Path,
    wrx: &mpsc::Receiver<WitnessAnswer>,
    deadline: Option<Instant>,
    verdict: &slam_run::Verdict,
) -> Result<(), Failure> {
    let got = match deadline {
        Some(d) => wrx.recv_timeout(d.saturating_duration_since(Instant::now())),
        None => wrx.recv().map_err(|_| mpsc::RecvTimeoutError::Disconnected),
    };
    let decided = matches!(
        verdict,
        slam_run::Verdict::True | slam_run::Verdict::False(_)
    );
    let why = match got {
        Ok(Ok(w)) => {
            std::fs::write(path, w)
                .with_context(|| path.display().to_string())
                .map_err(input)?;
            None
        }
        Ok(Err(e)) => Some(e.to_string()),
        Err(mpsc::RecvTimeoutError::Timeout) => {
            Some("the time limit passed while it was being made".to_string())
        }
        Err(mpsc::RecvTimeoutError::Disconnected) if decided => {
            Some("making it failed (a bug)".to_string())
        }
        Err(mpsc::RecvTimeoutError::Disconnected) => {
            Some("the verdict is not TRUE or FALSE".to_string())
        }
    };
    if let Some(why) = why {
        eprintln!("slam-run: no witness written to {}: {why}", path.display());
    }
    Ok(())
}
