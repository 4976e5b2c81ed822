//! The Java syntax layer: parse with tree-sitter-java and lower to the owned [`ir`].

pub mod ir;
pub mod lower;

use ir::FileFacts;

/// Parse Java source text and lower it. `None` only if tree-sitter gives no tree at all.
pub fn parse(src: &[u8]) -> Option<FileFacts> {
    let mut parser = tree_sitter::Parser::new();
    parser
        .set_language(&tree_sitter_java::LANGUAGE.into())
        .ok()?;
    let tree = parser.parse(src, None)?;
    Some(lower::lower(tree.root_node(), src))
}
