//! End-to-end soundness fuzz test of `slam-run`: owns the ground truth
//! by exhaustive concrete execution ([`explore`]), the comparison of `slam_run::run`'s verdicts
//! with it for cube lengths 1, 3 and `inf`, and the summary. The programs come from
//! `fuzz/gen.rs`.
//!
//! For each program index `n` the generator is asked for candidates (seeds derived from `n`)
//! until one's ground truth is "reachable" for even `n` and "unreachable" for odd `n` (a few
//! attempts; then the last explorable candidate is taken whatever it is), so about half of the
//! programs are unsafe. A candidate whose exploration exceeds the caps, or faults with no
//! error-reaching run, is skipped (counted).
//!
//! Each `slam_run::run` (cube lengths 1, 3, `inf`; `--constrain` lazy, eager and off in turn
//! over the programs and cube lengths, so that each way of handling NDF is exercised;
//! `--refine` wp, horn and auto in turn likewise, and the test fails when the runs in `horn`
//! or `auto` never called the Horn refiner (the generator's loops must reach it); at most
//! 30 iterations; the default options otherwise) runs in a child process, this test binary
//! re-run on [`fuzz_child`] alone, killed when its time is up: the loop checks its deadline only between stages, and one
//! abstraction of an unlucky program can take minutes.
//!
//! Soundness: `TRUE` on a program with an error-reaching run, or `FALSE` on one without, is a
//! contradiction and fails the test (with the program, its seed and the verdicts); so does an
//! internal error of the loop. `UNKNOWN` is allowed and counted.
//!
//! Knobs (environment): `SLAM_FUZZ_SEEDS=N` programs (default [`DEFAULT_PROGRAMS`]),
//! `SLAM_FUZZ_START=S` first program index, `SLAM_FUZZ_THREADS=T` workers (default: the
//! available parallelism, at most 4), `SLAM_FUZZ_TIMEOUT=SECS` per `slam-run` run (default 5),
//! `SLAM_FUZZ_VERBOSE=1` one line per program, `SLAM_FUZZ_PRINT=N` prints program `N`'s text
//! and ground truth and nothing else, `SLAM_FUZZ_PRECISION=int|bv|auto` the runs' precision
//! (default: the default, `auto`), `SLAM_FUZZ_CONSTRAIN=lazy|eager|off` and
//! `SLAM_FUZZ_REFINE=wp|horn|auto` one constrain or refinement mode for every run instead of
//! the rotation (`lazy` and `auto` are slam-run's defaults). By hand, in release mode:
//! `SLAM_FUZZ_SEEDS=2000 cargo test --release -p slam-run --test fuzz -- --nocapture`.

#[path = "fuzz/gen.rs"]
mod generator;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use cir::Program;
use cir::interp::{End, Event, Fault, Interp, Oracle};
use cir::ir::{Callee, EdgeKind};
use cir::pred::PredicateSet;
use slam_run::Verdict;

/// Programs checked by the default (CI) run: about a minute on two cores in the test profile.
const DEFAULT_PROGRAMS: usize = 30;
/// Candidates generated per program index while looking for the wanted ground truth.
const ATTEMPTS: u64 = 6;
/// Exploration caps: complete runs, and interpreter steps over all runs.
const MAX_RUNS: usize = 100_000;
const MAX_STEPS: usize = 4_000_000;
/// Steps of one run (every generated run is far shorter; a longer one is a generator bug).
const MAX_RUN_STEPS: usize = 100_000;
/// Iterations of the refinement loop.
const MAX_ITERATIONS: usize = 30;
/// The constrain modes checked (one per program and cube length, in turn).
const MODES: [&str; 3] = ["lazy", "eager", "off"];

/// The refinement modes checked (one per program and cube length, in turn).
const REFINES: [&str; 3] = ["wp", "horn", "auto"];

/// The one value of `options` the environment variable `var` fixes for every run, if set.
fn fixed(var: &str, options: &[&'static str]) -> Option<&'static str> {
    let v = std::env::var(var).ok()?;
    let found = options.iter().copied().find(|o| *o == v);
    assert!(found.is_some(), "{var}={v}: expected one of {options:?}");
    found
}

/// The cube lengths checked.
const CUBES: [Option<usize>; 3] = [Some(1), Some(3), None];

// ---------------------------------------------------------------------------------------------
// Ground truth

/// What exhaustive execution found.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Truth {
    /// A run reaches the error; the oracle's answers along it.
    Reachable(Vec<i128>),
    /// No run reaches the error (and none faulted).
    Unreachable,
    /// Not decided: a cap was hit, or a run faulted and none reached the error.
    Skip(String),
}

impl Truth {
    fn reachable(&self) -> Option<bool> {
        match self {
            Truth::Reachable(_) => Some(true),
            Truth::Unreachable => Some(false),
            Truth::Skip(_) => None,
        }
    }
}

/// A depth-first oracle: replays the recorded answers, then answers the smallest value of each
/// new choice and records it; [`Dfs::advance`] moves to the next run.
///
/// The initial values of locals (drawn when a frame is entered) are not enumerated: the
/// generator initialises every local before it can be read, so they are `fill` (the test
/// explores twice, with two fills, and requires the same answer).
struct Dfs {
    /// (answer, largest answer) of each choice of the current run.
    trail: Vec<(i128, i128)>,
    pos: usize,
    /// The next draws are real nondeterminism (not a frame's uninitialised locals).
    real: bool,
    fill: i128,
}

impl Oracle for Dfs {
    fn value(&mut self, lo: i128, hi: i128) -> i128 {
        if !self.real {
            return self.fill.clamp(lo, hi);
        }
        let v = if let Some(&(v, _)) = self.trail.get(self.pos) {
            v
        } else {
            self.trail.push((lo, hi));
            lo
        };
        self.pos += 1;
        v
    }

    fn choose(&mut self, n: usize) -> usize {
        let real = std::mem::replace(&mut self.real, true);
        let v = self.value(0, n as i128 - 1);
        self.real = real;
        usize::try_from(v).unwrap_or(0)
    }
}

impl Dfs {
    /// The next run's prefix: the last choice not at its largest answer, incremented. False
    /// once every run has been made.
    fn advance(&mut self) -> bool {
        self.trail.truncate(self.pos);
        while let Some(last) = self.trail.last_mut() {
            if last.0 < last.1 {
                last.0 += 1;
                return true;
            }
            self.trail.pop();
        }
        false
    }
}

/// Per function and node: a call of a defined function leaves it (its draws are the callee's
/// uninitialised locals).
fn call_nodes(prog: &Program) -> Vec<Vec<bool>> {
    prog.functions
        .iter()
        .map(|f| {
            let mut calls = vec![false; f.nodes as usize];
            for e in &f.edges {
                if matches!(
                    e.kind,
                    EdgeKind::Call {
                        callee: Callee::Defined(_),
                        ..
                    }
                ) {
                    calls[e.from.0 as usize] = true;
                }
            }
            calls
        })
        .collect()
}

/// One run along the oracle's answers.
fn run_once(
    prog: &Program,
    calls: &[Vec<bool>],
    dfs: &mut Dfs,
    steps: &mut usize,
) -> Result<End, Fault> {
    dfs.pos = 0;
    dfs.real = false;
    let mut it = Interp::new(prog, dfs)?;
    for _ in 0..MAX_RUN_STEPS {
        *steps += 1;
        dfs.real = match it.location() {
            None => true,
            Some((f, n)) => it.at_exit() || !calls[f.0 as usize][n.0 as usize],
        };
        if let Event::End(end) = it.step(dfs)? {
            return Ok(end);
        }
    }
    panic!("a run longer than {MAX_RUN_STEPS} steps: the generator's loops should be bounded");
}

/// Every execution of `prog`, depth first, with the locals' initial values `fill`.
fn explore_with(prog: &Program, fill: i128) -> Truth {
    let calls = call_nodes(prog);
    let mut dfs = Dfs {
        trail: Vec::new(),
        pos: 0,
        real: false,
        fill,
    };
    let (mut runs, mut steps) = (0, 0);
    let mut fault = None;
    loop {
        runs += 1;
        if runs > MAX_RUNS || steps > MAX_STEPS {
            return Truth::Skip(format!("exploration cap ({runs} runs, {steps} steps)"));
        }
        match run_once(prog, &calls, &mut dfs, &mut steps) {
            Ok(End::Error(_)) => {
                dfs.trail.truncate(dfs.pos);
                return Truth::Reachable(dfs.trail.iter().map(|&(v, _)| v).collect());
            }
            Ok(_) => {}
            Err(f) => fault = Some(f),
        }
        if !dfs.advance() {
            break;
        }
    }
    match fault {
        Some(f) => Truth::Skip(format!("a run faults: {f}")),
        None => Truth::Unreachable,
    }
}

/// The ground truth of `prog`: explored twice, with two initial values of the locals, which
/// must agree (else the generator let a program read an uninitialised local).
fn explore(prog: &Program, text: &str) -> Truth {
    let t = explore_with(prog, 0);
    if let Some(r) = t.reachable() {
        let u = explore_with(prog, 0x5a);
        assert_eq!(
            u.reachable(),
            Some(r),
            "generator bug: the ground truth depends on uninitialised locals:\n{text}"
        );
    }
    t
}

// ---------------------------------------------------------------------------------------------
// Programs

/// The generator's seed of candidate `attempt` of program `n`.
fn seed(n: usize, attempt: u64) -> u64 {
    let mut r = bp_testkit::prng::SplitMix64::new((n as u64) << 8 | attempt);
    r.next_u64()
}

/// A program with its ground truth.
struct Case {
    n: usize,
    seed: u64,
    text: String,
    path: PathBuf,
    truth: Truth,
}

/// Writes, lowers and explores candidate `attempt` of program `n`.
fn candidate(dir: &Path, n: usize, attempt: u64) -> Case {
    let seed = seed(n, attempt);
    let text = generator::program(seed);
    let path = dir.join(format!("p{n}-{attempt}.c"));
    std::fs::write(&path, &text).expect("write the program");
    let prog = match cir::load_file(&path, &cir::LowerOptions::default()) {
        Ok(p) => p,
        Err(e) => panic!("generator bug: seed {seed:#x} does not lower: {e}\n{text}"),
    };
    assert!(
        prog.warnings.is_empty(),
        "generator bug: seed {seed:#x} lowers with warnings {:?}\n{text}",
        prog.warnings
    );
    let truth = explore(&prog, &text);
    Case {
        n,
        seed,
        text,
        path,
        truth,
    }
}

/// Program `n`: candidates until one has the wanted ground truth (reachable for even `n`).
/// Returns it (if any candidate could be explored) and the number of skipped candidates.
fn program(dir: &Path, n: usize) -> (Option<Case>, usize) {
    let want = n.is_multiple_of(2);
    let mut skipped = 0;
    let mut chosen: Option<Case> = None;
    for attempt in 0..ATTEMPTS {
        let c = candidate(dir, n, attempt);
        match c.truth.reachable() {
            None => {
                skipped += 1;
                let _ = std::fs::remove_file(&c.path);
            }
            Some(r) => {
                if let Some(old) = chosen.take() {
                    let _ = std::fs::remove_file(&old.path);
                }
                chosen = Some(c);
                if r == want {
                    break;
                }
            }
        }
    }
    (chosen, skipped)
}

// ---------------------------------------------------------------------------------------------
// The check

/// Per cube length: verdict counts.
#[derive(Default)]
struct Counts {
    true_: usize,
    false_: usize,
    unknown: BTreeMap<String, usize>,
    contradictions: usize,
    errors: usize,
    seconds: f64,
}

#[derive(Default)]
struct Stats {
    candidates: usize,
    skipped: usize,
    programs: usize,
    reachable: usize,
    unreachable: usize,
    per_cube: [Counts; 3],
    /// Runs and Horn refiner calls per refinement mode ([`REFINES`]).
    per_refine: [(usize, usize); 3],
    failures: Vec<String>,
    slowest: Vec<(f64, usize, String)>,
}

fn cube_name(c: Option<usize>) -> String {
    c.map_or("inf".into(), |k| k.to_string())
}

fn env_usize(name: &str) -> Option<usize> {
    let v = std::env::var(name).ok()?;
    Some(
        v.trim()
            .parse()
            .unwrap_or_else(|_| panic!("{name}={v}: not a number")),
    )
}

/// What one `slam_run::run` answered.
enum Outcome {
    True(usize),
    False(usize),
    Unknown(String),
    /// An internal error of the loop, a panic, or a child that could not be run.
    Error(String),
}

/// Prefix of the line a child prints its outcome on.
const CHILD_LINE: &str = "slam-fuzz-outcome: ";
/// Prefix of the line a child prints its Horn refiner calls on.
const HORN_LINE: &str = "slam-fuzz-horn-calls: ";

/// Runs `slam_run::run` on `path` with `cube_len` in a child process (this test binary,
/// running only [`fuzz_child`]), killed `timeout` plus a grace second after it starts: the
/// loop checks its deadline only between stages, and one abstraction can take minutes.
fn run_child(
    path: &Path,
    cube_len: Option<usize>,
    mode: &str,
    refine: &str,
    timeout: Duration,
) -> Outcome {
    use std::io::Read;
    use std::process::{Command, Stdio};
    let exe = std::env::current_exe().expect("the test binary");
    let mut child = match Command::new(exe)
        .args(["--exact", "fuzz_child", "--nocapture", "--test-threads=1"])
        .env("SLAM_FUZZ_CHILD_FILE", path)
        .env("SLAM_FUZZ_CHILD_CUBE", cube_name(cube_len))
        .env("SLAM_FUZZ_CHILD_MODE", mode)
        .env("SLAM_FUZZ_CHILD_REFINE", refine)
        .env("SLAM_FUZZ_CHILD_TIMEOUT", timeout.as_secs_f64().to_string())
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
    {
        Ok(c) => c,
        Err(e) => return Outcome::Error(format!("cannot start the child: {e}")),
    };
    let kill_at = Instant::now() + timeout + Duration::from_secs(1);
    let status = loop {
        match child.try_wait() {
            Ok(Some(st)) => break st,
            Ok(None) if Instant::now() < kill_at => std::thread::sleep(Duration::from_millis(5)),
            Ok(None) => {
                let _ = child.kill();
                let _ = child.wait();
                return Outcome::Unknown("timeout (killed)".into());
            }
            Err(e) => return Outcome::Error(format!("waiting for the child: {e}")),
        }
    };
    let (mut out, mut err) = (String::new(), String::new());
    if let Some(mut o) = child.stdout.take() {
        let _ = o.read_to_string(&mut out);
    }
    if let Some(mut e) = child.stderr.take() {
        let _ = e.read_to_string(&mut err);
    }
    // libtest may have written `test fuzz_child ... ` on the same line.
    let line = out
        .lines()
        .find_map(|l| l.find(CHILD_LINE).map(|i| &l[i + CHILD_LINE.len()..]));
    let horn: usize = out
        .lines()
        .find_map(|l| l.find(HORN_LINE).map(|i| &l[i + HORN_LINE.len()..]))
        .and_then(|n| n.trim().parse().ok())
        .unwrap_or(0);
    match line {
        Some("TRUE") if status.success() => Outcome::True(horn),
        Some("FALSE") if status.success() => Outcome::False(horn),
        Some(l) if status.success() && l.starts_with("UNKNOWN ") => {
            Outcome::Unknown(l["UNKNOWN ".len()..].to_string())
        }
        Some(l) if status.success() && l.starts_with("ERROR ") => {
            Outcome::Error(l["ERROR ".len()..].to_string())
        }
        _ => Outcome::Error(format!(
            "the child ended with {status} without an outcome:\n{out}\n{err}"
        )),
    }
}

/// The child's side of [`run_child`]: does nothing unless `SLAM_FUZZ_CHILD_FILE` is set (in
/// an ordinary test run it passes at once).
#[test]
fn fuzz_child() {
    let Some(file) = std::env::var_os("SLAM_FUZZ_CHILD_FILE") else {
        return;
    };
    let path = PathBuf::from(file);
    let cube_len = match std::env::var("SLAM_FUZZ_CHILD_CUBE").as_deref() {
        Ok("inf") => None,
        Ok(k) => Some(k.parse().expect("a cube length")),
        Err(_) => panic!("SLAM_FUZZ_CHILD_CUBE is not set"),
    };
    let timeout: f64 = std::env::var("SLAM_FUZZ_CHILD_TIMEOUT")
        .ok()
        .and_then(|t| t.parse().ok())
        .expect("SLAM_FUZZ_CHILD_TIMEOUT");
    let constrain: slam_run::ConstrainMode = std::env::var("SLAM_FUZZ_CHILD_MODE")
        .expect("SLAM_FUZZ_CHILD_MODE")
        .parse()
        .expect("a constrain mode");
    let precision: slam_run::Precision = std::env::var("SLAM_FUZZ_PRECISION")
        .map_or(Ok(slam_run::Precision::default()), |p| p.parse())
        .expect("SLAM_FUZZ_PRECISION: int, bv or auto");
    let refine: newton::RefineMode = std::env::var("SLAM_FUZZ_CHILD_REFINE")
        .expect("SLAM_FUZZ_CHILD_REFINE")
        .parse()
        .expect("a refinement mode");
    let bytes = std::fs::read(&path).expect("read the program");
    let prog = cir::load_file(&path, &cir::LowerOptions::default()).expect("lowers");
    let cfg = slam_run::Config {
        c2bp: c2bp::Options {
            cube_len,
            ..c2bp::Options::default()
        },
        max_iterations: MAX_ITERATIONS,
        deadline: Some(Instant::now() + Duration::from_secs_f64(timeout)),
        constrain,
        precision,
        refine,
        ..slam_run::Config::default()
    };
    // As the `slam-run` command does: a large stack for the loop.
    let line = std::thread::Builder::new()
        .stack_size(64 * 1024 * 1024)
        .spawn(move || {
            let res = slam_run::run(
                &prog,
                &path,
                &bytes,
                PredicateSet::default(),
                &cfg,
                &mut |_| {},
            );
            match res {
                Ok(r) => {
                    let horn: usize = r.iterations.iter().map(|i| i.horn_runs().count()).sum();
                    println!("{HORN_LINE}{horn}");
                    match r.verdict {
                        Verdict::True => "TRUE".to_string(),
                        Verdict::False(_) => "FALSE".to_string(),
                        Verdict::Unknown(why) => format!("UNKNOWN {why}"),
                    }
                }
                Err(e) => format!("ERROR {e}"),
            }
        })
        .expect("spawn the loop")
        .join()
        .expect("the loop does not panic");
    println!("{CHILD_LINE}{line}");
}

/// Runs `slam-run` on the case with each cube length and records the outcome.
fn check(case: &Case, timeout: Duration, stats: &Mutex<Stats>, verbose: bool) {
    let reachable = case.truth.reachable().expect("an explored case");
    let mut line = format!(
        "program {} (seed {:#x}): {}",
        case.n,
        case.seed,
        if reachable {
            "reachable"
        } else {
            "unreachable"
        }
    );
    for (ci, &cube_len) in CUBES.iter().enumerate() {
        let t = Instant::now();
        // Every constrain mode on every cube length, in turn over the programs.
        let mode =
            fixed("SLAM_FUZZ_CONSTRAIN", &MODES).unwrap_or(MODES[(case.n + ci) % MODES.len()]);
        // And every refinement mode, shifted so that it meets every constrain mode.
        let refine = fixed("SLAM_FUZZ_REFINE", &REFINES)
            .unwrap_or(REFINES[(case.n / MODES.len() + ci) % REFINES.len()]);
        let ri = REFINES.iter().position(|r| *r == refine).unwrap_or(0);
        let outcome = run_child(&case.path, cube_len, mode, refine, timeout);
        let secs = t.elapsed().as_secs_f64();
        let mut st = stats.lock().unwrap_or_else(|e| e.into_inner());
        let counts = &mut st.per_cube[ci];
        counts.seconds += secs;
        let cube = cube_name(cube_len);
        let (word, contradiction) = match &outcome {
            Outcome::True(horn) => {
                counts.true_ += 1;
                st.per_refine[ri].0 += 1;
                st.per_refine[ri].1 += horn;
                ("TRUE".to_string(), reachable)
            }
            Outcome::False(horn) => {
                counts.false_ += 1;
                st.per_refine[ri].0 += 1;
                st.per_refine[ri].1 += horn;
                ("FALSE".to_string(), !reachable)
            }
            Outcome::Unknown(why) => {
                // Newton's reasons by their first clause (`newton: the concrete replay …`).
                let parts = if why.starts_with("newton:") { 2 } else { 1 };
                let key = why.split(':').take(parts).collect::<Vec<_>>().join(":");
                *counts.unknown.entry(key).or_default() += 1;
                (format!("UNKNOWN {why}"), false)
            }
            Outcome::Error(e) => {
                counts.errors += 1;
                let msg = format!(
                    "INTERNAL ERROR of slam-run, cube length {cube}, --constrain {mode}, --refine {refine}, program {} (seed {:#x}): \
                     {e}\n{}",
                    case.n, case.seed, case.text
                );
                eprintln!("{msg}");
                st.failures.push(msg);
                (format!("ERROR ({e})"), false)
            }
        };
        if contradiction {
            st.per_cube[ci].contradictions += 1;
            let witness = match &case.truth {
                Truth::Reachable(w) => {
                    format!("a run reaches the error (the oracle's answers along it: {w:?})")
                }
                _ => "no run reaches the error (every execution explored)".into(),
            };
            let msg = format!(
                "CONTRADICTION: cube length {cube}, --constrain {mode}, --refine {refine}: slam-run says {word}, but {witness}\n\
                 program {n} (seed {:#x}; again: SLAM_FUZZ_START={n} SLAM_FUZZ_SEEDS=1):\n{}",
                case.seed,
                case.text,
                n = case.n,
            );
            eprintln!("{msg}");
            st.failures.push(msg);
        }
        st.slowest.push((secs, case.n, cube.clone()));
        st.slowest
            .sort_by(|a, b| b.0.partial_cmp(&a.0).unwrap_or(std::cmp::Ordering::Equal));
        st.slowest.truncate(5);
        line.push_str(&format!("  [{cube}] {word} {secs:.2}s"));
    }
    if verbose {
        eprintln!("{line}");
    }
}

#[test]
fn slam_run_never_contradicts_exhaustive_execution() {
    let t0 = Instant::now();
    let dir = std::env::temp_dir().join(format!("slam-run-fuzz-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    if let Some(n) = env_usize("SLAM_FUZZ_PRINT") {
        let (case, skipped) = program(&dir, n);
        match case {
            Some(c) => println!("// seed {:#x}: {:?}\n{}", c.seed, c.truth, c.text),
            None => println!("program {n}: every candidate skipped ({skipped})"),
        }
        let _ = std::fs::remove_dir_all(&dir);
        return;
    }
    let count = env_usize("SLAM_FUZZ_SEEDS").unwrap_or(DEFAULT_PROGRAMS);
    let start = env_usize("SLAM_FUZZ_START").unwrap_or(0);
    let threads = env_usize("SLAM_FUZZ_THREADS")
        .unwrap_or_else(|| {
            std::thread::available_parallelism()
                .map(|n| n.get())
                .unwrap_or(1)
                .min(4)
        })
        .max(1);
    let timeout = Duration::from_secs_f64(
        std::env::var("SLAM_FUZZ_TIMEOUT")
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(5.0),
    );
    let verbose = std::env::var_os("SLAM_FUZZ_VERBOSE").is_some();
    let next = AtomicUsize::new(start);
    let stats = Mutex::new(Stats::default());
    let truth_seconds = Mutex::new(0.0f64);
    std::thread::scope(|s| {
        let workers: Vec<_> = (0..threads)
            .map(|w| {
                std::thread::Builder::new()
                    .name(format!("fuzz-{w}"))
                    .stack_size(64 * 1024 * 1024)
                    .spawn_scoped(s, || {
                        loop {
                            let n = next.fetch_add(1, Ordering::Relaxed);
                            if n >= start + count {
                                break;
                            }
                            let t = Instant::now();
                            let (case, skipped) = program(&dir, n);
                            *truth_seconds.lock().unwrap_or_else(|e| e.into_inner()) +=
                                t.elapsed().as_secs_f64();
                            {
                                let mut st = stats.lock().unwrap_or_else(|e| e.into_inner());
                                st.candidates += skipped + usize::from(case.is_some());
                                st.skipped += skipped;
                                if let Some(c) = &case {
                                    st.programs += 1;
                                    if c.truth.reachable() == Some(true) {
                                        st.reachable += 1;
                                    } else {
                                        st.unreachable += 1;
                                    }
                                }
                            }
                            if let Some(c) = case {
                                check(&c, timeout, &stats, verbose);
                                let _ = std::fs::remove_file(&c.path);
                            }
                        }
                    })
                    .expect("spawn a worker")
            })
            .collect();
        for w in workers {
            if let Err(e) = w.join() {
                std::panic::resume_unwind(e);
            }
        }
    });
    let _ = std::fs::remove_dir_all(&dir);
    let st = stats.into_inner().unwrap_or_else(|e| e.into_inner());
    let truth_seconds = truth_seconds
        .into_inner()
        .unwrap_or_else(|e| e.into_inner());
    println!(
        "fuzz summary: programs {} (indices {start}..{}), candidates generated {}, skipped {}, \
         ground truth reachable {} / unreachable {}; {:.1}s ({:.1}s ground truth, \
         {threads} threads)",
        st.programs,
        start + count,
        st.candidates,
        st.skipped,
        st.reachable,
        st.unreachable,
        t0.elapsed().as_secs_f64(),
        truth_seconds,
    );
    for (ci, c) in st.per_cube.iter().enumerate() {
        let unknown: usize = c.unknown.values().sum();
        let reasons: Vec<String> = c.unknown.iter().map(|(k, v)| format!("{k}: {v}")).collect();
        println!(
            "  cube length {:>3}: TRUE {} FALSE {} UNKNOWN {} ({}) contradictions {} \
             internal errors {}  [{:.1}s]",
            cube_name(CUBES[ci]),
            c.true_,
            c.false_,
            unknown,
            reasons.join(", "),
            c.contradictions,
            c.errors,
            c.seconds,
        );
    }
    let slowest: Vec<String> = st
        .slowest
        .iter()
        .map(|(s, n, c)| format!("program {n} cube {c}: {s:.2}s"))
        .collect();
    println!("  slowest runs: {}", slowest.join("; "));
    for (ri, (runs, horn)) in st.per_refine.iter().enumerate() {
        println!(
            "  --refine {}: {runs} decided runs, {horn} Horn refiner calls",
            REFINES[ri]
        );
    }
    assert!(
        st.failures.is_empty(),
        "{} failure(s):\n\n{}",
        st.failures.len(),
        st.failures.join("\n\n")
    );
    // The Horn refiner is exercised: its soundness is what the runs in `horn` and `auto` test.
    for ri in [1, 2] {
        let (runs, horn) = st.per_refine[ri];
        assert!(
            runs == 0 || horn > 0,
            "--refine {}: {runs} decided runs and no Horn refiner call",
            REFINES[ri]
        );
    }
}
