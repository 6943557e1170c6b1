//! `stat`: GNU coreutils 9.1 output from the POSIX metadata the host provides
//! (`hostcalls::stat`).
//!
//! Supported: the default format, `-c/--format` (adds a newline), `--printf` (backslash escapes,
//! no newline), `-L/--dereference`, `-t/--terse`, and the directives `%a %A %b %B %d %D %f %F
//! %g %G %h %i %m %n %N %o %s %t %T %u %U %w %W %x %X %y %Y %z %Z %%` with flags `-#0+ `,
//! width and precision (`%.3Y` adds fraction digits, as GNU does).
//!
//! Differences from GNU, and why:
//! * Birth time is unknown (the host does not report it): `Birth: -`, `%w` is `-`, `%W` is
//!   `0`. GNU prints `-`/`0` too on file systems without birth times.
//! * `IO Block` (`%o`) is 4096 and the mount point (`%m`) is `/`: the sandbox is one tree.
//! * Device numbers of device files (`%t %T`) are 0; the sandbox has no device files.
//! * `-f/--file-system` reports the mount table of upstream's container that `df` shows (the
//!   overlay root and its figures), as a `statfs` there would; IDs are fixed per mount.
//! * Times are in UTC (the sandbox's zone).

use crate::common::getopt::{self, Config, OptSpec};
use crate::common::io::{prog, run_main, write_failed};
use crate::common::mode::{S_IFBLK, S_IFCHR, S_IFIFO, S_IFSOCK, mode_string};
use crate::common::quote;
use crate::common::time::{Tm, strftime};
use crate::common::{Io, sys};
use gnu::escape::{self, Escape};
use hostcalls::{S_IFDIR, S_IFLNK, S_IFMT, S_IFREG, Stat};
use std::ffi::OsString;

pub fn main(args: Vec<OsString>) -> i32 {
    run_main(args, run)
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum K {
    Deref,
    Format,
    Printf,
    Terse,
    FileSystem,
    Cached,
    Help,
    Version,
}

const SPECS: &[OptSpec<K>] = &[
    getopt::flag('L', "dereference", K::Deref),
    getopt::with_arg('c', "format", K::Format),
    getopt::long_arg("printf", K::Printf),
    getopt::flag('t', "terse", K::Terse),
    getopt::flag('f', "file-system", K::FileSystem),
    getopt::long_arg("cached", K::Cached),
    getopt::long_flag("help", K::Help),
    getopt::long_flag("version", K::Version),
];

const DEFAULT_FORMAT: &str = "  File: %N\n  Size: %-10s\tBlocks: %-10b IO Block: %-6o %F\n";
const TERSE_FORMAT: &str = "%n %s %b %f %u %g %D %i %h %t %T %X %Y %Z %W %o\n";

fn file_type(mode: u32, size: u64) -> &'static str {
    match mode & S_IFMT {
        S_IFREG if size == 0 => "regular empty file",
        S_IFREG => "regular file",
        S_IFDIR => "directory",
        S_IFLNK => "symbolic link",
        S_IFIFO => "fifo",
        S_IFSOCK => "socket",
        S_IFCHR => "character special file",
        S_IFBLK => "block special file",
        _ => "weird file",
    }
}

/// Linux's `major`/`minor` of a device number.
fn major(dev: u64) -> u64 {
    ((dev >> 8) & 0xfff) | ((dev >> 32) & !0xfff)
}
fn minor(dev: u64) -> u64 {
    (dev & 0xff) | ((dev >> 12) & !0xff)
}

fn time_text(ns: i64) -> String {
    let tm = Tm::from_ns(ns);
    format!(
        "{}.{:09} +0000",
        strftime("%Y-%m-%d %H:%M:%S", &tm),
        tm.nanos
    )
}

/// Seconds since the epoch; a precision adds that many fraction digits.
fn epoch_text(ns: i64, precision: Option<usize>) -> String {
    let secs = ns.div_euclid(1_000_000_000);
    let frac = ns.rem_euclid(1_000_000_000);
    match precision {
        None | Some(0) => secs.to_string(),
        Some(p) => {
            let digits = format!("{frac:09}");
            let p = p.min(9);
            format!("{secs}.{}", &digits[..p])
        }
    }
}

struct Spec {
    left: bool,
    zero: bool,
    alt: bool,
    plus: bool,
    space: bool,
    width: Option<usize>,
    precision: Option<usize>,
}

fn pad(s: String, spec: &Spec, numeric: bool) -> String {
    let mut s = s;
    if numeric && spec.plus && !s.starts_with('-') {
        s.insert(0, '+');
    } else if numeric && spec.space && !s.starts_with('-') {
        s.insert(0, ' ');
    }
    let Some(w) = spec.width else { return s };
    let len = s.chars().count();
    if len >= w {
        return s;
    }
    let n = w - len;
    if spec.left {
        format!("{s}{}", " ".repeat(n))
    } else if spec.zero && numeric {
        let (sign, digits) = if s.starts_with(['-', '+', ' ']) {
            s.split_at(1)
        } else {
            ("", s.as_str())
        };
        format!("{sign}{}{digits}", "0".repeat(n))
    } else {
        format!("{}{s}", " ".repeat(n))
    }
}

fn directive(c: char, spec: &Spec, name: &str, st: &Stat) -> Option<String> {
    let num = |v: u64| Some(pad(v.to_string(), spec, true));
    let text = |s: String| Some(pad(s, spec, false));
    match c {
        'a' => {
            let m = st.mode & 0o7777;
            let s = if spec.alt {
                format!("0{m:o}")
            } else {
                format!("{m:o}")
            };
            Some(pad(s, spec, true))
        }
        'A' => text(mode_string(st.mode)),
        'b' => num(st.blocks),
        'B' => num(512),
        'd' => num(st.dev),
        'D' => text(format!("{:x}", st.dev)),
        'f' => text(format!("{:x}", st.mode)),
        'F' => text(file_type(st.mode, st.size).to_string()),
        'g' => num(u64::from(st.gid)),
        'G' => text(sys::group_name(st.gid)),
        'h' => num(st.nlink),
        'i' => num(st.ino),
        'm' => text("/".to_string()),
        'n' => text(name.to_string()),
        'N' => {
            let mut s = quote::shell_always(name);
            if st.is_symlink()
                && let Ok(t) = hostcalls::read_link(name)
            {
                s.push_str(" -> ");
                s.push_str(&quote::shell_always(&t.to_string_lossy()));
            }
            text(s)
        }
        'o' => num(4096),
        's' => num(st.size),
        't' | 'T' => text("0".to_string()),
        'u' => num(u64::from(st.uid)),
        'U' => text(sys::user_name(st.uid)),
        'w' => text("-".to_string()),
        'W' => text("0".to_string()),
        'x' => text(time_text(st.atime_ns)),
        'X' => text(epoch_text(st.atime_ns, spec.precision)),
        'y' => text(time_text(st.mtime_ns)),
        'Y' => text(epoch_text(st.mtime_ns, spec.precision)),
        'z' => text(time_text(st.ctime_ns)),
        'Z' => text(epoch_text(st.ctime_ns, spec.precision)),
        _ => None,
    }
}

/// A format expanded for one file: the text, and GNU's warnings about escapes it does not
/// know (`unrecognized escape '\q'`, `backslash at end of format`) with the offset in the text
/// where each interrupts it (stat's `error` flushes what stdout holds first).
struct Output {
    text: Vec<u8>,
    warnings: Vec<(usize, String)>,
}

impl Output {
    fn write(&self, io: &mut Io, prog: &str) -> std::io::Result<()> {
        let mut written = 0;
        for (at, warning) in &self.warnings {
            io.out.write_all(&self.text[written..*at])?;
            written = *at;
            io.out.flush()?;
            let _ = writeln!(io.err, "{prog}: {warning}");
        }
        io.out.write_all(&self.text[written..])
    }
}

/// Expands a format for one file. `escapes` interprets backslash sequences (`--printf`).
fn render(fmt: &str, name: &str, st: &Stat, escapes: bool) -> Output {
    expand(fmt, escapes, &|c, spec| directive(c, spec, name, st))
}

/// Expands a format, each `%` directive through `directive` (`None`: an unknown one, `?`).
fn expand(fmt: &str, escapes: bool, directive: &dyn Fn(char, &Spec) -> Option<String>) -> Output {
    let b = fmt.as_bytes();
    let mut out = Vec::new();
    let mut warnings = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        if escapes && c == b'\\' {
            // An escape stat does not know is a warning, then its letter alone; a backslash at
            // the end, a warning and itself.
            let (escape, used) = escape::decode_one(&b[i + 1..], &escape::STAT);
            match (escape, b.get(i + 1)) {
                (Escape::Byte(byte), _) => out.push(byte),
                (_, None) => {
                    warnings.push((out.len(), "warning: backslash at end of format".into()));
                    out.push(b'\\');
                }
                (_, Some(&letter)) => {
                    let warning =
                        format!("warning: unrecognized escape '\\{}'", char::from(letter));
                    warnings.push((out.len(), warning));
                    out.push(letter);
                }
            }
            i += 1 + used.max(1);
            continue;
        }
        if c != b'%' {
            out.push(c);
            i += 1;
            continue;
        }
        let start = i;
        i += 1;
        let mut spec = Spec {
            left: false,
            zero: false,
            alt: false,
            plus: false,
            space: false,
            width: None,
            precision: None,
        };
        while i < b.len() && matches!(b[i], b'-' | b'0' | b'#' | b'+' | b' ' | b'\'' | b'I') {
            match b[i] {
                b'-' => spec.left = true,
                b'0' => spec.zero = true,
                b'#' => spec.alt = true,
                b'+' => spec.plus = true,
                b' ' => spec.space = true,
                _ => {}
            }
            i += 1;
        }
        let ws = i;
        while i < b.len() && b[i].is_ascii_digit() {
            i += 1;
        }
        if i > ws {
            spec.width = fmt[ws..i].parse().ok();
        }
        if i < b.len() && b[i] == b'.' {
            i += 1;
            let ps = i;
            while i < b.len() && b[i].is_ascii_digit() {
                i += 1;
            }
            spec.precision = Some(fmt[ps..i].parse().unwrap_or(0));
        }
        let Some(&d) = b.get(i) else {
            out.extend_from_slice(&b[start..]);
            break;
        };
        i += 1;
        if d == b'%' {
            out.push(b'%');
            continue;
        }
        match directive(d as char, &spec) {
            Some(s) => out.extend_from_slice(s.as_bytes()),
            None => out.push(b'?'),
        }
    }
    Output {
        text: out,
        warnings,
    }
}

/// `stat -f`'s default layout (coreutils 8.32) and its `--terse` one.
const FS_DEFAULT_FORMAT: &str = "  File: \"%n\"\n    ID: %-8i Namelen: %-7l Type: %T\nBlock size: %-10s Fundamental block size: %S\nBlocks: Total: %-10b Free: %-10f Available: %a\nInodes: Total: %-10c Free: %d\n";
const FS_TERSE_FORMAT: &str = "%n %i %l %t %s %S %b %f %a %c %d\n";

/// The block size every file system of upstream's container reports.
const FS_BLOCK: u64 = 4096;

/// `stat -f` of an existing path: the `statfs` of the mount holding it.
fn file_system_output(name: &str, format: Option<&(String, bool)>) -> Output {
    let table = crate::df::mounts();
    let path = crate::df::absolute(name);
    let mount = crate::df::mount_of(&table, &path).cloned();
    let directive = |c: char, spec: &Spec| -> Option<String> {
        let num = |v: u64| Some(pad(v.to_string(), spec, true));
        let text = |s: String| Some(pad(s, spec, false));
        let m = mount.as_ref();
        let (magic, type_name) = fs_magic(m.map_or("overlay", |m| m.fstype.as_str()));
        match c {
            'n' => text(name.to_string()),
            'i' => text(format!("{:x}", fs_id(m))),
            'l' => num(255),
            't' => text(format!("{magic:x}")),
            'T' => text(type_name.to_string()),
            's' | 'S' => num(FS_BLOCK),
            'b' => num(m.map_or(0, |m| m.size / FS_BLOCK)),
            'f' => num(m.map_or(0, |m| (m.size - m.used.min(m.size)) / FS_BLOCK)),
            'a' => num(m.map_or(0, |m| m.avail / FS_BLOCK)),
            'c' => num(m.map_or(0, |m| m.inodes)),
            'd' => num(m.map_or(0, |m| m.ifree)),
            _ => None,
        }
    };
    match format {
        Some((f, escapes)) => expand(f, *escapes, &directive),
        None => expand(FS_DEFAULT_FORMAT, false, &directive),
    }
}

/// A file system type's magic number and the name GNU's `stat -f` gives it.
fn fs_magic(fstype: &str) -> (u64, &'static str) {
    match fstype {
        "overlay" => (0x794c_7630, "overlayfs"),
        "tmpfs" => (0x0102_1994, "tmpfs"),
        "proc" => (0x9fa0, "proc"),
        "sysfs" => (0x6265_6572, "sysfs"),
        "cgroup2" => (0x6367_7270, "cgroup2fs"),
        "devpts" => (0x1cd1, "devpts"),
        "mqueue" => (0x1980_0202, "mqueue"),
        "ext4" => (0xef53, "ext2/ext3"),
        _ => (0, "UNKNOWN"),
    }
}

/// A fixed, made-up file system ID per mount (upstream's were never logged): FNV-1a of its
/// source and mount point.
fn fs_id(mount: Option<&crate::df::Mount>) -> u64 {
    let key = mount.map_or_else(String::new, |m| format!("{} {}", m.source, m.target));
    key.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

fn default_output(name: &str, st: &Stat) -> Vec<u8> {
    let mut s = String::new();
    // The default format shows names as they are (coreutils 9.1 in the C locale).
    let mut shown = name.to_string();
    if st.is_symlink()
        && let Ok(t) = hostcalls::read_link(name)
    {
        shown.push_str(" -> ");
        shown.push_str(&t.to_string_lossy());
    }
    s.push_str(&format!("  File: {shown}\n"));
    s.push_str(&String::from_utf8_lossy(
        &render(&DEFAULT_FORMAT.replace("  File: %N\n", ""), name, st, false).text,
    ));
    let links = if st.mode & S_IFMT == S_IFCHR || st.mode & S_IFMT == S_IFBLK {
        format!("{:<5} Device type: 0,0", st.nlink)
    } else {
        st.nlink.to_string()
    };
    s.push_str(&format!(
        "Device: {},{}\tInode: {:<10}  Links: {links}\n",
        major(st.dev),
        minor(st.dev),
        st.ino
    ));
    s.push_str(&format!(
        "Access: ({:04o}/{})  Uid: ({:>5}/{:>8})   Gid: ({:>5}/{:>8})\n",
        st.mode & 0o7777,
        mode_string(st.mode),
        st.uid,
        sys::user_name(st.uid),
        st.gid,
        sys::group_name(st.gid)
    ));
    s.push_str(&format!("Access: {}\n", time_text(st.atime_ns)));
    s.push_str(&format!("Modify: {}\n", time_text(st.mtime_ns)));
    s.push_str(&format!("Change: {}\n", time_text(st.ctime_ns)));
    s.push_str(" Birth: -\n");
    s.into_bytes()
}

pub fn run(args: &[String], io: &mut Io) -> i32 {
    let prog = prog(args, "stat");
    let parsed = match getopt::parse(args, SPECS, Config::default()) {
        Ok(p) => p,
        Err(msg) => {
            let _ = io.err.write_all(gnu::usage::report(&prog, &msg).as_bytes());
            return 1;
        }
    };
    let mut deref = false;
    let mut file_system = false;
    let mut terse = false;
    let mut format: Option<(String, bool)> = None;
    for o in &parsed.opts {
        match o.key {
            K::Deref => deref = true,
            K::Format => format = Some((format!("{}\n", o.arg.clone().unwrap_or_default()), false)),
            K::Printf => format = Some((o.arg.clone().unwrap_or_default(), true)),
            K::Terse => terse = true,
            K::FileSystem => file_system = true,
            K::Cached => {}
            K::Help => {
                let _ = writeln!(io.out, "Usage: {prog} [OPTION]... FILE...");
                return 0;
            }
            K::Version => {
                let _ = writeln!(io.out, "stat (GNU coreutils) 9.1");
                return 0;
            }
        }
    }
    if parsed.operands.is_empty() {
        let _ = writeln!(
            io.err,
            "{prog}: missing operand\nTry '{prog} --help' for more information."
        );
        return 1;
    }
    if terse && format.is_none() {
        let terse_format = if file_system {
            FS_TERSE_FORMAT
        } else {
            TERSE_FORMAT
        };
        format = Some((terse_format.to_string(), false));
    }
    let mut status = 0;
    for name in &parsed.operands {
        if file_system {
            let data = match hostcalls::stat(name, true) {
                Ok(_) => file_system_output(name, format.as_ref()),
                Err(e) => {
                    let _ = io.out.flush();
                    let _ = writeln!(
                        io.err,
                        "{prog}: cannot read file system information for {}: {}",
                        quote::locale(name),
                        sys::strerror(&e)
                    );
                    status = 1;
                    continue;
                }
            };
            if let Err(e) = data.write(io, &prog) {
                return write_failed(&[prog], &e, io.err);
            }
            continue;
        }
        let st = match hostcalls::stat(name, deref) {
            Ok(s) => s,
            Err(e) => {
                let _ = writeln!(
                    io.err,
                    "{prog}: cannot statx '{name}': {}",
                    sys::strerror(&e)
                );
                status = 1;
                continue;
            }
        };
        let data = match &format {
            Some((f, esc)) => render(f, name, &st, *esc),
            None => Output {
                text: default_output(name, &st),
                warnings: Vec::new(),
            },
        };
        if let Err(e) = data.write(io, &prog) {
            return write_failed(&[prog], &e, io.err);
        }
    }
    status
}

#[cfg(test)]
mod tests {
    use super::*;

    fn st() -> Stat {
        Stat {
            mode: S_IFREG | 0o644,
            uid: 0,
            gid: 0,
            nlink: 1,
            ino: 10010684,
            dev: 65024,
            size: 2,
            blocks: 8,
            atime_ns: 1_795_972_161_179_251_150,
            mtime_ns: 1_795_972_161_179_251_150,
            ctime_ns: 1_795_972_161_179_251_150,
        }
    }

    fn r(fmt: &str) -> String {
        String::from_utf8(render(fmt, "a", &st(), false).text).unwrap()
    }

    #[test]
    fn directives() {
        assert_eq!(
            r("%n|%s|%b|%a|%A|%F|%h|%i|%d|%D|%f|%%|%q"),
            "a|2|8|644|-rw-r--r--|regular file|1|10010684|65024|fe00|81a4|%|?"
        );
        assert_eq!(
            r("%5s|%-5s|%05s|%.3Y|%.9X|%#a|%010i"),
            "    2|2    |00002|1795972161.179|1795972161.179251150|0644|0010010684"
        );
        assert_eq!(r("%y"), "2026-11-29 17:09:21.179251150 +0000");
        assert_eq!(r("%N"), "'a'");
        let out = expand("a\\q\\x41\\E\\x\\", true, &|_, _| None);
        assert_eq!(out.text, b"aqAEx\\");
        assert_eq!(
            out.warnings,
            [
                (1, "warning: unrecognized escape '\\q'".to_string()),
                (3, "warning: unrecognized escape '\\E'".to_string()),
                (4, "warning: unrecognized escape '\\x'".to_string()),
                (5, "warning: backslash at end of format".to_string()),
            ]
        );
    }

    #[test]
    fn devices_split() {
        assert_eq!((major(65024), minor(65024)), (254, 0));
    }

    // Expected: GNU stat 8.32's `-f` layout filled with the overlay root df reports
    // (61202244 1K-blocks, 38549712 used, 19511208 available; 3907584 inodes, 2854768 free).
    #[test]
    fn file_system_of_the_root() {
        let text = String::from_utf8(file_system_output("/", None).text).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines[0], "  File: \"/\"");
        assert!(lines[1].starts_with("    ID: "), "{}", lines[1]);
        assert!(
            lines[1].ends_with(" Namelen: 255     Type: overlayfs"),
            "{}",
            lines[1]
        );
        assert_eq!(
            &lines[2..],
            [
                "Block size: 4096       Fundamental block size: 4096",
                "Blocks: Total: 15300561   Free: 5663133    Available: 4877802",
                "Inodes: Total: 3907584    Free: 2854768",
            ]
        );
        let terse = (FS_TERSE_FORMAT.to_string(), false);
        let dev = String::from_utf8(file_system_output("/dev/shm/x", Some(&terse)).text).unwrap();
        assert!(dev.starts_with("/dev/shm/x "), "{dev}");
        assert!(
            dev.ends_with(" 255 1021994 4096 4096 16384 16384 16384 1004930 1004929\n"),
            "{dev}"
        );
    }

    #[test]
    fn default_layout() {
        let out = String::from_utf8(default_output("a", &st())).unwrap();
        let lines: Vec<&str> = out.lines().collect();
        assert_eq!(
            lines[1],
            "  Size: 2         \tBlocks: 8          IO Block: 4096   regular file"
        );
        assert_eq!(lines[2], "Device: 254,0\tInode: 10010684    Links: 1");
        assert_eq!(
            lines[3],
            "Access: (0644/-rw-r--r--)  Uid: (    0/    root)   Gid: (    0/    root)"
        );
        assert_eq!(lines[7], " Birth: -");
    }
}
