//! A static order of the variables for the BDDs: of the globals, of each procedure's locals,
//! and of the frame slots that all procedures share ([`frame_layout`]: the parameters keep
//! the first slots, in their order, but the slots themselves may be placed in any order).
//!
//! BDD sizes depend on the variable order; `g_i = g_{i+n}` for all i is exponential when all
//! `g_i` come before all `g_{i+n}` and linear when the pairs are interleaved. The order is
//! chosen once, before the analysis, with the FORCE heuristic (F. Aloul, I. Markov,
//! K. Sakallah, "FORCE: a fast and easy-to-implement variable-ordering heuristic", GLSVLSI
//! 2003): the variables of a statement (if few), of an assignment's target with its value, and
//! of every small sub-expression form hyperedges; each round moves every variable to the mean
//! centre of its hyperedges and sorts. The declaration order is kept unless FORCE reduces the
//! total span of the hyperedges by a clear margin (programs are often written, or generated,
//! with related variables declared together).
//!
//! Variables are also correlated through control flow: after `assume c; goto L; L: x := e;`
//! (c2bp's form of `if (c) x = e;`), `x` depends on the variables of `c` although no statement
//! mentions both. So a condition (`assume`, `if`, `while`) also forms a hyperedge with the
//! variables of the statements that follow it (through `goto`s and `skip`s). This matters for
//! locals: a predicate abstraction declares its predicates in the order they were found, and
//! on the SV-COMP `locks` tasks with the lock predicates found first the reachable states
//! (`lk_i` set exactly when `p_i` holds) took BDDs 60 times larger (3069 nodes against 50 on
//! one `.bp` of `test_locks_15-2`) than with each lock next to its condition.

use bp_grammar::{Expr, Lhs, Procedure, Program, Stmt, StmtKind};
use std::collections::HashMap;

/// Statements and assignments with more variables than this give no hyperedge of their own.
const MAX_EDGE: usize = 12;
/// Sub-expressions with at most this many variables are hyperedges.
const MAX_ATOM: usize = 4;
/// FORCE rounds.
const ROUNDS: usize = 50;
/// How many `goto`s and `skip`s a control-flow hyperedge follows from a condition.
const FLOW_HOPS: usize = 3;
/// FORCE is used only if it lowers the total span to this fraction of the declaration order's.
const GAIN: f64 = 0.9;

struct Edges<'a> {
    index: &'a HashMap<&'a str, usize>,
    edges: Vec<Vec<usize>>,
}

impl Edges<'_> {
    fn vars_of(&self, e: &Expr, out: &mut Vec<usize>) {
        let mut stack = vec![e];
        while let Some(e) = stack.pop() {
            match e {
                Expr::Var(id) | Expr::Primed(id) => {
                    if let Some(&i) = self.index.get(id.name.as_str())
                        && !out.contains(&i)
                    {
                        out.push(i);
                    }
                }
                Expr::Const(..) | Expr::Nondet(_) => {}
                Expr::Not(a, _) => stack.push(a),
                Expr::Binary(_, a, b, _) | Expr::Schoose(a, b, _) => {
                    stack.push(a);
                    stack.push(b);
                }
            }
        }
    }

    fn push(&mut self, mut vars: Vec<usize>) {
        vars.sort_unstable();
        vars.dedup();
        if vars.len() >= 2 {
            self.edges.push(vars);
        }
    }

    /// The small sub-expressions of `e` (2 to [`MAX_ATOM`] variables; all of them, so that
    /// the smallest groups weigh most), in pre-order (right operand first). The variables of
    /// every sub-expression are found bottom-up in one pass (a sub-expression with more than
    /// `MAX_ATOM` is only marked so): c2bp's expressions are long disjunctions of cubes, and
    /// finding them afresh for each sub-expression cost their size times their depth.
    fn atoms(&mut self, e: &Expr) {
        const NONE: usize = usize::MAX;
        // Pre-order, as a stack pops it: a node, then its right operand's subtree, then its
        // left's; with the positions of each node's operands.
        let mut nodes: Vec<&Expr> = Vec::new();
        let mut kids: Vec<[usize; 2]> = Vec::new();
        let mut stack: Vec<(&Expr, usize, usize)> = vec![(e, NONE, 0)];
        while let Some((x, parent, slot)) = stack.pop() {
            let me = nodes.len();
            nodes.push(x);
            kids.push([NONE; 2]);
            if parent != NONE {
                kids[parent][slot] = me;
            }
            match x {
                Expr::Not(a, _) => stack.push((a, me, 0)),
                Expr::Binary(_, a, b, _) | Expr::Schoose(a, b, _) => {
                    stack.push((a, me, 0));
                    stack.push((b, me, 1));
                }
                _ => {}
            }
        }
        // Each node's variables, sorted (`None`: more than MAX_ATOM); operands come after
        // their node in pre-order, so a backward pass sees them first.
        let mut sets: Vec<Option<Vec<usize>>> = vec![Some(Vec::new()); nodes.len()];
        for i in (0..nodes.len()).rev() {
            let set = match nodes[i] {
                Expr::Var(id) | Expr::Primed(id) => Some(
                    self.index
                        .get(id.name.as_str())
                        .copied()
                        .into_iter()
                        .collect(),
                ),
                Expr::Const(..) | Expr::Nondet(_) => Some(Vec::new()),
                _ => {
                    let mut union: Option<Vec<usize>> = Some(Vec::new());
                    for k in kids[i].into_iter().filter(|&k| k != NONE) {
                        union = match (union, &sets[k]) {
                            (Some(mut u), Some(s)) => {
                                u.extend(s);
                                u.sort_unstable();
                                u.dedup();
                                (u.len() <= MAX_ATOM).then_some(u)
                            }
                            _ => None,
                        };
                    }
                    union
                }
            };
            sets[i] = set;
        }
        for set in sets.into_iter().flatten() {
            if set.len() >= 2 {
                self.push(set);
            }
        }
    }

    /// The variables a statement assigns and the expressions it reads (the conditions only,
    /// for `if`/`while`).
    fn parts<'s>(&self, s: &'s Stmt) -> (Vec<usize>, Vec<&'s Expr>) {
        let lhs_var = |l: &Lhs| match l {
            Lhs::Var(id) => self.index.get(id.name.as_str()).copied(),
            Lhs::Discard(_) => None,
        };
        let mut exprs: Vec<&Expr> = Vec::new();
        let mut targets: Vec<usize> = Vec::new();
        match &s.kind {
            StmtKind::Assign {
                lhs,
                rhs,
                constrain,
            } => {
                targets.extend(lhs.iter().filter_map(lhs_var));
                exprs.extend(rhs.iter());
                exprs.extend(constrain.iter());
            }
            StmtKind::Call { lhs, args, .. } => {
                targets.extend(lhs.iter().filter_map(lhs_var));
                exprs.extend(args.iter());
            }
            StmtKind::Return(es) | StmtKind::Print(es) => exprs.extend(es.iter()),
            StmtKind::If { arms, .. } => exprs.extend(arms.iter().map(|a| &a.cond)),
            StmtKind::While { cond, .. } | StmtKind::Assert(cond) | StmtKind::Assume(cond) => {
                exprs.push(cond)
            }
            StmtKind::Dead(vs) => targets.extend(
                vs.iter()
                    .filter_map(|v| self.index.get(v.name.as_str()).copied()),
            ),
            StmtKind::Skip | StmtKind::Goto(_) => {}
        }
        (targets, exprs)
    }

    /// Every variable a statement assigns or reads (the condition only, for `if`/`while`).
    fn stmt_vars(&self, s: &Stmt, out: &mut Vec<usize>) {
        let (targets, exprs) = self.parts(s);
        for t in targets {
            if !out.contains(&t) {
                out.push(t);
            }
        }
        for e in exprs {
            self.vars_of(e, out);
        }
    }

    /// One statement: all its variables if few, each target with its value, and the small
    /// sub-expressions.
    fn stmt(&mut self, s: &Stmt) {
        if let StmtKind::Assign { lhs, rhs, .. } = &s.kind {
            for (l, e) in lhs.iter().zip(rhs.iter()) {
                let mut vs: Vec<usize> = match l {
                    Lhs::Var(id) => self
                        .index
                        .get(id.name.as_str())
                        .copied()
                        .into_iter()
                        .collect(),
                    Lhs::Discard(_) => Vec::new(),
                };
                self.vars_of(e, &mut vs);
                if vs.len() <= MAX_EDGE {
                    self.push(vs);
                }
            }
        }
        let (targets, exprs) = self.parts(s);
        let mut all = targets;
        for e in &exprs {
            self.vars_of(e, &mut all);
        }
        if all.len() <= MAX_EDGE {
            self.push(all);
        }
        for e in exprs {
            self.atoms(e);
        }
    }
}

impl Edges<'_> {
    /// The hyperedges of a procedure: its `enforce`, its statements and its control flow.
    fn procedure(&mut self, p: &Procedure) {
        if let Some(e) = &p.enforce {
            self.atoms(e);
        }
        for (_, s) in p.stmts_preorder() {
            self.stmt(s);
        }
        self.flow(p);
    }

    /// The control-flow hyperedges of a procedure: the variables of each condition with those
    /// of the statements that may run right after it (see the module doc).
    fn flow(&mut self, p: &Procedure) {
        let stmts = p.stmts_preorder();
        let mut at_label: HashMap<&str, usize> = HashMap::new();
        for (k, (_, s)) in stmts.iter().enumerate() {
            for l in &s.labels {
                at_label.insert(l.name.as_str(), k);
            }
        }
        for (k, (_, s)) in stmts.iter().enumerate() {
            let cond = match &s.kind {
                StmtKind::Assume(c) | StmtKind::While { cond: c, .. } => vec![c],
                StmtKind::If { arms, .. } => arms.iter().map(|a| &a.cond).collect(),
                _ => continue,
            };
            let mut vs = Vec::new();
            for c in cond {
                self.vars_of(c, &mut vs);
            }
            if vs.is_empty() {
                continue;
            }
            // The statements after it, through at most FLOW_HOPS gotos and skips.
            let mut todo: Vec<(usize, usize)> = vec![(k + 1, 0)];
            let mut seen: Vec<usize> = Vec::new();
            while let Some((j, hops)) = todo.pop() {
                if j >= stmts.len() || seen.contains(&j) || hops > FLOW_HOPS {
                    continue;
                }
                seen.push(j);
                match &stmts[j].1.kind {
                    StmtKind::Skip => todo.push((j + 1, hops + 1)),
                    StmtKind::Goto(ls) => {
                        for l in ls {
                            if let Some(&t) = at_label.get(l.name.as_str()) {
                                todo.push((t, hops + 1));
                            }
                        }
                    }
                    _ => {
                        let mut e = vs.clone();
                        self.stmt_vars(stmts[j].1, &mut e);
                        if e.len() <= MAX_EDGE {
                            self.push(e);
                        }
                    }
                }
            }
        }
    }
}

/// The total span of the hyperedges under positions `pos`.
fn span(edges: &[Vec<usize>], pos: &[f64]) -> f64 {
    edges
        .iter()
        .map(|e| {
            let (lo, hi) = e.iter().fold((f64::MAX, f64::MIN), |(lo, hi), v| {
                (lo.min(pos[*v]), hi.max(pos[*v]))
            });
            hi - lo
        })
        .sum()
}

/// The order of the globals: `order[k]` is the declaration index of the global placed k-th.
pub fn global_order(prog: &Program) -> Vec<usize> {
    let names: Vec<&str> = prog.global_vars().map(|g| g.name.as_str()).collect();
    order_of(&names, prog.procs.iter())
}

/// The order of the locals of `p` (not its parameters): `order[k]` is the index, in
/// declaration order, of the local placed k-th.
pub fn local_order(p: &Procedure) -> Vec<usize> {
    order_of(&local_names(p), std::iter::once(p))
}

/// The order of the variables `names` from the hyperedges of the procedures `procs`.
fn order_of<'a>(names: &[&str], procs: impl Iterator<Item = &'a Procedure>) -> Vec<usize> {
    if names.len() < 3 {
        return (0..names.len()).collect();
    }
    let index: HashMap<&str, usize> = names.iter().enumerate().map(|(i, s)| (*s, i)).collect();
    let mut ed = Edges {
        index: &index,
        edges: Vec::new(),
    };
    for p in procs {
        ed.procedure(p);
    }
    force(names.len(), ed.edges)
}

/// Where each procedure's variables live in the frame slots, which all procedures share, and
/// the order of the frame slots.
pub struct FrameLayout {
    /// The frame slots in BDD order: `slot_order[k]` is the slot placed k-th.
    pub slot_order: Vec<u32>,
    /// Per procedure (in program order), the variable in each of its frame slots: its
    /// parameters first, in their order, then its locals.
    pub frames: Vec<Vec<String>>,
}

/// The frame layout of `prog`.
///
/// Parameters keep the first frame slots (the calling convention), but the slots need not
/// come in their own order. The procedure with the largest frame among those with two
/// parameters or more sets the order (`paired_order`), so that a local copied from or to a
/// parameter can sit next to it (c2bp's abstraction of `new_state = s->state` copies every
/// predicate over `s->state`, a parameter, to the same predicate over `new_state`, a local:
/// all parameters before all locals makes that copy exponential). If that order keeps the
/// parameters first, the slots stay in their own order. Every other procedure keeps its
/// locals in their own FORCE order over the free slots, except that a local passed directly
/// as the k-th argument of a call takes slot k, the callee's k-th parameter, when it can:
/// c2bp passes each predicate over a formal through a temporary of the caller, and the
/// binding of the actuals is then a copy between adjacent variables.
pub fn frame_layout(prog: &Program) -> FrameLayout {
    let n_frame = prog
        .procs
        .iter()
        .map(|p| p.frame_vars().count())
        .max()
        .unwrap_or(0);
    let leader = prog
        .procs
        .iter()
        .enumerate()
        .filter(|(_, p)| p.params.len() >= 2)
        .max_by_key(|(i, p)| (p.frame_vars().count(), std::cmp::Reverse(*i)))
        .map(|(i, _)| i);
    let mut slot_order: Vec<u32> = (0..n_frame as u32).collect();
    let mut leader_frame = None;
    if let Some(d) = leader {
        let p = &prog.procs[d];
        let n_params = p.params.len();
        let names = frame_names(p);
        let joint = paired_order(p);
        // Parameters keep slots 0..n; the locals take the next slots in their joint order.
        let mut slot_of = vec![0u32; names.len()];
        let mut next = n_params as u32;
        for &v in &joint {
            if v < n_params {
                slot_of[v] = v as u32;
            } else {
                slot_of[v] = next;
                next += 1;
            }
        }
        let order: Vec<u32> = joint.iter().map(|&v| slot_of[v]).collect();
        let interleaved = order.iter().take(n_params).any(|&s| s as usize >= n_params);
        if interleaved {
            slot_order = order;
            slot_order.extend(names.len() as u32..n_frame as u32);
            let mut frame: Vec<String> = vec![String::new(); names.len()];
            for (v, name) in names.iter().enumerate() {
                frame[slot_of[v] as usize] = name.to_string();
            }
            leader_frame = Some((d, frame));
        }
    }
    let mut rank = vec![0usize; n_frame];
    for (k, &s) in slot_order.iter().enumerate() {
        rank[s as usize] = k;
    }
    let mut frames: Vec<Vec<String>> = prog
        .procs
        .iter()
        .enumerate()
        .map(|(i, p)| match &leader_frame {
            Some((d, _)) if *d == i => Vec::new(),
            _ => aligned_frame(p, &rank),
        })
        .collect();
    if let Some((d, frame)) = leader_frame {
        frames[d] = frame;
    }
    FrameLayout { slot_order, frames }
}

/// The parameters and locals of `p` (indices into parameters then locals) in their joint
/// FORCE order, except that each local copied to or from a parameter (`x := y` or
/// `x := !y`, one a parameter and the other a local) comes right after the parameter it is
/// copied with most often. FORCE alone does not pair them: the `enforce` that keeps each
/// group's states apart ties every group together with many more hyperedges than the
/// copies that relate the two.
fn paired_order(p: &Procedure) -> Vec<usize> {
    let n_params = p.params.len();
    let locals = local_names(p);
    let param: HashMap<&str, usize> = p
        .params
        .iter()
        .enumerate()
        .map(|(i, v)| (v.name.as_str(), i))
        .collect();
    let local: HashMap<&str, usize> = locals.iter().enumerate().map(|(i, n)| (*n, i)).collect();
    let mut copies: HashMap<(usize, usize), u32> = HashMap::new();
    for (_, s) in p.stmts_preorder() {
        let StmtKind::Assign { lhs, rhs, .. } = &s.kind else {
            continue;
        };
        for (l, e) in lhs.iter().zip(rhs.iter()) {
            let Lhs::Var(x) = l else { continue };
            let y = match e {
                Expr::Var(y) => y,
                Expr::Not(a, _) => match a.as_ref() {
                    Expr::Var(y) => y,
                    _ => continue,
                },
                _ => continue,
            };
            let (x, y) = (x.name.as_str(), y.name.as_str());
            let pair = match (param.get(x), local.get(y), local.get(x), param.get(y)) {
                (Some(&a), Some(&b), _, _) | (_, _, Some(&b), Some(&a)) => (a, b),
                _ => continue,
            };
            *copies.entry(pair).or_default() += 1;
        }
    }
    // Each local's partner: the parameter it is copied with most often (the first on ties).
    let mut partner: Vec<Option<(u32, usize)>> = vec![None; locals.len()];
    let mut pairs: Vec<_> = copies.into_iter().collect();
    pairs.sort_unstable();
    for ((a, b), n) in pairs {
        if partner[b].is_none_or(|(m, _)| n > m) {
            partner[b] = Some((n, a));
        }
    }
    let joint = order_of(&frame_names(p), std::iter::once(p));
    let mut out = Vec::with_capacity(joint.len());
    for &v in &joint {
        if v < n_params {
            out.push(v);
            out.extend(
                joint.iter().filter(|&&b| {
                    b >= n_params && partner[b - n_params].is_some_and(|(_, x)| x == v)
                }),
            );
        } else if partner[v - n_params].is_none() {
            out.push(v);
        }
    }
    out
}

/// The frame of `p`: parameters first, then the locals, each passed directly as a call's
/// k-th argument in slot k when that slot is free, and the others in their FORCE order over
/// the remaining slots taken by `rank` (a slot's place in the order).
fn aligned_frame(p: &Procedure, rank: &[usize]) -> Vec<String> {
    let n_params = p.params.len();
    let locals = local_names(p);
    let size = n_params + locals.len();
    let index: HashMap<&str, usize> = locals.iter().enumerate().map(|(i, n)| (*n, i)).collect();
    let mut slot_of: Vec<Option<usize>> = vec![None; locals.len()];
    let mut taken = vec![false; size];
    taken[..n_params].fill(true);
    for (_, s) in p.stmts_preorder() {
        let StmtKind::Call { args, .. } = &s.kind else {
            continue;
        };
        for (k, a) in args.iter().enumerate() {
            if let Expr::Var(id) = a
                && let Some(&l) = index.get(id.name.as_str())
                && k < size
                && !taken[k]
                && slot_of[l].is_none()
            {
                taken[k] = true;
                slot_of[l] = Some(k);
            }
        }
    }
    let mut free: Vec<usize> = (n_params..size).filter(|&k| !taken[k]).collect();
    // (`rank` has every frame slot: no procedure's frame is larger than the largest.)
    free.sort_by_key(|&k| rank[k]);
    // As many free slots as locals without one: each takes the next in the order.
    let mut free = free.into_iter();
    let mut frame: Vec<String> = p.params.iter().map(|v| v.name.clone()).collect();
    frame.resize(size, String::new());
    for l in local_order(p) {
        if let Some(k) = slot_of[l].or_else(|| free.next()) {
            frame[k] = locals[l].to_string();
        }
    }
    frame
}

/// The parameters and then the locals of `p`, in declaration order.
fn frame_names(p: &Procedure) -> Vec<&str> {
    p.frame_vars().map(|v| v.name.as_str()).collect()
}

/// The locals of `p` (not its parameters), in declaration order.
pub fn local_names(p: &Procedure) -> Vec<&str> {
    p.locals
        .iter()
        .flat_map(|d| d.vars.iter())
        .map(|v| v.name.as_str())
        .collect()
}

thread_local! {
    /// Whether [`force`] uses [`FORCE_MEMO`] on this thread ([`remembering`]).
    static REMEMBER: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Runs `f` with FORCE's orders remembered (and looked up) on this thread when `on`: for the
/// refinement loop's lowerings, whose procedures mostly did not change since the last one; a
/// one-off lowering gains nothing from it and would only hold the memory.
pub fn remembering<R>(on: bool, f: impl FnOnce() -> R) -> R {
    /// Puts the flag back as it was, also when `f` unwinds.
    struct Restore(bool);
    impl Drop for Restore {
        fn drop(&mut self) {
            REMEMBER.set(self.0);
        }
    }
    let _restore = Restore(REMEMBER.replace(on));
    f()
}

/// Orders already found by [`force`], by its arguments. The refinement loop lowers one
/// program after another in which most procedures (and often the globals' hyperedges) are
/// unchanged; FORCE is a pure function of its arguments, so a remembered order is the one it
/// would find again. Emptied when it holds [`FORCE_MEMO_EDGES`] hyperedges; a call with more
/// than an eighth of that is not remembered.
static FORCE_MEMO: std::sync::Mutex<Option<ForceMemo>> = std::sync::Mutex::new(None);

/// The orders of [`FORCE_MEMO`], by the number of variables and the hyperedges flattened
/// (each edge's length, then its variables: one allocation per key), and the number of
/// hyperedges its keys hold.
type ForceMemo = (
    HashMap<Vec<usize>, Vec<usize>, foldhash::fast::FixedState>,
    usize,
);

/// At most this many hyperedges in the keys of [`FORCE_MEMO`] (about 1 MB).
const FORCE_MEMO_EDGES: usize = 1 << 15;

/// FORCE over `n` variables (declaration order `0..n`) and the hyperedges `edges`: the order
/// found, or the declaration order unless FORCE shortens the total span by the margin `GAIN`;
/// remembered ([`FORCE_MEMO`]).
fn force(n: usize, edges: Vec<Vec<usize>>) -> Vec<usize> {
    // A program far larger than the memo is lowered once, not refined: not worth holding.
    if !REMEMBER.get() || edges.len() > FORCE_MEMO_EDGES / 8 {
        return force_afresh(n, &edges);
    }
    let mut key = Vec::with_capacity(1 + edges.iter().map(|e| 1 + e.len()).sum::<usize>());
    key.push(n);
    for e in &edges {
        key.push(e.len());
        key.extend(e);
    }
    if let Ok(memo) = FORCE_MEMO.lock()
        && let Some((orders, _)) = memo.as_ref()
        && let Some(order) = orders.get(&key)
    {
        return order.clone();
    }
    let order = force_afresh(n, &edges);
    if let Ok(mut memo) = FORCE_MEMO.lock() {
        let (orders, held) = memo.get_or_insert_with(Default::default);
        if *held + edges.len() > FORCE_MEMO_EDGES {
            orders.clear();
            *held = 0;
        }
        *held += edges.len();
        orders.insert(key, order.clone());
    }
    order
}

/// [`force`] itself.
fn force_afresh(n: usize, edges: &[Vec<usize>]) -> Vec<usize> {
    let identity: Vec<usize> = (0..n).collect();
    if edges.is_empty() {
        return identity;
    }
    let mut member: Vec<Vec<usize>> = vec![Vec::new(); n];
    for (i, e) in edges.iter().enumerate() {
        for v in e {
            member[*v].push(i);
        }
    }
    let declared: Vec<f64> = (0..n).map(|i| i as f64).collect();
    let base = span(edges, &declared);
    let mut pos = declared.clone();
    let mut best = (base, identity.clone());
    for _ in 0..ROUNDS {
        let centre: Vec<f64> = edges
            .iter()
            .map(|e| e.iter().map(|v| pos[*v]).sum::<f64>() / e.len() as f64)
            .collect();
        let target: Vec<f64> = (0..n)
            .map(|v| {
                if member[v].is_empty() {
                    pos[v]
                } else {
                    member[v].iter().map(|e| centre[*e]).sum::<f64>() / member[v].len() as f64
                }
            })
            .collect();
        let mut order: Vec<usize> = (0..n).collect();
        order.sort_by(|a, b| {
            target[*a]
                .total_cmp(&target[*b])
                .then(pos[*a].total_cmp(&pos[*b]))
        });
        for (k, v) in order.iter().enumerate() {
            pos[*v] = k as f64;
        }
        let s = span(edges, &pos);
        if s < best.0 {
            best = (s, order);
        } else if s > best.0 * 1.5 {
            break;
        }
    }
    if best.0 <= base * GAIN {
        best.1
    } else {
        identity
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The hyperedges of sub-expressions as first defined: each sub-expression's variables
    /// found afresh, in the order a stack visits them.
    fn atoms_afresh(edges: &mut Edges<'_>, e: &Expr) {
        let mut stack = vec![e];
        while let Some(e) = stack.pop() {
            let mut vs = Vec::new();
            edges.vars_of(e, &mut vs);
            if vs.len() < 2 {
                continue;
            }
            if vs.len() <= MAX_ATOM {
                edges.push(vs);
            }
            match e {
                Expr::Not(a, _) => stack.push(a),
                Expr::Binary(_, a, b, _) | Expr::Schoose(a, b, _) => {
                    stack.push(a);
                    stack.push(b);
                }
                _ => {}
            }
        }
    }

    /// A remembered order is the one FORCE finds afresh, for the same hyperedges over another
    /// number of variables too, and after the memo was emptied.
    #[test]
    fn remembered_orders_are_those_found_afresh() {
        let mut rng = bp_testkit::prng::SplitMix64::new(9);
        let mut cases: Vec<(usize, Vec<Vec<usize>>)> = Vec::new();
        for _ in 0..40 {
            let n = 3 + rng.below(8);
            let edges: Vec<Vec<usize>> = (0..1 + rng.below(12))
                .map(|_| (0..2 + rng.below(2)).map(|_| rng.below(n)).collect())
                .collect();
            cases.push((n + 2, edges.clone()));
            cases.push((n, edges));
        }
        remembering(true, || {
            for round in 0..3 {
                for (n, edges) in &cases {
                    let afresh = force_afresh(*n, edges);
                    assert_eq!(
                        force(*n, edges.clone()),
                        afresh,
                        "round {round}: {n} {edges:?}"
                    );
                }
                if round == 1
                    && let Ok(mut memo) = FORCE_MEMO.lock()
                {
                    *memo = None;
                }
            }
        });
    }

    #[test]
    fn atoms_in_one_pass_are_those_found_afresh() {
        let mut rng = bp_testkit::prng::SplitMix64::new(3);
        let names = ["a", "b", "c", "d", "e", "f"];
        fn random(rng: &mut bp_testkit::prng::SplitMix64, names: &[&str], depth: u32) -> String {
            if depth == 0 || rng.below(4) == 0 {
                return match rng.below(8) {
                    0 => "T".to_string(),
                    1 => "*".to_string(),
                    _ => names[rng.below(names.len())].to_string(),
                };
            }
            let (l, r) = (random(rng, names, depth - 1), random(rng, names, depth - 1));
            match rng.below(4) {
                0 => format!("!{l}"),
                1 => format!("schoose[{l}, {r}]"),
                2 => format!("({l} & {r})"),
                _ => format!("({l} ^ {r})"),
            }
        }
        let index: HashMap<&str, usize> = names.iter().enumerate().map(|(i, n)| (*n, i)).collect();
        for _ in 0..300 {
            let text = random(&mut rng, &names, 6);
            let src = format!(
                "decl {}; void main() begin a := {text}; end",
                names.join(", ")
            );
            let prog = bp_grammar::parse(&src).expect("parses");
            let StmtKind::Assign { rhs, .. } = &prog.procs[0].body[0].kind else {
                panic!("an assignment");
            };
            let (mut once, mut afresh) = (
                Edges {
                    index: &index,
                    edges: Vec::new(),
                },
                Edges {
                    index: &index,
                    edges: Vec::new(),
                },
            );
            once.atoms(&rhs[0]);
            atoms_afresh(&mut afresh, &rhs[0]);
            assert_eq!(once.edges, afresh.edges, "{text}");
        }
    }

    #[test]
    fn pairs_are_interleaved() {
        // The shape of the benchmark family `order`: g_i is paired with g_{i+8}.
        let n = 8;
        let g = |i: usize| format!("g{i}");
        let pairs: Vec<String> = (0..n)
            .map(|i| format!("({} = {})", g(i), g(i + n)))
            .collect();
        let decl: Vec<String> = (0..2 * n).map(g).collect();
        let mut body = format!("assume({});\n", pairs.join(" & "));
        for i in 0..n {
            let j = (i + 3) % n;
            body.push_str(&format!(
                "{}, {} := ({} ^ {}), ({} ^ {});\n",
                g(i),
                g(i + n),
                g(i),
                g(j),
                g(i + n),
                g(j + n)
            ));
        }
        let src = format!("decl {}; void main() begin {body} end", decl.join(", "));
        let prog = bp_grammar::parse(&src).expect("parses");
        let order = global_order(&prog);
        let pos = |v: usize| order.iter().position(|x| *x == v).expect("placed");
        for i in 0..n {
            // Close enough for the BDD of all pair equalities to stay narrow.
            assert!(
                pos(i).abs_diff(pos(i + n)) <= 3,
                "g{i} near g{}: {order:?}",
                i + n
            );
        }
    }

    #[test]
    fn locals_set_under_a_condition_are_placed_next_to_it() {
        // c2bp's form of `if (p_i) l_i = 1;` with the `l_i` declared first (the locks tasks
        // with the lock predicates found before the conditions).
        let n = 8;
        let mut decl: Vec<String> = (0..n).map(|i| format!("l{i}")).collect();
        decl.extend((0..n).map(|i| format!("p{i}")));
        let mut body = String::new();
        for i in 0..n {
            body.push_str(&format!(
                "goto A{i}, B{i}; A{i}: assume p{i}; goto S{i}; B{i}: assume !p{i}; goto J{i}; \
                 S{i}: l{i} := F; J{i}: skip;\n"
            ));
        }
        let src = format!("void main() begin decl {}; {body} end", decl.join(", "));
        let prog = bp_grammar::parse(&src).expect("parses");
        let order = local_order(&prog.procs[0]);
        let pos = |v: usize| order.iter().position(|x| *x == v).expect("placed");
        for i in 0..n {
            assert!(
                pos(i).abs_diff(pos(i + n)) <= 2,
                "l{i} near p{i}: {order:?}"
            );
        }
    }

    #[test]
    fn without_copies_between_parameters_and_locals_the_slots_keep_their_order() {
        let src = "void main() begin decl c, b, a; a, b, c := f(a, b); end
            bool<3> f(x, y) begin decl u, v; u := x & y; v := u; return u, v, x; end";
        let prog = bp_grammar::parse(src).expect("parses");
        let layout = frame_layout(&prog);
        assert_eq!(layout.slot_order, vec![0, 1, 2, 3]);
        // main's `a` and `b` are f's first two actuals: slots 0 and 1.
        assert_eq!(layout.frames[0], vec!["a", "b", "c"]);
        assert_eq!(layout.frames[1], vec!["x", "y", "u", "v"]);
    }

    #[test]
    fn a_local_copied_from_a_parameter_follows_it() {
        let src = "void main() begin decl a, b, c; a, b, c := f(a, b, c); end
            bool<3> f(x, y, z) begin decl u, v, w; w, v, u := z, y, x; x, y, z := u, v, w;
              return x, y, z; end";
        let prog = bp_grammar::parse(src).expect("parses");
        let layout = frame_layout(&prog);
        // f's frame: x y z in slots 0-2, then its locals; each local right after its partner.
        let f = &layout.frames[1];
        let slot = |n: &str| f.iter().position(|x| x == n).expect("in the frame") as u32;
        let at = |n: &str| {
            let s = slot(n);
            layout
                .slot_order
                .iter()
                .position(|x| *x == s)
                .expect("placed")
        };
        for (p, l) in [("x", "u"), ("y", "v"), ("z", "w")] {
            assert_eq!(
                at(l),
                at(p) + 1,
                "{l} right after {p}: {:?}",
                layout.slot_order
            );
        }
    }

    #[test]
    fn a_good_declaration_order_is_kept() {
        let src = "decl a, b, c, d, e, f;
            void main() begin a, b := b, a; c, d := d, c; e, f := f, e; end";
        let prog = bp_grammar::parse(src).expect("parses");
        assert_eq!(global_order(&prog), vec![0, 1, 2, 3, 4, 5]);
    }
}
