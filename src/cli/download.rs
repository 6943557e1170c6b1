//! `intercode download`: one line per file, then a summary; exit status 1 if any failed.

use super::DownloadArgs;
use intercode::data::download::{self, DownloadOptions, Fetched};
use std::io::Write;
use std::process::ExitCode;

pub fn download(args: DownloadArgs) -> anyhow::Result<ExitCode> {
    let dir = super::data_dir_or_default(args.data_dir.as_ref());
    let mut options = DownloadOptions {
        groups: args.only,
        ..DownloadOptions::default()
    };
    if let Some(base) = args.base_url {
        options.base_url = base;
    }
    eprintln!("downloading into {}", dir.display());
    let stdout = std::io::stdout();
    let report = download::download(&dir, &options, |source, fetched| {
        let mut out = stdout.lock();
        let _ = match fetched {
            Fetched::Present => writeln!(out, "present     {}", source.dest),
            Fetched::Downloaded(n) => writeln!(out, "downloaded  {} ({n} bytes)", source.dest),
            Fetched::Failed(why) => writeln!(out, "FAILED      {}: {why}", source.dest),
        };
        let _ = out.flush();
    })?;
    let mut failed_trees = 0;
    if options.groups.is_empty() || options.groups.iter().any(|g| g == "bash") {
        use intercode::data::fs_build::{TreeBuild, build_upstream_trees};
        for (dest, outcome) in build_upstream_trees(&dir) {
            match outcome {
                TreeBuild::Present => println!("present     {dest}"),
                TreeBuild::Built(n) => {
                    println!("built       {dest} ({n} paths, from its setup script)")
                }
                TreeBuild::NoScript => {
                    failed_trees += 1;
                    println!("FAILED      {dest}: its setup script is missing")
                }
                TreeBuild::Failed(why) => {
                    failed_trees += 1;
                    println!("FAILED      {dest}: {why}")
                }
            }
        }
    }
    let failed = report
        .iter()
        .filter(|(_, f)| matches!(f, Fetched::Failed(_)))
        .count();
    let fetched = report
        .iter()
        .filter(|(_, f)| matches!(f, Fetched::Downloaded(_)))
        .count();
    println!(
        "{} files: {fetched} downloaded, {} already present, {failed} failed",
        report.len(),
        report.len() - fetched - failed
    );
    Ok(if failed + failed_trees > 0 {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}
