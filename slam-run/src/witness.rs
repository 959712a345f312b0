//! SV-COMP violation witnesses (issue 6 §2): the counterexample of a FALSE verdict as a GraphML
//! automaton in the sv-witnesses format 1.0 (`peers.md`, "Witnesses"), and a checker that
//! replays a witness on the concrete interpreter.
//!
//! **Writing.** One node per step of the counterexample, from the `entry` node to the
//! `violation` node, one edge per C edge taken, with its `startline` (positions in the
//! verified file only), `enterFunction` on calls of defined functions, `returnFromFunction` on
//! returns, and on each call of a `__VERIFIER_nondet_X` function the value it returned:
//! `assumption` `\result == V;` with `assumption.resultfunction` and `assumption.scope`. The
//! graph carries `witness-type`, `sourcecodelang`, `producer`, `specification`, `programfile`,
//! `programhash` (SHA-256 of the verified file), `architecture` (`32bit` for ILP32, `64bit`
//! for LP64) and `creationtime`.
//!
//! **Checking** ([`check_violation`]): the GraphML must be well-formed, declare every key it
//! uses, carry the graph keys above with the program's hash, and lead from its one entry node
//! along single out-edges to a violation node. The values of its `\result` assumptions are then
//! fed, in order, to the nondeterministic calls of a run of [`cir::interp`] (each call's
//! function and line must match the assumption's edge); every other value the run needs (an
//! uninitialised local) is 0. The run must reach the error, and the witness's `startline`s must
//! be found, in order, among the lines of the edges the run took.

use std::collections::{HashMap, VecDeque};
use std::fmt::Write as _;

use cir::interp::{End, Event, Interp, Oracle};
use cir::ir::{Callee, EdgeId, EdgeKind, Program};
use cir::types::DataModel;
use newton::Counterexample;

/// What a witness says about the verification run besides the path.
#[derive(Debug, Clone)]
pub struct WitnessInfo {
    /// The verified file as given (`programfile`).
    pub program_file: String,
    /// Its bytes (hashed into `programhash`).
    pub source: Vec<u8>,
    /// The data model (`architecture`).
    pub data_model: DataModel,
    /// The error functions (the first names the specification).
    pub error_fns: Vec<String>,
    /// `producer`.
    pub producer: String,
}

/// A witness that does not check.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("witness: {0}")]
pub struct WitnessError(pub String);

fn err<T>(s: impl Into<String>) -> Result<T, WitnessError> {
    Err(WitnessError(s.into()))
}

/// The specification of the unreach-call property for `error_fn`.
pub fn specification(error_fn: &str) -> String {
    format!("CHECK( init(main()), LTL(G ! call({error_fn}())) )")
}

fn xml_escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// Now as ISO 8601 (UTC).
fn now_iso8601() -> String {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs() as i64)
        .unwrap_or(0);
    let (days, rem) = (secs.div_euclid(86_400), secs.rem_euclid(86_400));
    // Civil date from days since 1970-01-01 (H. Hinnant's algorithm).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}Z",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60
    )
}

/// The keys a witness declares: (id, for, attr.name, attr.type, default).
const KEYS: &[(&str, &str, &str, Option<&str>)] = &[
    ("witness-type", "graph", "string", None),
    ("sourcecodelang", "graph", "string", None),
    ("producer", "graph", "string", None),
    ("specification", "graph", "string", None),
    ("programfile", "graph", "string", None),
    ("programhash", "graph", "string", None),
    ("architecture", "graph", "string", None),
    ("creationtime", "graph", "string", None),
    ("entry", "node", "boolean", Some("false")),
    ("violation", "node", "boolean", Some("false")),
    ("startline", "edge", "int", None),
    ("assumption", "edge", "string", None),
    ("assumption.scope", "edge", "string", None),
    ("assumption.resultfunction", "edge", "string", None),
    ("enterFunction", "edge", "string", None),
    ("returnFromFunction", "edge", "string", None),
    ("enterLoopHead", "edge", "boolean", Some("false")),
    ("invariant", "node", "string", None),
    ("invariant.scope", "node", "string", None),
];

/// The required graph keys of a violation witness.
const GRAPH_KEYS: [&str; 8] = [
    "witness-type",
    "sourcecodelang",
    "producer",
    "specification",
    "programfile",
    "programhash",
    "architecture",
    "creationtime",
];

/// The XML prolog, the keys, and the graph's data of a witness of `witness_type`.
fn header(witness_type: &str, info: &WitnessInfo) -> String {
    let mut s = String::from(
        "<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"no\"?>\n\
         <graphml xmlns=\"http://graphml.graphdrawing.org/xmlns\" \
         xmlns:xsi=\"http://www.w3.org/2001/XMLSchema-instance\">\n",
    );
    for (id, on, ty, default) in KEYS {
        let _ = write!(
            s,
            " <key id=\"{id}\" attr.name=\"{id}\" attr.type=\"{ty}\" for=\"{on}\""
        );
        match default {
            Some(d) => {
                let _ = writeln!(s, ">\n  <default>{d}</default>\n </key>");
            }
            None => s.push_str("/>\n"),
        }
    }
    s.push_str(" <graph edgedefault=\"directed\">\n");
    let error_fn = info
        .error_fns
        .first()
        .map(String::as_str)
        .unwrap_or("reach_error");
    let arch = match info.data_model {
        DataModel::Ilp32 => "32bit",
        DataModel::Lp64 => "64bit",
    };
    for (k, v) in [
        ("witness-type", witness_type.to_string()),
        ("sourcecodelang", "C".into()),
        ("producer", info.producer.clone()),
        ("specification", specification(error_fn)),
        ("programfile", info.program_file.clone()),
        ("programhash", bp_c::header::sha256_hex(&info.source)),
        ("architecture", arch.into()),
        ("creationtime", now_iso8601()),
    ] {
        let _ = writeln!(s, "  <data key=\"{k}\">{}</data>", xml_escape(&v));
    }
    s
}

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

/// One edge of a witness, as read back.
#[derive(Debug, Clone, Default)]
struct WEdge {
    target: String,
    data: HashMap<String, String>,
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

/// A witness read back: its graph data, its nodes' data, its edges by source.
struct Graph {
    nodes: Vec<(String, HashMap<String, String>)>,
    out: HashMap<String, Vec<WEdge>>,
    entry: Vec<String>,
    flagged: HashMap<String, std::collections::HashSet<String>>,
}

/// Parses a witness of `witness_type`: well-formed GraphML, every key used declared (for the
/// right kind of element), the required graph keys, the program's hash.
fn read_graph(text: &str, source: &[u8], witness_type: &str) -> Result<Graph, WitnessError> {
    let doc = roxmltree::Document::parse(text)
        .map_err(|e| WitnessError(format!("not well-formed XML: {e}")))?;
    let root = doc.root_element();
    if root.tag_name().name() != "graphml" {
        return err("the root element is not <graphml>");
    }
    let mut keys: HashMap<String, (String, Option<String>)> = HashMap::new();
    for k in root.children().filter(|n| n.has_tag_name("key")) {
        let id = k.attribute("id").unwrap_or("").to_string();
        let on = k.attribute("for").unwrap_or("all").to_string();
        let default = k
            .children()
            .find(|n| n.has_tag_name("default"))
            .and_then(|d| d.text())
            .map(|t| t.trim().to_string());
        keys.insert(id, (on, default));
    }
    let graph = root
        .children()
        .find(|n| n.has_tag_name("graph"))
        .ok_or_else(|| WitnessError("no <graph>".into()))?;
    let data_of =
        |n: roxmltree::Node<'_, '_>, on: &str| -> Result<HashMap<String, String>, WitnessError> {
            let mut m = HashMap::new();
            for d in n.children().filter(|c| c.has_tag_name("data")) {
                let key = d.attribute("key").unwrap_or("");
                match keys.get(key) {
                    Some((f, _)) if f == on || f == "all" => {}
                    Some((f, _)) => {
                        return err(format!("key `{key}` is declared for {f}, used on a {on}"));
                    }
                    None => return err(format!("key `{key}` is used but not declared")),
                }
                m.insert(key.to_string(), d.text().unwrap_or("").trim().to_string());
            }
            Ok(m)
        };
    let gdata = data_of(graph, "graph")?;
    for k in GRAPH_KEYS {
        if !gdata.contains_key(k) {
            return err(format!("the graph has no `{k}`"));
        }
    }
    if gdata["witness-type"] != witness_type {
        return err(format!(
            "witness-type is `{}`, not {witness_type}",
            gdata["witness-type"]
        ));
    }
    let hash = bp_c::header::sha256_hex(source);
    if gdata["programhash"].to_lowercase() != hash {
        return err(format!(
            "programhash {} is not the program's SHA-256 {hash}",
            gdata["programhash"]
        ));
    }
    let flag = |d: &HashMap<String, String>, key: &str| {
        d.get(key)
            .cloned()
            .or_else(|| keys.get(key).and_then(|k| k.1.clone()))
            .is_some_and(|v| v == "true")
    };
    let mut g = Graph {
        nodes: Vec::new(),
        out: HashMap::new(),
        entry: Vec::new(),
        flagged: HashMap::new(),
    };
    for n in graph.children().filter(|n| n.has_tag_name("node")) {
        let id = n.attribute("id").unwrap_or("").to_string();
        let d = data_of(n, "node")?;
        if flag(&d, "entry") {
            g.entry.push(id.clone());
        }
        for key in ["violation", "sink"] {
            if flag(&d, key) {
                g.flagged.entry(key.into()).or_default().insert(id.clone());
            }
        }
        g.nodes.push((id, d));
    }
    for e in graph.children().filter(|n| n.has_tag_name("edge")) {
        let src = e.attribute("source").unwrap_or("").to_string();
        let target = e.attribute("target").unwrap_or("").to_string();
        let data = data_of(e, "edge")?;
        g.out.entry(src).or_default().push(WEdge { target, data });
    }
    Ok(g)
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
    fn result_values_and_dates() {
        assert_eq!(parse_result_value("\\result == -5;"), Some(-5));
        assert_eq!(parse_result_value("\\result==(7)"), Some(7));
        assert_eq!(parse_result_value("x == 5;"), None);
        let d = now_iso8601();
        assert_eq!(d.len(), 20, "{d}");
        assert!(d.starts_with("20") && d.ends_with('Z'));
    }
}

// ---------------------------------------------------------------------------------------------
// Correctness witnesses.

/// The loop heads of `f`: targets of the back edges of a depth-first search from its entry
/// (every cycle of the control-flow graph passes through one), in increasing node order.
pub fn loop_heads(f: &cir::ir::Function) -> Vec<cir::ir::NodeId> {
    let n = f.nodes as usize;
    let mut succ: Vec<Vec<usize>> = vec![Vec::new(); n];
    for e in &f.edges {
        succ[e.from.0 as usize].push(e.to.0 as usize);
    }
    // 0 unvisited, 1 on the stack, 2 done.
    let mut state = vec![0u8; n];
    let mut heads = std::collections::BTreeSet::new();
    let mut stack: Vec<(usize, usize)> = vec![(f.entry.0 as usize, 0)];
    state[f.entry.0 as usize] = 1;
    while let Some((v, i)) = stack.pop() {
        if let Some(&w) = succ[v].get(i) {
            stack.push((v, i + 1));
            match state[w] {
                0 => {
                    state[w] = 1;
                    stack.push((w, 0));
                }
                1 => {
                    heads.insert(w);
                }
                _ => {}
            }
        } else {
            state[v] = 2;
        }
    }
    heads
        .into_iter()
        .map(|h| cir::ir::NodeId(h as u32))
        .collect()
}

/// The source line of node `n` of `f`: that of its first out-edge (in the verified file).
fn node_line(f: &cir::ir::Function, n: cir::ir::NodeId) -> Option<u32> {
    f.edges
        .iter()
        .find(|e| e.from == n && e.pos.file == 0 && e.pos.line > 0)
        .map(|e| e.pos.line)
}

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

/// A function checked on its own, from its entry invariant: one other than `main` that has a
/// loop (a loop-free one is inlined where it is called).
fn modular(f: &cir::ir::Function) -> bool {
    f.name != "main" && !loop_heads(f).is_empty()
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
    let mut s = header("correctness_witness", info);
    s.push_str("  <node id=\"N0\">\n   <data key=\"entry\">true</data>\n  </node>\n");
    for (k, inv) in invariants.iter().enumerate() {
        let _ = writeln!(
            s,
            "  <node id=\"I{k}\">\n   <data key=\"invariant\">{}</data>\n   \
             <data key=\"invariant.scope\">{}</data>\n  </node>\n  \
             <edge source=\"N0\" target=\"I{k}\">\n   <data key=\"startline\">{}</data>\n   \
             {}\n  </edge>",
            xml_escape(&inv.invariant),
            xml_escape(&inv.function),
            inv.line,
            if inv.entry {
                format!(
                    "<data key=\"enterFunction\">{}</data>",
                    xml_escape(&inv.function)
                )
            } else {
                "<data key=\"enterLoopHead\">true</data>".to_string()
            }
        );
    }
    s.push_str(" </graph>\n</graphml>\n");
    s
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

use cir::ir::{BinOp, ExprKind, FuncId, NodeId, UnOp, VarId, VarInfo, VarKind};
use cir::types::{CType, IntKind};

fn int_ty() -> CType {
    CType::Int(IntKind::Int)
}

fn int_const(v: i128) -> Expr {
    Expr {
        kind: ExprKind::Const(v),
        ty: int_ty(),
    }
}

fn bin(op: BinOp, a: Expr, b: Expr) -> Expr {
    Expr {
        kind: ExprKind::Binary(op, Box::new(a), Box::new(b)),
        ty: int_ty(),
    }
}

fn not(a: Expr) -> Expr {
    Expr {
        kind: ExprKind::Unary(UnOp::LogNot, Box::new(a)),
        ty: int_ty(),
    }
}

use cir::ir::Expr;

/// A node of the inlined control flow: the call edges on the way (the context), the function,
/// the node; `target` marks a cut point reached (not expanded further).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct PNode {
    ctx: Vec<EdgeId>,
    func: FuncId,
    node: NodeId,
    target: bool,
}

/// A successor in the inlined control flow: the edge taken (`None`: the return from a callee
/// to its caller) and the node.
type Succ = (Option<EdgeId>, PNode);

/// Values along the way into a node: reachability, guard, variable versions.
struct Incoming {
    reach: Expr,
    guard: Option<Expr>,
    vers: HashMap<VarId, Expr>,
}

/// The SSA encoding of [`check_correctness`].
struct Induct<'p> {
    prog: &'p Program,
    ext: Program,
    /// Loop-head invariants of the functions checked on their own.
    inv: HashMap<(FuncId, NodeId), Expr>,
    /// Entry invariants of the functions other than main checked on their own.
    entry_inv: HashMap<FuncId, Expr>,
    /// The return value of each function (a fresh variable standing for it).
    ret: HashMap<FuncId, VarId>,
    /// Per function (by index): the globals it may modify, transitively (c2bp's mod sets).
    mods: Vec<std::collections::BTreeSet<cir::pointsto::Loc>>,
    fresh: usize,
}

fn unsupported<T>(what: String) -> Result<T, WitnessError> {
    Err(WitnessError(format!("not checked: {what}")))
}

impl<'p> Induct<'p> {
    fn new(
        prog: &'p Program,
        inv: HashMap<(FuncId, NodeId), Expr>,
        entry_inv: HashMap<FuncId, Expr>,
    ) -> Induct<'p> {
        let mut ind = Induct {
            prog,
            ext: prog.clone(),
            inv,
            entry_inv,
            ret: HashMap::new(),
            mods: c2bp::signature::mod_sets(prog, &cir::pointsto::PointsTo::analyze(prog)),
            fresh: 0,
        };
        for f in &prog.functions {
            let ty = f.ty.ret.clone();
            if ty.is_integer() {
                let v = ind.new_var(&format!("{}@ret", f.name), ty);
                ind.ret.insert(f.id, v);
            }
        }
        ind
    }

    fn new_var(&mut self, base: &str, ty: CType) -> VarId {
        self.fresh += 1;
        let id = VarId(u32::try_from(self.ext.vars.len()).unwrap_or(u32::MAX));
        let main = self
            .prog
            .function("main")
            .map(|f| f.id)
            .unwrap_or(FuncId(0));
        self.ext.vars.push(VarInfo {
            c_name: format!("{base}@{}", self.fresh),
            name: format!("{base}@{}", self.fresh),
            ty,
            kind: VarKind::Temp(main),
            pos: Default::default(),
        });
        id
    }

    fn fresh_of(&mut self, v: VarId) -> Expr {
        let info = self.ext.var(v).clone();
        let id = self.new_var(&info.name, info.ty.clone());
        Expr {
            kind: ExprKind::Var(id),
            ty: info.ty,
        }
    }

    fn fresh_int(&mut self, base: &str) -> Expr {
        let id = self.new_var(base, int_ty());
        Expr {
            kind: ExprKind::Var(id),
            ty: int_ty(),
        }
    }

    /// `e` over the versions (only integer variables and operators are supported).
    fn read(&self, e: &Expr, vers: &HashMap<VarId, Expr>) -> Result<Expr, WitnessError> {
        let mut bad = None;
        e.walk(&mut |x| match &x.kind {
            ExprKind::Const(_)
            | ExprKind::Unary(..)
            | ExprKind::Binary(..)
            | ExprKind::Cast(_)
            | ExprKind::Cond(..) => {}
            ExprKind::Var(v) if vers.contains_key(v) => {}
            _ => bad = Some(self.prog.show_expr(x)),
        });
        if let Some(b) = bad {
            return unsupported(format!("`{b}` (only integer variables are handled)"));
        }
        Ok(cir::wp::subst_vars(e, &|v| vers.get(&v).cloned()))
    }

    fn scalar_vars(&self, vars: &[VarId]) -> Vec<VarId> {
        vars.iter()
            .copied()
            .filter(|&v| self.prog.var(v).ty.is_integer())
            .collect()
    }

    /// The obligations from cut point `a` of function `root` — its entry when `entry` (the
    /// initial state for `main`, the entry invariant for another), else a loop head (its
    /// invariant); returns how many were proved.
    fn check_cut(
        &mut self,
        root_id: FuncId,
        a: NodeId,
        entry: bool,
        sem: cir::smt::Semantics,
    ) -> Result<usize, WitnessError> {
        let prog = self.prog;
        let main = prog.function("main").expect("checked");
        let root = &prog.functions[root_id.0 as usize];
        // The initial versions.
        let mut vers: HashMap<VarId, Expr> = HashMap::new();
        let mut constraints: Vec<Expr> = Vec::new();
        let globals = self.scalar_vars(&prog.globals);
        let locals = self.scalar_vars(&root.locals);
        let formals = self.scalar_vars(&root.formals);
        if root.id == main.id && entry {
            for &g in &globals {
                vers.insert(g, cir::wp::convert(&int_const(0), &prog.var(g).ty));
            }
            for init in &prog.global_inits {
                let ExprKind::Var(g) = init.lhs.kind else {
                    return unsupported("an initialiser of an aggregate".into());
                };
                if !prog.var(g).ty.is_integer() {
                    continue;
                }
                let v = match &init.value {
                    Some(e) => {
                        let e = self.read(e, &vers)?;
                        cir::wp::convert(&e, &prog.var(g).ty)
                    }
                    None => self.fresh_of(g),
                };
                vers.insert(g, v);
            }
        } else {
            for &g in &globals {
                let f = self.fresh_of(g);
                vers.insert(g, f);
            }
        }
        for &l in locals.iter().chain(&formals) {
            let f = self.fresh_of(l);
            vers.insert(l, f);
        }
        let assumed = if entry {
            self.entry_inv.get(&root.id).cloned()
        } else {
            self.inv.get(&(root.id, a)).cloned()
        };
        if let Some(i) = assumed {
            constraints.push(self.read(&i, &vers)?);
        }
        // The region: depth-first from `a`; the loop heads of `root` are targets.
        let heads: std::collections::HashSet<NodeId> = self
            .inv
            .keys()
            .filter(|(f, _)| *f == root.id)
            .map(|(_, n)| *n)
            .collect();
        let modular_fns: std::collections::HashSet<FuncId> =
            self.entry_inv.keys().copied().collect();
        let start = PNode {
            ctx: Vec::new(),
            func: root.id,
            node: a,
            target: false,
        };
        let succs = |p: &PNode| -> Result<Vec<Succ>, WitnessError> {
            let f = &prog.functions[p.func.0 as usize];
            let mut out = Vec::new();
            if p.target {
                return Ok(out);
            }
            if p.node == f.exit {
                if let Some(&c) = p.ctx.last() {
                    let caller = &prog.functions[c.func.0 as usize];
                    let call = &caller.edges[c.index as usize];
                    let mut ctx = p.ctx.clone();
                    ctx.pop();
                    let target = ctx.is_empty() && heads.contains(&call.to);
                    out.push((
                        None,
                        PNode {
                            ctx,
                            func: c.func,
                            node: call.to,
                            target,
                        },
                    ));
                }
                return Ok(out);
            }
            for e in f.edges.iter().filter(|e| e.from == p.node) {
                match &e.kind {
                    EdgeKind::Call {
                        callee: Callee::Indirect(_),
                        ..
                    } => return unsupported("a call through a pointer".into()),
                    // A loop-free callee: inlined (a function with a loop is summarised by
                    // its entry invariant, on the edge itself).
                    EdgeKind::Call {
                        callee: Callee::Defined(h),
                        ..
                    } if !modular_fns.contains(h) => {
                        let callee = &prog.functions[h.0 as usize];
                        let active = *h == main.id
                            || *h == root.id
                            || *h == p.func
                            || p.ctx.iter().any(|c| c.func == *h);
                        if active {
                            return unsupported(format!("recursion through {}", callee.name));
                        }
                        let mut ctx = p.ctx.clone();
                        ctx.push(e.id);
                        out.push((
                            Some(e.id),
                            PNode {
                                ctx,
                                func: *h,
                                node: callee.entry,
                                target: false,
                            },
                        ));
                    }
                    k => {
                        // An error or halt ends the path; a loop head of `root` is a cut.
                        let target = matches!(k, EdgeKind::Error { .. } | EdgeKind::Halt { .. })
                            || (p.ctx.is_empty() && heads.contains(&e.to));
                        out.push((
                            Some(e.id),
                            PNode {
                                ctx: p.ctx.clone(),
                                func: p.func,
                                node: e.to,
                                target,
                            },
                        ));
                    }
                }
            }
            Ok(out)
        };
        // Topological order (reverse post-order).
        let mut order: Vec<(PNode, Vec<Succ>)> = Vec::new();
        let mut seen: std::collections::HashSet<PNode> = std::collections::HashSet::new();
        let mut stack: Vec<(PNode, Vec<Succ>, usize)> = Vec::new();
        seen.insert(start.clone());
        let s0 = succs(&start)?;
        stack.push((start.clone(), s0, 0));
        while let Some((p, ss, i)) = stack.pop() {
            if let Some((_, q)) = ss.get(i) {
                let q = q.clone();
                stack.push((p, ss, i + 1));
                if seen.insert(q.clone()) {
                    if seen.len() > 200_000 {
                        return unsupported("more than 200000 inlined nodes".into());
                    }
                    let qs = succs(&q)?;
                    stack.push((q, qs, 0));
                }
            } else {
                order.push((p, ss));
            }
        }
        order.reverse();
        // The forward pass.
        let mut incoming: HashMap<PNode, Vec<Incoming>> = HashMap::new();
        let mut obligations: Vec<(Expr, Expr)> = Vec::new();
        // Functions with loops whose calls the region summarizes (by their entry invariant).
        let mut summarized: std::collections::BTreeSet<String> = std::collections::BTreeSet::new();
        let mut first = true;
        for (p, successors) in order {
            let (reach, vers_here) = if first {
                first = false;
                (int_const(1), std::mem::take(&mut vers))
            } else {
                let ins = incoming.remove(&p).unwrap_or_default();
                if ins.is_empty() {
                    continue;
                }
                let r = self.fresh_int("reach");
                let taken: Vec<Expr> = ins
                    .iter()
                    .map(|i| match &i.guard {
                        Some(g) => bin(BinOp::LogAnd, i.reach.clone(), g.clone()),
                        None => i.reach.clone(),
                    })
                    .collect();
                let any = taken
                    .iter()
                    .cloned()
                    .reduce(|a, b| bin(BinOp::LogOr, a, b))
                    .expect("non-empty");
                constraints.push(bin(BinOp::Eq, r.clone(), bin(BinOp::Ne, any, int_const(0))));
                let mut keys: Vec<VarId> =
                    ins.iter().flat_map(|i| i.vers.keys().copied()).collect();
                keys.sort();
                keys.dedup();
                let mut merged = HashMap::new();
                for v in keys {
                    let vals: Vec<Option<&Expr>> = ins.iter().map(|i| i.vers.get(&v)).collect();
                    if let Some(Some(x)) = vals.first()
                        && vals.iter().all(|y| *y == Some(*x))
                    {
                        merged.insert(v, (*x).clone());
                        continue;
                    }
                    let m = self.fresh_of(v);
                    for (t, val) in taken.iter().zip(&vals) {
                        if let Some(val) = val {
                            constraints.push(bin(
                                BinOp::LogOr,
                                not(t.clone()),
                                bin(BinOp::Eq, m.clone(), (*val).clone()),
                            ));
                        }
                    }
                    merged.insert(v, m);
                }
                (r, merged)
            };
            if p.target {
                let f = &prog.functions[p.func.0 as usize];
                let goal = if p.ctx.is_empty() && p.func == root.id && heads.contains(&p.node) {
                    let i = self.inv[&(root.id, p.node)].clone();
                    self.read(&i, &vers_here)?
                } else if f
                    .edges
                    .iter()
                    .any(|e| e.to == p.node && matches!(e.kind, EdgeKind::Error { .. }))
                {
                    int_const(0)
                } else {
                    continue; // a halt
                };
                obligations.push((reach, goal));
                continue;
            }
            let f = &prog.functions[p.func.0 as usize];
            for (edge, q) in successors {
                let mut v = vers_here.clone();
                let mut guard = None;
                match edge {
                    None => {
                        // Back in the caller after the call edge `c`.
                        let c = *p.ctx.last().expect("a return has a context");
                        let caller = &prog.functions[c.func.0 as usize];
                        if let EdgeKind::Call { ret: Some(r), .. } =
                            &caller.edges[c.index as usize].kind
                            && prog.var(*r).ty.is_integer()
                        {
                            let val = match self.ret.get(&p.func).and_then(|x| v.get(x)) {
                                Some(x) => cir::wp::convert(x, &prog.var(*r).ty),
                                None => self.fresh_of(*r),
                            };
                            v.insert(*r, val);
                        }
                    }
                    Some(id) => {
                        let e = prog.edge(id);
                        match &e.kind {
                            EdgeKind::Assume(c) => guard = Some(self.read(c, &v)?),
                            EdgeKind::Assign { lhs, rhs } => {
                                let ExprKind::Var(x) = lhs.kind else {
                                    return unsupported(format!(
                                        "assignment to `{}`",
                                        prog.show_expr(lhs)
                                    ));
                                };
                                if !prog.var(x).ty.is_integer() {
                                    return unsupported(format!(
                                        "assignment to `{}`",
                                        prog.var(x).name
                                    ));
                                }
                                // The new version is the value itself (as in weakest
                                // preconditions): a fresh variable with its range fact,
                                // equated outside the path condition, would exclude signed
                                // overflow on every path, even those that never assign.
                                let val = cir::wp::convert(&self.read(rhs, &v)?, &lhs.ty);
                                v.insert(x, val);
                            }
                            EdgeKind::Havoc { lhs, .. } => {
                                let ExprKind::Var(x) = lhs.kind else {
                                    return unsupported(format!(
                                        "havoc of `{}`",
                                        prog.show_expr(lhs)
                                    ));
                                };
                                let n = self.fresh_of(x);
                                v.insert(x, n);
                            }
                            EdgeKind::Call { ret, callee, args } => {
                                for a in args {
                                    // Arguments must be readable (no pointers).
                                    self.read(a, &v)?;
                                }
                                if let Callee::Defined(h) = callee
                                    && let Some(pre) = self.entry_inv.get(h).cloned()
                                {
                                    // The callee's entry invariant must hold, with its
                                    // parameters bound to the arguments; then the globals
                                    // it may modify and the result are anything.
                                    let g = &prog.functions[h.0 as usize];
                                    let mut at_entry = v.clone();
                                    for (fm, a) in g.formals.iter().zip(args) {
                                        if prog.var(*fm).ty.is_integer() {
                                            let val = cir::wp::convert(
                                                &self.read(a, &v)?,
                                                &prog.var(*fm).ty,
                                            );
                                            at_entry.insert(*fm, val);
                                        }
                                    }
                                    for &l in &self.scalar_vars(&g.locals) {
                                        let n = self.fresh_of(l);
                                        at_entry.insert(l, n);
                                    }
                                    let goal = self.read(&pre, &at_entry)?;
                                    obligations.push((reach.clone(), goal));
                                    summarized.insert(g.name.clone());
                                    for &gv in &globals {
                                        if self.mods[h.0 as usize]
                                            .contains(&cir::pointsto::Loc::Var(gv))
                                        {
                                            let n = self.fresh_of(gv);
                                            v.insert(gv, n);
                                        }
                                    }
                                    if let Some(r) = ret
                                        && prog.var(*r).ty.is_integer()
                                    {
                                        let n = self.fresh_of(*r);
                                        v.insert(*r, n);
                                    }
                                } else if let Callee::Defined(h) = callee {
                                    let g = &prog.functions[h.0 as usize];
                                    for (fm, a) in g.formals.iter().zip(args) {
                                        if !prog.var(*fm).ty.is_integer() {
                                            return unsupported(format!(
                                                "parameter `{}` of {}",
                                                prog.var(*fm).name,
                                                g.name
                                            ));
                                        }
                                        let val =
                                            cir::wp::convert(&self.read(a, &v)?, &prog.var(*fm).ty);
                                        v.insert(*fm, val);
                                    }
                                    // No result until this activation returns one.
                                    if let Some(rv) = self.ret.get(h) {
                                        v.remove(rv);
                                    }
                                    for &l in &self.scalar_vars(&g.locals) {
                                        let n = self.fresh_of(l);
                                        v.insert(l, n);
                                    }
                                } else if let Some(r) = ret
                                    && prog.var(*r).ty.is_integer()
                                {
                                    let n = self.fresh_of(*r);
                                    v.insert(*r, n);
                                }
                            }
                            EdgeKind::Return(val) => {
                                if let (Some(x), Some(rv)) = (val, self.ret.get(&f.id).copied()) {
                                    let x = cir::wp::convert(&self.read(x, &v)?, &f.ty.ret);
                                    v.insert(rv, x);
                                }
                            }
                            _ => {}
                        }
                    }
                }
                incoming.entry(q).or_default().push(Incoming {
                    reach: reach.clone(),
                    guard,
                    vers: v,
                });
            }
        }
        if !incoming.is_empty() {
            // The order was not topological: some paths would go unchecked.
            return err("internal: a node of the region was visited before its predecessors");
        }
        let prover = cir::smt::Prover::new(&self.ext, sem);
        let n = obligations.len();
        for (reach, goal) in obligations {
            let mut assumptions = constraints.clone();
            assumptions.push(bin(BinOp::Ne, reach, int_const(0)));
            match prover.is_valid(&assumptions, &goal) {
                cir::smt::Answer::Valid => {}
                cir::smt::Answer::NotValid => {
                    let what = format!(
                        "from {} of {}, `{}` does not follow",
                        if entry {
                            "the entry".to_string()
                        } else {
                            format!("the loop head at line {}", node_line(root, a).unwrap_or(0))
                        },
                        root.name,
                        self.ext.show_expr(&goal)
                    );
                    if !summarized.is_empty() {
                        // Not a refutation: the encoding over-approximates these calls.
                        let names: Vec<&str> = summarized.iter().map(String::as_str).collect();
                        return unsupported(format!(
                            "{what}, but the paths call {} (with loops), summarized by the \
                             entry invariant alone: what the call does to the globals it may \
                             modify is forgotten",
                            names.join(", ")
                        ));
                    }
                    return err(what);
                }
                cir::smt::Answer::Unknown => {
                    return err("the solver gave up on an obligation".to_string());
                }
            }
        }
        Ok(n)
    }
}
