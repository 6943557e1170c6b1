//! Upstream's reset between tasks, `git reset --hard; git clean -fd` in a container that lives
//! for the whole run (UPSTREAM-BEHAVIOUR.md §2.2), computed on [`TreeImage`]s: what the tree
//! an episode left behind looks like after it.
//!
//! The repository is `/` with upstream's `.gitignore` ([`IGNORED_NAMES`], unanchored):
//! * **Tracked** paths are the committed tree's files and symlinks with no ignored component.
//!   One that is missing, of another kind, or differs in contents, link target or
//!   owner-executable bit is written again: git's mode (0644 or 0755), a fresh mtime. Any other
//!   change is invisible to git and stays: a `chmod 600`, a `touch`, a file's own mtime.
//!   A directory standing where a tracked file belongs goes, with everything under it.
//! * **Untracked** files and symlinks go (`clean -f`), and so does every directory left empty
//!   (`clean -d`). Nothing under an ignored name is touched: `/root`, `/usr`, `/etc`… keep what
//!   earlier tasks did to them, and a directory that holds an ignored entry stays.
//! * A directory of a nested repository (one holding `.git`) is left alone, as `clean -fd`
//!   does without a second `-f`.
//! * Directories git had to create again get mode 0755; directories whose entries changed get
//!   the fresh mtime.

use std::collections::{BTreeMap, BTreeSet};

use super::base_system::IGNORED_NAMES;
use super::image::{Entry, EntryKind, TreeImage};

/// Whether git ignores `path` (one of its components is an ignored name).
fn is_ignored(path: &str) -> bool {
    path.split('/').any(|part| IGNORED_NAMES.contains(&part))
}

fn parent_of(path: &str) -> Option<&str> {
    path.rsplit_once('/').map(|(parent, _)| parent)
}

fn is_below(path: &str, dir: &str) -> bool {
    path.len() > dir.len() && path.starts_with(dir) && path.as_bytes()[dir.len()] == b'/'
}

/// What git's checkout leaves of a tracked entry that is already there: it is rewritten when
/// its kind, bytes, link target or owner-executable bit differ from the committed one.
fn same_for_git(now: &Entry, committed: &Entry) -> bool {
    match (&now.kind, &committed.kind) {
        (EntryKind::File(a), EntryKind::File(b)) => {
            a == b && (now.mode & 0o100) == (committed.mode & 0o100)
        }
        (EntryKind::Symlink(a), EntryKind::Symlink(b)) => a == b,
        _ => false,
    }
}

/// The entry git writes for a committed one, at time `now`.
fn checked_out(committed: &Entry, now: i64) -> Entry {
    match &committed.kind {
        EntryKind::File(bytes) => {
            let mode = if committed.mode & 0o100 != 0 {
                0o755
            } else {
                0o644
            };
            Entry::file(bytes.clone(), mode, now)
        }
        EntryKind::Symlink(target) => Entry::symlink(target.clone(), now),
        EntryKind::Dir => Entry::dir(0o755, now),
    }
}

/// The tree `current` becomes after `git reset --hard; git clean -fd` in a repository whose
/// commit is `committed`, at time `now` (seconds since the epoch).
pub fn after_git_reset(current: &TreeImage, committed: &TreeImage, now: i64) -> TreeImage {
    let tracked: BTreeMap<&str, &Entry> = committed
        .iter()
        .filter(|(path, entry)| !entry.is_dir() && !is_ignored(path))
        .collect();
    // Directories that hold a nested repository: git clean leaves them whole.
    let nested_repos: Vec<&str> = current
        .iter()
        .filter(|(path, entry)| entry.is_dir() && path.rsplit('/').next() == Some(".git"))
        .filter_map(|(path, _)| parent_of(path))
        .collect();
    let kept_whole = |path: &str| {
        is_ignored(path)
            || nested_repos
                .iter()
                .any(|repo| path == *repo || is_below(path, repo))
    };

    let mut result: BTreeMap<String, Entry> = BTreeMap::new();
    // Directories whose list of entries changed: they get the fresh mtime.
    let mut changed_dirs: BTreeSet<String> = BTreeSet::new();
    let mut removed_below: Vec<&str> = Vec::new();
    for (path, entry) in current.iter() {
        if removed_below.iter().any(|dir| is_below(path, dir)) {
            continue;
        }
        let keep = if kept_whole(path) {
            true
        } else if let Some(committed_entry) = tracked.get(path) {
            if entry.is_dir() {
                // A directory where a tracked file belongs: checkout removes it, contents too.
                removed_below.push(path);
            }
            same_for_git(entry, committed_entry)
        } else {
            // Untracked: a file or symlink goes; a directory stays for now and goes below if
            // nothing is left in it.
            entry.is_dir()
        };
        if keep {
            result.insert(path.to_string(), entry.clone());
        } else if let Some(parent) = parent_of(path) {
            changed_dirs.insert(parent.to_string());
        }
    }
    // Tracked paths that are missing or were dropped above are written again, their missing
    // directories created (an untracked file standing where one belongs goes).
    for (path, committed_entry) in &tracked {
        if result.contains_key(*path) {
            continue;
        }
        let mut at = 0;
        while let Some(slash) = path[at..].find('/') {
            let dir = &path[..at + slash];
            match result.get(dir) {
                Some(entry) if entry.is_dir() => {}
                _ => {
                    result.insert(dir.to_string(), Entry::dir(0o755, now));
                    if let Some(parent) = parent_of(dir) {
                        changed_dirs.insert(parent.to_string());
                    }
                }
            }
            at += slash + 1;
        }
        result.insert(path.to_string(), checked_out(committed_entry, now));
        if let Some(parent) = parent_of(path) {
            changed_dirs.insert(parent.to_string());
        }
    }
    // `clean -d`: directories left empty go, deepest first, which may empty their parents.
    let dirs: Vec<String> = result
        .iter()
        .filter(|(path, entry)| entry.is_dir() && !kept_whole(path))
        .map(|(path, _)| path.clone())
        .collect();
    for dir in dirs.iter().rev() {
        let has_entries = result
            .range::<str, _>((
                std::ops::Bound::Excluded(dir.as_str()),
                std::ops::Bound::Unbounded,
            ))
            .next()
            .is_some_and(|(next, _)| is_below(next, dir));
        if !has_entries {
            result.remove(dir);
            if let Some(parent) = parent_of(dir) {
                changed_dirs.insert(parent.to_string());
            }
        }
    }
    for dir in &changed_dirs {
        if let Some(entry) = result.get_mut(dir)
            && entry.is_dir()
        {
            entry.mtime = now;
        }
    }
    let mut image = TreeImage::empty();
    for (path, entry) in result {
        // Paths come from valid images, parents first: inserting cannot fail or invent.
        let _ = image.insert(&path, entry);
    }
    image
}

#[cfg(test)]
mod tests {
    use super::*;

    const BUILT: i64 = 1_000;
    const NOW: i64 = 5_000;

    fn committed() -> TreeImage {
        let mut image = TreeImage::empty();
        for (path, entry) in [
            ("testbed/a.txt", Entry::file(b"a".to_vec(), 0o644, BUILT)),
            ("testbed/run.sh", Entry::file(b"x".to_vec(), 0o755, BUILT)),
            (
                "testbed/sub/b.txt",
                Entry::file(b"b".to_vec(), 0o644, BUILT),
            ),
            ("testbed/link", Entry::symlink("a.txt", BUILT)),
            ("root/.bashrc", Entry::file(b"rc".to_vec(), 0o644, BUILT)),
            ("tmp", Entry::dir(0o1777, BUILT)),
        ] {
            image.insert(path, entry).unwrap();
        }
        image
    }

    fn reset(change: impl FnOnce(&mut TreeImage)) -> TreeImage {
        let mut current = committed();
        change(&mut current);
        after_git_reset(&current, &committed(), NOW)
    }

    #[test]
    fn changed_and_missing_tracked_files_come_back_fresh() {
        let after = reset(|t| {
            t.insert("testbed/a.txt", Entry::file(b"changed".to_vec(), 0o644, 9))
                .unwrap();
            t.insert("testbed/run.sh", Entry::file(b"x".to_vec(), 0o644, 9))
                .unwrap();
            t.insert("testbed/link", Entry::symlink("elsewhere", 9))
                .unwrap();
            t.insert("testbed/sub", Entry::file(b"not a dir".to_vec(), 0o644, 9))
                .unwrap();
        });
        assert_eq!(
            after.get("testbed/a.txt"),
            Some(&Entry::file(b"a".to_vec(), 0o644, NOW))
        );
        assert_eq!(
            after.get("testbed/run.sh"),
            Some(&Entry::file(b"x".to_vec(), 0o755, NOW))
        );
        assert_eq!(
            after.get("testbed/link"),
            Some(&Entry::symlink("a.txt", NOW))
        );
        assert_eq!(after.get("testbed/sub"), Some(&Entry::dir(0o755, NOW)));
        assert_eq!(
            after.get("testbed/sub/b.txt"),
            Some(&Entry::file(b"b".to_vec(), 0o644, NOW))
        );
    }

    #[test]
    fn what_git_cannot_see_stays() {
        let after = reset(|t| {
            // Other mode bits and times of a file whose bytes are unchanged.
            t.insert("testbed/a.txt", Entry::file(b"a".to_vec(), 0o600, 7))
                .unwrap();
            // Everything under an ignored name, at any depth.
            t.insert("root/newlinks/x", Entry::symlink("/testbed/a.txt", 7))
                .unwrap();
            t.insert("root/.bashrc", Entry::file(b"edited".to_vec(), 0o600, 7))
                .unwrap();
            t.insert("testbed/bin/tool", Entry::file(b"t".to_vec(), 0o755, 7))
                .unwrap();
            t.insert("usr/empty", Entry::dir(0o700, 7)).unwrap();
        });
        assert_eq!(
            after.get("testbed/a.txt"),
            Some(&Entry::file(b"a".to_vec(), 0o600, 7))
        );
        assert!(after.get("root/newlinks/x").is_some());
        assert_eq!(
            after.get("root/.bashrc"),
            Some(&Entry::file(b"edited".to_vec(), 0o600, 7))
        );
        assert!(after.get("testbed/bin/tool").is_some());
        assert_eq!(after.get("usr/empty"), Some(&Entry::dir(0o700, 7)));
    }

    #[test]
    fn untracked_files_and_emptied_directories_go() {
        let after = reset(|t| {
            t.insert("testbed/new.txt", Entry::file(b"n".to_vec(), 0o644, 7))
                .unwrap();
            t.insert(
                "testbed/made/deep/x.txt",
                Entry::file(b"x".to_vec(), 0o644, 7),
            )
            .unwrap();
            t.insert(
                "testbed/made/bin/kept",
                Entry::file(b"k".to_vec(), 0o644, 7),
            )
            .unwrap();
            t.insert("backup/copy.txt", Entry::file(b"c".to_vec(), 0o644, 7))
                .unwrap();
            t.insert("tmp/scratch", Entry::file(b"s".to_vec(), 0o644, 7))
                .unwrap();
            t.insert("project/.git/HEAD", Entry::file(b"ref".to_vec(), 0o644, 7))
                .unwrap();
            t.insert("project/file", Entry::file(b"f".to_vec(), 0o644, 7))
                .unwrap();
        });
        assert!(after.get("testbed/new.txt").is_none());
        assert!(after.get("testbed/made/deep").is_none());
        // A directory holding an ignored entry stays, with that entry only.
        assert!(after.get("testbed/made/bin/kept").is_some());
        assert!(after.get("backup").is_none());
        // `/tmp` is not ignored: it is cleaned and, empty, removed (upstream's logs show
        // `/tmp` missing after the first reset).
        assert!(after.get("tmp").is_none());
        assert!(after.get("project/file").is_some());
        // The entries of `testbed` changed: its mtime is the reset's.
        assert_eq!(after.get("testbed").map(|e| e.mtime), Some(NOW));
    }

    #[test]
    fn an_untouched_tree_only_loses_its_empty_directories() {
        let after = reset(|_| {});
        let mut expected = committed();
        let mut without_tmp = TreeImage::empty();
        for (path, entry) in expected.iter().filter(|(p, _)| *p != "tmp") {
            without_tmp.insert(path, entry.clone()).unwrap();
        }
        expected = without_tmp;
        assert_eq!(after, expected);
    }
}
