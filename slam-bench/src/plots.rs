//! The two plots of a benchmark, as SVG drawn by `plotters`: the quantile plot (per
//! configuration, the CPU time of its n-th fastest correct run, as in SV-COMP's reports) and
//! the scatter plot of two configurations task by task, whose markers say how the pair of runs
//! ended — both correct, an UNKNOWN, a timeout, a wrong verdict or an error — so that a run cut
//! by the limit is not mistaken for one that gave up.

use std::collections::BTreeMap;

use plotters::coord::Shift;
use plotters::element::{Drawable, PointCollection};
use plotters::prelude::*;
use plotters_backend::{BackendCoord, DrawingErrorKind};

use crate::BenchError;
use crate::results::{Row, Status};

const SIZE: (u32, u32) = (640, 420);

const COLORS: [RGBColor; 8] = [
    RGBColor(0x1f, 0x77, 0xb4),
    RGBColor(0xd6, 0x27, 0x28),
    RGBColor(0x2c, 0xa0, 0x2c),
    RGBColor(0xff, 0x7f, 0x0e),
    RGBColor(0x94, 0x67, 0xbd),
    RGBColor(0x8c, 0x56, 0x4b),
    RGBColor(0xe3, 0x77, 0xc2),
    RGBColor(0x17, 0xbe, 0xcf),
];

/// The smallest time a log axis shows (a run that took no measurable time sits there).
const MIN_SECONDS: f64 = 1e-3;

/// A log-scale range of seconds from powers of ten around `lo` and `hi`.
fn log_range(lo: f64, hi: f64) -> std::ops::Range<f64> {
    let lo = 10f64.powf(lo.max(MIN_SECONDS).log10().floor());
    let hi = 10f64.powf(hi.max(lo * 10.0).log10().ceil());
    lo..hi
}

fn fmt_secs(v: f64) -> String {
    if v >= 1.0 {
        format!("{v:.0}")
    } else {
        format!("{v}")
    }
}

fn plot_error(what: &str, e: impl std::fmt::Display) -> BenchError {
    BenchError::Io(what.into(), std::io::Error::other(e.to_string()))
}

/// Draws with `f` on an SVG area and returns the document.
fn svg(
    what: &str,
    f: impl FnOnce(&DrawingArea<SVGBackend<'_>, Shift>) -> Result<(), Box<dyn std::error::Error>>,
) -> Result<String, BenchError> {
    let mut out = String::new();
    {
        let root = SVGBackend::with_string(&mut out, SIZE).into_drawing_area();
        root.fill(&WHITE).map_err(|e| plot_error(what, e))?;
        f(&root).map_err(|e| plot_error(what, e))?;
        root.present().map_err(|e| plot_error(what, e))?;
    }
    Ok(out)
}

/// The legend of the series, top left, over a white background.
fn legend<'a, DB: DrawingBackend + 'a, CT: CoordTranslate>(
    chart: &mut ChartContext<'a, DB, CT>,
) -> Result<(), Box<dyn std::error::Error>>
where
    DB::ErrorType: 'static,
{
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::UpperLeft)
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK)
        .draw()?;
    Ok(())
}

/// Each configuration's correct runs, CPU seconds sorted.
pub fn quantiles(rows: &[Row], configs: &[String]) -> Vec<Vec<f64>> {
    configs
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
        .collect()
}

/// Quantile plot: for each configuration, the CPU time of its n-th fastest correct run; the
/// legend gives each configuration's number of correct runs.
pub fn quantile_svg(rows: &[Row], configs: &[String], limit: f64) -> Result<String, BenchError> {
    let series = quantiles(rows, configs);
    let n_max = series.iter().map(Vec::len).max().unwrap_or(0).max(1);
    let t_min = series.iter().flatten().copied().fold(limit, f64::min);
    svg("quantile.svg", |root| {
        let mut chart = ChartBuilder::on(root)
            .caption(
                "Quantile plot: CPU time of the n-th fastest correct result",
                ("sans-serif", 16),
            )
            .margin(12)
            .x_label_area_size(40)
            .y_label_area_size(60)
            .build_cartesian_2d(
                0f64..n_max as f64 + 0.5,
                log_range(t_min, limit).log_scale(),
            )?;
        chart
            .configure_mesh()
            .x_desc("n-th fastest correct result")
            .y_desc("CPU seconds (log scale)")
            .x_label_formatter(&|v| format!("{v:.0}"))
            .y_label_formatter(&|v| fmt_secs(*v))
            .draw()?;
        for (k, (c, v)) in configs.iter().zip(&series).enumerate() {
            let color = COLORS[k % COLORS.len()];
            let points = v
                .iter()
                .enumerate()
                .map(|(i, &t)| ((i + 1) as f64, t.max(MIN_SECONDS)));
            chart
                .draw_series(LineSeries::new(points.clone(), color.stroke_width(2)))?
                .label(format!("{c} ({} correct)", v.len()))
                .legend(move |(x, y)| {
                    PathElement::new([(x, y), (x + 20, y)], color.stroke_width(2))
                });
            chart.draw_series(points.map(|p| Circle::new(p, 2, color.filled())))?;
        }
        legend(&mut chart)
    })
}

/// How a pair of runs of one task ended, as the scatter plot marks it: the worse of the two
/// runs, in this order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum PairKind {
    /// Both correct.
    Correct,
    /// An UNKNOWN (NDF included), and no timeout.
    Unknown,
    /// A timeout (CPU or wall-clock) or out of memory.
    Timeout,
    /// A wrong verdict, an error, or a verdict on a task without an expected one.
    Other,
}

impl PairKind {
    /// What a single run counts as.
    pub fn of(s: Status) -> PairKind {
        match s {
            Status::CorrectTrue | Status::CorrectFalse => PairKind::Correct,
            Status::Ndf | Status::Unknown => PairKind::Unknown,
            Status::Timeout | Status::Memory => PairKind::Timeout,
            Status::WrongTrue | Status::WrongFalse | Status::Error | Status::Unchecked => {
                PairKind::Other
            }
        }
    }

    /// All kinds, in legend order.
    pub const ALL: [PairKind; 4] = [
        PairKind::Correct,
        PairKind::Unknown,
        PairKind::Timeout,
        PairKind::Other,
    ];

    /// The legend's words.
    pub fn label(self) -> &'static str {
        match self {
            PairKind::Correct => "both correct",
            PairKind::Unknown => "an UNKNOWN (NDF included)",
            PairKind::Timeout => "a timeout or out of memory",
            PairKind::Other => "a wrong verdict or an error",
        }
    }
}

/// One task in the scatter plot: the CPU seconds of its run under each configuration.
#[derive(Debug, Clone, PartialEq)]
pub struct Point {
    /// The task.
    pub task: String,
    /// CPU seconds under the first configuration.
    pub x: f64,
    /// CPU seconds under the second.
    pub y: f64,
    /// How the pair ended.
    pub kind: PairKind,
}

/// The tasks both configurations ran, in task order, each at the CPU time its runs took (a
/// timeout at its own, at or near the limit).
pub fn scatter_points(rows: &[Row], a: &str, b: &str) -> Vec<Point> {
    let of = |c: &str| -> BTreeMap<&str, &Row> {
        rows.iter()
            .filter(|r| r.config == c)
            .map(|r| (r.task.as_str(), r))
            .collect()
    };
    let (ra, rb) = (of(a), of(b));
    ra.iter()
        .filter_map(|(t, x)| {
            let y = rb.get(t)?;
            Some(Point {
                task: t.to_string(),
                x: x.end.cpu_seconds,
                y: y.end.cpu_seconds,
                kind: PairKind::of(x.status).max(PairKind::of(y.status)),
            })
        })
        .collect()
}

/// Scatter plot: CPU time of configuration `a` against `b`, task by task, one marker per kind
/// of outcome ([`PairKind`]: circles both correct, triangles an UNKNOWN, crosses a timeout,
/// squares a wrong verdict or an error), the diagonal and the CPU limit dashed.
pub fn scatter_svg(rows: &[Row], a: &str, b: &str, limit: f64) -> Result<String, BenchError> {
    let points = scatter_points(rows, a, b);
    let t_min = points.iter().flat_map(|p| [p.x, p.y]).fold(limit, f64::min);
    let t_max = points.iter().flat_map(|p| [p.x, p.y]).fold(limit, f64::max);
    let range = log_range(t_min, t_max);
    let (lo, hi) = (range.start, range.end);
    let clamp = |v: f64| v.clamp(lo, hi);
    svg("scatter.svg", |root| {
        let mut chart = ChartBuilder::on(root)
            .caption(
                format!("CPU seconds per task: {a} vs {b}"),
                ("sans-serif", 16),
            )
            .margin(12)
            .x_label_area_size(40)
            .y_label_area_size(60)
            .build_cartesian_2d(range.clone().log_scale(), range.clone().log_scale())?;
        chart
            .configure_mesh()
            .x_desc(format!("{a} (CPU s, log scale)"))
            .y_desc(format!("{b} (CPU s)"))
            .x_label_formatter(&|v| fmt_secs(*v))
            .y_label_formatter(&|v| fmt_secs(*v))
            .draw()?;
        let grey = RGBColor(0x99, 0x99, 0x99);
        chart.draw_series(DashedLineSeries::new(
            [(lo, lo), (hi, hi)],
            4,
            3,
            grey.into(),
        ))?;
        let red = COLORS[1];
        chart
            .draw_series(DashedLineSeries::new(
                [(limit, lo), (limit, hi)],
                4,
                3,
                red.mix(0.5).into(),
            ))?
            .label(format!("CPU limit ({} s)", fmt_secs(limit)))
            .legend(move |(x, y)| PathElement::new([(x, y), (x + 16, y)], red.mix(0.5)));
        chart.draw_series(DashedLineSeries::new(
            [(lo, limit), (hi, limit)],
            4,
            3,
            red.mix(0.5).into(),
        ))?;
        for kind in PairKind::ALL {
            let mine: Vec<(f64, f64)> = points
                .iter()
                .filter(|p| p.kind == kind)
                .map(|p| (clamp(p.x), clamp(p.y)))
                .collect();
            let label = format!("{} ({})", kind.label(), mine.len());
            let style = marker_style(kind);
            chart
                .draw_series(mine.iter().map(|&at| Marker { at, kind, style }))?
                .label(label)
                .legend(move |(x, y)| Marker {
                    at: (x + 8, y),
                    kind,
                    style,
                });
        }
        legend(&mut chart)
    })
}

fn marker_style(kind: PairKind) -> ShapeStyle {
    match kind {
        PairKind::Correct => COLORS[0].mix(0.8).filled(),
        PairKind::Unknown => COLORS[3].filled(),
        PairKind::Timeout => COLORS[1].stroke_width(2),
        PairKind::Other => BLACK.filled(),
    }
}

/// The marker of a kind at a point (data coordinates in the plot, pixels in the legend):
/// a filled circle, a filled triangle, a cross, a filled square.
struct Marker<C> {
    at: C,
    kind: PairKind,
    style: ShapeStyle,
}

impl<'a, C> PointCollection<'a, C> for &'a Marker<C> {
    type Point = &'a C;
    type IntoIter = std::iter::Once<&'a C>;
    fn point_iter(self) -> Self::IntoIter {
        std::iter::once(&self.at)
    }
}

impl<C, DB: DrawingBackend> Drawable<DB> for Marker<C> {
    fn draw<I: Iterator<Item = BackendCoord>>(
        &self,
        mut points: I,
        backend: &mut DB,
        _: (u32, u32),
    ) -> Result<(), DrawingErrorKind<DB::ErrorType>> {
        let Some((x, y)) = points.next() else {
            return Ok(());
        };
        let st = &self.style;
        match self.kind {
            PairKind::Correct => backend.draw_circle((x, y), 3, st, true),
            PairKind::Unknown => {
                backend.fill_polygon([(x, y - 5), (x - 4, y + 3), (x + 4, y + 3)], st)
            }
            PairKind::Timeout => {
                backend.draw_line((x - 4, y - 4), (x + 4, y + 4), st)?;
                backend.draw_line((x - 4, y + 4), (x + 4, y - 4), st)
            }
            PairKind::Other => backend.draw_rect((x - 3, y - 3), (x + 3, y + 3), st, true),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::results::End;

    fn row(task: &str, config: &str, status: Status, cpu: f64) -> Row {
        Row {
            status,
            end: End {
                cpu_seconds: cpu,
                ..End::default()
            },
            ..crate::results::test_row(task, config)
        }
    }

    #[test]
    fn a_pair_counts_as_its_worse_run() {
        let rows = vec![
            row("s/a", "A", Status::CorrectTrue, 0.5),
            row("s/a", "B", Status::CorrectTrue, 0.25),
            row("s/b", "A", Status::Unknown, 1.0),
            row("s/b", "B", Status::CorrectTrue, 2.0),
            row("s/c", "A", Status::Ndf, 1.0),
            row("s/c", "B", Status::Timeout, 3.0),
            row("s/d", "A", Status::Memory, 1.0),
            row("s/d", "B", Status::Error, 0.0),
            row("s/e", "A", Status::CorrectFalse, 1.0),
        ];
        let kinds: Vec<(String, PairKind, f64, f64)> = scatter_points(&rows, "A", "B")
            .into_iter()
            .map(|p| (p.task, p.kind, p.x, p.y))
            .collect();
        assert_eq!(
            kinds,
            [
                ("s/a".to_string(), PairKind::Correct, 0.5, 0.25),
                ("s/b".to_string(), PairKind::Unknown, 1.0, 2.0),
                ("s/c".to_string(), PairKind::Timeout, 1.0, 3.0),
                ("s/d".to_string(), PairKind::Other, 1.0, 0.0),
            ]
        );
        let svg = scatter_svg(&rows, "A", "B", 3.0).unwrap();
        assert!(svg.starts_with("<svg") && svg.trim_end().ends_with("</svg>"));
        for label in [
            "both correct (1)",
            "an UNKNOWN (NDF included) (1)",
            "a timeout or out of memory (1)",
            "a wrong verdict or an error (1)",
            "CPU limit (3 s)",
        ] {
            assert!(svg.contains(label), "{label} in\n{svg}");
        }
    }

    #[test]
    fn quantiles_are_the_sorted_correct_times() {
        let rows = vec![
            row("s/a", "A", Status::CorrectTrue, 2.0),
            row("s/b", "A", Status::CorrectFalse, 0.5),
            row("s/c", "A", Status::Timeout, 3.0),
            row("s/a", "B", Status::Unknown, 1.0),
        ];
        let cs = ["A".to_string(), "B".to_string()];
        assert_eq!(quantiles(&rows, &cs), [vec![0.5, 2.0], vec![]]);
        let svg = quantile_svg(&rows, &cs, 3.0).unwrap();
        assert!(svg.contains("A (2 correct)") && svg.contains("B (0 correct)"));
    }
}
