//! `md5sum -c` and the SHA utilities' `-c`, as GNU coreutils 8.32 checks a list: the same
//! line formats (`HASH  NAME`, `HASH *NAME`, a leading `\` for an escaped name, BSD's
//! `MD5 (NAME) = HASH`), the same lines skipped (`#` comments; an empty line is an improperly
//! formatted one in 8.32), and the same
//! words: `NAME: OK` / `NAME: FAILED` with names as written (uutils quotes names with
//! spaces), "no properly formatted MD5 checksum lines found" (uutils leaves out the
//! algorithm), the `WARNING:` counts, `--warn`, `--quiet`, `--status`, `--strict`,
//! `--ignore-missing`. Options that do not go with `--check` were refused before this runs
//! (`gnu_usage`); `b2sum` (whose digest length is an option) stays with uutils.

use std::ffi::OsString;
use std::io::{BufRead, BufReader, Read, Write};

/// The utilities checked here: name, GNU's name for the digest in messages and BSD lines,
/// and its hex length.
const ALGORITHMS: &[(&str, &str, usize)] = &[
    ("md5sum", "MD5", 32),
    ("sha1sum", "SHA1", 40),
    ("sha224sum", "SHA224", 56),
    ("sha256sum", "SHA256", 64),
    ("sha384sum", "SHA384", 96),
    ("sha512sum", "SHA512", 128),
];

#[derive(Default)]
struct Options {
    warn: bool,
    quiet: bool,
    status: bool,
    strict: bool,
    ignore_missing: bool,
    lists: Vec<String>,
}

/// `Some(status)` when `args` ask `name` to check a list (and it was checked here).
pub fn run(name: &str, args: &[OsString]) -> Option<i32> {
    let &(_, digest_name, hex_len) = ALGORITHMS.iter().find(|(n, _, _)| *n == name)?;
    let options = parse(args)?;
    let mut checker = Checker {
        name,
        digest_name,
        hex_len,
        options: &options,
        out: std::io::BufWriter::new(std::io::stdout()),
        bsd_reversed: None,
    };
    let mut ok = true;
    for list in &options.lists {
        ok &= checker.check_list(list);
    }
    let _ = checker.out.flush();
    Some(if ok { 0 } else { 1 })
}

/// The options of a check, or `None` when this is not one (or an option is not read here).
fn parse(args: &[OsString]) -> Option<Options> {
    let mut options = Options::default();
    let mut check = false;
    let mut only_operands = false;
    for arg in args.iter().skip(1) {
        let arg = arg.to_str()?;
        if only_operands || arg == "-" || !arg.starts_with('-') {
            options.lists.push(arg.to_string());
            continue;
        }
        match arg {
            "--" => only_operands = true,
            "--check" => check = true,
            "--warn" => options.warn = true,
            "--quiet" => options.quiet = true,
            "--status" => options.status = true,
            "--strict" => options.strict = true,
            "--ignore-missing" => options.ignore_missing = true,
            long if long.starts_with("--") => return None,
            short => {
                for c in short[1..].chars() {
                    match c {
                        'c' => check = true,
                        'w' => options.warn = true,
                        _ => return None,
                    }
                }
            }
        }
    }
    if !check {
        return None;
    }
    if options.lists.is_empty() {
        options.lists.push("-".into());
    }
    Some(options)
}

struct Checker<'a> {
    name: &'a str,
    digest_name: &'a str,
    hex_len: usize,
    options: &'a Options,
    out: std::io::BufWriter<std::io::Stdout>,
    /// Whether the lines are BSD's reversed `HASH NAME` (one space): decided by the first
    /// line that tells, for the whole run, as GNU does.
    bsd_reversed: Option<bool>,
}

/// One line of a list, read.
struct Entry {
    hex: String,
    file: Vec<u8>,
}

impl Entry {
    /// The entry for `hex` and the name as written (unescaped after a leading `\\`).
    fn read(hex: &[u8], file: &[u8], escaped: bool) -> Option<Entry> {
        let file = if escaped {
            unescape(file)?
        } else {
            file.to_vec()
        };
        Some(Entry {
            hex: String::from_utf8_lossy(hex).into_owned(),
            file,
        })
    }
}

impl Checker<'_> {
    fn error(&mut self, message: &str) {
        let _ = self.out.flush();
        let _ = writeln!(std::io::stderr(), "{}: {message}", self.name);
    }

    /// Checks every line of one list; true when all is well.
    fn check_list(&mut self, list: &str) -> bool {
        let is_stdin = list == "-";
        let shown = applets::quote_name(if is_stdin { "standard input" } else { list });
        let reader: Box<dyn Read> = if is_stdin {
            Box::new(std::io::stdin())
        } else {
            match std::fs::File::open(list) {
                Ok(f) => Box::new(f),
                Err(e) => {
                    let reason = applets::strerror(&e);
                    self.error(&format!("{shown}: {reason}"));
                    return false;
                }
            }
        };
        let mut reader = BufReader::new(reader);
        let (mut misformatted, mut unreadable, mut mismatched) = (0u64, 0u64, 0u64);
        let (mut formatted, mut matched) = (false, false);
        let mut line = Vec::new();
        let mut number = 0u64;
        loop {
            line.clear();
            match reader.read_until(b'\n', &mut line) {
                Ok(0) => break,
                Ok(_) => {}
                Err(_) => {
                    self.error(&format!("{shown}: read error"));
                    return false;
                }
            }
            number += 1;
            if line[0] == b'#' {
                continue;
            }
            if line.last() == Some(&b'\n') {
                line.pop();
            }
            if line.last() == Some(&b'\r') {
                line.pop();
            }
            let entry = self.split(&line).filter(|e| !(is_stdin && e.file == b"-"));
            let Some(entry) = entry else {
                misformatted += 1;
                if self.options.warn {
                    let message = format!(
                        "{shown}: {number}: improperly formatted {} checksum line",
                        self.digest_name
                    );
                    self.error(&message);
                }
                continue;
            };
            formatted = true;
            // Names are printed as they are (coreutils 8.32 escapes none here).
            let name = String::from_utf8_lossy(&entry.file).into_owned();
            let printed = &name;
            match self.digest_of(&name) {
                Err(missing) if missing && self.options.ignore_missing => {}
                Err(_) => {
                    unreadable += 1;
                    if !self.options.status {
                        let _ = writeln!(self.out, "{printed}: FAILED open or read");
                    }
                }
                Ok(actual) => {
                    let same = actual.eq_ignore_ascii_case(&entry.hex);
                    if same {
                        matched = true;
                    } else {
                        mismatched += 1;
                    }
                    if !self.options.status {
                        if !same {
                            let _ = writeln!(self.out, "{printed}: FAILED");
                        } else if !self.options.quiet {
                            let _ = writeln!(self.out, "{printed}: OK");
                        }
                    }
                }
            }
        }
        if !formatted {
            let message = format!(
                "{shown}: no properly formatted {} checksum lines found",
                self.digest_name
            );
            self.error(&message);
        } else if !self.options.status {
            let warnings = [
                (misformatted, "line is", "lines are", "improperly formatted"),
                (
                    unreadable,
                    "listed file",
                    "listed files",
                    "could not be read",
                ),
                (
                    mismatched,
                    "computed checksum",
                    "computed checksums",
                    "did NOT match",
                ),
            ];
            for (n, one, many, what) in warnings {
                match n {
                    0 => {}
                    1 => self.error(&format!("WARNING: 1 {one} {what}")),
                    _ => self.error(&format!("WARNING: {n} {many} {what}")),
                }
            }
            if self.options.ignore_missing && !matched {
                self.error(&format!("{shown}: no file was verified"));
            }
        }
        formatted
            && mismatched == 0
            && unreadable == 0
            && (!self.options.strict || misformatted == 0)
            && (!self.options.ignore_missing || matched)
    }

    /// GNU's reading of a line: `[\]HASH  NAME`, `[\]HASH *NAME`, BSD's `[\]ALGO (NAME) = HASH`,
    /// or BSD's reversed `HASH NAME`.
    fn split(&mut self, line: &[u8]) -> Option<Entry> {
        let mut i = line
            .iter()
            .take_while(|b| **b == b' ' || **b == b'\t')
            .count();
        let escaped = line.get(i) == Some(&b'\\');
        if escaped {
            i += 1;
        }
        let tag = self.digest_name.as_bytes();
        if line[i..].starts_with(tag) {
            i += tag.len();
            if line.get(i) == Some(&b' ') {
                i += 1;
            }
            if line.get(i) != Some(&b'(') {
                return None;
            }
            return self.split_bsd(&line[i + 1..], escaped);
        }
        // The hash, a blank, the type character and at least one byte of name.
        let min = self.hex_len + 3 + usize::from(line.get(i) == Some(&b'\\'));
        if line.len() - i < min {
            return None;
        }
        let hex = &line[i..i + self.hex_len];
        i += self.hex_len;
        if !matches!(line[i], b' ' | b'\t') {
            return None;
        }
        i += 1;
        if !hex.iter().all(u8::is_ascii_hexdigit) {
            return None;
        }
        if line.len() - i == 1 || !matches!(line[i], b' ' | b'*') {
            if self.bsd_reversed == Some(false) {
                return None;
            }
            self.bsd_reversed = Some(true);
        } else if self.bsd_reversed != Some(true) {
            self.bsd_reversed = Some(false);
            i += 1;
        }
        Entry::read(hex, &line[i..], escaped)
    }

    /// `NAME) = HASH` after BSD's `ALGO (`: the name runs to the last `) = `.
    fn split_bsd(&self, rest: &[u8], escaped: bool) -> Option<Entry> {
        let at = rest.windows(4).rposition(|w| w == b") = ")?;
        let file = &rest[..at];
        let hex = &rest[at + 4..];
        if hex.len() != self.hex_len || !hex.iter().all(u8::is_ascii_hexdigit) {
            return None;
        }
        Entry::read(hex, file, escaped)
    }

    /// The file's digest in lower-case hex; `Err(true)` when it does not exist (reported
    /// unless `--ignore-missing`), `Err(false)` when it cannot be read (reported).
    fn digest_of(&mut self, file: &str) -> Result<String, bool> {
        let mut data = Vec::new();
        let read = if file == "-" {
            std::io::stdin().read_to_end(&mut data).map(|_| ())
        } else {
            std::fs::File::open(file).and_then(|mut f| f.read_to_end(&mut data).map(|_| ()))
        };
        if let Err(e) = read {
            let missing = e.kind() == std::io::ErrorKind::NotFound;
            if !(missing && self.options.ignore_missing) {
                let reason = applets::strerror(&e);
                self.error(&format!("{}: {reason}", applets::quote_name(file)));
            }
            return Err(missing);
        }
        Ok(hex_digest(self.name, &data))
    }
}

/// GNU's unescaping of a name written after `\`: `\\` and `\n`; any other escape makes the
/// line improperly formatted.
fn unescape(name: &[u8]) -> Option<Vec<u8>> {
    let mut out = Vec::with_capacity(name.len());
    let mut bytes = name.iter();
    while let Some(&b) = bytes.next() {
        if b != b'\\' {
            out.push(b);
            continue;
        }
        match bytes.next() {
            Some(b'\\') => out.push(b'\\'),
            Some(b'n') => out.push(b'\n'),
            _ => return None,
        }
    }
    Some(out)
}

fn hex_digest(name: &str, data: &[u8]) -> String {
    use sha2::Digest;
    let bytes: Vec<u8> = match name {
        "md5sum" => md5::Md5::digest(data).to_vec(),
        "sha1sum" => sha1::Sha1::digest(data).to_vec(),
        "sha224sum" => sha2::Sha224::digest(data).to_vec(),
        "sha256sum" => sha2::Sha256::digest(data).to_vec(),
        "sha384sum" => sha2::Sha384::digest(data).to_vec(),
        _ => sha2::Sha512::digest(data).to_vec(),
    };
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn checker(options: &Options) -> Checker<'_> {
        Checker {
            name: "md5sum",
            digest_name: "MD5",
            hex_len: 32,
            options,
            out: std::io::BufWriter::new(std::io::stdout()),
            bsd_reversed: None,
        }
    }

    const HASH: &str = "d41d8cd98f00b204e9800998ecf8427e";

    #[test]
    fn lines_are_read_as_gnu_reads_them() {
        let options = Options::default();
        let mut c = checker(&options);
        let e = c.split(format!("{HASH}  a b.txt").as_bytes()).unwrap();
        assert_eq!((e.hex.as_str(), e.file.as_slice()), (HASH, &b"a b.txt"[..]));
        let e = c.split(format!("{HASH} *bin").as_bytes()).unwrap();
        assert_eq!(e.file, b"bin");
        let e = c.split(format!("\\{HASH}  a\\\\b\\nc").as_bytes()).unwrap();
        assert_eq!(e.file, b"a\\b\nc");
        let e = c
            .split(format!("MD5 (x) = y) = {HASH}").as_bytes())
            .unwrap();
        assert_eq!(e.file, b"x) = y");
        assert!(c.split(b"not a checksum line").is_none());
        assert!(c.split(format!("{HASH}x  f").as_bytes()).is_none());
        assert!(c.split(b"SHA1 (f) = 00").is_none());
    }

    #[test]
    fn the_digests_are_the_algorithms() {
        assert_eq!(hex_digest("md5sum", b""), HASH);
        assert_eq!(
            hex_digest("sha1sum", b"abc"),
            "a9993e364706816aba3e25717850c26c9cd0d89d"
        );
        assert_eq!(
            hex_digest("sha256sum", b"abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }
}
