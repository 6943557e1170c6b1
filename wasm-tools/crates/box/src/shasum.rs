//! `shasum` as Ubuntu 22.04 has it (the Perl script of Digest::SHA 6.02): `-a 1|224|256|384|512|
//! 512224|512256` (SHA-1 by default), text (`HASH  NAME`), binary (`HASH *NAME`) and `--tag`
//! (`SHA256 (NAME) = HASH`) lines, `-` or no operand for standard input, and `-c` over such
//! lines. A directory or a missing file is reported (`shasum: d: Is a directory`) and the
//! others are still summed; the status is then 1. Its usage errors are Getopt::Long's:
//! `Unknown option: x` and `Type shasum -h for help`.
//!
//! Not supported (reported as unknown options): the bit-string modes `-0` and `-U` and
//! `--portable`.

use sha2::Digest;
use std::ffi::OsString;
use std::io::{Read, Write};

/// What a run was asked.
struct Options {
    algorithm: u32,
    binary: bool,
    tag: bool,
    check: bool,
    status: bool,
    quiet: bool,
    warn: bool,
    files: Vec<String>,
}

/// Long options and whether they take a value; Getopt::Long accepts any unique prefix.
const LONG: &[(&str, bool)] = &[
    ("algorithm", true),
    ("binary", false),
    ("check", false),
    ("text", false),
    ("tag", false),
    ("status", false),
    ("quiet", false),
    ("warn", false),
    ("strict", false),
    ("ignore-missing", false),
    ("help", false),
    ("version", false),
];

enum Parsed {
    Run(Options),
    Exit(i32),
}

fn unknown(what: &str) -> Parsed {
    let _ = write!(
        std::io::stderr(),
        "Unknown option: {what}\nType shasum -h for help\n"
    );
    Parsed::Exit(1)
}

fn parse(args: &[OsString]) -> Parsed {
    let args: Vec<String> = args
        .iter()
        .skip(1)
        .map(|a| a.to_string_lossy().into_owned())
        .collect();
    let mut o = Options {
        algorithm: 1,
        binary: false,
        tag: false,
        check: false,
        status: false,
        quiet: false,
        warn: false,
        files: Vec::new(),
    };
    let mut algorithm_word = None;
    let mut i = 0;
    while i < args.len() {
        let word = &args[i];
        i += 1;
        if word == "--" {
            o.files.extend(args[i..].iter().cloned());
            break;
        }
        if let Some(long) = word.strip_prefix("--") {
            let (name, value) = match long.split_once('=') {
                Some((n, v)) => (n, Some(v.to_string())),
                None => (long, None),
            };
            let matches: Vec<&(&str, bool)> =
                LONG.iter().filter(|(l, _)| l.starts_with(name)).collect();
            let full = match matches.as_slice() {
                [one] => *one,
                _ => match LONG.iter().find(|(l, _)| *l == name) {
                    Some(exact) => exact,
                    None => return unknown(name),
                },
            };
            let value = if full.1 {
                match value.or_else(|| {
                    i += 1;
                    args.get(i - 1).cloned()
                }) {
                    Some(v) => Some(v),
                    None => {
                        let _ = write!(
                            std::io::stderr(),
                            "Option {} requires an argument\nType shasum -h for help\n",
                            full.0
                        );
                        return Parsed::Exit(1);
                    }
                }
            } else {
                None
            };
            match full.0 {
                "algorithm" => algorithm_word = value,
                "binary" => o.binary = true,
                "text" => o.binary = false,
                "check" => o.check = true,
                "tag" => o.tag = true,
                "status" => o.status = true,
                "quiet" => o.quiet = true,
                "warn" => o.warn = true,
                "help" => return help(),
                "version" => return version(),
                _ => {}
            }
            continue;
        }
        if word.len() < 2 || !word.starts_with('-') {
            o.files.push(word.clone());
            continue;
        }
        let letters: Vec<char> = word[1..].chars().collect();
        let mut at = 0;
        while at < letters.len() {
            match letters[at] {
                'a' => {
                    let rest: String = letters[at + 1..].iter().collect();
                    algorithm_word = if rest.is_empty() {
                        i += 1;
                        match args.get(i - 1) {
                            Some(v) => Some(v.clone()),
                            None => {
                                let _ = write!(
                                    std::io::stderr(),
                                    "Option a requires an argument\nType shasum -h for help\n"
                                );
                                return Parsed::Exit(1);
                            }
                        }
                    } else {
                        Some(rest)
                    };
                    break;
                }
                'b' => o.binary = true,
                't' => o.binary = false,
                'c' => o.check = true,
                's' => o.status = true,
                'q' => o.quiet = true,
                'w' => o.warn = true,
                'h' => return help(),
                'v' => return version(),
                other => return unknown(&other.to_string()),
            }
            at += 1;
        }
    }
    if let Some(word) = algorithm_word {
        match word.parse::<u32>() {
            Ok(n) if [1, 224, 256, 384, 512, 512224, 512256].contains(&n) => o.algorithm = n,
            _ => {
                let _ = write!(
                    std::io::stderr(),
                    "shasum: Unrecognized algorithm\nType shasum -h for help\n"
                );
                return Parsed::Exit(1);
            }
        }
    }
    Parsed::Run(o)
}

fn help() -> Parsed {
    let _ = write!(
        std::io::stdout(),
        "Usage: shasum [OPTION]... [FILE]...\nPrint or check SHA checksums.\nWith no FILE, or \
         when FILE is -, read standard input.\n\n  -a, --algorithm   1 (default), 224, 256, 384, \
         512, 512224, 512256\n  -b, --binary      read in binary mode\n  -c, --check       read \
         SHA sums from the FILEs and check them\n      --tag         create a BSD-style \
         checksum\n  -t, --text        read in text mode (default)\n"
    );
    Parsed::Exit(0)
}

fn version() -> Parsed {
    let _ = writeln!(std::io::stdout(), "6.02");
    Parsed::Exit(0)
}

fn digest(algorithm: u32, data: &[u8]) -> String {
    let bytes: Vec<u8> = match algorithm {
        1 => sha1::Sha1::digest(data).to_vec(),
        224 => sha2::Sha224::digest(data).to_vec(),
        256 => sha2::Sha256::digest(data).to_vec(),
        384 => sha2::Sha384::digest(data).to_vec(),
        512224 => sha2::Sha512_224::digest(data).to_vec(),
        512256 => sha2::Sha512_256::digest(data).to_vec(),
        _ => sha2::Sha512::digest(data).to_vec(),
    };
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// The bytes of `name` (`-`: standard input), or the reason it cannot be read.
fn read(name: &str) -> Result<Vec<u8>, String> {
    let mut data = Vec::new();
    let read = if name == "-" {
        std::io::stdin().read_to_end(&mut data).map(|_| ())
    } else {
        match std::fs::metadata(name) {
            Ok(m) if m.is_dir() => return Err("Is a directory".into()),
            _ => std::fs::File::open(name).and_then(|mut f| f.read_to_end(&mut data).map(|_| ())),
        }
    };
    read.map(|()| data).map_err(|e| applets::strerror(&e))
}

/// The algorithm a hash of `hex_len` digits comes from (`-c` finds it from each line).
fn algorithm_of_length(hex_len: usize) -> Option<u32> {
    match hex_len {
        40 => Some(1),
        56 => Some(224),
        64 => Some(256),
        96 => Some(384),
        128 => Some(512),
        _ => None,
    }
}

fn check(o: &Options, out: &mut dyn Write) -> i32 {
    let lists = if o.files.is_empty() {
        vec!["-".to_string()]
    } else {
        o.files.clone()
    };
    let (mut failed, mut unreadable, mut malformed) = (0usize, 0usize, 0usize);
    for list in &lists {
        let text = match read(list) {
            Ok(t) => String::from_utf8_lossy(&t).into_owned(),
            Err(why) => {
                let _ = writeln!(std::io::stderr(), "shasum: {list}: {why}");
                return 1;
            }
        };
        for line in text.lines() {
            let parsed = line
                .split_once(' ')
                .and_then(|(hash, rest)| {
                    let name = rest.strip_prefix(' ').or_else(|| rest.strip_prefix('*'))?;
                    Some((hash, name))
                })
                .filter(|(hash, _)| hash.bytes().all(|b| b.is_ascii_hexdigit()))
                .and_then(|(hash, name)| Some((algorithm_of_length(hash.len())?, hash, name)));
            let Some((algorithm, hash, name)) = parsed else {
                malformed += 1;
                if o.warn {
                    let _ = writeln!(
                        std::io::stderr(),
                        "shasum: {list}: {}: improperly formatted SHA checksum line",
                        malformed
                    );
                }
                continue;
            };
            let verdict = match read(name) {
                Ok(data) if digest(algorithm, &data).eq_ignore_ascii_case(hash) => "OK",
                Ok(_) => {
                    failed += 1;
                    "FAILED"
                }
                Err(why) => {
                    unreadable += 1;
                    let _ = writeln!(std::io::stderr(), "shasum: {name}: {why}");
                    "FAILED open or read"
                }
            };
            let silent = o.status || (o.quiet && verdict == "OK");
            if !silent {
                let _ = writeln!(out, "{name}: {verdict}");
            }
        }
    }
    let _ = out.flush();
    if !o.status {
        let plural = |n: usize, one: &str, many: &str| {
            if n == 1 {
                one.to_string()
            } else {
                many.to_string()
            }
        };
        if unreadable > 0 {
            let _ = writeln!(
                std::io::stderr(),
                "shasum: WARNING: {unreadable} listed {} could not be read",
                plural(unreadable, "file", "files")
            );
        }
        if failed > 0 {
            let _ = writeln!(
                std::io::stderr(),
                "shasum: WARNING: {failed} computed {} did NOT match",
                plural(failed, "checksum", "checksums")
            );
        }
    }
    i32::from(failed + unreadable > 0)
}

pub fn main(args: Vec<OsString>) -> i32 {
    let o = match parse(&args) {
        Parsed::Run(o) => o,
        Parsed::Exit(status) => return status,
    };
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    if o.check {
        return check(&o, &mut out);
    }
    let files = if o.files.is_empty() {
        vec!["-".to_string()]
    } else {
        o.files.clone()
    };
    let mut status = 0;
    for name in &files {
        match read(name) {
            Ok(data) => {
                let hash = digest(o.algorithm, &data);
                let _ = if o.tag {
                    writeln!(out, "SHA{} ({name}) = {hash}", o.algorithm)
                } else {
                    let mode = if o.binary { '*' } else { ' ' };
                    writeln!(out, "{hash} {mode}{name}")
                };
            }
            Err(why) => {
                // Perl's warnings go straight out; what was summed before comes first.
                let _ = out.flush();
                let _ = writeln!(std::io::stderr(), "shasum: {name}: {why}");
                status = 1;
            }
        }
    }
    let _ = out.flush();
    status
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn digests_of_every_algorithm() {
        assert_eq!(
            digest(1, b"hi\n"),
            "55ca6286e3e4f4fba5d0448333fa99fc5a404a73"
        );
        assert_eq!(
            digest(512224, b"hi\n"),
            "995961574682d8caf98e9ef9edc786287bcd2d50c8b72fd56b1b7928"
        );
        assert_eq!(algorithm_of_length(64), Some(256));
    }
}
