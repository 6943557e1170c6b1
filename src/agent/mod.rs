//! Policies: what chooses the next action. The gold policy replays the task's gold solution
//! (one action, then `submit`), which is how a benchmark checks that its own tasks are sound.

use crate::env::Env;

/// Chooses actions for an episode.
pub trait Policy {
    /// Called at the start of an episode with the task's query.
    fn reset(&mut self, query: &str, gold: &str);
    /// The next action, given the last observation; `None` ends the episode with `submit`.
    fn next_action(&mut self, observation: &str) -> Option<String>;
}

/// Runs the gold command once, then submits.
#[derive(Debug, Default)]
pub struct GoldPolicy {
    pending: Option<String>,
}

impl Policy for GoldPolicy {
    fn reset(&mut self, _query: &str, gold: &str) {
        self.pending = Some(gold.to_string());
    }

    fn next_action(&mut self, _observation: &str) -> Option<String> {
        self.pending.take()
    }
}

/// Runs a fixed list of actions, then submits (replaying a logged trajectory).
#[derive(Debug, Default)]
pub struct ReplayPolicy {
    actions: std::collections::VecDeque<String>,
}

impl ReplayPolicy {
    pub fn new(actions: Vec<String>) -> ReplayPolicy {
        ReplayPolicy {
            actions: actions.into(),
        }
    }
}

impl Policy for ReplayPolicy {
    fn reset(&mut self, _query: &str, _gold: &str) {}

    fn next_action(&mut self, _observation: &str) -> Option<String> {
        self.actions.pop_front()
    }
}

/// One finished episode as the runner saw it.
#[derive(Debug, Clone)]
pub struct EpisodeOutcome {
    pub index: usize,
    pub query: String,
    pub gold: String,
    pub turns: Vec<(String, crate::env::Step)>,
    pub final_step: crate::env::Step,
}

/// Runs one episode of `env` with `policy`, at most `max_turns` actions before the submit.
pub fn run_episode(
    env: &mut dyn Env,
    policy: &mut dyn Policy,
    index: usize,
    max_turns: usize,
) -> crate::Result<EpisodeOutcome> {
    let reset = env.reset(index)?;
    let gold = env.gold()?;
    policy.reset(&reset.query, &gold);
    let mut observation = reset.query.clone();
    let mut turns = Vec::new();
    for _ in 0..max_turns {
        let Some(action) = policy.next_action(&observation) else {
            break;
        };
        let step = env.step(&action)?;
        observation = step.observation.clone();
        let done = step.done;
        turns.push((action, step.clone()));
        if done {
            return Ok(EpisodeOutcome {
                index,
                query: reset.query,
                gold,
                turns,
                final_step: step,
            });
        }
    }
    let final_step = env.submit()?;
    Ok(EpisodeOutcome {
        index,
        query: reset.query,
        gold,
        turns,
        final_step,
    })
}
