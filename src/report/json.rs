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

pub fn render(report: &Report) -> String {
    let v = json!({
        "version": SCHEMA_VERSION,
        "tool": { "name": "retrylint", "version": env!("CARGO_PKG_VERSION") },
        "findings": report.findings.iter().map(finding).collect::<Vec<_>>(),
        "suppressed": report.suppressed.iter().map(|s| {
            let mut v = finding(&s.finding);
            v["suppressed"] = json!({ "kind": s.kind, "line": s.line, "reason": s.reason });
            v
        }).collect::<Vec<_>>(),
        "errors": report.errors,
        "summary": report.summary,
    });
    let mut s = serde_json::to_string_pretty(&v).unwrap_or_else(|_| "{}".into());
    s.push('\n');
    s
}
