//! `c2bp`: SLAM's abstractor. From a lowered C program ([`cir`]) and a set of
//! predicates it builds a Boolean program that over-approximates the C program: every concrete
//! execution maps, through the predicates' values, to an execution of the Boolean program.
//!
//! T. Ball, R. Majumdar, T. Millstein, S. K. Rajamani, "Automatic predicate abstraction of C
//! programs", PLDI'01; summarised in the Constrain paper (Ball, Cook, Das, Rajamani, "Refining
//! Approximations in Software Predicate Abstraction", TACAS'04, §2); Cartesian abstraction as
//! in Ball, Podelski and Rajamani, "Boolean and Cartesian Abstraction for Model Checking C
//! Programs", TACAS'01.
//!
//! - [`cubes`]: `F_V(φ)` by cube enumeration (Cartesian abstraction with a cube-length limit),
//!   `G_V(φ)`, inconsistent cubes for `enforce`;
//! - [`relevance`]: which variables a cube may use, field by field (the cells an expression
//!   reads as values or only as the base of an access), for every search and for reuse;
//! - [`signature`]: procedure signatures (formal-parameter and return predicates) and mod sets;
//! - [`emit`]: the translation of one function into one Boolean procedure;
//! - the inverse of the annotations, the C path a trace of the `.bp` follows, is
//!   [`bp_c::trace`] (with the header and the names, the contract c2bp writes by).
//!
//! One Boolean variable per predicate, named by its canonical C text (`{x < y}`): global
//! predicates are global `decl`s, a function's predicates are locals of its procedure (its
//! formal-parameter predicates are the procedure's parameters). The output starts with a header
//! of annotations (`//@@ source=… sha256=… preds=… options=…`), every statement carries its C edge,
//! part and position (`//@ edge=main#7 part=assign line=9:5`), and the whole text is re-parsed
//! and checked by `bp-grammar` before it is returned (an internal error otherwise), then printed
//! canonically. Procedures are abstracted in parallel, in fixed solver groups, group `g` always
//! on lane `g` of the cache's [`cir::smt::Lanes`] (threads that keep their Z3 context from one
//! abstraction to the next); the output does not depend on the schedule or on the number of
//! cores (the prover's answers are deterministic, `unknown` included, thanks to its resource
//! limit; what a lane's context has seen is fixed by the sequence of abstractions).

pub mod assemble;
pub mod cubes;
pub mod emit;
mod exact;
pub mod relevance;
pub mod reuse;
pub mod signature;

use std::fmt::Write as _;

use cir::Program;
use cir::pointsto::PointsTo;
use cir::pred::PredicateSet;
use cir::smt::{Prover, Semantics, Stats};

use bp_c::header::Sources;

use crate::cubes::{Cube, Enumerator, VarSet};
pub use crate::emit::ProcStats;

/// Options of the abstraction.
#[derive(Debug, Clone)]
pub struct Options {
    /// Maximum cube length (`None`: unlimited; default 3).
    pub cube_len: Option<usize>,
    /// Maximum length of the inconsistent cubes excluded by `enforce` (default 2; 0: none).
    pub enforce_len: usize,
    /// Every update and every branch condition `*`, no `enforce` (the Constrain paper's
    /// "eager" configuration).
    pub havoc_all: bool,
    /// The C semantics (data model, bit-vectors).
    pub sem: Semantics,
    /// Z3's deterministic resource limit per query.
    pub rlimit: u32,
    /// Maximum solver queries of one cube search (a count, so deterministic; 5 times as many
    /// for the inconsistent cubes of `enforce`).
    pub max_queries: u64,
    /// How a statement's abstract transition is computed (default Cartesian).
    pub abstraction: Abstraction,
    /// With [`Abstraction::Exact`]: the most clauses of one statement's relation; past it the
    /// statement keeps its Cartesian abstraction conjoined with the clauses found.
    pub max_cubes: usize,
}

/// How c2bp abstracts a statement (`--abstraction`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Abstraction {
    /// Each predicate updated on its own (`choose(F(WP(φ)), F(WP(¬φ)))`) from cubes of at most
    /// the cube length: C2BP's Cartesian abstraction.
    #[default]
    Cartesian,
    /// The exact relation between the predicates before and after the statement, as a
    /// `constrain` clause (the SAT-based abstraction of SATABS, per statement; module
    /// `exact`).
    Exact,
}

impl std::str::FromStr for Abstraction {
    type Err = String;
    fn from_str(s: &str) -> Result<Abstraction, String> {
        match s {
            "cartesian" => Ok(Abstraction::Cartesian),
            "exact" => Ok(Abstraction::Exact),
            _ => Err(format!("`{s}`: expected cartesian or exact")),
        }
    }
}

impl std::fmt::Display for Abstraction {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Abstraction::Cartesian => "cartesian",
            Abstraction::Exact => "exact",
        })
    }
}

/// The default of [`Options::max_cubes`].
pub const DEFAULT_MAX_CUBES: usize = 1000;

impl Default for Options {
    fn default() -> Options {
        Options {
            cube_len: Some(3),
            enforce_len: 2,
            havoc_all: false,
            sem: Semantics::default(),
            rlimit: cir::smt::DEFAULT_RLIMIT,
            max_queries: 20_000,
            abstraction: Abstraction::Cartesian,
            max_cubes: DEFAULT_MAX_CUBES,
        }
    }
}

impl Options {
    /// The options as recorded in the header (`cube-len=3 enforce-len=2 …`).
    pub fn describe(&self) -> String {
        let mut s = format!(
            "cube-len={} enforce-len={} data-model={}",
            CubeLen(self.cube_len),
            self.enforce_len,
            self.sem.data_model
        );
        if self.sem.bitvector {
            s.push_str(" bitvector");
        }
        if self.havoc_all {
            s.push_str(" havoc-all");
        }
        if self.rlimit != cir::smt::DEFAULT_RLIMIT {
            let _ = write!(s, " rlimit={}", self.rlimit);
        }
        // Only the exact mode is named, so Cartesian headers (and goldens) stay as they were;
        // the header is part of the cache's tag, which thus never mixes the two modes.
        if self.abstraction == Abstraction::Exact {
            let _ = write!(s, " abstraction=exact max-cubes={}", self.max_cubes);
        }
        s
    }
}

/// Errors of the abstraction.
#[derive(Debug, thiserror::Error)]
pub enum C2bpError {
    /// The produced program failed to re-parse or check: a bug in c2bp.
    #[error("internal error: the Boolean program c2bp produced is not well-formed:\n{0}")]
    Internal(String),
}

/// The abstraction and what it cost.
#[derive(Debug, Clone)]
pub struct Output {
    /// The Boolean program (canonical text).
    pub text: String,
    /// The Boolean program parsed and checked, its positions those of [`Output::text`].
    pub program: bp_grammar::ast::Program,
    /// Per procedure, in program order.
    pub procs: Vec<ProcStats>,
    /// Prover counters.
    pub prover: Stats,
    /// Wall time of the enforce clauses over global predicates, in seconds.
    pub global_seconds: f64,
    /// The search for the inconsistent cubes over global predicates stopped at its budget.
    pub global_capped: bool,
}

impl Output {
    /// Total predicate updates and how many of them are `*`.
    pub fn updates(&self) -> (u64, u64) {
        self.procs
            .iter()
            .fold((0, 0), |(u, s), p| (u + p.updates, s + p.star_updates))
    }

    /// The `--stats` report (stderr).
    pub fn stats_text(&self) -> String {
        let (u, s) = self.updates();
        let mut out = String::new();
        let _ = writeln!(out, "c2bp statistics");
        let _ = writeln!(out, "  prover: {}", self.prover);
        let share = if u == 0 {
            0.0
        } else {
            100.0 * s as f64 / u as f64
        };
        let _ = writeln!(out, "  updates: {u}, of which `*`: {s} ({share:.1}%)");
        let capped =
            self.procs.iter().map(|p| p.capped).sum::<u64>() + u64::from(self.global_capped);
        let _ = writeln!(out, "  cube searches stopped by the query limit: {capped}");
        let cubes: u64 = self.procs.iter().map(|p| p.cubes).sum();
        let _ = writeln!(out, "  cubes in the transitions: {cubes}");
        let over: u64 = self.procs.iter().map(|p| p.exact_capped).sum();
        if over > 0 {
            let _ = writeln!(
                out,
                "  exact relations over --max-cubes or the query limit (Cartesian kept): {over}"
            );
        }
        let reused: u64 = self.procs.iter().map(|p| p.stmts.reused).sum();
        let translated: u64 = self.procs.iter().map(|p| p.stmts.translated).sum();
        let not_kept: u64 = self.procs.iter().map(|p| p.stmts.not_kept).sum();
        let _ = writeln!(
            out,
            "  edges: {reused} reused, {translated} abstracted ({not_kept} not kept: budget)"
        );
        let memo: u64 = self.procs.iter().map(|p| p.memo_hits).sum();
        let _ = writeln!(out, "  cube searches answered from the memo: {memo}");
        let prior: u64 = self.procs.iter().map(|p| p.prior_hits).sum();
        if prior > 0 {
            let _ = writeln!(
                out,
                "  cube searches answered from earlier abstractions: {prior}"
            );
        }
        let seeded: u64 = self.procs.iter().map(|p| p.seeded).sum();
        if seeded > 0 {
            let _ = writeln!(
                out,
                "  cube searches seeded by earlier abstractions: {seeded}"
            );
        }
        let _ = writeln!(out, "  global enforce: {:.3} s", self.global_seconds);
        let _ = writeln!(
            out,
            "  {:<32} {:>8} {:>8} {:>9} {:>9}",
            "procedure", "updates", "*", "queries", "seconds"
        );
        for p in &self.procs {
            let _ = writeln!(
                out,
                "  {:<32} {:>8} {:>8} {:>9} {:>9.3}",
                p.name, p.updates, p.star_updates, p.queries, p.seconds
            );
        }
        out
    }
}

/// What one abstraction of a program passes to the next (the refinement loop abstracts the
/// same program with growing predicate sets: most work recurs): the points-to facts and mod
/// sets, cube-search answers, the inconsistent cubes of `enforce`, each procedure's text and
/// each edge's statements with the inputs they were made from ([`emit::proc_key`],
/// [`reuse`]), and the parses of procedure heads and statements ([`assemble`]). Each
/// abstraction reads what the earlier ones left and adds its own when it is done, so its
/// output does not depend on the schedule of its parallel procedures. Everything is valid for
/// one program and one set of options, which the cache checks (a cache used otherwise starts
/// empty): the output is the one a fresh abstraction computes, up to Z3 answers that depend on
/// what a solver or its lane's context was asked before (resource-limit `unknown`s, which only
/// add `*`) and searches stopped at their budget (whose edges are not reused). A cache is meant
/// for one thread: lane 0 of its lanes is the calling thread.
#[derive(Debug, Default)]
pub struct Cache {
    options: String,
    /// The points-to facts and the mod sets of the program.
    facts: Option<std::sync::Arc<(PointsTo, Vec<signature::ModSet>)>>,
    memo: std::sync::Arc<cubes::Prior>,
    /// The inconsistent cubes over the global predicates of the last abstraction (by the
    /// texts of their literals), with the texts of those predicates.
    global_enforce: Option<(Vec<String>, Vec<CubeKey>)>,
    /// The local inconsistent cubes of each function in the last abstraction.
    local_enforce: std::collections::HashMap<String, emit::LocalCubes>,
    /// The Boolean procedures of the last abstraction by function: the inputs of their
    /// translation ([`emit::proc_key`]), their text and counters.
    procs: CachedProcs,
    /// The statements of each edge in the last abstraction that translated its function, with
    /// the edge's key ([`reuse`]).
    stmts: reuse::EdgeTexts,
    /// The parts of the Boolean procedures of the last abstraction (each procedure's head and
    /// each statement) by their text, each parsed on its own ([`assemble`]): a part whose
    /// text recurs is not parsed again
    /// ([`bp_grammar::Procedure::shift_spans`] places it); and the procedures of the last
    /// program given back ([`Cache::recycle`]), which recur whole.
    parsed: assemble::Parts,
    /// The threads the solver groups run on, group `g` on lane `g`, each keeping its Z3
    /// context from one abstraction to the next ([`cir::smt::Lanes`]); the global `enforce`
    /// search runs on lane 0 before the groups.
    lanes: GroupLanes,
}

/// One lane per solver group ([`SOLVER_GROUPS`]).
#[derive(Debug)]
struct GroupLanes(cir::smt::Lanes);

impl Default for GroupLanes {
    fn default() -> GroupLanes {
        GroupLanes(cir::smt::Lanes::new(SOLVER_GROUPS))
    }
}

/// A cube by the normalised texts of its literals' expressions ([`VarSet::cube_key`]).
type CubeKey = Vec<(String, bool)>;

/// Boolean procedures by function: the inputs of their translation, their text and counters.
type CachedProcs = std::collections::HashMap<cir::ir::FuncId, CachedProc>;

/// A Boolean procedure in the cache: the inputs of its translation, its text, its counters and
/// the offsets of its statements.
type CachedProc = (String, String, emit::ProcStats, Vec<usize>);

/// Boolean procedures with their functions.
type ProcOuts = Vec<(cir::ir::FuncId, emit::ProcOut)>;

impl Cache {
    /// Answers held.
    pub fn len(&self) -> usize {
        self.memo.len()
    }

    /// Whether the cache is empty.
    pub fn is_empty(&self) -> bool {
        self.memo.is_empty()
    }

    /// Gives back the last abstraction's program once the caller is done with it: `text` and
    /// `program` as [`Output`] held them (the parse of that text; a program edited since
    /// must come with the text it is the parse of, and is then dropped). The next abstraction
    /// takes its unchanged procedures from it instead of assembling them again
    /// ([`assemble`]).
    pub fn recycle(&mut self, text: &str, program: bp_grammar::ast::Program) {
        self.parsed.recycle(text, program);
    }

    /// How many procedures abstractions took whole from programs given back.
    pub fn recycled(&self) -> u64 {
        self.parsed.taken
    }
}

/// The largest number of groups of functions that share a Z3 solver in one abstraction (see
/// [`emit::translate_all`]): enough to keep a few cores busy, few enough that solver creation
/// stays negligible.
const SOLVER_GROUPS: usize = 4;

/// C edges per solver group: a smaller program gets fewer groups (each costs a Z3 solver, and a
/// lane a thread and a context the first time, as much as abstracting the ~100 edges of a locks
/// task's `main` once its answers are cached), at least one.
const GROUP_EDGES: usize = 400;

/// The number of solver groups for translating the functions `fids` of `prog`: fixed by what
/// is translated, not by the thread count.
fn solver_groups(prog: &Program, fids: &[cir::ir::FuncId]) -> usize {
    let edges: usize = fids
        .iter()
        .map(|f| prog.functions[f.0 as usize].edges.len())
        .sum();
    edges.div_ceil(GROUP_EDGES).clamp(1, SOLVER_GROUPS)
}

/// Abstracts `prog` with respect to `preds` (module doc).
pub fn abstract_program(
    prog: &Program,
    preds: &PredicateSet,
    opts: &Options,
    sources: &Sources,
) -> Result<Output, C2bpError> {
    abstract_program_cached(prog, preds, opts, sources, &mut Cache::default())
}

/// [`abstract_program`] with the answers of earlier abstractions of the same program
/// ([`Cache`]); the cache gains this abstraction's answers.
pub fn abstract_program_cached(
    prog: &Program,
    preds: &PredicateSet,
    opts: &Options,
    sources: &Sources,
    cache: &mut Cache,
) -> Result<Output, C2bpError> {
    cache.keep_only_for(cache_tag(prog, opts, sources));
    // The points-to facts and mod sets depend on the program alone.
    let facts = cache
        .facts
        .get_or_insert_with(|| {
            let pts = PointsTo::analyze(prog);
            let mods = signature::mod_sets(prog, &pts);
            std::sync::Arc::new((pts, mods))
        })
        .clone();
    let (pts, mods) = (&facts.0, &facts.1);
    let prover = Prover::new(prog, opts.sem).with_rlimit(opts.rlimit);
    let sigs = signature::signatures(prog, preds);
    let mut globals = VarSet::default();
    for p in &preds.global {
        globals.push(prog, pts, p.name(), &p.expr);
    }
    let t0 = std::time::Instant::now();
    let (global_enforce, global_capped) = if opts.havoc_all {
        (Vec::new(), false)
    } else {
        let earlier = &mut cache.global_enforce;
        cache
            .lanes
            .0
            .first(|| global_enforce_cubes(prog, pts, &prover, opts, &globals, earlier))
    };
    let global_seconds = t0.elapsed().as_secs_f64();
    let shared = emit::Shared {
        prog,
        preds,
        pts,
        prover: &prover,
        opts,
        sigs: &sigs,
        mods,
        globals: &globals,
        global_enforce: &global_enforce,
        prior: cache.memo.clone(),
        local_enforce: &cache.local_enforce,
        stmts: &cache.stmts,
    };
    // A function whose translation inputs did not change since the last abstraction keeps
    // its text; the others are translated.
    let global_key = emit::global_key(&shared);
    let keys: Vec<String> = prog
        .functions
        .iter()
        .map(|f| emit::proc_key(&shared, &global_key, f))
        .collect();
    let (reused, todo) = reuse_unchanged(prog, &keys, &cache.procs);
    let mut done = translate_in_groups(&shared, &todo, &cache.lanes.0);
    for (f, out) in &done {
        cache.procs.insert(
            *f,
            (
                keys[f.0 as usize].clone(),
                out.text.clone(),
                out.stats.clone(),
                out.stmt_starts.clone(),
            ),
        );
    }
    done.extend(reused);
    done.sort_by_key(|(f, _)| *f);
    let fids: Vec<cir::ir::FuncId> = done.iter().map(|(f, _)| *f).collect();
    let mut procs: Vec<emit::ProcOut> = done.into_iter().map(|(_, o)| o).collect();
    drop(shared);
    cache.keep_answers(&mut procs, &fids);
    let (text, head_len, at) = program_text(sources, opts, &globals, &procs);
    let (text, program) = assemble::parse_text(text, head_len, &at, &procs, &mut cache.parsed)?;
    Ok(Output {
        text,
        program,
        procs: procs.into_iter().map(|p| p.stats).collect(),
        prover: prover.stats(),
        global_seconds,
        global_capped,
    })
}

/// What a [`Cache`] is valid for: the options, the source and the shape of every function of
/// the lowered program.
fn cache_tag(prog: &Program, opts: &Options, sources: &Sources) -> String {
    let mut tag = format!(
        "{} max-queries={} source={} {:?}",
        opts.describe(),
        opts.max_queries,
        sources.c_sha256,
        sources.extra
    );
    for f in &prog.functions {
        let _ = write!(tag, " {}:{}:{}", f.name, f.nodes, f.edges.len());
    }
    tag
}

impl Cache {
    /// Empties the cache unless it was made for `tag` ([`cache_tag`]): the cache holds texts
    /// of one program's procedures, so a cache used for another program (another C file, or
    /// the same file lowered differently) or other options starts empty.
    fn keep_only_for(&mut self, tag: String) {
        if self.options != tag {
            *self = Cache {
                options: tag,
                ..Cache::default()
            };
        }
    }

    /// Takes the statements, the local inconsistent cubes and the cube-search answers of this
    /// abstraction's procedures (functions `fids`) into the cache.
    fn keep_answers(&mut self, procs: &mut [emit::ProcOut], fids: &[cir::ir::FuncId]) {
        for (p, f) in procs.iter_mut().zip(fids) {
            if !p.edges.is_empty() {
                self.stmts.insert(*f, std::mem::take(&mut p.edges));
            }
        }
        for p in procs.iter_mut() {
            if let Some(lc) = p.local_enforce.take() {
                self.local_enforce.insert(p.stats.name.clone(), lc);
            }
        }
        let prior = std::sync::Arc::make_mut(&mut self.memo);
        for p in procs.iter_mut() {
            // In key order, so the cache (and which answer seeds a search) is reproducible.
            let mut answers: Vec<_> = std::mem::take(&mut p.memo).into_iter().collect();
            answers.sort_by(|a, b| a.0.cmp(&b.0));
            for (k, v) in answers {
                prior.insert(&p.stats.name, &k, v);
            }
        }
    }
}

/// The inconsistent cubes over the global predicates `globals` (the global `enforce`), and
/// whether their search stopped at its budget. Incremental when the global predicates only
/// grew since the abstraction that left `earlier_cubes`: every new minimal cube contains a
/// new predicate. `earlier_cubes` then holds this search's cubes, if it is complete.
fn global_enforce_cubes(
    prog: &Program,
    pts: &PointsTo,
    prover: &Prover,
    opts: &Options,
    globals: &VarSet,
    earlier_cubes: &mut Option<(Vec<String>, Vec<CubeKey>)>,
) -> (Vec<Cube>, bool) {
    let en = Enumerator {
        pts,
        prog,
        max_len: opts.cube_len,
        max_queries: opts.max_queries,
    };
    let len = opts.enforce_len.max(2);
    let texts: Vec<String> = globals.vars.iter().map(|v| v.text.clone()).collect();
    let earlier = earlier_cubes
        .as_ref()
        .filter(|(old, _)| old.iter().all(|t| globals.find(t).is_some()))
        .and_then(|(old, cubes)| {
            let known = cubes
                .iter()
                .map(|c| globals.cube_of_key(c))
                .collect::<Option<Vec<Cube>>>()?;
            let fresh = (0..texts.len())
                .filter(|&i| !old.contains(&texts[i]))
                .collect();
            Some((known, fresh))
        });
    let (cubes, capped) = cubes::inconsistent_cubes_since(earlier, None, &[], |must, known| {
        prover.with_solver(|cx| en.inconsistent_cubes(cx, globals, must, len, known))
    });
    // Incomplete cubes are no base for an incremental search.
    *earlier_cubes =
        (!capped).then(|| (texts, cubes.iter().map(|c| globals.cube_key(c)).collect()));
    if capped {
        tracing::warn!("the global inconsistent cubes stopped at their query budget");
    }
    (cubes, capped)
}

/// The functions whose translation inputs (`keys`, by function) are those of their text in
/// the cache, with that text and its counters, and the others, to translate.
fn reuse_unchanged(
    prog: &Program,
    keys: &[String],
    cached: &CachedProcs,
) -> (ProcOuts, Vec<cir::ir::FuncId>) {
    let mut reused: ProcOuts = Vec::new();
    let mut todo: Vec<cir::ir::FuncId> = Vec::new();
    for (f, k) in prog.functions.iter().zip(keys) {
        match cached.get(&f.id) {
            Some((old, text, stats, starts)) if old == k => reused.push((
                f.id,
                emit::ProcOut {
                    text: text.clone(),
                    stats: emit::ProcStats {
                        name: stats.name.clone(),
                        updates: stats.updates,
                        star_updates: stats.star_updates,
                        capped: stats.capped,
                        exact_capped: stats.exact_capped,
                        cubes: stats.cubes,
                        reused: true,
                        stmts: reuse::ReuseStats {
                            reused: f.edges.len() as u64,
                            ..reuse::ReuseStats::default()
                        },
                        ..emit::ProcStats::default()
                    },
                    memo: Default::default(),
                    local_enforce: None,
                    edges: Vec::new(),
                    stmt_starts: starts.clone(),
                },
            )),
            _ => todo.push(f.id),
        }
    }
    (reused, todo)
}

/// Translates the functions `todo`: in `solver_groups` fixed groups (interleaved by index),
/// each translated in one solver ([`emit::translate_all`]), group `g` on lane `g`; the groups
/// run in parallel. Fixed, so the output does not depend on the number of cores.
fn translate_in_groups(
    shared: &emit::Shared,
    todo: &[cir::ir::FuncId],
    lanes: &cir::smt::Lanes,
) -> ProcOuts {
    let n_groups = solver_groups(shared.prog, todo);
    let groups: Vec<Vec<cir::ir::FuncId>> = (0..n_groups)
        .map(|g| todo.iter().skip(g).step_by(n_groups).copied().collect())
        .filter(|g: &Vec<cir::ir::FuncId>| !g.is_empty())
        .collect();
    lanes
        .run(groups.len(), |g| emit::translate_all(shared, &groups[g]))
        .into_iter()
        .zip(&groups)
        .flat_map(|(outs, g)| g.iter().copied().zip(outs))
        .collect()
}

/// The text of the Boolean program: the header, the global declarations and the procedures
/// (each after an empty line); with the length of the head and the offset of each procedure.
fn program_text(
    sources: &Sources,
    opts: &Options,
    globals: &VarSet,
    procs: &[emit::ProcOut],
) -> (String, usize, Vec<usize>) {
    let mut text = String::new();
    text.push_str(&bp_c::header::write_header(sources, &opts.describe()));
    if !globals.vars.is_empty() {
        let names: Vec<&str> = globals.vars.iter().map(|v| v.name.as_str()).collect();
        if !text.is_empty() {
            text.push('\n');
        }
        let _ = writeln!(text, "decl {};", names.join(", "));
    }
    let head_len = text.len();
    let mut at = Vec::with_capacity(procs.len());
    for p in procs {
        text.push('\n');
        at.push(text.len());
        text.push_str(&p.text);
    }
    (text, head_len, at)
}

/// A cube-length limit as the command lines take it (`--cube-len K|inf`; `None`: `inf`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CubeLen(pub Option<usize>);

/// `inf` for no bound, else the number: what [`CubeLen::from_str`](std::str::FromStr) reads.
impl std::fmt::Display for CubeLen {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.0 {
            None => f.write_str("inf"),
            Some(k) => write!(f, "{k}"),
        }
    }
}

impl std::str::FromStr for CubeLen {
    type Err = String;
    fn from_str(s: &str) -> Result<CubeLen, String> {
        if s == "inf" {
            return Ok(CubeLen(None));
        }
        match s.parse::<usize>() {
            Ok(0) => Err("the cube length must be at least 1 (or `inf`)".into()),
            Ok(k) => Ok(CubeLen(Some(k))),
            Err(_) => Err(format!("`{s}` is not a number or `inf`")),
        }
    }
}
