//! File access that a checkout cannot turn against the machine it is scanned on: nothing is
//! read through or written through a symbolic link, a FIFO cannot block a read, a device cannot
//! feed a read forever, and a file is written under a fresh, unpredictable name and then renamed
//! into place (so a link planted at that name is replaced, never followed).

use std::fs::{File, OpenOptions};
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};

fn refuse(what: &str) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidInput, what.to_string())
}

/// Open `path` for reading without following a symbolic link at its last component and without
/// blocking on a FIFO.
pub fn open_nofollow(path: &Path) -> io::Result<File> {
    let mut o = OpenOptions::new();
    o.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        o.custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK);
    }
    #[cfg(not(unix))]
    if std::fs::symlink_metadata(path)?.file_type().is_symlink() {
        return Err(refuse("is a symbolic link"));
    }
    o.open(path)
}

/// The bytes of the regular file at `path`, at most `cap` of them: a symbolic link, a FIFO, a
/// device or a larger file is an error, and nothing past `cap` is ever read.
pub fn read_regular(path: &Path, cap: u64) -> io::Result<Vec<u8>> {
    let f = open_nofollow(path)?;
    let m = f.metadata()?;
    if !m.is_file() {
        return Err(refuse("not a regular file"));
    }
    if m.len() > cap {
        return Err(refuse("larger than its size limit"));
    }
    let mut out = Vec::with_capacity(m.len() as usize);
    // The file may grow between the stat and the read.
    f.take(cap + 1).read_to_end(&mut out)?;
    if out.len() as u64 > cap {
        return Err(refuse("larger than its size limit"));
    }
    Ok(out)
}

/// Is `p` a directory itself (not a link to one)?
pub fn is_real_dir(p: &Path) -> bool {
    std::fs::symlink_metadata(p).is_ok_and(|m| m.is_dir())
}

/// Create `dir` and its missing parents below `base` (which must exist), refusing a symbolic
/// link at any level from `base` down: a checkout's link cannot send a write elsewhere.
pub fn create_dirs_below(base: &Path, dir: &Path) -> io::Result<()> {
    let rel = dir
        .strip_prefix(base)
        .map_err(|_| refuse("outside its base"))?;
    let mut cur = base.to_path_buf();
    for c in rel.components() {
        cur.push(c);
        match std::fs::symlink_metadata(&cur) {
            Ok(m) if m.is_dir() => {}
            Ok(_) => return Err(refuse("a path component is not a directory")),
            Err(e) if e.kind() == io::ErrorKind::NotFound => match std::fs::create_dir(&cur) {
                Ok(()) => {}
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists && is_real_dir(&cur) => {}
                Err(e) => return Err(e),
            },
            Err(e) => return Err(e),
        }
    }
    Ok(())
}

/// A name no other process can guess: the process id and random bytes.
fn temp_name(target: &Path) -> PathBuf {
    let mut r = [0u8; 8];
    let random = if getrandom::fill(&mut r).is_ok() {
        u64::from_le_bytes(r)
    } else {
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos() as u64)
    };
    let name = target
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    target.with_file_name(format!(".{name}.{}.{random:016x}.tmp", std::process::id()))
}

/// Write `data` to a new file next to `target` (created exclusively, so an existing file or
/// link at that name is an error, not a target), then rename it to `target`. A link at
/// `target` is replaced by the file, not written through.
pub fn write_atomic(target: &Path, data: &[u8]) -> io::Result<()> {
    write_atomic_with(target, |f| f.write_all(data))
}

/// [`write_atomic`] of what `write` writes to the new file (and may seek in it), so that
/// what is written need not be held whole.
pub fn write_atomic_with(
    target: &Path,
    write: impl FnOnce(&mut File) -> io::Result<()>,
) -> io::Result<()> {
    // Called once, on the first new file that could be created.
    let mut write = Some(write);
    let mut last = None;
    for _ in 0..4 {
        let tmp = temp_name(target);
        let mut o = OpenOptions::new();
        o.write(true).create_new(true);
        #[cfg(unix)]
        {
            use std::os::unix::fs::OpenOptionsExt;
            o.mode(0o644).custom_flags(libc::O_NOFOLLOW);
        }
        let mut f = match o.open(&tmp) {
            Ok(f) => f,
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {
                last = Some(e);
                continue;
            }
            Err(e) => return Err(e),
        };
        let Some(write) = write.take() else {
            return Err(refuse("written already"));
        };
        let written = write(&mut f).and_then(|_| f.flush());
        drop(f);
        let done = written.and_then(|_| std::fs::rename(&tmp, target));
        if done.is_err() {
            let _ = std::fs::remove_file(&tmp);
        }
        return done;
    }
    Err(last.unwrap_or_else(|| refuse("no free temporary name")))
}

/// Where a report or baseline the user named may be written: no component of `target` inside
/// the current directory (the checkout) may be a symbolic link — a committed `out -> /home/…`
/// or `retrylint.sarif -> ~/.bashrc` would otherwise redirect the write. Directories outside
/// the current directory are the user's own choice and are not checked.
pub fn check_output_path(target: &Path) -> Result<(), String> {
    let cwd = std::env::current_dir().map_err(|e| format!("no current directory: {e}"))?;
    let abs = if target.is_absolute() {
        target.to_path_buf()
    } else {
        cwd.join(target)
    };
    let Ok(rel) = abs.strip_prefix(&cwd) else {
        // Outside the checkout: only the file itself must not be a link.
        if std::fs::symlink_metadata(&abs).is_ok_and(|m| m.file_type().is_symlink()) {
            return Err("is a symbolic link; retrylint does not write through links".into());
        }
        return Ok(());
    };
    let mut cur = cwd.clone();
    for c in rel.components() {
        match c {
            std::path::Component::Normal(_) => cur.push(c),
            std::path::Component::CurDir => continue,
            _ => return Err("leaves the current directory through `..`".into()),
        }
        if std::fs::symlink_metadata(&cur).is_ok_and(|m| m.file_type().is_symlink()) {
            return Err(format!(
                "goes through the symbolic link `{}`; retrylint does not write through links",
                crate::discovery::display_path(&cur)
            ));
        }
    }
    Ok(())
}

/// Write a report or baseline the user named: checked with [`check_output_path`], then written
/// with [`write_atomic`]. A path that is a device (`/dev/null`) is written in place.
pub fn write_output(target: &Path, data: &[u8]) -> Result<(), String> {
    check_output_path(target)?;
    if let Ok(m) = std::fs::metadata(target)
        && !m.is_file()
        && !m.is_dir()
    {
        return OpenOptions::new()
            .write(true)
            .open(target)
            .and_then(|mut f| f.write_all(data))
            .map_err(|e| e.to_string());
    }
    write_atomic(target, data).map_err(|e| e.to_string())
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;

    #[test]
    fn links_fifos_and_devices_are_not_read() {
        let d = tempfile::tempdir().unwrap();
        let real = d.path().join("real");
        std::fs::write(&real, b"abc").unwrap();
        assert_eq!(read_regular(&real, 3).unwrap(), b"abc");
        assert!(read_regular(&real, 2).is_err());
        let link = d.path().join("link");
        std::os::unix::fs::symlink(&real, &link).unwrap();
        assert!(read_regular(&link, 100).is_err());
        let zero = d.path().join("zero");
        std::os::unix::fs::symlink("/dev/zero", &zero).unwrap();
        assert!(read_regular(&zero, 100).is_err());
        assert!(read_regular(Path::new("/dev/zero"), 100).is_err());
        let fifo = d.path().join("fifo");
        let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
        assert!(read_regular(&fifo, 100).is_err());
    }

    #[test]
    fn a_link_at_the_target_is_replaced_not_followed() {
        let d = tempfile::tempdir().unwrap();
        let victim = d.path().join("victim");
        std::fs::write(&victim, b"keep").unwrap();
        let target = d.path().join("out");
        std::os::unix::fs::symlink(&victim, &target).unwrap();
        write_atomic(&target, b"new").unwrap();
        assert_eq!(std::fs::read(&victim).unwrap(), b"keep");
        assert!(!std::fs::symlink_metadata(&target).unwrap().is_symlink());
        assert_eq!(std::fs::read(&target).unwrap(), b"new");
    }

    #[test]
    fn temporary_names_cannot_be_guessed_and_are_never_opened_if_present() {
        let d = tempfile::tempdir().unwrap();
        let target = d.path().join("entry");
        let names: std::collections::HashSet<PathBuf> =
            (0..1000).map(|_| temp_name(&target)).collect();
        assert_eq!(names.len(), 1000, "a temporary name repeats");
        // Links planted at a thousand names next to the target are neither followed nor
        // replaced.
        let victim = d.path().join("victim");
        std::fs::write(&victim, b"keep").unwrap();
        for n in &names {
            std::os::unix::fs::symlink(&victim, n).unwrap();
        }
        write_atomic(&target, b"new").unwrap();
        assert_eq!(std::fs::read(&victim).unwrap(), b"keep");
        assert_eq!(std::fs::read(&target).unwrap(), b"new");
        assert!(
            names
                .iter()
                .all(|n| std::fs::symlink_metadata(n).unwrap().is_symlink())
        );
    }

    #[test]
    fn directories_are_not_created_through_links() {
        let d = tempfile::tempdir().unwrap();
        let elsewhere = tempfile::tempdir().unwrap();
        std::os::unix::fs::symlink(elsewhere.path(), d.path().join("c")).unwrap();
        assert!(create_dirs_below(d.path(), &d.path().join("c/x")).is_err());
        assert!(!elsewhere.path().join("x").exists());
        create_dirs_below(d.path(), &d.path().join("a/b")).unwrap();
        assert!(is_real_dir(&d.path().join("a/b")));
    }
}
