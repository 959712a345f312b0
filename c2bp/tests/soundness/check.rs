//! The lockstep check of soundness by execution: a concrete run of the C program (by
//! `cir::interp`) must map, through the predicates' values, to a run of the Boolean program
//! c2bp produced (by the reference interpreter of `bp-testkit`, `enforce` in force).
//!
//! Checkpoints are C edges: every statement c2bp writes carries `edge=f#k`, and the first
//! statement of an edge's block is where the Boolean program is when the C program is about
//! to take that edge. The check keeps the set of Boolean configurations (stacks of frames)
//! consistent with the concrete run so far. Before each concrete edge it explores Boolean steps
//! from the configurations at the previous checkpoint — through the previous edge's block, the
//! glue between blocks (branch `goto`s, `return`s, the initialisation of globals) and calls and
//! returns — up to the first statement of the next edge's block, and keeps the configurations
//! whose predicate variables have the values the predicates have in the concrete state (a
//! predicate the interpreter cannot evaluate, e.g. `*p == 0` with `p` null, and every
//! non-predicate variable — temporaries, return predicates — may have either value). An empty
//! set means the abstraction has no run for a concrete run: the abstraction is unsound.

use std::collections::{BTreeMap, HashMap, HashSet};

use bp_grammar::ast::{Program as BpProgram, StmtId, StmtKind};
use bp_grammar::trace::Valuation;
use bp_testkit::prng::SplitMix64;
use bp_testkit::reference::{Loc, Machine, RefProperty, Successor, possible_values};
use cir::interp::{End, Event, Fault, Interp, Oracle};
use cir::ir::{EdgeId, Expr, Program};
use cir::pred::PredicateSet;

/// Random choices favouring the values where programs change behaviour: bounds, zero, ±1,
/// small numbers; sometimes anything in range. (Also used by constrain's soundness test, which
/// includes this file.)
#[allow(dead_code)] // not used by newton's progress test, which includes this file
pub struct Random(pub SplitMix64);

impl Oracle for Random {
    fn value(&mut self, lo: i128, hi: i128) -> i128 {
        let r = &mut self.0;
        let small = |r: &mut SplitMix64| r.below(11) as i128 - 5;
        let any = |r: &mut SplitMix64| {
            let span = (hi - lo) as u128 + 1;
            lo + (u128::from(r.next_u64()) % span) as i128
        };
        let v = if lo < 0 {
            // Signed: extremes rarely, since most arithmetic on them overflows (undefined
            // behaviour ends the run).
            match r.below(20) {
                0 => lo,
                1 => hi,
                2 => any(r),
                3..=5 => r.below(200) as i128 - 100,
                _ => small(r),
            }
        } else {
            match r.below(10) {
                0 => lo,
                1 => hi,
                2 => 0,
                3..=6 => small(r),
                7 => lo + r.below(3) as i128,
                8 => hi - r.below(3) as i128,
                _ => any(r),
            }
        };
        v.clamp(lo, hi)
    }

    fn choose(&mut self, n: usize) -> usize {
        self.0.below(n)
    }
}

/// Deepest call stack checked (deeper runs stop as [`Verdict::Budget`]: the states of the
/// caller frames multiply).
const MAX_DEPTH: usize = 16;

/// Most Boolean configurations kept at a checkpoint (beyond: [`Verdict::Budget`]); the
/// environment's `CHECK_MAX_CONFIGS` raises it (to decide a run over budget, by hand).
fn max_configs() -> usize {
    std::env::var("CHECK_MAX_CONFIGS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(2_000)
}

/// One frame of a Boolean configuration.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct Frame {
    proc: String,
    loc: Loc,
    state: Valuation,
}

/// A Boolean configuration: the call stack, innermost last (each caller frame is at its call
/// statement).
type Config = Vec<Frame>;

/// Where the next checkpoint is.
enum Target {
    /// The first statement of an edge's block, at a stack depth, with predicate values.
    Block {
        proc: String,
        stmt: StmtId,
        depth: usize,
        known: BTreeMap<String, bool>,
    },
    /// A failing assertion (the error) inside the current block.
    Error,
    /// `main` returns.
    Exit,
}

/// How a run's check ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    /// The whole run (to its end, or to where it became infeasible) has a Boolean run.
    Covered {
        /// Concrete edges checked.
        steps: usize,
        /// The run reached the error.
        error: bool,
    },
    /// The run stopped on undefined behaviour or an unmodelled construct after `steps` edges
    /// (the prefix is covered).
    Stopped { steps: usize, fault: Fault },
    /// The step, depth or configuration budget ran out (the prefix is covered).
    Budget { steps: usize },
    /// No Boolean run matches: the abstraction is unsound.
    Unsound(String),
}

/// The checker of one (C program, predicates, Boolean program) triple.
pub struct Checker<'a> {
    prog: &'a Program,
    machine: Machine<'a>,
    /// Per C function: its predicates in scope (Boolean name, expression), without return
    /// predicates.
    preds: HashMap<String, Vec<(String, Expr)>>,
    /// Per (procedure, edge name): the first statement of the edge's block.
    entries: HashMap<(String, String), StmtId>,
    /// Per procedure: every block entry.
    entry_set: HashSet<(String, StmtId)>,
    /// The Boolean program's global variables.
    globals: Vec<String>,
}

impl<'a> Checker<'a> {
    /// Prepares the check.
    /// Prepares the check; `Err` when the reference interpreter refuses the Boolean program
    /// (more than 64 variables in a scope).
    pub fn new(
        prog: &'a Program,
        preds: &PredicateSet,
        bp: &'a BpProgram,
    ) -> Result<Checker<'a>, String> {
        let machine = Machine::new(bp).map_err(|e| e.to_string())?;
        let mut entries = HashMap::new();
        let mut entry_set = HashSet::new();
        for p in &bp.procs {
            for (id, s) in p.stmts_preorder() {
                if let Some(e) = s.annotations.get("edge") {
                    let key = (p.name.name.clone(), e.to_string());
                    if let std::collections::hash_map::Entry::Vacant(v) = entries.entry(key) {
                        v.insert(id);
                        entry_set.insert((p.name.name.clone(), id));
                    }
                }
            }
        }
        let mut by_fn = HashMap::new();
        for f in &prog.functions {
            let list = preds
                .in_scope(&f.name)
                .filter(|p| !p.is_return_predicate())
                .map(|p| (p.name(), p.expr.clone()))
                .collect();
            by_fn.insert(f.name.clone(), list);
        }
        Ok(Checker {
            prog,
            machine,
            preds: by_fn,
            entries,
            entry_set,
            globals: bp
                .globals
                .iter()
                .flat_map(|d| d.vars.iter().map(|n| n.name.clone()))
                .collect(),
        })
    }

    /// Checks one concrete run, its choices made by `oracle`, for at most `budget` edges.
    pub fn check_run(&self, oracle: &mut dyn Oracle, budget: usize) -> Verdict {
        let mut it = match Interp::new(self.prog, oracle) {
            Ok(it) => it,
            Err(fault) => return Verdict::Stopped { steps: 0, fault },
        };
        let main_known = self.known(&it, "main");
        let entry = self.machine.entry("main").expect("a main procedure");
        let mut configs: Vec<Config> = self
            .entry_states("main", &BTreeMap::new(), &main_known)
            .into_iter()
            .map(|state| {
                vec![Frame {
                    proc: "main".to_string(),
                    loc: entry,
                    state,
                }]
            })
            .collect();
        let mut at_checkpoint = false;
        let mut steps = 0;
        while steps < budget {
            let Some((fid, _)) = it.location() else {
                break;
            };
            if it.depth() > MAX_DEPTH || configs.len() > max_configs() {
                break;
            }
            let fname = self.prog.functions[fid.0 as usize].name.clone();
            let known = self.known(&it, &fname);
            let depth = it.depth();
            let event = match it.step(oracle) {
                Ok(e) => e,
                Err(fault) => return Verdict::Stopped { steps, fault },
            };
            let (edge, end) = match &event {
                Event::Edge(e) | Event::Call(e, _) => (Some(*e), None),
                Event::Return(_) => (None, None),
                Event::End(End::Error(e)) | Event::End(End::Halt(e)) => {
                    (Some(*e), Some(event.clone()))
                }
                Event::End(End::Exit) => (None, Some(event.clone())),
                Event::End(End::Blocked) => {
                    return Verdict::Covered {
                        steps,
                        error: false,
                    };
                }
            };
            if let Some(e) = edge {
                steps += 1;
                if let Some(&stmt) = self.entries.get(&(fname.clone(), self.edge_name(e))) {
                    let target = Target::Block {
                        proc: fname.clone(),
                        stmt,
                        depth,
                        known,
                    };
                    configs = self.advance(configs, &target, at_checkpoint);
                    at_checkpoint = true;
                    if configs.is_empty() {
                        return Verdict::Unsound(format!(
                            "no Boolean run reaches edge {} ({}) with the predicate values \
                             of the concrete state",
                            self.edge_name(e),
                            self.prog.show_pos(self.edge(e).pos)
                        ));
                    }
                }
            }
            match end {
                Some(Event::End(End::Error(e))) => {
                    let rest = self.advance(configs, &Target::Error, at_checkpoint);
                    if rest.is_empty() {
                        return Verdict::Unsound(format!(
                            "the concrete run reaches the error at {} but no Boolean run fails \
                             there",
                            self.edge_name(e)
                        ));
                    }
                    return Verdict::Covered { steps, error: true };
                }
                Some(Event::End(End::Exit)) => {
                    let rest = self.advance(configs, &Target::Exit, at_checkpoint);
                    if rest.is_empty() {
                        return Verdict::Unsound("main returns but no Boolean run does".into());
                    }
                    return Verdict::Covered {
                        steps,
                        error: false,
                    };
                }
                Some(_) => {
                    return Verdict::Covered {
                        steps,
                        error: false,
                    };
                }
                None => {}
            }
        }
        Verdict::Budget { steps }
    }

    /// Whether the Boolean program has a run that follows the C path `path` (edges with their
    /// call depth, `main` at 0, as `bp_c::trace::c_path` gives them) to the error, whatever the
    /// predicates' values: the check of newton's progress test (the refined abstraction must
    /// no longer follow the refuted path). `Err` when the configuration budget runs out.
    #[allow(dead_code)] // used by newton's progress test, which includes this file
    pub fn follows_path(&self, path: &[bp_c::trace::CStep]) -> Result<bool, String> {
        let entry = self.machine.entry("main").map_err(|e| e.to_string())?;
        let mut configs: Vec<Config> = self
            .entry_states("main", &BTreeMap::new(), &BTreeMap::new())
            .into_iter()
            .map(|state| {
                vec![Frame {
                    proc: "main".to_string(),
                    loc: entry,
                    state,
                }]
            })
            .collect();
        let mut at_checkpoint = false;
        for s in path {
            if configs.len() > max_configs() {
                return Err("too many Boolean configurations".into());
            }
            let fname = self.prog.functions[s.edge.func.0 as usize].name.clone();
            if let Some(&stmt) = self.entries.get(&(fname.clone(), self.edge_name(s.edge))) {
                let target = Target::Block {
                    proc: fname,
                    stmt,
                    depth: s.depth as usize + 1,
                    known: BTreeMap::new(),
                };
                configs = self.advance(configs, &target, at_checkpoint);
                at_checkpoint = true;
                trace(&self.edge_name(s.edge), &configs);
                if configs.is_empty() {
                    return Ok(false);
                }
            }
        }
        let last = self.advance(configs, &Target::Error, at_checkpoint);
        trace("error", &last);
        Ok(!last.is_empty())
    }

    fn edge(&self, e: EdgeId) -> &cir::ir::Edge {
        &self.prog.functions[e.func.0 as usize].edges[e.index as usize]
    }

    fn edge_name(&self, e: EdgeId) -> String {
        self.prog.edge_name(e)
    }

    /// The values of the predicates of `func` the interpreter can evaluate in its state.
    fn known(&self, it: &Interp<'_>, func: &str) -> BTreeMap<String, bool> {
        let mut out = BTreeMap::new();
        for (name, e) in self.preds.get(func).map(Vec::as_slice).unwrap_or(&[]) {
            if let Ok(b) = it.eval_condition(e) {
                out.insert(name.clone(), b);
            }
        }
        out
    }

    /// The entry states of `proc` worth trying: `fixed` (globals and parameters) as given, its
    /// predicates the concrete state at entry determines (`known`) as they are there, the other
    /// predicates both ways, and every other variable (temporaries, return predicates: written
    /// before they are read) `F` — one of the arbitrary values the Boolean semantics allows, so
    /// restricting to it can only make the check stricter. States violating `enforce` are cut.
    fn entry_states(
        &self,
        proc: &str,
        fixed: &BTreeMap<String, bool>,
        known: &BTreeMap<String, bool>,
    ) -> Vec<Valuation> {
        let preds: HashSet<&str> = self
            .preds
            .get(proc)
            .map(|v| v.iter().map(|(n, _)| n.as_str()).collect())
            .unwrap_or_default();
        let mut states = vec![Valuation::new()];
        for name in self.machine.scope(proc).expect("a procedure") {
            let choices: Vec<bool> = if let Some(&v) = fixed.get(name) {
                vec![v]
            } else if let Some(&v) = known.get(name) {
                vec![v]
            } else if preds.contains(name.as_str()) {
                vec![false, true]
            } else {
                vec![false]
            };
            let mut next = Vec::with_capacity(states.len() * choices.len());
            for st in &states {
                for &b in &choices {
                    let mut n = st.clone();
                    n.insert(name.clone(), b);
                    next.push(n);
                }
            }
            states = next;
        }
        states
            .into_iter()
            .filter(|st| self.machine.enforce_holds(proc, st).expect("enforce"))
            .collect()
    }

    /// The callee frames a call statement may start: globals as in the caller, parameters
    /// from the actuals' possible values, locals as in [`Checker::entry_states`] (with the
    /// predicate values the concrete callee has at entry when the target is there).
    fn call_entries(
        &self,
        caller: &Frame,
        stmt: StmtId,
        depth: usize,
        target: &Target,
    ) -> Vec<Frame> {
        let st = self.machine.stmt(&caller.proc, stmt).expect("statement");
        let StmtKind::Call { callee, args, .. } = &st.kind else {
            unreachable!("not a call");
        };
        let callee = callee.name.clone();
        let proc = self.machine.procedure(&callee).expect("callee");
        let mut fixed = vec![BTreeMap::new()];
        for g in &self.globals {
            for f in &mut fixed {
                f.insert(g.clone(), caller.state[g]);
            }
        }
        for (p, a) in proc.params.iter().zip(args) {
            let vals = possible_values(a, &caller.state).expect("actual values");
            let mut next = Vec::new();
            for f in &fixed {
                for &v in &vals {
                    let mut n = f.clone();
                    n.insert(p.name.clone(), v);
                    next.push(n);
                }
            }
            fixed = next;
        }
        let empty = BTreeMap::new();
        let known = match target {
            Target::Block {
                proc,
                depth: d,
                known,
                ..
            } if *proc == callee && *d == depth + 1 => known,
            _ => &empty,
        };
        let loc = self.machine.entry(&callee).expect("callee entry");
        let mut out = Vec::new();
        for f in &fixed {
            for state in self.entry_states(&callee, f, known) {
                out.push(Frame {
                    proc: callee.clone(),
                    loc,
                    state,
                });
            }
        }
        out
    }

    fn matches(&self, c: &Config, target: &Target) -> bool {
        let Target::Block {
            proc,
            stmt,
            depth,
            known,
        } = target
        else {
            return false;
        };
        let top = c.last().expect("a frame");
        c.len() == *depth
            && top.proc == *proc
            && top.loc == Loc::Stmt(*stmt)
            && known
                .iter()
                .all(|(n, v)| top.state.get(n).is_none_or(|x| x == v))
    }

    fn is_entry(&self, f: &Frame) -> bool {
        match f.loc {
            Loc::Stmt(s) => self.entry_set.contains(&(f.proc.clone(), s)),
            Loc::End => false,
        }
    }

    /// The configurations at `target` reachable from `from` without passing another block
    /// entry. When `from` is at a checkpoint, its first statement is stepped (it is the entry
    /// of the block just taken); otherwise a configuration already at a block entry must be
    /// the target itself.
    fn advance(&self, from: Vec<Config>, target: &Target, from_checkpoint: bool) -> Vec<Config> {
        let prop = RefProperty::default();
        let mut out = HashSet::new();
        let mut seen: HashSet<Config> = HashSet::new();
        let mut work: Vec<Config> = Vec::new();
        for c in from {
            let top = c.last().expect("a frame");
            if !from_checkpoint && self.is_entry(top) {
                if self.matches(&c, target) {
                    out.insert(c);
                }
            } else if seen.insert(c.clone()) {
                work.push(c);
            }
        }
        let mut push = |c: Config, out: &mut HashSet<Config>, work: &mut Vec<Config>| {
            let top = c.last().expect("a frame");
            if self.is_entry(top) {
                if self.matches(&c, target) {
                    out.insert(c);
                }
            } else if seen.insert(c.clone()) {
                work.push(c);
            }
        };
        while let Some(c) = work.pop() {
            let top = c.last().expect("a frame").clone();
            let returned: Vec<Vec<bool>> = match top.loc {
                Loc::End => self
                    .machine
                    .return_values(&top.proc, Loc::End, &top.state)
                    .expect("return values"),
                Loc::Stmt(s)
                    if matches!(
                        self.machine.stmt(&top.proc, s).expect("statement").kind,
                        StmtKind::Call { .. }
                    ) =>
                {
                    for f in self.call_entries(&top, s, c.len(), target) {
                        let mut n = c.clone();
                        n.push(f);
                        push(n, &mut out, &mut work);
                    }
                    Vec::new()
                }
                Loc::Stmt(s) => {
                    let mut rets = Vec::new();
                    let succs = self
                        .machine
                        .step(&top.proc, s, &top.state, &prop)
                        .expect("a step of the reference interpreter");
                    for succ in succs {
                        match succ {
                            Successor::Next { to, after, .. } => {
                                let mut n = c.clone();
                                let f = n.last_mut().expect("a frame");
                                f.loc = to;
                                f.state = after;
                                push(n, &mut out, &mut work);
                            }
                            Successor::Call { callee, entry } => {
                                let mut n = c.clone();
                                let loc = self.machine.entry(&callee).expect("callee entry");
                                n.push(Frame {
                                    proc: callee,
                                    loc,
                                    state: entry,
                                });
                                push(n, &mut out, &mut work);
                            }
                            Successor::Return { values } => rets.push(values),
                            Successor::AssertFails => {
                                if matches!(target, Target::Error) {
                                    out.insert(c.clone());
                                }
                            }
                        }
                    }
                    rets
                }
            };
            for values in returned {
                if c.len() == 1 {
                    if matches!(target, Target::Exit) {
                        out.insert(c.clone());
                    }
                    continue;
                }
                let mut n = c.clone();
                let callee = n.pop().expect("callee frame");
                let caller = n.last_mut().expect("caller frame");
                let Loc::Stmt(call) = caller.loc else {
                    continue;
                };
                let after = self
                    .machine
                    .return_to(&caller.proc, call, &caller.state, &callee.state, &values)
                    .expect("return to the caller");
                if let Some(after) = after {
                    caller.state = after;
                    caller.loc = self
                        .machine
                        .fallthrough(&caller.proc, call)
                        .expect("fallthrough");
                    push(n, &mut out, &mut work);
                }
            }
        }
        out.into_iter().collect()
    }
}

/// Debugging `follows_path` (with `CHECK_TRACE=1`): at each checkpoint, the number of
/// configurations and, per frame, each variable's values over them (`0`, `1`, `*` for both).
fn trace(at: &str, configs: &[Config]) {
    if std::env::var("CHECK_TRACE").is_err() {
        return;
    }
    eprintln!("check: {at} {} configs", configs.len());
    let mut by: BTreeMap<(usize, String, String), (bool, bool)> = BTreeMap::new();
    for c in configs {
        for (d, f) in c.iter().enumerate() {
            for (n, v) in &f.state {
                let e = by.entry((d, f.proc.clone(), n.clone())).or_default();
                if *v { e.1 = true } else { e.0 = true }
            }
        }
    }
    let mut line = String::new();
    let mut cur = None;
    for ((d, p, n), (f, t)) in by {
        if cur != Some((d, p.clone())) {
            if !line.is_empty() {
                eprintln!("{line}");
            }
            line = format!("  {d} {p}:");
            cur = Some((d, p));
        }
        let v = match (f, t) {
            (true, true) => "*",
            (false, true) => "1",
            _ => "0",
        };
        line.push_str(&format!(" {n}={v}"));
    }
    if !line.is_empty() {
        eprintln!("{line}");
    }
}
