//! Running the benchmark: every (task, configuration) pair as a separate `slam-run` process,
//! `jobs` at a time, each under limits:
//! - CPU time, as CPU time: the soft `RLIMIT_CPU` of the process is the limit rounded up to a
//!   whole second (the kernel's unit), where the kernel sends SIGXCPU — `slam-run` catches it
//!   and ends with `UNKNOWN (timeout)` and its statistics — and the hard limit 2 s later kills
//!   a process that does not stop. A run is a timeout when its CPU time, measured by `wait4`,
//!   reached the limit (whatever it answered, as in BenchExec), or SIGXCPU ended it.
//! - wall-clock time, a separate and generous limit (for a process that sleeps or waits):
//!   passed to `slam-run` as `--timeout`, so that slam-run stops itself there with its
//!   statistics, and enforced with SIGKILL a few seconds later. Not the CPU limit: `--timeout`
//!   is wall-clock time, which a loaded machine stretches (a run of 1.98 s CPU took 3.08 s of
//!   wall-clock time), and a run is not to be charged for the machine's load.
//! - memory: `RLIMIT_AS`; an allocation failure counts as `memory`.
//!
//! CPU time and peak memory are the process's own (`wait4`'s resource usage). Each finished run
//! is appended at once to `results.jsonl` in the output directory; `--resume` reads it, checks
//! that the benchmark is the same one (`bench.json`: configurations and limits), and runs only
//! the missing pairs. `--shard i/n` runs the pairs whose index in the sorted (task,
//! configuration) order is `i − 1` modulo `n`, so shards on several machines partition the
//! benchmark and `slam-bench merge` puts them together. A child is killed when the benchmark
//! dies (`PR_SET_PDEATHSIG`), so a killed benchmark leaves no runs behind.

use std::collections::BTreeSet;
use std::os::unix::process::CommandExt as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

use crate::BenchError;
use crate::config::{Config, DimensionRecord};
use crate::progress::Progress;
use crate::provenance::Provenance;
use crate::results::{self, End, ROW_FORMAT, Row, TimeLimit};
use crate::stats::RunStats;
use crate::tasks::Task;

/// How to run a benchmark.
#[derive(Debug, Clone)]
pub struct RunOptions {
    /// The `slam-run` executable (or a stand-in with its command line).
    pub slam_run: PathBuf,
    /// Processes at a time.
    pub jobs: usize,
    /// CPU seconds per run.
    pub cpu_limit: f64,
    /// Wall-clock seconds per run (`slam-run --timeout`).
    pub wall_limit: f64,
    /// Address-space limit per run, in MiB.
    pub mem_limit_mib: u64,
    /// Where `results.jsonl`, `bench.json` and the reports go.
    pub out_dir: PathBuf,
    /// Continue the benchmark already in `out_dir`.
    pub resume: bool,
    /// Run only slice `i` (1-based) of `n`.
    pub shard: Option<(usize, usize)>,
    /// Show progress on stderr.
    pub progress: bool,
    /// Keep each run's standard output and error in `out_dir` ([`results::output_stem`]).
    pub keep_output: bool,
}

/// The format tag of `bench.json`.
pub const META_FORMAT: &str = "slam-bench/2";

/// What identifies a benchmark in its output directory (`bench.json`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Meta {
    /// `slam-bench/2` (`/1` had no wall-clock limit).
    pub format: String,
    /// The configurations.
    pub configs: Vec<Config>,
    /// The strategy dimensions the configurations set, with the `slam-run` option of each
    /// (a `--resume` must mean the same options by the same names).
    #[serde(default)]
    pub schema: Vec<DimensionRecord>,
    /// CPU seconds per run.
    pub cpu_limit: f64,
    /// Wall-clock seconds per run.
    #[serde(default)]
    pub wall_limit: f64,
    /// MiB per run.
    pub mem_limit_mib: u64,
    /// The shard, if any.
    pub shard: Option<(usize, usize)>,
    /// The host, the `slam-run` version and the start (not part of what a `--resume` must
    /// match; absent in older files).
    #[serde(default)]
    pub provenance: Provenance,
}

impl Meta {
    /// The same benchmark: configurations, schema, limits and shard (where and when it ran
    /// aside).
    pub fn same_benchmark(&self, other: &Meta) -> bool {
        Meta {
            provenance: Provenance::default(),
            ..self.clone()
        } == Meta {
            provenance: Provenance::default(),
            ..other.clone()
        }
    }
}

/// Parses `i/n` (1 ≤ i ≤ n).
pub fn parse_shard(s: &str) -> Result<(usize, usize), BenchError> {
    let bad = || BenchError::Input(format!("--shard {s}: expected I/N with 1 <= I <= N"));
    let (i, n) = s.split_once('/').ok_or_else(bad)?;
    let (i, n): (usize, usize) = (
        i.trim().parse().map_err(|_| bad())?,
        n.trim().parse().map_err(|_| bad())?,
    );
    if i == 0 || n == 0 || i > n {
        return Err(bad());
    }
    Ok((i, n))
}

/// The (task, configuration) index pairs of the benchmark, in order, restricted to a shard.
pub fn pairs(tasks: usize, configs: usize, shard: Option<(usize, usize)>) -> Vec<(usize, usize)> {
    (0..tasks)
        .flat_map(|t| (0..configs).map(move |c| (t, c)))
        .enumerate()
        .filter(|(k, _)| shard.is_none_or(|(i, n)| k % n == i - 1))
        .map(|(_, p)| p)
        .collect()
}

/// Runs the benchmark; returns every row of the output directory's results (earlier ones
/// included on `--resume`).
pub fn run_benchmark(
    tasks: &[Task],
    configs: &[Config],
    opts: &RunOptions,
) -> Result<Vec<Row>, BenchError> {
    let out = &opts.out_dir;
    std::fs::create_dir_all(out).map_err(|e| BenchError::io(out, e))?;
    let jsonl = out.join("results.jsonl");
    let meta_path = out.join("bench.json");
    let meta = Meta {
        format: META_FORMAT.into(),
        configs: configs.to_vec(),
        schema: crate::config::schema_of(configs),
        cpu_limit: opts.cpu_limit,
        wall_limit: opts.wall_limit,
        mem_limit_mib: opts.mem_limit_mib,
        shard: opts.shard,
        provenance: Provenance::here(&opts.slam_run),
    };
    let mut meta = meta;
    let has_rows = std::fs::metadata(&jsonl).is_ok_and(|m| m.len() > 0);
    let mut earlier = Vec::new();
    if opts.resume {
        if let Ok(text) = std::fs::read_to_string(&meta_path) {
            let old: Meta = serde_json::from_str(&text)
                .map_err(|e| BenchError::Input(format!("{}: {e}", meta_path.display())))?;
            if old.format != meta.format {
                return Err(BenchError::Input(format!(
                    "{}: written by another version of slam-bench ({}, this one writes {}): \
                     start the benchmark again in another --out",
                    meta_path.display(),
                    old.format,
                    meta.format
                )));
            }
            if !old.same_benchmark(&meta) {
                return Err(BenchError::Input(format!(
                    "{}: --resume needs the same configurations (and the same meaning of \
                     their dimensions), limits and shard as the interrupted benchmark",
                    out.display()
                )));
            }
            meta.provenance = resumed(&old.provenance, meta.provenance);
        }
        if has_rows {
            earlier = results::read_jsonl(&jsonl)?;
        }
    } else if has_rows {
        return Err(BenchError::Input(format!(
            "{} already holds results: continue it with --resume, or choose another --out",
            jsonl.display()
        )));
    }
    let meta_text = serde_json::to_string_pretty(&meta).expect("meta serialises");
    std::fs::write(&meta_path, meta_text).map_err(|e| BenchError::io(&meta_path, e))?;
    let done: BTreeSet<(String, String)> = earlier
        .iter()
        .map(|r| (r.task.clone(), r.config.clone()))
        .collect();
    let todo: Vec<(usize, usize)> = pairs(tasks.len(), configs.len(), opts.shard)
        .into_iter()
        .filter(|&(t, c)| !done.contains(&(tasks[t].id.clone(), configs[c].name.clone())))
        .collect();
    let scratch = out.join("scratch");
    std::fs::create_dir_all(&scratch).map_err(|e| BenchError::io(&scratch, e))?;
    let mut app = results::Appender::open(&jsonl)?;
    let next = AtomicUsize::new(0);
    let (tx, rx) = mpsc::channel::<Event>();
    let mut fresh = Vec::new();
    let mut progress = Progress::new(todo.len(), opts.progress);
    let mut write_error = None;
    std::thread::scope(|s| {
        for _ in 0..opts.jobs.max(1) {
            let tx = tx.clone();
            let (todo, next, scratch) = (&todo, &next, &scratch);
            s.spawn(move || {
                loop {
                    let k = next.fetch_add(1, Ordering::SeqCst);
                    let Some(&(t, c)) = todo.get(k) else { break };
                    let _ = tx.send(Event::Started(k, t, c));
                    let row = run_one(&tasks[t], &configs[c], opts, scratch, k);
                    if tx.send(Event::Finished(k, Box::new(row))).is_err() {
                        break;
                    }
                }
            });
        }
        drop(tx);
        loop {
            match rx.recv_timeout(Duration::from_millis(500)) {
                Ok(Event::Started(k, t, c)) => progress.started(k, &tasks[t].id, &configs[c].name),
                Ok(Event::Finished(k, row)) => {
                    if write_error.is_none()
                        && let Err(e) = app.push(&row)
                    {
                        write_error = Some(e);
                        // Stop handing out work; running processes finish.
                        next.store(usize::MAX / 2, Ordering::SeqCst);
                    }
                    progress.finished(
                        k,
                        row.status.wrong() || row.status == results::Status::Error,
                    );
                    fresh.push(*row);
                }
                Err(mpsc::RecvTimeoutError::Timeout) => progress.show(false),
                Err(mpsc::RecvTimeoutError::Disconnected) => break,
            }
        }
    });
    progress.show(true);
    let _ = std::fs::remove_dir(&scratch);
    if let Some(e) = write_error {
        return Err(e);
    }
    Ok(results::merge([earlier, fresh]))
}

/// What a worker tells the benchmark: run `k` (task, configuration) started, or finished.
enum Event {
    Started(usize, usize, usize),
    Finished(usize, Box<Row>),
}

/// The provenance of a resumed benchmark: its first start, and both tool versions when the
/// `slam-run` that continues it is another.
fn resumed(old: &Provenance, now: Provenance) -> Provenance {
    if old.started.is_empty() {
        return now;
    }
    let tool_version = if old.tool_version == now.tool_version {
        now.tool_version
    } else {
        format!("{}, resumed with {}", old.tool_version, now.tool_version)
    };
    Provenance {
        started: old.started.clone(),
        tool_version,
        ..now
    }
}

/// Runs one pair and describes the outcome.
pub fn run_one(task: &Task, config: &Config, opts: &RunOptions, scratch: &Path, k: usize) -> Row {
    run_captured(task, config, opts, scratch, k).row
}

/// A finished run: its row, and what `slam-run` printed on stdout (the verdict line first,
/// the summary line last).
#[derive(Debug, Clone)]
pub struct Captured {
    /// The row.
    pub row: Row,
    /// `slam-run`'s standard output.
    pub stdout: String,
    /// Its `--stats-json`, when it wrote one.
    pub stats: Option<RunStats>,
}

/// Runs one pair as [`run_one`] does, keeping `slam-run`'s standard output. `k` names its
/// files in `scratch`.
pub fn run_captured(
    task: &Task,
    config: &Config,
    opts: &RunOptions,
    scratch: &Path,
    k: usize,
) -> Captured {
    let stats = scratch.join(format!("run-{k}.stats.json"));
    let out_path = scratch.join(format!("run-{k}.out"));
    let err_path = scratch.join(format!("run-{k}.err"));
    let _ = std::fs::remove_file(&stats);
    let end = execute(task, config, opts, &stats, &out_path, &err_path);
    let stdout = std::fs::read_to_string(&out_path).unwrap_or_default();
    let stderr = std::fs::read_to_string(&err_path).unwrap_or_default();
    let verdict = stdout
        .lines()
        .next()
        .map(str::trim)
        .filter(|l| {
            ["TRUE", "FALSE", "UNKNOWN"]
                .iter()
                .any(|p| l.starts_with(p))
        })
        .map(String::from);
    let (mut end, spawn_error) = match end {
        Ok(e) => (e, None),
        Err(e) => (
            End::default(),
            Some(format!("cannot run {}: {e}", opts.slam_run.display())),
        ),
    };
    end.out_of_memory = ["memory allocation of", "out of memory", "std::bad_alloc"]
        .iter()
        .any(|p| stderr.contains(p));
    end.limit = time_limit(&end, verdict.as_deref(), opts);
    let status = results::classify(verdict.as_deref(), task.expected, &end);
    let st = std::fs::read_to_string(&stats)
        .ok()
        .and_then(|t| RunStats::parse(&t));
    let num = |f: fn(&RunStats) -> Option<u64>| st.as_ref().and_then(f);
    let note = if let Some(e) = spawn_error {
        e
    } else if verdict.is_none() {
        error_note(&stderr)
    } else {
        String::new()
    };
    if opts.keep_output {
        keep_output(opts, task, config, &out_path, &err_path);
    }
    for p in [&stats, &out_path, &err_path] {
        let _ = std::fs::remove_file(p);
    }
    let row = Row {
        format: ROW_FORMAT.into(),
        task: task.id.clone(),
        set: task.set.clone(),
        config: config.name.clone(),
        expected: task.expected,
        verdict: verdict.unwrap_or_default(),
        status,
        end,
        iterations: st.as_ref().map(RunStats::iteration_count),
        predicates: num(|s| s.predicates),
        constraints: num(|s| s.constraints),
        constrain_calls: num(|s| s.constrain_calls),
        ndf: num(|s| s.ndf),
        prover_queries: num(|s| s.prover_queries),
        phases: st.as_ref().map(RunStats::phases),
        cubes: st
            .as_ref()
            .and_then(RunStats::last_abstraction)
            .map(|c| c.cubes),
        capped_statements: st
            .as_ref()
            .and_then(RunStats::last_abstraction)
            .map(|c| c.exact_capped),
        note,
    };
    Captured {
        row,
        stdout,
        stats: st,
    }
}

/// Moves a run's standard output and error to where the report links them
/// ([`results::output_stem`] in the output directory). A file that cannot be moved is left
/// out: the report then has no link for it, and the row is unaffected.
fn keep_output(opts: &RunOptions, task: &Task, config: &Config, out: &Path, err: &Path) {
    let stem = opts
        .out_dir
        .join(results::output_stem(&task.id, &config.name));
    if let Some(dir) = stem.parent()
        && std::fs::create_dir_all(dir).is_ok()
    {
        for (from, ext) in [(out, "out"), (err, "err")] {
            let _ = std::fs::rename(from, format!("{}.{ext}", stem.display()));
        }
    }
}

/// What a run without a verdict says about why: the first line of a command-line error (as
/// clap writes it: `error: unexpected argument '--refine' found`), else the last line of
/// stderr; at most 300 characters.
fn error_note(stderr: &str) -> String {
    let line = stderr
        .lines()
        .find(|l| l.starts_with("error:"))
        .or_else(|| stderr.lines().rev().find(|l| !l.trim().is_empty()))
        .unwrap_or("");
    line.trim().chars().take(300).collect()
}

/// Which time limit the run reached (module doc): the CPU limit when its CPU time reached it
/// or SIGXCPU ended it; the wall-clock limit when it ran that long or was killed for it. A run
/// that stopped itself with `UNKNOWN (timeout)` before the wall-clock limit passed cannot have
/// met its `--timeout` (which is that limit, and slam-run's clock starts after ours): it caught
/// SIGXCPU, which the kernel sends by its own CPU clock — sampled differently from the usage
/// `wait4` reports, so on a loaded virtual machine such a run can report less CPU time than
/// the limit.
pub fn time_limit(end: &End, verdict: Option<&str>, opts: &RunOptions) -> Option<TimeLimit> {
    if end.cpu_seconds >= opts.cpu_limit || end.signal == Some(libc::SIGXCPU) {
        Some(TimeLimit::Cpu)
    } else if end.killed_for_time || end.wall_seconds >= opts.wall_limit {
        Some(TimeLimit::Wall)
    } else if verdict.is_some_and(|v| v.starts_with("UNKNOWN (timeout")) {
        Some(TimeLimit::Cpu)
    } else {
        None
    }
}

/// Seconds after the wall-clock limit before a run that did not stop itself is killed.
const WALL_GRACE: f64 = 5.0;

/// Seconds between the soft CPU limit (SIGXCPU) and the hard one (SIGKILL): time for slam-run
/// to write its statistics.
const CPU_GRACE: libc::rlim_t = 2;

/// Spawns `slam-run` with the limits and waits for it (see the module doc).
fn execute(
    task: &Task,
    config: &Config,
    opts: &RunOptions,
    stats: &Path,
    out_path: &Path,
    err_path: &Path,
) -> std::io::Result<End> {
    let stdout = std::fs::File::create(out_path)?;
    let stderr = std::fs::File::create(err_path)?;
    let mut cmd = Command::new(&opts.slam_run);
    cmd.args(&config.args)
        .arg("--timeout")
        .arg(format!("{}", opts.wall_limit))
        .arg("--stats-json")
        .arg(stats)
        .arg(&task.path)
        .stdin(Stdio::null())
        .stdout(stdout)
        .stderr(stderr);
    let cpu = opts.cpu_limit.ceil().max(1.0) as libc::rlim_t;
    let mem = opts.mem_limit_mib.saturating_mul(1 << 20) as libc::rlim_t;
    let limits = move || {
        let cpu_lim = libc::rlimit {
            rlim_cur: cpu,
            rlim_max: cpu + CPU_GRACE,
        };
        let mem_lim = libc::rlimit {
            rlim_cur: mem,
            rlim_max: mem,
        };
        // SAFETY: plain system calls on valid arguments.
        unsafe {
            libc::setrlimit(libc::RLIMIT_CPU, &cpu_lim);
            if mem > 0 {
                libc::setrlimit(libc::RLIMIT_AS, &mem_lim);
            }
            libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL);
        }
        Ok(())
    };
    // SAFETY: the hook makes only async-signal-safe calls (setrlimit, prctl) between fork and
    // exec.
    unsafe {
        cmd.pre_exec(limits);
    }
    let start = Instant::now();
    let child = cmd.spawn()?;
    let pid = child.id() as libc::pid_t;
    let wall_limit = Duration::from_secs_f64(opts.wall_limit + WALL_GRACE);
    let mut killed = false;
    let mut status: libc::c_int = 0;
    // SAFETY: a zeroed rusage is a valid value of this plain C struct.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    loop {
        // SAFETY: waits for our own child; the pointers are to live locals.
        let r = unsafe { libc::wait4(pid, &mut status, libc::WNOHANG, &mut usage) };
        if r == pid {
            break;
        }
        if r < 0 {
            let e = std::io::Error::last_os_error();
            if e.kind() == std::io::ErrorKind::Interrupted {
                continue;
            }
            return Err(e);
        }
        if !killed && start.elapsed() > wall_limit {
            // SAFETY: signals our own child, not yet reaped.
            unsafe { libc::kill(pid, libc::SIGKILL) };
            killed = true;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    let tv = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 / 1e6;
    let signal = libc::WIFSIGNALED(status).then(|| libc::WTERMSIG(status));
    Ok(End {
        exit_code: libc::WIFEXITED(status).then(|| libc::WEXITSTATUS(status)),
        signal,
        cpu_seconds: tv(usage.ru_utime) + tv(usage.ru_stime),
        wall_seconds: start.elapsed().as_secs_f64(),
        peak_mem_mib: usage.ru_maxrss as f64 / 1024.0,
        killed_for_time: killed,
        limit: None,
        out_of_memory: false,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn time_limits() {
        let opts = RunOptions {
            slam_run: PathBuf::from("slam-run"),
            jobs: 1,
            cpu_limit: 3.0,
            wall_limit: 39.0,
            mem_limit_mib: 0,
            out_dir: PathBuf::new(),
            resume: false,
            shard: None,
            progress: false,
            keep_output: false,
        };
        let end = |cpu: f64, wall: f64| End {
            cpu_seconds: cpu,
            wall_seconds: wall,
            ..End::default()
        };
        // Sleeping past the CPU limit is no timeout; computing up to it is.
        assert_eq!(time_limit(&end(1.98, 3.08), Some("TRUE"), &opts), None);
        assert_eq!(time_limit(&end(0.01, 5.0), Some("TRUE"), &opts), None);
        assert_eq!(
            time_limit(&end(3.0, 3.1), Some("TRUE"), &opts),
            Some(TimeLimit::Cpu)
        );
        let xcpu = End {
            signal: Some(libc::SIGXCPU),
            ..end(2.99, 3.0)
        };
        assert_eq!(time_limit(&xcpu, None, &opts), Some(TimeLimit::Cpu));
        assert_eq!(
            time_limit(&end(0.5, 39.0), Some("UNKNOWN (timeout)"), &opts),
            Some(TimeLimit::Wall)
        );
        // Stopped at a SIGXCPU that came at a reported 2.9 s: the CPU limit.
        assert_eq!(
            time_limit(&end(2.9, 3.2), Some("UNKNOWN (timeout)"), &opts),
            Some(TimeLimit::Cpu)
        );
        let guarded = End {
            killed_for_time: true,
            signal: Some(libc::SIGKILL),
            ..end(0.5, 44.0)
        };
        assert_eq!(time_limit(&guarded, None, &opts), Some(TimeLimit::Wall));
        assert_eq!(
            error_note("error: unexpected argument '--refine' found\n\nUsage: x\n\nFor more"),
            "error: unexpected argument '--refine' found"
        );
        assert_eq!(error_note("a\nslam-run: boom\n\n"), "slam-run: boom");
    }

    #[test]
    fn shards_partition_the_pairs() {
        let all = pairs(5, 3, None);
        assert_eq!(all.len(), 15);
        let mut union: Vec<_> = (1..=4).flat_map(|i| pairs(5, 3, Some((i, 4)))).collect();
        union.sort();
        assert_eq!(union, all);
        assert!(parse_shard("0/2").is_err() && parse_shard("3/2").is_err());
        assert_eq!(parse_shard("2/3").unwrap(), (2, 3));
    }
}
