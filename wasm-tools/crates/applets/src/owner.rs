//! `chown` and `chgrp` (GNU coreutils 8.32): the owner spec is checked against the episode's
//! `/etc/passwd` and `/etc/group`, the files must exist, and GNU's messages and statuses come
//! out. The sandbox does not model ownership (every file belongs to root, as upstream ran
//! everything as root), so a valid change succeeds without changing what `ls -l` shows.

use crate::common::getopt::{self, Config, flag, long_arg, long_flag};
use crate::common::io::{prog, run_main};
use crate::common::{Io, quote, sys};
use std::ffi::OsString;

pub fn chown_main(args: Vec<OsString>) -> i32 {
    run_main(args, |a, io| run(a, io, Tool::Chown))
}

pub fn chgrp_main(args: Vec<OsString>) -> i32 {
    run_main(args, |a, io| run(a, io, Tool::Chgrp))
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Tool {
    Chown,
    Chgrp,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum K {
    Recursive,
    Changes,
    Silent,
    Verbose,
    NoDereference,
    Dereference,
    Reference,
    From,
    PreserveRoot,
    NoPreserveRoot,
    TraverseH,
    TraverseL,
    TraverseP,
}

const SPECS: &[getopt::OptSpec<K>] = &[
    flag('R', "recursive", K::Recursive),
    flag('c', "changes", K::Changes),
    flag('f', "silent", K::Silent),
    long_flag("quiet", K::Silent),
    flag('v', "verbose", K::Verbose),
    flag('h', "no-dereference", K::NoDereference),
    long_flag("dereference", K::Dereference),
    long_arg("reference", K::Reference),
    long_arg("from", K::From),
    long_flag("preserve-root", K::PreserveRoot),
    long_flag("no-preserve-root", K::NoPreserveRoot),
    flag('H', "", K::TraverseH),
    flag('L', "", K::TraverseL),
    flag('P', "", K::TraverseP),
];

/// What a valid spec names; `None` parts stay as they are.
#[derive(Debug, Default, PartialEq, Eq)]
struct Owner {
    user: Option<u32>,
    group: Option<u32>,
}

/// A user or group given by name, or by number when no entry has that name (as GNU does).
fn resolve(name: &str, db: &sys::IdDb) -> Option<u32> {
    db.id(name).or_else(|| name.parse().ok())
}

/// `USER[:GROUP]`, `USER:`, `:GROUP`, `USER.GROUP` (the old separator, only when the whole
/// spec is not a user name). `USER:` means the user's login group.
fn parse_chown_spec(spec: &str) -> Result<Owner, &'static str> {
    let passwd = sys::passwd();
    let split = spec.split_once(':').or_else(|| {
        // `.` separates only if the spec as a whole is not a user.
        spec.split_once('.')
            .filter(|_| resolve(spec, passwd).is_none())
    });
    let (user, group) = match split {
        Some((u, g)) => (u, Some(g)),
        None => (spec, None),
    };
    let mut owner = Owner::default();
    if !user.is_empty() {
        owner.user = Some(resolve(user, passwd).ok_or("invalid user")?);
    }
    match group {
        Some("") if !user.is_empty() => {
            // `USER:`: the login group of USER, which must be a named user.
            let gid = passwd
                .gid_of
                .get(user)
                .copied()
                .ok_or("failed to get the login group of")?;
            owner.group = Some(gid);
        }
        Some("") | None => {}
        Some(g) => owner.group = Some(resolve(g, sys::group()).ok_or("invalid group")?),
    }
    Ok(owner)
}

fn run(args: &[String], io: &mut Io, tool: Tool) -> i32 {
    let prog = prog(
        args,
        match tool {
            Tool::Chown => "chown",
            Tool::Chgrp => "chgrp",
        },
    );
    let usage = |io: &mut Io, msg: &str| {
        let _ = io.err.write_all(gnu::usage::report(&prog, msg).as_bytes());
        1
    };
    let parsed = match getopt::parse(args, SPECS, Config::default()) {
        Ok(p) => p,
        Err(msg) => return usage(io, &msg),
    };
    let mut recursive = false;
    let mut traverse = Traverse::Physical;
    let mut dereference = None;
    let mut silent = false;
    let mut report = Report::Nothing;
    let mut reference = None;
    for opt in &parsed.opts {
        match opt.key {
            K::Recursive => recursive = true,
            K::TraverseH => traverse = Traverse::CommandLine,
            K::TraverseL => traverse = Traverse::Logical,
            K::TraverseP => traverse = Traverse::Physical,
            K::Dereference => dereference = Some(true),
            K::NoDereference => dereference = Some(false),
            K::Silent => silent = true,
            K::Verbose => report = Report::Everything,
            K::Changes => report = Report::Changes,
            K::Reference => reference = opt.arg.clone(),
            _ => {}
        }
    }
    // GNU's rules: a recursive run walks the tree as -H/-L/-P say (-P, no symlink followed, by
    // default); otherwise a symlink operand is followed unless -h.
    let follow = if recursive {
        if traverse == Traverse::Physical && dereference == Some(true) {
            let _ = writeln!(io.err, "{prog}: -R --dereference requires either -H or -L");
            return 1;
        }
        traverse
    } else if dereference == Some(false) {
        Traverse::Physical
    } else {
        Traverse::Logical
    };
    let mut operands = parsed.operands.iter();
    let spec = if reference.is_some() {
        None
    } else {
        match operands.next() {
            Some(s) => Some(s.clone()),
            None => return usage(io, "missing operand"),
        }
    };
    let files: Vec<&String> = operands.collect();
    if files.is_empty() {
        return match &spec {
            Some(s) => usage(
                io,
                &format!("missing operand after {}", quote::shell_always(s)),
            ),
            None => usage(io, "missing operand"),
        };
    }
    if let Some(r) = &reference
        && let Err(e) = hostcalls::stat(r, true)
    {
        let _ = writeln!(
            io.err,
            "{prog}: failed to get attributes of {}: {}",
            quote::shell_always(r),
            sys::strerror(&e)
        );
        return 1;
    }
    // Every file is root's, so the reference file names root too.
    let owner = match (&spec, tool) {
        (None, Tool::Chown) => Owner {
            user: Some(0),
            group: Some(0),
        },
        (None, Tool::Chgrp) => Owner {
            user: None,
            group: Some(0),
        },
        (Some(spec), Tool::Chown) => match parse_chown_spec(spec) {
            Ok(o) => o,
            Err(why) => {
                let _ = writeln!(io.err, "{prog}: {why}: {}", quote::shell_always(spec));
                return 1;
            }
        },
        (Some(spec), Tool::Chgrp) => match resolve(spec, sys::group()) {
            Some(g) => Owner {
                user: None,
                group: Some(g),
            },
            None => {
                let _ = writeln!(
                    io.err,
                    "{prog}: invalid group: {}",
                    quote::shell_always(spec)
                );
                return 1;
            }
        },
    };
    let mut run = Run {
        io,
        prog,
        tool,
        owner,
        report,
        silent,
        recursive,
        follow,
        status: 0,
    };
    for file in files {
        run.visit(file, true);
    }
    run.status
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Report {
    Nothing,
    Changes,
    Everything,
}

struct Run<'a, 'b> {
    io: &'a mut Io<'b>,
    prog: String,
    tool: Tool,
    owner: Owner,
    report: Report,
    silent: bool,
    recursive: bool,
    follow: Traverse,
    status: i32,
}

/// Which symlinks a run follows (GNU's -P, -H, -L).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Traverse {
    /// None: a symlink is changed itself and never walked into.
    Physical,
    /// Those named on the command line.
    CommandLine,
    /// All.
    Logical,
}

impl Run<'_, '_> {
    fn visit(&mut self, path: &str, command_line: bool) {
        let follow = match self.follow {
            Traverse::Physical => false,
            Traverse::CommandLine => command_line,
            Traverse::Logical => true,
        };
        let st = match hostcalls::stat(path, follow) {
            Ok(st) => st,
            Err(e) => {
                if !self.silent {
                    let _ = writeln!(
                        self.io.err,
                        "{}: cannot access {}: {}",
                        self.prog,
                        quote::shell_always(path),
                        sys::strerror(&e)
                    );
                }
                self.status = 1;
                return;
            }
        };
        self.describe(path, st.uid, st.gid);
        if self.recursive && st.is_dir() {
            let mut names: Vec<String> = match std::fs::read_dir(path) {
                Ok(rd) => rd
                    .flatten()
                    .map(|e| e.file_name().to_string_lossy().into_owned())
                    .collect(),
                Err(_) => return,
            };
            names.sort();
            for name in names {
                self.visit(&format!("{}/{name}", path.trim_end_matches('/')), false);
            }
        }
    }

    /// GNU's `-v`/`-c` line. The file keeps its owner (ownership is not modelled), but the
    /// line says what GNU says after a successful change.
    fn describe(&mut self, path: &str, uid: u32, gid: u32) {
        if self.report == Report::Nothing {
            return;
        }
        let names = |user: Option<u32>, group: Option<u32>| match (user, group) {
            (Some(u), Some(g)) => format!("{}:{}", sys::user_name(u), sys::group_name(g)),
            (Some(u), None) => sys::user_name(u),
            (None, Some(g)) => sys::group_name(g),
            (None, None) => String::new(),
        };
        let old = names(self.owner.user.map(|_| uid), self.owner.group.map(|_| gid));
        let new = names(self.owner.user, self.owner.group);
        let what = match self.tool {
            Tool::Chown => "ownership",
            Tool::Chgrp => "group",
        };
        let q = quote::shell_always(path);
        let changed =
            self.owner.user.is_some_and(|u| u != uid) || self.owner.group.is_some_and(|g| g != gid);
        let _ = if changed {
            writeln!(self.io.out, "changed {what} of {q} from {old} to {new}")
        } else if self.report == Report::Everything {
            if new.is_empty() {
                writeln!(self.io.out, "{what} of {q} retained")
            } else {
                writeln!(self.io.out, "{what} of {q} retained as {new}")
            }
        } else {
            Ok(())
        };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn specs_name_users_and_groups_or_numbers() {
        // Natively the host's /etc/passwd is read; root is on every Linux machine.
        assert_eq!(
            parse_chown_spec("root"),
            Ok(Owner {
                user: Some(0),
                group: None
            })
        );
        assert_eq!(
            parse_chown_spec("root:root"),
            Ok(Owner {
                user: Some(0),
                group: Some(0)
            })
        );
        assert_eq!(
            parse_chown_spec(":0"),
            Ok(Owner {
                user: None,
                group: Some(0)
            })
        );
        assert_eq!(parse_chown_spec("1234:5678").unwrap().user, Some(1234));
        assert_eq!(parse_chown_spec("no-such-user-x"), Err("invalid user"));
        assert_eq!(
            parse_chown_spec("root:no-such-group-x"),
            Err("invalid group")
        );
        assert_eq!(parse_chown_spec("").unwrap(), Owner::default());
        assert_eq!(parse_chown_spec(":").unwrap(), Owner::default());
    }
}
