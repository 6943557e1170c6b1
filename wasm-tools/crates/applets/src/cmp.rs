//! `cmp`: GNU diffutils 3.8 byte-by-byte comparison.
//!
//! Supported: `cmp [OPTION]... FILE1 [FILE2 [SKIP1 [SKIP2]]]` with `-b`/`--print-bytes`
//! (`-c`), `-i SKIP[:SKIP2]`, `-l`/`--verbose`, `-n LIMIT`/`--bytes`, `-s`/`--quiet`/
//! `--silent`, `-` or a missing FILE2 for standard input, SKIP/LIMIT suffixes (`kB K MB M …`),
//! GNU's messages (`a b differ: char 6, line 2`, `cmp: EOF on b after byte 4, line 1`,
//! `cmp: EOF on b which is empty`) and exit status 0/1/2.
//!
//! Like GNU, the first-difference message says `char` in the C locale (what upstream's
//! containers ran, no `LANG`) and `byte` when `LC_ALL`/`LC_MESSAGES`/`LANG` name another
//! locale. Files are read whole rather than in blocks (the output is the same).

use crate::common::getopt::{self, Config, OptSpec};
use crate::common::io::{prog, run_main};
use crate::common::{Io, sys};
use std::ffi::OsString;
use std::io;

pub fn main(args: Vec<OsString>) -> i32 {
    run_main(args, run)
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum K {
    PrintBytes,
    Ignore,
    Verbose,
    Bytes,
    Silent,
    Version,
    Help,
}

const SPECS: &[OptSpec<K>] = &[
    getopt::flag('b', "print-bytes", K::PrintBytes),
    getopt::flag('c', "print-chars", K::PrintBytes),
    getopt::with_arg('i', "ignore-initial", K::Ignore),
    getopt::flag('l', "verbose", K::Verbose),
    getopt::with_arg('n', "bytes", K::Bytes),
    getopt::flag('s', "silent", K::Silent),
    getopt::long_flag("quiet", K::Silent),
    getopt::flag('v', "version", K::Version),
    getopt::long_flag("help", K::Help),
];

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    FirstDiff,
    AllDiffs,
    Status,
}

fn try_help(io: &mut Io, prog: &str, msg: &str) -> i32 {
    if !msg.is_empty() {
        let _ = writeln!(io.err, "{prog}: {msg}");
    }
    let _ = writeln!(io.err, "{prog}: Try '{prog} --help' for more information.");
    2
}

/// A number with an optional multiplicative suffix (`xstrtoimax` with "kKMGTPEZY0"): returns
/// the value and the unparsed rest.
fn parse_skip(s: &str) -> Option<(u64, &str)> {
    let digits = s.find(|c: char| !c.is_ascii_digit()).unwrap_or(s.len());
    if digits == 0 {
        return None;
    }
    let n: u64 = s[..digits].parse().unwrap_or(u64::MAX);
    let rest = &s[digits..];
    let Some(first) = rest.chars().next() else {
        return Some((n, rest));
    };
    let power = match first {
        'k' | 'K' => 1,
        'M' => 2,
        'G' => 3,
        'T' => 4,
        'P' => 5,
        'E' => 6,
        'Z' | 'Y' => return Some((u64::MAX, &rest[1..])),
        _ => return Some((n, rest)),
    };
    // `KiB`-style suffixes are powers of 1024, `kB` of 1000, bare `K` of 1024.
    let (base, len) = if rest[1..].starts_with("iB") {
        (1024u64, 3)
    } else if rest[1..].starts_with('B') {
        (1000, 2)
    } else {
        (1024, 1)
    };
    let mult = base.checked_pow(power).unwrap_or(u64::MAX);
    Some((n.saturating_mul(mult), &rest[len..]))
}

/// `cmp -b`'s rendering of a byte (cat -v style).
fn sprintc(c: u8) -> String {
    let mut s = String::new();
    let mut c = c;
    if !(0x20..0x7f).contains(&c) {
        if c >= 128 {
            s.push_str("M-");
            c -= 128;
        }
        if c < 32 {
            s.push('^');
            c += 64;
        } else if c == 127 {
            s.push('^');
            c = b'?';
        }
    }
    s.push(c as char);
    s
}

/// Whether messages are in a locale other than C/POSIX (gnulib's `hard_locale`).
fn hard_locale_messages() -> bool {
    let name = ["LC_ALL", "LC_MESSAGES", "LANG"]
        .iter()
        .find_map(|v| std::env::var(v).ok().filter(|s| !s.is_empty()))
        .unwrap_or_default();
    !(name.is_empty() || name == "C" || name == "POSIX")
}

pub fn run(args: &[String], io: &mut Io) -> i32 {
    let prog = prog(args, "cmp");
    let parsed = match getopt::parse(args, SPECS, Config::default()) {
        Ok(p) => p,
        Err(msg) => return try_help(io, &prog, &msg),
    };
    let mut kind = Kind::FirstDiff;
    let mut kind_set = false;
    let mut print_bytes = false;
    let mut ignore = [0u64; 2];
    let mut limit: Option<u64> = None;
    for o in &parsed.opts {
        let arg = o.arg.clone().unwrap_or_default();
        match o.key {
            K::PrintBytes => print_bytes = true,
            K::Ignore => {
                let bad = |io: &mut Io| {
                    try_help(
                        io,
                        &prog,
                        &format!("invalid --ignore-initial value '{arg}'"),
                    )
                };
                let Some((a, rest)) = parse_skip(&arg) else {
                    return bad(io);
                };
                ignore[0] = ignore[0].max(a);
                if let Some(second) = rest.strip_prefix(':') {
                    match parse_skip(second) {
                        Some((b, "")) => ignore[1] = ignore[1].max(b),
                        _ => return bad(io),
                    }
                } else if rest.is_empty() {
                    ignore[1] = ignore[1].max(ignore[0]);
                } else {
                    return bad(io);
                }
            }
            K::Verbose | K::Silent => {
                let k = if o.key == K::Verbose {
                    Kind::AllDiffs
                } else {
                    Kind::Status
                };
                if kind_set && kind != k {
                    return try_help(io, &prog, "options -l and -s are incompatible");
                }
                kind = k;
                kind_set = true;
            }
            K::Bytes => match parse_skip(&arg) {
                Some((n, "")) => {
                    if limit.is_none_or(|l| l >= n) {
                        limit = Some(n);
                    }
                }
                _ => return try_help(io, &prog, &format!("invalid --bytes value '{arg}'")),
            },
            K::Version => {
                let _ = writeln!(io.out, "cmp (GNU diffutils) 3.8");
                return 0;
            }
            K::Help => {
                let _ = writeln!(
                    io.out,
                    "Usage: {prog} [OPTION]... FILE1 [FILE2 [SKIP1 [SKIP2]]]\nCompare two files byte by byte."
                );
                return 0;
            }
        }
    }
    let ops = &parsed.operands;
    if ops.is_empty() {
        let last = args.last().cloned().unwrap_or_default();
        return try_help(io, &prog, &format!("missing operand after '{last}'"));
    }
    let names = [
        ops[0].clone(),
        ops.get(1).cloned().unwrap_or_else(|| "-".into()),
    ];
    for (f, skip) in ops.iter().skip(2).take(2).enumerate() {
        match parse_skip(skip) {
            Some((n, "")) => ignore[f] = ignore[f].max(n),
            _ => {
                return try_help(
                    io,
                    &prog,
                    &format!("invalid --ignore-initial value '{skip}'"),
                );
            }
        }
    }
    if ops.len() > 4 {
        return try_help(io, &prog, &format!("extra operand '{}'", ops[4]));
    }
    if ignore[0] == ignore[1] && names[0] == names[1] {
        return 0;
    }
    let mut data: [Vec<u8>; 2] = Default::default();
    let mut stdin_data: Option<Vec<u8>> = None;
    for f in 0..2 {
        let r: io::Result<Vec<u8>> = if names[f] == "-" {
            match &stdin_data {
                Some(d) => Ok(d.clone()),
                None => {
                    let mut v = Vec::new();
                    io.stdin.read_to_end(&mut v).map(|_| {
                        stdin_data = Some(v.clone());
                        v
                    })
                }
            }
        } else {
            std::fs::read(&names[f])
        };
        match r {
            Ok(d) => data[f] = d,
            Err(e) => {
                if kind != Kind::Status {
                    let _ = writeln!(io.err, "{prog}: {}: {}", names[f], sys::strerror(&e));
                }
                return 2;
            }
        }
    }
    // Both names are standard input: the same stream, so the same bytes.
    if names[0] == "-" && names[1] == "-" {
        return 0;
    }
    let mut slices: [&[u8]; 2] = [&[], &[]];
    for f in 0..2 {
        let start = (ignore[f] as usize).min(data[f].len());
        let mut s = &data[f][start..];
        if let Some(l) = limit {
            s = &s[..s.len().min(l as usize)];
        }
        slices[f] = s;
    }
    let [a, b] = slices;
    let common = a.len().min(b.len());
    let first = (0..common).find(|&i| a[i] != b[i]);
    let mut out = String::new();
    let mut status = 0;
    match kind {
        Kind::Status => {
            if first.is_some() || a.len() != b.len() {
                return 1;
            }
            return 0;
        }
        Kind::FirstDiff => {
            if let Some(i) = first {
                let line = 1 + a[..i].iter().filter(|&&c| c == b'\n').count();
                let word = if hard_locale_messages() {
                    "byte"
                } else {
                    "char"
                };
                if print_bytes {
                    out.push_str(&format!(
                        "{} {} differ: byte {}, line {line} is {:3o} {} {:3o} {}\n",
                        names[0],
                        names[1],
                        i + 1,
                        a[i],
                        sprintc(a[i]),
                        b[i],
                        sprintc(b[i])
                    ));
                } else {
                    out.push_str(&format!(
                        "{} {} differ: {word} {}, line {line}\n",
                        names[0],
                        names[1],
                        i + 1
                    ));
                }
                status = 1;
            }
        }
        Kind::AllDiffs => {
            // Width of the largest offset that can be printed.
            let max = limit.map_or(common as u64, |l| l.min(common as u64));
            let width = max.max(1).to_string().len();
            for i in 0..common {
                if a[i] != b[i] {
                    if print_bytes {
                        out.push_str(&format!(
                            "{:>width$} {:3o} {:<4} {:3o} {}\n",
                            i + 1,
                            a[i],
                            sprintc(a[i]),
                            b[i],
                            sprintc(b[i])
                        ));
                    } else {
                        out.push_str(&format!("{:>width$} {:3o} {:3o}\n", i + 1, a[i], b[i]));
                    }
                    status = 1;
                }
            }
        }
    }
    let _ = io.out.write_all(out.as_bytes());
    // The EOF note follows any differences `-l` printed; after a first difference there is
    // none.
    if (status == 0 || kind == Kind::AllDiffs) && a.len() != b.len() {
        let _ = io.out.flush();
        let shorter = if b.len() < a.len() {
            &names[1]
        } else {
            &names[0]
        };
        let n = common;
        if n == 0 {
            let _ = writeln!(io.err, "{prog}: EOF on {shorter} which is empty");
        } else if kind == Kind::FirstDiff {
            let at_line_start = a[n - 1] == b'\n';
            let lines = a[..n].iter().filter(|&&c| c == b'\n').count() + 1;
            let line = lines - usize::from(at_line_start);
            if at_line_start {
                let _ = writeln!(
                    io.err,
                    "{prog}: EOF on {shorter} after byte {n}, line {line}"
                );
            } else {
                let _ = writeln!(
                    io.err,
                    "{prog}: EOF on {shorter} after byte {n}, in line {line}"
                );
            }
        } else {
            let _ = writeln!(io.err, "{prog}: EOF on {shorter} after byte {n}");
        }
        status = 1;
    }
    status
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cmp(args: &[&str]) -> (i32, String, String) {
        let args: Vec<String> = std::iter::once("cmp")
            .chain(args.iter().copied())
            .map(String::from)
            .collect();
        crate::common::io::capture_text(run, &args, b"")
    }

    #[test]
    fn messages() {
        if hard_locale_messages() {
            return;
        }
        let d = tempfile::tempdir().unwrap();
        let p = |n: &str| d.path().join(n).to_string_lossy().into_owned();
        std::fs::write(p("a"), "abc\ndef\n").unwrap();
        std::fs::write(p("b"), "abc\ndxf\n").unwrap();
        std::fs::write(p("c"), "abc\n").unwrap();
        let (a, b, c) = (p("a"), p("b"), p("c"));
        assert_eq!(
            cmp(&[&a, &b]),
            (
                1,
                format!("{a} {b} differ: char 6, line 2\n"),
                String::new()
            )
        );
        assert_eq!(cmp(&["-l", &a, &b]).1, "6 145 170\n");
        assert_eq!(cmp(&["-s", &a, &b]), (1, String::new(), String::new()));
        assert_eq!(
            cmp(&[&a, &c]),
            (
                1,
                String::new(),
                format!("cmp: EOF on {c} after byte 4, line 1\n")
            )
        );
        assert_eq!(cmp(&[&a, &a]).0, 0);
    }

    #[test]
    fn suffixes_and_bytes() {
        assert_eq!(parse_skip("10"), Some((10, "")));
        assert_eq!(parse_skip("2K"), Some((2048, "")));
        assert_eq!(parse_skip("2kB"), Some((2000, "")));
        assert_eq!(parse_skip("1MiB"), Some((1 << 20, "")));
        assert_eq!(parse_skip("3:4"), Some((3, ":4")));
        assert_eq!(parse_skip("x"), None);
        assert_eq!(sprintc(b'a'), "a");
        assert_eq!(sprintc(b'\n'), "^J");
        assert_eq!(sprintc(0x7f), "^?");
        assert_eq!(sprintc(0xe9), "M-i");
        assert_eq!(sprintc(0x80), "M-^@");
    }
}
