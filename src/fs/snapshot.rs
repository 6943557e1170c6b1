//! [`Snapshot`]: what a directory tree looks like right now (kinds, sizes, modes, mtimes, MD5s of
//! file contents, symlink targets), captured without ever following a symlink.
//!
//! The bash reward needs `git status --short` of the agent's and the gold's trees against the
//! task's committed tree. Instead of running git we snapshot both trees and compare them with
//! the baseline ([`Snapshot::from_image`]) in [`super::status`].
//!
//! ```
//! use intercode::fs::{episode::EpisodeDir, image::{Entry, TreeImage}, snapshot::Snapshot};
//! let mut img = TreeImage::empty();
//! img.insert("a.txt", Entry::file(b"a".to_vec(), 0o644, 0)).unwrap();
//! let ep = EpisodeDir::new(&img).unwrap();
//! let now = Snapshot::capture(ep.dir()).unwrap();
//! assert_eq!(now.get("a.txt").unwrap().md5, Snapshot::from_image(&img).get("a.txt").unwrap().md5);
//! ```

use std::collections::BTreeMap;
use std::io::Read;
use std::path::Path;

use cap_std::fs::{Dir, PermissionsExt};
use md5::{Digest, Md5};

use super::base_system::IGNORED_NAMES;
use super::image::{EntryKind, TreeImage, epoch_secs};
use crate::{Error, Result};

/// The kind of a snapshotted path. `Other` covers FIFOs, sockets and devices, which git ignores.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Kind {
    Dir,
    File,
    Symlink,
    Other,
}

/// One path of a [`Snapshot`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SnapEntry {
    pub kind: Kind,
    /// Bytes for files, target length for symlinks (as `lstat` reports), 0 otherwise.
    pub size: u64,
    /// Permission bits (`mode & 0o7777`).
    pub mode: u32,
    /// Seconds since the epoch.
    pub mtime: i64,
    /// MD5 of the contents, for files only; `None` for a file that could not be read.
    pub md5: Option<[u8; 16]>,
    /// Target, for symlinks only.
    pub target: Option<String>,
}

/// A map from relative path (`testbed/dir1/a.txt`) to [`SnapEntry`]; the root is not included.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Snapshot {
    entries: BTreeMap<String, SnapEntry>,
}

/// Guards against absurdly deep trees built by a guest (`mkdir -p a/a/a/...`).
const MAX_DEPTH: usize = 4096;

impl Snapshot {
    /// Snapshots everything below `dir`.
    pub fn capture(dir: &Dir) -> Result<Snapshot> {
        let mut snap = Snapshot::default();
        walk(dir, "", 0, false, &mut snap.entries)?;
        Ok(snap)
    }

    /// Like [`Snapshot::capture`] but skips (without descending) every path component named in
    /// [`IGNORED_NAMES`], at any depth, as upstream's unanchored `.gitignore` patterns do. This
    /// is only an optimisation: [`super::status::git_status`] applies the same rule itself.
    pub fn capture_tracked(dir: &Dir) -> Result<Snapshot> {
        let mut snap = Snapshot::default();
        walk(dir, "", 0, true, &mut snap.entries)?;
        Ok(snap)
    }

    /// The snapshot an image would give once materialized (used as git's committed tree).
    pub fn from_image(image: &TreeImage) -> Snapshot {
        let entries = image
            .iter()
            .map(|(path, e)| {
                let entry = match &e.kind {
                    EntryKind::Dir => SnapEntry {
                        kind: Kind::Dir,
                        size: 0,
                        mode: e.mode,
                        mtime: e.mtime,
                        md5: None,
                        target: None,
                    },
                    EntryKind::File(bytes) => SnapEntry {
                        kind: Kind::File,
                        size: bytes.len() as u64,
                        mode: e.mode,
                        mtime: e.mtime,
                        md5: Some(Md5::digest(bytes).into()),
                        target: None,
                    },
                    EntryKind::Symlink(target) => SnapEntry {
                        kind: Kind::Symlink,
                        size: target.len() as u64,
                        mode: e.mode,
                        mtime: e.mtime,
                        md5: None,
                        target: Some(target.clone()),
                    },
                };
                (path.to_string(), entry)
            })
            .collect();
        Snapshot { entries }
    }

    /// Regular files of `self` (the state before) that `after` lost or emptied: deleted,
    /// replaced by something that is not a file, or truncated to zero bytes. The destructive
    /// mutations an agent can make to what it was given.
    pub fn destroyed_in(&self, after: &Snapshot) -> std::collections::BTreeSet<String> {
        self.entries
            .iter()
            .filter(|(_, before)| before.kind == Kind::File)
            .filter(|(path, before)| match after.entries.get(*path) {
                None => true,
                Some(now) => now.kind != Kind::File || (now.size == 0 && before.size > 0),
            })
            .map(|(path, _)| path.clone())
            .collect()
    }

    pub fn get(&self, path: &str) -> Option<&SnapEntry> {
        self.entries.get(path)
    }

    /// Entries in path order (a parent always comes before its children).
    pub fn iter(&self) -> impl Iterator<Item = (&str, &SnapEntry)> {
        self.entries.iter().map(|(p, e)| (p.as_str(), e))
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }
}

/// Builds a snapshot from entries (tests, fuzzing, and snapshots kept elsewhere).
impl FromIterator<(String, SnapEntry)> for Snapshot {
    fn from_iter<I: IntoIterator<Item = (String, SnapEntry)>>(iter: I) -> Snapshot {
        Snapshot {
            entries: iter.into_iter().collect(),
        }
    }
}

fn walk(
    dir: &Dir,
    prefix: &str,
    depth: usize,
    skip_ignored: bool,
    out: &mut BTreeMap<String, SnapEntry>,
) -> Result<()> {
    if depth > MAX_DEPTH {
        return Ok(());
    }
    let io_err = |rel: &str, e| Error::io(format!("<episode>/{rel}"), e);
    let entries = match dir.entries() {
        Ok(entries) => entries,
        // An unreadable directory (the guest ran `chmod 000` and we are not root) shows up as
        // an entry without children; git likewise skips what it cannot open.
        Err(e) if e.kind() == std::io::ErrorKind::PermissionDenied => return Ok(()),
        Err(e) => return Err(io_err(prefix, e)),
    };
    for item in entries {
        let item = item.map_err(|e| io_err(prefix, e))?;
        let os_name = item.file_name();
        // Guests reach the tree through WASI, whose paths are UTF-8; lossy is only a fallback.
        let name = os_name.to_string_lossy().into_owned();
        if skip_ignored && IGNORED_NAMES.contains(&name.as_str()) {
            continue;
        }
        let rel = if prefix.is_empty() {
            name.clone()
        } else {
            format!("{prefix}/{name}")
        };
        let meta = match dir.symlink_metadata(&os_name) {
            Ok(m) => m,
            // Raced with a deletion; nothing of the guest runs during a snapshot, but be lenient.
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => continue,
            Err(e) => return Err(io_err(&rel, e)),
        };
        let ft = meta.file_type();
        let mut entry = SnapEntry {
            kind: Kind::Other,
            size: 0,
            mode: meta.permissions().mode() & 0o7777,
            mtime: meta.modified().map_or(0, |t| epoch_secs(t.into_std())),
            md5: None,
            target: None,
        };
        if ft.is_symlink() {
            entry.kind = Kind::Symlink;
            let stored = dir
                .read_link_contents(&os_name)
                .map_err(|e| io_err(&rel, e))?;
            // The target as written, as a tree image records it (`links`).
            let depth = crate::fs::links::parent_depth(std::path::Path::new(&rel));
            let target = crate::fs::links::written_form(&stored.to_string_lossy(), depth);
            entry.size = target.len() as u64;
            entry.target = Some(target);
            out.insert(rel, entry);
        } else if ft.is_dir() {
            entry.kind = Kind::Dir;
            out.insert(rel.clone(), entry);
            match open_dir_nofollow(dir, &os_name) {
                Ok(sub) => walk(&sub, &rel, depth + 1, skip_ignored, out)?,
                Err(e) if e.kind() == std::io::ErrorKind::PermissionDenied => {}
                Err(e) => return Err(io_err(&rel, e)),
            }
        } else if ft.is_file() {
            entry.kind = Kind::File;
            entry.size = meta.len();
            entry.md5 = md5_of(dir, &os_name).ok();
            out.insert(rel, entry);
        } else {
            out.insert(rel, entry);
        }
    }
    Ok(())
}

fn open_dir_nofollow(dir: &Dir, name: &std::ffi::OsStr) -> std::io::Result<Dir> {
    let std_dir = dir.try_clone()?.into_std_file();
    cap_primitives::fs::open_dir_nofollow(&std_dir, Path::new(name)).map(Dir::from_std_file)
}

/// MD5 of a regular file, streamed so a large file does not need to fit in memory.
pub(crate) fn md5_of(dir: &Dir, name: impl AsRef<Path>) -> std::io::Result<[u8; 16]> {
    let mut file = dir.open(name)?;
    let mut hasher = Md5::new();
    let mut buf = vec![0u8; 64 * 1024];
    loop {
        let n = file.read(&mut buf)?;
        if n == 0 {
            break;
        }
        hasher.update(&buf[..n]);
    }
    Ok(hasher.finalize().into())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fs::episode::EpisodeDir;
    use crate::fs::image::Entry;

    fn image() -> TreeImage {
        let mut img = TreeImage::empty();
        img.insert("t/a.txt", Entry::file(b"hello\n".to_vec(), 0o644, 100))
            .unwrap();
        img.insert("t/run.sh", Entry::file(b"echo\n".to_vec(), 0o755, 200))
            .unwrap();
        img.insert("t/l", Entry::symlink("/etc", 300)).unwrap();
        img.insert("etc/x", Entry::file(b"x".to_vec(), 0o644, 400))
            .unwrap();
        img.insert("t/var/y", Entry::file(b"y".to_vec(), 0o644, 400))
            .unwrap();
        img
    }

    #[test]
    fn capture_matches_image_and_does_not_follow_symlinks() {
        let img = image();
        let ep = EpisodeDir::new(&img).unwrap();
        let snap = Snapshot::capture(ep.dir()).unwrap();
        let expected = Snapshot::from_image(&img);
        // Directory mtimes and sizes are the only fields the two may disagree on (sizes of
        // directories are filesystem-specific), so compare the rest.
        assert_eq!(snap.len(), expected.len());
        for (path, want) in expected.iter() {
            let got = snap.get(path).unwrap();
            assert_eq!(
                (got.kind, got.mode, got.md5, &got.target),
                (want.kind, want.mode, want.md5, &want.target),
                "{path}"
            );
            if want.kind != Kind::Dir {
                assert_eq!((got.size, got.mtime), (want.size, want.mtime), "{path}");
            }
        }
        assert_eq!(
            snap.get("t/a.txt").unwrap().md5,
            Some(*b"\xb1\x94\x6a\xc9\x24\x92\xd2\x34\x7c\x62\x35\xb4\xd2\x61\x11\x84")
        );
        // The symlink to /etc was not followed into the host's /etc.
        assert!(snap.iter().all(|(p, _)| !p.starts_with("t/l/")));
    }

    #[test]
    fn capture_tracked_skips_ignored_names_at_any_depth() {
        let ep = EpisodeDir::new(&image()).unwrap();
        let snap = Snapshot::capture_tracked(ep.dir()).unwrap();
        let paths: Vec<&str> = snap.iter().map(|(p, _)| p).collect();
        assert_eq!(paths, ["t", "t/a.txt", "t/l", "t/run.sh"]);
    }
}
