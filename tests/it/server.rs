//! `intercode serve` and `intercode mcp` end to end, as separate processes on 127.0.0.1:
//!
//! * the gym API over real HTTP (ureq): create, tasks, reset, step, evaluate, close, the
//!   OpenAPI document, and every error with its status code;
//! * MCP with a real client, the official Python SDK (`tests/py/mcp_client.py`), over stdio and
//!   over Streamable HTTP, each with protocol 2025-11-25 (the `initialize` handshake) and
//!   2026-07-28 (per-request metadata): bash, SQL and Python episodes with undo, checkpoints,
//!   listing and reading files, the guard (lint, destructive gate, critic veto), a free
//!   sandbox, and rewards equal to the library's for the same actions;
//! * a bounded load test: 64 episodes at once over HTTP for 10 s, every request answered and
//!   every episode seeing only its own files; it prints requests served, step latency and the
//!   server's memory (`cargo test --release --test it server::load -- --nocapture`).
//!
//! The Python client needs `pip install mcp`: without it these tests say so and pass, except
//! under `CI=true`, where a missing client is a failure.

use intercode::env::{EnvKind, EnvSpec};
use serde_json::{Value, json};
use std::io::{BufRead, BufReader, Write};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Barrier, Mutex};
use std::time::{Duration, Instant};

/// A server process (`intercode ARGS…`) listening on the port it printed; killed on drop.
struct Server {
    child: Child,
    /// `127.0.0.1:PORT`
    addr: String,
    log: Arc<Mutex<String>>,
}

impl Server {
    fn start(args: &[&str]) -> Server {
        let mut child = Command::new(env!("CARGO_BIN_EXE_intercode"))
            .args(args)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("start intercode");
        let mut lines = BufReader::new(child.stderr.take().expect("stderr")).lines();
        let mut seen = String::new();
        let addr = loop {
            let Some(Ok(line)) = lines.next() else {
                let _ = child.kill();
                panic!("intercode {args:?} exited before listening:\n{seen}");
            };
            seen.push_str(&line);
            seen.push('\n');
            if let Some(rest) = line.split("http://").nth(1) {
                break rest
                    .split(|c: char| c == '/' || c.is_whitespace())
                    .next()
                    .expect("address")
                    .to_string();
            }
        };
        // Keep draining stderr so the server never blocks on a full pipe; shown on failure.
        let log = Arc::new(Mutex::new(seen));
        let sink = log.clone();
        std::thread::spawn(move || {
            for line in lines.map_while(Result::ok) {
                let mut log = sink.lock().unwrap();
                log.push_str(&line);
                log.push('\n');
            }
        });
        Server { child, addr, log }
    }

    fn url(&self, path: &str) -> String {
        format!("http://{}{path}", self.addr)
    }

    /// `VmRSS` and `VmHWM` (peak) of the server process, in MiB.
    fn memory_mib(&self) -> (u64, u64) {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.child.id()))
            .expect("server status");
        let field = |name: &str| -> u64 {
            status
                .lines()
                .find_map(|l| l.strip_prefix(name))
                .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
                .unwrap_or(0)
                / 1024
        };
        (field("VmRSS:"), field("VmHWM:"))
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        if std::thread::panicking() {
            eprintln!("--- server log ---\n{}", self.log.lock().unwrap());
        }
    }
}

/// One HTTP request; any status is an answer: `(status, JSON body)`.
fn http(agent: &ureq::Agent, method: &str, url: &str, body: Option<&str>) -> (u16, Value) {
    http_with(agent, method, url, body, &[])
}

fn http_with(
    agent: &ureq::Agent,
    method: &str,
    url: &str,
    body: Option<&str>,
    headers: &[(&str, &str)],
) -> (u16, Value) {
    let mut req = agent.request(method, url);
    for (k, v) in headers {
        req = req.set(k, v);
    }
    let res = match body {
        Some(b) => req.set("content-type", "application/json").send_string(b),
        None => req.call(),
    };
    let (status, res) = match res {
        Ok(r) => (r.status(), r),
        Err(ureq::Error::Status(code, r)) => (code, r),
        Err(e) => panic!("{method} {url}: no answer: {e}"),
    };
    let text = res.into_string().expect("body");
    let json = if text.is_empty() {
        Value::Null
    } else {
        serde_json::from_str(&text).unwrap_or_else(|e| panic!("{method} {url}: {e}: {text}"))
    };
    (status, json)
}

fn agent() -> ureq::Agent {
    ureq::AgentBuilder::new()
        .timeout(Duration::from_secs(60))
        .build()
}

/// What the library itself gives for these actions on this task, then `submit`: the reward
/// every front end must reproduce.
fn library_reward(env: EnvKind, task: usize, actions: &[&str], function: Option<&str>) -> f64 {
    let mut env = EnvSpec::new(env).build().expect("fixtures");
    env.reset(task).expect("reset");
    for a in actions {
        env.step(a).expect("step");
    }
    env.submit_named(function).expect("submit").reward
}

fn gold(env: EnvKind, task: usize) -> String {
    EnvSpec::new(env)
        .build()
        .expect("fixtures")
        .task(task)
        .expect("task")
        .gold
}

#[test]
fn gym_api_end_to_end() {
    let server = Server::start(&["serve", "--http", "127.0.0.1:0"]);
    let a = agent();
    let u = |p: &str| server.url(p);

    let (status, doc) = http(&a, "GET", &u("/openapi.json"), None);
    assert_eq!(status, 200);
    assert_eq!(doc["openapi"], "3.1.0");
    for path in [
        "/envs",
        "/envs/{id}",
        "/envs/{id}/tasks",
        "/envs/{id}/reset",
        "/envs/{id}/step",
        "/envs/{id}/evaluate",
    ] {
        assert!(doc["paths"][path].is_object(), "openapi lacks {path}");
    }

    // SQL: the whole loop, and the reward the library gives for the same actions.
    let (status, created) = http(&a, "POST", &u("/envs"), Some(r#"{"env": "sql"}"#));
    assert_eq!(status, 201, "{created}");
    let id = created["id"].as_str().expect("id").to_string();
    assert_eq!(created["env"], "sql");
    let env_url = |p: &str| u(&format!("/envs/{id}{p}"));

    let (status, tasks) = http(&a, "GET", &env_url("/tasks"), None);
    assert_eq!(status, 200);
    let tasks = tasks["tasks"].as_array().expect("tasks");
    assert_eq!(
        tasks.len(),
        created["task_count"].as_u64().unwrap() as usize
    );
    assert!(tasks[0]["query"].is_string());
    assert!(
        tasks.iter().all(|t| t.get("gold").is_none()),
        "the gold leaked"
    );

    let step = |action: &str| {
        http(
            &a,
            "POST",
            &env_url("/step"),
            Some(&json!({ "action": action }).to_string()),
        )
    };
    let (status, err) = step("SELECT 1");
    assert_eq!(
        (status, err["error"]["kind"].as_str()),
        (409, Some("episode_state"))
    );

    let (status, reset) = http(&a, "POST", &env_url("/reset"), Some(r#"{"index": 0}"#));
    assert_eq!(status, 200, "{reset}");
    assert_eq!(reset["query"], tasks[0]["query"]);

    let gold_sql = gold(EnvKind::Sql, 0);
    let (status, ran) = step(&gold_sql);
    assert_eq!(status, 200);
    assert_eq!(ran["done"], false);
    assert_eq!(ran["info"]["action_executed"], true);
    assert!(
        ran["info"]["columns"].is_array() && ran["info"]["rows"].is_array(),
        "{ran}"
    );

    let (status, eval) = http(&a, "POST", &env_url("/evaluate"), None);
    assert_eq!(status, 200);
    assert_eq!(eval["reward"], 1.0);

    let (status, done) = step("submit");
    assert_eq!(status, 200);
    assert_eq!(done["done"], true);
    assert_eq!(
        done["reward"].as_f64(),
        Some(library_reward(EnvKind::Sql, 0, &[&gold_sql], None))
    );
    let (status, err) = step("SELECT 1");
    assert_eq!(
        (status, err["error"]["kind"].as_str()),
        (409, Some("episode_state"))
    );

    // Client mistakes: 400 with a message.
    for (path, body) in [
        ("/reset", r#"{"index": 9999}"#),
        ("/reset", r#"{"index": -1}"#),
        ("/reset", "{not json"),
        ("/step", r#"{"command": "ls"}"#),
        ("/step", ""),
    ] {
        let (status, err) = http(&a, "POST", &env_url(path), Some(body));
        assert_eq!(status, 400, "{path} {body}: {err}");
        assert_eq!(err["error"]["kind"], "bad_input");
        assert!(!err["error"]["message"].as_str().unwrap().is_empty());
    }
    for spec in [
        r#"{"env": "perl"}"#,
        r#"{"env": "sql", "readonly": true}"#,
        r#"{"env": "sql", "timeout_secs": 0}"#,
        r#"{"env": "python", "tasks": "/no/such/tasks.json"}"#,
        "",
        "[1, 2]",
    ] {
        let (status, err) = http(&a, "POST", &u("/envs"), Some(spec));
        assert_eq!(status, 400, "{spec}: {err}");
        assert_eq!(err["error"]["kind"], "bad_input", "{spec}");
    }

    // Unknown ids and routes: 404.
    let (status, err) = http(
        &a,
        "POST",
        &u("/envs/no-such-env/step"),
        Some(r#"{"action": "ls"}"#),
    );
    assert_eq!(
        (status, err["error"]["kind"].as_str()),
        (404, Some("not_found"))
    );
    let (status, _) = http(&a, "GET", &u("/nowhere"), None);
    assert_eq!(status, 404);

    // A web page elsewhere may not drive the server; a local one may.
    let (status, err) = http_with(
        &a,
        "POST",
        &env_url("/evaluate"),
        None,
        &[("Origin", "http://evil.example")],
    );
    assert_eq!(
        (status, err["error"]["kind"].as_str()),
        (403, Some("forbidden"))
    );
    let (status, _) = http_with(
        &a,
        "GET",
        &env_url("/tasks"),
        None,
        &[("Origin", "http://localhost:3000")],
    );
    assert_eq!(status, 200);

    let (status, closed) = http(&a, "DELETE", &env_url(""), None);
    assert_eq!(status, 200);
    assert_eq!(closed["turns"], 2);
    let (status, _) = http(&a, "DELETE", &env_url(""), None);
    assert_eq!(status, 404);

    // Bash: exit status in `info`, files in the episode's own tree.
    let (status, created) = http(&a, "POST", &u("/envs"), Some(r#"{"env": "bash"}"#));
    assert_eq!(status, 201);
    let bash = created["id"].as_str().unwrap().to_string();
    let bash_url = |p: &str| u(&format!("/envs/{bash}{p}"));
    assert_eq!(
        http(&a, "POST", &bash_url("/reset"), Some(r#"{"index": 0}"#)).0,
        200
    );
    let (_, ran) = http(
        &a,
        "POST",
        &bash_url("/step"),
        Some(r#"{"action": "ls /project/logs"}"#),
    );
    assert_eq!(ran["info"]["exit_status"], 0, "{ran}");
    assert!(ran["observation"].as_str().unwrap().contains("app.log"));
    let (_, ran) = http(
        &a,
        "POST",
        &bash_url("/step"),
        Some(r#"{"action": "ls /nowhere"}"#),
    );
    assert_ne!(ran["info"]["exit_status"], 0);
    assert_eq!(ran["info"]["action_executed"], false);
    assert_eq!(http(&a, "DELETE", &bash_url(""), None).0, 200);
}

/// Idle episodes are closed by the server, the cap on open episodes holds, and so does the
/// memory limit.
#[test]
fn idle_episodes_expire_and_the_limits_hold() {
    let server = Server::start(&[
        "serve",
        "--http",
        "127.0.0.1:0",
        "--idle-timeout",
        "1",
        "--max-episodes",
        "2",
    ]);
    let a = agent();
    let create = || http(&a, "POST", &server.url("/envs"), Some(r#"{"env": "sql"}"#));
    let (s1, first) = create();
    let (s2, _) = create();
    assert_eq!((s1, s2), (201, 201));
    let (status, err) = create();
    assert_eq!(
        (status, err["error"]["kind"].as_str()),
        (503, Some("capacity"))
    );
    std::thread::sleep(Duration::from_millis(1800));
    let id = first["id"].as_str().unwrap();
    let (status, _) = http(&a, "GET", &server.url(&format!("/envs/{id}/tasks")), None);
    assert_eq!(status, 404, "an idle episode should have expired");
    assert_eq!(create().0, 201, "expired episodes free their places");

    let server = Server::start(&["serve", "--http", "127.0.0.1:0", "--max-memory-mb", "1"]);
    let (status, err) = http(&a, "POST", &server.url("/envs"), Some(r#"{"env": "sql"}"#));
    assert_eq!(
        (status, err["error"]["kind"].as_str()),
        (503, Some("capacity")),
        "{err}"
    );
}

/// Runs the Python MCP client on `scenario`; `None` (test skipped) when the `mcp` package or
/// python3 is missing outside CI.
fn python_client(scenario: &Value) -> Option<Value> {
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/py/mcp_client.py");
    let in_ci = std::env::var("CI").as_deref() == Ok("true");
    let child = Command::new("python3")
        .arg(script)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn();
    let mut child = match child {
        Ok(c) => c,
        Err(e) => {
            assert!(!in_ci, "python3 is needed for the MCP tests in CI: {e}");
            eprintln!("skipped: no python3 ({e})");
            return None;
        }
    };
    child
        .stdin
        .take()
        .unwrap()
        .write_all(scenario.to_string().as_bytes())
        .unwrap();
    let out = child.wait_with_output().expect("python client");
    let stderr = String::from_utf8_lossy(&out.stderr);
    if out.status.code() == Some(77) {
        assert!(
            !in_ci,
            "CI=true but the MCP client is missing (.ci/run installs it: pip install mcp): {stderr}"
        );
        eprintln!("skipped: {stderr}");
        return None;
    }
    assert!(out.status.success(), "the MCP client failed:\n{stderr}");
    Some(serde_json::from_slice(&out.stdout).expect("client output"))
}

fn critic_cmd() -> String {
    format!(
        "python3 '{}'",
        concat!(env!("CARGO_MANIFEST_DIR"), "/tests/py/critic.py")
    )
}

fn fixture(path: &str) -> String {
    std::fs::read_to_string(format!(
        "{}/fixtures/bash/tree{path}",
        env!("CARGO_MANIFEST_DIR")
    ))
    .expect("fixture file")
}

const COUNT_ITEMS: &str = "SELECT count(*) FROM order_items";

const WRONG_SQUARES: &str = "def sum_of_squares(nums):\n    return 0";

/// The same scenario for every transport and protocol version.
fn scenario(server: Value, mode: &str) -> Value {
    let run = |action: &str| json!({"tool": "run", "args": {"action": action}});
    let read = |path: &str| json!({"tool": "read_file", "args": {"path": path}});
    let tool = |name: &str| json!({"tool": name});
    json!({
        "server": server,
        "mode": mode,
        "episodes": [
            {"name": "bash-undo", "open": {"env": "bash", "task": 0}, "ops": [
                run("rm /project/logs/app.log"),
                read("/project/logs/app.log"),
                tool("undo"),
                read("/project/logs/app.log"),
                {"tool": "list", "args": {"path": "/project/logs"}},
                {"tool": "checkpoint", "args": {"name": "clean"}},
                run("echo junk > /project/notes.txt"),
                {"tool": "undo", "args": {"checkpoint": "clean"}},
                read("/project/notes.txt"),
                run(&gold(EnvKind::Bash, 0)),
                tool("evaluate"),
                tool("submit"),
                run("ls"),
                tool("close"),
            ]},
            {"name": "sql-undo", "open": {"env": "sql", "task": 0}, "ops": [
                run("DELETE FROM order_items"),
                run(COUNT_ITEMS),
                tool("undo"),
                tool("undo"),
                run(COUNT_ITEMS),
                tool("list"),
                run(&gold(EnvKind::Sql, 0)),
                tool("submit"),
            ]},
            {"name": "python-undo", "open": {"env": "python", "task": 0}, "ops": [
                run(WRONG_SQUARES),
                tool("undo"),
                run(&gold(EnvKind::Python, 0)),
                run("print(sum_of_squares([1, 2, 3]))"),
                {"tool": "submit", "args": {"function_name": "sum_of_squares"}},
            ]},
            {"name": "python-wrong", "open": {"env": "python", "task": 0}, "ops": [
                run(WRONG_SQUARES),
                run("1/0"),
                tool("submit"),
            ]},
            {"name": "bash-partial", "open": {"env": "bash", "task": 3}, "ops": [
                run("cut -d, -f1 /project/data/sales.csv"),
                tool("submit"),
            ]},
            {"name": "free", "open": {"env": "bash"}, "ops": [
                run("ls /project"),
                tool("evaluate"),
                tool("submit"),
                tool("close"),
            ]},
            {"name": "sql-guarded", "open": {"env": "sql", "task": 0, "guard": true}, "ops": [
                run("SELECT 1; DROP TABLE customers"),
                run(&gold(EnvKind::Sql, 0)),
                tool("submit"),
            ]},
            {"name": "bash-guarded", "open": {"env": "bash", "task": 0, "guard": true}, "ops": [
                run("rm /project/logs/app.log"),
                read("/project/logs/app.log"),
                run("rm /project/logs/app.log"),
                read("/project/logs/app.log"),
                tool("submit"),
                tool("undo"),
                read("/project/logs/app.log"),
                tool("submit"),
            ]},
        ],
        "raw": [
            {"tool": "run", "args": {"episode_id": "nope", "action": "ls"}},
            {"tool": "open_episode", "args": {"env": "perl"}},
            {"tool": "open_episode", "args": {"env": "bash", "task": 9999}},
            {"tool": "frobnicate", "args": {}},
            {"tool": "run", "args": {"episode_id": "nope"}},
        ],
    })
}

/// Every expectation on what the client saw.
fn check(out: &Value, expected_version: &str) {
    assert_eq!(out["protocol_version"], expected_version);
    assert_eq!(out["server_name"], "intercode");
    let mut names: Vec<&str> = out["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    names.sort_unstable();
    assert_eq!(
        names,
        [
            "checkpoint",
            "close",
            "evaluate",
            "list",
            "open_episode",
            "read_file",
            "run",
            "submit",
            "undo"
        ]
    );
    for t in out["tools"].as_array().unwrap() {
        assert_eq!(t["output_schema"]["type"], "object", "{}", t["name"]);
        assert_eq!(t["input_schema"]["type"], "object", "{}", t["name"]);
    }
    let run_tool = out["tools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == "run")
        .unwrap();
    let mut required: Vec<&str> = run_tool["input_schema"]["required"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect();
    required.sort_unstable();
    assert_eq!(required, ["action", "episode_id"]);

    let episode = |name: &str| -> (&Value, Vec<&Value>) {
        let e = out["episodes"]
            .as_array()
            .unwrap()
            .iter()
            .find(|e| e["name"] == name)
            .unwrap_or_else(|| panic!("no episode {name}"));
        let opened = &e["opened"];
        assert_eq!(opened["is_error"], false, "{name}: {opened}");
        (
            &opened["structured"],
            e["results"].as_array().unwrap().iter().collect(),
        )
    };
    let ok = |r: &Value| -> Value {
        assert_eq!(r["is_error"], false, "{r}");
        r["structured"].clone()
    };
    let failed = |r: &Value, kind: &str| {
        assert_eq!(r["is_error"], true, "{r}");
        assert_eq!(r["structured"]["error"]["kind"], kind, "{r}");
    };

    // Bash: undo restores the files, list/read_file add no turn.
    let (opened, r) = episode("bash-undo");
    assert_eq!(opened["task_index"], 0);
    assert!(opened["query"].as_str().unwrap().contains("ERROR"));
    assert_eq!(opened["free_sandbox"], false);
    assert_eq!(ok(r[0])["exit_status"], 0);
    assert_ne!(ok(r[1])["exit_status"], 0, "the file should be gone");
    assert_eq!(ok(r[2])["turns"], 0);
    let app_log = ok(r[3]);
    assert_eq!(app_log["exit_status"], 0);
    assert_eq!(app_log["content"], fixture("/project/logs/app.log"));
    assert_eq!(app_log["truncated"], false);
    let listed = ok(r[4]);
    assert!(
        listed["listing"].as_str().unwrap().contains("app.log"),
        "{listed}"
    );
    assert_eq!(ok(r[5])["turns"], 0);
    assert_eq!(ok(r[6])["exit_status"], 0);
    assert_eq!(ok(r[7])["restored"], "clean");
    assert_eq!(ok(r[8])["content"], fixture("/project/notes.txt"));
    let bash_gold = gold(EnvKind::Bash, 0);
    let mut lib = EnvSpec::new(EnvKind::Bash).build().unwrap();
    lib.reset(0).unwrap();
    assert_eq!(
        ok(r[9])["observation"],
        lib.step(&bash_gold).unwrap().observation
    );
    let expected = library_reward(EnvKind::Bash, 0, &[&bash_gold], None);
    assert_eq!(ok(r[10])["reward"].as_f64(), Some(expected));
    let submitted = ok(r[11]);
    assert_eq!(submitted["reward"].as_f64(), Some(expected));
    assert_eq!(expected, 1.0);
    assert_eq!(submitted["done"], true);
    failed(r[12], "episode_state");
    assert_eq!(ok(r[13])["turns"], 2, "only the gold and submit are turns");

    // SQL: a write undone, the schema, rows as columns + rows.
    let (_, r) = episode("sql-undo");
    assert_eq!(ok(r[0])["action_executed"], true);
    assert_eq!(ok(r[1])["rows"], json!([[0]]));
    assert_eq!(ok(r[2])["turns"], 1);
    assert_eq!(ok(r[3])["turns"], 0);
    let sql_gold = gold(EnvKind::Sql, 0);
    let mut lib = EnvSpec::new(EnvKind::Sql).build().unwrap();
    lib.reset(0).unwrap();
    let lib_count = lib.step(COUNT_ITEMS).unwrap();
    assert_ne!(lib_count.info["rows"], json!([[0]]));
    assert_eq!(
        ok(r[4])["rows"],
        lib_count.info["rows"],
        "the rows are back"
    );
    let tables = ok(r[5])["tables"].clone();
    assert!(
        tables
            .as_array()
            .unwrap()
            .iter()
            .any(|t| t["name"] == "customers"
                && t["columns"].as_array().is_some_and(|c| !c.is_empty())),
        "{tables}"
    );
    let lib_step = lib.step(&sql_gold).unwrap();
    let ran = ok(r[6]);
    assert_eq!(ran["rows"], lib_step.info["rows"]);
    assert_eq!(ran["columns"], lib_step.info["columns"]);
    let expected = library_reward(EnvKind::Sql, 0, &[COUNT_ITEMS, &sql_gold], None);
    assert_eq!(expected, 1.0);
    assert_eq!(ok(r[7])["reward"].as_f64(), Some(expected));

    // Python: a wrong definition undone (the interpreter replayed), then the gold.
    let (_, r) = episode("python-undo");
    assert_eq!(ok(r[1])["turns"], 0);
    assert!(ok(r[3])["observation"].as_str().unwrap().contains("14"));
    let py_gold = gold(EnvKind::Python, 0);
    let expected = library_reward(
        EnvKind::Python,
        0,
        &[&py_gold, "print(sum_of_squares([1, 2, 3]))"],
        Some("sum_of_squares"),
    );
    assert_eq!(expected, 1.0);
    assert_eq!(ok(r[4])["reward"].as_f64(), Some(expected));

    // Rewards below 1 agree too.
    let (_, r) = episode("python-wrong");
    let failing = ok(r[1]);
    assert_eq!(failing["action_executed"], false);
    assert!(
        failing["stderr"]
            .as_str()
            .unwrap_or("")
            .contains("ZeroDivisionError"),
        "{failing}"
    );
    let expected = library_reward(EnvKind::Python, 0, &[WRONG_SQUARES, "1/0"], None);
    assert!(expected < 1.0);
    assert_eq!(ok(r[2])["reward"].as_f64(), Some(expected));
    let (_, r) = episode("bash-partial");
    let expected = library_reward(
        EnvKind::Bash,
        3,
        &["cut -d, -f1 /project/data/sales.csv"],
        None,
    );
    assert!(expected < 1.0);
    assert_eq!(ok(r[1])["reward"].as_f64(), Some(expected));

    // A free sandbox shows no task and scores nothing.
    let (opened, r) = episode("free");
    assert_eq!(opened["free_sandbox"], true);
    assert!(opened.get("query").is_none() && opened.get("task_index").is_none());
    assert_eq!(ok(r[0])["exit_status"], 0);
    failed(r[1], "bad_input");
    failed(r[2], "bad_input");
    assert_eq!(ok(r[3])["turns"], 1);

    // Guarded SQL: the stacked write is refused by the lint, the read runs.
    let (opened, r) = episode("sql-guarded");
    assert_eq!(opened["guarded"], true);
    let refused = ok(r[0]);
    assert_eq!(refused["refused"], "sql_lint", "{refused}");
    assert_eq!(refused["action_executed"], false);
    assert_eq!(ok(r[1])["refused"], Value::Null);
    assert_eq!(
        ok(r[2])["reward"].as_f64(),
        Some(library_reward(EnvKind::Sql, 0, &[&sql_gold], None))
    );

    // Guarded bash: refused until repeated, then the critic vetoes the submission until the
    // deletion is undone.
    let (_, r) = episode("bash-guarded");
    let refused = ok(r[0]);
    assert_eq!(refused["refused"], "destructive", "{refused}");
    assert!(
        refused["observation"]
            .as_str()
            .unwrap()
            .contains("/project/logs/app.log")
    );
    assert_eq!(
        ok(r[1])["exit_status"],
        0,
        "nothing may change on a refusal"
    );
    let confirmed = ok(r[2]);
    assert_eq!(
        (confirmed["exit_status"].as_i64(), &confirmed["refused"]),
        (Some(0), &Value::Null)
    );
    assert_ne!(ok(r[3])["exit_status"], 0);
    let vetoed = ok(r[4]);
    assert_eq!(
        (vetoed["vetoed"].as_bool(), vetoed["done"].as_bool()),
        (Some(true), Some(false))
    );
    assert!(
        vetoed["observation"].as_str().unwrap().contains("undo"),
        "{vetoed}"
    );
    assert_eq!(ok(r[5])["turns"], 0);
    assert_eq!(ok(r[6])["exit_status"], 0);
    let accepted = ok(r[7]);
    assert_eq!(accepted["done"], true);
    assert_eq!(
        accepted["reward"].as_f64(),
        Some(library_reward(EnvKind::Bash, 0, &[], None))
    );

    // Mistakes outside an episode.
    let raw = out["raw"].as_array().unwrap();
    failed(&raw[0], "not_found");
    assert!(
        raw[1]["is_error"] == true || raw[1]["protocol_error"].is_string(),
        "{}",
        raw[1]
    );
    failed(&raw[2], "bad_input");
    assert!(raw[3]["protocol_error"].is_string(), "{}", raw[3]);
    assert_eq!(raw[4]["is_error"], true);
    assert!(
        raw[4]["text"].as_str().unwrap().contains("action"),
        "{}",
        raw[4]
    );
}

#[test]
fn mcp_over_stdio_with_the_official_python_client() {
    let critic = critic_cmd();
    let command = json!([
        env!("CARGO_BIN_EXE_intercode"),
        "mcp",
        "--critic-cmd",
        critic
    ]);
    for (mode, version) in [("legacy", "2025-11-25"), ("auto", "2026-07-28")] {
        let Some(out) = python_client(&scenario(json!({ "stdio": command }), mode)) else {
            return;
        };
        check(&out, version);
    }
}

#[test]
fn mcp_over_streamable_http_with_the_official_python_client() {
    let critic = critic_cmd();
    let server = Server::start(&["mcp", "--http", "127.0.0.1:0", "--critic-cmd", &critic]);
    let url = server.url("/mcp");
    for (mode, version) in [("legacy", "2025-11-25"), ("auto", "2026-07-28")] {
        let Some(out) = python_client(&scenario(json!({ "url": url }), mode)) else {
            return;
        };
        check(&out, version);
    }
    // Stateless: no session is ever handed out; a foreign Origin is refused.
    let a = agent();
    let res = a
        .post(&url)
        .set("content-type", "application/json")
        .set("accept", "application/json, text/event-stream")
        .send_string(
            &json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
                "protocolVersion": "2025-11-25", "capabilities": {},
                "clientInfo": {"name": "t", "version": "0"}}})
            .to_string(),
        )
        .expect("initialize");
    assert_eq!(res.status(), 200);
    assert!(res.header("mcp-session-id").is_none());
    let reply: Value = serde_json::from_str(&res.into_string().unwrap()).unwrap();
    assert_eq!(reply["result"]["protocolVersion"], "2025-11-25");
    let (status, _) = http_with(
        &a,
        "POST",
        &url,
        Some("{}"),
        &[("Origin", "https://evil.example")],
    );
    assert_eq!(status, 403);
}

/// 64 bash episodes at once over HTTP for a bounded time; every request must be answered and
/// every episode must see only its own files.
#[test]
fn load_64_concurrent_episodes_over_http() {
    const EPISODES: usize = 64;
    // Bounded: about 11 s in all on 2 cores (creating the 64 envs takes under a second).
    const STEPPING: Duration = Duration::from_secs(10);
    let server = Server::start(&["serve", "--http", "127.0.0.1:0"]);
    let started = Instant::now();
    let barrier = Arc::new(Barrier::new(EPISODES));
    let url = Arc::new(server.url(""));
    let workers: Vec<_> = (0..EPISODES)
        .map(|i| {
            let (barrier, url) = (barrier.clone(), url.clone());
            std::thread::spawn(move || -> (usize, Vec<Duration>) {
                let a = agent();
                let mut requests = 0;
                let mut call = |method: &str, path: &str, body: Option<String>| {
                    requests += 1;
                    let (status, v) = http(&a, method, &format!("{url}{path}"), body.as_deref());
                    assert!(status < 300, "{method} {path}: {status} {v}");
                    v
                };
                let created = call("POST", "/envs", Some(r#"{"env": "bash"}"#.into()));
                let id = created["id"].as_str().unwrap().to_string();
                let count = created["task_count"].as_u64().unwrap() as usize;
                let step = |call: &mut dyn FnMut(&str, &str, Option<String>) -> Value,
                            action: &str| {
                    call(
                        "POST",
                        &format!("/envs/{id}/step"),
                        Some(json!({ "action": action }).to_string()),
                    )
                };
                call(
                    "POST",
                    &format!("/envs/{id}/reset"),
                    Some(json!({ "index": i % count }).to_string()),
                );
                let mut latencies = Vec::new();
                barrier.wait();
                let until = Instant::now() + STEPPING;
                let mut n = 0;
                while Instant::now() < until {
                    let mark = format!("{id}-{n}");
                    let t = Instant::now();
                    let wrote = step(&mut call, &format!("echo {mark} > /project/owner.txt"));
                    latencies.push(t.elapsed());
                    assert_eq!(wrote["info"]["exit_status"], 0, "{wrote}");
                    let t = Instant::now();
                    let read = step(&mut call, "cat /project/owner.txt");
                    latencies.push(t.elapsed());
                    assert_eq!(
                        read["observation"].as_str().unwrap().trim(),
                        mark,
                        "episode {id} saw another episode's file"
                    );
                    n += 1;
                }
                call("DELETE", &format!("/envs/{id}"), None);
                (requests, latencies)
            })
        })
        .collect();
    // Memory while all 64 are open and stepping.
    std::thread::sleep(STEPPING / 2);
    let (rss_open, _) = server.memory_mib();
    let mut requests = 0;
    let mut latencies = Vec::new();
    for w in workers {
        let (r, l) = w
            .join()
            .expect("every request answered, every episode isolated");
        requests += r;
        latencies.extend(l);
    }
    let elapsed = started.elapsed();
    let (rss_end, peak) = server.memory_mib();
    latencies.sort_unstable();
    let pct = |p: f64| latencies[((latencies.len() - 1) as f64 * p) as usize];
    eprintln!(
        "load: {EPISODES} bash episodes, {requests} requests answered in {:.1} s ({} steps, \
         {:.0} steps/s while stepping); step latency p50 {:.1} ms, p99 {:.1} ms; server \
         resident memory {rss_open} MiB with all open, {rss_end} MiB after closing, peak \
         {peak} MiB",
        elapsed.as_secs_f64(),
        latencies.len(),
        latencies.len() as f64 / STEPPING.as_secs_f64(),
        pct(0.5).as_secs_f64() * 1e3,
        pct(0.99).as_secs_f64() * 1e3,
    );
    assert!(!latencies.is_empty());
}
