//! The rule catalogue: one file per rule, each declaring its metadata, documentation and check
//! once. `explain`, the README table and SARIF help all read it from here.

use crate::catalogue::{Catalogue, SourceKind};
use crate::findings::Finding;
pub use crate::findings::rule::{Level, Rule};
use crate::regions::{Reaches, Region};
use crate::semantic::{CallGraph, MethodId, Project};
use std::collections::HashMap;

mod handed_on;
mod key;
mod reach;
mod recorded;
mod swept;

mod rl001;
mod rl002;
mod rl003;
mod rl004;
mod rl005;
mod rl006;
mod rl100;
mod rl101;
mod swallowed;

/// What a rule's check reads: the project, the catalogue, and the analysis of the methods that
/// some region reaches.
pub struct Context<'a> {
    pub project: &'a Project,
    pub cat: &'a Catalogue,
    /// The methods some region runs, sorted.
    pub ids: &'a [MethodId],
    pub flows: &'a crate::dataflow::Flows,
    /// The call graph among those methods.
    pub graph: &'a CallGraph,
    /// Every region, in source order.
    pub regions: &'a [Region],
    /// For each region, the methods it reaches through calls.
    pub reaches: &'a Reaches,
    /// The retry annotations that can never fire (SPEC §3.3), in source order: the source of
    /// no finding but RL006.
    pub dead_regions: &'a [Region],
    /// For each dead region, the methods it would reach.
    pub dead_reaches: &'a Reaches,
    /// For each region, the key sinks that get a key new on each of its executions (see
    /// [`reach::fresh_sinks`]), built on first use in one walk of every flow.
    pub fresh: std::sync::OnceLock<Vec<Vec<(crate::dataflow::Loc, String)>>>,
    /// For each method, the methods of the call graph that call it (see
    /// [`reach::conditions_met`]), built on first use.
    pub callers: std::sync::OnceLock<HashMap<MethodId, Vec<MethodId>>>,
}

/// The findings of every rule that has a check, in rule order.
pub fn check_all(cx: &Context) -> Vec<Finding> {
    CHECKS
        .iter()
        .filter_map(|check| *check)
        .flat_map(|check| check(cx))
        .collect()
}

/// A rule's check: its findings in an analysed project.
pub type Check = fn(&Context) -> Vec<Finding>;

/// The checks of the rules a region's own code gives (RL001–RL004): for a dead retry
/// annotation, what it would report once it fires.
pub(crate) const LATENT_CHECKS: &[Option<Check>] =
    &[rl001::CHECK, rl002::CHECK, rl003::CHECK, rl004::CHECK];

/// Every rule's check, in the order of [`ALL`].
const CHECKS: &[Option<Check>] = &[
    rl001::CHECK,
    rl002::CHECK,
    rl003::CHECK,
    rl004::CHECK,
    rl005::CHECK,
    rl006::CHECK,
    rl100::CHECK,
    rl101::CHECK,
];

/// Declare a rule's metadata once, next to its documentation.
macro_rules! declare_rule {
    ($(#[doc = $doc:literal])* $ident:ident { id: $id:literal, name: $name:literal, level: $level:ident,
      source: $source:expr, summary: $summary:literal, verb: $verb:literal, consequence: $cons:literal,
      primary_label: $pl:literal, related_label: $rl:literal, fix: $fix:literal,
      check: $check:expr $(,)? }) => {
        /// The findings of this rule in an analysed project; `None` for the diagnostics about
        /// suppressions, which the suppression step reports.
        pub const CHECK: Option<$crate::rules::Check> = $check;
        pub const $ident: $crate::rules::Rule = $crate::rules::Rule {
            id: $id,
            name: $name,
            level: $crate::rules::Level::$level,
            source: $source,
            summary: $summary,
            doc: concat!($($doc, "\n"),*),
            verb: $verb,
            consequence: $cons,
            primary_label: $pl,
            related_label: $rl,
            fix: $fix,
        };
    };
}
pub(crate) use declare_rule;

/// Every rule, in id order.
pub const ALL: &[&Rule] = &[
    &rl001::RULE,
    &rl002::RULE,
    &rl003::RULE,
    &rl004::RULE,
    &rl005::RULE,
    &rl006::RULE,
    &rl100::RULE,
    &rl101::RULE,
];

pub use rl004::RULE as UNKEYED_SIDE_EFFECT;
pub use rl005::RULE as UNLOCKED_SCHEDULER;
pub use rl100::RULE as UNUSED_SUPPRESSION;
pub use rl101::RULE as INVALID_SUPPRESSION;

pub fn by_id(id: &str) -> Option<&'static Rule> {
    ALL.iter()
        .copied()
        .find(|r| r.id.eq_ignore_ascii_case(id) || r.name == id)
}

/// The rules a `--select`/`--ignore` entry names: a rule id or name, or a prefix of ids
/// (`RL00`, `RL1`, `RL`), case-insensitive; surrounding spaces do not count. Empty when it names
/// none.
pub fn matching(selector: &str) -> Vec<&'static Rule> {
    let s = selector.trim();
    if s.is_empty() {
        return Vec::new();
    }
    if let Some(r) = by_id(s) {
        return vec![r];
    }
    let upper = s.to_ascii_uppercase();
    if upper == "ALL" {
        return ALL.to_vec();
    }
    ALL.iter()
        .copied()
        .filter(|r| r.id.starts_with(&upper))
        .collect()
}

pub fn for_source(kind: SourceKind) -> &'static Rule {
    ALL.iter()
        .copied()
        .find(|r| r.source == Some(kind))
        .unwrap_or(ALL[0])
}

/// The README's rules table, generated from the rules (a test keeps the README in step).
pub fn table() -> String {
    let mut out = String::from("| id | name | level | finds |\n|---|---|---|---|\n");
    for r in ALL {
        out.push_str(&format!(
            "| {} | {} | {} | {} |\n",
            r.id,
            r.name,
            r.level.as_str(),
            r.summary
        ));
    }
    out
}

/// The README's rule reference: each rule's documentation, the text `retrylint explain` prints
/// and SARIF `help` carries, under a `### RLxxx` heading (the SARIF `helpUri` anchor).
pub fn reference() -> String {
    let mut out = String::new();
    for r in ALL {
        // The documentation's `##` sections sit under the rule's `###` heading.
        let demoted: Vec<String> = r
            .markdown()
            .lines()
            .map(|l| match l.strip_prefix("## ") {
                Some(h) => format!("#### {h}"),
                None => l.to_string(),
            })
            .collect();
        let demoted = demoted.join("\n");
        out.push_str(&format!(
            "### {}\n\n`{}` · default level: {} · {}\n\n{}\n\n",
            r.id,
            r.name,
            r.level.as_str(),
            r.summary,
            demoted
        ));
    }
    out
}

/// Documentation text as a terminal shows it: markdown headings and fences kept readable.
pub fn explain(rule: &Rule) -> String {
    format!(
        "{} ({}) — {}\nDefault level: {}\n\n{}",
        rule.id,
        rule.name,
        rule.summary,
        rule.level.as_str(),
        rule.markdown()
    )
}

/// Pass/fail Java snippets for each rule's tests: a snippet is checked as the one file of a
/// project of its own, through the real [`crate::check`].
#[cfg(test)]
pub(crate) mod snippets {
    use super::Rule;

    /// The rules reported on `java`, in the order the report gives them.
    pub fn rules_of(java: &str) -> Vec<&'static str> {
        let dir = tempfile::tempdir().expect("a temporary directory");
        std::fs::write(dir.path().join("Snippet.java"), java).expect("the snippet is written");
        let opts = crate::Options::new(vec![dir.path().to_path_buf()]);
        let report = crate::check(&opts).expect("the check runs");
        report.findings.iter().map(|f| f.rule.id).collect()
    }

    /// Each snippet gives at least one finding of `rule`.
    pub fn fails(rule: &Rule, snippets: &[&str]) {
        for java in snippets {
            let got = rules_of(java);
            assert!(
                got.contains(&rule.id),
                "expected {} on:\n{java}\ngot {got:?}",
                rule.id
            );
        }
    }

    /// No snippet gives a finding of `rule`.
    pub fn passes(rule: &Rule, snippets: &[&str]) {
        for java in snippets {
            let got = rules_of(java);
            assert!(
                !got.contains(&rule.id),
                "expected no {} on:\n{java}\ngot {got:?}",
                rule.id
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_rule_is_documented() {
        for r in ALL {
            for section in ["## Why is this bad?", "## Example", "## How to fix"] {
                assert!(r.doc.contains(section), "{} lacks {section}", r.id);
            }
        }
        assert_eq!(by_id("rl002").map(|r| r.id), Some("RL002"));
    }

    #[test]
    fn selectors_take_prefixes_and_spaces() {
        let ids = |s: &str| matching(s).iter().map(|r| r.id).collect::<Vec<_>>();
        assert_eq!(ids(" RL002 "), vec!["RL002"]);
        assert_eq!(
            ids("rl00"),
            vec!["RL001", "RL002", "RL003", "RL004", "RL005", "RL006"]
        );
        assert_eq!(ids("RL10"), vec!["RL100", "RL101"]);
        assert_eq!(ids("RL").len(), ALL.len());
        assert_eq!(ids("all").len(), ALL.len());
        assert!(ids("RL9").is_empty() && ids("").is_empty() && ids("R L").is_empty());
    }
}
