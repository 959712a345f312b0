//! `newton`: is an abstract error trace real? (SLAM's Newton: Ball & Rajamani's Newton as
//! summarised in the Constrain paper, "Refining Approximations in Software Predicate
//! Abstraction", TACAS'04 §2.)
//!
//! Input: the C program, the C path a bebop trace follows ([`bp_c::trace::c_path`]) and the
//! predicates the Boolean program was built from. Output ([`Outcome`]):
//! - **feasible**: a [`Counterexample`] — the path replayed on the concrete interpreter
//!   ([`replay`]) with the solver's values of every nondeterministic input; only a replay that
//!   reaches the error makes a path feasible;
//! - **infeasible**: a [`Refutation`] — the shortest infeasible prefix, the assume that makes it
//!   infeasible, the minimal core, and the new predicates ([`refine`]) with their scopes;
//! - **unknown**: the solver gave up, the replay did not follow the path (the reason is given,
//!   in words and as an [`UnknownKind`]), or the path needs what the encoding does not express.
//!
//! The path formula ([`symbolic`]) is built by weakest preconditions through calls and
//! returns with the one C semantics of [`cir::smt`] (newton has no encoding of its own).

mod candidates;
pub mod horn;
pub mod pathprog;
pub mod refine;
pub mod replay;
pub mod symbolic;

use std::collections::BTreeSet;
use std::fmt::Write as _;

use bp_c::trace::CStep;
use cir::Program;
use cir::ir::{Expr, ExprKind};
use cir::pointsto::PointsTo;
use cir::pred::PredicateSet;
use cir::smt::{Prover, Semantics};
use serde::Serialize;

pub use crate::refine::{Reason, Refiner};
pub use crate::replay::Counterexample;

/// Options.
#[derive(Debug, Clone, Copy)]
pub struct Options {
    /// The C semantics (must be the abstraction's).
    pub sem: Semantics,
    /// Z3's deterministic resource limit per query.
    pub rlimit: u32,
    /// How an infeasible path is refined ([`analyze_refined`]).
    pub refine: RefineMode,
    /// The Horn refiner's options.
    pub horn: horn::HornOptions,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            sem: Semantics::default(),
            rlimit: cir::smt::DEFAULT_RLIMIT,
            refine: RefineMode::default(),
            horn: horn::HornOptions::default(),
        }
    }
}

/// How an infeasible path is refined.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum RefineMode {
    /// Newton's weakest preconditions of the path ([`refine`]).
    Wp,
    /// Newton's, and the invariants of the path's path program ([`horn`]) on every path.
    Horn,
    /// Newton's, and the path program's when the path passes a loop head of an activation
    /// twice, or when the caller asks (divergence, no difference found).
    #[default]
    Auto,
}

impl std::str::FromStr for RefineMode {
    type Err = String;
    fn from_str(s: &str) -> Result<RefineMode, String> {
        match s {
            "wp" => Ok(RefineMode::Wp),
            "horn" => Ok(RefineMode::Horn),
            "auto" => Ok(RefineMode::Auto),
            _ => Err(format!("`{s}`: expected wp, horn or auto")),
        }
    }
}

impl std::fmt::Display for RefineMode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            RefineMode::Wp => "wp",
            RefineMode::Horn => "horn",
            RefineMode::Auto => "auto",
        })
    }
}

/// A step of the path, as reported.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PathStep {
    /// Index in the path.
    pub step: usize,
    /// The C edge.
    pub edge: String,
    /// `file:line:col`.
    pub pos: String,
    /// The edge's text.
    pub text: String,
}

/// Why an abstract path is not a real one.
#[derive(Debug, Clone, Serialize)]
pub struct Refutation {
    /// Length of the shortest infeasible prefix (steps).
    pub prefix_len: usize,
    /// The assume that makes the prefix infeasible (its last step).
    pub blocking: PathStep,
    /// The assumes of the minimal core.
    pub core: Vec<PathStep>,
    /// The new predicates (none already present), as a predicate file.
    pub new_predicates: String,
    /// Why each new predicate was chosen.
    pub reasons: Vec<Reason>,
    /// Conjuncts dropped because a weakest precondition was not expressible.
    pub dropped_conjuncts: usize,
    /// Queries about the new predicates (are they constant, do they repeat one present) the
    /// prover left undecided within its resource limit; such predicates are kept unchecked.
    pub undecided_queries: usize,
    /// The new predicates.
    #[serde(skip)]
    pub preds: PredicateSet,
    /// What the Horn refiner did, when it ran.
    pub horn: Option<HornSummary>,
}

/// What the Horn refiner did on a path (in newton's JSON and slam-run's statistics).
#[derive(Debug, Clone, Serialize)]
pub struct HornSummary {
    /// What it found.
    pub outcome: HornResult,
    /// Why it failed or was skipped (empty otherwise).
    pub reason: String,
    /// New predicates it gave.
    pub predicates: usize,
    /// Edges of the path program.
    pub edges: usize,
    /// Relations of its encoding.
    pub relations: usize,
    /// Clauses of its encoding.
    pub clauses: usize,
    /// The Spacer configurations tried and their answers.
    pub attempts: Vec<String>,
    /// Wall-clock seconds.
    pub seconds: f64,
}

/// The kind of the Horn refiner's answer ([`horn::HornOutcome`]), written in lower case.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum HornResult {
    /// The path program is safe (its invariants gave the predicates counted).
    Invariants,
    /// A path through the path program replayed to the error.
    Counterexample,
    /// Nothing: Spacer's `unknown`, an error path that does not replay, no encoding.
    Failed,
    /// Not called: the back-off after failures on path programs of the same loop heads.
    Skipped,
}

impl HornSummary {
    fn of(r: &horn::HornReport) -> HornSummary {
        let (outcome, reason, predicates) = match &r.outcome {
            horn::HornOutcome::Invariants { preds, .. } => {
                (HornResult::Invariants, String::new(), preds.len())
            }
            horn::HornOutcome::Counterexample(_) => (HornResult::Counterexample, String::new(), 0),
            horn::HornOutcome::Failed(why) => (HornResult::Failed, why.clone(), 0),
            horn::HornOutcome::Skipped(why) => (HornResult::Skipped, why.clone(), 0),
        };
        HornSummary {
            outcome,
            reason,
            predicates,
            edges: r.edges,
            relations: r.relations,
            clauses: r.clauses,
            attempts: r.attempts.clone(),
            seconds: r.seconds,
        }
    }
}

/// Newton's answer.
#[derive(Debug, Clone, Serialize)]
#[serde(tag = "verdict", rename_all = "lowercase")]
pub enum Outcome {
    /// The path is a real counterexample (replayed).
    Feasible(Box<Counterexample>),
    /// The path is infeasible.
    Infeasible(Box<Refutation>),
    /// Undecided.
    Unknown {
        /// Why, in words.
        reason: String,
        /// Why, as a type.
        kind: UnknownKind,
    },
}

/// Why newton left a path undecided.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum UnknownKind {
    /// The path formula could not be built (a malformed path, an unsupported construct).
    PathFormula,
    /// The solver gave up on the path formula (resource limit).
    SolverLimit,
    /// The path formula is satisfiable but the solver gave no model of it.
    NoModel,
    /// The solver's model of the path formula does not replay on the concrete interpreter:
    /// the encoding is coarser than the concrete semantics on this path (in integer mode, an
    /// operation it leaves uninterpreted within range, such as `^` or `|` with a
    /// non-constant operand, or a wrap-around it does not model).
    ReplayDiverged,
}

impl UnknownKind {
    /// Whether a more precise encoding of the same path may decide it: the solver's model (or
    /// the lack of one) is the encoding's, not a resource limit or an unsupported construct.
    pub fn may_depend_on_precision(self) -> bool {
        matches!(self, UnknownKind::NoModel | UnknownKind::ReplayDiverged)
    }
}

impl Outcome {
    /// The exit code of the `newton` command (shared table, [`cli_common::exit`]): a real
    /// counterexample is "unsafe", an infeasible path "safe" (this path), unknown "unknown".
    pub fn exit_code(&self) -> i32 {
        match self {
            Outcome::Feasible(_) => cli_common::exit::UNSAFE,
            Outcome::Infeasible(_) => cli_common::exit::SAFE,
            Outcome::Unknown { .. } => cli_common::exit::UNKNOWN,
        }
    }
}

fn path_step(prog: &Program, path: &[CStep], j: usize) -> PathStep {
    let e = symbolic::edge(prog, path[j]);
    PathStep {
        step: j,
        edge: prog.edge_name(path[j].edge),
        pos: prog.show_pos(e.pos),
        text: prog.show_edge_kind(&e.kind),
    }
}

/// Decides whether `path` (a path of `prog` from `main`'s entry to an error edge) is feasible;
/// `preds` are the predicates already in use (never proposed again).
pub fn analyze(
    prog: &Program,
    pts: &PointsTo,
    preds: &PredicateSet,
    path: &[CStep],
    opts: &Options,
) -> Outcome {
    // All of newton's queries for one trace in one Z3 context (a context costs 2–3 ms).
    cir::smt::one_context(|| analyze_in(prog, pts, preds, path, opts))
}

/// [`analyze`], then, for an infeasible path, the Horn refiner where [`Options::refine`] asks
/// for it — always with [`RefineMode::Horn`]; with [`RefineMode::Auto`] when the path passes a
/// loop head of an activation twice ([`pathprog::revisits_loop_head`]) or when `force_horn`
/// (the caller saw divergence, or no difference). Its predicates are added to newton's (the
/// path's own weakest preconditions still refute this path; the invariants refute every
/// unrolling of its loops); a path through the path program that replays to the error makes
/// the outcome feasible; when it finds nothing, newton's predicates stand. In integer
/// semantics only: under `--bitvector` the path program is not solved.
pub fn analyze_refined(
    prog: &Program,
    pts: &PointsTo,
    preds: &PredicateSet,
    path: &[CStep],
    opts: &Options,
    force_horn: bool,
    cache: &mut horn::HornCache,
) -> Outcome {
    let out = analyze(prog, pts, preds, path, opts);
    let Outcome::Infeasible(r) = out else {
        return out;
    };
    let wanted = match opts.refine {
        RefineMode::Wp => false,
        RefineMode::Horn => true,
        RefineMode::Auto => force_horn || pathprog::revisits_loop_head(prog, path),
    };
    if !wanted {
        return Outcome::Infeasible(r);
    }
    with_horn(prog, pts, preds, path, opts, r, cache)
}

/// The refutation `r` of `path` (newton's) with the Horn refiner's answer added (see
/// [`analyze_refined`]); unchanged under `--bitvector`. `cache` keeps the Horn solver's
/// decided answers across calls on paths of the same program ([`horn::HornCache`]), and
/// skips the call after failures on path programs of the same loop heads (the summary's
/// outcome is then [`HornResult::Skipped`]).
pub fn with_horn(
    prog: &Program,
    pts: &PointsTo,
    preds: &PredicateSet,
    path: &[CStep],
    opts: &Options,
    mut r: Box<Refutation>,
    cache: &mut horn::HornCache,
) -> Outcome {
    if opts.sem.bitvector {
        return Outcome::Infeasible(r);
    }
    let report = horn::refine(prog, pts, preds, path, opts, &opts.horn, cache);
    r.horn = Some(HornSummary::of(&report));
    match report.outcome {
        horn::HornOutcome::Counterexample(c) => return Outcome::Feasible(c),
        horn::HornOutcome::Invariants { preds: hp, reasons } if !hp.is_empty() => {
            // The invariants replace newton's preconditions, which follow the loop one
            // iteration at a time; newton's conditions (the path's own branch conditions)
            // stay.
            let (kept, kept_reasons) = conditions_only(&r.preds, &r.reasons);
            r.preds = kept;
            r.reasons = kept_reasons;
            cir::pred::merge_into(&mut r.preds, hp);
            r.reasons.extend(reasons);
            r.new_predicates = cir::pred::predicate_file_text(&r.preds);
        }
        horn::HornOutcome::Invariants { .. }
        | horn::HornOutcome::Failed(_)
        | horn::HornOutcome::Skipped(_) => {}
    }
    Outcome::Infeasible(r)
}

/// The predicates of `set` that newton took from a condition of the path itself (reason
/// kind `condition`), with their reasons.
fn conditions_only(set: &PredicateSet, reasons: &[Reason]) -> (PredicateSet, Vec<Reason>) {
    let keep: Vec<Reason> = reasons
        .iter()
        .filter(|r| r.kind == "condition")
        .cloned()
        .collect();
    (restrict(set, &keep), keep)
}

/// The predicates of `set` that some reason of `keep` names (scope and text).
pub(crate) fn restrict(set: &PredicateSet, keep: &[Reason]) -> PredicateSet {
    let kept =
        |scope: &str, text: &str| keep.iter().any(|r| r.scope == scope && r.predicate == text);
    PredicateSet {
        global: set
            .global
            .iter()
            .filter(|p| kept("global", &p.text))
            .cloned()
            .collect(),
        per_function: set
            .per_function
            .iter()
            .map(|(f, ps)| {
                let ps: Vec<_> = ps.iter().filter(|p| kept(f, &p.text)).cloned().collect();
                (f.clone(), ps)
            })
            .filter(|(_, ps)| !ps.is_empty())
            .collect(),
    }
}

fn analyze_in(
    prog: &Program,
    pts: &PointsTo,
    preds: &PredicateSet,
    path: &[CStep],
    opts: &Options,
) -> Outcome {
    let pf = match symbolic::path_formula(prog, pts, path) {
        Ok(pf) => pf,
        Err(e) => {
            return Outcome::Unknown {
                reason: e.to_string(),
                kind: UnknownKind::PathFormula,
            };
        }
    };
    tracing::debug!(
        steps = path.len(),
        conjuncts = pf.conjuncts.len(),
        symbols = pf.symbols.len(),
        dropped = pf.dropped,
        "path formula"
    );
    match refine::feasibility(&pf, opts.sem, opts.rlimit) {
        refine::Feasibility::Infeasible { prefix_end, core } => {
            let prover = Prover::new(prog, opts.sem).with_rlimit(opts.rlimit);
            let chosen = refine::predicates(prog, pts, &pf, path, &core, preds, &prover);
            let core_steps: BTreeSet<usize> =
                core.iter().map(|&c| pf.conjuncts[c].origin).collect();
            Outcome::Infeasible(Box::new(Refutation {
                prefix_len: prefix_end + 1,
                blocking: path_step(prog, path, prefix_end),
                core: core_steps
                    .into_iter()
                    .map(|j| path_step(prog, path, j))
                    .collect(),
                new_predicates: cir::pred::predicate_file_text(&chosen.preds),
                reasons: chosen.reasons,
                dropped_conjuncts: pf.dropped,
                undecided_queries: chosen.undecided,
                preds: chosen.preds,
                horn: None,
            }))
        }
        f @ (refine::Feasibility::Feasible | refine::Feasibility::Unknown) => {
            match confirm(prog, pts, &pf, path, opts, f) {
                Ok(cex) => Outcome::Feasible(Box::new(cex)),
                Err((kind, reason)) => Outcome::Unknown { reason, kind },
            }
        }
    }
}

/// A counterexample along `path`, whose formula `pf` is feasible (or undecided, `f`): the
/// solver's values of the inputs, replayed on the concrete interpreter to the error. The
/// model is first taken from the formula with the path's definedness conditions
/// ([`symbolic::path_formula_defined`]: a model of `pf` alone may make a dereferenced
/// pointer null, which no concrete run follows); when that one has no model or does not
/// replay, from `pf` itself, whose failure is the one reported.
fn confirm(
    prog: &Program,
    pts: &PointsTo,
    pf: &symbolic::PathFormula,
    path: &[CStep],
    opts: &Options,
    f: refine::Feasibility,
) -> Result<Counterexample, (UnknownKind, String)> {
    let undecided = f == refine::Feasibility::Unknown;
    if let Ok(def) = symbolic::path_formula_defined(prog, pts, path)
        && def.conjuncts.len() > pf.conjuncts.len()
        && let Ok(cex) = confirm_with(prog, &def, path, opts, undecided)
    {
        return Ok(cex);
    }
    confirm_with(prog, pf, path, opts, undecided)
}

/// [`confirm`] with the model of one formula (`undecided`: the solver could not decide
/// whether the path is feasible).
fn confirm_with(
    prog: &Program,
    pf: &symbolic::PathFormula,
    path: &[CStep],
    opts: &Options,
    undecided: bool,
) -> Result<Counterexample, (UnknownKind, String)> {
    let prover = Prover::new(&pf.ext, opts.sem).with_rlimit(opts.rlimit);
    let formulas: Vec<Expr> = pf
        .conjuncts
        .iter()
        .filter_map(|c| c.at_start.clone())
        .collect();
    // Integer symbols, and the pointers of allocated contents and the environment's pointers
    // (null or not decides the replay's draw).
    let ints: Vec<usize> = (0..pf.symbols.len())
        .filter(|&i| match pf.ext.var(pf.symbols[i].var).ty {
            cir::types::CType::Int(_) => true,
            cir::types::CType::Pointer(_) => matches!(
                pf.symbols[i].kind,
                symbolic::SymKind::Content { .. } | symbolic::SymKind::CallResult(_)
            ),
            _ => false,
        })
        .collect();
    let terms: Vec<Expr> = ints
        .iter()
        .map(|&i| {
            let v = pf.symbols[i].var;
            Expr {
                kind: ExprKind::Var(v),
                ty: pf.ext.var(v).ty.clone(),
            }
        })
        .collect();
    let (_, model) = prover.model_values(&formulas, &terms);
    let Some(model) = model else {
        return Err(if undecided {
            (
                UnknownKind::SolverLimit,
                "the solver could not decide the path formula (resource limit)".into(),
            )
        } else {
            (
                UnknownKind::NoModel,
                "the solver gave no model of the path formula".into(),
            )
        });
    };
    let mut values = vec![None; pf.symbols.len()];
    for (&i, v) in ints.iter().zip(model) {
        values[i] = Some(v);
    }
    replay::replay(prog, pf, path, &values).map_err(|m| {
        let reason = if pf.dropped > 0 {
            format!(
                "{m} ({} condition(s) of the path could not be encoded)",
                pf.dropped
            )
        } else {
            m.to_string()
        };
        (UnknownKind::ReplayDiverged, reason)
    })
}

/// A counterexample along `path` (a path of `prog` from `main`'s entry to an error edge, e.g.
/// one the Horn refiner recovered from a derivation), or why there is none: its path formula
/// decided, its inputs from a model, replayed on the concrete interpreter.
pub fn replay_path(
    prog: &Program,
    pts: &PointsTo,
    path: &[CStep],
    opts: &Options,
) -> Result<Counterexample, String> {
    cir::smt::one_context(|| {
        let pf = symbolic::path_formula(prog, pts, path).map_err(|e| e.to_string())?;
        match refine::feasibility(&pf, opts.sem, opts.rlimit) {
            refine::Feasibility::Infeasible { .. } => Err("the path is infeasible".into()),
            f => confirm(prog, pts, &pf, path, opts, f).map_err(|(_, reason)| reason),
        }
    })
}

/// The counterexample as text (stdout of `newton` and `slam-run`).
pub fn counterexample_text(cex: &Counterexample) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "inputs:");
    if cex.inputs.is_empty() {
        let _ = writeln!(s, "  (none)");
    }
    for i in &cex.inputs {
        let _ = writeln!(s, "  {} = {}    (at {})", i.what, i.value, i.pos);
    }
    let _ = writeln!(s, "path:");
    for st in &cex.steps {
        let indent = "  ".repeat(st.depth as usize + 1);
        let vals: Vec<String> = st
            .values
            .iter()
            .map(|(k, v)| format!("{k} = {v}"))
            .collect();
        let _ = write!(s, "{indent}{:<10} {:<8} {}", st.pos, st.edge, st.text);
        if !vals.is_empty() {
            let _ = write!(s, "    [{}]", vals.join(", "));
        }
        s.push('\n');
    }
    s
}

/// The outcome as text.
pub fn outcome_text(o: &Outcome) -> String {
    let mut s = String::new();
    match o {
        Outcome::Feasible(cex) => {
            let _ = writeln!(
                s,
                "FEASIBLE: the trace is a real error path (replayed on the concrete program)"
            );
            s.push_str(&counterexample_text(cex));
        }
        Outcome::Infeasible(r) => {
            let _ = writeln!(
                s,
                "INFEASIBLE: the first {} steps cannot execute; step {} ({} at {}: {}) is where",
                r.prefix_len, r.blocking.step, r.blocking.edge, r.blocking.pos, r.blocking.text
            );
            let _ = writeln!(s, "core:");
            for c in &r.core {
                let _ = writeln!(s, "  step {} {} at {}: {}", c.step, c.edge, c.pos, c.text);
            }
            if r.preds.is_empty() {
                let _ = writeln!(s, "new predicates: none");
            } else {
                let _ = writeln!(s, "new predicates:");
                for line in r.new_predicates.lines() {
                    let _ = writeln!(s, "  {line}");
                }
            }
        }
        Outcome::Unknown { reason, .. } => {
            let _ = writeln!(s, "UNKNOWN: {reason}");
        }
    }
    s
}

/// JSON of an outcome (`format: "newton-result/1"`).
pub fn outcome_json(o: &Outcome) -> String {
    let mut v = serde_json::to_value(o).unwrap_or(serde_json::Value::Null);
    if let serde_json::Value::Object(m) = &mut v {
        m.insert("format".into(), "newton-result/1".into());
    }
    serde_json::to_string_pretty(&v).unwrap_or_default()
}

pub use bp_c::trace::predicates_of_bp;
