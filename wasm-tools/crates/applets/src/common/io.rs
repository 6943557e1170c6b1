//! Stdio for applets.
//!
//! An applet body is `fn(&[String], &mut Io) -> i32`: tests hand it in-memory streams, and
//! [`run_main`] hands it the process's real ones. Standard output is *fully* buffered in 4 KiB
//! blocks, like glibc's stdio on a pipe (`st_blksize` is 4096), and standard error is
//! unbuffered: upstream recorded stdout and stderr interleaved in one stream, so the order in
//! which GNU tools' output reaches that stream depends on exactly this buffering.

use std::ffi::OsString;
use std::io::{self, Read, Write};

/// The streams an applet may use.
pub struct Io<'a> {
    pub stdin: &'a mut dyn Read,
    pub out: &'a mut dyn Write,
    pub err: &'a mut dyn Write,
}

/// glibc's buffer size for a pipe or regular file.
pub const STDOUT_BLOCK: usize = 4096;

/// A fully buffered writer that, like glibc's `fwrite`, fills its buffer completely before
/// writing it out, so flushes land on the same byte boundaries as GNU tools' output.
pub struct BlockWriter<W: Write> {
    inner: W,
    buf: Vec<u8>,
}

impl<W: Write> BlockWriter<W> {
    pub fn new(inner: W) -> Self {
        BlockWriter {
            inner,
            buf: Vec::with_capacity(STDOUT_BLOCK),
        }
    }
}

impl<W: Write> Write for BlockWriter<W> {
    fn write(&mut self, data: &[u8]) -> io::Result<usize> {
        let room = STDOUT_BLOCK - self.buf.len();
        let n = room.min(data.len());
        self.buf.extend_from_slice(&data[..n]);
        if self.buf.len() == STDOUT_BLOCK {
            let r = self.inner.write_all(&self.buf);
            self.buf.clear();
            r?;
        }
        Ok(n)
    }

    fn flush(&mut self) -> io::Result<()> {
        if !self.buf.is_empty() {
            let r = self.inner.write_all(&self.buf);
            self.buf.clear();
            r?;
        }
        self.inner.flush()
    }
}

/// Exit status a GNU tool gets when killed by SIGPIPE, as bash reports it.
pub const SIGPIPE_STATUS: i32 = 141;

/// Runs an applet body on the real stdio and returns its exit status. Output still buffered at
/// the end is flushed; a reader that went away ends the process quietly with the SIGPIPE
/// status (GNU tools die of the signal and print nothing).
pub fn run_main(args: Vec<OsString>, body: fn(&[String], &mut Io) -> i32) -> i32 {
    let args: Vec<String> = args
        .into_iter()
        .map(|a| a.to_string_lossy().into_owned())
        .collect();
    let stdin = io::stdin();
    let mut stdin = stdin.lock();
    let mut out = BlockWriter::new(io::stdout());
    let mut err = io::stderr();
    let mut ctx = Io {
        stdin: &mut stdin,
        out: &mut out,
        err: &mut err,
    };
    let status = body(&args, &mut ctx);
    match ctx.out.flush() {
        Ok(()) => status,
        Err(e) => write_failed(&args, &e, ctx.err),
    }
}

/// What a GNU tool does when writing standard output fails: silence and SIGPIPE for a closed
/// pipe, otherwise `prog: write error: REASON` and status 1.
pub fn write_failed(args: &[String], e: &io::Error, err: &mut dyn Write) -> i32 {
    if e.kind() == io::ErrorKind::BrokenPipe {
        return SIGPIPE_STATUS;
    }
    let prog = args.first().map(String::as_str).unwrap_or("applet");
    let _ = writeln!(err, "{prog}: write error: {}", super::sys::strerror(e));
    1
}

/// A diagnostic as gnulib's `error()` prints it: standard output written so far is flushed
/// first, so in a stream holding both (as upstream recorded them) the message comes after
/// it, then `PROG: TEXT` goes to standard error.
pub fn report(out: &mut dyn Write, err: &mut dyn Write, prog: &str, text: impl std::fmt::Display) {
    let _ = out.flush();
    let _ = writeln!(err, "{prog}: {text}");
}

/// A usage error as coreutils prints it: the message, then where to read more; status 1.
pub fn usage(io: &mut Io, prog: &str, msg: &str) -> i32 {
    let _ = io.err.write_all(gnu::usage::report(prog, msg).as_bytes());
    1
}

/// Program name for messages: argv[0] as invoked, which is what GNU tools print.
pub fn prog(args: &[String], default: &'static str) -> String {
    args.first()
        .filter(|a| !a.is_empty())
        .cloned()
        .unwrap_or_else(|| default.to_string())
}

/// Reads all of a file, or standard input for `-`.
pub fn read_input(path: &str, stdin: &mut dyn Read) -> io::Result<Vec<u8>> {
    let mut data = Vec::new();
    if path == "-" {
        stdin.read_to_end(&mut data)?;
    } else {
        std::fs::File::open(path)?.read_to_end(&mut data)?;
    }
    Ok(data)
}

/// Runs an applet body on in-memory streams: (status, stdout, stderr). For unit tests.
#[cfg(test)]
pub fn capture(
    body: fn(&[String], &mut Io) -> i32,
    argv: &[String],
    stdin: &[u8],
) -> (i32, Vec<u8>, Vec<u8>) {
    let mut input = stdin;
    let (mut out, mut err) = (Vec::new(), Vec::new());
    let code = body(
        argv,
        &mut Io {
            stdin: &mut input,
            out: &mut out,
            err: &mut err,
        },
    );
    (code, out, err)
}

/// [`capture`] with stdout and stderr as (lossy) text.
#[cfg(test)]
pub fn capture_text(
    body: fn(&[String], &mut Io) -> i32,
    argv: &[String],
    stdin: &[u8],
) -> (i32, String, String) {
    let (code, out, err) = capture(body, argv, stdin);
    (
        code,
        String::from_utf8_lossy(&out).into_owned(),
        String::from_utf8_lossy(&err).into_owned(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn block_writer_flushes_whole_blocks() {
        let mut sink = Vec::new();
        {
            let mut w = BlockWriter::new(&mut sink);
            w.write_all(&[b'a'; 5000]).unwrap();
            assert_eq!(w.inner.len(), STDOUT_BLOCK);
            w.flush().unwrap();
        }
        assert_eq!(sink.len(), 5000);
    }

    #[test]
    fn broken_pipe_is_quiet() {
        let mut err = Vec::new();
        let e = io::Error::from(io::ErrorKind::BrokenPipe);
        assert_eq!(write_failed(&["find".into()], &e, &mut err), 141);
        assert!(err.is_empty());
    }
}
