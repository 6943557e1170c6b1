//! `chmod`: GNU coreutils 9 semantics over the host's `chmod` import (WASI has no
//! permission bits at all).
//!
//! Supported: octal and symbolic modes (`755`, `a+x`, `u=rw,go=r`, `g=u`, `+X`, `-w` as an
//! option-looking mode), `-R`, `-v`, `-c`, `-f`, `--reference=RFILE`, `--preserve-root`, and
//! GNU's messages, including "new permissions are …, not …" when the umask (022, the
//! sandbox's) keeps a symbolic mode without *who* from doing everything, and
//! "neither symbolic link … nor referent has been changed" for links met during `-R`.
//!
//! Difference from GNU: `-R` visits directory entries sorted by name (GNU: `readdir` order),
//! which only changes the order of `-v` messages.

use crate::common::io::{prog, run_main, usage};
use crate::common::mode::{ModeChange, UMASK, perm_string};
use crate::common::quote;
use crate::common::{Io, sys};
use gnu::usage;
use std::ffi::OsString;

pub fn main(args: Vec<OsString>) -> i32 {
    run_main(args, run)
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Verbosity {
    Quiet,
    Changes,
    Verbose,
}

struct Chmod<'a, 'b> {
    io: &'a mut Io<'b>,
    prog: String,
    change: Option<ModeChange>,
    reference: Option<u32>,
    recursive: bool,
    silent: bool,
    verbosity: Verbosity,
    status: i32,
}

use quote::shell_if_needed as quotef;

impl Chmod<'_, '_> {
    fn apply(&mut self, path: &str, command_line: bool) {
        let lst = match hostcalls::stat(path, false) {
            Ok(s) => s,
            Err(e) => {
                self.cannot_access(path, &e);
                return;
            }
        };
        if lst.is_symlink() && !command_line {
            if self.verbosity == Verbosity::Verbose {
                let _ = writeln!(
                    self.io.out,
                    "neither symbolic link {} nor referent has been changed",
                    quote::shell_always(path)
                );
            }
            return;
        }
        let st = if lst.is_symlink() {
            match hostcalls::stat(path, true) {
                Ok(s) => s,
                Err(e) => {
                    self.cannot_access(path, &e);
                    return;
                }
            }
        } else {
            lst
        };
        let old = st.mode & 0o7777;
        let (new, naive) = match (&self.change, self.reference) {
            (_, Some(r)) => (r, r),
            (Some(c), None) => (
                c.apply(old, st.is_dir(), UMASK),
                c.apply(old, st.is_dir(), 0),
            ),
            (None, None) => (old, old),
        };
        let mut failed = false;
        if new != old
            && let Err(e) = hostcalls::chmod(path, new)
        {
            if !self.silent {
                let _ = writeln!(
                    self.io.err,
                    "{}: changing permissions of {}: {}",
                    self.prog,
                    quote::shell_always(path),
                    sys::strerror(&e)
                );
            }
            self.status = 1;
            failed = true;
        }
        if !failed {
            let show = match self.verbosity {
                Verbosity::Verbose => true,
                Verbosity::Changes => new != old,
                Verbosity::Quiet => false,
            };
            if show {
                let q = quote::shell_always(path);
                let _ = if new != old {
                    writeln!(
                        self.io.out,
                        "mode of {q} changed from {old:04o} ({}) to {new:04o} ({})",
                        perm_string(old),
                        perm_string(new)
                    )
                } else {
                    writeln!(
                        self.io.out,
                        "mode of {q} retained as {new:04o} ({})",
                        perm_string(new)
                    )
                };
            }
            // GNU complains only when the umask left bits set that the mode would not have.
            if new & !naive != 0 && !self.silent {
                let _ = writeln!(
                    self.io.err,
                    "{}: {}: new permissions are {}, not {}",
                    self.prog,
                    quotef(path),
                    perm_string(new),
                    perm_string(naive)
                );
                self.status = 1;
            }
        }
        // A symlink named on the command line is followed, into its directory too; those met
        // on the way are not.
        if self.recursive && st.is_dir() && (command_line || !lst.is_symlink()) {
            match std::fs::read_dir(path) {
                Ok(rd) => {
                    let mut names: Vec<String> = rd
                        .filter_map(|e| e.ok())
                        .map(|e| e.file_name().to_string_lossy().into_owned())
                        .collect();
                    names.sort_unstable_by(|a, b| a.as_bytes().cmp(b.as_bytes()));
                    for n in names {
                        let child = if path.ends_with('/') {
                            format!("{path}{n}")
                        } else {
                            format!("{path}/{n}")
                        };
                        self.apply(&child, false);
                    }
                }
                Err(e) => {
                    if !self.silent {
                        let _ = writeln!(
                            self.io.err,
                            "{}: cannot read directory {}: {}",
                            self.prog,
                            quote::shell_always(path),
                            sys::strerror(&e)
                        );
                    }
                    self.status = 1;
                }
            }
        }
    }

    fn cannot_access(&mut self, path: &str, e: &std::io::Error) {
        if !self.silent {
            let _ = writeln!(
                self.io.err,
                "{}: cannot access {}: {}",
                self.prog,
                quote::shell_always(path),
                sys::strerror(e)
            );
        }
        self.status = 1;
    }
}

/// Characters that make an option-looking argument a mode (`-w`, `-x`, `-rwx`, `-022`).
fn is_mode_like(arg: &str) -> bool {
    arg.len() > 1
        && arg.starts_with('-')
        && arg[1..]
            .bytes()
            .all(|b| b"rwxXstugoa,+-=01234567".contains(&b))
}

pub fn run(args: &[String], io: &mut Io) -> i32 {
    let prog = prog(args, "chmod");
    let usage_err = |io: &mut Io, msg: &str| usage(io, &prog, msg);
    let mut recursive = false;
    let mut silent = false;
    let mut verbosity = Verbosity::Quiet;
    let mut reference: Option<String> = None;
    let mut mode_text: Option<String> = None;
    let mut operands: Vec<String> = Vec::new();
    let mut i = 1;
    while i < args.len() {
        let a = &args[i];
        i += 1;
        if a == "--" {
            operands.extend(args[i..].iter().cloned());
            break;
        }
        if let Some(long) = a.strip_prefix("--") {
            let (name, val) = match long.split_once('=') {
                Some((n, v)) => (n, Some(v.to_string())),
                None => (long, None),
            };
            let candidates = [
                "recursive",
                "changes",
                "silent",
                "quiet",
                "verbose",
                "reference",
                "preserve-root",
                "no-preserve-root",
                "help",
                "version",
            ];
            let matches: Vec<&&str> = candidates.iter().filter(|c| c.starts_with(name)).collect();
            let full = match matches.iter().find(|c| ***c == name) {
                Some(c) => **c,
                None if matches.len() == 1 => *matches[0],
                None if matches.is_empty() => {
                    return usage_err(io, &format!("unrecognized option '--{name}'"));
                }
                None => return usage_err(io, &format!("option '--{name}' is ambiguous")),
            };
            match full {
                "recursive" => recursive = true,
                "changes" => verbosity = Verbosity::Changes,
                "silent" | "quiet" => silent = true,
                "verbose" => verbosity = Verbosity::Verbose,
                "reference" => {
                    reference = match val {
                        Some(v) => Some(v),
                        None if i < args.len() => {
                            i += 1;
                            Some(args[i - 1].clone())
                        }
                        None => return usage_err(io, "option '--reference' requires an argument"),
                    }
                }
                "help" => {
                    let _ = writeln!(io.out, "Usage: {prog} [OPTION]... MODE[,MODE]... FILE...");
                    return 0;
                }
                "version" => {
                    let _ = writeln!(io.out, "chmod (GNU coreutils) 9.1");
                    return 0;
                }
                _ => {}
            }
            continue;
        }
        if is_mode_like(a) {
            mode_text = Some(match mode_text {
                Some(m) => format!("{m},{a}"),
                None => a.clone(),
            });
            continue;
        }
        if a.len() > 1 && a.starts_with('-') {
            for c in a[1..].chars() {
                match c {
                    'R' => recursive = true,
                    'c' => verbosity = Verbosity::Changes,
                    'f' => silent = true,
                    'v' => verbosity = Verbosity::Verbose,
                    'H' | 'L' | 'P' => {}
                    _ => return usage_err(io, &usage::invalid_option(c)),
                }
            }
            continue;
        }
        operands.push(a.clone());
    }
    let (change, ref_mode) = if let Some(r) = &reference {
        match hostcalls::stat(r, true) {
            Ok(st) => (None, Some(st.mode & 0o7777)),
            Err(e) => {
                let _ = writeln!(
                    io.err,
                    "{prog}: failed to get attributes of {}: {}",
                    quote::shell_always(r),
                    sys::strerror(&e)
                );
                return 1;
            }
        }
    } else {
        let (text, positional) = match mode_text {
            Some(m) => (m, false),
            None => {
                if operands.is_empty() {
                    return usage_err(io, "missing operand");
                }
                (operands.remove(0), true)
            }
        };
        // GNU counts the files before it reads the mode: `chmod foo` lacks an operand (after
        // the last argument, when the mode was one), it is not an invalid mode.
        if operands.is_empty() {
            if !positional {
                return usage_err(io, "missing operand");
            }
            let last = args.last().cloned().unwrap_or_default();
            return usage_err(io, &usage::missing_operand_after(&last));
        }
        match ModeChange::parse(&text) {
            Some(c) => (Some(c), None),
            None => return usage_err(io, &format!("invalid mode: {}", quote::shell_always(&text))),
        }
    };
    if operands.is_empty() {
        // Only with --reference (the mode's branch counted the files already).
        return usage_err(io, "missing operand");
    }
    let mut c = Chmod {
        io,
        prog,
        change,
        reference: ref_mode,
        recursive,
        silent,
        verbosity,
        status: 0,
    };
    for op in &operands {
        c.apply(op, true);
    }
    c.status
}

// Native only: the tests set and read real permission bits.
#[cfg(all(test, unix))]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    fn chmod(dir: &std::path::Path, args: &[&str]) -> (i32, String, String) {
        let argv: Vec<String> = std::iter::once("chmod".to_string())
            .chain(args.iter().map(|a| a.replace('@', dir.to_str().unwrap())))
            .collect();
        let (code, out, err) = crate::common::io::capture_text(run, &argv, b"");
        let d = dir.to_str().unwrap();
        (code, out.replace(d, "@"), err.replace(d, "@"))
    }

    fn mode(p: &std::path::Path) -> u32 {
        std::fs::metadata(p).unwrap().permissions().mode() & 0o7777
    }

    #[test]
    fn octal_symbolic_and_verbose() {
        let d = tempfile::tempdir().unwrap();
        let f = d.path().join("f");
        std::fs::write(&f, "").unwrap();
        std::fs::set_permissions(&f, std::fs::Permissions::from_mode(0o644)).unwrap();
        let (code, out, _) = chmod(d.path(), &["-v", "755", "@/f"]);
        assert_eq!(code, 0);
        assert_eq!(
            out,
            "mode of '@/f' changed from 0644 (rw-r--r--) to 0755 (rwxr-xr-x)\n"
        );
        let (_, out, _) = chmod(d.path(), &["-c", "755", "@/f"]);
        assert_eq!(out, "");
        chmod(d.path(), &["-x", "@/f"]);
        assert_eq!(mode(&f), 0o644);
        chmod(d.path(), &["u=rw,go=", "@/f"]);
        assert_eq!(mode(&f), 0o600);
    }

    #[test]
    fn errors() {
        let d = tempfile::tempdir().unwrap();
        assert_eq!(
            chmod(d.path(), &[]).2,
            "chmod: missing operand\nTry 'chmod --help' for more information.\n"
        );
        assert_eq!(
            chmod(d.path(), &["644"]).2,
            "chmod: missing operand after '644'\nTry 'chmod --help' for more information.\n"
        );
        assert_eq!(
            chmod(d.path(), &["zz"]).2,
            "chmod: missing operand after 'zz'\nTry 'chmod --help' for more information.\n"
        );
        // gnulib's `quote`, as GNU chmod printed it with LC_ALL=C (it had been shell quoting).
        assert_eq!(
            chmod(d.path(), &["a'b"]).2,
            "chmod: missing operand after 'a\\'b'\nTry 'chmod --help' for more information.\n"
        );
        assert_eq!(
            chmod(d.path(), &["zz", "x"]).2,
            "chmod: invalid mode: 'zz'\nTry 'chmod --help' for more information.\n"
        );
        let (code, _, err) = chmod(d.path(), &["644", "@/nope"]);
        assert_eq!(code, 1);
        assert_eq!(
            err,
            "chmod: cannot access '@/nope': No such file or directory\n"
        );
    }

    #[test]
    fn mode_like_options() {
        assert!(is_mode_like("-w"));
        assert!(is_mode_like("-rwx"));
        assert!(!is_mode_like("-R"));
        assert!(!is_mode_like("-v"));
    }
}
