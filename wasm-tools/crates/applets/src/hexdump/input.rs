//! hexdump's input: the named files one after another (or standard input) read as one stream,
//! after skipping `-s` bytes across them and up to `-n` bytes in all.
//!
//! Difference from util-linux: it seeks over the skipped bytes of standard input and so
//! fails with "stdin: Illegal seek" on a pipe; here they are read and dropped.

use crate::common::sys;
use std::io::{Read, Write};

pub struct Input<'a> {
    names: Vec<String>,
    next: usize,
    current: Option<Box<dyn Read + 'a>>,
    stdin: Option<&'a mut dyn Read>,
    skip: u64,
    length: Option<u64>,
    /// Offset of the next byte: what was skipped plus what was read.
    pub offset: u64,
    failed_opens: usize,
    pub status: i32,
}

impl<'a> Input<'a> {
    pub fn new(
        names: Vec<String>,
        stdin: &'a mut dyn Read,
        skip: u64,
        length: Option<u64>,
    ) -> Self {
        Input {
            names,
            next: 0,
            current: None,
            stdin: Some(stdin),
            skip,
            length,
            offset: 0,
            failed_opens: 0,
            status: 0,
        }
    }

    /// Opens the next input that can be read; false when none is left.
    fn open_next(&mut self, err: &mut dyn Write, prog: &str) -> bool {
        if self.names.is_empty() {
            return match self.stdin.take() {
                Some(s) => {
                    self.current = Some(Box::new(s));
                    true
                }
                None => false,
            };
        }
        while self.next < self.names.len() {
            let name = &self.names[self.next];
            self.next += 1;
            match std::fs::File::open(name) {
                Ok(f) => {
                    // A directory opens but cannot be read: util-linux reports it and goes
                    // on without counting it as a failure.
                    if f.metadata().is_ok_and(|m| m.is_dir()) {
                        let _ = writeln!(err, "{prog}: {name}: Is a directory");
                        continue;
                    }
                    self.current = Some(Box::new(f));
                    return true;
                }
                Err(e) => {
                    let _ = writeln!(err, "{prog}: {name}: {}", sys::strerror(&e));
                    self.failed_opens += 1;
                    self.status = 1;
                }
            }
        }
        false
    }

    /// Drops what `-s` asks for from the current input; true when some of it is left.
    fn skip_current(&mut self, err: &mut dyn Write, prog: &str, name: &str) -> bool {
        let Some(r) = self.current.as_mut() else {
            return false;
        };
        match std::io::copy(&mut r.take(self.skip), &mut std::io::sink()) {
            Ok(n) => {
                self.skip -= n;
                self.offset += n;
                self.skip == 0
            }
            Err(e) => {
                let _ = writeln!(err, "{prog}: {name}: {}", sys::strerror(&e));
                self.status = 1;
                false
            }
        }
    }

    fn current_name(&self) -> String {
        if self.names.is_empty() {
            "stdin".into()
        } else {
            self.names[self.next - 1].clone()
        }
    }

    /// Fills `buf` from the inputs; returns how many bytes it holds (fewer only at the end).
    pub fn fill(&mut self, buf: &mut [u8], err: &mut dyn Write, prog: &str) -> usize {
        let mut want = buf.len();
        if let Some(left) = self.length {
            want = want.min(usize::try_from(left).unwrap_or(usize::MAX));
        }
        let mut got = 0;
        while got < want {
            if self.current.is_none() {
                if !self.open_next(err, prog) {
                    break;
                }
                if self.skip > 0 {
                    let name = self.current_name();
                    if !self.skip_current(err, prog, &name) {
                        self.current = None;
                        continue;
                    }
                }
            }
            let Some(r) = self.current.as_mut() else {
                break;
            };
            match r.read(&mut buf[got..want]) {
                Ok(0) => self.current = None,
                Ok(n) => got += n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => {
                    let name = self.current_name();
                    let _ = writeln!(err, "{prog}: {name}: {}", sys::strerror(&e));
                    self.status = 1;
                    self.current = None;
                }
            }
        }
        self.offset += got as u64;
        if let Some(left) = self.length.as_mut() {
            *left -= got as u64;
        }
        got
    }

    /// Whether every named file failed to open (util-linux then says so and fails).
    pub fn all_failed(&self) -> bool {
        !self.names.is_empty() && self.failed_opens == self.names.len()
    }
}
