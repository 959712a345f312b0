//! The typed AST of Boolean programs, with source spans and annotations.
//!
//! This module owns the shape of a `.bp` program once parsed: procedures, declarations,
//! statements and expressions (see `docs/bp-semantics.md`, "Syntax accepted" for the grammar
//! and "Semantics" for the meaning of each node). Every node carries a [`Span`]; spans never
//! take part in equality, so `parse(print(p)) == p` compares what programs *say*, not where
//! they said it.
//!
//! Surface synonyms are normalised at parse time and printed in one canonical form:
//! `~`/`!` → [`Expr::Not`], `&&`/`&` → [`BinOp::And`], `||`/`|` → [`BinOp::Or`], `0`/`F` and
//! `1`/`T` → [`Expr::Const`], `?`/`*` → [`Expr::Nondet`], `x'`/`'x` → [`Expr::Primed`],
//! `bool` → [`RetType::Bool`]`(1)`.

use serde::{Deserialize, Serialize};
use std::fmt;

/// A region of the source text: byte offsets plus the 1-based line and column of its start.
///
/// Equality of spans is always `true`, so that AST nodes compare by content only.
#[derive(Clone, Copy, Debug, Default, Serialize, Deserialize)]
pub struct Span {
    /// Byte offset of the first character.
    pub start: usize,
    /// Byte offset one past the last character.
    pub end: usize,
    /// 1-based line of `start`.
    pub line: u32,
    /// 1-based column (in characters) of `start`.
    pub col: u32,
}

impl Span {
    /// A span that points nowhere (for synthesised nodes).
    pub const NONE: Span = Span {
        start: 0,
        end: 0,
        line: 0,
        col: 0,
    };

    /// The text this span covers in `src` (empty if out of range).
    pub fn text<'a>(&self, src: &'a str) -> &'a str {
        src.get(self.start..self.end).unwrap_or("")
    }
}

impl PartialEq for Span {
    fn eq(&self, _other: &Span) -> bool {
        true
    }
}
impl Eq for Span {}

impl fmt::Display for Span {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.line, self.col)
    }
}

/// Key/value annotations carried in structured comments (`//@ key=value ...`).
///
/// The order of pairs is kept as written. Keys are `[A-Za-z0-9_.-]+`; a value is either a
/// bare word without spaces or a double-quoted string with `\"` and `\\` escapes.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Annotations(pub Vec<(String, String)>);

impl Annotations {
    /// The value of the first pair with this key.
    pub fn get(&self, key: &str) -> Option<&str> {
        self.0
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    }

    /// Sets `key` to `value`, replacing an existing pair or appending a new one.
    pub fn set(&mut self, key: impl Into<String>, value: impl Into<String>) {
        let key = key.into();
        let value = value.into();
        match self.0.iter_mut().find(|(k, _)| *k == key) {
            Some(pair) => pair.1 = value,
            None => self.0.push((key, value)),
        }
    }

    /// True when there are no annotations.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

/// An identifier: a plain name (`g0`, `c$$main`) or an escaped one written with its braces
/// (`{x < y}`). `name` holds the text exactly as written, braces included.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Ident {
    /// The name as written (an escaped identifier keeps its braces).
    pub name: String,
    /// Where it was written.
    pub span: Span,
}

impl Ident {
    /// An identifier without a source position.
    pub fn new(name: impl Into<String>) -> Ident {
        Ident {
            name: name.into(),
            span: Span::NONE,
        }
    }
}

/// A whole Boolean program.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Program {
    /// File-level annotations (`//@@ key=value ...` lines), e.g. `source=`, `sha256=`.
    pub header: Annotations,
    /// Global declarations, in order.
    pub globals: Vec<Decl>,
    /// Procedures, in order. The entry procedure is `main`.
    pub procs: Vec<Procedure>,
    /// The whole file.
    pub span: Span,
}

/// `decl a, b, c;` — global or local.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Decl {
    /// The declared variables.
    pub vars: Vec<Ident>,
    /// Annotations written directly before the declaration.
    pub annotations: Annotations,
    /// The declaration.
    pub span: Span,
}

/// The return type of a procedure.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum RetType {
    /// `void`: returns no value.
    Void,
    /// `bool` (= `Bool(1)`) or `bool<n>`: returns n values.
    Bool(u32),
}

impl RetType {
    /// How many values a `return` of this procedure carries.
    pub fn arity(self) -> usize {
        match self {
            RetType::Void => 0,
            RetType::Bool(n) => n as usize,
        }
    }
}

/// A procedure: `[dfs] ret name(params) begin decl...; [enforce e;] stmts end`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Procedure {
    /// Its name.
    pub name: Ident,
    /// Its return type.
    pub ret: RetType,
    /// Formal parameters (passed by value).
    pub params: Vec<Ident>,
    /// Local declarations at the top of the body.
    pub locals: Vec<Decl>,
    /// The procedure's data invariant (`enforce e;`): assumed on entry and after every step.
    pub enforce: Option<Expr>,
    /// The body.
    pub body: Vec<Stmt>,
    /// Annotations written directly before the procedure.
    pub annotations: Annotations,
    /// The whole procedure.
    pub span: Span,
}

/// A statement with its labels and annotations.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Stmt {
    /// Labels in front of it (`L1: L2: skip;`), in order.
    pub labels: Vec<Ident>,
    /// What it does.
    pub kind: StmtKind,
    /// Annotations written directly before it (before its labels).
    pub annotations: Annotations,
    /// The statement, labels included.
    pub span: Span,
}

/// A left-hand side: a variable or `_` (discard; only as the target of a call).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Lhs {
    /// Assign this variable.
    Var(Ident),
    /// `_`: ignore this returned value.
    Discard(Span),
}

/// One arm of an `if`: `cond then body` (the first arm) or `elsif cond then body`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CondArm {
    /// The condition; `*`/`?` make it a free choice.
    pub cond: Expr,
    /// The statements executed when it holds.
    pub body: Vec<Stmt>,
}

/// The kinds of statement (`docs/bp-semantics.md`, "Syntax accepted" and "Semantics").
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum StmtKind {
    /// `skip;`
    Skip,
    /// `print(e1, ...);` — no semantic effect.
    Print(Vec<Expr>),
    /// `goto L1, ..., Ln;` — a nondeterministic jump to one of the targets.
    Goto(Vec<Ident>),
    /// `return e1, ..., en;`
    Return(Vec<Expr>),
    /// `x1, ..., xn := e1, ..., en [constrain e];` — a parallel assignment. Right-hand sides may
    /// use `*` and `schoose`; the `constrain` clause may use primed variables.
    Assign {
        /// Targets.
        lhs: Vec<Lhs>,
        /// Values, evaluated in the pre-state.
        rhs: Vec<Expr>,
        /// Optional restriction of the transition (pre- and primed post-state).
        constrain: Option<Expr>,
    },
    /// `[x1, ..., xn :=] f(a1, ..., am);`
    Call {
        /// Targets of the returned values (empty for a call statement).
        lhs: Vec<Lhs>,
        /// The called procedure.
        callee: Ident,
        /// Actual parameters.
        args: Vec<Expr>,
    },
    /// `if c then ... elsif c then ... else ... fi`
    If {
        /// The `if` arm followed by the `elsif` arms (at least one).
        arms: Vec<CondArm>,
        /// The `else` branch, if written.
        els: Option<Vec<Stmt>>,
    },
    /// `while c do ... od`
    While {
        /// Loop condition; `*` for a free choice.
        cond: Expr,
        /// Loop body.
        body: Vec<Stmt>,
    },
    /// `assert e;` — an error when e is false.
    Assert(Expr),
    /// `assume e;` — blocks the paths where e is false.
    Assume(Expr),
    /// `dead x1, ..., xn;` — liveness hint; the values no longer matter.
    Dead(Vec<Ident>),
}

/// Binary operators.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum BinOp {
    /// `&` / `&&`
    And,
    /// `|` / `||`
    Or,
    /// `^`
    Xor,
    /// `=`
    Eq,
    /// `!=`
    Neq,
    /// `=>`
    Implies,
}

impl BinOp {
    /// The canonical spelling.
    pub fn symbol(self) -> &'static str {
        match self {
            BinOp::And => "&",
            BinOp::Or => "|",
            BinOp::Xor => "^",
            BinOp::Eq => "=",
            BinOp::Neq => "!=",
            BinOp::Implies => "=>",
        }
    }

    /// Applies the operator to two truth values.
    pub fn apply(self, a: bool, b: bool) -> bool {
        match self {
            BinOp::And => a && b,
            BinOp::Or => a || b,
            BinOp::Xor => a != b,
            BinOp::Eq => a == b,
            BinOp::Neq => a != b,
            BinOp::Implies => !a || b,
        }
    }
}

/// Boolean expressions.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Expr {
    /// `T`/`1` or `F`/`0`.
    Const(bool, Span),
    /// A variable (pre-state value).
    Var(Ident),
    /// `'x` or `x'`: the post-state value; only inside a `constrain` clause.
    Primed(Ident),
    /// `*` or `?`: a fresh nondeterministic Boolean at each evaluation.
    Nondet(Span),
    /// `!e` / `~e`.
    Not(Box<Expr>, Span),
    /// `e1 op e2`.
    Binary(BinOp, Box<Expr>, Box<Expr>, Span),
    /// `schoose[p, n]`: T if p holds, else F if n holds, else either.
    Schoose(Box<Expr>, Box<Expr>, Span),
}

impl Expr {
    /// The source span of this expression.
    pub fn span(&self) -> Span {
        match self {
            Expr::Const(_, s)
            | Expr::Nondet(s)
            | Expr::Not(_, s)
            | Expr::Binary(_, _, _, s)
            | Expr::Schoose(_, _, s) => *s,
            Expr::Var(id) | Expr::Primed(id) => id.span,
        }
    }

    /// A constant without a source position.
    pub fn constant(b: bool) -> Expr {
        Expr::Const(b, Span::NONE)
    }

    /// A variable reference without a source position.
    pub fn var(name: impl Into<String>) -> Expr {
        Expr::Var(Ident::new(name))
    }

    /// `!e` without a source position. (A constructor, not `std::ops::Not`: it builds syntax.)
    #[allow(clippy::should_implement_trait)]
    pub fn not(e: Expr) -> Expr {
        Expr::Not(Box::new(e), Span::NONE)
    }

    /// `a op b` without a source position.
    pub fn binary(op: BinOp, a: Expr, b: Expr) -> Expr {
        Expr::Binary(op, Box::new(a), Box::new(b), Span::NONE)
    }
}

/// The deepest expression tree the parser accepts (every binary operator, negation and
/// `schoose` counts one level; a chain `a & b & c` is as deep as it is long; parentheses add no
/// level). Deeper input is rejected with a positioned error, so that no later recursive pass
/// (checker, printer, bebop, drop) can overflow the stack, even on a 2 MiB test thread.
pub const MAX_EXPR_DEPTH: usize = 2000;

/// The deepest nesting of parentheses, brackets and prefix operators the parser accepts; checked
/// on the raw text before the recursive-descent parser runs, so that it cannot overflow the
/// stack. Twice [`MAX_EXPR_DEPTH`], because the printer writes up to two levels (`!(`) per AST
/// level: whatever the parser accepts, the printer's text of it re-parses.
pub const MAX_PAREN_DEPTH: usize = 2 * MAX_EXPR_DEPTH;

/// The most deeply nested statement (`if`/`while` inside one another) the parser accepts.
pub const MAX_STMT_DEPTH: usize = 256;

/// The position of a statement inside its procedure: its index in a pre-order walk of the body
/// (a compound statement comes before the statements nested in it). Stable for a given program
/// text, so tools can name statements across files (traces, constraints).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct StmtId(pub u32);

impl Procedure {
    /// Calls `f` on every span in the procedure: its own, its name, parameters, declarations,
    /// statements, labels, targets and expressions. Iterative (no recursion on the AST's
    /// depth).
    pub fn for_each_span_mut(&mut self, f: &mut impl FnMut(&mut Span)) {
        f(&mut self.span);
        f(&mut self.name.span);
        for p in &mut self.params {
            f(&mut p.span);
        }
        for d in &mut self.locals {
            f(&mut d.span);
            for v in &mut d.vars {
                f(&mut v.span);
            }
        }
        let mut exprs: Vec<&mut Expr> = Vec::new();
        if let Some(e) = &mut self.enforce {
            exprs.push(e);
        }
        let lhs_span = |l: &mut Lhs, f: &mut dyn FnMut(&mut Span)| match l {
            Lhs::Var(id) => f(&mut id.span),
            Lhs::Discard(s) => f(s),
        };
        let mut stmts: Vec<&mut Stmt> = self.body.iter_mut().collect();
        while let Some(Stmt {
            labels, kind, span, ..
        }) = stmts.pop()
        {
            f(span);
            for l in labels {
                f(&mut l.span);
            }
            match kind {
                StmtKind::Skip => {}
                StmtKind::Print(es) | StmtKind::Return(es) => exprs.extend(es.iter_mut()),
                StmtKind::Goto(ids) | StmtKind::Dead(ids) => {
                    for id in ids {
                        f(&mut id.span);
                    }
                }
                StmtKind::Assign {
                    lhs,
                    rhs,
                    constrain,
                } => {
                    for l in lhs {
                        lhs_span(l, f);
                    }
                    exprs.extend(rhs.iter_mut());
                    exprs.extend(constrain.iter_mut());
                }
                StmtKind::Call { lhs, callee, args } => {
                    for l in lhs {
                        lhs_span(l, f);
                    }
                    f(&mut callee.span);
                    exprs.extend(args.iter_mut());
                }
                StmtKind::If { arms, els } => {
                    for a in arms {
                        exprs.push(&mut a.cond);
                        stmts.extend(a.body.iter_mut());
                    }
                    if let Some(e) = els {
                        stmts.extend(e.iter_mut());
                    }
                }
                StmtKind::While { cond, body } => {
                    exprs.push(cond);
                    stmts.extend(body.iter_mut());
                }
                StmtKind::Assert(e) | StmtKind::Assume(e) => exprs.push(e),
            }
        }
        while let Some(e) = exprs.pop() {
            match e {
                Expr::Const(_, s) | Expr::Nondet(s) => f(s),
                Expr::Var(id) | Expr::Primed(id) => f(&mut id.span),
                Expr::Not(a, s) => {
                    f(s);
                    exprs.push(a);
                }
                Expr::Binary(_, a, b, s) | Expr::Schoose(a, b, s) => {
                    f(s);
                    exprs.push(a);
                    exprs.push(b);
                }
            }
        }
    }

    /// Moves every span of the procedure `bytes` bytes and `lines` lines further: for a
    /// procedure parsed on its own and placed at the start of a line of a larger text (spans
    /// that point nowhere stay so).
    pub fn shift_spans(&mut self, bytes: usize, lines: u32) {
        self.for_each_span_mut(&mut |s| {
            if s.line != 0 {
                s.start += bytes;
                s.end += bytes;
                s.line += lines;
            }
        });
    }

    /// The inverse of [`Self::shift_spans`]: every span `bytes` bytes and `lines` lines back
    /// (for a procedure taken out of a larger text at that place; spans that point nowhere
    /// stay so).
    pub fn unshift_spans(&mut self, bytes: usize, lines: u32) {
        self.for_each_span_mut(&mut |s| {
            if s.line != 0 {
                s.start -= bytes;
                s.end -= bytes;
                s.line -= lines;
            }
        });
    }

    /// Every statement of the body in pre-order, with its [`StmtId`].
    pub fn stmts_preorder(&self) -> Vec<(StmtId, &Stmt)> {
        fn walk<'a>(stmts: &'a [Stmt], out: &mut Vec<(StmtId, &'a Stmt)>) {
            for s in stmts {
                out.push((StmtId(out.len() as u32), s));
                match &s.kind {
                    StmtKind::If { arms, els } => {
                        for arm in arms {
                            walk(&arm.body, out);
                        }
                        if let Some(e) = els {
                            walk(e, out);
                        }
                    }
                    StmtKind::While { body, .. } => walk(body, out),
                    _ => {}
                }
            }
        }
        let mut out = Vec::new();
        walk(&self.body, &mut out);
        out
    }

    /// Every variable in this procedure's scope that is not global: parameters, then locals.
    pub fn frame_vars(&self) -> impl Iterator<Item = &Ident> {
        self.params
            .iter()
            .chain(self.locals.iter().flat_map(|d| d.vars.iter()))
    }
}

impl Program {
    /// The procedure with this name.
    pub fn proc(&self, name: &str) -> Option<&Procedure> {
        self.procs.iter().find(|p| p.name.name == name)
    }

    /// Every global variable, in declaration order.
    pub fn global_vars(&self) -> impl Iterator<Item = &Ident> {
        self.globals.iter().flat_map(|d| d.vars.iter())
    }
}
