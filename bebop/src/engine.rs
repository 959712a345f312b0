//! The tabulation: interprocedural reachability with path edges and summaries, after
//! Reps, Horwitz & Sagiv ("Precise interprocedural dataflow analysis via graph reachability",
//! POPL 1995) as adapted to Boolean programs by Ball & Rajamani (Bebop, SPIN 2000, §3).
//!
//! `PE(v)(e, c)` holds when the node `v` is reachable with current valuation `c` along a
//! same-level path from the entry of its procedure entered with context `e` (the globals and
//! parameters at entry, version [`Ver::Entry`]; `main` needs no context unless it is called).
//! The path edges of a procedure's exit node, with the frame projected away, are its summary
//! `S_Q(e, globals', returns')`. Operations (the paper's names):
//!
//! - *Join* (intraprocedural step): `∃ cur.mod. PE ∧ T` then `next.mod → cur.mod`.
//! - *CallEntry*: the callee's entry states from the caller's states at a call node:
//!   globals as they are, parameters from the actuals, locals arbitrary, `enforce` assumed; the
//!   context is copied into the entry version (*SelfLoop*).
//! - *Lift/Join at return*: `∃ next. M_c ∧ S_Q[entry → next]` where `M_c` is the caller's call
//!   node relation with the callee context in version `Next`; then the returned values are
//!   assigned to the targets and the caller's `enforce` is assumed.
//!
//! The worklist is a priority queue: callees before callers (post-order of the call graph from
//! `main`), and inside a procedure reverse post-order of its CFG with a loop's body before the
//! code after the loop (see `priorities`), so that a node's new states
//! accumulate while its predecessors and the procedures it calls are still busy, and a node is
//! processed with one large delta instead of many small ones. Only new states are propagated
//! (semi-naive evaluation): a call node's new states meet the whole summary of the callee, a new
//! summary part meets the whole call relation of every call site that called with one of its
//! contexts. Every state is stamped with the iteration that found it (its *layer*; the initial
//! states have stamp 0); a state of stamp `k` is derived from states of stamps `< k`. The trace
//! search (`trace`) uses the stamps of exit states to keep the expansion of nested calls
//! well-founded; it needs the fixpoint (complete summaries), so `verify` runs to it.
//!
//! What is stored ([`Keep`]): the trace search and the engine itself read the path edges of
//! the *kept* nodes only — procedure entries, joins (more than one incoming edge; every cycle
//! passes through one), call nodes, return points, exits and targets. With [`Keep::Needed`] a
//! node with one incoming intraprocedural edge stores nothing: its new states are the image
//! of its predecessor's (not made disjoint from what it saw before, which the next kept node
//! does), so straight-line code costs one image per statement and no memory. Invariants and
//! the fallback walk over the stamps need every node's layers: [`Keep::All`].

use crate::apply;
use crate::ids::{EdgeId, NodeId, ProcId, Stamp};
use crate::lower::{CallEdge, EdgeKind, Model, NodeKind, Transfer};
use crate::vars::{Slot, Ver};
use biodivine_lib_bdd::{Bdd, BddVariable, op_function};
use std::cmp::Reverse;
use std::collections::{BTreeMap, BinaryHeap};
use std::rc::Rc;
use std::time::Instant;

/// Which nodes store their path edges and layers, and how exact those are.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Keep {
    /// Every node, with exact path edges (invariants, the trace's walk over stamps).
    All,
    /// The kept nodes only (see the module documentation), with the frame variables dead at
    /// a node forgotten: a reader of these path edges other than the error check, the error
    /// contexts and the summaries gets weakened sets.
    Needed,
}

/// Counters of one run of the engine.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct EngineStats {
    /// Worklist iterations: (node, new states) pairs processed.
    pub iterations: u64,
    /// The largest BDD stored (nodes).
    pub largest_bdd: usize,
    /// The largest sum of the sizes of all stored path-edge and summary BDDs (nodes).
    pub peak_live_nodes: usize,
    /// That sum when the engine stopped.
    pub final_live_nodes: usize,
    /// The engine's work: the total size of the new-state BDDs it added to nodes (stored or
    /// not), in BDD nodes.
    pub work: u64,
}

/// The result of the tabulation.
pub struct Tabulation {
    /// All path edges per node (false at the nodes that store nothing, see [`Keep`]).
    pub pe: Vec<Rc<Bdd>>,
    /// The path edges per node, split by the iteration in which they were found (increasing
    /// stamps, disjoint sets). Shared with `pe` when a node has one layer. Empty at the nodes
    /// that store nothing.
    pub layers: Vec<Vec<(Stamp, Rc<Bdd>)>>,
    /// What was stored.
    pub keep: Keep,
    /// The first error found: the node and the stamp of the erroneous states.
    pub error: Option<(NodeId, Stamp)>,
    /// Whether the fixpoint was reached (false when stopped at the first error).
    pub complete: bool,
    /// Counters.
    pub stats: EngineStats,
}

impl Tabulation {
    /// The layer of `node` with stamp `s`.
    pub fn layer(&self, node: NodeId, s: Stamp) -> Option<&Bdd> {
        let ls = &self.layers[node.ix()];
        ls.binary_search_by_key(&s, |(k, _)| *k)
            .ok()
            .map(|i| &*ls[i].1)
    }
}

/// The engine's operations on one model (shared with trace extraction).
pub struct Ops<'m, 'p> {
    /// The model.
    pub m: &'m Model<'p>,
    /// Return slots (all of them).
    ret_slots: Vec<Slot>,
    /// Global slots.
    globals: Vec<Slot>,
    /// Per procedure: `⋀ entry ↔ cur` over its context (globals and parameters).
    ctx_identity: Vec<Bdd>,
    /// Per procedure: the BDD variables quantified by CallEntry when it calls (its entry copies
    /// of the globals and frame, and its current frame).
    caller_quant: Vec<Vec<biodivine_lib_bdd::BddVariable>>,
    /// Per procedure: its current frame variables.
    frame_cur: Vec<Vec<biodivine_lib_bdd::BddVariable>>,
    /// Per procedure: the variables of the callee context in version `Next`.
    ctx_next: Vec<Vec<biodivine_lib_bdd::BddVariable>>,
    /// The current globals and return slots (an exit node's non-context variables).
    exit_cur: Vec<biodivine_lib_bdd::BddVariable>,
}

impl<'m, 'p> Ops<'m, 'p> {
    /// Operations over `m`.
    pub fn new(m: &'m Model<'p>) -> Self {
        let vm = &m.vars;
        let globals = vm.globals();
        let pids = (0..m.procs.len() as u32).map(ProcId);
        // Identities depend only on the number of parameters.
        let mut by_params: BTreeMap<u32, Bdd> = BTreeMap::new();
        let ctx_identity = pids
            .clone()
            .map(|p| {
                by_params
                    .entry(m.proc(p).n_params)
                    .or_insert_with(|| vm.identity(&m.ctx_slots(p), Ver::Entry, Ver::Cur))
                    .clone()
            })
            .collect();
        let caller_quant = pids
            .clone()
            .map(|p| {
                let frame = m.frame_slots(p);
                let mut q = vm.vars(&globals, Ver::Entry);
                q.extend(vm.vars(&frame, Ver::Entry));
                q.extend(vm.vars(&frame, Ver::Cur));
                q
            })
            .collect();
        let frame_cur = pids
            .clone()
            .map(|p| vm.vars(&m.frame_slots(p), Ver::Cur))
            .collect();
        let ctx_next = pids.map(|p| vm.vars(&m.ctx_slots(p), Ver::Next)).collect();
        let mut exit_cur = vm.vars(&globals, Ver::Cur);
        exit_cur.extend(vm.vars(&m.vars.rets(), Ver::Cur));
        Ops {
            m,
            ret_slots: m.vars.rets(),
            globals,
            ctx_identity,
            caller_quant,
            frame_cur,
            ctx_next,
            exit_cur,
        }
    }

    /// The initial path edges of `main`.
    pub fn init(&self) -> Bdd {
        let main = self.m.main;
        let pi = self.m.proc(main);
        let mut init = pi.enforce.clone();
        if pi.tracks_entry {
            init = apply::and(&init, &self.ctx_identity[main.ix()]);
        }
        init
    }

    /// Join with an intraprocedural transfer.
    pub fn image(&self, p: ProcId, t: &Transfer, d: &Bdd) -> Bdd {
        self.image_forgetting(p, t, d, &[])
    }

    /// Join with an intraprocedural transfer, forgetting the current-version variables
    /// `forget` of the result, in the same relational product where the step does not
    /// modify them.
    pub fn image_forgetting(
        &self,
        p: ProcId,
        t: &Transfer,
        d: &Bdd,
        forget: &[BddVariable],
    ) -> Bdd {
        let vm = &self.m.vars;
        if t.modified.is_empty() && forget.is_empty() {
            return t.rel.and_exists(d, &[]);
        }
        let mut q = vm.vars(&t.modified, Ver::Cur);
        let mut late = Vec::new();
        for &v in forget {
            if q.contains(&v) {
                // Written here but dead after: forget the new value once renamed.
                late.push(v);
            } else {
                q.push(v);
            }
        }
        let r = t.rel.and_exists(d, &q);
        let r = if t.modified.is_empty() {
            r
        } else {
            vm.rename(&r, &t.modified, Ver::Next, Ver::Cur)
        };
        let r = if late.is_empty() {
            r
        } else {
            apply::exists(&r, &late)
        };
        if t.enforce {
            apply::and(&r, &self.m.proc(p).enforce)
        } else {
            r
        }
    }

    /// The caller's states at a call node with the callee's context in version `Next`
    /// (globals renamed `Cur → Next`, parameters from the actuals).
    pub fn call_rel(&self, c: &CallEdge, d: &Bdd) -> Bdd {
        let x = c.arg_rel.and_exists(d, &[]);
        self.m.vars.rename(&x, &self.globals, Ver::Cur, Ver::Next)
    }

    /// The callee contexts (over version `Next` of its globals and parameters) of a call
    /// relation.
    pub fn call_contexts(&self, caller: ProcId, m: &Bdd) -> Bdd {
        apply::exists(m, &self.caller_quant[caller.ix()])
    }

    /// The contexts (over version `Next`) of a summary part (in its `Next` form).
    pub fn summary_contexts(&self, s_next: &Bdd) -> Bdd {
        apply::exists(s_next, &self.exit_cur)
    }

    /// CallEntry + SelfLoop: the callee's entry path edges from its calling contexts.
    pub fn call_entry(&self, c: &CallEdge, ctxs: &Bdd) -> Bdd {
        let vm = &self.m.vars;
        let ctx = self.m.ctx_slots(c.callee);
        let x = vm.rename(ctxs, &ctx, Ver::Next, Ver::Cur);
        let qi = self.m.proc(c.callee);
        let x = apply::and(&x, &self.ctx_identity[c.callee.ix()]);
        if qi.has_enforce {
            apply::and(&x, &qi.enforce)
        } else {
            x
        }
    }

    /// A summary with the context renamed `Entry → Next`.
    pub fn summary_next(&self, callee: ProcId, s: &Bdd) -> Bdd {
        let ctx = self.m.ctx_slots(callee);
        self.m.vars.rename(s, &ctx, Ver::Entry, Ver::Next)
    }

    /// Join at a return point: call relation `m` with summary `s_next`, then the assignment of
    /// the returned values and the caller's `enforce`.
    pub fn return_join(&self, caller: ProcId, c: &CallEdge, m: &Bdd, s_next: &Bdd) -> Bdd {
        if m.is_false() || s_next.is_false() {
            return self.m.vars.ff();
        }
        let vm = &self.m.vars;
        let r1 = apply::and_exists(m, s_next, &self.ctx_next[c.callee.ix()]);
        let pi = self.m.proc(caller);
        let with_enforce = |r: Bdd| {
            if pi.has_enforce {
                apply::and(&r, &pi.enforce)
            } else {
                r
            }
        };
        if c.targets.iter().all(Option::is_none) {
            // No value is assigned: only forget the return slots, if the callee has any.
            return with_enforce(if self.m.proc(c.callee).ast.ret.arity() == 0 {
                r1
            } else {
                apply::exists(&r1, &vm.vars(&self.ret_slots, Ver::Cur))
            });
        }
        // One returned value at a time: `∃ ret_j, t_j. r ∧ (t_j' ↔ ret_j)` substitutes the
        // value into its target and forgets the return slot at once. The conjunction of all
        // the equations, quantified afterwards, is the same relation but exponential in the
        // number of returned values whenever the targets lie far from the return slots in
        // the order (a caller's locals are ordered for its own statements).
        let mut r2 = r1;
        let mut targets = Vec::new();
        for (j, t) in c.targets.iter().enumerate() {
            let ret = Slot::Ret(j as u32);
            match t {
                Some(x) => {
                    let eq = vm
                        .lit(*x, Ver::Next, true)
                        .iff(&vm.lit(ret, Ver::Cur, true));
                    let q = [vm.var(*x, Ver::Cur), vm.var(ret, Ver::Cur)];
                    r2 = apply::and_exists(&r2, &eq, &q);
                    targets.push(*x);
                }
                None => r2 = apply::exists(&r2, &[vm.var(ret, Ver::Cur)]),
            }
        }
        let rest: Vec<BddVariable> = self.ret_slots[c.targets.len().min(self.ret_slots.len())..]
            .iter()
            .map(|s| vm.var(*s, Ver::Cur))
            .collect();
        if !rest.is_empty() {
            r2 = apply::exists(&r2, &rest);
        }
        with_enforce(vm.rename(&r2, &targets, Ver::Next, Ver::Cur))
    }

    /// Into the exit node: set the return slots, forget the frame.
    pub fn exit_image(&self, callee: ProcId, rel: Option<&Bdd>, d: &Bdd) -> Bdd {
        let q = &self.frame_cur[callee.ix()];
        match rel {
            Some(r) => apply::and_exists(d, r, q),
            None => apply::exists(d, q),
        }
    }
}

/// Worklist priorities: callees first, then reverse post-order inside a procedure.
fn priorities(m: &Model) -> Vec<u64> {
    // Post-order of the call graph from main (iterative DFS); unreachable procedures last.
    let np = m.procs.len();
    let mut callees: Vec<Vec<ProcId>> = vec![Vec::new(); np];
    for e in &m.edges {
        if let EdgeKind::Call(c) = &e.kind {
            let caller = m.node(e.from).proc;
            if !callees[caller.ix()].contains(&c.callee) {
                callees[caller.ix()].push(c.callee);
            }
        }
    }
    let mut rank = vec![u32::MAX; np];
    let mut next_rank = 0u32;
    let mut seen = vec![false; np];
    let mut stack: Vec<(ProcId, usize)> = vec![(m.main, 0)];
    seen[m.main.ix()] = true;
    while let Some((p, i)) = stack.pop() {
        if let Some(&q) = callees[p.ix()].get(i) {
            stack.push((p, i + 1));
            if !seen[q.ix()] {
                seen[q.ix()] = true;
                stack.push((q, 0));
            }
        } else {
            rank[p.ix()] = next_rank;
            next_rank += 1;
        }
    }
    // Reverse post-order of each procedure's CFG from its entry, the successors of a node
    // visited last edge first: a loop's exit edge comes after its body edge, so the code past
    // the loop finishes first in the DFS and follows the whole body in the order. A loop then
    // reaches its fixpoint before the code after it (and the callees it calls) sees any of its
    // states, as in a weak topological order (Bourdoncle, "Efficient chaotic iteration
    // strategies with widenings", 1993), instead of sending every round of the body through
    // the rest of the program.
    let n = m.nodes.len();
    let mut order = vec![u32::MAX; n];
    for p in &m.procs {
        let mut post: Vec<NodeId> = Vec::new();
        let mut seen_n = std::collections::HashSet::new();
        let mut stack: Vec<(NodeId, usize)> = vec![(p.entry, 0)];
        seen_n.insert(p.entry);
        while let Some((v, i)) = stack.pop() {
            let out = &m.node(v).out;
            if let Some(&e) = out.len().checked_sub(i + 1).and_then(|k| out.get(k)) {
                stack.push((v, i + 1));
                let w = m.edge(e).to;
                if m.node(w).proc == m.node(v).proc && seen_n.insert(w) {
                    stack.push((w, 0));
                }
            } else {
                post.push(v);
            }
        }
        let len = post.len() as u32;
        for (i, v) in post.iter().enumerate() {
            order[v.ix()] = len - 1 - i as u32;
        }
    }
    (0..n)
        .map(|v| {
            let p = m.nodes[v].proc;
            (u64::from(rank[p.ix()]) << 32) | u64::from(order[v])
        })
        .collect()
}

/// A tabulation in progress: the results so far and the worklist.
struct Worklist<'m, 'p> {
    m: &'m Model<'p>,
    ops: Ops<'m, 'p>,
    t: Tabulation,
    /// Worklist priorities per node ([`priorities`]).
    prio: Vec<u64>,
    /// Call relations (per call node).
    m_total: Vec<Option<Bdd>>,
    /// Callee contexts ever produced at each call node (over version `Next`).
    call_ctx: Vec<Option<Bdd>>,
    /// Renamed summaries (per procedure).
    s_next: Vec<Bdd>,
    /// New states of each node not yet propagated.
    delta: Vec<Option<Rc<Bdd>>>,
    queue: BinaryHeap<Reverse<(u64, NodeId)>>,
    /// The sum of the sizes of the stored path-edge and call-relation BDDs.
    live: usize,
    /// The current worklist iteration.
    stamp: Stamp,
    /// Per node: whether it stores its path edges and layers.
    kept: Vec<bool>,
    /// Per node: the frame variables dead before it, forgotten by the images into it (none
    /// with [`Keep::All`]; see [`crate::live`]).
    dead: Vec<Vec<BddVariable>>,
    /// Per node: whether states reach it other than through a transfer (it is an entry, or a
    /// call or return edge leads to it) while it has dead variables, which are then
    /// forgotten when its states are added.
    forget_here: Vec<bool>,
}

/// Per node, whether it stores its path edges under `keep` (see the module documentation).
fn kept_nodes(m: &Model, keep: Keep) -> Vec<bool> {
    if keep == Keep::All {
        return vec![true; m.nodes.len()];
    }
    let mut kept: Vec<bool> = m
        .nodes
        .iter()
        .map(|n| {
            n.inc.len() != 1
                || n.target.is_some()
                || matches!(n.kind, NodeKind::Exit)
                || n.inc
                    .iter()
                    .any(|&e| !matches!(m.edge(e).kind, EdgeKind::Transfer(_)))
                || n.out
                    .iter()
                    .any(|&e| matches!(m.edge(e).kind, EdgeKind::Call(_)))
        })
        .collect();
    for p in &m.procs {
        kept[p.entry.ix()] = true;
    }
    kept
}

/// Per node, the frame variables the engine forgets before it under `keep`: the dead ones
/// ([`crate::live`]) with [`Keep::Needed`], none with [`Keep::All`] (whose path edges are the
/// exact ones that invariants and the walk over the stamps need). The exit has no frame.
pub fn dead_vars(m: &Model, keep: Keep) -> Vec<Vec<BddVariable>> {
    let mut dead = match keep {
        Keep::All => vec![Vec::new(); m.nodes.len()],
        Keep::Needed => crate::live::dead_frame_vars(m),
    };
    for p in &m.procs {
        dead[p.exit.ix()].clear();
    }
    dead
}

/// Runs the tabulation, storing the path edges of the nodes `keep` says. With
/// `stop_at_error`, stops as soon as an error state is found.
pub fn run(m: &Model, stop_at_error: bool, keep: Keep) -> Tabulation {
    let ops = Ops::new(m);
    let n = m.nodes.len();
    let t = Tabulation {
        // One shared `false` until a node is reached.
        pe: std::iter::repeat_n(Rc::new(m.vars.ff()), n).collect(),
        layers: vec![Vec::new(); n],
        keep,
        error: None,
        complete: false,
        stats: EngineStats::default(),
    };
    let started = Instant::now();
    let mut wl = Worklist {
        m,
        ops,
        t,
        prio: priorities(m),
        m_total: vec![None; n],
        call_ctx: vec![None; n],
        s_next: vec![m.vars.ff(); m.procs.len()],
        delta: vec![None; n],
        queue: BinaryHeap::new(),
        live: 0,
        stamp: Stamp(0),
        kept: kept_nodes(m, keep),
        dead: dead_vars(m, keep),
        forget_here: Vec::new(),
    };
    wl.forget_here = (0..n)
        .map(|v| {
            let node = &m.nodes[v];
            !wl.dead[v].is_empty()
                && (m.proc(node.proc).entry.ix() == v
                    || node
                        .inc
                        .iter()
                        .any(|&e| !matches!(m.edge(e).kind, EdgeKind::Transfer(_))))
        })
        .collect();
    wl.start_main();
    while let Some(Reverse((_, v))) = wl.queue.pop() {
        if stop_at_error && wl.t.error.is_some() {
            break;
        }
        let Some(d) = wl.delta[v.ix()].take() else {
            continue;
        };
        wl.t.stats.iterations += 1;
        wl.stamp = Stamp(wl.stamp.0 + 1);
        let mut out = wl.edge_images(v, &d);
        let node = m.node(v);
        if let NodeKind::Exit = node.kind {
            wl.summary_returns(node.proc, &d, &mut out);
        }
        wl.add_states(out);
        let t = &mut wl.t;
        t.stats.peak_live_nodes = t.stats.peak_live_nodes.max(wl.live);
        if t.stats.iterations.is_multiple_of(4096) {
            tracing::debug!(
                iterations = t.stats.iterations,
                queue = wl.queue.len(),
                live = wl.live,
                elapsed_ms = started.elapsed().as_millis() as u64,
                "tabulation progress"
            );
        }
    }
    let mut t = wl.t;
    t.complete = wl.queue.is_empty();
    t.stats.final_live_nodes = wl.live;
    t.stats.peak_live_nodes = t.stats.peak_live_nodes.max(wl.live);
    tracing::debug!(iterations = t.stats.iterations, "tabulation done");
    t
}

impl Worklist<'_, '_> {
    /// Seeds the worklist with `main`'s initial states (stamp 0).
    fn start_main(&mut self) {
        let m = self.m;
        let entry = m.proc(m.main).entry;
        let init = self.ops.init();
        if !init.is_false() {
            self.live += init.size();
            let init = Rc::new(init);
            self.t.pe[entry.ix()] = Rc::clone(&init);
            self.t.layers[entry.ix()].push((Stamp(0), Rc::clone(&init)));
            self.t.stats.work += init.size() as u64;
            check_error(m, &mut self.t, entry, &init, Stamp(0));
            self.delta[entry.ix()] = Some(init);
            self.queue.push(Reverse((self.prio[entry.ix()], entry)));
        }
    }

    /// The images of the new states `d` of node `v` over its outgoing edges, in edge order; a
    /// call gives the callee's entry states and the return point's states through the
    /// callee's summary so far, and grows the call node's relation and contexts.
    fn edge_images(&mut self, v: NodeId, d: &Bdd) -> Vec<(NodeId, Bdd)> {
        let m = self.m;
        let ops = &self.ops;
        let node = m.node(v);
        let p = node.proc;
        let mut out: Vec<(NodeId, Bdd)> = Vec::new();
        for &eid in &node.out {
            let e = m.edge(eid);
            match &e.kind {
                EdgeKind::Transfer(tr) => {
                    let img = ops.image_forgetting(p, tr, d, &self.dead[e.to.ix()]);
                    out.push((e.to, img));
                }
                EdgeKind::Return(rel) => out.push((e.to, ops.exit_image(p, rel.as_ref(), d))),
                EdgeKind::Call(c) => {
                    let md = ops.call_rel(c, d);
                    let cd = ops.call_contexts(p, &md);
                    out.push((m.proc(c.callee).entry, ops.call_entry(c, &cd)));
                    out.push((
                        e.to,
                        ops.return_join(p, c, &md, &self.s_next[c.callee.ix()]),
                    ));
                    let tot = match self.m_total[v.ix()].take() {
                        Some(x) => {
                            self.live -= x.size();
                            apply::or(&x, &md)
                        }
                        None => md,
                    };
                    self.live += tot.size();
                    self.t.stats.largest_bdd = self.t.stats.largest_bdd.max(tot.size());
                    self.m_total[v.ix()] = Some(tot);
                    if m.proc(c.callee).call_sites.len() > 1 {
                        self.call_ctx[v.ix()] = Some(match self.call_ctx[v.ix()].take() {
                            Some(x) => apply::or(&x, &cd),
                            None => cd,
                        });
                    }
                }
            }
        }
        out
    }

    /// New states `d` at the exit of `p`: a new summary part, joined with the call relation of
    /// every call site that called with one of its contexts (the return points' states go to
    /// `out`), and added to the summary.
    fn summary_returns(&mut self, p: ProcId, d: &Bdd, out: &mut Vec<(NodeId, Bdd)>) {
        let m = self.m;
        let ops = &self.ops;
        let sd = ops.summary_next(p, d);
        let sites = &m.proc(p).call_sites;
        // With one call site, every context came from it.
        let sc = (sites.len() > 1).then(|| ops.summary_contexts(&sd));
        for &cs in sites {
            let ce = m.edge(cs);
            let EdgeKind::Call(c) = &ce.kind else {
                continue;
            };
            // Only call sites that called with one of the new summary's contexts.
            let relevant = match &sc {
                None => self.m_total[ce.from.ix()].is_some(),
                Some(sc) => self.call_ctx[ce.from.ix()]
                    .as_ref()
                    .is_some_and(|cc| intersects(cc, sc)),
            };
            if let (true, Some(mt)) = (relevant, &self.m_total[ce.from.ix()]) {
                let caller = m.node(ce.from).proc;
                out.push((ce.to, ops.return_join(caller, c, mt, &sd)));
            }
        }
        let s = &mut self.s_next[p.ix()];
        self.live -= s.size();
        *s = apply::or(s, &sd);
        self.live += s.size();
    }

    /// Adds the images `out` to the path edges: the states not seen before go into the
    /// current stamp's layer and the node's delta (queued if it was not), and are checked
    /// for the error.
    fn add_states(&mut self, out: Vec<(NodeId, Bdd)>) {
        let t = &mut self.t;
        for (w, img) in out {
            if img.is_false() {
                continue;
            }
            // Transfers forgot the dead variables already; calls and returns do it here.
            let img = if self.forget_here[w.ix()] {
                apply::exists(&img, &self.dead[w.ix()])
            } else {
                img
            };
            if !self.kept[w.ix()] {
                // Not made disjoint from earlier states: the next kept node does that.
                t.stats.work += img.size() as u64;
                debug_assert!(self.m.node(w).target.is_none(), "targets are kept nodes");
                self.delta[w.ix()] = Some(match self.delta[w.ix()].take() {
                    Some(x) => Rc::new(apply::or(&x, &img)),
                    None => {
                        self.queue.push(Reverse((self.prio[w.ix()], w)));
                        Rc::new(img)
                    }
                });
                continue;
            }
            let pe = &t.pe[w.ix()];
            let (new, all) = if pe.is_false() {
                let img = Rc::new(img);
                (Rc::clone(&img), img)
            } else {
                let new = apply::and_not(&img, pe);
                if new.is_false() {
                    continue;
                }
                let all = Rc::new(apply::or(pe, &new));
                (Rc::new(new), all)
            };
            t.stats.work += new.size() as u64;
            self.live = self.live + all.size() - pe.size();
            t.stats.largest_bdd = t.stats.largest_bdd.max(all.size());
            t.pe[w.ix()] = all;
            let layers = &mut t.layers[w.ix()];
            match layers.last_mut() {
                Some((s, b)) if *s == self.stamp => *b = Rc::new(apply::or(b, &new)),
                _ => layers.push((self.stamp, Rc::clone(&new))),
            }
            check_error(self.m, t, w, &new, self.stamp);
            self.delta[w.ix()] = Some(match self.delta[w.ix()].take() {
                Some(x) => Rc::new(apply::or(&x, &new)),
                None => {
                    self.queue.push(Reverse((self.prio[w.ix()], w)));
                    new
                }
            });
        }
    }
}

/// Whether two BDDs have a common satisfying valuation (without building the conjunction).
pub(crate) fn intersects(a: &Bdd, b: &Bdd) -> bool {
    Bdd::check_binary_op(usize::MAX, a, b, op_function::and).is_none_or(|(non_empty, _)| non_empty)
}

/// Records an error when the new states `d` of `w` (stamp `s`) meet its target's bad states.
fn check_error(m: &Model, t: &mut Tabulation, w: NodeId, d: &Bdd, s: Stamp) {
    if t.error.is_some() {
        return;
    }
    if let Some(tg) = &m.node(w).target
        && intersects(d, &tg.bad)
    {
        t.error = Some((w, s));
    }
}

/// The call edge leaving a call node, if it is one.
pub fn call_edge_of<'a>(m: &'a Model, v: NodeId) -> Option<(EdgeId, &'a CallEdge)> {
    m.node(v).out.iter().find_map(|&e| match &m.edge(e).kind {
        EdgeKind::Call(c) => Some((e, c)),
        _ => None,
    })
}
