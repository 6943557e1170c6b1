//! The stream of input values: JSON texts, lines (`-R`), or all of it at once (`-s`), keeping
//! the position jq reports in its messages.

use crate::cli::Options;
use crate::input::Reader;
use crate::messages;
use crate::run::Position;
use jaq_json::Val;
use std::cell::{Cell, OnceCell};
use std::io::Read;

/// Every input file's bytes in turn, and where each ends with its name (`None`: stdin).
pub struct Source {
    all: Vec<u8>,
    bounds: Vec<(usize, Option<String>)>,
}

impl Source {
    /// Reads the files (standard input when there are none), saying which cannot be opened.
    fn read(files: &[String], failed: &Cell<bool>) -> Source {
        let stdin = || {
            let mut bytes = Vec::new();
            std::io::stdin()
                .lock()
                .read_to_end(&mut bytes)
                .map(|_| bytes)
        };
        let mut source = Source {
            all: Vec::new(),
            bounds: Vec::new(),
        };
        if files.is_empty() {
            source.all = stdin().unwrap_or_default();
            source.bounds.push((source.all.len(), None));
            return source;
        }
        for f in files {
            let read = if f == "-" { stdin() } else { std::fs::read(f) };
            match read {
                Ok(bytes) => {
                    source.all.extend_from_slice(&bytes);
                    source
                        .bounds
                        .push((source.all.len(), (f != "-").then(|| f.clone())));
                }
                Err(e) => {
                    eprintln!(
                        "jq: error: Could not open file {f}: {}",
                        messages::strerror(&e)
                    );
                    failed.set(true);
                }
            }
        }
        source
    }
}

/// The input values, the files read at the first one asked for.
pub struct Lazy<'a> {
    source: &'a OnceCell<Source>,
    options: &'a Options,
    position: &'a Position,
    failed: &'a Cell<bool>,
    values: Option<Box<dyn Iterator<Item = Result<Val, String>> + 'a>>,
}

impl<'a> Lazy<'a> {
    pub fn new(
        source: &'a OnceCell<Source>,
        options: &'a Options,
        position: &'a Position,
        failed: &'a Cell<bool>,
    ) -> Self {
        Lazy {
            source,
            options,
            position,
            failed,
            values: None,
        }
    }
}

impl Iterator for Lazy<'_> {
    type Item = Result<Val, String>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.values.is_none() {
            let source = self
                .source
                .get_or_init(|| Source::read(&self.options.files, self.failed));
            self.values = Some(values(
                &source.all,
                &source.bounds,
                self.options,
                self.position,
            ));
        }
        self.values.as_mut().and_then(Iterator::next)
    }
}

/// The input values over `all` (the files' bytes in turn; `bounds` gives where each file
/// ends and its name), updating `position` as they are read.
fn values<'a>(
    all: &'a [u8],
    bounds: &'a [(usize, Option<String>)],
    o: &Options,
    position: &'a Position,
) -> Box<dyn Iterator<Item = Result<Val, String>> + 'a> {
    let text = |b: &[u8]| Val::utf8_str(String::from_utf8_lossy(b).into_owned());
    if o.raw_input {
        if o.slurp {
            position.start();
            return Box::new(std::iter::once(Ok(text(all))));
        }
        let mut lines: Vec<&[u8]> = all.split(|&b| b == b'\n').collect();
        if lines.last().is_some_and(|l| l.is_empty()) {
            lines.pop();
        }
        let mut line_no = 0;
        return Box::new(lines.into_iter().map(move |l| {
            line_no += 1;
            position.start();
            position.line.set(line_no);
            Ok(text(l))
        }));
    }
    let mut stream = Stream {
        all,
        bounds,
        reader: Reader::new(all),
        position,
    };
    if o.slurp {
        let mut values = Vec::new();
        for v in stream.by_ref() {
            match v {
                Ok(v) => values.push(v),
                Err(e) => return Box::new(std::iter::once(Err(e))),
            }
        }
        return Box::new(std::iter::once(Ok(values.into_iter().collect())));
    }
    Box::new(stream)
}

struct Stream<'a> {
    all: &'a [u8],
    bounds: &'a [(usize, Option<String>)],
    reader: Reader<'a>,
    position: &'a Position,
}

impl Iterator for Stream<'_> {
    type Item = Result<Val, String>;

    fn next(&mut self) -> Option<Self::Item> {
        self.position.start();
        let next = self.reader.next_value();
        let read = self.reader.offset();
        // jq reads a line at a time: the line the value ends on has been read whole.
        let end = match self.all[read.saturating_sub(1)..]
            .iter()
            .position(|&b| b == b'\n')
        {
            Some(at) => read.saturating_sub(1) + at + 1,
            None => self.all.len(),
        };
        let (start, name) = self.file_at(read.saturating_sub(1));
        let lines = self.all[start..end.max(start)]
            .iter()
            .filter(|&&b| b == b'\n')
            .count();
        self.position.set(name, lines);
        next.map(|r| r.map_err(|e| e.0))
    }
}

impl Stream<'_> {
    /// Where the file holding byte `at` begins, and its name (past the end: the last file).
    fn file_at(&self, at: usize) -> (usize, Option<String>) {
        let at = at.min(self.all.len().saturating_sub(1));
        let mut start = 0;
        for (end, name) in self.bounds {
            if at < *end {
                return (start, name.clone());
            }
            start = *end;
        }
        (start, None)
    }
}
