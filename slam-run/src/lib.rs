//! `slam-run`: the counterexample-guided refinement loop (issue 4 §2; SLAM as described in the
//! Constrain paper, `../shared/seeds/002` §2, and `slam-algorithms.md` §1).
//!
//! ```text
//! predicates := initial set
//! loop { c2bp → bebop → safe: TRUE
//!        newton on bebop's trace → feasible (replayed): FALSE with the counterexample
//!        infeasible → new predicates; none new, or the same C path again: NDF }
//! ```
//! NDF ("no difference found": refinement no longer changes the abstraction) ends the run with
//! `UNKNOWN (no difference found)` until the `constrain` issue resolves it.
//!
//! Soundness rests on the tools, not on this loop: TRUE only when bebop proves the abstraction
//! (sound by c2bp's construction) safe; FALSE only with a path replayed on the concrete
//! interpreter; anything else is UNKNOWN with its reason.
//!
//! The C program is parsed and lowered once, its points-to analysis computed once; each
//! iteration's files can be kept ([`Config::keep`]), each re-runnable by hand with the
//! standalone tools to the same result (the options are recorded in the `.bp` header).

pub mod task;

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::time::Instant;

use c2bp::trace::CStep;
use cir::Program;
use cir::ir::EdgeId;
use cir::pointsto::PointsTo;
use cir::pred::PredicateSet;
use serde::Serialize;

/// How the loop runs.
#[derive(Debug, Clone)]
pub struct Config {
    /// The abstraction's options (cube length, semantics, …).
    pub c2bp: c2bp::Options,
    /// Iterations before giving up with `UNKNOWN (iterations)`.
    pub max_iterations: usize,
    /// Write every iteration's files here.
    pub keep: Option<PathBuf>,
    /// Stop with `UNKNOWN (timeout)` once this instant has passed (checked between stages; the
    /// `slam-run` command also enforces it from outside).
    pub deadline: Option<Instant>,
    /// The error conventions (recorded in the `.bp` header).
    pub settings: c2bp::HeaderSettings,
}

impl Default for Config {
    fn default() -> Config {
        Config {
            c2bp: c2bp::Options::default(),
            max_iterations: 200,
            keep: None,
            deadline: None,
            settings: c2bp::HeaderSettings::default(),
        }
    }
}

/// The verdict, in SV-COMP's words.
#[derive(Debug, Clone)]
pub enum Verdict {
    /// The error is unreachable.
    True,
    /// The error is reachable: a replayed counterexample.
    False(Box<newton::Counterexample>),
    /// Undecided, with the reason (`timeout`, `iterations`, `no difference found`, …).
    Unknown(String),
}

impl Verdict {
    /// `TRUE`, `FALSE(unreach-call)`, `UNKNOWN (reason)`.
    pub fn line(&self) -> String {
        match self {
            Verdict::True => "TRUE".into(),
            Verdict::False(_) => "FALSE(unreach-call)".into(),
            Verdict::Unknown(r) => format!("UNKNOWN ({r})"),
        }
    }

    /// The exit code ([`bp_grammar::exit`]): 0 TRUE, 10 FALSE, 5 UNKNOWN.
    pub fn exit_code(&self) -> i32 {
        match self {
            Verdict::True => bp_grammar::exit::SAFE,
            Verdict::False(_) => bp_grammar::exit::UNSAFE,
            Verdict::Unknown(_) => bp_grammar::exit::UNKNOWN,
        }
    }
}

/// What one iteration did and cost.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Iteration {
    /// From 0.
    pub index: usize,
    /// Predicates abstracted with.
    pub predicates: usize,
    /// Seconds in c2bp, bebop, newton.
    pub c2bp_seconds: f64,
    /// Seconds in bebop.
    pub bebop_seconds: f64,
    /// Seconds in newton.
    pub newton_seconds: f64,
    /// c2bp's prover queries.
    pub prover_queries: u64,
    /// Length of the abstract counterexample in C edges (0: safe).
    pub path_len: usize,
    /// Newton's answer (`safe` when bebop proved the abstraction).
    pub outcome: String,
    /// Predicates newton added.
    pub new_predicates: usize,
}

/// The result of a run.
#[derive(Debug, Clone)]
pub struct RunResult {
    /// The verdict.
    pub verdict: Verdict,
    /// Every iteration.
    pub iterations: Vec<Iteration>,
    /// The predicates at the end.
    pub predicates: PredicateSet,
    /// Wall-clock seconds (including parsing).
    pub seconds: f64,
}

/// Statistics as JSON (`--stats-json`).
#[derive(Debug, Serialize)]
pub struct StatsJson<'a> {
    /// `slam-run-stats/1`.
    pub format: &'static str,
    /// The C file.
    pub file: String,
    /// The verdict line.
    pub verdict: String,
    /// Iterations.
    pub iterations: &'a [Iteration],
    /// Final predicate count.
    pub predicates: usize,
    /// Final predicates (predicate-file text).
    pub predicates_file: String,
    /// Seconds per stage and in all.
    pub c2bp_seconds: f64,
    /// Seconds in bebop.
    pub bebop_seconds: f64,
    /// Seconds in newton.
    pub newton_seconds: f64,
    /// Wall-clock seconds.
    pub seconds: f64,
    /// The counterexample of a FALSE verdict.
    pub counterexample: Option<&'a newton::Counterexample>,
}

impl RunResult {
    /// Seconds spent in one stage over all iterations.
    fn stage_seconds(&self, stage: fn(&Iteration) -> f64) -> f64 {
        self.iterations.iter().map(stage).sum()
    }

    /// The `--stats-json` document.
    pub fn stats_json(&self, file: &str) -> String {
        let s = StatsJson {
            format: "slam-run-stats/1",
            file: file.to_string(),
            verdict: self.verdict.line(),
            iterations: &self.iterations,
            predicates: self.predicates.len(),
            predicates_file: cir::pred::predicate_file_text(&self.predicates),
            c2bp_seconds: self.stage_seconds(|i| i.c2bp_seconds),
            bebop_seconds: self.stage_seconds(|i| i.bebop_seconds),
            newton_seconds: self.stage_seconds(|i| i.newton_seconds),
            seconds: self.seconds,
            counterexample: match &self.verdict {
                Verdict::False(c) => Some(c),
                _ => None,
            },
        };
        serde_json::to_string_pretty(&s).unwrap_or_default()
    }

    /// The summary printed after the verdict.
    pub fn summary(&self) -> String {
        format!(
            "summary: iterations={} predicates={} seconds={:.2} (c2bp {:.2}, bebop {:.2}, newton {:.2})",
            self.iterations.len(),
            self.predicates.len(),
            self.seconds,
            self.stage_seconds(|i| i.c2bp_seconds),
            self.stage_seconds(|i| i.bebop_seconds),
            self.stage_seconds(|i| i.newton_seconds),
        )
    }
}

/// Progress reports (the command prints them on stderr for long runs).
#[derive(Debug, Clone, Copy)]
pub struct Progress<'a> {
    /// Iteration.
    pub iteration: usize,
    /// Predicates.
    pub predicates: usize,
    /// The stage starting (`c2bp`, `bebop`, `newton`).
    pub stage: &'a str,
}

/// Errors that end a run before a verdict: a bug in a tool, or a kept file that cannot be
/// written.
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    /// Writing a kept file failed.
    #[error("{0}: {1}")]
    Io(PathBuf, std::io::Error),
    /// A tool failed (a bug).
    #[error("internal error: {0}")]
    Internal(String),
}

/// Writes a file atomically (temporary + rename), so an interrupted run leaves every kept file
/// either complete or absent.
fn write_atomic(path: &Path, text: &str) -> Result<(), RunError> {
    let tmp = path.with_extension("tmp~");
    std::fs::write(&tmp, text).map_err(|e| RunError::Io(tmp.clone(), e))?;
    std::fs::rename(&tmp, path).map_err(|e| RunError::Io(path.to_path_buf(), e))
}

/// The key of an abstract path for recurrence: its C edges (an assume edge fixes the branch).
fn path_key(path: &[CStep]) -> Vec<(EdgeId, u32)> {
    path.iter().map(|s| (s.edge, s.depth)).collect()
}

/// Runs the loop on a lowered program. `c_file` and `c_bytes` are recorded in each `.bp`
/// header; `preds` is the initial predicate set.
pub fn run(
    prog: &Program,
    c_file: &Path,
    c_bytes: &[u8],
    mut preds: PredicateSet,
    cfg: &Config,
    progress: &mut dyn FnMut(Progress<'_>),
) -> Result<RunResult, RunError> {
    let t0 = Instant::now();
    let pts = PointsTo::analyze(prog);
    let nopts = newton::Options {
        sem: cfg.c2bp.sem,
        rlimit: cfg.c2bp.rlimit,
    };
    let mut iterations: Vec<Iteration> = Vec::new();
    let mut seen: HashSet<Vec<(EdgeId, u32)>> = HashSet::new();
    if let Some(k) = &cfg.keep {
        std::fs::create_dir_all(k).map_err(|e| RunError::Io(k.clone(), e))?;
    }
    let errors = cfg.settings.error_entry();
    let base_sources = c2bp::Sources {
        c_path: c_file.display().to_string(),
        c_sha256: c2bp::sha256_hex(c_bytes),
        preds_path: None,
        extra: if errors.is_empty() {
            Vec::new()
        } else {
            vec![("error".to_string(), errors)]
        },
    };
    let mut commands = String::new();
    let mut cache = c2bp::Cache::default();
    let timed_out = || cfg.deadline.is_some_and(|d| Instant::now() >= d);
    let verdict = 'run: {
        for i in 0..cfg.max_iterations {
            let mut it = Iteration {
                index: i,
                predicates: preds.len(),
                ..Iteration::default()
            };
            if timed_out() {
                break 'run Verdict::Unknown("timeout".into());
            }
            progress(Progress {
                iteration: i,
                predicates: preds.len(),
                stage: "c2bp",
            });
            let name = |ext: &str| format!("iter{i:03}.{ext}");
            let preds_file = cfg.keep.as_ref().map(|k| k.join(name("preds")));
            if let Some(p) = &preds_file {
                write_atomic(p, &cir::pred::predicate_file_text(&preds))?;
            }
            let sources = c2bp::Sources {
                preds_path: preds_file.as_ref().map(|p| p.display().to_string()),
                ..base_sources.clone()
            };
            let t = Instant::now();
            let out = c2bp::abstract_program_cached(prog, &preds, &cfg.c2bp, &sources, &mut cache)
                .map_err(|e| RunError::Internal(e.to_string()))?;
            it.c2bp_seconds = t.elapsed().as_secs_f64();
            it.prover_queries = out.prover.queries;
            let bp_file = cfg.keep.as_ref().map(|k| k.join(name("bp")));
            if let Some(p) = &bp_file {
                write_atomic(p, &out.text)?;
            }
            let bp = bp_grammar::parse_and_check(&out.text, &bp_grammar::ParseOptions::default())
                .map_err(|_| RunError::Internal("c2bp's output does not re-parse".into()))?;
            if timed_out() {
                iterations.push(it);
                break 'run Verdict::Unknown("timeout".into());
            }
            progress(Progress {
                iteration: i,
                predicates: preds.len(),
                stage: "bebop",
            });
            let t = Instant::now();
            let bopts = bebop::Options {
                program_name: name("bp"),
                ..bebop::Options::default()
            };
            let outcome =
                bebop::verify(&bp, &bopts).map_err(|e| RunError::Internal(e.to_string()))?;
            it.bebop_seconds = t.elapsed().as_secs_f64();
            let Some(trace) = outcome.verdict.trace() else {
                it.outcome = "safe".into();
                iterations.push(it);
                break 'run Verdict::True;
            };
            let trace_file = cfg.keep.as_ref().map(|k| k.join(name("trace.json")));
            if let Some(p) = &trace_file {
                write_atomic(p, &trace.to_json())?;
            }
            let path = c2bp::trace::c_path(prog, &bp, trace)
                .map_err(|e| RunError::Internal(format!("bebop's trace: {e}")))?;
            it.path_len = path.len();
            if let (Some(b), Some(t)) = (&bp_file, &trace_file) {
                let n = cfg.keep.as_ref().map(|k| k.join(name("newton.json")));
                commands.push_str(&format!(
                    "# iteration {i}\nc2bp {} --preds {} {} -o {}\nbebop {} --trace-json {}\nnewton {} {} {}{}\n",
                    c_file.display(),
                    preds_file.as_ref().map(|p| p.display().to_string()).unwrap_or_default(),
                    c2bp_flags(cfg),
                    b.display(),
                    b.display(),
                    t.display(),
                    c_file.display(),
                    b.display(),
                    t.display(),
                    n.map(|n| format!(" --json {}", n.display())).unwrap_or_default()
                        + &rlimit_flag(cfg),
                ));
                if let Some(k) = &cfg.keep {
                    write_atomic(&k.join("commands.txt"), &commands)?;
                }
            }
            if timed_out() {
                iterations.push(it);
                break 'run Verdict::Unknown("timeout".into());
            }
            progress(Progress {
                iteration: i,
                predicates: preds.len(),
                stage: "newton",
            });
            let t = Instant::now();
            let res = newton::analyze(prog, &pts, &preds, &path, &nopts);
            it.newton_seconds = t.elapsed().as_secs_f64();
            if let Some(k) = &cfg.keep {
                write_atomic(&k.join(name("newton.json")), &newton::outcome_json(&res))?;
            }
            match res {
                newton::Outcome::Feasible(cex) => {
                    it.outcome = "feasible".into();
                    iterations.push(it);
                    break 'run Verdict::False(cex);
                }
                newton::Outcome::Unknown { reason } => {
                    it.outcome = "unknown".into();
                    iterations.push(it);
                    break 'run Verdict::Unknown(format!("newton: {reason}"));
                }
                newton::Outcome::Infeasible(r) => {
                    it.outcome = "infeasible".into();
                    it.new_predicates = r.preds.len();
                    let recurs = !seen.insert(path_key(&path));
                    iterations.push(it);
                    if r.preds.is_empty() || recurs {
                        tracing::info!(
                            iteration = i,
                            recurs,
                            "no difference found: the refinement does not change the abstraction"
                        );
                        break 'run Verdict::Unknown("no difference found".into());
                    }
                    cir::pred::merge_into(&mut preds, r.preds);
                }
            }
        }
        Verdict::Unknown("iterations".into())
    };
    Ok(RunResult {
        verdict,
        iterations,
        predicates: preds,
        seconds: t0.elapsed().as_secs_f64(),
    })
}

/// The c2bp flags that reproduce `cfg`'s abstraction (for the kept `commands.txt`).
fn c2bp_flags(cfg: &Config) -> String {
    let o = &cfg.c2bp;
    let mut s = format!(
        "--cube-len {} --enforce-len {} --data-model {}",
        o.cube_len.map_or("inf".to_string(), |k| k.to_string()),
        o.enforce_len,
        o.sem.data_model
    );
    if o.sem.bitvector {
        s.push_str(" --bitvector");
    }
    if o.havoc_all {
        s.push_str(" --havoc-all");
    }
    s.push_str(&rlimit_flag(cfg));
    if o.max_queries != c2bp::Options::default().max_queries {
        s.push_str(&format!(" --max-queries {}", o.max_queries));
    }
    for f in &cfg.settings.error_fns {
        s.push_str(&format!(" --error-fn {f}"));
    }
    for l in &cfg.settings.error_labels {
        s.push_str(&format!(" --error-label {l}"));
    }
    if cfg.settings.assert_is_error {
        s.push_str(" --assert");
    }
    s
}

/// ` --rlimit N` when not the default (c2bp and newton take the same flag).
fn rlimit_flag(cfg: &Config) -> String {
    if cfg.c2bp.rlimit == cir::smt::DEFAULT_RLIMIT {
        String::new()
    } else {
        format!(" --rlimit {}", cfg.c2bp.rlimit)
    }
}
