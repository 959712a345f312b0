//! Statements: compound statements, `if`, loops, `switch`, `goto`/labels, `break`,
//! `continue`, `return` and the SV-COMP intrinsics used as statements, lowered to edges.

use super::*;

/// Collects the case labels of one switch body (not of nested switches), in source order.
struct CaseLabels<'ast>(Vec<&'ast Node<Label>>);

impl<'ast> Visit<'ast> for CaseLabels<'ast> {
    fn visit_labeled_statement(&mut self, s: &'ast LabeledStatement, span: &'ast Span) {
        if !matches!(s.label.node, Label::Identifier(_)) {
            self.0.push(&s.label);
        }
        visit::visit_labeled_statement(self, s, span)
    }
    fn visit_switch_statement(&mut self, _s: &'ast SwitchStatement, _span: &'ast Span) {}
}

impl Lowerer<'_> {
    // ----- statements -----

    pub(super) fn stmt(&mut self, s: &Node<Statement>) -> R<()> {
        let pos = self.pos(&s.span);
        match &s.node {
            Statement::Compound(items) => self.compound(items),
            Statement::Expression(None) => Ok(()),
            Statement::Expression(Some(e)) => self.effect(e),
            Statement::If(i) => {
                let (t, f, join) = (self.new_node(), self.new_node(), self.new_node());
                self.cond(&i.node.condition, Some(t), Some(f))?;
                self.fb().cur = t;
                self.stmt(&i.node.then_statement)?;
                self.jump(join, pos);
                self.fb().cur = f;
                if let Some(e) = &i.node.else_statement {
                    self.stmt(e)?;
                }
                self.jump(join, pos);
                self.fb().cur = join;
                Ok(())
            }
            Statement::While(w) => {
                let (head, body, exit) = (self.new_node(), self.new_node(), self.new_node());
                self.continue_at(head, pos);
                self.cond(&w.node.expression, Some(body), Some(exit))?;
                self.fb().cur = body;
                self.loop_body(&w.node.statement, exit, head)?;
                self.jump(head, pos);
                self.fb().cur = exit;
                Ok(())
            }
            Statement::DoWhile(d) => {
                let (body, test, exit) = (self.new_node(), self.new_node(), self.new_node());
                self.continue_at(body, pos);
                self.loop_body(&d.node.statement, exit, test)?;
                self.continue_at(test, pos);
                self.cond(&d.node.expression, Some(body), Some(exit))?;
                self.fb().cur = exit;
                Ok(())
            }
            Statement::For(f) => self.for_loop(&f.node, pos),
            Statement::Switch(sw) => self.switch(&sw.node, pos),
            Statement::Labeled(l) => self.labeled(&l.node, pos),
            Statement::Goto(l) => {
                let n = self.label_node(&l.node.name);
                self.fb().used_labels.push((l.node.name.clone(), pos));
                self.jump(n, pos);
                Ok(())
            }
            Statement::Continue => match self.fb().continues.last() {
                Some(n) => {
                    let n = *n;
                    self.jump(n, pos);
                    Ok(())
                }
                None => self.invalid(&s.span, "`continue` outside a loop"),
            },
            Statement::Break => match self.fb().breaks.last() {
                Some(n) => {
                    let n = *n;
                    self.jump(n, pos);
                    Ok(())
                }
                None => self.invalid(&s.span, "`break` outside a loop or switch"),
            },
            Statement::Return(e) => {
                let v = match e {
                    Some(e) => {
                        let v = self.expr(e)?;
                        if v.ty == CType::Void { None } else { Some(v) }
                    }
                    None => None,
                };
                let (cur, exit) = (self.fb().cur, self.fb().exit);
                self.edge(cur, exit, EdgeKind::Return(v), pos);
                self.detach();
                Ok(())
            }
            Statement::Asm(a) => self.asm(&a.node, &s.span, pos),
        }
    }

    /// A block: its declarations and statements in a scope of their own.
    fn compound(&mut self, items: &[Node<BlockItem>]) -> R<()> {
        self.scopes.push(Scope::default());
        let r = (|| {
            for it in items {
                match &it.node {
                    BlockItem::Declaration(d) => self.local_declaration(&d.node, &d.span)?,
                    BlockItem::Statement(st) => self.stmt(st)?,
                    BlockItem::StaticAssert(_) => {}
                }
            }
            Ok(())
        })();
        self.scopes.pop();
        r
    }

    /// `for (init; cond; step) body`, in a scope of its own (the scope of a declaration in
    /// `init`).
    fn for_loop(&mut self, f: &ForStatement, pos: SrcPos) -> R<()> {
        self.scopes.push(Scope::default());
        let r = (|| {
            match &f.initializer.node {
                ForInitializer::Empty | ForInitializer::StaticAssert(_) => {}
                ForInitializer::Expression(e) => self.effect(e)?,
                ForInitializer::Declaration(d) => self.local_declaration(&d.node, &d.span)?,
            }
            let (head, body, step, exit) = (
                self.new_node(),
                self.new_node(),
                self.new_node(),
                self.new_node(),
            );
            self.continue_at(head, pos);
            match &f.condition {
                Some(c) => self.cond(c, Some(body), Some(exit))?,
                None => self.jump(body, pos),
            }
            self.fb().cur = body;
            self.loop_body(&f.statement, exit, step)?;
            self.continue_at(step, pos);
            if let Some(e) = &f.step {
                self.effect(e)?;
            }
            self.jump(head, pos);
            self.fb().cur = exit;
            Ok(())
        })();
        self.scopes.pop();
        r
    }

    /// A labelled statement: a named label (the error when it is one of
    /// [`LowerOptions::error_labels`]) or a `case`/`default` label of the enclosing switch.
    fn labeled(&mut self, l: &LabeledStatement, pos: SrcPos) -> R<()> {
        match &l.label.node {
            Label::Identifier(id) => {
                let name = id.node.name.clone();
                let n = self.label_node(&name);
                self.fb().defined_labels.insert(name.clone());
                self.fb().seen_label = true;
                self.continue_at(n, pos);
                if self.opts.error_labels.contains(&name) {
                    self.end_path(
                        EdgeKind::Error {
                            cause: format!("label {name}"),
                        },
                        pos,
                    );
                }
            }
            _ => {
                let key = l.label.span.start;
                let n = match self.fb().cases.last().and_then(|m| m.get(&key)) {
                    Some(n) => *n,
                    None => {
                        return self.invalid(&l.label.span, "case label outside a switch");
                    }
                };
                self.continue_at(n, pos);
            }
        }
        self.stmt(&l.statement)
    }

    /// Inline assembly: a warning; extended asm havocs its output operands.
    fn asm(&mut self, a: &AsmStatement, span: &Span, pos: SrcPos) -> R<()> {
        match a {
            AsmStatement::GnuBasic(_) => {
                self.warn(
                    span,
                    "inline assembly ignored (its effects are not modelled)",
                );
            }
            AsmStatement::GnuExtended(x) => {
                self.warn(
                    span,
                    "inline assembly: output operands havocked, other effects not modelled",
                );
                for o in &x.outputs {
                    let lv = self.expr(&o.node.variable_name)?;
                    if lv.is_lvalue() {
                        self.emit(
                            EdgeKind::Havoc {
                                lhs: lv,
                                reason: "inline asm output".into(),
                                approximation: true,
                            },
                            pos,
                        );
                    }
                }
            }
        }
        Ok(())
    }

    pub(super) fn loop_body(&mut self, body: &Node<Statement>, brk: NodeId, cont: NodeId) -> R<()> {
        let fb = self.fb();
        fb.breaks.push(brk);
        fb.continues.push(cont);
        fb.loop_depth += 1;
        let r = self.stmt(body);
        let fb = self.fb();
        fb.breaks.pop();
        fb.continues.pop();
        fb.loop_depth -= 1;
        r
    }

    pub(super) fn switch(&mut self, sw: &SwitchStatement, pos: SrcPos) -> R<()> {
        let v = self.expr(&sw.expression)?;
        let ty = v.ty.promoted();
        let v = if matches!(v.kind, ExprKind::Var(_) | ExprKind::Const(_)) {
            v
        } else {
            let t = self.new_temp("tmp", v.ty.clone(), pos);
            let te = self.var_expr(t);
            self.emit(
                EdgeKind::Assign {
                    lhs: te.clone(),
                    rhs: v,
                },
                pos,
            );
            te
        };
        let mut labels = CaseLabels(Vec::new());
        labels.visit_statement(&sw.statement.node, &sw.statement.span);
        let exit = self.new_node();
        let mut map = HashMap::new();
        let mut default = None;
        let conv = |x: i128, dm| match &ty {
            CType::Int(k) => k.wrap(x, dm),
            _ => x,
        };
        for lab in labels.0 {
            let n = self.new_node();
            map.insert(lab.span.start, n);
            let lpos = self.pos(&lab.span);
            let cmp = |op: BinOp, c: i128| Expr {
                kind: ExprKind::Binary(op, Box::new(v.clone()), Box::new(Expr::int(c, ty.clone()))),
                ty: CType::INT,
            };
            match &lab.node {
                Label::Case(e) => {
                    let c = conv(self.const_eval(e)?, self.dm);
                    let next = self.new_node();
                    let cur = self.fb().cur;
                    self.edge(cur, n, EdgeKind::Assume(cmp(BinOp::Eq, c)), lpos);
                    self.edge(cur, next, EdgeKind::Assume(cmp(BinOp::Ne, c)), lpos);
                    self.fb().cur = next;
                }
                Label::CaseRange(r) => {
                    let lo = conv(self.const_eval(&r.node.low)?, self.dm);
                    let hi = conv(self.const_eval(&r.node.high)?, self.dm);
                    let (mid, next) = (self.new_node(), self.new_node());
                    let cur = self.fb().cur;
                    self.edge(cur, mid, EdgeKind::Assume(cmp(BinOp::Ge, lo)), lpos);
                    self.edge(cur, next, EdgeKind::Assume(cmp(BinOp::Lt, lo)), lpos);
                    self.edge(mid, n, EdgeKind::Assume(cmp(BinOp::Le, hi)), lpos);
                    self.edge(mid, next, EdgeKind::Assume(cmp(BinOp::Gt, hi)), lpos);
                    self.fb().cur = next;
                }
                Label::Default => default = Some(n),
                Label::Identifier(_) => {}
            }
        }
        self.jump(default.unwrap_or(exit), pos);
        let fb = self.fb();
        fb.cases.push(map);
        fb.breaks.push(exit);
        let r = self.stmt(&sw.statement);
        let fb = self.fb();
        fb.cases.pop();
        fb.breaks.pop();
        r?;
        self.jump(exit, pos);
        self.fb().cur = exit;
        Ok(())
    }
}
