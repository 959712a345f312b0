//! The fallback of trace extraction when the shortest-trace search of [`crate::trace`] runs
//! out of its work budget: a walk backwards over the engine's worklist stamps.
//!
//! The engine records, per node, the states added in each worklist iteration (their *stamp*,
//! [`Tabulation::layers`]). Every state was derived from states of earlier stamps, so from the
//! error's state, a predecessor with a smaller stamp always exists: the walk picks the
//! earliest-stamped one over the incoming edges (for a return point, a caller state at the
//! call and a callee exit state stamped earlier, whose call is then expanded the same way
//! inside the callee), and at the entry of a procedure other than `main`, the earliest call
//! site that creates its context. Stamps strictly decrease, so the walk ends; the trace is a
//! real execution, but not necessarily a shortest one. Fenwick trees over the layers
//! ([`Stamps`]) make each choice a logarithmic number of BDD operations.

use crate::BebopError;
use crate::engine::Tabulation;
use crate::ids::{EdgeId, NodeId, ProcId, Stamp};
use crate::lower::{CallEdge, EdgeKind, Model};
use crate::trace::{Concrete, Ctx, ExitState, Fix, PState, RawStep, Stamps, internal};
use crate::vars::{Slot, Ver, pick};
use biodivine_lib_bdd::Bdd;
use bp_grammar::trace::StepKind;

/// A call found behind a return point: the caller state at the call (and its stamp), the
/// callee's context, its exit state and that state's stamp.
struct ReturnFound {
    sigma: PState,
    k_sigma: Stamp,
    qctx: Ctx,
    x: ExitState,
    kx: Stamp,
}

/// The predecessor chosen at one node.
enum Choice {
    Transfer(EdgeId, Bdd),
    Call(EdgeId, Box<ReturnFound>),
}

struct Walker<'a, 'm, 'p> {
    c: Concrete<'m, 'p>,
    stamps: Stamps<'a>,
    /// The steps, last first.
    steps: Vec<RawStep>,
    /// `⋀ g@Next ↔ g@Cur` over the globals.
    globals_next_cur: Bdd,
}

impl<'m, 'p> Walker<'_, 'm, 'p> {
    fn m(&self) -> &'m Model<'p> {
        self.c.m
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
        let vm = &m.vars;
        let entry = m.proc(p).entry;
        let ctx_fix = self.c.ctx_fix(p, ctx);
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
                        fix.extend(self.c.state_fix(&unmod, &w, Ver::Cur));
                        let mut rfix = self.c.state_fix(&unmod, &w, Ver::Cur);
                        rfix.extend(self.c.state_fix(&tr.modified, &w, Ver::Next));
                        let rel = tr.rel.restrict(&rfix);
                        if rel.is_false() {
                            continue;
                        }
                        if let Some((s, cands)) = self
                            .stamps
                            .earliest(e.from, k, |b| b.restrict(&fix).and(&rel))
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
                    let omega0 = self.expand_call(c.callee, &r, p, &w, depth)?;
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

    /// At the return point of call `c` (from node `cnode`) reached in `w` before stamp `k`:
    /// the earliest caller state at the call and an exit state, both stamped before `k`, that
    /// lead to `w`.
    fn find_return(
        &self,
        p: ProcId,
        cnode: NodeId,
        c: &CallEdge,
        ctx: &Ctx,
        w: &PState,
        k: Stamp,
    ) -> Result<Option<ReturnFound>, BebopError> {
        let exit = self.m().proc(c.callee).exit;
        let xfix = self.c.return_fix(c, w);
        let x = self.stamps.prefix(exit, k, |b| b.restrict(&xfix));
        if x.is_false() {
            return Ok(None);
        }
        let (ent_n, j, pfix) = self.c.return_join(p, c, &x, ctx, w, &self.globals_next_cur);
        let Some((k_sigma, cands)) = self
            .stamps
            .earliest(cnode, k, |b| b.restrict(&pfix).and(&j))
        else {
            return Ok(None);
        };
        let val = pick(&cands).ok_or_else(|| internal("empty call candidates"))?;
        let (sigma, qctx) = self.c.return_caller(p, c, &ent_n, &val, w)?;
        // The callee's exit state, the earliest one.
        let mut qxfix = self.c.ctx_fix(c.callee, &qctx);
        qxfix.extend(xfix.iter().copied());
        let (kx, xs) = self
            .stamps
            .earliest(exit, k, |b| b.restrict(&qxfix))
            .ok_or_else(|| internal("no exit state"))?;
        let val = pick(&xs).ok_or_else(|| internal("no exit state"))?;
        let x = self.c.return_exit(c, &val, w);
        Ok(Some(ReturnFound {
            sigma,
            k_sigma,
            qctx,
            x,
            kx,
        }))
    }

    /// Expands a call of `q` that returns (`r`) into `w_after` of `caller`: pushes the return
    /// step and walks the callee back to its entry. Returns the callee's initial state.
    fn expand_call(
        &mut self,
        q: ProcId,
        r: &ReturnFound,
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
            .zip(r.x.g.iter())
            .map(|(s, b)| (vm.var(s, Ver::Cur), *b))
            .collect();
        let mut lfix = self.c.ctx_fix(q, &r.qctx);
        lfix.extend(gfix.iter().copied());
        let rfix = self.c.exit_fix(&r.x);
        let mut best: Option<(Stamp, EdgeId, Bdd)> = None;
        for &eid in &m.node(exit).inc {
            let e = m.edge(eid);
            let EdgeKind::Return(rel) = &e.kind else {
                continue;
            };
            let rel = match rel {
                Some(rel) => rel.restrict(&rfix),
                None => vm.tt(),
            };
            if let Some((s, cands)) = self
                .stamps
                .earliest(e.from, r.kx, |b| b.restrict(&lfix).and(&rel))
                && best.as_ref().is_none_or(|(bs, _, _)| s < *bs)
            {
                best = Some((s, eid, cands));
            }
        }
        let (s, eid, cands) = best.ok_or_else(|| internal("no return into the exit state"))?;
        let from = m.edge(eid).from;
        let val = pick(&cands).ok_or_else(|| internal("empty return candidates"))?;
        let su = PState {
            g: r.x.g.clone(),
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
        let (omega0, _) = self.walk_proc(q, from, &r.qctx, su, s, depth + 1)?;
        Ok(omega0)
    }
}

/// Extracts a (not necessarily shortest) trace of the error the tabulation found first, by
/// walking backwards over the stamps.
pub(crate) fn extract_raw(m: &Model, t: &Tabulation) -> Result<Vec<RawStep>, BebopError> {
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
        stamps: Stamps::new(m, t),
        steps: Vec::new(),
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
        let mut best: Option<(Stamp, EdgeId, Bdd)> = None;
        for &cs in &m.proc(p).call_sites {
            let ce = m.edge(cs);
            let EdgeKind::Call(call) = &ce.kind else {
                continue;
            };
            let args = call.arg_rel.restrict(&afix);
            if let Some((s, cands)) = wk
                .stamps
                .earliest(ce.from, k0, |b| b.restrict(&gfix).and(&args))
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
