//! The episode loop and the parallel runner. One loop for every agent: reset the env, hand the
//! policy what an agent sees, run its actions (scoring after each when the policy asks), stop on
//! `submit`, `skip`, success (when the policy stops there) or the turn budget, and record the
//! episode. A failure of the harness — the env's host side, or a policy that cannot decide (an
//! endpoint down after retries) — ends the episode as [`EpisodeEnd::HarnessError`]: recorded
//! apart, never scored as the model's failure.

use super::agents::AgentFactory;
use super::policy::{Action, Observation, Policy, TaskView};
use crate::data::trajectory::{EpisodeEnd, EpisodeRecord, TurnRecord};
use crate::env::{Env, EnvSpec, Keyword, Step};
use serde_json::{Map, Value};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::Instant;

/// Plays one episode of task `index` and records it; never fails: a harness failure is in the
/// record.
pub fn run_episode(
    env: &mut dyn Env,
    policy: &mut dyn Policy,
    index: usize,
    max_turns: usize,
) -> EpisodeRecord {
    let started = Instant::now();
    let mut record = EpisodeRecord {
        env: env.name().to_string(),
        task_index: index,
        ..EpisodeRecord::default()
    };
    if let Err(e) = play(env, policy, index, max_turns, &mut record) {
        record.end = EpisodeEnd::HarnessError;
        record.error = Some(e);
        record.reward = 0.0;
    }
    record.wall_ms = millis(started);
    record
}

fn millis(since: Instant) -> u64 {
    u64::try_from(since.elapsed().as_millis()).unwrap_or(u64::MAX)
}

/// The loop; an `Err` is a harness failure (its message).
fn play(
    env: &mut dyn Env,
    policy: &mut dyn Policy,
    index: usize,
    max_turns: usize,
    record: &mut EpisodeRecord,
) -> Result<(), String> {
    let env_err = |e: crate::Error| format!("env: {e}");
    let task = env.task(index).map_err(env_err)?;
    record.query.clone_from(&task.query);
    record.gold.clone_from(&task.gold);
    record.category.clone_from(&task.category);
    env.reset(index).map_err(env_err)?;
    let view = TaskView {
        env: env.kind(),
        index,
        query: task.query.clone(),
        tables: task.tables.clone(),
    };
    policy.reset(&view).map_err(|e| e.to_string())?;
    let mut observation = Observation {
        turn: 0,
        text: task.query,
        reward: None,
        done: false,
        action_executed: true,
        exit_status: None,
        info: Map::new(),
    };
    let (last, end) = loop {
        if record.actions.len() >= max_turns {
            break (env.submit().map_err(env_err)?, EpisodeEnd::TurnLimit);
        }
        let turn_started = Instant::now();
        let decision = policy.act(&observation).map_err(|e| e.to_string())?;
        record.usage.add(decision.usage);
        // A `submit` or `skip` typed as a command is that keyword (upstream's env read it so).
        let action = match decision.action {
            Action::Run(text) => match Keyword::parse(&text) {
                Some(Keyword::Submit(name)) => Action::Submit(name),
                Some(Keyword::Skip) => Action::Skip,
                None => Action::Run(text),
            },
            other => other,
        };
        let (action, step, ran) = match action {
            Action::Submit(name) => {
                let step = env.submit_named(name.as_deref()).map_err(env_err)?;
                if step.done {
                    break (step, EpisodeEnd::Submitted);
                }
                // A guard's critic vetoed it: the agent sees why and goes on; the refused
                // submission counts as a turn, so a critic cannot keep an episode alive.
                ("submit".to_string(), step, false)
            }
            Action::Skip => break (env.skip().map_err(env_err)?, EpisodeEnd::Skipped),
            Action::Run(action) => {
                let step = env.step(&action).map_err(env_err)?;
                (action, step, true)
            }
        };
        let reward = if ran && policy.wants_reward() {
            Some(env.evaluate().map_err(env_err)?.reward)
        } else {
            None
        };
        let mut turn = TurnRecord::new(&action, &step.observation, step.exit_status);
        turn.action_executed = step.action_executed;
        turn.reward = reward;
        turn.thought = decision.thought;
        turn.response = decision.response;
        turn.usage = decision.usage;
        turn.wall_ms = Some(millis(turn_started));
        turn.refused = refused_by(&step);
        record.actions.push(turn);
        if policy.stops_on_success() && reward == Some(1.0) {
            break (env.submit().map_err(env_err)?, EpisodeEnd::Submitted);
        }
        observation = observation_after(&step, record.actions.len(), reward);
    };
    finish(record, &last, end);
    Ok(())
}

/// Which guard check refused the step's action, if one did.
fn refused_by(step: &Step) -> Option<String> {
    step.info
        .get("guard")?
        .get("refused")?
        .as_str()
        .map(str::to_string)
}

fn observation_after(step: &Step, turn: usize, reward: Option<f64>) -> Observation {
    Observation {
        turn,
        text: step.observation.clone(),
        reward,
        done: step.done,
        action_executed: step.action_executed,
        exit_status: step.exit_status,
        info: step.info.clone(),
    }
}

fn finish(record: &mut EpisodeRecord, last: &Step, end: EpisodeEnd) {
    record.reward = last.reward;
    record.info = last.info_json();
    record.end = end;
    record.destructive = match last.info.get("destructive") {
        Some(Value::Array(items)) => items
            .iter()
            .map(|v| v.as_str().map_or_else(|| v.to_string(), str::to_string))
            .collect(),
        _ => Vec::new(),
    };
}

/// How a run goes: which tasks, how many workers, how many turns.
#[derive(Debug, Clone)]
pub struct RunPlan {
    /// Task indices to run, in the order records are reported.
    pub indices: Vec<usize>,
    /// Workers, each with its own env and policy.
    pub jobs: usize,
    pub max_turns: usize,
    /// Every env behind the guard (`--guard`), so its effect is measured like any setting.
    pub guard: Option<super::guard::GuardOptions>,
}

/// Runs `plan` with `agent` on envs built from `spec`. `first_env` (already built, e.g. to
/// list the tasks) serves the first worker. `on_record` is called once per episode, in the
/// order of `plan.indices`, as soon as every earlier one is done; returning an error from it
/// stops the run (the error is returned). Setting `stop` ends the run after the episodes in
/// progress.
pub fn run(
    spec: &EnvSpec,
    first_env: Box<dyn Env>,
    agent: &dyn AgentFactory,
    plan: &RunPlan,
    stop: &AtomicBool,
    mut on_record: impl FnMut(EpisodeRecord) -> crate::Result<()> + Send,
) -> crate::Result<()> {
    let jobs = plan.jobs.clamp(1, plan.indices.len().max(1));
    let next = AtomicUsize::new(0);
    let (tx, rx) = std::sync::mpsc::channel::<(usize, EpisodeRecord)>();
    std::thread::scope(|scope| {
        let printer = scope.spawn(move || -> crate::Result<()> {
            let mut pending = std::collections::BTreeMap::new();
            let mut next_position = 0;
            for (position, record) in rx {
                pending.insert(position, record);
                while let Some(record) = pending.remove(&next_position) {
                    next_position += 1;
                    if let Err(e) = on_record(record) {
                        stop.store(true, Ordering::Relaxed);
                        return Err(e);
                    }
                }
            }
            Ok(())
        });
        let mut first_env = Some(first_env);
        for _ in 0..jobs {
            let tx = tx.clone();
            let env = first_env.take();
            let next = &next;
            scope.spawn(move || {
                let env = match env {
                    Some(env) => Ok(env),
                    None => spec.build(),
                };
                let env = env.map(|env| match &plan.guard {
                    Some(options) => Box::new(super::guard::GuardedEnv::new(env, options.clone()))
                        as Box<dyn Env>,
                    None => env,
                });
                worker(env, agent, plan, next, stop, &tx);
            });
        }
        drop(tx);
        printer
            .join()
            .unwrap_or_else(|_| Err(crate::Error::Other("the record writer panicked".into())))
    })
}

/// Takes positions from `next` until the plan is done; records what each episode gave. A
/// worker whose env or policy cannot be built records a harness error for every episode it
/// takes, so nothing is silently missing.
fn worker(
    env: crate::Result<Box<dyn Env>>,
    agent: &dyn AgentFactory,
    plan: &RunPlan,
    next: &AtomicUsize,
    stop: &AtomicBool,
    tx: &std::sync::mpsc::Sender<(usize, EpisodeRecord)>,
) {
    let mut env = env.map_err(|e| format!("env: {e}"));
    let mut policy = agent.policy().map_err(|e| e.to_string());
    while !stop.load(Ordering::Relaxed) {
        let position = next.fetch_add(1, Ordering::Relaxed);
        let Some(&index) = plan.indices.get(position) else {
            return;
        };
        let record = match (&mut env, &mut policy) {
            (Ok(env), Ok(policy)) => {
                run_episode(env.as_mut(), policy.as_mut(), index, plan.max_turns)
            }
            (Err(e), _) => failed(index, String::new(), e.clone()),
            (Ok(env), Err(e)) => failed(index, env.name().to_string(), e.clone()),
        };
        if tx.send((position, record)).is_err() {
            return;
        }
    }
}

fn failed(index: usize, env: String, error: String) -> EpisodeRecord {
    EpisodeRecord {
        env,
        task_index: index,
        end: EpisodeEnd::HarnessError,
        error: Some(error),
        ..EpisodeRecord::default()
    }
}
