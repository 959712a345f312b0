//! The control-flow IR: programs, variables, functions as graphs of edges, and expressions.
//!
//! A [`Program`] holds variables (one table for the whole program, indexed by [`VarId`]),
//! structure definitions, global initialisers, functions and the list of external (bodiless)
//! functions. A [`Function`] is a graph of nodes ([`NodeId`], numbered per function) and edges
//! ([`Edge`]); each edge has a deterministic id ([`EdgeId`]: function + ordinal, shown
//! `main#17`) and the source position of the C construct it comes from.
//!
//! Edge kinds (see [`EdgeKind`]): assignment, assume (always an atomic comparison), call (the
//! result, if used, goes to a fresh temporary, as in C2BP), return, error, plus three that a
//! list of C constructs leaves implicit: `havoc` (an lvalue gets an arbitrary value of its type: the
//! sound approximation of unsupported constructs), `halt` (`abort()`/`exit()`: the path ends)
//! and `skip` (only left where a node cannot be merged away, e.g. `while (1) ;`).
//!
//! Expressions ([`Expr`]) are side-effect free and carry their C type. Implicit conversions are
//! *not* materialised: each node has the type C gives it (integer promotions and the usual
//! arithmetic conversions decide the type of an arithmetic node, comparisons are `int`), and
//! the conversion of an assigned value to the type of its target is implied by the two types.
//! Explicit casts are [`ExprKind::Cast`] nodes.

use std::fmt::{self, Write as _};

use crate::types::{CType, DataModel, IntKind, StructId, usual_arithmetic};

/// A function of the program (index into [`Program::functions`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct FuncId(pub u32);

/// A node of a function's graph (numbered per function; the entry is node 0).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct NodeId(pub u32);

/// An edge: its function and its ordinal in that function (shown `name#ordinal`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct EdgeId {
    /// The function.
    pub func: FuncId,
    /// Ordinal within the function, from 0, in source order.
    pub index: u32,
}

/// A variable (index into [`Program::vars`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct VarId(pub u32);

impl fmt::Display for NodeId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "n{}", self.0)
    }
}

/// A position in the user's file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct SrcPos {
    /// Index into [`Program::files`] (0 is the main file).
    pub file: u32,
    /// Line, 1-based.
    pub line: u32,
    /// Column, 1-based.
    pub col: u32,
}

/// What kind of variable.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum VarKind {
    /// A file-scope variable with external linkage (or a tentative definition).
    Global,
    /// A file-scope `static` variable.
    FileStatic,
    /// A `static` variable inside a function (global storage).
    LocalStatic(FuncId),
    /// The `index`-th formal parameter; it always denotes the entry value.
    Formal(FuncId, usize),
    /// A local variable declared in the C code.
    Local(FuncId),
    /// The local copy of a formal that the C code assigns or whose address it takes.
    FormalCopy(FuncId, VarId),
    /// A temporary introduced by the lowering.
    Temp(FuncId),
}

/// A variable.
#[derive(Debug, Clone)]
pub struct VarInfo {
    /// Unique readable name (see the naming scheme in the lowering's module doc).
    pub name: String,
    /// The C identifier (for temporaries, the name).
    pub c_name: String,
    /// Its type.
    pub ty: CType,
    /// Its kind.
    pub kind: VarKind,
    /// Where it is declared.
    pub pos: SrcPos,
}

impl VarInfo {
    /// Global storage (globals, file statics, function statics).
    pub fn is_global(&self) -> bool {
        matches!(
            self.kind,
            VarKind::Global | VarKind::FileStatic | VarKind::LocalStatic(_)
        )
    }
}

/// A structure or union definition.
#[derive(Debug, Clone)]
pub struct StructDef {
    /// The tag, if any.
    pub tag: Option<String>,
    /// `union` rather than `struct`.
    pub is_union: bool,
    /// Fields in order; `None` while incomplete (declared, never defined).
    pub fields: Option<Vec<(String, CType)>>,
}

/// Unary operators.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum UnOp {
    /// `-e`
    Neg,
    /// `~e`
    BitNot,
    /// `!e` (only in value contexts; branch conditions are lowered to control flow)
    LogNot,
}

/// Binary operators.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum BinOp {
    /// `+`
    Add,
    /// `-`
    Sub,
    /// `*`
    Mul,
    /// `/`
    Div,
    /// `%`
    Rem,
    /// `<<`
    Shl,
    /// `>>`
    Shr,
    /// `&`
    BitAnd,
    /// `|`
    BitOr,
    /// `^`
    BitXor,
    /// `<`
    Lt,
    /// `<=`
    Le,
    /// `>`
    Gt,
    /// `>=`
    Ge,
    /// `==`
    Eq,
    /// `!=`
    Ne,
    /// `&&` (value context, side-effect-free right operand only)
    LogAnd,
    /// `||` (value context, side-effect-free right operand only)
    LogOr,
}

impl BinOp {
    /// The C spelling.
    pub fn symbol(self) -> &'static str {
        use BinOp::*;
        match self {
            Add => "+",
            Sub => "-",
            Mul => "*",
            Div => "/",
            Rem => "%",
            Shl => "<<",
            Shr => ">>",
            BitAnd => "&",
            BitOr => "|",
            BitXor => "^",
            Lt => "<",
            Le => "<=",
            Gt => ">",
            Ge => ">=",
            Eq => "==",
            Ne => "!=",
            LogAnd => "&&",
            LogOr => "||",
        }
    }

    /// Whether the operator is a comparison.
    pub fn is_comparison(self) -> bool {
        use BinOp::*;
        matches!(self, Lt | Le | Gt | Ge | Eq | Ne)
    }

    /// The comparison that holds exactly when `self` does not.
    pub fn negated(self) -> Option<BinOp> {
        use BinOp::*;
        Some(match self {
            Lt => Ge,
            Le => Gt,
            Gt => Le,
            Ge => Lt,
            Eq => Ne,
            Ne => Eq,
            _ => return None,
        })
    }

    /// The comparison with its operands swapped (`a < b` is `b > a`); other operators are
    /// their own.
    pub fn mirrored(self) -> BinOp {
        use BinOp::*;
        match self {
            Lt => Gt,
            Gt => Lt,
            Le => Ge,
            Ge => Le,
            o => o,
        }
    }

    /// Binding strength (C precedence; larger binds tighter).
    fn prec(self) -> u8 {
        use BinOp::*;
        match self {
            Mul | Div | Rem => 10,
            Add | Sub => 9,
            Shl | Shr => 8,
            Lt | Le | Gt | Ge => 7,
            Eq | Ne => 6,
            BitAnd => 5,
            BitXor => 4,
            BitOr => 3,
            LogAnd => 2,
            LogOr => 1,
        }
    }
}

/// The C type of `a op b` (C11 6.5.5–6.5.14): comparisons and logical operators are `int`,
/// shifts take the promoted left operand, pointer arithmetic keeps the pointer (`ptrdiff_t` for
/// a difference of pointers), everything else the usual arithmetic conversions.
pub fn binop_type(op: BinOp, a: &CType, b: &CType, dm: DataModel) -> CType {
    use BinOp::*;
    match op {
        Lt | Le | Gt | Ge | Eq | Ne | LogAnd | LogOr => CType::INT,
        Shl | Shr => a.promoted(),
        Add | Sub => {
            let decay = |t: &CType| match t {
                CType::Array(e, _) => Some((**e).clone().ptr_to()),
                CType::Pointer(_) => Some(t.clone()),
                _ => None,
            };
            match (decay(a), decay(b)) {
                (Some(_), Some(_)) if op == Sub => CType::Int(match dm {
                    DataModel::Ilp32 => IntKind::Int,
                    DataModel::Lp64 => IntKind::Long,
                }),
                (Some(p), _) => p,
                (None, Some(p)) => p,
                (None, None) => usual_arithmetic(a, b, dm),
            }
        }
        _ => usual_arithmetic(a, b, dm),
    }
}

/// A typed, side-effect-free expression.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Expr {
    /// The expression.
    pub kind: ExprKind,
    /// Its C type.
    pub ty: CType,
}

/// Expression forms.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum ExprKind {
    /// An integer constant (its type is the constant's C type).
    Const(i128),
    /// A variable.
    Var(VarId),
    /// A function designator (type: the function type).
    Func(String),
    /// A string literal (type: `char *`; the object it points to is not modelled yet).
    Str(String),
    /// Unary operation.
    Unary(UnOp, Box<Expr>),
    /// Binary operation.
    Binary(BinOp, Box<Expr>, Box<Expr>),
    /// Explicit cast to the expression's type.
    Cast(Box<Expr>),
    /// `&e`
    AddrOf(Box<Expr>),
    /// `*e`
    Deref(Box<Expr>),
    /// `e.f` (`p->f` is `Field(Deref(p), f)`, printed `p->f`).
    Field(Box<Expr>, String),
    /// `a[i]`
    Index(Box<Expr>, Box<Expr>),
    /// `c ? a : b` without side effects. The lowering never produces it (a `?:` of the program
    /// becomes control flow); weakest preconditions do (Morris's axiom of assignment:
    /// `(p == &x) ? e : x`).
    Cond(Box<Expr>, Box<Expr>, Box<Expr>),
}

impl Expr {
    /// Integer constant of a type.
    pub fn int(v: i128, ty: CType) -> Expr {
        Expr {
            kind: ExprKind::Const(v),
            ty,
        }
    }

    /// The value of an integer constant expression built of constants, integer casts, unary
    /// minus and `+ - * / %`, with C's semantics (operands converted to the node's type,
    /// unsigned results modulo 2^width, division truncating); `None` for anything else, and
    /// where C leaves the value undefined (signed overflow, division by zero).
    pub fn constant_value(&self, dm: DataModel) -> Option<i128> {
        let CType::Int(k) = self.ty else {
            return None;
        };
        let operand = |e: &Expr| e.constant_value(dm).map(|v| k.wrap(v, dm));
        let exact = |v: i128| {
            let (lo, hi) = k.range(dm);
            if k.is_signed() {
                (lo <= v && v <= hi).then_some(v)
            } else {
                Some(k.wrap(v, dm))
            }
        };
        match &self.kind {
            ExprKind::Const(v) => Some(*v),
            ExprKind::Cast(a) => a.constant_value(dm).map(|v| k.wrap(v, dm)),
            ExprKind::Unary(UnOp::Neg, a) => exact(operand(a)?.checked_neg()?),
            ExprKind::Binary(op, a, b) => {
                let (x, y) = (operand(a)?, operand(b)?);
                let v = match op {
                    BinOp::Add => x.checked_add(y)?,
                    BinOp::Sub => x.checked_sub(y)?,
                    BinOp::Mul => x.checked_mul(y)?,
                    BinOp::Div if y != 0 => x.checked_div(y)?,
                    BinOp::Rem if y != 0 => x.checked_rem(y)?,
                    _ => return None,
                };
                exact(v)
            }
            _ => None,
        }
    }

    /// The expression under any casts.
    pub fn without_casts(&self) -> &Expr {
        match &self.kind {
            ExprKind::Cast(a) => a.without_casts(),
            _ => self,
        }
    }

    /// Whether the expression can be assigned to (variable, `*p`, field, element).
    pub fn is_lvalue(&self) -> bool {
        matches!(
            self.kind,
            ExprKind::Var(_) | ExprKind::Deref(_) | ExprKind::Field(..) | ExprKind::Index(..)
        )
    }

    /// The direct sub-expressions, left to right.
    pub fn children(&self) -> Vec<&Expr> {
        match &self.kind {
            ExprKind::Const(_) | ExprKind::Var(_) | ExprKind::Func(_) | ExprKind::Str(_) => {
                Vec::new()
            }
            ExprKind::Unary(_, a)
            | ExprKind::Cast(a)
            | ExprKind::AddrOf(a)
            | ExprKind::Deref(a)
            | ExprKind::Field(a, _) => vec![a],
            ExprKind::Binary(_, a, b) | ExprKind::Index(a, b) => vec![a, b],
            ExprKind::Cond(c, a, b) => vec![c, a, b],
        }
    }

    /// The operands of the nested `op`s at the top (`a && (b && c)` by `&&`: `a`, `b`, `c`;
    /// the expression itself when its operator is another).
    pub fn operands(&self, op: BinOp) -> Vec<Expr> {
        match &self.kind {
            ExprKind::Binary(o, a, b) if *o == op => {
                let mut v = a.operands(op);
                v.extend(b.operands(op));
                v
            }
            _ => vec![self.clone()],
        }
    }

    /// `e1 op e2 op …` of type `int` (for the logical operators), `None` when `es` is empty.
    pub fn join(op: BinOp, es: impl IntoIterator<Item = Expr>) -> Option<Expr> {
        es.into_iter().reduce(|a, b| Expr {
            kind: ExprKind::Binary(op, Box::new(a), Box::new(b)),
            ty: CType::INT,
        })
    }

    /// Calls `f` on every sub-expression, pre-order (the expression itself first).
    pub fn walk(&self, f: &mut impl FnMut(&Expr)) {
        f(self);
        for c in self.children() {
            c.walk(f);
        }
    }

    /// Rebuilds the expression bottom-up: children first, then `f` on the rebuilt node.
    pub fn map_bottom_up(&self, f: &mut dyn FnMut(Expr) -> Expr) -> Expr {
        let b = |e: &Expr, f: &mut dyn FnMut(Expr) -> Expr| Box::new(e.map_bottom_up(f));
        let kind = match &self.kind {
            k @ (ExprKind::Const(_) | ExprKind::Var(_) | ExprKind::Func(_) | ExprKind::Str(_)) => {
                k.clone()
            }
            ExprKind::Unary(op, a) => ExprKind::Unary(*op, b(a, f)),
            ExprKind::Binary(op, x, y) => ExprKind::Binary(*op, b(x, f), b(y, f)),
            ExprKind::Cast(a) => ExprKind::Cast(b(a, f)),
            ExprKind::AddrOf(a) => ExprKind::AddrOf(b(a, f)),
            ExprKind::Deref(a) => ExprKind::Deref(b(a, f)),
            ExprKind::Field(a, n) => ExprKind::Field(b(a, f), n.clone()),
            ExprKind::Index(x, y) => ExprKind::Index(b(x, f), b(y, f)),
            ExprKind::Cond(c, x, y) => ExprKind::Cond(b(c, f), b(x, f), b(y, f)),
        };
        f(Expr {
            kind,
            ty: self.ty.clone(),
        })
    }
}

/// The callee of a call edge.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Callee {
    /// A function defined in the program.
    Defined(FuncId),
    /// An SV-COMP `__VERIFIER_nondet_X` intrinsic: an arbitrary value of the result type.
    Nondet(String),
    /// A function without a body (see [`Program::externals`]).
    External(String),
    /// A call through a function pointer (the expression has pointer-to-function type).
    Indirect(Expr),
}

/// Functions that allocate a fresh object; as SV-COMP assumes, they never fail: the lowering
/// follows each call whose result is used with `assume(result != 0)`.
pub const ALLOC_FNS: &[&str] = &["malloc", "calloc", "alloca", "__builtin_alloca", "valloc"];

impl Callee {
    /// An allocator (`malloc` & co., [`ALLOC_FNS`]): its result is a fresh, non-null object
    /// (SV-COMP: allocation never fails).
    pub fn is_allocator(&self) -> bool {
        matches!(self, Callee::External(n) if ALLOC_FNS.contains(&n.as_str()))
    }
}

/// What an edge does.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EdgeKind {
    /// `lhs := rhs` (the value is converted to the type of `lhs`).
    Assign {
        /// An lvalue.
        lhs: Expr,
        /// The value.
        rhs: Expr,
    },
    /// `lhs := *`: an arbitrary value of the lvalue's type (sound approximation).
    Havoc {
        /// An lvalue.
        lhs: Expr,
        /// Why (the approximated construct).
        reason: String,
        /// The havoc stands for a construct the IR does not model (a `memset` of non-`char`
        /// cells with a non-zero byte, a union member, inline asm, a float constant, an
        /// unsupported initialiser): every tool over-approximates it by any value, but it is
        /// not a choice the program makes, so the concrete interpreter does not execute it.
        /// `false`: the value really is arbitrary (an uninitialised object).
        approximation: bool,
    },
    /// Continue only if the condition holds: always a comparison `a op b` (truth tests become
    /// `e != 0`, `!`, `&&`, `||`, `?:` become control flow).
    Assume(Expr),
    /// A call; `ret` is the fresh temporary that receives the result (none for `void` callees or
    /// when the result is discarded).
    Call {
        /// The result temporary.
        ret: Option<VarId>,
        /// Who is called.
        callee: Callee,
        /// Actual parameters, side-effect free, evaluated before the call.
        args: Vec<Expr>,
    },
    /// Return to the caller (the target is the function's exit node).
    Return(Option<Expr>),
    /// The error is reached (the target is a sink).
    Error {
        /// What made it an error: the called function or `label NAME`.
        cause: String,
    },
    /// The program stops (`abort()`, `exit()`): the target is a sink.
    Halt {
        /// The called function.
        cause: String,
    },
    /// No effect.
    Skip,
}

impl EdgeKind {
    /// The expressions the edge evaluates or writes: an assignment's target and value, a
    /// havoc's target, a condition, a call's arguments and the pointer of an indirect call,
    /// a returned value.
    pub fn exprs(&self) -> Vec<&Expr> {
        match self {
            EdgeKind::Assign { lhs, rhs } => vec![lhs, rhs],
            EdgeKind::Havoc { lhs, .. } => vec![lhs],
            EdgeKind::Assume(c) => vec![c],
            EdgeKind::Call { callee, args, .. } => {
                let mut v: Vec<&Expr> = args.iter().collect();
                if let Callee::Indirect(e) = callee {
                    v.push(e);
                }
                v
            }
            EdgeKind::Return(Some(e)) => vec![e],
            EdgeKind::Return(None)
            | EdgeKind::Error { .. }
            | EdgeKind::Halt { .. }
            | EdgeKind::Skip => Vec::new(),
        }
    }
}

/// An edge of a function's graph.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Edge {
    /// Deterministic id.
    pub id: EdgeId,
    /// Source node.
    pub from: NodeId,
    /// Target node.
    pub to: NodeId,
    /// What it does.
    pub kind: EdgeKind,
    /// Position of the C construct in the user's file.
    pub pos: SrcPos,
}

/// A function with a body.
#[derive(Debug, Clone)]
pub struct Function {
    /// Its id.
    pub id: FuncId,
    /// The C name.
    pub name: String,
    /// Its type.
    pub ty: crate::types::FuncType,
    /// Formal parameters in order.
    pub formals: Vec<VarId>,
    /// Locals, formal copies and temporaries, in order of creation.
    pub locals: Vec<VarId>,
    /// Number of nodes (`NodeId(0..nodes)`).
    pub nodes: u32,
    /// Entry node (always `n0`).
    pub entry: NodeId,
    /// Exit node (target of every `return` edge).
    pub exit: NodeId,
    /// Edges, in id order.
    pub edges: Vec<Edge>,
    /// Position of the definition.
    pub pos: SrcPos,
}

impl Function {
    /// The loop heads: targets of the back edges of a depth-first search from the entry
    /// ([`back_edge_targets`] over every edge), in increasing node order.
    pub fn loop_heads(&self) -> Vec<NodeId> {
        back_edge_targets(
            self.entry,
            self.nodes,
            self.edges.iter().map(|e| (e.from, e.to)),
        )
        .into_iter()
        .collect()
    }
}

/// The targets of the back edges of a depth-first search from `entry` over `edges` (on nodes
/// `0..nodes`; successors in the order given): every cycle reachable from `entry` passes
/// through one, also in an irreducible graph (where gotos make loops with several entries),
/// which is why cut points are chosen this way.
pub fn back_edge_targets(
    entry: NodeId,
    nodes: u32,
    edges: impl IntoIterator<Item = (NodeId, NodeId)>,
) -> std::collections::BTreeSet<NodeId> {
    let n = nodes as usize;
    let mut succ: Vec<Vec<usize>> = vec![Vec::new(); n];
    for (a, b) in edges {
        if (a.0 as usize) < n && (b.0 as usize) < n {
            succ[a.0 as usize].push(b.0 as usize);
        }
    }
    // 0 unvisited, 1 on the stack, 2 done.
    let mut state = vec![0u8; n];
    let mut heads = std::collections::BTreeSet::new();
    if (entry.0 as usize) >= n {
        return heads;
    }
    let mut stack: Vec<(usize, usize)> = vec![(entry.0 as usize, 0)];
    state[entry.0 as usize] = 1;
    while let Some((v, i)) = stack.pop() {
        if let Some(&w) = succ[v].get(i) {
            stack.push((v, i + 1));
            match state[w] {
                0 => {
                    state[w] = 1;
                    stack.push((w, 0));
                }
                1 => {
                    heads.insert(NodeId(w as u32));
                }
                _ => {}
            }
        } else {
            state[v] = 2;
        }
    }
    heads
}

/// A global initialiser: `lhs := value` before `main` starts (everything else is zero).
#[derive(Debug, Clone)]
pub struct GlobalInit {
    /// The initialised lvalue (a global variable or a part of it).
    pub lhs: Expr,
    /// The value; `None` when the initialiser is not modelled (the lvalue is havocked).
    pub value: Option<Expr>,
    /// Where.
    pub pos: SrcPos,
}

/// A function without a body that the program declares or calls.
#[derive(Debug, Clone)]
pub struct External {
    /// The name.
    pub name: String,
    /// Its type (`int f()` when only implicitly declared).
    pub ty: crate::types::FuncType,
    /// Whether some function calls it.
    pub called: bool,
}

/// A warning about an approximation, with its position.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Warning {
    /// Where.
    pub pos: SrcPos,
    /// What was approximated and how.
    pub message: String,
    /// The function whose body it is in (`None`: file scope).
    pub function: Option<String>,
}

/// A lowered C program.
#[derive(Debug, Clone)]
pub struct Program {
    /// The data model the types refer to.
    pub data_model: DataModel,
    /// Source files (index 0 is the file given by the user).
    pub files: Vec<String>,
    /// All variables.
    pub vars: Vec<VarInfo>,
    /// Structures and unions.
    pub structs: Vec<StructDef>,
    /// Global storage (globals, file statics, function statics), in declaration order.
    pub globals: Vec<VarId>,
    /// Explicit initialisers of global storage.
    pub global_inits: Vec<GlobalInit>,
    /// Functions with a body, in definition order.
    pub functions: Vec<Function>,
    /// Functions without a body (intrinsics and error functions excluded).
    pub externals: Vec<External>,
    /// Approximations made, in order.
    pub warnings: Vec<Warning>,
    /// Each variable-length array (a local of type `T[]`) and the temporary its declaration
    /// assigns its length to: the concrete interpreter sizes the array there.
    pub vla_lengths: Vec<(VarId, VarId)>,
}

impl Program {
    /// The variable's record.
    pub fn var(&self, v: VarId) -> &VarInfo {
        &self.vars[v.0 as usize]
    }

    /// The function with this C name.
    pub fn function(&self, name: &str) -> Option<&Function> {
        self.functions.iter().find(|f| f.name == name)
    }

    /// The edge with this id.
    pub fn edge(&self, e: EdgeId) -> &Edge {
        &self.functions[e.func.0 as usize].edges[e.index as usize]
    }

    /// `name#ordinal` for an edge.
    pub fn edge_name(&self, e: EdgeId) -> String {
        format!("{}#{}", self.functions[e.func.0 as usize].name, e.index)
    }

    /// `file:line:col` (file omitted for the main file).
    pub fn show_pos(&self, p: SrcPos) -> String {
        if p.file == 0 {
            format!("{}:{}", p.line, p.col)
        } else {
            format!("{}:{}:{}", self.files[p.file as usize], p.line, p.col)
        }
    }

    /// C-like text of a type.
    pub fn show_type(&self, t: &CType) -> String {
        match t {
            CType::Void => "void".into(),
            CType::Int(k) => k.c_name().into(),
            CType::Float(k) => match k {
                crate::types::FloatKind::Float => "float".into(),
                crate::types::FloatKind::Double => "double".into(),
                crate::types::FloatKind::LongDouble => "long double".into(),
            },
            CType::Pointer(p) => format!("{} *", self.show_type(p)),
            CType::Array(e, n) => match n {
                Some(n) => format!("{}[{n}]", self.show_type(e)),
                None => format!("{}[]", self.show_type(e)),
            },
            CType::Struct(id) => self.show_struct(*id),
            CType::Func(f) => {
                let mut s = format!("{} (", self.show_type(&f.ret));
                for (i, p) in f.params.iter().enumerate() {
                    if i > 0 {
                        s.push_str(", ");
                    }
                    s.push_str(&self.show_type(p));
                }
                if f.variadic {
                    s.push_str(if f.params.is_empty() { "..." } else { ", ..." });
                }
                s.push(')');
                s
            }
        }
    }

    fn show_struct(&self, id: StructId) -> String {
        let d = &self.structs[id.0 as usize];
        let kw = if d.is_union { "union" } else { "struct" };
        match &d.tag {
            Some(t) => format!("{kw} {t}"),
            None => format!("{kw} #{}", id.0),
        }
    }

    /// C-like text of an expression (minimal parentheses).
    pub fn show_expr(&self, e: &Expr) -> String {
        let mut s = String::new();
        self.write_expr(&mut s, e, 0);
        s
    }

    fn write_expr(&self, s: &mut String, e: &Expr, ctx: u8) {
        // precedence levels: 13 postfix, 12 unary/cast, binary 1..10
        let (prec, text): (u8, Option<String>) = match &e.kind {
            ExprKind::Const(v) => (13, Some(self.show_const(*v, &e.ty))),
            ExprKind::Var(v) => (13, Some(self.var(*v).name.clone())),
            ExprKind::Func(n) => (13, Some(n.clone())),
            ExprKind::Str(t) => (13, Some(format!("{t:?}"))),
            _ => (0, None),
        };
        if let Some(t) = text {
            let paren = prec < ctx;
            if paren {
                s.push('(');
            }
            s.push_str(&t);
            if paren {
                s.push(')');
            }
            return;
        }
        let prec = match &e.kind {
            ExprKind::Binary(op, ..) => op.prec(),
            ExprKind::Unary(..) | ExprKind::Cast(_) | ExprKind::AddrOf(_) | ExprKind::Deref(_) => {
                12
            }
            ExprKind::Cond(..) => 0,
            _ => 13,
        };
        let paren = prec < ctx;
        if paren {
            s.push('(');
        }
        match &e.kind {
            ExprKind::Unary(op, a) => {
                s.push(match op {
                    UnOp::Neg => '-',
                    UnOp::BitNot => '~',
                    UnOp::LogNot => '!',
                });
                self.write_expr(s, a, 12);
            }
            ExprKind::Binary(op, a, b) => {
                self.write_expr(s, a, prec);
                let _ = write!(s, " {} ", op.symbol());
                self.write_expr(s, b, prec + 1);
            }
            ExprKind::Cast(a) => {
                let _ = write!(s, "({})", self.show_type(&e.ty));
                self.write_expr(s, a, 12);
            }
            ExprKind::AddrOf(a) => {
                s.push('&');
                self.write_expr(s, a, 12);
            }
            ExprKind::Deref(a) => {
                s.push('*');
                self.write_expr(s, a, 12);
            }
            ExprKind::Field(b, f) => {
                if let ExprKind::Deref(p) = &b.kind {
                    self.write_expr(s, p, 13);
                    let _ = write!(s, "->{f}");
                } else {
                    self.write_expr(s, b, 13);
                    let _ = write!(s, ".{f}");
                }
            }
            ExprKind::Index(a, i) => {
                self.write_expr(s, a, 13);
                s.push('[');
                self.write_expr(s, i, 0);
                s.push(']');
            }
            ExprKind::Cond(c, a, b) => {
                self.write_expr(s, c, 1);
                s.push_str(" ? ");
                self.write_expr(s, a, 0);
                s.push_str(" : ");
                self.write_expr(s, b, 0);
            }
            ExprKind::Const(_) | ExprKind::Var(_) | ExprKind::Func(_) | ExprKind::Str(_) => {}
        }
        if paren {
            s.push(')');
        }
    }

    fn show_const(&self, v: i128, ty: &CType) -> String {
        match ty {
            CType::Int(IntKind::Int) => v.to_string(),
            CType::Int(IntKind::UInt) => format!("{v}u"),
            CType::Int(IntKind::Long) => format!("{v}l"),
            CType::Int(IntKind::ULong) => format!("{v}ul"),
            CType::Int(IntKind::LongLong) => format!("{v}ll"),
            CType::Int(IntKind::ULongLong) => format!("{v}ull"),
            t => format!("({}){v}", self.show_type(t)),
        }
    }

    /// One-line text of an edge's effect.
    pub fn show_edge_kind(&self, k: &EdgeKind) -> String {
        match k {
            EdgeKind::Assign { lhs, rhs } => {
                format!("{} := {}", self.show_expr(lhs), self.show_expr(rhs))
            }
            EdgeKind::Havoc { lhs, reason, .. } => {
                format!("{} := *  /* {reason} */", self.show_expr(lhs))
            }
            EdgeKind::Assume(c) => format!("assume({})", self.show_expr(c)),
            EdgeKind::Call { ret, callee, args } => {
                let mut s = String::new();
                if let Some(r) = ret {
                    let _ = write!(s, "{} := ", self.var(*r).name);
                }
                match callee {
                    Callee::Defined(f) => s.push_str(&self.functions[f.0 as usize].name),
                    Callee::Nondet(n) | Callee::External(n) => s.push_str(n),
                    Callee::Indirect(e) => {
                        s.push_str("(*");
                        self.write_expr(&mut s, e, 12);
                        s.push(')');
                    }
                }
                s.push('(');
                for (i, a) in args.iter().enumerate() {
                    if i > 0 {
                        s.push_str(", ");
                    }
                    self.write_expr(&mut s, a, 0);
                }
                s.push(')');
                match callee {
                    Callee::Nondet(_) => s.push_str("  /* nondet */"),
                    Callee::External(_) => s.push_str("  /* external */"),
                    _ => {}
                }
                s
            }
            EdgeKind::Return(None) => "return".into(),
            EdgeKind::Return(Some(e)) => format!("return {}", self.show_expr(e)),
            EdgeKind::Error { cause } => format!("error  /* {cause} */"),
            EdgeKind::Halt { cause } => format!("halt  /* {cause} */"),
            EdgeKind::Skip => "skip".into(),
        }
    }

    /// A declaration line for a variable: `type name`.
    fn show_decl(&self, v: VarId) -> String {
        let i = self.var(v);
        format!("{} {}", self.show_type(&i.ty), i.name)
    }
}

impl fmt::Display for Program {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "// data model {}", self.data_model)?;
        for v in &self.globals {
            let kind = match self.var(*v).kind {
                VarKind::FileStatic => "static ",
                VarKind::LocalStatic(_) => "static /* local */ ",
                _ => "",
            };
            writeln!(f, "global {kind}{};", self.show_decl(*v))?;
        }
        for g in &self.global_inits {
            match &g.value {
                Some(v) => writeln!(
                    f,
                    "init {}  {} := {}",
                    self.show_pos(g.pos),
                    self.show_expr(&g.lhs),
                    self.show_expr(v)
                )?,
                None => writeln!(
                    f,
                    "init {}  {} := *",
                    self.show_pos(g.pos),
                    self.show_expr(&g.lhs)
                )?,
            }
        }
        for x in &self.externals {
            let called = if x.called { "" } else { "  /* not called */" };
            let ty = CType::Func(Box::new(x.ty.clone()));
            writeln!(f, "external {}: {}{called}", x.name, self.show_type(&ty))?;
        }
        for func in &self.functions {
            writeln!(f)?;
            let formals: Vec<String> = func.formals.iter().map(|v| self.show_decl(*v)).collect();
            writeln!(
                f,
                "function {}({}) -> {}  // {}",
                func.name,
                formals.join(", "),
                self.show_type(&func.ty.ret),
                self.show_pos(func.pos)
            )?;
            for v in &func.locals {
                writeln!(f, "  local {};", self.show_decl(*v))?;
            }
            writeln!(f, "  entry {}  exit {}", func.entry, func.exit)?;
            for e in &func.edges {
                writeln!(
                    f,
                    "  {:<10} {:<7} {:>4} -> {:<4}  {}",
                    self.edge_name(e.id),
                    self.show_pos(e.pos),
                    e.from.to_string(),
                    e.to.to_string(),
                    self.show_edge_kind(&e.kind)
                )?;
            }
        }
        if !self.warnings.is_empty() {
            writeln!(f)?;
            for w in &self.warnings {
                writeln!(f, "warning {}: {}", self.show_pos(w.pos), w.message)?;
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn c(v: i128, k: IntKind) -> Expr {
        Expr::int(v, CType::Int(k))
    }

    fn bin(op: BinOp, a: Expr, b: Expr, k: IntKind) -> Expr {
        Expr {
            kind: ExprKind::Binary(op, Box::new(a), Box::new(b)),
            ty: CType::Int(k),
        }
    }

    #[test]
    fn constant_values_follow_c() {
        use IntKind::{Int, UInt};
        let dm = DataModel::Ilp32;
        let value = |e: Expr| e.constant_value(dm);
        // Operands are converted to the node's type: `(0u - 1) / 2` wraps first.
        let minus_one = bin(BinOp::Sub, c(0, UInt), c(1, Int), UInt);
        assert_eq!(value(minus_one.clone()), Some(4_294_967_295));
        assert_eq!(
            value(bin(BinOp::Div, minus_one, c(2, Int), UInt)),
            Some(2_147_483_647)
        );
        // Division truncates toward zero; the remainder has the dividend's sign.
        assert_eq!(value(bin(BinOp::Div, c(7, Int), c(-2, Int), Int)), Some(-3));
        assert_eq!(value(bin(BinOp::Rem, c(-7, Int), c(2, Int), Int)), Some(-1));
        assert_eq!(
            value(bin(BinOp::Sub, c(1024, Int), c(1, Int), Int)),
            Some(1023)
        );
        // Undefined: signed overflow, division by zero. Not constants: variables, shifts.
        assert_eq!(
            value(bin(BinOp::Add, c(i32::MAX.into(), Int), c(1, Int), Int)),
            None
        );
        assert_eq!(value(bin(BinOp::Div, c(1, Int), c(0, Int), Int)), None);
        assert_eq!(value(bin(BinOp::Shl, c(1, Int), c(2, Int), Int)), None);
        let cast = Expr {
            kind: ExprKind::Cast(Box::new(c(-1, Int))),
            ty: CType::Int(IntKind::UChar),
        };
        assert_eq!(value(cast), Some(255));
    }
}
