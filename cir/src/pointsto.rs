//! A flow-insensitive, context-insensitive, inclusion-based (Andersen) points-to analysis of a
//! whole IR program, which prunes the case splits of weakest preconditions.
//!
//! L. O. Andersen, "Program analysis and specialization for the C programming language", PhD
//! thesis, DIKU 1994: every assignment `l := r` gives the constraint pts(L(l)) ⊇ V(r). C2BP
//! (Ball, Majumdar, Millstein, Rajamani, PLDI'01, §4) uses a points-to analysis to prune the
//! case splits of Morris's axiom (the `wp` module); SLAM used Das's one-level flow, Andersen is at
//! least as precise.
//!
//! # Abstract locations ([`Loc`])
//! A variable (the whole object: the analysis is **field-insensitive** — the fields and elements
//! of an object share one points-to set), an allocation site (one object per call edge of an
//! external function or pointer-valued nondet intrinsic: `malloc` returns a fresh object, and
//! a site in a loop is a summary object), a function designator (for calls through pointers) and
//! [`Loc::Extern`], the memory the program did not allocate (what `main`'s pointer parameters,
//! and those of functions nobody calls, point to; it points to itself).
//!
//! # Constraints
//! Assignments, global initialisers, parameter passing and returns of calls to defined functions
//! (calls through pointers to each function the callee expression may designate, resolved during
//! the fixpoint), and results of external calls (a fresh object per site, plus whatever the
//! pointer arguments point to: `realloc`, `strcpy`, … return one of their arguments). A havocked
//! lvalue (unions, unmodelled initialisers) and a nondet pointer may point to any object some
//! pointer may point to, and to external memory. The solver iterates the constraints to a fixpoint.
//!
//! # Approximations
//! - External functions are assumed not to store pointers into program memory and not to call
//!   back into the program (their effect on non-pointer data is the caller's business).
//! - Pointer arithmetic stays within the pointed-to object; integer↔pointer casts carry the
//!   points-to set of the integer's operands.
//! - String literals point to no modelled object.
//!
//! # Alias queries ([`PointsTo::may_alias`])
//! Syntactically equal lvalues alias; distinct variables do not; `a.f` and `b.g` with `f ≠ g`
//! of the same structure type do not (two objects of the same structure type coincide or are
//! disjoint; unions excluded); `a[1]` and `a[2]` do not; otherwise two lvalues may alias when
//! the objects they access intersect. Sound: when unsure, the answer is "may alias".

use std::collections::{BTreeMap, BTreeSet};

use crate::ir::{Callee, EdgeId, EdgeKind, Expr, ExprKind, Program, VarId};
use crate::types::{CType, StructId};

/// An abstract memory location.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Loc {
    /// A variable (the whole object).
    Var(VarId),
    /// The object allocated (or returned by an external function) at a call edge.
    Alloc(EdgeId),
    /// A function designator.
    Func(String),
    /// Memory the program did not allocate.
    Extern,
}

/// The result of the analysis.
#[derive(Debug, Clone, Default)]
pub struct PointsTo {
    pts: BTreeMap<Loc, BTreeSet<Loc>>,
    unions: BTreeSet<StructId>,
    /// Every location some pointer may point to (the union of `pts`'s sets), built once the
    /// fixpoint is reached: c2bp asks [`PointsTo::is_address_taken`] for every atom it
    /// abstracts.
    taken: std::collections::HashSet<Loc>,
}

/// One inclusion constraint `pts(L(lhs)) ⊇ V(rhs)`.
enum Constraint<'a> {
    Assign(Expr, &'a Expr),
    /// The lvalue may point anywhere the program can reach.
    Any(Expr),
    /// The lvalue points to these (fixed) locations plus what the expressions point to.
    Fresh(Expr, Loc, &'a [Expr]),
    /// A call through a pointer: formals and result follow the designated functions.
    Indirect(&'a Expr, Option<VarId>, &'a [Expr]),
}

fn var_expr(prog: &Program, v: VarId) -> Expr {
    Expr {
        kind: ExprKind::Var(v),
        ty: prog.var(v).ty.clone(),
    }
}

impl PointsTo {
    /// Analyses the whole program.
    pub fn analyze(prog: &Program) -> PointsTo {
        let mut cs: Vec<Constraint<'_>> = Vec::new();
        let mut called = BTreeSet::new();
        for g in &prog.global_inits {
            match &g.value {
                Some(v) => cs.push(Constraint::Assign(g.lhs.clone(), v)),
                None => cs.push(Constraint::Any(g.lhs.clone())),
            }
        }
        for f in &prog.functions {
            for e in &f.edges {
                match &e.kind {
                    EdgeKind::Assign { lhs, rhs } => cs.push(Constraint::Assign(lhs.clone(), rhs)),
                    EdgeKind::Havoc { lhs, .. } => cs.push(Constraint::Any(lhs.clone())),
                    EdgeKind::Call { ret, callee, args } => match callee {
                        Callee::Defined(g) => {
                            called.insert(*g);
                            let g = &prog.functions[g.0 as usize];
                            for (v, a) in g.formals.iter().zip(args) {
                                cs.push(Constraint::Assign(var_expr(prog, *v), a));
                            }
                            if let Some(r) = ret {
                                for x in &g.edges {
                                    if let EdgeKind::Return(Some(v)) = &x.kind {
                                        cs.push(Constraint::Assign(var_expr(prog, *r), v));
                                    }
                                }
                            }
                        }
                        Callee::External(_) => {
                            if let Some(r) = ret {
                                cs.push(Constraint::Fresh(
                                    var_expr(prog, *r),
                                    Loc::Alloc(e.id),
                                    args,
                                ));
                            }
                        }
                        Callee::Nondet(_) => {
                            if let Some(r) = ret {
                                cs.push(Constraint::Fresh(
                                    var_expr(prog, *r),
                                    Loc::Alloc(e.id),
                                    &[],
                                ));
                                if matches!(prog.var(*r).ty, CType::Pointer(_)) {
                                    cs.push(Constraint::Any(var_expr(prog, *r)));
                                }
                            }
                        }
                        Callee::Indirect(p) => cs.push(Constraint::Indirect(p, *ret, args)),
                    },
                    _ => {}
                }
            }
        }
        let mut pt = PointsTo::default();
        pt.pts.insert(Loc::Extern, BTreeSet::from([Loc::Extern]));
        pt.unions = (0..prog.structs.len())
            .filter(|i| prog.structs[*i].is_union)
            .map(|i| StructId(i as u32))
            .collect();
        // roots (no direct caller: `main`, callbacks) receive pointers to external memory
        for f in &prog.functions {
            if !called.contains(&f.id) || f.name == "main" {
                for v in &f.formals {
                    pt.pts.entry(Loc::Var(*v)).or_default().insert(Loc::Extern);
                }
            }
        }
        loop {
            let mut changed = false;
            for c in &cs {
                changed |= pt.apply(prog, c);
            }
            if !changed {
                break;
            }
        }
        pt.taken = pt.pts.values().flatten().cloned().collect();
        pt
    }

    fn add(&mut self, to: &BTreeSet<Loc>, vals: &BTreeSet<Loc>) -> bool {
        let mut changed = false;
        for l in to {
            let s = self.pts.entry(l.clone()).or_default();
            for v in vals {
                changed |= s.insert(v.clone());
            }
        }
        changed
    }

    fn apply(&mut self, prog: &Program, c: &Constraint<'_>) -> bool {
        match c {
            Constraint::Assign(l, r) => {
                let to = self.objects(l);
                let vals = self.values(r);
                self.add(&to, &vals)
            }
            Constraint::Any(l) => {
                let to = self.objects(l);
                let mut vals: BTreeSet<Loc> = self.pts.values().flatten().cloned().collect();
                vals.insert(Loc::Extern);
                self.add(&to, &vals)
            }
            Constraint::Fresh(l, loc, args) => {
                let to = self.objects(l);
                let mut vals = BTreeSet::from([loc.clone()]);
                for a in *args {
                    vals.extend(self.values(a));
                }
                self.add(&to, &vals)
            }
            Constraint::Indirect(p, ret, args) => {
                let mut changed = false;
                for name in self.functions_of(p) {
                    let Some(g) = prog.function(&name) else {
                        continue;
                    };
                    for (v, a) in g.formals.iter().zip(args.iter()) {
                        let vals = self.values(a);
                        changed |= self.add(&BTreeSet::from([Loc::Var(*v)]), &vals);
                    }
                    if let Some(r) = ret {
                        for x in &g.edges {
                            if let EdgeKind::Return(Some(v)) = &x.kind {
                                let vals = self.values(v);
                                changed |= self.add(&BTreeSet::from([Loc::Var(*r)]), &vals);
                            }
                        }
                    }
                }
                changed
            }
        }
    }

    fn pts_of(&self, l: &Loc) -> impl Iterator<Item = &Loc> {
        self.pts.get(l).into_iter().flatten()
    }

    /// Every location reachable from `roots` by following points-to sets (the roots included).
    pub fn reachable(&self, roots: impl IntoIterator<Item = Loc>) -> BTreeSet<Loc> {
        let mut seen = BTreeSet::new();
        let mut stack: Vec<Loc> = roots.into_iter().collect();
        while let Some(l) = stack.pop() {
            if seen.insert(l.clone()) {
                stack.extend(self.pts_of(&l).cloned());
            }
        }
        seen
    }

    /// The objects an lvalue may access (field-insensitive: `s.f` accesses `s`).
    pub fn objects(&self, lv: &Expr) -> BTreeSet<Loc> {
        match &lv.kind {
            ExprKind::Var(v) => BTreeSet::from([Loc::Var(*v)]),
            ExprKind::Deref(p) => self.values(p),
            ExprKind::Field(b, _) => self.objects(b),
            ExprKind::Index(a, _) => {
                if matches!(a.ty, CType::Array(..)) {
                    self.objects(a)
                } else {
                    self.values(a)
                }
            }
            _ => BTreeSet::new(),
        }
    }

    /// The locations the value of an expression may point to (arrays decay to their object).
    pub fn values(&self, e: &Expr) -> BTreeSet<Loc> {
        match &e.kind {
            ExprKind::Var(_) | ExprKind::Deref(_) | ExprKind::Field(..) | ExprKind::Index(..) => {
                if matches!(e.ty, CType::Array(..)) {
                    return self.objects(e);
                }
                let mut out = BTreeSet::new();
                for o in self.objects(e) {
                    out.extend(self.pts_of(&o).cloned());
                }
                out
            }
            ExprKind::AddrOf(l) => {
                if let ExprKind::Func(n) = &l.kind {
                    return BTreeSet::from([Loc::Func(n.clone())]);
                }
                self.objects(l)
            }
            ExprKind::Func(n) => BTreeSet::from([Loc::Func(n.clone())]),
            ExprKind::Const(_) | ExprKind::Str(_) => BTreeSet::new(),
            _ => {
                let mut out = BTreeSet::new();
                for c in e.children() {
                    out.extend(self.values(c));
                }
                out
            }
        }
    }

    /// The locations a pointer expression may point to.
    pub fn points_to(&self, e: &Expr) -> BTreeSet<Loc> {
        self.values(e)
    }

    /// The functions a callee expression (a function pointer) may designate, by name.
    pub fn functions_of(&self, e: &Expr) -> Vec<String> {
        self.values(e)
            .into_iter()
            .filter_map(|l| match l {
                Loc::Func(n) => Some(n),
                _ => None,
            })
            .collect()
    }

    /// Whether some pointer may point to the location (its address is taken).
    pub fn is_address_taken(&self, l: &Loc) -> bool {
        self.taken.contains(l)
    }

    fn is_union(&self, t: &CType) -> bool {
        matches!(t, CType::Struct(id) if self.unions.contains(id))
    }

    /// Whether two lvalues may denote overlapping memory (sound: `true` when unsure).
    pub fn may_alias(&self, a: &Expr, b: &Expr) -> bool {
        if a == b {
            return true;
        }
        match (&a.kind, &b.kind) {
            (ExprKind::Var(x), ExprKind::Var(y)) => x == y,
            (ExprKind::Field(x, f), ExprKind::Field(y, g))
                if x.ty == y.ty && !self.is_union(&x.ty) =>
            {
                f == g && self.may_alias(x, y)
            }
            (ExprKind::Index(x, i), ExprKind::Index(y, j))
                if matches!(x.ty, CType::Array(..)) && x.ty == y.ty =>
            {
                match (&i.kind, &j.kind) {
                    (ExprKind::Const(p), ExprKind::Const(q)) if p != q => false,
                    _ => self.may_alias(x, y),
                }
            }
            _ => {
                let (oa, ob) = (self.objects(a), self.objects(b));
                oa.intersection(&ob).next().is_some()
            }
        }
    }
}
