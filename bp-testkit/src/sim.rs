//! Random concrete runs of the reference semantics, written as traces in `bebop`'s format.
//!
//! [`random_run`] walks the small-step API of [`crate::reference::Machine`] with random
//! choices (initial state, `*`, branches, returned values at `end`, locals at calls) and, when
//! it reaches the error of the property, returns the hierarchical [`Trace`] of that run (the
//! format of `bp_grammar::trace`). Such traces are real executions by construction, so they
//! test the replayer ([`crate::replay`](mod@crate::replay)) and give a soundness cross-check of the exhaustive
//! analysis: a run that reaches an error proves the program unsafe.

use crate::prng::SplitMix64;
use crate::reference::{Loc, Machine, RefError, RefProperty, Successor};
use bp_grammar::ast::{Program, Stmt, StmtId, StmtKind};
use bp_grammar::trace::{Step, StepKind, TRACE_FORMAT, Target, Trace, Valuation};

struct Frame {
    proc: String,
    call: StmtId,
    state: Valuation,
}

fn make_step(
    kind: StepKind,
    depth: usize,
    proc: &str,
    stmt: Option<(StmtId, &Stmt)>,
    taken: Option<u32>,
    before: &Valuation,
    after: &Valuation,
) -> Step {
    Step {
        kind,
        depth: depth as u32,
        proc: proc.to_string(),
        stmt: stmt.map(|(id, _)| id),
        line: stmt.map_or(0, |(_, s)| s.span.line),
        col: stmt.map_or(0, |(_, s)| s.span.col),
        text: stmt.map_or_else(
            || "end".to_string(),
            |(_, s)| bp_grammar::print_stmt_head(s),
        ),
        labels: stmt.map_or_else(Vec::new, |(_, s)| {
            s.labels.iter().map(|l| l.name.clone()).collect()
        }),
        annotations: stmt.map(|(_, s)| s.annotations.clone()).unwrap_or_default(),
        taken,
        before: before.clone(),
        after: after.clone(),
    }
}

/// One random run of at most `max_steps` steps from a random initial state; the trace if it
/// reaches the error of `property` (an assert that may fail always fails in a random run),
/// `None` if it ends, blocks or runs out of steps first.
pub fn random_run(
    prog: &Program,
    property: &RefProperty,
    seed: u64,
    max_steps: usize,
) -> Result<Option<Trace>, RefError> {
    random_run_with(&Machine::new(prog)?, property, seed, max_steps)
}

/// [`random_run`] with an already compiled program.
pub fn random_run_with(
    m: &Machine,
    property: &RefProperty,
    seed: u64,
    max_steps: usize,
) -> Result<Option<Trace>, RefError> {
    let prog = m.program();
    let mut rng = SplitMix64::new(seed);
    let inits = m.initial_states();
    if inits.is_empty() {
        return Ok(None);
    }
    let mut state = rng.pick(&inits).clone();
    let mut proc = "main".to_string();
    let mut loc = m.entry("main")?;
    let mut stack: Vec<Frame> = Vec::new();
    let mut steps: Vec<Step> = Vec::new();
    let label = property.target_label().to_string();
    while steps.len() < max_steps {
        let id = match loc {
            Loc::End => {
                // Fall off `end`: arbitrary values.
                let Some(frame) = stack.pop() else {
                    return Ok(None);
                };
                let values = m.return_values(&proc, Loc::End, &state)?;
                let v = rng.pick(&values).clone();
                let Some(after) = m.return_to(&frame.proc, frame.call, &frame.state, &state, &v)?
                else {
                    return Ok(None);
                };
                steps.push(make_step(
                    StepKind::Return,
                    stack.len() + 1,
                    &proc,
                    None,
                    None,
                    &state,
                    &after,
                ));
                loc = m.fallthrough(&frame.proc, frame.call)?;
                proc = frame.proc;
                state = after;
                continue;
            }
            Loc::Stmt(id) => id,
        };
        let s = m.stmt(&proc, id)?;
        let depth = stack.len();
        if m.is_target(&proc, id, property)? {
            steps.push(make_step(
                StepKind::Error,
                depth,
                &proc,
                Some((id, s)),
                None,
                &state,
                &state,
            ));
            let target = Target::Label {
                label,
                proc,
                stmt: id,
            };
            return Ok(Some(trace_of(prog, target, steps)));
        }
        let succ = m.step(&proc, id, &state, property)?;
        if succ.contains(&Successor::AssertFails) {
            steps.push(make_step(
                StepKind::Error,
                depth,
                &proc,
                Some((id, s)),
                None,
                &state,
                &state,
            ));
            let target = Target::Assert { proc, stmt: id };
            return Ok(Some(trace_of(prog, target, steps)));
        }
        if succ.is_empty() {
            return Ok(None);
        }
        match rng.pick(&succ).clone() {
            Successor::Next { taken, to, after } => {
                steps.push(make_step(
                    StepKind::Stmt,
                    depth,
                    &proc,
                    Some((id, s)),
                    taken,
                    &state,
                    &after,
                ));
                loc = to;
                state = after;
            }
            Successor::Call { callee, entry } => {
                steps.push(make_step(
                    StepKind::Call,
                    depth,
                    &proc,
                    Some((id, s)),
                    None,
                    &state,
                    &entry,
                ));
                loc = m.entry(&callee)?;
                stack.push(Frame {
                    proc: std::mem::replace(&mut proc, callee),
                    call: id,
                    state: std::mem::replace(&mut state, entry),
                });
            }
            Successor::Return { values } => {
                let Some(frame) = stack.pop() else {
                    return Ok(None); // return in main: the run ends
                };
                debug_assert!(matches!(s.kind, StmtKind::Return(_)));
                let Some(after) =
                    m.return_to(&frame.proc, frame.call, &frame.state, &state, &values)?
                else {
                    return Ok(None);
                };
                steps.push(make_step(
                    StepKind::Return,
                    depth,
                    &proc,
                    Some((id, s)),
                    None,
                    &state,
                    &after,
                ));
                loc = m.fallthrough(&frame.proc, frame.call)?;
                proc = frame.proc;
                state = after;
            }
            Successor::AssertFails => unreachable!("handled above"),
        }
    }
    Ok(None)
}

fn trace_of(prog: &Program, target: Target, steps: Vec<Step>) -> Trace {
    Trace {
        format: TRACE_FORMAT.to_string(),
        program: "<generated>".to_string(),
        header: prog.header.clone(),
        target,
        steps,
    }
}

/// Up to `runs` random runs (seeds `seed`, `seed + 1`, ...); the first trace found.
pub fn find_error_trace(
    prog: &Program,
    property: &RefProperty,
    seed: u64,
    runs: usize,
    max_steps: usize,
) -> Result<Option<Trace>, RefError> {
    let m = Machine::new(prog)?;
    for k in 0..runs as u64 {
        if let Some(t) = random_run_with(&m, property, seed.wrapping_add(k), max_steps)? {
            return Ok(Some(t));
        }
    }
    Ok(None)
}
