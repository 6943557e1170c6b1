//! How much space an episode's tree takes, measured while an action runs so a runaway writer
//! (`yes > f`, `dd if=/dev/zero`) is stopped at the episode's disk limit.
//!
//! The walk only reads: it never follows symlinks, does not move directory atimes
//! (`O_NOATIME`), and skips what it cannot open. Sizes are allocated blocks (`st_blocks`), so
//! a sparse file counts for what it really holds, as `du` shows.

use super::walk::{Next, walk};
use cap_std::fs::Dir;

/// What an episode's tree holds, as the disk watch measures it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TreeUsage {
    /// Bytes allocated below the root.
    pub bytes: u64,
    /// The deepest entry's depth (1 for the root's children).
    pub deepest: usize,
}

/// Bytes allocated below `dir` and how deep its entries go. The walk stops once it has seen more
/// than `stop_above` bytes, and does not enter directories deeper than `max_depth` (so the
/// answer says "deeper than `max_depth`" without walking what lies below).
pub fn tree_usage(dir: &Dir, stop_above: u64, max_depth: usize) -> TreeUsage {
    let mut usage = TreeUsage {
        bytes: 0,
        deepest: 0,
    };
    let _ = walk(dir, max_depth, |e| {
        usage.bytes = usage
            .bytes
            .saturating_add(u64::try_from(e.stat.st_blocks).unwrap_or(0) * 512);
        usage.deepest = usage.deepest.max(e.depth);
        if usage.bytes > stop_above {
            Next::Stop
        } else {
            Next::Continue
        }
    });
    usage
}

/// Bytes allocated below `dir`, or any number above `stop_above` once the walk has seen that
/// much (no need to count further).
pub fn tree_bytes(dir: &Dir, stop_above: u64) -> u64 {
    tree_usage(dir, stop_above, usize::MAX).bytes
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
        assert_eq!(tree_usage(&dir, u64::MAX, 64).deepest, 2);
    }
}
