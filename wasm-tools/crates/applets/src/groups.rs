//! `groups` (GNU coreutils 8.32) over the episode's `/etc/passwd` and `/etc/group`: with no
//! operand, the groups of the current process (root's in the sandbox); with users,
//! `USER : GROUPS` per user.

use crate::common::io::{prog, run_main};
use crate::common::{Io, quote, sys};
use gnu::usage;
use std::ffi::OsString;

pub fn main(args: Vec<OsString>) -> i32 {
    run_main(args, run)
}

/// The primary group, then every group listing the user as a member, in file order by id.
fn groups_of(user: &str, primary: u32) -> Vec<String> {
    let db = sys::group();
    let mut ids = vec![primary];
    let mut members: Vec<(&u32, &Vec<String>)> = db.members.iter().collect();
    members.sort_by_key(|(id, _)| **id);
    for (id, names) in members {
        if names.iter().any(|n| n == user) && !ids.contains(id) {
            ids.push(*id);
        }
    }
    ids.into_iter().map(sys::group_name).collect()
}

fn run(args: &[String], io: &mut Io) -> i32 {
    let prog = prog(args, "groups");
    let users: Vec<&String> = args.iter().skip(1).filter(|a| *a != "--").collect();
    if let Some(opt) = users.iter().find(|a| a.starts_with('-') && a.len() > 1) {
        let msg = match opt.strip_prefix("--") {
            Some(_) => usage::unrecognized_option(opt),
            None => usage::invalid_option(&opt[1..2]),
        };
        let _ = io.err.write_all(usage::report(&prog, &msg).as_bytes());
        return 1;
    }
    if users.is_empty() {
        let me = sys::user_name(sys::euid());
        let _ = writeln!(io.out, "{}", groups_of(&me, sys::egid()).join(" "));
        return 0;
    }
    let mut status = 0;
    for user in users {
        match sys::passwd().gid_of.get(user.as_str()) {
            Some(&gid) => {
                let _ = writeln!(io.out, "{user} : {}", groups_of(user, gid).join(" "));
            }
            None => {
                let _ = writeln!(
                    io.err,
                    "{prog}: {}: no such user",
                    quote::shell_always(user)
                );
                status = 1;
            }
        }
    }
    status
}
