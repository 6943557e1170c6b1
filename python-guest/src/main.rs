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

use rustpython::InterpreterConfig;
use rustpython::vm::builtins::PyBytes;
use rustpython::vm::{AsObject, Settings, VirtualMachine};

/// Python's default recursion limit (CPython's too); with the 16 MiB shadow stack set in
/// `.cargo/config.toml` RustPython raises `RecursionError` well before the stack runs out.
const RECURSION_LIMIT: usize = 1000;

mod host {
    #[link(wasm_import_module = "intercode_python")]
    unsafe extern "C" {
        pub fn next_request(buf: *mut u8, cap: usize) -> isize;
        pub fn reply(ptr: *const u8, len: usize);
    }
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

fn serve(vm: &VirtualMachine) -> Result<(), String> {
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
    // The harness request is answered like any other: the interpreter is ready.
    reply(b"o");
    while let Some(request) = next_request() {
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
    Ok(())
}

/// argv[0] with which the host starts the REPL. A bash user cannot reach this mode usefully: in
/// the bash sandbox the request imports trap.
const REPL_ARGV0: &str = "intercode-python-repl";

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.first().map(String::as_str) != Some(REPL_ARGV0) {
        // WASI has no working directory of its own; the shell passes it in `$PWD`.
        if let Ok(pwd) = std::env::var("PWD") {
            let _ = std::env::set_current_dir(pwd);
        }
        let program = args.first().cloned().unwrap_or_else(|| "python3".into());
        let code = cli::main(&program, args.get(1..).unwrap_or_default());
        let _ = std::io::Write::flush(&mut std::io::stdout());
        std::process::exit(code);
    }
    let interp = InterpreterConfig::new()
        .settings(settings())
        .init_stdlib()
        .interpreter();
    let result = interp.enter(serve);
    if let Err(e) = result {
        eprintln!("intercode-python: {e}");
        std::process::exit(70);
    }
}
