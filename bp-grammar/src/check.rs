//! The well-formedness checker: the rules of `docs/bp-semantics.md` that the grammar alone does
//! not enforce.
//!
//! [`check`] reports every violation, not only the first, each with its code, the span of the
//! offending node and that node's text, sorted by position. Rules checked (code: rule):
//!
//! - `undeclared-var`: every variable used (in an expression, as an assignment or call target,
//!   in `dead`, and the variable under a prime) is a global, a parameter or a local of the
//!   enclosing procedure. Reported at each use.
//! - `duplicate-var`: no name is declared twice among the globals, nor twice among the
//!   parameters and locals of one procedure; a parameter or local may not shadow a global.
//!   Reported at the second declaration.
//! - `duplicate-proc`: procedure names are unique. Reported at the second definition; calls
//!   resolve to the first.
//! - `undeclared-proc`: every called procedure exists. Reported at the callee's name.
//! - `no-main`: there is a procedure `main`. Reported at the end of the file.
//! - `call-arity`: a call passes as many arguments as the callee has parameters. Reported on
//!   the call `f(a, b);`.
//! - `call-results`: a call assigns either no results or exactly as many as the callee returns
//!   (so a `void` callee takes no targets). Reported on the statement (without its labels).
//! - `return-arity`: `return` carries exactly as many values as the procedure's return type
//!   says (`return;` in a `bool` procedure and `return x;` in a `void` one are errors).
//! - `assign-count`: a parallel assignment has as many values as targets.
//! - `assign-twice`: one assignment or call assigns a variable at most once. Reported at the
//!   repeated target.
//! - `duplicate-label`: labels are unique within a procedure (nested bodies included).
//!   Reported at the second label.
//! - `unknown-label`: every `goto` target is a label of the same procedure.
//! - `prime-outside-constrain`: primed variables occur only in the `constrain` clause of an
//!   assignment (not in `enforce`, conditions, right-hand sides, arguments, ...).
//! - `discard-not-call`: `_` is a target only of a call, not of an assignment.
//! - `nested-schoose` (warning): `schoose[p, n]` is an operand of another operator (`!`, a
//!   binary operator or another `schoose`), rather than a whole expression.
//! - `missing-return` (warning): a procedure that returns values can reach its `end` without
//!   a `return` (it then returns arbitrary values). Reported at the `end`. Reachability is
//!   structural: `return`, `goto`, `assume(F)` and `while T` do not fall through, a label
//!   some `goto` names is reachable, every other condition may go either way.
//!
//! Statements are walked recursively (their nesting is bounded by the parser's
//! [`crate::ast::MAX_STMT_DEPTH`]); expressions iteratively, with an explicit stack, so no depth
//! of expression can overflow the stack.

use crate::ast::{Decl, Expr, Ident, Lhs, Procedure, Program, Span, Stmt, StmtKind};
use crate::diag::{Diagnostic, span_at};
use std::collections::{HashMap, HashSet};

/// Checks a parsed program; `src` is the text it was parsed from (for snippets). Returns every
/// error and warning found, in source order (empty for a well-formed program).
pub fn check(prog: &Program, src: &str) -> Vec<Diagnostic> {
    let mut cx = Checker {
        src,
        diags: Vec::new(),
        procs: HashMap::new(),
    };
    cx.program(prog);
    let mut diags = cx.diags;
    diags.sort_by_key(|d| d.span.start);
    diags
}

struct Checker<'a> {
    src: &'a str,
    diags: Vec<Diagnostic>,
    /// Procedures by name (the first definition of each name).
    procs: HashMap<&'a str, &'a Procedure>,
}

/// The variables visible in one procedure, and its labels.
struct Scope<'s, 'a> {
    globals: &'s HashSet<&'a str>,
    frame: HashSet<&'a str>,
    labels: HashSet<&'a str>,
    proc: &'a Procedure,
}

impl Scope<'_, '_> {
    fn declares(&self, name: &str) -> bool {
        self.frame.contains(name) || self.globals.contains(name)
    }
}

/// Where an expression occurs: whether primed variables are allowed there.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Primes {
    Allowed,
    Forbidden,
}

/// The labels some `goto` of `stmts` names.
fn goto_targets(stmts: &[Stmt]) -> HashSet<&str> {
    let mut out = HashSet::new();
    let mut todo: Vec<&[Stmt]> = vec![stmts];
    while let Some(list) = todo.pop() {
        for s in list {
            match &s.kind {
                StmtKind::Goto(ts) => out.extend(ts.iter().map(|t| t.name.as_str())),
                StmtKind::If { arms, els } => {
                    todo.extend(arms.iter().map(|a| a.body.as_slice()));
                    todo.extend(els.as_deref());
                }
                StmtKind::While { body, .. } => todo.push(body),
                _ => {}
            }
        }
    }
    out
}

/// Whether control can leave the end of `stmts` when their start is reachable as `reach`
/// says (a label in `targeted` is reachable whatever comes before it).
fn reaches_end(stmts: &[Stmt], mut reach: bool, targeted: &HashSet<&str>) -> bool {
    for s in stmts {
        if s.labels.iter().any(|l| targeted.contains(l.name.as_str())) {
            reach = true;
        }
        reach = match &s.kind {
            StmtKind::Return(_) | StmtKind::Goto(_) | StmtKind::Assume(Expr::Const(false, _)) => {
                false
            }
            // `while T`: left only by a `goto`, whose target `targeted` covers.
            StmtKind::While {
                cond: Expr::Const(true, _),
                body,
            } => {
                reaches_end(body, reach, targeted);
                false
            }
            StmtKind::If { arms, els } => {
                let mut any = els
                    .as_ref()
                    .map_or(reach, |b| reaches_end(b, reach, targeted));
                for arm in arms {
                    any |= reaches_end(&arm.body, reach, targeted);
                }
                any
            }
            StmtKind::While { body, .. } => reaches_end(body, reach, targeted) || reach,
            _ => reach,
        };
    }
    reach
}

fn plural(n: usize, one: &str, many: &str) -> String {
    if n == 1 {
        format!("{n} {one}")
    } else {
        format!("{n} {many}")
    }
}

impl<'a> Checker<'a> {
    fn error(&mut self, code: &str, message: String, span: Span) {
        self.diags
            .push(Diagnostic::error(code, message, span, self.src));
    }

    fn program(&mut self, prog: &'a Program) {
        let mut globals: HashSet<&'a str> = HashSet::new();
        for var in prog.globals.iter().flat_map(|d: &'a Decl| d.vars.iter()) {
            if !globals.insert(var.name.as_str()) {
                self.error(
                    "duplicate-var",
                    format!("global variable `{}` is declared twice", var.name),
                    var.span,
                );
            }
        }
        for proc in &prog.procs {
            if self.procs.contains_key(proc.name.name.as_str()) {
                self.error(
                    "duplicate-proc",
                    format!("procedure `{}` is defined twice", proc.name.name),
                    proc.name.span,
                );
            } else {
                self.procs.insert(proc.name.name.as_str(), proc);
            }
        }
        if !self.procs.contains_key("main") {
            let end = self.src.len();
            self.error(
                "no-main",
                "the program has no procedure `main`".to_string(),
                span_at(self.src, end, end),
            );
        }
        for proc in &prog.procs {
            self.procedure(&globals, proc);
        }
    }

    fn procedure(&mut self, globals: &HashSet<&'a str>, proc: &'a Procedure) {
        let mut scope = Scope {
            globals,
            frame: HashSet::new(),
            labels: HashSet::new(),
            proc,
        };
        for (i, var) in proc.frame_vars().enumerate() {
            let what = if i < proc.params.len() {
                "parameter"
            } else {
                "local variable"
            };
            if globals.contains(var.name.as_str()) {
                self.error(
                    "duplicate-var",
                    format!("{what} `{}` shadows a global variable", var.name),
                    var.span,
                );
            } else if !scope.frame.insert(var.name.as_str()) {
                self.error(
                    "duplicate-var",
                    format!(
                        "{what} `{}` is declared twice in `{}`",
                        var.name, proc.name.name
                    ),
                    var.span,
                );
            }
        }
        self.collect_labels(&mut scope.labels, &proc.body, &proc.name.name);
        if let Some(e) = &proc.enforce {
            self.expr(&scope, e, Primes::Forbidden);
        }
        self.stmts(&scope, &proc.body);
        if proc.ret.arity() > 0 {
            let targeted = goto_targets(&proc.body);
            if reaches_end(&proc.body, true, &targeted) {
                self.missing_return(proc);
            }
        }
    }

    fn missing_return(&mut self, proc: &Procedure) {
        let end = proc.span.end.min(self.src.len());
        let start = if self.src[..end].ends_with("end") {
            end - 3
        } else {
            end
        };
        self.diags.push(Diagnostic::warning(
            "missing-return",
            format!(
                "`{}` returns a value but can reach its `end` without `return` (it then \
                 returns arbitrary values)",
                proc.name.name
            ),
            span_at(self.src, start, end),
            self.src,
        ));
    }

    fn collect_labels(&mut self, labels: &mut HashSet<&'a str>, stmts: &'a [Stmt], proc: &str) {
        for s in stmts {
            for label in &s.labels {
                if !labels.insert(label.name.as_str()) {
                    self.error(
                        "duplicate-label",
                        format!("label `{}` is defined twice in `{proc}`", label.name),
                        label.span,
                    );
                }
            }
            match &s.kind {
                StmtKind::If { arms, els } => {
                    for arm in arms {
                        self.collect_labels(labels, &arm.body, proc);
                    }
                    if let Some(body) = els {
                        self.collect_labels(labels, body, proc);
                    }
                }
                StmtKind::While { body, .. } => self.collect_labels(labels, body, proc),
                _ => {}
            }
        }
    }

    fn stmts(&mut self, scope: &Scope<'_, 'a>, stmts: &'a [Stmt]) {
        for s in stmts {
            self.stmt(scope, s);
        }
    }

    fn stmt(&mut self, scope: &Scope<'_, 'a>, s: &'a Stmt) {
        match &s.kind {
            StmtKind::Skip => {}
            StmtKind::Print(args) => {
                for e in args {
                    self.expr(scope, e, Primes::Forbidden);
                }
            }
            StmtKind::Goto(targets) => {
                for t in targets {
                    if !scope.labels.contains(t.name.as_str()) {
                        self.error(
                            "unknown-label",
                            format!("no label `{}` in `{}`", t.name, scope.proc.name.name),
                            t.span,
                        );
                    }
                }
            }
            StmtKind::Return(values) => {
                let want = scope.proc.ret.arity();
                if values.len() != want {
                    self.error(
                        "return-arity",
                        format!(
                            "`return` carries {}, but `{}` returns {}",
                            plural(values.len(), "value", "values"),
                            scope.proc.name.name,
                            plural(want, "value", "values"),
                        ),
                        self.head_span(s),
                    );
                }
                for e in values {
                    self.expr(scope, e, Primes::Forbidden);
                }
            }
            StmtKind::Assign {
                lhs,
                rhs,
                constrain,
            } => {
                self.targets(scope, lhs, false);
                if lhs.len() != rhs.len() {
                    self.error(
                        "assign-count",
                        format!(
                            "the assignment has {} but {}",
                            plural(lhs.len(), "target", "targets"),
                            plural(rhs.len(), "value", "values"),
                        ),
                        self.head_span(s),
                    );
                }
                for e in rhs {
                    self.expr(scope, e, Primes::Forbidden);
                }
                if let Some(c) = constrain {
                    self.expr(scope, c, Primes::Allowed);
                }
            }
            StmtKind::Call { lhs, callee, args } => {
                self.targets(scope, lhs, true);
                match self.procs.get(callee.name.as_str()).copied() {
                    None => self.error(
                        "undeclared-proc",
                        format!("call of undeclared procedure `{}`", callee.name),
                        callee.span,
                    ),
                    Some(target) => {
                        if args.len() != target.params.len() {
                            self.error(
                                "call-arity",
                                format!(
                                    "`{}` takes {}, but {} passed",
                                    callee.name,
                                    plural(target.params.len(), "argument", "arguments"),
                                    if args.len() == 1 {
                                        "1 is".to_string()
                                    } else {
                                        format!("{} are", args.len())
                                    },
                                ),
                                self.call_span(s, callee),
                            );
                        }
                        let results = target.ret.arity();
                        if !lhs.is_empty() && lhs.len() != results {
                            let message = if results == 0 {
                                format!("`{}` is void, but its result is assigned", callee.name)
                            } else {
                                format!(
                                    "`{}` returns {}, but {} assigned",
                                    callee.name,
                                    plural(results, "value", "values"),
                                    if lhs.len() == 1 {
                                        "1 target is".to_string()
                                    } else {
                                        format!("{} targets are", lhs.len())
                                    },
                                )
                            };
                            self.error("call-results", message, self.head_span(s));
                        }
                    }
                }
                for e in args {
                    self.expr(scope, e, Primes::Forbidden);
                }
            }
            StmtKind::If { arms, els } => {
                for arm in arms {
                    self.expr(scope, &arm.cond, Primes::Forbidden);
                    self.stmts(scope, &arm.body);
                }
                if let Some(body) = els {
                    self.stmts(scope, body);
                }
            }
            StmtKind::While { cond, body } => {
                self.expr(scope, cond, Primes::Forbidden);
                self.stmts(scope, body);
            }
            StmtKind::Assert(e) | StmtKind::Assume(e) => self.expr(scope, e, Primes::Forbidden),
            StmtKind::Dead(vars) => {
                for v in vars {
                    self.use_var(scope, v);
                }
            }
        }
    }

    /// Targets of an assignment (`call == false`) or a call.
    fn targets(&mut self, scope: &Scope<'_, 'a>, lhs: &'a [Lhs], call: bool) {
        let mut seen: HashSet<&str> = HashSet::new();
        for l in lhs {
            match l {
                Lhs::Var(id) => {
                    self.use_var(scope, id);
                    if !seen.insert(id.name.as_str()) {
                        self.error(
                            "assign-twice",
                            format!("`{}` is assigned twice by one statement", id.name),
                            id.span,
                        );
                    }
                }
                Lhs::Discard(span) => {
                    if !call {
                        self.error(
                            "discard-not-call",
                            "`_` is a target only of a call, not of an assignment".to_string(),
                            *span,
                        );
                    }
                }
            }
        }
    }

    fn use_var(&mut self, scope: &Scope<'_, 'a>, id: &Ident) {
        if !scope.declares(&id.name) {
            self.error(
                "undeclared-var",
                format!("undeclared variable `{}`", id.name),
                id.span,
            );
        }
    }

    /// Checks an expression without recursion (explicit stack, left operands first).
    fn expr(&mut self, scope: &Scope<'_, 'a>, e: &Expr, primes: Primes) {
        // (expression, is it an operand of another operator?)
        let mut stack: Vec<(&Expr, bool)> = vec![(e, false)];
        while let Some((e, operand)) = stack.pop() {
            match e {
                Expr::Const(..) | Expr::Nondet(_) => {}
                Expr::Var(id) => self.use_var(scope, id),
                Expr::Primed(id) => {
                    let span = self.primed_span(id);
                    if primes == Primes::Forbidden {
                        self.error(
                            "prime-outside-constrain",
                            format!(
                                "primed variable `'{}` outside a `constrain` clause",
                                id.name
                            ),
                            span,
                        );
                    }
                    if !scope.declares(&id.name) {
                        self.error(
                            "undeclared-var",
                            format!("undeclared variable `{}`", id.name),
                            span,
                        );
                    }
                }
                Expr::Not(inner, _) => stack.push((inner, true)),
                Expr::Binary(_, l, r, _) => {
                    stack.push((r, true));
                    stack.push((l, true));
                }
                Expr::Schoose(p, n, span) => {
                    if operand {
                        self.diags.push(Diagnostic::warning(
                            "nested-schoose",
                            "`schoose` is an operand of another operator",
                            *span,
                            self.src,
                        ));
                    }
                    stack.push((n, true));
                    stack.push((p, true));
                }
            }
        }
    }

    /// The statement without its labels (`x := e;` rather than `L1: x := e;`), found by
    /// skipping the text after the last label: blanks, comments and the `:`.
    fn head_span(&self, s: &Stmt) -> Span {
        let Some(last) = s.labels.last() else {
            return s.span;
        };
        let bytes = self.src.as_bytes();
        let end = s.span.end.min(bytes.len());
        let mut pos = last.span.end;
        if pos == 0 || pos >= end {
            return s.span;
        }
        let mut colon = false;
        loop {
            let rest = &self.src[pos..end];
            if rest.starts_with("//") {
                pos += rest.find('\n').unwrap_or(rest.len());
            } else if rest.starts_with("/*") {
                match rest.find("*/") {
                    Some(i) => pos += i + 2,
                    None => return s.span,
                }
            } else if !colon && rest.starts_with(':') {
                colon = true;
                pos += 1;
            } else if let Some(c) = rest.chars().next().filter(|c| c.is_whitespace()) {
                pos += c.len_utf8();
            } else {
                break;
            }
        }
        if pos >= end {
            return s.span;
        }
        span_at(self.src, pos, s.span.end)
    }

    /// The primed variable with its prime (`'x` or `x'`), whether or not the parser's span of
    /// the name includes it.
    fn primed_span(&self, id: &Ident) -> Span {
        let s = id.span;
        let text = s.text(self.src);
        if text.is_empty() || text.starts_with('\'') || text.ends_with('\'') {
            return s;
        }
        let before = &self.src[..s.start];
        if before.ends_with('\'') {
            span_at(self.src, s.start - 1, s.end)
        } else if self.src[s.end..].starts_with('\'') {
            Span {
                end: s.end + 1,
                ..s
            }
        } else {
            s
        }
    }

    /// The call `f(a, b);` of a call statement: from the callee's name to the statement's end.
    fn call_span(&self, s: &Stmt, callee: &Ident) -> Span {
        if callee.span.end == 0 || callee.span.start >= s.span.end {
            return callee.span;
        }
        Span {
            end: s.span.end,
            ..callee.span
        }
    }
}
