//! Reading one source file: within the size limit, not binary, through the reader seam.

use super::source;
use crate::{ErrorKind, FileError, Severity};
use std::path::Path;

pub(crate) fn file_error(shown: &str, kind: ErrorKind, message: String) -> FileError {
    FileError {
        path: shown.to_string(),
        kind,
        severity: Severity::Error,
        message,
        line: None,
    }
}

/// Read a file (within the size limit, not binary).
pub(crate) fn read(
    path: &Path,
    shown: &str,
    max_bytes: u64,
    reader: &source::Reader,
) -> Result<Vec<u8>, FileError> {
    match std::fs::metadata(path) {
        Ok(m) if !m.is_file() => {
            return Err(file_error(
                shown,
                ErrorKind::Read,
                "not a regular file".into(),
            ));
        }
        Ok(m) if m.len() > max_bytes => {
            return Err(file_error(
                shown,
                ErrorKind::Skipped,
                format!(
                    "{} bytes is over the {max_bytes} byte limit (--max-file-size); not analysed",
                    m.len()
                ),
            ));
        }
        Err(e) => {
            return Err(file_error(
                shown,
                ErrorKind::Read,
                format!("cannot read: {e}"),
            ));
        }
        _ => {}
    }
    let bytes = reader
        .read(path)
        .map_err(|e| file_error(shown, ErrorKind::Read, format!("cannot read: {e}")))?;
    if bytes.iter().take(8192).any(|b| *b == 0) {
        return Err(file_error(
            shown,
            ErrorKind::Parse,
            "binary content (NUL bytes); not analysed".into(),
        ));
    }
    Ok(bytes)
}
