//! Columns, fingerprints and the final order of findings.

use super::Finding;
use crate::java::ir::Span;
use sha2::{Digest, Sha256};
use std::collections::{BTreeMap, HashMap};

/// Where the lines of a text start, so that many findings in one file cost a binary search
/// each, not a scan of the text.
struct Lines {
    /// Every offset just after an LF or a CR (a column counts from the last of them).
    after_break: Vec<usize>,
    /// Where each line starts; LF, CRLF and a lone CR end a line.
    starts: Vec<usize>,
}

impl Lines {
    fn of(t: &str) -> Lines {
        let b = t.as_bytes();
        let mut after_break = vec![0];
        let mut starts = vec![0];
        for (i, c) in b.iter().enumerate() {
            if *c == b'\n' || *c == b'\r' {
                after_break.push(i + 1);
                if *c == b'\n' || b.get(i + 1) != Some(&b'\n') {
                    starts.push(i + 1);
                }
            }
        }
        Lines {
            after_break,
            starts,
        }
    }

    /// The start of the line holding `off`: just after the last LF or CR before it.
    fn line_start(&self, off: usize) -> usize {
        let i = self.after_break.partition_point(|s| *s <= off);
        self.after_break[i.saturating_sub(1)]
    }

    /// Line `n` (0-based) of `t` without its terminator.
    fn nth<'t>(&self, t: &'t str, n: usize) -> &'t str {
        let Some(&start) = self.starts.get(n) else {
            return "";
        };
        let rest = t.get(start..).unwrap_or("");
        rest.find(['\n', '\r']).map_or(rest, |i| &rest[..i])
    }
}

/// Columns as UTF-16 code units (SARIF's default), fingerprints, and the final order.
pub fn finish(findings: &mut [Finding], texts: &BTreeMap<String, String>) {
    let lines: HashMap<&str, Lines> = texts
        .iter()
        .map(|(p, t)| (p.as_str(), Lines::of(t)))
        .collect();
    // One-based column of a byte offset in UTF-16 code units, counted from its line's start.
    let col = |path: &str, span: Span, end: bool| -> u32 {
        let off = if end { span.end } else { span.start } as usize;
        match (texts.get(path), lines.get(path)) {
            (Some(t), Some(l)) if off <= t.len() && t.is_char_boundary(off) => {
                let start = l.line_start(off);
                t[start..off].encode_utf16().count() as u32 + 1
            }
            _ => 1,
        }
    };
    for f in findings.iter_mut() {
        f.column = col(&f.path, f.span, false);
        f.end_column = col(&f.path, f.span, true);
        for r in f
            .sinks
            .iter_mut()
            .chain(f.regions.iter_mut())
            .chain(f.via.iter_mut())
            .chain(f.steps.iter_mut())
        {
            r.column = col(&r.path, r.span, false);
            r.end_column = col(&r.path, r.span, true);
        }
    }
    findings.sort_by(|a, b| {
        (&a.path, a.line, a.column, a.rule.id).cmp(&(&b.path, b.line, b.column, b.rule.id))
    });
    let mut seen: HashMap<String, usize> = HashMap::new();
    for f in findings.iter_mut() {
        let line_text: String = texts
            .get(&f.path)
            .zip(lines.get(f.path.as_str()))
            .map_or("", |(t, l)| l.nth(t, (f.line as usize).saturating_sub(1)))
            .chars()
            .filter(|c| !c.is_whitespace())
            .collect();
        let base = format!(
            "{}\u{0}{}\u{0}{}\u{0}{}",
            f.rule.id, f.path, f.method, line_text
        );
        let n = seen.entry(base.clone()).or_default();
        *n += 1;
        let digest = Sha256::digest(format!("{base}\u{0}{n}").as_bytes());
        f.fingerprint = digest.iter().take(16).map(|b| format!("{b:02x}")).collect();
    }
}
