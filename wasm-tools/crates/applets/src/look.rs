//! `look [-adf] [-t char] string [file]` (util-linux 2.37): prints the lines of a sorted file
//! that begin with `string`, found by binary search.
//!
//! As util-linux: without a file, the word list (`$WORDLIST`, else /usr/share/dict/words,
//! which upstream's image lacks; `-a` names /usr/share/dict/web2) is searched with `-d` and
//! `-f` on. `-d` compares only letters, digits and blanks (of the line and of the string),
//! `-f` ignores case, `-t C` cuts the string after its first `C`. The search is util-linux's
//! own (halving by bytes, then a linear walk), so an unsorted file gives the same partial
//! answers. Exit status 0 when something was found, 1 otherwise and on errors. An empty
//! file or a directory fails as util-linux's `mmap` does ("Invalid argument", "No such
//! device").

use crate::common::getopt::{self, Config, OptSpec};
use crate::common::io::{prog, run_main, write_failed};
use crate::common::{Io, sys};
use std::cmp::Ordering;
use std::ffi::OsString;

pub fn main(args: Vec<OsString>) -> i32 {
    run_main(args, run)
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum K {
    Alternative,
    Alphanum,
    IgnoreCase,
    Terminate,
    Help,
    Version,
}

const SPECS: &[OptSpec<K>] = &[
    getopt::flag('a', "alternative", K::Alternative),
    getopt::flag('d', "alphanum", K::Alphanum),
    getopt::flag('f', "ignore-case", K::IgnoreCase),
    getopt::with_arg('t', "terminate", K::Terminate),
    getopt::flag('h', "help", K::Help),
    getopt::flag('V', "version", K::Version),
];

const HELP: &str = "
Usage:
 look [options] <string> [<file>...]

Display lines beginning with a specified string.

Options:
 -a, --alternative        use the alternative dictionary
 -d, --alphanum           compare only blanks and alphanumeric characters
 -f, --ignore-case        ignore case differences when comparing
 -t, --terminate <char>   define the string-termination character

 -h, --help               display this help
 -V, --version            display version

For more details see look(1).
";

const WORDS: &str = "/usr/share/dict/words";
const WEB2: &str = "/usr/share/dict/web2";

struct Search {
    key: Vec<u8>,
    dictionary: bool,
    fold: bool,
}

fn dictionary_char(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b' ' || b == b'\t'
}

impl Search {
    /// How the key compares with the line starting at `at`: `Less` when the key sorts
    /// before it, `Equal` when the line begins with the key.
    fn compare(&self, data: &[u8], at: usize) -> Ordering {
        let mut taken = Vec::with_capacity(self.key.len());
        for &b in data[at..].iter().take_while(|&&b| b != b'\n') {
            if taken.len() == self.key.len() {
                break;
            }
            if !self.dictionary || dictionary_char(b) {
                taken.push(b);
            }
        }
        // strncmp/strncasecmp over the key's length: a NUL or the shorter string ends it.
        for (i, &k) in self.key.iter().enumerate() {
            let mut l = taken.get(i).copied().unwrap_or(0);
            let mut k = k;
            if self.fold {
                l = l.to_ascii_lowercase();
                k = k.to_ascii_lowercase();
            }
            if l != k {
                return k.cmp(&l);
            }
            if l == 0 {
                break;
            }
        }
        Ordering::Equal
    }
}

fn past_newline(data: &[u8], mut p: usize) -> usize {
    while p < data.len() {
        p += 1;
        if data[p - 1] == b'\n' {
            break;
        }
    }
    p
}

/// The matching lines, or None.
fn look(data: &[u8], s: &Search) -> Option<Vec<u8>> {
    let (mut front, mut back) = (0, data.len());
    let mut p = past_newline(&data[..back], front + (back - front) / 2);
    while p < back && back > front {
        if s.compare(&data[..back], p) == Ordering::Greater {
            front = p;
        } else {
            back = p;
        }
        p = past_newline(&data[..back], front + (back - front) / 2);
    }
    let back = data.len();
    loop {
        if front >= back {
            return None;
        }
        match s.compare(data, front) {
            Ordering::Equal => break,
            Ordering::Less => return None,
            Ordering::Greater => front = past_newline(data, front),
        }
    }
    let mut out = Vec::new();
    while front < back && s.compare(data, front) == Ordering::Equal {
        let next = past_newline(data, front);
        out.extend_from_slice(&data[front..next]);
        front = next;
    }
    Some(out)
}

pub fn run(args: &[String], io: &mut Io) -> i32 {
    let prog = prog(args, "look");
    let parsed = match getopt::parse(args, SPECS, Config::default()) {
        Ok(p) => p,
        Err(msg) => {
            let _ = io.err.write_all(gnu::usage::report(&prog, &msg).as_bytes());
            return 1;
        }
    };
    let mut file = std::env::var("WORDLIST")
        .ok()
        .filter(|w| !w.is_empty())
        .unwrap_or_else(|| WORDS.to_string());
    let (mut dictionary, mut fold) = (false, false);
    let mut terminator: Option<u8> = None;
    for opt in &parsed.opts {
        match opt.key {
            K::Alternative => file = WEB2.to_string(),
            K::Alphanum => dictionary = true,
            K::IgnoreCase => fold = true,
            K::Terminate => terminator = opt.arg.as_deref().and_then(|a| a.bytes().next()),
            K::Help => {
                let _ = io.out.write_all(HELP.as_bytes());
                return 0;
            }
            K::Version => {
                let _ = writeln!(io.out, "{prog} from util-linux 2.37.2");
                return 0;
            }
        }
    }
    let key = match parsed.operands.as_slice() {
        [key] => {
            dictionary = true;
            fold = true;
            key
        }
        [key, f] => {
            file = f.clone();
            key
        }
        _ => {
            let _ = writeln!(
                io.err,
                "{prog}: bad usage\nTry '{prog} --help' for more information."
            );
            return 1;
        }
    };
    let mut key = key.as_bytes().to_vec();
    if let Some(t) = terminator
        && let Some(i) = key.iter().position(|&b| b == t)
    {
        key.truncate(i + 1);
    }
    if dictionary {
        key.retain(|&b| dictionary_char(b));
    }
    let data = match std::fs::metadata(&file) {
        Err(e) => Err(sys::strerror(&e)),
        Ok(m) if m.is_dir() => Err("No such device".to_string()),
        Ok(m) if m.len() == 0 => Err("Invalid argument".to_string()),
        Ok(_) => std::fs::read(&file).map_err(|e| sys::strerror(&e)),
    };
    let data = match data {
        Ok(d) => d,
        Err(why) => {
            let _ = writeln!(io.err, "{prog}: {file}: {why}");
            return 1;
        }
    };
    let search = Search {
        key,
        dictionary,
        fold,
    };
    match look(&data, &search) {
        Some(lines) => match io.out.write_all(&lines) {
            Ok(()) => 0,
            Err(e) => write_failed(args, &e, io.err),
        },
        None => 1,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_prefixes() {
        let s = Search {
            key: b"app".to_vec(),
            dictionary: false,
            fold: false,
        };
        let words = b"Apple\napple\napplet\napply\nbanana\n";
        assert_eq!(look(words, &s).unwrap(), b"apple\napplet\napply\n");
    }
}
