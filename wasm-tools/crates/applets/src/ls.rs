//! `ls`: GNU coreutils 8.32 (Ubuntu 22.04, what upstream ran) with standard output not a
//! terminal, in the C locale and UTC. Metadata comes from `hostcalls::stat` (WASI's own has no
//! mode bits, owners, link counts or blocks); owner and group names from `/etc/passwd` and
//! `/etc/group`.
//!
//! Matches GNU in: one name per line unless `-C`/`-x`/`-m`/`-l` (GNU's pipe behaviour, names
//! unquoted), `-l` with per-listing column widths (link count, owner, group and size right- or
//! left-aligned as GNU does, numeric ids right-aligned), `total N` in 1K blocks from
//! `st_blocks`, permission strings with setuid/setgid/sticky, `name -> target`, dates as
//! `%b %e %H:%M` within six months (and not in the future) else `%b %e  %Y`, byte-order name
//! sorting, files before directories among operands with `dir:` headers and blank lines,
//! `-R` with loop detection, GNU's symlink rules (operands that are links to directories are
//! followed unless `-l`, `-d` or `-F`; `-H`, `-L`), errors (`ls: cannot access 'x': No such
//! file or directory`, status 2 for operands, 1 inside directories) and GNU's `-C`/`-x`
//! column layout (80 columns or `COLUMNS`/`-w`, tabs every 8 or `-T`).
//!
//! Options: `-a -A -b -B -c -C -d -f -F -g -G -h -H -i -I PAT -k -l -L -m -n -N -o -p -q -Q -r
//! -R -s -S -t -T N -u -U -v -w N -x -X -Z -1`, `--all --almost-all --author --block-size=SIZE
//! --classify --color[=WHEN] --dereference-command-line-symlink-to-dir --directory --escape
//! --file-type --format=WORD --full-time --group-directories-first --hide=PAT
//! --hide-control-chars --human-readable --ignore=PAT --ignore-backups --indicator-style=WORD
//! --inode --kibibytes --literal --no-group --numeric-uid-gid --quote-name
//! --quoting-style=WORD --recursive --reverse --show-control-chars --si --size --sort=WORD
//! --tabsize=N --time=WORD --time-style=STYLE --width=N`, and the `TIME_STYLE`,
//! `QUOTING_STYLE`, `COLUMNS`, `TABSIZE`, `LS_BLOCK_SIZE`/`BLOCK_SIZE` variables.
//!
//! Differences, and why: colour is never produced (`--color=always` is accepted and ignored;
//! the sandbox has no terminal); `--dired` and `--hyperlink` are ignored; devices show their
//! size, not `major, minor` (`hostcalls::Stat` has no `st_rdev`, and the sandbox has no device
//! files); no file has an ACL or SELinux label, so the mode column never carries `+` or `.`
//! and `-Z` prints `?`; `-U` lists in the order the host's `readdir` gives; `-v` follows the
//! coreutils 9 `filevercmp` (8.32's differs only in corner cases such as `a..a`); shell
//! quoting styles are approximated for non-ASCII bytes; `--time=birth` is refused (no birth
//! times); `..` of the root is the root itself (the sandbox refuses paths climbing out of it).
//!
//! In the sandbox, WASI cannot read a symbolic link whose target is absolute, so `ls -l`
//! reports `cannot read symbolic link` for those (GNU prints `name -> /target`); the fix
//! needs a `readlink` host import. Relative targets are shown normally.

use crate::common::getopt::{self, Config, OptSpec};
use crate::common::human::human_ceil;
use crate::common::io::{prog, run_main};
use crate::common::mode::{S_IFIFO, S_IFSOCK, mode_string};
use crate::common::time::{Tm, now_ns, strftime};
use crate::common::{Io, glob, quote, sys};
use hostcalls::{S_IFDIR, S_IFLNK, S_IFMT, S_IFREG, Stat};
use std::cmp::Ordering;
use std::ffi::OsString;
use std::io;

pub fn main(args: Vec<OsString>) -> i32 {
    run_main(args, run)
}

/// `dir`: `ls -C -b` whatever the output is (the user's own options still win).
pub fn dir_main(args: Vec<OsString>) -> i32 {
    main(with_defaults(args, &["-C", "-b"]))
}

/// `vdir`: `ls -l -b`.
pub fn vdir_main(args: Vec<OsString>) -> i32 {
    main(with_defaults(args, &["-l", "-b"]))
}

fn with_defaults(mut args: Vec<OsString>, defaults: &[&str]) -> Vec<OsString> {
    let at = 1.min(args.len());
    args.splice(at..at, defaults.iter().map(OsString::from));
    args
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum K {
    All,
    Escape,
    Directory,
    Dired,
    FullTime,
    DirsFirst,
    Human,
    Inode,
    Kibibytes,
    Numeric,
    NoGroup,
    HideControl,
    Reverse,
    Size,
    Width,
    AlmostAll,
    IgnoreBackups,
    Classify,
    FileType,
    Si,
    DerefCmdline,
    DerefCmdlineDirs,
    Hide,
    Ignore,
    IndicatorStyle,
    Dereference,
    Literal,
    QuoteName,
    QuotingStyle,
    Recursive,
    Format,
    ShowControl,
    Sort,
    Tabsize,
    Time,
    TimeStyle,
    Color,
    Hyperlink,
    BlockSize,
    Context,
    Author,
    Help,
    Version,
    Ctime,
    NoSort,
    LongNoOwner,
    Long,
    Commas,
    LongNoGroup,
    Slash,
    SortTime,
    Atime,
    SortVersion,
    Across,
    Columns,
    SortSize,
    SortNone,
    SortExt,
    OnePerLine,
}

/// GNU's table order, so ambiguous abbreviations list the same candidates.
const SPECS: &[OptSpec<K>] = &[
    getopt::flag('a', "all", K::All),
    getopt::flag('b', "escape", K::Escape),
    getopt::flag('d', "directory", K::Directory),
    getopt::flag('D', "dired", K::Dired),
    getopt::long_flag("full-time", K::FullTime),
    getopt::long_flag("group-directories-first", K::DirsFirst),
    getopt::flag('h', "human-readable", K::Human),
    getopt::flag('i', "inode", K::Inode),
    getopt::flag('k', "kibibytes", K::Kibibytes),
    getopt::flag('n', "numeric-uid-gid", K::Numeric),
    getopt::flag('G', "no-group", K::NoGroup),
    getopt::flag('q', "hide-control-chars", K::HideControl),
    getopt::flag('r', "reverse", K::Reverse),
    getopt::flag('s', "size", K::Size),
    getopt::with_arg('w', "width", K::Width),
    getopt::flag('A', "almost-all", K::AlmostAll),
    getopt::flag('B', "ignore-backups", K::IgnoreBackups),
    getopt::flag('F', "classify", K::Classify),
    getopt::long_flag("file-type", K::FileType),
    getopt::long_flag("si", K::Si),
    getopt::flag('H', "dereference-command-line", K::DerefCmdline),
    getopt::long_flag(
        "dereference-command-line-symlink-to-dir",
        K::DerefCmdlineDirs,
    ),
    getopt::long_arg("hide", K::Hide),
    getopt::with_arg('I', "ignore", K::Ignore),
    getopt::long_arg("indicator-style", K::IndicatorStyle),
    getopt::flag('L', "dereference", K::Dereference),
    getopt::flag('N', "literal", K::Literal),
    getopt::flag('Q', "quote-name", K::QuoteName),
    getopt::long_arg("quoting-style", K::QuotingStyle),
    getopt::flag('R', "recursive", K::Recursive),
    getopt::long_arg("format", K::Format),
    getopt::long_flag("show-control-chars", K::ShowControl),
    getopt::long_arg("sort", K::Sort),
    getopt::with_arg('T', "tabsize", K::Tabsize),
    getopt::long_arg("time", K::Time),
    getopt::long_arg("time-style", K::TimeStyle),
    getopt::long_opt_arg("color", K::Color),
    getopt::long_opt_arg("hyperlink", K::Hyperlink),
    getopt::long_arg("block-size", K::BlockSize),
    getopt::flag('Z', "context", K::Context),
    getopt::long_flag("author", K::Author),
    getopt::long_flag("help", K::Help),
    getopt::long_flag("version", K::Version),
    getopt::flag('c', "", K::Ctime),
    getopt::flag('f', "", K::NoSort),
    getopt::flag('g', "", K::LongNoOwner),
    getopt::flag('l', "", K::Long),
    getopt::flag('m', "", K::Commas),
    getopt::flag('o', "", K::LongNoGroup),
    getopt::flag('p', "", K::Slash),
    getopt::flag('t', "", K::SortTime),
    getopt::flag('u', "", K::Atime),
    getopt::flag('v', "", K::SortVersion),
    getopt::flag('x', "", K::Across),
    getopt::flag('C', "", K::Columns),
    getopt::flag('S', "", K::SortSize),
    getopt::flag('U', "", K::SortNone),
    getopt::flag('X', "", K::SortExt),
    getopt::flag('1', "", K::OnePerLine),
];

const LS_FAILURE: i32 = 2;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Format {
    Long,
    OnePerLine,
    Columns,
    Across,
    Commas,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum SortKey {
    Name,
    Extension,
    Size,
    Version,
    Time,
    None,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum TimeKind {
    Mtime,
    Ctime,
    Atime,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Indicator {
    None,
    Slash,
    FileType,
    Classify,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Deref {
    Undefined,
    Never,
    CmdlineArgs,
    CmdlineSymlinkToDir,
    Always,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Hidden {
    Default,
    DotAndDotdot,
    Minimal,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Quoting {
    Literal,
    Shell,
    ShellAlways,
    ShellEscape,
    ShellEscapeAlways,
    C,
    CMaybe,
    Escape,
    Locale,
    CLocale,
}

/// How a size is printed: scaled automatically (`-h`, `--si`) or in fixed blocks with an
/// optional unit suffix (`--block-size=K` prints `4K`).
#[derive(Debug, Clone, PartialEq, Eq)]
enum Scale {
    Auto { base: u64 },
    Block { size: u64, suffix: String },
}

impl Scale {
    fn format(&self, bytes: u128) -> String {
        match self {
            Scale::Auto { base: 1024 } => human_ceil(bytes.min(u128::from(u64::MAX)) as u64),
            Scale::Auto { base } => si_ceil(bytes, u128::from(*base)),
            Scale::Block { size, suffix } => {
                format!("{}{suffix}", bytes.div_ceil(u128::from(*size)))
            }
        }
    }
}

/// Autoscaled sizes in powers of 1000 (`--si`): rounded up, one decimal below 10.
fn si_ceil(amount: u128, base: u128) -> String {
    const UNITS: [char; 8] = ['k', 'M', 'G', 'T', 'P', 'E', 'Z', 'Y'];
    if amount < base {
        return amount.to_string();
    }
    let mut div = 1u128;
    let mut exp = 0usize;
    while amount >= div * base && exp < UNITS.len() {
        div *= base;
        exp += 1;
    }
    loop {
        let tenths = (amount * 10).div_ceil(div);
        if tenths < 100 {
            return format!("{}.{}{}", tenths / 10, tenths % 10, UNITS[exp - 1]);
        }
        let whole = amount.div_ceil(div);
        if whole >= base && exp < UNITS.len() {
            div *= base;
            exp += 1;
            continue;
        }
        return format!("{whole}{}", UNITS[exp - 1]);
    }
}

/// gnulib's `human_options`: `human-readable`, `si`, or `[N][K|M|…][i][B]`.
fn parse_block_size(spec: &str) -> Option<Scale> {
    match spec {
        "human-readable" => return Some(Scale::Auto { base: 1024 }),
        "si" => return Some(Scale::Auto { base: 1000 }),
        _ => {}
    }
    let spec = spec.strip_prefix('\'').unwrap_or(spec);
    let digits = spec
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(spec.len());
    let n: u64 = if digits == 0 {
        1
    } else {
        spec[..digits].parse().ok()?
    };
    let rest = &spec[digits..];
    let (letter, tail) = match rest.chars().next() {
        Some(c) => (Some(c), &rest[c.len_utf8()..]),
        None => (None, ""),
    };
    let power = match letter {
        None => 0,
        Some('k' | 'K') => 1,
        Some('m' | 'M') => 2,
        Some('g' | 'G') => 3,
        Some('t' | 'T') => 4,
        Some('p' | 'P') => 5,
        Some('e' | 'E') => 6,
        Some('z' | 'Z') => 7,
        Some('y' | 'Y') => 8,
        Some(_) => return None,
    };
    let base: u64 = match tail {
        "" | "iB" => 1024,
        "B" => 1000,
        _ => return None,
    };
    let size = n.checked_mul(base.checked_pow(power)?)?;
    if size == 0 {
        return None;
    }
    // A size without leading digits prints its unit after each number.
    let suffix = if digits == 0 && power > 0 {
        let l = letter.unwrap_or('K').to_ascii_uppercase();
        let l = if l == 'K' && base == 1000 { 'k' } else { l };
        format!("{l}{tail}")
    } else {
        String::new()
    };
    Some(Scale::Block { size, suffix })
}

/// What kind of file an entry is, from `readdir` or from `stat`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum FType {
    Unknown,
    Fifo,
    Directory,
    Normal,
    SymLink,
    Sock,
    ArgDirectory,
}

impl FType {
    fn letter(self) -> char {
        match self {
            FType::Unknown => '?',
            FType::Fifo => 'p',
            FType::Directory | FType::ArgDirectory => 'd',
            FType::Normal => '-',
            FType::SymLink => 'l',
            FType::Sock => 's',
        }
    }
}

#[derive(Debug, Clone)]
struct FileInfo {
    name: String,
    st: Option<Stat>,
    ftype: FType,
    linkname: Option<String>,
    /// Mode of the link's target, 0 if not looked up or dangling.
    linkmode: u32,
}

impl FileInfo {
    fn is_directory(&self) -> bool {
        matches!(self.ftype, FType::Directory | FType::ArgDirectory)
    }
    fn is_linked_directory(&self) -> bool {
        self.is_directory() || self.linkmode & S_IFMT == S_IFDIR
    }
    fn stat_or_default(&self) -> Stat {
        self.st.unwrap_or_default()
    }
}

/// A directory waiting to be listed, or (for `-R`) the marker that ends one.
enum Pending {
    Dir {
        name: String,
        realname: Option<String>,
        cmdline: bool,
    },
    Done,
}

struct Opts {
    format: Format,
    hidden: Hidden,
    ignore: Vec<String>,
    hide: Vec<String>,
    immediate_dirs: bool,
    recursive: bool,
    deref: Deref,
    sort: SortKey,
    reverse: bool,
    dirs_first: bool,
    time: TimeKind,
    indicator: Indicator,
    inode: bool,
    block_size: bool,
    owner: bool,
    group: bool,
    author: bool,
    scontext: bool,
    numeric: bool,
    quoting: Quoting,
    qmark: bool,
    /// Scale for sizes of files and for blocks.
    file_scale: Scale,
    block_scale: Scale,
    /// `strftime` formats for old and recent times.
    time_fmt: [String; 2],
    line_length: usize,
    tabsize: usize,
}

#[derive(Debug, Default, Clone, Copy)]
struct Widths {
    inode: usize,
    block: usize,
    nlink: usize,
    owner: usize,
    group: usize,
    author: usize,
    size: usize,
    scontext: usize,
}

struct Ls<'a, 'b> {
    o: Opts,
    io: &'a mut Io<'b>,
    prog: String,
    status: i32,
    files: Vec<FileInfo>,
    w: Widths,
    pending: Vec<Pending>,
    /// Directories being listed by `-R` (device, inode), to detect loops.
    active: Vec<(u64, u64)>,
    first_dir: bool,
    print_dir_name: bool,
    now: i64,
    /// Whether to stat entries for the listing format or for their type.
    needs_stat: bool,
    needs_type: bool,
    check_symlink_mode: bool,
    write_error: Option<io::Error>,
}

/// `dir/name` the way `ls` builds paths (`.` is not prefixed).
fn attach(dirname: &str, name: &str) -> String {
    if dirname == "." {
        name.to_string()
    } else if dirname.ends_with('/') {
        format!("{dirname}{name}")
    } else {
        format!("{dirname}/{name}")
    }
}

/// gnulib's `file_name_concat` (no `.` special case).
fn concat(dir: &str, name: &str) -> String {
    if dir.ends_with('/') {
        format!("{dir}{name}")
    } else {
        format!("{dir}/{name}")
    }
}

/// `/../x` is `/x`: the root is its own parent. The sandbox refuses paths that climb above
/// it, so a leading run of `..` is dropped before asking (only a leading run: after any other
/// component, `..` depends on symbolic links).
fn strip_root_parents(path: &str) -> String {
    if !path.starts_with('/') {
        return path.to_string();
    }
    let mut rest = path.trim_start_matches('/');
    loop {
        if rest == ".." || rest == "." {
            return "/".to_string();
        }
        match rest.strip_prefix("../").or_else(|| rest.strip_prefix("./")) {
            Some(r) => rest = r.trim_start_matches('/'),
            None => break,
        }
    }
    if rest.len() + 1 == path.len() {
        path.to_string()
    } else {
        format!("/{rest}")
    }
}

/// Whether `dir` names the root directory (lexically, relative names against the cwd).
fn is_root(dir: &str) -> bool {
    let abs = if dir.starts_with('/') {
        dir.to_string()
    } else {
        format!("{}/{dir}", crate::common::exec::current_dir())
    };
    let mut depth = 0usize;
    for c in abs.split('/') {
        match c {
            "" | "." => {}
            ".." => depth = depth.saturating_sub(1),
            _ => depth += 1,
        }
    }
    depth == 0
}

fn basename_is_dot_or_dotdot(name: &str) -> bool {
    let base = name
        .trim_end_matches('/')
        .rsplit('/')
        .next()
        .unwrap_or(name);
    base == "." || base == ".."
}

/// Display width of a name in the C locale: printable bytes count one column, control
/// characters none, other bytes one.
fn width_of(s: &str) -> usize {
    s.bytes().filter(|&b| !(b < 0x20 || b == 0x7f)).count()
}

/// Quotes a name in one of GNU's quoting styles.
fn quote_name(name: &str, style: Quoting, qmark: bool) -> String {
    let name: String = if qmark
        && matches!(
            style,
            Quoting::Literal | Quoting::Shell | Quoting::ShellAlways
        ) {
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
        name.to_string()
    };
    let c_escape = |s: &str, quote: char| -> String {
        let mut out = String::new();
        for ch in s.chars() {
            match ch {
                '\u{7}' => out.push_str("\\a"),
                '\u{8}' => out.push_str("\\b"),
                '\t' => out.push_str("\\t"),
                '\n' => out.push_str("\\n"),
                '\u{b}' => out.push_str("\\v"),
                '\u{c}' => out.push_str("\\f"),
                '\r' => out.push_str("\\r"),
                '\\' => out.push_str("\\\\"),
                c if c == quote => {
                    out.push('\\');
                    out.push(c);
                }
                c if (c as u32) < 0x20 || c as u32 == 0x7f => {
                    out.push_str(&format!("\\{:03o}", c as u32));
                }
                c if !c.is_ascii() => {
                    let mut buf = [0u8; 4];
                    for b in c.encode_utf8(&mut buf).bytes() {
                        out.push_str(&format!("\\{b:03o}"));
                    }
                }
                c => out.push(c),
            }
        }
        out
    };
    let shell_special = |s: &str| {
        s.is_empty()
            || s.bytes()
                .any(|b| !(b.is_ascii_alphanumeric() || b"%+,-./:=@_^".contains(&b) || b >= 0x80))
            || s.starts_with('~')
    };
    match style {
        Quoting::Literal => name,
        Quoting::Escape => c_escape(&name, '\0').replace(' ', "\\ "),
        Quoting::C => format!("\"{}\"", c_escape(&name, '"')),
        Quoting::CMaybe => {
            let e = c_escape(&name, '"');
            if e != name || name.contains(' ') {
                format!("\"{e}\"")
            } else {
                name
            }
        }
        Quoting::Locale | Quoting::CLocale => {
            let q = if style == Quoting::Locale { '\'' } else { '"' };
            format!("{q}{}{q}", c_escape(&name, q))
        }
        Quoting::Shell | Quoting::ShellEscape => {
            if shell_special(&name) {
                quote::shell_always(&name)
            } else {
                name
            }
        }
        Quoting::ShellAlways | Quoting::ShellEscapeAlways => quote::shell_always(&name),
    }
}

/// gnulib's `filevercmp` (coreutils 9): hidden files first, then version-aware comparison of
/// the names without their suffixes, then of the whole names, then bytes.
fn filevercmp(a: &str, b: &str) -> Ordering {
    if a == b {
        return Ordering::Equal;
    }
    for special in ["", ".", ".."] {
        if a == special {
            return Ordering::Less;
        }
        if b == special {
            return Ordering::Greater;
        }
    }
    let (ah, bh) = (a.starts_with('.'), b.starts_with('.'));
    if ah != bh {
        return if ah {
            Ordering::Less
        } else {
            Ordering::Greater
        };
    }
    let skip = usize::from(ah);
    let (a, b) = (&a.as_bytes()[skip..], &b.as_bytes()[skip..]);
    let (alen, blen) = (suffix_start(a), suffix_start(b));
    let ord = if alen == blen && a[..alen] == b[..blen] {
        Ordering::Equal
    } else {
        verrevcmp(&a[..alen], &b[..blen])
    };
    if ord != Ordering::Equal {
        return ord;
    }
    verrevcmp(a, b).then_with(|| a.cmp(b))
}

/// Where a file name's suffix (`(\.[A-Za-z~][A-Za-z0-9~]*)*$`) starts.
fn suffix_start(s: &[u8]) -> usize {
    let mut start = s.len();
    let mut i = s.len();
    // Scan backwards for runs of `.[A-Za-z~][A-Za-z0-9~]*`.
    loop {
        let mut j = i;
        while j > 0 && (s[j - 1].is_ascii_alphanumeric() || s[j - 1] == b'~') {
            j -= 1;
        }
        if j == i || j == 0 || s[j - 1] != b'.' {
            break;
        }
        if !(s[j].is_ascii_alphabetic() || s[j] == b'~') {
            break;
        }
        if j - 1 == 0 {
            break;
        }
        i = j - 1;
        start = i;
    }
    start
}

fn order(c: Option<u8>) -> i32 {
    match c {
        None => 0,
        Some(c) if c.is_ascii_digit() => 0,
        Some(c) if c.is_ascii_alphabetic() => i32::from(c),
        Some(b'~') => -1,
        Some(c) => i32::from(c) + 256,
    }
}

/// Debian's version comparison.
fn verrevcmp(a: &[u8], b: &[u8]) -> Ordering {
    let (mut i, mut j) = (0, 0);
    while i < a.len() || j < b.len() {
        let mut first_diff = 0;
        while (i < a.len() && !a[i].is_ascii_digit()) || (j < b.len() && !b[j].is_ascii_digit()) {
            let ac = order(a.get(i).copied());
            let bc = order(b.get(j).copied());
            if ac != bc {
                return ac.cmp(&bc);
            }
            i += 1;
            j += 1;
        }
        while a.get(i) == Some(&b'0') {
            i += 1;
        }
        while b.get(j) == Some(&b'0') {
            j += 1;
        }
        while i < a.len() && a[i].is_ascii_digit() && j < b.len() && b[j].is_ascii_digit() {
            if first_diff == 0 {
                first_diff = i32::from(a[i]) - i32::from(b[j]);
            }
            i += 1;
            j += 1;
        }
        if i < a.len() && a[i].is_ascii_digit() {
            return Ordering::Greater;
        }
        if j < b.len() && b[j].is_ascii_digit() {
            return Ordering::Less;
        }
        if first_diff != 0 {
            return first_diff.cmp(&0);
        }
    }
    Ordering::Equal
}

/// gnulib `argmatch`: exact or unique-prefix match of `arg` among `choices` (synonyms share a
/// value); on failure GNU's message and the list of valid arguments.
fn argmatch<T: Copy + PartialEq>(
    arg: &str,
    what: &str,
    choices: &[(&str, T)],
) -> Result<T, String> {
    if let Some((_, v)) = choices.iter().find(|(n, _)| *n == arg) {
        return Ok(*v);
    }
    let matches: Vec<T> = choices
        .iter()
        .filter(|(n, _)| !arg.is_empty() && n.starts_with(arg))
        .map(|(_, v)| *v)
        .collect();
    if let Some(first) = matches.first()
        && matches.iter().all(|v| v == first)
    {
        return Ok(*first);
    }
    let mut msg = if matches.is_empty() {
        format!("invalid argument '{arg}' for '{what}'\n")
    } else {
        format!("ambiguous argument '{arg}' for '{what}'\n")
    };
    msg.push_str("Valid arguments are:");
    let mut last: Option<T> = None;
    for (n, v) in choices {
        if last == Some(*v) {
            msg.push_str(&format!(", '{n}'"));
        } else {
            msg.push_str(&format!("\n  - '{n}'"));
        }
        last = Some(*v);
    }
    Err(msg)
}

impl Ls<'_, '_> {
    fn out(&mut self, s: &str) {
        if self.write_error.is_none()
            && let Err(e) = self.io.out.write_all(s.as_bytes())
        {
            self.write_error = Some(e);
        }
    }

    fn flush(&mut self) {
        if self.write_error.is_none()
            && let Err(e) = self.io.out.flush()
        {
            self.write_error = Some(e);
        }
    }

    fn set_status(&mut self, serious: bool) {
        if serious {
            self.status = LS_FAILURE;
        } else if self.status == 0 {
            self.status = 1;
        }
    }

    fn failure(&mut self, serious: bool, what: &str, file: &str, e: &io::Error) {
        // glibc's `error` flushes standard output first.
        self.flush();
        let _ = writeln!(
            self.io.err,
            "{}: {what} {}: {}",
            self.prog,
            quote::shell_always(file),
            sys::strerror(e)
        );
        self.set_status(serious);
    }

    fn file_ignored(&self, name: &str) -> bool {
        let fnm = |p: &String| {
            // FNM_PERIOD: a leading dot must be matched explicitly.
            (!name.starts_with('.') || p.starts_with('.')) && glob::matches(p, name, false)
        };
        (self.o.hidden != Hidden::Minimal
            && name.starts_with('.')
            && (self.o.hidden == Hidden::Default || name == "." || name == ".."))
            || (self.o.hidden == Hidden::Default && self.o.hide.iter().any(fnm))
            || self.o.ignore.iter().any(fnm)
    }

    fn clear_files(&mut self) {
        self.files.clear();
        self.w = Widths::default();
    }

    fn user_width(&self, uid: u32) -> usize {
        if self.o.numeric {
            uid.to_string().len()
        } else {
            sys::user_name(uid).len()
        }
    }

    fn group_width(&self, gid: u32) -> usize {
        if self.o.numeric {
            gid.to_string().len()
        } else {
            sys::group_name(gid).len()
        }
    }

    /// GNU's `gobble_file`: adds an entry to the current listing, looking up what the output
    /// needs. Returns its blocks (for `total`).
    fn gobble(&mut self, name: &str, dtype: FType, cmdline: bool, dirname: &str) -> u64 {
        let mut f = FileInfo {
            name: name.to_string(),
            st: None,
            ftype: dtype,
            linkname: None,
            linkmode: 0,
        };
        let deref_always = self.o.deref == Deref::Always;
        let is_link_or_unknown = matches!(dtype, FType::SymLink | FType::Unknown);
        let do_stat = cmdline
            || self.needs_stat
            || ((self.o.inode || self.needs_type)
                && is_link_or_unknown
                && (deref_always || self.check_symlink_mode))
            || self.o.inode
            || (self.needs_type
                && (dtype == FType::Unknown
                    || (dtype == FType::Normal && self.o.indicator == Indicator::Classify)));
        let mut blocks = 0;
        if do_stat {
            let full = if name.starts_with('/') || dirname.is_empty() {
                name.to_string()
            } else if name == ".." && is_root(dirname) {
                // The root's parent is the root; the sandbox refuses paths that climb out of
                // it, so do not ask it for `/..`.
                dirname.to_string()
            } else {
                attach(dirname, name)
            };
            let path = strip_root_parents(&full);
            let r = match self.o.deref {
                Deref::Always => hostcalls::stat(&path, true),
                Deref::CmdlineArgs | Deref::CmdlineSymlinkToDir if cmdline => {
                    let r = hostcalls::stat(&path, true);
                    let need_lstat = self.o.deref == Deref::CmdlineSymlinkToDir
                        && match &r {
                            Err(e) => e.kind() == io::ErrorKind::NotFound,
                            Ok(st) => !st.is_dir(),
                        };
                    if need_lstat {
                        hostcalls::stat(&path, false)
                    } else {
                        r
                    }
                }
                _ => hostcalls::stat(&path, false),
            };
            let st = match r {
                Ok(st) => st,
                Err(e) => {
                    self.failure(cmdline, "cannot access", &full, &e);
                    if !cmdline {
                        self.files.push(f);
                    }
                    return 0;
                }
            };
            if st.is_symlink() && (self.o.format == Format::Long || self.check_symlink_mode) {
                match hostcalls::read_link(&path) {
                    Ok(t) => {
                        let target = t.to_string_lossy().into_owned();
                        let link_path = make_link_name(&path, &target);
                        if (self.o.indicator >= Indicator::FileType || self.check_symlink_mode)
                            && let Ok(ts) = hostcalls::stat(&link_path, true)
                        {
                            f.linkmode = ts.mode;
                        }
                        f.linkname = Some(target);
                    }
                    Err(e) => self.failure(cmdline, "cannot read symbolic link", &full, &e),
                }
            }
            f.ftype = if st.is_symlink() {
                FType::SymLink
            } else if st.is_dir() {
                if cmdline && !self.o.immediate_dirs {
                    FType::ArgDirectory
                } else {
                    FType::Directory
                }
            } else {
                FType::Normal
            };
            blocks = st.blocks;
            if self.o.format == Format::Long || self.o.block_size {
                let len = self.o.block_scale.format(u128::from(blocks) * 512).len();
                self.w.block = self.w.block.max(len);
            }
            if self.o.format == Format::Long {
                if self.o.owner {
                    self.w.owner = self.w.owner.max(self.user_width(st.uid));
                }
                if self.o.group {
                    self.w.group = self.w.group.max(self.group_width(st.gid));
                }
                if self.o.author {
                    self.w.author = self.w.author.max(self.user_width(st.uid));
                }
                self.w.nlink = self.w.nlink.max(st.nlink.to_string().len());
                let len = self.o.file_scale.format(u128::from(st.size)).len();
                self.w.size = self.w.size.max(len);
            }
            if self.o.scontext {
                self.w.scontext = self.w.scontext.max(1);
            }
            if self.o.inode {
                self.w.inode = self.w.inode.max(st.ino.to_string().len());
            }
            f.st = Some(st);
        }
        self.files.push(f);
        blocks
    }

    fn compare(&self, a: &FileInfo, b: &FileInfo) -> Ordering {
        if self.o.dirs_first {
            match (a.is_linked_directory(), b.is_linked_directory()) {
                (true, false) => return Ordering::Less,
                (false, true) => return Ordering::Greater,
                _ => {}
            }
        }
        let (a, b) = if self.o.reverse { (b, a) } else { (a, b) };
        let name = || a.name.as_bytes().cmp(b.name.as_bytes());
        let (sa, sb) = (a.stat_or_default(), b.stat_or_default());
        match self.o.sort {
            SortKey::Name => name(),
            SortKey::Extension => {
                let ext = |n: &str| n.rfind('.').map(|i| n[i..].to_string()).unwrap_or_default();
                ext(&a.name)
                    .as_bytes()
                    .cmp(ext(&b.name).as_bytes())
                    .then_with(name)
            }
            SortKey::Size => sb.size.cmp(&sa.size).then_with(name),
            SortKey::Version => filevercmp(&a.name, &b.name),
            SortKey::Time => {
                let t = |s: &Stat| match self.o.time {
                    TimeKind::Mtime => s.mtime_ns,
                    TimeKind::Ctime => s.ctime_ns,
                    TimeKind::Atime => s.atime_ns,
                };
                t(&sb).cmp(&t(&sa)).then_with(name)
            }
            SortKey::None => Ordering::Equal,
        }
    }

    fn sort_files(&mut self) {
        if self.o.sort == SortKey::None {
            return;
        }
        let mut files = std::mem::take(&mut self.files);
        files.sort_by(|a, b| self.compare(a, b));
        self.files = files;
    }

    /// Moves directories out of the listing onto the pending stack (`-R` keeps them listed).
    fn extract_dirs(&mut self, dirname: Option<&str>, cmdline: bool) {
        if dirname.is_some() && self.o.recursive {
            self.pending.push(Pending::Done);
        }
        for f in self.files.iter().rev() {
            if f.is_directory() && (dirname.is_none() || !basename_is_dot_or_dotdot(&f.name)) {
                let name = match dirname {
                    Some(d) if !f.name.starts_with('/') => concat(d, &f.name),
                    _ => f.name.clone(),
                };
                self.pending.push(Pending::Dir {
                    name,
                    realname: f.linkname.clone(),
                    cmdline,
                });
            }
        }
        self.files.retain(|f| f.ftype != FType::ArgDirectory);
    }

    fn print_dir(&mut self, name: &str, realname: Option<&str>, cmdline: bool) {
        let rd = match std::fs::read_dir(strip_root_parents(name)) {
            Ok(rd) => rd,
            Err(e) => {
                self.failure(cmdline, "cannot open directory", name, &e);
                return;
            }
        };
        if self.o.recursive {
            let id = hostcalls::stat(&strip_root_parents(name), true).map(|s| (s.dev, s.ino));
            match id {
                Ok(id) if self.active.contains(&id) => {
                    self.flush();
                    let _ = writeln!(
                        self.io.err,
                        "{}: {}: not listing already-listed directory",
                        self.prog,
                        quote_name(name, Quoting::ShellEscape, false)
                    );
                    self.set_status(true);
                    return;
                }
                Ok(id) => self.active.push(id),
                Err(e) => {
                    self.failure(cmdline, "cannot determine device and inode of", name, &e);
                    return;
                }
            }
        }
        self.clear_files();
        if self.o.recursive || self.print_dir_name {
            if !self.first_dir {
                self.out("\n");
            }
            self.first_dir = false;
            let shown = quote_name(realname.unwrap_or(name), self.o.quoting, self.o.qmark);
            self.out(&format!("{shown}:\n"));
        }
        let mut total: u64 = 0;
        let mut entries: Vec<(String, FType)> = Vec::new();
        if self.o.hidden == Hidden::Minimal {
            entries.push((".".into(), FType::Directory));
            entries.push(("..".into(), FType::Directory));
        }
        for e in rd {
            match e {
                Ok(e) => {
                    let n = e.file_name().to_string_lossy().into_owned();
                    let t = e.file_type().map_or(FType::Unknown, |t| {
                        if t.is_dir() {
                            FType::Directory
                        } else if t.is_symlink() {
                            FType::SymLink
                        } else if t.is_file() {
                            FType::Normal
                        } else {
                            FType::Unknown
                        }
                    });
                    entries.push((n, t));
                }
                Err(e) => {
                    self.failure(cmdline, "reading directory", name, &e);
                    break;
                }
            }
        }
        for (n, t) in entries {
            if !self.file_ignored(&n) {
                total += self.gobble(&n, t, false, name);
            }
        }
        self.sort_files();
        if self.o.recursive {
            self.extract_dirs(Some(name), false);
        }
        if self.o.format == Format::Long || self.o.block_size {
            let t = self.o.block_scale.format(u128::from(total) * 512);
            self.out(&format!("total {t}\n"));
        }
        if !self.files.is_empty() {
            self.print_current_files();
        }
    }

    fn time_of(&self, st: &Stat) -> i64 {
        match self.o.time {
            TimeKind::Mtime => st.mtime_ns,
            TimeKind::Ctime => st.ctime_ns,
            TimeKind::Atime => st.atime_ns,
        }
    }

    fn indicator_char(&self, stat_ok: bool, mode: u32, ftype: FType) -> Option<char> {
        let is = |m: u32, t: &[FType]| {
            if stat_ok {
                mode & S_IFMT == m
            } else {
                t.contains(&ftype)
            }
        };
        if is(S_IFREG, &[FType::Normal]) {
            return (stat_ok && self.o.indicator == Indicator::Classify && mode & 0o111 != 0)
                .then_some('*');
        }
        if is(S_IFDIR, &[FType::Directory, FType::ArgDirectory]) {
            Some('/')
        } else if self.o.indicator == Indicator::Slash {
            None
        } else if is(S_IFLNK, &[FType::SymLink]) {
            Some('@')
        } else if is(S_IFIFO, &[FType::Fifo]) {
            Some('|')
        } else if is(S_IFSOCK, &[FType::Sock]) {
            Some('=')
        } else {
            None
        }
    }

    fn file_indicator(&self, f: &FileInfo) -> Option<char> {
        if self.o.indicator == Indicator::None {
            return None;
        }
        self.indicator_char(f.st.is_some(), f.stat_or_default().mode, f.ftype)
    }

    fn quoted(&self, name: &str) -> String {
        quote_name(name, self.o.quoting, self.o.qmark)
    }

    fn blocks_text(&self, f: &FileInfo) -> String {
        match &f.st {
            Some(st) => self.o.block_scale.format(u128::from(st.blocks) * 512),
            None => "?".to_string(),
        }
    }

    fn inode_text(f: &FileInfo) -> String {
        f.st.map_or_else(|| "?".to_string(), |s| s.ino.to_string())
    }

    /// The name with the inode, block and context prefixes and the indicator (the non-long
    /// formats); `pad` aligns the prefixes.
    fn name_and_frills(&self, f: &FileInfo, pad: bool) -> String {
        let mut s = String::new();
        let width = |w: usize| if pad { w } else { 0 };
        if self.o.inode {
            s.push_str(&format!(
                "{:>w$} ",
                Self::inode_text(f),
                w = width(self.w.inode)
            ));
        }
        if self.o.block_size {
            s.push_str(&format!(
                "{:>w$} ",
                self.blocks_text(f),
                w = width(self.w.block)
            ));
        }
        if self.o.scontext {
            s.push_str(&format!("{:>w$} ", "?", w = width(self.w.scontext)));
        }
        s.push_str(&self.quoted(&f.name));
        if let Some(c) = self.file_indicator(f) {
            s.push(c);
        }
        s
    }

    /// Column width of [`name_and_frills`] as GNU computes it.
    fn frills_len(&self, f: &FileInfo) -> usize {
        let commas = self.o.format == Format::Commas;
        let mut len = 0;
        if self.o.inode {
            len += 1 + if commas {
                Self::inode_text(f).len()
            } else {
                self.w.inode
            };
        }
        if self.o.block_size {
            len += 1 + if commas {
                self.blocks_text(f).len()
            } else {
                self.w.block
            };
        }
        if self.o.scontext {
            len += 1 + if commas { 1 } else { self.w.scontext };
        }
        len += width_of(&self.quoted(&f.name));
        len + usize::from(self.file_indicator(f).is_some())
    }

    fn long_line(&self, f: &FileInfo) -> String {
        let mut p = String::new();
        if self.o.inode {
            p.push_str(&format!("{:>w$} ", Self::inode_text(f), w = self.w.inode));
        }
        if self.o.block_size {
            p.push_str(&format!("{:>w$} ", self.blocks_text(f), w = self.w.block));
        }
        let user = |id: u32, w: usize| -> String {
            if f.st.is_none() {
                format!("{:<w$} ", "?")
            } else if self.o.numeric {
                format!("{id:>w$} ")
            } else {
                format!("{:<w$} ", sys::user_name(id))
            }
        };
        let group = |id: u32, w: usize| -> String {
            if f.st.is_none() {
                format!("{:<w$} ", "?")
            } else if self.o.numeric {
                format!("{id:>w$} ")
            } else {
                format!("{:<w$} ", sys::group_name(id))
            }
        };
        match &f.st {
            Some(st) => {
                p.push_str(&mode_string(st.mode));
                p.push_str(&format!(" {:>w$} ", st.nlink, w = self.w.nlink));
            }
            None => {
                p.push(f.ftype.letter());
                p.push_str("?????????");
                p.push_str(&format!(" {:>w$} ", "?", w = self.w.nlink));
            }
        }
        let st = f.stat_or_default();
        if self.o.owner {
            p.push_str(&user(st.uid, self.w.owner));
        }
        if self.o.group {
            p.push_str(&group(st.gid, self.w.group));
        }
        if self.o.author {
            p.push_str(&user(st.uid, self.w.author));
        }
        if self.o.scontext {
            p.push_str(&format!("{:<w$} ", "?", w = self.w.scontext));
        }
        let size = match &f.st {
            Some(st) => self.o.file_scale.format(u128::from(st.size)),
            None => "?".to_string(),
        };
        p.push_str(&format!("{size:>w$} ", w = self.w.size));
        match &f.st {
            Some(st) => {
                let when = self.time_of(st);
                // Recent: within the last six months (half a Gregorian year) and not in the
                // future.
                const HALF_YEAR_NS: i64 = 31_556_952 / 2 * 1_000_000_000;
                let recent = self.now - HALF_YEAR_NS < when && when < self.now;
                let tm = Tm::from_ns(when);
                p.push_str(&strftime(&self.o.time_fmt[usize::from(recent)], &tm));
                p.push(' ');
            }
            None => {
                let width = strftime(&self.o.time_fmt[0], &Tm::from_ns(0)).len();
                p.push_str(&format!("{:>width$} ", "?"));
            }
        }
        p.push_str(&self.quoted(&f.name));
        if f.ftype == FType::SymLink {
            if let Some(t) = &f.linkname {
                p.push_str(" -> ");
                p.push_str(&self.quoted(t));
                if self.o.indicator != Indicator::None
                    && let Some(c) = self.indicator_char(true, f.linkmode, FType::Unknown)
                {
                    p.push(c);
                }
            }
        } else if let Some(c) = self.file_indicator(f) {
            p.push(c);
        }
        p
    }

    /// Pads from column `from` to `to` with tabs where they fit, as GNU's `indent`.
    fn indent(&self, s: &mut String, mut from: usize, to: usize) {
        let tab = self.o.tabsize;
        while from < to {
            if tab != 0 && to / tab > (from + 1) / tab {
                s.push('\t');
                from += tab - from % tab;
            } else {
                s.push(' ');
                from += 1;
            }
        }
    }

    /// GNU's `calculate_columns`: the most columns that fit, and their widths.
    fn columns(&self, by_columns: bool) -> (usize, Vec<usize>) {
        const MIN_COLUMN_WIDTH: usize = 3;
        let n = self.files.len();
        let line = self.o.line_length;
        let max_idx = line / MIN_COLUMN_WIDTH + usize::from(!line.is_multiple_of(MIN_COLUMN_WIDTH));
        let max_cols = max_idx.min(n).max(1);
        let mut valid = vec![true; max_cols];
        let mut line_len: Vec<usize> = (0..max_cols).map(|i| (i + 1) * MIN_COLUMN_WIDTH).collect();
        let mut arr: Vec<Vec<usize>> = (0..max_cols)
            .map(|i| vec![MIN_COLUMN_WIDTH; i + 1])
            .collect();
        for (filesno, f) in self.files.iter().enumerate() {
            let name_len = self.frills_len(f);
            for i in 0..max_cols {
                if !valid[i] {
                    continue;
                }
                let idx = if by_columns {
                    filesno / n.div_ceil(i + 1)
                } else {
                    filesno % (i + 1)
                };
                let real = name_len + if idx == i { 0 } else { 2 };
                if arr[i][idx] < real {
                    line_len[i] += real - arr[i][idx];
                    arr[i][idx] = real;
                    valid[i] = line_len[i] < line;
                }
            }
        }
        let mut cols = max_cols;
        while cols > 1 && !valid[cols - 1] {
            cols -= 1;
        }
        (cols, arr[cols - 1].clone())
    }

    fn print_current_files(&mut self) {
        let mut s = String::new();
        match self.o.format {
            Format::OnePerLine => {
                for f in &self.files {
                    s.push_str(&self.name_and_frills(f, true));
                    s.push('\n');
                }
            }
            Format::Long => {
                for f in &self.files {
                    s.push_str(&self.long_line(f));
                    s.push('\n');
                }
            }
            Format::Commas => s = self.with_separator(','),
            Format::Columns | Format::Across if self.o.line_length == 0 => {
                s = self.with_separator(' ');
            }
            Format::Columns => {
                let (cols, widths) = self.columns(true);
                let n = self.files.len();
                let rows = n.div_ceil(cols);
                for row in 0..rows {
                    let mut col = 0;
                    let mut k = row;
                    let mut pos = 0;
                    loop {
                        let f = &self.files[k];
                        let len = self.frills_len(f);
                        let max = widths[col];
                        col += 1;
                        s.push_str(&self.name_and_frills(f, true));
                        k += rows;
                        if k >= n {
                            break;
                        }
                        self.indent(&mut s, pos + len, pos + max);
                        pos += max;
                    }
                    s.push('\n');
                }
            }
            Format::Across => {
                let (cols, widths) = self.columns(false);
                let mut pos = 0;
                let first = &self.files[0];
                let mut len = self.frills_len(first);
                let mut max = widths[0];
                s.push_str(&self.name_and_frills(first, true));
                for k in 1..self.files.len() {
                    let col = k % cols;
                    if col == 0 {
                        s.push('\n');
                        pos = 0;
                    } else {
                        self.indent(&mut s, pos + len, pos + max);
                        pos += max;
                    }
                    let f = &self.files[k];
                    s.push_str(&self.name_and_frills(f, true));
                    len = self.frills_len(f);
                    max = widths[col];
                }
                s.push('\n');
            }
        }
        self.out(&s);
    }

    fn with_separator(&self, sep: char) -> String {
        let mut s = String::new();
        let mut pos = 0usize;
        let line = self.o.line_length;
        for (k, f) in self.files.iter().enumerate() {
            let len = if line > 0 { self.frills_len(f) } else { 0 };
            if k != 0 {
                let separator = if line == 0 || pos + len + 2 < line {
                    pos += 2;
                    ' '
                } else {
                    pos = 0;
                    '\n'
                };
                s.push(sep);
                s.push(separator);
            }
            s.push_str(&self.name_and_frills(f, false));
            pos += len;
        }
        s.push('\n');
        s
    }
}

/// The path a relative symlink target refers to from the link's directory.
fn make_link_name(name: &str, target: &str) -> String {
    if target.starts_with('/') {
        return target.to_string();
    }
    match name.rfind('/') {
        None => target.to_string(),
        Some(0) => format!("/{target}"),
        Some(i) => format!("{}/{target}", &name[..i]),
    }
}

fn usage_error(io: &mut Io, prog: &str, msg: &str) -> i32 {
    if !msg.is_empty() {
        let _ = writeln!(io.err, "{prog}: {msg}");
    }
    let _ = writeln!(io.err, "{}", gnu::usage::try_help(prog));
    LS_FAILURE
}

/// A bad `--sort`/`--time`/`--format`/… argument: coreutils' `ARGMATCH_DIE` is
/// `usage (EXIT_FAILURE)`, so these exit 1 where other usage errors exit 2.
fn argmatch_error(io: &mut Io, prog: &str, msg: &str) -> i32 {
    usage_error(io, prog, msg);
    1
}

fn parse_width(s: &str) -> Option<usize> {
    getopt::parse_uint(s).map(|n| n as usize)
}

pub fn run(args: &[String], io: &mut Io) -> i32 {
    let prog = prog(args, "ls");
    // Each option is acted on in order, so a bad value before a bad option is the error.
    let (parsed, parse_error) = getopt::parse_in_order(args, SPECS, Config::default());
    let mut o = Opts {
        format: Format::OnePerLine,
        hidden: Hidden::Default,
        ignore: Vec::new(),
        hide: Vec::new(),
        immediate_dirs: false,
        recursive: false,
        deref: Deref::Undefined,
        sort: SortKey::Name,
        reverse: false,
        dirs_first: false,
        time: TimeKind::Mtime,
        indicator: Indicator::None,
        inode: false,
        block_size: false,
        owner: true,
        group: true,
        author: false,
        scontext: false,
        numeric: false,
        quoting: Quoting::Literal,
        qmark: false,
        file_scale: Scale::Block {
            size: 1,
            suffix: String::new(),
        },
        block_scale: Scale::Block {
            size: 1024,
            suffix: String::new(),
        },
        time_fmt: [String::new(), String::new()],
        line_length: 80,
        tabsize: 8,
    };
    let quoting_styles: &[(&str, Quoting)] = &[
        ("literal", Quoting::Literal),
        ("shell", Quoting::Shell),
        ("shell-always", Quoting::ShellAlways),
        ("shell-escape", Quoting::ShellEscape),
        ("shell-escape-always", Quoting::ShellEscapeAlways),
        ("c", Quoting::C),
        ("c-maybe", Quoting::CMaybe),
        ("escape", Quoting::Escape),
        ("locale", Quoting::Locale),
        ("clocale", Quoting::CLocale),
    ];
    if let Ok(q) = std::env::var("QUOTING_STYLE") {
        match quoting_styles.iter().find(|(n, _)| *n == q) {
            Some((_, s)) => o.quoting = *s,
            None => {
                let _ = writeln!(
                    io.err,
                    "{prog}: ignoring invalid value of environment variable QUOTING_STYLE: {}",
                    quote::shell_always(&q)
                );
            }
        }
    }
    if let Ok(c) = std::env::var("COLUMNS")
        && !c.is_empty()
    {
        match parse_width(&c) {
            Some(n) => o.line_length = n,
            None => {
                let _ = writeln!(
                    io.err,
                    "{prog}: ignoring invalid width in environment variable COLUMNS: {}",
                    quote::shell_always(&c)
                );
            }
        }
    }
    if let Ok(t) = std::env::var("TABSIZE") {
        match parse_width(&t) {
            Some(n) => o.tabsize = n,
            None => {
                let _ = writeln!(
                    io.err,
                    "{prog}: ignoring invalid tab size in environment variable TABSIZE: {}",
                    quote::shell_always(&t)
                );
            }
        }
    }
    let mut sort_specified = false;
    let mut kibibytes = false;
    let mut scale_given: Option<Scale> = None;
    let mut time_style: Option<String> = None;
    for opt in &parsed.opts {
        let arg = opt.arg.clone().unwrap_or_default();
        match opt.key {
            K::All => o.hidden = Hidden::Minimal,
            K::Escape => o.quoting = Quoting::Escape,
            K::Ctime => o.time = TimeKind::Ctime,
            K::Directory => o.immediate_dirs = true,
            K::NoSort => {
                o.hidden = Hidden::Minimal;
                o.sort = SortKey::None;
                sort_specified = true;
                if o.format == Format::Long {
                    o.format = Format::OnePerLine;
                }
                o.block_size = false;
            }
            K::FileType => o.indicator = Indicator::FileType,
            K::LongNoOwner => {
                o.format = Format::Long;
                o.owner = false;
            }
            K::Human => scale_given = Some(Scale::Auto { base: 1024 }),
            K::Si => scale_given = Some(Scale::Auto { base: 1000 }),
            K::Inode => o.inode = true,
            K::Kibibytes => kibibytes = true,
            K::Long => o.format = Format::Long,
            K::Commas => o.format = Format::Commas,
            K::Numeric => {
                o.numeric = true;
                o.format = Format::Long;
            }
            K::LongNoGroup => {
                o.format = Format::Long;
                o.group = false;
            }
            K::Slash => o.indicator = Indicator::Slash,
            K::HideControl => o.qmark = true,
            K::ShowControl => o.qmark = false,
            K::Reverse => o.reverse = true,
            K::Size => o.block_size = true,
            K::SortTime => {
                o.sort = SortKey::Time;
                sort_specified = true;
            }
            K::Atime => o.time = TimeKind::Atime,
            K::SortVersion => {
                o.sort = SortKey::Version;
                sort_specified = true;
            }
            K::Width => match parse_width(&arg) {
                Some(n) => o.line_length = n,
                None => {
                    let _ = writeln!(
                        io.err,
                        "{prog}: invalid line width: {}",
                        quote::shell_always(&arg)
                    );
                    return LS_FAILURE;
                }
            },
            K::Across => o.format = Format::Across,
            K::AlmostAll => o.hidden = Hidden::DotAndDotdot,
            K::IgnoreBackups => {
                o.ignore.push("*~".into());
                o.ignore.push(".*~".into());
            }
            K::Columns => o.format = Format::Columns,
            K::Dired | K::Hyperlink => {}
            K::Classify => o.indicator = Indicator::Classify,
            K::NoGroup => o.group = false,
            K::DerefCmdline => o.deref = Deref::CmdlineArgs,
            K::DerefCmdlineDirs => o.deref = Deref::CmdlineSymlinkToDir,
            K::Ignore => o.ignore.push(arg),
            K::Hide => o.hide.push(arg),
            K::Dereference => o.deref = Deref::Always,
            K::Literal => o.quoting = Quoting::Literal,
            K::QuoteName => o.quoting = Quoting::C,
            K::Recursive => o.recursive = true,
            K::SortSize => {
                o.sort = SortKey::Size;
                sort_specified = true;
            }
            K::Tabsize => match parse_width(&arg) {
                Some(n) => o.tabsize = n,
                None => {
                    let _ = writeln!(
                        io.err,
                        "{prog}: invalid tab size: {}",
                        quote::shell_always(&arg)
                    );
                    return LS_FAILURE;
                }
            },
            K::SortNone => {
                o.sort = SortKey::None;
                sort_specified = true;
            }
            K::SortExt => {
                o.sort = SortKey::Extension;
                sort_specified = true;
            }
            K::OnePerLine => {
                if o.format != Format::Long {
                    o.format = Format::OnePerLine;
                }
            }
            K::Author => o.author = true,
            K::Sort => {
                let choices = [
                    ("none", SortKey::None),
                    ("time", SortKey::Time),
                    ("size", SortKey::Size),
                    ("extension", SortKey::Extension),
                    ("version", SortKey::Version),
                ];
                match argmatch(&arg, "--sort", &choices) {
                    Ok(s) => o.sort = s,
                    Err(m) => return argmatch_error(io, &prog, &m),
                }
                sort_specified = true;
            }
            K::Time => {
                let choices = [
                    ("atime", TimeKind::Atime),
                    ("access", TimeKind::Atime),
                    ("use", TimeKind::Atime),
                    ("ctime", TimeKind::Ctime),
                    ("status", TimeKind::Ctime),
                ];
                match argmatch(&arg, "--time", &choices) {
                    Ok(t) => o.time = t,
                    Err(m) => {
                        // Birth times: GNU lists them too; the sandbox has none.
                        let m = m + "\n  - 'birth', 'creation'";
                        return argmatch_error(io, &prog, &m);
                    }
                }
            }
            K::Format => {
                let choices = [
                    ("verbose", Format::Long),
                    ("long", Format::Long),
                    ("commas", Format::Commas),
                    ("horizontal", Format::Across),
                    ("across", Format::Across),
                    ("vertical", Format::Columns),
                    ("single-column", Format::OnePerLine),
                ];
                match argmatch(&arg, "--format", &choices) {
                    Ok(f) => o.format = f,
                    Err(m) => return argmatch_error(io, &prog, &m),
                }
            }
            K::FullTime => {
                o.format = Format::Long;
                time_style = Some("full-iso".into());
            }
            K::Color => {
                if let Some(a) = &opt.arg {
                    let choices = [
                        ("always", 0),
                        ("yes", 0),
                        ("force", 0),
                        ("never", 1),
                        ("no", 1),
                        ("none", 1),
                        ("auto", 2),
                        ("tty", 2),
                        ("if-tty", 2),
                    ];
                    if let Err(m) = argmatch(a, "--color", &choices) {
                        return argmatch_error(io, &prog, &m);
                    }
                }
            }
            K::IndicatorStyle => {
                let choices = [
                    ("none", Indicator::None),
                    ("slash", Indicator::Slash),
                    ("file-type", Indicator::FileType),
                    ("classify", Indicator::Classify),
                ];
                match argmatch(&arg, "--indicator-style", &choices) {
                    Ok(i) => o.indicator = i,
                    Err(m) => return argmatch_error(io, &prog, &m),
                }
            }
            K::QuotingStyle => match argmatch(&arg, "--quoting-style", quoting_styles) {
                Ok(q) => o.quoting = q,
                Err(m) => return argmatch_error(io, &prog, &m),
            },
            K::TimeStyle => time_style = Some(arg),
            K::BlockSize => match parse_block_size(&arg) {
                Some(s) => scale_given = Some(s),
                None => {
                    let _ = writeln!(io.err, "{prog}: invalid --block-size argument '{arg}'");
                    return LS_FAILURE;
                }
            },
            K::Context => o.scontext = true,
            K::DirsFirst => o.dirs_first = true,
            K::Help => {
                let _ = writeln!(
                    io.out,
                    "Usage: {prog} [OPTION]... [FILE]...\nList information about the FILEs (the current directory by default)."
                );
                return 0;
            }
            K::Version => {
                let _ = writeln!(io.out, "ls (GNU coreutils) 8.32");
                return 0;
            }
        }
    }
    if let Some(msg) = parse_error {
        return usage_error(io, &prog, &msg);
    }
    match scale_given {
        Some(s) => {
            o.file_scale = s.clone();
            o.block_scale = s;
        }
        None => {
            let env = std::env::var("LS_BLOCK_SIZE")
                .ok()
                .or_else(|| std::env::var("BLOCK_SIZE").ok());
            if let Some(s) = env.as_deref().and_then(parse_block_size) {
                o.file_scale = s.clone();
                o.block_scale = s;
            }
            if kibibytes {
                o.block_scale = Scale::Block {
                    size: 1024,
                    suffix: String::new(),
                };
            }
        }
    }
    // -c/-u without -l (and without an explicit sort) sort by that time.
    if o.time != TimeKind::Mtime && !sort_specified && o.format != Format::Long {
        o.sort = SortKey::Time;
    }
    if o.format == Format::Long {
        let style = time_style
            .or_else(|| std::env::var("TIME_STYLE").ok())
            .unwrap_or_else(|| "locale".into());
        let mut style = style.as_str();
        // In the C locale `posix-STYLE` means the locale's (POSIX) format.
        while let Some(rest) = style.strip_prefix("posix-") {
            style = rest;
            if !style.is_empty() {
                style = "locale";
            }
        }
        if let Some(fmt) = style.strip_prefix('+') {
            match fmt.split_once('\n') {
                Some((old, recent)) => {
                    if recent.contains('\n') {
                        let _ = writeln!(
                            io.err,
                            "{prog}: invalid time style format {}",
                            quote::shell_always(old)
                        );
                        return LS_FAILURE;
                    }
                    o.time_fmt = [old.to_string(), recent.to_string()];
                }
                None => o.time_fmt = [fmt.to_string(), fmt.to_string()],
            }
        } else {
            let choices = [("full-iso", 0), ("long-iso", 1), ("iso", 2), ("locale", 3)];
            let fmts: [&str; 2] = match argmatch(style, "time style", &choices) {
                Ok(0) => ["%Y-%m-%d %H:%M:%S.%N %z", "%Y-%m-%d %H:%M:%S.%N %z"],
                Ok(1) => ["%Y-%m-%d %H:%M", "%Y-%m-%d %H:%M"],
                Ok(2) => ["%Y-%m-%d ", "%m-%d %H:%M"],
                Ok(_) => ["%b %e  %Y", "%b %e %H:%M"],
                Err(m) => {
                    let first = m.lines().next().unwrap_or_default();
                    let _ = writeln!(
                        io.err,
                        "{prog}: {first}\nValid arguments are:\n  - [posix-]full-iso\n  - [posix-]long-iso\n  - [posix-]iso\n  - [posix-]locale\n  - +FORMAT (e.g., +%H:%M) for a 'date'-style format"
                    );
                    return usage_error(io, &prog, "");
                }
            };
            o.time_fmt = [fmts[0].to_string(), fmts[1].to_string()];
        }
    }
    if o.deref == Deref::Undefined {
        o.deref =
            if o.immediate_dirs || o.indicator == Indicator::Classify || o.format == Format::Long {
                Deref::Never
            } else {
                Deref::CmdlineSymlinkToDir
            };
    }
    let needs_stat = o.sort == SortKey::Time
        || o.sort == SortKey::Size
        || o.format == Format::Long
        || o.scontext
        || o.block_size;
    let needs_type = !needs_stat && (o.recursive || o.indicator != Indicator::None || o.dirs_first);
    let check_symlink_mode = o.dirs_first;
    let mut ls = Ls {
        o,
        io,
        prog: prog.clone(),
        status: 0,
        files: Vec::new(),
        w: Widths::default(),
        pending: Vec::new(),
        active: Vec::new(),
        first_dir: true,
        print_dir_name: true,
        now: now_ns(),
        needs_stat,
        needs_type,
        check_symlink_mode,
        write_error: None,
    };
    let operands = &parsed.operands;
    if operands.is_empty() {
        if ls.o.immediate_dirs {
            ls.gobble(".", FType::Directory, true, "");
        } else {
            ls.pending.push(Pending::Dir {
                name: ".".into(),
                realname: None,
                cmdline: true,
            });
        }
    } else {
        for a in operands {
            ls.gobble(a, FType::Unknown, true, "");
        }
    }
    if !ls.files.is_empty() {
        ls.sort_files();
        if !ls.o.immediate_dirs {
            ls.extract_dirs(None, true);
        }
    }
    if !ls.files.is_empty() {
        ls.print_current_files();
        if !ls.pending.is_empty() {
            ls.out("\n");
        }
    } else if operands.len() <= 1 && ls.pending.len() == 1 {
        ls.print_dir_name = false;
    }
    while let Some(p) = ls.pending.pop() {
        match p {
            Pending::Done => {
                ls.active.pop();
            }
            Pending::Dir {
                name,
                realname,
                cmdline,
            } => {
                ls.print_dir(&name, realname.as_deref(), cmdline);
                ls.print_dir_name = true;
            }
        }
        if ls.write_error.is_some() {
            break;
        }
    }
    if let Some(e) = ls.write_error.take() {
        return crate::common::io::write_failed(args, &e, ls.io.err);
    }
    ls.status
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn block_sizes() {
        let b = |s: &str| parse_block_size(s);
        assert_eq!(
            b("K"),
            Some(Scale::Block {
                size: 1024,
                suffix: "K".into()
            })
        );
        assert_eq!(
            b("KB"),
            Some(Scale::Block {
                size: 1000,
                suffix: "kB".into()
            })
        );
        assert_eq!(
            b("MiB"),
            Some(Scale::Block {
                size: 1 << 20,
                suffix: "MiB".into()
            })
        );
        assert_eq!(
            b("1K"),
            Some(Scale::Block {
                size: 1024,
                suffix: String::new()
            })
        );
        assert_eq!(b("0"), None);
        assert_eq!(b("x"), None);
        assert_eq!(b("K").unwrap().format(123_456), "121K");
        assert_eq!(b("KB").unwrap().format(123_456), "124kB");
        assert_eq!(Scale::Auto { base: 1000 }.format(123_456), "124k");
        assert_eq!(Scale::Auto { base: 1024 }.format(4096), "4.0K");
    }

    #[test]
    fn version_order() {
        let mut v = vec![
            "file10",
            "file9",
            "file1",
            ".b",
            "a.tar.gz",
            "a2.tar.gz",
            "a10.tar.gz",
            ".",
        ];
        v.sort_by(|a, b| filevercmp(a, b));
        assert_eq!(
            v,
            vec![
                ".",
                ".b",
                "a.tar.gz",
                "a2.tar.gz",
                "a10.tar.gz",
                "file1",
                "file9",
                "file10"
            ]
        );
    }

    #[test]
    fn argmatch_messages() {
        let c = [("none", 0), ("time", 1), ("atime", 2), ("access", 2)];
        assert_eq!(argmatch("ti", "--sort", &c), Ok(1));
        assert_eq!(argmatch("a", "--sort", &c), Ok(2));
        assert_eq!(
            argmatch("x", "--sort", &c).unwrap_err(),
            "invalid argument 'x' for '--sort'\nValid arguments are:\n  - 'none'\n  - 'time'\n  - 'atime', 'access'"
        );
    }

    #[test]
    fn quoting_styles() {
        assert_eq!(quote_name("a b", Quoting::Literal, false), "a b");
        assert_eq!(quote_name("a b", Quoting::Escape, false), "a\\ b");
        assert_eq!(quote_name("a\tb", Quoting::Escape, false), "a\\tb");
        assert_eq!(quote_name("a\"b", Quoting::C, false), "\"a\\\"b\"");
        assert_eq!(quote_name("a b", Quoting::Shell, false), "'a b'");
        assert_eq!(quote_name("ab", Quoting::Shell, false), "ab");
        assert_eq!(quote_name("a\nb", Quoting::Literal, true), "a?b");
    }

    fn ls(args: &[&str]) -> (i32, String, String) {
        let args: Vec<String> = std::iter::once("ls")
            .chain(args.iter().copied())
            .map(String::from)
            .collect();
        crate::common::io::capture_text(run, &args, b"")
    }

    #[test]
    fn listings() {
        let d = tempfile::tempdir().unwrap();
        let root = d.path().to_string_lossy().into_owned();
        for n in ["b", "a", "C", ".h"] {
            std::fs::write(d.path().join(n), n).unwrap();
        }
        std::fs::create_dir(d.path().join("dir")).unwrap();
        // Byte order: upper case first; dot files hidden; -p marks directories.
        assert_eq!(ls(&["-p", &root]).1, "C\na\nb\ndir/\n");
        assert_eq!(ls(&["-A", &root]).1, ".h\nC\na\nb\ndir\n");
        // Files before directories, with headers and a blank line.
        let a = format!("{root}/a");
        let dir = format!("{root}/dir");
        assert_eq!(ls(&[&dir, &a]).1, format!("{a}\n\n{dir}:\n"));
        // Columns, filled down first.
        assert_eq!(ls(&["-C", "-w", "8", &root]).1, "C  b\na  dir\n");
        let (code, _, err) = ls(&["/nonexistent-ls"]);
        assert_eq!(code, 2);
        assert_eq!(
            err,
            "ls: cannot access '/nonexistent-ls': No such file or directory\n"
        );
    }

    #[test]
    fn long_format_aligns_columns() {
        let d = tempfile::tempdir().unwrap();
        std::fs::write(d.path().join("small"), "x").unwrap();
        std::fs::write(d.path().join("large"), vec![b'y'; 12345]).unwrap();
        let (code, out, _) = ls(&["-ln", &d.path().to_string_lossy()]);
        assert_eq!(code, 0);
        let lines: Vec<&str> = out.lines().collect();
        assert!(lines[0].starts_with("total "), "{out}");
        assert!(
            lines[1].contains(" 12345 ") && lines[1].ends_with(" large"),
            "{out}"
        );
        assert!(
            lines[2].contains("     1 ") && lines[2].ends_with(" small"),
            "{out}"
        );
        // The size column is right-aligned: both names start at the same column.
        assert_eq!(
            lines[1].len() - "large".len(),
            lines[2].len() - "small".len()
        );
    }

    #[test]
    fn paths() {
        assert_eq!(attach(".", "x"), "x");
        assert_eq!(attach("d/", "x"), "d/x");
        assert_eq!(attach("d", "x"), "d/x");
        assert_eq!(make_link_name("d/l", "t"), "d/t");
        assert_eq!(make_link_name("/l", "t"), "/t");
        assert_eq!(make_link_name("l", "/t"), "/t");
        assert!(basename_is_dot_or_dotdot("a/.."));
        assert!(is_root("/"));
        assert_eq!(strip_root_parents("/.."), "/");
        assert_eq!(strip_root_parents("/../../etc/"), "/etc/");
        assert_eq!(strip_root_parents("/a/.."), "/a/..");
        assert_eq!(strip_root_parents("x/.."), "x/..");
        assert!(is_root("/tmp/.."));
        assert!(!is_root("/tmp"));
        assert!(!basename_is_dot_or_dotdot("a/..b"));
    }
}
