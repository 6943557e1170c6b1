//! `intercode run ENV --agent …`: every selected task, one line (or JSON object) per episode in
//! task order, then a summary; with `--out`/`--resume` a run directory.

use super::{RunArgs, progress::Progress};
use anyhow::Context;
use intercode::data::trajectory::{EpisodeEnd, EpisodeRecord};
use intercode::harness::run_dir::{self, Manifest, RunDir, Shard};
use intercode::harness::runner::{self, RunPlan};
use std::io::Write;
use std::process::ExitCode;
use std::sync::atomic::AtomicBool;

pub fn run(args: RunArgs) -> anyhow::Result<ExitCode> {
    let mut spec = args.source.spec(args.env)?;
    let guard = args.guard.then(|| {
        let critic = args.critic_cmd.as_ref().map(|c| {
            intercode::harness::guard::Critic::Command(
                c.split_whitespace().map(str::to_string).collect(),
            )
        });
        intercode::harness::guard::GuardOptions::all(critic)
    });
    if guard.is_some() {
        // Guarded SQL episodes are read-only at the database too, behind the lint.
        spec.read_only = true;
    }
    let env = spec.build()?;
    let count = env.task_count();
    let indices = match &args.only {
        Some(spec) => super::parse_indices(spec)?,
        None => (0..count).collect(),
    };
    if let Some(bad) = indices.iter().find(|&&i| i >= count) {
        anyhow::bail!("task index {bad} out of range (the task set has {count} tasks)");
    }
    anyhow::ensure!(args.max_turns > 0, "--max-turns must be at least 1");
    let agent = super::agent::build(&args, &spec, env.as_ref())?;
    let manifest = Manifest {
        format: 1,
        env: spec.clone(),
        task_set: spec.task_set_name(),
        task_set_hash: task_set_hash(&spec)?,
        indices,
        agent: agent.name.clone(),
        model: agent.model.clone(),
        strategy: agent.strategy.clone(),
        context: with_guard(agent.context.clone(), guard.as_ref()),
        sampling: agent.sampling.clone(),
        max_turns: args.max_turns,
        shard: match (&args.shard, &args.resume) {
            (Some(text), _) => Some(Shard::parse(text)?),
            // `--resume DIR` alone finishes whatever part of a run DIR holds.
            (None, Some(dir)) => run_dir::read_manifest(dir)?.shard,
            (None, None) => None,
        },
        versions: run_dir::versions(),
    };
    let mut dir = match (&args.out, &args.resume) {
        (Some(p), _) => Some(RunDir::create(p, &manifest)?),
        (_, Some(p)) => Some(RunDir::resume(p, &manifest)?),
        _ => None,
    };
    let todo: Vec<usize> = manifest
        .own_indices()
        .into_iter()
        .filter(|i| dir.as_ref().is_none_or(|d| !d.done().contains(i)))
        .collect();
    if let Some(d) = &dir
        && !d.done().is_empty()
    {
        eprintln!(
            "resuming {}: {} episodes recorded, {} to run",
            d.path().display(),
            d.done().len(),
            todo.len()
        );
    }
    let plan = RunPlan {
        indices: todo,
        jobs: args.jobs,
        max_turns: args.max_turns,
        guard: guard.clone(),
    };
    let stop = AtomicBool::new(false);
    let mut progress = Progress::new(plan.indices.len(), args.json);
    let mut summary = Summary::default();
    let stdout = std::io::stdout();
    runner::run(&spec, env, agent.factory.as_ref(), &plan, &stop, |record| {
        if let Some(d) = dir.as_mut() {
            d.append(&record)?;
        }
        summary.add(&record);
        let line = if args.json {
            serde_json::to_string(&record)?
        } else {
            table_line(&record)
        };
        progress.println(&line, &stdout);
        progress.tick(summary.solved, summary.scored());
        Ok(())
    })
    .context("the run stopped")?;
    progress.finish();
    let text = summary.to_string();
    if args.json {
        eprintln!("{text}");
    } else {
        println!("{text}");
    }
    let _ = std::io::stdout().flush();
    Ok(if summary.errors > 0 {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}

/// The hash of what the tasks are: the task file's bytes, or the embedded fixtures'.
fn task_set_hash(spec: &intercode::env::EnvSpec) -> anyhow::Result<String> {
    let bytes = match &spec.tasks {
        Some(p) => intercode::fs::host::read(p)?,
        None => format!(
            "embedded fixtures of intercode {}",
            env!("CARGO_PKG_VERSION")
        )
        .into_bytes(),
    };
    Ok(run_dir::content_hash(&bytes))
}

fn table_line(record: &EpisodeRecord) -> String {
    if record.end == EpisodeEnd::HarnessError {
        return format!(
            "{:>5}  ERROR  {}",
            record.task_index,
            record.error.as_deref().unwrap_or("")
        );
    }
    let query: String = record.query.chars().take(70).collect();
    format!("{:>5}  {:>5.2}  {query}", record.task_index, record.reward)
}

#[derive(Default)]
struct Summary {
    total: usize,
    solved: usize,
    errors: usize,
    sum: f64,
}

impl Summary {
    fn add(&mut self, record: &EpisodeRecord) {
        self.total += 1;
        if record.end == EpisodeEnd::HarnessError {
            self.errors += 1;
            return;
        }
        self.sum += record.reward;
        if record.solved() {
            self.solved += 1;
        }
    }

    fn scored(&self) -> usize {
        self.total - self.errors
    }
}

impl std::fmt::Display for Summary {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let scored = self.scored();
        let mean = if scored > 0 {
            self.sum / scored as f64
        } else {
            0.0
        };
        write!(
            f,
            "{} tasks: {} solved (reward 1.0), mean reward {:.3}, {} errors",
            self.total, self.solved, mean, self.errors
        )?;
        if self.errors > 0 {
            write!(f, " (harness errors: not scored, listed in the records)")?;
        }
        Ok(())
    }
}

/// The agent's context policy, plus the guard's settings when the run is guarded (the guard
/// changes what the agent sees).
fn with_guard(
    context: serde_json::Value,
    guard: Option<&intercode::harness::guard::GuardOptions>,
) -> serde_json::Value {
    let Some(g) = guard else {
        return context;
    };
    let mut map = match context {
        serde_json::Value::Object(m) => m,
        other => {
            let mut m = serde_json::Map::new();
            m.insert("agent".into(), other);
            m
        }
    };
    map.insert(
        "guard".into(),
        serde_json::json!({
            "sql_lint": g.sql_lint,
            "destructive_gate": g.gate,
            "critic": g.critic.as_ref().map(|c| format!("{c:?}")),
        }),
    );
    serde_json::Value::Object(map)
}
