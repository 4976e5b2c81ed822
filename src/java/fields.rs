//! Child nodes by field name with the field ids looked up once.
//!
//! `Node::child_by_field_name` finds the field's id by comparing the name with each of the
//! grammar's field names, on every call; the lowering asks for fields millions of times on a
//! large project, so the ids of the names it uses are resolved once here.

use std::sync::OnceLock;
use tree_sitter::Node;

/// A field of the grammar, by its index in [`NAMES`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Field(usize);

/// The field names the lowering reads, in the order of the [`Field`] constants.
const NAMES: [&str; 21] = [
    "alternative",
    "arguments",
    "body",
    "condition",
    "consequence",
    "declarator",
    "field",
    "init",
    "key",
    "left",
    "name",
    "object",
    "operand",
    "operator",
    "parameters",
    "resources",
    "right",
    "type",
    "type_parameters",
    "update",
    "value",
];

pub const ALTERNATIVE: Field = Field(0);
pub const ARGUMENTS: Field = Field(1);
pub const BODY: Field = Field(2);
pub const CONDITION: Field = Field(3);
pub const CONSEQUENCE: Field = Field(4);
pub const DECLARATOR: Field = Field(5);
pub const FIELD: Field = Field(6);
pub const INIT: Field = Field(7);
pub const KEY: Field = Field(8);
pub const LEFT: Field = Field(9);
pub const NAME: Field = Field(10);
pub const OBJECT: Field = Field(11);
pub const OPERAND: Field = Field(12);
pub const OPERATOR: Field = Field(13);
pub const PARAMETERS: Field = Field(14);
pub const RESOURCES: Field = Field(15);
pub const RIGHT: Field = Field(16);
pub const TYPE: Field = Field(17);
pub const TYPE_PARAMETERS: Field = Field(18);
pub const UPDATE: Field = Field(19);
pub const VALUE: Field = Field(20);

impl Field {
    /// The field's name in the grammar.
    pub fn name(self) -> &'static str {
        NAMES[self.0]
    }

    /// The field's id in the grammar; `None` only if tree-sitter-java dropped the field.
    fn id(self) -> Option<std::num::NonZeroU16> {
        static IDS: OnceLock<[Option<std::num::NonZeroU16>; NAMES.len()]> = OnceLock::new();
        IDS.get_or_init(|| {
            let lang: tree_sitter::Language = tree_sitter_java::LANGUAGE.into();
            NAMES.map(|n| lang.field_id_for_name(n))
        })[self.0]
    }
}

/// `field` and `fields`: `child_by_field_name` and `children_by_field_name` with the ids
/// resolved once.
pub trait Fields<'t> {
    /// The child in field `f`.
    fn field(&self, f: Field) -> Option<Node<'t>>;
    /// The children in field `f`.
    fn fields<'c>(
        &self,
        f: Field,
        cursor: &'c mut tree_sitter::TreeCursor<'t>,
    ) -> impl Iterator<Item = Node<'t>> + 'c;
}

impl<'t> Fields<'t> for Node<'t> {
    fn field(&self, f: Field) -> Option<Node<'t>> {
        self.child_by_field_id(f.id()?.get())
    }

    fn fields<'c>(
        &self,
        f: Field,
        cursor: &'c mut tree_sitter::TreeCursor<'t>,
    ) -> impl Iterator<Item = Node<'t>> + 'c {
        // A field the grammar does not have has no children.
        let id = f.id();
        self.children_by_field_id(id.unwrap_or(std::num::NonZeroU16::MIN), cursor)
            .filter(move |_| id.is_some())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_name_is_a_field_of_the_grammar() {
        for (i, name) in NAMES.iter().enumerate() {
            assert!(
                Field(i).id().is_some(),
                "{name} is not a field of tree-sitter-java"
            );
        }
        assert_eq!(BODY.name(), "body");
        assert_eq!(VALUE.name(), "value");
    }

    #[test]
    fn same_child_as_by_name() {
        let src = b"class A { int f(int x) { return g(x) + 1; } }";
        let mut p = tree_sitter::Parser::new();
        p.set_language(&tree_sitter_java::LANGUAGE.into()).unwrap();
        let tree = p.parse(src, None).unwrap();
        let mut stack = vec![tree.root_node()];
        let mut compared = 0;
        while let Some(n) = stack.pop() {
            for f in (0..NAMES.len()).map(Field) {
                assert_eq!(n.field(f), n.child_by_field_name(f.name()));
                compared += usize::from(n.field(f).is_some());
                let mut c1 = n.walk();
                let mut c2 = n.walk();
                assert!(
                    n.fields(f, &mut c1)
                        .eq(n.children_by_field_name(f.name(), &mut c2))
                );
            }
            let mut c = n.walk();
            stack.extend(n.children(&mut c));
        }
        assert!(compared > 5);
    }
}
