//! A rule's metadata: what a finding refers to. The rules declare it next to their checks
//! ([`crate::rules`]); it lives here, below them, so that a finding can name its rule without
//! the findings layer depending on the checks that make findings.

use crate::catalogue::SourceKind;
use serde::{Deserialize, Serialize};

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Level {
    Note,
    Warning,
    Error,
}

impl Level {
    pub fn as_str(self) -> &'static str {
        match self {
            Level::Note => "note",
            Level::Warning => "warning",
            Level::Error => "error",
        }
    }
}

#[derive(Debug)]
pub struct Rule {
    pub id: &'static str,
    pub name: &'static str,
    pub level: Level,
    /// The kind of per-attempt source this rule reports (RL001–RL003).
    pub source: Option<SourceKind>,
    /// One line: what it finds.
    pub summary: &'static str,
    /// Markdown: why it is a bug, the unsafe and the safe pattern, how to fix.
    pub doc: &'static str,
    /// How the message names what happens to the value (`becomes the idempotency key`).
    pub verb: &'static str,
    pub consequence: &'static str,
    /// Code-frame labels of the primary location and of the related (sink) locations.
    pub primary_label: &'static str,
    pub related_label: &'static str,
    /// One line of advice under a finding.
    pub fix: &'static str,
}

impl Rule {
    /// The documentation as markdown: the doc comment without the space after each `///`.
    pub fn markdown(&self) -> String {
        self.doc
            .lines()
            .map(|l| l.strip_prefix(' ').unwrap_or(l))
            .collect::<Vec<_>>()
            .join("\n")
            .trim_end()
            .to_string()
    }
}
