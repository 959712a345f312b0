//! Result rows: one per (task, configuration) run; the JSON-lines file they are appended to
//! (format `slam-bench-row/2`, one object per line, so an interrupted benchmark keeps every
//! finished run), the CSV (written by the `csv` crate), where each run's output is kept, and
//! merging the files of several shards.
//!
//! Reading tolerates a truncated last line (a benchmark killed while writing it): that run is
//! simply not finished and runs again on `--resume`. A malformed line elsewhere is an error
//! with its line number.

use std::collections::BTreeMap;
use std::io::Write as _;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::BenchError;
use crate::stats::Phases;

/// What a run's outcome counts as (the rows of the Constrain paper's Fig. 4, with SV-COMP's
/// correct/wrong split).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Status {
    /// TRUE, and the error is unreachable.
    CorrectTrue,
    /// FALSE, and the error is reachable.
    CorrectFalse,
    /// TRUE, but the error is reachable.
    WrongTrue,
    /// FALSE, but the error is unreachable.
    WrongFalse,
    /// TRUE or FALSE on a task whose expected verdict is not known.
    Unchecked,
    /// UNKNOWN because refinement found no difference (NDF).
    Ndf,
    /// Out of time: the CPU limit reached (measured, or SIGXCPU), or the wall-clock limit
    /// ([`End::limit`]).
    Timeout,
    /// Out of memory.
    Memory,
    /// Any other UNKNOWN.
    Unknown,
    /// An input or internal error, or a crash.
    Error,
}

impl Status {
    /// All statuses, in table order.
    pub const ALL: [Status; 10] = [
        Status::CorrectTrue,
        Status::CorrectFalse,
        Status::WrongTrue,
        Status::WrongFalse,
        Status::Unchecked,
        Status::Ndf,
        Status::Timeout,
        Status::Memory,
        Status::Unknown,
        Status::Error,
    ];

    /// The kebab-case name (as in JSON and CSV).
    pub fn name(self) -> &'static str {
        match self {
            Status::CorrectTrue => "correct-true",
            Status::CorrectFalse => "correct-false",
            Status::WrongTrue => "wrong-true",
            Status::WrongFalse => "wrong-false",
            Status::Unchecked => "unchecked",
            Status::Ndf => "ndf",
            Status::Timeout => "timeout",
            Status::Memory => "memory",
            Status::Unknown => "unknown",
            Status::Error => "error",
        }
    }

    /// The SV-COMP score (SV-COMP's scoring schema: +2 correct TRUE, +1 correct FALSE, −16 wrong FALSE,
    /// −32 wrong TRUE, 0 otherwise).
    pub fn score(self) -> i64 {
        match self {
            Status::CorrectTrue => 2,
            Status::CorrectFalse => 1,
            Status::WrongFalse => -16,
            Status::WrongTrue => -32,
            _ => 0,
        }
    }

    /// A correct verdict.
    pub fn solved(self) -> bool {
        matches!(self, Status::CorrectTrue | Status::CorrectFalse)
    }

    /// A wrong verdict.
    pub fn wrong(self) -> bool {
        matches!(self, Status::WrongTrue | Status::WrongFalse)
    }
}

/// The status of a verdict line (`None`: no verdict line) given the expected verdict
/// (`Some(true)`: unreachable error) and how the process ended. A run that reached a time
/// limit ([`End::limit`]) is a timeout whatever it answered (as in BenchExec: an answer after
/// the limit does not count).
pub fn classify(verdict: Option<&str>, expected: Option<bool>, end: &End) -> Status {
    if end.limit.is_some() {
        return Status::Timeout;
    }
    let v = verdict.unwrap_or("").trim();
    let check = |said_safe: bool| match expected {
        None => Status::Unchecked,
        Some(e) if e == said_safe => {
            if said_safe {
                Status::CorrectTrue
            } else {
                Status::CorrectFalse
            }
        }
        Some(_) => {
            if said_safe {
                Status::WrongTrue
            } else {
                Status::WrongFalse
            }
        }
    };
    if v == "TRUE" {
        return check(true);
    }
    if v.starts_with("FALSE") {
        return check(false);
    }
    if let Some(reason) = v.strip_prefix("UNKNOWN") {
        let reason = reason.trim().trim_start_matches('(');
        return if reason.starts_with("no difference found") {
            Status::Ndf
        } else if reason.starts_with("timeout") {
            Status::Timeout
        } else {
            Status::Unknown
        };
    }
    // No verdict: how did the process end?
    if end.killed_for_time {
        return Status::Timeout;
    }
    if end.out_of_memory {
        return Status::Memory;
    }
    Status::Error
}

/// A time limit of a run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum TimeLimit {
    /// The CPU-time limit.
    Cpu,
    /// The wall-clock limit.
    Wall,
}

impl TimeLimit {
    /// `cpu` or `wall` (as in JSON and CSV).
    pub fn name(self) -> &'static str {
        match self {
            TimeLimit::Cpu => "cpu",
            TimeLimit::Wall => "wall",
        }
    }
}

/// How a `slam-run` process ended.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct End {
    /// Exit code, when it exited.
    pub exit_code: Option<i32>,
    /// Signal, when one ended it.
    pub signal: Option<i32>,
    /// User + system CPU seconds.
    pub cpu_seconds: f64,
    /// Wall-clock seconds.
    pub wall_seconds: f64,
    /// Peak resident memory in MiB.
    pub peak_mem_mib: f64,
    /// Killed by the runner for exceeding the wall-clock limit.
    pub killed_for_time: bool,
    /// The time limit the run reached, if any (then its status is `timeout`).
    #[serde(default)]
    pub limit: Option<TimeLimit>,
    /// An allocation failed (the memory limit).
    pub out_of_memory: bool,
}

/// One run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Row {
    /// `slam-bench-row/1`.
    pub format: String,
    /// The task's id (`set/file`).
    pub task: String,
    /// The task set.
    pub set: String,
    /// The configuration's name.
    pub config: String,
    /// Expected verdict: `true` (error unreachable), `false`, or absent.
    pub expected: Option<bool>,
    /// slam-run's verdict line (empty when it printed none).
    pub verdict: String,
    /// What the outcome counts as.
    pub status: Status,
    /// How the process ended, with its CPU time, wall time and peak memory.
    pub end: End,
    /// Refinement iterations (from `--stats-json`, when written; constrain alternations not
    /// counted).
    pub iterations: Option<u64>,
    /// Final predicates.
    pub predicates: Option<u64>,
    /// Constraints constrain generated.
    pub constraints: Option<u64>,
    /// Calls of constrain.
    pub constrain_calls: Option<u64>,
    /// Rounds that found no difference (NDF).
    pub ndf: Option<u64>,
    /// c2bp's prover queries.
    pub prover_queries: Option<u64>,
    /// The per-phase totals (from `--stats-json`, when written; absent in `/1` rows).
    #[serde(default)]
    pub phases: Option<Phases>,
    /// The size of the last abstraction c2bp wrote: the cubes its transitions are written
    /// with (from `--stats-json`, when it records them).
    #[serde(default)]
    pub cubes: Option<u64>,
    /// Statements of the last abstraction whose exact relation stopped short (kept Cartesian
    /// besides its clauses; `--abstraction exact` only).
    #[serde(default)]
    pub capped_statements: Option<u64>,
    /// Why a run ended without a verdict: a command-line error, else the last line of stderr.
    pub note: String,
}

/// The format tag of a row (`slam-bench-row/1` rows, without the phases and the time limit,
/// are read too).
pub const ROW_FORMAT: &str = "slam-bench-row/2";

/// Reads a JSON-lines file (see the module doc for a truncated last line).
pub fn read_jsonl(path: &Path) -> Result<Vec<Row>, BenchError> {
    let text = std::fs::read_to_string(path).map_err(|e| BenchError::io(path, e))?;
    let lines: Vec<&str> = text.lines().collect();
    let complete = text.ends_with('\n');
    let mut rows = Vec::new();
    for (i, l) in lines.iter().enumerate() {
        if l.trim().is_empty() {
            continue;
        }
        match serde_json::from_str::<Row>(l) {
            Ok(r) => rows.push(r),
            Err(_) if i + 1 == lines.len() && !complete => {}
            Err(e) => {
                return Err(BenchError::Input(format!(
                    "{}:{}: not a result row: {e}",
                    path.display(),
                    i + 1
                )));
            }
        }
    }
    Ok(rows)
}

/// Drops a truncated last line so that appending starts on a fresh line.
pub fn repair_tail(path: &Path) -> Result<(), BenchError> {
    let Ok(text) = std::fs::read_to_string(path) else {
        return Ok(());
    };
    if text.is_empty() || text.ends_with('\n') {
        return Ok(());
    }
    let keep = text.rfind('\n').map(|k| k + 1).unwrap_or(0);
    std::fs::write(path, &text[..keep]).map_err(|e| BenchError::io(path, e))
}

/// Appends rows to a JSON-lines file, one write per line.
pub struct Appender {
    file: std::fs::File,
    path: std::path::PathBuf,
}

impl Appender {
    /// Opens `path` for appending (creating it).
    pub fn open(path: &Path) -> Result<Appender, BenchError> {
        repair_tail(path)?;
        let file = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
            .map_err(|e| BenchError::io(path, e))?;
        Ok(Appender {
            file,
            path: path.to_path_buf(),
        })
    }

    /// Appends one row.
    pub fn push(&mut self, row: &Row) -> Result<(), BenchError> {
        let mut line = serde_json::to_string(row).expect("a row always serialises");
        line.push('\n');
        self.file
            .write_all(line.as_bytes())
            .and_then(|()| self.file.flush())
            .map_err(|e| BenchError::io(&self.path, e))
    }
}

/// Rows keyed by (task, configuration); a later row of the same pair replaces an earlier one.
pub fn merge(sets: impl IntoIterator<Item = Vec<Row>>) -> Vec<Row> {
    let mut m: BTreeMap<(String, String), Row> = BTreeMap::new();
    for rows in sets {
        for r in rows {
            m.insert((r.task.clone(), r.config.clone()), r);
        }
    }
    m.into_values().collect()
}

fn opt<T: ToString>(v: &Option<T>) -> String {
    v.as_ref().map(|x| x.to_string()).unwrap_or_default()
}

/// The columns of `results.csv`.
pub const CSV_HEADER: [&str; 29] = [
    "task",
    "set",
    "config",
    "expected",
    "verdict",
    "status",
    "cpu_s",
    "wall_s",
    "peak_mem_mib",
    "exit_code",
    "signal",
    "limit",
    "iterations",
    "predicates",
    "constraints",
    "constrain_calls",
    "ndf",
    "prover_queries",
    "c2bp_cpu_s",
    "bebop_cpu_s",
    "newton_cpu_s",
    "constrain_cpu_s",
    "c2bp_s",
    "bebop_s",
    "newton_s",
    "constrain_s",
    "stopped_in",
    "cubes",
    "capped_statements",
];

fn csv_record(r: &Row) -> [String; 29] {
    let ph = |f: fn(&Phases) -> f64| {
        r.phases
            .as_ref()
            .map(|p| format!("{:.3}", f(p)))
            .unwrap_or_default()
    };
    [
        r.task.clone(),
        r.set.clone(),
        r.config.clone(),
        opt(&r.expected),
        r.verdict.clone(),
        r.status.name().to_string(),
        format!("{:.3}", r.end.cpu_seconds),
        format!("{:.3}", r.end.wall_seconds),
        format!("{:.1}", r.end.peak_mem_mib),
        opt(&r.end.exit_code),
        opt(&r.end.signal),
        r.end.limit.map(TimeLimit::name).unwrap_or("").to_string(),
        opt(&r.iterations),
        opt(&r.predicates),
        opt(&r.constraints),
        opt(&r.constrain_calls),
        opt(&r.ndf),
        opt(&r.prover_queries),
        ph(|p| p.c2bp_cpu_s),
        ph(|p| p.bebop_cpu_s),
        ph(|p| p.newton_cpu_s),
        ph(|p| p.constrain_cpu_s),
        ph(|p| p.c2bp_s),
        ph(|p| p.bebop_s),
        ph(|p| p.newton_s),
        ph(|p| p.constrain_s),
        r.phases
            .as_ref()
            .and_then(|p| p.stopped_in.clone())
            .unwrap_or_default(),
        opt(&r.cubes),
        opt(&r.capped_statements),
    ]
}

/// Writes the rows as CSV ([`CSV_HEADER`], then a record per row) to `path`.
pub fn write_csv(path: &Path, rows: &[Row]) -> Result<(), BenchError> {
    let io = |e: csv::Error| BenchError::io(path, e.into());
    let mut w = csv::Writer::from_path(path).map_err(io)?;
    w.write_record(CSV_HEADER).map_err(io)?;
    for r in rows {
        w.write_record(csv_record(r)).map_err(io)?;
    }
    w.flush().map_err(|e| BenchError::io(path, e))
}

/// Where a run's standard output and error are kept, relative to the results directory:
/// `runs/CONFIG/SET/FILE` (add `.out` or `.err`). Each component is the name with every
/// character outside `A-Z a-z 0-9 . _ - = , +` written `%XX` (its UTF-8 bytes), and a leading
/// dot too, so that distinct names stay distinct and none climbs out of `runs/`; the path is
/// also a relative URL once its `%` are written `%25`.
pub fn output_stem(task: &str, config: &str) -> PathBuf {
    let mut p = PathBuf::from("runs");
    p.push(file_component(config));
    let (set, file) = task.split_once('/').unwrap_or(("", task));
    p.push(file_component(set));
    p.push(file_component(file));
    p
}

fn file_component(name: &str) -> String {
    let mut s = String::new();
    for (i, c) in name.char_indices() {
        let plain = c.is_ascii_alphanumeric() || "._-=,+".contains(c);
        if plain && !(i == 0 && c == '.') {
            s.push(c);
        } else {
            let mut buf = [0u8; 4];
            for b in c.encode_utf8(&mut buf).bytes() {
                s.push_str(&format!("%{b:02X}"));
            }
        }
    }
    if s.is_empty() { "%00".into() } else { s }
}

/// A row of `task` (`set/file`) under `config` for unit tests: correct TRUE, no statistics.
#[cfg(test)]
pub(crate) fn test_row(task: &str, config: &str) -> Row {
    Row {
        format: ROW_FORMAT.into(),
        task: task.into(),
        set: task.split('/').next().unwrap_or("").into(),
        config: config.into(),
        expected: Some(true),
        verdict: "TRUE".into(),
        status: Status::CorrectTrue,
        end: End::default(),
        iterations: None,
        predicates: None,
        constraints: None,
        constrain_calls: None,
        ndf: None,
        prover_queries: None,
        phases: None,
        cubes: None,
        capped_statements: None,
        note: String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn statuses() {
        let e = End::default();
        assert_eq!(classify(Some("TRUE"), Some(true), &e), Status::CorrectTrue);
        assert_eq!(classify(Some("TRUE"), Some(false), &e), Status::WrongTrue);
        assert_eq!(
            classify(Some("FALSE(unreach-call)"), Some(true), &e),
            Status::WrongFalse
        );
        assert_eq!(
            classify(Some("FALSE(unreach-call)"), None, &e),
            Status::Unchecked
        );
        assert_eq!(
            classify(Some("UNKNOWN (no difference found)"), Some(true), &e),
            Status::Ndf
        );
        assert_eq!(
            classify(Some("UNKNOWN (timeout)"), Some(true), &e),
            Status::Timeout
        );
        assert_eq!(
            classify(Some("UNKNOWN (iterations)"), Some(true), &e),
            Status::Unknown
        );
        let killed = End {
            signal: Some(9),
            killed_for_time: true,
            ..End::default()
        };
        assert_eq!(classify(None, Some(true), &killed), Status::Timeout);
        let oom = End {
            signal: Some(6),
            out_of_memory: true,
            ..End::default()
        };
        assert_eq!(classify(None, Some(true), &oom), Status::Memory);
        assert_eq!(classify(None, Some(true), &e), Status::Error);
        // An answer at or after a time limit does not count.
        for limit in [TimeLimit::Cpu, TimeLimit::Wall] {
            let late = End {
                limit: Some(limit),
                ..End::default()
            };
            assert_eq!(classify(Some("TRUE"), Some(true), &late), Status::Timeout);
            assert_eq!(classify(None, Some(true), &late), Status::Timeout);
        }
        assert_eq!(
            Status::ALL.iter().map(|s| s.score()).sum::<i64>(),
            2 + 1 - 16 - 32
        );
    }

    fn row(task: &str, config: &str, verdict: &str) -> Row {
        Row {
            expected: Some(false),
            verdict: verdict.into(),
            status: Status::Unknown,
            end: End {
                cpu_seconds: 1.25,
                ..End::default()
            },
            iterations: Some(3),
            ..test_row(task, config)
        }
    }

    #[test]
    fn csv_round_trips_through_a_reader() {
        let dir = std::env::temp_dir().join(format!("slam-bench-csv-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("results.csv");
        let rows = vec![
            row("s/a.c", "cube=3,constrain=lazy", "UNKNOWN (a, \"b\")"),
            row("s/b.c", "lazy", "UNKNOWN (two\nlines)"),
        ];
        write_csv(&path, &rows).unwrap();
        let mut rd = csv::Reader::from_path(&path).unwrap();
        assert_eq!(
            rd.headers().unwrap(),
            &csv::StringRecord::from(&CSV_HEADER[..])
        );
        let got: Vec<csv::StringRecord> = rd.records().map(Result::unwrap).collect();
        assert_eq!(got.len(), rows.len());
        for (g, r) in got.iter().zip(&rows) {
            assert_eq!(&g[0], r.task);
            assert_eq!(&g[2], r.config);
            assert_eq!(&g[3], "false");
            assert_eq!(&g[4], r.verdict);
            assert_eq!(&g[5], "unknown");
            assert_eq!(&g[6], "1.250");
            assert_eq!(&g[12], "3");
            assert_eq!(&g[13], "");
        }
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn output_files_are_distinct_and_stay_inside() {
        let p = |t: &str, c: &str| output_stem(t, c).display().to_string();
        assert_eq!(
            p("locks/test_locks_5.yml", "cube=3,constrain=lazy"),
            "runs/cube=3,constrain=lazy/locks/test_locks_5.yml"
        );
        assert_eq!(p("s/a b.c", "my config"), "runs/my%20config/s/a%20b.c");
        assert_eq!(p("s/x.c", "a/b"), "runs/a%2Fb/s/x.c");
        assert_eq!(p("s/x.c", ".."), "runs/%2E./s/x.c");
        assert_ne!(p("s/x.c", "a_b"), p("s/x.c", "a b"));
        assert_ne!(p("s/x.c", "a%20b"), p("s/x.c", "a b"));
    }
}
