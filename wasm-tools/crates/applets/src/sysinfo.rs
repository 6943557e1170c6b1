//! Identity of the (pretend) machine: `uname`, `hostname`, `whoami`, `id`, `nproc`.
//!
//! The sandbox answers like upstream's container: Ubuntu 22.04 under Docker Desktop on an
//! Apple-silicon Mac, everything running as root, the host name from `/etc/hostname` (the host
//! writes it). From upstream's logs: `uname -r` → `5.15.49-linuxkit` (fs_4, several models),
//! `uname -v | grep -o '#[0-9]\+'` → `#1` (fs_4 #0's gold), bash's `HOSTTYPE=aarch64` (gpt-3.5
//! fs_4 #17, `set | grep`) and, in the same runs, `ls /` without the `lib32`/`lib64` links an
//! x86_64 image has; `xargs -p $(nproc)` echoed `4` (gpt-4 fs_1 #11). `uname -p`/`-i` repeat the
//! machine as Ubuntu's patched coreutils do. `nproc` says 4 although the sandbox runs one
//! command at a time: it is a fact of the machine agents read, and `xargs -P` accepts any
//! number.

use crate::common::getopt::{self, Config, OptSpec, flag, long_flag, with_arg};
use crate::common::io::{prog, run_main, usage};
use crate::common::{Io, sys};
use gnu::usage;
use std::ffi::OsString;

pub const KERNEL_RELEASE: &str = "5.15.49-linuxkit";
pub const KERNEL_VERSION: &str = "#1 SMP PREEMPT Tue Sep 13 07:51:46 UTC 2022";
pub const MACHINE: &str = "aarch64";
/// Processors `nproc` and `/proc/cpuinfo` report.
pub const PROCESSORS: u64 = 4;

pub fn uname_main(args: Vec<OsString>) -> i32 {
    run_main(args, uname)
}
pub fn hostname_main(args: Vec<OsString>) -> i32 {
    run_main(args, hostname)
}
pub fn whoami_main(args: Vec<OsString>) -> i32 {
    run_main(args, whoami)
}
pub fn id_main(args: Vec<OsString>) -> i32 {
    run_main(args, id)
}
pub fn nproc_main(args: Vec<OsString>) -> i32 {
    run_main(args, nproc)
}
pub fn arch_main(args: Vec<OsString>) -> i32 {
    run_main(args, arch)
}

/// `arch`: `uname -m`.
pub fn arch(args: &[String], io: &mut Io) -> i32 {
    let prog = prog(args, "arch");
    match args.get(1).map(String::as_str) {
        None => {
            let _ = writeln!(io.out, "{MACHINE}");
            0
        }
        Some("--version") => {
            let _ = writeln!(io.out, "arch (GNU coreutils) 8.32");
            0
        }
        Some("--help") => {
            let _ = writeln!(io.out, "Usage: {prog} [OPTION]...");
            0
        }
        Some(a) if a.starts_with("--") => usage(io, &prog, &usage::unrecognized_option(a)),
        Some(a) if a.starts_with('-') && a.len() > 1 => {
            usage(io, &prog, &usage::invalid_option(&a[1..2]))
        }
        Some(a) => usage(io, &prog, &usage::extra_operand(a)),
    }
}

pub fn uname(args: &[String], io: &mut Io) -> i32 {
    let prog = prog(args, "uname");
    // Field order of `uname -a`.
    let mut want = [false; 8];
    let mut all = false;
    for a in &args[1.min(args.len())..] {
        let flags: Vec<char> = match a.as_str() {
            "--all" => vec!['a'],
            "--kernel-name" => vec!['s'],
            "--nodename" => vec!['n'],
            "--kernel-release" => vec!['r'],
            "--kernel-version" => vec!['v'],
            "--machine" => vec!['m'],
            "--processor" => vec!['p'],
            "--hardware-platform" => vec!['i'],
            "--operating-system" => vec!['o'],
            "--help" => {
                let _ = writeln!(io.out, "Usage: {prog} [OPTION]...");
                return 0;
            }
            "--version" => {
                let _ = writeln!(io.out, "uname (GNU coreutils) 8.32");
                return 0;
            }
            s if s.starts_with("--") => {
                return usage(io, &prog, &usage::unrecognized_option(s));
            }
            s if s.starts_with('-') && s.len() > 1 => s[1..].chars().collect(),
            s => return usage(io, &prog, &usage::extra_operand(s)),
        };
        for f in flags {
            let idx = match f {
                'a' => {
                    all = true;
                    continue;
                }
                's' => 0,
                'n' => 1,
                'r' => 2,
                'v' => 3,
                'm' => 4,
                'p' => 5,
                'i' => 6,
                'o' => 7,
                c => return usage(io, &prog, &usage::invalid_option(c)),
            };
            want[idx] = true;
        }
    }
    if all {
        want = [true; 8];
    } else if !want.iter().any(|&w| w) {
        want[0] = true;
    }
    let host = sys::hostname();
    let values = [
        "Linux",
        host.as_str(),
        KERNEL_RELEASE,
        KERNEL_VERSION,
        MACHINE,
        MACHINE,
        MACHINE,
        "GNU/Linux",
    ];
    let fields: Vec<&str> = values
        .iter()
        .zip(want)
        .filter(|(_, w)| *w)
        .map(|(v, _)| *v)
        .collect();
    let _ = writeln!(io.out, "{}", fields.join(" "));
    0
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum H {
    Alias,
    AllFqdns,
    Boot,
    Domain,
    Fqdn,
    File,
    Help,
    Ip,
    AllIp,
    Short,
    Version,
    Nis,
}

/// Debian's `hostname` 3.23 (Ubuntu 22.04's): its options as its `getopt_long` table has them.
const HOSTNAME_SPECS: &[OptSpec<H>] = &[
    flag('a', "alias", H::Alias),
    flag('A', "all-fqdns", H::AllFqdns),
    flag('b', "boot", H::Boot),
    flag('d', "domain", H::Domain),
    flag('f', "fqdn", H::Fqdn),
    long_flag("long", H::Fqdn),
    with_arg('F', "file", H::File),
    flag('h', "help", H::Help),
    flag('i', "ip-address", H::Ip),
    flag('I', "all-ip-addresses", H::AllIp),
    flag('s', "short", H::Short),
    flag('V', "version", H::Version),
    flag('y', "yp", H::Nis),
    long_flag("nis", H::Nis),
];

/// Its usage text, as `hostname -h` printed it on upstream's image.
const HOSTNAME_USAGE: &str = "Usage: hostname [-b] {hostname|-F file}         set host name (from file)\n\
     \x20      hostname [-a|-A|-d|-f|-i|-I|-s|-y]       display formatted name\n\
     \x20      hostname                                 display host name\n\
     \n\
     \x20      {yp,nis,}domainname {nisdomain|-F file}  set NIS domain name (from file)\n\
     \x20      {yp,nis,}domainname                      display NIS domain name\n\
     \n\
     \x20      dnsdomainname                            display dns domain name\n\
     \n\
     \x20      hostname -V|--version|-h|--help          print info and exit\n\
     \n\
     Program name:\n\
     \x20      {yp,nis,}domainname=hostname -y\n\
     \x20      dnsdomainname=hostname -d\n\
     \n\
     Program options:\n\
     \x20   -a, --alias            alias names\n\
     \x20   -A, --all-fqdns        all long host names (FQDNs)\n\
     \x20   -b, --boot             set default hostname if none available\n\
     \x20   -d, --domain           DNS domain name\n\
     \x20   -f, --fqdn, --long     long host name (FQDN)\n\
     \x20   -F, --file             read host name or NIS domain name from given file\n\
     \x20   -i, --ip-address       addresses for the host name\n\
     \x20   -I, --all-ip-addresses all addresses for the host\n\
     \x20   -s, --short            short host name\n\
     \x20   -y, --yp, --nis        NIS/YP domain name\n\
     \n\
     Description:\n\
     \x20  This command can get or set the host name or the NIS domain name. You can\n\
     \x20  also get the DNS domain or the FQDN (fully qualified domain name).\n\
     \x20  Unless you are using bind or NIS for host lookups you can change the\n\
     \x20  FQDN (Fully Qualified Domain Name) and the DNS domain name (which is\n\
     \x20  part of the FQDN) in the /etc/hosts file.\n";

/// Debian's `hostname` 3.23: getopt's complaint on stderr, then the usage on stdout, status
/// 255; `-h` the usage alone (also 255); more than one name the usage on stderr.
pub fn hostname(args: &[String], io: &mut Io) -> i32 {
    let prog = prog(args, "hostname");
    let parsed = match getopt::parse(args, HOSTNAME_SPECS, Config::default()) {
        Ok(parsed) => parsed,
        Err(message) => {
            let _ = writeln!(io.err, "{prog}: {message}");
            let _ = io.out.write_all(HOSTNAME_USAGE.as_bytes());
            return 255;
        }
    };
    let mut shown = None;
    for o in &parsed.opts {
        match o.key {
            H::Help => {
                let _ = io.out.write_all(HOSTNAME_USAGE.as_bytes());
                return 255;
            }
            H::Version => {
                let _ = writeln!(io.out, "hostname 3.23");
                return 0;
            }
            H::File => {
                let _ = writeln!(io.err, "{prog}: you must be root to change the host name");
                return 1;
            }
            H::Boot => {}
            key => shown = Some(key),
        }
    }
    match parsed.operands.as_slice() {
        [] => {}
        [_] => {
            // Upstream's container ran as root but without CAP_SYS_ADMIN: sethostname fails
            // with EPERM, which hostname words so.
            let _ = writeln!(io.err, "{prog}: you must be root to change the host name");
            return 1;
        }
        _ => {
            let _ = io.err.write_all(HOSTNAME_USAGE.as_bytes());
            return 255;
        }
    }
    let h = sys::hostname();
    let line = match shown {
        None | Some(H::Fqdn | H::AllFqdns) => h,
        Some(H::Short) => h.split('.').next().unwrap_or("").to_string(),
        // Upstream's container resolved its own name via /etc/hosts; the sandbox has no
        // network, so answer with the address Docker's default bridge gives a container.
        Some(H::Ip | H::AllIp) => "172.17.0.2".to_string(),
        // A container's name has no domain and its /etc/hosts line no aliases.
        Some(H::Domain | H::Alias) => String::new(),
        // The kernel's NIS domain name when none was set.
        Some(_) => "(none)".to_string(),
    };
    let _ = writeln!(io.out, "{line}");
    0
}

pub fn whoami(args: &[String], io: &mut Io) -> i32 {
    let prog = prog(args, "whoami");
    if let Some(extra) = args.get(1) {
        return usage(io, &prog, &usage::extra_operand(extra));
    }
    let _ = writeln!(io.out, "{}", sys::user_name(sys::euid()));
    0
}

pub fn id(args: &[String], io: &mut Io) -> i32 {
    let prog = prog(args, "id");
    let (mut u, mut g, mut big_g, mut name, mut real, mut zero) =
        (false, false, false, false, false, false);
    let mut user: Option<String> = None;
    for a in &args[1.min(args.len())..] {
        match a.as_str() {
            "--user" => u = true,
            "--group" => g = true,
            "--groups" => big_g = true,
            "--name" => name = true,
            "--real" => real = true,
            "--zero" => zero = true,
            s if s.starts_with("--") => {
                return usage(io, &prog, &usage::unrecognized_option(s));
            }
            s if s.starts_with('-') && s.len() > 1 => {
                for c in s[1..].chars() {
                    match c {
                        'u' => u = true,
                        'g' => g = true,
                        'G' => big_g = true,
                        'n' => name = true,
                        'r' => real = true,
                        'z' => zero = true,
                        'a' => {}
                        c => return usage(io, &prog, &usage::invalid_option(c)),
                    }
                }
            }
            s => {
                if user.is_some() {
                    return usage(io, &prog, &usage::extra_operand(s));
                }
                user = Some(s.to_string());
            }
        }
    }
    let _ = real;
    let passwd = sys::passwd();
    let (uid, gid) = match &user {
        None => (sys::euid(), sys::egid()),
        Some(n) => {
            let uid = passwd
                .id(n)
                .or_else(|| n.parse().ok().filter(|u| passwd.name(*u).is_some()));
            match uid {
                Some(uid) => {
                    let uname = passwd.name(uid).unwrap_or(n).to_string();
                    (uid, passwd.gid_of.get(&uname).copied().unwrap_or(uid))
                }
                None => {
                    let _ = writeln!(io.err, "{prog}: '{n}': no such user");
                    return 1;
                }
            }
        }
    };
    let uname = sys::user_name(uid);
    // Supplementary groups: the primary group, then every group listing the user.
    let mut groups = vec![gid];
    let group_db = sys::group();
    let mut extra: Vec<u32> = group_db
        .members
        .iter()
        .filter(|(_, m)| m.iter().any(|x| x == &uname))
        .map(|(g, _)| *g)
        .collect();
    extra.sort_unstable();
    for e in extra {
        if !groups.contains(&e) {
            groups.push(e);
        }
    }
    if [u, g, big_g].iter().filter(|&&x| x).count() > 1 {
        let _ = writeln!(
            io.err,
            "{prog}: cannot print \"only\" of more than one choice"
        );
        return 1;
    }
    if (name || zero) && !(u || g || big_g) {
        let opt = if name { "--name" } else { "--zero" };
        let _ = writeln!(
            io.err,
            "{prog}: cannot print only names or real IDs in default format"
        );
        let _ = opt;
        return 1;
    }
    let end = if zero { '\0' } else { '\n' };
    let sep = if zero { "\0" } else { " " };
    if u {
        let s = if name { uname } else { uid.to_string() };
        let _ = write!(io.out, "{s}{end}");
    } else if g {
        let s = if name {
            sys::group_name(gid)
        } else {
            gid.to_string()
        };
        let _ = write!(io.out, "{s}{end}");
    } else if big_g {
        let list: Vec<String> = groups
            .iter()
            .map(|&g| {
                if name {
                    sys::group_name(g)
                } else {
                    g.to_string()
                }
            })
            .collect();
        let _ = write!(io.out, "{}{end}", list.join(sep));
    } else {
        let list: Vec<String> = groups
            .iter()
            .map(|&g| format!("{g}({})", sys::group_name(g)))
            .collect();
        let _ = writeln!(
            io.out,
            "uid={uid}({uname}) gid={gid}({}) groups={}",
            sys::group_name(gid),
            list.join(",")
        );
    }
    0
}

pub fn nproc(args: &[String], io: &mut Io) -> i32 {
    let prog = prog(args, "nproc");
    let mut ignore = 0u64;
    let mut i = 1;
    while i < args.len() {
        let a = &args[i];
        i += 1;
        if a == "--all" {
            continue;
        }
        let val = if let Some(v) = a.strip_prefix("--ignore=") {
            v.to_string()
        } else if a == "--ignore" {
            match args.get(i) {
                Some(v) => {
                    i += 1;
                    v.clone()
                }
                None => return usage(io, &prog, "option '--ignore' requires an argument"),
            }
        } else {
            return usage(io, &prog, &usage::extra_operand(a));
        };
        match val.parse() {
            Ok(n) => ignore = n,
            Err(_) => {
                let _ = writeln!(io.err, "{prog}: invalid number: '{val}'");
                return 1;
            }
        }
    }
    let n = PROCESSORS.saturating_sub(ignore).max(1);
    let _ = writeln!(io.out, "{n}");
    0
}

#[cfg(test)]
mod tests {
    use super::*;

    fn call(f: fn(&[String], &mut Io) -> i32, args: &[&str]) -> (i32, String, String) {
        let argv: Vec<String> = args.iter().map(|s| s.to_string()).collect();
        crate::common::io::capture_text(f, &argv, b"")
    }

    #[test]
    fn uname_fields() {
        assert_eq!(call(uname, &["uname"]).1, "Linux\n");
        assert_eq!(call(uname, &["uname", "-sm"]).1, "Linux aarch64\n");
        // Logged: `uname -r` → 5.15.49-linuxkit (fs_4, multiturn runs).
        assert_eq!(call(uname, &["uname", "-r"]).1, "5.15.49-linuxkit\n");
        assert_eq!(call(arch, &["arch"]).1, "aarch64\n");
        assert_eq!(
            call(uname, &["uname", "-v"]).1,
            format!("{KERNEL_VERSION}\n")
        );
        let all = call(uname, &["uname", "-a"]).1;
        assert!(all.starts_with("Linux ") && all.ends_with(" aarch64 aarch64 aarch64 GNU/Linux\n"));
        assert_eq!(call(uname, &["uname", "-q"]).0, 1);
    }

    #[test]
    fn id_for_root() {
        // Native runs use the host's ids; the test host runs as root like the sandbox.
        if sys::euid() != 0 {
            return;
        }
        assert_eq!(
            call(id, &["id"]).1,
            "uid=0(root) gid=0(root) groups=0(root)\n"
        );
        assert_eq!(call(id, &["id", "-un"]).1, "root\n");
        assert_eq!(call(id, &["id", "-u"]).1, "0\n");
        assert_eq!(
            call(id, &["id", "nouser-x"]).2,
            "id: 'nouser-x': no such user\n"
        );
        assert_eq!(call(whoami, &["whoami"]).1, "root\n");
    }

    #[test]
    fn nproc_is_four() {
        assert_eq!(call(nproc, &["nproc"]).1, "4\n");
        assert_eq!(call(nproc, &["nproc", "--all"]).1, "4\n");
        assert_eq!(call(nproc, &["nproc", "--ignore=3"]).1, "1\n");
    }
}
