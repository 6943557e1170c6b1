//! Converts upstream's MySQL dump (`ic_spider_dbs.sql`, made by `sqlite3mysql` + `mysqldump`)
//! into SQLite images, so that episodes can run on exactly the rows upstream's MySQL held.
//!
//! Only what `mysqldump` writes is understood: `CREATE DATABASE` / `USE`, `CREATE TABLE` with
//! column definitions, `PRIMARY KEY`, `UNIQUE KEY`, `KEY` and `CONSTRAINT … FOREIGN KEY`, and
//! multi-row `INSERT INTO … VALUES` with MySQL string escapes. Session statements (`SET`,
//! `LOCK TABLES`, `CREATE USER`, `GRANT`, conditional comments) are skipped and counted in the
//! [`DumpReport`].
//!
//! Column types are kept as MySQL wrote them (`int`, `varchar(50)`, `float(10,2)`,
//! `decimal(19,4)`, `datetime`): SQLite accepts them as declared types, gives them the usual
//! affinities, and `DESCRIBE` then shows MySQL's own type names. An `AUTO_INCREMENT` single-column
//! primary key becomes `INTEGER` (a rowid alias), as in Spider's SQLite files.
//!
//! Text columns get a collation ([`TextCollation`]); the default, [`MYSQL_GENERAL_CI`], imitates
//! the dump's `utf8mb4_general_ci`: case-insensitive, Latin accents ignored, trailing spaces
//! ignored (`PAD SPACE`). Every connection that opens such an image must register it first
//! ([`register_collations`]; the SQL env does).

use std::collections::BTreeMap;

use rusqlite::Connection;
use rusqlite::types::Value as SqlValue;

use super::{DbImage, serialize};
use crate::{Error, Result};

/// The collation name that imitates MySQL's `utf8mb4_general_ci`.
pub const MYSQL_GENERAL_CI: &str = "mysql_general_ci";

/// Which collation text columns of the converted tables declare.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum TextCollation {
    /// SQLite's default: byte comparison (Spider's own semantics).
    Binary,
    /// SQLite's `NOCASE`: ASCII case folding only.
    NoCase,
    /// [`MYSQL_GENERAL_CI`]: what upstream's MySQL compared with.
    #[default]
    MysqlGeneralCi,
}

/// How to convert.
#[derive(Debug, Clone, Default)]
pub struct ConvertOptions {
    pub text_collation: TextCollation,
}

/// Registers [`MYSQL_GENERAL_CI`] on `conn`.
pub fn register_collations(conn: &Connection) -> rusqlite::Result<()> {
    conn.create_collation(MYSQL_GENERAL_CI, mysql_general_ci_cmp)
}

/// `utf8mb4_general_ci` approximated: trailing spaces ignored, then character by character on a
/// folded form (upper case, Latin-1 accents dropped, `ß` = `s`).
pub fn mysql_general_ci_cmp(a: &str, b: &str) -> std::cmp::Ordering {
    let a = a.trim_end_matches(' ').chars().map(fold_general_ci);
    let b = b.trim_end_matches(' ').chars().map(fold_general_ci);
    a.cmp(b)
}

fn fold_general_ci(c: char) -> char {
    if c.is_ascii() {
        return c.to_ascii_uppercase();
    }
    match c {
        'À'..='Å' | 'à'..='å' => 'A',
        'Ç' | 'ç' => 'C',
        'È'..='Ë' | 'è'..='ë' => 'E',
        'Ì'..='Ï' | 'ì'..='ï' => 'I',
        'Ñ' | 'ñ' => 'N',
        'Ò'..='Ö' | 'ò'..='ö' | 'Ø' | 'ø' => 'O',
        'Ù'..='Ü' | 'ù'..='ü' => 'U',
        'Ý' | 'ý' | 'ÿ' => 'Y',
        'ß' => 'S',
        _ => c.to_uppercase().next().unwrap_or(c),
    }
}

/// What the conversion did.
#[derive(Debug, Clone, Default, serde::Serialize)]
pub struct DumpReport {
    pub databases: usize,
    pub tables: usize,
    pub rows: usize,
    pub indexes: usize,
    /// Statements skipped, by their first two words (`SET`, `LOCK TABLES`, `DROP TABLE`, …).
    pub skipped: BTreeMap<String, usize>,
}

/// Converts a whole dump. Databases come back in the dump's order.
pub fn convert(dump: &str, options: &ConvertOptions) -> Result<(Vec<DbImage>, DumpReport)> {
    let mut report = DumpReport::default();
    let mut dbs: Vec<(String, Connection)> = Vec::new();
    let mut current: Option<usize> = None;
    for stmt in split_statements(dump) {
        let words = leading_words(&stmt, 3);
        let head: Vec<&str> = words.iter().map(String::as_str).collect();
        match head.as_slice() {
            ["CREATE", "DATABASE", ..] | ["USE", ..] => {
                let name =
                    last_identifier(&stmt).ok_or_else(|| dump_error(&stmt, "no database name"))?;
                let idx = match dbs.iter().position(|(n, _)| *n == name) {
                    Some(i) => i,
                    None => {
                        let conn = Connection::open_in_memory().map_err(db_err)?;
                        register_collations(&conn).map_err(db_err)?;
                        conn.execute_batch("PRAGMA foreign_keys = OFF; BEGIN;")
                            .map_err(db_err)?;
                        dbs.push((name, conn));
                        report.databases += 1;
                        dbs.len() - 1
                    }
                };
                current = Some(idx);
            }
            ["CREATE", "TABLE", ..] => {
                let conn = current_db(&dbs, current, &stmt)?;
                let (create, indexes) = convert_create_table(&stmt, options)?;
                conn.execute_batch(&create)
                    .map_err(|e| dump_error(&create, &e.to_string()))?;
                for index in &indexes {
                    conn.execute_batch(index)
                        .map_err(|e| dump_error(index, &e.to_string()))?;
                }
                report.tables += 1;
                report.indexes += indexes.len();
            }
            ["INSERT", "INTO", ..] => {
                let conn = current_db(&dbs, current, &stmt)?;
                report.rows += insert_rows(conn, &stmt)?;
            }
            _ => {
                let key = if head.is_empty() {
                    "(comment)".to_string()
                } else {
                    head[..head.len().min(2)].join(" ")
                };
                *report.skipped.entry(key).or_default() += 1;
            }
        }
    }
    let mut images = Vec::with_capacity(dbs.len());
    for (name, mut conn) in dbs {
        conn.execute_batch("COMMIT; VACUUM;").map_err(db_err)?;
        images.push(serialize(&mut conn, &name)?);
    }
    Ok((images, report))
}

fn db_err(e: rusqlite::Error) -> Error {
    Error::Database(format!("MySQL dump: {e}"))
}

fn dump_error(stmt: &str, reason: &str) -> Error {
    let head: String = stmt.chars().take(80).collect();
    Error::Database(format!("MySQL dump: {reason} in `{head}…`"))
}

fn current_db<'a>(
    dbs: &'a [(String, Connection)],
    current: Option<usize>,
    stmt: &str,
) -> Result<&'a Connection> {
    current
        .and_then(|i| dbs.get(i))
        .map(|(_, c)| c)
        .ok_or_else(|| dump_error(stmt, "statement before any USE"))
}

/// Splits the dump at `;` outside quotes and comments; comments are dropped (MySQL's
/// `/*!NNNNN … */` conditional comments included: they only hold session settings here).
fn split_statements(dump: &str) -> Vec<String> {
    let b = dump.as_bytes();
    let mut out = Vec::new();
    let mut cur: Vec<u8> = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        match c {
            b'\'' | b'"' | b'`' => {
                let end = quoted_end(b, i);
                cur.extend_from_slice(&b[i..end]);
                i = end;
            }
            b'-' if b.get(i + 1) == Some(&b'-')
                && b.get(i + 2).is_none_or(|c| c.is_ascii_whitespace()) =>
            {
                while i < b.len() && b[i] != b'\n' {
                    i += 1;
                }
            }
            b'#' => {
                while i < b.len() && b[i] != b'\n' {
                    i += 1;
                }
            }
            b'/' if b.get(i + 1) == Some(&b'*') => {
                i += 2;
                while i < b.len() && !(b[i] == b'*' && b.get(i + 1) == Some(&b'/')) {
                    i += 1;
                }
                i = (i + 2).min(b.len());
                cur.push(b' ');
            }
            b';' => {
                let s = String::from_utf8_lossy(&cur).trim().to_string();
                if !s.is_empty() {
                    out.push(s);
                }
                cur.clear();
                i += 1;
            }
            _ => {
                cur.push(c);
                i += 1;
            }
        }
    }
    let s = String::from_utf8_lossy(&cur).trim().to_string();
    if !s.is_empty() {
        out.push(s);
    }
    out
}

/// Index just past the quoted token starting at `start` (MySQL: backslash escapes and doubled
/// quotes inside strings; doubled backticks inside identifiers).
fn quoted_end(b: &[u8], start: usize) -> usize {
    let q = b[start];
    let mut i = start + 1;
    while i < b.len() {
        if b[i] == b'\\' && q != b'`' {
            i += 2;
            continue;
        }
        if b[i] == q {
            if b.get(i + 1) == Some(&q) {
                i += 2;
                continue;
            }
            return i + 1;
        }
        i += 1;
    }
    b.len()
}

/// The first `n` bare words, upper-cased.
fn leading_words(stmt: &str, n: usize) -> Vec<String> {
    stmt.split_whitespace()
        .take(n)
        .take_while(|w| w.bytes().all(|c| c.is_ascii_alphabetic() || c == b'_'))
        .map(str::to_ascii_uppercase)
        .collect()
}

/// The last `` `identifier` `` in the statement (database names in `CREATE DATABASE` / `USE`).
fn last_identifier(stmt: &str) -> Option<String> {
    let end = stmt.rfind('`')?;
    let start = stmt[..end].rfind('`')?;
    Some(stmt[start + 1..end].to_string())
}

/// Splits `s` at top-level commas (outside parentheses and quotes).
fn split_top_level(s: &str) -> Vec<&str> {
    let b = s.as_bytes();
    let mut parts = Vec::new();
    let (mut depth, mut start, mut i) = (0i32, 0, 0);
    while i < b.len() {
        match b[i] {
            b'\'' | b'"' | b'`' => {
                i = quoted_end(b, i);
                continue;
            }
            b'(' => depth += 1,
            b')' => depth -= 1,
            b',' if depth == 0 => {
                parts.push(s[start..i].trim());
                start = i + 1;
            }
            _ => {}
        }
        i += 1;
    }
    let last = s[start..].trim();
    if !last.is_empty() {
        parts.push(last);
    }
    parts
}

/// Tokens of a column definition: quoted strings, words with an attached parenthesised
/// argument list (`varchar(50)`, `float(10,2)`), other words.
fn column_tokens(s: &str) -> Vec<&str> {
    let b = s.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        if b[i].is_ascii_whitespace() {
            i += 1;
            continue;
        }
        let start = i;
        if matches!(b[i], b'\'' | b'"' | b'`') {
            i = quoted_end(b, i);
        } else {
            while i < b.len() && !b[i].is_ascii_whitespace() {
                if b[i] == b'(' {
                    let mut depth = 0;
                    while i < b.len() {
                        match b[i] {
                            b'(' => depth += 1,
                            b')' => {
                                depth -= 1;
                                if depth == 0 {
                                    i += 1;
                                    break;
                                }
                            }
                            _ => {}
                        }
                        i += 1;
                    }
                    continue;
                }
                i += 1;
            }
        }
        out.push(&s[start..i]);
    }
    out
}

/// A MySQL string literal's text (escapes decoded).
fn unquote_mysql(lit: &str) -> String {
    let q = lit.chars().next().unwrap_or('\'');
    let inner = lit.get(q.len_utf8()..).unwrap_or("");
    let inner = inner.strip_suffix(q).unwrap_or(inner);
    let mut out = String::with_capacity(inner.len());
    let mut chars = inner.chars();
    while let Some(c) = chars.next() {
        if c == '\\' {
            match chars.next() {
                Some('0') => out.push('\0'),
                Some('n') => out.push('\n'),
                Some('r') => out.push('\r'),
                Some('t') => out.push('\t'),
                Some('b') => out.push('\u{8}'),
                Some('Z') => out.push('\u{1a}'),
                Some(other) => out.push(other),
                None => {}
            }
        } else if c == q {
            // A doubled quote inside the literal stands for one.
            if chars.clone().next() == Some(q) {
                chars.next();
            }
            out.push(q);
        } else {
            out.push(c);
        }
    }
    out
}

fn sqlite_string(s: &str) -> String {
    format!("'{}'", s.replace('\'', "''"))
}

fn is_text_type(ty: &str) -> bool {
    let t = ty.to_ascii_lowercase();
    t.contains("char") || t.contains("text")
}

/// `CREATE TABLE` in MySQL's dialect → SQLite's, plus `CREATE INDEX` statements for `KEY`s.
fn convert_create_table(stmt: &str, options: &ConvertOptions) -> Result<(String, Vec<String>)> {
    let open = stmt
        .find('(')
        .ok_or_else(|| dump_error(stmt, "CREATE TABLE without columns"))?;
    let name = last_identifier(&stmt[..open])
        .ok_or_else(|| dump_error(stmt, "CREATE TABLE without a name"))?;
    let close = stmt
        .rfind(')')
        .filter(|close| *close > open)
        .ok_or_else(|| dump_error(stmt, "unbalanced CREATE TABLE"))?;
    let items = split_top_level(&stmt[open + 1..close]);

    // Which single column is the primary key (for AUTO_INCREMENT → INTEGER PRIMARY KEY).
    let mut single_pk: Option<String> = None;
    for item in &items {
        if item.to_ascii_uppercase().starts_with("PRIMARY KEY") {
            let cols = paren_list(item);
            if cols.len() == 1 {
                single_pk = Some(cols[0].clone());
            }
        }
    }

    let mut defs = Vec::new();
    let mut indexes = Vec::new();
    for item in items {
        let upper = item.to_ascii_uppercase();
        if item.starts_with('`') {
            defs.push(convert_column(item, single_pk.as_deref(), options)?);
        } else if upper.starts_with("PRIMARY KEY") {
            defs.push(format!("PRIMARY KEY ({})", quote_list(&paren_list(item))));
        } else if upper.starts_with("UNIQUE KEY") || upper.starts_with("UNIQUE INDEX") {
            defs.push(format!("UNIQUE ({})", quote_list(&paren_list(item))));
        } else if upper.starts_with("KEY") || upper.starts_with("INDEX") {
            let index_name = column_tokens(item)
                .get(1)
                .map(|t| t.trim_matches('`').to_string())
                .unwrap_or_default();
            indexes.push(format!(
                "CREATE INDEX \"{}\" ON \"{}\" ({})",
                format!("{name}_{index_name}").replace('"', "\"\""),
                name.replace('"', "\"\""),
                quote_list(&paren_list(item))
            ));
        } else if upper.starts_with("CONSTRAINT") || upper.starts_with("FOREIGN KEY") {
            // SQLite reads MySQL's FOREIGN KEY syntax, backticks included.
            defs.push(item.to_string());
        } else {
            return Err(dump_error(item, "unknown table element"));
        }
    }
    let create = format!(
        "CREATE TABLE \"{}\" (\n  {}\n)",
        name.replace('"', "\"\""),
        defs.join(",\n  ")
    );
    Ok((create, indexes))
}

/// The identifiers inside the first `( … )` of `item`.
fn paren_list(item: &str) -> Vec<String> {
    let Some(open) = item.find('(') else {
        return Vec::new();
    };
    let close = item.rfind(')').unwrap_or(item.len());
    if close <= open {
        return Vec::new();
    }
    split_top_level(&item[open + 1..close])
        .into_iter()
        .map(|c| {
            // `col`(10) prefix lengths are MySQL-only.
            let c = c.split('(').next().unwrap_or(c).trim();
            c.trim_matches('`').to_string()
        })
        .collect()
}

fn quote_list(cols: &[String]) -> String {
    cols.iter()
        .map(|c| format!("\"{}\"", c.replace('"', "\"\"")))
        .collect::<Vec<_>>()
        .join(", ")
}

fn convert_column(item: &str, single_pk: Option<&str>, options: &ConvertOptions) -> Result<String> {
    let tokens = column_tokens(item);
    let name = tokens
        .first()
        .map(|t| t.trim_matches('`').replace("``", "`"))
        .ok_or_else(|| dump_error(item, "empty column"))?;
    let mut ty = tokens
        .get(1)
        .map(|t| (*t).to_string())
        .ok_or_else(|| dump_error(item, "column without a type"))?;
    let mut rest: Vec<String> = Vec::new();
    let mut auto_increment = false;
    let mut i = 2;
    while i < tokens.len() {
        let t = tokens[i].to_ascii_uppercase();
        match t.as_str() {
            "UNSIGNED" | "ZEROFILL" | "SIGNED" => {}
            "NOT"
                if tokens
                    .get(i + 1)
                    .is_some_and(|n| n.eq_ignore_ascii_case("NULL")) =>
            {
                rest.push("NOT NULL".into());
                i += 1;
            }
            "NULL" => {}
            "AUTO_INCREMENT" => auto_increment = true,
            "DEFAULT" => {
                let v = tokens.get(i + 1).copied().unwrap_or("NULL");
                let v = if v.starts_with('\'') || v.starts_with('"') {
                    sqlite_string(&unquote_mysql(v))
                } else {
                    v.to_string()
                };
                rest.push(format!("DEFAULT {v}"));
                i += 1;
            }
            "COLLATE" | "COMMENT" => i += 1,
            "CHARACTER" | "CHARSET" => {
                // CHARACTER SET x / CHARSET x
                i += if t == "CHARACTER" { 2 } else { 1 };
            }
            "ON" => {
                // ON UPDATE CURRENT_TIMESTAMP
                i += 2;
            }
            _ => return Err(dump_error(item, &format!("unknown column attribute {t}"))),
        }
        i += 1;
    }
    if auto_increment && single_pk == Some(name.as_str()) {
        ty = "INTEGER".into();
    }
    if is_text_type(&ty) {
        match options.text_collation {
            TextCollation::Binary => {}
            TextCollation::NoCase => rest.push("COLLATE NOCASE".into()),
            TextCollation::MysqlGeneralCi => rest.push(format!("COLLATE {MYSQL_GENERAL_CI}")),
        }
    }
    let mut def = format!("\"{}\" {ty}", name.replace('"', "\"\""));
    for r in rest {
        def.push(' ');
        def.push_str(&r);
    }
    Ok(def)
}

/// Runs one `INSERT INTO t VALUES (…),(…)` row by row with bound values; returns the row count.
fn insert_rows(conn: &Connection, stmt: &str) -> Result<usize> {
    let upper = stmt.to_ascii_uppercase();
    let values_at = upper
        .find(" VALUES")
        .ok_or_else(|| dump_error(stmt, "INSERT without VALUES"))?;
    let table = last_identifier(&stmt[..values_at])
        .ok_or_else(|| dump_error(stmt, "INSERT without a table"))?;
    let rows = parse_value_rows(&stmt[values_at + " VALUES".len()..])
        .map_err(|reason| dump_error(stmt, reason))?;
    let Some(width) = rows.first().map(Vec::len) else {
        return Ok(0);
    };
    let sql = format!(
        "INSERT INTO \"{}\" VALUES ({})",
        table.replace('"', "\"\""),
        vec!["?"; width].join(", ")
    );
    let mut prepared = conn
        .prepare(&sql)
        .map_err(|e| dump_error(&sql, &e.to_string()))?;
    for row in &rows {
        prepared
            .execute(rusqlite::params_from_iter(row.iter()))
            .map_err(|e| dump_error(stmt, &e.to_string()))?;
    }
    Ok(rows.len())
}

/// `(1,'a',NULL),(2,'b\'c',3.5)` → rows of SQLite values.
fn parse_value_rows(s: &str) -> std::result::Result<Vec<Vec<SqlValue>>, &'static str> {
    let b = s.as_bytes();
    let mut i = 0;
    let mut rows = Vec::new();
    let skip_ws = |i: &mut usize| {
        while *i < b.len() && (b[*i].is_ascii_whitespace() || b[*i] == b',') {
            *i += 1;
        }
    };
    loop {
        skip_ws(&mut i);
        if i >= b.len() {
            break;
        }
        if b[i] != b'(' {
            return Err("expected '(' in VALUES");
        }
        i += 1;
        let mut row = Vec::new();
        loop {
            while i < b.len() && b[i].is_ascii_whitespace() {
                i += 1;
            }
            let Some(&c) = b.get(i) else {
                return Err("unterminated row");
            };
            match c {
                b')' => {
                    i += 1;
                    break;
                }
                b',' => i += 1,
                b'\'' | b'"' => {
                    let end = quoted_end(b, i);
                    row.push(SqlValue::Text(unquote_mysql(&s[i..end])));
                    i = end;
                }
                _ => {
                    let start = i;
                    while i < b.len() && b[i] != b',' && b[i] != b')' {
                        i += 1;
                    }
                    let tok = s[start..i].trim();
                    row.push(parse_scalar(tok)?);
                }
            }
        }
        rows.push(row);
    }
    Ok(rows)
}

fn parse_scalar(tok: &str) -> std::result::Result<SqlValue, &'static str> {
    if tok.eq_ignore_ascii_case("NULL") {
        return Ok(SqlValue::Null);
    }
    if let Some(hex) = tok.strip_prefix("0x").or_else(|| tok.strip_prefix("0X")) {
        let bytes: std::result::Result<Vec<u8>, _> = (0..hex.len())
            .step_by(2)
            .map(|k| u8::from_str_radix(hex.get(k..k + 2).unwrap_or("zz"), 16))
            .collect();
        return bytes.map(SqlValue::Blob).map_err(|_| "bad hex literal");
    }
    if !tok.contains(['.', 'e', 'E'])
        && let Ok(i) = tok.parse::<i64>()
    {
        return Ok(SqlValue::Integer(i));
    }
    tok.parse::<f64>()
        .map(SqlValue::Real)
        .map_err(|_| "unknown value in VALUES")
}

#[cfg(test)]
mod tests {
    use super::*;

    const DUMP: &str = r#"
-- MySQL dump
CREATE DATABASE  IF NOT EXISTS `demo` /*!40100 DEFAULT CHARACTER SET utf8mb4 */;
USE `demo`;
/*!40101 SET @OLD_CHARACTER_SET_CLIENT=@@CHARACTER_SET_CLIENT */;
DROP TABLE IF EXISTS `people`;
CREATE TABLE `people` (
  `People_ID` int NOT NULL AUTO_INCREMENT,
  `Name` text COLLATE utf8mb4_general_ci,
  `Height` double DEFAULT NULL,
  `Code` char(3) COLLATE utf8mb4_general_ci NOT NULL DEFAULT '',
  `Area` float(10,2) NOT NULL DEFAULT '0.00',
  `Created` timestamp NOT NULL DEFAULT CURRENT_TIMESTAMP ON UPDATE CURRENT_TIMESTAMP,
  PRIMARY KEY (`People_ID`),
  UNIQUE KEY `sqlite_autoindex_people_1` (`Code`),
  KEY `people_FK_0_0` (`Height`),
  CONSTRAINT `people_FK_0_0` FOREIGN KEY (`People_ID`) REFERENCES `people` (`People_ID`)
) ENGINE=InnoDB AUTO_INCREMENT=9 DEFAULT CHARSET=utf8mb4;
LOCK TABLES `people` WRITE;
INSERT INTO `people` VALUES (1,'Do They Know It\'s Christmas',1.5,'A',1.00,'2020-01-01 00:00:00'),(2,'a;b\\c',NULL,'B',2.50,'2020-01-01 00:00:00');
UNLOCK TABLES;
CREATE DATABASE IF NOT EXISTS `empty`;
USE `empty`;
CREATE TABLE `t` (`x` int DEFAULT NULL) ENGINE=InnoDB;
"#;

    #[test]
    fn converts_mysqldump_output() {
        let opts = ConvertOptions {
            text_collation: TextCollation::Binary,
        };
        let (images, report) = convert(DUMP, &opts).unwrap();
        assert_eq!(images.len(), 2);
        assert_eq!((report.tables, report.rows, report.indexes), (2, 2, 1));
        assert!(report.skipped.contains_key("LOCK TABLES"));
        let conn = super::super::open_image(&images[0], true).unwrap();
        let names: Vec<String> = conn
            .prepare("SELECT Name FROM people ORDER BY People_ID")
            .unwrap()
            .query_map([], |r| r.get(0))
            .unwrap()
            .collect::<rusqlite::Result<_>>()
            .unwrap();
        assert_eq!(names, ["Do They Know It's Christmas", "a;b\\c"]);
        let ty: String = conn
            .query_row(
                "SELECT type FROM pragma_table_info('people') WHERE name = 'Area'",
                [],
                |r| r.get(0),
            )
            .unwrap();
        assert_eq!(ty, "float(10,2)");
        let pk_type: String = conn
            .query_row(
                "SELECT type FROM pragma_table_info('people') WHERE pk = 1",
                [],
                |r| r.get(0),
            )
            .unwrap();
        assert_eq!(pk_type, "INTEGER");
    }

    #[test]
    fn text_columns_compare_like_mysql_general_ci() {
        let (images, _) = convert(DUMP, &ConvertOptions::default()).unwrap();
        let conn = super::super::open_image(&images[0], true).unwrap();
        let count = |sql: &str| -> i64 { conn.query_row(sql, [], |r| r.get(0)).unwrap() };
        assert_eq!(
            count("SELECT count(*) FROM people WHERE Name = 'DO THEY KNOW IT''S CHRISTMAS  '"),
            1
        );
        assert_eq!(count("SELECT count(*) FROM people WHERE Code = 'a'"), 1);
        let opts = ConvertOptions {
            text_collation: TextCollation::NoCase,
        };
        let (images, _) = convert(DUMP, &opts).unwrap();
        let conn = super::super::open_image(&images[0], true).unwrap();
        let n: i64 = conn
            .query_row("SELECT count(*) FROM people WHERE Code = 'a'", [], |r| {
                r.get(0)
            })
            .unwrap();
        assert_eq!(n, 1);
    }

    #[test]
    fn general_ci_folds_case_accents_and_trailing_spaces() {
        use std::cmp::Ordering::*;
        assert_eq!(mysql_general_ci_cmp("Alton ", "alton"), Equal);
        assert_eq!(mysql_general_ci_cmp("Zoë", "ZOE"), Equal);
        assert_eq!(mysql_general_ci_cmp(" a", "a"), Less);
        assert_eq!(mysql_general_ci_cmp("b", "A"), Greater);
    }

    #[test]
    fn malformed_dumps_are_errors() {
        assert!(convert("INSERT INTO `t` VALUES (1);", &ConvertOptions::default()).is_err());
        assert!(
            convert(
                "USE `x`; CREATE TABLE `t` (`a` int WEIRD);",
                &ConvertOptions::default()
            )
            .is_err()
        );
        assert!(
            convert(
                "USE `x`; CREATE TABLE `t` (`a` int); INSERT INTO `t` VALUES (1,",
                &ConvertOptions::default()
            )
            .is_err()
        );
    }
}
