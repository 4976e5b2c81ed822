//! The phases of a run, in order: discover → scan → parse → index → regions → flow → rules →
//! policy. [`run`] reads as that list; each phase is a function that says what it answers.

mod analysis;
mod compact;
mod gave_up;
mod parse;
mod prefilter;
mod summary_cache;

use crate::FileError;
use crate::dataflow as flow;
use crate::findings::{self, Finding};
use crate::semantic::{self as index, MethodId};
use crate::workspace::read::file_error;
use crate::{Options, Report, RunError, cache, catalogue, discovery, policy, rules};
use parse::{Parsed, parse_file};
use rayon::prelude::*;
use std::path::PathBuf;

/// The project analysed, its findings, and the methods whose analysis was cut short.
type Analysed = (
    index::Project,
    Vec<Finding>,
    Vec<(MethodId, analysis::Lost)>,
);

/// With `RETRYLINT_TIMINGS` set, each phase prints its wall time, the CPU time of the process
/// in it (where the system tells it) and the memory to standard error.
pub fn phase<T>(name: &str, f: impl FnOnce() -> T) -> T {
    if std::env::var_os("RETRYLINT_TIMINGS").is_none() {
        return f();
    }
    let t0 = std::time::Instant::now();
    let c0 = cpu_seconds();
    let out = f();
    let cpu = match (c0, cpu_seconds()) {
        (Some(a), Some(b)) => format!(" (cpu {:.3}s)", b - a),
        _ => String::new(),
    };
    eprintln!(
        "retrylint: {name}: {:.3}s{cpu}{}{}, {} body decodings so far",
        t0.elapsed().as_secs_f64(),
        peak_memory(),
        heap_in_use(),
        crate::java::ir::Body::decodings()
    );
    out
}

/// The user and system CPU time of the process so far, in seconds (Unix).
fn cpu_seconds() -> Option<f64> {
    #[cfg(unix)]
    {
        let mut u = std::mem::MaybeUninit::<libc::rusage>::zeroed();
        // SAFETY: `getrusage` fills the `rusage` it is given, which lives through the call.
        let rc = unsafe { libc::getrusage(libc::RUSAGE_SELF, u.as_mut_ptr()) };
        if rc != 0 {
            return None;
        }
        // SAFETY: filled by the successful call above (and zeroed before it).
        let u = unsafe { u.assume_init() };
        let secs = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 / 1e6;
        Some(secs(u.ru_utime) + secs(u.ru_stime))
    }
    #[cfg(not(unix))]
    None
}

/// The process's peak resident memory so far, where the system tells it (Linux).
fn peak_memory() -> String {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find_map(|l| l.strip_prefix("VmHWM:"))
                .map(|v| format!(", peak {}", v.trim()))
        })
        .unwrap_or_default()
}

/// The bytes held for live allocations now, where the allocator tells it: jemalloc's
/// `stats.allocated` where the command line uses it (see `main.rs`), else glibc's `mallinfo2`.
/// The resident peak also counts what freed memory the allocator kept.
fn heap_in_use() -> String {
    jemalloc_allocated()
        .or_else(glibc_in_use)
        .map(|b| format!(", heap in use {} kB", b / 1024))
        .unwrap_or_default()
}

/// jemalloc's count of allocated bytes; `None` where it is not the program's allocator (a test
/// of the library) or not built in.
fn jemalloc_allocated() -> Option<usize> {
    #[cfg(all(unix, not(target_os = "openbsd")))]
    {
        // SAFETY: `epoch` is written a `u64` (refreshing the statistics) and `stats.allocated`
        // read into a `usize`, the types jemalloc documents for them; both names are
        // NUL-terminated.
        unsafe {
            let mut epoch: u64 = 1;
            let mut size = std::mem::size_of::<u64>();
            tikv_jemalloc_sys::mallctl(
                c"epoch".as_ptr(),
                (&raw mut epoch).cast(),
                &mut size,
                (&raw mut epoch).cast(),
                size,
            );
            let mut allocated: usize = 0;
            let mut size = std::mem::size_of::<usize>();
            let rc = tikv_jemalloc_sys::mallctl(
                c"stats.allocated".as_ptr(),
                (&raw mut allocated).cast(),
                &mut size,
                std::ptr::null_mut(),
                0,
            );
            (rc == 0 && allocated > 0).then_some(allocated)
        }
    }
    #[cfg(not(all(unix, not(target_os = "openbsd"))))]
    None
}

/// glibc's count of bytes in use; `None` on other C libraries and before glibc 2.33.
fn glibc_in_use() -> Option<usize> {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        // Looked up at run time: glibc has `mallinfo2` since 2.33, while the released wheel
        // links against glibc 2.17 (manylinux2014), where the figure is left out.
        // SAFETY: `dlsym` gets a NUL-terminated name; a non-null result is glibc's
        // `mallinfo2`, which has the signature it is cast to and only reads the allocator's
        // counters.
        let f = unsafe { libc::dlsym(libc::RTLD_DEFAULT, c"mallinfo2".as_ptr()) };
        if f.is_null() {
            return None;
        }
        let f = unsafe {
            std::mem::transmute::<*mut libc::c_void, extern "C" fn() -> libc::mallinfo2>(f)
        };
        let m = f();
        Some(m.uordblks + m.hblkhd)
    }
    #[cfg(not(all(target_os = "linux", target_env = "gnu")))]
    None
}

pub(crate) fn run(opts: &Options) -> Result<Report, RunError> {
    check_rule_names(opts)?;
    let owned = extra_catalogue(opts)?;
    let cat = owned
        .as_ref()
        .unwrap_or_else(|| catalogue::Catalogue::builtin());
    let (found, excluded) = discover(opts)?;
    let cache = match &opts.cache_dir {
        Some(root) => cache::Cache::open(root),
        None => cache::Cache::disabled(),
    };
    // `RETRYLINT_NO_SUMMARY_CACHE` leaves the summary cache out while the facts cache stays:
    // to measure what it saves.
    let summaries = cache
        .root()
        .filter(|_| std::env::var_os("RETRYLINT_NO_SUMMARY_CACHE").is_none())
        .and_then(|(dir, key)| {
            summary_cache::SummaryCache::open(dir, key.clone(), &catalogue_inputs(opts))
        });
    let caches = analysis::Caches {
        facts: &cache,
        summaries: summaries.as_ref(),
    };
    let mut report = Report::default();
    report.summary.config = opts.config.as_ref().map(|c| c.applied(excluded));
    if !opts.disable_rows.is_empty() {
        // Rows switched off on the command line are shown with the configuration's.
        let applied = report
            .summary
            .config
            .get_or_insert_with(policy::config::Applied::default);
        applied
            .rows_disabled
            .extend(opts.disable_rows.iter().cloned());
        applied.rows_disabled.sort();
        applied.rows_disabled.dedup();
    }
    for (p, msg) in &found.problems {
        report.errors.push(file_error(
            &discovery::display_path(p),
            crate::ErrorKind::Read,
            msg.clone(),
        ));
    }
    let deployed = phase("deployment files", || {
        deployed_words(&found.deploy, opts, cat)
    });
    let (project, mut findings, truncated) = if opts.prefilter {
        prefilter::analyse(&found.java, &deployed, opts, cat, caches, &mut report)
    } else {
        analyse_every_file(&found.java, &deployed, opts, cat, caches, &mut report)
    };
    // Once every file's facts are known (whether from the cache or parsed).
    phase("facts pack", || cache.save_pack());
    let recovered = findings::recovery::drop_recovered(&project, &mut findings);
    syntax_warnings(&project, &recovered, &mut report);
    depth_warnings(&project, &mut report);
    let scope = crate::workspace::ReportScope::new(opts.report_scope.as_deref(), &found.java);
    scope.count(&found.java, &mut report);
    for (ext, _) in &found.other {
        *report.summary.not_analysed.entry(ext.clone()).or_default() += 1;
    }
    report.summary.files_gitignored = found.ignored_java;
    budget_warnings(&project, &truncated, &mut report);
    report.summary.incomplete = report
        .errors
        .iter()
        .filter(|e| e.kind == crate::INCOMPLETE)
        .count();
    findings.retain(|f| selected(opts, f) && scope.holds(f));
    read_texts(&found.java, &findings, opts, &mut report);
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
        .filter(|p| scope.contains(&discovery::display_path(p)))
        .cloned()
        .collect();
    // The suppression directives of the parsed files, from their facts.
    let parsed: policy::suppress::Parsed = project
        .files
        .iter()
        .map(|f| (f.path.as_str(), f.facts.directives.as_slice()))
        .collect();
    phase("policy", || {
        policy::apply(opts, &mut report, &analysed, &parsed)
    })?;
    drop(parsed);
    release(project);
    Ok(report)
}

/// The lowered project is millions of small allocations: freeing them one by one took about 3%
/// of a full scan's CPU, after the report was ready. A thread of its own frees them, so a
/// command-line run exits without waiting (the system reclaims the memory at once) and a
/// long-lived caller still gets it back. Without a thread, the value is freed here.
fn release<T: Send + 'static>(value: T) {
    let _ = std::thread::Builder::new()
        .name("retrylint-release".into())
        .spawn(move || drop(value));
}

/// Every rule named by `--select` and `--ignore` exists.
fn check_rule_names(opts: &Options) -> Result<(), RunError> {
    for r in opts.select.iter().chain(&opts.ignore) {
        if rules::by_id(r).is_none() {
            return Err(RunError::BadRule(r.clone()));
        }
    }
    Ok(())
}

/// The built-in catalogue with the rows of `--catalogue` files and `retrylint.toml`, without
/// the rows they disable, when there are any (`None`: the built-in catalogue alone).
fn extra_catalogue(opts: &Options) -> Result<Option<catalogue::Catalogue>, RunError> {
    let config_rows = opts.config.as_ref().and_then(|c| {
        let rows = c.catalogue.clone()?;
        Some((discovery::display_path(&c.path), rows))
    });
    let disabled = disabled_rows(opts);
    if opts.catalogues.is_empty() && config_rows.is_none() && disabled.is_empty() {
        return Ok(None);
    }
    let mut files: Vec<(String, String)> = config_rows.into_iter().collect();
    for p in &opts.catalogues {
        let text = std::fs::read_to_string(p).map_err(|e| {
            RunError::Catalogue(catalogue::CatalogueError::Unreadable {
                file: p.display().to_string(),
                message: e.to_string(),
            })
        })?;
        files.push((p.display().to_string(), text));
    }
    catalogue::Catalogue::compile(&files, &disabled)
        .map(Some)
        .map_err(RunError::Catalogue)
}

/// What the catalogue of the run was made from besides the built-in rows, for the summary
/// cache's key: the configuration's rows, the `--catalogue` files and the rows left out.
fn catalogue_inputs(opts: &Options) -> Vec<u8> {
    let mut out = format!("{:?}", disabled_rows(opts)).into_bytes();
    if let Some(c) = &opts.config {
        out.extend(format!("{:?}", c.catalogue).bytes());
    }
    for p in &opts.catalogues {
        out.extend(format!("\n{}\n", p.display()).bytes());
        out.extend(std::fs::read(p).unwrap_or_default());
    }
    out
}

/// The ids of the rows to leave out, each with where it was given.
fn disabled_rows(opts: &Options) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = Vec::new();
    if let Some(c) = &opts.config {
        let origin = format!(
            "[catalogue] disable in {}",
            discovery::display_path(&c.path)
        );
        out.extend(
            c.disabled_rows
                .iter()
                .map(|id| (id.clone(), origin.clone())),
        );
    }
    out.extend(
        opts.disable_rows
            .iter()
            .map(|id| (id.clone(), "--disable-row".to_string())),
    );
    out
}

/// The files of the run: discovered under the paths, then filtered by `retrylint.toml`'s
/// include/exclude globs (also for files named on the command line); and how many files the
/// globs excluded.
fn discover(opts: &Options) -> Result<(discovery::Discovered, usize), RunError> {
    let found = phase("discover", || discovery::discover(&opts.paths))
        .map_err(|e| RunError::MissingPath(e.0))?;
    let listed = found.java.len() + found.other.len();
    let mut found = match &opts.config {
        Some(c) => c.retain_files(found),
        None => found,
    };
    let excluded = listed - (found.java.len() + found.other.len());
    // After the globs: a file excluded under one path may still be selected under another.
    discovery::drop_aliases(&mut found);
    if let Some(p) = &opts.progress {
        p.start(found.java.len());
    }
    Ok((found, excluded))
}

/// The enabling tree words (see [`tree_words`]) that the deployment descriptors of the tree
/// name: a template can only make a handler's report read, never hide a finding. A file larger
/// than the run's limit, a link or anything but a regular file is passed over.
fn deployed_words(files: &[PathBuf], opts: &Options, cat: &catalogue::Catalogue) -> Vec<u32> {
    let words = tree_words(cat);
    if words.enabling.is_empty() {
        return Vec::new();
    }
    let mut found: Vec<u32> = files
        .par_iter()
        .filter_map(|p| {
            let bytes = crate::workspace::safe_fs::read_regular(p, opts.max_file_bytes).ok()?;
            Some(crate::scope::present(
                &crate::scope::tokens(&bytes),
                &words.enabling,
            ))
        })
        .flatten()
        .collect();
    found.sort_unstable();
    found.dedup();
    found
}

/// `--no-prefilter`: parse every file, index the project and analyse it.
fn analyse_every_file(
    paths: &[PathBuf],
    deployed: &[u32],
    opts: &Options,
    cat: &catalogue::Catalogue,
    caches: analysis::Caches,
    report: &mut Report,
) -> Analysed {
    let cache = caches.facts;
    let words = tree_words(cat);
    let loaded: Vec<(String, Result<Parsed, FileError>)> = phase("parse", || {
        paths
            .par_iter()
            .map(|p| {
                let shown = discovery::display_path(p);
                let r = parse_file(p, &shown, None, opts, cache, None, &words);
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
    let mut named = deployed.to_vec();
    for (shown, r) in loaded {
        match r {
            Ok(p) => {
                named.extend(p.tree);
                files.push(index::SourceFile {
                    path: shown,
                    facts: p.facts,
                })
            }
            Err(e) => {
                report.summary.files_failed += 1;
                report.errors.push(e);
            }
        }
    }
    report.summary.files_scanned = files.len();
    phase("facts pack", || cache.save_pack());
    let mut project = phase("index", || index::Project::new(files));
    project.set_tree_words(named);
    let (findings, truncated) = analysis::find(&mut project, cat, None, false, caches);
    (project, findings, truncated)
}

/// The catalogue's tree words as token hashes: looked for in every file of the tree.
pub(crate) fn tree_words(cat: &catalogue::Catalogue) -> crate::scope::TreeWords {
    let hashes = |words: Vec<&str>| {
        let mut v: Vec<u32> = words
            .iter()
            .map(|w| crate::scope::token_hash(w.as_bytes()))
            .collect();
        v.sort_unstable();
        v.dedup();
        v
    };
    let (enabling, declaring) = cat.tree_words();
    crate::scope::TreeWords {
        enabling: hashes(enabling),
        declaring: hashes(declaring),
    }
}

/// A warning for each file with syntax errors: it is partially parsed. The rest of it is still
/// analysed; `recovered` counts the findings dropped because they went through the part that
/// tree-sitter could only recover (SPEC §7.6).
fn syntax_warnings(
    project: &index::Project,
    recovered: &std::collections::BTreeMap<String, usize>,
    report: &mut Report,
) {
    for f in &project.files {
        if let Some(first) = f.facts.syntax_errors.first() {
            report.summary.files_with_syntax_errors += 1;
            let dropped = match recovered.get(&f.path) {
                Some(1) => {
                    "; 1 finding through the methods around them is not reported".to_string()
                }
                Some(n) => {
                    format!("; {n} findings through the methods around them are not reported")
                }
                None => String::new(),
            };
            report.errors.push(FileError {
                path: f.path.clone(),
                kind: crate::ErrorKind::Syntax,
                severity: crate::Severity::Warning,
                message: format!(
                    "partially parsed: {} syntax error(s); the rest of the file is still analysed{dropped}",
                    f.facts.syntax_errors.len()
                ),
                line: Some(f.facts.line_of(first.start)),
            });
        }
    }
}

/// A warning for each file with code nested deeper than lowering goes: what is below the cut
/// was not analysed.
fn depth_warnings(project: &index::Project, report: &mut Report) {
    for f in &project.files {
        if let Some(first) = f.facts.too_deep.first() {
            report.errors.push(FileError {
                path: f.path.clone(),
                kind: crate::INCOMPLETE,
                severity: crate::Severity::Warning,
                message: format!(
                    "code nested more than {} levels deep was not analysed ({} place(s))",
                    crate::java::lower::MAX_DEPTH,
                    f.facts.too_deep.len()
                ),
                line: Some(f.facts.line_of(first.start)),
            });
        }
    }
}

/// A warning for each method the analysis budget cut short, and for each recursive cycle whose
/// summaries did not converge.
fn budget_warnings(
    project: &index::Project,
    truncated: &[(MethodId, analysis::Lost)],
    report: &mut Report,
) {
    for (m, lost) in truncated {
        let mm = project.method(*m);
        report.errors.push(FileError {
            path: project.files[m.0 as usize].path.clone(),
            kind: crate::INCOMPLETE,
            severity: crate::Severity::Warning,
            message: match lost {
                analysis::Lost::Budget => format!(
                    "method `{}` is larger than the analysis budget ({} steps); it was analysed in part",
                    mm.name,
                    flow::MAX_STEPS
                ),
                analysis::Lost::Cycle => format!(
                    "the recursive calls through method `{}` did not converge; findings through them may be missing",
                    mm.name
                ),
            },
            line: Some(project.files[m.0 as usize].facts.line_of(mm.name_span.start)),
        });
    }
}

/// Is `f`'s rule selected by `--select` and not ignored by `--ignore`?
fn selected(opts: &Options, f: &Finding) -> bool {
    let named = |list: &[String]| {
        list.iter()
            .any(|s| rules::by_id(s).is_some_and(|r| r.id == f.rule.id))
    };
    (opts.select.is_empty() || named(&opts.select)) && !named(&opts.ignore)
}

/// The text of every file a finding points into, for columns, code frames and line hashes.
fn read_texts(paths: &[PathBuf], findings: &[Finding], opts: &Options, report: &mut Report) {
    let by_shown: std::collections::HashMap<String, &PathBuf> = paths
        .iter()
        .map(|p| (discovery::display_path(p), p))
        .collect();
    for f in findings {
        let related = f
            .sinks
            .iter()
            .chain(&f.regions)
            .chain(&f.via)
            .chain(&f.steps)
            .map(|r| &r.path);
        for path in std::iter::once(&f.path).chain(related) {
            if !report.texts.contains_key(path)
                && let Some(p) = by_shown.get(path)
                && let Ok(b) = opts.reader.read(p)
            {
                if let Some(t) = crate::java::github_text(&b) {
                    report.not_utf8.insert(path.clone(), t);
                }
                report
                    .texts
                    .insert(path.clone(), crate::java::offset_text(&b));
            }
        }
    }
}
