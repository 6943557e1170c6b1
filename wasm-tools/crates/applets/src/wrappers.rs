//! `nohup`, `nice` and `stdbuf` (GNU coreutils 8.32): run a command with a changed
//! attribute the sandbox does not model (hangup signals, scheduling priority, stdio
//! buffering), so each checks its arguments in GNU's words and runs the command.
//!
//! `nohup` redirects only what is a terminal; in the sandbox (as under upstream's
//! `docker exec` without a TTY) nothing is, so it prints nothing and redirects nothing.

use crate::common::Io;
use crate::common::exec::{self, StartError};
use crate::common::getopt::{self, Config, HasArg, OptSpec, long_flag, with_arg};
use crate::common::io::run_main;
use std::ffi::OsString;

pub fn nohup_main(args: Vec<OsString>) -> i32 {
    run_main(args, nohup)
}

pub fn nice_main(args: Vec<OsString>) -> i32 {
    run_main(args, nice)
}

pub fn stdbuf_main(args: Vec<OsString>) -> i32 {
    run_main(args, stdbuf)
}

/// Status of the wrapper's own failures.
const CANCELED: i32 = 125;

fn try_help(io: &mut Io, prog: &str) -> i32 {
    let _ = writeln!(io.err, "{}", gnu::usage::try_help(prog));
    CANCELED
}

/// Runs the command; 126/127 with `PROG: failed to run command 'X': why` when it cannot.
fn exec_command(io: &mut Io, prog: &str, command: &[String]) -> i32 {
    match exec::run(command, None, false, io.out) {
        Ok(status) => status,
        Err(e) => {
            let (why, status) = match e {
                StartError::NotFound => ("No such file or directory".to_string(), 127),
                StartError::NotExecutable(err) => (crate::common::sys::strerror(&err), 126),
            };
            if prog == "nice" {
                let _ = writeln!(io.err, "nice: '{}': {why}", command[0]);
            } else {
                let _ = writeln!(
                    io.err,
                    "{prog}: failed to run command '{}': {why}",
                    command[0]
                );
            }
            status
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum K {
    Adjust,
    Input,
    Output,
    Error,
    Help,
    Version,
}

fn nohup(argv: &[String], io: &mut Io) -> i32 {
    let specs = [long_flag("help", K::Help), long_flag("version", K::Version)];
    let config = Config {
        stop_at_operand: true,
        digits: None,
    };
    let parsed = match getopt::parse(argv, &specs, config) {
        Ok(p) => p,
        Err(msg) => {
            let _ = writeln!(io.err, "nohup: {msg}");
            return try_help(io, "nohup");
        }
    };
    if let Some(o) = parsed.opts.first() {
        return match o.key {
            K::Version => {
                let _ = writeln!(io.out, "nohup (GNU coreutils) 8.32");
                0
            }
            _ => {
                let _ = writeln!(
                    io.out,
                    "Usage: nohup COMMAND [ARG]...\n  or:  nohup OPTION\nRun COMMAND, ignoring hangup signals."
                );
                0
            }
        };
    }
    if parsed.operands.is_empty() {
        let _ = writeln!(io.err, "nohup: missing operand");
        return try_help(io, "nohup");
    }
    exec_command(io, "nohup", &parsed.operands)
}

fn nice(argv: &[String], io: &mut Io) -> i32 {
    // The old `-N` / `--N` adjustment spelling comes first, as in GNU nice.
    let mut args: Vec<String> = vec![argv[0].clone()];
    let mut adjustment: Option<String> = None;
    let mut rest = argv[1..].iter();
    if let Some(first) = argv.get(1)
        && first.len() > 1
        && first.starts_with('-')
        && first[1..].trim_start_matches('-').parse::<i64>().is_ok()
    {
        adjustment = Some(first.trim_start_matches('-').to_string());
        rest.next();
    }
    args.extend(rest.cloned());
    let specs = [
        with_arg('n', "adjustment", K::Adjust),
        long_flag("help", K::Help),
        long_flag("version", K::Version),
    ];
    let config = Config {
        stop_at_operand: true,
        digits: None,
    };
    let parsed = match getopt::parse(&args, &specs, config) {
        Ok(p) => p,
        Err(msg) => {
            let _ = writeln!(io.err, "nice: {msg}");
            return try_help(io, "nice");
        }
    };
    for o in &parsed.opts {
        match o.key {
            K::Adjust => {
                let a = o.arg.clone().unwrap_or_default();
                if a.trim().parse::<i64>().is_err() {
                    let _ = writeln!(io.err, "nice: invalid adjustment '{a}'");
                    return CANCELED;
                }
                adjustment = Some(a);
            }
            K::Version => {
                let _ = writeln!(io.out, "nice (GNU coreutils) 8.32");
                return 0;
            }
            _ => {
                let _ = writeln!(
                    io.out,
                    "Usage: nice [OPTION] [COMMAND [ARG]...]\nRun COMMAND with an adjusted niceness, which affects process scheduling."
                );
                return 0;
            }
        }
    }
    if parsed.operands.is_empty() {
        if adjustment.is_some() {
            let _ = writeln!(io.err, "nice: a command must be given with an adjustment");
            return try_help(io, "nice");
        }
        // The sandbox's processes all run at niceness 0.
        let _ = writeln!(io.out, "0");
        return 0;
    }
    exec_command(io, "nice", &parsed.operands)
}

fn stdbuf(argv: &[String], io: &mut Io) -> i32 {
    let specs = [
        with_arg('i', "input", K::Input),
        with_arg('o', "output", K::Output),
        with_arg('e', "error", K::Error),
        OptSpec {
            short: None,
            long: Some("help"),
            arg: HasArg::No,
            key: K::Help,
        },
        long_flag("version", K::Version),
    ];
    let config = Config {
        stop_at_operand: true,
        digits: None,
    };
    let parsed = match getopt::parse(argv, &specs, config) {
        Ok(p) => p,
        Err(msg) => {
            let _ = writeln!(io.err, "stdbuf: {msg}");
            return try_help(io, "stdbuf");
        }
    };
    let mut modes = 0;
    for o in &parsed.opts {
        match o.key {
            K::Input | K::Output | K::Error => {
                let m = o.arg.clone().unwrap_or_default();
                let ok = m == "L" && o.key != K::Input || m == "0" || valid_size(&m);
                if o.key == K::Input && m == "L" {
                    let _ = writeln!(io.err, "stdbuf: line buffering stdin is meaningless");
                    return try_help(io, "stdbuf");
                }
                if !ok {
                    let _ = writeln!(io.err, "stdbuf: invalid mode '{m}'");
                    return CANCELED;
                }
                modes += 1;
            }
            K::Version => {
                let _ = writeln!(io.out, "stdbuf (GNU coreutils) 8.32");
                return 0;
            }
            _ => {
                let _ = writeln!(
                    io.out,
                    "Usage: stdbuf OPTION... COMMAND\nRun COMMAND, with modified buffering operations for its standard streams."
                );
                return 0;
            }
        }
    }
    if parsed.operands.is_empty() {
        let _ = writeln!(io.err, "stdbuf: missing operand");
        return try_help(io, "stdbuf");
    }
    if modes == 0 {
        let _ = writeln!(io.err, "stdbuf: you must specify a buffering mode option");
        return try_help(io, "stdbuf");
    }
    exec_command(io, "stdbuf", &parsed.operands)
}

/// A buffer size: digits with an optional unit (`4K`, `1MB`).
fn valid_size(s: &str) -> bool {
    let digits = s.bytes().take_while(u8::is_ascii_digit).count();
    if digits == 0 {
        return false;
    }
    let unit = &s[digits..];
    unit.is_empty()
        || [
            "K", "M", "G", "T", "P", "E", "Z", "Y", "k", "KB", "MB", "GB", "KiB", "MiB", "GiB",
        ]
        .contains(&unit)
}
