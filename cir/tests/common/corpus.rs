//! The shared SV-COMP corpus for integration tests (also used by c2bp's tests through
//! `#[path]`): tests that use it skip, saying so, when it is absent.

use std::path::{Path, PathBuf};

/// The SV-COMP corpus (`../shared/corpus/sv-benchmarks`), when present.
pub fn corpus_root() -> Option<PathBuf> {
    let here = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/corpus/sv-benchmarks");
    [here, PathBuf::from("/work/shared/corpus/sv-benchmarks")]
        .into_iter()
        .find(|p| p.is_dir())
}

/// Every C file (`.c`, `.i`) of the corpus, sorted.
pub fn corpus_files(root: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    for dir in std::fs::read_dir(root).expect("readable corpus") {
        let dir = dir.expect("entry").path();
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
    files
}
