//! Which files a check must parse to find everything a parse of every file would find.
//!
//! Every finding needs a key sink or a known side effect (RL001–RL003 a key sink, RL004 a side
//! effect, RL005 either), and a region that reaches it through calls. So:
//!
//! 1. Every file is read once and scanned as bytes (no parse): its identifier tokens, the type
//!    names it declares and extends, its package, and whether it contains an *effect word* —
//!    a name or text the catalogue's sinks and side effects need (`setIdempotencyKey`,
//!    `Idempotency-Key`, `com.stripe.model`, a parameter named `idempotencyKey`, …), or a
//!    retry annotation that RL006 reports when it is dead and the annotations that enable it
//!    (`Retryable`, `EnableRetry`).
//! 2. Backwards: the files with an effect word are parsed; a method whose text has an effect
//!    word, or names a method, class or field already known to lead to an effect, leads to an
//!    effect too; every file that mentions one of those names is parsed, until nothing new is
//!    found. Only these methods can hold a region that matters.
//! 3. Forwards: the project is indexed and analysed from those regions while the index records
//!    every name a lookup depended on ([`Deps`]); a file not yet parsed that declares, extends or
//!    mentions such a name (as the lookup needs) is parsed and the analysis runs again, until
//!    no lookup could have answered differently with every file parsed.
//!
//! A file that could not change a lookup or hold a region that reaches an effect is never
//! parsed. `--no-prefilter` parses every file; a test compares the two.

use aho_corasick::AhoCorasick;
use std::collections::{HashMap, HashSet};
use std::sync::Mutex;

/// A 32-bit FNV-1a hash of an identifier. A collision can only make a file look relevant.
pub fn token_hash(b: &[u8]) -> u32 {
    let mut h: u32 = 0x811c_9dc5;
    for x in b {
        h ^= *x as u32;
        h = h.wrapping_mul(0x0100_0193);
    }
    h
}

fn is_ident(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_' || b == b'$' || b >= 0x80
}

/// The maximal identifier-like runs of `text`, in order (comments and strings included: a
/// superset of the identifiers is what the closures need).
fn runs(text: &[u8]) -> impl Iterator<Item = &[u8]> {
    text.split(|b| !is_ident(*b)).filter(|r| !r.is_empty())
}

/// Sorted, deduplicated token hashes of `text`.
pub fn tokens(text: &[u8]) -> Vec<u32> {
    let mut v: Vec<u32> = runs(text).map(token_hash).collect();
    v.sort_unstable();
    v.dedup();
    v
}

/// Sorted hashes of the types `text` constructs: the name after `new`, or before `::new`.
pub fn constructed(text: &[u8]) -> Vec<u32> {
    let all: Vec<&[u8]> = runs(text).collect();
    let mut v = Vec::new();
    for (i, r) in all.iter().enumerate() {
        if *r == b"new" {
            if let Some(next) = all.get(i + 1) {
                v.push(token_hash(next));
            }
            if i > 0 {
                v.push(token_hash(all[i - 1]));
            }
        }
    }
    v.sort_unstable();
    v.dedup();
    v
}

/// The catalogue's tree words as token hashes, sorted (see `Catalogue::tree_words`): the words
/// that enable a feature count wherever a file names them (code, strings, comments: a word too
/// many keeps findings); the words that declare what the feature applies to count only in the
/// code of a file that is not a test source (a comment or a test fixture that names an event
/// source mapping does not deploy one, and counting it would hide findings).
#[derive(Clone, Debug, Default)]
pub struct TreeWords {
    pub enabling: Vec<u32>,
    pub declaring: Vec<u32>,
}

impl TreeWords {
    /// Which of the words the file `shown` names, from its sorted `tokens` as [`Scan::of`] reads
    /// them; `bytes` reads the file, when a declaring word needs its code without comments.
    pub fn found(
        &self,
        shown: &str,
        file_tokens: &[u32],
        bytes: &dyn Fn() -> Option<Vec<u8>>,
    ) -> Vec<u32> {
        let mut out = present(file_tokens, &self.enabling);
        let maybe = present(file_tokens, &self.declaring);
        if !maybe.is_empty()
            && !test_source(shown)
            && let Some(b) = bytes()
        {
            let code = crate::java::unicode::translated(&b);
            out.extend(present(&tokens(&without_comments(&code)), &maybe));
        }
        out.sort_unstable();
        out
    }

    /// Are there no words to look for?
    pub fn is_empty(&self) -> bool {
        self.enabling.is_empty() && self.declaring.is_empty()
    }

    /// [`TreeWords::found`] for a file whose text is `bytes`. Nothing asked, nothing read.
    pub fn in_file(&self, shown: &str, bytes: &[u8]) -> Vec<u32> {
        if self.is_empty() {
            return Vec::new();
        }
        let translated = crate::java::unicode::translated(bytes);
        let file_tokens = tokens(&translated[leading_comments(&translated)..]);
        self.found(shown, &file_tokens, &|| Some(bytes.to_vec()))
    }
}

/// Is the file at `shown` a test source (Maven's and Gradle's test source sets)?
pub fn test_source(shown: &str) -> bool {
    let p = format!("/{}", shown.replace('\\', "/"));
    [
        "/src/test/",
        "/src/it/",
        "/src/integrationTest/",
        "/src/testFixtures/",
    ]
    .iter()
    .any(|d| p.contains(d))
}

/// `text` with its comments blanked out, its string, text block and character literals kept.
fn without_comments(b: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        let end = if b[i..].starts_with(b"//") {
            out.push(b' ');
            i + memchr_nl(&b[i..])
        } else if b[i..].starts_with(b"/*") {
            out.push(b' ');
            find(&b[i + 2..], b"*/").map_or(b.len(), |p| i + p + 4)
        } else if b[i..].starts_with(b"\"\"\"") {
            let end = find(&b[i + 3..], b"\"\"\"").map_or(b.len(), |p| i + p + 6);
            out.extend_from_slice(&b[i..end]);
            end
        } else if b[i] == b'"' || b[i] == b'\'' {
            // To the closing quote, or the end of the line (an unclosed literal).
            let q = b[i];
            let mut j = i + 1;
            while j < b.len() && b[j] != q && b[j] != b'\n' {
                j += if b[j] == b'\\' { 2 } else { 1 };
            }
            let end = (j + 1).min(b.len());
            out.extend_from_slice(&b[i..end]);
            end
        } else {
            out.push(b[i]);
            i + 1
        };
        i = end;
    }
    out
}

/// Where the first token of `bytes` starts, after the comments before it (a license header):
/// they do not tell the package. (Only those: a `/*` in a later string must not hide the rest
/// of the file.)
fn leading_comments(bytes: &[u8]) -> usize {
    let mut i = 0;
    while i < bytes.len() && !is_ident(bytes[i]) {
        if bytes[i..].starts_with(b"//") {
            i += memchr_nl(&bytes[i..]);
        } else if bytes[i..].starts_with(b"/*") {
            i += find(&bytes[i + 2..], b"*/").map_or(bytes.len() - i, |p| p + 4);
        } else {
            i += 1;
        }
    }
    i
}

/// The `words` (token hashes, sorted) among a file's sorted `tokens`.
pub fn present(tokens: &[u32], words: &[u32]) -> Vec<u32> {
    words.iter().copied().filter(|w| has(tokens, *w)).collect()
}

fn has(sorted: &[u32], t: u32) -> bool {
    sorted.binary_search(&t).is_ok()
}

/// What the byte scan of one file found.
#[derive(Debug, Clone, Default, serde::Serialize, serde::Deserialize)]
pub struct Scan {
    /// Every identifier-like token.
    pub tokens: Vec<u32>,
    /// Names after `class`/`interface`/`enum`/`record`: the types the file may declare.
    pub declared: Vec<u32>,
    /// Names between `extends`/`implements` and the next `{`: the types it may extend.
    pub supers: Vec<u32>,
    /// The `package` declaration; `None` when the scan cannot tell (matches any package).
    pub package: Option<String>,
    /// Has an effect word.
    pub effect: bool,
    /// Has an effect word other than a side-effect class's simple name.
    pub words: bool,
    /// Names an annotation reported whatever its code reaches (or one that enables its
    /// framework): parsed, but not an effect.
    #[serde(default)]
    pub reported: bool,
    /// Simple names of side-effect classes it names that no import of another class and no
    /// type it declares shadows, each with whether the file also names the class's package.
    pub live: Vec<(u32, bool)>,
}

impl Scan {
    /// Drop the side-effect class names that a type of the file's own package shadows
    /// (`declared` holds what the files of the package declare), unless the file names the
    /// class's package.
    pub fn shadow(&mut self, declared: &HashSet<u32>) {
        self.live
            .retain(|(h, named)| *named || !declared.contains(h));
        self.effect = self.words || !self.live.is_empty();
    }

    /// Do `tokens` name one of `row`'s classes that is live in this file?
    pub fn names_live_class(&self, row: &EffectRow, tokens: &[u32]) -> bool {
        self.live
            .iter()
            .any(|(h, _)| row.classes.contains_key(h) && has(tokens, *h))
    }
}

impl Scan {
    pub fn of(bytes: &[u8], needles: &Needles) -> Scan {
        // Scanned as javac reads it: `rand\u006fmUUID` is `randomUUID`.
        let translated = crate::java::unicode::translated(bytes);
        let bytes = &translated[..];
        let mut tokens = Vec::new();
        let mut declared = Vec::new();
        let mut supers = Vec::new();
        let mut after_decl = false;
        let mut in_supers = false;
        let mut package = None;
        let mut imports: Vec<String> = Vec::new();
        let mut first = true;
        let mut i = leading_comments(bytes);
        while i < bytes.len() {
            let b = bytes[i];
            if !is_ident(b) {
                if b == b'{' || b == b';' {
                    in_supers = false;
                }
                i += 1;
                continue;
            }
            let start = i;
            while i < bytes.len() && is_ident(bytes[i]) {
                i += 1;
            }
            let run = &bytes[start..i];
            let h = token_hash(run);
            tokens.push(h);
            if after_decl {
                declared.push(h);
                after_decl = false;
            }
            if in_supers {
                supers.push(h);
            }
            match run {
                b"import" if line_start(bytes, start) => {
                    imports.extend(package_name(&bytes[i..]).filter(|p| !p.starts_with("static")))
                }
                b"class" | b"interface" | b"enum" | b"record" => after_decl = true,
                b"extends" | b"implements" | b"permits" => in_supers = true,
                _ => {}
            }
            if first {
                first = false;
                if run == b"package" {
                    package = package_name(&bytes[i..]);
                } else if !bytes[..start].ends_with(b"@") {
                    // No package declaration before the first other token: the default package.
                    // (An annotation may come before `package` in `package-info.java`.)
                    package = Some(String::new());
                }
            }
        }
        for v in [&mut tokens, &mut declared, &mut supers] {
            v.sort_unstable();
            v.dedup();
        }
        let live = needles.live_classes(bytes, &tokens, &imports, &declared);
        let words = needles.file_hits(bytes, &tokens);
        Scan {
            reported: tokens.iter().any(|t| needles.reported.contains(t)),
            effect: !live.is_empty() || words,
            words,
            live,
            tokens,
            declared,
            supers,
            package,
        }
    }
}

/// Hashes of the identifiers of `bytes` written in code (outside comments, string, text block
/// and character literals) and not after a `.`.
fn unqualified_code_names(bytes: &[u8]) -> Vec<u32> {
    let mut out = Vec::new();
    lex(
        bytes,
        &mut |ident, after_dot, _| {
            if !after_dot {
                out.push(token_hash(ident));
            }
        },
        &mut |_| {},
    );
    out.sort_unstable();
    out.dedup();
    out
}

/// The dotted names written in the code of `bytes` (`com.adyen.service.checkout.PaymentsApi`,
/// `com.stripe.model.Charge.create`, `this.client.post`): runs of identifiers joined by single
/// dots, outside comments and literals; a call or index between them (`a().b`) ends a run.
fn dotted_code_names(bytes: &[u8]) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut prev_end = 0;
    lex(
        bytes,
        &mut |ident, after_dot, start| {
            let joined = after_dot
                && !cur.is_empty()
                && bytes
                    .get(prev_end..start)
                    .is_some_and(|gap| gap.iter().all(|b| *b == b'.' || b.is_ascii_whitespace()))
                && bytes[prev_end..start]
                    .iter()
                    .filter(|b| **b == b'.')
                    .count()
                    == 1;
            if joined {
                cur.push('.');
            } else if cur.contains('.') {
                out.push(std::mem::take(&mut cur));
            } else {
                cur.clear();
            }
            cur.push_str(&String::from_utf8_lossy(ident));
            prev_end = start + ident.len();
        },
        &mut |_| {},
    );
    if cur.contains('.') {
        out.push(cur);
    }
    out.sort_unstable();
    out.dedup();
    out
}

/// Does one of `dotted` (see [`dotted_code_names`]) name class `fqn`, or a member of it?
fn names_qualified(dotted: &[String], fqn: &str) -> bool {
    dotted.iter().any(|d| {
        d.strip_prefix(fqn)
            .is_some_and(|rest| rest.is_empty() || rest.starts_with('.'))
    })
}

/// A small Java lexer: calls `ident` with each identifier in code (whether a `.` came before
/// it, type annotations aside, and where it starts) and `string` with the contents of each
/// string or text block; comments and character literals are skipped.
fn lex(bytes: &[u8], ident: &mut dyn FnMut(&[u8], bool, usize), string: &mut dyn FnMut(&[u8])) {
    let mut i = 0;
    let mut after_dot = false;
    while i < bytes.len() {
        let b = bytes[i];
        let next = bytes.get(i + 1).copied();
        if b == b'/' && next == Some(b'/') {
            i += memchr_nl(&bytes[i..]);
        } else if b == b'/' && next == Some(b'*') {
            i += find(&bytes[i + 2..], b"*/").map_or(bytes.len() - i, |p| p + 4);
        } else if bytes[i..].starts_with(b"\"\"\"") {
            i += 3;
            let start = i;
            while i < bytes.len() && !bytes[i..].starts_with(b"\"\"\"") {
                i += if bytes[i] == b'\\' { 2 } else { 1 };
            }
            string(&bytes[start..i.min(bytes.len())]);
            i += 3;
        } else if b == b'"' || b == b'\'' {
            i += 1;
            let start = i;
            while i < bytes.len() && bytes[i] != b && bytes[i] != b'\n' {
                i += if bytes[i] == b'\\' { 2 } else { 1 };
            }
            if b == b'"' {
                string(&bytes[start..i.min(bytes.len())]);
            }
            i += 1;
        } else if b == b'@' {
            // A type annotation (`Flow.@Nullable Subscription`) keeps what came before it.
            i += 1;
            while i < bytes.len()
                && (is_ident(bytes[i]) || bytes[i] == b'.' || bytes[i].is_ascii_whitespace())
            {
                i += 1;
            }
        } else if is_ident(b) {
            let start = i;
            while i < bytes.len() && is_ident(bytes[i]) {
                i += 1;
            }
            ident(&bytes[start..i], after_dot, start);
            after_dot = false;
        } else {
            if !b.is_ascii_whitespace() {
                after_dot = b == b'.';
            }
            i += 1;
        }
    }
}

/// The contents of the string and text-block literals of `bytes`, separated by NULs.
pub fn string_literals(bytes: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    lex(bytes, &mut |_, _, _| {}, &mut |s| {
        out.extend_from_slice(s);
        out.push(0);
    });
    out
}

/// Is only whitespace before `at` on its line?
fn line_start(bytes: &[u8], at: usize) -> bool {
    bytes[..at]
        .iter()
        .rev()
        .take_while(|b| **b != b'\n')
        .all(|b| b.is_ascii_whitespace())
}

fn memchr_nl(b: &[u8]) -> usize {
    b.iter().position(|x| *x == b'\n').unwrap_or(b.len())
}

fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).position(|w| w == needle)
}

/// `a.b.c` up to the `;` after `package`, if it is a plain dotted name.
fn package_name(rest: &[u8]) -> Option<String> {
    let end = rest.iter().take(1024).position(|b| *b == b';')?;
    let name: String = std::str::from_utf8(&rest[..end])
        .ok()?
        .chars()
        .filter(|c| !c.is_whitespace())
        .collect();
    let ok = !name.is_empty()
        && name
            .split('.')
            .all(|s| !s.is_empty() && s.bytes().all(is_ident));
    ok.then_some(name)
}

/// The words of key sinks and known side effects a file must mention to hold one, as the
/// catalogue gives them.
pub struct EffectWords<'a> {
    /// Key-sink method names.
    pub sink_methods: Vec<&'a String>,
    /// Classes whose constructors take a key (qualified names).
    pub key_classes: Vec<&'a String>,
    /// Idempotency header names.
    pub header_names: &'a [String],
    /// Other words of string literals: the paths of money-moving endpoints (up to their first
    /// `*` segment).
    pub literal_words: Vec<String>,
    /// Normalized fragments and whole names of key parameters.
    pub param_contains: &'a [String],
    pub param_equals: &'a [String],
    pub side_effects: Vec<SideEffectWords<'a>>,
    /// Annotations reported even when nothing they run reaches an effect (a retry that can
    /// never fire), and the annotations that enable their frameworks (qualified names).
    pub reported_annotations: Vec<&'a String>,
}

/// One known side effect: its classes (qualified names or `*` patterns) and method names.
pub struct SideEffectWords<'a> {
    /// The row's classes, and the library classes whose catalogued accessors lead to one
    /// (`GoCardlessClient` for `client.payments().create()…execute()`).
    pub classes: Vec<&'a String>,
    pub methods: Vec<&'a String>,
}

/// The effect words, ready for scanning.
pub struct Needles {
    /// Sink method names and key-constructor classes, as identifiers.
    names: HashSet<u32>,
    /// Over string literals lowercased with `-` and `_` removed: idempotency header names.
    headers: Option<AhoCorasick>,
    /// Over text: the packages of side-effect classes (imports, qualified names).
    packages: Option<AhoCorasick>,
    /// Over parameter names, normalized as headers: the words of key parameters.
    params: Option<AhoCorasick>,
    /// The side-effect rows.
    pub rows: Vec<EffectRow>,
    /// Simple names of annotations reported whatever their code reaches, and of the
    /// annotations that enable their frameworks: a file naming one is parsed, but its methods
    /// do not lead the backward search (they are not effects).
    pub reported: HashSet<u32>,
    /// Identifies these effect words, for caching scans made with them.
    pub fingerprint: String,
}

/// One side-effect row as tokens.
pub struct EffectRow {
    /// Simple names of its classes (an unresolved type matches on its simple name), with the
    /// fully qualified names they stand for.
    pub classes: HashMap<u32, Vec<String>>,
    /// Its static, instance and service method names.
    pub methods: HashSet<u32>,
    /// A class is given as a pattern: any receiver may be one.
    pub any_class: bool,
}

fn normalize(text: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(text.len());
    for b in text {
        if *b != b'-' && *b != b'_' {
            out.push(b.to_ascii_lowercase());
        }
    }
    out
}

/// The package part of a class name (its leading lowercase segments) and the simple names.
fn split_class(fqn: &str) -> (String, Vec<&str>) {
    let segs: Vec<&str> = fqn.split('.').collect();
    let first_type = segs
        .iter()
        .position(|s| s.chars().next().is_some_and(|c| c.is_uppercase()))
        .unwrap_or(segs.len().saturating_sub(1));
    (segs[..first_type].join("."), segs[first_type..].to_vec())
}

impl Needles {
    pub fn new(w: &EffectWords) -> Needles {
        let mut names: HashSet<u32> = w
            .sink_methods
            .iter()
            .map(|m| token_hash(m.as_bytes()))
            .collect();
        // A retry annotation that may be dead is reported (RL006) whatever its body reaches,
        // and whether it is dead depends on the classes that enable its framework.
        let reported: HashSet<u32> = w
            .reported_annotations
            .iter()
            .map(|a| token_hash(split_class(a).1.last().unwrap_or(&"").as_bytes()))
            .collect();
        // `new CreatePaymentRequest.Builder(…)` names the outer class, or imports its package.
        let mut packages: Vec<String> = Vec::new();
        for class in &w.key_classes {
            let (pkg, simple) = split_class(class);
            names.extend(simple.first().map(|s| token_hash(s.as_bytes())));
            packages.extend((!pkg.is_empty()).then_some(pkg));
        }
        let normalized = |words: &mut dyn Iterator<Item = &String>| -> Option<AhoCorasick> {
            let mut v: Vec<Vec<u8>> = words
                .map(|w| normalize(w.as_bytes()))
                .filter(|w| !w.is_empty())
                .collect();
            v.sort();
            v.dedup();
            AhoCorasick::new(&v).ok()
        };
        let headers = normalized(&mut w.header_names.iter().chain(&w.literal_words));
        let params = normalized(&mut w.param_contains.iter().chain(w.param_equals));
        let mut rows = Vec::new();
        for se in &w.side_effects {
            let mut row = EffectRow {
                classes: HashMap::new(),
                methods: se
                    .methods
                    .iter()
                    .map(|m| token_hash(m.as_bytes()))
                    .collect(),
                any_class: false,
            };
            for class in se.classes.iter().copied() {
                if class.contains('*') {
                    row.any_class = true;
                    continue;
                }
                let (pkg, simple) = split_class(class);
                if !pkg.is_empty() {
                    packages.push(pkg);
                }
                for s in simple {
                    row.classes
                        .entry(token_hash(s.as_bytes()))
                        .or_default()
                        .push(class.clone());
                }
            }
            rows.push(row);
        }
        packages.sort();
        packages.dedup();
        let mut words: Vec<String> = vec![format!("{:?}", w.header_names)];
        words.push(format!("{:?}", w.literal_words));
        words.push(format!("{:?}", w.param_contains));
        words.push(format!("{:?}", w.param_equals));
        words.push(format!("{packages:?}"));
        for set in [&names, &reported] {
            let mut sorted: Vec<u32> = set.iter().copied().collect();
            sorted.sort_unstable();
            words.push(format!("{sorted:?}"));
        }
        for r in &rows {
            let mut c: Vec<(&u32, &Vec<String>)> = r.classes.iter().collect();
            c.sort();
            let mut m: Vec<&u32> = r.methods.iter().collect();
            m.sort();
            words.push(format!("{c:?}{m:?}{}", r.any_class));
        }
        use sha2::Digest;
        let digest = sha2::Sha256::digest(words.join("\n").as_bytes());
        let fingerprint = digest.iter().take(8).map(|b| format!("{b:02x}")).collect();
        Needles {
            fingerprint,
            reported,
            names,
            headers,
            packages: AhoCorasick::new(&packages).ok(),
            params,
            rows,
        }
    }

    /// Does this text (a file, a method, a field) call a sink method or construct a key
    /// builder, name an idempotency header in a string, or name a side-effect package?
    pub fn text_hits(&self, text: &[u8], tokens: &[u32]) -> bool {
        self.text_hits_normalized(text, tokens, &normalize(text))
    }

    /// `text_hits` with `text` already normalized; strings are only lexed when the whole text
    /// has a header name.
    fn text_hits_normalized(&self, text: &[u8], tokens: &[u32], normalized: &[u8]) -> bool {
        let Some(headers) = &self.headers else {
            return true;
        };
        tokens.iter().any(|t| self.names.contains(t))
            || self.packages.as_ref().is_none_or(|ac| ac.is_match(text))
            || (headers.is_match(normalized)
                && headers.is_match(&normalize(&string_literals(text))))
    }

    /// Is this the name of a key parameter?
    pub fn param_hits(&self, name: &str) -> bool {
        match &self.params {
            Some(ac) => ac.is_match(&normalize(name.as_bytes())),
            None => true,
        }
    }

    /// The side-effect class names in `tokens` that the file's single-type imports do not
    /// make another class (`import org.reactivestreams.Subscription;` is not Stripe's). A
    /// class written by its fully qualified name in code
    /// (`private final com.adyen.service.checkout.PaymentsApi payments;`) counts as imported.
    fn live_classes(
        &self,
        bytes: &[u8],
        tokens: &[u32],
        imports: &[String],
        declared: &[u32],
    ) -> Vec<(u32, bool)> {
        let mut live: Vec<(u32, bool)> = Vec::new();
        let mut code: Option<Vec<u32>> = None;
        let mut dotted: Option<Vec<String>> = None;
        for row in &self.rows {
            for (h, fqns) in &row.classes {
                if !has(tokens, *h) {
                    continue;
                }
                // As a simple name in code (not in a comment or string, not `Flow.Subscription`).
                let code = code.get_or_insert_with(|| unqualified_code_names(bytes));
                if !has(code, *h) {
                    // Or by its fully qualified name, which no import can make another class.
                    let dotted = dotted.get_or_insert_with(|| dotted_code_names(bytes));
                    if fqns.iter().any(|f| names_qualified(dotted, f)) {
                        live.push((*h, true));
                    }
                    continue;
                }
                let named = fqns.iter().any(|f| {
                    let (pkg, _) = split_class(f);
                    !pkg.is_empty() && find(bytes, pkg.as_bytes()).is_some()
                });
                // The class's simple name itself (not only its hash) must be what is imported.
                let simple: Vec<&str> = fqns
                    .iter()
                    .flat_map(|f| f.split('.'))
                    .filter(|s| token_hash(s.as_bytes()) == *h)
                    .collect();
                let shadowed = has(declared, *h)
                    || imports.iter().any(|imp| {
                        let last = imp.rsplit('.').next().unwrap_or(imp);
                        simple.contains(&last)
                            && !fqns
                                .iter()
                                .any(|f| f == imp || f.starts_with(&format!("{imp}.")))
                    });
                if named || !shadowed {
                    live.push((*h, named));
                }
            }
        }
        live.sort_unstable();
        live.dedup();
        live
    }

    fn file_hits(&self, bytes: &[u8], tokens: &[u32]) -> bool {
        self.rows
            .iter()
            .any(|r| r.any_class && tokens.iter().any(|t| r.methods.contains(t)))
            || {
                let normalized = normalize(bytes);
                self.params
                    .as_ref()
                    .is_none_or(|ac| ac.is_match(&normalized))
                    || self.text_hits_normalized(bytes, tokens, &normalized)
            }
    }
}

/// The lookups an index answered while recording (a forward round of the prefilter): each is
/// a name whose declarations, in a file not parsed yet, could have changed the answer.
#[derive(Debug, Default)]
pub struct Deps {
    /// Classes looked up by fully qualified name.
    types: Mutex<HashSet<String>>,
    /// Simple names of types whose subtypes were asked for.
    supers: Mutex<HashSet<u32>>,
    /// Names of methods and constants looked up across the project.
    names: Mutex<HashSet<u32>>,
}

impl Deps {
    pub fn note_type(&self, fqn: &str) {
        if let Ok(mut s) = self.types.lock()
            && !s.contains(fqn)
        {
            s.insert(fqn.to_string());
        }
    }

    pub fn note_super(&self, simple: &str) {
        if let Ok(mut s) = self.supers.lock() {
            s.insert(token_hash(simple.as_bytes()));
        }
    }

    pub fn note_name(&self, name: &str) {
        if let Ok(mut s) = self.names.lock() {
            s.insert(token_hash(name.as_bytes()));
        }
    }

    /// The classes looked up.
    pub fn types(self) -> Vec<String> {
        let mut v: Vec<String> = self
            .types
            .into_inner()
            .map(|s| s.into_iter().collect())
            .unwrap_or_default();
        v.sort();
        v
    }

    /// What was recorded, grouped for matching against file scans.
    pub fn index(&self) -> DepIndex {
        let mut types: HashMap<u32, Vec<String>> = HashMap::new();
        for fqn in self.types.lock().map(|s| s.clone()).unwrap_or_default() {
            let simple = fqn.rsplit('.').next().unwrap_or(&fqn);
            types
                .entry(token_hash(simple.as_bytes()))
                .or_default()
                .push(fqn);
        }
        DepIndex {
            types,
            supers: self.supers.lock().map(|s| s.clone()).unwrap_or_default(),
            names: self.names.lock().map(|s| s.clone()).unwrap_or_default(),
        }
    }
}

/// Recorded lookups, grouped for matching against file scans.
pub struct DepIndex {
    /// simple-name hash → the fully qualified names looked up with it
    types: HashMap<u32, Vec<String>>,
    supers: HashSet<u32>,
    names: HashSet<u32>,
}

impl DepIndex {
    /// Was a subtype looked up that this file may declare (it extends a type asked about)?
    pub fn wants_subtypes(&self, scan: &Scan) -> bool {
        scan.supers.iter().any(|t| self.supers.contains(t))
    }

    /// Could parsing this file change one of the lookups?
    pub fn matches(&self, scan: &Scan) -> bool {
        scan.tokens.iter().any(|t| self.names.contains(t))
            || scan.supers.iter().any(|t| self.supers.contains(t))
            || scan.declared.iter().any(|t| {
                self.types
                    .get(t)
                    .is_some_and(|fqns| fqns.iter().any(|f| in_package(f, &scan.package)))
            })
    }
}

/// Can a file of `package` declare the class `fqn`? (Unknown and default packages can.)
fn in_package(fqn: &str, package: &Option<String>) -> bool {
    match package.as_deref() {
        None | Some("") => true,
        Some(p) => fqn.len() > p.len() && fqn.starts_with(p) && fqn.as_bytes()[p.len()] == b'.',
    }
}

/// Do these sorted tokens (of a file, a method, a field) mention any of `names`?
pub fn mentions(tokens: &[u32], names: &HashSet<u32>) -> bool {
    if tokens.len() < names.len() {
        tokens.iter().any(|t| names.contains(t))
    } else {
        names.iter().any(|n| has(tokens, *n))
    }
}

#[cfg(test)]
#[path = "scan_tests.rs"]
mod tests;
