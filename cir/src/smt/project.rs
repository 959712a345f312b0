//! Quantifier elimination for predicate discovery: `∃ v. e` as a quantifier-free C condition
//! ([`super::Prover::project`]). Newton's weakest preconditions stop at the havoc of a value
//! (an input, a fresh value): the fact before it is the projection of the fact after it. This
//! is the quantifier elimination step of interpolation by projection (BLAST's focus operator
//! restates conditions over program variables, Lazy Abstraction §5.3; McMillan's interpolants
//! are such projections).
//!
//! The formula is encoded as every query is, in integer semantics (with the range facts of its
//! variables); every `mod`/`div` by a constant of a term over the eliminated values is split
//! into cases on its quotient ([`Split`]: Z3's `qe` on `∃n. (n + 2) mod 2^32 < x`, an unsigned
//! wrap-around, runs for minutes, on its two cases it answers at once); the cases are wrapped
//! in `exists` and given to Z3's `qe` tactic followed by `simplify`, under Z3's deterministic
//! resource limit ([`eliminate`]: never a time bound, so the answer does not depend on the load
//! of the machine).
//! Z3's answer is read back into C, by operator *names* ([`Head`]: the bindings' `DeclKind`
//! numbering is not Z3 4.8.12's):
//!
//! | Z3 | C |
//! |---|---|
//! | a variable's constant | the variable |
//! | numeral | `int` constant, `long long` when outside `int`'s range |
//! | `+ - *`, unary `-` | the same operator; an operand of an unsigned type is converted to `long long` first, so the arithmetic is exact (signed arithmetic is mathematical in integer semantics) |
//! | `t mod 2^w` (`w` = 8, 16, 32) | `t` converted to the unsigned type of width `w` |
//! | `t mod k`, `t div k` (`k > 0` constant) | `((t % k) + k) % k`, `(t - t mod k) / k` |
//! | `ite`, `and`, `or`, `not`, `=>`, comparisons | `?:`, `&&`, `\|\|`, `!`, `!a \|\| b`, comparisons |
//!
//! Anything else (a quantifier `qe` left, memory, uninterpreted values, a variable of a type
//! that `long long` cannot hold) gives `None`. The result is only a candidate predicate: any
//! predicate is sound for the abstraction, so a reading that is exact in integer semantics
//! but not in bit-vector semantics can only make refinement less effective, never wrong.
//! [`tidy`] then drops what the types already say (range facts) and disjuncts that imply
//! others.

use std::collections::{BTreeMap, BTreeSet};

use z3::ast::{Ast, Bool, Dynamic, Int};
use z3::{ApplyResult, AstKind, Goal, Params, SatResult, SortKind, Tactic};

use super::Semantics;
use super::encode::{Encoder, Num, int_of};
use crate::ir::{BinOp, Expr, ExprKind, Program, UnOp, VarId};
use crate::types::{CType, DataModel, IntKind, usual_arithmetic};

const LL: CType = CType::Int(IntKind::LongLong);

/// `∃ elim. e` read back into C (see the module doc); runs in the current Z3 context.
pub(super) fn project(prog: &Program, sem: Semantics, e: &Expr, elim: &[VarId]) -> Option<Expr> {
    let mut enc = Encoder::new(prog, sem);
    enc.modular = true;
    let body = enc.cond(e);
    if enc.fresh > 0 || !enc.funcs.is_empty() || !enc.addrs.is_empty() || !enc.mems.is_empty() {
        return None;
    }
    let vars: BTreeMap<VarId, Num> = enc.vars.clone();
    let mut all = enc.finish();
    all.push(body);
    let bound: Vec<Int> = elim
        .iter()
        .filter_map(|v| vars.get(v))
        .map(int_of)
        .collect();
    if bound.is_empty() {
        return None;
    }
    let ranges: BTreeMap<String, (i128, i128)> = vars
        .keys()
        .filter_map(|&v| match prog.var(v).ty {
            CType::Int(k) => Some((prog.var(v).name.clone(), k.range(prog.data_model))),
            _ => None,
        })
        .collect();
    let bound_names: BTreeSet<String> = elim
        .iter()
        .filter(|v| vars.contains_key(v))
        .map(|&v| prog.var(v).name.clone())
        .collect();
    let mut split = Split {
        bound: bound_names,
        ranges,
        fresh: Vec::new(),
    };
    let cases = split.cases(Bool::and(&all))?;
    let refs: Vec<&dyn Ast> = bound
        .iter()
        .chain(&split.fresh)
        .map(|b| b as &dyn Ast)
        .collect();
    let q = z3::ast::exists_const(&refs, &[], &Bool::or(&cases));
    let res = eliminate(&q, ELIMINATION_RLIMIT)?;
    let names: BTreeMap<String, VarId> = vars
        .keys()
        .filter(|v| !elim.contains(v))
        .map(|&v| (prog.var(v).name.clone(), v))
        .collect();
    let rb = ReadBack { prog, names };
    let mut alternatives = Vec::new();
    for g in res.list_subgoals() {
        let mut conj: Option<Expr> = None;
        for f in g.get_formulas() {
            tracing::trace!(formula = %f, "projection: qe gave");
            let x = rb.formula(&Dynamic::from_ast(&f as &dyn Ast))?;
            conj = Some(match conj {
                None => x,
                Some(c) => logical(BinOp::LogAnd, c, x),
            });
        }
        alternatives.push(conj.unwrap_or_else(|| Expr::int(1, CType::INT)));
    }
    alternatives
        .into_iter()
        .reduce(|a, b| logical(BinOp::LogOr, a, b))
}

/// The bound on one elimination, in Z3's resource units (`rlimit`). The eliminations newton
/// asks for on the SV-COMP loop, loop-new and driver tasks take at most about 4,400 units (a
/// few milliseconds; about 2,000 units a millisecond); this bound, some 500 ms of work, is only
/// the safety net against an elimination that would run for minutes.
const ELIMINATION_RLIMIT: u32 = 1_000_000;

/// `qe` then `simplify` on the formula `q`, stopped deterministically after `rlimit` resource
/// units (`None`, one candidate predicate less, as when the tactic fails). Z3 4.8.12 takes no
/// `rlimit` for a tactic (`Z3_tactic_apply_ex` rejects the parameter, and a context's `rlimit`
/// reaches solvers only), but a solver made from a tactic runs it under the solver's `rlimit`.
/// So the elimination runs first as such a solver, which either finishes (`sat`, `unsat`, or
/// `unknown` for "incomplete": the goal is left open, as an elimination's result is) or stops
/// at the limit. A finished elimination is then applied for its result: the same tactic on the
/// same goal, the same work again (milliseconds). A time bound instead (Z3's `try_for`) made
/// the predicates found, and so whole runs, depend on the load of the machine.
fn eliminate(q: &Bool, rlimit: u32) -> Option<ApplyResult> {
    let tactic = Tactic::new("qe").and_then(&Tactic::new("simplify"));
    let probe = tactic.solver();
    let mut params = Params::new();
    params.set_u32("rlimit", rlimit);
    probe.set_params(&params);
    probe.assert(q);
    let finished = match probe.check() {
        SatResult::Sat | SatResult::Unsat => true,
        SatResult::Unknown => probe.get_reason_unknown().as_deref() == Some("incomplete"),
    };
    if !finished {
        tracing::debug!(
            reason = ?probe.get_reason_unknown(),
            "projection: elimination stopped at its resource limit"
        );
        return None;
    }
    let goal = Goal::new(false, false, false);
    goal.assert(q);
    tactic.apply(&goal, None).ok()
}

/// At most this many cases after splitting, and this many quotients per `mod`/`div`.
const MAX_CASES: usize = 16;
const MAX_QUOTIENTS: i128 = 4;
/// With more quotients, a `mod`/`div` by at most this constant gets its quotient as one more
/// eliminated value instead of cases.
const SMALL_DIVISOR: i128 = 64;

/// Removes `mod`/`div` by a constant from the terms over eliminated values, by cases on the
/// quotient: with `lo <= s <= hi` (interval arithmetic over the variables' type ranges) and
/// `q` from `lo div k` to `hi div k`, `s mod k` is `s - q*k` and `s div k` is `q` where
/// `q*k <= s < (q+1)*k`. Exact, and `∃` distributes over the cases. With more quotients than
/// [`MAX_QUOTIENTS`] and a divisor up to [`SMALL_DIVISOR`] (`n % 4` over an `int`), `q` becomes
/// one more eliminated value (`fresh`) under the same constraint: linear again. Z3's `qe` on
/// `∃n. (n + 2) mod 2^32 < x` (an unsigned wrap-around, the common case) runs for minutes;
/// on the two cases it answers at once. Also refuses a product of an eliminated value with a
/// non-constant (`qe` would need nonlinear elimination).
struct Split {
    bound: BTreeSet<String>,
    ranges: BTreeMap<String, (i128, i128)>,
    /// Quotients made eliminated values.
    fresh: Vec<Int>,
}

impl Split {
    /// The cases of `f`, each free of `mod`/`div` over eliminated values; `None` when an
    /// interval is unknown or too wide, the cases too many, or a product nonlinear.
    fn cases(&mut self, f: Bool) -> Option<Vec<Bool>> {
        let mut done = Vec::new();
        let mut work = vec![f];
        while let Some(f) = work.pop() {
            let Some((s, k)) = self.innermost(&Dynamic::from_ast(&f))? else {
                done.push(f);
                continue;
            };
            let (lo, hi) = self.interval(&s)?;
            let (qlo, qhi) = (lo.div_euclid(k), hi.div_euclid(k));
            let kk = Int::from_i128(k);
            let (m, d) = (s.modulo(&kk), s.div(&kk));
            if qhi - qlo >= MAX_QUOTIENTS {
                if k > SMALL_DIVISOR {
                    return None;
                }
                let name = format!("quotient!{}", self.fresh.len());
                let q = Int::new_const(name.as_str());
                self.bound.insert(name.clone());
                self.ranges.insert(name, (qlo, qhi));
                let base = Int::mul(&[q.clone(), kk.clone()]);
                let g = f.substitute(&[(&m, &Int::sub(&[s.clone(), base.clone()]))]);
                let g = g.substitute(&[(&d, &q)]);
                let next = Int::add(&[base.clone(), kk.clone()]);
                work.push(Bool::and(&[g, base.le(&s), s.lt(&next)]));
                self.fresh.push(q);
                continue;
            }
            for q in qlo..=qhi {
                let base = Int::from_i128(q * k);
                let rest = Int::sub(&[s.clone(), base.clone()]);
                let g = f.substitute(&[(&m, &rest)]);
                let g = g.substitute(&[(&d, &Int::from_i128(q))]);
                let next = Int::from_i128((q + 1) * k);
                work.push(Bool::and(&[g, base.le(&s), s.lt(&next)]));
            }
            if work.len() + done.len() > MAX_CASES {
                return None;
            }
        }
        Some(done)
    }

    /// Whether `t` mentions an eliminated value.
    fn mentions(&self, t: &Dynamic) -> bool {
        match head(t) {
            Some(Head::Const(name)) => self.bound.contains(&name),
            Some(Head::Numeral(_)) => false,
            _ => t.children().iter().any(|c| self.mentions(c)),
        }
    }

    /// The first `mod`/`div` by a positive constant whose dividend mentions an eliminated value
    /// and contains no other such term (`Some(None)`: none left); `None` for a term the
    /// elimination should not see (a nonlinear product of an eliminated value, another
    /// `mod`/`div` of one, a quantifier).
    fn innermost(&self, t: &Dynamic) -> Option<Option<(Int, i128)>> {
        let op = match head(t)? {
            Head::App(op) => op,
            Head::Numeral(_) | Head::Const(_) => return Some(None),
        };
        for c in t.children() {
            if let Some(x) = self.innermost(&c)? {
                return Some(Some(x));
            }
        }
        let args = t.children();
        match op.as_str() {
            "mod" | "div" if self.mentions(t) => {
                let d = args.get(1)?.as_int()?.as_i128().filter(|&d| d > 0)?;
                Some(Some((args[0].as_int()?, d)))
            }
            "rem" | "/" | "exists" | "forall" if self.mentions(t) => None,
            "*" if self.mentions(t) => {
                let symbolic = args
                    .iter()
                    .filter(|a| a.as_int().and_then(|i| i.as_i128()).is_none())
                    .count();
                (symbolic <= 1).then_some(None)
            }
            _ => Some(None),
        }
    }

    /// Bounds of an integer term from its variables' type ranges.
    fn interval(&self, t: &Int) -> Option<(i128, i128)> {
        let op = match head(&Dynamic::from_ast(t))? {
            Head::Numeral(v) => return Some((v, v)),
            Head::Const(name) => return self.ranges.get(&name).copied(),
            Head::App(op) => op,
        };
        let args: Vec<Int> = if op == "if" || op == "ite" {
            Vec::new()
        } else {
            t.children()
                .iter()
                .map(|c| c.as_int())
                .collect::<Option<_>>()?
        };
        let each = |i: usize| self.interval(args.get(i)?);
        match op.as_str() {
            "+" => args.iter().try_fold((0i128, 0i128), |(lo, hi), a| {
                let (l, h) = self.interval(a)?;
                Some((lo.checked_add(l)?, hi.checked_add(h)?))
            }),
            "-" if args.len() == 1 => {
                let (l, h) = each(0)?;
                Some((h.checked_neg()?, l.checked_neg()?))
            }
            "-" if !args.is_empty() => {
                let first = each(0)?;
                args[1..].iter().try_fold(first, |(lo, hi), a| {
                    let (l, h) = self.interval(a)?;
                    Some((lo.checked_sub(h)?, hi.checked_sub(l)?))
                })
            }
            "*" => args.iter().try_fold((1i128, 1i128), |(lo, hi), a| {
                let (l, h) = self.interval(a)?;
                let p = [
                    lo.checked_mul(l)?,
                    lo.checked_mul(h)?,
                    hi.checked_mul(l)?,
                    hi.checked_mul(h)?,
                ];
                Some((*p.iter().min()?, *p.iter().max()?))
            }),
            "mod" if args.len() == 2 => {
                let k = args[1].as_i128().filter(|&k| k > 0)?;
                Some((0, k - 1))
            }
            "if" | "ite" => {
                let c = t.children();
                let (a, b) = (
                    self.interval(&c.get(1)?.as_int()?)?,
                    self.interval(&c.get(2)?.as_int()?)?,
                );
                Some((a.0.min(b.0), a.1.max(b.1)))
            }
            "div" if args.len() == 2 => {
                let k = args[1].as_i128().filter(|&k| k > 0)?;
                let (l, h) = each(0)?;
                Some((l.div_euclid(k), h.div_euclid(k)))
            }
            _ => None,
        }
    }
}

/// `e` without what the types already say: a conjunct valid on its own (the range facts `qe`
/// keeps, `x >= -2147483648`) and a disjunct that implies another (`(unsigned)x >= 3 ||
/// (unsigned)x >= 1` is `(unsigned)x >= 1`) are dropped, so that every atom newton takes from
/// a projection is needed. The prover's deterministic queries decide.
///
/// Every `||`/`&&` chain of the result comes in the order of its operands' canonical text, and
/// of two disjuncts that imply each other the last in that order stays: the order Z3 gives
/// them follows its internal numbering of terms, which the solver's configuration and the
/// queries before change, and the predicates newton adds, hence the whole refinement, would
/// follow that order.
pub(super) fn tidy(prover: &super::Prover<'_>, e: Expr) -> Expr {
    let prog = prover.program();
    let alts: Vec<Expr> = in_canonical_order(prog, e)
        .operands(BinOp::LogOr)
        .into_iter()
        .map(|a| {
            let cs = a.operands(BinOp::LogAnd).into_iter();
            Expr::join(
                BinOp::LogAnd,
                cs.filter(|c| !prover.is_valid(&[], c).is_valid()),
            )
            .unwrap_or_else(|| Expr::int(1, CType::INT))
        })
        .collect();
    // Dropping conjuncts changes the texts: order the disjuncts again.
    let alts = Expr::join(BinOp::LogOr, alts)
        .map(|e| in_canonical_order(prog, e).operands(BinOp::LogOr))
        .unwrap_or_default();
    let mut keep = vec![true; alts.len()];
    for i in 0..alts.len() {
        for j in 0..alts.len() {
            if i != j
                && keep[j]
                && prover
                    .is_valid(std::slice::from_ref(&alts[i]), &alts[j])
                    .is_valid()
            {
                keep[i] = false;
                break;
            }
        }
    }
    Expr::join(
        BinOp::LogOr,
        alts.into_iter()
            .zip(keep)
            .filter_map(|(a, k)| k.then_some(a)),
    )
    .unwrap_or_else(|| Expr::int(0, CType::INT))
}

/// `e` with the operands of every chain of `||` or `&&`, at any depth, in the order of their
/// canonical text.
fn in_canonical_order(prog: &Program, e: Expr) -> Expr {
    let op = match &e.kind {
        ExprKind::Binary(op @ (BinOp::LogOr | BinOp::LogAnd), _, _) => *op,
        _ => return e,
    };
    let mut keyed: Vec<(String, Expr)> = e
        .operands(op)
        .into_iter()
        .map(|x| {
            let x = in_canonical_order(prog, x);
            (super::canonical(prog, &x), x)
        })
        .collect();
    keyed.sort_by(|a, b| a.0.cmp(&b.0));
    Expr::join(op, keyed.into_iter().map(|(_, x)| x)).unwrap_or(e)
}

fn logical(op: BinOp, a: Expr, b: Expr) -> Expr {
    Expr {
        kind: ExprKind::Binary(op, Box::new(a), Box::new(b)),
        ty: CType::INT,
    }
}

pub(super) struct ReadBack<'p> {
    pub(super) prog: &'p Program,
    /// The constants that may occur: the variables not eliminated.
    pub(super) names: BTreeMap<String, VarId>,
}

impl ReadBack<'_> {
    /// A Boolean term as a C condition.
    pub(super) fn formula(&self, f: &Dynamic) -> Option<Expr> {
        if f.sort_kind() != SortKind::Bool {
            return None;
        }
        let Head::App(op) = head(f)? else {
            return None;
        };
        let args = f.children();
        let all = |op: BinOp| -> Option<Expr> {
            let mut it = args.iter().map(|a| self.formula(a));
            let first = it.next()??;
            it.try_fold(first, |acc, x| Some(logical(op, acc, x?)))
        };
        let int_args = args.first().is_some_and(|a| a.sort_kind() == SortKind::Int);
        match op.as_str() {
            "true" if args.is_empty() => Some(Expr::int(1, CType::INT)),
            "false" if args.is_empty() => Some(Expr::int(0, CType::INT)),
            "and" => all(BinOp::LogAnd),
            "or" => all(BinOp::LogOr),
            "not" if args.len() == 1 => Some(not(self.formula(&args[0])?)),
            "=>" if args.len() == 2 => Some(logical(
                BinOp::LogOr,
                not(self.formula(&args[0])?),
                self.formula(&args[1])?,
            )),
            "if" | "ite" if args.len() == 3 => Some(Expr {
                kind: ExprKind::Cond(
                    Box::new(self.formula(&args[0])?),
                    Box::new(self.formula(&args[1])?),
                    Box::new(self.formula(&args[2])?),
                ),
                ty: CType::INT,
            }),
            "=" | "iff" | "xor" | "distinct" if args.len() == 2 && !int_args => {
                let op = if matches!(op.as_str(), "=" | "iff") {
                    BinOp::Eq
                } else {
                    BinOp::Ne
                };
                // Conditions are 0 or 1 as C values.
                Some(compare(
                    op,
                    self.formula(&args[0])?,
                    self.formula(&args[1])?,
                ))
            }
            k if args.len() == 2 && int_args => {
                let op = match k {
                    "<=" => BinOp::Le,
                    "<" => BinOp::Lt,
                    ">=" => BinOp::Ge,
                    ">" => BinOp::Gt,
                    "=" => BinOp::Eq,
                    "distinct" => BinOp::Ne,
                    _ => return None,
                };
                let (a, b) = comparable(self.term(&args[0])?, self.term(&args[1])?)?;
                Some(compare(op, a, b))
            }
            _ => None,
        }
    }

    /// An integer term as a C expression with the same mathematical value.
    fn term(&self, t: &Dynamic) -> Option<Expr> {
        if t.sort_kind() != SortKind::Int {
            return None;
        }
        let op = match head(t)? {
            Head::Numeral(v) => return constant(v),
            Head::Const(name) => {
                let v = *self.names.get(&name)?;
                let ty = self.prog.var(v).ty.clone();
                let CType::Int(k) = ty else { return None };
                let (lo, hi) = k.range(self.prog.data_model);
                let (llo, lhi) = IntKind::LongLong.range(self.prog.data_model);
                return (llo <= lo && hi <= lhi).then_some(Expr {
                    kind: ExprKind::Var(v),
                    ty,
                });
            }
            Head::App(op) => op,
        };
        let args = t.children();
        let fold = |op: BinOp| -> Option<Expr> {
            let mut it = args.iter().map(|a| self.term(a));
            let first = it.next()??;
            it.try_fold(first, |acc, x| arith(op, acc, x?))
        };
        match op.as_str() {
            "+" => fold(BinOp::Add),
            "-" if args.len() == 1 => {
                let x = exact_operand(self.term(&args[0])?)?;
                Some(Expr {
                    ty: x.ty.promoted(),
                    kind: ExprKind::Unary(UnOp::Neg, Box::new(x)),
                })
            }
            "-" => fold(BinOp::Sub),
            "*" => fold(BinOp::Mul),
            "mod" if args.len() == 2 => {
                let k = args[1].as_int()?.as_i128()?;
                modulo(self.term(&args[0])?, k)
            }
            "div" if args.len() == 2 => {
                let k = args[1].as_int()?.as_i128()?;
                let x = self.term(&args[0])?;
                let m = modulo(x.clone(), k)?;
                let diff = arith(BinOp::Sub, x, m)?;
                arith(BinOp::Div, diff, constant(k)?)
            }
            "if" | "ite" if args.len() == 3 => {
                let c = self.formula(&args[0])?;
                let a = exact_operand(self.term(&args[1])?)?;
                let b = exact_operand(self.term(&args[2])?)?;
                let ty = usual_arithmetic(&a.ty, &b.ty, DataModel::default());
                Some(Expr {
                    kind: ExprKind::Cond(Box::new(c), Box::new(a), Box::new(b)),
                    ty,
                })
            }
            _ => None,
        }
    }
}

/// A term's head, told by its declaration's *name*. The bindings' `DeclKind` was generated
/// for a newer Z3 than Debian's 4.8.12, whose numbering differs past the arithmetic operators
/// (`Z3_OP_UNINTERPRETED` is 45101 in 4.8.12, 49167 in z3-sys): a kind read from 4.8.12 may be
/// no value of that enum at all (undefined behaviour; printing one crashed). Names are stable.
enum Head {
    Numeral(i128),
    /// An uninterpreted constant: a variable.
    Const(String),
    /// An interpreted operator (`true`, `false` included).
    App(String),
}

fn head(t: &Dynamic) -> Option<Head> {
    match t.kind() {
        AstKind::Numeral => Some(Head::Numeral(t.as_int()?.as_i128()?)),
        AstKind::App => {
            let name = t.decl().name();
            if t.num_children() == 0 && name != "true" && name != "false" {
                Some(Head::Const(name))
            } else {
                Some(Head::App(name))
            }
        }
        _ => None,
    }
}

/// Operands of a comparison with its mathematical meaning in C: when the comparison would be
/// unsigned and an operand may be negative (a signed operand that is not a non-negative
/// constant), both are compared as `long long`.
fn comparable(a: Expr, b: Expr) -> Option<(Expr, Expr)> {
    let unsigned = |e: &Expr| matches!(e.ty.promoted(), CType::Int(k) if !k.is_signed());
    let safe = |e: &Expr| unsigned(e) || matches!(e.kind, ExprKind::Const(v) if v >= 0);
    if (unsigned(&a) || unsigned(&b)) && !(safe(&a) && safe(&b)) {
        Some((exact_operand(a)?, exact_operand(b)?))
    } else {
        Some((a, b))
    }
}

fn not(e: Expr) -> Expr {
    Expr {
        kind: ExprKind::Unary(UnOp::LogNot, Box::new(e)),
        ty: CType::INT,
    }
}

fn compare(op: BinOp, a: Expr, b: Expr) -> Expr {
    Expr {
        kind: ExprKind::Binary(op, Box::new(a), Box::new(b)),
        ty: CType::INT,
    }
}

/// An integer constant: `int` when it fits, else `long long`.
fn constant(v: i128) -> Option<Expr> {
    // (`int` and `long long` have the same widths in every data model.)
    let dm = DataModel::default();
    let (lo, hi) = IntKind::Int.range(dm);
    let (llo, lhi) = IntKind::LongLong.range(dm);
    if lo <= v && v <= hi {
        Some(Expr::int(v, CType::INT))
    } else if llo <= v && v <= lhi {
        Some(Expr::int(v, LL))
    } else {
        None
    }
}

/// `e` as an operand whose arithmetic is mathematical in integer semantics: signed types stay,
/// an unsigned type (after promotion) that `long long` holds is converted to `long long`.
fn exact_operand(e: Expr) -> Option<Expr> {
    match e.ty.promoted() {
        CType::Int(k) if k.is_signed() => Some(e),
        CType::Int(IntKind::UInt) => Some(Expr {
            kind: ExprKind::Cast(Box::new(e)),
            ty: LL,
        }),
        _ => None,
    }
}

/// `a op b` over the operands' common type. (`long` is only kept signed, and `unsigned long`
/// is rejected, so the common type does not depend on the data model.)
fn arith(op: BinOp, a: Expr, b: Expr) -> Option<Expr> {
    let a = exact_operand(a)?;
    let b = exact_operand(b)?;
    let ty = usual_arithmetic(&a.ty, &b.ty, DataModel::default());
    Some(Expr {
        kind: ExprKind::Binary(op, Box::new(a), Box::new(b)),
        ty,
    })
}

/// Euclidean `t mod k` (`k > 0`) in C.
fn modulo(t: Expr, k: i128) -> Option<Expr> {
    if k <= 0 {
        return None;
    }
    let unsigned = match k {
        0x100 => Some(IntKind::UChar),
        0x1_0000 => Some(IntKind::UShort),
        0x1_0000_0000 => Some(IntKind::UInt),
        _ => None,
    };
    if let Some(u) = unsigned {
        let ty = CType::Int(u);
        return Some(if t.ty == ty {
            t
        } else {
            Expr {
                kind: ExprKind::Cast(Box::new(t)),
                ty,
            }
        });
    }
    let kc = constant(k)?;
    let r = arith(BinOp::Rem, t, kc.clone())?;
    let s = arith(BinOp::Add, r, kc.clone())?;
    arith(BinOp::Rem, s, kc)
}

#[cfg(test)]
mod tests {
    use super::*;
    use z3::ast::exists_const;

    /// `∃ n. n + 2 < x ∧ 5 < n` over the integers.
    fn simple() -> (Bool, Int) {
        let (n, x) = (Int::new_const("n"), Int::new_const("x"));
        let body = Bool::and(&[
            Int::add(&[n.clone(), Int::from_i64(2)]).lt(&x),
            Int::from_i64(5).lt(&n),
        ]);
        (exists_const(&[&n as &dyn Ast], &[], &body), x)
    }

    /// The resource limit reaches the tactic: the elimination that finishes at the default
    /// bound (to `8 < x`, checked by Z3) stops at a bound of a few units, every time.
    #[test]
    fn the_resource_limit_stops_an_elimination_deterministically() {
        let (q, x) = simple();
        let res = eliminate(&q, ELIMINATION_RLIMIT).expect("finishes");
        let formulas: Vec<Bool> = res.list_subgoals().flat_map(|g| g.get_formulas()).collect();
        let got = Bool::and(&formulas);
        let want = Int::from_i64(8).lt(&x);
        let solver = z3::Solver::new();
        solver.assert(got.iff(&want).not());
        assert_eq!(solver.check(), SatResult::Unsat, "{got}");
        for _ in 0..3 {
            assert!(eliminate(&q, 10).is_none(), "stopped at 10 units");
        }
    }

    /// Z3's `qe` runs for minutes on `∃ n. (n + 2) mod 2^32 < x ∧ 0 ≤ n < 2^32` (the wrap-around
    /// that `Split` takes apart first); given to it whole, the elimination stops at the bound.
    #[test]
    fn an_elimination_that_would_run_for_minutes_stops_at_the_bound() {
        let (n, x) = (Int::new_const("n"), Int::new_const("x"));
        let w = Int::from_i64(1 << 32);
        let body = Bool::and(&[
            Int::add(&[n.clone(), Int::from_i64(2)]).modulo(&w).lt(&x),
            Int::from_i64(0).le(&n),
            n.lt(&w),
        ]);
        let q = exists_const(&[&n as &dyn Ast], &[], &body);
        assert!(eliminate(&q, ELIMINATION_RLIMIT).is_none());
    }
}
