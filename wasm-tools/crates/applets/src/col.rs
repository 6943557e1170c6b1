//! `col` (util-linux 2.37/2.38): filters reverse line feeds so the output only moves forward,
//! as nroff output needs; `-b` keeps only the last character written to each column (what
//! `man foo | col -b` relies on), `-x` keeps spaces, `-h` (default) turns runs of spaces
//! that reach a tab stop into tabs, `-f` keeps half-line feeds (as `ESC 9`), `-p` passes
//! unknown control characters, `-l N` buffers N lines (by default 32, not the 128 the manual
//! says: that is where util-linux's lines go when reverse feeds reach past the buffer).
//!
//! The model is util-linux's: positions are counted in half lines; text lands in a buffer
//! of lines that grows backwards (before the first line, until something has been flushed)
//! and forwards; a line is printed with its characters sorted by column, several in one
//! column overstruck with backspaces. Its quirks are kept: ESC takes the next character
//! whatever it is (only ESC BEL/BS/TAB move: reverse, half reverse, half forward), and
//! input that ends on line 0 at column 0 prints nothing at all. In the C locale a byte above
//! 0x7f becomes the four characters `\xHH`, as util-linux's wide-character reader shows it.

use crate::common::Io;
use crate::common::getopt::{self, Config, OptSpec};
use crate::common::io::{prog, run_main, write_failed};
use std::collections::VecDeque;
use std::ffi::OsString;

pub fn main(args: Vec<OsString>) -> i32 {
    run_main(args, run)
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum K {
    NoBackspaces,
    Fine,
    Pass,
    Tabs,
    Spaces,
    Lines,
    Help,
    Version,
}

const SPECS: &[OptSpec<K>] = &[
    getopt::flag('b', "no-backspaces", K::NoBackspaces),
    getopt::flag('f', "fine", K::Fine),
    getopt::flag('p', "pass", K::Pass),
    getopt::flag('h', "tabs", K::Tabs),
    getopt::flag('x', "spaces", K::Spaces),
    getopt::with_arg('l', "lines", K::Lines),
    getopt::flag('H', "help", K::Help),
    getopt::flag('v', "version", K::Version),
    getopt::flag('V', "", K::Version),
];

const HELP: &str = "
Usage:
 col [options]

Filter out reverse line feeds from standard input.

Options:
 -b, --no-backspaces    do not output backspaces
 -f, --fine             permit forward half line feeds
 -p, --pass             pass unknown control sequences
 -h, --tabs             convert spaces to tabs
 -x, --spaces           convert tabs to spaces
 -l, --lines NUM        buffer at least NUM lines
 -H, --help             display this help
 -v, --version          display version

For more details see col(1).
";

/// Lines kept beyond `-l` before flushing (util-linux's margin).
const BUFFER_MARGIN: i64 = 32;
const SHIFT_IN: u8 = 0x0f;
const SHIFT_OUT: u8 = 0x0e;

#[derive(Debug, Clone, Copy)]
struct Cell {
    ch: u8,
    alternate: bool,
    column: i64,
    width: i64,
}

#[derive(Debug, Default)]
struct Line {
    cells: Vec<Cell>,
}

struct Options {
    no_backspaces: bool,
    fine: bool,
    pass: bool,
    compress: bool,
    buffered: i64,
}

/// The output side: blank half lines owed and the character set last shown.
struct Printer {
    out: Vec<u8>,
    blank_half_lines: i64,
    alternate: bool,
}

impl Printer {
    fn flush_blanks(&mut self, fine: bool) {
        let mut n = self.blank_half_lines;
        let mut half = false;
        if n & 1 == 1 {
            if fine {
                half = true;
            } else {
                n += 1;
            }
        }
        n /= 2;
        for _ in 0..n {
            self.out.push(b'\n');
        }
        if half {
            self.out.extend_from_slice(b"\x1b9");
            if n == 0 {
                self.out.push(b'\r');
            }
        }
        self.blank_half_lines = 0;
    }

    /// Blanks from `from` to `to`: tabs at the stops (when compressing), then spaces.
    fn gap(&mut self, mut from: i64, to: i64, compress: bool) {
        let mut spaces = to - from;
        if compress && spaces > 1 {
            loop {
                let stop = (from + 8) & !7;
                if stop > to {
                    break;
                }
                self.out.push(b'\t');
                spaces -= stop - from;
                from = stop;
            }
        }
        for _ in 0..spaces {
            self.out.push(b' ');
        }
    }

    fn line(&mut self, line: &mut Line, opts: &Options) {
        // Stable: characters of one column keep the order they were written in.
        line.cells.sort_by_key(|c| c.column);
        let cells = &line.cells;
        let mut last_col = 0;
        let mut i = 0;
        while i < cells.len() {
            let col = cells[i].column;
            let mut end = i + 1;
            while end < cells.len() && cells[end].column == col {
                end += 1;
            }
            let mut first = i;
            if opts.no_backspaces {
                first = end - 1;
                let c = cells[first];
                if end < cells.len() && col + c.width > cells[end].column {
                    i = end;
                    continue;
                }
            }
            if col > last_col {
                self.gap(last_col, col, opts.compress);
                last_col = col;
            }
            for (k, c) in cells.iter().enumerate().take(end).skip(first) {
                if c.alternate != self.alternate {
                    self.out
                        .push(if c.alternate { SHIFT_OUT } else { SHIFT_IN });
                    self.alternate = c.alternate;
                }
                self.out.push(c.ch);
                if k + 1 < end {
                    let back = c.width.max(0) as usize;
                    self.out.resize(self.out.len() + back, 8);
                }
            }
            last_col += cells[end - 1].width;
            i = end;
        }
    }

    /// Prints and drops the first `n` buffered lines.
    fn flush_lines(&mut self, lines: &mut VecDeque<Line>, n: i64, opts: &Options) {
        for _ in 0..n {
            let Some(mut line) = lines.pop_front() else {
                break;
            };
            if !line.cells.is_empty() {
                self.flush_blanks(opts.fine);
                self.line(&mut line, opts);
            }
            self.blank_half_lines += 1;
        }
    }
}

/// Runs the whole input through; returns the output and whether it warned.
fn col(input: &[u8], opts: &Options, err: &mut dyn std::io::Write, prog: &str) -> Vec<u8> {
    let mut p = Printer {
        out: Vec::new(),
        blank_half_lines: 0,
        alternate: false,
    };
    let mut lines: VecDeque<Line> = VecDeque::from([Line::default()]);
    let mut cur = 0usize; // index of the current line in `lines`
    let (mut cur_line, mut this_line, mut max_line) = (0i64, 0i64, 0i64);
    let (mut cur_col, mut adjust, mut extra_lines, mut flushed) = (0i64, 0i64, 0i64, 0i64);
    let mut alternate = false;
    let mut warned = false;
    let mut last_width = 1;
    // Bytes above 0x7f arrive as the text `\xHH`: glibc's reader fails on them, and
    // util-linux then stores that text (even right after an ESC, which gets nothing).
    let mut chars: Vec<(u8, bool)> = Vec::with_capacity(input.len());
    for &b in input {
        if b >= 0x80 {
            let text = format!("\\x{b:02x}");
            chars.extend(text.bytes().enumerate().map(|(i, c)| (c, i == 0)));
        } else {
            chars.push((b, false));
        }
    }
    let mut it = chars.into_iter().peekable();
    while let Some((ch, _)) = it.next() {
        let graphic = (0x21..0x7f).contains(&ch);
        if !graphic {
            match ch {
                8 => {
                    // util-linux steps back by the width of the last character stored, which
                    // is -1 for a control character passed by -p.
                    if cur_col > 0 {
                        cur_col -= last_width;
                    }
                    continue;
                }
                b'\r' => {
                    cur_col = 0;
                    continue;
                }
                0x1b => {
                    if it.peek().is_some_and(|&(_, undecodable)| undecodable) {
                        continue;
                    }
                    match it.next().map(|(c, _)| c) {
                        Some(7) => cur_line -= 2,
                        Some(8) => cur_line -= 1,
                        Some(9) => {
                            cur_line += 1;
                            max_line = max_line.max(cur_line);
                        }
                        _ => {}
                    }
                    continue;
                }
                b'\n' => {
                    cur_line += 2;
                    max_line = max_line.max(cur_line);
                    cur_col = 0;
                    continue;
                }
                b' ' => {
                    cur_col += 1;
                    continue;
                }
                SHIFT_IN => {
                    alternate = false;
                    continue;
                }
                SHIFT_OUT => {
                    alternate = true;
                    continue;
                }
                b'\t' => {
                    cur_col = (cur_col | 7) + 1;
                    continue;
                }
                11 => {
                    cur_line -= 2;
                    continue;
                }
                // Form feed, the other white space, takes no room.
                12 => continue,
                _ if !opts.pass => continue,
                _ => {}
            }
        }
        if cur_line != this_line - adjust {
            adjust = 0;
            let mut nmove = cur_line - this_line;
            if !opts.fine && cur_line & 1 == 1 {
                // A half line goes down to the next full one.
                adjust = 1;
                nmove += 1;
            }
            if nmove < 0 {
                while nmove < 0 && cur > 0 {
                    cur -= 1;
                    nmove += 1;
                }
                if nmove < 0 {
                    if flushed == 0 {
                        // Nothing printed yet: the buffer may grow above its first line.
                        while nmove < 0 {
                            lines.push_front(Line::default());
                            extra_lines += 1;
                            nmove += 1;
                        }
                        cur = 0;
                    } else {
                        if !warned {
                            let why = if cur_line < 0 {
                                "past first line"
                            } else {
                                "-- line already flushed"
                            };
                            let _ = writeln!(err, "{prog}: warning: can't back up {why}.");
                            warned = true;
                        }
                        cur_line -= nmove;
                    }
                }
            } else {
                while nmove > 0 && cur + 1 < lines.len() {
                    cur += 1;
                    nmove -= 1;
                }
                while nmove > 0 {
                    lines.push_back(Line::default());
                    cur = lines.len() - 1;
                    nmove -= 1;
                }
            }
            this_line = cur_line + adjust;
            let ahead = this_line - flushed;
            if ahead >= opts.buffered + BUFFER_MARGIN {
                let n = ahead - opts.buffered;
                flushed += n;
                let before = lines.len();
                p.flush_lines(&mut lines, n, opts);
                cur -= before - lines.len();
            }
        }
        last_width = if graphic { 1 } else { -1 };
        lines[cur].cells.push(Cell {
            ch,
            alternate,
            column: cur_col,
            width: last_width,
        });
        if graphic {
            cur_col += 1;
        }
    }
    // To the last line that was reached.
    this_line += (lines.len() - 1 - cur) as i64;
    if max_line == 0 && cur_col == 0 {
        return Vec::new();
    }
    p.flush_lines(&mut lines, this_line - flushed + extra_lines + 1, opts);
    if p.alternate {
        p.out.push(SHIFT_IN);
    }
    let mut blanks = max_line - this_line;
    if max_line & 1 == 1 {
        blanks += 1;
    } else if blanks == 0 {
        // The last line had no newline.
        blanks = 2;
    }
    p.blank_half_lines = blanks;
    p.flush_blanks(opts.fine);
    p.out
}

/// util-linux's `strtou32_or_err` for `-l`.
fn lines_arg(s: &str) -> Result<i64, String> {
    let t = s.trim_start();
    let digits = t.strip_prefix('+').unwrap_or(t);
    if t.starts_with('-') {
        return Err(format!(
            "bad -l argument: '{s}': Numerical result out of range"
        ));
    }
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return Err(format!("bad -l argument: '{s}'"));
    }
    match digits.parse::<u32>() {
        Ok(n) => Ok(i64::from(n) * 2),
        Err(_) => Err(format!(
            "bad -l argument: '{s}': Numerical result out of range"
        )),
    }
}

pub fn run(args: &[String], io: &mut Io) -> i32 {
    let prog = prog(args, "col");
    let parsed = match getopt::parse(args, SPECS, Config::default()) {
        Ok(p) => p,
        Err(msg) => {
            let _ = io.err.write_all(gnu::usage::report(&prog, &msg).as_bytes());
            return 1;
        }
    };
    let mut opts = Options {
        no_backspaces: false,
        fine: false,
        pass: false,
        compress: true,
        buffered: 64,
    };
    for opt in &parsed.opts {
        match opt.key {
            K::NoBackspaces => opts.no_backspaces = true,
            K::Fine => opts.fine = true,
            K::Pass => opts.pass = true,
            K::Tabs => opts.compress = true,
            K::Spaces => opts.compress = false,
            K::Lines => match lines_arg(opt.arg.as_deref().unwrap_or("")) {
                Ok(n) => opts.buffered = n,
                Err(msg) => {
                    let _ = writeln!(io.err, "{prog}: {msg}");
                    return 1;
                }
            },
            K::Help => {
                let _ = io.out.write_all(HELP.as_bytes());
                return 0;
            }
            K::Version => {
                let _ = writeln!(io.out, "{prog} from util-linux 2.37.2");
                return 0;
            }
        }
    }
    let mut input = Vec::new();
    if let Err(e) = io.stdin.read_to_end(&mut input) {
        let _ = writeln!(io.err, "{prog}: {}", crate::common::sys::strerror(&e));
        return 1;
    }
    let out = col(&input, &opts, io.err, &prog);
    if let Err(e) = io.out.write_all(&out) {
        return write_failed(args, &e, io.err);
    }
    0
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run_col(input: &[u8], no_backspaces: bool) -> Vec<u8> {
        let opts = Options {
            no_backspaces,
            fine: false,
            pass: false,
            compress: true,
            buffered: 64,
        };
        col(input, &opts, &mut Vec::new(), "col")
    }

    #[test]
    fn overstrikes_and_reverse_feeds() {
        assert_eq!(run_col(b"N\x08NA\x08A\n", true), b"NA\n");
        assert_eq!(run_col(b"_\x08u\n", false), b"_\x08u\n");
        assert_eq!(run_col(b"x\ny\x0bz\n", false), b"xz\ny\n");
        assert_eq!(run_col(b"abc", false), b"abc\n");
        assert_eq!(run_col(b"a\r", false), b"");
    }
}
