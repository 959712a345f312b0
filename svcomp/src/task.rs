//! What to verify: a C file, or an SV-COMP task definition (`.yml`, format 2.0) naming its
//! input file, its `unreach-call` property (other properties are ignored) and its data model
//! (ILP32 when absent). Only the few keys the loop needs are read, by a line-oriented reader of
//! that fixed layout (no YAML library: the task files are generated in one shape).

use std::path::{Path, PathBuf};

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
#[error("{file}:{line}: {message}")]
pub struct TaskError {
    /// The file.
    pub file: String,
    /// 1-based line (0: the whole file).
    pub line: usize,
    /// What is wrong.
    pub message: String,
}

fn unquote(s: &str) -> String {
    let s = s.trim();
    let s = s.split(" #").next().unwrap_or(s).trim();
    s.trim_matches(|c| c == '\'' || c == '"').to_string()
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
    let err = |line: usize, message: String| TaskError {
        file: file.clone(),
        line,
        message,
    };
    let text = std::fs::read_to_string(path).map_err(|e| err(0, e.to_string()))?;
    let dir = path.parent().unwrap_or(Path::new("."));
    let mut input: Option<String> = None;
    let mut in_inputs = false;
    let mut prop: Option<(usize, String)> = None;
    let mut expected: Option<bool> = None;
    let mut current_prop: Option<String> = None;
    let mut data_model = crate::DataModel::default();
    for (i, raw) in text.lines().enumerate() {
        let line = raw.trim_end();
        let t = line.trim_start();
        if t.starts_with('#') || t.is_empty() {
            continue;
        }
        let top_level = !line.starts_with(' ') && !line.starts_with('-');
        if top_level {
            in_inputs = false;
        }
        if let Some(v) = t.strip_prefix("input_files:") {
            let v = v.trim();
            if v.is_empty() {
                in_inputs = true;
            } else if v.starts_with('[') {
                let items: Vec<String> = v
                    .trim_matches(|c| c == '[' || c == ']')
                    .split(',')
                    .map(unquote)
                    .filter(|s| !s.is_empty())
                    .collect();
                if items.len() != 1 {
                    return Err(err(
                        i + 1,
                        "only tasks with one input file are supported".into(),
                    ));
                }
                input = items.into_iter().next();
            } else {
                input = Some(unquote(v));
            }
            continue;
        }
        if in_inputs && let Some(v) = t.strip_prefix("- ") {
            if input.is_some() {
                return Err(err(
                    i + 1,
                    "only tasks with one input file are supported".into(),
                ));
            }
            input = Some(unquote(v));
            continue;
        }
        if let Some(v) = t
            .strip_prefix("- property_file:")
            .or_else(|| t.strip_prefix("property_file:"))
        {
            current_prop = Some(unquote(v));
            if current_prop
                .as_deref()
                .is_some_and(|p| p.ends_with("unreach-call.prp"))
            {
                prop = Some((i + 1, unquote(v)));
            }
            continue;
        }
        if let Some(v) = t.strip_prefix("expected_verdict:")
            && current_prop
                .as_deref()
                .is_some_and(|p| p.ends_with("unreach-call.prp"))
        {
            expected = match unquote(v).as_str() {
                "true" => Some(true),
                "false" => Some(false),
                other => return Err(err(i + 1, format!("unknown verdict `{other}`"))),
            };
            continue;
        }
        if let Some(v) = t.strip_prefix("data_model:") {
            data_model = unquote(v).parse().map_err(|e: String| err(i + 1, e))?;
        }
    }
    let input = input.ok_or_else(|| err(0, "no `input_files`".into()))?;
    let (pline, prop) = prop.ok_or_else(|| {
        err(
            0,
            "the task has no unreach-call property (the only property slam-run checks)".into(),
        )
    })?;
    let mut error_fns = Vec::new();
    let prp = dir.join(&prop);
    if let Ok(t) = std::fs::read_to_string(&prp) {
        error_fns = crate::property::parse_prp(&t)
            .map_err(|e| err(pline, format!("{}:{e}", prp.display())))?;
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
    Ok(Task {
        c_file,
        data_model,
        error_fns,
        expected,
        warnings,
    })
}
