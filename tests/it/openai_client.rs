//! The OpenAI-compatible client against a scripted model server over real sockets: replies,
//! usage, retries and what ends them, the API key's handling, and the in-flight cap.

use crate::support::model_server::{ModelServer, Reply, completion_tokens, script};
use intercode::harness::model::{ChatMessage, ChatModel, ChatRequest, ModelError, Role, ToolSpec};
use intercode::harness::openai::{OpenAiClient, OpenAiSettings};
use serde_json::json;
use std::time::Duration;

/// Fast retries: 2 of them, 10 ms apart (doubling), a generous per-attempt timeout.
fn settings(server: &ModelServer) -> OpenAiSettings {
    let mut settings = OpenAiSettings::new(server.base_url.clone(), "test-model");
    settings.retries = 2;
    settings.backoff_base = Duration::from_millis(10);
    settings.request_timeout = Duration::from_secs(10);
    settings
}

fn client(server: &ModelServer) -> OpenAiClient {
    OpenAiClient::new(settings(server)).unwrap()
}

fn ask(query: &str) -> ChatRequest {
    ChatRequest {
        messages: vec![
            ChatMessage::system("You are a shell."),
            ChatMessage::user(query),
        ],
        tools: Vec::new(),
        stop: Vec::new(),
    }
}

fn endpoint_error(result: Result<intercode::harness::model::ChatReply, ModelError>) -> String {
    match result {
        Err(ModelError::Endpoint(message)) => message,
        other => panic!("expected an endpoint error, got {other:?}"),
    }
}

#[test]
fn replies_with_text_and_usage() {
    let server = ModelServer::start(script(|_| Reply::Text("ls -la /tmp".into())));
    let mut settings = settings(&server);
    settings.sampling.temperature = 0.25;
    settings.sampling.seed = Some(3);
    let client = OpenAiClient::new(settings).unwrap();
    let mut request = ask("list /tmp");
    request.stop = vec!["Observation:".into()];
    let reply = client.complete(&request).unwrap();

    assert_eq!(reply.content, "ls -la /tmp");
    assert_eq!(reply.finish_reason.as_deref(), Some("stop"));
    let seen = server.requests();
    assert_eq!(seen.len(), 1);
    assert_eq!(reply.usage.prompt_tokens, seen[0].prompt_tokens());
    assert_eq!(
        reply.usage.completion_tokens,
        completion_tokens("ls -la /tmp")
    );
    assert_eq!(reply.usage.requests, 1);

    let body = &seen[0].body;
    assert_eq!(body["model"], "test-model");
    assert_eq!(body["temperature"], 0.25);
    assert_eq!(body["max_tokens"], 512);
    assert_eq!(body["seed"], 3);
    assert_eq!(body["stop"], json!(["Observation:"]));
    let roles: Vec<_> = seen[0].messages.iter().map(|m| m.role.as_str()).collect();
    assert_eq!(roles, ["system", "user"]);
    assert_eq!(seen[0].query(), "list /tmp");
    assert_eq!(client.name(), "test-model");
}

#[test]
fn missing_usage_still_counts_the_request() {
    let body = r#"{"choices":[{"message":{"role":"assistant","content":"hi"}}]}"#;
    let server = ModelServer::start(script(move |_| Reply::Garbage(body.into())));
    let reply = client(&server).complete(&ask("q")).unwrap();
    assert_eq!(reply.content, "hi");
    assert_eq!(
        (reply.usage.prompt_tokens, reply.usage.completion_tokens),
        (0, 0)
    );
    assert_eq!(reply.usage.requests, 1);
}

#[test]
fn retries_after_a_rate_limit() {
    let server = ModelServer::start(script(|r| match r.call_index {
        0 => Reply::Status(429, "slow down".into()),
        _ => Reply::Text("ok".into()),
    }));
    let reply = client(&server).complete(&ask("q")).unwrap();
    assert_eq!(reply.content, "ok");
    assert_eq!(reply.usage.requests, 2);
    assert_eq!(server.requests().len(), 2);
}

#[test]
fn gives_up_after_server_errors() {
    let server = ModelServer::start(script(|_| Reply::Status(500, "boom".into())));
    let message = endpoint_error(client(&server).complete(&ask("q")));
    assert!(
        message.contains("500") && message.contains("boom"),
        "{message}"
    );
    assert!(message.contains("3 attempts"), "{message}");
    assert_eq!(server.requests().len(), 3, "retries + 1");
}

#[test]
fn retries_a_garbage_body_then_succeeds() {
    let server = ModelServer::start(script(|r| match r.call_index {
        0 => Reply::Garbage("<html>upstream hiccup</html>".into()),
        _ => Reply::Text("ok".into()),
    }));
    let reply = client(&server).complete(&ask("q")).unwrap();
    assert_eq!(reply.content, "ok");
    assert_eq!(reply.usage.requests, 2);
}

#[test]
fn garbage_every_time_is_malformed_with_a_short_excerpt() {
    let junk = format!("not json {}", "x".repeat(10_000));
    let server = ModelServer::start(script(move |_| Reply::Garbage(junk.clone())));
    match client(&server).complete(&ask("q")) {
        Err(ModelError::Malformed(message)) => {
            assert!(message.contains("not json"), "{message}");
            assert!(message.len() < 1_000, "the whole body was quoted");
        }
        other => panic!("expected Malformed, got {other:?}"),
    }
    assert_eq!(server.requests().len(), 3);
}

#[test]
fn retries_a_dropped_connection() {
    let server = ModelServer::start(script(|r| match r.call_index {
        0 => Reply::Close,
        _ => Reply::Text("ok".into()),
    }));
    let reply = client(&server).complete(&ask("q")).unwrap();
    assert_eq!(reply.content, "ok");
    assert_eq!(reply.usage.requests, 2);
}

#[test]
fn a_hanging_endpoint_times_out_on_every_attempt() {
    // The hang outlasts the client's timeout by far: a reply would mean it never timed out.
    let server = ModelServer::start(script(|_| Reply::Hang(Duration::from_secs(5))));
    let mut settings = settings(&server);
    settings.request_timeout = Duration::from_millis(300);
    settings.retries = 1;
    let result = OpenAiClient::new(settings).unwrap().complete(&ask("q"));
    let message = endpoint_error(result);
    assert!(message.contains("2 attempts"), "{message}");
    assert_eq!(server.requests().len(), 2);
}

#[test]
fn unauthorized_fails_at_once_without_the_key() {
    // The server echoes the Authorization header, as some proxies do.
    let server = ModelServer::start(script(|r| {
        let sent = r.header("authorization").unwrap_or("nothing");
        Reply::Status(401, format!("Incorrect API key provided: {sent}"))
    }));
    let mut settings = settings(&server);
    settings.api_key_env = Some("TEST_MODEL_KEY".into());
    let client =
        OpenAiClient::with_key_lookup(settings, |_| Some("sk-test-5ecret-9876".into())).unwrap();
    let message = endpoint_error(client.complete(&ask("q")));
    assert!(message.contains("401"), "{message}");
    assert!(message.contains("Incorrect API key provided"), "{message}");
    assert!(!message.contains("5ecret"), "the key leaked: {message}");
    assert_eq!(server.requests().len(), 1, "no retry");
}

#[test]
fn bad_requests_are_not_retried() {
    let server = ModelServer::start(script(|_| Reply::Status(404, "no such model".into())));
    let message = endpoint_error(client(&server).complete(&ask("q")));
    assert!(message.contains("no such model"), "{message}");
    assert_eq!(server.requests().len(), 1);
}

#[test]
fn authorization_header_carries_the_key_from_the_env_var() {
    let server = ModelServer::start(script(|_| Reply::Text("ok".into())));
    client(&server).complete(&ask("without")).unwrap();

    // A variable cargo sets for every test process: tests cannot set one safely themselves.
    let var = "CARGO_PKG_NAME";
    let key = std::env::var(var).expect("cargo sets CARGO_PKG_NAME");
    let mut settings = settings(&server);
    settings.api_key_env = Some(var.into());
    OpenAiClient::new(settings)
        .unwrap()
        .complete(&ask("with"))
        .unwrap();

    let seen = server.requests();
    assert_eq!(seen[0].header("Authorization"), None);
    assert_eq!(
        seen[1].header("Authorization"),
        Some(format!("Bearer {key}").as_str())
    );
}

#[test]
fn a_missing_key_variable_fails_at_construction() {
    let mut settings = OpenAiSettings::new("http://127.0.0.1:9/v1", "m");
    settings.api_key_env = Some("INTERCODE_TEST_NO_SUCH_KEY_VARIABLE".into());
    let error = OpenAiClient::new(settings).unwrap_err();
    assert!(
        error
            .to_string()
            .contains("INTERCODE_TEST_NO_SUCH_KEY_VARIABLE")
    );
}

#[test]
fn tool_calls_round_trip() {
    let server = ModelServer::start(script(|_| {
        Reply::ToolCalls(vec![("execute".into(), r#"{"command":"pwd"}"#.into())])
    }));
    let client = client(&server);
    let mut request = ask("where am I");
    request.tools = vec![ToolSpec {
        name: "execute".into(),
        description: "Run a command".into(),
        parameters: json!({"type": "object", "properties": {"command": {"type": "string"}}}),
    }];
    let reply = client.complete(&request).unwrap();
    assert_eq!(reply.content, "");
    assert_eq!(reply.finish_reason.as_deref(), Some("tool_calls"));
    assert_eq!(reply.tool_calls.len(), 1);
    let call = &reply.tool_calls[0];
    assert_eq!(
        (call.name.as_str(), call.arguments.as_str()),
        ("execute", r#"{"command":"pwd"}"#)
    );

    // The call and its result go back in the next request, in OpenAI's shapes.
    request.messages.push(ChatMessage {
        role: Role::Assistant,
        content: String::new(),
        tool_calls: reply.tool_calls.clone(),
        tool_call_id: None,
    });
    request
        .messages
        .push(ChatMessage::tool(call.id.clone(), "/home/user"));
    client.complete(&request).unwrap();

    let seen = server.requests();
    assert_eq!(seen[0].tool_names(), ["execute"]);
    let sent = &seen[1].body["messages"];
    assert_eq!(sent[2]["tool_calls"][0]["id"], call.id.as_str());
    assert_eq!(sent[2]["tool_calls"][0]["function"]["name"], "execute");
    assert_eq!(sent[3]["role"], "tool");
    assert_eq!(sent[3]["tool_call_id"], call.id.as_str());
    assert_eq!(seen[1].call_index, 1, "same conversation");
}

#[test]
fn max_concurrent_one_keeps_one_request_in_flight() {
    // Each reply takes a while, so unguarded workers would overlap at the server.
    let server = ModelServer::start(script(|_| Reply::Hang(Duration::from_millis(40))));
    let mut settings = settings(&server);
    settings.max_concurrent = 1;
    let client = OpenAiClient::new(settings).unwrap();
    std::thread::scope(|s| {
        for worker in 0..4 {
            let client = &client;
            s.spawn(move || {
                for turn in 0..2 {
                    client
                        .complete(&ask(&format!("w{worker} t{turn}")))
                        .unwrap();
                }
            });
        }
    });
    assert_eq!(server.requests().len(), 8);
    assert_eq!(server.max_in_flight(), 1);
}
