//! Predicate files: global and per-procedure predicates over the
//! IR's variables, parsed, typed and normalised so that the same predicate is recognised.
//!
//! C2BP (Ball, Majumdar, Millstein, Rajamani, "Automatic predicate abstraction of C programs",
//! PLDI'01, §2 and §4) abstracts a C program with respect to a set of predicates: global ones
//! (over globals only) and, for each procedure, local ones that may also mention its formals and
//! locals. Inside a procedure's predicates `\result` names the procedure's return value (C2BP's
//! *return predicates*); a formal always denotes its entry value (the lowering never assigns a
//! formal, see [`crate::lower`]).
//!
//! # Format
//! ```text
//! # a comment (a `#` that starts a line or follows a blank; `//` anywhere)
//! global:
//! x < y                 // one C expression per line; a trailing `;` is allowed
//! function main:
//! i#2 >= 0              // names are the IR's names: `i#2`, `x#copy`, `f#ret#3`, `s#f`
//! p->next != NULL
//! function abs:
//! \result >= 0          // return predicate
//! ```
//! Lines before the first section header belong to the `global:` section; a section may appear
//! several times (its predicates are appended). A `function NAME:` section names a function with
//! a body. The expression language is the side-effect-free C subset of the IR: identifiers,
//! `\result`, integer constants (decimal, octal, hex, with `u`/`l`/`ll` suffixes), `NULL`
//! (`(void *)0`, as the preprocessor spells it), unary `- + ! ~ * &`, casts to integer and
//! pointer types (`(unsigned int)x`, `(struct node *)0`), binary arithmetic, shifts,
//! comparisons, bitwise and logical operators, `?:`, `.`, `->`, `[]` and parentheses. Types
//! follow C (integer promotions and the usual arithmetic conversions, as the lowering types its
//! expressions). Errors carry `file:line:col`.
//!
//! # Scopes
//! A global section may mention only global storage (globals, file statics, function statics
//! `x#f`). A function section may mention the function's formals, locals (including temporaries
//! and formal copies) and global storage, plus `\result` unless the function returns `void`.
//! A predicate of a function section that is textually equal to a global predicate is dropped
//! (the global one is already in scope).
//!
//! # Normal form
//! [`normalize`] rewrites a predicate (a truth context) as follows, and the canonical text is the
//! IR printer's text of the result ([`Program::show_expr`]); the Boolean variable is named
//! `{TEXT}` ([`Predicate::name`]). Predicates are deduplicated by canonical text.
//! - a value `e` that is not a comparison or a logical operator becomes `e != 0` (as the lowering
//!   spells truth tests); `!e` pushes the negation into a comparison (`!(a < b)` is `a >= b`,
//!   exact for integers and pointers), so `!!e` is `e`; `!` of `&&`/`||` stays;
//! - a comparison with a constant on one side only gets the constant on the right, mirroring the
//!   operator (`0 < x` is `x > 0`, `1 == x` is `x == 1`);
//! - any other `a > b` / `a >= b` becomes `b < a` / `b <= a` (`y > x` is `x < y`);
//! - the operands of `&&` and `||` are normalised as truth contexts; nothing else is rewritten
//!   (no arithmetic simplification, no reassociation).

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::fmt;

use crate::ir::{BinOp, Expr, ExprKind, FuncId, Program, UnOp, VarId};
use crate::lower::{
    MemberError, address_of, arith_unary, deref, index, int_constant_type, log_not, member,
    unary_plus,
};
use crate::types::{CType, IntKind, usual_arithmetic};

/// How `\result` is written in predicate files.
pub const RESULT: &str = "\\result";

/// The expression standing for `\result` of a function returning `ty`.
///
/// It is an [`ExprKind::Func`] node named [`RESULT`] (the IR has no variable for a function's
/// return value); consumers replace it with [`subst_result`] before reasoning about it.
pub fn result_expr(ty: CType) -> Expr {
    Expr {
        kind: ExprKind::Func(RESULT.to_string()),
        ty,
    }
}

/// Whether `e` is the `\result` marker.
pub fn is_result(e: &Expr) -> bool {
    matches!(&e.kind, ExprKind::Func(n) if n == RESULT)
}

/// Whether `e` mentions `\result`.
pub fn mentions_result(e: &Expr) -> bool {
    let mut found = false;
    e.walk(&mut |x| found |= is_result(x));
    found
}

/// `e` with every `\result` replaced by `by`.
pub fn subst_result(e: &Expr, by: &Expr) -> Expr {
    e.map_bottom_up(&mut |x| if is_result(&x) { by.clone() } else { x })
}

/// Where a predicate lives.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum PredScope {
    /// Over global storage only: a global Boolean variable.
    Global,
    /// A predicate of a function: a local Boolean variable of its Boolean procedure.
    Function(FuncId),
}

/// A parsed, typed and normalised predicate.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Predicate {
    /// The normalised expression (type `int`).
    pub expr: Expr,
    /// Canonical text (the IR printer's text of `expr`).
    pub text: String,
    /// Its scope.
    pub scope: PredScope,
}

impl Predicate {
    /// The name of its Boolean variable: `{TEXT}`.
    pub fn name(&self) -> String {
        format!("{{{}}}", self.text)
    }

    /// Whether it is a return predicate (mentions `\result`).
    pub fn is_return_predicate(&self) -> bool {
        mentions_result(&self.expr)
    }

    /// The variables it mentions.
    pub fn vars(&self) -> BTreeSet<VarId> {
        let mut out = BTreeSet::new();
        self.expr.walk(&mut |x| {
            if let ExprKind::Var(v) = x.kind {
                out.insert(v);
            }
        });
        out
    }
}

/// The predicates of a program.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PredicateSet {
    /// Global predicates, in file order.
    pub global: Vec<Predicate>,
    /// Predicates of each function (by C name), in file order.
    pub per_function: BTreeMap<String, Vec<Predicate>>,
}

impl PredicateSet {
    /// The predicates in scope in a function: the global ones, then its own.
    pub fn in_scope<'a>(&'a self, func: &str) -> impl Iterator<Item = &'a Predicate> + 'a {
        let own = self
            .per_function
            .get(func)
            .map(Vec::as_slice)
            .unwrap_or(&[]);
        self.global.iter().chain(own.iter())
    }

    /// Every predicate with its section: `None` for a global one, else its function's name.
    pub fn sections(&self) -> impl Iterator<Item = (Option<&str>, &Predicate)> {
        let own = self
            .per_function
            .iter()
            .flat_map(|(f, ps)| ps.iter().map(move |p| (Some(f.as_str()), p)));
        self.global.iter().map(|p| (None, p)).chain(own)
    }

    /// Adds `p` to section `func` (`None`: global), after the predicates there.
    pub fn push(&mut self, func: Option<&str>, p: Predicate) {
        match func {
            None => self.global.push(p),
            Some(f) => self.per_function.entry(f.to_string()).or_default().push(p),
        }
    }

    /// Total number of predicates.
    pub fn len(&self) -> usize {
        self.global.len() + self.per_function.values().map(Vec::len).sum::<usize>()
    }

    /// Whether there is no predicate.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// A predicate-file error at `file:line:col`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{file}:{line}:{col}: {message}")]
pub struct PredError {
    /// The predicate file.
    pub file: String,
    /// Line, 1-based.
    pub line: u32,
    /// Column, 1-based (bytes).
    pub col: u32,
    /// What is wrong.
    pub message: String,
}

/// Parses a predicate file against a lowered program.
pub fn parse_predicates(
    text: &str,
    file_name: &str,
    prog: &Program,
) -> Result<PredicateSet, PredError> {
    let mut set = PredicateSet::default();
    let mut seen: HashMap<PredScope, BTreeSet<String>> = HashMap::new();
    let mut scope = PredScope::Global;
    for (ln, raw) in text.lines().enumerate() {
        let line_no = u32::try_from(ln + 1).unwrap_or(u32::MAX);
        let err = |col: usize, message: String| PredError {
            file: file_name.to_string(),
            line: line_no,
            col: u32::try_from(col + 1).unwrap_or(u32::MAX),
            message,
        };
        let body = strip_comment(raw);
        let trimmed = body.trim_end();
        let start = trimmed.len() - trimmed.trim_start().len();
        let content = trimmed.trim_start();
        if content.is_empty() {
            continue;
        }
        if content == "global:" {
            scope = PredScope::Global;
            continue;
        }
        if let Some(rest) = content.strip_prefix("function ")
            && let Some(name) = rest.trim().strip_suffix(':')
        {
            let name = name.trim();
            let Some(f) = prog.function(name) else {
                return Err(err(start, format!("no function `{name}` with a body")));
            };
            scope = PredScope::Function(f.id);
            set.per_function.entry(f.name.clone()).or_default();
            continue;
        }
        let content = content.strip_suffix(';').unwrap_or(content);
        let p = parse_predicate_at(content, scope, prog).map_err(|(c, m)| err(start + c, m))?;
        if seen.entry(scope).or_default().insert(p.text.clone()) {
            match scope {
                PredScope::Global => set.global.push(p),
                PredScope::Function(f) => {
                    let name = prog.functions[f.0 as usize].name.clone();
                    set.per_function.entry(name).or_default().push(p);
                }
            }
        }
    }
    let globals = seen.remove(&PredScope::Global).unwrap_or_default();
    for ps in set.per_function.values_mut() {
        ps.retain(|p| !globals.contains(&p.text));
    }
    Ok(set)
}

/// Parses one predicate (the text of one line) in a scope. Errors carry the column (1-based)
/// within `text`.
pub fn parse_predicate(
    text: &str,
    scope: PredScope,
    prog: &Program,
) -> Result<Predicate, (u32, String)> {
    parse_predicate_at(text, scope, prog)
        .map_err(|(c, m)| (u32::try_from(c + 1).unwrap_or(u32::MAX), m))
}

fn parse_predicate_at(
    text: &str,
    scope: PredScope,
    prog: &Program,
) -> Result<Predicate, (usize, String)> {
    let toks = lex(text)?;
    let mut p = Parser {
        toks,
        i: 0,
        prog,
        scope,
        end: text.len(),
    };
    let e = p.expr()?;
    if p.i < p.toks.len() {
        return Err((
            p.toks[p.i].1,
            "unexpected token after the expression".into(),
        ));
    }
    if !e.ty.is_scalar() {
        return Err((0, "a predicate must have a scalar type".into()));
    }
    let expr = normalize(e);
    Ok(Predicate {
        text: prog.show_expr(&expr),
        expr,
        scope,
    })
}

/// The branch conditions of the program as predicates (an initial predicate set, e.g. for
/// `c2bp --branch-preds`): for every `assume` edge, its condition, normalised, in the scope of its
/// function (global when it mentions global storage only); a condition whose negation is already
/// present is not added again. Conditions over floating-point values are skipped (no theory).
pub fn branch_predicates(prog: &Program) -> PredicateSet {
    condition_predicates(prog, |_, _| true)
}

/// How many edges without a branch [`guard_predicates`] follows from a condition to the error.
pub const GUARD_HOPS: usize = 3;

/// The conditions that guard the error (an initial predicate set, `slam-run`'s default): the
/// conditions of the `assume` edges from whose target the error is reached through at most
/// [`GUARD_HOPS`] edges without a branch (an `error` edge, or a call of a function that does
/// the same from its entry, such as SV-COMP's `errorFn`), in the form and scopes of
/// [`branch_predicates`]. For `if (lk != 1) goto ERROR;` this is `lk != 1`. Such a predicate
/// is needed by any abstraction that proves the error unreachable and does not already imply
/// it, and without it the refinement loop spends an iteration learning it at each guard (SLAM
/// starts from the predicates of its property, the state of the SLIC monitor, for the same
/// reason: Ball, Rajamani, "The SLAM project", POPL'02, §2).
pub fn guard_predicates(prog: &Program) -> PredicateSet {
    use crate::ir::{Callee, EdgeKind, Function, NodeId};
    // Whether the error is reached from `v` of `f` through edges without a branch.
    fn errs_from(f: &Function, v: NodeId, erring: &[bool]) -> bool {
        let mut v = v;
        for _ in 0..=GUARD_HOPS {
            let mut out = f.edges.iter().filter(|e| e.from == v);
            let (Some(e), None) = (out.next(), out.next()) else {
                return false;
            };
            match &e.kind {
                EdgeKind::Error { .. } => return true,
                EdgeKind::Call {
                    callee: Callee::Defined(g),
                    ..
                } if erring.get(g.0 as usize).copied().unwrap_or(false) => return true,
                EdgeKind::Assign { .. } | EdgeKind::Havoc { .. } | EdgeKind::Skip => v = e.to,
                EdgeKind::Call { .. } => v = e.to,
                _ => return false,
            }
        }
        false
    }
    // A function that calls an erring function at once errs too: to the fixpoint (it only
    // grows, so at most one round per function).
    let mut erring = vec![false; prog.functions.len()];
    loop {
        let now: Vec<bool> = prog
            .functions
            .iter()
            .map(|f| errs_from(f, f.entry, &erring))
            .collect();
        if now == erring {
            break;
        }
        erring = now;
    }
    condition_predicates(prog, |f, e| errs_from(f, e.to, &erring))
}

/// The conditions of the `assume` edges that `keep` accepts, as predicates (see
/// [`branch_predicates`]).
fn condition_predicates(
    prog: &Program,
    keep: impl Fn(&crate::ir::Function, &crate::ir::Edge) -> bool,
) -> PredicateSet {
    let mut set = PredicateSet::default();
    let mut seen: HashMap<PredScope, BTreeSet<String>> = HashMap::new();
    for f in &prog.functions {
        for e in &f.edges {
            let crate::ir::EdgeKind::Assume(c) = &e.kind else {
                continue;
            };
            if !keep(f, e) {
                continue;
            }
            let mut float = false;
            c.walk(&mut |x| float |= x.ty.is_float());
            if float {
                continue;
            }
            let expr = normalize(c.clone());
            let mut has_var = false;
            expr.walk(&mut |x| has_var |= matches!(x.kind, ExprKind::Var(_)));
            if !has_var {
                // A constant (constant propagation may leave `0 > 5`): no predicate.
                continue;
            }
            let neg = normalize(int_expr(ExprKind::Unary(
                UnOp::LogNot,
                Box::new(expr.clone()),
            )));
            let global = {
                let mut g = true;
                expr.walk(&mut |x| {
                    if let ExprKind::Var(v) = x.kind {
                        g &= prog.var(v).is_global();
                    }
                });
                g
            };
            let scope = if global {
                PredScope::Global
            } else {
                PredScope::Function(f.id)
            };
            let text = prog.show_expr(&expr);
            let neg_text = prog.show_expr(&neg);
            let global_seen = seen.get(&PredScope::Global).cloned().unwrap_or_default();
            let s = seen.entry(scope).or_default();
            if s.contains(&text)
                || s.contains(&neg_text)
                || global_seen.contains(&text)
                || global_seen.contains(&neg_text)
            {
                continue;
            }
            s.insert(text.clone());
            let p = Predicate { expr, text, scope };
            match scope {
                PredScope::Global => set.global.push(p),
                PredScope::Function(_) => {
                    set.per_function.entry(f.name.clone()).or_default().push(p)
                }
            }
        }
    }
    let globals = seen.remove(&PredScope::Global).unwrap_or_default();
    for ps in set.per_function.values_mut() {
        ps.retain(|p| !globals.contains(&p.text));
    }
    set
}

/// Merges `other` into `self` (deduplicated by canonical text; a function predicate equal to a
/// global one is dropped).
pub fn merge_into(set: &mut PredicateSet, other: PredicateSet) {
    for p in other.global {
        if !set.global.iter().any(|q| q.text == p.text) {
            set.global.push(p);
        }
    }
    for (f, ps) in other.per_function {
        let own = set.per_function.entry(f).or_default();
        for p in ps {
            if !own.iter().any(|q| q.text == p.text) {
                own.push(p);
            }
        }
    }
    let globals: BTreeSet<String> = set.global.iter().map(|p| p.text.clone()).collect();
    for ps in set.per_function.values_mut() {
        ps.retain(|p| !globals.contains(&p.text));
    }
}

/// At most this many constants of one lvalue give sibling predicates ([`constant_siblings`]):
/// an lvalue compared with or assigned more is data rather than a state.
pub const MAX_SIBLING_VALUES: usize = 64;

/// The *sibling* predicates of a state test or a bound: for each predicate `e == c` or
/// `e != c` of `new` (an lvalue `e`, maybe under casts, and an integer constant `c`), `e == c'`
/// for every other constant `c'` the program assigns to `e` or compares `e` with (`==`, `!=`) —
/// in the predicate's own function, or in any function for a global predicate — written like
/// the original (`e`'s casts and the constant's type kept), in the original's scope; for a
/// bound `e <= c` (or `<`, `>`, `>=`), `e <= c'` at the same constants. A sibling that `have`
/// or `new` already has in that scope, or whose complement (`e != c'`, `e > c'`) it has, is
/// skipped, and so is an lvalue with more than [`MAX_SIBLING_VALUES`] constants.
///
/// A state machine (`while (1) switch (s->state)`, each case assigning the next state) needs a
/// predicate per state that matters, and a refutation finds them one state at a time; its
/// siblings name the other states at once. A flag stepped through its values (`if (flag == 3)
/// flag = 4;`) has its invariants' bounds found one at a time the same way. More predicates
/// never cost soundness, only time.
pub fn constant_siblings(prog: &Program, new: &PredicateSet, have: &PredicateSet) -> PredicateSet {
    let mut out = PredicateSet::default();
    for (func, p) in new.sections() {
        let Some((op, lv, c, own)) = state_test_parts(p) else {
            continue;
        };
        let Some(opposite) = op.negated() else {
            continue;
        };
        let funcs: Vec<&crate::ir::Function> = prog
            .functions
            .iter()
            .filter(|g| func.is_none_or(|f| g.name == f))
            .collect();
        let values = state_values(prog, &funcs, prog.show_expr(lv.without_casts()));
        if values.len() > MAX_SIBLING_VALUES {
            continue;
        }
        let known = |set: &PredicateSet, text: &str| {
            let own = func.and_then(|f| set.per_function.get(f));
            set.global
                .iter()
                .chain(own.into_iter().flatten())
                .any(|q| q.text == text)
        };
        for v in values.into_iter().filter(|&v| v != own) {
            let test = |op| {
                let kind = ExprKind::Binary(op, Box::new(lv.clone()), Box::new(with_value(c, v)));
                int_expr(kind)
            };
            let (sib, neg) = (test(op), test(opposite));
            let text = prog.show_expr(&sib);
            let neg = prog.show_expr(&neg);
            if [have, new, &out]
                .iter()
                .any(|set| known(set, &text) || known(set, &neg))
            {
                continue;
            }
            let sib = Predicate {
                expr: sib,
                text,
                scope: p.scope,
            };
            out.push(func, sib);
        }
    }
    out
}

/// A state test or a bound of an lvalue against a constant ([`state_test`]).
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct StateTest {
    /// The lvalue, printed without its casts.
    pub lvalue: String,
    /// Whether it is a bound (`<`, `<=`, `>`, `>=`) rather than a test of a state (`==`, `!=`).
    pub bound: bool,
    /// The constant.
    pub constant: i128,
}

/// Whether `p` is a state test `e == c` or `e != c`, or a bound `e < c`, `e <= c`, `e > c` or
/// `e >= c` (an lvalue `e`, maybe under casts, and an integer constant `c`).
pub fn state_test(prog: &Program, p: &Predicate) -> Option<StateTest> {
    state_test_parts(p).map(|(op, lv, _, c)| StateTest {
        lvalue: prog.show_expr(lv.without_casts()),
        bound: op != BinOp::Eq,
        constant: c,
    })
}

/// The parts of a state test or bound `e op c`: the operator of its siblings (`==` for a
/// state test, whether `==` or `!=`: a state's siblings are the other states; a bound's own
/// operator), the lvalue `e`, the constant `c` and its value.
fn state_test_parts(p: &Predicate) -> Option<(BinOp, &Expr, &Expr, i128)> {
    let ExprKind::Binary(
        op @ (BinOp::Eq | BinOp::Ne | BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge),
        lv,
        c,
    ) = &p.expr.kind
    else {
        return None;
    };
    let ExprKind::Const(value) = c.without_casts().kind else {
        return None;
    };
    lv.without_casts().is_lvalue().then_some((
        if *op == BinOp::Ne { BinOp::Eq } else { *op },
        &**lv,
        &**c,
        value,
    ))
}

/// At most this many lvalues are followed through copies ([`state_values`]).
const MAX_COPIED_LVALUES: usize = 8;

/// The constants `funcs` assign to the lvalue printed `key` or compare it with, and those of
/// the lvalues copied into it (`new_state = s->state;` gives `new_state` the states of
/// `s->state`), following at most [`MAX_COPIED_LVALUES`] lvalues.
fn state_values(prog: &Program, funcs: &[&crate::ir::Function], key: String) -> BTreeSet<i128> {
    use crate::ir::EdgeKind;
    let value = |e: &Expr| match e.without_casts().kind {
        ExprKind::Const(v) => Some(v),
        _ => None,
    };
    let lvalue = |e: &Expr| {
        let e = e.without_casts();
        e.is_lvalue().then(|| prog.show_expr(e))
    };
    let mut out = BTreeSet::new();
    let mut keys = vec![key];
    let mut next = 0;
    while let Some(key) = keys.get(next).cloned() {
        next += 1;
        let edges = funcs.iter().flat_map(|g| &g.edges);
        for e in edges {
            match &e.kind {
                EdgeKind::Assign { lhs, rhs } if lvalue(lhs).as_deref() == Some(&key) => {
                    out.extend(value(rhs));
                    if let Some(src) = lvalue(rhs)
                        && !keys.contains(&src)
                        && keys.len() < MAX_COPIED_LVALUES
                    {
                        keys.push(src);
                    }
                }
                EdgeKind::Assume(c) => {
                    if let ExprKind::Binary(BinOp::Eq | BinOp::Ne, a, b) = &c.kind {
                        for (x, y) in [(a, b), (b, a)] {
                            if lvalue(x).as_deref() == Some(&key) {
                                out.extend(value(y));
                            }
                        }
                    }
                }
                _ => {}
            }
        }
    }
    out
}

/// The constant `c` (maybe under casts) with the value `v`, its casts and type kept.
fn with_value(c: &Expr, v: i128) -> Expr {
    let kind = match &c.kind {
        ExprKind::Cast(a) => ExprKind::Cast(Box::new(with_value(a, v))),
        _ => ExprKind::Const(v),
    };
    Expr {
        kind,
        ty: c.ty.clone(),
    }
}

/// The predicate-file text of a set (re-parses to the same set).
pub fn predicate_file_text(set: &PredicateSet) -> String {
    let mut s = String::new();
    if !set.global.is_empty() {
        s.push_str("global:\n");
        for p in &set.global {
            s.push_str(&p.text);
            s.push('\n');
        }
    }
    for (f, ps) in &set.per_function {
        if ps.is_empty() {
            continue;
        }
        s.push_str(&format!("function {f}:\n"));
        for p in ps {
            s.push_str(&p.text);
            s.push('\n');
        }
    }
    s
}

/// Removes a comment: `//` anywhere, `#` at the start of the line or after a blank.
fn strip_comment(line: &str) -> &str {
    let b = line.as_bytes();
    for i in 0..b.len() {
        if b[i] == b'/' && b.get(i + 1) == Some(&b'/') {
            return &line[..i];
        }
        if b[i] == b'#' && (i == 0 || b[i - 1] == b' ' || b[i - 1] == b'\t') {
            return &line[..i];
        }
    }
    line
}

// ----- normal form -----

fn int_expr(kind: ExprKind) -> Expr {
    Expr {
        kind,
        ty: CType::INT,
    }
}

fn is_constant(e: &Expr) -> bool {
    match &e.kind {
        ExprKind::Const(_) => true,
        ExprKind::Cast(a) => is_constant(a),
        _ => false,
    }
}

/// A comparison in normal form (see the module documentation).
fn orient(op: BinOp, a: Expr, b: Expr) -> Expr {
    let (ca, cb) = (is_constant(&a), is_constant(&b));
    let swap = if ca != cb {
        ca
    } else {
        matches!(op, BinOp::Gt | BinOp::Ge)
    };
    let (op, a, b) = if swap {
        (op.mirrored(), b, a)
    } else {
        (op, a, b)
    };
    int_expr(ExprKind::Binary(op, Box::new(a), Box::new(b)))
}

/// Normalises an expression in a truth context (see the module documentation). The result is
/// a comparison, `!`, `&&` or `||` of type `int`.
pub fn normalize(e: Expr) -> Expr {
    match e.kind {
        ExprKind::Binary(op, a, b) if op.is_comparison() => orient(op, *a, *b),
        ExprKind::Binary(op @ (BinOp::LogAnd | BinOp::LogOr), a, b) => int_expr(ExprKind::Binary(
            op,
            Box::new(normalize(*a)),
            Box::new(normalize(*b)),
        )),
        ExprKind::Unary(UnOp::LogNot, a) => negate(normalize(*a)),
        kind => orient(BinOp::Ne, Expr { kind, ty: e.ty }, Expr::int(0, CType::INT)),
    }
}

/// The negation of a normalised expression, normalised.
fn negate(e: Expr) -> Expr {
    match e.kind {
        ExprKind::Binary(op, a, b) if op.is_comparison() => {
            orient(op.negated().expect("comparison"), *a, *b)
        }
        ExprKind::Unary(UnOp::LogNot, a) => *a,
        kind => int_expr(ExprKind::Unary(
            UnOp::LogNot,
            Box::new(Expr { kind, ty: e.ty }),
        )),
    }
}

// ----- lexer -----

#[derive(Debug, Clone, PartialEq)]
enum Tok {
    Ident(String),
    Result,
    /// value, unsigned suffix, number of `l`s, decimal
    Int(u128, bool, u8, bool),
    Punct(&'static str),
}

const PUNCTS: &[&str] = &[
    "->", "<<", ">>", "<=", ">=", "==", "!=", "&&", "||", "(", ")", "[", "]", ".", "+", "-", "*",
    "/", "%", "<", ">", "&", "|", "^", "!", "~", "?", ":",
];

fn lex(text: &str) -> Result<Vec<(Tok, usize)>, (usize, String)> {
    let b = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    let ident_char = |c: u8| c.is_ascii_alphanumeric() || c == b'_';
    while i < b.len() {
        let c = b[i];
        if c.is_ascii_whitespace() {
            i += 1;
            continue;
        }
        let start = i;
        if c.is_ascii_alphabetic() || c == b'_' {
            // identifiers, with the IR's `#` parts (`i#2`, `f#ret#3`, `x#copy`)
            while i < b.len()
                && (ident_char(b[i]) || (b[i] == b'#' && i + 1 < b.len() && ident_char(b[i + 1])))
            {
                i += 1;
            }
            out.push((Tok::Ident(text[start..i].to_string()), start));
        } else if c == b'\\' {
            i += 1;
            while i < b.len() && ident_char(b[i]) {
                i += 1;
            }
            if &text[start..i] != RESULT {
                return Err((start, format!("unknown keyword `{}`", &text[start..i])));
            }
            out.push((Tok::Result, start));
        } else if c.is_ascii_digit() {
            while i < b.len() && ident_char(b[i]) {
                i += 1;
            }
            out.push((
                int_literal(&text[start..i]).ok_or((start, "bad integer constant".to_string()))?,
                start,
            ));
        } else if let Some(p) = PUNCTS.iter().find(|p| text[i..].starts_with(**p)) {
            i += p.len();
            out.push((Tok::Punct(p), start));
        } else {
            let ch = text[i..].chars().next().unwrap_or('?');
            return Err((start, format!("unexpected character `{ch}`")));
        }
    }
    Ok(out)
}

fn int_literal(s: &str) -> Option<Tok> {
    let lower = s.to_ascii_lowercase();
    let digits_end = if let Some(h) = lower.strip_prefix("0x") {
        2 + h.find(|c: char| !c.is_ascii_hexdigit()).unwrap_or(h.len())
    } else {
        lower
            .find(|c: char| !c.is_ascii_digit())
            .unwrap_or(lower.len())
    };
    let (num, suffix) = lower.split_at(digits_end);
    let (radix, digits, dec) = if let Some(h) = num.strip_prefix("0x") {
        (16, h, false)
    } else if num.len() > 1 && num.starts_with('0') {
        (8, &num[1..], false)
    } else {
        (10, num, true)
    };
    let v = if digits.is_empty() {
        if radix == 16 {
            return None;
        }
        0
    } else {
        u128::from_str_radix(digits, radix).ok()?
    };
    let (u, l) = match suffix {
        "" => (false, 0),
        "u" => (true, 0),
        "l" => (false, 1),
        "ul" | "lu" => (true, 1),
        "ll" => (false, 2),
        "ull" | "llu" => (true, 2),
        _ => return None,
    };
    Some(Tok::Int(v, u, l, dec))
}

// ----- parser -----

struct Parser<'a> {
    toks: Vec<(Tok, usize)>,
    i: usize,
    prog: &'a Program,
    scope: PredScope,
    end: usize,
}

type PResult<T> = Result<T, (usize, String)>;

/// C binary precedence (larger binds tighter).
fn binop_of(p: &str) -> Option<(BinOp, u8)> {
    use BinOp::*;
    Some(match p {
        "*" => (Mul, 10),
        "/" => (Div, 10),
        "%" => (Rem, 10),
        "+" => (Add, 9),
        "-" => (Sub, 9),
        "<<" => (Shl, 8),
        ">>" => (Shr, 8),
        "<" => (Lt, 7),
        "<=" => (Le, 7),
        ">" => (Gt, 7),
        ">=" => (Ge, 7),
        "==" => (Eq, 6),
        "!=" => (Ne, 6),
        "&" => (BitAnd, 5),
        "^" => (BitXor, 4),
        "|" => (BitOr, 3),
        "&&" => (LogAnd, 2),
        "||" => (LogOr, 1),
        _ => return None,
    })
}

impl Parser<'_> {
    fn peek(&self) -> Option<&Tok> {
        self.toks.get(self.i).map(|t| &t.0)
    }

    fn pos(&self) -> usize {
        self.toks.get(self.i).map_or(self.end, |t| t.1)
    }

    fn is_punct(&self, p: &str) -> bool {
        matches!(self.peek(), Some(Tok::Punct(q)) if *q == p)
    }

    fn expect(&mut self, p: &str) -> PResult<()> {
        if self.is_punct(p) {
            self.i += 1;
            Ok(())
        } else {
            Err((self.pos(), format!("expected `{p}`")))
        }
    }

    fn expr(&mut self) -> PResult<Expr> {
        let c = self.binary(1)?;
        if !self.is_punct("?") {
            return Ok(c);
        }
        self.i += 1;
        let a = self.expr()?;
        self.expect(":")?;
        let b = self.expr()?;
        let ty = if matches!(a.ty, CType::Pointer(_)) {
            a.ty.clone()
        } else if matches!(b.ty, CType::Pointer(_)) {
            b.ty.clone()
        } else {
            usual_arithmetic(&a.ty, &b.ty, self.prog.data_model)
        };
        Ok(Expr {
            kind: ExprKind::Cond(Box::new(c), Box::new(a), Box::new(b)),
            ty,
        })
    }

    fn binary(&mut self, min: u8) -> PResult<Expr> {
        let mut lhs = self.unary()?;
        while let Some(Tok::Punct(p)) = self.peek() {
            let Some((op, prec)) = binop_of(p) else {
                break;
            };
            if prec < min {
                break;
            }
            let at = self.pos();
            self.i += 1;
            let rhs = self.binary(prec + 1)?;
            for x in [&lhs, &rhs] {
                if !x.ty.is_scalar() && !matches!(x.ty, CType::Array(..)) {
                    return Err((at, format!("operand of `{}` is not a scalar", op.symbol())));
                }
            }
            let ty = crate::ir::binop_type(op, &lhs.ty, &rhs.ty, self.prog.data_model);
            lhs = Expr {
                kind: ExprKind::Binary(op, Box::new(lhs), Box::new(rhs)),
                ty,
            };
        }
        Ok(lhs)
    }

    fn unary(&mut self) -> PResult<Expr> {
        let at = self.pos();
        let Some(Tok::Punct(p)) = self.peek() else {
            return self.postfix();
        };
        let p = *p;
        match p {
            "-" | "+" | "~" | "!" | "*" | "&" => {
                self.i += 1;
                let v = self.unary()?;
                self.apply_unary(p, v, at)
            }
            "(" if self.is_type_start(self.i + 1) => {
                self.i += 1;
                let ty = self.type_name()?;
                self.expect(")")?;
                let v = self.unary()?;
                if !ty.is_scalar() || !(v.ty.is_scalar() || matches!(v.ty, CType::Array(..))) {
                    return Err((at, "only casts between scalar types are supported".into()));
                }
                Ok(Expr {
                    kind: ExprKind::Cast(Box::new(v)),
                    ty,
                })
            }
            _ => self.postfix(),
        }
    }

    fn apply_unary(&self, p: &str, v: Expr, at: usize) -> PResult<Expr> {
        match p {
            "-" | "~" | "+" => {
                if !v.ty.is_scalar() || matches!(v.ty, CType::Pointer(_)) {
                    return Err((at, format!("operand of unary `{p}` is not arithmetic")));
                }
                Ok(match p {
                    "+" => unary_plus(v),
                    "-" => arith_unary(UnOp::Neg, v),
                    _ => arith_unary(UnOp::BitNot, v),
                })
            }
            "!" => Ok(log_not(v)),
            "*" => deref(v).ok_or_else(|| (at, "`*` of a non-pointer".into())),
            _ => {
                let not_lvalue = || (at, "`&` of something that is not an lvalue".to_string());
                if is_result(&v) {
                    return Err(not_lvalue());
                }
                address_of(v).ok_or_else(not_lvalue)
            }
        }
    }

    fn postfix(&mut self) -> PResult<Expr> {
        let mut e = self.primary()?;
        loop {
            let at = self.pos();
            if self.is_punct("[") {
                self.i += 1;
                let i = self.expr()?;
                self.expect("]")?;
                e = index(e, i).ok_or_else(|| (at, "subscript of a non-array".to_string()))?;
            } else if self.is_punct(".") || self.is_punct("->") {
                let arrow = self.is_punct("->");
                self.i += 1;
                let fat = self.pos();
                let Some(Tok::Ident(f)) = self.peek().cloned() else {
                    return Err((fat, "expected a field name".into()));
                };
                self.i += 1;
                let base = if arrow {
                    let to_struct = matches!(e.ty.pointee(), Some(CType::Struct(_)));
                    if !(to_struct && matches!(e.ty, CType::Pointer(_))) {
                        return Err((at, "`->` on something that is not a struct pointer".into()));
                    }
                    deref(e).expect("a pointer")
                } else {
                    e
                };
                e = match member(&self.prog.structs, base, &f) {
                    Ok(x) => x,
                    Err(MemberError::NotStruct) => {
                        return Err((at, format!("member `{f}` of a non-struct")));
                    }
                    Err(MemberError::NoMember) => return Err((fat, format!("no member `{f}`"))),
                };
            } else {
                return Ok(e);
            }
        }
    }

    fn primary(&mut self) -> PResult<Expr> {
        let at = self.pos();
        let Some(t) = self.peek().cloned() else {
            return Err((at, "expected an expression".into()));
        };
        self.i += 1;
        match t {
            Tok::Int(v, u, l, dec) => match i128::try_from(v)
                .ok()
                .and_then(|v| int_constant_type(v, l, u, dec, self.prog.data_model))
            {
                Some(ty) => Ok(Expr::int(v as i128, ty)),
                None => Err((at, "integer constant too large".into())),
            },
            Tok::Result => match self.scope {
                PredScope::Global => Err((
                    at,
                    "`\\result` is only allowed in a function section".into(),
                )),
                PredScope::Function(f) => {
                    let ty = self.prog.functions[f.0 as usize].ty.ret.clone();
                    if ty == CType::Void {
                        return Err((at, "`\\result` of a function returning void".into()));
                    }
                    Ok(result_expr(ty))
                }
            },
            Tok::Ident(name) => self.resolve(&name, at),
            Tok::Punct("(") => {
                let e = self.expr()?;
                self.expect(")")?;
                Ok(e)
            }
            Tok::Punct(_) => Err((at, "expected an expression".into())),
        }
    }

    fn resolve(&self, name: &str, at: usize) -> PResult<Expr> {
        let prog = self.prog;
        let var = |v: VarId| Expr {
            kind: ExprKind::Var(v),
            ty: prog.var(v).ty.clone(),
        };
        if let PredScope::Function(f) = self.scope {
            let func = &prog.functions[f.0 as usize];
            if let Some(v) = func
                .formals
                .iter()
                .chain(&func.locals)
                .find(|v| prog.var(**v).name == name)
            {
                return Ok(var(*v));
            }
        }
        if let Some(v) = prog.globals.iter().find(|v| prog.var(**v).name == name) {
            return Ok(var(*v));
        }
        if name == "NULL" {
            return Ok(Expr {
                kind: ExprKind::Cast(Box::new(Expr::int(0, CType::INT))),
                ty: CType::Void.ptr_to(),
            });
        }
        if let Some(i) = prog.vars.iter().find(|i| i.name == name) {
            let owner = match i.kind {
                crate::ir::VarKind::Formal(f, _)
                | crate::ir::VarKind::Local(f)
                | crate::ir::VarKind::FormalCopy(f, _)
                | crate::ir::VarKind::Temp(f) => prog.functions[f.0 as usize].name.clone(),
                _ => String::new(),
            };
            return Err((
                at,
                format!("`{name}` is a variable of function `{owner}`, not in scope here"),
            ));
        }
        Err((at, format!("unknown variable `{name}`")))
    }

    fn is_type_start(&self, i: usize) -> bool {
        matches!(self.toks.get(i), Some((Tok::Ident(w), _)) if matches!(
            w.as_str(),
            "int" | "unsigned" | "signed" | "char" | "short" | "long" | "_Bool" | "void" | "struct"
        ))
    }

    fn type_name(&mut self) -> PResult<CType> {
        let at = self.pos();
        let mut words = Vec::new();
        let mut tag = None;
        while let Some(Tok::Ident(w)) = self.peek().cloned() {
            if w == "struct" {
                self.i += 1;
                let Some(Tok::Ident(t)) = self.peek().cloned() else {
                    return Err((self.pos(), "expected a struct tag".into()));
                };
                self.i += 1;
                tag = Some(t);
            } else if self.is_type_start(self.i) {
                self.i += 1;
                words.push(w);
            } else {
                break;
            }
        }
        let mut ty = if let Some(t) = tag {
            if !words.is_empty() {
                return Err((at, "bad type name".into()));
            }
            let id = self
                .prog
                .structs
                .iter()
                .position(|s| s.tag.as_deref() == Some(t.as_str()) && !s.is_union)
                .ok_or((at, format!("unknown `struct {t}`")))?;
            CType::Struct(crate::types::StructId(id as u32))
        } else {
            int_type(&words).ok_or((at, "bad type name".to_string()))?
        };
        while self.is_punct("*") {
            self.i += 1;
            ty = ty.ptr_to();
        }
        Ok(ty)
    }
}

fn int_type(words: &[String]) -> Option<CType> {
    let count = |w: &str| words.iter().filter(|x| *x == w).count();
    let (uns, sig) = (count("unsigned"), count("signed"));
    let (ch, sh, lo, int, b, v) = (
        count("char"),
        count("short"),
        count("long"),
        count("int"),
        count("_Bool"),
        count("void"),
    );
    if uns + sig > 1 || words.is_empty() {
        return None;
    }
    use IntKind::*;
    let k = match (ch, sh, lo, b, v) {
        (0, 0, 0, 0, 1) if words.len() == 1 => return Some(CType::Void),
        (0, 0, 0, 1, 0) if words.len() == 1 => Bool,
        (1, 0, 0, 0, 0) if int == 0 => match (uns, sig) {
            (1, _) => UChar,
            (_, 1) => SChar,
            _ => Char,
        },
        (0, 1, 0, 0, 0) if int <= 1 => {
            if uns == 1 {
                UShort
            } else {
                Short
            }
        }
        (0, 0, 1, 0, 0) if int <= 1 => {
            if uns == 1 {
                ULong
            } else {
                Long
            }
        }
        (0, 0, 2, 0, 0) if int <= 1 => {
            if uns == 1 {
                ULongLong
            } else {
                LongLong
            }
        }
        (0, 0, 0, 0, 0) if int <= 1 => {
            if uns == 1 {
                UInt
            } else {
                Int
            }
        }
        _ => return None,
    };
    Some(CType::Int(k))
}

impl fmt::Display for PredScope {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PredScope::Global => f.write_str("global"),
            PredScope::Function(id) => write!(f, "function #{}", id.0),
        }
    }
}
