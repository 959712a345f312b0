//! Correctness witnesses: the loop-head invariants of the Boolean program bebop proved safe, as
//! C expressions over the predicates, written as a GraphML correctness witness; and the checker
//! that reads a witness's invariants back and has [`super::induct`] prove them inductive.

use std::collections::HashMap;

use cir::ir::{BinOp, Expr, FuncId, NodeId, Program};

use super::graphml::{Data, Graphml, read_graph};
use super::induct::{Induct, bin, int_const, loop_heads, modular, node_line};
use super::{WitnessError, WitnessInfo, err};

/// Parts of the names of Boolean variables left out of the invariants: call temporaries and
/// `\result` predicates, whose values mean nothing at a loop head, and predicates over the
/// IR's temporaries (`nondet#ret#3`), which are not C variables a validator knows.
const HIDDEN: [&str; 4] = ["{arg ", "{ret ", "{\\result", "#"];

/// The C text of an invariant in normal form over predicate variables (`{x < y}`), or `None`
/// when a variable is not a predicate.
fn invariant_text(nf: &bebop::NormalForm) -> Option<String> {
    let lit = |(n, v): &(String, bool)| -> Option<String> {
        let p = n.strip_prefix('{')?.strip_suffix('}')?;
        Some(if *v {
            format!("({p})")
        } else {
            format!("!({p})")
        })
    };
    let join = |terms: &[Vec<(String, bool)>], inner: &str, outer: &str, empty: &str| {
        if terms.is_empty() {
            return Some(empty.to_string());
        }
        let parts: Option<Vec<String>> = terms
            .iter()
            .map(|t| {
                let ls: Option<Vec<String>> = t.iter().map(lit).collect();
                let ls = ls?;
                Some(if ls.is_empty() {
                    // An empty cube is true; an empty clause false.
                    if inner == " && " {
                        "1".into()
                    } else {
                        "0".into()
                    }
                } else {
                    format!("({})", ls.join(inner))
                })
            })
            .collect();
        Some(parts?.join(outer))
    };
    match nf {
        bebop::NormalForm::Dnf(c) => join(c, " && ", " || ", "0"),
        bebop::NormalForm::Cnf(c) => join(c, " || ", " && ", "1"),
    }
}

/// One loop-head invariant of a correctness witness.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LoopInvariant {
    /// The function.
    pub function: String,
    /// The loop head's line (of the function's first statement, for an entry invariant).
    pub line: u32,
    /// The invariant (C expression).
    pub invariant: String,
    /// An invariant of the function's entry (of a function other than `main` with loops),
    /// not of a loop head.
    pub entry: bool,
}

/// The loop-head invariants the Boolean program `bp_text` (proved safe by bebop) gives for
/// `prog`: the reachable valuations at each loop head's label (`L<node>`), without call
/// temporaries and `\result` predicates, as a C expression over the predicates. A loop head
/// whose set is too large to write exactly, or has no label, gets none.
pub fn loop_invariants(prog: &Program, bp_text: &str) -> Result<Vec<LoopInvariant>, WitnessError> {
    let bp = bp_grammar::parse_and_check(bp_text, &bp_grammar::ParseOptions::default())
        .map_err(|d| WitnessError(format!("the final abstraction does not parse: {d:?}")))?;
    let mut at: Vec<(String, String)> = prog
        .functions
        .iter()
        .flat_map(|f| {
            loop_heads(f)
                .into_iter()
                .map(|h| (f.name.clone(), format!("L{}", h.0)))
        })
        .collect();
    at.extend(
        prog.functions
            .iter()
            .filter(|f| modular(f))
            .map(|f| (f.name.clone(), String::new())),
    );
    let opts = bebop::Options {
        invariants: true,
        invariant_hide: HIDDEN.iter().map(|s| s.to_string()).collect(),
        invariant_at: Some(at),
        ..bebop::Options::default()
    };
    let out = bebop::verify(&bp, &opts).map_err(|e| WitnessError(e.to_string()))?;
    if !out.verdict.is_safe() {
        return err("the final abstraction is not safe");
    }
    let invs = out.invariants.unwrap_or_default();
    let mut res = Vec::new();
    for f in &prog.functions {
        if modular(f)
            && let Some(line) = node_line(f, f.entry)
            && let Some(inv) = invs.iter().find(|i| i.proc == f.name && i.stmt.0 == 0)
            && let Some(text) = inv.exact.as_ref().and_then(invariant_text)
        {
            res.push(LoopInvariant {
                function: f.name.clone(),
                line,
                invariant: text,
                entry: true,
            });
        }
        for h in loop_heads(f) {
            let label = format!("L{}", h.0);
            let Some(line) = node_line(f, h) else {
                continue;
            };
            let Some(inv) = invs
                .iter()
                .find(|i| i.proc == f.name && i.labels.contains(&label))
            else {
                tracing::debug!(function = %f.name, node = h.0, "loop head without a label");
                continue;
            };
            let Some(text) = inv.exact.as_ref().and_then(invariant_text) else {
                tracing::debug!(function = %f.name, node = h.0, "invariant too large");
                continue;
            };
            res.push(LoopInvariant {
                function: f.name.clone(),
                line,
                invariant: text,
                entry: false,
            });
        }
    }
    Ok(res)
}

/// The correctness witness: the invariants as invariant nodes, each reached from the entry
/// node by an edge with the loop head's `startline` and `enterLoopHead` (or, for a function's
/// entry invariant, its first line and `enterFunction`).
pub fn correctness(invariants: &[LoopInvariant], info: &WitnessInfo) -> String {
    let mut g = Graphml::new("correctness_witness", info);
    g.node("N0", &vec![("entry", "true".into())]);
    for (k, inv) in invariants.iter().enumerate() {
        let id = format!("I{k}");
        g.node(
            &id,
            &vec![
                ("invariant", inv.invariant.clone()),
                ("invariant.scope", inv.function.clone()),
            ],
        );
        let mut data: Data = vec![("startline", inv.line.to_string())];
        if inv.entry {
            data.push(("enterFunction", inv.function.clone()));
        } else {
            data.push(("enterLoopHead", "true".into()));
        }
        g.edge("N0", &id, &data);
    }
    g.finish()
}

/// What [`check_correctness`] proved.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Proved {
    /// Invariants the witness gives.
    pub invariants: usize,
    /// Loop heads of the functions checked (each with its invariant, or `1`).
    pub loop_heads: usize,
    /// Proof obligations discharged (one per reachable pair of cut points, and per reachable
    /// error edge).
    pub obligations: usize,
}

/// Checks a correctness witness: its invariants are proved *inductive* and the error
/// unreachable by the C-side crate's encoding. The functions checked on their own are `main`
/// and every function with a loop (`modular`); their cut points are their entry (main's with
/// the globals' initial values, another's with its entry invariant, an `enterFunction` edge of
/// the witness) and their loop heads (by function and line). From each cut point, every path
/// to the next cut points is encoded at once in SSA form (a fresh variable per assignment, a
/// reachability variable and merged versions per node, calls of loop-free functions inlined),
/// and Z3 proves that the invariant of every cut point reached follows, that the entry
/// invariant of every function called that is checked on its own holds at the call (after
/// which the globals and the result are arbitrary), and that no error edge is reached. A cut
/// point without an invariant in the witness gets `1`. Programs with pointers, aggregates or
/// recursion through loop-free functions are not checked (an error saying so).
pub fn check_correctness(
    prog: &Program,
    source: &[u8],
    text: &str,
    sem: cir::smt::Semantics,
) -> Result<Proved, WitnessError> {
    let g = read_graph(text, source, "correctness_witness")?;
    // Where each invariant node is entered: (startline, the function an `enterFunction`
    // edge names).
    let mut into: HashMap<&str, Vec<(u32, Option<String>)>> = HashMap::new();
    for es in g.out.values() {
        for e in es {
            if let Some(l) = e.data.get("startline").and_then(|l| l.parse().ok()) {
                into.entry(e.target.as_str())
                    .or_default()
                    .push((l, e.data.get("enterFunction").cloned()));
            }
        }
    }
    let mut invs: HashMap<(FuncId, u32), Vec<Expr>> = HashMap::new();
    let mut entries: HashMap<FuncId, Vec<Expr>> = HashMap::new();
    let mut count = 0;
    for (id, d) in &g.nodes {
        let Some(text) = d.get("invariant") else {
            continue;
        };
        count += 1;
        let scope = d
            .get("invariant.scope")
            .map(String::as_str)
            .unwrap_or("main");
        let f = prog
            .function(scope)
            .ok_or_else(|| WitnessError(format!("invariant scope `{scope}` is not a function")))?;
        let e = cir::pred::parse_predicate(text, cir::pred::PredScope::Function(f.id), prog)
            .map_err(|(c, m)| WitnessError(format!("invariant `{text}`, column {c}: {m}")))?
            .expr;
        let ways = into.get(id.as_str()).cloned().unwrap_or_default();
        if ways.is_empty() {
            return err(format!(
                "invariant node {id} has no edge with a startline into it"
            ));
        }
        for (l, enter) in ways {
            if enter.as_deref() == Some(f.name.as_str()) {
                entries.entry(f.id).or_default().push(e.clone());
            } else {
                invs.entry((f.id, l)).or_default().push(e.clone());
            }
        }
    }
    let conj = |v: Option<Vec<Expr>>| {
        v.and_then(|v| v.into_iter().reduce(|a, b| bin(BinOp::LogAnd, a, b)))
            .unwrap_or_else(|| int_const(1))
    };
    let main = prog
        .function("main")
        .ok_or_else(|| WitnessError("the program has no main".into()))?;
    // The functions checked from their own cut points: main, and those with a loop.
    let roots: Vec<&cir::ir::Function> = prog
        .functions
        .iter()
        .filter(|f| f.id == main.id || modular(f))
        .collect();
    let mut at: HashMap<(FuncId, NodeId), Expr> = HashMap::new();
    let mut entry_inv: HashMap<FuncId, Expr> = HashMap::new();
    // The (function, line) pairs of the witness's invariants that some loop head takes (two
    // loop heads can share a line: each gets the invariants of that line).
    let mut used = std::collections::HashSet::new();
    for f in &roots {
        for h in loop_heads(f) {
            let line = node_line(f, h);
            if let Some(l) = line {
                used.insert((f.id, l));
            }
            let e = conj(line.and_then(|l| invs.get(&(f.id, l)).cloned()));
            at.insert((f.id, h), e);
        }
        if f.id != main.id {
            entry_inv.insert(f.id, conj(entries.remove(&f.id)));
        }
    }
    let n_heads = at.len();
    if let Some((f, l)) = invs.keys().find(|k| !used.contains(*k)) {
        return err(format!(
            "the invariant at line {l} of {} is not at a loop head",
            prog.functions[f.0 as usize].name
        ));
    }
    if let Some(f) = entries.keys().next() {
        return err(format!(
            "an entry invariant of {}, a function without loops (it is inlined)",
            prog.functions[f.0 as usize].name
        ));
    }
    let mut ind = Induct::new(prog, at, entry_inv);
    let mut obligations = 0;
    for f in &roots {
        // The entry (with the initial state or the entry invariant), then every loop head
        // (with its invariant) — the entry node itself may be one, checked twice then.
        obligations += ind.check_cut(f.id, f.entry, true, sem)?;
        for h in loop_heads(f) {
            obligations += ind.check_cut(f.id, h, false, sem)?;
        }
    }
    Ok(Proved {
        invariants: count,
        loop_heads: n_heads,
        obligations,
    })
}
