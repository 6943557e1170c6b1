//! Policies: what chooses the next action. A policy sees what an agent sees — the task's query,
//! each observation, the reward when its strategy asks for one, `done` and `info` — and never the
//! gold (only [`crate::harness::agents::GoldAgent`] is built from the golds). Policies can fail:
//! a model endpoint that stays down is a harness error, recorded apart from the model's score.

use crate::data::trajectory::Usage;
use crate::env::EnvKind;
use serde_json::{Map, Value};

/// What a policy is told about the task at the start of an episode: no gold.
#[derive(Debug, Clone)]
pub struct TaskView {
    pub env: EnvKind,
    pub index: usize,
    pub query: String,
    /// SQL: the tables of the task's database with their columns (upstream's `db_tables`,
    /// for the schema "handicap" prompt); empty elsewhere.
    pub tables: Vec<(String, Vec<String>)>,
}

/// What the policy sees after each action (and, for the first call, after `reset`).
#[derive(Debug, Clone)]
pub struct Observation {
    /// 0 for the first call (after reset), then the number of actions taken so far.
    pub turn: usize,
    pub text: String,
    /// The reward right after the last action, when the policy asked for one
    /// ([`Policy::wants_reward`]); `None` otherwise and after reset.
    pub reward: Option<f64>,
    pub done: bool,
    pub action_executed: bool,
    pub exit_status: Option<i32>,
    pub info: Map<String, Value>,
}

/// What a policy decides.
#[derive(Debug, Clone, PartialEq)]
pub enum Action {
    /// Run a command / statement / cell.
    Run(String),
    /// End and score the episode (`submit`; Python may name the function).
    Submit(Option<String>),
    /// Give up (`skip`): reward 0.
    Skip,
}

/// An action with what the policy wants recorded beside it.
#[derive(Debug, Clone, PartialEq)]
pub struct Decision {
    pub action: Action,
    /// The reasoning it came with (ReAct's thought, the plan step).
    pub thought: Option<String>,
    /// The model's raw reply.
    pub response: Option<String>,
    /// Tokens spent to decide.
    pub usage: Usage,
}

impl Decision {
    pub fn new(action: Action) -> Decision {
        Decision {
            action,
            thought: None,
            response: None,
            usage: Usage::default(),
        }
    }
}

/// Why a policy could not decide. Every variant is a harness failure, not a model failure.
#[derive(Debug, thiserror::Error)]
pub enum PolicyError {
    /// The endpoint could not be reached or kept failing (after the retries).
    #[error("model endpoint failed: {0}")]
    Endpoint(String),
    /// The endpoint answered, but not in a shape we can read (after the retries).
    #[error("malformed model response: {0}")]
    Malformed(String),
    /// A person or a script stopped answering (end of input).
    #[error("no more input: {0}")]
    Ended(String),
    /// Anything else on the harness side (a log that cannot be read, ...).
    #[error("{0}")]
    Other(String),
}

/// Chooses actions for one episode at a time.
pub trait Policy: Send {
    /// A new episode on `task` starts.
    fn reset(&mut self, task: &TaskView) -> Result<(), PolicyError>;
    /// The next action given the latest observation.
    fn act(&mut self, observation: &Observation) -> Result<Decision, PolicyError>;
    /// Whether the runner should score the episode (`Env::evaluate`) after every action and
    /// show the reward in the next observation (upstream's try-again setting).
    fn wants_reward(&self) -> bool {
        false
    }
    /// Whether the runner should submit as soon as an evaluated reward reaches 1.0.
    fn stops_on_success(&self) -> bool {
        self.wants_reward()
    }
}
