//! `more` and `less`. Standard output is never a terminal in the sandbox, so both behave as
//! they do on a pipe: they copy text to standard output, like `cat`.
//!
//! `more` follows util-linux 2.37 (Ubuntu 22.04) when neither standard input nor standard
//! output is a terminal, which is how upstream InterCode ran commands: it first copies
//! standard input, then prints every file behind a `::::::::::::::` / name /
//! `::::::::::::::` banner (even a single file), `*** DIR: directory ***` for directories,
//! `******** F: Not a text file ********` for a.out/ELF files (the two-byte magic test of a
//! build without libmagic), and `more: cannot open F: …` on standard error; it exits 0.
//! `-NUM`, `+NUM`, `+/PATTERN` and `-dflcpsue -n N` are accepted and have no effect on a
//! pipe. When standard input is a terminal (natively, in a shell) there is no stdin copy and
//! a banner only with several files.
//!
//! `less` (GNU less 590 on a pipe) concatenates its files or standard input (`-` included)
//! without banners, and reports `F: No such file or directory` / `F is a directory` on
//! standard *output*, as less does; options are ignored; it exits 0.

use crate::common::getopt::{self, Config, OptSpec};
use crate::common::io::{prog, report, run_main, write_failed};
use crate::common::{Io, sys};
use std::ffi::OsString;
use std::io::IsTerminal;

pub fn main(args: Vec<OsString>) -> i32 {
    run_main(args, run)
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum K {
    Ignored,
    Version,
    Help,
}

const SPECS: &[OptSpec<K>] = &[
    getopt::flag('d', "silent", K::Ignored),
    getopt::flag('f', "logical", K::Ignored),
    getopt::flag('l', "no-pause", K::Ignored),
    getopt::flag('c', "print-over", K::Ignored),
    getopt::flag('p', "clean-print", K::Ignored),
    getopt::flag('s', "squeeze", K::Ignored),
    getopt::flag('u', "plain", K::Ignored),
    getopt::with_arg('n', "lines", K::Ignored),
    getopt::flag('e', "", K::Ignored),
    getopt::flag('V', "version", K::Version),
    getopt::flag('h', "help", K::Help),
];

pub fn run(args: &[String], io: &mut Io) -> i32 {
    let prog = prog(args, "more");
    if prog.rsplit('/').next() == Some("less") {
        return less(args, io);
    }
    // `-NUM`, `+NUM` and `+/PATTERN` are taken out before option parsing.
    let rest: Vec<String> = args
        .iter()
        .enumerate()
        .filter(|(i, a)| {
            *i == 0
                || !((a.len() > 1
                    && a.starts_with('-')
                    && a[1..].bytes().all(|b| b.is_ascii_digit()))
                    || (a.starts_with('+')
                        && (a[1..].bytes().all(|b| b.is_ascii_digit()) && a.len() > 1
                            || a[1..].starts_with('/'))))
        })
        .map(|(_, a)| a.clone())
        .collect();
    let parsed = match getopt::parse(&rest, SPECS, Config::default()) {
        Ok(p) => p,
        Err(msg) => {
            let _ = io.err.write_all(gnu::usage::report(&prog, &msg).as_bytes());
            return 1;
        }
    };
    for o in &parsed.opts {
        match o.key {
            K::Ignored => {}
            K::Version => {
                let _ = writeln!(io.out, "more from util-linux 2.37.2");
                return 0;
            }
            K::Help => {
                let _ = writeln!(io.out, "\nUsage:\n {prog} [options] <file>...");
                return 0;
            }
        }
    }
    let files = parsed.operands;
    let stdin_is_tty = std::io::stdin().is_terminal();
    if stdin_is_tty && files.is_empty() {
        let _ = writeln!(
            io.err,
            "{prog}: bad usage\nTry '{prog} --help' for more information."
        );
        return 1;
    }
    let mut out = Vec::new();
    if !stdin_is_tty && let Err(e) = io.stdin.read_to_end(&mut out) {
        let _ = writeln!(io.err, "{prog}: {}", sys::strerror(&e));
    }
    let banners = files.len() > 1 || !stdin_is_tty;
    for f in &files {
        if let Err(e) = io.out.write_all(&out) {
            return write_failed(args, &e, io.err);
        }
        out.clear();
        let data = match std::fs::read(f) {
            Ok(d) => d,
            Err(e)
                if e.kind() == std::io::ErrorKind::IsADirectory
                    || hostcalls::stat(f, true).is_ok_and(|s| s.is_dir()) =>
            {
                out.extend_from_slice(format!("\n*** {f}: directory ***\n\n").as_bytes());
                continue;
            }
            Err(e) => {
                report(
                    io.out,
                    io.err,
                    &prog,
                    format_args!("cannot open {f}: {}", sys::strerror(&e)),
                );
                continue;
            }
        };
        if data.len() >= 2 {
            let magic = u16::from(data[0]) | u16::from(data[1]) << 8;
            if [0o407, 0o410, 0o413, 0o405, 0o411, 0o177545, 0x457f].contains(&magic) {
                out.extend_from_slice(
                    format!("\n******** {f}: Not a text file ********\n\n").as_bytes(),
                );
                continue;
            }
        }
        if banners {
            out.extend_from_slice(format!("::::::::::::::\n{f}\n::::::::::::::\n").as_bytes());
        }
        out.extend_from_slice(&data);
    }
    if let Err(e) = io.out.write_all(&out) {
        return write_failed(args, &e, io.err);
    }
    0
}

fn less(args: &[String], io: &mut Io) -> i32 {
    let mut files = Vec::new();
    let mut only_operands = false;
    for a in &args[1..] {
        if only_operands || a == "-" || !(a.starts_with('-') || a.starts_with('+')) {
            files.push(a.clone());
        } else if a == "--" {
            only_operands = true;
        }
    }
    if files.is_empty() {
        files.push("-".to_string());
    }
    for f in &files {
        let chunk = if f == "-" {
            let mut v = Vec::new();
            let _ = io.stdin.read_to_end(&mut v);
            v
        } else if hostcalls::stat(f, true).is_ok_and(|s| s.is_dir()) {
            format!("{f} is a directory\n").into_bytes()
        } else {
            match std::fs::read(f) {
                Ok(d) => d,
                Err(e) => format!("{f}: {}\n", sys::strerror(&e)).into_bytes(),
            }
        };
        if let Err(e) = io.out.write_all(&chunk) {
            return write_failed(args, &e, io.err);
        }
    }
    0
}

#[cfg(test)]
mod tests {
    use super::*;

    fn go(args: &[&str], stdin: &[u8]) -> (i32, String, String) {
        let args: Vec<String> = args.iter().map(|s| s.to_string()).collect();
        crate::common::io::capture_text(run, &args, stdin)
    }

    #[test]
    fn less_concatenates() {
        assert_eq!(go(&["less", "-R"], b"x").1, "x");
        let dir = tempfile::tempdir().unwrap();
        let a = dir.path().join("a");
        std::fs::write(&a, "1\n").unwrap();
        let a = a.to_string_lossy().into_owned();
        assert_eq!(go(&["less", &a, &a], b"").1, "1\n1\n");
        let (code, out, _) = go(&["less", "/nonexistent-q", &a], b"");
        assert_eq!(code, 0);
        assert_eq!(out, "/nonexistent-q: No such file or directory\n1\n");
    }

    #[test]
    fn more_banners_and_magic() {
        if std::io::stdin().is_terminal() {
            return;
        }
        let dir = tempfile::tempdir().unwrap();
        let p = |n: &str| dir.path().join(n).to_string_lossy().into_owned();
        std::fs::write(p("a"), "1\n").unwrap();
        std::fs::write(p("elf"), b"\x7fELF").unwrap();
        let (code, out, err) = go(&["more", &p("a"), &p("elf"), &p("nope")], b"in\n");
        assert_eq!(code, 0);
        let a = p("a");
        let elf = p("elf");
        assert_eq!(
            out,
            format!(
                "in\n::::::::::::::\n{a}\n::::::::::::::\n1\n\n******** {elf}: Not a text file ********\n\n"
            )
        );
        assert!(err.contains("cannot open"));
        assert_eq!(go(&["more", "-x"], b"").0, 1);
    }
}
