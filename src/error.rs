//! The crate's error type. Only host failures are errors: what a guest does (exit codes,
//! timeouts, traps, SQL errors) is an observation and never reaches this type.

use std::path::PathBuf;

/// Everything that can go wrong on the host side of an episode.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("I/O error on {path}: {source}")]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("I/O error: {0}")]
    PlainIo(#[from] std::io::Error),
    #[error("malformed task file {path}: {reason}")]
    TaskFile { path: PathBuf, reason: String },
    #[error("task index {index} out of range (the task set has {len} tasks)")]
    TaskIndex { index: usize, len: usize },
    #[error("no episode is running: call reset first")]
    NoEpisode,
    #[error("wasm runtime error: {0}")]
    Runtime(String),
    #[error("the guest module is missing or invalid: {0}")]
    Guest(String),
    #[error("database error: {0}")]
    Database(String),
    #[error("JSON error: {0}")]
    Json(#[from] serde_json::Error),
    #[error("{0}")]
    Other(String),
}

impl Error {
    /// Wraps an I/O error with the path it happened on.
    pub fn io(path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        Error::Io {
            path: path.into(),
            source,
        }
    }
}

impl From<wasmtime::Error> for Error {
    fn from(e: wasmtime::Error) -> Self {
        Error::Runtime(format!("{e:#}"))
    }
}

/// The crate's result alias.
pub type Result<T, E = Error> = std::result::Result<T, E>;
