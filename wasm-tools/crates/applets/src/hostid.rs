//! `hostid` (coreutils 8.32).

use crate::common::Io;
use crate::common::io::{prog, run_main};
use std::ffi::OsString;

/// `hostid` (coreutils 8.32): glibc's `gethostid` without `/etc/hostid` takes the IPv4
/// address the hostname resolves to (127.0.1.1 in the episode's `/etc/hosts`) and swaps its
/// 16-bit halves.
pub fn main(args: Vec<OsString>) -> i32 {
    run_main(args, hostid)
}

fn hostid(args: &[String], io: &mut Io) -> i32 {
    let prog = prog(args, "hostid");
    if let Some(extra) = args.get(1) {
        let _ = writeln!(
            io.err,
            "{prog}: extra operand '{extra}'\nTry '{prog} --help' for more information."
        );
        return 1;
    }
    let addr = u32::from_le_bytes([127, 0, 1, 1]);
    let _ = writeln!(io.out, "{:08x}", addr.rotate_left(16));
    0
}
