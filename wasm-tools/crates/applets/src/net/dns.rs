//! `dig`, `host` and `nslookup` (BIND 9.18.12, Ubuntu 22.04) with no reachable name server.
//!
//! Two outcomes exist, both taken from BIND 9.18.12's `bin/dig/dighost.c`:
//! * the server is off this host: sending fails at once, and each try prints
//!   `;; UDP setup with S#53(S) for NAME failed: network unreachable.` — and nothing else
//!   (the summary line for this case only arrived in 9.18.21);
//! * the server is on loopback (`@127.0.0.1`): nothing listens, each try prints
//!   `;; communications error to S#53: connection refused`, then dig prints its greeting (the
//!   "command line" banner, if it was built) and `;; no servers could be reached` plus an
//!   empty line, as upstream's logs show.
//!
//! In 9.18.12 all three tools print these diagnostics on standard output. Tries: dig 3,
//! host 2, nslookup 3. Exit statuses: dig 9, host and nslookup 1.

use super::world::{self, Reach};
use crate::common::Io;
use crate::common::io::run_main;
use std::ffi::OsString;
use std::net::IpAddr;

pub const BIND_VERSION: &str = "9.18.12-0ubuntu0.22.04.1-Ubuntu";

pub fn dig_main(args: Vec<OsString>) -> i32 {
    run_main(args, dig)
}
pub fn host_main(args: Vec<OsString>) -> i32 {
    run_main(args, host)
}
pub fn nslookup_main(args: Vec<OsString>) -> i32 {
    run_main(args, nslookup)
}

/// One query to run: the name as BIND prints it and the servers to ask.
struct Lookup {
    name: String,
    servers: Vec<Server>,
}

#[derive(Clone)]
struct Server {
    /// As given (`8.8.8.8`, a host name); BIND's `servname`.
    name: String,
    addr: IpAddr,
}

impl Server {
    /// BIND's socket-address format: `8.8.8.8#53`, `::1#53`.
    fn sockaddr(&self, port: u16) -> String {
        format!("{}#{port}", self.addr)
    }
}

/// The server from `/etc/resolv.conf`.
fn default_server() -> Server {
    let name = world::nameserver();
    let addr = name.parse().unwrap_or(world::LOOPBACK_V4);
    Server { name, addr }
}

/// A server named on the command line: an address, or a name `/etc/hosts` knows.
fn named_server(name: &str) -> Option<Server> {
    let addrs = world::resolve(name, world::Family::Any);
    let addr = addrs
        .iter()
        .find(|a| a.is_ipv4())
        .or(addrs.first())
        .copied()?;
    Some(Server {
        name: name.to_string(),
        addr,
    })
}

/// The reverse name BIND builds for `-x` and for address arguments, with its final dot.
fn reverse_fqdn(name: &str) -> Option<String> {
    let a: IpAddr = name.parse().ok()?;
    Some(format!("{}.", world::reverse_name(&a)))
}

/// How one lookup failed, in BIND's words.
enum Failure {
    /// UDP setup failed on every try (no summary line in 9.18.12).
    Setup,
    /// Every try was refused; the caller prints its summary.
    Refused,
}

/// Runs a lookup's tries against its first server and prints the per-try lines.
fn attempt(l: &Lookup, tries: u32, port: u16, io: &mut Io) -> Failure {
    let server = &l.servers[0];
    match world::reach(&server.addr) {
        Reach::Unreachable => {
            for _ in 0..tries {
                let _ = writeln!(
                    io.out,
                    ";; UDP setup with {}({}) for {} failed: network unreachable.",
                    server.sockaddr(port),
                    server.name,
                    l.name
                );
            }
            Failure::Setup
        }
        Reach::Refused => {
            for _ in 0..tries {
                let _ = writeln!(
                    io.out,
                    ";; communications error to {}: connection refused",
                    server.sockaddr(port)
                );
            }
            Failure::Refused
        }
    }
}

/// Query types BIND knows by name (for `host -t` and dig's positional types).
const TYPES: &[&str] = &[
    "a",
    "ns",
    "md",
    "mf",
    "cname",
    "soa",
    "mb",
    "mg",
    "mr",
    "null",
    "wks",
    "ptr",
    "hinfo",
    "minfo",
    "mx",
    "txt",
    "rp",
    "afsdb",
    "x25",
    "isdn",
    "rt",
    "nsap",
    "nsap-ptr",
    "sig",
    "key",
    "px",
    "gpos",
    "aaaa",
    "loc",
    "nxt",
    "eid",
    "nimloc",
    "srv",
    "atma",
    "naptr",
    "kx",
    "cert",
    "a6",
    "dname",
    "sink",
    "opt",
    "apl",
    "ds",
    "sshfp",
    "ipseckey",
    "rrsig",
    "nsec",
    "dnskey",
    "dhcid",
    "nsec3",
    "nsec3param",
    "tlsa",
    "smimea",
    "hip",
    "ninfo",
    "rkey",
    "talink",
    "cds",
    "cdnskey",
    "openpgpkey",
    "csync",
    "zonemd",
    "svcb",
    "https",
    "spf",
    "uinfo",
    "uid",
    "gid",
    "unspec",
    "nid",
    "l32",
    "l64",
    "lp",
    "eui48",
    "eui64",
    "tkey",
    "tsig",
    "ixfr",
    "axfr",
    "mailb",
    "maila",
    "any",
    "uri",
    "caa",
    "avc",
    "doa",
    "amtrelay",
    "ta",
    "dlv",
];

fn is_type(s: &str) -> bool {
    let l = s.to_ascii_lowercase();
    TYPES.contains(&l.as_str())
        || l.strip_prefix("type")
            .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
        || l.starts_with("ixfr=")
}

fn is_class(s: &str) -> bool {
    matches!(
        s.to_ascii_lowercase().as_str(),
        "in" | "ch" | "chaos" | "hs" | "hesiod" | "none" | "any"
    )
}

/// dig's `+options` (9.18), for telling known ones from invalid ones.
const DIG_PLUS: &[&str] = &[
    "aaflag",
    "aaonly",
    "additional",
    "adflag",
    "all",
    "answer",
    "authority",
    "badcookie",
    "besteffort",
    "bufsize",
    "cdflag",
    "class",
    "cmd",
    "comments",
    "cookie",
    "crypto",
    "defname",
    "dns64prefix",
    "dnssec",
    "domain",
    "edns",
    "ednsflags",
    "ednsnegotiation",
    "ednsopt",
    "expire",
    "fail",
    "header-only",
    "https",
    "https-get",
    "https-post",
    "http-plain",
    "http-plain-get",
    "http-plain-post",
    "identify",
    "idnin",
    "idnout",
    "ignore",
    "keepalive",
    "keepopen",
    "mapped",
    "multiline",
    "ndots",
    "nsid",
    "nssearch",
    "onesoa",
    "opcode",
    "padding",
    "qid",
    "qr",
    "question",
    "raflag",
    "rdflag",
    "recurse",
    "retry",
    "rrcomments",
    "search",
    "short",
    "showbadcookie",
    "showsearch",
    "sigchase",
    "split",
    "stats",
    "subnet",
    "tcflag",
    "tcp",
    "timeout",
    "tls",
    "topdown",
    "trace",
    "tries",
    "trusted-key",
    "ttlid",
    "ttlunits",
    "unexpected",
    "unknownformat",
    "vc",
    "yaml",
    "zflag",
];

fn dig_usage(io: &mut Io) -> i32 {
    let _ = write!(
        io.err,
        "Usage:  dig [@global-server] [domain] [q-type] [q-class] {{q-opt}}\n            {{global-d-opt}} host [@local-server] {{local-d-opt}}\n            [ host [@local-server] {{local-d-opt}} [...]]\n\nUse \"dig -h\" (or \"dig -h | more\") for complete list of options\n"
    );
    1
}

/// dig's single-dash options that take a value (attached or as the next argument).
const DIG_DASH_VALUE: &str = "bcfkpqtxy";
const DIG_DASH_FLAG: &str = "46dhimnruv";

pub fn dig(args: &[String], io: &mut Io) -> i32 {
    let mut printcmd = true;
    let mut short = false;
    let mut tries = 3u32;
    let mut port = 53u16;
    let mut global_server: Option<Server> = None;
    let mut lookups: Vec<Lookup> = Vec::new();
    let mut greeting: Option<String> = None;
    let mut servers_found = 0usize;
    let mut any_type_seen = false;
    let argv_tail = args.get(1..).unwrap_or(&[]).join(" ");
    let mut i = 1;
    // Builds the banner when the first name is met, with the options seen so far (as
    // `printgreeting` does).
    let greet = |printcmd: bool, short: bool, found: usize| -> Option<String> {
        if !printcmd {
            return None;
        }
        let mut g = format!("\n; <<>> DiG {BIND_VERSION} <<>> {argv_tail}\n");
        if found > 0 {
            g.push_str(&format!(
                "; ({found} server{} found)\n",
                if found > 1 { "s" } else { "" }
            ));
        }
        g.push_str(&format!(
            ";; global options:{} +cmd\n",
            if short { " +short" } else { "" }
        ));
        Some(g)
    };
    let mut first = true;
    while i < args.len() {
        let a = args[i].clone();
        i += 1;
        if let Some(s) = a.strip_prefix('@') {
            let Some(server) = named_server(s) else {
                let _ = io.out.flush();
                let _ = writeln!(io.err, "dig: couldn't get address for '{s}': not found");
                return 10;
            };
            servers_found += 1;
            match lookups.last_mut() {
                Some(l) if !first => l.servers = vec![server],
                _ => global_server = Some(server),
            }
            continue;
        }
        if let Some(opt) = a.strip_prefix('+') {
            let (name, value) = match opt.split_once('=') {
                Some((n, v)) => (n, Some(v)),
                None => (opt, None),
            };
            let lower = name.to_ascii_lowercase();
            let (state, cmd) = match lower.strip_prefix("no") {
                Some(rest) if !DIG_PLUS.contains(&lower.as_str()) => (false, rest.to_string()),
                _ => (true, lower.clone()),
            };
            let known = !cmd.is_empty() && DIG_PLUS.iter().any(|k| k.starts_with(cmd.as_str()));
            if !known {
                let _ = io.out.flush();
                let _ = writeln!(io.err, "Invalid option: +{opt}");
                return dig_usage(io);
            }
            if "short".starts_with(cmd.as_str()) && cmd.len() >= 2 {
                short = state;
                if state {
                    printcmd = false;
                }
            } else if "cmd".starts_with(cmd.as_str()) && cmd.len() >= 2 {
                printcmd = state;
            } else if (("tries".starts_with(cmd.as_str()) && cmd.len() >= 2)
                || ("retry".starts_with(cmd.as_str()) && cmd.len() >= 3))
                && let Some(n) = value.and_then(|v| v.parse::<u32>().ok())
            {
                tries = if cmd.starts_with('t') {
                    n.max(1)
                } else {
                    n + 1
                };
            }
            continue;
        }
        if a.len() > 1 && a.starts_with('-') {
            let c = a.as_bytes()[1] as char;
            if DIG_DASH_VALUE.contains(c) {
                let value = if a.len() > 2 {
                    a[2..].to_string()
                } else if i < args.len() {
                    i += 1;
                    args[i - 1].clone()
                } else {
                    let _ = writeln!(io.err, "Invalid option: {a}");
                    return dig_usage(io);
                };
                match c {
                    'x' | 'q' => {
                        let name = if c == 'x' {
                            reverse_fqdn(&value).unwrap_or(value)
                        } else {
                            value
                        };
                        if first {
                            greeting = greet(printcmd, short, servers_found);
                            first = false;
                        }
                        lookups.push(Lookup {
                            name,
                            servers: Vec::new(),
                        });
                    }
                    'p' => port = value.parse().unwrap_or(53),
                    _ => {}
                }
                continue;
            }
            if a[1..].chars().all(|c| DIG_DASH_FLAG.contains(c)) {
                if c == 'v' {
                    let _ = writeln!(io.err, "DiG {BIND_VERSION}");
                    return 0;
                }
                continue;
            }
            let _ = writeln!(io.err, "Invalid option: {a}");
            return dig_usage(io);
        }
        if !lookups.is_empty() && !any_type_seen && (is_type(&a) || is_class(&a)) {
            any_type_seen = is_type(&a);
            continue;
        }
        if lookups.is_empty() && (is_type(&a) || is_class(&a)) && !a.contains('.') {
            // A type before any name applies to the lookups that follow.
            continue;
        }
        any_type_seen = false;
        if first {
            greeting = greet(printcmd, short, servers_found);
            first = false;
        }
        lookups.push(Lookup {
            name: a,
            servers: Vec::new(),
        });
    }
    if lookups.is_empty() {
        greeting = greet(printcmd, short, servers_found);
        lookups.push(Lookup {
            name: ".".to_string(),
            servers: Vec::new(),
        });
    }
    let fallback = global_server.unwrap_or_else(default_server);
    for l in &mut lookups {
        if l.servers.is_empty() {
            l.servers.push(fallback.clone());
        }
    }
    let mut banner = greeting;
    for l in &lookups {
        if let Failure::Refused = attempt(l, tries, port, io) {
            // The banner belongs to the first lookup only (later ones have none).
            if let Some(b) = banner.take() {
                let _ = write!(io.out, "{b}");
            }
            let _ = writeln!(io.out, ";; no servers could be reached\n");
        } else {
            banner = None;
        }
    }
    9
}

fn host_usage(io: &mut Io) -> i32 {
    let _ = io.err.write_all(
        b"Usage: host [-aCdilrTvVw] [-c class] [-N ndots] [-t type] [-W time]
            [-R number] [-m flag] [-p port] hostname [server]
       -a is equivalent to -v -t ANY
       -A is like -a but omits RRSIG, NSEC, NSEC3
       -c specifies query class for non-IN data
       -C compares SOA records on authoritative nameservers
       -d is equivalent to -v
       -l lists all hosts in a domain, using AXFR
       -m set memory debugging flag (trace|record|usage)
       -N changes the number of dots allowed before root lookup is done
       -p specifies the port on the server to query
       -r disables recursive processing
       -R specifies number of retries for UDP packets
       -s a SERVFAIL response should stop query
       -t specifies the query type
       -T enables TCP/IP mode
       -U enables UDP mode
       -v enables verbose output
       -V print version number and exit
       -w specifies to wait forever for a reply
       -W specifies how long to wait for a reply
       -4 use IPv4 query transport only
       -6 use IPv6 query transport only
",
    );
    1
}

pub fn host(args: &[String], io: &mut Io) -> i32 {
    let mut tries = 2u32;
    let mut verbose = false;
    let mut port = 53u16;
    let mut operands = Vec::new();
    let mut i = 1;
    while i < args.len() {
        let a = &args[i];
        i += 1;
        if a.len() < 2 || !a.starts_with('-') {
            operands.push(a.clone());
            continue;
        }
        let chars: Vec<char> = a[1..].chars().collect();
        let mut k = 0;
        while k < chars.len() {
            let c = chars[k];
            k += 1;
            if "ctmNRpW".contains(c) {
                let value = if k < chars.len() {
                    let v: String = chars[k..].iter().collect();
                    k = chars.len();
                    v
                } else if i < args.len() {
                    i += 1;
                    args[i - 1].clone()
                } else {
                    return host_usage(io);
                };
                match c {
                    't' if !is_type(&value) => {
                        let _ = writeln!(io.err, "host: invalid type: {value}\n");
                        return 1;
                    }
                    'c' if !is_class(&value) => {
                        let _ = writeln!(io.err, "host: invalid class: {value}\n");
                        return 1;
                    }
                    'R' => {
                        let n: i64 = value.parse().unwrap_or(0);
                        tries = (n + 1).clamp(2, u32::MAX as i64) as u32;
                    }
                    'p' => port = value.parse().unwrap_or(53),
                    _ => {}
                }
                continue;
            }
            match c {
                'v' | 'd' | 'a' | 'A' => verbose = true,
                'V' => {
                    let _ = writeln!(io.out, "host {BIND_VERSION}");
                    return 0;
                }
                'l' | 'i' | 'r' | 'T' | 'U' | 'w' | 'C' | 's' | '4' | '6' => {}
                _ => return host_usage(io),
            }
        }
    }
    let Some(target) = operands.first() else {
        return host_usage(io);
    };
    let server = match operands.get(1) {
        Some(s) => match named_server(s) {
            Some(sv) => sv,
            None => {
                let _ = writeln!(io.err, "host: couldn't get address for '{s}': not found");
                return 1;
            }
        },
        None => default_server(),
    };
    let name = reverse_fqdn(target).unwrap_or_else(|| target.clone());
    let lookup = Lookup {
        name,
        servers: vec![server],
    };
    if verbose {
        let _ = writeln!(io.out, "Trying \"{}\"", lookup.name.trim_end_matches('.'));
    }
    if let Failure::Refused = attempt(&lookup, tries, port, io) {
        let _ = writeln!(io.out, ";; no servers could be reached\n");
    }
    1
}

pub fn nslookup(args: &[String], io: &mut Io) -> i32 {
    let mut operands = Vec::new();
    let mut tries = 3u32;
    let mut port = 53u16;
    for a in &args[1.min(args.len())..] {
        if let Some(opt) = a.strip_prefix('-').filter(|o| !o.is_empty()) {
            let lower = opt.to_ascii_lowercase();
            if lower == "version" {
                let _ = writeln!(io.out, "nslookup {BIND_VERSION}");
                return 0;
            }
            if let Some(v) = ["retry=", "ret="]
                .iter()
                .find_map(|p| lower.strip_prefix(p))
            {
                if let Ok(n) = v.parse::<u32>() {
                    tries = n.max(1);
                }
                continue;
            }
            if let Some(v) = ["port=", "po="].iter().find_map(|p| lower.strip_prefix(p)) {
                port = v.parse().unwrap_or(53);
                continue;
            }
            if !nslookup_option_known(&lower) {
                let _ = writeln!(io.out, "*** Invalid option: {opt}");
            }
            continue;
        }
        operands.push(a.clone());
    }
    let names: Vec<String> = if operands.is_empty() {
        // Without a host argument nslookup reads commands from standard input.
        let mut input = String::new();
        let _ = io.stdin.read_to_string(&mut input);
        input
            .lines()
            .map(str::trim)
            .filter(|l| !l.is_empty())
            .map(String::from)
            .collect()
    } else {
        vec![operands[0].clone()]
    };
    let server = match operands.get(1) {
        Some(s) => match named_server(s) {
            Some(sv) => sv,
            None => {
                let _ = writeln!(
                    io.err,
                    "nslookup: couldn't get address for '{s}': not found"
                );
                return 1;
            }
        },
        None => default_server(),
    };
    for n in names {
        let name = reverse_fqdn(&n).unwrap_or(n);
        let lookup = Lookup {
            name,
            servers: vec![server.clone()],
        };
        if let Failure::Refused = attempt(&lookup, tries, port, io) {
            let _ = writeln!(io.out, ";; no servers could be reached\n");
        }
    }
    let _ = writeln!(io.out);
    1
}

/// nslookup's `-option[=value]` names (9.18.12 `setoption`).
fn nslookup_option_known(opt: &str) -> bool {
    let name = opt.split('=').next().unwrap_or(opt);
    let with_value = opt.contains('=');
    const VALUED: &[&str] = &[
        "class",
        "cl",
        "type",
        "ty",
        "querytype",
        "query",
        "qu",
        "q",
        "domain",
        "do",
        "port",
        "po",
        "timeout",
        "t",
        "retry",
        "ret",
        "ndots",
    ];
    const FLAGS: &[&str] = &[
        "all",
        "recurse",
        "rec",
        "norecurse",
        "norec",
        "defname",
        "def",
        "nodefname",
        "nodef",
        "vc",
        "novc",
        "debug",
        "deb",
        "nodebug",
        "nodeb",
        "d2",
        "nod2",
        "search",
        "sea",
        "nosearch",
        "nosea",
        "sil",
        "fail",
        "nofail",
        "fai",
        "nofai",
    ];
    if with_value {
        VALUED.contains(&name)
    } else {
        FLAGS.contains(&name)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn call(f: fn(&[String], &mut Io) -> i32, args: &[&str]) -> (i32, String, String) {
        let argv: Vec<String> = args.iter().map(|s| s.to_string()).collect();
        crate::common::io::capture_text(f, &argv, b"")
    }

    /// Upstream log (gpt-4, fs_4): `dig +short a.in-addr.arpa @127.0.0.1`.
    #[test]
    fn dig_refused_matches_upstream_log() {
        let (code, out, err) = call(dig, &["dig", "+short", "a.in-addr.arpa", "@127.0.0.1"]);
        assert_eq!(code, 9);
        assert_eq!(err, "");
        assert_eq!(
            out,
            ";; communications error to 127.0.0.1#53: connection refused\n\
             ;; communications error to 127.0.0.1#53: connection refused\n\
             ;; communications error to 127.0.0.1#53: connection refused\n\
             ;; no servers could be reached\n\n"
        );
    }

    /// Upstream log: `nslookup +short 127.0.0.1` (the second operand is the server).
    #[test]
    fn nslookup_refused_matches_upstream_log() {
        let (_, out, _) = call(nslookup, &["nslookup", "+short", "127.0.0.1"]);
        assert_eq!(
            out,
            ";; communications error to 127.0.0.1#53: connection refused\n\
             ;; communications error to 127.0.0.1#53: connection refused\n\
             ;; communications error to 127.0.0.1#53: connection refused\n\
             ;; no servers could be reached\n\n\n"
        );
        let (_, out, _) = call(nslookup, &["nslookup", "-s", "8.8.8.8", "127.0.0.1"]);
        assert!(out.starts_with("*** Invalid option: s\n;; communications error to 127.0.0.1#53"));
    }

    /// Upstream log: `host -t a.in-addr.arpa 127.0.0.1`.
    #[test]
    fn host_invalid_type() {
        assert_eq!(
            call(host, &["host", "-t", "a.in-addr.arpa", "127.0.0.1"]),
            (
                1,
                String::new(),
                "host: invalid type: a.in-addr.arpa\n\n".into()
            )
        );
    }

    #[test]
    fn dig_banner_before_refusal() {
        let (_, out, _) = call(dig, &["dig", "@127.0.0.1", "example.com"]);
        assert!(out.ends_with(
            "\n; <<>> DiG 9.18.12-0ubuntu0.22.04.1-Ubuntu <<>> @127.0.0.1 example.com\n\
             ; (1 server found)\n;; global options: +cmd\n;; no servers could be reached\n\n"
        ));
    }

    #[test]
    fn unreachable_server_lines() {
        let (code, out, _) = call(dig, &["dig", "@8.8.8.8", "-x", "127.0.0.1"]);
        assert_eq!(code, 9);
        assert_eq!(
            out,
            ";; UDP setup with 8.8.8.8#53(8.8.8.8) for 1.0.0.127.in-addr.arpa. failed: network unreachable.\n"
                .repeat(3)
        );
        let (code, out, _) = call(host, &["host", "google.com", "8.8.8.8"]);
        assert_eq!(code, 1);
        assert!(out.ends_with(
            &";; UDP setup with 8.8.8.8#53(8.8.8.8) for google.com failed: network unreachable.\n"
                .repeat(2)
        ));
    }
}
