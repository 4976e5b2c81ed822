//! The report scope (`--report-scope`): the files reported on, while every scanned file still
//! gives the project its facts.

use super::discovery;
use crate::Report;
use std::collections::{HashMap, HashSet};
use std::ffi::OsStr;
use std::path::{Path, PathBuf};

/// Which scanned files are reported on; without a scope, all of them.
pub struct ReportScope {
    /// Shown path → canonical path, of the scanned files that can be in the scope.
    canonical: Option<HashMap<String, PathBuf>>,
    scope: HashSet<PathBuf>,
}

impl ReportScope {
    /// The scope of the files `scope` among the scanned `files`, by canonical path.
    pub fn new(scope: Option<&[PathBuf]>, files: &[PathBuf]) -> ReportScope {
        let Some(scope) = scope else {
            return ReportScope {
                canonical: None,
                scope: HashSet::new(),
            };
        };
        let scope: HashSet<PathBuf> = scope
            .iter()
            .filter_map(|p| std::fs::canonicalize(p).ok())
            .collect();
        // Only files named like a scope file can be one (no path resolution for the others: a
        // pre-commit run names a few files of a large project).
        let names: HashSet<&OsStr> = scope.iter().filter_map(|p| p.file_name()).collect();
        let canonical = files
            .iter()
            .filter(|p| p.file_name().is_some_and(|n| names.contains(n)))
            .filter_map(|p| Some((discovery::display_path(p), std::fs::canonicalize(p).ok()?)))
            .collect();
        ReportScope {
            canonical: Some(canonical),
            scope,
        }
    }

    /// Is the file shown as `shown` reported on?
    pub fn contains(&self, shown: &str) -> bool {
        match &self.canonical {
            None => true,
            Some(c) => c.get(shown).is_some_and(|c| self.scope.contains(c)),
        }
    }

    /// Is any place the finding involves in the scope: its primary location, the helper that
    /// evaluates the value, a step of its path, a key sink or a region? So a helper changed to return a random key
    /// is blocked although the finding is reported in its unchanged caller.
    pub fn holds(&self, f: &crate::Finding) -> bool {
        self.contains(&f.path)
            || f.via
                .iter()
                .chain(&f.sinks)
                .chain(&f.regions)
                .chain(&f.steps)
                .any(|r| self.contains(&r.path))
    }

    fn contains_path(&self, p: &Path) -> bool {
        self.canonical.is_none() || self.contains(&discovery::display_path(p))
    }

    /// Keep the errors of the files in the scope and count the files, the errors and the
    /// syntax warnings within it.
    pub fn count(&self, files: &[PathBuf], report: &mut Report) {
        let scoped = self.canonical.is_some();
        if scoped {
            report.summary.files_scanned = files.iter().filter(|p| self.contains_path(p)).count()
                - report
                    .errors
                    .iter()
                    .filter(|e| e.severity == crate::Severity::Error && self.contains(&e.path))
                    .count();
        }
        report.errors.retain(|e| self.contains(&e.path));
        // Counted in the report scope, like the errors themselves.
        report.summary.files_with_syntax_errors = report
            .errors
            .iter()
            .filter(|e| e.kind == crate::ErrorKind::Syntax)
            .count();
        if scoped {
            report.summary.files_failed = report
                .errors
                .iter()
                .filter(|e| e.severity == crate::Severity::Error)
                .count();
        }
    }
}
