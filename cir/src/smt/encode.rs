//! The encoder: C expressions of the IR as Z3 terms in integer or bit-vector mode, with the
//! facts (ranges, distinct addresses, cell links) that hold in every state.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use z3::ast::{Ast, BV, Bool, Int};
use z3::{FuncDecl, Sort};

use super::Semantics;
use crate::ir::{BinOp, Expr, ExprKind, Program, UnOp, VarId};
use crate::types::{CType, DataModel, IntKind, usual_arithmetic};

/// A C value in Z3: a mathematical integer (default) or a bit-vector (`--bitvector`).
#[derive(Clone)]
pub(super) enum Num {
    I(Int),
    B(BV),
}

/// How a scalar type is represented: width in bits and signedness (`None`: not a scalar the
/// encoding models, e.g. a float or a structure).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Repr {
    pub(super) width: u32,
    pub(super) signed: bool,
    is_bool: bool,
}

impl Repr {
    fn range(self) -> (i128, i128) {
        if self.signed {
            (
                -(1i128 << (self.width - 1)),
                (1i128 << (self.width - 1)) - 1,
            )
        } else {
            (0, (1i128 << self.width) - 1)
        }
    }
}

fn pow2(k: u32) -> Int {
    Int::from_i128(1i128 << k)
}

pub(super) fn int_of(n: &Num) -> Int {
    match n {
        Num::I(i) => i.clone(),
        Num::B(_) => unreachable!("bit-vector value in integer mode"),
    }
}

fn bv_of(n: &Num) -> BV {
    match n {
        Num::B(b) => b.clone(),
        Num::I(_) => unreachable!("integer value in bit-vector mode"),
    }
}

/// Encodes the expressions of one query in the current thread's Z3 context.
pub(super) struct Encoder<'p> {
    prog: &'p Program,
    sem: Semantics,
    /// Range facts, distinctness, links: truths about every state.
    facts: Vec<Bool>,
    pub(super) vars: BTreeMap<VarId, Num>,
    /// Addresses of variables, function designators and string literals, by name.
    pub(super) addrs: BTreeMap<String, Num>,
    /// Variables whose address occurs, with their address.
    addr_vars: BTreeMap<VarId, Num>,
    /// Uninterpreted functions by name (memories, fields, imprecise operators).
    pub(super) funcs: BTreeMap<String, FuncDecl>,
    /// Memories used: type text → its scalar type.
    pub(super) mems: BTreeMap<String, CType>,
    pub(super) fresh: u32,
    /// A signed value converted to an unsigned type at least as wide is `v mod 2^w`, the form
    /// [`Prover::project`] reads back as a conversion (`(unsigned)x`); otherwise it is
    /// `v < 0 ? v + 2^w : v`, the same value for every `v` of the signed type (so in every
    /// state without signed overflow) and far cheaper for Z3, which handles a case split on
    /// the sign much better than a non-linear `mod`. Set, every reduction into a type keeps
    /// `mod` (none is written as a difference or a choice, see `reduce_in`).
    pub(super) modular: bool,
    /// Every term the encoding keeps uninterpreted (a memory cell, a field address, an
    /// imprecise operator) is a fresh unconstrained value instead of a function application:
    /// Horn clauses take no uninterpreted functions (Spacer answers `unknown` on them), and
    /// forgetting what such a term is only adds behaviours.
    pub(super) opaque_fresh: bool,
    /// Whether a product of two non-constant integers, or an integer division or remainder
    /// (by a constant too: `mod` from a conversion or an unsigned wrap-around), was encoded:
    /// only then does a one-off query need Z3's default solver (see `session::query_solver`).
    nonlinear_or_div: std::cell::Cell<bool>,
}

impl<'p> Encoder<'p> {
    pub(super) fn new(prog: &'p Program, sem: Semantics) -> Encoder<'p> {
        Encoder {
            prog,
            sem,
            facts: Vec::new(),
            vars: BTreeMap::new(),
            addrs: BTreeMap::new(),
            addr_vars: BTreeMap::new(),
            funcs: BTreeMap::new(),
            mems: BTreeMap::new(),
            fresh: 0,
            modular: false,
            opaque_fresh: false,
            nonlinear_or_div: std::cell::Cell::new(false),
        }
    }

    /// Whether the formulas encoded so far hold non-linear integer arithmetic or integer
    /// division: a product of two non-constants, or a `div` or `mod` (by a constant too). Z3's
    /// default solver preprocesses these (its tactic decides `x * x == 2`, and rewrites `mod`
    /// by constants), where the `QF_AUFLIA` kernel alone can spend its whole resource limit.
    pub(super) fn nonlinear_or_div(&self) -> bool {
        self.nonlinear_or_div.get()
    }

    /// Notes a non-linear term or an integer division (see [`Encoder::nonlinear_or_div`]).
    fn note_nonlinear_or_div(&self) {
        self.nonlinear_or_div.set(true);
    }

    fn bv(&self) -> bool {
        self.sem.bitvector
    }

    fn ptr_repr(&self) -> Repr {
        Repr {
            width: match self.sem.data_model {
                DataModel::Ilp32 => 32,
                DataModel::Lp64 => 64,
            },
            signed: false,
            is_bool: false,
        }
    }

    /// The representation of a value of this type (arrays and functions decay to pointers).
    pub(super) fn repr(&self, ty: &CType) -> Option<Repr> {
        match ty {
            CType::Int(k) => Some(Repr {
                width: k.width(self.sem.data_model),
                signed: k.is_signed(),
                is_bool: *k == IntKind::Bool,
            }),
            CType::Pointer(_) | CType::Array(..) | CType::Func(_) => Some(self.ptr_repr()),
            _ => None,
        }
    }

    /// The representation used for values of a type the encoding does not model.
    fn repr_or_opaque(&self, ty: &CType) -> Repr {
        self.repr(ty).unwrap_or(Repr {
            width: self.ptr_repr().width,
            signed: true,
            is_bool: false,
        })
    }

    fn sort(&self, r: Repr) -> Sort {
        if self.bv() {
            Sort::bitvector(r.width)
        } else {
            Sort::int()
        }
    }

    /// All facts of the query (call after encoding every formula). Every consumer asserts them
    /// all: the encoding of reductions without `mod` (`reduce_in`) is exact only in states that
    /// satisfy the range facts.
    pub(super) fn finish(mut self) -> Vec<Bool> {
        // Addresses are non-null and pairwise distinct.
        let addrs: Vec<Num> = self.addrs.values().cloned().collect();
        let pr = self.ptr_repr();
        let zero = self.constant(0, pr);
        for a in &addrs {
            let nz = self.eq(a, &zero).not();
            self.facts.push(nz);
        }
        if addrs.len() > 1 {
            let d = match &addrs[0] {
                Num::I(_) => {
                    let v: Vec<Int> = addrs.iter().map(int_of).collect();
                    Int::distinct(&v)
                }
                Num::B(_) => {
                    let v: Vec<BV> = addrs.iter().map(bv_of).collect();
                    BV::distinct(&v)
                }
            };
            self.facts.push(d);
        }
        // A scalar variable whose address occurs is its cell: mem_T(&x) == x.
        let links: Vec<(VarId, Num)> = self
            .addr_vars
            .iter()
            .map(|(v, a)| (*v, a.clone()))
            .collect();
        for (v, a) in links {
            let ty = self.prog.var(v).ty.clone();
            let key = self.prog.show_type(&ty);
            if self.mems.contains_key(&key) {
                let cell = self.load(&ty, &a);
                let val = self.var(v);
                let f = self.eq(&cell, &val);
                self.facts.push(f);
            }
        }
        self.facts
    }

    fn fresh_name(&mut self, what: &str) -> String {
        self.fresh += 1;
        format!("{what}!{}", self.fresh)
    }

    /// A named constant of a representation.
    fn named(&self, name: &str, r: Repr) -> Num {
        if self.bv() {
            Num::B(BV::new_const(name, r.width))
        } else {
            Num::I(Int::new_const(name))
        }
    }

    /// A fresh value of a type, within its range.
    fn fresh_value(&mut self, ty: &CType, what: &str) -> Num {
        let name = self.fresh_name(what);
        let r = self.repr_or_opaque(ty);
        let v = self.named(&name, r);
        if self.repr(ty).is_some() {
            self.range_fact(&v, r);
        }
        v
    }

    /// `lo <= v <= hi` (Int mode; bit-vectors are in range by construction).
    fn range_fact(&mut self, v: &Num, r: Repr) {
        if let Num::I(i) = v {
            let (lo, hi) = r.range();
            self.facts.push(i.ge(Int::from_i128(lo)));
            self.facts.push(i.le(Int::from_i128(hi)));
        }
    }

    fn constant(&self, v: i128, r: Repr) -> Num {
        let w = wrap_i128(v, r);
        if self.bv() {
            // The two's complement bits of `w` in `r.width` bits (width <= 64).
            Num::B(BV::from_u64(w as u64, r.width))
        } else {
            Num::I(Int::from_i128(w))
        }
    }

    fn eq(&self, a: &Num, b: &Num) -> Bool {
        match (a, b) {
            (Num::I(x), Num::I(y)) => x.eq(y),
            (Num::B(x), Num::B(y)) => x.eq(y),
            _ => unreachable!("mixed integer and bit-vector values"),
        }
    }

    fn ite(&self, c: &Bool, a: &Num, b: &Num) -> Num {
        match (a, b) {
            (Num::I(x), Num::I(y)) => Num::I(c.ite(x, y)),
            (Num::B(x), Num::B(y)) => Num::B(c.ite(x, y)),
            _ => unreachable!("mixed integer and bit-vector values"),
        }
    }

    fn bool_to_num(&self, b: &Bool, r: Repr) -> Num {
        let one = self.constant(1, r);
        let zero = self.constant(0, r);
        self.ite(b, &one, &zero)
    }

    fn is_zero(&self, v: &Num, r: Repr) -> Bool {
        let zero = self.constant(0, r);
        self.eq(v, &zero)
    }

    /// An uninterpreted function application (created on first use, by name).
    fn apply(&mut self, name: &str, args: &[(&Num, Repr)], result: Repr) -> Num {
        if self.opaque_fresh {
            let fresh = self.fresh_name("opaque");
            return self.named(&fresh, result);
        }
        if !self.funcs.contains_key(name) {
            let dom: Vec<Sort> = args.iter().map(|(_, r)| self.sort(*r)).collect();
            let dom_refs: Vec<&Sort> = dom.iter().collect();
            let f = FuncDecl::new(name, &dom_refs, &self.sort(result));
            self.funcs.insert(name.to_string(), f);
        }
        let f = &self.funcs[name];
        let asts: Vec<&dyn Ast> = args
            .iter()
            .map(|(a, _)| match a {
                Num::I(i) => i as &dyn Ast,
                Num::B(b) => b as &dyn Ast,
            })
            .collect();
        let d = f.apply(&asts);
        if self.bv() {
            Num::B(
                d.as_bv()
                    .expect("uninterpreted function has a bit-vector sort"),
            )
        } else {
            Num::I(
                d.as_int()
                    .expect("uninterpreted function has the integer sort"),
            )
        }
    }

    /// An uninterpreted operator of a type: a function of its operands, within the type's range.
    fn opaque_op(&mut self, op: &str, args: &[(&Num, Repr)], ty: &CType) -> Num {
        let r = self.repr_or_opaque(ty);
        let mut name = format!("op:{op}:{}", self.prog.show_type(ty));
        for (_, ar) in args {
            let _ = write!(name, ":{}{}", if ar.signed { 's' } else { 'u' }, ar.width);
        }
        let v = self.apply(&name, args, r);
        if self.repr(ty).is_some() {
            self.range_fact(&v, r);
        }
        v
    }

    // ---- conditions ------------------------------------------------------------------------

    /// The expression as a C condition (non-zero).
    pub(super) fn cond(&mut self, e: &Expr) -> Bool {
        match &e.kind {
            ExprKind::Binary(op, a, b) if op.is_comparison() => self.compare(*op, a, b),
            ExprKind::Binary(BinOp::LogAnd, a, b) => {
                let x = self.cond(a);
                let y = self.cond(b);
                Bool::and(&[x, y])
            }
            ExprKind::Binary(BinOp::LogOr, a, b) => {
                let x = self.cond(a);
                let y = self.cond(b);
                Bool::or(&[x, y])
            }
            ExprKind::Unary(UnOp::LogNot, a) => self.cond(a).not(),
            ExprKind::Cond(c, a, b) => {
                let c = self.cond(c);
                let x = self.cond(a);
                let y = self.cond(b);
                c.ite(&x, &y)
            }
            _ => match self.repr(&e.ty) {
                Some(r) => {
                    let v = self.value(e);
                    self.is_zero(&v, r).not()
                }
                None => {
                    let name = self.fresh_name("cond");
                    Bool::new_const(name)
                }
            },
        }
    }

    fn compare(&mut self, op: BinOp, a: &Expr, b: &Expr) -> Bool {
        let common = if a.ty.is_integer() && b.ty.is_integer() {
            usual_arithmetic(&a.ty, &b.ty, self.sem.data_model)
        } else if self.is_pointerish(&a.ty) || self.is_pointerish(&b.ty) {
            CType::Int(IntKind::ULong).ptr_to()
        } else {
            let name = self.fresh_name("cmp");
            return Bool::new_const(name);
        };
        if (!a.ty.is_integer() && !self.is_pointerish(&a.ty))
            || (!b.ty.is_integer() && !self.is_pointerish(&b.ty))
        {
            let name = self.fresh_name("cmp");
            return Bool::new_const(name);
        }
        let r = self.repr(&common).expect("comparison type is scalar");
        let x = self.value_as(a, &common);
        let y = self.value_as(b, &common);
        match (&x, &y) {
            (Num::I(x), Num::I(y)) => match op {
                BinOp::Lt => x.lt(y),
                BinOp::Le => x.le(y),
                BinOp::Gt => x.gt(y),
                BinOp::Ge => x.ge(y),
                BinOp::Eq => x.eq(y),
                BinOp::Ne => x.eq(y).not(),
                _ => unreachable!("not a comparison"),
            },
            (Num::B(x), Num::B(y)) => match (op, r.signed) {
                (BinOp::Lt, true) => x.bvslt(y),
                (BinOp::Lt, false) => x.bvult(y),
                (BinOp::Le, true) => x.bvsle(y),
                (BinOp::Le, false) => x.bvule(y),
                (BinOp::Gt, true) => x.bvsgt(y),
                (BinOp::Gt, false) => x.bvugt(y),
                (BinOp::Ge, true) => x.bvsge(y),
                (BinOp::Ge, false) => x.bvuge(y),
                (BinOp::Eq, _) => x.eq(y),
                (BinOp::Ne, _) => x.eq(y).not(),
                _ => unreachable!("not a comparison"),
            },
            _ => unreachable!("mixed integer and bit-vector values"),
        }
    }

    /// The value of an integer constant expression made of constants, casts and unary minus
    /// (enough to recognise masks, divisors and shift amounts), in its own type.
    fn const_value(&self, e: &Expr) -> Option<i128> {
        let r = self.repr(&e.ty).filter(|_| e.ty.is_integer())?;
        let v = match &e.kind {
            ExprKind::Const(v) => *v,
            ExprKind::Unary(UnOp::Neg, a) => -self.const_value(a)?,
            ExprKind::Cast(a) => self.const_value(a)?,
            _ => return None,
        };
        Some(wrap_i128(v, r))
    }

    fn is_pointerish(&self, ty: &CType) -> bool {
        matches!(ty, CType::Pointer(_) | CType::Array(..) | CType::Func(_))
    }

    // ---- values ----------------------------------------------------------------------------

    /// The value of `e` converted to type `to`.
    pub(super) fn value_as(&mut self, e: &Expr, to: &CType) -> Num {
        let v = self.value(e);
        if let (Num::I(i), Some(rf), Some(rt)) = (&v, self.repr(&e.ty), self.repr(to))
            && !rt.is_bool
            && !self.modular
            && rf.width > rt.width
            && let Some(span) = self.interval(e)
            && let Some(w) = reduce_in(i, span, rt)
        {
            return Num::I(w);
        }
        self.convert(v, &e.ty, to)
    }

    /// The values the integer-mode encoding of `e` can take in a state that satisfies the
    /// range facts, when they are few enough to say: a leaf of an integer type is within its
    /// type's range, an unsigned operation is reduced into it, a signed `+ - *` spans what its
    /// operands span (integer mode computes it over the integers).
    fn interval(&self, e: &Expr) -> Option<(i128, i128)> {
        let CType::Int(_) = e.ty else {
            return None;
        };
        let r = self.repr(&e.ty)?;
        if r.is_bool {
            return Some((0, 1));
        }
        match &e.kind {
            ExprKind::Const(v) => {
                let w = wrap_i128(*v, r);
                Some((w, w))
            }
            ExprKind::Var(_) | ExprKind::Deref(_) | ExprKind::Field(..) | ExprKind::Index(..) => {
                Some(r.range())
            }
            ExprKind::Cast(a) => self.converted_interval(a, r),
            ExprKind::Binary(op, _, _) if op.is_comparison() => Some((0, 1)),
            ExprKind::Binary(BinOp::Add | BinOp::Sub | BinOp::Mul, _, _) if !r.signed => {
                Some(r.range())
            }
            ExprKind::Binary(op @ (BinOp::Add | BinOp::Sub | BinOp::Mul), a, b) => {
                self.arith_interval(*op, a, b, &e.ty)
            }
            _ => None,
        }
    }

    /// The values of `a` converted to a type represented by `rt` (as `convert` does; `rt` is
    /// not `_Bool`).
    fn converted_interval(&self, a: &Expr, rt: Repr) -> Option<(i128, i128)> {
        let rf = self.repr(&a.ty)?;
        let ((flo, fhi), (tlo, thi)) = (rf.range(), rt.range());
        if rf.is_bool || (tlo <= flo && fhi <= thi) {
            return self.interval(a);
        }
        // Reduced into the target's range, except a signed value out of its own range
        // converted without `mod` (see `convert`).
        let (lo, hi) = self.interval(a)?;
        (flo <= lo && hi <= fhi).then_some((tlo, thi))
    }

    /// The values of `a op b` computed over the integers on operands converted to `ty`, before
    /// any reduction into `ty`'s range.
    fn arith_interval(&self, op: BinOp, a: &Expr, b: &Expr, ty: &CType) -> Option<(i128, i128)> {
        let r = self.repr(ty)?;
        let as_ty = |x: &Expr| {
            if x.ty == *ty {
                self.interval(x)
            } else {
                self.converted_interval(x, r)
            }
        };
        let ((al, ah), (bl, bh)) = (as_ty(a)?, as_ty(b)?);
        match op {
            BinOp::Add => Some((al.checked_add(bl)?, ah.checked_add(bh)?)),
            BinOp::Sub => Some((al.checked_sub(bh)?, ah.checked_sub(bl)?)),
            BinOp::Mul => {
                let ps = [
                    al.checked_mul(bl)?,
                    al.checked_mul(bh)?,
                    ah.checked_mul(bl)?,
                    ah.checked_mul(bh)?,
                ];
                Some((*ps.iter().min()?, *ps.iter().max()?))
            }
            _ => None,
        }
    }

    /// Converts a value of type `from` to type `to` (C11 6.3.1.3, gcc's wrap-around for the
    /// implementation-defined case).
    fn convert(&mut self, v: Num, from: &CType, to: &CType) -> Num {
        if from == to {
            return v;
        }
        let (Some(rf), Some(rt)) = (self.repr(from), self.repr(to)) else {
            return self.fresh_value(to, "conv");
        };
        if rt.is_bool {
            let z = self.is_zero(&v, rf);
            return self.bool_to_num(&z.not(), rt);
        }
        match v {
            Num::I(i) => {
                let (flo, fhi) = rf.range();
                let (tlo, thi) = rt.range();
                if tlo <= flo && fhi <= thi {
                    return Num::I(i);
                }
                if rf.signed && !rt.signed && rf.width <= rt.width && !self.modular {
                    let neg = i.lt(Int::from_i128(0));
                    return Num::I(neg.ite(&(&i + pow2(rt.width)), &i));
                }
                self.note_nonlinear_or_div();
                let m = i.modulo(pow2(rt.width));
                if rt.signed {
                    let big = m.ge(pow2(rt.width - 1));
                    Num::I(big.ite(&(&m - pow2(rt.width)), &m))
                } else {
                    Num::I(m)
                }
            }
            Num::B(b) => {
                if rt.width > rf.width {
                    let extra = rt.width - rf.width;
                    Num::B(if rf.signed {
                        b.sign_ext(extra)
                    } else {
                        b.zero_ext(extra)
                    })
                } else if rt.width < rf.width {
                    Num::B(b.extract(rt.width - 1, 0))
                } else {
                    Num::B(b)
                }
            }
        }
    }

    /// Wraps a mathematical result into an unsigned type (Int mode).
    fn wrap_unsigned(&self, v: Int, r: Repr) -> Int {
        if r.signed {
            v
        } else {
            self.note_nonlinear_or_div();
            v.modulo(pow2(r.width))
        }
    }

    fn var(&mut self, v: VarId) -> Num {
        if let Some(n) = self.vars.get(&v) {
            return n.clone();
        }
        let info = self.prog.var(v);
        let r = self.repr_or_opaque(&info.ty);
        let n = self.named(&info.name, r);
        if let Some(r) = self.repr(&info.ty) {
            self.range_fact(&n, r);
        }
        self.vars.insert(v, n.clone());
        n
    }

    /// The address constant of a named object (variable, function, string literal).
    fn object_addr(&mut self, name: String) -> Num {
        if let Some(a) = self.addrs.get(&name) {
            return a.clone();
        }
        let pr = self.ptr_repr();
        let a = self.named(&name, pr);
        self.range_fact(&a, pr);
        self.addrs.insert(name, a.clone());
        a
    }

    /// The address of an lvalue (or of a function designator / string literal).
    fn address(&mut self, e: &Expr) -> Num {
        let pr = self.ptr_repr();
        match &e.kind {
            ExprKind::Var(v) => {
                let a = self.object_addr(format!("&{}", self.prog.var(*v).name));
                self.addr_vars.insert(*v, a.clone());
                a
            }
            ExprKind::Func(n) => self.object_addr(format!("&fn {n}")),
            ExprKind::Str(t) => self.object_addr(format!("&str {t:?}")),
            ExprKind::Deref(p) => self.value_as_pointer(p),
            ExprKind::Field(b, f) => {
                let base = self.address(b);
                let name = format!("field:{f}");
                let a = self.apply(&name, &[(&base, pr)], pr);
                self.range_fact(&a, pr);
                a
            }
            ExprKind::Index(a, i) => {
                let base = self.value_as_pointer(a);
                self.offset(base, i, false)
            }
            ExprKind::Cond(c, a, b) => {
                let c = self.cond(c);
                let x = self.address(a);
                let y = self.address(b);
                self.ite(&c, &x, &y)
            }
            _ => self.fresh_value(&CType::Void.ptr_to(), "addr"),
        }
    }

    /// A pointer-valued expression (arrays and functions decay to their address).
    fn value_as_pointer(&mut self, e: &Expr) -> Num {
        let v = self.value(e);
        let ptr = CType::Void.ptr_to();
        if self.is_pointerish(&e.ty) {
            v
        } else {
            self.convert(v, &e.ty, &ptr)
        }
    }

    /// `base + i` (or `base - i`) in element units.
    fn offset(&mut self, base: Num, i: &Expr, subtract: bool) -> Num {
        let pr = self.ptr_repr();
        let idx = self.value(i);
        match (base, idx) {
            (Num::I(b), Num::I(x)) => Num::I(if subtract { b - x } else { b + x }),
            (Num::B(b), Num::B(x)) => {
                let ri = self.repr_or_opaque(&i.ty);
                let x = if ri.width < pr.width {
                    if ri.signed {
                        x.sign_ext(pr.width - ri.width)
                    } else {
                        x.zero_ext(pr.width - ri.width)
                    }
                } else if ri.width > pr.width {
                    x.extract(pr.width - 1, 0)
                } else {
                    x
                };
                Num::B(if subtract { b.bvsub(&x) } else { b.bvadd(&x) })
            }
            _ => unreachable!("mixed integer and bit-vector values"),
        }
    }

    /// The cell of a scalar type at an address: `mem_T(addr)`.
    fn load(&mut self, ty: &CType, addr: &Num) -> Num {
        let key = self.prog.show_type(ty);
        self.mems.entry(key.clone()).or_insert_with(|| ty.clone());
        let r = self.repr_or_opaque(ty);
        let pr = self.ptr_repr();
        let v = self.apply(&format!("mem:{key}"), &[(addr, pr)], r);
        self.range_fact(&v, r);
        v
    }

    /// The value of an expression of its own type.
    fn value(&mut self, e: &Expr) -> Num {
        match &e.kind {
            ExprKind::Const(v) => match self.repr(&e.ty) {
                Some(r) => self.constant(*v, r),
                None => self.fresh_value(&e.ty, "const"),
            },
            ExprKind::Var(v) => {
                if matches!(e.ty, CType::Array(..) | CType::Func(_)) {
                    self.address(e)
                } else {
                    self.var(*v)
                }
            }
            // The `\result` of a return predicate read as it stands (constrain's atoms): a
            // value of its type, the same one wherever it occurs in the query (by type: in
            // bit-vector mode the width must be the type's).
            ExprKind::Func(_) if crate::pred::is_result(e) && e.ty.is_integer() => {
                let r = self.repr_or_opaque(&e.ty);
                let v = self.named(
                    &format!("\\result {}{}", if r.signed { 'i' } else { 'u' }, r.width),
                    r,
                );
                self.range_fact(&v, r);
                v
            }
            ExprKind::Func(_) | ExprKind::Str(_) => self.address(e),
            ExprKind::Deref(p) if matches!(e.ty, CType::Func(_)) => self.value_as_pointer(p),
            ExprKind::Deref(_) | ExprKind::Field(..) | ExprKind::Index(..) => match &e.ty {
                CType::Array(..) | CType::Func(_) => self.address(e),
                CType::Int(_) | CType::Pointer(_) => {
                    let a = self.address(e);
                    self.load(&e.ty, &a)
                }
                _ => self.fresh_value(&e.ty, "cell"),
            },
            ExprKind::AddrOf(a) => self.address(a),
            ExprKind::Cast(a) => {
                if self.repr(&e.ty).is_none() {
                    return self.fresh_value(&e.ty, "cast");
                }
                self.value_as(a, &e.ty)
            }
            ExprKind::Cond(c, a, b) => {
                if self.repr(&e.ty).is_none() {
                    return self.fresh_value(&e.ty, "cond");
                }
                let c = self.cond(c);
                let x = self.value_as(a, &e.ty);
                let y = self.value_as(b, &e.ty);
                self.ite(&c, &x, &y)
            }
            ExprKind::Unary(op, a) => self.unary(*op, a, &e.ty),
            ExprKind::Binary(op, a, b) => self.binary(*op, a, b, &e.ty),
        }
    }

    fn unary(&mut self, op: UnOp, a: &Expr, ty: &CType) -> Num {
        let Some(r) = self.repr(ty) else {
            return self.fresh_value(ty, "unop");
        };
        if op == UnOp::LogNot {
            let c = self.cond(a);
            return self.bool_to_num(&c.not(), r);
        }
        if self.repr(&a.ty).is_none() {
            return self.fresh_value(ty, "unop");
        }
        let v = self.value_as(a, ty);
        match (op, v) {
            (UnOp::Neg, Num::I(i)) => Num::I(self.wrap_unsigned(i.unary_minus(), r)),
            (UnOp::Neg, Num::B(b)) => Num::B(b.bvneg()),
            (UnOp::BitNot, Num::I(i)) => Num::I(if r.signed {
                i.unary_minus() - Int::from_i64(1)
            } else {
                Int::from_i128((1i128 << r.width) - 1) - i
            }),
            (UnOp::BitNot, Num::B(b)) => Num::B(b.bvnot()),
            (UnOp::LogNot, _) => unreachable!("handled above"),
        }
    }

    fn binary(&mut self, op: BinOp, a: &Expr, b: &Expr, ty: &CType) -> Num {
        if op.is_comparison() || matches!(op, BinOp::LogAnd | BinOp::LogOr) {
            let Some(r) = self.repr(ty) else {
                return self.fresh_value(ty, "binop");
            };
            let c = match op {
                BinOp::LogAnd => Bool::and(&[self.cond(a), self.cond(b)]),
                BinOp::LogOr => Bool::or(&[self.cond(a), self.cond(b)]),
                _ => self.compare(op, a, b),
            };
            return self.bool_to_num(&c, r);
        }
        // Pointer arithmetic (element units).
        if matches!(op, BinOp::Add | BinOp::Sub) && self.is_pointerish(ty) {
            let (p, i, subtract) = if self.is_pointerish(&a.ty) {
                (a, b, op == BinOp::Sub)
            } else {
                (b, a, false)
            };
            if !i.ty.is_integer() {
                return self.fresh_value(ty, "ptrarith");
            }
            let base = self.value_as_pointer(p);
            return self.offset(base, i, subtract);
        }
        if op == BinOp::Sub && self.is_pointerish(&a.ty) && self.is_pointerish(&b.ty) {
            let x = self.value_as_pointer(a);
            let y = self.value_as_pointer(b);
            let d = match (x, y) {
                (Num::I(x), Num::I(y)) => return Num::I(x - y),
                (Num::B(x), Num::B(y)) => Num::B(x.bvsub(&y)),
                _ => unreachable!("mixed integer and bit-vector values"),
            };
            // Bit-vector mode: the difference as a signed value of the result type.
            let signed_ptr = CType::Int(match self.sem.data_model {
                DataModel::Ilp32 => IntKind::Int,
                DataModel::Lp64 => IntKind::Long,
            });
            return self.convert(d, &signed_ptr, ty);
        }
        let (Some(r), Some(_), Some(_)) = (self.repr(ty), self.repr(&a.ty), self.repr(&b.ty))
        else {
            return self.fresh_value(ty, "binop");
        };
        if !ty.is_integer() {
            return self.fresh_value(ty, "binop");
        }
        if matches!(op, BinOp::Shl | BinOp::Shr) {
            return self.shift(op, a, b, ty, r);
        }
        let x = self.value_as(a, ty);
        let y = self.value_as(b, ty);
        let bconst = self.const_value(b).map(|v| wrap_i128(v, r));
        let aconst = self.const_value(a).map(|v| wrap_i128(v, r));
        match (x, y) {
            (Num::I(x), Num::I(y)) => {
                let span = if r.signed || self.modular {
                    None
                } else {
                    self.arith_interval(op, a, b, ty)
                };
                self.binary_int(op, x, y, (aconst, bconst), span, ty, r)
            }
            (Num::B(x), Num::B(y)) => self.binary_bv(op, x, y, bconst, ty, r),
            _ => unreachable!("mixed integer and bit-vector values"),
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn binary_int(
        &mut self,
        op: BinOp,
        x: Int,
        y: Int,
        (xc, yc): (Option<i128>, Option<i128>),
        span: Option<(i128, i128)>,
        ty: &CType,
        r: Repr,
    ) -> Num {
        // An unsigned `+ - *` whose operands' ranges are known is reduced without `mod` (see
        // `reduce_in`): `x + 1` is `x + 1 >= 2^w ? x + 1 - 2^w : x + 1`.
        let wrap = |s: &Self, v: Int| match span.and_then(|sp| reduce_in(&v, sp, r)) {
            Some(w) => w,
            None => s.wrap_unsigned(v, r),
        };
        if matches!(op, BinOp::Div | BinOp::Rem)
            || (op == BinOp::Mul && xc.is_none() && yc.is_none())
        {
            self.note_nonlinear_or_div();
        }
        match op {
            BinOp::Add => Num::I(wrap(self, x + y)),
            BinOp::Sub => Num::I(wrap(self, x - y)),
            BinOp::Mul => Num::I(wrap(self, x * y)),
            BinOp::Div | BinOp::Rem => {
                let q = if r.signed {
                    let zero = Int::from_i64(0);
                    let ax = x.ge(&zero).ite(&x, &x.unary_minus());
                    // A constant divisor folded: `n % 4` stays linear in `n`, which the
                    // quantifier elimination of `Prover::project` needs.
                    let (ay, same) = match yc {
                        Some(c) => (
                            Int::from_i128(c.abs()),
                            if c >= 0 { x.ge(&zero) } else { x.lt(&zero) },
                        ),
                        None => (
                            y.ge(&zero).ite(&y, &y.unary_minus()),
                            x.ge(&zero).iff(y.ge(&zero)),
                        ),
                    };
                    let q0 = ax.div(&ay);
                    same.ite(&q0, &q0.unary_minus())
                } else {
                    x.div(&y)
                };
                let res = if op == BinOp::Div { q } else { &x - &y * &q };
                if yc.is_some_and(|c| c != 0) {
                    return Num::I(res);
                }
                // Division by zero: undefined, a functional value of the result type.
                let name = if op == BinOp::Div { "/0" } else { "%0" };
                let xn = Num::I(x);
                let z = self.opaque_op(name, &[(&xn, r)], ty);
                Num::I(y.eq(Int::from_i64(0)).ite(&int_of(&z), &res))
            }
            BinOp::BitAnd | BinOp::BitOr | BinOp::BitXor => {
                // With a constant operand: exact, by the runs of one bits of the constant.
                let (v, c) = match (xc, yc) {
                    (_, Some(c)) => (x.clone(), c),
                    (Some(c), None) => (y.clone(), c),
                    _ => {
                        let xn = Num::I(x);
                        let yn = Num::I(y);
                        return self.opaque_op(op.symbol(), &[(&xn, r), (&yn, r)], ty);
                    }
                };
                self.note_nonlinear_or_div();
                let and = and_const(&v, c, r);
                let c = Int::from_i128(c);
                Num::I(match op {
                    BinOp::BitAnd => and,
                    // a | c == a + c - (a & c), a ^ c == a + c - 2 (a & c): identities of
                    // two's complement integers, so of every value of the type.
                    BinOp::BitOr => &v + &c - and,
                    _ => &v + &c - and * Int::from_i64(2),
                })
            }
            _ => unreachable!("handled by the caller"),
        }
    }

    fn binary_bv(&mut self, op: BinOp, x: BV, y: BV, yc: Option<i128>, ty: &CType, r: Repr) -> Num {
        match op {
            BinOp::Add => Num::B(x.bvadd(&y)),
            BinOp::Sub => Num::B(x.bvsub(&y)),
            BinOp::Mul => Num::B(x.bvmul(&y)),
            BinOp::BitAnd => Num::B(x.bvand(&y)),
            BinOp::BitOr => Num::B(x.bvor(&y)),
            BinOp::BitXor => Num::B(x.bvxor(&y)),
            BinOp::Div | BinOp::Rem => {
                let res = match (op, r.signed) {
                    (BinOp::Div, true) => x.bvsdiv(&y),
                    (BinOp::Div, false) => x.bvudiv(&y),
                    (_, true) => x.bvsrem(&y),
                    (_, false) => x.bvurem(&y),
                };
                if yc.is_some_and(|c| c != 0) {
                    return Num::B(res);
                }
                let name = if op == BinOp::Div { "/0" } else { "%0" };
                let xn = Num::B(x);
                let z = self.opaque_op(name, &[(&xn, r)], ty);
                let zero = BV::from_u64(0, r.width);
                Num::B(y.eq(&zero).ite(&bv_of(&z), &res))
            }
            _ => unreachable!("handled by the caller"),
        }
    }

    fn shift(&mut self, op: BinOp, a: &Expr, b: &Expr, ty: &CType, r: Repr) -> Num {
        let x = self.value_as(a, ty);
        let Some(rb) = self.repr(&b.ty) else {
            return self.fresh_value(ty, "shift");
        };
        let bpromoted = b.ty.promoted();
        let y = self.value_as(b, &bpromoted);
        let rbp = self.repr(&bpromoted).unwrap_or(rb);
        let name = op.symbol();
        match (x, y) {
            (Num::I(x), y) => {
                if let Some(c) = self
                    .const_value(b)
                    .filter(|c| (0..r.width as i128).contains(c))
                {
                    let k = pow2(c as u32);
                    self.note_nonlinear_or_div();
                    return Num::I(match op {
                        BinOp::Shl => self.wrap_unsigned(x * k, r),
                        _ => x.div(&k),
                    });
                }
                let xn = Num::I(x);
                self.opaque_op(name, &[(&xn, r), (&y, rbp)], ty)
            }
            (Num::B(x), Num::B(yb)) => {
                // The amount, in the width of the shifted value.
                let amount = if rbp.width < r.width {
                    yb.zero_ext(r.width - rbp.width)
                } else if rbp.width > r.width {
                    yb.extract(r.width - 1, 0)
                } else {
                    yb.clone()
                };
                let shifted = match (op, r.signed) {
                    (BinOp::Shl, _) => x.bvshl(&amount),
                    (_, true) => x.bvashr(&amount),
                    (_, false) => x.bvlshr(&amount),
                };
                // Amount outside [0, w): undefined, a functional value.
                let in_range = if rbp.signed {
                    Bool::and(&[
                        yb.bvsge(BV::from_u64(0, rbp.width)),
                        yb.bvslt(BV::from_u64(r.width as u64, rbp.width)),
                    ])
                } else {
                    yb.bvult(BV::from_u64(r.width as u64, rbp.width))
                };
                let xn = Num::B(x);
                let yn = Num::B(yb);
                let undef = self.opaque_op(name, &[(&xn, r), (&yn, rbp)], ty);
                Num::B(in_range.ite(&shifted, &bv_of(&undef)))
            }
            _ => unreachable!("mixed integer and bit-vector values"),
        }
    }
}

/// `v & c` for a constant `c` of an integer type (Int mode), exactly: the sum, over each run
/// `[lo, lo + len)` of one bits of `c` (in the type's width), of `((v div 2^lo) mod 2^len) *
/// 2^lo`; `div` and `mod` by powers of two read the two's complement bits of any integer, a
/// negative one included. A short run not at bit 0 is split into single bits, `(v div 2^i)
/// mod 2`, which every mask sharing the bit shares: Z3 then relates `v & 4` and `v & 6`
/// linearly, where two different runs would leave it a hard integer division problem. For a
/// signed type with the sign bit of `c` set, the sum (the unsigned value of the bits) is read
/// back as signed.
fn and_const(v: &Int, c: i128, r: Repr) -> Int {
    /// Runs up to this long, not at bit 0, are split into bits.
    const SPLIT: u32 = 8;
    let bits = c.rem_euclid(1i128 << r.width);
    let mut terms: Vec<Int> = Vec::new();
    let field = |lo: u32, len: u32| {
        let shifted = if lo == 0 { v.clone() } else { v.div(pow2(lo)) };
        let f = shifted.modulo(pow2(len));
        if lo == 0 { f } else { f * pow2(lo) }
    };
    let mut lo = 0;
    while lo < r.width {
        if bits >> lo & 1 == 0 {
            lo += 1;
            continue;
        }
        let mut hi = lo;
        while hi < r.width && bits >> hi & 1 == 1 {
            hi += 1;
        }
        if lo > 0 && hi - lo <= SPLIT {
            terms.extend((lo..hi).map(|i| field(i, 1)));
        } else {
            terms.push(field(lo, hi - lo));
        }
        lo = hi;
    }
    let sum = match terms.len() {
        0 => return Int::from_i64(0),
        1 => terms.pop().expect("one term"),
        _ => Int::add(&terms),
    };
    if r.signed && bits >> (r.width - 1) & 1 == 1 {
        let top = pow2(r.width - 1);
        sum.ge(&top).ite(&(&sum - pow2(r.width)), &sum)
    } else {
        sum
    }
}

/// `v` wrapped into the range of a representation (two's complement).
fn wrap_i128(v: i128, r: Repr) -> i128 {
    let (lo, hi) = r.range();
    if (lo..=hi).contains(&v) {
        return v;
    }
    let m = 1i128 << r.width;
    let u = v.rem_euclid(m);
    if r.signed && u > hi { u - m } else { u }
}

/// `i` reduced into `rt`'s range as `convert` does with `mod`, written without `mod` when `i`
/// lies in `span` and the span meets at most two multiples of 2^w: a difference, or a choice of
/// two (the same value in every state where `i` is in `span`, and linear for Z3).
fn reduce_in(i: &Int, (lo, hi): (i128, i128), rt: Repr) -> Option<Int> {
    let m = 1i128 << rt.width;
    let (k0, k1) = (lo.div_euclid(m), hi.div_euclid(m));
    if k1 - k0 > 1 {
        return None;
    }
    let low = i - Int::from_i128(k0 * m);
    let u = if k1 == k0 {
        low
    } else {
        i.ge(Int::from_i128(k1 * m))
            .ite(&(i - Int::from_i128(k1 * m)), &low)
    };
    Some(if rt.signed {
        let half = Int::from_i128(m / 2);
        u.ge(&half).ite(&(&u - Int::from_i128(m)), &u)
    } else {
        u
    })
}
