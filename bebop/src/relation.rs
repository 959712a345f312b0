//! A statement's transition relation kept as a conjunction of clusters (a partitioned
//! transition relation).
//!
//! A statement relates its pre-state to one new value per assigned variable (one value per
//! parameter, at a call): a conjunction of equations. As one BDD that conjunction can be
//! exponential in the number of equations when the variables each of them relates lie far
//! apart in the order — `s = next;` in c2bp's output updates every predicate over `s` from
//! the predicates over `next` — although its product with the reachable states stays small.
//! So the equations are conjoined into a cluster only while the cluster grows no larger than
//! its parts together, and an image conjoins the states with one cluster at a time,
//! quantifying each variable as soon as no later cluster mentions it (early quantification:
//! Burch, Clarke & Long, "Symbolic model checking with partitioned transition relations",
//! VLSI 1991; clustering and scheduling after Ranjan, Aziz, Brayton, Plessier & Pixley,
//! "Efficient BDD algorithms for FSM synthesis and verification", IWLS 1995).

use crate::apply;
use biodivine_lib_bdd::{Bdd, BddValuation, BddVariable};

/// A conjunction of BDDs over one variable set; the empty conjunction is `true`.
#[derive(Clone, Debug)]
pub struct Relation {
    /// No cluster is `true`; a `false` relation is the single cluster `false`.
    clusters: Vec<Bdd>,
    /// The support of each cluster, in increasing order.
    supports: Vec<Vec<BddVariable>>,
    /// The constant `true` of the variable set.
    tt: Bdd,
}

impl Relation {
    /// The conjunction of `parts`, clustered in their order: a part joins the cluster before
    /// it when their conjunction is no larger than the two together.
    /// `tt` is the variable set's `true`.
    pub fn conjunction(tt: Bdd, parts: impl IntoIterator<Item = Bdd>) -> Relation {
        let mut clusters: Vec<Bdd> = Vec::new();
        for p in parts {
            if p.is_true() {
                continue;
            }
            if p.is_false() {
                clusters = vec![p];
                break;
            }
            match clusters.last_mut() {
                Some(c) => {
                    let joined = apply::and(c, &p);
                    if joined.size() <= c.size() + p.size() {
                        *c = joined;
                    } else {
                        clusters.push(p);
                    }
                }
                None => clusters.push(p),
            }
        }
        let supports = clusters.iter().map(apply::support).collect();
        Relation {
            clusters,
            supports,
            tt,
        }
    }

    /// Whether the relation is `true` (relates every pair of states).
    pub fn is_true(&self) -> bool {
        self.clusters.is_empty()
    }

    /// The clusters' BDD nodes together.
    pub fn size(&self) -> usize {
        self.clusters.iter().map(Bdd::size).sum()
    }

    /// The variables the relation depends on, in increasing order.
    pub fn support(&self) -> Vec<BddVariable> {
        let mut all: Vec<BddVariable> = self.supports.iter().flatten().copied().collect();
        all.sort();
        all.dedup();
        all
    }

    /// Whether a full valuation satisfies the relation.
    pub fn eval_in(&self, val: &BddValuation) -> bool {
        self.clusters.iter().all(|c| c.eval_in(val))
    }

    /// The relation with some variables fixed, as one BDD (small once the fixed variables
    /// decide most equations, as in a trace's backward step).
    pub fn restrict(&self, fixed: &[(BddVariable, bool)]) -> Bdd {
        let mut acc: Option<Bdd> = None;
        for c in &self.clusters {
            let r = c.restrict(fixed);
            let next = match acc {
                Some(a) => apply::and(&a, &r),
                None => r,
            };
            if next.is_false() {
                return next;
            }
            acc = Some(next);
        }
        acc.unwrap_or_else(|| self.tt.clone())
    }

    /// `∃ q. d ∧ relation`, one cluster at a time, each variable of `q` quantified after the
    /// last cluster that mentions it (before the first, if none does).
    pub fn and_exists(&self, d: &Bdd, q: &[BddVariable]) -> Bdd {
        if self.clusters.is_empty() {
            return apply::exists(d, q);
        }
        let mut at: Vec<Vec<BddVariable>> = vec![Vec::new(); self.clusters.len()];
        for &v in q {
            let last = self
                .supports
                .iter()
                .rposition(|s| s.binary_search(&v).is_ok())
                .unwrap_or(0);
            at[last].push(v);
        }
        let mut acc: Option<Bdd> = None;
        for (c, qs) in self.clusters.iter().zip(&at) {
            let from = acc.as_ref().unwrap_or(d);
            let next = apply::and_exists(from, c, qs);
            if next.is_false() {
                return next;
            }
            acc = Some(next);
        }
        acc.unwrap_or_else(|| d.clone())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use biodivine_lib_bdd::BddVariableSet;
    use bp_testkit::prng::SplitMix64;

    /// `x_i ↔ y_i` for `n` pairs, every `x` ordered before every `y`.
    fn far_pairs(set: &BddVariableSet, n: usize) -> Vec<Bdd> {
        let v = set.variables();
        (0..n)
            .map(|i| set.mk_var(v[i]).iff(&set.mk_var(v[n + i])))
            .collect()
    }

    #[test]
    fn far_apart_equations_stay_separate_clusters() {
        let n = 24;
        let set = BddVariableSet::new_anonymous(2 * n as u16);
        let r = Relation::conjunction(set.mk_true(), far_pairs(&set, n));
        assert!(r.size() <= 8 * n, "{} nodes", r.size());
        // The image of `x = 1…1` is `y = 1…1`, computed without the exponential conjunction.
        let v = set.variables();
        let xs_true = (0..n).fold(set.mk_true(), |a, i| a.and(&set.mk_var(v[i])));
        let img = r.and_exists(&xs_true, &v[..n]);
        let ys_true = (n..2 * n).fold(set.mk_true(), |a, i| a.and(&set.mk_var(v[i])));
        assert!(img.iff(&ys_true).is_true());
    }

    #[test]
    fn operations_equal_those_on_the_whole_conjunction() {
        let n = 6;
        let set = BddVariableSet::new_anonymous(2 * n as u16);
        let v = set.variables();
        let mut rng = SplitMix64::new(7);
        for _ in 0..200 {
            // Random small parts and a random state set.
            let mut random = |k: usize| {
                (0..k).fold(set.mk_true(), |acc, _| {
                    let a = set.mk_literal(v[rng.below(2 * n)], rng.coin());
                    let b = set.mk_literal(v[rng.below(2 * n)], rng.coin());
                    acc.and(&a.or(&b))
                })
            };
            let parts: Vec<Bdd> = (0..4).map(|_| random(2)).collect();
            let d = random(3);
            let whole = parts.iter().fold(set.mk_true(), |a, p| a.and(p));
            let r = Relation::conjunction(set.mk_true(), parts);
            let q: Vec<BddVariable> = v
                .iter()
                .copied()
                .filter(|x| x.to_index() % 3 == 0)
                .collect();
            // Equal functions (the node layout of two equal BDDs may differ).
            let same = |a: &Bdd, b: &Bdd| a.iff(b).is_true();
            assert!(same(&r.and_exists(&d, &q), &d.and(&whole).exists(&q)));
            assert!(same(&r.and_exists(&d, &[]), &d.and(&whole)));
            let fixed = [(v[1], true), (v[4], false)];
            assert!(same(&r.restrict(&fixed), &whole.restrict(&fixed)));
            assert_eq!(r.is_true(), whole.is_true());
            for bits in 0..(1u32 << (2 * n)) {
                let val = BddValuation::new((0..2 * n).map(|i| bits >> i & 1 == 1).collect());
                assert_eq!(r.eval_in(&val), whole.eval_in(&val));
            }
        }
    }
}
