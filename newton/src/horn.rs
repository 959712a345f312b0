//! The Horn refiner: refinement by path invariants (Beyer, Henzinger, Majumdar, Rybalchenko,
//! "Path invariants", PLDI 2007). From a spurious path: its path program ([`crate::pathprog`]),
//! encoded as Horn clauses ([`encode`]) and solved — first by Houdini over candidates the
//! path program's own code suggests (`houdini`: cheap, and it finds the parity, bounds and
//! relational facts simple loops keep, which Spacer's interpolation over `mod` often does
//! not within its limit), then by Spacer ([`cir::smt::horn`]). The decided
//! answers are kept per path program ([`HornCache`]): a path program met again is not solved
//! again; Spacer's resource limit shrinks with each `unknown` on a path program of the same
//! loops.
//!
//! - **Safe**: the solution's conjuncts at the cut points (after [`cir::smt::horn::minimize`])
//!   are split into atoms and become predicates of their function (global when they mention
//!   only global storage; a conjunct over the return value at a function's exit is a return
//!   predicate over `\result`; one over the globals' entry values has no C reading and is
//!   left out), loop heads first, at most [`HornOptions::max_atoms`] new ones, never one
//!   already present (the same `candidates` filter as newton's own predicates).
//!   For a loop-free path the cut points are the entries, exits, joins and call sites, and the
//!   solution is a sequence of interpolants there.
//! - **Unsafe**: the derivation is mapped back to a C path through the path program
//!   ([`cex`]) — a path that may unroll a loop far more often than the abstract trace did —
//!   and that path is replayed on the concrete interpreter ([`crate::replay_path`]): a
//!   counterexample only when the replay reaches the error.
//! - Otherwise (`unknown`, a path program not encoded, a replay that fails) there is nothing,
//!   and the caller keeps newton's weakest-precondition predicates.
//!
//! Calls that keep finding nothing on path programs of the same loops are skipped more and
//! more often ([`backoff`]): the answer is a function of the path program, and on a state
//! machine every trace's path program is the same loop unrolled along a few more edges.

pub mod backoff;
pub mod cex;
pub mod encode;
mod houdini;

use std::collections::{BTreeMap, BTreeSet};
use std::time::Instant;

use bp_c::trace::CStep;
use cir::Program;
use cir::ir::{BinOp, ExprKind, VarId};
use cir::pointsto::PointsTo;
use cir::pred::{PredicateSet, result_expr};
use cir::smt::Prover;
use cir::smt::horn::{self as chc, Derivation, HornAnswer, Solution};

use crate::candidates::Candidates;
use crate::pathprog::{self, Variant};
use crate::refine::{Reason, Refiner, simplify, split_atoms};
use crate::{Counterexample, Options};

/// Options of the Horn refiner.
#[derive(Debug, Clone, Copy)]
pub struct HornOptions {
    /// Which path program.
    pub variant: Variant,
    /// Z3's resource limit of each Spacer configuration.
    pub rlimit: u32,
    /// At most this many new predicates per refinement.
    pub max_atoms: usize,
    /// At most this many checks to minimise a solution ([`chc::minimize`]).
    pub max_minimize: usize,
    /// At most this many checks of Houdini's candidate invariants before Spacer.
    pub max_houdini_checks: usize,
}

impl Default for HornOptions {
    fn default() -> HornOptions {
        HornOptions {
            variant: Variant::Path,
            rlimit: chc::HornOptions::default().rlimit,
            max_atoms: 12,
            max_minimize: 96,
            max_houdini_checks: 2000,
        }
    }
}

/// What the Horn refiner found.
#[derive(Debug, Clone)]
pub enum HornOutcome {
    /// The path program is safe: new predicates from its invariants (possibly none).
    Invariants {
        /// The new predicates.
        preds: PredicateSet,
        /// Why each was chosen.
        reasons: Vec<Reason>,
    },
    /// The path program is unsafe, and a path through it replays to the error.
    Counterexample(Box<Counterexample>),
    /// Nothing (why).
    Failed(String),
    /// Not called: earlier calls on path programs of the same loop heads found nothing
    /// ([`backoff`]; why).
    Skipped(String),
}

/// The Horn refiner's answer and what it cost.
#[derive(Debug, Clone)]
pub struct HornReport {
    /// The answer.
    pub outcome: HornOutcome,
    /// Edges of the path program.
    pub edges: usize,
    /// Relations and clauses of its encoding.
    pub relations: usize,
    /// Clauses of its encoding.
    pub clauses: usize,
    /// The Spacer configurations tried and their answers.
    pub attempts: Vec<String>,
    /// Wall-clock seconds.
    pub seconds: f64,
}

/// The decided answers of the Horn solver, per path program, for one program. The clauses
/// are a function of the program and the path program, and Spacer runs under a deterministic
/// limit, so a path program met again — the next spurious path often unrolls the same loops
/// once more, and visits the same edges — has the same answer: it is not solved again. Only
/// decided answers are kept (a safe one minimised, as [`refine`] uses it); `unknown` is never
/// kept, so a path program Spacer gave up on is tried again.
///
/// It also holds Spacer's budget for the run: per path-program *shape* (the loop heads of
/// each function part), how often Spacer answered `unknown` on a path program of that shape.
/// Each such answer quarters the resource limit of the next Spacer call on that shape (down to
/// 1/64 of it): the clauses of the same loops unrolled along the same edges, or with a
/// branch more, are as hard, and a limit spent in full for `unknown` again and again is most
/// of a run's time. It is a budget, not a cache: the call is made, and only a decided answer
/// is kept.
///
/// And it holds the back-off of calls per shape ([`backoff`]): after calls that found
/// nothing, later ones on the same shape are skipped, more of them after each failure.
#[derive(Debug, Clone, Default)]
pub struct HornCache {
    answers: BTreeMap<pathprog::PathProgram, Decided>,
    unknowns: BTreeMap<Shape, u32>,
    backoff: backoff::Backoff,
}

/// The loop heads of a path program, per function: its shape for Spacer's budget.
type Shape = BTreeMap<cir::ir::FuncId, BTreeSet<cir::ir::NodeId>>;

fn shape(pp: &pathprog::PathProgram) -> Shape {
    pp.parts
        .iter()
        .map(|(f, p)| (*f, p.heads.clone()))
        .collect()
}

/// The smallest share of [`HornOptions::rlimit`] Spacer's budget goes down to, as a power of
/// four (`1/4^3`).
const MIN_SHARE: u32 = 3;

/// A decided answer of the Horn solver.
#[derive(Debug, Clone)]
enum Decided {
    /// Safe, with the minimised solution, and whether Houdini found it.
    Safe {
        /// The solution.
        sol: Solution,
        /// Whether it is Houdini's (Spacer's otherwise).
        houdini: bool,
    },
    /// Unsafe, with the derivation of the error.
    Unsafe(Derivation),
}

impl HornCache {
    /// The number of path programs with a decided answer.
    pub fn len(&self) -> usize {
        self.answers.len()
    }

    /// Whether no answer is kept.
    pub fn is_empty(&self) -> bool {
        self.answers.is_empty()
    }
}

/// Refines with the path program of `path` (a spurious path, see the module doc); `preds`
/// are the predicates present (never proposed again); `cache` holds the decided answers for
/// earlier path programs of the same program.
pub fn refine(
    prog: &Program,
    pts: &PointsTo,
    preds: &PredicateSet,
    path: &[CStep],
    opts: &Options,
    hopts: &HornOptions,
    cache: &mut HornCache,
) -> HornReport {
    let t = Instant::now();
    let pp = pathprog::build(prog, path, hopts.variant);
    let mut report = HornReport {
        outcome: HornOutcome::Failed(String::new()),
        edges: pp.edge_count(),
        relations: 0,
        clauses: 0,
        attempts: Vec::new(),
        seconds: 0.0,
    };
    let shape = shape(&pp);
    if !cache.answers.contains_key(&pp)
        && let Some(why) = cache.backoff.skip(&shape)
    {
        report.outcome = HornOutcome::Skipped(why);
        report.seconds = t.elapsed().as_secs_f64();
        return report;
    }
    solve(prog, pts, preds, path, opts, hopts, cache, &pp, &mut report);
    match &report.outcome {
        HornOutcome::Failed(_) => cache.backoff.failed(shape),
        HornOutcome::Invariants { preds, .. } if !preds.is_empty() => {
            cache.backoff.helped(&shape);
        }
        _ => {}
    }
    tracing::debug!(
        edges = report.edges,
        relations = report.relations,
        clauses = report.clauses,
        attempts = ?report.attempts,
        "horn refinement"
    );
    report.seconds = t.elapsed().as_secs_f64();
    report
}

/// [`refine`] on the path program `pp` once it is not skipped: encodes and solves it (or
/// takes its cached answer) into `report`.
#[allow(clippy::too_many_arguments)]
fn solve(
    prog: &Program,
    pts: &PointsTo,
    preds: &PredicateSet,
    path: &[CStep],
    opts: &Options,
    hopts: &HornOptions,
    cache: &mut HornCache,
    pp: &pathprog::PathProgram,
    report: &mut HornReport,
) {
    let enc = match encode::encode(prog, pts, pp) {
        Ok(e) => e,
        Err(e) => {
            report.outcome = HornOutcome::Failed(e.to_string());
            return;
        }
    };
    report.relations = enc.problem.relations.len();
    report.clauses = enc.problem.clauses.len();
    let (answer, houdini) = match cache.answers.get(pp) {
        Some(Decided::Safe { sol, houdini }) => {
            report.attempts = vec!["cached: unsat".into()];
            (HornAnswer::Safe(sol.clone()), *houdini)
        }
        Some(Decided::Unsafe(d)) => {
            report.attempts = vec!["cached: sat".into()];
            (HornAnswer::Unsafe(d.clone()), false)
        }
        None => {
            let cands = houdini::candidates(prog, pp, &enc);
            tracing::trace!(
                candidates = ?cands
                    .iter()
                    .map(|c| c.iter().map(|e| enc.ext.show_expr(e)).collect::<Vec<_>>())
                    .collect::<Vec<_>>(),
                "houdini"
            );
            if let Some(sol) = chc::houdini(
                &enc.ext,
                &enc.problem,
                cands,
                opts.rlimit,
                hopts.max_houdini_checks,
            ) {
                report.attempts = vec!["houdini: unsat".into()];
                let sol =
                    chc::minimize(&enc.ext, &enc.problem, sol, hopts.max_minimize, opts.rlimit);
                let decided = Decided::Safe {
                    sol: sol.clone(),
                    houdini: true,
                };
                cache.answers.insert(pp.clone(), decided);
                (HornAnswer::Safe(sol), true)
            } else {
                (spacer(&enc, pp, opts, hopts, 0, cache, report), false)
            }
        }
    };
    let ctx = Ctx {
        prog,
        pts,
        pp,
        enc: &enc,
        existing: preds,
        path,
        opts,
        hopts,
    };
    report.outcome = outcome(&ctx, answer);
    // Houdini's invariant refutes the path program, but when it gives the abstraction
    // nothing new (its atoms are all present), Spacer's may; Spacer's `unknown` leaves
    // Houdini's refutation as the outcome.
    // A second opinion after a refutation gets the smallest share of the budget: the path
    // program is refuted, and constrain excludes what the abstraction with Houdini's
    // predicates still lets through.
    if houdini
        && matches!(&report.outcome, HornOutcome::Invariants { preds, .. } if preds.is_empty())
    {
        let answer = spacer(&enc, pp, opts, hopts, MIN_SHARE, cache, report);
        if !matches!(answer, HornAnswer::Unknown(_)) {
            report.outcome = outcome(&ctx, answer);
        }
    }
}

/// What [`refine`] works from: the program, the path and its path program's encoding.
struct Ctx<'a> {
    prog: &'a Program,
    pts: &'a PointsTo,
    pp: &'a pathprog::PathProgram,
    enc: &'a encode::Encoding,
    existing: &'a PredicateSet,
    path: &'a [CStep],
    opts: &'a Options,
    hopts: &'a HornOptions,
}

/// The refiner's outcome for the solver's `answer` (see the module doc).
fn outcome(c: &Ctx<'_>, answer: HornAnswer) -> HornOutcome {
    match answer {
        HornAnswer::Safe(sol) => {
            let (preds, reasons) = predicates(
                c.prog, c.pts, c.pp, c.enc, &sol, c.existing, c.path, c.opts, c.hopts,
            );
            HornOutcome::Invariants { preds, reasons }
        }
        HornAnswer::Unsafe(d) => match cex::path_of(c.enc, &d, c.opts.rlimit) {
            Ok(long) => match crate::replay_path(c.prog, c.pts, &long, c.opts) {
                Ok(x) => HornOutcome::Counterexample(Box::new(x)),
                Err(why) => HornOutcome::Failed(format!(
                    "the path program's error path ({} steps) does not replay: {why}",
                    long.len()
                )),
            },
            Err(why) => HornOutcome::Failed(why),
        },
        HornAnswer::Unknown(why) => HornOutcome::Failed(format!("spacer: {why}")),
    }
}

/// Spacer on the encoded path program `pp` (see [`chc::solve`]), within the budget of its
/// shape (see [`HornCache`]; `extra` quarters it further); a decided answer is kept in
/// `cache`, a safe one minimised first, and `unknown` is counted against the shape.
fn spacer(
    enc: &encode::Encoding,
    pp: &pathprog::PathProgram,
    opts: &Options,
    hopts: &HornOptions,
    extra: u32,
    cache: &mut HornCache,
    report: &mut HornReport,
) -> HornAnswer {
    let shape = shape(pp);
    let quarters = (cache.unknowns.get(&shape).copied().unwrap_or(0) + extra).min(MIN_SHARE);
    let rlimit = (hopts.rlimit >> (2 * quarters)).max(1);
    if quarters > 0 {
        report.attempts.push(format!("budget: rlimit {rlimit}"));
    }
    let copts = chc::HornOptions {
        rlimit,
        ..chc::HornOptions::default()
    };
    let res = chc::solve(&enc.ext, &enc.problem, &copts);
    report.attempts.extend(
        res.attempts
            .iter()
            .map(|a| format!("{}: {}", a.config, a.result)),
    );
    let answer = match res.answer {
        HornAnswer::Safe(sol) => HornAnswer::Safe(chc::minimize(
            &enc.ext,
            &enc.problem,
            sol,
            hopts.max_minimize,
            opts.rlimit,
        )),
        other => other,
    };
    match &answer {
        HornAnswer::Safe(sol) => {
            let decided = Decided::Safe {
                sol: sol.clone(),
                houdini: false,
            };
            cache.answers.insert(pp.clone(), decided);
        }
        HornAnswer::Unsafe(d) => {
            cache.answers.insert(pp.clone(), Decided::Unsafe(d.clone()));
        }
        HornAnswer::Unknown(_) => *cache.unknowns.entry(shape).or_default() += 1,
    }
    answer
}

/// The new predicates of a solution (see the module doc).
#[allow(clippy::too_many_arguments)]
fn predicates(
    prog: &Program,
    pts: &PointsTo,
    pp: &pathprog::PathProgram,
    enc: &encode::Encoding,
    sol: &chc::Solution,
    existing: &PredicateSet,
    path: &[CStep],
    opts: &Options,
    hopts: &HornOptions,
) -> (PredicateSet, Vec<Reason>) {
    let mut cands = Candidates::new(prog, existing, Refiner::Horn);
    // Loop heads first: the invariants the path's own preconditions cannot give.
    let mut order: Vec<usize> = (0..enc.sites.len()).collect();
    order.sort_by_key(|&r| {
        let s = enc.sites[r];
        let head = pp
            .parts
            .get(&s.func)
            .is_some_and(|p| p.heads.contains(&s.node));
        (!head, r)
    });
    let last = path.len().saturating_sub(1);
    // Each atom to propose: (atom, relation, whether its forms along the segments are wanted,
    // function, trace position).
    let mut own = Vec::new();
    let mut boundaries = Vec::new();
    for r in order {
        let site = enc.sites[r];
        let f = &prog.functions[site.func.0 as usize];
        let lay = &enc.layouts[&site.func];
        let g0: BTreeSet<VarId> = lay.g0.iter().copied().collect();
        let at = path
            .iter()
            .position(|s| s.edge.func == site.func && prog.edge(s.edge).from == site.node)
            .unwrap_or(last);
        for conj in &sol.interps[r] {
            let vars = crate::symbolic::vars_of(conj);
            if vars.iter().any(|v| g0.contains(v)) {
                continue;
            }
            let conj = match lay.ret {
                Some(rv) if vars.contains(&rv) => {
                    let res = result_expr(f.ty.ret.clone());
                    cir::wp::subst_vars(conj, &|v| (v == rv).then(|| res.clone()))
                }
                _ => conj.clone(),
            };
            // A tracked array cell's stand-in is the cell (`A[3]`).
            let conj = cir::wp::subst_vars(&conj, &|v| enc.cells.get(&v).cloned());
            let mut atoms = Vec::new();
            split_atoms(&conj, &mut atoms);
            // A bound in a disjunction (`i <= 1024 || A[1024] == B[1024]`) is where the
            // invariant changes case: the abstraction, which updates each atom on its own,
            // sees the point of the change (`i == 1024`) only with the opposite bound too.
            // Those come after every other candidate, so under the cap they never displace
            // an atom of the invariants themselves.
            let segments = lay.ret.is_none_or(|rv| !vars.contains(&rv));
            if matches!(conj.kind, ExprKind::Binary(BinOp::LogOr, ..)) {
                let opposite = atoms.iter().filter_map(opposite_bound);
                boundaries.extend(opposite.map(|b| (b, r, segments, site.func, at)));
            }
            own.extend(atoms.into_iter().map(|a| (a, r, segments, site.func, at)));
        }
    }
    for (atom, r, segments, func, at) in own.into_iter().chain(boundaries) {
        let atom = simplify(prog, &atom);
        cands.candidate(prog, atom.clone(), func, last, at, "invariant");
        if segments {
            for form in along_segments(prog, pts, enc, r, &atom) {
                cands.candidate(prog, form, func, last, at, "invariant");
            }
        }
    }
    let prover = Prover::new(prog, opts.sem).with_rlimit(opts.rlimit);
    let chosen = cands.finish(&prover, existing);
    cap(chosen.preds, chosen.reasons, hopts.max_atoms)
}

/// The forms of the atom `phi` of relation `r`'s invariant inside the segments that lead to
/// it, by weakest preconditions backward along each segment's edges: the predicates that keep
/// the invariant across the loop body statement by statement (the abstraction updates each
/// predicate at each statement, and `x - y == i - j` alone is lost between `x--` and `y--`;
/// with `x - 1 - y == i - j` it is not). A form is not followed past an edge whose
/// precondition is not expressible.
fn along_segments(
    prog: &Program,
    pts: &PointsTo,
    enc: &encode::Encoding,
    r: usize,
    phi: &cir::ir::Expr,
) -> Vec<cir::ir::Expr> {
    let mut out: Vec<cir::ir::Expr> = Vec::new();
    for (k, c) in enc.problem.clauses.iter().enumerate() {
        let encode::ClauseKind::Segment(edges) = &enc.kinds[k] else {
            continue;
        };
        if c.head.as_ref().map(|h| h.rel.0 as usize) != Some(r) {
            continue;
        }
        let mut form = phi.clone();
        for id in edges.iter().rev() {
            let e = prog.edge(*id);
            if matches!(e.kind, cir::ir::EdgeKind::Assume(_)) {
                continue;
            }
            let Some(pre) = cir::wp::wp_edge(&e.kind, &form, pts) else {
                break;
            };
            if pre != form {
                form = simplify(prog, &pre);
                if !out.contains(&form) {
                    out.push(form.clone());
                }
            }
        }
    }
    out
}

/// The first `max` predicates (in the order of the reasons), the rest dropped.
fn cap(set: PredicateSet, reasons: Vec<Reason>, max: usize) -> (PredicateSet, Vec<Reason>) {
    if reasons.len() <= max {
        return (set, reasons);
    }
    let keep: Vec<Reason> = reasons.into_iter().take(max).collect();
    (crate::restrict(&set, &keep), keep)
}

/// `a >= b` for `a <= b`, `a > b` for `a < b` and conversely: the bound on the other side of
/// the same boundary.
fn opposite_bound(e: &cir::ir::Expr) -> Option<cir::ir::Expr> {
    match &e.kind {
        ExprKind::Binary(op @ (BinOp::Le | BinOp::Ge | BinOp::Lt | BinOp::Gt), a, b) => {
            Some(cir::ir::Expr {
                kind: ExprKind::Binary(op.mirrored(), a.clone(), b.clone()),
                ty: e.ty.clone(),
            })
        }
        _ => None,
    }
}
