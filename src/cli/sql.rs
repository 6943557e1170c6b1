//! The SQL env behind the CLI: which data (`--data`), where it lives (`--data-dir`), and the
//! table rendering of `intercode shell sql`.

use super::{ReplayArgs, TaskSource};
use intercode::data::spider::{self, SqlData};
use intercode::env::Env;
use intercode::env::sql::{SqlEnv, SqlOptions};
use std::process::ExitCode;
use std::time::Duration;

fn options(source: &TaskSource) -> SqlOptions {
    SqlOptions {
        read_only: source.read_only,
        statement_timeout: Duration::from_secs(source.timeout.max(1)),
        ..SqlOptions::default()
    }
}

pub fn sql_env(source: &TaskSource) -> anyhow::Result<Box<dyn Env>> {
    let data: SqlData = source.data.parse()?;
    let set = spider::load(data, &source.data_dir(), source.tasks.as_deref())?;
    Ok(Box::new(SqlEnv::new(set, options(source))?))
}

/// `intercode replay FILE…`: upstream SQL logs, by default on upstream's own (MySQL) rows.
pub fn replay(args: ReplayArgs) -> anyhow::Result<ExitCode> {
    let data: SqlData = if args.source.data == "fixtures" {
        SqlData::UpstreamMysql
    } else {
        args.source.data.parse()?
    };
    let set = spider::load(data, &args.source.data_dir(), args.source.tasks.as_deref())?;
    let opts = options(&args.source);
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

/// A result table for people, when the step carried rows; `None` otherwise.
pub fn render(step: &intercode::env::Step) -> Option<String> {
    let columns: Vec<String> = step
        .info
        .get("columns")?
        .as_array()?
        .iter()
        .map(|c| c.as_str().unwrap_or_default().to_string())
        .collect();
    let rows = intercode::reward::sql::rows_from_json(step.info.get("rows")?)?;
    Some(intercode::env::sql::render_table(&columns, &rows))
}
