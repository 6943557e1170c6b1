//! The SQL environment (InterCode-SQL) on SQLite, one fresh in-memory database per episode.
//!
//! Upstream ran its SQL tasks on a MySQL server in Docker and never reset it, so one episode's
//! `DROP TABLE` broke the next. Here every database of a task set is loaded once into a cached
//! image ([`DatabaseImages`]); [`SqlEnv::reset`] deserializes a private copy of the task's
//! database into a new in-memory connection, and nothing an agent does outlives its episode.
//!
//! * `step(action)` runs one SQL statement. The observation is what upstream showed: the rows as
//!   Python's `str(list_of_tuples)`, `None` for a statement without a result set, or
//!   `Error executing query: <message>`. The info holds `action_executed` and, for a result set,
//!   `columns`, `rows` (JSON) and `truncated`.
//! * MySQL habits that upstream's prompts teach are answered with MySQL-shaped rows:
//!   `SHOW TABLES`, `SHOW DATABASES`, `SHOW COLUMNS FROM t`, `DESC t`, `DESCRIBE t`,
//!   `SHOW CREATE TABLE t`, and `USE db` (switches to another database of the task set, also a
//!   private copy). A trailing `;` and a Markdown code fence are accepted; a second statement in
//!   one action is refused without running anything.
//! * `submit` scores the last observation with upstream's reward ([`crate::reward::sql`]) against
//!   the gold query run on a *fresh* copy of the task's database (upstream ran it on the agent's
//!   modified, possibly switched database); a gold that fails counts as `[]`, as upstream. The info
//!   carries upstream's `agent_obs`, `eval_obs`, `corrupt_gold` and `reward`. `skip` ends with 0.
//! * Guards are always on ([`SqlOptions`], and `session.rs` for the list): no file access
//!   (`ATTACH`, `VACUUM INTO`, extensions), defensive mode, a per-statement time budget, caps on
//!   rows and bytes kept, bounded growth; `read_only` refuses every writing statement.
//!
//! ```
//! use intercode::env::{Env, sql::{SqlEnv, SqlOptions}};
//! let mut env = SqlEnv::new(intercode::data::spider::fixtures()?, SqlOptions::default())?;
//! env.reset(0)?;
//! let step = env.step("SHOW TABLES")?;
//! assert!(step.observation.starts_with("[('customers',)"));
//! let gold = env.gold()?;
//! env.step(&gold)?;
//! assert_eq!(env.submit()?.reward, 1.0);
//! # Ok::<(), intercode::Error>(())
//! ```

mod mysql;
pub mod parse;
pub mod replay;
mod session;

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use serde::Serialize;
use serde_json::{Map, Value, json};

pub use session::{Outcome, RowSet};

use self::mysql::MysqlStmt;
use self::session::{Limits, Session};
use crate::data::spider::{DatabaseImages, SqlTask, SqlTaskSet};
use crate::env::episode::{Backend, Episodes, Executed};
use crate::env::{Env, EnvKind, Evaluation, TaskInfo};
use crate::reward::sql::{PyValue, reward_for, rows_repr};
use crate::{Error, Result};

/// What an SQL episode allows. Every field is a bound; none can be switched off.
#[derive(Debug, Clone, PartialEq)]
pub struct SqlOptions {
    /// Refuse every statement that would write (for exploration-only use).
    pub read_only: bool,
    /// Longest a single statement (the agent's or the gold) may run before it is interrupted.
    pub statement_timeout: Duration,
    /// Most rows a result keeps; the rest are dropped and the result marked truncated. The reward
    /// sees the kept rows only.
    pub max_rows: usize,
    /// Most bytes (roughly, of the rendered values) a result keeps.
    pub max_bytes: usize,
}

impl Default for SqlOptions {
    fn default() -> Self {
        SqlOptions {
            read_only: false,
            // The slowest Spider gold takes a few milliseconds; agents' cross joins get 5 s.
            statement_timeout: Duration::from_secs(5),
            // The largest Spider dev gold result has 1,860 rows; the largest table 4,079.
            max_rows: 10_000,
            max_bytes: 4 << 20,
        }
    }
}

impl SqlOptions {
    fn limits(&self) -> Limits {
        Limits {
            read_only: self.read_only,
            statement_timeout: self.statement_timeout,
            max_rows: self.max_rows,
            max_bytes: self.max_bytes,
        }
    }
}

/// The gold query's result on a fresh copy of the task's database.
#[derive(Debug, Clone, PartialEq)]
pub struct GoldResult {
    pub rows: Vec<Vec<PyValue>>,
    /// The gold failed; upstream then scores against `[]`.
    pub corrupt: bool,
    pub error: Option<String>,
}

struct Episode {
    index: usize,
    /// Canonical name of the database the agent is in (`USE` changes it).
    current_db: String,
    /// This episode's private databases, by canonical name.
    sessions: HashMap<String, Session>,
    /// Upstream's `self.observation`: what the last executed action gave.
    last: Outcome,
    /// Statements that wrote (every Spider task is a question: a write is a destructive
    /// mutation of the data the agent was given).
    writes: Vec<String>,
}

/// The InterCode-SQL environment: episodes of [`Sql`].
pub type SqlEnv = Episodes<Sql>;

impl SqlEnv {
    /// An environment over `tasks`.
    pub fn new(tasks: SqlTaskSet, options: SqlOptions) -> Result<SqlEnv> {
        Ok(Episodes::from_backend(Sql::new(tasks, options)?))
    }
}

/// InterCode-SQL's [`Backend`].
pub struct Sql {
    tasks: SqlTaskSet,
    options: SqlOptions,
    episode: Option<Episode>,
    /// Gold results by task index: deterministic, since each runs on a fresh copy.
    gold_cache: HashMap<usize, Arc<GoldResult>>,
}

impl Sql {
    /// A backend over `tasks`.
    pub fn new(tasks: SqlTaskSet, options: SqlOptions) -> Result<Sql> {
        if options.max_rows == 0 || options.max_bytes == 0 || options.statement_timeout.is_zero() {
            return Err(Error::InvalidSpec(
                "SQL options: max_rows, max_bytes and statement_timeout must be positive".into(),
            ));
        }
        Ok(Sql {
            tasks,
            options,
            episode: None,
            gold_cache: HashMap::new(),
        })
    }

    /// The task set.
    pub fn task_set(&self) -> &SqlTaskSet {
        &self.tasks
    }

    /// Task `index`.
    pub fn sql_task(&self, index: usize) -> Result<&SqlTask> {
        self.tasks.tasks.get(index).ok_or(Error::TaskIndex {
            index,
            len: self.tasks.tasks.len(),
        })
    }

    /// The options.
    pub fn options(&self) -> &SqlOptions {
        &self.options
    }

    /// The database the agent is in (changes with `USE`).
    pub fn current_database(&self) -> Option<&str> {
        self.episode.as_ref().map(|e| e.current_db.as_str())
    }

    /// The last result set of the episode (for table rendering), if the last action gave one.
    pub fn last_result(&self) -> Option<&RowSet> {
        match &self.episode.as_ref()?.last {
            Outcome::Rows(r) => Some(r),
            _ => None,
        }
    }

    /// The gold result of task `index` (run once on a fresh copy, then cached).
    pub fn gold_result(&mut self, index: usize) -> Result<Arc<GoldResult>> {
        if let Some(g) = self.gold_cache.get(&index) {
            return Ok(Arc::clone(g));
        }
        let task = self.sql_task(index)?;
        let image = self.tasks.images.get(&task.db)?;
        let gold_sql = parse::clean_action(&task.gold);
        let limits = Limits {
            read_only: false,
            ..self.options.limits()
        };
        let mut session = Session::open(&image, limits)?;
        let result = match session.run(&gold_sql) {
            Outcome::Rows(r) => GoldResult {
                rows: r.rows,
                corrupt: false,
                error: None,
            },
            Outcome::NoResult => GoldResult {
                rows: Vec::new(),
                corrupt: false,
                error: None,
            },
            Outcome::Error(e) => GoldResult {
                rows: Vec::new(),
                corrupt: true,
                error: Some(e),
            },
        };
        let result = Arc::new(result);
        self.gold_cache.insert(index, Arc::clone(&result));
        Ok(result)
    }

    fn live_episode(&mut self) -> Result<&mut Episode> {
        self.episode.as_mut().ok_or(Error::NoEpisode)
    }

    fn run_action(&mut self, action: &str) -> Result<Executed> {
        let sql = parse::clean_action(action);
        let limits = self.options.limits();
        let options = self.options.clone();
        let images = Arc::clone(&self.tasks.images);
        let ep = self.live_episode()?;
        let outcome = match mysql::parse(&sql) {
            Some(stmt) => run_mysql(&images, ep, limits, stmt)?,
            None => {
                let db = ep.current_db.clone();
                let session = session_for(&images, ep, limits, &db)?;
                let outcome = session.run(&sql);
                if session.wrote() {
                    ep.writes.push(sql.clone());
                }
                outcome
            }
        };
        let mut info = Map::new();
        info.insert("database".into(), Value::String(ep.current_db.clone()));
        if let Outcome::Rows(r) = &outcome {
            info.insert("columns".into(), json!(r.columns));
            info.insert(
                "rows".into(),
                Value::Array(
                    r.rows
                        .iter()
                        .map(|row| Value::Array(row.iter().map(PyValue::to_json).collect()))
                        .collect(),
                ),
            );
            info.insert("truncated".into(), Value::Bool(r.truncated));
        }
        let observation = observation_text(&outcome, &options);
        let action_executed = !matches!(outcome, Outcome::Error(_));
        ep.last = outcome;
        Ok(Executed {
            observation,
            action_executed,
            exit_status: None,
            info,
        })
    }
}

/// The session of database `db` in this episode, opened (a fresh copy) on first use.
fn session_for<'e>(
    images: &DatabaseImages,
    ep: &'e mut Episode,
    limits: Limits,
    db: &str,
) -> Result<&'e mut Session> {
    if !ep.sessions.contains_key(db) {
        let image = images.get(db)?;
        ep.sessions
            .insert(db.to_string(), Session::open(&image, limits)?);
    }
    ep.sessions
        .get_mut(db)
        .ok_or_else(|| Error::Other("session vanished".into()))
}

fn run_mysql(
    images: &DatabaseImages,
    ep: &mut Episode,
    limits: Limits,
    stmt: MysqlStmt,
) -> Result<Outcome> {
    // Resolves an optional database name to a canonical one, or MySQL's error.
    let resolve = |db: Option<&str>, current: &str| -> std::result::Result<String, Outcome> {
        match db {
            None => Ok(current.to_string()),
            Some(name) => images
                .resolve(name)
                .map(str::to_string)
                .ok_or_else(|| Outcome::Error(format!("Unknown database '{name}'"))),
        }
    };
    let current = ep.current_db.clone();
    Ok(match stmt {
        MysqlStmt::Use { db } => match resolve(Some(&db), &current) {
            Ok(name) => {
                session_for(images, ep, limits, &name)?;
                ep.current_db = name;
                Outcome::NoResult
            }
            Err(e) => e,
        },
        MysqlStmt::ShowDatabases { like } => mysql::show_databases(images.names(), like.as_deref()),
        MysqlStmt::ShowTables { full, db, like } => match resolve(db.as_deref(), &current) {
            Ok(name) => {
                let s = session_for(images, ep, limits, &name)?;
                mysql::show_tables(s.conn(), &name, full, like.as_deref())
            }
            Err(e) => e,
        },
        MysqlStmt::Describe { db, table, like } => match resolve(db.as_deref(), &current) {
            Ok(name) => {
                let s = session_for(images, ep, limits, &name)?;
                mysql::describe(s.conn(), &name, &table, like.as_deref())
            }
            Err(e) => e,
        },
        MysqlStmt::ShowCreateTable { db, table } => match resolve(db.as_deref(), &current) {
            Ok(name) => {
                let s = session_for(images, ep, limits, &name)?;
                mysql::show_create_table(s.conn(), &name, &table)
            }
            Err(e) => e,
        },
    })
}

/// Upstream's `str(self.observation)`.
fn py_str(outcome: &Outcome) -> String {
    match outcome {
        Outcome::Rows(r) => rows_repr(&r.rows),
        Outcome::NoResult => "None".to_string(),
        Outcome::Error(m) => format!("Error executing query: {m}"),
    }
}

/// The observation shown to the agent: upstream's string, plus a note when rows were dropped.
fn observation_text(outcome: &Outcome, options: &SqlOptions) -> String {
    let mut s = py_str(outcome);
    if let Outcome::Rows(r) = outcome
        && r.truncated
    {
        s.push_str(&format!(
            "\n[truncated: the result has more rows than the {} rows / {} bytes an observation keeps]",
            options.max_rows, options.max_bytes
        ));
    }
    s
}

impl Backend for Sql {
    fn action_timeout(&self) -> Duration {
        self.options.statement_timeout
    }

    fn set_action_timeout(&mut self, timeout: Duration) {
        self.options.statement_timeout = timeout;
        // Sessions already open (databases the episode uses) take it too.
        if let Some(ep) = self.episode.as_mut() {
            for session in ep.sessions.values_mut() {
                session.set_statement_timeout(timeout);
            }
        }
    }

    const KIND: EnvKind = EnvKind::Sql;

    fn task_count(&self) -> usize {
        self.tasks.tasks.len()
    }

    fn task(&self, index: usize) -> Result<TaskInfo> {
        let task = self.sql_task(index)?;
        Ok(TaskInfo {
            query: task.query.clone(),
            gold: task.gold.clone(),
            category: task.hardness.clone(),
            tables: task.db_tables.0.clone(),
        })
    }

    fn begin(&mut self, index: usize) -> Result<String> {
        let task = self.sql_task(index)?.clone();
        let db = self
            .tasks
            .images
            .resolve(&task.db)
            .ok_or_else(|| Error::Database(format!("unknown database {:?}", task.db)))?
            .to_string();
        // Drop the previous episode first: its databases go with it.
        self.episode = None;
        let image = self.tasks.images.get(&db)?;
        let session = Session::open(&image, self.options.limits())?;
        let mut sessions = HashMap::new();
        sessions.insert(db.clone(), session);
        self.episode = Some(Episode {
            index,
            current_db: db,
            sessions,
            // Upstream's reset ends with `use {db}`, whose observation is None.
            last: Outcome::NoResult,
            writes: Vec::new(),
        });
        Ok("None".to_string())
    }

    fn execute(&mut self, action: &str) -> Result<Executed> {
        self.run_action(action)
    }

    fn score(
        &mut self,
        _submitted: Option<&str>,
        _last_observation: &str,
        _ending: bool,
    ) -> Result<Evaluation> {
        let index = self.live_episode()?.index;
        let gold = self.gold_result(index)?;
        let ep = self.live_episode()?;
        let agent_rows = match &ep.last {
            Outcome::Rows(r) => Some(r.rows.as_slice()),
            _ => None,
        };
        let reward = reward_for(agent_rows, &gold.rows);
        let mut info = Map::new();
        info.insert("agent_obs".into(), Value::String(py_str(&ep.last)));
        info.insert("corrupt_gold".into(), Value::Bool(gold.corrupt));
        info.insert("eval_obs".into(), Value::String(rows_repr(&gold.rows)));
        info.insert("reward".into(), json!(reward));
        if !ep.writes.is_empty() {
            info.insert("destructive".into(), json!(ep.writes));
        }
        Ok(Evaluation { reward, info })
    }
}

/// What the gold agent scored on every task of a set.
#[derive(Debug, Clone, Default, Serialize)]
pub struct GoldReport {
    pub tasks: usize,
    /// Tasks whose gold scored exactly 1.0.
    pub perfect: usize,
    /// `(task index, reward, note)` for the others.
    pub failures: Vec<(usize, f64, String)>,
    /// Tasks whose gold query itself failed (they still score 1.0 against `[]` … `[]`).
    pub corrupt_golds: Vec<usize>,
}

/// Runs the gold agent (reset, the gold query, submit) over every task.
pub fn run_gold(tasks: SqlTaskSet, options: SqlOptions) -> Result<GoldReport> {
    let mut env = SqlEnv::new(tasks, options)?;
    let mut report = GoldReport {
        tasks: env.task_count(),
        ..GoldReport::default()
    };
    for i in 0..env.task_count() {
        env.reset(i)?;
        let gold = env.gold()?;
        let step = env.step(&gold)?;
        let done = env.submit()?;
        if done.info.get("corrupt_gold") == Some(&Value::Bool(true)) {
            report.corrupt_golds.push(i);
        }
        if done.reward == 1.0 {
            report.perfect += 1;
        } else {
            let note: String = step.observation.chars().take(200).collect();
            report.failures.push((i, done.reward, note));
        }
    }
    Ok(report)
}

/// A result as a text table, the way the `mysql` client prints one.
///
/// ```
/// use intercode::env::sql::render_table;
/// use intercode::reward::sql::PyValue;
/// let t = render_table(&["id".into(), "name".into()], &[vec![PyValue::Int(1), PyValue::None]]);
/// assert_eq!(t, "+----+------+\n| id | name |\n+----+------+\n|  1 | NULL |\n+----+------+\n1 row in set\n");
/// ```
pub fn render_table(columns: &[String], rows: &[Vec<PyValue>]) -> String {
    const MAX_CELL: usize = 60;
    let cell = |v: &PyValue| -> String {
        let s = match v {
            PyValue::None => "NULL".to_string(),
            PyValue::Str(s) => s.replace('\n', "\\n").replace('\t', "\\t"),
            PyValue::Float(_) | PyValue::Int(_) | PyValue::Bool(_) => v.repr(),
            other => other.repr(),
        };
        if s.chars().count() > MAX_CELL {
            let cut: String = s.chars().take(MAX_CELL - 1).collect();
            format!("{cut}…")
        } else {
            s
        }
    };
    let numeric = |v: &PyValue| matches!(v, PyValue::Int(_) | PyValue::Float(_));
    let cells: Vec<Vec<String>> = rows.iter().map(|r| r.iter().map(cell).collect()).collect();
    let ncols = columns
        .len()
        .max(cells.iter().map(Vec::len).max().unwrap_or(0));
    let mut widths = vec![0usize; ncols];
    for (i, c) in columns.iter().enumerate() {
        widths[i] = c.chars().count();
    }
    for r in &cells {
        for (i, c) in r.iter().enumerate() {
            widths[i] = widths[i].max(c.chars().count());
        }
    }
    let rule = {
        let mut s = String::from("+");
        for w in &widths {
            s.push_str(&"-".repeat(w + 2));
            s.push('+');
        }
        s.push('\n');
        s
    };
    let line = |vals: &[String], right: &dyn Fn(usize) -> bool| {
        let mut s = String::from("|");
        for (i, w) in widths.iter().enumerate() {
            let v = vals.get(i).map_or("", String::as_str);
            let pad = w - v.chars().count();
            if right(i) {
                s.push_str(&format!(" {}{} |", " ".repeat(pad), v));
            } else {
                s.push_str(&format!(" {}{} |", v, " ".repeat(pad)));
            }
        }
        s.push('\n');
        s
    };
    let mut out = String::new();
    if ncols > 0 {
        out.push_str(&rule);
        out.push_str(&line(columns, &|_| false));
        out.push_str(&rule);
        for (r, row) in cells.iter().zip(rows) {
            out.push_str(&line(r, &|i| row.get(i).is_some_and(numeric)));
        }
        out.push_str(&rule);
    }
    out.push_str(&match rows.len() {
        0 => "Empty set\n".to_string(),
        1 => "1 row in set\n".to_string(),
        n => format!("{n} rows in set\n"),
    });
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::spider::fixtures;

    fn env() -> SqlEnv {
        SqlEnv::new(fixtures().unwrap(), SqlOptions::default()).unwrap()
    }

    #[test]
    fn env_can_move_to_another_thread() {
        fn assert_send<T: Send>() {}
        assert_send::<SqlEnv>();
        assert_send::<SqlTaskSet>();
    }

    #[test]
    fn step_before_reset_is_an_error() {
        let mut e = env();
        assert!(matches!(e.step("SELECT 1"), Err(Error::NoEpisode)));
        assert!(matches!(e.reset(999), Err(Error::TaskIndex { .. })));
    }

    #[test]
    fn rows_errors_and_none_look_like_upstream() {
        let mut e = env();
        e.reset(0).unwrap();
        let s = e
            .step("SELECT name, joined_year FROM customers WHERE customer_id <= 2")
            .unwrap();
        assert_eq!(
            s.observation,
            "[('Ada Lovelace', 2019), ('Grace Hopper', 2020)]"
        );
        assert!(s.action_executed);
        assert_eq!(
            s.info["rows"],
            json!([["Ada Lovelace", 2019], ["Grace Hopper", 2020]])
        );
        assert_eq!(s.info["columns"], json!(["name", "joined_year"]));
        let s = e.step("SELECT nope FROM customers").unwrap();
        assert_eq!(s.observation, "Error executing query: no such column: nope");
        assert!(!s.action_executed);
        let s = e.step("CREATE TABLE t (x INT)").unwrap();
        assert_eq!(s.observation, "None");
        assert!(s.action_executed);
    }

    #[test]
    fn submit_scores_the_last_observation() {
        let mut e = env();
        e.reset(0).unwrap();
        e.step("SELECT count(*) FROM customers").unwrap();
        let done = e.submit().unwrap();
        assert_eq!(done.reward, 1.0);
        assert!(done.done);
        assert_eq!(done.info["agent_obs"], "[(6,)]");
        assert_eq!(done.info["eval_obs"], "[(6,)]");
        assert_eq!(done.info["corrupt_gold"], false);
        assert!(matches!(e.step("SELECT 1"), Err(Error::EpisodeOver)));
    }

    #[test]
    fn skip_ends_with_zero() {
        let mut e = env();
        e.reset(1).unwrap();
        let s = e.step("skip").unwrap();
        assert_eq!((s.reward, s.done), (0.0, true));
    }

    #[test]
    fn table_rendering() {
        let t = render_table(
            &["name".into(), "price".into()],
            &[
                vec![PyValue::Str("Mouse".into()), PyValue::Float(19.99)],
                vec![PyValue::Str("Monitor".into()), PyValue::Float(199.0)],
            ],
        );
        assert_eq!(
            t,
            "+---------+-------+\n| name    | price |\n+---------+-------+\n| Mouse   | 19.99 |\n| Monitor | 199.0 |\n+---------+-------+\n2 rows in set\n"
        );
        assert_eq!(
            render_table(&["a".into()], &[]),
            "+---+\n| a |\n+---+\n+---+\nEmpty set\n"
        );
    }
}
