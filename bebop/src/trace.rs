//! Witness extraction: a fully expanded, hierarchical error trace, shortest in Bebop's sense
//! (fewest steps at each call level, a call counting as one step of its caller; Ball &
//! Rajamani, Bebop, SPIN 2000 §4).
//!
//! The engine runs to its fixpoint, so every summary is complete. Then, level by level:
//!
//! 1. **Top level.** A breadth-first search over sets of `(CFG node, valuation)` (BDDs per
//!    node, layer `k` = states reached in `k` steps) from `main`'s initial states,
//!    where an intraprocedural edge is one step and a call steps to its return point through
//!    the callee's summary as one step. It stops at the first layer that meets an *error
//!    goal*: a target in a bad state, or a call that enters its callee in a context from which
//!    an error is reachable inside it (those contexts are computed per procedure, by rank:
//!    rank 0 reaches a target, rank `r + 1` calls a context of rank `<= r`).
//!    The layers are computed in A* order, guided by each node's CFG distance to a goal, and
//!    only where a path no longer than the shortest can pass (`Tracer::bfs`): the layers it
//!    leaves out hold no state of a shortest path, so the path found is the same.
//! 2. **Backwards through the layers.** Pick a concrete state of the goal (free values
//!    `false`), then at each layer `k - 1` a concrete predecessor whose transition leads to the
//!    chosen state (a pre-image computed by cofactoring with the known values; for a return
//!    point, a caller state at the call node, the callee context and the exit state that the
//!    summary joined). This is the path of the level, with its calls collapsed. The step is
//!    the one the fallback below takes too (module `concrete`), on other earlier states.
//! 3. **Calls.** A call that returns is expanded by the same search inside the callee, from
//!    its entry in the concrete context to its exit in the exit state the summary used; a
//!    call that ends in the error, from the concrete context to an error goal of a lower
//!    rank. Nested calls are expanded the same way, iteratively (an explicit stack of levels,
//!    no recursion proportional to the call depth); a level already searched (same procedure,
//!    context and goal) is reused.
//!
//! Well-foundedness: a shortest path inside a returning call may use the call itself (same
//! context, same exit state) as one step, and a failing call may be entered again in the same
//! context. So inside a returning call whose exit state the engine found in worklist
//! iteration `k` (its stamp), the calls may only use summary parts stamped below `k` (the
//! engine derived that exit state from such parts, so a path exists), and a failing level of
//! rank `r` only enters failing calls of rank `< r`. The top level uses all summaries.
//!
//! # Which states a layer keeps
//!
//! Only at the *cut nodes* of a procedure (the targets of the back edges of a depth-first
//! search of its CFG; every cycle passes through one) does a layer drop the states reached in
//! an earlier layer. Elsewhere layer `k` keeps every state its predecessors' layer `k - 1`
//! leads to, even one reached earlier: in loop-free stretches such states are rare (a join
//! after an `if` is reached from the two branches with different values) and subtracting
//! the union of the earlier layers costs more than the rest of the search. Every state of
//! layer `k` still has a predecessor in layer `k - 1`, every state reachable in `j` steps is in
//! some layer `<= j` (by induction; at a cut node it was kept when first reached), and the
//! search is finite (a cycle passes through a cut node, where no state is kept twice), so the
//! path found is still shortest.
//!
//! # Work budget
//!
//! A node may appear in many layers (on a
//! long straight-line program with many `if`s, a node is first reached with different
//! states at many different path lengths), so the search can cost quadratically more than the
//! reachability analysis. The searches of one extraction therefore share a work budget (the
//! total size of the `(node, layer)` sets expanded, [`crate::Options::trace_budget`], by
//! default [`TraceBudget::nodes`] of the engine's work). **The "shortest in Bebop's sense" guarantee above holds
//! when the budget suffices.** Past it, extraction falls back to a walk backwards over the
//! engine's worklist stamps (`trace_stamps.rs`): the trace is still a real execution,
//! checked like any other, but not necessarily shortest; a warning is logged and
//! [`crate::Stats::trace_shortest`] is false.
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

use crate::apply;
use crate::concrete::{Back, Earlier, ExitState, Fix, StepBack, internal};
/// The concrete states and steps of a trace, defined next to the backward step that both
/// walks share.
pub use crate::concrete::{Concrete, Ctx, PState, RawStep};
use crate::engine::{Keep, Ops, Tabulation, call_edge_of, intersects};
use crate::ids::{EdgeId, NodeId, ProcId, Stamp};
use crate::lower::{CallEdge, EdgeKind, Model, NodeKind, TargetWhat};
use crate::trace_stamps::Stamps;
use crate::vars::{Slot, Ver, pick};
use crate::{BebopError, TraceBudget};
use biodivine_lib_bdd::{Bdd, BddValuation, BddVariable};
use bp_grammar::trace::{Step, StepKind, TRACE_FORMAT, Target, Trace, Valuation};
use std::cell::Cell;
use std::cmp::Reverse;
use std::collections::hash_map::Entry;
use std::collections::{BTreeMap, BinaryHeap, HashMap, HashSet, VecDeque};
use std::rc::Rc;

/// What the search at one call level must reach.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
enum Goal {
    /// The procedure's exit in this state (a call that returns).
    Exit(ExitState),
    /// An error: a target node in a bad state, or a call whose callee reaches an error.
    Error,
}

/// One step of a path at one call level (calls not yet expanded).
#[derive(Clone, Debug)]
enum Item {
    /// An intraprocedural step.
    Stmt {
        edge: EdgeId,
        before: PState,
        after: PState,
    },
    /// A call that returns, as one step of the caller: the callee is entered with `qctx` and
    /// leaves in exit state `x`.
    Call {
        edge: EdgeId,
        before: PState,
        after: PState,
        qctx: Ctx,
        x: ExitState,
    },
    /// The `return` (or fall-off at `end`) into the exit (the last item of a returning call).
    Return { edge: EdgeId, before: PState },
    /// The last item of a level whose error is inside the callee (entered with `qctx`).
    ErrorCall {
        edge: EdgeId,
        before: PState,
        qctx: Ctx,
    },
    /// The error itself.
    Error { node: NodeId, state: PState },
}

/// The shortest path at one call level: its entry state and its items.
#[derive(Debug)]
struct LevelPath {
    entry: PState,
    items: Vec<Item>,
}

/// The BFS layers of one level: layer `k` holds, per node, the states first reached in `k`
/// steps (over the procedure's `Entry` and `Cur` variables).
type Layers = Vec<BTreeMap<NodeId, Bdd>>;

/// A summary as stored (context in version `Entry`) and with the context in version `Next`.
type Summary = (Bdd, Bdd);

/// Goals of a level search: node, states, and whether it is a call into a failing callee.
type Goals = Vec<(NodeId, Bdd, bool)>;

struct Tracer<'a, 'm, 'p> {
    c: Concrete<'m, 'p>,
    /// The backward step shared with the walk over the stamps.
    back: StepBack<'m, 'p>,
    ops: Ops<'m, 'p>,
    t: &'a Tabulation,
    /// Summaries by procedure and stamp bound (`None`: complete), as stored (context in
    /// version `Entry`) and with the context in version `Next`.
    sums: HashMap<(ProcId, Option<Stamp>), Rc<Summary>>,
    /// The engine's stamped layers (for the summary parts found before a stamp).
    stamps: Stamps<'a>,
    /// Per procedure: the contexts (over `Entry`) from which an error is reachable inside it,
    /// by rank (the fewest nested calls needed to reach it): `(r, contexts of rank <= r)`,
    /// increasing.
    err_ctx: Vec<Vec<(u32, Bdd)>>,
    /// Error goals by procedure and rank bound (built on first use).
    err_goals: HashMap<(ProcId, Option<u32>), Rc<Goals>>,
    /// The work of the searches so far: the total size (BDD nodes) of the `(node, layer)` sets
    /// expanded.
    work: Cell<u64>,
    /// The bound on `work`.
    budget: u64,
    /// Whether a search stopped at the budget.
    over_budget: Cell<bool>,
    /// Levels already searched, by procedure, context and goal (a call repeated in the trace
    /// is searched once).
    memo: HashMap<(ProcId, Ctx, Goal), Rc<LevelPath>>,
    /// Per procedure, the targets of the back edges of a depth-first search of its CFG
    /// (built on first use): every cycle passes through one of them.
    cuts: HashMap<ProcId, Rc<HashSet<NodeId>>>,
}

impl<'a, 'm, 'p> Tracer<'a, 'm, 'p> {
    fn new(m: &'m Model<'p>, t: &'a Tabulation, budget: u64) -> Self {
        let ops = Ops::new(m);
        let back = StepBack::new(m);
        let mut tr = Tracer {
            c: back.c,
            back,
            ops,
            t,
            sums: HashMap::new(),
            stamps: Stamps::new(m, t),
            err_ctx: Vec::new(),
            err_goals: HashMap::new(),
            work: Cell::new(0),
            budget,
            over_budget: Cell::new(false),
            memo: HashMap::new(),
            cuts: HashMap::new(),
        };
        tr.err_ctx = tr.error_contexts();
        tr
    }

    fn m(&self) -> &'m Model<'p> {
        self.c.m
    }

    /// Every BDD variable but the context (`Entry` copies of the globals and parameters) of `p`.
    fn non_ctx_vars(&self, p: ProcId) -> Vec<BddVariable> {
        let m = self.m();
        let keep: Vec<BddVariable> = if m.proc(p).tracks_entry {
            m.vars.vars(&m.ctx_slots(p), Ver::Entry)
        } else {
            Vec::new()
        };
        (0..m.vars.num_vars())
            .map(BddVariable::from_index)
            .filter(|v| !keep.contains(v))
            .collect()
    }

    /// The caller's states (over `Cur`) at call `c` that enter the callee in one of the
    /// contexts `ctxs` (over the callee's `Entry`).
    fn calls_into(&self, c: &CallEdge, ctxs: &Bdd) -> Bdd {
        let m = self.m();
        let vm = &m.vars;
        let params = m.param_slots(c.callee);
        let en = vm.rename(ctxs, &params, Ver::Entry, Ver::Next);
        let en = vm.rename(&en, &vm.globals(), Ver::Entry, Ver::Cur);
        c.arg_rel.and_exists(&en, &vm.vars(&params, Ver::Next))
    }

    /// Per procedure, the contexts from which an error is reachable inside it, by rank (least
    /// fixpoint over the call graph, computed in rounds: rank 0 reaches a target in a bad
    /// state, rank r + 1 calls a context of rank <= r). The ranks make the expansion of calls
    /// that end in the error well-founded: a level of rank r only enters contexts of rank < r.
    fn error_contexts(&self) -> Vec<Vec<(u32, Bdd)>> {
        let m = self.m();
        let np = m.procs.len();
        let mut e = vec![m.vars.ff(); np];
        let mut quant: Vec<Option<Vec<BddVariable>>> = vec![None; np];
        let mut proj = |p: ProcId, b: &Bdd| -> Bdd {
            let q = quant[p.ix()].get_or_insert_with(|| self.non_ctx_vars(p));
            apply::exists(b, q)
        };
        for (i, node) in m.nodes.iter().enumerate() {
            if let Some(tg) = &node.target {
                let pe = &self.t.pe[i];
                if !pe.is_false() {
                    let b = proj(node.proc, &apply::and(pe, &tg.bad));
                    e[node.proc.ix()] = apply::or(&e[node.proc.ix()], &b);
                }
            }
        }
        let mut hist: Vec<Vec<(u32, Bdd)>> = vec![Vec::new(); np];
        let mut changed: Vec<ProcId> = Vec::new();
        for (i, b) in e.iter().enumerate() {
            if !b.is_false() {
                hist[i].push((0, b.clone()));
                changed.push(ProcId(i as u32));
            }
        }
        let mut rank = 0u32;
        while !changed.is_empty() {
            rank += 1;
            // Contributions from the previous round's sets only.
            let mut add: BTreeMap<ProcId, Bdd> = BTreeMap::new();
            for q in changed.drain(..) {
                for &cs in &m.proc(q).call_sites {
                    let ce = m.edge(cs);
                    let EdgeKind::Call(c) = &ce.kind else {
                        continue;
                    };
                    let pe = &self.t.pe[ce.from.ix()];
                    if pe.is_false() {
                        continue;
                    }
                    let p = m.node(ce.from).proc;
                    let b = proj(p, &apply::and(pe, &self.calls_into(c, &e[q.ix()])));
                    if !b.is_false() {
                        let a = add.entry(p).or_insert_with(|| m.vars.ff());
                        *a = apply::or(a, &b);
                    }
                }
            }
            for (p, b) in add {
                let new = apply::or(&e[p.ix()], &b);
                if new != e[p.ix()] {
                    hist[p.ix()].push((rank, new.clone()));
                    e[p.ix()] = new;
                    changed.push(p);
                }
            }
        }
        hist
    }

    /// The contexts of `q` from which an error is reachable with rank below `below` (any
    /// rank for `None`).
    fn err_upto(&self, q: ProcId, below: Option<u32>) -> Bdd {
        let h = &self.err_ctx[q.ix()];
        let n = match below {
            None => h.len(),
            Some(r) => h.partition_point(|(k, _)| *k < r),
        };
        match n {
            0 => self.m().vars.ff(),
            n => h[n - 1].1.clone(),
        }
    }

    /// The rank of context `ctx` of `p` (the least rank whose set holds it).
    fn rank_of(&self, p: ProcId, ctx: &Ctx) -> Result<u32, BebopError> {
        // The sets grow with the rank: binary search for the first one holding the context.
        let fix = self.c.ctx_fix(p, ctx);
        let h = &self.err_ctx[p.ix()];
        let i = h.partition_point(|(_, b)| b.restrict(&fix).is_false());
        h.get(i)
            .map(|(r, _)| *r)
            .ok_or_else(|| internal("a failing call's context does not fail"))
    }

    /// The error goals of `p`, in order of preference: its targets (bad states), then its
    /// calls into a context of rank below `below` from which the callee reaches an error, in
    /// statement order.
    fn error_goals(&mut self, p: ProcId, below: Option<u32>) -> Rc<Goals> {
        if let Some(g) = self.err_goals.get(&(p, below)) {
            return Rc::clone(g);
        }
        let m = self.m();
        let nodes = &m.proc(p).stmt_nodes;
        let mut goals: Goals = nodes
            .iter()
            .filter_map(|&v| {
                m.node(v)
                    .target
                    .as_ref()
                    .map(|tg| (v, tg.bad.clone(), false))
            })
            .collect();
        for &v in nodes {
            if let Some((_, c)) = call_edge_of(m, v) {
                let e = self.err_upto(c.callee, below);
                if e.is_false() {
                    continue;
                }
                let b = self.calls_into(c, &e);
                if !b.is_false() {
                    goals.push((v, b, true));
                }
            }
        }
        let g = Rc::new(goals);
        self.err_goals.insert((p, below), Rc::clone(&g));
        g
    }

    /// The summary of `q` made of the exit states stamped below `bound` (all for `None`), in
    /// its stored form and with the context in version `Next`.
    fn summary(&mut self, q: ProcId, bound: Option<Stamp>) -> Rc<Summary> {
        if let Some(s) = self.sums.get(&(q, bound)) {
            return Rc::clone(s);
        }
        let exit = self.m().proc(q).exit;
        let entry_form = match bound {
            None => (*self.t.pe[exit.ix()]).clone(),
            Some(b) => self.stamps.prefix(exit, b, Bdd::clone),
        };
        let next_form = self.ops.summary_next(q, &entry_form);
        let s = Rc::new((entry_form, next_form));
        self.sums.insert((q, bound), Rc::clone(&s));
        s
    }

    /// The stamp of the layer of `q`'s exit where the engine found exit state `x` for context
    /// `ctx` (the earliest layer holding it, by a Fenwick descent).
    fn exit_stamp(&self, q: ProcId, ctx: &Ctx, x: &ExitState) -> Result<Stamp, BebopError> {
        let exit = self.m().proc(q).exit;
        let mut fix = self.c.ctx_fix(q, ctx);
        fix.extend(self.c.exit_fix(x));
        self.stamps
            .earliest(exit, Stamp(u32::MAX), |b| b.restrict(&fix))
            .map(|(k, _)| k)
            .ok_or_else(|| internal("an exit state the engine did not find"))
    }

    /// The targets of the back edges of an (iterative) depth-first search of the CFG of `p`
    /// from its entry, over the edges the level searches follow (statements, calls as one
    /// step, returns into the exit). Every cycle contains a back edge, so every cycle passes
    /// through one of these nodes.
    fn cut_nodes(&mut self, p: ProcId) -> Rc<HashSet<NodeId>> {
        if let Some(c) = self.cuts.get(&p) {
            return Rc::clone(c);
        }
        let m = self.m();
        let entry = m.proc(p).entry;
        // 0: unvisited, 1: on the DFS stack, 2: done.
        let mut state: HashMap<NodeId, u8> = HashMap::new();
        let mut cuts = HashSet::new();
        let mut stack: Vec<(NodeId, usize)> = vec![(entry, 0)];
        state.insert(entry, 1);
        while let Some((v, i)) = stack.pop() {
            let out = &m.node(v).out;
            if i < out.len() {
                stack.push((v, i + 1));
                let w = m.edge(out[i]).to;
                match state.get(&w).copied().unwrap_or(0) {
                    0 => {
                        state.insert(w, 1);
                        stack.push((w, 0));
                    }
                    1 => {
                        cuts.insert(w);
                    }
                    _ => {}
                }
            } else {
                state.insert(v, 2);
            }
        }
        let cuts = Rc::new(cuts);
        self.cuts.insert(p, Rc::clone(&cuts));
        cuts
    }

    /// The CFG distance from each node of `p` to the nearest goal node, over the edges the
    /// level searches follow (statements, calls as one step, returns into the exit when
    /// `to_exit`); nodes that reach no goal are absent. No path reaches a goal in fewer
    /// steps, and the distance drops by at most one along an edge: an admissible and
    /// consistent heuristic for [`Self::bfs`].
    fn goal_distance(&self, goals: &Goals, to_exit: bool) -> HashMap<NodeId, u32> {
        let m = self.m();
        let mut dist: HashMap<NodeId, u32> = HashMap::new();
        let mut queue: VecDeque<NodeId> = VecDeque::new();
        for (g, _, _) in goals.iter() {
            if dist.insert(*g, 0).is_none() {
                queue.push_back(*g);
            }
        }
        while let Some(w) = queue.pop_front() {
            let d = dist[&w] + 1;
            for &eid in &m.node(w).inc {
                let e = m.edge(eid);
                if matches!(e.kind, EdgeKind::Return(_)) && !to_exit {
                    continue;
                }
                if let Entry::Vacant(slot) = dist.entry(e.from) {
                    slot.insert(d);
                    queue.push_back(e.from);
                }
            }
        }
        dist
    }

    /// The breadth-first search at one call level of `p` from `init` (at its entry) until a
    /// layer meets one of `goals`: calls are single steps through the complete summaries.
    /// Returns the layers, the goal met (the first in `goals` order) and a state meeting it.
    ///
    /// The layers are expanded in A* order rather than layer by layer (the set-based A* of
    /// Jensen, Bryant & Veloso, "SetA*: an efficient BDD-based heuristic search algorithm",
    /// AAAI 2002): a bucket of states `(k, node)` (reached in `k` steps) is expanded in order
    /// of `k` plus the node's CFG distance to a goal ([`Self::goal_distance`]), then of `k`.
    /// The distance is consistent, so every bucket that leads to a bucket is expanded before
    /// it, a bucket holds exactly the states the layer `k` of a breadth-first search holds at
    /// its node, and a cut node's states reached earlier are those of the buckets expanded
    /// there before. The first goal met is at the least `k`; the search then expands nothing
    /// more, only completes the goal buckets of that layer. A bucket left out cannot hold a
    /// predecessor of a state on a shortest path (its own distance bound is already too
    /// large), so the walk back finds the path the breadth-first search would find, after
    /// expanding only the buckets on some path no longer than the shortest.
    fn bfs(
        &self,
        p: ProcId,
        init: Bdd,
        goals: &Goals,
        to_exit: bool,
        sums: &HashMap<ProcId, Rc<Summary>>,
        cuts: &HashSet<NodeId>,
    ) -> Result<(Layers, usize, BddValuation), BebopError> {
        let m = self.m();
        let entry = m.proc(p).entry;
        let dist = self.goal_distance(goals, to_exit);
        let no_path = || internal(&format!("no path to the goal in `{}`", m.proc(p).name));
        // Buckets generated and not yet expanded, and their order: (bound, steps, node).
        let mut open: HashMap<(usize, NodeId), Bdd> = HashMap::new();
        let mut queue: BinaryHeap<Reverse<(usize, usize, NodeId)>> = BinaryHeap::new();
        let h0 = *dist.get(&entry).ok_or_else(no_path)? as usize;
        open.insert((0, entry), init);
        queue.push(Reverse((h0, 0, entry)));
        // The states expanded so far, kept for the cut nodes only (see the module doc).
        let mut seen: HashMap<NodeId, Bdd> = HashMap::new();
        let mut layers: Layers = Vec::new();
        // The least number of steps that meets a goal, once known.
        let mut met: Option<usize> = None;
        while let Some(Reverse((f, k, v))) = queue.pop() {
            if met.is_some_and(|g| f > g) {
                break;
            }
            let b = open.remove(&(k, v)).expect("a queued bucket is open");
            let b = if cuts.contains(&v) {
                match seen.get_mut(&v) {
                    Some(s) => {
                        let new = apply::and_not(&b, s);
                        if new.is_false() {
                            continue;
                        }
                        *s = apply::or(s, &new);
                        new
                    }
                    None => {
                        seen.insert(v, b.clone());
                        b
                    }
                }
            } else {
                b
            };
            if layers.len() <= k {
                layers.resize_with(k + 1, BTreeMap::new);
            }
            if dist.get(&v) == Some(&0)
                && met.is_none()
                && goals.iter().any(|(g, gb, _)| *g == v && intersects(&b, gb))
            {
                met = Some(k);
            }
            layers[k].insert(v, b);
            if met.is_some() {
                // Only the goal buckets of the layer met remain (bound `k`, distance 0).
                continue;
            }
            let b = &layers[k][&v];
            let work = self.work.get() + b.size() as u64;
            self.work.set(work);
            if work > self.budget {
                self.over_budget.set(true);
                return Err(internal("search budget exceeded"));
            }
            for &eid in &m.node(v).out {
                let e = m.edge(eid);
                let Some(&hw) = dist.get(&e.to) else {
                    continue;
                };
                let img = match &e.kind {
                    EdgeKind::Transfer(tr) => self.ops.image(p, tr, b),
                    EdgeKind::Return(rel) if to_exit => self.ops.exit_image(p, rel.as_ref(), b),
                    EdgeKind::Return(_) => continue,
                    EdgeKind::Call(c) => {
                        self.ops
                            .return_join(p, c, &self.ops.call_rel(c, b), &sums[&c.callee].1)
                    }
                };
                if img.is_false() {
                    continue;
                }
                match open.get_mut(&(k + 1, e.to)) {
                    Some(o) => *o = apply::or(o, &img),
                    None => {
                        open.insert((k + 1, e.to), img);
                        queue.push(Reverse((k + 1 + hw as usize, k + 1, e.to)));
                    }
                }
            }
        }
        let k = met.ok_or_else(no_path)?;
        layers.truncate(k + 1);
        let cur = &layers[k];
        for (gi, (g, gb, _)) in goals.iter().enumerate() {
            if let Some(f) = cur.get(g) {
                let hit = apply::and(f, gb);
                if let Some(val) = pick(&hit) {
                    return Ok((layers, gi, val));
                }
            }
        }
        Err(internal("a goal met and then not found"))
    }

    /// The shortest path at the level of `p`: from `main`'s initial states (`ctx` = `None`)
    /// or from the entry of `p` called in context `ctx`, to `goal`. Memoised for calls.
    fn level(
        &mut self,
        p: ProcId,
        ctx: Option<&Ctx>,
        goal: &Goal,
    ) -> Result<Rc<LevelPath>, BebopError> {
        let key = ctx.map(|c| (p, c.clone(), goal.clone()));
        if let Some(k) = &key
            && let Some(lp) = self.memo.get(k)
        {
            return Ok(Rc::clone(lp));
        }
        let lp = Rc::new(self.search_level(p, ctx, goal)?);
        if let Some(k) = key {
            self.memo.insert(k, Rc::clone(&lp));
        }
        Ok(lp)
    }

    /// The shortest path at the level of `p` (see [`Self::level`]): a breadth-first search
    /// from the level's initial states until a layer meets a goal, then a walk back through
    /// the layers.
    fn search_level(
        &mut self,
        p: ProcId,
        ctx: Option<&Ctx>,
        goal: &Goal,
    ) -> Result<LevelPath, BebopError> {
        let init = self.level_init(p, ctx);
        let below = match ctx {
            Some(c) if matches!(goal, Goal::Error) => Some(self.rank_of(p, c)?),
            _ => None,
        };
        let goals = self.level_goals(p, goal, below);
        let sums = self.level_summaries(p, ctx, goal)?;
        let cuts = self.cut_nodes(p);
        let (layers, gi, val) =
            self.bfs(p, init, &goals, matches!(goal, Goal::Exit(_)), &sums, &cuts)?;
        let ctx = match ctx {
            Some(c) => c.clone(),
            None => self.c.read_ctx(p, &val),
        };
        let k = layers.len() - 1;
        let (goal_node, _, goal_is_call) = &goals[gi];
        let last = match goal {
            Goal::Exit(x) => {
                // The last step: a return into the exit, from layer k - 1.
                let prev = &layers[k.checked_sub(1).ok_or_else(|| internal("exit at entry"))?];
                let earlier = LayerBefore { prev, sums: &sums };
                let ((), eid, su) = self.back.exit_predecessor(&earlier, p, &ctx, x)?;
                let item = Item::Return {
                    edge: eid,
                    before: su.clone(),
                };
                (item, self.m().edge(eid).from, su, k - 1)
            }
            Goal::Error => {
                let w = self.c.read_state(p, &val, Ver::Cur);
                let item = self.error_item(p, *goal_node, *goal_is_call, &w, below)?;
                (item, *goal_node, w, k)
            }
        };
        self.path_back(p, &ctx, &layers, &sums, last)
    }

    /// The state at the entry of a level of `p`: `main`'s initial states (`ctx` = `None`), or
    /// the entry of `p` called in context `ctx` (its `enforce` holding).
    fn level_init(&self, p: ProcId, ctx: Option<&Ctx>) -> Bdd {
        let m = self.m();
        let pi = m.proc(p);
        match ctx {
            None => self.ops.init(),
            Some(qc) => {
                let ctx_cur = m.vars.cube(
                    m.ctx_slots(p)
                        .iter()
                        .zip(qc.g.iter().chain(qc.p.iter()).copied()),
                    Ver::Cur,
                );
                let x = apply::and(&self.c.ctx_cube(p, qc), &ctx_cur);
                if pi.has_enforce {
                    apply::and(&x, &pi.enforce)
                } else {
                    x
                }
            }
        }
    }

    /// The goals of a level of `p`: the error goals of rank below `below`, or the exit in
    /// the exit state of `goal`.
    fn level_goals(&mut self, p: ProcId, goal: &Goal, below: Option<u32>) -> Rc<Goals> {
        match goal {
            Goal::Error => self.error_goals(p, below),
            Goal::Exit(x) => {
                let m = self.m();
                let vm = &m.vars;
                let fix = self.c.exit_fix(x);
                let cube = vm.cube(
                    vm.globals()
                        .iter()
                        .chain(m.vars.rets().iter())
                        .zip(x.g.iter().chain(x.r.iter()).copied()),
                    Ver::Cur,
                );
                debug_assert_eq!(fix.len(), x.g.len() + x.r.len());
                Rc::new(vec![(m.proc(p).exit, cube, false)])
            }
        }
    }

    /// The summaries the calls of a level of `p` may use: all of them, except inside a call
    /// that returns, whose path may only use the summary parts found before its own exit
    /// state (so that the expansion of nested calls is well-founded).
    fn level_summaries(
        &mut self,
        p: ProcId,
        ctx: Option<&Ctx>,
        goal: &Goal,
    ) -> Result<HashMap<ProcId, Rc<Summary>>, BebopError> {
        let m = self.m();
        let bound = match (ctx, goal) {
            (Some(c), Goal::Exit(x)) => Some(self.exit_stamp(p, c, x)?),
            _ => None,
        };
        let mut sums: HashMap<ProcId, Rc<Summary>> = HashMap::new();
        for &v in &m.proc(p).stmt_nodes {
            if let Some((_, c)) = call_edge_of(m, v)
                && !sums.contains_key(&c.callee)
            {
                sums.insert(c.callee, self.summary(c.callee, bound));
            }
        }
        Ok(sums)
    }

    /// The last item of a level of `p` that ends in the error goal at `node` in state `w`:
    /// the error itself, or the call (`is_call`) that enters its callee in a context of rank
    /// below `below` from which the callee reaches an error.
    fn error_item(
        &self,
        p: ProcId,
        node: NodeId,
        is_call: bool,
        w: &PState,
        below: Option<u32>,
    ) -> Result<Item, BebopError> {
        if !is_call {
            return Ok(Item::Error {
                node,
                state: w.clone(),
            });
        }
        let m = self.m();
        let vm = &m.vars;
        let (eid, c) = call_edge_of(m, node).ok_or_else(|| internal("goal kind"))?;
        let q = c.callee;
        let sfix = self.c.state_fix(&m.scope_slots(p), w, Ver::Cur);
        let gefix: Fix = vm
            .globals()
            .iter()
            .zip(w.g.iter())
            .map(|(s, b)| (vm.var(*s, Ver::Entry), *b))
            .collect();
        let en = vm.rename(
            &self.err_upto(q, below).restrict(&gefix),
            &m.param_slots(q),
            Ver::Entry,
            Ver::Next,
        );
        let qc = apply::and(&c.arg_rel.restrict(&sfix), &en);
        let qv = pick(&qc).ok_or_else(|| internal("no failing callee context"))?;
        let qctx = Ctx {
            g: w.g.clone(),
            p: m.param_slots(q)
                .iter()
                .map(|s| vm.value(&qv, *s, Ver::Next))
                .collect(),
        };
        Ok(Item::ErrorCall {
            edge: eid,
            before: w.clone(),
            qctx,
        })
    }

    /// The path of a level of `p` (context `ctx`) backwards through its `layers` from its
    /// `last` item, reached at node `v` in state `w` in layer `k`: at each layer `k - 1` a
    /// predecessor that leads to `(v, w)` ([`StepBack::predecessor`]), down to the entry.
    fn path_back(
        &self,
        p: ProcId,
        ctx: &Ctx,
        layers: &Layers,
        sums: &HashMap<ProcId, Rc<Summary>>,
        last: (Item, NodeId, PState, usize),
    ) -> Result<LevelPath, BebopError> {
        let ctx_fix = self.c.ctx_fix(p, ctx);
        let (item, mut v, mut w, mut k) = last;
        let mut items: Vec<Item> = vec![item];
        while k > 0 {
            let earlier = LayerBefore {
                prev: &layers[k - 1],
                sums,
            };
            let (u, sigma, item) = match self.back.predecessor(&earlier, p, ctx, &ctx_fix, v, &w)? {
                Some(((), Back::Stmt { edge, from, before })) => {
                    let item = Item::Stmt {
                        edge,
                        before: before.clone(),
                        after: w.clone(),
                    };
                    (from, before, item)
                }
                Some(((), Back::Call { edge, from, call })) => {
                    let item = Item::Call {
                        edge,
                        before: call.before.clone(),
                        after: w.clone(),
                        qctx: call.qctx,
                        x: call.x,
                    };
                    (from, call.before, item)
                }
                None => {
                    return Err(internal(&format!(
                        "no predecessor of node {v} in layer {}",
                        k - 1
                    )));
                }
            };
            items.push(item);
            v = u;
            w = sigma;
            k -= 1;
        }
        if v != self.m().proc(p).entry {
            return Err(internal("the backward search did not end at the entry"));
        }
        items.reverse();
        Ok(LevelPath { entry: w, items })
    }
}

/// The earlier states of a level's walk back: the previous layer of its breadth-first search,
/// where every predecessor is as good as another (the first edge that has one wins), and the
/// summaries its calls use.
struct LayerBefore<'s> {
    prev: &'s BTreeMap<NodeId, Bdd>,
    sums: &'s HashMap<ProcId, Rc<Summary>>,
}

impl Earlier for LayerBefore<'_> {
    type Rank = ();
    const FIRST_WINS: bool = true;

    fn reaches(&self, node: NodeId) -> bool {
        self.prev.contains_key(&node)
    }

    fn at(&self, node: NodeId, f: impl Fn(&Bdd) -> Bdd) -> Option<((), Bdd)> {
        let b = f(self.prev.get(&node)?);
        (!b.is_false()).then_some(((), b))
    }

    fn exits(&self, q: ProcId, f: impl Fn(&Bdd) -> Bdd) -> Bdd {
        f(&self.sums[&q].0)
    }

    fn exit_at(&self, q: ProcId, f: impl Fn(&Bdd) -> Bdd) -> Option<((), Bdd)> {
        let b = f(&self.sums[&q].0);
        (!b.is_false()).then_some(((), b))
    }
}

/// A call level being emitted.
struct Frame {
    path: Rc<LevelPath>,
    next: usize,
    proc: ProcId,
    depth: i64,
    /// The caller's procedure and state after the call returns (none for a call that ends in
    /// the error).
    ret_to: Option<(ProcId, PState)>,
}

/// Extracts the internal (node-level) trace of the error found by the tabulation, and whether
/// it is shortest: the shortest-trace search within `budget`, else the walk over the engine's
/// stamps (`trace_stamps.rs`).
pub fn extract_raw(
    m: &Model,
    t: &Tabulation,
    budget: TraceBudget,
) -> Result<(Vec<RawStep>, bool), BebopError> {
    if t.error.is_none() {
        return Err(internal("no error to explain"));
    }
    if !t.complete {
        return Err(internal("the tabulation did not reach its fixpoint"));
    }
    let mut tr = Tracer::new(m, t, budget.nodes(t.stats.work));
    let res = shortest_raw(m, &mut tr);
    tracing::debug!(
        work = tr.work.get(),
        budget = tr.budget,
        "shortest-trace search"
    );
    match res {
        Ok(steps) => Ok((steps, true)),
        Err(_) if tr.over_budget.get() => {
            tracing::warn!(
                budget = tr.budget,
                "trace search budget exceeded; the trace is a real path but not guaranteed shortest"
            );
            drop(tr);
            // The walk over the stamps needs every node's layers: the engine is run again,
            // storing them all, when the first run did not (it is deterministic, and its
            // result is as consistent as the first one's).
            let all;
            let t = if t.keep == Keep::All {
                t
            } else {
                all = crate::engine::run(m, false, Keep::All);
                &all
            };
            Ok((crate::trace_stamps::extract_raw(m, t)?, false))
        }
        Err(e) => Err(e),
    }
}

/// The shortest trace (level by level, calls expanded).
fn shortest_raw(m: &Model, tr: &mut Tracer) -> Result<Vec<RawStep>, BebopError> {
    let top = tr.level(m.main, None, &Goal::Error)?;
    let mut frames = vec![Frame {
        path: top,
        next: 0,
        proc: m.main,
        depth: 0,
        ret_to: None,
    }];
    let mut steps: Vec<RawStep> = Vec::new();
    loop {
        let fr = frames
            .last_mut()
            .ok_or_else(|| internal("the trace ended without an error"))?;
        let path = Rc::clone(&fr.path);
        let item = path
            .items
            .get(fr.next)
            .ok_or_else(|| internal("a level ended early"))?;
        fr.next += 1;
        let (p, depth) = (fr.proc, fr.depth);
        let from = |e: EdgeId| m.edge(e).from;
        match item {
            Item::Stmt {
                edge,
                before,
                after,
            } => steps.push(RawStep {
                kind: StepKind::Stmt,
                node: from(*edge),
                edge: Some(*edge),
                depth,
                before: (p, before.clone()),
                after: (p, after.clone()),
            }),
            Item::Call {
                edge,
                before,
                after,
                qctx,
                x,
            } => {
                let q = callee_of(m, *edge)?;
                let lp = tr.level(q, Some(qctx), &Goal::Exit(x.clone()))?;
                steps.push(RawStep {
                    kind: StepKind::Call,
                    node: from(*edge),
                    edge: Some(*edge),
                    depth,
                    before: (p, before.clone()),
                    after: (q, lp.entry.clone()),
                });
                frames.push(Frame {
                    path: lp,
                    next: 0,
                    proc: q,
                    depth: depth + 1,
                    ret_to: Some((p, after.clone())),
                });
            }
            Item::Return { edge, before } => {
                let fr = frames.pop().ok_or_else(|| internal("frames"))?;
                let after = fr
                    .ret_to
                    .ok_or_else(|| internal("a return without a caller"))?;
                steps.push(RawStep {
                    kind: StepKind::Return,
                    node: from(*edge),
                    edge: Some(*edge),
                    depth,
                    before: (p, before.clone()),
                    after,
                });
            }
            Item::ErrorCall { edge, before, qctx } => {
                let q = callee_of(m, *edge)?;
                let lp = tr.level(q, Some(qctx), &Goal::Error)?;
                steps.push(RawStep {
                    kind: StepKind::Call,
                    node: from(*edge),
                    edge: Some(*edge),
                    depth,
                    before: (p, before.clone()),
                    after: (q, lp.entry.clone()),
                });
                frames.pop();
                frames.push(Frame {
                    path: lp,
                    next: 0,
                    proc: q,
                    depth: depth + 1,
                    ret_to: None,
                });
            }
            Item::Error { node, state } => {
                steps.push(RawStep {
                    kind: StepKind::Error,
                    node: *node,
                    edge: None,
                    depth,
                    before: (p, state.clone()),
                    after: (p, state.clone()),
                });
                return Ok(steps);
            }
        }
    }
}

fn callee_of(m: &Model, e: EdgeId) -> Result<ProcId, BebopError> {
    match &m.edge(e).kind {
        EdgeKind::Call(c) => Ok(c.callee),
        _ => Err(internal("a call item on a non-call edge")),
    }
}

/// Per procedure (built on first use), its scope's variable names in sorted order with their
/// slots: a valuation is then built from an already sorted sequence (the map's sort finds it
/// sorted in one pass) and no name is formatted again (a long trace has many steps over few
/// procedures).
struct Scopes<'m, 'p> {
    m: &'m Model<'p>,
    sorted: Vec<Option<Vec<(String, Slot)>>>,
}

impl<'m, 'p> Scopes<'m, 'p> {
    fn new(m: &'m Model<'p>) -> Self {
        Scopes {
            m,
            sorted: vec![None; m.procs.len()],
        }
    }

    /// The valuation of a state of `p`, by variable name.
    fn valuation(&mut self, p: ProcId, st: &PState) -> Valuation {
        let m = self.m;
        let names = self.sorted[p.ix()].get_or_insert_with(|| {
            let mut v: Vec<(String, Slot)> = m
                .scope_slots(p)
                .into_iter()
                .map(|s| (m.slot_name(p, s), s))
                .collect();
            v.sort();
            v
        });
        names.iter().map(|(n, s)| (n.clone(), st.get(*s))).collect()
    }
}

/// Renders one node-level step in the public format.
fn public_step(scopes: &mut Scopes, s: &RawStep) -> Step {
    let m = scopes.m;
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
        before: scopes.valuation(s.before.0, &s.before.1),
        after: scopes.valuation(s.after.0, &s.after.1),
    }
}

/// The public form of an internal trace of `m` ([`extract_raw`]'s): it needs the model only,
/// so a caller may free the tabulation first.
pub fn public(m: &Model, raw: &[RawStep], program_name: &str) -> Result<Trace, BebopError> {
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
    let trace = Trace {
        format: TRACE_FORMAT.to_string(),
        program: program_name.to_string(),
        header: m.prog.header.clone(),
        target,
        steps: {
            let mut scopes = Scopes::new(m);
            raw.iter().map(|s| public_step(&mut scopes, s)).collect()
        },
    };
    Ok(trace)
}
