//! [`EnvSpec`]: the one way to build an env. What a user (or a run manifest, or a server
//! request) says — which env, which tasks, which limits — is turned into a running env by
//! [`EnvSpec::build`]; the CLI, the harness, the server and the Python bindings all go through
//! it, so an env built from the same spec behaves the same everywhere. A spec serializes to
//! JSON (it is written into every run's manifest).
//!
//! ```
//! use intercode::env::{Env, EnvKind, EnvSpec};
//! let mut env = EnvSpec::new(EnvKind::Sql).build()?; // the embedded SQL fixtures
//! env.reset(0)?;
//! assert!(env.step("SELECT 1")?.action_executed);
//! # Ok::<(), intercode::Error>(())
//! ```

use super::bash::{BashEnv, BashOptions, Quoting, Reset};
use super::python::{PythonEnv, PythonOptions};
use super::sql::{SqlEnv, SqlOptions};
use super::{Env, EnvKind};
use crate::data::spider::SqlData;
use crate::sandbox::PinnedClock;
use crate::{Error, Result};
use serde::{Deserialize, Serialize};
use std::path::PathBuf;
use std::time::Duration;

/// Everything that decides how an env behaves, as the user gives it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct EnvSpec {
    pub env: EnvKind,
    /// Task file (upstream's format); `None`: the embedded fixtures.
    pub tasks: Option<PathBuf>,
    /// Bash: the file tree (`fs_N.effective.tar.gz`); `None`: found beside upstream's
    /// `nl2bash_fs_N.json` under the data directory.
    pub fs: Option<PathBuf>,
    /// SQL: which databases (fixtures, Spider's SQLite files, upstream's MySQL dump).
    pub sql_data: SqlData,
    /// Where the public data lives; `None`: `$INTERCODE_DATA_DIR`, else `../shared`.
    pub data_dir: Option<PathBuf>,
    /// Seconds an action (bash command, SQL statement, Python cell) may run.
    pub timeout_secs: u64,
    /// Bash: the sandbox clock, pinned to these seconds since the epoch.
    pub clock: Option<i64>,
    /// Bash: keep shell variables and functions between actions.
    pub persistent: bool,
    /// Bash: upstream's broken `bash -c "…"` quoting and its own `cd` handling (for score fidelity with old logs).
    pub upstream_quoting: bool,
    /// Bash: upstream's reset between tasks: one tree for the whole run where only what git
    /// tracks is put back (`git reset --hard; git clean -fd`), the gold's likewise.
    pub upstream_reset: bool,
    /// SQL: refuse every statement that would write.
    pub read_only: bool,
}

impl Default for EnvSpec {
    fn default() -> Self {
        EnvSpec {
            env: EnvKind::Bash,
            tasks: None,
            fs: None,
            sql_data: SqlData::Fixtures,
            data_dir: None,
            timeout_secs: 10,
            clock: None,
            persistent: false,
            upstream_quoting: false,
            upstream_reset: false,
            read_only: false,
        }
    }
}

impl EnvSpec {
    /// The embedded fixtures of `env`, default limits.
    pub fn new(env: EnvKind) -> EnvSpec {
        EnvSpec {
            env,
            ..EnvSpec::default()
        }
    }

    /// The data directory: the spec's, else `$INTERCODE_DATA_DIR`, else `../shared`.
    pub fn data_dir(&self) -> PathBuf {
        self.data_dir
            .clone()
            .or_else(|| std::env::var_os("INTERCODE_DATA_DIR").map(PathBuf::from))
            .unwrap_or_else(|| PathBuf::from("../shared"))
    }

    /// A short name of the task set (`fixtures`, the task file's stem, `spider`).
    pub fn task_set_name(&self) -> String {
        match (&self.tasks, self.env) {
            (Some(p), _) => p
                .file_stem()
                .map_or_else(|| p.display().to_string(), |s| s.to_string_lossy().into()),
            (None, EnvKind::Sql) => self.sql_data.name().to_string(),
            (None, _) => "fixtures".to_string(),
        }
    }

    fn timeout(&self) -> Result<Duration> {
        if self.timeout_secs == 0 {
            return Err(Error::InvalidSpec("timeout_secs must be at least 1".into()));
        }
        Ok(Duration::from_secs(self.timeout_secs))
    }

    /// Builds the env.
    pub fn build(&self) -> Result<Box<dyn Env>> {
        self.check_paths()?;
        Ok(match self.env {
            EnvKind::Bash => Box::new(self.build_bash()?),
            EnvKind::Sql => Box::new(self.build_sql()?),
            EnvKind::Python => Box::new(self.build_python()?),
        })
    }

    /// A task file or tree the user named that is not there is the user's mistake
    /// ([`crate::ErrorKind::BadInput`]), not a host failure.
    fn check_paths(&self) -> Result<()> {
        for (what, path) in [("task file", &self.tasks), ("file tree", &self.fs)] {
            if let Some(p) = path
                && !crate::fs::host::is_file(p)
            {
                return Err(Error::InvalidSpec(format!(
                    "the {what} {} does not exist (or is not a file)",
                    p.display()
                )));
            }
        }
        Ok(())
    }

    pub fn bash_options(&self) -> Result<BashOptions> {
        let mut options = BashOptions::default();
        options.limits.timeout = self.timeout()?;
        options.persistent = self.persistent;
        if self.upstream_quoting {
            options.quoting = Quoting::Upstream;
        }
        if self.upstream_reset {
            options.reset = Reset::UpstreamGit;
        }
        options.clock = self.clock.map(PinnedClock::at_unix);
        Ok(options)
    }

    pub fn build_bash(&self) -> Result<BashEnv> {
        let set = match &self.tasks {
            Some(path) => {
                let tree = match &self.fs {
                    Some(t) => t.clone(),
                    None => crate::data::nl2bash::infer_tree_for(path).ok_or_else(|| {
                        Error::InvalidSpec(format!(
                            "no file tree given for {}: pass --fs fs_N.effective.tar.gz, or get \
                             upstream's (built from its setup scripts) with `intercode download \
                             --only bash`",
                            path.display()
                        ))
                    })?,
                };
                crate::data::nl2bash::load_upstream(path, &tree)?
            }
            None => crate::data::fixtures::bash_tasks()?,
        };
        BashEnv::new(set, self.bash_options()?)
    }

    pub fn sql_options(&self) -> Result<SqlOptions> {
        Ok(SqlOptions {
            read_only: self.read_only,
            statement_timeout: self.timeout()?,
            ..SqlOptions::default()
        })
    }

    pub fn build_sql(&self) -> Result<SqlEnv> {
        let set =
            crate::data::spider::load(self.sql_data, &self.data_dir(), self.tasks.as_deref())?;
        SqlEnv::new(set, self.sql_options()?)
    }

    pub fn python_options(&self) -> Result<PythonOptions> {
        Ok(PythonOptions {
            timeout: self.timeout()?,
            ..PythonOptions::default()
        })
    }

    /// Any MBPP file [`crate::data::mbpp::load`] reads (upstream's `ic_mbpp.json`,
    /// `mbpp.jsonl`, `sanitized-mbpp.json`), else the embedded fixtures.
    pub fn build_python(&self) -> Result<PythonEnv> {
        let set = match &self.tasks {
            Some(path) => crate::data::mbpp::load(path)?,
            None => crate::data::mbpp::fixtures()?,
        };
        PythonEnv::new(set, self.python_options()?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn specs_round_trip_through_json_and_refuse_unknown_fields() {
        let spec = EnvSpec {
            env: EnvKind::Sql,
            sql_data: SqlData::Spider,
            read_only: true,
            ..EnvSpec::default()
        };
        let text = serde_json::to_string(&spec).unwrap();
        assert_eq!(serde_json::from_str::<EnvSpec>(&text).unwrap(), spec);
        let partial: EnvSpec = serde_json::from_str(r#"{"env": "python"}"#).unwrap();
        assert_eq!(partial, EnvSpec::new(EnvKind::Python));
        assert!(serde_json::from_str::<EnvSpec>(r#"{"env": "sql", "readonly": true}"#).is_err());
    }

    #[test]
    fn a_zero_timeout_is_a_bad_spec() {
        let spec = EnvSpec {
            timeout_secs: 0,
            ..EnvSpec::new(EnvKind::Sql)
        };
        let err = spec.build().err().expect("refused");
        assert_eq!(err.kind(), crate::error::ErrorKind::BadInput);
    }

    #[test]
    fn a_task_file_without_a_tree_names_the_fix() {
        let dir = tempfile::tempdir().unwrap();
        let tasks = dir.path().join("my_tasks.json");
        crate::fs::host::write_atomic(&tasks, b"[]").unwrap();
        let spec = EnvSpec {
            tasks: Some(tasks),
            ..EnvSpec::new(EnvKind::Bash)
        };
        let err = spec.build().err().expect("refused").to_string();
        assert!(err.contains("intercode download"), "{err}");
    }

    #[test]
    fn a_missing_task_file_is_bad_input() {
        let spec = EnvSpec {
            tasks: Some("/nowhere/tasks.json".into()),
            ..EnvSpec::new(EnvKind::Python)
        };
        let err = spec.build().err().expect("refused");
        assert_eq!(err.kind(), crate::error::ErrorKind::BadInput, "{err}");
        assert!(err.to_string().contains("/nowhere/tasks.json"));
    }
}
