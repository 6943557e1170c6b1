//! `find`: GNU findutils 4.9 semantics for what InterCode's tasks and agents use.
//!
//! Supported: `-H -L -P`; starting points; operators `( ) ! -not -a -and -o -or ,`; options
//! `-maxdepth -mindepth -depth -d -xdev -mount -daystart -follow -regextype -warn -nowarn
//! -noleaf -ignore_readdir_race`; tests `-name -iname -path -ipath -wholename -iwholename
//! -lname -ilname -regex -iregex -type -xtype -size -empty -mtime -atime -ctime -mmin -amin
//! -cmin -newer -anewer -cnewer -newerXY -perm -user -group -uid -gid -nouser -nogroup -links
//! -inum -samefile -readable -writable -executable -true -false`; actions `-print -print0
//! -printf -fprint -fprint0 -fprintf -ls -fls -delete -exec -execdir -ok -okdir -prune
//! -quit`. Error messages, exit statuses, the implicit `-print`, time-window arithmetic
//! (`-mtime n` counts whole 24-hour periods back from `now - 1 day`, `-mmin` counts from now,
//! `-daystart` moves both origins to midnight) and `-size` rounding up to whole units are
//! GNU's.
//!
//! Differences from GNU, and why:
//! * **Order**: GNU prints directory entries in `readdir` order, which depends on the file
//!   system; we sort each directory's entries by name (byte order) so runs are reproducible.
//! * **`-ok`/`-okdir`** print GNU's prompt (`< cmd ... file > ? `) on stderr and then take the
//!   answer as "no" without reading stdin: in the sandbox stdin belongs to the pipeline, and an
//!   interactive confirmation cannot be given.
//! * **Warnings** such as "you have specified the global option -maxdepth after the argument
//!   -name" are printed only with `-warn`: GNU prints them only when stdin is a terminal, and
//!   in the sandbox it never is.
//! * Times are in UTC (the sandbox's zone). `-newerXt` accepts `@SECS`, `YYYY-MM-DD` and
//!   `YYYY-MM-DD HH:MM[:SS]` only. `-fstype` names the mounts of upstream's container (an
//!   `overlay` root, `proc`, `tmpfs`…, as `df` shows them). `-context`, `%F`, `%Z` are not
//!   implemented.
//! * `-exec … +` batches are limited to 128 KiB of arguments (GNU derives its limit from
//!   `ARG_MAX`); the sandbox's trees never come close.
//!
//! ```no_run
//! let status = applets::find::main(vec!["find".into(), "/testbed".into(), "-name".into(), "*.txt".into()]);
//! ```

mod parse;
mod printf;

use crate::common::exec::{self, StartError};
use crate::common::io::{prog, run_main, write_failed};
use crate::common::mode::mode_string;
use crate::common::time::{ls_date, now_ns};
use crate::common::{Io, glob, quote, sys};
use hostcalls::Stat;
use parse::{Cmp, Command, ExecSpec, Expr, Follow, PermKind, Sink, TimeField};
use std::ffi::OsString;
use std::fs::File;
use std::io::{self, BufWriter, Write};

/// Total argument bytes (with terminators) in one `-exec … +` command.
const BATCH_BYTES: usize = 128 * 1024;

pub fn main(args: Vec<OsString>) -> i32 {
    run_main(args, run)
}

/// The file being evaluated.
pub struct Entry<'a> {
    /// As printed: the starting point joined with the names below it.
    pub path: &'a str,
    /// The starting point this file was found under.
    pub start: &'a str,
    pub depth: usize,
    /// `lstat` (or `stat` when following links).
    pub st: Stat,
}

struct Batch {
    args: Vec<String>,
    bytes: usize,
    dir: Option<String>,
}

struct State<'a, 'b> {
    io: &'a mut Io<'b>,
    prog: String,
    execs: Vec<ExecSpec>,
    batches: Vec<Batch>,
    files: Vec<BufWriter<File>>,
    status: i32,
    prune: bool,
    quit: bool,
    /// A write to standard output failed; stop and report it.
    write_error: Option<io::Error>,
    now: i64,
    /// `-ls` column widths; they only grow, as in findutils.
    ls_widths: [usize; 6],
}

pub fn run(args: &[String], io: &mut Io) -> i32 {
    let prog = prog(args, "find");
    let now = now_ns();
    let cmd = match parse::parse(&args[1.min(args.len())..], now) {
        Ok(c) => c,
        Err(e) => {
            let _ = writeln!(io.err, "{prog}: {}", e.0);
            return 1;
        }
    };
    for w in &cmd.warnings {
        let _ = writeln!(io.err, "{prog}: {w}");
    }
    let mut files = Vec::new();
    for f in &cmd.files {
        match File::create(f) {
            Ok(file) => files.push(BufWriter::new(file)),
            Err(e) => {
                let _ = writeln!(io.err, "{prog}: '{f}': {}", sys::strerror(&e));
                return 1;
            }
        }
    }
    let Command {
        follow,
        paths,
        expr,
        maxdepth,
        mindepth,
        depth_first,
        xdev,
        execs,
        ..
    } = cmd;
    let batches = execs
        .iter()
        .map(|_| Batch {
            args: Vec::new(),
            bytes: 0,
            dir: None,
        })
        .collect();
    let mut st = State {
        io,
        prog,
        execs,
        batches,
        files,
        status: 0,
        prune: false,
        quit: false,
        write_error: None,
        now,
        ls_widths: [9, 6, 3, 8, 8, 8],
    };
    let walk = Walk {
        expr: &expr,
        follow,
        maxdepth,
        mindepth,
        depth_first,
        xdev,
    };
    for p in &paths {
        if st.quit {
            break;
        }
        walk.start(p, &mut st);
    }
    for i in 0..st.execs.len() {
        st.flush_batch(i);
    }
    for f in &mut st.files {
        let _ = f.flush();
    }
    if let Some(e) = st.write_error.take() {
        let args = [st.prog.clone()];
        return write_failed(&args, &e, st.io.err);
    }
    st.status
}

struct Walk<'e> {
    expr: &'e Expr,
    follow: Follow,
    maxdepth: Option<usize>,
    mindepth: usize,
    depth_first: bool,
    xdev: bool,
}

fn stat_entry(path: &str, follow: bool) -> io::Result<Stat> {
    if follow {
        // A dangling symlink is still reported, as a symlink.
        hostcalls::stat(path, true).or_else(|_| hostcalls::stat(path, false))
    } else {
        hostcalls::stat(path, false)
    }
}

impl Walk<'_> {
    fn start(&self, path: &str, st: &mut State) {
        let follow = self.follow != Follow::Never;
        match stat_entry(path, follow) {
            Ok(s) => {
                let mut ancestors = Vec::new();
                self.visit(path, path, 0, s, s.dev, &mut ancestors, st);
            }
            Err(e) => st.error(path, &e),
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn visit(
        &self,
        path: &str,
        start: &str,
        depth: usize,
        stat: Stat,
        root_dev: u64,
        ancestors: &mut Vec<(u64, u64)>,
        st: &mut State,
    ) {
        let entry = Entry {
            path,
            start,
            depth,
            st: stat,
        };
        let evaluate = depth >= self.mindepth && self.maxdepth.is_none_or(|m| depth <= m);
        st.prune = false;
        if !self.depth_first && evaluate {
            st.eval(self.expr, &entry);
            if st.quit {
                return;
            }
        }
        let descend = stat.is_dir()
            && (!st.prune || self.depth_first)
            && self.maxdepth.is_none_or(|m| depth < m)
            && !(self.xdev && stat.dev != root_dev);
        if descend {
            if self.follow == Follow::Always && ancestors.contains(&(stat.dev, stat.ino)) {
                let _ = writeln!(
                    st.io.err,
                    "{}: File system loop detected; '{path}' is part of the same file system loop as '{}'.",
                    st.prog, path
                );
                st.status = 1;
            } else {
                ancestors.push((stat.dev, stat.ino));
                self.children(path, start, depth, root_dev, ancestors, st);
                ancestors.pop();
                if st.quit {
                    return;
                }
            }
        }
        if self.depth_first && evaluate {
            st.eval(self.expr, &entry);
        }
    }

    fn children(
        &self,
        path: &str,
        start: &str,
        depth: usize,
        root_dev: u64,
        ancestors: &mut Vec<(u64, u64)>,
        st: &mut State,
    ) {
        let names = match std::fs::read_dir(path) {
            Ok(rd) => {
                let mut names: Vec<String> = rd
                    .filter_map(|e| e.ok())
                    .map(|e| e.file_name().to_string_lossy().into_owned())
                    .collect();
                names.sort_unstable_by(|a, b| a.as_bytes().cmp(b.as_bytes()));
                names
            }
            Err(e) => {
                st.error(path, &e);
                return;
            }
        };
        let follow = self.follow == Follow::Always;
        for name in names {
            let child = if path.ends_with('/') {
                format!("{path}{name}")
            } else {
                format!("{path}/{name}")
            };
            match stat_entry(&child, follow) {
                Ok(s) => self.visit(&child, start, depth + 1, s, root_dev, ancestors, st),
                Err(e) => st.error(&child, &e),
            }
            if st.quit {
                return;
            }
        }
    }
}

/// The name `-name` matches: the last component without trailing slashes.
fn match_name(path: &str) -> &str {
    let t = path.trim_end_matches('/');
    if t.is_empty() {
        return if path.is_empty() { "" } else { "/" };
    }
    match t.rfind('/') {
        Some(i) => &t[i + 1..],
        None => t,
    }
}

fn time_of(s: &Stat, f: TimeField) -> i64 {
    match f {
        TimeField::Access => s.atime_ns,
        TimeField::Change => s.ctime_ns,
        TimeField::Modify => s.mtime_ns,
    }
}

fn type_matches(types: &[char], mode: u32) -> bool {
    let c = match crate::common::mode::type_char(mode) {
        '-' => 'f',
        c => c,
    };
    types.contains(&c)
}

impl State<'_, '_> {
    fn error(&mut self, path: &str, e: &io::Error) {
        let _ = writeln!(self.io.err, "{}: '{path}': {}", self.prog, sys::strerror(e));
        self.status = 1;
    }

    fn write(&mut self, sink: Sink, data: &[u8]) {
        let r = match sink {
            Sink::Stdout => self.io.out.write_all(data),
            Sink::Stderr => {
                // GNU's stderr is unbuffered, but stdout written so far comes first only if
                // flushed; keep the streams' own buffering.
                self.io.err.write_all(data)
            }
            Sink::Null => Ok(()),
            Sink::File(i) => self.files[i].write_all(data),
        };
        if let Err(e) = r
            && sink == Sink::Stdout
        {
            self.write_error = Some(e);
            self.quit = true;
        }
    }

    fn eval(&mut self, e: &Expr, f: &Entry) -> bool {
        match e {
            Expr::And(a, b) => self.eval(a, f) && !self.quit && self.eval(b, f),
            Expr::Or(a, b) => self.eval(a, f) || (!self.quit && self.eval(b, f)),
            Expr::Not(a) => !self.eval(a, f),
            Expr::Comma(a, b) => {
                self.eval(a, f);
                !self.quit && self.eval(b, f)
            }
            Expr::Const(v) => *v,
            Expr::Name { pat, icase } => glob::matches(pat, match_name(f.path), *icase),
            Expr::Path { pat, icase } => glob::matches(pat, f.path, *icase),
            Expr::LName { pat, icase } => {
                f.st.is_symlink()
                    && hostcalls::read_link(f.path)
                        .is_ok_and(|t| glob::matches(pat, &t.to_string_lossy(), *icase))
            }
            Expr::Regex(rx) => rx.is_match(f.path.as_bytes()),
            Expr::Type(types) => type_matches(types, f.st.mode),
            Expr::XType(types) => {
                // The other view of symlinks: followed when walking physically, not followed
                // under -L.
                let other = if f.st.is_symlink() {
                    hostcalls::stat(f.path, true).unwrap_or(f.st)
                } else {
                    hostcalls::stat(f.path, false).unwrap_or(f.st)
                };
                type_matches(types, other.mode)
            }
            Expr::Size { cmp, n, unit } => cmp.test(f.st.size.div_ceil(*unit), *n),
            Expr::Empty => {
                if f.st.is_dir() {
                    std::fs::read_dir(f.path).is_ok_and(|mut d| d.next().is_none())
                } else {
                    f.st.is_file() && f.st.size == 0
                }
            }
            Expr::Time {
                field,
                cmp,
                reference,
                window,
            } => {
                let t = time_of(&f.st, *field);
                match cmp {
                    Cmp::Gt => t < *reference,
                    Cmp::Lt => t > *reference,
                    Cmp::Eq => t >= *reference && t - *reference < *window,
                }
            }
            Expr::Newer { field, reference } => time_of(&f.st, *field) > *reference,
            Expr::Perm { kind, mode } => {
                let m = f.st.mode & 0o7777;
                match kind {
                    PermKind::Exact => m == *mode,
                    PermKind::All => m & mode == *mode,
                    PermKind::Any => *mode == 0 || m & mode != 0,
                }
            }
            Expr::Uid(c, n) => c.test(u64::from(f.st.uid), *n),
            Expr::Gid(c, n) => c.test(u64::from(f.st.gid), *n),
            Expr::NoUser => sys::passwd().name(f.st.uid).is_none(),
            Expr::NoGroup => sys::group().name(f.st.gid).is_none(),
            Expr::Links(c, n) => c.test(f.st.nlink, *n),
            Expr::Inum(c, n) => c.test(f.st.ino, *n),
            Expr::SameFile { dev, ino } => f.st.dev == *dev && f.st.ino == *ino,
            Expr::FsType(want) => crate::df::fstype_of(&crate::df::absolute(f.path)) == *want,
            Expr::Readable => self.access(f, 4),
            Expr::Writable => self.access(f, 2),
            Expr::Executable => self.access(f, 1),
            Expr::Prune => {
                self.prune = true;
                true
            }
            Expr::Quit => {
                self.quit = true;
                true
            }
            Expr::Print { sink, nul } => {
                let mut line = f.path.as_bytes().to_vec();
                line.push(if *nul { 0 } else { b'\n' });
                self.write(*sink, &line);
                true
            }
            Expr::Printf { sink, fmt } => {
                let data = printf::render(fmt, f);
                self.write(*sink, &data);
                true
            }
            Expr::Ls { sink } => {
                let line = self.ls_line(f);
                self.write(*sink, line.as_bytes());
                true
            }
            Expr::Delete => self.delete(f),
            Expr::Exec(i) => self.exec(*i, f),
        }
    }

    fn access(&self, f: &Entry, want: u32) -> bool {
        let st = if f.st.is_symlink() {
            match hostcalls::stat(f.path, true) {
                Ok(s) => s,
                Err(_) => return false,
            }
        } else {
            f.st
        };
        sys::access_ok(&st, want)
    }

    fn delete(&mut self, f: &Entry) -> bool {
        // GNU never removes the starting point ".".
        if f.path == "." {
            return true;
        }
        let r = if f.st.is_dir() {
            std::fs::remove_dir(f.path)
        } else {
            std::fs::remove_file(f.path)
        };
        match r {
            Ok(()) => true,
            Err(e) => {
                let _ = writeln!(
                    self.io.err,
                    "{}: cannot delete '{}': {}",
                    self.prog,
                    f.path,
                    sys::strerror(&e)
                );
                self.status = 1;
                false
            }
        }
    }

    fn ls_line(&mut self, f: &Entry) -> String {
        let s = &f.st;
        let fields = [
            s.ino.to_string(),
            s.blocks.div_ceil(2).to_string(),
            s.nlink.to_string(),
            sys::user_name(s.uid),
            sys::group_name(s.gid),
            s.size.to_string(),
        ];
        for (w, v) in self.ls_widths.iter_mut().zip(&fields) {
            *w = (*w).max(v.len());
        }
        let w = self.ls_widths;
        let mut line = format!(
            "{:>w0$} {:>w1$} {} {:>w2$} {:<w3$} {:<w4$} {:>w5$} {} {}",
            fields[0],
            fields[1],
            mode_string(s.mode),
            fields[2],
            fields[3],
            fields[4],
            fields[5],
            ls_date(s.mtime_ns, self.now),
            quote::escape(f.path),
            w0 = w[0],
            w1 = w[1],
            w2 = w[2],
            w3 = w[3],
            w4 = w[4],
            w5 = w[5],
        );
        if s.is_symlink()
            && let Ok(t) = hostcalls::read_link(f.path)
        {
            line.push_str(" -> ");
            line.push_str(&quote::escape(&t.to_string_lossy()));
        }
        line.push('\n');
        line
    }

    /// The argument and working directory `-execdir` uses for a file.
    fn in_dir_arg(path: &str) -> (String, String) {
        let base = match_name(path);
        if base == "/" {
            return ("/".into(), "/".into());
        }
        let trimmed = path.trim_end_matches('/');
        let dir = match trimmed.rfind('/') {
            Some(0) => "/".to_string(),
            Some(i) => trimmed[..i].to_string(),
            None => ".".to_string(),
        };
        (format!("./{base}"), dir)
    }

    fn exec(&mut self, i: usize, f: &Entry) -> bool {
        let spec = self.execs[i].clone();
        let (arg, dir) = if spec.in_dir {
            let (a, d) = Self::in_dir_arg(f.path);
            (a, Some(d))
        } else {
            (f.path.to_string(), None)
        };
        if spec.batch {
            let b = &self.batches[i];
            if b.dir != dir || b.bytes + arg.len() + 1 > BATCH_BYTES {
                self.flush_batch(i);
            }
            let b = &mut self.batches[i];
            b.dir = dir;
            b.bytes += arg.len() + 1;
            b.args.push(arg);
            return true;
        }
        let argv: Vec<String> = spec.argv.iter().map(|a| a.replace("{}", &arg)).collect();
        if spec.ask {
            let _ = self.io.out.flush();
            let _ = write!(self.io.err, "< {} ... {} > ? ", spec.argv[0], arg);
            return false;
        }
        match self.spawn(&argv, dir.as_deref()) {
            Some(code) => code == 0,
            None => false,
        }
    }

    /// GNU's report of a command killed by a signal (the sandbox's status 128+N, as bash
    /// shows it): `find: 'grep' terminated by signal 13` when the reader of the pipe quit.
    fn report_signal(&mut self, command: &str, code: i32) {
        if code <= 128 {
            return;
        }
        let _ = self.io.out.flush();
        let _ = writeln!(
            self.io.err,
            "{}: {} terminated by signal {}",
            self.prog,
            quote::locale(command),
            code - 128
        );
    }

    fn flush_batch(&mut self, i: usize) {
        if self.batches[i].args.is_empty() {
            return;
        }
        let b = std::mem::replace(
            &mut self.batches[i],
            Batch {
                args: Vec::new(),
                bytes: 0,
                dir: None,
            },
        );
        let mut argv = self.execs[i].argv.clone();
        argv.extend(b.args);
        match self.spawn(&argv, b.dir.as_deref()) {
            Some(0) => {}
            _ => self.status = 1,
        }
    }

    /// Runs a command; `None` if it could not be started (reported like GNU).
    fn spawn(&mut self, argv: &[String], dir: Option<&str>) -> Option<i32> {
        match exec::run(argv, dir, false, self.io.out) {
            Ok(code) => {
                self.report_signal(&argv[0], code);
                Some(code)
            }
            Err(e) => {
                let msg = match &e {
                    StartError::NotFound => "No such file or directory".to_string(),
                    StartError::NotExecutable(err) => sys::strerror(err),
                };
                let _ = writeln!(self.io.err, "{}: '{}': {msg}", self.prog, argv[0]);
                None
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn find_in(dir: &std::path::Path, args: &[&str]) -> (i32, String, String) {
        let mut argv = vec!["find".to_string()];
        argv.extend(args.iter().map(|a| a.replace("@", dir.to_str().unwrap())));
        let (code, out, err) = crate::common::io::capture_text(run, &argv, b"");
        let d = dir.to_str().unwrap();
        (code, out.replace(d, "@"), err.replace(d, "@"))
    }

    fn tree() -> tempfile::TempDir {
        let d = tempfile::tempdir().unwrap();
        let p = d.path();
        std::fs::create_dir_all(p.join("a/b")).unwrap();
        std::fs::create_dir_all(p.join("empty")).unwrap();
        std::fs::write(p.join("a/x.txt"), "hello\n").unwrap();
        std::fs::write(p.join("a/b/y.TXT"), vec![b'z'; 2000]).unwrap();
        std::fs::write(p.join("z.c"), "").unwrap();
        d
    }

    #[test]
    fn sorted_walk_and_default_print() {
        let d = tree();
        let (code, out, _) = find_in(d.path(), &["@"]);
        assert_eq!(code, 0);
        assert_eq!(
            out,
            "@\n@/a\n@/a/b\n@/a/b/y.TXT\n@/a/x.txt\n@/empty\n@/z.c\n"
        );
    }

    #[test]
    fn fstype_names_the_mount_of_upstreams_container() {
        // Upstream's root is an overlay; nothing under a test tree is a mount of its own.
        let d = tree();
        let (code, out, err) = find_in(d.path(), &["@", "-fstype", "overlay", "-name", "z.c"]);
        assert_eq!((code, out.as_str(), err.as_str()), (0, "@/z.c\n", ""));
        let (_, out, _) = find_in(d.path(), &["@", "-fstype", "cifs"]);
        assert_eq!(out, "");
        assert_eq!(crate::df::fstype_of("/proc/loadavg"), "proc");
        assert_eq!(crate::df::fstype_of("/dev/shm/x"), "tmpfs");
        let (code, _, err) = find_in(d.path(), &["@", "-fstype"]);
        assert_eq!(
            (code, err.as_str()),
            (1, "find: missing argument to `-fstype'\n")
        );
    }

    #[test]
    fn tests_and_operators() {
        let d = tree();
        let (_, out, _) = find_in(d.path(), &["@", "-iname", "*.txt", "-type", "f"]);
        assert_eq!(out, "@/a/b/y.TXT\n@/a/x.txt\n");
        let (_, out, _) = find_in(d.path(), &["@", "-empty"]);
        assert_eq!(out, "@/empty\n@/z.c\n");
        let (_, out, _) = find_in(d.path(), &["@", "-type", "f", "-size", "+1k"]);
        assert_eq!(out, "@/a/b/y.TXT\n");
        let (_, out, _) = find_in(
            d.path(),
            &["@", "-name", "a", "-prune", "-o", "-type", "f", "-print"],
        );
        assert_eq!(out, "@/z.c\n");
        let (_, out, _) = find_in(
            d.path(),
            &["@", "-mindepth", "2", "-maxdepth", "2", "!", "-type", "d"],
        );
        assert_eq!(out, "@/a/x.txt\n");
    }

    #[test]
    fn printf_depth_and_relative() {
        let d = tree();
        let (_, out, _) = find_in(d.path(), &["@", "-type", "d", "-printf", "%d\\t%P\\n"]);
        assert_eq!(out, "0\t\n1\ta\n2\ta/b\n1\tempty\n");
    }

    #[test]
    fn missing_start_point() {
        let d = tree();
        let (code, out, err) = find_in(d.path(), &["@/nope", "@/z.c"]);
        assert_eq!(code, 1);
        assert_eq!(out, "@/z.c\n");
        assert_eq!(err, "find: '@/nope': No such file or directory\n");
    }

    #[test]
    fn delete_is_depth_first() {
        let d = tree();
        let (code, out, _) = find_in(d.path(), &["@/a", "-delete", "-print"]);
        assert_eq!(code, 0);
        assert_eq!(out, "@/a/b/y.TXT\n@/a/b\n@/a/x.txt\n@/a\n");
        assert!(!d.path().join("a").exists());
    }

    #[test]
    fn quit_stops_at_first() {
        let d = tree();
        let (_, out, _) = find_in(d.path(), &["@", "-type", "f", "-print", "-quit"]);
        assert_eq!(out, "@/a/b/y.TXT\n");
    }

    #[test]
    fn execdir_arguments() {
        assert_eq!(State::in_dir_arg("."), ("./.".into(), ".".into()));
        assert_eq!(State::in_dir_arg("./d/e"), ("./e".into(), "./d".into()));
        assert_eq!(State::in_dir_arg("/proc"), ("./proc".into(), "/".into()));
        assert_eq!(State::in_dir_arg("d"), ("./d".into(), ".".into()));
    }

    #[test]
    fn names_for_matching() {
        assert_eq!(match_name("./"), ".");
        assert_eq!(match_name("/"), "/");
        assert_eq!(match_name("/a/b/"), "b");
    }
}
