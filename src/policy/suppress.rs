//! Inline suppressions: `// retrylint:ignore RL001 -- reason` on a finding's line (a trailing
//! comment) or on its own line(s) just above it, and `@SuppressWarnings("retrylint:RL001")` on
//! a declaration (a method, constructor, class, field …) that holds the finding.
//!
//! Comments and annotations are read from a tree-sitter parse of the file, so text inside string
//! literals and text blocks never counts. A directive without rules suppresses every rule.

use crate::java::ir::Span;
use crate::rules::{self, Rule};
use crate::{Finding, discovery};
use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;

const DIRECTIVE: &str = "retrylint:ignore";

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

/// Where a suppression is written and what it covers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Form {
    /// A comment; covers its own line and, when it stands alone on its line(s), the next code
    /// line — all lines of the statement that starts there.
    Comment { line: u32, next: Option<(u32, u32)> },
    /// A `@SuppressWarnings` value; covers the lines of the annotated declaration.
    Annotation { first: u32, last: u32 },
}

#[derive(Debug, Clone)]
pub struct Directive {
    pub path: String,
    pub span: Span,
    pub line: u32,
    pub form: Form,
    /// The rules named; `None`: every rule.
    pub rules: Option<Vec<&'static Rule>>,
    /// Names that are not rules.
    pub unknown: Vec<String>,
    pub reason: Option<String>,
    /// The directive as written, for messages.
    pub text: String,
    /// Lines of the covered statement that it does not reach: the bodies of lambdas and
    /// anonymous classes nested in it (a callback's code is not the statement's own line).
    pub holes: Vec<(u32, u32)>,
    /// A near-miss of the syntax (`retrylint: ignore`, `retrylint:disable`): it suppresses
    /// nothing and is reported (RL101) with how to write it.
    pub malformed: bool,
}

impl Directive {
    fn covers(&self, f: &Finding) -> bool {
        let rule = match &self.rules {
            None => true,
            Some(rs) => rs.iter().any(|r| r.id == f.rule.id),
        };
        rule && f.path == self.path
            && match self.form {
                Form::Comment { line, next } => {
                    f.line == line
                        || next.is_some_and(|(a, b)| (a..=b).contains(&f.line))
                            && !self.holes.iter().any(|&(a, b)| (a..=b).contains(&f.line))
                }
                Form::Annotation { first, last } => (first..=last).contains(&f.line),
            }
    }
}

/// A finding that an inline suppression hides.
#[derive(Debug, Clone)]
pub struct Suppressed {
    pub finding: Finding,
    /// The text after `--`.
    pub reason: Option<String>,
    /// `comment` or `annotation`.
    pub kind: &'static str,
    /// The line of the suppression.
    pub line: u32,
}

/// `rest` is what follows `retrylint:ignore` (or `retrylint:` in an annotation value).
fn parse_rest(rest: &str) -> (Option<Vec<&'static Rule>>, Vec<String>, Option<String>) {
    let (names, reason) = match rest.split_once("--") {
        Some((n, r)) => (n, Some(r)),
        None => (rest, None),
    };
    // A reason needs a word: `-- .` or `-- -` is no reason.
    let reason = reason
        .map(|r| r.split_whitespace().collect::<Vec<_>>().join(" "))
        .filter(|r| r.chars().any(char::is_alphanumeric));
    let mut known = Vec::new();
    let mut unknown = Vec::new();
    for name in names
        .split(|c: char| c == ',' || c.is_whitespace())
        .filter(|n| !n.is_empty())
    {
        match rules::by_id(name) {
            Some(r) => known.push(r),
            None => unknown.push(name.to_string()),
        }
    }
    let rules = if known.is_empty() && unknown.is_empty() {
        None
    } else {
        Some(known)
    };
    (rules, unknown, reason)
}

/// Can `bytes` hold a directive (`retrylint` in any case)?
fn mentions_tool(bytes: &[u8]) -> bool {
    bytes
        .windows(9)
        .any(|w| w.eq_ignore_ascii_case(b"retrylint"))
}

/// Words that, after `retrylint`, show a suppression was meant.
const MEANT: &[&str] = &[
    "ignore", "disable", "suppress", "noqa", "nolint", "off", "skip", "allow",
];

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
    let lead = comment
        .find(|c: char| !(c == '/' || c == '*' || c.is_whitespace()))
        .unwrap_or(comment.len());
    {
        let at = lead;
        if !lower[at..].starts_with("retrylint") {
            return None;
        }
        let from = at + "retrylint".len();
        let after = &lower[from..];
        if let Some(a) = after.strip_prefix(":ignore") {
            let colon = usize::from(a.starts_with(':'));
            let a = &a[colon..];
            if a.is_empty() || a.starts_with(char::is_whitespace) || colon == 1 {
                let keyword = DIRECTIVE.len() + colon;
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
    }
    None
}

/// Every suppression in `text`, a Java file shown as `path`.
pub fn directives(path: &str, text: &str) -> Vec<Directive> {
    let mut out = Vec::new();
    if !mentions_tool(text.as_bytes()) {
        return out;
    }
    let mut parser = tree_sitter::Parser::new();
    if parser
        .set_language(&tree_sitter_java::LANGUAGE.into())
        .is_err()
    {
        return out;
    }
    // The parse's own line-splitting rule (a lone CR ends a line), so lines count as they do
    // for the analysis.
    let normalized = crate::java::java_line_ends_str(text);
    let text: &str = &normalized;
    let Some(tree) = parser.parse(text, None) else {
        return out;
    };
    let src = text.as_bytes();
    let line_starts: Vec<usize> = std::iter::once(0)
        .chain(text.match_indices('\n').map(|(i, _)| i + 1))
        .collect();
    // Nothing but whitespace before the comment on its first line and after it on its last.
    let alone = |node: tree_sitter::Node| {
        let (start, end) = (node.start_byte(), node.end_byte());
        let ls = line_starts[line_starts.partition_point(|s| *s <= start) - 1];
        let le = text[end..].find('\n').map_or(text.len(), |i| end + i);
        text[ls..start].trim().is_empty() && text[end..le].trim().is_empty()
    };
    // Comments standing alone on their lines, and the comments holding a directive.
    let mut comment_lines: BTreeSet<u32> = BTreeSet::new();
    let mut comments = Vec::new();
    let mut annotations = Vec::new();
    let mut cursor = tree.walk();
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
    let blank: BTreeSet<u32> = text
        .lines()
        .enumerate()
        .filter(|(_, l)| l.trim().is_empty())
        .map(|(i, _)| i as u32 + 1)
        .collect();
    for node in comments {
        let Ok(body) = node.utf8_text(src) else {
            continue;
        };
        let Some(found) = comment_directive(body) else {
            continue;
        };
        let (at, rest) = (found.at, found.rest);
        let line = node.start_position().row as u32 + 1;
        let mut holes = Vec::new();
        let next = alone(node).then(|| {
            let mut l = node.end_position().row as u32 + 2;
            while comment_lines.contains(&l) && !blank.contains(&l) {
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
        let (rules, unknown, reason) = if found.malformed {
            (Some(Vec::new()), Vec::new(), None)
        } else {
            parse_rest(rest)
        };
        let start = node.start_byte() + at;
        let end = start + found.keyword + rest.len();
        out.push(Directive {
            path: path.to_string(),
            span: Span {
                start: start as u32,
                end: end as u32,
            },
            line,
            form: Form::Comment { line, next },
            rules,
            unknown,
            reason,
            text: body[at..at + found.keyword + rest.len()]
                .trim_end()
                .to_string(),
            holes,
            malformed: found.malformed,
        });
    }
    for node in annotations {
        let name = node
            .child_by_field_name("name")
            .and_then(|n| n.utf8_text(src).ok())
            .unwrap_or("");
        if name != "SuppressWarnings" && name != "java.lang.SuppressWarnings" {
            continue;
        }
        let Some(decl) = node
            .parent()
            .filter(|m| m.kind() == "modifiers")
            .and_then(|m| m.parent())
        else {
            continue;
        };
        let Some(args) = node.child_by_field_name("arguments") else {
            continue;
        };
        let (first, last) = (
            decl.start_position().row as u32 + 1,
            decl.end_position().row as u32 + 1,
        );
        // Every string literal among the arguments: `"…"`, `{"…", "…"}`, `value = …`.
        let mut stack = vec![args];
        while let Some(n) = stack.pop() {
            if n.kind() == "string_literal" {
                let Ok(lit) = n.utf8_text(src) else { continue };
                let value = lit.trim_matches('"');
                let rest = if value == "retrylint" {
                    ""
                } else if let Some(r) = value.strip_prefix("retrylint:") {
                    r
                } else {
                    continue;
                };
                let (rules, unknown, reason) = parse_rest(rest);
                out.push(Directive {
                    path: path.to_string(),
                    span: Span {
                        start: n.start_byte() as u32,
                        end: n.end_byte() as u32,
                    },
                    line: n.start_position().row as u32 + 1,
                    form: Form::Annotation { first, last },
                    rules,
                    unknown,
                    reason,
                    text: value.to_string(),
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
    out.sort_by_key(|d| (d.span.start, d.span.end));
    out
}

/// The lines after `first` of the lambda bodies and anonymous class bodies inside `stmt`:
/// `retryTemplate.execute(ctx -> {` is the statement's line; the callback's body below it is
/// code of its own, which a directive above the statement does not reach.
fn nested_bodies(stmt: tree_sitter::Node, first: u32) -> Vec<(u32, u32)> {
    let mut out = Vec::new();
    let mut stack = vec![stmt];
    while let Some(n) = stack.pop() {
        let body = match n.kind() {
            "lambda_expression" => n.child_by_field_name("body"),
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

/// What the suppression step needs to know about the run.
pub struct Settings<'a> {
    pub require_reason: bool,
    pub report_unused: bool,
    /// Does this run report the rule at all?
    pub enabled: &'a dyn Fn(&Rule) -> bool,
}

/// The outcome: findings that stay, findings suppressed, and diagnostics about suppressions
/// (RL100, RL101) with their file texts.
pub struct Outcome {
    pub findings: Vec<Finding>,
    pub suppressed: Vec<Suppressed>,
    pub diagnostics: Vec<Finding>,
    pub texts: BTreeMap<String, String>,
}

fn diagnostic(rule: &'static Rule, d: &Directive, text: &str, message: String) -> Finding {
    let line_of =
        |off: u32| text[..(off as usize).min(text.len())].matches('\n').count() as u32 + 1;
    Finding {
        rule,
        level: rule.level,
        path: d.path.clone(),
        span: d.span,
        line: d.line,
        column: 0,
        end_line: line_of(d.span.end),
        end_column: 0,
        method: String::new(),
        source: d.text.clone(),
        message,
        via: None,
        sinks: Vec::new(),
        regions: Vec::new(),
        rows: Default::default(),
        fingerprint: String::new(),
    }
}

/// Apply the suppressions in `texts` (files with findings) and, when unused or reasonless
/// suppressions are to be reported, in every file of `files` (shown path, path on disk).
pub fn apply(
    findings: Vec<Finding>,
    texts: &BTreeMap<String, String>,
    files: &[(String, PathBuf)],
    settings: &Settings,
) -> Outcome {
    let mut scanned: BTreeMap<String, String> = BTreeMap::new();
    let everywhere = settings.report_unused || settings.require_reason;
    if everywhere {
        for (shown, p) in files {
            if let Some(t) = texts.get(shown) {
                scanned.insert(shown.clone(), t.clone());
            } else if let Ok(b) = std::fs::read(p)
                && mentions_tool(&b)
            {
                scanned.insert(shown.clone(), String::from_utf8_lossy(&b).into_owned());
            }
        }
    }
    // The files with findings, also outside `files` (a pre-commit run reports a finding in the
    // unchanged caller of a staged helper): their suppressions apply, but only the files of
    // `files` get unused or reasonless suppressions reported.
    let reported: std::collections::BTreeSet<String> = if everywhere {
        scanned.keys().cloned().collect()
    } else {
        findings.iter().map(|f| f.path.clone()).collect()
    };
    for f in &findings {
        if !scanned.contains_key(&f.path)
            && let Some(t) = texts.get(&f.path)
        {
            scanned.insert(f.path.clone(), t.clone());
        }
    }
    let directives: Vec<Directive> = scanned.iter().flat_map(|(p, t)| directives(p, t)).collect();
    let effective = |d: &Directive| !(settings.require_reason && d.reason.is_none());
    // Which rules each directive suppressed something of.
    let mut used: Vec<BTreeSet<&'static str>> = vec![BTreeSet::new(); directives.len()];
    let mut kept = Vec::new();
    let mut suppressed = Vec::new();
    for f in findings {
        let hit = directives
            .iter()
            .enumerate()
            .find(|(_, d)| effective(d) && d.covers(&f));
        match hit {
            Some((i, d)) => {
                used[i].insert(f.rule.id);
                suppressed.push(Suppressed {
                    reason: d.reason.clone(),
                    kind: match d.form {
                        Form::Comment { .. } => "comment",
                        Form::Annotation { .. } => "annotation",
                    },
                    line: d.line,
                    finding: f,
                });
            }
            None => kept.push(f),
        }
    }
    let mut diagnostics = Vec::new();
    for (d, used) in directives.iter().zip(&used) {
        if !reported.contains(&d.path) {
            continue;
        }
        let text = scanned.get(&d.path).map(String::as_str).unwrap_or("");
        let invalid = &rules::INVALID_SUPPRESSION;
        if d.malformed {
            if (settings.enabled)(invalid) {
                diagnostics.push(diagnostic(
                    invalid,
                    d,
                    text,
                    format!(
                        "`{}` is not a suppression and suppresses nothing: write `// retrylint:ignore RL001 -- reason`",
                        d.text
                    ),
                ));
            }
            continue;
        }
        if (settings.enabled)(invalid) {
            if !d.unknown.is_empty() {
                // One diagnostic per directive, however many words are not rules: a reason
                // written without `--` is the usual cause.
                let names: Vec<String> = d.unknown.iter().map(|n| format!("`{n}`")).collect();
                let looks_like_ids = d.unknown.iter().all(|n| {
                    n.len() > 2
                        && n[..2].eq_ignore_ascii_case("RL")
                        && n[2..].bytes().all(|b| b.is_ascii_digit())
                });
                let hint = if looks_like_ids {
                    " (see `retrylint rules`)".to_string()
                } else {
                    "; a reason follows ` -- `, as in `retrylint:ignore RL001 -- reason`"
                        .to_string()
                };
                diagnostics.push(diagnostic(
                    invalid,
                    d,
                    text,
                    format!(
                        "`{}` names {} {}{hint}",
                        d.text,
                        if names.len() == 1 {
                            "unknown rule"
                        } else {
                            "unknown rules"
                        },
                        names.join(", ")
                    ),
                ));
            }
            if settings.require_reason && d.reason.is_none() {
                diagnostics.push(diagnostic(
                    invalid,
                    d,
                    text,
                    format!(
                        "`{}` gives no reason and {} sets `require-reason`: it suppresses nothing until a reason follows `--`",
                        d.text,
                        crate::config::FILE_NAME
                    ),
                ));
            }
        }
        if !settings.report_unused || !effective(d) {
            continue;
        }
        let unused: Vec<&str> = match &d.rules {
            None => {
                let all_ran = rules::ALL
                    .iter()
                    .filter(|r| r.id < rules::UNUSED_SUPPRESSION.id)
                    .all(|r| (settings.enabled)(r));
                if used.is_empty() && all_ran {
                    vec!["any rule"]
                } else {
                    vec![]
                }
            }
            Some(rs) => rs
                .iter()
                .filter(|r| (settings.enabled)(r) && !used.contains(r.id))
                .map(|r| r.id)
                .collect(),
        };
        if !unused.is_empty() {
            diagnostics.push(diagnostic(
                &rules::UNUSED_SUPPRESSION,
                d,
                text,
                format!(
                    "`{}` suppresses no finding of {}",
                    d.text,
                    unused.join(", ")
                ),
            ));
        }
    }
    let texts = scanned
        .into_iter()
        .filter(|(p, _)| diagnostics.iter().any(|f| &f.path == p))
        .collect();
    Outcome {
        findings: kept,
        suppressed,
        diagnostics,
        texts,
    }
}

/// Shown paths of the files `paths` (for [`apply`]).
pub fn shown(paths: &[PathBuf]) -> Vec<(String, PathBuf)> {
    paths
        .iter()
        .map(|p| (discovery::display_path(p), p.clone()))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    type Parsed = (Form, Option<Vec<&'static str>>, Option<String>);

    fn forms(text: &str) -> Vec<Parsed> {
        directives("A.java", text)
            .into_iter()
            .map(|d| {
                (
                    d.form,
                    d.rules.map(|rs| rs.iter().map(|r| r.id).collect()),
                    d.reason,
                )
            })
            .collect()
    }

    #[test]
    fn comments_trailing_and_above() {
        let text = "class A {\n  void m() {\n    // retrylint:ignore RL001, RL002 -- stored first\n    // more words\n    a(); // retrylint:ignore\n    String s = \"// retrylint:ignore RL001\";\n    /* retrylint:ignore random-idempotency-key-in-retry -- x */ b();\n  }\n}\n";
        assert_eq!(
            forms(text),
            vec![
                (
                    Form::Comment {
                        line: 3,
                        next: Some((5, 5))
                    },
                    Some(vec!["RL001", "RL002"]),
                    Some("stored first".into())
                ),
                (
                    Form::Comment {
                        line: 5,
                        next: None
                    },
                    None,
                    None
                ),
                (
                    Form::Comment {
                        line: 7,
                        next: None
                    },
                    Some(vec!["RL001"]),
                    Some("x".into())
                ),
            ]
        );
    }

    #[test]
    fn a_statement_over_several_lines_is_covered_whole() {
        let text = "class A {\n  void m() {\n    // retrylint:ignore RL002 -- r\n    String k = a()\n        + b();\n    c();\n  }\n}\n";
        assert_eq!(
            forms(text)[0].0,
            Form::Comment {
                line: 3,
                next: Some((4, 5))
            }
        );
    }

    #[test]
    fn annotations_on_declarations() {
        let text = "@SuppressWarnings(\"retrylint\")\nclass A {\n  @SuppressWarnings({\"unchecked\", \"retrylint:RL003 -- counted once\"})\n  void m() {\n  }\n  @SuppressWarnings(value = \"retrylint:RL09\")\n  int f;\n}\n";
        let ds = directives("A.java", text);
        assert_eq!(ds.len(), 3);
        assert_eq!(ds[0].form, Form::Annotation { first: 1, last: 8 });
        assert!(ds[0].rules.is_none());
        assert_eq!(ds[1].form, Form::Annotation { first: 3, last: 5 });
        assert_eq!(ds[1].reason.as_deref(), Some("counted once"));
        assert_eq!(ds[2].unknown, vec!["RL09".to_string()]);
        assert_eq!(ds[2].rules.as_ref().map(Vec::len), Some(0));
    }

    #[test]
    fn a_directive_in_a_file_with_lone_cr_line_endings_keeps_its_finding_suppressed() {
        let java = [
            "import com.stripe.model.Charge;",
            "import com.stripe.net.RequestOptions;",
            "import com.stripe.param.ChargeCreateParams;",
            "import java.util.UUID;",
            "import org.springframework.retry.annotation.Retryable;",
            "",
            "class Billing {",
            "    @Retryable",
            "    Charge charge(ChargeCreateParams params) throws Exception {",
            "        // retrylint:ignore RL001 -- the provider deduplicates on the order reference",
            "        String key = UUID.randomUUID().toString();",
            "        return Charge.create(params, RequestOptions.builder().setIdempotencyKey(key).build());",
            "    }",
            "}",
            "",
        ]
        .join("\r");
        let dir = tempfile::tempdir().expect("a temporary directory");
        std::fs::write(dir.path().join("Billing.java"), &java).expect("the file is written");
        let report = crate::check(&crate::Options::new(vec![dir.path().to_path_buf()]))
            .expect("the check runs");
        let rules: Vec<&str> = report.findings.iter().map(|f| f.rule.id).collect();
        assert_eq!(rules, Vec::<&str>::new());
        assert_eq!(report.suppressed.len(), 1);
        assert_eq!(report.suppressed[0].finding.rule.id, "RL001");
        assert_eq!(report.suppressed[0].line, 10);
        assert_eq!(report.suppressed[0].finding.line, 11);
    }

    #[test]
    fn a_statement_directive_does_not_reach_into_callbacks() {
        let text = "class A {\n  void m() {\n    // retrylint:ignore\n    String r = retryTemplate.execute(ctx -> {\n      String k = UUID.randomUUID().toString();\n      return send(k, new Object() {\n        String f = x();\n      });\n    });\n  }\n}\n";
        let d = &directives("A.java", text)[0];
        assert_eq!(
            d.form,
            Form::Comment {
                line: 3,
                next: Some((4, 9))
            }
        );
        assert_eq!(d.holes, vec![(5, 9)]);
    }

    #[test]
    fn only_a_leading_directive_counts_and_a_reason_needs_a_word() {
        assert!(forms("class A { // see the docs: retrylint:ignore RL001\n}\n").is_empty());
        assert!(forms("class A { /* TODO retrylint:ignore */\n}\n").is_empty());
        assert_eq!(
            forms("class A {\n  /**\n   * retrylint:ignore RL001 -- ok\n   */\n}\n").len(),
            1
        );
        assert_eq!(
            forms("class A { // retrylint:ignore RL001 -- .\n}\n")[0].2,
            None
        );
        assert_eq!(
            forms("class A { // retrylint:ignore RL001 -- - !\n}\n")[0].2,
            None
        );
    }

    #[test]
    fn directive_variants_and_near_misses() {
        let text = "class A {\n  void m() {\n    a(); // RETRYLINT:IGNORE\n    b(); // retrylint:ignore: RL001 -- r\n    c(); // retrylint:ignore:RL002\n    d(); // retrylint: ignore RL001\n    e(); /* retrylint:disable */\n    f(); // Retrylint-Ignore RL001\n  }\n}\n";
        let ds = directives("A.java", text);
        let summary: Vec<(u32, bool, Option<Vec<&str>>)> = ds
            .iter()
            .map(|d| {
                (
                    d.line,
                    d.malformed,
                    d.rules.as_ref().map(|rs| rs.iter().map(|r| r.id).collect()),
                )
            })
            .collect();
        assert_eq!(
            summary,
            vec![
                (3, false, None),
                (4, false, Some(vec!["RL001"])),
                (5, false, Some(vec!["RL002"])),
                (6, true, Some(vec![])),
                (7, true, Some(vec![])),
                (8, true, Some(vec![])),
            ]
        );
        assert_eq!(ds[3].text, "retrylint: ignore RL001");
        assert_eq!(ds[4].text, "retrylint:disable");
        assert!(ds.iter().all(|d| d.unknown.is_empty()));
        // Mentions of the tool are not directives.
        assert!(forms("class A { // checked by retrylint in CI\n}\n").is_empty());
    }

    #[test]
    fn not_a_directive() {
        assert!(forms("class A { // retrylint:ignored\n}\n").is_empty());
        assert!(
            forms("class A { String s = \"\"\"\n  // retrylint:ignore\n  \"\"\"; }\n").is_empty()
        );
    }
}
