//! What tree-sitter could not parse (SPEC §7.6): a finding whose source, sink, region or a step
//! of its path lies in an error-recovered part of a file is not reported. Error recovery can
//! nest the methods after an unclosed `try` into the one before it, and so attribute their code
//! to the wrong method's retry annotation: the part of a file that can be trusted is each
//! method whose declaration holds no ERROR or MISSING node (and, outside methods, the code that
//! is not one). A method's annotations and modifiers are trusted when nothing before them in
//! the declaration was recovered: a broken body changes neither them nor the method they are
//! on, so a retry annotation that is dead for a reason of its own (its framework not enabled,
//! a private method) is still reported.

use super::{Finding, Related};
use crate::java::ir::Span;
use crate::semantic::Project;
use std::collections::{BTreeMap, HashMap};

/// Is the code at `span` of file `file` in an error-recovered part: in a method whose
/// declaration holds an ERROR or MISSING node, or, outside every method, on one itself? (A
/// malformed unicode escape is a syntax error too, but changes no structure.)
fn recovered(project: &Project, file: u32, span: Span) -> bool {
    let facts = &project.files[file as usize].facts;
    if facts.recovered.is_empty() {
        return false;
    }
    let overlaps = |outer: Span| {
        facts
            .recovered
            .iter()
            .any(|e| e.start <= outer.end && outer.start <= e.end)
    };
    let method = facts
        .methods
        .iter()
        .filter(|m| m.span.start <= span.start && span.end <= m.span.end)
        .min_by_key(|m| m.span.end - m.span.start);
    match method {
        // In its declaration, up to the name (annotations, modifiers): only what precedes it
        // in the declaration can have been misread; what recovery did to the body after it
        // changes neither the annotation nor the method it is on.
        Some(m) if span.end <= m.name_span.end => overlaps(Span {
            start: m.span.start,
            end: span.end,
        }),
        Some(m) => overlaps(m.span),
        None => overlaps(span),
    }
}

/// The error-recovered parts of a project's files, looked up by a finding's shown paths.
pub struct Recovered<'p> {
    project: &'p Project,
    /// Each file that has a recovered part, by its shown path.
    files: HashMap<&'p str, u32>,
}

impl<'p> Recovered<'p> {
    pub fn new(project: &'p Project) -> Self {
        let files = project
            .files
            .iter()
            .enumerate()
            .filter(|(_, f)| !f.facts.recovered.is_empty())
            .map(|(i, f)| (f.path.as_str(), i as u32))
            .collect();
        Recovered { project, files }
    }

    /// The first of `f`'s places (its own, then `via`, sinks, regions, steps and what it read)
    /// that lies in an error-recovered part of a file, by path.
    fn first_place<'f>(&self, f: &'f Finding) -> Option<&'f str> {
        if self.files.is_empty() {
            return None;
        }
        std::iter::once((&f.path, f.span))
            .chain(
                f.via
                    .iter()
                    .chain(&f.sinks)
                    .chain(&f.regions)
                    .chain(&f.steps)
                    .map(|r: &Related| (&r.path, r.span))
                    .chain(f.reads.iter().map(|(path, span)| (path, *span))),
            )
            .find(|(path, span)| {
                self.files
                    .get(path.as_str())
                    .is_some_and(|i| recovered(self.project, *i, *span))
            })
            .map(|(path, _)| path.as_str())
    }

    /// Does finding `f` depend on an error-recovered part of a file?
    pub fn holds(&self, f: &Finding) -> bool {
        self.first_place(f).is_some()
    }
}

/// Drops the findings that depend on an error-recovered part of a file; returns how many were
/// dropped in each file (by its shown path) that holds the recovered part.
pub fn drop_recovered(project: &Project, findings: &mut Vec<Finding>) -> BTreeMap<String, usize> {
    let mut dropped: BTreeMap<String, usize> = BTreeMap::new();
    let recovered = Recovered::new(project);
    findings.retain(|f| match recovered.first_place(f) {
        Some(path) => {
            *dropped.entry(path.to_string()).or_default() += 1;
            false
        }
        None => true,
    });
    dropped
}

#[cfg(test)]
mod tests {
    const HEAD: &str = "import java.util.UUID;\n\
        import com.stripe.net.RequestOptions;\n\
        import org.springframework.retry.annotation.Retryable;\n\
        class Payouts {\n";

    const SENDS_A_NEW_KEY: &str = "    public void preview() {\n\
        String k = UUID.randomUUID().toString();\n\
        RequestOptions.builder().setIdempotencyKey(k).build();\n\
        }\n";

    fn report(java: &str) -> crate::Report {
        let dir = tempfile::tempdir().expect("a temporary directory");
        std::fs::write(dir.path().join("Payouts.java"), java).expect("written");
        crate::check(&crate::Options::new(vec![dir.path().to_path_buf()])).expect("the check runs")
    }

    #[test]
    fn a_method_nested_by_error_recovery_is_not_attributed_to_the_retry_before_it() {
        // The `try` of `retried` is never closed: tree-sitter nests `preview` into it.
        let broken = format!(
            "{HEAD}    @Retryable\n    public void retried() {{\n        try {{\n            send();\n        }} catch (RuntimeException e) {{\n            throw e;\n    }}\n{SENDS_A_NEW_KEY}    void send() {{}}\n}}\n"
        );
        let r = report(&broken);
        assert!(r.findings.is_empty(), "{:?}", r.findings);
        let e = &r.errors[0];
        assert_eq!(e.kind, crate::ErrorKind::Syntax);
        assert_eq!(e.severity, crate::Severity::Warning);
        assert!(
            e.message.starts_with("partially parsed")
                && e.message
                    .contains("1 finding through the methods around them"),
            "{}",
            e.message
        );
        // Closed, the same code gives no finding either (`preview` is not retried), and a
        // retried method that sends a new key is reported next to a broken one.
        let fixed = broken.replace(
            "            throw e;\n    }",
            "            throw e;\n        }\n    }",
        );
        assert!(report(&fixed).findings.is_empty());
        let retried_preview = format!(
            "{HEAD}    @Retryable\n{SENDS_A_NEW_KEY}    void broken() {{\n        int x = ;\n    }}\n}}\n"
        );
        let r = report(&retried_preview);
        assert_eq!(r.findings.len(), 1, "{:?}", r.errors);
        assert_eq!(r.summary.files_with_syntax_errors, 1);
    }

    #[test]
    fn a_retry_dead_for_a_reason_of_its_declaration_is_reported_whatever_its_body() {
        // A private method is never proxied, whatever tree-sitter made of its unclosed `try`.
        let java = format!(
            "{HEAD}    @Retryable\n    private void settle() {{\n        try {{\n            send();\n        }} catch (RuntimeException e) {{\n            throw e;\n    }}\n    void send() {{}}\n}}\n"
        );
        let r = report(&java);
        assert_eq!(r.summary.files_with_syntax_errors, 1, "{:?}", r.errors);
        let rules: Vec<&str> = r.findings.iter().map(|f| f.rule.id).collect();
        assert_eq!(rules, ["RL006"], "{:?}", r.findings);
        assert!(
            r.findings[0].message.contains("private"),
            "{}",
            r.findings[0].message
        );
    }

    #[test]
    fn a_retry_dead_for_what_its_body_does_is_not_reported_when_the_body_is_broken() {
        // The body seems to catch everything, but the statement before the `try` is broken.
        let catches_all = |first: &str| {
            format!(
                "{HEAD}    @Retryable\n    public void settle() {{\n        {first}\n        try {{\n            send();\n        }} catch (Exception e) {{\n            System.out.println(e);\n        }}\n    }}\n    void send() {{}}\n}}\n"
            )
        };
        let whole = report(&catches_all("int attempts = 0;"));
        let rules: Vec<&str> = whole.findings.iter().map(|f| f.rule.id).collect();
        assert_eq!(rules, ["RL006"], "{:?}", whole.errors);
        let broken = report(&catches_all("int attempts = ;"));
        assert!(broken.findings.is_empty(), "{:?}", broken.findings);
        assert!(
            broken.errors[0]
                .message
                .contains("1 finding through the methods around them"),
            "{}",
            broken.errors[0].message
        );
    }
}
