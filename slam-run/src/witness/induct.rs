//! The inductiveness prover behind [`super::check_correctness`]: the cut points of a function
//! (its entry and its loop heads, [`loop_heads`]) and, from each cut point, an SSA encoding of
//! every path to the next cut points over `cir::smt`, whose obligations Z3 discharges.

use std::collections::{BTreeSet, HashMap, HashSet};

use cir::ir::{
    BinOp, Callee, EdgeId, EdgeKind, Expr, ExprKind, FuncId, NodeId, Program, UnOp, VarId, VarInfo,
    VarKind,
};
use cir::types::{CType, IntKind};

use super::{WitnessError, err};

/// The loop heads of `f`: targets of the back edges of a depth-first search from its entry
/// (every cycle of the control-flow graph passes through one), in increasing node order.
pub fn loop_heads(f: &cir::ir::Function) -> Vec<cir::ir::NodeId> {
    f.loop_heads()
}

/// The source line of node `n` of `f`: that of its first out-edge (in the verified file).
pub(super) fn node_line(f: &cir::ir::Function, n: cir::ir::NodeId) -> Option<u32> {
    f.edges
        .iter()
        .find(|e| e.from == n && e.pos.file == 0 && e.pos.line > 0)
        .map(|e| e.pos.line)
}

/// A function checked on its own, from its entry invariant: one other than `main` that has a
/// loop (a loop-free one is inlined where it is called).
pub(super) fn modular(f: &cir::ir::Function) -> bool {
    f.name != "main" && !loop_heads(f).is_empty()
}

fn int_ty() -> CType {
    CType::Int(IntKind::Int)
}

pub(super) fn int_const(v: i128) -> Expr {
    Expr {
        kind: ExprKind::Const(v),
        ty: int_ty(),
    }
}

pub(super) fn bin(op: BinOp, a: Expr, b: Expr) -> Expr {
    Expr {
        kind: ExprKind::Binary(op, Box::new(a), Box::new(b)),
        ty: int_ty(),
    }
}

fn not(a: Expr) -> Expr {
    Expr {
        kind: ExprKind::Unary(UnOp::LogNot, Box::new(a)),
        ty: int_ty(),
    }
}

/// A node of the inlined control flow: the call edges on the way (the context), the function,
/// the node; `target` marks a cut point reached (not expanded further).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct PNode {
    ctx: Vec<EdgeId>,
    func: FuncId,
    node: NodeId,
    target: bool,
}

/// A successor in the inlined control flow: the edge taken (`None`: the return from a callee
/// to its caller) and the node.
type Succ = (Option<EdgeId>, PNode);

/// Values along the way into a node: reachability, guard, variable versions.
struct Incoming {
    reach: Expr,
    guard: Option<Expr>,
    vers: HashMap<VarId, Expr>,
}

/// The SSA encoding of [`check_correctness`].
pub(super) struct Induct<'p> {
    prog: &'p Program,
    ext: Program,
    /// Loop-head invariants of the functions checked on their own.
    inv: HashMap<(FuncId, NodeId), Expr>,
    /// Entry invariants of the functions other than main checked on their own.
    entry_inv: HashMap<FuncId, Expr>,
    /// The return value of each function (a fresh variable standing for it).
    ret: HashMap<FuncId, VarId>,
    /// Per function (by index): the globals it may modify, transitively (c2bp's mod sets).
    mods: Vec<c2bp::signature::ModSet>,
    fresh: usize,
}

fn unsupported<T>(what: String) -> Result<T, WitnessError> {
    Err(WitnessError(format!("not checked: {what}")))
}

impl<'p> Induct<'p> {
    pub(super) fn new(
        prog: &'p Program,
        inv: HashMap<(FuncId, NodeId), Expr>,
        entry_inv: HashMap<FuncId, Expr>,
    ) -> Induct<'p> {
        let mut ind = Induct {
            prog,
            ext: prog.clone(),
            inv,
            entry_inv,
            ret: HashMap::new(),
            mods: c2bp::signature::mod_sets(prog, &cir::pointsto::PointsTo::analyze(prog)),
            fresh: 0,
        };
        for f in &prog.functions {
            let ty = f.ty.ret.clone();
            if ty.is_integer() {
                let v = ind.new_var(&format!("{}@ret", f.name), ty);
                ind.ret.insert(f.id, v);
            }
        }
        ind
    }

    fn new_var(&mut self, base: &str, ty: CType) -> VarId {
        self.fresh += 1;
        let id = VarId(u32::try_from(self.ext.vars.len()).unwrap_or(u32::MAX));
        let main = self
            .prog
            .function("main")
            .map(|f| f.id)
            .unwrap_or(FuncId(0));
        self.ext.vars.push(VarInfo {
            c_name: format!("{base}@{}", self.fresh),
            name: format!("{base}@{}", self.fresh),
            ty,
            kind: VarKind::Temp(main),
            pos: Default::default(),
        });
        id
    }

    fn fresh_of(&mut self, v: VarId) -> Expr {
        let info = self.ext.var(v).clone();
        let id = self.new_var(&info.name, info.ty.clone());
        Expr {
            kind: ExprKind::Var(id),
            ty: info.ty,
        }
    }

    fn fresh_int(&mut self, base: &str) -> Expr {
        let id = self.new_var(base, int_ty());
        Expr {
            kind: ExprKind::Var(id),
            ty: int_ty(),
        }
    }

    /// `e` over the versions (only integer variables and operators are supported).
    fn read(&self, e: &Expr, vers: &HashMap<VarId, Expr>) -> Result<Expr, WitnessError> {
        let mut bad = None;
        e.walk(&mut |x| match &x.kind {
            ExprKind::Const(_)
            | ExprKind::Unary(..)
            | ExprKind::Binary(..)
            | ExprKind::Cast(_)
            | ExprKind::Cond(..) => {}
            ExprKind::Var(v) if vers.contains_key(v) => {}
            _ => bad = Some(self.prog.show_expr(x)),
        });
        if let Some(b) = bad {
            return unsupported(format!("`{b}` (only integer variables are handled)"));
        }
        Ok(cir::wp::subst_vars(e, &|v| vers.get(&v).cloned()))
    }

    fn scalar_vars(&self, vars: &[VarId]) -> Vec<VarId> {
        vars.iter()
            .copied()
            .filter(|&v| self.prog.var(v).ty.is_integer())
            .collect()
    }

    /// The obligations from cut point `a` of function `root` — its entry when `entry` (the
    /// initial state for `main`, the entry invariant for another), else a loop head (its
    /// invariant); returns how many were proved.
    pub(super) fn check_cut(
        &mut self,
        root: FuncId,
        a: NodeId,
        entry: bool,
        sem: cir::smt::Semantics,
    ) -> Result<usize, WitnessError> {
        let (vers, mut constraints) = self.state_at_cut(root, a, entry)?;
        let region = Region::new(self, root);
        let order = region.order(self.prog, a)?;
        let fw = self.forward(&region, order, vers, &mut constraints)?;
        self.discharge(root, a, entry, sem, &constraints, fw)
    }

    /// The versions of the variables at cut point `a` of `root`, and what holds of them: at
    /// main's entry the globals' initial values, elsewhere fresh values that satisfy the cut
    /// point's invariant (the entry invariant at another function's entry).
    fn state_at_cut(
        &mut self,
        root: FuncId,
        a: NodeId,
        entry: bool,
    ) -> Result<(Versions, Vec<Expr>), WitnessError> {
        let prog = self.prog;
        let main = prog.function("main").expect("checked");
        let root = &prog.functions[root.0 as usize];
        let mut vers: Versions = HashMap::new();
        let mut constraints: Vec<Expr> = Vec::new();
        let globals = self.scalar_vars(&prog.globals);
        let locals = self.scalar_vars(&root.locals);
        let formals = self.scalar_vars(&root.formals);
        if root.id == main.id && entry {
            for &g in &globals {
                vers.insert(g, cir::wp::convert(&int_const(0), &prog.var(g).ty));
            }
            for init in &prog.global_inits {
                let ExprKind::Var(g) = init.lhs.kind else {
                    return unsupported("an initialiser of an aggregate".into());
                };
                if !prog.var(g).ty.is_integer() {
                    continue;
                }
                let v = match &init.value {
                    Some(e) => {
                        let e = self.read(e, &vers)?;
                        cir::wp::convert(&e, &prog.var(g).ty)
                    }
                    None => self.fresh_of(g),
                };
                vers.insert(g, v);
            }
        } else {
            for &g in &globals {
                let f = self.fresh_of(g);
                vers.insert(g, f);
            }
        }
        for &l in locals.iter().chain(&formals) {
            let f = self.fresh_of(l);
            vers.insert(l, f);
        }
        let assumed = if entry {
            self.entry_inv.get(&root.id).cloned()
        } else {
            self.inv.get(&(root.id, a)).cloned()
        };
        if let Some(i) = assumed {
            constraints.push(self.read(&i, &vers)?);
        }
        Ok((vers, constraints))
    }

    /// The forward pass over the region in topological order: each node's reachability and
    /// variable versions merged from its incoming edges, each edge's effect, and an
    /// obligation at every cut point or error reached and at every call of a function
    /// summarised by its entry invariant.
    fn forward(
        &mut self,
        region: &Region,
        order: Vec<(PNode, Vec<Succ>)>,
        start: Versions,
        constraints: &mut Vec<Expr>,
    ) -> Result<Forward, WitnessError> {
        let mut incoming: HashMap<PNode, Vec<Incoming>> = HashMap::new();
        let mut fw = Forward::default();
        let mut start = Some(start);
        for (p, successors) in order {
            let (reach, vers_here) = match start.take() {
                Some(vers) => (int_const(1), vers),
                None => {
                    let ins = incoming.remove(&p).unwrap_or_default();
                    if ins.is_empty() {
                        continue;
                    }
                    self.merge(&ins, constraints)
                }
            };
            if p.target {
                if let Some(goal) = self.goal_at(region, &p, &vers_here)? {
                    fw.obligations.push((reach, goal));
                }
                continue;
            }
            for (edge, q) in successors {
                let mut v = vers_here.clone();
                let guard = match edge {
                    None => {
                        self.return_to_caller(&p, &mut v);
                        None
                    }
                    Some(id) => self.transfer(&p, id, &mut v, &reach, &mut fw)?,
                };
                incoming.entry(q).or_default().push(Incoming {
                    reach: reach.clone(),
                    guard,
                    vers: v,
                });
            }
        }
        if !incoming.is_empty() {
            // The order was not topological: some paths would go unchecked.
            return err("internal: a node of the region was visited before its predecessors");
        }
        Ok(fw)
    }

    /// A node's reachability (a fresh variable: one of its incoming edges is taken) and its
    /// variable versions (one incoming value, or a fresh version equal to the value of the
    /// edge taken).
    fn merge(&mut self, ins: &[Incoming], constraints: &mut Vec<Expr>) -> (Expr, Versions) {
        let r = self.fresh_int("reach");
        let taken: Vec<Expr> = ins
            .iter()
            .map(|i| match &i.guard {
                Some(g) => bin(BinOp::LogAnd, i.reach.clone(), g.clone()),
                None => i.reach.clone(),
            })
            .collect();
        let any = taken
            .iter()
            .cloned()
            .reduce(|a, b| bin(BinOp::LogOr, a, b))
            .expect("non-empty");
        constraints.push(bin(BinOp::Eq, r.clone(), bin(BinOp::Ne, any, int_const(0))));
        let mut keys: Vec<VarId> = ins.iter().flat_map(|i| i.vers.keys().copied()).collect();
        keys.sort();
        keys.dedup();
        let mut merged = HashMap::new();
        for v in keys {
            let vals: Vec<Option<&Expr>> = ins.iter().map(|i| i.vers.get(&v)).collect();
            if let Some(Some(x)) = vals.first()
                && vals.iter().all(|y| *y == Some(*x))
            {
                merged.insert(v, (*x).clone());
                continue;
            }
            let m = self.fresh_of(v);
            for (t, val) in taken.iter().zip(&vals) {
                if let Some(val) = val {
                    constraints.push(bin(
                        BinOp::LogOr,
                        not(t.clone()),
                        bin(BinOp::Eq, m.clone(), (*val).clone()),
                    ));
                }
            }
            merged.insert(v, m);
        }
        (r, merged)
    }

    /// What must hold at a target node: the invariant at a loop head of the root, false at an
    /// error; nothing at a halt.
    fn goal_at(
        &self,
        region: &Region,
        p: &PNode,
        vers: &Versions,
    ) -> Result<Option<Expr>, WitnessError> {
        let f = &self.prog.functions[p.func.0 as usize];
        if p.ctx.is_empty() && p.func == region.root && region.heads.contains(&p.node) {
            let i = self.inv[&(region.root, p.node)].clone();
            return self.read(&i, vers).map(Some);
        }
        let error = f
            .edges
            .iter()
            .any(|e| e.to == p.node && matches!(e.kind, EdgeKind::Error { .. }));
        Ok(error.then(|| int_const(0)))
    }

    /// Back in the caller after the call edge that entered `p`'s function: the call's result
    /// temporary takes the callee's return value (anything when it returned none).
    fn return_to_caller(&mut self, p: &PNode, v: &mut Versions) {
        let prog = self.prog;
        let c = *p.ctx.last().expect("a return has a context");
        let caller = &prog.functions[c.func.0 as usize];
        if let EdgeKind::Call { ret: Some(r), .. } = &caller.edges[c.index as usize].kind
            && prog.var(*r).ty.is_integer()
        {
            let val = match self.ret.get(&p.func).and_then(|x| v.get(x)) {
                Some(x) => cir::wp::convert(x, &prog.var(*r).ty),
                None => self.fresh_of(*r),
            };
            v.insert(*r, val);
        }
    }

    /// The effect of edge `id` out of `p` on the versions `v`; its guard, for an assume.
    fn transfer(
        &mut self,
        p: &PNode,
        id: EdgeId,
        v: &mut Versions,
        reach: &Expr,
        fw: &mut Forward,
    ) -> Result<Option<Expr>, WitnessError> {
        let prog = self.prog;
        let e = prog.edge(id);
        match &e.kind {
            EdgeKind::Assume(c) => return self.read(c, v).map(Some),
            EdgeKind::Assign { lhs, rhs } => {
                let ExprKind::Var(x) = lhs.kind else {
                    return unsupported(format!("assignment to `{}`", prog.show_expr(lhs)));
                };
                if !prog.var(x).ty.is_integer() {
                    return unsupported(format!("assignment to `{}`", prog.var(x).name));
                }
                // The new version is the value itself (as in weakest preconditions): a fresh
                // variable with its range fact, equated outside the path condition, would
                // exclude signed overflow on every path, even those that never assign.
                let val = cir::wp::convert(&self.read(rhs, v)?, &lhs.ty);
                v.insert(x, val);
            }
            EdgeKind::Havoc { lhs, .. } => {
                let ExprKind::Var(x) = lhs.kind else {
                    return unsupported(format!("havoc of `{}`", prog.show_expr(lhs)));
                };
                let n = self.fresh_of(x);
                v.insert(x, n);
            }
            EdgeKind::Call { ret, callee, args } => {
                for a in args {
                    // Arguments must be readable (no pointers).
                    self.read(a, v)?;
                }
                match callee {
                    Callee::Defined(h) => match self.entry_inv.get(h).cloned() {
                        Some(pre) => {
                            let goal = self.call_summarised(*h, &pre, *ret, args, v)?;
                            fw.obligations.push((reach.clone(), goal));
                            let name = &prog.functions[h.0 as usize].name;
                            fw.summarised.insert(name.clone());
                        }
                        None => self.call_inlined(*h, args, v)?,
                    },
                    _ => {
                        if let Some(r) = ret
                            && prog.var(*r).ty.is_integer()
                        {
                            let n = self.fresh_of(*r);
                            v.insert(*r, n);
                        }
                    }
                }
            }
            EdgeKind::Return(val) => {
                let f = &prog.functions[p.func.0 as usize];
                if let (Some(x), Some(rv)) = (val, self.ret.get(&f.id).copied()) {
                    let x = cir::wp::convert(&self.read(x, v)?, &f.ty.ret);
                    v.insert(rv, x);
                }
            }
            _ => {}
        }
        Ok(None)
    }

    /// A call of `h`, a function with a loop checked on its own: its entry invariant, with its
    /// parameters bound to the arguments, is the goal returned (it must hold at the call); then
    /// the globals it may modify and the result are anything.
    fn call_summarised(
        &mut self,
        h: FuncId,
        pre: &Expr,
        ret: Option<VarId>,
        args: &[Expr],
        v: &mut Versions,
    ) -> Result<Expr, WitnessError> {
        let prog = self.prog;
        let g = &prog.functions[h.0 as usize];
        let mut at_entry = v.clone();
        for (fm, a) in g.formals.iter().zip(args) {
            if prog.var(*fm).ty.is_integer() {
                let val = cir::wp::convert(&self.read(a, v)?, &prog.var(*fm).ty);
                at_entry.insert(*fm, val);
            }
        }
        for &l in &self.scalar_vars(&g.locals) {
            let n = self.fresh_of(l);
            at_entry.insert(l, n);
        }
        let goal = self.read(pre, &at_entry)?;
        for &gv in &self.scalar_vars(&prog.globals) {
            if self.mods[h.0 as usize].touches(&cir::pointsto::Loc::Var(gv)) {
                let n = self.fresh_of(gv);
                v.insert(gv, n);
            }
        }
        if let Some(r) = ret
            && prog.var(r).ty.is_integer()
        {
            let n = self.fresh_of(r);
            v.insert(r, n);
        }
        Ok(goal)
    }

    /// A call of `h`, a loop-free function, inlined: its parameters bound to the arguments,
    /// its locals fresh, no result until this activation returns one.
    fn call_inlined(
        &mut self,
        h: FuncId,
        args: &[Expr],
        v: &mut Versions,
    ) -> Result<(), WitnessError> {
        let prog = self.prog;
        let g = &prog.functions[h.0 as usize];
        for (fm, a) in g.formals.iter().zip(args) {
            if !prog.var(*fm).ty.is_integer() {
                return unsupported(format!("parameter `{}` of {}", prog.var(*fm).name, g.name));
            }
            let val = cir::wp::convert(&self.read(a, v)?, &prog.var(*fm).ty);
            v.insert(*fm, val);
        }
        if let Some(rv) = self.ret.get(&h) {
            v.remove(rv);
        }
        for &l in &self.scalar_vars(&g.locals) {
            let n = self.fresh_of(l);
            v.insert(l, n);
        }
        Ok(())
    }

    /// Has Z3 prove every obligation from the constraints of the encoding; returns how many.
    fn discharge(
        &self,
        root: FuncId,
        a: NodeId,
        entry: bool,
        sem: cir::smt::Semantics,
        constraints: &[Expr],
        fw: Forward,
    ) -> Result<usize, WitnessError> {
        let root = &self.prog.functions[root.0 as usize];
        let prover = cir::smt::Prover::new(&self.ext, sem);
        let n = fw.obligations.len();
        for (reach, goal) in fw.obligations {
            let mut assumptions = constraints.to_vec();
            assumptions.push(bin(BinOp::Ne, reach, int_const(0)));
            match prover.is_valid(&assumptions, &goal) {
                cir::smt::Answer::Valid => {}
                cir::smt::Answer::NotValid => {
                    let what = format!(
                        "from {} of {}, `{}` does not follow",
                        if entry {
                            "the entry".to_string()
                        } else {
                            format!("the loop head at line {}", node_line(root, a).unwrap_or(0))
                        },
                        root.name,
                        self.ext.show_expr(&goal)
                    );
                    if !fw.summarised.is_empty() {
                        // Not a refutation: the encoding over-approximates these calls.
                        let names: Vec<&str> = fw.summarised.iter().map(String::as_str).collect();
                        return unsupported(format!(
                            "{what}, but the paths call {} (with loops), summarized by the \
                             entry invariant alone: what the call does to the globals it may \
                             modify is forgotten",
                            names.join(", ")
                        ));
                    }
                    return err(what);
                }
                cir::smt::Answer::Unknown => {
                    return err("the solver gave up on an obligation".to_string());
                }
            }
        }
        Ok(n)
    }
}

/// The variables' current values (versions) at a point of the encoding.
type Versions = HashMap<VarId, Expr>;

/// What the forward pass leaves to prove.
#[derive(Default)]
struct Forward {
    /// (reachability, goal): the goal must hold wherever the node is reached.
    obligations: Vec<(Expr, Expr)>,
    /// Functions with loops whose calls the region summarises by their entry invariant.
    summarised: BTreeSet<String>,
}

/// The region explored from a cut point of `root`: the inlined control flow up to the next cut
/// points (loop heads of `root`), errors and halts.
struct Region {
    root: FuncId,
    main: FuncId,
    /// The loop heads of `root` (those with an invariant entry: all of them).
    heads: HashSet<NodeId>,
    /// Functions summarised by their entry invariant at calls (the others are inlined).
    modular: HashSet<FuncId>,
}

impl Region {
    fn new(ind: &Induct<'_>, root: FuncId) -> Region {
        Region {
            root,
            main: ind.prog.function("main").expect("checked").id,
            heads: ind
                .inv
                .keys()
                .filter(|(f, _)| *f == root)
                .map(|(_, n)| *n)
                .collect(),
            modular: ind.entry_inv.keys().copied().collect(),
        }
    }

    /// The successors of `p` in the inlined control flow: a loop-free callee is entered (a
    /// function with a loop is summarised by its entry invariant, on the edge itself), a
    /// callee's exit returns to its caller; an error or halt, or a loop head of the root,
    /// ends a path as a target.
    fn successors(&self, prog: &Program, p: &PNode) -> Result<Vec<Succ>, WitnessError> {
        let f = &prog.functions[p.func.0 as usize];
        let mut out = Vec::new();
        if p.target {
            return Ok(out);
        }
        if p.node == f.exit {
            if let Some(&c) = p.ctx.last() {
                let caller = &prog.functions[c.func.0 as usize];
                let call = &caller.edges[c.index as usize];
                let mut ctx = p.ctx.clone();
                ctx.pop();
                let target = ctx.is_empty() && self.heads.contains(&call.to);
                out.push((
                    None,
                    PNode {
                        ctx,
                        func: c.func,
                        node: call.to,
                        target,
                    },
                ));
            }
            return Ok(out);
        }
        for e in f.edges.iter().filter(|e| e.from == p.node) {
            match &e.kind {
                EdgeKind::Call {
                    callee: Callee::Indirect(_),
                    ..
                } => return unsupported("a call through a pointer".into()),
                EdgeKind::Call {
                    callee: Callee::Defined(h),
                    ..
                } if !self.modular.contains(h) => {
                    let callee = &prog.functions[h.0 as usize];
                    let active = *h == self.main
                        || *h == self.root
                        || *h == p.func
                        || p.ctx.iter().any(|c| c.func == *h);
                    if active {
                        return unsupported(format!("recursion through {}", callee.name));
                    }
                    let mut ctx = p.ctx.clone();
                    ctx.push(e.id);
                    out.push((
                        Some(e.id),
                        PNode {
                            ctx,
                            func: *h,
                            node: callee.entry,
                            target: false,
                        },
                    ));
                }
                k => {
                    let target = matches!(k, EdgeKind::Error { .. } | EdgeKind::Halt { .. })
                        || (p.ctx.is_empty() && self.heads.contains(&e.to));
                    out.push((
                        Some(e.id),
                        PNode {
                            ctx: p.ctx.clone(),
                            func: p.func,
                            node: e.to,
                            target,
                        },
                    ));
                }
            }
        }
        Ok(out)
    }

    /// The region's nodes from cut point `a`, each with its successors, in topological order
    /// (reverse post-order of a depth-first search).
    fn order(&self, prog: &Program, a: NodeId) -> Result<Vec<(PNode, Vec<Succ>)>, WitnessError> {
        let start = PNode {
            ctx: Vec::new(),
            func: self.root,
            node: a,
            target: false,
        };
        let mut order: Vec<(PNode, Vec<Succ>)> = Vec::new();
        let mut seen: HashSet<PNode> = HashSet::new();
        let mut stack: Vec<(PNode, Vec<Succ>, usize)> = Vec::new();
        seen.insert(start.clone());
        let s0 = self.successors(prog, &start)?;
        stack.push((start, s0, 0));
        while let Some((p, ss, i)) = stack.pop() {
            if let Some((_, q)) = ss.get(i) {
                let q = q.clone();
                stack.push((p, ss, i + 1));
                if seen.insert(q.clone()) {
                    if seen.len() > 200_000 {
                        return unsupported("more than 200000 inlined nodes".into());
                    }
                    let qs = self.successors(prog, &q)?;
                    stack.push((q, qs, 0));
                }
            } else {
                order.push((p, ss));
            }
        }
        order.reverse();
        Ok(order)
    }
}
