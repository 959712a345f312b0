//! How the loop runs: [`Config`] (the abstraction's options, limits, the `--keep` directory,
//! the error conventions, the falsifier's options), [`ConstrainMode`], what happens when
//! refinement stops making a difference, and [`Precision`], which C semantics the loop
//! reasons in.

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
    /// Integer or bit-precise reasoning, or integers until a path needs bits. The run starts
    /// bit-precisely with [`Precision::Bv`] or when [`Config::c2bp`]'s `sem.bitvector` is
    /// set; [`Precision::Auto`] only acts on a run that starts in integer mode.
    pub precision: Precision,
    /// How infeasible traces are refined: newton's weakest preconditions (`wp`), also the
    /// invariants of the trace's path program on every trace (`horn`), or those where the
    /// trace unrolls a loop, the predicates diverge, or before constrain at NDF (`auto`).
    pub refine: newton::RefineMode,
    /// The Horn refiner's options (path program variant, resource limit, cap).
    pub horn: newton::horn::HornOptions,
    /// The concrete-execution falsifier's options (`--falsify`, `--falsify-steps`).
    pub falsify: crate::falsify::FalsifyOptions,
    /// Abstract error traces refined per abstraction (at least 1): after newton refutes
    /// bebop's trace with new predicates, up to this many minus one more traces of the same
    /// Boolean program, each found with the edges refuted so far blocked, are refined too
    /// and all their predicates go into the next abstraction (module `cegar`). 1 is the
    /// classic loop, one trace per abstraction.
    pub traces_per_iteration: usize,
    /// Whether that search also stops once its extra checks and refinements have cost more
    /// CPU time than the round's abstraction, check and first refinement (off by default).
    /// On, timing steers the loop: it decides how many of the predicates arrive in this
    /// iteration rather than a later one, never a verdict's grounds. Off, the count alone
    /// bounds the search and the run is deterministic.
    pub traces_time_bound: bool,
    /// Whether a refutation's state test `e == c` (or `!=`), once refutations have tested `e`
    /// against a second constant, also brings `e == c'` for the other constants the function
    /// assigns to `e` or compares it with ([`cir::pred::constant_siblings`]): the states of a
    /// state machine at once instead of one per iteration. Likewise a bound `e <= c` (or
    /// `<`, `>`, `>=`) once a second constant was seen in a bound of `e`: the Horn refiner
    /// finds the bounds of a flag stepped through its values (`blastFlag <= 19`, then `<= 18`,
    /// …) one per iteration. On by default: on the OpenSSL state machines of SV-COMP's ssh set
    /// the states alone turn 14 of 17 safe tasks from timeouts into proofs at 60 s (bebop's
    /// frame layout keeps the states of `s->state`, parameters, next to those of the local
    /// copied from it), and the bounds the other three.
    pub sibling_predicates: bool,
    /// How far the loop may raise the abstraction's precision when refinement stops making a
    /// difference and constrain cannot help (module `cegar`): one literal at a time, the
    /// enforce length first (up to one more than the cube length), then the cube length, each
    /// up to this length. At most the start's cube and enforce lengths: never.
    pub max_cube_len: usize,
}

/// The default of [`Config::max_cube_len`]: the longest cubes the Constrain paper's Fig. 6
/// compares besides unbounded ones. The cube search grows with the number of predicates to
/// the power of the length, so each step costs more than the last, and a run reaches the
/// longer steps only after the shorter ones failed.
pub const DEFAULT_MAX_CUBE_LEN: usize = 5;

/// The default of [`Config::traces_per_iteration`]: 1, the classic loop. More traces per
/// abstraction save iterations, and on the corpus's `locks` and `ntdrivers-simplified` sets 8
/// traces took a third of the iterations and 0.84–0.95 of the CPU time. On the ssh state
/// machines they cost more than they save: with 8, three of the FALSE tasks time out after
/// 14 iterations with 58–60 predicates, where one trace per iteration needs 36–38 iterations
/// and 44–47 predicates (the further traces bring predicates the error path never needs, and
/// every abstraction pays for them), and a fourth meets a path whose replay dereferences
/// null.
pub const DEFAULT_TRACES_PER_ITERATION: usize = 1;

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
            precision: Precision::Auto,
            refine: newton::RefineMode::default(),
            horn: newton::horn::HornOptions::default(),
            falsify: crate::falsify::FalsifyOptions::default(),
            traces_per_iteration: DEFAULT_TRACES_PER_ITERATION,
            traces_time_bound: false,
            sibling_predicates: true,
            max_cube_len: DEFAULT_MAX_CUBE_LEN,
        }
    }
}

impl Config {
    /// The abstraction's options at the start of the run: [`Config::c2bp`], with
    /// `--havoc-all` in the eager mode (§4) and bit-precise with [`Precision::Bv`].
    pub fn c2bp_options(&self) -> c2bp::Options {
        let mut o = c2bp::Options {
            havoc_all: self.c2bp.havoc_all || self.constrain == ConstrainMode::Eager,
            ..self.c2bp.clone()
        };
        o.sem.bitvector |= self.precision == Precision::Bv;
        o
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
    /// No constrain: NDF raises the cube lengths ([`Config::max_cube_len`]), then ends the run
    /// with `UNKNOWN (no difference found)`.
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

/// Which C semantics the loop reasons in (`--precision`).
///
/// Integer mode ([`cir::smt`]'s mathematical integers with range facts) is the fast path, but
/// it leaves some operations uninterpreted within range (`^`, `|`, `&` with a non-constant
/// operand), so a path through them can have a model that the concrete program does not
/// follow. In [`Precision::Auto`] such a path is re-checked bit-precisely; if that decides
/// it, the whole run continues bit-precisely from then on, keeping the predicates and the
/// constraints found so far (a predicate is sound in either mode; a constraint excludes
/// what integer mode proves impossible, which bit-precise mode proves impossible too wherever
/// integer mode over-approximates the C semantics, i.e. everywhere but signed overflow, which
/// is undefined in C: `docs/c-semantics.md`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Precision {
    /// Mathematical integers with ranges throughout.
    Int,
    /// Bit-vectors (machine integers with wrap-around) throughout.
    Bv,
    /// Integers, switching the run to bit-vectors at the first path newton leaves undecided
    /// because of the integer encoding (a model that does not replay) and that the
    /// bit-precise encoding decides, or at the first path newton refutes with predicates
    /// whose queries integer mode leaves undecided (nested wrap-arounds, non-linear terms)
    /// and the bit-precise encoding refutes with predicates it decides.
    #[default]
    Auto,
}

impl Precision {
    /// `int`, `bv`, `auto`.
    pub fn name(self) -> &'static str {
        match self {
            Precision::Int => "int",
            Precision::Bv => "bv",
            Precision::Auto => "auto",
        }
    }
}

impl std::str::FromStr for Precision {
    type Err = String;
    fn from_str(s: &str) -> Result<Precision, String> {
        match s {
            "int" => Ok(Precision::Int),
            "bv" => Ok(Precision::Bv),
            "auto" => Ok(Precision::Auto),
            _ => Err(format!("`{s}`: expected int, bv or auto")),
        }
    }
}
