//! The per-task table (`slam-bench table`, behind `make slam-table`): `slam-run` once on every
//! task of the sets, one task at a time (steady times), each run as [`runner::run_captured`]
//! runs a pair. One row per task — the task, its expected verdict, `slam-run`'s verdict line,
//! whether it is correct, the iterations, final predicates and seconds of `slam-run`'s summary
//! line, and the run's CPU seconds — then, per set, the correct and wrong verdicts.
//!
//! A verdict is `correct` when it is the expected one, `WRONG` when it is TRUE or FALSE and not
//! the expected one (also when the task expects nothing), `unknown` otherwise.
//!
//! With `--breakdown N`, the N slowest tasks (CPU seconds) follow, each broken down from
//! slam-run's `--stats-json` ([`breakdown`]): CPU and wall-clock seconds per phase and their
//! share of the run, a line per round of the loop, and c2bp's costliest procedures.

use std::io::Write;
use std::path::PathBuf;

use crate::BenchError;
use crate::config::Config;
use crate::runner::{self, Captured, RunOptions};
use crate::stats::RunStats;
use crate::tasks::Task;

/// How the table's runs are made.
#[derive(Debug, Clone)]
pub struct TableOptions {
    /// The `slam-run` executable.
    pub slam_run: PathBuf,
    /// CPU seconds per task.
    pub cpu_limit: f64,
    /// Wall-clock seconds per task (`slam-run --timeout`).
    pub wall_limit: f64,
    /// Options added to every `slam-run` command.
    pub slam_args: Vec<String>,
}

/// The header line of the table.
pub fn header() -> String {
    row_text(&[
        "task", "expect", "verdict", "result", "iters", "preds", "wall-s", "cpu-s",
    ])
}

/// The columns, aligned.
fn row_text(c: &[&str; 8]) -> String {
    format!(
        "{:<44} {:<6} {:<22} {:<7} {:>5} {:>6} {:>8} {:>8}",
        c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]
    )
}

/// What a verdict line counts as against the expected verdict: `correct`, `WRONG` or
/// `unknown` (see the module doc).
pub fn result(verdict: &str, expected: Option<bool>) -> &'static str {
    let judge = |said_safe: bool| {
        if expected == Some(said_safe) {
            "correct"
        } else {
            "WRONG"
        }
    };
    if verdict == "TRUE" {
        judge(true)
    } else if verdict.starts_with("FALSE") {
        judge(false)
    } else {
        "unknown"
    }
}

/// The value after the last `key=` of `slam-run`'s summary line, as far as it is made of
/// `chars` (`None` without a summary line or the key).
fn summary_value(stdout: &str, key: &str, chars: fn(char) -> bool) -> Option<String> {
    let line = stdout.lines().find(|l| l.starts_with("summary:"))?;
    let pattern = format!("{key}=");
    let at = line.rfind(&pattern)? + pattern.len();
    Some(line[at..].chars().take_while(|&c| chars(c)).collect())
}

/// The table row of a task's run.
pub fn row(task: &Task, run: &Captured) -> String {
    let verdict = run.stdout.lines().next().unwrap_or("");
    let expected = match task.expected {
        Some(true) => "true",
        Some(false) => "false",
        None => "",
    };
    let digits = |c: char| c.is_ascii_digit();
    let decimal = |c: char| c.is_ascii_digit() || c == '.';
    let field = |v: Option<String>| v.filter(|v| !v.is_empty()).unwrap_or_else(|| "-".into());
    let iters = field(summary_value(&run.stdout, "iterations", digits));
    let preds = field(summary_value(&run.stdout, "predicates", digits));
    let wall = field(summary_value(&run.stdout, "seconds", decimal));
    let cpu = format!("{:.2}", run.row.end.cpu_seconds);
    row_text(&[
        &task.id,
        expected,
        verdict,
        result(verdict, task.expected),
        &iters,
        &preds,
        &wall,
        &cpu,
    ])
}

/// Correct and wrong verdicts of one set.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SetCount {
    /// The set.
    pub set: String,
    /// Tasks.
    pub total: usize,
    /// Correct verdicts.
    pub correct: usize,
    /// Wrong verdicts.
    pub wrong: usize,
}

/// What the breakdown needs of a task's run.
#[derive(Debug, Clone)]
pub struct TaskRun {
    /// The task.
    pub task: String,
    /// The verdict line.
    pub verdict: String,
    /// CPU seconds of the process (`wait4`).
    pub cpu: f64,
    /// Wall-clock seconds.
    pub wall: f64,
    /// Peak resident memory, MiB.
    pub peak_mib: f64,
    /// slam-run's statistics, when it wrote them.
    pub stats: Option<RunStats>,
}

/// Runs `slam-run` on every task, in order, writing the header and each row to `out` as it
/// finishes; returns the counts per set, in the order the sets first appear, and the runs.
pub fn run_table(
    tasks: &[Task],
    opts: &TableOptions,
    out: &mut dyn Write,
) -> Result<(Vec<SetCount>, Vec<TaskRun>), BenchError> {
    let scratch = std::env::temp_dir().join(format!("slam-bench-table-{}", std::process::id()));
    std::fs::create_dir_all(&scratch).map_err(|e| BenchError::io(&scratch, e))?;
    let run_opts = RunOptions {
        slam_run: opts.slam_run.clone(),
        jobs: 1,
        cpu_limit: opts.cpu_limit,
        wall_limit: opts.wall_limit,
        mem_limit_mib: 0,
        out_dir: scratch.clone(),
        resume: false,
        shard: None,
        progress: false,
        keep_output: false,
    };
    let config = Config {
        name: "table".into(),
        point: Vec::new(),
        args: opts.slam_args.clone(),
    };
    let io = |e| BenchError::Io("stdout".into(), e);
    writeln!(out, "{}", header()).map_err(io)?;
    let mut counts: Vec<SetCount> = Vec::new();
    let mut runs = Vec::new();
    for (k, task) in tasks.iter().enumerate() {
        let run = runner::run_captured(task, &config, &run_opts, &scratch, k);
        let line = row(task, &run);
        writeln!(out, "{line}").map_err(io)?;
        out.flush().map_err(io)?;
        let verdict = run.stdout.lines().next().unwrap_or("");
        runs.push(TaskRun {
            task: task.id.clone(),
            verdict: verdict.to_string(),
            cpu: run.row.end.cpu_seconds,
            wall: run.row.end.wall_seconds,
            peak_mib: run.row.end.peak_mem_mib,
            stats: run.stats.clone(),
        });
        let i = match counts.iter().position(|c| c.set == task.set) {
            Some(i) => i,
            None => {
                counts.push(SetCount {
                    set: task.set.clone(),
                    ..SetCount::default()
                });
                counts.len() - 1
            }
        };
        let c = &mut counts[i];
        c.total += 1;
        match result(verdict, task.expected) {
            "correct" => c.correct += 1,
            "WRONG" => c.wrong += 1,
            _ => {}
        }
    }
    let _ = std::fs::remove_dir_all(&scratch);
    Ok((counts, runs))
}

/// The breakdown of the `n` slowest runs (CPU seconds; see the module doc).
pub fn breakdown(runs: &[TaskRun], n: usize) -> String {
    let mut order: Vec<&TaskRun> = runs.iter().collect();
    order.sort_by(|a, b| b.cpu.total_cmp(&a.cpu).then_with(|| a.task.cmp(&b.task)));
    order.truncate(n);
    if order.is_empty() {
        return String::new();
    }
    let mut s = format!(
        "\nBreakdown of the {} slowest task{} (CPU seconds):\n",
        order.len(),
        if order.len() == 1 { "" } else { "s" }
    );
    for r in order {
        s.push('\n');
        s.push_str(&task_breakdown(r));
    }
    s
}

/// One run's breakdown.
fn task_breakdown(r: &TaskRun) -> String {
    let mut s = format!(
        "{}: {:.2} CPU s, {:.2} wall-clock s, {:.1} MiB peak, {}",
        r.task,
        r.cpu,
        r.wall,
        r.peak_mib,
        if r.verdict.is_empty() {
            "no verdict"
        } else {
            &r.verdict
        }
    );
    let Some(st) = &r.stats else {
        s.push_str("\n  (no statistics: slam-run wrote no --stats-json)\n");
        return s;
    };
    s.push_str(&format!(
        ", {} iterations, {} predicates",
        st.iteration_count(),
        st.predicates.unwrap_or(0)
    ));
    if let Some(p) = &st.stopped_in {
        s.push_str(&format!(", stopped in {p}"));
    }
    s.push('\n');
    let p = st.phases();
    let share = |cpu: f64| {
        if r.cpu > 0.0 {
            format!("{:>5.0}%", 100.0 * cpu / r.cpu)
        } else {
            "    -".into()
        }
    };
    s.push_str("  phase        cpu-s   wall-s  share\n");
    let phases = [
        ("c2bp", p.c2bp_cpu_s, p.c2bp_s),
        ("bebop", p.bebop_cpu_s, p.bebop_s),
        ("newton", p.newton_cpu_s, p.newton_s),
        ("constrain", p.constrain_cpu_s, p.constrain_s),
    ];
    for (name, cpu, wall) in phases {
        s.push_str(&format!(
            "  {name:<10} {cpu:>7.2} {wall:>8.2} {}\n",
            share(cpu)
        ));
    }
    let rest = r.cpu - phases.iter().map(|(_, c, _)| c).sum::<f64>();
    s.push_str(&format!(
        "  {:<10} {:>7.2} {:>8} {}  (parsing, lowering, set-up)\n",
        "other",
        rest.max(0.0),
        "",
        share(rest.max(0.0))
    ));
    s.push_str(&rounds_table(st));
    s.push_str(&costliest_procedures(st, 5));
    s
}

/// A line per round: predicates, c2bp (CPU s, queries, answers found without the solver),
/// bebop (CPU s, peak live BDD nodes), newton (CPU s, answer), constrain, memory.
fn rounds_table(st: &RunStats) -> String {
    let mut s = format!(
        "  {:>4} {:>3} {:>5} {:>4} {:>7} {:>8} {:>6} {:>7} {:>9} {:>8} {:<10} {:>7} {:>7}\n",
        "iter",
        "alt",
        "preds",
        "+new",
        "c2bp-s",
        "queries",
        "hits",
        "bebop-s",
        "bdd-nodes",
        "newton-s",
        "outcome",
        "constr-s",
        "rss-MiB"
    );
    for i in &st.iterations {
        let hits = i.c2bp.as_ref().map(|c| c.hits()).unwrap_or(0);
        let nodes = i
            .bebop
            .as_ref()
            .map(|b| b.peak_live_nodes.to_string())
            .unwrap_or_else(|| "-".into());
        let outcome = if i.outcome.is_empty() {
            "(cut)"
        } else {
            &i.outcome
        };
        s.push_str(&format!(
            "  {:>4} {:>3} {:>5} {:>4} {:>7.2} {:>8} {:>6} {:>7.2} {:>9} {:>8.2} {:<10} {:>7.2} {:>7.1}\n",
            i.index,
            i.alternation,
            i.predicates,
            i.predicates_added,
            i.time.c2bp_cpu_seconds,
            i.prover_queries,
            hits,
            i.time.bebop_cpu_seconds,
            nodes,
            i.time.newton_cpu_seconds,
            outcome,
            i.time.constrain_cpu_seconds,
            i.peak_rss_mib
        ));
    }
    s
}

/// c2bp's `k` costliest procedures over all rounds (wall-clock seconds of their
/// translations, queries), empty without per-procedure records.
fn costliest_procedures(st: &RunStats, k: usize) -> String {
    let mut by: std::collections::BTreeMap<&str, (f64, u64)> = Default::default();
    for p in st
        .iterations
        .iter()
        .filter_map(|i| i.c2bp.as_ref())
        .flat_map(|c| &c.procedures)
    {
        let e = by.entry(&p.name).or_default();
        e.0 += p.seconds;
        e.1 += p.queries;
    }
    let mut v: Vec<(&str, (f64, u64))> = by.into_iter().collect();
    v.sort_by(|a, b| b.1.0.total_cmp(&a.1.0).then_with(|| a.0.cmp(b.0)));
    v.truncate(k);
    if v.is_empty() {
        return String::new();
    }
    let parts: Vec<String> = v
        .iter()
        .map(|(n, (secs, q))| format!("{n} {secs:.2} s ({q} queries)"))
        .collect();
    format!("  c2bp's costliest procedures: {}\n", parts.join(", "))
}

/// The lines after the table: the options, and per set the correct and wrong verdicts.
pub fn footer(counts: &[SetCount], opts: &TableOptions) -> String {
    let options = if opts.slam_args.is_empty() {
        "(defaults)".to_string()
    } else {
        opts.slam_args.join(" ")
    };
    let mut s = format!("\noptions: {options}\n");
    for c in counts {
        s.push_str(&format!(
            "{:<28} {:>3}/{:<3} correct, {} wrong (limit {} s per task)\n",
            c.set, c.correct, c.total, c.wrong, opts.cpu_limit
        ));
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn results_and_summary_values() {
        assert_eq!(result("TRUE", Some(true)), "correct");
        assert_eq!(result("TRUE", None), "WRONG");
        assert_eq!(result("FALSE(unreach-call)", Some(false)), "correct");
        assert_eq!(result("FALSE(unreach-call)", Some(true)), "WRONG");
        assert_eq!(result("UNKNOWN (timeout)", Some(true)), "unknown");
        assert_eq!(result("", None), "unknown");
        let out = "TRUE\nsummary: iterations=11 predicates=30 seconds=0.38 (c2bp 0.10, bebop \
                   0.01, newton 0.20)\n";
        let digits = |c: char| c.is_ascii_digit();
        assert_eq!(
            summary_value(out, "iterations", digits).as_deref(),
            Some("11")
        );
        assert_eq!(
            summary_value(out, "seconds", |c| c.is_ascii_digit() || c == '.').as_deref(),
            Some("0.38")
        );
        let timeout = "UNKNOWN (timeout)\nsummary: seconds=10.05 (stopped by --timeout)\n";
        assert_eq!(summary_value(timeout, "iterations", digits), None);
    }
}
