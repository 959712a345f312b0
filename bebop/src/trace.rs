//! Witness extraction: a fully expanded, hierarchical error trace, shortest in Bebop's sense
//! (fewest steps at each call level, a call counting as one step of its caller; Ball &
//! Rajamani, Bebop, SPIN 2000 §4; `bp-language.md` §3.1 "Traces").
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
//! 2. **Backwards through the layers.** Pick a concrete state of the goal (free values
//!    `false`), then at each layer `k - 1` a concrete predecessor whose transition leads to the
//!    chosen state (a pre-image computed by cofactoring with the known values; for a return
//!    point, a caller state at the call node, the callee context and the exit state that the
//!    summary joined). This is the path of the level, with its calls collapsed.
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
//! the union of the earlier layers cost more than the rest of the search (2/3 of the trace
//! time on the locks tasks). Every state of layer `k` still has a predecessor in layer
//! `k - 1`, every state reachable in `j` steps is in some layer `<= j` (by induction; at a cut
//! node it was kept when first reached), and the search is finite (a cycle passes through a
//! cut node, where no state is kept twice), so the path found is still shortest.
//!
//! # Work budget
//!
//! A node may appear in many layers (on a
//! long straight-line program with many `if`s, a node is first reached with different
//! states at many different path lengths), so the search can cost quadratically more than the
//! reachability analysis. The searches of one extraction therefore share a work budget (the
//! total size of the `(node, layer)` sets expanded, [`default_budget`] or
//! [`crate::Options::trace_budget`]). **The "shortest in Bebop's sense" guarantee above holds
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

use crate::BebopError;
use crate::engine::{Ops, Tabulation, call_edge_of};
use crate::ids::{EdgeId, NodeId, ProcId, Stamp};
use crate::lower::{CallEdge, EdgeKind, Model, NodeKind, TargetWhat, Transfer};
use crate::vars::{Slot, Ver, pick};
use biodivine_lib_bdd::{Bdd, BddValuation, BddVariable, op_function};
use bp_grammar::trace::{Step, StepKind, TRACE_FORMAT, Target, Trace, Valuation};
use std::cell::{Cell, RefCell};
use std::collections::{BTreeMap, HashMap, HashSet};
use std::rc::Rc;

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
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Ctx {
    /// Globals.
    pub g: Vec<bool>,
    /// Parameters.
    pub p: Vec<bool>,
}

/// A concrete state of an exit node: the globals and the return slots.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) struct ExitState {
    pub(crate) g: Vec<bool>,
    pub(crate) r: Vec<bool>,
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

    /// Fixes the context of `p` (its `Entry` variables).
    pub(crate) fn ctx_fix(&self, p: ProcId, ctx: &Ctx) -> Fix {
        let m = self.m;
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

    /// Fixes some slots of a state in version `ver`.
    pub(crate) fn state_fix(&self, slots: &[Slot], st: &PState, ver: Ver) -> Fix {
        let vm = &self.m.vars;
        slots
            .iter()
            .map(|s| (vm.var(*s, ver), st.get(*s)))
            .collect()
    }

    /// Fixes an exit state (globals and return slots, in version `Cur`).
    pub(crate) fn exit_fix(&self, x: &ExitState) -> Fix {
        let vm = &self.m.vars;
        vm.globals()
            .into_iter()
            .zip(x.g.iter())
            .chain(self.m.ret_slots().into_iter().zip(x.r.iter()))
            .map(|(s, b)| (vm.var(s, Ver::Cur), *b))
            .collect()
    }

    /// For a call `c` that returns into caller state `w`: fixes the callee's exit states
    /// compatible with `w` (the globals the call does not assign and the returned values).
    pub(crate) fn return_fix(&self, c: &CallEdge, w: &PState) -> Fix {
        let vm = &self.m.vars;
        let targeted: Vec<Slot> = c.targets.iter().flatten().copied().collect();
        let kept_globals: Vec<Slot> = vm
            .globals()
            .into_iter()
            .filter(|s| !targeted.contains(s))
            .collect();
        let mut xfix = self.state_fix(&kept_globals, w, Ver::Cur);
        for (j, tg) in c.targets.iter().enumerate() {
            if let Some(s) = tg {
                xfix.push((vm.var(Slot::Ret(j as u32), Ver::Cur), w.get(*s)));
            }
        }
        xfix
    }

    /// For a call `c` of `p` (context `ctx`) that returns into `w` through exit states `x`
    /// (restricted by [`Self::return_fix`]): the callee contexts of `x` (over `Next`), the
    /// relation of the caller states at the call (over `Cur`) that enter such a context, and
    /// the fix of the caller variables the call keeps (context and untouched frame slots).
    pub(crate) fn return_join(
        &self,
        p: ProcId,
        c: &CallEdge,
        x: &Bdd,
        ctx: &Ctx,
        w: &PState,
        globals_next_cur: &Bdd,
    ) -> (Bdd, Bdd, Fix) {
        let m = self.m;
        let vm = &m.vars;
        let q = c.callee;
        let targeted: Vec<Slot> = c.targets.iter().flatten().copied().collect();
        let mut cur_q = vm.vars(&vm.globals(), Ver::Cur);
        cur_q.extend(vm.vars(&m.ret_slots(), Ver::Cur));
        let ent = x.exists(&cur_q);
        let qctx_slots = m.ctx_slots(q);
        let ent_n = vm.rename(&ent, &qctx_slots, Ver::Entry, Ver::Next);
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
            .and(globals_next_cur)
            .and(&ent_n)
            .exists(&vm.vars(&qctx_slots, Ver::Next));
        (ent_n, j, pfix)
    }

    /// The caller state at call `c` read from `val` (a valuation of the relation of
    /// [`Self::return_join`]; the rest as in `w`), and the callee context it enters (one of
    /// `ent_n`).
    pub(crate) fn return_caller(
        &self,
        p: ProcId,
        c: &CallEdge,
        ent_n: &Bdd,
        val: &BddValuation,
        w: &PState,
    ) -> Result<(PState, Ctx), BebopError> {
        let m = self.m;
        let vm = &m.vars;
        let globals = vm.globals();
        let mut sigma = w.clone();
        for s in globals.iter().chain(c.targets.iter().flatten()) {
            sigma.set(*s, vm.value(val, *s, Ver::Cur));
        }
        let sfix = self.state_fix(&m.scope_slots(p), &sigma, Ver::Cur);
        let gfix = self.state_fix(&globals, &sigma, Ver::Next);
        let qc = c.arg_rel.restrict(&sfix).and(&ent_n.restrict(&gfix));
        let val = pick(&qc).ok_or_else(|| internal("no callee context"))?;
        let qctx = Ctx {
            g: sigma.g.clone(),
            p: m.param_slots(c.callee)
                .iter()
                .map(|s| vm.value(&val, *s, Ver::Next))
                .collect(),
        };
        Ok((sigma, qctx))
    }

    /// The callee's exit state of call `c` returning into `w`, the values `w` does not
    /// determine read from `val`.
    pub(crate) fn return_exit(&self, c: &CallEdge, val: &BddValuation, w: &PState) -> ExitState {
        let vm = &self.m.vars;
        let targeted: Vec<Slot> = c.targets.iter().flatten().copied().collect();
        ExitState {
            g: vm
                .globals()
                .iter()
                .map(|s| {
                    if targeted.contains(s) {
                        vm.value(val, *s, Ver::Cur)
                    } else {
                        w.get(*s)
                    }
                })
                .collect(),
            r: self
                .m
                .ret_slots()
                .iter()
                .enumerate()
                .map(|(j, s)| match c.targets.get(j).copied().flatten() {
                    Some(t) => w.get(t),
                    None => vm.value(val, *s, Ver::Cur),
                })
                .collect(),
        }
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

/// The engine's worklist layers of each node (`Tabulation::layers`: the states added in each
/// worklist iteration, by stamp), with Fenwick trees (built on first use) to query unions of
/// the layers stamped before a bound.
pub(crate) struct Stamps<'a> {
    t: &'a Tabulation,
    ff: Bdd,
    /// Per node: entry `i` (1-based) is the union of the layers `(i - lowbit(i), i]`.
    trees: RefCell<HashMap<NodeId, Rc<Vec<Bdd>>>>,
}

impl<'a> Stamps<'a> {
    pub(crate) fn new(m: &Model, t: &'a Tabulation) -> Self {
        Stamps {
            t,
            ff: m.vars.ff(),
            trees: RefCell::new(HashMap::new()),
        }
    }

    fn tree(&self, node: NodeId) -> Rc<Vec<Bdd>> {
        let layers = &self.t.layers[node.ix()];
        let mut trees = self.trees.borrow_mut();
        Rc::clone(trees.entry(node).or_insert_with(|| {
            let mut tree: Vec<Bdd> = layers.iter().map(|(_, b)| (**b).clone()).collect();
            let n = tree.len();
            for i in 1..=n {
                let j = i + (i & i.wrapping_neg());
                if j <= n {
                    tree[j - 1] = tree[j - 1].or(&tree[i - 1]);
                }
            }
            Rc::new(tree)
        }))
    }

    /// `f` of the union of the layers of `node` stamped below `before` (`f` distributes over
    /// unions).
    pub(crate) fn prefix(&self, node: NodeId, before: Stamp, f: impl Fn(&Bdd) -> Bdd) -> Bdd {
        let idx = self.t.layers[node.ix()].partition_point(|(k, _)| *k < before);
        let tree = self.tree(node);
        let mut acc = self.ff.clone();
        let mut i = idx;
        while i > 0 {
            acc = acc.or(&f(&tree[i - 1]));
            i -= i & i.wrapping_neg();
        }
        acc
    }

    /// The earliest layer of `node` stamped below `before` where `f` (which distributes over
    /// unions) is not empty: its stamp and `f` of it.
    pub(crate) fn earliest(
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
        // Fenwick descent for the largest `pos` whose prefix fails `f`. Since `f` distributes
        // over unions and the prefix accumulated so far fails it, a block can be skipped
        // exactly when `f` fails on the block alone.
        let tree = self.tree(node);
        let mut pos = 0usize;
        let mut step = 1usize << (usize::BITS - 1 - n.leading_zeros());
        while step > 0 {
            if pos + step <= n && f(&tree[pos + step - 1]).is_false() {
                pos += step;
            }
            step >>= 1;
        }
        if pos >= n {
            return None;
        }
        let r = f(&layers[pos].1);
        (!r.is_false()).then(|| (layers[pos].0, r))
    }
}

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

pub(crate) fn internal(msg: &str) -> BebopError {
    BebopError::Internal(format!("trace extraction: {msg}"))
}

pub(crate) type Fix = Vec<(BddVariable, bool)>;

/// The BFS layers of one level: layer `k` holds, per node, the states first reached in `k`
/// steps (over the procedure's `Entry` and `Cur` variables).
type Layers = Vec<BTreeMap<NodeId, Bdd>>;

/// A summary as stored (context in version `Entry`) and with the context in version `Next`.
type Summary = (Bdd, Bdd);

/// Goals of a level search: node, states, and whether it is a call into a failing callee.
type Goals = Vec<(NodeId, Bdd, bool)>;

struct Tracer<'a, 'm, 'p> {
    c: Concrete<'m, 'p>,
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
    /// `⋀ g@Next ↔ g@Cur` over the globals.
    globals_next_cur: Bdd,
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
        let mut tr = Tracer {
            c: Concrete { m },
            ops,
            t,
            sums: HashMap::new(),
            stamps: Stamps::new(m, t),
            err_ctx: Vec::new(),
            err_goals: HashMap::new(),
            globals_next_cur: m.vars.identity(&m.vars.globals(), Ver::Next, Ver::Cur),
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
        Bdd::binary_op_with_exists(
            &c.arg_rel,
            &en,
            op_function::and,
            &vm.vars(&params, Ver::Next),
        )
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
            b.exists(q)
        };
        for (i, node) in m.nodes.iter().enumerate() {
            if let Some(tg) = &node.target {
                let pe = &self.t.pe[i];
                if !pe.is_false() {
                    let b = proj(node.proc, &pe.and(&tg.bad));
                    e[node.proc.ix()] = e[node.proc.ix()].or(&b);
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
                    let b = proj(p, &pe.and(&self.calls_into(c, &e[q.ix()])));
                    if !b.is_false() {
                        let a = add.entry(p).or_insert_with(|| m.vars.ff());
                        *a = a.or(&b);
                    }
                }
            }
            for (p, b) in add {
                let new = e[p.ix()].or(&b);
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

    /// Breadth-first search at one call level of `p` from `init` (at its entry) until a layer
    /// meets one of `goals`: calls are single steps through the complete summaries. Returns
    /// the layers, the goal met (the first in `goals` order) and a state meeting it.
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
        // The states already reached, kept for the cut nodes only (see the module doc).
        let mut seen: HashMap<NodeId, Bdd> = HashMap::new();
        if cuts.contains(&entry) {
            seen.insert(entry, init.clone());
        }
        let mut layers: Layers = vec![BTreeMap::from([(entry, init)])];
        loop {
            let cur = layers.last().expect("at least one layer");
            for (gi, (g, gb, _)) in goals.iter().enumerate() {
                if let Some(f) = cur.get(g) {
                    let hit = f.and(gb);
                    if let Some(val) = pick(&hit) {
                        return Ok((layers, gi, val));
                    }
                }
            }
            let mut next: BTreeMap<NodeId, Bdd> = BTreeMap::new();
            let work = self.work.get() + cur.values().map(|f| f.size() as u64).sum::<u64>();
            self.work.set(work);
            if work > self.budget {
                self.over_budget.set(true);
                return Err(internal("search budget exceeded"));
            }
            for (v, f) in cur {
                for &eid in &m.node(*v).out {
                    let e = m.edge(eid);
                    let img = match &e.kind {
                        EdgeKind::Transfer(tr) => self.ops.image(p, tr, f),
                        EdgeKind::Return(rel) if to_exit => self.ops.exit_image(p, rel.as_ref(), f),
                        EdgeKind::Return(_) => continue,
                        EdgeKind::Call(c) => {
                            self.ops
                                .return_join(p, c, &self.ops.call_rel(c, f), &sums[&c.callee].1)
                        }
                    };
                    if img.is_false() {
                        continue;
                    }
                    match next.get_mut(&e.to) {
                        Some(b) => *b = b.or(&img),
                        None => {
                            next.insert(e.to, img);
                        }
                    }
                }
            }
            let mut fresh: BTreeMap<NodeId, Bdd> = BTreeMap::new();
            for (w, b) in next {
                if !cuts.contains(&w) {
                    fresh.insert(w, b);
                    continue;
                }
                let new = match seen.get_mut(&w) {
                    Some(s) => {
                        let new = b.and_not(s);
                        if new.is_false() {
                            continue;
                        }
                        *s = s.or(&new);
                        new
                    }
                    None => {
                        seen.insert(w, b.clone());
                        b
                    }
                };
                fresh.insert(w, new);
            }
            if fresh.is_empty() {
                return Err(internal(&format!(
                    "no path to the goal in `{}`",
                    m.proc(p).name
                )));
            }
            layers.push(fresh);
        }
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

    fn search_level(
        &mut self,
        p: ProcId,
        ctx: Option<&Ctx>,
        goal: &Goal,
    ) -> Result<LevelPath, BebopError> {
        let m = self.m();
        let vm = &m.vars;
        let pi = m.proc(p);
        let init = match ctx {
            None => self.ops.init(),
            Some(qc) => {
                let ctx_cur = vm.cube(
                    m.ctx_slots(p)
                        .iter()
                        .zip(qc.g.iter().chain(qc.p.iter()).copied()),
                    Ver::Cur,
                );
                let x = self.c.ctx_cube(p, qc).and(&ctx_cur);
                if pi.has_enforce {
                    x.and(&pi.enforce)
                } else {
                    x
                }
            }
        };
        let below = match ctx {
            Some(c) if matches!(goal, Goal::Error) => Some(self.rank_of(p, c)?),
            _ => None,
        };
        let goals: Rc<Goals> = match goal {
            Goal::Error => self.error_goals(p, below),
            Goal::Exit(x) => {
                let fix = self.c.exit_fix(x);
                let cube = vm.cube(
                    vm.globals()
                        .iter()
                        .chain(m.ret_slots().iter())
                        .zip(x.g.iter().chain(x.r.iter()).copied()),
                    Ver::Cur,
                );
                debug_assert_eq!(fix.len(), x.g.len() + x.r.len());
                Rc::new(vec![(pi.exit, cube, false)])
            }
        };
        // The summaries the calls of this level may use: all of them, except inside a call that
        // returns, whose path may only use the summary parts found before its own exit state
        // (so that the expansion of nested calls is well-founded).
        let bound = match (ctx, goal) {
            (Some(c), Goal::Exit(x)) => Some(self.exit_stamp(p, c, x)?),
            _ => None,
        };
        let mut sums: HashMap<ProcId, Rc<Summary>> = HashMap::new();
        for &v in &pi.stmt_nodes {
            if let Some((_, c)) = call_edge_of(m, v)
                && !sums.contains_key(&c.callee)
            {
                sums.insert(c.callee, self.summary(c.callee, bound));
            }
        }
        let cuts = self.cut_nodes(p);
        let (layers, gi, val) =
            self.bfs(p, init, &goals, matches!(goal, Goal::Exit(_)), &sums, &cuts)?;
        let ctx = match ctx {
            Some(c) => c.clone(),
            None => self.c.read_ctx(p, &val),
        };
        let ctx_fix = self.c.ctx_fix(p, &ctx);
        let scope = m.scope_slots(p);
        let mut items: Vec<Item> = Vec::new();
        let mut k = layers.len() - 1;
        let (goal_node, _, goal_is_call) = &goals[gi];
        let mut v = *goal_node;
        let mut w: PState;
        match goal {
            Goal::Exit(x) => {
                // The last step: a return into the exit, from layer k - 1.
                let prev = &layers[k.checked_sub(1).ok_or_else(|| internal("exit at entry"))?];
                let gfix: Fix = vm
                    .globals()
                    .into_iter()
                    .zip(x.g.iter())
                    .map(|(s, b)| (vm.var(s, Ver::Cur), *b))
                    .collect();
                let mut lfix = ctx_fix.clone();
                lfix.extend(gfix.iter().copied());
                let rfix = self.c.exit_fix(x);
                let mut found = None;
                for &eid in &m.node(pi.exit).inc {
                    let e = m.edge(eid);
                    let (EdgeKind::Return(rel), Some(f)) = (&e.kind, prev.get(&e.from)) else {
                        continue;
                    };
                    let cands = match rel {
                        Some(r) => f.restrict(&lfix).and(&r.restrict(&rfix)),
                        None => f.restrict(&lfix),
                    };
                    if let Some(val) = pick(&cands) {
                        found = Some((eid, val));
                        break;
                    }
                }
                let (eid, val) = found.ok_or_else(|| internal("no return into the exit state"))?;
                let su = PState {
                    g: x.g.clone(),
                    f: m.frame_slots(p)
                        .iter()
                        .map(|s| vm.value(&val, *s, Ver::Cur))
                        .collect(),
                };
                items.push(Item::Return {
                    edge: eid,
                    before: su.clone(),
                });
                v = m.edge(eid).from;
                w = su;
                k -= 1;
            }
            Goal::Error => {
                w = self.c.read_state(p, &val, Ver::Cur);
                if !goal_is_call {
                    items.push(Item::Error {
                        node: v,
                        state: w.clone(),
                    });
                } else {
                    let (eid, c) = call_edge_of(m, v).ok_or_else(|| internal("goal kind"))?;
                    let q = c.callee;
                    let sfix = self.c.state_fix(&scope, &w, Ver::Cur);
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
                    let qc = c.arg_rel.restrict(&sfix).and(&en);
                    let qv = pick(&qc).ok_or_else(|| internal("no failing callee context"))?;
                    let qctx = Ctx {
                        g: w.g.clone(),
                        p: m.param_slots(q)
                            .iter()
                            .map(|s| vm.value(&qv, *s, Ver::Next))
                            .collect(),
                    };
                    items.push(Item::ErrorCall {
                        edge: eid,
                        before: w.clone(),
                        qctx,
                    });
                }
            }
        }
        // Backwards through the layers: a predecessor in layer k - 1 that leads to (v, w).
        while k > 0 {
            let prev = &layers[k - 1];
            let mut found: Option<(NodeId, PState, Item)> = None;
            for &eid in &m.node(v).inc {
                let e = m.edge(eid);
                let Some(f) = prev.get(&e.from) else {
                    continue;
                };
                match &e.kind {
                    EdgeKind::Transfer(tr) => {
                        let unmod: Vec<Slot> = scope
                            .iter()
                            .copied()
                            .filter(|s| !tr.modified.contains(s))
                            .collect();
                        let mut fix = ctx_fix.clone();
                        fix.extend(self.c.state_fix(&unmod, &w, Ver::Cur));
                        let mut rfix = self.c.state_fix(&unmod, &w, Ver::Cur);
                        rfix.extend(self.c.state_fix(&tr.modified, &w, Ver::Next));
                        let rel = tr.rel.restrict(&rfix);
                        if rel.is_false() {
                            continue;
                        }
                        if let Some(val) = pick(&f.restrict(&fix).and(&rel)) {
                            let mut sigma = w.clone();
                            for sl in &tr.modified {
                                sigma.set(*sl, vm.value(&val, *sl, Ver::Cur));
                            }
                            let item = Item::Stmt {
                                edge: eid,
                                before: sigma.clone(),
                                after: w.clone(),
                            };
                            found = Some((e.from, sigma, item));
                            break;
                        }
                    }
                    EdgeKind::Call(c) => {
                        let summary = &sums[&c.callee].0;
                        if let Some((sigma, qctx, x)) =
                            self.call_pred(p, c, summary, f, &ctx, &w)?
                        {
                            let item = Item::Call {
                                edge: eid,
                                before: sigma.clone(),
                                after: w.clone(),
                                qctx,
                                x,
                            };
                            found = Some((e.from, sigma, item));
                            break;
                        }
                    }
                    EdgeKind::Return(_) => {}
                }
            }
            let (u, sigma, item) = found.ok_or_else(|| {
                internal(&format!("no predecessor of node {v} in layer {}", k - 1))
            })?;
            items.push(item);
            v = u;
            w = sigma;
            k -= 1;
        }
        if v != pi.entry {
            return Err(internal("the backward search did not end at the entry"));
        }
        items.reverse();
        Ok(LevelPath { entry: w, items })
    }

    /// At a return point of call `c` reached in state `w`: a caller state at the call node in
    /// `f` (the previous layer), the callee context and the callee exit state (from the
    /// complete summary) that lead to `w`.
    fn call_pred(
        &self,
        p: ProcId,
        c: &CallEdge,
        summary: &Bdd,
        f: &Bdd,
        ctx: &Ctx,
        w: &PState,
    ) -> Result<Option<(PState, Ctx, ExitState)>, BebopError> {
        let xfix = self.c.return_fix(c, w);
        let x = summary.restrict(&xfix);
        if x.is_false() {
            return Ok(None);
        }
        let (ent_n, j, pfix) = self.c.return_join(p, c, &x, ctx, w, &self.globals_next_cur);
        let Some(val) = pick(&f.restrict(&pfix).and(&j)) else {
            return Ok(None);
        };
        let (sigma, qctx) = self.c.return_caller(p, c, &ent_n, &val, w)?;
        let mut qxfix = self.c.ctx_fix(c.callee, &qctx);
        qxfix.extend(xfix.iter().copied());
        let val = pick(&summary.restrict(&qxfix)).ok_or_else(|| internal("no exit state"))?;
        let xst = self.c.return_exit(c, &val, w);
        Ok(Some((sigma, qctx, xst)))
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

/// The default work budget of the shortest-trace search, in BDD nodes of the `(node, layer)`
/// sets it expands: `max(200_000, 3W / 4)` where `W` is the engine's own work in the same unit
/// (the total size of its worklist layers). The searches of the test suites and of the
/// `bp-families` counter programs need at most about `W / 2` above the floor; a straight-line
/// program of 10,000 statements with `if`s needs `54 W`.
pub fn default_budget(t: &Tabulation) -> u64 {
    let w: u64 = t
        .layers
        .iter()
        .flatten()
        .map(|(_, b)| b.size() as u64)
        .sum();
    (w / 4 * 3).max(200_000)
}

/// Extracts the internal (node-level) trace of the error found by the tabulation, and whether
/// it is shortest: the shortest-trace search within `budget` (see [`default_budget`] for
/// `None`), else the walk over the engine's stamps (`trace_stamps.rs`).
pub fn extract_raw(
    m: &Model,
    t: &Tabulation,
    budget: Option<u64>,
) -> Result<(Vec<RawStep>, bool), BebopError> {
    if t.error.is_none() {
        return Err(internal("no error to explain"));
    }
    if !t.complete {
        return Err(internal("the tabulation did not reach its fixpoint"));
    }
    let mut tr = Tracer::new(m, t, budget.unwrap_or_else(|| default_budget(t)));
    let res = shortest_raw(m, &mut tr);
    match res {
        Ok(steps) => Ok((steps, true)),
        Err(_) if tr.over_budget.get() => {
            tracing::warn!(
                budget = tr.budget,
                "trace search budget exceeded; the trace is a real path but not guaranteed shortest"
            );
            drop(tr);
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

/// Builds the public trace of the error found by the tabulation, and whether it is shortest
/// (see [`extract_raw`]).
pub fn extract(
    m: &Model,
    t: &Tabulation,
    program_name: &str,
    budget: Option<u64>,
) -> Result<(Trace, bool), BebopError> {
    let (raw, shortest) = extract_raw(m, t, budget)?;
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
        steps: raw.iter().map(|s| public_step(m, s)).collect(),
    };
    Ok((trace, shortest))
}
