//! `bebop-bench`: times the release `bebop` on the generated families and prints a table.
//!
//! For each family × size factor it generates the program ([`bp_bench::families`]), writes it
//! to `bench-out/<family>-s<size>.bp`, runs `bebop --stats FILE` as a child process (the binary
//! is `$BEBOP`, else `target/release/bebop`), and records the wall time, the CPU time and the
//! child's peak resident set (from `wait4`'s `rusage`), the largest BDD and the iteration count
//! that `--stats` reports, and whether the verdict is the expected one (exit 0 for the safe
//! families, exit 10 with a trace for `counter` and `relay`). For the safe families it also
//! checks, once at size 1 and untimed, that `bebop --label SLIC_OK` reaches the final assert, so
//! that "safe" is not vacuous; for the unsafe ones it reruns `bebop --trace-json` (untimed) and
//! checks that the reference interpreter of `bp-testkit` replays the trace and that the error is
//! at the expected call depth (2^K − 1 for `counter`, `main` for `relay`). The child runs under a time limit (killed after it) and an address-space limit.
//!
//! Rows over the goal (2 s of CPU time, 500 MB peak RSS: what a Boolean program of 10⁵
//! statements shaped like c2bp's output should take) are marked. The table also goes to
//! `bench-out/results.csv`. Exit status: 1 on a wrong verdict, a crash or a failed label check
//! (with `--strict`, also on a time-out or a row over the goal), 2 on a usage error, else 0.

use bp_bench::families::{Expect, Family, Instance, OK_LABEL, generate};
use bp_grammar::trace::Trace;
use bp_testkit::reference::RefProperty;
use bp_testkit::replay::replay;
use std::fmt::Write as _;
use std::fs::File;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode, Stdio};
use std::time::{Duration, Instant};

/// The goal: CPU time (user and system) per instance.
const GOAL_SECS: f64 = 2.0;
/// The goal: peak resident set per instance.
const GOAL_MB: f64 = 500.0;

const USAGE: &str = "\
usage: bebop-bench [options]
  --bebop PATH        the bebop binary (default: $BEBOP, else target/release/bebop)
  --out DIR           where programs, outputs and results.csv go (default: bench-out)
  --families LIST     comma-separated subset of chain,straight,counter,order (default: all)
  --sizes LIST        comma-separated size factors (default: 1,2,4)
  --seed N            one seed for every family (default: a fixed seed per family)
  --timeout SECS      kill a run after this long (default: 60)
  --mem-limit MB      address-space limit of a run, 0 for none (default: 4096)
  --repeat N          run each instance N times, report the fastest (default: 1)
  --no-label-check    skip the `--label SLIC_OK` reachability checks
  --strict            also fail on time-outs and on rows over the goal (2 s CPU, 500 MB)";

struct Config {
    bebop: PathBuf,
    out: PathBuf,
    families: Vec<Family>,
    sizes: Vec<u32>,
    seed: Option<u64>,
    timeout: Duration,
    mem_limit_mb: u64,
    repeat: u32,
    label_check: bool,
    strict: bool,
}

fn parse_args() -> Result<Config, String> {
    let mut cfg = Config {
        bebop: std::env::var_os("BEBOP")
            .map(PathBuf::from)
            .unwrap_or_else(|| PathBuf::from("target/release/bebop")),
        out: PathBuf::from("bench-out"),
        families: Family::ALL.to_vec(),
        sizes: vec![1, 2, 4],
        seed: None,
        timeout: Duration::from_secs(60),
        mem_limit_mb: 4096,
        repeat: 1,
        label_check: true,
        strict: false,
    };
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let mut value = |name: &str| args.next().ok_or(format!("{name} needs a value"));
        match arg.as_str() {
            "--bebop" => cfg.bebop = value("--bebop")?.into(),
            "--out" => cfg.out = value("--out")?.into(),
            "--families" => {
                cfg.families = value("--families")?
                    .split(',')
                    .map(|f| Family::from_name(f.trim()).ok_or(format!("no family `{f}`")))
                    .collect::<Result<_, _>>()?;
            }
            "--sizes" => {
                cfg.sizes = value("--sizes")?
                    .split(',')
                    .map(|s| match s.trim().parse::<u32>() {
                        Ok(v) if v > 0 => Ok(v),
                        _ => Err(format!("bad size `{s}`")),
                    })
                    .collect::<Result<_, _>>()?;
            }
            "--seed" => cfg.seed = Some(number(&value("--seed")?)?),
            "--timeout" => {
                let secs: f64 = value("--timeout")?
                    .parse()
                    .map_err(|_| "bad --timeout".to_string())?;
                if !(secs > 0.0 && secs.is_finite()) {
                    return Err("bad --timeout".into());
                }
                cfg.timeout = Duration::from_secs_f64(secs);
            }
            "--mem-limit" => cfg.mem_limit_mb = number(&value("--mem-limit")?)?,
            "--repeat" => cfg.repeat = number(&value("--repeat")?)?.max(1) as u32,
            "--no-label-check" => cfg.label_check = false,
            "--strict" => cfg.strict = true,
            "-h" | "--help" => {
                println!("{USAGE}");
                std::process::exit(0);
            }
            _ => return Err(format!("unknown argument `{arg}`")),
        }
    }
    Ok(cfg)
}

fn number(text: &str) -> Result<u64, String> {
    text.parse().map_err(|_| format!("bad number `{text}`"))
}

/// How a child run ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum End {
    Exited(i32),
    Signalled(i32),
    TimedOut,
}

/// One child run.
struct Run {
    end: End,
    wall: Duration,
    cpu: Duration,
    max_rss_mb: f64,
    stdout: String,
    stderr: String,
}

/// Runs `bebop ARGS` with stdout and stderr sent to `<stem>.out` / `<stem>.err`, under the
/// time and address-space limits, and measures it.
fn run_bebop(cfg: &Config, args: &[&str], stem: &Path) -> std::io::Result<Run> {
    let out_path = stem.with_extension("out");
    let err_path = stem.with_extension("err");
    let mut cmd = Command::new(&cfg.bebop);
    cmd.args(args)
        .stdin(Stdio::null())
        .stdout(File::create(&out_path)?)
        .stderr(File::create(&err_path)?);
    let limit_bytes = cfg.mem_limit_mb.saturating_mul(1 << 20);
    // SAFETY: between fork and exec the closure only calls `setpgid` and `setrlimit`, which are
    // async-signal-safe, and touches no memory but its own stack.
    unsafe {
        cmd.pre_exec(move || {
            // A process group of its own, so that a time-out kills whatever it started too.
            if libc::setpgid(0, 0) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            if limit_bytes > 0 {
                let limit = libc::rlimit {
                    rlim_cur: limit_bytes as libc::rlim_t,
                    rlim_max: limit_bytes as libc::rlim_t,
                };
                if libc::setrlimit(libc::RLIMIT_AS, &limit) != 0 {
                    return Err(std::io::Error::last_os_error());
                }
            }
            Ok(())
        });
    }
    let start = Instant::now();
    let child = cmd.spawn()?;
    let pid = child.id() as libc::pid_t;
    let mut status: libc::c_int = 0;
    // SAFETY: `rusage` is plain data; all zeroes is a valid value.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    let mut timed_out = false;
    let mut pause = Duration::from_micros(200);
    loop {
        // SAFETY: `pid` is our own child, not yet reaped (`child` is never waited on by std);
        // `status` and `usage` are valid for writes.
        let r = unsafe { libc::wait4(pid, &mut status, libc::WNOHANG, &mut usage) };
        if r == pid {
            break;
        }
        if r < 0 {
            let err = std::io::Error::last_os_error();
            if err.kind() == std::io::ErrorKind::Interrupted {
                continue;
            }
            return Err(err);
        }
        if !timed_out && start.elapsed() > cfg.timeout {
            timed_out = true;
            // SAFETY: the child is not reaped yet, so `pid` still names it and its group.
            unsafe { libc::kill(-pid, libc::SIGKILL) };
        }
        std::thread::sleep(pause);
        pause = (pause * 2).min(Duration::from_millis(5));
    }
    let wall = start.elapsed();
    drop(child);
    let tv = |t: libc::timeval| Duration::new(t.tv_sec as u64, (t.tv_usec as u32) * 1000);
    let end = if timed_out {
        End::TimedOut
    } else if libc::WIFEXITED(status) {
        End::Exited(libc::WEXITSTATUS(status))
    } else {
        End::Signalled(libc::WTERMSIG(status))
    };
    Ok(Run {
        end,
        wall,
        cpu: tv(usage.ru_utime) + tv(usage.ru_stime),
        // Linux reports ru_maxrss in kilobytes.
        max_rss_mb: usage.ru_maxrss as f64 / 1024.0,
        stdout: std::fs::read_to_string(&out_path).unwrap_or_default(),
        stderr: std::fs::read_to_string(&err_path).unwrap_or_default(),
    })
}

/// The figures read from `bebop --stats` output.
#[derive(Clone, Debug, Default)]
struct Stats {
    largest_bdd: Option<u64>,
    peak_live: Option<u64>,
    iterations: Option<u64>,
}

/// Reads `key: value` / `key = value` lines (on stdout or stderr) and picks the largest-BDD
/// and iteration figures by key words.
fn parse_stats(text: &str) -> Stats {
    let mut stats = Stats::default();
    for line in text.lines() {
        let Some((key, value)) = line.split_once(':').or_else(|| line.split_once('=')) else {
            continue;
        };
        let key = key.trim().to_ascii_lowercase();
        let Some(value) = first_number(value) else {
            continue;
        };
        if key.contains("largest") || key.contains("max bdd") {
            stats.largest_bdd = Some(stats.largest_bdd.map_or(value, |v| v.max(value)));
        } else if key.contains("peak live") {
            stats.peak_live = Some(stats.peak_live.map_or(value, |v| v.max(value)));
        } else if key.contains("iteration") {
            stats.iterations = Some(stats.iterations.map_or(value, |v| v.max(value)));
        }
    }
    stats
}

/// The first unsigned integer in `text` (digits may be grouped with `,` or `_`).
fn first_number(text: &str) -> Option<u64> {
    let start = text.find(|c: char| c.is_ascii_digit())?;
    let digits: String = text[start..]
        .chars()
        .take_while(|c| c.is_ascii_digit() || *c == ',' || *c == '_')
        .filter(char::is_ascii_digit)
        .collect();
    digits.parse().ok()
}

/// One row of the table.
struct Row {
    inst: Instance,
    verdict: &'static str,
    detail: String,
    run: Option<Run>,
    stats: Stats,
    label_check: Option<LabelCheck>,
}

/// The answer of `bebop --label SLIC_OK` on a safe instance.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum LabelCheck {
    /// Exit 10: the final assert is reachable.
    Reached,
    /// Exit 0: the final assert is unreachable, so "safe" was vacuous.
    NotReached,
    /// No verdict (time-out, crash, other exit code).
    NoAnswer,
}

impl Row {
    fn over_goal(&self) -> Vec<&'static str> {
        let mut over = Vec::new();
        match &self.run {
            Some(run) if run.end == End::TimedOut => over.push("time-out"),
            Some(run) => {
                if run.cpu.as_secs_f64() > GOAL_SECS {
                    over.push("time");
                }
                if run.max_rss_mb > GOAL_MB {
                    over.push("memory");
                }
            }
            None => {}
        }
        over
    }
}

/// Runs one instance (fastest of `repeat` runs) and judges its verdict.
fn bench_one(cfg: &Config, inst: Instance) -> Row {
    let stem = cfg
        .out
        .join(format!("{}-s{}", inst.family.name(), inst.size));
    let file = stem.with_extension("bp");
    let mut row = Row {
        inst,
        verdict: "ERROR",
        detail: String::new(),
        run: None,
        stats: Stats::default(),
        label_check: None,
    };
    if let Err(e) = std::fs::write(&file, &row.inst.text) {
        row.detail = format!("cannot write {}: {e}", file.display());
        return row;
    }
    let file_arg = file.to_string_lossy().into_owned();
    let mut best: Option<Run> = None;
    for _ in 0..cfg.repeat {
        match run_bebop(cfg, &["--stats", &file_arg], &stem) {
            Ok(run) => {
                let stop = run.end == End::TimedOut || run.end != End::Exited(expected_code(&row));
                if best.as_ref().is_none_or(|b| run.wall < b.wall) {
                    best = Some(run);
                }
                if stop {
                    break;
                }
            }
            Err(e) => {
                row.detail = format!("cannot run {}: {e}", cfg.bebop.display());
                return row;
            }
        }
    }
    let run = best.expect("at least one run");
    row.stats = parse_stats(&format!("{}\n{}", run.stdout, run.stderr));
    let expected = expected_code(&row);
    (row.verdict, row.detail) = match run.end {
        End::TimedOut => ("TIMEOUT", format!("killed after {:?}", cfg.timeout)),
        End::Signalled(sig) => ("ERROR", format!("killed by signal {sig}")),
        End::Exited(code) if code == expected => {
            if row.inst.expect == Expect::Unsafe && run.stdout.trim().is_empty() {
                ("WRONG", "exit 10 but no trace on stdout".to_string())
            } else {
                ("OK", String::new())
            }
        }
        End::Exited(code @ (0 | 10)) => (
            "WRONG",
            format!(
                "{} instead of {}",
                verdict_word(code),
                verdict_word(expected)
            ),
        ),
        End::Exited(code) => ("ERROR", format!("exit {code}: {}", first_line(&run.stderr))),
    };
    row.run = Some(run);

    if cfg.label_check
        && row.inst.size == cfg.sizes[0]
        && let Some(label) = row.inst.reachable_label
    {
        let stem = cfg.out.join(format!(
            "{}-s{}-label",
            row.inst.family.name(),
            row.inst.size
        ));
        let check = match run_bebop(cfg, &["--label", label, &file_arg], &stem) {
            Ok(r) if r.end == End::Exited(10) => LabelCheck::Reached,
            Ok(r) if r.end == End::Exited(0) => LabelCheck::NotReached,
            _ => LabelCheck::NoAnswer,
        };
        row.label_check = Some(check);
    }
    if row.verdict == "OK"
        && let Some(depth) = row.inst.error_depth
        && let Err(why) = check_trace(cfg, &row.inst, &file_arg, depth)
    {
        row.verdict = "WRONG";
        row.detail = why;
    }
    row
}

/// Runs `bebop --trace-json` (untimed) on an unsafe instance and checks the trace: the reference
/// interpreter replays it as a real execution reaching the error, and the error is at call
/// depth `depth`.
fn check_trace(cfg: &Config, inst: &Instance, file_arg: &str, depth: u64) -> Result<(), String> {
    let stem = cfg
        .out
        .join(format!("{}-s{}-trace", inst.family.name(), inst.size));
    let json = stem.with_extension("json");
    let json_arg = json.to_string_lossy().into_owned();
    match run_bebop(cfg, &["--trace-json", &json_arg, file_arg], &stem) {
        Ok(r) if r.end == End::Exited(10) => {}
        Ok(r) => return Err(format!("the trace run ended with {:?}", r.end)),
        Err(e) => return Err(format!("cannot run the trace run: {e}")),
    }
    let text = std::fs::read_to_string(&json).map_err(|e| format!("no trace JSON: {e}"))?;
    let trace = Trace::from_json(&text).map_err(|e| format!("bad trace JSON: {e}"))?;
    let prog = bp_grammar::parse(&inst.text).map_err(|_| "the program does not parse")?;
    replay(&prog, &trace, &RefProperty::AssertsAndSlicError)
        .map_err(|e| format!("the trace does not replay: {e}"))?;
    let last = trace.steps.last().ok_or("empty trace")?;
    if u64::from(last.depth) != depth {
        return Err(format!(
            "the error is at call depth {}, expected {depth}",
            last.depth
        ));
    }
    Ok(())
}

fn expected_code(row: &Row) -> i32 {
    match row.inst.expect {
        Expect::Safe => 0,
        Expect::Unsafe => 10,
    }
}

fn verdict_word(code: i32) -> &'static str {
    match code {
        0 => "safe",
        10 => "unsafe",
        _ => "no verdict",
    }
}

fn first_line(text: &str) -> &str {
    text.lines().find(|l| !l.trim().is_empty()).unwrap_or("")
}

fn opt(v: Option<u64>) -> String {
    v.map_or_else(|| "-".to_string(), |v| v.to_string())
}

/// The table, for people.
fn table(rows: &[Row]) -> String {
    let header = [
        "family",
        "size",
        "param",
        "stmts",
        "vars",
        "verdict",
        "time(s)",
        "cpu(s)",
        "RSS(MB)",
        "largest BDD",
        "iterations",
        "goal",
    ];
    let mut cells: Vec<Vec<String>> = vec![header.iter().map(|s| s.to_string()).collect()];
    for row in rows {
        let (time, cpu, rss) = match &row.run {
            Some(run) => (
                format!("{:.2}", run.wall.as_secs_f64()),
                format!("{:.2}", run.cpu.as_secs_f64()),
                format!("{:.1}", run.max_rss_mb),
            ),
            None => ("-".into(), "-".into(), "-".into()),
        };
        let over = row.over_goal();
        let goal = if over.is_empty() {
            "ok".to_string()
        } else {
            format!("OVER ({})", over.join(", "))
        };
        cells.push(vec![
            row.inst.family.name().to_string(),
            format!("x{}", row.inst.size),
            row.inst.param.clone(),
            row.inst.n_stmts.to_string(),
            row.inst.max_scope.to_string(),
            row.verdict.to_string(),
            time,
            cpu,
            rss,
            opt(row.stats.largest_bdd),
            opt(row.stats.iterations),
            goal,
        ]);
    }
    let widths: Vec<usize> = (0..header.len())
        .map(|c| cells.iter().map(|r| r[c].len()).max().unwrap_or(0))
        .collect();
    let mut out = String::new();
    for (i, r) in cells.iter().enumerate() {
        let line: Vec<String> = r
            .iter()
            .zip(&widths)
            .enumerate()
            .map(|(c, (cell, w))| {
                if c <= 2 || c == 5 || c == header.len() - 1 {
                    format!("{cell:<w$}")
                } else {
                    format!("{cell:>w$}")
                }
            })
            .collect();
        let _ = writeln!(out, "{}", line.join("  ").trim_end());
        if i == 0 {
            let total: usize = widths.iter().sum::<usize>() + 2 * (widths.len() - 1);
            let _ = writeln!(out, "{}", "-".repeat(total));
        }
    }
    out
}

/// The table, for machines.
fn csv(rows: &[Row]) -> String {
    let mut out = String::from(
        "family,size,param,statements,procedures,variables,verdict,wall_s,cpu_s,max_rss_mb,\
         largest_bdd,peak_live_nodes,iterations,label_check,over_goal\n",
    );
    for row in rows {
        let (wall, cpu, rss) = match &row.run {
            Some(run) => (
                format!("{:.3}", run.wall.as_secs_f64()),
                format!("{:.3}", run.cpu.as_secs_f64()),
                format!("{:.1}", run.max_rss_mb),
            ),
            None => (String::new(), String::new(), String::new()),
        };
        let _ = writeln!(
            out,
            "{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}",
            row.inst.family.name(),
            row.inst.size,
            row.inst.param,
            row.inst.n_stmts,
            row.inst.n_procs,
            row.inst.max_scope,
            row.verdict,
            wall,
            cpu,
            rss,
            row.stats
                .largest_bdd
                .map_or(String::new(), |v| v.to_string()),
            row.stats.peak_live.map_or(String::new(), |v| v.to_string()),
            row.stats
                .iterations
                .map_or(String::new(), |v| v.to_string()),
            row.label_check.map_or(String::new(), |v| format!("{v:?}")),
            row.over_goal().join("+"),
        );
    }
    out
}

fn main() -> ExitCode {
    let cfg = match parse_args() {
        Ok(cfg) => cfg,
        Err(e) => {
            eprintln!("bebop-bench: {e}\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    if !cfg.bebop.is_file() {
        eprintln!(
            "bebop-bench: no bebop binary at {} (build it with `cargo build --release -p bebop`, \
             or set $BEBOP / --bebop)",
            cfg.bebop.display()
        );
        return ExitCode::from(2);
    }
    if let Err(e) = std::fs::create_dir_all(&cfg.out) {
        eprintln!("bebop-bench: cannot create {}: {e}", cfg.out.display());
        return ExitCode::from(2);
    }

    let mut rows = Vec::new();
    for &family in &cfg.families {
        for &size in &cfg.sizes {
            let inst = generate(family, size, cfg.seed.unwrap_or(family.default_seed()));
            eprint!(
                "bebop-bench: {}-s{size} ({} statements) ... ",
                family.name(),
                inst.n_stmts
            );
            let row = bench_one(&cfg, inst);
            match &row.run {
                Some(run) => eprintln!(
                    "{} in {:.2} s, {:.1} MB",
                    row.verdict,
                    run.wall.as_secs_f64(),
                    run.max_rss_mb
                ),
                None => eprintln!("{}", row.verdict),
            }
            rows.push(row);
        }
    }

    println!(
        "bebop benchmark ({}; goal: {GOAL_SECS} s CPU and {GOAL_MB} MB per instance)\n",
        cfg.bebop.display()
    );
    print!("{}", table(&rows));
    let mut failed = false;
    let notes: Vec<String> = rows
        .iter()
        .filter_map(|row| {
            let name = format!("{}-s{}", row.inst.family.name(), row.inst.size);
            let mut parts = Vec::new();
            if !row.detail.is_empty() {
                parts.push(row.detail.clone());
            }
            match row.label_check {
                Some(LabelCheck::NotReached) => parts.push(format!(
                    "`--label {OK_LABEL}` finds the final assert unreachable: safe is vacuous"
                )),
                Some(LabelCheck::NoAnswer) => parts.push(format!(
                    "`--label {OK_LABEL}` gave no answer (reachability of the assert unchecked)"
                )),
                Some(LabelCheck::Reached) | None => {}
            }
            failed |= matches!(row.verdict, "WRONG" | "ERROR")
                || row.label_check == Some(LabelCheck::NotReached);
            failed |= cfg.strict && !row.over_goal().is_empty();
            (!parts.is_empty()).then(|| format!("  {name}: {}", parts.join("; ")))
        })
        .collect();
    let checked: Vec<String> = rows
        .iter()
        .filter(|r| r.label_check == Some(LabelCheck::Reached))
        .map(|r| r.inst.family.name().to_string())
        .collect();
    if !checked.is_empty() {
        println!(
            "\n`--label {OK_LABEL}` reaches the final assert (safe is not vacuous): {}",
            checked.join(", ")
        );
    }
    let traced: Vec<String> = rows
        .iter()
        .filter(|r| r.inst.error_depth.is_some() && r.verdict == "OK")
        .map(|r| format!("{}-s{}", r.inst.family.name(), r.inst.size))
        .collect();
    if !traced.is_empty() {
        println!(
            "traces replayed by the reference interpreter, error at the expected call depth: {}",
            traced.join(", ")
        );
    }
    if !notes.is_empty() {
        println!("\nnotes:\n{}", notes.join("\n"));
    }
    let csv_path = cfg.out.join("results.csv");
    if let Err(e) = std::fs::write(&csv_path, csv(&rows)) {
        eprintln!("bebop-bench: cannot write {}: {e}", csv_path.display());
    }
    if failed {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stats_lines_are_read_by_key_words() {
        let text = "stats:\n  iterations: 1,234\n  largest BDD = 567 nodes\n  time: 3 ms\n";
        let stats = parse_stats(text);
        assert_eq!(stats.iterations, Some(1234));
        assert_eq!(stats.largest_bdd, Some(567));
    }

    #[test]
    fn numbers_skip_leading_text() {
        assert_eq!(first_number(" about 12_000 nodes"), Some(12000));
        assert_eq!(first_number("none"), None);
    }
}
