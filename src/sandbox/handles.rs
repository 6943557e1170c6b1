//! A process's handle table: the host-side stand-in for a file descriptor table, because WASI
//! preview 1 cannot give a running instance new descriptors. Every handle is a real OS file
//! (pipe end, opened file, null device), so children can receive duplicates as their WASI stdio
//! and pipe EOF works exactly as with POSIX descriptors.

use std::collections::BTreeMap;
use std::fs::File;
use std::sync::Arc;

/// Handle numbers a guest sees; 0–2 are its stdio.
pub type HandleId = u32;

#[derive(Default)]
pub struct HandleTable {
    entries: BTreeMap<HandleId, Arc<File>>,
}

impl HandleTable {
    pub fn with_stdio(stdin: File, stdout: File, stderr: File) -> HandleTable {
        let mut t = HandleTable::default();
        t.entries.insert(0, Arc::new(stdin));
        t.entries.insert(1, Arc::new(stdout));
        t.entries.insert(2, Arc::new(stderr));
        t
    }

    /// Inserts at the lowest free number ≥ 3 (like `open` returning the lowest free fd).
    pub fn insert(&mut self, file: File) -> HandleId {
        let mut id = 3;
        while self.entries.contains_key(&id) {
            id += 1;
        }
        self.entries.insert(id, Arc::new(file));
        id
    }

    pub fn get(&self, id: HandleId) -> Option<Arc<File>> {
        self.entries.get(&id).cloned()
    }

    pub fn close(&mut self, id: HandleId) -> bool {
        self.entries.remove(&id).is_some()
    }

    /// An independent OS-level duplicate, for a child's stdio.
    pub fn duplicate(&self, id: HandleId) -> Option<std::io::Result<File>> {
        self.entries.get(&id).map(|f| f.try_clone())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pipe_file() -> File {
        let (r, _w) = std::io::pipe().unwrap();
        File::from(std::os::fd::OwnedFd::from(r))
    }

    #[test]
    fn lowest_free_number_is_reused() {
        let mut t = HandleTable::with_stdio(pipe_file(), pipe_file(), pipe_file());
        let a = t.insert(pipe_file());
        let b = t.insert(pipe_file());
        assert_eq!((a, b), (3, 4));
        assert!(t.close(3));
        assert_eq!(t.insert(pipe_file()), 3);
        assert!(!t.close(99));
    }
}
