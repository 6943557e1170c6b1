//! `xargs`: GNU findutils 4.9 semantics.
//!
//! Supported: `-0 --null`, `-a --arg-file`, `-d --delimiter` (with `\n`, `\t`, `\xHH`, `\NNN`
//! escapes), `-E --eof`, `-e[EOF]`, `-I --replace`, `-i[R]`, `-L --max-lines`, `-l[N]`,
//! `-n --max-args`, `-r --no-run-if-empty`, `-s --max-chars`, `-t --verbose`, `-x --exit`,
//! `-P --max-procs`, `-p --interactive`, `--show-limits`. Default command `echo`. Input
//! splitting follows GNU: blanks (space, tab, newline) separate items, single and
//! double quotes group (not across lines), a backslash escapes the next character; a line
//! ending in a blank continues for `-L`. Exit statuses 123 (a command failed), 124 (a command
//! exited 255; xargs stops), 125 (killed by a signal), 126 (cannot run), 127 (not found), 1
//! (usage or input errors), with GNU's messages.
//!
//! Differences from GNU, and why:
//! * `-P N` runs the commands one after another: the sandbox runs one instance at a time per
//!   process and sequential output is deterministic (GNU's interleaving is not).
//! * `-p` fails like GNU does without a terminal (`failed to open /dev/tty`, status 1).
//! * The default `-s` is 131072 bytes, GNU's buffer size on Linux; the sandbox has no
//!   `ARG_MAX`.
//! * Commands get `/dev/null` as stdin, as GNU does unless items come from `-a`; in native
//!   test runs they inherit stdin (the std-backed spawn cannot redirect).

use crate::common::exec::{self, StartError};
use crate::common::getopt::{self, Config, OptSpec};
use crate::common::io::{prog, run_main, write_failed};
use crate::common::{Io, sys};
use std::ffi::OsString;
use std::io::{BufRead, BufReader, Read, Write};

pub fn main(args: Vec<OsString>) -> i32 {
    run_main(args, run)
}

/// GNU's default command buffer size (`xargs --show-limits`).
const DEFAULT_MAX_CHARS: usize = 131_072;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum K {
    Null,
    ArgFile,
    Delim,
    Eof,
    EofOpt,
    Replace,
    ReplaceOpt,
    MaxLines,
    MaxLinesOpt,
    MaxArgs,
    Interactive,
    NoRunEmpty,
    MaxChars,
    Verbose,
    Exit,
    MaxProcs,
    ShowLimits,
    ProcessSlotVar,
    OpenTty,
    Help,
    Version,
}

const SPECS: &[OptSpec<K>] = &[
    getopt::flag('0', "null", K::Null),
    getopt::with_arg('a', "arg-file", K::ArgFile),
    getopt::with_arg('d', "delimiter", K::Delim),
    getopt::with_arg('E', "", K::Eof),
    getopt::short_opt_arg('e', "eof", K::EofOpt),
    getopt::with_arg('I', "", K::Replace),
    getopt::short_opt_arg('i', "replace", K::ReplaceOpt),
    getopt::with_arg('L', "", K::MaxLines),
    getopt::short_opt_arg('l', "max-lines", K::MaxLinesOpt),
    getopt::with_arg('n', "max-args", K::MaxArgs),
    getopt::flag('p', "interactive", K::Interactive),
    getopt::flag('r', "no-run-if-empty", K::NoRunEmpty),
    getopt::with_arg('s', "max-chars", K::MaxChars),
    getopt::flag('t', "verbose", K::Verbose),
    getopt::flag('x', "exit", K::Exit),
    getopt::with_arg('P', "max-procs", K::MaxProcs),
    getopt::long_flag("show-limits", K::ShowLimits),
    getopt::long_arg("process-slot-var", K::ProcessSlotVar),
    getopt::flag('o', "open-tty", K::OpenTty),
    getopt::long_flag("help", K::Help),
    getopt::long_flag("version", K::Version),
];

/// How input is split into items.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Split {
    /// Blanks and newlines, with quotes and backslashes.
    Default,
    /// One fixed delimiter byte, no quoting.
    Delim(u8),
}

#[derive(Debug)]
struct Opts {
    split: Split,
    arg_file: Option<String>,
    eof: Option<String>,
    replace: Option<String>,
    max_lines: Option<usize>,
    max_args: Option<usize>,
    no_run_empty: bool,
    max_chars: usize,
    verbose: bool,
    exit_on_size: bool,
    interactive: bool,
    show_limits: bool,
}

/// Parses a `-d` argument: one character or a C escape.
fn parse_delim(s: &str) -> Option<u8> {
    let b = s.as_bytes();
    if b.len() == 1 {
        return Some(b[0]);
    }
    if b.first() != Some(&b'\\') {
        return None;
    }
    match &s[1..] {
        "a" => Some(7),
        "b" => Some(8),
        "f" => Some(12),
        "n" => Some(b'\n'),
        "r" => Some(b'\r'),
        "t" => Some(b'\t'),
        "v" => Some(11),
        "\\" => Some(b'\\'),
        rest if rest.starts_with('x') => u8::from_str_radix(&rest[1..], 16).ok(),
        rest if rest.starts_with('0') || rest.bytes().all(|c| (b'0'..=b'7').contains(&c)) => {
            u8::from_str_radix(rest, 8).ok()
        }
        _ => None,
    }
}

/// Why reading input stopped early.
enum InputError {
    UnmatchedSingle,
    UnmatchedDouble,
    Io(std::io::Error),
}

/// Incremental reader of items.
struct Items<R: BufRead> {
    r: R,
    split: Split,
    eof_str: Option<String>,
    done: bool,
    /// With `-I`: one item per line (blanks inside lines kept).
    whole_lines: bool,
}

/// One input item and whether its line ended with it (for `-L`).
struct Item {
    text: Vec<u8>,
    ends_line: bool,
}

/// Item separators besides newline: `isblank` in the C locale (a carriage return is part of
/// an item, which is why `echo $'Icon\r' | xargs touch` creates `Icon\r`).
fn is_blank(b: u8) -> bool {
    b == b' ' || b == b'\t'
}

impl<R: BufRead> Items<R> {
    fn next_byte(&mut self) -> Result<Option<u8>, InputError> {
        let buf = self.r.fill_buf().map_err(InputError::Io)?;
        if buf.is_empty() {
            return Ok(None);
        }
        let b = buf[0];
        self.r.consume(1);
        Ok(Some(b))
    }

    fn next(&mut self) -> Result<Option<Item>, InputError> {
        if self.done {
            return Ok(None);
        }
        if let Split::Delim(d) = self.split {
            let mut text = Vec::new();
            loop {
                match self.next_byte()? {
                    None => {
                        self.done = true;
                        if text.is_empty() {
                            return Ok(None);
                        }
                        break;
                    }
                    Some(b) if b == d => break,
                    Some(b) => text.push(b),
                }
            }
            return Ok(Some(Item {
                text,
                ends_line: true,
            }));
        }
        // Default splitting.
        let mut text = Vec::new();
        let mut have = false;
        let mut quote: Option<u8> = None;
        loop {
            let Some(b) = self.next_byte()? else {
                self.done = true;
                if let Some(q) = quote {
                    return Err(if q == b'\'' {
                        InputError::UnmatchedSingle
                    } else {
                        InputError::UnmatchedDouble
                    });
                }
                if !have {
                    return Ok(None);
                }
                return self.finish(text, true);
            };
            if let Some(q) = quote {
                if b == q {
                    quote = None;
                } else if b == b'\n' {
                    self.done = true;
                    return Err(if q == b'\'' {
                        InputError::UnmatchedSingle
                    } else {
                        InputError::UnmatchedDouble
                    });
                } else {
                    text.push(b);
                }
                continue;
            }
            match b {
                b'\n' => {
                    if have {
                        return self.finish(text, true);
                    }
                    if self.whole_lines {
                        // An empty line is skipped, as GNU does.
                        continue;
                    }
                }
                b if is_blank(b) && !self.whole_lines => {
                    if have {
                        // Peek: a blank at the end of a line means the line continues (-L).
                        return self.finish(text, false);
                    }
                }
                b if is_blank(b) && self.whole_lines && !have => {
                    // -I strips leading blanks.
                }
                b'\'' | b'"' => {
                    quote = Some(b);
                    have = true;
                }
                b'\\' => {
                    have = true;
                    if let Some(n) = self.next_byte()? {
                        text.push(n);
                    }
                }
                _ => {
                    text.push(b);
                    have = true;
                }
            }
        }
    }

    fn finish(&mut self, text: Vec<u8>, ends_line: bool) -> Result<Option<Item>, InputError> {
        if let Some(e) = &self.eof_str
            && text == e.as_bytes()
        {
            self.done = true;
            return Ok(None);
        }
        Ok(Some(Item { text, ends_line }))
    }
}

pub fn run(args: &[String], io: &mut Io) -> i32 {
    let prog = prog(args, "xargs");
    let usage = |io: &mut Io, msg: &str| {
        let _ = writeln!(io.err, "{prog}: {msg}");
        let _ = writeln!(io.err, "{}", gnu::usage::try_help(&prog));
        1
    };
    // Options act as getopt returns them: the warnings of those before a bad one come first.
    let (parsed, bad_option) = getopt::parse_in_order(
        args,
        SPECS,
        Config {
            stop_at_operand: true,
            digits: None,
        },
    );
    let mut o = Opts {
        split: Split::Default,
        arg_file: None,
        eof: None,
        replace: None,
        max_lines: None,
        max_args: None,
        no_run_empty: false,
        max_chars: DEFAULT_MAX_CHARS,
        verbose: false,
        exit_on_size: false,
        interactive: false,
        show_limits: false,
    };
    // Which of -n, -L, -I/-i came last: GNU warns when a later one overrides an earlier one.
    #[derive(Clone, Copy, PartialEq, Eq)]
    enum Mode {
        Args,
        Lines,
        ReplaceI,
        Replacei,
    }
    let mut last_mode: Option<Mode> = None;
    let exclusive = |io: &mut Io, previous: &str, current: &str| {
        let _ = writeln!(
            io.err,
            "{prog}: warning: options {previous} and {current} are mutually exclusive, ignoring previous {previous} value"
        );
    };
    for opt in &parsed.opts {
        let arg = opt.arg.clone().unwrap_or_default();
        let num = |io: &mut Io, min: usize| -> Result<usize, i32> {
            match getopt::parse_uint(&arg) {
                Some(n) if n as usize >= min => Ok(n as usize),
                Some(_) => {
                    let _ = writeln!(
                        io.err,
                        "{prog}: value {arg} for {} option should be >= {min}",
                        opt.spelled
                    );
                    let _ = writeln!(io.err, "{}", gnu::usage::try_help(&prog));
                    Err(1)
                }
                None => {
                    let _ = writeln!(
                        io.err,
                        "{prog}: invalid number \"{arg}\" for {} option",
                        opt.spelled
                    );
                    let _ = writeln!(io.err, "{}", gnu::usage::try_help(&prog));
                    Err(1)
                }
            }
        };
        match opt.key {
            K::Null => o.split = Split::Delim(0),
            K::ArgFile => o.arg_file = Some(arg),
            K::Delim => match parse_delim(&arg) {
                Some(d) => o.split = Split::Delim(d),
                None => {
                    let _ = writeln!(
                        io.err,
                        "{prog}: Invalid input delimiter specification {arg}: the delimiter must be either a single character or an escape sequence starting with \\."
                    );
                    return 1;
                }
            },
            K::Eof => o.eof = Some(arg),
            K::EofOpt => o.eof = opt.arg.clone().filter(|s| !s.is_empty()),
            K::Replace | K::ReplaceOpt => {
                let r = if opt.key == K::ReplaceOpt && opt.arg.is_none() {
                    "{}".to_string()
                } else {
                    arg
                };
                match last_mode {
                    Some(Mode::Args) => exclusive(io, "--max-args", "--replace/-I/-i"),
                    Some(Mode::Lines) => exclusive(io, "--max-lines", "--replace/-I/-i"),
                    _ => {}
                }
                last_mode = Some(if opt.key == K::Replace {
                    Mode::ReplaceI
                } else {
                    Mode::Replacei
                });
                o.replace = Some(r);
                o.max_lines = Some(1);
                o.max_args = None;
                o.exit_on_size = true;
            }
            K::MaxLines | K::MaxLinesOpt => {
                // GNU names the option as it was given: `-L`, or `--max-lines/-l`.
                let current = if opt.key == K::MaxLines {
                    "-L"
                } else {
                    "--max-lines/-l"
                };
                match last_mode {
                    Some(Mode::Args) => exclusive(io, "--max-args", current),
                    Some(Mode::ReplaceI | Mode::Replacei) => exclusive(io, "--replace", current),
                    _ => {}
                }
                last_mode = Some(Mode::Lines);
                o.max_lines = Some(if opt.key == K::MaxLinesOpt && opt.arg.is_none() {
                    1
                } else {
                    match num(io, 1) {
                        Ok(n) => n,
                        Err(c) => return c,
                    }
                });
                o.max_args = None;
                o.replace = None;
            }
            K::MaxArgs => {
                let n = match num(io, 1) {
                    Ok(n) => n,
                    Err(c) => return c,
                };
                match last_mode {
                    // GNU quirk: `-n1` after `-I` or `-i` keeps the replacement, silently
                    // (findutils 4.8: `-I{} -n1` runs per line, `-I{} -n2` warns).
                    Some(Mode::ReplaceI | Mode::Replacei) if n == 1 => continue,
                    Some(Mode::ReplaceI | Mode::Replacei) => {
                        exclusive(io, "--replace", "--max-args/-n")
                    }
                    Some(Mode::Lines) => exclusive(io, "--max-lines", "--max-args/-n"),
                    _ => {}
                }
                last_mode = Some(Mode::Args);
                o.max_args = Some(n);
                o.max_lines = None;
                o.replace = None;
            }
            K::Interactive => {
                o.interactive = true;
                o.verbose = true;
            }
            K::NoRunEmpty => o.no_run_empty = true,
            K::MaxChars => {
                o.max_chars = match num(io, 1) {
                    Ok(n) => n,
                    Err(c) => return c,
                }
            }
            K::Verbose => o.verbose = true,
            K::Exit => o.exit_on_size = true,
            K::MaxProcs => {
                if num(io, 0).is_err() {
                    return 1;
                }
            }
            K::ShowLimits => o.show_limits = true,
            K::ProcessSlotVar | K::OpenTty => {}
            K::Help => {
                let _ = writeln!(
                    io.out,
                    "Usage: {prog} [OPTION]... COMMAND [INITIAL-ARGS]..."
                );
                return 0;
            }
            K::Version => {
                // Upstream's image: Ubuntu 22.04's findutils.
                let _ = write!(
                    io.out,
                    "{}",
                    crate::common::gnu_version(
                        "xargs (GNU findutils) 4.8.0",
                        2021,
                        "Eric B. Decker, James Youngman, and Kevin Dalley"
                    )
                );
                return 0;
            }
        }
    }
    if let Some(message) = bad_option {
        return usage(io, &message);
    }
    let command: Vec<String> = if parsed.operands.is_empty() {
        vec!["echo".to_string()]
    } else {
        parsed.operands.clone()
    };
    if o.eof.is_some() && o.split != Split::Default {
        // GNU's message ends in a newline of its own, so a blank line follows it.
        let _ = write!(
            io.err,
            "{prog}: warning: the -E option has no effect if -0 or -d is used.\n\n"
        );
        o.eof = None;
    }
    if o.show_limits {
        let _ = writeln!(
            io.err,
            "Your environment variables take up 0 bytes\nPOSIX upper limit on argument length (this system): 2092104\nPOSIX smallest allowable upper limit on argument length (all systems): 4096\nMaximum length of command we could actually use: 2092104\nSize of command buffer we are actually using: {}\nMaximum parallelism (--max-procs must be no greater): 2147483647",
            o.max_chars
        );
    }
    let mut from_file;
    let mut stdin_reader;
    let reader: &mut dyn Read = match &o.arg_file {
        Some(f) => match std::fs::File::open(f) {
            Ok(file) => {
                from_file = file;
                &mut from_file
            }
            Err(e) => {
                let _ = writeln!(
                    io.err,
                    "{prog}: Cannot open input file '{f}': {}",
                    sys::strerror(&e)
                );
                return 1;
            }
        },
        None => {
            stdin_reader = &mut *io.stdin;
            &mut stdin_reader
        }
    };
    let mut items = Items {
        r: BufReader::new(reader),
        split: o.split,
        eof_str: o.eof.clone(),
        done: false,
        whole_lines: o.replace.is_some() && o.split == Split::Default,
    };
    let mut runner = Runner {
        prog: prog.clone(),
        status: 0,
        verbose: o.verbose,
        interactive: o.interactive,
        stdin_null: o.arg_file.is_none(),
        out: io.out,
        err: io.err,
    };
    let base_len: usize = command.iter().map(|a| a.len() + 1).sum();
    let mut pending: Vec<String> = Vec::new();
    let mut pending_len = base_len;
    let mut lines_in_batch = 0usize;
    let mut ran_any = false;
    let mut input_error = None;
    loop {
        let item = match items.next() {
            Ok(Some(i)) => i,
            Ok(None) => break,
            Err(e) => {
                input_error = Some(e);
                break;
            }
        };
        let text = String::from_utf8_lossy(&item.text).into_owned();
        if let Some(r) = &o.replace {
            // GNU replaces in the initial arguments, never in the command name
            // (`xargs -i {} echo {}` runs a program named `{}`).
            let argv: Vec<String> = command
                .iter()
                .enumerate()
                .map(|(i, a)| {
                    if i == 0 {
                        a.clone()
                    } else {
                        a.replace(r.as_str(), &text)
                    }
                })
                .collect();
            let len: usize = argv.iter().map(|a| a.len() + 1).sum();
            if len > o.max_chars {
                let _ = writeln!(runner.err, "{prog}: argument line too long");
                return 1;
            }
            ran_any = true;
            if let Some(code) = runner.run(&argv) {
                return code;
            }
            continue;
        }
        let add = text.len() + 1;
        if base_len + add > o.max_chars {
            let _ = writeln!(runner.err, "{prog}: argument line too long");
            return 1;
        }
        if pending_len + add > o.max_chars && !pending.is_empty() {
            if o.exit_on_size && o.max_args.is_some() {
                let _ = writeln!(runner.err, "{prog}: argument list too long");
                return 1;
            }
            ran_any = true;
            if let Some(code) = runner.run_with(&command, &pending) {
                return code;
            }
            pending.clear();
            pending_len = base_len;
            lines_in_batch = 0;
        }
        pending.push(text);
        pending_len += add;
        if item.ends_line {
            lines_in_batch += 1;
        }
        let full = o.max_args.is_some_and(|n| pending.len() >= n)
            || o.max_lines.is_some_and(|n| lines_in_batch >= n);
        if full {
            ran_any = true;
            if let Some(code) = runner.run_with(&command, &pending) {
                return code;
            }
            pending.clear();
            pending_len = base_len;
            lines_in_batch = 0;
        }
    }
    let must_run = !pending.is_empty() || (!ran_any && !o.no_run_empty && o.replace.is_none());
    if must_run && let Some(code) = runner.run_with(&command, &pending) {
        return code;
    }
    if let Some(e) = input_error {
        let msg = match e {
            InputError::UnmatchedSingle => {
                "unmatched single quote; by default quotes are special to xargs unless you use the -0 option".to_string()
            }
            InputError::UnmatchedDouble => {
                "unmatched double quote; by default quotes are special to xargs unless you use the -0 option".to_string()
            }
            InputError::Io(e) => sys::strerror(&e),
        };
        let _ = writeln!(runner.err, "{prog}: {msg}");
        return 1;
    }
    if let Err(e) = runner.out.flush() {
        return write_failed(&[prog], &e, runner.err);
    }
    runner.status
}

/// `-t` shows arguments quoted for the shell when they need it, like GNU's
/// `shell-escape` quoting.
fn shell_quote(a: &str) -> String {
    let plain = !a.is_empty()
        && a.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"_@%+=:,./-".contains(&b));
    if plain {
        a.to_string()
    } else {
        format!("'{}'", a.replace('\'', "'\\''"))
    }
}

struct Runner<'a> {
    prog: String,
    status: i32,
    verbose: bool,
    interactive: bool,
    /// Commands read /dev/null, not our input (GNU does this unless items come from -a).
    stdin_null: bool,
    out: &'a mut dyn Write,
    err: &'a mut dyn Write,
}

impl Runner<'_> {
    fn run_with(&mut self, command: &[String], args: &[String]) -> Option<i32> {
        let mut argv = command.to_vec();
        argv.extend(args.iter().cloned());
        self.run(&argv)
    }

    /// Runs one command line; `Some(status)` when xargs must stop with that status.
    fn run(&mut self, argv: &[String]) -> Option<i32> {
        if self.verbose {
            let _ = self.out.flush();
            let line: Vec<String> = argv.iter().map(|a| shell_quote(a)).collect();
            let line = line.join(" ");
            if self.interactive {
                // GNU asks on /dev/tty; the sandbox has none, and GNU then gives up.
                let _ = write!(self.err, "{line}");
                let _ = writeln!(
                    self.err,
                    "{}: failed to open /dev/tty for reading: No such device or address",
                    self.prog
                );
                return Some(1);
            }
            let _ = writeln!(self.err, "{line}");
        }
        match exec::run(argv, None, self.stdin_null, self.out) {
            Ok(0) => None,
            Ok(255) => {
                let _ = writeln!(
                    self.err,
                    "{}: {}: exited with status 255; aborting",
                    self.prog, argv[0]
                );
                Some(124)
            }
            Ok(code) if code > 128 => {
                let _ = writeln!(
                    self.err,
                    "{}: {}: terminated by signal {}",
                    self.prog,
                    argv[0],
                    code - 128
                );
                Some(125)
            }
            Ok(_) => {
                self.status = 123;
                None
            }
            Err(StartError::NotFound) => {
                let _ = writeln!(
                    self.err,
                    "{}: {}: No such file or directory",
                    self.prog, argv[0]
                );
                Some(127)
            }
            Err(StartError::NotExecutable(e)) => {
                let _ = writeln!(
                    self.err,
                    "{}: {}: {}",
                    self.prog,
                    argv[0],
                    sys::strerror(&e)
                );
                Some(126)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn items(input: &str, split: Split, whole_lines: bool) -> Vec<String> {
        let mut it = Items {
            r: BufReader::new(input.as_bytes()),
            split,
            eof_str: None,
            done: false,
            whole_lines,
        };
        let mut v = Vec::new();
        while let Ok(Some(i)) = it.next() {
            v.push(String::from_utf8(i.text).unwrap());
        }
        v
    }

    #[test]
    fn default_splitting_and_quotes() {
        assert_eq!(
            items("a b\n\"c d\" e\\ f\n", Split::Default, false),
            vec!["a", "b", "c d", "e f"]
        );
        assert_eq!(items("Icon\r\n", Split::Default, false), vec!["Icon\r"]);
        assert_eq!(items("x'y z'w", Split::Default, false), vec!["xy zw"]);
        assert_eq!(items("''\n", Split::Default, false), vec![""]);
    }

    #[test]
    fn delimiters() {
        assert_eq!(items("a\0b c\0", Split::Delim(0), false), vec!["a", "b c"]);
        assert_eq!(
            items("a:b:c", Split::Delim(b':'), false),
            vec!["a", "b", "c"]
        );
        assert_eq!(
            items("a\n\nb\n", Split::Delim(b'\n'), false),
            vec!["a", "", "b"]
        );
        assert_eq!(parse_delim("\\n"), Some(b'\n'));
        assert_eq!(parse_delim("\\x41"), Some(b'A'));
        assert_eq!(parse_delim("\\0"), Some(0));
        assert_eq!(parse_delim("ab"), None);
    }

    #[test]
    fn replace_mode_lines() {
        assert_eq!(
            items("  a b  \nc\n", Split::Default, true),
            vec!["a b  ", "c"]
        );
    }

    #[test]
    fn unmatched_quote_is_an_error() {
        let mut it = Items {
            r: BufReader::new("a 'b\n".as_bytes()),
            split: Split::Default,
            eof_str: None,
            done: false,
            whole_lines: false,
        };
        assert!(matches!(it.next(), Ok(Some(_))));
        assert!(matches!(it.next(), Err(InputError::UnmatchedSingle)));
    }

    fn xargs(args: &[&str], input: &str) -> (i32, String, String) {
        let argv: Vec<String> = std::iter::once("xargs")
            .chain(args.iter().copied())
            .map(String::from)
            .collect();
        let mut stdin = input.as_bytes();
        let (mut out, mut err) = (Vec::new(), Vec::new());
        let code = run(
            &argv,
            &mut Io {
                stdin: &mut stdin,
                out: &mut out,
                err: &mut err,
            },
        );
        (
            code,
            String::from_utf8_lossy(&out).into(),
            String::from_utf8_lossy(&err).into(),
        )
    }

    #[test]
    fn usage_errors() {
        let (code, _, err) = xargs(&["-z"], "");
        assert_eq!(code, 1);
        assert_eq!(
            err,
            "xargs: invalid option -- 'z'\nTry 'xargs --help' for more information.\n"
        );
        let (code, _, err) = xargs(&["-n", "x"], "");
        assert_eq!(code, 1);
        assert_eq!(
            err,
            "xargs: invalid number \"x\" for -n option\nTry 'xargs --help' for more information.\n"
        );
    }

    /// findutils 4.8 (Ubuntu 22.04) on these option orders; `-r` and no input run nothing.
    #[test]
    fn exclusive_options_warn_as_gnu() {
        let warning = |args: &[&str]| xargs(args, "").2;
        assert_eq!(warning(&["-r", "-I{}", "-n1", "echo"]), "");
        assert_eq!(warning(&["-r", "-i", "-n1", "echo"]), "");
        assert_eq!(
            warning(&["-r", "-I{}", "-n2", "echo"]),
            "xargs: warning: options --replace and --max-args/-n are mutually exclusive, \
             ignoring previous --replace value\n"
        );
        assert_eq!(
            warning(&["-r", "-I{}", "-l", "echo"]),
            "xargs: warning: options --replace and --max-lines/-l are mutually exclusive, \
             ignoring previous --replace value\n"
        );
        assert_eq!(
            warning(&["-r", "-i", "-L1", "echo"]),
            "xargs: warning: options --replace and -L are mutually exclusive, ignoring \
             previous --replace value\n"
        );
    }

    #[test]
    fn line_too_long() {
        let (code, _, err) = xargs(&["-s", "5", "echo"], "aaaaaa\n");
        assert_eq!(code, 1);
        assert_eq!(err, "xargs: argument line too long\n");
    }
}
