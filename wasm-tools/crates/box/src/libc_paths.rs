//! Three path rules of Linux that wasi-libc does not follow, applied where every path of the
//! module is resolved.
//!
//! wasi-libc resolves each relative path against its emulated working directory and hands the
//! result to the host beneath the preopened `/`:
//! - It takes `""` for that directory itself: `cat ''` said "Is a directory", `touch ''` and
//!   `cp a ''` succeeded. Linux answers `ENOENT` for an empty path whatever the call, and GNU's
//!   messages follow from that (`cat: '': No such file or directory`).
//! - A `..` that climbs above `/` (`find ../testbed` in `/`, `ls /testbed/../..`) is refused
//!   by the host as an escape ("Operation not permitted"), where Linux stays at `/`.
//!
//! - Upstream's commands ran without a controlling terminal (`docker exec` without `-t`), so
//!   `/dev/tty` cannot be opened: `tee /dev/tty` says "No such device or address" where
//!   wasi-libc would create a file of that name. The host's calls answer the same.
//!
//! Every path operation goes through wasi-libc's `__wasilibc_find_relpath_alloc`, so the
//! linker wraps that one function (`--wrap`, set in `build.rs`) for uutils, our applets and
//! the shell alike.

#[cfg(target_os = "wasi")]
#[allow(unsafe_code)]
mod wrap {
    use std::ffi::{CStr, CString, c_char, c_int};

    unsafe extern "C" {
        /// wasi-libc's own function, which `--wrap` renames to this.
        fn __real___wasilibc_find_relpath_alloc(
            path: *const c_char,
            abs_prefix: *mut *const c_char,
            relative_buf: *mut *mut c_char,
            relative_buf_len: *mut usize,
            can_realloc: c_int,
        ) -> c_int;
        fn __errno_location() -> *mut c_int;
    }

    /// # Safety
    /// Called by wasi-libc with its own arguments: `path` is a NUL-terminated string.
    #[unsafe(no_mangle)]
    pub unsafe extern "C" fn __wrap___wasilibc_find_relpath_alloc(
        path: *const c_char,
        abs_prefix: *mut *const c_char,
        relative_buf: *mut *mut c_char,
        relative_buf_len: *mut usize,
        can_realloc: c_int,
    ) -> c_int {
        // SAFETY: wasi-libc passes a valid C string and pointers it owns; the rewritten path
        // lives until the real function, which copies what it keeps, returns.
        unsafe {
            let text = CStr::from_ptr(path).to_bytes();
            if text.is_empty() {
                *__errno_location() = hostcalls::errno::ENOENT;
                return -1;
            }
            if text == b"/dev/tty" {
                *__errno_location() = hostcalls::errno::ENXIO;
                return -1;
            }
            let kept = within_root(text).and_then(|p| CString::new(p).ok());
            let path = kept.as_ref().map_or(path, |p| p.as_ptr());
            __real___wasilibc_find_relpath_alloc(
                path,
                abs_prefix,
                relative_buf,
                relative_buf_len,
                can_realloc,
            )
        }
    }

    /// `path` made absolute (against the working directory) and resolved by
    /// [`hostcalls::paths::above_root_resolved`], when it climbs above `/`.
    fn within_root(path: &[u8]) -> Option<Vec<u8>> {
        if !path.split(|&b| b == b'/').any(|c| c == b"..") {
            return None;
        }
        if path.starts_with(b"/") {
            return hostcalls::paths::above_root_resolved(path);
        }
        let cwd = std::env::current_dir().ok()?;
        let mut absolute = cwd.to_str()?.as_bytes().to_vec();
        absolute.push(b'/');
        absolute.extend_from_slice(path);
        hostcalls::paths::above_root_resolved(&absolute)
    }
}
