//! How the loop runs: [`Config`] (the abstraction's options, limits, the `--keep` directory,
//! the error conventions) and [`ConstrainMode`], what happens when refinement stops making a
//! difference.

use std::path::PathBuf;
use std::time::Instant;

/// How the loop runs.
#[derive(Debug, Clone)]
pub struct Config {
    /// The abstraction's options (cube length, semantics, …).
    pub c2bp: c2bp::Options,
    /// Iterations before giving up with `UNKNOWN (iterations)`.
    pub max_iterations: usize,
    /// Write every iteration's files here.
    pub keep: Option<PathBuf>,
    /// Stop with `UNKNOWN (timeout)` once this instant has passed (checked between stages; the
    /// `slam-run` command also enforces it from outside).
    pub deadline: Option<Instant>,
    /// The error conventions (recorded in the `.bp` header).
    pub settings: bp_c::header::HeaderSettings,
    /// What happens at NDF (the Constrain paper, §3.3 and §4).
    pub constrain: ConstrainMode,
    /// Start from the conditions that guard the error as well
    /// ([`cir::pred::guard_predicates`]).
    pub guard_preds: bool,
    /// How infeasible traces are refined: newton's weakest preconditions (`wp`), also the
    /// invariants of the trace's path program on every trace (`horn`), or those where the
    /// trace unrolls a loop, the predicates diverge, or before constrain at NDF (`auto`).
    pub refine: newton::RefineMode,
    /// The Horn refiner's options (path program variant, resource limit, cap).
    pub horn: newton::horn::HornOptions,
}

impl Default for Config {
    fn default() -> Config {
        Config {
            c2bp: c2bp::Options::default(),
            max_iterations: 200,
            keep: None,
            deadline: None,
            settings: bp_c::header::HeaderSettings::default(),
            constrain: ConstrainMode::Lazy,
            guard_preds: true,
            refine: newton::RefineMode::default(),
            horn: newton::horn::HornOptions::default(),
        }
    }
}

impl Config {
    /// The abstraction's options: [`Config::c2bp`], with `--havoc-all` in the eager mode (§4).
    pub fn c2bp_options(&self) -> c2bp::Options {
        c2bp::Options {
            havoc_all: self.c2bp.havoc_all || self.constrain == ConstrainMode::Eager,
            ..self.c2bp.clone()
        }
    }

    /// Whether [`Config::deadline`] has passed.
    pub(crate) fn timed_out(&self) -> bool {
        self.deadline.is_some_and(|d| Instant::now() >= d)
    }
}

/// What the loop does when refinement stops making a difference (NDF): the Constrain paper's
/// configurations (§3.3, §4).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ConstrainMode {
    /// NDF ends the run: `UNKNOWN (no difference found)`.
    Off,
    /// At NDF, alternate `constrain` (at most 5 constraints per pass) and `bebop`, at most 4
    /// times, before asking `newton` again (§3.3).
    #[default]
    Lazy,
    /// §4's configuration: the abstraction with `--havoc-all`, and at NDF up to 200
    /// constraints per pass and 200 alternations.
    Eager,
}

impl ConstrainMode {
    /// Constraints per pass and alternations before giving up.
    pub fn limits(self) -> (usize, usize) {
        match self {
            ConstrainMode::Off => (0, 0),
            ConstrainMode::Lazy => (5, 4),
            ConstrainMode::Eager => (200, 200),
        }
    }
}

impl std::str::FromStr for ConstrainMode {
    type Err = String;
    fn from_str(s: &str) -> Result<ConstrainMode, String> {
        match s {
            "off" => Ok(ConstrainMode::Off),
            "lazy" => Ok(ConstrainMode::Lazy),
            "eager" => Ok(ConstrainMode::Eager),
            _ => Err(format!("`{s}`: expected off, lazy or eager")),
        }
    }
}
