//! `--stats-json`: the breakdown of a run by iteration and phase — c2bp per procedure, bebop's
//! BDD sizes, newton's answer, the predicates added, time and memory — checked for consistency
//! on a real run, and present for runs a limit stops: the wall-clock `--timeout` and the
//! process's CPU-time limit (RLIMIT_CPU, as slam-bench sets it), each with the rounds completed
//! and the phase that was cut.

use std::os::unix::process::CommandExt as _;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

fn manifest(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(rel)
}

fn scratch(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("slam-run-stats-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).expect("temp dir");
    d
}

/// Runs `slam-run FILE --stats-json OUT ARGS…` (with `cpu_limit`: RLIMIT_CPU soft limit of that
/// many seconds, hard limit 10 s more); the exit code, stdout and the document.
fn run(file: &Path, dir: &Path, args: &[&str], cpu_limit: Option<u64>) -> (i32, String, Value) {
    let stats = dir.join("stats.json");
    let _ = std::fs::remove_file(&stats);
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_slam-run"));
    cmd.arg(file).arg("--stats-json").arg(&stats).args(args);
    if let Some(secs) = cpu_limit {
        let lim = libc::rlimit {
            rlim_cur: secs as libc::rlim_t,
            rlim_max: (secs + 10) as libc::rlim_t,
        };
        // SAFETY: only setrlimit, async-signal-safe, between fork and exec.
        unsafe {
            cmd.pre_exec(move || {
                if libc::setrlimit(libc::RLIMIT_CPU, &lim) != 0 {
                    return Err(std::io::Error::last_os_error());
                }
                Ok(())
            });
        }
    }
    let out = cmd.output().expect("slam-run runs");
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let text = std::fs::read_to_string(&stats).unwrap_or_else(|e| {
        panic!(
            "no statistics ({e}); exit {:?}\n{stdout}\n{}",
            out.status,
            String::from_utf8_lossy(&out.stderr)
        )
    });
    let doc = serde_json::from_str(&text).expect("the statistics are JSON");
    (out.status.code().unwrap_or(-1), stdout, doc)
}

fn f(v: &Value, k: &str) -> f64 {
    v[k].as_f64()
        .unwrap_or_else(|| panic!("`{k}` is not a number in {v}"))
}

fn u(v: &Value, k: &str) -> u64 {
    v[k].as_u64()
        .unwrap_or_else(|| panic!("`{k}` is not a count in {v}"))
}

const PHASES: [&str; 4] = ["c2bp", "bebop", "newton", "constrain"];

/// What every document holds, whatever stopped the run: the format, the totals equal to the
/// sums over the rounds, the memory, the per-round fields.
fn check_document(doc: &Value) {
    assert_eq!(doc["format"], "slam-run-stats/2");
    let its = doc["iterations"].as_array().expect("iterations");
    for p in PHASES {
        for suffix in ["seconds", "cpu_seconds"] {
            let key = format!("{p}_{suffix}");
            let sum: f64 = its.iter().map(|i| f(i, &key)).sum();
            assert!(
                (f(doc, &key) - sum).abs() < 1e-6,
                "{key}: total {} against the rounds' {sum}",
                doc[&key]
            );
        }
    }
    let queries: u64 = its.iter().map(|i| u(i, "prover_queries")).sum();
    assert_eq!(u(doc, "prover_queries"), queries);
    assert!(f(doc, "peak_rss_mib") > 1.0, "peak memory measured");
    assert!(f(doc, "cpu_seconds") > 0.0);
    assert!(f(doc, "seconds") > 0.0);
    assert!(doc["predicates_file"].is_string());
    for it in its {
        for key in [
            "predicates",
            "predicates_added",
            "new_predicates",
            "path_len",
        ] {
            u(it, key);
        }
        assert!(f(it, "peak_rss_mib") > 1.0);
        assert!(f(it, "peak_rss_mib") <= f(doc, "peak_rss_mib"));
        for p in PHASES {
            assert!(f(it, &format!("{p}_seconds")) >= 0.0);
            assert!(f(it, &format!("{p}_cpu_seconds")) >= 0.0);
        }
        if let Some(c) = it["c2bp"].as_object() {
            let c = Value::Object(c.clone());
            // Every query is a solver call or a cache hit.
            assert_eq!(
                u(it, "prover_queries"),
                u(&c, "solver_calls") + u(&c, "cache_hits")
            );
            let procs = c["procedures"].as_array().expect("procedures");
            assert!(!procs.is_empty());
            let per_proc: u64 = procs.iter().map(|p| u(p, "queries")).sum();
            // The global enforce search asks the rest.
            assert!(per_proc <= u(&c, "solver_calls"), "{c}");
            // Every edge is reused or abstracted, and the totals are the procedures'.
            for key in [
                "statements_reused",
                "statements_abstracted",
                "cubes",
                "exact_capped",
            ] {
                let sum: u64 = procs.iter().map(|p| u(p, key)).sum();
                assert_eq!(sum, u(&c, key), "{key}: {c}");
            }
            assert!(u(&c, "statements_budget_stopped") <= u(&c, "statements_abstracted"));
            for p in procs {
                assert!(p["name"].as_str().is_some_and(|n| !n.is_empty()));
                for key in ["memo_hits", "prior_hits", "seeded", "capped", "updates"] {
                    u(p, key);
                }
                assert!(u(p, "star_updates") <= u(p, "updates"));
                assert!(f(p, "seconds") <= f(it, "c2bp_seconds"));
                if p["reused"] == true {
                    assert_eq!(u(p, "queries"), 0, "a reused text asks nothing: {p}");
                }
            }
        }
        if let Some(b) = it["bebop"].as_object() {
            let b = Value::Object(b.clone());
            assert!(u(&b, "statements") > 0 && u(&b, "procedures") > 0);
            assert!(u(&b, "peak_live_nodes") >= u(&b, "final_live_nodes"));
            assert!(u(&b, "worklist_iterations") > 0);
            let parts = f(&b, "lower_seconds") + f(&b, "reach_seconds") + f(&b, "trace_seconds");
            assert!(parts <= f(it, "bebop_seconds") + 1e-6);
        }
    }
}

#[test]
fn a_run_is_broken_down_by_iteration_and_phase() {
    let dir = scratch("real");
    let bug = manifest("../examples/c/funlock-bug.c");
    // Every round refined by newton (the falsifier, which would find this bug by executing
    // the program first, records its own calls: `tests/falsify.rs`).
    let (code, out, doc) = run(&bug, &dir, &["--falsify", "off"], None);
    assert_eq!(code, 10, "{out}");
    check_document(&doc);
    assert_eq!(doc["verdict"], "FALSE(unreach-call)");
    assert!(doc["stopped_in"].is_null(), "no limit stopped it");
    assert!(!out.contains("stopped-in"), "{out}");
    let its = doc["iterations"].as_array().expect("iterations");
    assert!(
        its.len() >= 2,
        "funlock-bug needs refinement: {}",
        its.len()
    );
    let (last, earlier) = its.split_last().expect("rounds");
    assert_eq!(last["outcome"], "feasible");
    assert_eq!(u(last, "predicates_added"), 0);
    for (k, it) in earlier.iter().enumerate() {
        // Newton refuted each earlier trace; the predicates it proposed were all added, and
        // the next iteration abstracts with them.
        assert_eq!(it["outcome"], "infeasible", "{it}");
        assert_eq!(u(it, "alternation"), 0);
        assert!(u(it, "predicates_added") > 0);
        assert_eq!(u(it, "predicates_added"), u(it, "new_predicates"));
        assert_eq!(
            u(&its[k + 1], "predicates"),
            u(it, "predicates") + u(it, "predicates_added")
        );
    }
    for it in its {
        assert_eq!(
            u(it, "index") as usize,
            its.iter().position(|x| x == it).unwrap()
        );
        assert!(it["c2bp"].is_object() && it["bebop"].is_object(), "{it}");
        assert!(f(it, "c2bp_seconds") > 0.0 && f(it, "newton_seconds") > 0.0);
        let procs: Vec<&str> = it["c2bp"]["procedures"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| p["name"].as_str().unwrap())
            .collect();
        for name in ["main", "lock", "unlock"] {
            assert!(procs.contains(&name), "{name} in {procs:?}");
        }
    }
    // The first abstraction asks the prover; later ones find answers of earlier ones.
    let first = &its[0]["c2bp"];
    assert!(u(first, "solver_calls") > 0);
    assert_eq!(
        u(first, "statements_reused"),
        0,
        "nothing to reuse at first"
    );
    let later_hits: u64 = its[1..]
        .iter()
        .flat_map(|i| i["c2bp"]["procedures"].as_array().unwrap())
        .map(|p| u(p, "prior_hits") + u(p, "statements_reused"))
        .sum();
    assert!(later_hits > 0, "later abstractions reuse earlier answers");
    let last_stats = u(last, "prover_queries");
    assert_eq!(
        last_stats,
        u(&last["c2bp"], "solver_calls") + u(&last["c2bp"], "cache_hits")
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// The size of each abstraction: the cubes its transitions are written with, and, with the
/// exact abstraction, the statements whose relation stopped at `--max-cubes` (kept Cartesian
/// besides its clauses, so the proof still goes through).
#[test]
fn each_abstraction_reports_its_cubes_and_capped_statements() {
    let dir = scratch("cubes");
    let ok = manifest("../examples/c/funlock.c");
    let last_c2bp = |args: &[&str]| {
        let (code, out, doc) = run(&ok, &dir, args, None);
        assert_eq!(code, 0, "{args:?}: {out}");
        check_document(&doc);
        let its = doc["iterations"].as_array().expect("iterations").clone();
        let c = its.last().expect("a round")["c2bp"].clone();
        assert!(c.is_object(), "{c}");
        (u(&c, "cubes"), u(&c, "exact_capped"))
    };
    let (cartesian, none) = last_c2bp(&[]);
    assert!(cartesian > 0, "the final abstraction has cubes");
    assert_eq!(none, 0, "the Cartesian abstraction caps no relation");
    let (exact, complete) = last_c2bp(&["--abstraction", "exact"]);
    assert!(exact > 0);
    assert_eq!(
        complete, 0,
        "every relation of funlock fits the default --max-cubes"
    );
    let (_, capped) = last_c2bp(&["--abstraction", "exact", "--max-cubes", "1"]);
    assert!(
        capped > 0,
        "one clause per relation is not enough for funlock"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// A state machine whose proof needs a predicate per state, newton finding one or two per
/// iteration: with `--refine wp` (the path program's invariant `0 <= s <= 120` would prove it
/// at once), a run of many cheap iterations, several times longer than the tests' limits of
/// 2 s (with `--sibling-predicates off`: the siblings of one state test would bring all 120
/// at once): more than 10 s of CPU.
fn state_machine(dir: &Path, states: usize) -> PathBuf {
    let mut c = String::from(
        "extern void reach_error(void);\nextern int __VERIFIER_nondet_int(void);\n\
         int main(void) {\n  int s = 0; int f = 0;\n  while (__VERIFIER_nondet_int()) {\n",
    );
    for k in 0..states {
        let set = if k == states / 2 { " f = 1;" } else { "" };
        let kw = if k == 0 { "if" } else { "else if" };
        c.push_str(&format!("    {kw} (s == {k}) {{ s = {};{set} }}\n", k + 1));
    }
    c.push_str(&format!(
        "    else if (s == {states}) {{ f = 0; s = 0; }}\n  }}\n  \
         if (s == {} && f == 1) reach_error();\n  return 0;\n}}\n",
        states / 2 - 1
    ));
    let path = dir.join("machine.c");
    std::fs::write(&path, c).expect("write");
    path
}

/// The document of a run a limit stopped: UNKNOWN (timeout), the completed rounds (newton
/// refuted each), the one cut (if the limit fell inside a phase), the phase.
fn check_cut(code: i32, out: &str, doc: &Value) {
    assert_eq!(code, 5, "{out}");
    assert_eq!(out.lines().next(), Some("UNKNOWN (timeout)"), "{out}");
    check_document(doc);
    assert_eq!(doc["verdict"], "UNKNOWN (timeout)");
    let phase = doc["stopped_in"].as_str().expect("the phase that was cut");
    assert!(
        PHASES.contains(&phase) || phase == "setup",
        "stopped in {phase}"
    );
    assert!(
        out.contains(&format!("stopped-in={phase}")),
        "the summary names it: {out}"
    );
    let its = doc["iterations"].as_array().expect("iterations");
    assert!(its.len() >= 2, "rounds completed before the limit: {doc}");
    let (last, completed) = its.split_last().unwrap();
    for it in completed {
        assert_eq!(it["outcome"], "infeasible", "{it}");
        assert!(it["c2bp"].is_object() && it["bebop"].is_object());
        assert!(u(it, "predicates_added") > 0);
    }
    // The last round: cut inside a phase (no answer), or complete when the loop itself
    // stopped between two.
    assert!(
        last["outcome"] == "" || last["outcome"] == "infeasible",
        "{last}"
    );
    if last["outcome"] == "" {
        assert_eq!(u(last, "predicates_added"), 0);
        if phase == "c2bp" {
            assert!(last["c2bp"].is_null() && f(last, "c2bp_seconds") == 0.0);
        }
        if phase == "bebop" {
            assert!(last["c2bp"].is_object() && last["bebop"].is_null());
        }
    }
    assert_eq!(
        u(doc, "predicates") as usize,
        doc["predicates_file"]
            .as_str()
            .unwrap()
            .lines()
            .filter(|l| !l.is_empty() && !l.ends_with(':'))
            .count(),
        "the predicates at the cut"
    );
}

#[test]
fn a_run_stopped_by_timeout_keeps_what_it_completed() {
    let dir = scratch("timeout");
    let c = state_machine(&dir, 120);
    let (code, out, doc) = run(
        &c,
        &dir,
        &[
            "--refine",
            "wp",
            "--sibling-predicates",
            "off",
            "--timeout",
            "2",
        ],
        None,
    );
    check_cut(code, &out, &doc);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_run_stopped_by_its_cpu_limit_keeps_what_it_completed() {
    let dir = scratch("cpu");
    let c = state_machine(&dir, 120);
    let (code, out, doc) = run(
        &c,
        &dir,
        &["--refine", "wp", "--sibling-predicates", "off"],
        Some(2),
    );
    check_cut(code, &out, &doc);
    // The kernel's CPU clock of the limit and getrusage's are sampled differently.
    assert!(
        f(&doc, "cpu_seconds") > 0.8 * 2.0,
        "stopped at the CPU limit: {}",
        doc["cpu_seconds"]
    );
    let _ = std::fs::remove_dir_all(&dir);
}
