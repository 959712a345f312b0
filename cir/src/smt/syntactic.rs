//! Syntactic answers to a [`Session`](super::Session)'s questions: a conjunction of literals
//! that fixes an lvalue to two constants (`s->state == 8464 ∧ s->state == 8480`), or that
//! contradicts what its tests of constants decide (`s->state == 8464 ∧ s->state != 8464` through
//! another atom, `x == 3 ∧ y == 4 ∧ x == y`), is unsatisfiable without asking Z3.
//!
//! A state machine's abstraction asks this of every pair of its states: the inconsistent
//! cubes of `enforce` (the Constrain paper, TACAS'04 §3.3) and the cube searches of C2BP's
//! `F_V(φ)` (Ball, Majumdar, Millstein & Rajamani, PLDI'01, §4.1) over the state tests of a
//! state variable and of the variable it is copied from. The answers are only ever
//! "unsatisfiable", and only where the literals say so in either semantics:
//! - an atom is read only as `l == c`, `l != c` (an lvalue `l` of an integer type, no cast on
//!   either side, and a constant `c` within the range of `l`'s type, so that the comparison
//!   in C's common type compares the same values) or `l1 == l2`, `l1 != l2` (two lvalues of
//!   the same integer type);
//! - lvalues are the same only when their expressions are equal, and the atoms of a session
//!   are conditions on one state, so equal expressions have one value (two expressions that
//!   may alias are simply different lvalues: an answer is missed, never wrong).
//!
//! Where the caller gives the points-to facts ([`Forms::know_aliasing`]), a conjunction of
//! literals over read atoms whose lvalues cannot alias is also answered "satisfiable"
//! ([`Forms::satisfiable`]) — the lvalues are then independent unknowns of their types, and a
//! state fixes each to its constant or to a value no atom names — and, when that holds of
//! every atom of the session, with the values of all the atoms in that state
//! ([`Forms::model`]). A cube search over the states of a state machine asks this of every
//! pair of states it excludes.

use std::collections::HashMap;

use crate::ir::{BinOp, Expr, ExprKind, Program};
use crate::pointsto::PointsTo;
use crate::types::CType;

/// What an atom says, when it is a test of constants or an equality of lvalues.
#[derive(Clone, Copy, Debug)]
enum Form {
    /// `lvalue == value` (`eq`) or `lvalue != value`.
    Test {
        lvalue: usize,
        value: i128,
        eq: bool,
    },
    /// `a == b` (`eq`) or `a != b`, two lvalues of one type.
    Same { a: usize, b: usize, eq: bool },
}

/// The forms of a session's atoms (by position; `None`: not read).
pub(super) struct Forms {
    atoms: Vec<Option<Form>>,
    /// Whether some atom is read at all (most sessions have none: no literal can conflict).
    any: bool,
    /// The lvalues, by the number the forms give them.
    lvalues: Vec<Expr>,
    /// The constants the atoms compare with, sorted.
    constants: Vec<i128>,
    /// Per pair of lvalues (row-major), whether they may alias, once the caller has said
    /// ([`Forms::know_aliasing`]).
    aliasing: Option<Vec<bool>>,
    /// Whether [`Forms::model`] may answer: every atom read, and no two lvalues may alias.
    independent: bool,
}

impl Forms {
    /// Reads the atoms of a session.
    pub(super) fn of(prog: &Program, atoms: &[Expr]) -> Forms {
        let mut lvalues: HashMap<&Expr, usize> = HashMap::new();
        let mut out = Vec::with_capacity(atoms.len());
        for a in atoms {
            out.push(form(prog, a, &mut lvalues));
        }
        let any = out.iter().any(Option::is_some);
        let mut by_number: Vec<(usize, Expr)> =
            lvalues.into_iter().map(|(e, n)| (n, e.clone())).collect();
        by_number.sort_by_key(|(n, _)| *n);
        let mut constants: Vec<i128> = out
            .iter()
            .filter_map(|f| match f {
                Some(Form::Test { value, .. }) => Some(*value),
                _ => None,
            })
            .collect();
        constants.sort_unstable();
        constants.dedup();
        Forms {
            atoms: out,
            any,
            lvalues: by_number.into_iter().map(|(_, e)| e).collect(),
            constants,
            aliasing: None,
            independent: false,
        }
    }

    /// Lets [`Forms::satisfiable`] and [`Forms::model`] answer: which lvalues may alias by
    /// `pts`.
    pub(super) fn know_aliasing(&mut self, pts: &PointsTo) {
        let ls = &self.lvalues;
        let n = ls.len();
        let mut aliasing = vec![false; n * n];
        for i in 0..n {
            for j in i + 1..n {
                let may = pts.may_alias(&ls[i], &ls[j]);
                aliasing[i * n + j] = may;
                aliasing[j * n + i] = may;
            }
        }
        self.independent = self.atoms.iter().all(Option::is_some) && !aliasing.contains(&true);
        self.aliasing = Some(aliasing);
    }

    /// Whether the literals hold together in some state, shown without a query: every
    /// literal's atom is read, no two of their lvalues may alias ([`Forms::know_aliasing`]),
    /// and the values [`Forms::assign`] gives them satisfy the literals. (The other atoms
    /// constrain nothing: a query only assumes their indicators.)
    pub(super) fn satisfiable(&self, prog: &Program, lits: &[(usize, bool)]) -> bool {
        let Some(aliasing) = &self.aliasing else {
            return false;
        };
        let n = self.lvalues.len();
        let mut read: Vec<usize> = Vec::with_capacity(2 * lits.len());
        for &(a, _) in lits {
            match self.atoms[a] {
                Some(Form::Test { lvalue, .. }) => read.push(lvalue),
                Some(Form::Same { a, b, .. }) => read.extend([a, b]),
                None => return false,
            }
        }
        read.sort_unstable();
        read.dedup();
        let apart = read
            .iter()
            .all(|&i| read.iter().all(|&j| i == j || !aliasing[i * n + j]));
        apart
            && self
                .assign(prog, lits)
                .is_some_and(|v| lits.iter().all(|&(a, t)| self.holds(&v, a) == Some(t)))
    }

    /// The values of all the atoms in a state where the literals hold, if every atom is read
    /// and no two lvalues may alias ([`Forms::know_aliasing`]): the lvalues are then
    /// independent unknowns of their types, and [`Forms::assign`]'s values make such a state
    /// when they satisfy the literals. `None` otherwise.
    pub(super) fn model(&self, prog: &Program, lits: &[(usize, bool)]) -> Option<Vec<bool>> {
        if !self.independent {
            return None;
        }
        let value = self.assign(prog, lits)?;
        let model: Vec<bool> = (0..self.atoms.len())
            .map(|a| self.holds(&value, a))
            .collect::<Option<Vec<bool>>>()?;
        lits.iter()
            .all(|&(a, truth)| model[a] == truth)
            .then_some(model)
    }

    /// The truth of atom `a` under values of the lvalues (`None`: not read).
    fn holds(&self, value: &[i128], a: usize) -> Option<bool> {
        Some(match self.atoms[a]? {
            Form::Test {
                lvalue,
                value: c,
                eq,
            } => (value[lvalue] == c) == eq,
            Form::Same { a, b, eq } => (value[a] == value[b]) == eq,
        })
    }

    /// Values for the lvalues meant to satisfy the literals: each lvalue fixed by them takes
    /// its constant, each other class of lvalues they hold equal takes a value of its type
    /// that no atom names and no other class takes (so every test and equality they hold
    /// false is false). Every value is within its lvalue's range (constants are, by
    /// [`form`]). `None` when the literals conflict or no such values exist; the caller
    /// checks the literals against the values.
    fn assign(&self, prog: &Program, lits: &[(usize, bool)]) -> Option<Vec<i128>> {
        let fixed = self.fixed(lits).ok()?;
        let n = self.lvalues.len();
        // Classes of the lvalues the literals hold equal (union-find, smallest representative).
        let mut class: Vec<usize> = (0..n).collect();
        fn find(class: &mut [usize], x: usize) -> usize {
            let mut r = x;
            while class[r] != r {
                r = class[r];
            }
            class[x] = r;
            r
        }
        for &(a, truth) in lits {
            if let Some(Form::Same { a, b, eq }) = self.atoms[a]
                && truth == eq
            {
                let (x, y) = (find(&mut class, a), find(&mut class, b));
                class[x.max(y)] = x.min(y);
            }
        }
        let mut value: Vec<Option<i128>> = vec![None; n];
        for f in &fixed {
            let r = find(&mut class, f.lvalue);
            value[r] = Some(f.value);
        }
        // Unnamed values, one per free class: above every constant, or below, in range.
        let mut next_up = self.constants.last().map_or(0, |c| c.saturating_add(1));
        let mut next_down = self.constants.first().map_or(-1, |c| c.saturating_sub(1));
        let mut out = Vec::with_capacity(n);
        for l in 0..n {
            let r = find(&mut class, l);
            if value[r].is_none() {
                let CType::Int(k) = self.lvalues[r].ty else {
                    return None;
                };
                let (lo, hi) = k.range(prog.data_model);
                let v = if next_up <= hi {
                    next_up += 1;
                    next_up - 1
                } else if next_down >= lo {
                    next_down -= 1;
                    next_down + 1
                } else {
                    return None;
                };
                value[r] = Some(v);
            }
            out.push(value[r]?);
        }
        Some(out)
    }

    /// A subset of `lits` (atom position, truth value) that cannot hold together, in the
    /// order of `lits`, if the forms of their atoms show one.
    pub(super) fn conflict(&self, lits: &[(usize, bool)]) -> Option<Vec<(usize, bool)>> {
        if !self.any {
            return None;
        }
        self.fixed(lits).err()
    }

    /// The lvalues the literals fix to a constant, with the literals that fix each; `Err`
    /// with a subset of `lits` (in their order) that cannot hold together, if the forms of
    /// their atoms show one.
    fn fixed(&self, lits: &[(usize, bool)]) -> Result<Vec<Fixed>, Vec<(usize, bool)>> {
        let form = |a: usize| self.atoms.get(a).copied().flatten();
        let core = |mut why: Vec<usize>| {
            why.sort_unstable();
            why.dedup();
            why.into_iter().map(|i| lits[i]).collect::<Vec<_>>()
        };
        // The lvalues the literals fix to a constant, each with the literals (indices in
        // `lits`) that fix it.
        let mut fixed: Vec<Fixed> = Vec::new();
        let at = |fixed: &[Fixed], l: usize| fixed.iter().position(|f| f.lvalue == l);
        for (i, &(a, truth)) in lits.iter().enumerate() {
            if let Some(Form::Test { lvalue, value, eq }) = form(a)
                && truth == eq
            {
                match at(&fixed, lvalue) {
                    Some(x) if fixed[x].value != value => {
                        let mut why = fixed[x].why.clone();
                        why.push(i);
                        return Err(core(why));
                    }
                    Some(_) => {}
                    None => fixed.push(Fixed {
                        lvalue,
                        value,
                        why: vec![i],
                    }),
                }
            }
        }
        if fixed.is_empty() {
            return Ok(fixed);
        }
        // An equality of two lvalues held true carries a fixed value from one to the other,
        // to a fixpoint (each round fixes one more lvalue or ends it).
        loop {
            let mut grew = false;
            for (i, &(a, truth)) in lits.iter().enumerate() {
                let Some(Form::Same { a, b, eq }) = form(a) else {
                    continue;
                };
                if truth != eq {
                    continue;
                }
                let (from, to) = match (at(&fixed, a), at(&fixed, b)) {
                    (Some(x), None) => (x, b),
                    (None, Some(y)) => (y, a),
                    _ => continue,
                };
                let mut why = fixed[from].why.clone();
                why.push(i);
                fixed.push(Fixed {
                    lvalue: to,
                    value: fixed[from].value,
                    why,
                });
                grew = true;
            }
            if !grew {
                break;
            }
        }
        // Every literal against the fixed values.
        for (i, &(a, truth)) in lits.iter().enumerate() {
            let why = match form(a) {
                Some(Form::Test { lvalue, value, eq }) => at(&fixed, lvalue)
                    .filter(|&x| ((fixed[x].value == value) == eq) != truth)
                    .map(|x| fixed[x].why.clone()),
                Some(Form::Same { a, b, eq }) => match (at(&fixed, a), at(&fixed, b)) {
                    (Some(x), Some(y)) if ((fixed[x].value == fixed[y].value) == eq) != truth => {
                        Some([&fixed[x].why[..], &fixed[y].why[..]].concat())
                    }
                    _ => None,
                },
                None => None,
            };
            if let Some(mut why) = why {
                why.push(i);
                return Err(core(why));
            }
        }
        Ok(fixed)
    }
}

/// An lvalue fixed to a constant by some literals.
struct Fixed {
    lvalue: usize,
    value: i128,
    /// The literals (indices) that fix it.
    why: Vec<usize>,
}

/// The form of one atom (module doc), interning its lvalues in `lvalues`.
fn form<'e>(
    prog: &Program,
    atom: &'e Expr,
    lvalues: &mut HashMap<&'e Expr, usize>,
) -> Option<Form> {
    let ExprKind::Binary(op @ (BinOp::Eq | BinOp::Ne), x, y) = &atom.kind else {
        return None;
    };
    let eq = *op == BinOp::Eq;
    let mut key = |e: &'e Expr| {
        let n = lvalues.len();
        *lvalues.entry(e).or_insert(n)
    };
    let int_lvalue = |e: &Expr| e.is_lvalue() && e.ty.is_integer();
    match (&x.kind, &y.kind) {
        (_, ExprKind::Const(c)) | (ExprKind::Const(c), _) => {
            let l = if matches!(y.kind, ExprKind::Const(_)) {
                x
            } else {
                y
            };
            let CType::Int(k) = l.ty else {
                return None;
            };
            let (lo, hi) = k.range(prog.data_model);
            (l.is_lvalue() && (lo..=hi).contains(c)).then(|| Form::Test {
                lvalue: key(l),
                value: *c,
                eq,
            })
        }
        _ if int_lvalue(x) && int_lvalue(y) && x.ty == y.ty => Some(Form::Same {
            a: key(x),
            b: key(y),
            eq,
        }),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pred::{PredScope, parse_predicate};

    fn program() -> Program {
        let src = "struct st { int state; } *s; unsigned char u; int x, y; long z;\n\
                   int main(void) { return 0; }\n";
        crate::load_test_source(src, &crate::LowerOptions::default())
    }

    fn forms(prog: &Program, atoms: &[&str]) -> Forms {
        let exprs: Vec<Expr> = atoms
            .iter()
            .map(|t| {
                parse_predicate(t, PredScope::Global, prog)
                    .unwrap_or_else(|e| panic!("{t}: {e:?}"))
                    .expr
            })
            .collect();
        Forms::of(prog, &exprs)
    }

    #[test]
    fn two_constants_of_one_lvalue_conflict() {
        let prog = program();
        let f = forms(&prog, &["s->state == 8464", "s->state == 8480", "x == 3"]);
        assert_eq!(
            f.conflict(&[(2, true), (0, true), (1, true)]),
            Some(vec![(0, true), (1, true)])
        );
        // `s->state != 8464` is no conflict with `s->state == 8480`.
        assert_eq!(f.conflict(&[(0, false), (1, true)]), None);
        assert_eq!(f.conflict(&[(0, true), (1, false), (2, true)]), None);
    }

    #[test]
    fn a_test_decided_by_another_conflicts() {
        let prog = program();
        let f = forms(&prog, &["x != 3", "x == 3", "x == y", "y == 4"]);
        // `x != 3` read false fixes x to 3; `x == 3` false contradicts it.
        assert_eq!(
            f.conflict(&[(0, false), (1, false)]),
            Some(vec![(0, false), (1, false)])
        );
        // x = 3, y = 4, x == y.
        assert_eq!(
            f.conflict(&[(1, true), (2, true), (3, true)]),
            Some(vec![(1, true), (2, true), (3, true)])
        );
        assert_eq!(f.conflict(&[(1, true), (2, false), (3, true)]), None);
        // Nothing fixes y: no answer.
        assert_eq!(f.conflict(&[(1, true), (2, true)]), None);
    }

    #[test]
    fn equalities_of_lvalues_carry_values() {
        let prog = program();
        let f = forms(
            &prog,
            &["s->state == x", "s->state == 8657", "x == 8657", "y == x"],
        );
        // s->state = 8657 and s->state == x: x is 8657, so `x == 8657` cannot be false.
        assert_eq!(
            f.conflict(&[(0, true), (1, true), (2, false)]),
            Some(vec![(0, true), (1, true), (2, false)])
        );
        // Values carried from both sides meet: y = 3 makes x 3, and s->state = 8657 = x.
        let g = forms(
            &prog,
            &["s->state == x", "s->state == 8657", "y == x", "y == 3"],
        );
        assert_eq!(
            g.conflict(&[(2, true), (0, true), (1, true), (3, true)]),
            Some(vec![(2, true), (0, true), (1, true), (3, true)])
        );
        // Only the literals that take part are in the core.
        assert_eq!(
            f.conflict(&[(3, true), (2, true), (0, true), (1, false)]),
            Some(vec![(2, true), (0, true), (1, false)])
        );
        // A false equality carries nothing.
        assert_eq!(f.conflict(&[(0, false), (1, true), (2, false)]), None);
    }

    /// Atoms over `x`, `y` and `s->state` for the brute-force tests.
    const ATOMS: [&str; 9] = [
        "x == 3",
        "x == 4",
        "y == 3",
        "y != 4",
        "s->state == 8657",
        "s->state == x",
        "x == y",
        "y != s->state",
        "s->state != 3",
    ];

    /// Atom `a` of [`ATOMS`] at the values `v` of (x, y, s->state).
    fn eval(a: usize, v: [i128; 3]) -> bool {
        match a {
            0 => v[0] == 3,
            1 => v[0] == 4,
            2 => v[1] == 3,
            3 => v[1] != 4,
            4 => v[2] == 8657,
            5 => v[2] == v[0],
            6 => v[0] == v[1],
            7 => v[1] != v[2],
            _ => v[2] != 3,
        }
    }

    /// Every conflict is a subset of the literals that no valuation satisfies: checked by
    /// brute force over the constants of the atoms and three values none of them names
    /// (enough for equalities: an lvalue equal to no constant can take a fresh value).
    #[test]
    fn every_conflict_is_unsatisfiable() {
        let prog = program();
        let atoms = ATOMS;
        let f = forms(&prog, &atoms);
        let domain = [3, 4, 8657, -1, -2, -3];
        let satisfiable = |lits: &[(usize, bool)]| {
            domain.iter().any(|&x| {
                domain.iter().any(|&y| {
                    domain
                        .iter()
                        .any(|&z| lits.iter().all(|&(a, t)| eval(a, [x, y, z]) == t))
                })
            })
        };
        let mut rng = bp_testkit::prng::SplitMix64::new(11);
        let mut conflicts = 0;
        for _ in 0..3000 {
            let n = 1 + rng.below(5);
            let lits: Vec<(usize, bool)> = (0..n)
                .map(|_| (rng.below(atoms.len()), rng.coin()))
                .collect();
            if let Some(core) = f.conflict(&lits) {
                conflicts += 1;
                assert!(core.iter().all(|l| lits.contains(l)), "{lits:?} {core:?}");
                assert!(!satisfiable(&core), "{lits:?}: {core:?} is satisfiable");
            }
        }
        assert!(conflicts > 300, "only {conflicts} conflicts");
    }

    /// Every model is the valuation of the atoms in some state, and satisfies the literals
    /// it was built for: checked by brute force over the constants and the values a model
    /// takes for lvalues no literal fixes (the three past the largest constant). Where there
    /// is a model, the literals are answered satisfiable.
    #[test]
    fn every_model_is_a_state_of_the_literals() {
        let prog = program();
        let atoms = ATOMS;
        let mut f = forms(&prog, &atoms);
        let lits = [(0, true), (2, false)];
        assert_eq!(
            f.model(&prog, &lits),
            None,
            "no answer before aliasing is known"
        );
        f.know_aliasing(&crate::pointsto::PointsTo::analyze(&prog));
        let domain = [3, 4, 8657, 8658, 8659, 8660];
        let state_of = |m: &[bool]| {
            domain.iter().any(|&x| {
                domain.iter().any(|&y| {
                    domain
                        .iter()
                        .any(|&z| (0..atoms.len()).all(|a| eval(a, [x, y, z]) == m[a]))
                })
            })
        };
        let mut rng = bp_testkit::prng::SplitMix64::new(12);
        let mut models = 0;
        for _ in 0..3000 {
            let n = rng.below(5);
            let lits: Vec<(usize, bool)> = (0..n)
                .map(|_| (rng.below(atoms.len()), rng.coin()))
                .collect();
            let model = f.model(&prog, &lits);
            if let Some(m) = &model {
                models += 1;
                assert!(lits.iter().all(|&(a, t)| m[a] == t), "{lits:?}: {m:?}");
                assert!(state_of(m), "{lits:?}: {m:?} is no state");
                assert_eq!(f.conflict(&lits), None);
            }
            // Over these atoms the two answer alike.
            assert_eq!(f.satisfiable(&prog, &lits), model.is_some(), "{lits:?}");
        }
        assert!(models > 1500, "only {models} models");
        // With an atom that is not read, there is no model, but literals that do not use it
        // are still answered.
        let mut h = forms(&prog, &["x == 3", "y == x", "x < y"]);
        h.know_aliasing(&crate::pointsto::PointsTo::analyze(&prog));
        assert_eq!(h.model(&prog, &[(0, true)]), None);
        assert!(h.satisfiable(&prog, &[(0, true), (1, false)]));
        assert!(!h.satisfiable(&prog, &[(0, true), (2, true)]));
        // `*p` may be `x`: no model once the atoms read both.
        let src = "int x; int *p; int main(void) { p = &x; return 0; }\n";
        let prog = crate::load_test_source(src, &crate::LowerOptions::default());
        let mut g = forms(&prog, &["x == 1", "*p == 2"]);
        g.know_aliasing(&crate::pointsto::PointsTo::analyze(&prog));
        assert_eq!(g.model(&prog, &[(0, true), (1, true)]), None);
        assert!(!g.satisfiable(&prog, &[(0, true), (1, true)]));
        assert!(g.satisfiable(&prog, &[(1, true)]));
    }

    #[test]
    fn casts_and_constants_out_of_range_are_not_read() {
        let prog = program();
        // 300 is outside `unsigned char`: `u == 300` is false in C, and reading it as fixing
        // `u` to 300 would be wrong if `u == 44` (300 mod 256) were taken for `u == 300`.
        let f = forms(
            &prog,
            &["u == 300", "u == 44", "(int)z == 1", "(int)z == 2"],
        );
        assert!(f.atoms[0].is_none());
        assert!(f.atoms[1].is_some());
        assert_eq!(f.conflict(&[(2, true), (3, true)]), None);
        // Different lvalues (`x`, `y`) of different types are not compared.
        let g = forms(&prog, &["x == z"]);
        assert!(g.atoms[0].is_none());
    }
}
