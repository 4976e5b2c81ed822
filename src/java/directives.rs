//! Suppression directives, read from the file's one parse: `// retrylint:ignore RL001 -- reason`
//! comments (and their near-misses) with the lines they cover, and `@SuppressWarnings` values
//! naming retrylint with the lines of the annotated declaration.
//!
//! Comments and annotations come from the syntax tree, so text inside string literals and text
//! blocks never counts. Which rules a directive names is read by the policy layer
//! (`policy::suppress`), which applies them.

use super::ir::{Directive, DirectiveForm, Span};
use crate::java::fields::{self, Fields};
use std::borrow::Cow;
use std::collections::BTreeSet;
use std::sync::LazyLock;
use tree_sitter::Node;

const KEYWORD: &str = "retrylint:ignore";

/// Statements without a body: a suppression above one covers all its lines.
const SIMPLE: &[&str] = &[
    "local_variable_declaration",
    "expression_statement",
    "return_statement",
    "throw_statement",
    "yield_statement",
    "assert_statement",
    "field_declaration",
    "explicit_constructor_invocation",
];

/// Words that, after `retrylint`, show a suppression was meant.
const MEANT: &[&str] = &[
    "ignore", "disable", "suppress", "noqa", "nolint", "off", "skip", "allow",
];

/// Can `bytes` hold a directive (`retrylint` in any case)?
pub fn mentions_tool(bytes: &[u8]) -> bool {
    static FINDER: LazyLock<Option<aho_corasick::AhoCorasick>> = LazyLock::new(|| {
        aho_corasick::AhoCorasick::builder()
            .ascii_case_insensitive(true)
            .build(["retrylint"])
            .ok()
    });
    match FINDER.as_ref() {
        Some(f) => f.is_match(bytes),
        None => bytes
            .windows(9)
            .any(|w| w.eq_ignore_ascii_case(b"retrylint")),
    }
}

/// The directives of a file that the analysis did not parse (`src` as read): its only parse.
pub fn of_source(src: &[u8]) -> Vec<Directive> {
    if !mentions_tool(src) {
        return Vec::new();
    }
    let mut parser = tree_sitter::Parser::new();
    if parser
        .set_language(&tree_sitter_java::LANGUAGE.into())
        .is_err()
    {
        return Vec::new();
    }
    let src = super::java_line_ends(src);
    match parser.parse(&src[..], None) {
        Some(tree) => collect(tree.root_node(), &src),
        None => Vec::new(),
    }
}

/// A directive found in a comment: where it starts, how long its keyword is, what follows it
/// up to the end of that line (or of the block comment), and whether it is a near-miss.
struct Found<'a> {
    at: usize,
    keyword: usize,
    rest: &'a str,
    malformed: bool,
}

/// The directive in a comment's text, if any. `retrylint:ignore` is accepted in any case and
/// with a colon after it (`RETRYLINT:IGNORE`, `retrylint:ignore: RL001`); `retrylint` then a
/// suppression word written otherwise (`retrylint: ignore`, `retrylint:disable`,
/// `retrylint-ignore`) is a near-miss.
fn comment_directive(comment: &str) -> Option<Found<'_>> {
    let lower = comment.to_ascii_lowercase();
    let line_of = |from: usize| {
        let mut rest = comment[from..].lines().next().unwrap_or("");
        if let Some(r) = rest.trim_end().strip_suffix("*/") {
            rest = r;
        }
        rest
    };
    // Only a comment that starts with the directive holds one (after `//`, `/*` or `/**` and
    // spaces): one quoted in the middle of a comment's prose does not count.
    let at = comment
        .find(|c: char| !(c == '/' || c == '*' || c.is_whitespace()))
        .unwrap_or(comment.len());
    if !lower[at..].starts_with("retrylint") {
        return None;
    }
    let from = at + "retrylint".len();
    let after = &lower[from..];
    if let Some(a) = after.strip_prefix(":ignore") {
        let colon = usize::from(a.starts_with(':'));
        let a = &a[colon..];
        if a.is_empty() || a.starts_with(char::is_whitespace) || colon == 1 {
            let keyword = KEYWORD.len() + colon;
            return Some(Found {
                at,
                keyword,
                rest: line_of(at + keyword),
                malformed: false,
            });
        }
    }
    let sep = after
        .find(|c: char| !(c.is_whitespace() && c != '\n' || matches!(c, ':' | '-' | '_')))
        .unwrap_or(after.len());
    let word_len = after[sep..]
        .find(|c: char| !c.is_ascii_alphabetic())
        .unwrap_or(after.len() - sep);
    if sep <= 3 && MEANT.contains(&&after[sep..sep + word_len]) {
        let keyword = "retrylint".len() + sep + word_len;
        return Some(Found {
            at,
            keyword,
            rest: line_of(at + keyword),
            malformed: true,
        });
    }
    None
}

/// The text of `n` (invalid UTF-8 shown as U+FFFD).
fn text_of<'s>(n: Node, src: &'s [u8]) -> Cow<'s, str> {
    String::from_utf8_lossy(&src[n.start_byte().min(src.len())..n.end_byte().min(src.len())])
}

fn blank(bytes: &[u8]) -> bool {
    String::from_utf8_lossy(bytes).trim().is_empty()
}

/// Every directive under `root`, the tree of `src` (lone CRs already turned into LFs), in the
/// order of their spans. Nothing is walked in a file that does not mention the tool.
pub fn collect(root: Node, src: &[u8]) -> Vec<Directive> {
    let mut out = Vec::new();
    if !mentions_tool(src) {
        return out;
    }
    let line_starts: Vec<usize> = std::iter::once(0)
        .chain(
            src.iter()
                .enumerate()
                .filter(|(_, b)| **b == b'\n')
                .map(|(i, _)| i + 1),
        )
        .collect();
    let line_of = |off: usize| line_starts.partition_point(|s| *s <= off) as u32;
    // Nothing but whitespace before the comment on its first line and after it on its last.
    let alone = |node: Node| {
        let (start, end) = (
            node.start_byte().min(src.len()),
            node.end_byte().min(src.len()),
        );
        let ls = line_starts[line_starts.partition_point(|s| *s <= start) - 1];
        let le = src[end..]
            .iter()
            .position(|b| *b == b'\n')
            .map_or(src.len(), |i| end + i);
        blank(&src[ls..start]) && blank(&src[end..le])
    };
    // Comments standing alone on their lines, and the comments holding a directive.
    let mut comment_lines: BTreeSet<u32> = BTreeSet::new();
    let mut comments = Vec::new();
    let mut annotations = Vec::new();
    let mut cursor = root.walk();
    'walk: loop {
        let node = cursor.node();
        match node.kind() {
            "line_comment" | "block_comment" => {
                if alone(node) {
                    let (a, b) = (node.start_position().row, node.end_position().row);
                    comment_lines.extend((a..=b).map(|r| r as u32 + 1));
                }
                comments.push(node);
            }
            "annotation" => annotations.push(node),
            _ => {}
        }
        if cursor.goto_first_child() {
            continue;
        }
        loop {
            if cursor.goto_next_sibling() {
                continue 'walk;
            }
            if !cursor.goto_parent() {
                break 'walk;
            }
        }
    }
    let blank_lines: BTreeSet<u32> = src
        .split(|b| *b == b'\n')
        .enumerate()
        .filter(|(_, l)| blank(l))
        .map(|(i, _)| i as u32 + 1)
        .collect();
    for node in comments {
        let body = text_of(node, src);
        let Some(found) = comment_directive(&body) else {
            continue;
        };
        let line = node.start_position().row as u32 + 1;
        let mut holes = Vec::new();
        let next = alone(node).then(|| {
            let mut l = node.end_position().row as u32 + 2;
            while comment_lines.contains(&l) && !blank_lines.contains(&l) {
                l += 1;
            }
            // A statement written over several lines is covered whole.
            let mut sib = node.next_named_sibling();
            while let Some(n) = sib.filter(|n| n.kind().ends_with("comment")) {
                sib = n.next_named_sibling();
            }
            let stmt = sib
                .filter(|n| n.start_position().row as u32 + 1 == l && SIMPLE.contains(&n.kind()));
            if let Some(n) = stmt {
                holes = nested_bodies(n, l);
            }
            let last = stmt.map_or(l, |n| n.end_position().row as u32 + 1);
            (l, last)
        });
        let written = &body[found.at..found.at + found.keyword + found.rest.len()];
        let start = node.start_byte() + found.at;
        let end = start + written.len();
        out.push(Directive {
            span: Span {
                start: start as u32,
                end: end as u32,
            },
            line,
            end_line: line_of(end),
            form: DirectiveForm::Comment { line, next },
            text: written.trim_end().to_string(),
            rest: if found.malformed {
                String::new()
            } else {
                found.rest.to_string()
            },
            holes,
            malformed: found.malformed,
        });
    }
    for node in annotations {
        annotation_directives(node, src, &line_of, &mut out);
    }
    out.sort_by_key(|d| (d.span.start, d.span.end));
    out
}

/// The directives among the values of `node` when it is a `@SuppressWarnings` of a declaration.
fn annotation_directives(
    node: Node,
    src: &[u8],
    line_of: &dyn Fn(usize) -> u32,
    out: &mut Vec<Directive>,
) {
    let name = node
        .field(fields::NAME)
        .map(|n| text_of(n, src))
        .unwrap_or_default();
    if name != "SuppressWarnings" && name != "java.lang.SuppressWarnings" {
        return;
    }
    let Some(decl) = node
        .parent()
        .filter(|m| m.kind() == "modifiers")
        .and_then(|m| m.parent())
    else {
        return;
    };
    let Some(args) = node.field(fields::ARGUMENTS) else {
        return;
    };
    let (first, last) = (
        decl.start_position().row as u32 + 1,
        decl.end_position().row as u32 + 1,
    );
    // Every string literal among the arguments: `"…"`, `{"…", "…"}`, `value = …`.
    let mut stack = vec![args];
    while let Some(n) = stack.pop() {
        if n.kind() == "string_literal" {
            let lit = text_of(n, src);
            let value = lit.trim_matches('"');
            let rest = if value == "retrylint" {
                ""
            } else if let Some(r) = value.strip_prefix("retrylint:") {
                r
            } else {
                continue;
            };
            out.push(Directive {
                span: Span {
                    start: n.start_byte() as u32,
                    end: n.end_byte() as u32,
                },
                line: n.start_position().row as u32 + 1,
                end_line: line_of(n.end_byte()),
                form: DirectiveForm::Annotation { first, last },
                text: value.to_string(),
                rest: rest.to_string(),
                holes: Vec::new(),
                malformed: false,
            });
            continue;
        }
        let mut c = n.walk();
        let children: Vec<_> = n.children(&mut c).collect();
        stack.extend(children.into_iter().rev());
    }
}

/// The lines after `first` of the lambda bodies and anonymous class bodies inside `stmt`:
/// `retryTemplate.execute(ctx -> {` is the statement's line; the callback's body below it is
/// code of its own, which a directive above the statement does not reach.
fn nested_bodies(stmt: Node, first: u32) -> Vec<(u32, u32)> {
    let mut out = Vec::new();
    let mut stack = vec![stmt];
    while let Some(n) = stack.pop() {
        let body = match n.kind() {
            "lambda_expression" => n.field(fields::BODY),
            "class_body" if n.id() != stmt.id() => Some(n),
            _ => None,
        };
        if let Some(b) = body {
            let (a, z) = (
                (b.start_position().row as u32 + 1).max(first + 1),
                b.end_position().row as u32 + 1,
            );
            if a <= z {
                out.push((a, z));
            }
            continue;
        }
        let mut c = n.walk();
        stack.extend(n.children(&mut c));
    }
    out
}
