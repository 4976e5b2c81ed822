//! Lowering of a tree-sitter-java tree into [`FileFacts`].
//!
//! Recursion follows the tree but is capped at [`MAX_DEPTH`]: anything nested deeper is kept as
//! an opaque expression, so pathological nesting costs a lost detail, never a stack overflow.

use super::ir::*;
use tree_sitter::Node;

const MAX_DEPTH: usize = 200;

pub struct Lowerer<'a> {
    src: &'a [u8],
    facts: FileFacts,
    /// Scopes of the method being lowered.
    scopes: Vec<Scope>,
    scope: ScopeId,
    depth: usize,
    /// Update expressions (`x++`) lowered so far.
    updates: usize,
}

pub fn lower(root: Node<'_>, src: &[u8]) -> FileFacts {
    let mut l = Lowerer {
        src,
        facts: FileFacts::default(),
        scopes: Vec::new(),
        scope: 0,
        depth: 0,
        updates: 0,
    };
    l.collect_errors(root);
    l.facts.line_starts = std::iter::once(0)
        .chain(
            src.iter()
                .enumerate()
                .filter(|(_, b)| **b == b'\n')
                .map(|(i, _)| i as u32 + 1),
        )
        .collect();
    let mut cursor = root.walk();
    for child in root.named_children(&mut cursor) {
        match child.kind() {
            "package_declaration" => {
                if let Some(n) = named_child_of_kinds(child, &["scoped_identifier", "identifier"]) {
                    l.facts.package = l.text(n).to_string();
                }
            }
            "import_declaration" => l.import(child),
            _ => l.type_decl(child, None),
        }
    }
    l.facts
}

pub fn span_of(n: Node<'_>) -> Span {
    Span {
        start: n.start_byte() as u32,
        end: n.end_byte() as u32,
    }
}

fn named_child_of_kinds<'t>(n: Node<'t>, kinds: &[&str]) -> Option<Node<'t>> {
    let mut c = n.walk();
    n.named_children(&mut c)
        .find(|ch| kinds.contains(&ch.kind()))
}

/// Type text without generics, annotations or whitespace: `Map<String, X>` → `Map`.
pub fn erase_type(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut depth = 0usize;
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '<' => depth += 1,
            '>' => depth = depth.saturating_sub(1),
            '@' if depth == 0 => {
                // skip an annotation name (and its arguments, if any)
                while chars
                    .peek()
                    .is_some_and(|c| c.is_alphanumeric() || *c == '.' || *c == '_')
                {
                    chars.next();
                }
                if chars.peek() == Some(&'(') {
                    let mut p = 0;
                    for c in chars.by_ref() {
                        if c == '(' {
                            p += 1
                        } else if c == ')' {
                            p -= 1;
                            if p == 0 {
                                break;
                            }
                        }
                    }
                }
            }
            c if depth == 0 && !c.is_whitespace() => out.push(c),
            _ => {}
        }
    }
    out
}

impl<'a> Lowerer<'a> {
    fn text(&self, n: Node<'_>) -> &'a str {
        std::str::from_utf8(&self.src[n.start_byte()..n.end_byte()]).unwrap_or("")
    }

    fn collect_errors(&mut self, root: Node<'_>) {
        if !root.has_error() {
            return;
        }
        let mut cursor = root.walk();
        let mut stack = vec![root];
        while let Some(n) = stack.pop() {
            if n.is_error() || n.is_missing() {
                self.facts.syntax_errors.push(span_of(n));
                continue;
            }
            if n.has_error() {
                stack.extend(n.children(&mut cursor));
            }
        }
        self.facts.syntax_errors.sort();
    }

    fn import(&mut self, n: Node<'_>) {
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
                path,
                is_static,
                wildcard,
            });
        }
    }

    fn modifiers(&mut self, n: Node<'_>) -> (Modifiers, Vec<Annotation>) {
        let mut m = Modifiers::default();
        let mut anns = Vec::new();
        let Some(mods) = named_child_of_kinds(n, &["modifiers"]) else {
            return (m, anns);
        };
        let mut c = mods.walk();
        for ch in mods.children(&mut c) {
            match ch.kind() {
                "public" => m.is_public = true,
                "static" => m.is_static = true,
                "abstract" => m.is_abstract = true,
                "final" => m.is_final = true,
                "marker_annotation" | "annotation" => anns.push(self.annotation(ch)),
                _ => {}
            }
        }
        (m, anns)
    }

    fn annotation(&mut self, n: Node<'_>) -> Annotation {
        let name = self.field_text(n, "name");
        let mut args = Vec::new();
        if let Some(list) = n.child_by_field_name("arguments") {
            let mut c = list.walk();
            for ch in list.named_children(&mut c) {
                if ch.kind() == "element_value_pair" {
                    let key = ch
                        .child_by_field_name("key")
                        .map(|k| self.text(k).to_string());
                    if let Some(v) = ch.child_by_field_name("value") {
                        let e = self.expr(v);
                        args.push((key, e));
                    }
                } else if ch.kind() != "comment" {
                    let e = self.expr(ch);
                    args.push((None, e));
                }
            }
        }
        Annotation {
            name,
            args,
            span: span_of(n),
        }
    }

    fn type_decl(&mut self, n: Node<'_>, outer: Option<usize>) {
        let kind = match n.kind() {
            "class_declaration" => ClassKind::Class,
            "interface_declaration" => ClassKind::Interface,
            "enum_declaration" => ClassKind::Enum,
            "record_declaration" => ClassKind::Record,
            "annotation_type_declaration" => ClassKind::Annotation,
            _ => return,
        };
        if self.depth > MAX_DEPTH {
            return;
        }
        let name = self.field_text(n, "name");
        let fqn = match outer {
            Some(o) => format!("{}.{}", self.facts.classes[o].fqn, name),
            None if self.facts.package.is_empty() => name.clone(),
            None => format!("{}.{}", self.facts.package, name),
        };
        let (modifiers, annotations) = self.modifiers(n);
        let mut supertypes = Vec::new();
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
                            supertypes.push(erase_type(self.text(x)))
                        }
                        _ => stack.extend(x.named_children(&mut c2)),
                    }
                }
            }
        }
        let idx = self.facts.classes.len();
        self.facts.classes.push(Class {
            name,
            fqn,
            kind,
            supertypes,
            annotations,
            modifiers,
            fields: Vec::new(),
            outer,
            span: span_of(n),
            initializer: None,
        });
        self.depth += 1;
        if kind == ClassKind::Record
            && let Some(params) = n.child_by_field_name("parameters")
        {
            // The canonical constructor: its parameters are the components.
            let ps = self.params(params);
            for p in &ps {
                self.facts.classes[idx].fields.push(Field {
                    name: p.name.clone(),
                    ty: p.ty.clone(),
                    init: None,
                    modifiers: Modifiers {
                        is_final: true,
                        ..Default::default()
                    },
                    span: span_of(params),
                });
            }
            let name = self.facts.classes[idx].name.clone();
            self.facts.methods.push(Method {
                name,
                class: idx,
                params: ps,
                ret: String::new(),
                annotations: Vec::new(),
                modifiers: Modifiers {
                    is_public: true,
                    ..Default::default()
                },
                is_ctor: true,
                body: None,
                span: span_of(params),
                name_span: span_of(params),
                scopes: vec![Scope {
                    parent: None,
                    span: span_of(params),
                    params: Vec::new(),
                }],
            });
        }
        if let Some(body) = n.child_by_field_name("body") {
            self.class_body(body, idx);
        }
        self.depth -= 1;
    }

    fn class_body(&mut self, body: Node<'_>, class: usize) {
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
                    if let Some(b) = m.child_by_field_name("body") {
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
                ret: String::new(),
                annotations: Vec::new(),
                modifiers: Modifiers::default(),
                is_ctor: false,
                body: Some(init_block),
                span: span_of(body),
                name_span: span_of(body),
                scopes: init_scopes,
            });
            if self.facts.classes[class].initializer.is_none() {
                self.facts.classes[class].initializer = Some(idx);
            }
        }
    }

    fn field_or_block(&mut self, m: Node<'_>, class: usize, init_block: &mut Block) {
        if m.kind() == "block" {
            let b = self.block(m);
            init_block.push(Stmt::Block(b));
            return;
        }
        let (mut modifiers, _) = self.modifiers(m);
        if self.facts.classes[class].kind == ClassKind::Interface {
            // Interface fields are constants.
            modifiers.is_static = true;
            modifiers.is_final = true;
        }
        let ty = self.field_type(m);
        let mut c2 = m.walk();
        let decls: Vec<Node<'_>> = m.children_by_field_name("declarator", &mut c2).collect();
        for d in decls {
            let name = self.field_text(d, "name");
            let init = d.child_by_field_name("value").map(|v| self.expr(v));
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
            self.facts.classes[class].fields.push(Field {
                name,
                ty: ty.clone(),
                init,
                modifiers: modifiers.clone(),
                span: span_of(d),
            });
        }
    }

    fn params(&mut self, n: Node<'_>) -> Vec<Param> {
        let mut out = Vec::new();
        let mut c = n.walk();
        for p in n.named_children(&mut c) {
            match p.kind() {
                "formal_parameter" => {
                    let (_, annotations) = self.modifiers(p);
                    let ty = self.field_type(p);
                    let name = self.field_text(p, "name");
                    out.push(Param {
                        name,
                        ty,
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
                            "variable_declarator" => name = self.field_text(ch, "name"),
                            "modifiers" => {}
                            _ if ty.is_empty() => ty = erase_type(self.text(ch)) + "[]",
                            _ => {}
                        }
                    }
                    out.push(Param {
                        name,
                        ty,
                        annotations,
                        span: span_of(p),
                    });
                }
                _ => {}
            }
        }
        out
    }

    fn method(&mut self, n: Node<'_>, class: usize) {
        let (modifiers, annotations) = self.modifiers(n);
        let is_ctor = n.kind() != "method_declaration";
        let name_node = n.child_by_field_name("name");
        let name = name_node
            .map(|x| self.text(x).to_string())
            .unwrap_or_default();
        let params = n
            .child_by_field_name("parameters")
            .map(|p| self.params(p))
            .unwrap_or_else(|| {
                if n.kind() == "compact_constructor_declaration" {
                    // Components of the record are the parameters.
                    self.facts.classes[class]
                        .fields
                        .iter()
                        .map(|f| Param {
                            name: f.name.clone(),
                            ty: f.ty.clone(),
                            annotations: Vec::new(),
                            span: f.span,
                        })
                        .collect()
                } else {
                    Vec::new()
                }
            });
        let ret = self.field_type(n);
        self.scopes = vec![Scope {
            parent: None,
            span: span_of(n),
            params: Vec::new(),
        }];
        self.scope = 0;
        let body = n.child_by_field_name("body").map(|b| self.block(b));
        let class_is_interface = self.facts.classes[class].kind == ClassKind::Interface;
        let mut modifiers = modifiers;
        if body.is_none() && (class_is_interface || modifiers.is_abstract) {
            modifiers.is_abstract = true;
        }
        if class_is_interface {
            modifiers.is_public = true;
        }
        let scopes = std::mem::take(&mut self.scopes);
        self.facts.methods.push(Method {
            name,
            class,
            params,
            ret,
            annotations,
            modifiers,
            is_ctor,
            body,
            span: span_of(n),
            name_span: name_node.map(span_of).unwrap_or_else(|| span_of(n)),
            scopes,
        });
    }

    fn block(&mut self, n: Node<'_>) -> Block {
        if self.depth > MAX_DEPTH {
            return Vec::new();
        }
        self.depth += 1;
        let mut out = Vec::new();
        if n.kind() == "block"
            || n.kind() == "constructor_body"
            || n.kind() == "switch_block_statement_group"
        {
            let mut c = n.walk();
            for ch in n.named_children(&mut c) {
                self.stmt_into(ch, &mut out);
            }
        } else {
            self.stmt_into(n, &mut out);
        }
        self.depth -= 1;
        out
    }

    fn stmt_into(&mut self, n: Node<'_>, out: &mut Block) {
        if self.depth > MAX_DEPTH {
            return;
        }
        self.depth += 1;
        match n.kind() {
            "local_variable_declaration" => {
                let ty = self.field_type(n);
                let mut c = n.walk();
                let decls: Vec<Node<'_>> = n.children_by_field_name("declarator", &mut c).collect();
                for d in decls {
                    let name = self.field_text(d, "name");
                    let init = d.child_by_field_name("value").map(|v| self.expr(v));
                    out.push(Stmt::Local {
                        ty: ty.clone(),
                        name,
                        init,
                        span: span_of(d),
                    });
                }
            }
            "expression_statement" => {
                if let Some(e) = n.named_child(0) {
                    let e = self.expr(e);
                    out.push(Stmt::Expr(e));
                }
            }
            "if_statement" => {
                let cond = n
                    .child_by_field_name("condition")
                    .map(|c| self.expr(c))
                    .unwrap_or(Expr::Opaque(span_of(n)));
                let then = n
                    .child_by_field_name("consequence")
                    .map(|c| self.block(c))
                    .unwrap_or_default();
                let els = n.child_by_field_name("alternative").map(|c| self.block(c));
                out.push(Stmt::If { cond, then, els });
            }
            "while_statement" | "do_statement" => {
                // The loop body is a scope of its own: a retry loop is a region.
                let scope = self.new_scope(n, Vec::new());
                let saved = std::mem::replace(&mut self.scope, scope);
                let cond = n.child_by_field_name("condition").map(|c| self.expr(c));
                let body = n
                    .child_by_field_name("body")
                    .map(|c| self.block(c))
                    .unwrap_or_default();
                self.scope = saved;
                out.push(Stmt::Loop {
                    head: Vec::new(),
                    cond,
                    update: Vec::new(),
                    body,
                    each: None,
                    scope,
                    span: n.child(0).map(span_of).unwrap_or_else(|| span_of(n)),
                });
            }
            "for_statement" => {
                let mut head = Vec::new();
                let mut c = n.walk();
                let inits: Vec<Node<'_>> = n.children_by_field_name("init", &mut c).collect();
                for i in inits {
                    if i.kind() == "local_variable_declaration" {
                        self.stmt_into(i, &mut head);
                    } else {
                        let e = self.expr(i);
                        head.push(Stmt::Expr(e));
                    }
                }
                let scope = self.new_scope(n, Vec::new());
                let saved = std::mem::replace(&mut self.scope, scope);
                let cond = n.child_by_field_name("condition").map(|c| self.expr(c));
                let mut c = n.walk();
                let ups: Vec<Node<'_>> = n.children_by_field_name("update", &mut c).collect();
                let update = ups.into_iter().map(|u| self.expr(u)).collect();
                let body = n
                    .child_by_field_name("body")
                    .map(|c| self.block(c))
                    .unwrap_or_default();
                self.scope = saved;
                out.push(Stmt::Loop {
                    head,
                    cond,
                    update,
                    body,
                    each: None,
                    scope,
                    span: n.child(0).map(span_of).unwrap_or_else(|| span_of(n)),
                });
            }
            "enhanced_for_statement" => {
                let ty = self.field_type(n);
                let name = self.field_text(n, "name");
                let value = n
                    .child_by_field_name("value")
                    .map(|v| self.expr(v))
                    .unwrap_or(Expr::Opaque(span_of(n)));
                let body = n
                    .child_by_field_name("body")
                    .map(|c| self.block(c))
                    .unwrap_or_default();
                out.push(Stmt::Loop {
                    head: Vec::new(),
                    cond: None,
                    update: Vec::new(),
                    body,
                    each: Some((ty, name, value)),
                    scope: self.scope,
                    span: span_of(n),
                });
            }
            "try_statement" | "try_with_resources_statement" => {
                let mut resources = Vec::new();
                if let Some(r) = n.child_by_field_name("resources") {
                    let mut c = r.walk();
                    for res in r.named_children(&mut c) {
                        let ty = self.field_type(res);
                        let name = self.field_text(res, "name");
                        let init = res.child_by_field_name("value").map(|v| self.expr(v));
                        resources.push(Stmt::Local {
                            ty,
                            name,
                            init,
                            span: span_of(res),
                        });
                    }
                }
                let body = n
                    .child_by_field_name("body")
                    .map(|c| self.block(c))
                    .unwrap_or_default();
                let mut catches = Vec::new();
                let mut finally = None;
                let mut c = n.walk();
                for ch in n.named_children(&mut c) {
                    match ch.kind() {
                        "catch_clause" => {
                            let param = named_child_of_kinds(ch, &["catch_formal_parameter"])
                                .and_then(|p| p.child_by_field_name("name"))
                                .map(|x| self.text(x).to_string())
                                .unwrap_or_default();
                            let b = ch
                                .child_by_field_name("body")
                                .map(|b| self.block(b))
                                .unwrap_or_default();
                            catches.push((param, b));
                        }
                        "finally_clause" => {
                            finally = named_child_of_kinds(ch, &["block"]).map(|b| self.block(b));
                        }
                        _ => {}
                    }
                }
                out.push(Stmt::Try {
                    resources,
                    body,
                    catches,
                    finally,
                });
            }
            "return_statement" => {
                let e = n.named_child(0).map(|e| self.expr(e));
                out.push(Stmt::Return(e, span_of(n)));
            }
            "yield_statement" => {
                let e = n.named_child(0).map(|e| self.expr(e));
                out.push(Stmt::Return(e, span_of(n)));
            }
            "throw_statement" => {
                if let Some(e) = n.named_child(0) {
                    let e = self.expr(e);
                    out.push(Stmt::Throw(e));
                }
            }
            "block" => {
                let b = self.block(n);
                out.push(Stmt::Block(b));
            }
            "labeled_statement" => {
                let mut c = n.walk();
                let kids: Vec<Node<'_>> = n.named_children(&mut c).collect();
                for ch in kids {
                    if ch.kind() != "identifier" {
                        self.stmt_into(ch, out);
                    }
                }
            }
            "synchronized_statement" => {
                if let Some(b) = n.child_by_field_name("body") {
                    let b = self.block(b);
                    out.push(Stmt::Block(b));
                }
            }
            "switch_expression" | "switch_statement" => {
                let e = self.expr(n);
                out.push(Stmt::Expr(e));
            }
            "break_statement" => out.push(Stmt::Break),
            "continue_statement" => out.push(Stmt::Continue),
            "assert_statement" | ";" | "line_comment" | "block_comment" => out.push(Stmt::Jump),
            "explicit_constructor_invocation" => {
                // this(…) / super(…): arguments still evaluate.
                let args = n
                    .child_by_field_name("arguments")
                    .map(|a| self.args(a))
                    .unwrap_or_default();
                out.push(Stmt::Expr(Expr::Op(args, span_of(n))));
            }
            "class_declaration"
            | "record_declaration"
            | "interface_declaration"
            | "enum_declaration" => {
                // Local classes: lowered as top-level members of the current class would be, but
                // the current method's scope table must survive.
                let saved_scopes = std::mem::take(&mut self.scopes);
                let saved_scope = self.scope;
                self.type_decl(n, None);
                self.scopes = saved_scopes;
                self.scope = saved_scope;
            }
            _ => {
                if n.kind().ends_with("expression") || n.kind() == "method_invocation" {
                    let e = self.expr(n);
                    out.push(Stmt::Expr(e));
                }
            }
        }
        self.depth -= 1;
    }

    fn args(&mut self, n: Node<'_>) -> Vec<Expr> {
        let mut c = n.walk();
        let kids: Vec<Node<'_>> = n.named_children(&mut c).filter(|k| !k.is_extra()).collect();
        kids.into_iter().map(|k| self.expr(k)).collect()
    }

    fn new_scope(&mut self, n: Node<'_>, params: Vec<(String, Option<String>)>) -> ScopeId {
        let id = self.scopes.len() as ScopeId;
        self.scopes.push(Scope {
            parent: Some(self.scope),
            span: span_of(n),
            params,
        });
        id
    }

    /// The text of field `field` of `n`, or an empty string where it is missing.
    fn field_text(&self, n: Node<'_>, field: &str) -> String {
        n.child_by_field_name(field)
            .map(|x| self.text(x).to_string())
            .unwrap_or_default()
    }

    /// The erased type written in the `type` field of `n`.
    fn field_type(&self, n: Node<'_>) -> String {
        n.child_by_field_name("type")
            .map(|t| erase_type(self.text(t)))
            .unwrap_or_default()
    }

    /// The lowered expression in field `field` of `n`, or an opaque one where it is missing.
    fn field_expr(&mut self, n: Node<'_>, field: &str, span: Span) -> Expr {
        n.child_by_field_name(field)
            .map(|x| self.expr(x))
            .unwrap_or(Expr::Opaque(span))
    }

    pub fn expr(&mut self, n: Node<'_>) -> Expr {
        let span = span_of(n);
        if self.depth > MAX_DEPTH {
            return Expr::Opaque(span);
        }
        self.depth += 1;
        let e = self.expr_inner(n, span);
        self.depth -= 1;
        e
    }

    fn expr_inner(&mut self, n: Node<'_>, span: Span) -> Expr {
        match n.kind() {
            "method_invocation" => {
                let obj = n.child_by_field_name("object");
                let on_super = obj.is_some_and(|o| o.kind() == "super");
                let recv = obj.filter(|o| o.kind() != "super").map(|o| self.expr(o));
                let name_node = n.child_by_field_name("name");
                let name = name_node
                    .map(|x| self.text(x).to_string())
                    .unwrap_or_default();
                let args = n
                    .child_by_field_name("arguments")
                    .map(|a| self.args(a))
                    .unwrap_or_default();
                Expr::Call(Box::new(Call {
                    recv,
                    name,
                    args,
                    span,
                    name_span: name_node.map(span_of).unwrap_or(span),
                    scope: self.scope,
                    on_super,
                }))
            }
            "object_creation_expression" => {
                let ty = self.field_type(n);
                let args = n
                    .child_by_field_name("arguments")
                    .map(|a| self.args(a))
                    .unwrap_or_default();
                let mut anon = Vec::new();
                if let Some(body) = named_child_of_kinds(n, &["class_body"]) {
                    let mut c = body.walk();
                    let members: Vec<Node<'_>> = body.named_children(&mut c).collect();
                    for m in members {
                        if m.kind() != "method_declaration" {
                            continue;
                        }
                        let name = self.field_text(m, "name");
                        let params: Vec<(String, Option<String>)> = m
                            .child_by_field_name("parameters")
                            .map(|p| self.params(p))
                            .unwrap_or_default()
                            .into_iter()
                            .map(|p| (p.name, Some(p.ty)))
                            .collect();
                        let scope = self.new_scope(m, params);
                        let saved = self.scope;
                        self.scope = scope;
                        let body = m
                            .child_by_field_name("body")
                            .map(|b| self.block(b))
                            .unwrap_or_default();
                        self.scope = saved;
                        anon.push(AnonMethod { name, scope, body });
                    }
                }
                Expr::New(Box::new(New {
                    ty,
                    args,
                    span,
                    scope: self.scope,
                    anon,
                }))
            }
            "identifier" => Expr::Name(self.text(n).to_string(), span),
            "field_access" => {
                let obj = n
                    .child_by_field_name("object")
                    .map(|o| self.expr(o))
                    .unwrap_or(Expr::Opaque(span));
                let field = n
                    .child_by_field_name("field")
                    .map(|f| self.text(f).to_string())
                    .unwrap_or_default();
                Expr::Field(Box::new(obj), field, span)
            }
            "this" => Expr::This(span),
            "super" => Expr::This(span),
            "string_literal" => Expr::Str(unquote(self.text(n)), span),
            "null_literal" => Expr::Null(span),
            "character_literal"
            | "decimal_integer_literal"
            | "hex_integer_literal"
            | "octal_integer_literal"
            | "binary_integer_literal"
            | "decimal_floating_point_literal"
            | "hex_floating_point_literal"
            | "true"
            | "false" => Expr::Lit(self.text(n).to_string(), span),
            "lambda_expression" => {
                let mut params = Vec::new();
                if let Some(p) = n.child_by_field_name("parameters") {
                    match p.kind() {
                        "identifier" => params.push((self.text(p).to_string(), None)),
                        "formal_parameters" => {
                            params = self
                                .params(p)
                                .into_iter()
                                .map(|p| (p.name, Some(p.ty)))
                                .collect()
                        }
                        _ => {
                            let mut c = p.walk();
                            for id in p.named_children(&mut c) {
                                if id.kind() == "identifier" {
                                    params.push((self.text(id).to_string(), None));
                                }
                            }
                        }
                    }
                }
                let scope = self.new_scope(n, params);
                let saved = self.scope;
                self.scope = scope;
                let body = match n.child_by_field_name("body") {
                    Some(b) if b.kind() == "block" => LambdaBody::Block(self.block(b)),
                    Some(b) => LambdaBody::Expr(self.expr(b)),
                    None => LambdaBody::Block(Vec::new()),
                };
                self.scope = saved;
                Expr::Lambda(Box::new(Lambda { scope, body, span }))
            }
            "method_reference" => {
                let mut c = n.walk();
                let kids: Vec<Node<'_>> = n.children(&mut c).collect();
                let recv = kids
                    .first()
                    .map(|k| match k.kind() {
                        "this" | "super" => Expr::This(span_of(*k)),
                        "identifier" | "field_access" | "method_invocation" => self.expr(*k),
                        _ => Expr::Name(erase_type(self.text(*k)), span_of(*k)),
                    })
                    .unwrap_or(Expr::Opaque(span));
                let name = kids
                    .iter()
                    .rev()
                    .find(|k| k.kind() == "identifier" || k.kind() == "new")
                    .map(|k| self.text(*k).to_string())
                    .unwrap_or_default();
                Expr::MethodRef(Box::new(MethodRef {
                    recv,
                    name,
                    span,
                    scope: self.scope,
                }))
            }
            "assignment_expression" => {
                let target = self.field_expr(n, "left", span);
                let op = n
                    .child_by_field_name("operator")
                    .map(|x| self.text(x).to_string())
                    .unwrap_or_else(|| "=".into());
                let value = self.field_expr(n, "right", span);
                Expr::Assign(Box::new(Assign {
                    target,
                    op,
                    value,
                    span,
                }))
            }
            "binary_expression" => {
                let left = self.field_expr(n, "left", span);
                let op = self.field_text(n, "operator");
                let right = self.field_expr(n, "right", span);
                Expr::Binary(Box::new(Binary {
                    op,
                    left,
                    right,
                    span,
                }))
            }
            "ternary_expression" => {
                let c = self.field_expr(n, "condition", span);
                let a = self.field_expr(n, "consequence", span);
                let b = self.field_expr(n, "alternative", span);
                Expr::Ternary(Box::new(c), Box::new(a), Box::new(b), span)
            }
            "unary_expression" => {
                let op = n
                    .child_by_field_name("operator")
                    .map(|x| self.text(x))
                    .unwrap_or("");
                let operand = self.field_expr(n, "operand", span);
                if op == "!" {
                    Expr::Not(Box::new(operand), span)
                } else {
                    Expr::Op(vec![operand], span)
                }
            }
            "update_expression" => {
                // x++ / ++x: an assignment of x to itself. An operand that holds an update itself
                // (`a[i++]++`, what error recovery makes of `------`) is not copied into the
                // value: each level would double the tree.
                let before = self.updates;
                let target = n
                    .named_child(0)
                    .map(|x| self.expr(x))
                    .unwrap_or(Expr::Opaque(span));
                self.updates += 1;
                let value = if self.updates == before + 1 {
                    target.clone()
                } else {
                    Expr::Opaque(span)
                };
                Expr::Assign(Box::new(Assign {
                    value,
                    target,
                    op: "++".into(),
                    span,
                }))
            }
            "cast_expression" => {
                let ty = self.field_type(n);
                let v = self.field_expr(n, "value", span);
                Expr::Cast(ty, Box::new(v), span)
            }
            "parenthesized_expression" => {
                let inner = n
                    .named_child(0)
                    .map(|x| self.expr(x))
                    .unwrap_or(Expr::Opaque(span));
                Expr::Op(vec![inner], span)
            }
            "switch_expression" => {
                let scrutinee = self.field_expr(n, "condition", span);
                let mut arms = Vec::new();
                if let Some(body) = n.child_by_field_name("body") {
                    let mut c = body.walk();
                    let kids: Vec<Node<'_>> = body.named_children(&mut c).collect();
                    for arm in kids {
                        match arm.kind() {
                            "switch_block_statement_group" => arms.push(self.block(arm)),
                            "switch_rule" => {
                                let mut b = Vec::new();
                                let mut c2 = arm.walk();
                                let parts: Vec<Node<'_>> = arm.named_children(&mut c2).collect();
                                for p in parts {
                                    match p.kind() {
                                        "switch_label" => {}
                                        // `case X -> expr;`: the arm's value.
                                        "expression_statement" => {
                                            if let Some(e) = p.named_child(0) {
                                                let e = self.expr(e);
                                                b.push(Stmt::Return(Some(e), span_of(p)));
                                            }
                                        }
                                        "block" | "throw_statement" => self.stmt_into(p, &mut b),
                                        _ => {
                                            let e = self.expr(p);
                                            b.push(Stmt::Return(Some(e), span_of(p)));
                                        }
                                    }
                                }
                                arms.push(b);
                            }
                            _ => {}
                        }
                    }
                }
                Expr::Switch(Box::new(scrutinee), arms, span)
            }
            "instanceof_expression" | "class_literal" => Expr::Opaque(span),
            "array_creation_expression"
            | "array_initializer"
            | "array_access"
            | "element_value_array_initializer" => {
                let mut c = n.walk();
                let kids: Vec<Node<'_>> = n
                    .named_children(&mut c)
                    .filter(|k| {
                        !k.kind().ends_with("type")
                            && k.kind() != "dimensions"
                            && k.kind() != "dimensions_expr"
                    })
                    .collect();
                let v = kids.into_iter().map(|k| self.expr(k)).collect();
                Expr::Op(v, span)
            }
            "template_expression" | "text_block" => Expr::Str(unquote(self.text(n)), span),
            "marker_annotation" | "annotation" => Expr::Opaque(span),
            "scoped_identifier" => {
                // Only in annotation values: `a.b.C` — fold into field accesses.
                let t = self.text(n);
                let mut parts = t.split('.');
                let first = parts.next().unwrap_or("");
                let mut e = Expr::Name(first.trim().to_string(), span);
                for p in parts {
                    e = Expr::Field(Box::new(e), p.trim().to_string(), span);
                }
                e
            }
            _ => {
                let mut c = n.walk();
                let kids: Vec<Node<'_>> =
                    n.named_children(&mut c).filter(|k| !k.is_extra()).collect();
                if kids.is_empty() {
                    Expr::Opaque(span)
                } else {
                    let v = kids.into_iter().map(|k| self.expr(k)).collect();
                    Expr::Op(v, span)
                }
            }
        }
    }
}

/// The contents of a string literal; escapes other than `\"` and `\\` are kept as written.
fn unquote(s: &str) -> String {
    let t = s.trim();
    let t = t
        .strip_prefix("\"\"\"")
        .and_then(|x| x.strip_suffix("\"\"\""))
        .or_else(|| t.strip_prefix('"').and_then(|x| x.strip_suffix('"')))
        .unwrap_or(t);
    t.replace("\\\"", "\"").replace("\\\\", "\\")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn erases_generics_and_annotations() {
        assert_eq!(erase_type("Map<String, List<X>>"), "Map");
        assert_eq!(erase_type("@Nullable String"), "String");
        assert_eq!(
            erase_type("java.util. @NonNull List<String>"),
            "java.util.List"
        );
        assert_eq!(
            erase_type("RetryCallback<Charge, Exception>"),
            "RetryCallback"
        );
    }

    #[test]
    fn unquotes_literals() {
        assert_eq!(unquote("\"Idempotency-Key\""), "Idempotency-Key");
        assert_eq!(unquote("\"a\\\"b\""), "a\"b");
    }
}
