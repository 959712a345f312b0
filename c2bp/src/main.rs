//! The `c2bp` command: `c2bp FILE.c [--preds FILE] [-o OUT.bp] [options]` (C2BP, PLDI'01). The
//! Boolean program goes to standard output (or `-o`); warnings about approximations and
//! `--stats` go to standard error. Exit codes follow `cli_common::exit`: 0 success, 1 usage,
//! 2 input error (C, predicate or property file), 6 internal error.

use std::io::Write as _;
use std::path::PathBuf;
use std::process::ExitCode;

use cli_common::exit;

/// SLAM's abstractor: a C program and predicates to a Boolean program (C2BP).
///
/// Each predicate becomes a Boolean variable named by its C text ({x < y}); assignments become
/// parallel assignments computed by Cartesian abstraction with cubes of at most --cube-len
/// literals (or their exact relation, --abstraction exact), branches become assumes, calls follow C2BP's procedure signatures, and the error
/// (a call of reach_error() or __VERIFIER_error(), or what --error-fn / --error-label /
/// --assert / --property name) becomes `assert F`, which bebop checks.
#[derive(clap::Parser, Debug)]
#[command(
    name = "c2bp",
    version,
    after_help = "Predicate file format (one C expression per line, names as cir-dump prints them):\n  \
                  global:\n  x < y\n  function main:\n  i#2 >= 0\n  function abs:\n  \\result >= 0"
)]
struct Args {
    /// The C file (`.c` is preprocessed with `gcc -E`; `.i` is read as is).
    file: PathBuf,
    /// The predicate file (none: the empty set).
    #[arg(short, long, value_name = "FILE")]
    preds: Option<PathBuf>,
    /// Add the program's branch conditions to the predicates (an initial predicate set).
    #[arg(long = "branch-preds")]
    branch_preds: bool,
    /// Write the predicates used (predicate-file format) to FILE.
    #[arg(long = "write-preds", value_name = "FILE")]
    write_preds: Option<PathBuf>,
    /// Write the Boolean program to FILE instead of standard output.
    #[arg(short, long, value_name = "FILE")]
    output: Option<PathBuf>,
    /// Maximum cube length: a number, or `inf` for no limit.
    #[arg(long = "cube-len", value_name = "K", default_value = "3")]
    cube_len: c2bp::CubeLen,
    /// Maximum length of the inconsistent cubes `enforce` excludes (0: no enforce).
    #[arg(long = "enforce-len", value_name = "N", default_value_t = 2)]
    enforce_len: usize,
    /// Every update and branch condition `*`, no enforce (the Constrain paper's eager setting).
    #[arg(long = "havoc-all")]
    havoc_all: bool,
    /// Bit-precise reasoning (needed for &, |, shifts, parity).
    #[arg(long)]
    bitvector: bool,
    /// Data model: ILP32 (default) or LP64.
    #[arg(long = "data-model", default_value = "ILP32")]
    data_model: cir::DataModel,
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
    /// Z3's deterministic resource limit per query.
    #[arg(long, value_name = "N", default_value_t = cir::smt::DEFAULT_RLIMIT)]
    rlimit: u32,
    /// Maximum solver queries of one cube search (beyond it: the cubes found so far, more `*`;
    /// the search for the inconsistent cubes of `enforce` gets 5 times as many).
    #[arg(long = "max-queries", value_name = "N", default_value_t = 20_000)]
    max_queries: u64,
    /// How a statement is abstracted: `cartesian` (each predicate updated on its own from
    /// cubes of at most --cube-len literals) or `exact` (the exact relation between the
    /// predicates before and after it, written `b := * constrain R(b, 'b)`; assumes likewise).
    #[arg(long, value_name = "MODE", default_value = "cartesian")]
    abstraction: c2bp::Abstraction,
    /// With --abstraction exact only: the most clauses of one statement's relation (beyond it,
    /// and beyond --max-queries, the statement keeps its Cartesian abstraction besides the
    /// clauses found; --stats counts such statements) [default: 1000].
    #[arg(long = "max-cubes", value_name = "N",
          value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..))]
    max_cubes: Option<usize>,
    /// Print statistics to standard error (prover calls, cache hits, `*` share, time per procedure).
    #[arg(long)]
    stats: bool,
    /// Log progress to standard error (-v info, -vv debug: every cube search, -vvv trace);
    /// C2BP_LOG or RUST_LOG override the filter.
    #[arg(short, long, action = clap::ArgAction::Count)]
    verbose: u8,
}

fn fail(code: i32, msg: impl std::fmt::Display) -> ExitCode {
    eprintln!("c2bp: {msg}");
    exit::code(code)
}

fn main() -> ExitCode {
    cir::smt::keep_freed_memory();
    let args: Args = cli_common::args::parse(&[(exit::SAFE, "the Boolean program was written")]);
    if args.max_cubes.is_some() && args.abstraction != c2bp::Abstraction::Exact {
        let message = "error: --max-cubes bounds the exact abstraction: give --abstraction exact";
        let code = cli_common::args::usage_error(&mut std::io::stderr(), message);
        return exit::code(code);
    }
    cli_common::logging::init(args.verbose, "C2BP_LOG");
    let mut error_fns = args.error_fn.clone();
    if let Some(p) = &args.property {
        let text = match std::fs::read_to_string(p) {
            Ok(t) => t,
            Err(e) => return fail(exit::INPUT_ERROR, format!("{}: {e}", p.display())),
        };
        match svcomp::property::parse_prp(&text) {
            Ok(fs) => error_fns.extend(fs),
            Err(e) => return fail(exit::INPUT_ERROR, format!("{}:{e}", p.display())),
        }
    }
    let bytes = match std::fs::read(&args.file) {
        Ok(b) => b,
        Err(e) => return fail(exit::INPUT_ERROR, format!("{}: {e}", args.file.display())),
    };
    let lower = cir::LowerOptions {
        data_model: args.data_model,
        error_fns: error_fns.clone(),
        error_labels: args.error_label.clone(),
        assert_is_error: args.assert,
        keep_global_reads: false,
    };
    let prog = match cir::load_program(&args.file, &lower) {
        Ok(p) => p,
        Err(e) => return fail(exit::INPUT_ERROR, e),
    };
    for w in &prog.warnings {
        eprintln!(
            "c2bp: warning: {}:{}: {}",
            args.file.display(),
            prog.show_pos(w.pos),
            w.message
        );
    }
    let mut preds = match &args.preds {
        None => cir::pred::PredicateSet::default(),
        Some(p) => {
            let text = match std::fs::read_to_string(p) {
                Ok(t) => t,
                Err(e) => return fail(exit::INPUT_ERROR, format!("{}: {e}", p.display())),
            };
            match cir::pred::parse_predicates(&text, &p.display().to_string(), &prog) {
                Ok(s) => s,
                Err(e) => return fail(exit::INPUT_ERROR, e),
            }
        }
    };
    if args.branch_preds {
        cir::pred::merge_into(&mut preds, cir::pred::branch_predicates(&prog));
    }
    if let Some(p) = &args.write_preds
        && let Err(e) = std::fs::write(p, cir::pred::predicate_file_text(&preds))
    {
        return fail(exit::INPUT_ERROR, format!("{}: {e}", p.display()));
    }
    let opts = c2bp::Options {
        cube_len: args.cube_len.0,
        enforce_len: args.enforce_len,
        havoc_all: args.havoc_all,
        sem: cir::smt::Semantics {
            data_model: args.data_model,
            bitvector: args.bitvector,
        },
        rlimit: args.rlimit,
        max_queries: args.max_queries,
        abstraction: args.abstraction,
        max_cubes: args.max_cubes.unwrap_or(c2bp::DEFAULT_MAX_CUBES),
    };
    let mut extra = Vec::new();
    let errors = bp_c::header::HeaderSettings {
        error_fns: error_fns.clone(),
        error_labels: args.error_label.clone(),
        assert_is_error: args.assert,
        ..Default::default()
    }
    .error_entry();
    if !errors.is_empty() {
        extra.push(("error".to_string(), errors));
    }
    let sources = bp_c::header::Sources {
        c_path: args.file.display().to_string(),
        c_sha256: bp_c::header::sha256_hex(&bytes),
        preds_path: args.preds.as_ref().map(|p| p.display().to_string()),
        extra,
    };
    let out = match c2bp::abstract_program(&prog, &preds, &opts, &sources) {
        Ok(o) => o,
        Err(e) => return fail(exit::INTERNAL, e),
    };
    if args.stats {
        eprint!("{}", out.stats_text());
    }
    match &args.output {
        Some(p) => {
            if let Err(e) = std::fs::write(p, &out.text) {
                return fail(exit::INPUT_ERROR, format!("{}: {e}", p.display()));
            }
        }
        None => {
            let mut stdout = cli_common::output::stdout();
            let _ = stdout.write_all(out.text.as_bytes());
            if let Err(e) = stdout.check() {
                return fail(
                    exit::INTERNAL,
                    format!("cannot write to standard output: {e}"),
                );
            }
        }
    }
    ExitCode::SUCCESS
}
