//! The refinement loop, SLAM's as the Constrain paper (TACAS'04) summarises it in §2, with its
//! answer to NDF in §3.3 and §4:
//!
//! ```text
//! predicates := initial set (--preds, and the conditions that guard the error)
//! loop { abstract: c2bp → check: bebop → safe: TRUE
//!        refine: newton on bebop's trace → feasible (replayed): FALSE with the counterexample
//!        infeasible → new predicates; none new, or the same C path again: NDF
//!        at NDF: constrain the Boolean program along the trace, check again }
//! ```
//!
//! [`run`] is that loop; one helper per stage ([`Cegar::abstract_program`], [`Cegar::check`],
//! [`Cegar::refine`], [`Cegar::constrain`]) runs the tool, times it into the round's
//! [`Iteration`] record (wall-clock and process CPU time, and each tool's own measurements) and
//! keeps its files ([`crate::keep`]). The deadline is checked between stages. Every stage is
//! announced ([`Progress`]) with the rounds completed so far and the one in progress, so that a
//! caller that stops the loop from outside still has them ([`crate::Journal`]).
//!
//! When constrain cannot resolve an NDF although the trace may have spurious transitions, the
//! next iteration abstracts the same predicates with longer cubes, up to
//! [`Config::max_cube_len`] ([`Cegar::raise_or`]).
//!
//! With [`Config::traces_per_iteration`] above 1, a round whose trace newton refuted with new
//! predicates looks for further error traces of the same abstraction, with the refuted edges
//! blocked, and refines them too before the next abstraction ([`Cegar::more_traces`]).
//!
//! With [`Precision::Auto`] the loop starts in integer mode; a path newton leaves undecided
//! because of that encoding (its model does not replay) is re-checked bit-precisely, and if
//! that decides it the run continues bit-precisely ([`Cegar::recheck_bitvector`]). So does a
//! path newton refutes with predicates the integer encoding cannot reason about (queries about
//! them undecided within the prover's limit) when the bit-precise encoding refutes it with
//! predicates it can.

use std::collections::{BTreeMap, BTreeSet, HashSet};
use std::ops::ControlFlow;
use std::path::{Path, PathBuf};
use std::time::Instant;

use bp_c::trace::CStep;
use bp_grammar::trace::Trace;
use cir::Program;
use cir::ir::EdgeId;
use cir::pointsto::PointsTo;
use cir::pred::PredicateSet;

use crate::block;
use crate::config::{Config, Precision};
use crate::divergence::{Added, Detector};
use crate::error::RunError;
use crate::falsify::Falsifier;
use crate::keep::{Keep, KeptRound, further_file, round_file};
use crate::stats::{
    AddedPredicate, BebopPhase, C2bpPhase, CubeRaise, Iteration, IterationOutcome, Phase,
    RefinedTrace, RunResult, Stopwatch, TracesEnd,
};
use crate::verdict::{UnknownReason, Verdict};

/// The floor of bebop's shortest-trace budget in the loop (bebop's own is
/// [`bebop::TraceBudget::DEFAULT_FLOOR`], ten times more). Newton needs a path of the
/// abstraction, not the shortest one, and the shortest-path search is quadratic on a long
/// stretch of `if`s that the trace passes more than once (a node sits in as many layers as
/// there are path lengths to it, and the distance to the error no longer guides the search):
/// past twice the engine's own work and this floor, the linear walk over the engine's stamps
/// gives the trace instead.
const TRACE_BUDGET_FLOOR: u64 = 20_000;

/// Progress reports, one as each stage starts (the command prints them on stderr for long
/// runs, and keeps the records in a [`crate::Journal`]).
#[derive(Debug, Clone, Copy)]
pub struct Progress<'a> {
    /// Iteration.
    pub iteration: usize,
    /// The predicates.
    pub predicates: &'a PredicateSet,
    /// The stage starting.
    pub stage: Phase,
    /// The rounds completed so far.
    pub done: &'a [Iteration],
    /// The round in progress, with the measurements of the stages it completed.
    pub current: &'a Iteration,
}

/// Runs the loop on a lowered program. `c_file` and `c_bytes` are recorded in each `.bp`
/// header; `preds` is the initial predicate set (with the error guards added when
/// [`Config::guard_preds`]).
pub fn run(
    prog: &Program,
    c_file: &Path,
    c_bytes: &[u8],
    preds: PredicateSet,
    cfg: &Config,
    progress: &mut dyn FnMut(Progress<'_>),
) -> Result<RunResult, RunError> {
    let t0 = Instant::now();
    let mut cegar = Cegar::new(prog, c_file, c_bytes, preds, cfg, progress)?;
    let verdict = cegar.until_verdict()?;
    let verdict = cegar
        .falsifier
        .give_up(prog, verdict, &mut cegar.iterations);
    let sources = cegar.final_sources();
    Ok(RunResult {
        verdict,
        iterations: cegar.iterations,
        predicates: cegar.preds,
        constraints: cegar.constraints,
        seconds: t0.elapsed().as_secs_f64(),
        abstraction: cegar.proved,
        sources,
        stopped_in: None,
    })
}

/// How a round ended.
enum Round {
    /// With the run's verdict.
    Done(Verdict),
    /// Newton found new predicates, or the cube lengths were raised: the next iteration
    /// abstracts again.
    Refined,
    /// Constrain patched the Boolean program: bebop checks it again.
    Constrained,
}

/// The Boolean program of a round, and the files it was made from.
struct Abstraction {
    /// Iteration.
    index: usize,
    /// Constrain alternation (0: the program c2bp wrote).
    alternation: usize,
    /// The program's canonical text.
    text: String,
    /// Its parse (the positions of bebop's traces are those of `text`).
    bp: bp_grammar::ast::Program,
    /// c2bp's own output, kept when constraints were re-applied to it.
    c2bp_file: Option<PathBuf>,
}

impl Abstraction {
    /// The name of this round's file with extension `ext`.
    fn file(&self, ext: &str) -> String {
        round_file(self.index, self.alternation, ext)
    }

    /// Prints the program patched by constrain and re-reads it from that text (so the trace
    /// bebop gives points into the text that is kept).
    fn reprint(&mut self) -> Result<(), RunError> {
        (self.text, self.bp) = reread(&self.bp, "with constrain's constraints")?;
        Ok(())
    }
}

/// The text of a Boolean program the loop edited (`what`), and the program read back from
/// it, so that positions in bebop's traces are those of the text.
fn reread(bp: &bp_grammar::Program, what: &str) -> Result<(String, bp_grammar::Program), RunError> {
    let text = bp_grammar::print::print(bp);
    let bp =
        bp_grammar::parse_and_check(&text, &bp_grammar::ParseOptions::default()).map_err(|d| {
            RunError::Internal(format!(
                "the program {what} does not check: {}",
                d.first().map(|d| d.message.clone()).unwrap_or_default()
            ))
        })?;
    Ok((text, bp))
}

/// Bebop's error trace, and the file it is kept in.
type KeptTrace = (Box<Trace>, Option<PathBuf>);

/// The state of the loop across iterations.
struct Cegar<'r> {
    prog: &'r Program,
    cfg: &'r Config,
    progress: &'r mut dyn FnMut(Progress<'_>),
    pts: PointsTo,
    preds: PredicateSet,
    /// The `.bp` header's sources (the predicate file is set per iteration).
    sources: bp_c::header::Sources,
    c2bp_opts: c2bp::Options,
    cache: c2bp::Cache,
    newton_opts: newton::Options,
    constrain_opts: constrain::Options,
    max_alternations: usize,
    /// The C paths of earlier traces (a recurring one is NDF).
    seen: HashSet<Vec<(EdgeId, u32)>>,
    /// The constraints of earlier NDFs, re-applied to every later abstraction.
    constraints: Vec<constrain::Constraint>,
    keep: Keep,
    iterations: Vec<Iteration>,
    /// The Boolean program bebop proved safe.
    proved: Option<String>,
    /// Whether an undecided path may still switch the run to bit-precise reasoning
    /// ([`Precision::Auto`], in integer mode).
    may_switch: bool,
    /// Newton's predicates per iteration, watched for divergence.
    detector: Detector,
    /// Where each predicate comes from, by (scope, text).
    origins: BTreeMap<(String, String), String>,
    /// The constants each (scope, lvalue, whether a bound) was tested against by the
    /// refutations so far ([`Cegar::sibling_triggers`]).
    state_tests: BTreeMap<(String, String, bool), BTreeSet<i128>>,
    /// The Horn solver's decided answers per path program.
    horn_cache: newton::horn::HornCache,
    /// The concrete-execution falsifier, called when a trace goes round a loop.
    falsifier: Falsifier,
}

impl<'r> Cegar<'r> {
    /// The loop's state before the first iteration: the error guards added to the predicates,
    /// the points-to analysis done once, the keep directory created.
    fn new(
        prog: &'r Program,
        c_file: &Path,
        c_bytes: &[u8],
        mut preds: PredicateSet,
        cfg: &'r Config,
        progress: &'r mut dyn FnMut(Progress<'_>),
    ) -> Result<Cegar<'r>, RunError> {
        let mut origins = BTreeMap::new();
        note_sources(&mut origins, &preds, "initial");
        if cfg.guard_preds {
            let guards = cir::pred::guard_predicates(prog);
            note_sources(&mut origins, &guards, "guard");
            cir::pred::merge_into(&mut preds, guards);
        }
        let pts = PointsTo::analyze(prog);
        let keep = Keep::create(cfg, c_file)?;
        let errors = cfg.settings.error_entry();
        let sources = bp_c::header::Sources {
            c_path: c_file.display().to_string(),
            c_sha256: bp_c::header::sha256_hex(c_bytes),
            preds_path: None,
            extra: if errors.is_empty() {
                Vec::new()
            } else {
                vec![("error".to_string(), errors)]
            },
        };
        let (max_constraints, max_alternations) = cfg.constrain.limits();
        let c2bp_opts = cfg.c2bp_options();
        let sem = c2bp_opts.sem;
        Ok(Cegar {
            prog,
            cfg,
            progress,
            pts,
            preds,
            sources,
            c2bp_opts,
            cache: c2bp::Cache::default(),
            newton_opts: newton::Options {
                sem,
                rlimit: cfg.c2bp.rlimit,
                refine: cfg.refine,
                horn: cfg.horn,
            },
            constrain_opts: constrain::Options {
                sem,
                rlimit: cfg.c2bp.rlimit,
                max_constraints,
            },
            max_alternations,
            seen: HashSet::new(),
            constraints: Vec::new(),
            keep,
            iterations: Vec::new(),
            proved: None,
            may_switch: cfg.precision == Precision::Auto && !sem.bitvector,
            detector: Detector::default(),
            origins,
            state_tests: BTreeMap::new(),
            horn_cache: newton::horn::HornCache::default(),
            falsifier: Falsifier::new(cfg.falsify, cfg.deadline),
        })
    }

    /// The loop: abstract, then rounds of check and refine on that abstraction until a
    /// verdict, new predicates (the next iteration) or the limits.
    fn until_verdict(&mut self) -> Result<Verdict, RunError> {
        for i in 0..self.cfg.max_iterations {
            let mut it = Iteration::new(i, self.preds.len(), 0, self.c2bp_opts.sem.bitvector);
            if self.cfg.timed_out() {
                return Ok(self.stopped_before(i, Phase::C2bp, &it));
            }
            let mut abs = self.abstract_program(i, &mut it)?;
            loop {
                let end = self.round(&mut abs, &mut it);
                it.peak_rss_mib = crate::stats::process_usage().1;
                self.iterations.push(std::mem::take(&mut it));
                match end? {
                    Round::Done(verdict) => return Ok(verdict),
                    Round::Refined => break,
                    Round::Constrained => {
                        it = Iteration::new(
                            i,
                            self.preds.len(),
                            abs.alternation,
                            self.c2bp_opts.sem.bitvector,
                        );
                    }
                }
            }
            // c2bp takes the procedures that do not change from the program it gave.
            self.cache.recycle(&abs.text, abs.bp);
        }
        Ok(Verdict::Unknown(UnknownReason::Iterations))
    }

    /// One round on the Boolean program `abs`: check it; refine with its error trace; when
    /// the refinement makes no difference (NDF), constrain `abs` along the trace.
    fn round(&mut self, abs: &mut Abstraction, it: &mut Iteration) -> Result<Round, RunError> {
        let bp_file = self.keep.write(&abs.file("bp"), || &abs.text)?;
        if let Some(bp) = &bp_file {
            self.keep
                .record_bebop(abs.index, abs.alternation, bp, abs.c2bp_file.as_deref())?;
        }
        if self.cfg.timed_out() {
            return Ok(Round::Done(self.stopped_before(
                abs.index,
                Phase::Bebop,
                it,
            )));
        }
        let Some((trace, trace_file)) = self.check(abs, it)? else {
            it.outcome = IterationOutcome::Safe;
            self.proved = Some(abs.text.clone());
            return Ok(Round::Done(Verdict::True));
        };
        let path = self.c_path(abs, &trace, it)?;
        let kept = self.record_check(abs, bp_file, trace_file)?;
        if self.cfg.timed_out() {
            return Ok(Round::Done(self.stopped_before(
                abs.index,
                Phase::Newton,
                it,
            )));
        }
        if let Some(verdict) = self.falsifier.on_trace(self.prog, &path, it) {
            return Ok(Round::Done(verdict));
        }
        let mut refutation = match self.refine(abs, &path, it)? {
            ControlFlow::Break(verdict) => return Ok(Round::Done(verdict)),
            ControlFlow::Continue(r) => r,
        };
        if let Some(chain) = self.detector.push(self.wp_added(&path, &refutation)) {
            it.divergence = true;
            tracing::info!(iteration = abs.index, ?chain, "the predicates diverge");
            match self.cfg.refine {
                newton::RefineMode::Wp => {
                    return Ok(Round::Done(Verdict::Unknown(UnknownReason::Divergence(
                        chain,
                    ))));
                }
                newton::RefineMode::Auto if refutation.horn.is_none() => {
                    refutation = match self.horn(abs, &path, refutation, it)? {
                        ControlFlow::Break(verdict) => return Ok(Round::Done(verdict)),
                        ControlFlow::Continue(r) => r,
                    };
                }
                _ => {}
            }
        }
        if let Some(verdict) = self.falsifier.on_refutation(self.prog, &refutation, it) {
            return Ok(Round::Done(verdict));
        }
        let recurs = !self.seen.insert(path_key(&path));
        // After a switch to bit-precise reasoning the abstraction is rebuilt whatever the
        // refutation added: the same predicates abstract more precisely.
        let switched = it.precision_switch.is_some();
        if switched || (!refutation.preds.is_empty() && !recurs) {
            let blocking = refutation.blocking.step;
            self.adopt(*refutation, path.len(), 0, it);
            if !switched
                && let ControlFlow::Break(v) = self.more_traces(abs, &path, blocking, it)?
            {
                return Ok(Round::Done(v));
            }
            return Ok(Round::Refined);
        }
        // Before constrain, `auto` tries the trace's path program.
        if self.cfg.refine == newton::RefineMode::Auto && refutation.horn.is_none() {
            refutation = match self.horn(abs, &path, refutation, it)? {
                ControlFlow::Break(verdict) => return Ok(Round::Done(verdict)),
                ControlFlow::Continue(r) => r,
            };
            if refutation
                .reasons
                .iter()
                .any(|r| r.refiner == newton::Refiner::Horn)
            {
                let blocking = refutation.blocking.step;
                self.adopt(*refutation, path.len(), 0, it);
                if let ControlFlow::Break(v) = self.more_traces(abs, &path, blocking, it)? {
                    return Ok(Round::Done(v));
                }
                return Ok(Round::Refined);
            }
        }
        // NDF: new predicates no longer help.
        it.ndf = true;
        tracing::info!(
            iteration = abs.index,
            recurs,
            alternation = abs.alternation,
            "no difference found: the refinement does not change the abstraction"
        );
        if self.cfg.timed_out() {
            return Ok(Round::Done(self.stopped_before(
                abs.index,
                Phase::Constrain,
                it,
            )));
        }
        if abs.alternation >= self.max_alternations {
            return Ok(self.raise_or(UnknownReason::NoDifferenceFound, it));
        }
        self.constrain(abs, &trace, kept.as_ref(), it)
    }

    /// At an NDF that constrain cannot resolve although the trace may have spurious
    /// transitions (the alternations are spent, constrain is off, or its constraints do not
    /// apply): the next iteration abstracts the same predicates with one literal more in the
    /// cubes ([`raised`]), if [`Config::max_cube_len`] allows; otherwise the run ends with
    /// `UNKNOWN (why)`. The Cartesian abstraction with cubes of at most `k` literals misses
    /// every fact that needs `k + 1` of them (an invariant split over two predicates, with a
    /// loop's exit condition and the error's guard), and constrain only repairs the
    /// transitions along one trace at a time. Length 3 stays the start: it is the best of the
    /// lengths the Constrain paper compares ("Refining approximations in software predicate
    /// abstraction", §5, Fig. 6); longer cubes cost more on every statement, so the run pays
    /// for them only once shorter ones have failed. The predicates and the constraints found
    /// so far stay: each constraint is a spuriousness the prover showed for a C edge, over
    /// predicates and the edge's annotations, which hold whatever the cube lengths.
    fn raise_or(&mut self, why: UnknownReason, it: &mut Iteration) -> Round {
        let o = &self.c2bp_opts;
        // The exact abstraction and `--havoc-all` (eager constrain) use no cube lengths.
        let cartesian = o.abstraction == c2bp::Abstraction::Cartesian && !o.havoc_all;
        let Some((cube_len, enforce_len)) = cartesian
            .then(|| raised(o.cube_len, o.enforce_len, self.cfg.max_cube_len))
            .flatten()
        else {
            return Round::Done(Verdict::Unknown(why));
        };
        tracing::info!(
            iteration = it.index,
            %why,
            ?cube_len,
            enforce_len,
            "raising the abstraction's cube lengths"
        );
        self.c2bp_opts.cube_len = cube_len;
        self.c2bp_opts.enforce_len = enforce_len;
        self.keep
            .c2bp_options_from(it.index, &self.c2bp_opts, &why.to_string());
        it.cube_raise = Some(CubeRaise {
            cube_len,
            enforce_len,
            reason: why,
        });
        Round::Refined
    }

    /// The verdict when the deadline passed between two phases: `UNKNOWN (timeout)`, with
    /// `phase` (the one not started) reported as the phase the limit cut.
    fn stopped_before(&mut self, index: usize, phase: Phase, it: &Iteration) -> Verdict {
        self.report(index, phase, it);
        Verdict::Unknown(UnknownReason::Timeout)
    }

    /// Reports that `stage` of iteration `index` starts, `it` being the round in progress.
    fn report(&mut self, index: usize, stage: Phase, it: &Iteration) {
        (self.progress)(Progress {
            iteration: index,
            predicates: &self.preds,
            stage,
            done: &self.iterations,
            current: it,
        });
    }

    /// Abstract: c2bp on the current predicates (with the answers of earlier abstractions in
    /// the cache), then the constraints found at earlier NDFs re-applied to the regenerated
    /// program.
    fn abstract_program(
        &mut self,
        index: usize,
        it: &mut Iteration,
    ) -> Result<Abstraction, RunError> {
        self.report(index, Phase::C2bp, it);
        let preds_file = self.keep.write(&round_file(index, 0, "preds"), || {
            cir::pred::predicate_file_text(&self.preds)
        })?;
        self.keep
            .record_c2bp(index, preds_file.as_deref(), !self.constraints.is_empty())?;
        let sources = bp_c::header::Sources {
            preds_path: preds_file.as_ref().map(|p| p.display().to_string()),
            ..self.sources.clone()
        };
        let t = Stopwatch::start();
        let out = c2bp::abstract_program_cached(
            self.prog,
            &self.preds,
            &self.c2bp_opts,
            &sources,
            &mut self.cache,
        )
        .map_err(|e| RunError::Internal(e.to_string()))?;
        (it.c2bp_seconds, it.c2bp_cpu_seconds) = t.stop();
        it.prover_queries = out.prover.queries;
        it.c2bp = Some(C2bpPhase::of(&out));
        // c2bp's text is canonical and `out.program` is its parse (same positions).
        let mut abs = Abstraction {
            index,
            alternation: 0,
            text: out.text,
            bp: out.program,
            c2bp_file: None,
        };
        // With constraints re-applied, the kept `iterNNN.bp` is the patched program and
        // c2bp's own output is kept as `iterNNN.c2bp.bp` (so that re-running the kept c2bp
        // command does not overwrite the program the trace belongs to).
        if !self.constraints.is_empty() && constrain::apply(&mut abs.bp, &self.constraints) > 0 {
            abs.c2bp_file = self.keep.write(&abs.file("c2bp.bp"), || &abs.text)?;
            abs.reprint()?;
        }
        Ok(abs)
    }

    /// Check: bebop on the Boolean program; its error trace, if any, with the file it is kept
    /// in.
    fn check(
        &mut self,
        abs: &Abstraction,
        it: &mut Iteration,
    ) -> Result<Option<KeptTrace>, RunError> {
        self.report(abs.index, Phase::Bebop, it);
        let t = Stopwatch::start();
        let outcome = bebop::verify(&abs.bp, &bebop_options(abs))
            .map_err(|e| RunError::Internal(e.to_string()))?;
        (it.bebop_seconds, it.bebop_cpu_seconds) = t.stop();
        it.bebop = Some(BebopPhase::from(&outcome.stats));
        let bebop::Verdict::Unsafe(trace) = outcome.verdict else {
            return Ok(None);
        };
        let trace_file = self
            .keep
            .write(&abs.file("trace.json"), || trace.to_json())?;
        Ok(Some((trace, trace_file)))
    }

    /// The C path bebop's trace follows, through calls and returns.
    fn c_path(
        &self,
        abs: &Abstraction,
        trace: &Trace,
        it: &mut Iteration,
    ) -> Result<Vec<CStep>, RunError> {
        let path = bp_c::trace::c_path(self.prog, &abs.bp, trace)
            .map_err(|e| RunError::Internal(format!("bebop's trace: {e}")))?;
        it.path_len = path.len();
        Ok(path)
    }

    /// Records in `commands.txt`, when files are kept, how to re-run the round's check; the
    /// round's kept files.
    fn record_check(
        &mut self,
        abs: &Abstraction,
        bp_file: Option<PathBuf>,
        trace_file: Option<PathBuf>,
    ) -> Result<Option<KeptRound>, RunError> {
        let kept = bp_file.zip(trace_file).map(|(bp, trace)| KeptRound {
            index: abs.index,
            alternation: abs.alternation,
            bp,
            trace,
            preds: None,
        });
        if let Some(k) = &kept {
            self.keep.record_check(k)?;
        }
        Ok(kept)
    }

    /// Refine: newton on the C path of the trace (in `auto`, re-checked bit-precisely when
    /// the integer encoding leaves it undecided). A replayed counterexample or an undecided
    /// path ends the run; an infeasible one gives newton's refutation.
    fn refine(
        &mut self,
        abs: &Abstraction,
        path: &[CStep],
        it: &mut Iteration,
    ) -> Result<ControlFlow<Verdict, Box<newton::Refutation>>, RunError> {
        self.report(abs.index, Phase::Newton, it);
        let t = Stopwatch::start();
        let mut res = self.newton(path);
        if self.may_switch {
            match &res {
                newton::Outcome::Unknown { reason, kind } if kind.may_depend_on_precision() => {
                    res = self.recheck_bitvector(path, reason.clone(), it);
                }
                newton::Outcome::Infeasible(r) if r.undecided_queries > 0 => {
                    // The path is refuted, but the prover could not decide queries about
                    // its new predicates in integer mode: c2bp's queries about them would
                    // fare no better. Bit-precisely they may be easy (nested wrap-arounds
                    // are); switch when that refutes the path too, else keep this answer.
                    let reason = format!(
                        "{} queries about the new predicates undecided in integer mode",
                        r.undecided_queries
                    );
                    let bv = self.bit_precise(path);
                    if matches!(&bv, newton::Outcome::Infeasible(b) if b.undecided_queries == 0) {
                        self.switch_to_bitvector(reason, it);
                        res = bv;
                    }
                }
                _ => {}
            }
        }
        (it.newton_seconds, it.newton_cpu_seconds) = t.stop();
        self.keep
            .write(&abs.file("newton.json"), || newton::outcome_json(&res))?;
        Ok(match res {
            newton::Outcome::Feasible(cex) => {
                it.outcome = IterationOutcome::Feasible;
                ControlFlow::Break(Verdict::False(cex))
            }
            newton::Outcome::Unknown { reason, .. } => {
                it.outcome = IterationOutcome::Unknown;
                ControlFlow::Break(Verdict::Unknown(UnknownReason::Newton(reason)))
            }
            newton::Outcome::Infeasible(r) => {
                it.outcome = IterationOutcome::Infeasible;
                it.new_predicates = r.preds.len();
                it.horn = r.horn.clone();
                ControlFlow::Continue(r)
            }
        })
    }

    /// Newton on `path` by the loop's one entry point for every trace it refines, with the
    /// run's cache of the Horn refiner's answers.
    fn newton(&mut self, path: &[CStep]) -> newton::Outcome {
        newton::analyze_refined(
            self.prog,
            &self.pts,
            &self.preds,
            path,
            &self.newton_opts,
            false,
            &mut self.horn_cache,
        )
    }

    /// Re-checks `path`, which newton left undecided in integer mode for `reason`, with the
    /// bit-precise encoding. If that decides it, the run switches to bit-precise reasoning for
    /// good ([`Cegar::switch_to_bitvector`]). A feasible answer is newton's, so it has been
    /// replayed on the concrete program.
    fn recheck_bitvector(
        &mut self,
        path: &[CStep],
        reason: String,
        it: &mut Iteration,
    ) -> newton::Outcome {
        let res = self.bit_precise(path);
        if let newton::Outcome::Unknown { reason: bv, kind } = res {
            return newton::Outcome::Unknown {
                reason: format!("{bv} (re-checked bit-precisely; in integer mode: {reason})"),
                kind,
            };
        }
        self.switch_to_bitvector(reason, it);
        res
    }

    /// newton on `path` with the bit-precise encoding (nothing else changes).
    fn bit_precise(&self, path: &[CStep]) -> newton::Outcome {
        let opts = newton::Options {
            sem: self.bit_precise_sem(),
            ..self.newton_opts
        };
        newton::analyze(self.prog, &self.pts, &self.preds, path, &opts)
    }

    fn bit_precise_sem(&self) -> cir::smt::Semantics {
        cir::smt::Semantics {
            bitvector: true,
            ..self.newton_opts.sem
        }
    }

    /// From now on the run reasons bit-precisely, for `reason` (recorded in `it`): c2bp,
    /// newton and constrain (c2bp's header records it, and its cache, keyed by the options,
    /// starts afresh); the predicates and constraints found so far stay ([`Precision`] says
    /// why that is sound).
    fn switch_to_bitvector(&mut self, reason: String, it: &mut Iteration) {
        tracing::info!(iteration = it.index, %reason, "switching to bit-precise reasoning");
        let sem = self.bit_precise_sem();
        self.may_switch = false;
        self.newton_opts.sem = sem;
        self.c2bp_opts.sem = sem;
        self.constrain_opts.sem = sem;
        self.keep.bitvector_from(it.index);
        it.precision_switch = Some(reason);
    }

    /// The Horn refiner on a trace newton refuted without it (divergence, or NDF in `auto`):
    /// a replayed counterexample through the path program ends the run; otherwise the
    /// refutation with its predicates added.
    fn horn(
        &mut self,
        abs: &Abstraction,
        path: &[CStep],
        r: Box<newton::Refutation>,
        it: &mut Iteration,
    ) -> Result<ControlFlow<Verdict, Box<newton::Refutation>>, RunError> {
        if self.newton_opts.sem.bitvector {
            // The clauses are in integer semantics: `with_horn` would return `r` unchanged,
            // and nothing was forced that `commands.txt` should re-run.
            return Ok(ControlFlow::Continue(r));
        }
        self.report(abs.index, Phase::Newton, it);
        let t = Stopwatch::start();
        let res = newton::with_horn(
            self.prog,
            &self.pts,
            &self.preds,
            path,
            &self.newton_opts,
            r,
            &mut self.horn_cache,
        );
        let (wall, cpu) = t.stop();
        it.newton_seconds += wall;
        it.newton_cpu_seconds += cpu;
        self.keep
            .write(&abs.file("newton.json"), || newton::outcome_json(&res))?;
        self.keep.record_forced_horn(abs.index, abs.alternation)?;
        Ok(match res {
            newton::Outcome::Feasible(cex) => {
                it.outcome = IterationOutcome::Feasible;
                ControlFlow::Break(Verdict::False(cex))
            }
            newton::Outcome::Infeasible(r) => {
                it.new_predicates = r.preds.len();
                it.horn = r.horn.clone();
                ControlFlow::Continue(r)
            }
            // (`with_horn` answers infeasible or feasible.)
            newton::Outcome::Unknown { reason, .. } => {
                ControlFlow::Break(Verdict::Unknown(UnknownReason::Newton(reason)))
            }
        })
    }

    /// Newton's own predicates of the refutation, with the condition each comes from (for
    /// the divergence detector).
    fn wp_added(&self, path: &[CStep], r: &newton::Refutation) -> Vec<Added> {
        r.reasons
            .iter()
            .filter(|x| x.refiner == newton::Refiner::Wp)
            .map(|x| Added {
                scope: x.scope.clone(),
                text: x.predicate.clone(),
                origin: path
                    .get(x.from_assume)
                    .map(|s| self.prog.edge_name(s.edge))
                    .unwrap_or_default(),
            })
            .collect()
    }

    /// Adds the refutation's predicates, recording where each comes from, and the refuted
    /// trace (`path_len` C edges, found with `blocked` edges blocked) in the round's record.
    fn adopt(
        &mut self,
        r: newton::Refutation,
        path_len: usize,
        blocked: usize,
        it: &mut Iteration,
    ) {
        // The first trace's Horn run is the round's own record.
        let horn = if blocked > 0 { r.horn.clone() } else { None };
        for x in &r.reasons {
            let source = x.refiner.as_str().to_string();
            self.origins
                .entry((x.scope.clone(), x.predicate.clone()))
                .or_insert_with(|| source.clone());
            it.added.push(AddedPredicate {
                scope: x.scope.clone(),
                predicate: x.predicate.clone(),
                source,
            });
        }
        let new_predicates = r.preds.len();
        let before = self.preds.len();
        let siblings = if self.cfg.sibling_predicates {
            let triggers = self.sibling_triggers(&r.preds);
            cir::pred::constant_siblings(self.prog, &triggers, &self.preds)
        } else {
            PredicateSet::default()
        };
        cir::pred::merge_into(&mut self.preds, r.preds);
        note_sources(&mut self.origins, &siblings, SIBLINGS);
        for (func, p) in siblings.sections() {
            let scope = func.unwrap_or("global");
            it.added.push(AddedPredicate {
                scope: scope.to_string(),
                predicate: p.text.clone(),
                source: SIBLINGS.to_string(),
            });
        }
        cir::pred::merge_into(&mut self.preds, siblings);
        it.traces.push(RefinedTrace {
            path_len,
            blocked,
            new_predicates,
            predicates_added: self.preds.len() - before,
            horn,
        });
        it.new_predicates = it.traces.iter().map(|t| t.new_predicates).sum();
        it.predicates_added = it.traces.iter().map(|t| t.predicates_added).sum();
    }

    /// The state tests of `new` whose lvalue has now been tested against a second constant by
    /// the refutations so far (bounds and tests of states counted apart): the sign that
    /// refinement is enumerating its values one at a time, which
    /// [`cir::pred::constant_siblings`] then does at once (an lvalue with one tested
    /// constant, such as a status compared with one error code, gets no siblings).
    fn sibling_triggers(&mut self, new: &PredicateSet) -> PredicateSet {
        let mut out = PredicateSet::default();
        for (func, p) in new.sections() {
            let Some(t) = cir::pred::state_test(self.prog, p) else {
                continue;
            };
            let scope = func.unwrap_or("global").to_string();
            let seen = self
                .state_tests
                .entry((scope, t.lvalue, t.bound))
                .or_default();
            if seen.insert(t.constant) && seen.len() == 2 {
                out.push(func, p.clone());
            }
        }
        out
    }

    /// More refinements from the same abstraction (`--traces-per-iteration`), after newton
    /// refuted its error trace `path` at step `blocking` and its predicates were adopted: the
    /// refuted edge is blocked in a copy of the Boolean program ([`crate::block`]) and bebop
    /// asked for another error trace, which newton refines like the first (the Horn refiner
    /// included, with the same cache); and so on with each new trace's refuted edge also
    /// blocked, until [`Config::traces_per_iteration`] traces were refined, the blocked
    /// program is safe, or the extra checks and refinements have cost more CPU time than the
    /// round's abstraction, check and first refinement (beyond that, a new abstraction is the
    /// cheaper way to a new trace; [`Config::traces_time_bound`]).
    ///
    /// All the predicates go into the next abstraction, as if from consecutive iterations,
    /// each from newton's refutation of a C path; the verdicts still come only from bebop on
    /// a whole abstraction (TRUE) and newton's replay (FALSE). A further trace is a trace of
    /// the abstraction (blocking only removes runs), so its C path is a path of the program:
    /// newton's replay of it to the error is a counterexample like any other, and ends the
    /// run FALSE. A trace newton leaves undecided ends the search (the round's refinement
    /// stands; no precision switch). The divergence detector watches the first trace of each
    /// iteration, as with one trace.
    fn more_traces(
        &mut self,
        abs: &Abstraction,
        path: &[CStep],
        blocking: usize,
        it: &mut Iteration,
    ) -> Result<ControlFlow<Verdict>, RunError> {
        if self.cfg.traces_per_iteration <= 1 {
            return Ok(ControlFlow::Continue(()));
        }
        let budget = it.c2bp_cpu_seconds + it.bebop_cpu_seconds + it.newton_cpu_seconds;
        let mut spent = 0.0;
        let mut bp = abs.bp.clone();
        let mut blocked: Vec<String> = Vec::new();
        let mut edge = path.get(blocking).map(|s| s.edge);
        let opts = bebop_options(abs);
        it.traces_end = loop {
            if it.traces.len() >= self.cfg.traces_per_iteration {
                break TracesEnd::Limit;
            }
            if self.cfg.timed_out() {
                break TracesEnd::Deadline;
            }
            if self.cfg.traces_time_bound && spent > budget {
                break TracesEnd::Cost;
            }
            match edge {
                Some(e) if block::block_edge(&mut bp, &self.prog.edge_name(e)) > 0 => {
                    blocked.push(self.prog.edge_name(e));
                }
                _ => break TracesEnd::Unblockable,
            }
            // The blocked program is printed and read back, so that the trace's positions are
            // those of the text `--keep` keeps (with or without it, the same program).
            let further = it.traces.len();
            let file = |ext: &str| further_file(abs.index, abs.alternation, further, ext);
            let text;
            (text, bp) = reread(&bp, "with blocked edges")?;
            let bp_file = self.keep.write(&file("bp"), || text)?;
            self.report(abs.index, Phase::Bebop, it);
            let t = Stopwatch::start();
            let outcome =
                bebop::verify(&bp, &opts).map_err(|e| RunError::Internal(e.to_string()))?;
            let (wall, cpu) = t.stop();
            it.bebop_seconds += wall;
            it.bebop_cpu_seconds += cpu;
            spent += cpu;
            let bebop::Verdict::Unsafe(trace) = outcome.verdict else {
                break TracesEnd::Safe;
            };
            let trace_file = self.keep.write(&file("trace.json"), || trace.to_json())?;
            if let (Some(bp), Some(trace)) = (bp_file, trace_file) {
                let preds = self.keep.write(&file("preds"), || {
                    cir::pred::predicate_file_text(&self.preds)
                })?;
                let kept = KeptRound {
                    index: abs.index,
                    alternation: abs.alternation,
                    bp,
                    trace,
                    preds,
                };
                self.keep.record_further(&abs.file("bp"), &blocked, &kept)?;
            }
            let next = bp_c::trace::c_path(self.prog, &bp, &trace)
                .map_err(|e| RunError::Internal(format!("bebop's trace: {e}")))?;
            self.report(abs.index, Phase::Newton, it);
            let t = Stopwatch::start();
            let res = self.newton(&next);
            let (wall, cpu) = t.stop();
            it.newton_seconds += wall;
            it.newton_cpu_seconds += cpu;
            spent += cpu;
            self.keep
                .write(&file("newton.json"), || newton::outcome_json(&res))?;
            match res {
                newton::Outcome::Feasible(cex) => {
                    it.outcome = IterationOutcome::Feasible;
                    it.traces_end = TracesEnd::Feasible;
                    return Ok(ControlFlow::Break(Verdict::False(cex)));
                }
                newton::Outcome::Unknown { .. } => break TracesEnd::Unknown,
                newton::Outcome::Infeasible(r) => {
                    edge = next.get(r.blocking.step).map(|s| s.edge);
                    if !r.preds.is_empty() {
                        self.seen.insert(path_key(&next));
                    }
                    self.adopt(*r, next.len(), blocked.len(), it);
                }
            }
        };
        Ok(ControlFlow::Continue(()))
    }

    /// Where each predicate of the final set comes from.
    fn final_sources(&self) -> Vec<AddedPredicate> {
        let mut out = Vec::new();
        let mut push = |scope: &str, text: &str| {
            let key = (scope.to_string(), text.to_string());
            out.push(AddedPredicate {
                scope: scope.to_string(),
                predicate: text.to_string(),
                source: self
                    .origins
                    .get(&key)
                    .cloned()
                    .unwrap_or_else(|| "initial".into()),
            });
        };
        for p in &self.preds.global {
            push("global", &p.text);
        }
        for (f, ps) in &self.preds.per_function {
            for p in ps {
                push(f, &p.text);
            }
        }
        out
    }

    /// Constrain (the Constrain paper, §3): the spurious transitions of the trace excluded
    /// from `abs` with the predicates it has; the constraints are kept for every later
    /// abstraction and bebop checks the patched program again.
    fn constrain(
        &mut self,
        abs: &mut Abstraction,
        trace: &Trace,
        kept: Option<&KeptRound>,
        it: &mut Iteration,
    ) -> Result<Round, RunError> {
        self.report(abs.index, Phase::Constrain, it);
        let t = Stopwatch::start();
        let pass = constrain::analyze(self.prog, &self.pts, &abs.bp, trace, &self.constrain_opts)
            .map_err(|e| RunError::Internal(format!("constrain: {e}")))?;
        it.constrained = true;
        (it.constrain_seconds, it.constrain_cpu_seconds) = t.stop();
        it.constraints = pass.constraints.len();
        self.keep.write(&abs.file("constraints.json"), || {
            constrain::pass_json(&pass)
        })?;
        if let Some(k) = kept {
            self.keep.record_constrain(k)?;
        }
        // Constrain showed no transition of the trace spurious, so the most precise abstraction
        // of each statement it checks keeps the trace too: longer cubes are not the help
        // needed (a transition it could not decide, or did not examine, counts as not
        // spurious; those the raise would not reach either but at great cost).
        if pass.constraints.is_empty() {
            return Ok(Round::Done(Verdict::Unknown(
                UnknownReason::NoSpuriousTransition,
            )));
        }
        if constrain::apply(&mut abs.bp, &pass.constraints) == 0 {
            return Ok(self.raise_or(UnknownReason::ConstraintsDoNotApply, it));
        }
        for c in pass.constraints {
            if !self.constraints.contains(&c) {
                self.constraints.push(c);
            }
        }
        abs.reprint()?;
        abs.alternation += 1;
        Ok(Round::Constrained)
    }
}

/// The cube and enforce lengths one literal more precise than `cube_len` (`None`: unbounded)
/// and `enforce_len`, each at most `max`: the enforce length first (unless it is 0), up to one
/// more than the cube length, then the cube length. `None` when no step is left. The enforce search runs
/// once per procedure, the cube search once per statement and predicate, so a longer enforce
/// length is the cheaper step (on the loop suite's `two_vars`, enforce length 4 with cubes of
/// 3 took a third of c2bp's time with cubes of 4).
fn raised(
    cube_len: Option<usize>,
    enforce_len: usize,
    max: usize,
) -> Option<(Option<usize>, usize)> {
    let cube = cube_len.unwrap_or(usize::MAX);
    // An enforce length of 0 turns `enforce` off: that stays the user's choice.
    if enforce_len > 0 && enforce_len < cube.saturating_add(1).min(max) {
        Some((cube_len, enforce_len + 1))
    } else if cube < max {
        Some((Some(cube + 1), enforce_len))
    } else {
        None
    }
}

/// Records `source` for every predicate of `set` not recorded yet.
fn note_sources(
    sources: &mut BTreeMap<(String, String), String>,
    set: &PredicateSet,
    source: &str,
) {
    for (func, p) in set.sections() {
        sources
            .entry((func.unwrap_or("global").to_string(), p.text.clone()))
            .or_insert_with(|| source.into());
    }
}

/// bebop's options for the abstractions of the loop: FORCE's orders remembered across them
/// (the abstractions of a run share most of their statements), the trace budget's floor
/// [`TRACE_BUDGET_FLOOR`].
fn bebop_options(abs: &Abstraction) -> bebop::Options {
    bebop::Options {
        program_name: abs.file("bp"),
        remember_orders: true,
        trace_budget: bebop::TraceBudget::Scaled {
            floor: TRACE_BUDGET_FLOOR,
        },
        ..bebop::Options::default()
    }
}

/// The source recorded for the predicates [`cir::pred::constant_siblings`] adds.
const SIBLINGS: &str = "siblings";

/// The key of an abstract path for recurrence: its C edges (an assume edge fixes the branch).
fn path_key(path: &[CStep]) -> Vec<(EdgeId, u32)> {
    path.iter().map(|s| (s.edge, s.depth)).collect()
}

#[cfg(test)]
mod tests {
    use super::raised;

    #[test]
    fn raises_go_one_literal_at_a_time_enforce_first() {
        let mut at = (Some(3), 2);
        let mut steps = Vec::new();
        while let Some(next) = raised(at.0, at.1, 5) {
            steps.push(next);
            at = next;
        }
        assert_eq!(
            steps,
            [
                (Some(3), 3),
                (Some(3), 4),
                (Some(4), 4),
                (Some(4), 5),
                (Some(5), 5)
            ]
        );
        // Unbounded cubes: only the enforce length grows.
        assert_eq!(raised(None, 2, 5), Some((None, 3)));
        assert_eq!(raised(None, 5, 5), None);
        // A cube length beyond the cap: only the enforce length grows, to the cap.
        assert_eq!(raised(Some(6), 2, 5), Some((Some(6), 3)));
        assert_eq!(raised(Some(6), 5, 5), None);
        // A cap of 0: no raise. Enforce off: only the cube length grows.
        assert_eq!(raised(Some(3), 2, 0), None);
        assert_eq!(raised(Some(3), 0, 5), Some((Some(4), 0)));
    }
}
