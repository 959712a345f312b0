//! Liveness of frame variables: before each CFG node, which parameters and locals of its
//! procedure may still be read before they are written. The engine forgets the others (early
//! quantification, as symbolic model checkers of Boolean programs do with dead variables; see
//! Esparza & Schwoon, "A BDD-based model checker for recursive programs", CAV 2001, §5): a
//! dead variable's value never reaches a read, an error condition or a returned value, so
//! forgetting it changes no verdict, and the path edges stop carrying correlations nobody
//! needs.
//!
//! Reads are the current-version frame variables in the support of an edge's relation (a
//! transfer, the actuals of a call, the returned values), of a node's error condition and of
//! the procedure's `enforce` (which constrains every state, so its variables are live
//! everywhere). Writes are a transfer's modified slots and a call's targets; the callee runs
//! on its own frame, so the caller's frame passes through a call unchanged. Nothing of the
//! frame is live at the exit.

use crate::apply;
use crate::lower::{EdgeKind, Model, NodeKind};
use crate::vars::{Slot, VarInfo, Ver};
use biodivine_lib_bdd::BddVariable;

/// A set of frame slots.
type Set = Vec<u64>;

fn set_has(s: &Set, i: usize) -> bool {
    s[i / 64] >> (i % 64) & 1 == 1
}

fn set_add(s: &mut Set, i: usize) {
    s[i / 64] |= 1 << (i % 64);
}

/// The frame slots whose current version is in the support of `b`.
fn reads(m: &Model, support: impl IntoIterator<Item = BddVariable>, words: usize) -> Set {
    let mut s = vec![0; words];
    for v in support {
        if let VarInfo::Slot(Slot::Frame(i), Ver::Cur) = m.vars.describe(v) {
            set_add(&mut s, i as usize);
        }
    }
    s
}

/// Per node, the current-version BDD variables of the frame slots of its procedure that are
/// dead before it (in slot order).
pub fn dead_frame_vars(m: &Model) -> Vec<Vec<BddVariable>> {
    let n = m.nodes.len();
    let frame_len = |v: usize| m.proc(m.nodes[v].proc).frame_names.len();
    let words = m
        .procs
        .iter()
        .map(|p| p.frame_names.len())
        .max()
        .unwrap_or(0)
        / 64
        + 1;
    // Per procedure: what its `enforce` reads (once: it can be large, and every node reads it).
    let enforce_reads: Vec<Set> = m
        .procs
        .iter()
        .map(|pi| {
            if pi.has_enforce {
                reads(m, apply::support(&pi.enforce), words)
            } else {
                vec![0; words]
            }
        })
        .collect();
    // Per node: what it reads itself (error condition, enforce); per edge: reads and writes.
    let own: Vec<Set> = m
        .nodes
        .iter()
        .map(|node| {
            let mut s = enforce_reads[node.proc.ix()].clone();
            if let Some(tg) = &node.target {
                for (a, b) in s.iter_mut().zip(reads(m, apply::support(&tg.bad), words)) {
                    *a |= b;
                }
            }
            s
        })
        .collect();
    let edge_rw: Vec<(Set, Set)> = m
        .edges
        .iter()
        .map(|e| {
            let mut w = vec![0; words];
            let r = match &e.kind {
                EdgeKind::Transfer(t) => {
                    for s in &t.modified {
                        if let Slot::Frame(i) = s {
                            set_add(&mut w, *i as usize);
                        }
                    }
                    reads(m, t.rel.support(), words)
                }
                EdgeKind::Call(c) => {
                    for s in c.targets.iter().flatten() {
                        if let Slot::Frame(i) = s {
                            set_add(&mut w, *i as usize);
                        }
                    }
                    reads(m, c.arg_rel.support(), words)
                }
                EdgeKind::Return(rel) => match rel {
                    Some(b) => reads(m, apply::support(b), words),
                    None => vec![0; words],
                },
            };
            (r, w)
        })
        .collect();
    // Backward fixpoint: live(v) = own(v) ∪ ⋃ over edges v → w: reads ∪ (live(w) \ writes).
    // A return edge leads to the exit, where nothing of the frame is live.
    let mut live: Vec<Set> = own.clone();
    let mut queued = vec![true; n];
    let mut work: Vec<usize> = (0..n).collect();
    while let Some(v) = work.pop() {
        queued[v] = false;
        let node = &m.nodes[v];
        let mut s = own[v].clone();
        for &eid in &node.out {
            let e = m.edge(eid);
            let (r, w) = &edge_rw[eid.ix()];
            let after: &[u64] = match (&e.kind, &m.nodes[e.to.ix()].kind) {
                (EdgeKind::Return(_), _) | (_, NodeKind::Exit) => &[],
                _ => &live[e.to.ix()],
            };
            for k in 0..words {
                let a = after.get(k).copied().unwrap_or(0);
                s[k] |= r[k] | (a & !w[k]);
            }
        }
        if s != live[v] {
            live[v] = s;
            for &eid in &node.inc {
                let u = m.edge(eid).from.ix();
                // Only intraprocedural predecessors: a call edge's source is in the same
                // procedure (call node → return point).
                if m.nodes[u].proc == node.proc && !queued[u] {
                    queued[u] = true;
                    work.push(u);
                }
            }
        }
    }
    (0..n)
        .map(|v| {
            (0..frame_len(v))
                .filter(|&i| !set_has(&live[v], i))
                .map(|i| m.vars.var(Slot::Frame(i as u32), Ver::Cur))
                .collect()
        })
        .collect()
}
