//! `ps` (procps-ng 3.3.17): UNIX (`-ef`, `-p PID -o comm=`), BSD (`aux`, `axjf`) and GNU long
//! (`--no-headers`, `--forest`, `--sort`) options over the action's process table.
//!
//! Parsing follows procps's three option families: an argument starting with `--` is a GNU
//! long option, one starting with `-` holds UNIX letters, anything else BSD letters. Errors are
//! procps's texts followed by its usage block, exit status 1.

use super::{args, memory_kib, short_start, stat, tty};
use crate::common::Io;
use crate::common::io::run_main;
use hostcalls::{ProcEntry, ProcTable};
use std::ffi::OsString;

pub fn main(args: Vec<OsString>) -> i32 {
    run_main(args, run)
}

const USAGE: &str = "\nUsage:\n ps [options]\n\n Try 'ps --help <simple|list|output|threads|misc|all>'\n  or 'ps --help <s|l|o|t|m|a>'\n for additional help text.\n\nFor more details see ps(1).\n";

/// Which processes to show.
#[derive(Debug, Default)]
struct Selection {
    /// `-e`, `-A`, `ax`: everything.
    all: bool,
    /// BSD `a` without `x`: only processes with a terminal.
    with_tty: bool,
    /// `-a`, `-d`: all but session leaders (`-a` also needs a terminal).
    not_leaders: bool,
    tty_needed: bool,
    pids: Vec<u32>,
    ppids: Vec<u32>,
    commands: Vec<String>,
    /// `-u`/`-U`/`U`: every process is root's, so any other user selects nothing.
    users: Vec<String>,
    negate: bool,
    /// BSD `r`: running processes only.
    running: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Style {
    Default,
    BsdDefault,
    Full,
    Long,
    User,
    Jobs,
    BsdJobs,
    Custom,
}

struct Options {
    sel: Selection,
    style: Style,
    custom: Vec<Column>,
    headers: bool,
    forest: bool,
    sort: Vec<(bool, String)>,
    /// Some selection option was given (otherwise `ps` shows the caller's terminal session).
    selected: bool,
}

fn fail(io: &mut Io, msg: &str) -> i32 {
    let _ = write!(io.err, "error: {msg}\n{USAGE}");
    1
}

fn run(argv: &[String], io: &mut Io) -> i32 {
    let opts = match parse(&argv[1..]) {
        Ok(o) => o,
        Err(msg) => return fail(io, &msg),
    };
    let table = match super::load() {
        Ok(t) => t,
        Err(msg) => {
            let _ = writeln!(io.err, "ps: {msg}");
            return 1;
        }
    };
    let now = crate::common::time::now_ns();
    let columns = match opts.style {
        Style::Custom => opts.custom.clone(),
        style => standard_columns(style),
    };
    let mut shown: Vec<&ProcEntry> = table
        .entries
        .iter()
        .filter(|e| selected(&opts, &table, e))
        .collect();
    sort(&mut shown, &opts.sort, now);
    let rows: Vec<(usize, &ProcEntry, String)> = if opts.forest {
        forest(&shown)
    } else {
        shown.iter().map(|e| (0, *e, String::new())).collect()
    };
    let mut out = String::new();
    if opts.headers && columns.iter().any(|c| !c.header.is_empty()) {
        let cells: Vec<String> = columns.iter().map(|c| c.header.clone()).collect();
        out.push_str(&layout(&columns, &cells));
    }
    for (_, e, prefix) in &rows {
        let cells: Vec<String> = columns
            .iter()
            .map(|c| {
                let v = value(c.field, &table, e, now);
                if c.field.is_command() && !prefix.is_empty() {
                    format!("{prefix}{v}")
                } else {
                    v
                }
            })
            .collect();
        out.push_str(&layout(&columns, &cells));
    }
    if io.out.write_all(out.as_bytes()).is_err() {
        return 1;
    }
    // procps exits 1 when a selection matched nothing.
    if rows.is_empty() && opts.selected {
        1
    } else {
        0
    }
}

fn selected(opts: &Options, table: &ProcTable, e: &ProcEntry) -> bool {
    let s = &opts.sel;
    let hit = if !opts.selected {
        // No selection: the caller's terminal session. Ours have no terminal, so that is every
        // process without one (init holds pts/0).
        tty(e) == "?"
    } else {
        let by_list = (!s.pids.is_empty() && s.pids.contains(&e.pid))
            || (!s.ppids.is_empty() && s.ppids.contains(&e.ppid))
            || (!s.commands.is_empty() && s.commands.iter().any(|c| *c == e.comm()))
            || (!s.users.is_empty() && s.users.iter().any(|u| u == "root" || u == "0"));
        let by_kind = s.all
            || (s.with_tty && tty(e) != "?")
            || (s.not_leaders && !super::session_leader(e) && (!s.tty_needed || tty(e) != "?"));
        let _ = table;
        by_list || by_kind
    };
    let hit = hit && (!s.running || e.state == b'R');
    hit != s.negate
}

/// Parses every argument; the first error ends parsing, as in procps.
fn parse(args: &[String]) -> Result<Options, String> {
    let mut o = Options {
        sel: Selection::default(),
        style: Style::Default,
        custom: Vec::new(),
        headers: true,
        forest: false,
        sort: Vec::new(),
        selected: false,
    };
    let mut bsd_seen = false;
    let mut i = 0;
    // The value of an option letter: the rest of the argument, else the next argument.
    let take = |rest: &str, i: &mut usize, args: &[String]| -> Option<String> {
        if !rest.is_empty() {
            return Some(rest.to_string());
        }
        *i += 1;
        args.get(*i).cloned()
    };
    while i < args.len() {
        let a = args[i].clone();
        if let Some(long) = a.strip_prefix("--") {
            let (name, inline) = match long.split_once('=') {
                Some((n, v)) => (n, Some(v.to_string())),
                None => (long, None),
            };
            let mut value = |what: &str| -> Result<String, String> {
                match inline.clone() {
                    Some(v) => Ok(v),
                    None => {
                        i += 1;
                        args.get(i)
                            .cloned()
                            .ok_or_else(|| format!("{what} must follow --{name}"))
                    }
                }
            };
            match name {
                "no-headers" | "no-heading" => o.headers = false,
                "headers" | "heading" => o.headers = true,
                "forest" => o.forest = true,
                "deselect" => o.sel.negate = true,
                "cumulative" | "info" => {}
                "cols" | "columns" | "width" | "rows" | "lines" => {
                    value("number of columns")?;
                }
                "format" => {
                    let v = value("format specification")?;
                    o.custom.extend(parse_format(&v)?);
                    o.style = Style::Custom;
                }
                "pid" | "quick-pid" => {
                    let v = value("process ID list")?;
                    o.sel.pids.extend(pid_list(&v)?);
                    o.selected = true;
                }
                "ppid" => {
                    let v = value("list of process IDs")?;
                    o.sel.ppids.extend(pid_list(&v)?);
                    o.selected = true;
                }
                "user" | "User" | "group" | "Group" => {
                    let v = value("user name list")?;
                    o.sel.users.extend(v.split([',', ' ']).map(String::from));
                    o.selected = true;
                }
                "sort" => {
                    let v = inline.clone().or_else(|| {
                        i += 1;
                        args.get(i).cloned()
                    });
                    let v = v.ok_or("long sort specification must follow --sort")?;
                    o.sort.extend(parse_sort(&v)?);
                }
                _ => return Err("unknown gnu long option".into()),
            }
        } else if let Some(letters) = a
            .strip_prefix('-')
            .filter(|l| !l.is_empty() && !looks_bsd(l))
        {
            let chars: Vec<char> = letters.chars().collect();
            let mut j = 0;
            while j < chars.len() {
                let c = chars[j];
                j += 1;
                let rest: String = chars[j..].iter().collect();
                match c {
                    'e' | 'A' => {
                        o.sel.all = true;
                        o.selected = true;
                    }
                    'a' => {
                        o.sel.not_leaders = true;
                        o.sel.tty_needed = true;
                        o.selected = true;
                    }
                    'd' => {
                        o.sel.not_leaders = true;
                        o.selected = true;
                    }
                    'N' => o.sel.negate = true,
                    'f' | 'F' => set_style(&mut o, Style::Full),
                    'l' => set_style(&mut o, Style::Long),
                    'j' => set_style(&mut o, Style::Jobs),
                    'H' => o.forest = true,
                    'w' | 'y' | 'c' | 'L' | 'T' | 'm' | 'M' | 'Z' | 'x' => {}
                    'o' => {
                        let v = take(&rest, &mut i, args)
                            .ok_or("format specification must follow -o")?;
                        o.custom.extend(parse_format(&v)?);
                        o.style = Style::Custom;
                        j = chars.len();
                    }
                    'p' | 'q' => {
                        let v = take(&rest, &mut i, args).ok_or(if c == 'p' {
                            "list of process IDs must follow -p"
                        } else {
                            "List of process IDs must follow -q."
                        })?;
                        o.sel.pids.extend(pid_list(&v)?);
                        o.selected = true;
                        j = chars.len();
                    }
                    'C' => {
                        let v = take(&rest, &mut i, args)
                            .ok_or("list of command names must follow -C")?;
                        o.sel.commands.extend(v.split([',', ' ']).map(String::from));
                        o.selected = true;
                        j = chars.len();
                    }
                    'u' | 'U' | 'g' | 'G' | 's' | 't' => {
                        let v = take(&rest, &mut i, args).ok_or(match c {
                            'u' | 'U' => "list of users must follow -u",
                            'g' | 'G' => {
                                "list of session leaders OR effective group names must follow -g"
                            }
                            's' => "list of session IDs must follow -s",
                            _ => "list of terminals (pty, tty...) must follow -t",
                        })?;
                        if matches!(c, 'u' | 'U') {
                            o.sel.users.extend(v.split([',', ' ']).map(String::from));
                        }
                        o.selected = true;
                        j = chars.len();
                    }
                    _ => return Err("unsupported SysV option".into()),
                }
            }
        } else {
            // BSD letters (a `-` before them is tolerated, as in `ps -aux`); a bare number
            // list is a pid list.
            let a = a.strip_prefix('-').unwrap_or(&a).to_string();
            if a.chars().next().is_some_and(|c| c.is_ascii_digit()) {
                o.sel.pids.extend(pid_list(&a)?);
                o.selected = true;
                i += 1;
                continue;
            }
            let chars: Vec<char> = a.chars().collect();
            let mut j = 0;
            while j < chars.len() {
                let c = chars[j];
                j += 1;
                match c {
                    'a' => {
                        o.sel.with_tty = true;
                        o.selected = true;
                    }
                    'x' => {
                        o.sel.all = true;
                        o.selected = true;
                    }
                    'u' => set_style(&mut o, Style::User),
                    'j' => set_style(&mut o, Style::BsdJobs),
                    'l' => set_style(&mut o, Style::Long),
                    'f' => o.forest = true,
                    'h' => o.headers = false,
                    'r' => o.sel.running = true,
                    'w' | 'e' | 'c' | 'S' | 'n' | 'v' | 'm' | 'H' | 'L' | 'V' | 'X' | 's' | 'Z' => {
                    }
                    'o' | 'O' | 'k' | 'p' | 'q' | 'U' | 't' => {
                        let rest: String = chars[j..].iter().collect();
                        j = chars.len();
                        let v = if rest.is_empty() {
                            i += 1;
                            args.get(i).cloned()
                        } else {
                            Some(rest)
                        };
                        match c {
                            'o' | 'O' => {
                                let v = v.ok_or("format specification must follow o")?;
                                o.custom.extend(parse_format(&v)?);
                                o.style = Style::Custom;
                            }
                            'k' => {
                                let v = v.ok_or("long sort specification must follow 'k'")?;
                                o.sort.extend(parse_sort(&v)?);
                            }
                            'p' | 'q' => {
                                let v = v.ok_or("list of process IDs must follow p")?;
                                o.sel.pids.extend(pid_list(&v)?);
                                o.selected = true;
                            }
                            'U' => {
                                let v = v.ok_or("list of users must follow U")?;
                                o.sel.users.extend(v.split([',', ' ']).map(String::from));
                                o.selected = true;
                            }
                            _ => {
                                v.ok_or("list of terminals (pty, tty...) must follow t")?;
                                o.selected = true;
                            }
                        }
                    }
                    _ => return Err("garbage option".into()),
                }
            }
            bsd_seen = true;
        }
        i += 1;
    }
    if o.style == Style::Default && bsd_seen {
        o.style = Style::BsdDefault;
    }
    // BSD `a` and `x` together (`aux`, `ax`) mean every process.
    if o.sel.with_tty && o.sel.all {
        o.sel.with_tty = false;
    }
    Ok(o)
}

/// `-aux`, `-axjf`: procps reads a dashed word with `x` in it as BSD options (there is no
/// UNIX `-x`), as long as every letter is a BSD one.
fn looks_bsd(letters: &str) -> bool {
    letters.contains('x') && letters.chars().all(|c| "aux jfwehr".contains(c))
}

fn set_style(o: &mut Options, s: Style) {
    if o.style != Style::Custom {
        o.style = s;
    }
}

/// A pid list (`1,2 3`): numbers in 1..=4194304.
fn pid_list(s: &str) -> Result<Vec<u32>, String> {
    let mut out = Vec::new();
    for item in s.split([',', ' ']).filter(|x| !x.is_empty()) {
        let n: i64 = item
            .parse()
            .map_err(|_| "process ID list syntax error".to_string())?;
        if !(1..=4_194_304).contains(&n) {
            return Err("process ID out of range".into());
        }
        out.push(n as u32);
    }
    if out.is_empty() {
        return Err("process ID list syntax error".into());
    }
    Ok(out)
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Field {
    Pid,
    Ppid,
    Pgid,
    Sid,
    Tpgid,
    Uid,
    User,
    Comm,
    Args,
    Stat,
    State,
    Tty,
    Time,
    BsdTime,
    Etime,
    Etimes,
    Start,
    Stime,
    Lstart,
    Pcpu,
    Pmem,
    Vsz,
    Rss,
    C,
    Pri,
    Ni,
    Nlwp,
    Flags,
    Wchan,
    Addr,
    Sz,
}

impl Field {
    fn is_command(self) -> bool {
        matches!(self, Field::Comm | Field::Args)
    }
}

#[derive(Debug, Clone)]
struct Column {
    field: Field,
    header: String,
    width: usize,
    right: bool,
}

/// procps's format specifiers: name → field, default header, width, right-aligned.
fn spec(name: &str) -> Option<(Field, &'static str, usize, bool)> {
    use Field::*;
    Some(match name {
        "pid" | "tgid" | "lwp" | "spid" | "tid" => (Pid, "PID", 5, true),
        "ppid" => (Ppid, "PPID", 5, true),
        "pgid" | "pgrp" => (Pgid, if name == "pgrp" { "PGRP" } else { "PGID" }, 5, true),
        "sid" | "sess" | "session" => (Sid, if name == "sid" { "SID" } else { "SESS" }, 5, true),
        "tpgid" => (Tpgid, "TPGID", 5, true),
        "uid" | "euid" | "ruid" | "suid" | "fsuid" => (Uid, "UID", 5, true),
        "gid" | "egid" | "rgid" => (Uid, "GID", 5, true),
        "user" | "euser" | "uname" => (
            User,
            if name == "euser" { "EUSER" } else { "USER" },
            8,
            false,
        ),
        "ruser" => (User, "RUSER", 8, false),
        "group" | "egroup" | "rgroup" => (User, "GROUP", 8, false),
        "comm" | "ucomm" => (Comm, "COMMAND", 15, false),
        "ucmd" => (Comm, "CMD", 15, false),
        "args" | "command" => (Args, "COMMAND", 27, false),
        "cmd" => (Args, "CMD", 27, false),
        "stat" => (Stat, "STAT", 4, false),
        "s" | "state" => (State, "S", 1, false),
        "tty" | "tt" => (Tty, "TT", 8, false),
        "tname" => (Tty, "TTY", 8, false),
        "time" | "cputime" => (Time, "TIME", 8, true),
        "bsdtime" => (BsdTime, "TIME", 6, true),
        "etime" => (Etime, "ELAPSED", 11, true),
        "etimes" => (Etimes, "ELAPSED", 7, true),
        "start" => (Start, "STARTED", 8, true),
        "stime" | "start_time" => (Stime, "STIME", 5, true),
        "bsdstart" => (Stime, "START", 6, true),
        "lstart" => (Lstart, "STARTED", 24, false),
        "%cpu" | "pcpu" => (Pcpu, "%CPU", 4, true),
        "%mem" | "pmem" => (Pmem, "%MEM", 4, true),
        "vsz" | "vsize" => (Vsz, "VSZ", 6, true),
        "rss" | "rssize" | "rsz" => (Rss, "RSS", 5, true),
        "c" => (C, "C", 2, true),
        "pri" => (Pri, "PRI", 3, true),
        "ni" | "nice" => (Ni, "NI", 3, true),
        "nlwp" | "thcount" => (Nlwp, "NLWP", 4, true),
        "f" | "flag" | "flags" => (Flags, "F", 1, true),
        "wchan" => (Wchan, "WCHAN", 6, false),
        "addr" => (Addr, "ADDR", 4, true),
        "sz" => (Sz, "SZ", 5, true),
        _ => return None,
    })
}

fn column(name: &str, header: Option<&str>) -> Result<Column, String> {
    let (field, default, width, right) =
        spec(name).ok_or_else(|| format!("unknown user-defined format specifier \"{name}\""))?;
    let header = header.unwrap_or(default).to_string();
    Ok(Column {
        field,
        width: width.max(header.len()),
        header,
        right,
    })
}

/// `-o` lists: names split by commas or blanks; `name=header` renames a column, the header
/// running to the next comma (procps-ng's reading: `pid=,comm=` is two unnamed columns).
fn parse_format(s: &str) -> Result<Vec<Column>, String> {
    let mut out = Vec::new();
    let mut rest = s;
    while !rest.is_empty() {
        let end = rest.find([',', ' ', '=']).unwrap_or(rest.len());
        let (name, tail) = rest.split_at(end);
        let name = name.split(':').next().unwrap_or(name);
        if let Some(after) = tail.strip_prefix('=') {
            let hend = after.find(',').unwrap_or(after.len());
            out.push(column(name, Some(&after[..hend]))?);
            rest = after.get(hend + 1..).unwrap_or("");
            continue;
        }
        if !name.is_empty() {
            out.push(column(name, None)?);
        }
        rest = tail.get(1..).unwrap_or("");
    }
    if out.is_empty() {
        return Err("improper format list".into());
    }
    Ok(out)
}

fn standard_columns(style: Style) -> Vec<Column> {
    let list: &[(&str, Option<&str>)] = match style {
        Style::Default => &[
            ("pid", None),
            ("tname", None),
            ("time", None),
            ("ucmd", None),
        ],
        Style::BsdDefault => &[
            ("pid", None),
            ("tname", None),
            ("stat", None),
            ("bsdtime", None),
            ("args", None),
        ],
        Style::Full => &[
            ("user", Some("UID")),
            ("pid", None),
            ("ppid", None),
            ("c", None),
            ("stime", None),
            ("tname", None),
            ("time", None),
            ("cmd", None),
        ],
        Style::Long => &[
            ("f", None),
            ("s", None),
            ("uid", None),
            ("pid", None),
            ("ppid", None),
            ("c", None),
            ("pri", None),
            ("ni", None),
            ("addr", None),
            ("sz", None),
            ("wchan", None),
            ("tname", None),
            ("time", None),
            ("ucmd", None),
        ],
        Style::User => &[
            ("user", None),
            ("pid", None),
            ("%cpu", None),
            ("%mem", None),
            ("vsz", None),
            ("rss", None),
            ("tname", None),
            ("stat", None),
            ("bsdstart", Some("START")),
            ("bsdtime", None),
            ("args", None),
        ],
        Style::Jobs => &[
            ("pid", None),
            ("pgid", None),
            ("sid", None),
            ("tname", None),
            ("time", None),
            ("ucmd", None),
        ],
        Style::BsdJobs => &[
            ("ppid", None),
            ("pid", None),
            ("pgid", None),
            ("sid", None),
            ("tname", None),
            ("tpgid", None),
            ("stat", None),
            ("uid", None),
            ("bsdtime", None),
            ("args", None),
        ],
        Style::Custom => &[],
    };
    let mut cols: Vec<Column> = list
        .iter()
        .filter_map(|(n, h)| column(n, *h).ok())
        .collect();
    // The BSD START column is five wide in these standard formats.
    for c in &mut cols {
        if c.header == "START" {
            c.width = 5;
        }
    }
    cols
}

fn value(f: Field, table: &ProcTable, e: &ProcEntry, now: i64) -> String {
    let (vsz, rss) = memory_kib(e);
    let group = if super::session_leader(e) {
        e.pid
    } else {
        super::session_of(table, e)
    };
    match f {
        Field::Pid => e.pid.to_string(),
        Field::Ppid => e.ppid.to_string(),
        Field::Pgid | Field::Sid => group.to_string(),
        Field::Tpgid => {
            if e.pid == 1 {
                "1".into()
            } else {
                "-1".into()
            }
        }
        Field::Uid | Field::C | Field::Ni => "0".into(),
        Field::User => "root".into(),
        Field::Comm => e.comm(),
        Field::Args => args(e),
        Field::Stat => stat(e),
        Field::State => (e.state as char).to_string(),
        Field::Tty => tty(e).into(),
        Field::Time => "00:00:00".into(),
        Field::BsdTime => "0:00".into(),
        Field::Etime => elapsed(super::age_secs(e, now)),
        Field::Etimes => super::age_secs(e, now).to_string(),
        Field::Start => {
            let t = crate::common::time::Tm::from_ns(e.start_ns);
            if now - e.start_ns < 86_400_000_000_000 {
                format!("{:02}:{:02}:{:02}", t.hour, t.min, t.sec)
            } else {
                format!("{} {:02}", crate::common::time::month_abbr(t.month), t.day)
            }
        }
        Field::Stime => short_start(e.start_ns, now),
        Field::Lstart => crate::common::time::strftime(
            "%a %b %e %H:%M:%S %Y",
            &crate::common::time::Tm::from_ns(e.start_ns),
        ),
        Field::Pcpu | Field::Pmem => "0.0".into(),
        Field::Vsz => vsz.to_string(),
        Field::Rss => rss.to_string(),
        Field::Pri => "80".into(),
        Field::Nlwp => "1".into(),
        Field::Flags => {
            if e.pid == 1 {
                "4".into()
            } else {
                "0".into()
            }
        }
        Field::Wchan => "-".into(),
        Field::Addr => "-".into(),
        Field::Sz => (vsz / 4).to_string(),
    }
}

/// `[[DD-]HH:]MM:SS`.
fn elapsed(secs: i64) -> String {
    let (d, h, m, s) = (secs / 86400, secs / 3600 % 24, secs / 60 % 60, secs % 60);
    if d > 0 {
        format!("{d}-{h:02}:{m:02}:{s:02}")
    } else if h > 0 {
        format!("{h:02}:{m:02}:{s:02}")
    } else {
        format!("{m:02}:{s:02}")
    }
}

/// One output line: cells separated by a space, padded to their column's width; a command
/// column that is not last is cut to its width, the last one is printed whole.
fn layout(cols: &[Column], cells: &[String]) -> String {
    let mut line = String::new();
    for (k, (c, v)) in cols.iter().zip(cells).enumerate() {
        let last = k + 1 == cols.len();
        if k > 0 {
            line.push(' ');
        }
        if c.right {
            line.push_str(&format!("{v:>w$}", w = c.width));
        } else if last {
            line.push_str(v);
        } else {
            let cut: String = if c.field.is_command() {
                v.chars().take(c.width).collect()
            } else {
                v.clone()
            };
            line.push_str(&format!("{cut:<w$}", w = c.width));
        }
    }
    let trimmed = line.trim_end().len();
    line.truncate(trimmed);
    line.push('\n');
    line
}

/// `--sort`/`k` keys: `[+|-]name`, comma-separated.
fn parse_sort(s: &str) -> Result<Vec<(bool, String)>, String> {
    let mut out = Vec::new();
    for k in s.split(',').filter(|k| !k.is_empty()) {
        let (desc, name) = match k.strip_prefix('-') {
            Some(n) => (true, n),
            None => (false, k.strip_prefix('+').unwrap_or(k)),
        };
        if spec(name).is_none() {
            return Err("unknown sort specifier".into());
        }
        out.push((desc, name.to_string()));
    }
    Ok(out)
}

fn sort(rows: &mut [&ProcEntry], keys: &[(bool, String)], now: i64) {
    if keys.is_empty() {
        return;
    }
    let empty = ProcTable::default();
    rows.sort_by(|a, b| {
        for (desc, name) in keys {
            let Some((field, ..)) = spec(name) else {
                continue;
            };
            let (va, vb) = (value(field, &empty, a, now), value(field, &empty, b, now));
            let ord = match (va.parse::<f64>(), vb.parse::<f64>()) {
                (Ok(x), Ok(y)) => x.partial_cmp(&y).unwrap_or(std::cmp::Ordering::Equal),
                _ => va.cmp(&vb),
            };
            let ord = if *desc { ord.reverse() } else { ord };
            if ord != std::cmp::Ordering::Equal {
                return ord;
            }
        }
        std::cmp::Ordering::Equal
    });
}

/// `--forest`/`f`: each process under its parent with ` \_ ` and ` |  ` art. Top-level
/// processes come last-started first, as procps orders them; children oldest first.
fn forest<'a>(shown: &[&'a ProcEntry]) -> Vec<(usize, &'a ProcEntry, String)> {
    let is_shown = |pid: u32| shown.iter().any(|e| e.pid == pid);
    let mut roots: Vec<&ProcEntry> = shown
        .iter()
        .copied()
        .filter(|e| e.ppid == 0 || !is_shown(e.ppid))
        .collect();
    roots.sort_by_key(|e| std::cmp::Reverse(e.pid));
    let mut out = Vec::new();
    fn walk<'a>(
        e: &'a ProcEntry,
        shown: &[&'a ProcEntry],
        depth: usize,
        trail: &mut Vec<bool>,
        out: &mut Vec<(usize, &'a ProcEntry, String)>,
    ) {
        let mut prefix = String::new();
        if depth > 0 {
            for more in &trail[..trail.len() - 1] {
                prefix.push_str(if *more { " |  " } else { "    " });
            }
            prefix.push_str(" \\_ ");
        }
        out.push((depth, e, prefix));
        let kids: Vec<&ProcEntry> = shown
            .iter()
            .copied()
            .filter(|k| k.ppid == e.pid && k.pid != e.pid)
            .collect();
        for (n, k) in kids.iter().enumerate() {
            trail.push(n + 1 < kids.len());
            walk(k, shown, depth + 1, trail, out);
            trail.pop();
        }
    }
    for r in roots {
        walk(r, shown, 0, &mut vec![], &mut out);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn format_lists_split_and_take_headers() {
        let cols = parse_format("pid,ppid cmd").unwrap();
        assert_eq!(cols.len(), 3);
        let cols = parse_format("comm=").unwrap();
        assert_eq!(cols[0].header, "");
        let cols = parse_format("pid=A,comm").unwrap();
        assert_eq!(cols.len(), 2);
        assert_eq!(cols[0].header, "A");
        assert!(parse_format("bogus").is_err());
    }

    #[test]
    fn pid_lists_are_checked() {
        assert_eq!(pid_list("1,2 3").unwrap(), [1, 2, 3]);
        assert_eq!(pid_list("0").unwrap_err(), "process ID out of range");
        assert_eq!(pid_list("x").unwrap_err(), "process ID list syntax error");
    }

    #[test]
    fn elapsed_times() {
        assert_eq!(elapsed(5), "00:05");
        assert_eq!(elapsed(3661), "01:01:01");
        assert_eq!(elapsed(90061), "1-01:01:01");
    }
}
