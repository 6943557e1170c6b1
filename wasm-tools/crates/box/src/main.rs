//! The multicall guest: one wasm32-wasip1 module holding the shell, the uutils coreutils and
//! our own applets. The host starts a fresh instance of it for every command and passes the
//! applet name as argv[0] (busybox style); the working directory arrives in `$PWD` because
//! WASI has no cwd of its own.

mod cat;
mod checksum_check;
mod cp_modes;
mod cp_parents;
mod date_format;
mod date_set;
mod device_operands;
mod gnu_usage;
mod libc_paths;
mod missing_destination;
mod option_values;
mod paste_open;
mod rm_prompt;
mod sed_errors;
mod sed_usage;
mod shasum;
mod shred_open;
mod sleep;
mod split_output;
mod tac;
mod trailing_slash;
mod unopenable;
mod uutils_table;

use std::ffi::OsString;
use std::io::Write;

/// Applets implemented in this crate (tiny ones that need host calls).
const LOCAL: &[(&str, applets::AppletMain)] = &[
    ("cat", cat::main),
    ("cp", cp_modes::main),
    ("jq", jq::main),
    ("shasum", shasum::main),
    ("sleep", sleep::main),
    ("tac", tac::main),
];

/// The shell answers to these names.
const SHELL_NAMES: &[&str] = &["sh", "bash", "dash", "intercode-box"];

/// Every applet name this module answers to, for `which`, `type` and the shell's command lookup.
pub fn applet_names() -> Vec<&'static str> {
    let mut names: Vec<&str> = SHELL_NAMES.to_vec();
    names.extend(uutils_table::UUTILS.iter().map(|(n, _)| *n));
    names.extend(LOCAL.iter().map(|(n, _)| *n));
    names.extend(applets::NAMES.iter().copied());
    names.push("sed");
    names.push("[");
    // Not in this module: the host runs it from the Python guest (when it has one; otherwise
    // `dispatch` answers "command not found").
    names.push("python3");
    names.sort_unstable();
    names.dedup();
    names
}

/// Utilities whose operands are input files, read `-` as standard input and (but for `head`
/// and `tail` of several files) print no file names, so `-` for `/dev/stdin` shows nowhere.
const READ_DASH_AS_STDIN: &[&str] = &[
    "base32", "base64", "cat", "comm", "cut", "expand", "fmt", "fold", "head", "join", "nl", "od",
    "paste", "sed", "sort", "tac", "tail", "unexpand", "uniq",
];

/// `/dev/stdin` as `-`: these utilities open their files through WASI, where `/dev/stdin` is
/// no file (the host's own calls know it), and agents pipe into `cat /dev/stdin`.
fn stdin_as_dash(name: &str, args: Vec<OsString>) -> Vec<OsString> {
    if !READ_DASH_AS_STDIN.contains(&name) {
        return args;
    }
    args.into_iter()
        .enumerate()
        .map(|(i, a)| {
            if i > 0 && a == "/dev/stdin" {
                OsString::from("-")
            } else {
                a
            }
        })
        .collect()
}

fn dispatch(name: &str, args: Vec<OsString>) -> i32 {
    if SHELL_NAMES.contains(&name) {
        return shell::main(args, &applet_names());
    }
    let args = stdin_as_dash(name, args);
    if let Some(status) = device_operands::run(name, &args) {
        return status;
    }
    if let Some((_, f)) = LOCAL.iter().find(|(n, _)| *n == name) {
        load_messages(name);
        return f(args);
    }
    // Our applets first: they replace uutils where uutils falls short on WASI.
    if let Some(f) = applets::lookup(name) {
        return f(args);
    }
    // From here on what runs is uutils code.
    load_messages(name);
    if name == "sed" {
        return run_sed(args);
    }
    let args = if name == "date" {
        match date_format::prepare(args) {
            Ok(args) => args,
            Err(status) => return status,
        }
    } else {
        args
    };
    if name == "date"
        && let Some(status) = date_set::run(&args)
    {
        return status;
    }
    let args = if name == "rm" || name == "rmdir" {
        let (args, refused) = trailing_slash::strip(name, args);
        if let Some(status) = refused {
            // The refused directories are reported; the rest still go to rmdir.
            let operands = args
                .iter()
                .skip(1)
                .filter(|a| !a.to_string_lossy().starts_with('-'));
            if operands.count() == 0 {
                return status;
            }
            return dispatch_uutil(name, args).max(status);
        }
        args
    } else {
        args
    };
    if name == "rm"
        && let Some(status) = rm_prompt::run(&args)
    {
        return status;
    }
    if name == "mv" || name == "split" {
        // A usage error comes first, as GNU reads every option before any operand counts.
        if let Some(status) = gnu_usage::check(name, &args) {
            return status;
        }
        let refused = if name == "mv" {
            missing_destination::mv_operands(&args)
                .and_then(|operands| missing_destination::check(name, &operands))
        } else {
            split_output::check(&args)
        };
        if let Some(status) = refused {
            return status;
        }
    }
    dispatch_uutil(name, args)
}

/// uutils utilities look their messages up by id in an English catalogue embedded in uucore,
/// which their own binaries load before `uumain` (uucore's `bin!`); without it a message is
/// its id (`expr: expr-error-missing-operand` for `expr: missing operand`). `dispatch` calls
/// this where uutils code is about to run; ours and the shell need none.
fn load_messages(name: &str) {
    let util = if name == "[" { "test" } else { name };
    // A catalogue that fails to load leaves the ids, as before.
    let _ = uucore::locale::setup_localization(util);
}

/// A uutils utility, its command line checked for GNU's usage errors first.
fn dispatch_uutil(name: &str, args: Vec<OsString>) -> i32 {
    let uu_name = if name == "[" { "test" } else { name };
    let args = if uu_name == "uniq" {
        split_optional_value_bundles(args, 'D')
    } else {
        args
    };
    if let Some((_, f)) = uutils_table::UUTILS.iter().find(|(n, _)| *n == uu_name) {
        if let Some(status) = gnu_usage::check(uu_name, &args) {
            return status;
        }
        if let Some(status) = option_values::check(uu_name, &args) {
            return status;
        }
        if let Some(status) = checksum_check::run(uu_name, &args) {
            return status;
        }
        if uu_name == "paste"
            && let Some(status) = paste_open::check(&args)
        {
            return status;
        }
        if uu_name == "shred" {
            let (args, reported) = shred_open::drop_unopenable(args);
            return unopenable::run(*f, args, reported);
        }
        return f(args.into_iter());
    }
    let _ = writeln!(std::io::stderr(), "{name}: command not found");
    127
}

fn run_sed(args: Vec<OsString>) -> i32 {
    // The crate's `uumain` wrapper reports errors and returns the exit status; scripts that do
    // not compile are reported in GNU's words first, and a command line GNU answers itself
    // (usage, help, version) before that.
    if let Some(status) = sed_usage::check(&args) {
        return status;
    }
    sed_errors::main(args)
}

/// uutils parses `-Dw32` as `--all-repeated=w32` (the option takes an optional value); GNU
/// reads it as `-D -w32`. Splitting such bundles restores GNU's reading.
fn split_optional_value_bundles(args: Vec<OsString>, flag: char) -> Vec<OsString> {
    let mut out = Vec::with_capacity(args.len());
    for (i, a) in args.into_iter().enumerate() {
        let s = a.to_string_lossy();
        let mut chars = s.chars();
        if i > 0
            && chars.next() == Some('-')
            && chars.next() == Some(flag)
            && s.len() > 2
            && !s.starts_with("--")
        {
            out.push(OsString::from(format!("-{flag}")));
            out.push(OsString::from(format!("-{}", &s[2..])));
        } else {
            out.push(a);
        }
    }
    out
}

fn main() {
    hostcalls::enter_start_dir();
    let args: Vec<OsString> = std::env::args_os().collect();
    let name = args
        .first()
        .map(|a| {
            let s = a.to_string_lossy();
            s.rsplit('/').next().unwrap_or_default().to_string()
        })
        .unwrap_or_default();
    let code = dispatch(&name, args);
    let _ = std::io::stdout().flush();
    std::process::exit(code);
}
