//! GraphML for witnesses: the header every witness carries (the XML prolog, the declared keys,
//! the graph's data: `witness-type`, `sourcecodelang`, `producer`, `specification`,
//! `programfile`, `programhash` (SHA-256 of the verified file), `architecture` (`32bit` for
//! ILP32, `64bit` for LP64) and `creationtime`), and the reader that checks a witness's form
//! before either checker looks at its graph.

use std::collections::{HashMap, HashSet};
use std::fmt::Write as _;

use cir::types::DataModel;

use super::{WitnessError, WitnessInfo, err};

/// The specification of the unreach-call property for `error_fn`.
pub fn specification(error_fn: &str) -> String {
    format!("CHECK( init(main()), LTL(G ! call({error_fn}())) )")
}

pub(super) fn xml_escape(s: &str) -> String {
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
pub(super) fn header(witness_type: &str, info: &WitnessInfo) -> String {
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
    }
}
