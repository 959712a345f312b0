//! Compaction of a function's graph: `skip` edges merged away, unreachable nodes removed,
//! nodes renumbered from the entry and edges numbered in creation order.

use super::*;

/// Compacts the graph (merges skip edges, removes unreachable nodes), numbers nodes and edges.
pub(super) fn finish(
    fb: FnBuilder,
    name: &str,
    ty: FuncType,
    formals: Vec<VarId>,
    pos: SrcPos,
) -> Function {
    let n = fb.nodes as usize;
    let mut edges: Vec<Option<RawEdge>> = fb.edges.into_iter().map(Some).collect();
    // forwarding of nodes whose only out-edge is a skip
    let mut outs: Vec<Vec<usize>> = vec![Vec::new(); n];
    for (i, e) in edges.iter().enumerate() {
        let e = e.as_ref().expect("all present");
        outs[e.from.0 as usize].push(i);
    }
    let mut fwd: Vec<Option<usize>> = vec![None; n];
    for (v, o) in outs.iter().enumerate() {
        if let [i] = o.as_slice() {
            let e = edges[*i].as_ref().expect("present");
            if e.kind == EdgeKind::Skip && e.to.0 as usize != v && v != fb.exit.0 as usize {
                fwd[v] = Some(e.to.0 as usize);
            }
        }
    }
    let mut state = vec![0u8; n];
    let mut fin: Vec<usize> = (0..n).collect();
    for start in 0..n {
        let mut path = Vec::new();
        let mut cur = start;
        let f = loop {
            if state[cur] == 2 {
                break fin[cur];
            }
            if state[cur] == 1 {
                fwd[cur] = None;
                fin[cur] = cur;
                state[cur] = 2;
                break cur;
            }
            match fwd[cur] {
                None => {
                    fin[cur] = cur;
                    state[cur] = 2;
                    break cur;
                }
                Some(next) => {
                    state[cur] = 1;
                    path.push(cur);
                    cur = next;
                }
            }
        };
        for p in path {
            if state[p] != 2 {
                fin[p] = f;
                state[p] = 2;
            }
        }
    }
    for v in 0..n {
        if fwd[v].is_some() {
            for &i in &outs[v] {
                edges[i] = None;
            }
        }
    }
    let entry = fin[0];
    for e in edges.iter_mut().flatten() {
        e.to = NodeId(fin[e.to.0 as usize] as u32);
    }
    // reachability from the entry
    let mut succ: Vec<Vec<usize>> = vec![Vec::new(); n];
    for (i, e) in edges.iter().enumerate() {
        if let Some(e) = e {
            succ[e.from.0 as usize].push(i);
        }
    }
    let mut reach = vec![false; n];
    let mut stack = vec![entry];
    reach[entry] = true;
    while let Some(v) = stack.pop() {
        for &i in &succ[v] {
            let t = edges[i].as_ref().expect("present").to.0 as usize;
            if !reach[t] {
                reach[t] = true;
                stack.push(t);
            }
        }
    }
    let exit = fb.exit.0 as usize;
    let mut number = vec![u32::MAX; n];
    let mut next = 0u32;
    number[entry] = next;
    next += 1;
    for v in 0..n {
        if v != entry && (reach[v] || v == exit) {
            number[v] = next;
            next += 1;
        }
    }
    let mut out = Vec::new();
    for e in edges.into_iter().flatten() {
        if !reach[e.from.0 as usize] {
            continue;
        }
        out.push(Edge {
            id: EdgeId {
                func: fb.id,
                index: out.len() as u32,
            },
            from: NodeId(number[e.from.0 as usize]),
            to: NodeId(number[e.to.0 as usize]),
            kind: e.kind,
            pos: e.pos,
        });
    }
    Function {
        id: fb.id,
        name: name.to_string(),
        ty,
        formals,
        locals: fb.locals,
        nodes: next,
        entry: NodeId(0),
        exit: NodeId(number[exit]),
        edges: out,
        pos,
    }
}
