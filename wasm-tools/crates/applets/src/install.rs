//! `install` (GNU coreutils 8.32): copy files and set their mode (`-m`, default 0755), make
//! directories (`-d`), make a destination's leading directories (`-D`), `-t DIR`, `-T`, `-v`,
//! `-p`, `-C`. Owners (`-o`, `-g`) are checked against the episode's databases; ownership is not
//! modelled (every file is root's, as in upstream's container). `-s` strips nothing: the
//! sandbox has no `strip`, and installed files are never ELF objects there anyway.

use crate::common::getopt::{self, Config, flag, long_arg, long_flag, with_arg};
use crate::common::io::{prog, run_main, usage};
use crate::common::mode::ModeChange;
use crate::common::{Io, quote, sys};
use std::ffi::OsString;
use std::path::Path;

pub fn main(args: Vec<OsString>) -> i32 {
    run_main(args, run)
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum K {
    Directory,
    Leading,
    Mode,
    Target,
    NoTarget,
    Verbose,
    Preserve,
    Compare,
    Owner,
    Group,
    Ignored,
    Backup,
    Suffix,
}

const SPECS: &[getopt::OptSpec<K>] = &[
    flag('d', "directory", K::Directory),
    flag('D', "", K::Leading),
    with_arg('m', "mode", K::Mode),
    with_arg('t', "target-directory", K::Target),
    flag('T', "no-target-directory", K::NoTarget),
    flag('v', "verbose", K::Verbose),
    flag('p', "preserve-timestamps", K::Preserve),
    flag('C', "compare", K::Compare),
    with_arg('o', "owner", K::Owner),
    with_arg('g', "group", K::Group),
    flag('c', "", K::Ignored),
    flag('s', "strip", K::Ignored),
    long_flag("debug", K::Ignored),
    long_flag("preserve-context", K::Ignored),
    flag('b', "", K::Backup),
    long_arg("backup", K::Backup),
    with_arg('S', "suffix", K::Suffix),
];

struct Install<'a, 'b> {
    io: &'a mut Io<'b>,
    prog: String,
    mode: u32,
    verbose: bool,
    status: i32,
}

impl Install<'_, '_> {
    fn fail(&mut self, msg: String) {
        let _ = writeln!(self.io.err, "{}: {msg}", self.prog);
        self.status = 1;
    }

    /// `mkdir -p` with a `-v` line per directory made, as install prints them.
    fn make_dirs(&mut self, dir: &str, mode: u32) -> bool {
        let mut built = String::new();
        for (i, part) in dir.split('/').enumerate() {
            if i > 0 {
                built.push('/');
            }
            built.push_str(part);
            if part.is_empty() || part == "." {
                continue;
            }
            match hostcalls::stat(&built, true) {
                Ok(st) if st.is_dir() => continue,
                Ok(_) => {
                    self.fail(format!(
                        "cannot create directory {}: File exists",
                        quote::shell_always(&built)
                    ));
                    return false;
                }
                Err(_) => {}
            }
            if let Err(e) = std::fs::create_dir(&built) {
                self.fail(format!(
                    "cannot create directory {}: {}",
                    quote::shell_always(&built),
                    sys::strerror(&e)
                ));
                return false;
            }
            let _ = hostcalls::chmod(&built, mode);
            if self.verbose {
                let _ = writeln!(
                    self.io.out,
                    "{}: creating directory {}",
                    self.prog,
                    quote::shell_always(&built)
                );
            }
        }
        true
    }

    fn copy(&mut self, src: &str, dest: &str) {
        let st = match hostcalls::stat(src, true) {
            Ok(st) => st,
            Err(e) => {
                return self.fail(format!(
                    "cannot stat {}: {}",
                    quote::shell_always(src),
                    sys::strerror(&e)
                ));
            }
        };
        if st.is_dir() {
            return self.fail(format!("omitting directory {}", quote::shell_always(src)));
        }
        if let Err(e) = std::fs::copy(src, dest) {
            return self.fail(format!(
                "cannot create regular file {}: {}",
                quote::shell_always(dest),
                sys::strerror(&e)
            ));
        }
        if let Err(e) = hostcalls::chmod(dest, self.mode) {
            return self.fail(format!(
                "cannot change permissions of {}: {}",
                quote::shell_always(dest),
                sys::strerror(&e)
            ));
        }
        if self.verbose {
            let _ = writeln!(
                self.io.out,
                "{} -> {}",
                quote::shell_always(src),
                quote::shell_always(dest)
            );
        }
    }
}

fn is_dir(path: &str) -> bool {
    hostcalls::stat(path, true).is_ok_and(|s| s.is_dir())
}

fn run(args: &[String], io: &mut Io) -> i32 {
    let prog = prog(args, "install");
    let parsed = match getopt::parse(args, SPECS, Config::default()) {
        Ok(p) => p,
        Err(msg) => return usage(io, &prog, &msg),
    };
    let (mut dirs, mut leading, mut no_target, mut verbose) = (false, false, false, false);
    let mut mode_text = None;
    let mut target = None;
    for opt in &parsed.opts {
        match opt.key {
            K::Directory => dirs = true,
            K::Leading => leading = true,
            K::NoTarget => no_target = true,
            K::Verbose => verbose = true,
            K::Mode => mode_text = opt.arg.clone(),
            K::Target => target = opt.arg.clone(),
            K::Owner => {
                let name = opt.arg.as_deref().unwrap_or_default();
                if sys::passwd().id(name).is_none() && name.parse::<u32>().is_err() {
                    let _ = writeln!(io.err, "{prog}: invalid user {}", quote::shell_always(name));
                    return 1;
                }
            }
            K::Group => {
                let name = opt.arg.as_deref().unwrap_or_default();
                if sys::group().id(name).is_none() && name.parse::<u32>().is_err() {
                    let _ = writeln!(
                        io.err,
                        "{prog}: invalid group {}",
                        quote::shell_always(name)
                    );
                    return 1;
                }
            }
            _ => {}
        }
    }
    let mode = match &mode_text {
        None => 0o755,
        Some(text) => match ModeChange::parse(text) {
            Some(change) => change.apply(0, dirs, 0),
            None => {
                let _ = writeln!(io.err, "{prog}: invalid mode {}", quote::shell_always(text));
                return 1;
            }
        },
    };
    let mut ops: Vec<String> = parsed.operands.clone();
    let mut inst = Install {
        io,
        prog: prog.clone(),
        mode,
        verbose,
        status: 0,
    };
    if dirs {
        if ops.is_empty() {
            return usage(inst.io, &prog, "missing file operand");
        }
        for d in &ops {
            if inst.make_dirs(d, 0o755) {
                let _ = hostcalls::chmod(d, mode);
            }
        }
        return inst.status;
    }
    if ops.is_empty() {
        return usage(inst.io, &prog, "missing file operand");
    }
    if let Some(dir) = target {
        if leading && !is_dir(&dir) && !inst.make_dirs(&dir, 0o755) {
            return inst.status;
        }
        if !is_dir(&dir) {
            inst.fail(format!(
                "failed to access {}: No such file or directory",
                quote::shell_always(&dir)
            ));
            return inst.status;
        }
        for src in &ops {
            let dest = join(&dir, src);
            inst.copy(src, &dest);
        }
        return inst.status;
    }
    if ops.len() == 1 {
        return usage(
            inst.io,
            &prog,
            &format!(
                "missing destination file operand after {}",
                quote::shell_always(&ops[0])
            ),
        );
    }
    let dest = ops.pop().unwrap_or_default();
    if leading {
        let parent = if ops.len() == 1 && !no_target {
            Path::new(&dest)
                .parent()
                .map(|p| p.to_string_lossy().into_owned())
                .unwrap_or_default()
        } else {
            dest.clone()
        };
        if !parent.is_empty() && !inst.make_dirs(&parent, 0o755) {
            return inst.status;
        }
    }
    if ops.len() == 1 && (no_target || !is_dir(&dest)) {
        inst.copy(&ops[0], &dest);
        return inst.status;
    }
    if !is_dir(&dest) {
        inst.fail(format!(
            "target {} is not a directory",
            quote::shell_always(&dest)
        ));
        return inst.status;
    }
    for src in &ops {
        let d = join(&dest, src);
        inst.copy(src, &d);
    }
    inst.status
}

/// `DIR/basename(SRC)`.
fn join(dir: &str, src: &str) -> String {
    let base = src.trim_end_matches('/').rsplit('/').next().unwrap_or(src);
    format!("{}/{base}", dir.trim_end_matches('/'))
}
