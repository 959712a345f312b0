//! Procedure signatures and mod sets (C2BP, PLDI'01 §4.5).
//!
//! For a procedure R with predicates `E_R`:
//! - the **formal-parameter predicates** `E_f` are those that mention no local of R other than
//!   formals (formals and global storage only) and not `\result`; they are the Boolean formals
//!   of R, in predicate-file order (`main` has none: it has no caller);
//! - the **return predicates** `E_r` are the predicates over `\result` that mention no local
//!   other than formals, then the formal-parameter predicates that mention global storage or a
//!   dereference (their value may change during R). R returns them, in that order.
//!
//! The **mod set** of a procedure is the set of cells ([`Cell`]: an abstract object and a path
//! of fields) a call may modify that its caller can see: global storage it assigns, every cell
//! it may write through a pointer, transitively through its callees. Cells keep fields apart:
//! a callee that writes `*p` with `p == &d->flags` leaves a caller's predicate over
//! `d->count` alone. Direct writes to its own locals are not included
//! (every activation has its own). A call of an external function (no body) is assumed to
//! modify every object reachable from its pointer arguments and external memory, never the
//! program's global variables directly (documented in `ARCHITECTURE.md`).

use std::collections::{BTreeMap, BTreeSet};

use cir::ir::{Callee, EdgeKind, Expr, ExprKind, FuncId, Program, VarKind};
use cir::pointsto::{Cell, Loc, PointsTo};
use cir::pred::{Predicate, PredicateSet};
use cir::types::CType;

/// The signature of one Boolean procedure.
#[derive(Debug, Clone, Default)]
pub struct Signature {
    /// Indices (into the function's own predicates) of the formal-parameter predicates.
    pub formals: Vec<usize>,
    /// Indices of the return predicates.
    pub returns: Vec<usize>,
}

/// Whether a predicate reads memory through a pointer.
pub fn has_deref(e: &Expr) -> bool {
    let mut hit = false;
    e.walk(&mut |x| {
        hit |= match &x.kind {
            ExprKind::Deref(_) => true,
            ExprKind::Index(a, _) => !matches!(a.ty, CType::Array(..)),
            _ => false,
        }
    });
    hit
}

/// The signature of function `f` given its own predicates `own` (module doc).
pub fn signature(prog: &Program, f: FuncId, own: &[Predicate]) -> Signature {
    let mut sig = Signature::default();
    if prog.functions[f.0 as usize].name == "main" {
        return sig;
    }
    let only_formals = |p: &Predicate| {
        p.vars().iter().all(|v| {
            let info = prog.var(*v);
            info.is_global() || matches!(info.kind, VarKind::Formal(..))
        })
    };
    let touches_state =
        |p: &Predicate| has_deref(&p.expr) || p.vars().iter().any(|v| prog.var(*v).is_global());
    for (i, p) in own.iter().enumerate() {
        if !p.is_return_predicate() && only_formals(p) {
            sig.formals.push(i);
        }
    }
    for (i, p) in own.iter().enumerate() {
        if p.is_return_predicate() && only_formals(p) {
            sig.returns.push(i);
        }
    }
    for &i in &sig.formals {
        if touches_state(&own[i]) {
            sig.returns.push(i);
        }
    }
    sig
}

/// The signatures of every function (indexed by `FuncId`).
pub fn signatures(prog: &Program, preds: &PredicateSet) -> Vec<Signature> {
    prog.functions
        .iter()
        .map(|f| {
            let own = preds
                .per_function
                .get(&f.name)
                .map(Vec::as_slice)
                .unwrap_or(&[]);
            signature(prog, f.id, own)
        })
        .collect()
}

/// What a call may modify: cells of abstract objects (module doc).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ModSet(BTreeSet<Cell>);

impl ModSet {
    /// Whether the call may modify some part of the object.
    pub fn touches(&self, l: &Loc) -> bool {
        self.0.iter().any(|c| c.obj == *l)
    }

    /// Whether the call may modify part of the cell.
    fn overlaps(&self, pts: &PointsTo, c: &Cell) -> bool {
        self.0.iter().any(|m| pts.cells_overlap(m, c))
    }
}

/// The cells an assignment to `lhs` writes that a caller may see (module doc).
pub fn written_cells(prog: &Program, pts: &PointsTo, lhs: &Expr) -> BTreeSet<Cell> {
    // The variable an lvalue is part of without a pointer.
    fn root(e: &Expr) -> Option<cir::ir::VarId> {
        match &e.kind {
            ExprKind::Var(v) => Some(*v),
            ExprKind::Field(b, _) => root(b),
            ExprKind::Index(a, _) if matches!(a.ty, CType::Array(..)) => root(a),
            _ => None,
        }
    }
    match root(lhs) {
        Some(v) if !prog.var(v).is_global() => BTreeSet::new(),
        _ => pts.cells(lhs),
    }
}

/// What a call of an external function may modify: every object reachable from its arguments'
/// pointer values, and external memory (whole).
pub fn external_mod(pts: &PointsTo, args: &[Expr]) -> ModSet {
    let mut roots = vec![Loc::Extern];
    for a in args {
        roots.extend(pts.values(a));
    }
    ModSet(pts.reachable(roots).into_iter().map(Cell::whole).collect())
}

/// The functions (by id) a call may enter, and whether it may also reach code without a body.
pub fn call_targets(prog: &Program, pts: &PointsTo, callee: &Callee) -> (Vec<FuncId>, bool) {
    match callee {
        Callee::Defined(f) => (vec![*f], false),
        Callee::Nondet(_) => (Vec::new(), false),
        Callee::External(_) => (Vec::new(), true),
        Callee::Indirect(e) => {
            let mut fs = Vec::new();
            let mut external = false;
            for l in pts.values(e) {
                match l {
                    Loc::Func(n) => match prog.function(&n) {
                        Some(f) => fs.push(f.id),
                        None => external = true,
                    },
                    _ => external = true,
                }
            }
            if fs.is_empty() {
                external = true;
            }
            (fs, external)
        }
    }
}

/// The mod set of every function (indexed by `FuncId`), to a fixpoint over the call graph.
pub fn mod_sets(prog: &Program, pts: &PointsTo) -> Vec<ModSet> {
    let mut direct: Vec<BTreeSet<Cell>> = Vec::with_capacity(prog.functions.len());
    let mut calls: BTreeMap<FuncId, BTreeSet<FuncId>> = BTreeMap::new();
    for f in &prog.functions {
        let mut m = BTreeSet::new();
        for e in &f.edges {
            match &e.kind {
                EdgeKind::Assign { lhs, .. } | EdgeKind::Havoc { lhs, .. } => {
                    m.extend(written_cells(prog, pts, lhs));
                }
                EdgeKind::Call { callee, args, .. } => {
                    let (targets, external) = call_targets(prog, pts, callee);
                    if external {
                        m.extend(external_mod(pts, args).0);
                    }
                    calls.entry(f.id).or_default().extend(targets);
                }
                _ => {}
            }
        }
        direct.push(m);
    }
    let mut changed = true;
    while changed {
        changed = false;
        for (f, callees) in &calls {
            for g in callees {
                if g == f {
                    continue;
                }
                let add: Vec<Cell> = direct[g.0 as usize]
                    .difference(&direct[f.0 as usize])
                    .cloned()
                    .collect();
                if !add.is_empty() {
                    changed = true;
                    direct[f.0 as usize].extend(add);
                }
            }
        }
    }
    direct.into_iter().map(ModSet).collect()
}

/// The cells an expression reads: every lvalue it evaluates, but not the object whose
/// address `&l` takes (only what the address computation reads: `&a[i]` reads `i`, `&p->f`
/// reads `p`).
pub fn read_cells(pts: &PointsTo, e: &Expr, out: &mut BTreeSet<Cell>) {
    fn address_reads(pts: &PointsTo, l: &Expr, out: &mut BTreeSet<Cell>) {
        match &l.kind {
            ExprKind::Var(_) | ExprKind::Func(_) | ExprKind::Str(_) => {}
            ExprKind::Field(b, _) => address_reads(pts, b, out),
            ExprKind::Index(a, i) => {
                if matches!(a.ty, CType::Array(..)) {
                    address_reads(pts, a, out);
                } else {
                    read_cells(pts, a, out);
                }
                read_cells(pts, i, out);
            }
            ExprKind::Deref(p) => read_cells(pts, p, out),
            _ => read_cells(pts, l, out),
        }
    }
    match &e.kind {
        ExprKind::AddrOf(l) => address_reads(pts, l, out),
        _ => {
            if e.is_lvalue() && !matches!(e.ty, CType::Array(..)) {
                out.extend(pts.cells(e));
            }
            if let ExprKind::Index(a, i) = &e.kind
                && matches!(a.ty, CType::Array(..))
            {
                // `a[i]` reads the element (above) and `i`, not all of `a` as a value.
                address_reads(pts, a, out);
                read_cells(pts, i, out);
                return;
            }
            for c in e.children() {
                if let ExprKind::Field(..) = e.kind {
                    // `s.f` reads part of `s` (counted above); `p->f` also reads `p`.
                    address_reads(pts, c, out);
                } else {
                    read_cells(pts, c, out);
                }
            }
        }
    }
}

/// Whether a condition reads a cell that `m` may modify (see [`read_cells`]).
pub fn reads_any(pts: &PointsTo, e: &Expr, m: &ModSet) -> bool {
    let mut cells = BTreeSet::new();
    read_cells(pts, e, &mut cells);
    cells.iter().any(|c| m.overlaps(pts, c))
}
