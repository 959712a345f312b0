//! `c2bp-bench`: c2bp on every program of an SV-COMP corpus (default
//! `../shared/corpus/sv-benchmarks`, its `*/*.c` then its `*/*.i`), with the empty predicate set
//! and with the predicates of the branch conditions (`c2bp --branch-preds`): the wall time of
//! lowering and abstraction, c2bp's prover queries and its share of `*` updates (read from
//! [`c2bp::Output`]), and bebop's verdict on the Boolean program next to the task's expected
//! verdict. A table on stdout; skipped when the corpus is absent.
//!
//! Each abstraction is made as the `c2bp` command makes it with its default options (ILP32, the
//! built-in error functions), and bebop checks it as the `bebop` command does: a program c2bp
//! cannot make gives a row `c2bp failed (exit N)` with the command's exit code.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

use cli_common::exit;

const USAGE: &str = "usage: c2bp-bench [CORPUS]   (default: ../shared/corpus/sv-benchmarks)";

/// The default corpus, relative to the repository's root.
const CORPUS: &str = "../shared/corpus/sv-benchmarks";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let corpus = match args.as_slice() {
        [] => PathBuf::from(CORPUS),
        [h] if h == "-h" || h == "--help" => {
            println!("{USAGE}");
            return ExitCode::SUCCESS;
        }
        [dir] if !dir.starts_with('-') => PathBuf::from(dir),
        _ => {
            eprintln!("c2bp-bench: {USAGE}");
            return ExitCode::from(2);
        }
    };
    if !corpus.is_dir() {
        println!("SKIP: {} not found", corpus.display());
        return ExitCode::SUCCESS;
    }
    println!(
        "{:<44} {:<8} {:<6} {:>8} {:>9} {:>7}  bebop",
        "program", "expected", "preds", "seconds", "queries", "*-share"
    );
    for file in programs(&corpus) {
        let name = file.file_name().unwrap_or_default().to_string_lossy();
        let short: String = name.chars().take(44).collect();
        let expected = match svcomp::property::error_expected_reachable(&file) {
            Some(true) => "false",
            Some(false) => "true",
            None => "",
        };
        for (mode, branch_preds) in [("empty", false), ("branch", true)] {
            match abstract_once(&file, branch_preds) {
                Ok(row) => println!(
                    "{short:<44} {expected:<8} {mode:<6} {:>8.2} {:>9} {:>6}%  {}",
                    row.seconds,
                    row.queries,
                    format!("{:.1}", row.star_share),
                    row.bebop
                ),
                Err(code) => {
                    println!("{short:<44} {expected:<8} {mode:<6} c2bp failed (exit {code})")
                }
            }
        }
    }
    ExitCode::SUCCESS
}

/// The corpus's programs: `*/*.c`, then `*/*.i`, each list in path order.
fn programs(corpus: &Path) -> Vec<PathBuf> {
    let mut dirs: Vec<PathBuf> = read_dir(corpus)
        .into_iter()
        .filter(|p| p.is_dir())
        .collect();
    dirs.sort();
    let mut out = Vec::new();
    for ext in ["c", "i"] {
        let mut files: Vec<PathBuf> = dirs
            .iter()
            .flat_map(|d| read_dir(d))
            .filter(|p| p.is_file() && p.extension().is_some_and(|e| e == ext))
            .collect();
        files.sort();
        out.extend(files);
    }
    out
}

/// The entries of `dir` but hidden ones.
fn read_dir(dir: &Path) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    entries
        .flatten()
        .filter(|e| !e.file_name().to_string_lossy().starts_with('.'))
        .map(|e| e.path())
        .collect()
}

/// One row of the table.
struct Row {
    /// Wall time of reading, lowering and abstracting the program.
    seconds: f64,
    /// c2bp's prover queries.
    queries: u64,
    /// Percentage of predicate updates that are `*`.
    star_share: f64,
    /// Bebop's verdict on the Boolean program.
    bebop: String,
}

/// c2bp on `file` as the `c2bp` command makes it (with `--branch-preds` when `branch_preds`),
/// then bebop on the result; `Err` with the command's exit code when c2bp fails.
fn abstract_once(file: &Path, branch_preds: bool) -> Result<Row, i32> {
    let start = Instant::now();
    let out = std::panic::catch_unwind(|| abstraction(file, branch_preds))
        .map_err(|_| 101)?
        .map_err(|(code, e)| {
            eprintln!("c2bp: {e}");
            code
        })?;
    let seconds = start.elapsed().as_secs_f64();
    let (updates, stars) = out.updates();
    let star_share = if updates == 0 {
        0.0
    } else {
        100.0 * stars as f64 / updates as f64
    };
    Ok(Row {
        seconds,
        queries: out.prover.queries,
        star_share,
        bebop: bebop_verdict(&out),
    })
}

/// The abstraction `c2bp FILE [--branch-preds]` writes, or its exit code and message.
fn abstraction(file: &Path, branch_preds: bool) -> Result<c2bp::Output, (i32, String)> {
    let input = |e: String| (exit::INPUT_ERROR, e);
    let bytes = std::fs::read(file).map_err(|e| input(format!("{}: {e}", file.display())))?;
    let settings = bp_c::header::HeaderSettings::default();
    let prog = cir::load_file(file, &settings.lower_options()).map_err(|e| input(e.to_string()))?;
    let mut preds = cir::pred::PredicateSet::default();
    if branch_preds {
        cir::pred::merge_into(&mut preds, cir::pred::branch_predicates(&prog));
    }
    let errors = settings.error_entry();
    let sources = bp_c::header::Sources {
        c_path: file.display().to_string(),
        c_sha256: bp_c::header::sha256_hex(&bytes),
        preds_path: None,
        extra: if errors.is_empty() {
            Vec::new()
        } else {
            vec![("error".to_string(), errors)]
        },
    };
    c2bp::abstract_program(&prog, &preds, &c2bp::Options::default(), &sources)
        .map_err(|e| (exit::INTERNAL, e.to_string()))
}

/// The first line `bebop -q` prints, standard error first, for c2bp's Boolean program: a
/// checker diagnostic, an error, or the verdict (`safe`, `error reachable`).
fn bebop_verdict(out: &c2bp::Output) -> String {
    let file = "out.bp";
    if let Some(d) = bp_grammar::check(&out.program, &out.text).first() {
        return d.render(file);
    }
    let opts = bebop::Options {
        property: bebop::Property::AssertsAndSlicError,
        invariants: false,
        program_name: file.to_string(),
        source: Some(out.text.clone()),
        self_check: false,
        trace_budget: bebop::TraceBudget::default(),
        invariant_hide: Vec::new(),
        invariant_at: None,
        remember_orders: false,
    };
    match std::panic::catch_unwind(|| bebop::verify(&out.program, &opts)) {
        Ok(Ok(o)) if o.verdict.is_safe() => "safe".into(),
        Ok(Ok(_)) => "error reachable".into(),
        Ok(Err(e)) => format!("bebop: {e}"),
        Err(_) => "bebop: internal error: panic".into(),
    }
}
