//! Operands GNU reports as unopenable and skips, where uutils words the report its own way or
//! changes what it prints for the rest: `shred_open` reports such operands in GNU's words, and
//! this leaves them off the command line and runs the utility on what is left.

use crate::uutils_table::UuMain;
use std::ffi::OsString;

/// The command line without the arguments at `dropped`, or an empty one when every one of the
/// `operands` file operands was dropped (nothing is left to do).
pub fn leave_out(args: Vec<OsString>, operands: usize, dropped: &[usize]) -> Vec<OsString> {
    if !dropped.is_empty() && dropped.len() == operands {
        return Vec::new();
    }
    args.into_iter()
        .enumerate()
        .filter(|(i, _)| !dropped.contains(i))
        .map(|(_, a)| a)
        .collect()
}

/// Runs `uumain` on a command line left after reporting unopenable operands (`reported`): when
/// none is left it does not run, and a report makes the status at least 1, as GNU's.
pub fn run(uumain: UuMain, args: Vec<OsString>, reported: bool) -> i32 {
    if args.is_empty() {
        return 1;
    }
    let status = uumain(args.into_iter());
    if reported { status.max(1) } else { status }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(line: &str) -> Vec<OsString> {
        line.split_whitespace().map(OsString::from).collect()
    }

    #[test]
    fn dropped_operands_are_left_out_and_none_left_means_nothing_to_run() {
        assert_eq!(leave_out(words("od -c a b c"), 3, &[3]), words("od -c a c"));
        assert_eq!(leave_out(words("od -c a b"), 2, &[]), words("od -c a b"));
        assert!(leave_out(words("od -c a b"), 2, &[2, 3]).is_empty());
    }
}
