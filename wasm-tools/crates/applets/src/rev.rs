//! `rev` (util-linux): reverses the characters of each line of the files (or stdin).
//!
//! Lines are reversed character by character when they are valid UTF-8 and byte by byte
//! otherwise. Difference from upstream: util-linux `rev` in the C locale rejects bytes ≥ 0x80
//! ("Invalid or incomplete multibyte or wide character"); reversing them is more useful and
//! ASCII input, what the tasks use, is unaffected. Like util-linux, a NUL byte cuts its line
//! short and the next line continues it (`ab\0cd\nef\n` prints `feba`).

use crate::common::io::{prog, run_main, write_failed};
use crate::common::{Io, sys};
use std::ffi::OsString;
use std::io::{BufRead, BufReader, Read, Write};

pub fn main(args: Vec<OsString>) -> i32 {
    run_main(args, run)
}

fn reverse(line: &[u8]) -> Vec<u8> {
    match std::str::from_utf8(line) {
        Ok(s) => s.chars().rev().collect::<String>().into_bytes(),
        Err(_) => line.iter().rev().copied().collect(),
    }
}

fn rev_stream(r: &mut dyn Read, out: &mut dyn Write) -> std::io::Result<()> {
    let mut r = BufReader::new(r);
    let mut chunk = Vec::new();
    let mut line = Vec::new();
    loop {
        chunk.clear();
        let eof = r.read_until(b'\n', &mut chunk)? == 0;
        // util-linux reads lines as C wide strings: a NUL cuts its line there (newline
        // included), so the next line is read onto the end of what came before the NUL; a line
        // that is empty that way prints nothing at all.
        if let Some(nul) = chunk.iter().position(|&b| b == 0) {
            chunk.truncate(nul);
        }
        line.extend_from_slice(&chunk);
        if line.is_empty() {
            if eof {
                return Ok(());
            }
            continue;
        }
        let nl = line.last() == Some(&b'\n');
        if !nl && !eof {
            continue;
        }
        if nl {
            line.pop();
        }
        out.write_all(&reverse(&line))?;
        if nl {
            out.write_all(b"\n")?;
        }
        line.clear();
        if eof {
            return Ok(());
        }
    }
}

pub fn run(args: &[String], io: &mut Io) -> i32 {
    let prog = prog(args, "rev");
    let mut files: Vec<&String> = Vec::new();
    for a in &args[1.min(args.len())..] {
        match a.as_str() {
            "-h" | "--help" => {
                let _ = writeln!(io.out, "Usage: {prog} [options] [file ...]");
                return 0;
            }
            "-V" | "--version" => {
                let _ = writeln!(io.out, "rev from util-linux 2.37.2");
                return 0;
            }
            _ => files.push(a),
        }
    }
    let mut status = 0;
    if files.is_empty() {
        if let Err(e) = rev_stream(io.stdin, io.out) {
            return write_failed(&[prog], &e, io.err);
        }
        return 0;
    }
    for f in files {
        match std::fs::File::open(f) {
            Ok(mut file) => {
                if let Err(e) = rev_stream(&mut file, io.out) {
                    if e.kind() == std::io::ErrorKind::BrokenPipe {
                        return write_failed(&[prog], &e, io.err);
                    }
                    let _ = writeln!(io.err, "{prog}: {f}: {}", sys::strerror(&e));
                    status = 1;
                }
            }
            Err(e) => {
                let _ = writeln!(io.err, "{prog}: cannot open {f}: {}", sys::strerror(&e));
                status = 1;
            }
        }
    }
    status
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reverses_lines() {
        let mut out = Vec::new();
        rev_stream(&mut &b"abc\nxyz"[..], &mut out).unwrap();
        assert_eq!(out, b"cba\nzyx");
        assert_eq!(reverse("h\u{e9}!".as_bytes()), "!\u{e9}h".as_bytes());
        assert_eq!(reverse(&[b'a', 0xff]), vec![0xff, b'a']);
    }
}
