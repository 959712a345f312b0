//! Concrete states of an error trace and the backward step that both trace extractions take.
//!
//! A trace is found backwards: from a concrete state at the error, each step picks a concrete
//! predecessor whose transition leads to the state chosen last (Ball & Rajamani, Bebop,
//! SPIN 2000 §4). Two walks do this: the level searches of `trace` step back through the
//! layers of a breadth-first search, and the fallback of `trace_stamps` steps back through the
//! engine's worklist layers stamped earlier. They differ only in *where* the earlier states
//! are and how candidates are ranked ([`Earlier`]); the predecessor itself, over a statement,
//! over a call that returns, or over the `return` into a procedure's exit, is chosen here, once
//! ([`StepBack::predecessor`], [`StepBack::exit_predecessor`]).
//!
//! Free values are chosen `false` (the first valuation of a BDD), so the walks are
//! deterministic.

use crate::BebopError;
use crate::apply;
use crate::ids::{EdgeId, NodeId, ProcId};
use crate::lower::{CallEdge, EdgeKind, Model, Transfer};
use crate::vars::{Slot, Ver, pick};
use biodivine_lib_bdd::{Bdd, BddValuation, BddVariable};
use bp_grammar::trace::StepKind;

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

/// An internal error of trace extraction.
pub(crate) fn internal(msg: &str) -> BebopError {
    BebopError::Internal(format!("trace extraction: {msg}"))
}

/// Values fixed for a BDD restriction.
pub(crate) type Fix = Vec<(BddVariable, bool)>;

/// Helpers to move between concrete states and BDDs.
#[derive(Clone, Copy)]
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

    /// The state before a statement with transfer `t` that leads to `w`: `w`, with the slots
    /// the statement modifies read (in version `Cur`) from `val`, a valuation of its
    /// candidates.
    pub(crate) fn transfer_before(&self, t: &Transfer, val: &BddValuation, w: &PState) -> PState {
        let vm = &self.m.vars;
        let mut sigma = w.clone();
        for sl in &t.modified {
            sigma.set(*sl, vm.value(val, *sl, Ver::Cur));
        }
        sigma
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
            .chain(self.m.vars.rets().into_iter().zip(x.r.iter()))
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
        cur_q.extend(vm.vars(&m.vars.rets(), Ver::Cur));
        let ent = apply::exists(x, &cur_q);
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
        let j = apply::and_exists(
            &apply::and(&c.arg_rel.restrict(&ffix), globals_next_cur),
            &ent_n,
            &vm.vars(&qctx_slots, Ver::Next),
        );
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
        let qc = apply::and(&c.arg_rel.restrict(&sfix), &ent_n.restrict(&gfix));
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
            r: vm
                .rets()
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

/// Where a backward walk finds the states that may precede the current one, and how it ranks
/// them. The level searches of `trace` look in the previous layer of their breadth-first
/// search, where every predecessor is as good as another; the fallback of `trace_stamps` looks
/// in the engine's worklist layers stamped before a bound and prefers the earliest stamp.
pub(crate) trait Earlier {
    /// The rank of a predecessor: the smaller, the better.
    type Rank: Ord + Copy;
    /// Whether the first predecessor found is taken without looking at the other edges (all
    /// ranks are equal).
    const FIRST_WINS: bool;
    /// Whether states at `node` may precede at all (edges from elsewhere are not looked at).
    fn reaches(&self, node: NodeId) -> bool;
    /// `f` (which distributes over unions) of the best-ranked states at `node` where it is not
    /// empty: that rank and `f` of them.
    fn at(&self, node: NodeId, f: impl Fn(&Bdd) -> Bdd) -> Option<(Self::Rank, Bdd)>;
    /// `f` of all the exit states of `q` (with their contexts) a call may return through.
    fn exits(&self, q: ProcId, f: impl Fn(&Bdd) -> Bdd) -> Bdd;
    /// `f` of the best-ranked exit states of `q` where it is not empty: that rank and `f` of
    /// them.
    fn exit_at(&self, q: ProcId, f: impl Fn(&Bdd) -> Bdd) -> Option<(Self::Rank, Bdd)>;
}

/// The choice rule of the backward walks: a candidate of rank `r` replaces the best so far only
/// when it ranks strictly better, so among equally ranked candidates the first one (in the
/// order of the incoming edges, or of the call sites) wins.
pub(crate) fn better<R: Ord, T>(best: &Option<(R, T)>, r: R) -> bool {
    best.as_ref().is_none_or(|(b, _)| r < *b)
}

/// A predecessor with its rank, none, or an internal error.
pub(crate) type Found<R, T> = Result<Option<(R, T)>, BebopError>;

/// A call that returns, found behind its return point: the caller state at the call, the
/// callee's context, the callee's exit state and the rank of that exit state.
pub(crate) struct CallBack<R> {
    /// The caller's state at the call.
    pub(crate) before: PState,
    /// The context the callee is entered in.
    pub(crate) qctx: Ctx,
    /// The exit state the callee returns in.
    pub(crate) x: ExitState,
    /// The rank of the exit state.
    pub(crate) x_rank: R,
}

/// The predecessor chosen for a state at a node other than an exit.
pub(crate) enum Back<R> {
    /// A statement (transfer edge) from node `from` in state `before`.
    Stmt {
        /// The edge.
        edge: EdgeId,
        /// Its source node.
        from: NodeId,
        /// The state before the statement.
        before: PState,
    },
    /// A call from node `from` that returns, as one step of the caller.
    Call {
        /// The call edge.
        edge: EdgeId,
        /// Its source node.
        from: NodeId,
        /// The call.
        call: CallBack<R>,
    },
}

/// A candidate predecessor over one edge, before the choice.
enum Candidate<R> {
    /// A transfer edge and the candidate states before it.
    Stmt(EdgeId, Bdd),
    /// A call edge and the call found behind the return point.
    Call(EdgeId, CallBack<R>),
}

/// The backward step: the one implementation of the choice of a concrete predecessor, shared
/// by both walks (see the module doc).
pub(crate) struct StepBack<'m, 'p> {
    /// States and BDDs.
    pub(crate) c: Concrete<'m, 'p>,
    /// `⋀ g@Next ↔ g@Cur` over the globals.
    globals_next_cur: Bdd,
}

impl<'m, 'p> StepBack<'m, 'p> {
    /// The backward step over the program `m`.
    pub(crate) fn new(m: &'m Model<'p>) -> Self {
        StepBack {
            c: Concrete { m },
            globals_next_cur: m.vars.identity(&m.vars.globals(), Ver::Next, Ver::Cur),
        }
    }

    /// The predecessor of state `w` at node `v` (not an exit) of `p` called in context `ctx`
    /// (`ctx_fix` its fix): over each incoming statement, the states in `earlier` whose
    /// transition leads to `w` (the variables the statement does not modify keep their values,
    /// those it modifies are read from the candidate); over each incoming call, the caller
    /// state at the call, the callee context and exit state that the return joins into `w`
    /// ([`Self::call_predecessor`]). Chosen by [`better`]; `None` when no edge has one.
    pub(crate) fn predecessor<E: Earlier>(
        &self,
        earlier: &E,
        p: ProcId,
        ctx: &Ctx,
        ctx_fix: &Fix,
        v: NodeId,
        w: &PState,
    ) -> Found<E::Rank, Back<E::Rank>> {
        let m = self.c.m;
        let scope = m.scope_slots(p);
        let mut best: Option<(E::Rank, Candidate<E::Rank>)> = None;
        for &eid in &m.node(v).inc {
            if E::FIRST_WINS && best.is_some() {
                break;
            }
            let e = m.edge(eid);
            if !earlier.reaches(e.from) {
                continue;
            }
            match &e.kind {
                EdgeKind::Transfer(tr) => {
                    // Fix the context and the unmodified variables (they equal w's).
                    let unmod: Vec<Slot> = scope
                        .iter()
                        .copied()
                        .filter(|s| !tr.modified.contains(s))
                        .collect();
                    let mut fix = ctx_fix.clone();
                    fix.extend(self.c.state_fix(&unmod, w, Ver::Cur));
                    let mut rfix = self.c.state_fix(&unmod, w, Ver::Cur);
                    rfix.extend(self.c.state_fix(&tr.modified, w, Ver::Next));
                    let rel = tr.rel.restrict(&rfix);
                    if rel.is_false() {
                        continue;
                    }
                    if let Some((s, cands)) =
                        earlier.at(e.from, |b| apply::and(&b.restrict(&fix), &rel))
                        && better(&best, s)
                    {
                        best = Some((s, Candidate::Stmt(eid, cands)));
                    }
                }
                EdgeKind::Call(c) => {
                    if let Some((s, r)) = self.call_predecessor(earlier, p, e.from, c, ctx, w)?
                        && better(&best, s)
                    {
                        best = Some((s, Candidate::Call(eid, r)));
                    }
                }
                EdgeKind::Return(_) => {}
            }
        }
        let Some((s, cand)) = best else {
            return Ok(None);
        };
        let back = match cand {
            Candidate::Stmt(eid, cands) => {
                let e = m.edge(eid);
                let EdgeKind::Transfer(tr) = &e.kind else {
                    return Err(internal("edge kind changed"));
                };
                let val = pick(&cands).ok_or_else(|| internal("empty candidates"))?;
                Back::Stmt {
                    edge: eid,
                    from: e.from,
                    before: self.c.transfer_before(tr, &val, w),
                }
            }
            Candidate::Call(eid, call) => Back::Call {
                edge: eid,
                from: m.edge(eid).from,
                call,
            },
        };
        Ok(Some((s, back)))
    }

    /// At the return point of call `c` (from node `cnode` of `p`, context `ctx`) reached in
    /// state `w`: the best-ranked caller state at the call in `earlier`, and the callee context
    /// and the best-ranked exit state of the callee that lead to `w`, with the caller state's
    /// rank.
    fn call_predecessor<E: Earlier>(
        &self,
        earlier: &E,
        p: ProcId,
        cnode: NodeId,
        c: &CallEdge,
        ctx: &Ctx,
        w: &PState,
    ) -> Found<E::Rank, CallBack<E::Rank>> {
        let xfix = self.c.return_fix(c, w);
        let x = earlier.exits(c.callee, |b| b.restrict(&xfix));
        if x.is_false() {
            return Ok(None);
        }
        let (ent_n, j, pfix) = self.c.return_join(p, c, &x, ctx, w, &self.globals_next_cur);
        let Some((rank, cands)) = earlier.at(cnode, |b| apply::and(&b.restrict(&pfix), &j)) else {
            return Ok(None);
        };
        let val = pick(&cands).ok_or_else(|| internal("empty call candidates"))?;
        let (before, qctx) = self.c.return_caller(p, c, &ent_n, &val, w)?;
        // The callee's exit state, the best-ranked one.
        let mut qxfix = self.c.ctx_fix(c.callee, &qctx);
        qxfix.extend(xfix.iter().copied());
        let (x_rank, xs) = earlier
            .exit_at(c.callee, |b| b.restrict(&qxfix))
            .ok_or_else(|| internal("no exit state"))?;
        let val = pick(&xs).ok_or_else(|| internal("no exit state"))?;
        let x = self.c.return_exit(c, &val, w);
        Ok(Some((
            rank,
            CallBack {
                before,
                qctx,
                x,
                x_rank,
            },
        )))
    }

    /// The last step of a call of `q` (context `qctx`) that returns in exit state `x`: the
    /// `return` (or the fall-off at `end`) into the exit, from the states in `earlier` that
    /// hold the exit's globals and whose return relation gives its returned values. Chosen by
    /// [`better`]; the rank, the edge and the state before it.
    pub(crate) fn exit_predecessor<E: Earlier>(
        &self,
        earlier: &E,
        q: ProcId,
        qctx: &Ctx,
        x: &ExitState,
    ) -> Result<(E::Rank, EdgeId, PState), BebopError> {
        let m = self.c.m;
        let vm = &m.vars;
        let gfix: Fix = vm
            .globals()
            .into_iter()
            .zip(x.g.iter())
            .map(|(s, b)| (vm.var(s, Ver::Cur), *b))
            .collect();
        let mut lfix = self.c.ctx_fix(q, qctx);
        lfix.extend(gfix.iter().copied());
        let rfix = self.c.exit_fix(x);
        let mut best: Option<(E::Rank, (EdgeId, Bdd))> = None;
        for &eid in &m.node(m.proc(q).exit).inc {
            if E::FIRST_WINS && best.is_some() {
                break;
            }
            let e = m.edge(eid);
            let EdgeKind::Return(rel) = &e.kind else {
                continue;
            };
            if !earlier.reaches(e.from) {
                continue;
            }
            let rel = match rel {
                Some(rel) => rel.restrict(&rfix),
                None => vm.tt(),
            };
            if let Some((s, cands)) = earlier.at(e.from, |b| apply::and(&b.restrict(&lfix), &rel))
                && better(&best, s)
            {
                best = Some((s, (eid, cands)));
            }
        }
        let (s, (eid, cands)) = best.ok_or_else(|| internal("no return into the exit state"))?;
        let val = pick(&cands).ok_or_else(|| internal("empty return candidates"))?;
        let before = PState {
            g: x.g.clone(),
            f: m.frame_slots(q)
                .iter()
                .map(|s| vm.value(&val, *s, Ver::Cur))
                .collect(),
        };
        Ok((s, eid, before))
    }
}
