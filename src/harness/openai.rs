//! [`ChatModel`] over HTTP: any endpoint that speaks OpenAI's chat-completions protocol
//! (hosted APIs, vLLM, llama.cpp's server, Ollama, LiteLLM).
//!
//! Three layers, so the protocol is testable without a network:
//! - [`request_body`] turns a [`ChatRequest`] into the JSON to POST;
//! - [`parse_reply`] turns a response body into a [`ChatReply`];
//! - [`OpenAiClient`] runs the blocking HTTP loop (ureq): a shared cap on requests in flight,
//!   retries with exponential backoff for what may heal by itself (connection failures,
//!   timeouts, 429, 5xx, malformed bodies), and an immediate error for what cannot (other 4xx).
//!
//! The API key is read once from the environment variable the settings name, kept in memory
//! only, sent only in the `Authorization` header, and scrubbed from every error and log line.

use crate::data::trajectory::Usage;
use crate::harness::model::{
    ChatMessage, ChatModel, ChatReply, ChatRequest, ModelError, Sampling, ToolCall, ToolSpec,
};
use serde_json::{Value, json};
use std::fmt;
use std::hash::{BuildHasher, RandomState};
use std::sync::{Condvar, Mutex, PoisonError};
use std::time::{Duration, Instant};

/// No single wait between attempts is longer than this, whatever the backoff or `Retry-After`.
const MAX_DELAY: Duration = Duration::from_secs(30);

/// How much of an unexpected body an error quotes: enough to recognise it, not enough to
/// flood a log with a whole HTML error page.
const EXCERPT_CHARS: usize = 200;

/// Where and how to reach the endpoint.
#[derive(Debug, Clone, PartialEq)]
pub struct OpenAiSettings {
    /// The API root, e.g. `http://127.0.0.1:8000/v1`; requests go to `{base_url}/chat/completions`.
    pub base_url: String,
    /// The model name as the endpoint knows it.
    pub model: String,
    /// The NAME of the environment variable holding the API key (`None`: send no key, as local
    /// servers usually want).
    pub api_key_env: Option<String>,
    pub sampling: Sampling,
    /// The whole of one HTTP attempt: connect, send, wait for and read the reply.
    pub request_timeout: Duration,
    /// Further attempts after the first one fails transiently.
    pub retries: u32,
    /// The first backoff; each retry doubles it (with jitter), up to 30 s.
    pub backoff_base: Duration,
    /// Requests in flight at once across every worker sharing the client (0 counts as 1).
    pub max_concurrent: usize,
}

impl OpenAiSettings {
    /// Settings with the defaults: no key, upstream's sampling, 120 s per attempt, 4 retries
    /// from a 1 s backoff, 8 requests in flight.
    pub fn new(base_url: impl Into<String>, model: impl Into<String>) -> OpenAiSettings {
        OpenAiSettings {
            base_url: base_url.into(),
            model: model.into(),
            api_key_env: None,
            sampling: Sampling::default(),
            request_timeout: Duration::from_secs(120),
            retries: 4,
            backoff_base: Duration::from_secs(1),
            max_concurrent: 8,
        }
    }
}

/// A chat-completions client, shared by a run's workers.
pub struct OpenAiClient {
    settings: OpenAiSettings,
    /// `{base_url}/chat/completions`.
    url: String,
    key: Option<Secret>,
    agent: ureq::Agent,
    gate: Gate,
}

impl OpenAiClient {
    /// A client whose key (if the settings name a variable) comes from the process environment.
    /// Fails when that variable is unset or empty: better at start than as 401s mid-run.
    pub fn new(settings: OpenAiSettings) -> Result<OpenAiClient, ModelError> {
        OpenAiClient::with_key_lookup(settings, |name| std::env::var(name).ok())
    }

    /// As [`OpenAiClient::new`], with `lookup` standing in for the environment (tests cannot
    /// set variables safely while other threads run).
    pub fn with_key_lookup(
        settings: OpenAiSettings,
        lookup: impl FnOnce(&str) -> Option<String>,
    ) -> Result<OpenAiClient, ModelError> {
        let key = match &settings.api_key_env {
            None => None,
            Some(name) => Some(read_key(name, lookup)?),
        };
        // Redirects are not followed: a POST turned into a GET, or the key sent to another
        // host, is never what the user meant; a 3xx is reported instead.
        let agent = ureq::AgentBuilder::new()
            .timeout(settings.request_timeout)
            .redirects(0)
            .user_agent(concat!("intercode-wasm/", env!("CARGO_PKG_VERSION")))
            .build();
        Ok(OpenAiClient {
            url: format!(
                "{}/chat/completions",
                settings.base_url.trim_end_matches('/')
            ),
            gate: Gate::new(settings.max_concurrent.max(1)),
            key,
            agent,
            settings,
        })
    }

    pub fn settings(&self) -> &OpenAiSettings {
        &self.settings
    }

    /// One HTTP attempt, holding a slot of the in-flight cap until the body is read.
    fn attempt(&self, body: &str) -> Result<ChatReply, Failure> {
        let _slot = self.gate.acquire();
        let mut call = self
            .agent
            .post(&self.url)
            .set("Content-Type", "application/json");
        if let Some(key) = &self.key {
            call = call.set("Authorization", &format!("Bearer {}", key.0));
        }
        match call.send_string(body) {
            Ok(response) => self.read_success(response),
            Err(ureq::Error::Status(code, response)) => Err(self.status_failure(code, response)),
            Err(ureq::Error::Transport(transport)) => Err(self.transport_failure(&transport)),
        }
    }

    /// A response below 400: 2xx should hold a completion; 1xx/3xx cannot.
    fn read_success(&self, response: ureq::Response) -> Result<ChatReply, Failure> {
        let code = response.status();
        if !(200..300).contains(&code) {
            let location = response.header("location").unwrap_or("none").to_string();
            return Err(Failure::Fatal(ModelError::Endpoint(format!(
                "HTTP {code} from {} (redirects are not followed; location: {location})",
                self.url
            ))));
        }
        let text = response.into_string().map_err(|e| Failure::Transient {
            error: ModelError::Endpoint(format!("reading the reply from {}: {e}", self.url)),
            retry_after: None,
        })?;
        parse_reply(&text).map_err(|error| Failure::Transient {
            error,
            retry_after: None,
        })
    }

    /// A status of 400 or more: rate limits, timeouts and server faults may pass; the rest
    /// (bad request, auth, unknown model) will not, so they fail at once.
    fn status_failure(&self, code: u16, response: ureq::Response) -> Failure {
        let retry_after = match code {
            429 | 503 => response.header("retry-after").and_then(parse_retry_after),
            _ => None,
        };
        let body = response.into_string().unwrap_or_default();
        let error = ModelError::Endpoint(format!(
            "HTTP {code} from {}: {}",
            self.url,
            endpoint_message(&body)
        ));
        if code == 408 || code == 429 || code >= 500 {
            Failure::Transient { error, retry_after }
        } else {
            Failure::Fatal(error)
        }
    }

    /// No HTTP status: a bad URL or proxy setting will never work; anything else (refused,
    /// reset, DNS, timeout) may.
    fn transport_failure(&self, transport: &ureq::Transport) -> Failure {
        use ureq::ErrorKind as K;
        let error = ModelError::Endpoint(transport.to_string());
        match transport.kind() {
            K::InvalidUrl
            | K::UnknownScheme
            | K::InsecureRequestHttpsOnly
            | K::InvalidProxyUrl
            | K::ProxyUnauthorized
            | K::TooManyRedirects => Failure::Fatal(error),
            _ => Failure::Transient {
                error,
                retry_after: None,
            },
        }
    }

    /// Removes the key from a message, in case an endpoint or proxy echoed it back.
    fn scrub(&self, error: ModelError) -> ModelError {
        let Some(key) = &self.key else { return error };
        let clean = |s: String| s.replace(key.0.as_str(), "[redacted]");
        match error {
            ModelError::Endpoint(m) => ModelError::Endpoint(clean(m)),
            ModelError::Malformed(m) => ModelError::Malformed(clean(m)),
        }
    }
}

impl ChatModel for OpenAiClient {
    fn complete(&self, request: &ChatRequest) -> Result<ChatReply, ModelError> {
        let body = request_body(&self.settings.model, &self.settings.sampling, request).to_string();
        let attempts = self.settings.retries.saturating_add(1);
        let mut requests = 0;
        loop {
            requests += 1;
            let (error, retry_after) = match self.attempt(&body) {
                Ok(mut reply) => {
                    // Failed attempts bring back no tokens; every attempt counts as a request.
                    reply.usage.requests = requests;
                    return Ok(reply);
                }
                Err(Failure::Fatal(error)) => return Err(self.scrub(error)),
                Err(Failure::Transient { error, retry_after }) => (self.scrub(error), retry_after),
            };
            if requests >= u64::from(attempts) {
                return Err(gave_up(error, attempts));
            }
            let delay = backoff(
                self.settings.backoff_base,
                (requests - 1) as u32,
                retry_after,
                jitter(),
            );
            tracing::warn!(
                model = %self.settings.model,
                attempt = requests,
                of = attempts,
                delay_ms = delay.as_millis() as u64,
                error = %error,
                "model request failed; retrying"
            );
            std::thread::sleep(delay);
        }
    }

    fn name(&self) -> &str {
        &self.settings.model
    }
}

/// Written by hand so the key can never reach a log through `{:?}`.
impl fmt::Debug for OpenAiClient {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("OpenAiClient")
            .field("url", &self.url)
            .field("model", &self.settings.model)
            .field("api_key_env", &self.settings.api_key_env)
            .field("key", &self.key)
            .field("retries", &self.settings.retries)
            .field("max_concurrent", &self.settings.max_concurrent)
            .finish_non_exhaustive()
    }
}

/// The API key; its `Debug` shows nothing of it.
struct Secret(String);

impl fmt::Debug for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("<redacted>")
    }
}

fn read_key(name: &str, lookup: impl FnOnce(&str) -> Option<String>) -> Result<Secret, ModelError> {
    // Keys pasted from files often carry a trailing newline, which no header may contain.
    match lookup(name).map(|k| k.trim().to_string()) {
        Some(key) if !key.is_empty() => Ok(Secret(key)),
        _ => Err(ModelError::Endpoint(format!(
            "the API key variable {name} is not set or empty"
        ))),
    }
}

/// How one attempt failed.
enum Failure {
    /// Worth another attempt; `retry_after` is the endpoint's own hint.
    Transient {
        error: ModelError,
        retry_after: Option<Duration>,
    },
    /// Retrying cannot help.
    Fatal(ModelError),
}

/// The last error, saying that retries ran out (a run's report shows why episodes failed).
fn gave_up(error: ModelError, attempts: u32) -> ModelError {
    let note = format!(" (gave up after {attempts} attempts)");
    match error {
        ModelError::Endpoint(m) => ModelError::Endpoint(m + &note),
        ModelError::Malformed(m) => ModelError::Malformed(m + &note),
    }
}

/// The wait before retry number `retry` (0 = the first): the endpoint's `Retry-After` if it
/// gave one, else `base * 2^retry` with "equal jitter" — half fixed, half random (`jitter` in
/// [0, 1)) so workers that failed together do not retry together. Both capped at 30 s.
fn backoff(base: Duration, retry: u32, retry_after: Option<Duration>, jitter: f64) -> Duration {
    if let Some(hint) = retry_after {
        return hint.min(MAX_DELAY);
    }
    let factor = 1u32.checked_shl(retry).unwrap_or(u32::MAX);
    let full = base.saturating_mul(factor).min(MAX_DELAY);
    full / 2 + (full / 2).mul_f64(jitter.clamp(0.0, 1.0))
}

/// A number in [0, 1) from std's randomly keyed hasher (no RNG dependency for a jitter).
fn jitter() -> f64 {
    let bits = RandomState::new().hash_one(Instant::now()) >> 11;
    bits as f64 / (1u64 << 53) as f64
}

/// `Retry-After` in whole seconds; the HTTP-date form is ignored (exponential backoff then).
fn parse_retry_after(value: &str) -> Option<Duration> {
    value.trim().parse::<u64>().ok().map(Duration::from_secs)
}

/// The request JSON for `request` (pure, for tests).
pub fn request_body(model: &str, sampling: &Sampling, request: &ChatRequest) -> Value {
    let messages: Vec<Value> = request.messages.iter().map(message_json).collect();
    let mut body = json!({
        "model": model,
        "messages": messages,
        "temperature": sampling.temperature,
        "max_tokens": sampling.max_tokens,
    });
    if let Some(seed) = sampling.seed {
        body["seed"] = json!(seed);
    }
    if !request.stop.is_empty() {
        body["stop"] = json!(request.stop);
    }
    if !request.tools.is_empty() {
        body["tools"] = request.tools.iter().map(tool_json).collect();
    }
    body
}

fn message_json(message: &ChatMessage) -> Value {
    let mut out = json!({ "role": message.role, "content": message.content });
    if !message.tool_calls.is_empty() {
        out["tool_calls"] = message.tool_calls.iter().map(tool_call_json).collect();
        // OpenAI's own form for "only tool calls": a null content rather than "".
        if message.content.is_empty() {
            out["content"] = Value::Null;
        }
    }
    if let Some(id) = &message.tool_call_id {
        out["tool_call_id"] = json!(id);
    }
    out
}

fn tool_call_json(call: &ToolCall) -> Value {
    json!({
        "id": call.id,
        "type": "function",
        "function": { "name": call.name, "arguments": call.arguments },
    })
}

fn tool_json(tool: &ToolSpec) -> Value {
    json!({
        "type": "function",
        "function": {
            "name": tool.name,
            "description": tool.description,
            "parameters": tool.parameters,
        },
    })
}

/// The reply in a chat-completions response body (pure, for tests). `usage.requests` is left
/// at 0: the HTTP loop counts attempts.
pub fn parse_reply(body: &str) -> Result<ChatReply, ModelError> {
    let value: Value =
        serde_json::from_str(body).map_err(|_| malformed("the body is not JSON", body))?;
    let choice = value
        .get("choices")
        .and_then(|c| c.get(0))
        .ok_or_else(|| malformed("no choices", body))?;
    let message = choice
        .get("message")
        .ok_or_else(|| malformed("choices[0] has no message", body))?;
    let content = content_text(message.get("content"))
        .ok_or_else(|| malformed("the message content is neither text nor null", body))?;
    let tool_calls = parse_tool_calls(message.get("tool_calls"), body)?;
    Ok(ChatReply {
        content,
        tool_calls,
        usage: parse_usage(value.get("usage")),
        finish_reason: choice
            .get("finish_reason")
            .and_then(Value::as_str)
            .map(str::to_string),
    })
}

/// Text content: a string, null/absent (a reply of only tool calls), or a list of parts
/// whose texts are joined (some servers answer in the multi-part form).
fn content_text(content: Option<&Value>) -> Option<String> {
    match content {
        None | Some(Value::Null) => Some(String::new()),
        Some(Value::String(s)) => Some(s.clone()),
        Some(Value::Array(parts)) => Some(
            parts
                .iter()
                .filter_map(|p| p.get("text").and_then(Value::as_str))
                .collect(),
        ),
        Some(_) => None,
    }
}

fn parse_tool_calls(calls: Option<&Value>, body: &str) -> Result<Vec<ToolCall>, ModelError> {
    let calls = match calls {
        None | Some(Value::Null) => return Ok(Vec::new()),
        Some(Value::Array(calls)) => calls,
        Some(_) => return Err(malformed("tool_calls is not a list", body)),
    };
    calls
        .iter()
        .enumerate()
        .map(|(i, call)| {
            let function = call.get("function");
            let name = function
                .and_then(|f| f.get("name"))
                .and_then(Value::as_str)
                .ok_or_else(|| malformed("a tool call has no function name", body))?;
            Ok(ToolCall {
                // Some servers omit ids; the conversation still needs one to answer.
                id: call
                    .get("id")
                    .and_then(Value::as_str)
                    .map_or_else(|| format!("call_{i}"), str::to_string),
                name: name.to_string(),
                arguments: arguments_text(function.and_then(|f| f.get("arguments"))),
            })
        })
        .collect()
}

/// Arguments as a string, as OpenAI sends them; some servers send the object itself.
fn arguments_text(arguments: Option<&Value>) -> String {
    match arguments {
        None | Some(Value::Null) => "{}".to_string(),
        Some(Value::String(s)) => s.clone(),
        Some(other) => other.to_string(),
    }
}

/// Token counts; a server that reports none costs 0 tokens (the request still counts).
fn parse_usage(usage: Option<&Value>) -> Usage {
    let count = |field: &str| {
        usage
            .and_then(|u| u.get(field))
            .and_then(Value::as_u64)
            .unwrap_or(0)
    };
    Usage {
        prompt_tokens: count("prompt_tokens"),
        completion_tokens: count("completion_tokens"),
        requests: 0,
    }
}

fn malformed(reason: &str, body: &str) -> ModelError {
    ModelError::Malformed(format!("{reason}: {}", excerpt(body)))
}

/// The endpoint's own explanation in an error body: OpenAI's `{"error":{"message":..}}`, the
/// `{"error":".."}`, `{"message":".."}` and `{"detail":".."}` other servers use, else the
/// start of the body.
fn endpoint_message(body: &str) -> String {
    let parsed = serde_json::from_str::<Value>(body).ok();
    let message = parsed.as_ref().and_then(|v| {
        ["/error/message", "/error", "/message", "/detail"]
            .iter()
            .find_map(|pointer| v.pointer(pointer).and_then(Value::as_str))
    });
    excerpt(message.unwrap_or(body))
}

/// The first [`EXCERPT_CHARS`] characters of `text`, saying how much was cut.
fn excerpt(text: &str) -> String {
    let text = text.trim();
    match text.char_indices().nth(EXCERPT_CHARS) {
        None if text.is_empty() => "(empty body)".to_string(),
        None => text.to_string(),
        Some((cut, _)) => format!("{}… ({} bytes)", &text[..cut], text.len()),
    }
}

/// A counting semaphore: the cap on requests in flight across the threads sharing a client.
struct Gate {
    free: Mutex<usize>,
    freed: Condvar,
}

impl Gate {
    fn new(slots: usize) -> Gate {
        Gate {
            free: Mutex::new(slots),
            freed: Condvar::new(),
        }
    }

    fn acquire(&self) -> Slot<'_> {
        // The count stays consistent even if a holder panicked, so poisoning is ignored.
        let mut free = self.free.lock().unwrap_or_else(PoisonError::into_inner);
        while *free == 0 {
            free = self
                .freed
                .wait(free)
                .unwrap_or_else(PoisonError::into_inner);
        }
        *free -= 1;
        Slot { gate: self }
    }
}

/// A held slot; dropping it frees the slot and wakes one waiter.
struct Slot<'a> {
    gate: &'a Gate,
}

impl Drop for Slot<'_> {
    fn drop(&mut self) {
        *self
            .gate
            .free
            .lock()
            .unwrap_or_else(PoisonError::into_inner) += 1;
        self.gate.freed.notify_one();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::harness::model::Role;

    fn request(messages: Vec<ChatMessage>) -> ChatRequest {
        ChatRequest {
            messages,
            tools: Vec::new(),
            stop: Vec::new(),
        }
    }

    #[test]
    fn body_carries_model_sampling_and_plain_messages() {
        let sampling = Sampling {
            temperature: 0.5,
            max_tokens: 64,
            seed: None,
        };
        let req = request(vec![ChatMessage::system("sys"), ChatMessage::user("hi")]);
        let body = request_body("m", &sampling, &req);
        assert_eq!(body["model"], "m");
        assert_eq!(body["temperature"], 0.5);
        assert_eq!(body["max_tokens"], 64);
        assert_eq!(
            body["messages"],
            json!([
                {"role": "system", "content": "sys"},
                {"role": "user", "content": "hi"},
            ])
        );
        // Absent rather than empty: some servers reject `"stop": []` or `"tools": []`.
        for key in ["seed", "stop", "tools"] {
            assert!(body.get(key).is_none(), "{key} should be absent");
        }
    }

    #[test]
    fn body_carries_seed_stop_and_tools_when_set() {
        let sampling = Sampling {
            seed: Some(7),
            ..Sampling::default()
        };
        let mut req = request(vec![ChatMessage::user("q")]);
        req.stop = vec!["Observation:".into()];
        req.tools = vec![ToolSpec {
            name: "execute".into(),
            description: "run it".into(),
            parameters: json!({"type": "object"}),
        }];
        let body = request_body("m", &sampling, &req);
        assert_eq!(body["seed"], 7);
        assert_eq!(body["stop"], json!(["Observation:"]));
        assert_eq!(
            body["tools"],
            json!([{"type": "function", "function": {
                "name": "execute", "description": "run it", "parameters": {"type": "object"}}}])
        );
    }

    #[test]
    fn body_carries_tool_calls_and_tool_results() {
        let call = ToolCall {
            id: "c1".into(),
            name: "execute".into(),
            arguments: r#"{"command":"ls"}"#.into(),
        };
        let assistant = ChatMessage {
            role: Role::Assistant,
            content: String::new(),
            tool_calls: vec![call],
            tool_call_id: None,
        };
        let req = request(vec![assistant, ChatMessage::tool("c1", "a b")]);
        let body = request_body("m", &Sampling::default(), &req);
        assert_eq!(
            body["messages"],
            json!([
                {"role": "assistant", "content": null, "tool_calls": [{"id": "c1", "type": "function",
                    "function": {"name": "execute", "arguments": "{\"command\":\"ls\"}"}}]},
                {"role": "tool", "content": "a b", "tool_call_id": "c1"},
            ])
        );
    }

    #[test]
    fn parses_text_reply_with_usage() {
        let body = r#"{"choices":[{"index":0,"message":{"role":"assistant","content":"ls -l"},
            "finish_reason":"stop"}],"usage":{"prompt_tokens":12,"completion_tokens":3}}"#;
        let reply = parse_reply(body).unwrap();
        assert_eq!(reply.content, "ls -l");
        assert!(reply.tool_calls.is_empty());
        assert_eq!(reply.finish_reason.as_deref(), Some("stop"));
        let expected = Usage {
            prompt_tokens: 12,
            completion_tokens: 3,
            requests: 0,
        };
        assert_eq!(reply.usage, expected);
    }

    #[test]
    fn parses_tool_calls_with_null_content() {
        let body = r#"{"choices":[{"message":{"content":null,"tool_calls":[
            {"id":"x","type":"function","function":{"name":"execute","arguments":"{\"command\":\"pwd\"}"}},
            {"function":{"name":"submit","arguments":{"answer":1}}}]},
            "finish_reason":"tool_calls"}]}"#;
        let reply = parse_reply(body).unwrap();
        assert_eq!(reply.content, "");
        assert_eq!(reply.usage, Usage::default(), "missing usage is zero");
        let calls = &reply.tool_calls;
        assert_eq!(calls.len(), 2);
        assert_eq!(
            (calls[0].id.as_str(), calls[0].name.as_str()),
            ("x", "execute")
        );
        assert_eq!(calls[0].arguments, r#"{"command":"pwd"}"#);
        // No id: one is made up; object arguments: serialised back to a string.
        assert_eq!(calls[1].id, "call_1");
        assert_eq!(calls[1].arguments, r#"{"answer":1}"#);
    }

    #[test]
    fn joins_multipart_content() {
        let body = r#"{"choices":[{"message":{"content":[{"type":"text","text":"a"},
            {"type":"text","text":"b"}]}}]}"#;
        assert_eq!(parse_reply(body).unwrap().content, "ab");
    }

    #[test]
    fn rejects_bodies_that_are_not_completions() {
        let long = format!("<html>{}</html>", "x".repeat(5000));
        for body in [
            long.as_str(),
            "{}",
            r#"{"choices":[]}"#,
            r#"{"choices":[{}]}"#,
        ] {
            match parse_reply(body) {
                Err(ModelError::Malformed(m)) => {
                    assert!(m.chars().count() < EXCERPT_CHARS + 100, "{m}")
                }
                other => panic!("{body}: {other:?}"),
            }
        }
    }

    #[test]
    fn endpoint_message_prefers_the_endpoints_words() {
        let openai = r#"{"error":{"message":"model not found","type":"invalid_request_error"}}"#;
        assert_eq!(endpoint_message(openai), "model not found");
        assert_eq!(endpoint_message(r#"{"error":"no key"}"#), "no key");
        assert_eq!(endpoint_message(r#"{"detail":"bad"}"#), "bad");
        assert_eq!(endpoint_message("plain text"), "plain text");
        assert_eq!(endpoint_message(""), "(empty body)");
    }

    #[test]
    fn excerpt_cuts_on_a_char_boundary() {
        let text = "é".repeat(EXCERPT_CHARS + 10);
        let cut = excerpt(&text);
        assert!(cut.starts_with(&"é".repeat(EXCERPT_CHARS)));
        assert!(cut.ends_with(&format!("… ({} bytes)", text.len())));
    }

    #[test]
    fn backoff_doubles_with_jitter_and_is_capped() {
        let base = Duration::from_secs(1);
        assert_eq!(backoff(base, 0, None, 0.0), Duration::from_millis(500));
        assert_eq!(backoff(base, 2, None, 0.0), Duration::from_secs(2));
        let high = backoff(base, 2, None, 0.999);
        assert!(high > Duration::from_millis(3990) && high < Duration::from_secs(4));
        assert_eq!(backoff(base, 10, None, 1.0), MAX_DELAY);
        assert_eq!(backoff(base, 40, None, 1.0), MAX_DELAY);
        let j = jitter();
        assert!((0.0..1.0).contains(&j));
    }

    #[test]
    fn retry_after_is_honoured_and_capped() {
        let base = Duration::from_secs(1);
        let hint = parse_retry_after(" 3 ");
        assert_eq!(backoff(base, 5, hint, 0.5), Duration::from_secs(3));
        assert_eq!(
            backoff(base, 0, parse_retry_after("0"), 0.5),
            Duration::ZERO
        );
        assert_eq!(backoff(base, 0, parse_retry_after("9999"), 0.5), MAX_DELAY);
        assert_eq!(parse_retry_after("Wed, 21 Oct 2015 07:28:00 GMT"), None);
    }

    #[test]
    fn key_comes_from_the_named_variable_and_never_shows_in_debug() {
        let mut settings = OpenAiSettings::new("http://127.0.0.1:9/v1/", "m");
        settings.api_key_env = Some("MY_KEY".into());
        let client = OpenAiClient::with_key_lookup(settings.clone(), |name| {
            assert_eq!(name, "MY_KEY");
            Some("sk-very-secret\n".into())
        })
        .unwrap();
        assert_eq!(client.key.as_ref().unwrap().0, "sk-very-secret");
        assert_eq!(client.url, "http://127.0.0.1:9/v1/chat/completions");
        let shown = format!("{client:?}");
        assert!(!shown.contains("sk-very-secret"), "{shown}");
        assert!(shown.contains("<redacted>"), "{shown}");

        let missing = OpenAiClient::with_key_lookup(settings, |_| None).unwrap_err();
        assert!(missing.to_string().contains("MY_KEY"), "{missing}");
    }

    #[test]
    fn errors_are_scrubbed_of_the_key() {
        let mut settings = OpenAiSettings::new("http://127.0.0.1:9/v1", "m");
        settings.api_key_env = Some("K".into());
        let client = OpenAiClient::with_key_lookup(settings, |_| Some("sk-abc".into())).unwrap();
        let scrubbed = client.scrub(ModelError::Endpoint("bad key sk-abc".into()));
        assert_eq!(scrubbed.to_string(), "endpoint: bad key [redacted]");
    }

    #[test]
    fn gate_hands_out_at_most_its_slots() {
        let gate = Gate::new(2);
        let a = gate.acquire();
        let _b = gate.acquire();
        assert_eq!(*gate.free.lock().unwrap(), 0);
        drop(a);
        assert_eq!(*gate.free.lock().unwrap(), 1);
    }
}
