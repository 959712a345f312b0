//! Candidate predicates, as every refiner of newton proposes them: each atom put in its scope
//! (global when it mentions global storage only, else its function's; `\\result` makes it a
//! return predicate), normalised ([`cir::pred::normalize`]), never one already present (also
//! as its negation) or one that does not read back as a predicate of its scope; then
//! [`Candidates::finish`] keeps those that are neither constant nor equivalent to a predicate
//! of their scope, present or kept before them. Each comes with its [`Reason`], which names
//! the [`Refiner`] that proposed it.

use std::collections::{BTreeMap, BTreeSet};

use cir::ir::{Expr, ExprKind, FuncId, Program, UnOp, VarId};
use cir::pred::{PredScope, Predicate, PredicateSet, normalize, parse_predicate};
use cir::smt::{Prover, SatAnswer};

/// How many undecided prover queries [`Candidates::finish`] accepts before it keeps the
/// remaining candidates without checking them (each such query costs the prover's whole
/// resource limit).
const MAX_UNDECIDED: usize = 2;

/// The candidates of one refinement.
pub(crate) struct Candidates {
    /// Who proposes them (recorded in each [`Reason`]).
    refiner: Refiner,
    /// Texts present per scope (existing and new), with negations.
    pub(crate) seen: BTreeMap<PredScope, BTreeSet<String>>,
    /// Candidates not yet checked for being constant.
    pub(crate) pending: Vec<(Predicate, Reason)>,
    out: PredicateSet,
    reasons: Vec<Reason>,
}

impl Candidates {
    /// No candidate yet; `existing` are the predicates present (never proposed again).
    pub(crate) fn new(prog: &Program, existing: &PredicateSet, refiner: Refiner) -> Candidates {
        let mut seen: BTreeMap<PredScope, BTreeSet<String>> = BTreeMap::new();
        for p in &existing.global {
            seen.entry(PredScope::Global)
                .or_default()
                .insert(p.text.clone());
        }
        for (f, ps) in &existing.per_function {
            if let Some(func) = prog.function(f) {
                let s = seen.entry(PredScope::Function(func.id)).or_default();
                for p in ps {
                    s.insert(p.text.clone());
                }
            }
        }
        Candidates {
            refiner,
            seen,
            pending: Vec::new(),
            out: PredicateSet::default(),
            reasons: Vec::new(),
        }
    }

    /// Records a candidate atom (scope, normal form, not yet present).
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn candidate(
        &mut self,
        prog: &Program,
        atom: Expr,
        func: FuncId,
        origin: usize,
        at: usize,
        kind: &str,
    ) {
        let mut has_var = false;
        let mut float = false;
        let mut all_global = true;
        let mut result = false;
        atom.walk(&mut |x| {
            float |= x.ty.is_float();
            result |= cir::pred::is_result(x);
            if let ExprKind::Var(v) = x.kind {
                has_var = true;
                all_global &= prog.var(v).is_global();
            }
        });
        if !(has_var || result) || float {
            return;
        }
        let scope = if all_global && !result {
            PredScope::Global
        } else {
            PredScope::Function(func)
        };
        let expr = normalize(atom);
        let text = prog.show_expr(&expr);
        let neg = normalize(Expr {
            kind: ExprKind::Unary(UnOp::LogNot, Box::new(expr.clone())),
            ty: cir::types::CType::INT,
        });
        let neg_text = prog.show_expr(&neg);
        let present = |s: &BTreeMap<PredScope, BTreeSet<String>>, sc: PredScope| {
            s.get(&sc)
                .is_some_and(|t| t.contains(&text) || t.contains(&neg_text))
        };
        if present(&self.seen, scope) || present(&self.seen, PredScope::Global) {
            return;
        }
        // The text must read back as the same predicate (what a predicate file holds).
        let Ok(p) = parse_predicate(&text, scope, prog) else {
            tracing::debug!(predicate = %text, "dropped: does not re-parse in its scope");
            return;
        };
        let text = p.text.clone();
        self.seen.entry(scope).or_default().insert(p.text.clone());
        let scope_name = match scope {
            PredScope::Global => "global".to_string(),
            PredScope::Function(f) => prog.functions[f.0 as usize].name.clone(),
        };
        self.pending.push((
            p,
            Reason {
                predicate: text,
                scope: scope_name,
                from_assume: origin,
                at_step: at,
                kind: kind.to_string(),
                refiner: self.refiner,
            },
        ));
    }

    /// Keeps the candidates that are neither valid nor unsatisfiable (constant facts are no
    /// predicates) nor equivalent to a predicate of their scope (or a global one), present or
    /// kept before them, or to its negation (`x * 1 <= b` and `x <= b`, `g + g < 0` and
    /// `g < 0`: the same Boolean variable twice gives c2bp nothing and costs it a predicate);
    /// equivalence is asked only of predicates over the same variables. Checked in one solver
    /// session. `\result` is no variable for the prover: a return predicate is kept as is.
    pub(crate) fn finish(mut self, prover: &Prover<'_>, existing: &PredicateSet) -> Chosen {
        let pending = std::mem::take(&mut self.pending);
        let checkable: Vec<usize> = (0..pending.len())
            .filter(|&i| !pending[i].0.is_return_predicate())
            .collect();
        let scopes: BTreeSet<PredScope> = checkable.iter().map(|&i| pending[i].0.scope).collect();
        // The atoms: the checkable candidates, then the present predicates they may repeat.
        let present: Vec<&Predicate> = existing
            .global
            .iter()
            .chain(existing.per_function.values().flatten())
            .filter(|p| {
                !p.is_return_predicate()
                    && (p.scope == PredScope::Global || scopes.contains(&p.scope))
            })
            .collect();
        let preds: Vec<&Predicate> = checkable
            .iter()
            .map(|&i| &pending[i].0)
            .chain(present.iter().copied())
            .collect();
        let atoms: Vec<Expr> = preds.iter().map(|p| p.expr.clone()).collect();
        let vars: Vec<BTreeSet<VarId>> = preds.iter().map(|p| p.vars()).collect();
        let n = checkable.len();
        let mut undecided = 0usize;
        let dropped: BTreeSet<usize> = if atoms.is_empty() {
            BTreeSet::new()
        } else {
            prover.with_solver(|cx| {
                cx.session(&atoms, |s| {
                    let mut kept: Vec<usize> = (n..atoms.len()).collect();
                    let mut dropped = BTreeSet::new();
                    // This filter only saves work later, so it must not cost more than it
                    // saves: a query the prover cannot decide within its limit (non-linear
                    // arithmetic, wrap-around) keeps the candidate unfiltered, and after
                    // `MAX_UNDECIDED` such queries the remaining candidates are kept unchecked.
                    for k in 0..n {
                        if undecided >= MAX_UNDECIDED {
                            kept.push(k);
                            continue;
                        }
                        let mut unsat =
                            |s: &mut cir::smt::Session<'_>, l: &[(usize, bool)]| match s.check(l) {
                                SatAnswer::Unsat => Some(true),
                                SatAnswer::Sat => Some(false),
                                SatAnswer::Unknown => {
                                    undecided += 1;
                                    None
                                }
                            };
                        let drop = (|| {
                            if unsat(s, &[(k, true)])? || unsat(s, &[(k, false)])? {
                                return Some(true);
                            }
                            for &j in &kept {
                                let same_scope = preds[j].scope == preds[k].scope
                                    || preds[j].scope == PredScope::Global;
                                if !same_scope || vars[j] != vars[k] {
                                    continue;
                                }
                                let iff = unsat(s, &[(k, true), (j, false)])?
                                    && unsat(s, &[(k, false), (j, true)])?;
                                if iff
                                    || (unsat(s, &[(k, true), (j, true)])?
                                        && unsat(s, &[(k, false), (j, false)])?)
                                {
                                    return Some(true);
                                }
                            }
                            Some(false)
                        })();
                        if drop == Some(true) {
                            dropped.insert(checkable[k]);
                        } else {
                            kept.push(k);
                        }
                    }
                    dropped
                })
            })
        };
        for (i, (p, r)) in pending.into_iter().enumerate() {
            if dropped.contains(&i) {
                continue;
            }
            push(&mut self.out, p, &r.scope);
            self.reasons.push(r);
        }
        Chosen {
            preds: self.out,
            reasons: self.reasons,
            undecided,
        }
    }
}

/// What [`Candidates::finish`] kept.
pub struct Chosen {
    /// The predicates kept.
    pub preds: PredicateSet,
    /// Why each was proposed, in the order of `preds`.
    pub reasons: Vec<Reason>,
    /// Queries of the filter the prover left undecided within its resource limit: the new
    /// predicates raise questions the encoding cannot answer cheaply (in integer mode, often
    /// nested wrap-arounds or non-linear terms).
    pub undecided: usize,
}

fn push(set: &mut PredicateSet, p: Predicate, scope_name: &str) {
    match p.scope {
        PredScope::Global => set.global.push(p),
        PredScope::Function(_) => set
            .per_function
            .entry(scope_name.to_string())
            .or_default()
            .push(p),
    }
}

/// Why a predicate was proposed.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Reason {
    /// The predicate's text.
    pub predicate: String,
    /// `global` or the function's name.
    pub scope: String,
    /// The step of the core assume it comes from.
    pub from_assume: usize,
    /// The step before which it holds (where it was restated).
    pub at_step: usize,
    /// `condition` (the assume itself), `precondition` (a weakest precondition of it),
    /// `projection` (a precondition with the values of havocs eliminated), `return` (a
    /// return predicate of a callee) or `invariant` (a conjunct of a path program's invariant
    /// at a cut point, from the Horn refiner).
    pub kind: String,
    /// Which refiner proposed it.
    pub refiner: Refiner,
}

/// Which refiner proposed a predicate.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Refiner {
    /// Newton's weakest preconditions of the trace (module `refine`).
    Wp,
    /// An invariant of the trace's path program (module `horn`).
    Horn,
}

impl Refiner {
    /// `wp` or `horn`.
    pub fn as_str(self) -> &'static str {
        match self {
            Refiner::Wp => "wp",
            Refiner::Horn => "horn",
        }
    }
}
