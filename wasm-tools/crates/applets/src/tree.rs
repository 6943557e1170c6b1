//! `tree`: the output of tree 2.0.2 (Ubuntu 22.04, what upstream ran) in the C locale:
//! ASCII branches (`|-- `, `` `-- ``), names escaped (`special\ text3.txt`, `\303\251`), entries
//! sorted by `strcoll`, which in the C locale is byte order.
//!
//! Supported: `-a -d -f -i -l -x -L N -p -u -g -s -h --si -D -F -Q -N -q -r -t -U -v
//! --dirsfirst --noreport --inodes --device -I PAT -P PAT --prune --matchdirs --ignore-case
//! -C -n --charset X --timefmt F`.
//!
//! Report line: `N directories, M files`, not counting the directories named on the command
//! line. tree 2.1 counts them; 2.0.2, whose output upstream's gold answers recorded
//! (`tree /system` → "7 directories, 29 files"), does not. Symbolic links to directories count
//! as directories, other links as files.
//!
//! Differences: `-t` sorts by modification time with ties broken by name (tree leaves ties in
//! an unspecified order); `-v` is a simple digit-aware sort; colour is never produced; `-J`,
//! `-X`, `-H`, `-o`, `--du`, `--filelimit` are not supported.

use crate::common::glob;
use crate::common::human::human_ceil;
use crate::common::io::{prog, run_main, write_failed};
use crate::common::mode::mode_string;
use crate::common::quote;
use crate::common::time::{Tm, ls_date, now_ns, strftime};
use crate::common::{Io, sys};
use hostcalls::Stat;
use std::ffi::OsString;

pub fn main(args: Vec<OsString>) -> i32 {
    run_main(args, run)
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Sort {
    Name,
    Version,
    Mtime,
    None,
}

#[derive(Debug, Default)]
struct Opts {
    all: bool,
    dirs_only: bool,
    full_path: bool,
    no_indent: bool,
    follow: bool,
    one_fs: bool,
    max_level: Option<usize>,
    perms: bool,
    user: bool,
    group: bool,
    size: bool,
    human: bool,
    si: bool,
    date: bool,
    classify: bool,
    quote: bool,
    literal: bool,
    question: bool,
    reverse: bool,
    sort: Option<Sort>,
    dirs_first: bool,
    noreport: bool,
    inodes: bool,
    device: bool,
    ignore: Vec<String>,
    pattern: Vec<String>,
    prune: bool,
    match_dirs: bool,
    ignore_case: bool,
    timefmt: Option<String>,
}

struct Tree<'a, 'b> {
    o: Opts,
    io: &'a mut Io<'b>,
    dirs: u64,
    files: u64,
    now: i64,
    error: Option<std::io::Error>,
}

/// Splits tree's `a|b` pattern lists.
fn pattern_matches(patterns: &[String], name: &str, icase: bool) -> bool {
    patterns
        .iter()
        .flat_map(|p| p.split('|'))
        .any(|p| glob::matches(p, name, icase))
}

/// Digit-aware comparison for `-v`.
fn version_cmp(a: &str, b: &str) -> std::cmp::Ordering {
    let (ab, bb) = (a.as_bytes(), b.as_bytes());
    let (mut i, mut j) = (0, 0);
    while i < ab.len() && j < bb.len() {
        if ab[i].is_ascii_digit() && bb[j].is_ascii_digit() {
            let si = i;
            while i < ab.len() && ab[i].is_ascii_digit() {
                i += 1;
            }
            let sj = j;
            while j < bb.len() && bb[j].is_ascii_digit() {
                j += 1;
            }
            let na = a[si..i].trim_start_matches('0');
            let nb = b[sj..j].trim_start_matches('0');
            let ord = na.len().cmp(&nb.len()).then_with(|| na.cmp(nb));
            if ord.is_ne() {
                return ord;
            }
        } else {
            let ord = ab[i].cmp(&bb[j]);
            if ord.is_ne() {
                return ord;
            }
            i += 1;
            j += 1;
        }
    }
    (ab.len() - i).cmp(&(bb.len() - j))
}

struct Child {
    name: String,
    path: String,
    lst: Stat,
    /// The target's metadata for symlinks (None if dangling).
    target: Option<Stat>,
}

impl Child {
    fn is_dir(&self) -> bool {
        self.lst.is_dir() || (self.lst.is_symlink() && self.target.is_some_and(|t| t.is_dir()))
    }
}

impl Tree<'_, '_> {
    fn out(&mut self, s: &str) {
        if self.error.is_none()
            && let Err(e) = self.io.out.write_all(s.as_bytes())
        {
            self.error = Some(e);
        }
    }

    fn display_name(&self, name: &str) -> String {
        if self.o.quote {
            format!("\"{}\"", name.replace('\\', "\\\\").replace('"', "\\\""))
        } else if self.o.literal {
            name.to_string()
        } else if self.o.question {
            name.bytes()
                .map(|b| {
                    if (0x20..0x7f).contains(&b) {
                        b as char
                    } else {
                        '?'
                    }
                })
                .collect()
        } else {
            // tree escapes like `find -ls` except that a double quote stays as it is.
            quote::escape(name).replace("\\\"", "\"")
        }
    }

    fn info(&self, st: &Stat) -> String {
        let mut fields = Vec::new();
        if self.o.inodes {
            fields.push(format!("{:>7}", st.ino));
        }
        if self.o.device {
            fields.push(format!("{:>4}", st.dev));
        }
        if self.o.perms {
            fields.push(mode_string(st.mode));
        }
        if self.o.user {
            fields.push(format!("{:<8}", sys::user_name(st.uid)));
        }
        if self.o.group {
            fields.push(format!("{:<8}", sys::group_name(st.gid)));
        }
        if self.o.size {
            fields.push(if self.o.human {
                format!("{:>4}", human_ceil(st.size))
            } else if self.o.si {
                format!("{:>4}", st.size)
            } else {
                format!("{:>11}", st.size)
            });
        }
        if self.o.date {
            fields.push(match &self.o.timefmt {
                Some(f) => strftime(f, &Tm::from_ns(st.mtime_ns)),
                None => ls_date(st.mtime_ns, self.now),
            });
        }
        if fields.is_empty() {
            String::new()
        } else {
            format!("[{}]  ", fields.join(" "))
        }
    }

    fn classify(&self, st: &Stat) -> &'static str {
        if !self.o.classify {
            return "";
        }
        match crate::common::mode::type_char(st.mode) {
            'd' => "/",
            'p' => "|",
            's' => "=",
            '-' if st.mode & 0o111 != 0 => "*",
            _ => "",
        }
    }

    fn read_children(&mut self, dir: &str) -> std::io::Result<Vec<Child>> {
        let mut v = Vec::new();
        for e in std::fs::read_dir(dir)?.flatten() {
            let name = e.file_name().to_string_lossy().into_owned();
            if !self.o.all && name.starts_with('.') {
                continue;
            }
            let path = if dir.ends_with('/') {
                format!("{dir}{name}")
            } else {
                format!("{dir}/{name}")
            };
            let Ok(lst) = hostcalls::stat(&path, false) else {
                continue;
            };
            let target = if lst.is_symlink() {
                hostcalls::stat(&path, true).ok()
            } else {
                None
            };
            let c = Child {
                name,
                path,
                lst,
                target,
            };
            let is_dir = c.is_dir();
            if self.o.dirs_only && !is_dir {
                continue;
            }
            if pattern_matches(&self.o.ignore, &c.name, self.o.ignore_case) {
                continue;
            }
            if !self.o.pattern.is_empty()
                && !is_dir
                && !pattern_matches(&self.o.pattern, &c.name, self.o.ignore_case)
            {
                continue;
            }
            v.push(c);
        }
        let sort = self.o.sort.unwrap_or(Sort::Name);
        match sort {
            Sort::Name | Sort::None => v.sort_by(|a, b| a.name.as_bytes().cmp(b.name.as_bytes())),
            Sort::Version => v.sort_by(|a, b| version_cmp(&a.name, &b.name)),
            Sort::Mtime => v.sort_by(|a, b| {
                a.lst
                    .mtime_ns
                    .cmp(&b.lst.mtime_ns)
                    .then_with(|| a.name.as_bytes().cmp(b.name.as_bytes()))
            }),
        }
        if self.o.reverse {
            v.reverse();
        }
        if self.o.dirs_first {
            v.sort_by_key(|c| !c.is_dir());
        }
        Ok(v)
    }

    /// Lists the children of `dir` at `level` (1 = children of a root), with `prefix`
    /// drawn from the ancestors' continuation lines.
    fn list(&mut self, dir: &str, level: usize, prefix: &str, dev: u64) {
        if self.o.max_level.is_some_and(|m| level > m) {
            return;
        }
        let children = match self.read_children(dir) {
            Ok(c) => c,
            Err(_) => return,
        };
        let n = children.len();
        for (i, c) in children.into_iter().enumerate() {
            if self.error.is_some() {
                return;
            }
            let last = i + 1 == n;
            let branch = if self.o.no_indent {
                ""
            } else if last {
                "`-- "
            } else {
                "|-- "
            };
            let shown_path = if self.o.full_path {
                c.path.clone()
            } else {
                c.name.clone()
            };
            let mut line = format!(
                "{prefix}{branch}{}{}",
                self.info(&c.lst),
                self.display_name(&shown_path)
            );
            let is_dir = c.is_dir();
            if c.lst.is_symlink() {
                let target = hostcalls::read_link(&c.path)
                    .map(|t| t.to_string_lossy().into_owned())
                    .unwrap_or_default();
                line.push_str(" -> ");
                line.push_str(&self.display_name(&target));
                if let Some(t) = &c.target {
                    line.push_str(self.classify(t));
                }
            } else {
                line.push_str(self.classify(&c.lst));
            }
            let descend = is_dir
                && (!c.lst.is_symlink() || self.o.follow)
                && !(self.o.one_fs && c.lst.dev != dev)
                && self.o.max_level.is_none_or(|m| level < m);
            let mut failed = false;
            if is_dir && descend && std::fs::read_dir(&c.path).is_err() {
                line.push_str("  [error opening dir]");
                failed = true;
            }
            line.push('\n');
            self.out(&line);
            if is_dir {
                self.dirs += 1;
            } else {
                self.files += 1;
            }
            if descend && !failed {
                let next_prefix = if self.o.no_indent {
                    String::new()
                } else if last {
                    format!("{prefix}    ")
                } else {
                    format!("{prefix}|   ")
                };
                self.list(&c.path, level + 1, &next_prefix, dev);
            }
        }
    }
}

/// tree 2.0.2's synopsis (`usage(2)`: after a bad option, on stderr) and the rest of its
/// `--help`, as upstream's image printed them; the program name is always `tree`.
const SYNOPSIS: &str = "usage: tree [-acdfghilnpqrstuvxACDFJQNSUX] [-L level [-R]] [-H  baseHREF]\n\
     \t[-T title] [-o filename] [-P pattern] [-I pattern] [--gitignore]\n\
     \t[--matchdirs] [--metafirst] [--ignore-case] [--nolinks] [--inodes]\n\
     \t[--device] [--sort[=]<name>] [--dirsfirst] [--filesfirst]\n\
     \t[--filelimit #] [--si] [--du] [--prune] [--charset X]\n\
     \t[--timefmt[=]format] [--fromfile] [--noreport] [--version] [--help]\n\
     \t[--] [directory ...]\n";
const HELP_OPTIONS: &str = "\x20 ------- Listing options -------\n\
     \x20 -a            All files are listed.\n\
     \x20 -d            List directories only.\n\
     \x20 -l            Follow symbolic links like directories.\n\
     \x20 -f            Print the full path prefix for each file.\n\
     \x20 -x            Stay on current filesystem only.\n\
     \x20 -L level      Descend only level directories deep.\n\
     \x20 -R            Rerun tree when max dir level reached.\n\
     \x20 -P pattern    List only those files that match the pattern given.\n\
     \x20 -I pattern    Do not list files that match the given pattern.\n\
     \x20 --gitignore   Filter by using .gitignore files.\n\
     \x20 --ignore-case Ignore case when pattern matching.\n\
     \x20 --matchdirs   Include directory names in -P pattern matching.\n\
     \x20 --metafirst   Print meta-data at the beginning of each line.\n\
     \x20 --info        Print information about files found in .info files.\n\
     \x20 --noreport    Turn off file/directory count at end of tree listing.\n\
     \x20 --charset X   Use charset X for terminal/HTML and indentation line output.\n\
     \x20 --filelimit # Do not descend dirs with more than # files in them.\n\
     \x20 -o filename   Output to file instead of stdout.\n\
     \x20 ------- File options -------\n\
     \x20 -q            Print non-printable characters as '?'.\n\
     \x20 -N            Print non-printable characters as is.\n\
     \x20 -Q            Quote filenames with double quotes.\n\
     \x20 -p            Print the protections for each file.\n\
     \x20 -u            Displays file owner or UID number.\n\
     \x20 -g            Displays file group owner or GID number.\n\
     \x20 -s            Print the size in bytes of each file.\n\
     \x20 -h            Print the size in a more human readable way.\n\
     \x20 --si          Like -h, but use in SI units (powers of 1000).\n\
     \x20 -D            Print the date of last modification or (-c) status change.\n\
     \x20 --timefmt <f> Print and format time according to the format <f>.\n\
     \x20 -F            Appends '/', '=', '*', '@', '|' or '>' as per ls -F.\n\
     \x20 --inodes      Print inode number of each file.\n\
     \x20 --device      Print device ID number to which each file belongs.\n\
     \x20 ------- Sorting options -------\n\
     \x20 -v            Sort files alphanumerically by version.\n\
     \x20 -t            Sort files by last modification time.\n\
     \x20 -c            Sort files by last status change time.\n\
     \x20 -U            Leave files unsorted.\n\
     \x20 -r            Reverse the order of the sort.\n\
     \x20 --dirsfirst   List directories before files (-U disables).\n\
     \x20 --filesfirst  List files before directories (-U disables).\n\
     \x20 --sort X      Select sort: name,version,size,mtime,ctime.\n\
     \x20 ------- Graphics options -------\n\
     \x20 -i            Don't print indentation lines.\n\
     \x20 -A            Print ANSI lines graphic indentation lines.\n\
     \x20 -S            Print with CP437 (console) graphics indentation lines.\n\
     \x20 -n            Turn colorization off always (-C overrides).\n\
     \x20 -C            Turn colorization on always.\n\
     \x20 ------- XML/HTML/JSON options -------\n\
     \x20 -X            Prints out an XML representation of the tree.\n\
     \x20 -J            Prints out an JSON representation of the tree.\n\
     \x20 -H baseHREF   Prints out HTML format with baseHREF as top directory.\n\
     \x20 -T string     Replace the default HTML title and H1 header with string.\n\
     \x20 --nolinks     Turn off hyperlinks in HTML output.\n\
     \x20 ------- Input options -------\n\
     \x20 --fromfile    Reads paths from files (.=stdin)\n\
     \x20 ------- Miscellaneous options -------\n\
     \x20 --version     Print version and exit.\n\
     \x20 --help        Print usage and this help message and exit.\n\
     \x20 --            Options processing terminator.\n";

pub fn run(args: &[String], io: &mut Io) -> i32 {
    let prog = prog(args, "tree");
    let mut o = Opts::default();
    let mut roots = Vec::new();
    let mut i = 1;
    let mut only_operands = false;
    let need = |i: &mut usize, opt: &str, io: &mut Io| -> Result<String, i32> {
        if *i < args.len() {
            *i += 1;
            Ok(args[*i - 1].clone())
        } else {
            let _ = writeln!(io.err, "{prog}: Missing argument to {opt} option.");
            Err(1)
        }
    };
    while i < args.len() {
        let a = args[i].clone();
        i += 1;
        if only_operands || !a.starts_with('-') || a == "-" {
            roots.push(a);
            continue;
        }
        if a == "--" {
            only_operands = true;
            continue;
        }
        if let Some(long) = a.strip_prefix("--") {
            let (name, val) = match long.split_once('=') {
                Some((n, v)) => (n, Some(v.to_string())),
                None => (long, None),
            };
            match name {
                "noreport" => o.noreport = true,
                "dirsfirst" => o.dirs_first = true,
                "inodes" => o.inodes = true,
                "device" => o.device = true,
                "si" => {
                    o.si = true;
                    o.size = true;
                }
                "prune" => o.prune = true,
                "matchdirs" => o.match_dirs = true,
                "ignore-case" => o.ignore_case = true,
                "charset" | "filelimit" | "sort" => {
                    let v = match val {
                        Some(v) => v,
                        None => match need(&mut i, &a, io) {
                            Ok(v) => v,
                            Err(c) => return c,
                        },
                    };
                    if name == "sort" {
                        o.sort = Some(match v.as_str() {
                            "version" => Sort::Version,
                            "mtime" => Sort::Mtime,
                            "none" => Sort::None,
                            _ => Sort::Name,
                        });
                    }
                }
                "timefmt" => {
                    let v = match val {
                        Some(v) => v,
                        None => match need(&mut i, &a, io) {
                            Ok(v) => v,
                            Err(c) => return c,
                        },
                    };
                    o.timefmt = Some(v);
                    o.date = true;
                }
                "help" => {
                    let _ = io.out.write_all(SYNOPSIS.as_bytes());
                    let _ = io.out.write_all(HELP_OPTIONS.as_bytes());
                    return 0;
                }
                "version" => {
                    let _ = writeln!(
                        io.out,
                        "tree v2.0.2 (c) 1996 - 2022 by Steve Baker, Thomas Moore, Francesc Rocher, Florian Sesser, Kyosuke Tokoro"
                    );
                    return 0;
                }
                _ => {
                    let _ = writeln!(io.err, "{prog}: Invalid argument `{a}'.");
                    let _ = io.err.write_all(SYNOPSIS.as_bytes());
                    return 1;
                }
            }
            continue;
        }
        for c in a[1..].chars() {
            match c {
                'a' => o.all = true,
                'd' => o.dirs_only = true,
                'f' => o.full_path = true,
                'i' => o.no_indent = true,
                'l' => o.follow = true,
                'x' => o.one_fs = true,
                'p' => o.perms = true,
                'u' => o.user = true,
                'g' => o.group = true,
                's' => o.size = true,
                'h' => {
                    o.human = true;
                    o.size = true;
                }
                'D' => o.date = true,
                'F' => o.classify = true,
                'Q' => o.quote = true,
                'N' => o.literal = true,
                'q' => o.question = true,
                'r' => o.reverse = true,
                't' => o.sort = Some(Sort::Mtime),
                'v' => o.sort = Some(Sort::Version),
                'U' => o.sort = Some(Sort::None),
                'C' | 'n' | 'A' | 'S' => {}
                'L' => match need(&mut i, "-L", io) {
                    Ok(v) => match v.parse::<usize>() {
                        Ok(n) if n >= 1 => o.max_level = Some(n),
                        _ => {
                            let _ =
                                writeln!(io.err, "{prog}: Invalid level, must be greater than 0.");
                            return 1;
                        }
                    },
                    Err(c) => return c,
                },
                'I' => match need(&mut i, "-I", io) {
                    Ok(v) => o.ignore.push(v),
                    Err(c) => return c,
                },
                'P' => match need(&mut i, "-P", io) {
                    Ok(v) => o.pattern.push(v),
                    Err(c) => return c,
                },
                _ => {
                    let _ = writeln!(io.err, "{prog}: Invalid argument -`{c}'.");
                    let _ = io.err.write_all(SYNOPSIS.as_bytes());
                    return 1;
                }
            }
        }
    }
    if roots.is_empty() {
        roots.push(".".to_string());
    }
    let mut t = Tree {
        o,
        io,
        dirs: 0,
        files: 0,
        now: now_ns(),
        error: None,
    };
    let mut status = 0;
    for root in &roots {
        let st = hostcalls::stat(root, true);
        let shown = t.display_name(root);
        match st {
            Ok(st) if st.is_dir() && std::fs::read_dir(root).is_ok() => {
                let classify = if t.o.classify { "/" } else { "" };
                let line = format!("{}{shown}{classify}\n", t.info(&st));
                t.out(&line);
                t.list(root, 1, "", st.dev);
            }
            Ok(_) => {
                t.out(&format!("{shown}  [error opening dir]\n"));
            }
            Err(_) => {
                t.out(&format!("{shown}  [error opening dir]\n"));
                status = 2;
            }
        }
    }
    if !t.o.noreport {
        let d = t.dirs;
        let dir_word = if d == 1 { "directory" } else { "directories" };
        let line = if t.o.dirs_only {
            format!("\n{d} {dir_word}\n")
        } else {
            let f = t.files;
            let file_word = if f == 1 { "file" } else { "files" };
            format!("\n{d} {dir_word}, {f} {file_word}\n")
        };
        t.out(&line);
    }
    if let Some(e) = t.error.take() {
        return write_failed(&[prog], &e, t.io.err);
    }
    status
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tree(dir: &std::path::Path, args: &[&str]) -> String {
        let argv: Vec<String> = std::iter::once("tree".to_string())
            .chain(args.iter().map(|a| a.replace('@', dir.to_str().unwrap())))
            .collect();
        let (_, out, _) = crate::common::io::capture_text(run, &argv, b"");
        out.replace(dir.to_str().unwrap(), "@")
    }

    #[test]
    fn layout_and_report_like_2_0() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path();
        std::fs::create_dir_all(p.join("b/c")).unwrap();
        std::fs::write(p.join("a"), "").unwrap();
        std::fs::write(p.join("b/c/x y"), "").unwrap();
        std::fs::write(p.join("b/z"), "").unwrap();
        std::fs::write(p.join(".h"), "").unwrap();
        assert_eq!(
            tree(p, &["@"]),
            "@\n|-- a\n`-- b\n    |-- c\n    |   `-- x\\ y\n    `-- z\n\n2 directories, 3 files\n"
        );
        assert_eq!(
            tree(p, &["-a", "-L", "1", "--noreport", "@"]),
            "@\n|-- .h\n|-- a\n`-- b\n"
        );
        assert_eq!(
            tree(p, &["-d", "@"]),
            "@\n`-- b\n    `-- c\n\n2 directories\n"
        );
        assert_eq!(
            tree(p, &["-f", "-L", "1", "--noreport", "@"]),
            "@\n|-- @/a\n`-- @/b\n"
        );
    }

    #[test]
    fn missing_root() {
        let d = tempfile::tempdir().unwrap();
        assert_eq!(
            tree(d.path(), &["@/nope"]),
            "@/nope  [error opening dir]\n\n0 directories, 0 files\n"
        );
    }

    #[test]
    fn version_sort() {
        assert!(version_cmp("A9", "A10").is_lt());
        assert!(version_cmp("a", "b").is_lt());
    }
}
