//! Cube enumeration: C2BP's `F_V(φ)` (Ball, Majumdar, Millstein, Rajamani, PLDI'01, §4.1;
//! `slam-algorithms.md` §3.3), its dual `G_V(φ) = ¬F_V(¬φ)`, and the inconsistent cubes behind
//! `enforce` (§3.9).
//!
//! `F_V(φ)` is the disjunction of the cubes over the Boolean variables `V` (each standing for a
//! C expression) whose meaning implies φ. It is computed breadth-first, in increasing cube
//! length up to the cube-length limit `k`, as SATABS's Cartesian abstraction and the C2BP paper
//! describe:
//! - **shortcuts first**: a constant φ, φ syntactically equal (after normalisation) to a variable's
//!   expression or to its negation, φ or ¬φ valid outright;
//! - **relevance**: the search starts from the variables whose locations (variables read and
//!   objects reached through pointers) intersect φ's, and grows a cube only with variables that
//!   share a location with it (so `x == y ∧ y > 5 ⇒ x > 5` is found);
//! - **pruning**: a cube implying φ or ¬φ is not extended, nor is an inconsistent cube
//!   (detected as implying both), and supersets of such cubes are never tried.
//!
//! Both `F_V(φ)` and `F_V(¬φ)` come out of one search (a cube that implies one side cannot have
//! an extension implying the other). Every question goes to the one C semantics,
//! [`cir::smt::Prover`]; an `unknown` answer counts as "not valid", so a cube is only ever
//! reported when the implication is proved: the result under-approximates `F_V(φ)`, which keeps
//! the abstraction sound (more `*`).

use std::collections::{BTreeSet, HashMap, HashSet, VecDeque};

use cir::ir::{Expr, ExprKind, Program, UnOp};
use cir::pointsto::{Loc, PointsTo};
use cir::pred::normalize;
use cir::smt::{Prover, SatAnswer, Session};

/// A literal: the index of a variable in a [`VarSet`] and its polarity.
pub type Lit = (usize, bool);

/// A conjunction of literals, sorted by variable index, each variable at most once.
pub type Cube = Vec<Lit>;

/// A Boolean variable of the abstraction and the C expression it stands for.
#[derive(Debug, Clone)]
pub struct PredVar {
    /// Its `.bp` name (`{x < y}`, or a temporary's name).
    pub name: String,
    /// The C condition it stands for (normalised).
    pub expr: Expr,
    /// The locations the condition reads.
    pub locs: BTreeSet<Loc>,
}

/// The locations an expression reads: every variable and every object an lvalue in it may
/// access (through pointers, by the points-to analysis).
pub fn locations(e: &Expr, pts: &PointsTo) -> BTreeSet<Loc> {
    let mut out = BTreeSet::new();
    e.walk(&mut |x| {
        if x.is_lvalue() {
            out.extend(pts.objects(x));
        }
    });
    out
}

/// The logical negation of a condition, normalised.
pub fn negate(e: &Expr) -> Expr {
    normalize(Expr {
        kind: ExprKind::Unary(UnOp::LogNot, Box::new(e.clone())),
        ty: cir::types::CType::INT,
    })
}

/// The variables in scope at a point, with an index from normalised text to variable.
#[derive(Debug, Clone, Default)]
pub struct VarSet {
    /// The variables, in declaration order.
    pub vars: Vec<PredVar>,
    by_text: HashMap<String, usize>,
}

impl VarSet {
    /// Adds a variable standing for `expr` (normalised here).
    pub fn push(&mut self, prog: &Program, pts: &PointsTo, name: String, expr: &Expr) {
        let expr = normalize(expr.clone());
        let text = prog.show_expr(&expr);
        let locs = locations(&expr, pts);
        self.by_text.entry(text).or_insert(self.vars.len());
        self.vars.push(PredVar { name, expr, locs });
    }

    /// The index of the variable whose expression has this normalised text.
    pub fn find(&self, text: &str) -> Option<usize> {
        self.by_text.get(text).copied()
    }

    /// The C expression of a literal.
    pub fn lit_expr(&self, (i, pos): Lit) -> Expr {
        let e = &self.vars[i].expr;
        if pos { e.clone() } else { negate(e) }
    }

    /// The `.bp` text of a literal.
    pub fn lit_text(&self, (i, pos): Lit) -> String {
        if pos {
            self.vars[i].name.clone()
        } else {
            format!("!{}", self.vars[i].name)
        }
    }

    /// The `.bp` text of a disjunction of cubes (`F` when empty, `T` for the empty cube).
    pub fn cubes_text(&self, cubes: &[Cube]) -> String {
        if cubes.is_empty() {
            return "F".into();
        }
        if cubes.iter().any(Vec::is_empty) {
            return "T".into();
        }
        let parts: Vec<String> = cubes.iter().map(|c| self.cube_text(c)).collect();
        if parts.len() == 1 {
            parts.into_iter().next().unwrap_or_default()
        } else {
            format!("({})", parts.join(" | "))
        }
    }

    /// The `.bp` text of one cube.
    pub fn cube_text(&self, c: &Cube) -> String {
        match c.as_slice() {
            [] => "T".into(),
            [l] => self.lit_text(*l),
            _ => {
                let lits: Vec<String> = c.iter().map(|l| self.lit_text(*l)).collect();
                format!("({})", lits.join(" & "))
            }
        }
    }
}

/// `F_V(φ)` and `F_V(¬φ)`: the cubes found to imply φ and those found to imply ¬φ.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Approx {
    /// Cubes implying φ (`[[]]`: φ is valid).
    pub pos: Vec<Cube>,
    /// Cubes implying ¬φ.
    pub neg: Vec<Cube>,
}

impl Approx {
    /// The `.bp` expression `choose(F(φ), F(¬φ))` (C2BP's `schoose`), simplified: `T`, `F`, `*`,
    /// a literal when the two sides are one variable and its negation.
    pub fn choose_text(&self, vs: &VarSet) -> String {
        let t = |c: &[Cube]| c.iter().any(Vec::is_empty);
        if t(&self.pos) {
            return "T".into();
        }
        if t(&self.neg) {
            return "F".into();
        }
        if self.pos.is_empty() && self.neg.is_empty() {
            return "*".into();
        }
        if let ([p], [n]) = (self.pos.as_slice(), self.neg.as_slice())
            && let ([(i, s)], [(j, t)]) = (p.as_slice(), n.as_slice())
            && i == j
            && s != t
        {
            return vs.lit_text((*i, *s));
        }
        format!(
            "schoose[{}, {}]",
            vs.cubes_text(&self.pos),
            vs.cubes_text(&self.neg)
        )
    }

    /// The `.bp` expression `G(φ) = ¬F(¬φ)` (what an `assume(φ)` becomes).
    pub fn weaken_text(&self, vs: &VarSet) -> String {
        match self.neg.as_slice() {
            [] => "T".into(),
            [c] if c.is_empty() => "F".into(),
            [c] if c.len() == 1 => vs.lit_text((c[0].0, !c[0].1)),
            _ => format!("!{}", vs.cubes_text(&self.neg)),
        }
    }

    /// Whether nothing is known (the update is `*`).
    pub fn is_unknown(&self) -> bool {
        self.pos.is_empty() && self.neg.is_empty()
    }
}

/// The cube-enumeration engine of one procedure: the prover, the points-to facts and the
/// cube-length limit.
pub struct Enumerator<'a> {
    /// The one C semantics.
    pub prover: &'a Prover<'a>,
    /// Points-to facts (for locations).
    pub pts: &'a PointsTo,
    /// The program.
    pub prog: &'a Program,
    /// Maximum cube length (`None`: unlimited).
    pub max_len: Option<usize>,
}

fn subset(small: &[Lit], big: &[Lit]) -> bool {
    small.iter().all(|l| big.binary_search(l).is_ok())
}

fn insert_lit(c: &Cube, l: Lit) -> Cube {
    let mut out = c.clone();
    let at = out.partition_point(|x| x.0 < l.0);
    out.insert(at, l);
    out
}

impl Enumerator<'_> {
    /// The variables connected to `locs` through shared locations (transitively), in order.
    fn connected(&self, vs: &VarSet, locs: &BTreeSet<Loc>) -> Vec<usize> {
        let mut reach = locs.clone();
        let mut in_set = vec![false; vs.vars.len()];
        let mut changed = true;
        while changed {
            changed = false;
            for (i, v) in vs.vars.iter().enumerate() {
                if !in_set[i] && !v.locs.is_disjoint(&reach) {
                    in_set[i] = true;
                    reach.extend(v.locs.iter().cloned());
                    changed = true;
                }
            }
        }
        (0..vs.vars.len()).filter(|i| in_set[*i]).collect()
    }

    /// `F_V(φ)` and `F_V(¬φ)` for a condition φ over the variables `vs` (module doc).
    pub fn approx(&self, vs: &VarSet, phi: &Expr) -> Approx {
        let phi = normalize(phi.clone());
        let mut out = Approx::default();
        if let ExprKind::Const(v) = phi.kind {
            if v != 0 {
                out.pos.push(Vec::new());
            } else {
                out.neg.push(Vec::new());
            }
            return out;
        }
        if let Some(i) = vs.find(&self.prog.show_expr(&phi)) {
            out.pos.push(vec![(i, true)]);
            out.neg.push(vec![(i, false)]);
            return out;
        }
        let not_phi = negate(&phi);
        if let Some(i) = vs.find(&self.prog.show_expr(&not_phi)) {
            out.pos.push(vec![(i, false)]);
            out.neg.push(vec![(i, true)]);
            return out;
        }
        let phi_locs = locations(&phi, self.pts);
        let rel = self.connected(vs, &phi_locs);
        // Session atoms: the connected variables, then φ.
        let mut atoms: Vec<Expr> = rel.iter().map(|&i| vs.vars[i].expr.clone()).collect();
        atoms.push(phi.clone());
        let goal = rel.len();
        let max_len = self.max_len;
        let (pos, neg) = self
            .prover
            .session(&atoms, |s| search(s, vs, &rel, goal, &phi_locs, max_len));
        out.pos = pos;
        out.neg = neg;
        out
    }

    /// The minimal inconsistent cubes of at most `max_len` literals over `vs` that contain at
    /// least one variable of `must` (every cube when `must` is `None`), skipping supersets of
    /// `known` (already excluded elsewhere). Only connected cubes are tried (each new variable
    /// shares a location with the cube).
    pub fn inconsistent_cubes(
        &self,
        vs: &VarSet,
        must: Option<&BTreeSet<usize>>,
        max_len: usize,
        known: &[Cube],
    ) -> Vec<Cube> {
        if vs.vars.is_empty() {
            return Vec::new();
        }
        let atoms: Vec<Expr> = vs.vars.iter().map(|v| v.expr.clone()).collect();
        self.prover.session(&atoms, |s| {
            let mut found: Vec<Cube> = Vec::new();
            let mut queue: VecDeque<Cube> = VecDeque::new();
            let mut tried: HashSet<Cube> = HashSet::new();
            for i in 0..vs.vars.len() {
                for b in [true, false] {
                    let c = vec![(i, b)];
                    tried.insert(c.clone());
                    queue.push_back(c);
                }
            }
            let is_covered =
                |c: &Cube, found: &[Cube]| found.iter().chain(known).any(|d| subset(d, c));
            while let Some(c) = queue.pop_front() {
                if is_covered(&c, &found) {
                    continue;
                }
                let wanted = must.is_none_or(|m| c.iter().any(|l| m.contains(&l.0)));
                if wanted && !s.check(&c).maybe_sat() {
                    found.push(c);
                    continue;
                }
                if c.len() >= max_len {
                    continue;
                }
                let mut c_locs = BTreeSet::new();
                for (i, _) in &c {
                    c_locs.extend(vs.vars[*i].locs.iter().cloned());
                }
                // Extend with larger indices only: every cube is generated once, in order.
                let last = c.last().map_or(0, |l| l.0 + 1);
                for j in last..vs.vars.len() {
                    if vs.vars[j].locs.is_disjoint(&c_locs) {
                        continue;
                    }
                    for b in [true, false] {
                        let d = insert_lit(&c, (j, b));
                        if tried.insert(d.clone()) && !is_covered(&d, &found) {
                            queue.push_back(d);
                        }
                    }
                }
            }
            found
        })
    }
}

/// The breadth-first cube search of [`Enumerator::approx`] inside a session whose atoms are the
/// variables `rel` (atom `k` is variable `rel[k]`) and then φ (atom `goal`). Returns the cubes
/// (over variable indices) implying φ and those implying ¬φ.
fn search(
    s: &mut Session<'_>,
    vs: &VarSet,
    rel: &[usize],
    goal: usize,
    phi_locs: &BTreeSet<Loc>,
    max_len: Option<usize>,
) -> (Vec<Cube>, Vec<Cube>) {
    let mut pos: Vec<Cube> = Vec::new();
    let mut neg: Vec<Cube> = Vec::new();
    // Cubes are over atom positions during the search.
    let implies = |s: &mut Session<'_>, c: &Cube, b: bool| {
        let mut lits = c.clone();
        lits.push((goal, !b));
        s.check(&lits) == SatAnswer::Unsat
    };
    if implies(s, &Vec::new(), true) {
        return (vec![Vec::new()], neg);
    }
    if implies(s, &Vec::new(), false) {
        return (pos, vec![Vec::new()]);
    }
    let mut queue: VecDeque<Cube> = VecDeque::new();
    let mut tried: HashSet<Cube> = HashSet::new();
    for (k, &i) in rel.iter().enumerate() {
        if !vs.vars[i].locs.is_disjoint(phi_locs) {
            for b in [true, false] {
                let c = vec![(k, b)];
                tried.insert(c.clone());
                queue.push_back(c);
            }
        }
    }
    let mut inconsistent: Vec<Cube> = Vec::new();
    let covered = |c: &Cube, pos: &[Cube], neg: &[Cube], inc: &[Cube]| {
        pos.iter().chain(neg).chain(inc).any(|d| subset(d, c))
    };
    while let Some(c) = queue.pop_front() {
        if covered(&c, &pos, &neg, &inconsistent) {
            continue;
        }
        match (implies(s, &c, true), implies(s, &c, false)) {
            (true, true) => inconsistent.push(c),
            (true, false) => pos.push(c),
            (false, true) => neg.push(c),
            (false, false) => {
                if max_len.is_some_and(|k| c.len() >= k) {
                    continue;
                }
                let mut c_locs = BTreeSet::new();
                for (k, _) in &c {
                    c_locs.extend(vs.vars[rel[*k]].locs.iter().cloned());
                }
                for (k, &j) in rel.iter().enumerate() {
                    if c.iter().any(|l| l.0 == k) || vs.vars[j].locs.is_disjoint(&c_locs) {
                        continue;
                    }
                    for b in [true, false] {
                        let d = insert_lit(&c, (k, b));
                        if !covered(&d, &pos, &neg, &inconsistent) && tried.insert(d.clone()) {
                            queue.push_back(d);
                        }
                    }
                }
            }
        }
    }
    let back = |cs: Vec<Cube>| -> Vec<Cube> {
        cs.into_iter()
            .map(|c| c.into_iter().map(|(k, b)| (rel[k], b)).collect())
            .collect()
    };
    (back(pos), back(neg))
}
