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

/// A report path as the `file=` property: the file's own name (a shown path escapes `%` as
/// `%25`, see [`crate::discovery::display_path`]), escaped once as a property.
fn file_property(shown: &str) -> String {
    escape_property(&crate::discovery::name_of_shown(shown))
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
            file_property(&f.path),
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
            file_property(&e.path),
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
            format!("file={},", file_property(&c.path))
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

    /// A file named `Refunds%20Job.java` is shown as `Refunds%2520Job.java`; its annotation
    /// names the file itself, escaped once: `Refunds%2520Job.java`, which GitHub reads back
    /// as `Refunds%20Job.java`.
    #[cfg(unix)]
    #[test]
    fn file_properties_escape_the_name_once() {
        assert_eq!(
            file_property("src/z\u{e4}hlung/Refunds%2520Job.java"),
            "src/z\u{e4}hlung/Refunds%2520Job.java"
        );
        assert_eq!(
            file_property("src/a\nb,x:y/%255C%5C.java"),
            "src/a%0Ab%2Cx%3Ay/%255C\\.java"
        );
        assert_eq!(file_property("a\r.java"), "a%0D.java");
    }
}
