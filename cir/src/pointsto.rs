//! A flow-insensitive, context-insensitive, field-sensitive, inclusion-based (Andersen)
//! points-to analysis of a whole IR program, which prunes the case splits of weakest
//! preconditions and bounds what a call may modify.
//!
//! L. O. Andersen, "Program analysis and specialization for the C programming language", PhD
//! thesis, DIKU 1994: every assignment `l := r` gives the constraint pts(L(l)) ⊇ V(r). C2BP
//! (Ball, Majumdar, Millstein, Rajamani, PLDI'01, §4) uses a points-to analysis to prune the
//! case splits of Morris's axiom (the `wp` module); SLAM used Das's one-level flow, Andersen is at
//! least as precise. Field sensitivity follows D. J. Pearce, P. H. J. Kelly and C. Hankin,
//! "Efficient field-sensitive pointer analysis for C" (PASTE'04, §3): one node per field of
//! an object, so that `s->s3` and `s->cert` are different cells.
//!
//! # Objects ([`Loc`]) and cells ([`Cell`])
//! An object is a variable (the whole object), an allocation site (one object per call edge of
//! an allocator, an external function or a pointer-valued nondet intrinsic; a site in a loop is a
//! summary object; a call of an *allocation wrapper* — a function that only returns what an
//! allocator gave it — is a site of its own), a function designator (for calls through
//! pointers), [`Loc::Extern`], the memory the program did not allocate (what `main`'s pointer
//! parameters, and those of functions nobody calls, point to; it points to itself), and
//! [`Loc::Wild`], the objects that the indeterminate pointers of a cell of allocated memory
//! point to (`malloc`'s contents are arbitrary, and a pointer among them is null or points to
//! an object of its own whose pointers start null: `docs/c-semantics.md`).
//!
//! A cell is an object and a path of fields ([`Step`]): `s.f.g` is the cell `(s, [f, g])`.
//! The elements of an array share one cell (the array's), so `a[i].f` is `(a, [f])` and
//! pointer arithmetic stays in its cell. An access whose type does not match the cell's
//! declared type (a structure reached through a pointer to another type, an `int` written
//! through a `char *`) is a pun: it accesses [`Step::Any`] of the object, which overlaps every
//! cell of it. Two cells overlap when they are in the same object and one path is a prefix of
//! the other, or they first differ at a step that is not two distinct fields of one structure
//! (fields of a union overlap). A pointer stored in a cell is read by every access to a cell
//! that overlaps it.
//!
//! # Constraints
//! Assignments (a structure assignment field by field), global initialisers, parameter passing
//! and returns of calls to defined functions (calls through pointers to each function the
//! callee expression may designate, resolved during the fixpoint), and results of external
//! calls (a fresh object per site, plus whatever the pointer arguments point to: `realloc`,
//! `strcpy`, … return one of their arguments). A havocked lvalue (unions, unmodelled
//! initialisers) may point to any cell some pointer may point to, and to external memory. A
//! nondet pointer (`__VERIFIER_nondet_pointer()`) is null or points to an object of its own:
//! its site. The solver iterates the constraints to a fixpoint.
//!
//! # Approximations
//! - External functions are assumed not to store pointers into program memory and not to call
//!   back into the program (their effect on non-pointer data is the caller's business).
//! - Pointer arithmetic stays within the pointed-to cell; integer↔pointer casts carry the
//!   points-to set of the integer's operands.
//! - String literals point to no modelled object.
//!
//! # Alias queries ([`PointsTo::may_alias`])
//! Syntactically equal lvalues alias; distinct variables do not; `a.f` and `b.g` with `f ≠ g`
//! of the same structure type do not (two objects of the same structure type coincide or are
//! disjoint; unions excluded); `a[1]` and `a[2]` do not; otherwise two lvalues may alias when
//! cells they access overlap. Sound: when unsure, the answer is "may alias".

use std::collections::{BTreeMap, BTreeSet};

use crate::ir::{BinOp, Callee, EdgeId, EdgeKind, Expr, ExprKind, FuncId, Program, VarId};
use crate::types::{CType, IntKind, StructId};

/// An abstract object.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Loc {
    /// A variable (the whole object).
    Var(VarId),
    /// The object allocated (or returned by an external function or a nondet intrinsic) at a
    /// call edge: the allocator's call, or the call of an allocation wrapper.
    Alloc(EdgeId),
    /// A function designator.
    Func(String),
    /// Memory the program did not allocate.
    Extern,
    /// The objects that the indeterminate pointers in a cell of an allocated object (site
    /// and path) point to: objects of their own, whose pointers start null.
    Wild(EdgeId, Vec<Step>),
}

/// A step of a cell's path inside its object.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Step {
    /// A field of a structure or union (by index in its definition).
    Field(StructId, u32),
    /// Anywhere below this point (a punned access): overlaps every cell under it.
    Any,
}

/// A cell: a part of an object reached by a path of fields.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Cell {
    /// The object.
    pub obj: Loc,
    /// The fields from the object's root (empty: the whole object).
    pub path: Vec<Step>,
}

impl Cell {
    /// The whole object.
    pub fn whole(obj: Loc) -> Cell {
        Cell::root(obj)
    }

    fn root(obj: Loc) -> Cell {
        Cell {
            obj,
            path: Vec::new(),
        }
    }

    fn anywhere(obj: Loc) -> Cell {
        Cell {
            obj,
            path: vec![Step::Any],
        }
    }
}

/// The result of the analysis.
#[derive(Debug, Clone, Default)]
pub struct PointsTo {
    /// What each written cell may hold, by object then path.
    store: BTreeMap<Loc, BTreeMap<Vec<Step>, BTreeSet<Cell>>>,
    unions: BTreeSet<StructId>,
    /// Fields of the complete structures and unions, by id.
    fields: Vec<Option<Vec<(String, CType)>>>,
    /// The declared type of each allocation site's object, when the lowering knows it.
    alloc_types: BTreeMap<EdgeId, CType>,
    /// Allocation sites whose object starts zero (`calloc`): no indeterminate pointers.
    zeroed: BTreeSet<EdgeId>,
    /// Variable types, by id.
    var_types: Vec<CType>,
    /// Variables a client added as copies of the program's ([`PointsTo::add_copy`]).
    copies: BTreeMap<VarId, VarId>,
    /// Every object some pointer may point to, built once the fixpoint is reached: c2bp asks
    /// [`PointsTo::is_address_taken`] for every atom it abstracts.
    taken: std::collections::HashSet<Loc>,
}

/// One inclusion constraint `pts(L(lhs)) ⊇ V(rhs)`.
enum Constraint<'a> {
    Assign(Expr, Expr),
    /// The lvalue may point anywhere the program can reach.
    Any(Expr),
    /// The lvalue points to this (fixed) object plus what the expressions point to.
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

/// The element type of (nested) arrays.
fn strip_arrays(t: &CType) -> &CType {
    match t {
        CType::Array(e, _) => strip_arrays(e),
        t => t,
    }
}

/// Pairs of leaf lvalues of an aggregate assignment `l := r` (both of the same type), field by
/// field and through an array's element (which stands for all of them); `(l, r)` itself when
/// it is a scalar or `r` is not an lvalue.
fn leaf_pairs(prog: &Program, l: &Expr, r: &Expr, out: &mut Vec<(Expr, Expr)>) {
    let field = |b: &Expr, name: &str, ty: &CType| Expr {
        kind: ExprKind::Field(Box::new(b.clone()), name.to_string()),
        ty: ty.clone(),
    };
    match (&l.ty, r.is_lvalue()) {
        (CType::Struct(s), true) if l.ty == r.ty => {
            let def = &prog.structs[s.0 as usize];
            match (&def.fields, def.is_union) {
                (Some(fs), false) => {
                    for (name, ty) in fs {
                        leaf_pairs(prog, &field(l, name, ty), &field(r, name, ty), out);
                    }
                }
                _ => out.push((l.clone(), r.clone())),
            }
        }
        (CType::Array(elem, _), true) if l.ty == r.ty => {
            // The elements share the array's cell: one pair for all of them.
            let zero = Expr::int(0, CType::INT);
            let at = |a: &Expr| Expr {
                kind: ExprKind::Index(Box::new(a.clone()), Box::new(zero.clone())),
                ty: (**elem).clone(),
            };
            leaf_pairs(prog, &at(l), &at(r), out);
        }
        _ => out.push((l.clone(), r.clone())),
    }
}

/// Whether a value of type `access` read at a cell of declared type `cell` reads it whole, with
/// the same representation (arrays stand for their elements; signed and unsigned variants of
/// an integer type, and all pointer types, share theirs).
fn fits(cell: &CType, access: &CType) -> bool {
    match (strip_arrays(cell), strip_arrays(access)) {
        (_, CType::Void) | (CType::Func(_), _) | (_, CType::Func(_)) => true,
        (CType::Int(x), CType::Int(y)) => {
            x.rank() == y.rank() && (*x == IntKind::Bool) == (*y == IntKind::Bool)
        }
        (CType::Pointer(_), CType::Pointer(_)) => true,
        (a, b) => a == b,
    }
}

impl PointsTo {
    /// Analyses the whole program.
    pub fn analyze(prog: &Program) -> PointsTo {
        let wrappers = allocation_wrappers(prog);
        let mut pt = PointsTo {
            unions: (0..prog.structs.len())
                .filter(|i| prog.structs[*i].is_union)
                .map(|i| StructId(i as u32))
                .collect(),
            fields: prog.structs.iter().map(|d| d.fields.clone()).collect(),
            var_types: prog.vars.iter().map(|v| v.ty.clone()).collect(),
            ..PointsTo::default()
        };
        let (cs, called) = pt.constraints(prog, &wrappers);
        // roots (no direct caller: `main`, callbacks) receive pointers to external memory
        for f in &prog.functions {
            if !called.contains(&f.id) || f.name == "main" {
                for v in &f.formals {
                    pt.put(
                        &Cell::root(Loc::Var(*v)),
                        &BTreeSet::from([Cell::root(Loc::Extern)]),
                    );
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
        pt.taken = pt
            .store
            .values()
            .flat_map(|m| m.values().flatten())
            .map(|c| c.obj.clone())
            .chain([Loc::Extern])
            .collect();
        pt
    }

    /// The constraints of the program, and the functions called directly.
    fn constraints<'a>(
        &mut self,
        prog: &'a Program,
        wrappers: &BTreeMap<FuncId, bool>,
    ) -> (Vec<Constraint<'a>>, BTreeSet<FuncId>) {
        let mut cs: Vec<Constraint<'a>> = Vec::new();
        let mut called = BTreeSet::new();
        let assign = |cs: &mut Vec<Constraint<'a>>, l: &Expr, r: &Expr| {
            let mut pairs = Vec::new();
            leaf_pairs(prog, l, r, &mut pairs);
            cs.extend(pairs.into_iter().map(|(l, r)| Constraint::Assign(l, r)));
        };
        for g in &prog.global_inits {
            match &g.value {
                Some(v) => assign(&mut cs, &g.lhs, v),
                None => cs.push(Constraint::Any(g.lhs.clone())),
            }
        }
        for f in &prog.functions {
            for e in &f.edges {
                match &e.kind {
                    EdgeKind::Assign { lhs, rhs } => assign(&mut cs, lhs, rhs),
                    EdgeKind::Havoc { lhs, .. } => cs.push(Constraint::Any(lhs.clone())),
                    EdgeKind::Call { ret, callee, args } => {
                        let ret_expr = ret.map(|r| var_expr(prog, r));
                        // The object a call returns has the type its result points to (an
                        // allocator's result is typed by the lowering: `malloc(sizeof(T))`).
                        if let Some(CType::Pointer(t)) = ret.map(|r| &prog.var(r).ty)
                            && !matches!(**t, CType::Void)
                        {
                            self.alloc_types.insert(e.id, (**t).clone());
                        }
                        match callee {
                            Callee::Defined(g) => {
                                called.insert(*g);
                                let gf = &prog.functions[g.0 as usize];
                                for (v, a) in gf.formals.iter().zip(args) {
                                    assign(&mut cs, &var_expr(prog, *v), a);
                                }
                                let Some(r) = ret_expr else { continue };
                                if let Some(&zero) = wrappers.get(g) {
                                    // A call of an allocation wrapper: a site of its own.
                                    if zero {
                                        self.zeroed.insert(e.id);
                                    }
                                    cs.push(Constraint::Fresh(r, Loc::Alloc(e.id), &[]));
                                    continue;
                                }
                                for x in &gf.edges {
                                    if let EdgeKind::Return(Some(v)) = &x.kind {
                                        assign(&mut cs, &r, v);
                                    }
                                }
                            }
                            Callee::External(n) => {
                                if n == "calloc" {
                                    self.zeroed.insert(e.id);
                                }
                                if let Some(r) = ret_expr {
                                    let args: &[Expr] =
                                        if callee.is_allocator() { &[] } else { args };
                                    cs.push(Constraint::Fresh(r, Loc::Alloc(e.id), args));
                                }
                            }
                            Callee::Nondet(_) => {
                                if let Some(r) = ret_expr {
                                    cs.push(Constraint::Fresh(r, Loc::Alloc(e.id), &[]));
                                }
                            }
                            Callee::Indirect(p) => cs.push(Constraint::Indirect(p, *ret, args)),
                        }
                    }
                    _ => {}
                }
            }
        }
        (cs, called)
    }

    /// Adds `vals` to what the cell may hold.
    fn put(&mut self, to: &Cell, vals: &BTreeSet<Cell>) -> bool {
        if vals.is_empty() {
            return false;
        }
        let s = self
            .store
            .entry(to.obj.clone())
            .or_default()
            .entry(to.path.clone())
            .or_default();
        let mut changed = false;
        for v in vals {
            changed |= s.insert(v.clone());
        }
        changed
    }

    fn add(&mut self, to: &BTreeSet<Cell>, vals: &BTreeSet<Cell>) -> bool {
        let mut changed = false;
        for c in to {
            changed |= self.put(c, vals);
        }
        changed
    }

    fn apply(&mut self, prog: &Program, c: &Constraint<'_>) -> bool {
        match c {
            Constraint::Assign(l, r) => {
                let to = self.cells(l);
                let vals = self.value_cells(r);
                self.add(&to, &vals)
            }
            Constraint::Any(l) => {
                let to = self.cells(l);
                let mut vals: BTreeSet<Cell> = self
                    .store
                    .values()
                    .flat_map(|m| m.values().flatten())
                    .cloned()
                    .collect();
                vals.insert(Cell::root(Loc::Extern));
                self.add(&to, &vals)
            }
            Constraint::Fresh(l, loc, args) => {
                let to = self.cells(l);
                let mut vals = BTreeSet::from([Cell::root(loc.clone())]);
                for a in *args {
                    vals.extend(self.value_cells(a));
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
                        let vals = self.value_cells(a);
                        changed |= self.put(&Cell::root(Loc::Var(*v)), &vals);
                    }
                    if let Some(r) = ret {
                        for x in &g.edges {
                            if let EdgeKind::Return(Some(v)) = &x.kind {
                                let vals = self.value_cells(v);
                                changed |= self.put(&Cell::root(Loc::Var(*r)), &vals);
                            }
                        }
                    }
                }
                changed
            }
        }
    }

    /// Whether two paths of one object overlap (module doc).
    fn overlap(&self, a: &[Step], b: &[Step]) -> bool {
        for (x, y) in a.iter().zip(b) {
            match (x, y) {
                (Step::Any, _) | (_, Step::Any) => return true,
                (Step::Field(s, i), Step::Field(t, j)) => {
                    if s != t || self.unions.contains(s) {
                        return true;
                    }
                    if i != j {
                        return false;
                    }
                }
            }
        }
        true
    }

    /// What a read of the cell may give: what every overlapping cell holds, and the
    /// indeterminate pointers the object starts with there: in allocated memory (unless
    /// zeroed) each points to an object of its own ([`Loc::Wild`], by the pointer's cell when
    /// the object's type is known), in external memory to external memory.
    fn load(&self, c: &Cell) -> BTreeSet<Cell> {
        let mut out = BTreeSet::new();
        if let Some(m) = self.store.get(&c.obj) {
            for (p, vals) in m {
                if self.overlap(p, &c.path) {
                    out.extend(vals.iter().cloned());
                }
            }
        }
        match &c.obj {
            Loc::Extern => {
                out.insert(Cell::root(Loc::Extern));
            }
            Loc::Alloc(e) if !self.zeroed.contains(e) => {
                if self.alloc_types.contains_key(e) {
                    out.extend(
                        self.wild_paths(*e)
                            .filter(|p| self.overlap(p, &c.path))
                            .map(|p| Cell::root(Loc::Wild(*e, p))),
                    );
                } else {
                    out.insert(Cell::root(Loc::Wild(*e, c.path.clone())));
                }
            }
            _ => {}
        }
        out
    }

    /// The paths of the pointer cells of an allocation site's object (by its declared type;
    /// none when the type is unknown).
    fn wild_paths(&self, e: EdgeId) -> impl Iterator<Item = Vec<Step>> + '_ {
        let mut out = Vec::new();
        if let Some(t) = self.alloc_types.get(&e) {
            self.pointer_paths(t, &mut Vec::new(), &mut out, 0);
        }
        out.into_iter()
    }

    fn pointer_paths(&self, t: &CType, path: &mut Vec<Step>, out: &mut Vec<Vec<Step>>, depth: u32) {
        match strip_arrays(t) {
            // An indeterminate function pointer designates no function (calling it is
            // undefined): only object pointers get a wild object.
            CType::Pointer(to) if matches!(**to, CType::Func(_)) => {}
            CType::Pointer(_) => out.push(path.clone()),
            CType::Struct(s) if depth < 8 => {
                let Some(Some(fs)) = self.fields.get(s.0 as usize) else {
                    return;
                };
                for (i, (_, ft)) in fs.iter().enumerate() {
                    path.push(Step::Field(*s, i as u32));
                    self.pointer_paths(ft, path, out, depth + 1);
                    path.pop();
                }
            }
            _ => {}
        }
    }

    /// The declared type of a cell, when known.
    fn cell_type(&self, c: &Cell) -> Option<CType> {
        let mut t = match &c.obj {
            Loc::Var(v) => {
                let v = self.copies.get(v).unwrap_or(v);
                self.var_types.get(v.0 as usize)?.clone()
            }
            Loc::Alloc(e) => self.alloc_types.get(e)?.clone(),
            Loc::Wild(e, p) => {
                let holder = self.cell_type(&Cell {
                    obj: Loc::Alloc(*e),
                    path: p.clone(),
                })?;
                strip_arrays(&holder).pointee()?.clone()
            }
            _ => return None,
        };
        for s in &c.path {
            let Step::Field(id, i) = s else { return None };
            let fs = self.fields.get(id.0 as usize)?.as_ref()?;
            t = fs.get(*i as usize)?.1.clone();
        }
        Some(t)
    }

    /// The cell accessed with type `ty` at a place that is cell `c`: `c` itself, or when the
    /// types do not match (a pun), anywhere in its object.
    fn access(&self, c: Cell, ty: &CType) -> Cell {
        if c.path.last() == Some(&Step::Any) {
            return c;
        }
        match self.cell_type(&c) {
            Some(t) if !fits(&t, ty) => Cell::anywhere(c.obj),
            _ => c,
        }
    }

    /// The cells an lvalue may access.
    pub fn cells(&self, lv: &Expr) -> BTreeSet<Cell> {
        match &lv.kind {
            ExprKind::Var(v) => BTreeSet::from([Cell::root(Loc::Var(*v))]),
            ExprKind::Deref(p) => self
                .value_cells(p)
                .into_iter()
                .map(|c| self.access(c, &lv.ty))
                .collect(),
            ExprKind::Field(b, f) => {
                let step = match &b.ty {
                    CType::Struct(s) => self
                        .fields
                        .get(s.0 as usize)
                        .and_then(Option::as_ref)
                        .and_then(|fs| fs.iter().position(|(n, _)| n == f))
                        .map(|i| Step::Field(*s, i as u32)),
                    _ => None,
                };
                self.cells(b)
                    .into_iter()
                    .map(|mut c| {
                        match step {
                            _ if c.path.last() == Some(&Step::Any) => {}
                            Some(s) => c.path.push(s),
                            None => return Cell::anywhere(c.obj),
                        }
                        c
                    })
                    .collect()
            }
            ExprKind::Index(a, _) => {
                if matches!(a.ty, CType::Array(..)) {
                    self.cells(a)
                } else {
                    self.value_cells(a)
                        .into_iter()
                        .map(|c| self.access(c, &lv.ty))
                        .collect()
                }
            }
            _ => BTreeSet::new(),
        }
    }

    /// The cells the value of an expression may point to (arrays and functions decay to
    /// their cell).
    pub fn value_cells(&self, e: &Expr) -> BTreeSet<Cell> {
        match &e.kind {
            ExprKind::Var(_) | ExprKind::Deref(_) | ExprKind::Field(..) | ExprKind::Index(..) => {
                if matches!(e.ty, CType::Array(..) | CType::Func(_)) {
                    return self.cells(e);
                }
                let mut out = BTreeSet::new();
                for c in self.cells(e) {
                    out.extend(self.load(&c));
                }
                out
            }
            ExprKind::AddrOf(l) => {
                if let ExprKind::Func(n) = &l.kind {
                    return BTreeSet::from([Cell::root(Loc::Func(n.clone()))]);
                }
                self.cells(l)
            }
            ExprKind::Func(n) => BTreeSet::from([Cell::root(Loc::Func(n.clone()))]),
            ExprKind::Const(_) | ExprKind::Str(_) => BTreeSet::new(),
            // A comparison's value is 0 or 1, never a pointer.
            ExprKind::Binary(op, ..) if op.is_comparison() => BTreeSet::new(),
            ExprKind::Binary(BinOp::LogAnd | BinOp::LogOr, ..) => BTreeSet::new(),
            _ => {
                let mut out = BTreeSet::new();
                for c in e.children() {
                    out.extend(self.value_cells(c));
                }
                out
            }
        }
    }

    /// Every object reachable from `roots` by following points-to sets (the roots included).
    pub fn reachable(&self, roots: impl IntoIterator<Item = Loc>) -> BTreeSet<Loc> {
        let mut seen = BTreeSet::new();
        let mut stack: Vec<Loc> = roots.into_iter().collect();
        while let Some(l) = stack.pop() {
            if seen.contains(&l) {
                continue;
            }
            if let Some(m) = self.store.get(&l) {
                stack.extend(m.values().flatten().map(|c| c.obj.clone()));
            }
            let root = Cell::root(l.clone());
            stack.extend(self.load(&root).into_iter().map(|c| c.obj));
            seen.insert(l);
        }
        seen
    }

    /// The objects an lvalue may access (`s.f` accesses `s`).
    pub fn objects(&self, lv: &Expr) -> BTreeSet<Loc> {
        self.cells(lv).into_iter().map(|c| c.obj).collect()
    }

    /// The objects the value of an expression may point to (arrays decay to their object).
    pub fn values(&self, e: &Expr) -> BTreeSet<Loc> {
        self.value_cells(e).into_iter().map(|c| c.obj).collect()
    }

    /// The objects a pointer expression may point to.
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

    /// Whether some pointer may point into the object (its address is taken).
    pub fn is_address_taken(&self, l: &Loc) -> bool {
        self.taken.contains(l)
    }

    fn is_union(&self, t: &CType) -> bool {
        matches!(t, CType::Struct(id) if self.unions.contains(id))
    }

    /// The fields of a complete structure (`None` for a union or an incomplete one): the
    /// analysed program's definitions, for clients that take a structure apart (weakest
    /// preconditions of a structure assignment).
    pub fn struct_fields(&self, s: StructId) -> Option<&[(String, CType)]> {
        if self.unions.contains(&s) {
            return None;
        }
        self.fields.get(s.0 as usize)?.as_deref()
    }

    /// Whether the variable may hold a pointer the analysis knows (its cells have a store).
    pub fn holds_pointers(&self, v: VarId) -> bool {
        self.store.contains_key(&Loc::Var(v))
    }

    /// Makes `copy`, a variable the analysed program does not have (newton's snapshot of a
    /// caller's local while a callee runs), hold what `of` may hold.
    pub fn add_copy(&mut self, copy: VarId, of: VarId) {
        if let Some(m) = self.store.get(&Loc::Var(of)).cloned() {
            self.store.insert(Loc::Var(copy), m);
        }
        self.copies.insert(copy, of);
    }

    /// Whether two cells overlap: the same object, and paths of which one is a prefix of the
    /// other (or that meet a punned access or a union).
    pub fn cells_overlap(&self, a: &Cell, b: &Cell) -> bool {
        a.obj == b.obj && self.overlap(&a.path, &b.path)
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
                let cb = self.cells(b);
                self.cells(a)
                    .iter()
                    .any(|x| cb.iter().any(|y| self.cells_overlap(x, y)))
            }
        }
    }
}

/// The allocation wrappers of the program, with whether their allocator zeroes (`calloc`): a
/// function other than `main` whose returns all give (up to casts) a local that holds only
/// what allocator calls of the function returned, and that it uses nowhere else but in
/// `assume`s and in copies between such locals. Each call of a wrapper allocates an object of
/// its own.
fn allocation_wrappers(prog: &Program) -> BTreeMap<FuncId, bool> {
    let mut out = BTreeMap::new();
    'funcs: for f in &prog.functions {
        if f.name == "main" {
            continue;
        }
        // The locals that hold the allocation, to a fixpoint of copies.
        let mut held: BTreeSet<VarId> = BTreeSet::new();
        let mut zero = None;
        for e in &f.edges {
            if let EdgeKind::Call {
                ret: Some(r),
                callee: c @ Callee::External(n),
                ..
            } = &e.kind
                && c.is_allocator()
            {
                held.insert(*r);
                let z = n == "calloc";
                if zero.is_some_and(|x| x != z) {
                    continue 'funcs;
                }
                zero = Some(z);
            }
        }
        let Some(zero) = zero else { continue };
        loop {
            let before = held.len();
            for e in &f.edges {
                if let EdgeKind::Assign { lhs, rhs } = &e.kind
                    && let (ExprKind::Var(l), ExprKind::Var(r)) =
                        (&lhs.kind, &rhs.without_casts().kind)
                    && held.contains(r)
                {
                    held.insert(*l);
                }
            }
            if held.len() == before {
                break;
            }
        }
        let uses = |e: &Expr| {
            let mut hit = false;
            e.walk(&mut |x| hit |= matches!(x.kind, ExprKind::Var(v) if held.contains(&v)));
            hit
        };
        let mut returns = false;
        for e in &f.edges {
            let ok = match &e.kind {
                EdgeKind::Assign { lhs, rhs } => match (&lhs.kind, &rhs.without_casts().kind) {
                    (ExprKind::Var(l), ExprKind::Var(r)) if held.contains(r) => held.contains(l),
                    (ExprKind::Var(l), _) if held.contains(l) => false,
                    _ => !uses(lhs) && !uses(rhs),
                },
                EdgeKind::Havoc { lhs, .. } => !uses(lhs),
                EdgeKind::Call { ret, callee, args } => {
                    ret.is_none_or(|r| !held.contains(&r) || callee.is_allocator())
                        && !args.iter().any(&uses)
                }
                EdgeKind::Return(Some(v)) => {
                    returns = true;
                    matches!(&v.without_casts().kind, ExprKind::Var(x) if held.contains(x))
                }
                EdgeKind::Assume(_) | EdgeKind::Return(None) => true,
                EdgeKind::Error { .. } | EdgeKind::Halt { .. } | EdgeKind::Skip => true,
            };
            if !ok {
                continue 'funcs;
            }
        }
        if returns {
            out.insert(f.id, zero);
        }
    }
    out
}
