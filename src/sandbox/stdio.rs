//! Guest stdout/stderr backed by a host file (pipe end, capture pipe, redirection target).
//!
//! The difference from wasmtime-wasi's `OutputFile`: writing to a pipe whose reader is gone
//! kills the writer, as SIGPIPE does on Linux, so `yes | head -1` ends quietly with status 141
//! in the first stage instead of printing "Broken pipe" errors into the observation.

use bytes::Bytes;
use std::io::Write;
use std::pin::Pin;
use std::sync::Arc;
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

#[derive(Clone)]
pub(crate) struct GuestOutput {
    file: Arc<std::fs::File>,
}

impl GuestOutput {
    pub fn new(file: std::fs::File) -> GuestOutput {
        GuestOutput {
            file: Arc::new(file),
        }
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
        match (&*self.file).write_all(&bytes) {
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
        Poll::Ready((&*self.file).write_all(buf).map(|()| buf.len()))
    }

    fn poll_flush(self: Pin<&mut Self>, _cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Poll::Ready(Ok(()))
    }

    fn poll_shutdown(self: Pin<&mut Self>, _cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Poll::Ready(Ok(()))
    }
}
