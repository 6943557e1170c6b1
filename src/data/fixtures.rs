//! Our own default bash task suite, embedded in the binary so `intercode` works with no data
//! files at all.
//!
//! * `fixtures/bash/tasks.json`: the tasks (`{"query", "gold"}`, upstream's format), written for
//!   this project. They cover pipes, find/xargs, counting, checksums, archives, and creating,
//!   deleting and modifying files.
//! * `fixtures/bash/tree/`: a small project tree mounted at `/project`, packed into a tar at
//!   build time by `build/fixtures.rs` (deterministic owners, modes and mtimes; special mtimes in
//!   `fixtures/bash/mtimes.txt`).
//!
//! Rules the gold commands follow, enforced by the tests below: no double quotes or
//! backslashes (upstream's `bash -c "..."` wrapping would rewrite them, see UPSTREAM-BEHAVIOUR
//! §2.1), never start with `cd` (upstream's `cd` special case), only the utilities listed in
//! [`GOLD_UTILITIES`], and output independent of time, host and readdir order (`find` output is
//! always sorted). Every gold is also run twice with GNU tools and must score 1.0 against itself.
//!
//! ```
//! let set = intercode::data::fixtures::bash_tasks().unwrap();
//! assert!(set.tasks.len() >= 24);
//! assert!(set.tree.get("project/data/sales.csv").is_some());
//! ```

use std::path::Path;

use super::nl2bash::parse_tasks;
use super::task::BashTaskSet;
use crate::Result;
use crate::fs::TreeImage;

const TASKS_JSON: &str = include_str!("../../fixtures/bash/tasks.json");
const TREE_TAR: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/bash_tree.tar"));

/// The commands (and shell keywords) fixture gold commands may use.
pub const GOLD_UTILITIES: &[&str] = &[
    "find", "xargs", "sort", "grep", "awk", "sed", "wc", "rm", "ls", "md5sum", "cat", "cut",
    "head", "tail", "echo", "uniq", "du", "tar", "gzip", "gunzip", "zcat", "ln", "tr", "cp", "mv",
    "mkdir", "rmdir", "touch", "tee", "basename", "dirname", "rev", "seq", "comm", "paste", "nl",
    "tac", "printf", "cd",
];

/// The embedded default task set, named `fixtures`.
pub fn bash_tasks() -> Result<BashTaskSet> {
    Ok(BashTaskSet {
        name: "fixtures".to_string(),
        tasks: parse_tasks(TASKS_JSON, Path::new("fixtures/bash/tasks.json"))?,
        tree: TreeImage::from_tar(TREE_TAR)?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fs::Snapshot;
    use crate::fs::image::{DEFAULT_MTIME, EntryKind};
    use crate::fs::status::{git_status, render_short};
    use crate::reward::bash::{content_check, score};
    use cap_std::fs::Dir;

    #[test]
    fn loads_tasks_and_tree() {
        let set = bash_tasks().unwrap();
        assert!(set.tasks.len() >= 24, "{}", set.tasks.len());
        let tree = &set.tree;
        let file = |p: &str| match &tree.get(p).unwrap_or_else(|| panic!("{p}")).kind {
            EntryKind::File(bytes) => bytes.clone(),
            other => panic!("{p}: {other:?}"),
        };
        assert!(file("project/data/sales.csv").starts_with(b"region,product,units,price\n"));
        assert_eq!(tree.get("project/scripts/build.sh").unwrap().mode, 0o755);
        assert_eq!(tree.get("project/scripts/cleanup.sh").unwrap().mode, 0o644);
        assert_eq!(tree.get("project/src").unwrap().mode, 0o755);
        assert_eq!(tree.get("project/README.md").unwrap().mtime, DEFAULT_MTIME);
        assert_eq!(
            tree.get("project/logs/archive/2022-11.log").unwrap().mtime,
            1_669_852_799
        );
        // Every entry lives under /project, away from the names upstream's git ignores.
        assert!(
            tree.iter()
                .all(|(p, _)| p == "project" || p.starts_with("project/"))
        );
        assert!(tree.iter().all(|(p, _)| !crate::fs::status::is_ignored(p)));
        // The nested archive is a real gzip stream.
        assert!(file("project/backup/configs.tar.gz").starts_with(&[0x1f, 0x8b]));
    }

    /// First words of the simple commands in a gold (good enough for our own golds, which use
    /// no quotes around command names).
    fn command_words(gold: &str) -> Vec<String> {
        let mut text = gold.to_string();
        for sep in ["&&", "||", "$(", "|", ";", ")"] {
            text = text.replace(sep, "\n");
        }
        let mut words = Vec::new();
        for segment in text.lines() {
            let mut tokens = segment.split_whitespace().peekable();
            while let Some(&t) = tokens.peek() {
                if ["do", "then", "else"].contains(&t) {
                    tokens.next();
                } else {
                    break;
                }
            }
            let Some(first) = tokens.next() else { continue };
            if ["for", "done", "fi"].contains(&first) {
                continue;
            }
            words.push(first.to_string());
            if first == "xargs" {
                // The command xargs runs: skip its options (and -n/-I arguments).
                while let Some(t) = tokens.next() {
                    if t == "-n" || t == "-I" {
                        tokens.next();
                    } else if !t.starts_with('-') {
                        words.push(t.to_string());
                        break;
                    }
                }
            }
        }
        words
    }

    #[test]
    fn golds_follow_the_fixture_rules() {
        let set = bash_tasks().unwrap();
        for (i, task) in set.tasks.iter().enumerate() {
            let g = &task.gold;
            assert!(
                !g.contains(['"', '\\']),
                "task {i}: quoting would change: {g}"
            );
            assert!(
                !g.trim_start().starts_with("cd"),
                "task {i}: starts with cd: {g}"
            );
            assert!(!task.query.trim().is_empty(), "task {i}: empty query");
            for word in command_words(g) {
                assert!(
                    GOLD_UTILITIES.contains(&word.as_str()),
                    "task {i}: {word} in {g}"
                );
            }
            if g.contains("find ") && !g.contains("-delete") && !g.contains("wc -l") {
                assert!(g.contains("| sort"), "task {i}: unsorted find output: {g}");
            }
        }
        assert_eq!(
            command_words("mkdir -p /a && for i in $(seq 1 5); do echo $i > /a/$i; done"),
            ["mkdir", "seq", "echo"]
        );
        assert_eq!(
            command_words("find /p -print0 | xargs -0 -n 1 md5sum"),
            ["find", "xargs", "md5sum"]
        );
    }

    /// Runs `gold` with GNU bash in a fresh copy of the tree at `parent/root`, then renames
    /// that to `parent/<name>`: both runs see the same absolute paths, so their outputs and
    /// archive member names match. Returns (output, tree, status).
    fn run_native(
        tree: &TreeImage,
        parent: &Path,
        name: &str,
        gold: &str,
    ) -> (String, Dir, String) {
        let root = parent.join("root");
        std::fs::create_dir(&root).unwrap();
        let dir = Dir::open_ambient_dir(&root, cap_std::ambient_authority()).unwrap();
        tree.materialize(&dir).unwrap();
        let prefix = root.to_str().unwrap().to_string();
        let cmd = gold.replace("/project", &format!("{prefix}/project"));
        let out = std::process::Command::new("bash")
            .arg("-c")
            .arg(&cmd)
            .current_dir(&root)
            .env("LC_ALL", "C")
            .env("TZ", "UTC")
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{gold}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let text = String::from_utf8_lossy(&out.stdout).replace(&prefix, "");
        let status = render_short(&git_status(
            &Snapshot::from_image(tree),
            &Snapshot::capture_tracked(&dir).unwrap(),
        ));
        let done = parent.join(name);
        std::fs::rename(&root, &done).unwrap();
        let dir = Dir::open_ambient_dir(&done, cap_std::ambient_authority()).unwrap();
        (text, dir, status)
    }

    #[test]
    fn every_gold_scores_one_against_itself_with_gnu_tools() {
        if std::process::Command::new("bash")
            .arg("-c")
            .arg("true")
            .status()
            .is_err()
        {
            println!("skipped: no bash on this machine");
            return;
        }
        let set = bash_tasks().unwrap();
        let mut changed = 0;
        for (i, task) in set.tasks.iter().enumerate() {
            let parent = tempfile::tempdir().unwrap();
            let a = run_native(&set.tree, parent.path(), "a", &task.gold);
            let b = run_native(&set.tree, parent.path(), "b", &task.gold);
            let r = score(&a.0, &b.0, &a.2, &b.2, content_check(&a.1, &b.1));
            assert_eq!(r.reward, 1.0, "task {i} ({}): {r:?}", task.gold);
            if !a.2.is_empty() {
                changed += 1;
            }
        }
        // A good share of the suite must change the tree, or p1/p2 are never exercised.
        assert!(changed >= 10, "only {changed} tasks change files");
    }
}
