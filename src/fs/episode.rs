//! [`EpisodeDir`]: a fresh host temp directory holding one episode's file tree.
//!
//! Upstream resets its long-lived container with `git reset --hard; git clean -fd`, which only
//! covers what git tracks. We instead give every episode (and every gold run) a directory in
//! exactly the state of a [`TreeImage`] — written from it, or a used one put back into that
//! state path by path ([`super::reuse`]) — and hand its path to wasmtime as the sandbox's only
//! preopen (mounted at `/`). An [`EpisodePool`] keeps a few ready, so `reset` costs
//! microseconds.
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

use std::collections::VecDeque;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::sync::{Arc, Condvar, Mutex};
use std::time::Duration;

use cap_std::fs::Dir;

use super::image::{TreeImage, cap_permissions};
use super::reuse::Baseline;
use crate::{Error, Result};

/// One episode's root directory; removed on drop.
pub struct EpisodeDir {
    // `Option`s so `Drop` can close the handle before deleting the directory.
    dir: Option<Dir>,
    temp: Option<tempfile::TempDir>,
    /// How the tree looked when it last matched its image (see [`super::reuse`]).
    baseline: Baseline,
    /// Set when something may still write into the tree (a guest thread that outlived its
    /// action): such a directory is deleted, never reused.
    tainted: std::sync::atomic::AtomicBool,
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
            .prefix(&format!("{EPISODE_PREFIX}{}-", owner_tag()))
            .tempdir_in(parent)
            .map_err(|e| Error::io(parent, e))?;
        // tempfile creates the directory 0700; the guest is "root" of this tree, and an
        // Ubuntu `/` is 0755, which `ls -ld /` should show.
        std::fs::set_permissions(temp.path(), std::fs::Permissions::from_mode(0o755))
            .map_err(|e| Error::io(temp.path(), e))?;
        let dir = Dir::open_ambient_dir(temp.path(), cap_std::ambient_authority())
            .map_err(|e| Error::io(temp.path(), e))?;
        let mut episode = EpisodeDir {
            dir: Some(dir),
            temp: Some(temp),
            baseline: Baseline::default(),
            tainted: std::sync::atomic::AtomicBool::new(false),
        };
        image.materialize(episode.dir())?;
        episode.baseline = Baseline::record(episode.dir(), image)?;
        Ok(episode)
    }

    /// Puts the tree back into the state of `image` (the one it was written from), touching
    /// only what changed. On error the directory must be dropped, not used.
    pub fn restore(&mut self, image: &TreeImage) -> Result<()> {
        if self.is_tainted() {
            return Err(Error::Other(
                "episode directory may still be written to".into(),
            ));
        }
        // The guest may have locked its own root (`chmod 000 /`).
        std::fs::set_permissions(self.path(), std::fs::Permissions::from_mode(0o755))
            .map_err(|e| Error::io(self.path(), e))?;
        self.baseline = super::reuse::restore(self.dir(), image, &self.baseline)?;
        Ok(())
    }

    /// Whether every change from now on is sure to be seen by [`EpisodeDir::restore`].
    pub fn settled(&self) -> bool {
        self.baseline.settled()
    }

    /// Marks the directory as never to be reused (something may still write into it).
    pub fn taint(&self) {
        self.tainted
            .store(true, std::sync::atomic::Ordering::Relaxed);
    }

    fn is_tainted(&self) -> bool {
        self.tainted.load(std::sync::atomic::Ordering::Relaxed)
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
    PARENT
        .get_or_init(|| {
            let parent = probe_parent();
            // Once per process, before its first episode: what runs that died left behind.
            let removed = sweep_dead_runs(&parent);
            if removed > 0 {
                tracing::info!(
                    "removed {removed} episode directories left in {} by runs that died",
                    parent.display()
                );
            }
            parent
        })
        .clone()
}

/// Episode directories are named `intercode-episode-<pid>-<start time>-<random>`: the owning
/// process and when it started, so a later run can tell a live owner from a dead one (a pid
/// alone could have been reused).
const EPISODE_PREFIX: &str = "intercode-episode-";

/// `<pid>-<start time in clock ticks since boot>` of this process.
fn owner_tag() -> &'static str {
    static TAG: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    TAG.get_or_init(|| {
        let pid = std::process::id();
        format!("{pid}-{}", start_time(pid).unwrap_or(0))
    })
}

/// Field 22 of `/proc/<pid>/stat`, the process's start time; `None` when there is no such
/// process.
fn start_time(pid: u32) -> Option<u64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The command name (field 2) is in parentheses and may hold spaces or parentheses.
    let after_name = &stat[stat.rfind(')')? + 1..];
    after_name.split_whitespace().nth(19)?.parse().ok()
}

/// Removes the episode directories under `parent` whose owning process is gone; returns how
/// many. Directories of live processes, and ones not named by this scheme, are left alone.
pub fn sweep_dead_runs(parent: &Path) -> usize {
    let Ok(entries) = std::fs::read_dir(parent) else {
        return 0;
    };
    let mut removed = 0;
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(rest) = name.to_str().and_then(|n| n.strip_prefix(EPISODE_PREFIX)) else {
            continue;
        };
        let mut parts = rest.splitn(3, '-');
        let (Some(Ok(pid)), Some(Ok(start))) = (
            parts.next().map(str::parse::<u32>),
            parts.next().map(str::parse::<u64>),
        ) else {
            continue;
        };
        if start_time(pid) == Some(start) {
            continue;
        }
        let path = entry.path();
        if let Ok(dir) = Dir::open_ambient_dir(&path, cap_std::ambient_authority()) {
            make_dirs_writable(&dir, 0);
        }
        if std::fs::remove_dir_all(&path).is_ok() {
            removed += 1;
        }
    }
    removed
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

/// How many directories an [`EpisodePool`] keeps ready: a bash episode takes one at `reset`
/// and one for the gold run at `submit`, and one more absorbs a burst.
const READY: usize = 3;

/// Keeps episode directories ready ahead of time, so `reset` hands out a directory instead of
/// writing a few hundred files while the caller waits. A worker thread restores used
/// directories (usually a few changed paths, see [`super::reuse`]) and writes new ones when
/// none come back. Dropping the pool stops the worker and deletes every directory it holds.
pub struct EpisodePool {
    shared: Arc<PoolShared>,
    worker: Option<std::thread::JoinHandle<()>>,
}

struct PoolShared {
    image: TreeImage,
    state: Mutex<PoolState>,
    wake: Condvar,
}

#[derive(Default)]
struct PoolState {
    ready: VecDeque<EpisodeDir>,
    used: Vec<EpisodeDir>,
    /// The worker is producing a directory right now.
    busy: bool,
    stop: bool,
}

impl PoolShared {
    fn lock(&self) -> std::sync::MutexGuard<'_, PoolState> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn work(&self) {
        let mut state = self.lock();
        loop {
            if state.stop {
                return;
            }
            let job = if let Some(dir) = state.used.pop() {
                if state.ready.len() >= READY {
                    // Enough ready already: delete it rather than restore it.
                    drop(state);
                    drop(dir);
                    state = self.lock();
                    continue;
                }
                Some(Some(dir))
            } else if state.ready.len() < READY {
                Some(None)
            } else {
                None
            };
            let Some(job) = job else {
                state = self.wake.wait(state).unwrap_or_else(|e| e.into_inner());
                continue;
            };
            state.busy = true;
            drop(state);
            let made = match job {
                Some(mut dir) => match dir.restore(&self.image) {
                    Ok(()) => Some(dir),
                    Err(e) => {
                        tracing::debug!("writing a fresh episode directory: {e}");
                        drop(dir);
                        None
                    }
                },
                None => None,
            };
            let made = match made {
                Some(dir) => Ok(dir),
                None => EpisodeDir::new(&self.image),
            };
            state = self.lock();
            state.busy = false;
            match made {
                Ok(dir) if state.ready.len() < READY => state.ready.push_back(dir),
                Ok(surplus) => {
                    drop(state);
                    drop(surplus);
                    state = self.lock();
                }
                Err(e) => {
                    // Surfaces at `take`, which writes one itself; avoid spinning on it here.
                    tracing::warn!("could not prepare an episode directory: {e}");
                    self.wake.notify_all();
                    state = self.wake.wait(state).unwrap_or_else(|e| e.into_inner());
                    continue;
                }
            }
            self.wake.notify_all();
        }
    }
}

impl EpisodePool {
    pub fn new(image: TreeImage) -> EpisodePool {
        let shared = Arc::new(PoolShared {
            image,
            state: Mutex::new(PoolState::default()),
            wake: Condvar::new(),
        });
        let worker = {
            let shared = shared.clone();
            std::thread::Builder::new()
                .name("episode-pool".into())
                .spawn(move || shared.work())
                .map_err(|e| tracing::warn!("no episode pool thread, writing on demand: {e}"))
                .ok()
        };
        EpisodePool { shared, worker }
    }

    pub fn image(&self) -> &TreeImage {
        &self.shared.image
    }

    /// A directory in the exact state of the image: a ready one when there is one (waiting
    /// for the worker when it is about to deliver), else one written now.
    pub fn take(&self) -> Result<EpisodeDir> {
        let mut state = self.shared.lock();
        loop {
            if let Some(pos) = state.ready.iter().position(EpisodeDir::settled) {
                let dir = state.ready.remove(pos).expect("position is in range");
                self.shared.wake.notify_all();
                return Ok(dir);
            }
            let worker_alive = self.worker.as_ref().is_some_and(|w| !w.is_finished());
            let coming = worker_alive && (state.busy || !state.used.is_empty());
            if state.ready.is_empty() && !coming {
                break;
            }
            // Either a directory is on its way, or the ready ones wait for the clock to tick
            // (at most one coarse tick, 1-10 ms).
            state = self
                .shared
                .wake
                .wait_timeout(state, Duration::from_millis(1))
                .unwrap_or_else(|e| e.into_inner())
                .0;
        }
        drop(state);
        EpisodeDir::new(&self.shared.image)
    }

    /// Gives a finished episode directory back, to be restored and reused.
    pub fn discard(&self, dir: EpisodeDir) {
        if dir.is_tainted() || self.worker.is_none() {
            drop(dir);
            return;
        }
        self.shared.lock().used.push(dir);
        self.shared.wake.notify_all();
    }
}

impl Drop for EpisodePool {
    fn drop(&mut self) {
        self.shared.lock().stop = true;
        self.shared.wake.notify_all();
        if let Some(w) = self.worker.take() {
            let _ = w.join();
        }
        let mut state = self.shared.lock();
        state.ready.clear();
        state.used.clear();
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
