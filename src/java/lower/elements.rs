//! The element type of a `for (var x : xs)` loop, from the generic type `xs` is declared with.
//!
//! Lowered types are erased (`List<Payment>` → `List`), so the element type of an iterable is
//! lost once lowered. Where a loop variable is declared `var`, lowering looks up how the
//! iterable's name is declared (a local before the loop, a parameter, an enclosing loop's
//! variable, a field of the enclosing class, a record component) and keeps the generic argument
//! of that declaration — only there, only as far as the element type.

use super::*;
use crate::java::fields::{self, Fields};

impl<'a> Lowerer<'a> {
    /// The element type of the iterable `value` of the enhanced `for` statement `each`, when it
    /// is a name (or `this.name`) declared with an array or a one-argument generic type.
    pub(super) fn element_type(&self, each: Node<'_>, value: Node<'_>) -> Option<String> {
        let name = match value.kind() {
            "identifier" => self.text(value),
            "field_access"
                if value
                    .field(fields::OBJECT)
                    .is_some_and(|o| o.kind() == "this") =>
            {
                self.text(value.field(fields::FIELD)?)
            }
            _ => return None,
        };
        let written = self.declared_type(each, name)?;
        element_of(self.text(written))
    }

    /// The type node `name` is declared with where `at` is: the nearest declaration before it
    /// in the enclosing blocks and declarations, then the fields of the enclosing classes.
    fn declared_type<'t>(&self, at: Node<'t>, name: &str) -> Option<Node<'t>> {
        let named = |decl: Node<'t>| {
            let mut c = decl.walk();
            let hit = decl
                .fields(fields::DECLARATOR, &mut c)
                .any(|d| d.field(fields::NAME).is_some_and(|n| self.text(n) == name));
            hit.then(|| decl.field(fields::TYPE)).flatten()
        };
        let param = |p: Node<'t>| {
            p.field(fields::NAME)
                .is_some_and(|n| self.text(n) == name)
                .then(|| p.field(fields::TYPE))
                .flatten()
        };
        let mut child = at;
        let mut steps = 0;
        while let Some(a) = child.parent() {
            steps += 1;
            if steps > MAX_DEPTH {
                return None;
            }
            let mut c = a.walk();
            let found = match a.kind() {
                "block" | "constructor_body" | "switch_block_statement_group" => a
                    .named_children(&mut c)
                    .take_while(|s| s.id() != child.id())
                    .filter(|s| s.kind() == "local_variable_declaration")
                    .filter_map(named)
                    .last(),
                "for_statement" => a
                    .fields(fields::INIT, &mut c)
                    .find_map(|i| (i.kind() == "local_variable_declaration").then(|| named(i))?),
                "enhanced_for_statement" if a.id() != at.id() => param(a),
                "method_declaration"
                | "constructor_declaration"
                | "lambda_expression"
                | "record_declaration" => a.field(fields::PARAMETERS).and_then(|ps| {
                    let mut c2 = ps.walk();
                    ps.named_children(&mut c2)
                        .filter(|p| p.kind() == "formal_parameter")
                        .find_map(param)
                }),
                "class_body" | "enum_body_declarations" | "interface_body" => a
                    .named_children(&mut c)
                    .filter(|m| matches!(m.kind(), "field_declaration" | "constant_declaration"))
                    .find_map(named),
                _ => None,
            };
            if found.is_some() {
                return found;
            }
            child = a;
        }
        None
    }
}

/// The element type of a type as written: `Payment[]` → `Payment`, `List<Payment>` or
/// `Collection<? extends Payment>` → `Payment`; `None` for a type without exactly one type
/// argument (`Map<K, V>` is not iterable; a raw `List` says nothing).
pub fn element_of(written: &str) -> Option<String> {
    let t = written.trim();
    if let Some(base) = t.strip_suffix("[]") {
        let e = erase_type(base);
        return (!e.is_empty()).then_some(e);
    }
    let open = t.find('<')?;
    let inner = t[open + 1..].trim_end().strip_suffix('>')?;
    // Exactly one argument at the top level.
    let mut depth = 0usize;
    for ch in inner.chars() {
        match ch {
            '<' => depth += 1,
            '>' => depth = depth.saturating_sub(1),
            ',' if depth == 0 => return None,
            _ => {}
        }
    }
    let arg = inner.trim();
    let arg = arg
        .strip_prefix("? extends ")
        .or_else(|| arg.strip_prefix("? super "))
        .unwrap_or(arg);
    let e = erase_type(arg);
    (!e.is_empty() && e != "?").then_some(e)
}
