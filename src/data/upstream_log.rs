//! Upstream InterCode's experiment logs (`data/results/**.json`), read for all envs.
//!
//! Upstream's harnesses write one JSON file per run: an object keyed by task index whose values
//! hold the query, a `turn_history` (actions, observations, per-turn rewards, `valid_action`)
//! and a `summary` (`max_reward`, `turns_taken`). The variants seen in the published logs:
//!
//! * Try Again (`eval_n_turn.py`, also single turn): the plain shape above.
//! * ReAct: `turn_history.thoughts` as well.
//! * Plan & Solve: `turn_history.steps` (the plan), and the whole object wrapped as
//!   `{"meta": <args>, "logs": {...}}` in most files; no `turns_taken`.
//! * Human (SQL): `{"query_idx", "query", "gold", "reward", "trajectory": [{action,
//!   observation}]}` per task, with no per-turn rewards.
//! * CTF: no `valid_action` in one file; `summary.num_submissions`.
//!
//! Per-turn lists are kept as logged, so their lengths can differ: when a model's answer was
//! `blocked`, chat-bison and text-bison runs logged the action without an observation or
//! `valid_action`. A list the log lacks is empty. Python logs record `valid_action` as `null`,
//! hence the `Option`s. Malformed input is an error naming the file and the JSON path of the
//! offending value; nothing here panics on input.

use std::fmt;
use std::path::{Path, PathBuf};

use serde::Serialize;
use serde_json::{Map, Value};

use crate::fs::host;

/// Which InterCode env a log comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum LogEnv {
    Bash,
    Sql,
    Python,
    Ctf,
}

impl LogEnv {
    /// Our env name (`"bash"`, ...).
    pub fn name(self) -> &'static str {
        match self {
            LogEnv::Bash => "bash",
            LogEnv::Sql => "sql",
            LogEnv::Python => "python",
            LogEnv::Ctf => "ctf",
        }
    }

    /// Parses upstream's `environment` value (`"ic_bash"`) or a bare name (`"bash"`, as in
    /// Plan & Solve's `meta.env`).
    pub fn parse(name: &str) -> Option<LogEnv> {
        match name.strip_prefix("ic_").unwrap_or(name) {
            "bash" => Some(LogEnv::Bash),
            "sql" => Some(LogEnv::Sql),
            "python" => Some(LogEnv::Python),
            "ctf" => Some(LogEnv::Ctf),
            _ => None,
        }
    }

    /// Guesses the env from a path: a directory named after it (`results/bash/...`) or a file
    /// name starting `ic_<env>_`.
    fn from_path(path: &Path) -> Option<LogEnv> {
        let from_file = path
            .file_name()
            .and_then(|n| n.to_str())
            .and_then(|n| n.strip_prefix("ic_"))
            .and_then(|n| n.split('_').next())
            .and_then(LogEnv::parse);
        from_file.or_else(|| {
            path.components()
                .rev()
                .skip(1)
                .find_map(|c| c.as_os_str().to_str().and_then(LogEnv::parse))
        })
    }
}

impl fmt::Display for LogEnv {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Which upstream harness wrote a log.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum LogStrategy {
    /// `eval_n_turn.py`: multi-turn Try Again, or single turn with `--max_turns 1`.
    TryAgain,
    /// `eval_react.py`: episodes carry `thoughts`.
    React,
    /// `eval_plan_solve.py`: episodes carry `steps`, or the file has a `meta` wrapper.
    PlanSolve,
    /// Anything else (the human SQL trajectories).
    Other,
}

/// One results file.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct UpstreamLog {
    pub path: PathBuf,
    pub env: LogEnv,
    /// The task file the run used (`./data/nl2bash/nl2bash_fs_1.json`), when logged.
    pub dataset: Option<String>,
    pub strategy: LogStrategy,
    /// Sorted by task index.
    pub episodes: Vec<LoggedEpisode>,
}

impl UpstreamLog {
    /// The nl2bash file system (1-4) of a bash log: from the dataset path
    /// (`nl2bash_fs_N.json`), else from the file name (`..._fs_N.json`). `None` for other envs.
    pub fn fs_number(&self) -> Option<u8> {
        if self.env != LogEnv::Bash {
            return None;
        }
        let from_dataset = self
            .dataset
            .as_deref()
            .and_then(|d| number_after(d, "nl2bash_fs_"));
        from_dataset.or_else(|| {
            let name = self.path.file_name()?.to_str()?;
            number_after(name, "_fs_")
        })
    }
}

/// The decimal number right after the last `marker` in `s`, if one follows it.
fn number_after(s: &str, marker: &str) -> Option<u8> {
    let (_, rest) = s.rsplit_once(marker)?;
    let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
    digits.parse().ok()
}

/// One logged episode.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LoggedEpisode {
    /// `task_id` (`query_idx` in human logs), else the episode's key.
    pub task_index: usize,
    pub query: String,
    pub actions: Vec<String>,
    pub observations: Vec<String>,
    /// Per-turn rewards as logged (`null` becomes `None`); empty for human logs.
    pub rewards: Vec<Option<f64>>,
    /// `info["action_executed"]` per turn; `None` where the log has `null` (Python).
    pub valid_action: Vec<Option<bool>>,
    /// ReAct's thoughts, or Plan & Solve's plan steps (see [`UpstreamLog::strategy`]). A
    /// refined Plan & Solve run has fewer steps than actions: the refine turns have none.
    pub thoughts: Vec<String>,
    /// `summary.max_reward`; a human log's `reward`.
    pub max_reward: Option<f64>,
    /// `summary.turns_taken`; a human log's trajectory length. Plan & Solve logs lack it.
    pub turns_taken: Option<usize>,
    /// Spider hardness (SQL).
    pub hardness: Option<String>,
    /// `info.eval_obs` of the episode's last scoring: what the gold printed on upstream's
    /// machine (bash), where the log has it.
    pub eval_obs: Option<String>,
}

/// A log that could not be read.
#[derive(Debug, thiserror::Error)]
pub enum LogError {
    /// The file could not be read; the message of `error` names it.
    #[error("{error}")]
    Read { file: PathBuf, error: crate::Error },
    #[error("{}: not JSON: {source}", file.display())]
    Json {
        file: PathBuf,
        #[source]
        source: serde_json::Error,
    },
    /// A value of the wrong shape: `at` is its JSON path (`episode "12": turn_history.actions`).
    #[error("{}: {at}: expected {expected}", file.display())]
    Shape {
        file: PathBuf,
        at: String,
        expected: String,
    },
}

impl LogError {
    pub fn file(&self) -> &Path {
        match self {
            LogError::Read { file, .. }
            | LogError::Json { file, .. }
            | LogError::Shape { file, .. } => file,
        }
    }
}

impl From<LogError> for crate::Error {
    fn from(e: LogError) -> Self {
        match e {
            LogError::Read { error, .. } => error,
            // A malformed log is bad input, like a malformed task file.
            other => crate::Error::TaskFile {
                path: other.file().to_path_buf(),
                reason: other.to_string(),
            },
        }
    }
}

/// Reads the results file at `path`.
pub fn read(path: &Path) -> Result<UpstreamLog, LogError> {
    let text = host::read_to_string(path).map_err(|error| LogError::Read {
        file: path.to_path_buf(),
        error,
    })?;
    parse(path, &text)
}

/// Parses a results file's text; `path` names it in errors and guides the env and fs guesses.
pub fn parse(path: &Path, text: &str) -> Result<UpstreamLog, LogError> {
    let root: Value = serde_json::from_str(text).map_err(|source| LogError::Json {
        file: path.to_path_buf(),
        source,
    })?;
    let at_top = Walk {
        file: path,
        key: None,
    };
    let Unwrapped {
        wrapped,
        meta,
        episodes,
    } = unwrap(&at_top, &root)?;
    let mut parsed = Vec::with_capacity(episodes.len());
    for (key, value) in episodes {
        let walk = Walk {
            file: path,
            key: Some(key),
        };
        parsed.push(episode(&walk, value)?);
    }
    let env = file_env(&at_top, meta, &parsed)?;
    let dataset = parsed
        .iter()
        .find_map(|p| p.dataset.clone())
        .or_else(|| meta.and_then(|m| m.get("data_path")?.as_str().map(String::from)));
    let strategy = file_strategy(wrapped, &parsed);
    let mut episodes: Vec<LoggedEpisode> = parsed.into_iter().map(|p| p.episode).collect();
    // Upstream wrote some runs (StarChat SQL, Python, CTF) out of task order.
    episodes.sort_by_key(|e| e.task_index);
    Ok(UpstreamLog {
        path: path.to_path_buf(),
        env,
        dataset,
        strategy,
        episodes,
    })
}

/// Where in the file a value sits, to name it in errors.
struct Walk<'a> {
    file: &'a Path,
    /// The episode's key, once inside one.
    key: Option<&'a str>,
}

impl Walk<'_> {
    fn error(&self, field: &str, expected: impl Into<String>) -> LogError {
        let at = match (self.key, field) {
            (Some(key), "") => format!("episode {key:?}"),
            (Some(key), field) => format!("episode {key:?}: {field}"),
            (None, "") => "top level".to_string(),
            (None, field) => field.to_string(),
        };
        LogError::Shape {
            file: self.file.to_path_buf(),
            at,
            expected: expected.into(),
        }
    }
}

/// The episodes object, and Plan & Solve's wrapper around it if the file has one.
struct Unwrapped<'v> {
    wrapped: bool,
    meta: Option<&'v Map<String, Value>>,
    episodes: &'v Map<String, Value>,
}

/// Splits off Plan & Solve's `{"meta": ..., "logs": {...}}` wrapper.
fn unwrap<'v>(walk: &Walk<'_>, root: &'v Value) -> Result<Unwrapped<'v>, LogError> {
    let Some(top) = root.as_object() else {
        return Err(walk.error(
            "",
            "an object keyed by task index, or {\"meta\": ..., \"logs\": {...}}",
        ));
    };
    let Some(Value::Object(logs)) = top.get("logs") else {
        return Ok(Unwrapped {
            wrapped: false,
            meta: None,
            episodes: top,
        });
    };
    let meta = match top.get("meta") {
        None | Some(Value::Null) => None,
        Some(Value::Object(m)) => Some(m),
        Some(_) => return Err(walk.error("meta", "an object")),
    };
    Ok(Unwrapped {
        wrapped: true,
        meta,
        episodes: logs,
    })
}

/// An episode with the file-level facts it carries.
struct Parsed {
    episode: LoggedEpisode,
    env: Option<LogEnv>,
    dataset: Option<String>,
    /// Which optional per-turn list it had: `thoughts`, `steps`, or a human trajectory.
    kind: EpisodeKind,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum EpisodeKind {
    Plain,
    Thoughts,
    Steps,
    Human,
}

fn episode(walk: &Walk<'_>, value: &Value) -> Result<Parsed, LogError> {
    let Some(obj) = value.as_object() else {
        return Err(walk.error("", "an object"));
    };
    let env = match opt_str(walk, obj, "environment", "environment")? {
        None => None,
        Some(name) => Some(
            LogEnv::parse(&name)
                .ok_or_else(|| walk.error("environment", "ic_bash, ic_sql, ic_python or ic_ctf"))?,
        ),
    };
    let dataset = opt_str(walk, obj, "dataset", "dataset")?;
    let (episode, kind) = if let Some(history) = obj.get("turn_history") {
        harness_episode(walk, obj, history)?
    } else if let Some(trajectory) = obj.get("trajectory") {
        (human_episode(walk, obj, trajectory)?, EpisodeKind::Human)
    } else {
        return Err(walk.error("", "an object with \"turn_history\" or \"trajectory\""));
    };
    Ok(Parsed {
        episode,
        env,
        dataset,
        kind,
    })
}

/// An episode written by one of upstream's harnesses (Try Again, ReAct, Plan & Solve).
fn harness_episode(
    walk: &Walk<'_>,
    obj: &Map<String, Value>,
    history: &Value,
) -> Result<(LoggedEpisode, EpisodeKind), LogError> {
    let Some(th) = history.as_object() else {
        return Err(walk.error("turn_history", "an object"));
    };
    let (thoughts, kind) = if th.contains_key("thoughts") {
        (
            strings(walk, th, "turn_history.thoughts", "thoughts")?,
            EpisodeKind::Thoughts,
        )
    } else if th.contains_key("steps") {
        (
            strings(walk, th, "turn_history.steps", "steps")?,
            EpisodeKind::Steps,
        )
    } else {
        (Vec::new(), EpisodeKind::Plain)
    };
    if !th.contains_key("actions") {
        return Err(walk.error("turn_history.actions", "a list of strings (it is missing)"));
    }
    let summary = match obj.get("summary") {
        None | Some(Value::Null) => None,
        Some(Value::Object(s)) => Some(s),
        Some(_) => return Err(walk.error("summary", "an object")),
    };
    let episode = LoggedEpisode {
        task_index: task_index(walk, obj, "task_id")?,
        query: query(walk, obj)?,
        actions: strings(walk, th, "turn_history.actions", "actions")?,
        observations: strings(walk, th, "turn_history.observations", "observations")?,
        rewards: rewards(walk, th)?,
        valid_action: valid_action(walk, th)?,
        thoughts,
        max_reward: summary
            .map(|s| opt_f64(walk, s, "summary.max_reward", "max_reward"))
            .transpose()?
            .flatten(),
        turns_taken: summary
            .map(|s| opt_usize(walk, s, "summary.turns_taken", "turns_taken"))
            .transpose()?
            .flatten(),
        hardness: opt_str(walk, obj, "hardness", "hardness")?,
        eval_obs: obj
            .get("info")
            .and_then(|info| info.get("eval_obs"))
            .and_then(Value::as_str)
            .map(String::from),
    };
    Ok((episode, kind))
}

/// A human SQL trajectory: `{"query_idx", "query", "reward", "trajectory": [{action,
/// observation}]}`.
fn human_episode(
    walk: &Walk<'_>,
    obj: &Map<String, Value>,
    trajectory: &Value,
) -> Result<LoggedEpisode, LogError> {
    let expected = "a list of {\"action\": string, \"observation\": string}";
    let Some(turns) = trajectory.as_array() else {
        return Err(walk.error("trajectory", expected));
    };
    let mut actions = Vec::with_capacity(turns.len());
    let mut observations = Vec::with_capacity(turns.len());
    for (i, turn) in turns.iter().enumerate() {
        let field = format!("trajectory[{i}]");
        let text = |key: &str| {
            turn.get(key)
                .and_then(Value::as_str)
                .map(String::from)
                .ok_or_else(|| walk.error(&field, expected))
        };
        actions.push(text("action")?);
        observations.push(text("observation")?);
    }
    Ok(LoggedEpisode {
        task_index: task_index(walk, obj, "query_idx")?,
        query: query(walk, obj)?,
        turns_taken: Some(actions.len()),
        actions,
        observations,
        rewards: Vec::new(),
        valid_action: Vec::new(),
        thoughts: Vec::new(),
        max_reward: opt_f64(walk, obj, "reward", "reward")?,
        hardness: opt_str(walk, obj, "hardness", "hardness")?,
        eval_obs: None,
    })
}

/// The task index from `field`, else from the episode's key.
fn task_index(walk: &Walk<'_>, obj: &Map<String, Value>, field: &str) -> Result<usize, LogError> {
    if let Some(index) = opt_usize(walk, obj, field, field)? {
        return Ok(index);
    }
    walk.key
        .and_then(|k| k.parse().ok())
        .ok_or_else(|| walk.error(field, "a task index (the key is not one either)"))
}

fn query(walk: &Walk<'_>, obj: &Map<String, Value>) -> Result<String, LogError> {
    opt_str(walk, obj, "query", "query")?.ok_or_else(|| walk.error("query", "a string"))
}

/// `obj[key]` as a string; absent or `null` is `None`.
fn opt_str(
    walk: &Walk<'_>,
    obj: &Map<String, Value>,
    field: &str,
    key: &str,
) -> Result<Option<String>, LogError> {
    match obj.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s.clone())),
        Some(_) => Err(walk.error(field, "a string")),
    }
}

fn opt_f64(
    walk: &Walk<'_>,
    obj: &Map<String, Value>,
    field: &str,
    key: &str,
) -> Result<Option<f64>, LogError> {
    match obj.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(v) => v
            .as_f64()
            .map(Some)
            .ok_or_else(|| walk.error(field, "a number")),
    }
}

fn opt_usize(
    walk: &Walk<'_>,
    obj: &Map<String, Value>,
    field: &str,
    key: &str,
) -> Result<Option<usize>, LogError> {
    match obj.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(v) => v
            .as_u64()
            .and_then(|n| usize::try_from(n).ok())
            .map(Some)
            .ok_or_else(|| walk.error(field, "a non-negative integer")),
    }
}

/// `obj[key]` as a list whose items `item` converts; absent or `null` is an empty list.
fn list<T>(
    walk: &Walk<'_>,
    obj: &Map<String, Value>,
    field: &str,
    key: &str,
    expected: &str,
    item: impl Fn(&Value) -> Option<T>,
) -> Result<Vec<T>, LogError> {
    let items = match obj.get(key) {
        None | Some(Value::Null) => return Ok(Vec::new()),
        Some(Value::Array(items)) => items,
        Some(other) => {
            return Err(walk.error(field, format!("{expected} (found {})", kind(other))));
        }
    };
    items
        .iter()
        .enumerate()
        .map(|(i, v)| {
            item(v)
                .ok_or_else(|| walk.error(field, format!("{expected} (item {i} is {})", kind(v))))
        })
        .collect()
}

fn strings(
    walk: &Walk<'_>,
    obj: &Map<String, Value>,
    field: &str,
    key: &str,
) -> Result<Vec<String>, LogError> {
    list(walk, obj, field, key, "a list of strings", |v| {
        v.as_str().map(String::from)
    })
}

fn rewards(walk: &Walk<'_>, th: &Map<String, Value>) -> Result<Vec<Option<f64>>, LogError> {
    list(
        walk,
        th,
        "turn_history.rewards",
        "rewards",
        "a list of numbers",
        |v| match v {
            Value::Null => Some(None),
            v => v.as_f64().map(Some),
        },
    )
}

fn valid_action(walk: &Walk<'_>, th: &Map<String, Value>) -> Result<Vec<Option<bool>>, LogError> {
    list(
        walk,
        th,
        "turn_history.valid_action",
        "valid_action",
        "a list of booleans",
        |v| match v {
            Value::Null => Some(None),
            v => v.as_bool().map(Some),
        },
    )
}

/// A JSON value's kind, for error messages.
fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "a list",
        Value::Object(_) => "an object",
    }
}

/// The file's env: the episodes' `environment` (which must agree), else Plan & Solve's
/// `meta.env`, else the path.
fn file_env(
    walk: &Walk<'_>,
    meta: Option<&Map<String, Value>>,
    parsed: &[Parsed],
) -> Result<LogEnv, LogError> {
    let mut logged = parsed.iter().filter_map(|p| p.env);
    if let Some(first) = logged.next() {
        if let Some(other) = logged.find(|e| *e != first) {
            let expected = format!("one env per file (found both ic_{first} and ic_{other})");
            return Err(walk.error("environment", expected));
        }
        return Ok(first);
    }
    meta.and_then(|m| m.get("env")?.as_str())
        .and_then(LogEnv::parse)
        .or_else(|| LogEnv::from_path(walk.file))
        .ok_or_else(|| {
            walk.error(
                "environment",
                "ic_bash, ic_sql, ic_python or ic_ctf (no episode names one, nor does the path)",
            )
        })
}

fn file_strategy(wrapped: bool, parsed: &[Parsed]) -> LogStrategy {
    let has = |k: EpisodeKind| parsed.iter().any(|p| p.kind == k);
    if has(EpisodeKind::Thoughts) {
        LogStrategy::React
    } else if wrapped || has(EpisodeKind::Steps) {
        LogStrategy::PlanSolve
    } else if has(EpisodeKind::Human) {
        LogStrategy::Other
    } else {
        LogStrategy::TryAgain
    }
}

#[cfg(test)]
mod tests {
    use std::collections::{BTreeMap, HashSet};

    use super::*;

    fn parse_at(name: &str, text: &str) -> Result<UpstreamLog, LogError> {
        parse(Path::new(name), text)
    }

    fn shape_error(text: &str) -> String {
        parse_at("run.json", text).unwrap_err().to_string()
    }

    #[test]
    fn reads_a_try_again_episode() {
        let log = parse_at(
            "results/bash/x_fs_2.json",
            r#"{"3": {"environment": "ic_bash", "dataset": "./data/nl2bash/nl2bash_fs_1.json",
                "task_id": 3, "query": "q",
                "turn_history": {"actions": ["ls", "blocked"], "observations": ["a\n"],
                                 "rewards": [0.5, 1], "valid_action": [true]},
                "summary": {"max_reward": 1, "max_reward_idx": 1, "turns_taken": 2, "turns_max": 10}}}"#,
        )
        .unwrap();
        assert_eq!(log.env, LogEnv::Bash);
        assert_eq!(log.strategy, LogStrategy::TryAgain);
        // The dataset wins over the file name.
        assert_eq!(log.fs_number(), Some(1));
        let e = &log.episodes[0];
        assert_eq!((e.task_index, e.query.as_str()), (3, "q"));
        assert_eq!(e.actions, ["ls", "blocked"]);
        assert_eq!(e.observations, ["a\n"]);
        assert_eq!(e.rewards, [Some(0.5), Some(1.0)]);
        assert_eq!(e.valid_action, [Some(true)]);
        assert_eq!((e.max_reward, e.turns_taken), (Some(1.0), Some(2)));
    }

    #[test]
    fn reads_react_plan_solve_python_and_human_shapes() {
        let react = parse_at(
            "r.json",
            r#"{"0": {"environment": "ic_sql", "task_id": 0, "query": "q", "hardness": "easy",
                "turn_history": {"thoughts": ["t"], "actions": ["submit"], "observations": ["o"],
                                 "rewards": [0], "valid_action": [true]}}}"#,
        )
        .unwrap();
        assert_eq!(react.strategy, LogStrategy::React);
        assert_eq!(react.episodes[0].thoughts, ["t"]);
        assert_eq!(react.episodes[0].hardness.as_deref(), Some("easy"));
        assert_eq!(react.fs_number(), None);

        let plan = parse_at(
            "ic_bash_plan_solve_refine_3_turns.json",
            r#"{"meta": {"data_path": "./data/nl2bash/nl2bash_fs_4.json", "env": "bash"},
                "logs": {"7": {"query": "q", "turn_history": {"actions": ["a"], "steps": ["s"]},
                               "info": null, "summary": {"max_reward": 0, "max_reward_idx": -1}}}}"#,
        )
        .unwrap();
        assert_eq!(plan.strategy, LogStrategy::PlanSolve);
        assert_eq!((plan.env, plan.fs_number()), (LogEnv::Bash, Some(4)));
        assert_eq!(plan.episodes[0].task_index, 7);
        assert_eq!(plan.episodes[0].thoughts, ["s"]);
        assert_eq!(plan.episodes[0].turns_taken, None);

        let python = parse_at(
            "p.json",
            r#"{"95": {"environment": "ic_python", "task_id": 95, "query": "q",
                "turn_history": {"actions": ["def f(): pass"], "observations": [""],
                                 "rewards": [0.0], "valid_action": [null]}},
                "94": {"environment": "ic_python", "task_id": 94, "query": "q",
                "turn_history": {"actions": [], "observations": [], "rewards": [], "valid_action": []}}}"#,
        )
        .unwrap();
        let order: Vec<usize> = python.episodes.iter().map(|e| e.task_index).collect();
        assert_eq!(order, [94, 95]);
        assert_eq!(python.episodes[1].valid_action, [None]);

        let human = parse_at(
            "results/sql/human/h.json",
            r#"{"809": {"environment": "ic_sql", "query_idx": 809, "query": "q", "gold": "g",
                "reward": 0.0, "trajectory": [{"action": "show tables;", "observation": "x"}],
                "info": {}}}"#,
        )
        .unwrap();
        assert_eq!(human.strategy, LogStrategy::Other);
        let e = &human.episodes[0];
        assert_eq!(
            (e.task_index, e.turns_taken, e.max_reward),
            (809, Some(1), Some(0.0))
        );
        assert_eq!(e.actions, ["show tables;"]);
        assert!(e.rewards.is_empty());
    }

    #[test]
    fn env_comes_from_meta_or_path_when_episodes_do_not_name_it() {
        let text = r#"{"0": {"query": "q", "turn_history": {"actions": []}}}"#;
        assert_eq!(parse_at("x/sql/run.json", text).unwrap().env, LogEnv::Sql);
        assert_eq!(parse_at("ic_ctf_gpt.json", text).unwrap().env, LogEnv::Ctf);
        let err = parse_at("x/run.json", text).unwrap_err().to_string();
        assert!(
            err.starts_with("x/run.json: environment: expected ic_bash"),
            "{err}"
        );
    }

    #[test]
    fn malformed_logs_name_file_and_json_path() {
        let cases = [
            (
                r#"{"12": {"environment": "ic_bash", "query": "q", "turn_history": {"actions": [1]}}}"#,
                r#"run.json: episode "12": turn_history.actions: expected a list of strings (item 0 is a number)"#,
            ),
            (
                r#"{"12": {"environment": "ic_bash", "query": "q", "turn_history": {"actions": "ls"}}}"#,
                r#"run.json: episode "12": turn_history.actions: expected a list of strings (found a string)"#,
            ),
            (
                r#"{"1": {"query": "q", "environment": "ic_sql", "turn_history": {"actions": [], "rewards": ["1"]}}}"#,
                r#"run.json: episode "1": turn_history.rewards: expected a list of numbers (item 0 is a string)"#,
            ),
            (
                r#"{"1": {"environment": "ic_sql", "turn_history": {"actions": []}}}"#,
                r#"run.json: episode "1": query: expected a string"#,
            ),
            (
                r#"{"x": {"environment": "ic_sql", "query": "q", "turn_history": {"actions": []}}}"#,
                r#"run.json: episode "x": task_id: expected a task index (the key is not one either)"#,
            ),
            (
                r#"{"1": {"environment": "ic_sql", "task_id": -1, "query": "q", "turn_history": {"actions": []}}}"#,
                r#"run.json: episode "1": task_id: expected a non-negative integer"#,
            ),
            (
                r#"{"1": {"environment": "ic_sql", "query": "q", "turn_history": {}}}"#,
                r#"run.json: episode "1": turn_history.actions: expected a list of strings (it is missing)"#,
            ),
            (
                r#"{"1": {"environment": "ic_sql", "query": "q", "turn_history": {"actions": []}, "summary": {"turns_taken": 1.5}}}"#,
                r#"run.json: episode "1": summary.turns_taken: expected a non-negative integer"#,
            ),
            (
                r#"{"1": {"environment": "ic_sql", "query": "q"}}"#,
                r#"run.json: episode "1": expected an object with "turn_history" or "trajectory""#,
            ),
            (
                r#"{"1": {"environment": "ic_sql", "query": "q", "trajectory": [{"action": "x"}]}}"#,
                r#"run.json: episode "1": trajectory[0]: expected a list of {"action": string, "observation": string}"#,
            ),
            (
                r#"{"1": {"environment": "ic_perl", "query": "q", "turn_history": {"actions": []}}}"#,
                r#"run.json: episode "1": environment: expected ic_bash, ic_sql, ic_python or ic_ctf"#,
            ),
            (
                r#"{"1": {"environment": "ic_sql", "query": "q", "turn_history": {"actions": []}},
                    "2": {"environment": "ic_bash", "query": "q", "turn_history": {"actions": []}}}"#,
                r#"run.json: environment: expected one env per file (found both ic_sql and ic_bash)"#,
            ),
            (
                "[1, 2]",
                r#"run.json: top level: expected an object keyed by task index, or {"meta": ..., "logs": {...}}"#,
            ),
            (
                r#"{"1": 5}"#,
                r#"run.json: episode "1": expected an object"#,
            ),
        ];
        for (text, message) in cases {
            assert_eq!(shape_error(text), message);
        }
        let not_json = shape_error("{\"1\": ");
        assert!(not_json.starts_with("run.json: not JSON: "), "{not_json}");
        let missing = read(Path::new("/no/such/log.json"))
            .unwrap_err()
            .to_string();
        assert!(missing.contains("/no/such/log.json"), "{missing}");
    }

    /// Upstream's published results: `../shared` from the crate root (where `cargo test` runs),
    /// else `/work/shared`. `None` when neither exists (a checkout without the shared data); CI
    /// must have them.
    fn results_dir() -> Option<PathBuf> {
        let tail = "intercode-upstream/data/results";
        let found = [Path::new("../shared"), Path::new("/work/shared")]
            .iter()
            .map(|shared| shared.join(tail))
            .find(|dir| dir.is_dir());
        if found.is_none() && std::env::var("CI").as_deref() == Ok("true") {
            panic!("upstream results missing: no ../shared/{tail} or /work/shared/{tail}");
        }
        found
    }

    fn json_files(dir: &Path, out: &mut Vec<PathBuf>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                json_files(&path, out);
            } else if path.extension().is_some_and(|e| e == "json") {
                out.push(path);
            }
        }
    }

    #[derive(Default)]
    struct Counts {
        files: usize,
        episodes: usize,
        actions: usize,
    }

    /// Every published log parses; counts cross-checked with an independent Python reading of
    /// the same files (upstream commit in `intercode-upstream/UPSTREAM_COMMIT`).
    #[test]
    fn reads_every_upstream_results_file() {
        let Some(dir) = results_dir() else {
            eprintln!("upstream results not found: skipped");
            return;
        };
        let mut files = Vec::new();
        json_files(&dir, &mut files);
        files.sort();
        let mut counts: BTreeMap<LogEnv, Counts> = BTreeMap::new();
        let mut bash_actions: HashSet<String> = HashSet::new();
        for file in &files {
            let log = read(file).unwrap_or_else(|e| panic!("{e}"));
            let name = file.file_name().unwrap().to_str().unwrap();
            let expected = if name.contains("react") {
                LogStrategy::React
            } else if name.contains("plan_solve") {
                LogStrategy::PlanSolve
            } else if name.contains("human") {
                LogStrategy::Other
            } else {
                LogStrategy::TryAgain
            };
            assert_eq!(log.strategy, expected, "{name}");
            if log.env == LogEnv::Bash {
                let fs = log.fs_number();
                assert!(matches!(fs, Some(1..=4)), "{name}: fs {fs:?}");
                if let Some(n) = number_after(name, "_fs_") {
                    assert_eq!(fs, Some(n), "{name}");
                }
                for e in &log.episodes {
                    bash_actions.extend(e.actions.iter().cloned());
                }
            }
            let c = counts.entry(log.env).or_default();
            c.files += 1;
            c.episodes += log.episodes.len();
            c.actions += log.episodes.iter().map(|e| e.actions.len()).sum::<usize>();
        }
        for (env, c) in &counts {
            println!(
                "{env}: {} files, {} episodes, {} actions",
                c.files, c.episodes, c.actions
            );
        }
        println!("bash: {} distinct actions", bash_actions.len());
        let summary: Vec<(LogEnv, usize, usize, usize)> = counts
            .iter()
            .map(|(env, c)| (*env, c.files, c.episodes, c.actions))
            .collect();
        assert_eq!(
            summary,
            [
                (LogEnv::Bash, 36, 1802, 11710),
                (LogEnv::Sql, 17, 15567, 83909),
                (LogEnv::Python, 2, 236, 861),
                (LogEnv::Ctf, 2, 97, 669),
            ]
        );
        assert_eq!(bash_actions.len(), 6143);
    }
}
