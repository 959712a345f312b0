//! The path formula of a C path, computed backward by weakest preconditions (SLAM's Newton, as
//! summarised in the Constrain paper, TACAS'04 §2; BLAST's trace formula, Lazy Abstraction,
//! POPL'02 §5.3).
//!
//! Every `assume c` of the path becomes a *conjunct*: `c` at the point where it is taken,
//! carried back to the start of the path through the weakest precondition of every earlier
//! edge (Morris's axiom, [`cir::wp::wp_assign`], pruned by the program's points-to analysis).
//! Since `wp` distributes over conjunction, the path is feasible exactly when the conjuncts, each
//! read at the start, can hold together; a prefix of the path is the set of conjuncts whose
//! assume lies in it. Every intermediate form of a conjunct is kept with the point where it
//! holds: these are the facts predicate discovery (module `refine`) restates.
//!
//! # Activations
//! Each call on the path is an *activation* with its own locals. Walking backward, the caller's
//! locals that a formula mentions are *frozen* (renamed to fresh variables) when the walk enters
//! the callee at its return — the caller cannot change them while the callee runs, except
//! through pointers, so only locals whose address is never taken are frozen — and thawed at the
//! call edge, after the callee's formals are replaced by the actual parameters (the call's
//! "mapping to keep values in scope" of Newton's simulator). A callee's locals still
//! mentioned at its entry are uninitialised values: fresh *symbols*. So are the values of
//! havocs, of calls without a body and of `__VERIFIER_nondet_*`; the values of the symbols in a
//! model are the inputs of a concrete replay (module `replay`). A recursive path whose formula
//! needs two activations of an address-taken local at once is not encoded (an error: newton
//! answers unknown).
//!
//! # Exactness
//! The path formula is exact for the semantics of [`cir::smt`], with two losses, both towards
//! *more* states (so "infeasible" is always proved, "feasible" is confirmed by replay): a
//! location that an assignment may partially overwrite (a pun, a part of an aggregate) is read
//! as a fresh symbol of its type ([`SymKind::Pun`]) — a conjunct that reads an aggregate whole
//! across such a write is still dropped — and calls of functions without a body change nothing
//! but their result (as in the concrete interpreter).

use std::collections::{BTreeMap, BTreeSet};

use bp_c::trace::CStep;
use cir::interp::HeapStep;
use cir::ir::{Callee, EdgeKind, Expr, ExprKind, FuncId, Program, VarId, VarInfo, VarKind};
use cir::pointsto::{Loc, PointsTo};
use cir::types::CType;
use cir::wp::{convert, map_allocated_reads, subst_vars, wp_assign_havoc};

/// One call on the path (activation 0 is `main`).
#[derive(Debug, Clone)]
pub struct Activation {
    /// Its function.
    pub func: FuncId,
    /// The step of the call edge that created it (`None` for `main`).
    pub call_step: Option<usize>,
    /// The caller's activation.
    pub parent: Option<usize>,
    /// The last step executed in it before it returned (`None`: still running at the end).
    pub return_step: Option<usize>,
}

/// Where a fresh symbol's value comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum SymKind {
    /// The value of a local (or a formal of `main`) at its activation's entry.
    Uninit {
        /// The activation.
        act: usize,
        /// The variable.
        var: VarId,
    },
    /// An unmodelled global initialiser (index into `Program::global_inits`).
    GlobalInit(usize),
    /// The value stored by the havoc edge of this step.
    Havoc(usize),
    /// The result of the call without a body at this step (an input of the environment).
    CallResult(usize),
    /// The address an allocator returns at this step (not an input: the allocator decides).
    Alloc(usize),
    /// The value of a location that the assignment of this step may partially overwrite (a
    /// pun through `char *`, a part of an aggregate read whole): not an input, an
    /// over-approximation of the bytes the write leaves ([`cir::wp::wp_assign_havoc`]).
    Pun(usize),
    /// A scalar of the initial contents of the object `malloc` allocates at `step`: an input
    /// the replay feeds to the interpreter's draw of those contents
    /// ([`cir::interp::draw_contents`]); `path` indexes [`PathFormula::content_paths`].
    Content {
        /// The allocator's step.
        step: usize,
        /// The scalar's path in the object.
        path: u32,
    },
    /// A caller's local frozen while a callee runs (not an input; see the module doc).
    Frozen {
        /// The activation owning the local.
        owner: usize,
        /// The local.
        var: VarId,
    },
}

/// A fresh variable of the extended program.
#[derive(Debug, Clone)]
pub struct Symbol {
    /// Its id in [`PathFormula::ext`].
    pub var: VarId,
    /// What it stands for.
    pub kind: SymKind,
}

/// One `assume` of the path and its weakest preconditions.
#[derive(Debug, Clone)]
pub struct Conjunct {
    /// The step of the assume.
    pub origin: usize,
    /// Its forms in the order of the walk (from the assume backward; a form is recorded where
    /// it changes): `(j, e)` means `e` must hold before step `j` (over the
    /// variables live there; frozen and symbol variables of [`PathFormula::ext`] included).
    pub forms: Vec<(usize, Expr)>,
    /// The form at the start of the path (before the global initialisers): over symbols only.
    /// `None` when a weakest precondition was not expressible (the conjunct is dropped).
    pub at_start: Option<Expr>,
}

/// The result of the backward walk.
#[derive(Debug, Clone)]
pub struct PathFormula {
    /// The program extended with the symbols and frozen copies (for the prover).
    pub ext: Program,
    /// The activations.
    pub acts: Vec<Activation>,
    /// The activation of every step.
    pub act_of: Vec<usize>,
    /// The symbols, in creation order.
    pub symbols: Vec<Symbol>,
    /// The conjuncts, by origin (ascending).
    pub conjuncts: Vec<Conjunct>,
    /// Conjuncts dropped because a weakest precondition was not expressible.
    pub dropped: usize,
    /// The paths of the [`SymKind::Content`] symbols in their objects.
    pub content_paths: Vec<Vec<HeapStep>>,
}

/// Why no path formula was built.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PathError {
    /// The path is not a path of the program (wrong activations).
    #[error("the path is not well-formed: {0}")]
    Malformed(String),
    /// The formula would need two activations of one address-taken local at once.
    #[error("not encoded: {0}")]
    Unsupported(String),
}

/// The function owning a non-global variable.
pub fn owner(prog: &Program, v: VarId) -> Option<FuncId> {
    match prog.vars.get(v.0 as usize)?.kind {
        VarKind::Formal(f, _)
        | VarKind::Local(f)
        | VarKind::FormalCopy(f, _)
        | VarKind::Temp(f) => Some(f),
        _ => None,
    }
}

fn var_expr(prog: &Program, v: VarId) -> Expr {
    Expr {
        kind: ExprKind::Var(v),
        ty: prog.var(v).ty.clone(),
    }
}

/// A new temporary of `func` in `ext` (an extended copy of a program): symbols of the path
/// formula, and the stand-ins newton's projections use.
pub(crate) fn fresh_var(ext: &mut Program, ty: CType, name: String, func: FuncId) -> VarId {
    let id = VarId(u32::try_from(ext.vars.len()).unwrap_or(u32::MAX));
    ext.vars.push(VarInfo {
        c_name: name.clone(),
        name,
        ty,
        kind: VarKind::Temp(func),
        pos: Default::default(),
    });
    id
}

/// The variables `e` reads.
pub(crate) fn vars_of(e: &Expr) -> BTreeSet<VarId> {
    let mut out = BTreeSet::new();
    e.walk(&mut |x| {
        if let ExprKind::Var(v) = x.kind {
            out.insert(v);
        }
    });
    out
}

/// The activations of a path: which call each step runs in.
pub fn activations(
    prog: &Program,
    path: &[CStep],
) -> Result<(Vec<Activation>, Vec<usize>), PathError> {
    let mut acts: Vec<Activation> = Vec::new();
    let mut act_of = Vec::with_capacity(path.len());
    let mut stack: Vec<usize> = Vec::new();
    for (j, s) in path.iter().enumerate() {
        let d = s.depth as usize;
        while stack.len() > d + 1 {
            let a = stack.pop().expect("non-empty");
            acts[a].return_step = Some(j - 1);
        }
        if stack.len() == d {
            let parent = stack.last().copied();
            let call_step = match parent {
                None => None,
                Some(_) => {
                    let prev = j.checked_sub(1).ok_or_else(|| {
                        PathError::Malformed("the path starts inside a callee".into())
                    })?;
                    let e = edge(prog, path[prev]);
                    if !matches!(e.kind, EdgeKind::Call { .. })
                        || path[prev].depth as usize != d - 1
                    {
                        return Err(PathError::Malformed(format!(
                            "step {j} enters `{}` but step {prev} is not a call",
                            prog.functions[s.edge.func.0 as usize].name
                        )));
                    }
                    Some(prev)
                }
            };
            acts.push(Activation {
                func: s.edge.func,
                call_step,
                parent,
                return_step: None,
            });
            stack.push(acts.len() - 1);
        }
        let top = *stack
            .last()
            .ok_or_else(|| PathError::Malformed(format!("no activation at step {j}")))?;
        if acts[top].func != s.edge.func {
            return Err(PathError::Malformed(format!(
                "step {j} is in `{}`, its activation in `{}`",
                prog.functions[s.edge.func.0 as usize].name,
                prog.functions[acts[top].func.0 as usize].name
            )));
        }
        act_of.push(top);
    }
    Ok((acts, act_of))
}

/// The activation that the call edge at step `j` enters, when the path follows the callee's
/// body (not for calls without a body, nor when the path ends at the call).
pub fn entered(acts: &[Activation], act_of: &[usize], j: usize) -> Option<usize> {
    let b = *act_of.get(j + 1)?;
    (b != act_of[j] && acts[b].call_step == Some(j)).then_some(b)
}

/// The edge of a step.
pub fn edge(prog: &Program, s: CStep) -> &cir::ir::Edge {
    prog.edge(s.edge)
}

struct Walker<'a> {
    prog: &'a Program,
    /// The program's points-to, extended with the frozen copies of its locals.
    pts: std::borrow::Cow<'a, PointsTo>,
    ext: Program,
    symbols: Vec<Symbol>,
    /// Live conjuncts (current form; `None`: dropped).
    conj: Vec<(Conjunct, Option<Expr>)>,
    /// Freeze maps of the activations the walk is inside: (activation, original → frozen).
    frozen: Vec<(usize, BTreeMap<VarId, VarId>)>,
    /// The paths of the content symbols (see [`PathFormula::content_paths`]).
    content_paths: Vec<Vec<HeapStep>>,
}

impl Walker<'_> {
    fn fresh(&mut self, ty: CType, name: String, func: FuncId, kind: SymKind) -> VarId {
        let id = fresh_var(&mut self.ext, ty, name, func);
        self.symbols.push(Symbol { var: id, kind });
        id
    }

    /// A new conjunct `e` of origin `origin`, walked back from here on; its index.
    fn open(&mut self, origin: usize, e: Expr) -> usize {
        self.conj.push((
            Conjunct {
                origin,
                forms: Vec::new(),
                at_start: None,
            },
            Some(e),
        ));
        self.conj.len() - 1
    }

    /// Applies `f` to every live conjunct (then decides the address comparisons it made
    /// decidable).
    fn map(&mut self, mut f: impl FnMut(&Expr) -> Option<Expr>) {
        for (_, cur) in &mut self.conj {
            if let Some(e) = cur {
                *cur = f(e).map(|x| fold_addresses(&x));
            }
        }
    }

    fn record(&mut self, point: usize) {
        for (c, cur) in &mut self.conj {
            if let Some(e) = cur
                && c.forms.last().is_none_or(|(_, last)| last != e)
            {
                c.forms.push((point, e.clone()));
            }
        }
    }

    fn mentioned(&self) -> BTreeSet<VarId> {
        let mut out = BTreeSet::new();
        for (_, cur) in &self.conj {
            if let Some(e) = cur {
                out.extend(vars_of(e));
            }
        }
        out
    }

    /// `lhs := value` backward on every conjunct (at step `j`); a read that the write may
    /// partially overwrite becomes a fresh [`SymKind::Pun`] symbol of its type, so the conjunct
    /// is kept with that value arbitrary (an aggregate read whole still drops it).
    fn assign(&mut self, j: usize, func: FuncId, lhs: &Expr, value: &Expr) {
        let pts = &*self.pts;
        let ext = &mut self.ext;
        let symbols = &mut self.symbols;
        let mut havoc = |l: &Expr| {
            if !l.ty.is_scalar() {
                return None;
            }
            let id = fresh_var(ext, l.ty.clone(), format!("pun@{j}"), func);
            symbols.push(Symbol {
                var: id,
                kind: SymKind::Pun(j),
            });
            Some(var_expr(ext, id))
        };
        for (_, cur) in &mut self.conj {
            if let Some(e) = cur {
                *cur = wp_assign_havoc(lhs, value, e, pts, &mut havoc).map(|x| fold_addresses(&x));
            }
        }
    }

    /// Backward over the allocation at step `j` of the object that symbol `obj` points to:
    /// a read of a scalar of it (by fields from `*obj`, of the type the allocation gives it)
    /// is its initial value, zero for `calloc`, else a [`SymKind::Content`] symbol (one per
    /// path) that the replay feeds to the interpreter. Other reads through `obj` (a pun, an
    /// element by a variable index) stay unconstrained: an over-approximation.
    fn allocated(&mut self, j: usize, func: FuncId, obj: VarId, zero: bool) {
        let CType::Pointer(t) = &self.ext.var(obj).ty else {
            return;
        };
        if matches!(**t, CType::Void | CType::Func(_)) {
            return;
        }
        let t = (**t).clone();
        let prog = self.prog;
        let ext = &mut self.ext;
        let symbols = &mut self.symbols;
        let paths = &mut self.content_paths;
        let mut content = |path: &[HeapStep], ty: &CType| -> Expr {
            if zero {
                return convert(&Expr::int(0, CType::INT), ty);
            }
            let k = match paths.iter().position(|p| p == path) {
                Some(k) => k,
                None => {
                    paths.push(path.to_vec());
                    paths.len() - 1
                }
            };
            let kind = SymKind::Content {
                step: j,
                path: u32::try_from(k).unwrap_or(u32::MAX),
            };
            let id = match symbols.iter().find(|s| s.kind == kind) {
                Some(s) => s.var,
                None => {
                    let id = fresh_var(ext, ty.clone(), format!("content@{j}.{k}"), func);
                    symbols.push(Symbol { var: id, kind });
                    id
                }
            };
            var_expr(ext, id)
        };
        for (_, cur) in &mut self.conj {
            if let Some(e) = cur {
                *cur = Some(map_allocated_reads(prog, e, obj, &t, &mut content));
            }
        }
    }

    /// Replaces the locals of `func` still mentioned by symbols of their value at the entry of
    /// activation `act`.
    fn uninit(&mut self, act: usize, func: FuncId, skip_formals: bool) {
        let prog = self.prog;
        let mut map = BTreeMap::new();
        for v in self.mentioned() {
            if owner(prog, v) != Some(func) {
                continue;
            }
            if skip_formals && matches!(prog.var(v).kind, VarKind::Formal(..)) {
                continue;
            }
            let info = prog.var(v);
            let s = self.fresh(
                info.ty.clone(),
                format!("{}@entry{act}", info.name),
                func,
                SymKind::Uninit { act, var: v },
            );
            map.insert(v, var_expr(&self.ext, s));
        }
        if !map.is_empty() {
            self.map(|e| Some(subst_vars(e, &|v| map.get(&v).cloned())));
        }
    }
}

/// Builds the path formula of `path` (a path of `prog` from `main`'s entry, e.g. the result of
/// [`bp_c::trace::c_path`]).
pub fn path_formula(
    prog: &Program,
    pts: &PointsTo,
    path: &[CStep],
) -> Result<PathFormula, PathError> {
    walk(prog, pts, path, None, None, false).map(|(pf, _)| pf)
}

/// The path formula of `path` with, besides its assumes, the conditions under which its steps
/// are defined: every pointer a step dereferences is non-null before the step (the concrete
/// semantics ends a run at a null dereference, so a path that reaches the error has none).
/// Its models are the ones a replay can follow; refinement uses [`path_formula`], whose
/// conjuncts are the path's own tests (a fact like `p != 0` is one the Boolean program
/// cannot use: nothing in it stops at a dereference).
pub fn path_formula_defined(
    prog: &Program,
    pts: &PointsTo,
    path: &[CStep],
) -> Result<PathFormula, PathError> {
    walk(prog, pts, path, None, None, true).map(|(pf, _)| pf)
}

/// The path formula of `path` followed by the condition `goal` (over the variables live at its
/// end, in the activation of its next step), as the conjunct of origin `path.len()`: whether
/// a state that the path reaches can satisfy `goal` (newton asks it of a projection, whether
/// it refutes the path where it is proposed).
pub fn path_formula_then(
    prog: &Program,
    pts: &PointsTo,
    path: &[CStep],
    goal: Expr,
) -> Result<PathFormula, PathError> {
    walk(prog, pts, path, Some(goal), None, false).map(|(pf, _)| pf)
}

/// The path formula of `path` with the condition `fact` assumed before step `at` (over the
/// variables live there, in the activation of step `at`), and the index of its conjunct in
/// [`PathFormula::conjuncts`] (its origin is `at`): newton asks whether a fact proposed in
/// place of a conjunct still refutes the whole path.
pub fn path_formula_with(
    prog: &Program,
    pts: &PointsTo,
    path: &[CStep],
    at: usize,
    fact: Expr,
) -> Result<(PathFormula, usize), PathError> {
    let (pf, inserted) = walk(prog, pts, path, None, Some((at, fact)), false)?;
    let inserted = inserted.ok_or_else(|| {
        PathError::Malformed(format!(
            "step {at} is not on the path of {} steps",
            path.len()
        ))
    })?;
    Ok((pf, inserted))
}

/// The backward walk behind every path formula: `goal` (if any) as the conjunct after the
/// path, `inserted` (if any) assumed before its step, then every step of `path` from the last
/// to the first, then `main`'s entry and the global storage; with `defined`, the
/// non-null conditions of each step's dereferences ([`path_formula_defined`]). Returns the
/// formula and the index of the inserted fact's conjunct.
fn walk(
    prog: &Program,
    pts: &PointsTo,
    path: &[CStep],
    goal: Option<Expr>,
    inserted: Option<(usize, Expr)>,
    defined: bool,
) -> Result<(PathFormula, Option<usize>), PathError> {
    let (acts, act_of) = activations(prog, path)?;
    // The index in `w.conj` of the inserted fact, once pushed.
    let mut inserted_at: Option<usize> = None;
    let mut w = Walker {
        prog,
        pts: std::borrow::Cow::Borrowed(pts),
        ext: prog.clone(),
        symbols: Vec::new(),
        conj: Vec::new(),
        frozen: Vec::new(),
        content_paths: Vec::new(),
    };
    let has_goal = goal.is_some();
    if let Some(g) = goal {
        w.open(path.len(), g);
    }
    // The activation of the step after the path: the goal's (a path that ends with a return
    // continues in the caller).
    let after_end = path.len().checked_sub(1).map(|j| {
        let a = act_of[j];
        match (&edge(prog, path[j]).kind, acts[a].parent) {
            (EdgeKind::Return(_), Some(p)) if has_goal => p,
            _ => a,
        }
    });
    for j in (0..path.len()).rev() {
        let a = act_of[j];
        let next = if j + 1 < path.len() {
            Some(act_of[j + 1])
        } else {
            after_end
        };
        // Entering a callee backward at its last step: freeze the caller's locals.
        if let Some(caller) = next.filter(|&n| n != a && acts[a].parent == Some(n)) {
            w.freeze_caller(&acts, path, a, caller)?;
        }
        w.step(&acts, &act_of, path, j);
        if let Some((at, fact)) = inserted.as_ref().filter(|(at, _)| *at == j) {
            inserted_at = Some(w.open(*at, fact.clone()));
        }
        if defined {
            for p in dereferenced(&edge(prog, path[j]).kind) {
                let null = Expr::int(0, p.ty.clone());
                let cond = Expr {
                    kind: ExprKind::Binary(cir::ir::BinOp::Ne, Box::new(p), Box::new(null)),
                    ty: CType::INT,
                };
                w.open(j, cond);
            }
        }
        w.record(j);
    }
    // main's entry: its formals and locals are inputs.
    if !path.is_empty() {
        let f = acts[0].func;
        w.uninit(0, f, false);
    }
    w.global_storage(&acts);
    Ok(w.finish(acts, act_of, inserted_at))
}

impl Walker<'_> {
    /// Entering activation `a` backward at its last step: freezes the locals of its caller's
    /// activation `caller` that the formulas mention (and the call's result temporary), unless
    /// their address is taken; an address-taken local of the callee still mentioned needs two
    /// activations at once, which is not encoded.
    fn freeze_caller(
        &mut self,
        acts: &[Activation],
        path: &[CStep],
        a: usize,
        caller: usize,
    ) -> Result<(), PathError> {
        let prog = self.prog;
        let cf = acts[caller].func;
        // The call's result temporary is frozen too, mentioned or not: the callee's
        // `return` assigns it.
        let mut candidates = self.mentioned();
        if let Some(cs) = acts[a].call_step
            && let EdgeKind::Call { ret: Some(r), .. } = &edge(prog, path[cs]).kind
        {
            candidates.insert(*r);
        }
        let mut map = BTreeMap::new();
        for v in candidates {
            if owner(prog, v) == Some(cf) && !self.pts.is_address_taken(&Loc::Var(v)) {
                let info = prog.var(v);
                let s = self.fresh(
                    info.ty.clone(),
                    format!("{}@frozen{caller}", info.name),
                    cf,
                    SymKind::Frozen {
                        owner: caller,
                        var: v,
                    },
                );
                map.insert(v, s);
                // The copy points where the local does (Morris's case splits on writes
                // through the callee's pointers need it).
                if self.pts.holds_pointers(v) {
                    self.pts.to_mut().add_copy(s, v);
                }
            }
        }
        let sub: BTreeMap<VarId, Expr> = map
            .iter()
            .map(|(&v, &s)| (v, var_expr(&self.ext, s)))
            .collect();
        self.map(|e| Some(subst_vars(e, &|v| sub.get(&v).cloned())));
        let callee = acts[a].func;
        if let Some(v) = self
            .mentioned()
            .into_iter()
            .find(|&v| owner(prog, v) == Some(callee))
        {
            return Err(PathError::Unsupported(format!(
                "two activations of `{}` need the address-taken local `{}` at once",
                prog.functions[callee.0 as usize].name,
                prog.var(v).name
            )));
        }
        self.frozen.push((a, map));
        Ok(())
    }

    /// Step `j` of `path` backward on every conjunct: an assignment by its weakest
    /// precondition, a havoc as the assignment of a fresh symbol, an `assume` as a new
    /// conjunct, a return into the caller's frozen result temporary, a call either entered by
    /// the path ([`Self::enter_call`]) or whose result is a fresh symbol.
    fn step(&mut self, acts: &[Activation], act_of: &[usize], path: &[CStep], j: usize) {
        let prog = self.prog;
        let a = act_of[j];
        let e = edge(prog, path[j]);
        match &e.kind {
            EdgeKind::Assign { lhs, rhs } => self.assign(j, acts[a].func, lhs, rhs),
            EdgeKind::Havoc { lhs, .. } => {
                let s = self.fresh(
                    lhs.ty.clone(),
                    format!("havoc@{j}"),
                    acts[a].func,
                    SymKind::Havoc(j),
                );
                let value = var_expr(&self.ext, s);
                self.assign(j, acts[a].func, lhs, &value);
            }
            EdgeKind::Assume(c) => {
                self.open(j, c.clone());
            }
            EdgeKind::Return(v) => {
                // The value goes to the caller's (frozen) result temporary.
                if let (Some(v), Some((fa, map))) = (v, self.frozen.last())
                    && *fa == a
                    && let Some(cs) = acts[a].call_step
                    && let EdgeKind::Call { ret: Some(r), .. } = &edge(prog, path[cs]).kind
                    && let Some(&fr) = map.get(r)
                {
                    let value = convert(v, &prog.var(*r).ty);
                    self.map(|e| Some(subst_vars(e, &|x| (x == fr).then(|| value.clone()))));
                }
            }
            EdgeKind::Call { ret, callee, args } => {
                if let Some(b) = entered(acts, act_of, j) {
                    self.enter_call(acts, j, b, callee, args);
                } else if let Some(r) = ret {
                    let kind = if callee.is_allocator() {
                        SymKind::Alloc(j)
                    } else {
                        SymKind::CallResult(j)
                    };
                    let info = prog.var(*r);
                    let s = self.fresh(
                        info.ty.clone(),
                        format!("{}@{j}", info.name),
                        acts[a].func,
                        kind,
                    );
                    let value = var_expr(&self.ext, s);
                    self.assign(j, acts[a].func, &var_expr(prog, *r), &value);
                    if callee.is_allocator() {
                        let zero = matches!(callee, Callee::External(n) if n == "calloc");
                        self.allocated(j, acts[a].func, s, zero);
                    } else if matches!(info.ty, CType::Pointer(_)) {
                        // The environment's pointer, when not null, points to an object of
                        // its own with arbitrary contents, drawn as an allocation's are
                        // (`cir::interp::heap`).
                        self.allocated(j, acts[a].func, s, false);
                    }
                }
            }
            EdgeKind::Error { .. } | EdgeKind::Halt { .. } | EdgeKind::Skip => {}
        }
    }

    /// The call edge of step `j`, backward into the caller of activation `b` that it creates:
    /// the callee's uninitialised locals become symbols, its formals the actual parameters,
    /// the caller's frozen locals thaw, and a call through a pointer adds that the pointer
    /// designated the callee.
    fn enter_call(
        &mut self,
        acts: &[Activation],
        j: usize,
        b: usize,
        callee: &Callee,
        args: &[Expr],
    ) {
        let prog = self.prog;
        let g = &prog.functions[acts[b].func.0 as usize];
        self.uninit(b, g.id, true);
        let sub: BTreeMap<VarId, Expr> = g
            .formals
            .iter()
            .zip(args)
            .map(|(&f, arg)| (f, convert(arg, &prog.var(f).ty)))
            .collect();
        self.map(|e| Some(subst_vars(e, &|v| sub.get(&v).cloned())));
        if let Some((fa, map)) = self.frozen.last()
            && *fa == b
        {
            let thaw: BTreeMap<VarId, Expr> =
                map.iter().map(|(&v, &s)| (s, var_expr(prog, v))).collect();
            self.frozen.pop();
            self.map(|e| Some(subst_vars(e, &|v| thaw.get(&v).cloned())));
        }
        if let Callee::Indirect(fp) = callee {
            // The pointer designated the function the path enters.
            self.open(
                j,
                Expr {
                    kind: ExprKind::Binary(
                        cir::ir::BinOp::Eq,
                        Box::new(fp.clone()),
                        Box::new(Expr {
                            kind: ExprKind::AddrOf(Box::new(Expr {
                                kind: ExprKind::Func(g.name.clone()),
                                ty: CType::Func(Box::new(g.ty.clone())),
                            })),
                            ty: fp.ty.clone(),
                        }),
                    ),
                    ty: CType::INT,
                },
            );
        }
    }

    /// Global storage, before `main`: the initialisers backward (one without a value is a
    /// fresh symbol), then zero for every global scalar still read.
    fn global_storage(&mut self, acts: &[Activation]) {
        let prog = self.prog;
        let main = acts.first().map_or(FuncId(0), |a| a.func);
        for (i, init) in prog.global_inits.iter().enumerate().rev() {
            match &init.value {
                // A pun among the initialisers is named after the first step.
                Some(v) => self.assign(0, main, &init.lhs, v),
                None => {
                    let s = self.fresh(
                        init.lhs.ty.clone(),
                        format!("init@{i}"),
                        main,
                        SymKind::GlobalInit(i),
                    );
                    let value = var_expr(&self.ext, s);
                    self.assign(0, main, &init.lhs, &value);
                }
            }
        }
        self.map(|e| Some(zero_globals(prog, e)));
    }

    /// The path formula: the conjuncts in order of origin, each with its form at the start
    /// (`None`, counted as dropped, when its weakest precondition was not expressible); and
    /// the new index of the conjunct `inserted_at` of the walk.
    fn finish(
        self,
        acts: Vec<Activation>,
        act_of: Vec<usize>,
        inserted_at: Option<usize>,
    ) -> (PathFormula, Option<usize>) {
        let mut dropped = 0;
        let mut conjuncts: Vec<(usize, Conjunct)> = self
            .conj
            .into_iter()
            .enumerate()
            .map(|(i, (mut c, cur))| {
                if cur.is_none() {
                    dropped += 1;
                }
                c.at_start = cur;
                (i, c)
            })
            .collect();
        conjuncts.sort_by_key(|(_, c)| c.origin);
        let inserted = inserted_at.and_then(|k| conjuncts.iter().position(|(i, _)| *i == k));
        (
            PathFormula {
                ext: self.ext,
                acts,
                act_of,
                symbols: self.symbols,
                conjuncts: conjuncts.into_iter().map(|(_, c)| c).collect(),
                dropped,
                content_paths: self.content_paths,
            },
            inserted,
        )
    }
}

/// The pointers an edge dereferences, each once, in the state before it: the operands of
/// `*p`, `p->f` and `p[i]` (a pointer `p`) it evaluates. An address taken (`&p->f`) is
/// computed, not read, so what it designates need not be defined.
fn dereferenced(kind: &EdgeKind) -> Vec<Expr> {
    fn collect(e: &Expr, out: &mut Vec<Expr>) {
        match &e.kind {
            ExprKind::AddrOf(_) => return,
            ExprKind::Deref(p) => push(p, out),
            ExprKind::Index(a, _) if matches!(a.ty, CType::Pointer(_)) => push(a, out),
            _ => {}
        }
        for c in e.children() {
            collect(c, out);
        }
    }
    fn push(p: &Expr, out: &mut Vec<Expr>) {
        if matches!(p.ty, CType::Pointer(_))
            && !matches!(p.without_casts().kind, ExprKind::AddrOf(_))
            && !out.contains(p)
        {
            out.push(p.clone());
        }
    }
    let mut out = Vec::new();
    for e in kind.exprs() {
        collect(e, &mut out);
    }
    out
}

/// Whether the lvalue is a part of a global variable reached without a pointer.
fn global_root(prog: &Program, e: &Expr) -> bool {
    match &e.kind {
        ExprKind::Var(v) => prog.vars.get(v.0 as usize).is_some_and(VarInfo::is_global),
        ExprKind::Field(b, _) => global_root(prog, b),
        ExprKind::Index(a, _) => matches!(a.ty, CType::Array(..)) && global_root(prog, a),
        _ => false,
    }
}

/// Global storage starts zero: every scalar read of a global (not through a pointer) is 0.
fn zero_globals(prog: &Program, e: &Expr) -> Expr {
    if e.is_lvalue() && (e.ty.is_scalar() && !e.ty.is_float()) && global_root(prog, e) {
        let zero = Expr::int(0, CType::INT);
        return if e.ty == CType::INT {
            zero
        } else {
            Expr {
                kind: ExprKind::Cast(Box::new(zero)),
                ty: e.ty.clone(),
            }
        };
    }
    let rebuild = |a: &Expr| Box::new(zero_globals(prog, a));
    let kind = match &e.kind {
        ExprKind::Unary(op, a) => ExprKind::Unary(*op, rebuild(a)),
        ExprKind::Binary(op, a, b) => ExprKind::Binary(*op, rebuild(a), rebuild(b)),
        ExprKind::Cast(a) => ExprKind::Cast(rebuild(a)),
        ExprKind::Cond(c, a, b) => ExprKind::Cond(rebuild(c), rebuild(a), rebuild(b)),
        // Addresses stay: `&g` is the object, not its value.
        ExprKind::AddrOf(a) => ExprKind::AddrOf(Box::new(zero_in_address(prog, a))),
        ExprKind::Deref(a) => ExprKind::Deref(rebuild(a)),
        ExprKind::Field(a, f) => ExprKind::Field(Box::new(zero_in_address(prog, a)), f.clone()),
        ExprKind::Index(a, i) => {
            let a = if matches!(a.ty, CType::Array(..)) {
                Box::new(zero_in_address(prog, a))
            } else {
                rebuild(a)
            };
            ExprKind::Index(a, rebuild(i))
        }
        k => k.clone(),
    };
    Expr {
        kind,
        ty: e.ty.clone(),
    }
}

/// Inside an address computation only the values read (indices, pointers) are zeroed.
fn zero_in_address(prog: &Program, e: &Expr) -> Expr {
    match &e.kind {
        ExprKind::Var(_) => e.clone(),
        ExprKind::Field(a, f) => Expr {
            kind: ExprKind::Field(Box::new(zero_in_address(prog, a)), f.clone()),
            ty: e.ty.clone(),
        },
        ExprKind::Index(a, i) if matches!(a.ty, CType::Array(..)) => Expr {
            kind: ExprKind::Index(
                Box::new(zero_in_address(prog, a)),
                Box::new(zero_globals(prog, i)),
            ),
            ty: e.ty.clone(),
        },
        _ => zero_globals(prog, e),
    }
}

/// The truth of `&x == &y` (or `!=`) between two variables' addresses: distinct variables have
/// distinct addresses ([`cir::smt`]'s memory model).
fn address_comparison(e: &Expr) -> Option<bool> {
    let ExprKind::Binary(op @ (cir::ir::BinOp::Eq | cir::ir::BinOp::Ne), a, b) = &e.kind else {
        return None;
    };
    let var_addr = |x: &Expr| match &x.kind {
        ExprKind::AddrOf(v) => match v.kind {
            ExprKind::Var(v) => Some(v),
            _ => None,
        },
        _ => None,
    };
    let same = var_addr(a)? == var_addr(b)?;
    Some(if *op == cir::ir::BinOp::Eq {
        same
    } else {
        !same
    })
}

/// Morris's case splits whose alias condition became decidable (`(&x == &x) ? e : x` after
/// `p := &x`) are resolved, so a form does not keep a dead branch (and the symbols in it).
pub fn fold_addresses(e: &Expr) -> Expr {
    e.map_bottom_up(&mut |x| match &x.kind {
        // The condition was folded first (bottom-up): a constant picks the branch.
        ExprKind::Cond(c, a, b) => match c.kind {
            ExprKind::Const(v) => {
                if v != 0 {
                    (**a).clone()
                } else {
                    (**b).clone()
                }
            }
            _ => x,
        },
        _ => match address_comparison(&x) {
            Some(t) => Expr::int(i128::from(t), CType::INT),
            None => x,
        },
    })
}
