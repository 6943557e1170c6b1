//! Serving episodes to agents written anywhere (feature `server`):
//!
//! * **MCP** ([`mcp`]) — tools to open an episode, run actions, list and read files or tables,
//!   evaluate, submit, undo, checkpoint and close, over stdio (`intercode mcp`) or Streamable
//!   HTTP at `/mcp` (`intercode mcp --http ADDR`). Built on `rmcp`, the official Rust SDK.
//! * **The gym API** ([`gym`]) — upstream's `reset`/`step` loop as plain JSON over HTTP
//!   (`intercode serve --http ADDR`), with an OpenAPI description at `/openapi.json`.
//!
//! Both front ends share one [`episodes::EpisodeTable`]: envs are built from the library's
//! [`crate::env::EnvSpec`] and driven through the [`crate::env::Env`] trait, so an episode
//! played here scores exactly as `intercode run` scores it. With `--guard` (or `guard: true`
//! per episode) the env is a [`crate::harness::guard::GuardedEnv`].
//!
//! Over HTTP the server binds to loopback unless told otherwise, and every request carrying
//! an `Origin` header that is not a local page is refused (403): a web page open in the
//! user's browser must not be able to drive sandboxes through a local server (DNS rebinding,
//! cross-site requests).
//!
//! ```no_run
//! # async fn serve() -> std::io::Result<()> {
//! use intercode::harness::guard::GuardOptions;
//! use intercode::server::{AppState, HttpOptions, app, episodes::Limits};
//! let state = AppState::new(Limits::default(), GuardOptions::all(None), false);
//! let listener = tokio::net::TcpListener::bind("127.0.0.1:8080").await?;
//! axum::serve(listener, app(state, &HttpOptions::default())).await
//! # }
//! ```

pub mod episodes;
pub mod gym;
pub mod mcp;

use crate::ErrorKind;
use crate::harness::guard::GuardOptions;
use axum::Router;
use axum::extract::Request;
use axum::http::{StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use episodes::{EpisodeTable, Limits};
use std::sync::Arc;

/// What can go wrong serving a request, beyond the library's own errors.
#[derive(Debug, thiserror::Error)]
pub enum ServerError {
    #[error(transparent)]
    Env(#[from] crate::Error),
    #[error("no episode {0:?}: it was closed, expired after being idle, or never opened")]
    UnknownEpisode(String),
    /// Too many episodes open, or too much memory held: close some first.
    #[error("{0}")]
    Capacity(String),
    /// The client asked for something that cannot be done (a malformed request, a free
    /// sandbox asked to submit, an unknown checkpoint).
    #[error("{0}")]
    BadRequest(String),
    /// Blocking sandbox work died (a panic): a host fault.
    #[error("an episode worker failed: {0}")]
    Worker(String),
    /// The MCP transport failed (stdio closed mid-message, a malformed handshake).
    #[error("MCP transport: {0}")]
    Transport(String),
}

/// How a [`ServerError`] is reported: its HTTP status and the `kind` a client can branch on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Failure {
    /// The client's request is wrong: fix it (400).
    BadInput,
    /// No such episode (404).
    NotFound,
    /// The call came at the wrong moment (no episode yet, or it is over): reset (409).
    EpisodeState,
    /// The server is full (503): close episodes or retry later.
    Capacity,
    /// The host failed (500): not the client's fault.
    Host,
}

impl Failure {
    pub fn name(self) -> &'static str {
        match self {
            Failure::BadInput => "bad_input",
            Failure::NotFound => "not_found",
            Failure::EpisodeState => "episode_state",
            Failure::Capacity => "capacity",
            Failure::Host => "host",
        }
    }

    pub fn status(self) -> StatusCode {
        match self {
            Failure::BadInput => StatusCode::BAD_REQUEST,
            Failure::NotFound => StatusCode::NOT_FOUND,
            Failure::EpisodeState => StatusCode::CONFLICT,
            Failure::Capacity => StatusCode::SERVICE_UNAVAILABLE,
            Failure::Host => StatusCode::INTERNAL_SERVER_ERROR,
        }
    }
}

impl ServerError {
    pub fn failure(&self) -> Failure {
        match self {
            ServerError::Env(e) => match e.kind() {
                ErrorKind::EpisodeState => Failure::EpisodeState,
                ErrorKind::BadInput => Failure::BadInput,
                ErrorKind::Host => Failure::Host,
            },
            ServerError::UnknownEpisode(_) => Failure::NotFound,
            ServerError::Capacity(_) => Failure::Capacity,
            ServerError::BadRequest(_) => Failure::BadInput,
            ServerError::Worker(_) | ServerError::Transport(_) => Failure::Host,
        }
    }
}

/// `{"error": {"kind": ..., "message": ...}}` with the matching status.
impl IntoResponse for ServerError {
    fn into_response(self) -> Response {
        let failure = self.failure();
        if failure == Failure::Host {
            tracing::error!("{self}");
        }
        error_response(failure, &self.to_string())
    }
}

pub(crate) fn error_response(failure: Failure, message: &str) -> Response {
    (
        failure.status(),
        axum::Json(serde_json::json!({
            "error": {"kind": failure.name(), "message": message}
        })),
    )
        .into_response()
}

/// What the front ends share: the episode table.
#[derive(Clone)]
pub struct AppState {
    pub episodes: Arc<EpisodeTable>,
}

impl AppState {
    /// A table with these limits; `guard`: how guarded episodes are guarded; `guard_all`:
    /// every episode is (`--guard`), not only those that ask.
    pub fn new(limits: Limits, guard: GuardOptions, guard_all: bool) -> AppState {
        AppState {
            episodes: Arc::new(EpisodeTable::new(limits, guard, guard_all)),
        }
    }

    /// Starts closing idle episodes in the background (needs a tokio runtime).
    pub fn spawn_reaper(&self) {
        self.episodes.spawn_reaper();
    }
}

/// How the HTTP side is exposed.
#[derive(Debug, Clone, Default)]
pub struct HttpOptions {
    /// Accept any `Host` header (the server was bound to a non-loopback address on purpose).
    /// `Origin` is still checked: browsers on other machines' pages are refused either way.
    pub allow_remote: bool,
}

/// The whole HTTP server: the gym API (`/envs…`, `/openapi.json`) and MCP at `/mcp`.
pub fn app(state: AppState, options: &HttpOptions) -> Router {
    gym::router(state.clone())
        .merge(mcp_router(state, options))
        .layer(axum::middleware::from_fn(check_origin))
}

/// MCP's Streamable HTTP endpoint alone, at `/mcp` (`intercode mcp --http`).
pub fn mcp_only(state: AppState, options: &HttpOptions) -> Router {
    mcp_router(state, options).layer(axum::middleware::from_fn(check_origin))
}

fn mcp_router(state: AppState, options: &HttpOptions) -> Router {
    Router::new().nest_service("/mcp", mcp::http_service(state, options))
}

/// Refuses (403) a request whose `Origin` is present and not a page served from this machine.
/// Clients that are not browsers send no `Origin` and pass.
async fn check_origin(request: Request, next: Next) -> Response {
    if let Some(origin) = request.headers().get(header::ORIGIN) {
        let allowed = origin.to_str().is_ok_and(origin_is_local);
        if !allowed {
            tracing::warn!(?origin, "refused a request from a non-local Origin");
            return (
                StatusCode::FORBIDDEN,
                axum::Json(serde_json::json!({
                    "error": {
                        "kind": "forbidden",
                        "message": "requests from web pages other than localhost are refused"
                    }
                })),
            )
                .into_response();
        }
    }
    next.run(request).await
}

/// `http(s)://localhost`, `127.0.0.1` or `[::1]`, any port.
pub fn origin_is_local(origin: &str) -> bool {
    let Some(rest) = origin
        .strip_prefix("http://")
        .or_else(|| origin.strip_prefix("https://"))
    else {
        return false;
    };
    let host = match rest.strip_prefix('[') {
        Some(v6) => match v6.split_once(']') {
            Some((addr, after)) if after.is_empty() || port_only(after) => addr,
            _ => return false,
        },
        None => match rest.split_once(':') {
            Some((host, after)) if port_only(&format!(":{after}")) => host,
            Some(_) => return false,
            None => rest,
        },
    };
    matches!(
        host.to_ascii_lowercase().as_str(),
        "localhost" | "127.0.0.1" | "::1"
    )
}

fn port_only(s: &str) -> bool {
    s.strip_prefix(':')
        .is_some_and(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_local_origins_pass() {
        for ok in [
            "http://localhost",
            "http://localhost:3000",
            "https://127.0.0.1:8443",
            "http://[::1]:80",
            "http://LOCALHOST",
        ] {
            assert!(origin_is_local(ok), "{ok}");
        }
        for bad in [
            "null",
            "http://evil.example",
            "http://localhost.evil.example",
            "http://127.0.0.1.nip.io",
            "http://localhost:80/path",
            "http://localhost@evil.example",
            "ftp://localhost",
            "http://[::2]",
        ] {
            assert!(!origin_is_local(bad), "{bad}");
        }
    }

    #[test]
    fn errors_map_to_statuses() {
        let e = ServerError::Env(crate::Error::EpisodeOver);
        assert_eq!(e.failure().status(), StatusCode::CONFLICT);
        let e = ServerError::Env(crate::Error::TaskIndex { index: 9, len: 2 });
        assert_eq!(e.failure().status(), StatusCode::BAD_REQUEST);
        let e = ServerError::UnknownEpisode("x".into());
        assert_eq!(e.failure().status(), StatusCode::NOT_FOUND);
        let e = ServerError::Env(crate::Error::Runtime("boom".into()));
        assert_eq!(e.failure().status(), StatusCode::INTERNAL_SERVER_ERROR);
    }
}
