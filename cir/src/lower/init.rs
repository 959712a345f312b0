//! Initialisers: global initialisers recorded as constant values (or havocked), local
//! initialisers lowered to assignments (zero-filling the rest of an aggregate), and the
//! union-member writes that havoc their whole union.

use super::*;

impl Lowerer<'_> {
    /// Records the initialiser of global storage (lowered in a scratch function; anything that
    /// would need an edge makes it a havoc).
    pub(super) fn global_init(&mut self, v: VarId, init: &Node<Initializer>) -> R<()> {
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
    pub(super) fn fix_array_len(&mut self, v: VarId, init: &Node<Initializer>) {
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
    pub(super) fn initializer(
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

    pub(super) fn check_no_elision(&mut self, ty: &CType, init: &Node<Initializer>) -> R<()> {
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

    pub(super) fn zero(
        &mut self,
        lhs: &Expr,
        span: &Span,
        out: &mut Vec<(Expr, Option<Expr>)>,
    ) -> R<()> {
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

    pub(super) fn is_union_member(&self, e: &Expr) -> bool {
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
    pub(super) fn union_root(&self, e: &Expr) -> Option<Expr> {
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
}
