//! `du`: GNU coreutils 9 semantics, with `st_blocks`, inode and device numbers from the host
//! (`hostcalls::stat`), since WASI's metadata has none of them.
//!
//! Supported: `-a -b -c -d N --max-depth=N -h --si -k -m -B SIZE -s -S -x -l -L -P -H -D -0
//! --apparent-size --exclude=PATTERN`. Sizes are disk usage (`st_blocks × 512`) or apparent
//! sizes, shown in 1024-byte blocks rounded up unless told otherwise; `-h` rounds up with one
//! decimal below 10 (`4.0K`). Hard-linked files are counted (and, with `-a`, listed) once;
//! with several operands every file and directory is counted once, as GNU does.
//!
//! Difference from GNU: entries of a directory are visited sorted by name, where GNU uses
//! `readdir` order; output order and which of several hard links is listed follow from that.

use crate::common::getopt::{self, Config, OptSpec};
use crate::common::human::{human_ceil, parse_block_size, si_ceil};
use crate::common::io::{prog, read_input, run_main, write_failed};
use crate::common::{Io, glob, sys};
use std::collections::HashSet;
use std::ffi::OsString;

pub fn main(args: Vec<OsString>) -> i32 {
    run_main(args, run)
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum K {
    All,
    Bytes,
    Total,
    MaxDepth,
    Human,
    Si,
    Kilo,
    Mega,
    BlockSize,
    Summarize,
    Separate,
    OneFs,
    CountLinks,
    Deref,
    NoDeref,
    DerefArgs,
    Null,
    Apparent,
    Exclude,
    Files0From,
    Help,
    Version,
}

const SPECS: &[OptSpec<K>] = &[
    getopt::flag('a', "all", K::All),
    getopt::flag('b', "bytes", K::Bytes),
    getopt::flag('c', "total", K::Total),
    getopt::with_arg('d', "max-depth", K::MaxDepth),
    getopt::flag('h', "human-readable", K::Human),
    getopt::long_flag("si", K::Si),
    getopt::flag('k', "", K::Kilo),
    getopt::flag('m', "", K::Mega),
    getopt::with_arg('B', "block-size", K::BlockSize),
    getopt::flag('s', "summarize", K::Summarize),
    getopt::flag('S', "separate-dirs", K::Separate),
    getopt::flag('x', "one-file-system", K::OneFs),
    getopt::flag('l', "count-links", K::CountLinks),
    getopt::flag('L', "dereference", K::Deref),
    getopt::flag('P', "no-dereference", K::NoDeref),
    getopt::flag('H', "", K::DerefArgs),
    getopt::flag('D', "dereference-args", K::DerefArgs),
    getopt::flag('0', "null", K::Null),
    getopt::long_flag("apparent-size", K::Apparent),
    getopt::long_arg("exclude", K::Exclude),
    getopt::long_arg("files0-from", K::Files0From),
    getopt::long_flag("help", K::Help),
    getopt::long_flag("version", K::Version),
];

/// How sizes are printed.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Units {
    Human,
    Si,
    /// Block size in bytes and the suffix to print (`-BM` prints `1M`).
    Blocks(u64, String),
}

struct Du<'a, 'b> {
    io: &'a mut Io<'b>,
    prog: String,
    all: bool,
    apparent: bool,
    max_depth: Option<usize>,
    separate: bool,
    one_fs: bool,
    count_links: bool,
    deref: bool,
    deref_args: bool,
    nul: bool,
    units: Units,
    excludes: Vec<String>,
    hash_all: bool,
    seen: HashSet<(u64, u64)>,
    status: i32,
    write_error: Option<std::io::Error>,
}

impl Du<'_, '_> {
    fn format(&self, bytes: u64) -> String {
        match &self.units {
            Units::Human => human_ceil(bytes),
            Units::Si => si_ceil(bytes),
            Units::Blocks(b, suffix) => format!("{}{suffix}", bytes.div_ceil(*b)),
        }
    }

    fn print(&mut self, bytes: u64, path: &str) {
        let line = format!(
            "{}\t{path}{}",
            self.format(bytes),
            if self.nul { '\0' } else { '\n' }
        );
        if let Err(e) = self.io.out.write_all(line.as_bytes())
            && self.write_error.is_none()
        {
            self.write_error = Some(e);
        }
    }

    fn excluded(&self, path: &str) -> bool {
        self.excludes.iter().any(|p| {
            glob::matches(p, path, false)
                || path
                    .match_indices('/')
                    .any(|(i, _)| glob::matches(p, &path[i + 1..], false))
        })
    }

    /// Walks `path` and returns the size it contributes to its parent.
    fn walk(&mut self, path: &str, depth: usize, root_dev: Option<u64>) -> u64 {
        if self.write_error.is_some() {
            return 0;
        }
        if path.is_empty() {
            // fts refuses the name before looking at the disk.
            let _ = writeln!(self.io.err, "{}: invalid zero-length file name", self.prog);
            self.status = 1;
            return 0;
        }
        let follow = self.deref || (depth == 0 && self.deref_args);
        let st = match hostcalls::stat(path, follow) {
            Ok(s) => s,
            Err(e) => {
                let _ = writeln!(
                    self.io.err,
                    "{}: cannot access '{path}': {}",
                    self.prog,
                    sys::strerror(&e)
                );
                self.status = 1;
                return 0;
            }
        };
        if depth > 0 && self.excluded(path) {
            return 0;
        }
        let root_dev = root_dev.unwrap_or(st.dev);
        if self.one_fs && st.dev != root_dev {
            return 0;
        }
        if !self.count_links
            && (self.hash_all || (!st.is_dir() && st.nlink > 1))
            && !self.seen.insert((st.dev, st.ino))
        {
            return 0;
        }
        let own = if self.apparent {
            st.size
        } else {
            st.blocks * 512
        };
        let show = self.max_depth.is_none_or(|m| depth <= m);
        if !st.is_dir() {
            if show && (self.all || depth == 0) {
                self.print(own, path);
            }
            return own;
        }
        let mut total = own;
        match std::fs::read_dir(path) {
            Ok(rd) => {
                let mut names: Vec<String> = rd
                    .filter_map(|e| e.ok())
                    .map(|e| e.file_name().to_string_lossy().into_owned())
                    .collect();
                names.sort_unstable_by(|a, b| a.as_bytes().cmp(b.as_bytes()));
                for n in names {
                    let child = if path.ends_with('/') {
                        format!("{path}{n}")
                    } else {
                        format!("{path}/{n}")
                    };
                    let is_dir = hostcalls::stat(&child, self.deref).is_ok_and(|s| s.is_dir());
                    let size = self.walk(&child, depth + 1, Some(root_dev));
                    if !(self.separate && is_dir) {
                        total += size;
                    }
                }
            }
            Err(e) => {
                let _ = writeln!(
                    self.io.err,
                    "{}: cannot read directory '{path}': {}",
                    self.prog,
                    sys::strerror(&e)
                );
                self.status = 1;
            }
        }
        if show {
            self.print(total, path);
        }
        total
    }
}

pub fn run(args: &[String], io: &mut Io) -> i32 {
    let prog = prog(args, "du");
    let parsed = match getopt::parse(args, SPECS, Config::default()) {
        Ok(p) => p,
        Err(msg) => {
            let _ = io.err.write_all(gnu::usage::report(&prog, &msg).as_bytes());
            return 1;
        }
    };
    let mut du = Du {
        prog: prog.clone(),
        all: false,
        apparent: false,
        max_depth: None,
        separate: false,
        one_fs: false,
        count_links: false,
        deref: false,
        deref_args: false,
        nul: false,
        units: Units::Blocks(1024, String::new()),
        excludes: Vec::new(),
        hash_all: false,
        seen: HashSet::new(),
        status: 0,
        write_error: None,
        io,
    };
    let mut total = false;
    let mut summarize = false;
    let mut files0_from: Option<String> = None;
    for o in &parsed.opts {
        let arg = o.arg.clone().unwrap_or_default();
        match o.key {
            K::All => du.all = true,
            K::Bytes => {
                du.apparent = true;
                du.units = Units::Blocks(1, String::new());
            }
            K::Total => total = true,
            K::MaxDepth => match getopt::parse_uint(&arg) {
                Some(n) => du.max_depth = Some(n as usize),
                None => {
                    // GNU follows this one with its usage hint.
                    let _ = writeln!(
                        du.io.err,
                        "{prog}: invalid maximum depth {}\nTry '{prog} --help' for more information.",
                        crate::common::quote::locale(&arg)
                    );
                    return 1;
                }
            },
            K::Human => du.units = Units::Human,
            K::Si => du.units = Units::Si,
            K::Kilo => du.units = Units::Blocks(1024, String::new()),
            K::Mega => du.units = Units::Blocks(1 << 20, String::new()),
            K::BlockSize => match parse_block_size(&arg) {
                Some((b, s)) => du.units = Units::Blocks(b, s),
                None => {
                    let _ = writeln!(du.io.err, "{prog}: invalid --block-size argument '{arg}'");
                    return 1;
                }
            },
            K::Summarize => summarize = true,
            K::Separate => du.separate = true,
            K::OneFs => du.one_fs = true,
            K::CountLinks => du.count_links = true,
            K::Deref => du.deref = true,
            K::NoDeref => du.deref = false,
            K::DerefArgs => du.deref_args = true,
            K::Null => du.nul = true,
            K::Apparent => du.apparent = true,
            K::Exclude => du.excludes.push(arg),
            K::Files0From => files0_from = Some(arg),
            K::Help => {
                let _ = writeln!(du.io.out, "Usage: {prog} [OPTION]... [FILE]...");
                return 0;
            }
            K::Version => {
                let _ = writeln!(du.io.out, "du (GNU coreutils) 8.32");
                return 0;
            }
        }
    }
    if summarize {
        if du.all {
            let _ = writeln!(
                du.io.err,
                "{prog}: cannot both summarize and show all entries\nTry '{prog} --help' for more information."
            );
            return 1;
        }
        if du.max_depth.is_some_and(|d| d != 0) {
            let _ = writeln!(
                du.io.err,
                "{prog}: warning: summarizing conflicts with --max-depth={}",
                du.max_depth.unwrap_or(0)
            );
            let _ = writeln!(du.io.err, "{}", gnu::usage::try_help(&prog));
            return 1;
        }
        du.max_depth = Some(0);
    }
    let operands = match files0_from {
        Some(list) => {
            if let Some(extra) = parsed.operands.first() {
                let _ = writeln!(
                    du.io.err,
                    "{prog}: extra operand {}\nfile operands cannot be combined with --files0-from\n\
                     Try '{prog} --help' for more information.",
                    crate::common::quote::locale(extra)
                );
                return 1;
            }
            match read_input(&list, &mut *du.io.stdin) {
                Ok(data) => names_in_list(&data),
                Err(e) => {
                    let _ = writeln!(
                        du.io.err,
                        "{prog}: cannot open {} for reading: {}",
                        crate::common::quote::locale(&list),
                        sys::strerror(&e)
                    );
                    return 1;
                }
            }
            .into_iter()
            .enumerate()
            .filter_map(|(at, name)| {
                if name.is_empty() {
                    let _ = writeln!(
                        du.io.err,
                        "{prog}: {list}:{}: invalid zero-length file name",
                        at + 1
                    );
                    du.status = 1;
                    return None;
                }
                Some(name)
            })
            .collect()
        }
        None if parsed.operands.is_empty() => vec![".".to_string()],
        None => parsed.operands,
    };
    du.hash_all = operands.len() > 1;
    let mut grand = 0u64;
    for op in &operands {
        grand += du.walk(op, 0, None);
    }
    if total {
        du.print(grand, "total");
    }
    if let Some(e) = du.write_error.take() {
        return write_failed(&[prog], &e, du.io.err);
    }
    du.status
}

/// The names of a `--files0-from` list: NUL-terminated, the last terminator optional.
fn names_in_list(data: &[u8]) -> Vec<String> {
    let data = data.strip_suffix(b"\0").unwrap_or(data);
    if data.is_empty() {
        return Vec::new();
    }
    data.split(|&b| b == 0)
        .map(|name| String::from_utf8_lossy(name).into_owned())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_files0_list_ends_with_an_optional_terminator() {
        assert_eq!(names_in_list(b"a\0b/c\0"), ["a", "b/c"]);
        assert_eq!(names_in_list(b"a\0\0b"), ["a", "", "b"]);
        assert!(names_in_list(b"").is_empty());
    }

    #[test]
    fn block_sizes() {
        assert_eq!(parse_block_size("M"), Some((1 << 20, "M".into())));
        assert_eq!(parse_block_size("1K"), Some((1024, String::new())));
        assert_eq!(parse_block_size("KB"), Some((1000, "KB".into())));
        assert_eq!(parse_block_size("x"), None);
        assert_eq!(parse_block_size("0"), None);
    }

    #[test]
    fn si_rounding() {
        assert_eq!(si_ceil(4096), "4.1k");
        assert_eq!(si_ceil(8192), "8.2k");
        assert_eq!(si_ceil(999), "999");
        assert_eq!(si_ceil(1_000_000), "1.0M");
    }

    fn du(dir: &std::path::Path, args: &[&str]) -> (i32, String, String) {
        let argv: Vec<String> = std::iter::once("du".to_string())
            .chain(args.iter().map(|a| a.replace('@', dir.to_str().unwrap())))
            .collect();
        let (code, out, err) = crate::common::io::capture_text(run, &argv, b"");
        let d = dir.to_str().unwrap();
        (code, out.replace(d, "@"), err.replace(d, "@"))
    }

    #[test]
    fn apparent_bytes_and_totals() {
        let d = tempfile::tempdir().unwrap();
        std::fs::create_dir(d.path().join("s")).unwrap();
        std::fs::write(d.path().join("s/f"), "12345").unwrap();
        let (_, out, _) = du(d.path(), &["-b", "@/s/f"]);
        assert_eq!(out, "5\t@/s/f\n");
        let (_, out, _) = du(d.path(), &["-b", "-c", "@/s/f", "@/s/f"]);
        assert_eq!(out, "5\t@/s/f\n5\ttotal\n");
        let (code, _, err) = du(d.path(), &["@/nope"]);
        assert_eq!(code, 1);
        assert_eq!(
            err,
            "du: cannot access '@/nope': No such file or directory\n"
        );
    }
}
