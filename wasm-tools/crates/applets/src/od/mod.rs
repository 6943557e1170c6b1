//! `od` as GNU coreutils 8.32/9.1 has it: octal (and other) dumps of the files read as one
//! stream, `-A -j -N -S -t -v -w --endian --traditional`, the traditional letters
//! (`-a -b -c -d -f -i -l -o -s -x` and the undocumented `-B -D -e -F -h -H -I -L -O -X`), the
//! traditional `[FILE] [[+]OFFSET[.][b] [+][LABEL][.][b]]` operands, `*` for repeated lines,
//! and GNU's messages and statuses. Floating-point fields print as GNU's do (`2.3776288e+12`,
//! `nan`), which is why this is not uutils' od.

mod fields;
mod float;
mod input;
mod spec;

use crate::common::getopt::{self, Config, OptSpec};
use crate::common::io::{prog, report, run_main, usage};
use crate::common::xstrtol::{self, NumError, xstrtoumax};
use crate::common::{Io, gnu_version};
use fields::Endian;
use input::Input;
use spec::Spec;
use std::ffi::OsString;

pub fn main(args: Vec<OsString>) -> i32 {
    run_main(args, run)
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum K {
    Radix,
    Skip,
    Limit,
    Strings,
    Format,
    Verbose,
    Width,
    Endian,
    Traditional,
    /// A traditional letter and the type it stands for.
    Letter(&'static str),
    Help,
    Version,
}

const fn letter(c: char, ty: &'static str) -> OptSpec<K> {
    getopt::flag(c, "", K::Letter(ty))
}

const SPECS: &[OptSpec<K>] = &[
    getopt::with_arg('A', "address-radix", K::Radix),
    getopt::with_arg('j', "skip-bytes", K::Skip),
    getopt::with_arg('N', "read-bytes", K::Limit),
    getopt::with_arg('S', "", K::Strings),
    getopt::long_opt_arg("strings", K::Strings),
    getopt::with_arg('t', "format", K::Format),
    getopt::flag('v', "output-duplicates", K::Verbose),
    getopt::short_opt_arg('w', "width", K::Width),
    getopt::long_arg("endian", K::Endian),
    getopt::long_flag("traditional", K::Traditional),
    getopt::long_flag("help", K::Help),
    getopt::long_flag("version", K::Version),
    letter('a', "a"),
    letter('b', "o1"),
    letter('c', "c"),
    letter('D', "u4"),
    letter('d', "u2"),
    letter('e', "fD"),
    letter('F', "fD"),
    letter('f', "fF"),
    letter('H', "x4"),
    letter('X', "x4"),
    letter('i', "dI"),
    letter('I', "dL"),
    letter('L', "dL"),
    letter('l', "dL"),
    letter('O', "o4"),
    letter('B', "o2"),
    letter('o', "o2"),
    letter('s', "d2"),
    letter('h', "x2"),
    letter('x', "x2"),
];

/// `--help`: GNU's usage lines (the syntax is the interface), the rest in our words.
const HELP: &str = "Usage: od [OPTION]... [FILE]...
  or:  od [-abcdfilosx]... [FILE] [[+]OFFSET[.][b]]
  or:  od --traditional [OPTION]... [FILE] [[+]OFFSET[.][b] [+][LABEL][.][b]]

Dump FILEs (standard input when none or `-`), read one after the other as one
stream, in octal 2-byte units or the TYPEs given.

  -A, --address-radix=RADIX   offsets in d(ecimal), o(ctal), x (hex) or n(one)
      --endian={big|little}   byte order of multi-byte values
  -j, --skip-bytes=BYTES      start after BYTES bytes
  -N, --read-bytes=BYTES      dump at most BYTES bytes
  -S BYTES, --strings[=BYTES]  print NUL-ended runs of at least BYTES (3)
                                printable bytes instead
  -t, --format=TYPE           add output type(s)
  -v, --output-duplicates     print repeated lines instead of `*`
  -w[BYTES], --width[=BYTES]  BYTES (32) bytes per line instead of 16
      --traditional           read operands as in the third form
      --help, --version

Traditional letters: -a (-t a), -b (-t o1), -c (-t c), -d (-t u2), -f (-t fF),
-i (-t dI), -l (-t dL), -o (-t o2), -s (-t d2), -x (-t x2).

TYPE letters: a (named character), c (character or escape), d[SIZE] (signed),
f[SIZE] (floating point), o[SIZE] (octal), u[SIZE] (unsigned), x[SIZE] (hex);
SIZE is a byte count, C S I L for integers, F D L for floating point; a
trailing z adds the printable bytes at the end of each line.

BYTES may start with 0x (hex) and end in b (512), K (1024), KB (1000), M, MB,
and so on up to Y; KiB means K.
";

/// The multipliers `-j`, `-N` and `-S` accept.
const MULTIPLIERS: &str = "bEGKkMmPTYZ0";

/// How offsets are printed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Radix {
    Octal,
    Decimal,
    Hex,
    None,
}

struct Settings {
    radix: Radix,
    skip: u64,
    limit: Option<u64>,
    strings: Option<u64>,
    specs: Vec<Spec>,
    verbose: bool,
    width: Option<u64>,
    endian: Endian,
    /// The pseudo-address of the first byte (traditional LABEL), as an offset from the real one.
    label: Option<u64>,
}

/// od ends before dumping, with this status (its message, help or version is written).
struct Exit(i32);

/// A usage error: the message is written; the status is 1.
const FATAL: Exit = Exit(1);

fn run(args: &[String], io: &mut Io) -> i32 {
    let prog = prog(args, "od");
    match settings(&prog, args, io) {
        Ok((settings, files)) => dump_all(&prog, &settings, files, io),
        Err(Exit(status)) => status,
    }
}

/// The option's name as `xstrtol_fatal` prints it: `-j`, or the long name when it was typed.
fn option_name(opt: &getopt::Opt<K>) -> String {
    if opt.spelled.starts_with("--") {
        let long = SPECS
            .iter()
            .filter(|s| s.key == opt.key && s.long.is_some())
            .find_map(|s| s.long)
            .unwrap_or_default();
        format!("--{long}")
    } else {
        opt.spelled.clone()
    }
}

fn number(
    prog: &str,
    io: &mut Io,
    opt: &getopt::Opt<K>,
    base: u32,
    suffixes: &str,
) -> Result<u64, Exit> {
    let arg = opt.arg.clone().unwrap_or_default();
    xstrtoumax(&arg, base, Some(suffixes)).map_err(|e: NumError| {
        report(
            io.out,
            io.err,
            prog,
            xstrtol::message(e, &option_name(opt), &arg),
        );
        FATAL
    })
}

fn settings(prog: &str, args: &[String], io: &mut Io) -> Result<(Settings, Vec<String>), Exit> {
    let (parsed, bad) = getopt::parse_in_order(args, SPECS, Config::default());
    let mut s = Settings {
        radix: Radix::Octal,
        skip: 0,
        limit: None,
        strings: None,
        specs: Vec::new(),
        verbose: false,
        width: None,
        endian: Endian::Little,
        label: None,
    };
    // Options that make the command line "modern": its operands are then all files.
    let mut modern = false;
    let mut traditional = false;
    let mut types_ok = true;
    for opt in &parsed.opts {
        let arg = opt.arg.as_deref();
        match opt.key {
            K::Radix => {
                modern = true;
                let c = arg.and_then(|a| a.chars().next()).unwrap_or('\0');
                s.radix = match c {
                    'o' => Radix::Octal,
                    'd' => Radix::Decimal,
                    'x' => Radix::Hex,
                    'n' => Radix::None,
                    _ => {
                        report(
                            io.out,
                            io.err,
                            prog,
                            format!(
                                "invalid output address radix '{c}'; it must be one character from [doxn]"
                            ),
                        );
                        return Err(FATAL);
                    }
                };
            }
            K::Skip => {
                modern = true;
                s.skip = number(prog, io, opt, 0, MULTIPLIERS)?;
            }
            K::Limit => {
                modern = true;
                s.limit = Some(number(prog, io, opt, 0, MULTIPLIERS)?);
            }
            K::Strings => {
                modern = true;
                s.strings = Some(match arg {
                    None => 3,
                    Some(_) => number(prog, io, opt, 0, MULTIPLIERS)?,
                });
            }
            K::Format => {
                modern = true;
                if let Err(msg) = spec::decode(arg.unwrap_or_default(), &mut s.specs) {
                    report(io.out, io.err, prog, msg);
                    types_ok = false;
                }
            }
            K::Letter(ty) => {
                if let Err(msg) = spec::decode(ty, &mut s.specs) {
                    report(io.out, io.err, prog, msg);
                    types_ok = false;
                }
            }
            K::Verbose => {
                modern = true;
                s.verbose = true;
            }
            K::Width => {
                modern = true;
                s.width = Some(match arg {
                    None => 32,
                    Some(_) => number(prog, io, opt, 10, "")?,
                });
            }
            K::Endian => {
                modern = true;
                s.endian = match arg.unwrap_or_default() {
                    a if !a.is_empty() && "little".starts_with(a) => Endian::Little,
                    a if !a.is_empty() && "big".starts_with(a) => Endian::Big,
                    a => {
                        let _ = io.out.flush();
                        let _ = write!(
                            io.err,
                            "{prog}: invalid argument '{a}' for '--endian'\n\
                             Valid arguments are:\n  - 'little'\n  - 'big'\n"
                        );
                        let _ = writeln!(io.err, "{}", gnu::usage::try_help(prog));
                        return Err(FATAL);
                    }
                };
            }
            K::Traditional => traditional = true,
            K::Help => {
                let _ = io.out.write_all(HELP.as_bytes());
                return Err(Exit(0));
            }
            K::Version => {
                let text = gnu_version("od (GNU coreutils) 8.32", 2020, "Jim Meyering");
                let _ = io.out.write_all(text.as_bytes());
                return Err(Exit(0));
            }
        }
    }
    if let Some(message) = bad {
        usage(io, prog, &message);
        return Err(FATAL);
    }
    if !types_ok {
        return Err(FATAL);
    }
    if s.strings.is_some() && !s.specs.is_empty() {
        report(
            io.out,
            io.err,
            prog,
            "no type may be specified when dumping strings",
        );
        return Err(FATAL);
    }
    let mut files = parsed.operands;
    if !modern || traditional {
        traditional_operands(&mut s, &mut files, traditional);
        if traditional && files.len() > 1 {
            let extra = crate::common::quote::locale(&files[1]);
            report(io.out, io.err, prog, format!("extra operand {extra}"));
            usage(io, prog, "compatibility mode supports at most one file");
            return Err(FATAL);
        }
    }
    if let Some(limit) = s.limit
        && s.skip.checked_add(limit).is_none()
    {
        report(io.out, io.err, prog, "skip-bytes + read-bytes is too large");
        return Err(FATAL);
    }
    if s.specs.is_empty() {
        let _ = spec::decode("oS", &mut s.specs);
    }
    if files.is_empty() {
        files.push("-".to_string());
    }
    Ok((s, files))
}

/// The traditional operands: `[FILE] [[+]OFFSET [[+]LABEL]]`. Without `--traditional` only
/// `+OFFSET` alone, or `FILE OFFSET` where the offset starts with `+` or a digit.
fn traditional_operands(s: &mut Settings, files: &mut Vec<String>, traditional: bool) {
    let starts_offset = |a: &str| a.starts_with('+') || a.starts_with(|c: char| c.is_ascii_digit());
    match files.len() {
        1 => {
            if (traditional || files[0].starts_with('+'))
                && let Some(offset) = old_offset(&files[0])
            {
                s.skip = offset;
                files.clear();
            }
        }
        2 => {
            if (traditional || starts_offset(&files[1]))
                && let Some(second) = old_offset(&files[1])
            {
                if let (true, Some(first)) = (traditional, old_offset(&files[0])) {
                    s.skip = first;
                    s.label = Some(second.wrapping_sub(first));
                    files.clear();
                } else {
                    s.skip = second;
                    files.truncate(1);
                }
            }
        }
        3 => {
            if traditional
                && let (Some(offset), Some(label)) = (old_offset(&files[1]), old_offset(&files[2]))
            {
                s.skip = offset;
                s.label = Some(label.wrapping_sub(offset));
                files.truncate(1);
            }
        }
        _ => {}
    }
}

/// A traditional offset: octal, or hex after `0x`, or decimal when it has a `.` (which GNU
/// then refuses as a suffix, so such operands are files); `b` multiplies by 512, `B` by 1024.
fn old_offset(text: &str) -> Option<u64> {
    if text.is_empty() {
        return None;
    }
    let body = text.strip_prefix('+').unwrap_or(text);
    let radix = if body.contains('.') {
        10
    } else if body.starts_with("0x") || body.starts_with("0X") {
        16
    } else {
        8
    };
    xstrtoumax(body, radix, Some("Bb")).ok()
}

/// Prints an offset (and the label after it, in parentheses) as the radix says.
fn address(out: &mut String, s: &Settings, offset: u64, end: char) {
    let std = |out: &mut String, value: u64| match s.radix {
        Radix::Decimal => out.push_str(&format!("{value:07}")),
        Radix::Hex => out.push_str(&format!("{value:06x}")),
        Radix::Octal | Radix::None => out.push_str(&format!("{value:07o}")),
    };
    match (s.label, s.radix) {
        (None, Radix::None) => return,
        (None, _) => std(out, offset),
        // With -A n the parenthesised offset is the real one, in octal, as GNU prints it.
        (Some(_), Radix::None) => {
            out.push('(');
            std(out, offset);
            out.push(')');
        }
        (Some(label), _) => {
            std(out, offset);
            out.push_str(" (");
            std(out, offset.wrapping_add(label));
            out.push(')');
        }
    }
    if end != '\0' {
        out.push(end);
    }
}

fn lcm(a: usize, b: usize) -> usize {
    fn gcd(a: usize, b: usize) -> usize {
        if b == 0 { a } else { gcd(b, a % b) }
    }
    a / gcd(a, b) * b
}

fn dump_all(prog: &str, s: &Settings, files: Vec<String>, io: &mut Io) -> i32 {
    let mut input = Input::new(prog, files, io);
    if input.finished() {
        return 1;
    }
    if input.skip(io, s.skip).is_err() {
        report(
            io.out,
            io.err,
            prog,
            "cannot skip past end of combined input",
        );
        return 1;
    }
    if input.finished() {
        return i32::from(!input.ok);
    }
    let written = match s.strings {
        Some(min) => dump_strings(s, min, &mut input, io),
        None => dump(prog, s, &mut input, io),
    };
    if let Err(e) = written {
        if e.kind() == std::io::ErrorKind::OutOfMemory {
            report(io.out, io.err, prog, "memory exhausted");
            return 1;
        }
        return crate::common::io::write_failed(&[prog.to_string()], &e, io.err);
    }
    i32::from(!input.ok)
}

fn dump(prog: &str, s: &Settings, input: &mut Input, io: &mut Io) -> std::io::Result<()> {
    let lcm = s.specs.iter().fold(1, |acc, spec| lcm(acc, spec.size));
    let per_line = match s.width {
        Some(w) => match usize::try_from(w) {
            Ok(w) if w != 0 && w % lcm == 0 => w,
            _ => {
                report(
                    io.out,
                    io.err,
                    prog,
                    format!("warning: invalid width {w}; using {lcm} instead"),
                );
                lcm
            }
        },
        None if lcm < 16 => lcm * (16 / lcm),
        None => lcm,
    };
    // Widths in 64 bits: a `-w` of hundreds of millions overflows a 32-bit usize.
    let line_width = s
        .specs
        .iter()
        .map(|spec| (spec.width as u64 + 1) * (per_line / spec.size) as u64)
        .max()
        .unwrap_or(0);
    let pads: Vec<u64> = s
        .specs
        .iter()
        .map(|spec| line_width - spec.width as u64 * (per_line / spec.size) as u64)
        .collect();
    let address_width = match (s.radix, s.label) {
        (Radix::None, None) => 0,
        (Radix::Hex, None) => 6,
        _ => 7,
    };
    let end = s.limit.map(|n| s.skip + n);
    let mut offset = s.skip;
    // Blocks hold what was read (GNU allocates a whole line up front; its memory is only
    // touched as far as the input goes, which this mirrors).
    let mut previous: Vec<u8> = Vec::new();
    let mut block: Vec<u8> = Vec::new();
    let mut first = true;
    let mut in_repeat = false;
    let mut head = String::new();
    loop {
        let want = match end {
            Some(end) => {
                per_line.min(usize::try_from(end.saturating_sub(offset)).unwrap_or(per_line))
            }
            None => per_line,
        };
        let got = read_block(input, io, &mut block, want)?;
        if got == 0 {
            break;
        }
        let whole = got == per_line;
        if whole && !s.verbose && !first && block == previous {
            if !in_repeat {
                io.out.write_all(b"*\n")?;
                in_repeat = true;
            }
        } else {
            in_repeat = false;
            // Zeros up to a multiple of every type's size, as GNU pads the last block.
            let padded = got.div_ceil(lcm) * lcm;
            reserve(&mut block, padded)?;
            block.resize(padded.max(got), 0);
            for (i, spec) in s.specs.iter().enumerate() {
                let fields = per_line / spec.size;
                let blank = (per_line - got) / spec.size;
                head.clear();
                if i == 0 {
                    address(&mut head, s, offset, '\0');
                    io.out.write_all(head.as_bytes())?;
                } else {
                    fields::spaces(io.out, address_width)?;
                }
                fields::write_line(io.out, spec, &block, fields, blank, pads[i], s.endian)?;
                if spec.trailer {
                    let trailing = pads[i] * blank as u64 / fields as u64;
                    fields::spaces(io.out, blank as u64 * spec.width as u64 + trailing)?;
                    fields::trailer(io.out, &block[..got])?;
                }
                io.out.write_all(b"\n")?;
            }
            block.truncate(got);
        }
        first = false;
        offset += got as u64;
        std::mem::swap(&mut previous, &mut block);
        if !whole {
            break;
        }
    }
    head.clear();
    address(&mut head, s, offset, '\n');
    io.out.write_all(head.as_bytes())
}

/// GNU's answer when an allocation fails (`xalloc_die`).
fn exhausted() -> std::io::Error {
    std::io::Error::new(std::io::ErrorKind::OutOfMemory, "memory exhausted")
}

/// Makes room for `len` bytes in `v`, or fails as GNU does when memory runs out.
fn reserve(v: &mut Vec<u8>, len: usize) -> std::io::Result<()> {
    v.try_reserve(len.saturating_sub(v.len()))
        .map_err(|_| exhausted())
}

/// Reads up to `want` bytes into `block` (replacing its contents), growing it only as input
/// arrives; returns how many.
fn read_block(
    input: &mut Input,
    io: &mut Io,
    block: &mut Vec<u8>,
    want: usize,
) -> std::io::Result<usize> {
    const CHUNK: usize = 64 * 1024;
    block.clear();
    while block.len() < want && !input.finished() {
        let take = (want - block.len()).min(CHUNK);
        let at = block.len();
        reserve(block, at + take)?;
        block.resize(at + take, 0);
        let got = input.read_block(io, &mut block[at..]);
        block.truncate(at + got);
        if got < take {
            break;
        }
    }
    Ok(block.len())
}

/// `-S`: each run of at least `min` printable bytes ended by a NUL, with its offset.
fn dump_strings(s: &Settings, min: u64, input: &mut Input, io: &mut Io) -> std::io::Result<()> {
    let end = s.limit.map(|n| s.skip + n);
    let mut offset = s.skip;
    let printable = |b: u8| (0x20..=0x7e).contains(&b);
    // GNU allocates the string buffer up front; a length no address space holds fails there.
    if usize::try_from(min.max(100)).is_err() {
        return Err(exhausted());
    }
    let mut run: Vec<u8> = Vec::new();
    'search: loop {
        if let Some(end) = end
            && (end < min || end - min <= offset)
        {
            return Ok(());
        }
        run.clear();
        let mut counted = 0;
        while counted < min {
            let Some(b) = input.read_byte(io) else {
                return Ok(());
            };
            offset += 1;
            if !printable(b) {
                continue 'search;
            }
            run.push(b);
            counted += 1;
        }
        loop {
            if end.is_some_and(|end| offset >= end) {
                break;
            }
            let Some(b) = input.read_byte(io) else {
                return Ok(());
            };
            offset += 1;
            if b == 0 {
                break;
            }
            if !printable(b) {
                continue 'search;
            }
            run.push(b);
        }
        let mut line = String::new();
        address(&mut line, s, offset - run.len() as u64 - 1, ' ');
        io.out.write_all(line.as_bytes())?;
        io.out.write_all(&run)?;
        io.out.write_all(b"\n")?;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::common::io::capture_text;

    fn od(args: &[&str], stdin: &[u8]) -> (i32, String, String) {
        let argv: Vec<String> = std::iter::once("od")
            .chain(args.iter().copied())
            .map(String::from)
            .collect();
        capture_text(run, &argv, stdin)
    }

    // Expected output: GNU od 9.1 in the C locale on the same input.
    #[test]
    fn dumps_as_gnu_od() {
        let bytes = b"\x00\x00\x80\x3f\x00\x00\xc0\x7f\xff\xff\x7f\x7f\x01\x00\x00\x00";
        assert_eq!(
            od(&["-tfF"], bytes).1,
            "0000000               1             nan   3.4028235e+38           1e-45\n0000020\n"
        );
        assert_eq!(
            od(&["-t", "c", "-t", "fF", "-N", "7"], bytes).1,
            "0000000  \\0  \\0 200   ?  \\0  \\0 300\n                      1   1.7632415e-38\n0000007\n"
        );
        assert_eq!(
            od(&["-A", "x", "--endian=big", "-tx4"], bytes).1,
            "000000 0000803f 0000c07f ffff7f7f 01000000\n000010\n"
        );
        assert_eq!(
            od(&["-w4", "-c", "-N", "16"], &[0; 16]).1,
            "0000000  \\0  \\0  \\0  \\0\n*\n0000020\n"
        );
        assert_eq!(od(&["-An", "-c"], b"ab").1, "   a   b\n");
    }

    #[test]
    fn traditional_offsets_and_labels() {
        let bytes = b"\x00\x00\x80\x3f\x00\x00\xc0\x7f\xff\xff\x7f\x7f\x01\x00\x00\x00";
        assert_eq!(
            od(&["--traditional", "5", "6"], bytes).1,
            "0000005 (0000006) 140000 177577 077777 000577 000000 000000\n0000020 (0000021)\n"
        );
        assert_eq!(
            od(&["-c", "+5"], bytes).1,
            "0000005  \\0 300 177 377 377 177 177 001  \\0  \\0  \\0\n0000020\n"
        );
    }

    #[test]
    fn usage_errors_in_gnu_words() {
        assert_eq!(od(&["-j", "x"], b"").2, "od: invalid -j argument 'x'\n");
        assert_eq!(
            od(&["--skip=5q"], b"").2,
            "od: invalid suffix in --skip-bytes argument '5q'\n"
        );
        assert_eq!(
            od(&["-A", "q"], b""),
            (
                1,
                String::new(),
                "od: invalid output address radix 'q'; it must be one character from [doxn]\n"
                    .to_string()
            )
        );
        assert_eq!(
            od(&["-t", "c", "-S3"], b"").2,
            "od: no type may be specified when dumping strings\n"
        );
        assert_eq!(
            od(&["-j", "3"], b"ab"),
            (
                1,
                String::new(),
                "od: cannot skip past end of combined input\n".to_string()
            )
        );
        assert_eq!(
            od(&["-w5"], b"ab"),
            (
                0,
                "0000000 061141\n0000002\n".to_string(),
                "od: warning: invalid width 5; using 2 instead\n".to_string()
            )
        );
    }

    #[test]
    fn strings_as_gnu_od() {
        let bytes = b"ab\tcd\0xyzw\0\x01efgh\0ijk";
        assert_eq!(od(&["-S", "3"], bytes).1, "0000006 xyzw\n0000014 efgh\n");
        assert_eq!(
            od(&["-S", "0"], bytes).1,
            "0000003 cd\n0000006 xyzw\n0000014 efgh\n"
        );
        assert_eq!(od(&["-S3", "-N", "9"], bytes).1, "");
    }
}
