//! The `slam-bench` command: `run` a benchmark, `merge` the results of shards, `report` again from
//! a results directory, `table` (one run per task, a row per task). Results go to files and the
//! summary to stdout; progress and errors to stderr. Exit codes follow the toolkit's one table
//! (`cli_common::exit`): 0 done; 1 a usage error (a bad flag or flag value such as
//! `--cpu-limit 0`, an unknown preset, dimension or `--scatter` configuration); 2 an input
//! error (a missing task set, a malformed list or result file, a results directory that
//! belongs to another benchmark); 6 internal error.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::Context as _;
use clap::{Args as ClapArgs, Parser, Subcommand};
use slam_bench::config::{self, Config};
use slam_bench::results::{self, Row};
use slam_bench::runner::{self, Meta, RunOptions};
use slam_bench::{report, table as task_table, tasks};

/// Compare refinement strategies of slam-run on benchmark sets: every (task, configuration)
/// pair runs as a separate slam-run process under a CPU-time, a wall-clock and a memory limit,
/// `--jobs` at a time. Results: results.jsonl (one line per run, appended as runs finish, so `--resume`
/// continues an interrupted benchmark), results.csv, summary.md (per configuration: correct
/// TRUE, correct FALSE, wrong, NDF, timeout/memory, unknown, SV-COMP score), quantile.svg,
/// scatter.svg, report.html (host, slam-run version, dates, the summary, the plots and a
/// sortable, filterable table of every run) and runs/CONFIG/SET/TASK.out and .err (each run's
/// output, linked from the report), in `--out`.
#[derive(Parser, Debug)]
#[command(name = "slam-bench", version)]
struct Cli {
    #[command(subcommand)]
    cmd: Cmd,
}

#[derive(Subcommand, Debug)]
enum Cmd {
    /// Run a benchmark.
    Run(Box<RunArgs>),
    /// Merge the results of shards (directories or results.jsonl files) into one report.
    Merge {
        /// Shard result directories (with results.jsonl) or results.jsonl files.
        #[arg(required = true)]
        inputs: Vec<PathBuf>,
        /// Where the merged results and reports go.
        #[arg(long, value_name = "DIR")]
        out: PathBuf,
        /// The two configurations of the scatter plot (default: the first two).
        #[arg(long, value_name = "A,B")]
        scatter: Option<String>,
    },
    /// Write the reports again from a results directory.
    Report {
        /// A directory with results.jsonl.
        dir: PathBuf,
        /// The two configurations of the scatter plot (default: the first two).
        #[arg(long, value_name = "A,B")]
        scatter: Option<String>,
    },
    /// Print a table of slam-run on task sets: a row per task, then the verdicts per set.
    ///
    /// slam-run runs once on every task, one at a time. A row: the task, its expected verdict,
    /// slam-run's verdict, whether it is correct, the iterations, predicates and seconds of
    /// slam-run's summary line, and the run's CPU seconds. Then, per set, the correct and
    /// wrong verdicts.
    Table(TableArgs),
}

#[derive(ClapArgs, Debug)]
struct TableArgs {
    /// Task sets, as for `run`; the rows follow the order of the sets.
    #[arg(required = true)]
    sets: Vec<PathBuf>,
    /// CPU seconds per task (RLIMIT_CPU; a run whose CPU time reaches it is a timeout).
    #[arg(long = "cpu-limit", value_name = "SECONDS", default_value_t = 10.0, value_parser = seconds)]
    cpu_limit: f64,
    /// Wall-clock seconds per task, for a run that waits rather than computes (slam-run's
    /// --timeout; default 3 x the CPU limit + 30).
    #[arg(long = "wall-limit", value_name = "SECONDS", value_parser = seconds)]
    wall_limit: Option<f64>,
    /// The slam-run executable (default: the one next to slam-bench, else on PATH).
    #[arg(long = "slam-run", value_name = "PATH")]
    slam_run: Option<PathBuf>,
    /// After the table, break the N slowest tasks (CPU seconds) down from slam-run's
    /// statistics: each phase's CPU and wall-clock seconds and share of the run, a line per
    /// iteration (predicates, c2bp queries and answers found without the solver, bebop's BDD
    /// nodes, newton's answer, memory), and c2bp's costliest procedures.
    #[arg(long, value_name = "N", default_value_t = 0)]
    breakdown: usize,
    /// Options added to every slam-run command, after `--`.
    #[arg(last = true, value_name = "SLAM-RUN OPTIONS")]
    slam_args: Vec<String>,
}

#[derive(ClapArgs, Debug)]
struct RunArgs {
    /// Task sets: directories of SV-COMP .yml tasks (or of C files named
    /// *_true-unreach-call* / *_false-unreach-call*), single task files, or list files (one
    /// path per line, relative to the list, `*` wildcards allowed).
    #[arg(required = true)]
    sets: Vec<PathBuf>,
    /// Named configurations, points of the dimension schema (see --dim): no-constrain,
    /// lazy, eager (constrain=off|lazy|eager), fig4 (the three: the Constrain paper's Fig. 4),
    /// C/3, C/5, C/inf (cube=3|5|inf), fig6 (Fig. 6's concrete-prover columns), C/3+lazy,
    /// C/inf+off, exact+off, abstractions (the three: Cartesian with lazy constraints,
    /// Cartesian at unbounded length, the exact abstraction). Default fig4 when no
    /// configuration is given.
    #[arg(long, value_delimiter = ',', value_name = "NAME")]
    preset: Vec<String>,
    /// A configuration of your own, outside the schema: NAME='slam-run options'.
    #[arg(long = "config", value_name = "NAME=OPTIONS")]
    configs: Vec<String>,
    #[arg(long = "dim", value_name = "NAME=V1,V2,...", long_help = config::dimensions_help(),
          help = "Matrix over a strategy dimension (repeatable): cube, constrain, bitvector, \
                  refine, precision, abstraction, traces, \
                  falsify, siblings (--help: values and slam-run options)")]
    dims: Vec<String>,
    /// Matrix shorthand: --dim cube=K,... (maximum cube lengths, e.g. 1,3,5,inf).
    #[arg(long = "cube-len", value_delimiter = ',', value_name = "K")]
    cube_len: Vec<String>,
    /// Matrix shorthand: --dim constrain=MODE,... (off,lazy,eager).
    #[arg(long, value_delimiter = ',', value_name = "MODE")]
    constrain: Vec<String>,
    /// Matrix shorthand: --dim bitvector=off,on (bit-precise reasoning).
    #[arg(long, value_delimiter = ',', value_name = "off|on")]
    bitvector: Vec<String>,
    /// An option added to every configuration's slam-run command (repeatable), e.g.
    /// --slam-arg=--max-iterations=50.
    #[arg(long = "slam-arg", value_name = "ARG", allow_hyphen_values = true)]
    slam_args: Vec<String>,
    /// Output directory.
    #[arg(long, value_name = "DIR", default_value = "bench-results")]
    out: PathBuf,
    /// Runs at a time (default: the number of cores).
    #[arg(short, long)]
    jobs: Option<usize>,
    /// CPU seconds per run, enforced as CPU time (RLIMIT_CPU: slam-run stops with UNKNOWN
    /// (timeout) at the limit, and is killed 2 s later if it does not). A run whose CPU time
    /// reaches the limit is a timeout, whatever it answered; sleeping is not computing.
    #[arg(long = "cpu-limit", value_name = "SECONDS", default_value_t = 60.0, value_parser = seconds)]
    cpu_limit: f64,
    /// Wall-clock seconds per run, for a run that waits rather than computes (passed to
    /// slam-run as --timeout; killed 5 s later). Default: 3 x the CPU limit + 30.
    #[arg(long = "wall-limit", value_name = "SECONDS", value_parser = seconds)]
    wall_limit: Option<f64>,
    /// Memory per run in MiB (address-space limit).
    #[arg(long = "mem-limit", value_name = "MIB", default_value_t = 4096)]
    mem_limit: u64,
    /// Continue the benchmark in --out: run only the pairs without a result.
    #[arg(long)]
    resume: bool,
    /// Run only slice I of N (for several machines; `slam-bench merge` combines them).
    #[arg(long, value_name = "I/N")]
    shard: Option<String>,
    /// The slam-run executable (default: the one next to slam-bench, else on PATH).
    #[arg(long = "slam-run", value_name = "PATH")]
    slam_run: Option<PathBuf>,
    /// The two configurations of the scatter plot (default: the first two).
    #[arg(long, value_name = "A,B")]
    scatter: Option<String>,
    /// No progress line.
    #[arg(short, long)]
    quiet: bool,
}

fn main() -> ExitCode {
    let cli: Cli = cli_common::args::parse(&[(
        cli_common::exit::SAFE,
        "the benchmark ran (whatever its verdicts)",
    )]);
    let r = match cli.cmd {
        Cmd::Run(a) => run(*a),
        Cmd::Merge {
            inputs,
            out,
            scatter,
        } => merge(&inputs, &out, scatter.as_deref()),
        Cmd::Report { dir, scatter } => report_again(&dir, scatter.as_deref()),
        Cmd::Table(a) => table(a),
    };
    match r {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("slam-bench: {e:#}");
            let code = match e.downcast_ref::<slam_bench::BenchError>() {
                Some(slam_bench::BenchError::Usage(_)) => cli_common::exit::USAGE,
                Some(_) => cli_common::exit::INPUT_ERROR,
                None => cli_common::exit::INTERNAL,
            };
            cli_common::exit::code(code)
        }
    }
}

fn default_slam_run() -> PathBuf {
    std::env::current_exe()
        .ok()
        .and_then(|p| p.parent().map(|d| d.join("slam-run")))
        .filter(|p| p.exists())
        .unwrap_or_else(|| PathBuf::from("slam-run"))
}

/// A positive number of seconds (at most ten million: a limit, not a date).
fn seconds(s: &str) -> Result<f64, String> {
    let v: f64 = s
        .trim()
        .parse()
        .map_err(|_| format!("`{s}` is not a number of seconds"))?;
    if v.is_finite() && v > 0.0 && v <= 1e7 {
        Ok(v)
    } else {
        Err(format!(
            "`{s}`: expected a positive number of seconds (at most 1e7)"
        ))
    }
}

/// The wall-clock limit: the one given, or a generous multiple of the CPU limit.
fn wall_limit(given: Option<f64>, cpu_limit: f64) -> f64 {
    given.unwrap_or(3.0 * cpu_limit + 30.0)
}

fn usage(msg: String) -> anyhow::Error {
    slam_bench::BenchError::Usage(msg).into()
}

/// The slam-run option `arg` names when slam-bench gives it to every run itself (slam-run
/// would reject it given twice, and every run would be an error row).
fn set_by_slam_bench(arg: &str) -> Option<&'static str> {
    ["--timeout", "--stats-json", "--json"]
        .into_iter()
        .find(|own| arg == *own || arg.strip_prefix(own).is_some_and(|r| r.starts_with('=')))
}

fn configs_of(a: &RunArgs) -> anyhow::Result<Vec<Config>> {
    let mut cs = Vec::new();
    for p in &a.preset {
        cs.extend(config::preset(p.trim())?);
    }
    for c in &a.configs {
        cs.push(config::parse_named(c)?);
    }
    let mut axes = Vec::new();
    for d in &a.dims {
        axes.push(config::parse_dim(d)?);
    }
    let trimmed = |vs: &[String]| vs.iter().map(|v| v.trim().to_string()).collect::<Vec<_>>();
    if !a.cube_len.is_empty() {
        axes.push(("cube".into(), trimmed(&a.cube_len)));
    }
    if !a.constrain.is_empty() {
        axes.push(("constrain".into(), trimmed(&a.constrain)));
    }
    if !a.bitvector.is_empty() {
        let bv = a
            .bitvector
            .iter()
            .map(|s| match s.trim() {
                "on" | "true" | "yes" => "on".to_string(),
                "off" | "false" | "no" => "off".to_string(),
                o => o.to_string(),
            })
            .collect();
        axes.push(("bitvector".into(), bv));
    }
    if !axes.is_empty() {
        cs.extend(config::matrix(&axes)?);
    }
    if cs.is_empty() {
        cs = config::preset("fig4")?;
    }
    for c in &mut cs {
        c.args.extend(a.slam_args.iter().cloned());
        if let Some(own) = c.args.iter().find_map(|arg| set_by_slam_bench(arg)) {
            return Err(usage(format!(
                "configuration `{}` gives slam-run {own}, which slam-bench sets for every run \
                 (--timeout from --wall-limit, --json/--stats-json for the row's statistics)",
                c.name
            )));
        }
    }
    let mut names = std::collections::BTreeSet::new();
    for c in &cs {
        if !names.insert(c.name.clone()) {
            return Err(usage(format!("configuration `{}` is given twice", c.name)));
        }
    }
    Ok(cs)
}

fn run(a: RunArgs) -> anyhow::Result<()> {
    let configs = configs_of(&a)?;
    if let Some(s) = &a.scatter {
        // Checked before the runs: a typo must not cost a benchmark.
        let names: Vec<String> = configs.iter().map(|c| c.name.clone()).collect();
        report::scatter_pair(s, &names)?;
    }
    let (tasks, notes) = tasks::collect(&a.sets)?;
    for n in &notes {
        eprintln!("slam-bench: {n}");
    }
    if tasks.is_empty() {
        return Err(tasks::no_tasks(&a.sets).into());
    }
    let opts = RunOptions {
        slam_run: a.slam_run.clone().unwrap_or_else(default_slam_run),
        jobs: a.jobs.unwrap_or_else(|| {
            std::thread::available_parallelism()
                .map(|n| n.get())
                .unwrap_or(1)
        }),
        cpu_limit: a.cpu_limit,
        wall_limit: wall_limit(a.wall_limit, a.cpu_limit),
        mem_limit_mib: a.mem_limit,
        out_dir: a.out.clone(),
        resume: a.resume,
        shard: a.shard.as_deref().map(runner::parse_shard).transpose()?,
        progress: !a.quiet,
        keep_output: true,
    };
    eprintln!(
        "slam-bench: {} tasks x {} configurations ({}){}, {} jobs, {} CPU s, {} wall-clock s \
         and {} MiB per run",
        tasks.len(),
        configs.len(),
        configs
            .iter()
            .map(|c| c.name.as_str())
            .collect::<Vec<_>>()
            .join(", "),
        opts.shard
            .map(|(i, n)| format!(", shard {i}/{n}"))
            .unwrap_or_default(),
        opts.jobs,
        opts.cpu_limit,
        opts.wall_limit,
        opts.mem_limit_mib
    );
    let rows = runner::run_benchmark(&tasks, &configs, &opts)?;
    let names: Vec<String> = configs.iter().map(|c| c.name.clone()).collect();
    let meta = read_meta(&opts.out_dir);
    write_reports(
        &opts.out_dir,
        &rows,
        &names,
        meta.as_ref(),
        a.scatter.as_deref(),
    )
}

fn write_reports(
    dir: &Path,
    rows: &[Row],
    preferred: &[String],
    meta: Option<&Meta>,
    scatter: Option<&str>,
) -> anyhow::Result<()> {
    let configs = report::config_order(rows, preferred);
    let pair = scatter
        .map(|s| report::scatter_pair(s, &configs))
        .transpose()?;
    let limit = limit_of(meta, rows);
    let sum = report::write_all(
        dir,
        rows,
        &configs,
        limit,
        pair.as_ref().map(|(a, b)| (a.as_str(), b.as_str())),
        about(meta, rows, &configs, limit),
    )?;
    println!("{sum}");
    println!(
        "Results in {}: results.jsonl, results.csv, summary.md, quantile.svg, scatter.svg, \
         report.html, runs/ (each run's output)",
        dir.display()
    );
    Ok(())
}

/// The heading block of the report.
fn about(
    meta: Option<&Meta>,
    rows: &[Row],
    configs: &[String],
    limit: f64,
) -> Vec<(String, String)> {
    let p = meta.map(|m| m.provenance.clone()).unwrap_or_default();
    let or = |s: String| {
        if s.is_empty() {
            "unknown".to_string()
        } else {
            s
        }
    };
    let mut v = vec![
        ("host".to_string(), or(p.host)),
        ("CPU".to_string(), or(p.cpu)),
        (
            "memory".to_string(),
            if p.memory_mib > 0 {
                format!("{} MiB", p.memory_mib)
            } else {
                "unknown".into()
            },
        ),
        ("tool".to_string(), or(p.tool_version)),
        ("benchmark started".to_string(), or(p.started)),
        ("report written".to_string(), slam_bench::provenance::now()),
    ];
    let limits = match meta {
        Some(m) => format!(
            "{} CPU s, {} wall-clock s, {} MiB per run",
            m.cpu_limit, m.wall_limit, m.mem_limit_mib
        ),
        None => format!("{limit} CPU s per run (the longest run: no bench.json)"),
    };
    v.push(("limits".to_string(), limits));
    v.push((
        "runs".to_string(),
        format!("{} runs of {} configurations", rows.len(), configs.len()),
    ));
    v
}

fn read_meta(dir: &Path) -> Option<Meta> {
    let t = std::fs::read_to_string(dir.join("bench.json")).ok()?;
    serde_json::from_str(&t).ok()
}

fn limit_of(meta: Option<&Meta>, rows: &[Row]) -> f64 {
    meta.map(|m| m.cpu_limit)
        .unwrap_or_else(|| rows.iter().map(|r| r.end.cpu_seconds).fold(1.0, f64::max))
}

fn merge(inputs: &[PathBuf], out: &Path, scatter: Option<&str>) -> anyhow::Result<()> {
    let mut sets = Vec::new();
    let mut metas: Vec<Meta> = Vec::new();
    let mut shard_dirs = Vec::new();
    for i in inputs {
        let (file, dir) = if i.is_dir() {
            (i.join("results.jsonl"), i.clone())
        } else {
            (
                i.clone(),
                i.parent().unwrap_or(Path::new(".")).to_path_buf(),
            )
        };
        let rows = results::read_jsonl(&file)?;
        shard_dirs.push((dir.clone(), rows.clone()));
        sets.push(rows);
        if let Some(m) = read_meta(&dir) {
            if let Some(first) = metas.first()
                && (first.configs != m.configs
                    || first.cpu_limit != m.cpu_limit
                    || first.wall_limit != m.wall_limit)
            {
                return Err(slam_bench::BenchError::Input(format!(
                    "{}: another benchmark (configurations or limits differ)",
                    i.display()
                ))
                .into());
            }
            metas.push(m);
        }
    }
    let rows = results::merge(sets);
    std::fs::create_dir_all(out).with_context(|| out.display().to_string())?;
    let jsonl = out.join("results.jsonl");
    if jsonl.exists() {
        return Err(usage(format!(
            "{} exists: merge into a new directory",
            jsonl.display()
        )));
    }
    let mut app = results::Appender::open(&jsonl)?;
    for r in &rows {
        app.push(r)?;
    }
    let preferred: Vec<String> = metas
        .first()
        .map(|m| m.configs.iter().map(|c| c.name.clone()).collect())
        .unwrap_or_default();
    copy_outputs(&shard_dirs, out)?;
    let merged = metas.first().map(|m| {
        let mut hosts: Vec<&str> = Vec::new();
        for h in metas.iter().map(|m| m.provenance.host.as_str()) {
            if !hosts.contains(&h) {
                hosts.push(h);
            }
        }
        let mut merged = Meta {
            shard: None,
            ..m.clone()
        };
        merged.provenance.host = hosts.join(", ");
        merged.provenance.started = metas
            .iter()
            .map(|m| m.provenance.started.clone())
            .filter(|s| !s.is_empty())
            .min()
            .unwrap_or_default();
        merged
    });
    if let Some(m) = &merged {
        std::fs::write(out.join("bench.json"), serde_json::to_string_pretty(m)?)?;
    }
    write_reports(out, &rows, &preferred, merged.as_ref(), scatter)
}

/// Copies the kept output of each shard's runs into the merged directory, so that the merged
/// report links it too.
fn copy_outputs(shards: &[(PathBuf, Vec<Row>)], out: &Path) -> anyhow::Result<()> {
    for (dir, rows) in shards {
        for r in rows {
            let stem = results::output_stem(&r.task, &r.config);
            for ext in ["out", "err"] {
                let rel = PathBuf::from(format!("{}.{ext}", stem.display()));
                let from = dir.join(&rel);
                if from.is_file() {
                    let to = out.join(&rel);
                    if let Some(parent) = to.parent() {
                        std::fs::create_dir_all(parent)
                            .with_context(|| parent.display().to_string())?;
                    }
                    std::fs::copy(&from, &to).with_context(|| from.display().to_string())?;
                }
            }
        }
    }
    Ok(())
}

fn report_again(dir: &Path, scatter: Option<&str>) -> anyhow::Result<()> {
    let rows = results::read_jsonl(&dir.join("results.jsonl"))?;
    let meta = read_meta(dir);
    let preferred: Vec<String> = meta
        .as_ref()
        .map(|m| m.configs.iter().map(|c| c.name.clone()).collect())
        .unwrap_or_default();
    write_reports(dir, &rows, &preferred, meta.as_ref(), scatter)
}

fn table(a: TableArgs) -> anyhow::Result<()> {
    let mut all = Vec::new();
    for set in &a.sets {
        let (tasks, notes) = tasks::collect(std::slice::from_ref(set))?;
        for n in &notes {
            eprintln!("slam-bench: {n}");
        }
        for t in tasks {
            if !all.contains(&t) {
                all.push(t);
            }
        }
    }
    if all.is_empty() {
        return Err(tasks::no_tasks(&a.sets).into());
    }
    let opts = task_table::TableOptions {
        slam_run: a.slam_run.unwrap_or_else(default_slam_run),
        cpu_limit: a.cpu_limit,
        wall_limit: wall_limit(a.wall_limit, a.cpu_limit),
        slam_args: a.slam_args,
    };
    let (counts, runs) = task_table::run_table(&all, &opts, &mut std::io::stdout().lock())?;
    print!("{}", task_table::footer(&counts, &opts));
    print!("{}", task_table::breakdown(&runs, a.breakdown));
    Ok(())
}
