//! What `md5sum ARG`, run with cwd `/` inside an episode, would report for one argument.
//!
//! Upstream's bash reward runs `md5sum <path>` in the agent's and in the gold's container and
//! compares the two outputs byte for byte. The argument is the same on both sides, so the
//! outputs are equal exactly when the [`Md5Outcome`]s are: the same digest, or the same error
//! (`No such file or directory`, `Is a directory`, ...). Symlinks are followed like the kernel
//! would inside the sandbox: absolute targets restart at the *episode* root, `..` stops at it,
//! and the host filesystem outside the episode is never reached.
//!
//! ```
//! use intercode::fs::{episode::EpisodeDir, hash::{md5sum_in_root, Md5Outcome}, image::*};
//! let mut img = TreeImage::empty();
//! img.insert("d/a.txt", Entry::file(b"hello\n".to_vec(), 0o644, 0)).unwrap();
//! img.insert("link", Entry::symlink("/d/a.txt", 0)).unwrap();
//! let ep = EpisodeDir::new(&img).unwrap();
//! assert_eq!(md5sum_in_root(ep.dir(), "link"), md5sum_in_root(ep.dir(), "/d/a.txt"));
//! assert_eq!(md5sum_in_root(ep.dir(), "d"), Md5Outcome::IsDir);
//! ```

use std::collections::VecDeque;
use std::io::ErrorKind;

use cap_std::fs::Dir;

use super::snapshot::md5_of;

/// Linux's limit on symlinks followed while resolving one path (`ELOOP` beyond it).
const MAX_SYMLINK_HOPS: usize = 40;

/// The outcome of hashing one path; equal outcomes mean byte-equal `md5sum` output.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Md5Outcome {
    Digest([u8; 16]),
    /// `md5sum: x: No such file or directory`
    NotFound,
    /// `md5sum: x: Is a directory`
    IsDir,
    /// `md5sum: x: Not a directory`
    NotDir,
    /// `md5sum: x: Too many levels of symbolic links`
    Loop,
    /// Anything else (permissions, a FIFO, ...), by kind.
    Error(ErrorKind),
}

/// Hashes `arg` as `md5sum` would with cwd `/` of the episode rooted at `root`.
pub fn md5sum_in_root(root: &Dir, arg: &str) -> Md5Outcome {
    if arg.is_empty() {
        return Md5Outcome::NotFound;
    }
    let mut pending: VecDeque<String> = arg.split('/').map(str::to_string).collect();
    let must_be_dir = arg.ends_with('/');
    // Real directories from the root down to the current position; never contains a symlink,
    // so every lookup below touches only the final component.
    let mut current: Vec<String> = Vec::new();
    let mut hops = 0;
    let mut final_is_dir = true;
    while let Some(component) = pending.pop_front() {
        match component.as_str() {
            "" | "." => continue,
            ".." => {
                current.pop();
                continue;
            }
            _ => {}
        }
        let candidate = join(&current, &component);
        let meta = match root.symlink_metadata(&candidate) {
            Ok(m) => m,
            Err(e) => return outcome_of(&e),
        };
        let ft = meta.file_type();
        if ft.is_symlink() {
            hops += 1;
            if hops > MAX_SYMLINK_HOPS {
                return Md5Outcome::Loop;
            }
            let target = match root.read_link_contents(&candidate) {
                Ok(t) => t.to_string_lossy().into_owned(),
                Err(e) => return outcome_of(&e),
            };
            if target.starts_with('/') {
                current.clear();
            }
            for part in target.split('/').rev() {
                pending.push_front(part.to_string());
            }
        } else if ft.is_dir() {
            current.push(component);
            final_is_dir = true;
        } else {
            if !pending.is_empty() || must_be_dir {
                return Md5Outcome::NotDir;
            }
            current.push(component);
            final_is_dir = false;
        }
    }
    if final_is_dir {
        return Md5Outcome::IsDir;
    }
    match md5_of(root, current.join("/")) {
        Ok(digest) => Md5Outcome::Digest(digest),
        Err(e) => outcome_of(&e),
    }
}

fn join(current: &[String], name: &str) -> String {
    if current.is_empty() {
        name.to_string()
    } else {
        format!("{}/{name}", current.join("/"))
    }
}

fn outcome_of(e: &std::io::Error) -> Md5Outcome {
    match e.kind() {
        ErrorKind::NotFound => Md5Outcome::NotFound,
        ErrorKind::NotADirectory => Md5Outcome::NotDir,
        ErrorKind::IsADirectory => Md5Outcome::IsDir,
        kind => Md5Outcome::Error(kind),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fs::episode::EpisodeDir;
    use crate::fs::image::{Entry, TreeImage};

    fn digest(bytes: &[u8]) -> Md5Outcome {
        use md5::{Digest, Md5};
        Md5Outcome::Digest(Md5::digest(bytes).into())
    }

    #[test]
    fn resolves_like_a_chrooted_md5sum() {
        let mut img = TreeImage::empty();
        img.insert("d/a.txt", Entry::file(b"A".to_vec(), 0o644, 0))
            .unwrap();
        img.insert("d/rel", Entry::symlink("a.txt", 0)).unwrap();
        img.insert("d/up", Entry::symlink("../../../d/a.txt", 0))
            .unwrap();
        img.insert("abs", Entry::symlink("/d", 0)).unwrap();
        img.insert("loop", Entry::symlink("loop", 0)).unwrap();
        img.insert("dangling", Entry::symlink("/nope", 0)).unwrap();
        // An absolute link that would reach the host's /etc/passwd if followed naively.
        img.insert("host", Entry::symlink("/etc/passwd", 0))
            .unwrap();
        let ep = EpisodeDir::new(&img).unwrap();
        let h = |arg: &str| md5sum_in_root(ep.dir(), arg);
        assert_eq!(h("d/a.txt"), digest(b"A"));
        assert_eq!(h("/d/a.txt"), digest(b"A"));
        assert_eq!(h("./d/../d/a.txt"), digest(b"A"));
        assert_eq!(h("d/rel"), digest(b"A"));
        assert_eq!(h("d/up"), digest(b"A"));
        assert_eq!(h("abs/a.txt"), digest(b"A"));
        assert_eq!(h("abs"), Md5Outcome::IsDir);
        assert_eq!(h("d/"), Md5Outcome::IsDir);
        assert_eq!(h("/"), Md5Outcome::IsDir);
        assert_eq!(h("d/a.txt/"), Md5Outcome::NotDir);
        assert_eq!(h("d/a.txt/x"), Md5Outcome::NotDir);
        assert_eq!(h("missing.txt"), Md5Outcome::NotFound);
        assert_eq!(h(""), Md5Outcome::NotFound);
        assert_eq!(h("dangling"), Md5Outcome::NotFound);
        assert_eq!(h("host"), Md5Outcome::NotFound);
        assert_eq!(h("loop"), Md5Outcome::Loop);
    }
}
