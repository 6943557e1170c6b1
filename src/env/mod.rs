//! The one contract every environment (bash, SQL, Python) follows, modelled on upstream
//! InterCode's gym API: `reset(index)` starts an episode, `step(action)` runs one action, and the
//! keywords `submit` / `skip` end it.
//!
//! Differences from upstream (deliberate): every episode gets fresh state (upstream's SQL env never
//! reset; its bash env only reset what git tracked), and a step after the end of an episode is an
//! error instead of silently running on stale state.

pub mod bash;
pub mod python;
pub mod shlex;
pub mod sql;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// What `reset` returns: the natural-language query the agent must solve.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Reset {
    pub index: usize,
    pub query: String,
}

/// What `step` returns, shaped like upstream's `(observation, reward, done, info)`.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Step {
    pub observation: String,
    pub reward: f64,
    pub done: bool,
    /// Always holds `action_executed`; after `submit` also the reward's parts (upstream's names).
    pub info: Map<String, Value>,
}

impl Step {
    /// Whether the action ran successfully (exit status 0 for bash, no error for SQL).
    pub fn action_executed(&self) -> bool {
        self.info
            .get("action_executed")
            .and_then(Value::as_bool)
            .unwrap_or(false)
    }
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

/// An interactive coding environment.
pub trait Env {
    /// Human name of the environment (`bash`, `sql`, `python`).
    fn name(&self) -> &'static str;
    /// Number of tasks in the loaded task set.
    fn task_count(&self) -> usize;
    /// Starts a fresh episode on task `index`.
    fn reset(&mut self, index: usize) -> crate::Result<Reset>;
    /// Runs one action, or ends the episode on `submit` / `skip`.
    fn step(&mut self, action: &str) -> crate::Result<Step>;
    /// The gold solution of the current task (for the gold agent and for logs).
    fn gold(&self) -> crate::Result<String>;
    /// Ends the episode and scores it (same as `step("submit")`).
    fn submit(&mut self) -> crate::Result<Step> {
        self.step("submit")
    }
    /// Whether `source` (the lines typed so far, joined with `\n`) forms a whole action, so an
    /// interactive front end knows when to stop reading lines. One line is one action in bash
    /// and SQL; the Python REPL asks its parser (`def f():` needs a body and a blank line).
    fn is_complete(&mut self, source: &str) -> crate::Result<bool> {
        let _ = source;
        Ok(true)
    }
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
}
