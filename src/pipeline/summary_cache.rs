//! Method summaries and flows cached across runs, each kept with what its analysis read, as a
//! build system keeps a target with its inputs: a run after an edit analyses again the methods
//! whose inputs changed, and takes every other one from the cache.
//!
//! What an analysis reads, and how each input is checked:
//! - the run: the retrylint version and build, the summary format, the catalogue's extra rows
//!   and disabled rows (the built-in rows are part of the build), and the project as the
//!   analysis sees it: the parsed files in order, what each declares (without spans or method
//!   bodies, see [`crate::java::ir::declarations`]) and the build modules with their
//!   application settings. All of it makes the name of the cache file: any change there and
//!   no entry is found. Since the parsed files and their declarations are the same, so are the
//!   indices of files and methods: entries store them as they are.
//! - per method: the content hash of its own file and of every file whose method bodies its
//!   analysis read (recorded as the bodies are read), and the hash of every summary it read
//!   (recorded as it reads them). Summaries are made callees first, so the summaries a method
//!   read are final by the time it is looked up; one that is still to come makes the entry
//!   invalid. An entry is used only when every one is the same.
//!
//! A method whose analysis read a summary still to come, and the members of recursive cycles,
//! are not cached: they are analysed on every run.
//!
//! The walks of bodies before the summaries (the call graph's edges, the regions made by
//! calls, and the per-file scans of [`Scan`]) are kept in the same file the same way, by scan
//! and method (or file), with the content hash of every file whose bodies they read and of
//! every file their result is located in.
//!
//! The cache file is sealed with this machine's key like the facts cache, read with a size cap
//! without following links, and written whole to a fresh file that is renamed into place; it
//! holds exactly the entries of the last run with its key that wrote it (stale ones are
//! dropped). A run that analysed again fewer than one entry in [`REWRITE_SHARE`] does not
//! write it (a pre-commit run after a body edit: the next run analyses those again). At most
//! [`KEEP_FILES`] cache files are kept (a full run with the prefilter and the pre-commit run of
//! the same repository share one).

use crate::cache_auth::Key;
use crate::dataflow::{BodyFiles, MethodFlow, Read, Reuse, Summaries, Summary};
use crate::safe_fs;
use crate::semantic::{MethodId, Project};
use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

/// Bump when `Summary`, `MethodFlow`, a scan's value or what an entry records changes meaning.
const SUMMARY_FORMAT: u32 = 13;

/// A cache file larger than this is neither read nor written.
const MAX_FILE_BYTES: u64 = 1 << 30;

/// How many cache files (one per run key) are kept; the oldest go first.
pub const KEEP_FILES: usize = 4;

/// A run rewrites the cache file when at least one entry in this many is new (see
/// [`Round::save`]); below that, it leaves the file as the last run wrote it.
const REWRITE_SHARE: usize = 100;

/// The directory under the cache directory.
const SUBDIR: &str = "summaries";

/// The run's part of the key, and where the cache files are.
pub struct SummaryCache {
    dir: PathBuf,
    key: Key,
    run_key: [u8; 32],
}

/// One analysis of one project (the prefilter analyses several in turn): its entries from the
/// last run, and those of this one.
pub struct Round<'a> {
    cache: &'a SummaryCache,
    name: String,
    /// The content hash of each parsed file, by its index.
    files: Vec<Option<[u8; 32]>>,
    old: Mutex<HashMap<MethodId, Stored>>,
    new: Mutex<HashMap<MethodId, Stored>>,
    reused: AtomicUsize,
    kept: AtomicUsize,
    /// The results of the per-method scans before the summaries (see [`Scan`]), by scan and
    /// method: those of the last run, and those of this one.
    scans_old: Mutex<HashMap<(u8, MethodId), Stored>>,
    scans_new: Mutex<HashMap<(u8, MethodId), Stored>>,
    scans_reused: AtomicUsize,
    scans_run: AtomicUsize,
    /// The file of a method body by the body's address (the methods of each file are one
    /// vector, which the round outlives no change of).
    bodies: BodyFiles,
    /// How many entries the cache file held when it was read (0: no file).
    read_entries: usize,
}

/// The scans of one method that the analysis runs before the summaries, each cached like a
/// summary: with the content hash of its own file and of every file whose method bodies it
/// read. They read the declarations of the project (the run's key) and bodies, nothing else.
#[derive(Clone, Copy)]
pub enum Scan {
    /// The call graph's edges out of a method.
    Callees = 0,
    /// The regions and registrations a method's calls make, and its calls that send through
    /// a client instance.
    CallRegions = 1,
    /// The calls of one file's methods that the search for stored functions starts from
    /// (keyed by the file, as method `u32::MAX`).
    FunctionCalls = 2,
    /// The methods of one file that may hold a region made by a call or a loop (keyed by the
    /// file, as method `u32::MAX`).
    Candidates = 3,
    /// The calls and method references of one file's methods by name, which the liveness of
    /// annotation regions reads (keyed by the file, as method `u32::MAX`).
    NamedCalls = 4,
    /// The regions of lambdas typed as a framework type in one file, for one implementation
    /// row (keyed as method `(file, row)`). Cached only when every method is looked at.
    LambdaRegions = 5,
    /// Whether an annotated method's body never fails (the liveness of a retry on failure).
    NeverFails = 6,
}

/// What a cache file holds: the summaries and flows, and the scans.
#[derive(Serialize, Default)]
struct Entries {
    summaries: HashMap<MethodId, Stored>,
    scans: HashMap<(u8, MethodId), Stored>,
}

/// [`Entries`] as read: each entry's two parts borrowed from the file's bytes (a map is
/// encoded as its number of entries and then each key and value, as a sequence of pairs is).
#[derive(Deserialize)]
struct EntriesRead<'a> {
    #[serde(borrow)]
    summaries: Vec<(MethodId, StoredRead<'a>)>,
    #[serde(borrow)]
    scans: Vec<((u8, MethodId), StoredRead<'a>)>,
}

#[derive(Deserialize)]
struct StoredRead<'a> {
    deps: &'a [u8],
    value: &'a [u8],
}

/// An entry as stored: what the analysis read, and what it gave, encoded apart so that an
/// entry found invalid is never decoded further. Both parts are ranges of one buffer: the
/// cache file as read (shared by all its entries, so reading the file makes no copy of each),
/// or the entry's own.
struct Stored {
    data: Arc<Vec<u8>>,
    deps: std::ops::Range<usize>,
    value: std::ops::Range<usize>,
}

impl Stored {
    fn new(deps: Vec<u8>, mut value: Vec<u8>) -> Stored {
        let n = deps.len();
        let mut data = deps;
        data.append(&mut value);
        let len = data.len();
        Stored {
            data: Arc::new(data),
            deps: 0..n,
            value: n..len,
        }
    }

    /// The entry read at `read` from `data`, where `read` borrows from.
    fn within(data: &Arc<Vec<u8>>, read: &StoredRead) -> Stored {
        let base = data.as_ptr() as usize;
        let range = |b: &[u8]| {
            let start = b.as_ptr() as usize - base;
            start..start + b.len()
        };
        Stored {
            data: Arc::clone(data),
            deps: range(read.deps),
            value: range(read.value),
        }
    }

    fn deps(&self) -> &[u8] {
        &self.data[self.deps.clone()]
    }

    fn value(&self) -> &[u8] {
        &self.data[self.value.clone()]
    }
}

/// As [`StoredRead`] reads it: the two parts as bytes.
impl Serialize for Stored {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        struct Bytes<'a>(&'a [u8]);
        impl Serialize for Bytes<'_> {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.serialize_bytes(self.0)
            }
        }
        let mut st = s.serialize_struct("Stored", 2)?;
        st.serialize_field("deps", &Bytes(self.deps()))?;
        st.serialize_field("value", &Bytes(self.value()))?;
        st.end()
    }
}

#[derive(Serialize, Deserialize)]
struct Deps {
    files: Vec<(u32, [u8; 32])>,
    summaries: Vec<(MethodId, [u8; 16])>,
}

/// The hash a summary is checked by.
fn summary_hash(s: &Summary) -> [u8; 16] {
    let bytes = postcard::to_stdvec(s).unwrap_or_default();
    let d = Sha256::digest(&bytes);
    let mut out = [0u8; 16];
    out.copy_from_slice(&d[..16]);
    out
}

/// What identifies this build of retrylint: its version, and the size and modification time
/// of its executable (a rebuild with a changed analysis and the same version is another
/// build). `RETRYLINT_TEST_TOOL_VERSION` stands for a new version in tests.
pub(super) fn build_id() -> Vec<u8> {
    let mut out = format!(
        "{} {SUMMARY_FORMAT} {}",
        env!("CARGO_PKG_VERSION"),
        crate::cache::FACTS_FORMAT
    )
    .into_bytes();
    if let Some((len, modified)) = std::env::current_exe()
        .ok()
        .and_then(|p| std::fs::metadata(p).ok())
        .and_then(|m| Some((m.len(), m.modified().ok()?)))
    {
        let t = modified
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos());
        out.extend_from_slice(format!(" {len} {t}").as_bytes());
    }
    if let Some(v) = std::env::var_os("RETRYLINT_TEST_TOOL_VERSION") {
        out.extend_from_slice(b" test ");
        out.extend_from_slice(v.to_string_lossy().as_bytes());
    }
    out
}

fn update_part(h: &mut Sha256, part: &[u8]) {
    h.update((part.len() as u64).to_le_bytes());
    h.update(part);
}

impl SummaryCache {
    /// The cache under the cache directory `dir` (`.retrylint_cache`), for a run whose
    /// catalogue was made from `catalogue` (its extra rows and disabled rows, as text).
    /// `None` when it cannot be created.
    pub fn open(dir: &Path, key: Key, catalogue: &[u8]) -> Option<SummaryCache> {
        let sub = dir.join(SUBDIR);
        safe_fs::create_dirs_below(dir, &sub).ok()?;
        let mut h = Sha256::new();
        update_part(&mut h, b"retrylint summaries");
        update_part(&mut h, &build_id());
        update_part(&mut h, catalogue);
        Some(SummaryCache {
            dir: sub,
            key,
            run_key: h.finalize().into(),
        })
    }

    /// The round for `project`, whose files have the content hashes `digests` (by path): the
    /// entries of the last run with the same key, read.
    pub fn round(&self, project: &Project, digests: &HashMap<String, [u8; 32]>) -> Round<'_> {
        let declared: Vec<[u8; 32]> = project
            .files
            .par_iter()
            .map(|f| f.facts.declarations_digest())
            .collect();
        let mut h = Sha256::new();
        update_part(&mut h, &self.run_key);
        update_part(&mut h, format!("{:?}", project.modules()).as_bytes());
        update_part(&mut h, format!("{:?}", project.tree_words()).as_bytes());
        for (f, d) in project.files.iter().zip(&declared) {
            update_part(&mut h, f.path.as_bytes());
            update_part(&mut h, d);
        }
        let name: String = h.finalize()[..16]
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect();
        // The entries borrow the file's bytes: no entry is copied out of it. (Flat: a sequence
        // of method ids and byte strings, so no nesting to cap.)
        let data = safe_fs::read_regular(&self.dir.join(&name), MAX_FILE_BYTES)
            .ok()
            .map(Arc::new);
        let old: Entries = data
            .as_ref()
            .and_then(|b| {
                let read: EntriesRead = postcard::from_bytes(self.key.open(&name, b)?).ok()?;
                let stored = |r: &StoredRead| Stored::within(b, r);
                Some(Entries {
                    summaries: (read.summaries.iter())
                        .map(|(k, r)| (*k, stored(r)))
                        .collect(),
                    scans: read.scans.iter().map(|(k, r)| (*k, stored(r))).collect(),
                })
            })
            .unwrap_or_default();
        let bodies = BodyFiles::new(project);
        let read_entries = old.summaries.len() + old.scans.len();
        Round {
            read_entries,
            cache: self,
            name,
            files: project
                .files
                .iter()
                .map(|f| digests.get(&f.path).copied())
                .collect(),
            old: Mutex::new(old.summaries),
            new: Mutex::new(HashMap::new()),
            reused: AtomicUsize::new(0),
            kept: AtomicUsize::new(0),
            scans_old: Mutex::new(old.scans),
            scans_new: Mutex::new(HashMap::new()),
            scans_reused: AtomicUsize::new(0),
            scans_run: AtomicUsize::new(0),
            bodies,
        }
    }
}

impl Round<'_> {
    /// How many methods were taken from the cache, and how many analysed and kept.
    pub fn counts(&self) -> (usize, usize) {
        (
            self.reused.load(Ordering::Relaxed),
            self.kept.load(Ordering::Relaxed),
        )
    }

    /// How many scans were taken from the cache, and how many ran.
    pub fn scan_counts(&self) -> (usize, usize) {
        (
            self.scans_reused.load(Ordering::Relaxed),
            self.scans_run.load(Ordering::Relaxed),
        )
    }

    /// The file whose methods hold the body at `addr`.
    fn file_of(&self, addr: usize) -> Option<u32> {
        self.bodies.file_of(addr)
    }

    /// [`Round::scan`] of a value that holds no span and is stored as it is.
    pub fn scan_plain<T: Clone + Serialize + serde::de::DeserializeOwned>(
        &self,
        scan: Scan,
        id: MethodId,
        f: impl FnOnce() -> T,
    ) -> T {
        self.scan(scan, id, f, |_| Vec::new(), |v| Some(v.clone()), |v| v)
    }

    /// Scan `scan` of method `id`: as the last run gave it when every file it read is the
    /// same, else run by `f` and kept with the files it read and the files `located` names
    /// (those whose spans the value holds: an edit above a declaration moves it). `encode` and
    /// `decode` give the stored form (`encode` gives `None` for a value that is not kept).
    pub fn scan<T, S: Serialize + serde::de::DeserializeOwned>(
        &self,
        scan: Scan,
        id: MethodId,
        f: impl FnOnce() -> T,
        located: impl FnOnce(&T) -> Vec<u32>,
        encode: impl FnOnce(&T) -> Option<S>,
        decode: impl FnOnce(S) -> T,
    ) -> T {
        let k = (scan as u8, id);
        let stored = self.scans_old.lock().ok().and_then(|mut o| o.remove(&k));
        if let Some(stored) = stored
            && let Some(deps) =
                crate::depth_limit::from_postcard::<Vec<(u32, [u8; 32])>>(stored.deps())
            && deps.iter().all(|(f, d)| self.digest(*f) == Some(*d))
            && let Some(value) = crate::depth_limit::from_postcard::<S>(stored.value())
        {
            if let Ok(mut new) = self.scans_new.lock() {
                new.insert(k, stored);
            }
            self.scans_reused.fetch_add(1, Ordering::Relaxed);
            return decode(value);
        }
        self.scans_run.fetch_add(1, Ordering::Relaxed);
        let (out, addrs) = crate::java::ir::reading_bodies(f);
        // A body read that is in no file's methods (a copy), or a file without a content
        // hash, cannot be checked later: such a scan is not kept.
        let files: Option<Vec<u32>> = addrs
            .iter()
            .map(|a| self.file_of(*a))
            .chain((id.0 != u32::MAX).then_some(Some(id.0)))
            .chain(located(&out).into_iter().map(Some))
            .collect();
        let Some(mut files) = files else { return out };
        files.sort_unstable();
        files.dedup();
        let deps: Option<Vec<(u32, [u8; 32])>> =
            files.iter().map(|f| Some((*f, self.digest(*f)?))).collect();
        if let (Some(deps), Some(value)) = (deps, encode(&out))
            && let (Ok(deps), Ok(value)) = (postcard::to_stdvec(&deps), postcard::to_stdvec(&value))
            && let Ok(mut new) = self.scans_new.lock()
        {
            new.insert(k, Stored::new(deps, value));
        }
        out
    }

    fn digest(&self, file: u32) -> Option<[u8; 32]> {
        self.files.get(file as usize).copied().flatten()
    }

    fn valid(&self, deps: &Deps, sums: &Summaries) -> bool {
        deps.files.iter().all(|(f, d)| self.digest(*f) == Some(*d))
            && deps
                .summaries
                .iter()
                .all(|(m, h)| !sums.pending(*m) && summary_hash(sums.of(*m)) == *h)
    }

    /// Write the entries of this round (when they differ from what was read), and remove the
    /// oldest cache files beyond [`KEEP_FILES`].
    pub fn save(self) {
        let old = self.old.into_inner().unwrap_or_else(|e| e.into_inner());
        let new = self.new.into_inner().unwrap_or_else(|e| e.into_inner());
        let scans_old = self
            .scans_old
            .into_inner()
            .unwrap_or_else(|e| e.into_inner());
        let scans = self
            .scans_new
            .into_inner()
            .unwrap_or_else(|e| e.into_inner());
        let changed = self.kept.load(Ordering::Relaxed) + self.scans_run.load(Ordering::Relaxed);
        if old.is_empty() && scans_old.is_empty() && changed == 0 {
            return;
        }
        // A run that changed few entries leaves the file as it was: what it analysed again
        // is analysed again by the next run too (an entry is checked by the hashes of what it
        // read, so a stale one is never used), which costs less than writing the whole file.
        // Once the entries to redo reach [`REWRITE_SHARE`] of the file, it is written.
        let total = new.len() + scans.len();
        if self.read_entries > 0 && changed * REWRITE_SHARE < total {
            return;
        }
        // The entries of the last run that this one did not take are dropped before the new
        // ones are written, and those are encoded straight into the file as it is sealed: the
        // file's contents are never held whole beside the entries.
        drop((old, scans_old));
        let entries = Entries {
            summaries: new,
            scans,
        };
        // The size first (the seal's tag covers it before the payload): an encoding that
        // only counts.
        struct Count(usize);
        impl std::io::Write for Count {
            fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
                self.0 += buf.len();
                Ok(buf.len())
            }
            fn flush(&mut self) -> std::io::Result<()> {
                Ok(())
            }
        }
        let Ok(Count(len)) = postcard::to_io(&entries, Count(0)) else {
            return;
        };
        if len as u64 > MAX_FILE_BYTES {
            return;
        }
        let path = self.cache.dir.join(&self.name);
        let _ = safe_fs::write_atomic_with(&path, |f| {
            self.cache.key.seal_into(&self.name, len, f, |w| {
                postcard::to_io(&entries, w)
                    .map(|_| ())
                    .map_err(std::io::Error::other)
            })
        });
        prune(&self.cache.dir, &self.name);
    }
}

/// Remove the cache files in `dir` beyond the [`KEEP_FILES`] most recently written (`keep`
/// stays whatever its time).
fn prune(dir: &Path, keep: &str) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut files: Vec<(std::time::SystemTime, PathBuf)> = entries
        .flatten()
        .filter(|e| e.file_name() != keep)
        .filter_map(|e| {
            let m = e.metadata().ok()?;
            Some((m.modified().ok()?, e.path()))
        })
        .collect();
    if files.len() < KEEP_FILES {
        return;
    }
    files.sort();
    let extra = files.len() + 1 - KEEP_FILES;
    for (_, p) in files.into_iter().take(extra) {
        let _ = std::fs::remove_file(p);
    }
}

impl Reuse for Round<'_> {
    fn reuse(&self, id: MethodId, sums: &Summaries) -> Option<(Summary, MethodFlow)> {
        let stored = self.old.lock().ok()?.remove(&id)?;
        let deps: Deps = crate::depth_limit::from_postcard(stored.deps())?;
        if !self.valid(&deps, sums) {
            return None;
        }
        let (summary, flow): (Summary, MethodFlow) =
            crate::depth_limit::from_postcard(stored.value())?;
        self.new.lock().ok()?.insert(id, stored);
        self.reused.fetch_add(1, Ordering::Relaxed);
        Some((summary, flow))
    }

    fn keep(
        &self,
        id: MethodId,
        summary: &Summary,
        flow: &MethodFlow,
        read: Read,
        sums: &Summaries,
    ) {
        let files: Option<Vec<(u32, [u8; 32])>> = read
            .files
            .iter()
            .map(|f| Some((*f, self.digest(*f)?)))
            .collect();
        // A file without a content hash (not read through the cache) cannot be checked.
        let Some(files) = files else { return };
        let deps = Deps {
            files,
            summaries: read
                .summaries
                .iter()
                .map(|m| (*m, summary_hash(sums.of(*m))))
                .collect(),
        };
        let (Ok(deps), Ok(value)) = (
            postcard::to_stdvec(&deps),
            postcard::to_stdvec(&(summary, flow)),
        ) else {
            return;
        };
        if let Ok(mut new) = self.new.lock() {
            new.insert(id, Stored::new(deps, value));
            self.kept.fetch_add(1, Ordering::Relaxed);
        }
    }
}
