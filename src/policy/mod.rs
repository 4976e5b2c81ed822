//! What a team needs to live with the findings, applied to the finished findings of a run:
//! rule settings from `retrylint.toml`, inline suppressions, and the baseline. The only place
//! that filters and counts the findings a run reports.

pub mod baseline;
pub mod config;
pub mod suppress;

use crate::rules::{self, Rule};
use crate::{Options, Report, RunError};
use config::RuleSetting;
use std::path::PathBuf;

/// Does this run report `rule`? `--select` and `--ignore` win over `retrylint.toml`.
pub fn enabled(opts: &Options, rule: &Rule) -> bool {
    let named = |list: &[String]| {
        list.iter()
            .any(|s| rules::by_id(s).is_some_and(|r| r.id == rule.id))
    };
    if named(&opts.ignore) {
        return false;
    }
    if !opts.select.is_empty() {
        return named(&opts.select);
    }
    opts.config
        .as_ref()
        .is_none_or(|c| c.setting(rule) != Some(RuleSetting::Off))
}

pub(crate) fn apply(
    opts: &Options,
    report: &mut Report,
    analysed: &[PathBuf],
    parsed: &suppress::Parsed,
) -> Result<(), RunError> {
    let baseline = match &opts.baseline {
        Some(p) => Some(baseline::Baseline::load(p).map_err(RunError::Baseline)?),
        None => None,
    };
    let config = opts.config.as_deref();
    let mut findings = std::mem::take(&mut report.findings);
    findings.retain(|f| enabled(opts, f.rule));
    // `[per-file-ignores]`: rules switched off for the files that match a glob.
    let by_shown: std::collections::HashMap<String, &PathBuf> = analysed
        .iter()
        .map(|p| (crate::discovery::display_path(p), p))
        .collect();
    if let Some(c) = config.filter(|c| !c.per_file_ignores.is_empty()) {
        let before = findings.len();
        findings.retain(|f| {
            by_shown
                .get(&f.path)
                .is_none_or(|p| !c.ignores_in_file(p, f.rule))
        });
        // Counted with the configuration that hid them, shown in every output format.
        if let Some(applied) = report.summary.config.as_mut() {
            applied.per_file_ignored = before - findings.len();
        }
    }
    let enabled_rule = |r: &Rule| enabled(opts, r);
    let settings = suppress::Settings {
        require_reason: config.is_some_and(|c| c.require_reason),
        report_unused: opts.report_unused_ignores,
        enabled: &enabled_rule,
    };
    // A file that was not analysed (too large, unreadable) has no unused suppression to report.
    let mut files = suppress::shown(analysed);
    files.retain(|(shown, _)| {
        !report
            .errors
            .iter()
            .any(|e| e.severity == crate::Severity::Error && &e.path == shown)
    });
    let mut outcome = suppress::apply(findings, &report.texts, &files, parsed, &settings);
    report.texts.append(&mut outcome.texts);
    report.not_utf8.append(&mut outcome.not_utf8);
    crate::findings::finish(&mut outcome.diagnostics, &report.texts);
    let mut findings = outcome.findings;
    findings.append(&mut outcome.diagnostics);
    findings.sort_by(|a, b| {
        (&a.path, a.line, a.column, a.rule.id).cmp(&(&b.path, b.line, b.column, b.rule.id))
    });
    let mut suppressed = outcome.suppressed;
    if let Some(c) = config {
        for f in findings
            .iter_mut()
            .chain(suppressed.iter_mut().map(|s| &mut s.finding))
        {
            f.level = c.level(f.rule);
        }
    }
    let (findings, baselined, stale) = match &baseline {
        Some(b) => b.split(findings, &report.texts, &files),
        None => (findings, Vec::new(), 0),
    };
    report.summary.baseline_stale = stale;
    report.summary.findings = findings.len();
    report.summary.by_rule.clear();
    for f in &findings {
        *report
            .summary
            .by_rule
            .entry(f.rule.id.to_string())
            .or_default() += 1;
    }
    report.summary.suppressed = suppressed.len();
    report.summary.baselined = baselined.len();
    report.findings = findings;
    report.suppressed = suppressed;
    report.baselined = baselined;
    Ok(())
}
