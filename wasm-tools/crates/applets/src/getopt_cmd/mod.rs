//! `getopt` (util-linux 2.37's enhanced getopt): parses a command's parameters with
//! `getopt_long` and prints them normalised for `eval set --`: options first, each argument
//! quoted for the shell, then `--` and the remaining parameters.
//!
//! Forms: `getopt OPTSTRING PARAMS` (old style: output unquoted), `getopt [options] [--]
//! OPTSTRING PARAMS`, `getopt [options] -o OPTSTRING [options] [--] PARAMS`. Options: `-a`
//! (long options with one dash), `-l/--longoptions` (comma or blank separated, `:` and `::`
//! suffixes, repeatable), `-n/--name`, `-o/--options`, `-q` (no error messages), `-Q` (no
//! output), `-s sh|bash|csh|tcsh`, `-T` (status 4), `-u` (unquoted). Status 1 when the
//! parameters had errors, 2 for getopt's own. Not done: `GETOPT_COMPATIBLE`, and the `W;`
//! optstring extension.

mod parse;

use crate::common::Io;
use crate::common::getopt::{self, Config, OptSpec};
use crate::common::io::{prog, run_main};
use parse::{HasArg, Item, LongOpt};
use std::ffi::OsString;

pub fn main(args: Vec<OsString>) -> i32 {
    run_main(args, run)
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum K {
    Alternative,
    Longs,
    Name,
    Options,
    Quiet,
    QuietOutput,
    Shell,
    Test,
    Unquoted,
    Help,
    Version,
}

const SPECS: &[OptSpec<K>] = &[
    getopt::flag('a', "alternative", K::Alternative),
    getopt::with_arg('l', "longoptions", K::Longs),
    getopt::with_arg('n', "name", K::Name),
    getopt::with_arg('o', "options", K::Options),
    getopt::flag('q', "quiet", K::Quiet),
    getopt::flag('Q', "quiet-output", K::QuietOutput),
    getopt::with_arg('s', "shell", K::Shell),
    getopt::flag('T', "test", K::Test),
    getopt::flag('u', "unquoted", K::Unquoted),
    getopt::flag('h', "help", K::Help),
    getopt::flag('V', "version", K::Version),
];

const HELP: &str = "
Usage:
 getopt <optstring> <parameters>
 getopt [options] [--] <optstring> <parameters>
 getopt [options] -o|--options <optstring> [options] [--] <parameters>

Parse command options.

Options:
 -a, --alternative             allow long options starting with single -
 -l, --longoptions <longopts>  the long options to be recognized
 -n, --name <progname>         the name under which errors are reported
 -o, --options <optstring>     the short options to be recognized
 -q, --quiet                   disable error reporting by getopt(3)
 -Q, --quiet-output            no normal output
 -s, --shell <shell>           set quoting conventions to those of <shell>
 -T, --test                    test for getopt(1) version
 -u, --unquoted                do not quote the output

 -h, --help                    display this help
 -V, --version                 display version

For more details see getopt(1).
";

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Quoting {
    None,
    Sh,
    Csh,
}

/// One word as the chosen shell reads it back: single quotes, `'\''` for a quote, and for
/// csh also `'\!'`, `'\ '` for the other white space, and `\n` for a newline.
fn quote(s: &str, q: Quoting) -> String {
    match q {
        Quoting::None => s.to_string(),
        Quoting::Sh => format!("'{}'", s.replace('\'', r"'\''")),
        Quoting::Csh => {
            let mut out = String::from("'");
            for c in s.chars() {
                match c {
                    '\'' => out.push_str(r"'\''"),
                    '!' => out.push_str(r"'\!'"),
                    '\n' => out.push_str(r"\n"),
                    ' ' | '\t' | '\x0b' | '\x0c' | '\r' => {
                        out.push_str(r"'\");
                        out.push(c);
                        out.push('\'');
                    }
                    _ => out.push(c),
                }
            }
            out.push('\'');
            out
        }
    }
}

/// `-l` text: names separated by commas or blanks, `:` required and `::` optional argument.
fn add_longs(spec: &str, longs: &mut Vec<LongOpt>) {
    for word in spec.split([',', ' ', '\t', '\n']).filter(|w| !w.is_empty()) {
        let (name, arg) = if let Some(n) = word.strip_suffix("::") {
            (n, HasArg::Optional)
        } else if let Some(n) = word.strip_suffix(':') {
            (n, HasArg::Required)
        } else {
            (word, HasArg::No)
        };
        longs.push(LongOpt {
            name: name.to_string(),
            arg,
        });
    }
}

fn own_error(prog: &str, msg: &str, io: &mut Io) -> i32 {
    let _ = io.err.write_all(gnu::usage::report(prog, msg).as_bytes());
    2
}

pub fn run(args: &[String], io: &mut Io) -> i32 {
    let prog = prog(args, "getopt");
    let mut quoting = Quoting::Sh;
    let (optstring, params, name, quiet, quiet_output, long_only, longs);
    if args.len() > 1 && !args[1].starts_with('-') {
        // The old form: no options, no quoting.
        quoting = Quoting::None;
        optstring = args[1].clone();
        params = args[2..].to_vec();
        (name, quiet, quiet_output, long_only, longs) =
            (prog.clone(), false, false, false, Vec::new());
    } else {
        let cfg = Config {
            stop_at_operand: true,
            digits: None,
        };
        let parsed = match getopt::parse(args, SPECS, cfg) {
            Ok(p) => p,
            Err(msg) => return own_error(&prog, &msg, io),
        };
        let mut opts_string = None;
        let mut n = prog.clone();
        let (mut q, mut qo, mut alt, mut unquoted) = (false, false, false, false);
        let mut l = Vec::new();
        for opt in &parsed.opts {
            let arg = opt.arg.clone().unwrap_or_default();
            match opt.key {
                K::Alternative => alt = true,
                K::Longs => add_longs(&arg, &mut l),
                K::Name => n = arg,
                K::Options => opts_string = Some(arg),
                K::Quiet => q = true,
                K::QuietOutput => qo = true,
                K::Shell => {
                    quoting = match arg.as_str() {
                        "sh" | "bash" => Quoting::Sh,
                        "csh" | "tcsh" => Quoting::Csh,
                        _ => {
                            return own_error(
                                &prog,
                                "unknown shell after -s or --shell argument",
                                io,
                            );
                        }
                    }
                }
                K::Test => return 4,
                // Whatever -s says, -u keeps the output unquoted.
                K::Unquoted => unquoted = true,
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
        if unquoted {
            quoting = Quoting::None;
        }
        let mut rest = parsed.operands;
        optstring = match opts_string {
            Some(o) => o,
            None if rest.is_empty() => return own_error(&prog, "missing optstring argument", io),
            None => rest.remove(0),
        };
        params = rest;
        (name, quiet, quiet_output, long_only, longs) = (n, q, qo, alt, l);
    }
    let result = parse::parse(&params, &optstring, &longs, long_only);
    if !quiet {
        for e in result.errors.iter().filter(|e| !e.is_empty()) {
            let _ = writeln!(io.err, "{name}: {e}");
        }
    }
    let status = if result.errors.is_empty() { 0 } else { 1 };
    if quiet_output {
        return status;
    }
    let mut out = String::new();
    for item in &result.items {
        match item {
            Item::Short(c, kind, arg) => {
                out.push_str(&format!(" -{c}"));
                if *kind != HasArg::No {
                    out.push(' ');
                    out.push_str(&quote(arg.as_deref().unwrap_or(""), quoting));
                }
            }
            Item::Long(n, kind, arg) => {
                out.push_str(&format!(" --{n}"));
                if *kind != HasArg::No {
                    out.push(' ');
                    out.push_str(&quote(arg.as_deref().unwrap_or(""), quoting));
                }
            }
            Item::InPlace(p) => {
                out.push(' ');
                out.push_str(&quote(p, quoting));
            }
        }
    }
    out.push_str(" --");
    for p in &result.operands {
        out.push(' ');
        out.push_str(&quote(p, quoting));
    }
    out.push('\n');
    if let Err(e) = io.out.write_all(out.as_bytes()) {
        return crate::common::io::write_failed(args, &e, io.err);
    }
    status
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quoting() {
        assert_eq!(quote("it's", Quoting::Sh), r"'it'\''s'");
        assert_eq!(quote("a!b", Quoting::Csh), r"'a'\!'b'");
    }
}
