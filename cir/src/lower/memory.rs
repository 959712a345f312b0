//! Calls the memory model understands without a body: the type of what an allocator returns,
//! and `memset`/`memcpy`/`memmove` of whole objects as assignments (`docs/c-semantics.md`,
//! "Memory").
//!
//! - `malloc(sizeof(T))`, `calloc(1, sizeof(T))`, `alloca(sizeof e)`: the result temporary has
//!   type `T *`, so the object is of type `T` from its allocation (its contents arbitrary, or
//!   zero for `calloc`); any other size leaves it `void *` (the object is typed by its first
//!   access).
//! - `memset(d, c, n)` where `d` designates a whole object of `n` bytes (`&x`, an array, or a
//!   `T *` with `sizeof(T) == n`): with `c == 0` every scalar of the object is assigned zero,
//!   field by field (a union in it is havocked; an object of more than [`MAX_LEAVES`] scalars
//!   is havocked whole); with another `c`, an object made only of `char`s gets `c` in each,
//!   anything else is havocked.
//! - `memcpy(d, s, n)` and `memmove(d, s, n)` where `d` designates a whole object of type `T`
//!   and `n` bytes: the assignment `*d := *(T *)s` (a structure assignment, which every tool
//!   treats field by field).
//!
//! Other calls of these functions stay calls of external functions. A program that defines
//! one of them keeps its definition.

use lang_c::ast::{CallExpression, Expression};
use lang_c::span::{Node, Span};

use super::{Lowerer, R};
use crate::ir::{EdgeKind, Expr, ExprKind};
use crate::types::{CType, IntKind};

/// Most scalars a `memset` assigns one by one before it havocs the object instead.
pub(super) const MAX_LEAVES: usize = 256;

/// The memory functions lowered here.
pub(super) const MEMORY_FNS: &[&str] = &[
    "memset",
    "__builtin_memset",
    "memcpy",
    "__builtin_memcpy",
    "memmove",
    "__builtin_memmove",
];

fn strip_ast_casts(e: &Node<Expression>) -> &Node<Expression> {
    match &e.node {
        Expression::Cast(c) => strip_ast_casts(&c.node.expression),
        _ => e,
    }
}

impl Lowerer<'_> {
    /// The type of the object an allocator call allocates, from its size argument
    /// (`sizeof(T)`, `sizeof e`; for `calloc`, a count of 1 and such a size); `None` when the
    /// size says nothing of a type.
    pub(super) fn allocated_type(
        &mut self,
        name: &str,
        args: &[Node<Expression>],
    ) -> Option<CType> {
        let size = match (name, args) {
            ("calloc", [n, s]) => {
                if self.try_const_eval(n)? != 1 {
                    return None;
                }
                s
            }
            ("calloc", _) => return None,
            (_, [s, ..]) => s,
            _ => return None,
        };
        let t = match &strip_ast_casts(size).node {
            Expression::SizeOfTy(s) => self.type_name(&s.node.0.node, &s.node.0.span).ok()?,
            Expression::SizeOfVal(s) => self.type_of_expr(&s.node.0).ok()?,
            _ => return None,
        };
        let complete = self.layout(&t).is_some_and(|(n, _)| n > 0);
        (complete && !matches!(t, CType::Void | CType::Func(_))).then_some(t)
    }

    /// The whole object of `n` bytes the pointer `dst` designates: `x` for `&x`, an array
    /// that decayed, `*p` for a `T *p` with `sizeof(T) == n`.
    fn whole_object(&self, dst: &Expr, n: i128) -> Option<Expr> {
        let size = |t: &CType| self.layout(t).map(|(s, _)| i128::from(s));
        let q = dst.without_casts();
        let obj = match &q.kind {
            ExprKind::AddrOf(l) => (**l).clone(),
            _ if q.is_lvalue() && matches!(q.ty, CType::Array(..)) => q.clone(),
            _ => match &q.ty {
                CType::Pointer(t) if !matches!(**t, CType::Void | CType::Func(_)) => Expr {
                    kind: ExprKind::Deref(Box::new(q.clone())),
                    ty: (**t).clone(),
                },
                _ => return None,
            },
        };
        (size(&obj.ty) == Some(n) && n > 0).then_some(obj)
    }

    /// `memset`, `memcpy` or `memmove` of a whole object as assignments (module doc);
    /// `Ok(None)` when the call is not of that form and stays an external call. `Ok(Some(v))`:
    /// the call is lowered and `v` is its value (the destination).
    pub(super) fn memory_call(
        &mut self,
        name: &str,
        c: &CallExpression,
        span: &Span,
    ) -> R<Option<Expr>> {
        let [d, s, n] = c.arguments.as_slice() else {
            return Ok(None);
        };
        let Some(len) = self.try_const_eval(n) else {
            return Ok(None);
        };
        let set = name.ends_with("memset");
        let value = if set { self.try_const_eval(s) } else { None };
        if set && value.is_none() {
            return Ok(None);
        }
        let dv = self.expr(d)?;
        let Some(obj) = self.whole_object(&dv, len) else {
            return self.external_memory_call(name, dv, s, n, span);
        };
        if set {
            let c = value.unwrap_or(0);
            self.memset_object(&obj, c, span);
        } else {
            let sv = self.expr(s)?;
            let q = sv.without_casts().clone();
            let rhs = match &q.kind {
                ExprKind::AddrOf(l) if l.ty == obj.ty => (**l).clone(),
                _ if q.ty == obj.ty.clone().ptr_to() => Expr {
                    kind: ExprKind::Deref(Box::new(q)),
                    ty: obj.ty.clone(),
                },
                _ => Expr {
                    kind: ExprKind::Deref(Box::new(Expr {
                        kind: ExprKind::Cast(Box::new(q)),
                        ty: obj.ty.clone().ptr_to(),
                    })),
                    ty: obj.ty.clone(),
                },
            };
            self.store(obj, rhs, span);
        }
        Ok(Some(dv))
    }

    /// A call of a memory function that is not about a whole object: an external call with
    /// the destination already evaluated.
    fn external_memory_call(
        &mut self,
        name: &str,
        dv: Expr,
        s: &Node<Expression>,
        n: &Node<Expression>,
        span: &Span,
    ) -> R<Option<Expr>> {
        let sv = self.expr(s)?;
        let nv = self.expr(n)?;
        self.warn(
            span,
            format!("call of external function `{name}` (no body)"),
        );
        let pos = self.pos(span);
        self.emit(
            EdgeKind::Call {
                ret: None,
                callee: crate::ir::Callee::External(name.to_string()),
                args: vec![dv.clone(), sv, nv],
            },
            pos,
        );
        Ok(Some(dv))
    }

    /// `memset(&obj, c, sizeof obj)`: each scalar of `obj` assigned (module doc).
    fn memset_object(&mut self, obj: &Expr, c: i128, span: &Span) {
        let pos = self.pos(span);
        let mut leaves = Vec::new();
        let ok = self.zero(obj, span, &mut leaves).is_ok() && leaves.len() <= MAX_LEAVES;
        let chars = leaves.iter().all(|(l, _)| {
            matches!(
                l.ty,
                CType::Int(IntKind::Char | IntKind::SChar | IntKind::UChar)
            )
        });
        if !ok || (c != 0 && !chars) {
            self.emit(
                EdgeKind::Havoc {
                    lhs: obj.clone(),
                    reason: "memset of this object".into(),
                    approximation: true,
                },
                pos,
            );
            return;
        }
        for (l, v) in leaves {
            if v.is_none() {
                // A union (or an array of unknown length) in the object: not modelled.
                self.emit(
                    EdgeKind::Havoc {
                        lhs: l,
                        reason: "memset of a union".into(),
                        approximation: true,
                    },
                    pos,
                );
            } else {
                self.store(l, Expr::int(c, CType::INT), span);
            }
        }
    }
}
