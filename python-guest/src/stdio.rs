//! Text streams that encode in Rust. RustPython's `TextIOWrapper` encodes through the codec's
//! Python `IncrementalEncoder.encode` (several Python-level calls per write) unless the encoder
//! has a `name` of "utf-8", and the UTF-8 encoder of RustPython 0.4's stdlib has none: every
//! `print` paid for it. Measured in the wasm guest on `for i in range(1000): print(i)`: about
//! 8–11 ms with the Python encoder, 4 ms with the Rust one. CPython's encoder is named, so
//! naming ours changes nothing a program can tell apart from CPython.

use rustpython::vm::builtins::{PyInt, PyStr, PyStrRef};
use rustpython::vm::function::{FuncArgs, KwArgs};
use rustpython::vm::{AsObject, PyObjectRef, PyResult, VirtualMachine};
use std::fmt::Write as _;

/// Names the UTF-8 incremental encoder "utf-8" (so streams created from now on take the Rust
/// path), and re-creates the encoders of `sys.stdout` and `sys.stderr` when they are UTF-8.
pub fn utf8_fast_path(vm: &VirtualMachine) -> PyResult<()> {
    let lookup = vm.import("codecs", 0)?.get_attr("lookup", vm)?;
    let encoder = lookup
        .call(("utf-8",), vm)?
        .get_attr("incrementalencoder", vm)?;
    if vm.get_attribute_opt(encoder.clone(), "name")?.is_none() {
        encoder.set_attr("name", vm.ctx.new_str("utf-8"), vm)?;
    }
    for name in ["stdout", "stderr"] {
        let stream = vm.sys_module.get_attr(name, vm)?;
        let encoding = stream.get_attr("encoding", vm)?.str(vm)?;
        if !encoding.as_str().eq_ignore_ascii_case("utf-8") {
            continue;
        }
        let kwargs: KwArgs = [("encoding".to_owned(), encoding.into())]
            .into_iter()
            .collect();
        vm.call_method(&stream, "reconfigure", FuncArgs::new(Vec::new(), kwargs))?;
    }
    Ok(())
}

/// Replaces `builtins.print` with one that writes each call's text to the REPL's own stdout or
/// stderr in one piece. RustPython's `print` looks up and calls the stream's `write` method for
/// every argument, separator and line end, and each call goes through `TextIOWrapper` and
/// `FileIO` to its own host write: measured in the wasm guest on
/// `for i in range(1000): print(i)`, about 2.8 ms where CPython takes 0.2 ms.
///
/// The streams are the harness's write-through ones (`write_through_stdio` in the harness): a
/// `TextIOWrapper` straight over a `FileIO`, holding nothing back, so writing their file
/// descriptor directly keeps every byte in order with `sys.stdout.write` (streams of any other
/// make leave `print` as it is). Any other case —
/// another `file`, a `sys.stdout` an action replaced (`redirect_stdout`), a closed stream, an
/// unusual argument — goes to RustPython's own `print`, which behaves as before.
pub fn fast_print(vm: &VirtualMachine) -> PyResult<()> {
    let original = vm.builtins.get_attr("print", vm)?;
    // Only over an unbuffered `FileIO`: a buffered writer could hold bytes this would overtake.
    let stream = |name: &str, fd: i32| -> Option<Stream> {
        let text = vm.sys_module.get_attr(vm.ctx.intern_str(name), vm).ok()?;
        let raw = text.get_attr("buffer", vm).ok()?;
        if raw.class().name().to_string() != "FileIO" {
            return None;
        }
        let closed = raw.class().get_attr(vm.ctx.intern_str("closed"))?;
        Some(Stream {
            text,
            raw,
            closed,
            fd,
        })
    };
    let (Some(stdout), Some(stderr)) = (stream("stdout", 1), stream("stderr", 2)) else {
        return Ok(());
    };
    let streams = [stdout, stderr];
    let stdout_name = vm.ctx.intern_str("stdout");
    let print = vm.new_function("print", move |args: FuncArgs, vm: &VirtualMachine| {
        let Some(call) = PrintCall::of(&args, vm)? else {
            return original.call(args, vm);
        };
        let target = match &call.file {
            Some(file) => file.clone(),
            None => vm.sys_module.get_attr(stdout_name, vm)?,
        };
        match streams.iter().find(|s| target.is(&s.text)) {
            Some(stream) if stream.is_open(vm) => call.write(&args.args, stream.fd, vm),
            _ => original.call(args, vm),
        }
    });
    vm.builtins.set_attr("print", print, vm)
}

/// One of the harness's streams: the text stream, the `FileIO` under it, and `FileIO.closed`
/// (the descriptor, looked up once: closing the text stream closes the `FileIO`, though not
/// the descriptor, which `closefd=False` keeps open).
struct Stream {
    text: PyObjectRef,
    raw: PyObjectRef,
    closed: PyObjectRef,
    fd: i32,
}

impl Stream {
    fn is_open(&self, vm: &VirtualMachine) -> bool {
        vm.call_get_descriptor(&self.closed, self.raw.clone())
            .and_then(Result::ok)
            .is_some_and(|closed| closed.is(&vm.ctx.false_value))
    }
}

/// A `print` call the fast path takes: keywords limited to `sep`, `end` (each `None` or a
/// string), `file` and `flush` (a bool; the streams write through, so flushing is implied).
struct PrintCall {
    sep: Option<PyStrRef>,
    end: Option<PyStrRef>,
    file: Option<PyObjectRef>,
}

impl PrintCall {
    /// The call's keywords; `Ok(None)` leaves the call to RustPython's `print`. Bad keywords
    /// raise CPython's `TypeError`s (RustPython words them otherwise), in CPython's order.
    fn of(args: &FuncArgs, vm: &VirtualMachine) -> PyResult<Option<PrintCall>> {
        let mut call = PrintCall {
            sep: None,
            end: None,
            file: None,
        };
        let mut plain_flush = true;
        for (name, value) in &args.kwargs {
            match name.as_str() {
                "sep" | "end" | "file" => {}
                "flush" => plain_flush = value.class().is(vm.ctx.types.bool_type),
                _ => {
                    return Err(vm.new_type_error(format!(
                        "'{name}' is an invalid keyword argument for print()"
                    )));
                }
            }
        }
        let text = |name: &str| -> PyResult<Option<PyStrRef>> {
            match args.kwargs.get(name) {
                Some(v) if !vm.is_none(v) => v.clone().downcast::<PyStr>().map(Some).map_err(|v| {
                    vm.new_type_error(format!(
                        "{name} must be None or a string, not {}",
                        v.class().name()
                    ))
                }),
                _ => Ok(None),
            }
        };
        call.sep = text("sep")?;
        call.end = text("end")?;
        call.file = args.kwargs.get("file").filter(|f| !vm.is_none(f)).cloned();
        Ok(plain_flush.then_some(call))
    }

    /// Writes the call's text to `fd`. An argument whose `str()` raises ends the call there, as
    /// in CPython, after what came before it has been written.
    fn write(&self, objects: &[PyObjectRef], fd: i32, vm: &VirtualMachine) -> PyResult {
        let mut text = String::new();
        let mut failed = None;
        for (i, object) in objects.iter().enumerate() {
            if i > 0 {
                text.push_str(self.sep.as_ref().map_or(" ", |s| s.as_str()));
            }
            // An int's decimal digits without a trip through its `__str__` and the bignum
            // formatter (most of what printing a number cost).
            if let Some(int) = object.payload_if_exact::<PyInt>(vm)
                && let Ok(n) = i64::try_from(int.as_bigint())
            {
                let _ = write!(text, "{n}");
                continue;
            }
            match object.str(vm) {
                Ok(s) => text.push_str(s.as_str()),
                Err(e) => {
                    failed = Some(e);
                    break;
                }
            }
        }
        if failed.is_none() {
            text.push_str(self.end.as_ref().map_or("\n", |s| s.as_str()));
        }
        write_fd(fd, text.as_bytes()).map_err(|e| vm.new_os_error(e.to_string()))?;
        match failed {
            Some(e) => Err(e),
            None => Ok(vm.ctx.none()),
        }
    }
}

/// Writes all of `bytes` to the open file descriptor `fd` (the REPL's stdout or stderr).
fn write_fd(fd: i32, bytes: &[u8]) -> std::io::Result<()> {
    use std::io::Write;
    #[cfg(unix)]
    use std::os::unix::io::FromRawFd;
    #[cfg(target_os = "wasi")]
    use std::os::wasi::io::FromRawFd;
    // SAFETY: fd 1 and 2 stay open for the interpreter's life (the harness's streams do not
    // close them), and ManuallyDrop keeps this File from closing them.
    let mut file = std::mem::ManuallyDrop::new(unsafe { std::fs::File::from_raw_fd(fd) });
    file.write_all(bytes)
}
