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
use std::sync::atomic::{AtomicUsize, Ordering};
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

/// What one episode produced, for the printer: its task index and record (or error).
type Finished = (usize, Result<EpisodeRecord, String>);

pub fn run(args: RunArgs) -> anyhow::Result<ExitCode> {
    let mut env = make_env(args.env, &args.source)?;
    let indices = match &args.only {
        Some(spec) => super::parse_indices(spec)?,
        None => (0..env.task_count()).collect(),
    };
    let writer = match &args.out {
        Some(p) => Some(TrajectoryWriter::open(p)?),
        None => None,
    };
    let jobs = args.jobs.clamp(1, indices.len().max(1));
    // Workers take positions in `indices` from this counter and send what they finish to the
    // printer, which writes records in task order as soon as they are next in line.
    let next = AtomicUsize::new(0);
    let (tx, rx) = std::sync::mpsc::channel::<(usize, Finished)>();
    let summary = std::thread::scope(|scope| -> anyhow::Result<Summary> {
        let printer = scope.spawn(|| print_in_order(rx, indices.len(), writer, args.json));
        for _ in 1..jobs {
            let tx = tx.clone();
            let (next, indices, args) = (&next, &indices, &args);
            scope.spawn(move || match make_env(args.env, &args.source) {
                Ok(mut env) => work(env.as_mut(), args.agent, indices, next, &tx),
                Err(e) => tracing::warn!("a worker could not build its env: {e:#}"),
            });
        }
        work(env.as_mut(), args.agent, &indices, &next, &tx);
        drop(tx);
        printer
            .join()
            .map_err(|_| anyhow::anyhow!("the printer thread panicked"))?
    })?;
    let text = summary.to_string();
    if args.json {
        eprintln!("{text}");
    } else {
        println!("{text}");
    }
    Ok(if summary.errors > 0 {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}

/// Runs episodes until the shared counter passes the end of `indices`.
fn work(
    env: &mut dyn Env,
    agent: AgentKind,
    indices: &[usize],
    next: &AtomicUsize,
    tx: &std::sync::mpsc::Sender<(usize, Finished)>,
) {
    loop {
        let position = next.fetch_add(1, Ordering::Relaxed);
        let Some(&index) = indices.get(position) else {
            return;
        };
        let mut policy: Box<dyn Policy> = match agent {
            AgentKind::Gold => Box::new(GoldPolicy::default()),
        };
        let finished = agent::run_episode(env, policy.as_mut(), index, 1)
            .map(|outcome| record(env.name(), index, &outcome))
            .map_err(|e| e.to_string());
        if tx.send((position, (index, finished))).is_err() {
            return;
        }
    }
}

fn record(env: &str, index: usize, outcome: &agent::EpisodeOutcome) -> EpisodeRecord {
    EpisodeRecord {
        env: env.to_string(),
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
        reward: outcome.final_step.reward,
        info: outcome.final_step.info.clone(),
    }
}

#[derive(Default)]
struct Summary {
    total: usize,
    solved: usize,
    errors: usize,
    sum: f64,
}

impl std::fmt::Display for Summary {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mean = if self.total > 0 {
            self.sum / self.total as f64
        } else {
            0.0
        };
        write!(
            f,
            "{} tasks: {} solved (reward 1.0), mean reward {:.3}, {} errors",
            self.total, self.solved, mean, self.errors
        )
    }
}

/// Prints (and appends to `--out`) each finished episode once every earlier position has been
/// printed, so the output reads in task order whatever the number of workers.
fn print_in_order(
    rx: std::sync::mpsc::Receiver<(usize, Finished)>,
    expected: usize,
    mut writer: Option<TrajectoryWriter>,
    json: bool,
) -> anyhow::Result<Summary> {
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    let mut pending = std::collections::BTreeMap::new();
    let mut next_position = 0;
    let mut summary = Summary::default();
    for (position, finished) in rx {
        pending.insert(position, finished);
        while let Some((index, finished)) = pending.remove(&next_position) {
            next_position += 1;
            summary.total += 1;
            let record = match finished {
                Ok(r) => r,
                Err(e) => {
                    summary.errors += 1;
                    if json {
                        let v = serde_json::json!({"task_index": index, "error": e});
                        writeln!(out, "{v}")?;
                    } else {
                        writeln!(out, "{index:>5}  ERROR  {e}")?;
                    }
                    continue;
                }
            };
            summary.sum += record.reward;
            if record.reward == 1.0 {
                summary.solved += 1;
            }
            if let Some(w) = writer.as_mut() {
                w.append(&record)?;
            }
            if json {
                writeln!(out, "{}", serde_json::to_string(&record)?)?;
            } else {
                let query: String = record.query.chars().take(70).collect();
                writeln!(
                    out,
                    "{:>5}  {:>5.2}  {query}",
                    record.task_index, record.reward
                )?;
            }
            out.flush()?;
        }
    }
    // A worker that died leaves positions nobody ran: count them as errors, not successes.
    summary.errors += expected - next_position;
    summary.total += expected - next_position;
    Ok(summary)
}
