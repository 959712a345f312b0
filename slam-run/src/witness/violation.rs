//! Violation witnesses: the counterexample of a FALSE verdict as a GraphML automaton, and a
//! checker that replays a witness on the concrete interpreter.
//!
//! **Writing** ([`violation`]). One node per step of the counterexample, from the `entry` node to the
//! `violation` node, one edge per C edge taken, with its `startline` (positions in the
//! verified file only), `enterFunction` on calls of defined functions, `returnFromFunction` on
//! returns, and on each call of a `__VERIFIER_nondet_X` function the value it returned:
//! `assumption` `\result == V;` with `assumption.resultfunction` and `assumption.scope`. The
//! initial values of the uninitialised locals the path depends on follow the entry of their
//! activation (main's: first) on an edge of their own, `assumption` `x == V; y == W;` with
//! `assumption.scope` the function (an element of a local array of integers not 0: `a[3] == V;`).
//!
//!
//! **Checking** ([`check_violation`]). The GraphML must be well-formed, declare every key it
//! uses, carry the graph keys above with the program's hash, and lead from its one entry node
//! along single out-edges to a violation node. The values of its `\result` assumptions are then
//! fed, in order, to the nondeterministic calls of a run of [`cir::interp`] (each call's
//! function and line must match the assumption's edge); the initial values of uninitialised
//! locals come from the `x == V; …` assumptions of the edge without a source line that
//! follows each activation's entry (main's: the first edge); every other value is 0. The run must reach the error, and the witness's `startline`s must
//! be found, in order, among the lines of the edges the run took.

use std::collections::{HashMap, VecDeque};

use cir::interp::{End, Event, Interp, Oracle};
use cir::ir::{Callee, EdgeKind, Program};
use newton::Counterexample;

use super::graphml::{Data, Graphml, WEdge, read_graph};
use super::{WitnessError, WitnessInfo, err};

/// The violation witness of a counterexample of `prog`.
pub fn violation(prog: &Program, cex: &Counterexample, info: &WitnessInfo) -> String {
    // The values of nondeterministic calls, by the step that drew them.
    let nondet: HashMap<usize, i128> = cex
        .inputs
        .iter()
        .filter_map(|i| Some((i.step?, i.value)))
        .collect();
    // The initial values of uninitialised locals, by the step that entered their activation
    // (`None`: main's).
    let mut initial: HashMap<Option<usize>, Vec<(&str, String, i128)>> = HashMap::new();
    for i in &cex.inputs {
        if let Some(l) = &i.local {
            let name = match l.element {
                Some(e) => format!("{}[{e}]", l.variable),
                None => l.variable.clone(),
            };
            initial
                .entry(l.entered_at)
                .or_default()
                .push((l.function.as_str(), name, i.value));
        }
    }
    // The path's edges (the last one into the violation node), then the graph.
    let mut edges: Vec<Data> = Vec::new();
    if let Some(values) = initial.get(&None) {
        edges.push(initial_values(values));
    }
    for (k, step) in cex.steps.iter().enumerate() {
        let entered = initial.get(&Some(k));
        let mut data = Data::new();
        let edge = bp_c::trace::edge_by_name(prog, &step.edge).map(|id| prog.edge(id));
        if let Some(e) = edge {
            if e.pos.file == 0 && e.pos.line > 0 {
                data.push(("startline", e.pos.line.to_string()));
            }
            match &e.kind {
                EdgeKind::Call {
                    callee: Callee::Defined(g),
                    ..
                } => {
                    data.push(("enterFunction", prog.functions[g.0 as usize].name.clone()));
                }
                EdgeKind::Call {
                    callee: Callee::Nondet(name),
                    ..
                } => {
                    if let Some(v) = nondet.get(&k) {
                        data.push(("assumption", format!("\\result == {v};")));
                        data.push(("assumption.scope", step.function.clone()));
                        data.push(("assumption.resultfunction", name.clone()));
                    }
                }
                EdgeKind::Return(_) => {
                    data.push(("returnFromFunction", step.function.clone()));
                }
                _ => {}
            }
        }
        edges.push(data);
        if let Some(values) = entered {
            edges.push(initial_values(values));
        }
    }
    let mut g = Graphml::new("violation_witness", info);
    let violation = ("violation", "true".to_string());
    let mut entry: Data = vec![("entry", "true".into())];
    if edges.is_empty() {
        // The error at the entry: the entry node is the violation node.
        entry.push(violation.clone());
    }
    g.node("N0", &entry);
    let last = edges.len();
    for (k, data) in edges.iter().enumerate() {
        let to = k + 1;
        let node = if to == last {
            vec![violation.clone()]
        } else {
            Data::new()
        };
        g.node(&format!("N{to}"), &node);
        g.edge(&format!("N{k}"), &format!("N{to}"), data);
    }
    g.finish()
}

/// The data of an edge without a source line that gives the initial values of the
/// uninitialised locals of the activation just entered: `x == 5; y == -1; a[3] == 7;` in its
/// scope (an element of a local array of integers by its index).
fn initial_values(values: &[(&str, String, i128)]) -> Data {
    let function = values.first().map(|v| v.0).unwrap_or("main");
    let conj: Vec<String> = values
        .iter()
        .map(|(_, v, x)| format!("{v} == {x};"))
        .collect();
    vec![
        ("assumption", conj.join(" ")),
        ("assumption.scope", function.to_string()),
    ]
}

/// What [`check_violation`] established.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Checked {
    /// Edges of the witness's path.
    pub edges: usize,
    /// Nondeterministic values it gave.
    pub values: usize,
    /// Steps of the concrete run to the error.
    pub steps: usize,
}

/// The values for the interpreter: a queue for nondeterministic calls (0 when empty), and the
/// initial values of the locals of the activation being entered (0 for the others).
#[derive(Default)]
struct Values {
    queue: VecDeque<i128>,
    initial: InitialValues,
}

impl Oracle for Values {
    fn value(&mut self, lo: i128, hi: i128) -> i128 {
        self.queue.pop_front().unwrap_or(0).clamp(lo, hi)
    }
    fn choose(&mut self, _n: usize) -> usize {
        0
    }
    fn initial(&mut self, var: cir::ir::VarId, lo: i128, hi: i128) -> i128 {
        self.initial.remove(&(var, None)).unwrap_or(0).clamp(lo, hi)
    }
    fn initial_element(&mut self, var: cir::ir::VarId, index: usize, lo: i128, hi: i128) -> i128 {
        self.initial
            .remove(&(var, Some(index)))
            .unwrap_or(0)
            .clamp(lo, hi)
    }
}

/// A scope (a function's name) and values of its locals by name.
type ScopedValues = (String, Vec<(String, i128)>);

/// The initial values an edge's `assumption` gives to locals (`x == 5; y == -1;`, no
/// `assumption.resultfunction`): the scope and the (name, value) pairs; `None` when the edge
/// has no such assumption.
fn initial_assumption(e: &WEdge) -> Result<Option<ScopedValues>, WitnessError> {
    if e.data.contains_key("assumption.resultfunction") {
        return Ok(None);
    }
    let Some(a) = e.data.get("assumption") else {
        return Ok(None);
    };
    let scope = e
        .data
        .get("assumption.scope")
        .cloned()
        .unwrap_or_else(|| "main".into());
    let mut values = Vec::new();
    for part in a.split(';').map(str::trim).filter(|p| !p.is_empty()) {
        let parsed = part.split_once("==").and_then(|(n, v)| {
            let v = v.trim().trim_matches(|c| c == '(' || c == ')');
            let v = v.trim_end_matches(['u', 'U', 'l', 'L']);
            Some((n.trim().to_string(), v.parse::<i128>().ok()?))
        });
        let Some((name, v)) = parsed else {
            return err(format!("assumption `{a}` is not `x == V; …`"));
        };
        values.push((name, v));
    }
    Ok(Some((scope, values)))
}

/// The initial values of `scope`'s locals by variable (and element, for `a[3]`), from
/// `(name, value)` pairs.
fn initial_values_of(
    prog: &Program,
    scope: &str,
    values: &[(String, i128)],
) -> Result<InitialValues, WitnessError> {
    let f = prog
        .function(scope)
        .ok_or_else(|| WitnessError(format!("assumption scope `{scope}` is not a function")))?;
    values
        .iter()
        .map(|(text, v)| {
            let (name, element) = match text.split_once('[') {
                Some((n, rest)) => {
                    let index = rest
                        .strip_suffix(']')
                        .and_then(|i| i.trim().parse::<usize>().ok())
                        .ok_or_else(|| {
                            WitnessError(format!("`{text}` is not `a[INDEX]` (assumption)"))
                        })?;
                    (n.trim(), Some(index))
                }
                None => (text.as_str(), None),
            };
            let l = f
                .locals
                .iter()
                .copied()
                .find(|&l| prog.var(l).name == name)
                .ok_or_else(|| {
                    WitnessError(format!("`{name}` is not a local of `{scope}` (assumption)"))
                })?;
            if let Some(i) = element {
                let fits = matches!(&prog.var(l).ty,
                    cir::types::CType::Array(t, Some(n))
                        if matches!(**t, cir::types::CType::Int(_)) && (i as u64) < *n);
                if !fits {
                    return err(format!(
                        "`{text}` is not an element of a local array of integers (assumption)"
                    ));
                }
            }
            Ok(((l, element), *v))
        })
        .collect()
}

fn parse_result_value(a: &str) -> Option<i128> {
    let a = a.trim().trim_end_matches(';').trim();
    let v = a
        .strip_prefix("\\result")?
        .trim_start()
        .strip_prefix("==")?;
    v.trim().trim_matches(|c| c == '(' || c == ')').parse().ok()
}

/// The witness's path: from its one entry node along single out-edges to a violation node.
fn witness_path(g: super::graphml::Graph) -> Result<Vec<WEdge>, WitnessError> {
    let (entry, out) = (g.entry, g.out);
    let violation_nodes = g.flagged.get("violation").cloned().unwrap_or_default();
    let [start] = entry.as_slice() else {
        return err(format!("{} entry nodes (one expected)", entry.len()));
    };
    let mut path: Vec<WEdge> = Vec::new();
    let mut node = start.clone();
    while !violation_nodes.contains(&node) {
        let next = out.get(&node).map(Vec::as_slice).unwrap_or(&[]);
        match next {
            [e] => {
                path.push(e.clone());
                node = e.target.clone();
            }
            [] => return err(format!("node {node} has no way on to a violation node")),
            _ => return err(format!("node {node} branches (only paths are checked)")),
        }
        if path.len() > 10_000_000 {
            return err("the path does not end");
        }
    }
    Ok(path)
}

/// The values of nondeterministic calls on the path, in order, with their function and line.
fn nondet_values(path: &[WEdge]) -> Result<VecDeque<(String, i128, Option<u32>)>, WitnessError> {
    let mut values = VecDeque::new();
    for e in path {
        if let Some(f) = e.data.get("assumption.resultfunction") {
            let a = e.data.get("assumption").map(String::as_str).unwrap_or("");
            let v = parse_result_value(a)
                .ok_or_else(|| WitnessError(format!("assumption `{a}` is not `\\result == V;`")))?;
            let line = e.data.get("startline").and_then(|l| l.parse().ok());
            values.push_back((f.clone(), v, line));
        }
    }
    Ok(values)
}

/// The initial values of locals the path gives: main's (before any call), and by `k` those of
/// the activation entered by the k-th call of a defined function. Keyed by variable and, for
/// an element of an array, its index.
type InitialValues = HashMap<(cir::ir::VarId, Option<usize>), i128>;

fn initial_values_by_activation(
    prog: &Program,
    path: &[WEdge],
) -> Result<(InitialValues, HashMap<usize, InitialValues>), WitnessError> {
    let mut main_initial = HashMap::new();
    let mut call_initial: HashMap<usize, InitialValues> = HashMap::new();
    let mut calls = 0usize;
    for e in path {
        if let Some((scope, vals)) = initial_assumption(e)? {
            let vals = initial_values_of(prog, &scope, &vals)?;
            if calls == 0 {
                main_initial.extend(vals);
            } else {
                call_initial.entry(calls - 1).or_default().extend(vals);
            }
        }
        if e.data.contains_key("enterFunction") {
            calls += 1;
        }
    }
    Ok((main_initial, call_initial))
}

/// Checks a violation witness against the program (module doc).
pub fn check_violation(prog: &Program, source: &[u8], text: &str) -> Result<Checked, WitnessError> {
    let path = witness_path(read_graph(text, source, "violation_witness")?)?;
    let mut values = nondet_values(&path)?;
    let n_values = values.len();
    let (main_initial, mut call_initial) = initial_values_by_activation(prog, &path)?;
    let lines: Vec<u32> = path
        .iter()
        .filter_map(|e| e.data.get("startline").and_then(|l| l.parse().ok()))
        .collect();
    // Replay.
    let mut oracle = Values {
        initial: main_initial,
        ..Values::default()
    };
    let mut defined_calls = 0usize;
    let mut it = Interp::new(prog, &mut oracle)
        .map_err(|e| WitnessError(format!("the run cannot start: {e}")))?;
    let mut taken_lines: Vec<u32> = Vec::new();
    let mut steps = 0usize;
    let limit = 1_000_000usize;
    loop {
        if steps > limit {
            return err(format!("the run takes more than {limit} steps"));
        }
        // A nondeterministic call next: load its value from the witness.
        if let Some((f, node)) = it.location()
            && !it.at_exit()
        {
            let func = &prog.functions[f.0 as usize];
            let outs: Vec<_> = func.edges.iter().filter(|e| e.from == node).collect();
            if let [e] = outs.as_slice()
                && let EdgeKind::Call {
                    callee: Callee::Nondet(name),
                    ..
                } = &e.kind
            {
                let Some((wf, v, wline)) = values.pop_front() else {
                    return err(format!(
                        "the run calls {name} at line {} and the witness has no value left",
                        e.pos.line
                    ));
                };
                if &wf != name {
                    return err(format!(
                        "the run calls {name} at line {}, the witness's next value is for {wf}",
                        e.pos.line
                    ));
                }
                if let Some(l) = wline
                    && e.pos.file == 0
                    && l != e.pos.line
                {
                    return err(format!(
                        "the run calls {name} at line {}, the witness's value is at line {l}",
                        e.pos.line
                    ));
                }
                oracle.queue.push_back(v);
            }
            // A call of a defined function next: the initial values of its activation.
            if let [e] = outs.as_slice()
                && let EdgeKind::Call {
                    callee: Callee::Defined(_),
                    ..
                } = &e.kind
            {
                oracle.initial = call_initial.remove(&defined_calls).unwrap_or_default();
                defined_calls += 1;
            }
        }
        let ev = it
            .step(&mut oracle)
            .map_err(|e| WitnessError(format!("the run faults after {steps} steps: {e}")))?;
        steps += 1;
        let id = match &ev {
            Event::Edge(id) | Event::Call(id, _) => Some(*id),
            Event::End(End::Error(id)) | Event::End(End::Halt(id)) => Some(*id),
            _ => None,
        };
        if let Some(id) = id {
            let pos = prog.edge(id).pos;
            if pos.file == 0 {
                taken_lines.push(pos.line);
            }
        }
        match ev {
            Event::End(End::Error(_)) => break,
            Event::End(e) => {
                return err(format!(
                    "the run ends without reaching the error ({e:?}) after {steps} steps"
                ));
            }
            _ => {}
        }
    }
    if !values.is_empty() {
        return err(format!(
            "the run reached the error with {} of the witness's values unused",
            values.len()
        ));
    }
    // The witness's lines, in order, among the lines the run took.
    let mut k = 0;
    for l in &taken_lines {
        if k < lines.len() && lines[k] == *l {
            k += 1;
        }
    }
    if k < lines.len() {
        return err(format!(
            "the run does not pass line {} where the witness's edge {} is",
            lines[k],
            k + 1
        ));
    }
    Ok(Checked {
        edges: path.len(),
        values: n_values,
        steps,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn result_values() {
        assert_eq!(parse_result_value("\\result == -5;"), Some(-5));
        assert_eq!(parse_result_value("\\result==(7)"), Some(7));
        assert_eq!(parse_result_value("x == 5;"), None);
    }

    #[test]
    fn initial_values_of_locals() {
        let edge = |pairs: &[(&str, &str)]| WEdge {
            target: "N1".into(),
            data: pairs
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
        };
        let e = edge(&[
            ("assumption", "x == 42; y == (-3);"),
            ("assumption.scope", "f"),
        ]);
        assert_eq!(
            initial_assumption(&e).expect("parses"),
            Some((
                "f".to_string(),
                vec![("x".to_string(), 42), ("y".to_string(), -3)]
            ))
        );
        let call = edge(&[
            ("assumption", "\\result == 5;"),
            ("assumption.resultfunction", "__VERIFIER_nondet_int"),
        ]);
        assert_eq!(initial_assumption(&call).expect("not initial"), None);
        assert!(initial_assumption(&edge(&[("assumption", "x > 3;")])).is_err());
    }
}
