//! BDD-based interprocedural reachability for Boolean programs (Ball & Rajamani's Bebop).
//!
//! Public API (the contract used by the CLI, the tests and later tools):
//! [`verify`] checks a parsed, well-formed program for the property in [`Options`] and returns an
//! [`Outcome`]: safe, or unsafe with a fully expanded [`bp_grammar::trace::Trace`], plus
//! statistics and (on request) per-statement invariants.
//!
//! The algorithm is Bebop's (T. Ball, S. K. Rajamani, "Bebop: A Symbolic Model Checker for
//! Boolean Programs", SPIN 2000), an adaptation of the interprocedural tabulation of Reps,
//! Horwitz & Sagiv (POPL 1995) with BDDs for sets of valuations. Modules:
//!
//! - [`vars`]: the one BDD variable set and its layout (globals, return slots, shared frame
//!   slots, each with interleaved entry/next/current copies; temporaries for `*`);
//! - [`order`]: the static order of the globals in the BDDs (FORCE heuristic);
//! - [`lower`]: AST → control-flow graph with per-statement transfer relations;
//! - [`live`]: the frame variables dead before each node, which the engine forgets;
//! - [`engine`]: path edges, summaries and the prioritised worklist;
//! - [`trace`]: the shortest fully expanded trace, level by level (and the JSON schema), with
//!   a work budget past which `trace_stamps` walks back over the engine's stamps instead;
//! - `concrete`: the concrete states of a trace and the backward step both walks share;
//! - [`replay`]: the self-check replaying a trace against the transition relations;
//! - [`report`]: text rendering; [`cli`]: the command line.
//!
//! The semantics implemented is `docs/bp-semantics.md`.

pub mod apply;
pub mod cli;
mod concrete;
pub mod engine;
pub mod fmt;
pub mod ids;
pub mod live;
pub mod lower;
pub mod order;
pub mod relation;
pub mod replay;
pub mod report;
pub mod trace;
mod trace_stamps;
pub mod vars;

use bp_grammar::trace::Trace;
use bp_grammar::{Program, StmtId};
use std::time::{Duration, Instant};

/// What `bebop` is asked.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum Property {
    /// Can an `assert` fail, or a statement labelled `SLIC_ERROR` be reached? (the default)
    #[default]
    AssertsAndSlicError,
    /// Can a statement carrying this label be reached? (asserts then act as assumes)
    Label(String),
}

/// The work budget of the shortest-trace search, in BDD nodes of the `(node, layer)` sets it
/// expands over the whole extraction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TraceBudget {
    /// Twice the engine's own work, and at least `floor` ([`TraceBudget::nodes`]).
    Scaled {
        /// The least budget, whatever the engine's work.
        floor: u64,
    },
    /// This many nodes.
    Fixed(u64),
}

impl TraceBudget {
    /// The floor of the default budget: with twice the engine's work above it, every search of
    /// the test suites fits.
    pub const DEFAULT_FLOOR: u64 = 200_000;

    /// The budget in BDD nodes, for an engine whose own work was `work` (the total size of the
    /// new states it added, [`engine::EngineStats::work`]): `max(floor, 2 × work)` when
    /// scaled. The searches of the test suites and of the `bp-families` counter programs need
    /// at most about `work / 2` above the default floor, the `relay` programs about
    /// `0.8 × work` (the engine forgets dead frame variables, the search does not, so its sets
    /// are the larger); a straight-line program of 10,000 statements with `if`s needs
    /// `54 × work`.
    pub fn nodes(self, work: u64) -> u64 {
        match self {
            TraceBudget::Scaled { floor } => work.saturating_mul(2).max(floor),
            TraceBudget::Fixed(n) => n,
        }
    }
}

impl Default for TraceBudget {
    fn default() -> Self {
        TraceBudget::Scaled {
            floor: Self::DEFAULT_FLOOR,
        }
    }
}

/// Options of a check.
#[derive(Clone, Debug, Default)]
pub struct Options {
    /// The question.
    pub property: Property,
    /// Compute per-statement invariants (reachable valuations) too. (The analysis always runs
    /// to its fixpoint: the shortest trace needs complete summaries.)
    pub invariants: bool,
    /// The file name to record in traces.
    pub program_name: String,
    /// The program's text, if known: used for the position of the `end` of a procedure in
    /// implicit-return steps.
    pub source: Option<String>,
    /// Replay the trace against the transition relations before returning it (always done in
    /// debug builds).
    pub self_check: bool,
    /// The work budget of the shortest-trace search (BDD nodes of the `(node, layer)` sets
    /// expanded over the whole extraction). Past it, a real but not necessarily shortest trace
    /// is extracted (see [`trace`]).
    pub trace_budget: TraceBudget,
    /// Variables whose names contain one of these are left out of the invariants
    /// (existentially quantified): e.g. temporaries whose values mean nothing between the
    /// statements that use them.
    pub invariant_hide: Vec<String>,
    /// Only the statements carrying one of these labels, given as (procedure, label), get an
    /// invariant; an empty label names the procedure's first statement (its entry state).
    /// `None`: every statement.
    pub invariant_at: Option<Vec<(String, String)>>,
    /// Remember the variable orders found (by their inputs) for later calls in this process:
    /// for a caller that checks program after program whose procedures mostly did not change
    /// (the refinement loop). Off for a one-off check, which would only hold the memory.
    pub remember_orders: bool,
}

/// The answer.
#[derive(Clone, Debug)]
pub enum Verdict {
    /// The error is unreachable.
    Safe,
    /// The error is reachable; the trace shows how.
    Unsafe(Box<Trace>),
}

impl Verdict {
    /// True for [`Verdict::Safe`].
    pub fn is_safe(&self) -> bool {
        matches!(self, Verdict::Safe)
    }

    /// The trace of an unsafe verdict.
    pub fn trace(&self) -> Option<&Trace> {
        match self {
            Verdict::Safe => None,
            Verdict::Unsafe(t) => Some(t),
        }
    }
}

/// Measurements of a check.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Stats {
    /// Procedures.
    pub procedures: usize,
    /// Statements (all procedures).
    pub statements: usize,
    /// Nodes of the control-flow graph (statements, plus `end` and exit per procedure).
    pub cfg_nodes: usize,
    /// Edges of the control-flow graph.
    pub cfg_edges: usize,
    /// BDD variables allocated.
    pub bdd_vars: usize,
    /// The largest path-edge / summary BDD stored (nodes).
    pub largest_bdd: usize,
    /// The largest sum of the sizes of all stored path-edge and call-relation BDDs (nodes).
    pub peak_live_nodes: usize,
    /// That sum at the end.
    pub final_live_nodes: usize,
    /// Worklist iterations: (node, new states) pairs processed.
    pub iterations: u64,
    /// Time to build the CFG and the transfer relations.
    pub lower_time: Duration,
    /// Time of the reachability analysis.
    pub reach_time: Duration,
    /// Time to extract (and check) the trace.
    pub trace_time: Duration,
    /// Whether the trace (if any) is shortest in Bebop's sense: false when the shortest-trace
    /// search exceeded its budget and the trace was extracted from the engine's stamps.
    pub trace_shortest: bool,
    /// Total time.
    pub total_time: Duration,
}

/// The reachable valuations before one statement.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Invariant {
    /// The procedure.
    pub proc: String,
    /// The statement (pre-order index in its procedure).
    pub stmt: StmtId,
    /// Its line.
    pub line: u32,
    /// Its column.
    pub col: u32,
    /// Its labels.
    pub labels: Vec<String>,
    /// Its text (statement head).
    pub text: String,
    /// The reachable valuations of the variables in scope, as a formula over their names
    /// (`T`, `F`, or a disjunction of cubes such as `(a & !b) | c`).
    pub formula: String,
    /// The same set exactly, as a disjunction of cubes (`Dnf`) or a conjunction of clauses
    /// (`Cnf`), whichever is smaller; `None` when both have more than [`MAX_EXACT`] terms.
    pub exact: Option<NormalForm>,
}

/// Most terms of an exact invariant ([`Invariant::exact`]).
pub const MAX_EXACT: usize = 512;

/// A Boolean formula over variable names in normal form: each term a list of literals
/// (name, value).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum NormalForm {
    /// A disjunction of cubes (no cube: false; an empty cube: true).
    Dnf(Vec<Vec<(String, bool)>>),
    /// A conjunction of clauses (no clause: true; an empty clause: false).
    Cnf(Vec<Vec<(String, bool)>>),
}

/// Everything a check produced.
#[derive(Clone, Debug)]
pub struct Outcome {
    /// Safe or unsafe.
    pub verdict: Verdict,
    /// Measurements.
    pub stats: Stats,
    /// Per-statement invariants, when asked for.
    pub invariants: Option<Vec<Invariant>>,
}

/// Errors of a check (the program must already have passed `bp_grammar::check`).
#[derive(Debug, thiserror::Error)]
pub enum BebopError {
    /// The program has no `main`.
    #[error("the program has no procedure `main`")]
    NoMain,
    /// The program needs more BDD variables than the BDD library supports.
    #[error("the program needs {needed} BDD variables; at most 65534 are supported")]
    TooManyVariables {
        /// How many would be needed.
        needed: usize,
    },
    /// A bug in bebop.
    #[error("internal error: {0}")]
    Internal(String),
}

/// Stack of the analysis thread: expression compilation (up to
/// [`bp_grammar::MAX_EXPR_DEPTH`] levels) recurses (trace extraction does not).
/// Only the pages touched are committed.
const STACK_SIZE: usize = 256 * 1024 * 1024;

fn panic_message(p: Box<dyn std::any::Any + Send>) -> String {
    if let Some(s) = p.downcast_ref::<&str>() {
        (*s).to_string()
    } else if let Some(s) = p.downcast_ref::<String>() {
        s.clone()
    } else {
        "panic".to_string()
    }
}

/// Runs `f` on a thread with a large stack (on the current thread if none can be started); a
/// panic becomes an internal error.
fn on_big_stack<T: Send>(
    f: impl FnOnce() -> Result<T, BebopError> + Send,
) -> Result<T, BebopError> {
    let f = std::sync::Mutex::new(Some(f));
    let run = || {
        let f = f
            .lock()
            .map(|mut g| g.take())
            .ok()
            .flatten()
            .ok_or_else(|| BebopError::Internal("the analysis ran twice".into()))?;
        std::panic::catch_unwind(std::panic::AssertUnwindSafe(f))
            .map_err(|p| BebopError::Internal(format!("panic: {}", panic_message(p))))?
    };
    std::thread::scope(|s| {
        match std::thread::Builder::new()
            .name("bebop".into())
            .stack_size(STACK_SIZE)
            .spawn_scoped(s, run)
        {
            Ok(h) => h
                .join()
                .map_err(|p| BebopError::Internal(format!("panic: {}", panic_message(p))))?,
            Err(e) => {
                tracing::warn!("cannot start the analysis thread ({e}); running on this one");
                run()
            }
        }
    })
}

/// Checks `prog` (which must have passed `bp_grammar::check`).
pub fn verify(prog: &Program, opts: &Options) -> Result<Outcome, BebopError> {
    on_big_stack(|| verify_here(prog, opts))
}

fn verify_here(prog: &Program, opts: &Options) -> Result<Outcome, BebopError> {
    let t0 = Instant::now();
    let model = order::remembering(opts.remember_orders, || {
        lower::lower(prog, &opts.property, opts.source.as_deref())
    })?;
    let t1 = Instant::now();
    tracing::info!(
        procedures = model.procs.len(),
        statements = model.n_stmts(),
        cfg_nodes = model.nodes.len(),
        bdd_vars = model.vars.num_vars(),
        elapsed_ms = (t1 - t0).as_secs_f64() * 1e3,
        "lowered the program"
    );
    // To the fixpoint even when an error is found: the shortest trace needs complete summaries.
    // Invariants need every statement's path edges; the trace only the kept nodes'.
    let keep = if opts.invariants {
        engine::Keep::All
    } else {
        engine::Keep::Needed
    };
    let tab = engine::run(&model, false, keep);
    let t2 = Instant::now();
    tracing::info!(
        error_found = tab.error.is_some(),
        iterations = tab.stats.iterations,
        largest_bdd = tab.stats.largest_bdd,
        peak_live_nodes = tab.stats.peak_live_nodes,
        elapsed_ms = (t2 - t1).as_secs_f64() * 1e3,
        "reachability done"
    );
    let engine_stats = tab.stats.clone();
    let raw = match tab.error {
        Some(_) => Some(trace::extract_raw(&model, &tab, opts.trace_budget)?),
        None => None,
    };
    // The path edges are needed after the trace only for the invariants: otherwise they are
    // freed before the public trace (two valuations per step) is built in their memory.
    let tab = opts.invariants.then_some(tab);
    let mut trace_shortest = true;
    let verdict = match raw {
        Some((raw, shortest)) => {
            let tr = trace::public(&model, &raw, &opts.program_name)?;
            trace_shortest = shortest;
            if opts.self_check || cfg!(debug_assertions) {
                replay::check_trace(&model, &tr)
                    .map_err(|e| BebopError::Internal(format!("trace self-check failed: {e}")))?;
            }
            tracing::info!(steps = tr.steps.len(), "trace extracted");
            Verdict::Unsafe(Box::new(tr))
        }
        None => Verdict::Safe,
    };
    let t3 = Instant::now();
    let invariants = tab.as_ref().map(|t| invariants(&model, t, opts));
    let stats = Stats {
        procedures: model.procs.len(),
        statements: model.n_stmts(),
        cfg_nodes: model.nodes.len(),
        cfg_edges: model.edges.len(),
        bdd_vars: model.vars.num_vars(),
        largest_bdd: engine_stats.largest_bdd,
        peak_live_nodes: engine_stats.peak_live_nodes,
        final_live_nodes: engine_stats.final_live_nodes,
        iterations: engine_stats.iterations,
        lower_time: t1 - t0,
        reach_time: t2 - t1,
        trace_time: t3 - t2,
        trace_shortest,
        total_time: t0.elapsed(),
    };
    Ok(Outcome {
        verdict,
        stats,
        invariants,
    })
}

fn invariants(model: &lower::Model, tab: &engine::Tabulation, opts: &Options) -> Vec<Invariant> {
    let hide = &opts.invariant_hide;
    let mut out = Vec::new();
    for (pi, p) in model.procs.iter().enumerate() {
        let pid = ids::ProcId(pi as u32);
        let mut entry_vars = model.vars.vars(&model.vars.globals(), vars::Ver::Entry);
        entry_vars.extend(model.vars.vars(&model.frame_slots(pid), vars::Ver::Entry));
        let hidden: Vec<_> = model
            .frame_slots(pid)
            .into_iter()
            .chain(model.vars.globals())
            .filter(|&s| {
                let n = model.slot_name(pid, s);
                hide.iter().any(|h| n.contains(h.as_str()))
            })
            .collect();
        entry_vars.extend(model.vars.vars(&hidden, vars::Ver::Cur));
        for (k, (n, (id, s))) in p.stmt_nodes.iter().zip(p.ast.stmts_preorder()).enumerate() {
            if let Some(at) = &opts.invariant_at
                && !at.iter().any(|(q, l)| {
                    *q == p.name
                        && ((l.is_empty() && k == 0) || s.labels.iter().any(|x| x.name == *l))
                })
            {
                continue;
            }
            let reach = apply::exists(&tab.pe[n.ix()], &entry_vars);
            out.push(Invariant {
                proc: p.name.clone(),
                stmt: id,
                line: s.span.line,
                col: s.span.col,
                labels: s.labels.iter().map(|l| l.name.clone()).collect(),
                text: bp_grammar::print_stmt_head(s),
                formula: report::formula(model, pid, &reach),
                exact: report::normal_form(model, pid, &reach, MAX_EXACT),
            });
        }
    }
    out
}

/// Replays `trace` against the transition relations of `prog` under `opts.property` (see
/// [`replay`]): `Ok` when it is a real execution ending in an error.
pub fn check_trace(prog: &Program, opts: &Options, trace: &Trace) -> Result<(), String> {
    on_big_stack(|| {
        let model = lower::lower(prog, &opts.property, opts.source.as_deref())?;
        Ok(replay::check_trace(&model, trace))
    })
    .map_err(|e| e.to_string())?
}
