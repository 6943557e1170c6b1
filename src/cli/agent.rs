//! `--agent`: the agent factories behind `intercode run`, and what each writes into the run's
//! manifest.

use super::{AgentKind, RunArgs};
use anyhow::Context;
use intercode::env::{Env, EnvSpec};
use intercode::harness::agents::{AgentFactory, GoldAgent, ReplayAgent};
use serde_json::{Value, json};
use std::collections::HashMap;

pub struct BuiltAgent {
    pub name: String,
    pub model: Option<String>,
    pub strategy: Option<String>,
    pub context: Value,
    pub sampling: Value,
    pub factory: Box<dyn AgentFactory>,
}

impl BuiltAgent {
    fn plain(name: &str, context: Value, factory: Box<dyn AgentFactory>) -> BuiltAgent {
        BuiltAgent {
            name: name.to_string(),
            model: None,
            strategy: None,
            context,
            sampling: Value::Null,
            factory,
        }
    }
}

pub fn build(args: &RunArgs, spec: &EnvSpec, env: &dyn Env) -> anyhow::Result<BuiltAgent> {
    Ok(match args.agent {
        AgentKind::Gold => BuiltAgent::plain(
            "gold",
            json!({"history": "none: the gold runs once, then submits"}),
            Box::new(GoldAgent::from_env(env)?),
        ),
        AgentKind::Replay => {
            let from = args.from.as_ref().context(
                "--agent replay needs --from SOURCE: one of our run directories or an upstream \
                 results file",
            )?;
            let (episodes, context) = replay_source(from, spec)?;
            BuiltAgent::plain(
                "replay",
                context,
                Box::new(ReplayAgent::new(episodes, true)),
            )
        }
        AgentKind::Human => {
            anyhow::ensure!(
                args.jobs <= 1,
                "--agent human plays one episode at a time (-j 1)"
            );
            BuiltAgent::plain(
                "human",
                json!({"history": "the whole terminal"}),
                Box::new(super::human::HumanAgent::new(spec.clone())),
            )
        }
        AgentKind::Chat => super::chat::build(&args.chat, args.max_turns, spec)?,
    })
}

/// The actions to replay, by task index, from one of our run directories or an upstream log.
fn replay_source(
    from: &std::path::Path,
    spec: &EnvSpec,
) -> anyhow::Result<(HashMap<usize, Vec<String>>, Value)> {
    if from.is_dir() {
        let run = intercode::harness::run_dir::read_run(from)?;
        anyhow::ensure!(
            run.manifest.env.env == spec.env,
            "{} is a {} run, not {}",
            from.display(),
            run.manifest.env.env,
            spec.env
        );
        let episodes = run
            .records
            .iter()
            .map(|r| {
                let actions = r.actions.iter().map(|t| t.action.clone()).collect();
                (r.task_index, actions)
            })
            .collect();
        let context = json!({"replayed_run": from.display().to_string(),
                             "replayed_agent": run.manifest.agent,
                             "replayed_model": run.manifest.model});
        return Ok((episodes, context));
    }
    let log = intercode::data::upstream_log::read(from)?;
    anyhow::ensure!(
        log.env.name() == spec.env.name(),
        "{} is an upstream {} log, not {}",
        from.display(),
        log.env,
        spec.env
    );
    let episodes = log
        .episodes
        .iter()
        .map(|e| (e.task_index, e.actions.clone()))
        .collect();
    let context = json!({"replayed_upstream_log": from.display().to_string()});
    Ok((episodes, context))
}
