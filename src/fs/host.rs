//! Plain host-file access for loaders and writers (task files, archives, trajectories), kept
//! here so `fs` stays the only module that touches the host filesystem. Every error names the
//! path.

use std::path::Path;

use crate::{Error, Result};

/// Reads a whole file.
pub fn read(path: &Path) -> Result<Vec<u8>> {
    std::fs::read(path).map_err(|e| Error::io(path, e))
}

/// Reads a whole UTF-8 file.
pub fn read_to_string(path: &Path) -> Result<String> {
    std::fs::read_to_string(path).map_err(|e| Error::io(path, e))
}

/// Whether `path` is an existing regular file (following symlinks: these are user-given paths).
pub fn is_file(path: &Path) -> bool {
    path.is_file()
}

/// Opens `path` for appending, creating it if needed.
pub fn open_append(path: &Path) -> Result<std::fs::File> {
    std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .map_err(|e| Error::io(path, e))
}

/// Creates `path` and its parents (a run directory).
pub fn create_dir_all(path: &Path) -> Result<()> {
    std::fs::create_dir_all(path).map_err(|e| Error::io(path, e))
}

/// Whether `path` exists (any kind).
pub fn exists(path: &Path) -> bool {
    path.exists()
}

/// Writes `bytes` to `path` through a temporary file beside it and a rename, so a reader (or
/// a crash) never sees half a file.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<()> {
    use std::io::Write;
    let dir = path.parent().filter(|p| !p.as_os_str().is_empty());
    let mut tmp = tempfile::NamedTempFile::new_in(dir.unwrap_or(Path::new(".")))
        .map_err(|e| Error::io(path, e))?;
    tmp.write_all(bytes)
        .and_then(|()| tmp.as_file().sync_all())
        .map_err(|e| Error::io(path, e))?;
    tmp.persist(path).map_err(|e| Error::io(path, e.error))?;
    Ok(())
}

/// Cuts `path` to its first `len` bytes (drops a torn last line of a JSON Lines file).
pub fn truncate(path: &Path, len: u64) -> Result<()> {
    std::fs::OpenOptions::new()
        .write(true)
        .open(path)
        .and_then(|f| f.set_len(len))
        .map_err(|e| Error::io(path, e))
}
