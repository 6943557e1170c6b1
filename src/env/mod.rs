//! The one contract every environment (bash, SQL, Python) follows, modelled on upstream
//! InterCode's gym API: `reset(index)` starts an episode, `step(action)` runs one action, the
//! keywords `submit` / `skip` end it, and `evaluate()` scores it without ending it.
//!
//! * [`spec::EnvSpec`] is the one way to build an env (the CLI, the harness, the server and the
//!   Python bindings all call [`spec::EnvSpec::build`]);
//! * [`episode::Episodes`] is the one episode state machine: each env only says how to start a
//!   task, run an action and score ([`episode::Backend`]), so reset/step/submit/skip/evaluate
//!   behave the same everywhere;
//! * [`Step`] carries `action_executed` and `exit_status` as fields; its JSON keeps upstream's
//!   `(observation, reward, done, info)` shape with both inside `info`.
//!
//! Differences from upstream (deliberate): every episode gets fresh state (upstream's SQL env never
//! reset; its bash env only reset what git tracked), a step after the end of an episode is an
//! error ([`crate::Error::EpisodeOver`]) instead of silently running on stale state, and scoring
//! without ending is its own call instead of a `submit` that does not end.

pub mod bash;
pub mod episode;
pub mod python;
pub mod replay;
pub mod shlex;
pub mod spec;
pub mod sql;

use serde::{Deserialize, Serialize, Serializer};
use serde_json::{Map, Value};

pub use episode::{Backend, Episodes};
pub use spec::EnvSpec;

/// Which environment.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum EnvKind {
    #[default]
    Bash,
    Sql,
    Python,
}

impl EnvKind {
    pub const ALL: [EnvKind; 3] = [EnvKind::Bash, EnvKind::Sql, EnvKind::Python];

    pub fn name(self) -> &'static str {
        match self {
            EnvKind::Bash => "bash",
            EnvKind::Sql => "sql",
            EnvKind::Python => "python",
        }
    }
}

impl std::fmt::Display for EnvKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl std::str::FromStr for EnvKind {
    type Err = crate::Error;
    fn from_str(s: &str) -> crate::Result<EnvKind> {
        EnvKind::ALL
            .into_iter()
            .find(|k| k.name().eq_ignore_ascii_case(s.trim()))
            .ok_or_else(|| {
                crate::Error::InvalidSpec(format!("unknown env {s:?} (bash, sql, python)"))
            })
    }
}

/// What `reset` returns: the natural-language query the agent must solve.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Reset {
    pub index: usize,
    pub query: String,
}

/// A task as the harness sees it. Policies get a [`crate::harness::policy::TaskView`] made from
/// it, without the gold.
#[derive(Debug, Clone, PartialEq)]
pub struct TaskInfo {
    pub query: String,
    pub gold: String,
    /// SQL: Spider hardness; bash: the task set (`nl2bash_fs_1`); Python: none.
    pub category: Option<String>,
    /// SQL: the tables of the task's database and their columns.
    pub tables: Vec<(String, Vec<String>)>,
}

/// What `step` returns, shaped like upstream's `(observation, reward, done, info)`.
#[derive(Debug, Clone, PartialEq)]
pub struct Step {
    pub observation: String,
    pub reward: f64,
    pub done: bool,
    /// Upstream's `info["action_executed"]`: the action ran without error (bash: exit status
    /// 0; SQL: no error; Python: no exception). True for `submit` and `skip`, as upstream sets
    /// it for keywords.
    pub action_executed: bool,
    /// The process exit status (bash), when there was one.
    pub exit_status: Option<i32>,
    /// Everything else the env reports (SQL rows, Python output/error, the reward's parts).
    pub info: Map<String, Value>,
}

impl Step {
    /// Upstream's `info` dict: [`Step::info`] plus `action_executed` and `exit_status`.
    pub fn info_json(&self) -> Map<String, Value> {
        let mut info = self.info.clone();
        info.insert("action_executed".into(), Value::Bool(self.action_executed));
        if let Some(code) = self.exit_status {
            info.insert("exit_status".into(), Value::from(code));
        }
        info
    }
}

impl Serialize for Step {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        #[derive(Serialize)]
        struct Upstream<'a> {
            observation: &'a str,
            reward: f64,
            done: bool,
            info: Map<String, Value>,
        }
        Upstream {
            observation: &self.observation,
            reward: self.reward,
            done: self.done,
            info: self.info_json(),
        }
        .serialize(s)
    }
}

/// A score taken without ending the episode ([`Env::evaluate`]).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Evaluation {
    pub reward: f64,
    /// The reward's parts, as `submit` reports them.
    pub info: Map<String, Value>,
}

/// A saved point of an episode to roll back to ([`Env::checkpoint`], [`Env::rollback`]): the
/// actions so far, and where the env can copy its state (the bash tree) that copy; otherwise
/// rolling back rebuilds the state by replaying the actions into a fresh episode (SQL
/// statements, Python cells: deterministic, pinned seeds).
#[derive(Clone)]
pub struct Checkpoint {
    pub(crate) index: usize,
    /// Actions taken when the checkpoint was made.
    pub turns: usize,
    pub(crate) last_observation: String,
    pub(crate) saved: Option<std::sync::Arc<dyn std::any::Any + Send + Sync>>,
}

impl std::fmt::Debug for Checkpoint {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Checkpoint")
            .field("index", &self.index)
            .field("turns", &self.turns)
            .field("copied", &self.saved.is_some())
            .finish()
    }
}

/// What an action would do to the files the episode started with, found by running it on a
/// throwaway copy of the episode ([`Env::dry_run`]).
#[derive(Debug, Clone, PartialEq)]
pub struct DryRun {
    /// Files that existed before the episode, still exist now, and that the action would
    /// delete or truncate (absolute paths).
    pub destroyed: Vec<String>,
    /// What the action printed on the copy.
    pub observation: String,
}

/// Words that end an episode instead of being executed (upstream: an action *starting* with
/// `submit`, or exactly `skip`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Keyword {
    Submit(Option<String>),
    Skip,
}

impl Keyword {
    pub fn parse(action: &str) -> Option<Keyword> {
        let trimmed = action.trim();
        if trimmed == "skip" {
            return Some(Keyword::Skip);
        }
        let rest = trimmed.strip_prefix("submit")?;
        let arg = rest.trim();
        Some(Keyword::Submit((!arg.is_empty()).then(|| arg.to_string())))
    }
}

/// An interactive coding environment. Built by [`EnvSpec::build`]; implemented once, by
/// [`Episodes`], for every env.
pub trait Env: Send {
    /// Which environment this is.
    fn kind(&self) -> EnvKind;
    /// Human name of the environment (`bash`, `sql`, `python`).
    fn name(&self) -> &'static str {
        self.kind().name()
    }
    /// Number of tasks in the loaded task set.
    fn task_count(&self) -> usize;
    /// Task `index`'s query, gold and category.
    fn task(&self, index: usize) -> crate::Result<TaskInfo>;
    /// Starts a fresh episode on task `index`.
    fn reset(&mut self, index: usize) -> crate::Result<Reset>;
    /// Runs one action, or ends the episode on `submit` / `skip`.
    fn step(&mut self, action: &str) -> crate::Result<Step>;
    /// Scores the episode as `submit` would, without ending it.
    fn evaluate(&mut self) -> crate::Result<Evaluation>;
    /// Ends the episode and scores it; `name` is the Python function to test (`submit name`).
    fn submit_named(&mut self, name: Option<&str>) -> crate::Result<Step>;
    /// Ends the episode and scores it (same as `step("submit")`).
    fn submit(&mut self) -> crate::Result<Step> {
        self.submit_named(None)
    }
    /// Ends the episode with reward 0 (same as `step("skip")`).
    fn skip(&mut self) -> crate::Result<Step>;
    /// The index of the running episode's task, if one is running or just ended.
    fn current_index(&self) -> Option<usize>;
    /// Whether the current episode has ended (`submit` / `skip`).
    fn is_done(&self) -> bool;
    /// The gold solution of the current task (for the gold agent and for logs).
    fn gold(&self) -> crate::Result<String> {
        let index = self.current_index().ok_or(crate::Error::NoEpisode)?;
        Ok(self.task(index)?.gold)
    }
    /// The actions of the current episode so far, with their observations.
    fn turns(&self) -> &[crate::data::trajectory::TurnRecord];
    /// Saves the running episode's state (see [`Checkpoint`]).
    fn checkpoint(&mut self) -> crate::Result<Checkpoint>;
    /// Brings the episode back to `checkpoint` (made in this episode): its files, database or
    /// namespace, its turns and last observation.
    fn rollback(&mut self, checkpoint: &Checkpoint) -> crate::Result<()>;
    /// Runs `action` on a throwaway copy of the episode and reports what it would destroy;
    /// `None` where the env has no files to protect (SQL, Python). The episode is unchanged.
    fn dry_run(&mut self, action: &str) -> crate::Result<Option<DryRun>>;
    /// Whether `source` (the lines typed so far, joined with `\n`) forms a whole action, so an
    /// interactive front end knows when to stop reading lines. The bash and Python envs ask
    /// their parsers (a here-document or `def f():` needs more lines); SQL actions are one line.
    fn is_complete(&mut self, source: &str) -> crate::Result<bool>;
    /// How long one action may run (a bash command line, a SQL statement, a Python cell).
    fn action_timeout(&self) -> std::time::Duration;
    /// Changes the limit of the actions that follow (the gold and evaluation keep theirs), e.g.
    /// a caller's shorter per-call timeout. Zero is refused.
    fn set_action_timeout(&mut self, timeout: std::time::Duration) -> crate::Result<()>;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keywords_follow_upstream() {
        assert_eq!(Keyword::parse("submit"), Some(Keyword::Submit(None)));
        assert_eq!(
            Keyword::parse("submit my_func"),
            Some(Keyword::Submit(Some("my_func".into())))
        );
        assert_eq!(Keyword::parse(" skip "), Some(Keyword::Skip));
        assert_eq!(Keyword::parse("skipper"), None);
        assert_eq!(Keyword::parse("ls submit"), None);
    }

    #[test]
    fn step_json_keeps_upstreams_shape() {
        let step = Step {
            observation: "a\n".into(),
            reward: 0.0,
            done: false,
            action_executed: false,
            exit_status: Some(2),
            info: Map::new(),
        };
        let v = serde_json::to_value(&step).unwrap();
        assert_eq!(v["info"]["action_executed"], Value::Bool(false));
        assert_eq!(v["info"]["exit_status"], Value::from(2));
        assert_eq!(v["observation"], "a\n");
        assert_eq!(v.as_object().unwrap().len(), 4);
    }

    #[test]
    fn env_kinds_parse() {
        assert_eq!("SQL".parse::<EnvKind>().unwrap(), EnvKind::Sql);
        assert!("perl".parse::<EnvKind>().is_err());
    }
}
