//! Feasibility of a path formula, its shortest infeasible prefix and minimal core, and the
//! predicates Newton derives from the core (SLAM's Newton, as summarised in the Constrain paper,
//! TACAS'04 §2, and BLAST's focus operator in Lazy Abstraction, POPL'02 §5.3).
//!
//! - **Shortest infeasible prefix**: the conjuncts are ordered by the step of their assume; the
//!   smallest prefix whose conjuncts are unsatisfiable is found by bisection (extending an
//!   infeasible prefix keeps it infeasible, so the property is monotone).
//! - **Minimal core**: deletion-based minimisation over that prefix, in one Z3 session with an
//!   indicator literal per conjunct: every conjunct kept is necessary (each becomes
//!   predicates, and every predicate may double the Boolean program's state space).
//! - **Predicates**: every form of every core conjunct — the assume's own condition, and
//!   its weakest precondition at each point where an assignment changed it — is restated in the
//!   scope of the activation it holds in: a callee's facts over its locals, formals (entry values)
//!   and globals; a caller's local frozen during the call is restated over the formal its actual
//!   parameter was passed to, when the actual is that variable; anything else mentioning a symbol
//!   (an input value, another activation's local) is *projected*: the fact before the havoc of
//!   a value is `∃ value. form`, computed by quantifier elimination ([`Prover::project`]) and
//!   restated like the others (weakest preconditions cannot cross a havoc: `∀`/`∃` over the
//!   fresh value is what holds before it); a projection is kept only when it refutes the
//!   path: no state the path reaches there satisfies it, or the whole path stays infeasible
//!   with it in place of the core assumes it comes from (a callee's `g == 0`, contradicted by
//!   its caller after the return); otherwise it is typically an overflow bound of no use.
//!   Memory reads, addresses and pointer comparisons (the alias conditions of Morris's axiom,
//!   `q == &g`) are opaque values of the elimination, so an alias condition becomes a
//!   predicate of its own. At a return, a caller fact about
//!   the call's result becomes a *return predicate* of the callee over `\result` (the Constrain
//!   paper's Fig. 3: `a < \result` in `foo`); when it also reads caller locals no formal stands
//!   for, or reads a global the callee writes — by name, or through a pointer that may alias
//!   it (`*w` with `w == &g`: Morris's axiom for `g := g'` gives `&g == w ? g' : *w`, and the
//!   path to the call decides the alias) — it is split (`Ctx::split_at_return`): the
//!   callee learns what the fact needs of its outputs (result, written globals) given the
//!   caller's state at the call (`∃` that state), the caller learns the other half
//!   (`Ctx::caller_side`, with its weakest preconditions before the call), and the callee's own
//!   weakest preconditions of its half give the return predicates of the calls it makes
//!   (`Ctx::derive_in_callee`: through a recursion, one per activation). Facts are split into
//!   atoms (`&&`, `||`, `!`, and the conditionals of Morris's axiom), normalised
//!   ([`cir::pred::normalize`]), and atoms that are constant, valid or unsatisfiable are
//!   dropped, as are predicates already present (also as their negation) and those equivalent
//!   to a predicate of their scope, present or kept before them (`x * 1 <= b` and `x <= b`):
//!   the same Boolean variable twice only costs c2bp a predicate.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use bp_c::trace::CStep;
use cir::ir::{BinOp, EdgeKind, Expr, ExprKind, FuncId, Program, UnOp, VarId};
use cir::pointsto::{Loc, PointsTo};
use cir::pred::{PredicateSet, result_expr};
use cir::smt::{Prover, SatAnswer, Semantics};
use cir::types::CType;

use crate::candidates::{Candidates, Chosen};
pub use crate::candidates::{Reason, Refiner};
use crate::symbolic::{PathFormula, SymKind, edge, fresh_var, owner, path_formula_then, vars_of};

/// Whether the path formula is satisfiable.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Feasibility {
    /// Infeasible: the shortest infeasible prefix ends at `prefix_end` (the step of its last
    /// assume); `core` are indices into [`PathFormula::conjuncts`], a minimal unsatisfiable
    /// subset of that prefix.
    Infeasible {
        /// The step whose assume makes the prefix infeasible.
        prefix_end: usize,
        /// The minimal core.
        core: Vec<usize>,
    },
    /// Satisfiable (every conjunct together).
    Feasible,
    /// The solver gave up (resource limit).
    Unknown,
}

/// Decides the path formula (see the module doc).
pub fn feasibility(pf: &PathFormula, sem: Semantics, rlimit: u32) -> Feasibility {
    let live: Vec<usize> = (0..pf.conjuncts.len())
        .filter(|&i| pf.conjuncts[i].at_start.is_some())
        .collect();
    let atoms: Vec<Expr> = live
        .iter()
        .filter_map(|&i| pf.conjuncts[i].at_start.clone())
        .collect();
    let prover = Prover::new(&pf.ext, sem).with_rlimit(rlimit);
    let n = atoms.len();
    let result = prover.with_solver(|cx| {
        cx.session(&atoms, |s| {
            let lits = |k: &[usize]| k.iter().map(|&i| (i, true)).collect::<Vec<_>>();
            let all: Vec<usize> = (0..n).collect();
            match s.check(&lits(&all)) {
                SatAnswer::Sat => return Err(true),
                SatAnswer::Unknown => return Err(false),
                SatAnswer::Unsat => {}
            }
            // Smallest k with the first k conjuncts unsatisfiable.
            let (mut lo, mut hi) = (0usize, n);
            while hi - lo > 1 {
                let mid = lo + (hi - lo) / 2;
                let first: Vec<usize> = (0..mid).collect();
                if s.check(&lits(&first)) == SatAnswer::Unsat {
                    hi = mid;
                } else {
                    lo = mid;
                }
            }
            let mut keep: Vec<usize> = (0..hi).collect();
            // The last conjunct of the shortest prefix is necessary; try dropping the others.
            let mut i = 0;
            while i + 1 < keep.len() {
                let trial: Vec<usize> = keep
                    .iter()
                    .enumerate()
                    .filter(|&(k, _)| k != i)
                    .map(|(_, &c)| c)
                    .collect();
                if s.check(&lits(&trial)) == SatAnswer::Unsat {
                    keep = trial;
                } else {
                    i += 1;
                }
            }
            Ok((hi, keep))
        })
    });
    match result {
        Err(true) => Feasibility::Feasible,
        Err(false) => Feasibility::Unknown,
        Ok((k, keep)) => Feasibility::Infeasible {
            prefix_end: pf.conjuncts[live[k - 1]].origin,
            core: keep.into_iter().map(|i| live[i]).collect(),
        },
    }
}

struct Ctx<'a> {
    prog: &'a Program,
    pts: &'a PointsTo,
    pf: &'a PathFormula,
    path: &'a [CStep],
    prover: &'a Prover<'a>,
    syms: HashMap<VarId, SymKind>,
    /// The candidate predicates so far.
    cands: Candidates,
    /// A prover over the extended program (symbols included), for projections.
    ext_prover: Prover<'a>,
    /// Projections computed, by the form's canonical text.
    projections: HashMap<String, Option<Expr>>,
    /// The refuting part of a projection at a point, by point and canonical text.
    refutes: HashMap<String, Option<Expr>>,
    /// How many more halves of return projections may be derived ([`RETURN_DERIVATIONS`]).
    derivations: usize,
    /// How many more return projections may be tried ([`RETURN_PROJECTIONS`]).
    attempts: usize,
    /// The steps up to the core's last assume: the infeasible prefix.
    core_end: usize,
}

/// At most this many return projections per trace (each a path formula and an elimination,
/// then path formulas to check that it refutes): their cost grows with their number, and the
/// generated test programs that need return projections are all fixed within this bound.
const RETURN_PROJECTIONS: usize = 4;

/// At most this many halves of return projections per trace get their weakest preconditions
/// (`Ctx::derive_at`: each costs a path formula and a core-like walk; a recursive function
/// yields one per activation).
const RETURN_DERIVATIONS: usize = 8;

/// The new predicates (not in `existing`) that the core of an infeasible path yields, with the
/// reason for each.
pub fn predicates(
    prog: &Program,
    pts: &PointsTo,
    pf: &PathFormula,
    path: &[CStep],
    core: &[usize],
    existing: &PredicateSet,
    prover: &Prover<'_>,
) -> Chosen {
    let cands = Candidates::new(prog, existing, Refiner::Wp);
    let mut cx = Ctx::new(prog, pts, pf, path, prover, cands);
    if let Some(end) = core.iter().map(|&c| pf.conjuncts[c].origin + 1).max() {
        cx.core_end = end.min(path.len());
    }
    // Points where a form of the core could not be restated (it mentions a value).
    let mut unstated: BTreeSet<usize> = BTreeSet::new();
    for &c in core {
        cx.conjunct(c, &mut unstated);
    }
    // Return projections of the core's facts after a return together: each alone may say
    // nothing of the result (`r == *p - 2` and `x == *p * 2` with `x == 0`: only both give
    // `r == -2`).
    for (b, act) in pf.acts.iter().enumerate() {
        let (Some(r), Some(parent)) = (act.return_step, act.parent) else {
            continue;
        };
        let after = r + 1;
        if after >= path.len() || pf.act_of[after] != parent {
            continue;
        }
        let mut origin = 0;
        let group: Vec<Expr> = core
            .iter()
            .filter_map(|&c| {
                let conj = &pf.conjuncts[c];
                if conj.origin < after {
                    return None;
                }
                origin = origin.max(conj.origin);
                let (_, e) = conj.forms.iter().rev().find(|(p, _)| *p >= after)?;
                Some(e.clone())
            })
            .collect();
        if group.len() < 2 {
            continue;
        }
        let Some(all) = Expr::join(BinOp::LogAnd, group) else {
            continue;
        };
        cx.split_at_return(&all, b, after, origin);
    }
    // Facts that hold only together: where two or more forms of the core mention values, the
    // projection of their conjunction (`n > 0` and `n == 2*g + 3` for the same input `n` say
    // nothing alone; together, `2*g + 3 > 0`).
    for point in unstated {
        let a = pf.act_of[point];
        let mut group: Vec<Expr> = Vec::new();
        let mut origins: Vec<usize> = Vec::new();
        for &c in core {
            let conj = &pf.conjuncts[c];
            if conj.origin < point {
                continue;
            }
            // The form holding at `point`: the last recorded at a point >= point.
            let Some((_, e)) = conj.forms.iter().rev().find(|(q, _)| *q >= point) else {
                continue;
            };
            if cx.restate(e, a).is_none() {
                group.push(e.clone());
                origins.push(conj.origin);
            }
        }
        let origin = origins.iter().copied().max().unwrap_or(0);
        if group.len() < 2 {
            continue;
        }
        let Some(both) = Expr::join(BinOp::LogAnd, group) else {
            continue;
        };
        if let Some(r) = cx.project(&both, a, point, &origins) {
            cx.add_atoms(&r, pf.acts[a].func, origin, point, "projection");
        }
    }
    cx.cands.finish(prover, existing)
}

fn var_expr(prog: &Program, v: VarId) -> Expr {
    Expr {
        kind: ExprKind::Var(v),
        ty: prog.var(v).ty.clone(),
    }
}

/// Whether `e` reads the value of a variable of `vars` (a variable whose address alone is
/// taken, `&v`, is not read).
fn reads_value_of(e: &Expr, vars: &[VarId]) -> bool {
    match &e.kind {
        ExprKind::Var(v) => vars.contains(v),
        ExprKind::AddrOf(l) if matches!(l.kind, ExprKind::Var(_)) => false,
        _ => e.children().into_iter().any(|c| reads_value_of(c, vars)),
    }
}

/// `∃ elim. e` ([`Prover::project`]) where `e` may also read memory, take addresses and
/// compare pointers: each maximal such term that mentions no eliminated variable is a value the
/// elimination keeps (a fresh variable of a copy of the program; a `_Bool` for a pointer
/// comparison, the alias condition of Morris's axiom such as `q == &g`), put back in the
/// result.
fn project_terms(prog: &Program, prover: &Prover<'_>, e: &Expr, elim: &[VarId]) -> Option<Expr> {
    let mut ext = prog.clone();
    let mut terms: Vec<(VarId, Expr)> = Vec::new();
    // A variable only under `&` is not read: `&g == w` stays an opaque alias condition when
    // `g`'s value is eliminated.
    let mentions = |x: &Expr| reads_value_of(x, elim);
    let pointer_comparison = |x: &Expr| {
        matches!(&x.kind, ExprKind::Binary(op, a, _)
            if op.is_comparison() && matches!(a.ty, CType::Pointer(_)))
    };
    let opaque = e.map_bottom_up(&mut |x| {
        let memory = matches!(
            x.kind,
            ExprKind::Deref(_) | ExprKind::Field(..) | ExprKind::Index(..) | ExprKind::AddrOf(_)
        );
        let comparison = pointer_comparison(&x);
        if !(memory || comparison) || mentions(&x) {
            return x;
        }
        if let Some((v, _)) = terms.iter().find(|(_, t)| *t == x) {
            return var_expr(&ext, *v);
        }
        let ty = if comparison {
            CType::Int(cir::types::IntKind::Bool)
        } else {
            x.ty.clone()
        };
        let v = fresh_var(&mut ext, ty, format!("term!{}", terms.len()), FuncId(0));
        terms.push((v, x));
        var_expr(&ext, v)
    });
    let x = Prover::new(&ext, prover.semantics())
        .with_rlimit(prover.rlimit())
        .project(&opaque, elim)?;
    // A comparison's stand-in reads back as a truth value (`b == 0`, `b != 0`): the
    // comparison itself, negated or not.
    let truth = |v: VarId| {
        terms
            .iter()
            .find(|(w, t)| *w == v && pointer_comparison(t))
            .map(|(_, t)| t.clone())
    };
    let x = x.map_bottom_up(&mut |y| match &y.kind {
        ExprKind::Binary(op @ (BinOp::Eq | BinOp::Ne), a, b) => {
            let v = match (&a.kind, &b.kind) {
                (ExprKind::Var(v), ExprKind::Const(0)) | (ExprKind::Const(0), ExprKind::Var(v)) => {
                    v
                }
                _ => return y,
            };
            match (truth(*v), op) {
                (Some(t), BinOp::Ne) => t,
                (Some(t), _) => Expr {
                    kind: ExprKind::Unary(UnOp::LogNot, Box::new(t)),
                    ty: CType::INT,
                },
                (None, _) => y,
            }
        }
        _ => y,
    });
    // Put the terms back, the last made first (a term may contain an earlier one).
    let mut x = x;
    for (v, t) in terms.iter().rev() {
        x = cir::wp::subst_vars(&x, &|w| (w == *v).then(|| t.clone()));
    }
    Some(x)
}

impl<'a> Ctx<'a> {
    fn new(
        prog: &'a Program,
        pts: &'a PointsTo,
        pf: &'a PathFormula,
        path: &'a [CStep],
        prover: &'a Prover<'a>,
        cands: Candidates,
    ) -> Self {
        Ctx {
            prog,
            pts,
            pf,
            path,
            prover,
            syms: pf.symbols.iter().map(|s| (s.var, s.kind)).collect(),
            cands,
            ext_prover: Prover::new(&pf.ext, prover.semantics()).with_rlimit(prover.rlimit()),
            projections: HashMap::new(),
            refutes: HashMap::new(),
            derivations: RETURN_DERIVATIONS,
            attempts: RETURN_PROJECTIONS,
            core_end: path.len(),
        }
    }
}

impl Ctx<'_> {
    /// The predicates of conjunct `c` (see the module doc): its forms restated (or projected,
    /// their points added to `unstated`), and the return predicates of the calls it spans.
    fn conjunct(&mut self, c: usize, unstated: &mut BTreeSet<usize>) {
        let pf = self.pf;
        let path = self.path;
        let conj = &pf.conjuncts[c];
        for (k, (point, e)) in conj.forms.iter().enumerate() {
            let a = pf.act_of[*point];
            let kind = if k == 0 { "condition" } else { "precondition" };
            if let Some(r) = self.restate(e, a) {
                self.add_atoms(&r, pf.acts[a].func, conj.origin, *point, kind);
            } else {
                unstated.insert(*point);
                if let Some(r) = self.project(e, a, *point, &[conj.origin]) {
                    self.add_atoms(&r, pf.acts[a].func, conj.origin, *point, "projection");
                }
            }
        }
        // Return predicates: the caller's fact right after each return the conjunct spans.
        for (b, act) in pf.acts.iter().enumerate() {
            let (Some(r), Some(parent), Some(cs)) = (act.return_step, act.parent, act.call_step)
            else {
                continue;
            };
            let after = r + 1;
            if after >= path.len() || after > conj.origin || pf.act_of[after] != parent {
                continue;
            }
            // The form holding at `after`: the last recorded at a point >= after.
            let Some((_, e)) = conj.forms.iter().rev().find(|(p, _)| *p >= after) else {
                continue;
            };
            if let Some(x) = self.restate_return(e, b, cs) {
                self.add_atoms(&x, act.func, conj.origin, after, "return");
            } else {
                self.split_at_return(e, b, after, conj.origin);
            }
        }
        // Return predicates from the callee's own condition, carried forward to its return.
        if let Some((r, x)) = self.forward_to_return(c) {
            let f = pf.acts[pf.act_of[r]].func;
            self.add_atoms(&x, f, conj.origin, r, "return");
        }
    }

    /// `e` (holding in activation `a`) over the variables of `a`'s function, or `None`.
    fn restate(&self, e: &Expr, a: usize) -> Option<Expr> {
        let prog = self.prog;
        let act = &self.pf.acts[a];
        let ok = std::cell::Cell::new(true);
        let r = cir::wp::subst_vars(e, &|v| {
            if (v.0 as usize) < prog.vars.len() {
                if prog.var(v).is_global() || owner(prog, v) == Some(act.func) {
                    return None;
                }
                // A caller's local whose address this activation received: `*f`.
                let through = self.formal_pointing_to(a, v);
                if through.is_none() {
                    ok.set(false);
                }
                return through;
            }
            match self.syms.get(&v) {
                Some(SymKind::Frozen { owner: o, var: x }) if act.parent == Some(*o) => {
                    let formal = self.formal_for(a, *x);
                    if formal.is_none() {
                        ok.set(false);
                    }
                    formal
                }
                _ => {
                    ok.set(false);
                    None
                }
            }
        });
        ok.get().then_some(r)
    }

    /// A form that mentions values no program variable holds (an input read by a havoc, a
    /// local's value at its activation's entry, another activation's local): the fact over
    /// `a`'s variables that some choice of those values makes it hold, `∃ values. e`
    /// ([`Prover::project`]). Weakest preconditions carry a fact back to the havoc of a value
    /// it reads and no further; before the havoc what holds is the projection, e.g. for
    /// `n + 2u < x1` with `n` the input, `(unsigned)x1 > 0`: the abstraction then knows, at
    /// `x1 = 0`, that no input passes the test after it. `None` when nothing but values would
    /// remain (a constant), when the form is large, or when the projection fails.
    fn project(&mut self, e: &Expr, a: usize, point: usize, stands_for: &[usize]) -> Option<Expr> {
        const MAX_NODES: usize = 128;
        let prog = self.prog;
        let n = prog.vars.len();
        let mut nodes = 0;
        let mut elim = BTreeSet::new();
        let mut kept = false;
        e.walk(&mut |x| {
            nodes += 1;
            if let ExprKind::Var(v) = x.kind {
                if (v.0 as usize) < n {
                    kept = true;
                } else {
                    let restatable = matches!(
                        self.syms.get(&v),
                        Some(SymKind::Frozen { owner: o, var: y })
                            if self.pf.acts[a].parent == Some(*o) && self.formal_for(a, *y).is_some()
                    );
                    if restatable {
                        kept = true;
                    } else {
                        elim.insert(v);
                    }
                }
            }
        });
        if elim.is_empty() || !kept || nodes > MAX_NODES {
            return None;
        }
        let key = cir::smt::canonical(&self.pf.ext, e);
        let x = match self.projections.get(&key) {
            Some(x) => x.clone(),
            None => {
                let elim: Vec<VarId> = elim.into_iter().collect();
                let x = project_terms(&self.pf.ext, &self.ext_prover, e, &elim);
                tracing::debug!(
                    form = %self.pf.ext.show_expr(e),
                    projection = ?x.as_ref().map(|x| self.pf.ext.show_expr(x)),
                    "projection"
                );
                self.projections.insert(key.clone(), x.clone());
                x
            }
        };
        let r = self.restate(&x?, a)?;
        let key = format!(
            "{point} {stands_for:?} {}",
            cir::smt::canonical(self.prog, &r)
        );
        if let Some(kept) = self.refutes.get(&key) {
            return kept.clone();
        }
        let kept = self.refuting_part(r.clone(), point, stands_for);
        tracing::debug!(
            projection = %self.prog.show_expr(&r),
            kept = ?kept.as_ref().map(|k| self.prog.show_expr(k)),
            point,
            "projection"
        );
        self.refutes.insert(key, kept.clone());
        kept
    }

    /// The part of projection `p` that refutes the path at `point` ([`Self::refutes_at`]):
    /// `None` when `p` does not; else `p` with every conjunct of each disjunct dropped that the
    /// refutation does not need, one at a time in order (an overflow bound such as
    /// `g <= 1073741822` next to the fact `g >= -1` is true on the path and only burdens the
    /// abstraction).
    fn refuting_part(&self, p: Expr, point: usize, stands_for: &[usize]) -> Option<Expr> {
        if !self.refutes_at(&p, point, stands_for) {
            return None;
        }
        let mut alts: Vec<Vec<Expr>> = p
            .operands(BinOp::LogOr)
            .into_iter()
            .map(|a| a.operands(BinOp::LogAnd))
            .collect();
        let whole = |alts: &[Vec<Expr>]| {
            Expr::join(
                BinOp::LogOr,
                alts.iter()
                    .filter_map(|a| Expr::join(BinOp::LogAnd, a.clone())),
            )
        };
        for i in 0..alts.len() {
            let mut k = 0;
            while alts[i].len() > 1 && k < alts[i].len() {
                let mut trial = alts.clone();
                trial[i].remove(k);
                if whole(&trial).is_some_and(|t| self.refutes_at(&t, point, stands_for)) {
                    alts = trial;
                } else {
                    k += 1;
                }
            }
        }
        // A disjunct that now implies another goes (`x < y || x - y <= -2147483647`).
        whole(&alts).map(|w| self.prover.tidy(w))
    }

    /// Whether projection `p` refutes the path at step `j`: no state the path reaches before
    /// `j` satisfies it ([`Self::refutes_prefix`]), or the path stays infeasible with `p` in
    /// place of the core assumes it was projected from (`stands_for`, [`Self::replaces`]). A
    /// projection is kept only then: `∃ value. form` is often a mere overflow bound
    /// (`∃n. n == 2*g + 3` is `-1073741825 <= g && g <= 1073741822`, since `n` is an `int`):
    /// true on the path, of no use to the abstraction, and a burden to c2bp's cube searches.
    fn refutes_at(&self, p: &Expr, j: usize, stands_for: &[usize]) -> bool {
        self.refutes_prefix(p, j) || (!stands_for.is_empty() && self.replaces(p, j, stands_for))
    }

    /// Whether the whole path stays infeasible with `p` assumed before step `j` in place of
    /// the assumes at the steps `stands_for` (the core conjuncts it was projected from): a fact
    /// that refutes the path only together with what the path does later, e.g. a callee's
    /// `g == 0` at its entry, contradicted by its caller after the return (`*q == 2` with
    /// `q == &g`).
    fn replaces(&self, p: &Expr, j: usize, stands_for: &[usize]) -> bool {
        let Ok((pf, inserted)) = crate::symbolic::path_formula_with(
            self.prog,
            self.pts,
            &self.path[..self.core_end],
            j,
            p.clone(),
        ) else {
            return false;
        };
        if pf.conjuncts[inserted].at_start.is_none() {
            return false;
        }
        self.unsat_at_start(&pf, |i, c| i == inserted || !stands_for.contains(&c.origin))
    }

    /// Whether the conjuncts of `pf` that `keep` selects (by index), read at the start, cannot
    /// hold together.
    fn unsat_at_start(
        &self,
        pf: &PathFormula,
        keep: impl Fn(usize, &crate::symbolic::Conjunct) -> bool,
    ) -> bool {
        let all: Vec<Expr> = pf
            .conjuncts
            .iter()
            .enumerate()
            .filter(|&(i, c)| keep(i, c))
            .filter_map(|(_, c)| c.at_start.clone())
            .collect();
        let prover =
            Prover::new(&pf.ext, self.prover.semantics()).with_rlimit(self.prover.rlimit());
        prover.is_satisfiable(&all) == SatAnswer::Unsat
    }

    /// Whether no state the path reaches before step `j` satisfies `p` (see
    /// [`Self::refutes_at`]). At a callee's entry `p` is read in the caller before the call,
    /// the formals replaced by the actual parameters; right after a return, in the caller.
    fn refutes_prefix(&self, p: &Expr, j: usize) -> bool {
        let prog = self.prog;
        let (prefix, goal) = match j.checked_sub(1) {
            Some(c)
                if self.pf.act_of[j] != self.pf.act_of[c]
                    && self.pf.acts[self.pf.act_of[j]].call_step == Some(c) =>
            {
                let EdgeKind::Call { args, .. } = &edge(prog, self.path[c]).kind else {
                    return false;
                };
                let g = &prog.functions[self.pf.acts[self.pf.act_of[j]].func.0 as usize];
                let sub: BTreeMap<VarId, Expr> = g
                    .formals
                    .iter()
                    .zip(args)
                    .map(|(&f, arg)| (f, cir::wp::convert(arg, &prog.var(f).ty)))
                    .collect();
                (
                    &self.path[..c],
                    cir::wp::subst_vars(p, &|v| sub.get(&v).cloned()),
                )
            }
            _ => (&self.path[..j], p.clone()),
        };
        let Ok(pf) = crate::symbolic::path_formula_then(prog, self.pts, prefix, goal) else {
            return false;
        };
        let Some(last) = pf.conjuncts.last().filter(|c| c.origin == prefix.len()) else {
            return false;
        };
        if last.at_start.is_none() {
            return false;
        }
        self.unsat_at_start(&pf, |_, _| true)
    }

    /// The formal of activation `a`'s function whose actual parameter is the caller's `x`.
    fn formal_for(&self, a: usize, x: VarId) -> Option<Expr> {
        let act = &self.pf.acts[a];
        let cs = act.call_step?;
        let EdgeKind::Call { args, .. } = &edge(self.prog, self.path[cs]).kind else {
            return None;
        };
        let g = &self.prog.functions[act.func.0 as usize];
        args.iter()
            .zip(&g.formals)
            .find(|(arg, _)| matches!(arg.kind, ExprKind::Var(v) if v == x))
            .map(|(_, &f)| var_expr(self.prog, f))
    }

    /// `*f` for the formal `f` of activation `a` whose actual was `&x` (`x` a local of the
    /// caller, alive while `a` runs; formals are never assigned, the lowering copies those the
    /// C code assigns), or `None`.
    fn formal_pointing_to(&self, a: usize, x: VarId) -> Option<Expr> {
        let act = &self.pf.acts[a];
        let parent = &self.pf.acts[act.parent?];
        if owner(self.prog, x) != Some(parent.func) {
            return None;
        }
        let cs = act.call_step?;
        let EdgeKind::Call { args, .. } = &edge(self.prog, self.path[cs]).kind else {
            return None;
        };
        let g = &self.prog.functions[act.func.0 as usize];
        let (_, &f) = args.iter().zip(&g.formals).find(|(arg, _)| {
            matches!(&arg.kind, ExprKind::AddrOf(l) if matches!(l.kind, ExprKind::Var(v) if v == x))
        })?;
        let fe = var_expr(self.prog, f);
        let CType::Pointer(t) = &fe.ty else {
            return None;
        };
        (**t == self.prog.var(x).ty).then(|| Expr {
            kind: ExprKind::Deref(Box::new(fe.clone())),
            ty: (**t).clone(),
        })
    }

    /// A caller fact right after the return of activation `b` (called at step `cs`) as a
    /// return predicate of `b`'s function: the result temporary becomes `\result`, caller
    /// variables passed as actuals become the formals.
    fn restate_return(&self, e: &Expr, b: usize, cs: usize) -> Option<Expr> {
        let prog = self.prog;
        let EdgeKind::Call {
            ret: Some(r), args, ..
        } = &edge(prog, self.path[cs]).kind
        else {
            return None;
        };
        if !cir::wp::mentions_var(e, *r) {
            return None;
        }
        let g = &prog.functions[self.pf.acts[b].func.0 as usize];
        let result = result_expr(g.ty.ret.clone());
        let ok = std::cell::Cell::new(true);
        let x = cir::wp::subst_vars(e, &|v| {
            if v == *r {
                return Some(result.clone());
            }
            if (v.0 as usize) < prog.vars.len() && prog.var(v).is_global() {
                return None;
            }
            let f = args
                .iter()
                .zip(&g.formals)
                .find(|(arg, _)| matches!(arg.kind, ExprKind::Var(w) if w == v))
                .map(|(_, &f)| var_expr(prog, f));
            if f.is_none() {
                ok.set(false);
            }
            f
        });
        ok.get().then_some(x)
    }

    /// The predicates of a return projection of the caller fact `e` right after activation
    /// `b` returns (at `after`): the callee's half, its explanation inside the callee, the
    /// caller's half and its weakest preconditions before the call. Reasons name `origin`.
    fn split_at_return(&mut self, e: &Expr, b: usize, after: usize, origin: usize) {
        let act = &self.pf.acts[b];
        let (Some(cs), Some(parent)) = (act.call_step, act.parent) else {
            return;
        };
        let (callee, caller) = (act.func, self.pf.acts[parent].func);
        // A form that still mentions a symbol (a value) is no caller fact.
        if vars_of(e)
            .iter()
            .any(|v| v.0 as usize >= self.prog.vars.len())
        {
            return;
        }
        let outputs = self.outputs(e, cs, after);
        let Some((x, at_after)) = self.return_projection(e, b, cs, after, &outputs) else {
            return;
        };
        self.add_atoms(&x, callee, origin, after, "return");
        self.derive_in_callee(b, &x, origin);
        // The caller's half reads the written globals by name: a read through a pointer that
        // may alias one (`*w` with `w == &g`) becomes Morris's case split
        // (`&g == w ? g : *w`), whose alias condition the elimination keeps as an opaque value.
        let mut split = e.clone();
        for &o in outputs.iter().filter(|&&o| self.prog.var(o).is_global()) {
            let g = var_expr(self.prog, o);
            match cir::wp::wp_assign(&g, &g, &split, self.pts) {
                Some(x) => split = x,
                None => return,
            }
        }
        if let Some(h) = self.caller_side(&split, &at_after, after, &outputs) {
            self.add_atoms(&h, caller, origin, after, "projection");
            self.derive_at(after, h, origin);
        }
    }

    /// A caller fact `e` right after the return of activation `b` (called at step `cs`) that
    /// mentions the call's result and caller locals no formal stands for (`x0 <= *p0 - r`
    /// after `r = rec(3)`, with `p0 == &x0`): what it says of the result alone given the
    /// caller's state at the call, `G(r) = ∃ values. (path to cs ∧ e)` (there `r <= 0`), as a
    /// return predicate `G(\result)` of `b`'s function — kept (minimised) only when the value
    /// the path returns falsifies it ([`Self::refuting_part`] at `after`). SLAM's return
    /// predicates (C2BP §4.5), learnt from the caller's side when the fact cannot be renamed;
    /// [`Self::derive_in_callee`] then explains them inside the callee, and
    /// [`Self::caller_side`] gives the caller the fact that pairs with them. With `G(r)`.
    fn return_projection(
        &mut self,
        e: &Expr,
        b: usize,
        cs: usize,
        after: usize,
        outputs: &[VarId],
    ) -> Option<(Expr, Expr)> {
        const MAX_NODES: usize = 256;
        let prog = self.prog;
        if self.attempts == 0 || outputs.is_empty() {
            return None;
        }
        self.attempts -= 1;
        // The written globals after the call are other values than before it: fresh variables
        // of a copy of the program stand for them in the walk to the call.
        let caller = self.pf.act_of[cs];
        let mut ext = prog.clone();
        let mut post: BTreeMap<VarId, VarId> = BTreeMap::new();
        for &o in outputs {
            if prog.var(o).is_global() {
                let info = prog.var(o);
                let name = format!("{}@after", info.name);
                let v = fresh_var(&mut ext, info.ty.clone(), name, self.pf.acts[caller].func);
                post.insert(o, v);
            } else {
                post.insert(o, o);
            }
        }
        // `e` in the state where each written global holds its value after the call: Morris's
        // axiom for `g := g@after` reads it by name and through every pointer that may alias it
        // (`*w` becomes `&g == w ? g@after : *w`; the path to the call decides the alias).
        let mut goal = e.clone();
        for (&o, &w) in post.iter().filter(|(o, w)| o != w) {
            goal = cir::wp::wp_assign(&var_expr(prog, o), &var_expr(&ext, w), &goal, self.pts)?;
        }
        let pf2 = path_formula_then(&ext, self.pts, &self.path[..cs], goal).ok()?;
        let goal = pf2
            .conjuncts
            .last()
            .filter(|c| c.origin == cs)?
            .at_start
            .clone()?;
        // The symbols of the outputs (their values at the caller's entry, never assigned on the
        // way: free), by output.
        let mut osym: BTreeMap<VarId, VarId> = BTreeMap::new();
        for (&o, &w) in &post {
            let s = pf2.symbols.iter().find(
                |s| matches!(s.kind, SymKind::Uninit { act, var } if act == caller && var == w),
            )?;
            osym.insert(s.var, o);
        }
        // The path's conditions that share values with the goal, transitively.
        let mut values: BTreeSet<VarId> = vars_of(&goal).into_iter().collect();
        let mut taken = vec![false; pf2.conjuncts.len()];
        let mut parts = vec![goal];
        let mut grew = true;
        while grew {
            grew = false;
            for (i, c) in pf2.conjuncts.iter().enumerate() {
                let Some(x) = c.at_start.as_ref().filter(|_| !taken[i] && c.origin < cs) else {
                    continue;
                };
                let vs = vars_of(x);
                if vs.iter().any(|v| values.contains(v)) {
                    taken[i] = true;
                    values.extend(vs);
                    parts.push(x.clone());
                    grew = true;
                }
            }
        }
        let all = Expr::join(BinOp::LogAnd, parts)?;
        let mut nodes = 0usize;
        all.walk(&mut |_| nodes += 1);
        if nodes > MAX_NODES {
            return None;
        }
        let elim: Vec<VarId> = values
            .into_iter()
            .filter(|v| !osym.contains_key(v))
            .collect();
        tracing::debug!(all = %pf2.ext.show_expr(&all), "return projection: project");
        let x = if elim.is_empty() {
            Some(all)
        } else {
            Prover::new(&pf2.ext, self.prover.semantics())
                .with_rlimit(self.prover.rlimit())
                .project(&all, &elim)
        };
        let x = x?;
        let vs = vars_of(&x);
        if vs.is_empty() || vs.iter().any(|v| !osym.contains_key(v)) {
            return None;
        }
        let at_after = cir::wp::subst_vars(&x, &|v| osym.get(&v).map(|&o| var_expr(prog, o)));
        tracing::debug!(fact = %prog.show_expr(e), outputs = %prog.show_expr(&at_after), "return projection");
        let kept = self.refuting_part(at_after, after, &[])?;
        let g = &prog.functions[self.pf.acts[b].func.0 as usize];
        let result = result_expr(g.ty.ret.clone());
        let ret = self.ret_of(cs);
        Some((
            cir::wp::subst_vars(&kept, &|v| (Some(v) == ret).then(|| result.clone())),
            kept,
        ))
    }

    /// The call's result temporary at step `cs`.
    fn ret_of(&self, cs: usize) -> Option<VarId> {
        match &edge(self.prog, self.path[cs]).kind {
            EdgeKind::Call { ret, .. } => *ret,
            _ => None,
        }
    }

    /// What the call at `cs` outputs that `e` (after it, at `after`) reads: its result
    /// temporary, and the globals an assignment between the call and `after` may write that
    /// `e` reads by name or through a pointer that may alias them (`*w`, `w` pointing to `g`).
    fn outputs(&self, e: &Expr, cs: usize, after: usize) -> Vec<VarId> {
        let prog = self.prog;
        let read = vars_of(e);
        let mut out: Vec<VarId> = self
            .ret_of(cs)
            .filter(|r| read.contains(r))
            .into_iter()
            .collect();
        let globals = (0..prog.vars.len() as u32)
            .map(VarId)
            .filter(|&v| prog.var(v).is_global())
            .filter(|&v| cir::wp::reads_alias(e, &var_expr(prog, v), self.pts));
        for g in globals {
            let written = (cs + 1..after).any(|j| match &edge(prog, self.path[j]).kind {
                EdgeKind::Assign { lhs, .. } | EdgeKind::Havoc { lhs, .. } => {
                    self.pts.objects(lhs).contains(&Loc::Var(g))
                }
                _ => false,
            });
            if written {
                out.push(g);
            }
        }
        out
    }

    /// The caller's half of a return projection `G(r)` for the fact `e` after the call, whose
    /// `outputs` ([`Self::outputs`]) it eliminates: what the caller's state must satisfy for `e` to hold with a result outside `G`,
    /// `H = ∃ r. (¬G(r) ∧ e)` (for `x <= *p - r` and `G = r <= 0`: `x < *p`), kept when it
    /// refutes the path at `after`. With it the abstraction decides `e` after the call from the
    /// return predicates: `¬H ∧ ¬G(r)` implies `¬e`.
    fn caller_side(&mut self, e: &Expr, g: &Expr, after: usize, outputs: &[VarId]) -> Option<Expr> {
        let prog = self.prog;
        let not_g = Expr {
            kind: ExprKind::Unary(UnOp::LogNot, Box::new(g.clone())),
            ty: CType::INT,
        };
        let both = Expr::join(BinOp::LogAnd, [not_g, e.clone()])?;
        let h = project_terms(prog, self.prover, &both, outputs)?;
        if reads_value_of(&h, outputs) || vars_of(&h).is_empty() {
            return None;
        }
        tracing::debug!(fact = %prog.show_expr(e), caller = %prog.show_expr(&h), "return projection: caller side");
        self.refuting_part(h, after, &[])
    }

    /// A return predicate `g` of activation `b`'s function from [`Self::return_projection`]:
    /// the value `b` returns on the path falsifies it. Its weakest preconditions inside `b` (a
    /// path formula to `b`'s return with `g[\result := v]` as its last conjunct, treated as a
    /// core conjunct) explain that there: local predicates, and return predicates of the calls
    /// `b` makes (`r + 2 <= 0` after `r = rec(n - 1)` gives `\result + 2 <= 0`), recursively,
    /// within [`RETURN_DERIVATIONS`]. Reasons name the core assume `origin`.
    fn derive_in_callee(&mut self, b: usize, g: &Expr, origin: usize) {
        let prog = self.prog;
        let act = &self.pf.acts[b];
        let (Some(rs), Some(cs)) = (act.return_step, act.call_step) else {
            return;
        };
        // Right after the return, over the caller's result temporary: the walk back through
        // the return reads it as the returned value.
        let goal = match self.ret_of(cs) {
            Some(r) => cir::pred::subst_result(g, &var_expr(prog, r)),
            None if !cir::pred::mentions_result(g) => g.clone(),
            None => return,
        };
        self.derive_at(rs + 1, goal, origin);
    }

    /// The weakest preconditions of `goal` (over program variables, before step `end`) along
    /// the path, treated as a core conjunct: the facts that explain a return predicate inside
    /// its callee ([`Self::derive_in_callee`]), or a caller's half of a return projection
    /// before the call (`x < *p` after the call is `x < x` right after `p = &x`). Reasons name
    /// the core assume `origin`.
    fn derive_at(&mut self, end: usize, goal: Expr, origin: usize) {
        if self.derivations == 0 {
            return;
        }
        self.derivations -= 1;
        let prog = self.prog;
        let Ok(pf3) = path_formula_then(prog, self.pts, &self.path[..end], goal) else {
            return;
        };
        let Some(c) = pf3.conjuncts.iter().position(|c| c.origin == end) else {
            return;
        };
        let cands = std::mem::replace(
            &mut self.cands,
            Candidates::new(prog, &PredicateSet::default(), Refiner::Wp),
        );
        let mut sub = Ctx::new(prog, self.pts, &pf3, &self.path[..end], self.prover, cands);
        sub.refutes = std::mem::take(&mut self.refutes);
        sub.derivations = self.derivations;
        sub.attempts = self.attempts;
        let from = sub.cands.pending.len();
        sub.conjunct(c, &mut BTreeSet::new());
        for (_, reason) in &mut sub.cands.pending[from..] {
            reason.from_assume = origin;
        }
        self.cands = sub.cands;
        self.refutes = sub.refutes;
        self.derivations = sub.derivations;
        self.attempts = sub.attempts;
    }

    /// A callee's condition (conjunct `c`'s assume) that still holds at its activation's
    /// `return v` — nothing in between assigns a variable it reads, and the activation makes
    /// no call — read at the return with `\result` for `v` (a variable): the return predicate
    /// of the Constrain paper's Fig. 3 (`a < b` until `return b`: `a < \result` in `foo`),
    /// through which callers learn from calls. With the return step.
    fn forward_to_return(&self, c: usize) -> Option<(usize, Expr)> {
        let prog = self.prog;
        let pf = self.pf;
        let conj = &pf.conjuncts[c];
        // (A goal after the path, [`Self::derive_in_callee`]'s, is no assume.)
        let a = *pf.act_of.get(conj.origin)?;
        let r = pf.acts[a].return_step?;
        pf.acts[a].parent?;
        let EdgeKind::Return(Some(v)) = &edge(prog, self.path[r]).kind else {
            return None;
        };
        let g = &prog.functions[pf.acts[a].func.0 as usize];
        // (The returned variable of the function's return type: `\result` stands for it.)
        let ExprKind::Var(w) = v.kind else {
            return None;
        };
        if prog.var(w).ty != g.ty.ret {
            return None;
        }
        let EdgeKind::Assume(cond) = &edge(prog, self.path[conj.origin]).kind else {
            return None;
        };
        if !cir::wp::mentions_var(cond, w) {
            return None;
        }
        for j in conj.origin + 1..r {
            if pf.act_of[j] != a {
                return None;
            }
            match &edge(prog, self.path[j]).kind {
                EdgeKind::Assign { lhs, .. } | EdgeKind::Havoc { lhs, .. } => match lhs.kind {
                    ExprKind::Var(x) if !cir::wp::mentions_var(cond, x) => {}
                    _ => return None,
                },
                EdgeKind::Call { .. } => return None,
                _ => {}
            }
        }
        let result = result_expr(g.ty.ret.clone());
        let x = cir::wp::subst_vars(cond, &|x| (x == w).then(|| result.clone()));
        Some((r, x))
    }

    fn add_atoms(&mut self, e: &Expr, func: FuncId, origin: usize, at: usize, kind: &str) {
        let mut atoms = Vec::new();
        split_atoms(e, &mut atoms);
        for atom in atoms {
            let atom = simplify(self.prog, &atom);
            self.cands
                .candidate(self.prog, atom, func, origin, at, kind);
        }
    }
}

/// Splits a fact into atoms: through `&&`, `||`, `!` and conditionals (`c ? a : b` inside an
/// atom gives `c` and the atom with `a`, and with `b`).
pub fn split_atoms(e: &Expr, out: &mut Vec<Expr>) {
    match &e.kind {
        ExprKind::Binary(BinOp::LogAnd | BinOp::LogOr, a, b) => {
            split_atoms(a, out);
            split_atoms(b, out);
        }
        ExprKind::Unary(UnOp::LogNot, a) => split_atoms(a, out),
        _ => {
            if let Some((c, with_a, with_b)) = split_cond(e) {
                split_atoms(&c, out);
                split_atoms(&with_a, out);
                split_atoms(&with_b, out);
            } else if !out.contains(e) {
                out.push(e.clone());
            }
        }
    }
}

/// The first conditional of `e` (pre-order): its condition, and `e` with the conditional
/// replaced by each branch.
fn split_cond(e: &Expr) -> Option<(Expr, Expr, Expr)> {
    if let ExprKind::Cond(c, a, b) = &e.kind {
        return Some(((**c).clone(), (**a).clone(), (**b).clone()));
    }
    let rebuild = |k: ExprKind| Expr {
        kind: k,
        ty: e.ty.clone(),
    };
    match &e.kind {
        ExprKind::Unary(op, x) => {
            let (c, a, b) = split_cond(x)?;
            Some((
                c,
                rebuild(ExprKind::Unary(*op, Box::new(a))),
                rebuild(ExprKind::Unary(*op, Box::new(b))),
            ))
        }
        ExprKind::Cast(x) | ExprKind::AddrOf(x) | ExprKind::Deref(x) | ExprKind::Field(x, _) => {
            let (c, a, b) = split_cond(x)?;
            let wrap = |y: Expr| match &e.kind {
                ExprKind::Cast(_) => rebuild(ExprKind::Cast(Box::new(y))),
                ExprKind::AddrOf(_) => rebuild(ExprKind::AddrOf(Box::new(y))),
                ExprKind::Deref(_) => rebuild(ExprKind::Deref(Box::new(y))),
                ExprKind::Field(_, f) => rebuild(ExprKind::Field(Box::new(y), f.clone())),
                _ => unreachable!("matched above"),
            };
            Some((c, wrap(a), wrap(b)))
        }
        ExprKind::Binary(op, x, y) => {
            if let Some((c, a, b)) = split_cond(x) {
                return Some((
                    c,
                    rebuild(ExprKind::Binary(*op, Box::new(a), y.clone())),
                    rebuild(ExprKind::Binary(*op, Box::new(b), y.clone())),
                ));
            }
            let (c, a, b) = split_cond(y)?;
            Some((
                c,
                rebuild(ExprKind::Binary(*op, x.clone(), Box::new(a))),
                rebuild(ExprKind::Binary(*op, x.clone(), Box::new(b))),
            ))
        }
        ExprKind::Index(x, y) => {
            if let Some((c, a, b)) = split_cond(x) {
                return Some((
                    c,
                    rebuild(ExprKind::Index(Box::new(a), y.clone())),
                    rebuild(ExprKind::Index(Box::new(b), y.clone())),
                ));
            }
            let (c, a, b) = split_cond(y)?;
            Some((
                c,
                rebuild(ExprKind::Index(x.clone(), Box::new(a))),
                rebuild(ExprKind::Index(x.clone(), Box::new(b))),
            ))
        }
        _ => None,
    }
}

/// Whether every value of `from` is a value of `to` (a conversion that changes nothing).
fn widens(prog: &Program, from: &CType, to: &CType) -> bool {
    match (from, to) {
        (CType::Int(a), CType::Int(b)) => {
            let (lo1, hi1) = a.range(prog.data_model);
            let (lo2, hi2) = b.range(prog.data_model);
            lo2 <= lo1 && hi1 <= hi2
        }
        _ => false,
    }
}

/// `e` without a value-preserving integer cast on top.
fn strip_widening(prog: &Program, e: &Expr) -> Expr {
    match &e.kind {
        ExprKind::Cast(x) if widens(prog, &x.ty, &e.ty) => strip_widening(prog, x),
        _ => e.clone(),
    }
}

/// The constant value of `e` (through casts that keep it).
fn constant(prog: &Program, e: &Expr) -> Option<i128> {
    match &e.kind {
        ExprKind::Const(c) => Some(*c),
        ExprKind::Cast(x) => {
            let v = constant(prog, x)?;
            match e.ty {
                CType::Int(k) => {
                    let (lo, hi) = k.range(prog.data_model);
                    (lo <= v && v <= hi).then_some(v)
                }
                _ => None,
            }
        }
        _ => None,
    }
}

/// `e` without the arithmetic identities the weakest preconditions of a path leave behind
/// (`x * 1`, `e + 0`, `0 + e`, `e - 0`), where the operand already has the operation's type,
/// and with the constants of `a ± c1 ± c2` folded into one (`x + 1 + 1` is `x + 2`: a loop
/// unrolled by weakest preconditions is then one predicate per iteration, the same up to a
/// constant, not a growing term) where all have one type and the folded constant is one of its
/// values: the value is the same under both semantics (mathematical integers for signed types
/// in integer mode; modulo 2^w for unsigned types, and for every type in bit-vector mode).
fn fold_identities(prog: &Program, e: &Expr) -> Expr {
    e.map_bottom_up(&mut |x| {
        if let Some(unwrapped) = drop_inner_wraps(prog, &x) {
            return unwrapped;
        }
        let ExprKind::Binary(op, a, b) = &x.kind else {
            return x;
        };
        if let Some(folded) = fold_constants(prog, &x) {
            return folded;
        }
        let is = |k: &Expr, v: i128| constant(prog, k) == Some(v);
        let keep = match op {
            BinOp::Mul if is(b, 1) && a.ty == x.ty => Some(a),
            BinOp::Mul if is(a, 1) && b.ty == x.ty => Some(b),
            BinOp::Add | BinOp::Sub if is(b, 0) && a.ty == x.ty => Some(a),
            BinOp::Add if is(a, 0) && b.ty == x.ty => Some(b),
            _ => None,
        };
        match keep {
            Some(k) => (**k).clone(),
            None => x,
        }
    })
}

/// `(a ± c1) ± c2` as `a ± c` (see [`fold_identities`]), `a` when `c` is 0.
fn fold_constants(prog: &Program, x: &Expr) -> Option<Expr> {
    let ExprKind::Binary(op @ (BinOp::Add | BinOp::Sub), inner, c2) = &x.kind else {
        return None;
    };
    let ExprKind::Binary(op2 @ (BinOp::Add | BinOp::Sub), a, c1) = &inner.kind else {
        return None;
    };
    let (k1, k2) = (constant(prog, c1)?, constant(prog, c2)?);
    // `a` may be narrower than the operation (`b + 255 - 3` with `b` an `unsigned char`): it is
    // promoted to it in both steps alike.
    if inner.ty != x.ty || a.ty.promoted() != x.ty || c1.ty != x.ty || c2.ty != x.ty {
        return None;
    }
    let signed = |o: &BinOp, k: i128| if *o == BinOp::Add { k } else { -k };
    let k = signed(op2, k1).checked_add(signed(op, k2))?;
    let CType::Int(kind) = x.ty else {
        return None;
    };
    let (lo, hi) = kind.range(prog.data_model);
    if k == 0 {
        return Some((**a).clone());
    }
    let (o, m) = if k > 0 {
        (BinOp::Add, k)
    } else {
        (BinOp::Sub, -k)
    };
    (lo <= m && m <= hi).then(|| Expr {
        kind: ExprKind::Binary(o, a.clone(), Box::new(Expr::int(m, x.ty.clone()))),
        ty: x.ty.clone(),
    })
}

/// The width of `ty` when it is an integer type other than `_Bool` (whose conversion is a test
/// against zero, not a reduction modulo 2).
fn int_width(prog: &Program, ty: &CType) -> Option<(u32, bool)> {
    match ty {
        CType::Int(k) if *k != cir::types::IntKind::Bool => {
            Some((k.width(prog.data_model), k.is_signed()))
        }
        _ => None,
    }
}

/// `(T)y` for an unsigned `T` of width w narrower than `y`'s type, without the conversions
/// inside `y` that `(T)` makes redundant: under `+`, `-`, `*` and negation, an operand
/// converted to integer types at least w wide is its unconverted self modulo 2^w (every
/// integer conversion to a type of width W ≥ w keeps the value modulo 2^W), and reduction
/// modulo 2^w is a ring homomorphism, so the value of `(T)y` does not change
/// (`(unsigned char)((unsigned char)(b + 255) - 3)` is `(unsigned char)(b + 252)` once the
/// constants fold). Exact under both semantics: the narrowing `(T)` is a reduction modulo 2^w
/// of any integer, and the operations in `y` are exact over the integers or modulo 2^W with
/// W ≥ w. An operand is replaced only by one whose promoted type is the same, so the text
/// means the same when it is read again. Without this, a loop over an `unsigned char` counter
/// unrolled by weakest preconditions nests one more conversion per iteration, which hides the
/// repetition from the divergence detector and grows every prover query.
fn drop_inner_wraps(prog: &Program, x: &Expr) -> Option<Expr> {
    let ExprKind::Cast(y) = &x.kind else {
        return None;
    };
    let (w, signed) = int_width(prog, &x.ty)?;
    if signed || int_width(prog, &y.ty)?.0 <= w {
        return None;
    }
    let stripped = strip_wraps(prog, y, w);
    let inner = match &stripped {
        Some(s) => fold_identities(prog, s),
        None => (**y).clone(),
    };
    let reduced = reduce_addend(prog, &inner, w);
    if stripped.is_none() && reduced.is_none() {
        return None;
    }
    Some(Expr {
        kind: ExprKind::Cast(Box::new(reduced.unwrap_or(inner))),
        ty: x.ty.clone(),
    })
}

/// `a ± k` under a reduction modulo 2^w (see [`drop_inner_wraps`]) with `k` replaced by its
/// residue nearest to zero (`(unsigned char)(b + 759)` is `(unsigned char)(b - 9)`), so that the
/// predicates of successive unrolled iterations meet again instead of growing; `None` when `k`
/// is already that residue.
fn reduce_addend(prog: &Program, e: &Expr, w: u32) -> Option<Expr> {
    let ExprKind::Binary(op @ (BinOp::Add | BinOp::Sub), a, c) = &e.kind else {
        return None;
    };
    let k = constant(prog, c)?;
    let k = if *op == BinOp::Add { k } else { -k };
    let m = 1i128 << w;
    let r = k.rem_euclid(m);
    let r = if r > m / 2 { r - m } else { r };
    if r == k {
        return None;
    }
    if r == 0 {
        return Some((**a).clone());
    }
    let (o, v) = if r > 0 {
        (BinOp::Add, r)
    } else {
        (BinOp::Sub, -r)
    };
    Some(Expr {
        kind: ExprKind::Binary(o, a.clone(), Box::new(Expr::int(v, c.ty.clone()))),
        ty: e.ty.clone(),
    })
}

/// `y` with the redundant conversions of [`drop_inner_wraps`] removed, or `None` when it has
/// none.
fn strip_wraps(prog: &Program, y: &Expr, w: u32) -> Option<Expr> {
    if int_width(prog, &y.ty)?.0 < w {
        return None;
    }
    let kind = match &y.kind {
        ExprKind::Binary(op @ (BinOp::Add | BinOp::Sub | BinOp::Mul), a, b) => {
            let (na, nb) = (strip_wraps(prog, a, w), strip_wraps(prog, b, w));
            if na.is_none() && nb.is_none() {
                return None;
            }
            ExprKind::Binary(
                *op,
                Box::new(na.unwrap_or_else(|| (**a).clone())),
                Box::new(nb.unwrap_or_else(|| (**b).clone())),
            )
        }
        ExprKind::Unary(UnOp::Neg, a) => {
            ExprKind::Unary(UnOp::Neg, Box::new(strip_wraps(prog, a, w)?))
        }
        ExprKind::Cast(_) => {
            let mut inner = y;
            while let ExprKind::Cast(z) = &inner.kind
                && int_width(prog, &inner.ty).is_some_and(|(wi, _)| wi >= w)
                && int_width(prog, &z.ty).is_some_and(|(wz, _)| wz >= w)
            {
                inner = z;
            }
            if std::ptr::eq(inner, y) || inner.ty.promoted() != y.ty.promoted() {
                return None;
            }
            return Some(strip_wraps(prog, inner, w).unwrap_or_else(|| inner.clone()));
        }
        _ => return None,
    };
    Some(Expr {
        kind,
        ty: y.ty.clone(),
    })
}

/// A predicate in simpler words with the same meaning (the normalisation of Newton's predicates
/// before they are compared with those already present):
/// comparison operands lose value-preserving casts (`(long long)x != 5` is `x != 5`: the
/// comparison converts both sides to a common type that holds both values), and an (in)equality
/// between `a ± c1 ± c2 …` and a constant `k` folds the constants (`x + 1 + 1 == 1` is
/// `x == -1`) when `a` has a signed type whose range holds the folded constant: `==`/`!=`
/// hold modulo 2^w as well as over the integers, so the rewrite is exact under both the
/// integer and the bit-vector semantics.
pub fn simplify(prog: &Program, e: &Expr) -> Expr {
    let ExprKind::Binary(op, a, b) = &e.kind else {
        return e.clone();
    };
    if !op.is_comparison() {
        return e.clone();
    }
    let (a, b) = (fold_identities(prog, a), fold_identities(prog, b));
    let (mut a, mut b) = (strip_widening(prog, &a), strip_widening(prog, &b));
    if matches!(op, BinOp::Eq | BinOp::Ne) {
        if constant(prog, &a).is_some() && constant(prog, &b).is_none() {
            std::mem::swap(&mut a, &mut b);
        }
        if let Some(mut k) = constant(prog, &b) {
            let mut base = a.clone();
            loop {
                match &base.kind {
                    ExprKind::Binary(o @ (BinOp::Add | BinOp::Sub), x, c)
                        if constant(prog, c).is_some() && base.ty == x.ty =>
                    {
                        let c = constant(prog, c).unwrap_or(0);
                        k = if *o == BinOp::Add { k - c } else { k + c };
                        base = (**x).clone();
                    }
                    _ => break,
                }
            }
            if let CType::Int(kind) = base.ty
                && kind.is_signed()
                && base != a
            {
                let (lo, hi) = kind.range(prog.data_model);
                if lo <= k && k <= hi {
                    let base = strip_widening(prog, &base);
                    let (ilo, ihi) = cir::types::IntKind::Int.range(prog.data_model);
                    let kt = match base.ty {
                        CType::Int(bk)
                            if {
                                let (l, h) = bk.range(prog.data_model);
                                l <= ilo && ihi <= h
                            } =>
                        {
                            base.ty.clone()
                        }
                        _ => CType::INT,
                    };
                    let konst = Expr::int(k, kt);
                    return Expr {
                        kind: ExprKind::Binary(*op, Box::new(base), Box::new(konst)),
                        ty: e.ty.clone(),
                    };
                }
            }
        }
    }
    Expr {
        kind: ExprKind::Binary(*op, Box::new(a), Box::new(b)),
        ty: e.ty.clone(),
    }
}
