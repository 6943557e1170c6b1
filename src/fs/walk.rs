//! One depth-first walk over an episode's tree for the walkers that run while or right after a
//! guest acts (the disk watch, the pool's restore), built on plain `*at` calls.
//!
//! What it guarantees, whatever the guest built:
//!
//! * **Descriptors grow with depth, not width.** It holds two per level of the current path
//!   (the directory and its listing), never one per directory still to visit: a directory
//!   with 100,000 subdirectories costs two descriptors, not 100,000. (The walk used to push an
//!   open handle per subdirectory; a hostile `mkdir` loop exhausted the process's limit and
//!   every other episode of the process failed with EMFILE.)
//! * **Depth is bounded** by the caller's `max_depth`: deeper directories are reported to the
//!   visitor but not entered.
//! * Symlinks are never followed: names are single components, stat'ed without following, and
//!   directories are opened `O_NOFOLLOW` (and `O_NOATIME` where the kernel lets us).

use rustix::fs::{AtFlags, FileType, Mode, OFlags, Stat};
use std::ffi::CStr;
use std::os::fd::{AsFd, OwnedFd};

/// What the visitor wants after seeing an entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Next {
    /// Go on (entering the entry if it is a directory within the depth bound).
    Continue,
    /// Go on, but do not enter this directory.
    SkipChildren,
    /// End the walk.
    Stop,
}

/// One entry, as the visitor sees it.
pub struct Entry<'a> {
    /// The directory holding the entry (for `*at` calls on `name`).
    pub parent: &'a OwnedFd,
    /// The entry's name: one component, any bytes.
    pub name: &'a CStr,
    /// Its path below the walk's root, `/`-separated (lossy for non-UTF-8 names).
    pub path: &'a str,
    /// 1 for the root's children.
    pub depth: usize,
    /// `lstat` of the entry.
    pub stat: &'a Stat,
}

impl Entry<'_> {
    pub fn is_dir(&self) -> bool {
        FileType::from_raw_mode(self.stat.st_mode) == FileType::Directory
    }
}

/// Opens directory `name` of `parent` without following a symlink and, where allowed, without
/// moving its atime.
pub fn open_subdir(parent: &impl AsFd, name: &CStr) -> rustix::io::Result<OwnedFd> {
    let flags = OFlags::RDONLY | OFlags::DIRECTORY | OFlags::NOFOLLOW | OFlags::CLOEXEC;
    match rustix::fs::openat(parent, name, flags | OFlags::NOATIME, Mode::empty()) {
        Err(rustix::io::Errno::PERM) => rustix::fs::openat(parent, name, flags, Mode::empty()),
        other => other,
    }
}

struct Level {
    fd: OwnedFd,
    listing: rustix::fs::Dir,
    prefix: String,
    depth: usize,
}

impl Level {
    fn new(fd: OwnedFd, prefix: String, depth: usize) -> rustix::io::Result<Level> {
        let listing = rustix::fs::Dir::new(rustix::io::dup(&fd)?)?;
        Ok(Level {
            fd,
            listing,
            prefix,
            depth,
        })
    }
}

/// Walks everything below `root` (a directory handle), calling `visit` for each entry, parents
/// before their children. The visitor may change an entry through `parent` before it is
/// entered (e.g. open up a `chmod 000` directory). An entry that vanished or cannot be stat'ed
/// or opened is passed over; an error listing a directory ends the walk with that error.
pub fn walk(
    root: &impl AsFd,
    max_depth: usize,
    mut visit: impl FnMut(&Entry<'_>) -> Next,
) -> rustix::io::Result<()> {
    let root = open_subdir(root, c".")?;
    let mut stack = vec![Level::new(root, String::new(), 0)?];
    while let Some(level) = stack.last_mut() {
        let Some(item) = level.listing.read() else {
            stack.pop();
            continue;
        };
        let item = item?;
        let name = item.file_name();
        if matches!(name.to_bytes(), b"." | b"..") {
            continue;
        }
        let Ok(stat) = rustix::fs::statat(&level.fd, name, AtFlags::SYMLINK_NOFOLLOW) else {
            continue;
        };
        let lossy = String::from_utf8_lossy(name.to_bytes());
        let path = if level.prefix.is_empty() {
            lossy.into_owned()
        } else {
            format!("{}/{lossy}", level.prefix)
        };
        let depth = level.depth + 1;
        let entry = Entry {
            parent: &level.fd,
            name,
            path: &path,
            depth,
            stat: &stat,
        };
        let is_dir = entry.is_dir();
        match visit(&entry) {
            Next::Stop => return Ok(()),
            Next::SkipChildren => continue,
            Next::Continue => {}
        }
        if is_dir
            && depth < max_depth
            && let Ok(sub) = open_subdir(&level.fd, name)
        {
            let name = name.to_owned();
            let next = Level::new(sub, path, depth);
            match next {
                Ok(next) => stack.push(next),
                Err(e) => {
                    tracing::debug!("cannot list {name:?}: {e}");
                }
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeSet;

    fn open(path: &std::path::Path) -> OwnedFd {
        rustix::fs::open(
            path,
            OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC,
            Mode::empty(),
        )
        .unwrap()
    }

    fn fds() -> usize {
        std::fs::read_dir("/proc/self/fd").unwrap().count()
    }

    #[test]
    fn visits_parents_first_and_never_follows_symlinks() {
        let tmp = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(tmp.path().join("a/b")).unwrap();
        std::fs::write(tmp.path().join("a/b/f"), "x").unwrap();
        std::os::unix::fs::symlink("/", tmp.path().join("a/up")).unwrap();
        let mut seen = Vec::new();
        walk(&open(tmp.path()), 64, |e| {
            seen.push(e.path.to_string());
            Next::Continue
        })
        .unwrap();
        let pos = |p: &str| seen.iter().position(|s| s == p).unwrap();
        assert!(pos("a") < pos("a/b") && pos("a/b") < pos("a/b/f"));
        assert!(seen.contains(&"a/up".to_string()));
        assert!(!seen.iter().any(|s| s.starts_with("a/up/")), "{seen:?}");
    }

    #[test]
    fn wide_trees_cost_a_few_descriptors_and_deep_ones_stop_at_the_bound() {
        let tmp = tempfile::tempdir().unwrap();
        for i in 0..2000 {
            std::fs::create_dir(tmp.path().join(format!("d{i}"))).unwrap();
        }
        let mut deep = tmp.path().join("deep");
        for _ in 0..50 {
            deep.push("x");
        }
        std::fs::create_dir_all(&deep).unwrap();
        let before = fds();
        let mut most = 0;
        let mut depths = BTreeSet::new();
        walk(&open(tmp.path()), 10, |e| {
            most = most.max(fds());
            depths.insert(e.depth);
            Next::Continue
        })
        .unwrap();
        // Two per level of the deepest path walked (10), not one per directory (2,050).
        // (Other tests of the process open files meanwhile, hence the slack.)
        assert!(
            most < before + 200,
            "{most} descriptors open, {before} before"
        );
        assert_eq!(depths.iter().max(), Some(&10));
    }

    #[test]
    fn stop_ends_the_walk() {
        let tmp = tempfile::tempdir().unwrap();
        for i in 0..10 {
            std::fs::write(tmp.path().join(format!("f{i}")), "").unwrap();
        }
        let mut n = 0;
        walk(&open(tmp.path()), 8, |_| {
            n += 1;
            if n == 3 { Next::Stop } else { Next::Continue }
        })
        .unwrap();
        assert_eq!(n, 3);
    }
}
