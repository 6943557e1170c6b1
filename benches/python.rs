//! `cargo bench --bench python`: the Python env's costs beside native CPython (`python3`).
//! Figures, not assertions: these machines are shared and noisy.
//!
//! * loading the compiled guest (from the on-disk module cache);
//! * a cold interpreter (instantiate + RustPython init + the harness) and a warm `reset`
//!   (taking a pre-started interpreter from the pool), against `python3 -c pass`;
//! * simple actions in a live interpreter, against `python3 -c` of the same code (which is what
//!   a fresh process per action would cost) and against CPython's own run time of the code;
//! * the same actions' compute time in RustPython built natively (the guest crate's `python3`
//!   mode for the host), so the wasm overhead is visible apart from RustPython's own speed:
//!   `$INTERCODE_PYTHON_NATIVE`, else built once into `~/.cache/intercode-python-native`
//!   (a few minutes; `BENCH_NO_NATIVE=1` skips it);
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

/// The guest crate built for the host: RustPython without wasm (see the module docs).
fn rustpython_native() -> Option<String> {
    if let Some(p) = std::env::var_os("INTERCODE_PYTHON_NATIVE") {
        return Some(p.to_string_lossy().into_owned());
    }
    if std::env::var_os("BENCH_NO_NATIVE").is_some() {
        return None;
    }
    let host = Command::new("rustc").arg("-vV").output().ok()?;
    let host = String::from_utf8_lossy(&host.stdout)
        .lines()
        .find_map(|l| l.strip_prefix("host: ").map(str::to_string))?;
    let target_dir =
        std::path::Path::new(&std::env::var("HOME").ok()?).join(".cache/intercode-python-native");
    let exe = target_dir.join(&host).join("release/intercode-python");
    println!("(building RustPython natively for the comparison, once; a few minutes)");
    let built = Command::new("cargo")
        .args([
            "build",
            "--release",
            "--locked",
            "--quiet",
            "--target",
            &host,
        ])
        .arg("--manifest-path")
        .arg(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/python-guest/Cargo.toml"
        ))
        .env("CARGO_TARGET_DIR", &target_dir)
        .status()
        .ok()?;
    (built.success() && exe.exists()).then(|| exe.to_string_lossy().into_owned())
}

/// An interpreter's own time for `code` (executed in one process, excluding its start-up;
/// output discarded): CPython's, or natively built RustPython's.
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
    // Until it has answered a request: a snapshotted interpreter is instantiated on its own
    // thread, so handing it out alone would measure only the hand-over.
    let answered = || {
        let mut repl = cold_rt.repl().unwrap();
        assert!(repl.exec("pass", Duration::from_secs(30)).unwrap().ok);
        repl
    };
    let cold = timed(runs.min(20), || drop(answered()));
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
        "  cold start (from the snapshot, until it answers `pass`)  {}",
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
    let held: Vec<_> = (0..5).map(|_| answered()).collect();
    if let (Some(a), Some(b)) = (before, rss_kib()) {
        println!(
            "  resident memory per started interpreter             {:9.1} MiB",
            b.saturating_sub(a) as f64 / 5.0 / 1024.0
        );
    }
    drop(held);

    // Actions in a live interpreter.
    let native = rustpython_native();
    println!("\nactions (median of {runs}; the wasm guest's time includes the request's trip):");
    println!(
        "  {:<20} {:>12} {:>12} {:>12} {:>12} {:>12} {:>12}",
        "action", "wasm guest", "RP native", "CPython", "python3 -c", "wasm/native", "wasm/CPython"
    );
    let rt = Runtime::new(&PythonOptions::default()).unwrap();
    let mut repl = rt.repl().unwrap();
    for (name, code) in ACTIONS {
        let ours = timed(runs, || {
            let c = repl.action(code, Duration::from_secs(60)).unwrap();
            assert!(c.ok, "{code}: {}", c.error);
        });
        let native = native.as_ref().and_then(|n| python3_inside(n, runs, code));
        let cpython = python
            .as_ref()
            .and_then(|py| python3_inside(py, runs, code));
        let process = python.as_ref().map(|py| python3_c(py, runs.min(10), code));
        let show = |d: Option<Duration>| d.map_or("-".to_string(), ms);
        let ratio = |d: Option<Duration>| {
            d.map_or("-".to_string(), |d| {
                format!("{:.2}x", ours.as_secs_f64() / d.as_secs_f64())
            })
        };
        println!(
            "  {name:<20} {} {:>12} {:>12} {:>12} {:>12} {:>12}",
            ms(ours),
            show(native),
            show(cpython),
            show(process),
            ratio(native),
            ratio(cpython)
        );
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
