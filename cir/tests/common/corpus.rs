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

/// The task sets the abstraction tests run on whole: those whose every program c2bp abstracts
/// with its branch conditions as predicates in bounded time and memory. The other sets
/// (`svcomp16-loop-new`, `-loops`, `-ssh`) are for slam-run's benchmarks: the OpenSSL state
/// machines' branch conditions alone make an abstraction of many gigabytes.
pub const DEV_SETS: [&str; 4] = [
    "locks",
    "ntdrivers-simplified",
    "loop-acceleration",
    "svcomp16-loop-acceleration",
];

/// Every C file (`.c`, `.i`) of the sets in [`DEV_SETS`], sorted; the other sets are named on
/// stdout as skipped.
pub fn dev_corpus_files(root: &Path) -> Vec<PathBuf> {
    let mut skipped: Vec<String> = std::fs::read_dir(root)
        .expect("readable corpus")
        .filter_map(|d| d.ok())
        .filter(|d| d.path().is_dir())
        .map(|d| d.file_name().to_string_lossy().into_owned())
        .filter(|n| !DEV_SETS.contains(&n.as_str()) && n != "properties")
        .collect();
    skipped.sort();
    if !skipped.is_empty() {
        println!(
            "SKIP (not a development set of this test): {}",
            skipped.join(", ")
        );
    }
    corpus_files(root)
        .into_iter()
        .filter(|f| {
            f.parent()
                .and_then(|d| d.file_name())
                .is_some_and(|d| DEV_SETS.iter().any(|s| d == *s))
        })
        .collect()
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
