//! `intercode merge`, `report` and `export`: commands over run directories.

use super::{ExportArgs, ExportFormat, MergeArgs, ReportArgs};
use anyhow::Context;
use intercode::harness::report::{self, RunData, html};
use intercode::harness::{export, metrics, run_dir};
use std::collections::HashMap;
use std::path::Path;
use std::process::ExitCode;

pub fn merge(args: MergeArgs) -> anyhow::Result<ExitCode> {
    let run = run_dir::merge(&args.dirs, &args.out)?;
    let solved = run.records.iter().filter(|r| r.solved()).count();
    println!(
        "merged {} runs into {}: {} episodes, {} solved",
        args.dirs.len(),
        args.out.display(),
        run.records.len(),
        solved
    );
    Ok(ExitCode::SUCCESS)
}

pub fn report(args: ReportArgs) -> anyhow::Result<ExitCode> {
    let prices = match &args.prices {
        Some(p) => metrics::load_prices(&intercode::fs::host::read_to_string(p)?)
            .map_err(|e| anyhow::anyhow!("{}: {e}", p.display()))?,
        None => HashMap::new(),
    };
    let runs = args
        .dirs
        .iter()
        .map(|d| load(d))
        .collect::<anyhow::Result<Vec<_>>>()?;
    if args.json {
        let all: Vec<serde_json::Value> = runs
            .iter()
            .map(|r| serde_json::json!({"run": r.name, "metrics": r.metrics(&prices)}))
            .collect();
        println!("{}", serde_json::to_string_pretty(&all)?);
    } else {
        print!("{}", report::terminal_table_priced(&runs, &prices));
    }
    if let Some(path) = &args.html {
        intercode::fs::host::write_atomic(path, html::html_priced(&runs, &prices).as_bytes())?;
        eprintln!("wrote {}", path.display());
    }
    Ok(ExitCode::SUCCESS)
}

fn load(dir: &Path) -> anyhow::Result<RunData> {
    let run = run_dir::read_run(dir).with_context(|| format!("reading {}", dir.display()))?;
    Ok(RunData {
        name: dir
            .file_name()
            .map_or_else(|| dir.display().to_string(), |n| n.to_string_lossy().into()),
        manifest: serde_json::to_value(&run.manifest)?,
        records: run.records,
    })
}

pub fn export(args: ExportArgs) -> anyhow::Result<ExitCode> {
    let run = run_dir::read_run(&args.dir)?;
    let m = &run.manifest;
    let value = match args.format {
        ExportFormat::Upstream => {
            export::to_upstream(&run.records, m.env.env.name(), &m.task_set, m.max_turns)
        }
        ExportFormat::Atif => serde_json::Value::Array(export::atif_run(
            &run.records,
            &format!("intercode-{}", m.agent),
            env!("CARGO_PKG_VERSION"),
            m.model.as_deref(),
        )),
    };
    intercode::fs::host::write_atomic(&args.out, &serde_json::to_vec_pretty(&value)?)?;
    eprintln!(
        "wrote {} episodes to {}",
        run.records.len(),
        args.out.display()
    );
    Ok(ExitCode::SUCCESS)
}
