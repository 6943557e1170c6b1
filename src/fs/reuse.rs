//! Putting a used episode directory back into the state of its image, so the next episode can
//! take it instead of a directory written from scratch.
//!
//! Writing a tree costs ~6 system calls an entry and deleting it ~2 more; most episodes change a
//! handful of paths. So right after a directory is written (or restored) we record a
//! [`Baseline`]: the inode number and change time (`ctime`) of every path. Nothing a process can
//! do to a path leaves both as they were: writing, truncating, `chmod`, `touch -d`, renaming
//! over it, adding a hard link and adding or removing a directory's entries all set `ctime` to
//! the current time (and no system call sets it to a chosen value), while replacing the path
//! changes the inode. Restoring then walks the directory without following symlinks, removes
//! what the image lacks, rewrites what changed or went missing, and leaves the rest alone.
//!
//! One catch: file times come from the kernel's coarse clock (one tick, 1–10 ms), so a change
//! made in the same tick as the recorded `ctime` could keep it. [`Baseline::settled`] says
//! whether that tick is over; the pool hands out a directory only after it is.
//!
//! Accessing a file changes its `atime` but not its `ctime`; restoring also puts back atimes
//! that moved (materialized entries have atime = mtime), so a reused tree shows exactly the
//! times of a fresh one.

use std::collections::{BTreeMap, HashSet};
#[cfg(test)]
use std::io::Write as _;
use std::os::unix::ffi::OsStrExt;

use cap_std::fs::{Dir, MetadataExt};

use super::image::{TreeImage, ctx, finish_dir, root_file, set_times_nofollow, write_entry};
use crate::{Error, Result};

/// Past this many paths in a used tree, writing a fresh copy is cheaper than restoring.
const MAX_WALKED: usize = 20_000;
/// Guards against absurdly deep trees built by a guest (`mkdir -p a/a/a/...`).
const MAX_DEPTH: usize = 256;

/// Identity and last change of one path.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Stamp {
    ino: u64,
    ctime: (i64, i64),
}

impl Stamp {
    fn of(meta: &cap_std::fs::Metadata) -> Stamp {
        Stamp {
            ino: meta.ino(),
            ctime: (meta.ctime(), meta.ctime_nsec()),
        }
    }
}

/// What the paths of a freshly written (or restored) tree looked like.
#[derive(Debug, Clone, Default)]
pub struct Baseline {
    stamps: BTreeMap<String, Stamp>,
    /// The newest ctime among them.
    newest: (i64, i64),
}

impl Baseline {
    /// Records every path of `image` as it now is in `dir` (which should match it).
    pub fn record(dir: &Dir, image: &TreeImage) -> Result<Baseline> {
        let mut baseline = Baseline::default();
        for f in walk(dir)? {
            if image.get(&f.path).is_some() {
                baseline.set(f.path, f.stamp);
            }
        }
        Ok(baseline)
    }

    fn set(&mut self, path: String, stamp: Stamp) {
        self.newest = self.newest.max(stamp.ctime);
        self.stamps.insert(path, stamp);
    }

    /// Whether the coarse clock has moved past every recorded ctime, so that any later change
    /// to a path gets a later ctime than recorded.
    pub fn settled(&self) -> bool {
        let now = rustix::time::clock_gettime(rustix::time::ClockId::RealtimeCoarse);
        (now.tv_sec, now.tv_nsec) > self.newest
    }
}

/// What the walk found at one path.
struct Found {
    path: String,
    is_dir: bool,
    stamp: Stamp,
    atime: i64,
}

/// Puts `dir` back into the state of `image`, given the `baseline` recorded when it last
/// matched; returns the new baseline. On error the directory is in an unknown state and must
/// not be used for an episode.
pub fn restore(dir: &Dir, image: &TreeImage, baseline: &Baseline) -> Result<Baseline> {
    let root = root_file(dir)?;
    let found = walk(dir)?;
    let mut kept: BTreeMap<&str, Stamp> = BTreeMap::new();
    // Paths whose entries, mode or times this function changes: re-stamped at the end.
    let mut touched: HashSet<String> = HashSet::new();
    let mut dirty_dirs: HashSet<&str> = HashSet::new();
    let mut removed_dirs: Vec<&str> = Vec::new();
    for f in &found {
        if removed_dirs.iter().any(|d| is_below(&f.path, d)) {
            continue;
        }
        let entry = image.get(&f.path);
        let unchanged = baseline.stamps.get(&f.path) == Some(&f.stamp);
        match entry {
            Some(e) if e.is_dir() && f.is_dir => {
                // Children are handled one by one; mode and times below if anything moved.
                if !unchanged || f.atime != e.mtime {
                    dirty_dirs.insert(&f.path);
                }
                kept.insert(&f.path, f.stamp);
            }
            Some(e) if unchanged && !f.is_dir && !e.is_dir() => {
                if f.atime != e.mtime {
                    set_times_nofollow(&root, &f.path, e.mtime).map_err(ctx(&f.path))?;
                    touched.insert(f.path.clone());
                }
                kept.insert(&f.path, f.stamp);
            }
            _ => {
                // Not in the image, changed, or of another kind: away with it.
                remove(dir, &f.path, f.is_dir)?;
                if f.is_dir {
                    removed_dirs.push(&f.path);
                }
                if let Some(parent) = parent_of(&f.path) {
                    dirty_dirs.insert(parent);
                }
            }
        }
    }
    // Rewrite what is missing (parents come before children in image order).
    for (path, entry) in image.iter() {
        if !kept.contains_key(path) {
            write_entry(dir, &root, path, entry)?;
            touched.insert(path.to_string());
            if entry.is_dir() {
                dirty_dirs.insert(path);
            }
            if let Some(parent) = parent_of(path) {
                dirty_dirs.insert(parent);
            }
        }
    }
    // Directories get their mode and times back, children first.
    for (path, entry) in image.iter().collect::<Vec<_>>().into_iter().rev() {
        if entry.is_dir() && dirty_dirs.contains(path) {
            finish_dir(dir, &root, path, entry)?;
            touched.insert(path.to_string());
        }
    }
    let mut next = Baseline::default();
    for (path, stamp) in kept {
        if !touched.contains(path) {
            next.set(path.to_string(), stamp);
        }
    }
    for path in touched {
        let meta = dir.symlink_metadata(&path).map_err(ctx(&path))?;
        next.set(path, Stamp::of(&meta));
    }
    Ok(next)
}

fn parent_of(path: &str) -> Option<&str> {
    path.rsplit_once('/').map(|(parent, _)| parent)
}

fn is_below(path: &str, dir: &str) -> bool {
    path.len() > dir.len() && path.starts_with(dir) && path.as_bytes()[dir.len()] == b'/'
}

/// Every path below `dir`, parents before children, without following symlinks and without
/// moving directory atimes. Directories the guest locked (`chmod 000`) are opened up to be
/// read; restoring puts their mode back.
///
/// Plain `*at` calls on directory handles rather than cap-std: cap-std reopens a directory to
/// list it, which would lose `O_NOATIME`; each name here is a single component, so nothing is
/// resolved through a symlink.
fn walk(dir: &Dir) -> Result<Vec<Found>> {
    use super::walk::{Next, walk};
    use rustix::fs::{AtFlags, Mode};
    let mut found = Vec::new();
    let mut failure: Option<Error> = None;
    let walked = walk(dir, MAX_DEPTH + 1, |e| {
        let Ok(name) = e.name.to_str() else {
            // The image has only UTF-8 names: anything else is extra, removed by name.
            let os = std::ffi::OsStr::from_bytes(e.name.to_bytes()).to_os_string();
            let removed = rustix::io::dup(e.parent)
                .map_err(io(e.path))
                .and_then(|parent| {
                    remove_os(&Dir::from_std_file(std::fs::File::from(parent)), &os)
                        .map_err(ctx(e.path))
                });
            if let Err(err) = removed {
                failure = Some(err);
                return Next::Stop;
            }
            return Next::SkipChildren;
        };
        let is_dir = e.is_dir();
        found.push(Found {
            path: e.path.to_string(),
            is_dir,
            stamp: Stamp {
                ino: e.stat.st_ino,
                ctime: (
                    e.stat.st_ctime,
                    i64::try_from(e.stat.st_ctime_nsec).unwrap_or(0),
                ),
            },
            atime: e.stat.st_atime,
        });
        if found.len() > MAX_WALKED || e.depth > MAX_DEPTH {
            failure = Some(Error::Other(
                "used episode tree too large to restore".into(),
            ));
            return Next::Stop;
        }
        let mode = e.stat.st_mode & 0o7777;
        if is_dir && mode & 0o700 != 0o700 {
            // A directory (checked without following), so chmodat cannot follow a link.
            if let Err(err) = rustix::fs::chmodat(
                e.parent,
                name,
                Mode::from_raw_mode(mode | 0o700),
                AtFlags::empty(),
            ) {
                failure = Some(io(e.path)(err));
                return Next::Stop;
            }
        }
        Next::Continue
    });
    walked.map_err(io(""))?;
    if let Some(err) = failure {
        return Err(err);
    }
    // The caller wants parents first, in path order.
    found.sort_by(|a, b| a.path.cmp(&b.path));
    Ok(found)
}

/// Maps a failed system call on an episode path to a crate error naming that path.
fn io(path: &str) -> impl FnOnce(rustix::io::Errno) -> Error + '_ {
    move |e| ctx(path)(e.into())
}

fn remove(dir: &Dir, path: &str, is_dir: bool) -> Result<()> {
    if is_dir {
        // The walk made every directory below accessible; cap-std removes symlinks, never
        // what they point to.
        dir.remove_dir_all(path).map_err(ctx(path))
    } else {
        dir.remove_file(path).map_err(ctx(path))
    }
}

fn remove_os(dir: &Dir, name: &std::ffi::OsStr) -> std::io::Result<()> {
    match dir.symlink_metadata(name) {
        Ok(m) if m.is_dir() => dir.remove_dir_all(name),
        _ => dir.remove_file(name),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fs::episode::EpisodeDir;
    use crate::fs::image::Entry;
    use std::os::unix::fs::{MetadataExt as _, PermissionsExt};
    use std::path::{Path, PathBuf};

    fn image() -> TreeImage {
        let mut img = TreeImage::empty();
        let t = 1_600_000_000;
        for (path, body, mode) in [
            ("a/one.txt", "one\n", 0o644),
            ("a/two.txt", "two\n", 0o600),
            ("a/b/three.sh", "echo 3\n", 0o755),
            ("c/four.txt", "four\n", 0o644),
            ("top.txt", "top\n", 0o444),
        ] {
            img.insert(path, Entry::file(body.as_bytes().to_vec(), mode, t))
                .unwrap();
        }
        img.insert("a/b", Entry::dir(0o750, t + 5)).unwrap();
        img.insert("link", Entry::symlink("a/one.txt", t + 7))
            .unwrap();
        img.insert("empty", Entry::dir(0o755, t + 9)).unwrap();
        img
    }

    /// Everything a guest could observe of a tree: kinds, modes, sizes, bytes, link targets,
    /// mtimes and atimes (not ctimes or inode numbers, which no copy keeps).
    fn observe(root: &Path) -> BTreeMap<String, String> {
        let mut out = BTreeMap::new();
        let mut stack = vec![PathBuf::new()];
        while let Some(rel) = stack.pop() {
            for e in std::fs::read_dir(root.join(&rel)).unwrap() {
                let e = e.unwrap();
                let rel = rel.join(e.file_name());
                let p = root.join(&rel);
                let m = std::fs::symlink_metadata(&p).unwrap();
                let what = if m.file_type().is_symlink() {
                    format!("link {}", std::fs::read_link(&p).unwrap().display())
                } else if m.is_dir() {
                    stack.push(rel.clone());
                    "dir".to_string()
                } else {
                    format!(
                        "file {:?}",
                        String::from_utf8_lossy(&std::fs::read(&p).unwrap())
                    )
                };
                out.insert(
                    rel.display().to_string(),
                    format!(
                        "{what} mode {:o} mtime {} atime {}",
                        m.mode() & 0o7777,
                        m.mtime(),
                        m.atime()
                    ),
                );
            }
        }
        out
    }

    fn wait_settled(ep: &EpisodeDir) {
        while !ep.settled() {
            std::thread::sleep(std::time::Duration::from_millis(1));
        }
    }

    #[test]
    fn restoring_undoes_whatever_a_guest_did_and_touches_nothing_outside() {
        let img = image();
        let fresh = EpisodeDir::new(&img).unwrap();
        let want = observe(fresh.path());
        let outside = tempfile::tempdir().unwrap();
        std::fs::write(outside.path().join("precious"), b"keep me").unwrap();

        let mut ep = EpisodeDir::new(&img).unwrap();
        for round in 0..3 {
            wait_settled(&ep);
            let r = ep.path().to_path_buf();
            let set_mtime = |p: &Path, secs: i64| {
                let t = crate::fs::image::system_time(secs);
                std::fs::File::options()
                    .write(true)
                    .open(p)
                    .unwrap()
                    .set_times(std::fs::FileTimes::new().set_modified(t).set_accessed(t))
                    .unwrap();
            };
            // Same size, same mtime afterwards: only ctime gives it away.
            std::fs::write(r.join("a/one.txt"), b"ONE\n").unwrap();
            set_mtime(&r.join("a/one.txt"), 1_600_000_000);
            std::fs::OpenOptions::new()
                .append(true)
                .open(r.join("c/four.txt"))
                .unwrap()
                .write_all(b"more\n")
                .unwrap();
            std::fs::set_permissions(r.join("a/two.txt"), PermissionsExt::from_mode(0o777))
                .unwrap();
            let _ = std::fs::read(r.join("top.txt")).unwrap(); // atime only
            std::fs::remove_file(r.join("a/b/three.sh")).unwrap();
            std::fs::hard_link(r.join("top.txt"), r.join("hard")).unwrap();
            std::fs::remove_file(r.join("link")).unwrap();
            std::os::unix::fs::symlink(outside.path(), r.join("link")).unwrap();
            std::os::unix::fs::symlink(outside.path().join("precious"), r.join("out")).unwrap();
            std::fs::remove_dir(r.join("empty")).unwrap();
            std::fs::write(r.join("empty"), b"now a file").unwrap();
            std::fs::create_dir_all(r.join("new/locked/deeper")).unwrap();
            std::fs::write(r.join("new/locked/deeper/f"), b"x").unwrap();
            std::fs::set_permissions(r.join("new/locked"), PermissionsExt::from_mode(0o000))
                .unwrap();
            std::fs::set_permissions(r.join("a/b"), PermissionsExt::from_mode(0o000)).unwrap();
            std::fs::rename(r.join("c"), r.join("c2")).unwrap();
            if round == 1 {
                std::fs::set_permissions(&r, PermissionsExt::from_mode(0o000)).unwrap();
            }
            ep.restore(&img).unwrap();
            assert_eq!(observe(ep.path()), want, "round {round}");
            assert_eq!(
                std::fs::read(outside.path().join("precious")).unwrap(),
                b"keep me"
            );
            assert_eq!(std::fs::metadata(ep.path()).unwrap().mode() & 0o777, 0o755);
        }
    }

    #[test]
    fn an_untouched_tree_is_left_alone() {
        let img = image();
        let mut ep = EpisodeDir::new(&img).unwrap();
        wait_settled(&ep);
        let ino = std::fs::metadata(ep.path().join("a/one.txt"))
            .unwrap()
            .ino();
        ep.restore(&img).unwrap();
        assert_eq!(
            std::fs::metadata(ep.path().join("a/one.txt"))
                .unwrap()
                .ino(),
            ino,
            "rewritten although unchanged"
        );
    }
}
