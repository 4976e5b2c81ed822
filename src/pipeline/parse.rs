//! Parsing a file (or taking its facts from the cache) and, for the prefilter, the tokens of
//! each method and field.

use crate::workspace::read::{file_error, read};
use crate::{FileError, Options, cache, scope};

/// A parsed file and, for the prefilter, the tokens of each method and field.
pub(super) struct Parsed {
    pub facts: crate::java::ir::FileFacts,
    pub methods: Vec<Part>,
    pub fields: Vec<(String, Part)>,
    /// Which of the tree words asked for (token hashes) the file names, when asked.
    pub tree: Vec<u32>,
}

/// A method or field as text: its tokens, the types it constructs, whether it has an effect
/// word (only looked for in files that have one).
pub(super) struct Part {
    pub tokens: Vec<u32>,
    pub news: Vec<u32>,
    pub text_hit: bool,
}

impl Part {
    /// The text of `span` without the `holes` inside it (the methods of a class, for the
    /// pseudo-method of its field initializers).
    fn of(
        bytes: &[u8],
        span: crate::java::ir::Span,
        holes: &[crate::java::ir::Span],
        file_effect: bool,
        needles: &scope::Needles,
    ) -> Part {
        let clamp = |x: u32| (x as usize).min(bytes.len());
        let (s, e) = (clamp(span.start), clamp(span.end).max(clamp(span.start)));
        let mut text: Vec<u8> = Vec::with_capacity(e - s);
        let mut at = s;
        for h in holes {
            let (hs, he) = (clamp(h.start).max(at), clamp(h.end).min(e));
            if hs < he {
                text.extend_from_slice(&bytes[at..hs]);
                text.push(b' ');
                at = he;
            }
        }
        text.extend_from_slice(&bytes[at..e]);
        let text = crate::java::unicode::translated(&text);
        let text = &text[..];
        let tokens = scope::tokens(text);
        Part {
            text_hit: file_effect && needles.text_hits(text, &tokens),
            news: scope::constructed(text),
            tokens,
        }
    }
}

/// `known`: the content hash of the file's bytes as scanned, when its stamp is unchanged since a
/// run that cached them: its facts are then taken from the cache without reading the file (the
/// method and field tokens and the tree words need its text, and read it).
#[allow(clippy::too_many_arguments)]
pub(super) fn parse_file(
    path: &std::path::Path,
    shown: &str,
    known: Option<&[u8; 32]>,
    opts: &Options,
    cache: &cache::Cache,
    parts: Option<(&scope::Needles, bool)>,
    tree_words: &scope::TreeWords,
) -> Result<Parsed, FileError> {
    if parts.is_none()
        && tree_words.is_empty()
        && let Some(facts) = known.and_then(|d| cache.fetch_known(shown, d))
    {
        return Ok(Parsed {
            facts,
            methods: Vec::new(),
            fields: Vec::new(),
            tree: Vec::new(),
        });
    }
    let bytes = read(path, shown, opts.max_file_bytes, &opts.reader)?;
    let tree = tree_words.in_file(shown, &bytes);
    let facts = match cache.fetch(shown, &bytes) {
        Some(f) => f,
        None => {
            let mut f = crate::java::parse(&bytes).ok_or_else(|| {
                file_error(
                    shown,
                    crate::ErrorKind::Parse,
                    "tree-sitter produced no syntax tree".into(),
                )
            })?;
            // Bodies are held encoded until read (most never are), and cached so.
            f.seal_bodies();
            if cache.enabled() {
                f.declared = Some(f.declarations_digest());
                cache.put(&bytes, &f);
            }
            // Facts read back from the cache hold no spare room already.
            super::compact::compact(&mut f);
            f
        }
    };
    let (methods, fields) = match parts {
        None => (Vec::new(), Vec::new()),
        Some((needles, effect)) => (
            facts
                .methods
                .iter()
                .map(|m| {
                    let mut holes: Vec<crate::java::ir::Span> = Vec::new();
                    if m.name == "<init>" {
                        holes = facts
                            .methods
                            .iter()
                            .filter(|x| x.name != "<init>")
                            .map(|x| x.span)
                            .filter(|x| x.start >= m.span.start && x.end <= m.span.end)
                            .collect();
                        holes.sort();
                    }
                    let mut p = Part::of(&bytes, m.span, &holes, effect, needles);
                    // A method with a key parameter is a sink to its callers.
                    p.text_hit |= effect && m.params.iter().any(|x| needles.param_hits(&x.name));
                    p
                })
                .collect(),
            facts
                .classes
                .iter()
                .flat_map(|c| &c.fields)
                .map(|f| {
                    (
                        f.name.to_string(),
                        Part::of(&bytes, f.span, &[], effect, needles),
                    )
                })
                .collect(),
        ),
    };
    Ok(Parsed {
        facts,
        methods,
        fields,
        tree,
    })
}
