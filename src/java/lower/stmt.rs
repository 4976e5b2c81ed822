//! Statements: blocks, loops, `try`, jumps and local classes.

use super::*;
use crate::java::fields::{self, Fields};

impl<'a> Lowerer<'a> {
    pub(super) fn block(&mut self, n: Node<'_>) -> Block {
        if self.depth > MAX_DEPTH {
            self.too_deep(n);
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

    pub(super) fn stmt_into(&mut self, n: Node<'_>, out: &mut Block) {
        if self.depth > MAX_DEPTH {
            self.too_deep(n);
            return;
        }
        self.depth += 1;
        match n.kind() {
            "local_variable_declaration" => self.local_decl(n, out),
            "expression_statement" => {
                if let Some(e) = n.named_child(0) {
                    let e = self.expr(e);
                    out.push(Stmt::Expr(e));
                }
            }
            "if_statement" => self.if_stmt(n, out),
            "while_statement" | "do_statement" => self.while_loop(n, out),
            "for_statement" => self.for_loop(n, out),
            "enhanced_for_statement" => self.for_each(n, out),
            "try_statement" | "try_with_resources_statement" => self.try_stmt(n, out),
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
            "labeled_statement" => self.labeled(n, out),
            "synchronized_statement" => {
                if let Some(b) = n.field(fields::BODY) {
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
            "explicit_constructor_invocation" => self.explicit_ctor_call(n, out),
            "class_declaration"
            | "record_declaration"
            | "interface_declaration"
            | "enum_declaration" => self.local_class(n),
            _ => {
                if n.kind().ends_with("expression") || n.kind() == "method_invocation" {
                    let e = self.expr(n);
                    out.push(Stmt::Expr(e));
                }
            }
        }
        self.depth -= 1;
    }

    fn local_decl(&mut self, n: Node<'_>, out: &mut Block) {
        let ty = self.field_type(n);
        let generic = self.field_generic(n);
        let mut c = n.walk();
        let decls: Vec<Node<'_>> = n.fields(fields::DECLARATOR, &mut c).collect();
        for d in decls {
            let name = self.field_text(d, fields::NAME);
            let init = d.field(fields::VALUE).map(|v| self.expr(v));
            out.push(Stmt::Local {
                ty: ty.clone(),
                generic,
                name,
                init,
                span: span_of(d),
            });
        }
    }

    fn if_stmt(&mut self, n: Node<'_>, out: &mut Block) {
        let cond = n
            .field(fields::CONDITION)
            .map(|c| self.expr(c))
            .unwrap_or(Expr::Opaque(span_of(n)));
        let then = n
            .field(fields::CONSEQUENCE)
            .map(|c| self.block(c))
            .unwrap_or_default();
        let els = n.field(fields::ALTERNATIVE).map(|c| self.block(c));
        out.push(Stmt::If { cond, then, els });
    }

    fn while_loop(&mut self, n: Node<'_>, out: &mut Block) {
        // The loop body is a scope of its own: a retry loop is a region.
        let scope = self.new_scope(n, Vec::new());
        let saved = std::mem::replace(&mut self.scope, scope);
        let cond = n.field(fields::CONDITION).map(|c| self.expr(c));
        let body = n
            .field(fields::BODY)
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

    fn for_loop(&mut self, n: Node<'_>, out: &mut Block) {
        let mut head = Vec::new();
        let mut c = n.walk();
        let inits: Vec<Node<'_>> = n.fields(fields::INIT, &mut c).collect();
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
        let cond = n.field(fields::CONDITION).map(|c| self.expr(c));
        let mut c = n.walk();
        let ups: Vec<Node<'_>> = n.fields(fields::UPDATE, &mut c).collect();
        let update = ups.into_iter().map(|u| self.expr(u)).collect();
        let body = n
            .field(fields::BODY)
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

    fn for_each(&mut self, n: Node<'_>, out: &mut Block) {
        let mut ty = self.field_type(n);
        if ty == "var"
            && let Some(e) = n.field(fields::VALUE).and_then(|v| self.element_type(n, v))
        {
            ty = e;
        }
        let name = self.field_text(n, fields::NAME);
        let value = n
            .field(fields::VALUE)
            .map(|v| self.expr(v))
            .unwrap_or(Expr::Opaque(span_of(n)));
        // The body is a scope of its own: a loop over received messages that acknowledges
        // each one is a region.
        let scope = self.new_scope(n, Vec::new());
        let saved = std::mem::replace(&mut self.scope, scope);
        let body = n
            .field(fields::BODY)
            .map(|c| self.block(c))
            .unwrap_or_default();
        self.scope = saved;
        out.push(Stmt::Loop {
            head: Vec::new(),
            cond: None,
            update: Vec::new(),
            body,
            each: Some((ty, name, value)),
            scope,
            span: span_of(n),
        });
    }

    fn try_stmt(&mut self, n: Node<'_>, out: &mut Block) {
        let mut resources = Vec::new();
        if let Some(r) = n.field(fields::RESOURCES) {
            let mut c = r.walk();
            for res in r.named_children(&mut c) {
                let ty = self.field_type(res);
                let generic = self.field_generic(res);
                let name = self.field_text(res, fields::NAME);
                let init = res.field(fields::VALUE).map(|v| self.expr(v));
                resources.push(Stmt::Local {
                    ty,
                    generic,
                    name,
                    init,
                    span: span_of(res),
                });
            }
        }
        let body = n
            .field(fields::BODY)
            .map(|c| self.block(c))
            .unwrap_or_default();
        let mut catches = Vec::new();
        let mut finally = None;
        let mut c = n.walk();
        for ch in n.named_children(&mut c) {
            match ch.kind() {
                "catch_clause" => {
                    let formal = named_child_of_kinds(ch, &["catch_formal_parameter"]);
                    let param = formal
                        .and_then(|p| p.field(fields::NAME))
                        .map(|x| self.text(x).to_string())
                        .unwrap_or_default();
                    // The parameter is a local of the catch block. A multi-catch `A | B e` is
                    // typed as its widest catch-all alternative (`IOException | RuntimeException`
                    // takes every unchecked exception), else its first: the analysis types
                    // receivers to resolve calls, and the alternatives' common supertype is
                    // rarely a project type.
                    let alternatives: Vec<String> = formal
                        .and_then(|p| named_child_of_kinds(p, &["catch_type"]))
                        .map(|t| {
                            let mut c = t.walk();
                            t.named_children(&mut c)
                                .map(|a| erase_type(self.text(a)))
                                .collect()
                        })
                        .unwrap_or_default();
                    let ty = ["Throwable", "Exception", "RuntimeException"]
                        .iter()
                        .find_map(|w| {
                            alternatives.iter().find(|a| {
                                let a = a.strip_prefix("java.lang.").unwrap_or(a);
                                a == *w
                            })
                        })
                        .or(alternatives.first())
                        .cloned()
                        .unwrap_or_default();
                    let mut b = Vec::new();
                    if !param.is_empty() && !ty.is_empty() {
                        b.push(Stmt::Local {
                            ty,
                            generic: None,
                            name: param.clone(),
                            init: None,
                            span: formal.map(span_of).unwrap_or_else(|| span_of(ch)),
                        });
                    }
                    if let Some(body) = ch.field(fields::BODY) {
                        b.extend(self.block(body));
                    }
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

    fn labeled(&mut self, n: Node<'_>, out: &mut Block) {
        let mut c = n.walk();
        let kids: Vec<Node<'_>> = n.named_children(&mut c).collect();
        for ch in kids {
            if ch.kind() != "identifier" {
                self.stmt_into(ch, out);
            }
        }
    }

    /// `this(…)` / `super(…)`: a call named `this` or `super` without a receiver, which the
    /// resolution binds to the class's or its superclass's constructors (SPEC §1: a region
    /// covers the constructors it invokes). `outer.super(…)` is one too.
    fn explicit_ctor_call(&mut self, n: Node<'_>, out: &mut Block) {
        let args = n
            .field(fields::ARGUMENTS)
            .map(|a| self.args(a))
            .unwrap_or_default();
        let ctor = n.child_by_field_name("constructor");
        let name = match ctor.map(|c| c.kind()) {
            Some("this") => "this",
            Some("super") => "super",
            _ => {
                out.push(Stmt::Expr(Expr::Op(args, span_of(n))));
                return;
            }
        };
        let span = span_of(n);
        out.push(Stmt::Expr(Expr::Call(Box::new(Call {
            recv: None,
            name: name.to_string(),
            args,
            span,
            name_span: ctor.map(span_of).unwrap_or(span),
            scope: self.scope,
            on_super: false,
        }))));
    }

    fn local_class(&mut self, n: Node<'_>) {
        // Local classes: lowered as top-level members of the current class would be, but
        // the current method's scope table must survive.
        let saved_scopes = std::mem::take(&mut self.scopes);
        let saved_scope = self.scope;
        self.type_decl(n, None);
        self.scopes = saved_scopes;
        self.scope = saved_scope;
    }
}
