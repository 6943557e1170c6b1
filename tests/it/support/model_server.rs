//! A scripted model for tests: a real HTTP/1.1 server on 127.0.0.1 that answers
//! `POST …/chat/completions` the way an OpenAI-compatible endpoint would, with replies a test
//! script chooses per request — completions, tool calls, error statuses, garbage, hangs and
//! dropped connections — so the HTTP client is exercised over real sockets.
//!
//! Plain std: a listener thread, a thread per connection, keep-alive, `Content-Length`
//! bodies only (what ureq sends). Every request is recorded for later assertions, and the
//! server counts how many requests it was handling at once.

use serde_json::{Value, json};
use std::collections::HashMap;
use std::io::{BufRead, BufReader, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::Duration;

/// Decides the reply to each request.
pub type Script = Arc<dyn Fn(&Request) -> Reply + Send + Sync>;

/// A script from a closure.
pub fn script(f: impl Fn(&Request) -> Reply + Send + Sync + 'static) -> Script {
    Arc::new(f)
}

/// What the server answers.
#[derive(Debug, Clone)]
pub enum Reply {
    /// A completion with this content, `finish_reason: "stop"` and usage from
    /// [`Request::prompt_tokens`] and [`completion_tokens`].
    Text(String),
    /// A completion of only tool calls: (function name, arguments JSON text).
    ToolCalls(Vec<(String, String)>),
    /// This status with the message in OpenAI's error shape; 429 and 503 add `Retry-After: 0`.
    Status(u16, String),
    /// Status 200 with exactly this body (also a way to send a hand-made completion).
    Garbage(String),
    /// Sleep, then answer an empty completion (late, if the client has given up by then).
    Hang(Duration),
    /// Drop the connection without answering.
    Close,
}

/// A chat message as received: role and content (null content reads as "").
#[derive(Debug, Clone)]
pub struct Message {
    pub role: String,
    pub content: String,
}

/// A request as received.
#[derive(Debug, Clone)]
pub struct Request {
    /// Header names in lower case, values as sent.
    pub headers: Vec<(String, String)>,
    /// The whole JSON body.
    pub body: Value,
    pub messages: Vec<Message>,
    /// The `tools` entries as sent.
    pub tools: Vec<Value>,
    /// How many requests came before this one in the same conversation, where a conversation
    /// is keyed by its first user message (the task's query). Retries count too.
    pub call_index: usize,
}

impl Request {
    pub fn header(&self, name: &str) -> Option<&str> {
        let name = name.to_ascii_lowercase();
        self.headers
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, v)| v.as_str())
    }

    pub fn tool_names(&self) -> Vec<&str> {
        self.tools
            .iter()
            .filter_map(|t| t.pointer("/function/name").and_then(Value::as_str))
            .collect()
    }

    /// The conversation key: the first user message's content ("" when there is none).
    pub fn query(&self) -> &str {
        self.messages
            .iter()
            .find(|m| m.role == "user")
            .map_or("", |m| m.content.as_str())
    }

    /// The prompt tokens the server reports: a quarter of the messages' characters, at least 1.
    pub fn prompt_tokens(&self) -> u64 {
        tokens(
            self.messages
                .iter()
                .map(|m| m.content.chars().count())
                .sum(),
        )
    }
}

/// The completion tokens the server reports for `text`: a quarter of its characters, at least 1.
pub fn completion_tokens(text: &str) -> u64 {
    tokens(text.chars().count())
}

fn tokens(chars: usize) -> u64 {
    (chars / 4).max(1) as u64
}

/// A running server; dropping it stops it.
pub struct ModelServer {
    /// `http://127.0.0.1:PORT/v1`, ready for the client's settings.
    pub base_url: String,
    addr: SocketAddr,
    shared: Arc<Shared>,
    listener: Option<JoinHandle<()>>,
}

/// What the connection threads share.
struct Shared {
    script: Script,
    requests: Mutex<Vec<Request>>,
    calls: Mutex<HashMap<String, usize>>,
    in_flight: AtomicUsize,
    max_in_flight: AtomicUsize,
    shutdown: AtomicBool,
}

impl ModelServer {
    /// Binds a free port on 127.0.0.1 and serves `script` until dropped.
    pub fn start(script: Script) -> ModelServer {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind 127.0.0.1:0");
        let addr = listener.local_addr().expect("local address");
        let shared = Arc::new(Shared {
            script,
            requests: Mutex::new(Vec::new()),
            calls: Mutex::new(HashMap::new()),
            in_flight: AtomicUsize::new(0),
            max_in_flight: AtomicUsize::new(0),
            shutdown: AtomicBool::new(false),
        });
        let accepting = Arc::clone(&shared);
        let handle = std::thread::spawn(move || accept_loop(&listener, &accepting));
        ModelServer {
            base_url: format!("http://{addr}/v1"),
            addr,
            shared,
            listener: Some(handle),
        }
    }

    /// Every chat request received so far, in arrival order.
    pub fn requests(&self) -> Vec<Request> {
        self.shared.requests.lock().unwrap().clone()
    }

    /// The most requests the server was handling at the same moment.
    pub fn max_in_flight(&self) -> usize {
        self.shared.max_in_flight.load(Ordering::SeqCst)
    }
}

impl Drop for ModelServer {
    fn drop(&mut self) {
        self.shared.shutdown.store(true, Ordering::SeqCst);
        // `accept` blocks; a connection of our own wakes it to see the flag.
        let _ = TcpStream::connect(self.addr);
        if let Some(handle) = self.listener.take() {
            let _ = handle.join();
        }
        // Connection threads are not joined: one may be sleeping in a `Hang`. They end when
        // their client hangs up, at the flag, or at the idle timeout.
    }
}

/// How long a kept-alive connection may sit idle before its thread gives up on it.
const IDLE_TIMEOUT: Duration = Duration::from_secs(30);

fn accept_loop(listener: &TcpListener, shared: &Arc<Shared>) {
    for stream in listener.incoming() {
        if shared.shutdown.load(Ordering::SeqCst) {
            return;
        }
        let Ok(stream) = stream else { continue };
        let shared = Arc::clone(shared);
        std::thread::spawn(move || serve_connection(stream, &shared));
    }
}

/// Answers requests on one connection until the client closes it, asks for `Connection:
/// close`, a reply drops it, or the server shuts down.
fn serve_connection(stream: TcpStream, shared: &Shared) {
    let _ = stream.set_read_timeout(Some(IDLE_TIMEOUT));
    let Ok(read_half) = stream.try_clone() else {
        return;
    };
    let mut reader = BufReader::new(read_half);
    let mut writer = stream;
    while !shared.shutdown.load(Ordering::SeqCst) {
        let Some(raw) = read_request(&mut reader) else {
            return;
        };
        let close = raw
            .header("connection")
            .is_some_and(|v| v.eq_ignore_ascii_case("close"));
        let Some(response) = shared.respond(&raw, close) else {
            return; // Reply::Close
        };
        if writer.write_all(&response).is_err() || close {
            return;
        }
    }
}

/// A request off the wire, before its body is understood.
struct RawRequest {
    method: String,
    path: String,
    headers: Vec<(String, String)>,
    body: Vec<u8>,
}

impl RawRequest {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }
}

/// Reads one request; `None` at end of stream, on a timeout or on anything unparsable.
fn read_request(reader: &mut impl BufRead) -> Option<RawRequest> {
    let mut line = String::new();
    if reader.read_line(&mut line).ok()? == 0 {
        return None;
    }
    let mut words = line.split_whitespace();
    let method = words.next()?.to_string();
    let path = words.next()?.to_string();
    let mut headers = Vec::new();
    loop {
        line.clear();
        if reader.read_line(&mut line).ok()? == 0 {
            return None;
        }
        let header = line.trim_end();
        if header.is_empty() {
            break;
        }
        let (name, value) = header.split_once(':')?;
        headers.push((name.trim().to_ascii_lowercase(), value.trim().to_string()));
    }
    let mut raw = RawRequest {
        method,
        path,
        headers,
        body: Vec::new(),
    };
    let length = raw
        .header("content-length")
        .map_or(Some(0), |v| v.parse().ok())?;
    raw.body = vec![0; length];
    reader.read_exact(&mut raw.body).ok()?;
    Some(raw)
}

impl Shared {
    /// The bytes to send back, or `None` to drop the connection.
    fn respond(&self, raw: &RawRequest, close: bool) -> Option<Vec<u8>> {
        if raw.method != "POST" || !raw.path.ends_with("/chat/completions") {
            return Some(http(404, &[], &error_body("no such route"), close));
        }
        let Ok(body) = serde_json::from_slice::<Value>(&raw.body) else {
            return Some(http(400, &[], &error_body("the body is not JSON"), close));
        };
        let request = self.record(raw.headers.clone(), body);
        let now = self.in_flight.fetch_add(1, Ordering::SeqCst) + 1;
        self.max_in_flight.fetch_max(now, Ordering::SeqCst);
        let reply = (self.script)(&request);
        let response = render(&reply, &request, close);
        // Leave the in-flight count before writing: once the client has the whole reply it
        // may send its next request, which must not find this one still counted.
        self.in_flight.fetch_sub(1, Ordering::SeqCst);
        response
    }

    /// Builds the [`Request`], numbering it within its conversation, and keeps a copy.
    fn record(&self, headers: Vec<(String, String)>, body: Value) -> Request {
        let messages = body["messages"]
            .as_array()
            .map(|list| list.iter().map(message).collect())
            .unwrap_or_default();
        let tools = body["tools"].as_array().cloned().unwrap_or_default();
        let mut request = Request {
            headers,
            body,
            messages,
            tools,
            call_index: 0,
        };
        let mut calls = self.calls.lock().unwrap();
        let count = calls.entry(request.query().to_string()).or_insert(0);
        request.call_index = *count;
        *count += 1;
        self.requests.lock().unwrap().push(request.clone());
        request
    }
}

fn message(value: &Value) -> Message {
    let text = |key: &str| value[key].as_str().unwrap_or_default().to_string();
    Message {
        role: text("role"),
        content: text("content"),
    }
}

/// The HTTP response for `reply`, or `None` for [`Reply::Close`].
fn render(reply: &Reply, request: &Request, close: bool) -> Option<Vec<u8>> {
    let ok = |body: &Value| Some(http(200, &[], &body.to_string(), close));
    match reply {
        Reply::Text(text) => ok(&completion(request, json!(text), Value::Null, "stop", text)),
        Reply::ToolCalls(calls) => {
            let list: Vec<Value> = calls
                .iter()
                .enumerate()
                .map(|(i, (name, arguments))| {
                    json!({
                        "id": format!("call_{}_{i}", request.call_index),
                        "type": "function",
                        "function": {"name": name, "arguments": arguments},
                    })
                })
                .collect();
            let spoken: String = calls.iter().map(|(n, a)| format!("{n}{a}")).collect();
            ok(&completion(
                request,
                Value::Null,
                json!(list),
                "tool_calls",
                &spoken,
            ))
        }
        Reply::Status(code, message) => {
            let retry: &[(&str, &str)] = match code {
                429 | 503 => &[("Retry-After", "0")],
                _ => &[],
            };
            Some(http(*code, retry, &error_body(message), close))
        }
        Reply::Garbage(body) => Some(http(200, &[], body, close)),
        Reply::Hang(pause) => {
            std::thread::sleep(*pause);
            render(&Reply::Text(String::new()), request, close)
        }
        Reply::Close => None,
    }
}

/// A chat-completions body; `spoken` is the text the completion tokens are counted from.
fn completion(
    request: &Request,
    content: Value,
    calls: Value,
    finish: &str,
    spoken: &str,
) -> Value {
    let mut message = json!({"role": "assistant", "content": content});
    if !calls.is_null() {
        message["tool_calls"] = calls;
    }
    let (prompt, completion) = (request.prompt_tokens(), completion_tokens(spoken));
    json!({
        "id": format!("chatcmpl-{}", request.call_index),
        "object": "chat.completion",
        "created": 0,
        "model": request.body["model"],
        "choices": [{"index": 0, "message": message, "finish_reason": finish}],
        "usage": {
            "prompt_tokens": prompt,
            "completion_tokens": completion,
            "total_tokens": prompt + completion,
        },
    })
}

fn error_body(message: &str) -> String {
    json!({"error": {"message": message, "type": "test_error"}}).to_string()
}

fn http(code: u16, extra: &[(&str, &str)], body: &str, close: bool) -> Vec<u8> {
    let reason = match code {
        200 => "OK",
        400 => "Bad Request",
        401 => "Unauthorized",
        404 => "Not Found",
        429 => "Too Many Requests",
        500 => "Internal Server Error",
        503 => "Service Unavailable",
        _ => "Status",
    };
    let mut head = format!(
        "HTTP/1.1 {code} {reason}\r\nContent-Type: application/json\r\nContent-Length: {}\r\n",
        body.len()
    );
    for (name, value) in extra {
        head += &format!("{name}: {value}\r\n");
    }
    if close {
        head += "Connection: close\r\n";
    }
    (head + "\r\n" + body).into_bytes()
}
