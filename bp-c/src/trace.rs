//! From a trace of a Boolean program c2bp wrote back to the C program: the path of C edges the
//! trace follows, read from the annotations c2bp puts on every statement (`edge=f#k`). c2bp owns
//! the annotation scheme, and this crate states what it means; `newton` and `constrain` start
//! from it.
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
    pub settings: crate::header::HeaderSettings,
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
                .map(|d| d.render_source(&bp.display().to_string(), &bp_text))
                .collect(),
            message: format!("{}: not a valid Boolean program", bp.display()),
        })?;
    let settings = crate::header::HeaderSettings::from_header(&bp_prog.header)
        .and_then(|s| s.check_source(&c_bytes).map(|()| s))
        .map_err(|e| fail(format!("{}: {e}", bp.display())))?;
    let prog = cir::load_file(c, &settings.lower_options()).map_err(|e| fail(e.to_string()))?;
    let trace_text = String::from_utf8_lossy(&read(trace)?).into_owned();
    let trace_path = trace;
    let trace = Trace::from_json(&trace_text)
        .map_err(|e| fail(format!("{}: not a bebop trace: {e}", trace_path.display())))?;
    // bebop copies the program's header into the trace: a trace of another abstraction (of
    // another C file) is refused here, not misread statement by statement.
    if trace.header.get("sha256") != bp_prog.header.get("sha256") {
        return Err(fail(format!(
            "{}: not a trace of {} (its header names another C file)",
            trace_path.display(),
            bp.display()
        )));
    }
    // Each step's statement must be the `.bp`'s statement at that place (a trace of another
    // abstraction of the same C file would be misread otherwise).
    let stmts: HashMap<(&str, StmtId), String> = bp_prog
        .procs
        .iter()
        .flat_map(|p| {
            p.stmts_preorder()
                .into_iter()
                .map(move |(id, s)| ((p.name.name.as_str(), id), bp_grammar::print_stmt_head(s)))
        })
        .collect();
    for (k, st) in trace.steps.iter().enumerate() {
        let Some(id) = st.stmt else { continue };
        if stmts.get(&(st.proc.as_str(), id)) != Some(&st.text) {
            return Err(fail(format!(
                "{}: step {k} (`{}` in `{}`) is not a statement of {} there",
                trace_path.display(),
                st.text,
                st.proc,
                bp.display()
            )));
        }
    }
    Ok(TraceInputs {
        prog,
        bp: bp_prog,
        settings,
        trace,
    })
}

/// One Boolean variable of a `.bp` c2bp wrote that stands for a predicate: the procedure it is
/// declared in (`None`: a global), its name as declared, and the predicate read back from it.
pub struct PredicateVar {
    /// The procedure (`None`: a global variable).
    pub proc: Option<String>,
    /// The variable's name (`{TEXT}`).
    pub name: String,
    /// The predicate, parsed in the variable's scope.
    pub pred: cir::pred::Predicate,
}

/// The predicate variables of a Boolean program c2bp wrote, read back from their names
/// (`{TEXT}`): global declarations are global predicates, a procedure's parameters and locals
/// its function's predicates; c2bp's call temporaries (`{arg …}`, `{ret …}`,
/// [`crate::names::CallTemp`]) are not predicates. A name that does not parse as a predicate of
/// `prog` is an error naming it.
pub fn predicate_vars_of_bp(prog: &Program, bp: &BpProgram) -> Result<Vec<PredicateVar>, String> {
    use cir::pred::{PredScope, parse_predicate};
    fn inner(name: &str) -> Option<&str> {
        name.strip_prefix('{').and_then(|r| r.strip_suffix('}'))
    }
    let mut out = Vec::new();
    for d in &bp.globals {
        for v in &d.vars {
            let Some(t) = inner(&v.name) else { continue };
            let pred = parse_predicate(t, PredScope::Global, prog)
                .map_err(|(_, m)| format!("global predicate `{t}`: {m}"))?;
            out.push(PredicateVar {
                proc: None,
                name: v.name.clone(),
                pred,
            });
        }
    }
    for proc in &bp.procs {
        let Some(f) = prog.function(&proc.name.name) else {
            continue;
        };
        let names = proc
            .params
            .iter()
            .chain(proc.locals.iter().flat_map(|d| d.vars.iter()));
        for v in names {
            let Some(t) = inner(&v.name) else { continue };
            if crate::names::CallTemp::parse(&v.name).is_some() {
                continue;
            }
            let pred = parse_predicate(t, PredScope::Function(f.id), prog)
                .map_err(|(_, m)| format!("predicate `{t}` of `{}`: {m}", f.name))?;
            out.push(PredicateVar {
                proc: Some(proc.name.name.clone()),
                name: v.name.clone(),
                pred,
            });
        }
    }
    Ok(out)
}

/// The predicates a Boolean program c2bp wrote was built from ([`predicate_vars_of_bp`]), as a
/// predicate set (what newton uses without `--preds`).
pub fn predicates_of_bp(prog: &Program, bp: &BpProgram) -> Result<cir::pred::PredicateSet, String> {
    let mut set = cir::pred::PredicateSet::default();
    for v in predicate_vars_of_bp(prog, bp)? {
        match v.proc {
            None => set.global.push(v.pred),
            Some(f) => {
                let own = set.per_function.entry(f).or_default();
                if !own.iter().any(|q| q.text == v.pred.text) {
                    own.push(v.pred);
                }
            }
        }
    }
    Ok(set)
}
