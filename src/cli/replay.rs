//! `intercode replay LOG…`, the success-rate side: every upstream log (bash, SQL, Python) is
//! replayed by the replay agent through the same runner as every other agent — each logged
//! action in order, the episode scored after every action as upstream's try-again harness did
//! — and the success rate upstream logged is printed beside ours. Bash runs with upstream's
//! quoting; SQL on upstream's MySQL rows unless `--data` says otherwise. With `--guard` the
//! envs are guarded, and the destructive mutations and refusals are counted too.

use super::{EnvKind, TaskSource};
use anyhow::Context;
use intercode::data::spider::SqlData;
use intercode::data::upstream_log::{self, LogEnv, UpstreamLog};
use intercode::env::bash::replay::{BashReplayReport, LoggedGoldOutputs, logged_gold_outputs};
use intercode::harness::agents::ReplayAgent;
use intercode::harness::guard::GuardOptions;
use intercode::harness::runner::{self, RunPlan};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;

/// What replaying one log gave.
#[derive(Default, Clone, Copy)]
struct Replayed {
    episodes: usize,
    /// Solved by upstream's measure: the best reward over the turns is 1.0.
    ours: usize,
    theirs: usize,
    /// Episodes with at least one destructive mutation, and their total.
    destructive_episodes: usize,
    destructive: usize,
    /// Actions the guard refused, by check.
    refused_sql: usize,
    refused_destructive: usize,
}

impl Replayed {
    fn add(&mut self, o: &Replayed) {
        self.episodes += o.episodes;
        self.ours += o.ours;
        self.theirs += o.theirs;
        self.destructive_episodes += o.destructive_episodes;
        self.destructive += o.destructive;
        self.refused_sql += o.refused_sql;
        self.refused_destructive += o.refused_destructive;
    }

    fn line(&self) -> String {
        let pct = |n: usize| 100.0 * n as f64 / self.episodes.max(1) as f64;
        let mut text = format!(
            "{} episodes; success rate upstream {:.1}% ({}), ours {:.1}% ({}); destructive \
             mutations in {} episodes ({:.1}%), {} in all",
            self.episodes,
            pct(self.theirs),
            self.theirs,
            pct(self.ours),
            self.ours,
            self.destructive_episodes,
            pct(self.destructive_episodes),
            self.destructive
        );
        if self.refused_sql + self.refused_destructive > 0 {
            text.push_str(&format!(
                "; the guard refused {} SQL statements and {} destructive commands",
                self.refused_sql, self.refused_destructive
            ));
        }
        text
    }
}

pub fn replay_logs(
    files: &[PathBuf],
    source: &TaskSource,
    guard: Option<GuardOptions>,
) -> anyhow::Result<()> {
    let mut all = Replayed::default();
    for file in files {
        let log = upstream_log::read(file)?;
        let Some(replayed) = replay_one(&log, source, guard.as_ref())
            .with_context(|| format!("replaying {}", file.display()))?
        else {
            println!("{}: {} log, not replayed", file.display(), log.env);
            continue;
        };
        println!("{}: {}", file.display(), replayed.line());
        all.add(&replayed);
    }
    if files.len() > 1 {
        println!("all logs: {}", all.line());
    }
    Ok(())
}

/// The data directory's copy of upstream's task file for a log.
fn task_file(log: &UpstreamLog, data_dir: &Path) -> Option<PathBuf> {
    let data = data_dir.join("intercode-upstream/data");
    match log.env {
        LogEnv::Bash => Some(data.join(format!("nl2bash/nl2bash_fs_{}.json", log.fs_number()?))),
        LogEnv::Python => Some(data.join("python/mbpp/ic_mbpp.json")),
        LogEnv::Sql | LogEnv::Ctf => None,
    }
}

/// `None` for a log we cannot replay (CTF).
fn replay_one(
    log: &UpstreamLog,
    source: &TaskSource,
    guard: Option<&GuardOptions>,
) -> anyhow::Result<Option<Replayed>> {
    let env = match log.env {
        LogEnv::Bash => EnvKind::Bash,
        LogEnv::Sql => EnvKind::Sql,
        LogEnv::Python => EnvKind::Python,
        LogEnv::Ctf => return Ok(None),
    };
    let mut spec = source.spec(env)?;
    match log.env {
        LogEnv::Bash => {
            spec.tasks = task_file(log, &spec.data_dir());
            spec.upstream_quoting = true;
            spec.upstream_reset = true;
        }
        LogEnv::Python => spec.tasks = task_file(log, &spec.data_dir()),
        LogEnv::Sql if source.data == "fixtures" => spec.sql_data = SqlData::UpstreamMysql,
        _ => {}
    }
    if guard.is_some() {
        spec.read_only = true;
    }
    let first = spec.build()?;
    let count = first.task_count();
    let episodes: HashMap<usize, Vec<String>> = log
        .episodes
        .iter()
        .filter(|e| e.task_index < count)
        .map(|e| (e.task_index, e.actions.clone()))
        .collect();
    let mut replayed = Replayed {
        theirs: log
            .episodes
            .iter()
            .filter(|e| episodes.contains_key(&e.task_index))
            .filter(|e| e.max_reward == Some(1.0))
            .count(),
        ..Replayed::default()
    };
    let agent = ReplayAgent::new(episodes, true);
    let plan = RunPlan {
        indices: agent.indices(),
        jobs: 2,
        max_turns: usize::MAX,
        guard: guard.cloned(),
    };
    replayed.episodes = plan.indices.len();
    let stop = AtomicBool::new(false);
    runner::run(&spec, first, &agent, &plan, &stop, |record| {
        // Upstream's score: the best reward over the turns (it submitted after every one).
        let best = record
            .actions
            .iter()
            .filter_map(|t| t.reward)
            .fold(record.reward, f64::max);
        if record.error.is_none() && best == 1.0 {
            replayed.ours += 1;
        }
        if !record.destructive.is_empty() {
            replayed.destructive_episodes += 1;
            replayed.destructive += record.destructive.len();
        }
        for turn in &record.actions {
            match turn.refused.as_deref() {
                Some("sql_lint") => replayed.refused_sql += 1,
                Some("destructive") => replayed.refused_destructive += 1,
                _ => {}
            }
        }
        Ok(())
    })?;
    Ok(Some(replayed))
}

/// The per-turn side for bash logs: every logged turn replayed on a fresh episode of its task,
/// and each logged reward compared with ours (see [`intercode::env::bash::replay`]). Two logs
/// at a time.
pub fn bash_turns(
    files: &[PathBuf],
    source: &TaskSource,
    mismatches: Option<&Path>,
) -> anyhow::Result<()> {
    let logs: Vec<UpstreamLog> = files
        .iter()
        .filter_map(|f| upstream_log::read(f).ok())
        .filter(|l| l.env == LogEnv::Bash)
        .collect();
    if logs.is_empty() {
        return Ok(());
    }
    // What upstream's gold printed, gathered from every given log of the same file system.
    let mut gold_outputs: HashMap<Option<u8>, LoggedGoldOutputs> = HashMap::new();
    for log in &logs {
        let outputs = gold_outputs.entry(log.fs_number()).or_default();
        for (task, seen) in logged_gold_outputs([log]) {
            outputs.entry(task).or_default().extend(seen);
        }
    }
    let next = std::sync::atomic::AtomicUsize::new(0);
    let results: std::sync::Mutex<Vec<(usize, anyhow::Result<BashReplayReport>)>> =
        Default::default();
    std::thread::scope(|scope| {
        for _ in 0..2 {
            scope.spawn(|| {
                loop {
                    let i = next.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                    let Some(log) = logs.get(i) else { break };
                    let golds = &gold_outputs[&log.fs_number()];
                    let report = replay_turns(log, source, golds)
                        .with_context(|| format!("replaying {} turn by turn", log.path.display()));
                    results
                        .lock()
                        .unwrap_or_else(|e| e.into_inner())
                        .push((i, report));
                }
            });
        }
    });
    let mut results = results.into_inner().unwrap_or_else(|e| e.into_inner());
    results.sort_by_key(|(i, _)| *i);
    let mut all = BashReplayReport::default();
    println!("bash, turn by turn (each logged reward against ours):");
    for (_, report) in results {
        let report = report?;
        println!("  {}: {}", report.file.display(), turn_line(&report));
        all.add(report);
    }
    println!("  all bash logs: {}", turn_line(&all));
    if let Some(path) = mismatches {
        let mut out = String::new();
        for m in &all.mismatches {
            out.push_str(&serde_json::to_string(m)?);
            out.push('\n');
        }
        std::fs::write(path, out).with_context(|| format!("writing {}", path.display()))?;
        println!("  every mismatch: {}", path.display());
    }
    for (cause, stats) in &all.causes {
        println!("    {cause}: {} turns", stats.count);
        for ex in &stats.examples {
            let short = |s: &str| s.chars().take(120).collect::<String>();
            println!(
                "      task {} turn {}: {:?} logged {} ours {}\n        logged: {:?}\n        \
                 ours:   {:?}",
                ex.task,
                ex.turn,
                ex.action,
                ex.logged_reward,
                ex.reward,
                short(&ex.logged_observation),
                short(&ex.observation)
            );
        }
    }
    Ok(())
}

fn replay_turns(
    log: &UpstreamLog,
    source: &TaskSource,
    gold_outputs: &LoggedGoldOutputs,
) -> anyhow::Result<BashReplayReport> {
    let mut spec = source.spec(EnvKind::Bash)?;
    spec.tasks = task_file(log, &spec.data_dir());
    spec.upstream_quoting = true;
    spec.upstream_reset = true;
    let mut env = spec.build()?;
    Ok(intercode::env::bash::replay::replay_log(
        &mut *env,
        log,
        gold_outputs,
    )?)
}

fn turn_line(r: &BashReplayReport) -> String {
    format!(
        "{} episodes, {} scored turns, {} reproduced ({:.1}%); {} of {} executed turns printed \
         what upstream logged; {} turns not executed upstream",
        r.episodes,
        r.scored_turns,
        r.reproduced,
        100.0 * r.share(),
        r.observations_equal,
        r.executed_turns,
        r.not_executed
    )
}
