//! The SQL env behind the CLI: which data (`--data`), where it lives (`--data-dir`), and the
//! table rendering of `intercode shell sql`.

use super::{EnvKind, ReplayArgs};
use intercode::data::spider::{self, SqlData};
use std::process::ExitCode;

/// `intercode replay FILE…`: upstream SQL logs, by default on upstream's own (MySQL) rows.
pub fn replay(args: ReplayArgs) -> anyhow::Result<ExitCode> {
    let (sql, others): (Vec<_>, Vec<_>) = args.files.iter().cloned().partition(|f| {
        intercode::data::upstream_log::read(f)
            .is_ok_and(|l| l.env == intercode::data::upstream_log::LogEnv::Sql)
    });
    let guard = args
        .guard
        .then(|| intercode::harness::guard::GuardOptions::all(None));
    super::replay::replay_logs(&args.files, &args.source, guard)?;
    if args.guard {
        // The per-turn reward comparison is about upstream's unguarded runs.
        return Ok(ExitCode::SUCCESS);
    }
    super::replay::bash_turns(&others, &args.source, args.mismatches.as_deref())?;
    if sql.is_empty() {
        return Ok(ExitCode::SUCCESS);
    }
    let args = ReplayArgs {
        files: sql,
        source: args.source,
        guard: false,
        mismatches: None,
    };
    let data: SqlData = if args.source.data == "fixtures" {
        SqlData::UpstreamMysql
    } else {
        args.source.data.parse()?
    };
    let spec = args.source.spec(EnvKind::Sql)?;
    let set = spider::load(data, &spec.data_dir(), args.source.tasks.as_deref())?;
    let opts = spec.sql_options()?;
    let mut total_scored = 0;
    let mut total_reproduced = 0;
    for file in &args.files {
        let r = intercode::env::sql::replay::replay_log(file, &set, &opts)?;
        total_scored += r.scored_turns;
        total_reproduced += r.reproduced;
        println!(
            "{}: {} episodes, {} scored turns, {} reproduced ({:.1}%; {:.1}% under the run's own \
             reward code{})",
            file.display(),
            r.episodes,
            r.scored_turns,
            r.reproduced,
            100.0 * r.share(),
            100.0 * r.share_for_run_reward(),
            if r.run_used_plain_iou() {
                ": plain IoU"
            } else {
                ""
            }
        );
        for (cause, stats) in &r.causes {
            println!("    {cause}: {} turns", stats.count);
        }
    }
    if args.files.len() > 1 {
        println!(
            "all files: {total_scored} scored turns, {total_reproduced} reproduced ({:.1}%)",
            100.0 * total_reproduced as f64 / total_scored.max(1) as f64
        );
    }
    Ok(ExitCode::SUCCESS)
}

/// A result table for people, when a step's info carries rows (SQL); `None` otherwise.
pub fn render_info(info: &serde_json::Map<String, serde_json::Value>) -> Option<String> {
    let columns: Vec<String> = info
        .get("columns")?
        .as_array()?
        .iter()
        .map(|c| c.as_str().unwrap_or_default().to_string())
        .collect();
    let rows = intercode::reward::sql::rows_from_json(info.get("rows")?)?;
    Some(intercode::env::sql::render_table(&columns, &rows))
}
