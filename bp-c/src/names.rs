//! The names of the Boolean variables c2bp declares that are not predicates: the call
//! temporaries a caller holds for a call edge (C2BP, PLDI'01 §4.5), and what a callee's
//! predicate means when read in the caller. c2bp writes them; constrain reads them back.

use cir::ir::{Expr, ExprKind, Function, Program, VarId};
use cir::pred::subst_result;
use cir::wp::{convert, subst_vars};

/// A temporary c2bp declares in a caller for a call edge: `{arg EDGE CALLEE: TEXT}` holds the
/// value of the callee's formal-parameter predicate TEXT for the actuals, `{ret EDGE CALLEE:
/// TEXT}` the value of its return predicate TEXT (PLDI'01 §4.5). Named by the edge and the
/// predicate's text, never by position.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CallTemp {
    /// `ret` (a returned predicate) or `arg` (an actual).
    pub ret: bool,
    /// The call edge (`f#k`).
    pub edge: String,
    /// The callee.
    pub callee: String,
    /// The callee's predicate (its text).
    pub text: String,
}

impl CallTemp {
    /// The Boolean variable's name.
    pub fn name(&self) -> String {
        format!(
            "{{{} {} {}: {}}}",
            if self.ret { "ret" } else { "arg" },
            self.edge,
            self.callee,
            self.text
        )
    }

    /// Reads a name written by [`CallTemp::name`].
    pub fn parse(name: &str) -> Option<CallTemp> {
        let inner = name.strip_prefix('{')?.strip_suffix('}')?;
        let (kind, rest) = inner.split_once(' ')?;
        let ret = match kind {
            "ret" => true,
            "arg" => false,
            _ => return None,
        };
        let (edge, rest) = rest.split_once(' ')?;
        // An edge name `f#k` (so a predicate such as `ret == (c ? a : b)` is not taken for one).
        let (_, k) = edge.rsplit_once('#')?;
        if k.is_empty() || !k.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        let (callee, text) = rest.split_once(": ")?;
        Some(CallTemp {
            ret,
            edge: edge.to_string(),
            callee: callee.to_string(),
            text: text.to_string(),
        })
    }
}

/// A callee's predicate `x` read in the caller at a call `ret := callee(args)`: `\result` is the
/// caller's result variable (when there is one) and each formal is its actual, converted to the
/// formal's type (C2BP's `x[a/f]`, PLDI'01 §4.5). Valid right after the call when no actual
/// reads what the callee may modify (c2bp keeps a `{ret …}` temporary only then).
pub fn caller_reading(
    prog: &Program,
    callee: &Function,
    ret: Option<VarId>,
    args: &[Expr],
    x: &Expr,
) -> Expr {
    let mut x = x.clone();
    if let Some(r) = ret {
        let rv = Expr {
            kind: ExprKind::Var(r),
            ty: prog.var(r).ty.clone(),
        };
        x = subst_result(&x, &rv);
    }
    subst_vars(&x, &|v| {
        let k = callee.formals.iter().position(|f| *f == v)?;
        args.get(k).map(|a| convert(a, &prog.var(v).ty))
    })
}
