//! The concrete interpreter: runs the IR ([`crate::ir`]) on concrete values. The toolkit has
//! one C semantics, used by c2bp, newton, constrain *and the concrete interpreter*; this
//! module owns nothing of it but its execution: every rule is the one documented in
//! `docs/c-semantics.md` and encoded by the `smt` module (ranges, the usual arithmetic
//! conversions, unsigned wrap-around, gcc's wrap-around for narrowing signed conversions, C's
//! truncating division).
//!
//! Its uses: the soundness-by-execution test of `c2bp` (the predicate values along a concrete
//! run must be a run of the Boolean program, since the Boolean program over-approximates every
//! execution: C2BP, PLDI'01 §4) and, later, replaying a counterexample on the concrete program.
//!
//! # Model
//! - **Memory** is a set of objects (one per variable instance: globals once, locals and formals
//!   per call), each holding a value tree: integers, pointers, structures and arrays
//!   ([`Value`]). A pointer is null, a function, or an object plus a path of field/element
//!   indices ([`Ptr`]). When a function returns, its objects die; using a pointer to them is
//!   undefined behaviour. A variable-length array has no elements until its declaration
//!   runs, then as many as its length ([`Program::vla_lengths`]), each zero (one of their
//!   indeterminate values).
//! - **Allocation** (`malloc` & co.) makes a fresh object. One whose type the lowering knows
//!   (`malloc(sizeof(T))`) starts with arbitrary contents drawn from the oracle ([`heap`]:
//!   a pointer among them is null or points to an object of its own), `calloc`'s with zeros;
//!   one of unknown type is typed by its first access, zero-filled (one of its possible
//!   contents).
//! - **Addresses**: a pointer converted to an integer is a number the interpreter gives each
//!   place on first use (non-zero, distinct per place, the same every time); such a number
//!   converted back is the same pointer.
//! - **Nondeterminism** (uninitialised locals, `__VERIFIER_nondet_*`, results of functions
//!   without a body, havocked lvalues, allocated contents, the choice among enabled edges) is
//!   resolved by an [`Oracle`]. Uninitialised pointers of locals are null (one of their
//!   possible values); a pointer a nondet intrinsic or a function without a body returns is
//!   null or points to an object of its own with arbitrary contents ([`heap`]); functions
//!   without a body other than allocators modify nothing (one of their possible behaviours).
//! - **Undefined behaviour** (signed overflow, division by zero, null or dead dereference, an
//!   index out of bounds, an out-of-range shift) ends the run with [`Fault::Undefined`]: the
//!   abstraction need not cover it. Constructs the interpreter does not model (floating point,
//!   unions, string objects, integers converted to pointers that no pointer gave, pointer
//!   arithmetic outside an array, a havoc standing for a construct the lowering approximates) end it with [`Fault::Unsupported`]. Either way the run is a prefix that *was* executed soundly.
//!
//! The interpreter is a small-step machine ([`Interp::step`]; [`Interp::take`] follows a given
//! edge instead, to replay a path): before each step a caller may evaluate expressions
//! (predicates) in the current frame with [`Interp::eval_condition`].

use std::cell::RefCell;
use std::collections::HashMap;

pub mod heap;

pub use heap::{Contents, HeapStep, draw_contents};

use crate::ir::{
    BinOp, Callee, EdgeId, EdgeKind, Expr, ExprKind, FuncId, NodeId, Program, UnOp, VarId,
};
use crate::types::{CType, IntKind};

/// Where the nondeterministic choices of a run come from.
pub trait Oracle {
    /// An arbitrary integer in `lo..=hi`.
    fn value(&mut self, lo: i128, hi: i128) -> i128;
    /// One of `n > 0` alternatives.
    fn choose(&mut self, n: usize) -> usize;
    /// The initial value, in `lo..=hi`, of the uninitialised scalar local `var` of a function
    /// being entered (drawn in the order of the function's locals). An oracle that knows
    /// values by variable (a violation witness's) answers here; by default it is the next
    /// [`Oracle::value`].
    fn initial(&mut self, var: VarId, lo: i128, hi: i128) -> i128 {
        let _ = var;
        self.value(lo, hi)
    }
    /// The initial value, in `lo..=hi`, of element `index` of the uninitialised local `var`,
    /// an array of integers of one dimension, of a function being entered (asked for each
    /// element in order, after [`Oracle::initial`] for the scalars before it). By default
    /// the next [`Oracle::value`], as for every other aggregate's contents.
    fn initial_element(&mut self, var: VarId, index: usize, lo: i128, hi: i128) -> i128 {
        let _ = (var, index);
        self.value(lo, hi)
    }
}

/// Why a run stopped before its end: the prefix executed so far is a real execution.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Fault {
    /// Undefined behaviour in C (the abstraction does not have to cover what follows).
    #[error("undefined behaviour: {0}")]
    Undefined(String),
    /// A construct the interpreter does not model.
    #[error("not supported by the interpreter: {0}")]
    Unsupported(String),
}

/// How a run ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum End {
    /// `main` returned.
    Exit,
    /// An error edge was taken.
    Error(EdgeId),
    /// `abort()`/`exit()` (a halt edge) was taken.
    Halt(EdgeId),
    /// No edge is enabled (an assumption failed): the run is infeasible from here.
    Blocked,
}

/// What one [`Interp::step`] did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Event {
    /// An edge of the current function was taken (assignment, assume, havoc, skip, `return`
    /// to the exit node, or a call of a function without a body).
    Edge(EdgeId),
    /// A call edge entered a defined function: its frame is now on top, at its entry.
    Call(EdgeId, FuncId),
    /// The current function's exit node was reached: its frame is popped, the result (if any)
    /// is in the caller's temporary and the caller is past its call edge.
    Return(FuncId),
    /// The run ended (the edge that ended it, if any, is in [`End`]).
    End(End),
}

/// A pointer value.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Ptr {
    /// The null pointer.
    Null,
    /// A function designator.
    Func(String),
    /// A place inside an object.
    Obj {
        /// The object.
        obj: u32,
        /// Field and element indices from the object's root value.
        path: Vec<u32>,
    },
}

/// A value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Value {
    /// An integer (of the type the context gives it).
    Int(i128),
    /// A pointer.
    Ptr(Ptr),
    /// A structure's fields, in order.
    Struct(Vec<Value>),
    /// An array's elements.
    Array(Vec<Value>),
    /// A value the interpreter does not model (floating point, unions): using it is
    /// [`Fault::Unsupported`].
    Opaque,
}

struct Object {
    value: Value,
    alive: bool,
    /// Allocated by `malloc` & co.: untyped (`Opaque`) until its first typed access.
    heap: bool,
}

struct Frame {
    func: FuncId,
    node: NodeId,
    vars: HashMap<VarId, u32>,
    /// The caller's result temporary and the node it continues at.
    ret_to: Option<(Option<VarId>, NodeId)>,
    ret_val: Option<Value>,
}

/// Largest array the interpreter allocates (elements).
const MAX_ARRAY: u64 = 1 << 16;

fn undefined<T>(what: impl Into<String>) -> Result<T, Fault> {
    Err(Fault::Undefined(what.into()))
}

fn unsupported<T>(what: impl Into<String>) -> Result<T, Fault> {
    Err(Fault::Unsupported(what.into()))
}

/// The concrete state of a run and its small-step semantics.
pub struct Interp<'p> {
    prog: &'p Program,
    /// Objects; a `RefCell` because the first typed access to a heap object gives it its
    /// type (see [`Interp::typed_heap`]) while evaluating, which is otherwise read-only.
    objects: RefCell<Vec<Object>>,
    globals: HashMap<VarId, u32>,
    frames: Vec<Frame>,
    /// The integer of each place converted to an integer, and back.
    addresses: RefCell<(HashMap<Ptr, i128>, HashMap<i128, Ptr>)>,
}

/// The integer of the first place converted to an integer; the next ones are 16 apart.
const FIRST_ADDRESS: i128 = 0x1000;

impl<'p> Interp<'p> {
    /// The initial state: global storage zero-initialised then given its initialisers
    /// (unmodelled ones chosen by the oracle), `main` at its entry with arbitrary locals and
    /// parameters.
    pub fn new(prog: &'p Program, oracle: &mut dyn Oracle) -> Result<Interp<'p>, Fault> {
        let mut it = Interp {
            prog,
            objects: RefCell::new(Vec::new()),
            globals: HashMap::new(),
            frames: Vec::new(),
            addresses: RefCell::new((HashMap::new(), HashMap::new())),
        };
        for &g in &prog.globals {
            let v = it.fresh(&prog.var(g).ty, None)?;
            let id = it.alloc(v);
            it.globals.insert(g, id);
        }
        for init in &prog.global_inits {
            let place = it.place(&init.lhs)?;
            let v = match &init.value {
                Some(e) => {
                    let v = it.eval(e)?;
                    it.convert(v, &e.ty, &init.lhs.ty)?
                }
                None => it.fresh(&init.lhs.ty, Some(oracle))?,
            };
            it.write(&place, v)?;
        }
        let Some(main) = prog.functions.iter().find(|f| f.name == "main") else {
            return unsupported("the program has no `main`");
        };
        let mut args = Vec::new();
        for &p in &main.formals {
            args.push(it.fresh(&prog.var(p).ty, Some(oracle))?);
        }
        it.enter(main.id, args, None, oracle)?;
        Ok(it)
    }

    /// The current function and node (`None` once the run has ended).
    pub fn location(&self) -> Option<(FuncId, NodeId)> {
        self.frames.last().map(|f| (f.func, f.node))
    }

    /// Number of frames on the stack.
    pub fn depth(&self) -> usize {
        self.frames.len()
    }

    /// Evaluates a condition (a predicate) in the current frame: non-zero is true.
    pub fn eval_condition(&self, e: &Expr) -> Result<bool, Fault> {
        let v = self.eval(e)?;
        self.truth(&v)
    }

    /// Evaluates an expression in the current frame (for showing the values of a
    /// counterexample's variables).
    pub fn value_of(&self, e: &Expr) -> Result<Value, Fault> {
        self.eval(e)
    }

    /// Takes one step: at a function's exit node, returns from it; otherwise takes one of the
    /// enabled out-edges of the current node (the oracle chooses when several are).
    pub fn step(&mut self, oracle: &mut dyn Oracle) -> Result<Event, Fault> {
        let prog = self.prog;
        let Some(top) = self.frames.last() else {
            return Ok(Event::End(End::Exit));
        };
        let func = &prog.functions[top.func.0 as usize];
        let node = top.node;
        if node == func.exit {
            return self.leave(oracle);
        }
        let mut enabled = Vec::new();
        for e in func.edges.iter().filter(|e| e.from == node) {
            if self.enabled(&e.kind)? {
                enabled.push(e.id);
            }
        }
        let id = match enabled.len() {
            0 => return Ok(Event::End(End::Blocked)),
            1 => enabled[0],
            n => enabled[oracle.choose(n).min(n - 1)],
        };
        self.take_unchecked(id, oracle)
    }

    /// Whether the current function is at its exit node (the next [`Interp::step`] returns).
    pub fn at_exit(&self) -> bool {
        self.frames.last().is_some_and(|f| {
            let func = &self.prog.functions[f.func.0 as usize];
            f.node == func.exit
        })
    }

    /// Takes `edge`, if it leaves the current node and is enabled (its assumption holds);
    /// `Ok(None)` otherwise, with the state unchanged. For following a given path (replaying
    /// a counterexample); at a function's exit, [`Interp::step`] returns.
    pub fn take(&mut self, edge: EdgeId, oracle: &mut dyn Oracle) -> Result<Option<Event>, Fault> {
        let Some(top) = self.frames.last() else {
            return Ok(None);
        };
        if edge.func != top.func {
            return Ok(None);
        }
        let func = &self.prog.functions[top.func.0 as usize];
        let Some(e) = func.edges.get(edge.index as usize) else {
            return Ok(None);
        };
        if e.from != top.node || !self.enabled(&e.kind)? {
            return Ok(None);
        }
        self.take_unchecked(edge, oracle).map(Some)
    }

    fn enabled(&self, kind: &EdgeKind) -> Result<bool, Fault> {
        match kind {
            EdgeKind::Assume(c) => self.eval_condition(c),
            _ => Ok(true),
        }
    }

    /// Takes an enabled out-edge of the current node.
    fn take_unchecked(&mut self, id: EdgeId, oracle: &mut dyn Oracle) -> Result<Event, Fault> {
        let prog = self.prog;
        let top = self.frames.last().expect("a frame");
        let func = &prog.functions[top.func.0 as usize];
        let edge = &func.edges[id.index as usize];
        match &edge.kind {
            EdgeKind::Assign { lhs, rhs } => {
                let v = self.eval(rhs)?;
                let v = self.convert(v, &rhs.ty, &lhs.ty)?;
                let place = self.place(lhs)?;
                // The length of a variable-length array being declared (an integer).
                let vla = match lhs.kind {
                    ExprKind::Var(t) => prog.vla_lengths.iter().find(|(_, l)| *l == t),
                    _ => None,
                }
                .map(|&(a, _)| (a, v.clone()));
                self.write(&place, v)?;
                if let Some((a, len)) = vla {
                    self.size_vla(a, &len)?;
                }
            }
            // An approximated construct has one effect the interpreter does not know: executing
            // it as a free choice could reach states the program cannot.
            EdgeKind::Havoc {
                approximation: true,
                reason,
                ..
            } => return Err(Fault::Unsupported(reason.clone())),
            EdgeKind::Havoc { lhs, .. } => {
                let v = match lhs.kind {
                    // Sized by its declaration, which follows.
                    ExprKind::Var(a) if self.is_vla(a) => Value::Array(Vec::new()),
                    _ => self.fresh(&lhs.ty, Some(oracle))?,
                };
                let place = self.place(lhs)?;
                self.write(&place, v)?;
            }
            EdgeKind::Assume(_) | EdgeKind::Skip => {}
            EdgeKind::Return(e) => {
                if let Some(e) = e {
                    let v = self.eval(e)?;
                    let v = self.convert(v, &e.ty, &func.ty.ret)?;
                    self.top_mut().ret_val = Some(v);
                }
            }
            EdgeKind::Error { .. } => {
                self.frames.clear();
                return Ok(Event::End(End::Error(id)));
            }
            EdgeKind::Halt { .. } => {
                self.frames.clear();
                return Ok(Event::End(End::Halt(id)));
            }
            EdgeKind::Call { ret, callee, args } => {
                let mut vals = Vec::new();
                for a in args {
                    vals.push(self.eval(a)?);
                }
                let target = match callee {
                    Callee::Defined(f) => Some(*f),
                    Callee::Nondet(_) | Callee::External(_) => None,
                    Callee::Indirect(fp) => match self.eval(fp)? {
                        Value::Ptr(Ptr::Func(name)) => prog.function(&name).map(|f| f.id),
                        Value::Ptr(Ptr::Null) => return undefined("call through a null pointer"),
                        _ => return unsupported("call through a non-function pointer"),
                    },
                };
                if let Some(f) = target {
                    let formals = &prog.functions[f.0 as usize].formals;
                    if formals.len() > vals.len() {
                        return undefined("a call with too few arguments");
                    }
                    let mut conv = Vec::new();
                    for ((v, a), &p) in vals.into_iter().zip(args).zip(formals) {
                        conv.push(self.convert(v, &a.ty, &prog.var(p).ty)?);
                    }
                    self.top_mut().node = edge.to;
                    self.enter(f, conv, Some((*ret, edge.to)), oracle)?;
                    return Ok(Event::Call(id, f));
                }
                if let Some(r) = ret {
                    let ty = prog.var(*r).ty.clone();
                    let v = match (&ty, callee) {
                        // An allocator: a fresh object.
                        (CType::Pointer(t), c) if c.is_allocator() => {
                            let zero = matches!(c, Callee::External(n) if n == "calloc");
                            self.allocate(t, zero, oracle)?
                        }
                        // The environment's pointer: null or an object of its own.
                        (CType::Pointer(_), _) => {
                            let c =
                                draw_contents(prog, &ty, 0, &mut Vec::new(), &mut |_, lo, hi| {
                                    oracle.value(lo, hi).clamp(lo, hi)
                                })?;
                            self.materialise(c)
                        }
                        // No body: an arbitrary result, nothing else modified.
                        _ => self.fresh(&ty, Some(oracle))?,
                    };
                    let place = self.place_of_var(*r)?;
                    self.write(&place, v)?;
                }
            }
        }
        self.top_mut().node = edge.to;
        Ok(Event::Edge(id))
    }

    fn top_mut(&mut self) -> &mut Frame {
        self.frames.last_mut().expect("a frame")
    }

    fn alloc(&mut self, value: Value) -> u32 {
        self.alloc_object(value, false)
    }

    /// A fresh object of type `t` (`void`: typed by its first access) with arbitrary contents
    /// drawn from the oracle (zero when `zero`), and the pointer to it.
    fn allocate(&mut self, t: &CType, zero: bool, oracle: &mut dyn Oracle) -> Result<Value, Fault> {
        let value = match t {
            CType::Void | CType::Func(_) => Value::Opaque,
            t if zero => self.fresh(t, None)?,
            t => {
                let c = draw_contents(self.prog, t, 1, &mut Vec::new(), &mut |_, lo, hi| {
                    oracle.value(lo, hi).clamp(lo, hi)
                })?;
                self.value_of_contents(c)
            }
        };
        let obj = self.alloc_object(value, true);
        Ok(Value::Ptr(Ptr::Obj {
            obj,
            path: Vec::new(),
        }))
    }

    /// The value of drawn contents, with an object for each non-null pointer.
    fn value_of_contents(&mut self, c: Contents) -> Value {
        match c {
            Contents::Int(v) => Value::Int(v),
            Contents::Null => Value::Ptr(Ptr::Null),
            c @ Contents::Object(_) => self.materialise(c),
            Contents::Struct(fs) => {
                Value::Struct(fs.into_iter().map(|f| self.value_of_contents(f)).collect())
            }
            Contents::Array(es) => {
                Value::Array(es.into_iter().map(|e| self.value_of_contents(e)).collect())
            }
            Contents::Opaque => Value::Opaque,
        }
    }

    /// A pointer's drawn contents as a value: null, or a pointer to a new object.
    fn materialise(&mut self, c: Contents) -> Value {
        match c {
            Contents::Object(inner) => {
                let value = match inner {
                    Some(c) => self.value_of_contents(*c),
                    None => Value::Opaque,
                };
                let obj = self.alloc_object(value, true);
                Value::Ptr(Ptr::Obj {
                    obj,
                    path: Vec::new(),
                })
            }
            Contents::Null => Value::Ptr(Ptr::Null),
            other => self.value_of_contents(other),
        }
    }

    /// The integer of a place (module doc: addresses).
    fn address(&self, p: &Ptr) -> i128 {
        let mut a = self.addresses.borrow_mut();
        if let Some(&n) = a.0.get(p) {
            return n;
        }
        let n = FIRST_ADDRESS + 16 * a.0.len() as i128;
        a.0.insert(p.clone(), n);
        a.1.insert(n, p.clone());
        n
    }

    /// The pointer an integer converted back stands for (`None`: no place has it).
    fn pointer_of(&self, n: i128) -> Option<Ptr> {
        self.addresses.borrow().1.get(&n).cloned()
    }

    fn alloc_object(&mut self, value: Value, heap: bool) -> u32 {
        let objs = self.objects.get_mut();
        objs.push(Object {
            value,
            alive: true,
            heap,
        });
        u32::try_from(objs.len() - 1).unwrap_or(u32::MAX)
    }

    fn enter(
        &mut self,
        f: FuncId,
        args: Vec<Value>,
        ret_to: Option<(Option<VarId>, NodeId)>,
        oracle: &mut dyn Oracle,
    ) -> Result<(), Fault> {
        let func = &self.prog.functions[f.0 as usize];
        let mut vars = HashMap::new();
        for (&p, v) in func.formals.iter().zip(args) {
            vars.insert(p, self.alloc(v));
        }
        for &l in &func.locals {
            let ty = &self.prog.var(l).ty;
            let v = if let CType::Int(k) = ty {
                let (lo, hi) = k.range(self.prog.data_model);
                Value::Int(oracle.initial(l, lo, hi).clamp(lo, hi))
            } else if self.is_vla(l) {
                // A variable-length array has no elements until its declaration runs.
                Value::Array(Vec::new())
            } else if let CType::Array(t, Some(n)) = ty
                && let CType::Int(k) = &**t
                && *n <= MAX_ARRAY
            {
                let (lo, hi) = k.range(self.prog.data_model);
                let n = usize::try_from(*n).unwrap_or(0);
                let mut element = |i| oracle.initial_element(l, i, lo, hi).clamp(lo, hi);
                Value::Array((0..n).map(|i| Value::Int(element(i))).collect())
            } else {
                self.fresh(ty, Some(oracle))?
            };
            vars.insert(l, self.alloc(v));
        }
        if self.frames.len() > 10_000 {
            return unsupported("call depth above 10,000");
        }
        self.frames.push(Frame {
            func: f,
            node: func.entry,
            vars,
            ret_to,
            ret_val: None,
        });
        Ok(())
    }

    fn leave(&mut self, oracle: &mut dyn Oracle) -> Result<Event, Fault> {
        let frame = self.frames.pop().expect("a frame");
        for &o in frame.vars.values() {
            self.objects.get_mut()[o as usize].alive = false;
        }
        let Some((ret, _)) = frame.ret_to else {
            self.frames.clear();
            return Ok(Event::End(End::Exit));
        };
        if let Some(r) = ret {
            let func = &self.prog.functions[frame.func.0 as usize];
            let ty = &self.prog.var(r).ty;
            let v = match frame.ret_val {
                Some(v) => self.convert(v, &func.ty.ret, ty)?,
                None => self.fresh(ty, Some(oracle))?,
            };
            let place = self.place_of_var(r)?;
            self.write(&place, v)?;
        }
        Ok(Event::Return(frame.func))
    }

    /// A value of type `ty`: zero (`None`) or chosen by the oracle.
    fn fresh(&self, ty: &CType, oracle: Option<&mut dyn Oracle>) -> Result<Value, Fault> {
        match oracle {
            Some(o) => self.fresh_with(ty, &mut |lo, hi| o.value(lo, hi).clamp(lo, hi)),
            None => self.fresh_with(ty, &mut |_, _| 0),
        }
    }

    fn fresh_with(
        &self,
        ty: &CType,
        draw: &mut dyn FnMut(i128, i128) -> i128,
    ) -> Result<Value, Fault> {
        Ok(match ty {
            CType::Int(k) => {
                let (lo, hi) = k.range(self.prog.data_model);
                Value::Int(draw(lo, hi))
            }
            CType::Pointer(_) => Value::Ptr(Ptr::Null),
            CType::Array(t, n) => {
                let n = match n {
                    Some(n) if *n <= MAX_ARRAY => *n,
                    _ => return unsupported("an array of unknown or very large length"),
                };
                let mut out = Vec::new();
                for _ in 0..n {
                    out.push(self.fresh_with(t, draw)?);
                }
                Value::Array(out)
            }
            CType::Struct(s) => {
                let def = &self.prog.structs[s.0 as usize];
                match (&def.fields, def.is_union) {
                    (Some(fields), false) => {
                        let mut out = Vec::new();
                        for (_, t) in fields {
                            out.push(self.fresh_with(t, draw)?);
                        }
                        Value::Struct(out)
                    }
                    _ => Value::Opaque,
                }
            }
            CType::Void | CType::Float(_) | CType::Func(_) => Value::Opaque,
        })
    }

    /// Whether `v` is a variable-length array ([`Program::vla_lengths`]).
    fn is_vla(&self, v: VarId) -> bool {
        self.prog.vla_lengths.iter().any(|(a, _)| *a == v)
    }

    /// The declaration of the variable-length array `a` with length `len`: `len` elements of
    /// indeterminate contents, here zero (one of their possible values, as for an object of
    /// unknown type).
    fn size_vla(&mut self, a: VarId, len: &Value) -> Result<(), Fault> {
        let Value::Int(n) = len else {
            return unsupported("a variable-length array of a non-integer length");
        };
        let n = match u64::try_from(*n) {
            Ok(0) | Err(_) => return undefined("a variable-length array of length 0 or less"),
            Ok(n) if n <= MAX_ARRAY => n,
            Ok(_) => return unsupported("an array of unknown or very large length"),
        };
        let CType::Array(t, _) = &self.prog.var(a).ty else {
            return unsupported("a variable-length array of a non-array type");
        };
        let mut out = Vec::new();
        for _ in 0..n {
            out.push(self.fresh(t, None)?);
        }
        let place = self.place_of_var(a)?;
        self.write(&place, Value::Array(out))
    }

    fn place_of_var(&self, v: VarId) -> Result<Ptr, Fault> {
        let obj = self
            .frames
            .last()
            .and_then(|f| f.vars.get(&v))
            .or_else(|| self.globals.get(&v));
        match obj {
            Some(&obj) => Ok(Ptr::Obj {
                obj,
                path: Vec::new(),
            }),
            None => unsupported(format!(
                "variable `{}` is not in scope",
                self.prog.var(v).name
            )),
        }
    }

    /// The place an lvalue denotes.
    fn place(&self, e: &Expr) -> Result<Ptr, Fault> {
        match &e.kind {
            ExprKind::Var(v) => self.place_of_var(*v),
            ExprKind::Deref(p) => {
                let v = self.eval(p)?;
                let place = self.deref_place(v)?;
                self.typed_heap(&place, &e.ty);
                Ok(place)
            }
            ExprKind::Field(b, name) => {
                let CType::Struct(s) = &b.ty else {
                    return unsupported("a field of a non-structure");
                };
                let def = &self.prog.structs[s.0 as usize];
                if def.is_union {
                    return unsupported("union fields");
                }
                let Some(i) = def
                    .fields
                    .as_ref()
                    .and_then(|fs| fs.iter().position(|(n, _)| n == name))
                else {
                    return unsupported(format!("field `{name}`"));
                };
                let mut p = self.place(b)?;
                if let Ptr::Obj { path, .. } = &mut p {
                    path.push(u32::try_from(i).unwrap_or(u32::MAX));
                }
                Ok(p)
            }
            ExprKind::Index(a, i) => {
                let idx = self.int(i)?;
                if matches!(a.ty, CType::Array(..)) {
                    let mut p = self.place(a)?;
                    if let Ptr::Obj { path, .. } = &mut p {
                        let Ok(k) = u32::try_from(idx) else {
                            return undefined("a negative array index");
                        };
                        path.push(k);
                    }
                    // Bounds are checked on access.
                    Ok(p)
                } else {
                    let base = self.eval(a)?;
                    let p = self.offset(base, idx)?;
                    self.deref_place(p)
                }
            }
            _ => unsupported("an lvalue of this form"),
        }
    }

    /// Gives an untyped heap object the type `ty` of its first access through `place` (the
    /// whole object): zero-filled, one of the values its uninitialised contents may have
    /// (`calloc`'s exactly).
    fn typed_heap(&self, place: &Ptr, ty: &CType) {
        let Ptr::Obj { obj, path } = place else {
            return;
        };
        if !path.is_empty() {
            return;
        }
        let untyped = {
            let objs = self.objects.borrow();
            let o = &objs[*obj as usize];
            o.heap && o.value == Value::Opaque
        };
        if untyped && let Ok(v) = self.fresh(ty, None) {
            self.objects.borrow_mut()[*obj as usize].value = v;
        }
    }

    fn deref_place(&self, v: Value) -> Result<Ptr, Fault> {
        match v {
            Value::Ptr(p @ Ptr::Obj { .. }) => Ok(p),
            Value::Ptr(Ptr::Null) => undefined("null pointer dereference"),
            Value::Ptr(Ptr::Func(_)) => unsupported("dereference of a function pointer"),
            _ => unsupported("dereference of a non-pointer"),
        }
    }

    /// The value at a place (undefined when the object is dead or the path leaves it).
    fn read(&self, p: &Ptr) -> Result<Value, Fault> {
        self.inspect(p, Value::clone)
    }

    /// `f` of the value at a place, which it borrows (no copy of an array to see its length).
    fn inspect<R>(&self, p: &Ptr, f: impl FnOnce(&Value) -> R) -> Result<R, Fault> {
        let Ptr::Obj { obj, path } = p else {
            return undefined("access through a non-object pointer");
        };
        let objs = self.objects.borrow();
        let o = &objs[*obj as usize];
        if !o.alive {
            return undefined("access to an object whose lifetime ended");
        }
        let mut v = &o.value;
        for &i in path {
            v = match v {
                Value::Struct(fs) | Value::Array(fs) => match fs.get(i as usize) {
                    Some(x) => x,
                    None => return undefined("access out of bounds"),
                },
                Value::Opaque => return unsupported("a part of an unmodelled value"),
                _ => return undefined("access out of bounds"),
            };
        }
        Ok(f(v))
    }

    fn write(&mut self, p: &Ptr, value: Value) -> Result<(), Fault> {
        let Ptr::Obj { obj, path } = p else {
            return undefined("write through a non-object pointer");
        };
        let o = &mut self.objects.get_mut()[*obj as usize];
        if !o.alive {
            return undefined("write to an object whose lifetime ended");
        }
        let mut v = &mut o.value;
        for &i in path {
            v = match v {
                Value::Struct(fs) | Value::Array(fs) => match fs.get_mut(i as usize) {
                    Some(x) => x,
                    None => return undefined("write out of bounds"),
                },
                Value::Opaque => return unsupported("a part of an unmodelled value"),
                _ => return undefined("write out of bounds"),
            };
        }
        *v = value;
        Ok(())
    }

    /// `p + k` in element units: only inside an array (one past its end included).
    fn offset(&self, p: Value, k: i128) -> Result<Value, Fault> {
        if k == 0 {
            return Ok(p);
        }
        let Value::Ptr(Ptr::Obj { obj, mut path }) = p else {
            return match p {
                Value::Ptr(Ptr::Null) => undefined("arithmetic on a null pointer"),
                _ => unsupported("pointer arithmetic on a non-object pointer"),
            };
        };
        let Some(last) = path.pop() else {
            return unsupported("pointer arithmetic outside an array");
        };
        let container = Ptr::Obj {
            obj,
            path: path.clone(),
        };
        let len = self.inspect(&container, |v| match v {
            Value::Array(elems) => Some(elems.len()),
            _ => None,
        })?;
        let Some(len) = len else {
            return unsupported("pointer arithmetic outside an array");
        };
        let n = i128::from(last) + k;
        if n < 0 || n > len as i128 {
            return undefined("pointer arithmetic out of the array");
        }
        path.push(u32::try_from(n).unwrap_or(u32::MAX));
        Ok(Value::Ptr(Ptr::Obj { obj, path }))
    }

    fn truth(&self, v: &Value) -> Result<bool, Fault> {
        match v {
            Value::Int(x) => Ok(*x != 0),
            Value::Ptr(p) => Ok(*p != Ptr::Null),
            _ => unsupported("the truth value of a non-scalar"),
        }
    }

    fn int(&self, e: &Expr) -> Result<i128, Fault> {
        match self.eval(e)? {
            Value::Int(x) => Ok(x),
            Value::Ptr(Ptr::Null) => Ok(0),
            _ => unsupported("a pointer used as an integer"),
        }
    }

    fn data_range(&self, k: IntKind) -> (i128, i128) {
        k.range(self.prog.data_model)
    }

    /// `x` as a value of `k`: wrapped modulo 2^width (two's complement for signed `k`, as gcc
    /// does for narrowing conversions).
    fn wrap(&self, x: i128, k: IntKind) -> i128 {
        k.wrap(x, self.prog.data_model)
    }

    /// The result of an arithmetic operation of type `k`: wrapped when unsigned, undefined
    /// when a signed result leaves the range.
    fn arith_result(&self, x: i128, k: IntKind) -> Result<Value, Fault> {
        if k.is_signed() {
            let (lo, hi) = self.data_range(k);
            if x < lo || x > hi {
                return undefined(format!("signed overflow ({x} as {})", k.c_name()));
            }
            Ok(Value::Int(x))
        } else {
            Ok(Value::Int(self.wrap(x, k)))
        }
    }

    /// Converts a value of type `from` to type `to` (C11 6.3.1.3, as `docs/c-semantics.md` says).
    fn convert(&self, v: Value, from: &CType, to: &CType) -> Result<Value, Fault> {
        match (to, v) {
            (CType::Int(k), Value::Int(x)) => Ok(Value::Int(self.wrap(x, *k))),
            (CType::Int(_), Value::Ptr(Ptr::Null)) => Ok(Value::Int(0)),
            (CType::Int(k), Value::Ptr(p)) => Ok(Value::Int(self.wrap(self.address(&p), *k))),
            (CType::Pointer(_), Value::Int(0)) => Ok(Value::Ptr(Ptr::Null)),
            (CType::Pointer(_), Value::Int(n)) => match self.pointer_of(n) {
                Some(p) => Ok(Value::Ptr(p)),
                None => unsupported("an integer converted to a pointer"),
            },
            (CType::Pointer(_), v @ Value::Ptr(_)) => Ok(v),
            (CType::Void | CType::Float(_), _) => Ok(Value::Opaque),
            (_, Value::Opaque) => Ok(Value::Opaque),
            (CType::Struct(_) | CType::Array(..), v) if from == to => Ok(v),
            (CType::Struct(_) | CType::Array(..), v @ (Value::Struct(_) | Value::Array(_))) => {
                Ok(v)
            }
            _ => unsupported("a conversion between these types"),
        }
    }

    fn int_kind(ty: &CType) -> Result<IntKind, Fault> {
        match ty {
            CType::Int(k) => Ok(*k),
            _ => unsupported("arithmetic on a non-integer type"),
        }
    }

    /// An integer operand converted to type `k`.
    fn operand(&self, e: &Expr, k: IntKind) -> Result<i128, Fault> {
        let v = self.eval(e)?;
        match self.convert(v, &e.ty, &CType::Int(k))? {
            Value::Int(x) => Ok(x),
            _ => unsupported("a non-integer operand"),
        }
    }

    /// Evaluates an rvalue.
    fn eval(&self, e: &Expr) -> Result<Value, Fault> {
        match &e.kind {
            ExprKind::Const(c) => match &e.ty {
                CType::Pointer(_) if *c == 0 => Ok(Value::Ptr(Ptr::Null)),
                CType::Pointer(_) => unsupported("an integer constant used as a pointer"),
                _ => Ok(Value::Int(*c)),
            },
            ExprKind::Var(_) | ExprKind::Deref(_) | ExprKind::Field(..) | ExprKind::Index(..) => {
                let p = self.place(e)?;
                if matches!(e.ty, CType::Array(..)) {
                    // An array used as a value decays to the address of its first element.
                    let Ptr::Obj { obj, mut path } = p else {
                        return unsupported("an array without an object");
                    };
                    path.push(0);
                    return Ok(Value::Ptr(Ptr::Obj { obj, path }));
                }
                if matches!(e.ty, CType::Func(_)) {
                    return unsupported("a function through a pointer used as a value");
                }
                let v = self.read(&p)?;
                if v == Value::Opaque && e.ty.is_scalar() {
                    return unsupported("an unmodelled value");
                }
                Ok(v)
            }
            ExprKind::Func(name) => {
                if name == crate::pred::RESULT {
                    return unsupported("`\\result` outside a return");
                }
                Ok(Value::Ptr(Ptr::Func(name.clone())))
            }
            ExprKind::Str(_) => unsupported("string literals"),
            ExprKind::Unary(op, a) => match op {
                UnOp::LogNot => {
                    let v = self.eval(a)?;
                    Ok(Value::Int(i128::from(!self.truth(&v)?)))
                }
                UnOp::Neg => {
                    let k = Self::int_kind(&e.ty)?;
                    let x = self.operand(a, k)?;
                    self.arith_result(-x, k)
                }
                UnOp::BitNot => {
                    let k = Self::int_kind(&e.ty)?;
                    let x = self.operand(a, k)?;
                    Ok(Value::Int(self.wrap(!x, k)))
                }
            },
            ExprKind::Binary(op, a, b) => self.binary(*op, a, b, &e.ty),
            ExprKind::Cast(a) => {
                let v = self.eval(a)?;
                self.convert(v, &a.ty, &e.ty)
            }
            ExprKind::AddrOf(l) => match &l.kind {
                ExprKind::Func(name) => Ok(Value::Ptr(Ptr::Func(name.clone()))),
                ExprKind::Deref(p) => self.eval(p),
                _ => Ok(Value::Ptr(self.place(l)?)),
            },
            ExprKind::Cond(c, a, b) => {
                let (x, t) = if self.eval_condition(c)? {
                    (a, &a.ty)
                } else {
                    (b, &b.ty)
                };
                let v = self.eval(x)?;
                self.convert(v, t, &e.ty)
            }
        }
    }

    fn is_pointerish(t: &CType) -> bool {
        matches!(t, CType::Pointer(_) | CType::Array(..) | CType::Func(_))
    }

    fn binary(&self, op: BinOp, a: &Expr, b: &Expr, ty: &CType) -> Result<Value, Fault> {
        use BinOp::*;
        match op {
            LogAnd => {
                let x = self.eval_condition(a)? && self.eval_condition(b)?;
                return Ok(Value::Int(i128::from(x)));
            }
            LogOr => {
                let x = self.eval_condition(a)? || self.eval_condition(b)?;
                return Ok(Value::Int(i128::from(x)));
            }
            _ => {}
        }
        let pa = Self::is_pointerish(&a.ty);
        let pb = Self::is_pointerish(&b.ty);
        if op.is_comparison() {
            if pa || pb {
                return self.compare_pointers(op, self.eval(a)?, self.eval(b)?);
            }
            let k = Self::int_kind(&crate::types::usual_arithmetic(
                &a.ty,
                &b.ty,
                self.prog.data_model,
            ))?;
            let (x, y) = (self.operand(a, k)?, self.operand(b, k)?);
            let r = match op {
                Lt => x < y,
                Le => x <= y,
                Gt => x > y,
                Ge => x >= y,
                Eq => x == y,
                _ => x != y,
            };
            return Ok(Value::Int(i128::from(r)));
        }
        if pa || pb {
            return match (op, pa, pb) {
                (Add, true, false) => self.offset(self.eval(a)?, self.int(b)?),
                (Add, false, true) => self.offset(self.eval(b)?, self.int(a)?),
                (Sub, true, false) => self.offset(self.eval(a)?, -self.int(b)?),
                (Sub, true, true) => match (self.eval(a)?, self.eval(b)?) {
                    (
                        Value::Ptr(Ptr::Obj { obj: o1, path: p1 }),
                        Value::Ptr(Ptr::Obj { obj: o2, path: p2 }),
                    ) if o1 == o2
                        && p1.len() == p2.len()
                        && !p1.is_empty()
                        && p1[..p1.len() - 1] == p2[..p2.len() - 1] =>
                    {
                        Ok(Value::Int(
                            i128::from(p1[p1.len() - 1]) - i128::from(p2[p2.len() - 1]),
                        ))
                    }
                    _ => undefined("difference of pointers into different arrays"),
                },
                _ => unsupported("this operation on pointers"),
            };
        }
        let k = Self::int_kind(ty)?;
        if matches!(op, Shl | Shr) {
            let x = self.operand(a, k)?;
            let bk = Self::int_kind(&b.ty.promoted())?;
            let s = self.operand(b, bk)?;
            let w = i128::from(k.width(self.prog.data_model));
            if s < 0 || s >= w {
                return undefined("a shift by a negative or too large amount");
            }
            if op == Shr {
                // Arithmetic shift for negative signed values (gcc).
                return Ok(Value::Int(x >> s));
            }
            if k.is_signed() && x < 0 {
                return undefined("a left shift of a negative value");
            }
            return self.arith_result(x << s, k);
        }
        let (x, y) = (self.operand(a, k)?, self.operand(b, k)?);
        let r = match op {
            Add => x + y,
            Sub => x - y,
            Mul => x * y,
            Div | Rem => {
                if y == 0 {
                    return undefined("division by zero");
                }
                // i128 division truncates toward zero, as C does.
                if op == Div { x / y } else { x % y }
            }
            BitAnd => x & y,
            BitOr => x | y,
            BitXor => x ^ y,
            _ => return unsupported("this operator"),
        };
        self.arith_result(r, k)
    }

    fn compare_pointers(&self, op: BinOp, x: Value, y: Value) -> Result<Value, Fault> {
        let norm = |v: Value| match v {
            Value::Int(0) => Ok(Ptr::Null),
            Value::Ptr(p) => Ok(p),
            Value::Int(n) => match self.pointer_of(n) {
                Some(p) => Ok(p),
                None => unsupported("a comparison of a pointer with a non-pointer"),
            },
            _ => unsupported("a comparison of a pointer with a non-pointer"),
        };
        let (p, q) = (norm(x)?, norm(y)?);
        let r = match op {
            BinOp::Eq => p == q,
            BinOp::Ne => p != q,
            _ => match (&p, &q) {
                (Ptr::Obj { obj: o1, path: p1 }, Ptr::Obj { obj: o2, path: p2 })
                    if o1 == o2
                        && p1.len() == p2.len()
                        && !p1.is_empty()
                        && p1[..p1.len() - 1] == p2[..p2.len() - 1] =>
                {
                    let (i, j) = (p1[p1.len() - 1], p2[p2.len() - 1]);
                    match op {
                        BinOp::Lt => i < j,
                        BinOp::Le => i <= j,
                        BinOp::Gt => i > j,
                        _ => i >= j,
                    }
                }
                _ => return unsupported("an ordering of pointers into different objects"),
            },
        };
        Ok(Value::Int(i128::from(r)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An oracle that answers from a list, then zeros.
    struct Script(Vec<i128>);

    impl Oracle for Script {
        fn value(&mut self, lo: i128, hi: i128) -> i128 {
            if self.0.is_empty() {
                0.clamp(lo, hi)
            } else {
                self.0.remove(0).clamp(lo, hi)
            }
        }
        fn choose(&mut self, n: usize) -> usize {
            usize::try_from(self.value(0, n as i128 - 1)).unwrap_or(0)
        }
    }

    fn load(src: &str) -> Program {
        load_with(src, &crate::LowerOptions::default())
    }

    fn load_with(src: &str, opts: &crate::LowerOptions) -> Program {
        crate::load_test_source(src, opts)
    }

    /// Runs to the end; returns how it ended.
    fn run(prog: &Program, inputs: Vec<i128>) -> Result<End, Fault> {
        let mut o = Script(inputs);
        let mut it = Interp::new(prog, &mut o)?;
        for _ in 0..100_000 {
            if let Event::End(e) = it.step(&mut o)? {
                return Ok(e);
            }
        }
        panic!("no end")
    }

    const HEAD: &str = "extern int __VERIFIER_nondet_int(void);\n\
                        extern unsigned __VERIFIER_nondet_uint(void);\nvoid reach_error(void);\n";

    #[test]
    fn unsigned_wraps_and_conversions_follow_c() {
        let p = load(&format!(
            "{HEAD}int main(void) {{ unsigned u = 0; u = u - 1; int x = -1;\n\
             unsigned char c = 200; c = c + 100;\n\
             if (u == 4294967295u && !(x < 1u) && c == 44) reach_error(); return 0; }}"
        ));
        assert!(matches!(run(&p, vec![]), Ok(End::Error(_))));
    }

    #[test]
    fn pointers_fields_and_calls() {
        let p = load(&format!(
            "{HEAD}struct S {{ int a; unsigned b; }};\n\
             void set(int *q, struct S *s) {{ *q = 7; s->b = 3; }}\n\
             int inc(int a) {{ a = a + 1; return a; }}\n\
             int main(void) {{ int x = 0; struct S s; s.a = 1; int *p = &x;\n\
             set(p, &s); x = inc(x);\n\
             if (x == 8 && s.b == 3 && s.a == 1 && p == &x) reach_error(); return 0; }}"
        ));
        assert!(matches!(run(&p, vec![]), Ok(End::Error(_))));
    }

    #[test]
    fn nondeterminism_comes_from_the_oracle() {
        let p = load(&format!(
            "{HEAD}int main(void) {{ int x = __VERIFIER_nondet_int();\n\
             if (x == 42) reach_error(); return 0; }}"
        ));
        // Every draw (locals, then the call's result) gets the same value here.
        let seen: Vec<_> = [0, 42].into_iter().map(|v| run(&p, vec![v; 64])).collect();
        assert_eq!(seen[0], Ok(End::Exit));
        assert!(matches!(seen[1], Ok(End::Error(_))));
    }

    #[test]
    fn signed_overflow_and_null_dereference_are_undefined() {
        let p = load(&format!(
            "{HEAD}int main(void) {{ int x = 2147483647; x = x + 1; return 0; }}"
        ));
        assert!(matches!(run(&p, vec![]), Err(Fault::Undefined(_))));
        let p = load(&format!(
            "{HEAD}int main(void) {{ int *p = 0; *p = 1; return 0; }}"
        ));
        assert!(matches!(run(&p, vec![]), Err(Fault::Undefined(_))));
    }

    #[test]
    fn recursion_and_division_truncate() {
        let p = load(&format!(
            "{HEAD}int f(int n) {{ if (n <= 0) return 0; return f(n - 1) + 2; }}\n\
             int main(void) {{ int r = f(5); if (r == 10 && -7 / 2 == -3 && -7 % 2 == -1) \
             reach_error(); return 0; }}"
        ));
        assert!(matches!(run(&p, vec![]), Ok(End::Error(_))));
    }

    #[test]
    fn failed_assumption_blocks() {
        let p = load(&format!(
            "{HEAD}void __VERIFIER_assume(int);\nint main(void) {{ int x = 0;\n\
             __VERIFIER_assume(x > 0); reach_error(); return 0; }}"
        ));
        assert_eq!(run(&p, vec![]), Ok(End::Blocked));
    }

    #[test]
    fn statement_expressions_and_glibc_assert() {
        let opts = crate::LowerOptions {
            assert_is_error: true,
            ..crate::LowerOptions::default()
        };
        for (k, expected_error) in [(4, false), (3, true)] {
            let p = load_with(
                &format!(
                    "#include <assert.h>\nint main(void) {{ int x = 1;\n\
                     int y = ({{ int z = x + 1; z * 2; }});\n\
                     assert(y == {k}); return 0; }}"
                ),
                &opts,
            );
            let end = run(&p, vec![]);
            assert_eq!(
                matches!(end, Ok(End::Error(_))),
                expected_error,
                "{k}: {end:?}"
            );
            if !expected_error {
                assert_eq!(end, Ok(End::Exit));
            }
        }
    }

    #[test]
    fn malloc_returns_fresh_objects_typed_by_their_use() {
        let p = load(&format!(
            "{HEAD}#include <stdlib.h>\nstruct S {{ int a; unsigned b; }};\n\
             int main(void) {{ struct S *p = (struct S *)malloc(sizeof(struct S));\n\
             int *q = malloc(sizeof(int)); int *r = malloc(sizeof(int));\n\
             p->a = 1; p->b = 2u; *q = 3; *r = 4;\n\
             if (p->a == 1 && p->b == 2u && *q == 3 && q != r && p != 0) reach_error();\n\
             return 0; }}"
        ));
        assert!(matches!(run(&p, vec![]), Ok(End::Error(_))));
    }

    #[test]
    fn allocated_contents_are_drawn_from_the_oracle() {
        let p = load(&format!(
            "{HEAD}#include <stdlib.h>\nstruct T {{ int v; }};\n\
             struct S {{ int a; struct T *t; unsigned long f; }};\n\
             int main(void) {{ struct S *p = malloc(sizeof(struct S));\n\
             struct S *z = calloc(1, sizeof(struct S));\n\
             if (p->a == 5 && p->t != 0 && p->t->v == 7 && (unsigned long)p->t != 0\n\
             && (unsigned long)p->t == (unsigned long)p->t && z->a == 0 && z->t == 0)\n\
             reach_error(); return 0; }}"
        ));
        // In order: p->a, whether p->t points to an object, its v, p->f; calloc draws none.
        assert!(matches!(run(&p, vec![5, 1, 7, 0, 9, 9]), Ok(End::Error(_))));
        // p->t null: no draw for its object.
        assert_eq!(run(&p, vec![5, 0, 7, 0]), Ok(End::Exit));
    }

    #[test]
    fn a_variable_length_array_is_sized_where_it_is_declared() {
        let p = load(&format!(
            "{HEAD}int main(void) {{ unsigned n = __VERIFIER_nondet_uint();\n\
             if (n == 0 || n > 8) return 0; int a[n]; unsigned i;\n\
             for (i = 0; i < n; i++) a[i] = i;\n\
             if (a[n - 1] == 4) reach_error(); return 0; }}"
        ));
        // Every draw 5: n = 5, a[4] == 4.
        assert!(matches!(run(&p, vec![5; 16]), Ok(End::Error(_))));
        assert_eq!(run(&p, vec![3; 16]), Ok(End::Exit));
        let oob = load(&format!(
            "{HEAD}int main(void) {{ unsigned n = __VERIFIER_nondet_uint();\n\
             if (n == 0 || n > 8) return 0; int a[n]; a[n] = 1; return 0; }}"
        ));
        assert!(matches!(run(&oob, vec![5; 16]), Err(Fault::Undefined(_))));
    }

    #[test]
    fn the_environment_s_pointers_are_null_or_objects_of_their_own() {
        let p = load(&format!(
            "{HEAD}extern void *__VERIFIER_nondet_pointer(void);\n\
             int main(void) {{ int *q = __VERIFIER_nondet_pointer();\n\
             if (q != 0) {{ *q = 3; if (*q == 3) reach_error(); }} return 0; }}"
        ));
        assert!(matches!(run(&p, vec![1]), Ok(End::Error(_))));
        assert_eq!(run(&p, vec![0]), Ok(End::Exit));
    }

    #[test]
    fn a_recorded_path_can_be_followed_and_a_wrong_one_is_refused() {
        let p = load(&format!(
            "{HEAD}int f(int *q, int n) {{ if (n > 3) {{ *q = n; return 1; }} return 0; }}\n\
             int main(void) {{ int x = __VERIFIER_nondet_int(); int y = 0;\n\
             if (f(&y, x) && y == 7) reach_error(); return 0; }}"
        ));
        let inputs = vec![7; 16];
        // Record the edges of a run (x = 7: the error is reached).
        let mut o = Script(inputs.clone());
        let mut it = Interp::new(&p, &mut o).expect("starts");
        let mut path = Vec::new();
        let end = loop {
            match it.step(&mut o).expect("no fault") {
                Event::Edge(e) | Event::Call(e, _) => path.push(e),
                Event::Return(_) => {}
                Event::End(end) => break end,
            }
        };
        let End::Error(last) = end else {
            panic!("expected the error, got {end:?}")
        };
        path.push(last);
        // Follow it again with the same inputs.
        let follow = |inputs: Vec<i128>| -> usize {
            let mut o = Script(inputs);
            let mut it = Interp::new(&p, &mut o).expect("starts");
            for (i, &e) in path.iter().enumerate() {
                while it.at_exit() {
                    it.step(&mut o).expect("returns");
                }
                if it.take(e, &mut o).expect("no fault").is_none() {
                    return i;
                }
            }
            path.len()
        };
        assert_eq!(follow(inputs), path.len());
        // With x = 2 the path's branch `n > 3` is not enabled: refused there, not taken.
        let k = follow(vec![2; 16]);
        assert!(k < path.len(), "{k}");
    }
}
