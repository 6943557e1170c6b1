//! `dd` (GNU coreutils): copies a file block by block, converting and counting as told.
//!
//! Operands: `if= of= bs= ibs= obs= count= skip= seek= conv=notrunc,sync,noerror,fsync
//! status=none|noxfer|progress iflag= oflag=` (flags accepted, `fullblock` honoured). Numbers
//! take GNU's suffixes (`c w b kB K KiB MB M MiB GB G GiB …`, and `NxM`).
//!
//! WASI has no devices, so the devices tasks feed to dd are built in: `if=/dev/zero` reads
//! zeros, `if=/dev/urandom` (or `/dev/random`) reads pseudo-random bytes, `of=/dev/null`
//! discards. The closing statistics match GNU's lines; the time and rate are this run's.

use crate::common::Io;
use crate::common::io::{prog, run_main};
use std::ffi::OsString;
use std::io::{Read, Seek, SeekFrom, Write};
use std::time::Instant;

pub fn main(args: Vec<OsString>) -> i32 {
    run_main(args, run)
}

#[derive(Debug)]
struct Options {
    input: Option<String>,
    output: Option<String>,
    ibs: u64,
    obs: u64,
    /// `bs=` given: each input block is written as it was read (no reblocking).
    bs: bool,
    count: Option<u64>,
    skip: u64,
    seek: u64,
    notrunc: bool,
    sync: bool,
    fullblock: bool,
    status: Status,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Status {
    Default,
    None,
    NoXfer,
}

/// Parses a GNU dd number: digits, an optional suffix, and `x` products.
fn number(s: &str) -> Option<u64> {
    let mut total: u64 = 1;
    for part in s.split('x') {
        let digits = part.bytes().take_while(u8::is_ascii_digit).count();
        if digits == 0 {
            return None;
        }
        let n: u64 = part[..digits].parse().ok()?;
        let factor: u64 = match &part[digits..] {
            "" | "c" => 1,
            "w" => 2,
            "b" => 512,
            suffix => {
                let (letter, rest) = suffix.split_at(1);
                let power = match letter {
                    "k" if rest == "B" => return mul(total, n.checked_mul(1000)?),
                    "K" | "k" => 1,
                    "M" => 2,
                    "G" => 3,
                    "T" => 4,
                    "P" => 5,
                    "E" => 6,
                    _ => return None,
                };
                let base: u64 = match rest {
                    "" | "iB" => 1024,
                    "B" => 1000,
                    _ => return None,
                };
                base.checked_pow(power)?
            }
        };
        total = mul(total, n.checked_mul(factor)?)?;
    }
    Some(total)
}

fn mul(a: u64, b: u64) -> Option<u64> {
    a.checked_mul(b)
}

fn parse(args: &[String], err: &mut dyn Write, prog: &str) -> Result<Options, i32> {
    let mut o = Options {
        input: None,
        output: None,
        ibs: 512,
        obs: 512,
        bs: false,
        count: None,
        skip: 0,
        seek: 0,
        notrunc: false,
        sync: false,
        fullblock: false,
        status: Status::Default,
    };
    let fail = |err: &mut dyn Write, msg: String| {
        let _ = writeln!(err, "{prog}: {msg}");
        let _ = writeln!(err, "{}", gnu::usage::try_help(prog));
        1
    };
    for a in args.iter().skip(1) {
        let Some((key, value)) = a.split_once('=') else {
            return Err(fail(err, format!("unrecognized operand '{a}'")));
        };
        let num = |err: &mut dyn Write| {
            number(value).ok_or_else(|| {
                let _ = writeln!(err, "{prog}: invalid number: '{value}'");
                1
            })
        };
        match key {
            "if" => o.input = Some(value.to_string()),
            "of" => o.output = Some(value.to_string()),
            "bs" => {
                let n = num(err)?;
                o.ibs = n;
                o.obs = n;
                o.bs = true;
            }
            "ibs" => o.ibs = num(err)?,
            "obs" => o.obs = num(err)?,
            "count" => o.count = Some(num(err)?),
            "skip" | "iseek" => o.skip = num(err)?,
            "seek" | "oseek" => o.seek = num(err)?,
            "conv" => {
                for c in value.split(',') {
                    match c {
                        "notrunc" => o.notrunc = true,
                        "sync" => o.sync = true,
                        "noerror" | "fsync" | "fdatasync" | "excl" | "nocreat" => {}
                        _ => return Err(fail(err, format!("invalid conversion: '{c}'"))),
                    }
                }
            }
            "iflag" | "oflag" => {
                for f in value.split(',') {
                    match f {
                        "fullblock" => o.fullblock = true,
                        "append" | "direct" | "dsync" | "sync" | "nonblock" | "noatime"
                        | "nocache" | "noctty" | "nofollow" | "count_bytes" | "skip_bytes"
                        | "seek_bytes" | "binary" | "text" => {}
                        _ => return Err(fail(err, format!("invalid input flag: '{f}'"))),
                    }
                }
            }
            "status" => {
                o.status = match value {
                    "none" => Status::None,
                    "noxfer" => Status::NoXfer,
                    "progress" => Status::Default,
                    _ => return Err(fail(err, format!("invalid status level: '{value}'"))),
                }
            }
            _ => return Err(fail(err, format!("unrecognized operand '{a}'"))),
        }
    }
    if o.ibs == 0 || o.obs == 0 {
        return Err(fail(err, "invalid number: '0'".to_string()));
    }
    Ok(o)
}

/// The built-in devices.
enum Source<'a> {
    Zero,
    Random(u64),
    Reader(&'a mut dyn Read),
    File(std::fs::File),
}

impl Read for Source<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        match self {
            Source::Zero => {
                buf.fill(0);
                Ok(buf.len())
            }
            Source::Random(state) => {
                for b in buf.iter_mut() {
                    // xorshift64*: not cryptographic, just bytes that look random.
                    *state ^= *state >> 12;
                    *state ^= *state << 25;
                    *state ^= *state >> 27;
                    *b = (state.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 56) as u8;
                }
                Ok(buf.len())
            }
            Source::Reader(r) => r.read(buf),
            Source::File(f) => f.read(buf),
        }
    }
}

/// Human size like GNU's: one decimal below 10, whole numbers above.
fn human(v: f64, base: f64, units: &[&str]) -> String {
    let mut v = v;
    let mut i = 0;
    while v >= base && i + 1 < units.len() {
        v /= base;
        i += 1;
    }
    if v < 10.0 {
        format!("{:.1} {}", (v * 10.0).round() / 10.0, units[i])
    } else {
        format!("{} {}", v.round(), units[i])
    }
}

fn stats(err: &mut dyn Write, counts: &Counts, status: Status, started: Instant) {
    if status == Status::None {
        return;
    }
    let _ = writeln!(err, "{}+{} records in", counts.full_in, counts.partial_in);
    let _ = writeln!(
        err,
        "{}+{} records out",
        counts.full_out, counts.partial_out
    );
    if status == Status::NoXfer {
        return;
    }
    let bytes = counts.bytes;
    let secs = started.elapsed().as_secs_f64().max(1e-6);
    let size = match bytes {
        0..=999 => format!("{bytes} bytes"),
        1000..=1023 => format!(
            "{bytes} bytes ({})",
            human(bytes as f64, 1000.0, &["B", "kB", "MB", "GB", "TB"])
        ),
        _ => format!(
            "{bytes} bytes ({}, {})",
            human(bytes as f64, 1000.0, &["B", "kB", "MB", "GB", "TB"]),
            human(bytes as f64, 1024.0, &["B", "KiB", "MiB", "GiB", "TiB"])
        ),
    };
    let rate = human(
        bytes as f64 / secs,
        1000.0,
        &["B/s", "kB/s", "MB/s", "GB/s", "TB/s"],
    );
    let rate = if bytes == 0 { "0.0 kB/s".into() } else { rate };
    let _ = writeln!(err, "{size} copied, {secs:.6} s, {rate}");
}

#[derive(Default)]
struct Counts {
    full_in: u64,
    partial_in: u64,
    full_out: u64,
    partial_out: u64,
    bytes: u64,
}

/// Reads one input block: a single read, or (`fullblock`) until the block is full or EOF.
fn read_block(src: &mut Source, buf: &mut [u8], fullblock: bool) -> std::io::Result<usize> {
    let mut n = 0;
    while n < buf.len() {
        match src.read(&mut buf[n..]) {
            Ok(0) => break,
            Ok(k) => {
                n += k;
                if !fullblock {
                    break;
                }
            }
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(n)
}

pub fn run(args: &[String], io: &mut Io) -> i32 {
    let prog = prog(args, "dd");
    let o = match parse(args, io.err, &prog) {
        Ok(o) => o,
        Err(code) => return code,
    };
    let started = Instant::now();
    let mut src = match o.input.as_deref() {
        None => Source::Reader(io.stdin),
        Some("/dev/zero") => Source::Zero,
        Some("/dev/urandom" | "/dev/random") => Source::Random(0x9E37_79B9_7F4A_7C15),
        Some(path) => match std::fs::File::open(path) {
            Ok(f) => Source::File(f),
            Err(e) => {
                let _ = writeln!(
                    io.err,
                    "{prog}: failed to open '{path}': {}",
                    crate::common::sys::strerror(&e)
                );
                return 1;
            }
        },
    };
    // Skip input blocks: seek in files, read and drop otherwise.
    if o.skip > 0 {
        let skip_bytes = o.skip.saturating_mul(o.ibs);
        let skipped = match &mut src {
            Source::File(f) => f.seek(SeekFrom::Start(skip_bytes)).is_ok(),
            _ => false,
        };
        if !skipped {
            let mut left = skip_bytes;
            let mut buf = vec![0u8; o.ibs.min(1 << 20) as usize];
            while left > 0 {
                let want = left.min(buf.len() as u64) as usize;
                match src.read(&mut buf[..want]) {
                    Ok(0) => break,
                    Ok(k) => left -= k as u64,
                    Err(_) => break,
                }
            }
        }
    }
    enum Sink<'a> {
        Null,
        Writer(&'a mut dyn Write),
        File(std::fs::File),
    }
    let mut sink = match o.output.as_deref() {
        None => Sink::Writer(io.out),
        Some("/dev/null") => Sink::Null,
        Some(path) => {
            let file = std::fs::OpenOptions::new()
                .write(true)
                .create(true)
                .truncate(false)
                .open(path);
            match file {
                Ok(mut f) => {
                    let offset = o.seek.saturating_mul(o.obs);
                    let ok = (o.notrunc || f.set_len(offset).is_ok())
                        && f.seek(SeekFrom::Start(offset)).is_ok();
                    if !ok {
                        let _ = writeln!(io.err, "{prog}: '{path}': cannot seek");
                        return 1;
                    }
                    Sink::File(f)
                }
                Err(e) => {
                    let _ = writeln!(
                        io.err,
                        "{prog}: failed to open '{path}': {}",
                        crate::common::sys::strerror(&e)
                    );
                    return 1;
                }
            }
        }
    };
    let mut counts = Counts::default();
    let mut buf = vec![0u8; usize::try_from(o.ibs).unwrap_or(usize::MAX).min(64 << 20)];
    let mut pending: Vec<u8> = Vec::new();
    let obs = usize::try_from(o.obs).unwrap_or(usize::MAX);
    let write = |sink: &mut Sink, data: &[u8], counts: &mut Counts| -> std::io::Result<()> {
        match sink {
            Sink::Null => {}
            Sink::Writer(w) => w.write_all(data)?,
            Sink::File(f) => f.write_all(data)?,
        }
        if data.len() == obs {
            counts.full_out += 1;
        } else {
            counts.partial_out += 1;
        }
        counts.bytes += data.len() as u64;
        Ok(())
    };
    let mut status = 0;
    let mut blocks = 0u64;
    loop {
        if o.count.is_some_and(|c| blocks >= c) {
            break;
        }
        let n = match read_block(&mut src, &mut buf, o.fullblock) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) => {
                let _ = writeln!(
                    io.err,
                    "{prog}: error reading '{}': {}",
                    o.input.as_deref().unwrap_or("standard input"),
                    crate::common::sys::strerror(&e)
                );
                status = 1;
                break;
            }
        };
        blocks += 1;
        if n == buf.len() {
            counts.full_in += 1;
        } else {
            counts.partial_in += 1;
        }
        let mut block = buf[..n].to_vec();
        if o.sync && n < buf.len() {
            block.resize(buf.len(), 0);
        }
        let result = if o.bs {
            write(&mut sink, &block, &mut counts)
        } else {
            pending.extend_from_slice(&block);
            let mut r = Ok(());
            while pending.len() >= obs && r.is_ok() {
                let rest = pending.split_off(obs);
                r = write(&mut sink, &pending, &mut counts);
                pending = rest;
            }
            r
        };
        if let Err(e) = result {
            if e.kind() == std::io::ErrorKind::BrokenPipe {
                return 141;
            }
            let _ = writeln!(
                io.err,
                "{prog}: error writing '{}': {}",
                o.output.as_deref().unwrap_or("standard output"),
                crate::common::sys::strerror(&e)
            );
            status = 1;
            break;
        }
    }
    if !pending.is_empty() && status == 0 {
        let data = std::mem::take(&mut pending);
        if let Err(e) = write(&mut sink, &data, &mut counts) {
            let _ = writeln!(io.err, "{prog}: {}", crate::common::sys::strerror(&e));
            status = 1;
        }
    }
    if let Sink::Writer(w) = &mut sink {
        let _ = w.flush();
    }
    stats(io.err, &counts, o.status, started);
    status
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_take_gnu_suffixes() {
        assert_eq!(number("2K"), Some(2048));
        assert_eq!(number("1kB"), Some(1000));
        assert_eq!(number("1M"), Some(1 << 20));
        assert_eq!(number("1MB"), Some(1_000_000));
        assert_eq!(number("3MiB"), Some(3 << 20));
        assert_eq!(number("2b"), Some(1024));
        assert_eq!(number("2x3"), Some(6));
        assert_eq!(number("x"), None);
        assert_eq!(number("1Q"), None);
    }

    fn dd(args: &[&str], stdin: &[u8]) -> (Vec<u8>, String, i32) {
        let mut argv = vec!["dd".to_string()];
        argv.extend(args.iter().map(|s| s.to_string()));
        let (code, out, err) = crate::common::io::capture(run, &argv, stdin);
        (out, String::from_utf8_lossy(&err).into_owned(), code)
    }

    #[test]
    fn zeros_counts_and_statistics() {
        let (out, err, code) = dd(&["if=/dev/zero", "bs=2K", "count=2"], b"");
        assert_eq!(code, 0);
        assert_eq!(out, vec![0u8; 4096]);
        assert!(
            err.starts_with(
                "2+0 records in\n2+0 records out\n4096 bytes (4.1 kB, 4.0 KiB) copied, "
            ),
            "{err}"
        );
        let (out, err, _) = dd(&["bs=2"], b"abc");
        assert_eq!(out, b"abc");
        assert!(
            err.starts_with("1+1 records in\n1+1 records out\n3 bytes copied"),
            "{err}"
        );
        let (out, _, _) = dd(&["bs=1", "skip=2", "count=3", "status=none"], b"abcdef");
        assert_eq!(out, b"cde");
        let (_, err, code) = dd(&["foo=1"], b"");
        assert_eq!(code, 1);
        assert!(err.contains("unrecognized operand 'foo=1'"), "{err}");
    }
}
