//! `grep`, `egrep`, `fgrep`: GNU grep 3.7/3.8 behaviour in the C locale, on pure-Rust regex
//! engines (see `common::rx` for how BRE/ERE are translated and what differs).
//!
//! Supported: `-E -F -G -P`, `-e -f`, `-i -y --no-ignore-case -v -w -x`, `-c -l -L -q -s -o
//! -n -b -h -H --label -Z --null -z --null-data`, `-m NUM`, `-A -B -C -NUM`,
//! `--group-separator --no-group-separator`, `-r -R`, `--include --exclude --exclude-dir`,
//! `-a --text -I --binary-files=TYPE`, `-d ACTION`, `-D ACTION`, `-U`, `--color[=WHEN]`
//! (accepted; output is never coloured), `--line-buffered`, `-T`.
//!
//! GNU behaviours kept: exit status 0/1/2 (2 on any error unless `-q` found a match; with
//! `-L` too it tells whether some line was selected), binary files (any NUL byte) reported as
//! `grep: FILE: binary file matches` on standard error instead of the matching lines, and NUL
//! bytes acting as line ends inside binary files; `-r` without operands searching `.` with
//! names printed without `./`; `--` between non-adjacent context groups, also across files;
//! leftmost-longest `-o` matches; the `[:space:]` misuse error.
//!
//! Differences from GNU, and why:
//! * A file is binary if it contains a NUL anywhere (GNU decides per 32 KiB buffer, so lines
//!   before a late NUL may still print there); the C locale has no encoding errors to check.
//! * `-r` visits directory entries sorted by name; GNU uses `readdir` order.
//! * `egrep`/`fgrep` print no obsolescence warning: upstream's grep 3.7 did not.
//! * Colour output is never produced (the sandbox's stdout is not a terminal, so GNU's
//!   `--color=auto` would not colour either).

use crate::common::getopt::{self, Config, OptSpec};
use crate::common::io::{prog, run_main, write_failed};
use crate::common::rx::{self, Rx, Syntax};
use crate::common::{Io, glob, sys};
use std::ffi::OsString;
use std::io::{self, BufRead, BufReader, Read};

pub fn main(args: Vec<OsString>) -> i32 {
    run_main(args, run)
}

/// `egrep` is `grep -E` (upstream's egrep is a script running grep, so messages say `grep`).
pub fn egrep_main(mut args: Vec<OsString>) -> i32 {
    args[0] = "grep".into();
    args.insert(1, "-E".into());
    run_main(args, run)
}

/// `fgrep` is `grep -F`.
pub fn fgrep_main(mut args: Vec<OsString>) -> i32 {
    args[0] = "grep".into();
    args.insert(1, "-F".into());
    run_main(args, run)
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum K {
    Extended,
    Fixed,
    Basic,
    Perl,
    Regexp,
    File,
    IgnoreCase,
    NoIgnoreCase,
    Invert,
    Word,
    Line,
    Count,
    FilesWith,
    FilesWithout,
    Quiet,
    Silent,
    Only,
    LineNumber,
    ByteOffset,
    NoFilename,
    WithFilename,
    Label,
    NullName,
    NullData,
    MaxCount,
    After,
    Before,
    Context,
    Digits,
    GroupSep,
    NoGroupSep,
    Recursive,
    Deref,
    Include,
    Exclude,
    ExcludeDir,
    Text,
    NoBinary,
    BinaryFiles,
    Directories,
    Devices,
    Color,
    Ignored,
    Help,
    Version,
}

const SPECS: &[OptSpec<K>] = &[
    getopt::flag('E', "extended-regexp", K::Extended),
    getopt::flag('F', "fixed-strings", K::Fixed),
    getopt::flag('G', "basic-regexp", K::Basic),
    getopt::flag('P', "perl-regexp", K::Perl),
    getopt::with_arg('e', "regexp", K::Regexp),
    getopt::with_arg('f', "file", K::File),
    getopt::flag('i', "ignore-case", K::IgnoreCase),
    getopt::flag('y', "", K::IgnoreCase),
    getopt::long_flag("no-ignore-case", K::NoIgnoreCase),
    getopt::flag('v', "invert-match", K::Invert),
    getopt::flag('w', "word-regexp", K::Word),
    getopt::flag('x', "line-regexp", K::Line),
    getopt::flag('c', "count", K::Count),
    getopt::flag('l', "files-with-matches", K::FilesWith),
    getopt::flag('L', "files-without-match", K::FilesWithout),
    getopt::flag('q', "quiet", K::Quiet),
    getopt::long_flag("silent", K::Quiet),
    getopt::flag('s', "no-messages", K::Silent),
    getopt::flag('o', "only-matching", K::Only),
    getopt::flag('n', "line-number", K::LineNumber),
    getopt::flag('b', "byte-offset", K::ByteOffset),
    getopt::flag('h', "no-filename", K::NoFilename),
    getopt::flag('H', "with-filename", K::WithFilename),
    getopt::long_arg("label", K::Label),
    getopt::flag('Z', "null", K::NullName),
    getopt::flag('z', "null-data", K::NullData),
    getopt::with_arg('m', "max-count", K::MaxCount),
    getopt::with_arg('A', "after-context", K::After),
    getopt::with_arg('B', "before-context", K::Before),
    getopt::with_arg('C', "context", K::Context),
    getopt::long_arg("group-separator", K::GroupSep),
    getopt::long_flag("no-group-separator", K::NoGroupSep),
    getopt::flag('r', "recursive", K::Recursive),
    getopt::flag('R', "dereference-recursive", K::Deref),
    getopt::long_arg("include", K::Include),
    getopt::long_arg("exclude", K::Exclude),
    getopt::long_arg("exclude-dir", K::ExcludeDir),
    getopt::flag('a', "text", K::Text),
    getopt::flag('I', "", K::NoBinary),
    getopt::long_arg("binary-files", K::BinaryFiles),
    getopt::with_arg('d', "directories", K::Directories),
    getopt::with_arg('D', "devices", K::Devices),
    getopt::long_opt_arg("color", K::Color),
    getopt::long_opt_arg("colour", K::Color),
    getopt::flag('U', "binary", K::Ignored),
    getopt::flag('T', "initial-tab", K::Ignored),
    getopt::long_flag("line-buffered", K::Ignored),
    getopt::long_flag("help", K::Help),
    getopt::flag('V', "version", K::Version),
];

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mode {
    Basic,
    Extended,
    Fixed,
    Perl,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum BinMode {
    Binary,
    Text,
    WithoutMatch,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Dirs {
    Read,
    Skip,
    Recurse { deref: bool },
}

struct Opts {
    invert: bool,
    count: bool,
    files_with: bool,
    files_without: bool,
    quiet: bool,
    silent: bool,
    only: bool,
    line_number: bool,
    byte_offset: bool,
    /// `Some(true)` = -H, `Some(false)` = -h.
    with_filename: Option<bool>,
    label: String,
    null_name: bool,
    eol: u8,
    max_count: Option<u64>,
    after: usize,
    before: usize,
    context_given: bool,
    group_sep: Option<String>,
    dirs: Dirs,
    skip_devices: bool,
    includes: Vec<String>,
    excludes: Vec<String>,
    exclude_dirs: Vec<String>,
    binary: BinMode,
}

/// Why a search stops early.
enum Stop {
    /// `-q` found a match: exit 0 now.
    Quiet,
    /// Standard output failed.
    Write(io::Error),
}

struct Grep<'a, 'b> {
    o: Opts,
    rx: Rx,
    io: &'a mut Io<'b>,
    prog: String,
    show_names: bool,
    error: bool,
    matched: bool,
    /// Whether any line was printed (context separators go between groups, also across
    /// files).
    printed_any: bool,
}

fn usage(io: &mut Io, prog: &str, msg: &str) -> i32 {
    let _ = writeln!(io.err, "{prog}: {msg}");
    let _ = writeln!(io.err, "Usage: {prog} [OPTION]... PATTERNS [FILE]...");
    let _ = writeln!(io.err, "{}", gnu::usage::try_help(prog));
    2
}

fn context_num(io: &mut Io, prog: &str, s: &str) -> Result<usize, i32> {
    match getopt::parse_uint(s) {
        Some(n) => Ok(n as usize),
        None => {
            let _ = writeln!(io.err, "{prog}: {s}: invalid context length argument");
            Err(2)
        }
    }
}

pub fn run(args: &[String], io: &mut Io) -> i32 {
    let prog = prog(args, "grep");
    // GNU grep acts on each option as getopt returns it: a bad `-m`/`-A` value or an
    // unreadable `-f` file met before an invalid option is the error it reports.
    let (parsed, bad_option) = getopt::parse_in_order(
        args,
        SPECS,
        Config {
            stop_at_operand: false,
            digits: Some(K::Digits),
        },
    );
    let mut mode = Mode::Basic;
    let mut patterns: Option<Vec<String>> = None;
    let (mut icase, mut word, mut line) = (false, false, false);
    let mut o = Opts {
        invert: false,
        count: false,
        files_with: false,
        files_without: false,
        quiet: false,
        silent: false,
        only: false,
        line_number: false,
        byte_offset: false,
        with_filename: None,
        label: "(standard input)".into(),
        null_name: false,
        eol: b'\n',
        max_count: None,
        after: 0,
        before: 0,
        context_given: false,
        group_sep: Some("--".into()),
        dirs: Dirs::Read,
        skip_devices: false,
        includes: Vec::new(),
        excludes: Vec::new(),
        exclude_dirs: Vec::new(),
        binary: BinMode::Binary,
    };
    let mut digits_ctx: Option<String> = None;
    let mut last_digit_opt = usize::MAX;
    for (idx, opt) in parsed.opts.iter().enumerate() {
        let arg = opt.arg.clone().unwrap_or_default();
        match opt.key {
            K::Extended => mode = Mode::Extended,
            K::Fixed => mode = Mode::Fixed,
            K::Basic => mode = Mode::Basic,
            K::Perl => mode = Mode::Perl,
            K::Regexp => patterns
                .get_or_insert_with(Vec::new)
                .extend(arg.split('\n').map(String::from)),
            K::File => {
                let data = if arg == "-" {
                    let mut v = Vec::new();
                    io.stdin.read_to_end(&mut v).map(|_| v)
                } else {
                    std::fs::read(&arg)
                };
                match data {
                    Ok(d) => {
                        let text = String::from_utf8_lossy(&d).into_owned();
                        let list = patterns.get_or_insert_with(Vec::new);
                        let body = text.strip_suffix('\n').unwrap_or(&text);
                        if !text.is_empty() {
                            list.extend(body.split('\n').map(String::from));
                        }
                    }
                    Err(e) => {
                        let _ = writeln!(io.err, "{prog}: {arg}: {}", sys::strerror(&e));
                        return 2;
                    }
                }
            }
            K::IgnoreCase => icase = true,
            K::NoIgnoreCase => icase = false,
            K::Invert => o.invert = true,
            K::Word => word = true,
            K::Line => line = true,
            K::Count => o.count = true,
            K::FilesWith => {
                o.files_with = true;
                o.files_without = false;
            }
            K::FilesWithout => {
                o.files_without = true;
                o.files_with = false;
            }
            K::Quiet => o.quiet = true,
            K::Silent => o.silent = true,
            K::Only => o.only = true,
            K::LineNumber => o.line_number = true,
            K::ByteOffset => o.byte_offset = true,
            K::NoFilename => o.with_filename = Some(false),
            K::WithFilename => o.with_filename = Some(true),
            K::Label => o.label = arg,
            K::NullName => o.null_name = true,
            K::NullData => o.eol = 0,
            K::MaxCount => match arg.trim().parse::<i64>() {
                Ok(n) => o.max_count = if n < 0 { None } else { Some(n as u64) },
                Err(_) => {
                    let _ = writeln!(io.err, "{prog}: invalid max count");
                    return 2;
                }
            },
            K::After => match context_num(io, &prog, &arg) {
                Ok(n) => {
                    o.after = n;
                    o.context_given = true;
                }
                Err(c) => return c,
            },
            K::Before => match context_num(io, &prog, &arg) {
                Ok(n) => {
                    o.before = n;
                    o.context_given = true;
                }
                Err(c) => return c,
            },
            K::Context => match context_num(io, &prog, &arg) {
                Ok(n) => {
                    o.after = n;
                    o.before = n;
                    o.context_given = true;
                }
                Err(c) => return c,
            },
            K::Digits => {
                // `-5` and `-1 -2` accumulate like GNU (adjacent digit options concatenate).
                if last_digit_opt.wrapping_add(1) == idx {
                    digits_ctx.get_or_insert_with(String::new).push_str(&arg);
                } else {
                    digits_ctx = Some(arg);
                }
                last_digit_opt = idx;
                let n = digits_ctx
                    .as_deref()
                    .unwrap_or("0")
                    .parse()
                    .unwrap_or(usize::MAX);
                o.after = n;
                o.before = n;
                o.context_given = true;
            }
            K::GroupSep => o.group_sep = Some(arg),
            K::NoGroupSep => o.group_sep = None,
            K::Recursive => o.dirs = Dirs::Recurse { deref: false },
            K::Deref => o.dirs = Dirs::Recurse { deref: true },
            K::Include => o.includes.push(arg),
            K::Exclude => o.excludes.push(arg),
            K::ExcludeDir => o.exclude_dirs.push(arg),
            K::Text => o.binary = BinMode::Text,
            K::NoBinary => o.binary = BinMode::WithoutMatch,
            K::BinaryFiles => {
                o.binary = match arg.as_str() {
                    "binary" => BinMode::Binary,
                    "text" => BinMode::Text,
                    "without-match" => BinMode::WithoutMatch,
                    _ => {
                        let _ = writeln!(io.err, "{prog}: unknown binary-files type");
                        return 2;
                    }
                }
            }
            K::Directories => {
                o.dirs = match arg.as_str() {
                    "read" => Dirs::Read,
                    "skip" => Dirs::Skip,
                    "recurse" => Dirs::Recurse { deref: false },
                    _ => {
                        let _ = writeln!(io.err, "{prog}: unknown directories method");
                        return 2;
                    }
                }
            }
            K::Devices => o.skip_devices = arg == "skip",
            K::Color | K::Ignored => {}
            // Help and version come after the whole command line has parsed.
            K::Help | K::Version if bad_option.is_some() => {}
            K::Help => {
                let _ = writeln!(io.out, "Usage: {prog} [OPTION]... PATTERNS [FILE]...");
                return 0;
            }
            K::Version => {
                let _ = writeln!(io.out, "grep (GNU grep) 3.7");
                return 0;
            }
        }
    }
    if let Some(msg) = bad_option {
        return usage(io, &prog, &msg);
    }
    let mut operands = parsed.operands;
    let patterns = match patterns {
        Some(p) => p,
        None => {
            if operands.is_empty() {
                let _ = writeln!(io.err, "Usage: {prog} [OPTION]... PATTERNS [FILE]...");
                let _ = writeln!(io.err, "{}", gnu::usage::try_help(&prog));
                return 2;
            }
            operands.remove(0).split('\n').map(String::from).collect()
        }
    };
    let rx = match compile(&patterns, mode, icase, word, line) {
        Ok(r) => r,
        Err(msg) => {
            let _ = writeln!(io.err, "{prog}: {msg}");
            return 2;
        }
    };
    let recursive = matches!(o.dirs, Dirs::Recurse { .. });
    let implicit_dot = operands.is_empty() && recursive;
    let files = if operands.is_empty() {
        vec![if recursive {
            ".".to_string()
        } else {
            "-".to_string()
        }]
    } else {
        operands
    };
    // GNU: names are shown for several operands, and for one operand once recursion enters a
    // directory.
    let show_names = match o.with_filename {
        Some(v) => v,
        None => {
            files.len() > 1
                || (recursive
                    && files
                        .iter()
                        .any(|f| f != "-" && hostcalls::stat(f, true).is_ok_and(|s| s.is_dir())))
        }
    };
    let mut g = Grep {
        o,
        rx,
        io,
        prog: prog.clone(),
        show_names,
        error: false,
        matched: false,
        printed_any: false,
    };
    for f in &files {
        let r = if f == "-" {
            g.search_stdin()
        } else {
            g.operand(f, implicit_dot)
        };
        match r {
            Ok(()) => {}
            Err(Stop::Quiet) => {
                let _ = g.io.out.flush();
                return 0;
            }
            Err(Stop::Write(e)) => return write_failed(&[prog], &e, g.io.err),
        }
    }
    if let Err(e) = g.io.out.flush() {
        return write_failed(&[prog], &e, g.io.err);
    }
    if g.error && !(g.o.quiet && g.matched) {
        2
    } else if g.matched {
        0
    } else {
        1
    }
}

/// Builds one matcher from all patterns.
fn compile(
    patterns: &[String],
    mode: Mode,
    icase: bool,
    word: bool,
    line: bool,
) -> Result<Rx, String> {
    if patterns.is_empty() {
        // `-f /dev/null`: nothing can match.
        return Rx::from_translated(
            &rx::Translated {
                pattern: "[^\\x00-\\xFF]".into(),
                backrefs: false,
                groups: 0,
            },
            false,
        );
    }
    if mode == Mode::Perl {
        let p = patterns.join("|");
        let p = if line {
            format!("^(?:{p})$")
        } else if word {
            format!("(?<![0-9A-Za-z_])(?:{p})(?![0-9A-Za-z_])")
        } else {
            p
        };
        return Rx::perl(&p, icase).map_err(|_| "invalid regular expression".to_string());
    }
    let mut parts = Vec::new();
    let mut groups = 0;
    let mut backrefs = false;
    for p in patterns {
        let t = match mode {
            Mode::Fixed => {
                let mut s = String::new();
                for b in p.bytes() {
                    if b.is_ascii_alphanumeric() {
                        s.push(b as char);
                    } else {
                        s.push_str(&format!("\\x{b:02X}"));
                    }
                }
                rx::Translated {
                    pattern: s,
                    backrefs: false,
                    groups: 0,
                }
            }
            _ => {
                let syntax = if mode == Mode::Extended {
                    Syntax::Extended
                } else {
                    Syntax::Basic
                };
                rx::translate(
                    p,
                    syntax,
                    rx::TrOptions {
                        group_offset: groups,
                        grep_class_check: true,
                    },
                )?
            }
        };
        groups += t.groups;
        backrefs |= t.backrefs;
        parts.push(format!("(?:{})", t.pattern));
    }
    let body = parts.join("|");
    let pattern = if line {
        format!("\\A(?:{body})\\z")
    } else if word {
        if backrefs {
            format!("(?<![0-9A-Za-z_])(?:{body})(?![0-9A-Za-z_])")
        } else {
            format!("\\b{{start-half}}(?:{body})\\b{{end-half}}")
        }
    } else {
        body
    };
    Rx::from_translated(
        &rx::Translated {
            pattern,
            backrefs,
            groups,
        },
        icase,
    )
}

/// A `--include`/`--exclude` glob matches a name if it matches the whole name or any suffix
/// that starts after a `/`.
fn suffix_match(pattern: &str, name: &str) -> bool {
    if glob::matches(pattern, name, false) {
        return true;
    }
    name.match_indices('/')
        .any(|(i, _)| glob::matches(pattern, &name[i + 1..], false))
}

impl Grep<'_, '_> {
    fn file_error(&mut self, name: &str, e: &io::Error) {
        if !self.o.silent {
            let _ = writeln!(self.io.err, "{}: {name}: {}", self.prog, sys::strerror(e));
        }
        self.error = true;
    }

    fn excluded_file(&self, name: &str, command_line: bool) -> bool {
        let test = |p: &str| {
            if command_line {
                suffix_match(p, name)
            } else {
                glob::matches(p, name.rsplit('/').next().unwrap_or(name), false)
            }
        };
        if self.o.excludes.iter().any(|p| test(p)) {
            return true;
        }
        !self.o.includes.is_empty() && !self.o.includes.iter().any(|p| test(p))
    }

    fn excluded_dir(&self, name: &str, command_line: bool) -> bool {
        self.o.exclude_dirs.iter().any(|p| {
            if command_line {
                suffix_match(p, name.trim_end_matches('/'))
            } else {
                glob::matches(p, name.rsplit('/').next().unwrap_or(name), false)
            }
        })
    }

    fn operand(&mut self, name: &str, implicit_dot: bool) -> Result<(), Stop> {
        let st = match hostcalls::stat(name, true) {
            Ok(s) => s,
            Err(e) => {
                // A dangling symlink named on the command line is an error like a missing file.
                self.file_error(name, &e);
                return Ok(());
            }
        };
        if st.is_dir() {
            match self.o.dirs {
                Dirs::Read => {
                    let e = io::Error::from(io::ErrorKind::IsADirectory);
                    self.file_error(name, &e);
                    Ok(())
                }
                Dirs::Skip => Ok(()),
                Dirs::Recurse { deref } => {
                    if self.excluded_dir(name, true) && !implicit_dot {
                        return Ok(());
                    }
                    self.walk(name, implicit_dot, deref)
                }
            }
        } else {
            if self.excluded_file(name, true) {
                return Ok(());
            }
            if self.o.skip_devices && !st.is_file() {
                return Ok(());
            }
            self.search_path(name)
        }
    }

    fn walk(&mut self, dir: &str, implicit_dot: bool, deref: bool) -> Result<(), Stop> {
        let mut names: Vec<String> = match std::fs::read_dir(dir) {
            Ok(rd) => rd
                .filter_map(|e| e.ok())
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .collect(),
            Err(e) => {
                self.file_error(dir, &e);
                return Ok(());
            }
        };
        names.sort_unstable_by(|a, b| a.as_bytes().cmp(b.as_bytes()));
        for n in names {
            let path = if implicit_dot && dir == "." {
                n.clone()
            } else if dir.ends_with('/') {
                format!("{dir}{n}")
            } else {
                format!("{dir}/{n}")
            };
            let Ok(lst) = hostcalls::stat(&path, false) else {
                continue;
            };
            let st = if lst.is_symlink() {
                if !deref {
                    // -r skips symlinks met during recursion.
                    continue;
                }
                match hostcalls::stat(&path, true) {
                    Ok(s) => s,
                    Err(e) => {
                        self.file_error(&path, &e);
                        continue;
                    }
                }
            } else {
                lst
            };
            if st.is_dir() {
                if self.excluded_dir(&n, false) {
                    continue;
                }
                self.walk(&path, false, deref)?;
            } else if st.is_file() {
                if self.excluded_file(&path, false) {
                    continue;
                }
                self.search_path(&path)?;
            }
            // Devices, FIFOs and sockets are skipped during recursion, as GNU does.
        }
        Ok(())
    }

    fn search_path(&mut self, name: &str) -> Result<(), Stop> {
        match std::fs::File::open(name) {
            Ok(f) => {
                let mut r = BufReader::with_capacity(32 * 1024, f);
                self.search(name, &mut r)
            }
            Err(e) => {
                self.file_error(name, &e);
                Ok(())
            }
        }
    }

    fn search_stdin(&mut self) -> Result<(), Stop> {
        let label = self.o.label.clone();
        // Lend stdin out of `self.io` for the search (a zero-sized placeholder stands in).
        let placeholder: &mut dyn Read = Box::leak(Box::new(io::empty()));
        let stdin = std::mem::replace(&mut self.io.stdin, placeholder);
        let mut r = BufReader::with_capacity(32 * 1024, &mut *stdin);
        let res = self.search(&label, &mut r);
        drop(r);
        self.io.stdin = stdin;
        res
    }

    fn write(&mut self, data: &[u8]) -> Result<(), Stop> {
        self.io.out.write_all(data).map_err(Stop::Write)
    }

    fn prefix(&mut self, name: &str, lineno: u64, offset: u64, sep: u8) -> Result<(), Stop> {
        let mut p = Vec::new();
        if self.show_names {
            p.extend_from_slice(name.as_bytes());
            p.push(if self.o.null_name { 0 } else { sep });
        }
        if self.o.line_number {
            p.extend_from_slice(lineno.to_string().as_bytes());
            p.push(sep);
        }
        if self.o.byte_offset {
            p.extend_from_slice(offset.to_string().as_bytes());
            p.push(sep);
        }
        self.write(&p)
    }

    fn search(&mut self, name: &str, r: &mut dyn BufRead) -> Result<(), Stop> {
        // Like GNU, a file is binary when its first buffer holds a NUL; a NUL met later makes
        // the next selected line report the file as binary instead of printing it.
        // With -z, NUL is the line terminator and cannot mark a file as binary.
        let binary = match r.fill_buf() {
            Ok(buf) => self.o.binary != BinMode::Text && self.o.eol != 0 && buf.contains(&0),
            Err(e) => {
                self.file_error(name, &e);
                return Ok(());
            }
        };
        if binary && self.o.binary == BinMode::WithoutMatch {
            if self.o.files_without {
                self.found_file_without(name)?;
            }
            return Ok(());
        }
        let quiet_like = self.o.quiet || self.o.files_with || self.o.files_without;
        let print_lines = !quiet_like && !self.o.count;
        let max = self.o.max_count;
        if max == Some(0) {
            if self.o.count {
                self.count_line(name, 0)?;
            }
            if self.o.files_without {
                self.found_file_without(name)?;
            }
            return Ok(());
        }
        let mut lines = Records::new(r, self.o.eol, binary);
        let mut count: u64 = 0;
        let mut last_printed: Option<u64> = None;
        let mut after_left = 0usize;
        // Lines before the current one, kept for -B: (number, offset, text).
        let mut before: std::collections::VecDeque<(u64, u64, Vec<u8>)> =
            std::collections::VecDeque::new();
        loop {
            let (lineno, offset, line) = match lines.next() {
                Ok(Some(l)) => l,
                Ok(None) => break,
                Err(e) => {
                    self.file_error(name, &e);
                    break;
                }
            };
            if max.is_some_and(|m| count >= m) {
                // Only trailing context after the last counted match remains.
                if after_left > 0 && print_lines && !binary {
                    self.print_line(name, lineno, offset, &line, b'-')?;
                    last_printed = Some(lineno);
                    after_left -= 1;
                    continue;
                }
                break;
            }
            let selected = self.rx_selects(&line);
            if !selected {
                if after_left > 0 && print_lines && !binary {
                    self.print_line(name, lineno, offset, &line, b'-')?;
                    last_printed = Some(lineno);
                    after_left -= 1;
                } else if self.o.before > 0 {
                    before.push_back((lineno, offset, line));
                    if before.len() > self.o.before {
                        before.pop_front();
                    }
                }
                continue;
            }
            count += 1;
            self.matched = true;
            if self.o.quiet {
                return Err(Stop::Quiet);
            }
            if self.o.files_with || self.o.files_without {
                break;
            }
            if self.o.count {
                continue;
            }
            if self.o.binary != BinMode::Text && (binary || lines.saw_nul) {
                let _ = writeln!(self.io.err, "{}: {name}: binary file matches", self.prog);
                break;
            }
            let first_ctx = before.front().map_or(lineno, |b| b.0);
            let contiguous = last_printed.is_some_and(|lp| lp + 1 >= first_ctx);
            if self.o.context_given
                && self.printed_any
                && !contiguous
                && let Some(sep) = self.o.group_sep.clone()
            {
                let mut l = sep.into_bytes();
                l.push(b'\n');
                self.write(&l)?;
            }
            for (n, off, text) in std::mem::take(&mut before) {
                self.print_line(name, n, off, &text, b'-')?;
            }
            if self.o.only {
                if !self.o.invert {
                    self.print_matches(name, lineno, offset, &line)?;
                }
            } else {
                self.print_line(name, lineno, offset, &line, b':')?;
            }
            self.printed_any = true;
            last_printed = Some(lineno);
            after_left = self.o.after;
        }
        if self.o.count {
            self.count_line(name, count)?;
        }
        if self.o.files_with && count > 0 {
            self.write_name(name)?;
        }
        if self.o.files_without && count == 0 {
            self.found_file_without(name)?;
        }
        Ok(())
    }

    fn rx_selects(&self, line: &[u8]) -> bool {
        self.rx.is_match(line) != self.o.invert
    }

    fn found_file_without(&mut self, name: &str) -> Result<(), Stop> {
        // grep ≥ 3.5: the exit status of -L, like any other, says whether a line was
        // selected, not whether a file was listed.
        self.write_name(name)
    }

    fn write_name(&mut self, name: &str) -> Result<(), Stop> {
        let mut l = name.as_bytes().to_vec();
        l.push(if self.o.null_name { 0 } else { b'\n' });
        self.write(&l)
    }

    fn count_line(&mut self, name: &str, n: u64) -> Result<(), Stop> {
        let mut l = Vec::new();
        if self.show_names {
            l.extend_from_slice(name.as_bytes());
            l.push(if self.o.null_name { 0 } else { b':' });
        }
        l.extend_from_slice(n.to_string().as_bytes());
        l.push(b'\n');
        self.write(&l)
    }

    fn print_line(
        &mut self,
        name: &str,
        lineno: u64,
        offset: u64,
        line: &[u8],
        sep: u8,
    ) -> Result<(), Stop> {
        self.prefix(name, lineno, offset, sep)?;
        let mut l = line.to_vec();
        l.push(self.o.eol);
        self.printed_any = true;
        self.write(&l)
    }

    fn print_matches(
        &mut self,
        name: &str,
        lineno: u64,
        line_start: u64,
        line: &[u8],
    ) -> Result<(), Stop> {
        let mut pos = 0;
        while pos <= line.len() {
            let Some((s, e)) = self.rx.find_at(line, pos) else {
                break;
            };
            if e == s {
                // Empty matches print nothing; step past them.
                pos = s + 1;
                continue;
            }
            self.prefix(name, lineno, line_start + s as u64, b':')?;
            let mut l = line[s..e].to_vec();
            l.push(self.o.eol);
            self.write(&l)?;
            pos = e;
        }
        Ok(())
    }
}

/// Splits input into records (lines, or NUL-terminated with `-z`); in a binary file NUL
/// bytes end records too, as in GNU grep.
struct Records<'r> {
    r: &'r mut dyn BufRead,
    eol: u8,
    binary: bool,
    /// Records split off a read line, waiting to be returned.
    pending: std::collections::VecDeque<Vec<u8>>,
    lineno: u64,
    offset: u64,
    /// A NUL byte has been seen (a text file turning out binary).
    saw_nul: bool,
}

impl<'r> Records<'r> {
    fn new(r: &'r mut dyn BufRead, eol: u8, binary: bool) -> Self {
        Records {
            r,
            eol,
            binary,
            pending: std::collections::VecDeque::new(),
            lineno: 0,
            offset: 0,
            saw_nul: false,
        }
    }

    /// The next record as (line number, byte offset, bytes without terminator).
    fn next(&mut self) -> io::Result<Option<(u64, u64, Vec<u8>)>> {
        if self.pending.is_empty() {
            let mut buf = Vec::new();
            if self.r.read_until(self.eol, &mut buf)? == 0 {
                return Ok(None);
            }
            let terminated = buf.last() == Some(&self.eol);
            if terminated {
                buf.pop();
            }
            if self.eol != 0 && buf.contains(&0) {
                self.saw_nul = true;
                if self.binary {
                    for part in buf.split(|&b| b == 0) {
                        self.pending.push_back(part.to_vec());
                    }
                } else {
                    self.pending.push_back(buf);
                }
            } else {
                self.pending.push_back(buf);
            }
        }
        let rec = self.pending.pop_front().unwrap_or_default();
        self.lineno += 1;
        let off = self.offset;
        self.offset += rec.len() as u64 + 1;
        Ok(Some((self.lineno, off, rec)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn grep(args: &[&str], input: &str) -> (i32, String, String) {
        let argv: Vec<String> = std::iter::once("grep")
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
    fn basic_matching_and_status() {
        assert_eq!(
            grep(&["hello"], "hello\nworld\n"),
            (0, "hello\n".into(), String::new())
        );
        assert_eq!(grep(&["zzz"], "hello\n").0, 1);
        assert_eq!(grep(&["-v", "-c", "hello"], "hello\nworld\n").1, "1\n");
        assert_eq!(
            grep(&["-n", "o"], "hello\nworld\nx\n").1,
            "1:hello\n2:world\n"
        );
    }

    #[test]
    fn only_matching_is_leftmost_longest() {
        assert_eq!(grep(&["-oE", "a|ab"], "xab\n").1, "ab\n");
        assert_eq!(grep(&["-o", "l*"], "hello\n").1, "ll\n");
        assert_eq!(grep(&["-ob", "l"], "hello\n").1, "2:l\n3:l\n");
    }

    #[test]
    fn words_and_lines() {
        assert_eq!(grep(&["-ow", "foo"], "foo-bar foo_bar\n").1, "foo\n");
        assert_eq!(grep(&["-w", "o"], "hello world\n").0, 1);
        assert_eq!(grep(&["-x", "-F", "a.b"], "a.b\naxb\n").1, "a.b\n");
    }

    #[test]
    fn context_and_separators() {
        let input = "a\nb\nc\nd\ne\nf\na\n";
        assert_eq!(grep(&["-A1", "a"], input).1, "a\nb\n--\na\n");
        assert_eq!(grep(&["-B1", "-n", "d"], input).1, "3-c\n4:d\n");
        assert_eq!(
            grep(&["--group-separator=XX", "-A0", "a"], input).1,
            "a\nXX\na\n"
        );
        assert_eq!(grep(&["-m1", "-A1", "a"], input).1, "a\nb\n");
    }

    #[test]
    fn binary_input() {
        let (code, out, err) = grep(&["def"], "abc\0def\nhello\n");
        assert_eq!((code, out.as_str()), (0, ""));
        assert_eq!(err, "grep: (standard input): binary file matches\n");
        assert_eq!(grep(&["-c", ""], "abc\0def\nhello\n").1, "3\n");
        assert_eq!(grep(&["-a", "def"], "abc\0def\n").1, "abc\0def\n");
    }

    #[test]
    fn errors() {
        assert_eq!(
            grep(&["[:alpha:]"], "x\n").2,
            "grep: character class syntax is [[:space:]], not [:space:]\n"
        );
        let (code, _, err) = grep(&["-y"], "");
        assert_eq!(code, 2);
        assert!(err.starts_with("Usage: grep"));
        let (code, _, err) = grep(&[], "");
        assert_eq!(code, 2);
        assert!(err.starts_with("Usage: grep [OPTION]... PATTERNS [FILE]...\n"));
    }

    #[test]
    fn multiple_patterns_and_perl() {
        assert_eq!(grep(&["-e", "x", "-e", "y", "-c"], "x\ny\nz\n").1, "2\n");
        assert_eq!(grep(&["-oP", "\\d+"], "ab12\n").1, "12\n");
        assert_eq!(grep(&["-oP", "(?<=X)b"], "aXbXc\n").1, "b\n");
        assert_eq!(grep(&["\\(a\\)\\1"], "aa\nab\n").1, "aa\n");
    }

    #[test]
    fn suffix_globs() {
        assert!(suffix_match("*.txt", "dir/a.txt"));
        assert!(suffix_match("a.txt", "dir/a.txt"));
        assert!(!suffix_match("dir", "dir/a.txt"));
    }
}
