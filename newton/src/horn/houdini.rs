//! Houdini's candidate invariants of a path program ([`cir::smt::horn::houdini`]): per
//! relation, conjuncts over its parameters that the path program's own code suggests. Houdini
//! keeps the largest subset the clauses preserve, so a wrong guess costs a query, never
//! soundness; what matters is that the few invariants simple loops need are among them:
//!
//! - the atoms of the conditions, call arguments and return values of the code in the
//!   relation's function, each with its negation, and a comparison's non-strict bounds too (a
//!   loop that runs while `i < n` keeps `i <= n`, which `i == n` after it needs);
//! - the remainders by constants those atoms contain, as atoms of their own (`x % 2` in
//!   `x % 2 == y % 2`: the parity each side keeps);
//! - *steps*: a variable the code changes by a constant `c` (`i = i + 2`) keeps its remainder
//!   by `c`, the one of each constant it is set to, or `0` (`i % 2 == 0`: with `i < n` and an
//!   even `n`, it makes `i <= n` inductive);
//! - *results*: at a function's exit, the return value equals each returned expression over
//!   the parameters (`\result == z + 2`: the summary that carries a caller's invariant
//!   through the call);
//! - *copies*: each of the above over a variable `v` the code sets to another, `v = t`,
//!   also over `t` (a call's result reaches its variable through a temporary, and the
//!   relation after the call holds the temporary);
//! - *orders*: between two variables of one type that the code assigns, `a <= b` and
//!   `a >= b` (a counter that grows by one while another grows by at least one stays below
//!   it);
//! - *differences*: two variables that the code only steps by the same constant keep their
//!   difference, the one between the values they are set to (`x - y == i - j` after
//!   `x = i; y = j;` and a loop of `x--; y--;`), and by opposite constants, their sum;
//! - *cells* (of the arrays whose cells at constant indices the encoding tracks): a cell
//!   equals each constant the code writes to it (`A[1023] = 0`); an index `k` the code reads or
//!   writes the array at is on either side of each tracked cell `c` (`k <= c`: a scan that
//!   stops at a zero in `A[1023]` never passes it); and each form over cell `c` holds once such
//!   an index has passed it (`k <= c || A[c] == B[c]`: a loop that copies `A` into `B` cell by
//!   cell) — the simplest of the array invariants of Flanagan and Qadeer's "Predicate
//!   abstraction for software verification" (POPL 2002), with the index bound for a quantifier.

use std::collections::{BTreeMap, BTreeSet};

use cir::ir::{BinOp, EdgeKind, Expr, ExprKind, FuncId, Function, Program, VarId};
use cir::types::CType;

use super::encode::{Encoding, cell_of, index_against};
use crate::pathprog::{Part, PathProgram};
use crate::refine::{simplify, split_atoms};

/// At most this many candidate invariants per relation.
const MAX_CANDIDATES: usize = 48;

/// The largest step whose remainders are candidates (`i += 4096` suggests nothing useful).
const MAX_MODULUS: i128 = 64;

/// At most this many assigned variables are ordered pairwise (their pairs, twice each).
const MAX_ORDERED: usize = 5;

/// The candidates per relation of `enc` (see the module doc), at most [`MAX_CANDIDATES`]
/// each, in the order of the list above but equalities first. Minimisation drops conjuncts in
/// order while the rest still solves, so where an equality and the two bounds that make it
/// both hold (`i == n`, and `i <= n`, `i >= n` after a loop), the bounds stay: the loop's
/// invariant needs them anyway, and the abstraction updates each predicate on its own, so an
/// equality beside its bounds allows the inconsistent `i <= n ∧ i >= n ∧ i != n` after an
/// assignment, which only an enforced three-literal cube would exclude.
pub(super) fn candidates(prog: &Program, pp: &PathProgram, enc: &Encoding) -> Vec<Vec<Expr>> {
    let ext = &enc.ext;
    let cells = tracked_cells(enc);
    let mut forms_of: BTreeMap<FuncId, Vec<Expr>> = BTreeMap::new();
    for (fid, part) in &pp.parts {
        let f = &prog.functions[fid.0 as usize];
        let mut forms = Vec::new();
        atom_forms(ext, f, part, &mut forms);
        step_forms(ext, f, part, &mut forms);
        if let Some(rv) = enc.layouts.get(fid).and_then(|l| l.ret) {
            result_forms(ext, f, part, rv, &mut forms);
        }
        // The differences come before the orders and copies (the cap on candidates keeps the
        // first), but copies are not made of them: `i - y == i - j` from `x = i` is no guess.
        let at = forms.len();
        order_forms(ext, f, part, &mut forms);
        copy_forms(ext, f, part, &mut forms);
        let mut differences = Vec::new();
        difference_forms(ext, f, part, &mut differences);
        differences.retain(|d| !forms.contains(d));
        forms.splice(at..at, differences);
        cell_forms(ext, f, part, &cells, &mut forms);
        let forms = forms.iter().map(|e| through_cells(e, &cells)).collect();
        forms_of.insert(*fid, forms);
    }
    enc.sites
        .iter()
        .zip(&enc.problem.relations)
        .map(|(site, rel)| {
            let params: BTreeSet<VarId> = rel.params.iter().copied().collect();
            forms_of
                .get(&site.func)
                .into_iter()
                .flatten()
                .filter(|e| crate::symbolic::vars_of(e).is_subset(&params))
                .take(MAX_CANDIDATES)
                .cloned()
                .collect::<Vec<_>>()
        })
        .map(|mut c| {
            c.sort_by_key(|e| !matches!(e.kind, ExprKind::Binary(BinOp::Eq, ..)));
            c
        })
        .collect()
}

/// Adds `e` (simplified) to `out` unless it is there.
fn push(prog: &Program, out: &mut Vec<Expr>, e: Expr) {
    let e = simplify(prog, &e);
    if !out.contains(&e) {
        out.push(e);
    }
}

fn binary(prog: &Program, op: BinOp, a: Expr, b: Expr) -> Expr {
    let ty = if op.is_comparison() {
        CType::INT
    } else {
        cir::ir::binop_type(op, &a.ty, &b.ty, prog.data_model)
    };
    Expr {
        kind: ExprKind::Binary(op, Box::new(a), Box::new(b)),
        ty,
    }
}

fn var(prog: &Program, v: VarId) -> Expr {
    Expr {
        kind: ExprKind::Var(v),
        ty: prog.var(v).ty.clone(),
    }
}

/// `e` without its conversions.
fn uncast(e: &Expr) -> &Expr {
    match &e.kind {
        ExprKind::Cast(x) => uncast(x),
        _ => e,
    }
}

/// The atoms of the part's conditions, call arguments and returned values, their remainders
/// by constants, each with its negation and a comparison's non-strict bounds.
fn atom_forms(prog: &Program, f: &Function, part: &Part, out: &mut Vec<Expr>) {
    let mut atoms = Vec::new();
    for &i in &part.edges {
        match &f.edges[i as usize].kind {
            EdgeKind::Assume(c) | EdgeKind::Return(Some(c)) => split_atoms(c, &mut atoms),
            EdgeKind::Call { args, .. } => args.iter().for_each(|a| split_atoms(a, &mut atoms)),
            _ => {}
        }
    }
    let mut rems = Vec::new();
    for a in &atoms {
        a.walk(&mut |x| {
            if let ExprKind::Binary(BinOp::Rem, _, k) = &x.kind
                && matches!(k.kind, ExprKind::Const(_))
                && !rems.contains(x)
            {
                rems.push(x.clone());
            }
        });
    }
    atoms.extend(rems);
    for a in atoms {
        let (pos, neg) = match &a.kind {
            ExprKind::Binary(op, x, y) if op.is_comparison() => {
                let with = |o| Expr {
                    kind: ExprKind::Binary(o, x.clone(), y.clone()),
                    ty: a.ty.clone(),
                };
                for o in [BinOp::Le, BinOp::Ge] {
                    if *op != o {
                        push(prog, out, with(o));
                    }
                }
                (a.clone(), op.negated().map(with))
            }
            ExprKind::Const(_) => continue,
            _ if a.ty.is_integer() => {
                let zero = Expr::int(0, a.ty.clone());
                (
                    binary(prog, BinOp::Ne, a.clone(), zero.clone()),
                    Some(binary(prog, BinOp::Eq, a.clone(), zero)),
                )
            }
            _ => continue,
        };
        for e in std::iter::once(pos).chain(neg) {
            push(prog, out, e);
        }
    }
}

/// The integer variable an assignment edge sets, and its value.
fn assigned(kind: &EdgeKind) -> Option<(VarId, &Expr)> {
    match kind {
        EdgeKind::Assign { lhs, rhs } if lhs.ty.is_integer() => match lhs.kind {
            ExprKind::Var(v) => Some((v, rhs)),
            _ => None,
        },
        _ => None,
    }
}

/// For each variable the part steps by a constant `c` (`v = v + c`, `v = v - c`, `2 ≤ |c| ≤`
/// [`MAX_MODULUS`]): `v % |c| == r` for `r` zero and the remainder of each constant the
/// part assigns to `v`.
fn step_forms(prog: &Program, f: &Function, part: &Part, out: &mut Vec<Expr>) {
    let mut steps: BTreeMap<VarId, BTreeSet<i128>> = BTreeMap::new();
    let mut inits: BTreeMap<VarId, BTreeSet<i128>> = BTreeMap::new();
    for &i in &part.edges {
        let Some((v, rhs)) = assigned(&f.edges[i as usize].kind) else {
            continue;
        };
        match &uncast(rhs).kind {
            ExprKind::Const(c) => {
                inits.entry(v).or_default().insert(*c);
            }
            ExprKind::Binary(op @ (BinOp::Add | BinOp::Sub), a, b) => {
                let (a, b) = (uncast(a), uncast(b));
                let c = match (&a.kind, &b.kind) {
                    (ExprKind::Var(w), ExprKind::Const(c)) if *w == v => *c,
                    (ExprKind::Const(c), ExprKind::Var(w)) if *w == v && *op == BinOp::Add => *c,
                    _ => continue,
                };
                if (2..=MAX_MODULUS).contains(&c.abs()) {
                    steps.entry(v).or_default().insert(c.abs());
                }
            }
            _ => {}
        }
    }
    for (v, moduli) in steps {
        let x = var(prog, v);
        for m in moduli {
            let mut residues = BTreeSet::from([0]);
            residues.extend(inits.get(&v).into_iter().flatten().map(|c| c % m));
            for r in residues {
                let rem = binary(prog, BinOp::Rem, x.clone(), Expr::int(m, x.ty.clone()));
                let ty = rem.ty.clone();
                push(prog, out, binary(prog, BinOp::Eq, rem, Expr::int(r, ty)));
            }
        }
    }
}

/// `ret == e` for each value `e` the part returns (`ret`: the return value's stand-in).
fn result_forms(prog: &Program, f: &Function, part: &Part, ret: VarId, out: &mut Vec<Expr>) {
    let r = var(prog, ret);
    for &i in &part.edges {
        if let EdgeKind::Return(Some(e)) = &f.edges[i as usize].kind {
            let e = cir::wp::convert(e, &r.ty);
            push(prog, out, binary(prog, BinOp::Eq, r.clone(), e));
        }
    }
}

/// `a <= b` and `a >= b` for the first [`MAX_ORDERED`] integer variables the part assigns,
/// pairwise where their types agree.
fn order_forms(prog: &Program, f: &Function, part: &Part, out: &mut Vec<Expr>) {
    let mut vars: Vec<VarId> = Vec::new();
    for &i in &part.edges {
        if let Some((v, _)) = assigned(&f.edges[i as usize].kind)
            && !vars.contains(&v)
            && vars.len() < MAX_ORDERED
        {
            vars.push(v);
        }
    }
    for (k, &a) in vars.iter().enumerate() {
        for &b in &vars[k + 1..] {
            let (x, y) = (var(prog, a), var(prog, b));
            if x.ty != y.ty {
                continue;
            }
            push(prog, out, binary(prog, BinOp::Le, x.clone(), y.clone()));
            push(prog, out, binary(prog, BinOp::Ge, x, y));
        }
    }
}

/// For each copy `v = t` between variables of the part: the forms over `v` so far, with `t`
/// for `v`.
fn copy_forms(prog: &Program, f: &Function, part: &Part, out: &mut Vec<Expr>) {
    let mut copies: Vec<(VarId, Expr)> = Vec::new();
    for &i in &part.edges {
        if let Some((v, rhs)) = assigned(&f.edges[i as usize].kind)
            && matches!(uncast(rhs).kind, ExprKind::Var(_))
        {
            copies.push((v, cir::wp::convert(rhs, &prog.var(v).ty)));
        }
    }
    let forms = out.clone();
    for (v, t) in copies {
        for e in forms
            .iter()
            .filter(|e| crate::symbolic::vars_of(e).contains(&v))
        {
            push(
                prog,
                out,
                cir::wp::subst_vars(e, &|w| (w == v).then(|| t.clone())),
            );
        }
    }
}

/// For two variables of one type that the part changes only by the same constant (`x--;
/// y--;`): `x - y == s - t` for each pair of a variable or constant `s` assigned to `x` and `t`
/// assigned to `y`; for opposite constants (`x++; y--;`), `x + y == s + t`. Over the first
/// [`MAX_ORDERED`] such variables in declaration order, pairwise.
fn difference_forms(prog: &Program, f: &Function, part: &Part, out: &mut Vec<Expr>) {
    // Per variable: its steps (`None` once it is changed otherwise) and its initial values.
    let mut steps: BTreeMap<VarId, Option<BTreeSet<i128>>> = BTreeMap::new();
    let mut inits: BTreeMap<VarId, Vec<Expr>> = BTreeMap::new();
    for &i in &part.edges {
        let Some((v, rhs)) = assigned(&f.edges[i as usize].kind) else {
            continue;
        };
        let step = match &uncast(rhs).kind {
            ExprKind::Const(_) | ExprKind::Var(_) => {
                let init = cir::wp::convert(rhs, &prog.var(v).ty);
                let at = inits.entry(v).or_default();
                if !at.contains(&init) {
                    at.push(init);
                }
                continue;
            }
            ExprKind::Binary(op @ (BinOp::Add | BinOp::Sub), a, b) => {
                match (&uncast(a).kind, &uncast(b).kind, op) {
                    (ExprKind::Var(w), ExprKind::Const(c), BinOp::Add) if *w == v => Some(*c),
                    (ExprKind::Var(w), ExprKind::Const(c), BinOp::Sub) if *w == v => Some(-c),
                    (ExprKind::Const(c), ExprKind::Var(w), BinOp::Add) if *w == v => Some(*c),
                    _ => None,
                }
            }
            _ => None,
        };
        let entry = steps.entry(v).or_insert_with(|| Some(BTreeSet::new()));
        match (entry.as_mut(), step) {
            (Some(set), Some(c)) if c != 0 => {
                set.insert(c);
            }
            _ => *entry = None,
        }
    }
    let stepped: Vec<(VarId, i128)> = steps
        .into_iter()
        .filter_map(|(v, s)| {
            let s = s?;
            (s.len() == 1).then(|| (v, *s.first().expect("one step")))
        })
        .take(MAX_ORDERED)
        .collect();
    let no_inits = Vec::new();
    for (k, &(a, ca)) in stepped.iter().enumerate() {
        for &(b, cb) in &stepped[k + 1..] {
            let (x, y) = (var(prog, a), var(prog, b));
            let op = if x.ty != y.ty {
                continue;
            } else if ca == cb {
                BinOp::Sub
            } else if ca == -cb {
                BinOp::Add
            } else {
                continue;
            };
            for s in inits.get(&a).unwrap_or(&no_inits) {
                for t in inits.get(&b).unwrap_or(&no_inits) {
                    let lhs = binary(prog, op, x.clone(), y.clone());
                    let rhs = binary(prog, op, s.clone(), t.clone());
                    push(prog, out, binary(prog, BinOp::Eq, lhs, rhs));
                }
            }
        }
    }
}

/// The tracked cells of the encoding: (array, index) to the cell's stand-in.
fn tracked_cells(enc: &Encoding) -> BTreeMap<(VarId, i128), VarId> {
    enc.cells
        .iter()
        .filter_map(|(&stand, cell)| Some((cell_of(cell)?, stand)))
        .collect()
}

/// `e` with each tracked cell read through its stand-in (the relations' parameter).
fn through_cells(e: &Expr, cells: &BTreeMap<(VarId, i128), VarId>) -> Expr {
    if cells.is_empty() {
        return e.clone();
    }
    e.map_bottom_up(&mut |x| match cell_of(&x).and_then(|at| cells.get(&at)) {
        Some(&stand) => Expr {
            kind: ExprKind::Var(stand),
            ty: x.ty,
        },
        None => x,
    })
}

/// The cell forms of the module doc: constants written to tracked cells; the bounds of the
/// indices the part reaches the arrays at against the tracked cells; and each form so far
/// over a tracked cell, guarded by such a bound.
fn cell_forms(
    prog: &Program,
    f: &Function,
    part: &Part,
    cells: &BTreeMap<(VarId, i128), VarId>,
    out: &mut Vec<Expr>,
) {
    if cells.is_empty() {
        return;
    }
    let tracked = |arr: VarId| {
        cells
            .keys()
            .filter(move |(a, _)| *a == arr)
            .map(|(_, c)| *c)
    };
    let mut indices: Vec<(VarId, Expr)> = Vec::new();
    let mut written: Vec<Expr> = Vec::new();
    for &i in &part.edges {
        let kind = &f.edges[i as usize].kind;
        if let EdgeKind::Assign { lhs, rhs } = kind
            && cell_of(lhs).is_some_and(|at| cells.contains_key(&at))
            && let Some(v) = rhs.constant_value(prog.data_model)
        {
            let c = cir::wp::convert(&Expr::int(v, rhs.ty.clone()), &lhs.ty);
            written.push(binary(prog, BinOp::Eq, lhs.clone(), c));
        }
        for e in kind.exprs() {
            e.walk(&mut |x| {
                if let ExprKind::Index(a, k) = &x.kind
                    && let ExprKind::Var(arr) = a.kind
                    && k.ty.is_integer()
                    && k.constant_value(prog.data_model).is_none()
                    && tracked(arr).next().is_some()
                    && !indices.iter().any(|(b, j)| *b == arr && j == &**k)
                {
                    indices.push((arr, (**k).clone()));
                }
            });
        }
    }
    for e in written {
        push(prog, out, e);
    }
    let mut guards: Vec<((VarId, i128), Expr, Expr)> = Vec::new();
    for (arr, k) in &indices {
        for c in tracked(*arr) {
            let bound = |op| index_against(prog, op, k, c);
            let (Some(le), Some(ge)) = (bound(BinOp::Le), bound(BinOp::Ge)) else {
                continue;
            };
            push(prog, out, le.clone());
            push(prog, out, ge.clone());
            guards.push(((*arr, c), le, ge));
        }
    }
    let over_cell = |e: &Expr, cell: (VarId, i128)| {
        let mut hit = false;
        e.walk(&mut |x| hit |= cell_of(x) == Some(cell));
        hit
    };
    for form in out.clone() {
        for (cell, le, ge) in &guards {
            if over_cell(&form, *cell) {
                for g in [le, ge] {
                    push(
                        prog,
                        out,
                        binary(prog, BinOp::LogOr, g.clone(), form.clone()),
                    );
                }
            }
        }
    }
}
