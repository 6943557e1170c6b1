//! Differential tests of `getent` and `ping` against the host's glibc `getent` and iputils
//! `ping`, both run inside the same `bwrap --unshare-net` sandbox: a network namespace with
//! only loopback up, like `docker run --network none`, with fixed `/etc/hosts`, `passwd`,
//! `group`, `host.conf`, `nsswitch.conf` and a `resolv.conf` naming an outside (unreachable)
//! name server. This binary becomes the applet under test when `APPLET_UNDER_TEST` is set.
//!
//! Round-trip times are the one thing that differs by design (ours are fixed), so `time=…`
//! figures are masked on both sides before comparing. bwrap runs with `--cap-drop ALL` plus
//! `CAP_NET_RAW` (what Docker grants, and what ping needs). Without a working bwrap the cases
//! are SKIPped, or fail under `CI=true`.
//!
//! curl, dig, host and nslookup are not compared here: the host's versions (curl 7.88, BIND
//! 9.18.4x) word these failures differently from Ubuntu 22.04's (curl 7.81, BIND 9.18.12);
//! their unit tests pin them to upstream's logs and to those versions' sources instead.

#[cfg(unix)]
#[path = "../support/mod.rs"]
mod support;

#[cfg(not(unix))]
fn main() {}

#[cfg(unix)]
fn main() {
    if let Ok(name) = std::env::var("APPLET_UNDER_TEST") {
        let main = applets::lookup(&name).unwrap_or_else(|| panic!("no applet {name}"));
        let mut args: Vec<std::ffi::OsString> = std::env::args_os().collect();
        args[0] = name.into();
        std::process::exit(main(args));
    }
    harness::run_all();
}

#[cfg(unix)]
mod harness {
    use std::path::Path;
    use std::process::Command;

    /// The sandbox's `/etc/hosts` (see the root crate's `fs/base_system.rs`).
    const HOSTS: &str =
        "127.0.0.1\tlocalhost\n::1\tlocalhost ip6-localhost ip6-loopback\n127.0.1.1\tintercode\n";
    const PASSWD: &str = "root:x:0:0:root:/root:/bin/bash\ndaemon:x:1:1:daemon:/usr/sbin:/usr/sbin/nologin\nnobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin\n";
    const GROUP: &str = "root:x:0:\nadm:x:4:syslog,ubuntu\nusers:x:100:\nnogroup:x:65534:\n";
    const NETWORKS: &str = "# symbolic names for networks, see networks(5) for more information\nlink-local 169.254.0.0\n";

    fn fixture(dir: &Path) {
        let w = |n: &str, s: &str| std::fs::write(dir.join(n), s).unwrap();
        w("hosts", HOSTS);
        w("passwd", PASSWD);
        w("group", GROUP);
        w("networks", NETWORKS);
        w("resolv.conf", "nameserver 8.8.8.8\n");
        w("host.conf", "multi on\n");
        w(
            "nsswitch.conf",
            "passwd: files\ngroup: files\nhosts: files dns\nnetworks: files\n",
        );
    }

    fn bwrap(dir: &Path) -> Command {
        let mut c = Command::new("bwrap");
        c.args([
            "--cap-drop",
            "ALL",
            "--cap-add",
            "CAP_NET_RAW",
            "--unshare-net",
            "--ro-bind",
            "/",
            "/",
            "--dev",
            "/dev",
            "--proc",
            "/proc",
        ]);
        for f in [
            "hosts",
            "passwd",
            "group",
            "networks",
            "resolv.conf",
            "host.conf",
            "nsswitch.conf",
        ] {
            c.arg("--ro-bind").arg(dir.join(f)).arg(format!("/etc/{f}"));
        }
        c.env("LC_ALL", "C").env("TZ", "UTC").env_remove("LANG");
        c
    }

    fn run_side(dir: &Path, tool: &str, args: &[&str], ours: bool) -> (i32, String, String) {
        let mut cmd = bwrap(dir);
        if ours {
            cmd.args(["--setenv", "APPLET_UNDER_TEST", tool, "--"])
                .arg(std::env::current_exe().unwrap());
        } else {
            cmd.args(["--", tool]);
        }
        cmd.args(args);
        let (code, out, err) = super::support::output_with_stdin(&mut cmd, Vec::new()).unwrap_or((
            -1,
            Vec::new(),
            b"could not run".to_vec(),
        ));
        (code, mask(&out), mask(&err))
    }

    /// Masks round-trip figures (`time=0.253 ms`, `time 206ms`, the rtt summary).
    fn mask(v: &[u8]) -> String {
        let s = String::from_utf8_lossy(v);
        s.lines()
            .map(|l| {
                let l = match l.find(" time=") {
                    Some(p) => format!("{} time=T", &l[..p]),
                    None => l.to_string(),
                };
                let l = match l.find(", time ") {
                    Some(p) => format!("{}, time T", &l[..p]),
                    None => l,
                };
                if l.starts_with("rtt min/avg/max/mdev = ") {
                    "rtt T".to_string()
                } else {
                    l
                }
            })
            .map(|l| l + "\n")
            .collect()
    }

    const CASES: &[(&str, &[&str])] = &[
        ("getent", &["hosts", "127.0.0.1"]),
        ("getent", &["hosts", "localhost"]),
        ("getent", &["hosts", "ip6-loopback"]),
        ("getent", &["hosts", "intercode"]),
        ("getent", &["hosts", "127.0.1.1"]),
        ("getent", &["hosts", "::1"]),
        ("getent", &["hosts"]),
        ("getent", &["hosts", "example.com"]),
        ("getent", &["hosts", "10.1.2.3"]),
        ("getent", &["hosts", "localhost", "nosuch", "127.0.0.1"]),
        ("getent", &["ahostsv4", "localhost"]),
        ("getent", &["ahostsv4", "example.com"]),
        ("getent", &["ahosts", "127.0.0.1"]),
        ("getent", &["ahostsv4", "127.0.0.1", "localhost"]),
        ("getent", &["ahosts"]),
        ("getent", &["passwd", "root"]),
        ("getent", &["passwd", "0"]),
        ("getent", &["passwd", "65534"]),
        ("getent", &["passwd"]),
        ("getent", &["passwd", "nobodyx"]),
        ("getent", &["passwd", "root", "nobodyx"]),
        ("getent", &["group", "adm"]),
        ("getent", &["group", "0"]),
        ("getent", &["group"]),
        ("getent", &["group", "wheel"]),
        ("getent", &["networks"]),
        ("getent", &["networks", "link-local"]),
        ("getent", &[]),
        ("getent", &["foo"]),
        ("getent", &["foo", "bar"]),
        ("ping", &["-c", "1", "127.0.0.1"]),
        ("ping", &["-c", "3", "-i", "0.2", "127.0.0.1"]),
        ("ping", &["-c", "1", "intercode"]),
        ("ping", &["-c", "1", "-q", "127.0.0.1"]),
        ("ping", &["-c", "1", "-s", "8", "127.0.0.1"]),
        ("ping", &["-c", "1", "-s", "100", "127.0.0.2"]),
        ("ping", &["-n", "-c", "1", "intercode"]),
        ("ping", &["-w", "1", "127.0.0.1"]),
        ("ping", &["-c", "1", "8.8.8.8"]),
        ("ping", &["-c", "1", "10.0.0.1"]),
        ("ping", &["8.8.8.8"]),
        ("ping", &["-c", "1", "example.com"]),
        ("ping", &["hostname"]),
        ("ping", &["-c", "1", "google.com"]),
        ("ping", &[]),
        ("ping", &["-c", "abc", "127.0.0.1"]),
        ("ping", &["-c", "0", "127.0.0.1"]),
    ];

    pub fn run_all() {
        let filter: Vec<String> = std::env::args()
            .skip(1)
            .filter(|a| !a.starts_with('-'))
            .collect();
        let ci = std::env::var("CI").is_ok_and(|v| v == "true");
        let dir = tempfile::tempdir().unwrap();
        fixture(dir.path());
        let usable = bwrap(dir.path())
            .arg("true")
            .status()
            .is_ok_and(|s| s.success());
        let (mut pass, mut fail, mut skip) = (0, 0, 0);
        for (i, (tool, args)) in CASES.iter().enumerate() {
            let name = format!("{tool}/{i}");
            if !filter.is_empty() && !filter.iter().any(|f| name.contains(f.as_str())) {
                continue;
            }
            if !usable || !super::support::have(tool) {
                println!("SKIP {name} (no usable bwrap or no `{tool}` on this host)");
                if ci {
                    fail += 1;
                } else {
                    skip += 1;
                }
                continue;
            }
            let host = run_side(dir.path(), tool, args, false);
            let ours = run_side(dir.path(), tool, args, true);
            if host == ours {
                pass += 1;
                continue;
            }
            fail += 1;
            println!("FAIL {name} : {tool} {args:?}");
            println!(
                "  host: {} ---\n{}{}  ours: {} ---\n{}{}",
                host.0, host.1, host.2, ours.0, ours.1, ours.2
            );
        }
        println!("net_offline: {pass} passed, {fail} failed, {skip} skipped");
        if fail > 0 {
            std::process::exit(1);
        }
    }
}
