//! What to verify: a C file, or an SV-COMP task definition (`.yml`, format 2.0) naming its
//! input file, its `unreach-call` property (other properties are ignored) and its data model
//! (ILP32 when absent). The YAML is read by `saphyr` (any YAML: block or flow style, quoted or
//! not, comments), whose node positions give every error its `file:line:column`; only the few
//! keys the loop needs are looked at.

use std::path::{Path, PathBuf};

use saphyr::{LoadableYamlNode, MarkedYaml, Scalar, YamlData};

/// A verification task.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Task {
    /// The C file (`.c` preprocessed with `gcc -E`, `.i` read as is).
    pub c_file: PathBuf,
    /// Data model.
    pub data_model: crate::DataModel,
    /// Error functions named by the property file (besides the built-in ones).
    pub error_fns: Vec<String>,
    /// The expected verdict of `unreach-call`, when the task says (`Some(true)`: the error is
    /// unreachable).
    pub expected: Option<bool>,
    /// Warnings about the task definition, for the user.
    pub warnings: Vec<String>,
}

/// A task definition that cannot be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{file}:{line}:{col}: {message}")]
pub struct TaskError {
    /// The file.
    pub file: String,
    /// 1-based line.
    pub line: usize,
    /// 1-based column (in characters).
    pub col: usize,
    /// What is wrong.
    pub message: String,
}

/// A YAML node of a task definition, with its position.
type Node<'i> = MarkedYaml<'i>;

/// Line and column (1-based) of a node.
fn position(n: &Node<'_>) -> (usize, usize) {
    (n.span.start.line().max(1), n.span.start.col() + 1)
}

/// The text of a scalar node (`true`, `2.0` and `ILP32` alike), or `None` for a collection.
fn scalar(n: &Node<'_>) -> Option<String> {
    match &n.data {
        YamlData::Value(Scalar::String(s)) => Some(s.to_string()),
        YamlData::Value(Scalar::Boolean(b)) => Some(b.to_string()),
        YamlData::Value(Scalar::Integer(i)) => Some(i.to_string()),
        YamlData::Value(Scalar::FloatingPoint(f)) => Some(f.to_string()),
        YamlData::Representation(s, ..) => Some(s.to_string()),
        _ => None,
    }
}

/// The value of `key` in the mapping `n` (none when `n` is not a mapping).
fn get<'a, 'i>(n: &'a Node<'i>, key: &str) -> Option<&'a Node<'i>> {
    match &n.data {
        YamlData::Mapping(m) => m
            .iter()
            .find(|(k, _)| scalar(k).as_deref() == Some(key))
            .map(|(_, v)| v),
        _ => None,
    }
}

/// The items of a sequence node, or the node itself for a scalar (`input_files: a.c`).
fn items<'a, 'i>(n: &'a Node<'i>) -> Vec<&'a Node<'i>> {
    match &n.data {
        YamlData::Sequence(s) => s.iter().collect(),
        _ => vec![n],
    }
}

/// Reads a task: a `.yml` task definition, or a C file (with its expected verdict from an
/// SV-COMP `.yml` next to it or its old-style name, when there is one).
pub fn load(path: &Path) -> Result<Task, TaskError> {
    let is_yml = path.extension().is_some_and(|e| e == "yml" || e == "yaml");
    if !is_yml {
        return Ok(Task {
            c_file: path.to_path_buf(),
            data_model: crate::DataModel::default(),
            error_fns: Vec::new(),
            expected: crate::property::error_expected_reachable(path).map(|r| !r),
            warnings: Vec::new(),
        });
    }
    let file = path.display().to_string();
    let err = |(line, col): (usize, usize), message: String| TaskError {
        file: file.clone(),
        line,
        col,
        message,
    };
    let text = std::fs::read_to_string(path).map_err(|e| err((1, 1), e.to_string()))?;
    let docs = Node::load_from_str(&text).map_err(|e| {
        let m = e.marker();
        err(
            (m.line().max(1), m.col() + 1),
            format!("not valid YAML: {}", e.info()),
        )
    })?;
    let Some(root) = docs
        .first()
        .filter(|d| matches!(d.data, YamlData::Mapping(_)))
    else {
        return Err(err((1, 1), "a task definition is a YAML mapping".into()));
    };
    let dir = path.parent().unwrap_or(Path::new("."));
    let inputs_node =
        get(root, "input_files").ok_or_else(|| err(position(root), "no `input_files`".into()))?;
    let inputs = items(inputs_node);
    let [input_node] = inputs.as_slice() else {
        return Err(err(
            position(inputs_node),
            "only tasks with one input file are supported".into(),
        ));
    };
    let input = scalar(input_node)
        .ok_or_else(|| err(position(input_node), "an input file is a file name".into()))?;
    // The unreach-call property (the only one the loop checks) and its expected verdict.
    let mut prop: Option<((usize, usize), String)> = None;
    let mut expected: Option<bool> = None;
    for p in get(root, "properties").map(items).unwrap_or_default() {
        let Some(pf) = get(p, "property_file") else {
            continue;
        };
        let Some(name) = scalar(pf).filter(|n| n.ends_with("unreach-call.prp")) else {
            continue;
        };
        if let Some(v) = get(p, "expected_verdict") {
            expected = match scalar(v).as_deref() {
                Some("true") => Some(true),
                Some("false") => Some(false),
                other => {
                    return Err(err(
                        position(v),
                        format!("unknown verdict `{}`", other.unwrap_or("(not a scalar)")),
                    ));
                }
            };
        }
        prop = Some((position(pf), name));
    }
    let mut data_model = crate::DataModel::default();
    if let Some(dm) = get(root, "options")
        .and_then(|o| get(o, "data_model"))
        .or_else(|| get(root, "data_model"))
    {
        data_model = scalar(dm)
            .unwrap_or_default()
            .parse()
            .map_err(|e: String| err(position(dm), e))?;
    }
    let (ppos, prop) = prop.ok_or_else(|| {
        err(
            get(root, "properties").map_or(position(root), position),
            "the task has no unreach-call property (the only property slam-run checks)".into(),
        )
    })?;
    let mut error_fns = Vec::new();
    let prp = dir.join(&prop);
    if let Ok(t) = std::fs::read_to_string(&prp) {
        error_fns = crate::property::parse_prp(&t)
            .map_err(|e| err(ppos, format!("{}:{e}", prp.display())))?;
    }
    let mut c_file = dir.join(&input);
    let mut warnings = Vec::new();
    if !c_file.exists() {
        // Task sets sometimes ship the `.c` of an input named `.i` (or the reverse).
        let other = match c_file.extension().and_then(|e| e.to_str()) {
            Some("i") => c_file.with_extension("c"),
            Some("c") => c_file.with_extension("i"),
            _ => c_file.clone(),
        };
        if other.exists() {
            warnings.push(format!(
                "{file}: input file {} is missing; verifying {} instead",
                c_file.display(),
                other.display()
            ));
            c_file = other;
        }
    }
    if !c_file.exists() {
        return Err(err(
            position(input_node),
            format!("input file {} does not exist", c_file.display()),
        ));
    }
    Ok(Task {
        c_file,
        data_model,
        error_fns,
        expected,
        warnings,
    })
}
