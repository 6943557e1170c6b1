//! The crate's error type. Only host failures and caller mistakes are errors: what a guest does
//! (exit codes, timeouts, traps, SQL errors) is an observation and never reaches this type.
//! [`Error::kind`] tells a caller what it can do about one.

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
    #[error("the episode is over: call reset to start another")]
    EpisodeOver,
    /// An env spec or option that cannot work (unknown env, missing tree, zero limits).
    #[error("{0}")]
    InvalidSpec(String),
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

/// What a caller can do about an [`Error`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorKind {
    /// The call came at the wrong time (no episode yet, or the episode is over): reset, then
    /// carry on. Nothing was lost.
    EpisodeState,
    /// The caller's input is wrong (task index, task file, spec): fix it and retry.
    BadInput,
    /// The host failed (I/O, wasm runtime, database engine): a harness fault, not the agent's.
    Host,
}

impl Error {
    /// Wraps an I/O error with the path it happened on.
    pub fn io(path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        Error::Io {
            path: path.into(),
            source,
        }
    }

    pub fn kind(&self) -> ErrorKind {
        match self {
            Error::NoEpisode | Error::EpisodeOver => ErrorKind::EpisodeState,
            Error::TaskFile { .. } | Error::TaskIndex { .. } | Error::InvalidSpec(_) => {
                ErrorKind::BadInput
            }
            Error::Io { .. }
            | Error::PlainIo(_)
            | Error::Runtime(_)
            | Error::Guest(_)
            | Error::Database(_)
            | Error::Json(_)
            | Error::Other(_) => ErrorKind::Host,
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
