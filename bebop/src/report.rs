//! Text output for people: traces, statistics and invariants.

use crate::lower::Model;
use crate::vars::{VarInfo, Ver};
use crate::{Invariant, Stats};
use biodivine_lib_bdd::{Bdd, BddVariable};
use bp_grammar::trace::{Step, StepKind, Target, Trace, Valuation};
use bp_grammar::{Procedure, Program, Stmt, StmtKind};
use std::collections::HashMap;
use std::fmt::Write as _;

fn tf(b: bool) -> &'static str {
    if b { "T" } else { "F" }
}

/// A short head for a statement when the canonical printer gives nothing.
fn fallback_head(s: &Stmt) -> String {
    match &s.kind {
        StmtKind::Skip => "skip;".into(),
        StmtKind::Print(_) => "print(...);".into(),
        StmtKind::Goto(ls) => format!(
            "goto {};",
            ls.iter()
                .map(|l| l.name.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        ),
        StmtKind::Return(es) if es.is_empty() => "return;".into(),
        StmtKind::Return(_) => "return ...;".into(),
        StmtKind::Assign { lhs, .. } => format!(
            "{} := ...;",
            lhs.iter()
                .map(|l| match l {
                    bp_grammar::Lhs::Var(v) => v.name.as_str(),
                    bp_grammar::Lhs::Discard(_) => "_",
                })
                .collect::<Vec<_>>()
                .join(", ")
        ),
        StmtKind::Call { callee, .. } => format!("{}(...);", callee.name),
        StmtKind::If { .. } => "if ... then".into(),
        StmtKind::While { .. } => "while ... do".into(),
        StmtKind::Assert(_) => "assert(...);".into(),
        StmtKind::Assume(_) => "assume(...);".into(),
        StmtKind::Dead(vs) => format!(
            "dead {};",
            vs.iter()
                .map(|v| v.name.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        ),
    }
}

/// The statements of each procedure in pre-order, listed on first use: a trace has a step per
/// statement executed, so looking each one up from scratch would cost the program's size per
/// step.
struct StmtIndex<'p> {
    procs: HashMap<&'p str, (&'p Procedure, Option<Vec<&'p Stmt>>)>,
}

impl<'p> StmtIndex<'p> {
    fn new(prog: &'p Program) -> Self {
        StmtIndex {
            procs: prog
                .procs
                .iter()
                .map(|p| (p.name.name.as_str(), (p, None)))
                .collect(),
        }
    }

    fn proc(&self, name: &str) -> Option<&'p Procedure> {
        self.procs.get(name).map(|(p, _)| *p)
    }

    fn stmt_of(&mut self, step: &Step) -> Option<&'p Stmt> {
        let id = step.stmt?;
        let (p, stmts) = self.procs.get_mut(step.proc.as_str())?;
        let stmts =
            stmts.get_or_insert_with(|| p.stmts_preorder().into_iter().map(|(_, s)| s).collect());
        stmts.get(id.0 as usize).copied()
    }
}

/// Deepest call level indented as such in a rendered trace; deeper steps keep this indentation
/// and show their depth, so that the text of a trace through thousands of nested calls stays
/// proportional to its steps.
pub const MAX_INDENT_DEPTH: u32 = 32;

/// The variables whose value a step changed, as `x: F -> T` (`x=T` for one new in `after`).
fn changes(before: &Valuation, after: &Valuation) -> String {
    let mut out = String::new();
    for (k, b) in after {
        let old = before.get(k);
        if old == Some(b) {
            continue;
        }
        if !out.is_empty() {
            out.push_str(", ");
        }
        let _ = match old {
            Some(old) => write!(out, "{k}: {} -> {}", tf(*old), tf(*b)),
            None => write!(out, "{k}={}", tf(*b)),
        };
    }
    out
}

/// The variables of `after` whose value differs from (or is absent in) `before`, as `x=T`.
fn new_values(before: &Valuation, after: &Valuation) -> String {
    after
        .iter()
        .filter(|(k, b)| before.get(*k) != Some(*b))
        .map(|(k, b)| format!("{k}={}", tf(*b)))
        .collect::<Vec<_>>()
        .join(" ")
}

fn all_values(v: &Valuation, only: Option<&[String]>) -> String {
    v.iter()
        .filter(|(k, _)| only.is_none_or(|o| o.contains(k)))
        .map(|(k, b)| format!("{k}={}", tf(*b)))
        .collect::<Vec<_>>()
        .join(" ")
}

fn taken_text(s: Option<&Stmt>, taken: u32) -> String {
    match s.map(|s| &s.kind) {
        Some(StmtKind::If { arms, .. }) => {
            if taken == 0 {
                "then".into()
            } else if (taken as usize) < arms.len() {
                format!("elsif #{taken}")
            } else {
                "else".into()
            }
        }
        Some(StmtKind::While { .. }) => {
            if taken == 1 {
                "enter loop".into()
            } else {
                "leave loop".into()
            }
        }
        Some(StmtKind::Goto(ls)) => match ls.get(taken as usize) {
            Some(l) => format!("-> {}", l.name),
            None => format!("target #{taken}"),
        },
        _ => format!("taken {taken}"),
    }
}

/// Renders a trace, one line per step, indented by depth.
pub fn render_trace(prog: &Program, tr: &Trace) -> String {
    let mut out = String::new();
    let what = match &tr.target {
        Target::Assert { proc, .. } => format!("an assertion in `{proc}` fails"),
        Target::Label { label, proc, .. } => format!("label `{label}` in `{proc}` is reached"),
    };
    let _ = writeln!(out, "Error: {what}.");
    let n = tr.steps.len();
    let _ = writeln!(out, "Trace ({n} step{}):", if n == 1 { "" } else { "s" });
    if let Some(first) = tr.steps.first() {
        let init = all_values(&first.before, None);
        if init.is_empty() {
            let _ = writeln!(out, "  initial: (no variables)");
        } else {
            let _ = writeln!(out, "  initial: {init}");
        }
    }
    // The callers at active calls and their states at the call, to show what a return
    // changed in the caller.
    let mut calls: Vec<(&str, &Valuation)> = Vec::new();
    let mut index = StmtIndex::new(prog);
    for st in &tr.steps {
        let ast = index.stmt_of(st);
        let indent = if st.depth > MAX_INDENT_DEPTH {
            format!(
                "{}(depth {}) ",
                "  ".repeat(MAX_INDENT_DEPTH as usize + 1),
                st.depth
            )
        } else {
            "  ".repeat(st.depth as usize + 1)
        };
        let labels: String = st.labels.iter().map(|l| format!("{l}: ")).collect();
        let text = if !st.text.is_empty() {
            st.text.clone()
        } else {
            ast.map(fallback_head).unwrap_or_else(|| "end".into())
        };
        let mut line = format!(
            "{indent}[{}] {}:{}  {labels}{text}",
            st.proc, st.line, st.col
        );
        let detail = match st.kind {
            StepKind::Stmt => {
                let mut d = String::new();
                if let Some(t) = st.taken {
                    d.push_str(&format!("({})", taken_text(ast, t)));
                }
                let c = changes(&st.before, &st.after);
                if !c.is_empty() {
                    if !d.is_empty() {
                        d.push_str("  ");
                    }
                    d.push_str(&c);
                }
                d
            }
            StepKind::Call => {
                calls.push((st.proc.as_str(), &st.before));
                let callee = match ast.map(|s| &s.kind) {
                    Some(StmtKind::Call { callee, .. }) => callee.name.clone(),
                    _ => "?".into(),
                };
                let frame: Vec<String> = index
                    .proc(&callee)
                    .map(|q| q.frame_vars().map(|v| v.name.clone()).collect())
                    .unwrap_or_default();
                let vals = all_values(&st.after, Some(&frame));
                if vals.is_empty() {
                    format!("CALL {callee}")
                } else {
                    format!("CALL {callee}: {vals}")
                }
            }
            StepKind::Return => {
                // The caller's variables whose values differ from the caller's state at the
                // call (the returned values assigned, the globals the callee changed).
                match calls.pop() {
                    Some((caller, at_call)) => {
                        let c = new_values(at_call, &st.after);
                        if c.is_empty() {
                            format!("RETURN to {caller}")
                        } else {
                            format!("RETURN to {caller}: {c}")
                        }
                    }
                    None => "RETURN".to_string(),
                }
            }
            StepKind::Error => match &tr.target {
                Target::Assert { .. } => "ASSERTION FAILS".into(),
                Target::Label { label, .. } => format!("REACHED {label}"),
            },
        };
        if !detail.is_empty() {
            line.push_str("   ");
            line.push_str(&detail);
        }
        if !st.annotations.is_empty() {
            let a: Vec<String> = st
                .annotations
                .0
                .iter()
                .map(|(k, v)| format!("{k}={}", bp_grammar::print::annotation_value(v)))
                .collect();
            line.push_str(&format!("   @ {}", a.join(" ")));
        }
        let _ = writeln!(out, "{line}");
    }
    out
}

/// Renders the statistics.
pub fn render_stats(s: &Stats) -> String {
    let ms = |d: std::time::Duration| d.as_secs_f64() * 1000.0;
    let mut out = String::new();
    let _ = writeln!(out, "Statistics:");
    let _ = writeln!(out, "  procedures:           {}", s.procedures);
    let _ = writeln!(out, "  statements:           {}", s.statements);
    let _ = writeln!(
        out,
        "  CFG nodes / edges:    {} / {}",
        s.cfg_nodes, s.cfg_edges
    );
    let _ = writeln!(out, "  BDD variables:        {}", s.bdd_vars);
    let _ = writeln!(out, "  largest BDD (nodes):  {}", s.largest_bdd);
    let _ = writeln!(out, "  peak live BDD nodes:  {}", s.peak_live_nodes);
    let _ = writeln!(out, "  final live BDD nodes: {}", s.final_live_nodes);
    let _ = writeln!(out, "  worklist iterations:  {}", s.iterations);
    let _ = writeln!(
        out,
        "  shortest trace:       {}",
        if s.trace_shortest {
            "yes (or no trace)"
        } else {
            "no (search budget exceeded)"
        }
    );
    let _ = writeln!(
        out,
        "  time:                 {:.3} ms (lowering {:.3} ms, reachability {:.3} ms, trace {:.3} ms)",
        ms(s.total_time),
        ms(s.lower_time),
        ms(s.reach_time),
        ms(s.trace_time)
    );
    out
}

/// Renders the invariants.
pub fn render_invariants(invs: &[Invariant]) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "Invariants (reachable valuations before each statement):"
    );
    for i in invs {
        let labels: String = i.labels.iter().map(|l| format!("{l}: ")).collect();
        let _ = writeln!(
            out,
            "  [{}] {}:{}  {labels}{}   {}",
            i.proc, i.line, i.col, i.text, i.formula
        );
    }
    out
}

/// The most cubes printed in one formula.
const MAX_CUBES: usize = 256;

/// Cubes (paths to `true`) of a BDD that are minimised when there are at most this many.
const MINIMISE_CUBES: f64 = 64.0;

/// The number of paths to `true` (saturating, as a float).
fn path_count(b: &Bdd) -> f64 {
    let mut count = vec![0f64; b.size()];
    for p in b.pointers() {
        count[p.to_index()] = if p.is_zero() {
            0.0
        } else if p.is_one() {
            1.0
        } else {
            count[b.low_link_of(p).to_index()] + count[b.high_link_of(p).to_index()]
        };
    }
    count.last().copied().unwrap_or(0.0)
}

/// The first `limit` paths to `true`, as lists of literals (depth-first, `false` branch first).
fn first_paths(b: &Bdd, limit: usize) -> Vec<Vec<(BddVariable, bool)>> {
    let mut out = Vec::new();
    let mut path = Vec::new();
    // (node, next child to visit: 0 = low, 1 = high, 2 = done)
    let mut stack = vec![(b.root_pointer(), 0u8)];
    while let Some((p, state)) = stack.pop() {
        if out.len() >= limit {
            break;
        }
        if p.is_one() {
            out.push(path.clone());
            continue;
        }
        if p.is_zero() {
            continue;
        }
        match state {
            0 => {
                stack.push((p, 1));
                path.push((b.var_of(p), false));
                stack.push((b.low_link_of(p), 0));
            }
            1 => {
                path.pop();
                stack.push((p, 2));
                path.push((b.var_of(p), true));
                stack.push((b.high_link_of(p), 0));
            }
            _ => {
                path.pop();
            }
        }
    }
    out
}

/// `b` exactly, as the smaller of its disjunctive form (the optimised cubes of `b`) and its
/// conjunctive form (the negated cubes of `!b`), when that has at most `limit` terms.
pub fn normal_form(
    m: &Model,
    p: crate::ids::ProcId,
    b: &Bdd,
    limit: usize,
) -> Option<crate::NormalForm> {
    let name = |v: BddVariable| match m.vars.describe(v) {
        VarInfo::Slot(s, Ver::Cur) => Some(m.slot_name(p, s)),
        _ => None,
    };
    let terms = |x: &Bdd, negate: bool| -> Option<Vec<Vec<(String, bool)>>> {
        if path_count(x) > 4.0 * limit as f64 {
            return None;
        }
        let cubes = x.to_optimized_dnf();
        if cubes.len() > limit {
            return None;
        }
        cubes
            .iter()
            .map(|c| {
                c.to_values()
                    .into_iter()
                    .map(|(v, val)| name(v).map(|n| (n, val != negate)))
                    .collect::<Option<Vec<_>>>()
            })
            .collect()
    };
    if b.is_true() {
        return Some(crate::NormalForm::Cnf(Vec::new()));
    }
    if b.is_false() {
        return Some(crate::NormalForm::Dnf(Vec::new()));
    }
    let dnf = terms(b, false);
    let cnf = terms(&b.not(), true);
    match (dnf, cnf) {
        (Some(d), Some(c)) if c.len() < d.len() => Some(crate::NormalForm::Cnf(c)),
        (Some(d), _) => Some(crate::NormalForm::Dnf(d)),
        (None, Some(c)) => Some(crate::NormalForm::Cnf(c)),
        (None, None) => None,
    }
}

/// A formula over the variable names of procedure `p` for a BDD over [`Ver::Cur`]: `T`, `F`,
/// or a disjunction of cubes (minimised when small, cut after 256 cubes).
pub fn formula(m: &Model, p: crate::ids::ProcId, b: &Bdd) -> String {
    if b.is_true() {
        return "T".into();
    }
    if b.is_false() {
        return "F".into();
    }
    let total = path_count(b);
    let cubes: Vec<Vec<(BddVariable, bool)>> = if total <= MINIMISE_CUBES {
        b.to_optimized_dnf().iter().map(|c| c.to_values()).collect()
    } else {
        first_paths(b, MAX_CUBES)
    };
    let n = cubes.len();
    let name = |v: BddVariable| match m.vars.describe(v) {
        VarInfo::Slot(s, Ver::Cur) => m.slot_name(p, s),
        VarInfo::Slot(s, ver) => format!("{}@{ver:?}", m.slot_name(p, s)),
        VarInfo::Temp(j) => format!("<tmp{j}>"),
    };
    let mut parts: Vec<String> = cubes
        .iter()
        .map(|c| {
            let lits: Vec<String> = c
                .iter()
                .map(|(v, val)| {
                    if *val {
                        name(*v)
                    } else {
                        format!("!{}", name(*v))
                    }
                })
                .collect();
            if lits.is_empty() {
                "T".to_string()
            } else if lits.len() == 1 || n == 1 {
                lits.join(" & ")
            } else {
                format!("({})", lits.join(" & "))
            }
        })
        .collect();
    if total > n as f64 {
        parts.push(format!("... ({:.0} more cubes)", total - n as f64));
    }
    parts.join(" | ")
}
