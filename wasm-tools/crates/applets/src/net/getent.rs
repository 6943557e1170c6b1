//! `getent` (glibc 2.35's, Ubuntu 22.04) over the files of this machine: `passwd`, `group`,
//! `hosts`, `ahosts`/`ahostsv4`/`ahostsv6`, `networks`.
//!
//! Name service is `files` only in effect: DNS cannot be reached, so a name `/etc/hosts`
//! lacks is simply not found (exit 2). Records are printed re-assembled from their fields, as
//! glibc does (so stray blanks or comments in the files do not show through).

use super::world::{self, HostEntry};
use crate::common::Io;
use crate::common::io::run_main;
use std::ffi::OsString;
use std::net::IpAddr;

pub fn main(args: Vec<OsString>) -> i32 {
    run_main(args, run)
}

const TRY: &str = "Try `getent --help' or `getent --usage' for more information.";

/// glibc's status when a key is not found.
const NOT_FOUND: i32 = 2;

pub fn run(args: &[String], io: &mut Io) -> i32 {
    let mut rest: Vec<&String> = Vec::new();
    for a in &args[1.min(args.len())..] {
        match a.as_str() {
            "--help" | "-?" => {
                let _ = writeln!(
                    io.out,
                    "Usage: getent [OPTION...] database [key ...]\nGet entries from administrative database."
                );
                return 0;
            }
            "--usage" => {
                let _ = writeln!(
                    io.out,
                    "Usage: getent [-i?V] [-s CONFIG] [--no-idn] [--service=CONFIG] [--help]\n            [--usage] [--version] database [key ...]"
                );
                return 0;
            }
            "-V" | "--version" => {
                let _ = writeln!(io.out, "getent (Ubuntu GLIBC 2.35-0ubuntu3.1) 2.35");
                return 0;
            }
            "-i" | "--no-idn" => {}
            s if s.starts_with('-') && s.len() > 1 && rest.is_empty() => {
                let _ = writeln!(
                    io.err,
                    "getent: invalid option -- '{}'\n{TRY}",
                    s.trim_start_matches('-').chars().next().unwrap_or('-')
                );
                return 64;
            }
            _ => rest.push(a),
        }
    }
    let Some(db) = rest.first() else {
        // glibc sends the hint to standard output.
        let _ = writeln!(io.err, "getent: wrong number of arguments");
        let _ = writeln!(io.out, "{TRY}");
        return 1;
    };
    let keys: Vec<&str> = rest[1..].iter().map(|s| s.as_str()).collect();
    match db.as_str() {
        "passwd" => records(io, "/etc/passwd", 7, &keys, passwd_line),
        "group" => records(io, "/etc/group", 4, &keys, group_line),
        "hosts" => hosts(io, &keys),
        "ahosts" => ahosts(io, &keys, world::Family::Any),
        "ahostsv4" => ahosts(io, &keys, world::Family::V4),
        "ahostsv6" => ahosts(io, &keys, world::Family::V6),
        "networks" => networks(io, &keys),
        other => {
            let _ = writeln!(io.err, "Unknown database: {other}");
            let _ = writeln!(io.out, "{TRY}");
            1
        }
    }
}

/// Colon-separated records of a file with at least `fields` fields (missing trailing ones
/// read as empty, as the files backend parses them).
fn read_records(path: &str, fields: usize) -> Vec<Vec<String>> {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    text.lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .filter_map(|l| {
            let mut f: Vec<String> = l.split(':').map(String::from).collect();
            if f.len() < 3 || f[2].parse::<u32>().is_err() {
                return None;
            }
            f.resize(fields.max(f.len()), String::new());
            f.truncate(fields);
            Some(f)
        })
        .collect()
}

fn passwd_line(f: &[String]) -> String {
    f.join(":")
}

fn group_line(f: &[String]) -> String {
    f.join(":")
}

/// `passwd`/`group`: all records, or the first match of each key (a number is an id, as
/// `getpwuid` takes it; otherwise a name).
fn records(
    io: &mut Io,
    path: &str,
    fields: usize,
    keys: &[&str],
    fmt: fn(&[String]) -> String,
) -> i32 {
    let recs = read_records(path, fields);
    if keys.is_empty() {
        for r in &recs {
            let _ = writeln!(io.out, "{}", fmt(r));
        }
        return 0;
    }
    let mut status = 0;
    for k in keys {
        let hit = match k.parse::<u32>() {
            Ok(id) => recs.iter().find(|r| r[2].parse::<u32>() == Ok(id)),
            Err(_) => recs.iter().find(|r| r[0] == *k),
        };
        match hit {
            Some(r) => {
                let _ = writeln!(io.out, "{}", fmt(r));
            }
            None => status = NOT_FOUND,
        }
    }
    status
}

/// One `hosts` line per address: `%-15s name aliases`.
fn print_host(io: &mut Io, addrs: &[IpAddr], name: &str, aliases: &[String]) {
    for a in addrs {
        let mut line = format!("{:<15} {name}", a.to_string());
        for al in aliases {
            line.push(' ');
            line.push_str(al);
        }
        let _ = writeln!(io.out, "{line}");
    }
}

/// What `gethostbyname2` answers from `/etc/hosts` with `multi on` (Ubuntu's host.conf): the
/// first matching line's name, every matching address of the family, all their aliases.
fn by_name(
    entries: &[HostEntry],
    key: &str,
    v6: bool,
) -> Option<(Vec<IpAddr>, String, Vec<String>)> {
    let hits: Vec<&HostEntry> = entries
        .iter()
        .filter(|e| e.names(key) && e.addr.is_ipv6() == v6)
        .collect();
    let first = hits.first()?;
    let addrs = hits.iter().map(|e| e.addr).collect();
    let mut aliases: Vec<String> = first.aliases.clone();
    // Later lines contribute their canonical name and aliases.
    for e in &hits[1..] {
        for a in std::iter::once(&e.name).chain(e.aliases.iter()) {
            if *a != first.name && !aliases.contains(a) {
                aliases.push(a.clone());
            }
        }
    }
    Some((addrs, first.name.clone(), aliases))
}

fn hosts(io: &mut Io, keys: &[&str]) -> i32 {
    let entries = world::hosts();
    if keys.is_empty() {
        // Enumeration asks for IPv4: glibc reads `::1` as 127.0.0.1 and drops other IPv6
        // lines.
        for e in &entries {
            let addr = match e.addr {
                IpAddr::V6(v6) if v6.is_loopback() => world::LOOPBACK_V4,
                IpAddr::V6(_) => continue,
                v4 => v4,
            };
            print_host(io, &[addr], &e.name, &e.aliases);
        }
        return 0;
    }
    let mut status = 0;
    for k in keys {
        let found = if let Some(a) = world::parse_numeric(k).filter(|_| !k.starts_with('[')) {
            entries
                .iter()
                .find(|e| e.addr == a)
                .map(|e| (vec![a], e.name.clone(), e.aliases.clone()))
        } else {
            by_name(&entries, k, true).or_else(|| by_name(&entries, k, false))
        };
        match found {
            Some((addrs, name, aliases)) => print_host(io, &addrs, &name, &aliases),
            None => status = NOT_FOUND,
        }
    }
    status
}

/// `ahosts`: `getaddrinfo` with `AI_ADDRCONFIG`, which resolves no *name* on a machine whose
/// only interface is loopback (no address of either family is "configured"); with no family
/// asked for, numeric addresses still come back, canonical name and all.
fn ahosts(io: &mut Io, keys: &[&str], family: world::Family) -> i32 {
    if keys.is_empty() {
        return hosts(io, keys);
    }
    let mut status = 0;
    for k in keys {
        let addr = world::parse_numeric(k).filter(|_| family == world::Family::Any);
        let Some(a) = addr else {
            status = NOT_FOUND;
            continue;
        };
        for (t, ty) in ["STREAM", "DGRAM", "RAW"].iter().enumerate() {
            let name = if t == 0 { *k } else { "" };
            let _ = writeln!(io.out, "{:<15} {ty:<6} {name}", a.to_string());
        }
    }
    status
}

/// `networks`: `name<padding>address` lines from `/etc/networks`.
fn networks(io: &mut Io, keys: &[&str]) -> i32 {
    let text = std::fs::read_to_string("/etc/networks").unwrap_or_default();
    let nets: Vec<(String, String)> = text
        .lines()
        .filter_map(|l| {
            let l = l.split('#').next().unwrap_or("");
            let mut f = l.split_ascii_whitespace();
            Some((f.next()?.to_string(), f.next()?.to_string()))
        })
        .collect();
    let show = |io: &mut Io, (name, addr): &(String, String)| {
        let _ = writeln!(io.out, "{name:<21} {addr}");
    };
    if keys.is_empty() {
        for n in &nets {
            show(io, n);
        }
        return 0;
    }
    let mut status = 0;
    for k in keys {
        match nets.iter().find(|(n, a)| n == k || a == k) {
            Some(n) => show(io, n),
            None => status = NOT_FOUND,
        }
    }
    status
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn multi_on_merges_lines() {
        let e = world::parse_hosts("127.0.0.1 localhost\n127.0.1.1 box b\n10.0.0.1 box c\n");
        let (addrs, name, aliases) = by_name(&e, "box", false).unwrap();
        assert_eq!(addrs.len(), 2);
        assert_eq!(name, "box");
        assert_eq!(aliases, vec!["b", "c"]);
    }
}
