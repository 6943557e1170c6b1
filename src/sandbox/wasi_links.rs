//! WASI's `path_symlink` and `path_readlink`, in place of wasmtime-wasi's, so that the guest's
//! own link calls (`std::fs::read_link`, `std::os::unix::fs::symlink`: uutils' `ln`, `cp -P`,
//! `readlink`) store and show absolute targets the way `fs::links` keeps them: resolvable
//! beneath the root, read back as written.
//!
//! wasi-libc and Rust's std resolve every path against the one preopened directory, the
//! episode's `/`; a call on any other descriptor is refused (`EBADF`), which no guest makes.

use super::hostcalls::{C, code, read_str, wasi_errno, write_bytes};
use super::process::ProcState;
use hostcalls::errno;
use wasmtime::Linker;

/// The descriptor of the preopened `/` (WASI numbers preopens from 3, after stdio).
const ROOT_FD: u32 = 3;

pub(super) fn add_to_linker(linker: &mut Linker<ProcState>) -> wasmtime::Result<()> {
    const WASI: &str = "wasi_snapshot_preview1";
    linker.func_wrap(
        WASI,
        "path_symlink",
        |mut caller: C<'_>, tptr: u32, tlen: u32, fd: u32, lptr: u32, llen: u32| -> i32 {
            let r = (|| {
                let target = read_str(&mut caller, tptr, tlen)?;
                let link = beneath_root(&mut caller, fd, lptr, llen)?;
                crate::fs::links::symlink_beneath(&caller.data().action.root_dir, &target, &link)
                    .map_err(|e| wasi_errno(&e))
            })();
            code(r)
        },
    )?;
    linker.func_wrap(
        WASI,
        "path_readlink",
        |mut caller: C<'_>, fd: u32, ptr: u32, len: u32, buf: u32, cap: u32, used: u32| -> i32 {
            let r = (|| {
                let link = beneath_root(&mut caller, fd, ptr, len)?;
                let target =
                    crate::fs::links::read_link_beneath(&caller.data().action.root_dir, &link)
                        .map_err(|e| wasi_errno(&e))?;
                // As readlink(2): as much as fits, no terminator.
                let bytes = target.as_bytes();
                let take = bytes.len().min(cap as usize);
                write_bytes(&mut caller, buf, &bytes[..take])?;
                write_bytes(&mut caller, used, &(take as u32).to_le_bytes())
            })();
            code(r)
        },
    )?;
    Ok(())
}

/// The path `ptr`/`len` (relative to descriptor `fd`, which must be the root) as a path
/// beneath the episode's root.
fn beneath_root(
    caller: &mut C<'_>,
    fd: u32,
    ptr: u32,
    len: u32,
) -> Result<std::path::PathBuf, i32> {
    if fd != ROOT_FD {
        return Err(errno::EBADF);
    }
    let path = read_str(caller, ptr, len)?;
    if path.is_empty() {
        return Err(errno::ENOENT);
    }
    // The path as the tree has it: unlike the host calls, WASI knows no devices here (a
    // `dev/fd/0` that is not in the tree does not exist).
    let absolute = format!("/{path}");
    let within_root = hostcalls::paths::above_root_resolved(absolute.as_bytes())
        .and_then(|p| String::from_utf8(p).ok());
    let rel = within_root.as_deref().unwrap_or(&absolute)[1..].trim_end_matches('/');
    Ok(std::path::PathBuf::from(if rel.is_empty() {
        "."
    } else {
        rel
    }))
}
