//! `tar`: create, list and extract GNU-format archives, optionally gzip-compressed.
//!
//! Written for the sandbox rather than on the `tar` crate, whose `Builder::append_dir_all`
//! panics on WASI (`set_metadata_in_mode` is unimplemented there) and whose `unpack` fails
//! setting permissions; headers are built and entries unpacked here, with modes from
//! `hostcalls::stat`/`hostcalls::chmod` (WASI itself has no permission bits).
//!
//! Matches GNU tar 1.34 (upstream's) in: option syntax (old-style `tar czf a.tgz dir`,
//! clusters `-zcvf`, long options and their unique prefixes, position-dependent `-C`),
//! `-c -x -t -r -z -v -f -C -P -O -k -T -X -a`, `--transform`/`--xform` (sed `s` with `g`,
//! `i`, `x`, a number, `&` and `\1`…`\9`; names are transformed without their trailing
//! `/`), `--exclude` (unanchored wildcards that match `/`), `--strip-components`,
//! `--remove-files`, `--wildcards`; GNU-format headers (`ustar  ` magic, long names in
//! `././@LongLink` entries, 10240-byte records); a second copy of an already archived file
//! (same device and inode) stored as a hard link; the `Removing leading `/' from member
//! names` notice; `-v` printing names as given on create and member names on extract,
//! `-tv` in GNU's long format with its growing owner/size column; gzip auto-detected when
//! reading a file, and `Archive is compressed. Use -z option` for standard input; GNU's error
//! texts and exit status 2.
//!
//! Differences: directory entries are archived sorted by name (GNU uses readdir order, which
//! differs between file systems); owners are always stored as `0/0 root/root`; times are
//! shown in UTC; `--sort`, `--owner` and `--group` are accepted and ignored; `--mtime` takes
//! the dates `common::time::parse_date` reads (and a file's time), GNU's oldest time for what
//! GNU cannot read, and leaves members their own times for relative words (`yesterday`);
//! bzip2/xz (`-j`/`-J`) are not available; sparse files, devices and FIFOs are skipped;
//! `--delete`, `-A` and
//! `-d` are not implemented (`-u` appends like `-r`).

use crate::common::sys::{os_bytes, path_of};
use crate::common::time;
use gnu::usage;
use std::ffi::OsString;
use std::fs;
use std::io::{self, BufRead, Read, Write};
use std::path::{Path, PathBuf};

const BLOCK: usize = 512;
/// GNU's default blocking factor 20: archives are padded to 10240-byte records.
const RECORD: usize = 20 * BLOCK;

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Mode {
    Create,
    Extract,
    List,
    Append,
}

#[derive(Debug)]
enum Operand {
    Name(Vec<u8>),
    Dir(Vec<u8>),
}

#[derive(Default)]
struct Opts {
    mode: Option<Mode>,
    modes_given: usize,
    gzip: bool,
    auto_compress: bool,
    verbose: u8,
    file: Option<Vec<u8>>,
    absolute: bool,
    to_stdout: bool,
    keep_old: bool,
    no_mtime: bool,
    dereference: bool,
    remove_files: bool,
    no_recursion: bool,
    wildcards: bool,
    show_transformed: bool,
    numeric_owner: bool,
    strip: usize,
    transforms: Vec<Transform>,
    /// Exclusion patterns, each with the number of names given before it.
    excludes: Vec<(Vec<u8>, usize)>,
    /// `--exclude-vcs-ignores` (with the number of names given before it): names matched by
    /// the ignore files of a directory are left out.
    exclude_vcs_ignores: Option<usize>,
    files_from: Vec<Vec<u8>>,
    operands: Vec<Operand>,
    /// `--null`: `-T` lists are NUL-separated.
    null: bool,
    /// Warnings the command line itself earned (printed before anything runs).
    warnings: Vec<String>,
    /// `--mtime`: the time every member is archived with, in seconds.
    mtime: Option<i64>,
    /// How dates on the command line were read, for `-v` ("Option --mtime: Treating date …").
    textual_dates: Vec<String>,
    /// Names (and `-T` lists) given so far, to tell which options came after all of them.
    names_given: usize,
    /// Positional options (`--no-recursion`…) with the number of names given before each.
    positional: Vec<(String, usize)>,
}

/// The result of a run: messages already printed, status to return.
struct Tar {
    opts: Opts,
    status: i32,
    /// The leading `/` runs already reported ("Removing leading `//' …"), once each as GNU.
    warned_slashes: Vec<Vec<u8>>,
    /// The same for hard link targets ("… from hard link targets").
    warned_link_slashes: Vec<Vec<u8>>,
    warned_dotdot: bool,
    /// `--exclude-vcs-ignores`: the patterns of the ignore files met in the directories being
    /// archived, innermost last, with whether they apply to subdirectories too.
    vcs_ignored: Vec<(Vec<Vec<u8>>, bool)>,
    /// GNU's owner/size column in long listings starts 19 wide and grows to fit.
    ugswidth: usize,
    out: Box<dyn Write>,
    err: Box<dyn Write>,
}

/// A fatal error: the message (without `tar: `) has been or will be printed; exit 2.
struct Fatal;

type TResult<T> = Result<T, Fatal>;

pub fn main(args: Vec<OsString>) -> i32 {
    let args: Vec<Vec<u8>> = args.iter().map(|a| os_bytes(a)).collect();
    let mut err: Box<dyn Write> = Box::new(io::stderr());
    let opts = match parse_command_line(&args) {
        Ok(o) => o,
        Err((msg, warnings)) => {
            for w in warnings {
                let _ = writeln!(err, "tar: {w}");
            }
            let _ = writeln!(err, "tar: {msg}");
            let _ = writeln!(
                err,
                "Try 'tar --help' or 'tar --usage' for more information."
            );
            // argp's own errors (the option syntax) exit with EX_USAGE; tar's checks with 2.
            let getopt = ["invalid option", "unrecognized option", "option "]
                .iter()
                .any(|p| msg.starts_with(p));
            return if getopt { 64 } else { 2 };
        }
    };
    for w in &opts.warnings {
        let _ = writeln!(err, "tar: {w}");
    }
    if opts.verbose > 0 {
        for d in &opts.textual_dates {
            let _ = writeln!(err, "tar: {d}");
        }
    }
    let mut t = Tar {
        opts,
        status: 0,
        warned_slashes: Vec::new(),
        warned_link_slashes: Vec::new(),
        warned_dotdot: false,
        vcs_ignored: Vec::new(),
        ugswidth: 19,
        // glibc gives a pipe a 4096-byte stdio buffer; the interleaving with stderr follows.
        out: Box::new(io::BufWriter::with_capacity(4096, io::stdout())),
        err,
    };
    let r = match t.opts.mode {
        Some(Mode::Create) | Some(Mode::Append) => t.create(),
        Some(Mode::Extract) | Some(Mode::List) => t.read_archive(),
        None => Ok(()),
    };
    let _ = t.out.flush();
    match r {
        Ok(()) => {
            t.positional_without_effect();
            if t.status != 0 {
                let _ = writeln!(
                    t.err,
                    "tar: Exiting with failure status due to previous errors"
                );
            }
            t.status
        }
        Err(Fatal) => 2,
    }
}

// ----- byte/path helpers -----

fn path_bytes(p: &Path) -> Vec<u8> {
    os_bytes(p.as_os_str())
}

/// The run of `/` that `name` starts with.
fn leading_slashes(name: &[u8]) -> &[u8] {
    &name[..name.iter().take_while(|&&c| c == b'/').count()]
}

fn show(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// A name in a diagnostic, as GNU tar quotes it (gnulib's `quotearg_colon`, escape style in
/// the C locale): backslash escapes for `\\`, `:` and control characters, octal for the rest
/// of the unprintable bytes.
fn quoted(b: &[u8]) -> String {
    let mut s = String::with_capacity(b.len());
    for &c in b {
        match c {
            b'\\' => s.push_str("\\\\"),
            b':' => s.push_str("\\:"),
            0x07 => s.push_str("\\a"),
            0x08 => s.push_str("\\b"),
            0x0c => s.push_str("\\f"),
            b'\n' => s.push_str("\\n"),
            b'\r' => s.push_str("\\r"),
            b'\t' => s.push_str("\\t"),
            0x0b => s.push_str("\\v"),
            0x20..=0x7e => s.push(c as char),
            _ => s.push_str(&format!("\\{c:03o}")),
        }
    }
    s
}

/// `name` without its trailing slashes (`/` stays `/`).
fn without_trailing_slashes(name: &[u8]) -> &[u8] {
    let mut end = name.len();
    while end > 1 && name[end - 1] == b'/' {
        end -= 1;
    }
    &name[..end]
}

/// The C library's message for an I/O error (Rust appends " (os error N)").
fn strerror(e: &io::Error) -> String {
    let s = e.to_string();
    match s.find(" (os error") {
        Some(p) => s[..p].to_string(),
        None => s,
    }
}

fn join(base: &[u8], name: &[u8]) -> Vec<u8> {
    if base.is_empty() || name.first() == Some(&b'/') {
        return name.to_vec();
    }
    let mut v = base.to_vec();
    if !v.ends_with(b"/") {
        v.push(b'/');
    }
    v.extend_from_slice(name);
    v
}

// ----- options -----

const LONG: &[(&str, bool)] = &[
    ("absolute-names", false),
    ("anchored", false),
    ("append", false),
    ("auto-compress", false),
    ("create", false),
    ("dereference", false),
    ("directory", true),
    ("exclude", true),
    ("exclude-from", true),
    ("exclude-vcs", false),
    ("exclude-vcs-ignores", false),
    ("extract", false),
    ("file", true),
    ("files-from", true),
    ("get", false),
    ("group", true),
    ("gunzip", false),
    ("gzip", false),
    ("help", false),
    ("keep-old-files", false),
    ("list", false),
    ("mode", true),
    ("mtime", true),
    ("no-anchored", false),
    ("no-recursion", false),
    ("no-same-owner", false),
    ("no-same-permissions", false),
    ("no-wildcards", false),
    ("numeric-owner", false),
    ("overwrite", false),
    ("owner", true),
    ("preserve-permissions", false),
    ("recursion", false),
    ("remove-files", false),
    ("same-owner", false),
    ("same-permissions", false),
    ("show-transformed-names", false),
    ("sort", true),
    ("strip-components", true),
    ("to-stdout", false),
    ("touch", false),
    ("transform", true),
    ("ungzip", false),
    ("update", false),
    ("verbose", false),
    ("version", false),
    ("wildcards", false),
    ("xform", true),
    ("bzip2", false),
    ("xz", false),
    ("null", false),
    ("no-null", false),
    ("warning", true),
    ("newer", true),
    ("newer-mtime", true),
    ("after-date", true),
    ("ignore-failed-read", false),
    ("overwrite-dir", false),
    ("no-overwrite-dir", false),
    ("one-file-system", false),
    ("ignore-case", false),
    ("no-ignore-case", false),
    ("wildcards-match-slash", false),
    ("no-wildcards-match-slash", false),
    ("unquote", false),
    ("no-unquote", false),
    // No effect on what is archived or printed here: device numbers are not checked, no
    // file is sparse, access times are not kept,
    // and extended attributes, ACLs and SELinux contexts are not stored.
    ("check-device", false),
    ("no-check-device", false),
    ("sparse", false),
    ("atime-preserve", false),
    ("xattrs", false),
    ("no-xattrs", false),
    ("acls", false),
    ("no-acls", false),
    ("selinux", false),
    ("no-selinux", false),
    ("delay-directory-restore", false),
    ("no-delay-directory-restore", false),
];

/// What `--exclude-vcs` leaves out: the files and directories of the version control
/// systems GNU tar 1.34 knows (CVS, RCS, SCCS, Subversion, git, Arch, Bazaar, Mercurial,
/// darcs), by name, wherever they are.
const VCS_FILES: &[&str] = &[
    "CVS",
    ".cvsignore",
    "RCS",
    "SCCS",
    ".svn",
    ".git",
    ".gitignore",
    ".gitattributes",
    ".gitmodules",
    ".arch-ids",
    "{arch}",
    "=RELEASE-ID",
    "=meta-update",
    "=update",
    ".bzr",
    ".bzrignore",
    ".bzrtags",
    ".hg",
    ".hgignore",
    ".hgtags",
    "_darcs",
];

/// The ignore files `--exclude-vcs-ignores` reads in each directory, and whether their
/// patterns also apply below it (`.cvsignore` covers only its own directory).
const VCS_IGNORE_FILES: &[(&str, bool)] = &[
    (".cvsignore", false),
    (".gitignore", true),
    (".bzrignore", true),
    (".hgignore", true),
];

/// Options GNU tar 1.34 applies only to the names after them: given after the last name of a
/// create or append, they have no effect and tar says so (and exits with 2).
const POSITIONAL: &[&str] = &[
    "anchored",
    "no-anchored",
    "ignore-case",
    "no-ignore-case",
    "wildcards",
    "no-wildcards",
    "wildcards-match-slash",
    "no-wildcards-match-slash",
    "recursion",
    "no-recursion",
    "null",
    "no-null",
    "unquote",
    "no-unquote",
];

/// Whether GNU's date parser reads `text` (`--mtime`, `--newer`): a file's name, `@SECONDS`,
/// an ISO date, or words such as `yesterday` and `2 days ago`. A bare signed count (`-60`,
/// `+1`, `-1d`) it does not, and substitutes the oldest time it can represent.
fn known_date(text: &str) -> bool {
    let t = text.trim();
    let bare_count = {
        let digits = t.trim_start_matches(['+', '-']);
        let n = digits.bytes().take_while(u8::is_ascii_digit).count();
        n > 0
            && n != 8
            && digits[n..].len() <= 1
            && digits[n..].bytes().all(|b| b.is_ascii_alphabetic())
    };
    !t.is_empty() && !bare_count
}

fn short_takes_arg(c: u8) -> bool {
    matches!(
        c,
        b'f' | b'C' | b'T' | b'X' | b'b' | b'N' | b'K' | b'V' | b'g' | b'L' | b'H'
    )
}

/// The options, or getopt's message with the warnings GNU tar printed before it: it reads
/// `--mtime` while parsing, so `--mtime +60 --datefmt=x` warns, then refuses `--datefmt`.
fn parse_command_line(args: &[Vec<u8>]) -> Result<Opts, (String, Vec<String>)> {
    let mut o = Opts::default();
    match parse_into(args, &mut o) {
        Ok(()) => Ok(o),
        Err(msg) => Err((msg, o.warnings)),
    }
}

#[cfg(test)]
fn parse_args(args: &[Vec<u8>]) -> Result<Opts, String> {
    parse_command_line(args).map_err(|(msg, _)| msg)
}

fn parse_into(args: &[Vec<u8>], o: &mut Opts) -> Result<(), String> {
    let mut words: Vec<Vec<u8>> = args.iter().skip(1).cloned().collect();
    // Old style: a first word without '-' is a cluster of option letters whose arguments
    // follow in order (`tar czf a.tgz dir`, `tar cfC a.tar dir x`).
    if let Some(first) = words.first().cloned()
        && !first.is_empty()
        && first[0] != b'-'
    {
        let mut rest: Vec<Vec<u8>> = words[1..].to_vec();
        let mut expanded: Vec<Vec<u8>> = Vec::new();
        for &c in &first {
            expanded.push(vec![b'-', c]);
            if short_takes_arg(c) {
                if rest.is_empty() {
                    return Err(usage::requires_argument(c as char));
                }
                expanded.push(rest.remove(0));
            }
        }
        expanded.extend(rest);
        words = expanded;
    }
    let mut i = 0;
    let mut only_operands = false;
    while i < words.len() {
        let w = words[i].clone();
        i += 1;
        if only_operands || w.len() < 2 || w[0] != b'-' {
            o.operands.push(Operand::Name(w));
            o.names_given += 1;
            continue;
        }
        if w == b"--" {
            only_operands = true;
            continue;
        }
        if let Some(long) = w.strip_prefix(b"--") {
            let (name, inline) = match long.iter().position(|&c| c == b'=') {
                Some(p) => (&long[..p], Some(long[p + 1..].to_vec())),
                None => (long, None),
            };
            let name = String::from_utf8_lossy(name).into_owned();
            let candidates: Vec<&(&str, bool)> =
                LONG.iter().filter(|(n, _)| n.starts_with(&name)).collect();
            let exact = LONG.iter().find(|(n, _)| *n == name);
            let (full, takes) = match (exact, candidates.as_slice()) {
                (Some(e), _) => *e,
                (None, [one]) => **one,
                (None, []) => {
                    // getopt quotes the word as typed, `=VALUE` included.
                    return Err(usage::unrecognized_option(show(&w)));
                }
                (None, _) => return Err(format!("option '--{name}' is ambiguous")),
            };
            let value = if takes {
                match inline {
                    Some(v) => Some(v),
                    None => {
                        if i >= words.len() {
                            return Err(usage::long_requires_argument(full));
                        }
                        i += 1;
                        Some(words[i - 1].clone())
                    }
                }
            } else {
                if inline.is_some() {
                    return Err(usage::long_takes_no_argument(full));
                }
                None
            };
            if POSITIONAL.contains(&full) {
                o.positional.push((full.to_string(), o.names_given));
            }
            apply_long(o, full, value)?;
            continue;
        }
        // A cluster of short options; one taking an argument ends it.
        let mut k = 1;
        while k < w.len() {
            let c = w[k];
            k += 1;
            let value = if short_takes_arg(c) {
                if k < w.len() {
                    let v = w[k..].to_vec();
                    k = w.len();
                    Some(v)
                } else if i < words.len() {
                    i += 1;
                    Some(words[i - 1].clone())
                } else {
                    return Err(usage::requires_argument(c as char));
                }
            } else {
                None
            };
            apply_short(o, c, value)?;
        }
    }
    match o.modes_given {
        0 => Err(
            "You must specify one of the '-Acdtrux', '--delete' or '--test-label' options".into(),
        ),
        _ => Ok(()),
    }
}

/// A second, different operation is refused as soon as getopt reads it (before the options
/// after it: `tar -czf a logs -c /v -mtime +1` fails on `-t`, not on `-e`).
fn set_mode(o: &mut Opts, m: Mode) -> Result<(), String> {
    if o.mode.is_some_and(|old| old != m) {
        return Err(
            "You may not specify more than one '-Acdtrux', '--delete' or  '--test-label' option"
                .into(),
        );
    }
    o.modes_given = 1;
    o.mode = Some(m);
    Ok(())
}

/// The warning GNU gives a date it cannot read, then goes on with; false after it.
fn check_date(o: &mut Opts, value: &[u8]) -> bool {
    let text = show(value);
    if !known_date(&text) {
        o.warnings.push(format!(
            "Substituting -9223372036854775807 for unknown date format '{text}'"
        ));
        return false;
    }
    true
}

/// `--mtime=DATE`: the time of a file when DATE starts with `/` or `.` (as GNU decides), else
/// the date, else, for what GNU's parser cannot read, the oldest time a `time_t` holds. `None`
/// (members keep their own times) for a file that cannot be read and for the relative dates
/// GNU reads against the clock (`2 days ago`), which this does not parse.
fn mtime_option(o: &mut Opts, value: &[u8]) -> Option<i64> {
    let text = show(value);
    if text.starts_with(['/', '.']) {
        return hostcalls::stat(&text, true)
            .ok()
            .map(|st| st.mtime_ns.div_euclid(1_000_000_000));
    }
    if !check_date(o, value) {
        return Some(i64::MIN);
    }
    let ns = crate::common::time::parse_date(&text)?;
    let (secs, frac) = (ns.div_euclid(1_000_000_000), ns.rem_euclid(1_000_000_000));
    let tm = crate::common::time::Tm::from_epoch(secs, 0);
    let mut shown = crate::common::time::strftime("%Y-%m-%d %H:%M:%S", &tm);
    if frac != 0 {
        shown.push_str(format!(".{frac:09}").trim_end_matches('0'));
    }
    // GNU reports the reading only when it is not what was written.
    if shown != text.trim() {
        o.textual_dates
            .push(format!("Option --mtime: Treating date '{text}' as {shown}"));
    }
    Some(secs)
}

fn apply_short(o: &mut Opts, c: u8, v: Option<Vec<u8>>) -> Result<(), String> {
    let v = || v.clone().unwrap_or_default();
    match c {
        b'c' => set_mode(o, Mode::Create)?,
        b'x' => set_mode(o, Mode::Extract)?,
        b't' => set_mode(o, Mode::List)?,
        b'r' | b'u' => set_mode(o, Mode::Append)?,
        b'A' | b'd' => return Err(format!("option -{} is not supported here", c as char)),
        b'z' => o.gzip = true,
        b'a' => o.auto_compress = true,
        b'j' | b'J' | b'Z' => {
            let prog = match c {
                b'j' => "bzip2",
                b'J' => "xz",
                _ => "compress",
            };
            return Err(format!("{prog}: Cannot exec: No such file or directory"));
        }
        b'v' => o.verbose += 1,
        b'f' => o.file = Some(v()),
        b'C' => o.operands.push(Operand::Dir(v())),
        b'P' => o.absolute = true,
        b'O' => o.to_stdout = true,
        b'k' => o.keep_old = true,
        b'm' => o.no_mtime = true,
        b'h' => o.dereference = true,
        b'T' => {
            o.files_from.push(v());
            o.names_given += 1;
        }
        b'N' => {
            check_date(o, &v());
        }
        b'X' => {
            let text = read_list(&v(), o.null)
                .map_err(|e| format!("{}: Cannot open: {e}", quoted(&v())))?;
            exclude(o, text, format!("exclude-from '{}'", show(&v())));
        }
        // Accepted and meaningless here: permissions/owners are always kept as root does.
        b'p' | b'o' | b'S' | b'W' | b'w' | b'B' | b'i' | b'l' | b'M' | b'U' | b's' | b'b' => {}
        _ => return Err(usage::invalid_option(c as char)),
    }
    Ok(())
}

fn apply_long(o: &mut Opts, name: &str, v: Option<Vec<u8>>) -> Result<(), String> {
    let val = || v.clone().unwrap_or_default();
    match name {
        "create" => set_mode(o, Mode::Create)?,
        "extract" | "get" => set_mode(o, Mode::Extract)?,
        "list" => set_mode(o, Mode::List)?,
        "append" | "update" => set_mode(o, Mode::Append)?,
        "null" => o.null = true,
        "no-null" => o.null = false,
        "mtime" => o.mtime = mtime_option(o, &val()),
        "newer" | "newer-mtime" | "after-date" => {
            check_date(o, &val());
        }
        "gzip" | "gunzip" | "ungzip" => o.gzip = true,
        "auto-compress" => o.auto_compress = true,
        "bzip2" => return Err("bzip2: Cannot exec: No such file or directory".into()),
        "xz" => return Err("xz: Cannot exec: No such file or directory".into()),
        "verbose" => o.verbose += 1,
        "file" => o.file = Some(val()),
        "directory" => o.operands.push(Operand::Dir(val())),
        "absolute-names" => o.absolute = true,
        "to-stdout" => o.to_stdout = true,
        "keep-old-files" => o.keep_old = true,
        "overwrite" => o.keep_old = false,
        "touch" => o.no_mtime = true,
        "dereference" => o.dereference = true,
        "remove-files" => o.remove_files = true,
        "no-recursion" => o.no_recursion = true,
        "recursion" => o.no_recursion = false,
        "wildcards" => o.wildcards = true,
        "show-transformed-names" => o.show_transformed = true,
        "numeric-owner" => o.numeric_owner = true,
        "no-wildcards" => o.wildcards = false,
        "transform" | "xform" => o.transforms.extend(Transform::parse_list(&val())?),
        "exclude" => exclude(o, vec![val()], format!("exclude '{}'", show(&val()))),
        "exclude-vcs" => exclude(
            o,
            VCS_FILES.iter().map(|n| n.as_bytes().to_vec()).collect(),
            "exclude-vcs".into(),
        ),
        "exclude-vcs-ignores" => {
            o.exclude_vcs_ignores = Some(o.names_given);
            o.positional
                .push(("exclude-vcs-ignores".into(), o.names_given));
        }
        "exclude-from" => {
            let text = read_list(&val(), o.null)
                .map_err(|e| format!("{}: Cannot open: {e}", quoted(&val())))?;
            exclude(o, text, format!("exclude-from '{}'", show(&val())));
        }
        "files-from" => {
            o.files_from.push(val());
            o.names_given += 1;
        }
        "strip-components" => {
            o.strip = std::str::from_utf8(&val())
                .ok()
                .and_then(|s| s.trim().parse().ok())
                .ok_or_else(|| format!("{}: Invalid number of elements", quoted(&val())))?;
        }
        "help" => {
            println!(
                "Usage: tar [OPTION...] [FILE]...\n\
                 GNU-compatible tar for the sandbox: -c -x -t -r, -z, -f ARCHIVE, -C DIR, -v,\n\
                 -P, -O, -k, -T FILE, -X FILE, --transform, --exclude, --strip-components."
            );
            std::process::exit(0);
        }
        "version" => {
            print!(
                "{}",
                crate::common::gnu_version(
                    "tar (GNU tar) 1.34",
                    2021,
                    "John Gilmore and Jay Fenlason"
                )
            );
            std::process::exit(0);
        }
        // Accepted for compatibility; their effect is already the default here or moot.
        _ => {}
    }
    Ok(())
}

/// Adds exclusion patterns, noting how many names came before them: like every exclusion
/// option, they apply only to the names after them (`shown` is how GNU names the option when
/// it comes too late).
fn exclude(o: &mut Opts, patterns: Vec<Vec<u8>>, shown: String) {
    o.excludes
        .extend(patterns.into_iter().map(|p| (p, o.names_given)));
    o.positional.push((shown, o.names_given));
}

/// The names in a `-T`/`-X` list: one per line, or NUL-separated with `--null`.
fn read_list(path: &[u8], null: bool) -> io::Result<Vec<Vec<u8>>> {
    let data = if path == b"-" {
        let mut v = Vec::new();
        io::stdin().read_to_end(&mut v)?;
        v
    } else {
        fs::read(path_of(path))?
    };
    let separator = if null { 0 } else { b'\n' };
    Ok(data
        .split(|&c| c == separator)
        .map(|l| {
            if null {
                l
            } else {
                l.strip_suffix(b"\r").unwrap_or(l)
            }
            .to_vec()
        })
        .filter(|l| !l.is_empty())
        .collect())
}

// ----- --transform -----

/// One sed-style `s/regex/replacement/flags` expression.
struct Transform {
    re: regex::bytes::Regex,
    repl: Vec<u8>,
    global: bool,
    nth: usize,
}

impl Transform {
    /// Parses `s/a/b/g;s,c,d,` (expressions separated by `;`).
    fn parse_list(text: &[u8]) -> Result<Vec<Transform>, String> {
        let invalid = || "Invalid transform expression".to_string();
        let mut out = Vec::new();
        let mut i = 0;
        while i < text.len() {
            if text[i] == b';' || text[i] == b' ' {
                i += 1;
                continue;
            }
            if text[i] != b's' || i + 1 >= text.len() {
                return Err(invalid());
            }
            let delim = text[i + 1];
            i += 2;
            let mut parts: Vec<Vec<u8>> = Vec::new();
            for _ in 0..2 {
                let mut part = Vec::new();
                loop {
                    let Some(&c) = text.get(i) else {
                        return Err(invalid());
                    };
                    i += 1;
                    if c == delim {
                        break;
                    }
                    if c == b'\\' && text.get(i) == Some(&delim) {
                        part.push(delim);
                        i += 1;
                        continue;
                    }
                    part.push(c);
                    if c == b'\\'
                        && let Some(&n) = text.get(i)
                    {
                        part.push(n);
                        i += 1;
                    }
                }
                parts.push(part);
            }
            let (mut global, mut icase, mut extended, mut nth) = (false, false, false, 0usize);
            while i < text.len() && text[i] != b';' {
                match text[i] {
                    b'g' => global = true,
                    b'i' => icase = true,
                    b'x' => extended = true,
                    d @ b'0'..=b'9' => nth = nth * 10 + usize::from(d - b'0'),
                    // Scope flags (which member types the expression applies to).
                    b'r' | b'R' | b's' | b'S' | b'h' | b'H' => {}
                    _ => {
                        return Err(format!(
                            "Unknown flag in transform expression: '{}'",
                            text[i] as char
                        ));
                    }
                }
                i += 1;
            }
            let pat = translate_sed_regex(&parts[0], extended);
            let re = regex::bytes::RegexBuilder::new(&pat)
                .unicode(false)
                .case_insensitive(icase)
                .size_limit(1 << 20)
                .build()
                .map_err(|_| invalid())?;
            let groups = re.captures_len() - 1;
            let repl = parts[1].clone();
            let mut k = 0;
            while k + 1 < repl.len() {
                if repl[k] == b'\\' {
                    let d = repl[k + 1];
                    if d.is_ascii_digit() && usize::from(d - b'0') > groups {
                        return Err(
                            "Invalid transform replacement: back reference out of range".into()
                        );
                    }
                    k += 2;
                } else {
                    k += 1;
                }
            }
            out.push(Transform {
                re,
                repl,
                global,
                nth,
            });
        }
        Ok(out)
    }

    fn apply(&self, name: &[u8]) -> Vec<u8> {
        let mut out = Vec::with_capacity(name.len());
        let mut last = 0;
        let mut count = 0;
        for caps in self.re.captures_iter(name) {
            let m = caps.get(0).expect("group 0 always matches");
            count += 1;
            let wanted = if self.nth > 0 {
                count == self.nth || (self.global && count > self.nth)
            } else {
                true
            };
            if !wanted {
                continue;
            }
            out.extend_from_slice(&name[last..m.start()]);
            self.expand(&caps, &mut out);
            last = m.end();
            if !self.global {
                break;
            }
        }
        out.extend_from_slice(&name[last..]);
        out
    }

    fn expand(&self, caps: &regex::bytes::Captures<'_>, out: &mut Vec<u8>) {
        let r = &self.repl;
        let mut k = 0;
        while k < r.len() {
            match r[k] {
                b'&' => {
                    out.extend_from_slice(caps.get(0).map_or(&b""[..], |m| m.as_bytes()));
                    k += 1;
                }
                b'\\' if k + 1 < r.len() => {
                    let d = r[k + 1];
                    if d.is_ascii_digit() {
                        let g = usize::from(d - b'0');
                        out.extend_from_slice(caps.get(g).map_or(&b""[..], |m| m.as_bytes()));
                    } else if d == b'n' {
                        out.push(b'\n');
                    } else {
                        out.push(d);
                    }
                    k += 2;
                }
                c => {
                    out.push(c);
                    k += 1;
                }
            }
        }
    }
}

/// A POSIX BRE (or ERE with the `x` flag), GNU flavour, in `regex` crate syntax.
fn translate_sed_regex(p: &[u8], extended: bool) -> String {
    let mut out = String::new();
    let lit = |out: &mut String, c: u8| {
        if c.is_ascii_alphanumeric() || c == b'_' || c == b'/' || c == b' ' {
            out.push(c as char);
        } else {
            out.push_str(&format!("\\x{c:02X}"));
        }
    };
    let mut i = 0;
    // Where a `*` is literal in a BRE: at the start, after `\(`, `\|` or `^`.
    let mut at_start = true;
    while i < p.len() {
        let c = p[i];
        i += 1;
        match c {
            b'[' => {
                // Copy a bracket expression, escaping what `regex` treats specially.
                out.push('[');
                if p.get(i) == Some(&b'^') {
                    out.push('^');
                    i += 1;
                }
                let mut first = true;
                while i < p.len() && (first || p[i] != b']') {
                    if p[i] == b'['
                        && matches!(p.get(i + 1), Some(b':'))
                        && let Some(end) = p[i + 2..].windows(2).position(|w| w == b":]")
                    {
                        out.push_str(&String::from_utf8_lossy(&p[i..i + 2 + end + 2]));
                        i += 2 + end + 2;
                        first = false;
                        continue;
                    }
                    let b = p[i];
                    if b == b'-' && !first && p.get(i + 1).is_some_and(|&n| n != b']') {
                        out.push('-');
                    } else {
                        lit(&mut out, b);
                    }
                    i += 1;
                    first = false;
                }
                out.push(']');
                i += 1;
                at_start = false;
            }
            b'\\' if i < p.len() => {
                let n = p[i];
                i += 1;
                if extended {
                    match n {
                        b'<' | b'>' | b'b' | b'B' | b'w' | b'W' | b's' | b'S' => {
                            out.push('\\');
                            out.push(n as char);
                        }
                        b'n' => out.push_str("\\n"),
                        b't' => out.push_str("\\t"),
                        _ => lit(&mut out, n),
                    }
                    at_start = false;
                    continue;
                }
                match n {
                    b'(' => {
                        out.push('(');
                        at_start = true;
                        continue;
                    }
                    b')' => out.push(')'),
                    b'{' => out.push('{'),
                    b'}' => out.push('}'),
                    b'|' => {
                        out.push('|');
                        at_start = true;
                        continue;
                    }
                    b'+' | b'?' => out.push(n as char),
                    b'<' | b'>' | b'b' | b'B' | b'w' | b'W' | b's' | b'S' => {
                        out.push('\\');
                        out.push(n as char);
                    }
                    b'n' => out.push_str("\\n"),
                    b't' => out.push_str("\\t"),
                    _ => lit(&mut out, n),
                }
                at_start = false;
            }
            b'*' if at_start && !extended => {
                lit(&mut out, b'*');
                at_start = false;
            }
            b'^' => {
                out.push('^');
                at_start = true;
                continue;
            }
            b'$' | b'.' | b'*' => {
                out.push(c as char);
                at_start = false;
            }
            b'(' | b')' | b'|' | b'+' | b'?' | b'{' | b'}' if extended => {
                out.push(c as char);
                at_start = c == b'(' || c == b'|';
            }
            _ => {
                lit(&mut out, c);
                at_start = false;
            }
        }
    }
    out
}

// ----- wildcard matching for --exclude and --wildcards -----

/// fnmatch(3) without flags: `*` and `?` also match `/`.
fn fnmatch(pat: &[u8], s: &[u8]) -> bool {
    let (mut p, mut t) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    while t < s.len() {
        if p < pat.len() {
            match pat[p] {
                b'*' => {
                    star = Some((p, t));
                    p += 1;
                    continue;
                }
                b'?' => {
                    p += 1;
                    t += 1;
                    continue;
                }
                b'[' => {
                    if let Some((ok, next)) = bracket(&pat[p..], s[t]) {
                        if ok {
                            p += next;
                            t += 1;
                            continue;
                        }
                    } else if s[t] == b'[' {
                        p += 1;
                        t += 1;
                        continue;
                    }
                }
                b'\\' if p + 1 < pat.len() => {
                    if pat[p + 1] == s[t] {
                        p += 2;
                        t += 1;
                        continue;
                    }
                }
                c => {
                    if c == s[t] {
                        p += 1;
                        t += 1;
                        continue;
                    }
                }
            }
        }
        match star {
            Some((sp, st)) => {
                p = sp + 1;
                t = st + 1;
                star = Some((sp, st + 1));
            }
            None => return false,
        }
    }
    while p < pat.len() && pat[p] == b'*' {
        p += 1;
    }
    p == pat.len()
}

/// Matches `c` against the bracket expression at the start of `pat`: (matched, length).
fn bracket(pat: &[u8], c: u8) -> Option<(bool, usize)> {
    let mut i = 1;
    let negate = matches!(pat.get(i), Some(b'!' | b'^'));
    if negate {
        i += 1;
    }
    let mut matched = false;
    let mut first = true;
    loop {
        let &b = pat.get(i)?;
        if b == b']' && !first {
            return Some((matched != negate, i + 1));
        }
        first = false;
        if b == b'[' && pat.get(i + 1) == Some(&b':') {
            let end = pat[i + 2..].windows(2).position(|w| w == b":]")?;
            let class = &pat[i + 2..i + 2 + end];
            matched |= match class {
                b"alpha" => c.is_ascii_alphabetic(),
                b"digit" => c.is_ascii_digit(),
                b"alnum" => c.is_ascii_alphanumeric(),
                b"upper" => c.is_ascii_uppercase(),
                b"lower" => c.is_ascii_lowercase(),
                b"space" => c.is_ascii_whitespace() || c == 0x0b,
                b"punct" => c.is_ascii_punctuation(),
                b"xdigit" => c.is_ascii_hexdigit(),
                _ => false,
            };
            i += 2 + end + 2;
            continue;
        }
        if pat.get(i + 1) == Some(&b'-') && pat.get(i + 2).is_some_and(|&h| h != b']') {
            let hi = pat[i + 2];
            matched |= b <= c && c <= hi;
            i += 3;
        } else {
            matched |= b == c;
            i += 1;
        }
    }
}

impl Tar {
    /// A message on stderr. GNU tar reports through gnulib's `error`, which flushes stdout
    /// first: a listing printed before the message reaches a shared pipe before it.
    fn msg(&mut self, m: impl AsRef<str>) {
        crate::common::io::report(&mut *self.out, &mut *self.err, "tar", m.as_ref());
    }

    fn error(&mut self, m: impl AsRef<str>) {
        self.msg(m);
        self.status = 2;
    }

    /// What GNU's gzip child says when it cannot open the archive (with -z the child opens it).
    fn child_cannot_open(&mut self, file: &[u8], e: &io::Error) {
        let _ = writeln!(
            self.err,
            "tar (child): {}: Cannot open: {}\n\
             tar (child): Error is not recoverable: exiting now",
            quoted(file),
            strerror(e)
        );
    }

    fn fatal(&mut self, m: impl AsRef<str>) -> Fatal {
        self.msg(m);
        self.msg("Error is not recoverable: exiting now");
        Fatal
    }

    /// Where verbose output goes: stderr when stdout carries the archive or file data.
    fn verbose_to_stderr(&self) -> bool {
        let archive_on_stdout = matches!(self.opts.file.as_deref(), None | Some(b"-"))
            && matches!(self.opts.mode, Some(Mode::Create) | Some(Mode::Append));
        archive_on_stdout || self.opts.to_stdout
    }

    fn verbose_line(&mut self, line: &[u8]) {
        if self.verbose_to_stderr() {
            let _ = self.err.write_all(line);
            let _ = self.err.write_all(b"\n");
        } else {
            let _ = self.out.write_all(line);
            let _ = self.out.write_all(b"\n");
        }
    }

    fn excluded(&self, name: &[u8]) -> bool {
        if self.opts.excludes.is_empty() {
            return false;
        }
        let name = name.strip_suffix(b"/").unwrap_or(name);
        // Unanchored: the pattern may match the whole name or any tail after a '/'.
        let mut tails = vec![name];
        for (i, &c) in name.iter().enumerate() {
            if c == b'/' && i + 1 < name.len() {
                tails.push(&name[i + 1..]);
            }
        }
        // Names are matched without their trailing `/`, so a pattern ending in `/` matches
        // nothing (GNU tar 1.34: `--exclude='dir/'` keeps `dir`).
        self.opts
            .excludes
            .iter()
            .any(|(p, _)| tails.iter().any(|t| fnmatch(p, t)))
    }

    /// With `--exclude-vcs-ignores`, reads the ignore files of directory `path` onto the
    /// pattern stack; how many levels it pushed.
    fn enter_vcs_ignores(&mut self, path: &[u8]) -> usize {
        if self.opts.exclude_vcs_ignores.is_none() {
            return 0;
        }
        let mut pushed = 0;
        for &(file, recursive) in VCS_IGNORE_FILES {
            let Ok(text) = fs::read(path_of(&join(path, file.as_bytes()))) else {
                continue;
            };
            let patterns: Vec<Vec<u8>> = text
                .split(|&c| c == b'\n')
                .map(|l| l.strip_suffix(b"\r").unwrap_or(l))
                .filter(|l| !l.is_empty() && l[0] != b'#')
                .map(|l| l.strip_suffix(b"/").unwrap_or(l).to_vec())
                .collect();
            self.vcs_ignored.push((patterns, recursive));
            pushed += 1;
        }
        pushed
    }

    /// Whether an entry of the current directory is ignored: by its own directory's ignore
    /// files (the last `own_levels` of the stack) or by a recursive one further up.
    fn vcs_ignores(&self, name: &[u8], own_levels: usize) -> bool {
        let outer = self.vcs_ignored.len() - own_levels;
        self.vcs_ignored
            .iter()
            .enumerate()
            .filter(|(level, (_, recursive))| *level >= outer || *recursive)
            .any(|(_, (patterns, _))| patterns.iter().any(|p| fnmatch(p, name)))
    }

    fn transform(&self, name: &[u8]) -> Vec<u8> {
        let mut n = name.to_vec();
        for t in &self.opts.transforms {
            n = t.apply(&n);
        }
        n
    }

    /// Member name for a file given as `name`: leading `/` (and `../`) removed unless -P.
    fn member_name(&mut self, name: &[u8]) -> Vec<u8> {
        let mut n: &[u8] = name;
        let slashes = leading_slashes(n);
        if !self.opts.absolute {
            n = &n[slashes.len()..];
            self.warn_leading_slashes(slashes, false);
            let mut dotdot = false;
            while n.starts_with(b"../") {
                n = &n[3..];
                dotdot = true;
            }
            if dotdot && !self.warned_dotdot {
                self.warned_dotdot = true;
                self.msg("Removing leading `../' from member names");
            }
            if n.is_empty() {
                n = b".";
            }
        }
        n.to_vec()
    }

    /// GNU's notice for a removed run of leading slashes, once per distinct run (and
    /// separately for member names and hard link targets).
    fn warn_leading_slashes(&mut self, slashes: &[u8], link_target: bool) {
        let (warned, what) = if link_target {
            (&mut self.warned_link_slashes, "hard link targets")
        } else {
            (&mut self.warned_slashes, "member names")
        };
        if slashes.is_empty() || warned.iter().any(|w| w == slashes) {
            return;
        }
        warned.push(slashes.to_vec());
        self.msg(format!("Removing leading `{}' from {what}", show(slashes)));
    }
}

// ----- writing -----

/// A time field: octal, or GNU's base-256 in two's complement for a time before 1970.
fn signed_number(field: &mut [u8], v: i64) {
    if v >= 0 {
        return octal(field, v as u64);
    }
    field.fill(0xff);
    let bytes = v.to_be_bytes();
    let flen = field.len();
    field[flen - 8..].copy_from_slice(&bytes);
}

fn octal(field: &mut [u8], v: u64) {
    // N-1 octal digits and a NUL, or GNU's base-256 when the value does not fit.
    let digits = field.len() - 1;
    let s = format!("{v:0digits$o}");
    if s.len() > digits {
        field.fill(0);
        field[0] = 0x80;
        let bytes = v.to_be_bytes();
        let n = field.len().min(8);
        let flen = field.len();
        field[flen - n..].copy_from_slice(&bytes[8 - n..]);
        return;
    }
    field[..digits].copy_from_slice(s.as_bytes());
    field[digits] = 0;
}

struct HeaderSpec<'a> {
    name: &'a [u8],
    mode: u32,
    size: u64,
    mtime: i64,
    kind: u8,
    link: &'a [u8],
}

fn gnu_header(h: &HeaderSpec<'_>) -> [u8; BLOCK] {
    let mut b = [0u8; BLOCK];
    let n = h.name.len().min(100);
    b[..n].copy_from_slice(&h.name[..n]);
    octal(&mut b[100..108], u64::from(h.mode & 0o7777));
    octal(&mut b[108..116], 0);
    octal(&mut b[116..124], 0);
    octal(&mut b[124..136], h.size);
    signed_number(&mut b[136..148], h.mtime);
    b[156] = h.kind;
    let l = h.link.len().min(100);
    b[157..157 + l].copy_from_slice(&h.link[..l]);
    b[257..265].copy_from_slice(b"ustar  \0");
    b[265..269].copy_from_slice(b"root");
    b[297..301].copy_from_slice(b"root");
    b[148..156].fill(b' ');
    let sum: u32 = b.iter().map(|&c| u32::from(c)).sum();
    let s = format!("{sum:06o}\0 ");
    b[148..156].copy_from_slice(s.as_bytes());
    b
}

/// Counts bytes so the archive can be padded to a full record.
struct Counting<W: Write> {
    inner: W,
    n: u64,
}

impl<W: Write> Write for Counting<W> {
    fn write(&mut self, d: &[u8]) -> io::Result<usize> {
        let k = self.inner.write(d)?;
        self.n += k as u64;
        Ok(k)
    }
    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }
}

fn write_entry(
    w: &mut dyn Write,
    h: &HeaderSpec<'_>,
    data: Option<&mut dyn Read>,
) -> io::Result<()> {
    // Names longer than the 100-byte field go first in a `././@LongLink` pseudo-entry.
    for (kind, long) in [(b'K', h.link), (b'L', h.name)] {
        if long.len() > 100 {
            let spec = HeaderSpec {
                name: b"././@LongLink",
                mode: 0o644,
                size: long.len() as u64 + 1,
                mtime: 0,
                kind,
                link: b"",
            };
            w.write_all(&gnu_header(&spec))?;
            let mut data = long.to_vec();
            data.push(0);
            let pad = (BLOCK - data.len() % BLOCK) % BLOCK;
            data.resize(data.len() + pad, 0);
            w.write_all(&data)?;
        }
    }
    w.write_all(&gnu_header(h))?;
    if let Some(r) = data {
        let mut left = h.size;
        let mut buf = vec![0u8; 64 * 1024];
        while left > 0 {
            let want = (left as usize).min(buf.len());
            let got = r.read(&mut buf[..want])?;
            if got == 0 {
                // The file shrank while we read it: pad with zeros, as GNU does.
                buf[..want].fill(0);
                w.write_all(&buf[..want])?;
                left -= want as u64;
                continue;
            }
            w.write_all(&buf[..got])?;
            left -= got as u64;
        }
        let pad = ((BLOCK as u64 - h.size % BLOCK as u64) % BLOCK as u64) as usize;
        w.write_all(&vec![0u8; pad])?;
    }
    Ok(())
}

struct Archiver<'a> {
    w: Counting<Box<dyn Write + 'a>>,
    /// (dev, ino) of regular files already stored → their member name.
    seen: std::collections::HashMap<(u64, u64), Vec<u8>>,
    archive_id: Option<(u64, u64)>,
    /// GNU's `trivial_link_count`: with one operand only files with more than one link are
    /// remembered for hard-link detection; with several, every file is.
    trivial_links: u64,
}

impl Tar {
    /// GNU 1.34's complaint about positional options after the last name of a create.
    fn positional_without_effect(&mut self) {
        if !matches!(self.opts.mode, Some(Mode::Create) | Some(Mode::Append)) {
            return;
        }
        let last = self.opts.names_given;
        let late: Vec<String> = self
            .opts
            .positional
            .iter()
            .filter(|(_, before)| *before == last && last > 0)
            .map(|(name, _)| name.clone())
            .collect();
        if late.is_empty() {
            return;
        }
        self.msg(
            "The following options were used after any non-optional arguments in archive \
             create or update mode.  These options are positional and affect only arguments \
             that follow them.  Please, rearrange them properly.",
        );
        for name in late {
            self.msg(format!("--{name} has no effect"));
        }
        self.status = 2;
    }

    fn create(&mut self) -> TResult<()> {
        let append = self.opts.mode == Some(Mode::Append);
        // Exclusions given after the last name exclude nothing (GNU says so at the end).
        let names = self.opts.names_given;
        if names > 0 {
            self.opts.excludes.retain(|(_, before)| *before < names);
            self.opts.exclude_vcs_ignores = self.opts.exclude_vcs_ignores.filter(|b| *b < names);
        }
        // Names from -T files are added after the command-line operands.
        for f in self.opts.files_from.clone() {
            match read_list(&f, self.opts.null) {
                Ok(names) => self
                    .opts
                    .operands
                    .extend(names.into_iter().map(Operand::Name)),
                Err(e) => {
                    return Err(self.fatal(format!(
                        "{}: Cannot open: {}",
                        quoted(&f),
                        strerror(&e)
                    )));
                }
            }
        }
        // A `-T` list that names nothing still makes an (empty) archive.
        if !self
            .opts
            .operands
            .iter()
            .any(|o| matches!(o, Operand::Name(_)))
            && !append
            && self.opts.files_from.is_empty()
        {
            let _ = writeln!(
                self.err,
                "tar: Cowardly refusing to create an empty archive"
            );
            let _ = writeln!(
                self.err,
                "Try 'tar --help' or 'tar --usage' for more information."
            );
            return Err(Fatal);
        }
        let file = self.opts.file.clone().unwrap_or_else(|| b"-".to_vec());
        let name_gz = file.ends_with(b".gz") || file.ends_with(b".tgz") || file.ends_with(b".taz");
        let gzip = self.opts.gzip || (self.opts.auto_compress && name_gz);
        let to_stdout = file == b"-";
        let mut archive_id = None;
        let mut child_failed = false;
        // Bytes already in the archive (for -r): the padding aligns the whole file.
        let mut already = 0u64;
        let sink: Box<dyn Write> = if to_stdout {
            Box::new(io::stdout())
        } else if append {
            if gzip {
                return Err(self.fatal("Cannot update compressed archives"));
            }
            let path = path_of(&file);
            let end = match archive_end(&path) {
                Ok(e) => e,
                Err(e) => {
                    return Err(self.fatal(format!(
                        "{}: Cannot open: {}",
                        quoted(&file),
                        strerror(&e)
                    )));
                }
            };
            let f = match fs::OpenOptions::new().read(true).write(true).open(&path) {
                Ok(f) => f,
                Err(e) => {
                    return Err(self.fatal(format!(
                        "{}: Cannot open: {}",
                        quoted(&file),
                        strerror(&e)
                    )));
                }
            };
            if f.set_len(end).is_err() {
                return Err(self.fatal(format!("{}: Cannot truncate", quoted(&file))));
            }
            already = end;
            let mut f = f;
            use std::io::Seek;
            if f.seek(io::SeekFrom::Start(end)).is_err() {
                return Err(self.fatal(format!("{}: Cannot seek", quoted(&file))));
            }
            Box::new(io::BufWriter::new(f))
        } else {
            match fs::File::create(path_of(&file)) {
                Ok(f) => {
                    if let Ok(st) = hostcalls::stat(&show(&file), true) {
                        archive_id = Some((st.dev, st.ino));
                    }
                    Box::new(io::BufWriter::with_capacity(64 * 1024, f))
                }
                Err(e) if gzip => {
                    // GNU opens a compressed archive in its gzip child, which fails while the
                    // parent goes on reading the files (and saying so) into the dead pipe.
                    if let Some(Operand::Name(first)) = self
                        .opts
                        .operands
                        .iter()
                        .find(|o| matches!(o, Operand::Name(_)))
                    {
                        let first = first.clone();
                        self.member_name(&first);
                    }
                    self.child_cannot_open(&file, &e);
                    child_failed = true;
                    Box::new(io::sink())
                }
                Err(e) => {
                    return Err(self.fatal(format!(
                        "{}: Cannot open: {}",
                        quoted(&file),
                        strerror(&e)
                    )));
                }
            }
        };
        let sink: Box<dyn Write> = if gzip {
            Box::new(crate::common::deflate::GzipWriter::new(sink, 6))
        } else {
            sink
        };
        let mut ar = Archiver {
            w: Counting {
                inner: sink,
                n: already,
            },
            seen: std::collections::HashMap::new(),
            archive_id,
            trivial_links: 0,
        };
        let names = self
            .opts
            .operands
            .iter()
            .filter(|o| matches!(o, Operand::Name(_)))
            .count();
        if names <= 1 && !self.opts.dereference {
            ar.trivial_links = 1;
        }
        let mut base: Vec<u8> = Vec::new();
        let operands = std::mem::take(&mut self.opts.operands);
        for op in &operands {
            match op {
                Operand::Dir(d) => {
                    base = join(&base, d);
                    self.check_dir(&base, d)?;
                }
                Operand::Name(n) => {
                    // GNU drops a name's trailing slashes first: `logs/` is archived, and
                    // reported missing, as `logs`; `link/` archives the link itself.
                    let n = without_trailing_slashes(n);
                    let path = join(&base, n);
                    if let Err(e) = self.add(&mut ar, &path, n) {
                        if e.kind() == io::ErrorKind::BrokenPipe {
                            return Err(Fatal);
                        }
                        return Err(self.fatal(format!("write error: {}", strerror(&e))));
                    }
                }
            }
        }
        // Two zero blocks end the archive; then pad the last record.
        let r = (|| -> io::Result<()> {
            ar.w.write_all(&[0u8; 2 * BLOCK])?;
            let used = (ar.w.n % RECORD as u64) as usize;
            if used != 0 {
                ar.w.write_all(&vec![0u8; RECORD - used])?;
            }
            ar.w.flush()
        })();
        if let Err(e) = r {
            return Err(self.fatal(format!("write error: {}", strerror(&e))));
        }
        // Finish the gzip stream (the encoder writes its trailer on drop otherwise silently).
        drop(ar);
        if child_failed {
            return Err(self.fatal("Child returned status 2"));
        }
        Ok(())
    }

    /// Adds `path` (shown to the user as `shown`) and, for a directory, its contents.
    fn add(&mut self, ar: &mut Archiver<'_>, path: &[u8], shown: &[u8]) -> io::Result<()> {
        if self.excluded(shown) {
            return Ok(());
        }
        // GNU names the member (and says it removed a leading `/`) before it looks at the file,
        // so the notice comes even when the file is missing.
        let member = self.member_name(shown);
        let spath = show(path);
        let st = match hostcalls::stat(&spath, self.opts.dereference) {
            Ok(s) => s,
            Err(e) => {
                self.error(format!("{}: Cannot stat: {}", quoted(shown), strerror(&e)));
                return Ok(());
            }
        };
        if ar.archive_id == Some((st.dev, st.ino)) && st.is_file() {
            self.msg(format!(
                "{}: file is the archive; not dumped",
                quoted(shown)
            ));
            return Ok(());
        }
        let member = self.transform(member.strip_suffix(b"/").unwrap_or(&member));
        let mtime = self
            .opts
            .mtime
            .unwrap_or(st.mtime_ns.div_euclid(1_000_000_000));
        let mode = st.permissions();
        if st.is_dir() {
            let mut name = member.clone();
            if !name.ends_with(b"/") {
                name.push(b'/');
            }
            let mut shown_dir = shown.to_vec();
            if !shown_dir.ends_with(b"/") {
                shown_dir.push(b'/');
            }
            self.announce(&shown_dir, &name, &st, None);
            let h = HeaderSpec {
                name: &name,
                mode,
                size: 0,
                mtime,
                kind: b'5',
                link: b"",
            };
            write_entry(&mut ar.w, &h, None)?;
            if self.opts.no_recursion {
                return Ok(());
            }
            let mut entries: Vec<Vec<u8>> = match fs::read_dir(path_of(path)) {
                Ok(rd) => rd
                    .filter_map(|e| e.ok())
                    .map(|e| os_bytes(&e.file_name()))
                    .collect(),
                Err(e) => {
                    self.error(format!("{}: Cannot open: {}", quoted(shown), strerror(&e)));
                    return Ok(());
                }
            };
            entries.sort();
            let ignore_levels = self.enter_vcs_ignores(path);
            for e in entries {
                if self.vcs_ignores(&e, ignore_levels) {
                    continue;
                }
                let child_path = join(path, &e);
                let child_shown = join(shown, &e);
                self.add(ar, &child_path, &child_shown)?;
            }
            self.vcs_ignored
                .truncate(self.vcs_ignored.len() - ignore_levels);
            if self.opts.remove_files {
                let _ = fs::remove_dir(path_of(path));
            }
            return Ok(());
        }
        if st.is_symlink() {
            let target = match hostcalls::read_link(path_of(path)) {
                Ok(t) => path_bytes(&t),
                Err(e) => {
                    self.error(format!(
                        "{}: Cannot readlink: {}",
                        quoted(shown),
                        strerror(&e)
                    ));
                    return Ok(());
                }
            };
            self.announce(shown, &member, &st, Some((b'2', &target)));
            let h = HeaderSpec {
                name: &member,
                mode,
                size: 0,
                mtime,
                kind: b'2',
                link: &target,
            };
            write_entry(&mut ar.w, &h, None)?;
            if self.opts.remove_files {
                let _ = fs::remove_file(path_of(path));
            }
            return Ok(());
        }
        if !st.is_file() {
            self.msg(format!("{}: socket ignored", quoted(shown)));
            return Ok(());
        }
        if let Some(first) = ar.seen.get(&(st.dev, st.ino)).cloned() {
            // Already archived (a hard link, or the same file named twice): GNU stores a
            // link to the first copy.
            self.announce(shown, &member, &st, Some((b'1', &first)));
            let h = HeaderSpec {
                name: &member,
                mode,
                size: 0,
                mtime,
                kind: b'1',
                link: &first,
            };
            write_entry(&mut ar.w, &h, None)?;
            return Ok(());
        }
        let mut f = match fs::File::open(path_of(path)) {
            Ok(f) => f,
            Err(e) => {
                self.error(format!("{}: Cannot open: {}", quoted(shown), strerror(&e)));
                return Ok(());
            }
        };
        self.announce(shown, &member, &st, None);
        let h = HeaderSpec {
            name: &member,
            mode,
            size: st.size,
            mtime,
            kind: b'0',
            link: b"",
        };
        write_entry(&mut ar.w, &h, Some(&mut f))?;
        if st.nlink > ar.trivial_links {
            // GNU prepares the file's name as a future link target right away, and that is
            // when it reports stripping its '/' (so with several operands the notice shows
            // up even when no hard link is ever stored).
            if !self.opts.absolute {
                self.warn_leading_slashes(leading_slashes(shown), true);
            }
            ar.seen.insert((st.dev, st.ino), member.clone());
        }
        if self.opts.remove_files {
            let _ = fs::remove_file(path_of(path));
        }
        Ok(())
    }

    /// `-v` on create: the name as given (dirs with '/'); `-vv`: the long listing.
    fn announce(
        &mut self,
        shown: &[u8],
        _member: &[u8],
        st: &hostcalls::Stat,
        link: Option<(u8, &[u8])>,
    ) {
        match self.opts.verbose {
            0 => {}
            1 => self.verbose_line(shown),
            _ => {
                let kind = if st.is_dir() {
                    b'5'
                } else {
                    link.map_or(b'0', |(k, _)| k)
                };
                let size = if kind == b'0' { st.size } else { 0 };
                let info = ListInfo {
                    kind,
                    mode: st.permissions(),
                    uname: b"root",
                    gname: b"root",
                    size,
                    mtime: self
                        .opts
                        .mtime
                        .unwrap_or(st.mtime_ns.div_euclid(1_000_000_000)),
                    // GNU lists the name as given (`/system/x`), not the member's.
                    name: shown,
                    link: link.map_or(&b""[..], |(_, l)| l),
                };
                let line = self.long_line(&info);
                self.verbose_line(&line);
            }
        }
    }
}

/// The offset of the end-of-archive marker of an existing archive (for -r).
fn archive_end(path: &Path) -> io::Result<u64> {
    let mut f = io::BufReader::new(fs::File::open(path)?);
    let mut pos = 0u64;
    let mut block = [0u8; BLOCK];
    loop {
        if !read_block(&mut f, &mut block)? {
            return Ok(pos);
        }
        if block.iter().all(|&c| c == 0) {
            return Ok(pos);
        }
        let size = parse_num(&block[124..136]);
        let kind = block[156];
        let data = if matches!(kind, b'1' | b'2' | b'3' | b'4' | b'5' | b'6') {
            0
        } else {
            size.div_ceil(BLOCK as u64) * BLOCK as u64
        };
        pos += BLOCK as u64;
        io::copy(&mut (&mut f).take(data), &mut io::sink())?;
        pos += data;
    }
}

// ----- reading -----

/// The archive being read, with the bytes read so far (to find the end of a record).
struct Counted {
    inner: Box<dyn Read>,
    bytes: u64,
}

impl Read for Counted {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.bytes += n as u64;
        Ok(n)
    }
}

/// Reads exactly one block; false at a clean end of input. A partial block is an error.
fn read_block(r: &mut dyn Read, b: &mut [u8; BLOCK]) -> io::Result<bool> {
    let mut got = 0;
    while got < BLOCK {
        match r.read(&mut b[got..]) {
            Ok(0) => break,
            Ok(n) => got += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    if got == 0 {
        return Ok(false);
    }
    if got < BLOCK {
        return Err(io::Error::new(io::ErrorKind::UnexpectedEof, "short block"));
    }
    Ok(true)
}

/// A time field, which GNU writes in base-256 two's complement when negative.
fn parse_signed(f: &[u8]) -> i64 {
    if f.first() == Some(&0xff) {
        return f
            .iter()
            .skip(f.len().saturating_sub(8))
            .fold(0i64, |v, &c| (v << 8) | i64::from(c));
    }
    parse_num(f) as i64
}

fn parse_num(f: &[u8]) -> u64 {
    if f.first().is_some_and(|&c| c & 0x80 != 0) {
        // GNU base-256.
        let mut v: u64 = u64::from(f[0] & 0x7f);
        for &c in &f[1..] {
            v = v.wrapping_shl(8) | u64::from(c);
        }
        return v;
    }
    let mut v = 0u64;
    for &c in f {
        match c {
            b'0'..=b'7' => v = v.wrapping_mul(8).wrapping_add(u64::from(c - b'0')),
            b' ' if v == 0 => {}
            _ => break,
        }
    }
    v
}

fn cstr(f: &[u8]) -> &[u8] {
    let end = f.iter().position(|&c| c == 0).unwrap_or(f.len());
    &f[..end]
}

fn checksum_ok(b: &[u8; BLOCK]) -> bool {
    let stored = parse_num(&b[148..156]);
    let mut unsigned: u64 = 0;
    let mut signed: i64 = 0;
    for (i, &c) in b.iter().enumerate() {
        let c = if (148..156).contains(&i) { b' ' } else { c };
        unsigned += u64::from(c);
        signed += i64::from(c as i8);
    }
    stored == unsigned || stored as i64 == signed
}

struct Member {
    name: Vec<u8>,
    link: Vec<u8>,
    kind: u8,
    mode: u32,
    size: u64,
    mtime: i64,
    uname: Vec<u8>,
    gname: Vec<u8>,
    uid: u64,
    gid: u64,
}

struct ListInfo<'a> {
    kind: u8,
    mode: u32,
    uname: &'a [u8],
    gname: &'a [u8],
    size: u64,
    mtime: i64,
    name: &'a [u8],
    link: &'a [u8],
}

fn mode_string(kind: u8, mode: u32) -> String {
    let t = match kind {
        b'5' => 'd',
        b'2' => 'l',
        b'1' => 'h',
        b'3' => 'c',
        b'4' => 'b',
        b'6' => 'p',
        _ => '-',
    };
    let mut s = String::with_capacity(10);
    s.push(t);
    let bits = [
        (0o400, 'r'),
        (0o200, 'w'),
        (0o100, 'x'),
        (0o040, 'r'),
        (0o020, 'w'),
        (0o010, 'x'),
        (0o004, 'r'),
        (0o002, 'w'),
        (0o001, 'x'),
    ];
    for (i, (bit, c)) in bits.iter().enumerate() {
        let on = mode & bit != 0;
        let special = match i {
            2 => mode & 0o4000 != 0,
            5 => mode & 0o2000 != 0,
            8 => mode & 0o1000 != 0,
            _ => false,
        };
        s.push(match (on, special, i) {
            (true, true, 8) => 't',
            (false, true, 8) => 'T',
            (true, true, _) => 's',
            (false, true, _) => 'S',
            (true, false, _) => *c,
            (false, false, _) => '-',
        });
    }
    s
}

impl Tar {
    fn long_line(&mut self, i: &ListInfo<'_>) -> Vec<u8> {
        let ug = format!("{}/{}", show(i.uname), show(i.gname));
        let size = i.size.to_string();
        if ug.len() + 1 + size.len() > self.ugswidth {
            self.ugswidth = ug.len() + 1 + size.len();
        }
        let w = self.ugswidth;
        let days = i.mtime.div_euclid(86_400);
        let secs = i.mtime.rem_euclid(86_400);
        let (y, m, d) = time::civil_from_days(days);
        // A year C's `struct tm` cannot hold (GNU's oldest time, from `--mtime=+60`): GNU
        // shows the seconds themselves.
        let tm_year = y - 1900;
        let date = if tm_year < i64::from(i32::MIN) || tm_year > i64::from(i32::MAX) {
            i.mtime.to_string()
        } else {
            format!(
                "{y:04}-{m:02}-{d:02} {:02}:{:02}",
                secs / 3600,
                secs % 3600 / 60
            )
        };
        let mut line = format!(
            "{} {}{:>width$} {date} ",
            mode_string(i.kind, i.mode),
            ug,
            size,
            width = w - ug.len()
        )
        .into_bytes();
        line.extend_from_slice(i.name);
        match i.kind {
            b'2' => {
                line.extend_from_slice(b" -> ");
                line.extend_from_slice(i.link);
            }
            b'1' => {
                line.extend_from_slice(b" link to ");
                line.extend_from_slice(i.link);
            }
            _ => {}
        }
        line
    }

    /// Opens the archive for reading, undoing gzip when asked or detected.
    fn open_input(&mut self) -> TResult<Box<dyn Read>> {
        let file = self.opts.file.clone().unwrap_or_else(|| b"-".to_vec());
        let from_stdin = file == b"-";
        let mut raw: Box<dyn Read> = if from_stdin {
            Box::new(io::stdin())
        } else {
            match fs::File::open(path_of(&file)) {
                Ok(f) => Box::new(f),
                // With -z GNU opens the archive in its gzip child, which reports the failure,
                // and the parent reports the child's status.
                Err(e) if self.opts.gzip => {
                    let _ = self.out.flush();
                    self.child_cannot_open(&file, &e);
                    return Err(self.fatal("Child returned status 2"));
                }
                Err(e) => {
                    return Err(self.fatal(format!(
                        "{}: Cannot open: {}",
                        quoted(&file),
                        strerror(&e)
                    )));
                }
            }
        };
        // Peek at the magic number.
        let mut head = [0u8; 2];
        let mut got = 0;
        while got < 2 {
            match raw.read(&mut head[got..]) {
                Ok(0) => break,
                Ok(n) => got += n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => {
                    let what = if from_stdin {
                        "stdin".into()
                    } else {
                        quoted(&file)
                    };
                    return Err(self.fatal(format!("{what}: Read error: {}", strerror(&e))));
                }
            }
        }
        let is_gz = got == 2 && head == [0x1f, 0x8b];
        let stream: Box<dyn Read> = Box::new(io::Cursor::new(head[..got].to_vec()).chain(raw));
        if self.opts.gzip || (is_gz && !from_stdin) {
            if !is_gz {
                let _ = writeln!(self.err, "\ngzip: stdin: not in gzip format");
                self.msg("Child returned status 1");
                return Err(self.fatal_quiet());
            }
            return Ok(Box::new(GzRead {
                inner: flate2::read::MultiGzDecoder::new(io::BufReader::new(stream)),
            }));
        }
        if is_gz {
            return Err(self.fatal("Archive is compressed. Use -z option"));
        }
        Ok(Box::new(io::BufReader::with_capacity(64 * 1024, stream)))
    }

    /// `-C DIR` must name a directory (GNU: "Cannot open", fatal).
    fn check_dir(&mut self, path: &[u8], shown: &[u8]) -> TResult<()> {
        match fs::metadata(path_of(path)) {
            Ok(m) if m.is_dir() => Ok(()),
            Ok(_) => Err(self.fatal(format!("{}: Cannot open: Not a directory", quoted(shown)))),
            Err(e) => Err(self.fatal(format!("{}: Cannot open: {}", quoted(shown), strerror(&e)))),
        }
    }

    fn fatal_quiet(&mut self) -> Fatal {
        self.msg("Error is not recoverable: exiting now");
        Fatal
    }

    fn read_archive(&mut self) -> TResult<()> {
        let mut input = Counted {
            inner: self.open_input()?,
            bytes: 0,
        };
        let mut base: Vec<u8> = Vec::new();
        let mut names: Vec<(Vec<u8>, bool)> = Vec::new();
        for op in std::mem::take(&mut self.opts.operands) {
            match op {
                Operand::Dir(d) => {
                    base = join(&base, &d);
                    if self.opts.mode == Some(Mode::Extract) && !self.opts.to_stdout {
                        self.check_dir(&base, &d)?;
                    }
                }
                Operand::Name(n) => names.push((n, false)),
            }
        }
        for f in self.opts.files_from.clone() {
            match read_list(&f, self.opts.null) {
                Ok(list) => names.extend(list.into_iter().map(|n| (n, false))),
                Err(e) => {
                    return Err(self.fatal(format!(
                        "{}: Cannot open: {}",
                        quoted(&f),
                        strerror(&e)
                    )));
                }
            }
        }
        let mut dirs: Vec<(PathBuf, u32, i64)> = Vec::new();
        let mut first = true;
        let mut block = [0u8; BLOCK];
        let mut long_name: Option<Vec<u8>> = None;
        let mut long_link: Option<Vec<u8>> = None;
        let mut pax: Vec<(Vec<u8>, Vec<u8>)> = Vec::new();
        loop {
            match read_block(&mut input, &mut block) {
                Ok(true) => {}
                Ok(false) => {
                    if first {
                        self.error("This does not look like a tar archive");
                    }
                    break;
                }
                Err(e) => {
                    if first {
                        self.error("This does not look like a tar archive");
                        break;
                    }
                    return Err(self.eof_error(&e));
                }
            }
            if block.iter().all(|&c| c == 0) {
                // GNU reads whole records: the writer's padding after the end-of-archive
                // blocks is read too, so a writer on the other end of a pipe never finds it
                // closed (`tar cf - d | tar tf -`).
                let rest = (RECORD as u64 - input.bytes % RECORD as u64) % RECORD as u64;
                let _ = io::copy(&mut (&mut input).take(rest), &mut io::sink());
                break;
            }
            if !checksum_ok(&block) {
                if first {
                    self.error("This does not look like a tar archive");
                    break;
                }
                self.error("Skipping to next header");
                continue;
            }
            first = false;
            let kind = block[156];
            let size = parse_num(&block[124..136]);
            // Metadata pseudo-entries apply to the next real entry.
            if matches!(kind, b'L' | b'K' | b'x' | b'g') {
                let mut data = Vec::new();
                let padded = size.div_ceil(BLOCK as u64) * BLOCK as u64;
                if padded > 64 << 20 {
                    return Err(self.fatal("Extended header too large"));
                }
                if let Err(e) = (&mut input).take(padded).read_to_end(&mut data) {
                    return Err(self.eof_error(&e));
                }
                if (data.len() as u64) < padded {
                    return Err(self.eof_error(&io::Error::from(io::ErrorKind::UnexpectedEof)));
                }
                data.truncate(size as usize);
                match kind {
                    b'L' => long_name = Some(cstr(&data).to_vec()),
                    b'K' => long_link = Some(cstr(&data).to_vec()),
                    b'x' => pax = parse_pax(&data),
                    _ => {}
                }
                continue;
            }
            let mut m = Member {
                name: cstr(&block[0..100]).to_vec(),
                link: cstr(&block[157..257]).to_vec(),
                kind: if kind == 0 { b'0' } else { kind },
                mode: parse_num(&block[100..108]) as u32,
                size,
                mtime: parse_signed(&block[136..148]),
                uname: cstr(&block[265..297]).to_vec(),
                gname: cstr(&block[297..329]).to_vec(),
                uid: parse_num(&block[108..116]),
                gid: parse_num(&block[116..124]),
            };
            // POSIX ustar splits long names into prefix and name.
            if &block[257..263] == b"ustar\0" && block[345] != 0 {
                let mut full = cstr(&block[345..500]).to_vec();
                full.push(b'/');
                full.extend_from_slice(&m.name);
                m.name = full;
            }
            if let Some(n) = long_name.take() {
                m.name = n;
            }
            if let Some(l) = long_link.take() {
                m.link = l;
            }
            for (k, v) in std::mem::take(&mut pax) {
                match k.as_slice() {
                    b"path" => m.name = v,
                    b"linkpath" => m.link = v,
                    b"size" => {
                        m.size = std::str::from_utf8(&v)
                            .ok()
                            .and_then(|s| s.parse().ok())
                            .unwrap_or(m.size)
                    }
                    b"mtime" => {
                        m.mtime = std::str::from_utf8(&v)
                            .ok()
                            .and_then(|s| s.split('.').next()?.parse().ok())
                            .unwrap_or(m.mtime);
                    }
                    b"uname" => m.uname = v,
                    b"gname" => m.gname = v,
                    _ => {}
                }
            }
            if m.kind == b'0' && m.name.ends_with(b"/") {
                m.kind = b'5';
            }
            let has_data = !matches!(m.kind, b'1' | b'2' | b'3' | b'4' | b'5' | b'6');
            let data_len = if has_data { m.size } else { 0 };
            let padded = data_len.div_ceil(BLOCK as u64) * BLOCK as u64;
            let selected = self.selected(&m.name, &mut names);
            let mut data = (&mut input).take(data_len);
            let r = if selected {
                self.handle(&m, &mut data, &base, &mut dirs)
            } else {
                Ok(())
            };
            if let Err(e) = r {
                return Err(self.eof_error(&e));
            }
            // Skip whatever was not consumed, and the padding.
            let rest = data.limit();
            let skip = rest + (padded - data_len);
            match io::copy(&mut (&mut input).take(skip), &mut io::sink()) {
                Ok(n) if n == skip => {}
                Ok(_) => return Err(self.eof_error(&io::Error::from(io::ErrorKind::UnexpectedEof))),
                Err(e) => return Err(self.eof_error(&e)),
            }
        }
        // Directories get their modes and times last, innermost first.
        for (p, mode, mtime) in dirs.into_iter().rev() {
            let _ = hostcalls::chmod(&p.to_string_lossy(), mode & 0o7777);
            if !self.opts.no_mtime {
                set_mtime(&p, mtime);
            }
        }
        for (n, found) in names {
            if !found {
                self.error(format!("{}: Not found in archive", quoted(&n)));
            }
        }
        Ok(())
    }

    fn eof_error(&mut self, e: &io::Error) -> Fatal {
        let m = e.to_string();
        if m == GZ_EOF {
            let _ = writeln!(self.err, "\ngzip: stdin: unexpected end of file");
        } else if m == GZ_BAD {
            let _ = writeln!(
                self.err,
                "\ngzip: stdin: invalid compressed data--format violated"
            );
        } else if e.kind() != io::ErrorKind::UnexpectedEof {
            return self.fatal(format!("Read error: {}", strerror(e)));
        }
        self.msg("Unexpected EOF in archive");
        self.fatal_quiet()
    }

    /// Whether a member is wanted (no operands: all), marking the operand it matched.
    fn selected(&self, name: &[u8], names: &mut [(Vec<u8>, bool)]) -> bool {
        if self.excluded(name) {
            return false;
        }
        if names.is_empty() {
            return true;
        }
        let bare = name.strip_suffix(b"/").unwrap_or(name);
        let mut hit = false;
        for (n, found) in names.iter_mut() {
            let want = n.strip_suffix(b"/").unwrap_or(n);
            let want = want.strip_prefix(b"./").unwrap_or(want);
            let ok = bare == want
                || (bare.starts_with(want) && bare.get(want.len()) == Some(&b'/'))
                || (self.opts.wildcards && fnmatch(want, bare));
            if ok {
                *found = true;
                hit = true;
            }
        }
        hit
    }

    fn handle(
        &mut self,
        m: &Member,
        data: &mut dyn Read,
        base: &[u8],
        dirs: &mut Vec<(PathBuf, u32, i64)>,
    ) -> io::Result<()> {
        let name = self.transform(m.name.strip_suffix(b"/").unwrap_or(&m.name));
        // A listing shows archive names unless --show-transformed-names.
        let mut shown = if self.opts.show_transformed {
            name.clone()
        } else {
            m.name.strip_suffix(b"/").unwrap_or(&m.name).to_vec()
        };
        if m.kind == b'5' && !shown.is_empty() {
            shown.push(b'/');
        }
        if self.opts.mode == Some(Mode::List) {
            // GNU lists the name as stored, but reports the leading `/` it would remove.
            if !self.opts.absolute {
                self.warn_leading_slashes(leading_slashes(&m.name), false);
            }
            if self.opts.verbose > 0 {
                let info = ListInfo {
                    kind: m.kind,
                    mode: m.mode,
                    uname: if m.uname.is_empty() { b"" } else { &m.uname },
                    gname: if m.gname.is_empty() { b"" } else { &m.gname },
                    size: if m.kind == b'0' || m.kind == b'7' {
                        m.size
                    } else {
                        0
                    },
                    mtime: m.mtime,
                    name: &shown,
                    link: &m.link,
                };
                // Owner names from the header, numbers when absent or --numeric-owner.
                let numeric = self.opts.numeric_owner;
                let uid_s;
                let gid_s;
                let info = if m.uname.is_empty() || m.gname.is_empty() || numeric {
                    uid_s = m.uid.to_string().into_bytes();
                    gid_s = m.gid.to_string().into_bytes();
                    ListInfo {
                        uname: if m.uname.is_empty() || numeric {
                            &uid_s
                        } else {
                            &m.uname
                        },
                        gname: if m.gname.is_empty() || numeric {
                            &gid_s
                        } else {
                            &m.gname
                        },
                        ..info
                    }
                } else {
                    info
                };
                let line = self.long_line(&info);
                self.out.write_all(&line)?;
                self.out.write_all(b"\n")?;
            } else {
                self.out.write_all(&shown)?;
                self.out.write_all(b"\n")?;
            }
            return Ok(());
        }
        // Extract.
        let mut rel: &[u8] = &name;
        if !self.opts.absolute {
            let slashes = leading_slashes(rel);
            rel = &rel[slashes.len()..];
            self.warn_leading_slashes(slashes, false);
            if rel.split(|&c| c == b'/').any(|c| c == b"..") {
                self.error(format!("{}: Member name contains '..'", quoted(&name)));
                return Ok(());
            }
        }
        // --strip-components drops leading elements; members with fewer are skipped.
        if self.opts.strip > 0 {
            let parts: Vec<&[u8]> = rel
                .split(|&c| c == b'/')
                .filter(|c| !c.is_empty())
                .collect();
            if parts.len() <= self.opts.strip {
                return Ok(());
            }
            let kept = parts[self.opts.strip..].join(&b'/');
            return self.extract_at(m, data, base, &kept, &shown, dirs);
        }
        let rel = rel.to_vec();
        if rel.is_empty() {
            return Ok(());
        }
        self.extract_at(m, data, base, &rel, &shown, dirs)
    }

    /// Extracts member `m` to `rel` under `base`. `-v` names it `shown`: the name in the
    /// archive, as GNU does (with its leading `/`, before `--strip-components` and, unless
    /// `--show-transformed-names`, before `--transform`).
    fn extract_at(
        &mut self,
        m: &Member,
        data: &mut dyn Read,
        base: &[u8],
        rel: &[u8],
        shown: &[u8],
        dirs: &mut Vec<(PathBuf, u32, i64)>,
    ) -> io::Result<()> {
        if self.opts.verbose > 0 {
            if self.opts.verbose > 1 {
                let info = ListInfo {
                    kind: m.kind,
                    mode: m.mode,
                    uname: &m.uname,
                    gname: &m.gname,
                    size: if m.kind == b'0' { m.size } else { 0 },
                    mtime: m.mtime,
                    name: shown,
                    link: &m.link,
                };
                let line = self.long_line(&info);
                self.verbose_line(&line);
            } else {
                self.verbose_line(shown);
            }
        }
        if self.opts.to_stdout {
            if m.kind == b'0' || m.kind == b'7' {
                io::copy(data, &mut self.out)?;
            }
            return Ok(());
        }
        let dest = path_of(&join(base, rel));
        let dest_s = dest.to_string_lossy().into_owned();
        if let Some(parent) = dest.parent()
            && !parent.as_os_str().is_empty()
        {
            let _ = fs::create_dir_all(parent);
        }
        let exists = fs::symlink_metadata(&dest).ok();
        if self.opts.keep_old && exists.is_some() && m.kind != b'5' {
            self.error(format!("{}: Cannot open: File exists", quoted(rel)));
            return Ok(());
        }
        match m.kind {
            b'5' => {
                if exists.as_ref().is_some_and(|md| !md.is_dir()) {
                    let _ = fs::remove_file(&dest);
                }
                if let Err(e) = fs::create_dir_all(&dest) {
                    self.error(format!("{}: Cannot mkdir: {}", quoted(rel), strerror(&e)));
                    return Ok(());
                }
                dirs.push((dest, m.mode, m.mtime));
            }
            b'2' => {
                if exists.is_some() {
                    let _ = fs::remove_file(&dest);
                }
                if let Err(e) = symlink(&m.link, &dest) {
                    self.error(format!(
                        "{}: Cannot create symlink to '{}': {}",
                        quoted(rel),
                        show(&m.link),
                        strerror(&e)
                    ));
                }
            }
            b'1' => {
                let mut target: &[u8] = &m.link;
                if !self.opts.absolute {
                    while target.first() == Some(&b'/') {
                        target = &target[1..];
                    }
                }
                let target = path_of(&join(base, target));
                if target == dest {
                    // The same file archived twice links to itself: nothing to do.
                    return Ok(());
                }
                if exists.is_some() {
                    let _ = fs::remove_file(&dest);
                }
                if let Err(e) = fs::hard_link(&target, &dest) {
                    self.error(format!(
                        "{}: Cannot hard link to '{}': {}",
                        quoted(rel),
                        show(&m.link),
                        strerror(&e)
                    ));
                }
            }
            b'3' | b'4' | b'6' => {
                self.error(format!(
                    "{}: Cannot mknod: Operation not permitted",
                    quoted(rel)
                ));
            }
            _ => {
                if let Some(md) = &exists {
                    if md.is_dir() {
                        self.error(format!("{}: Cannot open: Is a directory", quoted(rel)));
                        return Ok(());
                    }
                    let _ = fs::remove_file(&dest);
                }
                let mut f = match fs::File::create(&dest) {
                    Ok(f) => f,
                    Err(e) => {
                        self.error(format!("{}: Cannot open: {}", quoted(rel), strerror(&e)));
                        return Ok(());
                    }
                };
                io::copy(data, &mut f)?;
                let _ = f.flush();
                if !self.opts.no_mtime {
                    let _ = f.set_modified(mtime_to_system(m.mtime));
                }
                drop(f);
                let _ = hostcalls::chmod(&dest_s, m.mode & 0o7777);
            }
        }
        Ok(())
    }
}

fn parse_pax(data: &[u8]) -> Vec<(Vec<u8>, Vec<u8>)> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < data.len() {
        let Some(sp) = data[i..].iter().position(|&c| c == b' ') else {
            break;
        };
        let len: usize = match std::str::from_utf8(&data[i..i + sp])
            .ok()
            .and_then(|s| s.parse().ok())
        {
            Some(l) if l > sp && i + l <= data.len() => l,
            _ => break,
        };
        let rec = &data[i + sp + 1..i + len];
        let rec = rec.strip_suffix(b"\n").unwrap_or(rec);
        if let Some(eq) = rec.iter().position(|&c| c == b'=') {
            out.push((rec[..eq].to_vec(), rec[eq + 1..].to_vec()));
        }
        i += len;
    }
    out
}

fn mtime_to_system(secs: i64) -> std::time::SystemTime {
    if secs >= 0 {
        std::time::UNIX_EPOCH + std::time::Duration::from_secs(secs as u64)
    } else {
        std::time::UNIX_EPOCH - std::time::Duration::from_secs(secs.unsigned_abs())
    }
}

fn set_mtime(p: &Path, secs: i64) {
    if let Ok(f) = fs::File::open(p) {
        let _ = f.set_modified(mtime_to_system(secs));
    }
}

#[allow(deprecated)] // `soft_link` is the one symlink call available on both unix and WASI.
fn symlink(target: &[u8], dest: &Path) -> io::Result<()> {
    fs::soft_link(path_of(target), dest)
}

/// gzip errors surface as `InvalidInput`/`InvalidData` from flate2; name them for messages.
struct GzRead<R: Read> {
    inner: flate2::read::MultiGzDecoder<R>,
}

impl<R: BufRead> Read for GzRead<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        self.inner.read(buf).map_err(|e| match e.kind() {
            io::ErrorKind::UnexpectedEof => io::Error::new(e.kind(), GZ_EOF),
            _ => io::Error::other(GZ_BAD),
        })
    }
}

const GZ_EOF: &str = "gzip: unexpected end of file";
const GZ_BAD: &str = "gzip: invalid compressed data";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn transforms() {
        let t = Transform::parse_list(b"s,^testbed/,,").unwrap();
        assert_eq!(t[0].apply(b"testbed/dir1/a"), b"dir1/a");
        let t = Transform::parse_list(b"s/a/A/g;s,sub,SUB,").unwrap();
        let mut n = b"d/sub/a.txt".to_vec();
        for x in &t {
            n = x.apply(&n);
        }
        assert_eq!(n, b"d/SUB/A.txt");
        let t = Transform::parse_list(br"s/\(a\)\.txt/\1_x.txt/").unwrap();
        assert_eq!(t[0].apply(b"d/a.txt"), b"d/a_x.txt");
        let t = Transform::parse_list(br"s/(a)\.txt/\1_y.txt/x").unwrap();
        assert_eq!(t[0].apply(b"d/a.txt"), b"d/a_y.txt");
        let t = Transform::parse_list(b"s|.*/||").unwrap();
        assert_eq!(t[0].apply(b"d/sub/b"), b"b");
        let t = Transform::parse_list(b"s/x/y/2").unwrap();
        assert_eq!(t[0].apply(b"xxx"), b"xyx");
        assert!(Transform::parse_list(br"s/\(a\)\.txt/\2/").is_err());
        assert!(Transform::parse_list(b"x").is_err());
    }

    #[test]
    fn wildcards() {
        assert!(fnmatch(b"*.txt", b"a/b.txt"));
        assert!(fnmatch(b"a?c", b"abc"));
        assert!(fnmatch(b"[a-c]x", b"bx"));
        assert!(!fnmatch(b"[!a-c]x", b"bx"));
        assert!(!fnmatch(b"*.txt", b"a.tx"));
    }

    #[test]
    fn options() {
        let a = |v: &[&str]| -> Vec<Vec<u8>> { v.iter().map(|s| s.as_bytes().to_vec()).collect() };
        let o = parse_args(&a(&["tar", "czf", "a.tgz", "dir"])).unwrap();
        assert_eq!(o.mode, Some(Mode::Create));
        assert!(o.gzip);
        assert_eq!(o.file.as_deref(), Some(&b"a.tgz"[..]));
        let o = parse_args(&a(&["tar", "-zcvf", "x.tgz", "/system/folder1"])).unwrap();
        assert_eq!(o.verbose, 1);
        let o = parse_args(&a(&["tar", "-xf", "-", "-C", "/backup"])).unwrap();
        assert_eq!(o.mode, Some(Mode::Extract));
        assert!(matches!(o.operands[0], Operand::Dir(_)));
        let o = parse_args(&a(&["tar", "--trans=s/a/b/", "--create", "--file=x", "y"])).unwrap();
        assert_eq!(o.transforms.len(), 1);
        assert!(parse_args(&a(&["tar", "-f", "x"])).is_err());
        assert!(parse_args(&a(&["tar", "-cx"])).is_err());
    }

    // GNU tar 1.34 (Ubuntu 22.04), as upstream's logs recorded it.
    #[test]
    fn gnu_answers_to_agents_option_mistakes() {
        let a = |v: &[&str]| -> Vec<Vec<u8>> { v.iter().map(|s| s.as_bytes().to_vec()).collect() };
        let err = |v: &[&str]| parse_args(&a(v)).err().unwrap();
        // `-mtime` is `-m -t …`: the second operation is refused before the unknown `-e`.
        assert_eq!(
            err(&[
                "tar",
                "-czf",
                "logs.tar.gz",
                "logs",
                "-c",
                "/var/log",
                "-mtime",
                "+1"
            ]),
            "You may not specify more than one '-Acdtrux', '--delete' or  '--test-label' option"
        );
        assert_eq!(
            err(&["tar", "-czf", "b.tar", "/t", "--include=**"]),
            "unrecognized option '--include=**'"
        );
        let o = parse_args(&a(&["tar", "-zcvf", "l.tgz", "--mtime=-60", "/s"])).unwrap();
        assert_eq!(
            o.warnings,
            ["Substituting -9223372036854775807 for unknown date format '-60'"]
        );
        for fine in [
            "2023-01-01",
            "@1700000000",
            "yesterday",
            "2 days ago",
            "/etc/hosts",
        ] {
            assert!(known_date(fine), "{fine}");
        }
        for unknown in ["+1", "-60", "-1d"] {
            assert!(!known_date(unknown), "{unknown}");
        }
        let o = parse_args(&a(&[
            "tar",
            "-czvf",
            "l.tgz",
            "--null",
            "-T",
            "-",
            "--no-recursion",
            "--absolute-names",
        ]))
        .unwrap();
        assert!(o.null);
        assert_eq!(
            o.positional,
            [("null".to_string(), 0), ("no-recursion".to_string(), 1)]
        );
        assert_eq!(o.names_given, 1);
    }

    #[test]
    fn header_round_trip() {
        let h = HeaderSpec {
            name: b"d/a.txt",
            mode: 0o644,
            size: 12,
            mtime: 1_685_577_600,
            kind: b'0',
            link: b"",
        };
        let b = gnu_header(&h);
        assert!(checksum_ok(&b));
        assert_eq!(parse_num(&b[124..136]), 12);
        assert_eq!(parse_num(&b[136..148]), 1_685_577_600);
        assert_eq!(&b[257..265], b"ustar  \0");
        assert_eq!(mode_string(b'0', 0o644), "-rw-r--r--");
        assert_eq!(mode_string(b'5', 0o1777), "drwxrwxrwt");
    }

    /// GNU tar 1.34's diagnostics, from Ubuntu 22.04: `tar -cf y.tar "d e:" 'x\y' $'t\tb'`
    /// says `d e\:`, `x\\y` and `t\tb`; `logs//` is reported as `logs`.
    #[test]
    fn names_in_diagnostics_as_gnu_quotes_them() {
        assert_eq!(quoted(b"d e:"), "d e\\:");
        assert_eq!(quoted(b"x\\y"), "x\\\\y");
        assert_eq!(quoted(b"t\tb"), "t\\tb");
        assert_eq!(quoted("é".as_bytes()), "\\303\\251");
        assert_eq!(without_trailing_slashes(b"logs//"), b"logs");
        assert_eq!(without_trailing_slashes(b"/"), b"/");
    }

    #[test]
    fn exclusions_after_the_last_name_are_positional() {
        let a = |v: &[&str]| -> Vec<Vec<u8>> { v.iter().map(|s| s.as_bytes().to_vec()).collect() };
        let o = parse_args(&a(&[
            "tar",
            "-cf",
            "x.tar",
            "a",
            "--exclude=*",
            "--exclude-vcs",
        ]))
        .unwrap();
        assert_eq!(
            o.positional,
            [
                ("exclude '*'".to_string(), 1),
                ("exclude-vcs".to_string(), 1)
            ]
        );
        assert!(o.excludes.iter().any(|(p, at)| p == b".git" && *at == 1));
    }
}
