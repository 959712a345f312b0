//! The reports of a results directory: `results.csv`, `summary.md` (the [`summary`] tables as
//! Markdown, also printed), `quantile.svg` and `scatter.svg` ([`plots`]) and `report.html`
//! ([`html`]), which links each run's kept output (`runs/`, [`results::output_stem`]).
//!
//! [`summary`]: crate::summary
//! [`plots`]: crate::plots
//! [`html`]: crate::html
//! [`results::output_stem`]: crate::results::output_stem

use std::path::{Path, PathBuf};

use crate::BenchError;
use crate::results::{self, Row};
use crate::{html, plots, summary};

/// The two configurations of a scatter plot, written `A,B`. Configuration names may contain
/// commas (`cube=3,constrain=lazy`): the split is the one comma where both sides name one of
/// `configs`.
pub fn scatter_pair(spec: &str, configs: &[String]) -> Result<(String, String), BenchError> {
    let known = |s: &str| configs.iter().any(|c| c == s.trim());
    let splits: Vec<(String, String)> = spec
        .match_indices(',')
        .map(|(i, _)| (spec[..i].trim(), spec[i + 1..].trim()))
        .filter(|(a, b)| known(a) && known(b))
        .map(|(a, b)| (a.to_string(), b.to_string()))
        .collect();
    match splits.as_slice() {
        [one] => Ok(one.clone()),
        [] => Err(BenchError::Usage(format!(
            "--scatter {spec}: expected two of the configurations, A,B ({})",
            configs.join("; ")
        ))),
        _ => Err(BenchError::Usage(format!(
            "--scatter {spec}: ambiguous, several splits name two configurations"
        ))),
    }
}

/// The configurations in the order of their first row.
pub fn config_order(rows: &[Row], preferred: &[String]) -> Vec<String> {
    let mut out: Vec<String> = preferred
        .iter()
        .filter(|c| rows.iter().any(|r| &r.config == *c))
        .cloned()
        .collect();
    for r in rows {
        if !out.contains(&r.config) {
            out.push(r.config.clone());
        }
    }
    out
}

/// The relative URLs of a run's kept standard output and error in `dir`, when they exist.
pub fn output_links(dir: &Path, r: &Row) -> (Option<String>, Option<String>) {
    let stem = results::output_stem(&r.task, &r.config);
    let link = |ext: &str| {
        let rel = PathBuf::from(format!("{}.{ext}", stem.display()));
        dir.join(&rel)
            .is_file()
            .then(|| rel.display().to_string().replace('%', "%25"))
    };
    (link("out"), link("err"))
}

/// Writes `results.csv`, `summary.md`, `quantile.svg`, `scatter.svg` (with two or more
/// configurations: `scatter` or the first two) and `report.html` into `dir`, the report headed
/// by `about` (what, value); returns the summary text.
pub fn write_all(
    dir: &Path,
    rows: &[Row],
    configs: &[String],
    limit: f64,
    scatter: Option<(&str, &str)>,
    about: Vec<(String, String)>,
) -> Result<String, BenchError> {
    let write = |name: &str, text: &str| {
        let p = dir.join(name);
        std::fs::write(&p, text).map_err(|e| BenchError::io(&p, e))
    };
    results::write_csv(&dir.join("results.csv"), rows)?;
    let tables = summary::tables(rows, configs);
    let sum = summary::markdown(&tables);
    write("summary.md", &sum)?;
    let q = plots::quantile_svg(rows, configs, limit)?;
    write("quantile.svg", &q)?;
    let pair = scatter.or(match configs {
        [a, b, ..] => Some((a.as_str(), b.as_str())),
        _ => None,
    });
    let sc = pair
        .map(|(a, b)| plots::scatter_svg(rows, a, b, limit))
        .transpose()?;
    match &sc {
        Some(sc) => write("scatter.svg", sc)?,
        None => {
            let _ = std::fs::remove_file(dir.join("scatter.svg"));
        }
    }
    let page = html::Page {
        about,
        tables: &tables,
        rows,
        outputs: rows.iter().map(|r| output_links(dir, r)).collect(),
        configs,
        quantile: &q,
        scatter: sc.as_deref(),
    };
    write("report.html", &html::page(&page))?;
    Ok(sum)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scatter_pairs_split_where_both_names_exist() {
        let cs: Vec<String> = ["cube=1,constrain=lazy", "cube=3,constrain=lazy", "lazy"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        assert_eq!(
            scatter_pair("cube=1,constrain=lazy,cube=3,constrain=lazy", &cs).unwrap(),
            (
                "cube=1,constrain=lazy".to_string(),
                "cube=3,constrain=lazy".to_string()
            )
        );
        assert_eq!(
            scatter_pair("lazy, cube=3,constrain=lazy", &cs).unwrap().0,
            "lazy"
        );
        for bad in ["lazy", "lazy,eager", "", "lazy,lazy,lazy"] {
            assert!(
                matches!(scatter_pair(bad, &cs), Err(BenchError::Usage(_))),
                "{bad}"
            );
        }
    }
}
