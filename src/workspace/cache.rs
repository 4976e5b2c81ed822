//! Per-file facts cached by content, like Ruff's cache: a file whose bytes are unchanged (for the
//! same retrylint version and facts format) is not parsed again. Only the lowered form of each
//! file is cached; the analysis of the whole project runs on every check, so an edit in one file
//! changes findings in the files that depend on it.

use crate::java::ir::FileFacts;
use crate::scope::Scan;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// Bump when the lowered form (`syntax::ir`) or the lowering changes meaning.
const FACTS_FORMAT: u32 = 2;

/// The cache directory's name under the project root.
pub const DIR_NAME: &str = ".retrylint_cache";

pub struct Cache {
    dir: Option<PathBuf>,
}

/// The byte scans of files (see [`crate::scope`]) by path, valid while the file's size and
/// modification time are unchanged — so a run reads only the files that changed, as Ruff's
/// cache does. Stored in one file per catalogue of effect words.
pub struct ScanCache {
    path: Option<PathBuf>,
    entries: HashMap<String, ScanEntry>,
}

#[derive(Serialize, Deserialize)]
pub struct ScanEntry {
    pub modified: u128,
    pub size: u64,
    pub scan: Scan,
}

/// Size and modification time (ns since the epoch) of a file's metadata.
pub fn stamp(m: &std::fs::Metadata) -> Option<(u128, u64)> {
    let t = m
        .modified()
        .ok()?
        .duration_since(std::time::UNIX_EPOCH)
        .ok()?;
    Some((t.as_nanos(), m.len()))
}

impl ScanCache {
    pub fn disabled() -> ScanCache {
        ScanCache {
            path: None,
            entries: HashMap::new(),
        }
    }

    /// The scans under `root`'s cache directory made with the effect words `fingerprint`.
    pub fn open(root: &Path, fingerprint: &str) -> ScanCache {
        let path = root.join(DIR_NAME).join(format!(
            "scans-v{}-{}-{fingerprint}",
            env!("CARGO_PKG_VERSION"),
            FACTS_FORMAT
        ));
        let entries = std::fs::read(&path)
            .ok()
            .and_then(|b| postcard::from_bytes(&b).ok())
            .unwrap_or_default();
        ScanCache {
            path: Some(path),
            entries,
        }
    }

    /// The cached scan of `shown`, if its size and modification time are unchanged.
    pub fn get(&self, shown: &str, stamp: Option<(u128, u64)>) -> Option<&Scan> {
        let (modified, size) = stamp?;
        self.entries
            .get(shown)
            .filter(|e| e.modified == modified && e.size == size)
            .map(|e| &e.scan)
    }

    /// Keep exactly these entries (the files of this run); written only if they changed.
    pub fn save(&mut self, entries: HashMap<String, ScanEntry>, changed: bool) {
        let Some(path) = &self.path else { return };
        if !changed && entries.len() == self.entries.len() {
            return;
        }
        let Some(parent) = path.parent() else { return };
        if std::fs::create_dir_all(parent).is_err() {
            return;
        }
        let Ok(data) = postcard::to_stdvec(&entries) else {
            return;
        };
        let tmp = path.with_extension(format!("tmp{}", std::process::id()));
        if std::fs::write(&tmp, data).is_ok() && std::fs::rename(&tmp, path).is_err() {
            let _ = std::fs::remove_file(&tmp);
        }
        self.entries = entries;
    }
}

impl Cache {
    pub fn disabled() -> Cache {
        Cache { dir: None }
    }

    /// The cache under `root`, created (with a `.gitignore` that ignores it) when missing. A cache
    /// that cannot be created is silently off: it only ever saves time.
    pub fn open(root: &Path) -> Cache {
        let dir = root.join(DIR_NAME);
        let facts = dir.join(format!(
            "facts-v{}-{}",
            env!("CARGO_PKG_VERSION"),
            FACTS_FORMAT
        ));
        if std::fs::create_dir_all(&facts).is_err() {
            return Cache::disabled();
        }
        let ignore = dir.join(".gitignore");
        if !ignore.exists() {
            let _ = std::fs::write(&ignore, "# Created by retrylint.\n*\n");
        }
        Cache { dir: Some(facts) }
    }

    fn path_for(&self, bytes: &[u8]) -> Option<PathBuf> {
        let dir = self.dir.as_ref()?;
        let digest = Sha256::digest(bytes);
        let hex: String = digest.iter().map(|b| format!("{b:02x}")).collect();
        Some(dir.join(&hex[..2]).join(&hex[2..]))
    }

    /// The facts of a file with these bytes, if cached and readable.
    pub fn get(&self, bytes: &[u8]) -> Option<FileFacts> {
        let data = std::fs::read(self.path_for(bytes)?).ok()?;
        postcard::from_bytes(&data).ok()
    }

    /// Remember the facts of a file with these bytes. Written to a temporary file and renamed, so
    /// a concurrent or interrupted run never leaves a torn entry.
    pub fn put(&self, bytes: &[u8], facts: &FileFacts) {
        let Some(path) = self.path_for(bytes) else {
            return;
        };
        let Some(parent) = path.parent() else { return };
        if std::fs::create_dir_all(parent).is_err() {
            return;
        }
        let Ok(data) = postcard::to_stdvec(facts) else {
            return;
        };
        let tmp = path.with_extension(format!("tmp{}", std::process::id()));
        if std::fs::write(&tmp, data).is_ok() && std::fs::rename(&tmp, &path).is_err() {
            let _ = std::fs::remove_file(&tmp);
        }
    }
}
