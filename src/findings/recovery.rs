//! What tree-sitter could not parse (SPEC §7.6): a finding whose source, sink, region or a step
//! of its path lies in an error-recovered part of a file is not reported. Error recovery can
//! nest the methods after an unclosed `try` into the one before it, and so attribute their code
//! to the wrong method's retry annotation: the part of a file that can be trusted is each
//! method whose declaration holds no ERROR or MISSING node (and, outside methods, the code that
//! is not one).

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
    overlaps(method.map_or(span, |m| m.span))
}

/// Does finding `f` depend on an error-recovered part of a file?
pub fn through_recovered(project: &Project, files: &HashMap<&str, u32>, f: &Finding) -> bool {
    let at = |path: &str, span: Span| {
        files
            .get(path)
            .is_some_and(|i| recovered(project, *i, span))
    };
    at(&f.path, f.span)
        || f.via
            .iter()
            .chain(&f.sinks)
            .chain(&f.regions)
            .chain(&f.steps)
            .any(|r: &Related| at(&r.path, r.span))
}

/// Drops the findings that depend on an error-recovered part of a file; returns how many were
/// dropped in each file (by its shown path) that holds the recovered part.
pub fn drop_recovered(project: &Project, findings: &mut Vec<Finding>) -> BTreeMap<String, usize> {
    let mut dropped: BTreeMap<String, usize> = BTreeMap::new();
    if project.files.iter().all(|f| f.facts.recovered.is_empty()) {
        return dropped;
    }
    let files: HashMap<&str, u32> = project
        .files
        .iter()
        .enumerate()
        .map(|(i, f)| (f.path.as_str(), i as u32))
        .collect();
    findings.retain(|f| {
        if !through_recovered(project, &files, f) {
            return true;
        }
        let places = std::iter::once((&f.path, f.span)).chain(
            f.via
                .iter()
                .chain(&f.sinks)
                .chain(&f.regions)
                .chain(&f.steps)
                .map(|r| (&r.path, r.span)),
        );
        for (path, span) in places {
            if files
                .get(path.as_str())
                .is_some_and(|i| recovered(project, *i, span))
            {
                *dropped.entry(path.clone()).or_default() += 1;
                break;
            }
        }
        false
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
}
