//! Our episode records in other tools' formats.
//!
//! * [`to_upstream`]: upstream InterCode's results-file layout (a JSON object keyed by task
//!   index, see `data::upstream_log`), so upstream's `analysis.ipynb` and anything else written
//!   for its logs read our runs unchanged.
//! * [`to_atif`] / [`atif_run`]: Harbor's Agent Trajectory Interchange Format, one trajectory
//!   per episode, for trajectory viewers and SFT/RL pipelines.
//!
//! ATIF field names follow Harbor's documentation of its `harbor.models.trajectories` models
//! (harbor-framework/harbor-docs, `content/docs/agents/trajectory-format.mdx` at commit
//! 888a7d3, which documents ATIF-v1.4) and, for later additions (`session_id` optional since
//! v1.7, `extra` on tool calls and observation results, `llm_call_count`), the field lists of
//! Harbor-derived implementations of v1.7/v1.8 (NVIDIA NeMo Agent Toolkit's `nat.atif`, NeMo
//! Relay's `AtifStep`). v1.8 added audio content parts, which we never emit. Rules we rely on:
//! step ids run 1, 2, ...; `source` is `user`, `agent` or `system`; `tool_calls`,
//! `reasoning_content` and `metrics` only on agent steps; an observation result's
//! `source_call_id` names a tool call of the same step; `extra` is the extension point at every
//! level.

use serde_json::{Map, Value, json};

use crate::data::trajectory::{EpisodeEnd, EpisodeRecord, TurnRecord, Usage};

/// The ATIF version [`to_atif`] writes.
pub const ATIF_SCHEMA_VERSION: &str = "ATIF-v1.8";

/// Our records as one upstream results file: `{"<task index>": {environment, dataset, task_id,
/// query, turn_history, summary, info[, hardness]}}`.
///
/// `env` is ours (`"bash"`) or upstream's (`"ic_bash"`); `dataset` is written as given (upstream
/// logged the task file's path); `max_turns` is the run's turn budget (`summary.turns_max`).
/// Episodes that ended in a harness error are left out: upstream's notebook would score them
/// as failures, and they are not the model's. A task recorded twice (a resumed run) keeps its
/// last record, as upstream's dict would.
pub fn to_upstream(records: &[EpisodeRecord], env: &str, dataset: &str, max_turns: usize) -> Value {
    let environment = upstream_env_name(env);
    let mut out = Map::new();
    for record in records.iter().filter(|r| r.end != EpisodeEnd::HarnessError) {
        out.insert(
            record.task_index.to_string(),
            upstream_episode(record, &environment, dataset, max_turns),
        );
    }
    Value::Object(out)
}

/// `"bash"` → `"ic_bash"`; upstream names pass through.
fn upstream_env_name(env: &str) -> String {
    if env.starts_with("ic_") {
        env.to_string()
    } else {
        format!("ic_{env}")
    }
}

fn upstream_episode(
    record: &EpisodeRecord,
    environment: &str,
    dataset: &str,
    max_turns: usize,
) -> Value {
    let rewards = upstream_rewards(record);
    // Upstream's summary: the best turn and its index (-1 when there were no turns). Its
    // notebook counts `max_reward == 1` as success.
    let (max_reward, max_reward_idx) = match best(&rewards) {
        Some((reward, idx)) => (reward, idx as i64),
        None => (record.reward, -1),
    };
    let mut history = Map::new();
    history.insert("actions".into(), strings(record, |t| &t.action));
    history.insert("observations".into(), strings(record, |t| &t.observation));
    history.insert("rewards".into(), json!(rewards));
    let valid: Vec<bool> = record.actions.iter().map(|t| t.action_executed).collect();
    history.insert("valid_action".into(), json!(valid));
    // Upstream's ReAct logs carry `thoughts`; write them whenever a turn has one.
    if record.actions.iter().any(|t| t.thought.is_some()) {
        history.insert(
            "thoughts".into(),
            strings(record, |t| t.thought.as_deref().unwrap_or_default()),
        );
    }
    let mut episode = json!({
        "environment": environment,
        "dataset": dataset,
        "task_id": record.task_index,
        "query": record.query,
        "turn_history": history,
        "summary": {
            "max_reward": max_reward,
            "max_reward_idx": max_reward_idx,
            "turns_taken": record.actions.len(),
            "turns_max": max_turns,
        },
        "info": record.info,
    });
    // SQL logs carry Spider's hardness, which our records keep as the category.
    if environment == "ic_sql"
        && let Some(hardness) = &record.category
    {
        episode["hardness"] = json!(hardness);
    }
    episode
}

fn strings(record: &EpisodeRecord, field: impl Fn(&TurnRecord) -> &str) -> Value {
    record.actions.iter().map(|t| json!(field(t))).collect()
}

/// One reward per turn: the turn's own reward when the strategy evaluated after it (Try
/// Again does after every action). Otherwise 0 for every turn but the last, which gets the
/// episode's final reward: that is what upstream's ReAct harness logged (rewards only on
/// `submit`), and it keeps `max(rewards)` equal to what the episode scored.
fn upstream_rewards(record: &EpisodeRecord) -> Vec<f64> {
    let last = record.actions.len().saturating_sub(1);
    record
        .actions
        .iter()
        .enumerate()
        .map(|(i, t)| match t.reward {
            Some(r) => r,
            None if i == last => record.reward,
            None => 0.0,
        })
        .collect()
}

/// The largest reward and the first index holding it.
fn best(rewards: &[f64]) -> Option<(f64, usize)> {
    rewards
        .iter()
        .enumerate()
        .fold(None, |acc, (i, &r)| match acc {
            Some((b, _)) if r <= b => acc,
            _ => Some((r, i)),
        })
}

/// One ATIF trajectory per record, in order.
pub fn atif_run(
    records: &[EpisodeRecord],
    agent_name: &str,
    agent_version: &str,
    model: Option<&str>,
) -> Vec<Value> {
    records
        .iter()
        .map(|r| to_atif(r, agent_name, agent_version, model))
        .collect()
}

/// One episode as an ATIF trajectory.
///
/// Step 1 is the user's query. Each turn is an agent step with one tool call: `execute`
/// `{"command": action}` (or `submit` / `skip` when that was the action), the model's reply
/// as the message, its thought as `reasoning_content`, the env's output as the observation
/// and the turn's tokens as metrics. If no turn was the submit, a last step records how the
/// episode ended: the agent's `submit` or `skip`, or a system step for the turn limit or a
/// harness error. Rewards, exit statuses and timings go in `extra`. Records keep no wall-clock
/// times, so steps have no `timestamp` (it is optional).
pub fn to_atif(
    record: &EpisodeRecord,
    agent_name: &str,
    agent_version: &str,
    model: Option<&str>,
) -> Value {
    let mut steps = vec![json!({
        "step_id": 1,
        "source": "user",
        "message": record.query,
    })];
    for (i, turn) in record.actions.iter().enumerate() {
        steps.push(turn_step(steps.len() + 1, i + 1, turn));
    }
    match record.actions.last() {
        Some(turn) if Tool::of(&turn.action) != Tool::Execute => {
            let last = steps.last_mut().expect("a turn step was pushed");
            extend_extra(last, "final_reward", json!(record.reward));
        }
        _ => steps.extend(end_step(steps.len() + 1, record)),
    }
    let mut agent = json!({ "name": agent_name, "version": agent_version });
    if let Some(model) = model {
        agent["model_name"] = json!(model);
    }
    json!({
        "schema_version": ATIF_SCHEMA_VERSION,
        // Deterministic, so exporting a run twice gives the same files.
        "session_id": format!(
            "intercode-{}-task-{}-{agent_name}",
            record.env, record.task_index
        ),
        "agent": agent,
        "final_metrics": final_metrics(record, steps.len()),
        "steps": steps,
        "extra": trajectory_extra(record),
    })
}

/// What a turn's action was, as an ATIF tool.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Tool {
    Execute,
    Submit,
    Skip,
}

impl Tool {
    fn of(action: &str) -> Tool {
        match action.trim() {
            "submit" => Tool::Submit,
            "skip" => Tool::Skip,
            _ => Tool::Execute,
        }
    }

    fn name(self) -> &'static str {
        match self {
            Tool::Execute => "execute",
            Tool::Submit => "submit",
            Tool::Skip => "skip",
        }
    }

    fn arguments(self, action: &str) -> Value {
        match self {
            Tool::Execute => json!({ "command": action }),
            Tool::Submit | Tool::Skip => json!({}),
        }
    }
}

fn call_id(n: usize) -> String {
    format!("call_{n}")
}

/// Turn `n` (1-based) as agent step `step_id`.
fn turn_step(step_id: usize, n: usize, turn: &TurnRecord) -> Value {
    let tool = Tool::of(&turn.action);
    let mut step = json!({
        "step_id": step_id,
        "source": "agent",
        "message": turn.response.as_deref().unwrap_or_default(),
        "tool_calls": [{
            "tool_call_id": call_id(n),
            "function_name": tool.name(),
            "arguments": tool.arguments(&turn.action),
        }],
        "observation": { "results": [{
            "source_call_id": call_id(n),
            "content": turn.observation,
        }]},
    });
    if let Some(thought) = &turn.thought {
        step["reasoning_content"] = json!(thought);
    }
    if let Some(metrics) = step_metrics(turn.usage) {
        step["metrics"] = metrics;
    }
    let mut extra = Map::new();
    extra.insert("action_executed".into(), json!(turn.action_executed));
    if let Some(status) = turn.exit_status {
        extra.insert("exit_status".into(), json!(status));
    }
    if let Some(reward) = turn.reward {
        extra.insert("reward".into(), json!(reward));
    }
    if let Some(ms) = turn.wall_ms {
        extra.insert("wall_ms".into(), json!(ms));
    }
    step["extra"] = Value::Object(extra);
    step
}

fn step_metrics(usage: Usage) -> Option<Value> {
    if usage.is_empty() {
        return None;
    }
    let mut metrics = json!({
        "prompt_tokens": usage.prompt_tokens,
        "completion_tokens": usage.completion_tokens,
    });
    if usage.requests > 0 {
        // HTTP requests, retries included: not ATIF's `llm_call_count` (completed calls).
        metrics["extra"] = json!({ "requests": usage.requests });
    }
    Some(metrics)
}

/// The step that records how an episode whose last turn was not a submit ended.
fn end_step(step_id: usize, record: &EpisodeRecord) -> Option<Value> {
    let reward = format!("reward: {}", record.reward);
    let agent_call = |tool: Tool| {
        let id = call_id(record.actions.len() + 1);
        json!({
            "step_id": step_id,
            "source": "agent",
            "message": "",
            "tool_calls": [{
                "tool_call_id": id,
                "function_name": tool.name(),
                "arguments": {},
            }],
            "observation": { "results": [{ "source_call_id": id, "content": reward }] },
            "extra": { "final_reward": record.reward },
        })
    };
    Some(match record.end {
        EpisodeEnd::Submitted => agent_call(Tool::Submit),
        EpisodeEnd::Skipped => agent_call(Tool::Skip),
        // The harness, not the agent, acted: a system step, which may carry an observation
        // (ATIF v1.2+) but no tool call.
        EpisodeEnd::TurnLimit => json!({
            "step_id": step_id,
            "source": "system",
            "message": "Turn limit reached: the harness submitted.",
            "observation": { "results": [{ "content": reward }] },
            "extra": { "final_reward": record.reward },
        }),
        EpisodeEnd::HarnessError => json!({
            "step_id": step_id,
            "source": "system",
            "message": format!(
                "Harness error: {}",
                record.error.as_deref().unwrap_or("unknown")
            ),
        }),
    })
}

fn extend_extra(step: &mut Value, key: &str, value: Value) {
    if !step["extra"].is_object() {
        step["extra"] = json!({});
    }
    step["extra"][key] = value;
}

/// Token totals: the record's own when it has them, else the sum over its turns.
fn final_metrics(record: &EpisodeRecord, total_steps: usize) -> Value {
    let usage = if record.usage.is_empty() {
        record.actions.iter().fold(Usage::default(), |mut sum, t| {
            sum.add(t.usage);
            sum
        })
    } else {
        record.usage
    };
    let mut metrics = json!({
        "total_prompt_tokens": usage.prompt_tokens,
        "total_completion_tokens": usage.completion_tokens,
        "total_steps": total_steps,
    });
    if usage.requests > 0 {
        metrics["extra"] = json!({ "requests": usage.requests });
    }
    metrics
}

/// InterCode's outcome of the episode: ATIF has no reward field, so it goes in `extra`.
fn trajectory_extra(record: &EpisodeRecord) -> Value {
    let mut extra = json!({
        "benchmark": "intercode",
        "env": record.env,
        "task_index": record.task_index,
        "gold": record.gold,
        "reward": record.reward,
        "solved": record.solved(),
        "end": record.end,
        "wall_ms": record.wall_ms,
        "info": record.info,
    });
    if let Some(category) = &record.category {
        extra["category"] = json!(category);
    }
    if let Some(error) = &record.error {
        extra["error"] = json!(error);
    }
    if !record.destructive.is_empty() {
        extra["destructive"] = json!(record.destructive);
    }
    extra
}

#[cfg(test)]
mod tests {
    use std::collections::HashSet;
    use std::path::Path;

    use super::*;
    use crate::data::upstream_log::{self, LogEnv, LogStrategy};

    fn turn(action: &str, observation: &str, reward: Option<f64>) -> TurnRecord {
        let mut t = TurnRecord::new(action, observation, Some(0));
        t.reward = reward;
        t
    }

    /// Built through serde so fields added to the record later (all defaulted) don't break it.
    fn record(env: &str, task: usize, actions: Vec<TurnRecord>, reward: f64) -> EpisodeRecord {
        serde_json::from_value(json!({
            "env": env,
            "task_index": task,
            "query": format!("task {task}: \"quoted\"\nand a newline"),
            "gold": "ls",
            "actions": actions,
            "reward": reward,
        }))
        .unwrap()
    }

    fn round_trip(value: &Value, name: &str) -> upstream_log::UpstreamLog {
        let text = serde_json::to_string_pretty(value).unwrap();
        upstream_log::parse(Path::new(name), &text).unwrap()
    }

    #[test]
    fn upstream_export_reads_back() {
        let mut failing = turn("false", "", None);
        failing.action_executed = false;
        failing.exit_status = Some(1);
        let scored = record(
            "bash",
            12,
            vec![
                turn("ls /", "bin\netc\n", Some(0.25)),
                failing,
                turn("cat a | wc -l", "3\n", Some(1.0)),
            ],
            1.0,
        );
        let unscored = record(
            "bash",
            2,
            vec![turn("ls", "a", None), turn("pwd", "/", None)],
            0.5,
        );
        let mut broken = record("bash", 5, vec![], 0.0);
        broken.end = EpisodeEnd::HarnessError;
        let value = to_upstream(
            &[scored.clone(), unscored, broken],
            "bash",
            "./data/nl2bash/nl2bash_fs_3.json",
            10,
        );
        assert_eq!(value["12"]["environment"], "ic_bash");
        assert_eq!(value["12"]["summary"]["max_reward_idx"], 2);
        assert_eq!(value["12"]["summary"]["turns_max"], 10);
        let log = round_trip(&value, "ours.json");
        assert_eq!(log.env, LogEnv::Bash);
        assert_eq!(log.strategy, LogStrategy::TryAgain);
        assert_eq!(log.fs_number(), Some(3));
        // The harness error is left out; episodes come back in task order.
        let tasks: Vec<usize> = log.episodes.iter().map(|e| e.task_index).collect();
        assert_eq!(tasks, [2, 12]);
        let back = &log.episodes[1];
        assert_eq!(back.query, scored.query);
        let actions: Vec<&str> = scored.actions.iter().map(|t| t.action.as_str()).collect();
        let observations: Vec<&str> = scored
            .actions
            .iter()
            .map(|t| t.observation.as_str())
            .collect();
        assert_eq!(back.actions, actions);
        assert_eq!(back.observations, observations);
        assert_eq!(back.rewards, [Some(0.25), Some(0.0), Some(1.0)]);
        assert_eq!(back.valid_action, [Some(true), Some(false), Some(true)]);
        assert_eq!((back.max_reward, back.turns_taken), (Some(1.0), Some(3)));
        // No per-turn rewards: 0 until the last turn, which carries the final reward.
        let first = &log.episodes[0];
        assert_eq!(first.rewards, [Some(0.0), Some(0.5)]);
        assert_eq!(first.max_reward, Some(0.5));
    }

    #[test]
    fn upstream_export_keeps_thoughts_and_sql_hardness() {
        let mut thinking = turn("execute[SELECT 1]", "[(1,)]", None);
        thinking.thought = Some("count first".into());
        let mut sql = record(
            "sql",
            0,
            vec![thinking, turn("submit", "[(1,)]", None)],
            1.0,
        );
        sql.category = Some("easy".into());
        let value = to_upstream(&[sql], "ic_sql", "./data/spider/dev_spider.json", 10);
        let log = round_trip(&value, "react.json");
        assert_eq!((log.env, log.strategy), (LogEnv::Sql, LogStrategy::React));
        let e = &log.episodes[0];
        assert_eq!(e.thoughts, ["count first", ""]);
        assert_eq!(e.hardness.as_deref(), Some("easy"));
        assert_eq!(e.rewards, [Some(0.0), Some(1.0)]);

        let empty = record("python", 3, vec![], 0.0);
        let value = to_upstream(&[empty], "python", "mbpp", 7);
        assert_eq!(value["3"]["summary"]["max_reward_idx"], -1);
        assert!(value["3"].get("hardness").is_none());
        assert!(value["3"]["turn_history"].get("thoughts").is_none());
        assert_eq!(round_trip(&value, "p.json").episodes[0].actions.len(), 0);
    }

    /// The ATIF rules [`to_atif`] promises: required fields, step ids 1.., sources, agent-only
    /// fields only on agent steps, observations naming a tool call of their step.
    fn check_atif(t: &Value) {
        assert_eq!(t["schema_version"], ATIF_SCHEMA_VERSION);
        assert!(t["session_id"].is_string());
        assert!(t["agent"]["name"].is_string() && t["agent"]["version"].is_string());
        let steps = t["steps"].as_array().unwrap();
        assert_eq!(t["final_metrics"]["total_steps"], steps.len());
        let mut all_ids = HashSet::new();
        for (i, step) in steps.iter().enumerate() {
            assert_eq!(step["step_id"], i + 1);
            assert!(step["message"].is_string());
            let source = step["source"].as_str().unwrap();
            assert!(["user", "agent", "system"].contains(&source));
            if source != "agent" {
                for field in ["tool_calls", "reasoning_content", "metrics", "model_name"] {
                    assert!(step.get(field).is_none(), "{field} on a {source} step");
                }
            }
            let calls: HashSet<&str> = step["tool_calls"]
                .as_array()
                .map(|calls| {
                    calls
                        .iter()
                        .map(|c| {
                            assert!(c["function_name"].is_string());
                            assert!(c["arguments"].is_object());
                            c["tool_call_id"].as_str().unwrap()
                        })
                        .collect()
                })
                .unwrap_or_default();
            for id in &calls {
                assert!(all_ids.insert(id.to_string()), "duplicate call id {id}");
            }
            if let Some(results) = step["observation"]["results"].as_array() {
                for r in results {
                    if let Some(id) = r["source_call_id"].as_str() {
                        assert!(calls.contains(id), "{id} is no call of step {}", i + 1);
                    } else {
                        assert_eq!(source, "system");
                    }
                }
            }
        }
    }

    #[test]
    fn atif_has_the_required_shape() {
        let mut first = turn("ls /", "bin\n", Some(0.5));
        first.thought = Some("look around".into());
        first.response = Some("```bash\nls /\n```".into());
        first.usage = Usage {
            prompt_tokens: 100,
            completion_tokens: 10,
            requests: 2,
        };
        let mut submitted = record("bash", 4, vec![first, turn("ls /bin", "sh\n", None)], 1.0);
        submitted.usage = Usage {
            prompt_tokens: 300,
            completion_tokens: 30,
            requests: 3,
        };
        let t = to_atif(&submitted, "try-again", "0.1.0", Some("gpt-4"));
        check_atif(&t);
        assert_eq!(t["agent"]["model_name"], "gpt-4");
        let steps = t["steps"].as_array().unwrap();
        // User query, two turns, the submit.
        assert_eq!(steps.len(), 4);
        assert_eq!(steps[0]["source"], "user");
        assert_eq!(steps[0]["message"], submitted.query);
        let call = &steps[1]["tool_calls"][0];
        assert_eq!(call["function_name"], "execute");
        assert_eq!(call["arguments"]["command"], "ls /");
        assert_eq!(steps[1]["reasoning_content"], "look around");
        assert_eq!(steps[1]["message"], "```bash\nls /\n```");
        assert_eq!(steps[1]["metrics"]["prompt_tokens"], 100);
        assert_eq!(steps[1]["extra"]["reward"], 0.5);
        assert_eq!(steps[1]["observation"]["results"][0]["content"], "bin\n");
        assert_eq!(steps[3]["tool_calls"][0]["function_name"], "submit");
        assert_eq!(steps[3]["extra"]["final_reward"], 1.0);
        assert_eq!(t["final_metrics"]["total_prompt_tokens"], 300);
        assert_eq!(t["extra"]["reward"], 1.0);
        assert_eq!(t["extra"]["end"], "submitted");

        // A submit the agent took as a turn is not repeated.
        let react = record("sql", 1, vec![turn("submit", "[]", None)], 0.0);
        let t = to_atif(&react, "react", "0.1.0", None);
        check_atif(&t);
        assert!(t["agent"].get("model_name").is_none());
        assert_eq!(t["steps"].as_array().unwrap().len(), 2);
        assert_eq!(t["steps"][1]["extra"]["final_reward"], 0.0);

        let mut limited = record("bash", 2, vec![turn("ls", "a", Some(0.0))], 0.0);
        limited.end = EpisodeEnd::TurnLimit;
        let mut broken = record("bash", 3, vec![], 0.0);
        broken.end = EpisodeEnd::HarnessError;
        broken.error = Some("sandbox fault".into());
        let mut skipped = record("bash", 5, vec![], 0.0);
        skipped.end = EpisodeEnd::Skipped;
        let run = atif_run(&[limited, broken, skipped], "a", "1", None);
        assert_eq!(run.len(), 3);
        run.iter().for_each(check_atif);
        assert_eq!(run[0]["steps"][2]["source"], "system");
        assert_eq!(
            run[1]["steps"][1]["message"],
            "Harness error: sandbox fault"
        );
        assert_eq!(run[1]["extra"]["error"], "sandbox fault");
        assert_eq!(run[2]["steps"][1]["tool_calls"][0]["function_name"], "skip");
        // Token totals fall back to the turns' sum.
        assert_eq!(run[0]["final_metrics"]["total_prompt_tokens"], 0);
    }
}
