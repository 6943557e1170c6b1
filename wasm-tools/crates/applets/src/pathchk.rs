//! `pathchk` as GNU coreutils 8.32 has it: without options, a name is refused when looking it
//! up fails for any reason but its absence, or when it could not be created for its length
//! (4095 bytes in all, 255 per component on Linux); `-p` checks instead against POSIX's
//! smallest limits (255 and 14) and portable characters; `-P` refuses empty names and
//! components starting with `-`. Messages name the whole file as GNU does (uutils names the
//! component).

use crate::common::getopt::{self, Config, OptSpec};
use crate::common::io::{prog, report, run_main, usage};
use crate::common::{Io, gnu_version, quote, sys};
use std::ffi::OsString;
use std::io;

pub fn main(args: Vec<OsString>) -> i32 {
    run_main(args, run)
}

/// POSIX's smallest limits, which `-p` checks.
const POSIX_PATH_MAX: usize = 256;
const POSIX_NAME_MAX: usize = 14;
/// X/Open's (glibc's `_XOPEN_*`): names within these fit any file system, so the real limits
/// are only looked up beyond them.
const NAME_MAX_MINIMUM: usize = 255;
const PATH_MAX_MINIMUM: usize = 1024;
/// Linux's `pathconf(_PC_PATH_MAX)` and `pathconf(_PC_NAME_MAX)` for the sandbox's file
/// systems.
const PATH_MAX: usize = 4096;
const NAME_MAX: usize = 255;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum K {
    Basic,
    Extra,
    Portability,
    Help,
    Version,
}

const SPECS: &[OptSpec<K>] = &[
    getopt::flag('p', "", K::Basic),
    getopt::flag('P', "", K::Extra),
    getopt::long_flag("portability", K::Portability),
    getopt::long_flag("help", K::Help),
    getopt::long_flag("version", K::Version),
];

/// `--help`: GNU's usage line (the syntax is the interface), the rest in our words.
const HELP: &str = "Usage: pathchk [OPTION]... NAME...
Report file NAMEs that are invalid here or not portable.

  -p                  check against the limits and characters every POSIX
                        system accepts
  -P                  refuse empty names and components starting with '-'
      --portability   both -p and -P
      --help, --version
";

fn run(args: &[String], io: &mut Io) -> i32 {
    let prog = prog(args, "pathchk");
    let config = Config {
        stop_at_operand: true,
        ..Config::default()
    };
    let parsed = match getopt::parse(args, SPECS, config) {
        Ok(p) => p,
        Err(message) => return usage(io, &prog, &message),
    };
    let (mut basic, mut extra) = (false, false);
    for opt in &parsed.opts {
        match opt.key {
            K::Basic => basic = true,
            K::Extra => extra = true,
            K::Portability => (basic, extra) = (true, true),
            K::Help => {
                let _ = io.out.write_all(HELP.as_bytes());
                return 0;
            }
            K::Version => {
                let authors = "Paul Eggert, David MacKenzie, and Jim Meyering";
                let text = gnu_version("pathchk (GNU coreutils) 8.32", 2020, authors);
                let _ = io.out.write_all(text.as_bytes());
                return 0;
            }
        }
    }
    if parsed.operands.is_empty() {
        return usage(io, &prog, "missing operand");
    }
    let mut status = 0;
    for name in &parsed.operands {
        if let Err(message) = validate(name, basic, extra) {
            report(io.out, io.err, &prog, message);
            status = 1;
        }
    }
    status
}

/// The message for a name that fails the checks.
fn validate(file: &str, basic: bool, extra: bool) -> Result<(), String> {
    let bytes = file.as_bytes();
    if extra
        && bytes
            .iter()
            .enumerate()
            .any(|(i, &b)| b == b'-' && (i == 0 || bytes[i - 1] == b'/'))
    {
        return Err(format!(
            "leading '-' in a component of file name {}",
            quote::shell_always(file)
        ));
    }
    if (basic || extra) && file.is_empty() {
        return Err("empty file name".to_string());
    }
    let mut exists = false;
    if basic {
        let portable = |b: &u8| b.is_ascii_alphanumeric() || b"/._-".contains(b);
        if let Some(&bad) = bytes.iter().find(|b| !portable(b)) {
            // In the C locale every byte is a character of its own.
            let shown = quote::locale_bytes(&[bad]);
            return Err(format!(
                "nonportable character {shown} in file name {}",
                quote::shell_always(file)
            ));
        }
    } else {
        match std::fs::symlink_metadata(file) {
            Ok(_) => exists = true,
            Err(e) if e.kind() == io::ErrorKind::NotFound && !file.is_empty() => {}
            Err(e) => {
                return Err(format!(
                    "{}: {}",
                    quote::shell_if_needed(file),
                    sys::strerror(&e)
                ));
            }
        }
    }
    if basic || (!exists && PATH_MAX_MINIMUM <= bytes.len()) {
        let max = if basic { POSIX_PATH_MAX } else { PATH_MAX };
        if max <= bytes.len() {
            return Err(format!(
                "limit {} exceeded by length {} of file name {}",
                max - 1,
                bytes.len(),
                quote::shell_always(file)
            ));
        }
    }
    let components = components(bytes);
    let check_lengths =
        basic || (!exists && components.iter().any(|&(_, len)| len > NAME_MAX_MINIMUM));
    if !check_lengths {
        return Ok(());
    }
    let mut name_max = NAME_MAX_MINIMUM;
    // Once known, the limit for every component from here on.
    let mut known = if basic { POSIX_NAME_MAX } else { 0 };
    for (start, len) in components {
        if known != 0 {
            name_max = known;
        } else {
            let dir = if start == 0 { "." } else { &file[..start] };
            match name_max_of(dir) {
                Ok(n) => name_max = n,
                // A directory that does not exist: its parent's limit holds.
                Err(e) if e.kind() == io::ErrorKind::NotFound => known = name_max,
                Err(e) => {
                    return Err(format!(
                        "{}: {}",
                        quote::shell_if_needed(dir),
                        sys::strerror(&e)
                    ));
                }
            }
        }
        if name_max < len {
            return Err(format!(
                "limit {name_max} exceeded by length {len} of file name component {}",
                quote::locale(&file[start..start + len])
            ));
        }
    }
    Ok(())
}

/// Where each component starts and how long it is.
fn components(bytes: &[u8]) -> Vec<(usize, usize)> {
    let mut v = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'/' {
            i += 1;
            continue;
        }
        let len = bytes[i..]
            .iter()
            .position(|&b| b == b'/')
            .unwrap_or(bytes.len() - i);
        v.push((i, len));
        i += len;
    }
    v
}

/// `pathconf(dir, _PC_NAME_MAX)`: the same for every file system here, once `dir` exists.
fn name_max_of(dir: &str) -> io::Result<usize> {
    std::fs::metadata(dir).map(|_| NAME_MAX)
}
