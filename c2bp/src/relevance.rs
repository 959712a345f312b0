//! Relevance: which Boolean variables a cube search may use, and which make an edge's
//! vocabulary ([`crate::reuse`]). C2BP grows a cube only with variables that share a location
//! with it (Ball, Majumdar, Millstein, Rajamani, PLDI'01, §4.1; SATABS, Clarke, Kroening,
//! Sharygina, Yorav, "Predicate Abstraction of ANSI-C Programs using SAT", §4, does the same).
//! This module owns what "share a location" means, once for every user: the search of
//! `F_V(φ)` (`cubes::Enumerator::connected`), the growth of inconsistent cubes, the
//! atoms of an exact relation and an edge's vocabulary.
//!
//! # The rule
//! Locations are *cells* of the field-sensitive points-to analysis ([`cir::pointsto::Cell`]):
//! `s->state` and `s->version` are different cells of the object `*s`, and two cells are
//! related when they overlap ([`PointsTo::cells_overlap`]: a prefix of the other's path, a
//! punned access, fields of a union). An expression reads cells in two ways:
//! - its **values**: every lvalue whose value it uses (`x` in `x < 5`, `s->state` in
//!   `s->state == 8464`, `p` and `q` in `p == q`), and the index of an element;
//! - its **bases**: a pointer read only to reach what it points to (`s` in `s->state`), and
//!   the cell whose address it takes (`x` in `&x`).
//!
//! Two expressions are related when a value cell of one overlaps a value or base cell of the
//! other; two bases alone do not relate them. `s->state == 8464` and
//! `(s->version & 65280) != 768` both reach their fields through `s`, but no valuation of one
//! constrains the other: with `s` fixed, the two fields are distinct memory. A predicate about
//! the pointer itself still meets everything read through it: `p == q` reads `p` and `q` as
//! values, so it is related to `p->f == 1` and to `q->f == 1`, and `p == q ∧ p->f == 1 ⇒
//! q->f == 1` is found when those predicates exist. The weakest precondition of an assignment
//! through a pointer compares addresses (Morris's axiom: `&lhs == &l`, `p == q`), which turns
//! bases into values: [`Relevance::promote`] is for seeds that may contain such comparisons.
//!
//! Relevance only prunes which cubes are tried, so it never affects soundness: a cube left out
//! makes a result weaker (more `*`), never wrong.

use std::collections::BTreeSet;
use std::sync::OnceLock;

use cir::ir::{Expr, ExprKind};
use cir::pointsto::{Cell, PointsTo};
use cir::types::CType;

/// The cells an expression reads, by how it reads them (module doc).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Relevance {
    /// Cells whose value the expression uses.
    pub values: BTreeSet<Cell>,
    /// Cells it reads only as the base of an access (a pointer dereferenced, an address taken).
    pub bases: BTreeSet<Cell>,
}

impl Relevance {
    /// The cells `e` reads, through the points-to facts `pts`.
    pub fn of(e: &Expr, pts: &PointsTo) -> Relevance {
        let mut out = Relevance::default();
        out.value(e, pts);
        out
    }

    /// Whether the expression reads no cell at all (a constant).
    pub fn is_empty(&self) -> bool {
        self.values.is_empty() && self.bases.is_empty()
    }

    /// Adds the cells of `other`.
    pub fn extend(&mut self, other: &Relevance) {
        self.values.extend(other.values.iter().cloned());
        self.bases.extend(other.bases.iter().cloned());
    }

    /// Counts every base as a value: a seed standing for expressions that may compare the
    /// addresses it reaches (weakest preconditions of an assignment through a pointer).
    pub fn promote(&mut self) {
        let bases = std::mem::take(&mut self.bases);
        self.values.extend(bases);
    }

    /// Whether `self` and `other` are related: a value cell of one overlaps a cell of the other.
    pub fn meets(&self, other: &Relevance, pts: &PointsTo) -> bool {
        overlaps(&self.values, &other.values, pts)
            || overlaps(&self.values, &other.bases, pts)
            || overlaps(&self.bases, &other.values, pts)
    }

    /// The cells read by the value of `e`.
    fn value(&mut self, e: &Expr, pts: &PointsTo) {
        match &e.kind {
            ExprKind::Var(_) | ExprKind::Deref(_) | ExprKind::Field(..) | ExprKind::Index(..) => {
                let cells = pts.cells(e);
                // An array or a function designator decays to its address: not a read.
                if matches!(e.ty, CType::Array(..) | CType::Func(_)) {
                    self.bases.extend(cells);
                } else {
                    self.values.extend(cells);
                }
                self.address(e, pts);
            }
            ExprKind::AddrOf(l) => {
                if l.is_lvalue() {
                    self.bases.extend(pts.cells(l));
                    self.address(l, pts);
                } else {
                    self.value(l, pts);
                }
            }
            _ => {
                for c in e.children() {
                    self.value(c, pts);
                }
            }
        }
    }

    /// The cells read to compute the address of the lvalue `lv`.
    fn address(&mut self, lv: &Expr, pts: &PointsTo) {
        match &lv.kind {
            ExprKind::Field(b, _) if b.is_lvalue() => self.address(b, pts),
            ExprKind::Deref(p) => self.pointer(p, pts),
            ExprKind::Index(a, i) => {
                self.value(i, pts);
                if matches!(a.ty, CType::Array(..)) && a.is_lvalue() {
                    self.address(a, pts);
                } else {
                    self.pointer(a, pts);
                }
            }
            ExprKind::Var(_) => {}
            _ => {
                for c in lv.children() {
                    self.value(c, pts);
                }
            }
        }
    }

    /// The cells read by a pointer expression `p` used only to reach what it points to: a
    /// pointer lvalue is a base; in pointer arithmetic the pointer operand is, its offset is a
    /// value.
    fn pointer(&mut self, p: &Expr, pts: &PointsTo) {
        match &p.kind {
            ExprKind::Var(_) | ExprKind::Deref(_) | ExprKind::Field(..) | ExprKind::Index(..) => {
                // A pointer's cell, or an array's own cell when it decays.
                self.bases.extend(pts.cells(p));
                self.address(p, pts);
            }
            ExprKind::Cast(x) => self.pointer(x, pts),
            ExprKind::Binary(_, a, b) => {
                for x in [a, b] {
                    if matches!(x.ty, CType::Pointer(_) | CType::Array(..)) {
                        self.pointer(x, pts);
                    } else {
                        self.value(x, pts);
                    }
                }
            }
            _ => self.value(p, pts),
        }
    }
}

/// Whether a cell of `a` overlaps a cell of `b` (cells are ordered by object first, so only the
/// cells of the same object are compared).
fn overlaps(a: &BTreeSet<Cell>, b: &BTreeSet<Cell>, pts: &PointsTo) -> bool {
    let (small, big) = if a.len() <= b.len() { (a, b) } else { (b, a) };
    small.iter().any(|x| {
        big.range(Cell::whole(x.obj.clone())..)
            .take_while(|y| y.obj == x.obj)
            .any(|y| pts.cells_overlap(x, y))
    })
}

/// The relation among a list of variables, filled in as [`connected`] needs it: the variables
/// related to each one (its *row*), computed at most once. An abstraction asks for closures
/// of the same variables once per statement and once per cube search; with the rows kept,
/// each closure costs one [`Relevance::meets`] per variable for its seed and a graph search.
#[derive(Debug, Clone, Default)]
pub struct Graph {
    rows: Vec<OnceLock<Vec<usize>>>,
}

impl Graph {
    /// The relation among `n` variables, nothing computed yet.
    pub fn new(n: usize) -> Graph {
        Graph {
            rows: (0..n).map(|_| OnceLock::new()).collect(),
        }
    }
}

/// The closure of relevance: the indices of `vars` related to `seed` or to a variable already
/// in, transitively, starting from those `start` marks. In index order.
///
/// `graph` holds the relation among the first variables of `vars` (as many as it was made
/// for, always the same ones); the variables after them are compared as the search meets
/// them. Relatedness to a union of cells is relatedness to one of them, so this is the
/// closure of the pairwise relation.
pub fn connected(
    graph: &Graph,
    vars: &[&Relevance],
    seed: &Relevance,
    start: Vec<bool>,
    pts: &PointsTo,
) -> Vec<usize> {
    let n = vars.len();
    let known = graph.rows.len().min(n);
    let mut inside = start;
    let mut todo: Vec<usize> = (0..n).filter(|&i| inside[i]).collect();
    for i in 0..n {
        if !inside[i] && vars[i].meets(seed, pts) {
            inside[i] = true;
            todo.push(i);
        }
    }
    let visit = |j: usize, inside: &mut Vec<bool>, todo: &mut Vec<usize>| {
        if !inside[j] {
            inside[j] = true;
            todo.push(j);
        }
    };
    while let Some(i) = todo.pop() {
        let rest = if i < known {
            let row = graph.rows[i].get_or_init(|| {
                (0..known)
                    .filter(|&j| j != i && vars[j].meets(vars[i], pts))
                    .collect()
            });
            for &j in row {
                visit(j, &mut inside, &mut todo);
            }
            known..n
        } else {
            0..n
        };
        for j in rest {
            if !inside[j] && vars[j].meets(vars[i], pts) {
                visit(j, &mut inside, &mut todo);
            }
        }
    }
    (0..n).filter(|&i| inside[i]).collect()
}
