//! od's input: its files read one after the other as one stream. A file that cannot be opened
//! is reported (`od: NAME: No such file or directory`) and passed over, a read error is reported
//! when the file ends, and either makes the exit status 1; files are opened only when the
//! stream reaches them, so `od -N 2 a missing` never reports `missing`.

use crate::common::Io;
use crate::common::io::report;
use crate::common::quote::shell_if_needed;
use crate::common::sys::strerror;
use std::collections::VecDeque;
use std::fs::File;
use std::io::{self, BufReader, Read, Seek, SeekFrom};

enum Source {
    Stdin,
    /// Buffered as stdio buffers GNU's: `-S` reads a byte at a time and lines are 16 bytes.
    File(BufReader<File>),
}

pub struct Input {
    prog: String,
    pending: VecDeque<String>,
    current: Option<(Source, String)>,
    /// The current file's read error, reported when it is closed.
    failed: Option<io::Error>,
    /// False once anything was reported.
    pub ok: bool,
}

impl Input {
    /// Opens the first file that can be opened (reporting those that cannot).
    pub fn new(prog: &str, names: Vec<String>, io: &mut Io) -> Input {
        let mut input = Input {
            prog: prog.to_string(),
            pending: names.into(),
            current: None,
            failed: None,
            ok: true,
        };
        input.open_next(io);
        input
    }

    /// Whether every file has been read.
    pub fn finished(&self) -> bool {
        self.current.is_none()
    }

    fn open_next(&mut self, io: &mut Io) {
        while let Some(name) = self.pending.pop_front() {
            if name == "-" {
                self.current = Some((Source::Stdin, name));
                return;
            }
            match File::open(&name) {
                Ok(file) => {
                    self.current = Some((Source::File(BufReader::new(file)), name));
                    return;
                }
                Err(e) => self.fail(io, &name, "", &e),
            }
        }
    }

    /// Reports a file that cannot be opened (`what` is empty) or read (`what` is "read error").
    fn fail(&mut self, io: &mut Io, name: &str, what: &str, e: &io::Error) {
        let shown = if name == "-" {
            "standard input".to_string()
        } else {
            shell_if_needed(name)
        };
        let what = if what.is_empty() {
            String::new()
        } else {
            format!(" {what}:")
        };
        report(
            io.out,
            io.err,
            &self.prog,
            format!("{shown}:{what} {}", strerror(e)),
        );
        self.ok = false;
    }

    /// Closes the current file (reporting its read error) and opens the next.
    fn advance(&mut self, io: &mut Io) {
        if let Some((_, name)) = self.current.take()
            && let Some(e) = self.failed.take()
        {
            // coreutils 8.32's words (`od: d: read error: Is a directory`); 9.x leaves out
            // "read error".
            self.fail(io, &name, "read error", &e);
        }
        self.open_next(io);
    }

    /// Reads from the current file until `buf` is full, the file ends or it fails.
    fn read_current(&mut self, io: &mut Io, buf: &mut [u8]) -> usize {
        let Some((source, _)) = self.current.as_mut() else {
            return 0;
        };
        let mut filled = 0;
        while filled < buf.len() {
            let got = match source {
                Source::Stdin => io.stdin.read(&mut buf[filled..]),
                Source::File(f) => f.read(&mut buf[filled..]),
            };
            match got {
                Ok(0) => break,
                Ok(n) => filled += n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => {
                    // WASI reads a directory as a bad descriptor; Linux says EISDIR.
                    let directory = matches!(source, Source::File(f)
                        if f.get_ref().metadata().is_ok_and(|m| m.is_dir()));
                    self.failed = Some(if directory {
                        io::Error::from(io::ErrorKind::IsADirectory)
                    } else {
                        e
                    });
                    break;
                }
            }
        }
        filled
    }

    /// Fills as much of `buf` as the remaining input allows; returns how much.
    pub fn read_block(&mut self, io: &mut Io, buf: &mut [u8]) -> usize {
        let mut filled = 0;
        while filled < buf.len() && !self.finished() {
            let n = self.read_current(io, &mut buf[filled..]);
            filled += n;
            if filled < buf.len() {
                self.advance(io);
            }
        }
        filled
    }

    /// The next byte of the stream.
    pub fn read_byte(&mut self, io: &mut Io) -> Option<u8> {
        let mut b = [0u8];
        (self.read_block(io, &mut b) == 1).then_some(b[0])
    }

    /// Passes over `n` bytes, seeking within regular files whose size is known. `Err` when the
    /// input ends first (GNU's "cannot skip past end of combined input").
    pub fn skip(&mut self, io: &mut Io, mut n: u64) -> Result<(), ()> {
        while n > 0 {
            let Some((source, _)) = self.current.as_mut() else {
                return Err(());
            };
            let regular_size = match source {
                Source::File(f) => f
                    .get_ref()
                    .metadata()
                    .ok()
                    .filter(|m| m.is_file() && m.len() > 0)
                    .map(|m| m.len()),
                Source::Stdin => None,
            };
            if let (Some(size), Source::File(f)) = (regular_size, source) {
                if size < n {
                    n -= size;
                } else {
                    if let Err(e) = f.seek(SeekFrom::Current(n as i64)) {
                        self.failed = Some(e);
                    }
                    return Ok(());
                }
            } else {
                let mut buf = vec![0u8; 4096];
                while n > 0 {
                    let want = buf.len().min(usize::try_from(n).unwrap_or(usize::MAX));
                    let got = self.read_current(io, &mut buf[..want]);
                    n -= got as u64;
                    if self.failed.is_some() {
                        // A read error ends the skip; the error is reported when the dump
                        // reads on and the file is closed.
                        self.ok = false;
                        return Ok(());
                    }
                    if got < want {
                        break;
                    }
                }
                if n == 0 {
                    return Ok(());
                }
            }
            self.advance(io);
        }
        Ok(())
    }
}
