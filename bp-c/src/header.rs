//! The header c2bp writes at the top of every Boolean program (`//@@ tool=c2bp version=…
//! source=… sha256=… preds=… options=… error=…`) and its reading: which C file the program
//! abstracts (checked by SHA-256) and the settings under which every other tool must lower and
//! reason about that file to read the program as c2bp meant it.

use std::fmt::Write as _;

use cir::smt::Semantics;
use sha2::{Digest, Sha256};

/// What the header records about the inputs.
#[derive(Debug, Clone, Default)]
pub struct Sources {
    /// The C file as given.
    pub c_path: String,
    /// SHA-256 of the C file's bytes (hex).
    pub c_sha256: String,
    /// The predicate file, if any.
    pub preds_path: Option<String>,
    /// Extra header entries (`key`, `value`), e.g. the error convention.
    pub extra: Vec<(String, String)>,
}

/// SHA-256 of a byte string, lower-case hex.
pub fn sha256_hex(bytes: &[u8]) -> String {
    let d = Sha256::digest(bytes);
    let mut s = String::with_capacity(64);
    for b in d {
        let _ = write!(s, "{b:02x}");
    }
    s
}

/// The header line for an abstraction of `sources` under options described as `options` (the
/// text of `c2bp::Options::describe`, whose `data-model=` and `bitvector` entries
/// [`HeaderSettings::from_header`] reads back), ending in a newline.
pub fn write_header(sources: &Sources, options: &str) -> String {
    use bp_grammar::print::annotation_value as q;
    let mut text = String::new();
    let _ = write!(
        text,
        "//@@ tool=c2bp version={} source={} sha256={}",
        env!("CARGO_PKG_VERSION"),
        q(&sources.c_path),
        q(&sources.c_sha256)
    );
    if let Some(p) = &sources.preds_path {
        let _ = write!(text, " preds={}", q(p));
    }
    let _ = write!(text, " options={}", q(options));
    for (k, v) in &sources.extra {
        let _ = write!(text, " {k}={}", q(v));
    }
    text.push('\n');
    text
}

/// The settings a `.bp` header records (`error=`, `options=`), read back so that another tool
/// (newton) lowers the C program and reasons about it exactly as c2bp did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct HeaderSettings {
    /// The lowering options (error functions and labels, `assert`, data model).
    pub error_fns: Vec<String>,
    /// Error labels.
    pub error_labels: Vec<String>,
    /// `__assert_fail` is the error.
    pub assert_is_error: bool,
    /// The semantics (data model, bit-vectors).
    pub sem: Semantics,
    /// The SHA-256 of the C file.
    pub sha256: Option<String>,
}

impl HeaderSettings {
    /// Reads the header of a Boolean program written by c2bp.
    pub fn from_header(h: &bp_grammar::ast::Annotations) -> Result<HeaderSettings, String> {
        let mut s = HeaderSettings {
            sha256: h.get("sha256").map(str::to_string),
            ..HeaderSettings::default()
        };
        if h.get("tool") != Some("c2bp") {
            return Err(
                "the Boolean program was not written by c2bp (no `//@@ tool=c2bp` header)".into(),
            );
        }
        if let Some(errs) = h.get("error") {
            for e in errs.split(',').filter(|e| !e.is_empty()) {
                if let Some(f) = e.strip_prefix("call:") {
                    s.error_fns.push(f.to_string());
                } else if let Some(l) = e.strip_prefix("label:") {
                    s.error_labels.push(l.to_string());
                } else if e == "assert" {
                    s.assert_is_error = true;
                } else {
                    return Err(format!("unknown error convention `{e}` in the header"));
                }
            }
        }
        for o in h.get("options").unwrap_or("").split_whitespace() {
            if let Some(dm) = o.strip_prefix("data-model=") {
                s.sem.data_model = dm.parse()?;
            } else if o == "bitvector" {
                s.sem.bitvector = true;
            }
        }
        Ok(s)
    }

    /// The lowering options these settings imply.
    pub fn lower_options(&self) -> cir::LowerOptions {
        cir::LowerOptions {
            data_model: self.sem.data_model,
            error_fns: self.error_fns.clone(),
            error_labels: self.error_labels.clone(),
            assert_is_error: self.assert_is_error,
            keep_global_reads: false,
        }
    }

    /// Checks that the C file's bytes are those the header's SHA-256 names (a `.bp` of another
    /// file, or of an older version of it, is an input error for the tools that read both).
    pub fn check_source(&self, c_bytes: &[u8]) -> Result<(), String> {
        let sha = sha256_hex(c_bytes);
        if self.sha256.as_deref() == Some(sha.as_str()) {
            return Ok(());
        }
        Err(format!(
            "not abstracted from this C file (SHA-256 {} in its header, the file's is {sha})",
            self.sha256.as_deref().unwrap_or("missing"),
        ))
    }

    /// The `error=` header entry for these error conventions (empty: none).
    pub fn error_entry(&self) -> String {
        let mut errors: Vec<String> = self.error_fns.iter().map(|f| format!("call:{f}")).collect();
        errors.extend(self.error_labels.iter().map(|l| format!("label:{l}")));
        if self.assert_is_error {
            errors.push("assert".into());
        }
        errors.join(",")
    }
}
