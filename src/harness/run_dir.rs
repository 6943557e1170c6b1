//! A run on disk: `DIR/manifest.json` says how the run was made (env spec, task set and its
//! hash, agent, model, strategy, context policy, turn budget, versions, seed, shard) and
//! `DIR/episodes.jsonl` holds one record per finished episode, appended as it ends. So a run
//! killed half way keeps every finished episode; `--resume DIR` redoes nothing finished;
//! shards of one run made on several machines merge into one run.
//!
//! A crash can leave the last line of `episodes.jsonl` torn: readers skip it with a warning,
//! and resuming cuts it off before appending.

use crate::data::trajectory::{EpisodeRecord, TrajectoryWriter};
use crate::env::EnvSpec;
use crate::fs::host;
use crate::{Error, Result};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::path::{Path, PathBuf};

pub const MANIFEST: &str = "manifest.json";
pub const EPISODES: &str = "episodes.jsonl";

/// One part of a run split across machines: tasks at positions `index`, `index + count`, ...
/// of the task list (interleaved, so every shard gets a mix of easy and hard tasks).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Shard {
    pub index: usize,
    pub count: usize,
}

impl Shard {
    /// Parses `i/n`.
    pub fn parse(text: &str) -> Result<Shard> {
        let bad = || Error::InvalidSpec(format!("--shard {text:?}: expected i/n with i < n"));
        let (i, n) = text.split_once('/').ok_or_else(bad)?;
        let (index, count) = (
            i.trim().parse().map_err(|_| bad())?,
            n.trim().parse().map_err(|_| bad())?,
        );
        if count == 0 || index >= count {
            return Err(bad());
        }
        Ok(Shard { index, count })
    }

    /// This shard's part of `indices`.
    pub fn select(&self, indices: &[usize]) -> Vec<usize> {
        indices
            .iter()
            .enumerate()
            .filter(|(pos, _)| pos % self.count == self.index)
            .map(|(_, &i)| i)
            .collect()
    }
}

/// How a run was made. Two runs with equal manifests (but for `shard`) are parts of one run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Manifest {
    /// The layout of this directory.
    pub format: u32,
    pub env: EnvSpec,
    /// The task set's name and a hash of its content (FNV-1a 64 of the task file, or of the
    /// embedded fixtures), so runs on different task files are never mixed up.
    pub task_set: String,
    pub task_set_hash: String,
    /// The task indices of the whole run (before sharding), in order.
    pub indices: Vec<usize>,
    /// `gold`, `replay`, `human`, `chat`.
    pub agent: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub strategy: Option<String>,
    /// What the agent is shown: history kept, truncation limits, prompt templates and their
    /// hashes (for chat agents), or what the replay came from.
    #[serde(default)]
    pub context: Value,
    /// Sampling settings (temperature, max tokens, seed) of chat agents.
    #[serde(default)]
    pub sampling: Value,
    pub max_turns: usize,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shard: Option<Shard>,
    /// intercode's version and the guests' hashes.
    pub versions: Value,
}

impl Manifest {
    /// The indices this (possibly sharded) run covers.
    pub fn own_indices(&self) -> Vec<usize> {
        match self.shard {
            Some(s) => s.select(&self.indices),
            None => self.indices.clone(),
        }
    }

    /// The first setting that differs from `other`, ignoring the shard (for error messages).
    pub fn difference(&self, other: &Manifest) -> Option<String> {
        let (a, b) = (
            serde_json::to_value(Manifest {
                shard: None,
                ..self.clone()
            })
            .ok()?,
            serde_json::to_value(Manifest {
                shard: None,
                ..other.clone()
            })
            .ok()?,
        );
        let (Value::Object(a), Value::Object(b)) = (a, b) else {
            return None;
        };
        a.iter()
            .find(|(k, v)| b.get(*k) != Some(v))
            .map(|(k, v)| format!("{k}: {v} vs {}", b.get(k).unwrap_or(&Value::Null)))
            .or_else(|| b.keys().find(|k| !a.contains_key(*k)).cloned())
    }
}

/// The versions that decide what a run does.
pub fn versions() -> Value {
    serde_json::json!({
        "intercode": env!("CARGO_PKG_VERSION"),
        "bash_guest": crate::sandbox::GUEST_HASH,
        "python_guest": crate::env::python::repl::PYTHON_HASH,
    })
}

/// FNV-1a 64 in hex: a content hash for task sets and prompt templates (not a security
/// boundary; it tells runs apart).
pub fn content_hash(bytes: &[u8]) -> String {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in bytes {
        h ^= u64::from(*b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    format!("{h:016x}")
}

/// A run directory being written.
pub struct RunDir {
    path: PathBuf,
    writer: TrajectoryWriter,
    done: std::collections::BTreeSet<usize>,
}

impl RunDir {
    /// Starts a new run in `path` (created; refused when it already holds a run).
    pub fn create(path: &Path, manifest: &Manifest) -> Result<RunDir> {
        if host::exists(&path.join(MANIFEST)) {
            return Err(Error::InvalidSpec(format!(
                "{} already holds a run: pass --resume {} to finish it, or choose another --out",
                path.display(),
                path.display()
            )));
        }
        host::create_dir_all(path)?;
        host::write_atomic(&path.join(MANIFEST), &serde_json::to_vec_pretty(manifest)?)?;
        Ok(RunDir {
            path: path.to_path_buf(),
            writer: TrajectoryWriter::open(&path.join(EPISODES))?,
            done: Default::default(),
        })
    }

    /// Reopens the run in `path` to finish it. `manifest` is what the resuming command would
    /// make; it must equal the stored one, or the records would mix two setups.
    pub fn resume(path: &Path, manifest: &Manifest) -> Result<RunDir> {
        let stored = read_manifest(path)?;
        if stored.shard != manifest.shard {
            return Err(Error::InvalidSpec(format!(
                "{} is shard {:?}, not {:?}",
                path.display(),
                stored.shard,
                manifest.shard
            )));
        }
        if let Some(diff) = stored.difference(manifest) {
            return Err(Error::InvalidSpec(format!(
                "{} was made with other settings ({diff}); resume it with the same command",
                path.display()
            )));
        }
        let episodes = path.join(EPISODES);
        let (records, good_len) = read_episodes_checked(&episodes)?;
        if let Some(len) = good_len {
            tracing::warn!(
                "{}: dropping a torn last line left by an interrupted run",
                episodes.display()
            );
            host::truncate(&episodes, len)?;
        }
        Ok(RunDir {
            path: path.to_path_buf(),
            writer: TrajectoryWriter::open(&episodes)?,
            done: records.iter().map(|r| r.task_index).collect(),
        })
    }

    /// Task indices already recorded.
    pub fn done(&self) -> &std::collections::BTreeSet<usize> {
        &self.done
    }

    pub fn append(&mut self, record: &EpisodeRecord) -> Result<()> {
        self.writer.append(record)?;
        self.done.insert(record.task_index);
        Ok(())
    }

    pub fn path(&self) -> &Path {
        &self.path
    }
}

pub fn read_manifest(dir: &Path) -> Result<Manifest> {
    let path = dir.join(MANIFEST);
    let text = host::read_to_string(&path)?;
    serde_json::from_str(&text).map_err(|e| Error::TaskFile {
        path,
        reason: e.to_string(),
    })
}

/// Reads `episodes.jsonl`; a torn (unparseable, unterminated) last line is skipped and its
/// start offset returned; a bad line elsewhere is an error naming it.
fn read_episodes_checked(path: &Path) -> Result<(Vec<EpisodeRecord>, Option<u64>)> {
    if !host::exists(path) {
        return Ok((Vec::new(), None));
    }
    let text = host::read_to_string(path)?;
    let mut records = Vec::new();
    let mut offset = 0u64;
    let mut lines = text.split_inclusive('\n').peekable();
    while let Some(line) = lines.next() {
        let start = offset;
        offset += line.len() as u64;
        if line.trim().is_empty() {
            continue;
        }
        match serde_json::from_str::<EpisodeRecord>(line) {
            Ok(r) => records.push(r),
            Err(_) if lines.peek().is_none() && !line.ends_with('\n') => {
                return Ok((records, Some(start)));
            }
            Err(e) => {
                return Err(Error::TaskFile {
                    path: path.to_path_buf(),
                    reason: format!("line {}: {e}", records.len() + 1),
                });
            }
        }
    }
    Ok((records, None))
}

/// A finished (or interrupted) run as read back.
#[derive(Debug, Clone)]
pub struct StoredRun {
    pub dir: PathBuf,
    pub manifest: Manifest,
    pub records: Vec<EpisodeRecord>,
}

/// Reads a run directory (a torn last line is skipped with a warning). Records of a task run
/// twice (an old resume that crashed between append and exit) keep the last one.
pub fn read_run(dir: &Path) -> Result<StoredRun> {
    let manifest = read_manifest(dir)?;
    let episodes = dir.join(EPISODES);
    let (records, torn) = read_episodes_checked(&episodes)?;
    if torn.is_some() {
        tracing::warn!(
            "{}: skipped a torn last line (the run was interrupted)",
            episodes.display()
        );
    }
    let mut by_index = std::collections::BTreeMap::new();
    for r in records {
        by_index.insert(r.task_index, r);
    }
    Ok(StoredRun {
        dir: dir.to_path_buf(),
        manifest,
        records: by_index.into_values().collect(),
    })
}

/// Merges the shards of one run into `out`: same settings, every shard present once, every
/// task recorded once. Records come out in task order.
pub fn merge(dirs: &[PathBuf], out: &Path) -> Result<StoredRun> {
    let runs = dirs
        .iter()
        .map(|d| read_run(d))
        .collect::<Result<Vec<_>>>()?;
    let first = runs
        .first()
        .ok_or_else(|| Error::InvalidSpec("merge needs at least one run directory".into()))?;
    let mut records = std::collections::BTreeMap::new();
    for run in &runs {
        if let Some(diff) = first.manifest.difference(&run.manifest) {
            return Err(Error::InvalidSpec(format!(
                "{} and {} are not parts of one run ({diff})",
                first.dir.display(),
                run.dir.display()
            )));
        }
        for r in &run.records {
            if records.insert(r.task_index, r.clone()).is_some() {
                return Err(Error::InvalidSpec(format!(
                    "task {} is recorded in more than one of the runs",
                    r.task_index
                )));
            }
        }
    }
    let missing: Vec<usize> = first
        .manifest
        .indices
        .iter()
        .filter(|i| !records.contains_key(i))
        .copied()
        .collect();
    if !missing.is_empty() {
        return Err(Error::InvalidSpec(format!(
            "{} of the run's tasks are in none of the parts (first: {:?}); finish the shards \
             with --resume first",
            missing.len(),
            &missing[..missing.len().min(5)]
        )));
    }
    let manifest = Manifest {
        shard: None,
        ..first.manifest.clone()
    };
    let mut dir = RunDir::create(out, &manifest)?;
    let records: Vec<EpisodeRecord> = records.into_values().collect();
    for r in &records {
        dir.append(r)?;
    }
    Ok(StoredRun {
        dir: out.to_path_buf(),
        manifest,
        records,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shards_interleave_and_cover_everything_once() {
        let all: Vec<usize> = (0..10).collect();
        let a = Shard::parse("0/3").unwrap().select(&all);
        let b = Shard::parse("1/3").unwrap().select(&all);
        let c = Shard::parse("2/3").unwrap().select(&all);
        assert_eq!(a, [0, 3, 6, 9]);
        let mut union: Vec<usize> = a.into_iter().chain(b).chain(c).collect();
        union.sort_unstable();
        assert_eq!(union, all);
        assert!(Shard::parse("3/3").is_err());
        assert!(Shard::parse("1").is_err());
        assert!(Shard::parse("0/0").is_err());
    }

    #[test]
    fn a_torn_last_line_is_skipped_but_a_bad_middle_line_is_an_error() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(EPISODES);
        let good =
            r#"{"env":"sql","task_index":0,"query":"q","gold":"g","actions":[],"reward":1.0}"#;
        host::write_atomic(&path, format!("{good}\n{{\"env\":\"sq").as_bytes()).unwrap();
        let (records, torn) = read_episodes_checked(&path).unwrap();
        assert_eq!(records.len(), 1);
        assert_eq!(torn, Some(good.len() as u64 + 1));
        host::write_atomic(&path, format!("{{oops\n{good}\n").as_bytes()).unwrap();
        assert!(read_episodes_checked(&path).is_err());
    }
}
