//! The fallback of trace extraction when the shortest-trace search of `trace` runs out of its
//! work budget: a walk backwards over the engine's worklist stamps.
//!
//! The engine records, per node, the states added in each worklist iteration (their *stamp*,
//! [`Tabulation::layers`]). Every state was derived from states of earlier stamps, so from the
//! error's state, a predecessor with a smaller stamp always exists: the walk picks the
//! earliest-stamped one over the incoming edges (for a return point, a caller state at the
//! call and a callee exit state stamped earlier, whose call is then expanded the same way
//! inside the callee), and at the entry of a procedure other than `main`, the earliest call
//! site that creates its context. Stamps strictly decrease, so the walk ends; the trace is a
//! real execution, but not necessarily a shortest one. Fenwick trees over the layers
//! ([`Stamps`]) make each choice a logarithmic number of BDD operations. The predecessor itself
//! is chosen by the backward step of [`crate::concrete`], with the stamps as its ranks.

use crate::BebopError;
use crate::apply;
use crate::concrete::{
    Back, CallBack, Ctx, Earlier, Fix, PState, RawStep, StepBack, better, internal,
};
use crate::engine::Tabulation;
use crate::ids::{EdgeId, NodeId, ProcId, Stamp};
use crate::lower::{EdgeKind, Model};
use crate::vars::{Ver, pick};
use biodivine_lib_bdd::Bdd;
use bp_grammar::trace::StepKind;
use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

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
                    tree[j - 1] = apply::or(&tree[j - 1], &tree[i - 1]);
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
            acc = apply::or(&acc, &f(&tree[i - 1]));
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

/// The earlier states of a walk over the stamps: the layers stamped below `k`, the earliest
/// preferred.
struct StampedBefore<'s, 'a, 'm, 'p> {
    stamps: &'s Stamps<'a>,
    m: &'m Model<'p>,
    k: Stamp,
}

impl Earlier for StampedBefore<'_, '_, '_, '_> {
    type Rank = Stamp;
    const FIRST_WINS: bool = false;

    fn reaches(&self, _node: NodeId) -> bool {
        true
    }

    fn at(&self, node: NodeId, f: impl Fn(&Bdd) -> Bdd) -> Option<(Stamp, Bdd)> {
        self.stamps.earliest(node, self.k, f)
    }

    fn exits(&self, q: ProcId, f: impl Fn(&Bdd) -> Bdd) -> Bdd {
        self.stamps.prefix(self.m.proc(q).exit, self.k, f)
    }

    fn exit_at(&self, q: ProcId, f: impl Fn(&Bdd) -> Bdd) -> Option<(Stamp, Bdd)> {
        self.stamps.earliest(self.m.proc(q).exit, self.k, f)
    }
}

struct Walker<'a, 'm, 'p> {
    back: StepBack<'m, 'p>,
    stamps: Stamps<'a>,
    /// The steps, last first.
    steps: Vec<RawStep>,
}

impl<'m, 'p> Walker<'_, 'm, 'p> {
    fn m(&self) -> &'m Model<'p> {
        self.back.c.m
    }

    /// The layers stamped below `k`.
    fn before(&self, k: Stamp) -> StampedBefore<'_, '_, 'm, 'p> {
        StampedBefore {
            stamps: &self.stamps,
            m: self.m(),
            k,
        }
    }

    /// Walks backwards inside `p` (context `ctx`) from node `v` in state `w` found before
    /// stamp `k` to an initial state at the entry, pushing the steps (calls expanded).
    /// Returns the initial state and its stamp.
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
        let entry = m.proc(p).entry;
        let ctx_fix = self.back.c.ctx_fix(p, ctx);
        loop {
            if v == entry && self.back.c.is_initial(p, ctx, &w) {
                return Ok((w, k));
            }
            // The earliest-stamped predecessor over all incoming edges.
            let best = self
                .back
                .predecessor(&self.before(k), p, ctx, &ctx_fix, v, &w)?;
            match best {
                None => {
                    return Err(internal(&format!(
                        "no predecessor of node {v} before stamp {}",
                        k.0
                    )));
                }
                Some((s, Back::Stmt { edge, from, before })) => {
                    self.steps.push(RawStep {
                        kind: StepKind::Stmt,
                        node: from,
                        edge: Some(edge),
                        depth,
                        before: (p, before.clone()),
                        after: (p, w),
                    });
                    v = from;
                    w = before;
                    k = s;
                }
                Some((s, Back::Call { edge, from, call })) => {
                    let EdgeKind::Call(c) = &m.edge(edge).kind else {
                        return Err(internal("edge kind changed"));
                    };
                    let omega0 = self.expand_call(c.callee, &call, p, &w, depth)?;
                    self.steps.push(RawStep {
                        kind: StepKind::Call,
                        node: from,
                        edge: Some(edge),
                        depth,
                        before: (p, call.before.clone()),
                        after: (c.callee, omega0),
                    });
                    v = from;
                    w = call.before;
                    k = s;
                }
            }
        }
    }

    /// Expands a call of `q` that returns (`r`) into `w_after` of `caller`: pushes the return
    /// step and walks the callee back to its entry. Returns the callee's initial state.
    fn expand_call(
        &mut self,
        q: ProcId,
        r: &CallBack<Stamp>,
        caller: ProcId,
        w_after: &PState,
        depth: i64,
    ) -> Result<PState, BebopError> {
        let (s, eid, su) = self
            .back
            .exit_predecessor(&self.before(r.x_rank), q, &r.qctx, &r.x)?;
        let from = self.m().edge(eid).from;
        self.steps.push(RawStep {
            kind: StepKind::Return,
            node: from,
            edge: Some(eid),
            depth: depth + 1,
            before: (q, su.clone()),
            after: (caller, w_after.clone()),
        });
        let (omega0, _) = self.walk_proc(q, from, &r.qctx, su, s, depth + 1)?;
        Ok(omega0)
    }
}

/// Extracts a (not necessarily shortest) trace of the error the tabulation found first, by
/// walking backwards over the stamps.
pub(crate) fn extract_raw(m: &Model, t: &Tabulation) -> Result<Vec<RawStep>, BebopError> {
    let (v_err, r) = t.error.ok_or_else(|| internal("no error to explain"))?;
    let back = StepBack::new(m);
    let c = back.c;
    let tg = m
        .node(v_err)
        .target
        .as_ref()
        .ok_or_else(|| internal("error node without target"))?;
    let layer = t
        .layer(v_err, r)
        .ok_or_else(|| internal("error layer missing"))?;
    let val = pick(&apply::and(layer, &tg.bad)).ok_or_else(|| internal("empty error layer"))?;
    let mut p = m.node(v_err).proc;
    let mut ctx = c.read_ctx(p, &val);
    let mut w = c.read_state(p, &val, Ver::Cur);
    let mut wk = Walker {
        back,
        stamps: Stamps::new(m, t),
        steps: Vec::new(),
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
        // The earliest call site that enters `p` in context `ctx`.
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
        let mut best: Option<(Stamp, (EdgeId, Bdd))> = None;
        for &cs in &m.proc(p).call_sites {
            let ce = m.edge(cs);
            let EdgeKind::Call(call) = &ce.kind else {
                continue;
            };
            let args = call.arg_rel.restrict(&afix);
            if let Some((s, cands)) = wk
                .stamps
                .earliest(ce.from, k0, |b| apply::and(&b.restrict(&gfix), &args))
                && better(&best, s)
            {
                best = Some((s, (cs, cands)));
            }
        }
        let (k0p, (cs, cands)) =
            best.ok_or_else(|| internal("no call site creates the context"))?;
        let ce = m.edge(cs);
        let val = pick(&cands).ok_or_else(|| internal("empty call-site candidates"))?;
        let caller = m.node(ce.from).proc;
        let cctx = wk.back.c.read_ctx(caller, &val);
        let mut sigma = wk.back.c.read_state(caller, &val, Ver::Cur);
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
