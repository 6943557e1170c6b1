//! Native stand-ins so applets can run (and be tested against GNU tools) on the host.
//! Handles 0–2 map to the real stdio; spawn runs the named program with inherited stdio.

use super::{Handle, OpenFlags, Pid, ProcEntry, ProcTable, SpawnRequest, Stat};
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

pub fn wait_timeout(pid: Pid, limit: Duration) -> io::Result<Option<i32>> {
    let deadline = std::time::Instant::now() + limit;
    loop {
        {
            let mut guard = CHILDREN.lock().unwrap_or_else(|e| e.into_inner());
            let child = guard
                .get_or_insert_with(HashMap::new)
                .get_mut(&pid)
                .ok_or_else(|| io::Error::other("no such child"))?;
            if child.try_wait()?.is_some() {
                drop(guard);
                return wait(pid).map(Some);
            }
        }
        if std::time::Instant::now() >= deadline {
            return Ok(None);
        }
        std::thread::sleep(Duration::from_millis(5));
    }
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

/// The host's processes from /proc, so `ps` can be compared with procps on a controlled
/// process (tests select it with `-p`).
pub fn proc_list() -> io::Result<ProcTable> {
    let boot_s: i64 = std::fs::read_to_string("/proc/stat")?
        .lines()
        .find_map(|l| l.strip_prefix("btime ")?.trim().parse().ok())
        .unwrap_or(0);
    // USER_HZ is 100 on every Linux architecture procps supports.
    const TICKS: i64 = 100;
    let mut entries = Vec::new();
    for dent in std::fs::read_dir("/proc")? {
        let Ok(pid) = dent?.file_name().to_string_lossy().parse::<u32>() else {
            continue;
        };
        let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
            continue;
        };
        // `pid (comm) state ppid …`: comm may hold spaces and parentheses.
        let Some(close) = stat.rfind(')') else {
            continue;
        };
        let comm = stat[stat.find('(').map_or(0, |i| i + 1)..close].to_string();
        let fields: Vec<&str> = stat[close + 1..].split_whitespace().collect();
        let state = fields.first().map_or(b'?', |s| s.as_bytes()[0]);
        let ppid = fields.get(1).and_then(|s| s.parse().ok()).unwrap_or(0);
        let start_ticks: i64 = fields.get(19).and_then(|s| s.parse().ok()).unwrap_or(0);
        let cmdline = std::fs::read(format!("/proc/{pid}/cmdline")).unwrap_or_default();
        let mut argv: Vec<String> = cmdline
            .split(|b| *b == 0)
            .map(|a| String::from_utf8_lossy(a).into_owned())
            .collect();
        if argv.last().is_some_and(String::is_empty) {
            argv.pop();
        }
        if argv.is_empty() {
            argv.push(comm);
        }
        entries.push(ProcEntry {
            pid,
            ppid,
            state,
            start_ns: (boot_s * TICKS + start_ticks) * (1_000_000_000 / TICKS),
            argv,
        });
    }
    entries.sort_by_key(|e| e.pid);
    Ok(ProcTable {
        caller: std::process::id(),
        entries,
    })
}

/// Through the host's `kill` program: tests only need signals to reach a controlled child.
pub fn proc_signal(pid: Pid, sig: i32) -> io::Result<()> {
    let ok = Command::new("kill")
        .args([format!("-{sig}"), pid.to_string()])
        .stderr(std::process::Stdio::null())
        .status()?
        .success();
    if ok {
        Ok(())
    } else {
        Err(io::Error::from_raw_os_error(3))
    }
}

/// Natively a removed directory cannot be entered again; the process stays where it is.
pub fn force_cwd(_dir: &str) {}
