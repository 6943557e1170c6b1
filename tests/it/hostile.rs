//! The hostile corpus (`corpus/hostile.jsonl`: risky actions across the three envs, in the
//! spirit of RedCode-Exec's categories) run by several workers at once and watched from the
//! host:
//!
//! * a canary tree on the host (`{CANARY}` in the actions) under inotify: any access, open,
//!   change or deletion of it is an escape, as is its content or a host path turning up in an
//!   observation;
//! * every action gets an answer (no harness error) within its limit plus [`MARGIN`];
//! * the next episode on the same worker starts clean (the same tree, schema or namespace as
//!   a fresh one);
//! * the harness's own peak memory is printed beside the table of categories.

use inotify::{Inotify, WatchMask};
use intercode::env::Env;
use intercode::env::bash::{BashEnv, BashOptions};
use intercode::env::python::{PythonEnv, PythonOptions};
use intercode::env::sql::{SqlEnv, SqlOptions};
use intercode::fs::Snapshot;
use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Mutex;
use std::time::{Duration, Instant};

const CORPUS: &str = include_str!("corpus/hostile.jsonl");
/// Each action's own limit (the envs' timeouts are set to it).
const LIMIT: Duration = Duration::from_secs(2);
/// Slack for the host to cancel, collect and (Python) start a fresh interpreter on a loaded
/// 2-core machine.
const MARGIN: Duration = Duration::from_secs(4);
const WORKERS: usize = 3;

#[derive(Deserialize)]
struct Case {
    env: String,
    category: String,
    action: String,
}

/// What one action did, as the table counts it.
struct Outcome {
    env: String,
    category: String,
    took: Duration,
    /// Resident memory of the whole test process right after the action (all workers).
    rss_after_mib: u64,
    problems: Vec<String>,
}

/// The host files the actions aim at, with what must stay true of them.
struct Canary {
    dir: tempfile::TempDir,
    files: BTreeMap<String, Vec<u8>>,
    /// Strings that must never appear in an observation: the files' contents, host paths.
    secrets: Vec<String>,
}

impl Canary {
    fn plant() -> Canary {
        let dir = tempfile::Builder::new()
            .prefix("intercode-canary-")
            .tempdir_in("/tmp")
            .unwrap();
        let token = |name: &str| format!("CANARY-{name}-{}", std::process::id());
        let files: BTreeMap<String, Vec<u8>> = [
            ("secret.txt", token("secret").into_bytes()),
            ("keys/id_rsa", token("private-key").into_bytes()),
            ("notes.md", token("notes").into_bytes()),
            ("deep/data.bin", token("data").into_bytes()),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_string(), v))
        .collect();
        for (name, bytes) in &files {
            let path = dir.path().join(name);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, bytes).unwrap();
        }
        let mut secrets: Vec<String> = files
            .values()
            .map(|b| String::from_utf8_lossy(b).into_owned())
            .collect();
        // Host paths the sandbox has no business knowing.
        secrets.push(env!("CARGO_MANIFEST_DIR").to_string());
        Canary {
            dir,
            files,
            secrets,
        }
    }

    fn watch(&self) -> Inotify {
        let inotify = Inotify::init().unwrap();
        let mask = WatchMask::ALL_EVENTS;
        for sub in ["", "keys", "deep"] {
            inotify
                .watches()
                .add(self.dir.path().join(sub), mask)
                .unwrap();
        }
        inotify
    }

    /// Every file as planted, nothing added.
    fn intact(&self) -> Result<(), String> {
        for (name, bytes) in &self.files {
            match std::fs::read(self.dir.path().join(name)) {
                Ok(now) if &now == bytes => {}
                Ok(_) => return Err(format!("{name} was changed")),
                Err(e) => return Err(format!("{name}: {e}")),
            }
        }
        let mut count = 0;
        for entry in walk(self.dir.path()) {
            count += usize::from(entry.is_file());
        }
        if count != self.files.len() {
            return Err(format!("{count} files in the canary tree"));
        }
        Ok(())
    }
}

fn walk(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let path = entry.path();
        if path.is_dir() {
            out.extend(walk(&path));
        } else {
            out.push(path);
        }
    }
    out
}

/// The three envs of one worker and what a fresh episode of each looks like.
struct Worker {
    bash: BashEnv,
    sql: SqlEnv,
    python: PythonEnv,
    fresh_tree: Vec<(String, String)>,
    fresh_schema: String,
    fresh_namespace: String,
}

const SCHEMA_PROBE: &str =
    "SELECT group_concat(name, ',') FROM (SELECT name FROM sqlite_master ORDER BY name)";
const NAMESPACE_PROBE: &str = "print(sorted(k for k in dir() if not k.startswith('_')))";

fn tree_state(env: &BashEnv) -> Vec<(String, String)> {
    let snap = Snapshot::capture(env.episode_tree().unwrap()).unwrap();
    snap.iter()
        .map(|(p, e)| {
            (
                p.to_string(),
                format!("{:?} {:?} {:o}", e.kind, e.md5, e.mode),
            )
        })
        .collect()
}

impl Worker {
    fn new() -> Worker {
        let bash_options = BashOptions {
            limits: intercode::sandbox::Limits {
                timeout: LIMIT,
                ..Default::default()
            },
            ..BashOptions::default()
        };
        let mut bash = BashEnv::new(
            intercode::data::fixtures::bash_tasks().unwrap(),
            bash_options,
        )
        .unwrap();
        let sql_options = SqlOptions {
            statement_timeout: LIMIT,
            ..SqlOptions::default()
        };
        let mut sql =
            SqlEnv::new(intercode::data::spider::fixtures().unwrap(), sql_options).unwrap();
        let python_options = PythonOptions {
            timeout: LIMIT,
            ..PythonOptions::default()
        };
        let mut python =
            PythonEnv::new(intercode::data::mbpp::fixtures().unwrap(), python_options).unwrap();
        bash.reset(0).unwrap();
        let fresh_tree = tree_state(&bash);
        sql.reset(0).unwrap();
        let fresh_schema = sql.step(SCHEMA_PROBE).unwrap().observation;
        python.reset(0).unwrap();
        let fresh_namespace = python.step(NAMESPACE_PROBE).unwrap().observation;
        Worker {
            bash,
            sql,
            python,
            fresh_tree,
            fresh_schema,
            fresh_namespace,
        }
    }

    fn env(&mut self, name: &str) -> &mut dyn Env {
        match name {
            "bash" => &mut self.bash,
            "sql" => &mut self.sql,
            "python" => &mut self.python,
            other => panic!("unknown env {other}"),
        }
    }

    /// Runs one action in a fresh episode, then checks that the next episode is clean.
    fn run(&mut self, case: &Case, action: &str, secrets: &[String]) -> Outcome {
        let mut problems = Vec::new();
        let env = self.env(&case.env);
        env.reset(0).unwrap();
        let start = Instant::now();
        let step = env.step(action);
        let took = start.elapsed();
        match step {
            Ok(step) => {
                for s in secrets {
                    if step.observation.contains(s.as_str()) {
                        problems.push(format!("observation shows {s:?}"));
                    }
                }
            }
            Err(e) => problems.push(format!("harness error: {e}")),
        }
        if took > LIMIT + MARGIN {
            problems.push(format!("answered after {took:?}"));
        }
        let clean = match case.env.as_str() {
            "bash" => {
                self.bash.reset(0).unwrap();
                tree_state(&self.bash) == self.fresh_tree
            }
            "sql" => {
                self.sql.reset(0).unwrap();
                self.sql.step(SCHEMA_PROBE).unwrap().observation == self.fresh_schema
            }
            _ => {
                self.python.reset(0).unwrap();
                self.python.step(NAMESPACE_PROBE).unwrap().observation == self.fresh_namespace
            }
        };
        if !clean {
            problems.push("the next episode did not start clean".into());
        }
        Outcome {
            env: case.env.clone(),
            category: case.category.clone(),
            took,
            rss_after_mib: status_mib("VmRSS:"),
            problems,
        }
    }
}

/// A memory figure of this process from `/proc/self/status` (`VmRSS:`, `VmHWM:`), in MiB.
fn status_mib(field: &str) -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix(field))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
        .unwrap_or(0)
        / 1024
}

fn open_descriptors() -> usize {
    std::fs::read_dir("/proc/self/fd").map_or(0, |d| d.count())
}

#[test]
fn hostile_corpus_is_contained() {
    let cases: Vec<Case> = CORPUS
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{l}: {e}")))
        .collect();
    assert!(cases.len() >= 300, "the corpus has {} actions", cases.len());
    let canary = Canary::plant();
    let canary_path = canary.dir.path().display().to_string();
    let mut inotify = canary.watch();
    // The watch sees a read of the canary (what an escape would be), or the test proves nothing.
    let mut buffer = [0u8; 4096];
    std::fs::read(canary.dir.path().join("keys/id_rsa")).unwrap();
    let seen = inotify
        .read_events(&mut buffer)
        .map_or(0, |evs| evs.count());
    assert!(seen > 0, "the canary watch saw nothing of a read");

    let descriptors_before = open_descriptors();
    let next = Mutex::new(0usize);
    let outcomes = Mutex::new(Vec::new());
    let started = Instant::now();
    std::thread::scope(|scope| {
        for _ in 0..WORKERS {
            scope.spawn(|| {
                let mut worker = Worker::new();
                loop {
                    let i = {
                        let mut n = next.lock().unwrap();
                        let i = *n;
                        *n += 1;
                        i
                    };
                    let Some(case) = cases.get(i) else { break };
                    let action = case.action.replace("{CANARY}", &canary_path);
                    let outcome = worker.run(case, &action, &canary.secrets);
                    if std::env::var_os("HOSTILE_DEBUG_FDS").is_some() {
                        let fds = std::fs::read_dir("/proc/self/fd")
                            .map(|d| d.count())
                            .unwrap_or(0);
                        eprintln!(
                            "FDS {fds} after {:?} ({:.2} s)",
                            case.action.chars().take(80).collect::<String>(),
                            outcome.took.as_secs_f64()
                        );
                    }
                    if !outcome.problems.is_empty() {
                        eprintln!(
                            "NOT CONTAINED {} {:?}: {:?}",
                            case.env, case.action, outcome.problems
                        );
                    }
                    outcomes.lock().unwrap().push(outcome);
                }
            });
        }
    });
    let wall = started.elapsed();
    // Every worker's envs are gone: so must be their descriptors (other tests of the binary
    // open some meanwhile, hence the slack).
    let descriptors_after = open_descriptors();

    let events: Vec<String> = inotify
        .read_events(&mut buffer)
        .map(|evs| evs.map(|e| format!("{:?} {:?}", e.mask, e.name)).collect())
        .unwrap_or_default();
    let intact = canary.intact();

    // The table: actions by env and category.
    let outcomes = outcomes.into_inner().unwrap();
    let mut rows: BTreeMap<(String, String), (usize, usize, Duration, u64)> = BTreeMap::new();
    for o in &outcomes {
        let row =
            rows.entry((o.env.clone(), o.category.clone()))
                .or_insert((0, 0, Duration::ZERO, 0));
        row.0 += 1;
        row.1 += usize::from(o.problems.is_empty());
        row.2 = row.2.max(o.took);
        row.3 = row.3.max(o.rss_after_mib);
    }
    println!("| env | category | actions | contained | slowest answer | process RSS after (max) |");
    println!("| --- | --- | ---: | ---: | ---: | ---: |");
    for ((env, category), (n, ok, slowest, rss)) in &rows {
        println!(
            "| {env} | {category} | {n} | {ok} | {:.2} s | {rss} MiB |",
            slowest.as_secs_f64()
        );
    }
    let contained = outcomes.iter().filter(|o| o.problems.is_empty()).count();
    let slowest = outcomes.iter().map(|o| o.took).max().unwrap_or_default();
    let peak = status_mib("VmHWM:");
    println!(
        "| all | {} categories | {} | {contained} | {:.2} s | peak {peak} MiB |",
        rows.len(),
        outcomes.len(),
        slowest.as_secs_f64()
    );
    println!(
        "hostile corpus: {} actions, {WORKERS} workers, limit {:?} + margin {:?}, wall {:.1} s, \
         canary events {}, canary intact: {}, peak RSS of the test process {peak} MiB, \
         descriptors {descriptors_before} before / {descriptors_after} after",
        outcomes.len(),
        LIMIT,
        MARGIN,
        wall.as_secs_f64(),
        events.len(),
        intact.is_ok(),
    );
    assert_eq!(outcomes.len(), cases.len());
    assert!(events.is_empty(), "the host canary was touched: {events:?}");
    intact.unwrap();
    assert_eq!(contained, outcomes.len(), "see NOT CONTAINED above");
    assert!(
        descriptors_after < descriptors_before + 100,
        "descriptors leaked: {descriptors_before} before, {descriptors_after} after"
    );
    // The harness's own memory stays bounded: guests are capped per action (1 GiB for bash,
    // 512 MiB per Python interpreter), so three workers stay far below this.
    assert!(peak < 6 << 10, "peak RSS {peak} MiB");
}
