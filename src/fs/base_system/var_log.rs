//! `/var/log` of upstream's image: the files the `ubuntu:22.04` base image ships and those the
//! Dockerfile's `apt-get install` wrote. Agents read and archive them, and one gold (fs_1 #46,
//! `find /var/log/ -mtime +1 | xargs tar -czvPf …`) lists them: upstream's logged gold outputs
//! name `bootstrap.log`, `wtmp`, `alternatives.log`, `btmp`, `lastlog`, `faillog`, `dpkg.log`,
//! `apt/eipp.log.xz`, `apt/history.log`, `apt/term.log` and `fontconfig.log`, and in one run
//! (an image built the day before) only the base image's three were more than a day old. The
//! names, modes, sizes of the binary account logs and the line formats are Ubuntu's; the text
//! is short and written here, not copied from an image.

use super::super::image::DEFAULT_MTIME;

/// When the base image (`jammy-20230425`, as `ls -l /` showed upstream) was made: the mtime of
/// the logs the base image ships and nothing later rewrote.
pub const BASE_IMAGE_MTIME: i64 = 1_682_431_560;

/// The packages of upstream's Dockerfile, with the jammy (arm64) versions of spring 2023.
const PACKAGES: &[(&str, &str)] = &[
    ("bash", "5.1-6ubuntu1"),
    ("python3", "3.10.6-1~22.04"),
    ("psmisc", "23.4-2build3"),
    ("bsdmainutils", "12.1.7+nmu3ubuntu2"),
    ("cron", "3.0pl1-137ubuntu3"),
    ("imagemagick", "8:6.9.11.60+dfsg-1.3ubuntu0.22.04.3"),
    ("dnsutils", "1:9.18.12-0ubuntu0.22.04.1"),
    ("git", "1:2.34.1-1ubuntu1.9"),
    ("tree", "2.0.2-1"),
    ("net-tools", "1.60+git20181103.0eebece-1ubuntu5"),
    ("iputils-ping", "3:20211215-1"),
    ("coreutils", "8.32-4.1ubuntu1"),
    ("curl", "7.81.0-1ubuntu1.10"),
    ("cpio", "2.13+dfsg-7"),
    ("jq", "1.6-2.1ubuntu3"),
];

/// Accounts the binary logs keep a record for: uids 0 to 101 (`messagebus`, the highest
/// below `nobody` in `/etc/passwd`).
const RECORDS: usize = 102;
/// Bytes per record: `struct faillog` and `struct lastlog` on Linux.
const FAILLOG_RECORD: usize = 32;
const LASTLOG_RECORD: usize = 292;

/// A civil time `seconds` after the install started, as apt and dpkg print it.
fn stamp(seconds: i64) -> String {
    // The install ran in the last minutes before DEFAULT_MTIME (2023-06-01 00:00:00 UTC).
    let t = 23 * 3600 + 58 * 60 + seconds;
    format!(
        "2023-05-31 {:02}:{:02}:{:02}",
        t / 3600,
        (t / 60) % 60,
        t % 60
    )
}

fn dpkg_log() -> String {
    let mut log = format!("{} startup archives unpack\n", stamp(0));
    for (i, (name, version)) in PACKAGES.iter().enumerate() {
        let t = stamp(i as i64);
        log.push_str(&format!(
            "{t} install {name}:arm64 <none> {version}\n\
             {t} status half-installed {name}:arm64 {version}\n\
             {t} status unpacked {name}:arm64 {version}\n"
        ));
    }
    let start = PACKAGES.len() as i64 + 2;
    log.push_str(&format!("{} startup packages configure\n", stamp(start)));
    for (i, (name, version)) in PACKAGES.iter().enumerate() {
        let t = stamp(start + i as i64);
        log.push_str(&format!(
            "{t} configure {name}:arm64 {version} <none>\n\
             {t} status unpacked {name}:arm64 {version}\n\
             {t} status half-configured {name}:arm64 {version}\n\
             {t} status installed {name}:arm64 {version}\n"
        ));
    }
    log
}

fn command_line() -> String {
    let names: Vec<&str> = PACKAGES.iter().map(|(name, _)| *name).collect();
    format!("apt-get install -y {}", names.join(" "))
}

fn end() -> String {
    stamp(2 * PACKAGES.len() as i64 + 3).replacen(' ', "  ", 1)
}

fn history_log() -> String {
    let installed: Vec<String> = PACKAGES
        .iter()
        .map(|(name, version)| format!("{name}:arm64 ({version})"))
        .collect();
    format!(
        "\nStart-Date: {}\nCommandline: {}\nInstall: {}\nEnd-Date: {}\n",
        stamp(0).replacen(' ', "  ", 1),
        command_line(),
        installed.join(", "),
        end()
    )
}

fn term_log() -> String {
    let mut log = format!("\nLog started: {}\n", stamp(0).replacen(' ', "  ", 1));
    for (name, version) in PACKAGES {
        log.push_str(&format!(
            "Selecting previously unselected package {name}.\nUnpacking {name} ({version}) ...\n"
        ));
    }
    for (name, version) in PACKAGES {
        log.push_str(&format!("Setting up {name} ({version}) ...\n"));
    }
    log.push_str(&format!("Log ended: {}\n\n", end()));
    log
}

fn alternatives_log() -> String {
    let t = stamp(PACKAGES.len() as i64 + 8);
    [
        ("convert", "convert-im6.q16"),
        ("identify", "identify-im6.q16"),
        ("mogrify", "mogrify-im6.q16"),
    ]
    .iter()
    .map(|(name, target)| {
        format!(
            "update-alternatives {t}: run with --install /usr/bin/{name} {name} \
             /usr/bin/{target} 100\nupdate-alternatives {t}: link group {name} updated to \
             point to /usr/bin/{target}\n"
        )
    })
    .collect()
}

fn bootstrap_log() -> String {
    "I: Retrieving InRelease\nI: Checking Release signature\nI: Retrieving Packages\n\
     I: Validating Packages\nI: Resolving dependencies of required packages...\n\
     I: Checking component main on http://ports.ubuntu.com/ubuntu-ports...\n\
     I: Extracting required packages...\nI: Installing core packages...\n\
     I: Unpacking required packages...\nI: Configuring required packages...\n\
     I: Base system installed successfully.\n"
        .to_string()
}

fn fontconfig_log() -> String {
    // (directory, Some((fonts, subdirectories)) when it exists).
    let dirs: &[(&str, Option<(u32, u32)>)] = &[
        ("/usr/share/fonts", Some((0, 2))),
        ("/usr/share/fonts/truetype", Some((0, 1))),
        ("/usr/share/fonts/truetype/dejavu", Some((6, 0))),
        ("/usr/share/fonts/type1", Some((0, 1))),
        ("/usr/share/fonts/type1/urw-base35", Some((35, 0))),
        ("/usr/local/share/fonts", None),
        ("/root/.local/share/fonts", None),
        ("/root/.fonts", None),
    ];
    let mut log = String::new();
    for (dir, cached) in dirs {
        log.push_str(&match cached {
            Some((fonts, subdirs)) => {
                format!("{dir}: caching, new cache contents: {fonts} fonts, {subdirs} dirs\n")
            }
            None => format!("{dir}: skipping, no such directory\n"),
        });
    }
    log.push_str("/var/cache/fontconfig: cleaning cache directory\nfc-cache: succeeded\n");
    log
}

/// Every file of `/var/log`: (path, contents, mode, mtime).
pub fn files() -> Vec<(&'static str, Vec<u8>, u32, i64)> {
    let installed = DEFAULT_MTIME;
    vec![
        (
            "var/log/bootstrap.log",
            bootstrap_log().into_bytes(),
            0o644,
            BASE_IMAGE_MTIME,
        ),
        ("var/log/wtmp", Vec::new(), 0o664, BASE_IMAGE_MTIME),
        ("var/log/btmp", Vec::new(), 0o660, BASE_IMAGE_MTIME),
        (
            "var/log/alternatives.log",
            alternatives_log().into_bytes(),
            0o644,
            installed,
        ),
        (
            "var/log/lastlog",
            vec![0; RECORDS * LASTLOG_RECORD],
            0o664,
            installed,
        ),
        (
            "var/log/faillog",
            vec![0; RECORDS * FAILLOG_RECORD],
            0o644,
            installed,
        ),
        (
            "var/log/dpkg.log",
            dpkg_log().into_bytes(),
            0o644,
            installed,
        ),
        (
            "var/log/fontconfig.log",
            fontconfig_log().into_bytes(),
            0o644,
            installed,
        ),
        (
            "var/log/apt/eipp.log.xz",
            include_bytes!("eipp.log.xz").to_vec(),
            0o600,
            installed,
        ),
        (
            "var/log/apt/history.log",
            history_log().into_bytes(),
            0o644,
            installed,
        ),
        (
            "var/log/apt/term.log",
            term_log().into_bytes(),
            0o640,
            installed,
        ),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_install_logs_agree_with_each_other() {
        let dpkg = dpkg_log();
        for (name, version) in PACKAGES {
            assert!(dpkg.contains(&format!("status installed {name}:arm64 {version}\n")));
        }
        assert!(dpkg.lines().all(|l| l.starts_with("2023-05-31 23:5")));
        let history = history_log();
        assert!(history.contains("Commandline: apt-get install -y bash python3 psmisc"));
        assert!(history.contains("End-Date: 2023-05-31  23:58:33\n"));
        assert!(term_log().ends_with("Log ended: 2023-05-31  23:58:33\n\n"));
        // Every stamp is before the image's build time, which the tree's files carry.
        assert_eq!(stamp(119), "2023-05-31 23:59:59");
    }

    #[test]
    fn the_account_logs_have_a_record_per_uid_up_to_messagebus() {
        let files = files();
        let size = |p: &str| files.iter().find(|f| f.0 == p).unwrap().1.len();
        assert_eq!(size("var/log/faillog"), 3264);
        assert_eq!(size("var/log/lastlog"), 29784);
        assert_eq!(size("var/log/wtmp"), 0);
        let highest_below_nobody = super::super::etc::PASSWD
            .lines()
            .filter_map(|l| l.split(':').nth(2)?.parse::<usize>().ok())
            .filter(|uid| *uid < 65534)
            .max();
        assert_eq!(highest_below_nobody, Some(RECORDS - 1));
    }

    #[test]
    fn only_the_base_images_logs_are_older_than_the_build() {
        let old: Vec<&str> = files()
            .into_iter()
            .filter(|f| f.3 < DEFAULT_MTIME - 86_400)
            .map(|f| f.0)
            .collect();
        assert_eq!(
            old,
            ["var/log/bootstrap.log", "var/log/wtmp", "var/log/btmp"]
        );
    }
}
