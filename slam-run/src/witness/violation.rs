//! Violation witnesses: the counterexample of a FALSE verdict as a GraphML automaton, and a
//! checker that replays a witness on the concrete interpreter.
//!
//! **Writing** ([`violation`]). One node per step of the counterexample, from the `entry` node to the
//! `violation` node, one edge per C edge taken, with its `startline` (positions in the
//! verified file only), `enterFunction` on calls of defined functions, `returnFromFunction` on
//! returns, and on each call of a `__VERIFIER_nondet_X` function the value it returned:
//! `assumption` `\result == V;` with `assumption.resultfunction` and `assumption.scope`.
//!
//!
//! **Checking** ([`check_violation`]). The GraphML must be well-formed, declare every key it
//! uses, carry the graph keys above with the program's hash, and lead from its one entry node
//! along single out-edges to a violation node. The values of its `\result` assumptions are then
//! fed, in order, to the nondeterministic calls of a run of [`cir::interp`] (each call's
//! function and line must match the assumption's edge); every other value the run needs (an
//! uninitialised local) is 0. The run must reach the error, and the witness's `startline`s must
//! be found, in order, among the lines of the edges the run took.

use std::collections::{HashMap, VecDeque};
use std::fmt::Write as _;

use cir::interp::{End, Event, Interp, Oracle};
use cir::ir::{Callee, EdgeKind, Program};
use newton::Counterexample;

use super::graphml::{WEdge, header, read_graph, xml_escape};
use super::{WitnessError, WitnessInfo, err};

/// The violation witness of a counterexample of `prog`.
pub fn violation(prog: &Program, cex: &Counterexample, info: &WitnessInfo) -> String {
    // The values of nondeterministic calls, by the step that drew them.
    let nondet: HashMap<usize, i128> = cex
        .inputs
        .iter()
        .filter_map(|i| Some((i.step?, i.value)))
        .collect();
    let mut s = header("violation_witness", info);
    s.push_str("  <node id=\"N0\">\n   <data key=\"entry\">true</data>\n  </node>\n");
    let n = cex.steps.len();
    for (k, step) in cex.steps.iter().enumerate() {
        let last = k + 1 == n;
        if last {
            let _ = writeln!(
                s,
                "  <node id=\"N{}\">\n   <data key=\"violation\">true</data>\n  </node>",
                k + 1
            );
        } else {
            let _ = writeln!(s, "  <node id=\"N{}\"/>", k + 1);
        }
        let _ = writeln!(s, "  <edge source=\"N{k}\" target=\"N{}\">", k + 1);
        let edge = bp_c::trace::edge_by_name(prog, &step.edge).map(|id| prog.edge(id));
        if let Some(e) = edge {
            if e.pos.file == 0 && e.pos.line > 0 {
                let _ = writeln!(s, "   <data key=\"startline\">{}</data>", e.pos.line);
            }
            match &e.kind {
                EdgeKind::Call {
                    callee: Callee::Defined(g),
                    ..
                } => {
                    let _ = writeln!(
                        s,
                        "   <data key=\"enterFunction\">{}</data>",
                        xml_escape(&prog.functions[g.0 as usize].name)
                    );
                }
                EdgeKind::Call {
                    callee: Callee::Nondet(name),
                    ..
                } => {
                    if let Some(v) = nondet.get(&k) {
                        let _ = writeln!(
                            s,
                            "   <data key=\"assumption\">\\result == {v};</data>\n   \
                             <data key=\"assumption.scope\">{}</data>\n   \
                             <data key=\"assumption.resultfunction\">{}</data>",
                            xml_escape(&step.function),
                            xml_escape(name)
                        );
                    }
                }
                EdgeKind::Return(_) => {
                    let _ = writeln!(
                        s,
                        "   <data key=\"returnFromFunction\">{}</data>",
                        xml_escape(&step.function)
                    );
                }
                _ => {}
            }
        }
        s.push_str("  </edge>\n");
    }
    if n == 0 {
        // The error at the entry: the entry node is the violation node.
        s = s.replace(
            "<data key=\"entry\">true</data>",
            "<data key=\"entry\">true</data>\n   <data key=\"violation\">true</data>",
        );
    }
    s.push_str(" </graph>\n</graphml>\n");
    s
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

/// Queue of values for the interpreter (0 when empty).
#[derive(Default)]
struct Values(VecDeque<i128>);

impl Oracle for Values {
    fn value(&mut self, lo: i128, hi: i128) -> i128 {
        self.0.pop_front().unwrap_or(0).clamp(lo, hi)
    }
    fn choose(&mut self, _n: usize) -> usize {
        0
    }
}

fn parse_result_value(a: &str) -> Option<i128> {
    let a = a.trim().trim_end_matches(';').trim();
    let v = a
        .strip_prefix("\\result")?
        .trim_start()
        .strip_prefix("==")?;
    v.trim().trim_matches(|c| c == '(' || c == ')').parse().ok()
}

/// Checks a violation witness against the program (module doc).
pub fn check_violation(prog: &Program, source: &[u8], text: &str) -> Result<Checked, WitnessError> {
    let g = read_graph(text, source, "violation_witness")?;
    let (entry, out) = (g.entry, g.out);
    let violation_nodes = g.flagged.get("violation").cloned().unwrap_or_default();
    let [start] = entry.as_slice() else {
        return err(format!("{} entry nodes (one expected)", entry.len()));
    };
    // The path from the entry to a violation node.
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
    // The values of nondeterministic calls, with their function and line.
    let mut values: VecDeque<(String, i128, Option<u32>)> = VecDeque::new();
    for e in &path {
        if let Some(f) = e.data.get("assumption.resultfunction") {
            let a = e.data.get("assumption").map(String::as_str).unwrap_or("");
            let v = parse_result_value(a)
                .ok_or_else(|| WitnessError(format!("assumption `{a}` is not `\\result == V;`")))?;
            let line = e.data.get("startline").and_then(|l| l.parse().ok());
            values.push_back((f.clone(), v, line));
        }
    }
    let n_values = values.len();
    let lines: Vec<u32> = path
        .iter()
        .filter_map(|e| e.data.get("startline").and_then(|l| l.parse().ok()))
        .collect();
    // Replay.
    let mut oracle = Values::default();
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
                oracle.0.push_back(v);
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
}
