//! `/etc` of upstream's image: `ubuntu:22.04` (22.04.2, pulled in spring 2023) with the
//! packages of upstream's Dockerfile. The accounts are the base image's plus the two that
//! those packages add (`messagebus` from dbus, which imagemagick pulls in; the `crontab` and
//! `_ssh` groups from cron and openssh-client). Every line here was either printed by a logged
//! observation (cited in the tests) or is the stock Ubuntu 22.04 value of a field the
//! observations cut short (the GECOS of `list` and `gnats`).

/// `/etc/passwd`, in the file's own order (base accounts by uid, then those the packages
/// created).
pub const PASSWD: &str = "\
root:x:0:0:root:/root:/bin/bash
daemon:x:1:1:daemon:/usr/sbin:/usr/sbin/nologin
bin:x:2:2:bin:/bin:/usr/sbin/nologin
sys:x:3:3:sys:/dev:/usr/sbin/nologin
sync:x:4:65534:sync:/bin:/bin/sync
games:x:5:60:games:/usr/games:/usr/sbin/nologin
man:x:6:12:man:/var/cache/man:/usr/sbin/nologin
lp:x:7:7:lp:/var/spool/lpd:/usr/sbin/nologin
mail:x:8:8:mail:/var/mail:/usr/sbin/nologin
news:x:9:9:news:/var/spool/news:/usr/sbin/nologin
uucp:x:10:10:uucp:/var/spool/uucp:/usr/sbin/nologin
proxy:x:13:13:proxy:/bin:/usr/sbin/nologin
www-data:x:33:33:www-data:/var/www:/usr/sbin/nologin
backup:x:34:34:backup:/var/backups:/usr/sbin/nologin
list:x:38:38:Mailing List Manager:/var/list:/usr/sbin/nologin
irc:x:39:39:ircd:/run/ircd:/usr/sbin/nologin
gnats:x:41:41:Gnats Bug-Reporting System (admin):/var/lib/gnats:/usr/sbin/nologin
nobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin
_apt:x:100:65534::/nonexistent:/usr/sbin/nologin
messagebus:x:101:102::/nonexistent:/usr/sbin/nologin
";

/// `/etc/group` as (name, gid), in the file's order; no group lists members.
pub const GROUPS: &[(&str, u32)] = &[
    ("root", 0),
    ("daemon", 1),
    ("bin", 2),
    ("sys", 3),
    ("adm", 4),
    ("tty", 5),
    ("disk", 6),
    ("lp", 7),
    ("mail", 8),
    ("news", 9),
    ("uucp", 10),
    ("man", 12),
    ("proxy", 13),
    ("kmem", 15),
    ("dialout", 20),
    ("fax", 21),
    ("voice", 22),
    ("cdrom", 24),
    ("floppy", 25),
    ("tape", 26),
    ("sudo", 27),
    ("audio", 29),
    ("dip", 30),
    ("www-data", 33),
    ("backup", 34),
    ("operator", 37),
    ("list", 38),
    ("irc", 39),
    ("src", 40),
    ("gnats", 41),
    ("shadow", 42),
    ("utmp", 43),
    ("video", 44),
    ("sasl", 45),
    ("plugdev", 46),
    ("staff", 50),
    ("games", 60),
    ("users", 100),
    ("nogroup", 65534),
    ("crontab", 101),
    ("messagebus", 102),
    ("_ssh", 103),
];

/// `/etc/group` text from [`GROUPS`].
pub fn group() -> String {
    GROUPS
        .iter()
        .map(|(name, gid)| format!("{name}:x:{gid}:\n"))
        .collect()
}

/// `/etc/hosts` as Docker writes it for a container on the default bridge network; the last
/// line maps the container's own name to its address.
pub fn hosts(hostname: &str) -> String {
    format!(
        "127.0.0.1\tlocalhost\n::1\tlocalhost ip6-localhost ip6-loopback\nfe00::0\tip6-localnet\n\
         ff00::0\tip6-mcastprefix\nff02::1\tip6-allnodes\nff02::2\tip6-allrouters\n\
         {CONTAINER_ADDRESS}\t{hostname}\n"
    )
}

/// The container's address on Docker's default bridge.
pub const CONTAINER_ADDRESS: &str = "172.17.0.2";

/// Docker Desktop's resolver, as upstream's `dig` reported it (`SERVER: 192.168.65.7#53`).
pub const RESOLV_CONF: &str = "\
# DNS requests are forwarded to the host. DHCP DNS options are ignored.
nameserver 192.168.65.7
";

/// `/usr/lib/os-release` (`/etc/os-release` links to it, as on Ubuntu).
pub const OS_RELEASE: &str = "\
PRETTY_NAME=\"Ubuntu 22.04.2 LTS\"
NAME=\"Ubuntu\"
VERSION_ID=\"22.04\"
VERSION=\"22.04.2 LTS (Jammy Jellyfish)\"
VERSION_CODENAME=jammy
ID=ubuntu
ID_LIKE=debian
HOME_URL=\"https://www.ubuntu.com/\"
SUPPORT_URL=\"https://help.ubuntu.com/\"
BUG_REPORT_URL=\"https://bugs.launchpad.net/ubuntu/\"
PRIVACY_POLICY_URL=\"https://www.ubuntu.com/legal/terms-and-policies/privacy-policy\"
UBUNTU_CODENAME=jammy
";

pub const LSB_RELEASE: &str = "\
DISTRIB_ID=Ubuntu
DISTRIB_RELEASE=22.04
DISTRIB_CODENAME=jammy
DISTRIB_DESCRIPTION=\"Ubuntu 22.04.2 LTS\"
";

/// The login banner: getty expands `\n` (host name) and `\l` (tty); the file holds them raw.
pub const ISSUE: &str = "Ubuntu 22.04.2 LTS \\n \\l\n\n";
pub const ISSUE_NET: &str = "Ubuntu 22.04.2 LTS\n";
/// Ubuntu keeps the Debian release it branched from.
pub const DEBIAN_VERSION: &str = "bookworm/sid\n";

pub const SHELLS: &str = "\
# /etc/shells: valid login shells
/bin/sh
/bin/bash
/usr/bin/bash
/bin/rbash
/usr/bin/rbash
/usr/bin/sh
/bin/dash
/usr/bin/dash
";

/// `/etc/networks` as Ubuntu ships it (a comment and the link-local net).
pub const NETWORKS: &str =
    "# symbolic names for networks, see networks(5) for more information\nlink-local 169.254.0.0\n";
