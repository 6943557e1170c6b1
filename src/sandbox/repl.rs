//! A long-lived guest process that serves requests one at a time (the Python REPL): the host
//! hands it a request through the import `intercode_python.next_request`, the guest answers
//! through `intercode_python.reply`, and whatever it printed on stdout and stderr meanwhile is
//! returned with the answer. Requests never travel over stdin, so guest code can neither forge
//! nor swallow one.
//!
//! * One thread per process runs the instance to its end; the host talks to it over channels.
//! * A request has a deadline. When it passes, the process is cancelled: the guest traps at its
//!   next epoch check (within [`EPOCH_TICK`](super::limits::EPOCH_TICK)), and a guest waiting in
//!   `poll_oneoff` (`time.sleep`) is woken, so no busy or sleeping thread outlives the request.
//!   The process (and its state) is gone afterwards; the caller decides how to rebuild it.
//! * Memory is capped per process; a refused `memory.grow` is remembered so that the death it
//!   causes (the guest aborts) is reported as [`Ended::MemoryLimit`].
//! * Output is capped per request and per stream; the rest is counted and dropped.
//! * The WASI context grants nothing: no files, no env vars, no arguments beyond argv, closed
//!   stdin, no sockets, deterministic random bytes. So the only descriptors a guest can write
//!   to are stdout and stderr, and their `fd_write` is ours (see [`fd_write`]).
//!
//! This file knows nothing of Python beyond the import module's name.

use super::cache;
use bytes::Bytes;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{Receiver, RecvTimeoutError, Sender, channel};
use std::sync::{Arc, Condvar, Mutex};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};
use wasmtime::{
    Caller, Config, Engine, InstanceAllocationStrategy, InstancePre, Linker, Memory,
    PoolingAllocationConfig, ResourceLimiter, Store, Trap, UpdateDeadline,
};
use wasmtime_wasi::cli::{IsTerminal, StdoutStream};
use wasmtime_wasi::p1::WasiP1Ctx;
use wasmtime_wasi::p2::{OutputStream, Pollable, StreamResult};
use wasmtime_wasi::{I32Exit, WasiCtxBuilder};

/// The import module through which requests and replies travel.
const IMPORT_MODULE: &str = "intercode_python";

/// Wasm stack a guest may use. RustPython's frames are large: at the default 512 KiB a Python
/// recursion of a few hundred calls overflows; 64 MiB leaves Python's own limit (1000) in
/// charge with room to spare.
const MAX_WASM_STACK: usize = 64 << 20;
/// Native stack of the thread that runs a guest: the wasm stack plus room for the host calls.
pub(crate) const THREAD_STACK: usize = MAX_WASM_STACK + (8 << 20);
/// How long a cancelled process gets to die before we stop waiting for its thread.
const GRACE: Duration = Duration::from_secs(2);

/// A compiled request-serving guest module. Cheap to clone.
#[derive(Clone)]
pub struct ReplModule {
    shared: Arc<ReplShared>,
}

struct ReplShared {
    engine: Engine,
    pre: InstancePre<ReplState>,
    /// The guest as built (before instrumentation), for snapshots.
    wasm: &'static [u8],
    wasm_hash: String,
}

/// How to start one process.
#[derive(Debug, Clone)]
pub struct ReplSpec {
    pub argv: Vec<String>,
    /// Linear-memory cap of the process.
    pub memory_bytes: usize,
    /// Bytes kept per stream and request.
    pub output_bytes: usize,
}

impl Default for ReplSpec {
    fn default() -> Self {
        ReplSpec {
            argv: vec!["guest".into()],
            memory_bytes: 512 << 20,
            output_bytes: 1 << 20,
        }
    }
}

/// What a stream received during one request.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Captured {
    pub bytes: Vec<u8>,
    /// Bytes dropped beyond [`ReplSpec::output_bytes`].
    pub dropped: u64,
}

/// How a process ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Ended {
    /// `proc_exit` or a return from `main`.
    Exited(i32),
    /// Cancelled by the host (a request's deadline passed, or the process was dropped).
    Cancelled,
    /// A `memory.grow` beyond [`ReplSpec::memory_bytes`] was refused and the guest died of it.
    MemoryLimit,
    /// The wasm stack, or the guest's own shadow stack in linear memory, ran out.
    StackOverflow,
    /// Any other trap (an abort, an out-of-bounds access); the message is for logs.
    Trapped(String),
}

/// The result of one request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    Replied {
        reply: Vec<u8>,
        stdout: Captured,
        stderr: Captured,
    },
    /// The deadline passed; the process was cancelled and is gone.
    TimedOut { stdout: Captured, stderr: Captured },
    /// The process ended before it replied.
    Died {
        ended: Ended,
        stdout: Captured,
        stderr: Captured,
    },
}

/// State shared by the host side of a process and its store.
struct Control {
    cancelled: AtomicBool,
    wake: (Mutex<()>, Condvar),
    stdout: Mutex<Captured>,
    stderr: Mutex<Captured>,
    cap: usize,
    memory_refused: AtomicBool,
}

impl Control {
    fn cancel(&self) {
        self.cancelled.store(true, Ordering::SeqCst);
        let _guard = self.wake.0.lock().unwrap_or_else(|e| e.into_inner());
        self.wake.1.notify_all();
    }

    fn take(&self) -> (Captured, Captured) {
        let take =
            |m: &Mutex<Captured>| std::mem::take(&mut *m.lock().unwrap_or_else(|e| e.into_inner()));
        (take(&self.stdout), take(&self.stderr))
    }

    /// Keeps what the guest wrote to stdout or stderr, up to the cap; the rest is counted.
    fn push(&self, stderr: bool, bytes: &[u8]) {
        let target = if stderr { &self.stderr } else { &self.stdout };
        let mut c = target.lock().unwrap_or_else(|e| e.into_inner());
        let room = self.cap.saturating_sub(c.bytes.len());
        let take = room.min(bytes.len());
        c.bytes.extend_from_slice(&bytes[..take]);
        c.dropped += (bytes.len() - take) as u64;
    }

    /// Sleeps until `deadline` or cancellation; false when cancelled.
    fn sleep_until(&self, deadline: Instant) -> bool {
        super::poll::sleep_until(&self.wake, &self.cancelled, deadline)
    }
}

struct ReplState {
    wasi: WasiP1Ctx,
    control: Arc<Control>,
    requests: Receiver<Vec<u8>>,
    /// A request too big for the guest's buffer, kept until it asks again with a bigger one.
    pending: Option<Vec<u8>>,
    replies: Sender<(Vec<u8>, Captured, Captured)>,
    memory_bytes: usize,
}

impl ResourceLimiter for ReplState {
    fn memory_growing(
        &mut self,
        _current: usize,
        desired: usize,
        _maximum: Option<usize>,
    ) -> wasmtime::Result<bool> {
        let ok = desired <= self.memory_bytes;
        if !ok {
            self.control.memory_refused.store(true, Ordering::SeqCst);
        }
        Ok(ok)
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

/// A running process. Dropping it cancels the process.
pub struct ReplProcess {
    requests: Option<Sender<Vec<u8>>>,
    replies: Receiver<(Vec<u8>, Captured, Captured)>,
    control: Arc<Control>,
    thread: Option<super::threads::Task<Ended>>,
    ended: Option<Ended>,
}

impl ReplModule {
    /// Compiles (or loads from the on-disk cache) a guest module that imports
    /// `intercode_python.{next_request, reply}`. What runs is the module instrumented for
    /// snapshots (see [`super::snapshot`]): the same code with its state exported.
    pub fn new(wasm: &'static [u8], wasm_hash: &str) -> crate::Result<ReplModule> {
        let mut config = Config::new();
        config.epoch_interruption(true);
        config.max_wasm_stack(MAX_WASM_STACK);
        // Not used (calls are synchronous), but wasmtime requires it to exceed the wasm stack.
        config.async_stack_size(MAX_WASM_STACK + (1 << 20));
        // A snapshot's memory is one image mapped copy-on-write, however sparse: without this,
        // images over 16 MiB with gaps are copied into every new instance instead.
        config.memory_guaranteed_dense_image_size(MAX_IMAGE_BYTES);
        config.allocation_strategy(InstanceAllocationStrategy::Pooling(pool_config()));
        super::perf_map_if_asked(&mut config);
        let engine = Engine::new(&config)?;
        let module = cache::load_or_build(&engine, &format!("{wasm_hash}-instrumented"), || {
            super::snapshot::instrument(wasm)
        })?;
        let pre = linker(&engine)?.instantiate_pre(&module)?;
        super::start_epoch_ticker(&engine);
        Ok(ReplModule {
            shared: Arc::new(ReplShared {
                engine,
                pre,
                wasm,
                wasm_hash: wasm_hash.to_string(),
            }),
        })
    }

    /// This module started from a snapshot: a process of it is taken through `init_func` (an
    /// export that does the guest's start-up, driven by `setup`'s requests, and returns when
    /// `setup` says so), then its memory and globals become the new module's initial state.
    /// Cached on disk under `key` (which must name everything `setup` sends), so the work is
    /// done once per machine. Processes of the result begin where `init_func` returned.
    pub fn preinitialized(
        &self,
        key: &str,
        init_func: &str,
        spec: &ReplSpec,
        setup: impl FnOnce(&mut ReplProcess) -> crate::Result<()>,
    ) -> crate::Result<ReplModule> {
        let shared = &self.shared;
        let name = format!("{}-snapshot-{key}", shared.wasm_hash);
        let module = cache::load_or_build(&shared.engine, &name, || {
            let taken: Arc<Mutex<Option<crate::Result<Vec<u8>>>>> = Arc::default();
            let slot = taken.clone();
            let export = init_func.to_string();
            let mut process = self.spawn(spec, move |shared, state| {
                let (ended, bytes) = run_init(shared, state, &export);
                *slot.lock().unwrap_or_else(|e| e.into_inner()) = bytes;
                ended
            })?;
            setup(&mut process)?;
            process.wait_for_end(STARTUP_TIMEOUT);
            let ended = process.ended().cloned();
            let bytes = taken.lock().unwrap_or_else(|e| e.into_inner()).take();
            bytes.unwrap_or_else(|| {
                Err(crate::Error::Guest(format!(
                    "the guest did not return from {init}: {ended:?}",
                    init = init_func
                )))
            })
        })?;
        let pre = linker(&shared.engine)?.instantiate_pre(&module)?;
        Ok(ReplModule {
            shared: Arc::new(ReplShared {
                engine: shared.engine.clone(),
                pre,
                wasm: shared.wasm,
                wasm_hash: shared.wasm_hash.clone(),
            }),
        })
    }

    /// The engine the module was compiled for (its epoch ticker runs already).
    pub(crate) fn engine(&self) -> &Engine {
        &self.shared.engine
    }

    /// The compiled module, for other linkers on [`ReplModule::engine`].
    pub(crate) fn module(&self) -> &wasmtime::Module {
        self.shared.pre.module()
    }

    /// Starts a process on its own thread. It runs until it waits for its first request.
    pub fn start(&self, spec: &ReplSpec) -> crate::Result<ReplProcess> {
        self.spawn(spec, run)
    }

    /// A process whose thread runs `body` (instantiation and the call into the guest).
    fn spawn(
        &self,
        spec: &ReplSpec,
        body: impl FnOnce(&ReplShared, ReplState) -> Ended + Send + 'static,
    ) -> crate::Result<ReplProcess> {
        let control = Arc::new(Control {
            cancelled: AtomicBool::new(false),
            wake: (Mutex::new(()), Condvar::new()),
            stdout: Mutex::new(Captured::default()),
            stderr: Mutex::new(Captured::default()),
            cap: spec.output_bytes,
            memory_refused: AtomicBool::new(false),
        });
        let (req_tx, req_rx) = channel();
        let (rep_tx, rep_rx) = channel();

        let mut builder = WasiCtxBuilder::new();
        builder
            .args(&spec.argv)
            .allow_blocking_current_thread(true)
            .allow_tcp(false)
            .allow_udp(false)
            .allow_ip_name_lookup(false)
            .stdout(CaptureStream {
                control: control.clone(),
                stderr: false,
            })
            .stderr(CaptureStream {
                control: control.clone(),
                stderr: true,
            });
        // Reproducible episodes: `random` and `os.urandom` give the same bytes every run.
        builder.secure_random(wasmtime_wasi::Deterministic::new(vec![7, 42, 99, 3]));
        builder.insecure_random_seed(0x1c0de);
        let state = ReplState {
            wasi: builder.build_p1(),
            control: control.clone(),
            requests: req_rx,
            pending: None,
            replies: rep_tx,
            memory_bytes: spec.memory_bytes,
        };
        let shared = self.shared.clone();
        let thread =
            super::threads::spawn("repl-guest", THREAD_STACK, move || body(&shared, state))?;
        Ok(ReplProcess {
            requests: Some(req_tx),
            replies: rep_rx,
            control,
            thread: Some(thread),
            ended: None,
        })
    }
}

/// Interpreters alive at once in this process (episodes, warm pools, golds, forks, and the
/// bash sandbox's `python3` processes).
const POOL_INSTANCES: u32 = 256;
/// Linear memory a slot can hold: all that wasm32 can address, so any
/// [`ReplSpec::memory_bytes`] fits (the limiter enforces the real cap).
const POOL_MAX_MEMORY: usize = 4 << 30;
/// Bytes of a slot's memory restored in place (only the pages written, where the kernel can
/// tell) when an interpreter ends, rather than handed back to the kernel: RustPython's heap
/// after start-up plus what a typical episode adds.
const KEEP_RESIDENT: usize = 64 << 20;

/// Memory slots reused from one interpreter to the next. Each new interpreter of a snapshot
/// used to map the snapshot copy-on-write into fresh memory: RustPython's reference counts
/// write to nearly every page it reads, so each such page took a write fault whose TLB flush
/// interrupted the other cores, and the memory was unmapped at the end (profiled: most of an
/// MBPP gold sweep's time). A pooled slot keeps its pages; ending an interpreter copies the
/// snapshot back over just the pages it wrote.
fn pool_config() -> PoolingAllocationConfig {
    let mut pool = PoolingAllocationConfig::default();
    pool.total_core_instances(POOL_INSTANCES)
        .total_memories(POOL_INSTANCES)
        .total_tables(POOL_INSTANCES)
        .total_stacks(POOL_INSTANCES)
        .max_memory_size(POOL_MAX_MEMORY)
        .table_elements(200_000)
        .max_core_instance_size(16 << 20)
        .linear_memory_keep_resident(KEEP_RESIDENT)
        .table_keep_resident(1 << 20)
        .pagemap_scan(wasmtime::Enabled::Auto);
    pool
}

/// Images above this are refused a snapshot's copy-on-write mapping (see `new`).
const MAX_IMAGE_BYTES: u64 = 1 << 30;

/// How long a snapshot's init function may take after its last request was answered.
const STARTUP_TIMEOUT: Duration = Duration::from_secs(60);

/// WASI preview 1 with this module's sleeps and exits, plus the request imports.
fn linker(engine: &Engine) -> wasmtime::Result<Linker<ReplState>> {
    let mut linker: Linker<ReplState> = Linker::new(engine);
    wasmtime_wasi::p1::add_to_linker_sync(&mut linker, |s: &mut ReplState| &mut s.wasi)?;
    linker.allow_shadowing(true);
    linker.func_wrap(
        "wasi_snapshot_preview1",
        "proc_exit",
        |code: i32| -> wasmtime::Result<()> { Err(I32Exit(code).into()) },
    )?;
    linker.func_wrap("wasi_snapshot_preview1", "poll_oneoff", poll_oneoff)?;
    linker.func_wrap("wasi_snapshot_preview1", "fd_write", fd_write)?;
    linker.func_wrap(IMPORT_MODULE, "next_request", next_request)?;
    linker.func_wrap(IMPORT_MODULE, "reply", reply)?;
    Ok(linker)
}

fn new_store(shared: &ReplShared, state: ReplState) -> Store<ReplState> {
    let mut store = Store::new(&shared.engine, state);
    store.limiter(|s| s);
    store.set_epoch_deadline(1);
    store.epoch_deadline_callback(|ctx| {
        if ctx.data().control.cancelled.load(Ordering::Relaxed) {
            Ok(UpdateDeadline::Interrupt)
        } else {
            Ok(UpdateDeadline::Continue(1))
        }
    });
    store
}

/// The thread of a process being snapshotted: calls `init_func` instead of `_start` and, once
/// it returns, the snapshot.
fn run_init(
    shared: &ReplShared,
    state: ReplState,
    init_func: &str,
) -> (Ended, Option<crate::Result<Vec<u8>>>) {
    let control = state.control.clone();
    let mut store = new_store(shared, state);
    let result = shared.pre.instantiate(&mut store).and_then(|instance| {
        let init = instance.get_typed_func::<(), ()>(&mut store, init_func)?;
        init.call(&mut store, ())?;
        Ok(instance)
    });
    match result {
        Ok(instance) => {
            let bytes = super::snapshot::snapshot(shared.wasm, init_func, &mut store, instance);
            (Ended::Exited(0), Some(bytes))
        }
        Err(e) => (ended_by(&control, e), None),
    }
}

fn run(shared: &ReplShared, state: ReplState) -> Ended {
    let control = state.control.clone();
    let mut store = new_store(shared, state);
    let result = shared.pre.instantiate(&mut store).and_then(|instance| {
        let start = instance.get_typed_func::<(), ()>(&mut store, "_start")?;
        start.call(&mut store, ())
    });
    match result {
        Ok(()) => Ended::Exited(0),
        Err(e) => ended_by(&control, e),
    }
}

/// How a process whose guest call failed with `e` ended.
fn ended_by(control: &Control, e: wasmtime::Error) -> Ended {
    if let Some(exit) = e.downcast_ref::<I32Exit>() {
        Ended::Exited(exit.0)
    } else if control.memory_refused.load(Ordering::SeqCst) {
        Ended::MemoryLimit
    } else if control.cancelled.load(Ordering::SeqCst) {
        Ended::Cancelled
    } else {
        let message = format!("{e:#}");
        match e.downcast_ref::<Trap>() {
            Some(Trap::StackOverflow) => Ended::StackOverflow,
            Some(Trap::MemoryOutOfBounds) if shadow_stack_overflow(&message) => {
                Ended::StackOverflow
            }
            Some(Trap::Interrupt) => Ended::Cancelled,
            _ => Ended::Trapped(message),
        }
    }
}

/// Whether an out-of-bounds trap is the guest's shadow stack running out. Rust places that
/// stack first in linear memory, growing down towards address 0, so an overflow wraps around
/// to an address just under 4 GiB, far above any memory a guest may have.
fn shadow_stack_overflow(message: &str) -> bool {
    message
        .split("wasm address 0x")
        .nth(1)
        .and_then(|rest| rest.split(' ').next())
        .and_then(|hex| u64::from_str_radix(hex, 16).ok())
        .is_some_and(|addr| addr >= 0xf000_0000)
}

impl ReplProcess {
    /// Sends one request and waits for its reply, at most `timeout`.
    pub fn request(&mut self, request: Vec<u8>, timeout: Duration) -> Outcome {
        if let Some(ended) = &self.ended {
            return Outcome::Died {
                ended: ended.clone(),
                stdout: Captured::default(),
                stderr: Captured::default(),
            };
        }
        // Output written between requests (there should be none) is not this request's.
        let _ = self.control.take();
        let sent = self
            .requests
            .as_ref()
            .is_some_and(|tx| tx.send(request).is_ok());
        if !sent {
            return self.died();
        }
        match self.replies.recv_timeout(timeout) {
            Ok((reply, stdout, stderr)) => Outcome::Replied {
                reply,
                stdout,
                stderr,
            },
            Err(RecvTimeoutError::Timeout) => {
                self.kill();
                let (stdout, stderr) = self.control.take();
                Outcome::TimedOut { stdout, stderr }
            }
            Err(RecvTimeoutError::Disconnected) => self.died(),
        }
    }

    /// Whether the process can still take requests.
    pub fn is_alive(&self) -> bool {
        self.ended.is_none() && self.thread.as_ref().is_some_and(|t| !t.is_finished())
    }

    /// Waits up to `timeout` for the process to end by itself (no cancellation).
    fn wait_for_end(&mut self, timeout: Duration) {
        if let Some(t) = &self.thread {
            t.wait_timeout(timeout);
        }
        self.join();
    }

    /// How the process ended, once it has.
    pub fn ended(&self) -> Option<&Ended> {
        self.ended.as_ref()
    }

    /// Cancels the process and waits (briefly) for its thread.
    pub fn kill(&mut self) {
        self.control.cancel();
        self.requests = None;
        self.join();
        if self.ended.is_none() {
            self.ended = Some(Ended::Cancelled);
        }
    }

    fn died(&mut self) -> Outcome {
        self.requests = None;
        self.join();
        let (stdout, stderr) = self.control.take();
        Outcome::Died {
            ended: self
                .ended
                .clone()
                .unwrap_or(Ended::Trapped("the guest thread was lost".into())),
            stdout,
            stderr,
        }
    }

    fn join(&mut self) {
        let Some(thread) = self.thread.take() else {
            return;
        };
        if thread.wait_timeout(GRACE) {
            self.ended = Some(
                thread
                    .join()
                    .unwrap_or(Ended::Trapped("the guest thread panicked".into())),
            );
        } else {
            tracing::warn!("a python guest outlived its cancellation; leaving its thread detached");
        }
    }
}

impl Drop for ReplProcess {
    fn drop(&mut self) {
        // Closing the request channel ends a guest that waits for a request; cancelling ends
        // one that is still running. Neither needs us to wait.
        self.control.cancel();
        self.requests = None;
    }
}

// ---- host imports -----------------------------------------------------------------------

fn memory(caller: &mut Caller<'_, ReplState>) -> wasmtime::Result<Memory> {
    caller
        .get_export("memory")
        .and_then(|e| e.into_memory())
        .ok_or_else(|| wasmtime::Error::msg("the guest exports no memory"))
}

/// `next_request(buf, cap) -> len`: blocks for the next request (see the module docs).
fn next_request(mut caller: Caller<'_, ReplState>, buf: u32, cap: u32) -> wasmtime::Result<i32> {
    let request = match caller.data_mut().pending.take() {
        Some(r) => r,
        None => match caller.data().requests.recv() {
            Ok(r) => r,
            Err(_) => return Ok(-1),
        },
    };
    let len = i32::try_from(request.len())
        .map_err(|_| wasmtime::Error::msg("request larger than 2 GiB"))?;
    if request.len() > cap as usize {
        caller.data_mut().pending = Some(request);
        return Ok(len);
    }
    let mem = memory(&mut caller)?;
    mem.write(&mut caller, buf as usize, &request)?;
    Ok(len)
}

/// `reply(ptr, len)`: the answer to the last request, sent with the output captured since.
fn reply(mut caller: Caller<'_, ReplState>, ptr: u32, len: u32) -> wasmtime::Result<()> {
    let mem = memory(&mut caller)?;
    // Bounds-checked against the guest's memory before anything is allocated.
    let bytes = mem
        .data(&caller)
        .get(ptr as usize..(ptr as usize).saturating_add(len as usize))
        .ok_or_else(|| wasmtime::Error::msg("reply out of the guest's memory"))?
        .to_vec();
    let (stdout, stderr) = caller.data().control.take();
    // A host that went away just means nobody reads the answer.
    let _ = caller.data().replies.send((bytes, stdout, stderr));
    Ok(())
}

/// WASI `fd_write` for stdout and stderr, the only descriptors a process can write to (it has no
/// files or sockets). The harness's streams write through (so that what an action printed
/// before a timeout is kept), which makes a write per `write` call, two per `print`;
/// wasmtime-wasi's path for it goes through its async stream machinery. This copies the guest's buffers
/// straight into the capture: measured on 200,000 printed lines, about 0.4 µs less per line
/// (CPU time, 5%); the rest of a line's cost is the interpreter's own.
fn fd_write(
    mut caller: Caller<'_, ReplState>,
    fd: i32,
    iovs: u32,
    iovs_len: u32,
    nwritten: u32,
) -> wasmtime::Result<i32> {
    let stderr = match fd {
        1 => false,
        2 => true,
        _ => return Ok(hostcalls::errno::EBADF),
    };
    let mem = memory(&mut caller)?;
    let (data, state) = mem.data_and_store_mut(&mut caller);
    let Some(written) = write_iovecs(data, iovs, iovs_len, |bytes| {
        state.control.push(stderr, bytes)
    }) else {
        return Ok(hostcalls::errno::EFAULT);
    };
    match data.get_mut(nwritten as usize..(nwritten as usize).saturating_add(4)) {
        Some(out) => out.copy_from_slice(&written.to_le_bytes()),
        None => return Ok(hostcalls::errno::EFAULT),
    }
    Ok(0)
}

/// Hands each buffer of a WASI iovec array (`ptr: u32, len: u32` pairs) to `sink`; the bytes
/// handed over, or `None` when the array or a buffer lies outside `memory` (nothing is handed
/// over then).
fn write_iovecs(memory: &[u8], iovs: u32, count: u32, mut sink: impl FnMut(&[u8])) -> Option<u32> {
    let u32_at = |at: usize| -> Option<u32> {
        let b = memory.get(at..at.checked_add(4)?)?;
        Some(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    };
    let mut buffers = Vec::with_capacity(count.min(16) as usize);
    let mut total: u32 = 0;
    for i in 0..count as usize {
        let at = (iovs as usize).checked_add(i.checked_mul(8)?)?;
        let (ptr, len) = (u32_at(at)? as usize, u32_at(at + 4)?);
        buffers.push(memory.get(ptr..ptr.checked_add(len as usize)?)?);
        total = total.checked_add(len)?;
    }
    buffers.into_iter().for_each(&mut sink);
    Some(total)
}

/// WASI `poll_oneoff` with sleeps that the process's cancellation wakes (see [`super::poll`]).
fn poll_oneoff(
    caller: Caller<'_, ReplState>,
    subs: u32,
    events: u32,
    nsubs: u32,
    nevents_out: u32,
) -> wasmtime::Result<i32> {
    super::poll::poll_oneoff(
        caller,
        subs,
        events,
        nsubs,
        nevents_out,
        |state, deadline| state.control.sleep_until(deadline),
    )
}

// ---- capture streams --------------------------------------------------------------------

#[derive(Clone)]
struct CaptureStream {
    control: Arc<Control>,
    stderr: bool,
}

impl CaptureStream {
    fn push(&self, bytes: &[u8]) {
        self.control.push(self.stderr, bytes);
    }
}

impl IsTerminal for CaptureStream {
    fn is_terminal(&self) -> bool {
        false
    }
}

impl StdoutStream for CaptureStream {
    fn p2_stream(&self) -> Box<dyn OutputStream> {
        Box::new(self.clone())
    }

    fn async_stream(&self) -> Box<dyn tokio::io::AsyncWrite + Send + Sync> {
        Box::new(self.clone())
    }
}

#[wasmtime_wasi::async_trait]
impl Pollable for CaptureStream {
    async fn ready(&mut self) {}
}

impl OutputStream for CaptureStream {
    fn write(&mut self, bytes: Bytes) -> StreamResult<()> {
        self.push(&bytes);
        Ok(())
    }

    fn flush(&mut self) -> StreamResult<()> {
        Ok(())
    }

    fn check_write(&mut self) -> StreamResult<usize> {
        Ok(1 << 20)
    }
}

impl tokio::io::AsyncWrite for CaptureStream {
    fn poll_write(
        self: Pin<&mut Self>,
        _cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<std::io::Result<usize>> {
        self.push(buf);
        Poll::Ready(Ok(buf.len()))
    }

    fn poll_flush(self: Pin<&mut Self>, _cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Poll::Ready(Ok(()))
    }

    fn poll_shutdown(self: Pin<&mut Self>, _cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Poll::Ready(Ok(()))
    }
}

#[cfg(test)]
mod tests {
    use super::write_iovecs;

    /// Guest memory with an iovec array at 0 pointing at `bufs` laid out from 64.
    fn memory_with(bufs: &[&[u8]]) -> Vec<u8> {
        let mut mem = vec![0u8; 128];
        let mut at = 64;
        for (i, b) in bufs.iter().enumerate() {
            mem[i * 8..i * 8 + 4].copy_from_slice(&(at as u32).to_le_bytes());
            mem[i * 8 + 4..i * 8 + 8].copy_from_slice(&(b.len() as u32).to_le_bytes());
            mem[at..at + b.len()].copy_from_slice(b);
            at += b.len();
        }
        mem
    }

    #[test]
    fn every_buffer_is_handed_over_in_order() {
        let mem = memory_with(&[b"hello ", b"", b"world\n"]);
        let mut got = Vec::new();
        let n = write_iovecs(&mem, 0, 3, |b| got.extend_from_slice(b));
        assert_eq!(n, Some(12));
        assert_eq!(got, b"hello world\n");
    }

    #[test]
    fn a_buffer_outside_memory_hands_over_nothing() {
        let mut mem = memory_with(&[b"kept?", b"x"]);
        // The second buffer runs past the end of memory.
        mem[12..16].copy_from_slice(&1000u32.to_le_bytes());
        let mut got = Vec::new();
        assert_eq!(write_iovecs(&mem, 0, 2, |b| got.extend_from_slice(b)), None);
        assert!(got.is_empty());
        // So does an iovec array that itself lies outside memory, or wraps around.
        assert_eq!(write_iovecs(&mem, 124, 1, |_| unreachable!()), None);
        assert_eq!(
            write_iovecs(&mem, u32::MAX - 3, 1, |_| unreachable!()),
            None
        );
    }
}
