//! `intercode run ENV --agent gold`: every task, one line each, then a summary.

use super::{AgentKind, EnvKind, RunArgs, TaskSource};
use anyhow::Context;
use intercode::agent::{self, GoldPolicy, Policy};
use intercode::data::trajectory::{EpisodeRecord, TrajectoryWriter, TurnRecord};
use intercode::env::Env;
use intercode::env::bash::{BashEnv, BashOptions, Quoting};
use intercode::env::python::{PythonEnv, PythonOptions};
use std::io::Write;
use std::process::ExitCode;
use std::time::Duration;

/// Builds the bash env for a task source (shared with `intercode shell`).
pub fn bash_env(source: &TaskSource) -> anyhow::Result<BashEnv> {
    let set = match &source.tasks {
        Some(path) => {
            let tree = match &source.fs {
                Some(t) => t.clone(),
                None => intercode::data::nl2bash::infer_tree_for(path).with_context(|| {
                    format!(
                        "no file tree given for {}: pass --fs fs_N.effective.tar.gz, or get \
                         upstream's (built from its setup scripts) with `intercode download \
                         --only bash`",
                        path.display()
                    )
                })?,
            };
            intercode::data::nl2bash::load_upstream(path, &tree)?
        }
        None => intercode::data::fixtures::bash_tasks()?,
    };
    let mut options = BashOptions::default();
    options.limits.timeout = Duration::from_secs(source.timeout.max(1));
    options.persistent = source.persistent;
    if source.upstream_quoting {
        options.quoting = Quoting::Upstream;
    }
    if let Some(c) = &source.clock {
        options.clock = Some(super::parse_clock(c)?);
    }
    Ok(BashEnv::new(set, options)?)
}

pub fn make_env(kind: EnvKind, source: &TaskSource) -> anyhow::Result<Box<dyn Env>> {
    match kind {
        EnvKind::Bash => Ok(Box::new(bash_env(source)?)),
        EnvKind::Sql => super::sql::sql_env(source),
        EnvKind::Python => {
            let options = PythonOptions {
                timeout: Duration::from_secs(source.timeout.max(1)),
                ..PythonOptions::default()
            };
            Ok(Box::new(PythonEnv::from_source(
                source.tasks.as_deref(),
                options,
            )?))
        }
    }
}

pub fn run(args: RunArgs) -> anyhow::Result<ExitCode> {
    let mut env = make_env(args.env, &args.source)?;
    let indices = match &args.only {
        Some(spec) => super::parse_indices(spec)?,
        None => (0..env.task_count()).collect(),
    };
    let mut writer = match &args.out {
        Some(p) => Some(TrajectoryWriter::open(p)?),
        None => None,
    };
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    let (mut total, mut solved, mut errors, mut sum) = (0usize, 0usize, 0usize, 0f64);
    for index in indices {
        let mut policy: Box<dyn Policy> = match args.agent {
            AgentKind::Gold => Box::new(GoldPolicy::default()),
        };
        total += 1;
        let outcome = match agent::run_episode(env.as_mut(), policy.as_mut(), index, 1) {
            Ok(o) => o,
            Err(e) => {
                errors += 1;
                if args.json {
                    let v = serde_json::json!({"task_index": index, "error": e.to_string()});
                    writeln!(out, "{v}")?;
                } else {
                    writeln!(out, "{index:>5}  ERROR  {e}")?;
                }
                continue;
            }
        };
        let reward = outcome.final_step.reward;
        sum += reward;
        if reward == 1.0 {
            solved += 1;
        }
        let record = EpisodeRecord {
            env: env.name().to_string(),
            task_index: index,
            query: outcome.query.clone(),
            gold: outcome.gold.clone(),
            actions: outcome
                .turns
                .iter()
                .map(|(a, s)| TurnRecord {
                    action: a.clone(),
                    observation: s.observation.clone(),
                    exit_status: s
                        .info
                        .get("exit_status")
                        .and_then(|v| v.as_i64())
                        .map(|v| v as i32),
                    action_executed: s.action_executed(),
                })
                .collect(),
            reward,
            info: outcome.final_step.info.clone(),
        };
        if let Some(w) = writer.as_mut() {
            w.append(&record)?;
        }
        if args.json {
            writeln!(out, "{}", serde_json::to_string(&record)?)?;
        } else {
            let query: String = outcome.query.chars().take(70).collect();
            writeln!(out, "{index:>5}  {reward:>5.2}  {query}")?;
        }
        out.flush()?;
    }
    let mean = if total > 0 { sum / total as f64 } else { 0.0 };
    let summary = format!(
        "{} tasks: {} solved (reward 1.0), mean reward {:.3}, {} errors",
        total, solved, mean, errors
    );
    if args.json {
        eprintln!("{summary}");
    } else {
        writeln!(out, "{summary}")?;
    }
    Ok(if errors > 0 {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}
