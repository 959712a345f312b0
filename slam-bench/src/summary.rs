//! The summary tables of result rows: one per configuration (a line per task set and the
//! total: the Constrain paper's Fig. 4 categories — correct TRUE, correct FALSE, wrong, NDF,
//! timeout/memory, unknown — with errors, the SV-COMP score and CPU time) and one comparing the
//! configurations side by side (Fig. 4's layout, with Fig. 5's refinement statistics).
//!
//! A table is built once, as [`Table`], and rendered as Markdown (`summary.md`, stdout) or as
//! HTML (the report), so both show the same cells.

use std::collections::BTreeMap;
use std::fmt::Write as _;

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
    /// CPU seconds in c2bp (the abstraction), of the runs that recorded their phases.
    pub c2bp_cpu: f64,
    /// CPU seconds of the runs that recorded their phases (the share's denominator).
    pub cpu_with_phases: f64,
    /// Cubes of each run's last abstraction.
    pub cubes: u64,
    /// Capped statements of each run's last abstraction.
    pub capped_statements: u64,
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
        if let Some(p) = &r.phases {
            self.c2bp_cpu += p.c2bp_cpu_s;
            self.cpu_with_phases += r.end.cpu_seconds;
        }
        self.cubes += r.cubes.unwrap_or(0);
        self.capped_statements += r.capped_statements.unwrap_or(0);
    }

    /// c2bp's CPU seconds and their share of the CPU time of the runs that recorded phases
    /// (`12.3 (41%)`).
    pub fn abstraction_text(&self) -> String {
        if self.cpu_with_phases <= 0.0 {
            return format!("{:.1}", self.c2bp_cpu);
        }
        let share = 100.0 * self.c2bp_cpu / self.cpu_with_phases;
        format!("{:.1} ({share:.0}%)", self.c2bp_cpu)
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

/// A table of the summary: its first column is left-aligned (names), the others right-aligned
/// (numbers).
#[derive(Debug, Clone, PartialEq)]
pub struct Table {
    /// The heading.
    pub title: String,
    /// A name set in code after the heading (a configuration's).
    pub code: Option<String>,
    /// Column headings.
    pub header: Vec<String>,
    /// The cells, a row at a time.
    pub rows: Vec<Vec<String>>,
    /// The last row is a total (set in bold).
    pub total: bool,
}

impl Table {
    /// The table as Markdown, readable as plain text.
    pub fn markdown(&self) -> String {
        let mut s = format!("### {}", self.title);
        if let Some(c) = &self.code {
            let _ = write!(s, " `{c}`");
        }
        s.push_str("\n\n|");
        for h in &self.header {
            let _ = write!(s, " {h} |");
        }
        s.push_str("\n|---|");
        s.push_str(&"---:|".repeat(self.header.len().saturating_sub(1)));
        s.push('\n');
        for (i, row) in self.rows.iter().enumerate() {
            s.push('|');
            for (j, cell) in row.iter().enumerate() {
                if j == 0 && self.total && i + 1 == self.rows.len() {
                    let _ = write!(s, " **{cell}** |");
                } else {
                    let _ = write!(s, " {cell} |");
                }
            }
            s.push('\n');
        }
        s
    }
}

/// One configuration's table: a line per task set and the total.
pub fn config_table(rows: &[Row], config: &str) -> Table {
    let mut sets: BTreeMap<&str, Tally> = BTreeMap::new();
    let mut total = Tally::default();
    for r in rows.iter().filter(|r| r.config == config) {
        sets.entry(&r.set).or_default().add(r);
        total.add(r);
    }
    let mut header = vec!["task set".to_string(), "tasks".to_string()];
    header.extend(COLUMN_NAMES.iter().map(|c| c.to_string()));
    header.extend(["score", "CPU s (all)", "CPU s (correct)"].map(String::from));
    let line = |name: &str, t: &Tally| {
        let mut v = vec![name.to_string(), t.runs.to_string()];
        v.extend(t.columns().iter().map(|c| c.to_string()));
        v.push(t.score.to_string());
        v.push(format!("{:.1}", t.cpu));
        v.push(format!("{:.1}", t.cpu_solved));
        v
    };
    let mut table_rows: Vec<Vec<String>> = sets.iter().map(|(n, t)| line(n, t)).collect();
    table_rows.push(line("total", &total));
    Table {
        title: "Configuration".into(),
        code: Some(config.to_string()),
        header,
        rows: table_rows,
        total: true,
    }
}

/// The configurations side by side (Fig. 4's layout, and Fig. 5's statistics).
pub fn comparison_table(rows: &[Row], configs: &[String]) -> Table {
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
    let mut header = vec![String::new()];
    header.extend(configs.iter().cloned());
    let mut table_rows = Vec::new();
    let mut line = |name: &str, f: &dyn Fn(&Tally) -> String| {
        let mut v = vec![name.to_string()];
        v.extend(tallies.iter().map(f));
        table_rows.push(v);
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
    line("c2bp CPU s (share)", &|t| t.abstraction_text());
    line("cubes (last abstractions)", &|t| t.cubes.to_string());
    line("capped statements (last abstractions)", &|t| {
        t.capped_statements.to_string()
    });
    Table {
        title: "All configurations".into(),
        code: None,
        header,
        rows: table_rows,
        total: false,
    }
}

/// The tables of the summary: the comparison, then one per configuration.
pub fn tables(rows: &[Row], configs: &[String]) -> Vec<Table> {
    let mut v = vec![comparison_table(rows, configs)];
    v.extend(configs.iter().map(|c| config_table(rows, c)));
    v
}

/// The whole text summary, as Markdown.
pub fn markdown(tables: &[Table]) -> String {
    tables
        .iter()
        .map(Table::markdown)
        .collect::<Vec<_>>()
        .join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::results::test_row;
    use crate::stats::Phases;

    fn cell(t: &Table, name: &str, column: usize) -> String {
        let row = t.rows.iter().find(|r| r[0] == name);
        row.unwrap_or_else(|| panic!("no line `{name}` in {:?}", t.rows))[column].clone()
    }

    #[test]
    fn the_comparison_reports_the_abstractions_cost_and_size() {
        let measured = |task: &str, cubes: u64, capped: u64| {
            let mut r = test_row(task, "exact");
            r.end.cpu_seconds = 4.0;
            r.phases = Some(Phases {
                c2bp_cpu_s: 1.0,
                ..Phases::default()
            });
            r.cubes = Some(cubes);
            r.capped_statements = Some(capped);
            r
        };
        let mut bare = test_row("s/a.c", "plain");
        bare.end.cpu_seconds = 3.0;
        let rows = vec![measured("s/a.c", 5, 1), measured("s/b.c", 7, 0), bare];
        let t = comparison_table(&rows, &["exact".into(), "plain".into()]);
        assert_eq!(cell(&t, "c2bp CPU s (share)", 1), "2.0 (25%)");
        assert_eq!(cell(&t, "cubes (last abstractions)", 1), "12");
        assert_eq!(cell(&t, "capped statements (last abstractions)", 1), "1");
        // A run without statistics adds nothing, and no share is made up for it.
        assert_eq!(cell(&t, "c2bp CPU s (share)", 2), "0.0");
        assert_eq!(cell(&t, "cubes (last abstractions)", 2), "0");
    }
}
