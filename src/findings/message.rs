//! The words of a finding's message: what one execution of its regions is called, where the
//! regions are, and the chain of calls that leads from a region to the finding.

use super::{Finding, line};
use crate::regions::Region;
use crate::semantic::Project;

/// What one execution of these regions is called: a scheduler's `run`, a retry's `attempt`.
pub fn execution_noun(regs: &[&Region]) -> &'static str {
    if regs.iter().all(|r| r.scheduler) {
        "run"
    } else {
        "attempt"
    }
}

pub fn region_phrase(project: &Project, path: &str, regs: &[&Region]) -> String {
    regs.iter()
        .map(|r| {
            let file = &project.files[r.loc.file as usize].path;
            if file == path {
                format!(
                    "{} (line {})",
                    r.describe(),
                    line(project, r.loc.file, r.loc.span.start)
                )
            } else {
                format!(
                    "{} ({}:{})",
                    r.describe(),
                    file,
                    line(project, r.loc.file, r.loc.span.start)
                )
            }
        })
        .collect::<Vec<_>>()
        .join(" and ")
}

/// ` through `A.b` → `C.d``, for a chain of at least two methods.
pub fn through(chain: &[String]) -> String {
    if chain.len() < 2 {
        String::new()
    } else {
        format!(" through `{}`", chain.join("` → `"))
    }
}

/// The message of an RL001–RL003 finding: the source, its regions and the key sink.
pub fn key_message(f: &Finding, regs: &[&Region], project: &Project) -> String {
    let noun = execution_noun(regs);
    let where_ = region_phrase(project, &f.path, regs);
    let sink = f
        .sinks
        .first()
        .map(|s| {
            if s.path == f.path {
                format!("line {}", s.line)
            } else {
                format!("{}:{}", s.path, s.line)
            }
        })
        .unwrap_or_default();
    let becomes = if f.rule.source == Some(crate::catalogue::SourceKind::Attempt) {
        "becomes part of the idempotency key"
    } else {
        "becomes the idempotency key"
    };
    let consequence = if noun == "run" {
        "each run sends a new key"
    } else {
        f.rule.consequence
    };
    format!(
        "{} {} on every {noun} of {} and {becomes} at {sink}: {consequence}",
        f.source, f.rule.verb, where_,
    )
}
