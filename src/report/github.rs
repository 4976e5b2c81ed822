//! GitHub Actions workflow commands (`::error file=…::message`), escaped as GitHub specifies so
//! scanned content cannot inject a command.

use crate::Report;

fn escape_data(s: &str) -> String {
    s.replace('%', "%25")
        .replace('\r', "%0D")
        .replace('\n', "%0A")
}

fn escape_property(s: &str) -> String {
    escape_data(s).replace(':', "%3A").replace(',', "%2C")
}

pub fn render(report: &Report) -> String {
    let mut out = String::new();
    for f in &report.findings {
        let cmd = match f.level {
            crate::rules::Level::Error => "error",
            crate::rules::Level::Warning => "warning",
            crate::rules::Level::Note => "notice",
        };
        out.push_str(&format!(
            "::{cmd} file={},line={},col={},endLine={},endColumn={},title={}::{}\n",
            escape_property(&f.path),
            f.line,
            f.column,
            f.end_line,
            f.end_column,
            escape_property(&format!("{} {}", f.rule.id, f.rule.name)),
            escape_data(&f.message),
        ));
    }
    for e in &report.errors {
        let cmd = if e.severity == crate::Severity::Error {
            "error"
        } else {
            "warning"
        };
        let line = e.line.map(|l| format!(",line={l}")).unwrap_or_default();
        out.push_str(&format!(
            "::{cmd} file={}{line},title=retrylint {}::{}\n",
            escape_property(&e.path),
            e.kind,
            escape_data(&e.message)
        ));
    }
    // So may an ignore file that hides sources.
    if report.summary.files_gitignored > 0 {
        out.push_str(&format!(
            "::notice title=retrylint ignore files::{} .java files left out by ignore files (.gitignore)\n",
            report.summary.files_gitignored
        ));
    }
    // A configuration in the checkout may switch rules off: say which one shaped the run.
    if let Some(c) = &report.summary.config {
        let file = if c.path.is_empty() {
            String::new()
        } else {
            format!("file={},", escape_property(&c.path))
        };
        out.push_str(&format!(
            "::notice {file}title=retrylint configuration::{}\n",
            escape_data(&format!(
                "this run used {}",
                crate::report::text::config_line(c)
            ))
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_workflow_command_metacharacters() {
        assert_eq!(escape_data("a%b\r\nc"), "a%25b%0D%0Ac");
        assert_eq!(escape_property("x:y,z"), "x%3Ay%2Cz");
    }
}
