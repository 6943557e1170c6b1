//! Creating symlinks beneath an episode root with any target, including absolute ones.
//!
//! The guest's own WASI `symlink` refuses absolute targets, as a precaution for programs that
//! later follow links with ambient authority. Nothing here does: the guest resolves paths through
//! cap-std (which refuses to follow absolute or escaping links), and snapshots and diffs never
//! follow links. So an absolute target is only data, and tasks such as `ln -s /testbed/dir /`
//! need it. cap-std's `symlink_contents` stores the target verbatim and resolves the *link*
//! path beneath the root.

use cap_std::fs::Dir;
use std::io;
use std::path::Path;

/// Creates `link` (relative to `root`, resolved beneath it) pointing at `target`.
pub fn symlink_beneath(root: &Dir, target: &str, link: &Path) -> io::Result<()> {
    root.symlink_contents(target, link)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn absolute_targets_are_stored_not_followed() {
        let tmp = tempfile::tempdir().unwrap();
        let root = Dir::open_ambient_dir(tmp.path(), cap_std::ambient_authority()).unwrap();
        root.create_dir("d").unwrap();
        symlink_beneath(&root, "/", Path::new("d/up")).unwrap();
        assert_eq!(root.read_link_contents("d/up").unwrap(), Path::new("/"));
        // Following it through the capability is refused.
        assert!(root.read_dir("d/up").is_err());
        assert!(symlink_beneath(&root, "x", Path::new("../escape")).is_err());
    }
}
