//! slam-run on the SV-COMP corpus, the command with `--timeout 10` per task: never a wrong verdict
//! (TRUE for a `false` task, FALSE for a `true` one) in any directory; every `locks` task correct.
//! The counts of the other directories are printed (`make slam-table` prints the full table with
//! the release build). Every FALSE verdict's violation witness (`--witness`) is checked:
//! well-formed GraphML with the required keys and the program's hash, replayed on the concrete
//! interpreter to the error; so is every TRUE verdict's correctness witness: its loop-head
//! invariants proved inductive (what the checker does not handle — pointers, aggregates, a proof
//! that needs more than a looping callee's entry invariant — is counted as not checked, with the
//! reason). Skipped, saying so, when `../shared/corpus` is absent.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

fn corpus() -> Option<PathBuf> {
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/corpus/sv-benchmarks");
    p.is_dir().then_some(p)
}

/// The tasks of a directory: `.yml` definitions, or old-style `.i` files named by verdict.
fn tasks(dir: &Path) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|rd| rd.filter_map(|e| e.ok().map(|e| e.path())).collect())
        .unwrap_or_default();
    out.retain(|p| {
        let ext = p.extension().and_then(|e| e.to_str()).unwrap_or("");
        ext == "yml" || (ext == "i" && !p.with_extension("yml").exists())
    });
    out.sort();
    out
}

struct Tally {
    witnesses: usize,
    proofs: usize,
    unchecked: Vec<String>,
    correct: usize,
    unknown: usize,
    wrong: Vec<String>,
    total: usize,
}

fn run_dir(root: &Path, name: &str, limit: Duration) -> Tally {
    let mut t = Tally {
        witnesses: 0,
        proofs: 0,
        unchecked: Vec::new(),
        correct: 0,
        unknown: 0,
        wrong: Vec::new(),
        total: 0,
    };
    for task in tasks(&root.join(name)) {
        let def = svcomp::task::load(&task).expect("task definition");
        let Some(expected) = def.expected else {
            continue;
        };
        t.total += 1;
        // The command, not the library: its --timeout is a real limit (a single c2bp or
        // bebop stage can outlast the library's between-stage deadline).
        let start = Instant::now();
        let witness = std::env::temp_dir().join(format!(
            "slam-corpus-{}-{}.graphml",
            std::process::id(),
            task.file_name().unwrap_or_default().to_string_lossy()
        ));
        let _ = std::fs::remove_file(&witness);
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_slam-run"))
            .arg("--timeout")
            .arg(limit.as_secs_f64().to_string())
            .arg("--witness")
            .arg(&witness)
            .arg(&task)
            .output()
            .expect("slam-run runs");
        let stdout = String::from_utf8_lossy(&out.stdout);
        let verdict = stdout.lines().next().unwrap_or("").to_string();
        let summary = stdout
            .lines()
            .find(|l| l.starts_with("summary:"))
            .unwrap_or("");
        eprintln!(
            "{name}/{}: expected {}, {verdict}, {summary}, {:.2} s",
            task.file_name()
                .map(|f| f.to_string_lossy().to_string())
                .unwrap_or_default(),
            if expected { "TRUE" } else { "FALSE" },
            start.elapsed().as_secs_f64()
        );
        assert!(
            matches!(out.status.code(), Some(0 | 5 | 10)),
            "{}: exit code {:?}: {}",
            task.display(),
            out.status.code(),
            String::from_utf8_lossy(&out.stderr)
        );
        let stderr = String::from_utf8_lossy(&out.stderr);
        if verdict.starts_with("FALSE") {
            // A verdict found just before the limit may leave no time for its witness:
            // slam-run says so and the verdict stands; any other missing witness fails.
            if !witness.exists() && stderr.contains("the time limit passed while it was being made")
            {
                t.unchecked
                    .push(format!("{}: witness cut by the time limit", task.display()));
            } else {
                check_witness(&def, &witness);
                t.witnesses += 1;
            }
        }
        if verdict == "TRUE" {
            match check_correctness_witness(&def, &witness) {
                Ok(()) => t.proofs += 1,
                Err(why) => t.unchecked.push(format!("{}: {why}", task.display())),
            }
        }
        let _ = std::fs::remove_file(&witness);
        match (verdict.as_str(), expected) {
            ("TRUE", true) | ("FALSE(unreach-call)", false) => t.correct += 1,
            (v, _) if v.starts_with("UNKNOWN") => t.unknown += 1,
            _ => t.wrong.push(format!("{}: {verdict}", task.display())),
        }
    }
    eprintln!(
        "{name}: {}/{} correct, {} unknown, {} wrong; {} violation witnesses checked, {} \
         correctness witnesses proved, {} not checked",
        t.correct,
        t.total,
        t.unknown,
        t.wrong.len(),
        t.witnesses,
        t.proofs,
        t.unchecked.len()
    );
    for u in &t.unchecked {
        eprintln!("  not checked: {u}");
    }
    t
}

/// The correctness witness of a TRUE verdict: proved, or not checked (`Err`, the reason); a
/// witness the checker handles but cannot prove fails the test.
fn check_correctness_witness(def: &svcomp::task::Task, witness: &Path) -> Result<(), String> {
    let Ok(text) = std::fs::read_to_string(witness) else {
        return Err("no witness written".into());
    };
    let prog = lower(def);
    let source = std::fs::read(&def.c_file).expect("source");
    let sem = cir::smt::Semantics {
        data_model: def.data_model,
        bitvector: false,
    };
    match slam_run::witness::check_correctness(&prog, &source, &text, sem) {
        Ok(p) => {
            eprintln!(
                "  correctness witness: {} invariants, {} loop heads, {} obligations proved",
                p.invariants, p.loop_heads, p.obligations
            );
            Ok(())
        }
        Err(e) if e.0.starts_with("not checked") => Err(e.0),
        Err(e) => panic!("{}: {e}\n{text}", def.c_file.display()),
    }
}

fn lower(def: &svcomp::task::Task) -> cir::Program {
    let settings = bp_c::header::HeaderSettings {
        error_fns: def.error_fns.clone(),
        sem: cir::smt::Semantics {
            data_model: def.data_model,
            bitvector: false,
        },
        ..bp_c::header::HeaderSettings::default()
    };
    cir::load_file(&def.c_file, &settings.lower_options()).expect("lowers")
}

/// The violation witness slam-run wrote for a FALSE verdict checks against the task's program.
fn check_witness(def: &svcomp::task::Task, witness: &Path) {
    let text = std::fs::read_to_string(witness)
        .unwrap_or_else(|e| panic!("{}: no witness: {e}", def.c_file.display()));
    let prog = lower(def);
    let source = std::fs::read(&def.c_file).expect("source");
    let checked = slam_run::witness::check_violation(&prog, &source, &text)
        .unwrap_or_else(|e| panic!("{}: {e}", def.c_file.display()));
    eprintln!(
        "  witness: {} edges, {} input values, replayed to the error in {} steps",
        checked.edges, checked.values, checked.steps
    );
}

#[test]
fn the_corpus_gets_no_wrong_verdict_and_locks_are_all_correct() {
    let Some(root) = corpus() else {
        eprintln!("SKIP: ../shared/corpus/sv-benchmarks not found");
        return;
    };
    let limit = Duration::from_secs(10);
    let mut wrong = Vec::new();
    let locks = run_dir(&root, "locks", limit);
    wrong.extend(locks.wrong.iter().cloned());
    for d in [
        "ntdrivers-simplified",
        "loop-acceleration",
        "svcomp16-loop-acceleration",
    ] {
        wrong.extend(run_dir(&root, d, limit).wrong);
    }
    assert!(wrong.is_empty(), "wrong verdicts:\n{}", wrong.join("\n"));
    assert_eq!(
        locks.witnesses, 2,
        "the two FALSE locks tasks have checked witnesses"
    );
    assert_eq!(locks.total, 13, "the locks directory has 13 tasks");
    assert_eq!(locks.correct, 13, "every locks task is solved within 10 s");
}
