//! What a run measured: one [`Iteration`] record per round of the loop (with its typed
//! [`IterationOutcome`], and the breakdown of its phases: [`C2bpPhase`] per procedure,
//! [`BebopPhase`]), the [`RunResult`], and their two renderings: the `--stats-json` document
//! (`slam-run-stats/2`, [`StatsJson`]) and the `summary:` line printed after the verdict.
//!
//! The doc comments of the serialised structs are the document's schema. Times are measured
//! twice: wall-clock seconds (`*_seconds`) and the CPU seconds of the whole process while the
//! phase ran (`*_cpu_seconds`: every thread, c2bp's parallel translation included; meaningful
//! when the process runs one loop, as the `slam-run` command does).
//!
//! A run stopped by a limit while the loop's thread is inside a stage still reports what was
//! completed: the loop announces every stage ([`crate::Progress`]) with the records so far, a
//! [`Journal`] keeps the latest, and [`Journal::cut`] makes the run's result from them, with
//! the phase that was cut ([`RunResult::stopped_in`]).

use std::fmt;
use std::time::Instant;

use cir::pred::PredicateSet;
use serde::Serialize;

use crate::verdict::{UnknownReason, Verdict};

/// The format tag of the `--stats-json` document.
pub const STATS_FORMAT: &str = "slam-run-stats/2";

/// A stage of the loop. Written into `--stats-json` as its [`Display`](fmt::Display) text.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Phase {
    /// Before the first abstraction: the error guards, the points-to analysis (`setup`).
    #[default]
    Setup,
    /// Abstraction (`c2bp`).
    C2bp,
    /// Model checking of the Boolean program (`bebop`).
    Bebop,
    /// Replay of the trace on the C program (`newton`).
    Newton,
    /// Das–Dill refinement at NDF (`constrain`).
    Constrain,
}

impl Phase {
    /// The phase's name.
    pub fn as_str(self) -> &'static str {
        match self {
            Phase::Setup => "setup",
            Phase::C2bp => "c2bp",
            Phase::Bebop => "bebop",
            Phase::Newton => "newton",
            Phase::Constrain => "constrain",
        }
    }
}

impl fmt::Display for Phase {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl Serialize for Phase {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

/// How a round ended, as far as newton got (`safe` when bebop proved the abstraction). Written
/// into `--stats-json` as its [`Display`](fmt::Display) text.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum IterationOutcome {
    /// The round stopped (a limit) before an answer: the empty string.
    #[default]
    Unfinished,
    /// Bebop proved the abstraction safe: `safe`.
    Safe,
    /// Newton replayed the trace to the error: `feasible`.
    Feasible,
    /// Newton proved the trace infeasible: `infeasible`.
    Infeasible,
    /// Newton could not decide: `unknown`.
    Unknown,
}

impl IterationOutcome {
    /// The text of the outcome in `--stats-json`.
    pub fn as_str(self) -> &'static str {
        match self {
            IterationOutcome::Unfinished => "",
            IterationOutcome::Safe => "safe",
            IterationOutcome::Feasible => "feasible",
            IterationOutcome::Infeasible => "infeasible",
            IterationOutcome::Unknown => "unknown",
        }
    }
}

impl fmt::Display for IterationOutcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl Serialize for IterationOutcome {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

/// What one round of the loop did and cost: an iteration's abstraction and first check, or a
/// constrain alternation on that abstraction (`alternation` > 0). A round a limit cut has the
/// outcome `""` and the measurements of the phases it completed.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Iteration {
    /// The iteration, from 0.
    pub index: usize,
    /// Bebop–constrain alternation within the iteration (0: the abstraction c2bp wrote).
    pub alternation: usize,
    /// Predicates abstracted with.
    pub predicates: usize,
    /// Predicates the round added to the set (newton's new ones; 0 at NDF and in a round
    /// that ends the run).
    pub predicates_added: usize,
    /// Wall-clock seconds in c2bp (0 in a constrain alternation: no abstraction).
    pub c2bp_seconds: f64,
    /// CPU seconds of the process while c2bp ran.
    pub c2bp_cpu_seconds: f64,
    /// Wall-clock seconds in bebop.
    pub bebop_seconds: f64,
    /// CPU seconds of the process while bebop ran.
    pub bebop_cpu_seconds: f64,
    /// Wall-clock seconds in newton.
    pub newton_seconds: f64,
    /// CPU seconds of the process while newton ran.
    pub newton_cpu_seconds: f64,
    /// Wall-clock seconds in constrain.
    pub constrain_seconds: f64,
    /// CPU seconds of the process while constrain ran.
    pub constrain_cpu_seconds: f64,
    /// c2bp's prover queries.
    pub prover_queries: u64,
    /// c2bp's breakdown (`null` when c2bp did not run in this round).
    pub c2bp: Option<C2bpPhase>,
    /// Bebop's measurements (`null` when bebop did not finish in this round).
    pub bebop: Option<BebopPhase>,
    /// Length of the abstract counterexample in C edges (0: safe).
    pub path_len: usize,
    /// Newton's answer (`safe` when bebop proved the abstraction; `infeasible`: newton refuted
    /// the trace).
    pub outcome: IterationOutcome,
    /// Predicates newton proposed (none already present).
    pub new_predicates: usize,
    /// Whether newton found no difference (NDF) in this round.
    pub ndf: bool,
    /// Whether constrain ran (after this round's newton found no difference).
    pub constrained: bool,
    /// Constraints constrain found.
    pub constraints: usize,
    /// Peak resident memory of the process so far, in MiB, when the round ended.
    pub peak_rss_mib: f64,
    /// Whether the round's abstraction was bit-precise (`--precision`; the round that
    /// switches precision is an integer one).
    pub bitvector: bool,
    /// Set on the round whose path made the run switch from integer to bit-precise
    /// reasoning (`--precision auto`): newton's reason for leaving the path undecided in
    /// integer mode, which the bit-precise re-check decided. `null` otherwise.
    pub precision_switch: Option<String>,
    /// Set on the round after which the loop raised the abstraction's cube lengths
    /// (`--max-cube-len`): the lengths the next iteration abstracts with, and why the run
    /// would have ended otherwise. `null` otherwise.
    pub cube_raise: Option<CubeRaise>,
    /// The predicates this round added, each with the refiner that proposed it.
    pub added: Vec<AddedPredicate>,
    /// What the Horn refiner did on this round's trace, when it ran.
    pub horn: Option<newton::HornSummary>,
    /// Whether this round's predicates continued a divergent chain (module `divergence`).
    pub divergence: bool,
    /// The concrete-execution falsifier's calls in this round (module `falsify`).
    pub falsify: Vec<FalsifyRun>,
    /// The traces whose refutations gave this round's predicates, in the order refined: the
    /// abstraction's error trace, then those found with the edges refuted before them blocked
    /// (`--traces-per-iteration`). Empty in a round that added no predicates.
    pub traces: Vec<RefinedTrace>,
    /// Why the search for more traces of this abstraction ended (`""`: there was none).
    pub traces_end: TracesEnd,
}

/// A raise of the abstraction's cube lengths: refinement made no difference and constrain
/// could not help, so the next iteration abstracts the same predicates more precisely.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct CubeRaise {
    /// The new maximum cube length (`null`: unbounded, as before).
    pub cube_len: Option<usize>,
    /// The new maximum length of the inconsistent cubes `enforce` excludes.
    pub enforce_len: usize,
    /// The `UNKNOWN` reason the run would have ended with (its text in `--stats-json`).
    #[serde(serialize_with = "as_text")]
    pub reason: UnknownReason,
}

/// Serialises a value as its [`Display`](std::fmt::Display) text.
fn as_text<T: std::fmt::Display, S: serde::Serializer>(v: &T, s: S) -> Result<S::Ok, S::Error> {
    s.collect_str(v)
}

/// What made the loop call the falsifier.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Trigger {
    /// The trace passes a loop head of an activation twice.
    LoopRevisit,
    /// The divergence detector fired.
    Divergence,
    /// The Horn refiner found the path program unsafe without a replayable path, or Spacer
    /// answered unknown.
    Horn,
    /// The loop is about to answer UNKNOWN.
    GiveUp,
}

/// How the falsifier's call ended.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum FalsifyOutcome {
    /// A run reached the error and its path replayed: a counterexample.
    Counterexample,
    /// The budget was spent without reaching the error.
    Budget,
    /// Every run ended without the error and no other inputs are tried (the program draws no
    /// value from the random oracle).
    Exhausted,
    /// The deadline passed.
    Timeout,
    /// A run reached the error after this many steps, more than
    /// `falsify::MAX_COUNTEREXAMPLE_STEPS`: too long to report.
    TooLong(u64),
    /// A run reached the error but its replay failed (an internal inconsistency; the
    /// verdict does not come from it).
    ReplayFailed(String),
}

/// One call of the falsifier, in `--stats-json` (each round's `falsify`).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FalsifyRun {
    /// What made the loop call it.
    pub trigger: Trigger,
    /// Its step budget.
    pub budget: u64,
    /// Steps of the concrete interpreter it took (over all its runs).
    pub steps: u64,
    /// Concrete runs it started.
    pub runs: usize,
    /// How it ended.
    pub outcome: FalsifyOutcome,
    /// Wall-clock seconds.
    pub seconds: f64,
}

/// A trace refined in a round, in `--stats-json`.
#[derive(Debug, Clone, Default, Serialize)]
pub struct RefinedTrace {
    /// Its length in C edges.
    pub path_len: usize,
    /// C edges blocked in the Boolean program when bebop found it (0: the abstraction's own
    /// trace).
    pub blocked: usize,
    /// Predicates newton proposed for it (none in the set when it was refined).
    pub new_predicates: usize,
    /// Predicates it added to the set.
    pub predicates_added: usize,
    /// What the Horn refiner did on it, when it ran on a further trace (the first trace's is
    /// the round's `horn`).
    pub horn: Option<newton::HornSummary>,
}

/// Why the search for more error traces of one abstraction ended. Written into `--stats-json`
/// as its [`Display`](fmt::Display) text.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum TracesEnd {
    /// No search: one trace per iteration, or the round added no predicates (`""`).
    #[default]
    None,
    /// `--traces-per-iteration` traces were refined: `limit`.
    Limit,
    /// The program with the refuted edges blocked is safe: `safe`.
    Safe,
    /// The extra checks and refinements cost more than the round's abstraction, check and
    /// first refinement together: `cost`.
    Cost,
    /// The last refuted edge has no `assume` to block (no other trace can be told apart):
    /// `unblockable`.
    Unblockable,
    /// Newton left a further trace undecided (it is ignored): `unknown`.
    Unknown,
    /// A further trace replayed to the error: the run ends FALSE: `feasible`.
    Feasible,
    /// The deadline passed: `deadline`.
    Deadline,
}

impl TracesEnd {
    /// The text in `--stats-json`.
    pub fn as_str(self) -> &'static str {
        match self {
            TracesEnd::None => "",
            TracesEnd::Limit => "limit",
            TracesEnd::Safe => "safe",
            TracesEnd::Cost => "cost",
            TracesEnd::Unblockable => "unblockable",
            TracesEnd::Unknown => "unknown",
            TracesEnd::Feasible => "feasible",
            TracesEnd::Deadline => "deadline",
        }
    }
}

impl fmt::Display for TracesEnd {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl Serialize for TracesEnd {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

/// A predicate added by a refinement, in `--stats-json`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct AddedPredicate {
    /// `global` or the function's name.
    pub scope: String,
    /// The predicate's text.
    pub predicate: String,
    /// `wp` (newton's weakest preconditions), `horn` (a path program's invariant), `siblings`
    /// (the same state test or bound at the other constants, `--sibling-predicates`), or for
    /// the predicates the run starts from `initial` (`--preds`) and `guard` (the error's
    /// guards).
    pub source: String,
}

impl Iteration {
    /// What the Horn refiner did in this round: on its trace, then on the further traces
    /// (calls its back-off skipped included, outcome [`newton::HornResult::Skipped`]).
    pub fn horn_runs(&self) -> impl Iterator<Item = &newton::HornSummary> {
        self.horn
            .iter()
            .chain(self.traces.iter().filter_map(|t| t.horn.as_ref()))
    }

    /// The record of alternation `alternation` of iteration `index`, abstracted with
    /// `predicates` predicates.
    pub fn new(index: usize, predicates: usize, alternation: usize, bitvector: bool) -> Iteration {
        Iteration {
            index,
            predicates,
            alternation,
            bitvector,
            ..Iteration::default()
        }
    }
}

/// c2bp's part of a round: the prover's counters, the global `enforce` search, and a record
/// per procedure.
#[derive(Debug, Clone, Default, Serialize)]
pub struct C2bpPhase {
    /// Queries sent to Z3.
    pub solver_calls: u64,
    /// Queries answered from the prover's cache.
    pub cache_hits: u64,
    /// Z3 answers `unknown` (each an imprecision: `*`).
    pub unknowns: u64,
    /// Wall-clock seconds of the search for the inconsistent cubes over global predicates.
    pub global_enforce_seconds: f64,
    /// That search stopped at its query budget.
    pub global_enforce_capped: bool,
    /// Edges whose statements were reused from the previous abstraction.
    pub statements_reused: u64,
    /// Edges abstracted again.
    pub statements_abstracted: u64,
    /// Of those, edges whose searches stopped at their budget or met an `unknown` (not kept
    /// for reuse).
    pub statements_budget_stopped: u64,
    /// Cubes the abstraction's transitions are written with (Cartesian updates and assumes,
    /// exact relations' clauses), over every procedure.
    pub cubes: u64,
    /// With the exact abstraction: statements whose relation stopped short, over every
    /// procedure.
    pub exact_capped: u64,
    /// Per procedure, in program order.
    pub procedures: Vec<C2bpProcedure>,
}

/// c2bp on one procedure.
#[derive(Debug, Clone, Default, Serialize)]
pub struct C2bpProcedure {
    /// The C function.
    pub name: String,
    /// Wall-clock seconds of its translation (0 when its text was reused).
    pub seconds: f64,
    /// Solver queries its translation asked.
    pub queries: u64,
    /// Cube searches answered from the procedure's own memo (this abstraction).
    pub memo_hits: u64,
    /// Cube searches answered from earlier abstractions.
    pub prior_hits: u64,
    /// Cube searches seeded by an earlier abstraction's answer over fewer atoms.
    pub seeded: u64,
    /// Cube searches stopped by the query limit (more `*`).
    pub capped: u64,
    /// With the exact abstraction: statements whose relation stopped short (kept Cartesian
    /// besides its clauses).
    pub exact_capped: u64,
    /// Cubes its transitions are written with.
    pub cubes: u64,
    /// The text is the previous abstraction's: nothing was searched.
    pub reused: bool,
    /// Edges whose statements were reused from the previous abstraction.
    pub statements_reused: u64,
    /// Edges abstracted again.
    pub statements_abstracted: u64,
    /// Predicate updates emitted.
    pub updates: u64,
    /// Of which `*`.
    pub star_updates: u64,
}

impl C2bpPhase {
    /// The breakdown of c2bp's output.
    pub fn of(out: &c2bp::Output) -> C2bpPhase {
        C2bpPhase {
            solver_calls: out.prover.solver_calls,
            cache_hits: out.prover.cache_hits,
            unknowns: out.prover.unknowns,
            global_enforce_seconds: out.global_seconds,
            global_enforce_capped: out.global_capped,
            statements_reused: out.procs.iter().map(|p| p.stmts.reused).sum(),
            statements_abstracted: out.procs.iter().map(|p| p.stmts.translated).sum(),
            statements_budget_stopped: out.procs.iter().map(|p| p.stmts.not_kept).sum(),
            cubes: out.procs.iter().map(|p| p.cubes).sum(),
            exact_capped: out.procs.iter().map(|p| p.exact_capped).sum(),
            procedures: out
                .procs
                .iter()
                .map(|p| C2bpProcedure {
                    name: p.name.clone(),
                    seconds: p.seconds,
                    queries: p.queries,
                    memo_hits: p.memo_hits,
                    prior_hits: p.prior_hits,
                    seeded: p.seeded,
                    capped: p.capped,
                    exact_capped: p.exact_capped,
                    cubes: p.cubes,
                    reused: p.reused,
                    statements_reused: p.stmts.reused,
                    statements_abstracted: p.stmts.translated,
                    updates: p.updates,
                    star_updates: p.star_updates,
                })
                .collect(),
        }
    }
}

/// Bebop's part of a round (what `bebop --stats` prints).
#[derive(Debug, Clone, Default, Serialize)]
pub struct BebopPhase {
    /// Procedures of the Boolean program.
    pub procedures: usize,
    /// Statements.
    pub statements: usize,
    /// BDD variables allocated.
    pub bdd_vars: usize,
    /// The largest path-edge or summary BDD stored, in nodes.
    pub largest_bdd: usize,
    /// The largest sum of the sizes of all stored path-edge and call-relation BDDs, in nodes.
    pub peak_live_nodes: usize,
    /// That sum at the end.
    pub final_live_nodes: usize,
    /// Worklist iterations: (node, new states) pairs processed.
    pub worklist_iterations: u64,
    /// Seconds to build the control-flow graph and the transfer relations.
    pub lower_seconds: f64,
    /// Seconds of the reachability analysis.
    pub reach_seconds: f64,
    /// Seconds to extract (and check) the trace.
    pub trace_seconds: f64,
    /// Whether the trace (if any) is shortest in Bebop's sense.
    pub trace_shortest: bool,
}

impl From<&bebop::Stats> for BebopPhase {
    fn from(s: &bebop::Stats) -> BebopPhase {
        BebopPhase {
            procedures: s.procedures,
            statements: s.statements,
            bdd_vars: s.bdd_vars,
            largest_bdd: s.largest_bdd,
            peak_live_nodes: s.peak_live_nodes,
            final_live_nodes: s.final_live_nodes,
            worklist_iterations: s.iterations,
            lower_seconds: s.lower_time.as_secs_f64(),
            reach_seconds: s.reach_time.as_secs_f64(),
            trace_seconds: s.trace_time.as_secs_f64(),
            trace_shortest: s.trace_shortest,
        }
    }
}

/// The process's resource use so far (`getrusage`): user + system CPU seconds of all its
/// threads, and its peak resident memory in MiB.
pub fn process_usage() -> (f64, f64) {
    // SAFETY: a zeroed rusage is a valid value of this plain C struct, and getrusage only
    // writes into it.
    let mut u: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: RUSAGE_SELF with a pointer to a live local.
    if unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut u) } != 0 {
        return (0.0, 0.0);
    }
    let tv = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 / 1e6;
    // Linux reports `ru_maxrss` in KiB.
    (tv(u.ru_utime) + tv(u.ru_stime), u.ru_maxrss as f64 / 1024.0)
}

/// The wall-clock and process CPU time of one phase.
#[derive(Debug, Clone, Copy)]
pub struct Stopwatch {
    wall: Instant,
    cpu: f64,
}

impl Stopwatch {
    /// Starts measuring.
    pub fn start() -> Stopwatch {
        Stopwatch {
            wall: Instant::now(),
            cpu: process_usage().0,
        }
    }

    /// Wall-clock and CPU seconds since the start.
    pub fn stop(&self) -> (f64, f64) {
        (
            self.wall.elapsed().as_secs_f64(),
            (process_usage().0 - self.cpu).max(0.0),
        )
    }
}

/// The result of a run.
#[derive(Debug, Clone)]
pub struct RunResult {
    /// The verdict.
    pub verdict: Verdict,
    /// Every round, in order.
    pub iterations: Vec<Iteration>,
    /// The predicates at the end.
    pub predicates: PredicateSet,
    /// The constraints constrain added (re-applied to every later abstraction).
    pub constraints: Vec<constrain::Constraint>,
    /// Wall-clock seconds (including parsing).
    pub seconds: f64,
    /// On TRUE, the Boolean program bebop proved safe (constraints applied).
    pub abstraction: Option<String>,
    /// Where each predicate of [`RunResult::predicates`] comes from.
    pub sources: Vec<AddedPredicate>,
    /// When a limit stopped the run: the phase that was running (or, when the loop stopped
    /// itself between phases, the last one started).
    pub stopped_in: Option<Phase>,
}

/// Statistics as JSON (`--stats-json`); the totals are over every round in `iterations`.
#[derive(Debug, Serialize)]
pub struct StatsJson<'a> {
    /// `slam-run-stats/2`.
    pub format: &'static str,
    /// The C file.
    pub file: String,
    /// The verdict line.
    pub verdict: String,
    /// The phase a limit stopped the run in (`setup`, `c2bp`, `bebop`, `newton`,
    /// `constrain`); `null` when the run was not stopped by a limit.
    pub stopped_in: Option<Phase>,
    /// Every round of the loop, the one a limit cut included (its outcome `""`).
    pub iterations: &'a [Iteration],
    /// Final predicate count.
    pub predicates: usize,
    /// Final predicates (predicate-file text).
    pub predicates_file: String,
    /// Where each final predicate comes from (`initial`, `guard`, `wp`, `horn`).
    pub predicate_sources: &'a [AddedPredicate],
    /// Calls of the Horn refiner that ran (on a round's trace or a further trace).
    pub horn_calls: usize,
    /// Calls of the Horn refiner skipped by its back-off after failures on path programs of
    /// the same loop heads (each recorded with outcome `skipped` and the reason).
    pub horn_skipped: usize,
    /// Seconds in the Horn refiner (included in `newton_seconds`).
    pub horn_seconds: f64,
    /// Wall-clock seconds in c2bp.
    pub c2bp_seconds: f64,
    /// CPU seconds while c2bp ran.
    pub c2bp_cpu_seconds: f64,
    /// Wall-clock seconds in bebop.
    pub bebop_seconds: f64,
    /// CPU seconds while bebop ran.
    pub bebop_cpu_seconds: f64,
    /// Wall-clock seconds in newton.
    pub newton_seconds: f64,
    /// CPU seconds while newton ran.
    pub newton_cpu_seconds: f64,
    /// Wall-clock seconds in constrain.
    pub constrain_seconds: f64,
    /// CPU seconds while constrain ran.
    pub constrain_cpu_seconds: f64,
    /// Calls of constrain (the Constrain paper's Fig. 5).
    pub constrain_calls: usize,
    /// Constraints generated.
    pub constraints: usize,
    /// Rounds in which newton found no difference (NDF).
    pub ndf: usize,
    /// c2bp's prover queries over all iterations.
    pub prover_queries: u64,
    /// Wall-clock seconds of the run.
    pub seconds: f64,
    /// CPU seconds of the process (parsing and lowering included) when the document was
    /// written.
    pub cpu_seconds: f64,
    /// Peak resident memory of the process in MiB (`getrusage`) when the document was written.
    pub peak_rss_mib: f64,
    /// The counterexample of a FALSE verdict.
    pub counterexample: Option<&'a newton::Counterexample>,
    /// The precision the run reasoned in, and when and why it changed.
    pub precision: PrecisionJson<'a>,
}

/// The precision of a run in `--stats-json`.
#[derive(Debug, Serialize)]
pub struct PrecisionJson<'a> {
    /// `int` or `bv`: the semantics of the first round.
    pub start: &'static str,
    /// `int` or `bv`: the semantics of the run's end (`bv` after a switch).
    pub end: &'static str,
    /// The iteration whose path made the run switch to `bv` (`null`: no switch).
    pub changed_at: Option<usize>,
    /// Why (newton's reason for leaving that path undecided in integer mode).
    pub reason: Option<&'a str>,
}

/// `int` or `bv`.
fn mode(bitvector: bool) -> &'static str {
    if bitvector { "bv" } else { "int" }
}

impl RunResult {
    /// The round at which the run switched to bit-precise reasoning: its iteration and why.
    pub fn precision_change(&self) -> Option<(usize, &str)> {
        self.iterations
            .iter()
            .find_map(|i| i.precision_switch.as_deref().map(|r| (i.index, r)))
    }

    /// The raises of the cube lengths, each with the iteration after which it happened.
    pub fn cube_raises(&self) -> impl Iterator<Item = (usize, &CubeRaise)> {
        self.iterations
            .iter()
            .filter_map(|i| i.cube_raise.as_ref().map(|r| (i.index, r)))
    }

    /// The Horn refiner's records over all iterations whose outcome satisfies `which`.
    fn horn_count(&self, which: fn(newton::HornResult) -> bool) -> usize {
        self.iterations
            .iter()
            .flat_map(Iteration::horn_runs)
            .filter(|h| which(h.outcome))
            .count()
    }

    /// Seconds spent in one stage over all iterations.
    fn stage_seconds(&self, stage: fn(&Iteration) -> f64) -> f64 {
        self.iterations.iter().map(stage).sum()
    }

    /// The `--stats-json` document.
    pub fn stats_json(&self, file: &str) -> String {
        let (cpu_seconds, peak_rss_mib) = process_usage();
        let s = StatsJson {
            format: STATS_FORMAT,
            file: file.to_string(),
            verdict: self.verdict.line(),
            stopped_in: self.stopped_in,
            iterations: &self.iterations,
            predicates: self.predicates.len(),
            predicates_file: cir::pred::predicate_file_text(&self.predicates),
            predicate_sources: &self.sources,
            horn_calls: self.horn_count(|o| o != newton::HornResult::Skipped),
            horn_skipped: self.horn_count(|o| o == newton::HornResult::Skipped),
            horn_seconds: self
                .iterations
                .iter()
                .flat_map(Iteration::horn_runs)
                .map(|h| h.seconds)
                .sum(),
            c2bp_seconds: self.stage_seconds(|i| i.c2bp_seconds),
            c2bp_cpu_seconds: self.stage_seconds(|i| i.c2bp_cpu_seconds),
            bebop_seconds: self.stage_seconds(|i| i.bebop_seconds),
            bebop_cpu_seconds: self.stage_seconds(|i| i.bebop_cpu_seconds),
            newton_seconds: self.stage_seconds(|i| i.newton_seconds),
            newton_cpu_seconds: self.stage_seconds(|i| i.newton_cpu_seconds),
            constrain_seconds: self.stage_seconds(|i| i.constrain_seconds),
            constrain_cpu_seconds: self.stage_seconds(|i| i.constrain_cpu_seconds),
            constrain_calls: self.constrain_calls(),
            constraints: self.iterations.iter().map(|i| i.constraints).sum(),
            ndf: self.iterations.iter().filter(|i| i.ndf).count(),
            prover_queries: self.iterations.iter().map(|i| i.prover_queries).sum(),
            seconds: self.seconds,
            cpu_seconds,
            peak_rss_mib,
            counterexample: match &self.verdict {
                Verdict::False(c) => Some(c),
                _ => None,
            },
            precision: PrecisionJson {
                start: mode(self.iterations.first().is_some_and(|i| i.bitvector)),
                end: mode(
                    self.precision_change().is_some()
                        || self.iterations.last().is_some_and(|i| i.bitvector),
                ),
                changed_at: self.precision_change().map(|c| c.0),
                reason: self.precision_change().map(|c| c.1),
            },
        };
        serde_json::to_string_pretty(&s).unwrap_or_default()
    }

    /// Calls of constrain.
    pub fn constrain_calls(&self) -> usize {
        self.iterations.iter().filter(|i| i.constrained).count()
    }

    /// The summary printed after the verdict (with the phase a limit cut, if any).
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
        if let Some((at, _)) = self.precision_change() {
            s.push_str(&format!(" precision=int→bv@{at}"));
        }
        for (at, r) in self.cube_raises() {
            s.push_str(&format!(
                " cube-len={}/{}@{}",
                c2bp::CubeLen(r.cube_len),
                r.enforce_len,
                at + 1
            ));
        }
        if let Some(p) = self.stopped_in {
            s.push_str(&format!(" stopped-in={p}"));
        }
        s
    }
}

/// What the loop has done so far, as its progress reports tell: the completed rounds, the
/// round in progress with the phases it completed, the phase running, the predicates (module
/// doc).
#[derive(Debug, Default)]
pub struct Journal {
    done: Vec<Iteration>,
    current: Option<Iteration>,
    phase: Phase,
    preds: PredicateSet,
}

impl Journal {
    /// Takes in a progress report: `phase` starts; `done` are the completed rounds (a list
    /// that only grows), `current` the round in progress, `preds` the predicate set.
    pub fn observe(
        &mut self,
        done: &[Iteration],
        current: &Iteration,
        preds: &PredicateSet,
        phase: Phase,
    ) {
        if let Some(new) = done.get(self.done.len()..) {
            self.done.extend(new.iter().cloned());
        }
        self.current = Some(current.clone());
        self.phase = phase;
        if preds.len() != self.preds.len() {
            self.preds = preds.clone();
        }
    }

    /// The phase running (the last one announced).
    pub fn phase(&self) -> Phase {
        self.phase
    }

    /// The result of a run stopped by a limit now: `UNKNOWN (timeout)`, the completed rounds
    /// and the one in progress (outcome `""`, the measurements of its completed phases, the
    /// peak memory now), after `seconds` of wall-clock time.
    pub fn cut(&self, seconds: f64) -> RunResult {
        let mut iterations = self.done.clone();
        if let Some(c) = &self.current {
            let mut c = c.clone();
            c.peak_rss_mib = process_usage().1;
            iterations.push(c);
        }
        RunResult {
            verdict: Verdict::Unknown(UnknownReason::Timeout),
            iterations,
            predicates: self.preds.clone(),
            constraints: Vec::new(),
            seconds,
            abstraction: None,
            sources: Vec::new(),
            stopped_in: Some(self.phase),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn outcomes_and_phases_serialise_as_their_text() {
        for o in [
            IterationOutcome::Unfinished,
            IterationOutcome::Safe,
            IterationOutcome::Feasible,
            IterationOutcome::Infeasible,
            IterationOutcome::Unknown,
        ] {
            let json = serde_json::to_string(&o).expect("serialises");
            assert_eq!(json, format!("\"{o}\""));
        }
        assert_eq!(IterationOutcome::default().to_string(), "");
        for p in [
            Phase::Setup,
            Phase::C2bp,
            Phase::Bebop,
            Phase::Newton,
            Phase::Constrain,
        ] {
            assert_eq!(serde_json::to_string(&p).unwrap(), format!("\"{p}\""));
        }
    }

    #[test]
    fn a_journal_keeps_the_completed_rounds_and_the_one_in_progress() {
        let mut j = Journal::default();
        assert_eq!(j.cut(0.1).stopped_in, Some(Phase::Setup));
        assert!(j.cut(0.1).iterations.is_empty());
        let preds = PredicateSet::default();
        let mut first = Iteration::new(0, 2, 0, false);
        j.observe(&[], &first, &preds, Phase::C2bp);
        first.c2bp_seconds = 0.5;
        j.observe(&[], &first, &preds, Phase::Bebop);
        first.bebop_seconds = 0.25;
        first.outcome = IterationOutcome::Infeasible;
        let done = vec![first];
        let second = Iteration::new(1, 3, 0, false);
        j.observe(&done, &second, &preds, Phase::C2bp);
        let mut second = second;
        second.c2bp_seconds = 0.75;
        j.observe(&done, &second, &preds, Phase::Bebop);
        let r = j.cut(2.0);
        assert_eq!(r.stopped_in, Some(Phase::Bebop));
        assert_eq!(r.iterations.len(), 2, "one completed round, one cut");
        assert_eq!(r.iterations[0].outcome, IterationOutcome::Infeasible);
        assert_eq!(r.iterations[0].bebop_seconds, 0.25);
        assert_eq!(r.iterations[1].outcome, IterationOutcome::Unfinished);
        assert_eq!(r.iterations[1].c2bp_seconds, 0.75);
        assert!(r.iterations[1].peak_rss_mib > 0.0);
        let doc: serde_json::Value = serde_json::from_str(&r.stats_json("p.c")).unwrap();
        assert_eq!(doc["format"], STATS_FORMAT);
        assert_eq!(doc["verdict"], "UNKNOWN (timeout)");
        assert_eq!(doc["stopped_in"], "bebop");
        assert_eq!(doc["c2bp_seconds"], 1.25);
        assert!(
            r.summary().ends_with(" stopped-in=bebop"),
            "{}",
            r.summary()
        );
    }
}
