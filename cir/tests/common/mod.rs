//! Helpers shared by cir's integration tests.

#[allow(dead_code)] // `dev_corpus_files` serves c2bp's tests, which include this file.
mod corpus;

pub use corpus::{corpus_files as files_under, corpus_root};

/// The C programs of the shared SV-COMP corpus, sorted; `None` when the corpus is absent.
pub fn corpus_files() -> Option<Vec<std::path::PathBuf>> {
    corpus_root().map(|r| files_under(&r))
}
