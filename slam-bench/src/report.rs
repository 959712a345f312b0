//! Reports from result rows: the summary table of each configuration (per task set and in
//! total: the Constrain paper's Fig. 4 categories — correct TRUE, correct FALSE, wrong, NDF,
//! timeout/memory, unknown — with errors, the SV-COMP score and CPU time), one table comparing
//! the configurations side by side (Fig. 4's layout, with Fig. 5's refinement statistics), a
//! quantile plot and a scatter plot as SVG, and an HTML page that shows the tables and embeds
//! the plots. Tables are Markdown, readable as plain text.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::path::Path;

use crate::BenchError;
use crate::results::{Row, Status};

/// Counts of one group of rows.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Tally {
    /// Runs.
    pub runs: usize,
    /// Runs per status.
    pub by_status: BTreeMap<Status, usize>,
    /// SV-COMP score.
    pub score: i64,
    /// CPU seconds of all runs.
    pub cpu: f64,
    /// CPU seconds of the correct runs.
    pub cpu_solved: f64,
    /// Sums of the refinement statistics (Fig. 5).
    pub iterations: u64,
    /// Constraints generated.
    pub constraints: u64,
    /// Calls of constrain.
    pub constrain_calls: u64,
    /// NDF rounds.
    pub ndf: u64,
    /// c2bp's prover queries.
    pub prover_queries: u64,
}

impl Tally {
    /// Adds a row.
    pub fn add(&mut self, r: &Row) {
        self.runs += 1;
        *self.by_status.entry(r.status).or_default() += 1;
        self.score += r.status.score();
        self.cpu += r.end.cpu_seconds;
        if r.status.solved() {
            self.cpu_solved += r.end.cpu_seconds;
        }
        self.iterations += r.iterations.unwrap_or(0);
        self.constraints += r.constraints.unwrap_or(0);
        self.constrain_calls += r.constrain_calls.unwrap_or(0);
        self.ndf += r.ndf.unwrap_or(0);
        self.prover_queries += r.prover_queries.unwrap_or(0);
    }

    /// Runs with this status.
    pub fn count(&self, s: Status) -> usize {
        self.by_status.get(&s).copied().unwrap_or(0)
    }

    /// The Fig. 4 columns: correct TRUE, correct FALSE, wrong, NDF, timeout/memory, unknown,
    /// error, no expectation.
    pub fn columns(&self) -> [usize; 8] {
        [
            self.count(Status::CorrectTrue),
            self.count(Status::CorrectFalse),
            self.count(Status::WrongTrue) + self.count(Status::WrongFalse),
            self.count(Status::Ndf),
            self.count(Status::Timeout) + self.count(Status::Memory),
            self.count(Status::Unknown),
            self.count(Status::Error),
            self.count(Status::Unchecked),
        ]
    }
}

const COLUMN_NAMES: [&str; 8] = [
    "correct TRUE",
    "correct FALSE",
    "wrong",
    "NDF",
    "timeout/memory",
    "unknown",
    "error",
    "no expectation",
];

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

/// One configuration's table: a line per task set and the total.
pub fn config_table(rows: &[Row], config: &str) -> String {
    let mut sets: BTreeMap<&str, Tally> = BTreeMap::new();
    let mut total = Tally::default();
    for r in rows.iter().filter(|r| r.config == config) {
        sets.entry(&r.set).or_default().add(r);
        total.add(r);
    }
    let mut s = format!("### Configuration `{config}`\n\n| task set | tasks |");
    for c in COLUMN_NAMES {
        let _ = write!(s, " {c} |");
    }
    s.push_str(" score | CPU s (all) | CPU s (correct) |\n|---|---:|");
    s.push_str(&"---:|".repeat(COLUMN_NAMES.len() + 3));
    s.push('\n');
    let line = |s: &mut String, name: &str, t: &Tally| {
        let _ = write!(s, "| {name} | {} |", t.runs);
        for v in t.columns() {
            let _ = write!(s, " {v} |");
        }
        let _ = writeln!(s, " {} | {:.1} | {:.1} |", t.score, t.cpu, t.cpu_solved);
    };
    for (name, t) in &sets {
        line(&mut s, name, t);
    }
    line(&mut s, "**total**", &total);
    s
}

/// The configurations side by side (Fig. 4's layout, and Fig. 5's statistics).
pub fn comparison_table(rows: &[Row], configs: &[String]) -> String {
    let tallies: Vec<Tally> = configs
        .iter()
        .map(|c| {
            let mut t = Tally::default();
            rows.iter()
                .filter(|r| &r.config == c)
                .for_each(|r| t.add(r));
            t
        })
        .collect();
    let mut s = String::from("### All configurations\n\n|  |");
    for c in configs {
        let _ = write!(s, " {c} |");
    }
    s.push_str("\n|---|");
    s.push_str(&"---:|".repeat(configs.len()));
    s.push('\n');
    let mut line = |name: &str, f: &dyn Fn(&Tally) -> String| {
        let _ = write!(s, "| {name} |");
        for t in &tallies {
            let _ = write!(s, " {} |", f(t));
        }
        s.push('\n');
    };
    line("runs", &|t| t.runs.to_string());
    for (k, name) in COLUMN_NAMES.iter().enumerate() {
        line(name, &|t| t.columns()[k].to_string());
    }
    line("SV-COMP score", &|t| t.score.to_string());
    line("CPU s (all runs)", &|t| format!("{:.1}", t.cpu));
    line("CPU s (correct runs)", &|t| format!("{:.1}", t.cpu_solved));
    line("refinement iterations", &|t| t.iterations.to_string());
    line("NDF rounds", &|t| t.ndf.to_string());
    line("calls to constrain", &|t| t.constrain_calls.to_string());
    line("constraints generated", &|t| t.constraints.to_string());
    line("c2bp prover queries", &|t| t.prover_queries.to_string());
    s
}

/// The whole text summary: the comparison, then one table per configuration.
pub fn summary(rows: &[Row], configs: &[String]) -> String {
    let mut s = comparison_table(rows, configs);
    for c in configs {
        s.push('\n');
        s.push_str(&config_table(rows, c));
    }
    s
}

const COLORS: [&str; 8] = [
    "#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#17becf",
];

fn esc(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// A log-scale axis over [lo, hi] (seconds).
struct LogAxis {
    lo: f64,
    hi: f64,
}

impl LogAxis {
    fn new(lo: f64, hi: f64) -> LogAxis {
        let lo = 10f64.powf(lo.max(1e-3).log10().floor());
        let hi = 10f64.powf(hi.max(lo * 10.0).log10().ceil());
        LogAxis { lo, hi }
    }

    /// Position in [0, 1].
    fn at(&self, v: f64) -> f64 {
        let v = v.clamp(self.lo, self.hi);
        (v.log10() - self.lo.log10()) / (self.hi.log10() - self.lo.log10())
    }

    fn ticks(&self) -> Vec<f64> {
        let mut t = Vec::new();
        let mut v = self.lo;
        while v <= self.hi * 1.0001 {
            t.push(v);
            v *= 10.0;
        }
        t
    }
}

fn fmt_secs(v: f64) -> String {
    if v >= 1.0 {
        format!("{v:.0}")
    } else {
        format!("{v}")
    }
}

const W: f64 = 640.0;
const H: f64 = 420.0;
const L: f64 = 70.0;
const R: f64 = 20.0;
const T: f64 = 40.0;
const B: f64 = 50.0;

fn svg_open(title: &str) -> String {
    format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{W}\" height=\"{H}\" \
         viewBox=\"0 0 {W} {H}\" font-family=\"sans-serif\" font-size=\"12\">\n\
         <rect width=\"{W}\" height=\"{H}\" fill=\"white\"/>\n\
         <text x=\"{}\" y=\"22\" text-anchor=\"middle\" font-size=\"15\">{}</text>\n",
        W / 2.0,
        esc(title)
    )
}

fn frame(s: &mut String, xlabel: &str, ylabel: &str) {
    let _ = writeln!(
        s,
        "<rect x=\"{L}\" y=\"{T}\" width=\"{}\" height=\"{}\" fill=\"none\" stroke=\"black\"/>",
        W - L - R,
        H - T - B
    );
    let _ = writeln!(
        s,
        "<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}</text>",
        L + (W - L - R) / 2.0,
        H - 12.0,
        esc(xlabel)
    );
    let _ = writeln!(
        s,
        "<text x=\"16\" y=\"{y}\" text-anchor=\"middle\" transform=\"rotate(-90 16 {y})\">{}</text>",
        esc(ylabel),
        y = T + (H - T - B) / 2.0
    );
}

fn y_ticks(s: &mut String, ax: &LogAxis) {
    for v in ax.ticks() {
        let y = H - B - ax.at(v) * (H - T - B);
        let _ = writeln!(
            s,
            "<line x1=\"{L}\" x2=\"{}\" y1=\"{y:.1}\" y2=\"{y:.1}\" stroke=\"#ddd\"/>\
             <text x=\"{}\" y=\"{:.1}\" text-anchor=\"end\">{}</text>",
            W - R,
            L - 6.0,
            y + 4.0,
            fmt_secs(v)
        );
    }
}

/// Quantile plot: for each configuration, the CPU time of its n-th fastest correct run.
pub fn quantile_svg(rows: &[Row], configs: &[String], limit: f64) -> String {
    let series: Vec<Vec<f64>> = configs
        .iter()
        .map(|c| {
            let mut v: Vec<f64> = rows
                .iter()
                .filter(|r| &r.config == c && r.status.solved())
                .map(|r| r.end.cpu_seconds)
                .collect();
            v.sort_by(f64::total_cmp);
            v
        })
        .collect();
    let n_max = series.iter().map(Vec::len).max().unwrap_or(0).max(1);
    let t_min = series
        .iter()
        .flatten()
        .copied()
        .fold(f64::INFINITY, f64::min);
    let ax = LogAxis::new(if t_min.is_finite() { t_min } else { 0.01 }, limit);
    let mut s = svg_open("Quantile plot: CPU time of the n-th fastest correct result");
    frame(
        &mut s,
        "n-th fastest correct result",
        "CPU seconds (log scale)",
    );
    y_ticks(&mut s, &ax);
    let x_of = |n: usize| L + n as f64 / n_max as f64 * (W - L - R);
    let step = (n_max / 10).max(1);
    for n in (0..=n_max).step_by(step) {
        let _ = writeln!(
            s,
            "<text x=\"{:.1}\" y=\"{}\" text-anchor=\"middle\">{n}</text>",
            x_of(n),
            H - B + 16.0
        );
    }
    for (k, (c, v)) in configs.iter().zip(&series).enumerate() {
        let color = COLORS[k % COLORS.len()];
        let pts: Vec<String> = v
            .iter()
            .enumerate()
            .map(|(i, &t)| format!("{:.1},{:.1}", x_of(i + 1), H - B - ax.at(t) * (H - T - B)))
            .collect();
        let _ = writeln!(
            s,
            "<polyline class=\"series\" data-config=\"{}\" fill=\"none\" stroke=\"{color}\" \
             stroke-width=\"2\" points=\"{}\"/>",
            esc(c),
            pts.join(" ")
        );
        for p in &pts {
            let (x, y) = p.split_once(',').unwrap_or(("0", "0"));
            let _ = writeln!(
                s,
                "<circle cx=\"{x}\" cy=\"{y}\" r=\"2.5\" fill=\"{color}\"/>"
            );
        }
        let ly = T + 16.0 + 16.0 * k as f64;
        let _ = writeln!(
            s,
            "<line x1=\"{}\" x2=\"{}\" y1=\"{ly}\" y2=\"{ly}\" stroke=\"{color}\" stroke-width=\"2\"/>\
             <text x=\"{}\" y=\"{}\">{} ({} correct)</text>",
            L + 10.0,
            L + 34.0,
            L + 40.0,
            ly + 4.0,
            esc(c),
            v.len()
        );
    }
    s.push_str("</svg>\n");
    s
}

/// Scatter plot: CPU time of configuration `a` against `b`, task by task (a run that is not
/// correct is drawn at the limit).
pub fn scatter_svg(rows: &[Row], a: &str, b: &str, limit: f64) -> String {
    let of = |c: &str| -> BTreeMap<&str, &Row> {
        rows.iter()
            .filter(|r| r.config == c)
            .map(|r| (r.task.as_str(), r))
            .collect()
    };
    let (ra, rb) = (of(a), of(b));
    let tasks: BTreeSet<&str> = ra.keys().filter(|t| rb.contains_key(*t)).copied().collect();
    let val = |r: &Row| {
        if r.status.solved() {
            r.end.cpu_seconds
        } else {
            limit
        }
    };
    let t_min = tasks
        .iter()
        .flat_map(|t| [val(ra[t]), val(rb[t])])
        .fold(f64::INFINITY, f64::min);
    let ax = LogAxis::new(if t_min.is_finite() { t_min } else { 0.01 }, limit);
    let mut s = svg_open(&format!("CPU seconds per task: {a} vs {b}"));
    frame(
        &mut s,
        &format!("{a} (CPU s, log scale; not correct: at the limit)"),
        &format!("{b} (CPU s)"),
    );
    y_ticks(&mut s, &ax);
    let px = |v: f64| L + ax.at(v) * (W - L - R);
    let py = |v: f64| H - B - ax.at(v) * (H - T - B);
    for v in ax.ticks() {
        let _ = writeln!(
            s,
            "<text x=\"{:.1}\" y=\"{}\" text-anchor=\"middle\">{}</text>",
            px(v),
            H - B + 16.0,
            fmt_secs(v)
        );
    }
    let _ = writeln!(
        s,
        "<line x1=\"{:.1}\" y1=\"{:.1}\" x2=\"{:.1}\" y2=\"{:.1}\" stroke=\"#999\" \
         stroke-dasharray=\"4 3\"/>",
        px(ax.lo),
        py(ax.lo),
        px(ax.hi),
        py(ax.hi)
    );
    for t in &tasks {
        let (x, y) = (ra[t], rb[t]);
        let color = match (x.status.solved(), y.status.solved()) {
            (true, true) => COLORS[0],
            (false, false) => "#999",
            _ => COLORS[3],
        };
        let _ = writeln!(
            s,
            "<circle class=\"task\" cx=\"{:.1}\" cy=\"{:.1}\" r=\"3.5\" fill=\"{color}\" \
             fill-opacity=\"0.8\"><title>{}: {} / {}</title></circle>",
            px(val(x)),
            py(val(y)),
            esc(t),
            esc(&x.verdict),
            esc(&y.verdict)
        );
    }
    s.push_str("</svg>\n");
    s
}

fn md_to_html_table(md: &str) -> String {
    let mut s = String::new();
    let mut in_table = false;
    for line in md.lines() {
        if let Some(h) = line.strip_prefix("### ") {
            if in_table {
                s.push_str("</table>\n");
                in_table = false;
            }
            let _ = writeln!(s, "<h3>{}</h3>", esc(&h.replace('`', "")));
        } else if line.starts_with('|') {
            let cells: Vec<&str> = line.trim_matches('|').split('|').map(str::trim).collect();
            if cells.iter().all(|c| c.chars().all(|ch| "-:".contains(ch))) {
                continue;
            }
            let tag = if in_table { "td" } else { "th" };
            if !in_table {
                s.push_str("<table>\n");
                in_table = true;
            }
            s.push_str("<tr>");
            for c in cells {
                let c = c.trim_matches('*');
                let _ = write!(s, "<{tag}>{}</{tag}>", esc(c));
            }
            s.push_str("</tr>\n");
        } else if in_table {
            s.push_str("</table>\n");
            in_table = false;
        }
    }
    if in_table {
        s.push_str("</table>\n");
    }
    s
}

/// The HTML report: the tables and the two plots, inline.
pub fn html(summary_md: &str, quantile: &str, scatter: Option<&str>, info: &str) -> String {
    format!(
        "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>slam-bench report</title>\n\
         <style>body{{font-family:sans-serif;margin:2em}}table{{border-collapse:collapse;\
         margin:1em 0}}td,th{{border:1px solid #ccc;padding:3px 8px;text-align:right}}\
         td:first-child,th:first-child{{text-align:left}}</style></head><body>\n\
         <h1>slam-bench report</h1>\n<p>{}</p>\n<p>Rows: <a href=\"results.jsonl\">results.jsonl</a>, \
         <a href=\"results.csv\">results.csv</a>. Scores: +2 correct TRUE, +1 correct FALSE, \
         −16 wrong FALSE, −32 wrong TRUE.</p>\n{}\n<h2>Plots</h2>\n{}\n{}\n</body></html>\n",
        esc(info),
        md_to_html_table(summary_md),
        quantile,
        scatter.unwrap_or("<p>(a scatter plot needs two configurations)</p>")
    )
}

/// Writes `results.csv`, `summary.md`, `quantile.svg`, `scatter.svg` (with two or more
/// configurations: `scatter` or the first two) and `report.html` into `dir`; returns the
/// summary text.
pub fn write_all(
    dir: &Path,
    rows: &[Row],
    configs: &[String],
    limit: f64,
    scatter: Option<(&str, &str)>,
    info: &str,
) -> Result<String, BenchError> {
    let write = |name: &str, text: &str| {
        let p = dir.join(name);
        std::fs::write(&p, text).map_err(|e| BenchError::io(&p, e))
    };
    write("results.csv", &crate::results::csv(rows))?;
    let sum = summary(rows, configs);
    write("summary.md", &sum)?;
    let q = quantile_svg(rows, configs, limit);
    write("quantile.svg", &q)?;
    let pair = scatter.or(match configs {
        [a, b, ..] => Some((a.as_str(), b.as_str())),
        _ => None,
    });
    let sc = pair.map(|(a, b)| scatter_svg(rows, a, b, limit));
    if let Some(sc) = &sc {
        write("scatter.svg", sc)?;
    }
    write("report.html", &html(&sum, &q, sc.as_deref(), info))?;
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
