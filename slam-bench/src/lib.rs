//! `slam-bench`: runs `slam-run` on every (task, configuration) pair of a benchmark and compares
//! refinement strategies, in the manner of the Constrain paper's §4 (Figs. 4–6).
//!
//! - [`tasks`] finds the tasks (SV-COMP `.yml` definitions, C files named
//!   `*_true-unreach-call*` / `*_false-unreach-call*`, list files) and their expected verdicts.
//! - [`config`] names the strategy configurations: points of one schema of strategy
//!   dimensions (each a `slam-run` option and its values), presets reproducing the paper's
//!   columns, matrices over dimensions.
//! - [`runner`] runs each pair as a separate `slam-run` process under CPU-time, wall-clock
//!   and memory limits, in parallel, appending one JSON line per finished run (so an interrupted benchmark
//!   resumes), with a progress line on stderr.
//! - [`results`] owns the row format, the JSON-lines file, the CSV and merging shards.
//! - [`stats`] reads slam-run's `--stats-json`: the per-phase totals of a row, the
//!   per-iteration breakdown.
//! - [`summary`] turns rows into the summary tables (Fig. 4's categories and the SV-COMP
//!   score), [`plots`] into the SVG plots, [`html`] into the HTML report; [`report`] writes
//!   them all into a results directory.
//! - [`provenance`] records the host, the `slam-run` version and the start of a benchmark.
//! - [`progress`] shows which runs are in flight, how many are done and the time left.
//! - [`table`] runs `slam-run` once per task, one at a time, and prints a row per task and the
//!   correct and wrong verdicts per set (`slam-bench table`).

pub mod config;
pub mod html;
pub mod plots;
pub mod progress;
pub mod provenance;
pub mod report;
pub mod results;
pub mod runner;
pub mod stats;
pub mod summary;
pub mod table;
pub mod tasks;

/// A benchmark that cannot be run or read.
#[derive(Debug, thiserror::Error)]
pub enum BenchError {
    /// A file or directory could not be read or written.
    #[error("{0}: {1}")]
    Io(String, std::io::Error),
    /// A task, list or result file is malformed.
    #[error("{0}")]
    Input(String),
    /// The command line asks for something that does not exist or cannot be (an unknown
    /// configuration or dimension, a scatter plot of configurations without results).
    #[error("{0}")]
    Usage(String),
}

impl BenchError {
    /// An I/O error on `path`.
    pub fn io(path: &std::path::Path, e: std::io::Error) -> BenchError {
        BenchError::Io(path.display().to_string(), e)
    }
}
