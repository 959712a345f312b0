//! SV-COMP's conventions for what to verify: task definitions ([`task`]: `.yml` files naming
//! an input file, its properties and a data model), property files ([`property`]: `.prp`, which
//! function's call is the error) and the data models ([`DataModel`]). Knows nothing of C or of
//! any solver, so that a tool that only reads task sets (`slam-bench`) links neither.
#![deny(missing_docs)]

pub mod property;
pub mod task;

use std::fmt;
use std::str::FromStr;

/// The data model: sizes of `long` and of pointers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum DataModel {
    /// `int`, `long` and pointers are 32 bits (SV-COMP's default).
    #[default]
    Ilp32,
    /// `long` and pointers are 64 bits.
    Lp64,
}

impl FromStr for DataModel {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s.to_ascii_uppercase().as_str() {
            "ILP32" => Ok(DataModel::Ilp32),
            "LP64" => Ok(DataModel::Lp64),
            _ => Err(format!("unknown data model `{s}` (expected ILP32 or LP64)")),
        }
    }
}

impl fmt::Display for DataModel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            DataModel::Ilp32 => "ILP32",
            DataModel::Lp64 => "LP64",
        })
    }
}
