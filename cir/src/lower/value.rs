//! The typing and construction of side-effect-free expressions, shared by the lowering of C
//! and the predicate reader (the `pred` module), so that a predicate means what the same text
//! means in the program: the type of an integer constant, the arithmetic unary operators, `*`,
//! `&`, subscripts and member access. Each caller reports a failure at its own position and in
//! its own words.

use crate::ir::{Expr, ExprKind, UnOp};
use crate::types::{CType, DataModel, IntKind};

/// The type of the integer constant `v` (C11 6.4.4.1): the first type whose range holds it
/// among the candidates for its suffix (`longs`: 0, 1 or 2 `l`s; `unsigned`: a `u`) and its
/// base (`decimal`, or octal and hexadecimal, which may also take unsigned types); `None` when
/// none holds it.
pub(crate) fn int_constant_type(
    v: i128,
    longs: u8,
    unsigned: bool,
    decimal: bool,
    dm: DataModel,
) -> Option<CType> {
    use IntKind::*;
    let cands: &[IntKind] = match (longs, unsigned, decimal) {
        (0, false, true) => &[Int, Long, LongLong],
        (0, false, false) => &[Int, UInt, Long, ULong, LongLong, ULongLong],
        (0, true, _) => &[UInt, ULong, ULongLong],
        (1, false, true) => &[Long, LongLong],
        (1, false, false) => &[Long, ULong, LongLong, ULongLong],
        (1, true, _) => &[ULong, ULongLong],
        (_, false, true) => &[LongLong],
        (_, false, false) => &[LongLong, ULongLong],
        (_, true, _) => &[ULongLong],
    };
    cands
        .iter()
        .find(|k| v <= k.range(dm).1)
        .map(|k| CType::Int(*k))
}

/// Unary `-` or `~` of `v` (type: the promoted type of `v`); `-` of a constant is the negated
/// constant.
pub(crate) fn arith_unary(op: UnOp, v: Expr) -> Expr {
    let ty = v.ty.promoted();
    if let (ExprKind::Const(c), UnOp::Neg) = (&v.kind, op) {
        return Expr::int(-c, ty);
    }
    Expr {
        kind: ExprKind::Unary(op, Box::new(v)),
        ty,
    }
}

/// Unary `+` of `v`: `v` with its promoted type.
pub(crate) fn unary_plus(v: Expr) -> Expr {
    let ty = v.ty.promoted();
    Expr { ty, ..v }
}

/// `!v` (type `int`).
pub(crate) fn log_not(v: Expr) -> Expr {
    Expr {
        kind: ExprKind::Unary(UnOp::LogNot, Box::new(v)),
        ty: CType::INT,
    }
}

/// `*v` for a pointer or array `v`; `None` otherwise.
pub(crate) fn deref(v: Expr) -> Option<Expr> {
    let t = v.ty.pointee()?.clone();
    Some(Expr {
        kind: ExprKind::Deref(Box::new(v)),
        ty: t,
    })
}

/// `&v`: `p` for `v = *p`, the address of an lvalue or a function; `None` otherwise.
pub(crate) fn address_of(v: Expr) -> Option<Expr> {
    if let ExprKind::Deref(p) = v.kind {
        return Some(*p);
    }
    if !v.is_lvalue() && !matches!(v.kind, ExprKind::Func(_)) {
        return None;
    }
    let ty = v.ty.clone().ptr_to();
    Some(Expr {
        kind: ExprKind::AddrOf(Box::new(v)),
        ty,
    })
}

/// `a[i]` (also written `i[a]`: the operands are swapped when `a` is the integer); `None` when
/// the array operand is neither an array nor a pointer.
pub(crate) fn index(a: Expr, i: Expr) -> Option<Expr> {
    let (a, i) = if a.ty.is_integer() { (i, a) } else { (a, i) };
    let t = a.ty.pointee()?.clone();
    Some(Expr {
        kind: ExprKind::Index(Box::new(a), Box::new(i)),
        ty: t,
    })
}

/// Why a member access failed.
pub(crate) enum MemberError {
    /// The base is not a structure or union.
    NotStruct,
    /// The structure has no member of that name.
    NoMember,
}

/// `base.field`, with the member's type from `structs` (the program's structures).
pub(crate) fn member(
    structs: &[crate::ir::StructDef],
    base: Expr,
    field: &str,
) -> Result<Expr, MemberError> {
    let CType::Struct(id) = &base.ty else {
        return Err(MemberError::NotStruct);
    };
    let fty = structs[id.0 as usize]
        .fields
        .as_ref()
        .and_then(|fs| fs.iter().find(|(n, _)| n == field))
        .map(|(_, t)| t.clone())
        .ok_or(MemberError::NoMember)?;
    Ok(Expr {
        kind: ExprKind::Field(Box::new(base), field.to_string()),
        ty: fty,
    })
}
