//! InterCode-SQL task sets: upstream's Spider dev tasks, the databases they run on, and our own
//! fixtures.
//!
//! A [`SqlTaskSet`] pairs tasks ([`SqlTask`], upstream's record shape, read unchanged from
//! `ic_spider_dev.json`) with [`DatabaseImages`]: one serialized SQLite database per name, loaded
//! once and cached as bytes, from which the SQL env makes a fresh in-memory copy per episode.
//!
//! Three sources of databases:
//! * [`load_ic_spider`] — Spider's own SQLite files (`database/<db>/<db>.sqlite`), loaded lazily.
//!   `wta_1.sqlite` is not public; it is built from the schema file beside it (`wta_1.sql`, whose
//!   first line is corrupted in the official release and repaired here), so its tables are empty,
//!   as upstream's were.
//! * [`load_upstream_mysql`] — upstream's MySQL dump (`ic_spider_dbs.sql`) converted to SQLite
//!   ([`mysql_dump`]), to compare with upstream on identical rows.
//! * [`fixtures`] — our small embedded databases (`fixtures/sql/*.sql`, built at load time) and
//!   tasks (`fixtures/sql/tasks.json`), the default when no data is given.
//!
//! ```
//! let set = intercode::data::spider::fixtures()?;
//! assert!(set.tasks.len() >= 20);
//! let image = set.images.get(&set.tasks[0].db)?;
//! assert!(image.bytes.starts_with(b"SQLite format 3\0"));
//! # Ok::<(), intercode::Error>(())
//! ```

pub mod mysql_dump;

use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use rusqlite::{Connection, MAIN_DB, OpenFlags};
use serde::de::{MapAccess, Visitor};
use serde::ser::SerializeMap;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::{Error, Result};

/// Upstream's task file, relative to the shared data folder.
pub const IC_SPIDER_DEV: &str = "intercode-upstream/data/sql/spider/ic_spider_dev.json";
/// Upstream's MySQL dump of the 20 Spider dev databases, relative to the shared data folder.
pub const IC_SPIDER_DUMP: &str = "intercode-upstream/data/sql/spider/ic_spider_dbs.sql";
/// The Spider release folder (`dev.json`, `tables.json`, `database/`), relative to the shared
/// data folder.
pub const SPIDER_DIR: &str = "datasets/spider";

/// One InterCode-SQL task, as upstream's `ic_spider_dev.json` records it.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct SqlTask {
    /// The database the task runs on (upstream runs `use {db}` first).
    pub db: String,
    /// The gold SQL query.
    pub gold: String,
    /// The natural-language question.
    pub query: String,
    /// Spider's hardness: easy, medium, hard, extra.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hardness: Option<String>,
    /// Tables and their columns, in upstream's order (used by the schema "handicap" prompt).
    #[serde(default)]
    pub db_tables: DbTables,
}

/// `{table: [columns]}` keeping the file's order.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct DbTables(pub Vec<(String, Vec<String>)>);

impl Serialize for DbTables {
    fn serialize<S: Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        let mut map = s.serialize_map(Some(self.0.len()))?;
        for (k, v) in &self.0 {
            map.serialize_entry(k, v)?;
        }
        map.end()
    }
}

impl<'de> Deserialize<'de> for DbTables {
    fn deserialize<D: Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = DbTables;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a map from table names to column lists")
            }
            fn visit_map<A: MapAccess<'de>>(
                self,
                mut map: A,
            ) -> std::result::Result<DbTables, A::Error> {
                let mut out = Vec::new();
                while let Some((k, v)) = map.next_entry::<String, Vec<String>>()? {
                    out.push((k, v));
                }
                Ok(DbTables(out))
            }
        }
        d.deserialize_map(V)
    }
}

/// A task list and the databases it runs on.
#[derive(Debug, Clone)]
pub struct SqlTaskSet {
    /// A short label for logs (`spider-dev`, `spider-dev/upstream-mysql`, `fixtures`).
    pub name: String,
    pub tasks: Vec<SqlTask>,
    pub images: Arc<DatabaseImages>,
}

impl SqlTaskSet {
    /// The same databases with another task list (e.g. `--tasks FILE`); every task's database
    /// must exist.
    pub fn with_tasks(&self, name: impl Into<String>, tasks: Vec<SqlTask>) -> Result<SqlTaskSet> {
        for (i, t) in tasks.iter().enumerate() {
            if self.images.resolve(&t.db).is_none() {
                return Err(Error::Other(format!(
                    "task {i} uses database {:?}, which the {} data does not have",
                    t.db, self.name
                )));
            }
        }
        Ok(SqlTaskSet {
            name: name.into(),
            tasks,
            images: Arc::clone(&self.images),
        })
    }
}

/// One database, serialized: the bytes of an SQLite file (rollback-journal mode).
#[derive(Debug)]
pub struct DbImage {
    pub name: String,
    pub bytes: Vec<u8>,
}

/// Where the images come from.
#[derive(Debug)]
enum ImageSource {
    /// Built in memory up front (fixtures, the MySQL dump).
    Prebuilt,
    /// Spider's `database/` folder, read on first use.
    SpiderDir(PathBuf),
}

/// Database name → serialized SQLite image, loaded lazily and cached. Names are matched
/// case-insensitively (upstream's MySQL ran with `lower_case_table_names=1`).
#[derive(Debug)]
pub struct DatabaseImages {
    source: ImageSource,
    /// Canonical names, sorted.
    names: Vec<String>,
    cache: Mutex<BTreeMap<String, Arc<DbImage>>>,
}

impl DatabaseImages {
    /// Images already built.
    pub fn from_images(images: Vec<DbImage>) -> DatabaseImages {
        let mut names: Vec<String> = images.iter().map(|i| i.name.clone()).collect();
        names.sort();
        let cache = images
            .into_iter()
            .map(|i| (i.name.clone(), Arc::new(i)))
            .collect();
        DatabaseImages {
            source: ImageSource::Prebuilt,
            names,
            cache: Mutex::new(cache),
        }
    }

    /// Builds one image per `(name, SQL script)`.
    pub fn from_scripts(scripts: &[(&str, &str)]) -> Result<DatabaseImages> {
        let images = scripts
            .iter()
            .map(|(name, sql)| image_from_script(name, sql))
            .collect::<Result<Vec<_>>>()?;
        Ok(DatabaseImages::from_images(images))
    }

    /// Spider's `database/` folder: every subfolder `<db>` holding `<db>.sqlite` or `<db>.sql`.
    pub fn from_spider_dir(database_dir: &Path) -> Result<DatabaseImages> {
        let entries = std::fs::read_dir(database_dir).map_err(|e| Error::io(database_dir, e))?;
        let mut names = Vec::new();
        for entry in entries {
            let entry = entry.map_err(|e| Error::io(database_dir, e))?;
            let name = entry.file_name().to_string_lossy().into_owned();
            let dir = entry.path();
            if dir.join(format!("{name}.sqlite")).is_file()
                || dir.join(format!("{name}.sql")).is_file()
            {
                names.push(name);
            }
        }
        if names.is_empty() {
            return Err(Error::Other(format!(
                "{} holds no Spider databases (<db>/<db>.sqlite)",
                database_dir.display()
            )));
        }
        names.sort();
        Ok(DatabaseImages {
            source: ImageSource::SpiderDir(database_dir.to_path_buf()),
            names,
            cache: Mutex::new(BTreeMap::new()),
        })
    }

    /// The canonical database names, sorted.
    pub fn names(&self) -> &[String] {
        &self.names
    }

    /// The canonical spelling of `name` (case-insensitive match), if the database exists.
    pub fn resolve(&self, name: &str) -> Option<&str> {
        self.names
            .iter()
            .find(|n| n.eq_ignore_ascii_case(name))
            .map(String::as_str)
    }

    /// The image of database `name`, loading and caching it on first use.
    pub fn get(&self, name: &str) -> Result<Arc<DbImage>> {
        let canonical = self
            .resolve(name)
            .ok_or_else(|| Error::Database(format!("unknown database {name:?}")))?
            .to_string();
        let mut cache = self
            .cache
            .lock()
            .map_err(|_| Error::Other("database image cache poisoned".into()))?;
        if let Some(image) = cache.get(&canonical) {
            return Ok(Arc::clone(image));
        }
        let image = match &self.source {
            ImageSource::Prebuilt => {
                return Err(Error::Database(format!("no image for database {name:?}")));
            }
            ImageSource::SpiderDir(dir) => Arc::new(load_spider_db(dir, &canonical)?),
        };
        cache.insert(canonical, Arc::clone(&image));
        Ok(image)
    }

    /// Row count of every table of every database (for comparing data sources).
    pub fn row_counts(&self) -> Result<BTreeMap<String, BTreeMap<String, u64>>> {
        let mut out = BTreeMap::new();
        for name in &self.names {
            let image = self.get(name)?;
            let conn = open_image(&image, true)?;
            let tables: Vec<String> = {
                let mut stmt = conn
                    .prepare(
                        "SELECT name FROM sqlite_schema WHERE type = 'table' \
                         AND name NOT LIKE 'sqlite_%' ORDER BY name",
                    )
                    .map_err(db_err)?;
                stmt.query_map([], |r| r.get::<_, String>(0))
                    .map_err(db_err)?
                    .collect::<rusqlite::Result<_>>()
                    .map_err(db_err)?
            };
            let mut counts = BTreeMap::new();
            for t in tables {
                let n: i64 = conn
                    .query_row(
                        &format!("SELECT count(*) FROM \"{}\"", t.replace('"', "\"\"")),
                        [],
                        |r| r.get(0),
                    )
                    .map_err(db_err)?;
                counts.insert(t, u64::try_from(n).unwrap_or(0));
            }
            out.insert(name.clone(), counts);
        }
        Ok(out)
    }
}

/// One table whose row count differs between two data sources.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RowCountDiff {
    pub db: String,
    pub table: String,
    /// `None`: the table is missing on that side.
    pub left: Option<u64>,
    pub right: Option<u64>,
}

/// Tables whose row counts differ between `left` and `right` (databases and tables matched
/// case-insensitively).
pub fn compare_row_counts(
    left: &DatabaseImages,
    right: &DatabaseImages,
) -> Result<Vec<RowCountDiff>> {
    let lower =
        |m: BTreeMap<String, BTreeMap<String, u64>>| -> BTreeMap<String, BTreeMap<String, u64>> {
            m.into_iter()
                .map(|(db, t)| {
                    (
                        db.to_lowercase(),
                        t.into_iter().map(|(k, v)| (k.to_lowercase(), v)).collect(),
                    )
                })
                .collect()
        };
    let l = lower(left.row_counts()?);
    let r = lower(right.row_counts()?);
    let mut out = Vec::new();
    let dbs: std::collections::BTreeSet<&String> = l.keys().chain(r.keys()).collect();
    for db in dbs {
        let empty = BTreeMap::new();
        let lt = l.get(db).unwrap_or(&empty);
        let rt = r.get(db).unwrap_or(&empty);
        let tables: std::collections::BTreeSet<&String> = lt.keys().chain(rt.keys()).collect();
        for t in tables {
            let (a, b) = (lt.get(t).copied(), rt.get(t).copied());
            if a != b {
                out.push(RowCountDiff {
                    db: db.clone(),
                    table: t.clone(),
                    left: a,
                    right: b,
                });
            }
        }
    }
    Ok(out)
}

fn db_err(e: rusqlite::Error) -> Error {
    Error::Database(e.to_string())
}

/// Opens an image as a private in-memory database (used by loaders and checks; the env has its
/// own guarded opener).
pub(crate) fn open_image(image: &DbImage, read_only: bool) -> Result<Connection> {
    let mut conn = Connection::open_in_memory_with_flags(
        OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_NO_MUTEX,
    )
    .map_err(db_err)?;
    mysql_dump::register_collations(&conn).map_err(db_err)?;
    conn.deserialize_read_exact(
        MAIN_DB,
        image.bytes.as_slice(),
        image.bytes.len(),
        read_only,
    )
    .map_err(|e| Error::Database(format!("database {}: {e}", image.name)))?;
    Ok(conn)
}

/// Serializes the main database of `conn`.
pub(crate) fn serialize(conn: &mut Connection, name: &str) -> Result<DbImage> {
    let data = conn.serialize(MAIN_DB).map_err(db_err)?;
    Ok(DbImage {
        name: name.to_string(),
        bytes: data.to_vec(),
    })
}

/// Runs an SQL script in a new in-memory database and serializes it.
pub fn image_from_script(name: &str, sql: &str) -> Result<DbImage> {
    let mut conn = Connection::open_in_memory().map_err(db_err)?;
    conn.execute_batch(sql)
        .map_err(|e| Error::Database(format!("building database {name}: {e}")))?;
    serialize(&mut conn, name)
}

/// The official `wta_1.sql` starts with `CRloser_rank_pointsEATE TABLE players(`; it means
/// `CREATE TABLE players(`.
fn repair_spider_script(sql: &str) -> String {
    sql.replacen("CRloser_rank_pointsEATE TABLE", "CREATE TABLE", 1)
}

fn load_spider_db(database_dir: &Path, name: &str) -> Result<DbImage> {
    let dir = database_dir.join(name);
    let file = dir.join(format!("{name}.sqlite"));
    if file.is_file() {
        let mut bytes = std::fs::read(&file).map_err(|e| Error::io(&file, e))?;
        if !bytes.starts_with(b"SQLite format 3\0") || bytes.len() < 100 {
            return Err(Error::Database(format!(
                "{} is not an SQLite database",
                file.display()
            )));
        }
        // A file left in WAL mode (header bytes 18/19 == 2) cannot be deserialized; the
        // rows are all in the main file once the WAL is checkpointed, as in the release.
        if bytes[18] == 2 || bytes[19] == 2 {
            bytes[18] = 1;
            bytes[19] = 1;
        }
        let image = DbImage {
            name: name.to_string(),
            bytes,
        };
        // Fail here, with the file's name, rather than in the middle of an episode.
        let conn = open_image(&image, true)?;
        conn.query_row("SELECT count(*) FROM sqlite_schema", [], |r| {
            r.get::<_, i64>(0)
        })
        .map_err(|e| Error::Database(format!("{}: {e}", file.display())))?;
        return Ok(image);
    }
    let script = dir.join(format!("{name}.sql"));
    let sql = std::fs::read_to_string(&script).map_err(|e| Error::io(&script, e))?;
    image_from_script(name, &repair_spider_script(&sql))
}

/// Reads a task file in upstream's format (a JSON array of [`SqlTask`] records).
pub fn load_tasks(path: &Path) -> Result<Vec<SqlTask>> {
    let text = std::fs::read_to_string(path).map_err(|e| Error::io(path, e))?;
    parse_tasks(&text).map_err(|reason| Error::TaskFile {
        path: path.to_path_buf(),
        reason,
    })
}

fn parse_tasks(text: &str) -> std::result::Result<Vec<SqlTask>, String> {
    let tasks: Vec<SqlTask> = serde_json::from_str(text).map_err(|e| e.to_string())?;
    if tasks.is_empty() {
        return Err("the task list is empty".to_string());
    }
    Ok(tasks)
}

/// Upstream's Spider dev tasks on Spider's own SQLite files.
///
/// `tasks_path`: `ic_spider_dev.json`; `spider_dir`: the Spider release folder (the one holding
/// `database/`).
pub fn load_ic_spider(tasks_path: &Path, spider_dir: &Path) -> Result<SqlTaskSet> {
    let tasks = load_tasks(tasks_path)?;
    let images = DatabaseImages::from_spider_dir(&spider_dir.join("database"))?;
    let set = SqlTaskSet {
        name: "spider-dev".to_string(),
        tasks: Vec::new(),
        images: Arc::new(images),
    };
    set.with_tasks("spider-dev", tasks)
}

/// Spider's own dev split (`dev.json`, in Spider's order) as SQL tasks, with `db_tables` from
/// `tables.json`, on Spider's SQLite files. The same 1034 (database, question, gold) triples as
/// upstream's `ic_spider_dev.json`, which shuffled them and collapsed whitespace in the golds;
/// `hardness` is not in Spider's files and stays empty.
pub fn load_spider_dev(spider_dir: &Path) -> Result<SqlTaskSet> {
    #[derive(Deserialize)]
    struct DevItem {
        db_id: String,
        query: String,
        question: String,
    }
    #[derive(Deserialize)]
    struct Schema {
        db_id: String,
        table_names_original: Vec<String>,
        column_names_original: Vec<(i64, String)>,
    }
    let read = |name: &str| -> Result<String> {
        let p = spider_dir.join(name);
        std::fs::read_to_string(&p).map_err(|e| Error::io(&p, e))
    };
    let bad = |name: &str, e: serde_json::Error| Error::TaskFile {
        path: spider_dir.join(name),
        reason: e.to_string(),
    };
    let dev: Vec<DevItem> =
        serde_json::from_str(&read("dev.json")?).map_err(|e| bad("dev.json", e))?;
    let schemas: Vec<Schema> =
        serde_json::from_str(&read("tables.json")?).map_err(|e| bad("tables.json", e))?;
    let tables_of = |db: &str| -> DbTables {
        let Some(schema) = schemas.iter().find(|s| s.db_id == db) else {
            return DbTables::default();
        };
        DbTables(
            schema
                .table_names_original
                .iter()
                .enumerate()
                .map(|(i, t)| {
                    let cols = schema
                        .column_names_original
                        .iter()
                        .filter(|(ti, _)| usize::try_from(*ti).ok() == Some(i))
                        .map(|(_, c)| c.clone())
                        .collect();
                    (t.clone(), cols)
                })
                .collect(),
        )
    };
    let tasks = dev
        .into_iter()
        .map(|d| SqlTask {
            db_tables: tables_of(&d.db_id),
            db: d.db_id,
            gold: d.query,
            query: d.question,
            hardness: None,
        })
        .collect();
    let set = SqlTaskSet {
        name: "spider-dev (dev.json)".to_string(),
        tasks: Vec::new(),
        images: Arc::new(DatabaseImages::from_spider_dir(
            &spider_dir.join("database"),
        )?),
    };
    set.with_tasks("spider-dev (dev.json)", tasks)
}

/// Upstream's Spider dev tasks on the databases of upstream's MySQL dump (converted to SQLite),
/// with the conversion's report.
pub fn load_upstream_mysql(
    tasks_path: &Path,
    dump_path: &Path,
) -> Result<(SqlTaskSet, mysql_dump::DumpReport)> {
    let tasks = load_tasks(tasks_path)?;
    let dump = std::fs::read_to_string(dump_path).map_err(|e| Error::io(dump_path, e))?;
    let (images, report) = mysql_dump::convert(&dump, &mysql_dump::ConvertOptions::default())?;
    let set = SqlTaskSet {
        name: "spider-dev/upstream-mysql".to_string(),
        tasks: Vec::new(),
        images: Arc::new(DatabaseImages::from_images(images)),
    };
    Ok((set.with_tasks("spider-dev/upstream-mysql", tasks)?, report))
}

/// Our fixture databases, as `(name, SQL script)`.
pub const FIXTURE_DATABASES: [(&str, &str); 2] = [
    ("shop", include_str!("../../fixtures/sql/shop.sql")),
    ("school", include_str!("../../fixtures/sql/school.sql")),
];

/// Our fixture tasks (upstream's record format).
pub const FIXTURE_TASKS: &str = include_str!("../../fixtures/sql/tasks.json");

/// The embedded fixture task set: small databases built from `fixtures/sql/*.sql` and the tasks
/// of `fixtures/sql/tasks.json`.
pub fn fixtures() -> Result<SqlTaskSet> {
    let tasks = parse_tasks(FIXTURE_TASKS).map_err(|reason| Error::TaskFile {
        path: PathBuf::from("fixtures/sql/tasks.json"),
        reason,
    })?;
    let set = SqlTaskSet {
        name: "fixtures".to_string(),
        tasks: Vec::new(),
        images: Arc::new(DatabaseImages::from_scripts(&FIXTURE_DATABASES)?),
    };
    set.with_tasks("fixtures", tasks)
}

/// Which databases an SQL run uses (`--data`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum SqlData {
    /// Our embedded fixtures (no shared data needed).
    #[default]
    Fixtures,
    /// Upstream's Spider dev tasks on Spider's own SQLite files.
    Spider,
    /// Upstream's Spider dev tasks on upstream's MySQL dump, converted.
    UpstreamMysql,
}

impl SqlData {
    pub fn name(self) -> &'static str {
        match self {
            SqlData::Fixtures => "fixtures",
            SqlData::Spider => "spider",
            SqlData::UpstreamMysql => "upstream-mysql",
        }
    }
}

impl serde::Serialize for SqlData {
    fn serialize<S: Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        s.serialize_str(self.name())
    }
}

impl<'de> Deserialize<'de> for SqlData {
    fn deserialize<D: Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        s.parse().map_err(serde::de::Error::custom)
    }
}

impl std::str::FromStr for SqlData {
    type Err = Error;

    fn from_str(s: &str) -> Result<SqlData> {
        match s {
            "fixtures" => Ok(SqlData::Fixtures),
            "spider" => Ok(SqlData::Spider),
            "upstream-mysql" => Ok(SqlData::UpstreamMysql),
            other => Err(Error::InvalidSpec(format!(
                "unknown SQL data {other:?} (fixtures, spider, upstream-mysql)"
            ))),
        }
    }
}

/// Loads a task set for the CLI: `data` picks the databases (Spider's and upstream's files are
/// looked up under `shared`, the folder beside the checkout), and `tasks` optionally replaces
/// the task list with a file in upstream's format.
pub fn load(data: SqlData, shared: &Path, tasks: Option<&Path>) -> Result<SqlTaskSet> {
    let set = match data {
        SqlData::Fixtures => fixtures()?,
        SqlData::Spider => load_ic_spider(&shared.join(IC_SPIDER_DEV), &shared.join(SPIDER_DIR))?,
        SqlData::UpstreamMysql => {
            load_upstream_mysql(&shared.join(IC_SPIDER_DEV), &shared.join(IC_SPIDER_DUMP))?.0
        }
    };
    match tasks {
        None => Ok(set),
        Some(path) => {
            let name = path.display().to_string();
            set.with_tasks(name, load_tasks(path)?)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fixture_set_loads() {
        let set = fixtures().unwrap();
        assert!(set.tasks.len() >= 20);
        assert_eq!(set.images.names(), ["school", "shop"]);
        assert_eq!(set.images.resolve("SHOP"), Some("shop"));
        let counts = set.images.row_counts().unwrap();
        assert!(counts["shop"]["customers"] > 0);
    }

    #[test]
    fn db_tables_keep_file_order() {
        let t: SqlTask = serde_json::from_str(
            r#"{"db":"x","gold":"SELECT 1","query":"q","db_tables":{"b":["1"],"a":["2"]}}"#,
        )
        .unwrap();
        assert_eq!(t.db_tables.0[0].0, "b");
        assert_eq!(
            serde_json::to_string(&t.db_tables).unwrap(),
            r#"{"b":["1"],"a":["2"]}"#
        );
    }

    #[test]
    fn unknown_database_is_an_error() {
        let set = fixtures().unwrap();
        assert!(set.images.get("nope").is_err());
        let bad = vec![SqlTask {
            db: "nope".into(),
            gold: "SELECT 1".into(),
            query: "q".into(),
            hardness: None,
            db_tables: DbTables::default(),
        }];
        assert!(set.with_tasks("x", bad).is_err());
    }

    #[test]
    fn data_names_parse() {
        assert_eq!(
            "upstream-mysql".parse::<SqlData>().unwrap(),
            SqlData::UpstreamMysql
        );
        assert!("mysql".parse::<SqlData>().is_err());
        let set = load(SqlData::Fixtures, Path::new("/nonexistent"), None).unwrap();
        assert_eq!(set.name, "fixtures");
    }

    #[test]
    fn corrupted_wta_header_is_repaired() {
        let fixed = repair_spider_script("CRloser_rank_pointsEATE TABLE players(\n\"a\" INT);");
        let image = image_from_script("wta", &fixed).unwrap();
        assert!(image.bytes.starts_with(b"SQLite format 3\0"));
    }
}
