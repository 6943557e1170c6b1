//! One guarded SQLite connection: a private in-memory copy of a database image, with every
//! capability an agent's SQL could use to leave it switched off.
//!
//! Guards, all on for every connection (the reason for each is beside it in [`Session::open`]):
//! * the database lives only in memory (`sqlite3_deserialize` of the cached image) — no file;
//! * `ATTACH` is impossible (`SQLITE_LIMIT_ATTACHED = 0`, and the authorizer refuses it), which
//!   also stops `VACUUM INTO 'file'`, since that attaches its target;
//! * extension loading stays disabled and `load_extension()` is refused by the authorizer;
//! * `SQLITE_DBCONFIG_DEFENSIVE` (no `writable_schema`, no shadow-table writes), untrusted
//!   schema, no FTS3 tokenizer pointers;
//! * only read-only introspection pragmas are allowed (`table_info`, `index_list`, …);
//! * a per-statement time budget through the progress handler;
//! * caps on string/blob size, SQL length, database growth, and on the rows and bytes a result
//!   keeps (the rest is dropped and the result marked truncated);
//! * temporary storage in memory (`temp_store = MEMORY`), so big sorts spill nowhere;
//! * foreign keys enforced, as by upstream's MySQL (InnoDB).
//!
//! Not bounded per connection: the heap a sort or hash of a long-running statement uses within its
//! time budget (SQLite's heap limit is process-wide and needs `unsafe` FFI to set).
//!
//! In a read-only session the authorizer also refuses every statement that would write (checked
//! on the prepared statement, not by keywords), and the image is deserialized read-only.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use rusqlite::config::DbConfig;
use rusqlite::hooks::{AuthAction, AuthContext, Authorization};
use rusqlite::limits::Limit;
use rusqlite::types::ValueRef;
use rusqlite::{Connection, MAIN_DB, OpenFlags};

use crate::data::spider::DbImage;
use crate::reward::sql::PyValue;
use crate::{Error, Result};

/// The limits a session enforces (a subset of `SqlOptions`).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Limits {
    pub read_only: bool,
    pub statement_timeout: Duration,
    pub max_rows: usize,
    pub max_bytes: usize,
}

/// Largest string or blob a statement may build (16 MiB): `zeroblob(1e9)` fails early instead
/// of allocating a gigabyte.
const MAX_VALUE_BYTES: i32 = 16 << 20;
/// Longest SQL text accepted (1 MiB).
const MAX_SQL_BYTES: i32 = 1 << 20;
/// How much an episode's database may grow beyond its image (64 MiB), so that a recursive
/// `INSERT … SELECT` fills no more than that before "database or disk is full".
const MAX_GROWTH_BYTES: u64 = 64 << 20;
/// Progress-handler period, in SQLite VM instructions (~10–50 µs of work).
const PROGRESS_PERIOD: i32 = 1000;

/// Pragmas an agent may run: introspection only.
const READ_PRAGMAS: &[&str] = &[
    "table_info",
    "table_xinfo",
    "table_list",
    "index_list",
    "index_info",
    "index_xinfo",
    "foreign_key_list",
    "foreign_key_check",
    "collation_list",
    "database_list",
    "function_list",
    "module_list",
    "pragma_list",
    "compile_options",
    "integrity_check",
    "quick_check",
];
/// Pragmas that only read when given no value.
const READ_WITHOUT_VALUE_PRAGMAS: &[&str] = &[
    "user_version",
    "schema_version",
    "application_id",
    "page_count",
    "page_size",
    "encoding",
    "foreign_keys",
    "freelist_count",
];

/// State shared between the session and its SQLite callbacks.
#[derive(Debug)]
struct Guard {
    base: Instant,
    /// Deadline of the running statement, in nanoseconds after `base` (`u64::MAX`: none).
    deadline_ns: AtomicU64,
    /// Why the authorizer refused the last statement.
    denial: Mutex<Option<String>>,
    read_only: bool,
}

impl Guard {
    fn expired(&self) -> bool {
        let now = u64::try_from(self.base.elapsed().as_nanos()).unwrap_or(u64::MAX);
        now >= self.deadline_ns.load(Ordering::Relaxed)
    }

    fn deny(&self, reason: String) -> Authorization {
        if let Ok(mut d) = self.denial.lock()
            && d.is_none()
        {
            *d = Some(reason);
        }
        Authorization::Deny
    }

    fn authorize(&self, ctx: AuthContext<'_>) -> Authorization {
        use AuthAction as A;
        match ctx.action {
            A::Attach { .. } | A::Detach { .. } => self.deny(
                "ATTACH and DETACH are not available: an episode sees only its own database"
                    .to_string(),
            ),
            A::Function { function_name }
                if function_name.eq_ignore_ascii_case("load_extension")
                    || function_name.eq_ignore_ascii_case("fts3_tokenizer") =>
            {
                self.deny(format!("the function {function_name}() is not available"))
            }
            A::Pragma {
                pragma_name,
                pragma_value,
            } => {
                let name = pragma_name.to_ascii_lowercase();
                let allowed = READ_PRAGMAS.contains(&name.as_str())
                    || (pragma_value.is_none()
                        && READ_WITHOUT_VALUE_PRAGMAS.contains(&name.as_str()));
                if allowed {
                    Authorization::Allow
                } else {
                    self.deny(format!(
                        "PRAGMA {pragma_name} is not available (only schema introspection pragmas are)"
                    ))
                }
            }
            action if self.read_only => match write_target(action) {
                Some(what) => self.deny(format!(
                    "this episode is read-only; the statement would {what}"
                )),
                None => Authorization::Allow,
            },
            _ => Authorization::Allow,
        }
    }
}

/// What a writing action would change, for the read-only refusal message.
fn write_target(action: AuthAction<'_>) -> Option<String> {
    use AuthAction as A;
    Some(match action {
        A::Insert { table_name } => format!("insert into {table_name}"),
        A::Update { table_name, .. } => format!("update {table_name}"),
        A::Delete { table_name } => format!("delete from {table_name}"),
        A::CreateIndex { index_name, .. } | A::CreateTempIndex { index_name, .. } => {
            format!("create index {index_name}")
        }
        A::CreateTable { table_name } | A::CreateTempTable { table_name } => {
            format!("create table {table_name}")
        }
        A::CreateTrigger { trigger_name, .. } | A::CreateTempTrigger { trigger_name, .. } => {
            format!("create trigger {trigger_name}")
        }
        A::CreateView { view_name } | A::CreateTempView { view_name } => {
            format!("create view {view_name}")
        }
        A::CreateVtable { table_name, .. } => format!("create virtual table {table_name}"),
        A::DropIndex { index_name, .. } | A::DropTempIndex { index_name, .. } => {
            format!("drop index {index_name}")
        }
        A::DropTable { table_name } | A::DropTempTable { table_name } => {
            format!("drop table {table_name}")
        }
        A::DropTrigger { trigger_name, .. } | A::DropTempTrigger { trigger_name, .. } => {
            format!("drop trigger {trigger_name}")
        }
        A::DropView { view_name } | A::DropTempView { view_name } => {
            format!("drop view {view_name}")
        }
        A::DropVtable { table_name, .. } => format!("drop virtual table {table_name}"),
        A::AlterTable { table_name, .. } => format!("alter table {table_name}"),
        A::Reindex { .. } => "reindex".to_string(),
        A::Analyze { .. } => "analyze".to_string(),
        _ => return None,
    })
}

/// A result set as kept for the agent and the reward.
#[derive(Debug, Clone, PartialEq)]
pub struct RowSet {
    pub columns: Vec<String>,
    pub rows: Vec<Vec<PyValue>>,
    /// Set when the statement produced more rows or bytes than the limits keep.
    pub truncated: bool,
}

/// What running one statement gave.
#[derive(Debug, Clone, PartialEq)]
pub enum Outcome {
    /// A result set (possibly empty).
    Rows(RowSet),
    /// The statement ran and has no result set (DDL, DML, `USE`): upstream's `None`.
    NoResult,
    /// It did not run, or failed: the message upstream shows after `Error executing query: `.
    Error(String),
}

/// A guarded in-memory connection to one database.
pub(crate) struct Session {
    conn: Connection,
    guard: Arc<Guard>,
    limits: Limits,
    /// The last statement ran and was one that writes (SQLite's `sqlite3_stmt_readonly`).
    /// (A `Cell`: it is set while a prepared statement still borrows the connection.)
    wrote: std::cell::Cell<bool>,
}

fn db_err(e: rusqlite::Error) -> Error {
    Error::Database(e.to_string())
}

impl Session {
    /// A fresh private copy of `image`, with all guards installed.
    pub fn open(image: &DbImage, limits: Limits) -> Result<Session> {
        // No URI parsing and no shared cache: the name ":memory:" can mean nothing else.
        let mut conn = Connection::open_in_memory_with_flags(
            OpenFlags::SQLITE_OPEN_READ_WRITE
                | OpenFlags::SQLITE_OPEN_CREATE
                | OpenFlags::SQLITE_OPEN_NO_MUTEX,
        )
        .map_err(db_err)?;
        conn.deserialize_read_exact(
            MAIN_DB,
            image.bytes.as_slice(),
            image.bytes.len(),
            limits.read_only,
        )
        .map_err(|e| Error::Database(format!("database {}: {e}", image.name)))?;
        // Images converted from upstream's MySQL dump compare text like MySQL did.
        crate::data::spider::mysql_dump::register_collations(&conn).map_err(db_err)?;
        // Defensive: no writable_schema, no writes to shadow tables or sqlite_dbpage.
        conn.set_db_config(DbConfig::SQLITE_DBCONFIG_DEFENSIVE, true)
            .map_err(db_err)?;
        // Foreign keys are enforced, as by upstream's MySQL (InnoDB, FOREIGN_KEY_CHECKS=1).
        conn.set_db_config(DbConfig::SQLITE_DBCONFIG_ENABLE_FKEY, true)
            .map_err(db_err)?;
        // Schema-embedded SQL (views, triggers) may not call functions with side effects.
        conn.set_db_config(DbConfig::SQLITE_DBCONFIG_TRUSTED_SCHEMA, false)
            .map_err(db_err)?;
        // fts3_tokenizer() with a pointer argument is a known memory-safety hazard.
        conn.set_db_config(DbConfig::SQLITE_DBCONFIG_ENABLE_FTS3_TOKENIZER, false)
            .map_err(db_err)?;
        // ATTACH (and VACUUM INTO, which attaches its target) would reach the host filesystem.
        conn.set_limit(Limit::SQLITE_LIMIT_ATTACHED, 0)
            .map_err(db_err)?;
        conn.set_limit(Limit::SQLITE_LIMIT_LENGTH, MAX_VALUE_BYTES)
            .map_err(db_err)?;
        conn.set_limit(Limit::SQLITE_LIMIT_SQL_LENGTH, MAX_SQL_BYTES)
            .map_err(db_err)?;
        let page_size = 4096u64;
        let max_pages = (image.bytes.len() as u64 + MAX_GROWTH_BYTES) / page_size + 16;
        // Temp tables and sorter spills stay in memory, bounded like the main database.
        conn.execute_batch(&format!(
            "PRAGMA temp_store = MEMORY; PRAGMA main.max_page_count = {max_pages}; \
             PRAGMA temp.max_page_count = {};",
            MAX_GROWTH_BYTES / page_size
        ))
        .map_err(db_err)?;

        let guard = Arc::new(Guard {
            base: Instant::now(),
            deadline_ns: AtomicU64::new(u64::MAX),
            denial: Mutex::new(None),
            read_only: limits.read_only,
        });
        let g = Arc::clone(&guard);
        conn.progress_handler(PROGRESS_PERIOD, Some(move || g.expired()))
            .map_err(db_err)?;
        let g = Arc::clone(&guard);
        conn.authorizer(Some(move |ctx: AuthContext<'_>| g.authorize(ctx)))
            .map_err(db_err)?;
        Ok(Session {
            conn,
            guard,
            limits,
            wrote: std::cell::Cell::new(false),
        })
    }

    /// Runs one SQL statement (a second statement in the text is refused, not run).
    pub fn run(&mut self, sql: &str) -> Outcome {
        if let Ok(mut d) = self.guard.denial.lock() {
            *d = None;
        }
        let start = u64::try_from(self.guard.base.elapsed().as_nanos()).unwrap_or(u64::MAX);
        let budget = u64::try_from(self.limits.statement_timeout.as_nanos()).unwrap_or(u64::MAX);
        self.guard
            .deadline_ns
            .store(start.saturating_add(budget), Ordering::Relaxed);
        self.wrote.set(false);
        let outcome = self.run_inner(sql);
        self.guard.deadline_ns.store(u64::MAX, Ordering::Relaxed);
        outcome
    }

    /// Whether the last [`Session::run`] ran a statement that writes (`INSERT`, `DROP`, ...).
    pub fn wrote(&self) -> bool {
        self.wrote.get()
    }

    fn run_inner(&mut self, sql: &str) -> Outcome {
        let mut stmt = match self.conn.prepare(sql) {
            Ok(stmt) => stmt,
            Err(e) => return Outcome::Error(self.message(&e)),
        };
        if self.limits.read_only && !stmt.readonly() {
            return Outcome::Error(
                "this episode is read-only; the statement would write".to_string(),
            );
        }
        let writes = !stmt.readonly();
        let ncols = stmt.column_count();
        if ncols == 0 {
            return match stmt.raw_execute() {
                Ok(_) => {
                    self.wrote.set(writes);
                    Outcome::NoResult
                }
                Err(e) => Outcome::Error(self.message(&e)),
            };
        }
        let columns: Vec<String> = stmt.column_names().map(String::from).collect();
        let (max_rows, max_bytes) = (self.limits.max_rows, self.limits.max_bytes);
        let mut rows = Vec::new();
        let mut bytes = 0usize;
        let mut truncated = false;
        let mut it = stmt.raw_query();
        loop {
            match it.next() {
                Ok(Some(row)) => {
                    if rows.len() >= max_rows || bytes >= max_bytes {
                        truncated = true;
                        break;
                    }
                    let mut values = Vec::with_capacity(ncols);
                    for i in 0..ncols {
                        let v = match row.get_ref(i) {
                            Ok(v) => to_py(v),
                            Err(e) => return Outcome::Error(self.message(&e)),
                        };
                        bytes += approx_size(&v);
                        values.push(v);
                    }
                    rows.push(values);
                }
                Ok(None) => break,
                Err(e) => return Outcome::Error(self.message(&e)),
            }
        }
        self.wrote.set(writes);
        Outcome::Rows(RowSet {
            columns,
            rows,
            truncated,
        })
    }

    /// The message an agent sees for a failed statement.
    fn message(&self, e: &rusqlite::Error) -> String {
        use rusqlite::ErrorCode as C;
        let (code, msg) = match e {
            rusqlite::Error::SqliteFailure(err, msg) => (err.code, msg.clone()),
            rusqlite::Error::SqlInputError { error, msg, .. } => (error.code, Some(msg.clone())),
            rusqlite::Error::MultipleStatement => {
                return "only one SQL statement per action is allowed".to_string();
            }
            rusqlite::Error::Empty => return "Query was empty".to_string(),
            other => return other.to_string(),
        };
        match code {
            C::OperationInterrupted => format!(
                "interrupted: the statement ran longer than its time budget ({:.1} s)",
                self.limits.statement_timeout.as_secs_f64()
            ),
            C::AuthorizationForStatementDenied => {
                let denial = self.guard.denial.lock().ok().and_then(|d| d.clone());
                format!(
                    "refused: {}",
                    denial.unwrap_or_else(|| "not authorized".into())
                )
            }
            C::DiskFull => {
                "the database is full: an episode may grow by at most 64 MiB".to_string()
            }
            _ => msg.unwrap_or_else(|| e.to_string()),
        }
    }

    /// The limit of the statements that follow.
    pub fn set_statement_timeout(&mut self, timeout: Duration) {
        self.limits.statement_timeout = timeout;
    }

    /// The connection, for introspection by the MySQL compatibility layer (authorizer on).
    pub fn conn(&self) -> &Connection {
        &self.conn
    }
}

/// How Python's `sqlite3` module hands a value to `str()`.
fn to_py(v: ValueRef<'_>) -> PyValue {
    match v {
        ValueRef::Null => PyValue::None,
        ValueRef::Integer(i) => PyValue::Int(i),
        ValueRef::Real(f) => PyValue::Float(f),
        ValueRef::Text(t) => PyValue::Str(String::from_utf8_lossy(t).into_owned()),
        ValueRef::Blob(b) => PyValue::Bytes(b.to_vec()),
    }
}

/// Roughly the bytes a value takes in the observation (its repr), for the byte cap.
fn approx_size(v: &PyValue) -> usize {
    match v {
        PyValue::None | PyValue::Bool(_) => 5,
        PyValue::Int(_) | PyValue::Float(_) => 12,
        PyValue::Str(s) => s.len() + 4,
        PyValue::Bytes(b) => 2 * b.len() + 5,
        PyValue::Repr(r) => r.len() + 2,
    }
}
