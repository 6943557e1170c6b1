//! `printenv` (coreutils 8.32): the whole environment, or the values of the named variables;
//! status 1 when one is unset, 2 for usage errors.

use crate::common::Io;
use crate::common::io::{prog, run_main};
use std::ffi::OsString;

pub fn main(args: Vec<OsString>) -> i32 {
    run_main(args, run)
}

pub fn run(args: &[String], io: &mut Io) -> i32 {
    let prog = prog(args, "printenv");
    let mut end = '\n';
    let mut names = Vec::new();
    let mut options_done = false;
    for a in args.iter().skip(1) {
        if options_done || !a.starts_with('-') || a == "-" {
            names.push(a.clone());
            continue;
        }
        match a.as_str() {
            "--" => options_done = true,
            "--null" => end = '\0',
            "--help" => {
                let _ = writeln!(io.out, "Usage: {prog} [OPTION]... [VARIABLE]...");
                return 0;
            }
            "--version" => {
                let _ = writeln!(io.out, "printenv (GNU coreutils) 8.32");
                return 0;
            }
            a if a.starts_with("--") => {
                let _ = writeln!(
                    io.err,
                    "{prog}: unrecognized option '{a}'\nTry '{prog} --help' for more information."
                );
                return 2;
            }
            a => {
                for c in a[1..].chars() {
                    if c != '0' {
                        let _ = writeln!(
                            io.err,
                            "{prog}: invalid option -- '{c}'\nTry '{prog} --help' for more information."
                        );
                        return 2;
                    }
                    end = '\0';
                }
            }
        }
    }
    if names.is_empty() {
        for (k, v) in std::env::vars_os() {
            let _ = write!(
                io.out,
                "{}={}{end}",
                k.to_string_lossy(),
                v.to_string_lossy()
            );
        }
        return 0;
    }
    let mut missing = 0;
    for name in &names {
        match std::env::var_os(name).filter(|_| !name.contains('=')) {
            Some(v) => {
                let _ = write!(io.out, "{}{end}", v.to_string_lossy());
            }
            None => missing += 1,
        }
    }
    i32::from(missing > 0)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn call(args: &[&str]) -> (i32, String, String) {
        let argv: Vec<String> = args.iter().map(|s| s.to_string()).collect();
        crate::common::io::capture_text(run, &argv, b"")
    }

    #[test]
    fn values_and_statuses() {
        let path = std::env::var("PATH").unwrap_or_default();
        assert_eq!(
            call(&["printenv", "PATH", "NO_SUCH_VAR_X"]),
            (1, format!("{path}\n"), String::new())
        );
        assert_eq!(call(&["printenv", "-x"]).0, 2);
    }
}
