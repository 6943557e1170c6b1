//! A tiny synthetic Ubuntu-22.04-like base system, written for this project.
//!
//! Upstream's tasks run in an `ubuntu` container, so agents (and some gold commands) look at
//! `/etc/hostname`, `/etc/passwd`, `ls /usr/bin`, `/tmp` and friends. We do not ship a real
//! distribution; this gives those paths plausible contents so exploring `/` behaves like a small
//! Linux system. Task trees are merged on top ([`TreeImage::merge`]).
//!
//! [`IGNORED_NAMES`] is upstream's `/.gitignore`: the bash reward's `git status` never sees
//! these paths, so changes there neither count nor get reset upstream.
//!
//! ```
//! let img = intercode::fs::base_system::base_system(&["ls", "cat"]);
//! assert!(img.get("usr/bin/ls").is_some() && img.get("bin").is_some());
//! ```

use super::image::{DEFAULT_MTIME, Entry, TreeImage};

/// The names in upstream's `docker/docker.gitignore`. The patterns have no slash, so git applies
/// them to a file or directory of that name at *any* depth (`testbed/bin/x` is ignored too).
pub const IGNORED_NAMES: &[&str] = &[
    "bin",
    "boot",
    "dev",
    "etc",
    "home",
    "lib",
    "media",
    "opt",
    "proc",
    "root",
    "run",
    "sbin",
    "srv",
    "sys",
    "usr",
    "var",
    ".dockerenv",
];

mod etc;
mod proc;
mod var_log;

/// The hostname the sandbox reports: like upstream's, a container id (12 hex digits). This is
/// one that upstream's logs show (`env` in gpt-3.5's fs_4 run: `HOSTNAME=4d01390b86bf`).
pub const HOSTNAME: &str = "4d01390b86bf";

/// Contents of placeholder executables: the sandbox dispatches applets by name, so these only
/// make `ls /usr/bin`, `which` and `test -x` look right.
pub const APPLET_PLACEHOLDER: &[u8] = b"#intercode applet\n";

/// Programs that Ubuntu 22.04 ships as shell scripts, with grep 3.7's text: reading them
/// (`cat /usr/bin/egrep`, `bash egrep …`) shows the script. Running them dispatches to the
/// applet by name, as for every other program.
const SCRIPT_PROGRAMS: &[(&str, &str)] = &[
    ("egrep", "#!/bin/sh\nexec grep -E \"$@\"\n"),
    ("fgrep", "#!/bin/sh\nexec grep -F \"$@\"\n"),
];

/// Directories of the image besides the task's, with their modes. The top level is what
/// upstream's `ls /` printed (fs_4 #11's gold listed `bin boot dev etc home lib media opt proc
/// root run sbin srv sys usr var` around the task's own files). `/tmp` and `/mnt` were gone
/// upstream (`git clean -fd` removes empty untracked directories); `/tmp` stays here because
/// the shell keeps process-substitution files in it. The empty ones under `/usr` and
/// `/usr/local` are what a logged `find` from `/` listed there (vicuna's fs_2 run), and
/// `grep -r … /usr/include` found the directory (fs_4). `/proc` and `/sys` are `dr-xr-xr-x` in a
/// container, but here they are 0755: restoring a used tree opens up every directory its owner
/// cannot write, which would make it rewrite them after every episode.
const DIRS: &[(&str, u32)] = &[
    ("boot", 0o755),
    ("dev", 0o755),
    ("dev/fd", 0o755),
    ("dev/shm", 0o1777),
    ("etc", 0o755),
    ("home", 0o755),
    ("media", 0o755),
    ("opt", 0o755),
    ("proc", 0o755),
    ("proc/self", 0o755),
    ("proc/sys", 0o755),
    ("proc/sys/kernel", 0o755),
    ("root", 0o700),
    ("run", 0o755),
    ("run/lock", 0o1777),
    ("srv", 0o755),
    ("sys", 0o755),
    ("tmp", 0o1777),
    ("usr", 0o755),
    ("usr/bin", 0o755),
    ("usr/games", 0o755),
    ("usr/include", 0o755),
    ("usr/lib", 0o755),
    ("usr/libexec", 0o755),
    ("usr/local", 0o755),
    ("usr/local/bin", 0o755),
    ("usr/local/etc", 0o755),
    ("usr/local/games", 0o755),
    ("usr/local/include", 0o755),
    ("usr/local/lib", 0o755),
    ("usr/local/lib/python3.10", 0o755),
    ("usr/local/lib/python3.10/dist-packages", 0o755),
    ("usr/local/sbin", 0o755),
    ("usr/local/share", 0o755),
    ("usr/local/share/ca-certificates", 0o755),
    ("usr/local/share/fonts", 0o2775),
    ("usr/local/share/man", 0o755),
    ("usr/local/src", 0o755),
    ("usr/sbin", 0o755),
    ("usr/share", 0o755),
    ("usr/src", 0o755),
    ("var", 0o755),
    ("var/backups", 0o755),
    ("var/cache", 0o755),
    ("var/lib", 0o755),
    ("var/local", 0o2775),
    ("var/log", 0o755),
    ("var/log/apt", 0o755),
    ("var/mail", 0o2775),
    ("var/opt", 0o755),
    ("var/spool", 0o755),
    ("var/tmp", 0o1777),
];

/// Ubuntu's merged-/usr links and friends: (path, target).
const SYMLINKS: &[(&str, &str)] = &[
    ("bin", "usr/bin"),
    ("lib", "usr/lib"),
    ("sbin", "usr/sbin"),
    ("usr/local/man", "share/man"),
    ("etc/os-release", "../usr/lib/os-release"),
    ("etc/mtab", "../proc/self/mounts"),
    ("proc/mounts", "self/mounts"),
    ("var/lock", "../run/lock"),
    ("var/run", "../run"),
];

/// Every regular file of the base image: (path, contents, mode).
fn files() -> Vec<(&'static str, String, u32)> {
    let text = |s: &str| s.to_string();
    vec![
        ("etc/passwd", text(etc::PASSWD), 0o644),
        ("etc/group", etc::group(), 0o644),
        ("etc/hosts", etc::hosts(HOSTNAME), 0o644),
        ("etc/hostname", format!("{HOSTNAME}\n"), 0o644),
        ("etc/resolv.conf", text(etc::RESOLV_CONF), 0o644),
        ("etc/lsb-release", text(etc::LSB_RELEASE), 0o644),
        ("etc/issue", text(etc::ISSUE), 0o644),
        ("etc/issue.net", text(etc::ISSUE_NET), 0o644),
        ("etc/debian_version", text(etc::DEBIAN_VERSION), 0o644),
        ("etc/shells", text(etc::SHELLS), 0o644),
        ("etc/networks", text(etc::NETWORKS), 0o644),
        ("usr/lib/os-release", text(etc::OS_RELEASE), 0o644),
        ("dev/null", String::new(), 0o666),
        ("proc/version", text(proc::VERSION), 0o444),
        ("proc/loadavg", text(proc::LOADAVG), 0o444),
        ("proc/uptime", text(proc::UPTIME), 0o444),
        ("proc/meminfo", text(proc::MEMINFO), 0o444),
        ("proc/cpuinfo", proc::cpuinfo(), 0o444),
        ("proc/filesystems", text(proc::FILESYSTEMS), 0o444),
        ("proc/self/mounts", text(proc::MOUNTS), 0o444),
        ("proc/sys/kernel/hostname", format!("{HOSTNAME}\n"), 0o644),
        ("proc/sys/kernel/ostype", text("Linux\n"), 0o444),
        (
            "proc/sys/kernel/osrelease",
            text("5.15.49-linuxkit\n"),
            0o444,
        ),
    ]
}

/// Builds the base system with a placeholder `/usr/bin/<name>` for each applet (`/bin` links
/// to `usr/bin`, so one copy of the placeholders keeps the per-episode reset cheap). Names
/// that are not a single path component (empty, `.`, `..`, containing `/` or NUL) are skipped
/// rather than trusted.
pub fn base_system(applet_names: &[&str]) -> TreeImage {
    let t = DEFAULT_MTIME;
    let mut img = TreeImage::empty();
    // The paths above are constants, so `insert` cannot reject them; `let _` keeps this
    // function infallible without an `unwrap`.
    for &(path, mode) in DIRS {
        let _ = img.insert(path, Entry::dir(mode, t));
    }
    for (path, contents, mode) in files() {
        let _ = img.insert(path, Entry::file(contents.into_bytes(), mode, t));
    }
    for (path, contents, mode, mtime) in var_log::files() {
        let _ = img.insert(path, Entry::file(contents, mode, mtime));
    }
    for &(path, target) in SYMLINKS {
        let _ = img.insert(path, Entry::symlink(target, t));
    }
    for name in applet_names {
        if name.is_empty() || *name == "." || *name == ".." || name.contains(['/', '\0']) {
            continue;
        }
        let contents = SCRIPT_PROGRAMS
            .iter()
            .find(|(program, _)| program == name)
            .map_or(APPLET_PLACEHOLDER, |(_, script)| script.as_bytes());
        let _ = img.insert(
            &format!("usr/bin/{name}"),
            Entry::file(contents.to_vec(), 0o755, t),
        );
    }
    img
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fs::image::EntryKind;

    #[test]
    fn has_the_expected_paths_and_modes() {
        let img = base_system(&["ls", "grep", "", "..", "a/b"]);
        for path in [
            "etc/passwd",
            "etc/group",
            "etc/hosts",
            "usr/lib/os-release",
            "dev/null",
        ] {
            assert!(
                matches!(img.get(path).unwrap().kind, EntryKind::File(_)),
                "{path}"
            );
        }
        assert_eq!(img.get("tmp").unwrap().mode, 0o1777);
        assert_eq!(img.get("root").unwrap().mode, 0o700);
        assert!(img.get("var/log").unwrap().is_dir());
        assert!(img.get("home").unwrap().is_dir());
        assert_eq!(
            img.get("bin").unwrap().kind,
            EntryKind::Symlink("usr/bin".into())
        );
        for path in ["usr/bin/ls", "usr/bin/grep"] {
            let e = img.get(path).unwrap();
            assert_eq!(e.mode, 0o755);
            assert_eq!(e.kind, EntryKind::File(APPLET_PLACEHOLDER.to_vec()));
        }
        // Bad names are skipped: nothing outside usr/bin/ appeared.
        assert!(img.get("usr/bin/a").is_none());
        let os = match &img.get("usr/lib/os-release").unwrap().kind {
            EntryKind::File(b) => String::from_utf8(b.clone()).unwrap(),
            other => panic!("{other:?}"),
        };
        assert!(os.contains("VERSION_ID=\"22.04\"") && os.contains("ID=ubuntu"));
    }

    fn text(img: &TreeImage, path: &str) -> String {
        match &img.get(path).unwrap_or_else(|| panic!("{path}")).kind {
            EntryKind::File(b) => String::from_utf8(b.clone()).unwrap(),
            other => panic!("{path}: {other:?}"),
        }
    }

    /// Upstream's logs: `cut -d: -f1 /etc/passwd | sort | uniq -c | awk '$1==1 {print $2}'`
    /// and `sort -u /etc/passwd | awk '{print $1}'` (fs_4 #24 agents) printed these 20
    /// accounts, messagebus included; the uid/gid/home/shell fields are as logged.
    #[test]
    fn passwd_has_upstreams_twenty_accounts() {
        let img = base_system(&[]);
        let passwd = text(&img, "etc/passwd");
        let mut names: Vec<&str> = passwd
            .lines()
            .map(|l| l.split(':').next().unwrap())
            .collect();
        assert_eq!(names.len(), 20);
        names.sort_unstable();
        assert_eq!(
            names.join(" "),
            "_apt backup bin daemon games gnats irc list lp mail man messagebus news nobody \
             proxy root sync sys uucp www-data"
        );
        for logged in [
            "_apt:x:100:65534::/nonexistent:/usr/sbin/nologin",
            "messagebus:x:101:102::/nonexistent:/usr/sbin/nologin",
            "sync:x:4:65534:sync:/bin:/bin/sync",
            "man:x:6:12:man:/var/cache/man:/usr/sbin/nologin",
            "irc:x:39:39:ircd:/run/ircd:/usr/sbin/nologin",
        ] {
            assert!(passwd.lines().any(|l| l == logged), "{logged}");
        }
        assert!(passwd.starts_with("root:x:0:0:root:/root:/bin/bash\n"));
    }

    /// fs_4 #24's gold `cut -d: -f1 /etc/group | sort` and an agent's unsorted
    /// `cut -d: -f1 /etc/group` (ReAct fs_4) give the names and their order; `grep -v '^:'
    /// /etc/group | sort | uniq` gave the gids and empty member lists.
    #[test]
    fn group_is_upstreams_in_file_order() {
        let group = text(&base_system(&[]), "etc/group");
        let names: Vec<&str> = group
            .lines()
            .map(|l| l.split(':').next().unwrap())
            .collect();
        assert_eq!(
            names.join(" "),
            "root daemon bin sys adm tty disk lp mail news uucp man proxy kmem dialout fax \
             voice cdrom floppy tape sudo audio dip www-data backup operator list irc src gnats \
             shadow utmp video sasl plugdev staff games users nogroup crontab messagebus _ssh"
        );
        for logged in [
            "_ssh:x:103:",
            "crontab:x:101:",
            "messagebus:x:102:",
            "nogroup:x:65534:",
        ] {
            assert!(group.lines().any(|l| l == logged), "{logged}");
        }
        assert!(group.lines().all(|l| l.ends_with(':')));
    }

    /// `grep $(hostname) /etc/hosts` printed `172.17.0.2\ta2b9966d9afc` upstream.
    #[test]
    fn hosts_maps_the_container_name_like_docker() {
        let img = base_system(&[]);
        let hosts = text(&img, "etc/hosts");
        assert!(hosts.ends_with(&format!("\n172.17.0.2\t{HOSTNAME}\n")));
        assert!(hosts.starts_with("127.0.0.1\tlocalhost\n"));
        assert_eq!(text(&img, "etc/hostname"), format!("{HOSTNAME}\n"));
        assert_eq!(
            text(&img, "proc/sys/kernel/hostname"),
            format!("{HOSTNAME}\n")
        );
        assert_eq!(HOSTNAME.len(), 12);
        assert!(HOSTNAME.bytes().all(|b| b.is_ascii_hexdigit()));
    }

    /// fs_4 #11's gold (`xargs ls -ls` in `/`) listed the top level; the majority of runs
    /// (aarch64) had no lib32/lib64/libx32 links.
    #[test]
    fn top_level_matches_upstreams_listing() {
        let img = base_system(&[]);
        let mut top: Vec<&str> = img
            .iter()
            .map(|(p, _)| p)
            .filter(|p| !p.contains('/'))
            .collect();
        top.sort_unstable();
        assert_eq!(
            top.join(" "),
            "bin boot dev etc home lib media opt proc root run sbin srv sys tmp usr var"
        );
        for (link, target) in [("bin", "usr/bin"), ("lib", "usr/lib"), ("sbin", "usr/sbin")] {
            assert_eq!(
                img.get(link).unwrap().kind,
                EntryKind::Symlink(target.into())
            );
        }
    }

    /// `cat /proc/version | awk '{print $3}'` → `5.15.49-linuxkit`; `uname -r` likewise;
    /// `cat /proc/loadavg` gave five fields like `0.04 0.04 0.02 6/606 1042`.
    #[test]
    fn proc_facts_agree_with_each_other() {
        let img = base_system(&[]);
        let version = text(&img, "proc/version");
        assert_eq!(version.split(' ').nth(2), Some("5.15.49-linuxkit"));
        assert!(
            version
                .trim_end()
                .ends_with("#1 SMP PREEMPT Tue Sep 13 07:51:46 UTC 2022")
        );
        assert_eq!(
            text(&img, "proc/sys/kernel/osrelease"),
            "5.15.49-linuxkit\n"
        );
        let load = text(&img, "proc/loadavg");
        assert_eq!(load.split_whitespace().count(), 5);
        assert_eq!(load.split_whitespace().nth(2), Some("0.03"));
        let cpus = text(&img, "proc/cpuinfo");
        assert_eq!(cpus.matches("processor\t:").count(), 4, "nproc says 4");
        let mem = text(&img, "proc/meminfo");
        let kb = |k: &str| -> u64 {
            mem.lines()
                .find(|l| l.starts_with(&format!("{k}:")))
                .and_then(|l| l.split_whitespace().nth(1))
                .unwrap()
                .parse()
                .unwrap()
        };
        // procps 3.3.17 and 4.x agree on `used` only when this holds (see `proc::MEMINFO`).
        assert_eq!(
            kb("MemAvailable"),
            kb("MemFree") + kb("Buffers") + kb("Cached") + kb("SReclaimable")
        );
        let mounts = text(&img, "proc/self/mounts");
        assert!(mounts.starts_with("overlay / overlay "));
        assert_eq!(
            img.get("etc/mtab").unwrap().kind,
            EntryKind::Symlink("../proc/self/mounts".into())
        );
    }

    /// Ubuntu 22.04.2 release files.
    #[test]
    fn release_files() {
        let img = base_system(&[]);
        assert_eq!(text(&img, "etc/debian_version"), "bookworm/sid\n");
        assert!(text(&img, "etc/lsb-release").contains("DISTRIB_CODENAME=jammy\n"));
        assert!(text(&img, "etc/shells").lines().any(|l| l == "/bin/bash"));
        assert!(text(&img, "etc/resolv.conf").contains("nameserver 192.168.65.7\n"));
        assert_eq!(
            img.get("etc/os-release").unwrap().kind,
            EntryKind::Symlink("../usr/lib/os-release".into())
        );
    }

    #[test]
    fn every_top_level_base_dir_is_ignored_by_upstream_git_except_tmp() {
        let img = base_system(&[]);
        for (path, _) in img.iter() {
            let top = path.split('/').next().unwrap();
            assert!(top == "tmp" || IGNORED_NAMES.contains(&top), "{path}");
        }
    }
}
