//! The InterCode-Python guest: RustPython 0.4.0 for wasm32-wasip1. It has two modes, chosen by
//! argv[0]:
//!
//! * [`REPL_ARGV0`]: the Python env's REPL, serving requests from the host (below);
//! * anything else: `python3` as a command of the bash sandbox (see [`cli`]).
//!
//! Why 0.4.0 and not 0.5.0 (the newest that builds with rustc 1.95): 0.5 packs an object's
//! strong and weak counts into one `usize` and leaves the strong count 15 bits on 32-bit
//! targets, so on wasm32 any object referenced more than 32767 times aborts the interpreter:
//! `[0] * 40000` or `list(range(100000))` (every int holds a reference to `int`) crash it.
//! 0.4.0 counts in a full `usize`.
//!
//! The host hands requests over its own imports (module `intercode_python`), never over stdin,
//! so nothing the Python code does with stdin or stdout can forge or swallow a request:
//!
//! * `next_request(buf, cap) -> len`: blocks until the host has a request; if `len > cap` the
//!   request was kept and the call is repeated with a bigger buffer; a negative `len` means the
//!   host is gone and the guest exits.
//! * `reply(ptr, len)`: the answer to the last request.
//!
//! The first request is the harness itself (Python source, `src/env/python/harness.py` in the
//! host crate): it is run once and must define `handle(request: bytes) -> bytes`, which answers
//! every later request. Keeping the harness on the host side means changing it never rebuilds
//! this 18 MB module, and the host's differential test runs the very same file under CPython.
//! stdout and stderr are the host's capture streams.

mod cli;
mod oserror;
mod stdio;

use rustpython::InterpreterConfig;
use rustpython::vm::Interpreter;
use rustpython::vm::builtins::PyBytes;
use rustpython::vm::{AsObject, PyObjectRef, Settings, VirtualMachine};
use std::cell::RefCell;

/// Python's default recursion limit (CPython's too); with the 16 MiB shadow stack set in
/// `.cargo/config.toml` RustPython raises `RecursionError` well before the stack runs out.
const RECURSION_LIMIT: usize = 1000;

#[cfg(target_family = "wasm")]
mod host {
    #[link(wasm_import_module = "intercode_python")]
    unsafe extern "C" {
        pub fn next_request(buf: *mut u8, cap: usize) -> isize;
        pub fn reply(ptr: *const u8, len: usize);
    }
}

/// A native build (the benchmark's "RustPython native" column) is only the `python3` command:
/// it has no host to serve, so its REPL mode ends at once.
#[cfg(not(target_family = "wasm"))]
mod host {
    pub unsafe fn next_request(_buf: *mut u8, _cap: usize) -> isize {
        -1
    }
    pub unsafe fn reply(_ptr: *const u8, _len: usize) {}
}

fn next_request() -> Option<Vec<u8>> {
    let mut buf = vec![0u8; 64 * 1024];
    loop {
        // SAFETY: `buf` is valid for writes of `buf.len()` bytes; the host writes at most `cap`.
        let n = unsafe { host::next_request(buf.as_mut_ptr(), buf.len()) };
        let n = usize::try_from(n).ok()?;
        if n <= buf.len() {
            buf.truncate(n);
            return Some(buf);
        }
        buf.resize(n, 0);
    }
}

fn reply(bytes: &[u8]) {
    // SAFETY: the host only reads `bytes.len()` bytes from `bytes`.
    unsafe { host::reply(bytes.as_ptr(), bytes.len()) }
}

fn settings() -> Settings {
    let mut s = Settings::default();
    // Reproducible episodes: str hashes (and so set iteration order) are the same every run.
    s.hash_seed = Some(0);
    s.isolated = true;
    s.ignore_environment = true;
    s.user_site_directory = false;
    s.import_site = false;
    s.safe_path = true;
    s.write_bytecode = false;
    s.install_signal_handlers = false;
    s.argv = vec![String::new()];
    s
}

/// Runs the harness (the host's first request) and answers "o": the interpreter is ready.
/// Returns the harness's `handle`.
fn load_harness(vm: &VirtualMachine) -> Result<PyObjectRef, String> {
    stdio::utf8_fast_path(vm).map_err(|_| "cannot set up the UTF-8 streams")?;
    let harness = next_request().ok_or("the host left before sending the harness")?;
    let harness = String::from_utf8(harness).map_err(|_| "the harness is not UTF-8")?;
    let scope = vm.new_scope_with_builtins();
    if let Err(exc) = vm.run_code_string(scope.clone(), &harness, "<intercode-harness>".to_owned())
    {
        vm.print_exception(exc);
        reply(b"eSystemError: the harness failed to load");
        return Err("the harness failed to load".into());
    }
    let handle = scope
        .globals
        .get_item("handle", vm)
        .map_err(|_| "harness has no handle()".to_string())?;
    vm.sys_module
        .get_attr("setrecursionlimit", vm)
        .and_then(|f| f.call((RECURSION_LIMIT,), vm))
        .map_err(|_| "cannot set the recursion limit".to_string())?;
    // After the harness, which sets up the streams this `print` writes to.
    stdio::fast_print(vm).map_err(|_| "cannot install print".to_string())?;
    // The harness request is answered like any other: the interpreter is ready.
    reply(b"o");
    Ok(handle)
}

/// Why [`serve`] returned.
enum Served {
    /// The host is gone.
    HostLeft,
    /// The host asked for a snapshot ([`SNAPSHOT_REQUEST`]).
    Snapshot,
}

/// Answers requests through the harness until the host leaves (or, while pre-initialising,
/// asks for the snapshot).
fn serve(vm: &VirtualMachine, handle: &PyObjectRef) -> Served {
    while let Some(request) = next_request() {
        if request == SNAPSHOT_REQUEST {
            reply(b"o");
            return Served::Snapshot;
        }
        let answer = match handle.call((vm.ctx.new_bytes(request),), vm) {
            Ok(obj) => match obj.downcast::<PyBytes>() {
                Ok(b) => b.as_bytes().to_vec(),
                Err(_) => b"eSystemError: the harness answered with a non-bytes value".to_vec(),
            },
            Err(exc) => {
                let mut text = b"eSystemError: the harness failed: ".to_vec();
                let name = exc.class().name().to_string();
                text.extend_from_slice(name.as_bytes());
                text
            }
        };
        reply(&answer);
    }
    Served::HostLeft
}

/// The request (never a harness request: those start with an op letter) after which
/// [`preinit`] returns, so that the host can snapshot the ready interpreter.
const SNAPSHOT_REQUEST: &[u8] = b"\0snapshot";

/// A REPL interpreter with its harness loaded, kept between [`preinit`] and `main`.
struct Ready {
    interpreter: Interpreter,
    handle: PyObjectRef,
}

thread_local! {
    /// Set by [`preinit`]; a module snapshotted after it starts with it already set.
    static READY: RefCell<Option<Ready>> = const { RefCell::new(None) };
}

fn repl_interpreter() -> Interpreter {
    InterpreterConfig::new()
        .settings(settings())
        .init_stdlib()
        .interpreter()
}

/// Pre-initialisation (the host's snapshot step): starts the REPL interpreter, serves the
/// harness and warm-up requests, and returns at [`SNAPSHOT_REQUEST`] with the interpreter kept
/// in [`READY`]. The host then saves linear memory as a new module whose `_start` goes straight
/// to serving requests, so an episode's interpreter starts in microseconds instead of tens of
/// milliseconds. WASI has no threads, so the thread-local is one static.
#[unsafe(export_name = "intercode-python-preinit")]
pub extern "C" fn preinit() {
    let interpreter = repl_interpreter();
    let handle = interpreter.enter(|vm| {
        let handle = load_harness(vm)?;
        match serve(vm, &handle) {
            Served::Snapshot => Ok(handle),
            Served::HostLeft => Err("the host left before the snapshot".to_string()),
        }
    });
    match handle {
        Ok(handle) => READY.with(|r| {
            *r.borrow_mut() = Some(Ready {
                interpreter,
                handle,
            })
        }),
        Err(e) => {
            eprintln!("intercode-python: {e}");
            std::process::exit(70);
        }
    }
}

/// CPython's C locale coercion (PEP 538), which Ubuntu 22.04's `python3` does: when `LC_ALL`
/// is unset and the character-type locale comes out as C (`LC_CTYPE`, else `LANG`, unset or
/// naming a locale the minimized image lacks), it sets `LC_CTYPE=C.UTF-8` in its own
/// environment, so `os.environ` and its child processes show it. Upstream ran without a locale.
fn coerce_c_locale() {
    let get = |k: &str| std::env::var(k).ok().filter(|v| !v.is_empty());
    if get("LC_ALL").is_some() || get("PYTHONCOERCECLOCALE").as_deref() == Some("0") {
        return;
    }
    let ctype = get("LC_CTYPE").or_else(|| get("LANG"));
    // The minimized image has only C, POSIX and C.UTF-8.
    let utf8 = ctype
        .as_deref()
        .is_some_and(|v| v.eq_ignore_ascii_case("C.UTF-8") || v.eq_ignore_ascii_case("C.utf8"));
    if !utf8 {
        // SAFETY: called at the start of `main`, before the interpreter or any thread exists.
        unsafe { std::env::set_var("LC_CTYPE", "C.UTF-8") };
    }
}

/// argv[0] with which the host starts the REPL. A bash user cannot reach this mode usefully: in
/// the bash sandbox the request imports trap.
const REPL_ARGV0: &str = "intercode-python-repl";

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.first().map(String::as_str) != Some(REPL_ARGV0) {
        // WASI has no working directory of its own; the host passes it in the environment.
        hostcalls::enter_start_dir();
        coerce_c_locale();
        let program = args.first().cloned().unwrap_or_else(|| "python3".into());
        let code = cli::main(&program, args.get(1..).unwrap_or_default());
        let _ = std::io::Write::flush(&mut std::io::stdout());
        std::process::exit(code);
    }
    if let Some(ready) = READY.with(|r| r.borrow_mut().take()) {
        ready.interpreter.enter(|vm| serve(vm, &ready.handle));
        return;
    }
    let interpreter = repl_interpreter();
    let result = interpreter.enter(|vm| {
        let handle = load_harness(vm)?;
        serve(vm, &handle);
        Ok::<(), String>(())
    });
    if let Err(e) = result {
        eprintln!("intercode-python: {e}");
        std::process::exit(70);
    }
}
