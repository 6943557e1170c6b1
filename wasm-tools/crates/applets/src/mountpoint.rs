//! `mountpoint` (util-linux 2.37.2), over the mounts of upstream's container: Docker mounts
//! the root overlay, `/proc`, `/dev` and its `pts`, `shm` and `mqueue`, `/sys` and its cgroup
//! tree, and binds `/etc/hosts`, `/etc/hostname` and `/etc/resolv.conf` in. Nothing else is a
//! mount point (`mountpoint /testbed` says so, status 32), and there are no block devices.

use crate::common::Io;
use crate::common::getopt::{self, OptSpec};
use crate::common::io::{prog, run_main};
use crate::common::sys;
use std::ffi::OsString;

/// Where Docker mounted something in upstream's container.
const MOUNTS: &[&str] = &[
    "/",
    "/proc",
    "/dev",
    "/dev/pts",
    "/dev/shm",
    "/dev/mqueue",
    "/sys",
    "/sys/fs/cgroup",
    "/etc/hosts",
    "/etc/hostname",
    "/etc/resolv.conf",
];

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
        let _ = writeln!(
            io.err,
            "{prog}: {message}\nTry '{prog} --help' for more information."
        );
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
    let resolved = absolute(path);
    let mounted = MOUNTS.contains(&resolved.as_str());
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

/// `path` against the working directory, with `.`, `..` and repeated slashes resolved by name.
fn absolute(path: &str) -> String {
    let joined = if path.starts_with('/') {
        path.to_string()
    } else {
        format!("{}/{path}", crate::common::exec::current_dir())
    };
    let mut parts: Vec<&str> = Vec::new();
    for part in joined.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                parts.pop();
            }
            name => parts.push(name),
        }
    }
    format!("/{}", parts.join("/"))
}

#[cfg(test)]
mod tests {
    use super::absolute;

    #[test]
    fn paths_are_resolved_by_name() {
        assert_eq!(absolute("/proc/"), "/proc");
        assert_eq!(absolute("/etc/../dev//pts"), "/dev/pts");
        assert_eq!(absolute("/.."), "/");
    }
}
