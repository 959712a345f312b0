//! Acceptance test over the Boppo regression corpus (the sequential Boolean programs of SATABS's
//! `regression/boppo`), kept outside the repository in `../shared/corpus/bp/boppo`: bebop must
//! give every program its published verdict (`EXPECTED.tsv`), every counterexample must replay
//! on the reference interpreter (`bp_testkit::replay`), and the traces of Taken1 and Taken2 must
//! show what their `test.desc` asks (`TRACE t=0 PC=L1 g1=1 TAKEN=...`).
//!
//! When the corpus is absent the test says so and passes.

use bp_grammar::trace::{Trace, Valuation};
use bp_testkit::reference::RefProperty;
use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::time::Duration;

const CORPUS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../shared/corpus/bp/boppo");

/// How long one run of bebop may take before the harness gives up on it.
const RUN_TIMEOUT: Duration = Duration::from_secs(300);

/// One row of `EXPECTED.tsv`.
struct Task {
    name: String,
    unsafe_: bool,
    /// bebop flags translated from the Boppo options in the note column.
    flags: Vec<String>,
}

/// Reads `EXPECTED.tsv`: `task<TAB>expected<TAB>note`, the note being `options: ...` with
/// Boppo's command-line options. `-l L` becomes `--label L`; `--compact-trace` only changes
/// Boppo's trace format and is dropped.
fn read_tasks(dir: &Path) -> Result<Vec<Task>, String> {
    let path = dir.join("EXPECTED.tsv");
    let text = std::fs::read_to_string(&path)
        .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    let mut tasks = Vec::new();
    for (i, line) in text.lines().enumerate().skip(1) {
        if line.trim().is_empty() {
            continue;
        }
        let cols: Vec<&str> = line.split('\t').collect();
        let (Some(name), Some(expected)) = (cols.first(), cols.get(1)) else {
            return Err(format!("EXPECTED.tsv line {}: too few columns", i + 1));
        };
        let unsafe_ = match *expected {
            "safe" => false,
            "unsafe" => true,
            other => {
                return Err(format!(
                    "EXPECTED.tsv line {}: unknown verdict {other:?}",
                    i + 1
                ));
            }
        };
        let note = cols.get(2).copied().unwrap_or("");
        let options = note.trim().strip_prefix("options:").unwrap_or("").trim();
        let mut flags = Vec::new();
        let mut words = options.split_whitespace();
        while let Some(w) = words.next() {
            match w {
                "-l" => {
                    let label = words
                        .next()
                        .ok_or(format!("EXPECTED.tsv line {}: `-l` without a label", i + 1))?;
                    flags.push("--label".to_string());
                    flags.push(label.to_string());
                }
                "--compact-trace" => {}
                other => {
                    return Err(format!(
                        "EXPECTED.tsv line {}: unknown Boppo option {other:?}",
                        i + 1
                    ));
                }
            }
        }
        tasks.push(Task {
            name: name.to_string(),
            unsafe_,
            flags,
        });
    }
    Ok(tasks)
}

/// What one run of `bebop::run_cli` produced.
struct Run {
    code: i32,
    stdout: String,
    stderr: String,
}

/// Runs `bebop ARGS` in-process on a thread of its own, with a time limit.
fn run_bebop(args: &[String]) -> Result<Run, String> {
    let mut argv = vec!["bebop".to_string()];
    argv.extend(args.iter().cloned());
    let (tx, rx) = mpsc::channel();
    std::thread::Builder::new()
        .name("bebop".into())
        .stack_size(64 << 20)
        .spawn(move || {
            let mut out = Vec::new();
            let mut err = Vec::new();
            let code = bebop::cli::run_cli(argv, &mut out, &mut err);
            let _ = tx.send(Run {
                code,
                stdout: String::from_utf8_lossy(&out).into_owned(),
                stderr: String::from_utf8_lossy(&err).into_owned(),
            });
        })
        .map_err(|e| format!("cannot start a thread: {e}"))?;
    match rx.recv_timeout(RUN_TIMEOUT) {
        Ok(run) => Ok(run),
        Err(mpsc::RecvTimeoutError::Timeout) => {
            Err(format!("did not finish within {} s", RUN_TIMEOUT.as_secs()))
        }
        Err(mpsc::RecvTimeoutError::Disconnected) => {
            Err("bebop panicked (see the test's stderr)".to_string())
        }
    }
}

/// Taken1/Taken2 (`test.desc`: `TRACE t=0 PC=L1 g1=1 TAKEN=...`): the trace passes the `if`
/// labelled L1 with g1 true. Boppo's `TAKEN` says whether the `if`'s `goto` was taken; in
/// bebop's trace `taken` is the index of the arm run (0 = the `then` arm, 1 = past the `if`):
/// Taken1's `if g1` takes its arm (TAKEN=1, taken 0); Taken2's `if !g1` does not (TAKEN=0,
/// taken 1).
fn check_taken(trace: &Trace, want_taken: u32) -> Result<(), String> {
    let step = trace
        .steps
        .iter()
        .find(|s| s.labels.iter().any(|l| l == "L1"))
        .ok_or("the trace does not pass the statement labelled L1")?;
    let g1 = |v: &Valuation| v.get("g1").copied();
    if g1(&step.before) != Some(true) {
        return Err(format!(
            "the trace passes L1 with g1 = {:?}, test.desc wants g1=1",
            g1(&step.before)
        ));
    }
    if step.taken != Some(want_taken) {
        return Err(format!(
            "the `if` at L1 has taken = {:?}, want Some({want_taken})",
            step.taken
        ));
    }
    Ok(())
}

fn check_task(dir: &Path, task: &Task) -> Result<(), String> {
    let file: PathBuf = dir.join(&task.name).join("main.bp");
    let src = std::fs::read_to_string(&file)
        .map_err(|e| format!("cannot read {}: {e}", file.display()))?;
    let json = std::env::temp_dir().join(format!(
        "slam-toolkit-{}-boppo-{}.trace.json",
        std::process::id(),
        task.name
    ));
    let _ = std::fs::remove_file(&json);
    let mut args = task.flags.clone();
    if task.unsafe_ {
        args.push("--trace-json".into());
        args.push(json.display().to_string());
    }
    args.push(file.display().to_string());
    let run = run_bebop(&args)?;
    let (code, verdict) = if task.unsafe_ {
        (cli_common::exit::UNSAFE, "VERIFICATION FAILED")
    } else {
        (cli_common::exit::SAFE, "VERIFICATION SUCCESSFUL")
    };
    if run.code != code || run.stdout.lines().next() != Some(verdict) {
        let first = run.stdout.lines().next().unwrap_or("");
        return Err(format!(
            "expected {} (exit {code}, `{verdict}`), got exit {} and `{first}`; stderr: {}",
            if task.unsafe_ { "unsafe" } else { "safe" },
            run.code,
            run.stderr.trim()
        ));
    }
    if !task.unsafe_ {
        return Ok(());
    }
    let text = std::fs::read_to_string(&json)
        .map_err(|e| format!("no JSON trace at {}: {e}", json.display()))?;
    let _ = std::fs::remove_file(&json);
    let trace =
        Trace::from_json(&text).map_err(|e| format!("the JSON trace does not parse: {e}"))?;
    let prog =
        bp_grammar::parse(&src).map_err(|e| format!("bp_grammar::parse rejects it: {e:?}"))?;
    let label = task
        .flags
        .iter()
        .position(|f| f == "--label")
        .and_then(|i| task.flags.get(i + 1));
    let property = match label {
        Some(l) => RefProperty::Label(l.clone()),
        None => RefProperty::AssertsAndSlicError,
    };
    bp_testkit::replay::replay(&prog, &trace, &property)
        .map_err(|e| format!("the trace does not replay: {e}"))?;
    match task.name.as_str() {
        "Taken1" => check_taken(&trace, 0),
        "Taken2" => check_taken(&trace, 1),
        _ => Ok(()),
    }
}

#[test]
fn boppo_corpus() {
    let dir = Path::new(CORPUS);
    if !dir.is_dir() {
        println!("skipping: ../shared/corpus/bp/boppo not found");
        return;
    }
    let tasks = read_tasks(dir).unwrap_or_else(|e| panic!("{e}"));
    assert!(!tasks.is_empty(), "EXPECTED.tsv lists no task");
    let mut failures = Vec::new();
    for task in &tasks {
        if let Err(e) = check_task(dir, task) {
            failures.push(format!("{}: {e}", task.name));
        }
    }
    let n = failures.len();
    assert!(
        failures.is_empty(),
        "Boppo corpus: {n} of {} tasks failed:\n  {}",
        tasks.len(),
        failures.join("\n  ")
    );
    eprintln!("Boppo corpus: all {} tasks passed", tasks.len());
}
