//! One line per finding, `path:line:col: RL001 message`, for `grep`, editors' quickfix lists
//! and triage; then the file problems and the summary line.

use crate::Report;
use crate::report::text::{not_java_line, one_line, summary_line};

/// `color`: the path bold and the rule id in the colour of its level, as a terminal shows them.
pub fn render(report: &Report, color: bool) -> String {
    let paint = |code: &str, s: &str| {
        if color {
            format!("\x1b[{code}m{s}\x1b[0m")
        } else {
            s.to_string()
        }
    };
    let mut out = String::new();
    for f in &report.findings {
        let level = match f.level {
            crate::rules::Level::Error => "31",
            crate::rules::Level::Warning => "33",
            crate::rules::Level::Note => "36",
        };
        out.push_str(&format!(
            "{}:{}:{}: {} {}\n",
            paint("1", &one_line(&f.path)),
            f.line,
            f.column,
            paint(&format!("1;{level}"), f.rule.id),
            one_line(&f.message)
        ));
    }
    for e in &report.errors {
        let line = e.line.map(|l| format!(":{l}")).unwrap_or_default();
        out.push_str(&format!(
            "{}{line}: {}: {} ({})\n",
            one_line(&e.path),
            e.severity,
            one_line(&e.message),
            e.kind
        ));
    }
    out.push_str(&summary_line(&report.summary));
    out.push('\n');
    out.push_str(&not_java_line(&report.summary));
    out
}
