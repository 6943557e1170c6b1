//! The HTTP gym API: upstream InterCode's `reset`/`step` loop as plain JSON, for agents written
//! in any language.
//!
//! | request | body | answer |
//! | --- | --- | --- |
//! | `POST /envs` | an [`EnvSpec`] (`{"env": "sql"}`) | `201 {"id", "env", "task_count", "guarded"}` |
//! | `GET /envs/{id}/tasks` | | `{"tasks": [{"index", "query", "category"}]}` (no gold) |
//! | `POST /envs/{id}/reset` | `{"index": 0}` | `{"index", "query"}` |
//! | `POST /envs/{id}/step` | `{"action": "ls"}` | `{"observation", "reward", "done", "info"}` |
//! | `POST /envs/{id}/evaluate` | | `{"reward", "info"}` (the episode goes on) |
//! | `DELETE /envs/{id}` | | `{"closed", "turns"}` |
//! | `GET /openapi.json` | | this API as OpenAPI 3.1 |
//!
//! Errors are `{"error": {"kind", "message"}}`: 400 `bad_input` (malformed JSON, a bad spec,
//! a task index out of range), 404 `not_found` (no such env), 409 `episode_state` (a step
//! before `reset` or after `submit`), 503 `capacity` (too many envs open), 500 `host` (the
//! host failed, not the client).

use super::{AppState, Failure, ServerError, error_response};
use crate::env::{Env, EnvSpec};
use axum::body::Bytes;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::{delete, get, post};
use axum::{Json, Router};
use serde::Deserialize;
use serde::de::DeserializeOwned;
use serde_json::{Value, json};

/// The gym routes, with `state`.
pub fn router(state: AppState) -> Router {
    Router::new()
        .route("/envs", post(create))
        .route("/envs/{id}", delete(close))
        .route("/envs/{id}/tasks", get(tasks))
        .route("/envs/{id}/reset", post(reset))
        .route("/envs/{id}/step", post(step))
        .route("/envs/{id}/evaluate", post(evaluate))
        .route("/openapi.json", get(|| async { Json(openapi()) }))
        .fallback(|| async {
            error_response(
                Failure::NotFound,
                "no such route: see GET /openapi.json for the API",
            )
        })
        .with_state(state)
}

/// The body as `T`; malformed JSON or wrong fields are the client's mistake (400), whatever
/// the `Content-Type` said (so a bare `curl -d` works).
fn parse<T: DeserializeOwned>(body: &[u8]) -> Result<T, ServerError> {
    serde_json::from_slice(body)
        .map_err(|e| ServerError::BadRequest(format!("bad request body: {e}")))
}

async fn create(State(state): State<AppState>, body: Bytes) -> Result<Response, ServerError> {
    let spec: EnvSpec = if body.iter().all(u8::is_ascii_whitespace) {
        return Err(ServerError::BadRequest(
            "the body must be an env spec, e.g. {\"env\": \"bash\"}".into(),
        ));
    } else {
        parse(&body)?
    };
    let id = state.episodes.open(spec, false).await?;
    let (env, task_count, guarded) = state
        .episodes
        .with(&id, |ep| {
            Ok((ep.kind(), ep.env().task_count(), ep.guarded()))
        })
        .await?;
    Ok((
        StatusCode::CREATED,
        Json(json!({"id": id, "env": env, "task_count": task_count, "guarded": guarded})),
    )
        .into_response())
}

async fn tasks(
    State(state): State<AppState>,
    Path(id): Path<String>,
) -> Result<Json<Value>, ServerError> {
    let tasks = state
        .episodes
        .with(&id, |ep| {
            let env: &mut dyn Env = ep.env();
            (0..env.task_count())
                .map(|index| {
                    let task = env.task(index)?;
                    Ok(json!({"index": index, "query": task.query, "category": task.category}))
                })
                .collect::<Result<Vec<Value>, ServerError>>()
        })
        .await?;
    Ok(Json(json!({ "tasks": tasks })))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ResetBody {
    index: usize,
}

async fn reset(
    State(state): State<AppState>,
    Path(id): Path<String>,
    body: Bytes,
) -> Result<Json<Value>, ServerError> {
    let ResetBody { index } = parse(&body)?;
    let reset = state.episodes.with(&id, move |ep| ep.reset(index)).await?;
    Ok(Json(json!(reset)))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct StepBody {
    action: String,
}

async fn step(
    State(state): State<AppState>,
    Path(id): Path<String>,
    body: Bytes,
) -> Result<Json<Value>, ServerError> {
    let StepBody { action } = parse(&body)?;
    let step = state.episodes.with(&id, move |ep| ep.run(&action)).await?;
    Ok(Json(json!(step)))
}

async fn evaluate(
    State(state): State<AppState>,
    Path(id): Path<String>,
) -> Result<Json<Value>, ServerError> {
    let evaluation = state.episodes.with(&id, |ep| ep.evaluate()).await?;
    Ok(Json(json!(evaluation)))
}

async fn close(
    State(state): State<AppState>,
    Path(id): Path<String>,
) -> Result<Json<Value>, ServerError> {
    let turns = state.episodes.close(&id).await?;
    Ok(Json(json!({"closed": id, "turns": turns})))
}

/// This API as an OpenAPI 3.1 document, written by hand (it is small, and a generator would
/// be a dependency of its own).
pub fn openapi() -> Value {
    let error = json!({"$ref": "#/components/responses/Error"});
    let id_param = json!({
        "name": "id", "in": "path", "required": true,
        "schema": {"type": "string"}, "description": "The env's id, from POST /envs."
    });
    let json_body = |schema: Value| json!({"required": true, "content": {"application/json": {"schema": schema}}});
    let ok = |description: &str, schema: Value| json!({"description": description, "content": {"application/json": {"schema": schema}}});
    json!({
        "openapi": "3.1.0",
        "info": {
            "title": "intercode gym API",
            "version": env!("CARGO_PKG_VERSION"),
            "description": "InterCode's bash, SQL and Python episodes (upstream's gym loop: \
                reset, step, observation/reward/done/info) served from local sandboxes. \
                Errors are {\"error\": {\"kind\", \"message\"}}: 400 bad_input, 404 not_found, \
                409 episode_state, 503 capacity, 500 host."
        },
        "paths": {
            "/envs": {"post": {
                "summary": "Create an env from a spec",
                "requestBody": json_body(json!({"$ref": "#/components/schemas/EnvSpec"})),
                "responses": {
                    "201": ok("The env, not yet reset", json!({
                        "type": "object",
                        "required": ["id", "env", "task_count", "guarded"],
                        "properties": {
                            "id": {"type": "string"},
                            "env": {"$ref": "#/components/schemas/EnvKind"},
                            "task_count": {"type": "integer", "minimum": 0},
                            "guarded": {"type": "boolean"}
                        }
                    })),
                    "400": error, "503": error, "500": error
                }
            }},
            "/envs/{id}": {"delete": {
                "summary": "Close the env and free its sandbox",
                "parameters": [id_param],
                "responses": {
                    "200": ok("Closed", json!({
                        "type": "object", "required": ["closed", "turns"],
                        "properties": {"closed": {"type": "string"}, "turns": {"type": "integer"}}
                    })),
                    "404": error
                }
            }},
            "/envs/{id}/tasks": {"get": {
                "summary": "The env's tasks (queries only, never the gold)",
                "parameters": [id_param],
                "responses": {
                    "200": ok("The tasks", json!({
                        "type": "object", "required": ["tasks"],
                        "properties": {"tasks": {"type": "array", "items": {
                            "type": "object", "required": ["index", "query"],
                            "properties": {
                                "index": {"type": "integer"},
                                "query": {"type": "string"},
                                "category": {"type": ["string", "null"]}
                            }
                        }}}
                    })),
                    "404": error, "500": error
                }
            }},
            "/envs/{id}/reset": {"post": {
                "summary": "Start a fresh episode of one task",
                "parameters": [id_param],
                "requestBody": json_body(json!({
                    "type": "object", "required": ["index"], "additionalProperties": false,
                    "properties": {"index": {"type": "integer", "minimum": 0}}
                })),
                "responses": {
                    "200": ok("The episode's task", json!({
                        "type": "object", "required": ["index", "query"],
                        "properties": {"index": {"type": "integer"}, "query": {"type": "string"}}
                    })),
                    "400": error, "404": error, "500": error
                }
            }},
            "/envs/{id}/step": {"post": {
                "summary": "Run one action: a bash command, a SQL statement or a Python cell; \
                    `submit` (Python: `submit NAME`) ends and scores the episode, `skip` ends it",
                "parameters": [id_param],
                "requestBody": json_body(json!({
                    "type": "object", "required": ["action"], "additionalProperties": false,
                    "properties": {"action": {"type": "string"}}
                })),
                "responses": {
                    "200": ok("Upstream's step tuple", json!({"$ref": "#/components/schemas/Step"})),
                    "400": error, "404": error, "409": error, "500": error
                }
            }},
            "/envs/{id}/evaluate": {"post": {
                "summary": "Score the episode as submit would, without ending it",
                "parameters": [id_param],
                "responses": {
                    "200": ok("The reward now", json!({
                        "type": "object", "required": ["reward", "info"],
                        "properties": {"reward": {"type": "number"}, "info": {"type": "object"}}
                    })),
                    "404": error, "409": error, "500": error
                }
            }},
            "/openapi.json": {"get": {
                "summary": "This document",
                "responses": {"200": {"description": "OpenAPI 3.1"}}
            }}
        },
        "components": {
            "schemas": {
                "EnvKind": {"type": "string", "enum": ["bash", "sql", "python"]},
                "EnvSpec": {
                    "type": "object",
                    "additionalProperties": false,
                    "properties": {
                        "env": {"$ref": "#/components/schemas/EnvKind"},
                        "tasks": {"type": ["string", "null"], "description": "Task file (upstream's format) on the server; default: the embedded fixtures"},
                        "fs": {"type": ["string", "null"], "description": "Bash: the file tree (.tar.gz)"},
                        "sql_data": {"type": "string", "enum": ["fixtures", "spider", "upstream-mysql"]},
                        "data_dir": {"type": ["string", "null"]},
                        "timeout_secs": {"type": "integer", "minimum": 1, "default": 10},
                        "clock": {"type": ["integer", "null"], "description": "Bash: pinned clock, seconds since the epoch"},
                        "persistent": {"type": "boolean", "default": false},
                        "upstream_quoting": {"type": "boolean", "default": false},
                        "upstream_reset": {"type": "boolean", "default": false, "description": "Bash: upstream's reset between tasks (only what git tracks is put back)"},
                        "read_only": {"type": "boolean", "default": false}
                    }
                },
                "Step": {
                    "type": "object",
                    "required": ["observation", "reward", "done", "info"],
                    "properties": {
                        "observation": {"type": "string"},
                        "reward": {"type": "number"},
                        "done": {"type": "boolean"},
                        "info": {
                            "type": "object",
                            "description": "action_executed, exit_status (bash); SQL: columns, rows, truncated; Python: output, error; guard: why the guard refused",
                            "properties": {
                                "action_executed": {"type": "boolean"},
                                "exit_status": {"type": "integer"}
                            },
                            "required": ["action_executed"]
                        }
                    }
                },
                "Error": {
                    "type": "object", "required": ["error"],
                    "properties": {"error": {
                        "type": "object", "required": ["kind", "message"],
                        "properties": {
                            "kind": {"type": "string", "enum": ["bad_input", "not_found", "episode_state", "capacity", "host", "forbidden"]},
                            "message": {"type": "string"}
                        }
                    }}
                }
            },
            "responses": {
                "Error": {
                    "description": "What went wrong",
                    "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}
                }
            }
        }
    })
}
