//! Builds an InterCode-Bash file tree the way upstream's Dockerfile does, without Docker: the
//! setup script runs as root from `/` in a sandbox holding only our base system, and the tree
//! keeps what upstream's `git add -A; git commit` followed by the per-episode
//! `git reset --hard; git clean -fd` at `/` keeps — every path outside the system directories
//! upstream's `.gitignore` lists, minus directories left empty (git tracks no directories).
//!
//! `intercode download --only bash` fetches upstream's pinned setup scripts and builds
//! `filesystems/fs_N.effective.tar.gz` with this. Like upstream's images, the mtimes the
//! scripts do not set are the build time.

use std::collections::BTreeSet;
use std::time::Duration;

use crate::data::task::BashTaskSet;
use crate::env::bash::{BashEnv, BashOptions};
use crate::fs::EpisodeDir;
use crate::fs::base_system::IGNORED_NAMES;
use crate::fs::image::{Entry, TreeImage};
use crate::{Error, Result};

/// The setup script's run: the tree it left and what it printed.
pub struct BuiltTree {
    pub tree: TreeImage,
    pub output: String,
    pub exit_status: Option<i32>,
}

/// Runs `script` (saved as `/<name>`, as upstream's `COPY` does) with bash from `/`, and
/// returns the effective tree. The script itself is left out, as the rebuilt trees in
/// `../shared` do (upstream's image also tracked it).
pub fn build_tree(name: &str, script: &[u8], timeout: Duration) -> Result<BuiltTree> {
    if name.contains('/') || name.is_empty() {
        return Err(Error::Other(format!("bad setup script name {name:?}")));
    }
    let env = BashEnv::new(
        BashTaskSet {
            name: "setup".into(),
            tasks: Vec::new(),
            tree: TreeImage::empty(),
        },
        BashOptions::default(),
    )?;
    let dir = EpisodeDir::new(env.image())?;
    dir.dir()
        .write(name, script)
        .map_err(|e| Error::io(format!("<episode>/{name}"), e))?;
    let run = env.run_in(&dir, &format!("bash /{name}"), "/", "", timeout)?;
    let everything = TreeImage::from_dir(dir.path())?;
    Ok(BuiltTree {
        tree: effective(&everything, name),
        output: run.observation,
        exit_status: run.exit_status,
    })
}

/// Where `intercode download` puts upstream's setup scripts and the trees built from them,
/// relative to the data directory (the layout `nl2bash::infer_tree_for` expects).
pub fn upstream_script(n: u32) -> String {
    format!("intercode-upstream/docker/bash_scripts/setup_nl2b_fs_{n}.sh")
}

pub fn upstream_tree(n: u32) -> String {
    format!("intercode-upstream/filesystems/fs_{n}.effective.tar.gz")
}

/// What became of one tree in [`build_upstream_trees`].
#[derive(Debug)]
pub enum TreeBuild {
    /// The archive was already there (never overwritten: it may be a tree you trust more).
    Present,
    /// Built from the script; the number of paths.
    Built(usize),
    /// No script to build from.
    NoScript,
    Failed(String),
}

/// Builds `fs_1` … `fs_4` from the downloaded setup scripts where the archive is missing.
pub fn build_upstream_trees(data_dir: &std::path::Path) -> Vec<(String, TreeBuild)> {
    (1..=4)
        .map(|n| {
            let dest = data_dir.join(upstream_tree(n));
            let script = data_dir.join(upstream_script(n));
            let outcome = if dest.exists() {
                TreeBuild::Present
            } else {
                match std::fs::read(&script) {
                    Err(_) => TreeBuild::NoScript,
                    Ok(bytes) => {
                        let name = format!("setup_nl2b_fs_{n}.sh");
                        match build_tree(&name, &bytes, Duration::from_secs(120))
                            .and_then(|b| Ok((b.tree.len(), b.tree.to_tar_gz()?)))
                            .and_then(|(len, gz)| {
                                crate::data::download::write_atomically(&dest, &gz)
                                    .map_err(|e| Error::io(&dest, e))?;
                                Ok(len)
                            }) {
                            Ok(len) => TreeBuild::Built(len),
                            Err(e) => TreeBuild::Failed(e.to_string()),
                        }
                    }
                }
            };
            (upstream_tree(n), outcome)
        })
        .collect()
}

/// What git would keep of `all` at `/`: paths outside the ignored system directories (and not
/// the setup script), directories only when something is kept below them.
pub fn effective(all: &TreeImage, script_name: &str) -> TreeImage {
    // At the top level the names upstream's `.gitignore` lists are the Ubuntu system (our base
    // system here), not task data. Deeper down git ignores them too, but `git clean -fd`
    // leaves ignored files alone, so they stay.
    let kept_top = |path: &str| {
        let top = path.split('/').next().unwrap_or(path);
        !IGNORED_NAMES.contains(&top) && path != script_name
    };
    let files: Vec<(&str, &Entry)> = all
        .iter()
        .filter(|(p, e)| !e.is_dir() && kept_top(p))
        .collect();
    let mut nonempty: BTreeSet<&str> = BTreeSet::new();
    for (path, _) in &files {
        let mut p = *path;
        while let Some((parent, _)) = p.rsplit_once('/') {
            nonempty.insert(parent);
            p = parent;
        }
    }
    let mut tree = TreeImage::empty();
    // Directories first (parents before children), so files never invent a parent.
    for (path, entry) in all.iter() {
        if entry.is_dir() && nonempty.contains(path) {
            let _ = tree.insert(path, entry.clone());
        }
    }
    for (path, entry) in files {
        let _ = tree.insert(path, entry.clone());
    }
    tree
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fs::image::EntryKind;

    #[test]
    fn keeps_what_git_keeps() {
        let mut all = TreeImage::empty();
        let t = 1_700_000_000;
        all.insert("etc/passwd", Entry::file(b"root".to_vec(), 0o644, t))
            .unwrap();
        all.insert("work/a/f.txt", Entry::file(b"f".to_vec(), 0o600, t))
            .unwrap();
        all.insert("work/a", Entry::dir(0o750, t + 1)).unwrap();
        all.insert("work/empty/deeper", Entry::dir(0o755, t))
            .unwrap();
        all.insert("tmp", Entry::dir(0o1777, t)).unwrap();
        all.insert(".placeholder", Entry::file(Vec::new(), 0o644, t))
            .unwrap();
        all.insert("setup.sh", Entry::file(b"#!".to_vec(), 0o755, t))
            .unwrap();
        let kept = effective(&all, "setup.sh");
        let paths: Vec<&str> = kept.iter().map(|(p, _)| p).collect();
        assert_eq!(paths, [".placeholder", "work", "work/a", "work/a/f.txt"]);
        let a = kept.get("work/a").unwrap();
        assert_eq!((a.mode, a.mtime, &a.kind), (0o750, t + 1, &EntryKind::Dir));
    }
}
