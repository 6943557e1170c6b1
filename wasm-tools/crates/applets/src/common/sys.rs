//! System facts: error texts as glibc's `strerror` prints them, user and group names from the
//! sandbox's `/etc/passwd` and `/etc/group`, the current user, and arguments and paths as the
//! bytes they are.

use std::collections::HashMap;
use std::io;
use std::sync::OnceLock;

/// The bytes of an argument or a path: Unix and WASI carry them as they are, not as UTF-8.
pub fn os_bytes(s: &std::ffi::OsStr) -> Vec<u8> {
    #[cfg(unix)]
    use std::os::unix::ffi::OsStrExt;
    #[cfg(target_os = "wasi")]
    use std::os::wasi::ffi::OsStrExt;
    s.as_bytes().to_vec()
}

/// A path made of bytes as they are (see [`os_bytes`]).
pub fn path_of(b: &[u8]) -> std::path::PathBuf {
    #[cfg(unix)]
    use std::os::unix::ffi::OsStrExt;
    #[cfg(target_os = "wasi")]
    use std::os::wasi::ffi::OsStrExt;
    std::path::PathBuf::from(std::ffi::OsStr::from_bytes(b))
}

/// glibc's message for an error, without Rust's ` (os error N)` suffix.
pub fn strerror(e: &io::Error) -> String {
    if let Some(code) = e.raw_os_error()
        && let Some(msg) = raw_message(code)
    {
        return msg.to_string();
    }
    use io::ErrorKind as K;
    let msg = match e.kind() {
        K::NotFound => "No such file or directory",
        K::PermissionDenied => "Permission denied",
        K::AlreadyExists => "File exists",
        K::NotADirectory => "Not a directory",
        K::IsADirectory => "Is a directory",
        K::DirectoryNotEmpty => "Directory not empty",
        K::ReadOnlyFilesystem => "Read-only file system",
        K::StorageFull => "No space left on device",
        K::InvalidInput => "Invalid argument",
        K::BrokenPipe => "Broken pipe",
        K::CrossesDevices => "Invalid cross-device link",
        K::InvalidFilename => "File name too long",
        K::Unsupported => "Operation not supported",
        K::Interrupted => "Interrupted system call",
        K::WouldBlock => "Resource temporarily unavailable",
        K::ResourceBusy => "Device or resource busy",
        K::UnexpectedEof => "Input/output error",
        _ => return e.to_string(),
    };
    msg.to_string()
}

/// WASI preview 1 errno values (what `io::Error::raw_os_error` holds in the guest).
#[cfg(target_os = "wasi")]
fn raw_message(code: i32) -> Option<&'static str> {
    Some(match code {
        2 => "Permission denied",
        6 => "Resource temporarily unavailable",
        8 => "Bad file descriptor",
        10 => "Device or resource busy",
        12 => "No child processes",
        20 => "File exists",
        27 => "Interrupted system call",
        28 => "Invalid argument",
        29 => "Input/output error",
        31 => "Is a directory",
        32 => "Too many levels of symbolic links",
        37 => "File name too long",
        44 => "No such file or directory",
        51 => "No space left on device",
        52 => "Function not implemented",
        54 => "Not a directory",
        55 => "Directory not empty",
        58 => "Operation not supported",
        60 => "No such device or address",
        63 => "Operation not permitted",
        64 => "Broken pipe",
        69 => "Read-only file system",
        75 => "Invalid cross-device link",
        _ => return None,
    })
}

/// Linux errno values (native test runs).
#[cfg(not(target_os = "wasi"))]
fn raw_message(code: i32) -> Option<&'static str> {
    Some(match code {
        1 => "Operation not permitted",
        2 => "No such file or directory",
        4 => "Interrupted system call",
        5 => "Input/output error",
        6 => "No such device or address",
        7 => "Argument list too long",
        9 => "Bad file descriptor",
        10 => "No child processes",
        11 => "Resource temporarily unavailable",
        13 => "Permission denied",
        16 => "Device or resource busy",
        17 => "File exists",
        18 => "Invalid cross-device link",
        20 => "Not a directory",
        21 => "Is a directory",
        22 => "Invalid argument",
        26 => "Text file busy",
        28 => "No space left on device",
        30 => "Read-only file system",
        32 => "Broken pipe",
        36 => "File name too long",
        38 => "Function not implemented",
        39 => "Directory not empty",
        40 => "Too many levels of symbolic links",
        95 => "Operation not supported",
        _ => return None,
    })
}

/// One parsed `/etc/passwd` or `/etc/group` database: id ↔ name.
#[derive(Debug, Default)]
pub struct IdDb {
    by_id: HashMap<u32, String>,
    by_name: HashMap<String, u32>,
    /// Primary group of each user (passwd only).
    pub gid_of: HashMap<String, u32>,
    /// Supplementary members of each group (group only).
    pub members: HashMap<u32, Vec<String>>,
}

impl IdDb {
    /// Parses colon-separated records; the first entry for an id or name wins, as with
    /// `getpwuid`/`getpwnam` scanning the file.
    pub fn parse(text: &str, is_passwd: bool) -> IdDb {
        let mut db = IdDb::default();
        for line in text.lines() {
            let f: Vec<&str> = line.split(':').collect();
            if f.len() < 3 || f[0].is_empty() || f[0].starts_with('#') {
                continue;
            }
            let Ok(id) = f[2].parse::<u32>() else {
                continue;
            };
            db.by_id.entry(id).or_insert_with(|| f[0].to_string());
            db.by_name.entry(f[0].to_string()).or_insert(id);
            if is_passwd {
                if let Some(g) = f.get(3).and_then(|g| g.parse().ok()) {
                    db.gid_of.entry(f[0].to_string()).or_insert(g);
                }
            } else if let Some(m) = f.get(3) {
                let list: Vec<String> = m
                    .split(',')
                    .filter(|s| !s.is_empty())
                    .map(String::from)
                    .collect();
                db.members.entry(id).or_insert(list);
            }
        }
        db
    }

    pub fn name(&self, id: u32) -> Option<&str> {
        self.by_id.get(&id).map(String::as_str)
    }

    pub fn id(&self, name: &str) -> Option<u32> {
        self.by_name.get(name).copied()
    }
}

fn load(path: &str, is_passwd: bool) -> IdDb {
    IdDb::parse(
        &std::fs::read_to_string(path).unwrap_or_default(),
        is_passwd,
    )
}

/// `/etc/passwd`, read once per process (applets are short-lived, one per instance).
pub fn passwd() -> &'static IdDb {
    static DB: OnceLock<IdDb> = OnceLock::new();
    DB.get_or_init(|| load("/etc/passwd", true))
}

/// `/etc/group`, read once per process.
pub fn group() -> &'static IdDb {
    static DB: OnceLock<IdDb> = OnceLock::new();
    DB.get_or_init(|| load("/etc/group", false))
}

/// User name for a uid, or the number as text (what `ls`, `find -ls`, `stat` print).
pub fn user_name(uid: u32) -> String {
    passwd()
        .name(uid)
        .map_or_else(|| uid.to_string(), String::from)
}

/// Group name for a gid, or the number as text.
pub fn group_name(gid: u32) -> String {
    group()
        .name(gid)
        .map_or_else(|| gid.to_string(), String::from)
}

/// The effective uid. Inside the sandbox every process is root (upstream ran everything as
/// root in its container); natively it is read from `/proc/self/status`.
pub fn euid() -> u32 {
    #[cfg(target_os = "wasi")]
    {
        0
    }
    #[cfg(not(target_os = "wasi"))]
    {
        proc_status_id("Uid:").unwrap_or(0)
    }
}

/// The effective gid (root's inside the sandbox).
pub fn egid() -> u32 {
    #[cfg(target_os = "wasi")]
    {
        0
    }
    #[cfg(not(target_os = "wasi"))]
    {
        proc_status_id("Gid:").unwrap_or(0)
    }
}

#[cfg(not(target_os = "wasi"))]
fn proc_status_id(field: &str) -> Option<u32> {
    let s = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = s.lines().find(|l| l.starts_with(field))?;
    // Fields: real, effective, saved, filesystem.
    line.split_whitespace().nth(2)?.parse().ok()
}

/// Would `access(path, mode)` succeed for the current user, judged from the mode bits
/// (`want` is a mask of 4 = read, 2 = write, 1 = execute). Root passes read and write checks
/// and execute checks when any execute bit is set or the file is a directory, like Linux.
pub fn access_ok(st: &hostcalls::Stat, want: u32) -> bool {
    let uid = euid();
    if uid == 0 {
        if want & 1 != 0 {
            return st.is_dir() || st.mode & 0o111 != 0;
        }
        return true;
    }
    let bits = if st.uid == uid {
        (st.mode >> 6) & 7
    } else if st.gid == egid() {
        (st.mode >> 3) & 7
    } else {
        st.mode & 7
    };
    bits & want == want
}

/// The host name: `/etc/hostname` (the sandbox provides one), first line.
pub fn hostname() -> String {
    std::fs::read_to_string("/etc/hostname")
        .ok()
        .and_then(|s| s.lines().next().map(|l| l.trim().to_string()))
        .filter(|s| !s.is_empty())
        .unwrap_or_else(|| "localhost".to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_without_os_error_suffix() {
        let e = io::Error::from(io::ErrorKind::NotFound);
        assert_eq!(strerror(&e), "No such file or directory");
        #[cfg(not(target_os = "wasi"))]
        assert_eq!(
            strerror(&io::Error::from_raw_os_error(40)),
            "Too many levels of symbolic links"
        );
    }

    #[test]
    fn id_db_parses_passwd_and_group() {
        let p = IdDb::parse(
            "root:x:0:0:root:/root:/bin/bash\n#c\nbin:x:2:2::/:/x\n",
            true,
        );
        assert_eq!(p.name(0), Some("root"));
        assert_eq!(p.id("bin"), Some(2));
        assert_eq!(p.gid_of["bin"], 2);
        let g = IdDb::parse("adm:x:4:syslog,ubuntu\n", false);
        assert_eq!(g.members[&4], vec!["syslog", "ubuntu"]);
    }
}
