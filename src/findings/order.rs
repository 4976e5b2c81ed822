//! Columns, fingerprints and the final order of findings.

use super::Finding;
use crate::java::ir::Span;
use sha2::{Digest, Sha256};
use std::collections::{BTreeMap, HashMap};

/// Line `n` (0-based) of `t` without its terminator; LF, CRLF and a lone CR end a line.
fn nth_line(t: &str, n: usize) -> &str {
    let mut rest = t;
    for _ in 0..n {
        match rest.find(['\n', '\r']) {
            Some(i) if rest[i..].starts_with("\r\n") => rest = &rest[i + 2..],
            Some(i) => rest = &rest[i + 1..],
            None => return "",
        }
    }
    rest.find(['\n', '\r']).map_or(rest, |i| &rest[..i])
}

/// Columns as UTF-16 code units (SARIF's default), fingerprints, and the final order.
pub fn finish(findings: &mut [Finding], texts: &BTreeMap<String, String>) {
    // One-based column of a byte offset in UTF-16 code units, counted from its line's start.
    let col = |path: &str, span: Span, end: bool| -> u32 {
        let off = if end { span.end } else { span.start } as usize;
        match texts.get(path) {
            Some(t) if off <= t.len() && t.is_char_boundary(off) => {
                let start = t[..off].rfind(['\n', '\r']).map_or(0, |i| i + 1);
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
            .map_or("", |t| nth_line(t, (f.line as usize).saturating_sub(1)))
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
