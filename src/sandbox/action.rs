//! One action: the root process (usually `sh -c '<command>'`), everything it spawns, the captured
//! output, and the cancellation that ends stragglers. The action is the unit of the timeout.

use super::limits::Limits;
use super::process::{self, ProcessSpec};
use super::proctable::{self, ProcInfo};
use super::program::{Program, Programs};
use super::threads::Task;
use super::{Shared, SharedClock};
use std::collections::HashMap;
use std::fs::File;
use std::io::Read;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

/// Shared by every process of one action.
pub(crate) struct ActionState {
    pub root_path: PathBuf,
    pub root_dir: cap_std::fs::Dir,
    pub limits: Limits,
    pub clock: Option<SharedClock>,
    /// Set on timeout or when the root process has ended: every guest traps at its next epoch
    /// check and interruptible host calls (sleep) return.
    pub cancelled: AtomicBool,
    pub live: AtomicU32,
    pub started: AtomicU32,
    next_pid: AtomicU32,
    /// Every process not yet waited for: its thread and what `ps` shows of it.
    children: Mutex<HashMap<u32, Child>>,
    /// Wall-clock time the action began (the synthetic init's start time).
    started_at: Duration,
    /// Lets `sleep` wait on something cancellation can wake.
    pub wakeup: (Mutex<()>, Condvar),
    /// Commands served by other modules.
    programs: Programs,
    /// Linear memory the action's live processes hold together.
    memory_held: AtomicUsize,
    /// Nanoseconds the host spent loading a program's module during the action (the first
    /// `python3` of a process); the timeout is extended by it, since the agent did not spend it.
    excused_ns: AtomicU64,
    /// Processes of the action loading a module right now: their wait is excused too, before
    /// it is known how long it lasts (a first compile can outlast a short timeout).
    loading: AtomicUsize,
}

impl ActionState {
    pub fn cancel(&self) {
        self.cancelled.store(true, Ordering::SeqCst);
        let _guard = self.wakeup.0.lock();
        self.wakeup.1.notify_all();
    }

    /// Sleeps until `deadline` for process `me`; false when the action was cancelled or a
    /// signal ended `me` first.
    pub fn sleep_for_process(&self, me: &ProcInfo, deadline: Instant) -> bool {
        super::poll::sleep_until_unless(&self.wakeup, deadline, || {
            self.cancelled.load(Ordering::SeqCst) || me.killed_by().is_some()
        })
    }

    /// Wakes every process sleeping or waiting in the host, to look at its state again.
    fn wake_all(&self) {
        let _guard = self.wakeup.0.lock();
        self.wakeup.1.notify_all();
    }

    /// The wall-clock time processes see (the pinned clock when the episode has one).
    fn wall_now(&self) -> Duration {
        wall_clock_now(self.clock.as_ref())
    }

    /// The process table as `caller` sees it (see [`proctable`]).
    pub fn process_table(&self, caller: u32) -> ::hostcalls::ProcTable {
        let children = self.children.lock().unwrap_or_else(|e| e.into_inner());
        proctable::snapshot(caller, children.values().map(|c| &*c.info), self.started_at)
    }

    /// Sends `sig` to `pid`; `Err(())` when no such process is running. Init (pid 1) takes
    /// every signal and ignores it, as a container's init does for signals it has no handler
    /// for.
    pub fn signal(&self, pid: u32, sig: i32) -> Result<(), ()> {
        if pid == ::hostcalls::proc::INIT_PID {
            return Ok(());
        }
        let info = {
            let children = self.children.lock().unwrap_or_else(|e| e.into_inner());
            children.get(&pid).map(|c| c.info.clone()).ok_or(())?
        };
        if info.has_ended() {
            // A zombie: the signal is accepted and changes nothing.
            return Ok(());
        }
        info.deliver(sig);
        if info.killed_by().is_some() {
            self.wake_all();
        }
        Ok(())
    }

    /// Takes `bytes` from the action's memory budget; false (nothing taken) when it would
    /// go over [`Limits::memory_per_action`].
    pub fn reserve_memory(&self, bytes: usize) -> bool {
        let limit = self.limits.memory_per_action;
        self.memory_held
            .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |held| {
                held.checked_add(bytes).filter(|total| *total <= limit)
            })
            .is_ok()
    }

    pub fn release_memory(&self, bytes: usize) {
        self.memory_held.fetch_sub(bytes, Ordering::SeqCst);
    }

    fn excused(&self) -> Duration {
        Duration::from_nanos(self.excused_ns.load(Ordering::SeqCst))
    }

    /// Runs a process of `program`, loading its module first if this is its first run.
    fn run_program(
        self: &Arc<Self>,
        program: &Program,
        spec: ProcessSpec,
        me: Arc<ProcInfo>,
    ) -> i32 {
        let started = Instant::now();
        self.loading.fetch_add(1, Ordering::SeqCst);
        let linked = program.shared();
        self.loading.fetch_sub(1, Ordering::SeqCst);
        let took = u64::try_from(started.elapsed().as_nanos()).unwrap_or(u64::MAX);
        // Processes waiting for the same load overlap: the longest wait is the time lost.
        self.excused_ns.fetch_max(took, Ordering::SeqCst);
        match linked {
            Ok(shared) => process::run(&shared, self, spec, me),
            Err(e) => {
                use std::io::Write;
                let _ = writeln!(&spec.stdio[2], "{}: cannot start: {e}", program.name());
                process::status::CANNOT_EXECUTE
            }
        }
    }

    /// Starts a process on its own thread; `Err(EAGAIN)`-style refusal when a limit is hit.
    pub fn spawn(
        self: &Arc<Self>,
        shared: &Arc<Shared>,
        spec: ProcessSpec,
    ) -> Result<u32, SpawnRefused> {
        self.spawn_notify(shared, spec, None)
    }

    fn spawn_notify(
        self: &Arc<Self>,
        shared: &Arc<Shared>,
        spec: ProcessSpec,
        on_exit: Option<std::sync::mpsc::Sender<i32>>,
    ) -> Result<u32, SpawnRefused> {
        if self.cancelled.load(Ordering::Relaxed) {
            return Err(SpawnRefused);
        }
        if self.live.fetch_add(1, Ordering::SeqCst) >= self.limits.live_processes
            || self.started.fetch_add(1, Ordering::SeqCst) >= self.limits.total_processes
        {
            self.live.fetch_sub(1, Ordering::SeqCst);
            return Err(SpawnRefused);
        }
        let pid = self.next_pid.fetch_add(1, Ordering::SeqCst);
        let action = self.clone();
        let shared = shared.clone();
        let program = spec.argv.first().and_then(|a| self.programs.find(a));
        let stack = match program {
            Some(_) => Program::THREAD_STACK,
            None => 1 << 20,
        };
        // Held until the record is in: the new process may list the table at once and must
        // find itself there.
        let mut children = self.children.lock().unwrap_or_else(|e| e.into_inner());
        let shown_argv = match spec.argv.get(1).map(String::as_str) {
            // Our stand-in for fork: show the parent's command line, as a forked bash does.
            Some("--intercode-subshell") => children
                .get(&spec.parent)
                .map(|c| c.info.argv.clone())
                .unwrap_or_else(|| spec.argv.clone()),
            _ => spec.argv.clone(),
        };
        let info = Arc::new(ProcInfo::new(pid, spec.parent, shown_argv, self.wall_now()));
        let me = info.clone();
        // A pooled thread: most actions start a process or two and end in well under a
        // millisecond, so creating (and mapping a stack for) a thread each time is a cost
        // worth avoiding.
        let handle = super::threads::spawn("guest", stack, move || {
            let code = match program {
                Some(p) => action.run_program(&p, spec, me.clone()),
                None => process::run(&shared, &action, spec, me.clone()),
            };
            me.mark_ended();
            action.live.fetch_sub(1, Ordering::SeqCst);
            // A parent may be waiting for this process in the host.
            action.wake_all();
            if let Some(tx) = on_exit {
                let _ = tx.send(code);
            }
            code
        });
        match handle {
            Ok(task) => {
                children.insert(pid, Child { task, info });
                Ok(pid)
            }
            Err(_) => {
                self.live.fetch_sub(1, Ordering::SeqCst);
                Err(SpawnRefused)
            }
        }
    }

    /// Waits for a process started by [`ActionState::spawn`] on behalf of `waiter`.
    pub fn wait(&self, pid: u32, waiter: &ProcInfo) -> Result<i32, WaitFailed> {
        self.wait_until(pid, waiter, None)
    }

    /// [`ActionState::wait`], giving up at `deadline` (`WaitFailed::StillRunning`).
    pub fn wait_until(
        &self,
        pid: u32,
        waiter: &ProcInfo,
        deadline: Option<Instant>,
    ) -> Result<i32, WaitFailed> {
        let info = {
            let children = self.children.lock().unwrap_or_else(|e| e.into_inner());
            children.get(&pid).ok_or(WaitFailed::NoChild)?.info.clone()
        };
        {
            let mut guard = self.wakeup.0.lock().unwrap_or_else(|e| e.into_inner());
            // The exiting thread marks itself ended, then notifies under this lock: checked
            // under the lock, no wake-up is missed (the timeout is only a safety net).
            while !info.has_ended() {
                if waiter.killed_by().is_some() || self.cancelled.load(Ordering::SeqCst) {
                    return Err(WaitFailed::Interrupted);
                }
                let mut nap = Duration::from_millis(100);
                if let Some(d) = deadline {
                    let now = Instant::now();
                    if now >= d {
                        return Err(WaitFailed::StillRunning);
                    }
                    nap = nap.min(d - now);
                }
                guard = self
                    .wakeup
                    .1
                    .wait_timeout(guard, nap)
                    .unwrap_or_else(|e| e.into_inner())
                    .0;
            }
        }
        let child = self
            .children
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .remove(&pid)
            .ok_or(WaitFailed::NoChild)?;
        Ok(child.task.join().unwrap_or(process::status::ABORTED))
    }

    /// Joins every guest thread of the action, waiting until `deadline`; false when one is
    /// still running then (it is left detached).
    fn join_all(&self, deadline: Instant) -> bool {
        let mut all_ended = true;
        loop {
            let handles: Vec<_> = self
                .children
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .drain()
                .map(|(_, c)| c.task)
                .collect();
            if handles.is_empty() {
                return all_ended;
            }
            for h in handles {
                if h.wait_timeout(deadline.saturating_duration_since(Instant::now())) {
                    let _ = h.join();
                } else {
                    tracing::warn!("a guest thread outlived its action; leaving it detached");
                    all_ended = false;
                }
            }
            if Instant::now() >= deadline {
                return all_ended;
            }
        }
    }
}

/// The pinned clock's time, or the host's when the episode has no pinned clock.
fn wall_clock_now(clock: Option<&SharedClock>) -> Duration {
    use wasmtime_wasi::HostWallClock;
    match clock {
        Some(c) => c.now(),
        None => std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap_or_default(),
    }
}

/// A process's thread and its record in the process table.
struct Child {
    task: Task<i32>,
    info: Arc<ProcInfo>,
}

/// Why [`ActionState::wait`] returned without a status.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum WaitFailed {
    /// No such child (never spawned, or already waited for).
    NoChild,
    /// The waiting process was signalled or the action cancelled: it must end now.
    Interrupted,
    /// The deadline passed first.
    StillRunning,
}

/// A spawn refused because the action is over or a process limit was reached.
#[derive(Debug)]
pub(crate) struct SpawnRefused;

/// What one action observed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RunOutcome {
    /// stdout and stderr interleaved in the order they were written.
    pub output: Vec<u8>,
    /// Bytes dropped beyond [`Limits::output_bytes`].
    pub truncated_bytes: u64,
    pub status: RunStatus,
    /// Processes started, the root included.
    pub processes: u32,
    /// What the root wrote to its report handle (handle 3), when asked for.
    pub report: Option<Vec<u8>>,
    /// A guest thread did not end within the grace period after the action and was left
    /// running detached: it may still write into the episode's files.
    pub left_running: bool,
}

/// How an action ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RunStatus {
    Exited(i32),
    TimedOut,
    /// The request's [`Watch`] stopped it, for this reason.
    Stopped(String),
}

impl RunOutcome {
    pub fn exit_code(&self) -> Option<i32> {
        match self.status {
            RunStatus::Exited(c) => Some(c),
            RunStatus::TimedOut | RunStatus::Stopped(_) => None,
        }
    }
}

/// What to run as the root of an action.
#[derive(Debug, Clone)]
pub struct RunRequest {
    pub argv: Vec<String>,
    pub env: Vec<(String, String)>,
    pub cwd: String,
    /// Bytes on the root's stdin; `None` is an empty stdin (upstream had no TTY and no stdin).
    pub stdin: Option<Vec<u8>>,
    /// Give the root a report pipe as handle 3 (the shell writes its final cwd and state
    /// there when `INTERCODE_REPORT_HANDLE=3` is in its environment).
    pub report: bool,
    /// Asked every [`WATCH_EVERY`] while the action runs; a reason stops the action
    /// ([`RunStatus::Stopped`]). The bash env watches the episode's disk use with it.
    pub watch: Option<Watch>,
}

/// A check run while an action runs (see [`RunRequest::watch`]).
#[derive(Clone)]
pub struct Watch(pub Arc<dyn Fn() -> Option<String> + Send + Sync>);

impl std::fmt::Debug for Watch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Watch(..)")
    }
}

/// How often a [`Watch`] is asked (at least; a slow check is asked less often). Short
/// actions end before it is asked at all.
pub const WATCH_EVERY: Duration = Duration::from_millis(10);

/// Waits for the root's exit code until the timeout (plus the action's excused time), asking
/// the watch now and then.
fn wait_for_root(
    rx: &std::sync::mpsc::Receiver<i32>,
    action: &ActionState,
    timeout: Duration,
    watch: Option<&Watch>,
) -> RunStatus {
    let start = Instant::now();
    let mut every = WATCH_EVERY;
    loop {
        let now = Instant::now();
        let mut deadline = start + timeout + action.excused();
        if now >= deadline {
            if action.loading.load(Ordering::SeqCst) == 0 {
                return RunStatus::TimedOut;
            }
            // A module is still loading: look again shortly (its time is excused once known).
            deadline = now + WATCH_EVERY;
        }
        let wait = match watch {
            Some(_) => every.min(deadline - now),
            None => deadline - now,
        };
        match rx.recv_timeout(wait) {
            Ok(code) => return RunStatus::Exited(code),
            Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => return RunStatus::TimedOut,
            Err(std::sync::mpsc::RecvTimeoutError::Timeout) => {}
        }
        if let Some(w) = watch {
            let asked = Instant::now();
            if let Some(reason) = (w.0)() {
                return RunStatus::Stopped(reason);
            }
            // Keep the check under ~20% of the time, however big the tree grows.
            every = WATCH_EVERY.max(asked.elapsed() * 4);
        }
    }
}

fn pipe_files() -> std::io::Result<(File, File)> {
    let (r, w) = std::io::pipe()?;
    Ok((
        File::from(std::os::fd::OwnedFd::from(r)),
        File::from(std::os::fd::OwnedFd::from(w)),
    ))
}

#[derive(Default)]
struct Captured {
    kept: Vec<u8>,
    dropped: u64,
}

/// Reads the capture pipe to its end, keeping at most `cap` bytes (the rest is counted and
/// dropped so a flooding writer never blocks and never grows our memory).
fn drain(mut reader: File, cap: usize, into: Arc<Mutex<Captured>>) {
    let mut buf = vec![0u8; 64 * 1024];
    loop {
        match reader.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => {
                let mut c = into.lock().unwrap_or_else(|e| e.into_inner());
                let room = cap.saturating_sub(c.kept.len());
                let take = room.min(n);
                c.kept.extend_from_slice(&buf[..take]);
                c.dropped += (n - take) as u64;
            }
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(_) => break,
        }
    }
}

/// The report holds a path and the shell's variables and functions; 4 MiB is far beyond any
/// real state and bounds what a hostile script can make the host keep.
const REPORT_CAP: u64 = 4 << 20;

/// How long stragglers get to die after cancellation before we stop waiting for them.
const GRACE: Duration = Duration::from_secs(2);
/// Stack of the threads that feed stdin and read the output and report pipes (pooled, like the
/// guests' threads).
const IO_THREAD_STACK: usize = 256 << 10;

pub(crate) fn run_action(
    shared: &Arc<Shared>,
    programs: &Programs,
    root_path: PathBuf,
    root_dir: cap_std::fs::Dir,
    clock: Option<SharedClock>,
    req: &RunRequest,
    limits: &Limits,
) -> crate::Result<RunOutcome> {
    let started_at = wall_clock_now(clock.as_ref());
    let action = Arc::new(ActionState {
        root_path,
        root_dir,
        limits: limits.clone(),
        clock,
        cancelled: AtomicBool::new(false),
        live: AtomicU32::new(0),
        started: AtomicU32::new(0),
        next_pid: AtomicU32::new(2),
        children: Mutex::new(HashMap::new()),
        started_at,
        wakeup: (Mutex::new(()), Condvar::new()),
        programs: programs.clone(),
        memory_held: AtomicUsize::new(0),
        excused_ns: AtomicU64::new(0),
        loading: AtomicUsize::new(0),
    });
    let (cap_r, cap_w) = pipe_files()?;
    let (in_r, in_w) = pipe_files()?;
    let stdin_bytes = req.stdin.clone().unwrap_or_default();
    let feeder = super::threads::spawn("action-io", IO_THREAD_STACK, move || {
        use std::io::Write;
        let mut w = in_w;
        let _ = w.write_all(&stdin_bytes);
    })?;
    let cap = limits.output_bytes;
    let captured = Arc::new(Mutex::new(Captured::default()));
    let sink = captured.clone();
    let drainer = super::threads::spawn("action-io", IO_THREAD_STACK, move || {
        drain(cap_r, cap, sink)
    })?;

    let (report_reader, extra) = if req.report {
        let (r, w) = pipe_files()?;
        let reader = super::threads::spawn("action-io", IO_THREAD_STACK, move || {
            let mut r = r;
            let mut buf = Vec::new();
            let _ = std::io::Read::take(&mut r, REPORT_CAP).read_to_end(&mut buf);
            buf
        })?;
        (Some(reader), vec![w])
    } else {
        (None, Vec::new())
    };
    let spec = ProcessSpec {
        argv: req.argv.clone(),
        env: req.env.clone(),
        cwd: req.cwd.clone(),
        stdio: [in_r, cap_w.try_clone()?, cap_w],
        extra,
        parent: 0,
    };
    let (tx, rx) = std::sync::mpsc::channel();
    action.spawn_notify(shared, spec, Some(tx)).map_err(|_| {
        crate::Error::Runtime("could not start the root process of the action".into())
    })?;
    let status = wait_for_root(&rx, &action, limits.timeout, req.watch.as_ref());
    // Background jobs and anything still running end with the action.
    action.cancel();
    let grace = Instant::now() + GRACE;
    let all_ended = action.join_all(grace);
    // The feeder ends when the processes holding stdin are gone (its write fails then).
    feeder.wait_timeout(grace.saturating_duration_since(Instant::now()));
    if drainer.wait_timeout(grace.saturating_duration_since(Instant::now())) {
        let _ = drainer.join();
    } else {
        tracing::warn!("output pipe still open after the grace period; keeping what was read");
    }
    let c = std::mem::take(&mut *captured.lock().unwrap_or_else(|e| e.into_inner()));
    let report = match report_reader {
        Some(h)
            if h.is_finished()
                || (matches!(status, RunStatus::Exited(_))
                    && h.wait_timeout(grace.saturating_duration_since(Instant::now()))) =>
        {
            h.join().ok()
        }
        _ => None,
    };
    Ok(RunOutcome {
        output: c.kept,
        truncated_bytes: c.dropped,
        status,
        processes: action.started.load(Ordering::SeqCst),
        report,
        left_running: !all_ended,
    })
}
