//! Running an argv with stdin, a working directory and environment variables inside a bash
//! episode, for the inspect_ai sandbox.
//!
//! [`intercode::env::Env::step`] takes one shell script and returns stdout and stderr merged,
//! with the exit status. inspect's `exec(cmd, input, cwd, env)` wants an argv run as a process,
//! its own stdin and the two streams apart. Rather than a second entry point into the sandbox,
//! one step runs a script that does all of it:
//!
//! ```text
//! __ic_err=$(mktemp …)                      # stderr goes to a file in the episode
//! base64 -d <<'INTERCODE_STDIN_nonce' | (   # stdin: exact bytes, binary-safe
//! aGVsbG8K
//! INTERCODE_STDIN_nonce
//! cd '/cwd' || exit 126                     # in a subshell: the episode's own cwd and
//! export 'K=V'                              #   variables are left as they were
//! 'argv0' 'argv1' …
//! ) 2>"$__ic_err"
//! __ic_rc=$?
//! printf '\n%s\n' '__intercode_exec_nonce__'  # stdout ends here
//! cat "$__ic_err"; rm -f "$__ic_err"        # then stderr
//! exit "$__ic_rc"
//! ```
//!
//! Every word is single-quoted by [`quote`], so nothing the caller passes is ever parsed by the
//! shell. The marker carries a random nonce the command cannot guess, so what it prints cannot
//! fake the split.

use std::collections::hash_map::RandomState;
use std::hash::{BuildHasher, Hasher};
use std::sync::atomic::{AtomicU64, Ordering};

/// `s` as one shell word: bare when it only holds characters no shell treats specially,
/// otherwise in single quotes, each `'` written as `'\''` (close, escaped quote, reopen).
pub fn quote(s: &str) -> String {
    let plain = !s.is_empty()
        && s.bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.' | b'/' | b':'));
    if plain {
        return s.to_string();
    }
    let mut out = String::with_capacity(s.len() + 2);
    out.push('\'');
    for c in s.chars() {
        if c == '\'' {
            out.push_str("'\\''");
        } else {
            out.push(c);
        }
    }
    out.push('\'');
    out
}

/// A name `export` accepts (`[A-Za-z_][A-Za-z0-9_]*`).
fn valid_variable(name: &str) -> bool {
    let mut bytes = name.bytes();
    bytes
        .next()
        .is_some_and(|b| b.is_ascii_alphabetic() || b == b'_')
        && bytes.all(|b| b.is_ascii_alphanumeric() || b == b'_')
}

/// 128 bits that differ between calls and processes (std's per-instance random hash keys,
/// a counter and the clock): enough that a command cannot print the marker by chance or guess.
fn nonce() -> String {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let mut parts = [0u64; 2];
    for part in &mut parts {
        let mut h = RandomState::new().build_hasher();
        h.write_u64(COUNTER.fetch_add(1, Ordering::Relaxed));
        h.write_u128(
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_nanos()),
        );
        *part = h.finish();
    }
    format!("{:016x}{:016x}", parts[0], parts[1])
}

/// Standard base64 with lines of 76 characters (what `base64 -d` reads; short lines keep the
/// here-document friendly to the guest shell's line reader).
fn base64_lines(data: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(data.len().div_ceil(3) * 4 + data.len() / 57 + 1);
    for (i, chunk) in data.chunks(3).enumerate() {
        if i > 0 && i % 19 == 0 {
            out.push('\n');
        }
        let b = [
            chunk[0],
            chunk.get(1).copied().unwrap_or(0),
            chunk.get(2).copied().unwrap_or(0),
        ];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for k in 0..4 {
            if k <= chunk.len() {
                out.push(char::from(ALPHABET[(n >> (18 - 6 * k)) as usize & 63]));
            } else {
                out.push('=');
            }
        }
    }
    out.push('\n');
    out
}

/// What a caller asks to run.
pub struct ExecRequest<'a> {
    pub argv: &'a [String],
    pub stdin: Option<&'a [u8]>,
    /// Absolute, or relative to the shell's current directory.
    pub cwd: Option<&'a str>,
    pub env: &'a [(String, String)],
}

/// The script for `request`, and the marker that separates stdout from stderr in its output.
pub fn script(request: &ExecRequest<'_>) -> Result<(String, String), String> {
    if request.argv.is_empty() {
        return Err("exec needs a command: the argv is empty".into());
    }
    if let Some(bad) = request.env.iter().find(|(k, _)| !valid_variable(k)) {
        return Err(format!(
            "environment variable name {:?} is not a valid shell name",
            bad.0
        ));
    }
    if request.argv.iter().any(|a| a.contains('\0')) {
        return Err("an argument contains a NUL byte, which no process argument can hold".into());
    }
    let nonce = nonce();
    let marker = format!("__intercode_exec_{nonce}__");
    let mut s = String::new();
    // `mktemp` fails where /tmp is gone (upstream's trees delete it); make it then.
    s.push_str(
        "__ic_err=$(mktemp /tmp/.intercode-exec.XXXXXX 2>/dev/null || { mkdir -p /tmp && \
         mktemp /tmp/.intercode-exec.XXXXXX; }) || exit 125\n",
    );
    match request.stdin {
        // The here-document's body follows the line that opens the subshell; the shell reads
        // it before the subshell's own lines.
        Some(bytes) => {
            let delimiter = format!("INTERCODE_STDIN_{nonce}");
            s.push_str(&format!("base64 -d <<'{delimiter}' | (\n"));
            s.push_str(&base64_lines(bytes));
            s.push_str(&delimiter);
            s.push('\n');
        }
        None => s.push_str("(\n"),
    }
    if let Some(cwd) = request.cwd {
        // 126 is what `docker exec` gives when it cannot enter the working directory.
        s.push_str(&format!("cd {} || exit 126\n", quote(cwd)));
    }
    for (k, v) in request.env {
        s.push_str(&format!("export {}\n", quote(&format!("{k}={v}"))));
    }
    let words: Vec<String> = request.argv.iter().map(|a| quote(a)).collect();
    s.push_str(&words.join(" "));
    s.push('\n');
    // Without stdin, reading it gives end of file, as for a process started without one.
    let stdin = if request.stdin.is_some() {
        ""
    } else {
        " </dev/null"
    };
    s.push_str(&format!("){stdin} 2>\"$__ic_err\"\n"));
    s.push_str("__ic_rc=$?\n");
    s.push_str(&format!("printf '\\n%s\\n' {}\n", quote(&marker)));
    s.push_str("cat \"$__ic_err\" 2>/dev/null\nrm -f \"$__ic_err\"\nexit \"$__ic_rc\"\n");
    Ok((s, format!("\n{marker}\n")))
}

/// Splits the step's observation at the marker into (stdout, stderr). Without the marker (the
/// output was cut at the sandbox's output limit, or the run was stopped before it), everything
/// is stdout.
pub fn split_output(observation: &str, marker: &str) -> (String, String, bool) {
    match observation.find(marker) {
        Some(at) => (
            observation[..at].to_string(),
            observation[at + marker.len()..].to_string(),
            true,
        ),
        None => (observation.to_string(), String::new(), false),
    }
}
