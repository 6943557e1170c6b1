//! [`EpisodeDir`]: a fresh host temp directory holding one episode's file tree.
//!
//! Upstream resets its long-lived container with `git reset --hard; git clean -fd`, which only
//! covers what git tracks. We instead give every episode (and every gold run) a brand-new
//! directory materialized from a [`TreeImage`], hand its path to wasmtime as the sandbox's only
//! preopen (mounted at `/`), and delete it afterwards.
//!
//! Removal never follows symlinks (the guest may have planted `ln -s / x`), and it first makes
//! every directory writable again, because the guest may have run `chmod 000` on one.
//!
//! ```
//! use intercode::fs::{episode::EpisodeDir, image::{Entry, TreeImage}};
//! let mut img = TreeImage::empty();
//! img.insert("testbed/a.txt", Entry::file(b"a\n".to_vec(), 0o644, 0)).unwrap();
//! let ep = EpisodeDir::new(&img).unwrap();
//! assert_eq!(ep.dir().read("testbed/a.txt").unwrap(), b"a\n");
//! let path = ep.path().to_path_buf();
//! drop(ep);
//! assert!(!path.exists());
//! ```

use std::os::unix::fs::PermissionsExt;
use std::path::Path;

use cap_std::fs::Dir;

use super::image::{TreeImage, cap_permissions};
use crate::{Error, Result};

/// One episode's root directory; removed on drop.
pub struct EpisodeDir {
    // `Option`s so `Drop` can close the handle before deleting the directory.
    dir: Option<Dir>,
    temp: Option<tempfile::TempDir>,
}

impl std::fmt::Debug for EpisodeDir {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EpisodeDir")
            .field("path", &self.path())
            .finish()
    }
}

impl EpisodeDir {
    /// Creates a temp directory under [`default_parent`] and materializes `image` into it.
    pub fn new(image: &TreeImage) -> Result<EpisodeDir> {
        EpisodeDir::new_in(&default_parent(), image)
    }

    /// Like [`EpisodeDir::new`] but under `parent` (e.g. a tmpfs for speed).
    pub fn new_in(parent: &Path, image: &TreeImage) -> Result<EpisodeDir> {
        let temp = tempfile::Builder::new()
            .prefix("intercode-episode-")
            .tempdir_in(parent)
            .map_err(|e| Error::io(parent, e))?;
        // tempfile creates the directory 0700; the guest is "root" of this tree, and an
        // Ubuntu `/` is 0755, which `ls -ld /` should show.
        std::fs::set_permissions(temp.path(), std::fs::Permissions::from_mode(0o755))
            .map_err(|e| Error::io(temp.path(), e))?;
        let dir = Dir::open_ambient_dir(temp.path(), cap_std::ambient_authority())
            .map_err(|e| Error::io(temp.path(), e))?;
        let episode = EpisodeDir {
            dir: Some(dir),
            temp: Some(temp),
        };
        image.materialize(episode.dir())?;
        Ok(episode)
    }

    /// The host path of the episode root (the sandbox's `/`).
    pub fn path(&self) -> &Path {
        self.temp
            .as_ref()
            .map_or(Path::new(""), tempfile::TempDir::path)
    }

    /// A capability handle on the episode root.
    pub fn dir(&self) -> &Dir {
        // Only `Drop` empties the option.
        self.dir.as_ref().expect("EpisodeDir used after drop")
    }
}

/// Where episode directories go: `$INTERCODE_EPISODE_ROOT`, else `/dev/shm` when it is a
/// writable directory, else the system temp dir. A memory filesystem matters: creating a
/// few hundred files per reset on ext4 costs tens of milliseconds in inode allocation
/// (measured with `perf`: `ext4_create` → `recently_deleted`), on tmpfs well under one.
pub fn default_parent() -> std::path::PathBuf {
    static PARENT: std::sync::OnceLock<std::path::PathBuf> = std::sync::OnceLock::new();
    PARENT.get_or_init(probe_parent).clone()
}

fn probe_parent() -> std::path::PathBuf {
    if let Some(p) = std::env::var_os("INTERCODE_EPISODE_ROOT") {
        return std::path::PathBuf::from(p);
    }
    let shm = Path::new("/dev/shm");
    let writable = std::fs::metadata(shm)
        .map(|m| m.is_dir() && !m.permissions().readonly())
        .unwrap_or(false)
        && tempfile::Builder::new()
            .prefix(".intercode-probe-")
            .tempfile_in(shm)
            .is_ok();
    if writable {
        shm.to_path_buf()
    } else {
        std::env::temp_dir()
    }
}

impl Drop for EpisodeDir {
    fn drop(&mut self) {
        if let Some(dir) = self.dir.take() {
            make_dirs_writable(&dir, 0);
        }
        if let Some(temp) = self.temp.take() {
            let path = temp.path().to_path_buf();
            // `TempDir::close` uses std's `remove_dir_all`, which unlinks symlinks instead of
            // following them.
            if let Err(e) = temp.close() {
                tracing::warn!("could not remove episode directory {}: {e}", path.display());
            }
        }
    }
}

/// Guards against absurdly deep trees built by a guest (`mkdir -p a/a/a/...`).
const MAX_DEPTH: usize = 4096;

/// Gives every real directory (never a symlink target) `u+rwx` so it can be emptied.
fn make_dirs_writable(dir: &Dir, depth: usize) {
    if depth > MAX_DEPTH {
        return;
    }
    let Ok(entries) = dir.entries() else { return };
    for item in entries.flatten() {
        let name = item.file_name();
        let Ok(meta) = dir.symlink_metadata(&name) else {
            continue;
        };
        if !meta.file_type().is_dir() {
            continue;
        }
        let mode = cap_std::fs::PermissionsExt::mode(&meta.permissions());
        if mode & 0o700 != 0o700 {
            let _ = dir.set_permissions(&name, cap_permissions((mode | 0o700) & 0o7777));
        }
        // Open without following, in case something swapped the directory for a symlink.
        let sub = dir
            .try_clone()
            .map(Dir::into_std_file)
            .and_then(|std_dir| cap_primitives::fs::open_dir_nofollow(&std_dir, Path::new(&name)));
        if let Ok(sub) = sub {
            make_dirs_writable(&Dir::from_std_file(sub), depth + 1);
        }
    }
}

/// How many directories an [`EpisodePool`] keeps ready.
const PREPARED: usize = 2;

/// Prepares episode directories ahead of time on a background thread, so `reset` hands out a
/// ready directory instead of writing a few hundred files while the caller waits; and removes
/// finished ones in the background. Dropping the pool waits for both, so nothing is left in
/// the temp directory.
pub struct EpisodePool {
    image: std::sync::Arc<TreeImage>,
    /// Directories being prepared, oldest first. Two, because a bash episode takes one at
    /// `reset` and one for the gold run at `submit`.
    next: std::sync::Mutex<std::collections::VecDeque<std::thread::JoinHandle<Result<EpisodeDir>>>>,
    discards: std::sync::Mutex<Vec<std::thread::JoinHandle<()>>>,
}

impl EpisodePool {
    pub fn new(image: TreeImage) -> EpisodePool {
        let pool = EpisodePool {
            image: std::sync::Arc::new(image),
            next: std::sync::Mutex::new(std::collections::VecDeque::new()),
            discards: std::sync::Mutex::new(Vec::new()),
        };
        for _ in 0..PREPARED {
            pool.prepare_next();
        }
        pool
    }

    pub fn image(&self) -> &TreeImage {
        &self.image
    }

    fn prepare_next(&self) {
        let image = self.image.clone();
        if let Ok(handle) = std::thread::Builder::new()
            .name("episode-prepare".into())
            .spawn(move || EpisodeDir::new(&image))
        {
            self.next
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .push_back(handle);
        }
    }

    /// A fresh episode directory (the prepared one when ready), and starts preparing the next.
    pub fn take(&self) -> Result<EpisodeDir> {
        let prepared = self
            .next
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .pop_front();
        let dir = match prepared.map(std::thread::JoinHandle::join) {
            Some(Ok(Ok(dir))) => dir,
            // A failed or panicked background build is retried here, where its error surfaces.
            _ => EpisodeDir::new(&self.image)?,
        };
        self.prepare_next();
        Ok(dir)
    }

    /// Removes a finished episode directory on a background thread.
    pub fn discard(&self, dir: EpisodeDir) {
        let mut discards = self.discards.lock().unwrap_or_else(|e| e.into_inner());
        discards.retain(|h| !h.is_finished());
        match std::thread::Builder::new()
            .name("episode-discard".into())
            .spawn(move || drop(dir))
        {
            Ok(h) => discards.push(h),
            Err(e) => tracing::warn!("could not start a cleanup thread: {e}"),
        }
    }
}

impl Drop for EpisodePool {
    fn drop(&mut self) {
        for h in self
            .next
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .drain(..)
        {
            let _ = h.join();
        }
        for h in self
            .discards
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .drain(..)
        {
            let _ = h.join();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fs::image::Entry;

    #[test]
    fn drop_removes_everything_without_following_symlinks() {
        let outside = tempfile::tempdir().unwrap();
        std::fs::write(outside.path().join("precious"), b"keep me").unwrap();

        let mut img = TreeImage::empty();
        img.insert("a/b.txt", Entry::file(b"b".to_vec(), 0o644, 0))
            .unwrap();
        let ep = EpisodeDir::new(&img).unwrap();
        let root = ep.path().to_path_buf();
        assert_eq!(
            std::fs::metadata(&root).unwrap().permissions().mode() & 0o777,
            0o755
        );
        // What a hostile guest could leave behind: links out, and locked directories.
        std::os::unix::fs::symlink(outside.path(), root.join("out")).unwrap();
        std::os::unix::fs::symlink(outside.path().join("precious"), root.join("a/p")).unwrap();
        std::fs::create_dir_all(root.join("locked/inner")).unwrap();
        std::fs::write(root.join("locked/inner/f"), b"f").unwrap();
        std::fs::set_permissions(
            root.join("locked/inner"),
            std::fs::Permissions::from_mode(0o000),
        )
        .unwrap();
        std::fs::set_permissions(root.join("locked"), std::fs::Permissions::from_mode(0o500))
            .unwrap();
        drop(ep);
        assert!(!root.exists());
        assert_eq!(
            std::fs::read(outside.path().join("precious")).unwrap(),
            b"keep me"
        );
    }

    #[test]
    fn materialize_errors_surface() {
        // A parent that does not exist is an I/O error naming the parent, not a panic.
        let err =
            EpisodeDir::new_in(Path::new("/nonexistent/parent"), &TreeImage::empty()).unwrap_err();
        assert!(err.to_string().contains("/nonexistent/parent"), "{err}");
    }
}
