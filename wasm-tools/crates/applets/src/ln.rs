//! `ln`: GNU coreutils 8.32 (identical in 9.1) in the C locale.
//!
//! Supported: the four forms (`ln TARGET LINK`, `ln TARGET`, `ln TARGET... DIR`,
//! `ln -t DIR TARGET...`), options anywhere (GNU permutes them: upstream's golds write
//! `ln /testbed/dir -s /`), `-s -f -i -n -T -v -r -L -P -d/-F -b --backup[=CONTROL] -S SUF
//! -t DIR`, `VERSION_CONTROL` and `SIMPLE_BACKUP_SUFFIX`. Symbolic links go through
//! `hostcalls::symlink`, since WASI's own `symlink` refuses absolute targets (`ln -s / x`);
//! hard links through `std::fs::hard_link`. GNU's decision sequence is kept: with two
//! operands the link is tried first and the last operand is only taken as a directory when
//! that fails with "exists"; `-f` replaces the destination through a temporary name and a
//! rename, so a failing link never loses it; a directory is never overwritten; `-f` refuses
//! to replace a file with a link to itself. Messages are GNU's (`ln: failed to create
//! symbolic link 'x': File exists`, `ln: target 'd': No such file or directory`,
//! `'x' -> 'y'` for `-v`), exit status 1 on any failure.
//!
//! Differences: `-r` resolves `..` and symbolic links itself (WASI has no `realpath`), which
//! gives GNU's result for paths inside the sandbox; the "will not overwrite just-created"
//! check compares names and inode numbers, as GNU's does.

use crate::common::getopt::{self, Config, OptSpec};
use crate::common::io::{prog, report, run_main};
use crate::common::{Io, quote, sys};
use std::collections::HashSet;
use std::ffi::OsString;
use std::io::{self, BufRead};

pub fn main(args: Vec<OsString>) -> i32 {
    run_main(args, run)
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum K {
    Backup,
    BackupNoArg,
    Directory,
    NoDeref,
    NoTargetDir,
    Force,
    Interactive,
    Suffix,
    TargetDir,
    Logical,
    Physical,
    Relative,
    Symbolic,
    Verbose,
    Help,
    Version,
}

/// GNU's table order (abbreviation ambiguities list candidates in this order).
const SPECS: &[OptSpec<K>] = &[
    getopt::long_opt_arg("backup", K::Backup),
    getopt::flag('F', "directory", K::Directory),
    getopt::flag('n', "no-dereference", K::NoDeref),
    getopt::flag('T', "no-target-directory", K::NoTargetDir),
    getopt::flag('f', "force", K::Force),
    getopt::flag('i', "interactive", K::Interactive),
    getopt::with_arg('S', "suffix", K::Suffix),
    getopt::with_arg('t', "target-directory", K::TargetDir),
    getopt::flag('L', "logical", K::Logical),
    getopt::flag('P', "physical", K::Physical),
    getopt::flag('r', "relative", K::Relative),
    getopt::flag('s', "symbolic", K::Symbolic),
    getopt::flag('v', "verbose", K::Verbose),
    getopt::long_flag("help", K::Help),
    getopt::long_flag("version", K::Version),
    getopt::flag('b', "", K::BackupNoArg),
    getopt::flag('d', "", K::Directory),
];

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Backup {
    None,
    Simple,
    Existing,
    Numbered,
}

/// The outcome of a link attempt, GNU-style: not tried yet, done, or failed.
#[derive(Debug)]
enum Attempt {
    NotTried,
    Done,
    Failed(io::Error),
}

struct Ln<'a, 'b> {
    io: &'a mut Io<'b>,
    prog: String,
    symbolic: bool,
    relative: bool,
    logical: bool,
    force: bool,
    interactive: bool,
    verbose: bool,
    hard_dir_link: bool,
    backup: Backup,
    suffix: String,
    /// Hard links made by this run with `-f` into a directory (name, device, inode).
    created: Option<HashSet<(String, u64, u64)>>,
}

/// `quoteaf`: always shell-quoted.
fn qa(s: &str) -> String {
    quote::shell_always(s)
}

/// `quotef`: shell-quoted only when needed.
fn qf(s: &str) -> String {
    quote::shell_if_needed(s)
}

fn last_component(name: &str) -> &str {
    let t = name.trim_start_matches('/');
    if t.is_empty() {
        return name;
    }
    let trimmed = t.trim_end_matches('/');
    match trimmed.rfind('/') {
        Some(i) => &t[i + 1..],
        None => t,
    }
}

fn dir_name(path: &str) -> String {
    let t = path.trim_end_matches('/');
    match t.rfind('/') {
        None => ".".to_string(),
        Some(i) => {
            let d = t[..i].trim_end_matches('/');
            if d.is_empty() {
                "/".to_string()
            } else {
                d.to_string()
            }
        }
    }
}

/// gnulib `file_name_concat`: `dir/base` without doubling the slash.
/// gnulib `file_name_concat`: a separator only where neither side has one (so `ln -s / d`
/// names `d/`).
fn concat(dir: &str, base: &str) -> String {
    if dir.ends_with('/') || base.starts_with('/') {
        format!("{dir}{base}")
    } else {
        format!("{dir}/{base}")
    }
}

fn cwd() -> String {
    std::env::current_dir()
        .map(|p| p.to_string_lossy().into_owned())
        .unwrap_or_else(|_| "/".to_string())
}

/// `canonicalize_filename_mode(…, CAN_MISSING)`: an absolute path with symbolic links, `.`
/// and `..` resolved; components that do not exist are kept as they are.
fn canonicalize(path: &str) -> String {
    let mut comps: Vec<String> = Vec::new();
    let mut queue: std::collections::VecDeque<String> = std::collections::VecDeque::new();
    let start = if path.starts_with('/') {
        path.to_string()
    } else {
        format!("{}/{path}", cwd())
    };
    queue.extend(start.split('/').map(String::from));
    let mut hops = 0;
    while let Some(c) = queue.pop_front() {
        match c.as_str() {
            "" | "." => continue,
            ".." => {
                comps.pop();
                continue;
            }
            _ => {}
        }
        comps.push(c);
        let p = format!("/{}", comps.join("/"));
        if let Ok(st) = hostcalls::stat(&p, false)
            && st.is_symlink()
            && hops < 40
            && let Ok(t) = hostcalls::read_link(&p)
        {
            hops += 1;
            comps.pop();
            let t = t.to_string_lossy().into_owned();
            if t.starts_with('/') {
                comps.clear();
            }
            for (k, part) in t.split('/').enumerate() {
                queue.insert(k, part.to_string());
            }
        }
    }
    format!("/{}", comps.join("/"))
}

/// gnulib `relpath`: `path` relative to the directory `base` (both canonical).
fn relpath(path: &str, base: &str) -> String {
    let p: Vec<&str> = path.split('/').filter(|c| !c.is_empty()).collect();
    let b: Vec<&str> = base.split('/').filter(|c| !c.is_empty()).collect();
    let common = p.iter().zip(&b).take_while(|(x, y)| x == y).count();
    let mut parts: Vec<&str> = vec![".."; b.len() - common];
    parts.extend(&p[common..]);
    if parts.is_empty() {
        ".".to_string()
    } else {
        parts.join("/")
    }
}

/// Follows symbolic links at the end of `path` (for `-L`).
fn resolve_last(path: &str) -> String {
    let mut p = path.to_string();
    for _ in 0..40 {
        match hostcalls::read_link(&p) {
            Ok(t) => {
                let t = t.to_string_lossy().into_owned();
                p = if t.starts_with('/') {
                    t
                } else {
                    match p.rfind('/') {
                        Some(i) => format!("{}/{t}", &p[..i]),
                        None => t,
                    }
                };
            }
            Err(_) => break,
        }
    }
    p
}

fn is_kind(e: &io::Error, k: io::ErrorKind) -> bool {
    e.kind() == k
}

impl Ln<'_, '_> {
    fn error(&mut self, msg: &str) {
        report(self.io.out, self.io.err, &self.prog, msg);
    }

    /// Makes the link without removing anything.
    fn link(&self, source: &str, dest: &str) -> io::Result<()> {
        // Linux makes no link whose name ends in a slash: EEXIST where something of that name
        // exists (`ln -s x dir/` then links inside `dir`, as GNU retries), else ENOENT. Into
        // a directory, a source that is all slashes has an empty name, which is ENOENT (GNU
        // calls `symlinkat(…, dirfd, "")`).
        if dest.ends_with('/') {
            let name = dest.trim_end_matches('/');
            let empty_base = source.trim_start_matches('/').is_empty();
            let exists = !empty_base && (name.is_empty() || hostcalls::stat(name, false).is_ok());
            return Err(io::Error::from(if exists {
                io::ErrorKind::AlreadyExists
            } else {
                io::ErrorKind::NotFound
            }));
        }
        if self.symbolic {
            hostcalls::symlink(source, dest)
        } else if self.logical {
            std::fs::hard_link(resolve_last(source), dest)
        } else {
            std::fs::hard_link(source, dest)
        }
    }

    /// GNU's `atomic_link`: not tried for `-r` (the target is rewritten first).
    fn atomic_link(&self, source: &str, dest: &str) -> Attempt {
        if self.symbolic && self.relative {
            return Attempt::NotTried;
        }
        match self.link(source, dest) {
            Ok(()) => Attempt::Done,
            Err(e) => Attempt::Failed(e),
        }
    }

    /// Replaces `dest` by a new link atomically: link under a temporary name, then rename.
    fn replace(&self, source: &str, dest: &str) -> io::Result<()> {
        let dir = dir_name(dest);
        let mut n = 0u32;
        loop {
            let tmp = concat(
                &dir,
                &format!(".ln{:06}", (n.wrapping_mul(7919) + 12345) % 1_000_000),
            );
            match self.link(source, &tmp) {
                Ok(()) => {
                    let r = std::fs::rename(&tmp, dest);
                    // Also after a successful rename: if both names were already hard links
                    // to the same file, rename did nothing.
                    let _ = std::fs::remove_file(&tmp);
                    return r;
                }
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists && n < 100 => n += 1,
                Err(e) => return Err(e),
            }
        }
    }

    fn backup_name(&self, dest: &str) -> String {
        let base = last_component(dest).trim_end_matches('/').to_string();
        let dir = dir_name(dest);
        let numbered_max = || -> Option<u64> {
            let rd = std::fs::read_dir(&dir).ok()?;
            let prefix = format!("{base}.~");
            rd.filter_map(|e| e.ok())
                .filter_map(|e| {
                    let n = e.file_name().to_string_lossy().into_owned();
                    let num = n.strip_prefix(&prefix)?.strip_suffix('~')?;
                    (!num.is_empty() && num.bytes().all(|b| b.is_ascii_digit()))
                        .then(|| num.parse::<u64>().ok())
                        .flatten()
                })
                .max()
        };
        let numbered = match self.backup {
            Backup::Numbered => Some(numbered_max().unwrap_or(0) + 1),
            Backup::Existing => numbered_max().map(|m| m + 1),
            _ => None,
        };
        let name = match numbered {
            Some(n) => format!("{base}.~{n}~"),
            None => format!("{base}{}", self.suffix),
        };
        match dest.rfind('/') {
            Some(i) => format!("{}{name}", &dest[..=i]),
            None => name,
        }
    }

    fn ask(&mut self, dest: &str) -> bool {
        let _ = self.io.out.flush();
        let _ = write!(self.io.err, "{}: replace {}? ", self.prog, qa(dest));
        let mut line = String::new();
        let mut reader = io::BufReader::new(&mut *self.io.stdin);
        let _ = reader.read_line(&mut line);
        line.starts_with(['y', 'Y'])
    }

    /// GNU's `do_link`.
    fn do_link(&mut self, source: &str, dest: &str, mut attempt: Attempt) -> bool {
        if matches!(attempt, Attempt::NotTried) && !(self.symbolic && self.relative) {
            attempt = self.atomic_link(source, dest);
        }
        let failed = !matches!(attempt, Attempt::Done);
        let mut source_stat = None;
        if (failed || self.created.is_some()) && !self.symbolic {
            match hostcalls::stat(source, self.logical) {
                Ok(st) => source_stat = Some(st),
                Err(e) => {
                    self.error(&format!(
                        "failed to access {}: {}",
                        qa(source),
                        sys::strerror(&e)
                    ));
                    return false;
                }
            }
        }
        let mut source = source.to_string();
        let mut backup_made: Option<String> = None;
        if failed {
            if !self.symbolic && !self.hard_dir_link && source_stat.is_some_and(|s| s.is_dir()) {
                self.error(&format!(
                    "{}: hard link not allowed for directory",
                    qf(&source)
                ));
                return false;
            }
            if self.relative {
                let rel = relpath(&canonicalize(&source), &canonicalize(&dir_name(dest)));
                source = rel;
            }
            let mut force = self.force || self.interactive || self.backup != Backup::None;
            if force {
                match hostcalls::stat(dest, false) {
                    Err(e) => {
                        if e.kind() != io::ErrorKind::NotFound {
                            self.error(&format!(
                                "failed to access {}: {}",
                                qa(dest),
                                sys::strerror(&e)
                            ));
                            return false;
                        }
                        force = false;
                    }
                    Ok(dst) if dst.is_dir() => {
                        self.error(&format!("{}: cannot overwrite directory", qf(dest)));
                        return false;
                    }
                    Ok(dst) => {
                        if let Some(set) = &self.created
                            && set.contains(&(dest.to_string(), dst.dev, dst.ino))
                        {
                            self.error(&format!(
                                "will not overwrite just-created {} with {}",
                                qa(dest),
                                qa(&source)
                            ));
                            return false;
                        }
                        let check_same = if self.backup != Backup::None {
                            !self.symbolic
                        } else {
                            self.force
                        };
                        if check_same {
                            let st = source_stat.or_else(|| hostcalls::stat(&source, true).ok());
                            if let Some(st) = st
                                && st.dev == dst.dev
                                && st.ino == dst.ino
                                && (st.nlink == 1 || same_name(&source, dest))
                            {
                                self.error(&format!(
                                    "{} and {} are the same file",
                                    qa(&source),
                                    qa(dest)
                                ));
                                return false;
                            }
                        }
                        let exists = match &attempt {
                            Attempt::NotTried => true,
                            Attempt::Failed(e) => is_kind(e, io::ErrorKind::AlreadyExists),
                            Attempt::Done => false,
                        };
                        if exists {
                            if self.interactive && !self.ask(dest) {
                                return true;
                            }
                            if self.backup != Backup::None {
                                let b = self.backup_name(dest);
                                match std::fs::rename(dest, &b) {
                                    Ok(()) => backup_made = Some(b),
                                    Err(e) if e.kind() == io::ErrorKind::NotFound => force = false,
                                    Err(e) => {
                                        self.error(&format!(
                                            "cannot backup {}: {}",
                                            qa(dest),
                                            sys::strerror(&e)
                                        ));
                                        return false;
                                    }
                                }
                            }
                        }
                    }
                }
            }
            // Try again, replacing the destination if told to.
            attempt = match attempt {
                Attempt::Failed(e) if force && is_kind(&e, io::ErrorKind::AlreadyExists) => {
                    match self.replace(&source, dest) {
                        Ok(()) => Attempt::Done,
                        Err(e) => Attempt::Failed(e),
                    }
                }
                Attempt::NotTried | Attempt::Failed(_) if backup_made.is_some() => {
                    match self.link(&source, dest) {
                        Ok(()) => Attempt::Done,
                        Err(e) => Attempt::Failed(e),
                    }
                }
                Attempt::NotTried => match self.link(&source, dest) {
                    Ok(()) => Attempt::Done,
                    Err(e) if force && is_kind(&e, io::ErrorKind::AlreadyExists) => {
                        match self.replace(&source, dest) {
                            Ok(()) => Attempt::Done,
                            Err(e) => Attempt::Failed(e),
                        }
                    }
                    Err(e) => Attempt::Failed(e),
                },
                other => other,
            };
        }
        match attempt {
            Attempt::Done | Attempt::NotTried => {
                if !self.symbolic
                    && let Some(set) = &mut self.created
                    && let Some(st) = source_stat
                {
                    set.insert((dest.to_string(), st.dev, st.ino));
                }
                if self.verbose {
                    let b = backup_made
                        .as_deref()
                        .map(|b| format!("{} ~ ", qa(b)))
                        .unwrap_or_default();
                    let arrow = if self.symbolic { '-' } else { '=' };
                    let line = format!("{b}{} {arrow}> {}\n", qa(dest), qa(&source));
                    let _ = self.io.out.write_all(line.as_bytes());
                }
                true
            }
            Attempt::Failed(e) => {
                let msg = if self.symbolic {
                    if !is_kind(&e, io::ErrorKind::InvalidFilename) && !source.is_empty() {
                        format!("failed to create symbolic link {}", qa(dest))
                    } else {
                        format!(
                            "failed to create symbolic link {} -> {}",
                            qa(dest),
                            qa(&source)
                        )
                    }
                } else if is_kind(&e, io::ErrorKind::TooManyLinks) {
                    format!("failed to create hard link to {}", qa(&source))
                } else if [
                    io::ErrorKind::QuotaExceeded,
                    io::ErrorKind::AlreadyExists,
                    io::ErrorKind::StorageFull,
                    io::ErrorKind::ReadOnlyFilesystem,
                ]
                .contains(&e.kind())
                {
                    format!("failed to create hard link {}", qa(dest))
                } else {
                    format!("failed to create hard link {} => {}", qa(dest), qa(&source))
                };
                self.error(&format!("{msg}: {}", sys::strerror(&e)));
                if let Some(b) = backup_made
                    && let Err(e) = std::fs::rename(&b, dest)
                {
                    self.error(&format!(
                        "cannot un-backup {}: {}",
                        qa(dest),
                        sys::strerror(&e)
                    ));
                }
                false
            }
        }
    }
}

/// Whether two names are the same directory entry: same last component in the same
/// directory (gnulib `same_nameat`).
fn same_name(a: &str, b: &str) -> bool {
    if last_component(a) != last_component(b) {
        return false;
    }
    match (
        hostcalls::stat(&dir_name(a), true),
        hostcalls::stat(&dir_name(b), true),
    ) {
        (Ok(x), Ok(y)) => x.dev == y.dev && x.ino == y.ino,
        _ => false,
    }
}

fn usage(io: &mut Io, prog: &str, msg: &str) -> i32 {
    if !msg.is_empty() {
        let _ = writeln!(io.err, "{prog}: {msg}");
    }
    let _ = writeln!(io.err, "{}", gnu::usage::try_help(prog));
    1
}

fn backup_type(io: &mut Io, prog: &str, arg: Option<&str>) -> Result<Backup, i32> {
    let env = std::env::var("VERSION_CONTROL").ok();
    let (value, what) = match arg {
        Some(a) => (Some(a.to_string()), "backup type"),
        None => (env, "$VERSION_CONTROL"),
    };
    let Some(v) = value.filter(|v| !v.is_empty()) else {
        return Ok(Backup::Existing);
    };
    let choices = [
        ("none", Backup::None),
        ("off", Backup::None),
        ("simple", Backup::Simple),
        ("never", Backup::Simple),
        ("existing", Backup::Existing),
        ("nil", Backup::Existing),
        ("numbered", Backup::Numbered),
        ("t", Backup::Numbered),
    ];
    if let Some((_, b)) = choices.iter().find(|(n, _)| *n == v) {
        return Ok(*b);
    }
    let hits: Vec<Backup> = choices
        .iter()
        .filter(|(n, _)| n.starts_with(v.as_str()))
        .map(|(_, b)| *b)
        .collect();
    if let Some(first) = hits.first()
        && hits.iter().all(|b| b == first)
    {
        return Ok(*first);
    }
    let kind = if hits.is_empty() {
        "invalid"
    } else {
        "ambiguous"
    };
    let _ = writeln!(
        io.err,
        "{prog}: {kind} argument {} for {}\nValid arguments are:\n  - 'none', 'off'\n  - 'simple', 'never'\n  - 'existing', 'nil'\n  - 'numbered', 't'",
        qa(&v),
        qa(what)
    );
    Err(usage(io, prog, ""))
}

pub fn run(args: &[String], io: &mut Io) -> i32 {
    let prog = prog(args, "ln");
    let parsed = match getopt::parse(args, SPECS, Config::default()) {
        Ok(p) => p,
        Err(msg) => return usage(io, &prog, &msg),
    };
    let mut ln = Ln {
        io,
        prog: prog.clone(),
        symbolic: false,
        relative: false,
        logical: false,
        force: false,
        interactive: false,
        verbose: false,
        hard_dir_link: false,
        backup: Backup::None,
        suffix: String::new(),
        created: None,
    };
    let mut make_backups = false;
    let mut version_control: Option<String> = None;
    let mut suffix: Option<String> = None;
    let mut target_dir: Option<String> = None;
    let mut no_target_dir = false;
    let mut deref_dest_dir = true;
    for o in &parsed.opts {
        let arg = o.arg.clone().unwrap_or_default();
        match o.key {
            K::Backup => {
                make_backups = true;
                if o.arg.is_some() {
                    version_control = o.arg.clone();
                }
            }
            K::BackupNoArg => make_backups = true,
            K::Directory => ln.hard_dir_link = true,
            K::Force => {
                ln.force = true;
                ln.interactive = false;
            }
            K::Interactive => {
                ln.force = false;
                ln.interactive = true;
            }
            K::Logical => ln.logical = true,
            K::Physical => ln.logical = false,
            K::NoDeref => deref_dest_dir = false,
            K::Relative => ln.relative = true,
            K::Symbolic => ln.symbolic = true,
            K::TargetDir => {
                if target_dir.is_some() {
                    ln.error("multiple target directories specified");
                    return 1;
                }
                match hostcalls::stat(&arg, true) {
                    Err(e) => {
                        ln.error(&format!(
                            "failed to access {}: {}",
                            qa(&arg),
                            sys::strerror(&e)
                        ));
                        return 1;
                    }
                    Ok(st) if !st.is_dir() => {
                        ln.error(&format!("target {} is not a directory", qa(&arg)));
                        return 1;
                    }
                    Ok(_) => target_dir = Some(arg),
                }
            }
            K::NoTargetDir => no_target_dir = true,
            K::Verbose => ln.verbose = true,
            K::Suffix => {
                make_backups = true;
                suffix = Some(arg);
            }
            K::Help => {
                let _ = writeln!(
                    ln.io.out,
                    "Usage: {prog} [OPTION]... [-T] TARGET LINK_NAME\n  or:  {prog} [OPTION]... TARGET\n  or:  {prog} [OPTION]... TARGET... DIRECTORY\n  or:  {prog} [OPTION]... -t DIRECTORY TARGET..."
                );
                return 0;
            }
            K::Version => {
                let _ = writeln!(ln.io.out, "ln (GNU coreutils) 8.32");
                return 0;
            }
        }
    }
    let mut files = parsed.operands.clone();
    if files.is_empty() {
        return usage(ln.io, &prog, "missing file operand");
    }
    if ln.relative && !ln.symbolic {
        ln.error("cannot do --relative without --symbolic");
        return 1;
    }
    let mut attempt = Attempt::NotTried;
    if no_target_dir {
        if target_dir.is_some() {
            ln.error("cannot combine --target-directory and --no-target-directory");
            return 1;
        }
        if files.len() != 2 {
            let msg = if files.len() < 2 {
                format!("missing destination file operand after {}", qa(&files[0]))
            } else {
                format!("extra operand {}", qa(&files[2]))
            };
            return usage(ln.io, &prog, &msg);
        }
    } else if files.len() < 2 && target_dir.is_none() {
        target_dir = Some(".".to_string());
    } else {
        if files.len() == 2 && target_dir.is_none() {
            attempt = ln.atomic_link(&files[0], &files[1]);
        }
        let retry = match &attempt {
            Attempt::NotTried => true,
            Attempt::Done => false,
            Attempt::Failed(e) => [
                io::ErrorKind::AlreadyExists,
                io::ErrorKind::NotADirectory,
                io::ErrorKind::InvalidInput,
            ]
            .contains(&e.kind()),
        };
        if retry {
            let d = target_dir
                .clone()
                .unwrap_or_else(|| files[files.len() - 1].clone());
            let err = match hostcalls::stat(&d, deref_dest_dir) {
                Ok(s) if s.is_dir() => None,
                Ok(_) => Some(io::Error::from(io::ErrorKind::NotADirectory)),
                Err(e) => Some(e),
            };
            match err {
                None => {
                    if target_dir.is_none() {
                        files.pop();
                    }
                    target_dir = Some(d);
                }
                Some(e) => {
                    if !(files.len() == 2 && target_dir.is_none()) {
                        ln.error(&format!("target {}: {}", qa(&d), sys::strerror(&e)));
                        return 1;
                    }
                }
            }
        }
    }
    ln.backup = if make_backups {
        match backup_type(ln.io, &prog, version_control.as_deref()) {
            Ok(b) => b,
            Err(code) => return code,
        }
    } else {
        Backup::None
    };
    ln.suffix = suffix
        .or_else(|| std::env::var("SIMPLE_BACKUP_SUFFIX").ok())
        .filter(|s| !s.is_empty() && !s.contains('/'))
        .unwrap_or_else(|| "~".to_string());
    let ok = match target_dir {
        Some(dir) => {
            if files.len() >= 2 && ln.force && !ln.symbolic && ln.backup != Backup::Numbered {
                ln.created = Some(HashSet::new());
            }
            let mut ok = true;
            for f in &files {
                let base = last_component(f).trim_end_matches('/');
                let base = if base.is_empty() { "/" } else { base };
                let dest = concat(&dir, base);
                ok &= ln.do_link(f, &dest, Attempt::NotTried);
            }
            ok
        }
        None => {
            let (a, b) = (files[0].clone(), files[1].clone());
            ln.do_link(&a, &b, attempt)
        }
    };
    i32::from(!ok)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn path_helpers() {
        assert_eq!(last_component("a/b/"), "b/");
        assert_eq!(last_component("/"), "/");
        assert_eq!(last_component("x"), "x");
        assert_eq!(dir_name("a/b"), "a");
        assert_eq!(dir_name("/b"), "/");
        assert_eq!(dir_name("b"), ".");
        assert_eq!(concat(".", "x"), "./x");
        assert_eq!(concat("/", "x"), "/x");
        assert_eq!(relpath("/tmp/x/a", "/tmp/x/d"), "../a");
        assert_eq!(relpath("/a/b", "/a"), "b");
        assert_eq!(relpath("/a", "/a"), ".");
        assert_eq!(qf("dir"), "dir");
        assert_eq!(qf("a b"), "'a b'");
    }

    fn go(args: &[&str]) -> (i32, String, String) {
        let args: Vec<String> = args.iter().map(|s| s.to_string()).collect();
        crate::common::io::capture_text(run, &args, b"")
    }

    #[test]
    fn relative_and_backups() {
        let d = tempfile::tempdir().unwrap();
        let p = |n: &str| d.path().join(n).to_string_lossy().into_owned();
        std::fs::create_dir_all(p("a/b")).unwrap();
        std::fs::write(p("f"), "x").unwrap();
        std::fs::write(p("g"), "y").unwrap();
        assert_eq!(go(&["ln", "-sr", &p("f"), &p("a/b/l")]).0, 0);
        assert_eq!(
            std::fs::read_link(p("a/b/l")).unwrap().to_string_lossy(),
            "../../f"
        );
        // -b keeps the replaced file as NAME~.
        let (code, out, _) = go(&["ln", "-bv", &p("f"), &p("g")]);
        assert_eq!(code, 0);
        assert_eq!(
            out,
            format!("'{}' ~ '{}' => '{}'\n", p("g~"), p("g"), p("f"))
        );
        assert_eq!(std::fs::read_to_string(p("g~")).unwrap(), "y");
        let (code, _, err) = go(&["ln", &p("a"), &p("h")]);
        assert_eq!(code, 1);
        assert_eq!(
            err,
            format!("ln: {}: hard link not allowed for directory\n", p("a"))
        );
    }

    #[test]
    fn symlinks_into_directories_and_errors() {
        let d = tempfile::tempdir().unwrap();
        let p = |n: &str| d.path().join(n).to_string_lossy().into_owned();
        std::fs::create_dir(p("dir")).unwrap();
        std::fs::write(p("f"), "x").unwrap();
        // Options after the operands, an absolute target, a directory as destination.
        let (code, _, err) = go(&["ln", &p("f"), "-s", &p("dir")]);
        assert_eq!((code, err.as_str()), (0, ""));
        assert_eq!(
            std::fs::read_link(p("dir/f")).unwrap().to_string_lossy(),
            p("f")
        );
        let (code, _, err) = go(&["ln", "-s", &p("f"), &p("dir")]);
        assert_eq!(code, 1);
        assert_eq!(
            err,
            format!(
                "ln: failed to create symbolic link '{}': File exists\n",
                p("dir/f")
            )
        );
        // A destination with a trailing slash: into the directory when it exists (GNU,
        // Linux's EEXIST), "No such file or directory" when it does not.
        std::fs::create_dir(p("links")).unwrap();
        let (code, _, err) = go(&["ln", "-s", &p("f"), &format!("{}/", p("links"))]);
        assert_eq!((code, err.as_str()), (0, ""));
        assert!(std::fs::symlink_metadata(p("links/f")).is_ok());
        let (code, _, err) = go(&["ln", "-s", &p("f"), &format!("{}/", p("none"))]);
        assert_eq!(code, 1);
        assert_eq!(
            err,
            format!(
                "ln: failed to create symbolic link '{}/': No such file or directory\n",
                p("none")
            )
        );
        let (code, out, _) = go(&["ln", "-sfv", "/", &p("dir/f")]);
        assert_eq!(code, 0);
        assert_eq!(out, format!("'{}' -> '/'\n", p("dir/f")));
        assert_eq!(go(&["ln"]).0, 1);
    }
}
