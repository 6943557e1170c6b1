//! GNU sed 4.8's answers to its own command line: an invalid option, a missing option value or
//! no script at all prints glibc's message (if any) and the whole usage text on standard error
//! with status 1, `--help` prints it on standard output, `--version` GNU's version text. The
//! sed crate answers these through clap, in other words and on other streams, and agents that
//! type a bare `sed` inside a command substitution see GNU's usage, not an empty string.

use applets::getopt::{self, Config, OptSpec};
use std::ffi::OsString;
use std::io::Write;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum K {
    Script,
    /// Any other option; glibc calls a prefix ambiguous only between options of different
    /// values, so each has its own.
    Other(u8),
    /// `-V`: in GNU sed's option string but answered with the usage text alone.
    UsageOnly,
    Help,
    Version,
}

/// In the order of GNU sed's long-option table, which orders glibc's "possibilities".
const SPECS: &[OptSpec<K>] = &[
    getopt::flag('b', "binary", K::Other(b'b')),
    getopt::flag('r', "regexp-extended", K::Other(b'r')),
    getopt::long_flag("debug", K::Other(b'D')),
    getopt::short_opt_arg('i', "in-place", K::Other(b'i')),
    getopt::with_arg('e', "expression", K::Script),
    getopt::with_arg('f', "file", K::Script),
    getopt::with_arg('l', "line-length", K::Other(b'l')),
    getopt::flag('z', "null-data", K::Other(b'z')),
    getopt::long_flag("zero-terminated", K::Other(b'z')),
    getopt::flag('n', "quiet", K::Other(b'n')),
    getopt::long_flag("posix", K::Other(b'p')),
    getopt::long_flag("silent", K::Other(b'n')),
    getopt::long_flag("sandbox", K::Other(b'S')),
    getopt::flag('s', "separate", K::Other(b's')),
    getopt::flag('u', "unbuffered", K::Other(b'u')),
    getopt::long_flag("version", K::Version),
    getopt::long_flag("help", K::Help),
    getopt::long_flag("follow-symlinks", K::Other(b'F')),
    getopt::flag('E', "", K::Other(b'r')),
    getopt::flag('V', "", K::UsageOnly),
];

const USAGE: &str = "Usage: sed [OPTION]... {script-only-if-no-other-script} [input-file]...

  -n, --quiet, --silent
                 suppress automatic printing of pattern space
      --debug
                 annotate program execution
  -e script, --expression=script
                 add the script to the commands to be executed
  -f script-file, --file=script-file
                 add the contents of script-file to the commands to be executed
  --follow-symlinks
                 follow symlinks when processing in place
  -i[SUFFIX], --in-place[=SUFFIX]
                 edit files in place (makes backup if SUFFIX supplied)
  -l N, --line-length=N
                 specify the desired line-wrap length for the `l' command
  --posix
                 disable all GNU extensions.
  -E, -r, --regexp-extended
                 use extended regular expressions in the script
                 (for portability use POSIX -E).
  -s, --separate
                 consider files as separate rather than as a single,
                 continuous long stream.
      --sandbox
                 operate in sandbox mode (disable e/r/w commands).
  -u, --unbuffered
                 load minimal amounts of data from the input files and flush
                 the output buffers more often
  -z, --null-data
                 separate lines by NUL characters
      --help     display this help and exit
      --version  output version information and exit

If no -e, --expression, -f, or --file option is given, then the first
non-option argument is taken as the sed script to interpret.  All
remaining arguments are names of input files; if no input files are
specified, then the standard input is read.

GNU sed home page: <https://www.gnu.org/software/sed/>.
General help using GNU software: <https://www.gnu.org/gethelp/>.
";
const BUG_REPORTS: &str = "E-mail bug reports to: <bug-sed@gnu.org>.\n";
const VERSION: &str = "sed (GNU sed) 4.8
Packaged by Debian
Copyright (C) 2020 Free Software Foundation, Inc.
License GPLv3+: GNU GPL version 3 or later <https://gnu.org/licenses/gpl.html>.
This is free software: you are free to change and redistribute it.
There is NO WARRANTY, to the extent permitted by law.

Written by Jay Fenlason, Tom Lord, Ken Pizzini,
Paolo Bonzini, Jim Meyering, and Assaf Gordon.

This sed program was built with SELinux support.
SELinux is disabled on this system.

GNU sed home page: <https://www.gnu.org/software/sed/>.
General help using GNU software: <https://www.gnu.org/gethelp/>.
E-mail bug reports to: <bug-sed@gnu.org>.
";

/// The status when GNU sed answers the command line itself; `None` to run the script.
pub fn check(args: &[OsString]) -> Option<i32> {
    let words: Vec<String> = args
        .iter()
        .map(|a| a.to_string_lossy().into_owned())
        .collect();
    let (parsed, error) = getopt::parse_in_order(&words, SPECS, Config::default());
    for opt in &parsed.opts {
        match opt.key {
            K::Help => {
                let mut out = std::io::stdout();
                let _ = out.write_all(USAGE.as_bytes());
                let _ = out.write_all(BUG_REPORTS.as_bytes());
                return Some(0);
            }
            K::Version => {
                let _ = std::io::stdout().write_all(VERSION.as_bytes());
                return Some(0);
            }
            K::UsageOnly => return Some(usage(None)),
            K::Script | K::Other(_) => {}
        }
    }
    if let Some(message) = error {
        return Some(usage(Some(&message)));
    }
    let has_script = parsed.opts.iter().any(|o| o.key == K::Script) || !parsed.operands.is_empty();
    if has_script { None } else { Some(usage(None)) }
}

fn usage(message: Option<&str>) -> i32 {
    let mut err = std::io::stderr();
    if let Some(message) = message {
        let _ = writeln!(err, "sed: {message}");
    }
    let _ = err.write_all(USAGE.as_bytes());
    1
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check_words(words: &[&str]) -> Option<i32> {
        let args: Vec<OsString> = words.iter().map(OsString::from).collect();
        check(&args)
    }

    #[test]
    fn scripts_run_and_bad_command_lines_are_answered() {
        assert_eq!(check_words(&["sed", "p"]), None);
        assert_eq!(check_words(&["sed", "-n", "-e", "p", "f"]), None);
        assert_eq!(check_words(&["sed", "-i.bak", "s/a/b/", "f"]), None);
        assert_eq!(check_words(&["sed", "--line-length", "p"]), Some(1));
        assert_eq!(check_words(&["sed"]), Some(1));
        assert_eq!(check_words(&["sed", "-n"]), Some(1));
        assert_eq!(check_words(&["sed", "-x", "p"]), Some(1));
        assert_eq!(check_words(&["sed", "--s", "p"]), Some(1));
        assert_eq!(check_words(&["sed", "-V", "p"]), Some(1));
        assert_eq!(check_words(&["sed", "--help", "--bogus"]), Some(0));
    }
}
