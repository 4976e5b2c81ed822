//! The Java syntax layer: parse with tree-sitter-java and lower to the owned [`ir`].

pub mod directives;
pub mod fields;
pub mod ir;
pub mod lines;
pub mod lower;
pub mod name;
pub mod packing;
pub mod unicode;

use ir::FileFacts;
use std::borrow::Cow;

/// Parse Java source text and lower it. `None` only if tree-sitter gives no tree at all.
pub fn parse(src: &[u8]) -> Option<FileFacts> {
    let mut parser = tree_sitter::Parser::new();
    parser
        .set_language(&tree_sitter_java::LANGUAGE.into())
        .ok()?;
    // A lone CR ends a line in Java (JLS 3.4), but tree-sitter-java's `//` comment runs on to the
    // next LF. An LF in its place keeps every byte offset and makes lines count as Java's do.
    let src = java_line_ends(src);
    // Unicode escapes are translated first, as javac does; spans then point at the raw text.
    let translated = unicode::translate(&src);
    let text = translated.as_ref().map_or(&src[..], |t| &t.text[..]);
    let tree = parser.parse(text, None)?;
    let mut facts = lower::lower(tree.root_node(), text);
    facts.directives = directives::collect(tree.root_node(), text);
    if let Some(t) = &translated {
        t.restore(&mut facts, &src);
    }
    Some(facts)
}

/// `src` with every lone CR turned into an LF: the one line-splitting rule of the parse, for
/// every reader of Java text that counts lines (suppressions included). Byte offsets and UTF-8
/// validity are kept.
pub fn java_line_ends(src: &[u8]) -> Cow<'_, [u8]> {
    if has_lone_cr(src) {
        Cow::Owned(lone_cr_to_lf(src))
    } else {
        Cow::Borrowed(src)
    }
}

/// The text of a file for showing and for counting columns, with its byte offsets kept: a byte
/// that is not UTF-8 (a Latin-1 `é`) becomes one `?`, not a three-byte U+FFFD that would shift
/// every span after it on its line.
pub fn offset_text(bytes: &[u8]) -> String {
    match std::str::from_utf8(bytes) {
        Ok(t) => t.to_string(),
        Err(_) => {
            let mut out = String::with_capacity(bytes.len());
            for chunk in bytes.utf8_chunks() {
                out.push_str(chunk.valid());
                out.extend(std::iter::repeat_n('?', chunk.invalid().len()));
            }
            out
        }
    }
}

/// The text GitHub's upload action hashes for `primaryLocationLineHash`, when it differs from
/// [`offset_text`]: the action reads the file as a Node stream decoded as UTF-8, where each
/// invalid sequence (a maximal subpart, as the WHATWG decoder and `String::from_utf8_lossy` cut
/// them) becomes one U+FFFD. `None` for a file that is UTF-8.
pub fn github_text(bytes: &[u8]) -> Option<String> {
    std::str::from_utf8(bytes)
        .is_err()
        .then(|| String::from_utf8_lossy(bytes).into_owned())
}

/// [`java_line_ends`] for text.
pub fn java_line_ends_str(text: &str) -> Cow<'_, str> {
    match java_line_ends(text.as_bytes()) {
        Cow::Borrowed(_) => Cow::Borrowed(text),
        // Only ASCII CRs were replaced by ASCII LFs, so the bytes are still UTF-8.
        Cow::Owned(bytes) => Cow::Owned(
            String::from_utf8(bytes)
                .unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned()),
        ),
    }
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
