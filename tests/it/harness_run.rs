//! `intercode run --agent chat` end to end: every strategy on every env, against a real HTTP
//! server on 127.0.0.1 scripted to answer like a model — wrong first and right after the
//! error, right at once, a 429 before the answer, garbage that never becomes an answer, and a
//! hang past the request timeout — then the records, tokens, metrics and the harness-error
//! path checked; and resume, shards and merge against a whole run.

use crate::support::model_server::{ModelServer, Reply, Request, script};
use intercode::data::trajectory::{EpisodeEnd, EpisodeRecord};
use intercode::env::{EnvKind, EnvSpec};
use serde_json::Value;
use std::path::Path;
use std::process::Command;
use std::sync::Arc;

/// What the scripted model does on a task (by position in the run's task list).
#[derive(Clone, Copy, PartialEq, Debug)]
enum Behaviour {
    WrongThenRight,
    Right,
    RateLimitedThenRight,
    Garbage,
    Hang,
}

const BEHAVIOURS: [Behaviour; 4] = [
    Behaviour::WrongThenRight,
    Behaviour::Right,
    Behaviour::RateLimitedThenRight,
    Behaviour::Garbage,
];

fn intercode(args: &[&str]) -> (String, String, Option<i32>) {
    let out = Command::new(env!("CARGO_BIN_EXE_intercode"))
        .args(args)
        .env("INTERCODE_TEST_KEY", "sk-test-secret-123")
        .output()
        .expect("run intercode");
    (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
        out.status.code(),
    )
}

/// The fixture tasks' queries and golds, as the fake model "knows" them.
fn tasks(env: EnvKind, n: usize) -> Vec<(String, String)> {
    let env = EnvSpec::new(env).build().expect("fixtures");
    (0..n)
        .map(|i| {
            let t = env.task(i).expect("task");
            (t.query, t.gold)
        })
        .collect()
}

/// A command that fails in each env.
fn wrong(env: EnvKind) -> &'static str {
    match env {
        EnvKind::Bash => "ls /no/such/dir/here",
        EnvKind::Sql => "SELECT * FROM no_such_table_here",
        EnvKind::Python => "no_such_name_here",
    }
}

fn lang(env: EnvKind) -> &'static str {
    match env {
        EnvKind::Bash => "bash",
        EnvKind::Sql => "sql",
        EnvKind::Python => "python",
    }
}

/// Which task a request is about: the longest task query found in its user messages.
fn task_of(request: &Request, tasks: &[(String, String)]) -> Option<usize> {
    let text: String = request
        .messages
        .iter()
        .filter(|m| m.role == "user")
        .map(|m| m.content.as_str())
        .collect();
    tasks
        .iter()
        .enumerate()
        .filter(|(_, (q, _))| text.contains(q.as_str()))
        .max_by_key(|(_, (q, _))| q.len())
        .map(|(i, _)| i)
}

/// The model's reply, in the strategy's format, carrying `command` (or `submit`).
fn say(strategy: &str, env: EnvKind, command: Option<&str>) -> Reply {
    match (strategy, command) {
        ("tools", Some(c)) => Reply::ToolCalls(vec![(
            "execute".into(),
            serde_json::json!({ "command": c }).to_string(),
        )]),
        ("tools", None) => Reply::ToolCalls(vec![("submit".into(), "{}".into())]),
        ("react", Some(c)) => Reply::Text(format!(
            "Thought: this should answer it\nAction: execute[{c}]"
        )),
        ("react", None) => Reply::Text("Thought: the output answers it\nAction: submit".into()),
        (_, Some(c)) => Reply::Text(format!("Here it is:\n```{}\n{c}\n```\n", lang(env))),
        (_, None) => Reply::Text(format!("```{}\nsubmit\n```", lang(env))),
    }
}

/// The scripted model for one strategy: what it says depends on the task's behaviour and on
/// how far the conversation is (its own earlier replies in the request).
fn model(strategy: &'static str, env: EnvKind, tasks: Vec<(String, String)>) -> ModelServer {
    let tasks = Arc::new(tasks);
    ModelServer::start(script(move |request| {
        let Some(task) = task_of(request, &tasks) else {
            return Reply::Status(400, "the fake model could not tell the task".into());
        };
        let behaviour = BEHAVIOURS.get(task).copied().unwrap_or(Behaviour::Hang);
        let gold = tasks[task].1.as_str();
        let said = request
            .messages
            .iter()
            .filter(|m| m.role == "assistant")
            .count();
        match behaviour {
            Behaviour::Garbage => {
                return Reply::Garbage("<html>upstream proxy error</html>".into());
            }
            Behaviour::Hang => return Reply::Hang(std::time::Duration::from_secs(4)),
            Behaviour::RateLimitedThenRight if request.call_index == 0 => {
                return Reply::Status(429, "slow down".into());
            }
            _ => {}
        }
        let last_user = request
            .messages
            .iter()
            .rev()
            .find(|m| m.role == "user")
            .map_or("", |m| m.content.as_str());
        if strategy == "plan-solve" {
            if last_user.contains("numbered list") {
                return Reply::Text("1. Try something.\n2. Answer the question.".into());
            }
            let first_step = last_user.contains("step 1 of");
            return match (behaviour, first_step) {
                (Behaviour::WrongThenRight, true) => say(strategy, env, Some(wrong(env))),
                _ => say(strategy, env, Some(gold)),
            };
        }
        let wrong_first = behaviour == Behaviour::WrongThenRight;
        match (strategy, wrong_first, said) {
            (_, true, 0) => say(strategy, env, Some(wrong(env))),
            // ReAct sees no reward: it submits once it has run the answer.
            ("react", true, 2..) | ("react", false, 1..) => say(strategy, env, None),
            _ => say(strategy, env, Some(gold)),
        }
    }))
}

fn read_records(dir: &Path) -> Vec<EpisodeRecord> {
    let run = intercode::harness::run_dir::read_run(dir).expect("run dir");
    run.records
}

fn chat_run(
    env: EnvKind,
    strategy: &'static str,
    only: &str,
    dir: &Path,
    server: &ModelServer,
) -> (String, String, Option<i32>) {
    intercode(&[
        "run",
        env.name(),
        "--agent",
        "chat",
        "--base-url",
        &server.base_url,
        "--model",
        "scripted-model",
        "--api-key-env",
        "INTERCODE_TEST_KEY",
        "--strategy",
        strategy,
        "--only",
        only,
        "--max-turns",
        "4",
        "--retries",
        "1",
        "--request-timeout",
        "1",
        "-j",
        "2",
        "--out",
        dir.to_str().unwrap(),
    ])
}

#[test]
fn every_strategy_on_every_env_against_a_scripted_model() {
    let strategies = ["single-turn", "try-again", "react", "plan-solve", "tools"];
    for env in EnvKind::ALL {
        let tasks = tasks(env, BEHAVIOURS.len());
        for strategy in strategies {
            // ReAct's `execute[...]` holds one line; Python's answers are multi-line defs.
            if strategy == "react" && env == EnvKind::Python {
                continue;
            }
            let server = model(strategy, env, tasks.clone());
            let dir = tempfile::tempdir().unwrap();
            let run_dir = dir.path().join("run");
            let (out, err, code) = chat_run(env, strategy, "0-3", &run_dir, &server);
            let what = format!("{env} {strategy}: {out}\n{err}");
            // 1: the run finished, with harness errors among its episodes.
            assert_eq!(code, Some(1), "{what}");
            let records = read_records(&run_dir);
            assert_eq!(records.len(), 4, "{what}");
            check_records(env, strategy, &records, &server, &what);
            // Every request carried the key from the environment variable.
            assert!(
                server
                    .requests()
                    .iter()
                    .all(|r| r.header("authorization") == Some("Bearer sk-test-secret-123")),
                "{what}"
            );
            // The key is in no file of the run.
            for name in ["manifest.json", "episodes.jsonl"] {
                let text = std::fs::read_to_string(run_dir.join(name)).unwrap();
                assert!(!text.contains("sk-test-secret"), "{what}: key in {name}");
            }
        }
    }
}

fn check_records(
    env: EnvKind,
    strategy: &str,
    records: &[EpisodeRecord],
    server: &ModelServer,
    what: &str,
) {
    let by_task = |i: usize| records.iter().find(|r| r.task_index == i).expect(what);
    // Garbage every time: a harness error, never a score.
    let garbage = by_task(3);
    assert_eq!(garbage.end, EpisodeEnd::HarnessError, "{what}");
    assert!(
        garbage.error.as_deref().unwrap_or("").contains("malformed"),
        "{what}: {:?}",
        garbage.error
    );
    // Right at once, and right after a 429 (retried inside the client).
    for i in [1, 2] {
        let r = by_task(i);
        assert!(r.solved(), "{what}: task {i}: {r:?}");
        assert!(
            r.usage.prompt_tokens > 0 && r.usage.completion_tokens > 0,
            "{what}"
        );
    }
    assert!(
        by_task(2).usage.requests >= 2,
        "{what}: the 429 was not counted"
    );
    // Tokens recorded = tokens the server sent, per solved task.
    let requests = server.requests();
    for i in [1, 2] {
        let r = by_task(i);
        let sent: u64 = requests
            .iter()
            .filter(|q| q.messages.iter().any(|m| m.content.contains(&r.query)))
            .map(|q| q.prompt_tokens())
            .sum();
        // A 429 carries no usage; the counted prompt tokens are those of answered requests.
        assert!(
            r.usage.prompt_tokens <= sent && r.usage.prompt_tokens > 0,
            "{what}"
        );
    }
    let wrong_first = by_task(0);
    match strategy {
        "single-turn" => {
            assert!(!wrong_first.solved(), "{what}");
            assert_eq!(wrong_first.actions.len(), 1, "{what}");
            assert!(!wrong_first.actions[0].action_executed, "{what}");
        }
        _ => {
            assert!(wrong_first.solved(), "{what}: {wrong_first:?}");
            assert!(wrong_first.actions.len() >= 2, "{what}");
            assert!(!wrong_first.actions[0].action_executed, "{what}");
            assert!(wrong_first.actions[1].action_executed, "{what}");
        }
    }
    if matches!(strategy, "try-again" | "tools") {
        // The reward after each action: 1.0 ends the episode.
        let rewards: Vec<Option<f64>> = wrong_first.actions.iter().map(|t| t.reward).collect();
        assert_eq!(rewards.len(), 2, "{what}");
        assert_eq!(rewards[1], Some(1.0), "{what}");
        assert!(rewards[0].unwrap() < 1.0, "{what}");
    }
    if strategy == "react" {
        assert!(
            wrong_first.actions[0].thought.is_some(),
            "{what}: ReAct thoughts are recorded"
        );
    }
    let _ = env;
}

/// The metrics of a try-again run, from `intercode report --json`, against what the script
/// made happen.
#[test]
fn report_counts_what_the_scripted_model_did() {
    let env = EnvKind::Sql;
    let server = model("try-again", env, tasks(env, 5));
    let dir = tempfile::tempdir().unwrap();
    let run_dir = dir.path().join("run");
    // Task 4 hangs past the 1 s request timeout, twice: a harness error too.
    let (out, err, code) = chat_run(env, "try-again", "0-4", &run_dir, &server);
    assert_eq!(code, Some(1), "{out}\n{err}");
    let (json, err, code) = intercode(&["report", "--json", run_dir.to_str().unwrap()]);
    assert_eq!(code, Some(0), "{err}");
    let v: Value = serde_json::from_str(&json).unwrap();
    let m = &v[0]["metrics"];
    assert_eq!(m["episodes"], 5);
    assert_eq!(m["harness_errors"], 2, "{m}");
    assert_eq!(m["harness_error_tasks"], serde_json::json!([3, 4]), "{m}");
    assert_eq!(m["scored_episodes"], 3);
    assert_eq!(m["solved"], 3);
    assert_eq!(m["success_rate"], 1.0);
    // Tasks 1 and 2 were solved by their first action, task 0 after an error.
    let third = 1.0 / 3.0;
    assert!((m["first_pass_success_rate"].as_f64().unwrap() - 2.0 * third).abs() < 1e-9);
    assert!((m["recovered_success_rate"].as_f64().unwrap() - third).abs() < 1e-9);
    assert_eq!(m["error_recovery_rate"], 1.0);
    assert_eq!(m["episodes_with_failed_action"], 1);
    assert!(m["prompt_tokens"].as_u64().unwrap() > 0);
    let hang = read_records(&run_dir)
        .into_iter()
        .find(|r| r.task_index == 4)
        .unwrap();
    assert_eq!(hang.end, EpisodeEnd::HarnessError);
    assert!(hang.error.unwrap().contains("endpoint"), "hang error");
    // The terminal table and the HTML report come from the same records.
    let html = dir.path().join("report.html");
    let (table, err, code) = intercode(&[
        "report",
        run_dir.to_str().unwrap(),
        "--html",
        html.to_str().unwrap(),
    ]);
    assert_eq!(code, Some(0), "{err}");
    assert!(table.contains("success"), "{table}");
    assert!(std::fs::read_to_string(&html).unwrap().contains("<svg"));
}

/// Records of a run without its timings (the only thing allowed to differ between runs).
fn comparable(records: &[EpisodeRecord]) -> Vec<Value> {
    records
        .iter()
        .map(|r| {
            let mut v = serde_json::to_value(r).unwrap();
            crate::cli::without_timing(&mut v);
            v
        })
        .collect()
}

#[test]
fn resumed_and_sharded_runs_equal_a_whole_run() {
    let dir = tempfile::tempdir().unwrap();
    let path = |name: &str| dir.path().join(name);
    let s = |p: &Path| p.to_str().unwrap().to_string();
    let gold = |extra: &[&str]| {
        let mut args = vec!["run", "sql", "--agent", "gold"];
        args.extend_from_slice(extra);
        let (out, err, code) = intercode(&args);
        assert_eq!(code, Some(0), "{out}\n{err}");
    };
    gold(&["--out", &s(&path("whole"))]);
    let whole = read_records(&path("whole"));
    assert!(whole.len() > 20);

    // A run killed half way: the first tasks recorded and a torn line after them, as a
    // `kill -9` in the middle of a write leaves it.
    gold(&["--only", "0-9", "--out", &s(&path("killed"))]);
    let manifest = std::fs::read_to_string(path("whole").join("manifest.json")).unwrap();
    std::fs::write(path("killed").join("manifest.json"), manifest).unwrap();
    let mut episodes = std::fs::OpenOptions::new()
        .append(true)
        .open(path("killed").join("episodes.jsonl"))
        .unwrap();
    std::io::Write::write_all(&mut episodes, b"{\"env\":\"sql\",\"task_ind").unwrap();
    drop(episodes);
    let (out, err, code) = intercode(&[
        "run",
        "sql",
        "--agent",
        "gold",
        "--resume",
        &s(&path("killed")),
    ]);
    assert_eq!(code, Some(0), "{out}\n{err}");
    assert!(err.contains("10 episodes recorded"), "{err}");
    assert_eq!(
        out.lines().count(),
        whole.len() - 10 + 1,
        "only the rest ran: {out}"
    );
    assert_eq!(
        comparable(&read_records(&path("killed"))),
        comparable(&whole)
    );

    // Two shards and a merge.
    gold(&["--shard", "0/2", "--out", &s(&path("a"))]);
    gold(&["--shard", "1/2", "--out", &s(&path("b"))]);
    let (out, err, code) = intercode(&[
        "merge",
        &s(&path("a")),
        &s(&path("b")),
        "--out",
        &s(&path("merged")),
    ]);
    assert_eq!(code, Some(0), "{out}\n{err}");
    assert_eq!(
        comparable(&read_records(&path("merged"))),
        comparable(&whole)
    );
    // A shard alone is not a whole run.
    let (_, err, code) = intercode(&["merge", &s(&path("a")), "--out", &s(&path("half"))]);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("in none of the parts"), "{err}");
    // Resuming with other settings is refused, naming the difference.
    let (_, err, code) = intercode(&[
        "run",
        "sql",
        "--agent",
        "gold",
        "--timeout",
        "3",
        "--resume",
        &s(&path("a")),
    ]);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("other settings"), "{err}");
}

/// A run killed with SIGKILL half way, then resumed, records what a clean run records.
#[test]
fn a_killed_run_resumes_to_the_records_of_a_clean_run() {
    let dir = tempfile::tempdir().unwrap();
    let (clean, killed) = (dir.path().join("clean"), dir.path().join("killed"));
    let s = |p: &Path| p.to_str().unwrap().to_string();
    let (_, err, code) = intercode(&["run", "python", "--agent", "gold", "--out", &s(&clean)]);
    assert_eq!(code, Some(0), "{err}");
    let whole = read_records(&clean);
    let mut child = Command::new(env!("CARGO_BIN_EXE_intercode"))
        .args(["run", "python", "--agent", "gold", "--out", &s(&killed)])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let episodes = killed.join("episodes.jsonl");
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(120);
    loop {
        let lines = std::fs::read_to_string(&episodes).map_or(0, |t| t.lines().count());
        if lines >= 3 {
            break;
        }
        assert!(std::time::Instant::now() < deadline, "no episode recorded");
        assert!(
            child.try_wait().unwrap().is_none(),
            "the run ended before the kill"
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    child.kill().unwrap();
    child.wait().unwrap();
    let before = read_records(&killed).len();
    assert!(before < whole.len(), "killed after the end");
    let (_, err, code) = intercode(&["run", "python", "--agent", "gold", "--resume", &s(&killed)]);
    assert_eq!(code, Some(0), "{err}");
    assert_eq!(comparable(&read_records(&killed)), comparable(&whole));
}
