//! Native stand-ins so applets can run (and be tested against GNU tools) on the host.
//! Handles 0–2 map to the real stdio; spawn runs the named program with inherited stdio.

use super::{Handle, OpenFlags, Pid, SpawnRequest, Stat};
use std::collections::HashMap;
use std::io::{self, Read, Write};
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::process::{Child, Command};
use std::sync::Mutex;
use std::time::Duration;

static CHILDREN: Mutex<Option<HashMap<Pid, Child>>> = Mutex::new(None);

fn unsupported() -> io::Error {
    io::Error::new(io::ErrorKind::Unsupported, "not available natively")
}

pub fn spawn(req: &SpawnRequest) -> io::Result<Pid> {
    if req.stdio != [0, 1, 2] {
        return Err(unsupported());
    }
    let (prog, args) = req.argv.split_first().ok_or_else(unsupported)?;
    let child = Command::new(prog)
        .args(args)
        .env_clear()
        .envs(req.env.iter().cloned())
        .current_dir(&req.cwd)
        .spawn()?;
    let pid = child.id();
    CHILDREN
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .get_or_insert_with(HashMap::new)
        .insert(pid, child);
    Ok(pid)
}

pub fn wait(pid: Pid) -> io::Result<i32> {
    let child = CHILDREN
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .get_or_insert_with(HashMap::new)
        .remove(&pid);
    let mut child = child.ok_or_else(|| io::Error::other("no such child"))?;
    let status = child.wait()?;
    use std::os::unix::process::ExitStatusExt;
    Ok(status
        .code()
        .unwrap_or_else(|| 128 + status.signal().unwrap_or(0)))
}

pub fn pipe() -> io::Result<(Handle, Handle)> {
    Err(unsupported())
}

pub fn read(h: Handle, buf: &mut [u8]) -> io::Result<usize> {
    match h {
        0 => io::stdin().read(buf),
        _ => Err(unsupported()),
    }
}

pub fn write(h: Handle, buf: &[u8]) -> io::Result<usize> {
    match h {
        1 => io::stdout().write(buf),
        2 => io::stderr().write(buf),
        _ => Err(unsupported()),
    }
}

pub fn close(_h: Handle) -> io::Result<()> {
    Ok(())
}

pub fn dup(_h: Handle) -> io::Result<Handle> {
    Err(unsupported())
}

pub fn open(_path: &str, _flags: OpenFlags) -> io::Result<Handle> {
    Err(unsupported())
}

pub fn stat(path: &str, follow: bool) -> io::Result<Stat> {
    let m = if follow {
        std::fs::metadata(path)?
    } else {
        std::fs::symlink_metadata(path)?
    };
    let ns = |s: i64, n: i64| s * 1_000_000_000 + n;
    Ok(Stat {
        mode: m.mode(),
        uid: m.uid(),
        gid: m.gid(),
        nlink: m.nlink(),
        ino: m.ino(),
        dev: m.dev(),
        size: m.size(),
        blocks: m.blocks(),
        atime_ns: ns(m.atime(), m.atime_nsec()),
        mtime_ns: ns(m.mtime(), m.mtime_nsec()),
        ctime_ns: ns(m.ctime(), m.ctime_nsec()),
    })
}

pub fn fstat(_h: Handle) -> io::Result<Stat> {
    Err(unsupported())
}

pub fn chmod(path: &str, mode: u32) -> io::Result<()> {
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode))
}

pub fn sleep(d: Duration) -> io::Result<()> {
    std::thread::sleep(d);
    Ok(())
}

pub fn symlink(target: &str, link: &str) -> io::Result<()> {
    std::os::unix::fs::symlink(target, link)
}

pub fn read_link(path: &std::path::Path) -> io::Result<std::path::PathBuf> {
    std::fs::read_link(path)
}
