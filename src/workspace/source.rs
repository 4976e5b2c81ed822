//! How a run reads the bytes of a source file. A seam so tests can make a file unreadable (CI
//! runs as root, where permissions cannot) or delete it mid-scan, and so a fuzz target can feed
//! bytes without touching the disk for every input.

use std::fmt;
use std::io;
use std::path::Path;
use std::sync::Arc;

type ReadFn = dyn Fn(&Path) -> io::Result<Vec<u8>> + Send + Sync;

/// Reads a file's bytes; [`Reader::default`] is [`std::fs::read`].
#[derive(Clone)]
pub struct Reader(Arc<ReadFn>);

impl Reader {
    pub fn new(read: impl Fn(&Path) -> io::Result<Vec<u8>> + Send + Sync + 'static) -> Reader {
        Reader(Arc::new(read))
    }

    pub fn read(&self, path: &Path) -> io::Result<Vec<u8>> {
        (self.0)(path)
    }
}

impl Default for Reader {
    fn default() -> Reader {
        Reader::new(|p| std::fs::read(p))
    }
}

impl fmt::Debug for Reader {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Reader(..)")
    }
}
