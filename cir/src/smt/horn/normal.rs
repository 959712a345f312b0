//! A relation's interpretation, as Spacer gives it, made into C conditions: its bound
//! variables instantiated with the parameters' constants, every integer comparison put in a
//! linear normal form `Σ cᵢ·tᵢ + k ⋈ 0` (`⋈` one of `<=`, `==`, `!=`; coefficients divided
//! by their gcd, the constant rounded as integer arithmetic allows), `t mod m` replaced by `t`
//! where the ranges of `t`'s variables keep it in `[0, m)` (the wrap-around of an unsigned
//! value Spacer restates without need), opposite inequalities among the conjuncts merged into
//! one equality (`a - b <= 0 ∧ b - a <= 0` is `a == b`), and the result read back as C by the
//! projection's reader (`project::ReadBack`). A comparison is written with the positive terms
//! on the left and the negated ones on the right (`x + j == y + i`).

use std::collections::BTreeMap;

use z3::ast::{Ast, Bool, Dynamic, Int};
use z3::{AstKind, SortKind};

use crate::ir::{Expr, Program, VarId};
use crate::smt::project::ReadBack;
use crate::types::CType;

/// A linear term: coefficients of its (non-numeral) subterms, keyed by their text, and a
/// constant.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Lin {
    terms: BTreeMap<String, (i128, Dynamic)>,
    k: i128,
}

impl Lin {
    fn constant(k: i128) -> Lin {
        Lin {
            terms: BTreeMap::new(),
            k,
        }
    }

    fn term(t: &Dynamic) -> Lin {
        let mut terms = BTreeMap::new();
        terms.insert(t.to_string(), (1, t.clone()));
        Lin { terms, k: 0 }
    }

    fn scale(mut self, c: i128) -> Option<Lin> {
        for (v, _) in self.terms.values_mut() {
            *v = v.checked_mul(c)?;
        }
        self.k = self.k.checked_mul(c)?;
        Some(self)
    }

    fn add(mut self, other: Lin) -> Option<Lin> {
        for (key, (c, t)) in other.terms {
            let e = self.terms.entry(key).or_insert((0, t));
            e.0 = e.0.checked_add(c)?;
        }
        self.terms.retain(|_, (c, _)| *c != 0);
        self.k = self.k.checked_add(other.k)?;
        Some(self)
    }

    /// The key of its terms with their coefficients (for finding the opposite inequality).
    fn shape(&self) -> Vec<(String, i128)> {
        self.terms
            .iter()
            .map(|(k, (c, _))| (k.clone(), *c))
            .collect()
    }
}

/// A comparison in normal form: `lin ⋈ 0`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Rel {
    Le,
    Eq,
    Ne,
}

/// What the interpretation's constants are: the parameters, by name.
struct Vars<'p> {
    prog: &'p Program,
    by_name: BTreeMap<String, VarId>,
}

impl Vars<'_> {
    /// The range of an integer term from its variables' types.
    fn interval(&self, l: &Lin) -> Option<(i128, i128)> {
        let (mut lo, mut hi) = (l.k, l.k);
        for (c, t) in l.terms.values() {
            let (tlo, thi) = self.term_range(t)?;
            let (a, b) = (c.checked_mul(tlo)?, c.checked_mul(thi)?);
            lo = lo.checked_add(a.min(b))?;
            hi = hi.checked_add(a.max(b))?;
        }
        Some((lo, hi))
    }

    fn term_range(&self, t: &Dynamic) -> Option<(i128, i128)> {
        if t.kind() != AstKind::App {
            return None;
        }
        let name = t.decl().name();
        if t.num_children() == 0 {
            let v = self.by_name.get(&name)?;
            return match self.prog.var(*v).ty {
                CType::Int(k) => Some(k.range(self.prog.data_model)),
                _ => None,
            };
        }
        if name == "mod" {
            let m = t.children().get(1)?.as_int()?.as_i128()?;
            return (m > 0).then_some((0, m - 1));
        }
        None
    }

    /// The linear form of an integer term.
    fn lin(&self, t: &Dynamic) -> Option<Lin> {
        if t.sort_kind() != SortKind::Int {
            return None;
        }
        match t.kind() {
            AstKind::Numeral => return Some(Lin::constant(t.as_int()?.as_i128()?)),
            AstKind::App => {}
            _ => return None,
        }
        if t.num_children() == 0 {
            return Some(Lin::term(t));
        }
        let args = t.children();
        match t.decl().name().as_str() {
            "+" => args
                .iter()
                .try_fold(Lin::constant(0), |acc, a| acc.add(self.lin(a)?)),
            "-" if args.len() == 1 => self.lin(&args[0])?.scale(-1),
            "-" => {
                let first = self.lin(&args[0])?;
                args[1..]
                    .iter()
                    .try_fold(first, |acc, a| acc.add(self.lin(a)?.scale(-1)?))
            }
            "*" => {
                let mut coeff = 1i128;
                let mut rest: Option<Lin> = None;
                for a in &args {
                    if let Some(c) = a.as_int().and_then(|i| i.as_i128()) {
                        coeff = coeff.checked_mul(c)?;
                    } else if rest.is_none() {
                        rest = Some(self.lin(a)?);
                    } else {
                        return Some(Lin::term(t));
                    }
                }
                rest.unwrap_or(Lin::constant(1)).scale(coeff)
            }
            "mod" if args.len() == 2 => {
                let m = args[1]
                    .as_int()
                    .and_then(|i| i.as_i128())
                    .filter(|&m| m > 0);
                let inner = self.lin(&args[0]);
                if let (Some(m), Some(inner)) = (m, inner)
                    && self
                        .interval(&inner)
                        .is_some_and(|(lo, hi)| 0 <= lo && hi < m)
                {
                    return Some(inner);
                }
                Some(Lin::term(t))
            }
            _ => Some(Lin::term(t)),
        }
    }

    /// A comparison of integer terms as `lin ⋈ 0` (`None`: not a comparison of integers).
    fn atom(&self, f: &Dynamic) -> Option<(Lin, Rel)> {
        if f.kind() != AstKind::App {
            return None;
        }
        let args = f.children();
        if args.len() != 2 || args[0].sort_kind() != SortKind::Int {
            return None;
        }
        let (a, b) = (self.lin(&args[0])?, self.lin(&args[1])?);
        let minus = |x: Lin, y: Lin| x.add(y.scale(-1)?);
        let (l, rel) = match f.decl().name().as_str() {
            "<=" => (minus(a, b)?, Rel::Le),
            "<" => (minus(a, b)?.add(Lin::constant(1))?, Rel::Le),
            ">=" => (minus(b, a)?, Rel::Le),
            ">" => (minus(b, a)?.add(Lin::constant(1))?, Rel::Le),
            "=" => (minus(a, b)?, Rel::Eq),
            "distinct" => (minus(a, b)?, Rel::Ne),
            _ => return None,
        };
        Some(reduce(l, rel))
    }
}

fn gcd(a: i128, b: i128) -> i128 {
    if b == 0 { a.abs() } else { gcd(b, a % b) }
}

/// Divides by the gcd of the coefficients: `g·L + k <= 0` is `L + ⌈k/g⌉ <= 0` over the
/// integers; an equality whose constant the gcd does not divide is false (`0 == 1`), a
/// disequality true.
fn reduce(mut l: Lin, rel: Rel) -> (Lin, Rel) {
    let g = l.terms.values().fold(0, |g, (c, _)| gcd(g, *c));
    if g <= 1 {
        return (l, rel);
    }
    for (c, _) in l.terms.values_mut() {
        *c /= g;
    }
    match rel {
        Rel::Le => l.k = l.k.div_euclid(g) + i128::from(l.k.rem_euclid(g) != 0),
        Rel::Eq | Rel::Ne if l.k % g != 0 => {
            return (Lin::constant(i128::from(rel == Rel::Eq)), Rel::Eq);
        }
        Rel::Eq | Rel::Ne => l.k /= g,
    }
    (l, rel)
}

/// The negation of `lin ⋈ 0` over the integers.
fn negate((l, rel): (Lin, Rel)) -> Option<(Lin, Rel)> {
    Some(match rel {
        Rel::Le => (l.scale(-1)?.add(Lin::constant(1))?, Rel::Le),
        Rel::Eq => (l, Rel::Ne),
        Rel::Ne => (l, Rel::Eq),
    })
}

/// `Σ c·t` of terms (coefficients positive), `None` when there is none.
fn sum(terms: &[(i128, Dynamic)]) -> Option<Int> {
    let parts: Vec<Int> = terms
        .iter()
        .map(|(c, t)| {
            let t = t.as_int().expect("an integer term");
            if *c == 1 {
                t
            } else {
                Int::mul(&[Int::from_i128(*c), t])
            }
        })
        .collect();
    match parts.len() {
        0 => None,
        1 => parts.into_iter().next(),
        _ => Some(Int::add(&parts)),
    }
}

/// `lin ⋈ 0` as a Z3 comparison: positive terms on the left, the others and the constant on
/// the right (the sides swapped when there is no positive term).
fn render((l, rel): &(Lin, Rel)) -> Bool {
    let mut pos: Vec<(i128, Dynamic)> = Vec::new();
    let mut neg: Vec<(i128, Dynamic)> = Vec::new();
    for (c, t) in l.terms.values() {
        if *c > 0 {
            pos.push((*c, t.clone()));
        } else {
            neg.push((-*c, t.clone()));
        }
    }
    if pos.is_empty() && neg.is_empty() {
        let holds = match rel {
            Rel::Le => l.k <= 0,
            Rel::Eq => l.k == 0,
            Rel::Ne => l.k != 0,
        };
        return Bool::from_bool(holds);
    }
    // pos - neg + k ⋈ 0  ⇔  pos ⋈ neg - k;  with no positive term: neg ⋈' k.
    let (left, right, flipped) = if pos.is_empty() {
        (sum(&neg), Lin::constant(l.k), true)
    } else {
        (sum(&pos), Lin::constant(-l.k), false)
    };
    let left = left.expect("a term");
    let right_terms = if flipped { None } else { sum(&neg) };
    let right = match (right_terms, right.k) {
        (Some(r), 0) => r,
        (Some(r), k) if k > 0 => Int::add(&[r, Int::from_i128(k)]),
        (Some(r), k) => Int::sub(&[r, Int::from_i128(-k)]),
        (None, k) => Int::from_i128(k),
    };
    match (rel, flipped) {
        (Rel::Le, false) => left.le(&right),
        (Rel::Le, true) => left.ge(&right),
        (Rel::Eq, _) => left.eq(&right),
        (Rel::Ne, _) => Int::distinct(&[left, right]),
    }
}

/// A Boolean formula with every comparison of integers in normal form (`None`: something
/// other than `and`, `or`, `not`, comparisons and constants).
fn normal_formula(vars: &Vars<'_>, f: &Dynamic) -> Option<Bool> {
    if let Some(a) = vars.atom(f) {
        return Some(render(&a));
    }
    if f.kind() != AstKind::App || f.sort_kind() != SortKind::Bool {
        return None;
    }
    let args = f.children();
    match f.decl().name().as_str() {
        "true" | "false" => f.as_bool(),
        "not" if args.len() == 1 => match vars.atom(&args[0]) {
            Some(a) => Some(render(&negate(a)?)),
            None => Some(normal_formula(vars, &args[0])?.not()),
        },
        "and" | "or" => {
            let parts = args
                .iter()
                .map(|a| normal_formula(vars, a))
                .collect::<Option<Vec<Bool>>>()?;
            Some(if f.decl().name() == "and" {
                Bool::and(&parts)
            } else {
                Bool::or(&parts)
            })
        }
        _ => None,
    }
}

/// `t` with each bound variable `(:var i)` replaced by `consts[i]`.
fn instantiate(t: &Dynamic, consts: &[Dynamic]) -> Option<Dynamic> {
    match t.kind() {
        // The index of a bound variable is not in the bindings' API; its text is `(:var i)`.
        AstKind::Var => {
            let text = t.to_string();
            let i: usize = text
                .trim_start_matches("(:var ")
                .trim_end_matches(')')
                .trim()
                .parse()
                .ok()?;
            consts.get(i).cloned()
        }
        AstKind::Numeral => Some(t.clone()),
        AstKind::App if t.num_children() == 0 => Some(t.clone()),
        AstKind::App => {
            let kids = t
                .children()
                .iter()
                .map(|c| instantiate(c, consts))
                .collect::<Option<Vec<Dynamic>>>()?;
            let refs: Vec<&dyn Ast> = kids.iter().map(|k| k as &dyn Ast).collect();
            Some(t.decl().apply(&refs))
        }
        _ => None,
    }
}

/// The conjuncts of the interpretation `f` (over `(:var i)` for `params[i]`) as C conditions
/// over the parameters (see the module doc); a conjunct with no C reading is left out.
pub(super) fn interpretation(prog: &Program, params: &[VarId], f: &Bool) -> Vec<Expr> {
    let consts: Vec<Dynamic> = params
        .iter()
        .map(|p| Dynamic::from_ast(&Int::new_const(prog.var(*p).name.as_str())))
        .collect();
    let Some(inst) = instantiate(&Dynamic::from_ast(f), &consts) else {
        return Vec::new();
    };
    let inst = inst.simplify();
    let vars = Vars {
        prog,
        by_name: params
            .iter()
            .map(|p| (prog.var(*p).name.clone(), *p))
            .collect(),
    };
    let mut conjuncts: Vec<Dynamic> = Vec::new();
    flatten_and(&inst, &mut conjuncts);
    // Atoms in normal form (merged with their opposites), then the other conjuncts.
    let mut atoms: Vec<(Lin, Rel)> = Vec::new();
    let mut others: Vec<Bool> = Vec::new();
    for c in &conjuncts {
        match vars.atom(c) {
            Some(a) => {
                if !atoms.contains(&a) {
                    atoms.push(a);
                }
            }
            None => {
                if let Some(b) = normal_formula(&vars, c) {
                    others.push(b);
                }
            }
        }
    }
    let atoms = merge_opposites(atoms);
    let rb = ReadBack {
        prog,
        names: vars.by_name.clone(),
    };
    atoms
        .iter()
        .map(render)
        .chain(others)
        .filter_map(|b| rb.formula(&Dynamic::from_ast(&b)))
        .filter(|e| !matches!(e.kind, crate::ir::ExprKind::Const(1)))
        .collect()
}

fn flatten_and(f: &Dynamic, out: &mut Vec<Dynamic>) {
    if f.kind() == AstKind::App && f.sort_kind() == SortKind::Bool && f.decl().name() == "and" {
        for c in f.children() {
            flatten_and(&c, out);
        }
    } else {
        out.push(f.clone());
    }
}

/// `L <= 0` and `-L <= 0` become `L == 0` (at the first one's place).
fn merge_opposites(atoms: Vec<(Lin, Rel)>) -> Vec<(Lin, Rel)> {
    let mut out: Vec<(Lin, Rel)> = Vec::new();
    let mut used = vec![false; atoms.len()];
    for i in 0..atoms.len() {
        if used[i] {
            continue;
        }
        used[i] = true;
        let (l, rel) = &atoms[i];
        if *rel == Rel::Le
            && let Some(opp) = l.clone().scale(-1)
            && let Some(j) = (i + 1..atoms.len()).find(|&j| {
                !used[j]
                    && atoms[j].1 == Rel::Le
                    && atoms[j].0.shape() == opp.shape()
                    && atoms[j].0.k == opp.k
            })
        {
            used[j] = true;
            out.push((l.clone(), Rel::Eq));
            continue;
        }
        out.push(atoms[i].clone());
    }
    out
}
