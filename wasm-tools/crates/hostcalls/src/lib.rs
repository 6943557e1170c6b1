//! Safe wrappers around the `intercode` host imports.
//!
//! WASI preview 1 has no processes, no pipes between instances, no `dup`, and no permission
//! bits. The host fills those gaps with a small import module named `intercode`; this crate is
//! the only place in the guest that calls it. Every guest process owns a table of *handles*
//! (the host's equivalent of file descriptors): 0, 1 and 2 are the process's own stdin, stdout
//! and stderr, and new handles come from [`pipe`], [`open`] and [`dup`]. Handles are passed to
//! children by [`spawn`], which starts a fresh instance of the same multicall module.
//!
//! On a native target the same API is backed by `std` so applets can be tested against GNU
//! tools on the host; only the calls applets need natively (spawn with inherited stdio, stat,
//! chmod, sleep, reads/writes on 0–2) are supported there.
//!
//! ```no_run
//! let (r, w) = hostcalls::pipe().unwrap();
//! let pid = hostcalls::spawn(&hostcalls::SpawnRequest {
//!     argv: vec!["ls".into(), "-l".into()],
//!     env: vec![("PWD".into(), "/".into())],
//!     cwd: "/".into(),
//!     stdio: [0, w, 2],
//! }).unwrap();
//! hostcalls::close(w).unwrap();
//! let mut buf = [0u8; 4096];
//! let n = hostcalls::read(r, &mut buf).unwrap();
//! let status = hostcalls::wait(pid).unwrap();
//! ```

use std::io;
use std::time::Duration;

/// A host-owned I/O object (pipe end, open file, null sink, captured output) in this process.
pub type Handle = u32;
/// A child process started with [`spawn`].
pub type Pid = u32;

/// The environment variable in which the host hands a new process its working directory
/// (WASI has none of its own). The process takes it out of its environment at start
/// ([`enter_start_dir`]), so `env` shows only what the parent exported: `env -i A=1 env`
/// prints `A=1` alone, as on Linux, where a host-made `PWD` used to appear.
pub const CWD_VAR: &str = "INTERCODE_CWD";

/// This process's starting directory, removed from its environment: [`CWD_VAR`], or `PWD`
/// from a host that sets only that; [`start_dir`] gives it again later. Called first in
/// `main` (through [`enter_start_dir`]), before any thread starts.
fn take_start_dir() -> Option<String> {
    let dir = std::env::var(CWD_VAR).ok();
    if dir.is_some() {
        // SAFETY: called first thing in a process's `main`, before it starts any thread, so
        // nothing reads the environment meanwhile.
        #[allow(unsafe_code)]
        unsafe {
            std::env::remove_var(CWD_VAR)
        };
    }
    let dir = dir.or_else(|| std::env::var("PWD").ok());
    if let Some(d) = &dir {
        let _ = START_DIR.set(d.clone());
    }
    dir
}

/// Enters the directory the host started this process in, even one removed since: relative names then fail there (`touch f` in a removed directory), as on
/// Linux, where they used to resolve against `/`.
pub fn enter_start_dir() {
    if let Some(dir) = take_start_dir()
        && std::env::set_current_dir(&dir).is_err()
        && dir.starts_with('/')
    {
        imp::force_cwd(&dir);
    }
}

static START_DIR: std::sync::OnceLock<String> = std::sync::OnceLock::new();

/// The directory [`enter_start_dir`] found, as the host gave it (a directory removed since is
/// still named: the shell keeps `$PWD` as bash does).
pub fn start_dir() -> Option<&'static str> {
    START_DIR.get().map(String::as_str)
}

pub const STDIN: Handle = 0;
pub const STDOUT: Handle = 1;
pub const STDERR: Handle = 2;

/// Everything a child process starts with: nothing is inherited implicitly.
#[derive(Debug, Clone, Default)]
pub struct SpawnRequest {
    /// argv[0] is the applet name (`ls`), resolved by the multicall module.
    pub argv: Vec<String>,
    pub env: Vec<(String, String)>,
    /// Absolute working directory inside the sandbox.
    pub cwd: String,
    /// Handles of *this* process to become the child's stdin, stdout and stderr.
    pub stdio: [Handle; 3],
}

impl SpawnRequest {
    /// Wire format read by the host: five little-endian u32 (argc, envc, stdin, stdout,
    /// stderr), then length-prefixed strings: argv, `KEY=VALUE` env entries, cwd.
    pub fn encode(&self) -> Vec<u8> {
        let mut out = Vec::new();
        for n in [
            self.argv.len() as u32,
            self.env.len() as u32,
            self.stdio[0],
            self.stdio[1],
            self.stdio[2],
        ] {
            out.extend_from_slice(&n.to_le_bytes());
        }
        let mut push = |s: &[u8]| {
            out.extend_from_slice(&(s.len() as u32).to_le_bytes());
            out.extend_from_slice(s);
        };
        for a in &self.argv {
            push(a.as_bytes());
        }
        for (k, v) in &self.env {
            push(format!("{k}={v}").as_bytes());
        }
        push(self.cwd.as_bytes());
        out
    }

    /// The host's side of [`SpawnRequest::encode`]: `None` for bytes that are not one whole
    /// request (truncated, not UTF-8, an env entry without `=`, no argv, absurd counts).
    pub fn decode(bytes: &[u8]) -> Option<SpawnRequest> {
        let mut pos = 0;
        let u32_at = |pos: &mut usize| -> Option<u32> {
            let b = bytes.get(*pos..pos.checked_add(4)?)?;
            *pos += 4;
            Some(u32::from_le_bytes(b.try_into().ok()?))
        };
        let argc = u32_at(&mut pos)? as usize;
        let envc = u32_at(&mut pos)? as usize;
        let stdio = [u32_at(&mut pos)?, u32_at(&mut pos)?, u32_at(&mut pos)?];
        let string = |pos: &mut usize| -> Option<String> {
            let len = u32_at(pos)? as usize;
            let s = bytes.get(*pos..pos.checked_add(len)?)?;
            *pos += len;
            String::from_utf8(s.to_vec()).ok()
        };
        // Counts are checked before anything is allocated for them.
        if argc == 0 || argc > 1 << 20 || envc > 1 << 16 {
            return None;
        }
        let argv = (0..argc)
            .map(|_| string(&mut pos))
            .collect::<Option<Vec<_>>>()?;
        let env = (0..envc)
            .map(|_| {
                let entry = string(&mut pos)?;
                let (k, v) = entry.split_once('=')?;
                Some((k.to_string(), v.to_string()))
            })
            .collect::<Option<Vec<_>>>()?;
        let cwd = string(&mut pos)?;
        Some(SpawnRequest {
            argv,
            env,
            cwd,
            stdio,
        })
    }
}

/// How [`open`] opens a path (for shell redirections).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct OpenFlags {
    pub read: bool,
    pub write: bool,
    pub append: bool,
    pub create: bool,
    pub truncate: bool,
    pub exclusive: bool,
}

impl OpenFlags {
    pub const READ: OpenFlags = OpenFlags {
        read: true,
        write: false,
        append: false,
        create: false,
        truncate: false,
        exclusive: false,
    };
    pub const WRITE_TRUNCATE: OpenFlags = OpenFlags {
        read: false,
        write: true,
        append: false,
        create: true,
        truncate: true,
        exclusive: false,
    };
    pub const APPEND: OpenFlags = OpenFlags {
        read: false,
        write: true,
        append: true,
        create: true,
        truncate: false,
        exclusive: false,
    };

    pub fn bits(self) -> u32 {
        (self.read as u32)
            | (self.write as u32) << 1
            | (self.append as u32) << 2
            | (self.create as u32) << 3
            | (self.truncate as u32) << 4
            | (self.exclusive as u32) << 5
    }

    pub fn from_bits(b: u32) -> OpenFlags {
        OpenFlags {
            read: b & 1 != 0,
            write: b & 2 != 0,
            append: b & 4 != 0,
            create: b & 8 != 0,
            truncate: b & 16 != 0,
            exclusive: b & 32 != 0,
        }
    }
}

/// POSIX metadata that WASI preview 1 does not carry (mode bits, owners, inode, blocks).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Stat {
    /// `st_mode`: file type bits (`S_IFREG` …) and permission bits.
    pub mode: u32,
    pub uid: u32,
    pub gid: u32,
    pub nlink: u64,
    pub ino: u64,
    pub dev: u64,
    pub size: u64,
    /// 512-byte blocks, as `st_blocks`.
    pub blocks: u64,
    pub atime_ns: i64,
    pub mtime_ns: i64,
    pub ctime_ns: i64,
}

pub const S_IFMT: u32 = 0o170000;
pub const S_IFDIR: u32 = 0o040000;
pub const S_IFREG: u32 = 0o100000;
pub const S_IFLNK: u32 = 0o120000;

impl Stat {
    /// Number of u64 words in the wire format written by the host.
    pub const WORDS: usize = 11;

    pub fn from_words(w: &[u64; Self::WORDS]) -> Stat {
        Stat {
            mode: w[0] as u32,
            uid: w[1] as u32,
            gid: w[2] as u32,
            nlink: w[3],
            ino: w[4],
            dev: w[5],
            size: w[6],
            blocks: w[7],
            atime_ns: w[8] as i64,
            mtime_ns: w[9] as i64,
            ctime_ns: w[10] as i64,
        }
    }

    pub fn to_words(&self) -> [u64; Self::WORDS] {
        [
            self.mode as u64,
            self.uid as u64,
            self.gid as u64,
            self.nlink,
            self.ino,
            self.dev,
            self.size,
            self.blocks,
            self.atime_ns as u64,
            self.mtime_ns as u64,
            self.ctime_ns as u64,
        ]
    }

    pub fn is_dir(&self) -> bool {
        self.mode & S_IFMT == S_IFDIR
    }
    pub fn is_file(&self) -> bool {
        self.mode & S_IFMT == S_IFREG
    }
    pub fn is_symlink(&self) -> bool {
        self.mode & S_IFMT == S_IFLNK
    }
    pub fn permissions(&self) -> u32 {
        self.mode & 0o7777
    }
}

/// Error numbers the host returns; they are WASI errno values so that `io::Error` prints the
/// right message inside the guest.
pub mod errno {
    pub const EACCES: i32 = 2;
    pub const EAGAIN: i32 = 6;
    pub const EBADF: i32 = 8;
    pub const ECHILD: i32 = 12;
    pub const EEXIST: i32 = 20;
    pub const EFAULT: i32 = 21;
    pub const EINTR: i32 = 27;
    pub const EINVAL: i32 = 28;
    pub const EIO: i32 = 29;
    pub const EISDIR: i32 = 31;
    pub const ELOOP: i32 = 32;
    pub const ENAMETOOLONG: i32 = 37;
    pub const ENOENT: i32 = 44;
    pub const ENOSPC: i32 = 51;
    pub const ENOSYS: i32 = 52;
    pub const ENOTDIR: i32 = 54;
    pub const ENOTEMPTY: i32 = 55;
    pub const ENXIO: i32 = 60;
    pub const EPERM: i32 = 63;
    pub const EPIPE: i32 = 64;
    pub const EROFS: i32 = 69;
    pub const ESRCH: i32 = 71;
    pub const EXDEV: i32 = 75;
}

pub mod paths;
pub mod proc;
pub use proc::{ProcEntry, ProcTable};

#[cfg(target_os = "wasi")]
mod imp;
#[cfg(not(target_os = "wasi"))]
#[path = "native.rs"]
mod imp;

/// Starts a fresh instance of the multicall module. Handles in `stdio` are duplicated into the
/// child; the caller keeps (and should close) its own copies.
pub fn spawn(req: &SpawnRequest) -> io::Result<Pid> {
    imp::spawn(req)
}

/// Waits for a child and returns its exit status as bash reports it (`128 + n` for a signal,
/// 124 never — timeouts kill the whole action).
pub fn wait(pid: Pid) -> io::Result<i32> {
    imp::wait(pid)
}

/// Waits for a child at most `limit`; `None` when it is still running then (`timeout`).
pub fn wait_timeout(pid: Pid, limit: Duration) -> io::Result<Option<i32>> {
    imp::wait_timeout(pid, limit)
}

/// A bounded host pipe: (read end, write end).
pub fn pipe() -> io::Result<(Handle, Handle)> {
    imp::pipe()
}

/// Reads at most `buf.len()` bytes; 0 means end of file.
pub fn read(h: Handle, buf: &mut [u8]) -> io::Result<usize> {
    imp::read(h, buf)
}

/// Writes some bytes; a closed pipe gives `BrokenPipe`.
pub fn write(h: Handle, buf: &[u8]) -> io::Result<usize> {
    imp::write(h, buf)
}

/// Writes everything or fails.
pub fn write_all(h: Handle, mut buf: &[u8]) -> io::Result<()> {
    while !buf.is_empty() {
        let n = write(h, buf)?;
        if n == 0 {
            return Err(io::Error::from(io::ErrorKind::WriteZero));
        }
        buf = &buf[n..];
    }
    Ok(())
}

/// Reads until end of file.
pub fn read_to_end(h: Handle, out: &mut Vec<u8>) -> io::Result<usize> {
    let mut buf = vec![0u8; 16 * 1024];
    let start = out.len();
    loop {
        let n = read(h, &mut buf)?;
        if n == 0 {
            return Ok(out.len() - start);
        }
        out.extend_from_slice(&buf[..n]);
    }
}

pub fn close(h: Handle) -> io::Result<()> {
    imp::close(h)
}

/// A second handle to the same object (like `dup`).
pub fn dup(h: Handle) -> io::Result<Handle> {
    imp::dup(h)
}

/// Opens a sandbox path (absolute, or relative to this process's cwd) for a redirection.
/// `/dev/null`, `/dev/stdin`, `/dev/stdout`, `/dev/stderr` are understood by the host.
pub fn open(path: &str, flags: OpenFlags) -> io::Result<Handle> {
    imp::open(path, flags)
}

/// POSIX metadata of a sandbox path; `follow` = stat, otherwise lstat.
pub fn stat(path: &str, follow: bool) -> io::Result<Stat> {
    imp::stat(path, follow)
}

/// POSIX metadata of what a handle refers to (a file, a pipe); handles 0–2 are stdio.
pub fn fstat(h: Handle) -> io::Result<Stat> {
    imp::fstat(h)
}

/// Sets the permission bits of a sandbox path.
pub fn chmod(path: &str, mode: u32) -> io::Result<()> {
    imp::chmod(path, mode)
}

/// Creates a symbolic link at `link` holding `target` (absolute targets allowed; the host
/// never follows links outside the episode root).
pub fn symlink(target: &str, link: &str) -> io::Result<()> {
    imp::symlink(target, link)
}

/// The target stored in a symbolic link, absolute targets included (WASI's own readlink
/// refuses to return those). A drop-in for `std::fs::read_link`.
pub fn read_link(path: impl AsRef<std::path::Path>) -> io::Result<std::path::PathBuf> {
    imp::read_link(path.as_ref())
}

/// Sleeps; the host cuts it short when the action is cancelled.
pub fn sleep(d: Duration) -> io::Result<()> {
    imp::sleep(d)
}

/// The action's live processes (and the synthetic init, pid 1), in pid order.
pub fn proc_list() -> io::Result<ProcTable> {
    imp::proc_list()
}

/// Sends signal `sig` (0 only checks that `pid` exists) to a process of the action. A
/// terminating signal ends the process; its parent's `wait` reports `128 + sig`.
/// `ESRCH` (`No such process`) when there is no such process.
pub fn proc_signal(pid: Pid, sig: i32) -> io::Result<()> {
    imp::proc_signal(pid, sig)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn open_flags_round_trip() {
        for f in [
            OpenFlags::READ,
            OpenFlags::WRITE_TRUNCATE,
            OpenFlags::APPEND,
        ] {
            assert_eq!(OpenFlags::from_bits(f.bits()), f);
        }
    }

    #[test]
    fn spawn_request_encoding_is_length_prefixed() {
        let req = SpawnRequest {
            argv: vec!["ls".into()],
            env: vec![("A".into(), "b".into())],
            cwd: "/x".into(),
            stdio: [0, 5, 2],
        };
        let bytes = req.encode();
        assert_eq!(&bytes[0..4], &1u32.to_le_bytes());
        assert_eq!(&bytes[12..16], &5u32.to_le_bytes());
        assert_eq!(&bytes[20..24], &2u32.to_le_bytes());
        assert_eq!(&bytes[24..26], b"ls");
        assert!(bytes.ends_with(b"/x"));
    }

    #[test]
    fn spawn_requests_decode_what_encode_wrote_and_nothing_else() {
        let req = SpawnRequest {
            argv: vec!["ls".into(), "-l".into()],
            env: vec![("A".into(), "b=c".into())],
            cwd: "/tmp".into(),
            stdio: [0, 5, 2],
        };
        let bytes = req.encode();
        let back = SpawnRequest::decode(&bytes).unwrap();
        assert_eq!(
            (back.argv, back.env, back.cwd, back.stdio),
            (req.argv, req.env, req.cwd, req.stdio)
        );
        assert!(SpawnRequest::decode(&bytes[..bytes.len() - 1]).is_none());
        assert!(SpawnRequest::decode(&[]).is_none());
        // A length that runs past the end (or overflows) is refused, not trusted.
        let mut huge = bytes[..20].to_vec();
        huge.extend_from_slice(&u32::MAX.to_le_bytes());
        assert!(SpawnRequest::decode(&huge).is_none());
        let no_argv = SpawnRequest::default().encode();
        assert!(SpawnRequest::decode(&no_argv).is_none());
    }

    #[test]
    fn stat_words_round_trip() {
        let s = Stat {
            mode: S_IFREG | 0o755,
            nlink: 1,
            mtime_ns: -5,
            ..Stat::default()
        };
        assert_eq!(Stat::from_words(&s.to_words()), s);
        assert!(s.is_file());
        assert_eq!(s.permissions(), 0o755);
    }
}
