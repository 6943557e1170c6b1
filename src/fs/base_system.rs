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

/// The hostname the sandbox reports (upstream's was the container id).
pub const HOSTNAME: &str = "intercode";

/// Contents of placeholder executables: the sandbox dispatches applets by name, so these only
/// make `ls /usr/bin`, `which` and `test -x` look right.
pub const APPLET_PLACEHOLDER: &[u8] = b"#intercode applet\n";

const PASSWD: &str = "\
root:x:0:0:root:/root:/bin/bash
daemon:x:1:1:daemon:/usr/sbin:/usr/sbin/nologin
bin:x:2:2:bin:/bin:/usr/sbin/nologin
sys:x:3:3:sys:/dev:/usr/sbin/nologin
nobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin
";

const GROUP: &str = "\
root:x:0:
daemon:x:1:
bin:x:2:
sys:x:3:
adm:x:4:
tty:x:5:
disk:x:6:
staff:x:50:
users:x:100:
nogroup:x:65534:
";

const HOSTS: &str = "\
127.0.0.1\tlocalhost
::1\tlocalhost ip6-localhost ip6-loopback
127.0.1.1\tintercode
";

const OS_RELEASE: &str = "\
PRETTY_NAME=\"Ubuntu 22.04.2 LTS\"
NAME=\"Ubuntu\"
VERSION_ID=\"22.04\"
VERSION=\"22.04.2 LTS (Jammy Jellyfish)\"
VERSION_CODENAME=jammy
ID=ubuntu
ID_LIKE=debian
UBUNTU_CODENAME=jammy
";

/// `/etc/networks` as Ubuntu ships it (two lines of facts: a comment and the link-local net).
const NETWORKS: &str =
    "# symbolic names for networks, see networks(5) for more information\nlink-local 169.254.0.0\n";

/// Builds the base system with a placeholder `/usr/bin/<name>` for each applet and, as in
/// Ubuntu 22.04, `/bin` as a relative symlink to `usr/bin` (one copy of the placeholders keeps
/// the per-episode reset cheap). Names that are not a single path component (empty, `.`, `..`,
/// containing `/` or NUL) are skipped rather than trusted.
pub fn base_system(applet_names: &[&str]) -> TreeImage {
    let t = DEFAULT_MTIME;
    let mut img = TreeImage::empty();
    let dirs: &[(&str, u32)] = &[
        ("dev", 0o755),
        ("etc", 0o755),
        ("home", 0o755),
        ("root", 0o700),
        ("tmp", 0o1777),
        ("usr", 0o755),
        ("usr/bin", 0o755),
        ("var", 0o755),
        ("var/log", 0o755),
    ];
    let files: &[(&str, &str, u32)] = &[
        ("etc/passwd", PASSWD, 0o644),
        ("etc/group", GROUP, 0o644),
        ("etc/hosts", HOSTS, 0o644),
        ("etc/hostname", "intercode\n", 0o644),
        ("etc/os-release", OS_RELEASE, 0o644),
        ("etc/networks", NETWORKS, 0o644),
        ("dev/null", "", 0o666),
    ];
    // The paths above are constants, so `insert` cannot reject them; `let _` keeps this
    // function infallible without an `unwrap`.
    for &(path, mode) in dirs {
        let _ = img.insert(path, Entry::dir(mode, t));
    }
    for &(path, contents, mode) in files {
        let _ = img.insert(path, Entry::file(contents.as_bytes().to_vec(), mode, t));
    }
    let _ = img.insert("bin", Entry::symlink("usr/bin", t));
    for name in applet_names {
        if name.is_empty() || *name == "." || *name == ".." || name.contains(['/', '\0']) {
            continue;
        }
        let _ = img.insert(
            &format!("usr/bin/{name}"),
            Entry::file(APPLET_PLACEHOLDER.to_vec(), 0o755, t),
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
            "etc/os-release",
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
            img.get("etc/hostname").unwrap().kind,
            EntryKind::File(b"intercode\n".to_vec())
        );
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
        let os = match &img.get("etc/os-release").unwrap().kind {
            EntryKind::File(b) => String::from_utf8(b.clone()).unwrap(),
            other => panic!("{other:?}"),
        };
        assert!(os.contains("VERSION_ID=\"22.04\"") && os.contains("ID=ubuntu"));
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
