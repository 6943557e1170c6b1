//! od's command line as GNU's getopt reads it, for the checks that run before uutils' od
//! (`od_types`, `od_inputs`): options anywhere up to `--`, short options bundled, and the
//! options that take a value (`-t`, `-A`, `-j`, `-N`, `-S` and their long forms) taking the
//! rest of the word or the next one. `-w[BYTES]` and `--strings[=BYTES]` take theirs only in
//! the same word.

use std::ffi::OsString;

/// One item of the command line.
#[derive(Debug, PartialEq, Eq)]
pub enum Arg {
    /// A short option's letter, or a long option's name (without `--` and value).
    Option(String),
    /// The value of `-t` or `--format`.
    Type(String),
    /// A file (or offset) operand: its index in the command line.
    Operand(usize),
}

/// The items of `args` (the first is the program name), in order.
pub fn parse(args: &[OsString]) -> Vec<Arg> {
    let text: Vec<String> = args
        .iter()
        .map(|a| a.to_string_lossy().into_owned())
        .collect();
    let mut out = Vec::new();
    let mut options_end = false;
    let mut i = 1;
    while i < text.len() {
        let a = &text[i];
        if options_end || a == "-" || !a.starts_with('-') {
            out.push(Arg::Operand(i));
        } else if a == "--" {
            options_end = true;
        } else if let Some(long) = a.strip_prefix("--") {
            let (name, value) = match long.split_once('=') {
                Some((name, value)) => (name, Some(value.to_string())),
                None => (long, None),
            };
            let value = match name {
                "format" | "address-radix" | "skip-bytes" | "read-bytes" | "endian"
                    if value.is_none() =>
                {
                    i += 1;
                    text.get(i).cloned()
                }
                _ => value,
            };
            if name == "format" {
                out.extend(value.map(Arg::Type));
            }
            out.push(Arg::Option(name.to_string()));
        } else {
            for (at, c) in a.char_indices().skip(1) {
                out.push(Arg::Option(c.to_string()));
                if matches!(c, 't' | 'A' | 'j' | 'N' | 'S') {
                    let rest = &a[at + c.len_utf8()..];
                    let value = if rest.is_empty() {
                        i += 1;
                        text.get(i).cloned()
                    } else {
                        Some(rest.to_string())
                    };
                    if c == 't' {
                        out.extend(value.map(Arg::Type));
                    }
                    break;
                }
                // `-w[BYTES]`: its value, if any, is the rest of the word.
                if c == 'w' {
                    break;
                }
            }
        }
        i += 1;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parsed(line: &str) -> Vec<Arg> {
        let args: Vec<OsString> = line.split_whitespace().map(OsString::from).collect();
        parse(&args)
    }

    fn operands(line: &str) -> Vec<usize> {
        parsed(line)
            .into_iter()
            .filter_map(|a| match a {
                Arg::Operand(i) => Some(i),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn values_operands_and_options_end() {
        assert_eq!(operands("od -c a b"), [2, 3]);
        assert_eq!(operands("od -t x1 a -j 2 b"), [3, 6]);
        assert_eq!(operands("od -tx1 --format x2 a"), [4]);
        assert_eq!(operands("od -w8 -- -a"), [3]);
        assert_eq!(operands("od -j t -w x"), [4]);
        assert_eq!(
            parsed("od -vtd8 --format=c -N 3 f"),
            [
                Arg::Option("v".into()),
                Arg::Option("t".into()),
                Arg::Type("d8".into()),
                Arg::Type("c".into()),
                Arg::Option("format".into()),
                Arg::Option("N".into()),
                Arg::Operand(5),
            ]
        );
    }
}
