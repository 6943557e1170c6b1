//! `file`: a small magic table for what the sandbox holds.
//!
//! Recognised: empty files, directories, symbolic links (`symbolic link to X`, `broken
//! symbolic link to X`), C sources, CSV text, gzip (`gzip compressed data, …` with name, mtime and size as file 5.41
//! prints them), POSIX tar archives, ELF, PNG/JPEG/GIF/PDF/zip, shell/python scripts by their
//! `#!` line, and text: `ASCII text`, `UTF-8 Unicode text`, with `with CRLF line terminators`,
//! `with no line terminators` and `with very long lines`; anything else is `data`. Output is
//! `NAME: TYPE` with names padded to a common width, `-b` for brief, `-L` to follow links.
//!
//! This is far from libmagic; it exists so that the common probe `file x` answers sensibly.
//! Upstream's image had file 5.41's full database.

use crate::common::io::{prog, run_main};
use crate::common::time::{Tm, strftime};
use crate::common::{Io, sys};
use std::ffi::OsString;

pub fn main(args: Vec<OsString>) -> i32 {
    run_main(args, run)
}

fn text_kind(data: &[u8]) -> Option<String> {
    if data
        .iter()
        .any(|&b| b == 0 || (b < 0x20 && !b"\t\n\r\x0b\x0c\x1b\x08\x07".contains(&b)))
    {
        return None;
    }
    let charset = if data.is_ascii() {
        "ASCII text"
    } else if std::str::from_utf8(data).is_ok() {
        "Unicode text, UTF-8 text"
    } else {
        "ISO-8859 text"
    };
    let mut notes = Vec::new();
    if data.windows(2).any(|w| w == b"\r\n") {
        notes.push("with CRLF line terminators");
    }
    if data.split(|&b| b == b'\n').any(|l| l.len() > 300) {
        notes.push("with very long lines");
    }
    if !data.contains(&b'\n') && !data.contains(&b'\r') {
        notes.push("with no line terminators");
    }
    let mut kind = charset.to_string();
    let text = String::from_utf8_lossy(data);
    let lines: Vec<&str> = text.lines().filter(|l| !l.is_empty()).collect();
    let commas = |l: &str| l.bytes().filter(|&b| b == b',').count();
    if text
        .lines()
        .any(|l| l.starts_with("#include") || l.starts_with("int main"))
    {
        kind = format!("C source, {charset}");
    } else if lines.len() >= 2
        && commas(lines[0]) > 0
        && lines.iter().all(|l| commas(l) == commas(lines[0]))
    {
        // libmagic's CSV check: every line has the same number of separators.
        kind = "CSV text".into();
    }
    if data.starts_with(b"#!") {
        let first = String::from_utf8_lossy(data.split(|&b| b == b'\n').next().unwrap_or_default())
            .into_owned();
        let interp = if first.contains("python") {
            Some("Python script")
        } else if first.contains("bash") {
            Some("Bourne-Again shell script")
        } else if first.contains("/sh") {
            Some("POSIX shell script")
        } else if first.contains("perl") {
            Some("Perl script")
        } else {
            None
        };
        if let Some(i) = interp {
            kind = format!("{i}, {charset} executable");
        }
    }
    for n in notes {
        kind.push_str(", ");
        kind.push_str(n);
    }
    Some(kind)
}

fn gzip_info(data: &[u8]) -> String {
    let mut s = "gzip compressed data".to_string();
    let flags = data.get(3).copied().unwrap_or(0);
    let mtime = data
        .get(4..8)
        .map_or(0, |b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]));
    let mut pos = 10;
    if flags & 4 != 0 && data.len() >= 12 {
        let xlen = usize::from(u16::from_le_bytes([data[10], data[11]]));
        pos += 2 + xlen;
    }
    if flags & 8 != 0
        && let Some(rest) = data.get(pos..)
    {
        let end = rest.iter().position(|&b| b == 0).unwrap_or(rest.len());
        s.push_str(&format!(
            ", was \"{}\"",
            String::from_utf8_lossy(&rest[..end])
        ));
    }
    if mtime != 0 {
        let tm = Tm::from_epoch(i64::from(mtime), 0);
        s.push_str(&format!(
            ", last modified: {}",
            strftime("%a %b %e %H:%M:%S %Y", &tm)
        ));
    }
    let os = match data.get(9) {
        Some(3) => ", from Unix",
        Some(0) => ", from FAT filesystem (MS-DOS, OS/2, NT)",
        _ => "",
    };
    s.push_str(os);
    if data.len() >= 18 {
        let n = data.len();
        let size = u32::from_le_bytes([data[n - 4], data[n - 3], data[n - 2], data[n - 1]]);
        s.push_str(&format!(", original size modulo 2^32 {size}"));
    }
    s
}

fn classify(data: &[u8]) -> String {
    if data.is_empty() {
        return "empty".into();
    }
    if data.starts_with(&[0x1f, 0x8b]) {
        return gzip_info(data);
    }
    if data.len() >= 262 && &data[257..262] == b"ustar" {
        return if &data[257..265] == b"ustar  \0" {
            "POSIX tar archive (GNU)".into()
        } else {
            "POSIX tar archive".into()
        };
    }
    if data.starts_with(b"\x7fELF") {
        let bits = if data.get(4) == Some(&2) {
            "64-bit"
        } else {
            "32-bit"
        };
        let endian = if data.get(5) == Some(&2) {
            "MSB"
        } else {
            "LSB"
        };
        let kind = match data.get(16) {
            Some(1) => "relocatable",
            Some(2) => "executable",
            Some(3) => "shared object",
            Some(4) => "core file",
            _ => "unknown type",
        };
        return format!("ELF {bits} {endian} {kind}");
    }
    let magic: &[(&[u8], &str)] = &[
        (b"\x89PNG", "PNG image data"),
        (b"\xff\xd8\xff", "JPEG image data"),
        (b"GIF8", "GIF image data"),
        (b"%PDF-", "PDF document"),
        (b"PK\x03\x04", "Zip archive data"),
        (b"BZh", "bzip2 compressed data"),
        (b"\xfd7zXZ\0", "XZ compressed data"),
        (b"SQLite format 3\0", "SQLite 3.x database"),
    ];
    for (m, name) in magic {
        if data.starts_with(m) {
            return (*name).to_string();
        }
    }
    text_kind(data).unwrap_or_else(|| "data".into())
}

pub fn run(args: &[String], io: &mut Io) -> i32 {
    let prog = prog(args, "file");
    let (mut brief, mut follow) = (false, false);
    let mut names = Vec::new();
    for a in &args[1.min(args.len())..] {
        match a.as_str() {
            "-b" | "--brief" => brief = true,
            "-L" | "--dereference" => follow = true,
            "-h" | "--no-dereference" => follow = false,
            s if s.starts_with('-') && s.len() > 1 => {
                let _ = writeln!(
                    io.err,
                    "{prog}: invalid option -- '{}'",
                    s.trim_start_matches('-')
                );
                let _ = writeln!(
                    io.err,
                    "Usage: {prog} [-bcCdEhikLlNnprsSvzZ0] [--apple] [--extension] [--mime-encoding]"
                );
                return 1;
            }
            _ => names.push(a.clone()),
        }
    }
    if names.is_empty() {
        let _ = writeln!(
            io.err,
            "Usage: {prog} [-bcCdEhikLlNnprsSvzZ0] [--apple] [--extension] [--mime-encoding]\n            [--mime-type] [-e <testname>] [-F <separator>]  [-f <namefile>]\n            [-m <magicfiles>] [-P <parameter=value>] [--exclude-quiet]\n            <file> ...\n       {prog} -C [-m <magicfiles>]\n       {prog} [--help]"
        );
        return 1;
    }
    let width = names.iter().map(|n| n.len() + 1).max().unwrap_or(0);
    for n in &names {
        let kind = match hostcalls::stat(n, follow) {
            Err(e) => format!("cannot open `{n}' ({})", sys::strerror(&e)),
            Ok(st) if st.is_symlink() => {
                let target = hostcalls::read_link(n)
                    .map(|t| t.to_string_lossy().into_owned())
                    .unwrap_or_default();
                if hostcalls::stat(n, true).is_ok() {
                    format!("symbolic link to {target}")
                } else {
                    format!("broken symbolic link to {target}")
                }
            }
            Ok(st) if st.is_dir() => "directory".into(),
            Ok(st) if !st.is_file() => "special".into(),
            Ok(_) => match std::fs::read(n) {
                Ok(d) => classify(&d[..d.len().min(1 << 20)]),
                Err(e) => format!("cannot open `{n}' ({})", sys::strerror(&e)),
            },
        };
        let line = if brief {
            format!("{kind}\n")
        } else {
            format!("{:<width$} {kind}\n", format!("{n}:"))
        };
        let _ = io.out.write_all(line.as_bytes());
    }
    0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds() {
        assert_eq!(classify(b""), "empty");
        assert_eq!(classify(b"hello\n"), "ASCII text");
        assert_eq!(classify(b"hello"), "ASCII text, with no line terminators");
        assert_eq!(
            classify(b"a\r\nb\r\n"),
            "ASCII text, with CRLF line terminators"
        );
        assert_eq!(
            classify(b"#!/bin/sh\necho\n"),
            "POSIX shell script, ASCII text executable"
        );
        assert_eq!(classify(b"\x00\x01\xff"), "data");
        assert!(
            classify(b"\x7fELF\x02\x01\x01\0\0\0\0\0\0\0\0\0\x03\0")
                .starts_with("ELF 64-bit LSB shared object")
        );
    }
}
