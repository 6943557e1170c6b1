//! SQL env figures: a fresh in-memory episode (`reset`) and a simple query, against opening the
//! database file from disk (read-only, and a private copy as a per-episode reset from files would
//! need). Prints medians and ratios; no bench framework needed.
//!
//! `cargo bench --bench sql` (uses `../shared/datasets/spider` when present, else the fixtures).

use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use intercode::data::spider::{self, SqlTask, SqlTaskSet};
use intercode::env::Env;
use intercode::env::sql::{SqlEnv, SqlOptions};
use rusqlite::{Connection, OpenFlags};

/// Median of `runs` timings of `f`, after a warm-up.
fn median<F: FnMut()>(runs: usize, mut f: F) -> Duration {
    for _ in 0..runs.min(20) {
        f();
    }
    let mut times: Vec<Duration> = (0..runs)
        .map(|_| {
            let t = Instant::now();
            f();
            t.elapsed()
        })
        .collect();
    times.sort();
    times[times.len() / 2]
}

fn us(d: Duration) -> f64 {
    d.as_secs_f64() * 1e6
}

struct Case {
    label: String,
    task_set: SqlTaskSet,
    task: usize,
    query: String,
    file: Option<PathBuf>,
}

fn task_on(set: &SqlTaskSet, db: &str) -> Option<usize> {
    set.tasks.iter().position(|t: &SqlTask| t.db == db)
}

fn cases() -> Vec<Case> {
    let manifest = std::env::var("CARGO_MANIFEST_DIR")
        .unwrap_or_else(|_| env!("CARGO_MANIFEST_DIR").to_string());
    let root = &Path::new(&manifest).join("../shared");
    let mut out = Vec::new();
    if let Ok(set) = spider::load_ic_spider(
        &root.join(spider::IC_SPIDER_DEV),
        &root.join(spider::SPIDER_DIR),
    ) {
        for (db, table) in [("world_1", "city"), ("pets_1", "Student")] {
            if let Some(task) = task_on(&set, db) {
                out.push(Case {
                    label: format!("spider {db}"),
                    task_set: set.clone(),
                    task,
                    query: format!("SELECT count(*) FROM {table}"),
                    file: Some(
                        root.join(spider::SPIDER_DIR)
                            .join(format!("database/{db}/{db}.sqlite")),
                    ),
                });
            }
        }
    } else {
        eprintln!("note: ../shared/datasets/spider missing; benchmarking the fixtures only");
    }
    let fixtures = spider::fixtures().expect("fixtures");
    out.push(Case {
        label: "fixture shop".into(),
        task_set: fixtures,
        task: 0,
        query: "SELECT count(*) FROM customers".into(),
        file: None,
    });
    out
}

fn main() {
    // `cargo bench` passes `--bench`; under `cargo test --all-targets` this is a quick smoke run.
    let runs = if std::env::args().any(|a| a == "--bench") {
        2000
    } else {
        20
    };
    println!("SQL env benchmark (median of {runs} runs)");
    for case in cases() {
        let image_len = case
            .task_set
            .images
            .get(&case.task_set.tasks[case.task].db)
            .map(|i| i.bytes.len())
            .unwrap_or(0);
        let mut env = SqlEnv::new(case.task_set.clone(), SqlOptions::default()).expect("env");
        let reset = median(runs, || {
            black_box(env.reset(case.task).expect("reset"));
        });
        let reset_query = median(runs, || {
            env.reset(case.task).expect("reset");
            black_box(env.step(&case.query).expect("step"));
        });
        env.reset(case.task).expect("reset");
        let query = median(runs, || {
            black_box(env.step(&case.query).expect("step"));
        });
        println!(
            "{:24} image {:7} B | reset {:7.1} µs | query {:6.1} µs | reset+query {:7.1} µs",
            case.label,
            image_len,
            us(reset),
            us(query),
            us(reset_query)
        );
        if let Some(file) = &case.file {
            let open_query = median(runs, || {
                let c = Connection::open_with_flags(
                    file,
                    OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX,
                )
                .expect("open");
                let n: i64 = c.query_row(&case.query, [], |r| r.get(0)).expect("query");
                black_box(n);
            });
            let dir =
                std::env::temp_dir().join(format!("intercode-sql-bench-{}", std::process::id()));
            std::fs::create_dir_all(&dir).expect("temp dir");
            let copy = dir.join("copy.sqlite");
            let copy_open_query = median(runs / 4, || {
                std::fs::copy(file, &copy).expect("copy");
                let c = Connection::open(&copy).expect("open");
                let n: i64 = c.query_row(&case.query, [], |r| r.get(0)).expect("query");
                black_box(n);
            });
            let _ = std::fs::remove_dir_all(&dir);
            println!(
                "{:24} disk: open read-only + query {:7.1} µs ({:.1}x ours) | copy file + open + query {:7.1} µs ({:.1}x ours)",
                "",
                us(open_query),
                us(open_query) / us(reset_query),
                us(copy_open_query),
                us(copy_open_query) / us(reset_query)
            );
        }
    }
}
