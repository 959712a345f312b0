//! Cube enumeration: C2BP's `F_V(φ)` (Ball, Majumdar, Millstein, Rajamani, PLDI'01, §4.1),
//! its dual `G_V(φ) = ¬F_V(¬φ)`, and the inconsistent cubes behind `enforce` (the Constrain
//! paper, TACAS'04 §3.3).
//!
//! `F_V(φ)` is the disjunction of the cubes over the Boolean variables `V` (each standing for a
//! C expression) whose meaning implies φ. It is computed breadth-first, in increasing cube
//! length up to the cube-length limit `k`, as SATABS's Cartesian abstraction and the C2BP paper
//! describe:
//! - **shortcuts first**: a constant φ, φ syntactically equal (after normalisation) to a variable's
//!   expression or to its negation, φ or ¬φ valid outright;
//! - **relevance**: the search starts from the variables related to φ by the cells they read
//!   ([`crate::relevance`]: field by field, a pointer read only to reach a field relating
//!   nothing by itself), and grows a cube only with variables related to it (so
//!   `x == y ∧ y > 5 ⇒ x > 5` is found);
//! - **pruning**: a cube implying φ or ¬φ is not extended, nor is an inconsistent cube
//!   (detected as implying both), and supersets of such cubes are never tried.
//!
//! At unbounded cube length over many atoms, where both the projections and the search blow
//! up, `F_V(φ)` is computed as a *cover* of the valuations whose cube implies φ
//! (`Search::by_generalization`, as IC3 generalises a state): the same Boolean function in
//! fewer cubes.
//!
//! Both `F_V(φ)` and `F_V(¬φ)` come out of one search (a cube that implies one side cannot have
//! an extension implying the other). Every question goes to the one C semantics,
//! [`cir::smt::Prover`]; an `unknown` answer counts as "not valid", so a cube is only ever
//! reported when the implication is proved: the result under-approximates `F_V(φ)`, which keeps
//! the abstraction sound (more `*`).

use std::collections::{BTreeSet, HashMap, HashSet, VecDeque};

use cir::ir::{BinOp, Expr, ExprKind, Program, UnOp, VarId};
use cir::pointsto::{Loc, PointsTo};
use cir::pred::normalize;
use cir::smt::{SatAnswer, Session, SolverCx};
use cir::types::{CType, DataModel};

use crate::relevance::{self, Relevance};

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
    /// The condition's text (`Program::show_expr` of `expr`): its identity across
    /// abstractions, in search keys and known cubes, printed once.
    pub text: String,
    /// The cells the condition reads ([`crate::relevance`]).
    pub locs: Relevance,
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
    /// The relation among `vars` ([`relevance::Graph`]), made at the first closure after the
    /// last push.
    graph: std::sync::OnceLock<relevance::Graph>,
}

impl VarSet {
    /// Adds a variable standing for `expr` (normalised here).
    pub fn push(&mut self, prog: &Program, pts: &PointsTo, name: String, expr: &Expr) {
        let expr = normalize(expr.clone());
        let text = prog.show_expr(&expr);
        let locs = Relevance::of(&expr, pts);
        self.by_text.entry(text.clone()).or_insert(self.vars.len());
        self.vars.push(PredVar {
            name,
            expr,
            text,
            locs,
        });
        self.graph = std::sync::OnceLock::new();
    }

    /// The relation among the variables, for [`relevance::connected`] over them (or over them
    /// followed by others).
    pub fn graph(&self) -> &relevance::Graph {
        self.graph
            .get_or_init(|| relevance::Graph::new(self.vars.len()))
    }

    /// The index of the variable whose expression has this normalised text.
    pub fn find(&self, text: &str) -> Option<usize> {
        self.by_text.get(text).copied()
    }

    /// The cube as [`Known`] literals (texts of the expressions).
    pub fn cube_key(&self, c: &Cube) -> Vec<(String, bool)> {
        c.iter()
            .map(|&(i, b)| (self.vars[i].text.clone(), b))
            .collect()
    }

    /// The cube of a [`VarSet::cube_key`] over these variables (`None` when one is missing),
    /// its literals in index order.
    pub fn cube_of_key(&self, key: &[(String, bool)]) -> Option<Cube> {
        let mut c: Cube = key
            .iter()
            .map(|(t, b)| self.find(t).map(|i| (i, *b)))
            .collect::<Option<Cube>>()?;
        c.sort_unstable();
        Some(c)
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
            chain_text(parts, "|")
        }
    }

    /// The `.bp` text of one cube.
    pub fn cube_text(&self, c: &Cube) -> String {
        match c.as_slice() {
            [] => "T".into(),
            [l] => self.lit_text(*l),
            _ => {
                let lits: Vec<String> = c.iter().map(|l| self.lit_text(*l)).collect();
                chain_text(lits, "&")
            }
        }
    }
}

/// Operands of one flat chain `(a op b op …)` at most: the parser nests a chain one level per
/// operand, and the grammar bounds nesting (`bp_grammar::ast::MAX_EXPR_DEPTH`).
const CHAIN: usize = 256;

/// `parts` (at least two) joined by `op` in parentheses, as the printer writes a chain; a
/// longer chain is grouped into chains of [`CHAIN`] operands, recursively, so that its nesting
/// grows with the logarithm of its length and the `.bp` c2bp writes always parses. Written as
/// the printer writes the grouped chain — a chain parses left-nested, and the printer writes
/// a same-operator chain in its leftmost operand inline (`((a | b) | (c | d))` is
/// `(a | b | (c | d))`) — so that the text is canonical and needs no second parse.
pub(crate) fn chain_text(parts: Vec<String>, op: &str) -> String {
    /// An operand of a grouped chain: a part, or a chain of at least two.
    enum Operand {
        Part(String),
        Chain(Vec<Operand>),
    }
    fn write(out: &mut String, ops: &[Operand], sep: &str) {
        out.push('(');
        inline(out, ops, sep);
        out.push(')');
    }
    fn inline(out: &mut String, ops: &[Operand], sep: &str) {
        for (i, o) in ops.iter().enumerate() {
            if i > 0 {
                out.push_str(sep);
            }
            match o {
                Operand::Part(t) => out.push_str(t),
                Operand::Chain(inner) if i == 0 => inline(out, inner, sep),
                Operand::Chain(inner) => write(out, inner, sep),
            }
        }
    }
    let sep = format!(" {op} ");
    let mut ops: Vec<Operand> = parts.into_iter().map(Operand::Part).collect();
    while ops.len() > CHAIN {
        let mut grouped = Vec::with_capacity(ops.len().div_ceil(CHAIN));
        let mut rest = ops.into_iter().peekable();
        while rest.peek().is_some() {
            let group: Vec<Operand> = rest.by_ref().take(CHAIN).collect();
            grouped.push(match <[Operand; 1]>::try_from(group) {
                Ok([one]) => one,
                Err(group) => Operand::Chain(group),
            });
        }
        ops = grouped;
    }
    let mut out = String::new();
    write(&mut out, &ops, &sep);
    out
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

/// The cube-enumeration engine of one procedure: the points-to facts, the program and the
/// cube-length limit; questions go to a [`SolverCx`] passed to each call.
pub struct Enumerator<'a> {
    /// Points-to facts (for locations).
    pub pts: &'a PointsTo,
    /// The program.
    pub prog: &'a Program,
    /// Maximum cube length (`None`: unlimited).
    pub max_len: Option<usize>,
    /// Maximum number of solver queries of one search (beyond it the cubes found so far are
    /// the answer: still sound, less precise). Counted, so deterministic.
    pub max_queries: u64,
}

/// Cubes known to be inconsistent, by the normalised texts of their literals' expressions (so
/// they apply to any [`VarSet`] holding those expressions): the search never tries a cube that
/// contains one.
pub type Known = [Vec<(String, bool)>];

/// The answer of one cube search: the cubes implying φ and ¬φ (over atom positions, in the
/// canonical order: by length, then by literals), and whether the search was *complete* — not
/// capped by [`Enumerator::max_queries`] and no `unknown` answer — so that a cube over its
/// atoms that contains none of `pos` (resp. `neg`) is known not to imply φ (resp. ¬φ).
#[derive(Debug, Clone, Default)]
pub struct Answer {
    /// Minimal cubes implying φ.
    pub pos: Vec<Cube>,
    /// Minimal cubes implying ¬φ.
    pub neg: Vec<Cube>,
    /// Whether the search was complete (see the type's doc).
    pub complete: bool,
}

/// Answers of cube searches, keyed by the texts of φ and of the search's atoms
/// ([`search_key`]). Within one function the texts name the same variables in every abstraction
/// of the program (names are unique per function, not across functions: `x0` may be an `int` in
/// one and an `unsigned` in another), and every cube of an answer was proved to imply φ
/// whatever else was pruned, so an answer is valid in later abstractions of the same function
/// with the same options. Answers across abstractions are kept in a [`Prior`].
pub type Memo = HashMap<String, Answer>;

/// The key of a search for φ over atoms (texts of φ and of the atoms, in order).
pub fn search_key<'t>(phi: &str, atoms: impl IntoIterator<Item = &'t str>) -> String {
    let mut key = phi.to_string();
    for a in atoms {
        key.push('\u{1}');
        key.push_str(a);
    }
    key
}

/// The key of a search of function `func` in a memo carried across abstractions.
pub fn scoped_key(func: &str, key: &str) -> String {
    format!("{func}\u{2}{key}")
}

/// The answers of earlier abstractions of a program: by exact key ([`scoped_key`] of a
/// [`search_key`]), and, per function and φ, the keys of the complete ones — the seeds of
/// *incremental* searches when the atoms grew (a complete answer over fewer atoms).
#[derive(Debug, Clone, Default)]
pub struct Prior {
    answers: Memo,
    by_phi: HashMap<String, Vec<String>>,
}

/// A complete earlier answer for the same φ over a subset of the atoms, moved to the current
/// atom positions, and the positions of the atoms it did not have.
struct Seed {
    pos: Vec<Cube>,
    neg: Vec<Cube>,
    fresh: Vec<usize>,
}

impl Prior {
    /// Answers held.
    pub fn len(&self) -> usize {
        self.answers.len()
    }

    /// Whether no answer is held.
    pub fn is_empty(&self) -> bool {
        self.answers.is_empty()
    }

    /// Adds the answer of a search of function `func` (kept if one is already there).
    pub fn insert(&mut self, func: &str, key: &str, answer: Answer) {
        let full = scoped_key(func, key);
        if self.answers.contains_key(&full) {
            return;
        }
        if answer.complete {
            let phi = key.split('\u{1}').next().unwrap_or_default();
            self.by_phi
                .entry(scoped_key(func, phi))
                .or_default()
                .push(full.clone());
        }
        self.answers.insert(full, answer);
    }

    fn get(&self, func: &str, key: &str) -> Option<&Answer> {
        self.answers.get(&scoped_key(func, key))
    }

    /// The complete earlier answer for φ in `func` whose atoms are a strict subset of `atoms`
    /// (the largest such, ties broken by key), moved to positions in `atoms`. Its cubes are
    /// still minimal over `atoms` (their sub-cubes are over the old atoms, where none implies
    /// φ), and every other minimal cube over `atoms` contains a fresh atom.
    fn seed(&self, func: &str, phi: &str, atoms: &[String]) -> Option<Seed> {
        let cands = self.by_phi.get(&scoped_key(func, phi))?;
        let at: HashMap<&str, usize> = atoms
            .iter()
            .enumerate()
            .map(|(k, t)| (t.as_str(), k))
            .collect();
        if at.len() != atoms.len() {
            return None;
        }
        let mut best: Option<(usize, &String, Vec<usize>)> = None;
        for full in cands {
            let olds: Vec<&str> = full.split('\u{1}').skip(1).collect();
            if olds.len() >= atoms.len() {
                continue;
            }
            let Some(map) = olds
                .iter()
                .map(|t| at.get(t).copied())
                .collect::<Option<Vec<usize>>>()
            else {
                continue;
            };
            let better = match &best {
                None => true,
                Some((n, k, _)) => olds.len() > *n || (olds.len() == *n && full < *k),
            };
            if better {
                best = Some((olds.len(), full, map));
            }
        }
        let (_, full, map) = best?;
        let a = &self.answers[full];
        let moved = |cs: &Vec<Cube>| -> Vec<Cube> {
            cs.iter()
                .map(|c| {
                    let mut d: Cube = c.iter().map(|&(k, b)| (map[k], b)).collect();
                    d.sort_unstable();
                    d
                })
                .collect()
        };
        let old: HashSet<usize> = map.iter().copied().collect();
        Some(Seed {
            pos: moved(&a.pos),
            neg: moved(&a.neg),
            fresh: (0..atoms.len()).filter(|k| !old.contains(k)).collect(),
        })
    }
}

/// Cubes in canonical order — by length, then by their literals — so an answer does not depend
/// on the order in which a search found its cubes.
fn canonical_order(cs: &mut [Cube]) {
    cs.sort_by(|a, b| a.len().cmp(&b.len()).then_with(|| a.cmp(b)));
}

/// Counters of the searches, and the memo of one procedure's answers, so the memo never
/// crosses procedures during one abstraction and the output does not depend on the schedule;
/// `prior` holds the answers of earlier abstractions (read-only while this one runs, see
/// [`crate::Cache`]).
#[derive(Debug, Clone, Default)]
pub struct SearchStats {
    /// Searches that hit [`Enumerator::max_queries`].
    pub capped: u64,
    /// Answers taken from the memo.
    pub memo_hits: u64,
    /// Answers taken from earlier abstractions.
    pub prior_hits: u64,
    /// Searches seeded by an earlier abstraction's answer over fewer atoms.
    pub seeded: u64,
    /// This procedure's new answers.
    pub memo: Memo,
    /// Earlier abstractions' answers.
    pub prior: std::sync::Arc<Prior>,
    /// The function searched (the scope of `prior`'s keys).
    pub scope: String,
}

fn subset(small: &[Lit], big: &[Lit]) -> bool {
    small.iter().all(|l| big.binary_search(l).is_ok())
}

/// Cubes up to this length are checked against a [`Covers`] by their subsets (at most
/// `2^len` lookups); longer ones by a scan of its cubes.
const SUBSETS_UP_TO: usize = 8;

/// A set of cubes that answers whether one of them is a subset of a given cube: the pruning
/// question of every cube search, asked of each cube examined. A scan of the cubes found costs
/// their number, and a search over the states of a state machine finds thousands; a short
/// cube has few subsets to look up.
#[derive(Default)]
struct Covers {
    set: HashSet<Cube>,
    /// The longest cube held (a cube's subsets longer than it need no lookup).
    longest: usize,
}

impl Covers {
    fn of<'c>(cubes: impl IntoIterator<Item = &'c Cube>) -> Covers {
        let mut out = Covers::default();
        for c in cubes {
            out.insert(c.clone());
        }
        out
    }

    fn insert(&mut self, c: Cube) {
        self.longest = self.longest.max(c.len());
        self.set.insert(c);
    }

    /// Whether a cube of the set is a subset of `c`.
    fn covers(&self, c: &Cube) -> bool {
        if self.set.is_empty() {
            return false;
        }
        if c.len() > SUBSETS_UP_TO {
            return self.set.iter().any(|d| subset(d, c));
        }
        let mut sub: Cube = Vec::with_capacity(c.len());
        (0u32..1 << c.len()).any(|mask| {
            if mask.count_ones() as usize > self.longest {
                return false;
            }
            sub.clear();
            sub.extend(
                c.iter()
                    .enumerate()
                    .filter(|(i, _)| mask >> i & 1 == 1)
                    .map(|(_, l)| *l),
            );
            self.set.contains(&sub)
        })
    }
}

/// The models met by a cube search, in the order found, indexed by literal: the first one
/// that satisfies a cube (the witness that spares a query) is found by intersecting the sets
/// of models of its literals, a word of 64 models at a time, instead of scanning every model
/// (a search over a state machine keeps thousands).
#[derive(Default)]
struct Models {
    rows: Vec<Vec<bool>>,
    /// Per atom and value, the set of models (bit `i`: model `i`) giving the atom that value.
    by_lit: Vec<[Vec<u64>; 2]>,
}

impl Models {
    fn push(&mut self, m: Vec<bool>) {
        let i = self.rows.len();
        if self.by_lit.len() < m.len() {
            self.by_lit.resize_with(m.len(), Default::default);
        }
        let (word, bit) = (i / 64, 1u64 << (i % 64));
        for (k, &v) in m.iter().enumerate() {
            for side in &mut self.by_lit[k] {
                if side.len() <= word {
                    side.push(0);
                }
            }
            self.by_lit[k][usize::from(v)][word] |= bit;
        }
        self.rows.push(m);
    }

    /// The first model (in the order found) in which every literal of `c` holds.
    fn first_satisfying(&self, c: &Cube) -> Option<&Vec<bool>> {
        let words = self.rows.len().div_ceil(64);
        for w in 0..words {
            // Bits past the last model are never set, and the empty cube meets model `64 w`.
            let mut hit = u64::MAX;
            for &(k, b) in c {
                hit &= self.by_lit[k][usize::from(b)][w];
            }
            if hit != 0 {
                return self.rows.get(w * 64 + hit.trailing_zeros() as usize);
            }
        }
        None
    }
}

fn insert_lit(c: &Cube, l: Lit) -> Cube {
    let mut out = c.clone();
    let at = out.partition_point(|x| x.0 < l.0);
    out.insert(at, l);
    out
}

impl Enumerator<'_> {
    /// The variables related to `locs` (transitively, [`crate::relevance`]), in order.
    pub(crate) fn connected(&self, vs: &VarSet, locs: &Relevance) -> Vec<usize> {
        let vars: Vec<&Relevance> = vs.vars.iter().map(|v| &v.locs).collect();
        relevance::connected(vs.graph(), &vars, locs, vec![false; vars.len()], self.pts)
    }

    /// The variable of a condition `t op e` that the condition alone constrains, if its truth
    /// can be chosen freely through that variable: `t` an integer variable whose address is
    /// never taken and that `occurs` counts once (here), `op` a comparison, and `e` either a
    /// variable of `t`'s type (for `==`, `!=`) or a constant of `t`'s type strictly inside its
    /// range (any comparison). Whatever the other variables hold, some value of `t` makes the
    /// condition true and another makes it false.
    fn private_variable(&self, e: &Expr, occurs: &HashMap<VarId, usize>) -> Option<VarId> {
        let ExprKind::Binary(op, a, b) = &e.kind else {
            return None;
        };
        let equality = matches!(op, BinOp::Eq | BinOp::Ne);
        if !equality && !matches!(op, BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge) {
            return None;
        }
        let free = |t: &Expr, other: &Expr| -> Option<VarId> {
            let (ExprKind::Var(v), CType::Int(kind)) = (&t.kind, &t.ty) else {
                return None;
            };
            if occurs.get(v) != Some(&1)
                || other.ty != t.ty
                || self.pts.is_address_taken(&Loc::Var(*v))
            {
                return None;
            }
            let other_ok = match other.kind {
                ExprKind::Var(w) => equality && w != *v,
                ExprKind::Const(c) => [DataModel::Ilp32, DataModel::Lp64].iter().all(|dm| {
                    let (lo, hi) = kind.range(*dm);
                    lo < c && c < hi
                }),
                _ => false,
            };
            other_ok.then_some(*v)
        };
        free(a, b).or_else(|| free(b, a))
    }

    /// Drops from `rel` the *independent* atoms (see [`Enumerator::private_variable`]), to a
    /// fixpoint, and says whether φ itself is independent. This is exact: for a cube `c` over
    /// the other atoms and a literal `l` of an independent atom, `c ∧ l` implies φ (or is
    /// inconsistent) exactly when `c` does, since `l` can be made true by changing a variable
    /// nothing else mentions — so no minimal cube contains `l`. An independent φ is implied
    /// by no consistent cube, nor is ¬φ. (Driver code is full of these: `code == __cil_tmp62`
    /// for twelve temporaries, `s == NP` for eight state constants.)
    fn drop_independent(&self, vs: &VarSet, rel: &mut Vec<usize>, phi: &Expr) -> bool {
        let mut occurs: HashMap<VarId, usize> = HashMap::new();
        let count = |e: &Expr, occurs: &mut HashMap<VarId, usize>, d: isize| {
            e.walk(&mut |x| {
                if let ExprKind::Var(v) = x.kind {
                    let n = occurs.entry(v).or_default();
                    *n = n.wrapping_add_signed(d);
                }
            });
        };
        count(phi, &mut occurs, 1);
        for &i in rel.iter() {
            count(&vs.vars[i].expr, &mut occurs, 1);
        }
        if self.private_variable(phi, &occurs).is_some() {
            return true;
        }
        loop {
            let Some(k) = rel
                .iter()
                .position(|&i| self.private_variable(&vs.vars[i].expr, &occurs).is_some())
            else {
                return false;
            };
            count(&vs.vars[rel[k]].expr, &mut occurs, -1);
            rel.remove(k);
        }
    }

    /// `F_V(φ)` and `F_V(¬φ)` for a condition φ over the variables `vs` (module doc).
    pub fn approx(
        &self,
        cx: &mut SolverCx<'_>,
        stats: &mut SearchStats,
        known: &Known,
        vs: &VarSet,
        phi: &Expr,
    ) -> Approx {
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
        let phi_locs = Relevance::of(&phi, self.pts);
        let mut rel = self.connected(vs, &phi_locs);
        if self.drop_independent(vs, &mut rel, &phi) {
            return out;
        }
        // The same question (φ over the same expressions) is answered once per procedure.
        let phi_text = self.prog.show_expr(&phi);
        let texts: Vec<String> = rel.iter().map(|&i| vs.vars[i].text.clone()).collect();
        let key = search_key(&phi_text, texts.iter().map(String::as_str));
        let hit = match stats.memo.get(&key) {
            Some(a) => {
                stats.memo_hits += 1;
                Some(a)
            }
            None => stats
                .prior
                .get(&stats.scope, &key)
                .inspect(|_| stats.prior_hits += 1),
        };
        let to_vs = |cs: &Vec<Cube>| -> Vec<Cube> {
            cs.iter()
                .map(|c| c.iter().map(|&(k, b)| (rel[k], b)).collect())
                .collect()
        };
        if let Some(a) = hit {
            return Approx {
                pos: to_vs(&a.pos),
                neg: to_vs(&a.neg),
            };
        }
        // At unbounded length over many atoms: a covering search, in a solver of its own (its
        // cubes depend on the models it meets), never seeded (a seed's cubes are all minimal
        // cubes over fewer atoms, a covering answer is not).
        let covering = self.max_len.is_none() && rel.len() > GENERALIZATION_ATOMS;
        let seed = if covering {
            None
        } else {
            stats.prior.seed(&stats.scope, &phi_text, &texts)
        };
        let seeded = seed.is_some();
        if seeded {
            stats.seeded += 1;
        }
        // Session atoms: the connected variables, then φ.
        let mut atoms: Vec<Expr> = rel.iter().map(|&i| vs.vars[i].expr.clone()).collect();
        atoms.push(phi.clone());
        let mut atom_of: HashMap<usize, usize> = HashMap::new();
        for (k, &i) in rel.iter().enumerate() {
            atom_of.insert(i, k);
        }
        let mut pruned: Vec<Cube> = Vec::new();
        'cubes: for c in known {
            let mut d: Cube = Vec::with_capacity(c.len());
            for (text, b) in c {
                let Some(k) = vs.find(text).and_then(|i| atom_of.get(&i)) else {
                    continue 'cubes;
                };
                d.push((*k, *b));
            }
            d.sort_unstable();
            pruned.push(d);
        }
        let search = Search {
            pruned,
            goal: rel.len(),
            max_len: self.max_len,
            max_queries: self.max_queries,
        };
        let unknowns_before = cx.unknowns();
        let solver_before = cx.queries();
        let started = std::time::Instant::now();
        let (mut pos, mut neg, capped, queries) = if covering {
            cx.isolated_session(&atoms, |s| search.by_generalization(s))
        } else {
            cx.session(&atoms, |s| {
                s.know_aliasing(self.pts);
                match seed {
                    Some(seed) => search.run(s, Some(seed)),
                    None => search
                        .by_projection(s)
                        .unwrap_or_else(|| search.run(s, None)),
                }
            })
        };
        // A covering answer leaves out minimal cubes (the seeds of later searches need them).
        let complete = !capped && !covering && cx.unknowns() == unknowns_before;
        canonical_order(&mut pos);
        canonical_order(&mut neg);
        tracing::debug!(
            atoms = rel.len(),
            queries,
            solver_calls = cx.queries() - solver_before,
            seeded,
            ms = started.elapsed().as_secs_f64() * 1e3,
            pos = pos.len(),
            neg = neg.len(),
            "cube search for {phi_text}"
        );
        tracing::trace!(
            "atoms of the search: {}",
            rel.iter()
                .map(|&i| vs.vars[i].name.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        );
        if capped {
            stats.capped += 1;
        }
        out.pos = to_vs(&pos);
        out.neg = to_vs(&neg);
        stats.memo.insert(key, Answer { pos, neg, complete });
        out
    }

    /// The minimal inconsistent cubes of at most `max_len` literals over `vs` that contain at
    /// least one variable of `must` (every cube when `must` is `None`), skipping supersets of
    /// `known` (already excluded elsewhere). Every connected cube is tried, by length (each
    /// new variable shares a location with the cube; a disconnected inconsistent cube has an
    /// inconsistent part, so it is not minimal). `true` with them when the search stopped at
    /// its budget (`INCONSISTENT_QUERY_FACTOR` × `max_queries` queries, or that many times
    /// `NODES_PER_QUERY` cubes examined): then only some of the longest ones are missing
    /// (the search goes by length), and excluding fewer cubes is sound.
    pub fn inconsistent_cubes(
        &self,
        cx: &mut SolverCx<'_>,
        vs: &VarSet,
        must: Option<&BTreeSet<usize>>,
        max_len: usize,
        known: &[Cube],
    ) -> (Vec<Cube>, bool) {
        self.inconsistent_cubes_at_most(cx, vs, must, max_len, known, usize::MAX)
    }

    /// [`Enumerator::inconsistent_cubes`] that also stops (`true`) once it holds `max_cubes`
    /// cubes: the exact abstraction's bound on one statement's relation (`crate::exact`).
    pub(crate) fn inconsistent_cubes_at_most(
        &self,
        cx: &mut SolverCx<'_>,
        vs: &VarSet,
        must: Option<&BTreeSet<usize>>,
        max_len: usize,
        known: &[Cube],
        max_cubes: usize,
    ) -> (Vec<Cube>, bool) {
        if vs.vars.is_empty() {
            return (Vec::new(), false);
        }
        let budget = self.max_queries.saturating_mul(INCONSISTENT_QUERY_FACTOR);
        let atoms: Vec<Expr> = vs.vars.iter().map(|v| v.expr.clone()).collect();
        let n = atoms.len();
        cx.session(&atoms, |s| {
            s.know_aliasing(self.pts);
            // Unbounded length over few atoms: from the consistent valuations (model
            // enumeration), as `Search::by_projection` does for φ; the search below enumerates
            // every consistent cube (3^n of them) and took minutes at 17 atoms.
            if max_len >= n
                && n <= MAX_PROJECTION_ATOMS
                && let Some(vals) = Search::project(s, n, None, INCONSISTENT_PROJECTION_BUDGET)
            {
                let search = Search {
                    pruned: Vec::new(),
                    goal: n,
                    max_len: None,
                    max_queries: self.max_queries,
                };
                if let Some(cs) = search.minimal_cubes(n, &vals, None) {
                    let mut found: Vec<Cube> = cs
                        .into_iter()
                        .map(|c| mask_cube(n, c))
                        .filter(|c| must.is_none_or(|m| c.iter().any(|l| m.contains(&l.0))))
                        .filter(|c| !known.iter().any(|d| subset(d, c)))
                        .collect();
                    // Over the cap: the shortest ones, as the search below would keep.
                    let over = found.len() > max_cubes;
                    if over {
                        canonical_order(&mut found);
                        found.truncate(max_cubes);
                    }
                    return (found, over);
                }
            }
            let (mut queries, mut examined) = (0u64, 0u64);
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
            let mut covers = Covers::of(known);
            while let Some(c) = queue.pop_front() {
                if covers.covers(&c) {
                    continue;
                }
                examined += 1;
                if queries >= budget
                    || examined > budget.saturating_mul(NODES_PER_QUERY)
                    || found.len() >= max_cubes
                {
                    return (found, true);
                }
                let wanted = must.is_none_or(|m| c.iter().any(|l| m.contains(&l.0)));
                if wanted {
                    queries += 1;
                }
                if wanted && !s.check(&c).maybe_sat() {
                    covers.insert(c.clone());
                    found.push(c);
                    continue;
                }
                if c.len() >= max_len {
                    continue;
                }
                let mut c_locs = Relevance::default();
                for (i, _) in &c {
                    c_locs.extend(&vs.vars[*i].locs);
                }
                // Extend with any variable the cube does not have yet that is related to it (`tried` generates each cube once). Not only with larger indices:
                // the connected cube {a, b, c} with a and b disjoint and both sharing with c
                // has no connected prefix in index order, and an inconsistent cube is only
                // minimal when it is connected (extending in index order only would miss,
                // e.g., `N == -3 ∧ N + 1 + g >= 2 ∧ ¬(g >= 4)`).
                for j in 0..vs.vars.len() {
                    if c.iter().any(|l| l.0 == j) || !vs.vars[j].locs.meets(&c_locs, self.pts) {
                        continue;
                    }
                    for b in [true, false] {
                        let d = insert_lit(&c, (j, b));
                        if tried.insert(d.clone()) && !covers.covers(&d) {
                            queue.push_back(d);
                        }
                    }
                }
            }
            (found, false)
        })
    }
}

/// The breadth-first cube search of [`Enumerator::approx`] inside a session whose atoms are the
/// variables `rel` (atom `k` is variable `rel[k]`) and then φ (atom `goal`).
///
/// **Model-guided extension.** When a cube `c` does not imply φ, the solver's model `M` of
/// `c ∧ ¬φ` is a witness; an extension of `c` can imply φ only if it contains a literal false
/// in `M` (otherwise `M` still witnesses it), so only those literals are added on the φ side —
/// likewise for ¬φ with a model of `c ∧ φ`. Every cube over `rel` implying φ is still reached,
/// one literal at a time (at each step some literal of the target is false in the current
/// witness), so the result is that of the plain enumeration over all of `rel` (C2BP's
/// relevance, the transitive closure of shared locations from φ) with far fewer queries; the
/// witnesses replace the paper's per-cube connectivity heuristic.
struct Search {
    /// Known inconsistent cubes (over atom positions).
    pruned: Vec<Cube>,
    /// The position of φ, after the atoms `0..goal`.
    goal: usize,
    max_len: Option<usize>,
    max_queries: u64,
}

/// A cube to examine and the sides (φ, ¬φ) it is examined for.
struct Node {
    cube: Cube,
    pos: bool,
    neg: bool,
}

/// Cube-search bookkeeping over bitmasks: a cube is (variables, values) over atom positions.
type MaskCube = (u64, u64);

/// A cube over bitmasks (which of the `n` atoms, and their values) as literals.
fn mask_cube(n: usize, (vars, vals): MaskCube) -> Cube {
    (0..n)
        .filter(|k| vars >> k & 1 == 1)
        .map(|k| (k, vals >> k & 1 == 1))
        .collect()
}

/// Above this many atoms at unbounded cube length the projections (one query per valuation
/// of φ and of ¬φ) mostly overrun their budget, spending all of it ([`PROJECTION_BUDGET`]
/// queries each) before falling back: [`Search::by_generalization`] directly.
const GENERALIZATION_ATOMS: usize = 12;

/// Largest number of atoms for the projection method (valuations are `u64` bitmasks).
const MAX_PROJECTION_ATOMS: usize = 24;

/// At most this many valuations of φ (and of ¬φ) for [`Search::by_projection`]: one query
/// each, against a search that, past it, examines up to [`NODES_PER_QUERY`] × `max_queries`
/// cubes (seconds to minutes at 17 atoms).
const PROJECTION_BUDGET: u64 = 2048;

/// A seeded search starts from the empty cube when its fresh atoms are at least one in this
/// many of its atoms, else from the fresh atoms' literals (`Search::run`).
const FRESH_SHARE_FOR_EMPTY_ROOT: usize = 4;

/// The cube search examines at most this many cubes per allowed query: a cube answered by an
/// earlier model costs no query but a scan of the cubes found and the models kept, and at
/// unbounded length over many atoms the cubes run into millions.
const NODES_PER_QUERY: u64 = 4;

/// `enforce`'s inconsistent cubes (global, or of one procedure), incrementally when an
/// earlier abstraction's are still valid: `earlier` holds its cubes (still minimal and
/// inconsistent: their sub-cubes are over its predicates) and the variables new since (every
/// other minimal cube has one), so only cubes with a new variable are searched; otherwise a
/// full search for cubes with a variable of `must`. `prune`: cubes excluded elsewhere.
/// `search(must, known)` runs [`Enumerator::inconsistent_cubes`]. In the order of a full
/// search (by length, then literals with `true` first) either way, so the text is a fresh
/// abstraction's; `true` with them when the search stopped at its budget (then they are no
/// base for a later incremental search: it would never look for the missing ones).
pub fn inconsistent_cubes_since(
    earlier: Option<(Vec<Cube>, BTreeSet<usize>)>,
    must: Option<&BTreeSet<usize>>,
    prune: &[Cube],
    mut search: impl FnMut(Option<&BTreeSet<usize>>, &[Cube]) -> (Vec<Cube>, bool),
) -> (Vec<Cube>, bool) {
    let (mut cubes, capped) = match earlier {
        Some((known, fresh)) if fresh.is_empty() => (known, false),
        Some((mut known, fresh)) => {
            let mut all = prune.to_vec();
            all.extend(known.iter().cloned());
            let (new, capped) = search(Some(&fresh), &all);
            known.extend(new);
            (known, capped)
        }
        None => search(must, prune),
    };
    let order = |c: &Cube| c.iter().map(|&(i, b)| (i, !b)).collect::<Vec<_>>();
    cubes.sort_by_cached_key(|c| (c.len(), order(c)));
    (cubes, capped)
}

/// The valuations of the atoms of `vs` that some state has (bit `k`: atom `k`), by model
/// enumeration ([`Search::project`]); `None` over [`MAX_PROJECTION_ATOMS`] atoms, beyond
/// `budget` valuations or on `unknown`.
pub(crate) fn consistent_valuations(
    cx: &mut SolverCx<'_>,
    vs: &VarSet,
    budget: u64,
) -> Option<Vec<u64>> {
    let n = vs.vars.len();
    if n > MAX_PROJECTION_ATOMS {
        return None;
    }
    let atoms: Vec<Expr> = vs.vars.iter().map(|v| v.expr.clone()).collect();
    cx.session(&atoms, |s| Search::project(s, n, None, budget))
}

/// [`Enumerator::inconsistent_cubes`] by search stops after this many times `max_queries`
/// queries (one search covers a whole procedure, where a cube search covers one φ): at a large
/// `--enforce-len` over many related predicates an unbounded search does not end in
/// practice.
pub(crate) const INCONSISTENT_QUERY_FACTOR: u64 = 5;

/// At most this many consistent valuations for [`Enumerator::inconsistent_cubes`] by projection.
const INCONSISTENT_PROJECTION_BUDGET: u64 = 4096;

impl Search {
    /// An estimate of the queries of the plain search: two per cube of at most `max_len`
    /// literals over `n` atoms.
    fn enumeration_estimate(&self, n: usize) -> u64 {
        let k = self.max_len.unwrap_or(n).min(n);
        let mut total: u64 = 0;
        let mut binom: u64 = 1;
        for i in 0..=k {
            if i > 0 {
                binom = binom * (n - i + 1) as u64 / i as u64;
            }
            total = total.saturating_add(binom.saturating_mul(1u64 << i.min(62)));
        }
        total.saturating_mul(2)
    }

    /// The valuations of the `n` atoms over the states where the goal literal holds (all
    /// states without one), by model enumeration with blocking clauses; `None` beyond `budget`
    /// valuations or on `unknown`.
    fn project(
        s: &mut Session<'_>,
        n: usize,
        goal: Option<(usize, bool)>,
        budget: u64,
    ) -> Option<Vec<u64>> {
        s.push();
        let mut out = Vec::new();
        let goal: Vec<(usize, bool)> = goal.into_iter().collect();
        let res = loop {
            let (a, m) = s.check_model(&goal);
            match (a, m) {
                (SatAnswer::Unsat, _) => break Some(()),
                (SatAnswer::Sat, Some(m)) => {
                    let v = (0..n).fold(0u64, |acc, k| acc | (u64::from(m[k]) << k));
                    out.push(v);
                    if out.len() as u64 > budget {
                        break None;
                    }
                    let lits: Vec<(usize, bool)> = (0..n).map(|k| (k, m[k])).collect();
                    s.block(&lits);
                }
                _ => break None,
            }
        };
        s.pop();
        res.map(|()| out)
    }

    /// The minimal cubes of at most `max_len` literals satisfied by no valuation of `avoid` and
    /// by some valuation of `need` (any cube without `need`; generated in index order, so each
    /// once). `None` when the node cap is exceeded.
    fn minimal_cubes(
        &self,
        n: usize,
        avoid: &[u64],
        need: Option<&[u64]>,
    ) -> Option<Vec<MaskCube>> {
        let k = self.max_len.unwrap_or(n).min(n);
        let cap = self.max_queries.saturating_mul(10);
        let mut found: Vec<MaskCube> = Vec::new();
        let mut queue: VecDeque<(u64, u64, usize, usize)> = VecDeque::new();
        queue.push_back((0, 0, 0, 0));
        let mut nodes = 0u64;
        while let Some((vars, vals, next, len)) = queue.pop_front() {
            for j in next..n {
                for b in [1u64, 0u64] {
                    let cv = vars | (1 << j);
                    let cl = vals | (b << j);
                    if found.iter().any(|&(fv, fl)| cv & fv == fv && cl & fv == fl) {
                        continue;
                    }
                    nodes += 1;
                    if nodes > cap {
                        return None;
                    }
                    if need.is_some_and(|need| !need.iter().any(|v| v & cv == cl)) {
                        continue;
                    }
                    if !avoid.iter().any(|v| v & cv == cl) {
                        found.push((cv, cl));
                    } else if len + 1 < k {
                        queue.push_back((cv, cl, j + 1, len + 1));
                    }
                }
            }
        }
        Some(found)
    }

    /// `F(φ)` and `F(¬φ)` from the exact projections of `¬φ` and `φ` onto the atoms (the
    /// Boolean abstraction by enumeration of models, as in Lahiri, Nieuwenhuis and Oliveras,
    /// "SMT Techniques for Fast Predicate Abstraction", CAV'06), then the minimal cubes of at
    /// most `max_len` literals inside them: the same answer as the cube search when the
    /// projections are small. `None` (use the search) when they are not, and for a bounded cube
    /// length: there the search is cheaper — at cube length 3 most projections of the ntdrivers
    /// tasks overrun their budget, and the queries spent before falling back are more than half
    /// of all.
    fn by_projection(&self, s: &mut Session<'_>) -> Option<(Vec<Cube>, Vec<Cube>, bool, u64)> {
        let n = self.goal;
        if n > MAX_PROJECTION_ATOMS || self.max_len.is_some() {
            return None;
        }
        let budget = (self.enumeration_estimate(n) / 4).min(PROJECTION_BUDGET);
        let a = Self::project(s, n, Some((self.goal, false)), budget)?;
        let b = Self::project(s, n, Some((self.goal, true)), budget)?;
        let queries = (a.len() + b.len() + 2) as u64;
        if a.is_empty() && !b.is_empty() {
            return Some((vec![Vec::new()], Vec::new(), false, queries));
        }
        if b.is_empty() && !a.is_empty() {
            return Some((Vec::new(), vec![Vec::new()], false, queries));
        }
        // Cubes known inconsistent are never reported: the projections already exclude them.
        let pos = self.minimal_cubes(n, &a, Some(&b))?;
        let neg = self.minimal_cubes(n, &b, Some(&a))?;
        let back =
            |cs: Vec<MaskCube>| -> Vec<Cube> { cs.into_iter().map(|c| mask_cube(n, c)).collect() };
        Some((back(pos), back(neg), false, queries))
    }

    /// `F(φ)` and `F(¬φ)` at unbounded cube length over more than [`GENERALIZATION_ATOMS`]
    /// atoms — many predicates related to φ, whose valuations overrun the projections and
    /// whose consistent cubes the search would enumerate by the million (run in a session of
    /// its own, see `Enumerator::approx`): at
    /// unbounded length `F(φ)` holds of a valuation exactly when the valuation's full cube
    /// implies φ, so it is enough to *cover* those valuations, as IC3 generalises a state.
    /// Repeatedly: a model of φ outside the cubes found (and outside the valuations known to
    /// have a ¬φ state); if its valuation's cube implies φ, it is shrunk literal by literal
    /// to a minimal cube implying φ (found); else the valuation is blocked for φ. Each cube
    /// found is minimal, but not every minimal cube is found: the same Boolean function as
    /// the full search, in fewer cubes. Blocking clauses remove only φ states (a cube found
    /// implies φ; a mixed valuation is blocked together with φ), so the implication checks,
    /// which ask about ¬φ states, are unaffected. Beyond `max_queries`: the cubes found so far
    /// (capped; sound, less precise).
    fn by_generalization(&self, s: &mut Session<'_>) -> (Vec<Cube>, Vec<Cube>, bool, u64) {
        // Atoms 0..goal are the variables, atom `goal` is φ.
        let goal = self.goal;
        let mut queries = 0u64;
        let mut capped = false;
        // Valuations with both a φ and a ¬φ state, found on the φ side: blocked at once on the
        // ¬φ side.
        let mut mixed: Vec<Cube> = Vec::new();
        let mut side = |s: &mut Session<'_>, want: bool, mixed: &mut Vec<Cube>| -> Vec<Cube> {
            let mut found: Vec<Cube> = Vec::new();
            s.push();
            for v in mixed.iter() {
                let mut lits = v.clone();
                lits.push((goal, want));
                s.block(&lits);
            }
            loop {
                if queries >= self.max_queries {
                    capped = true;
                    break;
                }
                queries += 1;
                let (a, m) = s.check_model(&[(goal, want)]);
                let m = match (a, m) {
                    (SatAnswer::Unsat, _) => break,
                    (SatAnswer::Sat, Some(m)) => m,
                    _ => {
                        capped = true;
                        break;
                    }
                };
                let valuation: Cube = (0..goal).map(|k| (k, m[k])).collect();
                // c ∧ ¬(goal = want) unsatisfiable: its core (a sub-cube that also implies it).
                let core = |s: &mut Session<'_>, c: &Cube, q: &mut u64| -> Option<Cube> {
                    *q += 1;
                    let mut lits = c.clone();
                    lits.push((goal, !want));
                    match s.check_core(&lits) {
                        (SatAnswer::Unsat, Some(k)) => {
                            Some(k.into_iter().filter(|l| l.0 != goal).collect())
                        }
                        _ => None,
                    }
                };
                let Some(mut cube) = core(s, &valuation, &mut queries) else {
                    let mut lits = valuation.clone();
                    lits.push((goal, want));
                    s.block(&lits);
                    if want {
                        mixed.push(valuation);
                    }
                    continue;
                };
                // Minimal: drop literals one at a time, each time keeping the core (a literal
                // needed in a cube is needed in every sub-cube that still implies the goal).
                let mut needed: Vec<Lit> = Vec::new();
                while let Some(&l) = cube.iter().find(|l| !needed.contains(l)) {
                    let shorter: Cube = cube.iter().copied().filter(|&x| x != l).collect();
                    match core(s, &shorter, &mut queries) {
                        Some(k) => cube = k,
                        None => needed.push(l),
                    }
                }
                s.block(&cube);
                found.push(cube);
            }
            s.pop();
            found
        };
        let pos = side(s, true, &mut mixed);
        let neg = side(s, false, &mut mixed);
        (pos, neg, capped, queries)
    }

    /// The cube search (results over atom positions). With a [`Seed`] (a complete answer over
    /// the other atoms), its cubes are found already and the search starts from the literals of
    /// the fresh atoms instead of the empty cube: every other minimal cube contains one, and
    /// is reached from it one literal at a time as from the empty cube. Those roots, though,
    /// are not pruned by a witness as the empty cube's extensions are (`x != 4433` for a fresh
    /// `x == 4433` agrees with nearly every model, and each of its extensions is examined), so
    /// when the fresh atoms are a large share of all ([`FRESH_SHARE_FOR_EMPTY_ROOT`]) the search
    /// starts from the empty cube with the seed's cubes found already: they only prune
    /// supersets of minimal cubes, which lie on no path to another minimal cube (every cube on
    /// the path to `d` is a subset of `d`). A complete search finds the same cubes either way.
    fn run(&self, s: &mut Session<'_>, seed: Option<Seed>) -> (Vec<Cube>, Vec<Cube>, bool, u64) {
        let mut pos: Vec<Cube> = Vec::new();
        let mut neg: Vec<Cube> = Vec::new();
        let mut inconsistent: Vec<Cube> = self.pruned.clone();
        let mut queries = 0u64;
        let mut examined = 0u64;
        let mut capped = false;
        let mut queue: VecDeque<Node> = VecDeque::new();
        let mut sides: HashMap<Cube, (bool, bool)> = HashMap::new();
        // Models of ¬φ (resp. φ) over the atoms found so far: any one that satisfies a cube
        // shows, without a query, that the cube does not imply φ (resp. ¬φ) and is consistent.
        let mut models_pos = Models::default();
        let mut models_neg = Models::default();
        let roots: Vec<Cube> = match seed {
            None => vec![Vec::new()],
            Some(seed) => {
                pos = seed.pos;
                neg = seed.neg;
                if self.max_len == Some(0) {
                    Vec::new()
                } else if seed.fresh.len() * FRESH_SHARE_FOR_EMPTY_ROOT >= self.goal {
                    vec![Vec::new()]
                } else {
                    seed.fresh
                        .iter()
                        .flat_map(|&k| [vec![(k, true)], vec![(k, false)]])
                        .collect()
                }
            }
        };
        for cube in roots {
            sides.insert(cube.clone(), (true, true));
            queue.push_back(Node {
                cube,
                pos: true,
                neg: true,
            });
        }
        let mut covers = Covers::of(pos.iter().chain(&neg).chain(&inconsistent));
        while let Some(node) = queue.pop_front() {
            let c = node.cube;
            if covers.covers(&c) {
                continue;
            }
            examined += 1;
            if queries >= self.max_queries
                || examined > self.max_queries.saturating_mul(NODES_PER_QUERY)
            {
                capped = true;
                break;
            }
            let mut lits = c.clone();
            // A model found earlier that satisfies `c` is a witness without a query.
            let witness_in = |models: &Models| models.first_satisfying(&c).cloned();
            // φ side: c ∧ ¬φ
            let mut wit_pos: Option<Option<Vec<bool>>> = None;
            if node.pos
                && let Some(m) = witness_in(&models_pos)
            {
                wit_pos = Some(Some(m));
            } else if node.pos {
                lits.push((self.goal, false));
                let (a, m) = s.check_model(&lits);
                lits.pop();
                queries += 1;
                if a == SatAnswer::Unsat {
                    queries += 1;
                    covers.insert(c.clone());
                    if s.check(&lits) == SatAnswer::Unsat {
                        inconsistent.push(c);
                    } else {
                        pos.push(c);
                    }
                    continue;
                }
                if let Some(m) = &m {
                    models_pos.push(m.clone());
                }
                wit_pos = Some(m);
            }
            let mut wit_neg: Option<Option<Vec<bool>>> = None;
            if node.neg
                && let Some(m) = witness_in(&models_neg)
            {
                wit_neg = Some(Some(m));
            } else if node.neg {
                lits.push((self.goal, true));
                let (a, m) = s.check_model(&lits);
                lits.pop();
                queries += 1;
                if a == SatAnswer::Unsat {
                    covers.insert(c.clone());
                    if node.pos {
                        neg.push(c);
                    } else {
                        queries += 1;
                        if s.check(&lits) == SatAnswer::Unsat {
                            inconsistent.push(c);
                        } else {
                            neg.push(c);
                        }
                    }
                    continue;
                }
                if let Some(m) = &m {
                    models_neg.push(m.clone());
                }
                wit_neg = Some(m);
            }
            if self.max_len.is_some_and(|k| c.len() >= k) {
                continue;
            }
            // Does literal (k, b) disagree with a witness? (no model: it may.)
            let useful = |w: &Option<Option<Vec<bool>>>, k: usize, b: bool| match w {
                None => false,
                Some(None) => true,
                Some(Some(m)) => m[k] != b,
            };
            for k in 0..self.goal {
                if c.iter().any(|l| l.0 == k) {
                    continue;
                }
                for b in [true, false] {
                    let (p, n) = (useful(&wit_pos, k, b), useful(&wit_neg, k, b));
                    if !p && !n {
                        continue;
                    }
                    let d = insert_lit(&c, (k, b));
                    let old = sides.get(&d).copied().unwrap_or((false, false));
                    let (np, nn) = (p && !old.0, n && !old.1);
                    if !np && !nn {
                        continue;
                    }
                    sides.insert(d.clone(), (old.0 || p, old.1 || n));
                    queue.push_back(Node {
                        cube: d,
                        pos: np,
                        neg: nn,
                    });
                }
            }
        }
        (pos, neg, capped, queries)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn covers_answers_as_a_scan_of_its_cubes() {
        let mut rng = bp_testkit::prng::SplitMix64::new(5);
        let cube = |rng: &mut bp_testkit::prng::SplitMix64, max: usize| {
            let mut c: Cube = Vec::new();
            for _ in 0..rng.below(max + 1) {
                let l = (rng.below(12), rng.coin());
                if !c.iter().any(|x| x.0 == l.0) {
                    c = insert_lit(&c, l);
                }
            }
            c
        };
        for _ in 0..200 {
            let held: Vec<Cube> = (0..rng.below(30)).map(|_| cube(&mut rng, 4)).collect();
            let covers = Covers::of(&held);
            for _ in 0..50 {
                // Up to 11 literals: also past SUBSETS_UP_TO, where it scans.
                let c = cube(&mut rng, 11);
                let scan = held.iter().any(|d| subset(d, &c));
                assert_eq!(covers.covers(&c), scan, "{held:?} {c:?}");
            }
        }
    }

    #[test]
    fn models_find_the_first_model_of_a_cube_as_a_scan_does() {
        let mut rng = bp_testkit::prng::SplitMix64::new(7);
        let mut models = Models::default();
        for round in 0..300 {
            let m: Vec<bool> = (0..10).map(|_| rng.coin()).collect();
            models.push(m);
            for _ in 0..20 {
                let mut c: Cube = Vec::new();
                for _ in 0..rng.below(4) {
                    let l = (rng.below(10), rng.coin());
                    if !c.iter().any(|x| x.0 == l.0) {
                        c = insert_lit(&c, l);
                    }
                }
                let scan = models
                    .rows
                    .iter()
                    .find(|m| c.iter().all(|&(k, b)| m[k] == b));
                assert_eq!(models.first_satisfying(&c), scan, "round {round}, {c:?}");
            }
        }
    }

    /// A `.bp` whose `main` assumes `cond`.
    fn program(vars: usize, cond: &str) -> String {
        let names: Vec<String> = (0..vars).map(|i| format!("b{i}")).collect();
        format!(
            "void main() begin decl {}; assume {cond}; end",
            names.join(", ")
        )
    }

    /// The printer's text of the condition `main` of a [`program`] assumes.
    fn assumed(p: &bp_grammar::ast::Program) -> String {
        match &p.procs[0].body[0].kind {
            bp_grammar::ast::StmtKind::Assume(e) => bp_grammar::print::print_expr(e),
            k => panic!("not an assume: {k:?}"),
        }
    }

    #[test]
    fn a_long_chain_is_grouped_and_parses() {
        // Far beyond the grammar's nesting bound as one flat chain.
        let n = 3 * bp_grammar::ast::MAX_EXPR_DEPTH;
        let parts: Vec<String> = (0..n).map(|i| format!("b{}", i % 40)).collect();
        let text = chain_text(parts.clone(), "|");
        assert_eq!(text.matches(" | ").count(), n - 1, "every operand once");
        let flat = format!("({})", parts.join(" | "));
        assert!(bp_grammar::parse(&program(40, &flat)).is_err());
        let p = bp_grammar::parse(&program(40, &text)).expect("the grouped chain parses");
        // In the printer's form, so that it is read once.
        assert_eq!(assumed(&p), text);
        // Also past one level of grouping.
        let n = CHAIN * CHAIN + 7;
        let parts: Vec<String> = (0..n).map(|i| format!("b{}", i % 40)).collect();
        let text = chain_text(parts, "|");
        assert_eq!(text.matches(" | ").count(), n - 1, "every operand once");
        let p = bp_grammar::parse(&program(40, &text)).expect("the grouped chain parses");
        assert_eq!(assumed(&p), text);
        // A short chain is the printer's own flat form.
        let short: Vec<String> = (0..5).map(|i| format!("b{i}")).collect();
        assert_eq!(chain_text(short, "&"), "(b0 & b1 & b2 & b3 & b4)");
    }
}
