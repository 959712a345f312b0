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
use std::path::Path;

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

/// What a tool that examines a bebop trace of a Boolean program c2bp wrote (newton, constrain)
/// reads: the C program, lowered with the settings the `.bp` header records, the Boolean
/// program and the trace.
pub struct TraceInputs {
    /// The C program.
    pub prog: Program,
    /// The Boolean program.
    pub bp: BpProgram,
    /// The settings of its header (checked against the C file's SHA-256).
    pub settings: crate::HeaderSettings,
    /// The trace.
    pub trace: Trace,
}

/// Why the inputs cannot be read: lines to print first (the `.bp` checker's diagnostics) and a
/// one-line message.
#[derive(Debug, Clone)]
pub struct InputError {
    /// Diagnostics, rendered.
    pub details: Vec<String>,
    /// What is wrong, naming the file.
    pub message: String,
}

/// Reads a C file, the Boolean program c2bp wrote for it and a trace (`bebop --trace-json`),
/// checking that the `.bp` was abstracted from this C file (`HeaderSettings::check_source`).
pub fn load_trace_inputs(c: &Path, bp: &Path, trace: &Path) -> Result<TraceInputs, InputError> {
    let fail = |message: String| InputError {
        details: Vec::new(),
        message,
    };
    let read = |p: &Path| std::fs::read(p).map_err(|e| fail(format!("{}: {e}", p.display())));
    let c_bytes = read(c)?;
    let bp_text = String::from_utf8_lossy(&read(bp)?).into_owned();
    let bp_prog = bp_grammar::parse_and_check(&bp_text, &bp_grammar::ParseOptions::default())
        .map_err(|ds| InputError {
            details: ds
                .iter()
                .map(|d| d.render(&bp.display().to_string()))
                .collect(),
            message: format!("{}: not a valid Boolean program", bp.display()),
        })?;
    let settings = crate::HeaderSettings::from_header(&bp_prog.header)
        .and_then(|s| s.check_source(&c_bytes).map(|()| s))
        .map_err(|e| fail(format!("{}: {e}", bp.display())))?;
    let prog = cir::load_file(c, &settings.lower_options()).map_err(|e| fail(e.to_string()))?;
    let trace_text = String::from_utf8_lossy(&read(trace)?).into_owned();
    let trace = Trace::from_json(&trace_text)
        .map_err(|e| fail(format!("{}: not a bebop trace: {e}", trace.display())))?;
    Ok(TraceInputs {
        prog,
        bp: bp_prog,
        settings,
        trace,
    })
}
