//! Replays upstream's InterCode-SQL experiment logs through our env and compares rewards.
//!
//! A log (`data/results/sql/**.json`) maps task indices to episodes whose `turn_history` holds the
//! actions upstream's harness executed, the observations it got and the reward of each turn. The
//! Try-Again and Plan & Solve harnesses ran every action and then `submit` (and went on), so each
//! turn's reward is the score of that action's result; ReAct logs (`thoughts` present) score only
//! their `submit` turns. Turns upstream never executed (the model's answer was not SQL: the logged
//! observation is the harness's retry message, or the action is `blocked`) are skipped.
//!
//! Upstream ran on MySQL 8 and never reset its databases; we run on SQLite with a fresh copy per
//! episode, normally the databases of upstream's own MySQL dump
//! ([`crate::data::spider::load_upstream_mysql`]). Every mismatch is attributed to a cause:
//! MySQL-only syntax, SQL that MySQL refused and SQLite runs, different rows for the agent's query,
//! or a different gold result.

use std::path::{Path, PathBuf};

use serde::Serialize;
use serde_json::Value;

use super::parse::upstream_react_parser;
use super::{SqlEnv, SqlOptions};
use crate::data::spider::SqlTaskSet;
use crate::env::Env;
use crate::env::replay::Causes;
pub use crate::env::replay::{CauseStats, ReplayMismatch};
use crate::reward::sql::score_parts;
use crate::{Error, Result};

/// What a replay found.
#[derive(Debug, Clone, Default, Serialize)]
pub struct ReplayReport {
    pub file: PathBuf,
    pub episodes: usize,
    pub turns: usize,
    /// Turns upstream never executed (not SQL, or blocked): skipped.
    pub not_executed: usize,
    /// Turns whose reward was compared.
    pub scored_turns: usize,
    /// Of those, turns whose reward we reproduced exactly.
    pub reproduced: usize,
    /// Executed turns whose observation string equals upstream's exactly.
    pub observations_equal: usize,
    /// Executed turns compared for the observation.
    pub executed_turns: usize,
    /// Episodes with a logged turn reward of 1 (upstream's success), and with ours.
    pub logged_successes: usize,
    pub replayed_successes: usize,
    /// Scored turns where tau changes the reward (`round(tau * iou, 2) != iou`) and upstream
    /// logged the tau-scaled value, and where it logged the plain IoU instead: which reward code
    /// the run used (some logged runs predate the Kendall-tau scaling).
    pub tau_scaled_turns: usize,
    pub plain_iou_turns: usize,
    /// Scored turns whose logged reward equals our plain IoU (the whole reward of runs that
    /// predate the tau scaling).
    pub iou_reproduced: usize,
    /// Mismatches by cause.
    pub causes: Causes,
}

impl ReplayReport {
    /// Share of compared turns whose reward was reproduced (1.0 when none were compared).
    pub fn share(&self) -> f64 {
        if self.scored_turns == 0 {
            1.0
        } else {
            self.reproduced as f64 / self.scored_turns as f64
        }
    }

    /// Whether the run's rewards were plain IoU (no tau scaling): it logged the plain IoU
    /// wherever tau would have changed it, and never the scaled value.
    pub fn run_used_plain_iou(&self) -> bool {
        self.plain_iou_turns > 0 && self.tau_scaled_turns == 0
    }

    /// Share of compared turns reproduced under the reward code the run used (see
    /// [`ReplayReport::run_used_plain_iou`]).
    pub fn share_for_run_reward(&self) -> f64 {
        if self.scored_turns == 0 {
            return 1.0;
        }
        let hits = if self.run_used_plain_iou() {
            self.iou_reproduced
        } else {
            self.reproduced
        };
        hits as f64 / self.scored_turns as f64
    }

    fn add(&mut self, other: ReplayReport) {
        self.episodes += other.episodes;
        self.turns += other.turns;
        self.not_executed += other.not_executed;
        self.scored_turns += other.scored_turns;
        self.reproduced += other.reproduced;
        self.observations_equal += other.observations_equal;
        self.executed_turns += other.executed_turns;
        self.logged_successes += other.logged_successes;
        self.replayed_successes += other.replayed_successes;
        self.tau_scaled_turns += other.tau_scaled_turns;
        self.plain_iou_turns += other.plain_iou_turns;
        self.iou_reproduced += other.iou_reproduced;
        crate::env::replay::merge(&mut self.causes, other.causes);
    }
}

/// Tasks whose gold query fails on MySQL 8 (`ONLY_FULL_GROUP_BY`, `SHOW` as a table name, …), so
/// that upstream scored them against `[]` (UPSTREAM-BEHAVIOUR.md §3.3).
pub const UPSTREAM_CORRUPT_GOLDS: [usize; 19] = [
    54, 83, 164, 178, 225, 271, 301, 525, 531, 638, 704, 710, 798, 802, 803, 850, 892, 942, 967,
];

/// The harness's messages for answers it did not execute.
const RETRY_PREFIXES: [&str; 3] = [
    "No SQL code was found in your last response",
    "Format your SQL command as follows",
    "Error executing query: Your last `execute` action did not contain",
];

fn is_error(obs: &str) -> bool {
    obs.starts_with("Error executing query")
}

/// Replays several logs and sums their reports (the file is the first one's).
pub fn replay_logs(
    paths: &[PathBuf],
    tasks: &SqlTaskSet,
    options: &SqlOptions,
) -> Result<ReplayReport> {
    let mut total = ReplayReport::default();
    for (i, p) in paths.iter().enumerate() {
        let r = replay_log(p, tasks, options)?;
        if i == 0 {
            total.file.clone_from(&r.file);
        }
        total.add(r);
    }
    Ok(total)
}

/// Re-runs every executed action of the log at `path` on `tasks` and compares each turn's
/// reward with the logged one.
pub fn replay_log(path: &Path, tasks: &SqlTaskSet, options: &SqlOptions) -> Result<ReplayReport> {
    let text = std::fs::read_to_string(path).map_err(|e| Error::io(path, e))?;
    let log: Value = serde_json::from_str(&text)?;
    let episodes = log.get("logs").unwrap_or(&log);
    let episodes = episodes.as_object().ok_or_else(|| Error::TaskFile {
        path: path.to_path_buf(),
        reason: "a log is a JSON object keyed by task index".into(),
    })?;
    let mut env = SqlEnv::new(tasks.clone(), options.clone())?;
    let mut report = ReplayReport {
        file: path.to_path_buf(),
        ..ReplayReport::default()
    };
    let mut keyed: Vec<(usize, &Value)> = episodes
        .iter()
        .filter_map(|(k, v)| {
            Some((
                v.get("task_id")?
                    .as_u64()
                    .map_or(k.parse().ok()?, |t| t as usize),
                v,
            ))
        })
        .collect();
    keyed.sort_by_key(|(k, _)| *k);
    for (task, episode) in keyed {
        let Some(history) = episode.get("turn_history") else {
            continue;
        };
        let strings = |key: &str| -> Vec<String> {
            history
                .get(key)
                .and_then(Value::as_array)
                .map(|a| {
                    a.iter()
                        .map(|v| v.as_str().map_or_else(|| v.to_string(), str::to_string))
                        .collect()
                })
                .unwrap_or_default()
        };
        let actions = strings("actions");
        let observations = strings("observations");
        let rewards: Vec<f64> = history
            .get("rewards")
            .and_then(Value::as_array)
            .map(|a| a.iter().map(|v| v.as_f64().unwrap_or(0.0)).collect())
            .unwrap_or_default();
        let react = history.get("thoughts").is_some();
        if task >= env.task_count() {
            return Err(Error::TaskIndex {
                index: task,
                len: env.task_count(),
            });
        }
        env.reset(task)?;
        report.episodes += 1;
        let (mut logged_best, mut our_best) = (f64::MIN, f64::MIN);
        for (turn, action) in actions.iter().enumerate() {
            report.turns += 1;
            let logged_obs = observations.get(turn);
            let logged_reward = rewards.get(turn).copied().unwrap_or(0.0);
            logged_best = logged_best.max(logged_reward);
            let Some(logged_obs) = logged_obs else {
                report.not_executed += 1;
                continue;
            };
            if action == "blocked" || RETRY_PREFIXES.iter().any(|p| logged_obs.starts_with(p)) {
                report.not_executed += 1;
                continue;
            }
            let (observation, reward) = if react {
                if action.trim() == "submit" {
                    // The observation of a submit is not compared (see `compare_obs`).
                    (String::new(), env.evaluate()?.reward)
                } else {
                    let (sql, _) = upstream_react_parser(action);
                    let s = env.step(&sql)?;
                    (s.observation, 0.0)
                }
            } else {
                let s = env.step(action)?;
                let r = env.evaluate()?;
                (s.observation, r.reward)
            };
            our_best = our_best.max(reward);
            let scored = !react || action.trim() == "submit";
            let compare_obs = !(react && action.trim() == "submit");
            if compare_obs {
                report.executed_turns += 1;
                if observation == *logged_obs {
                    report.observations_equal += 1;
                }
            }
            if !scored {
                continue;
            }
            report.scored_turns += 1;
            let agent_rows: Option<Vec<Vec<crate::reward::sql::PyValue>>> =
                env.last_result().map(|r| r.rows.clone());
            let parts = agent_rows
                .zip(env.gold_result(task).ok())
                .map(|(agent, gold)| score_parts(&agent, &gold.rows));
            if parts.is_some_and(|p| p.iou == logged_reward)
                || (parts.is_none() && reward == logged_reward)
            {
                report.iou_reproduced += 1;
            }
            if let Some(p) = parts
                && p.reward != p.iou
            {
                if logged_reward == p.reward {
                    report.tau_scaled_turns += 1;
                } else if logged_reward == p.iou {
                    report.plain_iou_turns += 1;
                }
            }
            if reward == logged_reward {
                report.reproduced += 1;
                continue;
            }
            let cause = if react {
                "react submit: reward of the last observation differs".to_string()
            } else if UPSTREAM_CORRUPT_GOLDS.contains(&task) {
                "the gold failed on MySQL 8 (upstream scored against [])".to_string()
            } else if parts.is_some_and(|p| p.iou == logged_reward) {
                "upstream's reward is the plain IoU here (tau not applied)".to_string()
            } else {
                cause_of(logged_obs, &observation)
            };
            crate::env::replay::record(
                &mut report.causes,
                cause,
                ReplayMismatch::clipped(
                    task,
                    turn,
                    action,
                    (logged_reward, reward),
                    (logged_obs, &observation),
                ),
            );
        }
        if logged_best == 1.0 {
            report.logged_successes += 1;
        }
        if our_best == 1.0 {
            report.replayed_successes += 1;
        }
    }
    Ok(report)
}

/// Why a turn's reward differs, from the two observations.
fn cause_of(logged: &str, ours: &str) -> String {
    match (is_error(logged), is_error(ours)) {
        (false, true) => {
            let msg = ours.trim_start_matches("Error executing query: ");
            let kind = if msg.starts_with("no such function") {
                "a MySQL-only function".to_string()
            } else if msg.contains("syntax error") {
                "MySQL-only syntax".to_string()
            } else if msg.starts_with("no such table") || msg.starts_with("no such column") {
                "a name MySQL resolved and SQLite does not".to_string()
            } else if msg.starts_with("interrupted") {
                "our time budget".to_string()
            } else {
                let head: String = msg
                    .split(':')
                    .next()
                    .unwrap_or(msg)
                    .chars()
                    .take(40)
                    .collect();
                format!("other SQLite error ({head})")
            };
            format!("fails on SQLite, ran on MySQL: {kind}")
        }
        (true, false) => "ran on SQLite, failed on MySQL (e.g. ONLY_FULL_GROUP_BY)".to_string(),
        (true, true) => "both failed, yet rewards differ".to_string(),
        (false, false) if logged == ours => {
            "same agent rows, different gold result (MySQL gold error, value types, data)"
                .to_string()
        }
        (false, false) => {
            "different agent rows (MySQL semantics: collation, division, value types, order, state)"
                .to_string()
        }
    }
}
