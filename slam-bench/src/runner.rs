//! Running the benchmark: every (task, configuration) pair as a separate `slam-run` process,
//! `jobs` at a time, each under limits:
//! - CPU time: `slam-run --timeout LIMIT` ends the run itself with `UNKNOWN (timeout)`; the
//!   `RLIMIT_CPU` of the process (LIMIT + 2 s) and a wall-clock guard (2 × LIMIT + 10 s, for a
//!   process that sleeps) end it otherwise.
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
use std::io::{IsTerminal as _, Write as _};
use std::os::unix::process::CommandExt as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

use crate::BenchError;
use crate::config::Config;
use crate::results::{self, End, ROW_FORMAT, Row};
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
}

/// What identifies a benchmark in its output directory (`bench.json`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Meta {
    /// `slam-bench/1`.
    pub format: String,
    /// The configurations.
    pub configs: Vec<Config>,
    /// CPU seconds per run.
    pub cpu_limit: f64,
    /// MiB per run.
    pub mem_limit_mib: u64,
    /// The shard, if any.
    pub shard: Option<(usize, usize)>,
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
        format: "slam-bench/1".into(),
        configs: configs.to_vec(),
        cpu_limit: opts.cpu_limit,
        mem_limit_mib: opts.mem_limit_mib,
        shard: opts.shard,
    };
    let has_rows = std::fs::metadata(&jsonl).is_ok_and(|m| m.len() > 0);
    let mut earlier = Vec::new();
    if opts.resume {
        if let Ok(text) = std::fs::read_to_string(&meta_path) {
            let old: Meta = serde_json::from_str(&text)
                .map_err(|e| BenchError::Input(format!("{}: {e}", meta_path.display())))?;
            if old != meta {
                return Err(BenchError::Input(format!(
                    "{}: --resume needs the same configurations, limits and shard as the \
                     interrupted benchmark",
                    out.display()
                )));
            }
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
    let running = AtomicUsize::new(0);
    let (tx, rx) = mpsc::channel::<Row>();
    let mut fresh = Vec::new();
    let mut progress = Progress::new(todo.len(), opts.progress);
    let mut write_error = None;
    std::thread::scope(|s| {
        for _ in 0..opts.jobs.max(1) {
            let tx = tx.clone();
            let (todo, next, running, scratch) = (&todo, &next, &running, &scratch);
            s.spawn(move || {
                loop {
                    let k = next.fetch_add(1, Ordering::SeqCst);
                    let Some(&(t, c)) = todo.get(k) else { break };
                    running.fetch_add(1, Ordering::SeqCst);
                    let row = run_one(&tasks[t], &configs[c], opts, scratch, k);
                    running.fetch_sub(1, Ordering::SeqCst);
                    if tx.send(row).is_err() {
                        break;
                    }
                }
            });
        }
        drop(tx);
        loop {
            match rx.recv_timeout(Duration::from_millis(500)) {
                Ok(row) => {
                    if write_error.is_none()
                        && let Err(e) = app.push(&row)
                    {
                        write_error = Some(e);
                        // Stop handing out work; running processes finish.
                        next.store(usize::MAX / 2, Ordering::SeqCst);
                    }
                    progress.finished(&row);
                    fresh.push(row);
                }
                Err(mpsc::RecvTimeoutError::Timeout) => {}
                Err(mpsc::RecvTimeoutError::Disconnected) => break,
            }
            progress.show(running.load(Ordering::SeqCst), false);
        }
    });
    progress.show(0, true);
    let _ = std::fs::remove_dir(&scratch);
    if let Some(e) = write_error {
        return Err(e);
    }
    Ok(results::merge([earlier, fresh]))
}

/// The progress line.
struct Progress {
    total: usize,
    done: usize,
    failing: usize,
    start: Instant,
    last: Instant,
    enabled: bool,
    tty: bool,
}

impl Progress {
    fn new(total: usize, enabled: bool) -> Progress {
        Progress {
            total,
            done: 0,
            failing: 0,
            start: Instant::now(),
            last: Instant::now(),
            enabled,
            tty: std::io::stderr().is_terminal(),
        }
    }

    fn finished(&mut self, row: &Row) {
        self.done += 1;
        if row.status.wrong() || row.status == results::Status::Error {
            self.failing += 1;
        }
    }

    fn show(&mut self, running: usize, last: bool) {
        if !self.enabled {
            return;
        }
        let every = if self.tty { 0.5 } else { 10.0 };
        if !last && self.last.elapsed().as_secs_f64() < every {
            return;
        }
        self.last = Instant::now();
        let el = self.start.elapsed().as_secs_f64();
        let left = if self.done > 0 {
            el / self.done as f64 * (self.total - self.done) as f64
        } else {
            f64::NAN
        };
        let mmss = |s: f64| {
            if s.is_finite() {
                format!("{:02}:{:02}", (s / 60.0) as u64, (s % 60.0) as u64)
            } else {
                "--:--".into()
            }
        };
        let width = 24;
        let filled = (self.done * width).checked_div(self.total).unwrap_or(width);
        let line = format!(
            "[{}{}] {}/{} done, {running} running, {} failing, {} elapsed, ~{} left",
            "#".repeat(filled),
            ".".repeat(width - filled),
            self.done,
            self.total,
            self.failing,
            mmss(el),
            mmss(left)
        );
        let mut err = std::io::stderr().lock();
        if self.tty {
            let _ = write!(err, "\r\x1b[2K{line}");
            if last {
                let _ = writeln!(err);
            }
        } else {
            let _ = writeln!(err, "slam-bench: {line}");
        }
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
    let status = results::classify(verdict.as_deref(), task.expected, &end, opts.cpu_limit);
    let st: Option<serde_json::Value> = std::fs::read_to_string(&stats)
        .ok()
        .and_then(|t| serde_json::from_str(&t).ok());
    let num = |key: &str| {
        st.as_ref()
            .and_then(|v| v.get(key))
            .and_then(|v| v.as_u64())
    };
    let iterations = st
        .as_ref()
        .and_then(|v| v.get("iterations"))
        .and_then(|v| v.as_array())
        .map(|a| a.len() as u64);
    let note = if let Some(e) = spawn_error {
        e
    } else if verdict.is_none() {
        let last = stderr
            .lines()
            .rev()
            .find(|l| !l.trim().is_empty())
            .unwrap_or("");
        last.chars().take(300).collect()
    } else {
        String::new()
    };
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
        iterations,
        predicates: num("predicates"),
        constraints: num("constraints"),
        constrain_calls: num("constrain_calls"),
        ndf: num("ndf"),
        prover_queries: num("prover_queries"),
        note,
    };
    Captured { row, stdout }
}

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
        .arg(format!("{}", opts.cpu_limit))
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
            rlim_cur: cpu + 2,
            rlim_max: cpu + 4,
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
    let wall_limit = Duration::from_secs_f64(2.0 * opts.cpu_limit + 10.0);
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
        killed_for_time: killed || signal == Some(libc::SIGXCPU),
        out_of_memory: false,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

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
