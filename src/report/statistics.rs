//! `--statistics`: how many findings of each rule, most frequent first, like Ruff's table.

use crate::Report;

/// Rules with their number of findings, most frequent first.
fn rows(report: &Report) -> Vec<(&'static crate::rules::Rule, usize)> {
    let mut rows: Vec<(&'static crate::rules::Rule, usize)> = Vec::new();
    for f in &report.findings {
        match rows.iter_mut().find(|(r, _)| r.id == f.rule.id) {
            Some((_, n)) => *n += 1,
            None => rows.push((f.rule, 1)),
        }
    }
    rows.sort_by(|(a, n), (b, m)| m.cmp(n).then(a.id.cmp(b.id)));
    rows
}

/// The table: count, rule id, level, name; then the summary line.
pub fn render(report: &Report) -> String {
    let rows = rows(report);
    let width = rows
        .iter()
        .map(|(_, n)| n.to_string().len())
        .max()
        .unwrap_or(1);
    let mut out = String::new();
    for (r, n) in &rows {
        out.push_str(&format!(
            "{n:>width$}  {}  {:<7}  {}\n",
            r.id,
            r.level.as_str(),
            r.name
        ));
    }
    out.push_str(&crate::report::text::summary_line(&report.summary));
    out.push('\n');
    out
}

/// The same as JSON: `[{"rule", "name", "level", "count"}]`.
pub fn render_json(report: &Report) -> String {
    let rows: Vec<serde_json::Value> = rows(report)
        .into_iter()
        .map(|(r, n)| {
            serde_json::json!({ "rule": r.id, "name": r.name, "level": r.level.as_str(), "count": n })
        })
        .collect();
    let mut s = serde_json::to_string_pretty(&rows).unwrap_or_else(|_| "[]".into());
    s.push('\n');
    s
}
