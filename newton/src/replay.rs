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
//! of an aggregate, is 0; a pointer the environment gives is null or not as in the model,
//! other pointers the interpreter makes null itself). [`replay_drawn`] replays
//! the path of a concrete run instead, with the values that run drew ([`Drawn`]).

use std::collections::{HashMap, VecDeque};

use bp_c::trace::CStep;
use cir::interp::{End, Event, Interp, Oracle, Ptr, Value};
use cir::ir::{Callee, EdgeKind, Expr, ExprKind, FuncId, Program, VarId};
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

/// The uninitialised local (a scalar, or an element of an array of integers) an initial
/// value is for.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct LocalInit {
    /// The function.
    pub function: String,
    /// The local's name in the IR (its C name unless it shadows another: `x#2`).
    pub variable: String,
    /// The step of the call that entered the activation (`None`: `main`'s).
    pub entered_at: Option<usize>,
    /// For an element of a local array of integers: its index (`variable[element]`).
    pub element: Option<usize>,
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

/// Where the values of a replay come from: the solver's model of the path formula
/// ([`replay`]), or the values a concrete run drew ([`replay_drawn`]).
trait Source {
    /// Step `j` of the path starts (`None`: the run's start, before its first step).
    fn begin(&mut self, j: Option<usize>);
    /// The `n` draws of one fresh value of kind `kind` (its scalar first when `int`).
    fn fresh(&mut self, kind: SymKind, n: usize, int: bool) -> Vec<i128>;
    /// Whether the initial value `v` of an uninitialised local (kind `kind`) is listed among
    /// the counterexample's inputs.
    fn listed(&self, kind: SymKind, v: i128) -> bool;
    /// The activation the call at step `j` enters, and its function (`target`: the function
    /// the call enters in the concrete state, if it is defined).
    fn entered(&mut self, j: usize, target: Option<FuncId>) -> Option<(usize, FuncId)>;
    /// The draws of the initial contents of the object the allocator call at step `j`
    /// returns (a `ty` pointer).
    fn contents(&mut self, j: usize, ty: &CType, callee: &Callee) -> Vec<i128>;
    /// The draws of the pointer the call without a body at step `j` returns (a `ty`
    /// pointer): null or not, then, when not, the contents of its object.
    fn env_pointer(&mut self, j: usize, ty: &CType, callee: &Callee) -> Vec<i128>;
    /// The draws of the current step not taken yet (fed to the interpreter after the others).
    fn rest(&mut self) -> Vec<i128>;
}

/// The solver's values of the path formula's symbols.
struct Model<'a> {
    prog: &'a Program,
    pf: &'a PathFormula,
    model: HashMap<SymKind, i128>,
}

impl Source for Model<'_> {
    fn begin(&mut self, _: Option<usize>) {}

    fn fresh(&mut self, kind: SymKind, n: usize, int: bool) -> Vec<i128> {
        let v = if int {
            self.model.get(&kind).copied().unwrap_or(0)
        } else {
            0
        };
        let mut out = vec![0; n];
        if let Some(first) = out.first_mut() {
            *first = v;
        }
        out
    }

    fn listed(&self, kind: SymKind, _: i128) -> bool {
        // Uninitialised locals are listed only when the path depends on them.
        self.model.contains_key(&kind)
    }

    fn entered(&mut self, j: usize, _: Option<FuncId>) -> Option<(usize, FuncId)> {
        let b = crate::symbolic::entered(&self.pf.acts, &self.pf.act_of, j)?;
        Some((b, self.pf.acts[b].func))
    }

    /// The draws of [`cir::interp::draw_contents`] in its order, each the model's value of
    /// the [`SymKind::Content`] symbol of its path (0 when the path formula does not read it;
    /// for a pointer, non-null is an object of its own). `calloc` draws none.
    fn contents(&mut self, j: usize, ty: &CType, callee: &Callee) -> Vec<i128> {
        let CType::Pointer(t) = ty else {
            return Vec::new();
        };
        if matches!(callee, Callee::External(n) if n == "calloc")
            || matches!(**t, CType::Void | CType::Func(_))
        {
            return Vec::new();
        }
        let (model, pf) = (&self.model, self.pf);
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
        drawn
    }

    /// Non-null when the model's value of the [`SymKind::CallResult`] symbol is (0 when the
    /// path formula does not mention it: null, the interpreter's own choice).
    fn env_pointer(&mut self, j: usize, ty: &CType, callee: &Callee) -> Vec<i128> {
        match self.model.get(&SymKind::CallResult(j)) {
            Some(&v) if v != 0 => {
                let mut out = vec![1];
                out.extend(self.contents(j, ty, callee));
                out
            }
            _ => vec![0],
        }
    }

    fn rest(&mut self) -> Vec<i128> {
        Vec::new()
    }
}

/// The values a concrete run of the interpreter drew from its [`Oracle`], in its order:
/// before its first step (global initialisers, `main`'s parameters and locals), and at each
/// step of its path that drew any (a havoc, a call's result or contents, the locals of the
/// activation a call enters).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Drawn {
    /// The draws before the first step.
    pub initial: Vec<i128>,
    /// The draws of each step that drew any, by step.
    pub at: std::collections::BTreeMap<usize, Vec<i128>>,
}

/// A [`Drawn`] being fed back to the interpreter.
struct Feed {
    drawn: Drawn,
    /// The current step's draws not taken yet.
    current: VecDeque<i128>,
    /// Activations entered so far.
    calls: usize,
}

impl Source for Feed {
    fn begin(&mut self, j: Option<usize>) {
        let values = match j {
            None => std::mem::take(&mut self.drawn.initial),
            Some(j) => self.drawn.at.remove(&j).unwrap_or_default(),
        };
        self.current = values.into();
    }

    fn fresh(&mut self, _: SymKind, n: usize, _: bool) -> Vec<i128> {
        (0..n)
            .map(|_| self.current.pop_front().unwrap_or(0))
            .collect()
    }

    fn listed(&self, _: SymKind, v: i128) -> bool {
        // A local not listed starts at 0 in a witness's replay.
        v != 0
    }

    fn entered(&mut self, _: usize, target: Option<FuncId>) -> Option<(usize, FuncId)> {
        let f = target?;
        self.calls += 1;
        Some((self.calls, f))
    }

    fn contents(&mut self, _: usize, _: &CType, _: &Callee) -> Vec<i128> {
        self.rest()
    }

    fn env_pointer(&mut self, _: usize, _: &CType, _: &Callee) -> Vec<i128> {
        self.rest()
    }

    fn rest(&mut self) -> Vec<i128> {
        self.current.drain(..).collect()
    }
}

struct Inputs<'a> {
    prog: &'a Program,
    inputs: Vec<Input>,
}

impl Inputs<'_> {
    /// Loads the values of one fresh value of type `ty` into the queue; `input` says what it
    /// is (its value is set here).
    fn load(
        &mut self,
        src: &mut dyn Source,
        q: &mut Queue,
        ty: &CType,
        kind: SymKind,
        input: Input,
    ) {
        let n = draws(self.prog, ty);
        if n == 0 {
            return;
        }
        let int = matches!(ty, CType::Int(_));
        let values = src.fresh(kind, n, int);
        let v = values.first().copied().unwrap_or(0);
        let uninit = matches!(kind, SymKind::Uninit { .. });
        if uninit
            && let CType::Array(t, _) = ty
            && matches!(**t, CType::Int(_))
            && let Some(local) = &input.local
        {
            // The elements of a local array of integers, each listed when not 0 (the value
            // a witness's replay gives an element it does not list).
            for (i, &e) in values.iter().enumerate().filter(|(_, e)| **e != 0) {
                let name = format!("{}[{i}]", local.variable);
                self.inputs.push(Input {
                    what: format!("initial value of `{name}` in `{}`", local.function),
                    value: e,
                    local: Some(LocalInit {
                        element: Some(i),
                        ..local.clone()
                    }),
                    ..input.clone()
                });
            }
        }
        q.values.extend(values);
        let listed = !uninit || src.listed(kind, v);
        if int && listed {
            self.inputs.push(Input { value: v, ..input });
        }
    }

    /// Loads the values of the uninitialised locals (and, for `main`, the parameters) of
    /// activation `act` of `f`, entered by the call at step `entered_at` (`None`: `main`).
    fn locals(
        &mut self,
        src: &mut dyn Source,
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
                element: None,
            });
            let input = Input {
                what: format!("initial value of `{}` in `{}`", info.name, f.name),
                pos: prog.show_pos(info.pos),
                value: 0,
                step: None,
                local,
            };
            self.load(src, q, &info.ty, SymKind::Uninit { act, var: v }, input);
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
    let model = pf
        .symbols
        .iter()
        .zip(values)
        .filter_map(|(s, v)| v.map(|v| (s.kind, v)))
        .collect();
    replay_with(prog, path, &mut Model { prog, pf, model })
}

/// Replays `path`, the path of a concrete run of the interpreter, with the values that run
/// drew: the same check as [`replay`] (every edge of the path taken, the error reached) and
/// the same counterexample, its inputs described as the path formula's would be (an
/// uninitialised local listed when its value is not 0).
pub fn replay_drawn(
    prog: &Program,
    path: &[CStep],
    drawn: Drawn,
) -> Result<Counterexample, Mismatch> {
    let mut feed = Feed {
        drawn,
        current: VecDeque::new(),
        calls: 0,
    };
    replay_with(prog, path, &mut feed)
}

/// The function a call edge enters in the interpreter's current state, if it is defined.
fn call_target(prog: &Program, it: &Interp<'_>, callee: &Callee) -> Option<FuncId> {
    match callee {
        Callee::Defined(f) => Some(*f),
        Callee::Indirect(fp) => match it.value_of(fp) {
            Ok(Value::Ptr(Ptr::Func(name))) => prog.function(&name).map(|f| f.id),
            _ => None,
        },
        Callee::Nondet(_) | Callee::External(_) => None,
    }
}

/// Loads the values of the initial state: unmodelled global initialisers, then `main`'s
/// parameters and locals.
fn load_start(
    prog: &Program,
    ins: &mut Inputs<'_>,
    src: &mut dyn Source,
    q: &mut Queue,
    main: &cir::ir::Function,
) {
    src.begin(None);
    for (i, init) in prog.global_inits.iter().enumerate() {
        if init.value.is_none() {
            let input = Input {
                what: format!("initial value of `{}`", prog.show_expr(&init.lhs)),
                pos: prog.show_pos(init.pos),
                value: 0,
                step: None,
                local: None,
            };
            ins.load(src, q, &init.lhs.ty, SymKind::GlobalInit(i), input);
        }
    }
    ins.locals(src, q, 0, main, None);
    q.values.extend(src.rest());
}

/// Loads the values step `j` (edge `e`) draws.
fn load_step(
    ins: &mut Inputs<'_>,
    src: &mut dyn Source,
    q: &mut Queue,
    it: &Interp<'_>,
    (j, s): (usize, &CStep),
    e: &cir::ir::Edge,
) {
    let prog = ins.prog;
    src.begin(Some(j));
    match &e.kind {
        EdgeKind::Havoc { lhs, .. } => {
            let input = Input {
                what: format!("arbitrary value of `{}`", prog.show_expr(lhs)),
                pos: prog.show_pos(e.pos),
                value: 0,
                step: Some(j),
                local: None,
            };
            ins.load(src, q, &lhs.ty, SymKind::Havoc(j), input);
        }
        EdgeKind::Call { ret, callee, .. } => {
            if let Some((b, g)) = src.entered(j, call_target(prog, it, callee)) {
                let g = &prog.functions[g.0 as usize];
                ins.locals(src, q, b, g, Some(j));
            } else if let Some(r) = ret
                && callee.is_allocator()
            {
                q.values.extend(src.contents(j, &prog.var(*r).ty, callee));
            } else if let Some(r) = ret
                && matches!(prog.var(*r).ty, CType::Pointer(_))
            {
                q.values
                    .extend(src.env_pointer(j, &prog.var(*r).ty, callee));
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
                ins.load(src, q, &prog.var(*r).ty, SymKind::CallResult(j), input);
            }
        }
        _ => {}
    }
    q.values.extend(src.rest());
}

/// The replay of `path` with the values of `src`.
fn replay_with(
    prog: &Program,
    path: &[CStep],
    src: &mut dyn Source,
) -> Result<Counterexample, Mismatch> {
    let mut ins = Inputs {
        prog,
        inputs: Vec::new(),
    };
    let mut q = Queue::default();
    let Some(first) = path.first() else {
        return Err(Mismatch("the path is empty".into()));
    };
    let main = &prog.functions[first.edge.func.0 as usize];
    load_start(prog, &mut ins, src, &mut q, main);
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
        load_step(&mut ins, src, &mut q, &it, (j, s), e);
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
