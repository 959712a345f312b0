//! Lowering of the lang-c AST to the control-flow IR: control flow, names, SV-COMP
//! conventions, unsupported constructs.
//!
//! # Control flow
//! `if`, `while`, `do`, `for`, `switch` (a chain of `assume(v == c)` / `assume(v != c)` tests
//! in case order, then `default` or the exit; bodies fall through), `goto`/labels, `break`,
//! `continue` and `return` are lowered to edges; `&&`, `||`, `?:`, `!` and `,` in branch
//! conditions become control flow, so every `assume` is one comparison (a truth test `e` becomes
//! `e != 0`). A condition that is an integer constant expression becomes an unconditional jump
//! (`while (1)` has no exit edge). The graph is then compacted: `skip` edges are merged away
//! (except a `skip` self-loop such as `while (1) ;`), nodes unreachable from the entry are removed
//! (dead code after `return`, `abort()`, …), nodes are renumbered (entry `n0`) and edges numbered
//! in creation (source) order.
//!
//! # Expressions
//! Side effects are evaluated into edges before the expression that uses them, left to right
//! (C leaves the order of operands unspecified; function arguments are evaluated left to right;
//! `&&`, `||`, `?:` and `,` keep their sequencing). A call's result goes to a fresh temporary.
//! `x++` as a value is `tmp := x; x := x + 1` with value `tmp`; discarded, it is `x := x + 1`.
//! `a op= b` evaluates the lvalue `a` once (its side effects are hoisted) and assigns
//! `a := a op b`. `&&`/`||` in a value context stay operators when the right operand has no side
//! effects, otherwise they become control flow assigning 1/0 to a temporary; `?:` in a value
//! context always becomes control flow into a temporary.
//!
//! # Names (usable in predicate files)
//! - globals and file statics: their C name (unique in a translation unit);
//! - a `static` local `x` of function `f`: `x#f`;
//! - formals and locals: their C name, unless a global or an earlier local/formal of the same
//!   function has it, then `x#2`, `x#3`, … (numbered per function in declaration order);
//! - a formal `x` that the body assigns (or whose address it takes) is copied at entry into the
//!   local `x#copy`, and the body uses the copy; the formal itself is never assigned;
//! - temporaries: `tmp#N` (values of `x++`, `?:`, `&&`, switch scrutinees, havocked values),
//!   `f#ret#N` for the result of a call of `f` (`icall#ret#N` through a pointer, `nondet#ret#N`
//!   for `__VERIFIER_nondet_X()`), where `N` counts the temporaries of the function from 1.
//!
//! # SV-COMP conventions
//! `__VERIFIER_nondet_X()` is a [`Callee::Nondet`] call (result type from the declaration, else
//! from `X`); `__VERIFIER_assume(e)` and `assume_abort_if_not(e)` are `assume` edges (no edge for
//! the false side); `abort`, `exit`, `_Exit`, `_exit` (and `__assert_fail` unless
//! `assert_is_error`) are `halt` edges into a sink; `reach_error()`, `__VERIFIER_error()` and
//! the functions of [`LowerOptions::error_fns`] are `error` edges into a sink (whatever body the
//! file gives them; the bodies are still lowered as functions), as is reaching a label of
//! [`LowerOptions::error_labels`]. Other functions without a body are [`Callee::External`] and
//! listed in [`Program::externals`], with a warning at each call. Allocators and the memory
//! functions are the exceptions of the `memory` module: `malloc(sizeof(T))`'s result is typed
//! `T *`, and `memset`/`memcpy`/`memmove` of a whole object are assignments.
//!
//! # Approximations (each one also produces a [`crate::ir::Warning`] unless noted)
//! - Floating-point constants become a havocked temporary of their type; floating-point
//!   arithmetic is kept in the IR with its float type, with a warning (no later stage models it);
//!   the negation of a float comparison on the false branch ignores NaN.
//! - Assigning to a member of a union havocs the whole union object.
//! - Inline assembly: extended asm havocs its output operands; its effects on memory are
//!   ignored (unsound if the asm writes memory other than its outputs).
//! - Initialisers the lowering cannot express (string literals for `char` arrays, brace elision,
//!   unions) havoc the initialised object (locals) or record a havocked global initialiser.
//! - An uninitialised block-scope local declared inside a loop, or after a label, is havocked
//!   at its declaration (its value is indeterminate at each entry into the block); elsewhere no
//!   edge is emitted (its value at function entry is already arbitrary). Silent.
//! - Variable-length arrays get an unknown length.
//! - Bit-field widths are ignored (the field has its declared type).
//! - `sizeof` uses gcc's x86 layout for the data model (natural alignment); the preprocessor
//!   itself is not told the data model, so system headers see the host's (LP64) model.
//! - Enumerations have gcc's underlying type: `unsigned int` when no enumerator is negative,
//!   else `int`; enumeration constants are `int`.
//! - Unprototyped calls (implicit declarations) assume `int f()`, with a warning.
//!
//! GNU statement expressions `({ …; e; })` are lowered (their statements, then `e`'s value).
//!
//! Rejected with [`CirError::Unsupported`] (file:line:col): compound literals, `_Generic`, `va_arg`, `offsetof`, `_Alignof`, K&R definitions with identifier lists,
//! anonymous struct members, oversized aggregate initialisers.

use std::collections::{HashMap, HashSet};

use lang_c::ast::*;
use lang_c::span::{Node, Span};
use lang_c::visit::{self, Visit};

use crate::error::{CirError, Loc};
use crate::frontend::Parsed;
use crate::ir::{
    BinOp, Callee, Edge, EdgeId, EdgeKind, Expr, ExprKind, External, FuncId, Function, GlobalInit,
    NodeId, Program, SrcPos, StructDef, UnOp, VarId, VarInfo, VarKind, Warning,
};
use crate::types::{CType, DataModel, FloatKind, FuncType, IntKind, StructId, usual_arithmetic};

mod cfg;
mod decls;
mod expr;
mod init;
mod memory;
mod stmt;
mod value;

use cfg::finish;
use decls::{decl_specs, declarator_name, innermost_params};
pub(crate) use value::{
    MemberError, address_of, arith_unary, deref, index, int_constant_type, log_not, member,
    unary_plus,
};

/// Options of the lowering.
#[derive(Debug, Clone, Default)]
pub struct LowerOptions {
    /// Data model of the integer types.
    pub data_model: DataModel,
    /// Functions whose call is the error, besides `reach_error` and `__VERIFIER_error`.
    pub error_fns: Vec<String>,
    /// Labels whose reaching is the error.
    pub error_labels: Vec<String>,
    /// A call of `__assert_fail` (a failing `assert`) is the error rather than a halt.
    pub assert_is_error: bool,
    /// Keep reads of global variables whose value is known as they are ([`crate::load_file`]
    /// replaces them by constants otherwise, see the `constprop` module).
    pub keep_global_reads: bool,
}

type R<T> = Result<T, CirError>;

/// The built-in error functions.
pub const ERROR_FNS: &[&str] = &["reach_error", "__VERIFIER_error"];
/// Functions that end the path.
pub const HALT_FNS: &[&str] = &["abort", "exit", "_Exit", "_exit", "__builtin_abort"];
/// Functions whose call restricts the path to its argument being true.
pub const ASSUME_FNS: &[&str] = &["__VERIFIER_assume", "assume_abort_if_not"];
/// Functions that allocate a fresh object (defined with the IR, which knows its allocators).
pub use crate::ir::ALLOC_FNS;
/// Prefix of the nondeterministic-value intrinsics.
pub const NONDET_PREFIX: &str = "__VERIFIER_nondet_";

/// Lowers a parsed translation unit.
pub fn lower(parsed: &Parsed, opts: &LowerOptions) -> R<Program> {
    let mut l = Lowerer::new(parsed, opts);
    l.run()?;
    Ok(l.prog)
}

#[derive(Debug, Clone)]
enum Binding {
    Var(VarId),
    Enum(i128),
    Typedef(CType),
    Func(String),
}

#[derive(Default)]
struct Scope {
    names: HashMap<String, Binding>,
    tags: HashMap<String, StructId>,
}

#[derive(Clone)]
struct FuncDecl {
    ty: FuncType,
    def: Option<FuncId>,
    called: bool,
    implicit: bool,
}

struct RawEdge {
    from: NodeId,
    to: NodeId,
    kind: EdgeKind,
    pos: SrcPos,
}

struct FnBuilder {
    id: FuncId,
    name: String,
    nodes: u32,
    edges: Vec<RawEdge>,
    cur: NodeId,
    exit: NodeId,
    locals: Vec<VarId>,
    used_names: HashSet<String>,
    temps: u32,
    labels: HashMap<String, NodeId>,
    defined_labels: HashSet<String>,
    used_labels: Vec<(String, SrcPos)>,
    breaks: Vec<NodeId>,
    continues: Vec<NodeId>,
    cases: Vec<HashMap<usize, NodeId>>,
    loop_depth: u32,
    seen_label: bool,
}

impl FnBuilder {
    fn new(id: FuncId, name: &str) -> FnBuilder {
        FnBuilder {
            id,
            name: name.to_string(),
            nodes: 2,
            edges: Vec::new(),
            cur: NodeId(0),
            exit: NodeId(1),
            locals: Vec::new(),
            used_names: HashSet::new(),
            temps: 0,
            labels: HashMap::new(),
            defined_labels: HashSet::new(),
            used_labels: Vec::new(),
            breaks: Vec::new(),
            continues: Vec::new(),
            cases: Vec::new(),
            loop_depth: 0,
            seen_label: false,
        }
    }
}

struct Lowerer<'a> {
    parsed: &'a Parsed,
    opts: &'a LowerOptions,
    dm: DataModel,
    prog: Program,
    scopes: Vec<Scope>,
    file_names: HashSet<String>,
    funcs: HashMap<String, FuncDecl>,
    func_order: Vec<String>,
    fb: Option<FnBuilder>,
    next_func: u32,
}

/// Finds identifiers that are assigned, incremented or have their address taken.
struct AssignedNames(HashSet<String>);

fn ident_of(e: &Expression) -> Option<&str> {
    match e {
        Expression::Identifier(i) => Some(&i.node.name),
        _ => None,
    }
}

impl<'ast> Visit<'ast> for AssignedNames {
    fn visit_binary_operator_expression(
        &mut self,
        e: &'ast BinaryOperatorExpression,
        span: &'ast Span,
    ) {
        use BinaryOperator::*;
        if matches!(
            e.operator.node,
            Assign
                | AssignMultiply
                | AssignDivide
                | AssignModulo
                | AssignPlus
                | AssignMinus
                | AssignShiftLeft
                | AssignShiftRight
                | AssignBitwiseAnd
                | AssignBitwiseXor
                | AssignBitwiseOr
        ) && let Some(n) = ident_of(&e.lhs.node)
        {
            self.0.insert(n.to_string());
        }
        visit::visit_binary_operator_expression(self, e, span)
    }
    fn visit_unary_operator_expression(
        &mut self,
        e: &'ast UnaryOperatorExpression,
        span: &'ast Span,
    ) {
        use UnaryOperator::*;
        if matches!(
            e.operator.node,
            PostIncrement | PostDecrement | PreIncrement | PreDecrement | Address
        ) && let Some(n) = ident_of(&e.operand.node)
        {
            self.0.insert(n.to_string());
        }
        visit::visit_unary_operator_expression(self, e, span)
    }
}

impl<'a> Lowerer<'a> {
    fn new(parsed: &'a Parsed, opts: &'a LowerOptions) -> Self {
        Lowerer {
            parsed,
            opts,
            dm: opts.data_model,
            prog: Program {
                data_model: opts.data_model,
                files: parsed.lines.files.clone(),
                vars: Vec::new(),
                structs: Vec::new(),
                globals: Vec::new(),
                global_inits: Vec::new(),
                functions: Vec::new(),
                externals: Vec::new(),
                warnings: Vec::new(),
                vla_lengths: Vec::new(),
            },
            scopes: vec![Scope::default()],
            file_names: HashSet::new(),
            funcs: HashMap::new(),
            func_order: Vec::new(),
            fb: None,
            next_func: 0,
        }
    }

    // ----- positions, errors, warnings -----

    fn pos(&self, span: &Span) -> SrcPos {
        if span.is_none() {
            return SrcPos::default();
        }
        let (file, line, col) = self.parsed.lines.position(span.start);
        SrcPos { file, line, col }
    }

    fn loc(&self, span: &Span) -> Loc {
        if span.is_none() {
            return Loc {
                file: self.parsed.path.clone(),
                line: 0,
                col: 0,
            };
        }
        self.parsed.lines.loc(span.start)
    }

    fn unsupported<T>(&self, span: &Span, what: impl Into<String>) -> R<T> {
        Err(CirError::Unsupported {
            loc: self.loc(span),
            what: what.into(),
        })
    }

    fn invalid<T>(&self, span: &Span, message: impl Into<String>) -> R<T> {
        Err(CirError::Invalid {
            loc: self.loc(span),
            message: message.into(),
        })
    }

    fn warn(&mut self, span: &Span, message: impl Into<String>) {
        let pos = self.pos(span);
        let function = self.fb.as_ref().map(|f| f.name.clone());
        self.prog.warnings.push(Warning {
            pos,
            message: message.into(),
            function,
        });
    }

    // ----- the driver -----

    fn run(&mut self) -> R<()> {
        let unit = &self.parsed.unit;
        // Pre-pass: file-scope ordinary names and function ids of definitions.
        for ext in &unit.0 {
            match &ext.node {
                ExternalDeclaration::Declaration(d) => {
                    for id in &d.node.declarators {
                        if let Some(n) = declarator_name(&id.node.declarator.node) {
                            self.file_names.insert(n.to_string());
                        }
                    }
                }
                ExternalDeclaration::FunctionDefinition(f) => {
                    if let Some(n) = declarator_name(&f.node.declarator.node) {
                        self.file_names.insert(n.to_string());
                    }
                }
                ExternalDeclaration::StaticAssert(_) => {}
            }
        }
        for ext in &unit.0 {
            match &ext.node {
                ExternalDeclaration::Declaration(d) => self.file_declaration(&d.node, &d.span)?,
                ExternalDeclaration::FunctionDefinition(f) => self.function(&f.node, &f.span)?,
                ExternalDeclaration::StaticAssert(_) => {}
            }
        }
        let mut externals = Vec::new();
        for name in &self.func_order {
            let d = &self.funcs[name];
            if d.def.is_some() || self.is_special(name) {
                continue;
            }
            externals.push(External {
                name: name.clone(),
                ty: d.ty.clone(),
                called: d.called,
            });
        }
        self.prog.externals = externals;
        self.drop_unreachable_header_warnings();
        Ok(())
    }

    /// Drops the warnings about code in system headers (not the user's file) inside functions
    /// no execution from `main` can enter: `static inline` helpers of `<stdlib.h>` and the like
    /// that call undeclared builtins would otherwise drown the warnings that matter. A function
    /// whose address is taken counts as reachable.
    fn drop_unreachable_header_warnings(&mut self) {
        let by_name: HashMap<&str, &Function> = self
            .prog
            .functions
            .iter()
            .map(|f| (f.name.as_str(), f))
            .collect();
        let mut reachable: HashSet<String> = HashSet::new();
        let mut work: Vec<String> = vec!["main".to_string()];
        // Functions used as values (function pointers) may be called from anywhere.
        let note_uses = |e: &Expr, work: &mut Vec<String>| {
            e.walk(&mut |x| {
                if let ExprKind::Func(n) = &x.kind {
                    work.push(n.clone());
                }
            });
        };
        for init in &self.prog.global_inits {
            if let Some(v) = &init.value {
                note_uses(v, &mut work);
            }
        }
        while let Some(name) = work.pop() {
            if !reachable.insert(name.clone()) {
                continue;
            }
            let Some(f) = by_name.get(name.as_str()) else {
                continue;
            };
            for e in &f.edges {
                match &e.kind {
                    EdgeKind::Call { callee, args, .. } => {
                        if let Callee::Defined(g) = callee {
                            work.push(self.prog.functions[g.0 as usize].name.clone());
                        }
                        if let Callee::Indirect(x) = callee {
                            note_uses(x, &mut work);
                        }
                        for a in args {
                            note_uses(a, &mut work);
                        }
                    }
                    EdgeKind::Assign { rhs, .. } => note_uses(rhs, &mut work),
                    EdgeKind::Return(Some(x)) | EdgeKind::Assume(x) => note_uses(x, &mut work),
                    _ => {}
                }
            }
        }
        self.prog.warnings.retain(|w| {
            w.pos.file == 0 || w.function.as_ref().is_none_or(|f| reachable.contains(f))
        });
    }

    fn is_error_fn(&self, name: &str) -> bool {
        ERROR_FNS.contains(&name) || self.opts.error_fns.iter().any(|n| n == name)
    }

    fn is_special(&self, name: &str) -> bool {
        self.is_error_fn(name)
            || HALT_FNS.contains(&name)
            || ASSUME_FNS.contains(&name)
            || name.starts_with(NONDET_PREFIX)
            || name == "__assert_fail"
    }

    fn declare_func(&mut self, name: &str, ty: FuncType) {
        if let Some(d) = self.funcs.get_mut(name) {
            if d.implicit || (d.ty.variadic && d.ty.params.is_empty() && !ty.params.is_empty()) {
                d.ty = ty;
                d.implicit = false;
            }
        } else {
            self.funcs.insert(
                name.to_string(),
                FuncDecl {
                    ty,
                    def: None,
                    called: false,
                    implicit: false,
                },
            );
            self.func_order.push(name.to_string());
        }
        self.scopes[0]
            .names
            .insert(name.to_string(), Binding::Func(name.to_string()));
    }

    // ----- variables and names -----

    fn fb(&mut self) -> &mut FnBuilder {
        self.fb.as_mut().expect("inside a function")
    }

    fn new_var(
        &mut self,
        name: String,
        c_name: &str,
        ty: CType,
        kind: VarKind,
        pos: SrcPos,
    ) -> VarId {
        let id = VarId(self.prog.vars.len() as u32);
        self.prog.vars.push(VarInfo {
            name,
            c_name: c_name.to_string(),
            ty,
            kind,
            pos,
        });
        id
    }

    /// A unique name in the current function for a local called `c`.
    fn local_name(&mut self, c: &str) -> String {
        let clash = self.file_names.contains(c);
        let fb = self.fb();
        if !clash && !fb.used_names.contains(c) {
            fb.used_names.insert(c.to_string());
            return c.to_string();
        }
        let mut n = 2;
        loop {
            let cand = format!("{c}#{n}");
            if !fb.used_names.contains(&cand) {
                fb.used_names.insert(cand.clone());
                return cand;
            }
            n += 1;
        }
    }

    fn new_local(&mut self, c: &str, ty: CType, kind: VarKind, pos: SrcPos) -> VarId {
        let name = self.local_name(c);
        let v = self.new_var(name, c, ty, kind, pos);
        self.fb().locals.push(v);
        v
    }

    fn new_temp(&mut self, prefix: &str, ty: CType, pos: SrcPos) -> VarId {
        let fb = self.fb();
        fb.temps += 1;
        let name = format!("{prefix}#{}", fb.temps);
        fb.used_names.insert(name.clone());
        let id = fb.id;
        let v = self.new_var(name.clone(), &name, ty, VarKind::Temp(id), pos);
        self.fb().locals.push(v);
        v
    }

    fn var_expr(&self, v: VarId) -> Expr {
        Expr {
            kind: ExprKind::Var(v),
            ty: self.prog.vars[v.0 as usize].ty.clone(),
        }
    }

    // ----- graph building -----

    fn new_node(&mut self) -> NodeId {
        let fb = self.fb();
        fb.nodes += 1;
        NodeId(fb.nodes - 1)
    }

    fn edge(&mut self, from: NodeId, to: NodeId, kind: EdgeKind, pos: SrcPos) {
        self.fb().edges.push(RawEdge {
            from,
            to,
            kind,
            pos,
        });
    }

    /// An edge from the current node to a new one, which becomes current.
    fn emit(&mut self, kind: EdgeKind, pos: SrcPos) {
        let n = self.new_node();
        let cur = self.fb().cur;
        self.edge(cur, n, kind, pos);
        self.fb().cur = n;
    }

    /// Jump to `to`; the current node becomes a fresh (so far unreachable) node.
    fn jump(&mut self, to: NodeId, pos: SrcPos) {
        let cur = self.fb().cur;
        self.edge(cur, to, EdgeKind::Skip, pos);
        self.detach();
    }

    /// Continue at `to` (a skip edge from the current node).
    fn continue_at(&mut self, to: NodeId, pos: SrcPos) {
        let cur = self.fb().cur;
        self.edge(cur, to, EdgeKind::Skip, pos);
        self.fb().cur = to;
    }

    fn detach(&mut self) {
        let n = self.new_node();
        self.fb().cur = n;
    }

    /// An edge into a fresh sink; the current node becomes a fresh unreachable node.
    fn end_path(&mut self, kind: EdgeKind, pos: SrcPos) {
        let sink = self.new_node();
        let cur = self.fb().cur;
        self.edge(cur, sink, kind, pos);
        self.detach();
    }

    fn label_node(&mut self, name: &str) -> NodeId {
        if let Some(n) = self.fb().labels.get(name) {
            return *n;
        }
        let n = self.new_node();
        self.fb().labels.insert(name.to_string(), n);
        n
    }

    // ----- functions -----

    fn function(&mut self, f: &FunctionDefinition, span: &Span) -> R<()> {
        if !f.declarations.is_empty() {
            return self.unsupported(span, "K&R-style function definition");
        }
        let specs = decl_specs(&f.specifiers);
        let base = self.base_type(&specs, span)?;
        let (name, ty) = self.declarator(base, &f.declarator.node)?;
        let (Some(name), CType::Func(ft)) = (name, ty) else {
            return self.invalid(span, "function definition without a function declarator");
        };
        let ft = *ft;
        self.declare_func(&name, ft.clone());
        if self.funcs[&name].def.is_some() {
            return self.invalid(span, format!("function `{name}` defined twice"));
        }
        let id = FuncId(self.next_func);
        self.next_func += 1;
        self.funcs.get_mut(&name).expect("declared").def = Some(id);
        // placeholder so that ids index `functions`
        let pos = self.pos(span);
        self.fb = Some(FnBuilder::new(id, &name));
        self.scopes.push(Scope::default());
        let r = self.function_body(f, &name, &ft, pos);
        self.scopes.pop();
        let fb = self.fb.take().expect("function builder");
        let formals = r?;
        for (l, p) in &fb.used_labels {
            if !fb.defined_labels.contains(l) {
                return Err(CirError::Invalid {
                    loc: Loc {
                        file: self.prog.files[p.file as usize].clone(),
                        line: p.line,
                        col: p.col,
                    },
                    message: format!("goto to undefined label `{l}`"),
                });
            }
        }
        let func = finish(fb, &name, ft, formals, pos);
        self.prog.functions.push(func);
        Ok(())
    }

    fn function_body(
        &mut self,
        f: &FunctionDefinition,
        name: &str,
        ft: &FuncType,
        pos: SrcPos,
    ) -> R<Vec<VarId>> {
        let id = self.fb().id;
        // formals
        let mut formals = Vec::new();
        if let Some(DerivedDeclarator::Function(fd)) = innermost_params(&f.declarator.node) {
            let mut i = 0;
            for p in &fd.node.parameters {
                let specs = decl_specs(&p.node.specifiers);
                let b = self.base_type(&specs, &p.span)?;
                let (pname, pt) = match &p.node.declarator {
                    Some(d) => self.declarator(b, &d.node)?,
                    None => (None, b),
                };
                if pt == CType::Void && p.node.declarator.is_none() {
                    continue;
                }
                let pt = adjust_param(pt);
                let c = pname.unwrap_or_else(|| format!("arg{i}"));
                let ppos = self.pos(&p.span);
                let v = self.new_local(&c, pt, VarKind::Formal(id, i), ppos);
                self.fb().locals.pop();
                self.bind(&c, Binding::Var(v));
                formals.push(v);
                i += 1;
            }
        }
        // copies of assigned formals
        let mut assigned = AssignedNames(HashSet::new());
        assigned.visit_statement(&f.statement.node, &f.statement.span);
        for v in formals.clone() {
            let c = self.prog.vars[v.0 as usize].c_name.clone();
            if assigned.0.contains(&c) {
                let name = format!("{}#copy", self.prog.vars[v.0 as usize].name);
                self.fb().used_names.insert(name.clone());
                let ty = self.prog.vars[v.0 as usize].ty.clone();
                let ppos = self.prog.vars[v.0 as usize].pos;
                let copy = self.new_var(name, &c, ty, VarKind::FormalCopy(id, v), ppos);
                self.fb().locals.push(copy);
                self.bind(&c, Binding::Var(copy));
                let (l, r) = (self.var_expr(copy), self.var_expr(v));
                self.emit(EdgeKind::Assign { lhs: l, rhs: r }, ppos);
            }
        }
        self.stmt(&f.statement)?;
        // falling off the end
        let end = Span::span(f.statement.span.end.saturating_sub(1), f.statement.span.end);
        let end_pos = self.pos(&end);
        let ret = if name == "main" && ft.ret == CType::INT {
            Some(Expr::int(0, CType::INT))
        } else {
            None
        };
        let (cur, exit) = (self.fb().cur, self.fb().exit);
        self.edge(cur, exit, EdgeKind::Return(ret), end_pos);
        let _ = pos;
        Ok(formals)
    }
}

/// Array and function parameters are pointers.
fn adjust_param(t: CType) -> CType {
    match t {
        CType::Array(e, _) => CType::Pointer(e),
        CType::Func(_) => t.ptr_to(),
        t => t,
    }
}
