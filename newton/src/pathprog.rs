//! Path programs (Beyer, Henzinger, Majumdar, Rybalchenko, "Path invariants", PLDI 2007, §3):
//! the program restricted to the locations and edges a path visits, with a location visited
//! several times being one location, so that a loop the path unrolls is a loop again. An
//! invariant map of the path program that excludes the error refutes every unrolling of its
//! loops at once, where the weakest preconditions of one path only refute that path.
//!
//! Two variants ([`Variant`]): the paper's, the path's own edges; and the path's edges with the
//! whole body of every natural loop whose head the path visits (all edges between the nodes
//! that reach the loop's back edge without passing its head), so that a branch of the loop
//! body the path did not take is in the path program as well.
//!
//! Each function the path enters has its [`Part`], with its *cut points*: the entry, the exit,
//! the targets of the back edges of a depth-first search over the part's edges from the entry
//! (every cycle passes one, also where gotos make the graph irreducible), the joins (nodes
//! with two incoming edges, so that the code between cut points is a tree), and both ends of
//! every call of a function with a body (a call is a clause of its own, through the callee's
//! summary).

use std::collections::{BTreeMap, BTreeSet};

use bp_c::trace::CStep;
use cir::ir::{Callee, EdgeKind, FuncId, Function, NodeId, Program};

/// Which edges a path program holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Variant {
    /// The path's own edges (the paper's path program).
    #[default]
    Path,
    /// The path's edges and the whole body of each natural loop whose head it visits.
    Loops,
}

impl std::str::FromStr for Variant {
    type Err = String;
    fn from_str(s: &str) -> Result<Variant, String> {
        match s {
            "path" => Ok(Variant::Path),
            "loops" => Ok(Variant::Loops),
            _ => Err(format!("`{s}`: expected path or loops")),
        }
    }
}

impl std::fmt::Display for Variant {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Variant::Path => "path",
            Variant::Loops => "loops",
        })
    }
}

/// The part of one function in a path program.
#[derive(Debug, Clone, Default, PartialEq, Eq, PartialOrd, Ord)]
pub struct Part {
    /// Its edges (indices into the function's edges).
    pub edges: BTreeSet<u32>,
    /// The cut points (see the module doc).
    pub cuts: BTreeSet<NodeId>,
    /// The loop heads of the part (targets of its depth-first back edges).
    pub heads: BTreeSet<NodeId>,
}

/// A path program: the part of every function the path enters.
#[derive(Debug, Clone, Default, PartialEq, Eq, PartialOrd, Ord)]
pub struct PathProgram {
    /// Per function.
    pub parts: BTreeMap<FuncId, Part>,
}

impl PathProgram {
    /// The number of edges in all.
    pub fn edge_count(&self) -> usize {
        self.parts.values().map(|p| p.edges.len()).sum()
    }
}

/// The path program of `path` (a path of `prog` from `main`'s entry).
pub fn build(prog: &Program, path: &[CStep], variant: Variant) -> PathProgram {
    let mut edges: BTreeMap<FuncId, BTreeSet<u32>> = BTreeMap::new();
    for s in path {
        edges.entry(s.edge.func).or_default().insert(s.edge.index);
    }
    if variant == Variant::Loops {
        for (fid, es) in edges.iter_mut() {
            let f = &prog.functions[fid.0 as usize];
            let visited: BTreeSet<NodeId> = es.iter().map(|&i| f.edges[i as usize].from).collect();
            es.extend(loop_bodies(f, &visited));
        }
    }
    let mut pp = PathProgram::default();
    for (fid, es) in edges {
        let f = &prog.functions[fid.0 as usize];
        pp.parts.insert(fid, part(f, es));
    }
    pp
}

/// The edges of the natural loops of `f` whose head is in `visited`.
fn loop_bodies(f: &Function, visited: &BTreeSet<NodeId>) -> BTreeSet<u32> {
    let heads = f.loop_heads();
    let mut preds: BTreeMap<NodeId, Vec<NodeId>> = BTreeMap::new();
    for e in &f.edges {
        preds.entry(e.to).or_default().push(e.from);
    }
    let mut out = BTreeSet::new();
    for h in heads.into_iter().filter(|h| visited.contains(h)) {
        // The nodes that reach a back edge into `h` without passing `h`.
        let mut body: BTreeSet<NodeId> = BTreeSet::from([h]);
        let mut stack: Vec<NodeId> = f
            .edges
            .iter()
            .filter(|e| e.to == h)
            .map(|e| e.from)
            .collect();
        let reaches_h = reaching(f, h);
        stack.retain(|t| reaches_h.contains(t));
        while let Some(m) = stack.pop() {
            if body.insert(m) {
                stack.extend(preds.get(&m).into_iter().flatten().copied());
            }
        }
        for e in &f.edges {
            if body.contains(&e.from) && body.contains(&e.to) {
                out.insert(e.id.index);
            }
        }
    }
    out
}

/// The nodes reachable from `h` (a back edge into `h` leaves one of them).
fn reaching(f: &Function, h: NodeId) -> BTreeSet<NodeId> {
    let mut seen = BTreeSet::from([h]);
    let mut stack = vec![h];
    while let Some(m) = stack.pop() {
        for e in f.edges.iter().filter(|e| e.from == m) {
            if seen.insert(e.to) {
                stack.push(e.to);
            }
        }
    }
    seen
}

/// The part of `f` with edges `es`, and its cut points.
fn part(f: &Function, es: BTreeSet<u32>) -> Part {
    let edge = |i: &u32| &f.edges[*i as usize];
    let heads = cir::ir::back_edge_targets(
        f.entry,
        f.nodes,
        es.iter().map(|i| (edge(i).from, edge(i).to)),
    );
    let mut indegree: BTreeMap<NodeId, usize> = BTreeMap::new();
    let mut cuts: BTreeSet<NodeId> = BTreeSet::from([f.entry]);
    for i in &es {
        let e = edge(i);
        *indegree.entry(e.to).or_default() += 1;
        if e.to == f.exit {
            cuts.insert(f.exit);
        }
        if let EdgeKind::Call {
            callee: Callee::Defined(_),
            ..
        } = e.kind
        {
            cuts.insert(e.from);
            cuts.insert(e.to);
        }
    }
    cuts.extend(indegree.into_iter().filter(|(_, d)| *d > 1).map(|(n, _)| n));
    cuts.extend(heads.iter().copied());
    Part {
        edges: es,
        cuts,
        heads,
    }
}

/// Whether some activation of the path passes a loop head of its function twice (the path
/// unrolls a loop: what weakest preconditions refute one unrolling at a time).
pub fn revisits_loop_head(prog: &Program, path: &[CStep]) -> bool {
    let Ok((_, act_of)) = crate::symbolic::activations(prog, path) else {
        return false;
    };
    let mut heads: BTreeMap<FuncId, Vec<NodeId>> = BTreeMap::new();
    let mut seen: BTreeSet<(usize, NodeId)> = BTreeSet::new();
    for (s, &a) in path.iter().zip(&act_of) {
        let f = &prog.functions[s.edge.func.0 as usize];
        let hs = heads.entry(f.id).or_insert_with(|| f.loop_heads());
        let from = prog.edge(s.edge).from;
        if hs.contains(&from) && !seen.insert((a, from)) {
            return true;
        }
    }
    false
}
