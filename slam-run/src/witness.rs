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

/// The edge named `f#k`.
pub fn edge_by_name(prog: &Program, name: &str) -> Option<EdgeId> {
    let (f, k) = name.rsplit_once('#')?;
    let func = prog.function(f)?;
    let e = func.edges.get(k.parse::<usize>().ok()?)?;
    Some(e.id)
}

fn edge_of(prog: &Program, id: EdgeId) -> &cir::ir::Edge {
    &prog.functions[id.func.0 as usize].edges[id.index as usize]
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

/// The violation witness of a counterexample of `prog`.
pub fn violation(prog: &Program, cex: &Counterexample, info: &WitnessInfo) -> String {
    // Values of nondeterministic calls, by edge, in the order they were drawn.
    let mut nondet: HashMap<&str, VecDeque<i128>> = HashMap::new();
    for i in &cex.inputs {
        if let Some((_, edge)) = i.what.rsplit_once(" at ") {
            nondet.entry(edge).or_default().push_back(i.value);
        }
    }
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
        ("witness-type", "violation_witness".to_string()),
        ("sourcecodelang", "C".into()),
        ("producer", info.producer.clone()),
        ("specification", specification(error_fn)),
        ("programfile", info.program_file.clone()),
        ("programhash", c2bp::sha256_hex(&info.source)),
        ("architecture", arch.into()),
        ("creationtime", now_iso8601()),
    ] {
        let _ = writeln!(s, "  <data key=\"{k}\">{}</data>", xml_escape(&v));
    }
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
        let edge = edge_by_name(prog, &step.edge).map(|id| edge_of(prog, id));
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
                    if let Some(v) = nondet
                        .get_mut(step.edge.as_str())
                        .and_then(|q| q.pop_front())
                    {
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

/// Checks a violation witness against the program (module doc).
pub fn check_violation(prog: &Program, source: &[u8], text: &str) -> Result<Checked, WitnessError> {
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
    if gdata["witness-type"] != "violation_witness" {
        return err(format!(
            "witness-type is `{}`, not violation_witness",
            gdata["witness-type"]
        ));
    }
    let hash = c2bp::sha256_hex(source);
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
    let mut entry = Vec::new();
    let mut violation_nodes = std::collections::HashSet::new();
    for n in graph.children().filter(|n| n.has_tag_name("node")) {
        let id = n.attribute("id").unwrap_or("").to_string();
        let d = data_of(n, "node")?;
        if flag(&d, "entry") {
            entry.push(id.clone());
        }
        if flag(&d, "violation") {
            violation_nodes.insert(id);
        }
    }
    let mut out: HashMap<String, Vec<WEdge>> = HashMap::new();
    for e in graph.children().filter(|n| n.has_tag_name("edge")) {
        let src = e.attribute("source").unwrap_or("").to_string();
        let target = e.attribute("target").unwrap_or("").to_string();
        let data = data_of(e, "edge")?;
        out.entry(src).or_default().push(WEdge { target, data });
    }
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
            let pos = edge_of(prog, id).pos;
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
