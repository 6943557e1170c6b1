//! The SQL env behind the CLI: which data (`--data`), where it lives (`--data-dir`), and the
//! table rendering of `intercode shell sql`.

use super::TaskSource;
use intercode::data::spider::{self, SqlData};
use intercode::env::Env;
use intercode::env::sql::{SqlEnv, SqlOptions};
use std::time::Duration;

pub fn sql_env(source: &TaskSource) -> anyhow::Result<Box<dyn Env>> {
    let data: SqlData = source.data.parse()?;
    let set = spider::load(data, &source.data_dir(), source.tasks.as_deref())?;
    let options = SqlOptions {
        read_only: source.read_only,
        statement_timeout: Duration::from_secs(source.timeout.max(1)),
        ..SqlOptions::default()
    };
    Ok(Box::new(SqlEnv::new(set, options)?))
}

/// A result table for people, when the step carried rows; `None` otherwise.
pub fn render(step: &intercode::env::Step) -> Option<String> {
    let columns: Vec<String> = step
        .info
        .get("columns")?
        .as_array()?
        .iter()
        .map(|c| c.as_str().unwrap_or_default().to_string())
        .collect();
    let rows = intercode::reward::sql::rows_from_json(step.info.get("rows")?)?;
    Some(intercode::env::sql::render_table(&columns, &rows))
}
