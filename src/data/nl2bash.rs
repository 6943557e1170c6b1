//! Upstream's InterCode-Bash task files, read unchanged.
//!
//! `data/nl2bash/nl2bash_fs_N.json` (and `test_queries.json`) are JSON arrays of
//! `{"query": ..., "gold": ...}`. Each belongs to one file tree; the rebuilt trees are
//! `filesystems/fs_N.effective.tar.gz` beside upstream's `data/` (the tree *after* upstream's
//! `git reset --hard; git clean -fd`, which is what its agents actually saw).
//!
//! ```no_run
//! use std::path::Path;
//! use intercode::data::nl2bash;
//! let tasks = Path::new("../shared/intercode-upstream/data/nl2bash/nl2bash_fs_1.json");
//! let tree = nl2bash::infer_tree_for(tasks).expect("fs_1 tree next to the data");
//! let set = nl2bash::load_upstream(tasks, &tree)?;
//! assert_eq!(set.tasks.len(), 60);
//! # Ok::<(), intercode::Error>(())
//! ```

use std::path::{Path, PathBuf};

use super::task::{BashTask, BashTaskSet};
use crate::fs::{TreeImage, host};
use crate::{Error, Result};

/// Reads and validates a task file.
pub fn load_tasks(path: &Path) -> Result<Vec<BashTask>> {
    let text = host::read(path)?;
    let text = String::from_utf8(text).map_err(|e| Error::TaskFile {
        path: path.to_path_buf(),
        reason: format!("not UTF-8: {e}"),
    })?;
    parse_tasks(&text, path)
}

/// Parses task-file text; `path` is only used in error messages.
pub fn parse_tasks(text: &str, path: &Path) -> Result<Vec<BashTask>> {
    let malformed = |reason: String| Error::TaskFile {
        path: path.to_path_buf(),
        reason,
    };
    if text.trim().is_empty() {
        return Err(malformed("the file is empty".into()));
    }
    let tasks: Vec<BashTask> = serde_json::from_str(text).map_err(|e| {
        malformed(format!(
            "expected a JSON array of {{\"query\": string, \"gold\": string}}: {e}"
        ))
    })?;
    if tasks.is_empty() {
        return Err(malformed("the task list is empty".into()));
    }
    Ok(tasks)
}

/// Loads a task file and the tree its tasks run against. The set is named after the task file
/// (`nl2bash_fs_1`).
pub fn load_upstream(tasks_path: &Path, tree_path: &Path) -> Result<BashTaskSet> {
    let tasks = load_tasks(tasks_path)?;
    let tree = TreeImage::from_tar_gz_file(tree_path)?;
    let name = tasks_path
        .file_stem()
        .map_or_else(|| "tasks".to_string(), |s| s.to_string_lossy().into_owned());
    Ok(BashTaskSet { name, tasks, tree })
}

/// The tree that belongs to an upstream task file, if it exists:
/// `.../data/nl2bash/nl2bash_fs_N.json` -> `.../filesystems/fs_N.effective.tar.gz`, and
/// `test_queries.json` -> `fs_test.effective.tar.gz`.
pub fn infer_tree_for(tasks_path: &Path) -> Option<PathBuf> {
    let stem = tasks_path.file_stem()?.to_str()?;
    let fs_name = match stem.strip_prefix("nl2bash_fs_") {
        Some(n) if !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()) => format!("fs_{n}"),
        _ if stem == "test_queries" => "fs_test".to_string(),
        _ => return None,
    };
    let tree = tasks_path
        .parent()?
        .join("../../filesystems")
        .join(format!("{fs_name}.effective.tar.gz"));
    host::is_file(&tree).then_some(tree)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn upstream() -> Option<PathBuf> {
        let root = PathBuf::from(
            std::env::var("CARGO_MANIFEST_DIR")
                .unwrap_or_else(|_| env!("CARGO_MANIFEST_DIR").to_string()),
        )
        .join("../shared/intercode-upstream");
        if root.is_dir() {
            Some(root)
        } else {
            assert!(
                std::env::var("CI").as_deref() != Ok("true"),
                "upstream data missing at {}",
                root.display()
            );
            println!("skipped: upstream data not found at {}", root.display());
            None
        }
    }

    #[test]
    fn malformed_files_are_errors_naming_the_file() {
        let path = Path::new("/data/tasks.json");
        let cases = [
            "",
            "   \n",
            "not json",
            "{\"query\": \"q\", \"gold\": \"g\"}",
            "[]",
            "[{\"query\": \"q\"}]",
            "[{\"gold\": \"g\"}]",
            "[{\"query\": 1, \"gold\": \"g\"}]",
            "[{\"query\": \"q\", \"gold\": null}]",
            "[{\"query\": \"q\", \"gold\": \"g\"}",
            "[\"q\"]",
        ];
        for text in cases {
            let err = parse_tasks(text, path).unwrap_err();
            assert!(matches!(err, Error::TaskFile { .. }), "{text:?}: {err}");
            assert!(err.to_string().contains("/data/tasks.json"), "{err}");
        }
        let tasks =
            parse_tasks("[{\"query\": \"q\", \"gold\": \"g\", \"extra\": 1}]", path).unwrap();
        assert_eq!(tasks[0].gold, "g");
    }

    #[test]
    fn unreadable_and_non_utf8_files_are_errors() {
        let dir = tempfile::tempdir().unwrap();
        let missing = dir.path().join("missing.json");
        assert!(
            load_tasks(&missing)
                .unwrap_err()
                .to_string()
                .contains("missing.json")
        );
        let latin1 = dir.path().join("latin1.json");
        std::fs::write(&latin1, b"[{\"query\": \"caf\xe9\", \"gold\": \"ls\"}]").unwrap();
        let err = load_tasks(&latin1).unwrap_err();
        assert!(matches!(err, Error::TaskFile { .. }) && err.to_string().contains("latin1.json"));
    }

    #[test]
    fn infers_trees_by_name() {
        assert_eq!(
            infer_tree_for(Path::new("/nowhere/nl2bash_fs_1.json")),
            None
        );
        assert_eq!(infer_tree_for(Path::new("other.json")), None);
        assert_eq!(infer_tree_for(Path::new("nl2bash_fs_x.json")), None);
        let Some(root) = upstream() else { return };
        let data = root.join("data/nl2bash");
        for (file, tree) in [
            ("nl2bash_fs_1.json", "fs_1"),
            ("nl2bash_fs_4.json", "fs_4"),
            ("test_queries.json", "fs_test"),
        ] {
            let got = infer_tree_for(&data.join(file)).unwrap();
            assert!(
                got.ends_with(format!("filesystems/{tree}.effective.tar.gz")),
                "{got:?}"
            );
        }
    }

    #[test]
    fn loads_every_upstream_task_file_with_its_tree() {
        let Some(root) = upstream() else { return };
        let mut total = 0;
        for (file, count) in [
            ("nl2bash_fs_1.json", 60),
            ("nl2bash_fs_2.json", 53),
            ("nl2bash_fs_3.json", 60),
            ("nl2bash_fs_4.json", 27),
            ("test_queries.json", 24),
        ] {
            let tasks = root.join("data/nl2bash").join(file);
            let tree = infer_tree_for(&tasks).unwrap();
            let set = load_upstream(&tasks, &tree).unwrap();
            assert_eq!(set.tasks.len(), count, "{file}");
            assert_eq!(set.name, file.trim_end_matches(".json"));
            total += set.tasks.len();
        }
        assert_eq!(total, 224);
        let fs1 =
            TreeImage::from_tar_gz_file(&root.join("filesystems/fs_1.effective.tar.gz")).unwrap();
        assert!(fs1.get("testbed/dir1/subdir1/textfile4.txt").is_some());
        assert!(fs1.get("index.html").is_some());
    }
}
