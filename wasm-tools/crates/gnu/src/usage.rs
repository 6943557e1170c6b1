//! Usage errors in the words of glibc's `getopt` and of coreutils, which agents read to
//! correct a command (and whose text the reward compares). Each function gives the message
//! without the `PROG: ` prefix; [`report`] puts a message and the `Try` line together.
//!
//! Quoting follows the programs: getopt shows the option as typed between plain quotes,
//! coreutils quotes operands with gnulib's `quote` (`'x\'y'` in the C locale).

use crate::quote;
use std::fmt::Display;

/// getopt's unknown short option: `invalid option -- 'k'`.
pub fn invalid_option(letter: impl Display) -> String {
    format!("invalid option -- '{letter}'")
}

/// getopt's unknown long option, as typed (`=VALUE` included): `unrecognized option '--x=1'`.
pub fn unrecognized_option(typed: impl Display) -> String {
    format!("unrecognized option '{typed}'")
}

/// getopt's short option given last without its value: `option requires an argument -- 'n'`.
pub fn requires_argument(letter: impl Display) -> String {
    format!("option requires an argument -- '{letter}'")
}

/// getopt's long option given last without its value, named in full without its dashes:
/// `option '--number' requires an argument`.
pub fn long_requires_argument(name: impl Display) -> String {
    format!("option '--{name}' requires an argument")
}

/// A long option that takes no value given one: `option '--help' doesn't allow an argument`.
pub fn long_takes_no_argument(name: impl Display) -> String {
    format!("option '--{name}' doesn't allow an argument")
}

/// coreutils' operand one too many: `extra operand 'x'`.
pub fn extra_operand(operand: &str) -> String {
    format!("extra operand {}", quote::locale(operand))
}

/// coreutils' operand missing after the last one given: `missing operand after 'x'`.
pub fn missing_operand_after(operand: &str) -> String {
    format!("missing operand after {}", quote::locale(operand))
}

/// Where coreutils sends the reader after a usage error.
pub fn try_help(prog: &str) -> String {
    format!("Try '{prog} --help' for more information.")
}

/// A usage error as coreutils reports it: `PROG: MESSAGE`, then [`try_help`]'s line.
pub fn report(prog: &str, message: &str) -> String {
    format!("{prog}: {message}\n{}\n", try_help(prog))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// As GNU coreutils 9.1 printed them on this host with `LC_ALL=C` (`seq 1 2 3 "x'y"`,
    /// `chmod "a b\\"`, `sort -k`, `ls --nope=1`, `ls -y`, `head --lines`, `ls --help=x`).
    #[test]
    fn in_gnu_words() {
        assert_eq!(extra_operand("x'y"), "extra operand 'x\\'y'");
        assert_eq!(
            missing_operand_after("a b\\"),
            "missing operand after 'a b\\\\'"
        );
        assert_eq!(requires_argument('k'), "option requires an argument -- 'k'");
        assert_eq!(
            unrecognized_option("--nope=1"),
            "unrecognized option '--nope=1'"
        );
        assert_eq!(invalid_option('y'), "invalid option -- 'y'");
        assert_eq!(
            long_requires_argument("lines"),
            "option '--lines' requires an argument"
        );
        assert_eq!(
            long_takes_no_argument("help"),
            "option '--help' doesn't allow an argument"
        );
        assert_eq!(
            report("ls", &invalid_option('y')),
            "ls: invalid option -- 'y'\nTry 'ls --help' for more information.\n"
        );
    }
}
