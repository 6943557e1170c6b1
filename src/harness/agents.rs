//! The agents that need no model: `gold` (the task's own solution: checks that a benchmark's
//! tasks are sound) and `replay` (actions recorded earlier — an upstream log or one of our runs
//! — played again turn by turn, so rewards can be compared).

use super::policy::{Action, Decision, Observation, Policy, PolicyError, TaskView};
use crate::env::{Env, Keyword};
use std::collections::{HashMap, VecDeque};
use std::sync::Arc;

/// Makes one policy per worker; every worker's policy plays many episodes.
pub trait AgentFactory: Sync {
    fn policy(&self) -> Result<Box<dyn Policy>, PolicyError>;
}

/// The gold agent: runs the task's gold as its one action, then submits. The only agent that
/// is built from the golds.
#[derive(Clone)]
pub struct GoldAgent {
    golds: Arc<Vec<String>>,
}

impl GoldAgent {
    /// Reads every task's gold from `env`.
    pub fn from_env(env: &dyn Env) -> crate::Result<GoldAgent> {
        let golds = (0..env.task_count())
            .map(|i| env.task(i).map(|t| t.gold))
            .collect::<crate::Result<Vec<_>>>()?;
        Ok(GoldAgent {
            golds: Arc::new(golds),
        })
    }
}

impl AgentFactory for GoldAgent {
    fn policy(&self) -> Result<Box<dyn Policy>, PolicyError> {
        Ok(Box::new(GoldPolicy {
            golds: Arc::clone(&self.golds),
            pending: None,
        }))
    }
}

struct GoldPolicy {
    golds: Arc<Vec<String>>,
    pending: Option<String>,
}

impl Policy for GoldPolicy {
    fn reset(&mut self, task: &TaskView) -> Result<(), PolicyError> {
        let gold = self
            .golds
            .get(task.index)
            .ok_or_else(|| PolicyError::Other(format!("no gold for task {}", task.index)))?;
        self.pending = Some(gold.clone());
        Ok(())
    }

    fn act(&mut self, _observation: &Observation) -> Result<Decision, PolicyError> {
        Ok(Decision::new(match self.pending.take() {
            Some(gold) => Action::Run(gold),
            None => Action::Submit(None),
        }))
    }
}

/// The actions of recorded episodes, by task index.
#[derive(Debug, Clone, Default)]
pub struct ReplayAgent {
    episodes: Arc<HashMap<usize, Vec<String>>>,
    score_every_turn: bool,
}

impl ReplayAgent {
    /// `episodes`: task index → actions in order (keywords included: a recorded `submit` or
    /// `skip` ends the episode there). `score_every_turn` evaluates after every action, as
    /// upstream's try-again harness did, so per-turn rewards can be compared with a log.
    pub fn new(episodes: HashMap<usize, Vec<String>>, score_every_turn: bool) -> ReplayAgent {
        ReplayAgent {
            episodes: Arc::new(episodes),
            score_every_turn,
        }
    }

    /// The task indices that have recorded actions, in order.
    pub fn indices(&self) -> Vec<usize> {
        let mut v: Vec<usize> = self.episodes.keys().copied().collect();
        v.sort_unstable();
        v
    }
}

impl AgentFactory for ReplayAgent {
    fn policy(&self) -> Result<Box<dyn Policy>, PolicyError> {
        Ok(Box::new(ReplayPolicy {
            episodes: Arc::clone(&self.episodes),
            pending: VecDeque::new(),
            score_every_turn: self.score_every_turn,
        }))
    }
}

struct ReplayPolicy {
    episodes: Arc<HashMap<usize, Vec<String>>>,
    pending: VecDeque<String>,
    score_every_turn: bool,
}

impl Policy for ReplayPolicy {
    fn reset(&mut self, task: &TaskView) -> Result<(), PolicyError> {
        self.pending = self
            .episodes
            .get(&task.index)
            .cloned()
            .unwrap_or_default()
            .into();
        Ok(())
    }

    fn act(&mut self, _observation: &Observation) -> Result<Decision, PolicyError> {
        let action = match self.pending.pop_front() {
            None => Action::Submit(None),
            Some(a) => match Keyword::parse(&a) {
                Some(Keyword::Submit(name)) => Action::Submit(name),
                Some(Keyword::Skip) => Action::Skip,
                None => Action::Run(a),
            },
        };
        Ok(Decision::new(action))
    }

    fn wants_reward(&self) -> bool {
        self.score_every_turn
    }

    /// A replay plays every recorded action: the log decides where the episode ended.
    fn stops_on_success(&self) -> bool {
        false
    }
}
