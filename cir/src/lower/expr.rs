//! Expressions: integer constant expressions, branch conditions as control flow, and
//! expressions lowered to side-effect-free IR expressions with their side effects hoisted
//! into edges (calls, assignments, `++`, `?:`, `&&`/`||` with effects, statement
//! expressions).

use super::*;

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

pub(super) fn has_effects(e: &Node<Expression>) -> bool {
    let mut v = HasEffects(false);
    v.visit_expression(&e.node, &e.span);
    v.0
}

/// `Some(None)` for `=`, `Some(Some(op))` for `op=`.
pub(super) fn assign_op(op: &BinaryOperator) -> Option<Option<BinOp>> {
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

pub(super) fn plain_binop(op: &BinaryOperator) -> Option<BinOp> {
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

pub(super) fn parse_int_literal(i: &Integer) -> Option<u128> {
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

pub(super) fn parse_char_literal(s: &str) -> Option<i128> {
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

impl Lowerer<'_> {
    // ----- constants -----

    pub(super) fn try_const_eval(&mut self, e: &Node<Expression>) -> Option<i128> {
        self.const_eval(e).ok()
    }

    /// Evaluates an integer constant expression (mathematical integers; enough for case labels,
    /// array sizes and enumerators).
    pub(super) fn const_eval(&mut self, e: &Node<Expression>) -> R<i128> {
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
                    CType::Int(k) => k.wrap(v, self.dm),
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
    pub(super) fn type_of_expr(&mut self, e: &Node<Expression>) -> R<CType> {
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

    pub(super) fn int_constant(&mut self, i: &Integer, span: &Span) -> R<Expr> {
        let Some(v) = parse_int_literal(i) else {
            return self.invalid(span, "integer constant too large");
        };
        let dec = matches!(i.base, IntegerBase::Decimal);
        let u = i.suffix.unsigned;
        let longs = match i.suffix.size {
            IntegerSize::Int => 0,
            IntegerSize::Long => 1,
            IntegerSize::LongLong => 2,
        };
        if i.suffix.imaginary {
            return self.unsupported(span, "imaginary constants");
        }
        match int_constant_type(v as i128, longs, u, dec, self.dm) {
            Some(ty) => Ok(Expr::int(v as i128, ty)),
            None => self.invalid(span, "integer constant too large for its type"),
        }
    }

    // ----- conditions -----

    /// Lowers a branch condition: control goes to `t` when it holds, to `f` otherwise (`None`:
    /// that side is infeasible and gets no edge). Afterwards the current node is detached.
    pub(super) fn cond(
        &mut self,
        e: &Node<Expression>,
        t: Option<NodeId>,
        f: Option<NodeId>,
    ) -> R<()> {
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
    pub(super) fn effect(&mut self, e: &Node<Expression>) -> R<()> {
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

    pub(super) fn warn_float(&mut self, ty: &CType, span: &Span) {
        if ty.is_float() {
            self.warn(span, "floating-point arithmetic is not modelled");
        }
    }

    /// Lowers an expression to a side-effect-free IR expression, emitting its side effects.
    pub(super) fn expr(&mut self, e: &Node<Expression>) -> R<Expr> {
        let pos = self.pos(&e.span);
        match &e.node {
            Expression::Identifier(i) => self.identifier(&i.node, &e.span),
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
                            approximation: true,
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
            Expression::Member(m) => self.member(&m.node, &e.span),
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
            Expression::Conditional(c) => self.conditional(&c.node, pos),
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

    /// An identifier used as a value: a variable, an enumeration constant, a function
    /// designator or `__func__`.
    fn identifier(&mut self, i: &Identifier, span: &Span) -> R<Expr> {
        match self.lookup(&i.name).cloned() {
            Some(Binding::Var(v)) => Ok(self.var_expr(v)),
            Some(Binding::Enum(v)) => Ok(Expr::int(v, CType::INT)),
            Some(Binding::Func(n)) => {
                let ty = CType::Func(Box::new(self.funcs[&n].ty.clone()));
                Ok(Expr {
                    kind: ExprKind::Func(n),
                    ty,
                })
            }
            Some(Binding::Typedef(_)) => self.invalid(span, format!("`{}` is a type", i.name)),
            None if matches!(
                i.name.as_str(),
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
            None => self.invalid(span, format!("undeclared identifier `{}`", i.name)),
        }
    }

    /// `s.f` and `p->f`.
    fn member(&mut self, m: &MemberExpression, span: &Span) -> R<Expr> {
        let base = self.expr(&m.expression)?;
        let base = match m.operator.node {
            MemberOperator::Direct => base,
            MemberOperator::Indirect => match deref(base) {
                Some(d) => d,
                None => return self.invalid(span, "`->` on a non-pointer"),
            },
        };
        let fname = &m.identifier.node.name;
        match member(&self.prog.structs, base, fname) {
            Ok(x) => Ok(x),
            Err(MemberError::NotStruct) => {
                self.invalid(span, format!("member `{fname}` of a non-struct"))
            }
            Err(MemberError::NoMember) => self.invalid(span, format!("no member `{fname}`")),
        }
    }

    /// `c ? a : b` as a value: control flow assigning the chosen operand to a temporary
    /// (none when the type is `void`).
    fn conditional(&mut self, c: &ConditionalExpression, pos: SrcPos) -> R<Expr> {
        let ty = {
            let a = self.type_of_expr(&c.then_expression)?;
            let b = self.type_of_expr(&c.else_expression)?;
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
        self.cond(&c.condition, Some(a), Some(b))?;
        for (n, x) in [(a, &c.then_expression), (b, &c.else_expression)] {
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

    /// A GNU statement expression `({ s1; …; e; })`: the statements in a new scope, then the
    /// value of the last expression statement (copied to a temporary when scalar, so it is the
    /// value at the end of the block); `void` when the block ends otherwise. glibc's `assert`
    /// expands to one.
    pub(super) fn statement_expression(&mut self, st: &Node<Statement>, pos: SrcPos) -> R<Expr> {
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

    pub(super) fn lvalue(&mut self, e: &Node<Expression>) -> R<Expr> {
        let v = self.expr(e)?;
        if !v.is_lvalue() {
            return self.invalid(&e.span, "assignment to something that is not an lvalue");
        }
        Ok(v)
    }

    /// Emits `lhs := rhs`, or a havoc when the target is inside a union.
    pub(super) fn store(&mut self, lhs: Expr, rhs: Expr, span: &Span) {
        let pos = self.pos(span);
        if let Some(root) = self.union_root(&lhs) {
            self.warn(span, "assignment to a union member: the union is havocked");
            self.emit(
                EdgeKind::Havoc {
                    lhs: root,
                    reason: "union member assigned".into(),
                    approximation: true,
                },
                pos,
            );
        } else {
            self.emit(EdgeKind::Assign { lhs, rhs }, pos);
        }
    }

    pub(super) fn unary(&mut self, u: &UnaryOperatorExpression, span: &Span) -> R<Expr> {
        use UnaryOperator::*;
        match u.operator.node {
            PostIncrement | PostDecrement | PreIncrement | PreDecrement => {
                self.incdec(u, span, true)
            }
            Address => {
                let v = self.expr(&u.operand)?;
                match address_of(v) {
                    Some(a) => Ok(a),
                    None => self.invalid(span, "`&` of something that is not an lvalue"),
                }
            }
            Indirection => {
                let v = self.expr(&u.operand)?;
                if matches!(v.ty, CType::Func(_)) {
                    return Ok(v);
                }
                match deref(v) {
                    Some(d) => Ok(d),
                    None => self.invalid(span, "`*` of a non-pointer"),
                }
            }
            Plus => {
                let v = self.expr(&u.operand)?;
                Ok(unary_plus(v))
            }
            Minus | Complement => {
                let v = self.expr(&u.operand)?;
                self.warn_float(&v.ty.promoted(), span);
                let op = if u.operator.node == Minus {
                    UnOp::Neg
                } else {
                    UnOp::BitNot
                };
                Ok(arith_unary(op, v))
            }
            Negate => {
                let v = self.expr(&u.operand)?;
                Ok(log_not(v))
            }
        }
    }

    pub(super) fn incdec(
        &mut self,
        u: &UnaryOperatorExpression,
        span: &Span,
        want: bool,
    ) -> R<Expr> {
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
        let ty = crate::ir::binop_type(op, &lv.ty, &one.ty, self.dm);
        self.warn_float(&ty, span);
        let rhs = Expr {
            kind: ExprKind::Binary(op, Box::new(lv.clone()), Box::new(one)),
            ty,
        };
        self.store(lv.clone(), rhs, span);
        Ok(old.unwrap_or(lv))
    }

    pub(super) fn binary(
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
                    let ty = crate::ir::binop_type(op, &lv.ty, &rv.ty, self.dm);
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
            // A constant subscript is folded (`A[1024 - 1]` is `A[1023]`): every analysis
            // then sees the same cell under one name.
            let fold = |e: Expr, dm| match e.constant_value(dm) {
                Some(v) => Expr::int(v, e.ty),
                None => e,
            };
            let a = fold(self.expr(&b.lhs)?, self.dm);
            let i = fold(self.expr(&b.rhs)?, self.dm);
            return match index(a, i) {
                Some(x) => Ok(x),
                None => self.invalid(&e.span, "subscript of a non-array"),
            };
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
        let ty = crate::ir::binop_type(op, &a.ty, &c.ty, self.dm);
        if ty.is_float() || ((a.ty.is_float() || c.ty.is_float()) && op.is_comparison()) {
            self.warn(&e.span, "floating-point arithmetic is not modelled");
        }
        Ok(Expr {
            kind: ExprKind::Binary(op, Box::new(a), Box::new(c)),
            ty,
        })
    }

    pub(super) fn nondet_type(&self, name: &str) -> Option<CType> {
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
    pub(super) fn call(&mut self, c: &CallExpression, span: &Span, want: bool) -> R<Option<Expr>> {
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
            if memory::MEMORY_FNS.contains(&name.as_str())
                && self.funcs.get(&name).is_none_or(|d| d.def.is_none())
                && self.future_def(&name).is_none()
                && let Some(v) = self.memory_call(&name, c, span)?
            {
                return Ok(want.then_some(v));
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
                self.direct_callee(name, c, span)?
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
        // An allocator's result points to an object of the type its size names.
        let ret_ty = match &callee {
            Callee::External(n) if callee.is_allocator() => self
                .allocated_type(n, &c.arguments)
                .map_or(ret_ty, CType::ptr_to),
            _ => ret_ty,
        };
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

    /// The callee of a call of the function `name` (declared, or implicitly `int name()`
    /// with a warning): its result type and the prefix of its result temporary; the number
    /// of arguments checked against a prototype.
    fn direct_callee(
        &mut self,
        name: String,
        c: &CallExpression,
        span: &Span,
    ) -> R<(Callee, CType, String)> {
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
        let (wanted, variadic) = (d.ty.params.len(), d.ty.variadic);
        let given = c.arguments.len();
        // A prototype fixes the number of arguments (C11 6.5.2.2:2); `int f()` and
        // `...` take more.
        if given < wanted || (given > wanted && !variadic) {
            let n = |k: usize| format!("{k} argument{}", if k == 1 { "" } else { "s" });
            return self.invalid(
                span,
                format!(
                    "`{name}` takes {}{}, but {} given",
                    if variadic { "at least " } else { "" },
                    n(wanted),
                    if given == 1 {
                        "1 is".to_string()
                    } else {
                        format!("{given} are")
                    }
                ),
            );
        }
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
        Ok((callee, ret, name))
    }

    /// The id a function defined later in the file will get.
    pub(super) fn future_def(&self, name: &str) -> Option<FuncId> {
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
