//! Per-file facts cached by content, like Ruff's cache: a file whose bytes are unchanged (for the
//! same retrylint version and facts format) is not parsed again. Only the lowered form of each
//! file is cached; the analysis of the whole project runs on every check, so an edit in one file
//! changes findings in the files that depend on it.
//!
//! The cache lives in the project (`.retrylint_cache`, which ignores itself in git), but the
//! checkout is untrusted: every entry is sealed with this machine's key ([`crate::cache_auth`]),
//! so entries that come with a checkout are ignored; files are read without following links,
//! with a size cap, and written under unpredictable names, then renamed into place.

use crate::cache_auth::Key;
use crate::facts_pack::{self, Pack};
use crate::java::ir::FileFacts;
use crate::safe_fs;
use crate::scope::Scan;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

/// Bump when the lowered form (`syntax::ir`) or the lowering changes meaning.
pub const FACTS_FORMAT: u32 = 18;

/// The cache directory's name under the project root.
pub const DIR_NAME: &str = ".retrylint_cache";

/// An entry larger than this is not read (a facts entry is a compact form of one source file,
/// itself at most `--max-file-size`).
const MAX_ENTRY_BYTES: u64 = 256 << 20;

/// The content hash of each file read so far, by its path as shown.
pub type Digests<'a> = std::sync::MutexGuard<'a, HashMap<String, [u8; 32]>>;

pub struct Cache {
    dir: Option<PathBuf>,
    key: Option<Key>,
    /// The content hash of each file read through [`Cache::fetch`], by its path as shown.
    digests: std::sync::Mutex<HashMap<String, [u8; 32]>>,
    /// The facts of the last run that wrote them, in one file (see [`facts_pack`]): `None`
    /// until first asked, then whether there is one.
    pack: std::sync::Mutex<Option<Option<std::sync::Arc<Pack>>>>,
    /// Entries taken from the pack, and taken or made outside it, this run.
    from_pack: AtomicUsize,
    outside: AtomicUsize,
    /// The entries taken from outside the pack when it was last written by this run.
    written_at: AtomicUsize,
}

/// The byte scans of files (see [`crate::scope`]) by path, valid while the file's size and
/// modification time are unchanged — so a run reads only the files that changed, as Ruff's
/// cache does. Stored in one file per catalogue of effect words.
pub struct ScanCache {
    path: Option<PathBuf>,
    key: Option<Key>,
    /// When the cache file was saved (ns since the epoch).
    saved: u128,
    entries: HashMap<String, ScanEntry>,
}

#[derive(Serialize, Deserialize)]
pub struct ScanEntry {
    pub stamp: Stamp,
    pub scan: Scan,
    /// The content hash of the bytes scanned: the name of the file's facts in the facts cache,
    /// so that a file whose stamp is unchanged is not read again to find them.
    pub digest: [u8; 32],
}

/// The content hash under which a file with these bytes has its facts cached.
pub fn content_digest(bytes: &[u8]) -> [u8; 32] {
    Sha256::digest(bytes).into()
}

/// Bump when [`ScanEntry`] changes shape, or what a scan finds in the same bytes.
const SCANS_FORMAT: u32 = 3;

#[derive(Serialize, Deserialize, Default)]
struct ScanFile {
    saved: u128,
    entries: HashMap<String, ScanEntry>,
}

/// What identifies a version of a file without reading it, as git's index does: size,
/// modification time, and on Unix the inode and the status-change time. A source archive gives
/// every file the commit's time as its modification time, but the status-change time is set by
/// the system when the file is written and cannot be chosen by the archive.
#[derive(Serialize, Deserialize, Clone, Copy, PartialEq, Eq, Debug)]
pub struct Stamp {
    pub modified: u128,
    pub changed: u128,
    pub size: u64,
    pub inode: u64,
}

/// A file changed within this long before the cache was saved may have changed again within the
/// same tick of a coarse clock (git's "racily clean" entries): its scan is not trusted.
const RACY_NS: u128 = 2_000_000_000;

/// The stamp of a file's metadata.
pub fn stamp(m: &std::fs::Metadata) -> Option<Stamp> {
    let t = m
        .modified()
        .ok()?
        .duration_since(std::time::UNIX_EPOCH)
        .ok()?;
    #[cfg(unix)]
    let (changed, inode) = {
        use std::os::unix::fs::MetadataExt;
        let c = (m.ctime().max(0) as u128) * 1_000_000_000 + m.ctime_nsec().max(0) as u128;
        (c, m.ino())
    };
    #[cfg(not(unix))]
    let (changed, inode) = (t.as_nanos(), 0);
    Some(Stamp {
        modified: t.as_nanos(),
        changed,
        size: m.len(),
        inode,
    })
}

fn now_ns() -> u128 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos())
}

/// The cache directory under `root` and `sub` in it, created without following links; `None`
/// when `.retrylint_cache` (or anything below it) is a link or not a directory. Its
/// `.gitignore` is written when no file or link of that name is there.
fn cache_subdir(root: &Path, sub: &str) -> Option<PathBuf> {
    let dir = root.join(DIR_NAME);
    let target = dir.join(sub);
    safe_fs::create_dirs_below(root, &target).ok()?;
    let ignore = dir.join(".gitignore");
    if std::fs::symlink_metadata(&ignore).is_err() {
        let _ = safe_fs::write_atomic(&ignore, b"# Created by retrylint.\n*\n");
    }
    Some(target)
}

impl ScanCache {
    pub fn disabled() -> ScanCache {
        ScanCache {
            path: None,
            key: None,
            saved: 0,
            entries: HashMap::new(),
        }
    }

    /// The scans under `root`'s cache directory made with the effect words `fingerprint`.
    pub fn open(root: &Path, fingerprint: &str) -> ScanCache {
        let Some(key) = Key::load_or_create() else {
            return ScanCache::disabled();
        };
        ScanCache::open_with(root, fingerprint, key)
    }

    pub fn open_with(root: &Path, fingerprint: &str, key: Key) -> ScanCache {
        let name = format!(
            "scans-v{}-{}.{}-{fingerprint}",
            env!("CARGO_PKG_VERSION"),
            FACTS_FORMAT,
            SCANS_FORMAT
        );
        let Some(dir) = cache_subdir(root, "") else {
            return ScanCache::disabled();
        };
        let path = dir.join(&name);
        let file: ScanFile = safe_fs::read_regular(&path, MAX_ENTRY_BYTES)
            .ok()
            .and_then(|b| decode(key.open(&name, &b)?))
            .unwrap_or_default();
        ScanCache {
            path: Some(path),
            key: Some(key),
            saved: file.saved,
            entries: file.entries,
        }
    }

    /// The cached scan of `shown` and the content hash of the bytes it was made from, if its
    /// stamp is unchanged and was not racy when saved.
    pub fn get(&self, shown: &str, stamp: Option<Stamp>) -> Option<(&Scan, [u8; 32])> {
        let stamp = stamp?;
        let settled = |t: u128| t.saturating_add(RACY_NS) < self.saved;
        self.entries
            .get(shown)
            .filter(|e| e.stamp == stamp && settled(stamp.modified) && settled(stamp.changed))
            .map(|e| (&e.scan, e.digest))
    }

    /// Is the cache on (are scans kept for the next run)?
    pub fn enabled(&self) -> bool {
        self.path.is_some()
    }

    /// Keep exactly these entries (the files of this run); written only if they changed.
    pub fn save(&mut self, entries: HashMap<String, ScanEntry>, changed: bool) {
        let (Some(path), Some(key)) = (&self.path, &self.key) else {
            return;
        };
        let saved = now_ns();
        let racy = |e: &ScanEntry| {
            e.stamp
                .modified
                .max(e.stamp.changed)
                .saturating_add(RACY_NS)
                >= saved
        };
        // Entries that will not be trusted next time do not need saving again.
        if !changed && entries.len() == self.entries.len() && !entries.values().any(racy) {
            return;
        }
        let file = ScanFile { saved, entries };
        let Ok(data) = postcard::to_stdvec(&file) else {
            return;
        };
        let name = path.file_name().map(|n| n.to_string_lossy().into_owned());
        let _ = safe_fs::write_atomic(path, &key.seal(&name.unwrap_or_default(), &data));
        self.saved = saved;
        self.entries = file.entries;
    }
}

impl Cache {
    pub fn disabled() -> Cache {
        Cache {
            dir: None,
            key: None,
            digests: Default::default(),
            pack: Default::default(),
            from_pack: AtomicUsize::new(0),
            outside: AtomicUsize::new(0),
            written_at: AtomicUsize::new(0),
        }
    }

    /// The cache under `root`, created (with a `.gitignore` that ignores it) when missing. A cache
    /// that cannot be created, or whose directory is a link, is silently off: it only ever saves
    /// time.
    pub fn open(root: &Path) -> Cache {
        match Key::load_or_create() {
            Some(key) => Cache::open_with(root, key),
            None => Cache::disabled(),
        }
    }

    pub fn open_with(root: &Path, key: Key) -> Cache {
        let facts = format!("facts-v{}-{}", env!("CARGO_PKG_VERSION"), FACTS_FORMAT);
        match cache_subdir(root, &facts) {
            Some(dir) => Cache {
                dir: Some(dir),
                key: Some(key),
                ..Cache::disabled()
            },
            None => Cache::disabled(),
        }
    }

    /// Is the cache on?
    pub fn enabled(&self) -> bool {
        self.dir.is_some() && self.key.is_some()
    }

    /// The cache directory (`.retrylint_cache`) and this machine's key, when on.
    pub fn root(&self) -> Option<(&Path, &Key)> {
        Some((self.dir.as_ref()?.parent()?, self.key.as_ref()?))
    }

    /// The content hashes of the files read so far through [`Cache::fetch`], by path as shown.
    pub fn digests(&self) -> Option<Digests<'_>> {
        self.digests.lock().ok()
    }

    /// The facts of the file `shown` with these bytes, if cached by this machine and readable;
    /// its content hash is remembered for the summary cache.
    pub fn fetch(&self, shown: &str, bytes: &[u8]) -> Option<FileFacts> {
        let digest = content_digest(bytes);
        let (name, path) = self.path_of(&digest)?;
        if let Ok(mut d) = self.digests.lock() {
            d.insert(shown.to_string(), digest);
        }
        if let Some(f) = self.pack_entry(&digest) {
            return Some(f);
        }
        let data = safe_fs::read_regular(&path, MAX_ENTRY_BYTES).ok()?;
        let facts = decode_facts(self.key.as_ref()?.open(&name, &data)?)?;
        self.outside.fetch_add(1, Ordering::Relaxed);
        Some(facts)
    }

    /// The pack, opened the first time it is asked for.
    fn pack(&self) -> Option<std::sync::Arc<Pack>> {
        let (dir, key) = (self.dir.as_ref()?, self.key.as_ref()?);
        let mut p = self.pack.lock().ok()?;
        p.get_or_insert_with(|| Pack::open(dir, key).map(std::sync::Arc::new))
            .clone()
    }

    /// The facts of content hash `digest` from the pack.
    fn pack_entry(&self, digest: &[u8; 32]) -> Option<FileFacts> {
        let pack = self.pack()?;
        let facts = pack.get(self.key.as_ref()?, digest, decode)?;
        self.from_pack.fetch_add(1, Ordering::Relaxed);
        Some(facts)
    }

    /// Write the pack again with the entries of this run, when at least one in
    /// [`facts_pack::REWRITE_SHARE`] came from outside it (or there is none): an edit of a few
    /// files leaves it as it was, and their entries are read from their own files.
    pub fn save_pack(&self) {
        let (Some(dir), Some(key)) = (self.dir.as_ref(), self.key.as_ref()) else {
            return;
        };
        let outside = self.outside.load(Ordering::Relaxed);
        let total = outside + self.from_pack.load(Ordering::Relaxed);
        if std::env::var_os("RETRYLINT_TIMINGS").is_some() {
            eprintln!(
                "retrylint: facts: {} of {total} files taken from the pack",
                total - outside
            );
        }
        if outside == self.written_at.load(Ordering::Relaxed) {
            return;
        }
        let old = self.pack();
        if old.is_some() && outside * facts_pack::REWRITE_SHARE < total {
            return;
        }
        let mut files: Vec<(String, [u8; 32])> = match self.digests.lock() {
            Ok(d) => d.iter().map(|(k, v)| (k.clone(), *v)).collect(),
            Err(_) => return,
        };
        files.sort_unstable();
        let mut seen = std::collections::HashSet::new();
        let digests: Vec<[u8; 32]> = files
            .into_iter()
            .map(|(_, d)| d)
            .filter(|d| seen.insert(*d))
            .collect();
        let loose = |d: &[u8; 32]| {
            let (name, path) = self.path_of(d)?;
            facts_pack::loose_payload(&path, &name, key)
        };
        let _ = facts_pack::write(dir, key, &digests, old.as_deref(), &loose);
        self.written_at.store(outside, Ordering::Relaxed);
    }

    /// The facts of the file `shown` whose content hash is `digest` (known from its unchanged
    /// stamp, see [`ScanCache::get`]), if cached by this machine and readable: the file itself
    /// is not read. Its content hash is remembered for the summary cache.
    pub fn fetch_known(&self, shown: &str, digest: &[u8; 32]) -> Option<FileFacts> {
        let facts = match self.pack_entry(digest) {
            Some(f) => f,
            None => {
                let (name, path) = self.path_of(digest)?;
                let data = safe_fs::read_regular(&path, MAX_ENTRY_BYTES).ok()?;
                let facts = decode_facts(self.key.as_ref()?.open(&name, &data)?)?;
                self.outside.fetch_add(1, Ordering::Relaxed);
                facts
            }
        };
        if let Ok(mut d) = self.digests.lock() {
            d.insert(shown.to_string(), *digest);
        }
        Some(facts)
    }

    /// The entry's name (its content hash) and path.
    fn path_for(&self, bytes: &[u8]) -> Option<(String, PathBuf)> {
        self.path_of(&content_digest(bytes))
    }

    /// The name and path of the entry of the content hash `digest`.
    fn path_of(&self, digest: &[u8; 32]) -> Option<(String, PathBuf)> {
        let dir = self.dir.as_ref()?;
        let hex: String = digest.iter().map(|b| format!("{b:02x}")).collect();
        let path = dir.join(&hex[..2]).join(&hex[2..]);
        Some((hex, path))
    }

    /// The facts of a file with these bytes, if cached by this machine and readable.
    pub fn get(&self, bytes: &[u8]) -> Option<FileFacts> {
        if let Some(f) = self.pack_entry(&content_digest(bytes)) {
            return Some(f);
        }
        let (name, path) = self.path_for(bytes)?;
        let data = safe_fs::read_regular(&path, MAX_ENTRY_BYTES).ok()?;
        decode_facts(self.key.as_ref()?.open(&name, &data)?)
    }

    /// Remember the facts of a file with these bytes, sealed under its content hash. Written to a
    /// fresh temporary file and renamed, so a concurrent or interrupted run never leaves a torn
    /// entry and a planted link is never written through.
    pub fn put(&self, bytes: &[u8], facts: &FileFacts) {
        let (Some((name, path)), Some(dir), Some(key)) =
            (self.path_for(bytes), &self.dir, &self.key)
        else {
            return;
        };
        let Some(parent) = path.parent() else { return };
        self.outside.fetch_add(1, Ordering::Relaxed);
        if safe_fs::create_dirs_below(dir, parent).is_err() {
            return;
        }
        let Some(data) = crate::java::name::encode_numbered(facts) else {
            return;
        };
        let _ = safe_fs::write_atomic(&path, &key.seal(&name, &data));
    }
}

/// Decode an authenticated payload. Only bytes this machine sealed reach here, and those were
/// encoded from facts whose nesting the lowering caps; the decoder's own nesting is capped by
/// [`crate::depth_limit`] all the same.
fn decode<T: serde::de::DeserializeOwned>(payload: &[u8]) -> Option<T> {
    crate::depth_limit::from_postcard(payload)
}

/// Decode a facts entry: its names' table, then the facts (see `name::encode_numbered`).
fn decode_facts(payload: &[u8]) -> Option<FileFacts> {
    crate::java::name::decode_numbered(payload, decode)
}
