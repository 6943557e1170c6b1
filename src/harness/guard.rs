//! The guarded mode (`intercode run --guard`, `intercode mcp --guard`): an env wrapped so that
//! destructive actions are stopped before they happen and a submission can be vetoed.
//!
//! * **SQL lint** — every statement is parsed by a real SQL parser (`sqlparser`, SQLite's
//!   dialect, then MySQL's); a guarded SQL episode is read-only and takes exactly one
//!   statement that only reads (`SELECT`, a `WITH` of selects, `SHOW`, `DESCRIBE`,
//!   `EXPLAIN` of a read, `USE`). Anything else is refused with the reason, before it reaches
//!   the database: `SELECT 1; COMMIT; DROP …` (stacked), `PRAGMA writable_schema`, `ATTACH`,
//!   `VACUUM INTO`, a CTE wrapping DML. A statement the parser cannot read is passed on: the
//!   episode is also opened read-only, so SQLite's authorizer still refuses any write.
//! * **Destructive-action gate** (bash) — each command first runs on a throwaway copy of the
//!   episode ([`Env::dry_run`]); if it would delete or truncate files the task started with,
//!   it is refused with an observation naming them, unless the agent sends the same command
//!   again right after, as confirmation.
//! * **Critic** — before `submit`, a user-given command or HTTP endpoint gets the trajectory
//!   and may veto the submission with a message the agent sees; the episode goes on.
//!
//! Refusals come back as an ordinary step (`action_executed: false`, `done: false`) whose
//! observation starts with `refused by the guard:` and whose `info["guard"]` says which check
//! refused; nothing was executed.

use crate::data::trajectory::TurnRecord;
use crate::env::{Checkpoint, DryRun, Env, EnvKind, Evaluation, Keyword, Reset, Step, TaskInfo};
use serde_json::{Map, Value, json};
use sqlparser::ast::{Query, SetExpr, Statement};
use sqlparser::dialect::{MySqlDialect, SQLiteDialect};
use sqlparser::parser::Parser;
use std::time::Duration;

/// Which checks run.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct GuardOptions {
    pub sql_lint: bool,
    pub gate: bool,
    pub critic: Option<Critic>,
}

impl GuardOptions {
    /// Every check, with an optional critic.
    pub fn all(critic: Option<Critic>) -> GuardOptions {
        GuardOptions {
            sql_lint: true,
            gate: true,
            critic,
        }
    }
}

/// Who reviews a submission.
#[derive(Debug, Clone, PartialEq)]
pub enum Critic {
    /// A program (argv): the trajectory as JSON on stdin; exit 0 accepts, anything else
    /// vetoes with its stdout as the message to the agent.
    Command(Vec<String>),
    /// An HTTP endpoint: the trajectory POSTed as JSON; it answers
    /// `{"veto": bool, "message": "..."}`.
    Http(String),
}

/// How long a critic may take before its silence counts as acceptance (a hung critic must not
/// hang the run).
const CRITIC_TIMEOUT: Duration = Duration::from_secs(60);

impl Critic {
    /// `Ok(Some(message))` vetoes; `Err` is the critic's own failure (treated as acceptance,
    /// and reported in the step's info).
    pub fn review(&self, trajectory: &Value) -> Result<Option<String>, String> {
        match self {
            Critic::Command(argv) => review_by_command(argv, trajectory),
            Critic::Http(url) => review_by_http(url, trajectory),
        }
    }
}

fn review_by_command(argv: &[String], trajectory: &Value) -> Result<Option<String>, String> {
    use std::io::Write;
    let (program, args) = argv.split_first().ok_or("the critic command is empty")?;
    let mut child = std::process::Command::new(program)
        .args(args)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .map_err(|e| format!("critic {program}: {e}"))?;
    if let Some(mut stdin) = child.stdin.take() {
        // A critic that does not read its input is allowed: ignore a broken pipe.
        let _ = stdin.write_all(trajectory.to_string().as_bytes());
    }
    let started = std::time::Instant::now();
    loop {
        match child.try_wait() {
            Ok(Some(_)) => break,
            Ok(None) if started.elapsed() > CRITIC_TIMEOUT => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(format!(
                    "critic {program} took longer than {CRITIC_TIMEOUT:?}"
                ));
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(5)),
            Err(e) => return Err(format!("critic {program}: {e}")),
        }
    }
    let out = child
        .wait_with_output()
        .map_err(|e| format!("critic {program}: {e}"))?;
    if out.status.success() {
        Ok(None)
    } else {
        let message = String::from_utf8_lossy(&out.stdout).trim().to_string();
        Ok(Some(if message.is_empty() {
            "the critic rejected this submission".to_string()
        } else {
            message
        }))
    }
}

#[cfg(feature = "http")]
fn review_by_http(url: &str, trajectory: &Value) -> Result<Option<String>, String> {
    let body = ureq::post(url)
        .timeout(CRITIC_TIMEOUT)
        .set("Content-Type", "application/json")
        .send_string(&trajectory.to_string())
        .map_err(|e| format!("critic {url}: {e}"))?
        .into_string()
        .map_err(|e| format!("critic {url}: {e}"))?;
    let reply: Value =
        serde_json::from_str(&body).map_err(|e| format!("critic {url}: not JSON: {e}"))?;
    if reply.get("veto").and_then(Value::as_bool) == Some(true) {
        let message = reply.get("message").and_then(Value::as_str).unwrap_or("");
        Ok(Some(if message.is_empty() {
            "the critic rejected this submission".to_string()
        } else {
            message.to_string()
        }))
    } else {
        Ok(None)
    }
}

#[cfg(not(feature = "http"))]
fn review_by_http(url: &str, _trajectory: &Value) -> Result<Option<String>, String> {
    Err(format!("critic {url}: built without the `http` feature"))
}

/// Why the lint refuses a SQL action, or `Ok` when it may run.
pub fn lint_read_only(sql: &str) -> Result<(), String> {
    let statements = match Parser::parse_sql(&SQLiteDialect {}, sql)
        .or_else(|_| Parser::parse_sql(&MySqlDialect {}, sql))
    {
        Ok(s) => s,
        // Unreadable to the parser (SQLite syntax it does not know): judged by its first
        // keyword, as the tokenizer reads it (comments skipped); the read-only database
        // still refuses any write that slips through.
        Err(_) => return first_keyword_reads(sql),
    };
    match statements.as_slice() {
        [] => Err("there is no statement".into()),
        [one] => statement_reads_only(one),
        many => Err(format!(
            "one statement per action, and this has {}: stacked statements are refused",
            many.len()
        )),
    }
}

/// Keywords that start a statement that only reads.
const READ_KEYWORDS: [&str; 8] = [
    "SELECT", "WITH", "SHOW", "DESCRIBE", "DESC", "EXPLAIN", "USE", "VALUES",
];

fn first_keyword_reads(sql: &str) -> Result<(), String> {
    use sqlparser::tokenizer::{Token, Tokenizer};
    let tokens = Tokenizer::new(&SQLiteDialect {}, sql)
        .tokenize()
        .map_err(|e| format!("the statement cannot be read: {e}"))?;
    let first = tokens.iter().find_map(|t| match t {
        Token::Whitespace(_) => None,
        Token::Word(w) => Some(Some(w.value.to_ascii_uppercase())),
        _ => Some(None),
    });
    match first.flatten() {
        Some(word) if READ_KEYWORDS.contains(&word.as_str()) => Ok(()),
        Some(word) => Err(format!(
            "this episode is read-only and `{word}` is not a read"
        )),
        None => Err("the statement does not start with a keyword".into()),
    }
}

fn statement_reads_only(statement: &Statement) -> Result<(), String> {
    let ok = match statement {
        Statement::Query(q) => query_reads_only(q),
        Statement::Explain { statement, .. } => return statement_reads_only(statement),
        Statement::ShowTables { .. }
        | Statement::ShowColumns { .. }
        | Statement::ShowDatabases { .. }
        | Statement::ShowCreate { .. }
        | Statement::ShowViews { .. }
        | Statement::ExplainTable { .. }
        | Statement::Use(_) => true,
        _ => false,
    };
    if ok {
        Ok(())
    } else {
        let text = statement.to_string();
        let kind: Vec<&str> = text.split_whitespace().take(2).collect();
        Err(format!(
            "this episode is read-only and `{}` is not a read",
            kind.join(" ")
        ))
    }
}

fn query_reads_only(query: &Query) -> bool {
    let ctes_read = query
        .with
        .as_ref()
        .is_none_or(|w| w.cte_tables.iter().all(|c| query_reads_only(&c.query)));
    ctes_read && query.locks.is_empty() && set_reads_only(&query.body)
}

fn set_reads_only(body: &SetExpr) -> bool {
    match body {
        SetExpr::Select(_) | SetExpr::Values(_) | SetExpr::Table(_) => true,
        SetExpr::Query(q) => query_reads_only(q),
        SetExpr::SetOperation { left, right, .. } => set_reads_only(left) && set_reads_only(right),
        SetExpr::Insert(_) | SetExpr::Update(_) | SetExpr::Delete(_) | SetExpr::Merge(_) => false,
    }
}

/// What the guard refused in an episode, for reports.
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize)]
pub struct GuardStats {
    pub sql_refused: usize,
    pub destructive_refused: usize,
    pub confirmed: usize,
    pub vetoes: usize,
    /// Milliseconds spent on dry runs.
    pub dry_run_ms: u64,
    pub dry_runs: usize,
}

/// An env behind the guard. Everything but `step`/`submit` passes straight through.
pub struct GuardedEnv {
    inner: Box<dyn Env>,
    options: GuardOptions,
    /// A command refused as destructive; sent again right after, it runs.
    awaiting_confirmation: Option<String>,
    stats: GuardStats,
}

impl GuardedEnv {
    pub fn new(inner: Box<dyn Env>, options: GuardOptions) -> GuardedEnv {
        GuardedEnv {
            inner,
            options,
            awaiting_confirmation: None,
            stats: GuardStats::default(),
        }
    }

    /// Totals since the env was built.
    pub fn stats(&self) -> &GuardStats {
        &self.stats
    }

    fn refusal(check: &str, reason: String, extra: Value) -> Step {
        let mut info = Map::new();
        info.insert(
            "guard".into(),
            json!({"refused": check, "reason": reason.clone(), "details": extra}),
        );
        Step {
            observation: format!("refused by the guard: {reason}"),
            reward: 0.0,
            done: false,
            action_executed: false,
            exit_status: None,
            info,
        }
    }

    fn check_action(&mut self, action: &str) -> crate::Result<Option<Step>> {
        if self.options.sql_lint && self.inner.kind() == EnvKind::Sql {
            let sql = crate::env::sql::parse::clean_action(action);
            if let Err(reason) = lint_read_only(&sql) {
                self.stats.sql_refused += 1;
                return Ok(Some(GuardedEnv::refusal("sql_lint", reason, Value::Null)));
            }
        }
        if self.options.gate && self.inner.kind() == EnvKind::Bash {
            if self.awaiting_confirmation.as_deref() == Some(action) {
                self.awaiting_confirmation = None;
                self.stats.confirmed += 1;
                return Ok(None);
            }
            let started = std::time::Instant::now();
            let dry = self.inner.dry_run(action)?;
            self.stats.dry_runs += 1;
            self.stats.dry_run_ms += u64::try_from(started.elapsed().as_millis()).unwrap_or(0);
            if let Some(DryRun { destroyed, .. }) = dry
                && !destroyed.is_empty()
            {
                self.stats.destructive_refused += 1;
                self.awaiting_confirmation = Some(action.to_string());
                let shown: Vec<&str> = destroyed.iter().take(10).map(String::as_str).collect();
                let more = destroyed.len().saturating_sub(shown.len());
                let reason = format!(
                    "this command would delete or truncate {} file(s) the task started with: \
                     {}{}. Nothing was run. If that is what the task needs, send exactly the \
                     same command again to confirm.",
                    destroyed.len(),
                    shown.join(", "),
                    if more > 0 {
                        format!(" and {more} more")
                    } else {
                        String::new()
                    }
                );
                return Ok(Some(GuardedEnv::refusal(
                    "destructive",
                    reason,
                    json!(destroyed),
                )));
            }
        }
        self.awaiting_confirmation = None;
        Ok(None)
    }

    fn trajectory(&self) -> crate::Result<Value> {
        let index = self.inner.current_index().ok_or(crate::Error::NoEpisode)?;
        let query = self.inner.task(index)?.query;
        Ok(json!({
            "env": self.inner.name(),
            "task_index": index,
            "query": query,
            "turns": self.inner.turns(),
        }))
    }
}

impl Env for GuardedEnv {
    fn kind(&self) -> EnvKind {
        self.inner.kind()
    }
    fn task_count(&self) -> usize {
        self.inner.task_count()
    }
    fn task(&self, index: usize) -> crate::Result<TaskInfo> {
        self.inner.task(index)
    }
    fn reset(&mut self, index: usize) -> crate::Result<Reset> {
        self.awaiting_confirmation = None;
        self.inner.reset(index)
    }
    fn step(&mut self, action: &str) -> crate::Result<Step> {
        match Keyword::parse(action) {
            Some(Keyword::Submit(name)) => self.submit_named(name.as_deref()),
            Some(Keyword::Skip) => self.inner.skip(),
            None => match self.check_action(action)? {
                Some(refused) => Ok(refused),
                None => self.inner.step(action),
            },
        }
    }
    fn evaluate(&mut self) -> crate::Result<Evaluation> {
        self.inner.evaluate()
    }
    fn submit_named(&mut self, name: Option<&str>) -> crate::Result<Step> {
        if let Some(critic) = self.options.critic.clone() {
            let trajectory = self.trajectory()?;
            match critic.review(&trajectory) {
                Ok(Some(message)) => {
                    self.stats.vetoes += 1;
                    let mut step = GuardedEnv::refusal("critic", message.clone(), Value::Null);
                    step.observation = format!("the critic vetoed the submission: {message}");
                    return Ok(step);
                }
                Ok(None) => {}
                Err(e) => tracing::warn!("critic failed, submission accepted: {e}"),
            }
        }
        self.inner.submit_named(name)
    }
    fn skip(&mut self) -> crate::Result<Step> {
        self.inner.skip()
    }
    fn current_index(&self) -> Option<usize> {
        self.inner.current_index()
    }
    fn is_done(&self) -> bool {
        self.inner.is_done()
    }
    fn turns(&self) -> &[TurnRecord] {
        self.inner.turns()
    }
    fn checkpoint(&mut self) -> crate::Result<Checkpoint> {
        self.inner.checkpoint()
    }
    fn rollback(&mut self, checkpoint: &Checkpoint) -> crate::Result<()> {
        self.awaiting_confirmation = None;
        self.inner.rollback(checkpoint)
    }
    fn dry_run(&mut self, action: &str) -> crate::Result<Option<DryRun>> {
        self.inner.dry_run(action)
    }
    fn is_complete(&mut self, source: &str) -> crate::Result<bool> {
        self.inner.is_complete(source)
    }

    fn action_timeout(&self) -> std::time::Duration {
        self.inner.action_timeout()
    }

    fn set_action_timeout(&mut self, timeout: std::time::Duration) -> crate::Result<()> {
        self.inner.set_action_timeout(timeout)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_pass_the_lint() {
        for sql in [
            "SELECT name FROM singer WHERE age > 30",
            "select count(*) from (select 1 union select 2)",
            "WITH t AS (SELECT 1 AS x) SELECT x FROM t",
            "SHOW TABLES",
            "DESCRIBE singer",
            "EXPLAIN SELECT 1",
            "USE concert_singer",
        ] {
            assert_eq!(lint_read_only(sql), Ok(()), "{sql}");
        }
    }

    #[test]
    fn writes_and_bypasses_are_refused_with_a_reason() {
        for sql in [
            "SELECT 1; COMMIT; DROP TABLE singer",
            "SELECT 1; -- comment\nDELETE FROM singer",
            "/* hi */ DELETE FROM singer",
            "DROP TABLE singer",
            "UPDATE singer SET age = 0",
            "INSERT INTO singer VALUES (1)",
            "PRAGMA writable_schema = 1",
            "ATTACH DATABASE '/tmp/x.db' AS x",
            "VACUUM INTO '/tmp/copy.db'",
            "CREATE TABLE t (x)",
            "ALTER TABLE singer ADD COLUMN y",
            "WITH gone AS (DELETE FROM singer RETURNING *) SELECT * FROM gone",
        ] {
            let reason = lint_read_only(sql).expect_err(sql);
            assert!(!reason.is_empty(), "{sql}");
        }
        assert!(
            lint_read_only("SELECT 1; SELECT 2")
                .unwrap_err()
                .contains("2")
        );
    }
}
