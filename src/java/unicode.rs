//! Unicode escapes (`\uXXXX`), translated before parsing as javac does (JLS §3.3): to javac,
//! `// note \u000a key = UUID.randomUUID().toString();` is a comment followed by code, and
//! `UUID.rand\u006fmUUID()` is a call of `randomUUID`.
//!
//! Only a file that contains `\u` pays for it. Spans of the translated text are mapped back to
//! the file as written ([`Translated::raw_offset`]), so lines, columns and code frames are those
//! of the raw text.

use super::ir::{Block, Expr, FileFacts, LambdaBody, Span, Stmt};
use std::borrow::Cow;

/// One escape (or a surrogate pair of escapes): where its character is in the translated text
/// and where the escape is in the raw text.
#[derive(Debug, Clone, Copy)]
struct Escape {
    t_start: u32,
    t_end: u32,
    r_start: u32,
    r_end: u32,
}

/// A text with its unicode escapes translated.
#[derive(Debug)]
pub struct Translated {
    pub text: Vec<u8>,
    map: Vec<Escape>,
    /// Raw spans of malformed escapes (`\u` not followed by four hex digits): javac rejects them.
    pub malformed: Vec<Span>,
}

/// Does `src` contain `\u` at all? (The cheap test that keeps the common case free.)
pub fn may_have_escape(src: &[u8]) -> bool {
    memchr::memmem::find(src, b"\\u").is_some()
}

/// `src` with its unicode escapes translated (borrowed when it has none), for byte scans that
/// need no offsets.
pub fn translated(src: &[u8]) -> Cow<'_, [u8]> {
    match translate(src) {
        Some(t) => Cow::Owned(t.text),
        None => Cow::Borrowed(src),
    }
}

fn hex4(b: &[u8]) -> Option<u32> {
    let digits = b.get(..4)?;
    let mut v = 0u32;
    for d in digits {
        v = v * 16 + (*d as char).to_digit(16)?;
    }
    Some(v)
}

/// The escape starting at `at` (a `\` eligible to start one): its UTF-16 code unit and the
/// offset just past it; `Err(end)` when malformed (the `u`s not followed by four hex digits).
fn escape_at(src: &[u8], at: usize) -> Result<(u32, usize), usize> {
    let mut i = at + 1;
    while src.get(i) == Some(&b'u') {
        i += 1;
    }
    match hex4(&src[i..]) {
        Some(v) => Ok((v, i + 4)),
        None => Err(i),
    }
}

/// The text of `src` with its unicode escapes translated, or `None` when it has none (and no
/// malformed one). A `\` starts an escape only when an even number of `\` precede it.
pub fn translate(src: &[u8]) -> Option<Translated> {
    if !may_have_escape(src) {
        return None;
    }
    let mut out: Vec<u8> = Vec::with_capacity(src.len());
    let mut map: Vec<Escape> = Vec::new();
    let mut malformed = Vec::new();
    let mut i = 0usize;
    while i < src.len() {
        let Some(p) = memchr::memchr(b'\\', &src[i..]) else {
            out.extend_from_slice(&src[i..]);
            break;
        };
        out.extend_from_slice(&src[i..i + p]);
        i += p;
        // A run of backslashes: only its last one can start an escape, when the run is odd.
        let run = src[i..].iter().take_while(|b| **b == b'\\').count();
        out.extend_from_slice(&src[i..i + run - 1]);
        i += run - 1;
        if run % 2 == 0 || src.get(i + 1) != Some(&b'u') {
            out.push(b'\\');
            i += 1;
            continue;
        }
        match escape_at(src, i) {
            Err(end) => {
                malformed.push(Span {
                    start: i as u32,
                    end: end as u32,
                });
                out.extend_from_slice(&src[i..end]);
                i = end;
            }
            Ok((unit, mut end)) => {
                let mut c = None;
                if (0xD800..0xDC00).contains(&unit)
                    && src.get(end) == Some(&b'\\')
                    && src.get(end + 1) == Some(&b'u')
                    && let Ok((low, end2)) = escape_at(src, end)
                    && (0xDC00..0xE000).contains(&low)
                {
                    c = char::from_u32(0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00));
                    end = end2;
                }
                let c = c.or_else(|| char::from_u32(unit)).unwrap_or('\u{FFFD}');
                let t_start = out.len() as u32;
                let mut buf = [0u8; 4];
                out.extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
                map.push(Escape {
                    t_start,
                    t_end: out.len() as u32,
                    r_start: i as u32,
                    r_end: end as u32,
                });
                i = end;
            }
        }
    }
    if map.is_empty() && malformed.is_empty() {
        return None;
    }
    Some(Translated {
        text: out,
        map,
        malformed,
    })
}

impl Translated {
    /// The raw offset of translated offset `t`: inside a translated character, the start of its
    /// escape; after it, counted from the escape's end.
    pub fn raw_offset(&self, t: u32) -> u32 {
        let i = self.map.partition_point(|e| e.t_start <= t);
        if i == 0 {
            return t;
        }
        let e = self.map[i - 1];
        if t < e.t_end {
            e.r_start
        } else {
            e.r_end + (t - e.t_end)
        }
    }

    /// Facts lowered from the translated text, made to point at `raw` (the file as written):
    /// every span mapped back, lines counted in `raw`, malformed escapes as syntax errors.
    pub fn restore(&self, facts: &mut FileFacts, raw: &[u8]) {
        if !self.map.is_empty() {
            spans_of_facts(facts, &mut |s: &mut Span| {
                s.start = self.raw_offset(s.start);
                s.end = self.raw_offset(s.end);
            });
        }
        facts.line_starts = std::iter::once(0)
            .chain(memchr::memchr_iter(b'\n', raw).map(|i| i as u32 + 1))
            .collect();
        facts.syntax_errors.extend(self.malformed.iter().copied());
        facts.syntax_errors.sort();
    }
}

/// Calls `f` on every span of `facts`.
fn spans_of_facts(facts: &mut FileFacts, f: &mut dyn FnMut(&mut Span)) {
    for s in facts
        .syntax_errors
        .iter_mut()
        .chain(&mut facts.recovered)
        .chain(&mut facts.too_deep)
    {
        f(s);
    }
    for d in &mut facts.directives {
        f(&mut d.span);
    }
    for c in &mut facts.classes {
        f(&mut c.span);
        for a in &mut c.annotations {
            f(&mut a.span);
            for (_, e) in &mut a.args {
                expr_spans(e, f);
            }
        }
        for fl in &mut c.fields {
            f(&mut fl.span);
            if let Some(e) = &mut fl.init {
                expr_spans(e, f);
            }
        }
    }
    for m in &mut facts.methods {
        f(&mut m.span);
        f(&mut m.name_span);
        for p in &mut m.params {
            f(&mut p.span);
        }
        let params = m.params.iter_mut().flat_map(|p| p.annotations.iter_mut());
        for a in params.chain(m.annotations.iter_mut()) {
            f(&mut a.span);
            for (_, e) in &mut a.args {
                expr_spans(e, f);
            }
        }
        for s in &mut m.scopes {
            f(&mut s.span);
        }
        if let Some(b) = m.body.get_mut() {
            block_spans(b, f);
        }
    }
}

fn block_spans(b: &mut Block, f: &mut dyn FnMut(&mut Span)) {
    for s in b {
        stmt_spans(s, f);
    }
}

fn stmt_spans(s: &mut Stmt, f: &mut dyn FnMut(&mut Span)) {
    match s {
        Stmt::Local { init, span, .. } => {
            f(span);
            if let Some(e) = init {
                expr_spans(e, f);
            }
        }
        Stmt::Expr(e) | Stmt::Throw(e) => expr_spans(e, f),
        Stmt::If { cond, then, els } => {
            expr_spans(cond, f);
            block_spans(then, f);
            if let Some(b) = els {
                block_spans(b, f);
            }
        }
        Stmt::Loop {
            head,
            cond,
            update,
            body,
            each,
            span,
            ..
        } => {
            f(span);
            block_spans(head, f);
            if let Some(e) = cond {
                expr_spans(e, f);
            }
            for e in update {
                expr_spans(e, f);
            }
            block_spans(body, f);
            if let Some((_, _, e)) = each {
                expr_spans(e, f);
            }
        }
        Stmt::Try {
            resources,
            body,
            catches,
            finally,
        } => {
            block_spans(resources, f);
            block_spans(body, f);
            for (_, b) in catches {
                block_spans(b, f);
            }
            if let Some(b) = finally {
                block_spans(b, f);
            }
        }
        Stmt::Return(e, span) => {
            f(span);
            if let Some(e) = e {
                expr_spans(e, f);
            }
        }
        Stmt::Block(b) => block_spans(b, f),
        Stmt::Break | Stmt::Continue | Stmt::Jump => {}
    }
}

fn expr_spans(e: &mut Expr, f: &mut dyn FnMut(&mut Span)) {
    match e {
        Expr::Call(c) => {
            f(&mut c.span);
            f(&mut c.name_span);
            if let Some(r) = &mut c.recv {
                expr_spans(r, f);
            }
            for a in &mut c.args {
                expr_spans(a, f);
            }
        }
        Expr::New(n) => {
            f(&mut n.span);
            for a in &mut n.args {
                expr_spans(a, f);
            }
            for m in &mut n.anon {
                block_spans(&mut m.body, f);
            }
        }
        Expr::Name(_, s)
        | Expr::This(s)
        | Expr::Str(_, s)
        | Expr::Lit(_, s)
        | Expr::Null(s)
        | Expr::Opaque(s) => f(s),
        Expr::Field(x, _, s) | Expr::Not(x, s) | Expr::Cast(_, x, s) => {
            f(s);
            expr_spans(x, f);
        }
        Expr::Lambda(l) => {
            f(&mut l.span);
            match &mut l.body {
                LambdaBody::Expr(x) => expr_spans(x, f),
                LambdaBody::Block(b) => block_spans(b, f),
            }
        }
        Expr::MethodRef(m) => {
            f(&mut m.span);
            expr_spans(&mut m.recv, f);
        }
        Expr::Assign(a) => {
            f(&mut a.span);
            expr_spans(&mut a.target, f);
            expr_spans(&mut a.value, f);
        }
        Expr::Ternary(a, b, c, s) => {
            f(s);
            expr_spans(a, f);
            expr_spans(b, f);
            expr_spans(c, f);
        }
        Expr::Binary(b) => {
            f(&mut b.span);
            expr_spans(&mut b.left, f);
            expr_spans(&mut b.right, f);
        }
        Expr::Op(v, s) => {
            f(s);
            for x in v {
                expr_spans(x, f);
            }
        }
        Expr::Switch(x, arms, s) => {
            f(s);
            expr_spans(x, f);
            for b in arms {
                block_spans(b, f);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(src: &str) -> String {
        String::from_utf8(translated(src.as_bytes()).into_owned()).unwrap()
    }

    #[test]
    fn escapes_are_translated_as_javac_does() {
        assert_eq!(text("a\\u000ab"), "a\nb");
        assert_eq!(text("rand\\uuu006fm"), "random");
        assert_eq!(text("\\\\u0041"), "\\\\u0041");
        assert_eq!(text("\\\\\\u0041"), "\\\\A");
        assert_eq!(text("\\uD83D\\uDE00"), "\u{1F600}");
        assert_eq!(text("\\uD83D!"), "\u{FFFD}!");
        assert_eq!(text("no escape \\n here"), "no escape \\n here");
    }

    #[test]
    fn offsets_map_back_to_the_raw_text() {
        let t = translate(b"ab\\u0041cd").unwrap();
        assert_eq!(t.text, b"abAcd");
        assert_eq!(t.raw_offset(1), 1);
        assert_eq!(t.raw_offset(2), 2);
        assert_eq!(t.raw_offset(3), 8);
        assert_eq!(t.raw_offset(4), 9);
        assert!(t.malformed.is_empty());
    }

    #[test]
    fn a_malformed_escape_is_kept_and_reported() {
        let t = translate(b"x \\uZZ y \\u0041").unwrap();
        assert_eq!(t.text, b"x \\uZZ y A");
        assert_eq!(t.malformed, vec![Span { start: 2, end: 4 }]);
        assert!(translate(b"plain \\\\u text").is_none());
    }
}
