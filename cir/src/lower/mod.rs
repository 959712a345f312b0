//! Lowering of the lang-c AST to the control-flow IR (issue 3 §1: control flow, names,
//! SV-COMP conventions, unsupported constructs).
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
//! listed in [`Program::externals`], with a warning at each call.
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
    /// replaces them by constants otherwise, see [`crate::constprop`]).
    pub keep_global_reads: bool,
}

type R<T> = Result<T, CirError>;

/// The built-in error functions.
pub const ERROR_FNS: &[&str] = &["reach_error", "__VERIFIER_error"];
/// Functions that end the path.
pub const HALT_FNS: &[&str] = &["abort", "exit", "_Exit", "_exit", "__builtin_abort"];
/// Functions whose call restricts the path to its argument being true.
pub const ASSUME_FNS: &[&str] = &["__VERIFIER_assume", "assume_abort_if_not"];
/// Functions that allocate a fresh object; as SV-COMP assumes, they never fail: the lowering
/// follows each call whose result is used with `assume(result != 0)`.
pub const ALLOC_FNS: &[&str] = &["malloc", "calloc", "alloca", "__builtin_alloca", "valloc"];
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

/// Collects the case labels of one switch body (not of nested switches), in source order.
struct CaseLabels<'ast>(Vec<&'ast Node<Label>>);

impl<'ast> Visit<'ast> for CaseLabels<'ast> {
    fn visit_labeled_statement(&mut self, s: &'ast LabeledStatement, span: &'ast Span) {
        if !matches!(s.label.node, Label::Identifier(_)) {
            self.0.push(&s.label);
        }
        visit::visit_labeled_statement(self, s, span)
    }
    fn visit_switch_statement(&mut self, _s: &'ast SwitchStatement, _span: &'ast Span) {}
}

/// Whether lowering an expression may emit edges (calls, assignments, `++`, `?:`, `,`, …).
struct HasEffects(bool);

impl<'ast> Visit<'ast> for HasEffects {
    fn visit_expression(&mut self, e: &'ast Expression, span: &'ast Span) {
        match e {
            Expression::Call(_)
            | Expression::Conditional(_)
            | Expression::Comma(_)
            | Expression::Statement(_)
            | Expression::CompoundLiteral(_) => self.0 = true,
            Expression::Constant(c) if matches!(c.node, Constant::Float(_)) => self.0 = true,
            Expression::UnaryOperator(u)
                if matches!(
                    u.node.operator.node,
                    UnaryOperator::PostIncrement
                        | UnaryOperator::PostDecrement
                        | UnaryOperator::PreIncrement
                        | UnaryOperator::PreDecrement
                ) =>
            {
                self.0 = true
            }
            Expression::BinaryOperator(b) if assign_op(&b.node.operator.node).is_some() => {
                self.0 = true
            }
            Expression::SizeOfVal(_) | Expression::SizeOfTy(_) => return,
            _ => {}
        }
        if !self.0 {
            visit::visit_expression(self, e, span)
        }
    }
}

fn has_effects(e: &Node<Expression>) -> bool {
    let mut v = HasEffects(false);
    v.visit_expression(&e.node, &e.span);
    v.0
}

/// `Some(None)` for `=`, `Some(Some(op))` for `op=`.
fn assign_op(op: &BinaryOperator) -> Option<Option<BinOp>> {
    use BinaryOperator::*;
    Some(match op {
        Assign => None,
        AssignMultiply => Some(BinOp::Mul),
        AssignDivide => Some(BinOp::Div),
        AssignModulo => Some(BinOp::Rem),
        AssignPlus => Some(BinOp::Add),
        AssignMinus => Some(BinOp::Sub),
        AssignShiftLeft => Some(BinOp::Shl),
        AssignShiftRight => Some(BinOp::Shr),
        AssignBitwiseAnd => Some(BinOp::BitAnd),
        AssignBitwiseXor => Some(BinOp::BitXor),
        AssignBitwiseOr => Some(BinOp::BitOr),
        _ => return None,
    })
}

fn plain_binop(op: &BinaryOperator) -> Option<BinOp> {
    use BinaryOperator::*;
    Some(match op {
        Multiply => BinOp::Mul,
        Divide => BinOp::Div,
        Modulo => BinOp::Rem,
        Plus => BinOp::Add,
        Minus => BinOp::Sub,
        ShiftLeft => BinOp::Shl,
        ShiftRight => BinOp::Shr,
        Less => BinOp::Lt,
        Greater => BinOp::Gt,
        LessOrEqual => BinOp::Le,
        GreaterOrEqual => BinOp::Ge,
        Equals => BinOp::Eq,
        NotEquals => BinOp::Ne,
        BitwiseAnd => BinOp::BitAnd,
        BitwiseXor => BinOp::BitXor,
        BitwiseOr => BinOp::BitOr,
        LogicalAnd => BinOp::LogAnd,
        LogicalOr => BinOp::LogOr,
        _ => return None,
    })
}

/// Type specifiers gathered from declaration specifiers or specifier-qualifier lists.
struct Specs<'a> {
    types: Vec<&'a Node<TypeSpecifier>>,
    storage: Option<StorageClassSpecifier>,
}

fn decl_specs(s: &[Node<DeclarationSpecifier>]) -> Specs<'_> {
    let mut out = Specs {
        types: Vec::new(),
        storage: None,
    };
    for x in s {
        match &x.node {
            DeclarationSpecifier::TypeSpecifier(t) => out.types.push(t),
            DeclarationSpecifier::StorageClass(c) => out.storage = Some(c.node.clone()),
            _ => {}
        }
    }
    out
}

fn sq_specs(s: &[Node<SpecifierQualifier>]) -> Specs<'_> {
    let mut out = Specs {
        types: Vec::new(),
        storage: None,
    };
    for x in s {
        if let SpecifierQualifier::TypeSpecifier(t) = &x.node {
            out.types.push(t);
        }
    }
    out
}

/// The identifier of a declarator, if any.
fn declarator_name(d: &Declarator) -> Option<&str> {
    match &d.kind.node {
        DeclaratorKind::Identifier(i) => Some(&i.node.name),
        DeclaratorKind::Declarator(inner) => declarator_name(&inner.node),
        DeclaratorKind::Abstract => None,
    }
}

/// The parameter list that applies directly to the declared name (for definitions).
fn innermost_params(d: &Declarator) -> Option<&DerivedDeclarator> {
    if let DeclaratorKind::Declarator(inner) = &d.kind.node
        && let Some(p) = innermost_params(&inner.node)
    {
        return Some(p);
    }
    d.derived
        .iter()
        .map(|x| &x.node)
        .find(|x| !matches!(x, DerivedDeclarator::Pointer(_)))
}

fn parse_int_literal(i: &Integer) -> Option<u128> {
    let radix = match i.base {
        IntegerBase::Decimal => 10,
        IntegerBase::Octal => 8,
        IntegerBase::Hexadecimal => 16,
        IntegerBase::Binary => 2,
    };
    let digits: &str = &i.number;
    let digits = match i.base {
        IntegerBase::Hexadecimal => digits.trim_start_matches("0x").trim_start_matches("0X"),
        IntegerBase::Binary => digits.trim_start_matches("0b").trim_start_matches("0B"),
        _ => digits,
    };
    if digits.is_empty() {
        return Some(0);
    }
    u128::from_str_radix(digits, radix).ok()
}

fn parse_char_literal(s: &str) -> Option<i128> {
    // s looks like 'a', '\n', L'x', '\x41', '\101'
    let start = s.find('\'')?;
    let inner = &s[start + 1..s.len().checked_sub(1)?];
    let mut chars = inner.chars();
    let c = chars.next()?;
    if c != '\\' {
        return Some(c as i128);
    }
    let rest: String = chars.collect();
    let v = match rest.chars().next()? {
        'n' => 10,
        't' => 9,
        'r' => 13,
        '0'..='7' => i128::from_str_radix(&rest, 8).ok()?,
        'x' => i128::from_str_radix(&rest[1..], 16).ok()?,
        'a' => 7,
        'b' => 8,
        'f' => 12,
        'v' => 11,
        'e' => 27,
        c => c as i128,
    };
    // plain char is signed: '\xff' is -1
    Some(if (128..256).contains(&v) { v - 256 } else { v })
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

    // ----- types -----

    fn lookup(&self, name: &str) -> Option<&Binding> {
        self.scopes.iter().rev().find_map(|s| s.names.get(name))
    }

    fn bind(&mut self, name: &str, b: Binding) {
        self.scopes
            .last_mut()
            .expect("a scope is always open")
            .names
            .insert(name.to_string(), b);
    }

    fn base_type(&mut self, specs: &Specs<'_>, span: &Span) -> R<CType> {
        let (mut signed, mut unsigned, mut short, mut long, mut char_, mut int) =
            (false, false, false, 0, false, false);
        let mut other: Option<CType> = None;
        for t in &specs.types {
            match &t.node {
                TypeSpecifier::Void => other = Some(CType::Void),
                TypeSpecifier::Char => char_ = true,
                TypeSpecifier::Short => short = true,
                TypeSpecifier::Int => int = true,
                TypeSpecifier::Long => long += 1,
                TypeSpecifier::Float => other = Some(CType::Float(FloatKind::Float)),
                TypeSpecifier::Double => other = Some(CType::Float(FloatKind::Double)),
                TypeSpecifier::Signed => signed = true,
                TypeSpecifier::Unsigned => unsigned = true,
                TypeSpecifier::Bool => other = Some(CType::Int(IntKind::Bool)),
                TypeSpecifier::Complex => return self.unsupported(&t.span, "_Complex types"),
                TypeSpecifier::Atomic(tn) => other = Some(self.type_name(&tn.node, &tn.span)?),
                TypeSpecifier::Struct(s) => other = Some(self.struct_type(&s.node, &s.span)?),
                TypeSpecifier::Enum(e) => other = Some(self.enum_type(&e.node)?),
                TypeSpecifier::TypedefName(n) => match self.lookup(&n.node.name) {
                    Some(Binding::Typedef(t)) => other = Some(t.clone()),
                    _ => {
                        return self
                            .invalid(&n.span, format!("unknown type name `{}`", n.node.name));
                    }
                },
                TypeSpecifier::TypeOf(to) => {
                    other = Some(match &to.node {
                        TypeOf::Type(tn) => self.type_name(&tn.node, &tn.span)?,
                        TypeOf::Expression(e) => self.type_of_expr(e)?,
                    })
                }
                TypeSpecifier::TS18661Float(_) => other = Some(CType::Float(FloatKind::LongDouble)),
            }
        }
        if let Some(t) = other {
            if long > 0 && t == CType::Float(FloatKind::Double) {
                return Ok(CType::Float(FloatKind::LongDouble));
            }
            return Ok(t);
        }
        let k = if char_ {
            if unsigned {
                IntKind::UChar
            } else if signed {
                IntKind::SChar
            } else {
                IntKind::Char
            }
        } else if short {
            if unsigned {
                IntKind::UShort
            } else {
                IntKind::Short
            }
        } else if long >= 2 {
            if unsigned {
                IntKind::ULongLong
            } else {
                IntKind::LongLong
            }
        } else if long == 1 {
            if unsigned {
                IntKind::ULong
            } else {
                IntKind::Long
            }
        } else if unsigned {
            IntKind::UInt
        } else if signed || int {
            IntKind::Int
        } else {
            // no type specifier at all: implicit int (C89)
            self.warn(span, "declaration without a type specifier: implicit `int`");
            IntKind::Int
        };
        Ok(CType::Int(k))
    }

    fn struct_type(&mut self, s: &StructType, span: &Span) -> R<CType> {
        let is_union = matches!(s.kind.node, StructKind::Union);
        let tag = s.identifier.as_ref().map(|i| i.node.name.clone());
        let id = match (&tag, &s.declarations) {
            (Some(t), None) => match self.scopes.iter().rev().find_map(|sc| sc.tags.get(t)) {
                Some(id) => *id,
                None => self.new_struct(Some(t.clone()), is_union),
            },
            (Some(t), Some(_)) => match self.scopes.last().and_then(|sc| sc.tags.get(t)) {
                Some(id) if self.prog.structs[id.0 as usize].fields.is_none() => *id,
                _ => self.new_struct(Some(t.clone()), is_union),
            },
            (None, _) => self.new_struct(None, is_union),
        };
        if let Some(decls) = &s.declarations {
            let mut fields = Vec::new();
            for d in decls {
                let StructDeclaration::Field(f) = &d.node else {
                    continue;
                };
                let specs = sq_specs(&f.node.specifiers);
                let base = self.base_type(&specs, &f.span)?;
                for sd in &f.node.declarators {
                    if sd.node.bit_width.is_some() {
                        self.warn(&sd.span, "bit-field width ignored");
                    }
                    match &sd.node.declarator {
                        Some(d) => {
                            let (name, ty) = self.declarator(base.clone(), &d.node)?;
                            match name {
                                Some(n) => fields.push((n, ty)),
                                None => {
                                    if sd.node.bit_width.is_none() {
                                        return self.unsupported(
                                            &sd.span,
                                            "anonymous struct or union member",
                                        );
                                    }
                                }
                            }
                        }
                        None if sd.node.bit_width.is_some() => {}
                        None => {
                            return self.unsupported(&sd.span, "anonymous struct or union member");
                        }
                    }
                }
                if f.node.declarators.is_empty() {
                    return self.unsupported(&f.span, "anonymous struct or union member");
                }
            }
            self.prog.structs[id.0 as usize].fields = Some(fields);
        }
        let _ = span;
        Ok(CType::Struct(id))
    }

    fn new_struct(&mut self, tag: Option<String>, is_union: bool) -> StructId {
        let id = StructId(self.prog.structs.len() as u32);
        self.prog.structs.push(StructDef {
            tag: tag.clone(),
            is_union,
            fields: None,
        });
        if let Some(t) = tag {
            self.scopes.last_mut().expect("scope").tags.insert(t, id);
        }
        id
    }

    fn enum_type(&mut self, e: &EnumType) -> R<CType> {
        let mut next: i128 = 0;
        let mut negative = false;
        for en in &e.enumerators {
            if let Some(x) = &en.node.expression {
                next = self.const_eval(x)?;
            }
            negative |= next < 0;
            self.bind(&en.node.identifier.node.name, Binding::Enum(next));
            next += 1;
        }
        Ok(CType::Int(if negative {
            IntKind::Int
        } else {
            IntKind::UInt
        }))
    }

    fn type_name(&mut self, tn: &TypeName, span: &Span) -> R<CType> {
        let specs = sq_specs(&tn.specifiers);
        let base = self.base_type(&specs, span)?;
        match &tn.declarator {
            Some(d) => Ok(self.declarator(base, &d.node)?.1),
            None => Ok(base),
        }
    }

    /// Applies a declarator to a base type: (name, type).
    fn declarator(&mut self, base: CType, d: &Declarator) -> R<(Option<String>, CType)> {
        let mut t = base;
        for dd in &d.derived {
            if let DerivedDeclarator::Pointer(_) = dd.node {
                t = t.ptr_to();
            }
        }
        for dd in d.derived.iter().rev() {
            match &dd.node {
                DerivedDeclarator::Pointer(_) => {}
                DerivedDeclarator::Array(a) => {
                    let n = match &a.node.size {
                        ArraySize::Unknown => None,
                        ArraySize::VariableUnknown => None,
                        ArraySize::VariableExpression(e) | ArraySize::StaticExpression(e) => {
                            match self.try_const_eval(e) {
                                Some(v) if v >= 0 => Some(v as u64),
                                _ => {
                                    self.warn(&e.span, "variable-length array: length unknown");
                                    None
                                }
                            }
                        }
                    };
                    t = CType::Array(Box::new(t), n);
                }
                DerivedDeclarator::Function(f) => {
                    let mut params = Vec::new();
                    self.scopes.push(Scope::default());
                    let r = (|| {
                        for p in &f.node.parameters {
                            let specs = decl_specs(&p.node.specifiers);
                            let b = self.base_type(&specs, &p.span)?;
                            let pt = match &p.node.declarator {
                                Some(d) => self.declarator(b, &d.node)?.1,
                                None => b,
                            };
                            params.push(pt);
                        }
                        Ok::<(), CirError>(())
                    })();
                    self.scopes.pop();
                    r?;
                    if params.len() == 1 && params[0] == CType::Void {
                        params.clear();
                    }
                    let params = params.into_iter().map(adjust_param).collect();
                    t = CType::Func(Box::new(FuncType {
                        ret: t,
                        params,
                        variadic: matches!(f.node.ellipsis, Ellipsis::Some),
                    }));
                }
                DerivedDeclarator::KRFunction(ids) => {
                    if !ids.is_empty() {
                        return self.unsupported(&dd.span, "K&R-style parameter list");
                    }
                    t = CType::Func(Box::new(FuncType {
                        ret: t,
                        params: vec![],
                        variadic: true,
                    }));
                }
                DerivedDeclarator::Block(_) => return self.unsupported(&dd.span, "block pointers"),
            }
        }
        match &d.kind.node {
            DeclaratorKind::Identifier(i) => Ok((Some(i.node.name.clone()), t)),
            DeclaratorKind::Abstract => Ok((None, t)),
            DeclaratorKind::Declarator(inner) => self.declarator(t, &inner.node),
        }
    }

    fn size_t(&self) -> CType {
        CType::Int(match self.dm {
            DataModel::Ilp32 => IntKind::UInt,
            DataModel::Lp64 => IntKind::ULong,
        })
    }

    /// (size, alignment) in bytes under gcc's x86 layout.
    fn layout(&self, t: &CType) -> Option<(u64, u64)> {
        Some(match t {
            CType::Void => (1, 1),
            CType::Int(k) => {
                let w = if *k == IntKind::Bool {
                    1
                } else {
                    u64::from(k.width(self.dm)) / 8
                };
                let a = if self.dm == DataModel::Ilp32 && w == 8 {
                    4
                } else {
                    w
                };
                (w, a)
            }
            CType::Float(k) => match (k, self.dm) {
                (FloatKind::Float, _) => (4, 4),
                (FloatKind::Double, DataModel::Ilp32) => (8, 4),
                (FloatKind::Double, DataModel::Lp64) => (8, 8),
                (FloatKind::LongDouble, DataModel::Ilp32) => (12, 4),
                (FloatKind::LongDouble, DataModel::Lp64) => (16, 16),
            },
            CType::Pointer(_) => match self.dm {
                DataModel::Ilp32 => (4, 4),
                DataModel::Lp64 => (8, 8),
            },
            CType::Array(e, n) => {
                let (s, a) = self.layout(e)?;
                (s * (*n)?, a)
            }
            CType::Struct(id) => {
                let d = &self.prog.structs[id.0 as usize];
                let fields = d.fields.as_ref()?;
                let (mut size, mut align) = (0u64, 1u64);
                for (_, ft) in fields {
                    let (s, a) = self.layout(ft)?;
                    align = align.max(a);
                    if d.is_union {
                        size = size.max(s);
                    } else {
                        size = size.div_ceil(a) * a + s;
                    }
                }
                (size.div_ceil(align) * align, align)
            }
            CType::Func(_) => (1, 1),
        })
    }

    // ----- constants -----

    fn try_const_eval(&mut self, e: &Node<Expression>) -> Option<i128> {
        self.const_eval(e).ok()
    }

    /// Evaluates an integer constant expression (mathematical integers; enough for case labels,
    /// array sizes and enumerators).
    fn const_eval(&mut self, e: &Node<Expression>) -> R<i128> {
        let not_const = |s: &Self| s.invalid::<i128>(&e.span, "not an integer constant expression");
        match &e.node {
            Expression::Constant(c) => match &c.node {
                Constant::Integer(i) => match parse_int_literal(i) {
                    Some(v) => Ok(v as i128),
                    None => self.invalid(&c.span, "integer constant too large"),
                },
                Constant::Character(s) => match parse_char_literal(s) {
                    Some(v) => Ok(v),
                    None => self.unsupported(&c.span, format!("character constant {s}")),
                },
                Constant::Float(_) => not_const(self),
            },
            Expression::Identifier(i) => match self.lookup(&i.node.name) {
                Some(Binding::Enum(v)) => Ok(*v),
                _ => not_const(self),
            },
            Expression::UnaryOperator(u) => {
                let v = self.const_eval(&u.node.operand)?;
                match u.node.operator.node {
                    UnaryOperator::Minus => Ok(-v),
                    UnaryOperator::Plus => Ok(v),
                    UnaryOperator::Complement => Ok(!v),
                    UnaryOperator::Negate => Ok((v == 0) as i128),
                    _ => not_const(self),
                }
            }
            Expression::Cast(c) => {
                let t = self.type_name(&c.node.type_name.node, &c.node.type_name.span)?;
                let v = self.const_eval(&c.node.expression)?;
                Ok(match t {
                    CType::Int(k) => wrap(v, k, self.dm),
                    _ => v,
                })
            }
            Expression::SizeOfTy(s) => {
                let t = self.type_name(&s.node.0.node, &s.node.0.span)?;
                match self.layout(&t) {
                    Some((n, _)) => Ok(n as i128),
                    None => self.invalid(&e.span, "sizeof of an incomplete type"),
                }
            }
            Expression::SizeOfVal(s) => {
                let t = self.type_of_expr(&s.node.0)?;
                match self.layout(&t) {
                    Some((n, _)) => Ok(n as i128),
                    None => self.invalid(&e.span, "sizeof of an incomplete type"),
                }
            }
            Expression::Conditional(c) => {
                if self.const_eval(&c.node.condition)? != 0 {
                    self.const_eval(&c.node.then_expression)
                } else {
                    self.const_eval(&c.node.else_expression)
                }
            }
            Expression::BinaryOperator(b) => {
                let x = self.const_eval(&b.node.lhs)?;
                let y = self.const_eval(&b.node.rhs)?;
                use BinaryOperator::*;
                Ok(match b.node.operator.node {
                    Multiply => x.wrapping_mul(y),
                    Divide if y != 0 => x / y,
                    Modulo if y != 0 => x % y,
                    Plus => x.wrapping_add(y),
                    Minus => x.wrapping_sub(y),
                    ShiftLeft if (0..64).contains(&y) => x << y,
                    ShiftRight if (0..127).contains(&y) => x >> y,
                    Less => (x < y) as i128,
                    Greater => (x > y) as i128,
                    LessOrEqual => (x <= y) as i128,
                    GreaterOrEqual => (x >= y) as i128,
                    Equals => (x == y) as i128,
                    NotEquals => (x != y) as i128,
                    BitwiseAnd => x & y,
                    BitwiseXor => x ^ y,
                    BitwiseOr => x | y,
                    LogicalAnd => (x != 0 && y != 0) as i128,
                    LogicalOr => (x != 0 || y != 0) as i128,
                    _ => return not_const(self),
                })
            }
            _ => not_const(self),
        }
    }

    /// The type of an expression without emitting anything (for `sizeof` and `typeof`).
    fn type_of_expr(&mut self, e: &Node<Expression>) -> R<CType> {
        let saved_fb = self.fb.take();
        let nvars = self.prog.vars.len();
        let nwarn = self.prog.warnings.len();
        let name = saved_fb
            .as_ref()
            .map(|f| f.name.clone())
            .unwrap_or_default();
        let mut scratch = FnBuilder::new(FuncId(u32::MAX), &name);
        if let Some(f) = &saved_fb {
            scratch.used_names = f.used_names.clone();
        }
        self.fb = Some(scratch);
        let r = self.expr(e);
        self.fb = saved_fb;
        self.prog.vars.truncate(nvars);
        self.prog.warnings.truncate(nwarn);
        Ok(r?.ty)
    }

    fn int_constant(&mut self, i: &Integer, span: &Span) -> R<Expr> {
        let Some(v) = parse_int_literal(i) else {
            return self.invalid(span, "integer constant too large");
        };
        let dec = matches!(i.base, IntegerBase::Decimal);
        let u = i.suffix.unsigned;
        use IntKind::*;
        let cands: &[IntKind] = match (i.suffix.size, u, dec) {
            (IntegerSize::Int, false, true) => &[Int, Long, LongLong],
            (IntegerSize::Int, false, false) => &[Int, UInt, Long, ULong, LongLong, ULongLong],
            (IntegerSize::Int, true, _) => &[UInt, ULong, ULongLong],
            (IntegerSize::Long, false, true) => &[Long, LongLong],
            (IntegerSize::Long, false, false) => &[Long, ULong, LongLong, ULongLong],
            (IntegerSize::Long, true, _) => &[ULong, ULongLong],
            (IntegerSize::LongLong, false, true) => &[LongLong],
            (IntegerSize::LongLong, false, false) => &[LongLong, ULongLong],
            (IntegerSize::LongLong, true, _) => &[ULongLong],
        };
        if i.suffix.imaginary {
            return self.unsupported(span, "imaginary constants");
        }
        for k in cands {
            if (v as i128) <= k.range(self.dm).1 {
                return Ok(Expr::int(v as i128, CType::Int(*k)));
            }
        }
        self.invalid(span, "integer constant too large for its type")
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

    // ----- file scope -----

    fn file_declaration(&mut self, d: &Declaration, span: &Span) -> R<()> {
        let specs = decl_specs(&d.specifiers);
        let base = self.base_type(&specs, span)?;
        for id in &d.declarators {
            let (name, ty) = self.declarator(base.clone(), &id.node.declarator.node)?;
            let Some(name) = name else { continue };
            if specs.storage == Some(StorageClassSpecifier::Typedef) {
                self.bind(&name, Binding::Typedef(ty));
                continue;
            }
            if let CType::Func(ft) = ty {
                self.declare_func(&name, *ft);
                continue;
            }
            let kind = if specs.storage == Some(StorageClassSpecifier::Static) {
                VarKind::FileStatic
            } else {
                VarKind::Global
            };
            let v = self.global_var(&name, &name, ty, kind, &id.span);
            if let Some(init) = &id.node.initializer {
                self.global_init(v, init)?;
            }
        }
        Ok(())
    }

    /// The global variable `name` (reused for repeated declarations).
    fn global_var(
        &mut self,
        name: &str,
        c_name: &str,
        ty: CType,
        kind: VarKind,
        span: &Span,
    ) -> VarId {
        if let Some(Binding::Var(v)) = self.scopes[0].names.get(name) {
            let v = *v;
            // a later declaration may complete an array type
            if let (CType::Array(_, None), CType::Array(_, Some(_))) =
                (&self.prog.vars[v.0 as usize].ty, &ty)
            {
                self.prog.vars[v.0 as usize].ty = ty;
            }
            return v;
        }
        let pos = self.pos(span);
        let v = self.new_var(name.to_string(), c_name, ty, kind, pos);
        self.prog.globals.push(v);
        if !matches!(self.prog.vars[v.0 as usize].kind, VarKind::LocalStatic(_)) {
            self.scopes[0]
                .names
                .insert(name.to_string(), Binding::Var(v));
        }
        v
    }

    /// Records the initialiser of global storage (lowered in a scratch function; anything that
    /// would need an edge makes it a havoc).
    fn global_init(&mut self, v: VarId, init: &Node<Initializer>) -> R<()> {
        let saved = self.fb.take();
        let name = saved.as_ref().map(|f| f.name.clone()).unwrap_or_default();
        self.fb = Some(FnBuilder::new(FuncId(u32::MAX), &name));
        let nvars = self.prog.vars.len();
        let lhs = self.var_expr(v);
        self.fix_array_len(v, init);
        let lhs = Expr {
            ty: self.prog.vars[v.0 as usize].ty.clone(),
            ..lhs
        };
        let mut out = Vec::new();
        let r = self.initializer(&lhs, init, false, &mut out);
        let scratch = self.fb.take().expect("scratch builder");
        self.fb = saved;
        r?;
        let pos = self.pos(&init.span);
        if !scratch.edges.is_empty() || self.prog.vars.len() != nvars {
            self.prog.vars.truncate(nvars);
            self.warn(
                &init.span,
                "global initialiser with side effects or unsupported parts: havocked",
            );
            self.prog.global_inits.push(GlobalInit {
                lhs,
                value: None,
                pos,
            });
            return Ok(());
        }
        for (l, r) in out {
            self.prog.global_inits.push(GlobalInit {
                lhs: l,
                value: r,
                pos,
            });
        }
        Ok(())
    }

    /// `T a[] = {…}` gets its length from the initialiser.
    fn fix_array_len(&mut self, v: VarId, init: &Node<Initializer>) {
        if let CType::Array(e, None) = &self.prog.vars[v.0 as usize].ty {
            let n = match &init.node {
                Initializer::List(items) => items.len() as u64,
                Initializer::Expression(x) => match &x.node {
                    Expression::StringLiteral(s) => {
                        s.node
                            .iter()
                            .map(|p| p.len().saturating_sub(2))
                            .sum::<usize>() as u64
                            + 1
                    }
                    _ => return,
                },
            };
            self.prog.vars[v.0 as usize].ty = CType::Array(e.clone(), Some(n));
        }
    }

    /// Flattens an initialiser into (lvalue, value) pairs; `None` = havoc. `zero_rest` fills the
    /// parts a list leaves out with zero (locals; globals are zero already).
    fn initializer(
        &mut self,
        lhs: &Expr,
        init: &Node<Initializer>,
        zero_rest: bool,
        out: &mut Vec<(Expr, Option<Expr>)>,
    ) -> R<()> {
        if out.len() > 4096 {
            return self.unsupported(
                &init.span,
                "aggregate initialiser with more than 4096 elements",
            );
        }
        match (&init.node, &lhs.ty) {
            (Initializer::Expression(e), CType::Array(..)) => {
                self.warn(
                    &init.span,
                    "array initialised from an expression (string literal): havocked",
                );
                let _ = e;
                out.push((lhs.clone(), None));
            }
            (Initializer::Expression(e), _) => {
                let v = self.expr(e)?;
                if self.is_union_member(lhs) {
                    self.warn(&init.span, "initialiser of a union: havocked");
                    out.push((lhs.clone(), None));
                } else {
                    out.push((lhs.clone(), Some(v)));
                }
            }
            (Initializer::List(items), t) if t.is_scalar() => match items.first() {
                Some(first) => self.initializer(lhs, &first.node.initializer, zero_rest, out)?,
                None => out.push((lhs.clone(), Some(Expr::int(0, CType::INT)))),
            },
            (Initializer::List(items), CType::Array(elem, n)) => {
                let mut idx: u64 = 0;
                let mut done = HashSet::new();
                for it in items {
                    if let Some(d) = it.node.designation.first() {
                        match &d.node {
                            Designator::Index(e) => idx = self.const_eval(e)? as u64,
                            _ => return self.unsupported(&d.span, "this designator"),
                        }
                        if it.node.designation.len() > 1 {
                            return self.unsupported(&d.span, "nested designators");
                        }
                    }
                    let sub = Expr {
                        kind: ExprKind::Index(
                            Box::new(lhs.clone()),
                            Box::new(Expr::int(idx as i128, CType::INT)),
                        ),
                        ty: (**elem).clone(),
                    };
                    self.check_no_elision(&sub.ty, &it.node.initializer)?;
                    self.initializer(&sub, &it.node.initializer, zero_rest, out)?;
                    done.insert(idx);
                    idx += 1;
                }
                if zero_rest && let Some(n) = n {
                    for i in 0..*n {
                        if !done.contains(&i) {
                            let sub = Expr {
                                kind: ExprKind::Index(
                                    Box::new(lhs.clone()),
                                    Box::new(Expr::int(i as i128, CType::INT)),
                                ),
                                ty: (**elem).clone(),
                            };
                            self.zero(&sub, &init.span, out)?;
                        }
                    }
                }
            }
            (Initializer::List(items), CType::Struct(id)) => {
                let def = self.prog.structs[id.0 as usize].clone();
                let Some(fields) = def.fields else {
                    return self.invalid(&init.span, "initialiser of an incomplete struct");
                };
                if def.is_union {
                    self.warn(&init.span, "initialiser of a union: havocked");
                    out.push((lhs.clone(), None));
                    return Ok(());
                }
                let mut fi = 0usize;
                let mut done = HashSet::new();
                for it in items {
                    if let Some(d) = it.node.designation.first() {
                        match &d.node {
                            Designator::Member(m) => match fields
                                .iter()
                                .position(|(n, _)| *n == m.node.name)
                            {
                                Some(i) => fi = i,
                                None => {
                                    return self
                                        .invalid(&m.span, format!("no field `{}`", m.node.name));
                                }
                            },
                            _ => return self.unsupported(&d.span, "this designator"),
                        }
                        if it.node.designation.len() > 1 {
                            return self.unsupported(&d.span, "nested designators");
                        }
                    }
                    let Some((fname, fty)) = fields.get(fi) else {
                        return self.invalid(&it.span, "too many initialisers");
                    };
                    let sub = Expr {
                        kind: ExprKind::Field(Box::new(lhs.clone()), fname.clone()),
                        ty: fty.clone(),
                    };
                    self.check_no_elision(fty, &it.node.initializer)?;
                    self.initializer(&sub, &it.node.initializer, zero_rest, out)?;
                    done.insert(fi);
                    fi += 1;
                }
                if zero_rest {
                    for (i, (fname, fty)) in fields.iter().enumerate() {
                        if !done.contains(&i) {
                            let sub = Expr {
                                kind: ExprKind::Field(Box::new(lhs.clone()), fname.clone()),
                                ty: fty.clone(),
                            };
                            self.zero(&sub, &init.span, out)?;
                        }
                    }
                }
            }
            (Initializer::List(_), _) => {
                return self.unsupported(&init.span, "initialiser list for this type");
            }
        }
        Ok(())
    }

    fn check_no_elision(&mut self, ty: &CType, init: &Node<Initializer>) -> R<()> {
        if let (CType::Array(..) | CType::Struct(_), Initializer::Expression(e)) = (ty, &init.node)
            && !matches!(e.node, Expression::StringLiteral(_))
        {
            let t = self.type_of_expr(e)?;
            if t != *ty {
                return self.unsupported(&init.span, "brace elision in initialisers");
            }
        }
        Ok(())
    }

    fn zero(&mut self, lhs: &Expr, span: &Span, out: &mut Vec<(Expr, Option<Expr>)>) -> R<()> {
        if out.len() > 4096 {
            return self.unsupported(span, "aggregate initialiser with more than 4096 elements");
        }
        match &lhs.ty {
            CType::Array(elem, Some(n)) => {
                for i in 0..*n {
                    let sub = Expr {
                        kind: ExprKind::Index(
                            Box::new(lhs.clone()),
                            Box::new(Expr::int(i as i128, CType::INT)),
                        ),
                        ty: (**elem).clone(),
                    };
                    self.zero(&sub, span, out)?;
                }
            }
            CType::Struct(id) => {
                let def = self.prog.structs[id.0 as usize].clone();
                if def.is_union {
                    out.push((lhs.clone(), None));
                    return Ok(());
                }
                for (fname, fty) in def.fields.unwrap_or_default() {
                    let sub = Expr {
                        kind: ExprKind::Field(Box::new(lhs.clone()), fname),
                        ty: fty,
                    };
                    self.zero(&sub, span, out)?;
                }
            }
            CType::Array(_, None) => out.push((lhs.clone(), None)),
            _ => out.push((lhs.clone(), Some(Expr::int(0, CType::INT)))),
        }
        Ok(())
    }

    fn is_union_member(&self, e: &Expr) -> bool {
        match &e.kind {
            ExprKind::Field(b, _) => {
                matches!(&b.ty, CType::Struct(id) if self.prog.structs[id.0 as usize].is_union)
                    || self.is_union_member(b)
            }
            ExprKind::Index(b, _) => self.is_union_member(b),
            _ => false,
        }
    }

    /// The outermost union object an lvalue goes through.
    fn union_root(&self, e: &Expr) -> Option<Expr> {
        match &e.kind {
            ExprKind::Field(b, _) | ExprKind::Index(b, _) => {
                if let Some(r) = self.union_root(b) {
                    return Some(r);
                }
                match &b.ty {
                    CType::Struct(id) if self.prog.structs[id.0 as usize].is_union => {
                        Some((**b).clone())
                    }
                    _ => None,
                }
            }
            _ => None,
        }
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

    // ----- statements -----

    fn stmt(&mut self, s: &Node<Statement>) -> R<()> {
        let pos = self.pos(&s.span);
        match &s.node {
            Statement::Compound(items) => {
                self.scopes.push(Scope::default());
                let r = (|| {
                    for it in items {
                        match &it.node {
                            BlockItem::Declaration(d) => {
                                self.local_declaration(&d.node, &d.span)?
                            }
                            BlockItem::Statement(st) => self.stmt(st)?,
                            BlockItem::StaticAssert(_) => {}
                        }
                    }
                    Ok(())
                })();
                self.scopes.pop();
                r
            }
            Statement::Expression(None) => Ok(()),
            Statement::Expression(Some(e)) => self.effect(e),
            Statement::If(i) => {
                let (t, f, join) = (self.new_node(), self.new_node(), self.new_node());
                self.cond(&i.node.condition, Some(t), Some(f))?;
                self.fb().cur = t;
                self.stmt(&i.node.then_statement)?;
                self.jump(join, pos);
                self.fb().cur = f;
                if let Some(e) = &i.node.else_statement {
                    self.stmt(e)?;
                }
                self.jump(join, pos);
                self.fb().cur = join;
                Ok(())
            }
            Statement::While(w) => {
                let (head, body, exit) = (self.new_node(), self.new_node(), self.new_node());
                self.continue_at(head, pos);
                self.cond(&w.node.expression, Some(body), Some(exit))?;
                self.fb().cur = body;
                self.loop_body(&w.node.statement, exit, head)?;
                self.jump(head, pos);
                self.fb().cur = exit;
                Ok(())
            }
            Statement::DoWhile(d) => {
                let (body, test, exit) = (self.new_node(), self.new_node(), self.new_node());
                self.continue_at(body, pos);
                self.loop_body(&d.node.statement, exit, test)?;
                self.continue_at(test, pos);
                self.cond(&d.node.expression, Some(body), Some(exit))?;
                self.fb().cur = exit;
                Ok(())
            }
            Statement::For(f) => {
                self.scopes.push(Scope::default());
                let r = (|| {
                    match &f.node.initializer.node {
                        ForInitializer::Empty | ForInitializer::StaticAssert(_) => {}
                        ForInitializer::Expression(e) => self.effect(e)?,
                        ForInitializer::Declaration(d) => {
                            self.local_declaration(&d.node, &d.span)?
                        }
                    }
                    let (head, body, step, exit) = (
                        self.new_node(),
                        self.new_node(),
                        self.new_node(),
                        self.new_node(),
                    );
                    self.continue_at(head, pos);
                    match &f.node.condition {
                        Some(c) => self.cond(c, Some(body), Some(exit))?,
                        None => self.jump(body, pos),
                    }
                    self.fb().cur = body;
                    self.loop_body(&f.node.statement, exit, step)?;
                    self.continue_at(step, pos);
                    if let Some(e) = &f.node.step {
                        self.effect(e)?;
                    }
                    self.jump(head, pos);
                    self.fb().cur = exit;
                    Ok(())
                })();
                self.scopes.pop();
                r
            }
            Statement::Switch(sw) => self.switch(&sw.node, pos),
            Statement::Labeled(l) => {
                match &l.node.label.node {
                    Label::Identifier(id) => {
                        let name = id.node.name.clone();
                        let n = self.label_node(&name);
                        self.fb().defined_labels.insert(name.clone());
                        self.fb().seen_label = true;
                        self.continue_at(n, pos);
                        if self.opts.error_labels.contains(&name) {
                            self.end_path(
                                EdgeKind::Error {
                                    cause: format!("label {name}"),
                                },
                                pos,
                            );
                        }
                    }
                    _ => {
                        let key = l.node.label.span.start;
                        let n = match self.fb().cases.last().and_then(|m| m.get(&key)) {
                            Some(n) => *n,
                            None => {
                                return self
                                    .invalid(&l.node.label.span, "case label outside a switch");
                            }
                        };
                        self.continue_at(n, pos);
                    }
                }
                self.stmt(&l.node.statement)
            }
            Statement::Goto(l) => {
                let n = self.label_node(&l.node.name);
                self.fb().used_labels.push((l.node.name.clone(), pos));
                self.jump(n, pos);
                Ok(())
            }
            Statement::Continue => match self.fb().continues.last() {
                Some(n) => {
                    let n = *n;
                    self.jump(n, pos);
                    Ok(())
                }
                None => self.invalid(&s.span, "`continue` outside a loop"),
            },
            Statement::Break => match self.fb().breaks.last() {
                Some(n) => {
                    let n = *n;
                    self.jump(n, pos);
                    Ok(())
                }
                None => self.invalid(&s.span, "`break` outside a loop or switch"),
            },
            Statement::Return(e) => {
                let v = match e {
                    Some(e) => {
                        let v = self.expr(e)?;
                        if v.ty == CType::Void { None } else { Some(v) }
                    }
                    None => None,
                };
                let (cur, exit) = (self.fb().cur, self.fb().exit);
                self.edge(cur, exit, EdgeKind::Return(v), pos);
                self.detach();
                Ok(())
            }
            Statement::Asm(a) => {
                match &a.node {
                    AsmStatement::GnuBasic(_) => {
                        self.warn(
                            &s.span,
                            "inline assembly ignored (its effects are not modelled)",
                        );
                    }
                    AsmStatement::GnuExtended(x) => {
                        self.warn(
                            &s.span,
                            "inline assembly: output operands havocked, other effects not modelled",
                        );
                        for o in &x.outputs {
                            let lv = self.expr(&o.node.variable_name)?;
                            if lv.is_lvalue() {
                                self.emit(
                                    EdgeKind::Havoc {
                                        lhs: lv,
                                        reason: "inline asm output".into(),
                                    },
                                    pos,
                                );
                            }
                        }
                    }
                }
                Ok(())
            }
        }
    }

    fn loop_body(&mut self, body: &Node<Statement>, brk: NodeId, cont: NodeId) -> R<()> {
        let fb = self.fb();
        fb.breaks.push(brk);
        fb.continues.push(cont);
        fb.loop_depth += 1;
        let r = self.stmt(body);
        let fb = self.fb();
        fb.breaks.pop();
        fb.continues.pop();
        fb.loop_depth -= 1;
        r
    }

    fn switch(&mut self, sw: &SwitchStatement, pos: SrcPos) -> R<()> {
        let v = self.expr(&sw.expression)?;
        let ty = v.ty.promoted();
        let v = if matches!(v.kind, ExprKind::Var(_) | ExprKind::Const(_)) {
            v
        } else {
            let t = self.new_temp("tmp", v.ty.clone(), pos);
            let te = self.var_expr(t);
            self.emit(
                EdgeKind::Assign {
                    lhs: te.clone(),
                    rhs: v,
                },
                pos,
            );
            te
        };
        let mut labels = CaseLabels(Vec::new());
        labels.visit_statement(&sw.statement.node, &sw.statement.span);
        let exit = self.new_node();
        let mut map = HashMap::new();
        let mut default = None;
        let conv = |x: i128, dm| match &ty {
            CType::Int(k) => wrap(x, *k, dm),
            _ => x,
        };
        for lab in labels.0 {
            let n = self.new_node();
            map.insert(lab.span.start, n);
            let lpos = self.pos(&lab.span);
            let cmp = |op: BinOp, c: i128| Expr {
                kind: ExprKind::Binary(op, Box::new(v.clone()), Box::new(Expr::int(c, ty.clone()))),
                ty: CType::INT,
            };
            match &lab.node {
                Label::Case(e) => {
                    let c = conv(self.const_eval(e)?, self.dm);
                    let next = self.new_node();
                    let cur = self.fb().cur;
                    self.edge(cur, n, EdgeKind::Assume(cmp(BinOp::Eq, c)), lpos);
                    self.edge(cur, next, EdgeKind::Assume(cmp(BinOp::Ne, c)), lpos);
                    self.fb().cur = next;
                }
                Label::CaseRange(r) => {
                    let lo = conv(self.const_eval(&r.node.low)?, self.dm);
                    let hi = conv(self.const_eval(&r.node.high)?, self.dm);
                    let (mid, next) = (self.new_node(), self.new_node());
                    let cur = self.fb().cur;
                    self.edge(cur, mid, EdgeKind::Assume(cmp(BinOp::Ge, lo)), lpos);
                    self.edge(cur, next, EdgeKind::Assume(cmp(BinOp::Lt, lo)), lpos);
                    self.edge(mid, n, EdgeKind::Assume(cmp(BinOp::Le, hi)), lpos);
                    self.edge(mid, next, EdgeKind::Assume(cmp(BinOp::Gt, hi)), lpos);
                    self.fb().cur = next;
                }
                Label::Default => default = Some(n),
                Label::Identifier(_) => {}
            }
        }
        self.jump(default.unwrap_or(exit), pos);
        let fb = self.fb();
        fb.cases.push(map);
        fb.breaks.push(exit);
        let r = self.stmt(&sw.statement);
        let fb = self.fb();
        fb.cases.pop();
        fb.breaks.pop();
        r?;
        self.jump(exit, pos);
        self.fb().cur = exit;
        Ok(())
    }

    fn local_declaration(&mut self, d: &Declaration, span: &Span) -> R<()> {
        let specs = decl_specs(&d.specifiers);
        let base = self.base_type(&specs, span)?;
        for id in &d.declarators {
            let (name, ty) = self.declarator(base.clone(), &id.node.declarator.node)?;
            let Some(name) = name else { continue };
            let pos = self.pos(&id.span);
            if specs.storage == Some(StorageClassSpecifier::Typedef) {
                self.bind(&name, Binding::Typedef(ty));
                continue;
            }
            if let CType::Func(ft) = ty {
                self.declare_func(&name, *ft);
                self.bind(&name, Binding::Func(name.clone()));
                continue;
            }
            match specs.storage {
                Some(StorageClassSpecifier::Extern) => {
                    let v = self.global_var(&name, &name, ty, VarKind::Global, &id.span);
                    self.bind(&name, Binding::Var(v));
                }
                Some(StorageClassSpecifier::Static) => {
                    let fname = self.fb().name.clone();
                    let fid = self.fb().id;
                    let mut gname = format!("{name}#{fname}");
                    let mut k = 2;
                    while self
                        .prog
                        .vars
                        .iter()
                        .any(|v| v.is_global() && v.name == gname)
                    {
                        gname = format!("{name}#{fname}#{k}");
                        k += 1;
                    }
                    let v = self.global_var(&gname, &name, ty, VarKind::LocalStatic(fid), &id.span);
                    self.bind(&name, Binding::Var(v));
                    if let Some(init) = &id.node.initializer {
                        self.global_init(v, init)?;
                    }
                }
                _ => {
                    let fid = self.fb().id;
                    let v = self.new_local(&name, ty, VarKind::Local(fid), pos);
                    self.bind(&name, Binding::Var(v));
                    match &id.node.initializer {
                        Some(init) => {
                            self.fix_array_len(v, init);
                            let lhs = self.var_expr(v);
                            let mut out = Vec::new();
                            self.initializer(&lhs, init, true, &mut out)?;
                            for (l, r) in out {
                                match r {
                                    Some(r) => self.emit(EdgeKind::Assign { lhs: l, rhs: r }, pos),
                                    None => self.emit(
                                        EdgeKind::Havoc {
                                            lhs: l,
                                            reason: "unsupported initialiser".into(),
                                        },
                                        pos,
                                    ),
                                }
                            }
                        }
                        None => {
                            let fb = self.fb();
                            if fb.loop_depth > 0 || fb.seen_label {
                                let lhs = self.var_expr(v);
                                self.emit(
                                    EdgeKind::Havoc {
                                        lhs,
                                        reason: "uninitialised".into(),
                                    },
                                    pos,
                                );
                            }
                        }
                    }
                }
            }
        }
        Ok(())
    }

    // ----- conditions -----

    /// Lowers a branch condition: control goes to `t` when it holds, to `f` otherwise (`None`:
    /// that side is infeasible and gets no edge). Afterwards the current node is detached.
    fn cond(&mut self, e: &Node<Expression>, t: Option<NodeId>, f: Option<NodeId>) -> R<()> {
        let pos = self.pos(&e.span);
        match &e.node {
            Expression::UnaryOperator(u) if u.node.operator.node == UnaryOperator::Negate => {
                return self.cond(&u.node.operand, f, t);
            }
            Expression::BinaryOperator(b) if b.node.operator.node == BinaryOperator::LogicalAnd => {
                let mid = self.new_node();
                self.cond(&b.node.lhs, Some(mid), f)?;
                self.fb().cur = mid;
                return self.cond(&b.node.rhs, t, f);
            }
            Expression::BinaryOperator(b) if b.node.operator.node == BinaryOperator::LogicalOr => {
                let mid = self.new_node();
                self.cond(&b.node.lhs, t, Some(mid))?;
                self.fb().cur = mid;
                return self.cond(&b.node.rhs, t, f);
            }
            Expression::Conditional(c) => {
                let (a, b) = (self.new_node(), self.new_node());
                self.cond(&c.node.condition, Some(a), Some(b))?;
                self.fb().cur = a;
                self.cond(&c.node.then_expression, t, f)?;
                self.fb().cur = b;
                return self.cond(&c.node.else_expression, t, f);
            }
            Expression::Comma(es) => {
                let (last, init) = es.split_last().expect("comma has operands");
                for x in init {
                    self.effect(x)?;
                }
                return self.cond(last, t, f);
            }
            _ => {}
        }
        if !has_effects(e)
            && let Some(v) = self.try_const_eval(e)
        {
            match (v != 0, t, f) {
                (true, Some(n), _) | (false, _, Some(n)) => self.jump(n, pos),
                _ => self.detach(),
            }
            return Ok(());
        }
        let p = self.expr(e)?;
        let (yes, no) = match &p.kind {
            ExprKind::Binary(op, a, b) if op.is_comparison() => {
                let neg = op.negated().expect("comparison");
                (
                    p.clone(),
                    Expr {
                        kind: ExprKind::Binary(neg, a.clone(), b.clone()),
                        ty: CType::INT,
                    },
                )
            }
            _ => {
                let zero = Box::new(Expr::int(0, CType::INT));
                (
                    Expr {
                        kind: ExprKind::Binary(BinOp::Ne, Box::new(p.clone()), zero.clone()),
                        ty: CType::INT,
                    },
                    Expr {
                        kind: ExprKind::Binary(BinOp::Eq, Box::new(p), zero),
                        ty: CType::INT,
                    },
                )
            }
        };
        let cur = self.fb().cur;
        if let Some(t) = t {
            self.edge(cur, t, EdgeKind::Assume(yes), pos);
        }
        if let Some(f) = f {
            self.edge(cur, f, EdgeKind::Assume(no), pos);
        }
        self.detach();
        Ok(())
    }

    // ----- expressions -----

    /// Lowers an expression whose value is discarded.
    fn effect(&mut self, e: &Node<Expression>) -> R<()> {
        match &e.node {
            Expression::Call(c) => {
                self.call(&c.node, &c.span, false)?;
            }
            Expression::UnaryOperator(u)
                if matches!(
                    u.node.operator.node,
                    UnaryOperator::PostIncrement
                        | UnaryOperator::PostDecrement
                        | UnaryOperator::PreIncrement
                        | UnaryOperator::PreDecrement
                ) =>
            {
                self.incdec(&u.node, &e.span, false)?;
            }
            Expression::Comma(es) => {
                for x in es.iter() {
                    self.effect(x)?;
                }
            }
            Expression::Cast(c) => self.effect(&c.node.expression)?,
            _ => {
                self.expr(e)?;
            }
        }
        Ok(())
    }

    fn warn_float(&mut self, ty: &CType, span: &Span) {
        if ty.is_float() {
            self.warn(span, "floating-point arithmetic is not modelled");
        }
    }

    /// Lowers an expression to a side-effect-free IR expression, emitting its side effects.
    fn expr(&mut self, e: &Node<Expression>) -> R<Expr> {
        let pos = self.pos(&e.span);
        match &e.node {
            Expression::Identifier(i) => match self.lookup(&i.node.name).cloned() {
                Some(Binding::Var(v)) => Ok(self.var_expr(v)),
                Some(Binding::Enum(v)) => Ok(Expr::int(v, CType::INT)),
                Some(Binding::Func(n)) => {
                    let ty = CType::Func(Box::new(self.funcs[&n].ty.clone()));
                    Ok(Expr {
                        kind: ExprKind::Func(n),
                        ty,
                    })
                }
                Some(Binding::Typedef(_)) => {
                    self.invalid(&e.span, format!("`{}` is a type", i.node.name))
                }
                None if matches!(
                    i.node.name.as_str(),
                    "__func__" | "__FUNCTION__" | "__PRETTY_FUNCTION__"
                ) =>
                {
                    // The predefined identifier: the enclosing function's name as a string.
                    let name = self.fb.as_ref().map(|f| f.name.clone()).unwrap_or_default();
                    Ok(Expr {
                        kind: ExprKind::Str(name),
                        ty: CType::Int(IntKind::Char).ptr_to(),
                    })
                }
                None => self.invalid(&e.span, format!("undeclared identifier `{}`", i.node.name)),
            },
            Expression::Constant(c) => match &c.node {
                Constant::Integer(i) => self.int_constant(i, &c.span),
                Constant::Character(s) => match parse_char_literal(s) {
                    Some(v) => Ok(Expr::int(v, CType::INT)),
                    None => self.unsupported(&c.span, format!("character constant {s}")),
                },
                Constant::Float(fl) => {
                    let ty = CType::Float(match fl.suffix.format {
                        FloatFormat::Float => FloatKind::Float,
                        FloatFormat::Double => FloatKind::Double,
                        _ => FloatKind::LongDouble,
                    });
                    self.warn(
                        &c.span,
                        format!("floating-point constant {} havocked", fl.number),
                    );
                    let t = self.new_temp("tmp", ty, pos);
                    let lhs = self.var_expr(t);
                    self.emit(
                        EdgeKind::Havoc {
                            lhs: lhs.clone(),
                            reason: "float constant".into(),
                        },
                        pos,
                    );
                    Ok(lhs)
                }
            },
            Expression::StringLiteral(s) => {
                let text: String = s
                    .node
                    .iter()
                    .map(|p| {
                        let a = p.find('"').map_or(0, |i| i + 1);
                        let b = p.rfind('"').unwrap_or(p.len()).max(a);
                        &p[a..b]
                    })
                    .collect();
                Ok(Expr {
                    kind: ExprKind::Str(text),
                    ty: CType::Int(IntKind::Char).ptr_to(),
                })
            }
            Expression::Member(m) => {
                let base = self.expr(&m.node.expression)?;
                let base = match m.node.operator.node {
                    MemberOperator::Direct => base,
                    MemberOperator::Indirect => match base.ty.pointee() {
                        Some(t) => {
                            let t = t.clone();
                            Expr {
                                kind: ExprKind::Deref(Box::new(base)),
                                ty: t,
                            }
                        }
                        None => return self.invalid(&e.span, "`->` on a non-pointer"),
                    },
                };
                let fname = &m.node.identifier.node.name;
                let CType::Struct(id) = &base.ty else {
                    return self.invalid(&e.span, format!("member `{fname}` of a non-struct"));
                };
                let fty = self.prog.structs[id.0 as usize]
                    .fields
                    .as_ref()
                    .and_then(|fs| fs.iter().find(|(n, _)| n == fname))
                    .map(|(_, t)| t.clone());
                match fty {
                    Some(t) => Ok(Expr {
                        kind: ExprKind::Field(Box::new(base), fname.clone()),
                        ty: t,
                    }),
                    None => self.invalid(&e.span, format!("no member `{fname}`")),
                }
            }
            Expression::Call(c) => {
                let r = self.call(&c.node, &c.span, true)?;
                Ok(r.unwrap_or(Expr::int(0, CType::Void)))
            }
            Expression::SizeOfTy(_) | Expression::SizeOfVal(_) => {
                let v = self.const_eval(e)?;
                Ok(Expr::int(v, self.size_t()))
            }
            Expression::UnaryOperator(u) => self.unary(&u.node, &e.span),
            Expression::Cast(c) => {
                let t = self.type_name(&c.node.type_name.node, &c.node.type_name.span)?;
                let v = self.expr(&c.node.expression)?;
                if t == CType::Void {
                    return Ok(Expr::int(0, CType::Void));
                }
                self.warn_float(&t, &e.span);
                Ok(Expr {
                    kind: ExprKind::Cast(Box::new(v)),
                    ty: t,
                })
            }
            Expression::BinaryOperator(b) => self.binary(&b.node, e, pos),
            Expression::Conditional(c) => {
                let ty = {
                    let a = self.type_of_expr(&c.node.then_expression)?;
                    let b = self.type_of_expr(&c.node.else_expression)?;
                    if a.is_scalar()
                        && b.is_scalar()
                        && !matches!(a, CType::Pointer(_))
                        && !matches!(b, CType::Pointer(_))
                    {
                        usual_arithmetic(&a, &b, self.dm)
                    } else if matches!(a, CType::Pointer(_)) {
                        a
                    } else {
                        b
                    }
                };
                let tmp = if ty == CType::Void {
                    None
                } else {
                    Some(self.new_temp("tmp", ty.clone(), pos))
                };
                let (a, b, join) = (self.new_node(), self.new_node(), self.new_node());
                self.cond(&c.node.condition, Some(a), Some(b))?;
                for (n, x) in [(a, &c.node.then_expression), (b, &c.node.else_expression)] {
                    self.fb().cur = n;
                    match tmp {
                        Some(t) => {
                            let v = self.expr(x)?;
                            let lhs = self.var_expr(t);
                            self.emit(EdgeKind::Assign { lhs, rhs: v }, pos);
                        }
                        None => self.effect(x)?,
                    }
                    self.jump(join, pos);
                }
                self.fb().cur = join;
                Ok(match tmp {
                    Some(t) => self.var_expr(t),
                    None => Expr::int(0, CType::Void),
                })
            }
            Expression::Comma(es) => {
                let (last, init) = es.split_last().expect("comma has operands");
                for x in init {
                    self.effect(x)?;
                }
                self.expr(last)
            }
            Expression::Statement(st) => self.statement_expression(st, pos),
            Expression::CompoundLiteral(_) => self.unsupported(&e.span, "compound literals"),
            Expression::GenericSelection(_) => self.unsupported(&e.span, "_Generic"),
            Expression::AlignOf(_) => self.unsupported(&e.span, "_Alignof"),
            Expression::OffsetOf(_) => self.unsupported(&e.span, "offsetof"),
            Expression::VaArg(_) => self.unsupported(&e.span, "va_arg"),
        }
    }

    /// A GNU statement expression `({ s1; …; e; })`: the statements in a new scope, then the
    /// value of the last expression statement (copied to a temporary when scalar, so it is the
    /// value at the end of the block); `void` when the block ends otherwise. glibc's `assert`
    /// expands to one.
    fn statement_expression(&mut self, st: &Node<Statement>, pos: SrcPos) -> R<Expr> {
        let Statement::Compound(items) = &st.node else {
            return self.unsupported(&st.span, "a statement expression without a block");
        };
        self.scopes.push(Scope::default());
        let r = (|| {
            let void = Expr::int(0, CType::Void);
            let Some((last, init)) = items.split_last() else {
                return Ok(void);
            };
            for it in init {
                match &it.node {
                    BlockItem::Declaration(d) => self.local_declaration(&d.node, &d.span)?,
                    BlockItem::Statement(s) => self.stmt(s)?,
                    BlockItem::StaticAssert(_) => {}
                }
            }
            match &last.node {
                BlockItem::Declaration(d) => {
                    self.local_declaration(&d.node, &d.span)?;
                    Ok(void)
                }
                BlockItem::StaticAssert(_) => Ok(void),
                BlockItem::Statement(s) => match &s.node {
                    Statement::Expression(Some(x)) => {
                        let v = self.expr(x)?;
                        if !v.ty.is_scalar() {
                            return Ok(v);
                        }
                        let t = self.new_temp("tmp", v.ty.clone(), pos);
                        let lhs = self.var_expr(t);
                        self.emit(EdgeKind::Assign { lhs, rhs: v }, pos);
                        Ok(self.var_expr(t))
                    }
                    _ => {
                        self.stmt(s)?;
                        Ok(void)
                    }
                },
            }
        })();
        self.scopes.pop();
        r
    }

    fn lvalue(&mut self, e: &Node<Expression>) -> R<Expr> {
        let v = self.expr(e)?;
        if !v.is_lvalue() {
            return self.invalid(&e.span, "assignment to something that is not an lvalue");
        }
        Ok(v)
    }

    /// Emits `lhs := rhs`, or a havoc when the target is inside a union.
    fn store(&mut self, lhs: Expr, rhs: Expr, span: &Span) {
        let pos = self.pos(span);
        if let Some(root) = self.union_root(&lhs) {
            self.warn(span, "assignment to a union member: the union is havocked");
            self.emit(
                EdgeKind::Havoc {
                    lhs: root,
                    reason: "union member assigned".into(),
                },
                pos,
            );
        } else {
            self.emit(EdgeKind::Assign { lhs, rhs }, pos);
        }
    }

    fn unary(&mut self, u: &UnaryOperatorExpression, span: &Span) -> R<Expr> {
        use UnaryOperator::*;
        match u.operator.node {
            PostIncrement | PostDecrement | PreIncrement | PreDecrement => {
                self.incdec(u, span, true)
            }
            Address => {
                let v = self.expr(&u.operand)?;
                if let ExprKind::Deref(p) = v.kind {
                    return Ok(*p);
                }
                if !v.is_lvalue() && !matches!(v.kind, ExprKind::Func(_)) {
                    return self.invalid(span, "`&` of something that is not an lvalue");
                }
                let ty = v.ty.clone().ptr_to();
                Ok(Expr {
                    kind: ExprKind::AddrOf(Box::new(v)),
                    ty,
                })
            }
            Indirection => {
                let v = self.expr(&u.operand)?;
                match &v.ty {
                    CType::Pointer(t) | CType::Array(t, _) => {
                        let t = (**t).clone();
                        Ok(Expr {
                            kind: ExprKind::Deref(Box::new(v)),
                            ty: t,
                        })
                    }
                    CType::Func(_) => Ok(v),
                    _ => self.invalid(span, "`*` of a non-pointer"),
                }
            }
            Plus => {
                let v = self.expr(&u.operand)?;
                let ty = v.ty.promoted();
                Ok(Expr { ty, ..v })
            }
            Minus | Complement => {
                let v = self.expr(&u.operand)?;
                let ty = v.ty.promoted();
                self.warn_float(&ty, span);
                let op = if u.operator.node == Minus {
                    UnOp::Neg
                } else {
                    UnOp::BitNot
                };
                if let (ExprKind::Const(c), UnOp::Neg) = (&v.kind, op) {
                    return Ok(Expr::int(-c, ty));
                }
                Ok(Expr {
                    kind: ExprKind::Unary(op, Box::new(v)),
                    ty,
                })
            }
            Negate => {
                let v = self.expr(&u.operand)?;
                Ok(Expr {
                    kind: ExprKind::Unary(UnOp::LogNot, Box::new(v)),
                    ty: CType::INT,
                })
            }
        }
    }

    fn incdec(&mut self, u: &UnaryOperatorExpression, span: &Span, want: bool) -> R<Expr> {
        use UnaryOperator::*;
        let pos = self.pos(span);
        let lv = self.lvalue(&u.operand)?;
        let op = if matches!(u.operator.node, PostIncrement | PreIncrement) {
            BinOp::Add
        } else {
            BinOp::Sub
        };
        let post = matches!(u.operator.node, PostIncrement | PostDecrement);
        let one = Expr::int(1, CType::INT);
        let old = if post && want {
            let t = self.new_temp("tmp", lv.ty.clone(), pos);
            let te = self.var_expr(t);
            self.emit(
                EdgeKind::Assign {
                    lhs: te.clone(),
                    rhs: lv.clone(),
                },
                pos,
            );
            Some(te)
        } else {
            None
        };
        let ty = crate::types::binop_type(op, &lv.ty, &one.ty, self.dm);
        self.warn_float(&ty, span);
        let rhs = Expr {
            kind: ExprKind::Binary(op, Box::new(lv.clone()), Box::new(one)),
            ty,
        };
        self.store(lv.clone(), rhs, span);
        Ok(old.unwrap_or(lv))
    }

    fn binary(
        &mut self,
        b: &BinaryOperatorExpression,
        e: &Node<Expression>,
        pos: SrcPos,
    ) -> R<Expr> {
        if let Some(op) = assign_op(&b.operator.node) {
            let lv = self.lvalue(&b.lhs)?;
            let rv = self.expr(&b.rhs)?;
            let rhs = match op {
                None => rv,
                Some(op) => {
                    let ty = crate::types::binop_type(op, &lv.ty, &rv.ty, self.dm);
                    self.warn_float(&ty, &e.span);
                    Expr {
                        kind: ExprKind::Binary(op, Box::new(lv.clone()), Box::new(rv)),
                        ty,
                    }
                }
            };
            self.store(lv.clone(), rhs, &e.span);
            return Ok(lv);
        }
        if b.operator.node == BinaryOperator::Index {
            let mut a = self.expr(&b.lhs)?;
            let mut i = self.expr(&b.rhs)?;
            if a.ty.is_integer() {
                std::mem::swap(&mut a, &mut i);
            }
            let Some(t) = a.ty.pointee().cloned() else {
                return self.invalid(&e.span, "subscript of a non-array");
            };
            return Ok(Expr {
                kind: ExprKind::Index(Box::new(a), Box::new(i)),
                ty: t,
            });
        }
        let op = plain_binop(&b.operator.node).expect("every other binary operator is plain");
        if matches!(op, BinOp::LogAnd | BinOp::LogOr) && has_effects(&b.rhs) {
            let t = self.new_temp("tmp", CType::INT, pos);
            let (yes, no, join) = (self.new_node(), self.new_node(), self.new_node());
            self.cond(e, Some(yes), Some(no))?;
            for (n, v) in [(yes, 1), (no, 0)] {
                self.fb().cur = n;
                let lhs = self.var_expr(t);
                self.emit(
                    EdgeKind::Assign {
                        lhs,
                        rhs: Expr::int(v, CType::INT),
                    },
                    pos,
                );
                self.jump(join, pos);
            }
            self.fb().cur = join;
            return Ok(self.var_expr(t));
        }
        let a = self.expr(&b.lhs)?;
        let c = self.expr(&b.rhs)?;
        let ty = crate::types::binop_type(op, &a.ty, &c.ty, self.dm);
        if ty.is_float() || ((a.ty.is_float() || c.ty.is_float()) && op.is_comparison()) {
            self.warn(&e.span, "floating-point arithmetic is not modelled");
        }
        Ok(Expr {
            kind: ExprKind::Binary(op, Box::new(a), Box::new(c)),
            ty,
        })
    }

    fn nondet_type(&self, name: &str) -> Option<CType> {
        if let Some(d) = self.funcs.get(name)
            && !d.implicit
        {
            return Some(d.ty.ret.clone());
        }
        use IntKind::*;
        Some(match &name[NONDET_PREFIX.len()..] {
            "int" => CType::INT,
            "uint" | "unsigned" | "unsigned_int" | "u32" => CType::Int(UInt),
            "char" => CType::Int(Char),
            "uchar" | "unsigned_char" | "u8" => CType::Int(UChar),
            "short" => CType::Int(Short),
            "ushort" | "unsigned_short" | "u16" => CType::Int(UShort),
            "long" => CType::Int(Long),
            "ulong" | "unsigned_long" => CType::Int(ULong),
            "longlong" | "long_long" => CType::Int(LongLong),
            "ulonglong" | "unsigned_long_long" => CType::Int(ULongLong),
            "bool" | "_Bool" => CType::Int(Bool),
            "size_t" => self.size_t(),
            "pointer" => CType::Void.ptr_to(),
            "float" => CType::Float(FloatKind::Float),
            "double" => CType::Float(FloatKind::Double),
            _ => return None,
        })
    }

    /// Lowers a call; returns the result (a temporary) when `want` and the callee is not `void`.
    fn call(&mut self, c: &CallExpression, span: &Span, want: bool) -> R<Option<Expr>> {
        let pos = self.pos(span);
        // a named function (not shadowed by a variable)
        let named = match &c.callee.node {
            Expression::Identifier(i) => match self.lookup(&i.node.name) {
                Some(Binding::Var(_)) => None,
                _ => Some(i.node.name.clone()),
            },
            _ => None,
        };
        let (callee, ret_ty, tmp_prefix) = if let Some(name) = named {
            if self.is_error_fn(&name) || (name == "__assert_fail" && self.opts.assert_is_error) {
                for a in &c.arguments {
                    self.effect(a)?;
                }
                self.end_path(EdgeKind::Error { cause: name }, pos);
                return Ok(None);
            }
            if HALT_FNS.contains(&name.as_str()) || name == "__assert_fail" {
                for a in &c.arguments {
                    self.effect(a)?;
                }
                self.end_path(EdgeKind::Halt { cause: name }, pos);
                return Ok(None);
            }
            if ASSUME_FNS.contains(&name.as_str()) {
                let [arg] = c.arguments.as_slice() else {
                    return self.invalid(span, format!("`{name}` takes one argument"));
                };
                let next = self.new_node();
                self.cond(arg, Some(next), None)?;
                self.fb().cur = next;
                return Ok(None);
            }
            if name.starts_with(NONDET_PREFIX) {
                let Some(ty) = self.nondet_type(&name) else {
                    return self.unsupported(
                        span,
                        format!("`{name}` without a declaration (unknown result type)"),
                    );
                };
                if ty.is_float() {
                    self.warn(
                        span,
                        format!("`{name}`: floating-point values are not modelled"),
                    );
                }
                (Callee::Nondet(name), ty, "nondet".to_string())
            } else {
                if !self.funcs.contains_key(&name) {
                    self.warn(
                        span,
                        format!("call of undeclared function `{name}`: assumed `int {name}()`"),
                    );
                    self.funcs.insert(
                        name.clone(),
                        FuncDecl {
                            ty: FuncType {
                                ret: CType::INT,
                                params: vec![],
                                variadic: true,
                            },
                            def: None,
                            called: false,
                            implicit: true,
                        },
                    );
                    self.func_order.push(name.clone());
                }
                let d = self.funcs.get_mut(&name).expect("declared");
                d.called = true;
                let ret = d.ty.ret.clone();
                let def = d.def;
                // a definition later in the file: its id is known once reached; use the order
                // of definitions computed lazily
                let callee = match def.or_else(|| self.future_def(&name)) {
                    Some(id) => Callee::Defined(id),
                    None => {
                        // Allocators are modelled (a non-null result); others get a warning.
                        if !ALLOC_FNS.contains(&name.as_str()) {
                            self.warn(
                                span,
                                format!("call of external function `{name}` (no body)"),
                            );
                        }
                        Callee::External(name.clone())
                    }
                };
                (callee, ret, name)
            }
        } else {
            let f = self.expr(&c.callee)?;
            let fp = match (&f.kind, &f.ty) {
                (_, CType::Pointer(t)) if matches!(**t, CType::Func(_)) => f,
                (ExprKind::Deref(p), CType::Func(_)) => (**p).clone(),
                _ => return self.invalid(span, "call of something that is not a function"),
            };
            let ret = match fp.ty.pointee() {
                Some(CType::Func(ft)) => ft.ret.clone(),
                _ => CType::INT,
            };
            (Callee::Indirect(fp), ret, "icall".to_string())
        };
        let mut args = Vec::new();
        for a in &c.arguments {
            let v = self.expr(a)?;
            args.push(v);
        }
        let ret = if want && ret_ty != CType::Void {
            Some(self.new_temp(&format!("{tmp_prefix}#ret"), ret_ty, pos))
        } else {
            None
        };
        let allocator = callee.is_allocator();
        self.emit(EdgeKind::Call { ret, callee, args }, pos);
        if let Some(r) = ret
            && allocator
            && matches!(self.prog.var(r).ty, CType::Pointer(_))
        {
            // SV-COMP: allocation never fails.
            let v = self.var_expr(r);
            let null = Expr::int(0, v.ty.clone());
            let cond = Expr {
                kind: ExprKind::Binary(BinOp::Ne, Box::new(v), Box::new(null)),
                ty: CType::INT,
            };
            self.emit(EdgeKind::Assume(cond), pos);
        }
        Ok(ret.map(|r| self.var_expr(r)))
    }

    /// The id a function defined later in the file will get.
    fn future_def(&self, name: &str) -> Option<FuncId> {
        let mut id = self.next_func;
        let mut seen_current = false;
        for ext in &self.parsed.unit.0 {
            if let ExternalDeclaration::FunctionDefinition(f) = &ext.node {
                let n = declarator_name(&f.node.declarator.node);
                if !seen_current {
                    if self
                        .fb
                        .as_ref()
                        .is_some_and(|fb| Some(fb.name.as_str()) == n)
                    {
                        seen_current = true;
                    }
                    continue;
                }
                if n == Some(name) {
                    return Some(FuncId(id));
                }
                id += 1;
            }
        }
        None
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

/// Converts a value to an integer type (wrap-around, as gcc does).
fn wrap(v: i128, k: IntKind, dm: DataModel) -> i128 {
    if k == IntKind::Bool {
        return (v != 0) as i128;
    }
    let w = k.width(dm);
    let m = 1i128 << w;
    let mut x = v.rem_euclid(m);
    if k.is_signed() && x >= m / 2 {
        x -= m;
    }
    x
}

/// Compacts the graph (merges skip edges, removes unreachable nodes), numbers nodes and edges.
fn finish(fb: FnBuilder, name: &str, ty: FuncType, formals: Vec<VarId>, pos: SrcPos) -> Function {
    let n = fb.nodes as usize;
    let mut edges: Vec<Option<RawEdge>> = fb.edges.into_iter().map(Some).collect();
    // forwarding of nodes whose only out-edge is a skip
    let mut outs: Vec<Vec<usize>> = vec![Vec::new(); n];
    for (i, e) in edges.iter().enumerate() {
        let e = e.as_ref().expect("all present");
        outs[e.from.0 as usize].push(i);
    }
    let mut fwd: Vec<Option<usize>> = vec![None; n];
    for (v, o) in outs.iter().enumerate() {
        if let [i] = o.as_slice() {
            let e = edges[*i].as_ref().expect("present");
            if e.kind == EdgeKind::Skip && e.to.0 as usize != v && v != fb.exit.0 as usize {
                fwd[v] = Some(e.to.0 as usize);
            }
        }
    }
    let mut state = vec![0u8; n];
    let mut fin: Vec<usize> = (0..n).collect();
    for start in 0..n {
        let mut path = Vec::new();
        let mut cur = start;
        let f = loop {
            if state[cur] == 2 {
                break fin[cur];
            }
            if state[cur] == 1 {
                fwd[cur] = None;
                fin[cur] = cur;
                state[cur] = 2;
                break cur;
            }
            match fwd[cur] {
                None => {
                    fin[cur] = cur;
                    state[cur] = 2;
                    break cur;
                }
                Some(next) => {
                    state[cur] = 1;
                    path.push(cur);
                    cur = next;
                }
            }
        };
        for p in path {
            if state[p] != 2 {
                fin[p] = f;
                state[p] = 2;
            }
        }
    }
    for v in 0..n {
        if fwd[v].is_some() {
            for &i in &outs[v] {
                edges[i] = None;
            }
        }
    }
    let entry = fin[0];
    for e in edges.iter_mut().flatten() {
        e.to = NodeId(fin[e.to.0 as usize] as u32);
    }
    // reachability from the entry
    let mut succ: Vec<Vec<usize>> = vec![Vec::new(); n];
    for (i, e) in edges.iter().enumerate() {
        if let Some(e) = e {
            succ[e.from.0 as usize].push(i);
        }
    }
    let mut reach = vec![false; n];
    let mut stack = vec![entry];
    reach[entry] = true;
    while let Some(v) = stack.pop() {
        for &i in &succ[v] {
            let t = edges[i].as_ref().expect("present").to.0 as usize;
            if !reach[t] {
                reach[t] = true;
                stack.push(t);
            }
        }
    }
    let exit = fb.exit.0 as usize;
    let mut number = vec![u32::MAX; n];
    let mut next = 0u32;
    number[entry] = next;
    next += 1;
    for v in 0..n {
        if v != entry && (reach[v] || v == exit) {
            number[v] = next;
            next += 1;
        }
    }
    let mut out = Vec::new();
    for e in edges.into_iter().flatten() {
        if !reach[e.from.0 as usize] {
            continue;
        }
        out.push(Edge {
            id: EdgeId {
                func: fb.id,
                index: out.len() as u32,
            },
            from: NodeId(number[e.from.0 as usize]),
            to: NodeId(number[e.to.0 as usize]),
            kind: e.kind,
            pos: e.pos,
        });
    }
    Function {
        id: fb.id,
        name: name.to_string(),
        ty,
        formals,
        locals: fb.locals,
        nodes: next,
        entry: NodeId(0),
        exit: NodeId(number[exit]),
        edges: out,
        pos,
    }
}
