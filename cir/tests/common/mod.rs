//! Helpers shared by cir's integration tests.

use std::path::{Path, PathBuf};

/// The C programs of the shared SV-COMP corpus, sorted; `None` when `../shared` is absent.
pub fn corpus_files() -> Option<Vec<PathBuf>> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/corpus/sv-benchmarks");
    let root = if root.is_dir() {
        root
    } else {
        PathBuf::from("/work/shared/corpus/sv-benchmarks")
    };
    if !root.is_dir() {
        return None;
    }
    let mut files = Vec::new();
    for dir in std::fs::read_dir(&root).expect("readable corpus") {
        let dir = dir.expect("dir entry").path();
        if !dir.is_dir() {
            continue;
        }
        for f in std::fs::read_dir(&dir).expect("readable dir") {
            let f = f.expect("entry").path();
            if f.extension().is_some_and(|e| e == "c" || e == "i") {
                files.push(f);
            }
        }
    }
    files.sort();
    Some(files)
}
