//! What the network looks like from inside the sandbox: `/etc/hosts`, the configured name
//! server, and which addresses can be reached (none but loopback, where nothing listens).

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

/// The name server when `/etc/resolv.conf` names none: the one Docker Desktop gave
/// upstream's containers (their `nslookup` printed `Server: 192.168.65.7`).
pub const DEFAULT_NAMESERVER: &str = "192.168.65.7";

/// One `/etc/hosts` line: an address, its canonical name and aliases.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HostEntry {
    pub addr: IpAddr,
    pub name: String,
    pub aliases: Vec<String>,
}

/// Parses `/etc/hosts` text (comments after `#`, fields split on blanks).
pub fn parse_hosts(text: &str) -> Vec<HostEntry> {
    let mut v = Vec::new();
    for line in text.lines() {
        let line = line.split('#').next().unwrap_or("");
        let mut fields = line.split_ascii_whitespace();
        let (Some(addr), Some(name)) = (fields.next(), fields.next()) else {
            continue;
        };
        let Ok(addr) = addr.parse::<IpAddr>() else {
            continue;
        };
        v.push(HostEntry {
            addr,
            name: name.to_string(),
            aliases: fields.map(String::from).collect(),
        });
    }
    v
}

/// The entries of this machine's `/etc/hosts`.
pub fn hosts() -> Vec<HostEntry> {
    parse_hosts(&std::fs::read_to_string("/etc/hosts").unwrap_or_default())
}

impl HostEntry {
    /// Whether `name` is this entry's name or one of its aliases (case-insensitive, as the
    /// resolver compares names).
    pub fn names(&self, name: &str) -> bool {
        self.name.eq_ignore_ascii_case(name)
            || self.aliases.iter().any(|a| a.eq_ignore_ascii_case(name))
    }
}

/// Which address family a lookup asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Family {
    V4,
    V6,
    Any,
}

impl Family {
    fn admits(self, a: &IpAddr) -> bool {
        match self {
            Family::V4 => a.is_ipv4(),
            Family::V6 => a.is_ipv6(),
            Family::Any => true,
        }
    }
}

/// Resolves a host name the way glibc does here (`hosts: files dns`, and DNS unreachable):
/// a numeric address is itself, otherwise the `/etc/hosts` lines naming it; nothing else.
pub fn resolve(name: &str, family: Family) -> Vec<IpAddr> {
    if let Some(a) = parse_numeric(name) {
        return if family.admits(&a) { vec![a] } else { vec![] };
    }
    hosts()
        .into_iter()
        .filter(|e| e.names(name) && family.admits(&e.addr))
        .map(|e| e.addr)
        .collect()
}

/// A numeric IPv4 or IPv6 address (IPv6 possibly in brackets).
pub fn parse_numeric(s: &str) -> Option<IpAddr> {
    let s = s
        .strip_prefix('[')
        .and_then(|r| r.strip_suffix(']'))
        .unwrap_or(s);
    s.parse::<IpAddr>().ok()
}

/// The first `nameserver` of `/etc/resolv.conf`, or [`DEFAULT_NAMESERVER`].
pub fn nameserver() -> String {
    let text = std::fs::read_to_string("/etc/resolv.conf").unwrap_or_default();
    text.lines()
        .filter_map(|l| {
            let mut f = l.split_ascii_whitespace();
            (f.next() == Some("nameserver")).then(|| f.next()).flatten()
        })
        .find(|a| a.parse::<IpAddr>().is_ok())
        .unwrap_or(DEFAULT_NAMESERVER)
        .to_string()
}

/// What connecting to an address does on a machine with only loopback up.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reach {
    /// Loopback (and the unspecified address, which means this host): the packet arrives
    /// but no server listens, so TCP is reset and UDP draws "port unreachable".
    Refused,
    /// Anything else: there is no route, `connect` fails with `ENETUNREACH` at once.
    Unreachable,
}

pub fn reach(a: &IpAddr) -> Reach {
    let local = match a {
        IpAddr::V4(v4) => v4.is_loopback() || v4.is_unspecified(),
        IpAddr::V6(v6) => {
            v6.is_loopback()
                || v6.is_unspecified()
                || v6.to_ipv4_mapped().is_some_and(|m| m.is_loopback())
        }
    };
    if local {
        Reach::Refused
    } else {
        Reach::Unreachable
    }
}

/// `strerror` for [`Reach`], glibc's words.
pub fn reach_error(r: Reach) -> &'static str {
    match r {
        Reach::Refused => "Connection refused",
        Reach::Unreachable => "Network is unreachable",
    }
}

/// The reverse-lookup name of an address (`1.0.0.127.in-addr.arpa`, nibbles for IPv6).
pub fn reverse_name(a: &IpAddr) -> String {
    match a {
        IpAddr::V4(v4) => {
            let o = v4.octets();
            format!("{}.{}.{}.{}.in-addr.arpa", o[3], o[2], o[1], o[0])
        }
        IpAddr::V6(v6) => {
            let mut s = String::new();
            for b in v6.octets().iter().rev() {
                s.push_str(&format!("{:x}.{:x}.", b & 0xf, b >> 4));
            }
            s.push_str("ip6.arpa");
            s
        }
    }
}

pub const LOOPBACK_V4: IpAddr = IpAddr::V4(Ipv4Addr::LOCALHOST);
pub const LOOPBACK_V6: IpAddr = IpAddr::V6(Ipv6Addr::LOCALHOST);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hosts_file_parsing() {
        let h =
            parse_hosts("# c\n127.0.0.1\tlocalhost\n::1 localhost ip6-localhost # x\nbad line\n");
        assert_eq!(h.len(), 2);
        assert_eq!(h[1].aliases, vec!["ip6-localhost"]);
        assert!(h[0].names("LOCALHOST"));
    }

    #[test]
    fn reachability() {
        assert_eq!(reach(&"127.0.0.53".parse().unwrap()), Reach::Refused);
        assert_eq!(reach(&"::1".parse().unwrap()), Reach::Refused);
        assert_eq!(reach(&"8.8.8.8".parse().unwrap()), Reach::Unreachable);
    }

    #[test]
    fn reverse_names() {
        assert_eq!(reverse_name(&LOOPBACK_V4), "1.0.0.127.in-addr.arpa");
        assert!(reverse_name(&LOOPBACK_V6).starts_with("1.0.0.0.0.0"));
        assert!(reverse_name(&LOOPBACK_V6).ends_with(".ip6.arpa"));
    }
}
