//! `ping` (iputils 20211215, Ubuntu 22.04) with only loopback up.
//!
//! Names resolve through `/etc/hosts` only (anything else is "Temporary failure in name
//! resolution", the resolver's answer when the name server cannot be reached); addresses off
//! this host fail with `connect: Network is unreachable`; loopback answers every echo. The
//! round-trip time of each reply is a fixed 0.040 ms, so the output is deterministic; the
//! run still waits the interval between packets as the real tool does (forever without
//! `-c`/`-w`, until the action's time limit). Messages and layout follow iputils'
//! `ping/ping.c` and `ping/ping_common.c` at that tag.

use super::world::{self, Reach};
use crate::common::Io;
use crate::common::getopt::{self, OptSpec, flag, with_arg};
use crate::common::io::run_main;
use std::ffi::OsString;
use std::net::IpAddr;
use std::time::Duration;

pub fn main(args: Vec<OsString>) -> i32 {
    run_main(args, run)
}

/// The reply time every echo reports, in microseconds.
const RTT_US: u64 = 40;

const USAGE: &str = "
Usage
  ping [options] <destination>

Options:
  <destination>      dns name or ip address
  -a                 use audible ping
  -A                 use adaptive ping
  -B                 sticky source address
  -c <count>         stop after <count> replies
  -D                 print timestamps
  -d                 use SO_DEBUG socket option
  -f                 flood ping
  -h                 print help and exit
  -I <interface>     either interface name or address
  -i <interval>      seconds between sending each packet
  -L                 suppress loopback of multicast packets
  -l <preload>       send <preload> number of packages while waiting replies
  -m <mark>          tag the packets going out
  -M <pmtud opt>     define mtu discovery, can be one of <do|dont|want>
  -n                 no dns name resolution
  -O                 report outstanding replies
  -p <pattern>       contents of padding byte
  -q                 quiet output
  -Q <tclass>        use quality of service <tclass> bits
  -s <size>          use <size> as number of data bytes to be sent
  -S <size>          use <size> as SO_SNDBUF socket option value
  -t <ttl>           define time to live
  -U                 print user-to-user latency
  -v                 verbose output
  -V                 print version and exit
  -w <deadline>      reply wait <deadline> in seconds
  -W <timeout>       time to wait for response

IPv4 options:
  -4                 use IPv4
  -b                 allow pinging broadcast
  -R                 record route
  -T <timestamp>     define timestamp, can be one of <tsonly|tsandaddr|tsprespec>

IPv6 options:
  -6                 use IPv6
  -F <flowlabel>     define flow label, default is random
  -N <nodeinfo opt>  use icmp6 node info query, try <help> as argument

For more details see ping(8).
";

const FLAGS: &str = "h?4bR6aABdDfLnOqrUvV";
const WITH_ARG: &str = "TFNciIlmMpQsStwW";

fn specs() -> Vec<OptSpec<char>> {
    FLAGS
        .chars()
        .map(|c| flag(c, "", c))
        .chain(WITH_ARG.chars().map(|c| with_arg(c, "", c)))
        .collect()
}

struct Settings {
    count: Option<u64>,
    interval_ms: u64,
    deadline: Option<u64>,
    quiet: bool,
    numeric: bool,
    datalen: u64,
    ttl: u64,
    family: Option<world::Family>,
}

fn usage(io: &mut Io) -> i32 {
    let _ = io.err.write_all(USAGE.as_bytes());
    2
}

/// iputils' `strtol_or_err`: exit 1 with the reason.
fn number(io: &mut Io, s: &str, min: i64, max: i64) -> Result<u64, i32> {
    match s.parse::<i64>() {
        Ok(n) if n >= min && n <= max => Ok(n as u64),
        Ok(_) => {
            let _ = writeln!(
                io.err,
                "ping: invalid argument: '{s}': out of range: {min} <= value <= {max}"
            );
            Err(1)
        }
        Err(_) => {
            let why = if s
                .trim_start_matches(['-', '+'])
                .bytes()
                .all(|b| b.is_ascii_digit())
                && !s.is_empty()
            {
                ": Numerical result out of range"
            } else {
                ""
            };
            let _ = writeln!(io.err, "ping: invalid argument: '{s}'{why}");
            Err(1)
        }
    }
}

pub fn run(args: &[String], io: &mut Io) -> i32 {
    let parsed = match getopt::parse(args, &specs(), getopt::Config::default()) {
        Ok(p) => p,
        Err(msg) => {
            let _ = writeln!(io.err, "ping: {msg}");
            return usage(io);
        }
    };
    let mut s = Settings {
        count: None,
        interval_ms: 1000,
        deadline: None,
        quiet: false,
        numeric: false,
        datalen: 56,
        ttl: 64,
        family: None,
    };
    for o in &parsed.opts {
        let arg = o.arg.clone().unwrap_or_default();
        let r = match o.key {
            'h' | '?' => return usage(io),
            'V' => {
                let _ = writeln!(io.out, "ping from iputils 20211215");
                return 0;
            }
            'c' => number(io, &arg, 1, i64::MAX).map(|n| s.count = Some(n)),
            'w' => number(io, &arg, 0, i32::MAX as i64).map(|n| s.deadline = Some(n)),
            's' => number(io, &arg, 0, i32::MAX as i64).map(|n| s.datalen = n),
            't' => number(io, &arg, 0, 255).map(|n| s.ttl = n),
            'i' => match arg.parse::<f64>() {
                Ok(v) if v.is_finite() && v >= 0.0 => {
                    s.interval_ms = (v * 1000.0) as u64;
                    Ok(())
                }
                _ => {
                    let _ = writeln!(io.err, "ping: bad timing interval: {arg}");
                    Err(2)
                }
            },
            'q' => {
                s.quiet = true;
                Ok(())
            }
            'n' => {
                s.numeric = true;
                Ok(())
            }
            '4' => {
                s.family = Some(world::Family::V4);
                Ok(())
            }
            '6' => {
                s.family = Some(world::Family::V6);
                Ok(())
            }
            _ => Ok(()),
        };
        if let Err(code) = r {
            return code;
        }
    }
    let Some(target) = parsed.operands.last().cloned() else {
        let _ = writeln!(io.err, "ping: usage error: Destination address required");
        return 1;
    };
    let addrs = world::resolve(&target, s.family.unwrap_or(world::Family::Any));
    // With both on loopback, glibc's address sorting puts IPv4 first here: the container has
    // no usable IPv6 (Docker leaves it disabled).
    let addr = addrs
        .iter()
        .find(|a| a.is_ipv4())
        .or_else(|| addrs.first())
        .copied();
    let Some(addr) = addr else {
        let _ = writeln!(
            io.err,
            "ping: {target}: Temporary failure in name resolution"
        );
        return 2;
    };
    if world::reach(&addr) == Reach::Unreachable {
        let _ = writeln!(io.err, "ping: connect: Network is unreachable");
        return 2;
    }
    let numeric_target = world::parse_numeric(&target).is_some();
    echo_loop(&s, &target, addr, numeric_target, io)
}

/// How a reply's source is printed: `name (addr)` from `/etc/hosts`, or the bare address
/// for numeric targets and `-n`.
fn from_text(addr: &IpAddr, numeric: bool) -> String {
    if numeric {
        return addr.to_string();
    }
    match world::hosts().into_iter().find(|e| e.addr == *addr) {
        Some(e) => format!("{} ({addr})", e.name),
        None => addr.to_string(),
    }
}

fn echo_loop(s: &Settings, target: &str, addr: IpAddr, numeric_target: bool, io: &mut Io) -> i32 {
    let shown = if numeric_target {
        target.to_string()
    } else {
        world::hosts()
            .into_iter()
            .find(|e| e.names(target))
            .map_or_else(|| target.to_string(), |e| e.name)
    };
    match addr {
        IpAddr::V4(_) => {
            let _ = writeln!(
                io.out,
                "PING {shown} ({addr}) {}({}) bytes of data.",
                s.datalen,
                s.datalen + 28
            );
        }
        IpAddr::V6(_) => {
            let _ = writeln!(
                io.out,
                "PING {shown}({}) {} data bytes",
                from_text(&addr, numeric_target || s.numeric),
                s.datalen
            );
        }
    }
    let _ = io.out.flush();
    let from = from_text(&addr, numeric_target || s.numeric);
    let timing = s.datalen >= 16;
    let mut sent = 0u64;
    let deadline_ms = s.deadline.map(|d| d * 1000);
    loop {
        sent += 1;
        if !s.quiet {
            let time = if timing {
                format!(" time={}.{:03} ms", RTT_US / 1000, RTT_US % 1000)
            } else {
                String::new()
            };
            let _ = writeln!(
                io.out,
                "{} bytes from {from}: icmp_seq={sent} ttl={}{time}",
                s.datalen + 8,
                s.ttl
            );
            let _ = io.out.flush();
        }
        if s.count.is_some_and(|c| sent >= c) {
            break;
        }
        let elapsed = (sent - 1) * s.interval_ms;
        if deadline_ms.is_some_and(|d| elapsed + s.interval_ms >= d) {
            break;
        }
        let _ = hostcalls::sleep(Duration::from_millis(s.interval_ms));
    }
    // A little bookkeeping per packet on top of the intervals, as real runs show.
    let total_ms = (sent - 1) * (s.interval_ms + 1);
    let _ = writeln!(io.out, "\n--- {shown} ping statistics ---");
    let _ = writeln!(
        io.out,
        "{sent} packets transmitted, {sent} received, 0% packet loss, time {total_ms}ms"
    );
    if timing {
        let ms = |us: u64| format!("{}.{:03}", us / 1000, us % 1000);
        let _ = writeln!(
            io.out,
            "rtt min/avg/max/mdev = {}/{}/{}/0.000 ms",
            ms(RTT_US),
            ms(RTT_US),
            ms(RTT_US)
        );
    } else {
        let _ = writeln!(io.out);
    }
    0
}

#[cfg(test)]
mod tests {
    use super::*;

    fn call(args: &[&str]) -> (i32, String, String) {
        let argv: Vec<String> = args.iter().map(|s| s.to_string()).collect();
        crate::common::io::capture_text(run, &argv, b"")
    }

    #[test]
    fn unreachable_and_unresolvable() {
        assert_eq!(
            call(&["ping", "-c", "1", "8.8.8.8"]),
            (
                2,
                String::new(),
                "ping: connect: Network is unreachable\n".into()
            )
        );
        assert_eq!(
            call(&["ping", "no-such-host.invalid"]).2,
            "ping: no-such-host.invalid: Temporary failure in name resolution\n"
        );
        assert_eq!(call(&["ping"]).0, 1);
        assert_eq!(
            call(&["ping", "-c", "x", "a"]).2,
            "ping: invalid argument: 'x'\n"
        );
    }

    #[test]
    fn loopback_answers() {
        let (code, out, _) = call(&["ping", "-c", "1", "127.0.0.1"]);
        assert_eq!(code, 0);
        assert_eq!(
            out,
            "PING 127.0.0.1 (127.0.0.1) 56(84) bytes of data.\n\
             64 bytes from 127.0.0.1: icmp_seq=1 ttl=64 time=0.040 ms\n\n\
             --- 127.0.0.1 ping statistics ---\n\
             1 packets transmitted, 1 received, 0% packet loss, time 0ms\n\
             rtt min/avg/max/mdev = 0.040/0.040/0.040/0.000 ms\n"
        );
    }
}
