//! The facts of a whole project in one file (`pack` in the facts directory), beside the entries
//! of one file each.
//!
//! A warm run takes the facts of every file of the project from the cache. As one entry per
//! file, that was an open, a status call and a read per file, and each entry's names interned
//! again (a project's files name the same types and annotations): a fifth of a pre-commit run's
//! CPU time on a 12,000-file project. The pack holds the entries of one run under one table of
//! names, with an index of where each entry lies: a run reads the index and the names once and
//! each entry with one positioned read of the open file.
//!
//! Layout: a header (magic, a random id), the entries, the index (sealed), then the index's
//! offset and length. Every part is sealed with this machine's key under a name that holds the
//! pack's id — an entry also under its content hash — so an entry cannot be moved to another
//! pack or another hash, and a pack that comes with a checkout is refused like any entry. An
//! entry's names are numbers into the pack's table.
//!
//! The pack is written again when a run took at least one entry in [`REWRITE_SHARE`] from
//! outside it (edited or new files), with exactly the entries of that run; until then those
//! come from the entries of one file each, which are still written.

use crate::cache_auth::Key;
use crate::java::name::Name;
use crate::safe_fs;
use std::collections::HashMap;
use std::io::Write;
use std::path::Path;

const MAGIC: &[u8; 8] = b"RLFPACK1";
const ID: usize = 16;
const HEADER: u64 = (MAGIC.len() + ID) as u64;
/// The pack's file name in the facts directory.
pub const FILE: &str = "pack";
/// A pack larger than this is not read.
const MAX_PACK_BYTES: u64 = 4 << 30;
/// The index (hashes, offsets and the names) larger than this is not read.
const MAX_INDEX_BYTES: u64 = 256 << 20;
/// An entry larger than this is not read (as a file's own entry).
const MAX_ENTRY_BYTES: u64 = 256 << 20;
/// The pack is written again when the entries taken from outside it reach one in this many.
pub const REWRITE_SHARE: usize = 100;

/// A pack opened for reading: its index and names in memory, its entries on disk.
pub struct Pack {
    file: std::fs::File,
    id: String,
    names: Vec<Name>,
    /// Where each entry lies, by content hash.
    at: HashMap<[u8; 32], (u64, u32)>,
}

#[derive(serde::Serialize, serde::Deserialize)]
struct Index<'a> {
    entries: Vec<([u8; 32], u64, u32)>,
    #[serde(borrow)]
    names: Vec<&'a str>,
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn entry_seal(id: &str, digest: &[u8; 32]) -> String {
    format!("facts-pack/{id}/{}", hex(digest))
}

fn index_seal(id: &str) -> String {
    format!("facts-pack/{id}/index")
}

fn read_at(file: &std::fs::File, offset: u64, len: u64) -> Option<Vec<u8>> {
    let mut out = vec![0u8; usize::try_from(len).ok()?];
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileExt;
        file.read_exact_at(&mut out, offset).ok()?;
    }
    #[cfg(not(unix))]
    {
        use std::io::{Read, Seek, SeekFrom};
        let mut f = file;
        f.seek(SeekFrom::Start(offset)).ok()?;
        f.read_exact(&mut out).ok()?;
    }
    Some(out)
}

impl Pack {
    /// The pack in `dir`, if there is one this machine sealed and it reads whole.
    pub fn open(dir: &Path, key: &Key) -> Option<Pack> {
        let file = safe_fs::open_nofollow(&dir.join(FILE)).ok()?;
        let m = file.metadata().ok()?;
        let size = m.len();
        if !m.is_file() || !(HEADER + 16..=MAX_PACK_BYTES).contains(&size) {
            return None;
        }
        let header = read_at(&file, 0, HEADER)?;
        if &header[..MAGIC.len()] != MAGIC {
            return None;
        }
        let id = hex(&header[MAGIC.len()..]);
        let trailer = read_at(&file, size - 16, 16)?;
        let offset = u64::from_le_bytes(trailer[..8].try_into().ok()?);
        let len = u64::from_le_bytes(trailer[8..].try_into().ok()?);
        if len > MAX_INDEX_BYTES || offset < HEADER || offset.checked_add(len)? != size - 16 {
            return None;
        }
        let sealed = read_at(&file, offset, len)?;
        let payload = key.open(&index_seal(&id), &sealed)?;
        let index: Index = postcard::from_bytes(payload).ok()?;
        let names = index.names.iter().map(|t| Name::new(t)).collect();
        let mut at = HashMap::with_capacity(index.entries.len());
        for (digest, start, n) in index.entries {
            if start < HEADER || start.checked_add(u64::from(n))? > offset {
                return None;
            }
            at.insert(digest, (start, n));
        }
        Some(Pack {
            file,
            id,
            names,
            at,
        })
    }

    /// Whether the pack holds the entry of content hash `digest`.
    pub fn holds(&self, digest: &[u8; 32]) -> bool {
        self.at.contains_key(digest)
    }

    /// The entry of `digest`: its names (from the pack's table) and its value's bytes, if held
    /// and sealed for this pack and hash.
    fn entry(&self, key: &Key, digest: &[u8; 32]) -> Option<(Vec<Name>, Vec<u8>)> {
        let &(start, n) = self.at.get(digest)?;
        if u64::from(n) > MAX_ENTRY_BYTES {
            return None;
        }
        let sealed = read_at(&self.file, start, u64::from(n))?;
        let payload = key.open(&entry_seal(&self.id, digest), &sealed)?;
        let (numbers, body): (Vec<u32>, &[u8]) = postcard::from_bytes(payload).ok()?;
        let names = numbers
            .iter()
            .map(|i| self.names.get(*i as usize).copied())
            .collect::<Option<Vec<Name>>>()?;
        Some((names, body.to_vec()))
    }

    /// The entry of `digest` decoded by `decode` (which reads the value's bytes).
    pub fn get<T>(
        &self,
        key: &Key,
        digest: &[u8; 32],
        decode: impl FnOnce(&[u8]) -> Option<T>,
    ) -> Option<T> {
        let (names, body) = self.entry(key, digest)?;
        crate::java::name::decode_with_names(names, &body, decode)
    }
}

/// Write the pack in `dir` with the entries of `digests` (each once, in this order), taken from
/// `old` or else from the file's own entry (`loose`: its sealed bytes' payload, as
/// `name::encode_numbered` wrote it). An entry found in neither is left out. Streamed to a new
/// file renamed into place: neither the pack nor its entries are held whole.
pub fn write(
    dir: &Path,
    key: &Key,
    digests: &[[u8; 32]],
    old: Option<&Pack>,
    loose: &dyn Fn(&[u8; 32]) -> Option<Vec<u8>>,
) -> std::io::Result<()> {
    let mut id = [0u8; ID];
    getrandom::fill(&mut id).map_err(std::io::Error::other)?;
    let id_hex = hex(&id);
    safe_fs::write_atomic_with(&dir.join(FILE), |f| {
        let mut w = std::io::BufWriter::with_capacity(1 << 16, f);
        w.write_all(MAGIC)?;
        w.write_all(&id)?;
        let mut offset = HEADER;
        let mut table: HashMap<Name, u32> = HashMap::new();
        let mut names: Vec<Name> = Vec::new();
        let mut entries: Vec<([u8; 32], u64, u32)> = Vec::with_capacity(digests.len());
        let mut number = |n: Name| {
            *table.entry(n).or_insert_with(|| {
                names.push(n);
                names.len() as u32 - 1
            })
        };
        for digest in digests {
            let (numbers, body): (Vec<u32>, Vec<u8>) = match old.and_then(|p| p.entry(key, digest))
            {
                Some((ns, body)) => (ns.into_iter().map(&mut number).collect(), body),
                None => {
                    let Some(payload) = loose(digest) else {
                        continue;
                    };
                    let Some((texts, body)) = crate::java::name::split_numbered(&payload) else {
                        continue;
                    };
                    (
                        texts.into_iter().map(|t| number(Name::new(t))).collect(),
                        body.to_vec(),
                    )
                }
            };
            let payload =
                postcard::to_stdvec(&(numbers, body.as_slice())).map_err(std::io::Error::other)?;
            let sealed = key.seal(&entry_seal(&id_hex, digest), &payload);
            let n = u32::try_from(sealed.len()).map_err(std::io::Error::other)?;
            w.write_all(&sealed)?;
            entries.push((*digest, offset, n));
            offset += u64::from(n);
        }
        let index = Index {
            entries,
            names: names.iter().map(|n| n.as_str()).collect(),
        };
        let payload = postcard::to_stdvec(&index).map_err(std::io::Error::other)?;
        let sealed = key.seal(&index_seal(&id_hex), &payload);
        w.write_all(&sealed)?;
        w.write_all(&offset.to_le_bytes())?;
        w.write_all(&(sealed.len() as u64).to_le_bytes())?;
        w.flush()
    })
}

/// The payload of a file's own entry at `path` sealed under `name`.
pub fn loose_payload(path: &Path, name: &str, key: &Key) -> Option<Vec<u8>> {
    let data = safe_fs::read_regular(path, MAX_ENTRY_BYTES).ok()?;
    key.open(name, &data).map(<[u8]>::to_vec)
}
