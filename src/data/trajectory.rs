//! Trajectories: one JSON line per finished episode (JSON Lines).
//!
//! A run over hundreds of tasks must not lose finished episodes when it crashes or is killed,
//! so [`TrajectoryWriter::append`] writes each record as one complete line with a single
//! `write` on a file opened in append mode, and flushes it before returning. A crash can at most
//! leave the last line truncated; [`read_records`] reports that line as an error naming it.
//!
//! ```
//! use intercode::data::trajectory::{EpisodeRecord, TrajectoryWriter, TurnRecord, read_records};
//! # let dir = tempfile::tempdir().unwrap();
//! let path = dir.path().join("run.jsonl");
//! let mut w = TrajectoryWriter::open(&path)?;
//! w.append(&EpisodeRecord {
//!     env: "bash".into(),
//!     task_index: 0,
//!     query: "list files".into(),
//!     gold: "ls".into(),
//!     actions: vec![TurnRecord::new("ls", "a\n", Some(0))],
//!     reward: 1.0,
//!     ..Default::default()
//! })?;
//! assert_eq!(read_records(&path)?.len(), 1);
//! # Ok::<(), intercode::Error>(())
//! ```

use std::io::Write;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::fs::host;
use crate::{Error, Result};

/// One action and what it produced.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TurnRecord {
    pub action: String,
    pub observation: String,
    /// The process exit status, when the env has one (bash); absent for SQL.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exit_status: Option<i32>,
    /// Upstream's `info["action_executed"]`.
    pub action_executed: bool,
    /// The reward of the episode right after this action (`Env::evaluate`), when the strategy
    /// asked for it (try-again does after every action).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reward: Option<f64>,
    /// The model's reasoning for this action (ReAct's `Thought`, the plan step it carries out).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub thought: Option<String>,
    /// The model's whole reply this action was taken from.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub response: Option<String>,
    /// Tokens the model request(s) behind this action used.
    #[serde(default, skip_serializing_if = "Usage::is_empty")]
    pub usage: Usage,
    /// Milliseconds this turn took, model and env together.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub wall_ms: Option<u64>,
    /// The guard's check that refused this action (`sql_lint`, `destructive`, `critic`);
    /// nothing ran.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub refused: Option<String>,
}

impl TurnRecord {
    /// A turn whose `action_executed` follows from the exit status (0 = executed).
    pub fn new(action: &str, observation: &str, exit_status: Option<i32>) -> TurnRecord {
        TurnRecord {
            action: action.to_string(),
            observation: observation.to_string(),
            exit_status,
            action_executed: exit_status == Some(0),
            reward: None,
            thought: None,
            response: None,
            usage: Usage::default(),
            wall_ms: None,
            refused: None,
        }
    }
}

/// Tokens used by model requests (OpenAI's `usage` object).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Usage {
    #[serde(default)]
    pub prompt_tokens: u64,
    #[serde(default)]
    pub completion_tokens: u64,
    /// HTTP requests made, retries included.
    #[serde(default)]
    pub requests: u64,
}

impl Usage {
    pub fn is_empty(&self) -> bool {
        *self == Usage::default()
    }

    pub fn add(&mut self, other: Usage) {
        self.prompt_tokens += other.prompt_tokens;
        self.completion_tokens += other.completion_tokens;
        self.requests += other.requests;
    }
}

/// How an episode ended.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EpisodeEnd {
    /// The agent submitted (or a strategy submitted for it on reaching reward 1.0).
    #[default]
    Submitted,
    /// The turn budget ran out and the harness submitted.
    TurnLimit,
    /// The agent gave up with `skip`.
    Skipped,
    /// The harness failed (sandbox fault, endpoint down after retries, malformed replies after
    /// retries): not the model's failure, reported apart and never scored.
    HarnessError,
}

/// One finished episode.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct EpisodeRecord {
    /// `"bash"`, `"sql"`, `"python"`.
    pub env: String,
    pub task_index: usize,
    pub query: String,
    /// The task's gold, for analysis; no policy but the gold agent ever sees it.
    pub gold: String,
    /// Breakdown key: the SQL task's Spider hardness, the bash task set (`nl2bash_fs_1`, ...).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub category: Option<String>,
    pub actions: Vec<TurnRecord>,
    /// The final reward (what `submit` returned).
    pub reward: f64,
    /// The final step's `info` (for bash, upstream's reward breakdown).
    #[serde(default)]
    pub info: Map<String, Value>,
    #[serde(default)]
    pub end: EpisodeEnd,
    /// What went wrong, for [`EpisodeEnd::HarnessError`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// Destructive mutations: bash files that existed before the episode and that the agent
    /// deleted or truncated while the gold left them alone; SQL statements that wrote.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub destructive: Vec<String>,
    /// Tokens of every model request of the episode.
    #[serde(default, skip_serializing_if = "Usage::is_empty")]
    pub usage: Usage,
    /// Milliseconds from reset to the final step.
    #[serde(default)]
    pub wall_ms: u64,
}

impl EpisodeRecord {
    /// Solved: the final reward is exactly 1.0 (upstream's success).
    pub fn solved(&self) -> bool {
        self.end != EpisodeEnd::HarnessError && self.reward == 1.0
    }
}

/// Appends [`EpisodeRecord`]s to a JSON Lines file.
#[derive(Debug)]
pub struct TrajectoryWriter {
    file: std::fs::File,
    path: PathBuf,
}

impl TrajectoryWriter {
    /// Opens `path` for appending (creating it), so a resumed run keeps earlier episodes.
    pub fn open(path: &Path) -> Result<TrajectoryWriter> {
        Ok(TrajectoryWriter {
            file: host::open_append(path)?,
            path: path.to_path_buf(),
        })
    }

    /// Writes one record as one line and flushes it.
    pub fn append(&mut self, record: &EpisodeRecord) -> Result<()> {
        let mut line = serde_json::to_vec(record)?;
        line.push(b'\n');
        // One write call of a whole line: with O_APPEND the line lands in one piece.
        self.file
            .write_all(&line)
            .and_then(|()| self.file.flush())
            .map_err(|e| Error::io(&self.path, e))
    }

    pub fn path(&self) -> &Path {
        &self.path
    }
}

/// Reads every record of a JSON Lines trajectory file; blank lines are skipped and a malformed
/// line is an error naming the file and the line number.
pub fn read_records(path: &Path) -> Result<Vec<EpisodeRecord>> {
    let text = host::read_to_string(path)?;
    text.lines()
        .enumerate()
        .filter(|(_, line)| !line.trim().is_empty())
        .map(|(i, line)| {
            serde_json::from_str(line).map_err(|e| Error::TaskFile {
                path: path.to_path_buf(),
                reason: format!("line {}: {e}", i + 1),
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(i: usize) -> EpisodeRecord {
        let mut info = Map::new();
        info.insert("action_executed".into(), Value::Bool(true));
        EpisodeRecord {
            env: "bash".into(),
            task_index: i,
            query: format!("task {i}\nwith a newline and \"quotes\""),
            gold: "echo hi".into(),
            actions: vec![
                TurnRecord::new("ls", "a b\n", Some(0)),
                TurnRecord::new("false", "", Some(1)),
                TurnRecord {
                    action_executed: true,
                    reward: Some(0.5),
                    ..TurnRecord::new("SELECT 1", "[(1,)]", None)
                },
            ],
            reward: 0.67,
            info,
            category: Some("easy".into()),
            end: EpisodeEnd::TurnLimit,
            error: None,
            destructive: vec!["/testbed/a.txt".into()],
            usage: Usage {
                prompt_tokens: 10,
                completion_tokens: 3,
                requests: 1,
            },
            wall_ms: 12,
        }
    }

    #[test]
    fn appends_survive_reopening_and_round_trip() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.jsonl");
        {
            let mut w = TrajectoryWriter::open(&path).unwrap();
            w.append(&record(0)).unwrap();
            w.append(&record(1)).unwrap();
        }
        // A second run appends instead of truncating.
        TrajectoryWriter::open(&path)
            .unwrap()
            .append(&record(2))
            .unwrap();
        let back = read_records(&path).unwrap();
        assert_eq!(back, [record(0), record(1), record(2)]);
        let text = std::fs::read_to_string(&path).unwrap();
        assert_eq!(text.lines().count(), 3);
        assert!(!text.lines().next().unwrap().contains("exit_status\":null"));
    }

    #[test]
    fn truncated_last_line_is_an_error_naming_the_line() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.jsonl");
        let mut w = TrajectoryWriter::open(&path).unwrap();
        w.append(&record(0)).unwrap();
        drop(w);
        let mut f = host::open_append(&path).unwrap();
        f.write_all(b"{\"env\": \"bash\", \"task_in").unwrap();
        let err = read_records(&path).unwrap_err().to_string();
        assert!(err.contains("t.jsonl") && err.contains("line 2"), "{err}");
        assert!(TrajectoryWriter::open(&dir.path().join("no/such/dir.jsonl")).is_err());
    }
}
