//! GraphML for witnesses: the header every witness carries (the XML prolog, the declared keys,
//! the graph's data: `witness-type`, `sourcecodelang`, `producer`, `specification`,
//! `programfile`, `programhash` (SHA-256 of the verified file), `architecture` (`32bit` for
//! ILP32, `64bit` for LP64) and `creationtime`), and the reader that checks a witness's form
//! before either checker looks at its graph.

use std::collections::{HashMap, HashSet};

use cir::types::DataModel;

use super::{WitnessError, WitnessInfo, err};

/// The specification of the unreach-call property for `error_fn`.
pub fn specification(error_fn: &str) -> String {
    format!("CHECK( init(main()), LTL(G ! call({error_fn}())) )")
}

/// Now as ISO 8601 in UTC, to the second (`2024-05-01T12:00:00Z`): RFC 3339 by the `time`
/// crate, which writes no fraction for whole seconds.
fn now_iso8601() -> String {
    let now = time::OffsetDateTime::now_utc();
    now.replace_nanosecond(0)
        .unwrap_or(now)
        .format(&time::format_description::well_known::Rfc3339)
        .unwrap_or_default()
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

/// The `<data>` of a node or an edge: (key, value) pairs, in order.
pub(super) type Data = Vec<(&'static str, String)>;

/// `<data key="k">v</data>` for each pair.
fn write_data(w: &mut quick_xml::Writer<Vec<u8>>, data: &Data) {
    for (k, v) in data {
        let _ = w
            .create_element("data")
            .with_attribute(("key", *k))
            .write_text_content(quick_xml::events::BytesText::new(v));
    }
}

/// `el` with its data as content, or empty.
fn write_element(el: quick_xml::writer::ElementWriter<'_, Vec<u8>>, data: &Data) {
    if data.is_empty() {
        let _ = el.write_empty();
    } else {
        let _ = el.write_inner_content(|w| {
            write_data(w, data);
            Ok(())
        });
    }
}

/// The one writer of witnesses: GraphML through `quick-xml` (escaping, indentation), with
/// the header every witness carries — the XML prolog, the declared keys and the graph's data.
pub(super) struct Graphml {
    w: quick_xml::Writer<Vec<u8>>,
}

// Writing to a `Vec<u8>` cannot fail: the `io::Result`s of quick-xml are dropped below.
impl Graphml {
    /// A witness of `witness_type`: the header, then nodes and edges.
    pub(super) fn new(witness_type: &str, info: &WitnessInfo) -> Graphml {
        use quick_xml::events::{BytesDecl, BytesStart, Event};
        let mut w = quick_xml::Writer::new_with_indent(Vec::new(), b' ', 1);
        let _ = w.write_event(Event::Decl(BytesDecl::new(
            "1.0",
            Some("UTF-8"),
            Some("no"),
        )));
        let _ = w.write_event(Event::Start(BytesStart::new("graphml").with_attributes([
            ("xmlns", "http://graphml.graphdrawing.org/xmlns"),
            ("xmlns:xsi", "http://www.w3.org/2001/XMLSchema-instance"),
        ])));
        for (id, on, ty, default) in KEYS {
            let key = w.create_element("key").with_attributes([
                ("id", *id),
                ("attr.name", *id),
                ("attr.type", *ty),
                ("for", *on),
            ]);
            let _ = match default {
                Some(d) => key.write_inner_content(|w| {
                    w.create_element("default")
                        .write_text_content(quick_xml::events::BytesText::new(d))
                        .map(|_| ())
                }),
                None => key.write_empty(),
            };
        }
        let _ = w.write_event(Event::Start(
            BytesStart::new("graph").with_attributes([("edgedefault", "directed")]),
        ));
        let error_fn = info
            .error_fns
            .first()
            .map(String::as_str)
            .unwrap_or("reach_error");
        let arch = match info.data_model {
            DataModel::Ilp32 => "32bit",
            DataModel::Lp64 => "64bit",
        };
        write_data(
            &mut w,
            &vec![
                ("witness-type", witness_type.to_string()),
                ("sourcecodelang", "C".into()),
                ("producer", info.producer.clone()),
                ("specification", specification(error_fn)),
                ("programfile", info.program_file.clone()),
                ("programhash", bp_c::header::sha256_hex(&info.source)),
                ("architecture", arch.into()),
                ("creationtime", now_iso8601()),
            ],
        );
        Graphml { w }
    }

    /// A node with its data.
    pub(super) fn node(&mut self, id: &str, data: &Data) {
        let el = self.w.create_element("node").with_attribute(("id", id));
        write_element(el, data);
    }

    /// An edge with its data.
    pub(super) fn edge(&mut self, source: &str, target: &str, data: &Data) {
        let el = self
            .w
            .create_element("edge")
            .with_attributes([("source", source), ("target", target)]);
        write_element(el, data);
    }

    /// The witness's text.
    pub(super) fn finish(mut self) -> String {
        use quick_xml::events::{BytesEnd, Event};
        let _ = self.w.write_event(Event::End(BytesEnd::new("graph")));
        let _ = self.w.write_event(Event::End(BytesEnd::new("graphml")));
        let mut text = String::from_utf8_lossy(&self.w.into_inner()).into_owned();
        text.push('\n');
        text
    }
}

/// One edge of a witness, as read back.
#[derive(Debug, Clone, Default)]
pub(super) struct WEdge {
    pub target: String,
    pub data: HashMap<String, String>,
}

/// A witness read back: its graph data, its nodes' data, its edges by source.
pub(super) struct Graph {
    pub nodes: Vec<(String, HashMap<String, String>)>,
    pub out: HashMap<String, Vec<WEdge>>,
    pub entry: Vec<String>,
    pub flagged: HashMap<String, HashSet<String>>,
}

/// Parses a witness of `witness_type`: well-formed GraphML, every key used declared (for the
/// right kind of element), the required graph keys, the program's hash.
pub(super) fn read_graph(
    text: &str,
    source: &[u8],
    witness_type: &str,
) -> Result<Graph, WitnessError> {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates() {
        let d = now_iso8601();
        assert_eq!(d.len(), 20, "{d}");
        assert!(d.starts_with("20") && d.ends_with('Z'));
        let digits = |r: std::ops::Range<usize>| d[r].bytes().all(|b| b.is_ascii_digit());
        assert!(
            digits(0..4) && digits(5..7) && digits(8..10) && &d[10..11] == "T",
            "{d}"
        );
        assert!(digits(11..13) && digits(14..16) && digits(17..19), "{d}");
    }

    #[test]
    fn the_writer_escapes_and_reads_back() {
        let info = WitnessInfo {
            program_file: "a<b>.c".into(),
            source: b"int main(void) { return 0; }".to_vec(),
            data_model: DataModel::Ilp32,
            error_fns: vec![],
            producer: "test & co".into(),
        };
        let mut g = Graphml::new("violation_witness", &info);
        g.node("N0", &vec![("entry", "true".into())]);
        g.node("N1", &vec![]);
        g.edge(
            "N0",
            "N1",
            &vec![("assumption", "x < 1 && y > \"2\";".into())],
        );
        let text = g.finish();
        assert!(text.starts_with("<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"no\"?>"));
        assert!(
            text.contains("\n  <data key=\"architecture\">32bit</data>\n"),
            "{text}"
        );
        assert!(text.contains("\n  <node id=\"N1\"/>\n"), "{text}");
        let graph = read_graph(&text, &info.source, "violation_witness").expect("reads back");
        assert_eq!(graph.out["N0"][0].data["assumption"], "x < 1 && y > \"2\";");
        assert_eq!(graph.entry, vec!["N0".to_string()]);
    }
}
