//! Declarations: imports, types, members, parameters, methods.

use super::*;
use crate::java::fields::{self, Fields};

impl<'a> Lowerer<'a> {
    pub(super) fn import(&mut self, n: Node<'_>) {
        let mut is_static = false;
        let mut wildcard = false;
        let mut path = String::new();
        let mut c = n.walk();
        for ch in n.children(&mut c) {
            match ch.kind() {
                "static" => is_static = true,
                "asterisk" => wildcard = true,
                "scoped_identifier" | "identifier" => path = self.text(ch).to_string(),
                _ => {}
            }
        }
        if !path.is_empty() {
            self.facts.imports.push(Import {
                path: path.into(),
                is_static,
                wildcard,
            });
        }
    }

    pub(super) fn modifiers(&mut self, n: Node<'_>) -> (Modifiers, Vec<Annotation>) {
        let mut m = Modifiers::default();
        let mut anns = Vec::new();
        let Some(mods) = named_child_of_kinds(n, &["modifiers"]) else {
            return (m, anns);
        };
        let mut c = mods.walk();
        for ch in mods.children(&mut c) {
            match ch.kind() {
                "public" => m.is_public = true,
                "private" => m.is_private = true,
                "static" => m.is_static = true,
                "abstract" => m.is_abstract = true,
                "final" => m.is_final = true,
                "marker_annotation" | "annotation" => anns.push(self.annotation(ch)),
                _ => {}
            }
        }
        (m, anns)
    }

    pub(super) fn annotation(&mut self, n: Node<'_>) -> Annotation {
        let name = self.field_text(n, fields::NAME);
        let mut args = Vec::new();
        if let Some(list) = n.field(fields::ARGUMENTS) {
            let mut c = list.walk();
            for ch in list.named_children(&mut c) {
                if ch.kind() == "element_value_pair" {
                    let key = ch.field(fields::KEY).map(|k| Name::new(self.text(k)));
                    if let Some(v) = ch.field(fields::VALUE) {
                        let e = self.annotation_value(v);
                        args.push((key, e));
                    }
                } else if ch.kind() != "comment" {
                    let e = self.annotation_value(ch);
                    args.push((None, e));
                }
            }
        }
        Annotation {
            name: name.into(),
            args,
            span: span_of(n),
        }
    }

    /// An annotation element's value; a class literal `X.class` keeps its type's name, as the
    /// field `class` of the type name `X` (`@FeignClient(configuration = X.class)` names a class).
    fn annotation_value(&mut self, n: Node<'_>) -> Expr {
        match n.kind() {
            "class_literal" => {
                let span = span_of(n);
                let ty = n
                    .named_child(0)
                    .map(|t| (self.text(t).to_string(), span_of(t)))
                    .unwrap_or_default();
                Expr::Field(Box::new(Expr::Name(ty.0, ty.1)), "class".into(), span)
            }
            "element_value_array_initializer" => {
                let mut c = n.walk();
                let items: Vec<Node<'_>> = n
                    .named_children(&mut c)
                    .filter(|ch| ch.kind() != "comment")
                    .collect();
                Expr::Op(
                    items
                        .into_iter()
                        .map(|ch| self.annotation_value(ch))
                        .collect(),
                    span_of(n),
                )
            }
            _ => self.expr(n),
        }
    }

    pub(super) fn type_decl(&mut self, n: Node<'_>, outer: Option<usize>) {
        let kind = match n.kind() {
            "class_declaration" => ClassKind::Class,
            "interface_declaration" => ClassKind::Interface,
            "enum_declaration" => ClassKind::Enum,
            "record_declaration" => ClassKind::Record,
            "annotation_type_declaration" => ClassKind::Annotation,
            _ => return,
        };
        if self.depth > MAX_DEPTH {
            self.too_deep(n);
            return;
        }
        let name = self.field_text(n, fields::NAME);
        let fqn = match outer {
            Some(o) => format!("{}.{}", self.facts.classes[o].fqn, name),
            None if self.facts.package.is_empty() => name.clone(),
            None => format!("{}.{}", self.facts.package, name),
        };
        let (modifiers, annotations) = self.modifiers(n);
        let mut supertypes = Vec::new();
        let mut generic_supertypes = Vec::new();
        let mut c = n.walk();
        for ch in n.named_children(&mut c) {
            if matches!(
                ch.kind(),
                "superclass" | "super_interfaces" | "extends_interfaces"
            ) {
                let mut stack = vec![ch];
                let mut c2 = ch.walk();
                while let Some(x) = stack.pop() {
                    match x.kind() {
                        "type_identifier" | "scoped_type_identifier" | "generic_type" => {
                            supertypes.push(erase_type(self.text(x)));
                            generic_supertypes.extend(super::generic_type(self.text(x)));
                        }
                        _ => stack.extend(x.named_children(&mut c2)),
                    }
                }
            }
        }
        let idx = self.facts.classes.len();
        self.facts.classes.push(Class {
            name: name.into(),
            fqn: fqn.into(),
            kind,
            supertypes: supertypes.into_iter().map(Name::from).collect(),
            generic_supertypes,
            type_params: self.type_params(n),
            annotations,
            modifiers,
            fields: Vec::new(),
            outer,
            span: span_of(n),
            initializer: None,
            field_names: Vec::new(),
            initialized_annotations: Vec::new(),
        });
        self.depth += 1;
        if kind == ClassKind::Record
            && let Some(params) = n.field(fields::PARAMETERS)
        {
            // The canonical constructor: its parameters are the components.
            let ps = self.params(params);
            for p in &ps {
                self.facts.classes[idx].fields.push(Field {
                    name: p.name,
                    ty: p.ty,
                    generic: p.generic,
                    init: None,
                    modifiers: Modifiers {
                        is_final: true,
                        ..Default::default()
                    },
                    span: span_of(params),
                });
                let names = crate::java::ir::names_of(&p.annotations);
                self.facts.classes[idx]
                    .field_names
                    .extend(names.into_iter().map(|(a, v)| (p.name, a, v)));
            }
            let name = self.facts.classes[idx].name;
            self.facts.methods.push(Method {
                name,
                class: idx,
                params: ps,
                ret: Name::default(),
                ret_generic: None,
                annotations: Vec::new(),
                modifiers: Modifiers {
                    is_public: true,
                    ..Default::default()
                },
                is_ctor: true,
                delegates: false,
                body: Body::new(None),
                span: span_of(params),
                name_span: span_of(params),
                throws: Vec::new(),
                type_params: Vec::new(),
                scopes: vec![Scope {
                    parent: None,
                    span: span_of(params),
                    params: Vec::new(),
                }],
            });
        }
        if let Some(body) = n.field(fields::BODY) {
            self.class_body(body, idx);
        }
        self.depth -= 1;
    }

    pub(super) fn class_body(&mut self, body: Node<'_>, class: usize) {
        let mut init_block: Block = Vec::new();
        // Field initializers and initializer blocks share one pseudo-method and its scope table.
        let mut init_scopes = vec![Scope {
            parent: None,
            span: span_of(body),
            params: Vec::new(),
        }];
        let mut c = body.walk();
        let members: Vec<Node<'_>> = body.named_children(&mut c).collect();
        for m in members {
            match m.kind() {
                "field_declaration" | "constant_declaration" | "block" => {
                    let saved =
                        std::mem::replace(&mut self.scopes, std::mem::take(&mut init_scopes));
                    let saved_scope = std::mem::replace(&mut self.scope, 0);
                    self.field_or_block(m, class, &mut init_block);
                    init_scopes = std::mem::replace(&mut self.scopes, saved);
                    self.scope = saved_scope;
                }
                "method_declaration"
                | "constructor_declaration"
                | "compact_constructor_declaration" => {
                    let saved = std::mem::take(&mut self.scopes);
                    let saved_scope = self.scope;
                    self.method(m, class);
                    self.scopes = saved;
                    self.scope = saved_scope;
                }
                "enum_body_declarations" => self.class_body(m, class),
                "enum_constant" => {
                    if let Some(b) = m.field(fields::BODY) {
                        self.class_body(b, class);
                    }
                }
                _ => {
                    let saved = std::mem::take(&mut self.scopes);
                    let saved_scope = self.scope;
                    self.type_decl(m, Some(class));
                    self.scopes = saved;
                    self.scope = saved_scope;
                }
            }
        }
        if !init_block.is_empty() {
            let idx = self.facts.methods.len();
            self.facts.methods.push(Method {
                name: "<init>".into(),
                class,
                params: Vec::new(),
                ret: Name::default(),
                ret_generic: None,
                annotations: Vec::new(),
                modifiers: Modifiers::default(),
                is_ctor: false,
                delegates: false,
                body: Body::new(Some(init_block)),
                span: span_of(body),
                name_span: span_of(body),
                scopes: init_scopes,
                throws: Vec::new(),
                type_params: Vec::new(),
            });
            if self.facts.classes[class].initializer.is_none() {
                self.facts.classes[class].initializer = Some(idx);
            }
        }
    }

    pub(super) fn field_or_block(&mut self, m: Node<'_>, class: usize, init_block: &mut Block) {
        if m.kind() == "block" {
            let b = self.block(m);
            init_block.push(Stmt::Block(b));
            return;
        }
        let (mut modifiers, annotations) = self.modifiers(m);
        let named = crate::java::ir::names_of(&annotations);
        if self.facts.classes[class].kind == ClassKind::Interface {
            // Interface fields are constants.
            modifiers.is_static = true;
            modifiers.is_final = true;
        }
        let ty = self.field_type(m);
        let generic = self.field_generic(m);
        let mut c2 = m.walk();
        let decls: Vec<Node<'_>> = m.fields(fields::DECLARATOR, &mut c2).collect();
        for d in decls {
            let name = self.field_text(d, fields::NAME);
            let init = d.field(fields::VALUE).map(|v| self.expr(v));
            let has_init = init.is_some();
            if let Some(e) = &init
                && !modifiers.is_static
            {
                init_block.push(Stmt::Expr(Expr::Assign(Box::new(Assign {
                    target: Expr::Field(Box::new(Expr::This(span_of(d))), name.clone(), span_of(d)),
                    op: "=".into(),
                    value: e.clone(),
                    span: span_of(d),
                }))));
            }
            let field = Name::new(&name);
            self.facts.classes[class].fields.push(Field {
                name: field,
                ty: Name::new(&ty),
                generic,
                init,
                modifiers: modifiers.clone(),
                span: span_of(d),
            });
            if has_init {
                self.facts.classes[class]
                    .initialized_annotations
                    .extend(annotations.iter().map(|a| (field, a.name)));
            }
            self.facts.classes[class]
                .field_names
                .extend(named.iter().map(|(a, v)| (field, *a, *v)));
        }
    }

    pub(super) fn params(&mut self, n: Node<'_>) -> Vec<Param> {
        let mut out = Vec::new();
        let mut c = n.walk();
        for p in n.named_children(&mut c) {
            match p.kind() {
                "formal_parameter" => {
                    let (_, annotations) = self.modifiers(p);
                    let ty = self.field_type(p);
                    let generic = self.field_generic(p);
                    let name = self.field_text(p, fields::NAME);
                    out.push(Param {
                        name: name.into(),
                        ty: ty.into(),
                        generic,
                        annotations,
                        span: span_of(p),
                    });
                }
                "spread_parameter" => {
                    let (_, annotations) = self.modifiers(p);
                    let mut ty = String::new();
                    let mut name = String::new();
                    let mut c2 = p.walk();
                    for ch in p.named_children(&mut c2) {
                        match ch.kind() {
                            "variable_declarator" => name = self.field_text(ch, fields::NAME),
                            "modifiers" => {}
                            _ if ty.is_empty() => ty = erase_type(self.text(ch)) + "[]",
                            _ => {}
                        }
                    }
                    out.push(Param {
                        name: name.into(),
                        ty: ty.into(),
                        generic: None,
                        annotations,
                        span: span_of(p),
                    });
                }
                _ => {}
            }
        }
        out
    }

    /// The names of the type parameters a class or method declares (`<T, K extends Key>`).
    fn type_params(&self, n: Node<'_>) -> Vec<Name> {
        let Some(tp) = n.field(fields::TYPE_PARAMETERS) else {
            return Vec::new();
        };
        let mut c = tp.walk();
        tp.named_children(&mut c)
            .filter(|p| p.kind() == "type_parameter")
            .filter_map(|p| {
                let mut c2 = p.walk();
                let name = p
                    .named_children(&mut c2)
                    .find(|x| matches!(x.kind(), "type_identifier" | "identifier"));
                name.map(|x| Name::from(self.text(x)))
            })
            .collect()
    }

    pub(super) fn method(&mut self, n: Node<'_>, class: usize) {
        let (modifiers, annotations) = self.modifiers(n);
        let is_ctor = n.kind() != "method_declaration";
        let name_node = n.field(fields::NAME);
        let name = name_node
            .map(|x| self.text(x).to_string())
            .unwrap_or_default();
        let params = n
            .field(fields::PARAMETERS)
            .map(|p| self.params(p))
            .unwrap_or_else(|| {
                if n.kind() == "compact_constructor_declaration" {
                    // Components of the record are the parameters.
                    self.facts.classes[class]
                        .fields
                        .iter()
                        .map(|f| Param {
                            name: f.name,
                            ty: f.ty,
                            generic: f.generic,
                            annotations: Vec::new(),
                            span: f.span,
                        })
                        .collect()
                } else {
                    Vec::new()
                }
            });
        let ret = self.field_type(n);
        let ret_generic = self.field_generic(n);
        self.scopes = vec![Scope {
            parent: None,
            span: span_of(n),
            params: Vec::new(),
        }];
        self.scope = 0;
        let body = n.field(fields::BODY).map(|b| self.block(b));
        let class_is_interface = self.facts.classes[class].kind == ClassKind::Interface;
        let mut modifiers = modifiers;
        if body.is_none() && (class_is_interface || modifiers.is_abstract) {
            modifiers.is_abstract = true;
        }
        if class_is_interface && !modifiers.is_private {
            modifiers.is_public = true;
        }
        let scopes = std::mem::take(&mut self.scopes);
        let mut throws = Vec::new();
        let mut c = n.walk();
        for ch in n.children(&mut c) {
            if ch.kind() == "throws" {
                let mut tc = ch.walk();
                for t in ch.named_children(&mut tc) {
                    throws.push(erase_type(self.text(t)));
                }
            }
        }
        let delegates = is_ctor
            && matches!(body.as_deref().and_then(<[Stmt]>::first), Some(Stmt::Expr(Expr::Call(c)))
                if c.recv.is_none() && matches!(c.name.as_str(), "this" | "super"));
        self.facts.methods.push(Method {
            name: name.into(),
            class,
            params,
            ret: ret.into(),
            ret_generic,
            annotations,
            modifiers,
            is_ctor,
            delegates,
            body: Body::new(body),
            span: span_of(n),
            name_span: name_node.map(span_of).unwrap_or_else(|| span_of(n)),
            scopes,
            throws: throws.into_iter().map(Name::from).collect(),
            type_params: self.type_params(n),
        });
    }
}
