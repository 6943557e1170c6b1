//! Symlinks beneath an episode root, with absolute targets that resolve as in a chroot.
//!
//! Agents and tasks make absolute links (`ln -s /workspace/dir1 /root/dir1`) and then use
//! them. The guest's filesystem is the episode directory seen through cap-std, which refuses to
//! follow an absolute target (it would leave the root). So an absolute target is stored on disk
//! relative to the link's own directory, behind a marker no one types: `/testbed/hello.c` at
//! `root/h` is stored as `././../testbed/hello.c`. cap-std then follows it beneath the root,
//! exactly where a chroot would, and nothing can reach the host. Everything that shows a
//! target to the guest (WASI `path_readlink`, the `readlink` host call) gives back the absolute
//! form, and every way the guest makes a link (WASI `path_symlink`, the `symlink` host call)
//! stores it this way, so the guest only ever sees what it wrote.

use cap_std::fs::Dir;
use std::io;
use std::path::{Component, Path};

/// The components that open a stored absolute target (`./.`: a no-op that nobody writes).
const MARKER: [&str; 2] = [".", "."];

/// Creates `link` (relative to `root`, resolved beneath it) pointing at `target`. An empty
/// target is refused as Linux refuses it (`ENOENT`).
pub fn symlink_beneath(root: &Dir, target: &str, link: &Path) -> io::Result<()> {
    if target.is_empty() {
        return Err(io::ErrorKind::NotFound.into());
    }
    root.symlink_contents(stored_form(target, depth_of_parent(root, link)), link)
}

/// The target of `link` as the guest wrote it.
pub fn read_link_beneath(root: &Dir, link: &Path) -> io::Result<String> {
    let stored = root.read_link_contents(link)?;
    Ok(written_form(
        &stored.to_string_lossy(),
        depth_of_parent(root, link),
    ))
}

/// How `target` is stored for a link whose directory is `parent_depth` directories beneath the
/// root: unchanged unless absolute.
pub fn stored_form(target: &str, parent_depth: usize) -> String {
    let Some(beneath) = target.strip_prefix('/') else {
        return target.to_string();
    };
    let beneath = beneath.trim_start_matches('/');
    let mut parts: Vec<&str> = MARKER.to_vec();
    parts.extend(std::iter::repeat_n("..", parent_depth));
    if !beneath.is_empty() {
        parts.push(beneath);
    }
    parts.join("/")
}

/// The target a link stored as `stored` was written with: the absolute one it stands for when
/// it opens with the marker and exactly `parent_depth` `..`, else `stored` itself.
pub fn written_form(stored: &str, parent_depth: usize) -> String {
    absolute_form(stored, parent_depth).unwrap_or_else(|| stored.to_string())
}

fn absolute_form(stored: &str, depth: usize) -> Option<String> {
    let mut parts = stored.split('/');
    for marker in MARKER {
        if parts.next()? != marker {
            return None;
        }
    }
    for _ in 0..depth {
        if parts.next()? != ".." {
            return None;
        }
    }
    let rest: Vec<&str> = parts.collect();
    if rest.first() == Some(&"..") {
        return None;
    }
    Some(format!("/{}", rest.join("/")))
}

/// The depth of `rel`'s directory when `rel` holds no symlinks (a walk that does not follow
/// them, or a tree image being written).
pub fn parent_depth(rel: &Path) -> usize {
    rel.parent().map_or(0, |p| {
        p.components()
            .filter(|c| matches!(c, Component::Normal(_)))
            .count()
    })
}

/// How many directories deep (beneath the root) the directory holding `link` really is, its
/// own symlinks followed.
fn depth_of_parent(root: &Dir, link: &Path) -> usize {
    match link.parent() {
        Some(p) if !p.as_os_str().is_empty() => match root.canonicalize(p) {
            Ok(real) => real
                .components()
                .filter(|c| matches!(c, Component::Normal(_)))
                .count(),
            Err(_) => parent_depth(link),
        },
        _ => 0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn root() -> (tempfile::TempDir, Dir) {
        let tmp = tempfile::tempdir().unwrap();
        let root = Dir::open_ambient_dir(tmp.path(), cap_std::ambient_authority()).unwrap();
        (tmp, root)
    }

    #[test]
    fn absolute_targets_resolve_beneath_the_root_and_read_back_as_written() {
        let (_tmp, root) = root();
        root.create_dir_all("testbed/dir1").unwrap();
        root.write("testbed/dir1/f", "x").unwrap();
        root.create_dir("root").unwrap();
        symlink_beneath(&root, "/testbed/dir1", Path::new("root/d")).unwrap();
        assert_eq!(root.read_to_string("root/d/f").unwrap(), "x");
        assert_eq!(
            read_link_beneath(&root, Path::new("root/d")).unwrap(),
            "/testbed/dir1"
        );
        // A link to the root itself, from the root and from deeper down.
        symlink_beneath(&root, "/", Path::new("up")).unwrap();
        symlink_beneath(&root, "/", Path::new("root/up")).unwrap();
        assert!(root.read_dir("root/up/testbed").is_ok());
        assert_eq!(read_link_beneath(&root, Path::new("root/up")).unwrap(), "/");
        assert_eq!(read_link_beneath(&root, Path::new("up")).unwrap(), "/");
        // Through a linked directory, the depth is the real one.
        symlink_beneath(&root, "/testbed/dir1", Path::new("root/d/back")).unwrap();
        assert_eq!(root.read_to_string("testbed/dir1/back/f").unwrap(), "x");
        assert_eq!(
            read_link_beneath(&root, Path::new("testbed/dir1/back")).unwrap(),
            "/testbed/dir1"
        );
    }

    #[test]
    fn relative_targets_are_kept_and_escapes_still_refused() {
        let (_tmp, root) = root();
        root.create_dir("d").unwrap();
        symlink_beneath(&root, "../d", Path::new("d/self")).unwrap();
        assert_eq!(
            read_link_beneath(&root, Path::new("d/self")).unwrap(),
            "../d"
        );
        symlink_beneath(&root, "../../..", Path::new("d/out")).unwrap();
        assert!(root.read_dir("d/out").is_err());
        assert!(symlink_beneath(&root, "x", Path::new("../escape")).is_err());
    }

    #[test]
    fn only_the_exact_marker_and_depth_read_as_absolute() {
        assert_eq!(stored_form("/x", 1), "././../x");
        assert_eq!(stored_form("/", 0), "./.");
        assert_eq!(stored_form("x/y", 3), "x/y");
        assert_eq!(written_form("././../x", 1), "/x");
        assert_eq!(written_form("./.", 0), "/");
        assert_eq!(written_form("././../x", 2), "././../x");
        assert_eq!(written_form("././../../x", 1), "././../../x");
        assert_eq!(written_form("./x", 0), "./x");
        assert_eq!(written_form("../x", 1), "../x");
        assert_eq!(parent_depth(Path::new("a/b/link")), 2);
        assert_eq!(parent_depth(Path::new("link")), 0);
    }
}
