//! Record input (RS as newline, a single byte, paragraph mode or a regex) and the command
//! pipes behind `cmd | getline`, `print | cmd`, `system()` and `close()`.
//!
//! In the sandbox there is no fork/exec: a command is `sh -c CMD` started with
//! `hostcalls::spawn` in a fresh instance, wired with host pipes. Natively (tests) the same
//! calls go through `std::process`.

use super::regex::AwkRegex;
use super::value::Str;
use std::io::{self, Read, Write};
use std::rc::Rc;

#[derive(Clone)]
pub enum RsMode {
    Byte(u8),
    /// `RS = ""`: records are separated by blank lines; leading newlines are skipped.
    Paragraph,
    Regex(Rc<AwkRegex>),
}

const CHUNK: usize = 64 * 1024;

pub struct RecordReader {
    src: Box<dyn Read>,
    buf: Vec<u8>,
    start: usize,
    /// How far past `start` the current separator search has looked (no rescans).
    scanned: usize,
    eof: bool,
}

impl RecordReader {
    pub fn new(src: Box<dyn Read>) -> RecordReader {
        RecordReader {
            src,
            buf: Vec::new(),
            start: 0,
            scanned: 0,
            eof: false,
        }
    }

    /// Reads more input; false at end of file.
    fn fill(&mut self) -> io::Result<bool> {
        if self.eof {
            return Ok(false);
        }
        if self.start > 0 && self.start >= self.buf.len() / 2 {
            self.buf.drain(..self.start);
            self.scanned -= self.start.min(self.scanned);
            self.start = 0;
        }
        let old = self.buf.len();
        self.buf.resize(old + CHUNK, 0);
        let n = loop {
            match self.src.read(&mut self.buf[old..]) {
                Ok(n) => break n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => {
                    self.buf.truncate(old);
                    return Err(e);
                }
            }
        };
        self.buf.truncate(old + n);
        if n == 0 {
            self.eof = true;
            return Ok(false);
        }
        Ok(true)
    }

    fn take(&mut self, end: usize, next: usize) -> Str {
        let rec: Str = Rc::from(&self.buf[self.start..end]);
        self.start = next;
        self.scanned = next;
        rec
    }

    /// The next record without its terminator, or `None` at end of input.
    pub fn read_record(&mut self, rs: &RsMode) -> io::Result<Option<Str>> {
        match rs {
            RsMode::Byte(b) => self.read_byte_sep(*b),
            RsMode::Paragraph => self.read_paragraph(),
            RsMode::Regex(re) => self.read_regex(re),
        }
    }

    fn read_byte_sep(&mut self, sep: u8) -> io::Result<Option<Str>> {
        self.scanned = self.scanned.max(self.start);
        loop {
            if let Some(p) = self.buf[self.scanned..].iter().position(|&c| c == sep) {
                let end = self.scanned + p;
                return Ok(Some(self.take(end, end + 1)));
            }
            self.scanned = self.buf.len();
            if !self.fill()? {
                return Ok(self.rest());
            }
        }
    }

    fn rest(&mut self) -> Option<Str> {
        if self.start < self.buf.len() {
            let end = self.buf.len();
            Some(self.take(end, end))
        } else {
            None
        }
    }

    fn read_paragraph(&mut self) -> io::Result<Option<Str>> {
        // Skip blank lines before the record.
        loop {
            while self.start < self.buf.len() && self.buf[self.start] == b'\n' {
                self.start += 1;
            }
            if self.start < self.buf.len() || !self.fill()? {
                break;
            }
        }
        self.scanned = self.start;
        loop {
            if let Some(p) = self.buf[self.scanned..]
                .windows(2)
                .position(|w| w == b"\n\n")
            {
                let end = self.scanned + p;
                return Ok(Some(self.take(end, end + 2)));
            }
            self.scanned = self.buf.len().saturating_sub(1).max(self.start);
            if !self.fill()? {
                // Trailing newlines at end of input end the last record.
                let mut end = self.buf.len();
                while end > self.start && self.buf[end - 1] == b'\n' {
                    end -= 1;
                }
                if end == self.start {
                    self.start = self.buf.len();
                    return Ok(None);
                }
                let len = self.buf.len();
                return Ok(Some(self.take(end, len)));
            }
        }
    }

    fn read_regex(&mut self, re: &AwkRegex) -> io::Result<Option<Str>> {
        loop {
            let hay = &self.buf[self.start..];
            let mut found = None;
            let mut from = 0;
            while let Some((s, e)) = re.find_at(hay, from) {
                if e > s {
                    found = Some((s, e));
                    break;
                }
                // An empty match separates nothing; look further.
                from = s + 1;
                if from > hay.len() {
                    break;
                }
            }
            match found {
                // A match touching the end of the buffer might grow with more input.
                Some((s, e)) if e < hay.len() || self.eof => {
                    let (s, e) = (self.start + s, self.start + e);
                    return Ok(Some(self.take(s, e)));
                }
                _ => {
                    if !self.fill()? {
                        if let Some((s, e)) = found {
                            let (s, e) = (self.start + s, self.start + e);
                            return Ok(Some(self.take(s, e)));
                        }
                        return Ok(self.rest());
                    }
                }
            }
        }
    }
}

// ----- commands -----

/// The environment and directory a child command starts with: ours.
#[cfg(target_os = "wasi")]
fn spawn_request(cmd: &[u8], stdio: [hostcalls::Handle; 3]) -> hostcalls::SpawnRequest {
    hostcalls::SpawnRequest {
        argv: vec![
            "sh".into(),
            "-c".into(),
            String::from_utf8_lossy(cmd).into_owned(),
        ],
        env: std::env::vars().collect(),
        cwd: std::env::current_dir()
            .map(|p| p.to_string_lossy().into_owned())
            .unwrap_or_else(|_| "/".into()),
        stdio,
    }
}

/// `system(cmd)`: runs with our stdio and returns its exit status.
pub fn system(cmd: &[u8]) -> i32 {
    #[cfg(target_os = "wasi")]
    {
        match hostcalls::spawn(&spawn_request(cmd, [0, 1, 2])) {
            Ok(pid) => hostcalls::wait(pid).unwrap_or(-1),
            Err(_) => -1,
        }
    }
    #[cfg(not(target_os = "wasi"))]
    {
        use std::os::unix::process::ExitStatusExt;
        match std::process::Command::new("sh")
            .arg("-c")
            .arg(std::ffi::OsStr::new(
                &String::from_utf8_lossy(cmd).into_owned(),
            ))
            .status()
        {
            // mawk reports death by signal n as 256 + n.
            Ok(st) => st.code().unwrap_or_else(|| 256 + st.signal().unwrap_or(0)),
            Err(_) => -1,
        }
    }
}

/// The write end of `print | cmd`.
pub struct CmdWriter {
    #[cfg(target_os = "wasi")]
    handle: hostcalls::Handle,
    #[cfg(target_os = "wasi")]
    pid: hostcalls::Pid,
    #[cfg(not(target_os = "wasi"))]
    child: std::process::Child,
    buf: Vec<u8>,
}

impl CmdWriter {
    pub fn spawn(cmd: &[u8]) -> io::Result<CmdWriter> {
        #[cfg(target_os = "wasi")]
        {
            let (r, w) = hostcalls::pipe()?;
            let pid = hostcalls::spawn(&spawn_request(cmd, [r, 1, 2]));
            let _ = hostcalls::close(r);
            let pid = match pid {
                Ok(p) => p,
                Err(e) => {
                    let _ = hostcalls::close(w);
                    return Err(e);
                }
            };
            Ok(CmdWriter {
                handle: w,
                pid,
                buf: Vec::new(),
            })
        }
        #[cfg(not(target_os = "wasi"))]
        {
            let child = std::process::Command::new("sh")
                .arg("-c")
                .arg(String::from_utf8_lossy(cmd).into_owned())
                .stdin(std::process::Stdio::piped())
                .spawn()?;
            Ok(CmdWriter {
                child,
                buf: Vec::new(),
            })
        }
    }

    fn flush_buf(&mut self) -> io::Result<()> {
        if self.buf.is_empty() {
            return Ok(());
        }
        let data = std::mem::take(&mut self.buf);
        #[cfg(target_os = "wasi")]
        {
            hostcalls::write_all(self.handle, &data)
        }
        #[cfg(not(target_os = "wasi"))]
        {
            match self.child.stdin.as_mut() {
                Some(w) => w.write_all(&data),
                None => Ok(()),
            }
        }
    }

    /// Closes the pipe and waits: the command's exit status.
    pub fn close(mut self) -> i32 {
        let _ = self.flush_buf();
        #[cfg(target_os = "wasi")]
        {
            let _ = hostcalls::close(self.handle);
            hostcalls::wait(self.pid).unwrap_or(-1)
        }
        #[cfg(not(target_os = "wasi"))]
        {
            drop(self.child.stdin.take());
            match self.child.wait() {
                Ok(st) => st.code().unwrap_or(-1),
                Err(_) => -1,
            }
        }
    }
}

impl Write for CmdWriter {
    fn write(&mut self, data: &[u8]) -> io::Result<usize> {
        self.buf.extend_from_slice(data);
        if self.buf.len() >= CHUNK {
            self.flush_buf()?;
        }
        Ok(data.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        self.flush_buf()
    }
}

/// The read end of `cmd | getline`, with the child to reap on close.
pub struct CmdReader {
    #[cfg(target_os = "wasi")]
    handle: hostcalls::Handle,
    #[cfg(target_os = "wasi")]
    pid: hostcalls::Pid,
    #[cfg(not(target_os = "wasi"))]
    child: std::process::Child,
}

/// A `Read` over the command's output, shared with the [`CmdReader`] that owns the child.
pub struct PipeRead(
    #[cfg(target_os = "wasi")] hostcalls::Handle,
    #[cfg(not(target_os = "wasi"))] std::process::ChildStdout,
);

impl Read for PipeRead {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        #[cfg(target_os = "wasi")]
        {
            hostcalls::read(self.0, buf)
        }
        #[cfg(not(target_os = "wasi"))]
        {
            self.0.read(buf)
        }
    }
}

impl CmdReader {
    pub fn spawn(cmd: &[u8]) -> io::Result<(CmdReader, PipeRead)> {
        #[cfg(target_os = "wasi")]
        {
            let (r, w) = hostcalls::pipe()?;
            let pid = hostcalls::spawn(&spawn_request(cmd, [0, w, 2]));
            let _ = hostcalls::close(w);
            let pid = match pid {
                Ok(p) => p,
                Err(e) => {
                    let _ = hostcalls::close(r);
                    return Err(e);
                }
            };
            Ok((CmdReader { handle: r, pid }, PipeRead(r)))
        }
        #[cfg(not(target_os = "wasi"))]
        {
            let mut child = std::process::Command::new("sh")
                .arg("-c")
                .arg(String::from_utf8_lossy(cmd).into_owned())
                .stdout(std::process::Stdio::piped())
                .spawn()?;
            let out = child
                .stdout
                .take()
                .ok_or_else(|| io::Error::other("no pipe"))?;
            Ok((CmdReader { child }, PipeRead(out)))
        }
    }

    /// Closes our end and waits for the command: its exit status.
    pub fn close(self) -> i32 {
        #[cfg(target_os = "wasi")]
        {
            let _ = hostcalls::close(self.handle);
            hostcalls::wait(self.pid).unwrap_or(-1)
        }
        #[cfg(not(target_os = "wasi"))]
        {
            let mut child = self.child;
            match child.wait() {
                Ok(st) => st.code().unwrap_or(-1),
                Err(_) => -1,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn records(input: &str, rs: RsMode) -> Vec<String> {
        let mut r = RecordReader::new(Box::new(io::Cursor::new(input.as_bytes().to_vec())));
        let mut v = Vec::new();
        while let Some(rec) = r.read_record(&rs).unwrap() {
            v.push(String::from_utf8(rec.to_vec()).unwrap());
        }
        v
    }

    #[test]
    fn separators() {
        assert_eq!(records("a\nb\n", RsMode::Byte(b'\n')), ["a", "b"]);
        assert_eq!(records("a\nb", RsMode::Byte(b'\n')), ["a", "b"]);
        assert_eq!(records("a.b.c\n", RsMode::Byte(b'.')), ["a", "b", "c\n"]);
        assert_eq!(
            records("\n\na b\nc\n\n\n\nd e\n\n", RsMode::Paragraph),
            ["a b\nc", "d e"]
        );
        let re = Rc::new(AwkRegex::new(b"[0-9]+", false).unwrap());
        assert_eq!(records("a12b3c\n", RsMode::Regex(re)), ["a", "b", "c\n"]);
    }
}
