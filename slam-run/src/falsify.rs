//! The bounded concrete-execution falsifier: runs the program on the concrete interpreter
//! ([`cir::interp::Interp::step`]) from `main` with a deterministic [`Oracle`], for a bounded
//! number of steps, and when a run reaches the error, replays its path with the values it
//! drew ([`newton::replay::replay_drawn`]) into the same [`newton::Counterexample`] as any
//! other FALSE verdict.
//!
//! Why: a bug behind many loop iterations is a plain concrete run, but the refinement loop
//! refines one iteration at a time (weakest preconditions, as the divergence the Lazy
//! Abstraction paper, §7, describes) and Spacer cannot derive an error that deep within its
//! resource limit. So the loop calls the falsifier when a trace goes round a loop
//! ([`Trigger`]): the trace passes a loop head twice, the predicates diverge, the path
//! program's Horn solver fails, or the loop is about to give up. Each call gets a step budget
//! four times the previous one, within a total per run ([`FalsifyOptions`]): the cost stays
//! bounded on programs that are safe, and grows with the evidence of a deep loop. A call a
//! round triggers is capped ([`FalsifyOptions::max_call_steps`]) and such calls together have
//! a share of the total ([`FalsifyOptions::triggered_steps`]): a trigger fires on most traces
//! of a program whose every trace goes round a loop — a `while (1) switch (state)` machine —
//! safe or not, and budgets growing without a cap spend most of the total in a few rounds of a
//! program that is safe. An error the capped calls do not reach is still the give-up call's,
//! which gets all that is left of the total when the loop has nothing else left. The caps are
//! small (2^18 steps a call, 2^20 together): on the ssh state machines, larger triggered calls
//! were a fifth of all the CPU time and found nothing, and on the SV-COMP loop sets no verdict
//! depends on them (one counterexample comes eight iterations later).
//!
//! The oracle: the first run draws every value 0 (the smallest values matter most: a loop
//! counter that starts at 0, a nondet value whose 0 takes the error branch); when that run
//! ends without the error (exit, blocked, undefined behaviour), later runs draw the results of
//! `__VERIFIER_nondet_*` calls and the initial values of uninitialised locals (scalars and
//! one-dimensional arrays of integers: all elements 0, all one value, each its own, or one
//! value with zeros scattered) from
//! [`SplitMix64`] (small values, the type's bounds, or any value of the range), a new seed
//! per run. Every other value (havocs, results of other functions without a body, unmodelled
//! initialisers, allocated contents) is 0 and the first enabled edge is taken: exactly the
//! values a violation witness's replay gives them, so the witness of the counterexample
//! validates. Deterministic: steps, not seconds, bound the runs (the deadline is checked every
//! [`DEADLINE_EVERY`] steps only to honour `--timeout`).
//!
//! A run that ends in undefined behaviour, an unsupported construct, `exit`, a blocked
//! assumption or its budget is not a counterexample: the interpreter stops at undefined
//! behaviour, so an error reached is reached by a defined execution. Every run costs at least
//! one step of the budget, and a run that stops before its first step (`main`'s frame holds
//! an object the interpreter does not model) ends this call and every later one: no draw
//! changes that.

use std::time::Instant;

use bp_c::trace::CStep;
use bp_testkit::prng::SplitMix64;
use cir::Program;
use cir::interp::{End, Event, Interp, Oracle};
use cir::ir::{Callee, EdgeKind, VarId};
use newton::replay::Drawn;

use crate::stats::{FalsifyOutcome, FalsifyRun, Iteration, IterationOutcome, Trigger};
use crate::verdict::{UnknownReason, Verdict};

/// How often (in steps) a run checks the deadline.
pub const DEADLINE_EVERY: u64 = 1 << 14;

/// Whether the falsifier runs (`--falsify`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum FalsifyMode {
    /// Never.
    Off,
    /// When a trace goes round a loop ([`Trigger`]).
    #[default]
    Auto,
}

impl std::str::FromStr for FalsifyMode {
    type Err = String;
    fn from_str(s: &str) -> Result<FalsifyMode, String> {
        match s {
            "off" => Ok(FalsifyMode::Off),
            "auto" => Ok(FalsifyMode::Auto),
            _ => Err(format!("`{s}`: expected off or auto")),
        }
    }
}

/// The falsifier's options.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FalsifyOptions {
    /// Whether it runs.
    pub mode: FalsifyMode,
    /// The step budget of the first call (each later call gets four times the previous one).
    pub first_steps: u64,
    /// The most steps of one call a round triggers (the give-up call is not capped).
    pub max_call_steps: u64,
    /// The steps of all calls rounds trigger, together (within `total_steps`).
    pub triggered_steps: u64,
    /// The steps of all calls of one run together (`--falsify-steps`).
    pub total_steps: u64,
}

impl Default for FalsifyOptions {
    fn default() -> FalsifyOptions {
        FalsifyOptions {
            mode: FalsifyMode::Auto,
            first_steps: 1 << 16,
            max_call_steps: 1 << 18,
            triggered_steps: 1 << 20,
            total_steps: 1 << 24,
        }
    }
}

/// How one concrete run ended.
#[derive(Debug, Clone, PartialEq, Eq)]
enum RunEnd {
    /// The error edge was taken.
    Error,
    /// The run ended without the error (exit, halt, blocked, a fault): `why`.
    Ended(String),
    /// The step budget was spent.
    Budget,
    /// The deadline passed.
    Timeout,
}

/// The falsifier's state across one run of the loop.
#[derive(Debug)]
pub(crate) struct Falsifier {
    opts: FalsifyOptions,
    /// The run's deadline (`--timeout`).
    deadline: Option<Instant>,
    /// The next call's budget.
    next: u64,
    /// Steps spent so far.
    used: u64,
    /// Steps spent so far by calls rounds triggered.
    triggered_used: u64,
    /// Random runs made so far (the next one's seed).
    seeds: u64,
    /// The all-zero run need not run again: it ended without the error, or it reached the
    /// error without a counterexample (too long, or its replay failed).
    zero_done: bool,
    /// Some run drew a value from the random oracle (other inputs may behave differently).
    random_matters: bool,
    /// [`nondet_nodes`] of the program, computed at the first call.
    nondet: Option<Vec<Vec<bool>>>,
}

impl Falsifier {
    pub(crate) fn new(opts: FalsifyOptions, deadline: Option<Instant>) -> Falsifier {
        Falsifier {
            opts,
            deadline,
            next: opts.first_steps.max(1),
            used: 0,
            triggered_used: 0,
            seeds: 0,
            zero_done: false,
            random_matters: true,
            nondet: None,
        }
    }

    /// Before newton: a trace that passes a loop head of an activation twice (newton's
    /// Horn refiner may take long on it). FALSE with the counterexample if a run reached the
    /// error; the call recorded in `it`.
    pub(crate) fn on_trace(
        &mut self,
        prog: &Program,
        path: &[CStep],
        it: &mut Iteration,
    ) -> Option<Verdict> {
        if self.opts.mode == FalsifyMode::Off || !newton::pathprog::revisits_loop_head(prog, path) {
            return None;
        }
        self.round(prog, Trigger::LoopRevisit, it)
    }

    /// After newton refuted the trace: when the divergence detector fired this round, or the
    /// Horn refiner failed on the path program (not when its back-off skipped the call).
    pub(crate) fn on_refutation(
        &mut self,
        prog: &Program,
        r: &newton::Refutation,
        it: &mut Iteration,
    ) -> Option<Verdict> {
        let trigger = if it.divergence {
            Trigger::Divergence
        } else if r
            .horn
            .as_ref()
            .is_some_and(|h| h.outcome == newton::HornResult::Failed)
        {
            Trigger::Horn
        } else {
            return None;
        };
        self.round(prog, trigger, it)
    }

    /// The loop's verdict, or, when it is UNKNOWN for another reason than the deadline, FALSE
    /// if the falsifier with all that is left of its budget finds a counterexample (the call
    /// recorded on the last round).
    pub(crate) fn give_up(
        &mut self,
        prog: &Program,
        verdict: Verdict,
        rounds: &mut [Iteration],
    ) -> Verdict {
        let Verdict::Unknown(reason) = &verdict else {
            return verdict;
        };
        if *reason == UnknownReason::Timeout {
            return verdict;
        }
        let Some((record, cex)) = self.call(prog, Trigger::GiveUp) else {
            return verdict;
        };
        let Some(last) = rounds.last_mut() else {
            return verdict;
        };
        last.falsify.push(record);
        match cex {
            Some(cex) => {
                last.outcome = IterationOutcome::Feasible;
                Verdict::False(cex)
            }
            None => verdict,
        }
    }

    /// One call in a round, recorded in `it`.
    fn round(&mut self, prog: &Program, trigger: Trigger, it: &mut Iteration) -> Option<Verdict> {
        let (record, cex) = self.call(prog, trigger)?;
        it.falsify.push(record);
        let cex = cex?;
        it.outcome = IterationOutcome::Feasible;
        Some(Verdict::False(cex))
    }

    /// The step budget of the next call for `trigger` (0: none left): the give-up call gets
    /// all that is left of the total; a triggered one the next budget, capped per call and by
    /// what is left of the triggered share.
    fn budget(&self, trigger: Trigger) -> u64 {
        let left = self.opts.total_steps.saturating_sub(self.used);
        if trigger == Trigger::GiveUp {
            return left;
        }
        let share = self
            .opts
            .triggered_steps
            .saturating_sub(self.triggered_used);
        self.next.min(self.opts.max_call_steps).min(share).min(left)
    }

    /// Calls the falsifier for `trigger` with its budget ([`Falsifier::budget`]), if it is
    /// on and the budget is not spent: the record of the call, and the counterexample it found.
    fn call(
        &mut self,
        prog: &Program,
        trigger: Trigger,
    ) -> Option<(FalsifyRun, Option<Box<newton::Counterexample>>)> {
        let budget = self.budget(trigger);
        if self.opts.mode == FalsifyMode::Off
            || budget == 0
            || (self.zero_done && !self.random_matters)
        {
            return None;
        }
        self.next = self.next.saturating_mul(4);
        let t0 = Instant::now();
        let nondet = self.nondet.take().unwrap_or_else(|| nondet_nodes(prog));
        let res = self.runs(prog, &nondet, trigger, budget, t0);
        self.nondet = Some(nondet);
        let spent = res.0.steps;
        self.used += spent;
        if trigger != Trigger::GiveUp {
            self.triggered_used += spent;
        }
        Some(res)
    }

    /// The runs of one call within `budget` steps (see [`Falsifier::call`]).
    fn runs(
        &mut self,
        prog: &Program,
        nondet: &[Vec<bool>],
        trigger: Trigger,
        budget: u64,
        t0: Instant,
    ) -> (FalsifyRun, Option<Box<newton::Counterexample>>) {
        let deadline = self.deadline;
        let stop = || deadline.is_some_and(|d| Instant::now() >= d);
        let mut spent = 0u64;
        let mut runs = 0usize;
        let mut last = String::new();
        let mut zero_tried = false;
        let outcome = loop {
            if spent >= budget {
                break FalsifyOutcome::Budget;
            }
            // Runs check the deadline every so many steps; short runs must not escape it.
            if stop() {
                break FalsifyOutcome::Timeout;
            }
            let seed = if self.zero_done || zero_tried {
                if !self.random_matters {
                    break if self.zero_done {
                        FalsifyOutcome::Exhausted
                    } else {
                        FalsifyOutcome::Budget
                    };
                }
                Some(self.seeds)
            } else {
                None
            };
            // The all-zero run gets half the budget, the seeded runs the rest; no run goes
            // beyond the longest counterexample reported.
            let cap = match seed {
                None => (budget - spent).div_ceil(2),
                Some(_) => budget - spent,
            }
            .min(MAX_COUNTEREXAMPLE_STEPS + 1);
            let mut oracle = RunOracle::new(seed);
            runs += 1;
            let run = execute(prog, nondet, &mut oracle, cap, &stop, false);
            // A run is never free: one that stops before its first step still costs a start.
            spent += run.steps.max(1);
            match seed {
                Some(_) => self.seeds += 1,
                None => {
                    zero_tried = true;
                    // Without a value the seeded oracle chooses, its runs are this one.
                    self.random_matters = oracle.drew_random;
                }
            }
            match run.end {
                RunEnd::Error => {
                    let (outcome, cex) = confirm(prog, nondet, seed, run.steps, &stop);
                    // A run that reached the error without a counterexample (too long, or its
                    // replay failed) would do the same again: the all-zero one is done, and a
                    // seeded one's seed is used.
                    self.zero_done |= seed.is_none();
                    let record = self.record(trigger, budget, spent, runs, outcome, t0);
                    return (record, cex);
                }
                RunEnd::Ended(why) if run.steps == 0 => {
                    // The program does not start on the interpreter (`main`'s frame holds an
                    // object it does not model, such as a variable-length array): every run,
                    // of this call or a later one, would end the same way.
                    last = why;
                    self.zero_done = true;
                    self.random_matters = false;
                    break FalsifyOutcome::Exhausted;
                }
                RunEnd::Ended(why) => {
                    last = why;
                    self.zero_done |= seed.is_none();
                }
                RunEnd::Budget => last = "budget".into(),
                RunEnd::Timeout => break FalsifyOutcome::Timeout,
            }
        };
        tracing::debug!(?trigger, budget, spent, runs, %last, "falsifier");
        (self.record(trigger, budget, spent, runs, outcome, t0), None)
    }

    fn record(
        &self,
        trigger: Trigger,
        budget: u64,
        steps: u64,
        runs: usize,
        outcome: FalsifyOutcome,
        t0: Instant,
    ) -> FalsifyRun {
        FalsifyRun {
            trigger,
            budget,
            steps,
            runs,
            outcome,
            seconds: t0.elapsed().as_secs_f64(),
        }
    }
}

/// The longest counterexample the falsifier reports, in steps (a violation witness's replay
/// runs at most a million steps).
pub const MAX_COUNTEREXAMPLE_STEPS: u64 = 1_000_000;

/// Runs again, recording, the run with `seed` that reached the error in `steps` steps, and
/// replays its path with the values it drew: the counterexample, or why there is none.
fn confirm(
    prog: &Program,
    nondet: &[Vec<bool>],
    seed: Option<u64>,
    steps: u64,
    stop: &dyn Fn() -> bool,
) -> (FalsifyOutcome, Option<Box<newton::Counterexample>>) {
    if steps > MAX_COUNTEREXAMPLE_STEPS {
        return (FalsifyOutcome::TooLong(steps), None);
    }
    let mut oracle = RunOracle::new(seed);
    let rec = execute(prog, nondet, &mut oracle, steps, stop, true);
    let replayed = match rec.end {
        RunEnd::Error => {
            newton::replay::replay_drawn(prog, &rec.path, rec.drawn).map_err(|m| m.to_string())
        }
        other => Err(format!("the recorded run ended otherwise: {other:?}")),
    };
    match replayed {
        Ok(cex) => (FalsifyOutcome::Counterexample, Some(Box::new(cex))),
        Err(why) => (FalsifyOutcome::ReplayFailed(why), None),
    }
}

/// Per function, per node: whether an out-edge of the node calls a `__VERIFIER_nondet_*`
/// function (the values a witness gives).
fn nondet_nodes(prog: &Program) -> Vec<Vec<bool>> {
    prog.functions
        .iter()
        .map(|f| {
            let mut at = vec![false; f.nodes as usize];
            for e in &f.edges {
                if let EdgeKind::Call {
                    callee: Callee::Nondet(_),
                    ..
                } = &e.kind
                    && let Some(b) = at.get_mut(e.from.0 as usize)
                {
                    *b = true;
                }
            }
            at
        })
        .collect()
}

/// The falsifier's oracle: 0 everywhere, except, with a seed, the results of nondet calls and
/// the initial values of uninitialised locals, scalars and arrays of integers (module doc).
/// Records what it draws.
struct RunOracle {
    rng: Option<SplitMix64>,
    /// The next value is a nondet call's result.
    nondet: bool,
    /// A value was asked where the random oracle would choose.
    drew_random: bool,
    /// The values drawn since the last take.
    drawn: Vec<i128>,
    /// How the elements of the uninitialised array being drawn are chosen.
    elements: Elements,
}

/// How a run chooses the elements of an uninitialised local array (with a seed), drawn anew
/// for each array: all 0, all one drawn value, each drawn, or one drawn value with zeros
/// scattered at a rate of 2^-k. An error behind a scan of the array
/// (`for (i = 0; A[i] != 0; i++)`) needs hundreds of non-zero elements, then a zero,
/// which independent draws seldom give.
#[derive(Debug, Clone, Copy)]
enum Elements {
    Zero,
    Same(i128),
    Each,
    /// The value, and `k`.
    Holes(i128, u32),
}

impl RunOracle {
    fn new(seed: Option<u64>) -> RunOracle {
        RunOracle {
            rng: seed.map(|s| SplitMix64::new(0x5eed_f415_1f1e ^ s)),
            nondet: false,
            drew_random: false,
            drawn: Vec::new(),
            elements: Elements::Zero,
        }
    }

    /// A value in `lo..=hi`: 0 without a seed; with one, a small value, a bound, or any.
    fn pick(&mut self, lo: i128, hi: i128) -> i128 {
        self.drew_random = true;
        let Some(rng) = &mut self.rng else {
            return 0i128.clamp(lo, hi);
        };
        let v = match rng.below(8) {
            0..=3 => i128::try_from(rng.below(20)).unwrap_or(0) - 4,
            4 => lo,
            5 => hi,
            _ => {
                let span = u128::try_from(hi - lo).unwrap_or(0).saturating_add(1);
                let r =
                    (u128::from(rng.next_u64()) << 64 | u128::from(rng.next_u64())) % span.max(1);
                lo + i128::try_from(r).unwrap_or(0)
            }
        };
        v.clamp(lo, hi)
    }
}

impl Oracle for RunOracle {
    fn value(&mut self, lo: i128, hi: i128) -> i128 {
        let v = if self.nondet {
            self.pick(lo, hi)
        } else {
            0i128.clamp(lo, hi)
        };
        self.drawn.push(v);
        v
    }
    fn choose(&mut self, _n: usize) -> usize {
        0
    }
    fn initial(&mut self, _var: VarId, lo: i128, hi: i128) -> i128 {
        let v = self.pick(lo, hi);
        self.drawn.push(v);
        v
    }
    fn initial_element(&mut self, _var: VarId, index: usize, lo: i128, hi: i128) -> i128 {
        if index == 0 {
            self.elements = match self.rng.as_mut().map(|r| r.below(4)) {
                Some(1) => Elements::Same(self.pick(lo, hi)),
                Some(2) => Elements::Each,
                Some(3) => {
                    let k = self.rng.as_mut().map_or(1, |r| r.below(12) + 1);
                    Elements::Holes(self.pick(lo, hi), u32::try_from(k).unwrap_or(1))
                }
                _ => Elements::Zero,
            };
        }
        self.drew_random = true;
        let v = match self.elements {
            Elements::Zero => 0i128.clamp(lo, hi),
            Elements::Same(v) => v,
            Elements::Each => self.pick(lo, hi),
            Elements::Holes(v, k) => {
                let hole = self
                    .rng
                    .as_mut()
                    .is_some_and(|r| r.next_u64() >> (64 - k) == 0);
                if hole { 0i128.clamp(lo, hi) } else { v }
            }
        };
        self.drawn.push(v);
        v
    }
}

/// One concrete run.
struct Run {
    steps: u64,
    end: RunEnd,
    /// The path (when recorded).
    path: Vec<CStep>,
    /// The values drawn along it (when recorded).
    drawn: Drawn,
}

/// Runs the program from `main` for at most `max_steps` steps; records the path and draws
/// when `record`.
fn execute(
    prog: &Program,
    nondet: &[Vec<bool>],
    oracle: &mut RunOracle,
    max_steps: u64,
    stop: &dyn Fn() -> bool,
    record: bool,
) -> Run {
    let mut run = Run {
        steps: 0,
        end: RunEnd::Budget,
        path: Vec::new(),
        drawn: Drawn::default(),
    };
    let mut it = match Interp::new(prog, oracle) {
        Ok(it) => it,
        Err(f) => {
            run.end = RunEnd::Ended(f.to_string());
            return run;
        }
    };
    run.drawn.initial = std::mem::take(&mut oracle.drawn);
    loop {
        if run.steps >= max_steps {
            run.end = RunEnd::Budget;
            return run;
        }
        if run.steps.is_multiple_of(DEADLINE_EVERY) && run.steps > 0 && stop() {
            run.end = RunEnd::Timeout;
            return run;
        }
        let Some((f, n)) = it.location() else {
            run.end = RunEnd::Ended("exit".into());
            return run;
        };
        oracle.nondet = nondet[f.0 as usize][n.0 as usize];
        let depth = it.depth().saturating_sub(1);
        let ev = match it.step(oracle) {
            Ok(ev) => ev,
            Err(fault) => {
                run.end = RunEnd::Ended(fault.to_string());
                return run;
            }
        };
        run.steps += 1;
        let taken = match &ev {
            Event::Edge(id) | Event::Call(id, _) | Event::End(End::Error(id)) => Some(*id),
            _ => None,
        };
        if record && let Some(edge) = taken {
            run.path.push(CStep {
                edge,
                depth: u32::try_from(depth).unwrap_or(u32::MAX),
            });
            if !oracle.drawn.is_empty() {
                run.drawn
                    .at
                    .insert(run.path.len() - 1, std::mem::take(&mut oracle.drawn));
            }
        }
        oracle.drawn.clear();
        match ev {
            Event::End(End::Error(_)) => {
                run.end = RunEnd::Error;
                return run;
            }
            Event::End(end) => {
                run.end = RunEnd::Ended(format!("{end:?}"));
                return run;
            }
            _ => {}
        }
    }
}
