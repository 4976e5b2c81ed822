//! Lowering of a tree-sitter-java tree into [`FileFacts`].
//!
//! Recursion follows the tree but is capped at [`MAX_DEPTH`]: anything nested deeper is kept as
//! an opaque expression, so pathological nesting costs a lost detail, never a stack overflow.

mod decl;
mod elements;
mod expr;
mod stmt;

use super::ir::*;
use crate::java::fields::{self, Fields};
pub use elements::element_of;
use tree_sitter::Node;

/// How deep lowering follows the tree; deeper code is reported as not analysed.
pub const MAX_DEPTH: usize = 200;

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
                    l.facts.package = Name::new(l.text(n));
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

/// A type as written with its type arguments (`Optional<Dispatch>`), without whitespace or
/// annotations before its name; `None` for a type without type arguments.
pub fn generic_type(text: &str) -> Generic {
    let open = text.find('<')?;
    let base = erase_type(&text[..open]);
    let args: String = text[open..]
        .chars()
        .filter(|c| !c.is_whitespace())
        .collect();
    (!base.is_empty() && !text[open..].contains("[]")).then(|| format!("{base}{args}").into())
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

    /// `n` is nested too deep to lower: record the cut (once per cut subtree).
    fn too_deep(&mut self, n: Node<'_>) {
        let s = span_of(n);
        if self
            .facts
            .too_deep
            .last()
            .is_none_or(|l| s.start >= l.end || s.end <= l.start)
        {
            self.facts.too_deep.push(s);
        }
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
        self.facts.recovered = self.facts.syntax_errors.clone();
    }

    pub(super) fn args(&mut self, n: Node<'_>) -> Vec<Expr> {
        let mut c = n.walk();
        let kids: Vec<Node<'_>> = n.named_children(&mut c).filter(|k| !k.is_extra()).collect();
        kids.into_iter().map(|k| self.expr(k)).collect()
    }

    pub(super) fn new_scope(&mut self, n: Node<'_>, params: Vec<(Name, Option<Name>)>) -> ScopeId {
        let id = self.scopes.len() as ScopeId;
        self.scopes.push(Scope {
            parent: Some(self.scope),
            span: span_of(n),
            params,
        });
        id
    }

    /// The text of field `field` of `n`, or an empty string where it is missing.
    pub(super) fn field_text(&self, n: Node<'_>, field: fields::Field) -> String {
        n.field(field)
            .map(|x| self.text(x).to_string())
            .unwrap_or_default()
    }

    /// The erased type written in the `type` field of `n`.
    pub(super) fn field_type(&self, n: Node<'_>) -> String {
        n.field(fields::TYPE)
            .map(|t| erase_type(self.text(t)))
            .unwrap_or_default()
    }

    /// The type written in the `type` field of `n` with its type arguments, when it has any.
    pub(super) fn field_generic(&self, n: Node<'_>) -> Generic {
        n.field(fields::TYPE)
            .and_then(|t| generic_type(self.text(t)))
    }

    /// The lowered expression in field `field` of `n`, or an opaque one where it is missing.
    pub(super) fn field_expr(&mut self, n: Node<'_>, field: fields::Field, span: Span) -> Expr {
        n.field(field)
            .map(|x| self.expr(x))
            .unwrap_or(Expr::Opaque(span))
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
    pub(super) fn erases_generics_and_annotations() {
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
    pub(super) fn unquotes_literals() {
        assert_eq!(unquote("\"Idempotency-Key\""), "Idempotency-Key");
        assert_eq!(unquote("\"a\\\"b\""), "a\"b");
    }
}
