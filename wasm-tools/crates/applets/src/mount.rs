//! `mount` (util-linux 2.37.2) as it answers inside upstream's container: with no operand it
//! lists the mount table (`/proc/self/mounts`, which the base system holds: the overlay root,
//! Docker's `/dev`, `/proc` and `/sys` mounts, the bound `/etc/hosts`…) as
//! `SOURCE on TARGET type TYPE (OPTIONS)`, filtered by `-t`; `-a` finds nothing to mount in
//! the image's empty `/etc/fstab`. Mounting anything fails as in a container without
//! `CAP_SYS_ADMIN`: `mount: /mnt: permission denied.`, status 32.

use crate::common::Io;
use crate::common::getopt::{self, Config, OptSpec};
use crate::common::io::{prog, run_main, usage};
use std::ffi::OsString;

/// util-linux's status for a failed mount.
const MOUNT_FAILED: i32 = 32;

pub fn main(args: Vec<OsString>) -> i32 {
    run_main(args, mount)
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum K {
    All,
    Types,
    Help,
    Version,
    /// Options that change nothing here (labels, verbosity, mtab handling, mount flags).
    Ignored,
}

const SPECS: &[OptSpec<K>] = &[
    getopt::flag('a', "all", K::All),
    getopt::with_arg('t', "types", K::Types),
    getopt::flag('h', "help", K::Help),
    getopt::flag('V', "version", K::Version),
    getopt::flag('l', "show-labels", K::Ignored),
    getopt::flag('v', "verbose", K::Ignored),
    getopt::flag('f', "fake", K::Ignored),
    getopt::flag('F', "fork", K::Ignored),
    getopt::flag('n', "no-mtab", K::Ignored),
    getopt::flag('r', "read-only", K::Ignored),
    getopt::flag('w', "rw", K::Ignored),
    getopt::flag('s', "", K::Ignored),
    getopt::flag('i', "internal-only", K::Ignored),
    getopt::flag('c', "no-canonicalize", K::Ignored),
    getopt::flag('B', "bind", K::Ignored),
    getopt::flag('M', "move", K::Ignored),
    getopt::flag('R', "rbind", K::Ignored),
    getopt::with_arg('o', "options", K::Ignored),
    getopt::with_arg('O', "test-opts", K::Ignored),
    getopt::with_arg('L', "label", K::Ignored),
    getopt::with_arg('U', "uuid", K::Ignored),
    getopt::with_arg('T', "fstab", K::Ignored),
    getopt::with_arg('N', "namespace", K::Ignored),
    getopt::long_arg("source", K::Ignored),
    getopt::long_arg("target", K::Ignored),
];

/// One line of the mount table.
struct Mounted {
    source: String,
    target: String,
    fstype: String,
    options: String,
}

/// The mounts `/proc/self/mounts` lists, or the table `df` knows when that file is gone.
fn mount_table() -> Vec<Mounted> {
    match std::fs::read_to_string("/proc/self/mounts") {
        Ok(text) => text
            .lines()
            .filter_map(|line| {
                let mut fields = line.split(' ');
                Some(Mounted {
                    source: fields.next()?.to_string(),
                    target: fields.next()?.to_string(),
                    fstype: fields.next()?.to_string(),
                    options: fields.next()?.to_string(),
                })
            })
            .collect(),
        Err(_) => crate::df::mounts()
            .into_iter()
            .map(|m| Mounted {
                source: m.source,
                target: m.target,
                fstype: m.fstype,
                options: "rw".into(),
            })
            .collect(),
    }
}

/// Whether `fstype` passes a `-t` list: `a,b` keeps those types, `noa,nob` (every entry
/// prefixed) keeps all others.
fn type_matches(list: &str, fstype: &str) -> bool {
    let entries: Vec<&str> = list.split(',').filter(|t| !t.is_empty()).collect();
    if !entries.is_empty() && entries.iter().all(|t| t.starts_with("no")) {
        return !entries.iter().any(|t| &t[2..] == fstype);
    }
    entries
        .iter()
        .any(|t| *t == fstype || t.strip_prefix("no") == Some(fstype))
        && !entries.iter().any(|t| t.strip_prefix("no") == Some(fstype))
}

fn mount(args: &[String], io: &mut Io) -> i32 {
    let prog = prog(args, "mount");
    let parsed = match getopt::parse(args, SPECS, Config::default()) {
        Ok(p) => p,
        Err(message) => return usage(io, &prog, &message),
    };
    let mut types = None;
    let mut all = false;
    for opt in &parsed.opts {
        match opt.key {
            K::Help => {
                let _ = writeln!(
                    io.out,
                    "\nUsage:\n {prog} [-lhV]\n {prog} -a [options]\n {prog} [options] \
                     [--source] <source> | [--target] <directory>\n {prog} [options] <source> \
                     <directory>\n {prog} <operation> <mountpoint> [<target>]\n\nMount a \
                     filesystem."
                );
                return 0;
            }
            K::Version => {
                let _ = writeln!(
                    io.out,
                    "{prog} from util-linux 2.37.2 (libmount 2.37.2: selinux, smack, btrfs, \
                     verity, namespaces, assert, debug)"
                );
                return 0;
            }
            K::Types => types = opt.arg.clone(),
            K::All => all = true,
            K::Ignored => {}
        }
    }
    match parsed.operands.as_slice() {
        // The image's /etc/fstab names nothing to mount.
        [] if all => 0,
        [] => {
            for m in mount_table() {
                if types.as_deref().is_none_or(|t| type_matches(t, &m.fstype)) {
                    let _ = writeln!(
                        io.out,
                        "{} on {} type {} ({})",
                        m.source, m.target, m.fstype, m.options
                    );
                }
            }
            0
        }
        [one] => {
            let _ = writeln!(io.err, "{prog}: {one}: can't find in /etc/fstab.");
            1
        }
        [_source, target, ..] => {
            // libmount names the target as it resolved it, and makes its lock directory on
            // the way.
            let _ = std::fs::create_dir("/run/mount");
            let (target, why) = if hostcalls::stat(target, true).is_err() {
                (target.clone(), "mount point does not exist.".to_string())
            } else {
                // mount(2) checks the capability before it looks at the source.
                (
                    crate::df::absolute(target),
                    "permission denied.".to_string(),
                )
            };
            let _ = writeln!(io.err, "{prog}: {target}: {why}");
            MOUNT_FAILED
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn type_lists_keep_and_drop_as_libmount_does() {
        assert!(type_matches("tmpfs", "tmpfs"));
        assert!(!type_matches("smbfs,cifs", "overlay"));
        assert!(type_matches("smbfs,cifs", "cifs"));
        assert!(type_matches("notmpfs,noproc", "overlay"));
        assert!(!type_matches("notmpfs,noproc", "proc"));
    }
}
