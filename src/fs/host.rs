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
