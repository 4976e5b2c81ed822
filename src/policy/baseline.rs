//! Baselines: `--write-baseline FILE` records the current findings, `--baseline FILE` hides
//! the findings recorded there, so a legacy repository starts clean and only new findings fail.
//!
//! A finding is recorded by what survives unrelated edits and moved lines: its rule, its file
//! (relative to the baseline's directory), its method and the source text of its primary line
//! with whitespace collapsed; with a count, so a second identical finding in the same method is
//! new. Editing the line itself makes the finding new.

use crate::{BaselineError, Finding};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

pub const VERSION: u32 = 1;

#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Entry {
    pub path: String,
    pub rule: String,
    pub method: String,
    /// The primary line, whitespace collapsed.
    pub code: String,
    pub count: u32,
}

#[derive(Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct File {
    version: u32,
    tool: String,
    findings: Vec<Entry>,
}

type Key = (String, String, String, String);

/// The recorded findings, by key, with how many of each remain to be matched.
#[derive(Debug, Clone, Default)]
pub struct Baseline {
    dir: PathBuf,
    counts: BTreeMap<Key, u32>,
}

/// `path` (as reports show it, relative to the working directory) relative to `dir`.
fn relative_to(dir: &Path, path: &str) -> String {
    let abs = std::env::current_dir()
        .map(|c| c.join(path))
        .unwrap_or_else(|_| PathBuf::from(path));
    let abs = std::fs::canonicalize(&abs).unwrap_or(abs);
    match abs.strip_prefix(dir) {
        Ok(rel) => rel.to_string_lossy().replace('\\', "/"),
        Err(_) => path.to_string(),
    }
}

fn canonical_dir(file: &Path) -> PathBuf {
    let dir = match file.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    };
    std::fs::canonicalize(&dir).unwrap_or(dir)
}

fn key(dir: &Path, f: &Finding, texts: &BTreeMap<String, String>) -> Key {
    let code = texts
        .get(&f.path)
        .and_then(|t| t.lines().nth((f.line as usize).saturating_sub(1)))
        .unwrap_or("")
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    (
        relative_to(dir, &f.path),
        f.rule.id.to_string(),
        f.method.clone(),
        code,
    )
}

impl Baseline {
    /// Read a baseline; the error is one sentence naming the file.
    pub fn load(path: &Path) -> Result<Baseline, BaselineError> {
        let shown = crate::discovery::display_path(path);
        let text = std::fs::read_to_string(path).map_err(|e| BaselineError::Read {
            file: shown.clone(),
            message: e.to_string(),
        })?;
        let file: File = serde_json::from_str(&text).map_err(|e| BaselineError::Invalid {
            file: shown.clone(),
            line: e.line(),
            column: e.column(),
            message: e.to_string(),
        })?;
        if file.version != VERSION {
            return Err(BaselineError::Version {
                file: shown,
                found: file.version,
                reads: VERSION,
            });
        }
        let mut counts = BTreeMap::new();
        for e in file.findings {
            // Saturating: a crafted baseline's counts must not wrap around (or panic).
            let n = counts
                .entry((e.path, e.rule, e.method, e.code))
                .or_default();
            *n = u32::saturating_add(*n, e.count);
        }
        Ok(Baseline {
            dir: canonical_dir(path),
            counts,
        })
    }

    /// Split `findings` (in report order) into new ones and ones the baseline records; also
    /// how many recorded findings of the `analysed` files (shown path, path on disk) no finding
    /// matched (fixed, or their line edited): stale entries.
    pub fn split(
        &self,
        findings: Vec<Finding>,
        texts: &BTreeMap<String, String>,
        analysed: &[(String, PathBuf)],
    ) -> (Vec<Finding>, Vec<Finding>, usize) {
        let mut left = self.counts.clone();
        let mut new = Vec::new();
        let mut known = Vec::new();
        for f in findings {
            match left.get_mut(&key(&self.dir, &f, texts)) {
                Some(n) if *n > 0 => {
                    *n -= 1;
                    known.push(f);
                }
                _ => new.push(f),
            }
        }
        let files: std::collections::HashSet<String> = analysed
            .iter()
            .map(|(shown, _)| relative_to(&self.dir, shown))
            .collect();
        let stale = left
            .iter()
            .filter(|((path, ..), _)| files.contains(path))
            .map(|(_, n)| *n as usize)
            .sum();
        (new, known, stale)
    }
}

/// The baseline document recording `findings`, for a file at `path`: sorted, deterministic.
pub fn render<'a>(
    path: &Path,
    findings: impl IntoIterator<Item = &'a Finding>,
    texts: &BTreeMap<String, String>,
) -> String {
    let dir = canonical_dir(path);
    let mut counts: BTreeMap<Key, u32> = BTreeMap::new();
    for f in findings {
        let n = counts.entry(key(&dir, f, texts)).or_default();
        *n = n.saturating_add(1);
    }
    let file = File {
        version: VERSION,
        tool: "retrylint".into(),
        findings: counts
            .into_iter()
            .map(|((path, rule, method, code), count)| Entry {
                path,
                rule,
                method,
                code,
                count,
            })
            .collect(),
    };
    let mut s = serde_json::to_string_pretty(&file).unwrap_or_else(|_| "{}".into());
    s.push('\n');
    s
}
