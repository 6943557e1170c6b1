//! Command-line interface: what the user typed (clap) turned into library calls. Nothing below
//! this module knows about clap.

mod download;
mod run;
mod shell;
mod sql;

use clap::{Args, Parser, Subcommand, ValueEnum};
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Debug, Parser)]
#[command(
    name = "intercode",
    version,
    about = "InterCode without Docker: bash, SQL and Python coding episodes in local sandboxes"
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Run an agent over a task set and print per-task rewards and a summary.
    Run(RunArgs),
    /// Play an episode yourself (reads commands from stdin when it is not a terminal).
    Shell(ShellArgs),
    /// Re-run the actions of upstream log files (each followed by a submit, as upstream's
    /// harness did) and compare every turn's reward with the logged one.
    Replay(ReplayArgs),
    /// Fetch the public data (upstream's task files and logs, Spider dev, MBPP) into the data
    /// directory, each file checked against its pinned git blob id.
    Download(DownloadArgs),
}

#[derive(Debug, Args)]
pub struct DownloadArgs {
    /// Where to put it; default `$INTERCODE_DATA_DIR`, else `../shared` (where every other
    /// command looks).
    #[arg(long)]
    pub data_dir: Option<PathBuf>,
    /// Only these groups, comma-separated: bash, sql, python, logs.
    #[arg(long, value_delimiter = ',')]
    pub only: Vec<String>,
    /// Serve the raw files from here instead of https://raw.githubusercontent.com
    /// (`BASE/owner/repo/commit/path`): a mirror or a proxy.
    #[arg(long)]
    pub base_url: Option<String>,
}

#[derive(Debug, Args)]
pub struct ReplayArgs {
    /// Upstream results files (`data/results/sql/**.json`).
    #[arg(required = true)]
    pub files: Vec<PathBuf>,
    #[command(flatten)]
    pub source: TaskSource,
}

#[derive(Debug, Clone, Copy, ValueEnum, PartialEq, Eq)]
pub enum EnvKind {
    Bash,
    Sql,
    Python,
}

#[derive(Debug, Clone, Copy, ValueEnum, PartialEq, Eq)]
pub enum AgentKind {
    /// The task's gold solution.
    Gold,
}

#[derive(Debug, Args)]
pub struct TaskSource {
    /// Task file (upstream's JSON format); default: the embedded fixtures.
    #[arg(long)]
    pub tasks: Option<PathBuf>,
    /// Bash: the file tree (.tar.gz); default: inferred for upstream's nl2bash_fs_N.json.
    #[arg(long)]
    pub fs: Option<PathBuf>,
    /// Bash: pin the sandbox clock, e.g. 2023-06-01T00:00:00Z (or seconds since the epoch).
    #[arg(long)]
    pub clock: Option<String>,
    /// Bash: keep shell variables and functions between actions.
    #[arg(long)]
    pub persistent: bool,
    /// Bash: reproduce upstream's broken `bash -c "…"` quoting (for score fidelity).
    #[arg(long)]
    pub upstream_quoting: bool,
    /// Seconds an action (bash command, SQL statement, Python cell) may run.
    #[arg(long, default_value_t = 10)]
    pub timeout: u64,
    /// SQL: which databases and tasks — fixtures, spider (Spider's SQLite files) or
    /// upstream-mysql (upstream's MySQL dump, converted: identical data to upstream's runs).
    #[arg(long, default_value = "fixtures")]
    pub data: String,
    /// Where the public data lives (upstream's task files, Spider, MBPP); default
    /// `$INTERCODE_DATA_DIR`, else `../shared`.
    #[arg(long)]
    pub data_dir: Option<PathBuf>,
    /// SQL: refuse statements that would write (checked by SQLite's authorizer).
    #[arg(long)]
    pub read_only: bool,
}

impl TaskSource {
    pub fn data_dir(&self) -> PathBuf {
        data_dir_or_default(self.data_dir.as_ref())
    }
}

/// `--data-dir`, else `$INTERCODE_DATA_DIR`, else `../shared`.
pub fn data_dir_or_default(given: Option<&PathBuf>) -> PathBuf {
    given
        .cloned()
        .or_else(|| std::env::var_os("INTERCODE_DATA_DIR").map(PathBuf::from))
        .unwrap_or_else(|| PathBuf::from("../shared"))
}

#[derive(Debug, Args)]
pub struct RunArgs {
    pub env: EnvKind,
    #[arg(long, value_enum, default_value_t = AgentKind::Gold)]
    pub agent: AgentKind,
    #[command(flatten)]
    pub source: TaskSource,
    /// One JSON object per episode on stdout instead of the table.
    #[arg(long)]
    pub json: bool,
    /// Only these task indices (e.g. 0,3,10-12).
    #[arg(long)]
    pub only: Option<String>,
    /// Also append each episode to this JSON Lines file (kept if the run is interrupted).
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Episodes run at once, each worker with its own env (results still print in task
    /// order). Default 1.
    #[arg(long, short = 'j', default_value_t = 1)]
    pub jobs: usize,
}

#[derive(Debug, Args)]
pub struct ShellArgs {
    pub env: EnvKind,
    /// Task index to play.
    #[arg(long, default_value_t = 0)]
    pub task: usize,
    #[command(flatten)]
    pub source: TaskSource,
}

pub fn run(cli: Cli) -> anyhow::Result<ExitCode> {
    match cli.command {
        Command::Run(args) => run::run(args),
        Command::Shell(args) => shell::shell(args),
        Command::Replay(args) => sql::replay(args),
        Command::Download(args) => download::download(args),
    }
}

/// Parses `0,3,10-12`.
pub fn parse_indices(spec: &str) -> anyhow::Result<Vec<usize>> {
    let mut out = Vec::new();
    for part in spec.split(',').filter(|p| !p.trim().is_empty()) {
        let part = part.trim();
        match part.split_once('-') {
            Some((a, b)) => {
                let (a, b): (usize, usize) = (a.parse()?, b.parse()?);
                anyhow::ensure!(a <= b, "bad range {part}");
                out.extend(a..=b);
            }
            None => out.push(part.parse()?),
        }
    }
    Ok(out)
}

/// Parses `--clock`: RFC 3339 UTC (`2023-06-01T00:00:00Z`), a date, or epoch seconds.
pub fn parse_clock(s: &str) -> anyhow::Result<intercode::sandbox::PinnedClock> {
    if let Ok(n) = s.parse::<i64>() {
        return Ok(intercode::sandbox::PinnedClock::at_unix(n));
    }
    let s = s.trim_end_matches('Z');
    let (date, time) = s.split_once('T').unwrap_or((s, "00:00:00"));
    let d: Vec<i64> = date.split('-').map(str::parse).collect::<Result<_, _>>()?;
    let t: Vec<i64> = time.split(':').map(str::parse).collect::<Result<_, _>>()?;
    anyhow::ensure!(
        d.len() == 3 && t.len() == 3,
        "expected YYYY-MM-DDTHH:MM:SSZ"
    );
    let days = days_from_civil(d[0], d[1], d[2]);
    Ok(intercode::sandbox::PinnedClock::at_unix(
        days * 86400 + t[0] * 3600 + t[1] * 60 + t[2],
    ))
}

/// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's algorithm).
fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = if y >= 0 { y } else { y - 399 } / 400;
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146097 + doe - 719468
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clock_parsing() {
        assert_eq!(
            parse_clock("2023-06-01T00:00:00Z").unwrap().unix_seconds(),
            1_685_577_600
        );
        assert_eq!(parse_clock("0").unwrap().unix_seconds(), 0);
        assert!(parse_clock("yesterday").is_err());
    }

    #[test]
    fn index_lists() {
        assert_eq!(parse_indices("0,3,10-12").unwrap(), [0, 3, 10, 11, 12]);
        assert!(parse_indices("3-1").is_err());
    }
}
