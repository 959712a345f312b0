//! The inductiveness prover behind [`super::check_correctness`]: the cut points of a function
//! (its entry and its loop heads, [`loop_heads`]) and, from each cut point, an SSA encoding of
//! every path to the next cut points over `cir::smt`, whose obligations Z3 discharges.

use std::collections::HashMap;

use cir::ir::{
    BinOp, Callee, EdgeId, EdgeKind, Expr, ExprKind, FuncId, NodeId, Program, UnOp, VarId, VarInfo,
    VarKind,
};
use cir::types::{CType, IntKind};

use super::{WitnessError, err};

/// The loop heads of `f`: targets of the back edges of a depth-first search from its entry
/// (every cycle of the control-flow graph passes through one), in increasing node order.
pub fn loop_heads(f: &cir::ir::Function) -> Vec<cir::ir::NodeId> {
    let n = f.nodes as usize;
    let mut succ: Vec<Vec<usize>> = vec![Vec::new(); n];
    for e in &f.edges {
        succ[e.from.0 as usize].push(e.to.0 as usize);
    }
    // 0 unvisited, 1 on the stack, 2 done.
    let mut state = vec![0u8; n];
    let mut heads = std::collections::BTreeSet::new();
    let mut stack: Vec<(usize, usize)> = vec![(f.entry.0 as usize, 0)];
    state[f.entry.0 as usize] = 1;
    while let Some((v, i)) = stack.pop() {
        if let Some(&w) = succ[v].get(i) {
            stack.push((v, i + 1));
            match state[w] {
                0 => {
                    state[w] = 1;
                    stack.push((w, 0));
                }
                1 => {
                    heads.insert(w);
                }
                _ => {}
            }
        } else {
            state[v] = 2;
        }
    }
    heads
        .into_iter()
        .map(|h| cir::ir::NodeId(h as u32))
        .collect()
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
    mods: Vec<std::collections::BTreeSet<cir::pointsto::Loc>>,
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
        root_id: FuncId,
        a: NodeId,
        entry: bool,
        sem: cir::smt::Semantics,
    ) -> Result<usize, WitnessError> {
        let prog = self.prog;
        let main = prog.function("main").expect("checked");
        let root = &prog.functions[root_id.0 as usize];
        // The initial versions.
        let mut vers: HashMap<VarId, Expr> = HashMap::new();
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
        // The region: depth-first from `a`; the loop heads of `root` are targets.
        let heads: std::collections::HashSet<NodeId> = self
            .inv
            .keys()
            .filter(|(f, _)| *f == root.id)
            .map(|(_, n)| *n)
            .collect();
        let modular_fns: std::collections::HashSet<FuncId> =
            self.entry_inv.keys().copied().collect();
        let start = PNode {
            ctx: Vec::new(),
            func: root.id,
            node: a,
            target: false,
        };
        let succs = |p: &PNode| -> Result<Vec<Succ>, WitnessError> {
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
                    let target = ctx.is_empty() && heads.contains(&call.to);
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
                    // A loop-free callee: inlined (a function with a loop is summarised by
                    // its entry invariant, on the edge itself).
                    EdgeKind::Call {
                        callee: Callee::Defined(h),
                        ..
                    } if !modular_fns.contains(h) => {
                        let callee = &prog.functions[h.0 as usize];
                        let active = *h == main.id
                            || *h == root.id
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
                        // An error or halt ends the path; a loop head of `root` is a cut.
                        let target = matches!(k, EdgeKind::Error { .. } | EdgeKind::Halt { .. })
                            || (p.ctx.is_empty() && heads.contains(&e.to));
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
        };
        // Topological order (reverse post-order).
        let mut order: Vec<(PNode, Vec<Succ>)> = Vec::new();
        let mut seen: std::collections::HashSet<PNode> = std::collections::HashSet::new();
        let mut stack: Vec<(PNode, Vec<Succ>, usize)> = Vec::new();
        seen.insert(start.clone());
        let s0 = succs(&start)?;
        stack.push((start.clone(), s0, 0));
        while let Some((p, ss, i)) = stack.pop() {
            if let Some((_, q)) = ss.get(i) {
                let q = q.clone();
                stack.push((p, ss, i + 1));
                if seen.insert(q.clone()) {
                    if seen.len() > 200_000 {
                        return unsupported("more than 200000 inlined nodes".into());
                    }
                    let qs = succs(&q)?;
                    stack.push((q, qs, 0));
                }
            } else {
                order.push((p, ss));
            }
        }
        order.reverse();
        // The forward pass.
        let mut incoming: HashMap<PNode, Vec<Incoming>> = HashMap::new();
        let mut obligations: Vec<(Expr, Expr)> = Vec::new();
        // Functions with loops whose calls the region summarizes (by their entry invariant).
        let mut summarized: std::collections::BTreeSet<String> = std::collections::BTreeSet::new();
        let mut first = true;
        for (p, successors) in order {
            let (reach, vers_here) = if first {
                first = false;
                (int_const(1), std::mem::take(&mut vers))
            } else {
                let ins = incoming.remove(&p).unwrap_or_default();
                if ins.is_empty() {
                    continue;
                }
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
                let mut keys: Vec<VarId> =
                    ins.iter().flat_map(|i| i.vers.keys().copied()).collect();
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
            };
            if p.target {
                let f = &prog.functions[p.func.0 as usize];
                let goal = if p.ctx.is_empty() && p.func == root.id && heads.contains(&p.node) {
                    let i = self.inv[&(root.id, p.node)].clone();
                    self.read(&i, &vers_here)?
                } else if f
                    .edges
                    .iter()
                    .any(|e| e.to == p.node && matches!(e.kind, EdgeKind::Error { .. }))
                {
                    int_const(0)
                } else {
                    continue; // a halt
                };
                obligations.push((reach, goal));
                continue;
            }
            let f = &prog.functions[p.func.0 as usize];
            for (edge, q) in successors {
                let mut v = vers_here.clone();
                let mut guard = None;
                match edge {
                    None => {
                        // Back in the caller after the call edge `c`.
                        let c = *p.ctx.last().expect("a return has a context");
                        let caller = &prog.functions[c.func.0 as usize];
                        if let EdgeKind::Call { ret: Some(r), .. } =
                            &caller.edges[c.index as usize].kind
                            && prog.var(*r).ty.is_integer()
                        {
                            let val = match self.ret.get(&p.func).and_then(|x| v.get(x)) {
                                Some(x) => cir::wp::convert(x, &prog.var(*r).ty),
                                None => self.fresh_of(*r),
                            };
                            v.insert(*r, val);
                        }
                    }
                    Some(id) => {
                        let e = prog.edge(id);
                        match &e.kind {
                            EdgeKind::Assume(c) => guard = Some(self.read(c, &v)?),
                            EdgeKind::Assign { lhs, rhs } => {
                                let ExprKind::Var(x) = lhs.kind else {
                                    return unsupported(format!(
                                        "assignment to `{}`",
                                        prog.show_expr(lhs)
                                    ));
                                };
                                if !prog.var(x).ty.is_integer() {
                                    return unsupported(format!(
                                        "assignment to `{}`",
                                        prog.var(x).name
                                    ));
                                }
                                // The new version is the value itself (as in weakest
                                // preconditions): a fresh variable with its range fact,
                                // equated outside the path condition, would exclude signed
                                // overflow on every path, even those that never assign.
                                let val = cir::wp::convert(&self.read(rhs, &v)?, &lhs.ty);
                                v.insert(x, val);
                            }
                            EdgeKind::Havoc { lhs, .. } => {
                                let ExprKind::Var(x) = lhs.kind else {
                                    return unsupported(format!(
                                        "havoc of `{}`",
                                        prog.show_expr(lhs)
                                    ));
                                };
                                let n = self.fresh_of(x);
                                v.insert(x, n);
                            }
                            EdgeKind::Call { ret, callee, args } => {
                                for a in args {
                                    // Arguments must be readable (no pointers).
                                    self.read(a, &v)?;
                                }
                                if let Callee::Defined(h) = callee
                                    && let Some(pre) = self.entry_inv.get(h).cloned()
                                {
                                    // The callee's entry invariant must hold, with its
                                    // parameters bound to the arguments; then the globals
                                    // it may modify and the result are anything.
                                    let g = &prog.functions[h.0 as usize];
                                    let mut at_entry = v.clone();
                                    for (fm, a) in g.formals.iter().zip(args) {
                                        if prog.var(*fm).ty.is_integer() {
                                            let val = cir::wp::convert(
                                                &self.read(a, &v)?,
                                                &prog.var(*fm).ty,
                                            );
                                            at_entry.insert(*fm, val);
                                        }
                                    }
                                    for &l in &self.scalar_vars(&g.locals) {
                                        let n = self.fresh_of(l);
                                        at_entry.insert(l, n);
                                    }
                                    let goal = self.read(&pre, &at_entry)?;
                                    obligations.push((reach.clone(), goal));
                                    summarized.insert(g.name.clone());
                                    for &gv in &globals {
                                        if self.mods[h.0 as usize]
                                            .contains(&cir::pointsto::Loc::Var(gv))
                                        {
                                            let n = self.fresh_of(gv);
                                            v.insert(gv, n);
                                        }
                                    }
                                    if let Some(r) = ret
                                        && prog.var(*r).ty.is_integer()
                                    {
                                        let n = self.fresh_of(*r);
                                        v.insert(*r, n);
                                    }
                                } else if let Callee::Defined(h) = callee {
                                    let g = &prog.functions[h.0 as usize];
                                    for (fm, a) in g.formals.iter().zip(args) {
                                        if !prog.var(*fm).ty.is_integer() {
                                            return unsupported(format!(
                                                "parameter `{}` of {}",
                                                prog.var(*fm).name,
                                                g.name
                                            ));
                                        }
                                        let val =
                                            cir::wp::convert(&self.read(a, &v)?, &prog.var(*fm).ty);
                                        v.insert(*fm, val);
                                    }
                                    // No result until this activation returns one.
                                    if let Some(rv) = self.ret.get(h) {
                                        v.remove(rv);
                                    }
                                    for &l in &self.scalar_vars(&g.locals) {
                                        let n = self.fresh_of(l);
                                        v.insert(l, n);
                                    }
                                } else if let Some(r) = ret
                                    && prog.var(*r).ty.is_integer()
                                {
                                    let n = self.fresh_of(*r);
                                    v.insert(*r, n);
                                }
                            }
                            EdgeKind::Return(val) => {
                                if let (Some(x), Some(rv)) = (val, self.ret.get(&f.id).copied()) {
                                    let x = cir::wp::convert(&self.read(x, &v)?, &f.ty.ret);
                                    v.insert(rv, x);
                                }
                            }
                            _ => {}
                        }
                    }
                }
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
        let prover = cir::smt::Prover::new(&self.ext, sem);
        let n = obligations.len();
        for (reach, goal) in obligations {
            let mut assumptions = constraints.clone();
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
                    if !summarized.is_empty() {
                        // Not a refutation: the encoding over-approximates these calls.
                        let names: Vec<&str> = summarized.iter().map(String::as_str).collect();
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
