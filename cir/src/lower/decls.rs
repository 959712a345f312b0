//! Declarations and types: declaration specifiers and declarators to C types, struct, union
//! and enum definitions, typedefs, gcc's x86 layout (`sizeof`), and the declarations of
//! file-scope and block-scope names.

use super::*;

/// Type specifiers gathered from declaration specifiers or specifier-qualifier lists.
pub(super) struct Specs<'a> {
    pub(super) types: Vec<&'a Node<TypeSpecifier>>,
    pub(super) storage: Option<StorageClassSpecifier>,
}

pub(super) fn decl_specs(s: &[Node<DeclarationSpecifier>]) -> Specs<'_> {
    let mut out = Specs {
        types: Vec::new(),
        storage: None,
    };
    for x in s {
        match &x.node {
            DeclarationSpecifier::TypeSpecifier(t) => out.types.push(t),
            DeclarationSpecifier::StorageClass(c) => out.storage = Some(c.node.clone()),
            _ => {}
        }
    }
    out
}

pub(super) fn sq_specs(s: &[Node<SpecifierQualifier>]) -> Specs<'_> {
    let mut out = Specs {
        types: Vec::new(),
        storage: None,
    };
    for x in s {
        if let SpecifierQualifier::TypeSpecifier(t) = &x.node {
            out.types.push(t);
        }
    }
    out
}

/// The identifier of a declarator, if any.
pub(super) fn declarator_name(d: &Declarator) -> Option<&str> {
    match &d.kind.node {
        DeclaratorKind::Identifier(i) => Some(&i.node.name),
        DeclaratorKind::Declarator(inner) => declarator_name(&inner.node),
        DeclaratorKind::Abstract => None,
    }
}

/// The parameter list that applies directly to the declared name (for definitions).
pub(super) fn innermost_params(d: &Declarator) -> Option<&DerivedDeclarator> {
    if let DeclaratorKind::Declarator(inner) = &d.kind.node
        && let Some(p) = innermost_params(&inner.node)
    {
        return Some(p);
    }
    d.derived
        .iter()
        .map(|x| &x.node)
        .find(|x| !matches!(x, DerivedDeclarator::Pointer(_)))
}

impl Lowerer<'_> {
    // ----- types -----

    pub(super) fn lookup(&self, name: &str) -> Option<&Binding> {
        self.scopes.iter().rev().find_map(|s| s.names.get(name))
    }

    pub(super) fn bind(&mut self, name: &str, b: Binding) {
        self.scopes
            .last_mut()
            .expect("a scope is always open")
            .names
            .insert(name.to_string(), b);
    }

    pub(super) fn base_type(&mut self, specs: &Specs<'_>, span: &Span) -> R<CType> {
        let (mut signed, mut unsigned, mut short, mut long, mut char_, mut int) =
            (false, false, false, 0, false, false);
        let mut other: Option<CType> = None;
        for t in &specs.types {
            match &t.node {
                TypeSpecifier::Void => other = Some(CType::Void),
                TypeSpecifier::Char => char_ = true,
                TypeSpecifier::Short => short = true,
                TypeSpecifier::Int => int = true,
                TypeSpecifier::Long => long += 1,
                TypeSpecifier::Float => other = Some(CType::Float(FloatKind::Float)),
                TypeSpecifier::Double => other = Some(CType::Float(FloatKind::Double)),
                TypeSpecifier::Signed => signed = true,
                TypeSpecifier::Unsigned => unsigned = true,
                TypeSpecifier::Bool => other = Some(CType::Int(IntKind::Bool)),
                TypeSpecifier::Complex => return self.unsupported(&t.span, "_Complex types"),
                TypeSpecifier::Atomic(tn) => other = Some(self.type_name(&tn.node, &tn.span)?),
                TypeSpecifier::Struct(s) => other = Some(self.struct_type(&s.node, &s.span)?),
                TypeSpecifier::Enum(e) => other = Some(self.enum_type(&e.node)?),
                TypeSpecifier::TypedefName(n) => match self.lookup(&n.node.name) {
                    Some(Binding::Typedef(t)) => other = Some(t.clone()),
                    _ => {
                        return self
                            .invalid(&n.span, format!("unknown type name `{}`", n.node.name));
                    }
                },
                TypeSpecifier::TypeOf(to) => {
                    other = Some(match &to.node {
                        TypeOf::Type(tn) => self.type_name(&tn.node, &tn.span)?,
                        TypeOf::Expression(e) => self.type_of_expr(e)?,
                    })
                }
                TypeSpecifier::TS18661Float(_) => other = Some(CType::Float(FloatKind::LongDouble)),
            }
        }
        if let Some(t) = other {
            if long > 0 && t == CType::Float(FloatKind::Double) {
                return Ok(CType::Float(FloatKind::LongDouble));
            }
            return Ok(t);
        }
        let k = if char_ {
            if unsigned {
                IntKind::UChar
            } else if signed {
                IntKind::SChar
            } else {
                IntKind::Char
            }
        } else if short {
            if unsigned {
                IntKind::UShort
            } else {
                IntKind::Short
            }
        } else if long >= 2 {
            if unsigned {
                IntKind::ULongLong
            } else {
                IntKind::LongLong
            }
        } else if long == 1 {
            if unsigned {
                IntKind::ULong
            } else {
                IntKind::Long
            }
        } else if unsigned {
            IntKind::UInt
        } else if signed || int {
            IntKind::Int
        } else {
            // no type specifier at all: implicit int (C89)
            self.warn(span, "declaration without a type specifier: implicit `int`");
            IntKind::Int
        };
        Ok(CType::Int(k))
    }

    pub(super) fn struct_type(&mut self, s: &StructType, span: &Span) -> R<CType> {
        let is_union = matches!(s.kind.node, StructKind::Union);
        let tag = s.identifier.as_ref().map(|i| i.node.name.clone());
        let id = match (&tag, &s.declarations) {
            (Some(t), None) => match self.scopes.iter().rev().find_map(|sc| sc.tags.get(t)) {
                Some(id) => *id,
                None => self.new_struct(Some(t.clone()), is_union),
            },
            (Some(t), Some(_)) => match self.scopes.last().and_then(|sc| sc.tags.get(t)) {
                Some(id) if self.prog.structs[id.0 as usize].fields.is_none() => *id,
                _ => self.new_struct(Some(t.clone()), is_union),
            },
            (None, _) => self.new_struct(None, is_union),
        };
        if let Some(decls) = &s.declarations {
            let mut fields = Vec::new();
            for d in decls {
                let StructDeclaration::Field(f) = &d.node else {
                    continue;
                };
                let specs = sq_specs(&f.node.specifiers);
                let base = self.base_type(&specs, &f.span)?;
                for sd in &f.node.declarators {
                    if sd.node.bit_width.is_some() {
                        self.warn(&sd.span, "bit-field width ignored");
                    }
                    match &sd.node.declarator {
                        Some(d) => {
                            let (name, ty) = self.declarator(base.clone(), &d.node)?;
                            match name {
                                Some(n) => fields.push((n, ty)),
                                None => {
                                    if sd.node.bit_width.is_none() {
                                        return self.unsupported(
                                            &sd.span,
                                            "anonymous struct or union member",
                                        );
                                    }
                                }
                            }
                        }
                        None if sd.node.bit_width.is_some() => {}
                        None => {
                            return self.unsupported(&sd.span, "anonymous struct or union member");
                        }
                    }
                }
                if f.node.declarators.is_empty() {
                    return self.unsupported(&f.span, "anonymous struct or union member");
                }
            }
            self.prog.structs[id.0 as usize].fields = Some(fields);
        }
        let _ = span;
        Ok(CType::Struct(id))
    }

    pub(super) fn new_struct(&mut self, tag: Option<String>, is_union: bool) -> StructId {
        let id = StructId(self.prog.structs.len() as u32);
        self.prog.structs.push(StructDef {
            tag: tag.clone(),
            is_union,
            fields: None,
        });
        if let Some(t) = tag {
            self.scopes.last_mut().expect("scope").tags.insert(t, id);
        }
        id
    }

    pub(super) fn enum_type(&mut self, e: &EnumType) -> R<CType> {
        let mut next: i128 = 0;
        let mut negative = false;
        for en in &e.enumerators {
            if let Some(x) = &en.node.expression {
                next = self.const_eval(x)?;
            }
            negative |= next < 0;
            self.bind(&en.node.identifier.node.name, Binding::Enum(next));
            next += 1;
        }
        Ok(CType::Int(if negative {
            IntKind::Int
        } else {
            IntKind::UInt
        }))
    }

    pub(super) fn type_name(&mut self, tn: &TypeName, span: &Span) -> R<CType> {
        let specs = sq_specs(&tn.specifiers);
        let base = self.base_type(&specs, span)?;
        match &tn.declarator {
            Some(d) => Ok(self.declarator(base, &d.node)?.1),
            None => Ok(base),
        }
    }

    /// Applies a declarator to a base type: (name, type).
    pub(super) fn declarator(&mut self, base: CType, d: &Declarator) -> R<(Option<String>, CType)> {
        let mut t = base;
        for dd in &d.derived {
            if let DerivedDeclarator::Pointer(_) = dd.node {
                t = t.ptr_to();
            }
        }
        for dd in d.derived.iter().rev() {
            match &dd.node {
                DerivedDeclarator::Pointer(_) => {}
                DerivedDeclarator::Array(a) => {
                    let n = match &a.node.size {
                        ArraySize::Unknown => None,
                        ArraySize::VariableUnknown => None,
                        ArraySize::VariableExpression(e) | ArraySize::StaticExpression(e) => {
                            match self.try_const_eval(e) {
                                Some(v) if v >= 0 => Some(v as u64),
                                _ => {
                                    self.warn(&e.span, "variable-length array: length unknown");
                                    None
                                }
                            }
                        }
                    };
                    t = CType::Array(Box::new(t), n);
                }
                DerivedDeclarator::Function(f) => {
                    let mut params = Vec::new();
                    self.scopes.push(Scope::default());
                    let r = (|| {
                        for p in &f.node.parameters {
                            let specs = decl_specs(&p.node.specifiers);
                            let b = self.base_type(&specs, &p.span)?;
                            let pt = match &p.node.declarator {
                                Some(d) => self.declarator(b, &d.node)?.1,
                                None => b,
                            };
                            params.push(pt);
                        }
                        Ok::<(), CirError>(())
                    })();
                    self.scopes.pop();
                    r?;
                    if params.len() == 1 && params[0] == CType::Void {
                        params.clear();
                    }
                    let params = params.into_iter().map(adjust_param).collect();
                    t = CType::Func(Box::new(FuncType {
                        ret: t,
                        params,
                        variadic: matches!(f.node.ellipsis, Ellipsis::Some),
                    }));
                }
                DerivedDeclarator::KRFunction(ids) => {
                    if !ids.is_empty() {
                        return self.unsupported(&dd.span, "K&R-style parameter list");
                    }
                    t = CType::Func(Box::new(FuncType {
                        ret: t,
                        params: vec![],
                        variadic: true,
                    }));
                }
                DerivedDeclarator::Block(_) => return self.unsupported(&dd.span, "block pointers"),
            }
        }
        match &d.kind.node {
            DeclaratorKind::Identifier(i) => Ok((Some(i.node.name.clone()), t)),
            DeclaratorKind::Abstract => Ok((None, t)),
            DeclaratorKind::Declarator(inner) => self.declarator(t, &inner.node),
        }
    }

    pub(super) fn size_t(&self) -> CType {
        CType::Int(match self.dm {
            DataModel::Ilp32 => IntKind::UInt,
            DataModel::Lp64 => IntKind::ULong,
        })
    }

    /// (size, alignment) in bytes under gcc's x86 layout.
    pub(super) fn layout(&self, t: &CType) -> Option<(u64, u64)> {
        Some(match t {
            CType::Void => (1, 1),
            CType::Int(k) => {
                let w = if *k == IntKind::Bool {
                    1
                } else {
                    u64::from(k.width(self.dm)) / 8
                };
                let a = if self.dm == DataModel::Ilp32 && w == 8 {
                    4
                } else {
                    w
                };
                (w, a)
            }
            CType::Float(k) => match (k, self.dm) {
                (FloatKind::Float, _) => (4, 4),
                (FloatKind::Double, DataModel::Ilp32) => (8, 4),
                (FloatKind::Double, DataModel::Lp64) => (8, 8),
                (FloatKind::LongDouble, DataModel::Ilp32) => (12, 4),
                (FloatKind::LongDouble, DataModel::Lp64) => (16, 16),
            },
            CType::Pointer(_) => match self.dm {
                DataModel::Ilp32 => (4, 4),
                DataModel::Lp64 => (8, 8),
            },
            CType::Array(e, n) => {
                let (s, a) = self.layout(e)?;
                (s * (*n)?, a)
            }
            CType::Struct(id) => {
                let d = &self.prog.structs[id.0 as usize];
                let fields = d.fields.as_ref()?;
                let (mut size, mut align) = (0u64, 1u64);
                for (_, ft) in fields {
                    let (s, a) = self.layout(ft)?;
                    align = align.max(a);
                    if d.is_union {
                        size = size.max(s);
                    } else {
                        size = size.div_ceil(a) * a + s;
                    }
                }
                (size.div_ceil(align) * align, align)
            }
            CType::Func(_) => (1, 1),
        })
    }

    // ----- file scope -----

    pub(super) fn file_declaration(&mut self, d: &Declaration, span: &Span) -> R<()> {
        let specs = decl_specs(&d.specifiers);
        let base = self.base_type(&specs, span)?;
        for id in &d.declarators {
            let (name, ty) = self.declarator(base.clone(), &id.node.declarator.node)?;
            let Some(name) = name else { continue };
            if specs.storage == Some(StorageClassSpecifier::Typedef) {
                self.bind(&name, Binding::Typedef(ty));
                continue;
            }
            if let CType::Func(ft) = ty {
                self.declare_func(&name, *ft);
                continue;
            }
            let kind = if specs.storage == Some(StorageClassSpecifier::Static) {
                VarKind::FileStatic
            } else {
                VarKind::Global
            };
            let v = self.global_var(&name, &name, ty, kind, &id.span);
            if let Some(init) = &id.node.initializer {
                self.global_init(v, init)?;
            }
        }
        Ok(())
    }

    /// The global variable `name` (reused for repeated declarations).
    pub(super) fn global_var(
        &mut self,
        name: &str,
        c_name: &str,
        ty: CType,
        kind: VarKind,
        span: &Span,
    ) -> VarId {
        if let Some(Binding::Var(v)) = self.scopes[0].names.get(name) {
            let v = *v;
            // a later declaration may complete an array type
            if let (CType::Array(_, None), CType::Array(_, Some(_))) =
                (&self.prog.vars[v.0 as usize].ty, &ty)
            {
                self.prog.vars[v.0 as usize].ty = ty;
            }
            return v;
        }
        let pos = self.pos(span);
        let v = self.new_var(name.to_string(), c_name, ty, kind, pos);
        self.prog.globals.push(v);
        if !matches!(self.prog.vars[v.0 as usize].kind, VarKind::LocalStatic(_)) {
            self.scopes[0]
                .names
                .insert(name.to_string(), Binding::Var(v));
        }
        v
    }

    /// For a variable-length array `T v[e]` (one dimension, `e` not a constant): `e` is
    /// evaluated where `v` is declared, into a temporary recorded in
    /// [`crate::ir::Program::vla_lengths`] (the array's type stays `T[]`).
    fn vla_length(&mut self, v: VarId, name: &str, d: &Declarator, pos: SrcPos) -> R<()> {
        if !matches!(self.prog.var(v).ty, CType::Array(_, None)) {
            return Ok(());
        }
        let [dd] = d.derived.as_slice() else {
            return Ok(());
        };
        let DerivedDeclarator::Array(a) = &dd.node else {
            return Ok(());
        };
        let (ArraySize::VariableExpression(e) | ArraySize::StaticExpression(e)) = &a.node.size
        else {
            return Ok(());
        };
        if self.try_const_eval(e).is_some() {
            return Ok(());
        }
        let len = self.expr(e)?;
        if !matches!(len.ty, CType::Int(_)) {
            return Ok(());
        }
        let t = self.new_temp(&format!("{name}#len"), len.ty.clone(), pos);
        let lhs = self.var_expr(t);
        self.emit(EdgeKind::Assign { lhs, rhs: len }, pos);
        self.prog.vla_lengths.push((v, t));
        Ok(())
    }

    pub(super) fn local_declaration(&mut self, d: &Declaration, span: &Span) -> R<()> {
        let specs = decl_specs(&d.specifiers);
        let base = self.base_type(&specs, span)?;
        for id in &d.declarators {
            let (name, ty) = self.declarator(base.clone(), &id.node.declarator.node)?;
            let Some(name) = name else { continue };
            let pos = self.pos(&id.span);
            if specs.storage == Some(StorageClassSpecifier::Typedef) {
                self.bind(&name, Binding::Typedef(ty));
                continue;
            }
            if let CType::Func(ft) = ty {
                self.declare_func(&name, *ft);
                self.bind(&name, Binding::Func(name.clone()));
                continue;
            }
            match specs.storage {
                Some(StorageClassSpecifier::Extern) => {
                    let v = self.global_var(&name, &name, ty, VarKind::Global, &id.span);
                    self.bind(&name, Binding::Var(v));
                }
                Some(StorageClassSpecifier::Static) => {
                    let fname = self.fb().name.clone();
                    let fid = self.fb().id;
                    let mut gname = format!("{name}#{fname}");
                    let mut k = 2;
                    while self
                        .prog
                        .vars
                        .iter()
                        .any(|v| v.is_global() && v.name == gname)
                    {
                        gname = format!("{name}#{fname}#{k}");
                        k += 1;
                    }
                    let v = self.global_var(&gname, &name, ty, VarKind::LocalStatic(fid), &id.span);
                    self.bind(&name, Binding::Var(v));
                    if let Some(init) = &id.node.initializer {
                        self.global_init(v, init)?;
                    }
                }
                _ => {
                    let fid = self.fb().id;
                    let v = self.new_local(&name, ty, VarKind::Local(fid), pos);
                    self.bind(&name, Binding::Var(v));
                    match &id.node.initializer {
                        Some(init) => {
                            self.fix_array_len(v, init);
                            let lhs = self.var_expr(v);
                            let mut out = Vec::new();
                            self.initializer(&lhs, init, true, &mut out)?;
                            for (l, r) in out {
                                match r {
                                    Some(r) => self.emit(EdgeKind::Assign { lhs: l, rhs: r }, pos),
                                    None => self.emit(
                                        EdgeKind::Havoc {
                                            lhs: l,
                                            reason: "unsupported initialiser".into(),
                                            approximation: true,
                                        },
                                        pos,
                                    ),
                                }
                            }
                        }
                        None => {
                            let fb = self.fb();
                            if fb.loop_depth > 0 || fb.seen_label {
                                let lhs = self.var_expr(v);
                                self.emit(
                                    EdgeKind::Havoc {
                                        lhs,
                                        reason: "uninitialised".into(),
                                        approximation: false,
                                    },
                                    pos,
                                );
                            }
                            self.vla_length(v, &name, &id.node.declarator.node, pos)?;
                        }
                    }
                }
            }
        }
        Ok(())
    }
}
