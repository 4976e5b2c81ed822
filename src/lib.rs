//! retrylint: finds idempotency keys that change between retries in Java code.
//!
//! [`check`] runs the whole pipeline ([`pipeline`]): discover files, scan and parse them in
//! parallel, index the project, find regions, compute flows, run the rules' checks, and apply
//! the policy (rule settings, suppressions, baseline).

pub mod catalogue;
pub mod dataflow;
pub mod errors;
pub mod findings;
pub mod java;
pub mod pipeline;
pub mod policy;
pub mod progress;
pub mod regions;
pub mod report;
pub mod rules;
pub mod semantic;
pub mod workspace;

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;

pub use errors::{BaselineError, ErrorKind, FileError, INCOMPLETE, RunError, Severity};
pub use findings::{Finding, Related};
pub use pipeline::phase;
pub use policy::enabled as rule_enabled;
pub use policy::{baseline, config, suppress};
pub use suppress::Suppressed;
pub use workspace::scan as scope;
pub use workspace::{cache, cache_auth, depth_limit, discovery, facts_pack, safe_fs, source};

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
    /// Catalogue rows left out, by id (`--disable-row`), besides `[catalogue] disable`.
    pub disable_rows: Vec<String>,
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
            disable_rows: Vec::new(),
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

#[derive(Debug, Default, Clone, serde::Serialize)]
pub struct Summary {
    pub files_scanned: usize,
    pub files_with_syntax_errors: usize,
    pub files_failed: usize,
    pub findings: usize,
    pub by_rule: BTreeMap<String, usize>,
    /// Other JVM sources found and not analysed, by extension.
    pub not_analysed: BTreeMap<String, usize>,
    /// `.java` files under the scanned directories that `.gitignore` (or another ignore file)
    /// left out.
    pub files_gitignored: usize,
    /// Findings hidden by an inline suppression (not counted in `findings`).
    pub suppressed: usize,
    /// Findings hidden because the baseline records them (not counted in `findings`).
    pub baselined: usize,
    /// Baseline entries for the analysed files that no finding matches any more.
    pub baseline_stale: usize,
    /// Places where the analysis was cut short (errors of kind `incomplete`): a finding there
    /// may be missing. `--fail-on-incomplete` fails the run on them.
    pub incomplete: usize,
    /// The configuration file that shaped the run and what it changed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub config: Option<config::Applied>,
}

#[derive(Debug, Default)]
pub struct Report {
    pub findings: Vec<Finding>,
    pub errors: Vec<FileError>,
    pub summary: Summary,
    /// Text of the files that have findings, for code frames and line hashes.
    pub texts: BTreeMap<String, String>,
    /// The files of `texts` that are not UTF-8, as GitHub's upload action decodes them (each
    /// invalid sequence one U+FFFD, see [`java::github_text`]), for SARIF line hashes.
    pub not_utf8: BTreeMap<String, String>,
    /// Findings an inline suppression hides, with its reason (SARIF and JSON show them).
    pub suppressed: Vec<Suppressed>,
    /// Findings the baseline (`--baseline`) hides.
    pub baselined: Vec<Finding>,
}

/// Run the analysis over `opts.paths`.
pub fn check(opts: &Options) -> Result<Report, RunError> {
    // Worker stacks sized for the capped recursion of lowering and flow on deeply nested code.
    match rayon::ThreadPoolBuilder::new().stack_size(64 << 20).build() {
        Ok(pool) => pool.install(|| pipeline::run(opts)),
        Err(_) => pipeline::run(opts),
    }
}
