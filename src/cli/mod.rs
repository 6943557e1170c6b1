//! Command-line interface: what the user typed (clap) turned into library calls. Nothing below
//! this module knows about clap.

mod agent;
mod chat;
mod conformance;
mod download;
mod human;
mod progress;
mod replay;
mod run;
mod runs;
#[cfg(feature = "server")]
mod server;
mod shell;
mod sql;

use anyhow::Context;
use clap::{Args, Parser, Subcommand, ValueEnum};
use intercode::env::EnvSpec;
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
    /// Run an agent (gold, replay, human, or a chat model) over a task set: one line per
    /// episode, a summary, and with --out a run directory that --resume, merge, report and
    /// export read.
    Run(Box<RunArgs>),
    /// Play an episode yourself: `run --agent human` on one task.
    Shell(ShellArgs),
    /// Re-run the actions of upstream's log files (bash, SQL, Python) as upstream's harness ran
    /// them and compare every turn's reward with the logged one (bash: with --quirks upstream).
    Replay(ReplayArgs),
    /// Fetch the public data (upstream's task files and logs, Spider dev, MBPP) into the data
    /// directory, each file checked against its pinned git blob id.
    Download(DownloadArgs),
    /// Merge the shards of one run (`run --shard i/n --out DIR`) into one run directory.
    Merge(MergeArgs),
    /// Metrics of one or more runs side by side; `--html FILE` writes a self-contained report.
    Report(ReportArgs),
    /// Write a run's trajectories in upstream's log format or as ATIF.
    Export(ExportArgs),
    /// Run each command of corpus files in the sandbox and in native GNU bash (bubblewrap,
    /// the tree bound at `/`), on fresh copies of the same tree, and compare output, exit
    /// status and the resulting files.
    Conformance(ConformanceArgs),
    /// Serve episodes as MCP tools: over stdio (for a client that launches this command), or
    /// Streamable HTTP at http://ADDR/mcp with --http.
    #[cfg(feature = "server")]
    Mcp(McpArgs),
    /// Serve the HTTP gym API (POST /envs, reset, step, evaluate; GET /openapi.json) and MCP
    /// at /mcp on one address.
    #[cfg(feature = "server")]
    Serve(ServeArgs),
}

#[cfg(feature = "server")]
#[derive(Debug, Args)]
pub struct McpArgs {
    /// Serve Streamable HTTP at http://ADDR/mcp instead of stdio, e.g. 127.0.0.1:8765 (port 0
    /// picks a free port; the address is printed on stderr).
    #[arg(long, value_name = "ADDR")]
    pub http: Option<String>,
    #[command(flatten)]
    pub server: ServerArgs,
}

#[cfg(feature = "server")]
#[derive(Debug, Args)]
pub struct ServeArgs {
    /// The address to listen on (port 0 picks a free port; the address is printed on stderr).
    #[arg(long, value_name = "ADDR", default_value = "127.0.0.1:8080")]
    pub http: String,
    #[command(flatten)]
    pub server: ServerArgs,
}

/// What `mcp` and `serve` share.
#[cfg(feature = "server")]
#[derive(Debug, Args)]
pub struct ServerArgs {
    /// Allow listening on an address other than loopback (every client that reaches it can
    /// run sandboxes and read the server's task files).
    #[arg(long)]
    pub allow_remote: bool,
    /// Guard every episode: SQL read-only with every statement linted, destructive bash
    /// commands refused until repeated, the critic asked before each submission.
    #[arg(long)]
    pub guard: bool,
    /// A critic for guarded episodes: a program (with its arguments, shell-quoted) that gets
    /// the trajectory as JSON on stdin before a submission and vetoes it by exiting non-zero
    /// (its stdout is shown to the agent).
    #[arg(long, value_name = "CMD", conflicts_with = "critic_url")]
    pub critic_cmd: Option<String>,
    /// A critic for guarded episodes behind HTTP: the trajectory is POSTed as JSON and the
    /// answer `{"veto": true, "message": "..."}` vetoes.
    #[arg(long, value_name = "URL")]
    pub critic_url: Option<String>,
    /// Episodes open at once.
    #[arg(long, default_value_t = 128)]
    pub max_episodes: usize,
    /// Seconds an episode may sit unused before it is closed.
    #[arg(long, default_value_t = 1800)]
    pub idle_timeout: u64,
    /// Refuse new episodes while the server's resident memory is above this many MiB.
    #[arg(long, value_name = "MIB")]
    pub max_memory_mb: Option<u64>,
}

#[derive(Debug, Args)]
pub struct ConformanceArgs {
    /// Only `bash` is compared (SQL and Python have their own differential tests).
    pub env: EnvKind,
    /// Corpus files: one command per line, `#` comments.
    #[arg(required = true)]
    pub corpus: Vec<PathBuf>,
    #[command(flatten)]
    pub source: TaskSource,
    /// Write every command's comparison as JSON here.
    #[arg(long)]
    pub json: Option<PathBuf>,
    /// Print every disagreement (command, both outputs and statuses).
    #[arg(long)]
    pub verbose: bool,
    /// The system native bash runs on: a root file system (its /usr, /bin, /lib… and the tools'
    /// /etc configuration), `/` for this host. Default `$INTERCODE_REFERENCE_ROOT`, else
    /// upstream's image as `scripts/ubuntu-reference` builds it in
    /// ~/.cache/intercode-ubuntu-22.04 when that exists, else this host.
    #[arg(long, value_name = "DIR")]
    pub reference_root: Option<PathBuf>,
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
    /// Upstream results files (`data/results/{bash,sql,python}/**.json`).
    #[arg(required = true)]
    pub files: Vec<PathBuf>,
    #[command(flatten)]
    pub source: TaskSource,
    /// Replay behind the guard (SQL lint, destructive-action gate) and count what it refused.
    #[arg(long)]
    pub guard: bool,
    /// Write every bash turn whose reward differed to FILE, one JSON object per line: cause,
    /// task, turn, action, both rewards and observations, both golds' outputs.
    #[arg(long, value_name = "FILE")]
    pub mismatches: Option<PathBuf>,
}

#[derive(Debug, Args)]
pub struct MergeArgs {
    /// The shards' run directories.
    #[arg(required = true)]
    pub dirs: Vec<PathBuf>,
    /// The merged run directory (new).
    #[arg(long)]
    pub out: PathBuf,
}

#[derive(Debug, Args)]
pub struct ReportArgs {
    /// Run directories, shown side by side.
    #[arg(required = true)]
    pub dirs: Vec<PathBuf>,
    /// Also write one self-contained HTML report here.
    #[arg(long)]
    pub html: Option<PathBuf>,
    /// Prices per model for the cost figures: a JSON file
    /// `{"model": {"input_per_mtok": 2.5, "output_per_mtok": 10}}`.
    #[arg(long)]
    pub prices: Option<PathBuf>,
    /// Print the metrics as JSON instead of the table.
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Clone, Copy, ValueEnum, PartialEq, Eq)]
pub enum ExportFormat {
    /// Upstream InterCode's results format (`turn_history`, `summary`), one JSON file.
    Upstream,
    /// Agent Trajectory Interchange Format (ATIF-v1.8), one JSON array of trajectories.
    Atif,
}

#[derive(Debug, Args)]
pub struct ExportArgs {
    /// The run directory.
    pub dir: PathBuf,
    #[arg(long, value_enum)]
    pub format: ExportFormat,
    /// Output file.
    #[arg(long)]
    pub out: PathBuf,
}

#[derive(Debug, Clone, Copy, ValueEnum, PartialEq, Eq)]
pub enum EnvKind {
    Bash,
    Sql,
    Python,
}

impl From<EnvKind> for intercode::env::EnvKind {
    fn from(k: EnvKind) -> Self {
        match k {
            EnvKind::Bash => intercode::env::EnvKind::Bash,
            EnvKind::Sql => intercode::env::EnvKind::Sql,
            EnvKind::Python => intercode::env::EnvKind::Python,
        }
    }
}

#[derive(Debug, Clone, Copy, ValueEnum, PartialEq, Eq)]
pub enum AgentKind {
    /// The task's gold solution.
    Gold,
    /// Actions recorded earlier (`--from`: one of our run directories).
    Replay,
    /// You, at the terminal (line editing, history; multi-line actions).
    Human,
    /// A chat model behind any OpenAI-compatible endpoint (`--base-url`, `--model`).
    Chat,
}

/// Which harness's behaviour to copy (`--quirks`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Quirks {
    /// Upstream InterCode's bash harness.
    Upstream,
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
    /// Bash: reproduce upstream's broken `bash -c "…"` quoting and its `cd` handling (for score fidelity).
    #[arg(long)]
    pub upstream_quoting: bool,
    /// Bash: `upstream` behaves as upstream's harness did, for comparing with its results:
    /// its quoting and `cd` (as --upstream-quoting), and its reset between tasks, where one
    /// tree lives for the whole run and only what git tracks is put back.
    #[arg(long, value_enum)]
    pub quirks: Option<Quirks>,
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
    /// What the user typed, as the library's env spec (the one place this happens).
    pub fn spec(&self, env: EnvKind) -> anyhow::Result<EnvSpec> {
        Ok(EnvSpec {
            env: env.into(),
            tasks: self.tasks.clone(),
            fs: self.fs.clone(),
            sql_data: self.data.parse()?,
            data_dir: self.data_dir.clone(),
            timeout_secs: self.timeout,
            clock: self
                .clock
                .as_deref()
                .map(parse_clock)
                .transpose()?
                .map(|c| i64::try_from(c.unix_seconds()).unwrap_or(i64::MAX)),
            persistent: self.persistent,
            upstream_quoting: self.upstream_quoting || self.quirks == Some(Quirks::Upstream),
            upstream_reset: self.quirks == Some(Quirks::Upstream),
            read_only: self.read_only,
        })
    }
}

/// `--data-dir`, else `$INTERCODE_DATA_DIR`, else `../shared`.
pub fn data_dir_or_default(given: Option<&PathBuf>) -> PathBuf {
    EnvSpec {
        data_dir: given.cloned(),
        ..EnvSpec::default()
    }
    .data_dir()
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
    /// Write the run into this directory (new): manifest.json and episodes.jsonl, one line
    /// per episode as it ends.
    #[arg(long, conflicts_with = "resume")]
    pub out: Option<PathBuf>,
    /// Finish the run in this directory: episodes already recorded are not run again.
    #[arg(long)]
    pub resume: Option<PathBuf>,
    /// Run only part i of n of the tasks (`0/4`); merge the parts with `intercode merge`.
    #[arg(long)]
    pub shard: Option<String>,
    /// Episodes run at once, each worker with its own env (results still print in task
    /// order). Default 1.
    #[arg(long, short = 'j', default_value_t = 1)]
    pub jobs: usize,
    /// Actions per episode before the harness submits.
    #[arg(long, default_value_t = 10)]
    pub max_turns: usize,
    /// Replay: the run directory (or upstream results file) whose actions are replayed.
    #[arg(long = "from")]
    pub from: Option<PathBuf>,
    /// The guarded mode: SQL episodes read-only and every statement linted, destructive bash
    /// commands refused until confirmed, and `--critic-cmd` asked before each submission.
    #[arg(long)]
    pub guard: bool,
    /// With --guard: a program that gets the trajectory (JSON on stdin) before a submission
    /// and vetoes it by exiting non-zero (its stdout is shown to the agent).
    #[arg(long)]
    pub critic_cmd: Option<String>,
    #[command(flatten)]
    pub chat: ChatArgs,
}

#[derive(Debug, Args)]
pub struct ChatArgs {
    /// Chat: the endpoint's base URL (POST BASE/chat/completions), e.g.
    /// http://127.0.0.1:8000/v1 for vLLM or llama.cpp, http://127.0.0.1:11434/v1 for Ollama.
    #[arg(long)]
    pub base_url: Option<String>,
    /// Chat: the model name the endpoint knows.
    #[arg(long)]
    pub model: Option<String>,
    /// Chat: the environment variable holding the API key (read once; never written to a
    /// file or a log).
    #[arg(long, default_value = "OPENAI_API_KEY")]
    pub api_key_env: String,
    /// Chat: how the model is prompted: single-turn, try-again, react, plan-solve, tools.
    #[arg(long, default_value = "try-again")]
    pub strategy: String,
    /// Chat: a directory of prompt templates overriding the built-in ones (same file names).
    #[arg(long)]
    pub prompts: Option<PathBuf>,
    /// Chat: messages kept besides the first two (default per env: bash 7, SQL 5, python 7).
    #[arg(long)]
    pub window: Option<usize>,
    /// Chat: plan-solve's refine turns after the plan.
    #[arg(long, default_value_t = 0)]
    pub refine_turns: usize,
    /// Chat (SQL): show the database's tables and columns in the prompt (upstream's handicap).
    #[arg(long)]
    pub handicap: bool,
    #[arg(long, default_value_t = 0.0)]
    pub temperature: f64,
    #[arg(long, default_value_t = 512)]
    pub max_tokens: u32,
    #[arg(long)]
    pub seed: Option<u64>,
    /// Chat: seconds one request may take before it is retried.
    #[arg(long, default_value_t = 120)]
    pub request_timeout: u64,
    /// Chat: retries of a failed request (429, 5xx, connection errors, malformed replies).
    #[arg(long, default_value_t = 4)]
    pub retries: u32,
    /// Chat: requests in flight at once across all workers.
    #[arg(long, default_value_t = 4)]
    pub max_concurrent: usize,
}

#[derive(Debug, Args)]
pub struct ShellArgs {
    pub env: EnvKind,
    /// Task index to play.
    #[arg(long, default_value_t = 0)]
    pub task: usize,
    #[command(flatten)]
    pub source: TaskSource,
    /// Actions before the episode is submitted for you.
    #[arg(long, default_value_t = 1000)]
    pub max_turns: usize,
}

pub fn run(cli: Cli) -> anyhow::Result<ExitCode> {
    match cli.command {
        Command::Run(args) => run::run(*args),
        Command::Shell(args) => shell::shell(args),
        Command::Replay(args) => sql::replay(args),
        Command::Download(args) => download::download(args),
        Command::Merge(args) => runs::merge(args),
        Command::Report(args) => runs::report(args),
        Command::Export(args) => runs::export(args),
        Command::Conformance(args) => conformance::conformance(args),
        #[cfg(feature = "server")]
        Command::Mcp(args) => server::mcp(args),
        #[cfg(feature = "server")]
        Command::Serve(args) => server::serve(args),
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
    clock_from_text(s).with_context(|| {
        format!("--clock {s:?}: expected YYYY-MM-DDTHH:MM:SSZ, a date (YYYY-MM-DD) or seconds since the epoch")
    })
}

fn clock_from_text(s: &str) -> anyhow::Result<intercode::sandbox::PinnedClock> {
    use chrono::{NaiveDate, NaiveDateTime};
    if let Ok(n) = s.parse::<i64>() {
        return Ok(intercode::sandbox::PinnedClock::at_unix(n));
    }
    let s = s.strip_suffix('Z').unwrap_or(s);
    let when = match NaiveDateTime::parse_from_str(s, "%Y-%m-%dT%H:%M:%S") {
        Ok(when) => when,
        Err(_) => NaiveDate::parse_from_str(s, "%Y-%m-%d")?.and_time(chrono::NaiveTime::MIN),
    };
    Ok(intercode::sandbox::PinnedClock::at_unix(
        when.and_utc().timestamp(),
    ))
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
        let err = format!("{:#}", parse_clock("yesterday").unwrap_err());
        assert!(err.starts_with("--clock \"yesterday\": expected"), "{err}");
        assert!(parse_clock("2023-06-01T00:00").is_err());
        assert_eq!(
            parse_clock("2023-06-01").unwrap().unix_seconds(),
            1_685_577_600
        );
        assert_eq!(
            parse_clock("2023-06-01T12:34:56").unwrap().unix_seconds(),
            1_685_622_896
        );
        assert!(parse_clock("2023-02-30").is_err());
    }

    #[test]
    fn index_lists() {
        assert_eq!(parse_indices("0,3,10-12").unwrap(), [0, 3, 10, 11, 12]);
        assert!(parse_indices("3-1").is_err());
    }
}
