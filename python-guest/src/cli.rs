//! `python3` as a command inside the bash sandbox: CPython's command line
//! (`python3 [option] ... [-c cmd | -m mod | file | -] [arg] ...`) on RustPython.
//!
//! The host runs this module as a process of the bash action when the shell starts `python3`,
//! with the episode's tree preopened as `/` and the shell's stdio, environment and directory, so
//! scripts see the agent's files and nothing else. The messages and exit statuses of bad usage
//! follow CPython 3.10 (Ubuntu 22.04's `python3`, the one upstream's bash image had).

use rustpython::InterpreterConfig;
use rustpython::vm::builtins::PyStrRef;
use rustpython::vm::compiler::Mode;
use rustpython::vm::scope::Scope;
use rustpython::vm::{AsObject, PyResult, Settings, VirtualMachine};
use std::io::{Read, Write};

/// What the command line asks to run.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Program {
    /// `-c CMD`
    Command(String),
    /// `-m MODULE`
    Module(String),
    /// A script path.
    Script(String),
    /// `-` or nothing: the whole of stdin is the program (stdin is never a terminal here).
    Stdin,
}

/// The parsed command line.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Invocation {
    program: Program,
    /// `sys.argv`.
    argv: Vec<String>,
    ignore_environment: bool,
    isolated: bool,
    no_site: bool,
    no_user_site: bool,
    safe_path: bool,
    quiet: bool,
    optimize: u8,
    warnoptions: Vec<String>,
    xoptions: Vec<(String, Option<String>)>,
}

/// What `python3 --help`, `--version` or a usage error prints instead of running anything.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Early {
    Help,
    Version(u8),
    /// The message (first line) of a usage error; exit status 2.
    Usage(String),
}

/// The usage line after `usage: PROGRAM`.
const USAGE: &str = "[option] ... [-c cmd | -m mod | file | -] [arg] ...";

/// Options that take a value (`-W arg`, `-X opt`, `-c cmd`, `-m mod`); everything else is a flag.
fn parse(args: &[String]) -> Result<Invocation, Early> {
    let mut inv = Invocation {
        program: Program::Stdin,
        argv: vec![String::new()],
        ignore_environment: false,
        isolated: false,
        no_site: false,
        no_user_site: false,
        safe_path: false,
        quiet: false,
        optimize: 0,
        warnoptions: Vec::new(),
        xoptions: Vec::new(),
    };
    let mut version = 0u8;
    let mut i = 0;
    while i < args.len() {
        let arg = &args[i];
        if arg == "--" {
            i += 1;
            break;
        }
        match arg.as_str() {
            "--help" | "-?" => return Err(Early::Help),
            "--version" => {
                version += 1;
                i += 1;
                continue;
            }
            _ => {}
        }
        if arg.starts_with("--") {
            return Err(Early::Usage(format!("unknown option {arg}")));
        }
        if arg == "-" || !arg.starts_with('-') {
            break;
        }
        // A bundle of one-letter options; a value-taking letter ends it.
        let letters: Vec<char> = arg[1..].chars().collect();
        let mut j = 0;
        while j < letters.len() {
            let c = letters[j];
            let rest: String = letters[j + 1..].iter().collect();
            let mut value = || -> Result<String, Early> {
                if !rest.is_empty() {
                    Ok(rest.clone())
                } else if i + 1 < args.len() {
                    i += 1;
                    Ok(args[i].clone())
                } else {
                    Err(Early::Usage(format!(
                        "Argument expected for the -{c} option"
                    )))
                }
            };
            match c {
                'c' => {
                    let cmd = value()?;
                    inv.program = Program::Command(cmd);
                    inv.argv = vec!["-c".into()];
                    inv.argv.extend(args[i + 1..].iter().cloned());
                    return finish(inv, version);
                }
                'm' => {
                    let module = value()?;
                    inv.program = Program::Module(module);
                    // runpy replaces argv[0] with the module's path once it is found.
                    inv.argv = vec!["-m".into()];
                    inv.argv.extend(args[i + 1..].iter().cloned());
                    return finish(inv, version);
                }
                'W' => {
                    inv.warnoptions.push(value()?);
                    break;
                }
                'X' => {
                    let opt = value()?;
                    inv.xoptions.push(match opt.split_once('=') {
                        Some((k, v)) => (k.to_string(), Some(v.to_string())),
                        None => (opt, None),
                    });
                    break;
                }
                'h' => return Err(Early::Help),
                'V' => version += 1,
                'E' => inv.ignore_environment = true,
                'I' => {
                    inv.isolated = true;
                    inv.ignore_environment = true;
                    inv.no_user_site = true;
                    inv.safe_path = true;
                }
                'S' => inv.no_site = true,
                's' => inv.no_user_site = true,
                'P' => inv.safe_path = true,
                'q' => inv.quiet = true,
                'O' => inv.optimize = inv.optimize.saturating_add(1),
                // Accepted and without effect here: bytecode is never written, stdio is
                // unbuffered at exit anyway, and there is no terminal to be interactive on.
                'B' | 'b' | 'd' | 'u' | 'v' | 'x' | 'i' | 'R' => {}
                _ => return Err(Early::Usage(format!("Unknown option: -{c}"))),
            }
            j += 1;
        }
        i += 1;
    }
    if i < args.len() {
        let first = &args[i];
        if first == "-" {
            inv.program = Program::Stdin;
            inv.argv = vec!["-".into()];
        } else {
            inv.program = Program::Script(first.clone());
            inv.argv = vec![first.clone()];
        }
        inv.argv.extend(args[i + 1..].iter().cloned());
    }
    finish(inv, version)
}

fn finish(inv: Invocation, version: u8) -> Result<Invocation, Early> {
    if version > 0 {
        return Err(Early::Version(version));
    }
    Ok(inv)
}

fn help(program_name: &str) -> String {
    format!(
        "usage: {program_name} {USAGE}\n\
         Options (a subset of CPython's; others are refused):\n\
         -c cmd : program passed in as string (terminates option list)\n\
         -m mod : run library module as a script (terminates option list)\n\
         -E     : ignore PYTHON* environment variables (such as PYTHONPATH)\n\
         -I     : isolate Python from the user's environment (implies -E, -P and -s)\n\
         -P     : don't prepend a potentially unsafe path to sys.path\n\
         -q     : don't print version and copyright messages on interactive startup\n\
         -s     : don't add user site directory to sys.path\n\
         -S     : don't imply 'import site' on initialization\n\
         -V     : print the Python version number and exit (also --version)\n\
         -W arg : warning control\n\
         -X opt : set implementation-specific option\n\
         -B, -b, -d, -i, -O, -R, -u, -v, -x : accepted, no effect here\n\
         file   : program read from script file\n\
         -      : program read from stdin (default)\n\
         arg ...: arguments passed to program in sys.argv[1:]\n\
         \n\
         This python3 is RustPython {} running inside the InterCode sandbox: no network,\n\
         no subprocesses, no native extension modules.\n",
        rustpython::vm::version::get_version_number()
    )
}

/// Runs `python3 ARGS…` (`program_name` is argv[0] as typed, which CPython's messages repeat) and
/// returns the exit status.
pub fn main(program_name: &str, args: &[String]) -> i32 {
    let inv = match parse(args) {
        Ok(inv) => inv,
        Err(Early::Help) => {
            print!("{}", help(program_name));
            return 0;
        }
        Err(Early::Version(n)) => {
            use rustpython::vm::version;
            if n > 1 {
                println!("Python {}", version::get_version());
            } else {
                println!(
                    "Python {}.{}.{}",
                    version::MAJOR,
                    version::MINOR,
                    version::MICRO
                );
            }
            return 0;
        }
        Err(Early::Usage(message)) => {
            let mut err = std::io::stderr();
            let _ = writeln!(
                err,
                "{message}\nusage: {program_name} {USAGE}\nTry `python -h' for more information."
            );
            return 2;
        }
    };
    // A script that cannot be read is reported before the interpreter starts, as CPython does.
    let mut script_source = None;
    if let Program::Script(path) = &inv.program {
        match read_script(path) {
            Ok(source) => script_source = Some(source),
            Err(ScriptError::Directory) => {} // runpy looks for its __main__.py
            Err(ScriptError::Io(e)) => {
                let linux = e.raw_os_error().map_or(5, crate::oserror::linux_errno);
                let _ = writeln!(
                    std::io::stderr(),
                    "{program_name}: can't open file {}: [Errno {}] {}",
                    python_repr(&absolute(path)),
                    linux,
                    crate::oserror::strerror(linux)
                );
                return 2;
            }
        }
    }
    let interp = InterpreterConfig::new()
        .settings(settings(&inv))
        .init_stdlib()
        .interpreter();
    let code = interp.run(|vm| match run(vm, &inv, script_source.as_deref()) {
        // CPython writes the traceback before its block-buffered stdout is flushed at exit;
        // RustPython flushes first. Printed here, the traceback comes first, as in CPython.
        Err(exc) if !exc.fast_isinstance(vm.ctx.exceptions.system_exit) => {
            vm.print_exception(exc);
            let one = vm.ctx.new_int(1).into();
            Err(vm.new_exception(vm.ctx.exceptions.system_exit.to_owned(), vec![one]))
        }
        other => other,
    });
    i32::from(code)
}

fn settings(inv: &Invocation) -> Settings {
    let mut s = Settings::default();
    // Reproducible episodes: str hashes (and so set iteration order) are the same every run.
    s.hash_seed = Some(0);
    s.isolated = inv.isolated;
    s.ignore_environment = inv.ignore_environment;
    s.user_site_directory = !inv.no_user_site;
    // There is no site-packages here; `import site` would only cost start-up time.
    s.import_site = false;
    s.safe_path = true; // the path is prepended below, per mode, as CPython does
    s.write_bytecode = false;
    s.install_signal_handlers = false;
    s.quiet = inv.quiet;
    s.optimize = inv.optimize;
    s.argv = inv.argv.clone();
    s.warnoptions = inv.warnoptions.clone();
    s.xoptions = inv.xoptions.clone();
    if !inv.ignore_environment
        && let Ok(path) = std::env::var("PYTHONPATH")
    {
        s.path_list
            .extend(path.split(':').filter(|p| !p.is_empty()).map(String::from));
    }
    s
}

fn run(vm: &VirtualMachine, inv: &Invocation, script_source: Option<&str>) -> PyResult<()> {
    vm.sys_module
        .set_attr("executable", vm.ctx.new_str("/usr/bin/python3"), vm)?;
    crate::stdio::utf8_fast_path(vm)?;
    // CPython's stderr is line-buffered even into a pipe (its stdout is not), so what a
    // program writes to stderr, tracebacks included, comes out before its buffered stdout.
    let stderr = vm.sys_module.get_attr("stderr", vm)?;
    let kwargs: rustpython::vm::function::KwArgs =
        [("line_buffering".to_owned(), vm.ctx.new_bool(true).into())]
            .into_iter()
            .collect();
    vm.call_method(
        &stderr,
        "reconfigure",
        rustpython::vm::function::FuncArgs::new(Vec::new(), kwargs),
    )?;
    crate::oserror::install(vm)?;
    let scope = main_module(vm)?;
    match &inv.program {
        Program::Command(cmd) => {
            prepend_path(vm, inv, "")?;
            exec(vm, scope, cmd, "<string>", false)
        }
        Program::Stdin => {
            prepend_path(vm, inv, "")?;
            let mut bytes = Vec::new();
            if let Err(e) = std::io::stdin().read_to_end(&mut bytes) {
                return Err(vm.new_os_error(format!("cannot read stdin: {e}")));
            }
            exec(vm, scope, &source_text(vm, bytes)?, "<stdin>", false)
        }
        Program::Module(module) => {
            prepend_path(vm, inv, &cwd())?;
            vm.run_module(module)
        }
        Program::Script(path) => match script_source {
            Some(source) => {
                let file = absolute(path);
                prepend_path(vm, inv, &parent_dir(&without_dots(&file)))?;
                exec(vm, scope, source, &file, true)
            }
            None => {
                // A directory: its `__main__.py` is the program, the directory goes first on
                // sys.path (runpy reports a missing `__main__`).
                prepend_path(vm, inv, path)?;
                let runpy = vm.import("runpy", 0)?;
                let run_as_main = runpy.get_attr("_run_module_as_main", vm)?;
                run_as_main.call(("__main__", false), vm)?;
                Ok(())
            }
        },
    }
}

/// `sys.path[0]` as CPython sets it: the script's directory, the cwd for `-m`, `''` for `-c`
/// and stdin; nothing with `-P` or `-I`.
fn prepend_path(vm: &VirtualMachine, inv: &Invocation, entry: &str) -> PyResult<()> {
    if inv.safe_path {
        return Ok(());
    }
    vm.insert_sys_path(vm.ctx.new_str(entry).into())
}

/// A `__main__` module registered in `sys.modules`, whose namespace the program runs in.
fn main_module(vm: &VirtualMachine) -> PyResult<Scope> {
    let scope = vm.new_scope_with_builtins();
    let module = vm.new_module("__main__", scope.globals.clone(), None);
    module
        .dict()
        .set_item("__annotations__", vm.ctx.new_dict().into(), vm)?;
    vm.sys_module
        .get_attr("modules", vm)?
        .set_item("__main__", module.into(), vm)?;
    Ok(scope)
}

fn exec(
    vm: &VirtualMachine,
    scope: Scope,
    source: &str,
    name: &str,
    is_file: bool,
) -> PyResult<()> {
    let code = vm
        .compile(source, Mode::Exec, name.to_owned())
        .map_err(|err| vm.new_syntax_error(&err, Some(source)))?;
    if is_file {
        let file: PyStrRef = vm.ctx.new_str(name);
        scope.globals.set_item("__file__", file.into(), vm)?;
    }
    vm.run_code_obj(code, scope).map(drop)
}

/// Source bytes as text; CPython refuses non-UTF-8 source without an encoding declaration.
fn source_text(vm: &VirtualMachine, bytes: Vec<u8>) -> PyResult<String> {
    String::from_utf8(bytes).map_err(|e| {
        let byte = e.as_bytes()[e.utf8_error().valid_up_to()];
        vm.new_exception_msg(
            vm.ctx.exceptions.syntax_error.to_owned(),
            format!("Non-UTF-8 code starting with '\\x{byte:02x}' in file <stdin>"),
        )
    })
}

enum ScriptError {
    Directory,
    Io(std::io::Error),
}

fn read_script(path: &str) -> Result<String, ScriptError> {
    let meta = std::fs::metadata(path).map_err(ScriptError::Io)?;
    if meta.is_dir() {
        return Err(ScriptError::Directory);
    }
    let bytes = std::fs::read(path).map_err(ScriptError::Io)?;
    // Undecodable bytes surface as a SyntaxError when compiled, as in CPython.
    Ok(String::from_utf8_lossy(&bytes).into_owned())
}

fn cwd() -> String {
    std::env::current_dir()
        .map(|p| p.to_string_lossy().into_owned())
        .or_else(|_| std::env::var("PWD"))
        .unwrap_or_else(|_| "/".into())
}

/// The script's path as CPython 3.10 makes it absolute: the directory, `/`, the path as given
/// (`//x.py` from `/`, `/tmp/./x.py` for `./x.py`), nothing normalised.
fn absolute(path: &str) -> String {
    if path.starts_with('/') {
        return path.to_string();
    }
    format!("{}/{path}", cwd())
}

/// An absolute path without empty and `.` components (`//tmp/./x.py` is `/tmp/x.py`).
fn without_dots(path: &str) -> String {
    let parts: Vec<&str> = path
        .split('/')
        .filter(|p| !p.is_empty() && *p != ".")
        .collect();
    format!("/{}", parts.join("/"))
}

fn parent_dir(path: &str) -> String {
    match path.rsplit_once('/') {
        Some(("", _)) => "/".into(),
        Some((dir, _)) => dir.into(),
        None => String::new(),
    }
}

/// Python's `repr` of a plain string: single quotes unless the text holds one.
fn python_repr(s: &str) -> String {
    if s.contains('\'') && !s.contains('"') {
        format!("\"{s}\"")
    } else {
        format!("'{}'", s.replace('\\', "\\\\").replace('\'', "\\'"))
    }
}
