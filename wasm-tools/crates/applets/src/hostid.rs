//! `hostid` (coreutils 8.32).

use crate::common::Io;
use crate::common::io::{prog, run_main};
use std::ffi::OsString;

/// `hostid` (coreutils 8.32): glibc's `gethostid` without `/etc/hostid` takes the IPv4
/// address the hostname resolves to in the episode's `/etc/hosts` and swaps its 16-bit halves
/// (0 when the name does not resolve).
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
    let addr = host_address().map_or(0, u32::from_le_bytes);
    let _ = writeln!(io.out, "{:08x}", addr.rotate_left(16));
    0
}

/// The first IPv4 address `/etc/hosts` gives the machine's hostname.
fn host_address() -> Option<[u8; 4]> {
    let name = crate::common::sys::hostname();
    let hosts = std::fs::read_to_string("/etc/hosts").ok()?;
    hosts.lines().find_map(|line| {
        let line = line.split('#').next().unwrap_or_default();
        let mut fields = line.split_whitespace();
        let addr: std::net::Ipv4Addr = fields.next()?.parse().ok()?;
        fields.any(|n| n == name).then(|| addr.octets())
    })
}
