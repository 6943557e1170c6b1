//! `column` (util-linux 2.37/2.38): fill mode and `-t` table mode.
//!
//! Supported: `-t --table`, `-s --separator SEP` (input delimiters; default whitespace, whose
//! runs count as one, while explicit delimiters keep empty cells), `-o --output-separator`
//! (default two spaces), `-c --output-width N` (default `$COLUMNS`, else 80), `-x
//! --fillrows`, `-R --table-right COLS`, `-N --table-columns NAMES`, `-L
//! --keep-empty-lines`, `-e --table-header-repeat` (accepted).
//!
//! Fill mode arranges the non-empty lines in columns (down, then across; `-x` across first)
//! separated by tabs, with columns as wide as the longest entry rounded up to the next tab
//! stop. Table mode pads every cell but the last of a row to its column's width; rows with
//! fewer cells still get the separators of the missing ones, as util-linux prints them.
//! Widths count bytes (C locale).

use crate::common::getopt::{self, Config, OptSpec};
use crate::common::io::{prog, read_input, run_main, write_failed};
use crate::common::{Io, sys};
use std::ffi::OsString;

pub fn main(args: Vec<OsString>) -> i32 {
    run_main(args, run)
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum K {
    Table,
    Sep,
    OutSep,
    Width,
    FillRows,
    Right,
    Names,
    KeepEmpty,
    Ignored,
    IgnoredArg,
    Help,
    Version,
}

const SPECS: &[OptSpec<K>] = &[
    getopt::flag('t', "table", K::Table),
    getopt::with_arg('s', "separator", K::Sep),
    getopt::with_arg('o', "output-separator", K::OutSep),
    getopt::with_arg('c', "output-width", K::Width),
    getopt::flag('x', "fillrows", K::FillRows),
    getopt::with_arg('R', "table-right", K::Right),
    getopt::with_arg('N', "table-columns", K::Names),
    getopt::flag('L', "keep-empty-lines", K::KeepEmpty),
    getopt::flag('e', "table-header-repeat", K::Ignored),
    getopt::flag('n', "", K::Ignored),
    getopt::with_arg('d', "table-noheadings", K::IgnoredArg),
    getopt::long_flag("help", K::Help),
    getopt::flag('V', "version", K::Version),
];

const TAB: usize = 8;

fn fill(entries: &[Vec<u8>], width: usize, across: bool) -> Vec<u8> {
    let mut out = Vec::new();
    if entries.is_empty() {
        return out;
    }
    let maxlen = entries.iter().map(Vec::len).max().unwrap_or(0);
    // Round up to the next tab stop strictly beyond the longest entry.
    let colw = (maxlen + TAB) & !(TAB - 1);
    let cols = (width / colw).max(1);
    let rows = entries.len().div_ceil(cols);
    let pad_to = |out: &mut Vec<u8>, len: usize| {
        let mut n = len;
        while n < colw {
            out.push(b'\t');
            n = (n + TAB) & !(TAB - 1);
        }
    };
    for r in 0..rows {
        for c in 0..cols {
            let idx = if across { r * cols + c } else { c * rows + r };
            let Some(e) = entries.get(idx) else { break };
            out.extend_from_slice(e);
            let next = if across {
                r * cols + c + 1
            } else {
                (c + 1) * rows + r
            };
            let more = c + 1 < cols && next < entries.len();
            if more {
                pad_to(&mut out, e.len());
            }
        }
        out.push(b'\n');
    }
    out
}

fn split_cells(line: &[u8], seps: Option<&[u8]>) -> Vec<Vec<u8>> {
    match seps {
        None => line
            .split(|b| b.is_ascii_whitespace())
            .filter(|c| !c.is_empty())
            .map(<[u8]>::to_vec)
            .collect(),
        Some(s) => line.split(|b| s.contains(b)).map(<[u8]>::to_vec).collect(),
    }
}

fn table(rows: &[Vec<Vec<u8>>], out_sep: &[u8], right: &[usize]) -> Vec<u8> {
    let ncols = rows.iter().map(Vec::len).max().unwrap_or(0);
    let mut widths = vec![0usize; ncols];
    for r in rows {
        for (i, c) in r.iter().enumerate() {
            widths[i] = widths[i].max(c.len());
        }
    }
    let mut out = Vec::new();
    for r in rows {
        if r.is_empty() {
            out.push(b'\n');
            continue;
        }
        for (i, width) in widths.iter().enumerate() {
            let cell: &[u8] = r.get(i).map_or(&[], Vec::as_slice);
            let last = i + 1 == ncols;
            let pad = width - cell.len();
            if right.contains(&(i + 1)) {
                out.extend(std::iter::repeat_n(b' ', pad));
                out.extend_from_slice(cell);
            } else {
                out.extend_from_slice(cell);
                if !last {
                    out.extend(std::iter::repeat_n(b' ', pad));
                }
            }
            if !last {
                out.extend_from_slice(out_sep);
            }
        }
        out.push(b'\n');
    }
    out
}

pub fn run(args: &[String], io: &mut Io) -> i32 {
    let prog = prog(args, "column");
    let parsed = match getopt::parse(args, SPECS, Config::default()) {
        Ok(p) => p,
        Err(msg) => {
            let _ = io.err.write_all(gnu::usage::report(&prog, &msg).as_bytes());
            return 1;
        }
    };
    let mut table_mode = false;
    let mut seps: Option<Vec<u8>> = None;
    let mut out_sep = b"  ".to_vec();
    let mut width: usize = std::env::var("COLUMNS")
        .ok()
        .and_then(|c| c.parse().ok())
        .filter(|&c| c > 0)
        .unwrap_or(80);
    let mut across = false;
    let mut right: Vec<usize> = Vec::new();
    let mut names: Option<Vec<Vec<u8>>> = None;
    let mut keep_empty = false;
    for o in &parsed.opts {
        let arg = o.arg.clone().unwrap_or_default();
        match o.key {
            K::Table => table_mode = true,
            K::Sep => seps = Some(arg.into_bytes()),
            K::OutSep => out_sep = arg.into_bytes(),
            K::Width => match arg.parse() {
                Ok(w) => width = w,
                Err(_) => {
                    let _ = writeln!(io.err, "{prog}: invalid columns argument: '{arg}'");
                    return 1;
                }
            },
            K::FillRows => across = true,
            K::Right => right.extend(
                arg.split(',')
                    .filter_map(|s| s.trim().parse::<usize>().ok()),
            ),
            K::Names => names = Some(arg.split(',').map(|s| s.as_bytes().to_vec()).collect()),
            K::KeepEmpty => keep_empty = true,
            K::Ignored | K::IgnoredArg => {}
            K::Help => {
                let _ = writeln!(io.out, "Usage:\n {prog} [options] [<file>...]");
                return 0;
            }
            K::Version => {
                let _ = writeln!(io.out, "column from util-linux 2.37.2");
                return 0;
            }
        }
    }
    let files = if parsed.operands.is_empty() {
        vec!["-".to_string()]
    } else {
        parsed.operands
    };
    let mut status = 0;
    let mut text = Vec::new();
    for f in &files {
        match read_input(f, io.stdin) {
            Ok(d) => {
                text.extend_from_slice(&d);
                if !text.is_empty() && !text.ends_with(b"\n") {
                    text.push(b'\n');
                }
            }
            Err(e) => {
                let _ = writeln!(io.err, "{prog}: {f}: {}", sys::strerror(&e));
                status = 1;
            }
        }
    }
    let lines: Vec<&[u8]> = text.split(|&b| b == b'\n').collect();
    let lines = &lines[..lines.len().saturating_sub(1)];
    let data = if table_mode || names.is_some() {
        let mut rows: Vec<Vec<Vec<u8>>> = Vec::new();
        if let Some(n) = names {
            rows.push(n);
        }
        for l in lines {
            let cells = split_cells(l, seps.as_deref());
            let blank = l.iter().all(u8::is_ascii_whitespace);
            if blank {
                if keep_empty {
                    rows.push(Vec::new());
                }
                continue;
            }
            rows.push(cells);
        }
        table(&rows, &out_sep, &right)
    } else {
        let entries: Vec<Vec<u8>> = lines
            .iter()
            .filter(|l| !l.is_empty())
            .map(|l| l.to_vec())
            .collect();
        fill(&entries, width, across)
    };
    if let Err(e) = io.out.write_all(&data) {
        return write_failed(&[prog], &e, io.err);
    }
    status
}

#[cfg(test)]
mod tests {
    use super::*;

    fn col(args: &[&str], input: &str) -> String {
        let argv: Vec<String> = std::iter::once("column")
            .chain(args.iter().copied())
            .map(String::from)
            .collect();
        let mut stdin = input.as_bytes();
        let (mut out, mut err) = (Vec::new(), Vec::new());
        run(
            &argv,
            &mut Io {
                stdin: &mut stdin,
                out: &mut out,
                err: &mut err,
            },
        );
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn table_mode() {
        assert_eq!(
            col(&["-t"], "a bb ccc\ndddd e f\n\ng  h\n"),
            "a     bb  ccc\ndddd  e   f\ng     h   \n"
        );
        assert_eq!(
            col(&["-t", "-s:"], "a:b:c\nddd::e\n"),
            "a    b  c\nddd     e\n"
        );
        assert_eq!(
            col(&["-t", "-s:", "-o", "|"], "a:b:c\nddd::e\n"),
            "a  |b|c\nddd| |e\n"
        );
        assert_eq!(col(&["-t"], "1  2  3  4  5\n"), "1  2  3  4  5\n");
    }

    #[test]
    fn fill_mode() {
        let nums: String = (1..=30).map(|n| format!("{n}\n")).collect();
        let out = col(&[], &nums);
        assert_eq!(
            out.lines().next(),
            Some("1\t4\t7\t10\t13\t16\t19\t22\t25\t28")
        );
        assert_eq!(col(&["-x", "-c", "24"], "1\n2\n3\n4\n"), "1\t2\t3\n4\n");
        assert_eq!(
            col(&[], "short\nlonger item here\nx\n"),
            "short\t\t\tlonger item here\tx\n"
        );
    }
}
