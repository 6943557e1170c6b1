//! `env` (GNU coreutils 8.32): print the environment, or run a command in a changed one. The
//! command is started through the host like any other process (uutils' `env` needs `execvp`,
//! which WASI lacks). Options: `-i`/`-`, `-u NAME`, `-0`, `-C DIR`, `--`, then `NAME=VALUE`s.

use crate::common::exec::{StartError, run_in_env};
use crate::common::getopt::{self, Config, flag, with_arg};
use crate::common::io::{prog, run_main};
use crate::common::{Io, sys};
use std::ffi::OsString;

pub fn main(args: Vec<OsString>) -> i32 {
    run_main(args, run)
}

/// GNU's statuses: 125 for env's own failures, 126/127 when the command cannot run.
const FAILURE: i32 = 125;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum K {
    Ignore,
    Unset,
    Null,
    Chdir,
}

fn run(args: &[String], io: &mut Io) -> i32 {
    let prog = prog(args, "env");
    let specs = [
        flag('i', "ignore-environment", K::Ignore),
        with_arg('u', "unset", K::Unset),
        flag('0', "null", K::Null),
        with_arg('C', "chdir", K::Chdir),
    ];
    // A lone `-` means `-i`; options end at the first operand (the rest is the command's).
    let args: Vec<String> = args
        .iter()
        .map(|a| {
            if a == "-" {
                "-i".to_string()
            } else {
                a.clone()
            }
        })
        .collect();
    let config = Config {
        stop_at_operand: true,
        ..Config::default()
    };
    let parsed = match getopt::parse(&args, &specs, config) {
        Ok(p) => p,
        Err(msg) => {
            let _ = io.err.write_all(gnu::usage::report(&prog, &msg).as_bytes());
            return FAILURE;
        }
    };
    let mut env: Vec<(String, String)> = std::env::vars().collect();
    let (mut null, mut chdir) = (false, None);
    for opt in &parsed.opts {
        match opt.key {
            K::Ignore => env.clear(),
            K::Unset => {
                let name = opt.arg.clone().unwrap_or_default();
                if name.is_empty() || name.contains('=') {
                    let _ = writeln!(io.err, "{prog}: cannot unset '{name}': Invalid argument");
                    return FAILURE;
                }
                env.retain(|(k, _)| *k != name);
            }
            K::Null => null = true,
            K::Chdir => chdir = opt.arg.clone(),
        }
    }
    let mut rest = parsed.operands.iter().peekable();
    while let Some((name, value)) = rest.peek().and_then(|a| a.split_once('=')) {
        env.retain(|(k, _)| k != name);
        env.push((name.to_string(), value.to_string()));
        rest.next();
    }
    let command: Vec<String> = rest.cloned().collect();
    if command.is_empty() {
        if chdir.is_some() {
            let _ = writeln!(
                io.err,
                "{prog}: must specify command with --chdir (-C)\nTry '{prog} --help' for more information."
            );
            return FAILURE;
        }
        let end = if null { '\0' } else { '\n' };
        for (k, v) in &env {
            let _ = write!(io.out, "{k}={v}{end}");
        }
        return 0;
    }
    if null {
        let _ = writeln!(
            io.err,
            "{prog}: cannot specify --null (-0) with command\nTry '{prog} --help' for more information."
        );
        return FAILURE;
    }
    if let Some(dir) = &chdir
        && let Err(e) = hostcalls::stat(dir, true).and_then(|st| {
            if st.is_dir() {
                Ok(())
            } else {
                Err(std::io::Error::from_raw_os_error(20))
            }
        })
    {
        let _ = writeln!(
            io.err,
            "{prog}: cannot change directory to '{dir}': {}",
            sys::strerror(&e)
        );
        return FAILURE;
    }
    match run_in_env(&command, chdir.as_deref(), env, io.out) {
        Ok(status) => status,
        Err(StartError::NotFound) => {
            let _ = writeln!(
                io.err,
                "{prog}: '{}': No such file or directory",
                command[0]
            );
            127
        }
        Err(StartError::NotExecutable(e)) => {
            let _ = writeln!(io.err, "{prog}: '{}': {}", command[0], sys::strerror(&e));
            126
        }
    }
}
