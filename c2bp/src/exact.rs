//! Exact predicate abstraction of one statement (`--abstraction exact`): the abstract transition
//! relation `R(b̄, b̄')` that holds exactly of the pairs of predicate valuations before and after
//! some concrete execution of the statement, as SATABS computes it with a solver (Clarke,
//! Kroening, Sharygina, Yorav, "Predicate Abstraction of ANSI-C Programs using SAT", §3), here
//! per statement rather than per basic block.
//!
//! The relation is found without a second state: the value after the statement of a predicate
//! φ it assigns is `WP(s, φ)` evaluated before it (the single-state encoding of C2BP), so each
//! new value `b'ᵢ` is one more atom of the pre-state, and the relation is the conjunction of the
//! negated *minimal inconsistent cubes* over the atoms `b̄ ∪ b̄'` — c2bp's own search for the
//! inconsistent cubes of `enforce` ([`Enumerator::inconsistent_cubes`]: by projection over
//! models when the valuations are few, else breadth-first by length under a query budget), at
//! unbounded length. An `unknown` answer leaves a cube out of the relation, which only weakens
//! it. The unassigned predicates in the relation are those that share a location with a new
//! value, transitively (the relevance of the cube search, [`Enumerator::connected`]: `x < y`
//! next to `y < z` and `x < z` after `z = *` in the Constrain paper's Fig. 1); the others keep
//! their values without a query.
//!
//! In the Boolean program the relation is written `b̄ := *, … constrain R(b̄, 'b̄)` (the CPROVER
//! form: unprimed variables are the state before, primed ones the state after); an `assume(c)`
//! becomes `assume` of the exact set of valuations consistent with `c`. When a search stops
//! short — more than `--max-cubes` clauses, its query budget, or an `unknown` answer — the
//! statement keeps its Cartesian abstraction conjoined with the clauses found, which is sound
//! either way (each clause excludes only pairs no concrete step has).

use std::collections::BTreeSet;

use cir::ir::Expr;
use cir::pred::normalize;
use cir::smt::SolverCx;

use crate::cubes::{Cube, Enumerator, INCONSISTENT_QUERY_FACTOR, VarSet, chain_text, locations};

/// One statement's exact relation, as far as the search went.
pub(crate) struct Relation {
    /// The conjunction of the clauses found (`.bp` text); `None` when there is none.
    pub(crate) text: Option<String>,
    /// Every minimal clause was found (no cap, no `unknown`): the relation is exact.
    pub(crate) complete: bool,
    /// For each update: whether some clause mentions its new value.
    pub(crate) constrained: Vec<bool>,
}

/// The atoms of a relation: the predicates of `vs` that share a location with one of the
/// expressions `news` (transitively), then one atom per expression, named as given. With the
/// number of the former.
fn vocabulary(en: &Enumerator<'_>, vs: &VarSet, news: &[(String, Expr)]) -> (VarSet, usize) {
    let mut locs = BTreeSet::new();
    for (_, e) in news {
        locs.extend(locations(e, en.pts));
    }
    let rel = en.connected(vs, &locs);
    let mut atoms = VarSet::default();
    for &i in &rel {
        let v = &vs.vars[i];
        atoms.push(en.prog, en.pts, v.name.clone(), &v.expr);
    }
    for (name, e) in news {
        atoms.push(en.prog, en.pts, name.clone(), e);
    }
    (atoms, rel.len())
}

/// The minimal inconsistent cubes over `atoms` (at most `max_cubes`), and whether they are all
/// of them: the search neither stopped at a bound nor met an `unknown` answer.
fn clauses(
    en: &Enumerator<'_>,
    cx: &mut SolverCx<'_>,
    atoms: &VarSet,
    max_cubes: usize,
) -> (Vec<Cube>, bool) {
    // `--max-queries` bounds this search as it bounds one cube search (the enumerator's
    // inconsistent-cube searches take a multiple of it, being one per procedure).
    let en = Enumerator {
        pts: en.pts,
        prog: en.prog,
        max_len: None,
        max_queries: (en.max_queries / INCONSISTENT_QUERY_FACTOR).max(1),
    };
    let unknowns = cx.unknowns();
    let n = atoms.vars.len();
    let (cubes, capped) = en.inconsistent_cubes_at_most(cx, atoms, None, n, &[], max_cubes);
    let complete = !capped && cx.unknowns() == unknowns;
    tracing::debug!(atoms = n, clauses = cubes.len(), complete, "exact relation");
    (cubes, complete)
}

/// The `.bp` text of the negation of a cube over `atoms` (`F` for the empty cube).
fn clause_text(atoms: &VarSet, c: &Cube) -> String {
    match c.as_slice() {
        [] => "F".into(),
        [(i, b)] => atoms.lit_text((*i, !b)),
        _ => format!("!{}", atoms.cube_text(c)),
    }
}

/// The conjunction of the negations of `cubes` (`None` when there is none).
fn conjunction(atoms: &VarSet, cubes: &[Cube]) -> Option<String> {
    if cubes.iter().any(Vec::is_empty) {
        return Some("F".into());
    }
    let mut parts: Vec<String> = cubes.iter().map(|c| clause_text(atoms, c)).collect();
    match parts.len() {
        0 => None,
        1 => parts.pop(),
        _ => Some(chain_text(parts, "&")),
    }
}

/// The relation of a parallel assignment of `updates` — each a Boolean variable and the value
/// it receives, as a condition on the state before (`None`: unknown, unconstrained) — over
/// the variables `vs` in scope before it. The new values are the primed variables.
pub(crate) fn transition(
    en: &Enumerator<'_>,
    cx: &mut SolverCx<'_>,
    vs: &VarSet,
    updates: &[(String, Option<Expr>)],
    max_cubes: usize,
) -> Relation {
    let mut which = Vec::new();
    let mut news = Vec::new();
    for (k, (name, w)) in updates.iter().enumerate() {
        if let Some(w) = w {
            which.push(k);
            news.push((format!("'{name}"), normalize(w.clone())));
        }
    }
    let mut constrained = vec![false; updates.len()];
    if news.is_empty() {
        return Relation {
            text: None,
            complete: true,
            constrained,
        };
    }
    let (atoms, pre) = vocabulary(en, vs, &news);
    let (cubes, complete) = clauses(en, cx, &atoms, max_cubes);
    for c in &cubes {
        for &(i, _) in c {
            if i >= pre {
                constrained[which[i - pre]] = true;
            }
        }
    }
    Relation {
        text: conjunction(&atoms, &cubes),
        complete,
        constrained,
    }
}

/// The exact condition of `assume(c)` over the variables `vs`: the valuations some state
/// satisfying `c` has (`None`: every valuation).
pub(crate) fn condition(
    en: &Enumerator<'_>,
    cx: &mut SolverCx<'_>,
    vs: &VarSet,
    c: &Expr,
    max_cubes: usize,
) -> Relation {
    let news = [(String::from("'c"), normalize(c.clone()))];
    let (atoms, pre) = vocabulary(en, vs, &news);
    let (cubes, complete) = clauses(en, cx, &atoms, max_cubes);
    // A cube with `c` excludes its other literals under the condition; a cube with `¬c` says
    // nothing about states satisfying `c`.
    let kept: Vec<Cube> = cubes
        .into_iter()
        .filter(|cube| !cube.contains(&(pre, false)))
        .map(|cube| cube.into_iter().filter(|l| l.0 != pre).collect())
        .collect();
    Relation {
        text: conjunction(&atoms, &kept),
        complete,
        constrained: Vec::new(),
    }
}
