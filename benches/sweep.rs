//! `cargo bench --bench sweep`: the gold agent over every upstream task of the three envs, as a
//! user runs it (`intercode run ENV --agent gold … -j N`, the built binary), with 1 and 2
//! workers; then the resident memory each env's episode holds, with 16 episodes open at once.
//!
//! * Per env: wall time, episodes per second, and the speed-up from the second worker. What
//!   more cores would give is estimated, not measured: linear in workers until the longest
//!   single episode (printed) is the whole run.
//! * Memory: 16 envs built and reset (each with its episode open), resident set size of this
//!   process before and after, divided by 16. The Python env's warm pool is off here, so the
//!   figure is the episode's interpreter alone.
//!
//! Needs the public data (`../shared` or `$INTERCODE_DATA_DIR`); an env without it is skipped
//! with a note. Figures, not assertions: these machines are shared and noisy.

use intercode::data::mbpp;
use intercode::env::python::{PythonEnv, PythonOptions};
use intercode::env::{Env, EnvKind, EnvSpec};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

/// The CLI this bench drives (built with it).
const INTERCODE: &str = env!("CARGO_BIN_EXE_intercode");
/// Episodes open at once for the memory figure.
const OPEN: usize = 16;

fn data_dir() -> PathBuf {
    std::env::var_os("INTERCODE_DATA_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared"))
}

/// One `intercode run` per task file of an env (bash has four, one per file system).
fn sweeps(data: &Path) -> Vec<(&'static str, Vec<Vec<String>>)> {
    let fs = |n: u8| {
        let file = data.join(format!(
            "intercode-upstream/data/nl2bash/nl2bash_fs_{n}.json"
        ));
        vec!["bash".into(), "--tasks".into(), file.display().to_string()]
    };
    vec![
        ("bash", (1..=4).map(fs).collect()),
        (
            "sql",
            vec![vec!["sql".into(), "--data".into(), "spider".into()]],
        ),
        (
            "python",
            vec![vec![
                "python".into(),
                "--tasks".into(),
                data.join("intercode-upstream/data/python/mbpp/ic_mbpp.json")
                    .display()
                    .to_string(),
            ]],
        ),
    ]
}

/// Runs the gold agent; returns (episodes, wall time, longest episode).
fn sweep(
    runs: &[Vec<String>],
    jobs: usize,
    data: &Path,
) -> Result<(usize, Duration, Duration), String> {
    let (mut episodes, mut wall, mut longest) = (0, Duration::ZERO, Duration::ZERO);
    for args in runs {
        let t = Instant::now();
        let out = Command::new(INTERCODE)
            .arg("run")
            .args(args)
            .args(["--agent", "gold", "--json", "-j", &jobs.to_string()])
            .arg("--data-dir")
            .arg(data)
            .output()
            .map_err(|e| e.to_string())?;
        wall += t.elapsed();
        if !out.status.success() {
            return Err(String::from_utf8_lossy(&out.stderr).into_owned());
        }
        for line in String::from_utf8_lossy(&out.stdout).lines() {
            let Ok(record) = serde_json::from_str::<serde_json::Value>(line) else {
                continue;
            };
            episodes += 1;
            let ms = record["wall_ms"].as_u64().unwrap_or(0);
            longest = longest.max(Duration::from_millis(ms));
        }
    }
    Ok((episodes, wall, longest))
}

/// VmRSS of this process, in KiB (Linux).
fn rss_kib() -> Option<u64> {
    #[allow(clippy::disallowed_methods)]
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmRSS:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

/// Resident MiB per open episode of `kind`, over [`OPEN`] episodes.
fn memory_per_episode(kind: EnvKind) -> Result<f64, String> {
    let build = || -> intercode::Result<Box<dyn Env>> {
        if kind == EnvKind::Python {
            let options = PythonOptions {
                warm: 0,
                ..PythonOptions::default()
            };
            return Ok(Box::new(PythonEnv::new(mbpp::fixtures()?, options)?));
        }
        EnvSpec::new(kind).build()
    };
    // One env first, so that what every env shares (compiled modules, snapshots, caches) is
    // not counted per episode.
    let mut first = build().map_err(|e| e.to_string())?;
    first.reset(0).map_err(|e| e.to_string())?;
    first.submit().map_err(|e| e.to_string())?;
    let before = rss_kib().ok_or("no /proc/self/status")?;
    // One small action each, so the episode is live (a Python interpreter is instantiated on
    // its own thread and would otherwise not be counted yet).
    let action = match kind {
        EnvKind::Bash => "true",
        EnvKind::Sql => "SELECT 1",
        EnvKind::Python => "x = [1, 2, 3]",
    };
    let mut open = Vec::new();
    for i in 0..OPEN {
        let mut env = build().map_err(|e| e.to_string())?;
        env.reset(i % env.task_count()).map_err(|e| e.to_string())?;
        env.step(action).map_err(|e| e.to_string())?;
        open.push(env);
    }
    let after = rss_kib().ok_or("no /proc/self/status")?;
    drop(open);
    Ok(after.saturating_sub(before) as f64 / OPEN as f64 / 1024.0)
}

fn main() {
    let data = data_dir();
    println!("gold sweep over upstream's tasks (`intercode run ENV --agent gold -j N`):");
    println!(
        "  {:<7} {:>8} {:>10} {:>10} {:>10} {:>10} {:>9} {:>13} {:>16}",
        "env",
        "episodes",
        "-j 1 s",
        "ep/s",
        "-j 2 s",
        "ep/s",
        "speed-up",
        "longest ep s",
        "16 cores, est s"
    );
    let mut total = [Duration::ZERO; 2];
    for (env, runs) in sweeps(&data) {
        let one = sweep(&runs, 1, &data);
        let two = sweep(&runs, 2, &data);
        match (one, two) {
            (Ok((n, w1, _)), Ok((_, w2, longest))) => {
                total[0] += w1;
                total[1] += w2;
                let rate = |w: Duration| n as f64 / w.as_secs_f64();
                // Linear in cores from the 2-worker rate, but never below the longest episode.
                let est = (w2.as_secs_f64() / 8.0).max(longest.as_secs_f64());
                println!(
                    "  {:<7} {:>8} {:>10.2} {:>10.1} {:>10.2} {:>10.1} {:>8.2}x {:>13.2} {:>16.2}",
                    env,
                    n,
                    w1.as_secs_f64(),
                    rate(w1),
                    w2.as_secs_f64(),
                    rate(w2),
                    w1.as_secs_f64() / w2.as_secs_f64(),
                    longest.as_secs_f64(),
                    est
                );
            }
            (Err(e), _) | (_, Err(e)) => {
                println!("  {env:<7} skipped: {}", e.lines().last().unwrap_or(""))
            }
        }
    }
    println!(
        "  {:<7} {:>8} {:>10.2} {:>10} {:>10.2}",
        "total",
        "",
        total[0].as_secs_f64(),
        "",
        total[1].as_secs_f64()
    );

    println!("\nresident memory per open episode ({OPEN} open at once, after one warm-up env):");
    for kind in EnvKind::ALL {
        match memory_per_episode(kind) {
            Ok(mib) => println!("  {:<7} {mib:8.1} MiB", kind.name()),
            Err(e) => println!("  {:<7} skipped: {e}", kind.name()),
        }
    }
}
