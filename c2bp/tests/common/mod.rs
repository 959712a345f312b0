//! Helpers shared by c2bp's integration tests: load a C file and a predicate file, abstract,
//! check the result with bebop.

#![allow(dead_code)]

use std::path::{Path, PathBuf};

/// The directory of the golden data.
pub fn data_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/golden")
}

/// Lowers `c` with the given error conventions.
pub fn load(c: &Path, lower: &cir::LowerOptions) -> cir::Program {
    cir::load_file(c, lower).unwrap_or_else(|e| panic!("{}: {e}", c.display()))
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
    let sources = c2bp::Sources {
        c_path: c
            .file_name()
            .expect("file name")
            .to_string_lossy()
            .to_string(),
        c_sha256: c2bp::sha256_hex(&bytes),
        preds_path: None,
        extra: Vec::new(),
    };
    c2bp::abstract_program(prog, preds, opts, &sources).unwrap_or_else(|e| panic!("{e}"))
}

/// Checks a `.bp` text with bebop: `true` when the error is reachable.
pub fn bebop_unsafe(text: &str) -> bool {
    let prog = bp_grammar::parse_and_check(text, &bp_grammar::ParseOptions::default())
        .unwrap_or_else(|d| panic!("c2bp output does not check: {d:?}"));
    let out = bebop::verify(&prog, &bebop::Options::default()).expect("bebop runs");
    !out.verdict.is_safe()
}
