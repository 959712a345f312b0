//! Strategy configurations: a name and the `slam-run` options it adds.
//!
//! Presets reproduce the Constrain paper's columns where the toolkit has the option:
//! - `no-constrain`, `lazy`, `eager` — Fig. 4's three configurations (`--constrain off|lazy|eager`;
//!   eager also abstracts with `--havoc-all`, inside `slam-run`); `fig4` is all three.
//! - `C/3`, `C/5`, `C/inf` — Fig. 6's concrete-prover columns (Z3) at maximum cube length 3, 5
//!   and unbounded; `fig6` is all three. The `S/…` columns used SLAM's symbolic prover, which
//!   the toolkit does not have: asking for them is an error that says so.
//!
//! A matrix is the product of the values given for `--cube-len`, `--constrain` and
//! `--bitvector`; each point is named `cube=K,constrain=M[,bv]`.

use serde::{Deserialize, Serialize};

use crate::BenchError;

/// One configuration.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Config {
    /// The name in results and tables.
    pub name: String,
    /// Options passed to `slam-run`.
    pub args: Vec<String>,
}

fn cfg(name: &str, args: &[&str]) -> Config {
    Config {
        name: name.into(),
        args: args.iter().map(|s| s.to_string()).collect(),
    }
}

/// The configurations of a preset name.
pub fn preset(name: &str) -> Result<Vec<Config>, BenchError> {
    Ok(match name {
        "no-constrain" => vec![cfg("no-constrain", &["--constrain", "off"])],
        "lazy" => vec![cfg("lazy", &["--constrain", "lazy"])],
        "eager" => vec![cfg("eager", &["--constrain", "eager"])],
        "fig4" => ["no-constrain", "lazy", "eager"]
            .iter()
            .map(|n| preset(n).map(|mut v| v.remove(0)))
            .collect::<Result<_, _>>()?,
        "C/3" => vec![cfg("C/3", &["--cube-len", "3"])],
        "C/5" => vec![cfg("C/5", &["--cube-len", "5"])],
        "C/inf" | "C/∞" => vec![cfg("C/inf", &["--cube-len", "inf"])],
        "fig6" => ["C/3", "C/5", "C/inf"]
            .iter()
            .map(|n| preset(n).map(|mut v| v.remove(0)))
            .collect::<Result<_, _>>()?,
        s if s.starts_with("S/") => {
            return Err(BenchError::Input(format!(
                "preset `{s}`: the S columns of the paper's Fig. 6 used SLAM's symbolic theorem \
                 prover, which this toolkit does not have (C/3, C/5, C/inf use Z3)"
            )));
        }
        s => {
            return Err(BenchError::Input(format!(
                "unknown preset `{s}` (no-constrain, lazy, eager, fig4, C/3, C/5, C/inf, fig6)"
            )));
        }
    })
}

/// A configuration written `NAME=OPTIONS` (options split at whitespace).
pub fn parse_named(s: &str) -> Result<Config, BenchError> {
    let (name, args) = s
        .split_once('=')
        .ok_or_else(|| BenchError::Input(format!("configuration `{s}`: expected NAME=OPTIONS")))?;
    let name = name.trim();
    if name.is_empty() {
        return Err(BenchError::Input(format!(
            "configuration `{s}`: the name is empty"
        )));
    }
    Ok(Config {
        name: name.into(),
        args: args.split_whitespace().map(String::from).collect(),
    })
}

/// The product of the given values (an empty list: `slam-run`'s default for that option).
pub fn matrix(cube_lens: &[String], modes: &[String], bitvector: &[bool]) -> Vec<Config> {
    let none = [String::new()];
    let cubes: &[String] = if cube_lens.is_empty() {
        &none
    } else {
        cube_lens
    };
    let ms: &[String] = if modes.is_empty() { &none } else { modes };
    let bvs: &[bool] = if bitvector.is_empty() {
        &[false]
    } else {
        bitvector
    };
    let mut out = Vec::new();
    for c in cubes {
        for m in ms {
            for &bv in bvs {
                let mut name = Vec::new();
                let mut args = Vec::new();
                if !c.is_empty() {
                    name.push(format!("cube={c}"));
                    args.extend(["--cube-len".to_string(), c.clone()]);
                }
                if !m.is_empty() {
                    name.push(format!("constrain={m}"));
                    args.extend(["--constrain".to_string(), m.clone()]);
                }
                if bv {
                    name.push("bv".into());
                    args.push("--bitvector".into());
                }
                if name.is_empty() {
                    name.push("default".into());
                }
                out.push(Config {
                    name: name.join(","),
                    args,
                });
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn presets_and_matrix() {
        let f4 = preset("fig4").unwrap();
        assert_eq!(
            f4.iter().map(|c| c.name.as_str()).collect::<Vec<_>>(),
            ["no-constrain", "lazy", "eager"]
        );
        assert_eq!(f4[0].args, ["--constrain", "off"]);
        assert!(preset("S/3").unwrap_err().to_string().contains("symbolic"));
        assert!(preset("nope").is_err());
        let m = matrix(&["1".into(), "inf".into()], &["off".into()], &[false, true]);
        assert_eq!(m.len(), 4);
        assert_eq!(m[1].name, "cube=1,constrain=off,bv");
        assert_eq!(
            m[1].args,
            ["--cube-len", "1", "--constrain", "off", "--bitvector"]
        );
        assert_eq!(matrix(&[], &[], &[])[0].name, "default");
        let c = parse_named("deep=--cube-len inf --enforce-len 4").unwrap();
        assert_eq!(c.args.len(), 4);
        assert!(parse_named("=x").is_err() && parse_named("x").is_err());
    }
}
