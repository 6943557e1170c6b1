//! `mkdir` (GNU coreutils 8.32): `-p`, `-m MODE`, `-v`, `-Z`/`--context` (accepted, no SELinux
//! here). Its own applet because uutils' answers differ where agents look: an existing name is
//! "cannot create directory 'x': File exists" in GNU (uutils: "x: File exists"), and `-m` needs
//! the host's chmod (WASI cannot set modes).

use crate::common::getopt::{self, Config, flag, long_opt_arg, with_arg};
use crate::common::io::{prog, run_main, usage};
use crate::common::mode::{ModeChange, UMASK};
use crate::common::quote::locale as quote;
use crate::common::{Io, sys};
use std::ffi::OsString;
use std::io;

pub fn main(args: Vec<OsString>) -> i32 {
    run_main(args, run)
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum K {
    Mode,
    Parents,
    Verbose,
    Context,
}

const SPECS: &[getopt::OptSpec<K>] = &[
    with_arg('m', "mode", K::Mode),
    flag('p', "parents", K::Parents),
    flag('v', "verbose", K::Verbose),
    flag('Z', "", K::Context),
    long_opt_arg("context", K::Context),
];

struct Mkdir<'a, 'b> {
    io: &'a mut Io<'b>,
    prog: String,
    verbose: bool,
    status: i32,
}

impl Mkdir<'_, '_> {
    fn cannot_create(&mut self, dir: &str, e: &io::Error) {
        let _ = writeln!(
            self.io.err,
            "{}: cannot create directory {}: {}",
            self.prog,
            quote(dir),
            sys::strerror(e)
        );
        self.status = 1;
    }

    /// Makes `dir` with `mode`; `Err` carries the failure, unreported.
    fn make(&mut self, dir: &str, mode: u32) -> io::Result<()> {
        std::fs::create_dir(dir)?;
        // WASI creates with the host's default mode: set GNU's (requested, or 0777 ~umask).
        let _ = hostcalls::chmod(dir, mode);
        if self.verbose {
            let _ = writeln!(
                self.io.out,
                "{}: created directory {}",
                self.prog,
                quote(dir)
            );
        }
        Ok(())
    }

    /// `mkdir -p`: every missing ancestor with u+wx added to the default mode, then `dir`.
    fn make_parents(&mut self, dir: &str, mode: u32) {
        let default = 0o777 & !UMASK;
        let trimmed = dir.trim_end_matches('/');
        let mut built = String::new();
        let parts: Vec<&str> = trimmed.split('/').collect();
        for (i, part) in parts.iter().enumerate() {
            if i > 0 {
                built.push('/');
            }
            built.push_str(part);
            if part.is_empty() || *part == "." || *part == ".." {
                continue;
            }
            let last = i + 1 == parts.len();
            match hostcalls::stat(&built, true) {
                Ok(st) if st.is_dir() => continue,
                Ok(_) => {
                    // An existing non-directory: the last name "exists", an ancestor is
                    // "not a directory" (GNU names that ancestor).
                    let e = if last {
                        io::Error::from(io::ErrorKind::AlreadyExists)
                    } else {
                        io::Error::from(io::ErrorKind::NotADirectory)
                    };
                    return self.cannot_create(&built, &e);
                }
                Err(_) => {}
            }
            let want = if last { mode } else { default | 0o300 };
            if let Err(e) = self.make(&built, want) {
                // Another process may have made it meanwhile.
                if !hostcalls::stat(&built, true).is_ok_and(|s| s.is_dir()) {
                    return self.cannot_create(&built, &e);
                }
            }
        }
        if trimmed.is_empty() && !dir.is_empty() {
            // `mkdir -p /`: the root exists.
            return;
        }
        if dir.is_empty() {
            let e = io::Error::from(io::ErrorKind::NotFound);
            self.cannot_create(dir, &e);
        }
    }
}

fn run(args: &[String], io: &mut Io) -> i32 {
    let prog = prog(args, "mkdir");
    let parsed = match getopt::parse(args, SPECS, Config::default()) {
        Ok(p) => p,
        Err(msg) => return usage(io, &prog, &msg),
    };
    let (mut parents, mut verbose, mut mode_text) = (false, false, None);
    for opt in &parsed.opts {
        match opt.key {
            K::Mode => mode_text = opt.arg.clone(),
            K::Parents => parents = true,
            K::Verbose => verbose = true,
            K::Context => {}
        }
    }
    let default = 0o777 & !UMASK;
    let mode = match &mode_text {
        None => default,
        // GNU makes the directory with the mode applied to a=rwx; the umask then clears what
        // the expression did not set or clear explicitly (`-m 777` stays 777, `-m u+x,g-r`
        // gives 715 under umask 022).
        Some(text) => match ModeChange::parse(text) {
            Some(change) => {
                let (mode, explicit) = change.apply_explicitly(0o777, true, UMASK);
                (mode & explicit) | (mode & !UMASK & !explicit)
            }
            None => {
                let _ = writeln!(io.err, "{prog}: invalid mode {}", quote(text));
                return 1;
            }
        },
    };
    if parsed.operands.is_empty() {
        return usage(io, &prog, "missing operand");
    }
    let mut m = Mkdir {
        io,
        prog: prog.clone(),
        verbose,
        status: 0,
    };
    for dir in &parsed.operands {
        if parents {
            m.make_parents(dir, mode);
        } else if let Err(e) = m.make(dir, mode) {
            m.cannot_create(dir, &e);
        }
    }
    m.status
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Ubuntu 22.04's mkdir under umask 022.
    #[test]
    fn modes_as_gnu_leaves_them() {
        let mode = |text: &str| {
            let (m, explicit) = ModeChange::parse(text)
                .unwrap()
                .apply_explicitly(0o777, true, UMASK);
            (m & explicit) | (m & !UMASK & !explicit)
        };
        assert_eq!(mode("777"), 0o777);
        assert_eq!(mode("a=rwx"), 0o777);
        assert_eq!(mode("u+x,g-r"), 0o715);
        assert_eq!(mode("+w"), 0o755);
        assert_eq!(mode("700"), 0o700);
    }

    #[test]
    fn names_are_quoted_as_gnu_quotes_them_in_the_c_locale() {
        assert_eq!(quote("dir"), "'dir'");
        assert_eq!(quote("it's"), "'it\\'s'");
    }
}
