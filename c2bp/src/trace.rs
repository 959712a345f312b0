//! From a trace of a Boolean program c2bp wrote back to the C program: the path of C edges the
//! trace follows, read from the annotations c2bp puts on every statement (`edge=f#k`). c2bp owns
//! the annotation scheme, so its inverse lives here; `newton` (issue 4 §1, "map the trace's
//! steps to C IR edges through the annotations") starts from it.
//!
//! A C edge is translated into a block of statements that all carry its `edge=`; the block's
//! first statement is where the edge is taken, so a trace step at that statement is one
//! traversal of the edge (a loop that takes the same edge twice gives two steps). Glue between
//! blocks (branch `goto`s, the `return` at a procedure's exit, the initialisation of globals)
//! carries no edge. Calls and returns appear as the trace's depth.

use std::collections::HashMap;

use bp_grammar::ast::{Program as BpProgram, StmtId};
use bp_grammar::trace::{StepKind, Trace};
use cir::Program;
use cir::ir::{EdgeId, EdgeKind, FuncId, NodeId};

/// One traversal of a C edge, at a call depth (`main` is 0).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CStep {
    /// The edge.
    pub edge: EdgeId,
    /// The trace's call depth.
    pub depth: u32,
}

/// A trace that does not fit the C program.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TraceMapError {
    /// An `edge=` annotation names no edge of the program.
    #[error("trace step {step}: `edge={name}` is not an edge of the C program")]
    UnknownEdge {
        /// Index of the step in the trace.
        step: usize,
        /// The annotation's value.
        name: String,
    },
    /// The edges do not form a path of the control-flow graph.
    #[error("trace step {step}: edge {edge} does not continue the path ({why})")]
    NotAPath {
        /// Index of the step in the trace.
        step: usize,
        /// The edge.
        edge: String,
        /// What is wrong.
        why: String,
    },
}

/// The edge named `f#k`.
pub fn edge_by_name(prog: &Program, name: &str) -> Option<EdgeId> {
    let (f, k) = name.rsplit_once('#')?;
    let func = prog.function(f)?;
    let index: u32 = k.parse().ok()?;
    ((index as usize) < func.edges.len()).then_some(EdgeId {
        func: func.id,
        index,
    })
}

/// The C edges a trace of the Boolean program `bp` (written by c2bp for `prog`) follows, in
/// order, checked to form a path of the control-flow graph through calls and returns.
pub fn c_path(prog: &Program, bp: &BpProgram, trace: &Trace) -> Result<Vec<CStep>, TraceMapError> {
    // The first statement of each edge's block, per procedure.
    let mut entries: HashMap<(&str, StmtId), &str> = HashMap::new();
    for p in &bp.procs {
        let mut seen = std::collections::HashSet::new();
        for (id, s) in p.stmts_preorder() {
            if let Some(e) = s.annotations.get("edge")
                && seen.insert(e)
            {
                entries.insert((p.name.name.as_str(), id), e);
            }
        }
    }
    let mut out = Vec::new();
    // The activations: function and the node it is at.
    let mut stack: Vec<(FuncId, NodeId)> = Vec::new();
    for (i, step) in trace.steps.iter().enumerate() {
        if step.kind == StepKind::Return {
            continue;
        }
        let Some(stmt) = step.stmt else { continue };
        let Some(&name) = entries.get(&(step.proc.as_str(), stmt)) else {
            continue;
        };
        let edge = edge_by_name(prog, name).ok_or_else(|| TraceMapError::UnknownEdge {
            step: i,
            name: name.to_string(),
        })?;
        let e = &prog.functions[edge.func.0 as usize].edges[edge.index as usize];
        let not_a_path = |why: String| TraceMapError::NotAPath {
            step: i,
            edge: name.to_string(),
            why,
        };
        let depth = step.depth as usize;
        if stack.len() > depth + 1 {
            stack.truncate(depth + 1);
        }
        if stack.len() == depth {
            let f = &prog.functions[edge.func.0 as usize];
            stack.push((f.id, f.entry));
        }
        let Some(top) = stack.last_mut() else {
            return Err(not_a_path(format!("no activation at depth {depth}")));
        };
        if top.0 != edge.func {
            return Err(not_a_path(format!(
                "the activation at depth {depth} is in `{}`",
                prog.functions[top.0.0 as usize].name
            )));
        }
        if top.1 != e.from {
            return Err(not_a_path(format!(
                "the path is at node {} but the edge leaves node {}",
                top.1, e.from
            )));
        }
        top.1 = e.to;
        out.push(CStep {
            edge,
            depth: step.depth,
        });
    }
    Ok(out)
}

/// Whether the path ends with an error edge of the C program.
pub fn ends_in_error(prog: &Program, path: &[CStep]) -> bool {
    path.last().is_some_and(|s| {
        matches!(
            prog.functions[s.edge.func.0 as usize].edges[s.edge.index as usize].kind,
            EdgeKind::Error { .. }
        )
    })
}
