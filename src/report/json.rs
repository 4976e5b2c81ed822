//! JSON report, schema version 1 (documented in README.md, "JSON output").

use crate::{Finding, Report};
use serde_json::{Value, json};

pub const SCHEMA_VERSION: u32 = 1;

fn finding(f: &Finding) -> Value {
    json!({
        "rule": f.rule.id,
        "name": f.rule.name,
        "level": f.level.as_str(),
        "path": f.path,
        "line": f.line,
        "column": f.column,
        "end_line": f.end_line,
        "end_column": f.end_column,
        "method": f.method,
        "source": f.source,
        "message": f.message,
        "via": f.via,
        "sinks": f.sinks,
        "regions": f.regions,
        "steps": f.steps,
        "rows": f.rows,
        "fingerprint": f.fingerprint,
    })
}

/// The report, each finding made a [`Value`] only as it is written (the document's keys in
/// the order a [`Value`]'s object gives them, sorted): the output is the same as of the whole
/// document built as one [`Value`], without holding all of it at once.
pub fn render(report: &Report) -> String {
    #[derive(serde::Serialize)]
    struct Doc<'a> {
        errors: Value,
        findings: Findings<'a>,
        summary: Value,
        suppressed: Suppressed<'a>,
        tool: Value,
        version: u32,
    }
    struct Findings<'a>(&'a [Finding]);
    impl serde::Serialize for Findings<'_> {
        fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
            s.collect_seq(self.0.iter().map(finding))
        }
    }
    struct Suppressed<'a>(&'a Report);
    impl serde::Serialize for Suppressed<'_> {
        fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
            s.collect_seq(self.0.suppressed.iter().map(|s| {
                let mut v = finding(&s.finding);
                v["suppressed"] = json!({ "kind": s.kind, "line": s.line, "reason": s.reason });
                v
            }))
        }
    }
    let doc = (|| {
        Ok::<_, serde_json::Error>(Doc {
            errors: serde_json::to_value(&report.errors)?,
            findings: Findings(&report.findings),
            summary: serde_json::to_value(&report.summary)?,
            suppressed: Suppressed(report),
            tool: json!({ "name": "retrylint", "version": env!("CARGO_PKG_VERSION") }),
            version: SCHEMA_VERSION,
        })
    })();
    let mut s = doc
        .and_then(|d| serde_json::to_string_pretty(&d))
        .unwrap_or_else(|_| "{}".into());
    s.push('\n');
    s
}
