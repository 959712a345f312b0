//! Replaying a feasible path on the concrete interpreter: the solver's values of the path
//! formula's input symbols drive [`cir::interp`], which computes with machine integers of each
//! C type independently of the SMT encoding, and must take every edge of the path and reach the
//! error. Only then is the path a counterexample.
//!
//! The interpreter asks its [`Oracle`] for a value whenever C leaves one open, in execution
//! order: unmodelled global initialisers, `main`'s parameters and locals, then for each call
//! of a defined function the callee's locals, for each havoc the stored value, for each call
//! without a body its result. Before each step the oracle is loaded with exactly the values
//! that step will ask for, taken from the model (a value the formula does not constrain, or
//! of an aggregate, is 0; pointers the interpreter makes null itself).

use std::collections::{HashMap, VecDeque};

use bp_c::trace::CStep;
use cir::interp::{End, Event, Interp, Oracle, Ptr, Value};
use cir::ir::{Callee, EdgeKind, Expr, ExprKind, Program, VarId};
use cir::types::CType;
use serde::Serialize;

use crate::symbolic::{PathFormula, SymKind, edge};

/// A nondeterministic value of the counterexample.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Input {
    /// What it is (`__VERIFIER_nondet_int() at main#3`, `initial value of x`).
    pub what: String,
    /// Where (`file:line:col`).
    pub pos: String,
    /// The value.
    pub value: i128,
    /// The step of the counterexample that draws it (a havoc, or a call without a body);
    /// `None` for initial values.
    pub step: Option<usize>,
    /// For the initial value of an uninitialised local: which local of which activation.
    pub local: Option<LocalInit>,
}

/// The uninitialised scalar local an initial value is for.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct LocalInit {
    /// The function.
    pub function: String,
    /// The local's name in the IR (its C name unless it shadows another: `x#2`).
    pub variable: String,
    /// The step of the call that entered the activation (`None`: `main`'s).
    pub entered_at: Option<usize>,
}

/// One step of a counterexample.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Step {
    /// The C edge (`main#12`).
    pub edge: String,
    /// Its function.
    pub function: String,
    /// `file:line:col`.
    pub pos: String,
    /// Call depth (`main` is 0).
    pub depth: u32,
    /// The edge in the IR's words (`x := x + 1`, `assume(x > 0)`, `call f(x)`).
    pub text: String,
    /// Values after the step of what it assigned (`x = 3`).
    pub values: Vec<(String, String)>,
}

/// A counterexample replayed on the concrete interpreter.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Counterexample {
    /// The values of every nondeterministic input, in the order the program reads them.
    pub inputs: Vec<Input>,
    /// The path, step by step.
    pub steps: Vec<Step>,
}

#[derive(Default)]
struct Queue {
    values: VecDeque<i128>,
}

impl Oracle for Queue {
    fn value(&mut self, lo: i128, hi: i128) -> i128 {
        self.values.pop_front().unwrap_or(0).clamp(lo, hi)
    }
    fn choose(&mut self, _n: usize) -> usize {
        0
    }
}

/// Number of values the interpreter draws for a fresh value of this type.
fn draws(prog: &Program, ty: &CType) -> usize {
    match ty {
        CType::Int(_) => 1,
        CType::Array(t, Some(n)) => usize::try_from(*n)
            .unwrap_or(0)
            .saturating_mul(draws(prog, t)),
        CType::Struct(s) => match &prog.structs[s.0 as usize] {
            d if d.is_union => 0,
            d => d
                .fields
                .as_ref()
                .map_or(0, |fs| fs.iter().map(|(_, t)| draws(prog, t)).sum()),
        },
        _ => 0,
    }
}

struct Inputs<'a> {
    prog: &'a Program,
    model: HashMap<SymKind, i128>,
    inputs: Vec<Input>,
}

impl Inputs<'_> {
    /// Loads the values of one fresh value of type `ty` into the queue; `input` says what it
    /// is (its value is set here).
    fn load(&mut self, q: &mut Queue, ty: &CType, kind: SymKind, input: Input) {
        let n = draws(self.prog, ty);
        if n == 0 {
            return;
        }
        let v = if matches!(ty, CType::Int(_)) {
            self.model.get(&kind).copied().unwrap_or(0)
        } else {
            0
        };
        q.values.push_back(v);
        q.values.extend(std::iter::repeat_n(0, n - 1));
        // Uninitialised locals are listed only when the path depends on them.
        let listed = !matches!(kind, SymKind::Uninit { .. }) || self.model.contains_key(&kind);
        if matches!(ty, CType::Int(_)) && listed {
            self.inputs.push(Input { value: v, ..input });
        }
    }

    /// Loads the initial contents of the object the allocator call at step `j` returns (a
    /// `ty` pointer): the draws of [`cir::interp::draw_contents`] in its order, each the
    /// model's value of the [`SymKind::Content`] symbol of its path (0 when the path formula
    /// does not read it; for a pointer, non-null is an object of its own). `calloc` draws none.
    fn contents(&mut self, q: &mut Queue, pf: &PathFormula, j: usize, ty: &CType, callee: &Callee) {
        let CType::Pointer(t) = ty else { return };
        if matches!(callee, Callee::External(n) if n == "calloc")
            || matches!(**t, CType::Void | CType::Func(_))
        {
            return;
        }
        let model = &self.model;
        let mut drawn = Vec::new();
        let _ = cir::interp::draw_contents(self.prog, t, 1, &mut Vec::new(), &mut |p, lo, hi| {
            let v = pf
                .content_paths
                .iter()
                .position(|c| c.as_slice() == p)
                .and_then(|k| {
                    let path = u32::try_from(k).ok()?;
                    model.get(&SymKind::Content { step: j, path }).copied()
                })
                .unwrap_or(0)
                .clamp(lo, hi);
            drawn.push(v);
            v
        });
        q.values.extend(drawn);
    }

    /// Loads the values of the uninitialised locals (and, for `main`, the parameters) of
    /// activation `act` of `f`, entered by the call at step `entered_at` (`None`: `main`).
    fn locals(
        &mut self,
        q: &mut Queue,
        act: usize,
        f: &cir::ir::Function,
        entered_at: Option<usize>,
    ) {
        let prog = self.prog;
        let formals: &[VarId] = if entered_at.is_none() {
            &f.formals
        } else {
            &[]
        };
        for &v in formals.iter().chain(&f.locals) {
            let info = prog.var(v);
            let local = (!f.formals.contains(&v)).then(|| LocalInit {
                function: f.name.clone(),
                variable: info.name.clone(),
                entered_at,
            });
            let input = Input {
                what: format!("initial value of `{}` in `{}`", info.name, f.name),
                pos: prog.show_pos(info.pos),
                value: 0,
                step: None,
                local,
            };
            self.load(q, &info.ty, SymKind::Uninit { act, var: v }, input);
        }
    }
}

/// Shows a value.
fn show(v: &Value) -> String {
    match v {
        Value::Int(i) => i.to_string(),
        Value::Ptr(Ptr::Null) => "NULL".into(),
        Value::Ptr(Ptr::Func(f)) => format!("&{f}"),
        Value::Ptr(Ptr::Obj { obj, path }) => {
            let mut s = format!("&object{obj}");
            for p in path {
                s.push_str(&format!(".{p}"));
            }
            s
        }
        Value::Struct(_) => "{…}".into(),
        Value::Array(_) => "[…]".into(),
        Value::Opaque => "?".into(),
    }
}

/// Why a replay did not reach the error.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("the concrete replay does not follow the path: {0}")]
pub struct Mismatch(pub String);

/// Replays `path` with the model's values of the symbols (`values[i]` for `pf.symbols[i]`,
/// `None` when not an integer or not in the model).
pub fn replay(
    prog: &Program,
    pf: &PathFormula,
    path: &[CStep],
    values: &[Option<i128>],
) -> Result<Counterexample, Mismatch> {
    let mut ins = Inputs {
        prog,
        model: pf
            .symbols
            .iter()
            .zip(values)
            .filter_map(|(s, v)| v.map(|v| (s.kind, v)))
            .collect(),
        inputs: Vec::new(),
    };
    let mut q = Queue::default();
    for (i, init) in prog.global_inits.iter().enumerate() {
        if init.value.is_none() {
            let input = Input {
                what: format!("initial value of `{}`", prog.show_expr(&init.lhs)),
                pos: prog.show_pos(init.pos),
                value: 0,
                step: None,
                local: None,
            };
            ins.load(&mut q, &init.lhs.ty, SymKind::GlobalInit(i), input);
        }
    }
    let Some(first) = path.first() else {
        return Err(Mismatch("the path is empty".into()));
    };
    let main = &prog.functions[first.edge.func.0 as usize];
    ins.locals(&mut q, 0, main, None);
    let fault = |j: usize, f: cir::interp::Fault| {
        Mismatch(format!(
            "step {j} ({}): {f}",
            prog.edge_name(path[j.min(path.len() - 1)].edge)
        ))
    };
    let mut it = Interp::new(prog, &mut q).map_err(|f| fault(0, f))?;
    let mut steps = Vec::with_capacity(path.len());
    for (j, s) in path.iter().enumerate() {
        // Return from finished callees.
        while it.depth() > s.depth as usize + 1 {
            if !it.at_exit() {
                return Err(Mismatch(format!(
                    "step {j} ({}): the callee has not finished",
                    prog.edge_name(s.edge)
                )));
            }
            q.values.clear();
            if !matches!(it.step(&mut q).map_err(|f| fault(j, f))?, Event::Return(_)) {
                return Err(Mismatch(format!("step {j}: the callee did not return")));
            }
        }
        let e = edge(prog, *s);
        q.values.clear();
        match &e.kind {
            EdgeKind::Havoc { lhs, .. } => {
                let input = Input {
                    what: format!("arbitrary value of `{}`", prog.show_expr(lhs)),
                    pos: prog.show_pos(e.pos),
                    value: 0,
                    step: Some(j),
                    local: None,
                };
                ins.load(&mut q, &lhs.ty, SymKind::Havoc(j), input);
            }
            EdgeKind::Call { ret, callee, .. } => {
                if let Some(b) = crate::symbolic::entered(&pf.acts, &pf.act_of, j) {
                    let g = &prog.functions[pf.acts[b].func.0 as usize];
                    ins.locals(&mut q, b, g, Some(j));
                } else if let Some(r) = ret
                    && callee.is_allocator()
                {
                    ins.contents(&mut q, pf, j, &prog.var(*r).ty, callee);
                } else if let Some(r) = ret {
                    let name = match callee {
                        Callee::Nondet(n) | Callee::External(n) => n.clone(),
                        _ => "an unknown function".into(),
                    };
                    let input = Input {
                        what: format!("{name}() at {}", prog.edge_name(s.edge)),
                        pos: prog.show_pos(e.pos),
                        value: 0,
                        step: Some(j),
                        local: None,
                    };
                    ins.load(&mut q, &prog.var(*r).ty, SymKind::CallResult(j), input);
                }
            }
            _ => {}
        }
        let ev = it
            .take(s.edge, &mut q)
            .map_err(|f| fault(j, f))?
            .ok_or_else(|| {
                Mismatch(format!(
                    "step {j} ({}, {}): the edge is not enabled in the concrete state",
                    prog.edge_name(s.edge),
                    prog.show_edge_kind(&e.kind)
                ))
            })?;
        let mut values = Vec::new();
        let shown: Option<Expr> = match &e.kind {
            EdgeKind::Assign { lhs, .. } | EdgeKind::Havoc { lhs, .. } => Some(lhs.clone()),
            EdgeKind::Call { ret: Some(r), .. } if matches!(ev, Event::Edge(_)) => Some(Expr {
                kind: ExprKind::Var(*r),
                ty: prog.var(*r).ty.clone(),
            }),
            _ => None,
        };
        if let Some(l) = shown
            && let Ok(v) = it.value_of(&l)
        {
            values.push((prog.show_expr(&l), show(&v)));
        }
        steps.push(Step {
            edge: prog.edge_name(s.edge),
            function: prog.functions[s.edge.func.0 as usize].name.clone(),
            pos: prog.show_pos(e.pos),
            depth: s.depth,
            text: prog.show_edge_kind(&e.kind),
            values,
        });
        let last = j + 1 == path.len();
        match ev {
            Event::End(End::Error(_)) if last => {
                return Ok(Counterexample {
                    inputs: ins.inputs,
                    steps,
                });
            }
            Event::End(end) => {
                return Err(Mismatch(format!(
                    "step {j} ({}): the run ended ({end:?}) before the path did",
                    prog.edge_name(s.edge)
                )));
            }
            _ if last => {
                return Err(Mismatch("the path does not end with an error edge".into()));
            }
            _ => {}
        }
    }
    Err(Mismatch("the path does not reach the error".into()))
}
