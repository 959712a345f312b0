//! Helpers shared by cir's integration tests.

mod corpus;

pub use corpus::{corpus_files as files_under, corpus_root};

/// The C programs of the shared SV-COMP corpus, sorted; `None` when `../shared` is absent.
pub fn corpus_files() -> Option<Vec<std::path::PathBuf>> {
    corpus_root().map(|r| files_under(&r))
}
