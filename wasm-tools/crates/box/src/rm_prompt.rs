//! `rm -i` asking as GNU coreutils 8.32 asks: `rm: remove regular file 'x'? `, `regular empty
//! file`, `symbolic link`, each on stderr without a newline, then a line read from standard
//! input (`y…` or `Y…` removes). uutils asks "remove file 'x'?" for all of them. Upstream ran
//! commands without a terminal or input, so every question met end of input and nothing was
//! removed; agents' `rm -i` and `find … -exec rm -i {} \;` show the questions strung together.
//! Only the plain form is handled here (`-r` only when no operand is a directory; no `-I` or
//! `--interactive=once`); the rest goes to uutils.

use applets::shell_quote as quote;
use std::ffi::OsString;
use std::io::{BufRead, Write};

/// What a command line asks of `rm`, when this module handles it.
#[derive(Debug, PartialEq)]
struct Plan {
    verbose: bool,
    /// `-r`/`-d` given: fine while no operand is a directory.
    recursive: bool,
    operands: Vec<String>,
}

/// `Some` when the last of `-i`, `-f`, `--interactive=…` asks before every removal and nothing
/// recursive or unusual was asked for.
fn plan(args: &[String]) -> Option<Plan> {
    let mut interactive = false;
    let mut verbose = false;
    let mut recursive = false;
    let mut operands = Vec::new();
    let mut only_operands = false;
    for arg in args.iter().skip(1) {
        if only_operands || arg == "-" || !arg.starts_with('-') {
            operands.push(arg.clone());
            continue;
        }
        match arg.as_str() {
            "--" => only_operands = true,
            "--interactive" | "--interactive=always" | "--interactive=yes" => interactive = true,
            "--force" | "--interactive=never" | "--interactive=no" | "--interactive=none" => {
                interactive = false
            }
            "--verbose" => verbose = true,
            "--recursive" | "--dir" => recursive = true,
            long if long.starts_with("--") => return None,
            short => {
                for c in short.chars().skip(1) {
                    match c {
                        'i' => interactive = true,
                        'f' => interactive = false,
                        'v' => verbose = true,
                        'r' | 'R' | 'd' => recursive = true,
                        _ => return None,
                    }
                }
            }
        }
    }
    (interactive && !operands.is_empty()).then_some(Plan {
        verbose,
        recursive,
        operands,
    })
}

/// The words GNU's prompt gives a file's type.
fn kind(st: &hostcalls::Stat) -> &'static str {
    if st.is_symlink() {
        "symbolic link"
    } else if st.is_file() && st.size == 0 {
        "regular empty file"
    } else if st.is_file() {
        "regular file"
    } else {
        "file"
    }
}

fn cannot_remove(name: &str, why: &str) {
    let _ = writeln!(
        std::io::stderr(),
        "rm: cannot remove {}: {why}",
        quote(name)
    );
}

/// Handles `rm -i …` when [`plan`] reads it; `None` leaves the command to uutils.
pub fn run(args: &[OsString]) -> Option<i32> {
    let strings: Vec<String> = args
        .iter()
        .map(|a| a.to_string_lossy().into_owned())
        .collect();
    let plan = plan(&strings)?;
    if plan.recursive
        && plan
            .operands
            .iter()
            .any(|o| hostcalls::stat(o, false).is_ok_and(|st| st.is_dir()))
    {
        return None;
    }
    let mut err = std::io::stderr();
    let mut answers = std::io::stdin().lock();
    let mut status = 0;
    for name in &plan.operands {
        let st = match hostcalls::stat(name, false) {
            Ok(st) => st,
            Err(e) => {
                cannot_remove(name, &applets::strerror(&e));
                status = 1;
                continue;
            }
        };
        if st.is_dir() {
            cannot_remove(name, "Is a directory");
            status = 1;
            continue;
        }
        let _ = write!(err, "rm: remove {} {}? ", kind(&st), quote(name));
        let _ = err.flush();
        let mut answer = String::new();
        if answers.read_line(&mut answer).unwrap_or(0) == 0 || !answer.starts_with(['y', 'Y']) {
            continue;
        }
        match std::fs::remove_file(name) {
            Ok(()) if plan.verbose => println!("removed {}", quote(name)),
            Ok(()) => {}
            Err(e) => {
                cannot_remove(name, &applets::strerror(&e));
                status = 1;
            }
        }
    }
    Some(status)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(a: &[&str]) -> Vec<String> {
        a.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn only_plain_interactive_removals_are_taken() {
        assert_eq!(
            plan(&args(&["rm", "-i", "a", "b"])),
            Some(Plan {
                verbose: false,
                recursive: false,
                operands: vec!["a".into(), "b".into()]
            })
        );
        // upstream's log: `rm -rf /system/*.txt -i` asked about each file.
        assert!(plan(&args(&["rm", "-rf", "a", "-i"])).is_some_and(|p| p.recursive));
        assert!(plan(&args(&["rm", "-i", "-f", "a"])).is_none());
        assert!(plan(&args(&["rm", "-f", "-i", "a"])).is_some());
        assert!(plan(&args(&["rm", "a"])).is_none());
        assert!(plan(&args(&["rm", "--interactive=once", "a"])).is_none());
    }
}
