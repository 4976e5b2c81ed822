//! The errors of a run: problems with one file ([`FileError`], the run goes on) and errors of
//! the run itself ([`RunError`], exit status 2). Kinds and severities are enums that serialize
//! as their lowercase names (`"read"`, `"warning"`), which JSON and SARIF show.

use serde::Serialize;
use std::path::PathBuf;

/// What went wrong with a file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ErrorKind {
    /// The file could not be read (missing, too large, binary, not a regular file).
    Read,
    /// Tree-sitter gave no syntax tree.
    Parse,
    /// The file has syntax errors; the rest of it is still analysed.
    Syntax,
    /// The file was left out of the analysis.
    Skipped,
    /// A part of the file was analysed only in part (a budget or depth limit was reached):
    /// findings there may be missing.
    Incomplete,
}

impl ErrorKind {
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorKind::Read => "read",
            ErrorKind::Parse => "parse",
            ErrorKind::Syntax => "syntax",
            ErrorKind::Skipped => "skipped",
            ErrorKind::Incomplete => "incomplete",
        }
    }
}

/// How bad a file's problem is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// The file could not be analysed at all.
    Error,
    /// The file was analysed in part (a partial parse, a cut-short method).
    Warning,
}

impl Severity {
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
        }
    }
}

macro_rules! named {
    ($t:ty) => {
        impl std::fmt::Display for $t {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.pad(self.as_str())
            }
        }
        /// Ordered by name, as reports list them.
        impl Ord for $t {
            fn cmp(&self, other: &Self) -> std::cmp::Ordering {
                self.as_str().cmp(other.as_str())
            }
        }
        impl PartialOrd for $t {
            fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
                Some(self.cmp(other))
            }
        }
        /// Compared with its name (`e.kind == "syntax"`), as when it was a string.
        impl PartialEq<&str> for $t {
            fn eq(&self, other: &&str) -> bool {
                self.as_str() == *other
            }
        }
        impl PartialEq<str> for $t {
            fn eq(&self, other: &str) -> bool {
                self.as_str() == other
            }
        }
    };
}
named!(ErrorKind);
named!(Severity);

/// A problem with one file; the rest of the run goes on.
#[derive(Debug, Clone, Serialize)]
pub struct FileError {
    pub path: String,
    pub kind: ErrorKind,
    pub severity: Severity,
    pub message: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line: Option<u32>,
}

/// The kind of [`FileError`] that says a part of a file was analysed only in part (a budget or
/// depth limit was reached): findings there may be missing.
pub const INCOMPLETE: ErrorKind = ErrorKind::Incomplete;

/// A baseline file (`--baseline`) that cannot be used.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BaselineError {
    /// The file could not be read.
    Read { file: String, message: String },
    /// The file is not a baseline's JSON.
    Invalid {
        file: String,
        line: usize,
        column: usize,
        message: String,
    },
    /// The file was written for another version of the baseline format.
    Version {
        file: String,
        found: u32,
        reads: u32,
    },
}

impl std::fmt::Display for BaselineError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            BaselineError::Read { file, message } => {
                write!(f, "cannot read baseline file {file}: {message}")
            }
            BaselineError::Invalid {
                file,
                line,
                column,
                message,
            } => write!(f, "bad baseline file {file}:{line}:{column}: {message}"),
            BaselineError::Version { file, found, reads } => write!(
                f,
                "baseline file {file} has version {found}; this retrylint reads version {reads}"
            ),
        }
    }
}

impl std::error::Error for BaselineError {}

/// Errors of the run itself (exit status 2).
#[derive(Debug)]
pub enum RunError {
    MissingPath(PathBuf),
    BadRule(String),
    Catalogue(crate::catalogue::CatalogueError),
    Baseline(BaselineError),
}

impl std::fmt::Display for RunError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RunError::MissingPath(p) => write!(f, "path `{}` does not exist", p.display()),
            RunError::BadRule(r) => write!(f, "unknown rule `{r}` (see `retrylint rules`)"),
            RunError::Catalogue(e) => e.fmt(f),
            RunError::Baseline(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for RunError {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds_and_severities_serialize_and_show_as_their_names() {
        let e = FileError {
            path: "A.java".into(),
            kind: ErrorKind::Incomplete,
            severity: Severity::Warning,
            message: "m".into(),
            line: None,
        };
        let json = serde_json::to_string(&e).expect("serializes");
        assert_eq!(
            json,
            r#"{"path":"A.java","kind":"incomplete","severity":"warning","message":"m"}"#
        );
        assert_eq!(e.kind, INCOMPLETE);
        assert!(e.kind == "incomplete" && e.severity == "warning");
        assert_eq!(
            format!("{} {}", Severity::Error, ErrorKind::Read),
            "error read"
        );
        // Ordered by name, as the report sorts errors.
        let mut kinds = [
            ErrorKind::Syntax,
            ErrorKind::Read,
            ErrorKind::Incomplete,
            ErrorKind::Parse,
        ];
        kinds.sort();
        assert_eq!(
            kinds.iter().map(|k| k.as_str()).collect::<Vec<_>>(),
            vec!["incomplete", "parse", "read", "syntax"]
        );
    }

    #[test]
    fn run_errors_keep_their_sentences() {
        let e = RunError::Catalogue(crate::catalogue::CatalogueError::Unreadable {
            file: "x.toml".into(),
            message: "No such file".into(),
        });
        assert_eq!(
            e.to_string(),
            "bad catalogue file x.toml: cannot read: No such file"
        );
        let e = RunError::Baseline(BaselineError::Version {
            file: "b.json".into(),
            found: 9,
            reads: 1,
        });
        assert_eq!(
            e.to_string(),
            "baseline file b.json has version 9; this retrylint reads version 1"
        );
    }
}
