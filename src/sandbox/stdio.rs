//! Guest stdout/stderr backed by a host file (pipe end, capture pipe, redirection target).
//!
//! The differences from wasmtime-wasi's `OutputFile`:
//! * writing to a pipe whose reader is gone kills the writer, as SIGPIPE does on Linux, so
//!   `yes | head -1` ends quietly with status 141 in the first stage instead of printing
//!   "Broken pipe" errors into the observation;
//! * standard error goes out a line at a time ([`StderrLines`]).

use bytes::Bytes;
use std::io::Write;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use wasmtime_wasi::cli::{IsTerminal, StdoutStream};
use wasmtime_wasi::p2::{OutputStream, Pollable, StreamError, StreamResult};

/// The error a guest dies of when it writes to a broken pipe.
#[derive(Debug)]
pub(crate) struct BrokenPipe;

impl std::fmt::Display for BrokenPipe {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("write to a pipe with no reader (SIGPIPE)")
    }
}

impl std::error::Error for BrokenPipe {}

/// A process's standard error, written a whole line at a time. A message such as
/// `uniq: ls: No such file or directory` is several writes (the program's name, the text, the
/// newline), and processes running side by side (`a | b`, both failing) are scheduled
/// differently here than natively: written as they came, their messages cut into each other's
/// lines (`uniquniq: extra operand …`). Held bytes go out before anything else the process
/// writes elsewhere (standard output, a handle, a child it starts) and when it ends, so its
/// own order is kept.
pub(crate) struct StderrLines {
    file: Arc<std::fs::File>,
    pending: Mutex<Vec<u8>>,
}

/// A line longer than this goes out in pieces (a program writing without newlines).
const HOLD_MAX: usize = 4096;

impl StderrLines {
    pub fn new(file: std::fs::File) -> Arc<StderrLines> {
        Arc::new(StderrLines {
            file: Arc::new(file),
            pending: Mutex::new(Vec::new()),
        })
    }

    fn write(&self, bytes: &[u8]) -> std::io::Result<()> {
        let mut pending = self.pending.lock().unwrap_or_else(|e| e.into_inner());
        pending.extend_from_slice(bytes);
        let cut = if pending.len() > HOLD_MAX {
            pending.len()
        } else {
            pending
                .iter()
                .rposition(|&b| b == b'\n')
                .map_or(0, |i| i + 1)
        };
        if cut == 0 {
            return Ok(());
        }
        let written = (&*self.file).write_all(&pending[..cut]);
        pending.drain(..cut);
        written
    }

    /// Writes what is held (a line not yet ended).
    pub fn flush(&self) -> std::io::Result<()> {
        let mut pending = self.pending.lock().unwrap_or_else(|e| e.into_inner());
        if pending.is_empty() {
            return Ok(());
        }
        let written = (&*self.file).write_all(&pending);
        pending.clear();
        written
    }
}

#[derive(Clone)]
pub(crate) struct GuestOutput {
    file: Arc<std::fs::File>,
    /// The process's standard error: this stream's own buffer if `is_stderr`, else what to
    /// write out before this stream's bytes.
    stderr: Arc<StderrLines>,
    is_stderr: bool,
}

impl GuestOutput {
    /// A process's standard output, which writes out `stderr`'s held line first.
    pub fn stdout(file: std::fs::File, stderr: &Arc<StderrLines>) -> GuestOutput {
        GuestOutput {
            file: Arc::new(file),
            stderr: stderr.clone(),
            is_stderr: false,
        }
    }

    /// A process's standard error, a line at a time.
    pub fn stderr(stderr: &Arc<StderrLines>) -> GuestOutput {
        GuestOutput {
            file: stderr.file.clone(),
            stderr: stderr.clone(),
            is_stderr: true,
        }
    }

    fn write_all(&self, bytes: &[u8]) -> std::io::Result<()> {
        if self.is_stderr {
            return self.stderr.write(bytes);
        }
        // The error stream's own failure (a closed pipe) is its writer's business.
        let _ = self.stderr.flush();
        (&*self.file).write_all(bytes)
    }
}

impl IsTerminal for GuestOutput {
    fn is_terminal(&self) -> bool {
        false
    }
}

impl StdoutStream for GuestOutput {
    fn p2_stream(&self) -> Box<dyn OutputStream> {
        Box::new(self.clone())
    }

    fn async_stream(&self) -> Box<dyn tokio::io::AsyncWrite + Send + Sync> {
        Box::new(self.clone())
    }
}

#[wasmtime_wasi::async_trait]
impl Pollable for GuestOutput {
    async fn ready(&mut self) {}
}

impl OutputStream for GuestOutput {
    fn write(&mut self, bytes: Bytes) -> StreamResult<()> {
        match self.write_all(&bytes) {
            Ok(()) => Ok(()),
            Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => {
                Err(StreamError::Trap(wasmtime::Error::new(BrokenPipe)))
            }
            Err(e) => Err(StreamError::LastOperationFailed(wasmtime::Error::new(e))),
        }
    }

    fn flush(&mut self) -> StreamResult<()> {
        Ok(())
    }

    fn check_write(&mut self) -> StreamResult<usize> {
        Ok(1 << 20)
    }
}

impl tokio::io::AsyncWrite for GuestOutput {
    fn poll_write(
        self: Pin<&mut Self>,
        _cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<std::io::Result<usize>> {
        Poll::Ready(self.write_all(buf).map(|()| buf.len()))
    }

    fn poll_flush(self: Pin<&mut Self>, _cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Poll::Ready(Ok(()))
    }

    fn poll_shutdown(self: Pin<&mut Self>, _cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Poll::Ready(Ok(()))
    }
}
