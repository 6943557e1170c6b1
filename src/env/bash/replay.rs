//! Replays an upstream InterCode-Bash log turn by turn and compares each logged reward with ours.
//!
//! Upstream's harnesses scored as they went: Try Again and Plan & Solve ran each action and then
//! `submit` (which scores without ending anything in upstream's bash env), so every executed
//! turn carries a reward; ReAct scored only its `submit` turns, its other actions being
//! `execute[…]` wrappers. Turns upstream never executed (`blocked`, no logged observation) are
//! skipped. The env should be built with upstream's quirks (`EnvSpec::upstream_quoting` and
//! `upstream_reset`): its quoting and `cd`, and one tree for the whole log where only what git
//! tracks is put back between tasks (UPSTREAM-BEHAVIOUR.md §2.2), so what earlier tasks left
//! outside git's reach is there for later ones as it was upstream. Every turn whose reward differs is attributed to a cause
//! read off the action and the two observations; the causes are heuristics for a reader, not
//! proofs.

use crate::data::upstream_log::{LogStrategy, UpstreamLog};
use crate::env::Env;
use crate::env::replay::{Causes, ReplayMismatch, record};
use crate::{Error, Result};
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;

/// What replaying one log found.
#[derive(Debug, Clone, Default, Serialize)]
pub struct BashReplayReport {
    pub file: PathBuf,
    pub episodes: usize,
    pub turns: usize,
    /// Turns upstream never executed: skipped.
    pub not_executed: usize,
    /// Turns whose reward was compared.
    pub scored_turns: usize,
    /// Of those, turns whose reward we reproduced exactly.
    pub reproduced: usize,
    /// Executed turns whose observation was compared, and those equal to upstream's byte for byte.
    pub executed_turns: usize,
    pub observations_equal: usize,
    pub causes: Causes,
    /// Every turn whose reward differed, texts whole (`intercode replay --mismatches`).
    #[serde(skip)]
    pub mismatches: Vec<TurnMismatch>,
}

/// One turn whose reward differed, with its cause and the two golds' outputs.
#[derive(Debug, Clone, Serialize)]
pub struct TurnMismatch {
    /// The log the turn comes from.
    pub log: PathBuf,
    pub cause: String,
    #[serde(flatten)]
    pub turn: ReplayMismatch,
    /// What our gold printed for the task.
    pub gold_output: Option<String>,
    /// What upstream's gold printed, as the logs recorded it.
    pub logged_gold_outputs: Vec<String>,
}

impl BashReplayReport {
    /// Share of compared turns whose reward was reproduced (1.0 when none were compared).
    pub fn share(&self) -> f64 {
        if self.scored_turns == 0 {
            1.0
        } else {
            self.reproduced as f64 / self.scored_turns as f64
        }
    }

    /// Adds another report's counts (the file stays this one's).
    pub fn add(&mut self, other: BashReplayReport) {
        self.episodes += other.episodes;
        self.turns += other.turns;
        self.not_executed += other.not_executed;
        self.scored_turns += other.scored_turns;
        self.reproduced += other.reproduced;
        self.executed_turns += other.executed_turns;
        self.observations_equal += other.observations_equal;
        crate::env::replay::merge(&mut self.causes, other.causes);
        self.mismatches.extend(other.mismatches);
    }
}

/// What one logged turn asks the env to do.
#[derive(Debug, PartialEq, Eq)]
enum Turn<'a> {
    /// Upstream did not execute it.
    Skipped,
    /// Run the command; scored when upstream scored every turn.
    Run(&'a str),
    /// Score the episode as it stands (a ReAct `submit`).
    Submit,
    /// The episode ended here.
    End,
}

fn turn_of<'a>(action: &'a str, logged_observation: Option<&str>, react: bool) -> Turn<'a> {
    let trimmed = action.trim();
    if trimmed == "skip" {
        return Turn::End;
    }
    if trimmed.starts_with("submit") {
        return if react { Turn::Submit } else { Turn::End };
    }
    if trimmed == "blocked" || logged_observation.is_none() {
        return Turn::Skipped;
    }
    if react {
        // ReAct's parser ran what is between `execute[` and the last `]`.
        return match trimmed
            .strip_prefix("execute[")
            .and_then(|rest| rest.rsplit_once(']'))
        {
            Some((command, _)) => Turn::Run(command),
            None => Turn::Skipped,
        };
    }
    Turn::Run(action)
}

/// Rewards are sums of two-decimal parts; equal up to float noise is equal.
fn same_reward(a: f64, b: f64) -> bool {
    (a - b).abs() < 1e-9
}

/// What the gold printed on upstream's machine, per task: every distinct `info.eval_obs` the
/// logs of one file system recorded (only some logs kept `info`; the gold's output is the same
/// for every episode of a task but for time, host facts and logging artefacts).
pub type LoggedGoldOutputs = BTreeMap<usize, BTreeSet<String>>;

/// The gold outputs `logs` recorded, by task. The logs must be of one file system.
pub fn logged_gold_outputs<'a>(
    logs: impl IntoIterator<Item = &'a UpstreamLog>,
) -> LoggedGoldOutputs {
    let mut outputs = LoggedGoldOutputs::new();
    for log in logs {
        for episode in &log.episodes {
            if let Some(obs) = &episode.eval_obs {
                outputs
                    .entry(episode.task_index)
                    .or_default()
                    .insert(obs.clone());
            }
        }
    }
    outputs
}

/// Replays `log` on `env`, which must hold the log's task set (its `fs_N`). `gold_outputs`
/// (see [`logged_gold_outputs`]) tells apart, among turns that printed what upstream logged
/// but scored differently, those where our gold printed something else.
pub fn replay_log(
    env: &mut dyn Env,
    log: &UpstreamLog,
    gold_outputs: &LoggedGoldOutputs,
) -> Result<BashReplayReport> {
    let react = log.strategy == LogStrategy::React;
    let mut report = BashReplayReport {
        file: log.path.clone(),
        ..BashReplayReport::default()
    };
    for episode in &log.episodes {
        let task = episode.task_index;
        if task >= env.task_count() {
            return Err(Error::TaskIndex {
                index: task,
                len: env.task_count(),
            });
        }
        env.reset(task)?;
        report.episodes += 1;
        let mut last_observation = String::new();
        let mut last_command = "";
        for (turn, action) in episode.actions.iter().enumerate() {
            report.turns += 1;
            let logged_observation = episode.observations.get(turn).map(String::as_str);
            let logged_reward = episode.rewards.get(turn).copied().flatten();
            let (command, observation, evaluation) =
                match turn_of(action, logged_observation, react) {
                    Turn::End => break,
                    Turn::Skipped => {
                        report.not_executed += 1;
                        continue;
                    }
                    Turn::Run(command) => {
                        let step = env.step(command)?;
                        report.executed_turns += 1;
                        if Some(step.observation.as_str()) == logged_observation {
                            report.observations_equal += 1;
                        }
                        last_observation.clone_from(&step.observation);
                        last_command = command;
                        if react {
                            continue;
                        }
                        (command, step.observation, env.evaluate()?)
                    }
                    // What a ReAct submit is scored on: the last command's output.
                    Turn::Submit => (last_command, last_observation.clone(), env.evaluate()?),
                };
            let reward = evaluation.reward;
            let Some(logged_reward) = logged_reward else {
                continue;
            };
            report.scored_turns += 1;
            if same_reward(reward, logged_reward) {
                report.reproduced += 1;
                continue;
            }
            let logged_observation = logged_observation.unwrap_or_default();
            let our_gold = evaluation.info.get("eval_obs").and_then(|v| v.as_str());
            let gold = match (gold_outputs.get(&task), our_gold) {
                (Some(logged), Some(ours)) => Some(logged.contains(ours)),
                _ => None,
            };
            let cause = cause_of(command, logged_observation, &observation, gold);
            let mismatch = ReplayMismatch::new(
                task,
                turn,
                action,
                (logged_reward, reward),
                (logged_observation, &observation),
            );
            record(&mut report.causes, cause.clone(), mismatch.clip());
            report.mismatches.push(TurnMismatch {
                log: log.path.clone(),
                cause,
                turn: mismatch,
                gold_output: our_gold.map(String::from),
                logged_gold_outputs: gold_outputs
                    .get(&task)
                    .map(|o| o.iter().cloned().collect())
                    .unwrap_or_default(),
            });
        }
    }
    Ok(report)
}

/// Commands whose output depends on the clock or on file times, and option words that do.
const TIME_COMMANDS: &[&str] = &[
    "date", "stat", "tar", "zip", "gzip", "touch", "cal", "uptime",
];
const TIME_WORDS: &[&str] = &[
    "-mtime", "-mmin", "-atime", "-amin", "-ctime", "-cmin", "-newer", "%T", "%t", "%y",
];
/// Commands that reach the network, which upstream's container had and ours has not.
const NETWORK_COMMANDS: &[&str] = &[
    "curl", "wget", "ping", "dig", "host", "nslookup", "ssh", "apt", "apt-get", "pip", "git",
];
/// Commands and paths that show facts of upstream's machine (kernel, processes, disks, users).
const HOST_COMMANDS: &[&str] = &[
    "uname", "hostname", "df", "free", "ps", "pgrep", "top", "who", "w", "nproc", "lscpu", "du",
    "id", "env", "printenv", "history",
];
const HOST_WORDS: &[&str] = &["/proc", "$HOSTNAME"];

/// Why a turn's reward differs, read off the action, the two observations and whether our
/// gold printed one of the outputs upstream logged for it (`None`: unknown).
fn cause_of(action: &str, logged: &str, ours: &str, same_gold: Option<bool>) -> String {
    let words: Vec<&str> = action
        .split(|c: char| c.is_whitespace() || "|;&()`".contains(c))
        .filter(|w| !w.is_empty())
        .collect();
    let runs = |commands: &[&str]| words.iter().any(|w| commands.contains(w));
    let mentions = |parts: &[&str]| parts.iter().any(|p| action.contains(p));
    let long_listing = words
        .windows(2)
        .any(|w| w[0] == "ls" && w[1].starts_with('-') && w[1].contains('l'));
    if logged == ours {
        return match same_gold {
            Some(false) => "same output; the gold printed something else upstream (its \
                            clock, host facts, logging artefacts)"
                .into(),
            Some(true) => "same output and gold output; the files differ (state upstream \
                           kept between tasks, or our file operations)"
                .into(),
            None => "same output, different files or gold result (no gold output logged for \
                     the task)"
                .into(),
        };
    }
    if logged == "Malformed command" && !ours.contains("Malformed command") {
        // Upstream's harness printed this for any exception around the command (an odd number
        // of quotes for shlex, or the docker call failing), not bash.
        return "upstream harness artefact (\"Malformed command\")".into();
    }
    if logged.contains("No such file or directory") && !ours.contains("No such file or directory") {
        // A path of the task's tree that upstream's container no longer had: an earlier task
        // removed it, or broke the container (UPSTREAM-BEHAVIOUR.md §2.2).
        return "upstream's tree lacked a path a fresh tree has (state kept between tasks)".into();
    }
    if logged.contains("Command timed out") || ours.contains("Command timed out") {
        return "one side timed out".into();
    }
    if runs(NETWORK_COMMANDS) {
        return "network (upstream's container was online)".into();
    }
    if runs(TIME_COMMANDS) || mentions(TIME_WORDS) || long_listing {
        return "time (the clock, file times, archive timestamps)".into();
    }
    if runs(HOST_COMMANDS) || mentions(HOST_WORDS) {
        return "facts of upstream's machine (kernel, processes, disks, users)".into();
    }
    let command: String = words.first().unwrap_or(&"").chars().take(24).collect();
    format!("different output: {command}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn turns_follow_the_harness_that_logged_them() {
        assert_eq!(turn_of("ls /", Some(""), false), Turn::Run("ls /"));
        assert_eq!(turn_of("blocked", None, false), Turn::Skipped);
        assert_eq!(turn_of("ls /", None, false), Turn::Skipped);
        assert_eq!(turn_of("skip", Some(""), false), Turn::End);
        assert_eq!(turn_of("submit", Some(""), false), Turn::End);
        assert_eq!(
            turn_of("execute[find / -name 'a]b']", Some(""), true),
            Turn::Run("find / -name 'a]b'")
        );
        assert_eq!(turn_of("ls /", Some(""), true), Turn::Skipped);
        assert_eq!(turn_of("submit", Some("x"), true), Turn::Submit);
    }

    #[test]
    fn causes_name_what_differs() {
        assert!(cause_of("ls", "a\n", "a\n", None).starts_with("same output"));
        assert!(cause_of("ls", "a\n", "a\n", Some(false)).contains("gold printed something"));
        assert!(cause_of("ls", "a\n", "a\n", Some(true)).contains("the files differ"));
        assert!(
            cause_of("bind -p", "Malformed command", "x", None).starts_with("upstream harness")
        );
        assert!(cause_of("date", "Mon\n", "Tue\n", None).starts_with("time"));
        assert!(
            cause_of(
                "ls /system",
                "ls: cannot access '/system': No such file or directory\n",
                "a\n",
                None
            )
            .starts_with("upstream's tree lacked")
        );
        assert!(cause_of("curl example.com", "<html>", "curl: (6)", None).starts_with("network"));
        assert!(cause_of("uname -a", "Linux x", "Linux y", None).starts_with("facts"));
        assert!(cause_of("ls -la /testbed", "a", "b", None).starts_with("time"));
        assert_eq!(
            cause_of("grep -r x /", "a", "b", None),
            "different output: grep"
        );
        // Names inside other words are not those commands.
        assert_eq!(
            cause_of("cat grid.pdf", "a", "b", None),
            "different output: cat"
        );
    }
}
