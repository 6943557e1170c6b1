//! Running another command (`find -exec`, `xargs`): WASI has no fork/exec, so a command is a
//! fresh instance of the multicall module started through the host's `spawn` import.
//!
//! The child shares this process's stdin/stdout/stderr (handles 0–2), so buffered output must
//! be flushed first to keep the order GNU tools give (they `fflush` before forking).

use std::io::{self, Write};

/// Directories whose programs are applets of the multicall module: `/bin/echo` and `echo` are
/// the same thing inside the sandbox (the sandbox has no real binaries).
const BIN_DIRS: &[&str] = &[
    "/bin",
    "/usr/bin",
    "/sbin",
    "/usr/sbin",
    "/usr/local/bin",
    "/usr/local/sbin",
];

/// Why a command could not be started, as GNU tools report it (`xargs` maps these to
/// 126/127).
#[derive(Debug)]
pub enum StartError {
    /// No such program (exit 127).
    NotFound,
    /// The program exists but cannot be run (a directory, not executable; exit 126).
    NotExecutable(io::Error),
}

/// Maps a program name as the user wrote it to the argv[0] the host resolves. A plain name
/// must be a program in one of `$PATH`'s directories, as `execvp` finds it.
fn resolve(prog: &str) -> Result<String, StartError> {
    if !prog.contains('/') {
        let path = std::env::var("PATH").unwrap_or_else(|_| BIN_DIRS.join(":"));
        let found = !prog.is_empty()
            && path
                .split(':')
                .map(|dir| if dir.is_empty() { "." } else { dir })
                .any(|dir| {
                    hostcalls::stat(&format!("{dir}/{prog}"), true).is_ok_and(|st| !st.is_dir())
                });
        return if found {
            Ok(prog.to_string())
        } else {
            Err(StartError::NotFound)
        };
    }
    let (dir, base) = prog.rsplit_once('/').unwrap_or(("", prog));
    let dir = if dir.is_empty() { "/" } else { dir };
    if BIN_DIRS.contains(&dir) && !base.is_empty() {
        return Ok(base.to_string());
    }
    // Any other path: it must exist and be a runnable file; the host decides whether it can
    // run it (a script through the shell, say).
    match hostcalls::stat(prog, true) {
        Err(_) => Err(StartError::NotFound),
        Ok(st) if st.is_dir() || st.mode & 0o111 == 0 => Err(StartError::NotExecutable(
            io::Error::from(io::ErrorKind::PermissionDenied),
        )),
        Ok(_) => Ok(prog.to_string()),
    }
}

/// The current directory as an absolute sandbox path.
pub fn current_dir() -> String {
    std::env::current_dir()
        .map(|p| p.to_string_lossy().into_owned())
        .unwrap_or_else(|_| "/".to_string())
}

/// Standard input for a child that must not read ours (GNU xargs gives its commands
/// `/dev/null`). Natively the child inherits stdin: the std-backed spawn supports no other.
fn null_stdin() -> Option<hostcalls::Handle> {
    if cfg!(target_os = "wasi") {
        hostcalls::open("/dev/null", hostcalls::OpenFlags::READ).ok()
    } else {
        None
    }
}

/// Runs `argv` to completion with the caller's stdout and stderr, in `cwd` (default: ours),
/// with our stdin or (`stdin_null`) an empty one, and returns its exit status (128+n for a
/// signal).
pub fn run(
    argv: &[String],
    cwd: Option<&str>,
    stdin_null: bool,
    out: &mut dyn Write,
) -> Result<i32, StartError> {
    let pid = spawn(argv, cwd, stdin_null, None, out)?;
    hostcalls::wait(pid).map_err(StartError::NotExecutable)
}

/// [`run`] with the environment given instead of ours (`env`).
pub fn run_in_env(
    argv: &[String],
    cwd: Option<&str>,
    env: Vec<(String, String)>,
    out: &mut dyn Write,
) -> Result<i32, StartError> {
    let pid = spawn(argv, cwd, false, Some(env), out)?;
    hostcalls::wait(pid).map_err(StartError::NotExecutable)
}

/// Starts `argv` like [`run`] and returns its pid without waiting (`timeout` watches it).
pub fn start(
    argv: &[String],
    cwd: Option<&str>,
    stdin_null: bool,
    out: &mut dyn Write,
) -> Result<hostcalls::Pid, StartError> {
    spawn(argv, cwd, stdin_null, None, out)
}

/// Starts `argv` in `env` (default: ours) and returns its pid.
fn spawn(
    argv: &[String],
    cwd: Option<&str>,
    stdin_null: bool,
    env: Option<Vec<(String, String)>>,
    out: &mut dyn Write,
) -> Result<hostcalls::Pid, StartError> {
    let Some(prog) = argv.first() else {
        return Err(StartError::NotFound);
    };
    let resolved = resolve(prog)?;
    // A flush failure is the caller's to report on its next write.
    let _ = out.flush();
    let cwd = match cwd {
        Some(d) if d.starts_with('/') => d.to_string(),
        Some(d) => {
            let base = current_dir();
            if base.ends_with('/') {
                format!("{base}{d}")
            } else {
                format!("{base}/{d}")
            }
        }
        None => current_dir(),
    };
    // The environment passes as it is (`PWD` included, stale or absent, as exec leaves it);
    // where the child starts travels beside it.
    let env = env.unwrap_or_else(|| std::env::vars().collect());
    let mut full = Vec::with_capacity(argv.len());
    full.push(resolved);
    full.extend(argv[1..].iter().cloned());
    let null = if stdin_null { null_stdin() } else { None };
    let req = hostcalls::SpawnRequest {
        argv: full,
        env,
        cwd,
        stdio: [
            null.unwrap_or(hostcalls::STDIN),
            hostcalls::STDOUT,
            hostcalls::STDERR,
        ],
    };
    let spawned = hostcalls::spawn(&req);
    if let Some(h) = null {
        // The child holds its own duplicate.
        let _ = hostcalls::close(h);
    }
    spawned.map_err(|e| match e.kind() {
        io::ErrorKind::NotFound => StartError::NotFound,
        _ => StartError::NotExecutable(e),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bin_paths_become_applet_names() {
        assert_eq!(resolve("/bin/echo").unwrap(), "echo");
        assert_eq!(resolve("/usr/bin/md5sum").unwrap(), "md5sum");
        assert_eq!(resolve("rm").unwrap(), "rm");
        assert!(matches!(
            resolve("no-such-program"),
            Err(StartError::NotFound)
        ));
        assert!(matches!(
            resolve("/nonexistent/x"),
            Err(StartError::NotFound)
        ));
    }

    #[test]
    fn directories_are_not_executable() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().to_str().unwrap();
        assert!(matches!(resolve(p), Err(StartError::NotExecutable(_))));
    }
}
