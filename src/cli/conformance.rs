//! `intercode conformance bash CORPUS…`: the sandbox against native GNU bash.

use super::ConformanceArgs;
use super::EnvKind;
use anyhow::{Context, bail};
use intercode::conformance::{self, Native, Row};
use std::process::ExitCode;

pub fn conformance(args: ConformanceArgs) -> anyhow::Result<ExitCode> {
    if args.env != EnvKind::Bash {
        bail!(
            "conformance compares the bash env with GNU bash; SQL and Python have differential tests"
        );
    }
    let mut spec = args.source.spec(EnvKind::Bash)?;
    // Each command runs on a fresh copy of the tree, as the native side does: nothing is
    // carried from one command to the next (`--quirks upstream` keeps only its quoting).
    spec.upstream_reset = false;
    let mut env = spec.build_bash()?;
    let system_root = match args.reference_root {
        Some(dir) => dir,
        None if std::env::var_os("INTERCODE_REFERENCE_ROOT").is_some_and(|d| !d.is_empty()) => {
            conformance::reference_root()
        }
        None if conformance::is_system_root(&conformance::reference_root()) => {
            conformance::reference_root()
        }
        None => {
            eprintln!(
                "note: comparing with this host's tools; scripts/ubuntu-reference builds \
                 upstream's image, the reference the logs were written on"
            );
            "/".into()
        }
    };
    let native = Native {
        timeout: std::time::Duration::from_secs(args.source.timeout),
        system_root,
        ..Native::default()
    };
    println!("native reference: {}", native.reference());
    let mut reports = Vec::new();
    for path in &args.corpus {
        let text = std::fs::read_to_string(path)
            .with_context(|| format!("cannot read the corpus {}", path.display()))?;
        let commands = conformance::parse_corpus(&text);
        let name = path.file_name().map_or_else(
            || path.display().to_string(),
            |n| n.to_string_lossy().into_owned(),
        );
        let report = conformance::run(&mut env, &name, &commands, &native)?;
        if args.verbose {
            for row in report.rows.iter().filter(|r| !r.agree) {
                println!("DIFF {:?} {}", row.causes, row.command);
                println!(
                    "  ours   ({:?}): {:?}",
                    row.ours_status,
                    row.ours_output.chars().take(400).collect::<String>()
                );
                println!(
                    "  native ({:?}): {:?}",
                    row.native_status,
                    row.native_output.chars().take(400).collect::<String>()
                );
                if !row.files_differing.is_empty() {
                    println!("  files: {}", row.files_differing.join(" "));
                }
            }
        }
        reports.push(report);
    }
    for (i, report) in reports.iter().enumerate() {
        let table = report.table();
        // One header for all corpora.
        let text = if i == 0 {
            table
        } else {
            table.lines().skip(2).map(|l| format!("{l}\n")).collect()
        };
        print!("{text}");
    }
    let list = |heading: &str, pick: fn(&Row) -> bool| {
        let commands: Vec<&str> = reports
            .iter()
            .flat_map(|r| r.rows.iter().filter(|row| pick(row)))
            .map(|row| row.command.as_str())
            .collect();
        if !commands.is_empty() {
            println!("{heading}");
            for c in commands {
                println!("  {c}");
            }
        }
    };
    list(
        "compared as sets of lines (GNU's order depends on the filesystem):",
        |row| row.unordered,
    );
    list(
        "compared with GNU on a copy of the tree whose directories list their entries in the \
         order the sandbox walks them (GNU's answer depends on the listing order):",
        |row| row.in_our_listing_order,
    );
    if let Some(out) = &args.json {
        let json = serde_json::to_string_pretty(&reports)?;
        std::fs::write(out, json).with_context(|| format!("cannot write {}", out.display()))?;
    }
    Ok(ExitCode::SUCCESS)
}
