//! retrylint: finds idempotency keys that change between retries in Java code.
//!
//! [`check`] runs the whole pipeline: discover files, parse and lower them in parallel, index
//! the project, compute method summaries, find regions, and report every per-attempt value
//! that reaches an idempotency key sink inside the same region execution.

pub mod cache;
pub mod catalogue;
pub mod discovery;
pub mod findings;
pub mod flow;
pub mod index;
pub mod regions;
pub mod report;
pub mod rules;
pub mod source;
pub mod syntax;

use rayon::prelude::*;
use std::collections::BTreeMap;
use std::path::PathBuf;

pub use findings::{Finding, Related};

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
}

#[derive(Debug, Default)]
pub struct Report {
    pub findings: Vec<Finding>,
    pub errors: Vec<FileError>,
    pub summary: Summary,
    /// Text of the files that have findings, for code frames and line hashes.
    pub texts: BTreeMap<String, String>,
}

/// Errors of the run itself (exit status 2).
#[derive(Debug)]
pub enum RunError {
    MissingPath(PathBuf),
    BadRule(String),
    Catalogue(String),
}

impl std::fmt::Display for RunError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RunError::MissingPath(p) => write!(f, "path `{}` does not exist", p.display()),
            RunError::BadRule(r) => write!(f, "unknown rule `{r}` (see `retrylint rules`)"),
            RunError::Catalogue(e) => write!(f, "bad catalogue file {e}"),
        }
    }
}

impl std::error::Error for RunError {}

enum Loaded {
    Parsed(String, syntax::ir::FileFacts),
    Failed(FileError),
}

fn load(
    path: &std::path::Path,
    max_bytes: u64,
    cache: &cache::Cache,
    reader: &source::Reader,
) -> Loaded {
    let shown = discovery::display_path(path);
    let fail = |kind, message: String| {
        Loaded::Failed(FileError {
            path: shown.clone(),
            kind,
            severity: "error",
            message,
            line: None,
        })
    };
    match std::fs::metadata(path) {
        Ok(m) if !m.is_file() => return fail("read", "not a regular file".into()),
        Ok(m) if m.len() > max_bytes => {
            return fail(
                "skipped",
                format!(
                    "{} bytes is over the {max_bytes} byte limit (--max-file-size); not analysed",
                    m.len()
                ),
            );
        }
        Err(e) => return fail("read", format!("cannot read: {e}")),
        _ => {}
    }
    let bytes = match reader.read(path) {
        Ok(b) => b,
        Err(e) => return fail("read", format!("cannot read: {e}")),
    };
    if bytes.iter().take(8192).any(|b| *b == 0) {
        return fail("parse", "binary content (NUL bytes); not analysed".into());
    }
    if let Some(f) = cache.get(&bytes) {
        return Loaded::Parsed(shown, f);
    }
    match syntax::parse(&bytes) {
        Some(f) => {
            cache.put(&bytes, &f);
            Loaded::Parsed(shown, f)
        }
        None => fail("parse", "tree-sitter produced no syntax tree".into()),
    }
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
    let cat = if opts.catalogues.is_empty() {
        catalogue::Catalogue::builtin()
    } else {
        let mut files = Vec::new();
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
    let cache = match &opts.cache_dir {
        Some(root) => cache::Cache::open(root),
        None => cache::Cache::disabled(),
    };
    let loaded: Vec<Loaded> = phase("parse", || {
        found
            .java
            .par_iter()
            .map(|p| load(p, opts.max_file_bytes, &cache, &opts.reader))
            .collect()
    });

    let mut report = Report::default();
    for (p, msg) in &found.problems {
        report.errors.push(FileError {
            path: discovery::display_path(p),
            kind: "read",
            severity: "error",
            message: msg.clone(),
            line: None,
        });
    }
    let mut files = Vec::new();
    for l in loaded {
        match l {
            Loaded::Parsed(path, facts) => {
                if let Some(first) = facts.syntax_errors.first() {
                    report.summary.files_with_syntax_errors += 1;
                    report.errors.push(FileError {
                        path: path.clone(),
                        kind: "syntax",
                        severity: "warning",
                        message: format!(
                            "{} syntax error(s); the rest of the file is still analysed",
                            facts.syntax_errors.len()
                        ),
                        line: Some(facts.line_of(first.start)),
                    });
                }
                files.push(index::SourceFile { path, facts });
            }
            Loaded::Failed(e) => {
                report.summary.files_failed += 1;
                report.errors.push(e);
            }
        }
    }
    // The report scope, by canonical path, and whether each scanned file is in it.
    let scope: Option<std::collections::HashSet<PathBuf>> = opts.report_scope.as_ref().map(|v| {
        v.iter()
            .filter_map(|p| std::fs::canonicalize(p).ok())
            .collect()
    });
    let canonical: std::collections::HashMap<String, PathBuf> = found
        .java
        .iter()
        .filter_map(|p| Some((discovery::display_path(p), std::fs::canonicalize(p).ok()?)))
        .collect();
    let in_scope = |shown: &str| match &scope {
        None => true,
        Some(s) => canonical.get(shown).is_some_and(|c| s.contains(c)),
    };
    report.summary.files_scanned = files.iter().filter(|f| in_scope(&f.path)).count();
    report.errors.retain(|e| in_scope(&e.path));
    for (ext, _) in &found.other {
        *report.summary.not_analysed.entry(ext.clone()).or_default() += 1;
    }

    let project = phase("index", || index::Project::new(files));
    let (mut findings, truncated) = findings::find(&project, cat);
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
            && in_scope(&f.path)
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
    Ok(report)
}
