//! `mountpoint` (util-linux 2.37.2), over the mounts of upstream's container, the table `df`
//! shows: the root overlay, `/proc`, `/dev` and its `pts`, `shm` and `mqueue`, `/sys` and its
//! cgroup tree, and `/etc/hosts`, `/etc/hostname` and `/etc/resolv.conf` bound in. Nothing
//! else is a mount point (`mountpoint /testbed` says so, status 32), and there are no block
//! devices.

use crate::common::Io;
use crate::common::getopt::{self, OptSpec};
use crate::common::io::{prog, run_main};
use crate::common::sys;
use std::ffi::OsString;

/// util-linux's status for "not a mount point" (and "not a block device").
const NOT_A_MOUNTPOINT: i32 = 32;

pub fn main(args: Vec<OsString>) -> i32 {
    run_main(args, mountpoint)
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum K {
    Quiet,
    Nofollow,
    FsDevno,
    DevNo,
    Version,
}

const SPECS: &[OptSpec<K>] = &[
    getopt::flag('q', "quiet", K::Quiet),
    getopt::long_flag("nofollow", K::Nofollow),
    getopt::flag('d', "fs-devno", K::FsDevno),
    getopt::flag('x', "devno", K::DevNo),
    getopt::flag('V', "version", K::Version),
];

fn mountpoint(args: &[String], io: &mut Io) -> i32 {
    let prog = prog(args, "mountpoint");
    let usage = |io: &mut Io, message: &str| {
        let _ = io
            .err
            .write_all(gnu::usage::report(&prog, message).as_bytes());
        1
    };
    let parsed = match getopt::parse(args, SPECS, getopt::Config::default()) {
        Ok(p) => p,
        Err(message) => return usage(io, &message),
    };
    let has = |k: K| parsed.opts.iter().any(|o| o.key == k);
    if has(K::Version) {
        let _ = writeln!(io.out, "{prog} from util-linux 2.37.2");
        return 0;
    }
    let [path] = parsed.operands.as_slice() else {
        return usage(io, "bad usage");
    };
    let quiet = has(K::Quiet);
    let follow = !has(K::Nofollow);
    let st = match hostcalls::stat(path, follow) {
        Ok(st) => st,
        Err(e) => {
            if !quiet {
                let _ = writeln!(io.err, "{prog}: {path}: {}", sys::strerror(&e));
            }
            return 1;
        }
    };
    if has(K::DevNo) {
        if !quiet {
            let _ = writeln!(io.err, "{prog}: {path}: not a block device");
        }
        return NOT_A_MOUNTPOINT;
    }
    let resolved = crate::df::absolute(path);
    let mounted = crate::df::mounts().iter().any(|m| m.target == resolved);
    if has(K::FsDevno) && mounted {
        let major = (st.dev >> 8) & 0xfff;
        let minor = (st.dev & 0xff) | ((st.dev >> 12) & 0xfff00);
        let _ = writeln!(io.out, "{major}:{minor}");
        return 0;
    }
    if !quiet {
        let not = if mounted { "" } else { "not " };
        let _ = writeln!(io.out, "{path} is {not}a mountpoint");
    }
    if mounted { 0 } else { NOT_A_MOUNTPOINT }
}
