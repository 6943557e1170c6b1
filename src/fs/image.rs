//! [`TreeImage`]: an in-memory picture of a file tree (directories, files with their bytes,
//! symlinks, mode bits and mtimes) that can be written out into a fresh directory many times.
//!
//! Why in memory: every bash episode starts from the same tree, and upstream resets it with
//! `git reset --hard; git clean -fd`. Decoding a `.tar.gz` once and replaying it with plain
//! `mkdir`/`write` calls is far cheaper than unpacking per episode, and it lets us overlay a
//! synthetic base system ([`super::base_system`]) under a task tree with [`TreeImage::merge`].
//!
//! Invariants (kept by [`TreeImage::insert`]):
//! * paths are relative, `/`-separated, without `.`/`..`/empty components or a trailing slash;
//! * every ancestor of an entry is a directory entry of the image (missing ones are added with
//!   mode 0755 and [`DEFAULT_MTIME`]), so no entry ever lies "below" a file or a symlink. That
//!   is what lets [`TreeImage::materialize`] create everything without traversing a symlink.
//!
//! ```
//! use intercode::fs::image::{Entry, TreeImage};
//! let mut img = TreeImage::empty();
//! img.insert("project/hello.txt", Entry::file(b"hi\n".to_vec(), 0o644, 0)).unwrap();
//! assert!(img.get("project").is_some_and(Entry::is_dir));
//! ```

use std::collections::BTreeMap;
use std::fmt;
use std::io::{Read, Write};
use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use cap_std::fs::Dir;

use crate::{Error, Result};

/// The mtime given to directories the image had to invent (missing parents) and the default for
/// our fixtures: 2023-06-01T00:00:00Z, roughly when upstream built its images.
pub const DEFAULT_MTIME: i64 = 1_685_577_600;

/// What a path is.
#[derive(Clone, PartialEq, Eq)]
pub enum EntryKind {
    Dir,
    File(Vec<u8>),
    /// The link target, stored verbatim (it may be absolute: the guest resolves it against its
    /// own root, never the host's).
    Symlink(String),
}

impl fmt::Debug for EntryKind {
    // File contents would drown any debug output; the length is what matters when debugging.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            EntryKind::Dir => f.write_str("Dir"),
            EntryKind::File(bytes) => write!(f, "File({} bytes)", bytes.len()),
            EntryKind::Symlink(target) => write!(f, "Symlink({target:?})"),
        }
    }
}

/// One path of a [`TreeImage`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    pub kind: EntryKind,
    /// Permission bits including setuid/setgid/sticky (`mode & 0o7777`).
    pub mode: u32,
    /// Modification time, seconds since the Unix epoch (UTC).
    pub mtime: i64,
}

impl Entry {
    pub fn dir(mode: u32, mtime: i64) -> Entry {
        Entry {
            kind: EntryKind::Dir,
            mode: mode & 0o7777,
            mtime,
        }
    }

    pub fn file(contents: Vec<u8>, mode: u32, mtime: i64) -> Entry {
        Entry {
            kind: EntryKind::File(contents),
            mode: mode & 0o7777,
            mtime,
        }
    }

    /// Symlink modes are meaningless on Linux; 0777 is what `lstat` reports.
    pub fn symlink(target: impl Into<String>, mtime: i64) -> Entry {
        Entry {
            kind: EntryKind::Symlink(target.into()),
            mode: 0o777,
            mtime,
        }
    }

    pub fn is_dir(&self) -> bool {
        matches!(self.kind, EntryKind::Dir)
    }
}

/// An in-memory file tree; see the module docs.
#[derive(Clone, Default, PartialEq, Eq)]
pub struct TreeImage {
    entries: BTreeMap<String, Entry>,
}

impl fmt::Debug for TreeImage {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TreeImage")
            .field("entries", &self.entries.len())
            .finish()
    }
}

impl TreeImage {
    /// An image with no entries.
    pub fn empty() -> TreeImage {
        TreeImage::default()
    }

    /// Decodes a gzip-compressed tar archive (GNU, ustar or pax) whose member names are relative
    /// to `/` (`testbed/dir1/x.txt`, `./x`, `/x` are all accepted).
    pub fn from_tar_gz(bytes: &[u8]) -> Result<TreeImage> {
        let mut tar = Vec::new();
        flate2::read::GzDecoder::new(bytes)
            .read_to_end(&mut tar)
            .map_err(|e| Error::Other(format!("not a gzip stream: {e}")))?;
        TreeImage::from_tar(&tar)
    }

    /// Reads and decodes a `.tar.gz` file from the host.
    pub fn from_tar_gz_file(path: &Path) -> Result<TreeImage> {
        let bytes = super::host::read(path)?;
        TreeImage::from_tar_gz(&bytes).map_err(|e| match e {
            Error::Other(reason) => Error::Other(format!("{}: {reason}", path.display())),
            other => other,
        })
    }

    /// Decodes an uncompressed tar archive. Hard links become copies of their target's bytes;
    /// device nodes and FIFOs are skipped (nothing in a task tree needs them and a sandbox could
    /// not use them).
    pub fn from_tar(bytes: &[u8]) -> Result<TreeImage> {
        let bad = |e: std::io::Error| Error::Other(format!("malformed tar archive: {e}"));
        let mut image = TreeImage::empty();
        let mut archive = tar::Archive::new(bytes);
        for entry in archive.entries().map_err(bad)? {
            let mut entry = entry.map_err(bad)?;
            let raw_path = entry.path().map_err(bad)?.to_string_lossy().into_owned();
            let Some(path) = normalize(&raw_path) else {
                // `./` itself (GNU tar's first member with `-C dir .`) describes the root.
                if is_root(&raw_path) {
                    continue;
                }
                return Err(Error::Other(format!(
                    "malformed tar archive: unsafe member name {raw_path:?}"
                )));
            };
            let header = entry.header();
            let mode = header.mode().map_err(bad)?;
            // Negative or absurd mtimes cannot come out of a u64 field; clamp instead of failing.
            let mtime = i64::try_from(header.mtime().map_err(bad)?).unwrap_or(i64::MAX);
            let kind = header.entry_type();
            let new = if kind.is_dir() {
                Entry::dir(mode, mtime)
            } else if kind.is_symlink() {
                let target = entry
                    .link_name()
                    .map_err(bad)?
                    .ok_or_else(|| Error::Other(format!("symlink {path} has no target")))?;
                Entry::symlink(target.to_string_lossy().into_owned(), mtime)
            } else if kind.is_hard_link() {
                let target = entry
                    .link_name()
                    .map_err(bad)?
                    .and_then(|t| normalize(&t.to_string_lossy()))
                    .ok_or_else(|| Error::Other(format!("hard link {path} has no target")))?;
                match image.get(&target) {
                    Some(Entry {
                        kind: EntryKind::File(bytes),
                        ..
                    }) => Entry::file(bytes.clone(), mode, mtime),
                    _ => {
                        return Err(Error::Other(format!(
                            "hard link {path} points to {target}, which is not an earlier file"
                        )));
                    }
                }
            } else if kind.is_file() || kind.is_contiguous() {
                let mut contents = Vec::with_capacity(usize::try_from(entry.size()).unwrap_or(0));
                entry.read_to_end(&mut contents).map_err(bad)?;
                Entry::file(contents, mode, mtime)
            } else if kind.is_pax_global_extensions()
                || kind.is_pax_local_extensions()
                || kind.is_gnu_longname()
                || kind.is_gnu_longlink()
            {
                continue;
            } else {
                // Character/block devices, FIFOs, sparse or unknown types.
                continue;
            };
            image.insert(&path, new)?;
        }
        Ok(image)
    }

    /// Reads a host directory recursively. Symlinks are recorded as symlinks and never followed;
    /// sockets, FIFOs and devices are skipped. Names must be UTF-8.
    pub fn from_dir(path: &Path) -> Result<TreeImage> {
        let root = Dir::open_ambient_dir(path, cap_std::ambient_authority())
            .map_err(|e| Error::io(path, e))?;
        let mut image = TreeImage::empty();
        read_dir_into(&root, path, "", &mut image)?;
        Ok(image)
    }

    /// Adds (or replaces) one entry, keeping the module invariants: missing ancestors are added
    /// as directories, an ancestor that is a file or symlink is replaced by a directory, and a
    /// non-directory replacing a directory removes everything below it (overlay semantics: the
    /// newest entry wins).
    pub fn insert(&mut self, path: &str, entry: Entry) -> Result<()> {
        let path = normalize(path)
            .ok_or_else(|| Error::Other(format!("invalid path in tree image: {path:?}")))?;
        for (i, _) in path.match_indices('/') {
            let ancestor = &path[..i];
            match self.entries.get(ancestor) {
                Some(e) if e.is_dir() => {}
                _ => {
                    self.entries
                        .insert(ancestor.to_string(), Entry::dir(0o755, DEFAULT_MTIME));
                }
            }
        }
        if !entry.is_dir() {
            self.remove_below(&path);
        }
        self.entries.insert(path, entry);
        Ok(())
    }

    /// Overlays `other` on `self`: entries of `other` replace entries of `self` at the same path
    /// (typical use: `base_system(..).merge(task_tree)`).
    pub fn merge(&mut self, other: TreeImage) {
        for (path, entry) in other.entries {
            // Paths of another image are already valid, so this cannot fail.
            let _ = self.insert(&path, entry);
        }
    }

    pub fn get(&self, path: &str) -> Option<&Entry> {
        self.entries.get(path)
    }

    /// Entries in path order (a parent always comes before its children).
    pub fn iter(&self) -> impl Iterator<Item = (&str, &Entry)> {
        self.entries.iter().map(|(p, e)| (p.as_str(), e))
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Writes the image into `dest`, which should be empty: directories, files (bytes, exact
    /// mode bits, mtime = atime = the recorded mtime) and symlinks (targets as written, mtime set
    /// without following them). Directory modes and mtimes are applied last, children first, so
    /// creating children neither bumps a parent's mtime nor trips over a read-only parent.
    pub fn materialize(&self, dest: &Dir) -> Result<()> {
        let root = root_file(dest)?;
        let mut dirs = Vec::new();
        for (path, entry) in &self.entries {
            write_entry(dest, &root, path, entry)?;
            if entry.is_dir() {
                dirs.push((path.as_str(), entry));
            }
        }
        for (path, entry) in dirs.into_iter().rev() {
            finish_dir(dest, &root, path, entry)?;
        }
        Ok(())
    }

    /// The image as a `.tar.gz` of the shape `fs_N.effective.tar.gz` has (GNU format, owner
    /// 0:0, directories as `name/`, paths in order); [`TreeImage::from_tar_gz`] reads it back.
    /// Times before 1970 become 0 (tar headers cannot hold them).
    pub fn to_tar_gz(&self) -> Result<Vec<u8>> {
        let gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
        let mut builder = tar::Builder::new(gz);
        for (path, entry) in &self.entries {
            let mut header = tar::Header::new_gnu();
            header.set_mode(entry.mode);
            header.set_uid(0);
            header.set_gid(0);
            header.set_mtime(u64::try_from(entry.mtime).unwrap_or(0));
            let written = match &entry.kind {
                EntryKind::Dir => {
                    header.set_entry_type(tar::EntryType::Directory);
                    header.set_size(0);
                    builder.append_data(&mut header, format!("{path}/"), std::io::empty())
                }
                EntryKind::File(bytes) => {
                    header.set_entry_type(tar::EntryType::Regular);
                    header.set_size(bytes.len() as u64);
                    builder.append_data(&mut header, path, bytes.as_slice())
                }
                EntryKind::Symlink(target) => {
                    header.set_entry_type(tar::EntryType::Symlink);
                    header.set_size(0);
                    builder.append_link(&mut header, path, target)
                }
            };
            written.map_err(ctx(path))?;
        }
        let gz = builder.into_inner().map_err(Error::PlainIo)?;
        gz.finish().map_err(Error::PlainIo)
    }

    fn remove_below(&mut self, path: &str) {
        // Descendants of `p` are exactly the keys in ["p/", "p0"): '0' is the byte after '/'.
        let lo = format!("{path}/");
        let hi = format!("{path}0");
        let doomed: Vec<String> = self.entries.range(lo..hi).map(|(k, _)| k.clone()).collect();
        for key in doomed {
            self.entries.remove(&key);
        }
    }
}

/// A std `File` for `dest`, which `set_times_nofollow` wants as its root; one dup per call.
pub(crate) fn root_file(dest: &Dir) -> Result<std::fs::File> {
    Ok(dest.try_clone().map_err(Error::PlainIo)?.into_std_file())
}

/// Writes one entry at `path` (its parent must exist): a file (bytes, exact mode bits, mtime =
/// atime = the recorded mtime), a symlink (verbatim target, mtime set without following it) or
/// a directory (created if missing; its mode and times are [`finish_dir`]'s job, after its
/// children, so creating them neither bumps its mtime nor trips over a read-only mode).
pub(crate) fn write_entry(
    dest: &Dir,
    root: &std::fs::File,
    path: &str,
    entry: &Entry,
) -> Result<()> {
    match &entry.kind {
        EntryKind::Dir => match dest.create_dir(path) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {}
            Err(e) => return Err(ctx(path)(e)),
        },
        EntryKind::File(bytes) => {
            let mut file = dest.create(path).map_err(ctx(path))?.into_std();
            file.write_all(bytes).map_err(ctx(path))?;
            file.set_permissions(std::fs::Permissions::from_mode(entry.mode))
                .map_err(ctx(path))?;
            let t = system_time(entry.mtime);
            file.set_times(std::fs::FileTimes::new().set_accessed(t).set_modified(t))
                .map_err(ctx(path))?;
        }
        EntryKind::Symlink(target) => {
            // Absolute targets are stored so that they resolve beneath the root (`links`).
            let depth = crate::fs::links::parent_depth(Path::new(path));
            dest.symlink_contents(crate::fs::links::stored_form(target, depth), path)
                .map_err(ctx(path))?;
            set_times_nofollow(root, path, entry.mtime).map_err(ctx(path))?;
        }
    }
    Ok(())
}

/// Gives a directory written by [`write_entry`] its recorded mode and times.
pub(crate) fn finish_dir(
    dest: &Dir,
    root: &std::fs::File,
    path: &str,
    entry: &Entry,
) -> Result<()> {
    dest.set_permissions(path, cap_permissions(entry.mode))
        .map_err(ctx(path))?;
    set_times_nofollow(root, path, entry.mtime).map_err(ctx(path))
}

/// cap-std's own `Permissions` (the std one cannot be passed to a `Dir`).
pub(crate) fn cap_permissions(mode: u32) -> cap_std::fs::Permissions {
    <cap_std::fs::Permissions as cap_std::fs::PermissionsExt>::from_mode(mode)
}

/// Maps an I/O error on an episode path to a crate error naming that path.
pub(crate) fn ctx(path: &str) -> impl FnOnce(std::io::Error) -> Error + '_ {
    move |e| Error::io(format!("<episode>/{path}"), e)
}

pub(crate) fn set_times_nofollow(
    root: &std::fs::File,
    path: &str,
    mtime: i64,
) -> std::io::Result<()> {
    let t = cap_primitives::time::SystemTime::from_std(system_time(mtime));
    cap_primitives::fs::set_times_nofollow(
        root,
        Path::new(path),
        Some(cap_primitives::fs::SystemTimeSpec::Absolute(t)),
        Some(cap_primitives::fs::SystemTimeSpec::Absolute(t)),
    )
}

/// Seconds since the epoch (possibly negative) as a `SystemTime`.
pub(crate) fn system_time(secs: i64) -> SystemTime {
    let magnitude = Duration::from_secs(secs.unsigned_abs());
    if secs >= 0 {
        UNIX_EPOCH + magnitude
    } else {
        UNIX_EPOCH - magnitude
    }
}

/// Seconds since the epoch of a `SystemTime` (before-epoch times are negative).
pub(crate) fn epoch_secs(t: SystemTime) -> i64 {
    match t.duration_since(UNIX_EPOCH) {
        Ok(d) => i64::try_from(d.as_secs()).unwrap_or(i64::MAX),
        Err(e) => {
            // Round towards negative infinity like `stat` does for pre-epoch times.
            let d = e.duration();
            let secs = i64::try_from(d.as_secs()).unwrap_or(i64::MAX);
            if d.subsec_nanos() > 0 {
                -secs - 1
            } else {
                -secs
            }
        }
    }
}

fn is_root(raw: &str) -> bool {
    raw.split('/').all(|c| c.is_empty() || c == ".")
}

/// Canonical relative form of an archive or image path, or `None` when it is the root or tries
/// to climb out with `..`.
pub(crate) fn normalize(raw: &str) -> Option<String> {
    let mut parts = Vec::new();
    for component in raw.split('/') {
        match component {
            "" | "." => {}
            ".." => return None,
            name => parts.push(name),
        }
    }
    if parts.is_empty() {
        None
    } else {
        Some(parts.join("/"))
    }
}

fn read_dir_into(dir: &Dir, host_root: &Path, prefix: &str, image: &mut TreeImage) -> Result<()> {
    let here = |name: &str| host_root.join(prefix).join(name);
    let mut names = Vec::new();
    for item in dir
        .entries()
        .map_err(|e| Error::io(host_root.join(prefix), e))?
    {
        let item = item.map_err(|e| Error::io(host_root.join(prefix), e))?;
        let name = item.file_name();
        let name = name
            .into_string()
            .map_err(|n| Error::Other(format!("non-UTF-8 file name {n:?} under {prefix:?}")))?;
        names.push(name);
    }
    // Sorted so the image (and anything derived from it) does not depend on readdir order.
    names.sort();
    for name in names {
        let rel = if prefix.is_empty() {
            name.clone()
        } else {
            format!("{prefix}/{name}")
        };
        let meta = dir
            .symlink_metadata(&name)
            .map_err(|e| Error::io(here(&name), e))?;
        let mode = cap_std::fs::PermissionsExt::mode(&meta.permissions());
        let mtime = meta
            .modified()
            .map(|t| epoch_secs(t.into_std()))
            .unwrap_or(DEFAULT_MTIME);
        let ft = meta.file_type();
        if ft.is_symlink() {
            let stored = dir
                .read_link_contents(&name)
                .map_err(|e| Error::io(here(&name), e))?;
            let depth = crate::fs::links::parent_depth(Path::new(&rel));
            let target = crate::fs::links::written_form(&stored.to_string_lossy(), depth);
            image.insert(&rel, Entry::symlink(target, mtime))?;
        } else if ft.is_dir() {
            image.insert(&rel, Entry::dir(mode, mtime))?;
            let sub = dir.open_dir(&name).map_err(|e| Error::io(here(&name), e))?;
            read_dir_into(&sub, host_root, &rel, image)?;
        } else if ft.is_file() {
            let bytes = dir.read(&name).map_err(|e| Error::io(here(&name), e))?;
            image.insert(&rel, Entry::file(bytes, mode, mtime))?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::MetadataExt;
    use std::path::PathBuf;

    fn tar_gz(build: impl FnOnce(&mut tar::Builder<Vec<u8>>)) -> Vec<u8> {
        let mut b = tar::Builder::new(Vec::new());
        build(&mut b);
        let tar = b.into_inner().unwrap();
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        gz.write_all(&tar).unwrap();
        gz.finish().unwrap()
    }

    fn header(kind: tar::EntryType, mode: u32, mtime: u64, size: u64) -> tar::Header {
        let mut h = tar::Header::new_gnu();
        h.set_entry_type(kind);
        h.set_mode(mode);
        h.set_mtime(mtime);
        h.set_size(size);
        h
    }

    fn sample() -> TreeImage {
        let mut img = TreeImage::empty();
        img.insert("a", Entry::dir(0o750, 1000)).unwrap();
        img.insert("a/x.txt", Entry::file(b"x\n".to_vec(), 0o644, 2000))
            .unwrap();
        img.insert(
            "a/run.sh",
            Entry::file(b"#!/bin/sh\n".to_vec(), 0o755, 3000),
        )
        .unwrap();
        img.insert("a/link", Entry::symlink("x.txt", 4000)).unwrap();
        img.insert("abs", Entry::symlink("/etc/passwd", 5000))
            .unwrap();
        img.insert("tmp", Entry::dir(0o1777, 6000)).unwrap();
        img.insert("ro", Entry::dir(0o555, 7000)).unwrap();
        img.insert("ro/f", Entry::file(Vec::new(), 0o400, 8000))
            .unwrap();
        img
    }

    #[test]
    fn insert_adds_missing_parents_and_replaces_conflicts() {
        let mut img = TreeImage::empty();
        img.insert("./a/b/c.txt", Entry::file(b"1".to_vec(), 0o644, 1))
            .unwrap();
        assert!(img.get("a").unwrap().is_dir());
        assert_eq!(img.get("a/b").unwrap().mtime, DEFAULT_MTIME);
        // A file replacing a directory removes its subtree ...
        img.insert("a/b", Entry::file(b"2".to_vec(), 0o644, 1))
            .unwrap();
        assert!(img.get("a/b/c.txt").is_none());
        // ... and an entry below a file turns the file back into a directory.
        img.insert("a/b/d", Entry::file(b"3".to_vec(), 0o644, 1))
            .unwrap();
        assert!(img.get("a/b").unwrap().is_dir());
        assert_eq!(img.len(), 3);
        assert!(img.insert("../x", Entry::dir(0o755, 0)).is_err());
        assert!(img.insert("", Entry::dir(0o755, 0)).is_err());
        // Siblings sharing a prefix ("a/b" vs "a/b.txt", "a/b0") survive a subtree removal.
        img.insert("a/b.txt", Entry::file(Vec::new(), 0o644, 1))
            .unwrap();
        img.insert("a/b0", Entry::file(Vec::new(), 0o644, 1))
            .unwrap();
        img.insert("a/b", Entry::symlink("b.txt", 1)).unwrap();
        assert!(img.get("a/b.txt").is_some() && img.get("a/b0").is_some());
        assert!(img.get("a/b/d").is_none());
    }

    #[test]
    fn merge_overlays_other_on_self() {
        let mut base = TreeImage::empty();
        base.insert("etc/hostname", Entry::file(b"old\n".to_vec(), 0o644, 1))
            .unwrap();
        base.insert("keep", Entry::file(b"k".to_vec(), 0o644, 1))
            .unwrap();
        let mut top = TreeImage::empty();
        top.insert("etc/hostname", Entry::file(b"new\n".to_vec(), 0o600, 2))
            .unwrap();
        base.merge(top);
        assert_eq!(
            base.get("etc/hostname").unwrap(),
            &Entry::file(b"new\n".to_vec(), 0o600, 2)
        );
        assert!(base.get("keep").is_some());
    }

    #[test]
    fn written_archives_read_back_identically() {
        let mut img = TreeImage::empty();
        img.insert("d", Entry::dir(0o750, 100)).unwrap();
        img.insert("d/x.sh", Entry::file(b"abc".to_vec(), 0o755, 101))
            .unwrap();
        img.insert("d/l", Entry::symlink("/etc/hosts", 102))
            .unwrap();
        let long = format!("d/{}.txt", "n".repeat(150));
        img.insert(&long, Entry::file(b"z".to_vec(), 0o400, 103))
            .unwrap();
        img.insert(".placeholder", Entry::file(Vec::new(), 0o644, 104))
            .unwrap();
        let back = TreeImage::from_tar_gz(&img.to_tar_gz().unwrap()).unwrap();
        assert_eq!(back, img);
        assert_eq!(
            TreeImage::from_tar_gz(&TreeImage::empty().to_tar_gz().unwrap()).unwrap(),
            TreeImage::empty()
        );
    }

    #[test]
    fn tar_gz_round_trip_keeps_kinds_modes_and_mtimes() {
        let bytes = tar_gz(|b| {
            b.append_data(
                &mut header(tar::EntryType::Directory, 0o755, 10, 0),
                "./",
                &[][..],
            )
            .unwrap();
            b.append_data(
                &mut header(tar::EntryType::Directory, 0o700, 11, 0),
                "d/",
                &[][..],
            )
            .unwrap();
            b.append_data(
                &mut header(tar::EntryType::Regular, 0o755, 12, 3),
                "d/x.sh",
                &b"abc"[..],
            )
            .unwrap();
            let mut h = header(tar::EntryType::Symlink, 0o777, 13, 0);
            b.append_link(&mut h, "d/l", "/etc/hosts").unwrap();
            let mut h = header(tar::EntryType::Link, 0o644, 14, 0);
            b.append_link(&mut h, "d/hard", "d/x.sh").unwrap();
            // A long name exercises the GNU longname extension.
            let long = format!("d/{}.txt", "n".repeat(150));
            b.append_data(
                &mut header(tar::EntryType::Regular, 0o644, 15, 1),
                &long,
                &b"z"[..],
            )
            .unwrap();
        });
        let img = TreeImage::from_tar_gz(&bytes).unwrap();
        assert_eq!(img.get("d").unwrap(), &Entry::dir(0o700, 11));
        assert_eq!(
            img.get("d/x.sh").unwrap(),
            &Entry::file(b"abc".to_vec(), 0o755, 12)
        );
        assert_eq!(
            img.get("d/l").unwrap().kind,
            EntryKind::Symlink("/etc/hosts".into())
        );
        assert_eq!(
            img.get("d/hard").unwrap(),
            &Entry::file(b"abc".to_vec(), 0o644, 14)
        );
        assert_eq!(img.len(), 5);
    }

    #[test]
    fn bad_archives_are_errors_not_panics() {
        assert!(TreeImage::from_tar_gz(b"not gzip").is_err());
        let gz_garbage = {
            let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
            gz.write_all(&[7u8; 1024]).unwrap();
            gz.finish().unwrap()
        };
        assert!(TreeImage::from_tar_gz(&gz_garbage).is_err());
        // The tar crate refuses to *write* `..` names, so forge the header bytes directly.
        let climbing = {
            let mut h = header(tar::EntryType::Regular, 0o644, 1, 1);
            h.as_old_mut().name[..9].copy_from_slice(b"../escape");
            h.set_cksum();
            let mut b = tar::Builder::new(Vec::new());
            b.append(&h, &b"z"[..]).unwrap();
            b.into_inner().unwrap()
        };
        assert!(TreeImage::from_tar(&climbing).is_err());
        assert!(TreeImage::from_tar_gz_file(Path::new("/nonexistent/x.tar.gz")).is_err());
    }

    #[test]
    fn materialize_preserves_modes_mtimes_and_symlinks() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = Dir::open_ambient_dir(tmp.path(), cap_std::ambient_authority()).unwrap();
        let img = sample();
        img.materialize(&dir).unwrap();
        let p = tmp.path();
        let meta = |rel: &str| std::fs::symlink_metadata(p.join(rel)).unwrap();
        assert_eq!(meta("a").mode() & 0o7777, 0o750);
        assert_eq!(meta("a").mtime(), 1000);
        assert_eq!(meta("a/x.txt").mtime(), 2000);
        assert_eq!(meta("a/run.sh").mode() & 0o7777, 0o755);
        assert_eq!(meta("a/link").mtime(), 4000);
        // An absolute target is stored to resolve beneath the root (`links`), and read back
        // as written (below).
        assert_eq!(
            std::fs::read_link(p.join("abs")).unwrap(),
            Path::new("././etc/passwd")
        );
        assert_eq!(meta("tmp").mode() & 0o7777, 0o1777);
        assert_eq!(meta("ro").mode() & 0o7777, 0o555);
        assert_eq!(meta("ro/f").mode() & 0o7777, 0o400);
        assert_eq!(std::fs::read(p.join("a/x.txt")).unwrap(), b"x\n");
        // Reading the directory back gives the same image.
        let back = TreeImage::from_dir(p).unwrap();
        assert_eq!(back, img);
        // Make the tree removable for non-root test runs.
        std::fs::set_permissions(p.join("ro"), std::fs::Permissions::from_mode(0o755)).unwrap();
    }

    #[test]
    fn negative_mtimes_round_trip() {
        assert_eq!(epoch_secs(system_time(-5)), -5);
        assert_eq!(epoch_secs(system_time(DEFAULT_MTIME)), DEFAULT_MTIME);
    }

    #[test]
    fn materialize_fifty_files_is_fast() {
        let mut img = TreeImage::empty();
        for d in 0..5 {
            for f in 0..10 {
                let body = format!("file {d}/{f}\n").repeat(20);
                img.insert(
                    &format!("project/d{d}/f{f}.txt"),
                    Entry::file(body.into_bytes(), 0o644, DEFAULT_MTIME),
                )
                .unwrap();
            }
        }
        // The system temp dir (often a disk filesystem, where file creation dominates) and,
        // when present, a tmpfs.
        let mut best = Duration::MAX;
        for parent in [std::env::temp_dir(), PathBuf::from("/dev/shm")] {
            if !parent.is_dir() {
                continue;
            }
            let mut here = Duration::MAX;
            for _ in 0..20 {
                let tmp = tempfile::tempdir_in(&parent).unwrap();
                let dir = Dir::open_ambient_dir(tmp.path(), cap_std::ambient_authority()).unwrap();
                let start = std::time::Instant::now();
                img.materialize(&dir).unwrap();
                here = here.min(start.elapsed());
            }
            println!(
                "materialize 50 files + 6 dirs under {}: best of 20 {here:?}",
                parent.display()
            );
            best = best.min(here);
        }
        // Generous bound so a loaded CI machine does not flake; the point is "not tens of ms".
        assert!(best < Duration::from_millis(50), "took {best:?}");
    }
}
