//! The self-check: replays a public trace against the model's transition relations.
//!
//! Independent of how the trace was found, it checks that the trace is a real execution under
//! the semantics the engine implements: it starts at the entry of `main` in a state satisfying
//! `main`'s `enforce`; every step leaves from the node the previous one led to and its state
//! is the previous `after`; `stmt` steps follow an edge of their statement (`taken` selects
//! it) whose relation holds between `before` and `after` (unmodified variables unchanged,
//! `enforce` after the step); `call` steps bind the parameters as the actuals allow and keep the
//! globals; `return` steps assign returned values the `return` can produce, keep the
//! caller's other variables as they were at the call and satisfy the caller's `enforce`; the
//! last step is the error, in a state where it is one. It also checks the static fields of
//! every step (procedure, position, labels, annotations, depth).

use crate::concrete::PState;
use crate::ids::{NodeId, ProcId};
use crate::lower::{CallEdge, EdgeKind, Model, NodeKind};
use crate::vars::{Slot, Ver};
use biodivine_lib_bdd::{Bdd, BddValuation};
use bp_grammar::trace::{Step, StepKind, Trace, Valuation};

struct Frame<'m> {
    caller: ProcId,
    ret_to: NodeId,
    call: &'m CallEdge,
    sigma: PState,
}

fn state_of(m: &Model, p: ProcId, v: &Valuation) -> Result<PState, String> {
    let slots = m.scope_slots(p);
    if v.len() != slots.len() {
        return Err(format!(
            "valuation has {} variables, the scope of `{}` has {}",
            v.len(),
            m.proc(p).name,
            slots.len()
        ));
    }
    let mut st = PState {
        g: vec![false; m.vars.n_globals() as usize],
        f: vec![false; m.proc(p).frame_names.len()],
    };
    for s in slots {
        let name = m.slot_name(p, s);
        let b = *v
            .get(&name)
            .ok_or_else(|| format!("variable `{name}` missing from the valuation"))?;
        match s {
            Slot::Global(i) => st.g[i as usize] = b,
            Slot::Frame(i) => st.f[i as usize] = b,
            Slot::Ret(_) => {}
        }
    }
    Ok(st)
}

fn set_state(m: &Model, val: &mut BddValuation, p: ProcId, st: &PState, ver: Ver) {
    for s in m.scope_slots(p) {
        val.set_value(m.vars.var(s, ver), st.get(s));
    }
}

fn holds(b: &Bdd, val: &BddValuation) -> bool {
    b.eval_in(val)
}

/// Checks `tr` against the model (see the module doc).
pub fn check_trace(m: &Model, tr: &Trace) -> Result<(), String> {
    let proc_by_name = |n: &str| -> Result<ProcId, String> {
        m.procs
            .iter()
            .position(|p| p.name == n)
            .map(|i| ProcId(i as u32))
            .ok_or_else(|| format!("unknown procedure `{n}`"))
    };
    let mut stack: Vec<Frame> = Vec::new();
    let mut expect = m.proc(m.main).entry;
    let n = tr.steps.len();
    if n == 0 {
        return Err("empty trace".into());
    }
    for (i, st) in tr.steps.iter().enumerate() {
        let at = |msg: String| format!("step {i} ({} {}:{}): {msg}", st.proc, st.line, st.col);
        let p = proc_by_name(&st.proc).map_err(at)?;
        let pi = m.proc(p);
        let node = match st.stmt {
            Some(id) => *pi
                .stmt_nodes
                .get(id.0 as usize)
                .ok_or_else(|| at(format!("no statement {}", id.0)))?,
            None => pi.end,
        };
        if node != expect {
            return Err(at(format!("expected node {expect}, the step is at {node}")));
        }
        if st.depth as usize != stack.len() {
            return Err(at(format!(
                "depth {} but {} calls are active",
                st.depth,
                stack.len()
            )));
        }
        check_static(m, node, st).map_err(at)?;
        if i > 0 && tr.steps[i - 1].after != st.before {
            return Err(at(
                "`before` differs from the previous step's `after`".into()
            ));
        }
        let before = state_of(m, p, &st.before).map_err(at)?;
        if i == 0 {
            let mut val = m.vars.empty_valuation();
            set_state(m, &mut val, p, &before, Ver::Cur);
            if !holds(&pi.enforce, &val) {
                return Err(at("the initial state violates main's enforce".into()));
            }
        }
        let next = tr.steps.get(i + 1);
        match st.kind {
            StepKind::Stmt => {
                expect = check_stmt_step(m, p, node, st, &before).map_err(at)?;
                if next.is_none() {
                    return Err(at("the trace does not end with an error step".into()));
                }
            }
            StepKind::Call => {
                expect = check_call_step(m, p, node, st, next, before, &mut stack).map_err(at)?;
            }
            StepKind::Return => {
                expect =
                    check_return_step(m, p, node, st, next, &before, &mut stack).map_err(at)?;
            }
            StepKind::Error => check_error_step(m, p, node, st, next, &before).map_err(at)?,
        }
    }
    Ok(())
}

/// A `stmt` step at `node` of `p` from `before`: an edge of the statement (`taken` selects
/// it) whose relation holds between `before` and `after`, unmodified variables unchanged and
/// `enforce` after it. The node it leads to.
fn check_stmt_step(
    m: &Model,
    p: ProcId,
    node: NodeId,
    st: &Step,
    before: &PState,
) -> Result<NodeId, String> {
    let pi = m.proc(p);
    let after = state_of(m, p, &st.after)?;
    let mut ok = None;
    for &eid in &m.node(node).out {
        let e = m.edge(eid);
        let EdgeKind::Transfer(t) = &e.kind else {
            continue;
        };
        if e.taken != st.taken {
            continue;
        }
        let mut val = m.vars.empty_valuation();
        set_state(m, &mut val, p, before, Ver::Cur);
        for s in &t.modified {
            val.set_value(m.vars.var(*s, Ver::Next), after.get(*s));
        }
        let frame_ok = m
            .scope_slots(p)
            .into_iter()
            .filter(|s| !t.modified.contains(s))
            .all(|s| before.get(s) == after.get(s));
        let mut aval = m.vars.empty_valuation();
        set_state(m, &mut aval, p, &after, Ver::Cur);
        let enf_ok = !t.enforce || holds(&pi.enforce, &aval);
        if frame_ok && enf_ok && t.rel.eval_in(&val) {
            ok = Some(e.to);
            break;
        }
    }
    ok.ok_or_else(|| "no edge of the statement allows this step".into())
}

/// A `call` step at `node` of `p` from `before`: the next step is in the callee, the globals
/// are kept, the parameters are the actuals and the callee's `enforce` holds at its entry.
/// Pushes the call; the callee's entry.
fn check_call_step<'m>(
    m: &'m Model,
    p: ProcId,
    node: NodeId,
    st: &Step,
    next: Option<&Step>,
    before: PState,
    stack: &mut Vec<Frame<'m>>,
) -> Result<NodeId, String> {
    let (eid, c) = crate::engine::call_edge_of(m, node)
        .ok_or("a call step at a statement that is not a call")?;
    let q = c.callee;
    if next.map(|s| s.proc.as_str()) != Some(m.proc(q).name.as_str()) {
        return Err("the step after a call is not in the callee".into());
    }
    let after = state_of(m, q, &st.after)?;
    if after.g != before.g {
        return Err("a call changed the globals".into());
    }
    let mut val = m.vars.empty_valuation();
    set_state(m, &mut val, p, &before, Ver::Cur);
    for s in m.param_slots(q) {
        val.set_value(m.vars.var(s, Ver::Next), after.get(s));
    }
    if !c.arg_rel.eval_in(&val) {
        return Err("the parameters are not the actuals".into());
    }
    let mut aval = m.vars.empty_valuation();
    set_state(m, &mut aval, q, &after, Ver::Cur);
    if !holds(&m.proc(q).enforce, &aval) {
        return Err("the callee's entry state violates its enforce".into());
    }
    stack.push(Frame {
        caller: p,
        ret_to: m.edge(eid).to,
        call: c,
        sigma: before,
    });
    Ok(m.proc(q).entry)
}

/// A `return` step at `node` of `p` from `before`: it ends the active call of `p`, the
/// returned values are ones the `return` can produce, the caller's other variables are as
/// at the call (its globals as `before`), the caller's `enforce` holds and the next step is
/// in the caller. Pops the call; the caller's return point.
fn check_return_step(
    m: &Model,
    p: ProcId,
    node: NodeId,
    st: &Step,
    next: Option<&Step>,
    before: &PState,
    stack: &mut Vec<Frame>,
) -> Result<NodeId, String> {
    let fr = stack.pop().ok_or("a return without an active call")?;
    if fr.call.callee != p {
        return Err("returning from a procedure that was not called".into());
    }
    let rel = m
        .node(node)
        .out
        .iter()
        .find_map(|&e| match &m.edge(e).kind {
            EdgeKind::Return(r) => Some(r),
            _ => None,
        })
        .ok_or("a return step at a statement that does not return")?;
    let after = state_of(m, fr.caller, &st.after)?;
    let targeted: Vec<Slot> = fr.call.targets.iter().flatten().copied().collect();
    if let Some(r) = rel {
        let mut b = r.and(&crate::concrete::Concrete { m }.state_cube(p, before, Ver::Cur));
        for (j, t) in fr.call.targets.iter().enumerate() {
            if let Some(s) = t {
                b = b.and(&m.vars.lit(Slot::Ret(j as u32), Ver::Cur, after.get(*s)));
            }
        }
        if b.is_false() {
            return Err("the returned values are not the ones returned".into());
        }
    }
    for s in m.scope_slots(fr.caller) {
        if targeted.contains(&s) {
            continue;
        }
        let want = match s {
            Slot::Global(_) => before.get(s),
            _ => fr.sigma.get(s),
        };
        if after.get(s) != want {
            return Err(format!(
                "`{}` changed across the return",
                m.slot_name(fr.caller, s)
            ));
        }
    }
    let mut aval = m.vars.empty_valuation();
    set_state(m, &mut aval, fr.caller, &after, Ver::Cur);
    if !holds(&m.proc(fr.caller).enforce, &aval) {
        return Err("the caller's state after the return violates its enforce".into());
    }
    if next.map(|s| s.proc.as_str()) != Some(m.proc(fr.caller).name.as_str()) {
        return Err("the step after a return is not in the caller".into());
    }
    Ok(fr.ret_to)
}

/// The `error` step at `node` of `p`: the last one, the state unchanged, at a target whose
/// error happens in `before`.
fn check_error_step(
    m: &Model,
    p: ProcId,
    node: NodeId,
    st: &Step,
    next: Option<&Step>,
    before: &PState,
) -> Result<(), String> {
    if next.is_some() {
        return Err("an error step before the end".into());
    }
    if st.before != st.after {
        return Err("the error step changes the state".into());
    }
    let tg = m
        .node(node)
        .target
        .as_ref()
        .ok_or("the error step is not at a target")?;
    let mut val = m.vars.empty_valuation();
    set_state(m, &mut val, p, before, Ver::Cur);
    if !holds(&tg.bad, &val) {
        return Err("the error does not happen in this state".into());
    }
    Ok(())
}

fn check_static(m: &Model, node: NodeId, st: &Step) -> Result<(), String> {
    match m.node(node).kind {
        NodeKind::Stmt(_, s) => {
            if (st.line, st.col) != (s.span.line, s.span.col) {
                return Err("wrong position".into());
            }
            let labels: Vec<&str> = s.labels.iter().map(|l| l.name.as_str()).collect();
            if st
                .labels
                .iter()
                .map(String::as_str)
                .ne(labels.iter().copied())
            {
                return Err("wrong labels".into());
            }
            if st.annotations != s.annotations {
                return Err("wrong annotations".into());
            }
            if st.text != bp_grammar::print_stmt_head(s) {
                return Err("wrong text".into());
            }
            Ok(())
        }
        NodeKind::End => {
            if st.kind != StepKind::Return {
                return Err("only a return step can be at `end`".into());
            }
            Ok(())
        }
        NodeKind::Exit => Err("a step at an exit node".into()),
    }
}
