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
//! value, transitively (the relevance of the cube search, [`crate::relevance`]: `x < y`
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

use crate::cubes::{
    Cube, Enumerator, INCONSISTENT_QUERY_FACTOR, VarSet, chain_text, consistent_valuations,
};
use crate::relevance::Relevance;

/// One statement's exact relation, as far as the search went.
pub(crate) struct Relation {
    /// The conjunction of the clauses found (`.bp` text); `None` when there is none.
    pub(crate) text: Option<String>,
    /// Every minimal clause was found (no cap, no `unknown`): the relation is exact.
    pub(crate) complete: bool,
    /// For each update: whether some clause mentions its new value.
    pub(crate) constrained: Vec<bool>,
    /// The clauses found.
    pub(crate) cubes: u64,
}

/// The atoms of a relation: the predicates of `vs` that share a location with one of the
/// expressions `news` (transitively), then one atom per expression, named as given. With the
/// number of the former.
fn vocabulary(en: &Enumerator<'_>, vs: &VarSet, news: &[(String, Expr)]) -> (VarSet, usize) {
    let mut locs = Relevance::default();
    for (_, e) in news {
        locs.extend(&Relevance::of(e, en.pts));
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

/// Inconsistent cubes over `atoms` whose negations make the relation (at most `max_cubes`), and
/// whether they are all of it: no bound stopped the search and no answer was `unknown`.
///
/// Over few atoms, from the consistent valuations (model enumeration, one query each, at most
/// [`COVER_VALUATIONS`] and `--max-queries` of them): a cover of the other valuations by cubes, each shrunk to a
/// minimal one ([`cover`]) — the same Boolean function as all minimal inconsistent cubes,
/// usually in far fewer (SATABS likewise enumerates the models and minimises the result).
/// Otherwise the breadth-first search for minimal inconsistent cubes by length with a new value
/// (atoms from `pre` on), which leaves the relation incomplete.
fn clauses(
    en: &Enumerator<'_>,
    cx: &mut SolverCx<'_>,
    atoms: &VarSet,
    pre: usize,
    max_cubes: usize,
) -> (Vec<Cube>, bool) {
    let n = atoms.vars.len();
    if n <= COVER_ATOMS
        && let Some(vals) = consistent_valuations(cx, atoms, en.max_queries.min(COVER_VALUATIONS))
    {
        let (cubes, complete) = cover(n, &vals, max_cubes);
        tracing::debug!(
            atoms = n,
            valuations = vals.len(),
            clauses = cubes.len(),
            complete,
            "exact relation"
        );
        return (cubes, complete);
    }
    // A hundredth of `--max-queries` (the enumerator's inconsistent-cube searches take a
    // multiple of its `max_queries`): the answer is incomplete anyway, and over many related
    // predicates each query is slow.
    let en = Enumerator {
        pts: en.pts,
        prog: en.prog,
        max_len: None,
        max_queries: (en.max_queries / (20 * INCONSISTENT_QUERY_FACTOR)).max(1),
    };
    // Here the clauses that relate a new value come first: those over the state before alone
    // (inconsistent states) only sharpen what is already excluded elsewhere.
    let news: BTreeSet<usize> = (pre..n).collect();
    let (cubes, capped) = en.inconsistent_cubes_at_most(cx, atoms, Some(&news), n, &[], max_cubes);
    tracing::debug!(
        atoms = n,
        clauses = cubes.len(),
        capped,
        "exact relation by search"
    );
    (cubes, false)
}

/// Most consistent valuations for [`cover`]: one query each (under blocking clauses that
/// accumulate), and the cover takes time in their number times its cubes.
const COVER_VALUATIONS: u64 = 1024;

/// Most atoms for [`cover`] (its cubes are `u64` masks, and the model enumeration is
/// bounded by the query limit anyway).
const COVER_ATOMS: usize = 24;

/// Cubes over `n` atoms that together hold exactly of the valuations not in `vals`, each
/// minimal (no literal can be dropped without meeting a valuation of `vals`), none contained
/// in another; in the canonical order (by length, then literals). At most `max_cubes` (then
/// `false`: the rest are missing).
fn cover(n: usize, vals: &[u64], max_cubes: usize) -> (Vec<Cube>, bool) {
    // The subspaces free of `vals`, by splitting on the atoms in order (Shannon expansion).
    fn split(n: usize, vals: Vec<u64>, k: usize, cube: (u64, u64), out: &mut Vec<(u64, u64)>) {
        if vals.is_empty() {
            out.push(cube);
            return;
        }
        if k == n {
            return;
        }
        let (one, zero): (Vec<u64>, Vec<u64>) = vals.into_iter().partition(|v| v >> k & 1 == 1);
        let (m, b) = (cube.0 | 1 << k, cube.1);
        split(n, zero, k + 1, (m, b), out);
        split(n, one, k + 1, (m, b | 1 << k), out);
    }
    let mut raw = Vec::new();
    split(n, vals.to_vec(), 0, (0, 0), &mut raw);
    let inside = |(fm, fb): (u64, u64), (m, b): (u64, u64)| m & fm == fm && b & fm == fb;
    let mut found: Vec<(u64, u64)> = Vec::new();
    let mut complete = true;
    for c in raw {
        if found.iter().any(|&f| inside(f, c)) {
            continue;
        }
        if found.len() == max_cubes {
            complete = false;
            break;
        }
        let (mut m, b) = c;
        for k in 0..n {
            let shorter = m & !(1 << k);
            if m >> k & 1 == 1 && !vals.iter().any(|&v| v & shorter == b & shorter) {
                m = shorter;
            }
        }
        found.push((m, b & m));
    }
    let mut cubes: Vec<Cube> = Vec::new();
    for (i, &c) in found.iter().enumerate() {
        let strictly = |(j, &f): (usize, &(u64, u64))| j != i && inside(f, c) && (f != c || j < i);
        if !found.iter().enumerate().any(strictly) {
            cubes.push(
                (0..n)
                    .filter(|k| c.0 >> k & 1 == 1)
                    .map(|k| (k, c.1 >> k & 1 == 1))
                    .collect(),
            );
        }
    }
    cubes.sort_by(|a, b| a.len().cmp(&b.len()).then_with(|| a.cmp(b)));
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
            cubes: 0,
        };
    }
    let (atoms, pre) = vocabulary(en, vs, &news);
    let (cubes, complete) = clauses(en, cx, &atoms, pre, max_cubes);
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
        cubes: cubes.len() as u64,
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
    let (cubes, complete) = clauses(en, cx, &atoms, pre, max_cubes);
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
        cubes: kept.len() as u64,
    }
}
