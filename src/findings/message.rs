//! The words of a finding's message: what one execution of its regions is called, where the
//! regions are (at most three named), what a key sink is, and the chain of calls that leads from
//! a region to the finding.

use super::{Finding, line};
use crate::regions::Region;
use crate::semantic::Project;

/// How many regions a message names; the others are counted (`… and 12 more`) and stay in the
/// related locations.
pub const REGIONS_NAMED: usize = 3;

/// What one execution of these regions is called: a scheduler's `run`, a retry's `attempt`.
pub fn execution_noun(regs: &[&Region]) -> &'static str {
    if regs.iter().all(|r| r.scheduler) {
        "run"
    } else {
        "attempt"
    }
}

/// `line 12` in the finding's own file, `File.java:12` elsewhere (the related locations and the
/// code flow carry the whole path).
pub fn at(here: &str, path: &str, line: u32) -> String {
    if here == path {
        format!("line {line}")
    } else {
        let name = path.rsplit(['/', '\\']).next().unwrap_or(path);
        format!("{name}:{line}")
    }
}

/// How many calls of a chain a message shows: a longer one keeps its two first and two last
/// steps around `…` (the code flow keeps them all).
pub const CHAIN_SHOWN: usize = 5;

/// The regions, each with where it is: at most [`REGIONS_NAMED`], then `and N more`.
pub fn region_phrase(project: &Project, path: &str, regs: &[&Region]) -> String {
    let named: Vec<String> = regs
        .iter()
        .take(REGIONS_NAMED)
        .map(|r| {
            let file = &project.files[r.loc.file as usize].path;
            format!(
                "{} ({})",
                r.describe(),
                at(path, file, line(project, r.loc.file, r.loc.span.start))
            )
        })
        .collect();
    let more = regs.len().saturating_sub(REGIONS_NAMED);
    match (named.len(), more) {
        (_, 0) => named.join(" and "),
        _ => format!("{} and {more} more", named.join(", ")),
    }
}

/// `` `charge` → `KeyFactory.newKey` → `UUID.randomUUID()` ``: a chain of calls as written in a
/// message; empty for fewer than two steps.
pub fn chain(steps: &[String]) -> String {
    chain_keeping(steps, &[])
}

/// [`chain`], which shortens a chain longer than [`CHAIN_SHOWN`] to its first step, its two last
/// and the steps at `keep` (the method the finding is reported in), with `…` for each gap.
pub fn chain_keeping(steps: &[String], keep: &[usize]) -> String {
    let n = steps.len();
    if n < 2 {
        return String::new();
    }
    if n <= CHAIN_SHOWN {
        return format!("`{}`", steps.join("` → `"));
    }
    let mut out: Vec<String> = Vec::new();
    let mut gap = false;
    for (i, s) in steps.iter().enumerate() {
        if i == 0 || i + 2 >= n || keep.contains(&i) {
            if gap {
                out.push("…".to_string());
                gap = false;
            }
            out.push(format!("`{s}`"));
        } else {
            gap = true;
        }
    }
    out.join(" → ")
}

/// ` through `A.b` → `C.d``, for a chain of at least two methods.
pub fn through(steps: &[String]) -> String {
    let c = chain(steps);
    if c.is_empty() {
        c
    } else {
        format!(" through {c}")
    }
}

/// A key sink named for what it is, from the engine's label: a header, a body field, an SDK
/// option, a key parameter, a constructor's key argument.
pub fn sink_name(label: &str) -> String {
    let l = label.trim();
    if l.starts_with("the ") || l.starts_with("parameter ") || l.starts_with("argument ") {
        return l.to_string();
    }
    if let Some(rest) = l.strip_prefix("header parameter ") {
        return format!("the header parameter {rest}");
    }
    // A key method on any receiver (`setIdempotencyKey(…)`, `idempotencyKey(…)`): an option of
    // the request.
    if let Some(name) = l.strip_suffix("(…)")
        && !name.is_empty()
        && name
            .chars()
            .all(|c| c.is_alphanumeric() || c == '_' || c == '.')
    {
        return format!("the SDK option `{name}`");
    }
    l.to_string()
}

/// The message of an RL001–RL003 finding: the source, its regions, the key sink and, when
/// they lie in different methods, the calls from the region to the source (`path`) and from the
/// primary method to the sink (`sink_path`).
pub fn key_message(
    f: &Finding,
    regs: &[&Region],
    project: &Project,
    source: &str,
    path: &[String],
    keep: &[usize],
    sink_path: &[String],
) -> String {
    let noun = execution_noun(regs);
    let where_ = region_phrase(project, &f.path, regs);
    let sink = f
        .sinks
        .first()
        .map(|s| {
            let what = s
                .message
                .strip_prefix("becomes the idempotency key: ")
                .unwrap_or(&s.message);
            format!(" as {what} at {}", at(&f.path, &s.path, s.line))
        })
        .unwrap_or_default();
    let more = match f.sinks.len() {
        0 | 1 => String::new(),
        n => format!(
            " (and {} more sink{})",
            n - 1,
            if n == 2 { "" } else { "s" }
        ),
    };
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
    let path = chain_keeping(path, keep);
    let path = if path.is_empty() {
        String::new()
    } else {
        format!(" ({path})")
    };
    let sink_path = chain(sink_path);
    let sink_path = if sink_path.is_empty() {
        String::new()
    } else {
        format!(" ({sink_path})")
    };
    format!(
        "{source} {} on every {noun} of {where_}{path} and {becomes}{sink}{sink_path}{more}: {consequence}",
        f.rule.verb,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(n: usize) -> Vec<String> {
        (0..n).map(|i| format!("m{i}")).collect()
    }

    #[test]
    fn a_long_chain_keeps_its_ends_and_the_reported_method() {
        assert_eq!(chain(&names(1)), "");
        assert_eq!(chain(&names(3)), "`m0` → `m1` → `m2`");
        assert_eq!(chain(&names(8)), "`m0` → … → `m6` → `m7`");
        assert_eq!(
            chain_keeping(&names(8), &[3]),
            "`m0` → … → `m3` → … → `m6` → `m7`"
        );
    }

    #[test]
    fn sinks_are_named_for_what_they_are() {
        assert_eq!(
            sink_name("setIdempotencyKey(…)"),
            "the SDK option `setIdempotencyKey`"
        );
        assert_eq!(
            sink_name("the `Idempotency-Key` header"),
            "the `Idempotency-Key` header"
        );
        assert_eq!(
            sink_name("parameter `idempotencyKey` of `startOperation`"),
            "parameter `idempotencyKey` of `startOperation`"
        );
        assert_eq!(
            sink_name("header parameter `key` of `charge`"),
            "the header parameter `key` of `charge`"
        );
    }

    #[test]
    fn a_finding_across_files_shows_its_call_path_and_every_step() {
        let dir = tempfile::tempdir().expect("a temporary directory");
        let billing = "import org.springframework.retry.annotation.Retryable;\n\
            class Billing {\n\
              private final Keys keys = new Keys();\n\
              private final Client client = new Client();\n\
              @Retryable\n\
              public void charge(String orderId) {\n\
                client.send(orderId, keys.newKey());\n\
              }\n\
            }\n";
        let keys = "import java.util.UUID;\n\
            class Keys {\n\
              String newKey() { return UUID.randomUUID().toString(); }\n\
            }\n";
        let client = "class Client {\n\
              void send(String orderId, String key) {\n\
                Request r = new Request();\n\
                r.header(\"Idempotency-Key\", key);\n\
              }\n\
            }\n\
            class Request { void header(String n, String v) {} }\n";
        for (name, text) in [
            ("Billing.java", billing),
            ("Keys.java", keys),
            ("Client.java", client),
        ] {
            std::fs::write(dir.path().join(name), text).expect("written");
        }
        let report = crate::check(&crate::Options::new(vec![dir.path().to_path_buf()]))
            .expect("the check runs");
        let f = &report.findings[0];
        assert!(
            f.message
                .contains("(`charge` → `Keys.newKey` → `UUID.randomUUID()`)")
                && f.message
                    .contains("as the `Idempotency-Key` header at Client.java:4")
                && f.message.contains("(`charge` → `Client.send`)")
                && f.message.len() < 300,
            "{}",
            f.message
        );
        let steps: Vec<(&str, u32)> = f
            .steps
            .iter()
            .map(|s| (s.path.rsplit('/').next().unwrap_or(""), s.line))
            .collect();
        assert_eq!(
            steps,
            [
                ("Keys.java", 3),
                ("Billing.java", 7),
                ("Billing.java", 7),
                ("Client.java", 4)
            ],
            "{:?}",
            f.steps
        );
    }
}
