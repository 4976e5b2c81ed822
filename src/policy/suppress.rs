//! Inline suppressions: `// retrylint:ignore RL001 -- reason` on a finding's line (a trailing
//! comment) or on its own line(s) just above it, and `@SuppressWarnings("retrylint:RL001")` on
//! a declaration (a method, constructor, class, field …) that holds the finding.
//!
//! The directives come from the file's one parse ([`crate::java::directives`], kept in its
//! facts), so text inside string literals and text blocks never counts; this module reads the
//! rules they name and applies them. A directive without rules suppresses every rule.

use crate::java::ir::{self, Span};
use crate::rules::{self, Rule};
use crate::{Finding, discovery};
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::PathBuf;

pub use crate::java::ir::DirectiveForm as Form;

#[derive(Debug, Clone)]
pub struct Directive {
    pub path: String,
    pub span: Span,
    pub line: u32,
    pub end_line: u32,
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
    /// The directive `d` of the file shown as `path`, with the rules it names.
    fn new(path: &str, d: &ir::Directive) -> Directive {
        let (rules, unknown, reason) = if d.malformed {
            (Some(Vec::new()), Vec::new(), None)
        } else {
            parse_rest(&d.rest)
        };
        Directive {
            path: path.to_string(),
            span: d.span,
            line: d.line,
            end_line: d.end_line,
            form: d.form,
            rules,
            unknown,
            reason,
            text: d.text.clone(),
            holes: d.holes.clone(),
            malformed: d.malformed,
        }
    }

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

/// Every suppression in `text`, a Java file shown as `path` that the analysis did not parse
/// (this is its one parse).
pub fn directives(path: &str, text: &str) -> Vec<Directive> {
    crate::java::directives::of_source(text.as_bytes())
        .iter()
        .map(|d| Directive::new(path, d))
        .collect()
}

/// The directives of the files the analysis parsed, by shown path (from their facts).
pub type Parsed<'a> = HashMap<&'a str, &'a [ir::Directive]>;

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
    /// The files of `texts` read here that are not UTF-8, as GitHub decodes them.
    pub not_utf8: BTreeMap<String, String>,
}

fn diagnostic(rule: &'static Rule, d: &Directive, message: String) -> Finding {
    Finding {
        rule,
        level: rule.level,
        path: d.path.clone(),
        span: d.span,
        line: d.line,
        column: 0,
        end_line: d.end_line,
        end_column: 0,
        method: String::new(),
        source: d.text.clone(),
        message,
        via: None,
        sinks: Vec::new(),
        regions: Vec::new(),
        steps: Vec::new(),
        reads: Vec::new(),
        rows: Default::default(),
        fingerprint: String::new(),
    }
}

/// Apply the suppressions of the files with findings and, when unused or reasonless
/// suppressions are to be reported, of every file of `files` (shown path, path on disk). The
/// directives of a parsed file come from its facts (`parsed`); a file the analysis did not parse
/// is read and parsed here only when it mentions the tool.
pub fn apply(
    findings: Vec<Finding>,
    texts: &BTreeMap<String, String>,
    files: &[(String, PathBuf)],
    parsed: &Parsed,
    settings: &Settings,
) -> Outcome {
    let of_file = |shown: &str, disk: Option<&PathBuf>| -> Option<Vec<Directive>> {
        if let Some(ds) = parsed.get(shown) {
            return Some(ds.iter().map(|d| Directive::new(shown, d)).collect());
        }
        if let Some(t) = texts.get(shown) {
            return Some(directives(shown, t));
        }
        let bytes = std::fs::read(disk?).ok()?;
        crate::java::directives::mentions_tool(&bytes)
            .then(|| directives(shown, &String::from_utf8_lossy(&bytes)))
    };
    let mut scanned: BTreeMap<String, Vec<Directive>> = BTreeMap::new();
    let everywhere = settings.report_unused || settings.require_reason;
    if everywhere {
        for (shown, p) in files {
            if let Some(ds) = of_file(shown, Some(p)) {
                scanned.insert(shown.clone(), ds);
            }
        }
    }
    // The files with findings, also outside `files` (a pre-commit run reports a finding in the
    // unchanged caller of a staged helper): their suppressions apply, but only the files of
    // `files` get unused or reasonless suppressions reported.
    let reported: BTreeSet<String> = if everywhere {
        scanned.keys().cloned().collect()
    } else {
        findings.iter().map(|f| f.path.clone()).collect()
    };
    for f in &findings {
        if !scanned.contains_key(&f.path)
            && let Some(ds) = of_file(&f.path, None)
        {
            scanned.insert(f.path.clone(), ds);
        }
    }
    let directives: Vec<Directive> = scanned.into_values().flatten().collect();
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
        let invalid = &rules::INVALID_SUPPRESSION;
        if d.malformed {
            if (settings.enabled)(invalid) {
                diagnostics.push(diagnostic(
                    invalid,
                    d,
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
                format!(
                    "`{}` suppresses no finding of {}",
                    d.text,
                    unused.join(", ")
                ),
            ));
        }
    }
    // The text of each file with a diagnostic, for its code frame.
    let on_disk: HashMap<&str, &PathBuf> = files.iter().map(|(s, p)| (s.as_str(), p)).collect();
    let mut out_texts = BTreeMap::new();
    let mut not_utf8 = BTreeMap::new();
    for f in &diagnostics {
        if out_texts.contains_key(&f.path) {
            continue;
        }
        let text = match texts.get(&f.path) {
            Some(t) => Some(t.clone()),
            None => on_disk
                .get(f.path.as_str())
                .and_then(|p| std::fs::read(p).ok())
                .map(|b| {
                    if let Some(t) = crate::java::github_text(&b) {
                        not_utf8.insert(f.path.clone(), t);
                    }
                    crate::java::offset_text(&b)
                }),
        };
        if let Some(t) = text {
            out_texts.insert(f.path.clone(), t);
        }
    }
    Outcome {
        findings: kept,
        suppressed,
        diagnostics,
        texts: out_texts,
        not_utf8,
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
    fn the_parse_keeps_the_directives_in_the_file_s_facts_with_lone_cr_lines() {
        let java =
            "class A {\r  void m() {\r    // retrylint:ignore RL001 -- ok\r    a();\r  }\r}\r";
        let facts = crate::java::parse(java.as_bytes()).expect("parses");
        assert_eq!(facts.directives.len(), 1);
        assert_eq!(
            facts.directives[0].form,
            Form::Comment {
                line: 3,
                next: Some((4, 4))
            }
        );
        assert_eq!(facts.directives[0].text, "retrylint:ignore RL001 -- ok");
        // A file that does not mention the tool is not walked for directives.
        let plain = crate::java::parse(b"class A { // ignore\n}\n").expect("parses");
        assert!(plain.directives.is_empty());
    }

    #[test]
    fn unused_directives_are_reported_in_files_the_analysis_skips_and_from_cached_facts() {
        let billing = [
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
            "    int attempts() {",
            "        return 0; // retrylint:ignore RL003 -- no longer counted here",
            "    }",
            "}",
            "",
        ]
        .join("\n");
        // No effect word: the prefilter does not parse this file.
        let notes = "class Notes {\n    // retrylint:ignore RL002 -- legacy\n    String title() {\n        return \"notes\";\n    }\n}\n";
        let dir = tempfile::tempdir().expect("a temporary directory");
        std::fs::write(dir.path().join("Billing.java"), &billing).expect("written");
        std::fs::write(dir.path().join("Notes.java"), notes).expect("written");
        let cache = tempfile::tempdir().expect("a cache directory");
        let mut opts = crate::Options::new(vec![dir.path().to_path_buf()]);
        opts.report_unused_ignores = true;
        opts.cache_dir = Some(cache.path().to_path_buf());
        // Follow the prefilter to the end, so that it leaves Notes.java unparsed.
        opts.prefilter_max_share = 1.0;
        let summary = |r: &crate::Report| -> Vec<String> {
            r.findings
                .iter()
                .map(|f| {
                    let file = f.path.rsplit('/').next().unwrap_or("").to_string();
                    format!("{} {file}:{}-{}", f.rule.id, f.line, f.end_line)
                })
                .collect()
        };
        let first = crate::check(&opts).expect("the check runs");
        assert_eq!(
            summary(&first),
            vec!["RL100 Billing.java:15-15", "RL100 Notes.java:2-2"]
        );
        assert_eq!(first.suppressed.len(), 1);
        fn entries(d: &std::path::Path) -> usize {
            std::fs::read_dir(d).map_or(0, |rd| {
                rd.flatten()
                    .map(|e| {
                        if e.path().is_dir() {
                            entries(&e.path())
                        } else {
                            1
                        }
                    })
                    .sum()
            })
        }
        assert!(entries(cache.path()) > 1, "the facts were cached");
        // The second run takes Billing.java's facts, directives included, from the cache.
        let second = crate::check(&opts).expect("the check runs");
        assert_eq!(summary(&second), summary(&first));
        assert_eq!(second.suppressed.len(), 1);
        assert!(second.texts.keys().any(|p| p.ends_with("Notes.java")));
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
