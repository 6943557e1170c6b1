//! The `intercode` binary itself.

fn run(args: &[&str]) -> (String, String, Option<i32>) {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_intercode"))
        .args(args)
        .output()
        .expect("run intercode");
    (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
        out.status.code(),
    )
}

/// Several workers, one per env, print the same records in the same (task) order as one.
#[test]
fn parallel_runs_print_what_a_single_worker_prints() {
    for env in ["sql", "bash"] {
        let (one, _, code1) = run(&["run", env, "--agent", "gold", "--json", "-j", "1"]);
        let (three, err3, code3) = run(&["run", env, "--agent", "gold", "--json", "-j", "3"]);
        assert_eq!((code1, code3), (Some(0), Some(0)), "{err3}");
        let strip_timing = |s: &str| -> Vec<serde_json::Value> {
            s.lines()
                .map(|l| {
                    let mut v: serde_json::Value = serde_json::from_str(l).unwrap();
                    without_timing(&mut v);
                    v
                })
                .collect()
        };
        let (a, b) = (strip_timing(&one), strip_timing(&three));
        assert!(a.len() > 20, "{env}: {} records", a.len());
        let indices = |v: &[serde_json::Value]| -> Vec<u64> {
            v.iter()
                .map(|r| r["task_index"].as_u64().unwrap())
                .collect()
        };
        assert_eq!(indices(&a), indices(&b), "{env}: order");
        assert_eq!(a, b, "{env}: records differ");
        assert!(err3.contains("0 errors"), "{err3}");
    }
}

#[test]
fn bad_task_files_are_clear_errors() {
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("tasks.json");
    std::fs::write(&bad, "{ not json").unwrap();
    let (_, err, code) = run(&["run", "python", "--tasks", bad.to_str().unwrap()]);
    // 2: the run could not start (1 is a run whose episodes had errors).
    assert_eq!(code, Some(2), "{err}");
    assert!(
        err.contains("malformed task file") && err.contains("tasks.json"),
        "{err}"
    );
}

/// Drops every `wall_ms` (how long things took differs between runs; nothing else may).
pub fn without_timing(v: &mut serde_json::Value) {
    match v {
        serde_json::Value::Object(map) => {
            map.remove("wall_ms");
            map.values_mut().for_each(without_timing);
        }
        serde_json::Value::Array(items) => items.iter_mut().for_each(without_timing),
        _ => {}
    }
}

/// `--agent human` reads actions from stdin (no terminal): a here-document typed over four
/// lines is one action, and the episode is recorded like any agent's.
#[test]
fn a_human_at_stdin_plays_through_the_same_loop_and_records() {
    use std::io::Write;
    let dir = tempfile::tempdir().unwrap();
    let run_dir = dir.path().join("run");
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_intercode"))
        .args(["run", "bash", "--agent", "human", "--only", "0", "--out"])
        .arg(&run_dir)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("run intercode");
    child
        .stdin
        .take()
        .unwrap()
        .write_all(b"cat <<EOF > /tmp/x\nhello\nworld\nEOF\nwc -l /tmp/x\nsubmit\n")
        .unwrap();
    let out = child.wait_with_output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(stdout.contains("2 /tmp/x"), "{stdout}");
    let run = intercode::harness::run_dir::read_run(&run_dir).unwrap();
    let actions: Vec<&str> = run.records[0]
        .actions
        .iter()
        .map(|t| t.action.as_str())
        .collect();
    assert_eq!(
        actions,
        ["cat <<EOF > /tmp/x\nhello\nworld\nEOF", "wc -l /tmp/x"]
    );
    assert_eq!(run.manifest.agent, "human");
}

/// `--agent replay --from RUN_DIR` replays a run's actions and scores them the same way.
#[test]
fn replaying_a_run_gives_its_rewards_back() {
    let dir = tempfile::tempdir().unwrap();
    let (gold, replayed) = (dir.path().join("gold"), dir.path().join("replayed"));
    let (_, err, code) = run(&[
        "run",
        "sql",
        "--agent",
        "gold",
        "--out",
        gold.to_str().unwrap(),
    ]);
    assert_eq!(code, Some(0), "{err}");
    let (_, err, code) = run(&[
        "run",
        "sql",
        "--agent",
        "replay",
        "--from",
        gold.to_str().unwrap(),
        "--out",
        replayed.to_str().unwrap(),
    ]);
    assert_eq!(code, Some(0), "{err}");
    let read = |d: &std::path::Path| intercode::harness::run_dir::read_run(d).unwrap().records;
    let (a, b) = (read(&gold), read(&replayed));
    assert_eq!(a.len(), b.len());
    for (x, y) in a.iter().zip(&b) {
        assert_eq!(x.reward, y.reward, "task {}", x.task_index);
        assert_eq!(x.actions[0].action, y.actions[0].action);
        // The replay scored after the action: the gold's reward, before the submit.
        assert_eq!(y.actions[0].reward, Some(1.0), "task {}", y.task_index);
    }
}

/// `intercode conformance bash FILE`: the table, and every comparison in the JSON file.
#[test]
fn conformance_prints_a_table_and_writes_json() {
    if intercode::conformance::Native::default().check().is_err() {
        assert!(
            std::env::var("CI").as_deref() != Ok("true"),
            "bubblewrap missing in CI"
        );
        eprintln!("note: no bubblewrap; skipping");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let corpus = dir.path().join("mine.txt");
    // The same answer both sides; then a disagreement we know of (a placeholder /usr).
    std::fs::write(
        &corpus,
        "# comment\necho hi; ls /project\nls /usr/bin | wc -l\n",
    )
    .unwrap();
    let json = dir.path().join("out.json");
    let (out, err, code) = run(&[
        "conformance",
        "bash",
        corpus.to_str().unwrap(),
        "--json",
        json.to_str().unwrap(),
    ]);
    assert_eq!(code, Some(0), "{err}");
    assert!(out.contains("| mine.txt | 2 | 1 (50.0%) |"), "{out}");
    let rows: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(json).unwrap()).unwrap();
    assert_eq!(rows[0]["rows"][0]["agree"], true);
    assert_eq!(rows[0]["rows"][1]["causes"], serde_json::json!(["output"]));
}
