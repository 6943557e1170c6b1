//! GNU od reads its files one after the other as one stream: a file it cannot open is
//! reported (`od: NAME: No such file or directory`) and skipped, the others are dumped, and the
//! dump still ends with the final offset; the status is 1. uutils' od leaves that last offset
//! line out once any input failed. Files that cannot be opened are therefore reported here and
//! left off the command line before uutils runs; if none is left, nothing is dumped (as in GNU).
//!
//! Only plain command lines are touched. `-N` may stop GNU before it reaches a missing file,
//! an operand starting with `+` or a digit may be an offset (`od FILE 10`), `--traditional`
//! changes what operands mean, and a name GNU would quote is left to uutils' own message.

use crate::od_args::{self, Arg};
use crate::unopenable;
use std::ffi::OsString;
use std::io::Write;

/// The command line to run, and whether an input was reported (the status is then 1).
pub fn drop_unopenable(args: Vec<OsString>) -> (Vec<OsString>, bool) {
    let Some(operands) = file_operands(&args) else {
        return (args, false);
    };
    let mut drop = Vec::new();
    for &at in &operands {
        let name = args[at].to_string_lossy();
        if name == "-" {
            continue;
        }
        let reason = match std::fs::File::open(&*name) {
            Ok(_) => continue,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => "No such file or directory",
            Err(e) if e.kind() == std::io::ErrorKind::PermissionDenied => "Permission denied",
            Err(_) => continue,
        };
        let shown = if name.is_empty() {
            "''".to_string()
        } else if name.bytes().all(is_unquoted_in_gnu_messages) {
            name.into_owned()
        } else {
            return (args, false);
        };
        drop.push((at, format!("od: {shown}: {reason}")));
    }
    let mut stderr = std::io::stderr();
    for (_, message) in &drop {
        let _ = writeln!(stderr, "{message}");
    }
    // With nothing left to read, GNU dumps nothing at all: the command line comes back empty.
    let dropped: Vec<usize> = drop.iter().map(|(at, _)| *at).collect();
    let reported = !dropped.is_empty();
    (
        unopenable::leave_out(args, operands.len(), &dropped),
        reported,
    )
}

/// Indices of the file operands, or `None` when the command line is one this module leaves
/// alone (see the module comment).
fn file_operands(args: &[OsString]) -> Option<Vec<usize>> {
    let mut operands = Vec::new();
    for arg in od_args::parse(args) {
        match arg {
            Arg::Option(name) if matches!(name.as_str(), "N" | "read-bytes" | "traditional") => {
                return None;
            }
            Arg::Operand(at) => {
                let word = args[at].to_str()?;
                if word.starts_with('+') || word.starts_with(|c: char| c.is_ascii_digit()) {
                    return None;
                }
                operands.push(at);
            }
            _ => {}
        }
    }
    Some(operands)
}

/// Bytes GNU's file-name quoting leaves as they are (a name with others is quoted: `'a b'`).
fn is_unquoted_in_gnu_messages(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b"/._-+,:@%^=".contains(&b)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(line: &str) -> Vec<OsString> {
        line.split_whitespace().map(OsString::from).collect()
    }

    #[test]
    fn operands_and_the_command_lines_left_alone() {
        assert_eq!(file_operands(&words("od -c a b")), Some(vec![2, 3]));
        assert_eq!(file_operands(&words("od -t x1 a -j 2 b")), Some(vec![3, 6]));
        assert_eq!(
            file_operands(&words("od -tx1 --format x2 a")),
            Some(vec![4])
        );
        assert_eq!(file_operands(&words("od -w8 -- -a")), Some(vec![3]));
        assert_eq!(file_operands(&words("od -N 1 a b")), None);
        assert_eq!(file_operands(&words("od --read-bytes=1 a b")), None);
        assert_eq!(file_operands(&words("od a 10")), None);
        assert_eq!(file_operands(&words("od a +1")), None);
        assert_eq!(file_operands(&words("od --traditional a")), None);
    }
}
