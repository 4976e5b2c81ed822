//! Cache entries are sealed with an HMAC-SHA256 under a random key kept in the user's own cache
//! directory (`$XDG_CACHE_HOME/retrylint/cache-key`, else `~/.cache/retrylint/cache-key`), never
//! in the project. A cache directory that comes with a checkout (committed, or copied from
//! another machine) was sealed under a key this machine does not have: every entry in it fails
//! the check and is recomputed, so it cannot hide or change a finding. The seal also binds an
//! entry to its name (the content hash it is stored under), so a genuine entry copied under the
//! hash of other content fails too.

use sha2::{Digest, Sha256};
use std::path::{Path, PathBuf};

const MAGIC: &[u8; 8] = b"RLCACHE1";
const TAG: usize = 32;
const BLOCK: usize = 64;

/// The machine's cache key.
#[derive(Clone)]
pub struct Key([u8; 32]);

impl std::fmt::Debug for Key {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Key(..)")
    }
}

/// Where the key is kept: the user's cache directory.
pub fn key_dir() -> Option<PathBuf> {
    let nonempty = |v: &str| {
        std::env::var_os(v)
            .filter(|x| !x.is_empty())
            .map(PathBuf::from)
    };
    if let Some(x) = nonempty("XDG_CACHE_HOME") {
        return Some(x.join("retrylint"));
    }
    if cfg!(windows)
        && let Some(x) = nonempty("LOCALAPPDATA")
    {
        return Some(x.join("retrylint"));
    }
    nonempty("HOME").map(|h| h.join(".cache").join("retrylint"))
}

impl Key {
    /// The key of this machine (of this user), created on first use. `None` when it can be
    /// neither read nor created: the cache is then off.
    pub fn load_or_create() -> Option<Key> {
        let dir = key_dir()?;
        Key::in_dir(&dir)
    }

    pub fn in_dir(dir: &Path) -> Option<Key> {
        let path = dir.join("cache-key");
        if let Ok(b) = crate::safe_fs::read_regular(&path, 64)
            && let Ok(k) = <[u8; 32]>::try_from(&b[..])
        {
            return Some(Key(k));
        }
        std::fs::create_dir_all(dir).ok()?;
        let mut k = [0u8; 32];
        getrandom::fill(&mut k).ok()?;
        let mut o = std::fs::OpenOptions::new();
        o.write(true).create_new(true);
        #[cfg(unix)]
        {
            use std::os::unix::fs::OpenOptionsExt;
            o.mode(0o600).custom_flags(libc::O_NOFOLLOW);
        }
        match o.open(&path) {
            Ok(mut f) => {
                use std::io::Write;
                f.write_all(&k).ok()?;
                Some(Key(k))
            }
            // Another run created it first: use that one.
            Err(_) => {
                let b = crate::safe_fs::read_regular(&path, 64).ok()?;
                <[u8; 32]>::try_from(&b[..]).ok().map(Key)
            }
        }
    }

    /// A key for tests and for runs without a user cache directory.
    pub fn from_bytes(k: [u8; 32]) -> Key {
        Key(k)
    }

    /// HMAC-SHA256 (RFC 2104) of the parts, each prefixed by its length.
    fn tag(&self, parts: &[&[u8]]) -> [u8; TAG] {
        let mut pad = [0u8; BLOCK];
        pad[..32].copy_from_slice(&self.0);
        let ipad: Vec<u8> = pad.iter().map(|b| b ^ 0x36).collect();
        let opad: Vec<u8> = pad.iter().map(|b| b ^ 0x5c).collect();
        let mut inner = Sha256::new();
        inner.update(&ipad);
        for p in parts {
            inner.update((p.len() as u64).to_le_bytes());
            inner.update(p);
        }
        let mut outer = Sha256::new();
        outer.update(&opad);
        outer.update(inner.finalize());
        outer.finalize().into()
    }

    /// Writes a payload of `len` bytes, sealed under `name` as [`Key::seal`] seals it, to `out`
    /// while `write` encodes it: the payload is never held whole. `out` is written from where
    /// it stands (the magic, room for the tag, the payload), then the tag is written in its
    /// room. An error when `write` writes other than `len` bytes.
    pub fn seal_into<W: std::io::Write + std::io::Seek>(
        &self,
        name: &str,
        len: usize,
        out: &mut W,
        write: impl FnOnce(&mut dyn std::io::Write) -> std::io::Result<()>,
    ) -> std::io::Result<()> {
        use std::io::{SeekFrom, Write};
        let start = out.stream_position()?;
        out.write_all(MAGIC)?;
        out.write_all(&[0u8; TAG])?;
        let mut pad = [0u8; BLOCK];
        pad[..32].copy_from_slice(&self.0);
        let mut inner = Sha256::new();
        inner.update(pad.map(|b| b ^ 0x36));
        inner.update((name.len() as u64).to_le_bytes());
        inner.update(name.as_bytes());
        inner.update((len as u64).to_le_bytes());
        struct Hashing<W: Write> {
            out: W,
            inner: Sha256,
            written: usize,
        }
        impl<W: Write> Write for Hashing<W> {
            fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
                let n = self.out.write(buf)?;
                self.inner.update(&buf[..n]);
                self.written += n;
                Ok(n)
            }
            fn flush(&mut self) -> std::io::Result<()> {
                self.out.flush()
            }
        }
        // Buffered before the hash, so that it hashes and writes large chunks, not the few
        // bytes an encoder writes at a time.
        let mut w = std::io::BufWriter::with_capacity(
            1 << 16,
            Hashing {
                out: &mut *out,
                inner,
                written: 0,
            },
        );
        write(&mut w)?;
        let h = w.into_inner().map_err(|e| e.into_error())?;
        if h.written != len {
            return Err(std::io::Error::other(
                "the payload is not of its announced size",
            ));
        }
        let inner = h.inner.finalize();
        let mut outer = Sha256::new();
        outer.update(pad.map(|b| b ^ 0x5c));
        outer.update(inner);
        let tag: [u8; TAG] = outer.finalize().into();
        out.seek(SeekFrom::Start(start + MAGIC.len() as u64))?;
        out.write_all(&tag)?;
        out.seek(SeekFrom::End(0))?;
        Ok(())
    }

    /// `payload` sealed under `name`: magic, tag, payload.
    pub fn seal(&self, name: &str, payload: &[u8]) -> Vec<u8> {
        let mut out = Vec::with_capacity(MAGIC.len() + TAG + payload.len());
        out.extend_from_slice(MAGIC);
        out.extend_from_slice(&self.tag(&[name.as_bytes(), payload]));
        out.extend_from_slice(payload);
        out
    }

    /// The payload of `data` if it was sealed by this key under `name`.
    pub fn open<'a>(&self, name: &str, data: &'a [u8]) -> Option<&'a [u8]> {
        let rest = data.strip_prefix(MAGIC)?;
        if rest.len() < TAG {
            return None;
        }
        let (tag, payload) = rest.split_at(TAG);
        let want = self.tag(&[name.as_bytes(), payload]);
        // Constant time, so the comparison does not leak how much of a forged tag is right.
        let diff = tag
            .iter()
            .zip(want.iter())
            .fold(0u8, |d, (a, b)| d | (a ^ b));
        (diff == 0).then_some(payload)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_tag_is_the_rfc_2104_construction() {
        let k = Key::from_bytes([0x0b; 32]);
        let t = k.tag(&[b"Hi There"]);
        let mut pad = [0u8; 64];
        pad[..32].copy_from_slice(&[0x0b; 32]);
        let mut inner = Sha256::new();
        inner.update(pad.map(|b| b ^ 0x36));
        inner.update(8u64.to_le_bytes());
        inner.update(b"Hi There");
        let mut outer = Sha256::new();
        outer.update(pad.map(|b| b ^ 0x5c));
        outer.update(inner.finalize());
        assert_eq!(t, <[u8; 32]>::from(outer.finalize()));
    }

    #[test]
    fn a_seal_is_bound_to_key_and_name() {
        let k = Key::from_bytes([1; 32]);
        let sealed = k.seal("ab/cd", b"facts");
        assert_eq!(k.open("ab/cd", &sealed), Some(&b"facts"[..]));
        assert_eq!(k.open("ab/ce", &sealed), None);
        assert_eq!(Key::from_bytes([2; 32]).open("ab/cd", &sealed), None);
        let mut forged = sealed.clone();
        *forged.last_mut().unwrap() ^= 1;
        assert_eq!(k.open("ab/cd", &forged), None);
        assert_eq!(k.open("ab/cd", b"RLCACHE1short"), None);
    }

    #[test]
    fn a_payload_sealed_as_it_is_written_is_sealed_as_a_whole() {
        let k = Key::from_bytes([3; 32]);
        let payload: Vec<u8> = (0..200_000u32).map(|i| (i * 7 % 251) as u8).collect();
        let mut out = std::io::Cursor::new(Vec::new());
        k.seal_into("ab/cd", payload.len(), &mut out, |w| {
            for chunk in payload.chunks(999) {
                w.write_all(chunk)?;
            }
            Ok(())
        })
        .unwrap();
        assert_eq!(out.into_inner(), k.seal("ab/cd", &payload));
        let mut short = std::io::Cursor::new(Vec::new());
        let wrong = k.seal_into("ab/cd", 5, &mut short, |w| w.write_all(b"four"));
        assert!(wrong.is_err());
    }

    #[test]
    fn the_key_is_kept_and_reused() {
        let d = tempfile::tempdir().unwrap();
        let a = Key::in_dir(d.path()).unwrap();
        let b = Key::in_dir(d.path()).unwrap();
        assert_eq!(a.0, b.0);
    }
}
