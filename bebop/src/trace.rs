//! Witness extraction: a fully expanded, hierarchical error trace (Ball & Rajamani, Bebop,
//! SPIN 2000 §4; `bp-language.md` §3.1 "Traces").
//!
//! The engine stores the path edges of every node as *layers*: the states found by worklist
//! iteration `k` carry the stamp `k` (initial states 0), and a state of stamp `k` was derived
//! from states of smaller stamps. That makes a backward search terminate and succeed:
//!
//! 1. pick a concrete bad state (entry context `e`, current valuation `ω`) from the layer of
//!    the error node where the error was found (values: `false` where free);
//! 2. walk backwards inside the procedure: at a node reached with stamp `k`, find, over the
//!    incoming edges, the earliest-stamped predecessor state (stamp `< k`, same context) whose
//!    transfer relation leads to `ω` (a concrete pre-image under the BDD relation, computed by
//!    cofactoring with the known values); preferring early stamps keeps traces short;
//! 3. when the incoming edge is a call (the node is a return point), pick the caller's state at
//!    the call node and the callee's exit state (both stamped `< k`) that the summary joined,
//!    and expand the call at once: walk backwards inside the callee from its exit with its
//!    context fixed, down to its entry; this yields the `call` step, the callee's steps and
//!    the `return` step (Bebop's expansion of a summary into a full subtrace);
//! 4. at the entry of the procedure, in a state that is the context itself (globals and
//!    parameters as at the call, locals arbitrary), stop; if the procedure is not `main`, find
//!    a call site whose earlier states call it with this context, emit the `call` step and
//!    continue in the caller.
//!
//! "Earliest stamp below `k`" is found in `O(log layers)` unions with a Fenwick tree of the
//! node's layers, built on first use. The trace is then reversed and the depths are fixed so
//! that `main` is at depth 0.
//!
//! # JSON form (`--trace-json FILE`)
//!
//! `serde_json` of [`bp_grammar::trace::Trace`] (field documentation in
//! `bp-grammar/src/trace.rs`):
//!
//! ```text
//! { "format": "bebop-trace/1", "program": "file.bp", "header": [[key, value], ...],
//!   "target": {"kind": "assert", "proc": "main", "stmt": 7}
//!           | {"kind": "label", "label": "SLIC_ERROR", "proc": "f", "stmt": 3},
//!   "steps": [ { "kind": "stmt" | "call" | "return" | "error", "depth": 0, "proc": "main",
//!                "stmt": 4 | null, "line": 12, "col": 3, "text": "g := *;",
//!                "labels": ["L1"], "annotations": [[key, value], ...], "taken": 0 | null,
//!                "before": {"g": false, ...}, "after": {"g": true, ...} }, ... ] }
//! ```
//!
//! `stmt` is the pre-order index of the statement in its procedure
//! ([`bp_grammar::Procedure::stmts_preorder`]); `before`/`after` map every variable in scope
//! (globals, parameters, locals; for `call`: the caller's scope before and the callee's after,
//! for `return` the reverse) to its value. Consecutive steps chain: one step's `after` is the
//! next step's `before`.

use crate::BebopError;
use crate::engine::Tabulation;
use crate::ids::{EdgeId, NodeId, ProcId, Stamp};
use crate::lower::{CallEdge, EdgeKind, Model, NodeKind, TargetWhat, Transfer};
use crate::vars::{Slot, Ver, pick};
use biodivine_lib_bdd::{Bdd, BddValuation, BddVariable};
use bp_grammar::trace::{Step, StepKind, TRACE_FORMAT, Target, Trace, Valuation};
use std::cell::RefCell;
use std::collections::HashMap;

/// A concrete valuation of a procedure's scope.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PState {
    /// Globals, by slot.
    pub g: Vec<bool>,
    /// Frame (parameters, then locals), by slot.
    pub f: Vec<bool>,
}

impl PState {
    /// The value of a scope slot.
    pub fn get(&self, s: Slot) -> bool {
        match s {
            Slot::Global(i) => self.g[i as usize],
            Slot::Frame(i) => self.f[i as usize],
            Slot::Ret(_) => false,
        }
    }

    /// Sets the value of a scope slot.
    pub fn set(&mut self, s: Slot, b: bool) {
        match s {
            Slot::Global(i) => self.g[i as usize] = b,
            Slot::Frame(i) => self.f[i as usize] = b,
            Slot::Ret(_) => {}
        }
    }
}

/// A calling context: the globals and parameters at entry.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Ctx {
    /// Globals.
    pub g: Vec<bool>,
    /// Parameters.
    pub p: Vec<bool>,
}

/// A concrete state of an exit node.
#[derive(Clone, Debug, PartialEq, Eq)]
struct ExitState {
    g: Vec<bool>,
    r: Vec<bool>,
}

/// A step before rendering.
#[derive(Clone, Debug)]
pub struct RawStep {
    /// Kind.
    pub kind: StepKind,
    /// The statement's node (`End` for an implicit return).
    pub node: NodeId,
    /// The edge taken (none for the error step).
    pub edge: Option<EdgeId>,
    /// Call depth (relative while extracting).
    pub depth: i64,
    /// State before, with its procedure.
    pub before: (ProcId, PState),
    /// State after, with its procedure.
    pub after: (ProcId, PState),
}

/// What the return-point search found.
struct ReturnFound {
    sigma: PState,
    k_sigma: Stamp,
    qctx: Ctx,
    x: ExitState,
    kx: Stamp,
}

/// Helpers to move between concrete states and BDDs.
pub struct Concrete<'m, 'p> {
    /// The model.
    pub m: &'m Model<'p>,
}

impl Concrete<'_, '_> {
    /// The cube of a state of `p` in version `ver`.
    pub fn state_cube(&self, p: ProcId, st: &PState, ver: Ver) -> Bdd {
        let slots = self.m.scope_slots(p);
        self.m.vars.cube(slots.iter().map(|s| (s, st.get(*s))), ver)
    }

    /// The cube of some slots of a state.
    pub fn part_cube(&self, slots: &[Slot], st: &PState, ver: Ver) -> Bdd {
        self.m.vars.cube(slots.iter().map(|s| (s, st.get(*s))), ver)
    }

    /// The cube of a context (true when `p` does not track contexts).
    pub fn ctx_cube(&self, p: ProcId, ctx: &Ctx) -> Bdd {
        if !self.m.proc(p).tracks_entry {
            return self.m.vars.tt();
        }
        let vals: Vec<(Slot, bool)> = self
            .m
            .vars
            .globals()
            .into_iter()
            .zip(ctx.g.iter().copied())
            .chain(self.m.param_slots(p).into_iter().zip(ctx.p.iter().copied()))
            .collect();
        self.m
            .vars
            .cube(vals.iter().map(|(s, b)| (s, *b)), Ver::Entry)
    }

    /// Reads a state of `p` from a valuation.
    pub fn read_state(&self, p: ProcId, val: &BddValuation, ver: Ver) -> PState {
        let vm = &self.m.vars;
        PState {
            g: vm
                .globals()
                .iter()
                .map(|s| vm.value(val, *s, ver))
                .collect(),
            f: self
                .m
                .frame_slots(p)
                .iter()
                .map(|s| vm.value(val, *s, ver))
                .collect(),
        }
    }

    /// Reads the context of `p` from a valuation.
    pub fn read_ctx(&self, p: ProcId, val: &BddValuation) -> Ctx {
        let vm = &self.m.vars;
        if !self.m.proc(p).tracks_entry {
            return Ctx {
                g: Vec::new(),
                p: Vec::new(),
            };
        }
        Ctx {
            g: vm
                .globals()
                .iter()
                .map(|s| vm.value(val, *s, Ver::Entry))
                .collect(),
            p: self
                .m
                .param_slots(p)
                .iter()
                .map(|s| vm.value(val, *s, Ver::Entry))
                .collect(),
        }
    }

    /// The pre-states (over [`Ver::Cur`]) from which the transfer leads to `w`.
    pub fn pre_transfer(&self, p: ProcId, t: &Transfer, w: &PState) -> Bdd {
        let vm = &self.m.vars;
        let fixed: Vec<_> = t
            .modified
            .iter()
            .map(|s| (vm.var(*s, Ver::Next), w.get(*s)))
            .collect();
        let rel = if fixed.is_empty() {
            t.rel.clone()
        } else {
            t.rel.restrict(&fixed)
        };
        let unmod: Vec<Slot> = self
            .m
            .scope_slots(p)
            .into_iter()
            .filter(|s| !t.modified.contains(s))
            .collect();
        rel.and(&self.part_cube(&unmod, w, Ver::Cur))
    }

    /// Whether `w` is an initial state of `p` for context `ctx`.
    pub fn is_initial(&self, p: ProcId, ctx: &Ctx, w: &PState) -> bool {
        let pi = self.m.proc(p);
        if !pi.tracks_entry {
            return true;
        }
        w.g == ctx.g && w.f[..pi.n_params as usize] == ctx.p[..]
    }
}

struct Walker<'a, 'm, 'p> {
    c: Concrete<'m, 'p>,
    t: &'a Tabulation,
    steps: Vec<RawStep>,
    /// Fenwick trees of the layers of nodes whose prefix unions were asked for.
    fenwick: RefCell<HashMap<NodeId, Vec<Bdd>>>,
    /// `⋀ g@Next ↔ g@Cur` over the globals.
    globals_next_cur: Bdd,
}

fn internal(msg: &str) -> BebopError {
    BebopError::Internal(format!("trace extraction: {msg}"))
}

type Fix = Vec<(BddVariable, bool)>;

impl<'m, 'p> Walker<'_, 'm, 'p> {
    fn m(&self) -> &'m Model<'p> {
        self.c.m
    }

    /// The Fenwick tree of the layers of `node` (built on first use): entry `i` (1-based) is
    /// the union of the layers `(i - lowbit(i), i]`.
    fn with_tree<T>(&self, node: NodeId, f: impl FnOnce(&[Bdd]) -> T) -> T {
        let layers = &self.t.layers[node.ix()];
        let mut fw = self.fenwick.borrow_mut();
        let tree = fw.entry(node).or_insert_with(|| {
            let mut tree: Vec<Bdd> = layers.iter().map(|(_, b)| (**b).clone()).collect();
            let n = tree.len();
            for i in 1..=n {
                let j = i + (i & i.wrapping_neg());
                if j <= n {
                    tree[j - 1] = tree[j - 1].or(&tree[i - 1]);
                }
            }
            tree
        });
        f(tree)
    }

    /// `f` of the union of the layers of `node` stamped `< before`, computed as the union of
    /// `f` of `O(log layers)` Fenwick entries. `f` must distribute over unions (a cofactor
    /// and a conjunction do); applying it first keeps the unions small.
    fn prefix_with(&self, node: NodeId, before: Stamp, f: impl Fn(&Bdd) -> Bdd) -> Bdd {
        let idx = self.t.layers[node.ix()].partition_point(|(k, _)| *k < before);
        let ff = self.m().vars.ff();
        self.with_tree(node, |tree| {
            let mut acc = ff;
            let mut i = idx;
            while i > 0 {
                acc = acc.or(&f(&tree[i - 1]));
                i -= i & i.wrapping_neg();
            }
            acc
        })
    }

    /// The earliest layer of `node` stamped `< before` on which `f` is satisfiable, with `f`
    /// of it. `f` must distribute over unions.
    fn earliest(
        &self,
        node: NodeId,
        before: Stamp,
        f: impl Fn(&Bdd) -> Bdd,
    ) -> Option<(Stamp, Bdd)> {
        let layers = &self.t.layers[node.ix()];
        let n = layers.partition_point(|(k, _)| *k < before);
        if n == 0 {
            return None;
        }
        if n == 1 {
            let r = f(&layers[0].1);
            return (!r.is_false()).then(|| (layers[0].0, r));
        }
        let pos = self.with_tree(node, |tree| {
            // Fenwick descent for the largest `pos` whose prefix fails `f`. Since `f`
            // distributes over unions and the prefix accumulated so far fails it, a block can
            // be skipped exactly when `f` fails on the block alone.
            let mut pos = 0usize;
            let mut step = 1usize << (usize::BITS - 1 - n.leading_zeros());
            while step > 0 {
                if pos + step <= n && f(&tree[pos + step - 1]).is_false() {
                    pos += step;
                }
                step >>= 1;
            }
            pos
        });
        if pos >= n {
            return None;
        }
        let r = f(&layers[pos].1);
        (!r.is_false()).then(|| (layers[pos].0, r))
    }

    fn ctx_fix(&self, p: ProcId, ctx: &Ctx) -> Fix {
        let m = self.m();
        if !m.proc(p).tracks_entry {
            return Vec::new();
        }
        let vm = &m.vars;
        vm.globals()
            .into_iter()
            .zip(ctx.g.iter())
            .chain(m.param_slots(p).into_iter().zip(ctx.p.iter()))
            .map(|(s, b)| (vm.var(s, Ver::Entry), *b))
            .collect()
    }

    fn state_fix(&self, slots: &[Slot], st: &PState, ver: Ver) -> Fix {
        let vm = &self.m().vars;
        slots
            .iter()
            .map(|s| (vm.var(*s, ver), st.get(*s)))
            .collect()
    }

    /// Walks back from `(v, ctx, w)` of stamp `k` to the entry of `p`; returns the entry state
    /// and its stamp.
    fn walk_proc(
        &mut self,
        p: ProcId,
        mut v: NodeId,
        ctx: &Ctx,
        mut w: PState,
        mut k: Stamp,
        depth: i64,
    ) -> Result<(PState, Stamp), BebopError> {
        let m = self.m();
        let vm = &m.vars;
        let entry = m.proc(p).entry;
        let ctx_fix = self.ctx_fix(p, ctx);
        let scope = m.scope_slots(p);
        loop {
            if v == entry && self.c.is_initial(p, ctx, &w) {
                return Ok((w, k));
            }
            // The earliest-stamped predecessor over all incoming edges.
            let mut best: Option<(Stamp, Choice)> = None;
            for &eid in &m.node(v).inc {
                let e = m.edge(eid);
                match &e.kind {
                    EdgeKind::Transfer(tr) => {
                        // Fix the context and the unmodified variables (they equal w's).
                        let unmod: Vec<Slot> = scope
                            .iter()
                            .copied()
                            .filter(|s| !tr.modified.contains(s))
                            .collect();
                        let mut fix = ctx_fix.clone();
                        fix.extend(self.state_fix(&unmod, &w, Ver::Cur));
                        let mut rfix = self.state_fix(&unmod, &w, Ver::Cur);
                        rfix.extend(self.state_fix(&tr.modified, &w, Ver::Next));
                        let rel = tr.rel.restrict(&rfix);
                        if rel.is_false() {
                            continue;
                        }
                        if let Some((s, cands)) =
                            self.earliest(e.from, k, |b| b.restrict(&fix).and(&rel))
                            && best.as_ref().is_none_or(|(bs, _)| s < *bs)
                        {
                            best = Some((s, Choice::Transfer(eid, cands)));
                        }
                    }
                    EdgeKind::Call(c) => {
                        if let Some(r) = self.find_return(p, e.from, c, ctx, &w, k)?
                            && best.as_ref().is_none_or(|(bs, _)| r.k_sigma < *bs)
                        {
                            best = Some((r.k_sigma, Choice::Call(eid, Box::new(r))));
                        }
                    }
                    EdgeKind::Return(_) => {}
                }
            }
            match best {
                None => {
                    return Err(internal(&format!(
                        "no predecessor of node {v} before stamp {}",
                        k.0
                    )));
                }
                Some((s, Choice::Transfer(eid, cands))) => {
                    let e = m.edge(eid);
                    let EdgeKind::Transfer(tr) = &e.kind else {
                        return Err(internal("edge kind changed"));
                    };
                    let val = pick(&cands).ok_or_else(|| internal("empty candidates"))?;
                    let mut sigma = w.clone();
                    for sl in &tr.modified {
                        sigma.set(*sl, vm.value(&val, *sl, Ver::Cur));
                    }
                    self.steps.push(RawStep {
                        kind: StepKind::Stmt,
                        node: e.from,
                        edge: Some(eid),
                        depth,
                        before: (p, sigma.clone()),
                        after: (p, w),
                    });
                    v = e.from;
                    w = sigma;
                    k = s;
                }
                Some((s, Choice::Call(eid, r))) => {
                    let e = m.edge(eid);
                    let EdgeKind::Call(c) = &e.kind else {
                        return Err(internal("edge kind changed"));
                    };
                    let omega0 = self.expand_call(c.callee, &r.qctx, &r.x, r.kx, p, &w, depth)?;
                    self.steps.push(RawStep {
                        kind: StepKind::Call,
                        node: e.from,
                        edge: Some(eid),
                        depth,
                        before: (p, r.sigma.clone()),
                        after: (c.callee, omega0),
                    });
                    v = e.from;
                    w = r.sigma;
                    k = s;
                }
            }
        }
    }

    /// At a return point reached in state `w` with stamp `k`: the caller's state at the call
    /// node and the callee's exit state (both stamped `< k`) that produced it.
    fn find_return(
        &self,
        p: ProcId,
        cnode: NodeId,
        c: &CallEdge,
        ctx: &Ctx,
        w: &PState,
        k: Stamp,
    ) -> Result<Option<ReturnFound>, BebopError> {
        let m = self.m();
        let vm = &m.vars;
        let q = c.callee;
        let exit = m.proc(q).exit;
        let globals = vm.globals();
        let rets = m.ret_slots();
        let targeted: Vec<Slot> = c.targets.iter().flatten().copied().collect();
        let kept_globals: Vec<Slot> = globals
            .iter()
            .copied()
            .filter(|s| !targeted.contains(s))
            .collect();
        // Exit states compatible with w: kept globals and returned values as in w.
        let mut xfix = self.state_fix(&kept_globals, w, Ver::Cur);
        for (j, tg) in c.targets.iter().enumerate() {
            if let Some(s) = tg {
                xfix.push((vm.var(Slot::Ret(j as u32), Ver::Cur), w.get(*s)));
            }
        }
        let x = self.prefix_with(exit, k, |b| b.restrict(&xfix));
        if x.is_false() {
            return Ok(None);
        }
        let mut cur_q = vm.vars(&globals, Ver::Cur);
        cur_q.extend(vm.vars(&rets, Ver::Cur));
        let ent = x.exists(&cur_q);
        let qctx_slots = m.ctx_slots(q);
        let ent_n = vm.rename(&ent, &qctx_slots, Ver::Entry, Ver::Next);
        // Caller states at the call: context and untouched frame variables as in w.
        let frame_kept: Vec<Slot> = m
            .frame_slots(p)
            .into_iter()
            .filter(|s| !targeted.contains(s))
            .collect();
        let ffix = self.state_fix(&frame_kept, w, Ver::Cur);
        let mut pfix = self.ctx_fix(p, ctx);
        pfix.extend(ffix.iter().copied());
        let j = c
            .arg_rel
            .restrict(&ffix)
            .and(&self.globals_next_cur)
            .and(&ent_n)
            .exists(&vm.vars(&qctx_slots, Ver::Next));
        let Some((k_sigma, cands)) = self.earliest(cnode, k, |b| b.restrict(&pfix).and(&j)) else {
            return Ok(None);
        };
        let val = pick(&cands).ok_or_else(|| internal("empty call candidates"))?;
        let mut sigma = w.clone();
        for s in globals.iter().chain(targeted.iter()) {
            sigma.set(*s, vm.value(&val, *s, Ver::Cur));
        }
        // The callee's context.
        let sfix = self.state_fix(&m.scope_slots(p), &sigma, Ver::Cur);
        let gfix = self.state_fix(&globals, &sigma, Ver::Next);
        let qc = c.arg_rel.restrict(&sfix).and(&ent_n.restrict(&gfix));
        let val = pick(&qc).ok_or_else(|| internal("no callee context"))?;
        let qctx = Ctx {
            g: sigma.g.clone(),
            p: m.param_slots(q)
                .iter()
                .map(|s| vm.value(&val, *s, Ver::Next))
                .collect(),
        };
        // The callee's exit state, the earliest one.
        let mut qxfix = self.ctx_fix(q, &qctx);
        qxfix.extend(xfix.iter().copied());
        let (kx, xs) = self
            .earliest(exit, k, |b| b.restrict(&qxfix))
            .ok_or_else(|| internal("no exit state"))?;
        let val = pick(&xs).ok_or_else(|| internal("no exit state"))?;
        let xst = ExitState {
            g: globals
                .iter()
                .map(|s| {
                    if targeted.contains(s) {
                        vm.value(&val, *s, Ver::Cur)
                    } else {
                        w.get(*s)
                    }
                })
                .collect(),
            r: rets
                .iter()
                .enumerate()
                .map(|(j, s)| match c.targets.get(j).copied().flatten() {
                    Some(t) => w.get(t),
                    None => vm.value(&val, *s, Ver::Cur),
                })
                .collect(),
        };
        Ok(Some(ReturnFound {
            sigma,
            k_sigma,
            qctx,
            x: xst,
            kx,
        }))
    }

    fn exit_fix(&self, x: &ExitState) -> Fix {
        let vm = &self.m().vars;
        vm.globals()
            .into_iter()
            .zip(x.g.iter())
            .chain(self.m().ret_slots().into_iter().zip(x.r.iter()))
            .map(|(s, b)| (vm.var(s, Ver::Cur), *b))
            .collect()
    }

    /// Expands a call of `q` (context `qctx`) that ends in exit state `x` of stamp `kx` and
    /// returns into the caller state `w_after`: pushes the `return` step and the callee's steps;
    /// returns the callee's entry state.
    #[allow(clippy::too_many_arguments)]
    fn expand_call(
        &mut self,
        q: ProcId,
        qctx: &Ctx,
        x: &ExitState,
        kx: Stamp,
        caller: ProcId,
        w_after: &PState,
        depth: i64,
    ) -> Result<PState, BebopError> {
        let m = self.m();
        let vm = &m.vars;
        let exit = m.proc(q).exit;
        let gfix: Fix = vm
            .globals()
            .into_iter()
            .zip(x.g.iter())
            .map(|(s, b)| (vm.var(s, Ver::Cur), *b))
            .collect();
        let mut lfix = self.ctx_fix(q, qctx);
        lfix.extend(gfix.iter().copied());
        let rfix = self.exit_fix(x);
        let mut best: Option<(Stamp, EdgeId, Bdd)> = None;
        for &eid in &m.node(exit).inc {
            let e = m.edge(eid);
            let EdgeKind::Return(rel) = &e.kind else {
                continue;
            };
            let rel = match rel {
                Some(r) => r.restrict(&rfix),
                None => vm.tt(),
            };
            if let Some((s, cands)) = self.earliest(e.from, kx, |b| b.restrict(&lfix).and(&rel))
                && best.as_ref().is_none_or(|(bs, _, _)| s < *bs)
            {
                best = Some((s, eid, cands));
            }
        }
        let (s, eid, cands) = best.ok_or_else(|| internal("no return into the exit state"))?;
        let from = m.edge(eid).from;
        let val = pick(&cands).ok_or_else(|| internal("empty return candidates"))?;
        let su = PState {
            g: x.g.clone(),
            f: m.frame_slots(q)
                .iter()
                .map(|s| vm.value(&val, *s, Ver::Cur))
                .collect(),
        };
        self.steps.push(RawStep {
            kind: StepKind::Return,
            node: from,
            edge: Some(eid),
            depth: depth + 1,
            before: (q, su.clone()),
            after: (caller, w_after.clone()),
        });
        let (omega0, _) = self.walk_proc(q, from, qctx, su, s, depth + 1)?;
        Ok(omega0)
    }
}

/// The predecessor chosen at one backward step.
enum Choice {
    /// An intraprocedural edge, with the candidate pre-states.
    Transfer(EdgeId, Bdd),
    /// A call edge (the node is its return point).
    Call(EdgeId, Box<ReturnFound>),
}

/// Extracts the internal (node-level) trace of the error found by the tabulation.
pub fn extract_raw(m: &Model, t: &Tabulation) -> Result<Vec<RawStep>, BebopError> {
    let (v_err, r) = t.error.ok_or_else(|| internal("no error to explain"))?;
    let c = Concrete { m };
    let tg = m
        .node(v_err)
        .target
        .as_ref()
        .ok_or_else(|| internal("error node without target"))?;
    let layer = t
        .layer(v_err, r)
        .ok_or_else(|| internal("error layer missing"))?;
    let val = pick(&layer.and(&tg.bad)).ok_or_else(|| internal("empty error layer"))?;
    let mut p = m.node(v_err).proc;
    let mut ctx = c.read_ctx(p, &val);
    let mut w = c.read_state(p, &val, Ver::Cur);
    let mut wk = Walker {
        c,
        t,
        steps: Vec::new(),
        fenwick: RefCell::new(HashMap::new()),
        globals_next_cur: m.vars.identity(&m.vars.globals(), Ver::Next, Ver::Cur),
    };
    wk.steps.push(RawStep {
        kind: StepKind::Error,
        node: v_err,
        edge: None,
        depth: 0,
        before: (p, w.clone()),
        after: (p, w.clone()),
    });
    let mut v = v_err;
    let mut k = r;
    let mut depth = 0i64;
    loop {
        let (omega0, k0) = wk.walk_proc(p, v, &ctx, w, k, depth)?;
        if p == m.main {
            break;
        }
        let vm = &m.vars;
        let pfix: Fix = m
            .param_slots(p)
            .iter()
            .zip(ctx.p.iter())
            .map(|(s, b)| (vm.var(*s, Ver::Next), *b))
            .collect();
        let gfix: Fix = vm
            .globals()
            .iter()
            .zip(ctx.g.iter())
            .map(|(s, b)| (vm.var(*s, Ver::Cur), *b))
            .collect();
        let mut afix = pfix.clone();
        afix.extend(gfix.iter().copied());
        let mut best: Option<(Stamp, EdgeId, Bdd)> = None;
        for &cs in &m.proc(p).call_sites {
            let ce = m.edge(cs);
            let EdgeKind::Call(call) = &ce.kind else {
                continue;
            };
            let args = call.arg_rel.restrict(&afix);
            if let Some((s, cands)) = wk.earliest(ce.from, k0, |b| b.restrict(&gfix).and(&args))
                && best.as_ref().is_none_or(|(bs, _, _)| s < *bs)
            {
                best = Some((s, cs, cands));
            }
        }
        let (k0p, cs, cands) = best.ok_or_else(|| internal("no call site creates the context"))?;
        let ce = m.edge(cs);
        let val = pick(&cands).ok_or_else(|| internal("empty call-site candidates"))?;
        let caller = m.node(ce.from).proc;
        let cctx = wk.c.read_ctx(caller, &val);
        let mut sigma = wk.c.read_state(caller, &val, Ver::Cur);
        sigma.g = ctx.g.clone();
        depth -= 1;
        wk.steps.push(RawStep {
            kind: StepKind::Call,
            node: ce.from,
            edge: Some(cs),
            depth,
            before: (caller, sigma.clone()),
            after: (p, omega0),
        });
        p = caller;
        v = ce.from;
        ctx = cctx;
        w = sigma;
        k = k0p;
    }
    let mut steps = wk.steps;
    steps.reverse();
    for s in &mut steps {
        s.depth -= depth;
    }
    Ok(steps)
}

/// The valuation of a state of `p`, by variable name.
pub fn valuation(m: &Model, p: ProcId, st: &PState) -> Valuation {
    m.scope_slots(p)
        .into_iter()
        .map(|s| (m.slot_name(p, s), st.get(s)))
        .collect()
}

/// Renders one node-level step in the public format.
fn public_step(m: &Model, s: &RawStep) -> Step {
    let node = m.node(s.node);
    let pi = m.proc(node.proc);
    let (stmt, line, col, text, labels, annotations) = match node.kind {
        NodeKind::Stmt(id, st) => (
            Some(id),
            st.span.line,
            st.span.col,
            bp_grammar::print_stmt_head(st),
            st.labels.iter().map(|l| l.name.clone()).collect(),
            st.annotations.clone(),
        ),
        NodeKind::End | NodeKind::Exit => (
            None,
            pi.end_pos.0,
            pi.end_pos.1,
            "end".to_string(),
            Vec::new(),
            Default::default(),
        ),
    };
    let taken = match (s.kind, s.edge) {
        (StepKind::Stmt, Some(e)) => m.edge(e).taken,
        _ => None,
    };
    Step {
        kind: s.kind,
        depth: u32::try_from(s.depth).unwrap_or(0),
        proc: pi.name.clone(),
        stmt,
        line,
        col,
        text,
        labels,
        annotations,
        taken,
        before: valuation(m, s.before.0, &s.before.1),
        after: valuation(m, s.after.0, &s.after.1),
    }
}

/// Builds the public trace of the error found by the tabulation.
pub fn extract(m: &Model, t: &Tabulation, program_name: &str) -> Result<Trace, BebopError> {
    let raw = extract_raw(m, t)?;
    let last = raw.last().ok_or_else(|| internal("empty trace"))?;
    let node = m.node(last.node);
    let pname = m.proc(node.proc).name.clone();
    let stmt = m
        .stmt_of(last.node)
        .map(|(id, _)| id)
        .ok_or_else(|| internal("error at a non-statement node"))?;
    let target = match &node
        .target
        .as_ref()
        .ok_or_else(|| internal("no target"))?
        .what
    {
        TargetWhat::Assert => Target::Assert { proc: pname, stmt },
        TargetWhat::Label(l) => Target::Label {
            label: l.clone(),
            proc: pname,
            stmt,
        },
    };
    Ok(Trace {
        format: TRACE_FORMAT.to_string(),
        program: program_name.to_string(),
        header: m.prog.header.clone(),
        target,
        steps: raw.iter().map(|s| public_step(m, s)).collect(),
    })
}
