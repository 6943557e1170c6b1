//! Devices named as file operands. Utilities open their files through WASI, which knows no
//! devices: `cat /dev/urandom`, `head -c 16 /dev/zero` failed with "No such file or
//! directory", and `tee /dev/null` wrote into the tree's `/dev/null`, which later reads then
//! returned. The host's own open (redirections, `hostcalls::open`) does reach the devices.
//!
//! - A reader whose one device operand is endless (`zero`, `urandom`, `random`, `full`) runs
//!   as a child with that operand as `-` and the device, opened by the host, as its standard
//!   input. These readers print no file names for a lone operand, so nothing shows the swap.
//! - `tee` drops `/dev/null` operands: writing there and not writing are the same.
//! - `cp FILE /dev/null` copies into the device, which keeps nothing (it wrote into the
//!   tree's `/dev/null`).
//! - `mv SRC /dev/null` fails as on Linux: a device cannot be replaced by a rename, and
//!   removing it is refused.

use std::ffi::OsString;
use std::io::Write;

/// Devices that read endlessly (zeros, or random bytes).
const ENDLESS: &[&str] = &["/dev/zero", "/dev/urandom", "/dev/random", "/dev/full"];

/// Readers that take input files, read `-` as standard input, and name no file in their
/// output when given one.
const READERS: &[&str] = &[
    "base32", "base64", "basenc", "cat", "cut", "expand", "fmt", "fold", "hd", "head", "hexdump",
    "nl", "od", "sort", "tac", "tail", "unexpand", "uniq",
];

/// Handles `name`'s command line when it names a device as an operand; `None` leaves it to
/// the utility.
pub fn run(name: &str, args: &[OsString]) -> Option<i32> {
    match name {
        "tee" => Some(tee_without_null(args)),
        "mv" => mv_onto_device(args),
        "cp" => cp_into_sink(args),
        _ if READERS.contains(&name) => read_device(name, args),
        _ => None,
    }
}

fn read_device(name: &str, args: &[OsString]) -> Option<i32> {
    let rest = args.get(1..)?;
    let mut devices = rest
        .iter()
        .enumerate()
        .filter(|(_, a)| ENDLESS.iter().any(|d| *a == *d));
    let (at, device) = devices.next()?;
    // Several devices, or one beside standard input: the swap would show or collide.
    if devices.next().is_some() || rest.iter().any(|a| a == "-" || a == "/dev/stdin") {
        return None;
    }
    let device = device.to_string_lossy().into_owned();
    let input = hostcalls::open(&device, hostcalls::OpenFlags::READ).ok()?;
    let mut argv: Vec<String> = args
        .iter()
        .map(|a| a.to_string_lossy().into_owned())
        .collect();
    argv[at + 1] = "-".to_string();
    argv[0] = name.to_string();
    let request = hostcalls::SpawnRequest {
        argv,
        env: std::env::vars().collect(),
        cwd: applets::current_dir(),
        stdio: [input, hostcalls::STDOUT, hostcalls::STDERR],
    };
    let started = hostcalls::spawn(&request);
    let _ = hostcalls::close(input);
    // Unable to start a child: the utility answers as it would have.
    let pid = started.ok()?;
    Some(hostcalls::wait(pid).unwrap_or(1))
}

/// tee with its `/dev/null` operands left out (before `--` they could be option values only
/// if tee took any, and it takes none).
fn tee_without_null(args: &[OsString]) -> i32 {
    let args: Vec<OsString> = args
        .iter()
        .enumerate()
        .filter(|(i, a)| *i == 0 || *a != "/dev/null")
        .map(|(_, a)| a.clone())
        .collect();
    crate::dispatch_uutil("tee", args)
}

/// Devices that swallow what is written to them.
const SINKS: &[&str] = &["/dev/null", "/dev/zero"];

/// `cp FILE /dev/null`: the file is read and its bytes vanish; `-v` names the copy. Other
/// sources (missing, directories) are cp's own messages.
fn cp_into_sink(args: &[OsString]) -> Option<i32> {
    let mut verbose = false;
    let mut operands = Vec::new();
    for a in args.iter().skip(1) {
        let a = a.to_string_lossy();
        match a.as_ref() {
            "--verbose" => verbose = true,
            "--force" | "--" => {}
            _ if a.starts_with("--") => return None,
            _ if a.len() > 1 && a.starts_with('-') => {
                if !a[1..].chars().all(|c| "fvparR".contains(c)) {
                    return None;
                }
                verbose |= a.contains('v');
            }
            _ => operands.push(a.into_owned()),
        }
    }
    let [source, target] = operands.as_slice() else {
        return None;
    };
    if !SINKS.contains(&target.as_str()) {
        return None;
    }
    if !hostcalls::stat(source, true).is_ok_and(|st| st.is_file()) {
        return None;
    }
    if verbose {
        let _ = writeln!(
            std::io::stdout(),
            "{} -> {}",
            applets::shell_quote(source),
            applets::shell_quote(target)
        );
    }
    Some(0)
}

/// Ubuntu 22.04's `mv FILE /dev/null`: rename(2) cannot replace a device on another file
/// system, so mv falls back to copying, whose first step, removing the target, is refused.
fn mv_onto_device(args: &[OsString]) -> Option<i32> {
    let operands: Vec<&OsString> = args
        .iter()
        .skip(1)
        .filter(|a| !a.to_string_lossy().starts_with('-'))
        .collect();
    let options_ok = args.iter().skip(1).all(|a| {
        let a = a.to_string_lossy();
        !a.starts_with('-') || matches!(a.as_ref(), "-f" | "-v" | "--force")
    });
    let [source, target] = operands.as_slice() else {
        return None;
    };
    let target = target.to_string_lossy();
    if !options_ok || !(target == "/dev/null" || ENDLESS.contains(&target.as_ref())) {
        return None;
    }
    let source = source.to_string_lossy();
    // A missing source is mv's own error.
    hostcalls::stat(&source, false).ok()?;
    let _ = writeln!(
        std::io::stderr(),
        "mv: inter-device move failed: {} to {}; unable to remove target: Device or resource busy",
        applets::shell_quote(&source),
        applets::shell_quote(&target)
    );
    Some(1)
}
