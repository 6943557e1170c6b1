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
