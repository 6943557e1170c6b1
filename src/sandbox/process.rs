//! One guest process: a fresh `Store` and instance of the multicall module, run to completion on
//! the current thread. Exit codes, traps and timeouts come back as an exit status (an
//! observation), never as an error of the host.

use super::Shared;
use super::action::ActionState;
use super::handles::HandleTable;
use super::proctable::{ProcInfo, signalled_status};
use super::stdio::{BrokenPipe, GuestOutput, StderrLines};
use std::fs::File;
use std::sync::Arc;
use std::sync::atomic::Ordering;
use wasmtime::{ResourceLimiter, Store, Trap, UpdateDeadline};
use wasmtime_wasi::cli::InputFile;
use wasmtime_wasi::p1::WasiP1Ctx;
use wasmtime_wasi::{FsPerms, I32Exit, WasiCtxBuilder};

/// Store data of one guest process.
pub(crate) struct ProcState {
    pub wasi: WasiP1Ctx,
    pub handles: HandleTable,
    pub action: Arc<ActionState>,
    pub shared: Arc<Shared>,
    /// This process's record in the action's process table (its pid, pending signal).
    pub me: Arc<ProcInfo>,
    /// Its standard error's line not yet ended, written out before its other output.
    pub stderr: Arc<StderrLines>,
    /// Linear memory this process holds from the action's budget (given back on drop).
    memory_held: usize,
}

/// Memory is checked twice: against the process's own limit and against what the action's
/// processes hold together ([`super::Limits::memory_per_action`]). A refused `memory.grow`
/// is what the guest sees (its allocator fails, the process aborts: status 134).
impl ResourceLimiter for ProcState {
    fn memory_growing(
        &mut self,
        current: usize,
        desired: usize,
        _maximum: Option<usize>,
    ) -> wasmtime::Result<bool> {
        if desired > self.action.limits.memory_per_process {
            return Ok(false);
        }
        let more = desired.saturating_sub(current);
        if !self.action.reserve_memory(more) {
            return Ok(false);
        }
        self.memory_held += more;
        Ok(true)
    }

    fn table_growing(
        &mut self,
        _current: usize,
        desired: usize,
        _maximum: Option<usize>,
    ) -> wasmtime::Result<bool> {
        Ok(desired <= 1 << 20)
    }

    fn instances(&self) -> usize {
        1
    }
    fn tables(&self) -> usize {
        4
    }
    fn memories(&self) -> usize {
        1
    }
}

impl Drop for ProcState {
    fn drop(&mut self) {
        self.action.release_memory(self.memory_held);
    }
}

/// What a process needs to start; stdio files are owned (already duplicated) by the request.
pub(crate) struct ProcessSpec {
    pub argv: Vec<String>,
    pub env: Vec<(String, String)>,
    pub cwd: String,
    pub stdio: [File; 3],
    /// Handles 3, 4, … of the new process (the root's report pipe).
    pub extra: Vec<File>,
    /// The pid of the process that spawned it (0 for the action's root).
    pub parent: u32,
}

/// Exit statuses for endings that are not a plain `exit(n)`, as bash would report them.
pub(crate) mod status {
    /// Killed by the action's cancellation (timeout, or the action ended): SIGKILL.
    pub const KILLED: i32 = 128 + 9;
    /// A trap (a panic with `panic = "abort"`, an out-of-memory abort): SIGABRT.
    pub const ABORTED: i32 = 128 + 6;
    /// Wrote to a pipe nobody reads: SIGPIPE.
    pub const BROKEN_PIPE: i32 = 128 + 13;
    /// The host could not start the process at all.
    pub const CANNOT_EXECUTE: i32 = 126;
}

/// Runs a process to completion and returns its exit status.
pub(crate) fn run(
    shared: &Arc<Shared>,
    action: &Arc<ActionState>,
    spec: ProcessSpec,
    me: Arc<ProcInfo>,
) -> i32 {
    match run_inner(shared, action, spec, me) {
        Ok(code) => code,
        Err(e) => {
            tracing::warn!("guest process failed to start: {e:#}");
            status::CANNOT_EXECUTE
        }
    }
}

fn run_inner(
    shared: &Arc<Shared>,
    action: &Arc<ActionState>,
    spec: ProcessSpec,
    me: Arc<ProcInfo>,
) -> wasmtime::Result<i32> {
    let [stdin, stdout, stderr] = spec.stdio;
    let stderr_lines = StderrLines::new(stderr.try_clone()?);
    let mut builder = WasiCtxBuilder::new();
    builder
        .args(&spec.argv)
        .allow_blocking_current_thread(true)
        .stdin(InputFile::new(stdin.try_clone()?))
        .stdout(GuestOutput::stdout(stdout.try_clone()?, &stderr_lines))
        .stderr(GuestOutput::stderr(&stderr_lines));
    // The environment is the parent's, as it arranged it; where the process starts goes in a
    // variable of its own (WASI has no cwd), which the guest takes out at start.
    for (k, v) in &spec.env {
        builder.env(k, v);
    }
    builder.env(hostcalls::CWD_VAR, &spec.cwd);
    builder.preopened_dir(&action.root_path, "/", FsPerms::ReadWrite)?;
    if let Some(clock) = &action.clock {
        builder.wall_clock(clock.clone());
    }
    // Reproducible episodes: the same random bytes every run (shuf, mktemp, $RANDOM).
    builder.secure_random(wasmtime_wasi::Deterministic::new(vec![7, 42, 99, 3]));
    builder.insecure_random_seed(0x1c0de);

    let mut handles = HandleTable::with_stdio(stdin, stdout, stderr);
    for f in spec.extra {
        handles.insert(f);
    }
    let state = ProcState {
        wasi: builder.build_p1(),
        handles,
        action: action.clone(),
        shared: shared.clone(),
        me: me.clone(),
        stderr: stderr_lines.clone(),
        memory_held: 0,
    };
    let mut store = Store::new(&shared.engine, state);
    store.limiter(|s| s);
    store.set_epoch_deadline(1);
    store.epoch_deadline_callback(|ctx| {
        let data = ctx.data();
        if data.action.cancelled.load(Ordering::Relaxed) || data.me.killed_by().is_some() {
            Ok(UpdateDeadline::Interrupt)
        } else {
            Ok(UpdateDeadline::Continue(1))
        }
    });
    if action.cancelled.load(Ordering::Relaxed) {
        return Ok(status::KILLED);
    }
    if let Some(sig) = me.killed_by() {
        return Ok(signalled_status(sig));
    }
    let instance = shared.pre.instantiate(&mut store)?;
    let start = instance.get_typed_func::<(), ()>(&mut store, "_start")?;
    let outcome = start.call(&mut store, ());
    // A line it never ended is still what it wrote.
    let _ = stderr_lines.flush();
    Ok(match outcome {
        Ok(()) => 0,
        Err(e) => match (e.downcast_ref::<Trap>(), me.killed_by()) {
            // Ended by `kill`/`timeout`: bash reports 128 + the signal.
            (Some(Trap::Interrupt), Some(sig)) => signalled_status(sig),
            _ => exit_status_of(&e),
        },
    })
}

/// Maps how a guest call ended to the status bash would show.
fn exit_status_of(e: &wasmtime::Error) -> i32 {
    if let Some(exit) = e.downcast_ref::<I32Exit>() {
        return exit.0;
    }
    if e.downcast_ref::<BrokenPipe>().is_some() {
        return status::BROKEN_PIPE;
    }
    match e.downcast_ref::<Trap>() {
        Some(Trap::Interrupt) => status::KILLED,
        _ => {
            tracing::debug!("guest trapped: {e:#}");
            status::ABORTED
        }
    }
}
