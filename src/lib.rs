//! retrylint: finds idempotency keys that change between retries in Java code.
//!
//! [`check`] runs the whole pipeline: discover files, parse and lower them in parallel, index
//! the project, compute method summaries, find regions, and report every per-attempt value
//! that reaches an idempotency key sink inside the same region execution.

mod adoption;
pub mod baseline;
pub mod cache;
pub mod catalogue;
pub mod config;
pub mod discovery;
pub mod findings;
pub mod flow;
pub mod index;
pub mod progress;
pub mod regions;
pub mod report;
pub mod rules;
pub mod scope;
pub mod source;
pub mod suppress;
pub mod syntax;

use rayon::prelude::*;
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;

pub use adoption::enabled as rule_enabled;
pub use findings::{Finding, Related};
pub use suppress::Suppressed;

/// With `RETRYLINT_TIMINGS` set, each phase prints its wall time to standard error.
pub fn phase<T>(name: &str, f: impl FnOnce() -> T) -> T {
    if std::env::var_os("RETRYLINT_TIMINGS").is_none() {
        return f();
    }
    let t0 = std::time::Instant::now();
    let out = f();
    eprintln!("retrylint: {name}: {:.3}s", t0.elapsed().as_secs_f64());
    out
}

/// The default [`Options::prefilter_max_share`].
pub const PREFILTER_MAX_SHARE: f64 = 0.5;

/// Files larger than this (by default) are reported and skipped; `--max-file-size` changes it.
pub const MAX_FILE_BYTES: u64 = 20 * 1024 * 1024;

#[derive(Debug, Clone)]
pub struct Options {
    pub paths: Vec<PathBuf>,
    /// Rule ids to report; empty means all.
    pub select: Vec<String>,
    pub ignore: Vec<String>,
    /// Extra catalogue files (`--catalogue`), added to the built-in `rules/`.
    pub catalogues: Vec<PathBuf>,
    /// Larger files are reported and not analysed.
    pub max_file_bytes: u64,
    /// Where per-file facts are cached (`None`: no cache).
    pub cache_dir: Option<PathBuf>,
    /// Report only on these files, while `paths` still give the project its facts (a
    /// `@Retryable` caller or a key helper in a file that is not reported on).
    pub report_scope: Option<Vec<PathBuf>>,
    /// Parse only the files that can matter ([`scope`]); `false` parses every file.
    pub prefilter: bool,
    /// When more than this share of the files may matter, the prefilter stops and every file is
    /// parsed (it would cost more than it saves). Tests set 1.0 to follow it to the end.
    pub prefilter_max_share: f64,
    /// `retrylint.toml`: file globs, rule settings, `require-reason`, extra catalogue rows.
    pub config: Option<Arc<config::Config>>,
    /// Report suppressions that suppress nothing (RL100).
    pub report_unused_ignores: bool,
    /// Hide the findings recorded in this baseline file.
    pub baseline: Option<PathBuf>,
    /// Counts files as they are analysed, for a progress bar.
    pub progress: Option<Arc<progress::Counter>>,
    /// How source files are read (tests make a file unreadable through it).
    pub reader: source::Reader,
}

impl Options {
    /// Scan `paths` with every rule, the built-in catalogue, the default size limit, no cache
    /// and no report scope.
    pub fn new(paths: Vec<PathBuf>) -> Options {
        Options {
            paths,
            select: Vec::new(),
            ignore: Vec::new(),
            catalogues: Vec::new(),
            max_file_bytes: MAX_FILE_BYTES,
            cache_dir: None,
            report_scope: None,
            prefilter: true,
            prefilter_max_share: PREFILTER_MAX_SHARE,
            config: None,
            report_unused_ignores: false,
            baseline: None,
            progress: None,
            reader: source::Reader::default(),
        }
    }
}

/// A problem with one file; the rest of the run goes on.
#[derive(Debug, Clone, serde::Serialize)]
pub struct FileError {
    pub path: String,
    /// `read`, `parse`, `syntax`, `skipped`
    pub kind: &'static str,
    /// `error` when the file could not be analysed at all; `warning` for a partial parse.
    pub severity: &'static str,
    pub message: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line: Option<u32>,
}

#[derive(Debug, Default, Clone, serde::Serialize)]
pub struct Summary {
    pub files_scanned: usize,
    pub files_with_syntax_errors: usize,
    pub files_failed: usize,
    pub findings: usize,
    pub by_rule: BTreeMap<String, usize>,
    /// Other JVM sources found and not analysed, by extension.
    pub not_analysed: BTreeMap<String, usize>,
    /// Findings hidden by an inline suppression (not counted in `findings`).
    pub suppressed: usize,
    /// Findings hidden because the baseline records them (not counted in `findings`).
    pub baselined: usize,
    /// Baseline entries for the analysed files that no finding matches any more.
    pub baseline_stale: usize,
    /// The configuration file the run used, as shown in reports.
    pub config: Option<String>,
}

#[derive(Debug, Default)]
pub struct Report {
    pub findings: Vec<Finding>,
    pub errors: Vec<FileError>,
    pub summary: Summary,
    /// Text of the files that have findings, for code frames and line hashes.
    pub texts: BTreeMap<String, String>,
    /// Findings an inline suppression hides, with its reason (SARIF and JSON show them).
    pub suppressed: Vec<Suppressed>,
    /// Findings the baseline (`--baseline`) hides.
    pub baselined: Vec<Finding>,
}

/// Errors of the run itself (exit status 2).
#[derive(Debug)]
pub enum RunError {
    MissingPath(PathBuf),
    BadRule(String),
    Catalogue(String),
    Baseline(String),
}

impl std::fmt::Display for RunError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RunError::MissingPath(p) => write!(f, "path `{}` does not exist", p.display()),
            RunError::BadRule(r) => write!(f, "unknown rule `{r}` (see `retrylint rules`)"),
            RunError::Catalogue(e) => write!(f, "bad catalogue file {e}"),
            RunError::Baseline(e) => f.write_str(e),
        }
    }
}

impl std::error::Error for RunError {}

/// A file read and scanned as bytes.
struct Input {
    path: PathBuf,
    shown: String,
    scan: scope::Scan,
}

fn file_error(shown: &str, kind: &'static str, message: String) -> FileError {
    FileError {
        path: shown.to_string(),
        kind,
        severity: "error",
        message,
        line: None,
    }
}

/// Read a file (within the size limit, not binary).
fn read(
    path: &std::path::Path,
    shown: &str,
    max_bytes: u64,
    reader: &source::Reader,
) -> Result<Vec<u8>, FileError> {
    match std::fs::metadata(path) {
        Ok(m) if !m.is_file() => {
            return Err(file_error(shown, "read", "not a regular file".into()));
        }
        Ok(m) if m.len() > max_bytes => {
            return Err(file_error(
                shown,
                "skipped",
                format!(
                    "{} bytes is over the {max_bytes} byte limit (--max-file-size); not analysed",
                    m.len()
                ),
            ));
        }
        Err(e) => return Err(file_error(shown, "read", format!("cannot read: {e}"))),
        _ => {}
    }
    let bytes = reader
        .read(path)
        .map_err(|e| file_error(shown, "read", format!("cannot read: {e}")))?;
    if bytes.iter().take(8192).any(|b| *b == 0) {
        return Err(file_error(
            shown,
            "parse",
            "binary content (NUL bytes); not analysed".into(),
        ));
    }
    Ok(bytes)
}

/// A parsed file and, for the prefilter, the tokens of each method and field.
struct Parsed {
    facts: syntax::ir::FileFacts,
    methods: Vec<Part>,
    fields: Vec<(String, Part)>,
}

/// A method or field as text: its tokens, the types it constructs, whether it has an effect
/// word (only looked for in files that have one).
struct Part {
    tokens: Vec<u32>,
    news: Vec<u32>,
    text_hit: bool,
}

impl Part {
    /// The text of `span` without the `holes` inside it (the methods of a class, for the
    /// pseudo-method of its field initializers).
    fn of(
        bytes: &[u8],
        span: syntax::ir::Span,
        holes: &[syntax::ir::Span],
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
        let text = &text[..];
        let tokens = scope::tokens(text);
        Part {
            text_hit: file_effect && needles.text_hits(text, &tokens),
            news: scope::constructed(text),
            tokens,
        }
    }
}

fn parse_file(
    path: &std::path::Path,
    shown: &str,
    opts: &Options,
    cache: &cache::Cache,
    parts: Option<(&scope::Needles, bool)>,
) -> Result<Parsed, FileError> {
    let bytes = read(path, shown, opts.max_file_bytes, &opts.reader)?;
    let facts = match cache.get(&bytes) {
        Some(f) => f,
        None => {
            let f = syntax::parse(&bytes).ok_or_else(|| {
                file_error(shown, "parse", "tree-sitter produced no syntax tree".into())
            })?;
            cache.put(&bytes, &f);
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
                    let mut holes: Vec<syntax::ir::Span> = Vec::new();
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
                        f.name.clone(),
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
    })
}

/// Run the analysis over `opts.paths`.
pub fn check(opts: &Options) -> Result<Report, RunError> {
    // Worker stacks sized for the capped recursion of lowering and flow on deeply nested code.
    match rayon::ThreadPoolBuilder::new().stack_size(64 << 20).build() {
        Ok(pool) => pool.install(|| check_in_pool(opts)),
        Err(_) => check_in_pool(opts),
    }
}

fn check_in_pool(opts: &Options) -> Result<Report, RunError> {
    for r in opts.select.iter().chain(&opts.ignore) {
        if rules::by_id(r).is_none() {
            return Err(RunError::BadRule(r.clone()));
        }
    }
    let owned;
    let config_rows = opts.config.as_ref().and_then(|c| {
        let rows = c.catalogue.clone()?;
        Some((discovery::display_path(&c.path), rows))
    });
    let cat = if opts.catalogues.is_empty() && config_rows.is_none() {
        catalogue::Catalogue::builtin()
    } else {
        let mut files: Vec<(String, String)> = config_rows.into_iter().collect();
        for p in &opts.catalogues {
            let text = std::fs::read_to_string(p)
                .map_err(|e| RunError::Catalogue(format!("{}: cannot read: {e}", p.display())))?;
            files.push((p.display().to_string(), text));
        }
        owned = catalogue::Catalogue::with_extra(&files).map_err(RunError::Catalogue)?;
        &owned
    };
    let found = phase("discover", || discovery::discover(&opts.paths))
        .map_err(|e| RunError::MissingPath(e.0))?;
    // retrylint.toml's include/exclude globs, also for files named on the command line.
    let found = match &opts.config {
        Some(c) => c.retain_files(found),
        None => found,
    };
    if let Some(p) = &opts.progress {
        p.start(found.java.len());
    }
    let cache = match &opts.cache_dir {
        Some(root) => cache::Cache::open(root),
        None => cache::Cache::disabled(),
    };
    let mut report = Report::default();
    for (p, msg) in &found.problems {
        report
            .errors
            .push(file_error(&discovery::display_path(p), "read", msg.clone()));
    }
    let (project, mut findings, truncated) = if opts.prefilter {
        prefiltered(&found.java, opts, cat, &cache, &mut report)
    } else {
        let loaded: Vec<(String, Result<Parsed, FileError>)> = phase("parse", || {
            found
                .java
                .par_iter()
                .map(|p| {
                    let shown = discovery::display_path(p);
                    let r = parse_file(p, &shown, opts, &cache, None);
                    if let Some(c) = &opts.progress {
                        c.file_done();
                    }
                    (shown, r)
                })
                .collect()
        });
        if let Some(p) = &opts.progress {
            p.files_read();
        }
        let mut files = Vec::new();
        for (shown, r) in loaded {
            match r {
                Ok(p) => files.push(index::SourceFile {
                    path: shown,
                    facts: p.facts,
                }),
                Err(e) => {
                    report.summary.files_failed += 1;
                    report.errors.push(e);
                }
            }
        }
        report.summary.files_scanned = files.len();
        let project = phase("index", || index::Project::new(files));
        let (findings, truncated) = findings::find(&project, cat, None, false);
        (project, findings, truncated)
    };
    for f in &project.files {
        if let Some(first) = f.facts.syntax_errors.first() {
            report.summary.files_with_syntax_errors += 1;
            report.errors.push(FileError {
                path: f.path.clone(),
                kind: "syntax",
                severity: "warning",
                message: format!(
                    "{} syntax error(s); the rest of the file is still analysed",
                    f.facts.syntax_errors.len()
                ),
                line: Some(f.facts.line_of(first.start)),
            });
        }
    }
    // The report scope, by canonical path, and whether each scanned file is in it.
    let scope: Option<std::collections::HashSet<PathBuf>> = opts.report_scope.as_ref().map(|v| {
        v.iter()
            .filter_map(|p| std::fs::canonicalize(p).ok())
            .collect()
    });
    // Only files named like a scope file can be one (no path resolution for the others: a
    // pre-commit run names a few files of a large project).
    let names: std::collections::HashSet<&std::ffi::OsStr> = scope
        .iter()
        .flatten()
        .filter_map(|p| p.file_name())
        .collect();
    let canonical: std::collections::HashMap<String, PathBuf> = found
        .java
        .iter()
        .filter(|p| scope.is_some() && p.file_name().is_some_and(|n| names.contains(n)))
        .filter_map(|p| Some((discovery::display_path(p), std::fs::canonicalize(p).ok()?)))
        .collect();
    let in_scope = |shown: &str| match &scope {
        None => true,
        Some(s) => canonical.get(shown).is_some_and(|c| s.contains(c)),
    };
    if scope.is_some() {
        report.summary.files_scanned = found
            .java
            .iter()
            .filter(|p| in_scope(&discovery::display_path(p)))
            .count()
            - report
                .errors
                .iter()
                .filter(|e| e.severity == "error" && in_scope(&e.path))
                .count();
    }
    report.errors.retain(|e| in_scope(&e.path));
    // Counted in the report scope, like the errors themselves.
    report.summary.files_with_syntax_errors =
        report.errors.iter().filter(|e| e.kind == "syntax").count();
    if scope.is_some() {
        report.summary.files_failed = report
            .errors
            .iter()
            .filter(|e| e.severity == "error")
            .count();
    }
    for (ext, _) in &found.other {
        *report.summary.not_analysed.entry(ext.clone()).or_default() += 1;
    }

    // A finding is in scope when any place it involves is: its primary location, the helper
    // that evaluates the value, a key sink or a region — so a helper changed to return a random
    // key is blocked although the finding is reported in its unchanged caller.
    let finding_in_scope = |f: &Finding| {
        in_scope(&f.path)
            || f.via
                .iter()
                .chain(&f.sinks)
                .chain(&f.regions)
                .any(|r| in_scope(&r.path))
    };
    for m in truncated {
        let mm = project.method(m);
        report.errors.push(FileError {
            path: project.files[m.0 as usize].path.clone(),
            kind: "budget",
            severity: "warning",
            message: format!(
                "method `{}` is larger than the analysis budget ({} steps); it was analysed in part",
                mm.name,
                flow::MAX_STEPS
            ),
            line: Some(project.files[m.0 as usize].facts.line_of(mm.name_span.start)),
        });
    }
    findings.retain(|f| {
        (opts.select.is_empty()
            || opts
                .select
                .iter()
                .any(|s| rules::by_id(s).is_some_and(|r| r.id == f.rule.id)))
            && !opts
                .ignore
                .iter()
                .any(|s| rules::by_id(s).is_some_and(|r| r.id == f.rule.id))
            && finding_in_scope(f)
    });
    // The text of every file a finding points into, for columns, code frames and line hashes.
    let by_shown: std::collections::HashMap<String, &PathBuf> = found
        .java
        .iter()
        .map(|p| (discovery::display_path(p), p))
        .collect();
    for f in &findings {
        let related = f
            .sinks
            .iter()
            .chain(&f.regions)
            .chain(&f.via)
            .map(|r| &r.path);
        for path in std::iter::once(&f.path).chain(related) {
            if !report.texts.contains_key(path)
                && let Some(p) = by_shown.get(path)
                && let Ok(b) = opts.reader.read(p)
            {
                report
                    .texts
                    .insert(path.clone(), String::from_utf8_lossy(&b).into_owned());
            }
        }
    }
    findings::finish(&mut findings, &report.texts);
    report
        .errors
        .sort_by(|a, b| (&a.path, a.line, a.kind).cmp(&(&b.path, b.line, b.kind)));
    report.summary.findings = findings.len();
    for f in &findings {
        *report
            .summary
            .by_rule
            .entry(f.rule.id.to_string())
            .or_default() += 1;
    }
    report.findings = findings;
    // Rule settings, suppressions and the baseline, on the finished findings.
    let analysed: Vec<PathBuf> = found
        .java
        .iter()
        .filter(|p| in_scope(&discovery::display_path(p)))
        .cloned()
        .collect();
    adoption::apply(opts, &mut report, &analysed)?;
    Ok(report)
}

/// Parse only what can matter (see [`scope`]): files with an effect word and, backwards, the
/// files naming what leads to one; then, forwards, whatever a lookup of the analysis depended
/// on, until the analysis of the parsed files is the analysis of the whole project.
fn prefiltered(
    paths: &[PathBuf],
    opts: &Options,
    cat: &catalogue::Catalogue,
    cache: &cache::Cache,
    report: &mut Report,
) -> (index::Project, Vec<Finding>, Vec<index::MethodId>) {
    use std::collections::{HashMap, HashSet};
    let needles = scope::Needles::new(cat);
    let mut scans = match &opts.cache_dir {
        Some(root) => cache::ScanCache::open(root, &needles.fingerprint),
        None => cache::ScanCache::disabled(),
    };
    type Read = (Input, Option<(u128, u64)>, bool);
    let read_all: Vec<Result<Read, FileError>> = phase("read", || {
        paths
            .par_iter()
            .map(|p| {
                let shown = discovery::display_path(p);
                let stamp = std::fs::metadata(p)
                    .ok()
                    .filter(|m| m.is_file() && m.len() <= opts.max_file_bytes)
                    .and_then(|m| cache::stamp(&m));
                let cached = scans.get(&shown, stamp).cloned();
                let fresh = cached.is_none();
                let scan = match cached {
                    Some(s) => Ok(s),
                    None => read(p, &shown, opts.max_file_bytes, &opts.reader)
                        .map(|bytes| scope::Scan::of(&bytes, &needles)),
                };
                if let Some(c) = &opts.progress {
                    c.file_done();
                }
                let input = Input {
                    path: p.clone(),
                    scan: scan?,
                    shown,
                };
                Ok((input, stamp, fresh))
            })
            .collect()
    });
    if let Some(p) = &opts.progress {
        p.files_read();
    }
    let mut inputs: Vec<Option<Input>> = Vec::with_capacity(read_all.len());
    let mut entries = HashMap::new();
    let mut changed = false;
    for r in read_all {
        match r {
            Ok((i, stamp, fresh)) => {
                changed |= fresh;
                if let Some((modified, size)) = stamp {
                    let scan = i.scan.clone();
                    entries.insert(
                        i.shown.clone(),
                        cache::ScanEntry {
                            modified,
                            size,
                            scan,
                        },
                    );
                }
                inputs.push(Some(i));
            }
            Err(e) => {
                report.summary.files_failed += 1;
                report.errors.push(e);
                inputs.push(None);
            }
        }
    }
    scans.save(entries, changed);
    report.summary.files_scanned = inputs.iter().flatten().count();
    // Types declared in each package shadow side-effect class names in its files.
    let mut declared: HashMap<Option<String>, HashSet<u32>> = HashMap::new();
    for i in inputs.iter().flatten() {
        declared
            .entry(i.scan.package.clone())
            .or_default()
            .extend(i.scan.declared.iter().copied());
    }
    for i in inputs.iter_mut().flatten() {
        if !i.scan.live.is_empty()
            && let Some(d) = declared.get(&i.scan.package)
        {
            i.scan.shadow(d);
        }
    }
    let n = inputs.len();
    let mut parsed: Vec<Option<Parsed>> = (0..n).map(|_| None).collect();
    let mut tried = vec![false; n];
    // With `parts`, also the tokens of each method and field (for the backward closure).
    let parse = |want: Vec<usize>,
                 parts: bool,
                 parsed: &mut Vec<Option<Parsed>>,
                 tried: &mut Vec<bool>,
                 report: &mut Report| {
        let out: Vec<(usize, Result<Parsed, FileError>)> = want
            .par_iter()
            .filter_map(|i| {
                let input = inputs[*i].as_ref()?;
                let parts = parts.then_some((&needles, input.scan.effect));
                let r = parse_file(&input.path, &input.shown, opts, cache, parts);
                Some((*i, r))
            })
            .collect();
        for (i, r) in out {
            tried[i] = true;
            match r {
                Ok(p) => parsed[i] = Some(p),
                Err(e) => {
                    report.summary.files_failed += 1;
                    report.summary.files_scanned -= 1;
                    report.errors.push(e);
                }
            }
        }
    };
    let untried = |tried: &[bool], pred: &(dyn Fn(&scope::Scan) -> bool + Sync)| -> Vec<usize> {
        (0..n)
            .into_par_iter()
            .filter(|i| !tried[*i] && inputs[*i].as_ref().is_some_and(|x| pred(&x.scan)))
            .collect()
    };

    // Backwards from the effect words.
    let mut in_b: Vec<Vec<bool>> = vec![Vec::new(); n];
    let mut names: HashSet<u32> = HashSet::new();
    let mut ctors: HashSet<u32> = HashSet::new();
    // Per side-effect row: names of fields and methods whose text names one of its classes
    // (`PaymentsApi api;`, `StripeClient stripe() {…}`), through which its methods are called.
    let mut carriers: Vec<HashSet<u32>> = vec![HashSet::new(); needles.rows.len()];
    let mut field_carriers: Vec<HashSet<(usize, u32)>> = vec![HashSet::new(); n];
    let mut want = untried(&tried, &|s| s.effect);
    let limit = (n as f64 * opts.prefilter_max_share) as usize;
    let mut checked = vec![false; n];
    let mut too_many = false;
    phase("backward", || {
        while !want.is_empty() {
            if parsed.iter().flatten().count() + want.len() > limit {
                too_many = true;
                break;
            }
            parse(
                std::mem::take(&mut want),
                true,
                &mut parsed,
                &mut tried,
                report,
            );
            let mut new_names = HashSet::new();
            let mut new_ctors = HashSet::new();
            let mut new_carriers: Vec<HashSet<u32>> = vec![HashSet::new(); needles.rows.len()];
            // A file is checked against every name once, then only against the names found
            // since the previous pass.
            let mut delta_names: HashSet<u32> = HashSet::new();
            let mut delta_ctors: HashSet<u32> = HashSet::new();
            let mut delta_carriers: Vec<HashSet<u32>> = vec![HashSet::new(); needles.rows.len()];
            loop {
                let mut added_names: HashSet<u32> = HashSet::new();
                let mut added_ctors: HashSet<u32> = HashSet::new();
                let mut added_carriers: Vec<HashSet<u32>> =
                    vec![HashSet::new(); needles.rows.len()];
                for (i, p) in parsed.iter().enumerate() {
                    let Some(p) = p else { continue };
                    if checked[i] {
                        continue;
                    }
                    let Some(scan) = inputs[i].as_ref().map(|x| &x.scan) else {
                        continue;
                    };
                    if scan.live.is_empty() {
                        continue;
                    }
                    // Methods returning one of a row's types are called from anywhere; fields
                    // holding one are used in their own file.
                    let methods = p.facts.methods.iter().map(|m| (&m.name, &m.ret, true));
                    let fields = p.facts.classes.iter().flat_map(|c| &c.fields);
                    for (name, ty, method) in methods.chain(fields.map(|f| (&f.name, &f.ty, false)))
                    {
                        let ty = scope::tokens(ty.as_bytes());
                        let h = scope::token_hash(name.as_bytes());
                        for (r, row) in needles.rows.iter().enumerate() {
                            if !scan.names_live_class(row, &ty) {
                                continue;
                            }
                            if !method {
                                field_carriers[i].insert((r, h));
                            } else if !carriers[r].contains(&h) {
                                added_carriers[r].insert(h);
                            }
                        }
                    }
                }
                for (r, added) in added_carriers.iter().enumerate() {
                    carriers[r].extend(added);
                    new_carriers[r].extend(added);
                }
                // Full: text, side-effect class, carrier or field; delta: only new carriers.
                let effect = |part: &Part,
                              scan: &scope::Scan,
                              fields: &HashSet<(usize, u32)>,
                              full: bool,
                              cars: &[HashSet<u32>]| {
                    (full && part.text_hit)
                        || needles
                            .rows
                            .iter()
                            .zip(cars)
                            .enumerate()
                            .any(|(r, (row, car))| {
                                scope::mentions(&part.tokens, &row.methods)
                                    && ((full
                                        && (row.any_class
                                            || scan.names_live_class(row, &part.tokens)
                                            || part
                                                .tokens
                                                .iter()
                                                .any(|t| fields.contains(&(r, *t)))))
                                        || scope::mentions(&part.tokens, car))
                            })
                };
                let mut carriers_now: Vec<HashSet<u32>> = delta_carriers.clone();
                for (r, added) in added_carriers.iter().enumerate() {
                    carriers_now[r].extend(added);
                }
                for (i, p) in parsed.iter().enumerate() {
                    let Some(p) = p else { continue };
                    let full = !checked[i];
                    let (nm, ct, cr) = if full {
                        (&names, &ctors, &carriers[..])
                    } else {
                        (&delta_names, &delta_ctors, &carriers_now[..])
                    };
                    let Some(scan) = inputs[i].as_ref().map(|x| &x.scan) else {
                        continue;
                    };
                    let b = &mut in_b[i];
                    b.resize(p.methods.len(), false);
                    for (mi, part) in p.methods.iter().enumerate() {
                        if b[mi]
                            || !(scope::mentions(&part.tokens, nm)
                                || scope::mentions(&part.news, ct)
                                || effect(part, scan, &field_carriers[i], full, cr))
                        {
                            continue;
                        }
                        b[mi] = true;
                        let m = &p.facts.methods[mi];
                        // Its users know it by its name, a constructor by its class's names.
                        if !m.is_ctor && m.name != "<init>" {
                            let h = scope::token_hash(m.name.as_bytes());
                            if !names.contains(&h) {
                                added_names.insert(h);
                            }
                        }
                        let mut c = Some(m.class);
                        while let Some(ci) = c {
                            let class = &p.facts.classes[ci];
                            let h = scope::token_hash(class.name.as_bytes());
                            if !ctors.contains(&h) {
                                added_ctors.insert(h);
                            }
                            c = class.outer;
                        }
                    }
                    // Constants naming a key header, fields named as keys.
                    if full {
                        for (name, part) in &p.fields {
                            let h = scope::token_hash(name.as_bytes());
                            if part.text_hit && !names.contains(&h) {
                                added_names.insert(h);
                            }
                        }
                    }
                }
                for (i, p) in parsed.iter().enumerate() {
                    checked[i] |= p.is_some();
                }
                let grew = !added_names.is_empty()
                    || !added_ctors.is_empty()
                    || added_carriers.iter().any(|c| !c.is_empty());
                names.extend(&added_names);
                ctors.extend(&added_ctors);
                new_names.extend(&added_names);
                new_ctors.extend(&added_ctors);
                delta_names = added_names;
                delta_ctors = added_ctors;
                delta_carriers = added_carriers;
                if !grew {
                    break;
                }
            }
            want = untried(&tried, &|s| {
                scope::mentions(&s.tokens, &new_names)
                    || scope::mentions(&s.tokens, &new_ctors)
                    || needles.rows.iter().zip(&new_carriers).any(|(row, car)| {
                        // A file that may call one of the row's methods through a carrier.
                        scope::mentions(&s.tokens, car) && scope::mentions(&s.tokens, &row.methods)
                    })
            });
            if std::env::var_os("RETRYLINT_TIMINGS").is_some() {
                eprintln!(
                    "retrylint: backward round: {} files parsed, {} more needed, {} names",
                    parsed.iter().flatten().count(),
                    want.len(),
                    names.len() + ctors.len()
                );
            }
        }
    });

    if too_many {
        // Most files may matter: parse the rest and analyse everything, as --no-prefilter does.
        let rest: Vec<usize> = (0..n).filter(|i| !tried[*i]).collect();
        phase("parse", || {
            parse(rest, false, &mut parsed, &mut tried, report)
        });
        let files: Vec<index::SourceFile> = (0..n)
            .filter_map(|i| {
                let p = parsed[i].take()?;
                Some(index::SourceFile {
                    path: inputs[i].as_ref()?.shown.clone(),
                    facts: p.facts,
                })
            })
            .collect();
        let project = phase("index", || index::Project::new(files));
        let (findings, truncated) = findings::find(&project, cat, None, false);
        return (project, findings, truncated);
    }

    // The text of methods and fields is not needed any more.
    for p in parsed.iter_mut().flatten() {
        p.methods = Vec::new();
        p.fields = Vec::new();
    }

    // Forwards from the regions, until no lookup depends on a file not parsed: cheap rounds
    // that stop once the reached methods are known, then the whole analysis, which may look
    // up more (and then goes round again).
    let mut round = 0;
    let mut probe = true;
    loop {
        round += 1;
        let order: Vec<usize> = (0..n).filter(|i| parsed[*i].is_some()).collect();
        let mut only = HashSet::new();
        let files: Vec<index::SourceFile> = order
            .iter()
            .enumerate()
            .map(|(k, i)| {
                for (mi, b) in in_b[*i].iter().enumerate() {
                    if *b {
                        only.insert((k as u32, mi as u32));
                    }
                }
                index::SourceFile {
                    path: inputs[*i]
                        .as_ref()
                        .map(|x| x.shown.clone())
                        .unwrap_or_default(),
                    facts: parsed[*i]
                        .as_mut()
                        .map(|p| std::mem::take(&mut p.facts))
                        .unwrap_or_default(),
                }
            })
            .collect();
        let project = phase("index", || index::Project::recording(files));
        let (findings, truncated) = findings::find(&project, cat, Some(&only), probe);
        let deps = project.deps().map(|d| d.index());
        let want = match &deps {
            Some(d) => untried(&tried, &|s| d.matches(s)),
            None => Vec::new(),
        };
        if std::env::var_os("RETRYLINT_TIMINGS").is_some() {
            eprintln!(
                "retrylint: forward round {round}{}: {} files parsed, {} more needed",
                if probe { " (probe)" } else { "" },
                order.len(),
                want.len()
            );
        }
        if want.is_empty() && !probe {
            return (project, findings, truncated);
        }
        probe = !want.is_empty();
        for (k, f) in project.into_files().into_iter().enumerate() {
            if let Some(p) = parsed[order[k]].as_mut() {
                p.facts = f.facts;
            }
        }
        if want.is_empty() {
            continue;
        }
        phase("parse more", || {
            parse(want, false, &mut parsed, &mut tried, report)
        });
    }
}
