//! The real imports (wasm32-wasip1). Every function returns 0 or a WASI errno.

use super::{Handle, OpenFlags, Pid, ProcTable, SpawnRequest, Stat};
use std::io;
use std::time::Duration;

// The one place the guest calls into the host; the ABI is plain pointers and lengths into
// this module's memory, checked by the host.
#[allow(unsafe_code)]
mod raw {
    #[link(wasm_import_module = "intercode")]
    unsafe extern "C" {
        pub fn spawn(req: *const u8, len: usize, pid: *mut u32) -> i32;
        pub fn wait(pid: u32, status: *mut i32) -> i32;
        pub fn wait_timeout(pid: u32, ms: u64, status: *mut i32) -> i32;
        pub fn pipe(ends: *mut u32) -> i32;
        pub fn read(h: u32, buf: *mut u8, len: usize, n: *mut usize) -> i32;
        pub fn write(h: u32, buf: *const u8, len: usize, n: *mut usize) -> i32;
        pub fn close(h: u32) -> i32;
        pub fn dup(h: u32, out: *mut u32) -> i32;
        pub fn open(path: *const u8, len: usize, flags: u32, out: *mut u32) -> i32;
        pub fn stat(path: *const u8, len: usize, follow: u32, out: *mut u64) -> i32;
        pub fn fstat(h: u32, out: *mut u64) -> i32;
        pub fn chmod(path: *const u8, len: usize, mode: u32) -> i32;
        pub fn sleep(ms: u64) -> i32;
        pub fn readlink(
            path: *const u8,
            len: usize,
            buf: *mut u8,
            cap: usize,
            n: *mut usize,
        ) -> i32;
        pub fn symlink(target: *const u8, tlen: usize, link: *const u8, llen: usize) -> i32;
        pub fn proc_list(buf: *mut u8, cap: usize, n: *mut usize) -> i32;
        pub fn proc_signal(pid: u32, sig: i32) -> i32;
    }
}

fn check(rc: i32) -> io::Result<()> {
    if rc == 0 {
        Ok(())
    } else {
        Err(io::Error::from_raw_os_error(rc))
    }
}

/// Relative paths are resolved here, against the process's cwd, so the host only ever sees
/// absolute sandbox paths.
/// `path` against the working directory. The empty path stays empty: it names no file, and
/// the host answers `ENOENT` for it, as Linux does.
fn absolute(path: &str) -> String {
    if path.is_empty() || path.starts_with('/') {
        return path.to_string();
    }
    let cwd = std::env::current_dir()
        .map(|p| p.to_string_lossy().into_owned())
        .unwrap_or_else(|_| "/".into());
    if cwd.ends_with('/') {
        format!("{cwd}{path}")
    } else {
        format!("{cwd}/{path}")
    }
}

#[allow(unsafe_code)]
pub fn spawn(req: &SpawnRequest) -> io::Result<Pid> {
    let bytes = req.encode();
    let mut pid = 0u32;
    // SAFETY: the pointers are valid for the given lengths for the duration of the call.
    check(unsafe { raw::spawn(bytes.as_ptr(), bytes.len(), &mut pid) })?;
    Ok(pid)
}

#[allow(unsafe_code)]
pub fn wait(pid: Pid) -> io::Result<i32> {
    let mut status = 0i32;
    // SAFETY: `status` is a valid out pointer.
    check(unsafe { raw::wait(pid, &mut status) })?;
    Ok(status)
}

#[allow(unsafe_code)]
pub fn wait_timeout(pid: Pid, limit: Duration) -> io::Result<Option<i32>> {
    let mut status = 0i32;
    let ms = limit.as_millis().min(u64::MAX as u128) as u64;
    // SAFETY: `status` is a valid out pointer.
    match unsafe { raw::wait_timeout(pid, ms, &mut status) } {
        0 => Ok(Some(status)),
        // EAGAIN: still running when the limit passed.
        6 => Ok(None),
        rc => Err(io::Error::from_raw_os_error(rc)),
    }
}

#[allow(unsafe_code)]
pub fn pipe() -> io::Result<(Handle, Handle)> {
    let mut ends = [0u32; 2];
    // SAFETY: `ends` has room for two handles.
    check(unsafe { raw::pipe(ends.as_mut_ptr()) })?;
    Ok((ends[0], ends[1]))
}

#[allow(unsafe_code)]
pub fn read(h: Handle, buf: &mut [u8]) -> io::Result<usize> {
    let mut n = 0usize;
    // SAFETY: `buf` is valid for writes of its length.
    check(unsafe { raw::read(h, buf.as_mut_ptr(), buf.len(), &mut n) })?;
    Ok(n)
}

#[allow(unsafe_code)]
pub fn write(h: Handle, buf: &[u8]) -> io::Result<usize> {
    let mut n = 0usize;
    // SAFETY: `buf` is valid for reads of its length.
    check(unsafe { raw::write(h, buf.as_ptr(), buf.len(), &mut n) })?;
    Ok(n)
}

#[allow(unsafe_code)]
pub fn close(h: Handle) -> io::Result<()> {
    // SAFETY: no pointers.
    check(unsafe { raw::close(h) })
}

#[allow(unsafe_code)]
pub fn dup(h: Handle) -> io::Result<Handle> {
    let mut out = 0u32;
    // SAFETY: `out` is a valid out pointer.
    check(unsafe { raw::dup(h, &mut out) })?;
    Ok(out)
}

#[allow(unsafe_code)]
pub fn open(path: &str, flags: OpenFlags) -> io::Result<Handle> {
    let path = absolute(path);
    let mut out = 0u32;
    // SAFETY: the path pointer is valid for its length; `out` is a valid out pointer.
    check(unsafe { raw::open(path.as_ptr(), path.len(), flags.bits(), &mut out) })?;
    Ok(out)
}

#[allow(unsafe_code)]
pub fn stat(path: &str, follow: bool) -> io::Result<Stat> {
    // An empty name is no file (`find ""`), not the working directory.
    if path.is_empty() {
        return Err(io::Error::from_raw_os_error(crate::errno::ENOENT));
    }
    let path = absolute(path);
    let mut words = [0u64; Stat::WORDS];
    // SAFETY: `words` has room for the host's fixed-size record.
    check(unsafe { raw::stat(path.as_ptr(), path.len(), follow as u32, words.as_mut_ptr()) })?;
    Ok(Stat::from_words(&words))
}

#[allow(unsafe_code)]
pub fn fstat(h: Handle) -> io::Result<Stat> {
    let mut words = [0u64; Stat::WORDS];
    // SAFETY: `words` has room for the host's fixed-size record.
    check(unsafe { raw::fstat(h, words.as_mut_ptr()) })?;
    Ok(Stat::from_words(&words))
}

#[allow(unsafe_code)]
pub fn chmod(path: &str, mode: u32) -> io::Result<()> {
    let path = absolute(path);
    // SAFETY: the path pointer is valid for its length.
    check(unsafe { raw::chmod(path.as_ptr(), path.len(), mode) })
}

#[allow(unsafe_code)]
pub fn sleep(d: Duration) -> io::Result<()> {
    // SAFETY: no pointers.
    check(unsafe { raw::sleep(d.as_millis().min(u64::MAX as u128) as u64) })
}

#[allow(unsafe_code)]
pub fn symlink(target: &str, link: &str) -> io::Result<()> {
    let link = absolute(link);
    // SAFETY: both pointers are valid for their lengths during the call.
    check(unsafe { raw::symlink(target.as_ptr(), target.len(), link.as_ptr(), link.len()) })
}

#[allow(unsafe_code)]
pub fn read_link(path: &std::path::Path) -> io::Result<std::path::PathBuf> {
    let path = absolute(&path.to_string_lossy());
    let mut buf = vec![0u8; 4096];
    loop {
        let mut n = 0usize;
        // SAFETY: the path and buffer pointers are valid for their lengths; `n` is an out
        // pointer.
        check(unsafe {
            raw::readlink(
                path.as_ptr(),
                path.len(),
                buf.as_mut_ptr(),
                buf.len(),
                &mut n,
            )
        })?;
        if n <= buf.len() {
            buf.truncate(n);
            let s = String::from_utf8_lossy(&buf).into_owned();
            return Ok(std::path::PathBuf::from(s));
        }
        buf = vec![0u8; n];
    }
}

#[allow(unsafe_code)]
pub fn proc_list() -> io::Result<ProcTable> {
    let mut buf = vec![0u8; 4096];
    loop {
        let mut n = 0usize;
        // SAFETY: the buffer is valid for writes of its length; `n` is an out pointer.
        check(unsafe { raw::proc_list(buf.as_mut_ptr(), buf.len(), &mut n) })?;
        // The host reports the full size; a table that grew past the buffer is asked again.
        if n <= buf.len() {
            buf.truncate(n);
            return ProcTable::decode(&buf).ok_or_else(|| io::Error::from_raw_os_error(29));
        }
        buf = vec![0u8; n];
    }
}

#[allow(unsafe_code)]
pub fn proc_signal(pid: Pid, sig: i32) -> io::Result<()> {
    // SAFETY: no pointers.
    check(unsafe { raw::proc_signal(pid, sig) })
}

/// Makes `dir` the working directory even when it no longer exists (WASI's `chdir` refuses
/// that), so that names relative to it fail as they do in a removed directory on Linux
/// instead of resolving against `/`. wasi-libc keeps the directory as this string.
#[allow(unsafe_code)]
pub fn force_cwd(dir: &str) {
    unsafe extern "C" {
        static mut __wasilibc_cwd: *mut std::ffi::c_char;
    }
    let Ok(dir) = std::ffi::CString::new(dir) else {
        return;
    };
    // SAFETY: the process is single-threaded (WASI preview 1); the string comes from the
    // allocator wasi-libc's `chdir` frees it with, and stays valid until it does.
    unsafe {
        __wasilibc_cwd = dir.into_raw();
    }
}
