//! What slam-run's integration tests share: running the loop through the library on a C file,
//! or on C text written to a scratch file of its own.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

use cir::pred::PredicateSet;

/// Runs the loop on the C file at `path`, without initial predicates.
pub fn run_file(path: &Path, cfg: &slam_run::Config) -> slam_run::RunResult {
    let prog = cir::load_file(path, &cir::LowerOptions::default()).expect("lowers");
    let bytes = std::fs::read(path).expect("read");
    slam_run::run(
        &prog,
        path,
        &bytes,
        PredicateSet::default(),
        cfg,
        &mut |_| {},
    )
    .expect("runs")
}

/// What a witness of the C file at `path` (whose bytes are `source`) records: the default data
/// model, `reach_error` as the error function.
pub fn witness_info(path: &Path, source: &[u8]) -> slam_run::witness::WitnessInfo {
    slam_run::witness::WitnessInfo {
        program_file: path.display().to_string(),
        source: source.to_vec(),
        data_model: cir::DataModel::default(),
        error_fns: vec!["reach_error".into()],
        producer: "slam-run test".into(),
    }
}

/// A scratch directory of this call's own (tests run in parallel threads, and two of them may
/// write files of the same name).
pub fn scratch_dir(tag: &str) -> PathBuf {
    static CALLS: AtomicUsize = AtomicUsize::new(0);
    let n = CALLS.fetch_add(1, Ordering::Relaxed);
    let dir = std::env::temp_dir().join(format!("slam-{tag}-{}-{n}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    dir
}

/// Runs the loop on C `text`, written to a file named `name` in a scratch directory that is
/// removed afterwards.
pub fn run_text(name: &str, text: &str, cfg: &slam_run::Config) -> slam_run::RunResult {
    let dir = scratch_dir("test");
    let path = dir.join(name);
    std::fs::write(&path, text).expect("write");
    let r = run_file(&path, cfg);
    let _ = std::fs::remove_dir_all(&dir);
    r
}
