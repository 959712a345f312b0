//! `slam-run`: the counterexample-guided refinement loop (issue 4 §2; SLAM as described in the
//! Constrain paper, `../shared/seeds/002` §2, and `slam-algorithms.md` §1).
//!
//! ```text
//! predicates := initial set (--preds, and the conditions that guard the error)
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

pub mod witness;

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::time::Instant;

use bp_c::trace::CStep;
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
    pub settings: bp_c::header::HeaderSettings,
    /// What happens at NDF (the Constrain paper, §3.3 and §4).
    pub constrain: ConstrainMode,
    /// Start from the conditions that guard the error as well
    /// ([`cir::pred::guard_predicates`]).
    pub guard_preds: bool,
}

impl Default for Config {
    fn default() -> Config {
        Config {
            c2bp: c2bp::Options::default(),
            max_iterations: 200,
            keep: None,
            deadline: None,
            settings: bp_c::header::HeaderSettings::default(),
            constrain: ConstrainMode::Lazy,
            guard_preds: true,
        }
    }
}

impl Config {
    /// The abstraction's options: [`Config::c2bp`], with `--havoc-all` in the eager mode (§4).
    pub fn c2bp_options(&self) -> c2bp::Options {
        c2bp::Options {
            havoc_all: self.c2bp.havoc_all || self.constrain == ConstrainMode::Eager,
            ..self.c2bp.clone()
        }
    }
}

/// What the loop does when refinement stops making a difference (NDF): the Constrain paper's
/// configurations (§3.3, §4).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ConstrainMode {
    /// NDF ends the run: `UNKNOWN (no difference found)`.
    Off,
    /// At NDF, alternate `constrain` (at most 5 constraints per pass) and `bebop`, at most 4
    /// times, before asking `newton` again (§3.3).
    #[default]
    Lazy,
    /// §4's configuration: the abstraction with `--havoc-all`, and at NDF up to 200
    /// constraints per pass and 200 alternations.
    Eager,
}

impl ConstrainMode {
    /// Constraints per pass and alternations before giving up.
    pub fn limits(self) -> (usize, usize) {
        match self {
            ConstrainMode::Off => (0, 0),
            ConstrainMode::Lazy => (5, 4),
            ConstrainMode::Eager => (200, 200),
        }
    }
}

impl std::str::FromStr for ConstrainMode {
    type Err = String;
    fn from_str(s: &str) -> Result<ConstrainMode, String> {
        match s {
            "off" => Ok(ConstrainMode::Off),
            "lazy" => Ok(ConstrainMode::Lazy),
            "eager" => Ok(ConstrainMode::Eager),
            _ => Err(format!("`{s}`: expected off, lazy or eager")),
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

    /// The exit code ([`cli_common::exit`]): 0 TRUE, 10 FALSE, 5 UNKNOWN.
    pub fn exit_code(&self) -> i32 {
        match self {
            Verdict::True => cli_common::exit::SAFE,
            Verdict::False(_) => cli_common::exit::UNSAFE,
            Verdict::Unknown(_) => cli_common::exit::UNKNOWN,
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
    /// Bebop–constrain alternation within the iteration (0: the abstraction c2bp wrote).
    pub alternation: usize,
    /// Whether newton found no difference (NDF) in this round.
    pub ndf: bool,
    /// Whether constrain ran (after this round's newton found no difference).
    pub constrained: bool,
    /// Seconds in constrain.
    pub constrain_seconds: f64,
    /// Constraints constrain found.
    pub constraints: usize,
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
    /// The constraints constrain added (re-applied to every later abstraction).
    pub constraints: Vec<constrain::Constraint>,
    /// Wall-clock seconds (including parsing).
    pub seconds: f64,
    /// On TRUE, the Boolean program bebop proved safe (constraints applied).
    pub abstraction: Option<String>,
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
    /// Seconds in constrain.
    pub constrain_seconds: f64,
    /// Calls of constrain (the Constrain paper's Fig. 5).
    pub constrain_calls: usize,
    /// Constraints generated.
    pub constraints: usize,
    /// Rounds in which newton found no difference (NDF).
    pub ndf: usize,
    /// c2bp's prover queries over all iterations.
    pub prover_queries: u64,
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
            constrain_seconds: self.stage_seconds(|i| i.constrain_seconds),
            constrain_calls: self.constrain_calls(),
            constraints: self.iterations.iter().map(|i| i.constraints).sum(),
            ndf: self.iterations.iter().filter(|i| i.ndf).count(),
            prover_queries: self.iterations.iter().map(|i| i.prover_queries).sum(),
            seconds: self.seconds,
            counterexample: match &self.verdict {
                Verdict::False(c) => Some(c),
                _ => None,
            },
        };
        serde_json::to_string_pretty(&s).unwrap_or_default()
    }

    /// Calls of constrain.
    pub fn constrain_calls(&self) -> usize {
        self.iterations.iter().filter(|i| i.constrained).count()
    }

    /// The summary printed after the verdict.
    pub fn summary(&self) -> String {
        let mut s = format!(
            "summary: iterations={} predicates={} seconds={:.2} (c2bp {:.2}, bebop {:.2}, newton {:.2}",
            self.iterations
                .iter()
                .filter(|i| i.alternation == 0)
                .count(),
            self.predicates.len(),
            self.seconds,
            self.stage_seconds(|i| i.c2bp_seconds),
            self.stage_seconds(|i| i.bebop_seconds),
            self.stage_seconds(|i| i.newton_seconds),
        );
        let calls = self.constrain_calls();
        if calls > 0 {
            s.push_str(&format!(
                ", constrain {:.2}) constrain-calls={calls} constraints={}",
                self.stage_seconds(|i| i.constrain_seconds),
                self.iterations.iter().map(|i| i.constraints).sum::<usize>()
            ));
        } else {
            s.push(')');
        }
        s
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
/// header; `preds` is the initial predicate set (with the error guards added when
/// [`Config::guard_preds`]).
pub fn run(
    prog: &Program,
    c_file: &Path,
    c_bytes: &[u8],
    mut preds: PredicateSet,
    cfg: &Config,
    progress: &mut dyn FnMut(Progress<'_>),
) -> Result<RunResult, RunError> {
    let t0 = Instant::now();
    if cfg.guard_preds {
        cir::pred::merge_into(&mut preds, cir::pred::guard_predicates(prog));
    }
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
    let base_sources = bp_c::header::Sources {
        c_path: c_file.display().to_string(),
        c_sha256: bp_c::header::sha256_hex(c_bytes),
        preds_path: None,
        extra: if errors.is_empty() {
            Vec::new()
        } else {
            vec![("error".to_string(), errors)]
        },
    };
    let mut commands = String::new();
    let mut cache = c2bp::Cache::default();
    let (max_constraints, max_alternations) = cfg.constrain.limits();
    let c2bp_opts = cfg.c2bp_options();
    let copts = constrain::Options {
        sem: cfg.c2bp.sem,
        rlimit: cfg.c2bp.rlimit,
        max_constraints,
    };
    let mut constraints: Vec<constrain::Constraint> = Vec::new();
    let timed_out = || cfg.deadline.is_some_and(|d| Instant::now() >= d);
    let mut proved: Option<String> = None;
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
            let sources = bp_c::header::Sources {
                preds_path: preds_file.as_ref().map(|p| p.display().to_string()),
                ..base_sources.clone()
            };
            let t = Instant::now();
            let out = c2bp::abstract_program_cached(prog, &preds, &c2bp_opts, &sources, &mut cache)
                .map_err(|e| RunError::Internal(e.to_string()))?;
            it.c2bp_seconds = t.elapsed().as_secs_f64();
            it.prover_queries = out.prover.queries;
            // Constraints found at earlier NDFs, re-applied to the regenerated program.
            // c2bp's text is canonical and `out.program` is its parse (same positions).
            let mut text = out.text;
            let mut bp = out.program;
            // With constraints re-applied, the kept `iterNNN.bp` is the patched program and
            // c2bp's own output is kept as `iterNNN.c2bp.bp` (so that re-running the kept c2bp
            // command does not overwrite the program the trace belongs to).
            let mut c2bp_file = None;
            if !constraints.is_empty() && constrain::apply(&mut bp, &constraints) > 0 {
                if let Some(k) = &cfg.keep {
                    let f = k.join(format!("iter{i:03}.c2bp.bp"));
                    write_atomic(&f, &text)?;
                    c2bp_file = Some(f);
                }
                (text, bp) = reprint(&bp)?;
            }
            let mut alternation = 0;
            loop {
                let name = |ext: &str| {
                    if alternation == 0 {
                        format!("iter{i:03}.{ext}")
                    } else {
                        format!("iter{i:03}-a{alternation}.{ext}")
                    }
                };
                let bp_file = cfg.keep.as_ref().map(|k| k.join(name("bp")));
                if let Some(p) = &bp_file {
                    write_atomic(p, &text)?;
                }
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
                    proved = Some(text.clone());
                    break 'run Verdict::True;
                };
                let trace_file = cfg.keep.as_ref().map(|k| k.join(name("trace.json")));
                if let Some(p) = &trace_file {
                    write_atomic(p, &trace.to_json())?;
                }
                let path = bp_c::trace::c_path(prog, &bp, trace)
                    .map_err(|e| RunError::Internal(format!("bebop's trace: {e}")))?;
                it.path_len = path.len();
                if let (Some(b), Some(t)) = (&bp_file, &trace_file) {
                    let n = cfg.keep.as_ref().map(|k| k.join(name("newton.json")));
                    if alternation == 0 {
                        commands.push_str(&format!(
                            "# iteration {i}\nc2bp {} --preds {} {} -o {}\n",
                            c_file.display(),
                            preds_file
                                .as_ref()
                                .map(|p| p.display().to_string())
                                .unwrap_or_default(),
                            c2bp_flags(cfg),
                            c2bp_file.as_ref().unwrap_or(b).display(),
                        ));
                        if let Some(c) = &c2bp_file {
                            commands.push_str(&format!(
                                "# {} is {} with the constraints of the earlier \
                                 *.constraints.json applied\n",
                                b.display(),
                                c.display()
                            ));
                        }
                    }
                    commands.push_str(&format!(
                        "bebop {} --trace-json {}\nnewton {} {} {}{}\n",
                        b.display(),
                        t.display(),
                        c_file.display(),
                        b.display(),
                        t.display(),
                        n.map(|n| format!(" --json {}", n.display()))
                            .unwrap_or_default()
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
                let r = match res {
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
                    newton::Outcome::Infeasible(r) => r,
                };
                it.outcome = "infeasible".into();
                it.new_predicates = r.preds.len();
                let recurs = !seen.insert(path_key(&path));
                if !r.preds.is_empty() && !recurs {
                    iterations.push(it);
                    cir::pred::merge_into(&mut preds, r.preds);
                    break;
                }
                // NDF: new predicates no longer help.
                it.ndf = true;
                tracing::info!(
                    iteration = i,
                    recurs,
                    alternation,
                    "no difference found: the refinement does not change the abstraction"
                );
                if alternation >= max_alternations || timed_out() {
                    iterations.push(it);
                    break 'run Verdict::Unknown(if timed_out() {
                        "timeout".into()
                    } else {
                        "no difference found".into()
                    });
                }
                progress(Progress {
                    iteration: i,
                    predicates: preds.len(),
                    stage: "constrain",
                });
                let t = Instant::now();
                let pass = constrain::analyze(prog, &pts, &bp, trace, &copts)
                    .map_err(|e| RunError::Internal(format!("constrain: {e}")))?;
                it.constrained = true;
                it.constrain_seconds = t.elapsed().as_secs_f64();
                it.constraints = pass.constraints.len();
                if let Some(k) = &cfg.keep {
                    write_atomic(
                        &k.join(name("constraints.json")),
                        &constrain::pass_json(&pass),
                    )?;
                }
                if let (Some(b), Some(t)) = (&bp_file, &trace_file) {
                    let next = cfg
                        .keep
                        .as_ref()
                        .map(|k| k.join(format!("iter{i:03}-a{}.bp", alternation + 1)));
                    commands.push_str(&format!(
                        "constrain {} {} {} --max-constraints {}{} --apply {}\n",
                        c_file.display(),
                        b.display(),
                        t.display(),
                        copts.max_constraints,
                        rlimit_flag(cfg),
                        next.map(|n| n.display().to_string()).unwrap_or_default(),
                    ));
                    if let Some(k) = &cfg.keep {
                        write_atomic(&k.join("commands.txt"), &commands)?;
                    }
                }
                iterations.push(std::mem::take(&mut it));
                if pass.constraints.is_empty() {
                    break 'run Verdict::Unknown(
                        "no difference found; no spurious transition on the trace".into(),
                    );
                }
                if constrain::apply(&mut bp, &pass.constraints) == 0 {
                    break 'run Verdict::Unknown(
                        "no difference found; the constraints do not apply".into(),
                    );
                }
                for c in pass.constraints {
                    if !constraints.contains(&c) {
                        constraints.push(c);
                    }
                }
                (text, bp) = reprint(&bp)?;
                alternation += 1;
                it = Iteration {
                    index: i,
                    predicates: preds.len(),
                    alternation,
                    ..Iteration::default()
                };
            }
        }
        Verdict::Unknown("iterations".into())
    };
    Ok(RunResult {
        verdict,
        iterations,
        predicates: preds,
        constraints,
        seconds: t0.elapsed().as_secs_f64(),
        abstraction: proved,
    })
}

/// The text of a Boolean program patched by constrain, and its AST re-read from that text (so
/// the trace bebop gives points into the text that is kept).
fn reprint(bp: &bp_grammar::ast::Program) -> Result<(String, bp_grammar::ast::Program), RunError> {
    let text = bp_grammar::print::print(bp);
    let again =
        bp_grammar::parse_and_check(&text, &bp_grammar::ParseOptions::default()).map_err(|d| {
            RunError::Internal(format!(
                "the program with constrain's constraints does not check: {}",
                d.first().map(|d| d.message.clone()).unwrap_or_default()
            ))
        })?;
    Ok((text, again))
}

/// The c2bp flags that reproduce `cfg`'s abstraction (for the kept `commands.txt`).
fn c2bp_flags(cfg: &Config) -> String {
    let o = &cfg.c2bp_options();
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
