//! How much space an episode's tree takes, measured while an action runs so a runaway writer
//! (`yes > f`, `dd if=/dev/zero`) is stopped at the episode's disk limit.
//!
//! The walk only reads: it never follows symlinks, does not move directory atimes
//! (`O_NOATIME`), and skips what it cannot open. Sizes are allocated blocks (`st_blocks`), so
//! a sparse file counts for what it really holds, as `du` shows.

use std::os::fd::{AsFd, OwnedFd};

use cap_std::fs::Dir;
use rustix::fs::{AtFlags, FileType, Mode, OFlags};

/// Bytes allocated below `dir`, or any number above `stop_above` once the walk has seen that
/// much (no need to count further).
pub fn tree_bytes(dir: &Dir, stop_above: u64) -> u64 {
    let flags = OFlags::RDONLY | OFlags::DIRECTORY | OFlags::NOFOLLOW | OFlags::CLOEXEC;
    let open = |parent: &dyn AsFd, name: &str| -> Option<OwnedFd> {
        rustix::fs::openat(parent, name, flags | OFlags::NOATIME, Mode::empty())
            .or_else(|_| rustix::fs::openat(parent, name, flags, Mode::empty()))
            .ok()
    };
    let Some(root) = open(dir, ".") else {
        return 0;
    };
    let mut total = 0u64;
    let mut stack = vec![root];
    while let Some(fd) = stack.pop() {
        let Ok(copy) = rustix::io::dup(&fd) else {
            continue;
        };
        let Ok(mut listing) = rustix::fs::Dir::new(copy) else {
            continue;
        };
        while let Some(Ok(item)) = listing.read() {
            let name = item.file_name();
            if matches!(name.to_bytes(), b"." | b"..") {
                continue;
            }
            let Ok(st) = rustix::fs::statat(&fd, name, AtFlags::SYMLINK_NOFOLLOW) else {
                continue;
            };
            total = total.saturating_add(u64::try_from(st.st_blocks).unwrap_or(0) * 512);
            if total > stop_above {
                return total;
            }
            if FileType::from_raw_mode(st.st_mode) == FileType::Directory
                && let Ok(name) = name.to_str()
                && let Some(sub) = open(&fd, name)
            {
                stack.push(sub);
            }
        }
    }
    total
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_allocated_bytes_and_stops_early() {
        let tmp = tempfile::tempdir().unwrap();
        std::fs::create_dir(tmp.path().join("d")).unwrap();
        std::fs::write(tmp.path().join("d/a"), vec![1u8; 100_000]).unwrap();
        // Sparse: 1 GiB long, nothing allocated.
        let sparse = std::fs::File::create(tmp.path().join("sparse")).unwrap();
        sparse.set_len(1 << 30).unwrap();
        std::os::unix::fs::symlink("/", tmp.path().join("up")).unwrap();
        let dir = Dir::open_ambient_dir(tmp.path(), cap_std::ambient_authority()).unwrap();
        let n = tree_bytes(&dir, u64::MAX);
        assert!((100_000..1 << 20).contains(&n), "{n}");
        assert!(tree_bytes(&dir, 1000) > 1000);
    }
}
