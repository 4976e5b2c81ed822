//! Per-file facts cached by content, like Ruff's cache: a file whose bytes are unchanged (for the
//! same retrylint version and facts format) is not parsed again. Only the lowered form of each
//! file is cached; the analysis of the whole project runs on every check, so an edit in one file
//! changes findings in the files that depend on it.

use crate::syntax::ir::FileFacts;
use sha2::{Digest, Sha256};
use std::path::{Path, PathBuf};

/// Bump when the lowered form (`syntax::ir`) or the lowering changes meaning.
const FACTS_FORMAT: u32 = 2;

/// The cache directory's name under the project root.
pub const DIR_NAME: &str = ".retrylint_cache";

pub struct Cache {
    dir: Option<PathBuf>,
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
