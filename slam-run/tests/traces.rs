//! Several abstract error traces refined per abstraction (`--traces-per-iteration`), through
//! the library and the command with the CPU-time bound off (so the runs are deterministic):
//! the iterations saved, a counterexample found by a further trace, `--json`'s records.
//!
//! - `sites.c`: three error sites, each refuted by a predicate of its own. One trace per
//!   iteration takes an iteration per site; three traces per iteration find all three
//!   predicates from the first abstraction, the same ones, and the verdict is the same.
//! - `sites-bug.c`: the second site is reachable. Its trace is found with the first site's
//!   refuted edge blocked, and replays to the error: FALSE, whose counterexample a violation
//!   witness checked on the concrete program confirms.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use cir::pred::PredicateSet;
use slam_run::{RefinedTrace, TracesEnd, Verdict};

fn data(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/traces")
        .join(name)
}

fn run(path: &Path, traces: usize) -> slam_run::RunResult {
    let prog = cir::load_file(path, &cir::LowerOptions::default()).expect("lowers");
    let bytes = std::fs::read(path).expect("read");
    let cfg = slam_run::Config {
        traces_per_iteration: traces,
        traces_time_bound: false,
        ..slam_run::Config::default()
    };
    slam_run::run(
        &prog,
        path,
        &bytes,
        PredicateSet::default(),
        &cfg,
        &mut |_| {},
    )
    .expect("runs")
}

/// The predicates the run added by refinement, as (scope, text), sorted.
fn added(r: &slam_run::RunResult) -> Vec<(String, String)> {
    let mut v: Vec<_> = r
        .iterations
        .iter()
        .flat_map(|it| &it.added)
        .map(|a| (a.scope.clone(), a.predicate.clone()))
        .collect();
    v.sort();
    v
}

/// Each trace's length, edges blocked, predicates proposed and added.
fn counts(traces: &[RefinedTrace]) -> Vec<(usize, usize, usize, usize)> {
    traces
        .iter()
        .map(|t| (t.path_len, t.blocked, t.new_predicates, t.predicates_added))
        .collect()
}

#[test]
fn one_abstraction_refines_the_traces_of_several_iterations() {
    let path = data("sites.c");
    let one = run(&path, 1);
    let three = run(&path, 3);
    assert!(
        matches!(one.verdict, Verdict::True),
        "{}",
        one.verdict.line()
    );
    assert!(
        matches!(three.verdict, Verdict::True),
        "{}",
        three.verdict.line()
    );
    // One trace at a time: an iteration per site, then the safe abstraction.
    assert_eq!(one.iterations.len(), 4);
    assert!(
        one.iterations
            .iter()
            .all(|it| it.traces.len() <= 1 && it.traces_end == TracesEnd::None)
    );
    // Three at a time: all three sites refuted from the first abstraction.
    assert_eq!(three.iterations.len(), 2);
    let first = &three.iterations[0];
    assert_eq!(first.traces_end, TracesEnd::Limit);
    assert_eq!(
        first.traces.iter().map(|t| t.blocked).collect::<Vec<_>>(),
        [0, 1, 2]
    );
    assert!(first.traces.iter().all(|t| t.predicates_added == 1));
    assert_eq!(first.predicates_added, 3);
    // The same predicates, from one abstraction instead of three.
    assert_eq!(added(&one), added(&three));
    assert_eq!(one.predicates.len(), three.predicates.len());
    // The first trace of each is the abstraction's own: the same in both runs.
    assert_eq!(
        counts(&one.iterations[0].traces),
        counts(&first.traces[..1])
    );
}

#[test]
fn a_further_trace_that_replays_is_a_counterexample() {
    let path = data("sites-bug.c");
    let r = run(&path, 3);
    let Verdict::False(cex) = &r.verdict else {
        panic!("{}", r.verdict.line());
    };
    // Found from the first abstraction, as its second trace.
    assert_eq!(r.iterations.len(), 1);
    let it = &r.iterations[0];
    assert_eq!(it.traces_end, TracesEnd::Feasible);
    assert_eq!(counts(&it.traces), [(it.path_len, 0, 1, 1)]);
    // The counterexample replays on the concrete program (checked independently, as a
    // violation witness) and goes through the second site.
    let prog = cir::load_file(&path, &cir::LowerOptions::default()).expect("lowers");
    let source = std::fs::read(&path).expect("read");
    let info = common::witness_info(&path, &source);
    let w = slam_run::witness::violation(&prog, cex, &info);
    slam_run::witness::check_violation(&prog, &source, &w).expect("the counterexample checks");
    assert!(
        cex.steps.iter().any(|s| s.text.contains("v == 0")),
        "{}",
        newton::counterexample_text(cex)
    );
    // One trace per iteration finds it a round later.
    let one = run(&path, 1);
    assert!(matches!(one.verdict, Verdict::False(_)));
    assert_eq!(one.iterations.len(), 2);
}

#[test]
fn the_command_reports_the_traces_of_each_iteration() {
    let dir = std::env::temp_dir().join(format!("slam-run-traces-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("dir");
    let stats = dir.join("stats.json");
    let out = Command::new(env!("CARGO_BIN_EXE_slam-run"))
        .arg(data("sites.c"))
        .args(["--traces-per-iteration", "2", "--json"])
        .arg(&stats)
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let doc: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&stats).expect("stats")).expect("json");
    let its = doc["iterations"].as_array().expect("iterations");
    // Two sites from the first abstraction (the limit), the third from the second, whose
    // blocked copy is safe; the third abstraction is proved.
    assert_eq!(its.len(), 3);
    for (it, (n, end)) in its.iter().zip([(2, "limit"), (1, "safe")]) {
        let traces = it["traces"].as_array().expect("traces");
        assert_eq!(traces.len(), n, "{it}");
        assert_eq!(it["traces_end"], end);
        let added: Vec<u64> = traces
            .iter()
            .map(|t| t["predicates_added"].as_u64().expect("count"))
            .collect();
        assert!(added.iter().all(|&k| k == 1), "{it}");
        assert_eq!(it["predicates_added"].as_u64(), Some(n as u64));
        let blocked: Vec<u64> = traces
            .iter()
            .map(|t| t["blocked"].as_u64().expect("count"))
            .collect();
        assert_eq!(blocked, (0..n as u64).collect::<Vec<_>>());
        assert!(traces.iter().all(|t| t["path_len"].as_u64() > Some(0)));
    }
    let last = its.last().expect("a round");
    assert_eq!(last["outcome"], "safe");
    assert_eq!(last["traces"].as_array().map(Vec::len), Some(0));
    assert_eq!(last["traces_end"], "");
    // 0 is no number of traces.
    let bad = Command::new(env!("CARGO_BIN_EXE_slam-run"))
        .arg(data("sites.c"))
        .args(["--traces-per-iteration", "0"])
        .output()
        .expect("runs");
    assert_eq!(bad.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&bad.stderr).contains("--traces-per-iteration"));
    let _ = std::fs::remove_dir_all(&dir);
}

/// `--keep` keeps each further trace's files (`iterNNN-tJ.*`): the blocked Boolean program,
/// its trace, the predicates newton refined against and its answer, and `commands.txt`
/// re-runs bebop and newton on them to the same trace and the same answer.
#[test]
fn keep_holds_the_further_traces_and_they_re_run() {
    let dir = std::env::temp_dir().join(format!("slam-run-traces-keep-{}", std::process::id()));
    let keep = dir.join("keep");
    std::fs::create_dir_all(&dir).expect("dir");
    let out = Command::new(env!("CARGO_BIN_EXE_slam-run"))
        .arg(data("sites.c"))
        .args(["--traces-per-iteration", "2", "--keep"])
        .arg(&keep)
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let f = |name: &str| keep.join(name);
    for ext in ["bp", "trace.json", "preds", "newton.json"] {
        assert!(f(&format!("iter000-t1.{ext}")).exists(), "iter000-t1.{ext}");
    }
    let commands = std::fs::read_to_string(f("commands.txt")).expect("commands");
    assert!(
        commands.contains("iter000-t1.bp is iter000.bp with the statements of edge(s) main#"),
        "{commands}"
    );
    let tools = PathBuf::from(env!("CARGO_BIN_EXE_slam-run"));
    let (bebop, newton) = (
        tools.with_file_name("bebop"),
        tools.with_file_name("newton"),
    );
    if !(bebop.exists() && newton.exists()) {
        eprintln!("bebop or newton not built next to slam-run: re-run part skipped");
        return;
    }
    let trace = dir.join("again.trace.json");
    let st = Command::new(&bebop)
        .arg(f("iter000-t1.bp"))
        .arg("--json")
        .arg(&trace)
        .output()
        .expect("bebop runs");
    // Exit code 10: an error is reachable.
    assert_eq!(st.status.code(), Some(10), "{st:?}");
    let steps = |p: &Path| -> serde_json::Value {
        let doc: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(p).expect("trace")).expect("json");
        doc["steps"].clone()
    };
    assert_eq!(steps(&trace), steps(&f("iter000-t1.trace.json")));
    let json = dir.join("again.newton.json");
    let st = Command::new(&newton)
        .arg(data("sites.c"))
        .arg(f("iter000-t1.bp"))
        .arg(f("iter000-t1.trace.json"))
        .arg("--preds")
        .arg(f("iter000-t1.preds"))
        .arg("--json")
        .arg(&json)
        .output()
        .expect("newton runs");
    assert!(st.status.success(), "{st:?}");
    assert_eq!(
        std::fs::read_to_string(&json).expect("again"),
        std::fs::read_to_string(f("iter000-t1.newton.json")).expect("kept"),
    );
    let _ = std::fs::remove_dir_all(&dir);
}
