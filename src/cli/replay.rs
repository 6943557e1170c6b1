//! `intercode replay LOG…`, the success-rate side: every upstream log (bash, SQL, Python) is
//! replayed by the replay agent through the same runner as every other agent — each logged
//! action in order, the episode scored after every action as upstream's try-again harness did
//! — and the success rate upstream logged is printed beside ours. Bash runs with upstream's
//! quoting; SQL on upstream's MySQL rows unless `--data` says otherwise.

use super::{EnvKind, TaskSource};
use anyhow::Context;
use intercode::data::spider::SqlData;
use intercode::data::upstream_log::{self, LogEnv, UpstreamLog};
use intercode::harness::agents::ReplayAgent;
use intercode::harness::runner::{self, RunPlan};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;

pub fn replay_logs(files: &[PathBuf], source: &TaskSource) -> anyhow::Result<()> {
    let (mut ours_all, mut theirs_all, mut total) = (0usize, 0usize, 0usize);
    for file in files {
        let log = upstream_log::read(file)?;
        let Some((ours, theirs, n)) =
            replay_one(&log, source).with_context(|| format!("replaying {}", file.display()))?
        else {
            println!("{}: {} log, not replayed", file.display(), log.env);
            continue;
        };
        println!(
            "{}: {} episodes; success rate upstream {:.1}% ({theirs}), ours {:.1}% ({ours})",
            file.display(),
            n,
            100.0 * theirs as f64 / n.max(1) as f64,
            100.0 * ours as f64 / n.max(1) as f64,
        );
        ours_all += ours;
        theirs_all += theirs;
        total += n;
    }
    if files.len() > 1 {
        println!(
            "all logs: {total} episodes; success rate upstream {:.1}%, ours {:.1}%",
            100.0 * theirs_all as f64 / total.max(1) as f64,
            100.0 * ours_all as f64 / total.max(1) as f64
        );
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

/// (solved by us, solved upstream, episodes), or `None` for a log we cannot replay (CTF).
fn replay_one(
    log: &UpstreamLog,
    source: &TaskSource,
) -> anyhow::Result<Option<(usize, usize, usize)>> {
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
        }
        LogEnv::Python => spec.tasks = task_file(log, &spec.data_dir()),
        LogEnv::Sql if source.data == "fixtures" => spec.sql_data = SqlData::UpstreamMysql,
        _ => {}
    }
    let first = spec.build()?;
    let count = first.task_count();
    let episodes: HashMap<usize, Vec<String>> = log
        .episodes
        .iter()
        .filter(|e| e.task_index < count)
        .map(|e| (e.task_index, e.actions.clone()))
        .collect();
    let theirs = log
        .episodes
        .iter()
        .filter(|e| episodes.contains_key(&e.task_index))
        .filter(|e| e.max_reward == Some(1.0))
        .count();
    let agent = ReplayAgent::new(episodes, true);
    let plan = RunPlan {
        indices: agent.indices(),
        jobs: 2,
        max_turns: usize::MAX,
    };
    let n = plan.indices.len();
    let mut ours = 0;
    let stop = AtomicBool::new(false);
    runner::run(&spec, first, &agent, &plan, &stop, |record| {
        // Upstream's score: the best reward over the turns (it submitted after every one).
        let best = record
            .actions
            .iter()
            .filter_map(|t| t.reward)
            .fold(record.reward, f64::max);
        if record.error.is_none() && best == 1.0 {
            ours += 1;
        }
        Ok(())
    })?;
    Ok(Some((ours, theirs, n)))
}
