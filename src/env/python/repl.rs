//! The Python REPL on top of [`crate::sandbox::repl`]: a [`Runtime`] (the compiled RustPython
//! guest plus a pool of warm interpreters) hands out [`Repl`]s, one interpreter each.
//!
//! * **Snapshot.** Starting an interpreter (RustPython init, load the harness, pre-import common
//!   modules) is ~40 ms of guest work with the same result every time, so it is done once per
//!   machine: the guest's `intercode-python-preinit` export does it and returns, and its memory
//!   becomes a new module (see [`crate::sandbox::repl::ReplModule::preinitialized`]). A new
//!   interpreter of that module is serving requests within a millisecond. If the snapshot
//!   cannot be made, interpreters start the long way, with a warning.
//! * **Warm pool.** A background thread still keeps [`PythonOptions::warm`] interpreters ready;
//!   taking one is a channel hand-over.
//! * **Timeouts keep the state.** A request past its deadline kills the interpreter (the epoch
//!   interrupt is the only way to stop wasm code). The [`Repl`] then takes a fresh interpreter
//!   and replays every earlier request that completed (successfully or with an exception, since
//!   a failing action can have bound names before it failed), in order, discarding their output.
//!   The same happens after a memory-limit or stack-overflow death, or `os._exit`. What the
//!   killed request itself did is lost, and a replay repeats side effects such as writes to
//!   files.
//! * Random bytes and str hashes are deterministic, so a replay rebuilds the same values.

use super::PythonOptions;
use crate::sandbox::repl::{Captured, Ended, Outcome, ReplModule, ReplProcess, ReplSpec};
use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex, OnceLock};
use std::time::Duration;

/// The Python guest built by `build/python.rs` from `python-guest/`.
pub static PYTHON_WASM: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/intercode-python.wasm"));
/// A hash of [`PYTHON_WASM`], part of the compiled-module cache key.
pub const PYTHON_HASH: &str = env!("INTERCODE_PYTHON_HASH");
/// The harness every interpreter runs first (also run under CPython by the differential test).
pub const HARNESS: &str = include_str!("harness.py");

/// How long loading the harness may take in a fresh interpreter (a cold machine under load).
const STARTUP_TIMEOUT: Duration = Duration::from_secs(60);

/// argv[0] that puts the guest in REPL mode (any other name runs it as the `python3` command,
/// which is how the bash sandbox uses the same module).
pub const REPL_ARGV0: &str = "intercode-python-repl";

/// The compiled guest, shared by every runtime of the process (and by the bash sandbox's
/// `python3`).
pub(crate) fn module() -> crate::Result<ReplModule> {
    static MODULE: OnceLock<Result<ReplModule, String>> = OnceLock::new();
    MODULE
        .get_or_init(|| ReplModule::new(PYTHON_WASM, PYTHON_HASH).map_err(|e| e.to_string()))
        .clone()
        .map_err(crate::Error::Guest)
}

/// What a request asks the harness to do (one byte on the wire; see `harness.py`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Op {
    /// An agent action, printed by upstream's rules.
    Action,
    /// Source executed as is.
    Exec,
    /// A fresh namespace.
    Fresh,
    /// Is the source a complete statement?
    Check,
}

impl Op {
    fn byte(self) -> u8 {
        match self {
            Op::Action => b'a',
            Op::Exec => b'x',
            Op::Fresh => b'r',
            Op::Check => b'c',
        }
    }
}

/// Why a request did not finish.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Interruption {
    Timeout(Duration),
    MemoryLimit(usize),
    StackOverflow,
    /// The interpreter exited (`os._exit(n)`).
    Exited(i32),
    /// RustPython panicked (the message); `capacity overflow` is an allocation too big to
    /// express, e.g. `[0] * 10**9`.
    Panicked(String),
    /// Any other trap (the message is for logs).
    Crashed(String),
}

impl Interruption {
    /// The error line the agent sees, shaped like a Python exception.
    pub fn error_line(&self) -> String {
        match self {
            Interruption::Timeout(t) => {
                format!(
                    "TimeoutError: the action took longer than {} s",
                    t.as_secs_f64()
                )
            }
            Interruption::MemoryLimit(b) => format!(
                "MemoryError: the action went past the {} MiB memory limit",
                b >> 20
            ),
            Interruption::StackOverflow => {
                "RecursionError: maximum recursion depth exceeded (the interpreter's stack \
                 overflowed)"
                    .to_string()
            }
            Interruption::Exited(c) => {
                format!("SystemExit: the interpreter exited with status {c}")
            }
            Interruption::Panicked(m) if m.contains("capacity overflow") => {
                "MemoryError: the allocation is too large (capacity overflow)".to_string()
            }
            Interruption::Panicked(m) => format!("SystemError: the interpreter panicked: {m}"),
            Interruption::Crashed(_) => "SystemError: the interpreter crashed".to_string(),
        }
    }
}

/// The result of one request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Cell {
    /// Ran to its end without an exception.
    pub ok: bool,
    /// stdout, lossily decoded, with a note when output was dropped.
    pub stdout: String,
    /// stderr, then the exception line ("Type: message") when the code raised.
    pub error: String,
    /// Set when the interpreter died during the request (and was replaced).
    pub interrupted: Option<Interruption>,
    /// Requests replayed into the replacement interpreter (0 when none was needed).
    pub replayed: usize,
    /// The replay into the replacement interpreter stopped early (a replayed request failed
    /// to finish), so the namespace may lack some earlier definitions.
    pub replay_incomplete: bool,
}

impl Cell {
    /// upstream's `{"output", "error"}` pair, both stripped.
    pub fn output_stripped(&self) -> &str {
        self.stdout.trim()
    }

    pub fn error_stripped(&self) -> &str {
        self.error.trim()
    }

    /// The observation: stdout and error text, stripped, on separate lines.
    pub fn observation(&self) -> String {
        [self.output_stripped(), self.error_stripped()]
            .iter()
            .filter(|s| !s.is_empty())
            .copied()
            .collect::<Vec<_>>()
            .join("\n")
    }
}

fn text(c: &Captured) -> String {
    let mut s = String::from_utf8_lossy(&c.bytes).into_owned();
    if c.dropped > 0 {
        if !s.ends_with('\n') {
            s.push('\n');
        }
        s.push_str(&format!("[output truncated: {} more bytes]", c.dropped));
    }
    s
}

/// Takes the report of a Rust panic out of the guest's stderr: (the rest, the panic message).
/// The report is `thread '…' panicked at <file>:<line>:<col>:` and then the message lines.
fn split_panic(stderr: &str) -> (String, Option<String>) {
    let lines: Vec<&str> = stderr.lines().collect();
    let Some(at) = lines
        .iter()
        .position(|l| l.starts_with("thread '") && l.contains(" panicked at "))
    else {
        return (stderr.to_string(), None);
    };
    let message = lines[at + 1..].join("\n").trim().to_string();
    let rest: String = lines[..at].iter().map(|l| format!("{l}\n")).collect();
    (rest, Some(message))
}

/// Drops the lines Rust's runtime prints when the guest aborts (an allocation refused at the
/// memory limit): they describe the interpreter, not the agent's code.
fn without_abort_notes(stderr: &str) -> String {
    stderr
        .lines()
        .filter(|l| {
            !(l.starts_with("memory allocation of ") && l.ends_with(" failed")
                || l.starts_with("note: run with `RUST_BACKTRACE=1`"))
        })
        .map(|l| format!("{l}\n"))
        .collect()
}

fn join_error(stderr: String, line: &str) -> String {
    match (stderr.trim_end().is_empty(), line.is_empty()) {
        (true, _) => line.to_string(),
        (false, true) => stderr,
        (false, false) => format!("{}\n{line}", stderr.trim_end()),
    }
}

// ---- runtime and warm pool ----------------------------------------------------------------

struct PoolState {
    ready: VecDeque<ReplProcess>,
    /// The worker is starting an interpreter right now.
    starting: bool,
    stop: bool,
}

struct Inner {
    /// The guest, snapshotted after the harness and warm-up imports when that worked.
    module: ReplModule,
    /// Whether [`Inner::module`] starts from that snapshot (so needs no start-up requests).
    snapshotted: bool,
    spec: ReplSpec,
    preimport: String,
    target: usize,
    state: Mutex<PoolState>,
    cv: Condvar,
    worker_started: AtomicBool,
}

/// The compiled Python guest and a pool of warm interpreters. Cheap to clone; the pool's
/// thread stops when the last clone is dropped.
#[derive(Clone)]
pub struct Runtime {
    inner: Arc<Inner>,
    _stopper: Arc<Stopper>,
}

struct Stopper(Arc<Inner>);

impl Drop for Stopper {
    fn drop(&mut self) {
        let mut st = self.0.state.lock().unwrap_or_else(|e| e.into_inner());
        st.stop = true;
        st.ready.clear();
        self.0.cv.notify_all();
    }
}

impl Runtime {
    pub fn new(options: &PythonOptions) -> crate::Result<Runtime> {
        let base = module()?;
        let spec = ReplSpec {
            argv: vec![REPL_ARGV0.into()],
            memory_bytes: options.memory_bytes,
            output_bytes: options.output_bytes,
        };
        let preimport = options.preimport.join(" ");
        let (module, snapshotted) = match snapshotted(&base, &spec, &preimport) {
            Ok(m) => (m, true),
            Err(e) => {
                tracing::warn!("python interpreters start without a snapshot: {e}");
                (base, false)
            }
        };
        let inner = Arc::new(Inner {
            module,
            snapshotted,
            spec,
            preimport,
            target: options.warm,
            state: Mutex::new(PoolState {
                ready: VecDeque::new(),
                starting: false,
                stop: false,
            }),
            cv: Condvar::new(),
            worker_started: AtomicBool::new(false),
        });
        Ok(Runtime {
            _stopper: Arc::new(Stopper(inner.clone())),
            inner,
        })
    }

    /// A fresh interpreter with an empty namespace.
    pub fn repl(&self) -> crate::Result<Repl> {
        Ok(Repl {
            process: self.take()?,
            runtime: self.clone(),
            history: Vec::new(),
        })
    }

    /// A warm interpreter, or a cold one when none is ready.
    fn take(&self) -> crate::Result<ReplProcess> {
        self.ensure_worker();
        let warm = {
            let mut st = self.inner.state.lock().unwrap_or_else(|e| e.into_inner());
            // One being started is nearer than a new one (and starting a second in parallel
            // would only split the CPU between them).
            let deadline = std::time::Instant::now() + STARTUP_TIMEOUT;
            while st.ready.is_empty() && st.starting && std::time::Instant::now() < deadline {
                st = self
                    .inner
                    .cv
                    .wait_timeout(st, Duration::from_millis(100))
                    .unwrap_or_else(|e| e.into_inner())
                    .0;
            }
            let p = st.ready.pop_front();
            self.inner.cv.notify_all();
            p
        };
        match warm {
            Some(p) if p.is_alive() => Ok(p),
            _ => start_interpreter(&self.inner),
        }
    }

    /// Fills the pool now (for benchmarks and tests that measure a warm reset).
    pub fn wait_warm(&self, timeout: Duration) -> bool {
        self.ensure_worker();
        let deadline = std::time::Instant::now() + timeout;
        let mut st = self.inner.state.lock().unwrap_or_else(|e| e.into_inner());
        while st.ready.len() < self.inner.target {
            let now = std::time::Instant::now();
            if now >= deadline {
                return false;
            }
            st = self
                .inner
                .cv
                .wait_timeout(st, deadline - now)
                .unwrap_or_else(|e| e.into_inner())
                .0;
        }
        true
    }

    fn ensure_worker(&self) {
        if self.inner.target == 0 || self.inner.worker_started.swap(true, Ordering::SeqCst) {
            return;
        }
        // The worker holds only a weak reference, so dropping every Runtime ends it.
        let weak = Arc::downgrade(&self.inner);
        let spawned = std::thread::Builder::new()
            .name("python-warm-pool".into())
            .spawn(move || warm_pool(weak));
        if spawned.is_err() {
            tracing::warn!("cannot start the warm-interpreter thread; interpreters start cold");
        }
    }
}

fn warm_pool(weak: std::sync::Weak<Inner>) {
    loop {
        let Some(inner) = weak.upgrade() else { return };
        {
            let mut st = inner.state.lock().unwrap_or_else(|e| e.into_inner());
            while !st.stop && st.ready.len() >= inner.target {
                st = inner.cv.wait(st).unwrap_or_else(|e| e.into_inner());
            }
            if st.stop {
                return;
            }
            st.starting = true;
        }
        let started = start_interpreter(&inner);
        let mut st = inner.state.lock().unwrap_or_else(|e| e.into_inner());
        st.starting = false;
        inner.cv.notify_all();
        match started {
            Ok(p) => {
                if st.stop {
                    return;
                }
                st.ready.push_back(p);
            }
            Err(e) => {
                drop(st);
                tracing::warn!("warming a python interpreter failed: {e}");
                drop(inner);
                std::thread::sleep(Duration::from_secs(1));
            }
        }
    }
}

/// The guest's export that starts a REPL interpreter and returns at [`SNAPSHOT_REQUEST`].
const PREINIT_EXPORT: &str = "intercode-python-preinit";
/// Ends [`PREINIT_EXPORT`] (the guest never passes it to the harness).
const SNAPSHOT_REQUEST: &[u8] = b"\0snapshot";

/// The guest snapshotted with its interpreter started, the harness loaded and `preimport`
/// imported (once per process; on disk across runs, keyed by all three).
fn snapshotted(base: &ReplModule, spec: &ReplSpec, preimport: &str) -> crate::Result<ReplModule> {
    type Snapshots = Mutex<Vec<(String, Result<ReplModule, String>)>>;
    static SNAPSHOTS: OnceLock<Snapshots> = OnceLock::new();
    let key = {
        use sha2::{Digest, Sha256};
        let digest = Sha256::new()
            .chain_update(HARNESS)
            .chain_update([0])
            .chain_update(preimport)
            .finalize();
        digest[..12]
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect::<String>()
    };
    // One snapshot per key and process, made under the lock: two runtimes created at once
    // (parallel tests) would otherwise both pay for it.
    let mut made = SNAPSHOTS
        .get_or_init(Snapshots::default)
        .lock()
        .unwrap_or_else(|e| e.into_inner());
    if let Some((_, m)) = made.iter().find(|(k, _)| *k == key) {
        return m.clone().map_err(crate::Error::Guest);
    }
    let module = base
        .preinitialized(&key, PREINIT_EXPORT, spec, |p| {
            start_up(p, preimport)?;
            match p.request(SNAPSHOT_REQUEST.to_vec(), STARTUP_TIMEOUT) {
                Outcome::Replied { reply, .. } if reply == b"o" => Ok(()),
                other => Err(crate::Error::Guest(format!(
                    "the python guest did not stop for its snapshot: {other:?}"
                ))),
            }
        })
        .map_err(|e| e.to_string());
    made.push((key, module.clone()));
    module.map_err(crate::Error::Guest)
}

fn start_interpreter(inner: &Inner) -> crate::Result<ReplProcess> {
    let mut p = inner.module.start(&inner.spec)?;
    if !inner.snapshotted {
        start_up(&mut p, &inner.preimport)?;
    }
    Ok(p)
}

/// Loads the harness and imports the warm-up modules in a new interpreter.
fn start_up(p: &mut ReplProcess, preimport: &str) -> crate::Result<()> {
    match p.request(HARNESS.as_bytes().to_vec(), STARTUP_TIMEOUT) {
        Outcome::Replied { reply, .. } if reply == b"o" => {}
        Outcome::Replied { reply, stderr, .. } => {
            return Err(crate::Error::Guest(format!(
                "the python harness failed to load: {}\n{}",
                String::from_utf8_lossy(&reply),
                String::from_utf8_lossy(&stderr.bytes)
            )));
        }
        Outcome::TimedOut { .. } => {
            return Err(crate::Error::Guest(
                "the python interpreter did not start in time".into(),
            ));
        }
        Outcome::Died { ended, stderr, .. } => {
            return Err(crate::Error::Guest(format!(
                "the python interpreter died while starting ({ended:?}): {}",
                String::from_utf8_lossy(&stderr.bytes)
            )));
        }
    }
    if !preimport.is_empty() {
        let mut req = vec![b'w'];
        req.extend_from_slice(preimport.as_bytes());
        let out = p.request(req, STARTUP_TIMEOUT);
        if !matches!(out, Outcome::Replied { .. }) {
            return Err(crate::Error::Guest(format!(
                "the python interpreter failed while importing the warm-up modules: {out:?}"
            )));
        }
    }
    Ok(())
}

// ---- one interpreter session ---------------------------------------------------------------

/// One interpreter and the requests it has completed (for the replay after a restart).
pub struct Repl {
    process: ReplProcess,
    runtime: Runtime,
    /// Completed requests and the time each was allowed.
    history: Vec<(Op, String, Duration)>,
}

impl Repl {
    /// Runs an agent action (upstream's printing rules).
    pub fn action(&mut self, code: &str, timeout: Duration) -> crate::Result<Cell> {
        self.run(Op::Action, code, timeout)
    }

    /// Executes source as is.
    pub fn exec(&mut self, code: &str, timeout: Duration) -> crate::Result<Cell> {
        self.run(Op::Exec, code, timeout)
    }

    /// Starts over with an empty namespace in the same interpreter (modules stay imported).
    pub fn fresh_namespace(&mut self) -> crate::Result<()> {
        self.run(Op::Fresh, "", STARTUP_TIMEOUT)?;
        self.history.clear();
        Ok(())
    }

    /// Whether `source` is a complete statement (an interactive shell keeps reading lines
    /// while it is not).
    pub fn is_complete(&mut self, source: &str) -> crate::Result<bool> {
        let cell = self.run(Op::Check, source, Duration::from_secs(10))?;
        Ok(cell.ok || cell.interrupted.is_some())
    }

    /// A second interpreter holding the same namespace, rebuilt by replaying this one's
    /// completed requests into a fresh interpreter: scoring runs the tests there, so the
    /// episode's own namespace is left exactly as the agent made it. `complete` is false when
    /// a replayed request failed (the copy then holds what replayed before it).
    pub fn fork(&self) -> crate::Result<(Repl, bool)> {
        let mut copy = Repl {
            process: self.runtime.take()?,
            runtime: self.runtime.clone(),
            history: self.history.clone(),
        };
        let (_, complete) = copy.replay_history()?;
        Ok((copy, complete))
    }

    /// How many requests a restart would replay.
    pub fn history_len(&self) -> usize {
        self.history.len()
    }

    pub fn run(&mut self, op: Op, code: &str, timeout: Duration) -> crate::Result<Cell> {
        let mut req = Vec::with_capacity(code.len() + 1);
        req.push(op.byte());
        req.extend_from_slice(code.as_bytes());
        let outcome = self.process.request(req, timeout);
        let (reply, stdout, stderr, interrupted) = match outcome {
            Outcome::Replied {
                reply,
                stdout,
                stderr,
            } => (reply, stdout, stderr, None),
            Outcome::TimedOut { stdout, stderr } => (
                Vec::new(),
                stdout,
                stderr,
                Some(Interruption::Timeout(timeout)),
            ),
            Outcome::Died {
                ended,
                stdout,
                stderr,
            } => {
                let why = match ended {
                    Ended::MemoryLimit => {
                        Interruption::MemoryLimit(self.runtime.inner.spec.memory_bytes)
                    }
                    Ended::StackOverflow => Interruption::StackOverflow,
                    Ended::Exited(c) => Interruption::Exited(c),
                    Ended::Cancelled => Interruption::Timeout(timeout),
                    Ended::Trapped(m) => Interruption::Crashed(m),
                };
                (Vec::new(), stdout, stderr, Some(why))
            }
        };
        let stdout_text = text(&stdout);
        let stderr_text = text(&stderr);
        let Some(why) = interrupted else {
            let ok = reply.first() == Some(&b'o');
            let line = if ok {
                String::new()
            } else {
                String::from_utf8_lossy(reply.get(1..).unwrap_or_default()).into_owned()
            };
            if matches!(op, Op::Action | Op::Exec) {
                self.history.push((op, code.to_string(), timeout));
            }
            return Ok(Cell {
                ok,
                stdout: stdout_text,
                error: join_error(stderr_text, &line),
                interrupted: None,
                replayed: 0,
                replay_incomplete: false,
            });
        };
        let (stderr_text, panic) = split_panic(&without_abort_notes(&stderr_text));
        let why = match (why, panic) {
            (Interruption::Crashed(_), Some(message)) => Interruption::Panicked(message),
            (why, _) => why,
        };
        if let Interruption::Crashed(m) = &why {
            tracing::warn!("python interpreter crashed: {m}");
        }
        let (replayed, complete) = self.restart()?;
        Ok(Cell {
            ok: false,
            stdout: stdout_text,
            error: join_error(stderr_text, &why.error_line()),
            interrupted: Some(why),
            replayed,
            replay_incomplete: !complete,
        })
    }

    /// Replaces the dead interpreter and replays the history into it.
    fn restart(&mut self) -> crate::Result<(usize, bool)> {
        self.process = self.runtime.take()?;
        self.replay_history()
    }

    /// Replays the history into the (fresh) current process.
    fn replay_history(&mut self) -> crate::Result<(usize, bool)> {
        let history = std::mem::take(&mut self.history);
        let mut replayed = 0;
        for (op, code, timeout) in &history {
            let mut req = vec![op.byte()];
            req.extend_from_slice(code.as_bytes());
            // A replayed request gets the time it was allowed originally.
            match self.process.request(req, *timeout) {
                Outcome::Replied { .. } => replayed += 1,
                _ => {
                    self.process = self.runtime.take()?;
                    self.history = history[..replayed].to_vec();
                    // Rebuild what we can: the prefix that replayed before the failure.
                    for (op, code, timeout) in &self.history {
                        let mut req = vec![op.byte()];
                        req.extend_from_slice(code.as_bytes());
                        let _ = self.process.request(req, *timeout);
                    }
                    return Ok((replayed, false));
                }
            }
        }
        self.history = history;
        Ok((replayed, true))
    }
}
