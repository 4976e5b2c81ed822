//! Human output: a miette code frame per finding with the source, the sink and the region
//! labelled, then the file problems and a summary.

use crate::{Finding, Report};
use miette::{
    Diagnostic, GraphicalReportHandler, GraphicalTheme, LabeledSpan, NamedSource, Severity,
    SourceSpan,
};
use std::fmt;

struct FindingDiag<'a> {
    f: &'a Finding,
    src: NamedSource<String>,
    labels: Vec<LabeledSpan>,
    help: Option<String>,
}

impl fmt::Debug for FindingDiag<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", one_line(&self.f.message))
    }
}

impl fmt::Display for FindingDiag<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", one_line(&self.f.message))
    }
}

impl std::error::Error for FindingDiag<'_> {}

impl Diagnostic for FindingDiag<'_> {
    fn code<'b>(&'b self) -> Option<Box<dyn fmt::Display + 'b>> {
        Some(Box::new(format!("{} {}", self.f.rule.id, self.f.rule.name)))
    }
    fn severity(&self) -> Option<Severity> {
        Some(match self.f.level {
            crate::rules::Level::Error => Severity::Error,
            crate::rules::Level::Warning => Severity::Warning,
            crate::rules::Level::Note => Severity::Advice,
        })
    }
    fn source_code(&self) -> Option<&dyn miette::SourceCode> {
        Some(&self.src)
    }
    fn labels(&self) -> Option<Box<dyn Iterator<Item = LabeledSpan> + '_>> {
        Some(Box::new(self.labels.iter().cloned()))
    }
    fn help<'b>(&'b self) -> Option<Box<dyn fmt::Display + 'b>> {
        self.help
            .as_ref()
            .map(|h| Box::new(h.clone()) as Box<dyn fmt::Display>)
    }
}

/// Bidirectional overrides and isolates reorder what a terminal shows (Trojan Source).
fn is_bidi_control(c: char) -> bool {
    matches!(c, '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}')
}

/// Control characters (ANSI escapes begin with one) and bidirectional controls from scanned
/// files must not reach the terminal; line breaks and tabs stay.
pub fn sanitize(s: &str) -> String {
    s.chars()
        .map(|c| {
            if (c.is_control() && c != '\n' && c != '\t') || is_bidi_control(c) {
                '\u{FFFD}'
            } else {
                c
            }
        })
        .collect()
}

/// [`sanitize`] for a one-line field (a path, a message): a line break in it could forge a line
/// of the report.
pub(crate) fn one_line(s: &str) -> String {
    sanitize(&s.replace(['\n', '\t'], " "))
}

/// The source for a code frame, neutralised without moving a byte, so that spans (byte offsets)
/// still point at the same code: a CR of CRLF becomes a space, a lone CR (a Java line break) a
/// LF, and any other control character `?` repeated over its UTF-8 length (a bidirectional
/// control, three bytes, U+FFFD).
fn frame_source(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\r' if chars.peek() == Some(&'\n') => out.push(' '),
            '\r' => out.push('\n'),
            '\n' | '\t' => out.push(c),
            c if is_bidi_control(c) => out.push('\u{FFFD}'),
            c if c.is_control() => out.extend(std::iter::repeat_n('?', c.len_utf8())),
            c => out.push(c),
        }
    }
    out
}

fn span(s: crate::java::ir::Span, len_limit: usize) -> SourceSpan {
    let start = (s.start as usize).min(len_limit);
    let end = (s.end as usize).clamp(start, len_limit);
    SourceSpan::new(start.into(), end - start)
}

/// A related span (the sink call, a region) that holds the primary span on the same line would
/// put both labels at its end: it is narrowed to its part before the primary span (the method
/// name of `setIdempotencyKey(UUID.randomUUID().toString())`), else to its part after it.
fn beside(related: SourceSpan, primary: SourceSpan, text: &str) -> SourceSpan {
    let (rs, re) = (related.offset(), related.offset() + related.len());
    let (ps, pe) = (primary.offset(), primary.offset() + primary.len());
    let same_line = text.get(rs..re).is_some_and(|t| !t.contains('\n'));
    if !(same_line && rs <= ps && pe <= re && (rs, re) != (ps, pe)) {
        return related;
    }
    let trimmed = |a: usize, b: usize| {
        let part = &text[a..b];
        let lead = part.len() - part.trim_start_matches([' ', '(', ',']).len();
        let kept = part[lead..].trim_end_matches([' ', '(', ',', ')', ';']);
        SourceSpan::new((a + lead).into(), kept.len())
    };
    if ps > rs && text.is_char_boundary(ps) {
        let s = trimmed(rs, ps);
        if !s.is_empty() {
            return s;
        }
    }
    if pe < re && text.is_char_boundary(pe) {
        let s = trimmed(pe, re);
        if !s.is_empty() {
            return s;
        }
    }
    related
}

/// One line: findings per rule, files, suppressed and baselined findings, files with problems.
pub fn summary_line(s: &crate::Summary) -> String {
    let by_rule: Vec<String> = s.by_rule.iter().map(|(k, v)| format!("{k}: {v}")).collect();
    let mut out = format!(
        "{} finding{}{} in {} Java file{}",
        s.findings,
        if s.findings == 1 { "" } else { "s" },
        if by_rule.is_empty() {
            String::new()
        } else {
            format!(" ({})", by_rule.join(", "))
        },
        s.files_scanned,
        if s.files_scanned == 1 { "" } else { "s" },
    );
    if s.suppressed > 0 {
        out.push_str(&format!("; {} suppressed", s.suppressed));
    }
    if s.baselined > 0 {
        out.push_str(&format!("; {} in the baseline", s.baselined));
    }
    if s.files_with_syntax_errors > 0 {
        out.push_str(&format!(
            "; {} with syntax errors (analysed around them)",
            s.files_with_syntax_errors
        ));
    }
    if s.files_failed > 0 {
        out.push_str(&format!("; {} not analysed", s.files_failed));
    }
    if s.incomplete > 0 {
        out.push_str(&format!(
            "; analysis incomplete in {} place{}",
            s.incomplete,
            if s.incomplete == 1 { "" } else { "s" }
        ));
    }
    if s.files_gitignored > 0 {
        out.push_str(&format!(
            "; {} .java file{} left out by ignore files",
            s.files_gitignored,
            if s.files_gitignored == 1 { "" } else { "s" }
        ));
    }
    if let Some(c) = &s.config {
        out.push_str(&format!("; settings from {}", config_line(c)));
    }
    out
}

/// The configuration file and what it changed: `retrylint.toml (RL004 off, RL002 at note, 3
/// files excluded)`.
pub fn config_line(c: &crate::config::Applied) -> String {
    let mut parts: Vec<String> = c.rules_off.iter().map(|r| format!("{r} off")).collect();
    parts.extend(c.rule_levels.iter().map(|(r, l)| format!("{r} at {l}")));
    parts.extend(
        c.per_file_ignores
            .iter()
            .map(|(glob, ids)| format!("{} off in `{}`", ids.join("/"), one_line(glob))),
    );
    if c.per_file_ignored > 0 {
        parts.push(format!(
            "{} finding{} hidden by per-file-ignores",
            c.per_file_ignored,
            if c.per_file_ignored == 1 { "" } else { "s" }
        ));
    }
    if c.files_excluded > 0 {
        parts.push(format!(
            "{} file{} excluded",
            c.files_excluded,
            if c.files_excluded == 1 { "" } else { "s" }
        ));
    }
    if let Some(l) = &c.fail_level {
        parts.push(format!("fail-level {l}"));
    }
    if c.catalogue_rows {
        parts.push("extra catalogue rows".into());
    }
    parts.extend(
        c.rows_disabled
            .iter()
            .map(|id| format!("catalogue row {id} off")),
    );
    let path = if c.path.is_empty() {
        "the command line".to_string()
    } else {
        one_line(&c.path)
    };
    if parts.is_empty() {
        path
    } else {
        format!("{path} ({})", parts.join(", "))
    }
}

/// `width`: the terminal's columns to wrap messages at; `None` (a pipe, a file): no wrapping,
/// so that a line is never broken in a `path:line`.
pub fn render(
    report: &Report,
    color: bool,
    elapsed: Option<std::time::Duration>,
    width: Option<usize>,
) -> String {
    let theme = if color {
        GraphicalTheme::unicode()
    } else {
        GraphicalTheme::unicode_nocolor()
    };
    let handler = GraphicalReportHandler::new_themed(theme)
        .with_width(width.unwrap_or(usize::MAX / 4))
        .with_wrap_lines(width.is_some())
        .with_break_words(false);
    let mut out = String::new();
    for f in &report.findings {
        let text = frame_source(report.texts.get(&f.path).map(String::as_str).unwrap_or(""));
        let n = text.len();
        let primary = span(f.span, n);
        let mut labels = vec![LabeledSpan::new_primary_with_span(
            Some(f.rule.primary_label.into()),
            primary,
        )];
        let mut elsewhere = Vec::new();
        for s in &f.sinks {
            if s.path == f.path {
                labels.push(LabeledSpan::new_with_span(
                    Some(f.rule.related_label.into()),
                    beside(span(s.span, n), primary, &text),
                ));
            } else {
                elsewhere.push(format!("{} at {}:{}", f.rule.related_label, s.path, s.line));
            }
        }
        // As many regions as the message names; the others are counted.
        let named = crate::findings::message::REGIONS_NAMED;
        for r in f.regions.iter().take(named) {
            if r.path == f.path {
                labels.push(LabeledSpan::new_with_span(
                    Some("re-executed region".into()),
                    beside(span(r.span, n), primary, &text),
                ));
            } else {
                elsewhere.push(format!("region at {}:{}", r.path, r.line));
            }
        }
        if f.regions.len() > named {
            elsewhere.push(format!("{} more regions", f.regions.len() - named));
        }
        if let Some(v) = &f.via {
            elsewhere.push(format!("{} ({}:{})", v.message, v.path, v.line));
        }
        let mut help = elsewhere.join("; ");
        if !help.is_empty() {
            help.push_str(". ");
        }
        help.push_str(&format!(
            "{} (`retrylint explain {}`)",
            f.rule.fix, f.rule.id
        ));
        let diag = FindingDiag {
            f,
            src: NamedSource::new(one_line(&f.path), text),
            labels,
            help: Some(one_line(&help)),
        };
        let mut s = String::new();
        if handler.render_report(&mut s, &diag).is_err() {
            s = format!(
                "{}:{}:{}: {} {}\n",
                one_line(&f.path),
                f.line,
                f.column,
                f.rule.id,
                one_line(&f.message)
            );
        }
        out.push_str(&s);
        out.push('\n');
    }
    for e in &report.errors {
        let line = e.line.map(|l| format!(":{l}")).unwrap_or_default();
        out.push_str(&format!(
            "{}: {}{line}: {} ({})\n",
            e.severity,
            one_line(&e.path),
            one_line(&e.message),
            e.kind
        ));
    }
    let s = &report.summary;
    out.push_str(&summary_line(s));
    if let Some(t) = elapsed {
        out.push_str(&format!(" ({:.2}s)", t.as_secs_f64()));
    }
    out.push('\n');
    out.push_str(&not_java_line(s));
    out
}

/// `Not analysed (not Java): 3 .kt, 1 .groovy file(s)` and a newline, when the scan met JVM
/// sources it does not analyse; else nothing.
pub fn not_java_line(s: &crate::Summary) -> String {
    if s.not_analysed.is_empty() {
        return String::new();
    }
    let parts: Vec<String> = s
        .not_analysed
        .iter()
        .map(|(k, v)| format!("{v} .{k}"))
        .collect();
    format!("Not analysed (not Java): {} file(s)\n", parts.join(", "))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(text: &str, needle: &str) -> SourceSpan {
        let i = text.find(needle).unwrap();
        SourceSpan::new(i.into(), needle.len())
    }

    #[test]
    fn a_sink_holding_the_source_is_labelled_beside_it() {
        let text = "    opts.setIdempotencyKey(UUID.randomUUID().toString());\n";
        let sink = at(text, "setIdempotencyKey(UUID.randomUUID().toString())");
        let source = at(text, "UUID.randomUUID()");
        assert_eq!(beside(sink, source, text), at(text, "setIdempotencyKey"));
        // Disjoint spans, and spans over several lines, stay as they are.
        let other = at(text, "opts");
        assert_eq!(beside(other, source, text), other);
        let multi = "a(\n  b());\n";
        let whole = SourceSpan::new(0.into(), 9);
        assert_eq!(beside(whole, at(multi, "b()"), multi), whole);
    }
}
