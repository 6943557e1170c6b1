//! What the differential-test binaries (`fileutils_gnu`, `gnu_diff`) share: running one side of
//! a case and asking whether a reference tool is installed. Each binary includes this file with
//! `#[path]`; it is not a test target of its own.

use std::os::unix::process::ExitStatusExt;
use std::process::{Command, Stdio};

/// Runs `cmd` with `stdin` fed on a separate thread (so a tool that writes before it reads
/// cannot deadlock on full pipes); returns the exit status as a shell reports it (128 + signal
/// for a killed process), stdout and stderr.
pub fn output_with_stdin(
    cmd: &mut Command,
    stdin: Vec<u8>,
) -> std::io::Result<(i32, Vec<u8>, Vec<u8>)> {
    cmd.stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = cmd.spawn()?;
    if let Some(mut pipe) = child.stdin.take() {
        std::thread::spawn(move || {
            use std::io::Write;
            let _ = pipe.write_all(&stdin);
        });
    }
    let out = child.wait_with_output()?;
    let status = out
        .status
        .code()
        .unwrap_or_else(|| 128 + out.status.signal().unwrap_or(0));
    Ok((status, out.stdout, out.stderr))
}

/// Whether `tool` is on the host's PATH.
pub fn have(tool: &str) -> bool {
    Command::new("sh")
        .arg("-c")
        .arg(format!("command -v {tool} >/dev/null"))
        .status()
        .is_ok_and(|s| s.success())
}
