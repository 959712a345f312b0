//! Helpers shared by c2bp's integration tests: load a C file and a predicate file, abstract,
//! check the result with bebop.

#![allow(dead_code)]

use std::path::{Path, PathBuf};

/// The directory of the golden data.
pub fn data_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/golden")
}

/// The Constrain paper's Fig. 1 (`error()` is the error) with its predicates.
pub fn fig1() -> (std::path::PathBuf, cir::Program, cir::pred::PredicateSet) {
    let c = data_dir().join("fig1.c");
    let lower = cir::LowerOptions {
        error_fns: vec!["error".into()],
        ..cir::LowerOptions::default()
    };
    let prog = load(&c, &lower);
    let preds = preds(&prog, Some(&c.with_extension("preds")));
    (c, prog, preds)
}

/// The golden C inputs, sorted.
pub fn golden_c_files() -> Vec<PathBuf> {
    let mut cs: Vec<PathBuf> = std::fs::read_dir(data_dir())
        .expect("golden dir")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "c"))
        .collect();
    cs.sort();
    cs
}

/// Lowers `c` with the given error conventions, reads of globals kept: these small programs
/// use globals nothing assigns as arbitrary inputs of the statements under test, which the
/// constant propagation of `cir::constprop` would turn into zeros.
pub fn load(c: &Path, lower: &cir::LowerOptions) -> cir::Program {
    let lower = cir::LowerOptions {
        keep_global_reads: true,
        ..lower.clone()
    };
    cir::load_file(c, &lower).unwrap_or_else(|e| panic!("{}: {e}", c.display()))
}

/// Parses a predicate file (empty set when `None`).
pub fn preds(prog: &cir::Program, file: Option<&Path>) -> cir::pred::PredicateSet {
    match file {
        None => cir::pred::PredicateSet::default(),
        Some(f) => {
            let text = std::fs::read_to_string(f).expect("predicate file");
            cir::pred::parse_predicates(&text, &f.display().to_string(), prog)
                .unwrap_or_else(|e| panic!("{e}"))
        }
    }
}

/// Abstracts and returns the `.bp` text; the header names the C file by its file name only.
pub fn abstract_file(
    c: &Path,
    prog: &cir::Program,
    preds: &cir::pred::PredicateSet,
    opts: &c2bp::Options,
) -> c2bp::Output {
    let bytes = std::fs::read(c).expect("C file");
    let sources = bp_c::header::Sources {
        c_path: c
            .file_name()
            .expect("file name")
            .to_string_lossy()
            .to_string(),
        c_sha256: bp_c::header::sha256_hex(&bytes),
        preds_path: None,
        extra: Vec::new(),
    };
    c2bp::abstract_program(prog, preds, opts, &sources).unwrap_or_else(|e| panic!("{e}"))
}

/// Abstracts `tests/data/FILE` with the predicates of its `.preds` file next to it.
pub fn abstract_data(file: &str, opts: &c2bp::Options) -> c2bp::Output {
    let c = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(file);
    let prog = load(&c, &cir::LowerOptions::default());
    let preds = preds(&prog, Some(&c.with_extension("preds")));
    abstract_file(&c, &prog, &preds, opts)
}

/// The first `enforce` line of a `.bp` text, trimmed (empty when there is none).
pub fn enforce_line(text: &str) -> &str {
    text.lines()
        .find(|l| l.trim_start().starts_with("enforce "))
        .unwrap_or_default()
        .trim()
}

/// Checks a `.bp` text with bebop: `true` when the error is reachable.
pub fn bebop_unsafe(text: &str) -> bool {
    let prog = bp_grammar::parse_and_check(text, &bp_grammar::ParseOptions::default())
        .unwrap_or_else(|d| panic!("c2bp output does not check: {d:?}"));
    let out = bebop::verify(&prog, &bebop::Options::default()).expect("bebop runs");
    !out.verdict.is_safe()
}

/// The lowering options of a golden input: `errors.c` once per error convention, `fig1.c`
/// with `error()` as the error, the others with the defaults.
pub fn golden_variants(name: &str) -> Vec<(String, cir::LowerOptions)> {
    let base = cir::LowerOptions::default();
    match name {
        "errors" => vec![
            (
                "errors.fn".into(),
                cir::LowerOptions {
                    error_fns: vec!["error".into()],
                    ..base.clone()
                },
            ),
            (
                "errors.label".into(),
                cir::LowerOptions {
                    error_labels: vec!["ERROR".into()],
                    ..base.clone()
                },
            ),
            (
                "errors.assert".into(),
                cir::LowerOptions {
                    assert_is_error: true,
                    ..base
                },
            ),
        ],
        "fig1" => vec![(
            "fig1".into(),
            cir::LowerOptions {
                error_fns: vec!["error".into()],
                ..base
            },
        )],
        _ => vec![(name.to_string(), base)],
    }
}

#[path = "../../../cir/tests/common/corpus.rs"]
mod corpus;
#[allow(unused_imports)]
pub use corpus::{corpus_root, dev_corpus_files};
