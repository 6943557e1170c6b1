//! `cargo bench --bench python`: the Python env's costs beside native CPython (`python3`).
//! Figures, not assertions: these machines are shared and noisy.
//!
//! * loading the compiled guest (from the on-disk module cache);
//! * a cold interpreter (instantiate + RustPython init + the harness) and a warm `reset`
//!   (taking a pre-started interpreter from the pool), against `python3 -c pass`;
//! * simple actions in a live interpreter, against `python3 -c` of the same code (which is what
//!   a fresh process per action would cost) and against CPython's own run time of the code;
//! * a timeout (kill + restart + replay of the episode's earlier actions).
//!
//! `BENCH_RUNS=n` sets the number of timed runs (default 30).

use intercode::env::Env;
use intercode::env::python::repl::{PYTHON_HASH, PYTHON_WASM, Runtime};
use intercode::env::python::{PythonEnv, PythonOptions};
use intercode::sandbox::repl::ReplModule;
use std::process::Command;
use std::time::{Duration, Instant};

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn ms(d: Duration) -> String {
    format!("{:9.3} ms", d.as_secs_f64() * 1e3)
}

fn timed<F: FnMut()>(runs: usize, mut f: F) -> Duration {
    median(
        (0..runs)
            .map(|_| {
                let t = Instant::now();
                f();
                t.elapsed()
            })
            .collect(),
    )
}

/// The CPython executable behind `python3` (a pyenv shim adds ~200 ms of shell per start).
fn python3() -> Option<String> {
    let out = Command::new("python3")
        .args(["-c", "import sys; print(sys.executable)"])
        .output()
        .ok()?;
    out.status
        .success()
        .then(|| String::from_utf8_lossy(&out.stdout).trim().to_string())
}

/// Median wall time of `python3 -c code`.
fn python3_c(python: &str, runs: usize, code: &str) -> Duration {
    timed(runs, || {
        let out = Command::new(python).args(["-c", code]).output().unwrap();
        assert!(out.status.success());
    })
}

/// CPython's own time for `code` (executed in one process, excluding its start-up; output
/// discarded).
fn python3_inside(python: &str, runs: usize, code: &str) -> Option<Duration> {
    let script = format!(
        "import contextlib, io, time\nts = []\nfor _ in range({runs}):\n    \
         with contextlib.redirect_stdout(io.StringIO()):\n        t = time.perf_counter()\n        \
         exec({code:?}, {{}})\n        ts.append(time.perf_counter() - t)\nts.sort()\nprint(ts[len(ts) // 2])"
    );
    let out = Command::new(python).args(["-c", &script]).output().ok()?;
    let secs: f64 = String::from_utf8_lossy(&out.stdout).trim().parse().ok()?;
    Some(Duration::from_secs_f64(secs))
}

/// VmRSS of this process, in KiB (Linux).
fn rss_kib() -> Option<u64> {
    #[allow(clippy::disallowed_methods)]
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmRSS:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

const ACTIONS: &[(&str, &str)] = &[
    ("expression", "1 + 1"),
    ("assignment", "x = [i * i for i in range(100)]"),
    ("def + call", "def f(n):\n    return n * 2\nprint(f(21))"),
    ("import re (cached)", "import re"),
    ("print 1000 lines", "for i in range(1000): print(i)"),
    ("sorted 10k ints", "y = sorted(range(10000, 0, -1))"),
    ("loop 1e5", "s = 0\nfor i in range(100000): s += i"),
    ("sum squares 1e6", "s = sum(i * i for i in range(10**6))"),
];

fn main() {
    let runs: usize = std::env::var("BENCH_RUNS")
        .ok()
        .and_then(|r| r.parse().ok())
        .unwrap_or(30);

    let t = Instant::now();
    let _module = ReplModule::new(PYTHON_WASM, PYTHON_HASH).expect("python guest");
    println!(
        "guest module ({:.1} MB wasm): first load {} (a cold compile takes ~7 s, then cached)",
        PYTHON_WASM.len() as f64 / 1e6,
        ms(t.elapsed())
    );

    // Interpreter start-up.
    let cold_rt = Runtime::new(&PythonOptions {
        warm: 0,
        ..PythonOptions::default()
    })
    .unwrap();
    let cold = timed(runs.min(20), || drop(cold_rt.repl().unwrap()));
    let mut env = PythonEnv::new(
        intercode::data::mbpp::fixtures().unwrap(),
        PythonOptions::default(),
    )
    .unwrap();
    let warm = median(
        (0..runs)
            .map(|_| {
                env.runtime().wait_warm(Duration::from_secs(30));
                let t = Instant::now();
                env.reset(0).unwrap();
                t.elapsed()
            })
            .collect(),
    );
    println!("\nstart an episode's interpreter (median of {runs}):");
    println!(
        "  cold start (instantiate + init + harness + pre-imports)  {}",
        ms(cold)
    );
    println!(
        "  reset with a warm interpreter ready                     {}",
        ms(warm)
    );
    let python = python3();
    if let Some(py) = &python {
        let t = python3_c(py, runs.min(20), "pass");
        println!("  {py} -c pass (a native process)  {}", ms(t));
    }

    // Resident memory of a started interpreter (touched pages of its linear memory and more).
    let before = rss_kib();
    let held: Vec<_> = (0..5).map(|_| cold_rt.repl().unwrap()).collect();
    if let (Some(a), Some(b)) = (before, rss_kib()) {
        println!(
            "  resident memory per started interpreter             {:9.1} MiB",
            b.saturating_sub(a) as f64 / 5.0 / 1024.0
        );
    }
    drop(held);

    // Actions in a live interpreter.
    println!("\nactions (median of {runs}):");
    println!(
        "  {:<20} {:>12} {:>12} {:>12}",
        "action", "sandbox", "python3 -c", "cpython exec"
    );
    let rt = Runtime::new(&PythonOptions::default()).unwrap();
    let mut repl = rt.repl().unwrap();
    for (name, code) in ACTIONS {
        let ours = timed(runs, || {
            let c = repl.action(code, Duration::from_secs(60)).unwrap();
            assert!(c.ok, "{code}: {}", c.error);
        });
        let (proc_, inside) = match &python {
            Some(py) => (
                ms(python3_c(py, runs.min(10), code)),
                python3_inside(py, runs, code).map_or("-".into(), ms),
            ),
            None => ("-".into(), "-".into()),
        };
        println!("  {name:<20} {} {proc_:>12} {inside:>12}", ms(ours));
    }

    // A timeout: the interpreter dies, a new one takes the history.
    let mut repl = rt.repl().unwrap();
    for i in 0..10 {
        repl.exec(&format!("v{i} = {i}"), Duration::from_secs(5))
            .unwrap();
    }
    rt.wait_warm(Duration::from_secs(30));
    let t = Instant::now();
    let c = repl
        .exec("while True: pass", Duration::from_millis(200))
        .unwrap();
    let total = t.elapsed();
    assert_eq!(c.replayed, 10);
    println!(
        "\ntimeout of 200 ms + restart + replay of 10 actions: {} (so recovery {})",
        ms(total),
        ms(total.saturating_sub(Duration::from_millis(200)))
    );
}
