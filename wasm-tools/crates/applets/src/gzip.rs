//! `gzip`, `gunzip`, `zcat`: gzip (RFC 1952) compression with GNU gzip's command line and
//! messages (upstream ran gzip 1.10).
//!
//! Matches GNU in: `-c -d -f -k -l -n -N -q -r -S -t -v -1`…`-9 --fast --best`, `gunzip` =
//! `gzip -d`, `zcat` = `gzip -dc` (so `zcat -r DIR` recurses, and `zcat x` also tries
//! `x.gz`); suffixes `.gz -gz .z -z _z .tgz .taz` on decompression; the stored name and
//! mtime (the input's base name and time, none with `-n`); the output taking the input's
//! mode and mtime (`gunzip` takes the `.gz` file's, or the stored time with `-N`); input
//! removed unless `-k`/`-c`; multi-member input; standard input/output when no files are given
//! or for `-`; the warnings and their exit status (`already has .gz suffix -- unchanged`,
//! `already exists;\tnot overwritten` (2), `is a directory -- ignored` (2), `unknown suffix
//! -- ignored` (2), `not in gzip format` (1), `unexpected end of file` (1), `decompression
//! OK, trailing garbage ignored` (2)); `-v` ratios and `-l` listings in GNU's layout.
//!
//! The compressed bytes are GNU's too ([`crate::common::deflate`]), so archive sizes, their
//! checksums and `-v`/`-l` ratios agree. Differences: no interactive
//! overwrite prompt (there is no terminal); `-l` on multi-member files reports the last
//! member's size as GNU 1.10 does only approximately; `--rsyncable` is accepted and ignored.

use crate::common::deflate::GzipWriter;
use crate::common::io::report;
use crate::common::sys::{os_bytes, path_of, strerror};
use crate::common::time;
use std::ffi::OsString;
use std::fs;
use std::io::{self, BufRead, BufReader, Read, Write};
use std::path::Path;

#[derive(Default)]
struct Opts {
    stdout: bool,
    decompress: bool,
    force: bool,
    keep: bool,
    list: bool,
    no_name: bool,
    name: bool,
    quiet: bool,
    recursive: bool,
    test: bool,
    verbose: bool,
    level: u32,
    suffix: Vec<u8>,
    /// Invoked as zcat: names without a suffix are tried as given first.
    zcat: bool,
}

struct Gzip {
    o: Opts,
    status: i32,
    out: io::BufWriter<io::Stdout>,
    err: io::Stderr,
    totals: Option<ListTotals>,
}

#[derive(Default)]
struct ListTotals {
    files: usize,
    compressed: u64,
    uncompressed: u64,
    last_overhead: u64,
}

const WARNING: i32 = 2;
const ERROR: i32 = 1;

pub fn main(args: Vec<OsString>) -> i32 {
    let args: Vec<Vec<u8>> = args.iter().map(|a| os_bytes(a)).collect();
    let prog = args
        .first()
        .map(|a| {
            let s = String::from_utf8_lossy(a).into_owned();
            s.rsplit('/').next().unwrap_or("gzip").to_string()
        })
        .unwrap_or_default();
    let mut o = Opts {
        level: 6,
        suffix: b".gz".to_vec(),
        ..Opts::default()
    };
    // zcat and gunzip are scripts that run gzip, so every message says `gzip:`.
    match prog.as_str() {
        "gunzip" => o.decompress = true,
        "zcat" => {
            o.decompress = true;
            o.stdout = true;
            o.zcat = true;
        }
        _ => {}
    }
    let mut files: Vec<Vec<u8>> = Vec::new();
    let mut i = 1;
    let mut only_files = false;
    let mut err = io::stderr();
    while i < args.len() {
        let a = args[i].clone();
        i += 1;
        if only_files || a.len() < 2 || a[0] != b'-' {
            files.push(a);
            continue;
        }
        if a == b"--" {
            only_files = true;
            continue;
        }
        if let Some(long) = a.strip_prefix(b"--") {
            let (name, inline) = match long.iter().position(|&c| c == b'=') {
                Some(p) => (&long[..p], Some(long[p + 1..].to_vec())),
                None => (long, None),
            };
            let name = String::from_utf8_lossy(name).into_owned();
            let known = [
                "stdout",
                "to-stdout",
                "decompress",
                "uncompress",
                "force",
                "keep",
                "list",
                "no-name",
                "name",
                "quiet",
                "silent",
                "recursive",
                "suffix",
                "test",
                "verbose",
                "fast",
                "best",
                "help",
                "version",
                "license",
                "rsyncable",
                "synchronous",
            ];
            let cands: Vec<&&str> = known.iter().filter(|k| k.starts_with(&name)).collect();
            let full = match (known.iter().find(|k| **k == name), cands.as_slice()) {
                (Some(k), _) => *k,
                (None, [one]) => **one,
                (None, []) => {
                    let _ = writeln!(err, "gzip: unrecognized option '--{name}'");
                    let _ = writeln!(err, "Try `gzip --help' for more information.");
                    return 1;
                }
                (None, _) => {
                    let _ = writeln!(err, "gzip: option '--{name}' is ambiguous");
                    let _ = writeln!(err, "Try `gzip --help' for more information.");
                    return 1;
                }
            };
            match full {
                "stdout" | "to-stdout" => o.stdout = true,
                "decompress" | "uncompress" => o.decompress = true,
                "force" => o.force = true,
                "keep" => o.keep = true,
                "list" => o.list = true,
                "no-name" => o.no_name = true,
                "name" => o.name = true,
                "quiet" | "silent" => o.quiet = true,
                "recursive" => o.recursive = true,
                "test" => o.test = true,
                "verbose" => o.verbose = true,
                "fast" => o.level = 1,
                "best" => o.level = 9,
                "suffix" => {
                    let v = match inline {
                        Some(v) => v,
                        None if i < args.len() => {
                            i += 1;
                            args[i - 1].clone()
                        }
                        None => {
                            let _ = writeln!(err, "gzip: option '--suffix' requires an argument");
                            let _ = writeln!(err, "Try `gzip --help' for more information.");
                            return 1;
                        }
                    };
                    o.suffix = v;
                }
                "help" => {
                    print_help(&prog);
                    return 0;
                }
                "version" => {
                    println!("gzip 1.10");
                    return 0;
                }
                _ => {}
            }
            continue;
        }
        let mut k = 1;
        while k < a.len() {
            let c = a[k];
            k += 1;
            match c {
                b'c' => o.stdout = true,
                b'd' => o.decompress = true,
                b'f' => o.force = true,
                b'k' => o.keep = true,
                b'l' => o.list = true,
                b'n' => o.no_name = true,
                b'N' => o.name = true,
                b'q' => o.quiet = true,
                b'r' => o.recursive = true,
                b't' => o.test = true,
                b'v' => o.verbose = true,
                b'1'..=b'9' => o.level = u32::from(c - b'0'),
                b'S' => {
                    let v = if k < a.len() {
                        let v = a[k..].to_vec();
                        k = a.len();
                        v
                    } else if i < args.len() {
                        i += 1;
                        args[i - 1].clone()
                    } else {
                        let _ = writeln!(err, "gzip: option requires an argument -- 'S'");
                        let _ = writeln!(err, "Try `gzip --help' for more information.");
                        return 1;
                    };
                    o.suffix = v;
                }
                b'h' => {
                    print_help(&prog);
                    return 0;
                }
                b'V' => {
                    println!("gzip 1.10");
                    return 0;
                }
                b'L' => return 0,
                _ => {
                    let _ = writeln!(err, "gzip: invalid option -- '{}'", c as char);
                    let _ = writeln!(err, "Try `gzip --help' for more information.");
                    return 1;
                }
            }
        }
    }
    if o.test {
        o.decompress = true;
    }
    let mut g = Gzip {
        o,
        status: 0,
        out: io::BufWriter::with_capacity(64 * 1024, io::stdout()),
        err,
        totals: None,
    };
    if files.is_empty() {
        files.push(b"-".to_vec());
    }
    if g.o.list {
        g.totals = Some(ListTotals::default());
        if !g.o.quiet {
            let head = if g.o.verbose {
                "method  crc     date  time           compressed        uncompressed  ratio uncompressed_name"
            } else {
                "         compressed        uncompressed  ratio uncompressed_name"
            };
            let _ = writeln!(g.out, "{head}");
        }
    }
    for f in &files {
        g.process(f, true);
    }
    if let Some(t) = g.totals.take()
        && t.files > 1
        && !g.o.quiet
    {
        let payload = t.compressed.saturating_sub(t.last_overhead) as f64;
        let line = list_line(
            g.o.verbose,
            None,
            t.compressed,
            t.uncompressed,
            payload,
            b"(totals)",
        );
        let _ = g.out.write_all(&line);
    }
    if g.out.flush().is_err() {
        return ERROR;
    }
    g.status
}

fn print_help(prog: &str) {
    println!(
        "Usage: {prog} [OPTION]... [FILE]...\n\
         Compress or uncompress FILEs (by default, compress FILES in-place).\n\n\
         \x20 -c, --stdout      write on standard output, keep original files unchanged\n\
         \x20 -d, --decompress  decompress\n\
         \x20 -f, --force       force overwrite of output file and compress links\n\
         \x20 -k, --keep        keep (don't delete) input files\n\
         \x20 -l, --list        list compressed file contents\n\
         \x20 -n, --no-name     do not save or restore the original name and timestamp\n\
         \x20 -N, --name        save or restore the original name and timestamp\n\
         \x20 -q, --quiet       suppress all warnings\n\
         \x20 -r, --recursive   operate recursively on directories\n\
         \x20 -S, --suffix=SUF  use suffix SUF on compressed files\n\
         \x20 -t, --test        test compressed file integrity\n\
         \x20 -v, --verbose     verbose mode\n\
         \x20 -1, --fast        compress faster\n\
         \x20 -9, --best        compress better"
    );
}

fn show(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// The gzip payload ratio GNU prints: how much smaller the deflate data is than the input.
fn ratio(uncompressed: u64, payload: f64) -> String {
    let r = if uncompressed == 0 {
        0.0
    } else {
        100.0 * (uncompressed as f64 - payload) / uncompressed as f64
    };
    format!("{r:5.1}%")
}

fn list_line(
    verbose: bool,
    info: Option<(u32, i64)>,
    compressed: u64,
    uncompressed: u64,
    payload: f64,
    name: &[u8],
) -> Vec<u8> {
    let mut s = String::new();
    if verbose {
        match info {
            Some((crc, mtime)) => {
                let when = time::strftime("%b %e %H:%M", &time::Tm::from_epoch(mtime, 0));
                s.push_str(&format!("defla {crc:08x} {when} "));
            }
            None => s.push_str(&" ".repeat(28)),
        }
    }
    s.push_str(&format!(
        "{compressed:19} {uncompressed:19} {} ",
        ratio(uncompressed, payload)
    ));
    let mut v = s.into_bytes();
    v.extend_from_slice(name);
    v.push(b'\n');
    v
}

/// Suffixes GNU gunzip strips, and what replaces them.
fn strip_suffix(name: &[u8], user: &[u8]) -> Option<Vec<u8>> {
    if !user.is_empty() && name.len() > user.len() && name.ends_with(user) {
        return Some(name[..name.len() - user.len()].to_vec());
    }
    for (suf, repl) in [
        (&b".gz"[..], &b""[..]),
        (b"-gz", b""),
        (b".z", b""),
        (b"-z", b""),
        (b"_z", b""),
        (b".tgz", b".tar"),
        (b".taz", b".tar"),
    ] {
        let base = name.rsplit(|&c| c == b'/').next().unwrap_or(name);
        if base.len() > suf.len() && base.to_ascii_lowercase().ends_with(suf) {
            let mut v = name[..name.len() - suf.len()].to_vec();
            v.extend_from_slice(repl);
            return Some(v);
        }
    }
    None
}

/// A parsed gzip member header (RFC 1952).
struct Header {
    mtime: u32,
    name: Option<Vec<u8>>,
    len: usize,
}

fn parse_header(d: &[u8]) -> Option<Header> {
    if d.len() < 10 || d[0] != 0x1f || d[1] != 0x8b || d[2] != 8 {
        return None;
    }
    let flags = d[3];
    let mtime = u32::from_le_bytes([d[4], d[5], d[6], d[7]]);
    let mut i = 10;
    if flags & 4 != 0 {
        let xlen = usize::from(u16::from_le_bytes([*d.get(i)?, *d.get(i + 1)?]));
        i += 2 + xlen;
    }
    let mut name = None;
    if flags & 8 != 0 {
        let end = d.get(i..)?.iter().position(|&c| c == 0)?;
        name = Some(d[i..i + end].to_vec());
        i += end + 1;
    }
    if flags & 16 != 0 {
        let end = d.get(i..)?.iter().position(|&c| c == 0)?;
        i += end + 1;
    }
    if flags & 2 != 0 {
        i += 2;
    }
    Some(Header {
        mtime,
        name,
        len: i,
    })
}

pub(crate) enum DecodeError {
    NotGzip,
    Eof,
    Crc,
    Format,
    Io(io::Error),
}

/// Decompresses every member of `input` into `out`; a trailing non-gzip tail is reported
/// as a warning (`Ok(true)`), as GNU does.
pub(crate) fn decode_all(
    input: &mut dyn BufRead,
    out: &mut dyn Write,
) -> Result<bool, DecodeError> {
    let mut first = true;
    loop {
        let head = input.fill_buf().map_err(DecodeError::Io)?;
        if head.is_empty() {
            return if first {
                Err(DecodeError::Eof)
            } else {
                Ok(false)
            };
        }
        if head.len() < 2 && !first {
            return Ok(true);
        }
        if head[0] != 0x1f || head.get(1).is_some_and(|&b| b != 0x8b) {
            if first {
                return Err(DecodeError::NotGzip);
            }
            // GNU ignores trailing zero padding silently, anything else with a warning.
            let all_zero = head.iter().all(|&b| b == 0);
            return Ok(!all_zero);
        }
        first = false;
        let mut dec = flate2::bufread::GzDecoder::new(&mut *input);
        let mut buf = vec![0u8; 64 * 1024];
        loop {
            match dec.read(&mut buf) {
                Ok(0) => break,
                Ok(n) => out.write_all(&buf[..n]).map_err(DecodeError::Io)?,
                Err(e) => {
                    return Err(match e.kind() {
                        io::ErrorKind::UnexpectedEof => DecodeError::Eof,
                        _ if e.to_string().contains("checksum") => DecodeError::Crc,
                        _ => DecodeError::Format,
                    });
                }
            }
        }
    }
}

impl Gzip {
    fn warn(&mut self, msg: String) {
        if !self.o.quiet {
            report(&mut self.out, &mut self.err, "gzip", msg);
        }
        if self.status == 0 {
            self.status = WARNING;
        }
    }

    fn error(&mut self, msg: String) {
        report(&mut self.out, &mut self.err, "gzip", msg);
        self.status = ERROR;
    }

    fn verbose(&mut self, msg: String) {
        if self.o.verbose && !self.o.quiet {
            let _ = self.out.flush();
            let _ = writeln!(self.err, "{msg}");
        }
    }

    fn process(&mut self, name: &[u8], top: bool) {
        if name == b"-" {
            self.process_stdin();
            return;
        }
        let mut name = name.to_vec();
        let mut md = fs::symlink_metadata(path_of(&name));
        // Decompressing a name without a suffix: try the name with `.gz` (zcat tries the
        // name as given first).
        if self.o.decompress && !self.o.list {
            let has_suffix = strip_suffix(&name, &self.o.suffix).is_some();
            if !has_suffix && (md.is_err() || !self.o.zcat && !self.o.stdout) {
                let mut alt = name.clone();
                alt.extend_from_slice(&self.o.suffix);
                if let Ok(m) = fs::symlink_metadata(path_of(&alt)) {
                    name = alt;
                    md = Ok(m);
                } else if md.is_err() {
                    self.error(format!("{}: No such file or directory", show(&alt)));
                    return;
                }
            }
        }
        let md = match md {
            Ok(m) => m,
            Err(e) => {
                self.error(format!("{}: {}", show(&name), strerror(&e)));
                return;
            }
        };
        if md.is_dir() {
            if !self.o.recursive {
                self.warn(format!("{} is a directory -- ignored", show(&name)));
                return;
            }
            let mut entries: Vec<Vec<u8>> = match fs::read_dir(path_of(&name)) {
                Ok(rd) => rd
                    .filter_map(|e| e.ok())
                    .map(|e| os_bytes(&e.file_name()))
                    .collect(),
                Err(e) => {
                    self.error(format!("{}: {}", show(&name), strerror(&e)));
                    return;
                }
            };
            entries.sort();
            for e in entries {
                let mut child = name.clone();
                if !child.ends_with(b"/") {
                    child.push(b'/');
                }
                child.extend_from_slice(&e);
                self.process(&child, false);
            }
            return;
        }
        if md.file_type().is_symlink() && !self.o.stdout && !self.o.force {
            self.error(format!(
                "{}: Too many levels of symbolic links",
                show(&name)
            ));
            return;
        }
        if !md.is_file() && !md.file_type().is_symlink() {
            self.warn(format!(
                "{} is not a directory or a regular file - ignored",
                show(&name)
            ));
            return;
        }
        if self.o.list {
            self.list_file(&name);
        } else if self.o.test {
            self.test_file(&name);
        } else if self.o.decompress {
            self.decompress_file(&name, top);
        } else {
            self.compress_file(&name, top);
        }
    }

    fn process_stdin(&mut self) {
        let stdin = io::stdin();
        let mut input = BufReader::with_capacity(64 * 1024, stdin.lock());
        if self.o.list {
            let mut data = Vec::new();
            if input.read_to_end(&mut data).is_err() {
                return;
            }
            self.list_data(&data, b"stdout", None);
            return;
        }
        if self.o.decompress {
            let mut sink: Box<dyn Write> = if self.o.test {
                Box::new(io::sink())
            } else {
                Box::new(&mut self.out)
            };
            let r = decode_all(&mut input, &mut sink);
            drop(sink);
            self.report_decode(r, "stdin");
            if self.o.test && self.status == 0 {
                self.verbose("stdin:\t OK".into());
            }
            return;
        }
        let mut counted = CountR {
            inner: &mut input,
            n: 0,
        };
        let enc = GzipWriter::new(CountW::new(&mut self.out), self.o.level);
        match copy_finish(&mut counted, enc) {
            // GNU's ratio for standard input stands alone on its line: no name, no "replaced".
            Ok(w) => {
                let payload = w.n.saturating_sub(10 + 8);
                let r = ratio(counted.n, payload as f64);
                self.verbose(r);
            }
            Err(e) => self.error(format!("stdout: {}", strerror(&e))),
        }
    }

    /// Maps a decoding outcome to GNU's messages (which start with a blank line).
    fn report_decode(&mut self, r: Result<bool, DecodeError>, name: &str) -> bool {
        let nl = "\n";
        match r {
            Ok(false) => true,
            Ok(true) => {
                if !self.o.quiet {
                    let _ = self.out.flush();
                    let _ = writeln!(
                        self.err,
                        "\ngzip: {name}: decompression OK, trailing garbage ignored"
                    );
                }
                if self.status == 0 {
                    self.status = WARNING;
                }
                true
            }
            Err(DecodeError::NotGzip) => {
                let _ = self.out.flush();
                let _ = writeln!(self.err, "{nl}gzip: {name}: not in gzip format");
                self.status = ERROR;
                false
            }
            Err(DecodeError::Eof) => {
                let _ = self.out.flush();
                let _ = writeln!(self.err, "\ngzip: {name}: unexpected end of file");
                self.status = ERROR;
                false
            }
            Err(DecodeError::Crc) => {
                let _ = self.out.flush();
                let _ = writeln!(
                    self.err,
                    "\ngzip: {name}: invalid compressed data--crc error"
                );
                self.status = ERROR;
                false
            }
            Err(DecodeError::Format) => {
                let _ = self.out.flush();
                let _ = writeln!(
                    self.err,
                    "\ngzip: {name}: invalid compressed data--format violated"
                );
                self.status = ERROR;
                false
            }
            Err(DecodeError::Io(e)) => {
                if e.kind() == io::ErrorKind::BrokenPipe {
                    return false;
                }
                self.error(format!("{name}: {}", strerror(&e)));
                false
            }
        }
    }

    fn compress_file(&mut self, name: &[u8], _top: bool) {
        let sname = show(name);
        let base = name.rsplit(|&c| c == b'/').next().unwrap_or(name);
        // A name that already looks compressed is left alone, unless forced (`gzip -f a.gz`
        // makes `a.gz.gz`). GNU warns but keeps exit status 0, and says nothing under `-r`.
        if !self.o.stdout
            && !self.o.force
            && let Some(suffix) = compressed_suffix(name, &self.o.suffix)
        {
            if self.o.verbose || (!self.o.recursive && !self.o.quiet) {
                let _ = self.out.flush();
                let _ = writeln!(
                    self.err,
                    "gzip: {sname} already has {} suffix -- unchanged",
                    show(suffix)
                );
            }
            return;
        }
        let st = hostcalls::stat(&sname, false).ok();
        if let Some(st) = st
            && st.nlink > 1
            && !self.o.stdout
            && !self.o.force
        {
            let others = st.nlink - 1;
            let s = if others > 1 { "s" } else { "" };
            self.warn(format!("{sname} has {others} other link{s}  -- unchanged"));
            return;
        }
        let mut input = match fs::File::open(path_of(name)) {
            Ok(f) => BufReader::with_capacity(64 * 1024, f),
            Err(e) => {
                self.error(format!("{sname}: {}", strerror(&e)));
                return;
            }
        };
        let md = fs::metadata(path_of(name)).ok();
        let mtime = st.map_or(0, |s| s.mtime_ns.div_euclid(1_000_000_000));
        let stored_name = (!self.o.no_name).then(|| (base, mtime.clamp(0, u32::MAX as i64) as u32));
        let level = self.o.level;
        let size_in = md.as_ref().map_or(0, |m| m.len());
        if self.o.stdout {
            let enc = member_writer(CountW::new(&mut self.out), level, stored_name);
            match copy_finish(&mut input, enc) {
                Ok(w) => {
                    let n = w.n;
                    let overhead =
                        10 + if self.o.no_name {
                            0
                        } else {
                            base.len() as u64 + 1
                        } + 8;
                    let r = ratio(size_in, n.saturating_sub(overhead) as f64);
                    self.verbose(format!("{sname}:\t{r} -- replaced with stdout"));
                }
                Err(e) => self.error(format!("stdout: {}", strerror(&e))),
            }
            return;
        }
        let mut out_name = name.to_vec();
        out_name.extend_from_slice(&self.o.suffix);
        let out_path = path_of(&out_name);
        if fs::symlink_metadata(&out_path).is_ok() {
            if !self.o.force {
                self.warn(format!(
                    "{} already exists;\tnot overwritten",
                    show(&out_name)
                ));
                return;
            }
            let _ = fs::remove_file(&out_path);
        }
        let f = match fs::File::create(&out_path) {
            Ok(f) => f,
            Err(e) => {
                self.error(format!("{}: {}", show(&out_name), strerror(&e)));
                return;
            }
        };
        let enc = member_writer(
            CountW::new(io::BufWriter::with_capacity(64 * 1024, f)),
            level,
            stored_name,
        );
        let n = match copy_finish(&mut input, enc).and_then(|mut w| {
            w.inner.flush()?;
            Ok(w.n)
        }) {
            Ok(n) => n,
            Err(e) => {
                let _ = fs::remove_file(&out_path);
                self.error(format!("{}: {}", show(&out_name), strerror(&e)));
                return;
            }
        };
        copy_attrs(name, &out_path, st.as_ref());
        let overhead =
            10 + if self.o.no_name {
                0
            } else {
                base.len() as u64 + 1
            } + 8;
        let r = ratio(size_in, n.saturating_sub(overhead) as f64);
        if self.o.keep {
            self.verbose(format!("{sname}:\t{r} -- created {}", show(&out_name)));
        } else {
            let _ = fs::remove_file(path_of(name));
            self.verbose(format!(
                "{sname}:\t{r} -- replaced with {}",
                show(&out_name)
            ));
        }
    }

    fn decompress_file(&mut self, name: &[u8], top: bool) {
        let sname = show(name);
        let out_name = strip_suffix(name, &self.o.suffix);
        if out_name.is_none() && !self.o.stdout {
            // -r walks past files that are not compressed without a word.
            if top {
                self.warn(format!("{sname}: unknown suffix -- ignored"));
            }
            return;
        }
        let data = match fs::read(path_of(name)) {
            Ok(d) => d,
            Err(e) => {
                self.error(format!("{sname}: {}", strerror(&e)));
                return;
            }
        };
        if self.o.stdout {
            let r = decode_all(&mut &data[..], &mut self.out);
            self.report_decode(r, &sname);
            return;
        }
        let header = parse_header(&data);
        if header.is_none() {
            self.report_decode(Err(DecodeError::NotGzip), &sname);
            return;
        }
        let mut out_name = out_name.unwrap_or_default();
        // -N restores the stored name (in the same directory).
        if self.o.name
            && let Some(stored) = header.as_ref().and_then(|h| h.name.clone())
        {
            let dir_end = out_name
                .iter()
                .rposition(|&c| c == b'/')
                .map_or(0, |p| p + 1);
            out_name.truncate(dir_end);
            out_name.extend_from_slice(&stored);
        }
        let out_path = path_of(&out_name);
        if fs::symlink_metadata(&out_path).is_ok() {
            if !self.o.force {
                self.warn(format!(
                    "{} already exists;\tnot overwritten",
                    show(&out_name)
                ));
                return;
            }
            let _ = fs::remove_file(&out_path);
        }
        let mut buf = Vec::new();
        let r = decode_all(&mut &data[..], &mut buf);
        if !self.report_decode(r, &sname) {
            return;
        }
        if let Err(e) = fs::write(&out_path, &buf) {
            self.error(format!("{}: {}", show(&out_name), strerror(&e)));
            return;
        }
        let st = hostcalls::stat(&sname, false).ok();
        copy_attrs(name, &out_path, st.as_ref());
        if self.o.name
            && let Some(h) = &header
            && h.mtime != 0
        {
            set_mtime(&out_path, i64::from(h.mtime));
        }
        let overhead = header.as_ref().map_or(18, |h| h.len as u64 + 8);
        let r = ratio(
            buf.len() as u64,
            (data.len() as u64).saturating_sub(overhead) as f64,
        );
        if self.o.keep {
            self.verbose(format!("{sname}:\t{r} -- created {}", show(&out_name)));
        } else {
            let _ = fs::remove_file(path_of(name));
            self.verbose(format!(
                "{sname}:\t{r} -- replaced with {}",
                show(&out_name)
            ));
        }
    }

    fn test_file(&mut self, name: &[u8]) {
        let sname = show(name);
        let data = match fs::read(path_of(name)) {
            Ok(d) => d,
            Err(e) => {
                self.error(format!("{sname}: {}", strerror(&e)));
                return;
            }
        };
        let r = decode_all(&mut &data[..], &mut io::sink());
        if self.report_decode(r, &sname) {
            self.verbose(format!("{sname}:\t OK"));
        }
    }

    fn list_file(&mut self, name: &[u8]) {
        let sname = show(name);
        let data = match fs::read(path_of(name)) {
            Ok(d) => d,
            Err(e) => {
                self.error(format!("{sname}: {}", strerror(&e)));
                return;
            }
        };
        let shown = strip_suffix(name, &self.o.suffix).unwrap_or_else(|| name.to_vec());
        self.list_data(&data, &shown, Some(&sname));
    }

    fn list_data(&mut self, data: &[u8], shown: &[u8], errname: Option<&str>) {
        let Some(h) = parse_header(data) else {
            let _ = self.out.flush();
            let _ = writeln!(
                self.err,
                "\ngzip: {}: not in gzip format",
                errname.unwrap_or("stdin")
            );
            self.status = ERROR;
            return;
        };
        if data.len() < h.len + 8 {
            let _ = self.out.flush();
            let _ = writeln!(
                self.err,
                "\ngzip: {}: unexpected end of file",
                errname.unwrap_or("stdin")
            );
            self.status = ERROR;
            return;
        }
        let t = &data[data.len() - 8..];
        let crc = u32::from_le_bytes([t[0], t[1], t[2], t[3]]);
        let isize = u64::from(u32::from_le_bytes([t[4], t[5], t[6], t[7]]));
        let compressed = data.len() as u64;
        let overhead = h.len as u64 + 8;
        let payload = compressed.saturating_sub(overhead) as f64;
        if !self.o.quiet {
            let line = list_line(
                self.o.verbose,
                Some((crc, i64::from(h.mtime))),
                compressed,
                isize,
                payload,
                shown,
            );
            let _ = self.out.write_all(&line);
        }
        if let Some(tot) = self.totals.as_mut() {
            tot.files += 1;
            tot.compressed += compressed;
            tot.uncompressed += isize;
            tot.last_overhead = overhead;
        }
    }
}

/// Counts what is read through it (the uncompressed size of standard input, for ratios).
struct CountR<'a> {
    inner: &'a mut dyn Read,
    n: u64,
}

impl Read for CountR<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let k = self.inner.read(buf)?;
        self.n += k as u64;
        Ok(k)
    }
}

/// Counts what reaches the inner writer (the compressed size, for ratios).
struct CountW<W: Write> {
    inner: W,
    n: u64,
}

impl<W: Write> CountW<W> {
    fn new(inner: W) -> Self {
        CountW { inner, n: 0 }
    }
}

impl<W: Write> Write for CountW<W> {
    fn write(&mut self, d: &[u8]) -> io::Result<usize> {
        let k = self.inner.write(d)?;
        self.n += k as u64;
        Ok(k)
    }
    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }
}

/// A gzip member's writer, with the original name and time stored unless `-n`.
fn member_writer<W: Write>(out: W, level: u32, stored: Option<(&[u8], u32)>) -> GzipWriter<W> {
    let writer = GzipWriter::new(out, level);
    match stored {
        Some((name, mtime)) => writer.with_name(name, mtime),
        None => writer,
    }
}

fn copy_finish<W: Write>(input: &mut dyn Read, mut enc: GzipWriter<W>) -> io::Result<W> {
    io::copy(input, &mut enc)?;
    enc.finish()
}

/// The output file takes the input's permission bits and modification time.
fn copy_attrs(from: &[u8], to: &Path, st: Option<&hostcalls::Stat>) {
    let Some(st) = st else { return };
    let _ = hostcalls::chmod(&to.to_string_lossy(), st.permissions());
    let _ = from;
    set_mtime(to, st.mtime_ns.div_euclid(1_000_000_000));
}

fn set_mtime(p: &Path, secs: i64) {
    let t = if secs >= 0 {
        std::time::UNIX_EPOCH + std::time::Duration::from_secs(secs as u64)
    } else {
        std::time::UNIX_EPOCH - std::time::Duration::from_secs(secs.unsigned_abs())
    };
    if let Ok(f) = fs::OpenOptions::new().write(true).open(p) {
        let _ = f.set_modified(t);
    }
}

/// The suffix of `name` that marks it compressed, as gzip's `get_suffix` knows them: the
/// `-S` one, then `.gz .z .taz .tgz -gz -z _z`. A name that is only the suffix has none.
fn compressed_suffix<'a>(name: &[u8], user: &'a [u8]) -> Option<&'a [u8]> {
    const KNOWN: [&[u8]; 7] = [b".gz", b".z", b".taz", b".tgz", b"-gz", b"-z", b"_z"];
    let base = name.rsplit(|&c| c == b'/').next().unwrap_or(name);
    std::iter::once(user)
        .chain(KNOWN)
        .find(|suffix| !suffix.is_empty() && base.len() > suffix.len() && base.ends_with(suffix))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn suffixes() {
        assert_eq!(strip_suffix(b"a.txt.gz", b".gz").unwrap(), b"a.txt");
        assert_eq!(strip_suffix(b"x.tgz", b".gz").unwrap(), b"x.tar");
        assert_eq!(strip_suffix(b"dir.gz/file", b".gz"), None);
        assert_eq!(strip_suffix(b"a.txt", b".gz"), None);
        assert_eq!(strip_suffix(b".gz", b".gz"), None);
    }

    #[test]
    fn round_trip_and_members() {
        let mut one = Vec::new();
        {
            let mut e = GzipWriter::new(&mut one, 6);
            e.write_all(b"hello\n").unwrap();
            e.finish().unwrap();
        }
        let h = parse_header(&one).unwrap();
        assert_eq!((h.len, h.mtime), (10, 0));
        let mut two = one.clone();
        two.extend_from_slice(&one);
        let mut out = Vec::new();
        assert!(matches!(decode_all(&mut &two[..], &mut out), Ok(false)));
        assert_eq!(out, b"hello\nhello\n");
        let mut garbage = one.clone();
        garbage.extend_from_slice(b"junk");
        out.clear();
        assert!(matches!(decode_all(&mut &garbage[..], &mut out), Ok(true)));
        assert!(matches!(
            decode_all(&mut &b"junk"[..], &mut out),
            Err(DecodeError::NotGzip)
        ));
        assert!(matches!(
            decode_all(&mut &one[..12], &mut out),
            Err(DecodeError::Eof)
        ));
    }

    #[test]
    fn listing_layout() {
        let line = list_line(false, None, 33, 6, 8.0, b"g1.txt");
        assert_eq!(
            String::from_utf8(line).unwrap(),
            "                 33                   6 -33.3% g1.txt\n"
        );
        let line = list_line(
            true,
            Some((0x363a3020, 1_577_934_245)),
            33,
            6,
            8.0,
            b"g1.txt",
        );
        assert_eq!(
            String::from_utf8(line).unwrap(),
            "defla 363a3020 Jan  2 03:04                  33                   6 -33.3% g1.txt\n"
        );
    }
}
