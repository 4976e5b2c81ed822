//! The prefilter's backward round remembered when it gave up: on a project where most files
//! may matter (waqitiapp: 1,040 files with an effect word name what 10,644 more hold), every
//! run parsed the files with an effect word, took the tokens of each of their methods and
//! grew the names that lead to one, only to parse every file anyway. A run whose inputs to
//! that round are the same gives up at once.
//!
//! The round gives up when the files with an effect word (`E`), once parsed, name what more
//! untried files hold than the share allows. What decides it: the files of the run in order,
//! the share, the catalogue's effect words and the build (all in the check), the content of
//! the files of `E` (their stamps, trusted as the scan cache trusts them, and their byte
//! scans after shadowing), and which other files the names found match — by their byte scans
//! alone. A file outside `E` whose scan changed may match one name fewer: the round is known
//! to give up again while the files it wanted, less the files whose scan changed, still exceed
//! the share. Otherwise the round runs and is remembered again.
//!
//! Giving up parses every file and analyses them as `--no-prefilter` does; the prefilter only
//! ever chooses what to parse, so this saves the round's time and changes nothing else.

use crate::cache::Stamp;
use crate::cache_auth::Key;
use crate::safe_fs;
use crate::scope::Scan;
use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use std::hash::{Hash, Hasher};
use std::path::PathBuf;

/// A file larger than this is not read.
const MAX_FILE_BYTES: u64 = 64 << 20;

/// A file changed within this long before the record was saved may have changed again within
/// the same tick of a coarse clock: its stamp is not trusted (as the scan cache does).
const RACY_NS: u128 = 2_000_000_000;

/// How many of the files with an effect word may have changed, or gained or lost it, since the record
/// for the round to give up again without running: one in a hundred, at least one.
fn max_drift(effect: usize) -> usize {
    (effect / 100).max(1)
}

/// Where the record is kept, and what the run's check is.
pub(super) struct Memory {
    path: PathBuf,
    name: String,
    key: Key,
    check: [u8; 32],
    last: Option<GaveUp>,
}

/// The backward round that gave up after parsing the files with an effect word.
#[derive(Serialize, Deserialize)]
struct GaveUp {
    /// When it was saved (ns since the epoch).
    saved: u128,
    /// The run's files, share, effect words and build.
    check: [u8; 32],
    /// The files with an effect word, by index.
    effect: Vec<u32>,
    /// Their stamps.
    stamps: Vec<Stamp>,
    /// The hash of every file's byte scan (0: not read).
    scans: Vec<u64>,
    /// How many files were parsed, and how many more their names wanted.
    parsed: usize,
    wanted: usize,
}

/// A file of the run as the round sees it: its path as shown, stamp and scan.
pub(super) type Seen<'a> = Option<(&'a str, Option<Stamp>, &'a Scan)>;

fn scan_hash(s: &Scan) -> u64 {
    let mut h = std::collections::hash_map::DefaultHasher::new();
    postcard::to_stdvec(s).unwrap_or_default().hash(&mut h);
    // 0 stands for a file not read.
    h.finish().max(1)
}

fn now_ns() -> u128 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos())
}

impl Memory {
    /// The record for a run on `files` with this share and catalogue fingerprint, in the cache
    /// directory `dir`; read when there is one.
    pub(super) fn open(
        dir: &std::path::Path,
        key: &Key,
        fingerprint: &str,
        share: f64,
        files: &[Seen],
    ) -> Option<Memory> {
        let mut h = Sha256::new();
        h.update(super::summary_cache::build_id());
        h.update(format!("\n{fingerprint}\n{share}\n{}\n", files.len()));
        for f in files {
            h.update(f.map_or("", |f| f.0).as_bytes());
            h.update([0]);
        }
        let check: [u8; 32] = h.finalize().into();
        let name = format!(
            "prefilter-v{}-{}-{fingerprint}",
            env!("CARGO_PKG_VERSION"),
            crate::cache::FACTS_FORMAT
        );
        if !safe_fs::is_real_dir(dir) {
            return None;
        }
        let path = dir.join(&name);
        let last = safe_fs::read_regular(&path, MAX_FILE_BYTES)
            .ok()
            .and_then(|b| postcard::from_bytes::<GaveUp>(key.open(&name, &b)?).ok())
            .filter(|g| g.check == check && g.scans.len() == files.len());
        Some(Memory {
            path,
            name,
            key: key.clone(),
            check,
            last,
        })
    }

    /// Does the round give up again, with the files with an effect word `effect` (sorted) and
    /// the share `limit`? The files with an effect word may differ from the record's in a few
    /// (`drift`): an edit of one of them, as every pre-commit run after an edit of a payment
    /// file brings, may name fewer files than before, but a round that wanted more than the
    /// share allows has rarely a reason to want fewer than it, and giving up changes no
    /// finding. Past that many the round runs again and is recorded anew.
    pub(super) fn gives_up(&self, files: &[Seen], effect: &[usize], limit: usize) -> bool {
        let Some(g) = &self.last else { return false };
        let settled = |t: u128| t.saturating_add(RACY_NS) < g.saved;
        let old: std::collections::HashMap<usize, &Stamp> = g
            .effect
            .iter()
            .zip(&g.stamps)
            .map(|(i, s)| (*i as usize, s))
            .collect();
        let now: std::collections::HashSet<usize> = effect.iter().copied().collect();
        let same = |i: usize, old: &Stamp| {
            files[i].is_some_and(|(_, stamp, scan)| {
                stamp == Some(*old)
                    && settled(old.modified)
                    && settled(old.changed)
                    && scan_hash(scan) == g.scans[i]
            })
        };
        let gone = old.keys().filter(|i| !now.contains(i)).count();
        let drift = gone
            + effect
                .iter()
                .filter(|i| old.get(i).is_none_or(|s| !same(**i, s)))
                .count();
        if drift > max_drift(g.effect.len()) {
            return false;
        }
        let changed = files
            .par_iter()
            .zip(&g.scans)
            .filter(|(f, old)| f.map_or(0, |f| scan_hash(f.2)) != **old)
            .count();
        g.parsed + g.wanted.saturating_sub(changed) > limit
    }

    /// Remember that the round gave up with `parsed` files parsed (those of `effect`) and
    /// `wanted` more.
    pub(super) fn save(&self, files: &[Seen], effect: &[usize], parsed: usize, wanted: usize) {
        let Some(stamps) = effect
            .iter()
            .map(|i| files[*i].and_then(|f| f.1))
            .collect::<Option<Vec<Stamp>>>()
        else {
            return;
        };
        let g = GaveUp {
            saved: now_ns(),
            check: self.check,
            effect: effect.iter().map(|i| *i as u32).collect(),
            stamps,
            scans: files
                .par_iter()
                .map(|f| f.map_or(0, |f| scan_hash(f.2)))
                .collect(),
            parsed,
            wanted,
        };
        if let Ok(data) = postcard::to_stdvec(&g) {
            let _ = safe_fs::write_atomic(&self.path, &self.key.seal(&self.name, &data));
        }
    }
}
