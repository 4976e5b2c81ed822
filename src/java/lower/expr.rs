//! Expressions, one family per method.

use super::*;
use crate::java::fields::{self, Fields};

impl<'a> Lowerer<'a> {
    pub fn expr(&mut self, n: Node<'_>) -> Expr {
        let span = span_of(n);
        if self.depth > MAX_DEPTH {
            self.too_deep(n);
            return Expr::Opaque(span);
        }
        self.depth += 1;
        let e = self.expr_inner(n, span);
        self.depth -= 1;
        e
    }

    pub(super) fn expr_inner(&mut self, n: Node<'_>, span: Span) -> Expr {
        match n.kind() {
            "method_invocation" => self.call(n, span),
            "object_creation_expression" => self.new_object(n, span),
            "identifier" => Expr::Name(self.text(n).to_string(), span),
            "field_access" => self.field_access(n, span),
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
            "lambda_expression" => self.lambda(n, span),
            "method_reference" => self.method_ref(n, span),
            "assignment_expression" => self.assign(n, span),
            "binary_expression" => self.binary(n, span),
            "ternary_expression" => self.ternary(n, span),
            "unary_expression" => self.unary(n, span),
            "update_expression" => self.update(n, span),
            "cast_expression" => self.cast(n, span),
            "parenthesized_expression" => self.parenthesized(n, span),
            "switch_expression" => self.switch_expr(n, span),
            "instanceof_expression" | "class_literal" => Expr::Opaque(span),
            "array_creation_expression"
            | "array_initializer"
            | "array_access"
            | "element_value_array_initializer" => self.elements(n, span),
            "template_expression" | "text_block" => Expr::Str(unquote(self.text(n)), span),
            "marker_annotation" | "annotation" => Expr::Opaque(span),
            "scoped_identifier" => self.scoped_name(n, span),
            _ => self.children_op(n, span),
        }
    }

    fn call(&mut self, n: Node<'_>, span: Span) -> Expr {
        let obj = n.field(fields::OBJECT);
        let on_super = obj.is_some_and(|o| o.kind() == "super");
        let recv = obj.filter(|o| o.kind() != "super").map(|o| self.expr(o));
        let name_node = n.field(fields::NAME);
        let name = name_node
            .map(|x| self.text(x).to_string())
            .unwrap_or_default();
        let args = n
            .field(fields::ARGUMENTS)
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

    fn new_object(&mut self, n: Node<'_>, span: Span) -> Expr {
        let ty = self.field_type(n);
        let args = n
            .field(fields::ARGUMENTS)
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
                let name = self.field_text(m, fields::NAME);
                let params: Vec<(Name, Option<Name>)> = m
                    .field(fields::PARAMETERS)
                    .map(|p| self.params(p))
                    .unwrap_or_default()
                    .into_iter()
                    .map(|p| (p.name, Some(p.ty)))
                    .collect();
                let scope = self.new_scope(m, params);
                let saved = self.scope;
                self.scope = scope;
                let body = m
                    .field(fields::BODY)
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

    fn field_access(&mut self, n: Node<'_>, span: Span) -> Expr {
        let obj = n
            .field(fields::OBJECT)
            .map(|o| self.expr(o))
            .unwrap_or(Expr::Opaque(span));
        let field = n
            .field(fields::FIELD)
            .map(|f| self.text(f).to_string())
            .unwrap_or_default();
        Expr::Field(Box::new(obj), field, span)
    }

    fn lambda(&mut self, n: Node<'_>, span: Span) -> Expr {
        let mut params = Vec::new();
        if let Some(p) = n.field(fields::PARAMETERS) {
            match p.kind() {
                "identifier" => params.push((Name::new(self.text(p)), None)),
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
                            params.push((Name::new(self.text(id)), None));
                        }
                    }
                }
            }
        }
        let scope = self.new_scope(n, params);
        let saved = self.scope;
        self.scope = scope;
        let body = match n.field(fields::BODY) {
            Some(b) if b.kind() == "block" => LambdaBody::Block(self.block(b)),
            Some(b) => LambdaBody::Expr(self.expr(b)),
            None => LambdaBody::Block(Vec::new()),
        };
        self.scope = saved;
        Expr::Lambda(Box::new(Lambda { scope, body, span }))
    }

    fn method_ref(&mut self, n: Node<'_>, span: Span) -> Expr {
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

    fn assign(&mut self, n: Node<'_>, span: Span) -> Expr {
        let target = self.field_expr(n, fields::LEFT, span);
        let op = n
            .field(fields::OPERATOR)
            .map(|x| self.text(x).to_string())
            .unwrap_or_else(|| "=".into());
        let value = self.field_expr(n, fields::RIGHT, span);
        Expr::Assign(Box::new(Assign {
            target,
            op,
            value,
            span,
        }))
    }

    fn binary(&mut self, n: Node<'_>, span: Span) -> Expr {
        let left = self.field_expr(n, fields::LEFT, span);
        let op = self.field_text(n, fields::OPERATOR);
        let right = self.field_expr(n, fields::RIGHT, span);
        Expr::Binary(Box::new(Binary {
            op,
            left,
            right,
            span,
        }))
    }

    fn ternary(&mut self, n: Node<'_>, span: Span) -> Expr {
        let c = self.field_expr(n, fields::CONDITION, span);
        let a = self.field_expr(n, fields::CONSEQUENCE, span);
        let b = self.field_expr(n, fields::ALTERNATIVE, span);
        Expr::Ternary(Box::new(c), Box::new(a), Box::new(b), span)
    }

    fn unary(&mut self, n: Node<'_>, span: Span) -> Expr {
        let op = n
            .field(fields::OPERATOR)
            .map(|x| self.text(x))
            .unwrap_or("");
        let operand = self.field_expr(n, fields::OPERAND, span);
        if op == "!" {
            Expr::Not(Box::new(operand), span)
        } else {
            Expr::Op(vec![operand], span)
        }
    }

    fn update(&mut self, n: Node<'_>, span: Span) -> Expr {
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

    fn cast(&mut self, n: Node<'_>, span: Span) -> Expr {
        let ty = self.field_type(n);
        let v = self.field_expr(n, fields::VALUE, span);
        Expr::Cast(ty, Box::new(v), span)
    }

    fn parenthesized(&mut self, n: Node<'_>, span: Span) -> Expr {
        let inner = n
            .named_child(0)
            .map(|x| self.expr(x))
            .unwrap_or(Expr::Opaque(span));
        Expr::Op(vec![inner], span)
    }

    fn switch_expr(&mut self, n: Node<'_>, span: Span) -> Expr {
        let scrutinee = self.field_expr(n, fields::CONDITION, span);
        let mut arms = Vec::new();
        if let Some(body) = n.field(fields::BODY) {
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

    fn elements(&mut self, n: Node<'_>, span: Span) -> Expr {
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

    fn scoped_name(&mut self, n: Node<'_>, span: Span) -> Expr {
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

    fn children_op(&mut self, n: Node<'_>, span: Span) -> Expr {
        let mut c = n.walk();
        let kids: Vec<Node<'_>> = n.named_children(&mut c).filter(|k| !k.is_extra()).collect();
        if kids.is_empty() {
            Expr::Opaque(span)
        } else {
            let v = kids.into_iter().map(|k| self.expr(k)).collect();
            Expr::Op(v, span)
        }
    }
}
