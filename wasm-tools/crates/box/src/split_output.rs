//! What `split` does before any output file exists, in GNU's way: empty input makes no file
//! (uutils creates the first), and a missing output directory is reported with the name of
//! the first file split could not create (`split: nodir/xaa: No such file or directory`;
//! uutils gives only the reason). The first output name is worked out from the command line
//! as GNU forms it (prefix, suffix length and kind, additional suffix).

use std::ffi::OsString;
use std::io::{BufRead, Write};

/// What of split's command line decides its first output file.
#[derive(Debug, Default, PartialEq)]
struct Naming {
    operands: Vec<String>,
    suffix_length: Option<usize>,
    /// `None`: alphabetic; `Some(radix)` with the first number.
    numeric: Option<(u32, u64)>,
    additional: String,
}

/// Options taking a value in the next word when not attached.
const SHORT_WITH_VALUE: &str = "abCln t";
const LONG_WITH_VALUE: &[&str] = &[
    "--suffix-length",
    "--bytes",
    "--line-bytes",
    "--lines",
    "--number",
    "--separator",
    "--additional-suffix",
    "--filter",
];

fn naming(args: &[OsString]) -> Option<Naming> {
    let mut n = Naming::default();
    let mut words = args.iter().skip(1);
    let mut only_operands = false;
    while let Some(word) = words.next() {
        let word = word.to_str()?;
        if only_operands || word == "-" || !word.starts_with('-') {
            n.operands.push(word.to_string());
            continue;
        }
        if word == "--" {
            only_operands = true;
            continue;
        }
        if let Some(long) = word.strip_prefix("--") {
            let (name, attached) = match long.split_once('=') {
                Some((name, v)) => (name, Some(v.to_string())),
                None => (long, None),
            };
            let value = match attached {
                Some(v) => Some(v),
                None if LONG_WITH_VALUE.contains(&word) => {
                    Some(words.next()?.to_str()?.to_string())
                }
                None => None,
            };
            match name {
                "suffix-length" => n.suffix_length = Some(value?.parse().ok()?),
                "additional-suffix" => n.additional = value?,
                "numeric-suffixes" => n.numeric = Some((10, from(value.as_deref(), 10)?)),
                "hex-suffixes" => n.numeric = Some((16, from(value.as_deref(), 16)?)),
                // A chunk count changes the suffix length GNU picks: left to uutils.
                "number" | "filter" => return None,
                _ => {}
            }
            continue;
        }
        let letters: Vec<char> = word[1..].chars().collect();
        for (i, &c) in letters.iter().enumerate() {
            if SHORT_WITH_VALUE.contains(c) && c != ' ' {
                let rest: String = letters[i + 1..].iter().collect();
                let value = if rest.is_empty() {
                    words.next()?.to_str()?.to_string()
                } else {
                    rest
                };
                match c {
                    'a' => n.suffix_length = Some(value.parse().ok()?),
                    'n' => return None,
                    _ => {}
                }
                break;
            }
            match c {
                'd' => n.numeric = Some((10, 0)),
                'x' => n.numeric = Some((16, 0)),
                _ => {}
            }
        }
    }
    Some(n)
}

fn from(value: Option<&str>, radix: u32) -> Option<u64> {
    value.map_or(Some(0), |v| u64::from_str_radix(v, radix).ok())
}

/// The first output file's name.
fn first_output(n: &Naming) -> String {
    let prefix = n.operands.get(1).map_or("x", String::as_str);
    let length = n.suffix_length.unwrap_or(2);
    let suffix = match n.numeric {
        None => "a".repeat(length),
        Some((16, first)) => format!("{first:0length$x}"),
        Some((_, first)) => format!("{first:0length$}"),
    };
    format!("{prefix}{suffix}{}", n.additional)
}

/// Whether split's input has nothing to read. Standard input is looked at through the
/// process's buffered handle, which keeps what it read for uutils to read again.
fn input_is_empty(input: &str) -> bool {
    match input {
        "-" => std::io::stdin()
            .lock()
            .fill_buf()
            .is_ok_and(|buffered| buffered.is_empty()),
        "/dev/null" => true,
        path => hostcalls::stat(path, true).is_ok_and(|st| st.is_file() && st.size == 0),
    }
}

/// The status when split is done before uutils runs: GNU creates its output files as data
/// arrives, so empty input makes none (uutils creates the first), and GNU names the first
/// file it cannot create when its directory is missing (uutils gives only the reason).
/// Chunked splitting (`-n`) and `--filter` are left to uutils.
pub fn check(args: &[OsString]) -> Option<i32> {
    let n = naming(args)?;
    if n.operands.len() > 2 {
        return None;
    }
    let input = n.operands.first().map_or("-", String::as_str);
    if input_is_empty(input) {
        return Some(0);
    }
    if input != "-" && !hostcalls::stat(input, true).is_ok_and(|st| st.is_file()) {
        return None;
    }
    let output = first_output(&n);
    let parent = match output.rfind('/') {
        Some(0) => "/",
        Some(at) => &output[..at],
        None => return None,
    };
    if hostcalls::stat(parent, true).is_ok() {
        return None;
    }
    let _ = writeln!(
        std::io::stderr(),
        "split: {output}: No such file or directory"
    );
    Some(1)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn first(a: &[&str]) -> Option<String> {
        let args: Vec<OsString> = a.iter().map(OsString::from).collect();
        naming(&args).map(|n| first_output(&n))
    }

    #[test]
    fn first_output_names_follow_gnu() {
        assert_eq!(
            first(&["split", "-b", "10", "in", "nodir/p"]),
            Some("nodir/paa".into())
        );
        assert_eq!(
            first(&[
                "split",
                "-d",
                "-a",
                "3",
                "--additional-suffix=.x",
                "in",
                "d/q"
            ]),
            Some("d/q000.x".into())
        );
        assert_eq!(
            first(&["split", "-a3", "-x", "in", "d/q"]),
            Some("d/q000".into())
        );
        assert_eq!(
            first(&["split", "--numeric-suffixes=7", "in", "d/q"]),
            Some("d/q07".into())
        );
        assert_eq!(first(&["split", "-l", "5", "in"]), Some("xaa".into()));
        assert_eq!(first(&["split", "-n", "2", "in", "d/r"]), None);
    }
}
