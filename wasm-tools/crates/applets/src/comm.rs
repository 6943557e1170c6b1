//! `comm [-123z] [--check-order|--nocheck-order] [--output-delimiter=STR] [--total] FILE1 FILE2`
//! (GNU coreutils 8.32): lines only in FILE1, only in FILE2, and in both, in three columns.
//!
//! Written after GNU's merge loop because its order checks are part of what agents see: by
//! default a file's order is checked only once an unpairable line has been seen, each file is
//! reported once (`comm: file 2 is not in sorted order`) where the disorder is read, the last
//! two lines of a file are checked again at its end, and the run ends with `input is not in
//! sorted order` and status 1. Messages come after the output written so far, as gnulib's
//! `error()` flushes standard output first. Lines compare bytewise (upstream's agents had no
//! locale); a last line without its delimiter gets one. `comm - -` reads both files from the
//! one standard input and fails as GNU does when closing it the second time.

use crate::common::getopt::{self, Config, OptSpec};
use crate::common::io::{prog, report, run_main, usage, write_failed};
use crate::common::quote::{locale as quote, shell_if_needed as quotef};
use crate::common::{Io, sys};
use std::cmp::Ordering;
use std::ffi::OsString;
use std::io::{self, BufRead, BufReader, Write};

pub fn main(args: Vec<OsString>) -> i32 {
    run_main(args, run)
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum K {
    No1,
    No2,
    No3,
    CheckOrder,
    NoCheckOrder,
    OutputDelimiter,
    Total,
    Zero,
    Help,
    Version,
}

const SPECS: &[OptSpec<K>] = &[
    getopt::flag('1', "", K::No1),
    getopt::flag('2', "", K::No2),
    getopt::flag('3', "", K::No3),
    getopt::long_flag("check-order", K::CheckOrder),
    getopt::long_flag("nocheck-order", K::NoCheckOrder),
    getopt::long_arg("output-delimiter", K::OutputDelimiter),
    getopt::long_flag("total", K::Total),
    getopt::flag('z', "zero-terminated", K::Zero),
    getopt::long_flag("help", K::Help),
    getopt::long_flag("version", K::Version),
];

const HELP: &str = "Usage: comm [OPTION]... FILE1 FILE2
Compare sorted files FILE1 and FILE2 line by line.

When FILE1 or FILE2 (not both) is -, read standard input.

With no options, produce three-column output.  Column one contains
lines unique to FILE1, column two contains lines unique to FILE2,
and column three contains lines common to both files.

  -1              suppress column 1 (lines unique to FILE1)
  -2              suppress column 2 (lines unique to FILE2)
  -3              suppress column 3 (lines that appear in both files)

  --check-order     check that the input is correctly sorted, even
                      if all input lines are pairable
  --nocheck-order   do not check that the input is correctly sorted
  --output-delimiter=STR  separate columns with STR
  --total           output a summary
  -z, --zero-terminated    line delimiter is NUL, not newline
      --help     display this help and exit
      --version  output version information and exit

Note, comparisons honor the rules specified by 'LC_COLLATE'.

Examples:
  comm -12 file1 file2  Print only lines present in both file1 and file2.
  comm -3 file1 file2  Print lines in file1 not in file2, and vice versa.

GNU coreutils online help: <https://www.gnu.org/software/coreutils/>
Report any translation bugs to <https://translationproject.org/team/>
Full documentation <https://www.gnu.org/software/coreutils/comm>
or available locally via: info '(coreutils) comm invocation'
";

const VERSION: &str = "comm (GNU coreutils) 8.32
Copyright (C) 2020 Free Software Foundation, Inc.
License GPLv3+: GNU GPL version 3 or later <https://gnu.org/licenses/gpl.html>.
This is free software: you are free to change and redistribute it.
There is NO WARRANTY, to the extent permitted by law.

Written by Richard M. Stallman and David MacKenzie.
";

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum OrderCheck {
    /// Only once an unpairable line has been seen (GNU's default).
    Default,
    /// Always, and the first disorder ends the run.
    Enabled,
    Disabled,
}

struct Settings {
    show: [bool; 3],
    check: OrderCheck,
    /// `None`: a tab. An empty `--output-delimiter` separates columns with one NUL byte.
    delimiter: Option<String>,
    total: bool,
    line_end: u8,
}

impl Settings {
    fn column_separator(&self) -> &[u8] {
        match self.delimiter.as_deref() {
            None => b"\t",
            Some("") => b"\0",
            Some(d) => d.as_bytes(),
        }
    }
}

/// Why the run ended early: the message GNU dies with (status 1).
struct Fatal(String);

/// The two files' lines as GNU's loop keeps them: the current line, the one before and the
/// one before that (for the check at the end of a file).
struct Side {
    this: Option<Vec<u8>>,
    last: Option<Vec<u8>>,
    before_last: Option<Vec<u8>>,
    warned: bool,
}

/// GNU's `memcmp` over the shorter length, then the shorter line first: slice order.
fn compare(a: &[u8], b: &[u8]) -> Ordering {
    a.cmp(b)
}

struct Comm<'a, 'io> {
    settings: Settings,
    names: [String; 2],
    /// Index into `readers` for each file; `comm - -` maps both to the one standard input.
    reader_of: [usize; 2],
    readers: Vec<Box<dyn BufRead + 'a>>,
    out: &'io mut dyn Write,
    err: &'io mut dyn Write,
    prog: String,
    sides: [Side; 2],
    seen_unpairable: bool,
    totals: [u64; 3],
}

impl Comm<'_, '_> {
    fn message(&mut self, text: &str) {
        report(self.out, self.err, &self.prog, text);
    }

    fn read_line(&mut self, file: usize) -> Result<Option<Vec<u8>>, Fatal> {
        let end = self.settings.line_end;
        let mut line = Vec::new();
        match self.readers[self.reader_of[file]].read_until(end, &mut line) {
            Ok(0) => Ok(None),
            Ok(_) => {
                if line.last() == Some(&end) {
                    line.pop();
                }
                Ok(Some(line))
            }
            Err(e) => Err(Fatal(format!(
                "{}: {}",
                quotef(&self.names[file]),
                sys::strerror(&e)
            ))),
        }
    }

    fn check_order(&mut self, file: usize, prev: &[u8], current: &[u8]) -> Result<(), Fatal> {
        let checking = match self.settings.check {
            OrderCheck::Disabled => false,
            OrderCheck::Enabled => true,
            OrderCheck::Default => self.seen_unpairable,
        };
        if !checking || self.sides[file].warned || compare(prev, current) != Ordering::Greater {
            return Ok(());
        }
        let text = format!("file {} is not in sorted order", file + 1);
        if self.settings.check == OrderCheck::Enabled {
            return Err(Fatal(text));
        }
        self.message(&text);
        self.sides[file].warned = true;
        Ok(())
    }

    /// Moves a file on to its next line, checking the order as GNU does.
    fn step(&mut self, file: usize) -> Result<(), Fatal> {
        let side = &mut self.sides[file];
        side.before_last = side.last.take();
        side.last = side.this.take();
        let next = self.read_line(file)?;
        let side = &self.sides[file];
        match (&next, &side.last, &side.before_last) {
            (Some(next), Some(last), _) => {
                let (last, next) = (last.clone(), next.clone());
                self.check_order(file, &last, &next)?;
            }
            // At the end of a file the last two lines are checked again: an unpairable line
            // may have been seen since they were read.
            (None, Some(last), Some(before)) => {
                let (before, last) = (before.clone(), last.clone());
                self.check_order(file, &before, &last)?;
            }
            _ => {}
        }
        self.sides[file].this = next;
        Ok(())
    }

    fn write_line(&mut self, column: usize, line: &[u8]) -> io::Result<()> {
        if !self.settings.show[column] {
            return Ok(());
        }
        for earlier in 0..column {
            if self.settings.show[earlier] {
                self.out.write_all(self.settings.column_separator())?;
            }
        }
        self.out.write_all(line)?;
        self.out.write_all(&[self.settings.line_end])
    }

    fn merge(&mut self) -> Result<(), Fatal> {
        for file in 0..2 {
            self.sides[file].this = self.read_line(file)?;
        }
        while self.sides[0].this.is_some() || self.sides[1].this.is_some() {
            let order = match (&self.sides[0].this, &self.sides[1].this) {
                (None, _) => Ordering::Greater,
                (_, None) => Ordering::Less,
                (Some(a), Some(b)) => compare(a, b),
            };
            let (column, line) = match order {
                Ordering::Equal => (2, self.sides[1].this.clone()),
                Ordering::Less => (0, self.sides[0].this.clone()),
                Ordering::Greater => (1, self.sides[1].this.clone()),
            };
            if order != Ordering::Equal {
                self.seen_unpairable = true;
            }
            self.totals[column] += 1;
            let line = line.unwrap_or_default();
            if let Err(e) = self.write_line(column, &line) {
                return Err(Fatal(format!("write error: {}", sys::strerror(&e))));
            }
            // File 1 first: with --check-order its disorder is the one reported.
            if order != Ordering::Greater {
                self.step(0)?;
            }
            if order != Ordering::Less {
                self.step(1)?;
            }
        }
        Ok(())
    }
}

pub fn run(args: &[String], io: &mut Io) -> i32 {
    let prog = prog(args, "comm");
    let parsed = match getopt::parse(args, SPECS, Config::default()) {
        Ok(p) => p,
        Err(msg) => return usage(io, &prog, &msg),
    };
    let mut settings = Settings {
        show: [true; 3],
        check: OrderCheck::Default,
        delimiter: None,
        total: false,
        line_end: b'\n',
    };
    for opt in &parsed.opts {
        match opt.key {
            K::No1 => settings.show[0] = false,
            K::No2 => settings.show[1] = false,
            K::No3 => settings.show[2] = false,
            K::CheckOrder => settings.check = OrderCheck::Enabled,
            K::NoCheckOrder => settings.check = OrderCheck::Disabled,
            K::OutputDelimiter => {
                let value = opt.arg.clone().unwrap_or_default();
                if settings.delimiter.as_ref().is_some_and(|d| *d != value) {
                    let _ = writeln!(io.err, "{prog}: multiple output delimiters specified");
                    return 1;
                }
                settings.delimiter = Some(value);
            }
            K::Total => settings.total = true,
            K::Zero => settings.line_end = 0,
            K::Help => {
                let _ = io.out.write_all(HELP.as_bytes());
                return 0;
            }
            K::Version => {
                let _ = io.out.write_all(VERSION.as_bytes());
                return 0;
            }
        }
    }
    let names = match parsed.operands.as_slice() {
        [] => return usage(io, &prog, "missing operand"),
        [one] => return usage(io, &prog, &format!("missing operand after {}", quote(one))),
        [a, b] => [a.clone(), b.clone()],
        [_, _, extra, ..] => return usage(io, &prog, &format!("extra operand {}", quote(extra))),
    };
    let Io { stdin, out, err } = io;
    let mut readers: Vec<Box<dyn BufRead + '_>> = Vec::new();
    let mut reader_of = [0; 2];
    let mut stdin = Some(stdin);
    let mut stdin_reader = None;
    for (file, name) in names.iter().enumerate() {
        if name == "-" {
            if let Some(i) = stdin_reader {
                reader_of[file] = i;
                continue;
            }
            let Some(stdin) = stdin.take() else {
                unreachable!("standard input is taken once")
            };
            readers.push(Box::new(BufReader::new(&mut **stdin)));
            stdin_reader = Some(readers.len() - 1);
        } else {
            // Opening a directory succeeds; GNU fails on reading its first line.
            let opened = std::fs::File::open(name).and_then(|f| match f.metadata() {
                Ok(m) if m.is_dir() => Err(io::Error::from(io::ErrorKind::IsADirectory)),
                _ => Ok(f),
            });
            match opened {
                Ok(f) => readers.push(Box::new(BufReader::new(f))),
                Err(e) => {
                    let text = format!("{}: {}", quotef(name), sys::strerror(&e));
                    report(out, err, &prog, text);
                    return 1;
                }
            }
        }
        reader_of[file] = readers.len() - 1;
    }
    let side = || Side {
        this: None,
        last: None,
        before_last: None,
        warned: false,
    };
    let mut comm = Comm {
        settings,
        names: names.clone(),
        reader_of,
        readers,
        out: &mut **out,
        err: &mut **err,
        prog: prog.clone(),
        sides: [side(), side()],
        seen_unpairable: false,
        totals: [0; 3],
    };
    if let Err(Fatal(text)) = comm.merge() {
        comm.message(&text);
        return 1;
    }
    // GNU closes both streams before the totals: the one standard input cannot close twice.
    if comm.reader_of[0] == comm.reader_of[1] {
        comm.message(&format!("{}: Bad file descriptor", quotef(&names[1])));
        return 1;
    }
    if comm.settings.total {
        let separator = match comm.settings.delimiter.as_deref() {
            None => "\t",
            Some(d) => d,
        };
        let [a, b, c] = comm.totals;
        let line = format!("{a}{separator}{b}{separator}{c}{separator}total");
        let end = comm.settings.line_end;
        if let Err(e) = comm
            .out
            .write_all(line.as_bytes())
            .and_then(|()| comm.out.write_all(&[end]))
        {
            return write_failed(args, &e, comm.err);
        }
    }
    if comm.sides.iter().any(|s| s.warned) {
        comm.message("input is not in sorted order");
        return 1;
    }
    0
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::common::io::capture_text;

    fn comm(args: &[&str], stdin: &str) -> (i32, String, String) {
        let argv: Vec<String> = std::iter::once("comm")
            .chain(args.iter().copied())
            .map(String::from)
            .collect();
        capture_text(run, &argv, stdin.as_bytes())
    }

    fn files(name: &str, a: &str, b: &str) -> (String, String) {
        let dir = std::env::temp_dir().join(format!("comm-test-{name}-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let (pa, pb) = (dir.join("a"), dir.join("b"));
        std::fs::write(&pa, a).unwrap();
        std::fs::write(&pb, b).unwrap();
        (
            pa.to_string_lossy().into_owned(),
            pb.to_string_lossy().into_owned(),
        )
    }

    #[test]
    fn three_columns_and_a_missing_last_newline() {
        let (a, b) = files("cols", "a\nb\n", "b\nc");
        assert_eq!(comm(&[&a, &b], "").1, "a\n\t\tb\n\tc\n");
        assert_eq!(comm(&["-12", &a, &b], "").1, "b\n");
        assert_eq!(comm(&["-1", &a, &b], "").1, "\tb\nc\n");
        assert_eq!(
            comm(&["--total", "--output-delimiter=::", &a, &b], "").1,
            "a\n::::b\n::c\n1::1::1::total\n"
        );
        // An empty delimiter is one NUL between columns and nothing in the totals.
        assert_eq!(
            comm(&["--output-delimiter=", "--total", &a, &b], "").1,
            "a\n\0\0b\n\0c\n111total\n"
        );
    }

    #[test]
    fn disorder_is_reported_where_it_is_read_by_default() {
        // Bash on Ubuntu 22.04: `comm x y` with x = b a c and y = a c b.
        let (a, b) = files("order", "b\na\nc\n", "a\nc\nb\n");
        let (status, out, err) = comm(&[&a, &b], "");
        assert_eq!(status, 1);
        assert_eq!(out, "\ta\nb\na\n\t\tc\n\tb\n");
        assert_eq!(
            err,
            "comm: file 1 is not in sorted order\ncomm: file 2 is not in sorted order\n\
             comm: input is not in sorted order\n"
        );
        // Before any unpairable line nothing is checked; --check-order stops at once.
        let (a, b) = files("paired", "b\na\n", "b\nc\n");
        let (status, out, err) = comm(&["--check-order", &a, &b], "");
        assert_eq!((status, out.as_str()), (1, "\t\tb\n"));
        assert_eq!(err, "comm: file 1 is not in sorted order\n");
        assert_eq!(comm(&["--nocheck-order", &a, &a], "").0, 0);
        // Both files out of order on the same paired line: file 1 is read first.
        let (status, _, err) = comm(&["--check-order", &a, &a], "");
        assert_eq!(
            (status, err.as_str()),
            (1, "comm: file 1 is not in sorted order\n")
        );
    }

    #[test]
    fn usage_and_file_errors_in_gnu_words() {
        assert_eq!(
            comm(&["x"], "").2,
            "comm: missing operand after 'x'\nTry 'comm --help' for more information.\n"
        );
        assert_eq!(
            comm(&["x", "y", "z"], "").2,
            "comm: extra operand 'z'\nTry 'comm --help' for more information.\n"
        );
        assert_eq!(
            comm(
                &["--output-delimiter=a", "--output-delimiter=b", "x", "y"],
                ""
            )
            .2,
            "comm: multiple output delimiters specified\n"
        );
        let dir = std::env::temp_dir();
        let dir = dir.to_string_lossy();
        assert_eq!(
            comm(&["-", &dir], "a\n").2,
            format!("comm: {dir}: Is a directory\n")
        );
        let (status, out, err) = comm(&["-", "-"], "a\nb\n");
        assert_eq!((status, out.as_str()), (1, "a\n\tb\n"));
        assert_eq!(err, "comm: -: Bad file descriptor\n");
    }
}
