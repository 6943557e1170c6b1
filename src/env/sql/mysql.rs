//! The MySQL statements upstream's prompts teach agents, answered from SQLite's schema with
//! MySQL-shaped rows: `SHOW TABLES`, `SHOW DATABASES`, `SHOW COLUMNS FROM t`, `DESC t`,
//! `DESCRIBE t`, `SHOW CREATE TABLE t`, `USE db`.
//!
//! Shapes follow what upstream's MySQL 8 (`lower_case_table_names=1`) printed in its logs:
//! `SHOW TABLES` gives `[('breeds',), ('charges',)]` (lower-case, sorted) and `DESC owners` gives
//! `[('owner_id', 'int', 'NO', 'PRI', None, 'auto_increment'), ('first_name', 'varchar(50)',
//! 'YES', '', None, '')]`. A statement that is not one of these forms exactly is left to SQLite.

use rusqlite::Connection;

use super::session::{Outcome, RowSet};
use crate::reward::sql::PyValue;

/// A recognised MySQL-only statement.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum MysqlStmt {
    ShowTables {
        full: bool,
        db: Option<String>,
        like: Option<String>,
    },
    ShowDatabases {
        like: Option<String>,
    },
    /// `SHOW COLUMNS FROM t`, `DESC t`, `DESCRIBE t`, `EXPLAIN t`.
    Describe {
        db: Option<String>,
        table: String,
        like: Option<String>,
    },
    ShowCreateTable {
        db: Option<String>,
        table: String,
    },
    Use {
        db: String,
    },
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Tok {
    /// A bare word (keyword or identifier), as written.
    Word(String),
    /// A `` `quoted` `` or `"quoted"` identifier.
    Ident(String),
    /// A `'string'`.
    Str(String),
    Dot,
}

fn tokenize(sql: &str) -> Option<Vec<Tok>> {
    let mut out = Vec::new();
    let mut chars = sql.chars().peekable();
    while let Some(&c) = chars.peek() {
        if c.is_whitespace() {
            chars.next();
        } else if c == '.' {
            chars.next();
            out.push(Tok::Dot);
        } else if c == '`' || c == '"' || c == '\'' {
            chars.next();
            let mut s = String::new();
            loop {
                match chars.next()? {
                    ch if ch == c => {
                        if chars.peek() == Some(&c) {
                            chars.next();
                            s.push(c);
                        } else {
                            break;
                        }
                    }
                    '\\' if c == '\'' => s.push(chars.next()?),
                    ch => s.push(ch),
                }
            }
            out.push(if c == '\'' {
                Tok::Str(s)
            } else {
                Tok::Ident(s)
            });
        } else if c.is_alphanumeric() || c == '_' || c == '$' {
            let mut s = String::new();
            while let Some(&ch) = chars.peek() {
                if ch.is_alphanumeric() || ch == '_' || ch == '$' {
                    s.push(ch);
                    chars.next();
                } else {
                    break;
                }
            }
            out.push(Tok::Word(s));
        } else {
            return None;
        }
    }
    Some(out)
}

struct Cursor {
    toks: Vec<Tok>,
    pos: usize,
}

impl Cursor {
    fn kw(&mut self, kw: &str) -> bool {
        match self.toks.get(self.pos) {
            Some(Tok::Word(w)) if w.eq_ignore_ascii_case(kw) => {
                self.pos += 1;
                true
            }
            _ => false,
        }
    }

    fn ident(&mut self) -> Option<String> {
        match self.toks.get(self.pos)? {
            Tok::Word(w) | Tok::Ident(w) => {
                let w = w.clone();
                self.pos += 1;
                Some(w)
            }
            _ => None,
        }
    }

    /// `name` or `db.name`.
    fn qualified(&mut self) -> Option<(Option<String>, String)> {
        let first = self.ident()?;
        if self.toks.get(self.pos) == Some(&Tok::Dot) {
            self.pos += 1;
            let second = self.ident()?;
            return Some((Some(first), second));
        }
        Some((None, first))
    }

    fn string(&mut self) -> Option<String> {
        match self.toks.get(self.pos)? {
            Tok::Str(s) => {
                let s = s.clone();
                self.pos += 1;
                Some(s)
            }
            _ => None,
        }
    }

    fn like(&mut self) -> Option<Option<String>> {
        if self.kw("LIKE") {
            return Some(Some(self.string()?));
        }
        Some(None)
    }

    fn done(&self) -> bool {
        self.pos == self.toks.len()
    }
}

/// Recognises one of the MySQL statements (already stripped of a trailing `;`).
pub(crate) fn parse(sql: &str) -> Option<MysqlStmt> {
    let toks = tokenize(sql)?;
    let mut c = Cursor { toks, pos: 0 };
    let stmt = if c.kw("USE") {
        MysqlStmt::Use { db: c.ident()? }
    } else if c.kw("SHOW") {
        let full = c.kw("FULL");
        if c.kw("TABLES") {
            let db = if c.kw("FROM") || c.kw("IN") {
                Some(c.ident()?)
            } else {
                None
            };
            MysqlStmt::ShowTables {
                full,
                db,
                like: c.like()?,
            }
        } else if !full && (c.kw("DATABASES") || c.kw("SCHEMAS")) {
            MysqlStmt::ShowDatabases { like: c.like()? }
        } else if c.kw("COLUMNS") || c.kw("FIELDS") {
            if !(c.kw("FROM") || c.kw("IN")) {
                return None;
            }
            let (mut db, table) = c.qualified()?;
            if c.kw("FROM") || c.kw("IN") {
                db = Some(c.ident()?);
            }
            MysqlStmt::Describe {
                db,
                table,
                like: c.like()?,
            }
        } else if !full && c.kw("CREATE") && c.kw("TABLE") {
            let (db, table) = c.qualified()?;
            MysqlStmt::ShowCreateTable { db, table }
        } else {
            return None;
        }
    } else if c.kw("DESC") || c.kw("DESCRIBE") || c.kw("EXPLAIN") {
        // `EXPLAIN SELECT …` / `DESCRIBE SELECT …` are query plans: leave them to SQLite.
        const STATEMENTS: [&str; 10] = [
            "SELECT", "WITH", "INSERT", "UPDATE", "DELETE", "REPLACE", "VALUES", "QUERY", "TABLE",
            "FORMAT",
        ];
        if STATEMENTS
            .iter()
            .any(|k| matches!(c.toks.get(c.pos), Some(Tok::Word(w)) if w.eq_ignore_ascii_case(k)))
        {
            return None;
        }
        let (db, table) = c.qualified()?;
        // An optional column name or pattern.
        let like = match c.toks.get(c.pos) {
            Some(Tok::Word(w) | Tok::Ident(w) | Tok::Str(w)) => {
                let w = w.clone();
                c.pos += 1;
                Some(w)
            }
            _ => None,
        };
        MysqlStmt::Describe { db, table, like }
    } else {
        return None;
    };
    c.done().then_some(stmt)
}

/// MySQL `LIKE`: `%`, `_`, backslash escapes, case-insensitive (as under `_ci` collations).
pub(crate) fn like_matches(pattern: &str, text: &str) -> bool {
    fn rec(p: &[char], t: &[char]) -> bool {
        match p.first() {
            None => t.is_empty(),
            Some('%') => (0..=t.len()).any(|k| rec(&p[1..], &t[k..])),
            Some('_') => !t.is_empty() && rec(&p[1..], &t[1..]),
            Some('\\') if p.len() > 1 => {
                !t.is_empty() && eq_ci(p[1], t[0]) && rec(&p[2..], &t[1..])
            }
            Some(&c) => !t.is_empty() && eq_ci(c, t[0]) && rec(&p[1..], &t[1..]),
        }
    }
    fn eq_ci(a: char, b: char) -> bool {
        a == b || a.to_lowercase().eq(b.to_lowercase())
    }
    let p: Vec<char> = pattern.chars().collect();
    let t: Vec<char> = text.chars().collect();
    // Patterns are short; cap the backtracking work anyway.
    if p.iter().filter(|c| **c == '%').count() > 8 {
        return false;
    }
    rec(&p, &t)
}

fn str_rows<I: IntoIterator<Item = Vec<PyValue>>>(columns: &[&str], rows: I) -> RowSet {
    RowSet {
        columns: columns.iter().map(|c| (*c).to_string()).collect(),
        rows: rows.into_iter().collect(),
        truncated: false,
    }
}

/// Tables (and views) of a database: `(name, is_view)`, in schema order.
fn tables(conn: &Connection) -> rusqlite::Result<Vec<(String, bool)>> {
    let mut stmt = conn.prepare(
        "SELECT name, type = 'view' FROM sqlite_schema \
         WHERE type IN ('table', 'view') AND name NOT LIKE 'sqlite_%'",
    )?;
    stmt.query_map([], |r| Ok((r.get::<_, String>(0)?, r.get::<_, bool>(1)?)))?
        .collect()
}

/// `SHOW [FULL] TABLES`: lower-case names, sorted (MySQL with `lower_case_table_names=1`).
pub(crate) fn show_tables(conn: &Connection, db: &str, full: bool, like: Option<&str>) -> Outcome {
    let mut list = match tables(conn) {
        Ok(t) => t,
        Err(e) => return Outcome::Error(e.to_string()),
    };
    for t in &mut list {
        t.0 = t.0.to_lowercase();
    }
    list.sort();
    list.retain(|(name, _)| like.is_none_or(|p| like_matches(p, name)));
    let header = format!("Tables_in_{}", db.to_lowercase());
    let rows = list.into_iter().map(|(name, view)| {
        let mut row = vec![PyValue::Str(name)];
        if full {
            row.push(PyValue::Str(
                if view { "VIEW" } else { "BASE TABLE" }.to_string(),
            ));
        }
        row
    });
    let columns: Vec<&str> = if full {
        vec![header.as_str(), "Table_type"]
    } else {
        vec![header.as_str()]
    };
    Outcome::Rows(str_rows(&columns, rows))
}

/// `SHOW DATABASES`: the task set's databases, lower-case, sorted.
pub(crate) fn show_databases(names: &[String], like: Option<&str>) -> Outcome {
    let mut names: Vec<String> = names.iter().map(|n| n.to_lowercase()).collect();
    names.sort();
    names.retain(|n| like.is_none_or(|p| like_matches(p, n)));
    Outcome::Rows(str_rows(
        &["Database"],
        names.into_iter().map(|n| vec![PyValue::Str(n)]),
    ))
}

/// The schema name of `table` in `conn`, matched case-insensitively.
fn find_table(conn: &Connection, table: &str) -> Option<String> {
    tables(conn)
        .ok()?
        .into_iter()
        .map(|(n, _)| n)
        .find(|n| n.eq_ignore_ascii_case(table))
}

/// MySQL's spelling of an SQLite declared type.
fn mysql_type(decl: &str) -> String {
    let t = decl.split_whitespace().collect::<Vec<_>>().join(" ");
    let t = t.to_lowercase();
    match t.as_str() {
        "integer" => "int".to_string(),
        "real" => "double".to_string(),
        "" => "text".to_string(),
        _ => t,
    }
}

/// MySQL shows defaults as strings without quotes.
fn mysql_default(dflt: Option<String>) -> PyValue {
    match dflt {
        None => PyValue::None,
        Some(d) if d.eq_ignore_ascii_case("NULL") => PyValue::None,
        Some(d) => {
            let unquoted = d
                .strip_prefix('\'')
                .and_then(|s| s.strip_suffix('\''))
                .map(|s| s.replace("''", "'"));
            PyValue::Str(unquoted.unwrap_or(d))
        }
    }
}

struct ColumnInfo {
    name: String,
    decl: String,
    notnull: bool,
    dflt: Option<String>,
    pk: i64,
}

fn column_infos(conn: &Connection, table: &str) -> rusqlite::Result<Vec<ColumnInfo>> {
    let mut stmt =
        conn.prepare("SELECT name, type, \"notnull\", dflt_value, pk FROM pragma_table_info(?1)")?;
    stmt.query_map([table], |r| {
        Ok(ColumnInfo {
            name: r.get(0)?,
            decl: r.get(1)?,
            notnull: r.get(2)?,
            dflt: r.get(3)?,
            pk: r.get(4)?,
        })
    })?
    .collect()
}

/// First columns of the table's indexes: `(column, unique single-column index)`; foreign-key
/// columns count as indexed (MySQL creates an index for each foreign key).
fn indexed_columns(conn: &Connection, table: &str) -> rusqlite::Result<Vec<(String, bool)>> {
    let mut out = Vec::new();
    let indexes: Vec<(String, bool)> = {
        let mut stmt = conn.prepare("SELECT name, \"unique\" FROM pragma_index_list(?1)")?;
        stmt.query_map([table], |r| Ok((r.get(0)?, r.get(1)?)))?
            .collect::<rusqlite::Result<_>>()?
    };
    for (index, unique) in indexes {
        let cols: Vec<String> = {
            let mut stmt = conn.prepare("SELECT name FROM pragma_index_info(?1) ORDER BY seqno")?;
            stmt.query_map([&index], |r| r.get::<_, Option<String>>(0))?
                .filter_map(|c| c.transpose())
                .collect::<rusqlite::Result<_>>()?
        };
        if let Some(first) = cols.first() {
            out.push((first.clone(), unique && cols.len() == 1));
        }
    }
    let mut stmt =
        conn.prepare("SELECT \"from\" FROM pragma_foreign_key_list(?1) WHERE seq = 0")?;
    for col in stmt.query_map([table], |r| r.get::<_, String>(0))? {
        out.push((col?, false));
    }
    Ok(out)
}

/// `DESCRIBE t` / `SHOW COLUMNS FROM t`: `(Field, Type, Null, Key, Default, Extra)`.
pub(crate) fn describe(conn: &Connection, db: &str, table: &str, like: Option<&str>) -> Outcome {
    let Some(name) = find_table(conn, table) else {
        return Outcome::Error(format!(
            "Table '{}.{}' doesn't exist",
            db.to_lowercase(),
            table.to_lowercase()
        ));
    };
    let result = (|| -> rusqlite::Result<RowSet> {
        let cols = column_infos(conn, &name)?;
        let indexed = indexed_columns(conn, &name)?;
        let pk_cols = cols.iter().filter(|c| c.pk > 0).count();
        let rows = cols
            .into_iter()
            .filter(|c| like.is_none_or(|p| like_matches(p, &c.name)))
            .map(|c| {
                let key = if c.pk > 0 {
                    "PRI"
                } else if indexed
                    .iter()
                    .any(|(n, u)| *u && n.eq_ignore_ascii_case(&c.name))
                {
                    "UNI"
                } else if indexed.iter().any(|(n, _)| n.eq_ignore_ascii_case(&c.name)) {
                    "MUL"
                } else {
                    ""
                };
                // An INTEGER PRIMARY KEY is SQLite's rowid: MySQL's AUTO_INCREMENT column.
                let auto = c.pk == 1 && pk_cols == 1 && c.decl.eq_ignore_ascii_case("INTEGER");
                // MySQL 8 marks expression defaults (CURRENT_TIMESTAMP) as DEFAULT_GENERATED.
                let generated = c.dflt.as_deref().is_some_and(|d| {
                    ["CURRENT_TIMESTAMP", "CURRENT_DATE", "CURRENT_TIME"]
                        .iter()
                        .any(|k| d.eq_ignore_ascii_case(k))
                });
                let extra = if auto {
                    "auto_increment"
                } else if generated {
                    "DEFAULT_GENERATED"
                } else {
                    ""
                };
                vec![
                    PyValue::Str(c.name),
                    PyValue::Str(mysql_type(&c.decl)),
                    PyValue::Str(if c.notnull || c.pk > 0 { "NO" } else { "YES" }.to_string()),
                    PyValue::Str(key.to_string()),
                    mysql_default(c.dflt),
                    PyValue::Str(extra.to_string()),
                ]
            });
        Ok(str_rows(
            &["Field", "Type", "Null", "Key", "Default", "Extra"],
            rows,
        ))
    })();
    match result {
        Ok(rows) => Outcome::Rows(rows),
        Err(e) => Outcome::Error(e.to_string()),
    }
}

/// `SHOW CREATE TABLE t`: `(Table, Create Table)` with SQLite's own `CREATE` text.
pub(crate) fn show_create_table(conn: &Connection, db: &str, table: &str) -> Outcome {
    let found: rusqlite::Result<(String, String)> = conn.query_row(
        "SELECT name, sql FROM sqlite_schema WHERE type IN ('table', 'view') \
         AND lower(name) = lower(?1)",
        [table],
        |r| Ok((r.get(0)?, r.get(1)?)),
    );
    match found {
        Ok((name, sql)) => Outcome::Rows(str_rows(
            &["Table", "Create Table"],
            [vec![PyValue::Str(name.to_lowercase()), PyValue::Str(sql)]],
        )),
        Err(_) => Outcome::Error(format!(
            "Table '{}.{}' doesn't exist",
            db.to_lowercase(),
            table.to_lowercase()
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn recognises_mysql_forms() {
        assert_eq!(
            parse("SHOW TABLES"),
            Some(MysqlStmt::ShowTables {
                full: false,
                db: None,
                like: None
            })
        );
        assert_eq!(
            parse("show full tables from `shop` like 'ord%'"),
            Some(MysqlStmt::ShowTables {
                full: true,
                db: Some("shop".into()),
                like: Some("ord%".into())
            })
        );
        assert_eq!(
            parse("SHOW DATABASES"),
            Some(MysqlStmt::ShowDatabases { like: None })
        );
        assert_eq!(
            parse("DESC `Orders`"),
            Some(MysqlStmt::Describe {
                db: None,
                table: "Orders".into(),
                like: None
            })
        );
        assert_eq!(
            parse("SHOW COLUMNS FROM shop.orders"),
            Some(MysqlStmt::Describe {
                db: Some("shop".into()),
                table: "orders".into(),
                like: None
            })
        );
        assert_eq!(
            parse("SHOW FIELDS IN orders FROM shop LIKE 'o%'"),
            Some(MysqlStmt::Describe {
                db: Some("shop".into()),
                table: "orders".into(),
                like: Some("o%".into())
            })
        );
        assert_eq!(
            parse("use school"),
            Some(MysqlStmt::Use {
                db: "school".into()
            })
        );
        assert_eq!(
            parse("SHOW CREATE TABLE t"),
            Some(MysqlStmt::ShowCreateTable {
                db: None,
                table: "t".into()
            })
        );
    }

    #[test]
    fn leaves_everything_else_to_sqlite() {
        for sql in [
            "SELECT 1",
            "EXPLAIN SELECT 1",
            "EXPLAIN QUERY PLAN SELECT 1",
            "DESCRIBE SELECT * FROM t",
            "SHOW TABLES; DROP TABLE t",
            "SHOW WHERE x = 1",
            "USE",
            "USE a b",
            "SHOW TABLES LIKE",
            "SHOW COLUMNS orders",
            "DESC t c d",
            "USE `unterminated",
        ] {
            assert_eq!(parse(sql), None, "{sql}");
        }
    }

    #[test]
    fn like_is_mysql_like() {
        assert!(like_matches("ord%", "orders"));
        assert!(like_matches("ORD%", "orders"));
        assert!(like_matches("_rders", "orders"));
        assert!(!like_matches("ord", "orders"));
        assert!(like_matches("a\\%b", "a%b"));
        assert!(!like_matches("a\\%b", "axb"));
        assert!(like_matches("%", ""));
    }

    #[test]
    fn types_and_defaults_look_like_mysql() {
        assert_eq!(mysql_type("INTEGER"), "int");
        assert_eq!(mysql_type("VARCHAR(50)"), "varchar(50)");
        assert_eq!(mysql_type("float(10,2)"), "float(10,2)");
        assert_eq!(
            mysql_default(Some("'0.00'".into())),
            PyValue::Str("0.00".into())
        );
        assert_eq!(mysql_default(Some("NULL".into())), PyValue::None);
        assert_eq!(mysql_default(None), PyValue::None);
    }
}
