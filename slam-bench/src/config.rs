//! Strategy configurations: a name and the `slam-run` options it adds, described in one schema
//! of strategy dimensions.
//!
//! A dimension ([`DIMENSIONS`]) is a strategy choice of `slam-run`: its name, the option it
//! sets and the values it allows. A configuration is a point of the schema — a value for some
//! of the dimensions, `slam-run`'s default for the others — named uniformly by its
//! assignments in the table's order (`cube=3,constrain=lazy,refine=horn`). A matrix
//! (`--dim NAME=V1,V2,…`, with `--cube-len`, `--constrain` and `--bitvector` as shorthands of
//! `--dim cube=…`, `--dim constrain=…`, `--dim bitvector=…`) is the product of the values given.
//! The table knows dimensions `slam-run` may not accept yet: their runs end with slam-run's
//! usage error, an error row.
//!
//! Presets are points of the same schema with the names of the Constrain paper's columns:
//! - `no-constrain`, `lazy`, `eager` — Fig. 4's three configurations (`constrain=off|lazy|eager`;
//!   eager also abstracts with `--havoc-all`, inside `slam-run`); `fig4` is all three.
//! - `C/3`, `C/5`, `C/inf` — Fig. 6's concrete-prover columns (Z3) at maximum cube length 3, 5
//!   and unbounded (`cube=3|5|inf`); `fig6` is all three. The `S/…` columns used SLAM's symbolic
//!   prover, which the toolkit does not have: asking for them is an error that says so.
//! - `C/3+lazy`, `C/inf+off`, `exact+off` — the two ends of the Constrain paper's trade-off and
//!   SATABS's exact abstraction: Cartesian at cube length 3 with lazy constraints, Cartesian
//!   at unbounded length without, and the exact abstraction (`abstraction=exact`) without;
//!   `abstractions` is all three. The presets keep their cube lengths (`raise=0`).
//!
//! `--config NAME=OPTIONS` gives a configuration as raw options, outside the schema.

use serde::{Deserialize, Serialize};

use crate::BenchError;

/// How a dimension's value becomes `slam-run` options.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Flag {
    /// `FLAG VALUE`.
    Value(&'static str),
    /// `FLAG` for the value `on`, nothing for `off`.
    Switch(&'static str),
}

/// The values a dimension allows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Values {
    /// One of these.
    OneOf(&'static [&'static str]),
    /// A maximum cube length: a positive integer or `inf`.
    CubeLen,
    /// A positive integer.
    Count,
    /// A non-negative integer.
    Bound,
}

/// A strategy dimension of `slam-run`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Dimension {
    /// The name in `--dim` and in configuration names.
    pub name: &'static str,
    /// The `slam-run` option.
    pub flag: Flag,
    /// The values it allows.
    pub values: Values,
    /// What it chooses.
    pub about: &'static str,
}

/// The known dimensions, in the order of configuration names.
pub const DIMENSIONS: &[Dimension] = &[
    Dimension {
        name: "cube",
        flag: Flag::Value("--cube-len"),
        values: Values::CubeLen,
        about: "maximum cube length of the abstraction",
    },
    Dimension {
        name: "raise",
        flag: Flag::Value("--max-cube-len"),
        values: Values::Bound,
        about: "how far the cube and enforce lengths grow when refinement finds no difference \
                and constrain cannot help (0: never)",
    },
    Dimension {
        name: "constrain",
        flag: Flag::Value("--constrain"),
        values: Values::OneOf(&["off", "lazy", "eager"]),
        about: "what happens when refinement finds no difference (NDF)",
    },
    Dimension {
        name: "bitvector",
        flag: Flag::Switch("--bitvector"),
        values: Values::OneOf(&["off", "on"]),
        about: "bit-precise reasoning",
    },
    Dimension {
        name: "refine",
        flag: Flag::Value("--refine"),
        values: Values::OneOf(&["wp", "horn", "auto"]),
        about: "how an infeasible path is refined: weakest preconditions, or Horn clauses of \
                the path program",
    },
    Dimension {
        name: "precision",
        flag: Flag::Value("--precision"),
        values: Values::OneOf(&["int", "bv", "auto"]),
        about: "the integer semantics: mathematical, bit-vectors, or integers switching to \
                bit-vectors for the rest of the run at the first path that needs them (not \
                with bitvector=on)",
    },
    Dimension {
        name: "abstraction",
        flag: Flag::Value("--abstraction"),
        values: Values::OneOf(&["cartesian", "exact"]),
        about: "Cartesian abstraction with bounded cubes, or the exact Boolean abstraction",
    },
    Dimension {
        name: "traces",
        flag: Flag::Value("--traces-per-iteration"),
        values: Values::Count,
        about: "abstract error traces refined per abstraction (1: one per iteration)",
    },
    Dimension {
        name: "falsify",
        flag: Flag::Value("--falsify"),
        values: Values::OneOf(&["off", "auto"]),
        about: "the bounded concrete-execution falsifier, run when a trace goes round a loop",
    },
    Dimension {
        name: "siblings",
        flag: Flag::Value("--sibling-predicates"),
        values: Values::OneOf(&["off", "on"]),
        about: "a state test `e == c` (or a bound `e <= c`) from a refutation also brings \
                `e == c'` (`e <= c'`) for the other constants `e` is assigned or compared with",
    },
];

impl Dimension {
    /// The dimension called `name`.
    pub fn named(name: &str) -> Result<&'static Dimension, BenchError> {
        DIMENSIONS.iter().find(|d| d.name == name).ok_or_else(|| {
            BenchError::Usage(format!(
                "unknown dimension `{name}` (known: {})",
                DIMENSIONS
                    .iter()
                    .map(|d| d.name)
                    .collect::<Vec<_>>()
                    .join(", ")
            ))
        })
    }

    /// The allowed values, as text (`off|lazy|eager`, `1,2,…|inf`).
    pub fn values_text(&self) -> String {
        match self.values {
            Values::OneOf(vs) => vs.join("|"),
            Values::CubeLen => "1,2,…|inf".into(),
            Values::Count => "1,2,…".into(),
            Values::Bound => "0,1,2,…".into(),
        }
    }

    /// The `slam-run` option, as text.
    pub fn flag_text(&self) -> &'static str {
        match self.flag {
            Flag::Value(f) | Flag::Switch(f) => f,
        }
    }

    /// Checks `value`.
    pub fn check(&self, value: &str) -> Result<(), BenchError> {
        let ok = match self.values {
            Values::OneOf(vs) => vs.contains(&value),
            Values::CubeLen => value == "inf" || value.parse::<usize>().is_ok_and(|k| k > 0),
            Values::Count => value.parse::<usize>().is_ok_and(|k| k > 0),
            Values::Bound => value.parse::<usize>().is_ok(),
        };
        if ok {
            Ok(())
        } else {
            Err(BenchError::Usage(format!(
                "dimension {}: `{value}` is not one of {}",
                self.name,
                self.values_text()
            )))
        }
    }

    /// The `slam-run` options of `value`.
    fn args(&self, value: &str) -> Vec<String> {
        match self.flag {
            Flag::Value(f) => vec![f.to_string(), value.to_string()],
            Flag::Switch(f) if value == "on" => vec![f.to_string()],
            Flag::Switch(_) => Vec::new(),
        }
    }
}

/// The `--help` text of the schema: a line per dimension.
pub fn dimensions_help() -> String {
    let mut s = String::from(
        "Matrix over strategy dimensions: NAME=V1,V2,... (repeatable); the configurations are \
         the product of the values given, named NAME=VALUE,... in the order below \
         (e.g. cube=3,constrain=lazy,refine=horn). Dimensions (name: values -> slam-run \
         option):",
    );
    for d in DIMENSIONS {
        s.push_str(&format!(
            "\n  {}: {} -> {}{}  ({})",
            d.name,
            d.values_text(),
            d.flag_text(),
            match d.flag {
                Flag::Value(_) => " VALUE",
                Flag::Switch(_) => " when on",
            },
            d.about
        ));
    }
    s.push_str(
        "\nA dimension slam-run does not accept yet gives error rows (slam-run's usage error).",
    );
    s
}

/// One configuration.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Config {
    /// The name in results and tables.
    pub name: String,
    /// Its point in the schema: the dimensions it sets and their values, in the table's order
    /// (empty for a configuration given as raw options).
    #[serde(default)]
    pub point: Vec<(String, String)>,
    /// Options passed to `slam-run`.
    pub args: Vec<String>,
}

/// A dimension as `bench.json` records it: what its values meant to this benchmark, so that
/// `--resume` runs them with the same options.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DimensionRecord {
    /// The name.
    pub name: String,
    /// The `slam-run` option.
    pub flag: String,
    /// The allowed values.
    pub values: String,
}

/// The dimensions the configurations use, in the table's order.
pub fn schema_of(configs: &[Config]) -> Vec<DimensionRecord> {
    DIMENSIONS
        .iter()
        .filter(|d| {
            configs
                .iter()
                .any(|c| c.point.iter().any(|(n, _)| n == d.name))
        })
        .map(|d| DimensionRecord {
            name: d.name.into(),
            flag: d.flag_text().into(),
            values: d.values_text(),
        })
        .collect()
}

/// The configuration at a point: `assignments` (dimension, value), checked and put in the
/// table's order; named `name`, or `NAME=VALUE,…` (`default` for the empty point).
pub fn at_point(name: Option<&str>, assignments: &[(&str, &str)]) -> Result<Config, BenchError> {
    let mut point: Vec<(&'static Dimension, String)> = Vec::new();
    for (n, v) in assignments {
        let d = Dimension::named(n)?;
        d.check(v)?;
        if point.iter().any(|(e, _)| e.name == d.name) {
            return Err(BenchError::Usage(format!("dimension {n} is given twice")));
        }
        point.push((d, v.to_string()));
    }
    point.sort_by_key(|(d, _)| DIMENSIONS.iter().position(|e| e.name == d.name));
    let derived: Vec<String> = point
        .iter()
        .map(|(d, v)| format!("{}={v}", d.name))
        .collect();
    Ok(Config {
        name: match name {
            Some(n) => n.to_string(),
            None if derived.is_empty() => "default".into(),
            None => derived.join(","),
        },
        args: point.iter().flat_map(|(d, v)| d.args(v)).collect(),
        point: point
            .into_iter()
            .map(|(d, v)| (d.name.to_string(), v))
            .collect(),
    })
}

/// The presets: names of the paper's columns and their points (the paper's runs kept their
/// cube length: `raise=0`).
const PRESETS: &[(&str, &[(&str, &str)])] = &[
    ("no-constrain", &[("raise", "0"), ("constrain", "off")]),
    ("lazy", &[("raise", "0"), ("constrain", "lazy")]),
    ("eager", &[("raise", "0"), ("constrain", "eager")]),
    ("C/3", &[("cube", "3"), ("raise", "0")]),
    ("C/5", &[("cube", "5"), ("raise", "0")]),
    ("C/inf", &[("cube", "inf"), ("raise", "0")]),
    (
        "C/3+lazy",
        &[("cube", "3"), ("raise", "0"), ("constrain", "lazy")],
    ),
    (
        "C/inf+off",
        &[("cube", "inf"), ("raise", "0"), ("constrain", "off")],
    ),
    (
        "exact+off",
        &[("constrain", "off"), ("abstraction", "exact")],
    ),
];

/// Presets that name several.
const GROUPS: &[(&str, &[&str])] = &[
    ("fig4", &["no-constrain", "lazy", "eager"]),
    ("fig6", &["C/3", "C/5", "C/inf"]),
    ("abstractions", &["C/3+lazy", "C/inf+off", "exact+off"]),
];

/// The configurations of a preset name.
pub fn preset(name: &str) -> Result<Vec<Config>, BenchError> {
    let name = if name == "C/∞" { "C/inf" } else { name };
    if let Some((_, members)) = GROUPS.iter().find(|(g, _)| *g == name) {
        return members.iter().map(|m| single(m)).collect();
    }
    if name.starts_with("S/") {
        return Err(BenchError::Usage(format!(
            "preset `{name}`: the S columns of the paper's Fig. 6 used SLAM's symbolic theorem \
             prover, which this toolkit does not have (C/3, C/5, C/inf use Z3)"
        )));
    }
    Ok(vec![single(name)?])
}

fn single(name: &str) -> Result<Config, BenchError> {
    let (n, point) = PRESETS.iter().find(|(p, _)| *p == name).ok_or_else(|| {
        let all: Vec<&str> = PRESETS
            .iter()
            .map(|(p, _)| *p)
            .chain(GROUPS.iter().map(|(g, _)| *g))
            .collect();
        BenchError::Usage(format!("unknown preset `{name}` ({})", all.join(", ")))
    })?;
    at_point(Some(n), point)
}

/// A configuration written `NAME=OPTIONS` (options split at whitespace; outside the schema).
pub fn parse_named(s: &str) -> Result<Config, BenchError> {
    let (name, args) = s
        .split_once('=')
        .ok_or_else(|| BenchError::Usage(format!("configuration `{s}`: expected NAME=OPTIONS")))?;
    let name = name.trim();
    if name.is_empty() {
        return Err(BenchError::Usage(format!(
            "configuration `{s}`: the name is empty"
        )));
    }
    Ok(Config {
        name: name.into(),
        point: Vec::new(),
        args: args.split_whitespace().map(String::from).collect(),
    })
}

/// A matrix axis written `NAME=V1,V2,…`.
pub fn parse_dim(s: &str) -> Result<(String, Vec<String>), BenchError> {
    let (name, values) = s
        .split_once('=')
        .ok_or_else(|| BenchError::Usage(format!("--dim {s}: expected NAME=V1,V2,...")))?;
    let values: Vec<String> = values
        .split(',')
        .map(|v| v.trim().to_string())
        .filter(|v| !v.is_empty())
        .collect();
    if values.is_empty() {
        return Err(BenchError::Usage(format!("--dim {s}: no values")));
    }
    Ok((name.trim().to_string(), values))
}

/// The product of the values of each axis (dimension, values); the configurations in the
/// order of the table's dimensions, each axis's values in the order given.
pub fn matrix(axes: &[(String, Vec<String>)]) -> Result<Vec<Config>, BenchError> {
    let mut axes: Vec<(&'static Dimension, &[String])> = axes
        .iter()
        .map(|(n, vs)| Ok((Dimension::named(n)?, vs.as_slice())))
        .collect::<Result<_, BenchError>>()?;
    axes.sort_by_key(|(d, _)| DIMENSIONS.iter().position(|e| e.name == d.name));
    if let Some(w) = axes.windows(2).find(|w| w[0].0.name == w[1].0.name) {
        return Err(BenchError::Usage(format!(
            "dimension {} is given twice (a shorthand and --dim?)",
            w[0].0.name
        )));
    }
    let mut points: Vec<Vec<(&str, &str)>> = vec![Vec::new()];
    for (d, values) in &axes {
        for (i, v) in values.iter().enumerate() {
            if values[..i].contains(v) {
                return Err(BenchError::Usage(format!(
                    "dimension {}: `{v}` is given twice",
                    d.name
                )));
            }
        }
        points = points
            .into_iter()
            .flat_map(|p| {
                values.iter().map(move |v| {
                    let mut q = p.clone();
                    q.push((d.name, v.as_str()));
                    q
                })
            })
            .collect();
    }
    points.iter().map(|p| at_point(None, p)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn axis(n: &str, vs: &[&str]) -> (String, Vec<String>) {
        (n.into(), vs.iter().map(|v| v.to_string()).collect())
    }

    #[test]
    fn presets_keep_their_names_and_meanings() {
        let f4 = preset("fig4").unwrap();
        assert_eq!(
            f4.iter().map(|c| c.name.as_str()).collect::<Vec<_>>(),
            ["no-constrain", "lazy", "eager"]
        );
        assert_eq!(f4[0].args, ["--max-cube-len", "0", "--constrain", "off"]);
        assert_eq!(
            f4[2].point,
            [
                ("raise".into(), "0".into()),
                ("constrain".into(), "eager".into())
            ]
        );
        let f6 = preset("fig6").unwrap();
        assert_eq!(f6[2].name, "C/inf");
        assert_eq!(f6[2].args, ["--cube-len", "inf", "--max-cube-len", "0"]);
        assert_eq!(preset("C/∞").unwrap(), preset("C/inf").unwrap());
        assert!(preset("S/3").unwrap_err().to_string().contains("symbolic"));
        assert!(matches!(preset("nope"), Err(BenchError::Usage(_))));
        let ab = preset("abstractions").unwrap();
        assert_eq!(
            ab.iter().map(|c| c.name.as_str()).collect::<Vec<_>>(),
            ["C/3+lazy", "C/inf+off", "exact+off"]
        );
        assert_eq!(
            ab[1].args,
            [
                "--cube-len",
                "inf",
                "--max-cube-len",
                "0",
                "--constrain",
                "off"
            ]
        );
        assert_eq!(ab[2].args, ["--constrain", "off", "--abstraction", "exact"]);
    }

    #[test]
    fn a_matrix_is_named_uniformly_in_the_tables_order() {
        // Given in another order than the table's: named and ordered by the table.
        let m = matrix(&[
            axis("refine", &["wp", "horn"]),
            axis("cube", &["1", "inf"]),
            axis("constrain", &["lazy"]),
        ])
        .unwrap();
        assert_eq!(
            m.iter().map(|c| c.name.as_str()).collect::<Vec<_>>(),
            [
                "cube=1,constrain=lazy,refine=wp",
                "cube=1,constrain=lazy,refine=horn",
                "cube=inf,constrain=lazy,refine=wp",
                "cube=inf,constrain=lazy,refine=horn",
            ]
        );
        assert_eq!(
            m[1].args,
            ["--cube-len", "1", "--constrain", "lazy", "--refine", "horn"]
        );
        let bv = matrix(&[
            axis("bitvector", &["off", "on"]),
            axis("precision", &["auto"]),
        ])
        .unwrap();
        assert_eq!(bv[0].name, "bitvector=off,precision=auto");
        assert_eq!(bv[0].args, ["--precision", "auto"]);
        assert_eq!(bv[1].args, ["--bitvector", "--precision", "auto"]);
        let ab = matrix(&[axis("abstraction", &["cartesian", "exact"])]).unwrap();
        assert_eq!(ab[1].args, ["--abstraction", "exact"]);
        let tr = matrix(&[axis("traces", &["1", "3"]), axis("cube", &["3"])]).unwrap();
        assert_eq!(tr[1].name, "cube=3,traces=3");
        assert_eq!(
            tr[1].args,
            ["--cube-len", "3", "--traces-per-iteration", "3"]
        );
        assert_eq!(matrix(&[]).unwrap()[0].name, "default");
        let schema = schema_of(&m);
        assert_eq!(
            schema.iter().map(|d| d.name.as_str()).collect::<Vec<_>>(),
            ["cube", "constrain", "refine"]
        );
        assert_eq!(schema[2].flag, "--refine");
        assert_eq!(schema[2].values, "wp|horn|auto");
    }

    #[test]
    fn bad_axes_are_usage_errors() {
        for bad in [
            vec![axis("cubes", &["1"])],
            vec![axis("cube", &["0"])],
            vec![axis("cube", &["x"])],
            vec![axis("refine", &["interp"])],
            vec![axis("cube", &["1"]), axis("cube", &["3"])],
            vec![axis("cube", &["3", "3"])],
            vec![axis("traces", &["0"])],
            vec![axis("traces", &["inf"])],
        ] {
            assert!(matches!(matrix(&bad), Err(BenchError::Usage(_))), "{bad:?}");
        }
        assert!(parse_dim("refine").is_err() && parse_dim("refine=").is_err());
        assert_eq!(
            parse_dim("refine=wp, horn").unwrap(),
            axis("refine", &["wp", "horn"])
        );
        let c = parse_named("deep=--cube-len inf --enforce-len 4").unwrap();
        assert_eq!(c.args.len(), 4);
        assert!(c.point.is_empty());
        assert!(parse_named("=x").is_err() && parse_named("x").is_err());
        let help = dimensions_help();
        for d in DIMENSIONS {
            assert!(help.contains(d.name) && help.contains(d.flag_text()));
        }
    }
}
