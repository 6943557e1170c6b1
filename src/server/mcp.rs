//! The MCP server: InterCode episodes as tools, for any MCP client (agent frameworks, IDEs,
//! chat apps), over stdio or Streamable HTTP.
//!
//! | tool | arguments | result |
//! | --- | --- | --- |
//! | `open_episode` | `env`, `task` (none: a free sandbox), `guard`, spec fields | `episode_id`, the task's `query` |
//! | `run` | `episode_id`, `action` | `observation`, `exit_status`, `truncated`, SQL `columns`/`rows`, Python `stderr`, `reward`, `done` |
//! | `list` | `episode_id`, `path` | bash: `ls -la` of the path; SQL: the tables and their columns |
//! | `read_file` | `episode_id`, `path` | the file as `cat` prints it in the sandbox |
//! | `evaluate` | `episode_id` | the reward now and its parts (the episode goes on) |
//! | `submit` | `episode_id`, `function_name` (Python) | the reward and its parts; a guard's critic may veto |
//! | `undo` | `episode_id`, `checkpoint` | back to before the last action, or to a checkpoint |
//! | `checkpoint` | `episode_id`, `name` | a named point to `undo` to |
//! | `close` | `episode_id` | frees the sandbox |
//!
//! Every tool but `open_episode` names its episode by id, so one connection can hold several
//! episodes and the HTTP transport needs no session. `list` and `read_file` run on a throwaway
//! copy of the episode: they add no turn and change nothing.
//!
//! Errors: a mistake the agent can fix (an unknown episode, a step after `submit`, a task
//! index out of range, a free sandbox asked to submit) is a tool result with `isError: true`
//! whose text says what to do and whose structured content is `{"error": {"kind",
//! "message"}}`. Arguments that do not fit a tool's schema also come back as an `isError`
//! result naming the field: rmcp keeps its own invalid-params errors in-band, as MCP
//! 2025-11-25 asks of input validation (so a model can correct itself). An unknown tool is a
//! protocol error, and so is a host failure (internal error).
//!
//! Protocol versions (what rmcp 3.11 does, read from its source): the server lists every
//! version rmcp knows, 2024-11-05 through 2026-07-28. A 2025-11-25 client (or older) opens with
//! the `initialize` handshake, which rmcp answers with the client's version when it is known
//! (at most 2025-11-25, the last revision with a handshake). A 2026-07-28 client skips the
//! handshake and sends the version and its capabilities in every request's `_meta` (probing
//! with `server/discover` first); rmcp serves those requests on both transports. Over HTTP
//! the server runs rmcp's stateless mode (`legacy_session_mode: false`): no `Mcp-Session-Id`
//! is ever issued, every POST is answered on its own (with plain JSON), a 2026-07-28 request
//! carries its version in the `MCP-Protocol-Version` header and `_meta`, and a 2025-11-25
//! client's `initialize` is answered without opening a session. Episode state lives in the
//! episode table, keyed by the `episode_id` argument, so nothing is lost between requests.

use super::episodes::{Listing, Started};
use super::{AppState, Failure, HttpOptions, ServerError};
use crate::env::{EnvKind, EnvSpec, Step};
use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::tool::IntoCallToolResult;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{CallToolResponse, CallToolResult, ContentBlock, ProtocolVersion};
use rmcp::transport::streamable_http_server::session::never::NeverSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use rmcp::{ErrorData, Json, ServerHandler, ServiceExt, tool, tool_handler, tool_router};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};
use std::borrow::Cow;
use std::path::PathBuf;
use std::sync::Arc;

/// The MCP server; cheap to clone (one per HTTP request in stateless mode).
#[derive(Clone)]
pub struct IntercodeMcp {
    state: AppState,
    tool_router: ToolRouter<IntercodeMcp>,
}

/// Which environment (`bash`, `sql`, `python`).
#[derive(Debug, Clone, Copy, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum EnvName {
    /// A bash shell over a file tree (the task's).
    Bash,
    /// A SQL database (SQLite, MySQL's `SHOW TABLES`/`DESCRIBE`/`USE` too).
    Sql,
    /// A Python interpreter (a REPL: each action is a cell).
    Python,
}

impl From<EnvName> for EnvKind {
    fn from(e: EnvName) -> EnvKind {
        match e {
            EnvName::Bash => EnvKind::Bash,
            EnvName::Sql => EnvKind::Sql,
            EnvName::Python => EnvKind::Python,
        }
    }
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct OpenEpisodeArgs {
    /// The environment: bash, sql or python.
    pub env: EnvName,
    /// The task to solve (0-based index into the task set). Omit it for a free sandbox: task
    /// 0's files or databases, no task shown, nothing to submit.
    #[serde(default)]
    pub task: Option<usize>,
    /// Guard this episode: SQL read-only with every statement linted, destructive bash
    /// commands refused until repeated, the server's critic asked before a submission.
    #[serde(default)]
    pub guard: Option<bool>,
    /// Task file on the server (upstream's format); default: the embedded fixtures.
    #[serde(default)]
    pub tasks: Option<String>,
    /// Bash: the file tree (`fs_N.effective.tar.gz`) for `tasks`.
    #[serde(default)]
    pub fs: Option<String>,
    /// SQL: fixtures, spider or upstream-mysql.
    #[serde(default)]
    pub sql_data: Option<String>,
    /// Where the public data lives on the server.
    #[serde(default)]
    pub data_dir: Option<String>,
    /// Seconds one action may run (default 10).
    #[serde(default)]
    pub timeout_secs: Option<u64>,
    /// Bash: pin the sandbox clock to these seconds since the epoch.
    #[serde(default)]
    pub clock: Option<i64>,
    /// Bash: keep shell variables and functions between actions.
    #[serde(default)]
    pub persistent: Option<bool>,
    /// Bash: upstream's `bash -c` quoting (score fidelity with upstream's logs).
    #[serde(default)]
    pub upstream_quoting: Option<bool>,
    /// SQL: refuse every statement that writes.
    #[serde(default)]
    pub read_only: Option<bool>,
}

impl OpenEpisodeArgs {
    fn spec(&self) -> Result<EnvSpec, ServerError> {
        let mut spec = EnvSpec::new(self.env.into());
        spec.tasks = self.tasks.as_ref().map(PathBuf::from);
        spec.fs = self.fs.as_ref().map(PathBuf::from);
        if let Some(data) = &self.sql_data {
            spec.sql_data = data.parse()?;
        }
        spec.data_dir = self.data_dir.as_ref().map(PathBuf::from);
        if let Some(t) = self.timeout_secs {
            spec.timeout_secs = t;
        }
        spec.clock = self.clock;
        spec.persistent = self.persistent.unwrap_or(false);
        spec.upstream_quoting = self.upstream_quoting.unwrap_or(false);
        spec.read_only = self.read_only.unwrap_or(false);
        Ok(spec)
    }
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct Opened {
    /// Pass this to every other tool.
    pub episode_id: String,
    pub env: EnvName,
    /// The task being solved; absent for a free sandbox.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub task_index: Option<usize>,
    /// What to do; absent for a free sandbox.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub query: Option<String>,
    /// Tasks in the task set.
    pub task_count: usize,
    pub guarded: bool,
    pub free_sandbox: bool,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct EpisodeArgs {
    /// From open_episode.
    pub episode_id: String,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RunArgs {
    /// From open_episode.
    pub episode_id: String,
    /// A bash command, a SQL statement or a Python cell. `submit` / `skip` end the episode.
    pub action: String,
}

/// One action's outcome.
#[derive(Debug, Serialize, JsonSchema)]
pub struct Ran {
    /// What the action printed (bash: stdout and stderr together, as a terminal shows them;
    /// SQL: the rows or the error; Python: the output and any traceback).
    pub observation: String,
    /// Bash: the command's exit status.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub exit_status: Option<i32>,
    /// The action ran without error (bash: exit 0; SQL: no error; Python: no exception).
    pub action_executed: bool,
    /// The output was cut to the sandbox's limit.
    pub truncated: bool,
    /// Python: the error output alone (the traceback), when there was one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stderr: Option<String>,
    /// SQL: the result's column names, when the statement returned rows.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub columns: Option<Vec<String>>,
    /// SQL: the result's rows.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rows: Option<Vec<Vec<Value>>>,
    /// 0 until the episode is submitted.
    pub reward: f64,
    /// The episode is over (`submit` or `skip`).
    pub done: bool,
    /// Set when the guard refused the action (nothing ran): which check (`sql_lint`,
    /// `destructive`, `critic`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub refused: Option<String>,
    /// Everything else the env reported (upstream's `info`, less the `columns` and `rows`
    /// given above: a large result is sent once).
    pub info: Map<String, Value>,
}

impl From<Step> for Ran {
    fn from(step: Step) -> Ran {
        let mut info = step.info_json();
        // The bash env marks a cut observation in its text (SQL says so in `info`).
        let bash_cut = step.observation.contains("\n[output truncated: ");
        let truncated = info.get("truncated").and_then(Value::as_bool) == Some(true) || bash_cut;
        let stderr = info
            .get("error")
            .and_then(Value::as_str)
            .filter(|e| !e.is_empty())
            .map(str::to_string);
        let refused = info
            .get("guard")
            .and_then(|g| g.get("refused"))
            .and_then(Value::as_str)
            .map(str::to_string);
        Ran {
            columns: info
                .remove("columns")
                .and_then(|c| serde_json::from_value(c).ok()),
            rows: info
                .remove("rows")
                .and_then(|r| serde_json::from_value(r).ok()),
            truncated,
            stderr,
            refused,
            observation: step.observation,
            exit_status: step.exit_status,
            action_executed: step.action_executed,
            reward: step.reward,
            done: step.done,
            info,
        }
    }
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ListArgs {
    /// From open_episode.
    pub episode_id: String,
    /// Bash: the directory (or file) to list; default the shell's working directory. Ignored
    /// for SQL.
    #[serde(default)]
    pub path: Option<String>,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct Table {
    pub name: String,
    pub columns: Vec<String>,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct Listed {
    /// Bash: the path listed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    /// Bash: `ls -la` of the path.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub listing: Option<String>,
    /// Bash: `ls`'s exit status (non-zero: no such path).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub exit_status: Option<i32>,
    pub truncated: bool,
    /// SQL: the task database's tables and their columns.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tables: Option<Vec<Table>>,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ReadFileArgs {
    /// From open_episode.
    pub episode_id: String,
    /// The file, absolute or relative to the shell's working directory.
    pub path: String,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct FileRead {
    pub path: String,
    /// The file's text as `cat` printed it (with `cat`'s error when it could not be read).
    pub content: String,
    /// `cat`'s exit status (non-zero: not readable).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub exit_status: Option<i32>,
    pub truncated: bool,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct Scored {
    /// 1.0 is solved.
    pub reward: f64,
    /// The reward's parts.
    pub info: Map<String, Value>,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SubmitArgs {
    /// From open_episode.
    pub episode_id: String,
    /// Python: the function to test (default: the latest one defined).
    #[serde(default)]
    pub function_name: Option<String>,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct Submitted {
    /// 1.0 is solved; 0 when the submission was vetoed.
    pub reward: f64,
    /// False when the guard's critic vetoed the submission: the episode goes on.
    pub done: bool,
    pub vetoed: bool,
    /// The last observation, or the critic's message when vetoed.
    pub observation: String,
    /// The reward's parts.
    pub info: Map<String, Value>,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct UndoArgs {
    /// From open_episode.
    pub episode_id: String,
    /// A checkpoint's name; omit it to undo the last action.
    #[serde(default)]
    pub checkpoint: Option<String>,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct Undone {
    /// Actions the episode has now.
    pub turns: usize,
    /// What it went back to: `last action` or the checkpoint's name.
    pub restored: String,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CheckpointArgs {
    /// From open_episode.
    pub episode_id: String,
    /// A name to undo to later (an existing one is replaced).
    pub name: String,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct Saved {
    pub name: String,
    /// Actions the episode had when saved.
    pub turns: usize,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct Closed {
    pub episode_id: String,
    /// Actions the episode had.
    pub turns: usize,
}

/// A tool's failure: shown to the agent (`isError`), or a protocol error for a host fault.
#[derive(Debug)]
pub struct ToolFailure(ServerError);

impl From<ServerError> for ToolFailure {
    fn from(e: ServerError) -> Self {
        ToolFailure(e)
    }
}

impl From<crate::Error> for ToolFailure {
    fn from(e: crate::Error) -> Self {
        ToolFailure(e.into())
    }
}

impl IntoCallToolResult for ToolFailure {
    fn into_call_tool_result(self) -> Result<CallToolResponse, ErrorData> {
        let failure = self.0.failure();
        let message = self.0.to_string();
        if failure == Failure::Host {
            tracing::error!("{message}");
            return Err(ErrorData::internal_error(message, None));
        }
        let mut result = CallToolResult::error(vec![ContentBlock::text(message.clone())]);
        result.structured_content =
            Some(json!({"error": {"kind": failure.name(), "message": message}}));
        Ok(result.into())
    }
}

#[tool_router]
impl IntercodeMcp {
    pub fn new(state: AppState) -> IntercodeMcp {
        IntercodeMcp {
            state,
            tool_router: Self::tool_router(),
        }
    }

    /// Opens an episode: a task of the bash, SQL or Python environment in a fresh sandbox
    /// (or, without `task`, a free sandbox). Returns the `episode_id` the other tools take and
    /// the task's query.
    #[tool]
    async fn open_episode(
        &self,
        Parameters(args): Parameters<OpenEpisodeArgs>,
    ) -> Result<Json<Opened>, ToolFailure> {
        let spec = args.spec()?;
        let table = &self.state.episodes;
        let id = table.open(spec, args.guard.unwrap_or(false)).await?;
        let task = args.task;
        let started = table
            .with(&id, move |ep| Ok((ep.start(task)?, ep.guarded())))
            .await;
        let (started, guarded): (Started, bool) = match started {
            Ok(s) => s,
            Err(e) => {
                // Not started (a task index out of range): nothing to keep open.
                let _ = table.close(&id).await;
                return Err(e.into());
            }
        };
        Ok(Json(Opened {
            episode_id: id,
            env: args.env,
            free_sandbox: started.task_index.is_none(),
            task_index: started.task_index,
            query: started.query,
            task_count: started.task_count,
            guarded,
        }))
    }

    /// Runs one action in the episode: a bash command, a SQL statement or a Python cell, and
    /// returns what it printed. `submit` and `skip` end the episode (prefer the submit tool).
    #[tool]
    async fn run(&self, Parameters(args): Parameters<RunArgs>) -> Result<Json<Ran>, ToolFailure> {
        let action = args.action;
        let step = self
            .state
            .episodes
            .with(&args.episode_id, move |ep| ep.run(&action))
            .await?;
        Ok(Json(step.into()))
    }

    /// Lists the episode's files (bash: `ls -la` of a path) or tables (SQL: each table and
    /// its columns). Adds no turn and changes nothing.
    #[tool(annotations(read_only_hint = true))]
    async fn list(
        &self,
        Parameters(args): Parameters<ListArgs>,
    ) -> Result<Json<Listed>, ToolFailure> {
        let path = args.path;
        let listing = self
            .state
            .episodes
            .with(&args.episode_id, move |ep| ep.list(path.as_deref()))
            .await?;
        Ok(Json(match listing {
            Listing::Files {
                path,
                text,
                exit_status,
                truncated,
            } => Listed {
                path: Some(path),
                listing: Some(text),
                exit_status,
                truncated,
                tables: None,
            },
            Listing::Tables(tables) => Listed {
                path: None,
                listing: None,
                exit_status: None,
                truncated: false,
                tables: Some(
                    tables
                        .into_iter()
                        .map(|(name, columns)| Table { name, columns })
                        .collect(),
                ),
            },
        }))
    }

    /// Reads a file of a bash episode. Adds no turn and changes nothing.
    #[tool(annotations(read_only_hint = true))]
    async fn read_file(
        &self,
        Parameters(args): Parameters<ReadFileArgs>,
    ) -> Result<Json<FileRead>, ToolFailure> {
        let path = args.path.clone();
        let read = self
            .state
            .episodes
            .with(&args.episode_id, move |ep| ep.read_file(&path))
            .await?;
        Ok(Json(FileRead {
            path: args.path,
            content: read.content,
            exit_status: read.exit_status,
            truncated: read.truncated,
        }))
    }

    /// Scores the episode as submit would, without ending it.
    #[tool(annotations(read_only_hint = true))]
    async fn evaluate(
        &self,
        Parameters(args): Parameters<EpisodeArgs>,
    ) -> Result<Json<Scored>, ToolFailure> {
        let evaluation = self
            .state
            .episodes
            .with(&args.episode_id, |ep| ep.evaluate())
            .await?;
        Ok(Json(Scored {
            reward: evaluation.reward,
            info: evaluation.info,
        }))
    }

    /// Submits the episode: ends it and returns the reward (1.0 is solved) and its parts. In a
    /// guarded episode a critic may veto; then `done` is false and the episode goes on.
    #[tool]
    async fn submit(
        &self,
        Parameters(args): Parameters<SubmitArgs>,
    ) -> Result<Json<Submitted>, ToolFailure> {
        let name = args.function_name;
        let step = self
            .state
            .episodes
            .with(&args.episode_id, move |ep| ep.submit(name.as_deref()))
            .await?;
        Ok(Json(Submitted {
            reward: step.reward,
            done: step.done,
            vetoed: !step.done,
            observation: step.observation,
            info: step.info,
        }))
    }

    /// Takes back the last action (its files, database or interpreter state and its turn),
    /// or goes back to a named checkpoint.
    #[tool]
    async fn undo(
        &self,
        Parameters(args): Parameters<UndoArgs>,
    ) -> Result<Json<Undone>, ToolFailure> {
        let name = args.checkpoint.clone();
        let turns = self
            .state
            .episodes
            .with(&args.episode_id, move |ep| ep.undo(name.as_deref()))
            .await?;
        Ok(Json(Undone {
            turns,
            restored: args.checkpoint.unwrap_or_else(|| "last action".into()),
        }))
    }

    /// Saves the episode's state under a name, to undo to later.
    #[tool]
    async fn checkpoint(
        &self,
        Parameters(args): Parameters<CheckpointArgs>,
    ) -> Result<Json<Saved>, ToolFailure> {
        let name = args.name.clone();
        let turns = self
            .state
            .episodes
            .with(&args.episode_id, move |ep| ep.checkpoint(&name))
            .await?;
        Ok(Json(Saved {
            name: args.name,
            turns,
        }))
    }

    /// Closes the episode and frees its sandbox.
    #[tool]
    async fn close(
        &self,
        Parameters(args): Parameters<EpisodeArgs>,
    ) -> Result<Json<Closed>, ToolFailure> {
        let turns = self.state.episodes.close(&args.episode_id).await?;
        Ok(Json(Closed {
            episode_id: args.episode_id,
            turns,
        }))
    }
}

#[tool_handler(
    router = self.tool_router,
    name = "intercode",
    instructions = "InterCode episodes in local sandboxes. open_episode (env bash, sql or \
        python, a task index) gives an episode_id and the task's query; run actions (bash \
        commands, SQL statements, Python cells) with run, look around with list and \
        read_file, take an action back with undo, and submit when done: the reward is 1.0 \
        when the task is solved. close frees the sandbox."
)]
impl ServerHandler for IntercodeMcp {
    /// Every revision rmcp knows, up to 2026-07-28 (see the module docs for how each is
    /// served).
    fn supported_protocol_versions(&self) -> Cow<'static, [ProtocolVersion]> {
        Cow::Borrowed(ProtocolVersion::known_up_to(&ProtocolVersion::V_2026_07_28))
    }
}

/// Serves MCP over this process's stdin/stdout until the client closes them.
pub async fn serve_stdio(state: AppState) -> Result<(), ServerError> {
    let running = IntercodeMcp::new(state)
        .serve(rmcp::transport::stdio())
        .await
        .map_err(|e| ServerError::Transport(e.to_string()))?;
    running
        .waiting()
        .await
        .map_err(|e| ServerError::Transport(e.to_string()))?;
    Ok(())
}

/// MCP's Streamable HTTP endpoint (mount it at `/mcp`), stateless.
pub fn http_service(
    state: AppState,
    options: &HttpOptions,
) -> StreamableHttpService<IntercodeMcp, NeverSessionManager> {
    let server = IntercodeMcp::new(state);
    let mut config = StreamableHttpServerConfig::default()
        .with_legacy_session_mode(false)
        // Plain JSON answers: no tool here sends progress or asks the client anything.
        .with_json_response(true)
        .with_sse_keep_alive(None);
    if options.allow_remote {
        // rmcp's Host check assumes a loopback server; the user bound elsewhere on purpose.
        config = config.disable_allowed_hosts();
    }
    StreamableHttpService::new(
        move || Ok(server.clone()),
        Arc::new(NeverSessionManager::default()),
        config,
    )
}
