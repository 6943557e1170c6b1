//! OS errors as CPython on Linux reports them. RustPython on WASI raises them with WASI's errno
//! numbers and Rust's text (`FileNotFoundError: (44, 'No such file or directory (os error 44)')`)
//! and often without the file name; CPython says `[Errno 2] No such file or directory: 'x'`.
//! The functions that touch files are wrapped so that their errors carry Linux's number and
//! text and the path they were given, `errno`'s constants are Linux's, and an uncaught
//! exception's last line is `Type: str(exception)`, as CPython prints it.

use rustpython::vm::builtins::{PyBaseExceptionRef, PyStr};
use rustpython::vm::function::FuncArgs;
use rustpython::vm::{AsObject, PyObjectRef, PyResult, VirtualMachine};

/// Errors by name: (WASI's number, Linux's number, glibc's text).
const ERRNOS: &[(&str, i32, i32, &str)] = &[
    ("EPERM", 63, 1, "Operation not permitted"),
    ("ENOENT", 44, 2, "No such file or directory"),
    ("EIO", 29, 5, "Input/output error"),
    ("E2BIG", 1, 7, "Argument list too long"),
    ("ENOEXEC", 45, 8, "Exec format error"),
    ("EBADF", 8, 9, "Bad file descriptor"),
    ("EAGAIN", 6, 11, "Resource temporarily unavailable"),
    ("ENOMEM", 48, 12, "Cannot allocate memory"),
    ("EACCES", 2, 13, "Permission denied"),
    ("EBUSY", 10, 16, "Device or resource busy"),
    ("EEXIST", 20, 17, "File exists"),
    ("EXDEV", 75, 18, "Invalid cross-device link"),
    ("ENOTDIR", 54, 20, "Not a directory"),
    ("EISDIR", 31, 21, "Is a directory"),
    ("EINVAL", 28, 22, "Invalid argument"),
    ("EMFILE", 33, 24, "Too many open files"),
    ("ENOTTY", 59, 25, "Inappropriate ioctl for device"),
    ("ETXTBSY", 74, 26, "Text file busy"),
    ("EFBIG", 22, 27, "File too large"),
    ("ENOSPC", 51, 28, "No space left on device"),
    ("ESPIPE", 70, 29, "Illegal seek"),
    ("EROFS", 69, 30, "Read-only file system"),
    ("EMLINK", 34, 31, "Too many links"),
    ("EPIPE", 64, 32, "Broken pipe"),
    ("ENAMETOOLONG", 37, 36, "File name too long"),
    ("ENOSYS", 52, 38, "Function not implemented"),
    ("ENOTEMPTY", 55, 39, "Directory not empty"),
    ("ELOOP", 32, 40, "Too many levels of symbolic links"),
    ("ENOTSUP", 58, 95, "Operation not supported"),
    ("ETIMEDOUT", 73, 110, "Connection timed out"),
    ("EDQUOT", 19, 122, "Disk quota exceeded"),
];

/// Linux's number for a WASI errno (EIO for one without a counterpart here).
pub fn linux_errno(wasi: i32) -> i32 {
    ERRNOS.iter().find(|e| e.1 == wasi).map_or(5, |e| e.2)
}

/// glibc's text for a Linux errno.
pub fn strerror(linux: i32) -> &'static str {
    ERRNOS
        .iter()
        .find(|e| e.2 == linux)
        .map_or("Input/output error", |e| e.3)
}

/// The functions whose errors name their path arguments: (module, name, paths named).
const WRAPPED: &[(&str, &str, usize)] = &[
    ("builtins", "open", 1),
    ("io", "open", 1),
    ("os", "open", 1),
    ("os", "stat", 1),
    ("os", "lstat", 1),
    ("os", "listdir", 1),
    ("os", "scandir", 1),
    ("os", "remove", 1),
    ("os", "unlink", 1),
    ("os", "rmdir", 1),
    ("os", "mkdir", 1),
    ("os", "chdir", 1),
    ("os", "chmod", 1),
    ("os", "utime", 1),
    ("os", "readlink", 1),
    ("os", "truncate", 1),
    ("os", "rename", 2),
    ("os", "replace", 2),
    ("os", "link", 2),
    ("os", "symlink", 2),
];

/// Installs the wrappers, Linux's `errno` constants and the exception hook.
pub fn install(vm: &VirtualMachine) -> PyResult<()> {
    for &(module, name, paths) in WRAPPED {
        let module = if module == "builtins" {
            vm.builtins.clone().into()
        } else {
            vm.import(module, 0)?
        };
        let Ok(original) = module.get_attr(name, vm) else {
            continue;
        };
        let wrapper = vm.new_function(name, move |args: FuncArgs, vm: &VirtualMachine| {
            let given = args.args.clone();
            original
                .call_with_args(args, vm)
                .map_err(|exc| as_on_linux(exc, &given, paths, vm))
        });
        module.set_attr(name, wrapper, vm)?;
    }
    let errno = vm.import("errno", 0)?;
    let codes = vm.ctx.new_dict();
    for &(name, _, linux, _) in ERRNOS {
        errno.set_attr(name, vm.ctx.new_int(linux), vm)?;
        let key: PyObjectRef = vm.ctx.new_int(linux).into();
        codes.set_item(&*key, vm.ctx.new_str(name).into(), vm)?;
    }
    errno.set_attr("errorcode", codes, vm)?;
    let hook = vm.new_function("excepthook", |args: FuncArgs, vm: &VirtualMachine| {
        if let Some(value) = args.args.get(1) {
            last_line_as_str(value, vm);
        }
        let original = vm.sys_module.get_attr("__excepthook__", vm)?;
        original.call_with_args(args, vm)
    });
    vm.sys_module.set_attr("excepthook", hook, vm)?;
    Ok(())
}

/// The path an argument names, as CPython puts it in `filename` (str, bytes or path-like).
fn path_of(arg: &PyObjectRef, vm: &VirtualMachine) -> Option<PyObjectRef> {
    if arg.payload_is::<PyStr>() || arg.payload_is::<rustpython::vm::builtins::PyBytes>() {
        return Some(arg.clone());
    }
    let fspath = vm.import("os", 0).ok()?.get_attr("fspath", vm).ok()?;
    fspath.call((arg.clone(),), vm).ok()
}

fn as_on_linux(
    exc: PyBaseExceptionRef,
    given: &[PyObjectRef],
    paths: usize,
    vm: &VirtualMachine,
) -> PyBaseExceptionRef {
    if !exc.fast_isinstance(vm.ctx.exceptions.os_error) {
        return exc;
    }
    let obj = exc.as_object();
    let Some(wasi) = obj
        .get_attr("errno", vm)
        .ok()
        .and_then(|v| v.try_into_value::<i32>(vm).ok())
    else {
        return exc;
    };
    let linux = linux_errno(wasi);
    let text = strerror(linux);
    let set = |name: &'static str, value: PyObjectRef| {
        let _ = obj.set_attr(name, value, vm);
    };
    set("errno", vm.ctx.new_int(linux).into());
    set("strerror", vm.ctx.new_str(text).into());
    for (i, attr) in ["filename", "filename2"]
        .into_iter()
        .enumerate()
        .take(paths)
    {
        let unset = obj.get_attr(attr, vm).map_or(true, |v| vm.is_none(&v));
        if unset && let Some(path) = given.get(i).and_then(|a| path_of(a, vm)) {
            set(attr, path);
        }
    }
    set(
        "args",
        vm.ctx
            .new_tuple(vec![
                vm.ctx.new_int(linux).into(),
                vm.ctx.new_str(text).into(),
            ])
            .into(),
    );
    exc
}

/// RustPython prints an uncaught exception's arguments where CPython prints `str()` of it:
/// for exceptions with their own `__str__` (OSError's `[Errno 2] …: 'x'`, user classes), the
/// arguments become that text before the default hook prints them.
fn last_line_as_str(value: &PyObjectRef, vm: &VirtualMachine) {
    let Some(exc) = value.downcast_ref::<rustpython::vm::builtins::PyBaseException>() else {
        return;
    };
    if exc.fast_isinstance(vm.ctx.exceptions.syntax_error) {
        return;
    }
    // CPython names a class by its module unless it is a builtin one: `__main__.E`,
    // `json.decoder.JSONDecodeError`.
    let class = value.class().to_owned();
    let module = class.as_object().get_attr("__module__", vm).ok();
    let module = module.and_then(|m| m.str(vm).ok());
    if let Some(module) = module.filter(|m| m.as_str() != "builtins")
        && let Ok(qualname) = class.as_object().get_attr("__qualname__", vm)
        && let Ok(qualname) = qualname.str(vm)
    {
        let full = vm
            .ctx
            .new_str(format!("{}.{}", module.as_str(), qualname.as_str()));
        let _ = class.as_object().set_attr("__name__", full, vm);
    }
    let base = vm.ctx.exceptions.base_exception_type.as_object();
    let (Ok(own), Ok(default)) = (
        value.class().as_object().get_attr("__str__", vm),
        base.get_attr("__str__", vm),
    ) else {
        return;
    };
    if own.is(&default) {
        return;
    }
    let Ok(text) = value.str(vm) else {
        return;
    };
    let args = if text.as_str().is_empty() {
        vec![]
    } else {
        vec![text.into()]
    };
    let _ = value.set_attr("args", vm.ctx.new_tuple(args), vm);
}
