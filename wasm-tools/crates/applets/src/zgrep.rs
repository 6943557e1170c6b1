//! `zgrep`, `zegrep`, `zfgrep` as gzip 1.10's script runs them: each file is decompressed as
//! `gzip -cdfq` would (data that is not gzip's passes through as it is; a missing `x` is
//! looked for as `x.gz` and reported under that name) and searched by grep under the file's
//! name (`--label`), names printed when more than one file is given (or `-H`). The status is
//! 2 when a file could not be read or grep failed, else 0 when anything matched, else 1.
//! Options grep cannot apply to one stream are refused as the script refuses them
//! (`/usr/bin/zgrep: -r: option not supported`, status 2). Messages name the script as it ran:
//! `/usr/bin/zgrep`.

use crate::common::Io;
use crate::common::io::{report, run_main};
use std::ffi::OsString;
use std::io::{BufReader, Write};

pub fn zgrep_main(args: Vec<OsString>) -> i32 {
    run_main(args, |a, io| run(a, io, None))
}

pub fn zegrep_main(args: Vec<OsString>) -> i32 {
    run_main(args, |a, io| run(a, io, Some("-E")))
}

pub fn zfgrep_main(args: Vec<OsString>) -> i32 {
    run_main(args, |a, io| run(a, io, Some("-F")))
}

/// grep's options that take a value in the next word when not attached.
const SHORT_WITH_VALUE: &[char] = &['e', 'f', 'm', 'A', 'B', 'C', 'd', 'D'];
const LONG_WITH_VALUE: &[&str] = &[
    "regexp",
    "file",
    "max-count",
    "after-context",
    "before-context",
    "context",
    "label",
    "binary-files",
    "color",
    "colour",
    "devices",
    "directories",
    "exclude",
    "include",
    "exclude-dir",
    "exclude-from",
    "group-separator",
];
/// Options the script refuses: they need grep to see files, not one stream.
const REFUSED_SHORT: &[char] = &['r', 'R', 'Z'];
const REFUSED_LONG: &[&str] = &[
    "recursive",
    "dereference-recursive",
    "null",
    "directories",
    "devices",
];

/// The command line split the way the script reads it.
struct Line {
    /// grep's options as typed (values included).
    options: Vec<String>,
    /// Whether `-e`/`-f` gave the patterns.
    pattern_given: bool,
    with_filename: Option<bool>,
    operands: Vec<String>,
}

fn split(args: &[String], prog: &str, err: &mut dyn Write) -> Result<Line, i32> {
    let mut line = Line {
        options: Vec::new(),
        pattern_given: false,
        with_filename: None,
        operands: Vec::new(),
    };
    let refuse = |err: &mut dyn Write, word: &str| {
        let _ = writeln!(err, "{prog}: {word}: option not supported");
        Err(2)
    };
    let mut i = 1;
    while i < args.len() {
        let word = &args[i];
        i += 1;
        if word == "--" {
            line.operands.extend(args[i..].iter().cloned());
            break;
        }
        if let Some(long) = word.strip_prefix("--") {
            let name = long.split_once('=').map_or(long, |(n, _)| n);
            if REFUSED_LONG.contains(&name) {
                return refuse(err, word);
            }
            line.options.push(word.clone());
            match name {
                "regexp" | "file" => line.pattern_given = true,
                "with-filename" => line.with_filename = Some(true),
                "no-filename" => line.with_filename = Some(false),
                _ => {}
            }
            if LONG_WITH_VALUE.contains(&name) && !long.contains('=') && i < args.len() {
                line.options.push(args[i].clone());
                i += 1;
            }
            continue;
        }
        if word.len() < 2 || !word.starts_with('-') {
            line.operands.push(word.clone());
            continue;
        }
        line.options.push(word.clone());
        for (at, c) in word.char_indices().skip(1) {
            if REFUSED_SHORT.contains(&c) {
                return refuse(err, &format!("-{c}"));
            }
            match c {
                'e' | 'f' => line.pattern_given = true,
                'H' => line.with_filename = Some(true),
                'h' => line.with_filename = Some(false),
                _ => {}
            }
            if SHORT_WITH_VALUE.contains(&c) {
                if at + c.len_utf8() == word.len() && i < args.len() {
                    line.options.push(args[i].clone());
                    i += 1;
                }
                break;
            }
        }
    }
    Ok(line)
}

/// Whether gzip takes `name` for a compressed file's name (it then looks for no other).
fn has_gzip_suffix(name: &str) -> bool {
    [".gz", "-gz", ".z", "-z", "_z", ".tgz", ".taz"]
        .iter()
        .any(|suffix| name.len() > suffix.len() && name.to_ascii_lowercase().ends_with(suffix))
}

/// `gzip -cdfq -- name`'s output, or `None` after reporting why there is none.
fn decompressed(name: &str, io: &mut Io) -> Option<Vec<u8>> {
    let raw = if name == "-" {
        let mut data = Vec::new();
        io.stdin.read_to_end(&mut data).ok()?;
        data
    } else {
        let mut path = name.to_string();
        if std::fs::metadata(&path).is_err() && !has_gzip_suffix(&path) {
            path.push_str(".gz");
        }
        match std::fs::metadata(&path) {
            Ok(m) if m.is_dir() => return None,
            _ => {}
        }
        match std::fs::read(&path) {
            Ok(data) => data,
            Err(e) => {
                // gzip runs after the previous file's grep has written its matches.
                let text = format!("{path}: {}", crate::common::sys::strerror(&e));
                report(&mut *io.out, &mut *io.err, "gzip", text);
                return None;
            }
        }
    };
    if raw.len() < 2 || raw[0] != 0x1f || raw[1] != 0x8b {
        return Some(raw);
    }
    let mut out = Vec::new();
    match crate::gzip::decode_all(&mut BufReader::new(raw.as_slice()), &mut out) {
        Ok(_) => Some(out),
        Err(_) => {
            report(
                &mut *io.out,
                &mut *io.err,
                "gzip",
                format!("{name}: unexpected end of file"),
            );
            None
        }
    }
}

fn run(args: &[String], io: &mut Io, matcher: Option<&str>) -> i32 {
    // zegrep and zfgrep are scripts that run zgrep, whose name the messages carry.
    let script = match args.first() {
        Some(a) if a.contains('/') && matcher.is_none() => a.clone(),
        _ => "/usr/bin/zgrep".into(),
    };
    let line = match split(args, &script, io.err) {
        Ok(l) => l,
        Err(status) => return status,
    };
    let mut operands = line.operands.into_iter();
    let pattern = if line.pattern_given {
        None
    } else {
        match operands.next() {
            Some(p) => Some(p),
            None => {
                // The script's own words, line numbers of the shell that ran it included.
                let _ = writeln!(
                    io.err,
                    "{script}: 188: 1: missing pattern; try `{script} --help' for help"
                );
                return 2;
            }
        }
    };
    let mut files: Vec<String> = operands.collect();
    if files.is_empty() {
        files.push("-".into());
    }
    let with_filename = line.with_filename.unwrap_or(files.len() > 1);
    let mut status = 1;
    for file in &files {
        let Some(data) = decompressed(file, io) else {
            status = 2;
            continue;
        };
        let label = if file == "-" {
            "(standard input)".to_string()
        } else {
            file.clone()
        };
        let mut argv = vec!["grep".to_string()];
        argv.extend(matcher.map(String::from));
        argv.extend(line.options.iter().cloned());
        argv.push(if with_filename { "-H" } else { "-h" }.into());
        argv.push(format!("--label={label}"));
        argv.push("--".into());
        argv.extend(pattern.iter().cloned());
        let mut input = data.as_slice();
        let found = crate::grep::run(
            &argv,
            &mut Io {
                stdin: &mut input,
                out: &mut *io.out,
                err: &mut *io.err,
            },
        );
        status = match (status, found) {
            (2, _) | (_, 2..) => 2,
            (_, 0) | (0, _) => 0,
            _ => 1,
        };
    }
    status
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(line: &str) -> Vec<String> {
        line.split_whitespace().map(String::from).collect()
    }

    #[test]
    fn options_values_and_operands_split_as_the_script_reads_them() {
        let mut err = Vec::new();
        let line = split(&words("zgrep -i -m 2 -e a -A1 x.gz y"), "z", &mut err).unwrap();
        assert_eq!(line.options, words("-i -m 2 -e a -A1"));
        assert!(line.pattern_given);
        assert_eq!(line.operands, words("x.gz y"));
        assert!(split(&words("zgrep -rn a ."), "z", &mut err).is_err());
        assert_eq!(
            String::from_utf8_lossy(&err),
            "z: -r: option not supported\n"
        );
    }
}
