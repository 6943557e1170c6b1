//! `hexdump` and `hd` (util-linux 2.37): dumps input through format strings.
//!
//! Every display option is a set of format strings, as in util-linux: `-b -c -C -d -o -x`
//! (and no option at all, or the name `hd`) add their built-in formats, `-e` and `-f` the
//! user's, all applied in order to each block of input. Lines equal to the one before are
//! shown as one `*` unless `-v`; `%_A` units print the final offset once at the end.
//! `-L/--color` is accepted; output is never a terminal here, so no colours (nor `_L`).

mod display;
mod format;
mod input;

use crate::common::getopt::{self, Config, OptSpec};
use crate::common::io::{prog, run_main};
use crate::common::{Io, sys};
use std::ffi::OsString;

pub fn main(args: Vec<OsString>) -> i32 {
    run_main(args, run)
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum K {
    OctalBytes,
    CharBytes,
    Canonical,
    DecimalWords,
    Format,
    FormatFile,
    Color,
    Length,
    OctalWords,
    Skip,
    Verbose,
    HexWords,
    Help,
    Version,
}

const SPECS: &[OptSpec<K>] = &[
    getopt::flag('b', "one-byte-octal", K::OctalBytes),
    getopt::flag('c', "one-byte-char", K::CharBytes),
    getopt::flag('C', "canonical", K::Canonical),
    getopt::flag('d', "two-bytes-decimal", K::DecimalWords),
    getopt::with_arg('e', "format", K::Format),
    getopt::with_arg('f', "format-file", K::FormatFile),
    getopt::short_opt_arg('L', "color", K::Color),
    getopt::with_arg('n', "length", K::Length),
    getopt::flag('o', "two-bytes-octal", K::OctalWords),
    getopt::with_arg('s', "skip", K::Skip),
    getopt::flag('v', "no-squeezing", K::Verbose),
    getopt::flag('x', "two-bytes-hex", K::HexWords),
    getopt::flag('h', "help", K::Help),
    getopt::flag('V', "version", K::Version),
];

/// The built-in display formats (as util-linux defines them).
const CANONICAL: &[&str] = &[
    r#""%08.8_Ax\n""#,
    r#""%08.8_ax  " 8/1 "%02x " "  " 8/1 "%02x " "#,
    r#""  |" 16/1 "%_p" "|\n""#,
];
const DEFAULT: &[&str] = &[r#""%07.7_Ax\n""#, r#""%07.7_ax " 8/2 "%04x " "\n""#];
const OCTAL_BYTES: &[&str] = &[r#""%07.7_Ax\n""#, r#""%07.7_ax " 16/1 "%03o " "\n""#];
const CHAR_BYTES: &[&str] = &[r#""%07.7_Ax\n""#, r#""%07.7_ax " 16/1 "%3_c " "\n""#];
const DECIMAL_WORDS: &[&str] = &[r#""%07.7_Ax\n""#, r#""%07.7_ax " 8/2 "  %05u " "\n""#];
const OCTAL_WORDS: &[&str] = &[r#""%07.7_Ax\n""#, r#""%07.7_ax " 8/2 " %06o " "\n""#];
const HEX_WORDS: &[&str] = &[r#""%07.7_Ax\n""#, r#""%07.7_ax " 8/2 "   %04x " "\n""#];

const HELP: &str = "
Usage:
 hexdump [options] <file>...

Display file contents in hexadecimal, decimal, octal, or ascii.

Options:
 -b, --one-byte-octal      one-byte octal display
 -c, --one-byte-char       one-byte character display
 -C, --canonical           canonical hex+ASCII display
 -d, --two-bytes-decimal   two-byte decimal display
 -o, --two-bytes-octal     two-byte octal display
 -x, --two-bytes-hex       two-byte hexadecimal display
 -L, --color[=<mode>]      interpret color formatting specifiers
                             colors are enabled by default
 -e, --format <format>     format string to be used for displaying data
 -f, --format-file <file>  file that contains format strings
 -n, --length <length>     interpret only length bytes of input
 -s, --skip <offset>       skip offset bytes from the beginning
 -v, --no-squeezing        output identical lines

 -h, --help                display this help
 -V, --version             display version

Arguments:
 <length> and <offset> arguments may be followed by the suffixes for
   GiB, TiB, PiB, EiB, ZiB, and YiB (the \"iB\" is optional)

For more details see hexdump(1).
";

/// util-linux's `strtosize`: a number (C base prefixes), optionally with a fraction and a
/// `K M G T P E Z Y` suffix, binary unless followed by `B` (`KiB` = `K` = 1024, `KB` = 1000).
/// `Err` is the errno text.
fn parse_size(s: &str) -> Result<u64, &'static str> {
    const INVALID: &str = "Invalid argument";
    const RANGE: &str = "Numerical result out of range";
    let t = s.trim_start();
    if t.starts_with('-') {
        return Err(INVALID);
    }
    let t = t.strip_prefix('+').unwrap_or(t);
    let (radix, body) = if let Some(h) = t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")) {
        (16, h)
    } else if t.starts_with('0') && t.len() > 1 {
        (8, &t[1..])
    } else {
        (10, t)
    };
    let end = body
        .find(|c: char| !c.is_digit(radix))
        .unwrap_or(body.len());
    if end == 0 && radix != 8 {
        return Err(INVALID);
    }
    let whole = if end == 0 {
        0
    } else {
        u64::from_str_radix(&body[..end], radix).map_err(|_| RANGE)?
    };
    let mut rest = &body[end..];
    if rest.is_empty() {
        return Ok(whole);
    }
    let mut frac = "";
    if radix == 10
        && let Some(f) = rest.strip_prefix('.')
    {
        let fe = f.find(|c: char| !c.is_ascii_digit()).unwrap_or(f.len());
        frac = &f[..fe];
        rest = &f[fe..];
    }
    let mut chars = rest.chars();
    let Some(unit) = chars.next() else {
        return Err(INVALID);
    };
    let Some(power) = "KMGTPEZY".find(unit.to_ascii_uppercase()) else {
        return Err(INVALID);
    };
    let base: u128 = match chars.as_str() {
        "" | "iB" => 1024,
        "B" => 1000,
        _ => return Err(INVALID),
    };
    let mult = base.pow(power as u32 + 1);
    let mut value = (whole as u128).checked_mul(mult).ok_or(RANGE)?;
    if !frac.is_empty() {
        let digits = frac.len().min(18) as u32;
        let f: u128 = frac[..digits as usize].parse().unwrap_or(0);
        value += f * mult / 10u128.pow(digits);
    }
    u64::try_from(value).map_err(|_| RANGE)
}

fn usage_error(prog: &str, msg: &str, io: &mut Io) -> i32 {
    let _ = io.err.write_all(gnu::usage::report(prog, msg).as_bytes());
    1
}

pub fn run(args: &[String], io: &mut Io) -> i32 {
    let prog = prog(args, "hexdump");
    let parsed = match getopt::parse(args, SPECS, Config::default()) {
        Ok(p) => p,
        Err(msg) => return usage_error(&prog, &msg, io),
    };
    let mut sources: Vec<String> = Vec::new();
    // `hd` is `hexdump -C`, its formats first.
    if prog.rsplit('/').next() == Some("hd") {
        sources.extend(CANONICAL.iter().map(|s| s.to_string()));
    }
    let mut skip = 0;
    let mut length = None;
    let mut verbose = false;
    for opt in &parsed.opts {
        let arg = opt.arg.as_deref().unwrap_or("");
        let builtin: &[&str] = match opt.key {
            K::OctalBytes => OCTAL_BYTES,
            K::CharBytes => CHAR_BYTES,
            K::Canonical => CANONICAL,
            K::DecimalWords => DECIMAL_WORDS,
            K::OctalWords => OCTAL_WORDS,
            K::HexWords => HEX_WORDS,
            _ => &[],
        };
        sources.extend(builtin.iter().map(|s| s.to_string()));
        match opt.key {
            K::Format => sources.push(arg.to_string()),
            K::FormatFile => match std::fs::read(arg) {
                Ok(text) => {
                    for line in String::from_utf8_lossy(&text).lines() {
                        let t = line.trim_start();
                        if !t.is_empty() && !t.starts_with('#') {
                            sources.push(line.to_string());
                        }
                    }
                }
                Err(e) => {
                    let _ = writeln!(io.err, "{prog}: can't read {arg}: {}", sys::strerror(&e));
                    return 1;
                }
            },
            K::Length => match parse_size(arg) {
                Ok(n) => length = Some(n),
                Err(why) => {
                    let _ = writeln!(io.err, "{prog}: failed to parse length: '{arg}': {why}");
                    return 1;
                }
            },
            K::Skip => match parse_size(arg) {
                Ok(n) => skip = n,
                Err(why) => {
                    let _ = writeln!(io.err, "{prog}: failed to parse offset: '{arg}': {why}");
                    return 1;
                }
            },
            K::Verbose => verbose = true,
            K::Help => {
                let _ = io.out.write_all(HELP.as_bytes());
                return 0;
            }
            K::Version => {
                let _ = writeln!(io.out, "{prog} from util-linux 2.37.2");
                return 0;
            }
            _ => {}
        }
    }
    if sources.is_empty() {
        sources.extend(DEFAULT.iter().map(|s| s.to_string()));
    }
    let mut formats = Vec::new();
    for src in &sources {
        match format::parse_format(src) {
            Ok(f) => formats.push(f),
            Err(msg) => {
                let _ = writeln!(io.err, "{prog}: {msg}");
                return 1;
            }
        }
    }
    let block = match format::rewrite(&mut formats) {
        Ok(b) => b,
        Err(msg) => {
            let _ = writeln!(io.err, "{prog}: {msg}");
            return 1;
        }
    };
    if block == 0 {
        return 0;
    }
    let mut input = input::Input::new(parsed.operands, io.stdin, skip, length);
    let status = match display::dump(&formats, block, verbose, &mut input, io.out, io.err, &prog) {
        Ok(()) => input.status,
        Err(e) => return crate::common::io::write_failed(args, &e, io.err),
    };
    if input.all_failed() {
        let _ = writeln!(io.err, "{prog}: all input file arguments failed");
        return 1;
    }
    status
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes() {
        assert_eq!(parse_size("0x10"), Ok(16));
        assert_eq!(parse_size("010"), Ok(8));
        assert_eq!(parse_size("1KiB"), Ok(1024));
        assert_eq!(parse_size("1KB"), Ok(1000));
        assert_eq!(parse_size("1.5K"), Ok(1536));
        assert_eq!(parse_size("3b"), Err("Invalid argument"));
        assert_eq!(parse_size("-1"), Err("Invalid argument"));
    }
}
