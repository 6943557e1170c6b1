//! `awk`, `mawk`, `gawk`: an AWK interpreter written for the sandbox.
//!
//! Upstream InterCode's containers run **mawk 1.3.4-20200120** as `awk`, so that is the
//! reference: its output formats, its error messages (`awk: line 1: syntax error at or near
//! }`, exit 2 — the prefix is the name we were invoked as, as with mawk), and its quirks:
//!
//! * numbers print as integers only within ±(2^31-1) (`print 2^31` → `2.14748e+09`);
//!   `printf %d` clamps to that range, `%u %x %o` to 0..=2^32-1 ([`value`], [`format`]);
//! * `substr` truncates its arguments and a start below 1 shortens the length
//!   (`substr("hello", 0, 2)` is `he`);
//! * regexes have no `{n,m}` intervals (braces are literal), `.` matches newline, `\d` is a
//!   plain `d`; matching is POSIX leftmost-longest ([`regex`]);
//! * strings are bytes (`length("é")` is 2), `toupper` is ASCII-only;
//! * `-F t` is the letter t (not tab); `-F '\t'` is a tab; FILENAME is `-` for standard
//!   input; `**` is a syntax error; `func` is not a keyword; `1/0` prints `inf`;
//! * `index(s, "")` is 1; strnum rules: input text ending in a digit or `.` that `strtod`
//!   consumes entirely (so `0x10` is 16 but `0x1A` is a string);
//! * `for (k in a)` visits keys in mawk's hash-table order ([`array`] reproduces its table,
//!   including move-to-front on lookup), the loop variable is a string, and deleted keys
//!   still come up; `systime()`, `strftime()` and `mktime()` exist (in UTC);
//! * like stdio, standard output is block-buffered (4 KiB) and flushed before commands run
//!   and at exit, standard error is not: error messages reach a shared pipe first.
//!
//! Invoked as `gawk` the same interpreter accepts a few gawk-isms: `**`, `**=`, `func`, and
//! regex intervals (`[[:alpha:]]{3,6}`). It is otherwise still mawk-flavoured.
//!
//! Known differences from mawk: `rand()` is a different generator (mawk seeds from the clock,
//! so its values are not reproducible anyway) and the initial seed is 0; after the first
//! syntax error we stop, where mawk's parser recovers and may report more (we add only the
//! second line of `extra '}'`); recursion stops at 400 calls ("program limit exceeded", as
//! mawk's evaluation stack does at roughly 500 simple calls); locale-dependent behaviour is
//! not modelled (C locale, like upstream's containers).
//!
//! Commands (`cmd | getline`, `print | cmd`, `system()`) run `sh -c CMD` through the host's
//! spawn import ([`io`]); a function-call depth limit turns runaway recursion into an error.
//!
//! ```text
//! $ awk -F: -v OFS=- '$3 >= 1000 { n++; print $1, $3 } END { print n+0 }' /etc/passwd
//! ```

mod array;
mod ast;
mod format;
mod interp;
mod io;
mod lexer;
mod parser;
mod regex;
mod stack;
mod time;
mod value;

#[cfg(test)]
mod tests;

use crate::common::sys::os_bytes;
use std::ffi::OsString;
use std::io::{Read, Write};

pub use interp::Io;

const VERSION: &str = "mawk 1.3.4 20200120 (intercode-wasm awk)\n";

/// The applet entry point (`args[0]` is the name we were called by).
pub fn main(args: Vec<OsString>) -> i32 {
    let io = Io {
        stdin: Box::new(std::io::stdin()),
        // mawk writes through stdio: a pipe gets a 4096-byte buffer, flushed when full, at
        // exit and before running commands; stderr is unbuffered.
        stdout: Box::new(std::io::BufWriter::with_capacity(4096, std::io::stdout())),
        stderr: Box::new(std::io::stderr()),
    };
    run(args, io)
}

/// Runs awk with explicit standard streams (the tests capture them).
pub fn run(args: Vec<OsString>, mut io: Io) -> i32 {
    let argv: Vec<Vec<u8>> = args.iter().map(|a| os_bytes(a)).collect();
    let prog_name = argv
        .first()
        .map(|a| {
            let s = String::from_utf8_lossy(a).into_owned();
            s.rsplit('/').next().unwrap_or("awk").to_string()
        })
        .filter(|s| !s.is_empty())
        .unwrap_or_else(|| "awk".into());
    let gawk = prog_name == "gawk";

    let mut fs: Option<Vec<u8>> = None;
    let mut assigns: Vec<Vec<u8>> = Vec::new();
    let mut progfiles: Vec<Vec<u8>> = Vec::new();
    let mut i = 1;
    let fail = |io: &mut Io, msg: &str| {
        let _ = writeln!(io.stderr, "{prog_name}: {msg}");
        2
    };
    while i < argv.len() {
        let a = &argv[i];
        if a == b"--" {
            i += 1;
            break;
        }
        if a.len() < 2 || a[0] != b'-' {
            break;
        }
        let opt = a[1];
        // The option's value: the rest of this word or the next word.
        let value = |i: &mut usize| -> Option<Vec<u8>> {
            if a.len() > 2 {
                Some(a[2..].to_vec())
            } else {
                *i += 1;
                argv.get(*i).cloned()
            }
        };
        match opt {
            b'F' => match value(&mut i) {
                Some(v) => fs = Some(v),
                None => return fail(&mut io, "option -F lacks argument"),
            },
            b'v' => match value(&mut i) {
                Some(v) if v.contains(&b'=') => assigns.push(v),
                Some(v) => {
                    return fail(
                        &mut io,
                        &format!("improper assignment: -v {}", String::from_utf8_lossy(&v)),
                    );
                }
                None => return fail(&mut io, "option -v lacks argument"),
            },
            b'f' => match value(&mut i) {
                Some(v) => progfiles.push(v),
                None => return fail(&mut io, "option -f lacks argument"),
            },
            b'W' => {
                let v = value(&mut i).unwrap_or_default();
                if v.starts_with(b"v") {
                    let _ = io.stdout.write_all(VERSION.as_bytes());
                    let _ = io.stdout.flush();
                    return 0;
                }
                // mawk takes any abbreviation of its -W words.
                let word = v.split(|&b| b == b'=').next().unwrap_or_default();
                let is = |full: &str| !word.is_empty() && full.as_bytes().starts_with(word);
                if is("usage") || is("help") {
                    let _ = write!(io.stderr, "{}", mawk_usage(&prog_name, gawk));
                    return 0;
                }
                let known = [
                    "dump",
                    "interactive",
                    "exec",
                    "random",
                    "sprintf",
                    "posix_space",
                ];
                if !known.iter().any(|k| is(k)) {
                    let _ = writeln!(
                        io.stderr,
                        "{prog_name}: vacuous option: -W {}",
                        String::from_utf8_lossy(&v)
                    );
                }
                // The known ones (interactive, posix_space, …) change nothing here.
            }
            b'-' if a == b"--version" && gawk => {
                let _ = io.stdout.write_all(VERSION.as_bytes());
                let _ = io.stdout.flush();
                return 0;
            }
            b'-' if gawk && (a == b"--posix" || a == b"--traditional") => {}
            _ => {
                return fail(
                    &mut io,
                    &format!("not an option: {}", String::from_utf8_lossy(a)),
                );
            }
        }
        i += 1;
    }

    let src: Vec<u8> = if progfiles.is_empty() {
        match argv.get(i) {
            Some(p) => {
                i += 1;
                p.clone()
            }
            None => {
                // mawk: with no program at all it shows its usage; with only options it
                // quietly runs nothing. Both exit 0.
                if argv.len() <= 1 {
                    let _ = write!(io.stderr, "{}", mawk_usage(&prog_name, gawk));
                }
                return 0;
            }
        }
    } else {
        let mut src = Vec::new();
        for f in &progfiles {
            let path = String::from_utf8_lossy(f).into_owned();
            let r = if path == "-" || path == "/dev/stdin" {
                let mut v = Vec::new();
                io.stdin.read_to_end(&mut v).map(|_| v)
            } else {
                std::fs::read(&path)
            };
            match r {
                Ok(text) => {
                    src.extend_from_slice(&text);
                    src.push(b'\n');
                }
                // mawk opens a directory and fails reading it (WASI fails it otherwise).
                Err(_) if std::fs::metadata(&path).is_ok_and(|m| m.is_dir()) => {
                    return fail(&mut io, "read error (Is a directory)");
                }
                Err(e) => {
                    let msg = e.to_string();
                    let msg = msg.split(" (os error").next().unwrap_or("").to_string();
                    return fail(&mut io, &format!("cannot open {path} ({msg})"));
                }
            }
        }
        src
    };

    let mut prog = match parser::parse(&src, gawk) {
        Ok(p) => p,
        Err(e) => {
            let _ = if e.bare_line {
                writeln!(io.stderr, "{prog_name}: {}: {}", e.line, e.msg)
            } else {
                writeln!(io.stderr, "{prog_name}: line {}: {}", e.line, e.msg)
            };
            if let Some((line, msg)) = e.then {
                let _ = writeln!(io.stderr, "{prog_name}: line {line}: {msg}");
            }
            return 2;
        }
    };

    let mut operands: Vec<Vec<u8>> = vec![prog_name.clone().into_bytes()];
    operands.extend(argv[i.min(argv.len())..].iter().cloned());
    let env: Vec<(Vec<u8>, Vec<u8>)> = std::env::vars_os()
        .map(|(k, v)| (os_bytes(&k), os_bytes(&v)))
        .collect();

    // A bad FS regex from -F is reported before anything runs (mawk: "line 0").
    if let Some(fs) = &fs
        && let Err(msg) = interp::check_fs(&lexer::unescape(fs), gawk)
    {
        let _ = writeln!(io.stderr, "{prog_name}: line 0: {msg}");
        return 2;
    }

    // BEGIN and END run outside the per-record loop; the interpreter owns the rest.
    let begin = std::mem::take(&mut prog.begin);
    let end = std::mem::take(&mut prog.end);
    let mut it = interp::Interp::new(prog, io, gawk, prog_name);
    it.set_args(&operands, &env);
    if let Some(fs) = fs {
        // Escapes are processed as for -v (`-F '\t'` is a tab).
        it.command_line_assign(&[b"FS=".as_slice(), &fs].concat());
    }
    for a in &assigns {
        it.command_line_assign(a);
    }
    it.run(&begin, &end)
}

/// mawk 1.3.4's usage (its name whatever it was called as: Ubuntu's `awk` links to it).
fn mawk_usage(prog_name: &str, gawk: bool) -> String {
    let name = if gawk { prog_name } else { "mawk" };
    format!(
        "Usage: {name} [Options] [Program] [file ...]\n\n\
         Program:\n    The -f option value is the name of a file containing program text.\n    \
         If no -f option is given, a \"--\" ends option processing; the following\n    \
         parameters are the program text.\n\n\
         Options:\n    -f program-file  Program  text is read from file instead of from the\n                     \
         command-line.  Multiple -f options are accepted.\n    \
         -F value         sets the field separator, FS, to value.\n    \
         -v var=value     assigns value to program variable var.\n    \
         --               unambiguous end of options.\n\n    \
         Implementation-specific options are prefixed with \"-W\".  They can be\n    \
         abbreviated:\n\n    \
         -W version       show version information and exit.\n    \
         -W dump          show assembler-like listing of program and exit.\n    \
         -W help          show this message and exit.\n    \
         -W interactive   set unbuffered output, line-buffered input.\n    \
         -W exec file     use file as program as well as last option.\n    \
         -W random=number set initial random seed.\n    \
         -W sprintf=number adjust size of sprintf buffer.\n    \
         -W posix_space   do not consider \"\\n\" a space.\n    \
         -W usage         show this message and exit.\n"
    )
}
