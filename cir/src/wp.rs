//! Weakest preconditions over IR edges, with Morris's general axiom of assignment
//! pruned by the points-to analysis of [`crate::pointsto`].
//!
//! J. M. Morris, "A general axiom of assignment" (Theoretical Foundations of Programming
//! Methodology, 1982): for `lhs := rhs`, every location `l` the post-condition reads that may be
//! the location assigned is replaced by `(&lhs == &l) ? rhs : l`. C2BP (Ball, Majumdar,
//! Millstein, Rajamani, PLDI'01, §4) computes `WP(x := e, φ)` this way and prunes the case
//! splits with a points-to analysis: an `l` that cannot alias `lhs` is left alone, and one that
//! is syntactically `lhs` (and whose address the assignment does not change) is replaced
//! outright.
//!
//! # Rules
//! - The value assigned is `rhs` converted to the type of `lhs` (C's assignment conversion): a
//!   [`ExprKind::Cast`] unless the types are equal; integer constants that fit every data model's
//!   range of the target type are retyped instead (`x := 1` for `unsigned x` substitutes `1u`).
//! - The address of a location read by φ is computed in the post-state, so its sub-expressions
//!   (pointers, indices) are substituted first; the address of `lhs` is the pre-state one.
//! - `&lhs == &l` is simplified structurally: `&p->f == &q->f` is `p == q`, `&a[i] == &a[j]` is
//!   `i == j`, `&*p == &x` is `p == &x`.
//! - Structure assignment `s := t`: a read of `s.f` (or through a pointer that may reach `s`)
//!   becomes `t.f` (or the conditional).
//! - When `lhs` may overlap a location of an incompatible type (a write through a `char *` into
//!   an `int`, or into part of an aggregate read whole), the assignment havocs what it may
//!   touch: the read gets an arbitrary value. [`wp_assign`] then answers `None`, "unknown"
//!   (c2bp makes the predicate nondeterministic); [`wp_assign_havoc`] asks its caller for a
//!   fresh value of the location's type instead (newton's path formula: a symbol), so that
//!   nothing is lost but the value.
//!
//! `WP(assume c, φ) = c ⇒ φ`, written `¬c ∨ φ` with `¬c` normalised ([`crate::pred::normalize`]).
//! A havoc (and the result temporary of a call) makes every predicate that reads the location
//! unknown (`None`): its WP is a universal quantification that the abstraction approximates by
//! `*`.

use crate::interp::HeapStep;
use crate::ir::{BinOp, Callee, EdgeKind, Expr, ExprKind, Program, UnOp, VarId};
use crate::pointsto::{Loc, PointsTo};
use crate::pred::normalize;
use crate::types::{CType, DataModel, IntKind};

fn int_expr(kind: ExprKind) -> Expr {
    Expr {
        kind,
        ty: CType::INT,
    }
}

fn bin(op: BinOp, a: Expr, b: Expr) -> Expr {
    int_expr(ExprKind::Binary(op, Box::new(a), Box::new(b)))
}

/// `e` converted to `ty` as by assignment (C11 6.5.16.1): a cast unless the types are equal.
pub fn convert(e: &Expr, ty: &CType) -> Expr {
    if e.ty == *ty {
        return e.clone();
    }
    if let (ExprKind::Const(v), CType::Int(k)) = (&e.kind, ty) {
        if *k == IntKind::Bool {
            return Expr::int(i128::from(*v != 0), ty.clone());
        }
        let (lo, hi) = k.range(DataModel::Ilp32);
        if lo <= *v && *v <= hi {
            return Expr::int(*v, ty.clone());
        }
    }
    Expr {
        kind: ExprKind::Cast(Box::new(e.clone())),
        ty: ty.clone(),
    }
}

/// The address of an lvalue: `p` for `*p`, `p + i` for `p[i]` through a pointer, else `&l`.
pub fn address_of(l: &Expr) -> Expr {
    match &l.kind {
        ExprKind::Deref(p) => (**p).clone(),
        ExprKind::Index(p, i) if matches!(p.ty, CType::Pointer(_)) => Expr {
            kind: ExprKind::Binary(BinOp::Add, p.clone(), i.clone()),
            ty: p.ty.clone(),
        },
        _ => Expr {
            kind: ExprKind::AddrOf(Box::new(l.clone())),
            ty: l.ty.clone().ptr_to(),
        },
    }
}

/// The condition `&a == &b`, simplified structurally (see the module documentation).
pub fn addr_eq(a: &Expr, b: &Expr) -> Expr {
    match (&a.kind, &b.kind) {
        (ExprKind::Field(x, f), ExprKind::Field(y, g)) if f == g && x.ty == y.ty => addr_eq(x, y),
        (ExprKind::Index(x, i), ExprKind::Index(y, j))
            if matches!(x.ty, CType::Array(..)) && x.ty == y.ty =>
        {
            let idx = bin(BinOp::Eq, (**i).clone(), (**j).clone());
            if x == y {
                idx
            } else {
                bin(BinOp::LogAnd, addr_eq(x, y), idx)
            }
        }
        _ => bin(BinOp::Eq, address_of(a), address_of(b)),
    }
}

/// Whether a value stored as `b` reads back as `a` up to a conversion (same representation:
/// equal types, signed/unsigned variants of one integer type, two pointer types).
fn compatible(a: &CType, b: &CType) -> bool {
    match (a, b) {
        (CType::Int(x), CType::Int(y)) => {
            x.rank() == y.rank() && (*x == IntKind::Bool) == (*y == IntKind::Bool)
        }
        (CType::Pointer(_), CType::Pointer(_)) => true,
        _ => a == b,
    }
}

fn is_aggregate(t: &CType) -> bool {
    matches!(t, CType::Struct(_) | CType::Array(..))
}

struct Morris<'a> {
    lhs: &'a Expr,
    rhs: Expr,
    pts: &'a PointsTo,
    /// The value of a read the assignment havocs (`None`: unknown).
    havoc: &'a mut dyn FnMut(&Expr) -> Option<Expr>,
    unknown: bool,
}

impl Morris<'_> {
    /// The post-state value of `d`, as a pre-state expression.
    fn value(&mut self, d: &Expr) -> Expr {
        map_reads(d, &mut |orig, dl| self.rewrite(orig, dl))
    }

    /// Morris's case split for a read of the location `d` (`dl`: its post-state address form).
    fn rewrite(&mut self, d: &Expr, dl: Expr) -> Expr {
        if is_aggregate(&self.lhs.ty)
            && let Some(v) = self.aggregate(d, &dl)
        {
            return v;
        }
        if !self.pts.may_alias(self.lhs, d) {
            return dl;
        }
        if d == self.lhs && dl == *d {
            return self.rhs.clone();
        }
        if is_aggregate(&self.lhs.ty)
            && !is_aggregate(&d.ty)
            && let Some(v) = self.fieldwise(d, &dl)
        {
            return v;
        }
        if is_aggregate(&d.ty) || is_aggregate(&self.lhs.ty) || !compatible(&d.ty, &self.lhs.ty) {
            return match (self.havoc)(&dl) {
                Some(v) => v,
                None => {
                    self.unknown = true;
                    dl
                }
            };
        }
        Expr {
            kind: ExprKind::Cond(
                Box::new(addr_eq(self.lhs, &dl)),
                Box::new(convert(&self.rhs, &d.ty)),
                Box::new(dl),
            ),
            ty: d.ty.clone(),
        }
    }

    /// For a structure `lhs` and a scalar `d` that may lie in it: a structure assignment is a
    /// field-wise update, so `d` is the field it may be, `(&lhs.f == &d) ? rhs.f : …`, for every
    /// field of a compatible type that may alias it (nested structures included). `None` when
    /// a field that could hold `d` is in an array or a union, when `d` may lie in a field of
    /// another type (a pun: `*(char *)&s.x` inside an `int` field), or when no field can hold it.
    fn fieldwise(&mut self, d: &Expr, dl: &Expr) -> Option<Expr> {
        let mut leaves = Vec::new();
        if !self.leaves(self.lhs, &self.rhs.clone(), d, &mut leaves) || leaves.is_empty() {
            return None;
        }
        let mut v = dl.clone();
        for (l, r) in leaves.into_iter().rev() {
            if !self.pts.may_alias(&l, d) {
                continue;
            }
            v = Expr {
                kind: ExprKind::Cond(
                    Box::new(addr_eq(&l, dl)),
                    Box::new(convert(&r, &d.ty)),
                    Box::new(v),
                ),
                ty: d.ty.clone(),
            };
        }
        Some(v)
    }

    /// The fields of `l` (assigned `r`) whose type is compatible with the read `d`'s, in order;
    /// `false` when one could hold `d` but is not reached by fields alone (arrays, unions), or
    /// when `d` may lie in a field of an incompatible type (its bytes change with that field).
    fn leaves(&self, l: &Expr, r: &Expr, d: &Expr, out: &mut Vec<(Expr, Expr)>) -> bool {
        let field = |b: &Expr, name: &str, t: &CType| Expr {
            kind: ExprKind::Field(Box::new(b.clone()), name.to_string()),
            ty: t.clone(),
        };
        match &l.ty {
            CType::Struct(s) => {
                let Some(fs) = self.pts.struct_fields(*s) else {
                    return false;
                };
                for (name, t) in fs {
                    let rf = select(
                        r.clone(),
                        &|x| ExprKind::Field(Box::new(x), name.clone()),
                        t,
                    );
                    if !self.leaves(&field(l, name, t), &rf, d, out) {
                        return false;
                    }
                }
                true
            }
            CType::Array(e, _) => {
                // An element that could hold a `ty` is not reached by fields alone.
                let z = Expr::int(0, CType::INT);
                let at = |a: &Expr| Expr {
                    kind: ExprKind::Index(Box::new(a.clone()), Box::new(z.clone())),
                    ty: (**e).clone(),
                };
                let mut inner = Vec::new();
                !self.pts.may_alias(&at(l), d)
                    && self.leaves(&at(l), &at(r), d, &mut inner)
                    && inner.is_empty()
            }
            t if compatible(t, &d.ty) => {
                out.push((l.clone(), r.clone()));
                true
            }
            _ => !self.pts.may_alias(l, d),
        }
    }

    /// For an aggregate `lhs`: the value of `d` when some prefix of its access path (`.f`,
    /// `[i]` of an array) has the type of `lhs` and may be it.
    fn aggregate(&mut self, d: &Expr, dl: &Expr) -> Option<Expr> {
        if d.ty == self.lhs.ty && self.pts.may_alias(self.lhs, d) {
            if d == self.lhs && dl == d {
                return Some(self.rhs.clone());
            }
            return Some(Expr {
                kind: ExprKind::Cond(
                    Box::new(addr_eq(self.lhs, dl)),
                    Box::new(self.rhs.clone()),
                    Box::new(dl.clone()),
                ),
                ty: d.ty.clone(),
            });
        }
        match (&d.kind, &dl.kind) {
            (ExprKind::Field(b, f), ExprKind::Field(bl, _)) => {
                let v = self.aggregate(b, bl)?;
                Some(select(
                    v,
                    &|x| ExprKind::Field(Box::new(x), f.clone()),
                    &d.ty,
                ))
            }
            (ExprKind::Index(a, _), ExprKind::Index(al, il))
                if matches!(a.ty, CType::Array(..)) =>
            {
                let v = self.aggregate(a, al)?;
                Some(select(
                    v,
                    &|x| ExprKind::Index(Box::new(x), il.clone()),
                    &d.ty,
                ))
            }
            _ => None,
        }
    }
}

/// `e` right after a fresh object of type `t` is allocated into the pointer variable `obj`:
/// every read of a scalar of that object — reached from `*obj` by fields and constant indices
/// (`obj->f`, `obj->a[2]`, `*&obj->f`) — replaced by `content(path, type)`; every other read
/// is left as it is, for the caller to give a meaning. The one rule behind what newton's path
/// formula and c2bp's abstraction know of allocated contents (`docs/c-semantics.md`, "Memory").
pub fn map_allocated_reads(
    prog: &Program,
    e: &Expr,
    obj: VarId,
    t: &CType,
    content: &mut dyn FnMut(&[HeapStep], &CType) -> Expr,
) -> Expr {
    map_reads(e, &mut |_, dl| {
        let mut path = Vec::new();
        if !dl.ty.is_scalar()
            || dl.ty.is_float()
            || !content_path(prog, &dl, obj, &mut path)
            || content_type(prog, t, &path).as_ref() != Some(&dl.ty)
        {
            return dl;
        }
        content(&path, &dl.ty)
    })
}

/// Whether the lvalue `l` lies in the object the pointer variable `obj` points to, reached from `*obj`
/// by fields and constant indices of arrays; its path (appended to `path`).
fn content_path(prog: &Program, l: &Expr, obj: VarId, path: &mut Vec<HeapStep>) -> bool {
    // A cast to the pointer's own type (`(T *)p` of a `T *p`, as C code writes `malloc`'s
    // result) reads the same pointer.
    fn uncast(e: &Expr) -> &Expr {
        match &e.kind {
            ExprKind::Cast(a) if a.ty == e.ty => uncast(a),
            _ => e,
        }
    }
    let is_obj = |p: &Expr| matches!(uncast(p).kind, ExprKind::Var(v) if v == obj);
    match &l.kind {
        // `*&l` (a pointer to a field, `w = &r->b; … *w`, substituted back) is `l`.
        ExprKind::Deref(p) if let ExprKind::AddrOf(inner) = &p.kind => {
            content_path(prog, inner, obj, path)
        }
        ExprKind::Deref(p) => is_obj(p),
        ExprKind::Index(p, i) if !matches!(p.ty, CType::Array(..)) => {
            is_obj(p) && matches!(i.kind, ExprKind::Const(0))
        }
        ExprKind::Field(b, f) => {
            let CType::Struct(s) = &b.ty else {
                return false;
            };
            let def = &prog.structs[s.0 as usize];
            let Some(i) = def
                .fields
                .as_ref()
                .filter(|_| !def.is_union)
                .and_then(|fs| fs.iter().position(|(n, _)| n == f))
            else {
                return false;
            };
            if !content_path(prog, b, obj, path) {
                return false;
            }
            path.push(HeapStep::Field(u32::try_from(i).unwrap_or(u32::MAX)));
            true
        }
        ExprKind::Index(a, i) => {
            let ExprKind::Const(k) = i.kind else {
                return false;
            };
            let Ok(k) = u32::try_from(k) else {
                return false;
            };
            if !content_path(prog, a, obj, path) {
                return false;
            }
            path.push(HeapStep::Index(k));
            true
        }
        _ => false,
    }
}

/// The type at `path` inside an object of type `t` (`None` when the path leaves it).
fn content_type(prog: &Program, t: &CType, path: &[HeapStep]) -> Option<CType> {
    let mut t = t.clone();
    for s in path {
        t = match (s, &t) {
            (HeapStep::Field(i), CType::Struct(id)) => {
                let def = &prog.structs[id.0 as usize];
                def.fields.as_ref()?.get(*i as usize)?.1.clone()
            }
            (HeapStep::Index(k), CType::Array(e, Some(n))) if u64::from(*k) < *n => (**e).clone(),
            _ => return None,
        };
    }
    Some(t)
}

/// `e` with every read of a location replaced by `read(l, l')`, where `l` is the lvalue as
/// written and `l'` the same lvalue with the reads in its address computation (pointers,
/// indices) replaced first; addresses themselves (`&l`, the base of `s.f` and of `a[i]` for an
/// array) are not reads. The one walk over the reads of an expression, for Morris's axiom and
/// for the substitutions of newton's path formula.
pub fn map_reads(e: &Expr, read: &mut dyn FnMut(&Expr, Expr) -> Expr) -> Expr {
    if e.is_lvalue() {
        let l = map_address(e, read);
        return read(e, l);
    }
    let kind = match &e.kind {
        ExprKind::AddrOf(l) => ExprKind::AddrOf(Box::new(map_address(l, read))),
        ExprKind::Unary(op, a) => ExprKind::Unary(*op, Box::new(map_reads(a, read))),
        ExprKind::Binary(op, a, b) => {
            let a = map_reads(a, read);
            ExprKind::Binary(*op, Box::new(a), Box::new(map_reads(b, read)))
        }
        ExprKind::Cast(a) => ExprKind::Cast(Box::new(map_reads(a, read))),
        ExprKind::Cond(c, a, b) => {
            let c = map_reads(c, read);
            let a = map_reads(a, read);
            ExprKind::Cond(Box::new(c), Box::new(a), Box::new(map_reads(b, read)))
        }
        _ => return e.clone(),
    };
    Expr {
        kind,
        ty: e.ty.clone(),
    }
}

/// The lvalue `l` with the reads of its address computation replaced ([`map_reads`]).
fn map_address(l: &Expr, read: &mut dyn FnMut(&Expr, Expr) -> Expr) -> Expr {
    let kind = match &l.kind {
        ExprKind::Deref(p) => ExprKind::Deref(Box::new(map_reads(p, read))),
        ExprKind::Field(b, f) => ExprKind::Field(Box::new(map_address(b, read)), f.clone()),
        ExprKind::Index(a, i) => {
            let a = if matches!(a.ty, CType::Array(..)) {
                map_address(a, read)
            } else {
                map_reads(a, read)
            };
            ExprKind::Index(Box::new(a), Box::new(map_reads(i, read)))
        }
        k => k.clone(),
    };
    Expr {
        kind,
        ty: l.ty.clone(),
    }
}

/// Applies a selector to an aggregate value, pushing it into the branches of conditionals.
fn select(v: Expr, sel: &dyn Fn(Expr) -> ExprKind, ty: &CType) -> Expr {
    match v.kind {
        ExprKind::Cond(c, a, b) => Expr {
            kind: ExprKind::Cond(
                c,
                Box::new(select(*a, sel, ty)),
                Box::new(select(*b, sel, ty)),
            ),
            ty: ty.clone(),
        },
        kind => Expr {
            kind: sel(Expr { kind, ty: v.ty }),
            ty: ty.clone(),
        },
    }
}

/// `WP(lhs := rhs, φ)` by Morris's axiom, pruned by points-to; `None` when the assignment may
/// partially overwrite a location φ reads (it havocs it: see [`wp_assign_havoc`]).
pub fn wp_assign(lhs: &Expr, rhs: &Expr, phi: &Expr, pts: &PointsTo) -> Option<Expr> {
    wp_assign_havoc(lhs, rhs, phi, pts, &mut |_| None)
}

/// `WP(lhs := rhs, φ)` where a read of a location the assignment may partially overwrite (a
/// pun, a part of an aggregate read whole) becomes `havoc(location)`: a fresh value of the
/// location's type that the caller makes (or `None`: the result is then `None`). The result
/// over-approximates: the havocked read may be any value, whether or not the locations
/// overlap.
pub fn wp_assign_havoc(
    lhs: &Expr,
    rhs: &Expr,
    phi: &Expr,
    pts: &PointsTo,
    havoc: &mut dyn FnMut(&Expr) -> Option<Expr>,
) -> Option<Expr> {
    let mut m = Morris {
        lhs,
        rhs: convert(rhs, &lhs.ty),
        pts,
        havoc,
        unknown: false,
    };
    let r = m.value(phi);
    (!m.unknown).then_some(r)
}

/// `WP(assume c, φ) = ¬c ∨ φ` (`¬c` normalised).
pub fn wp_assume(c: &Expr, phi: &Expr) -> Expr {
    let not_c = normalize(int_expr(ExprKind::Unary(UnOp::LogNot, Box::new(c.clone()))));
    bin(BinOp::LogOr, not_c, phi.clone())
}

/// Whether φ reads a location (including those in address computations) that may alias `lv`.
pub fn reads_alias(phi: &Expr, lv: &Expr, pts: &PointsTo) -> bool {
    aliasing(phi, lv, pts).reads
}

/// How a predicate φ meets an assignment to `lv` ([`aliasing`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Aliasing {
    /// φ reads a location (including those in address computations) that may alias `lv`
    /// ([`reads_alias`]).
    pub reads: bool,
    /// One such location is not `lv` itself: Morris's axiom then compares addresses in
    /// `WP(lv := e, φ)`, and the comparison reads as values the pointers the two locations are
    /// reached through.
    pub elsewhere: bool,
}

/// How φ meets an assignment to `lv`, in one walk of φ.
pub fn aliasing(phi: &Expr, lv: &Expr, pts: &PointsTo) -> Aliasing {
    let mut out = Aliasing {
        reads: false,
        elsewhere: false,
    };
    phi.walk(&mut |x| {
        if x.is_lvalue() && pts.may_alias(lv, x) {
            out.reads = true;
            out.elsewhere |= x != lv;
        }
    });
    out
}

/// Whether Morris's axiom may compare addresses in `WP(lhs := e, φ)` whatever φ: a structure
/// assigned field by field, or `lhs`'s own address computed from a location it may overwrite.
/// (What depends on φ is [`Aliasing::elsewhere`].)
pub fn compares_own_address(lhs: &Expr, pts: &PointsTo) -> bool {
    if matches!(lhs.ty, CType::Struct(_) | CType::Array(..)) {
        return true;
    }
    let mut hit = false;
    for c in lhs.children() {
        c.walk(&mut |x| hit |= x.is_lvalue() && pts.may_alias(lhs, x));
    }
    hit
}

/// `WP(lhs := *, φ)`: φ itself when the havoc cannot touch what φ reads, else `None`.
pub fn wp_havoc(lhs: &Expr, phi: &Expr, pts: &PointsTo) -> Option<Expr> {
    (!reads_alias(phi, lhs, pts)).then(|| phi.clone())
}

/// `e` with variables replaced by expressions (`map`), simplifying `*&l` to `l` on the way
/// (so substituting `&x` for a pointer formal `p` turns `*p > 0` into `x > 0`). Used to read a
/// callee's predicates in the caller (C2BP's `e[a/f]`, PLDI'01 §4.5).
pub fn subst_vars(e: &Expr, map: &dyn Fn(VarId) -> Option<Expr>) -> Expr {
    e.map_bottom_up(&mut |x| match x.kind {
        ExprKind::Var(v) => map(v).unwrap_or(x),
        ExprKind::Deref(inner) => match inner.kind {
            ExprKind::AddrOf(l) => *l,
            k => Expr {
                kind: ExprKind::Deref(Box::new(Expr {
                    kind: k,
                    ty: inner.ty,
                })),
                ty: x.ty,
            },
        },
        _ => x,
    })
}

/// Whether φ mentions the variable.
pub fn mentions_var(phi: &Expr, v: VarId) -> bool {
    let mut hit = false;
    phi.walk(&mut |x| hit |= x.kind == ExprKind::Var(v));
    hit
}

/// `WP(edge, φ)` for the intraprocedural effect of an edge (`None`: unknown). For a call only
/// the result temporary is considered (the callee's effects are the caller's business, through
/// C2BP's procedure signatures); `return`, `error`, `halt` and `skip` leave φ unchanged.
pub fn wp_edge(kind: &EdgeKind, phi: &Expr, pts: &PointsTo) -> Option<Expr> {
    match kind {
        EdgeKind::Assign { lhs, rhs } => wp_assign(lhs, rhs, phi, pts),
        EdgeKind::Havoc { lhs, .. } => wp_havoc(lhs, phi, pts),
        EdgeKind::Assume(c) => Some(wp_assume(c, phi)),
        EdgeKind::Call { ret, .. } => match ret {
            Some(r) if mentions_var(phi, *r) => None,
            _ => Some(phi.clone()),
        },
        EdgeKind::Return(_) | EdgeKind::Error { .. } | EdgeKind::Halt { .. } | EdgeKind::Skip => {
            Some(phi.clone())
        }
    }
}

/// Whether the edge may change the value of φ: an assignment or havoc whose WP differs from φ
/// syntactically, or a call that assigns a variable φ mentions or may modify what φ reads (any
/// global storage or location whose address is taken, unless the callee is a nondet
/// intrinsic). Assumes never change φ.
pub fn changes(kind: &EdgeKind, phi: &Expr, pts: &PointsTo, prog: &crate::ir::Program) -> bool {
    match kind {
        EdgeKind::Assign { .. } | EdgeKind::Havoc { .. } => {
            wp_edge(kind, phi, pts).as_ref() != Some(phi)
        }
        EdgeKind::Call { ret, callee, .. } => {
            if ret.is_some_and(|r| mentions_var(phi, r)) {
                return true;
            }
            if matches!(callee, Callee::Nondet(_)) {
                return false;
            }
            let mut hit = false;
            phi.walk(&mut |x| {
                hit |= match &x.kind {
                    ExprKind::Var(v) => {
                        prog.var(*v).is_global() || pts.is_address_taken(&Loc::Var(*v))
                    }
                    ExprKind::Deref(_) => true,
                    ExprKind::Index(a, _) => !matches!(a.ty, CType::Array(..)),
                    _ => false,
                }
            });
            hit
        }
        _ => false,
    }
}
