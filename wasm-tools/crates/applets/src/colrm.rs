//! `colrm [start [stop]]` (util-linux 2.37): removes columns `start`..=`stop` (from 1) of
//! every line of standard input; without `stop`, everything from `start` on.
//!
//! Columns are counted as util-linux counts them: a tab moves to the next multiple of 8, a
//! backspace one back, control characters take no room. A tab straddling `start` becomes the
//! spaces before `start`; when the removed stretch ends inside a tab (or `start` > `stop`),
//! the surplus columns come back once as spaces before the rest of the line. In the C locale
//! the first byte above 0x7f ends the input (glibc's `getwc` fails there), silently.

use crate::common::Io;
use crate::common::getopt::{self, Config, OptSpec};
use crate::common::io::{prog, run_main, write_failed};
use std::ffi::OsString;

pub fn main(args: Vec<OsString>) -> i32 {
    run_main(args, run)
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum K {
    Help,
    Version,
}

const SPECS: &[OptSpec<K>] = &[
    getopt::flag('h', "help", K::Help),
    getopt::flag('V', "version", K::Version),
];

/// Width of one byte at column `col` (columns counted from 0 before it).
fn advance(col: u64, b: u8) -> u64 {
    match b {
        b'\t' => (col + 8) & !7,
        8 => col.saturating_sub(1),
        0x20..=0x7e => col + 1,
        _ => col,
    }
}

/// Removes the columns from one stream; `first` 0 keeps everything, `last` None removes to
/// the end of each line.
fn colrm(input: &[u8], first: u64, last: Option<u64>) -> Vec<u8> {
    // Everything from the first byte glibc cannot decode in the C locale is lost.
    let end = input.iter().position(|&b| b >= 0x80).unwrap_or(input.len());
    let mut out = Vec::with_capacity(end);
    for line in input[..end].split_inclusive(|&b| b == b'\n') {
        let mut col = 0;
        let mut i = 0;
        // Keep what lies before `first`.
        while i < line.len() {
            let b = line[i];
            let before = col;
            col = advance(col, b);
            i += 1;
            if b == b'\n' || first == 0 || col < first {
                out.push(b);
                continue;
            }
            // This byte reaches `first`: blanks for the part of it before `first`.
            let blanks = first.saturating_sub(before + 1) as usize;
            out.resize(out.len() + blanks, b' ');
            break;
        }
        if i >= line.len() {
            continue;
        }
        let Some(last) = last else {
            if line.last() == Some(&b'\n') {
                out.push(b'\n');
            }
            continue;
        };
        // Drop what lies up to `last`.
        while col < last && i < line.len() {
            let b = line[i];
            i += 1;
            if b == b'\n' {
                out.push(b);
                break;
            }
            col = advance(col, b);
        }
        // Keep the rest, after the columns the removal overshot.
        if i < line.len() && line[i] != b'\n' && last < col {
            out.resize(out.len() + (col - last) as usize, b' ');
        }
        out.extend_from_slice(&line[i..]);
    }
    out
}

/// util-linux's `strtoul_or_err` for the column numbers.
fn column_arg(s: &str, what: &str, prog: &str, io: &mut Io) -> Option<u64> {
    let t = s.trim_start();
    let t = t.strip_prefix('+').unwrap_or(t);
    let message = if t.is_empty() || !t.bytes().all(|b| b.is_ascii_digit()) {
        format!("{prog}: {what}: '{s}'")
    } else {
        match t.parse() {
            Ok(n) => return Some(n),
            Err(_) => format!("{prog}: {what}: '{s}': Numerical result out of range"),
        }
    };
    let _ = writeln!(io.err, "{message}");
    None
}

pub fn run(args: &[String], io: &mut Io) -> i32 {
    let prog = prog(args, "colrm");
    let parsed = match getopt::parse(args, SPECS, Config::default()) {
        Ok(p) => p,
        Err(msg) => {
            let _ = io.err.write_all(gnu::usage::report(&prog, &msg).as_bytes());
            return 1;
        }
    };
    if let Some(opt) = parsed.opts.first() {
        let text = match opt.key {
            K::Help => format!(
                "\nUsage:\n {prog} [startcol [endcol]]\n\nFilter out the specified columns.\n\nOptions:\n -h, --help     display this help\n -V, --version  display version\n\nFor more details see colrm(1).\n"
            ),
            K::Version => format!("{prog} from util-linux 2.37.2\n"),
        };
        let _ = io.out.write_all(text.as_bytes());
        return 0;
    }
    let mut first = 0;
    let mut last = None;
    if let Some(a) = parsed.operands.first() {
        match column_arg(a, "first argument", &prog, io) {
            Some(n) => first = n,
            None => return 1,
        }
    }
    if let Some(a) = parsed.operands.get(1) {
        match column_arg(a, "second argument", &prog, io) {
            Some(n) => last = Some(n),
            None => return 1,
        }
    }
    let mut input = Vec::new();
    if let Err(e) = io.stdin.read_to_end(&mut input) {
        let _ = writeln!(io.err, "{prog}: {}", crate::common::sys::strerror(&e));
        return 1;
    }
    if let Err(e) = io.out.write_all(&colrm(&input, first, last)) {
        return write_failed(args, &e, io.err);
    }
    0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tabs_straddling_the_cut() {
        assert_eq!(colrm(b"a\tbcd\n", 3, Some(5)), b"a    bcd\n");
        assert_eq!(colrm(b"abcdefg\n", 5, Some(3)), b"abcd  fg\n");
        assert_eq!(colrm(b"abcdef", 2, None), b"a");
    }
}
