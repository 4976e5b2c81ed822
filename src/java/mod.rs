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
    // A lone CR ends a line in Java (JLS 3.4), but tree-sitter-java's `//` comment runs on to the
    // next LF. An LF in its place keeps every byte offset and makes lines count as Java's do.
    let normalized;
    let src = if has_lone_cr(src) {
        normalized = lone_cr_to_lf(src);
        &normalized[..]
    } else {
        src
    };
    let tree = parser.parse(src, None)?;
    Some(lower::lower(tree.root_node(), src))
}

fn has_lone_cr(src: &[u8]) -> bool {
    src.iter()
        .enumerate()
        .any(|(i, b)| *b == b'\r' && src.get(i + 1) != Some(&b'\n'))
}

fn lone_cr_to_lf(src: &[u8]) -> Vec<u8> {
    let mut out = src.to_vec();
    for i in 0..out.len() {
        if out[i] == b'\r' && out.get(i + 1) != Some(&b'\n') {
            out[i] = b'\n';
        }
    }
    out
}
