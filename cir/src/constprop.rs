//! Interprocedural constant propagation of global integer variables: a read of a global is
//! replaced by a constant where every execution reaching that point holds that value there.
//!
//! Device-driver harnesses (SV-COMP's `ntdrivers`) encode an enumeration as global variables
//! that one initialisation function sets once (`NP = 1; DC = 2; SKIP1 = 3; …`) and everything
//! else compares against (`if (s == NP)`). Read as variables, these make every predicate about
//! the state `s` depend on eight more variables: c2bp searches cubes over all of them
//! (`NP != SKIP2` is a question it has to ask) and newton spends refinement iterations learning
//! that the constants differ. With the reads replaced, `s == NP` is `s == 1`, and the weakest
//! precondition of `s == NP` over `s = SKIP1` is `3 == 1`, decided without a prover. SLAM ran on
//! code that CIL had already simplified this way; Kildall's constant propagation (POPL'73) over
//! the flat lattice, with procedure summaries in the style of Sharir and Pnueli's functional
//! approach (1981), context-insensitive.
//!
//! # What is propagated
//! Global storage of integer type whose address is never taken (no `&g` anywhere, so no write
//! through a pointer and no external function can change it: the C semantics of [`crate::interp`]
//! lets an external function modify only what its arguments point to). Its value is known after
//! `g = c` with a constant `c` in `g`'s range (or a read of another known global), and at the
//! start from its initialiser (zero without one). Nothing is learnt from conditions.
//!
//! # Interprocedural rules
//! - The state at a function's entry is the join of the states at its call sites (for `main`,
//!   also the initial state). A function whose address is taken may be called through a pointer
//!   from anywhere: its entry state knows nothing.
//! - After a call of a defined function, a global the callee may modify (its transitive mod set,
//!   calls through pointers counting as calls of every function whose address is taken) has the
//!   value it has at the callee's exit, joined over all contexts; a global the callee cannot
//!   modify keeps the caller's value. External functions and nondet intrinsics modify no
//!   tracked global.
//! - A node no execution reaches (in this over-approximation) is left as it is.
//!
//! The rewrite preserves the program's semantics exactly (the same executions, the same values),
//! so every tool — c2bp, newton, the concrete interpreter, the witness checkers — works on the
//! rewritten program and its answers hold for the program as written. Writes are kept: `g`
//! stays a variable, only reads of a known value become constants.

use std::collections::{BTreeSet, HashMap};

use crate::ir::{Callee, EdgeKind, Expr, ExprKind, FuncId, Program, UnOp, VarId};
use crate::types::CType;

/// A value per tracked global: `Some(c)` known to be `c`, `None` unknown.
type State = Vec<Option<i128>>;

/// What the rewrite did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Report {
    /// The globals considered (integer type, address never taken).
    pub tracked: usize,
    /// Reads replaced by a constant.
    pub replaced: usize,
}

fn join(into: &mut Option<State>, from: &State) -> bool {
    match into {
        None => {
            *into = Some(from.clone());
            true
        }
        Some(s) => {
            let mut changed = false;
            for (a, b) in s.iter_mut().zip(from) {
                if a.is_some() && *a != *b {
                    *a = None;
                    changed = true;
                }
            }
            changed
        }
    }
}

/// The analysis of one program.
struct Analysis<'p> {
    prog: &'p Program,
    /// Tracked global → its index in a [`State`].
    index: HashMap<VarId, usize>,
    /// Per function: the tracked globals it may modify, transitively.
    mods: Vec<BTreeSet<usize>>,
    /// Functions whose address is taken (callable through pointers).
    address_taken: BTreeSet<FuncId>,
    entry: Vec<Option<State>>,
    exit: Vec<Option<State>>,
    /// Per function, per node: the state (after the fixpoint).
    nodes: Vec<Vec<Option<State>>>,
}

/// The value of `e` if it is a constant within the range of `ty` (so assigning it to a variable
/// of that type converts nothing).
fn constant_in(prog: &Program, e: &Expr, ty: &CType) -> Option<i128> {
    let fits = |v: i128, t: &CType| match t {
        CType::Int(k) => {
            let (lo, hi) = k.range(prog.data_model);
            lo <= v && v <= hi
        }
        _ => false,
    };
    let v = match &e.kind {
        ExprKind::Const(c) => *c,
        ExprKind::Unary(UnOp::Neg, a) => match a.kind {
            ExprKind::Const(c) if a.ty == e.ty => c.checked_neg()?,
            _ => return None,
        },
        _ => return None,
    };
    // Within the expression's own type (its value is `v`, no wrap-around) and the target's.
    (fits(v, &e.ty) && fits(v, ty)).then_some(v)
}

impl<'p> Analysis<'p> {
    fn new(prog: &'p Program) -> Analysis<'p> {
        let mut addr: BTreeSet<VarId> = BTreeSet::new();
        let mut funcs_taken: BTreeSet<String> = BTreeSet::new();
        let mut note = |e: &Expr| {
            e.walk(&mut |x| match &x.kind {
                ExprKind::AddrOf(a) => {
                    a.walk(&mut |y| {
                        if let ExprKind::Var(v) = y.kind {
                            addr.insert(v);
                        }
                    });
                }
                ExprKind::Func(n) => {
                    funcs_taken.insert(n.clone());
                }
                _ => {}
            })
        };
        for g in &prog.global_inits {
            note(&g.lhs);
            if let Some(v) = &g.value {
                note(v);
            }
        }
        for f in &prog.functions {
            for e in &f.edges {
                for x in e.kind.exprs() {
                    note(x);
                }
            }
        }
        let mut index = HashMap::new();
        for &g in &prog.globals {
            let v = prog.var(g);
            if matches!(v.ty, CType::Int(_)) && !addr.contains(&g) {
                let k = index.len();
                index.insert(g, k);
            }
        }
        let address_taken: BTreeSet<FuncId> = prog
            .functions
            .iter()
            .filter(|f| funcs_taken.contains(&f.name))
            .map(|f| f.id)
            .collect();
        let n = prog.functions.len();
        let mut a = Analysis {
            prog,
            index,
            mods: vec![BTreeSet::new(); n],
            address_taken,
            entry: vec![None; n],
            exit: vec![None; n],
            nodes: prog
                .functions
                .iter()
                .map(|f| vec![None; f.nodes as usize])
                .collect(),
        };
        a.mods = a.mod_sets();
        a
    }

    /// The tracked global an lvalue is, if it is one.
    fn tracked(&self, lhs: &Expr) -> Option<usize> {
        match lhs.kind {
            ExprKind::Var(v) => self.index.get(&v).copied(),
            _ => None,
        }
    }

    /// The defined functions a call may enter.
    fn targets(&self, callee: &Callee) -> Vec<FuncId> {
        match callee {
            Callee::Defined(f) => vec![*f],
            Callee::Indirect(_) => self.address_taken.iter().copied().collect(),
            Callee::Nondet(_) | Callee::External(_) => Vec::new(),
        }
    }

    fn mod_sets(&self) -> Vec<BTreeSet<usize>> {
        let mut mods: Vec<BTreeSet<usize>> = self
            .prog
            .functions
            .iter()
            .map(|f| {
                let mut m = BTreeSet::new();
                for e in &f.edges {
                    match &e.kind {
                        EdgeKind::Assign { lhs, .. } | EdgeKind::Havoc { lhs, .. } => {
                            m.extend(self.tracked(lhs));
                        }
                        EdgeKind::Call { ret: Some(r), .. } => {
                            m.extend(self.index.get(r).copied());
                        }
                        _ => {}
                    }
                }
                m
            })
            .collect();
        let calls: Vec<BTreeSet<FuncId>> = self
            .prog
            .functions
            .iter()
            .map(|f| {
                f.edges
                    .iter()
                    .filter_map(|e| match &e.kind {
                        EdgeKind::Call { callee, .. } => Some(self.targets(callee)),
                        _ => None,
                    })
                    .flatten()
                    .collect()
            })
            .collect();
        let mut changed = true;
        while changed {
            changed = false;
            for f in 0..mods.len() {
                for g in &calls[f] {
                    let add: Vec<usize> =
                        mods[g.0 as usize].difference(&mods[f]).copied().collect();
                    if !add.is_empty() {
                        mods[f].extend(add);
                        changed = true;
                    }
                }
            }
        }
        mods
    }

    /// The initial state: initialisers, zero for globals without one.
    fn initial(&self) -> State {
        let mut s: State = vec![Some(0); self.index.len()];
        for g in &self.prog.global_inits {
            let Some(k) = self.tracked(&g.lhs) else {
                continue;
            };
            s[k] = g
                .value
                .as_ref()
                .and_then(|v| constant_in(self.prog, v, &g.lhs.ty));
        }
        s
    }

    /// `e` with every read of a tracked global known in `st` replaced by its value; counts the
    /// replacements.
    fn substitute(&self, e: &Expr, st: &State, count: &mut usize) -> Expr {
        e.map_bottom_up(&mut |x| match x.kind {
            ExprKind::Var(v) => match self.index.get(&v).and_then(|&k| st[k]) {
                Some(c) => {
                    *count += 1;
                    Expr::int(c, x.ty)
                }
                None => x,
            },
            _ => x,
        })
    }

    /// An lvalue with the reads inside it replaced (the variable written stays).
    fn substitute_lvalue(&self, lv: &Expr, st: &State, count: &mut usize) -> Expr {
        match &lv.kind {
            ExprKind::Var(_) => lv.clone(),
            ExprKind::Field(b, n) => Expr {
                kind: ExprKind::Field(Box::new(self.substitute_lvalue(b, st, count)), n.clone()),
                ty: lv.ty.clone(),
            },
            ExprKind::Index(a, i) if matches!(a.ty, CType::Array(..)) => Expr {
                kind: ExprKind::Index(
                    Box::new(self.substitute_lvalue(a, st, count)),
                    Box::new(self.substitute(i, st, count)),
                ),
                ty: lv.ty.clone(),
            },
            _ => self.substitute(lv, st, count),
        }
    }

    /// The state after an edge (`None`: nothing continues, or the callee has not returned yet).
    fn transfer(&mut self, kind: &EdgeKind, st: &State) -> Option<State> {
        match kind {
            EdgeKind::Assign { lhs, rhs } => {
                let mut out = st.clone();
                if let Some(k) = self.tracked(lhs) {
                    let mut n = 0;
                    let v = self.substitute(rhs, st, &mut n);
                    out[k] = constant_in(self.prog, &v, &lhs.ty);
                }
                Some(out)
            }
            EdgeKind::Havoc { lhs, .. } => {
                let mut out = st.clone();
                if let Some(k) = self.tracked(lhs) {
                    out[k] = None;
                }
                Some(out)
            }
            EdgeKind::Call { ret, callee, .. } => {
                let targets = self.targets(callee);
                for g in &targets {
                    join(&mut self.entry[g.0 as usize], st);
                }
                // The state after the call: the join over the possible callees; code without a
                // body (an external function, or one a pointer may designate) keeps the state.
                let mut after: Option<State> =
                    (!matches!(callee, Callee::Defined(_))).then(|| st.clone());
                for g in targets {
                    let gi = g.0 as usize;
                    let Some(ex) = &self.exit[gi] else {
                        continue;
                    };
                    let mut s = st.clone();
                    for &k in &self.mods[gi] {
                        s[k] = ex[k];
                    }
                    join(&mut after, &s);
                }
                let mut after = after?;
                if let Some(k) = ret.and_then(|r| self.index.get(&r).copied()) {
                    after[k] = None;
                }
                Some(after)
            }
            EdgeKind::Assume(_) | EdgeKind::Return(_) | EdgeKind::Skip => Some(st.clone()),
            EdgeKind::Error { .. } | EdgeKind::Halt { .. } => None,
        }
    }

    /// One pass over a function from its entry state; whether its exit state changed.
    fn run_function(&mut self, fi: usize) -> bool {
        let prog = self.prog;
        let f = &prog.functions[fi];
        let Some(start) = self.entry[fi].clone() else {
            return false;
        };
        let mut states: Vec<Option<State>> = vec![None; f.nodes as usize];
        states[f.entry.0 as usize] = Some(start);
        let mut out_edges: Vec<Vec<usize>> = vec![Vec::new(); f.nodes as usize];
        for (k, e) in f.edges.iter().enumerate() {
            out_edges[e.from.0 as usize].push(k);
        }
        let mut work: Vec<usize> = vec![f.entry.0 as usize];
        let mut queued = vec![false; f.nodes as usize];
        queued[f.entry.0 as usize] = true;
        while let Some(n) = work.pop() {
            queued[n] = false;
            let Some(st) = states[n].clone() else {
                continue;
            };
            for &k in &out_edges[n] {
                let e = &f.edges[k];
                let Some(next) = self.transfer(&e.kind, &st) else {
                    continue;
                };
                let to = e.to.0 as usize;
                if join(&mut states[to], &next) && !queued[to] {
                    queued[to] = true;
                    work.push(to);
                }
            }
        }
        let exit = states[f.exit.0 as usize].clone();
        self.nodes[fi] = states;
        let changed = exit != self.exit[fi];
        self.exit[fi] = exit;
        changed
    }

    fn solve(&mut self) {
        let n = self.prog.functions.len();
        let top: State = vec![None; self.index.len()];
        if let Some(m) = self.prog.function("main") {
            let init = self.initial();
            join(&mut self.entry[m.id.0 as usize], &init);
        }
        for &f in &self.address_taken.clone() {
            join(&mut self.entry[f.0 as usize], &top);
        }
        loop {
            let before = self.entry.clone();
            let mut changed = false;
            for fi in 0..n {
                changed |= self.run_function(fi);
            }
            if !changed && before == self.entry {
                break;
            }
        }
    }
}

/// Replaces reads of global integer variables by their values where they are constant (module
/// doc), in place.
pub fn propagate(prog: &mut Program) -> Report {
    let mut a = Analysis::new(prog);
    if a.index.is_empty() {
        return Report::default();
    }
    a.solve();
    let mut replaced = 0;
    let mut new_kinds: Vec<Vec<Option<EdgeKind>>> = Vec::new();
    for (fi, f) in prog.functions.iter().enumerate() {
        let mut kinds = Vec::with_capacity(f.edges.len());
        for e in &f.edges {
            let Some(st) = &a.nodes[fi][e.from.0 as usize] else {
                kinds.push(None);
                continue;
            };
            if st.iter().all(Option::is_none) {
                kinds.push(None);
                continue;
            }
            let mut n = 0;
            let k = match &e.kind {
                EdgeKind::Assign { lhs, rhs } => EdgeKind::Assign {
                    lhs: a.substitute_lvalue(lhs, st, &mut n),
                    rhs: a.substitute(rhs, st, &mut n),
                },
                EdgeKind::Havoc {
                    lhs,
                    reason,
                    approximation,
                } => EdgeKind::Havoc {
                    lhs: a.substitute_lvalue(lhs, st, &mut n),
                    reason: reason.clone(),
                    approximation: *approximation,
                },
                EdgeKind::Assume(c) => EdgeKind::Assume(a.substitute(c, st, &mut n)),
                EdgeKind::Call { ret, callee, args } => EdgeKind::Call {
                    ret: *ret,
                    callee: match callee {
                        Callee::Indirect(x) => Callee::Indirect(a.substitute(x, st, &mut n)),
                        c => c.clone(),
                    },
                    args: args.iter().map(|x| a.substitute(x, st, &mut n)).collect(),
                },
                EdgeKind::Return(Some(x)) => EdgeKind::Return(Some(a.substitute(x, st, &mut n))),
                _ => {
                    kinds.push(None);
                    continue;
                }
            };
            replaced += n;
            kinds.push((n > 0).then_some(k));
        }
        new_kinds.push(kinds);
    }
    let tracked = a.index.len();
    for (f, kinds) in prog.functions.iter_mut().zip(new_kinds) {
        for (e, k) in f.edges.iter_mut().zip(kinds) {
            if let Some(k) = k {
                e.kind = k;
            }
        }
    }
    Report { tracked, replaced }
}
