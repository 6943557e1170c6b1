//! `timeout` (GNU coreutils 8.32): run a command, signal it when a time limit passes.
//!
//! Like GNU's, the signal goes to the command's whole process group (here: the command and
//! every process it started), so `timeout 1 bash -c 'sleep 9'` ends the `sleep` too. Exit
//! statuses: the command's own; 124 when it timed out (the command's signal status with
//! `--preserve-status`); 137 when KILL was sent, since GNU timeout signals its own group and
//! dies of KILL with the command; 125 for timeout's own failures; 126/127 when the command
//! cannot be run or found.

use crate::common::Io;
use crate::common::exec::{self, StartError};
use crate::common::getopt::{self, Config, flag, long_flag, with_arg};
use crate::common::io::run_main;
use hostcalls::proc::signal;
use std::ffi::OsString;
use std::time::Duration;

pub fn main(args: Vec<OsString>) -> i32 {
    run_main(args, run)
}

/// Status of timeout's own failures.
const CANCELED: i32 = 125;
const TIMED_OUT: i32 = 124;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum K {
    Signal,
    KillAfter,
    Preserve,
    Foreground,
    Verbose,
    Help,
    Version,
}

fn try_help(io: &mut Io) -> i32 {
    let _ = writeln!(io.err, "Try 'timeout --help' for more information.");
    CANCELED
}

/// GNU's duration syntax: a non-negative floating-point number with an optional `s`, `m`,
/// `h` or `d` suffix. 0 means no limit.
pub fn parse_duration(s: &str) -> Option<Duration> {
    let (num, mult) = match s.as_bytes().last()? {
        b's' => (&s[..s.len() - 1], 1.0),
        b'm' => (&s[..s.len() - 1], 60.0),
        b'h' => (&s[..s.len() - 1], 3600.0),
        b'd' => (&s[..s.len() - 1], 86400.0),
        _ => (s, 1.0),
    };
    // strtod's syntax, not Rust's: no "inf" spelled differently, no leading '+' issues.
    if num.is_empty() || num.starts_with(|c: char| c.is_whitespace()) {
        return None;
    }
    let v: f64 = num.parse().ok()?;
    if v.is_nan() || v < 0.0 {
        return None;
    }
    Some(Duration::from_secs_f64((v * mult).min(1e9)))
}

fn run(argv: &[String], io: &mut Io) -> i32 {
    let specs = [
        with_arg('s', "signal", K::Signal),
        with_arg('k', "kill-after", K::KillAfter),
        long_flag("preserve-status", K::Preserve),
        long_flag("foreground", K::Foreground),
        flag('v', "verbose", K::Verbose),
        long_flag("help", K::Help),
        long_flag("version", K::Version),
    ];
    let config = Config {
        stop_at_operand: true,
        digits: None,
    };
    let parsed = match getopt::parse(argv, &specs, config) {
        Ok(p) => p,
        Err(msg) => {
            let _ = writeln!(io.err, "timeout: {msg}");
            return try_help(io);
        }
    };
    let mut sig = signal::TERM;
    let mut kill_after: Option<Duration> = None;
    let (mut preserve, mut verbose) = (false, false);
    for o in &parsed.opts {
        let arg = o.arg.clone().unwrap_or_default();
        match o.key {
            K::Signal => match signal::parse(&arg) {
                Some(n) => sig = n,
                None => {
                    let _ = writeln!(io.err, "timeout: '{arg}': invalid signal");
                    return try_help(io);
                }
            },
            K::KillAfter => match parse_duration(&arg) {
                Some(d) => kill_after = Some(d),
                None => {
                    let _ = writeln!(io.err, "timeout: invalid time interval '{arg}'");
                    return try_help(io);
                }
            },
            K::Preserve => preserve = true,
            K::Foreground => {}
            K::Verbose => verbose = true,
            K::Help => {
                let _ = io.out.write_all(HELP.as_bytes());
                return 0;
            }
            K::Version => {
                let _ = writeln!(io.out, "timeout (GNU coreutils) 8.32");
                return 0;
            }
        }
    }
    let ops = &parsed.operands;
    if ops.len() < 2 {
        // GNU timeout names no missing operand: it prints the hint alone.
        return try_help(io);
    }
    let Some(limit) = parse_duration(&ops[0]) else {
        let _ = writeln!(io.err, "timeout: invalid time interval '{}'", ops[0]);
        return try_help(io);
    };
    let command = &ops[1..];
    let pid = match exec::start(command, None, false, io.out) {
        Ok(p) => p,
        Err(e) => return cannot_run(io, &command[0], e),
    };
    if limit.is_zero() {
        return hostcalls::wait(pid).unwrap_or(CANCELED);
    }
    match hostcalls::wait_timeout(pid, limit) {
        Ok(Some(status)) => return status,
        Ok(None) => {}
        Err(_) => return CANCELED,
    }
    if verbose {
        let _ = writeln!(
            io.err,
            "timeout: sending signal {} to command '{}'",
            signal::name(sig).unwrap_or_default(),
            command[0]
        );
    }
    signal_group(pid, sig);
    if sig == signal::KILL {
        // GNU timeout is in the group it signals: it dies of KILL too.
        let _ = hostcalls::wait(pid);
        return 128 + signal::KILL;
    }
    let status = match kill_after {
        Some(grace) => match hostcalls::wait_timeout(pid, grace) {
            Ok(Some(s)) => s,
            Ok(None) => {
                if verbose {
                    let _ = writeln!(
                        io.err,
                        "timeout: sending signal KILL to command '{}'",
                        command[0]
                    );
                }
                signal_group(pid, signal::KILL);
                let _ = hostcalls::wait(pid);
                return 128 + signal::KILL;
            }
            Err(_) => return CANCELED,
        },
        None => hostcalls::wait(pid).unwrap_or(CANCELED),
    };
    if preserve { status } else { TIMED_OUT }
}

/// Signals `pid` and everything it started (its process group, as GNU timeout's `kill(0)`).
fn signal_group(pid: u32, sig: i32) {
    let mut group = vec![pid];
    if let Ok(table) = hostcalls::proc_list() {
        let mut k = 0;
        while k < group.len() {
            let parent = group[k];
            group.extend(
                table
                    .entries
                    .iter()
                    .filter(|e| e.ppid == parent && e.pid != parent)
                    .map(|e| e.pid),
            );
            k += 1;
        }
    }
    // Parents first, as one `kill(0)` reaches a group: a shell must not see its child die
    // and carry on before its own signal arrives.
    for p in &group {
        let _ = hostcalls::proc_signal(*p, sig);
    }
}

fn cannot_run(io: &mut Io, name: &str, e: StartError) -> i32 {
    let (why, status) = match e {
        StartError::NotFound => ("No such file or directory".to_string(), 127),
        StartError::NotExecutable(err) => (crate::common::sys::strerror(&err), 126),
    };
    let _ = writeln!(io.err, "timeout: failed to run command '{name}': {why}");
    status
}

const HELP: &str = "Usage: timeout [OPTION] DURATION COMMAND [ARG]...
  or:  timeout [OPTION]
Start COMMAND, and kill it if still running after DURATION.

Mandatory arguments to long options are mandatory for short options too.
      --preserve-status
                 exit with the same status as COMMAND, even when the
                   command times out
      --foreground
                 when not running timeout directly from a shell prompt,
                   allow COMMAND to read from the TTY and get TTY signals;
                   in this mode, children of COMMAND will not be timed out
  -k, --kill-after=DURATION
                 also send a KILL signal if COMMAND is still running
                   this long after the initial signal was sent
  -s, --signal=SIGNAL
                 specify the signal to be sent on timeout;
                   SIGNAL may be a name like 'HUP' or a number;
                   see 'kill -l' for a list of signals
  -v, --verbose  diagnose to stderr any signal sent upon timeout
      --help     display this help and exit
      --version  output version information and exit

DURATION is a floating point number with an optional suffix:
's' for seconds (the default), 'm' for minutes, 'h' for hours or 'd' for days.
A duration of 0 disables the associated timeout.

If the command times out, and --preserve-status is not set, then exit with
status 124.  Otherwise, exit with the status of COMMAND.  If no signal
is specified, send the TERM signal upon timeout.  The TERM signal kills
any process that does not block or catch that signal.  It may be necessary
to use the KILL (9) signal, since this signal cannot be caught, in which
case the exit status is 128+9 rather than 124.

GNU coreutils online help: <https://www.gnu.org/software/coreutils/>
Full documentation <https://www.gnu.org/software/coreutils/timeout>
or available locally via: info '(coreutils) timeout invocation'
";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_take_suffixes() {
        assert_eq!(parse_duration("0.5"), Some(Duration::from_millis(500)));
        assert_eq!(parse_duration("2m"), Some(Duration::from_secs(120)));
        assert_eq!(parse_duration("1d"), Some(Duration::from_secs(86400)));
        assert_eq!(parse_duration("0"), Some(Duration::ZERO));
        assert_eq!(parse_duration("x"), None);
        assert_eq!(parse_duration("-1"), None);
        assert_eq!(parse_duration("5x"), None);
    }
}
