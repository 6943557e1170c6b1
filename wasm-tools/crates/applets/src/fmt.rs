//! `fmt` as GNU coreutils 8.32 has it: paragraphs refilled by the same cost model (lines near
//! 93% of the width, even right edges, breaks after sentences and punctuation preferred, one
//! word alone after a sentence start or before its end avoided), the same paragraph rules for
//! `-c -t -s -u -p`, tabs kept for indentation when the input had any, and the same bounded
//! buffers (1000 words, 5000 bytes) whose overflow flushes a long paragraph early at its
//! cheapest break. uutils' fmt weighs breaks differently, so its lines end elsewhere.
//!
//! The input is read as bytes in the C locale, as upstream's agents ran it. A read error ends
//! that file quietly (8.32 checks none; a directory formats as empty).

use crate::common::getopt::{self, Config, OptSpec};
use crate::common::io::{prog, report, run_main, usage, write_failed};
use crate::common::xstrtol::{NumError, xstrtoumax};
use crate::common::{Io, gnu_version, quote, sys};
use std::ffi::OsString;
use std::io::{self, BufRead, BufReader, Read, Write};

pub fn main(args: Vec<OsString>) -> i32 {
    run_main(args, run)
}

/// The default longest line.
const WIDTH: i64 = 75;
/// Lines aim this many percent shorter than the width, leaving room to choose breaks.
const LEEWAY: i64 = 7;
/// The second-line indent `-t` gives a one-line paragraph when nothing better is known.
const DEF_INDENT: i64 = 3;
/// Paragraph buffers: a longer paragraph is formatted in pieces.
const MAXWORDS: usize = 1000;
const MAXCHARS: usize = 5000;
const TABWIDTH: i64 = 8;

/// Costs are the squared departure from the goal length, in tenths of a column: a cost of
/// `equiv(5)` is as bad as a line half a column off.
type Cost = i64;
const MAXCOST: Cost = Cost::MAX;
const fn equiv(n: i64) -> Cost {
    n * n
}
/// A filled line `n` columns away from the goal.
const fn short_cost(n: i64) -> Cost {
    equiv(n * 10)
}
/// Adjacent lines whose lengths differ by `n`.
const fn ragged_cost(n: i64) -> Cost {
    short_cost(n) / 2
}
const LINE_COST: Cost = equiv(70);
/// A line broken after the first word of a sentence, that word `n` long.
const fn widow_cost(n: i64) -> Cost {
    equiv(200) / (n + 2)
}
/// A line broken before the last word of a sentence, that word `n` long.
const fn orphan_cost(n: i64) -> Cost {
    equiv(150) / (n + 2)
}
const SENTENCE_BONUS: Cost = equiv(50);
/// A break after a period that does not end a sentence would read as a sentence end.
const NOBREAK_COST: Cost = equiv(600);
const PAREN_BONUS: Cost = equiv(40);
const PUNCT_BONUS: Cost = equiv(40);
/// When a long paragraph is flushed early, a later break is worth this much more.
const LINE_CREDIT: Cost = equiv(3);

/// A byte, or the end of the input.
type Ch = i32;
const EOF: Ch = -1;
const NL: Ch = b'\n' as Ch;

/// C's `strchr(set, c) != NULL`, which also finds the terminating NUL.
fn in_set(set: &[u8], c: u8) -> bool {
    c == 0 || set.contains(&c)
}
fn is_open(c: u8) -> bool {
    in_set(b"(['`\"", c)
}
fn is_close(c: u8) -> bool {
    in_set(b")]'\"", c)
}
fn is_period(c: u8) -> bool {
    in_set(b".?!", c)
}
/// `isspace` in the C locale.
fn is_space(c: Ch) -> bool {
    matches!(c, 9..=13 | 32)
}

#[derive(Clone, Copy, Default)]
struct Word {
    /// Where the word's bytes start in the paragraph buffer.
    text: usize,
    length: i64,
    /// Columns of space after it.
    space: i64,
    /// Starts with an opening bracket or quote.
    paren: bool,
    /// Ends in `.?!`, closing brackets and quotes aside.
    period: bool,
    /// Ends in punctuation.
    punct: bool,
    /// Ends a sentence.
    last: bool,
    /// The best line starting here: its length, the paragraph's cost from here, the word the
    /// next line starts with.
    line_length: i64,
    best_cost: Cost,
    next_break: usize,
}

struct Settings {
    crown: bool,
    tagged: bool,
    split: bool,
    uniform: bool,
    /// The prefix without its leading and trailing spaces.
    prefix: Vec<u8>,
    /// Spaces before the prefix as given, and its length with the trailing ones.
    prefix_lead_space: i64,
    prefix_full_length: i64,
    max_width: i64,
    goal_width: i64,
}

/// Bytes one at a time, as `getc` hands them out; a read error is the end.
struct Bytes<'a>(BufReader<&'a mut dyn Read>);

impl<'a> Bytes<'a> {
    fn new(inner: &'a mut dyn Read) -> Self {
        Bytes(BufReader::with_capacity(1 << 16, inner))
    }

    fn getc(&mut self) -> Ch {
        loop {
            let next = match self.0.fill_buf() {
                Ok(buf) => buf.first().copied(),
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(_) => None,
            };
            return match next {
                Some(b) => {
                    self.0.consume(1);
                    Ch::from(b)
                }
                None => EOF,
            };
        }
    }
}

/// The formatter's state across paragraphs and files (GNU keeps it in globals).
struct Fmt<'s, 'w> {
    s: &'s Settings,
    /// Output not yet handed to `writer`.
    out: Vec<u8>,
    writer: &'w mut dyn Write,
    /// The first write that failed; reading stops there (GNU dies of the SIGPIPE or reports
    /// the error when it exits).
    error: Option<io::Error>,
    in_column: i64,
    out_column: i64,
    parabuf: Vec<u8>,
    /// Bytes of `parabuf` in use.
    wptr: usize,
    word: Vec<Word>,
    /// One past the last complete word (at times the word being read).
    word_limit: usize,
    /// The current file has tabs, so output indentation may use them.
    tabs: bool,
    prefix_indent: i64,
    first_indent: i64,
    other_indent: i64,
    /// The lookahead: the first byte after the prefix and blanks of the next line.
    next_char: Ch,
    next_prefix_indent: i64,
    /// The length of the last line written of a paragraph flushed early, else 0.
    last_line_length: i64,
}

/// Output is handed on in pieces of about this size.
const SPILL: usize = 1 << 15;

impl<'s, 'w> Fmt<'s, 'w> {
    fn new(s: &'s Settings, writer: &'w mut dyn Write) -> Self {
        Fmt {
            s,
            out: Vec::new(),
            writer,
            error: None,
            in_column: 0,
            out_column: 0,
            parabuf: vec![0; MAXCHARS],
            wptr: 0,
            word: vec![Word::default(); MAXWORDS],
            word_limit: 0,
            tabs: false,
            prefix_indent: 0,
            first_indent: 0,
            other_indent: 0,
            next_char: EOF,
            next_prefix_indent: 0,
            last_line_length: 0,
        }
    }

    /// Formats one input.
    fn file(&mut self, f: &mut Bytes) {
        self.tabs = false;
        self.other_indent = 0;
        self.next_char = self.get_prefix(f);
        while self.get_paragraph(f) {
            self.fmt_paragraph();
            self.put_paragraph(self.word_limit);
        }
        self.write_out();
    }

    /// Hands the output so far to the writer.
    fn write_out(&mut self) {
        if self.error.is_none()
            && let Err(e) = self.writer.write_all(&self.out)
        {
            self.error = Some(e);
        }
        self.out.clear();
    }

    /// [`Self::write_out`] once enough has gathered.
    fn spill(&mut self) {
        if self.out.len() >= SPILL {
            self.write_out();
        }
    }

    /// The next input byte; the end once output has failed.
    fn getc(&self, f: &mut Bytes) -> Ch {
        if self.error.is_some() { EOF } else { f.getc() }
    }

    fn putc(&mut self, c: u8) {
        self.out.push(c);
    }

    fn set_other_indent(&mut self, same_paragraph: bool) {
        let s = self.s;
        if s.split {
            self.other_indent = self.first_indent;
        } else if s.crown {
            self.other_indent = if same_paragraph {
                self.in_column
            } else {
                self.first_indent
            };
        } else if s.tagged {
            if same_paragraph && self.in_column != self.first_indent {
                self.other_indent = self.in_column;
            } else if self.other_indent == self.first_indent {
                // One line: keep the last multi-line paragraph's second indent, unless that
                // equals this first one.
                self.other_indent = if self.first_indent == 0 {
                    DEF_INDENT
                } else {
                    0
                };
            }
        } else {
            self.other_indent = self.first_indent;
        }
    }

    /// Copies blank lines and lines without the prefix, then reads the next paragraph's
    /// words. False at the end of the input.
    fn get_paragraph(&mut self, f: &mut Bytes) -> bool {
        self.last_line_length = 0;
        let mut c = self.next_char;
        while c == NL
            || c == EOF
            || self.next_prefix_indent < self.s.prefix_lead_space
            || self.in_column < self.next_prefix_indent + self.s.prefix_full_length
        {
            c = self.copy_rest(f, c);
            if c == EOF {
                self.next_char = EOF;
                return false;
            }
            self.putc(b'\n');
            c = self.get_prefix(f);
        }
        self.prefix_indent = self.next_prefix_indent;
        self.first_indent = self.in_column;
        self.wptr = 0;
        self.word_limit = 0;
        c = self.get_line(f, c);
        self.set_other_indent(self.same_para(c));
        let s = self.s;
        if s.split {
            // A line is a paragraph.
        } else if s.crown {
            if self.same_para(c) {
                loop {
                    c = self.get_line(f, c);
                    if !(self.same_para(c) && self.in_column == self.other_indent) {
                        break;
                    }
                }
            }
        } else if s.tagged {
            if self.same_para(c) && self.in_column != self.first_indent {
                loop {
                    c = self.get_line(f, c);
                    if !(self.same_para(c) && self.in_column == self.other_indent) {
                        break;
                    }
                }
            }
        } else {
            while self.same_para(c) && self.in_column == self.other_indent {
                c = self.get_line(f, c);
            }
        }
        let last = &mut self.word[self.word_limit - 1];
        last.period = true;
        last.last = true;
        self.next_char = c;
        true
    }

    /// Writes out a line that is not part of a paragraph: `c` is the byte that failed to
    /// match the prefix, or the newline (or end) of a line blank after it. Returns the byte
    /// that ends the line.
    fn copy_rest(&mut self, f: &mut Bytes, mut c: Ch) -> Ch {
        self.out_column = 0;
        if self.in_column > self.next_prefix_indent || (c != NL && c != EOF) {
            self.put_space(self.next_prefix_indent);
            let prefix = &self.s.prefix;
            let mut i = 0;
            while self.out_column != self.in_column && i < prefix.len() {
                self.out.push(prefix[i]);
                i += 1;
                self.out_column += 1;
            }
            if c != EOF && c != NL {
                self.put_space(self.in_column - self.out_column);
            }
            if c == EOF && self.in_column >= self.next_prefix_indent + self.s.prefix.len() as i64 {
                self.putc(b'\n');
            }
        }
        while c != NL && c != EOF {
            self.putc(c as u8);
            self.spill();
            c = self.getc(f);
        }
        c
    }

    /// Whether a line whose first byte after prefix and blanks is `c` may continue the
    /// paragraph.
    fn same_para(&self, c: Ch) -> bool {
        self.next_prefix_indent == self.prefix_indent
            && self.in_column >= self.next_prefix_indent + self.s.prefix_full_length
            && c != NL
            && c != EOF
    }

    /// Reads the words of a line starting with `c`; returns the first byte after the prefix
    /// and blanks of the next line. A word ending in `[.?!]` (closing brackets and quotes
    /// aside) followed by the end of the line or two spaces ends a sentence.
    fn get_line(&mut self, f: &mut Bytes, mut c: Ch) -> Ch {
        loop {
            self.word[self.word_limit].text = self.wptr;
            loop {
                if self.wptr == MAXCHARS {
                    self.set_other_indent(true);
                    self.flush_paragraph();
                }
                self.parabuf[self.wptr] = c as u8;
                self.wptr += 1;
                c = self.getc(f);
                if c == EOF || is_space(c) {
                    break;
                }
            }
            let wl = self.word_limit;
            let length = (self.wptr - self.word[wl].text) as i64;
            self.word[wl].length = length;
            self.in_column += length;
            self.check_punctuation(wl);
            let start = self.in_column;
            c = self.get_space(f, c);
            let w = &mut self.word[wl];
            w.space = self.in_column - start;
            w.last = c == EOF || (w.period && (c == NL || w.space > 1));
            if c == NL || c == EOF || self.s.uniform {
                w.space = if w.last { 2 } else { 1 };
            }
            if wl == MAXWORDS - 2 {
                self.set_other_indent(true);
                self.flush_paragraph();
            }
            self.word_limit += 1;
            if c == NL || c == EOF {
                break;
            }
        }
        self.get_prefix(f)
    }

    /// Reads the blanks and the prefix at the start of a line; returns the first byte that
    /// does not match the prefix, or the first after it and the blanks that follow.
    fn get_prefix(&mut self, f: &mut Bytes) -> Ch {
        self.in_column = 0;
        let first = self.getc(f);
        let mut c = self.get_space(f, first);
        if self.s.prefix.is_empty() {
            self.next_prefix_indent = self.s.prefix_lead_space.min(self.in_column);
        } else {
            self.next_prefix_indent = self.in_column;
            for &p in &self.s.prefix {
                if c != Ch::from(p) {
                    return c;
                }
                self.in_column += 1;
                c = self.getc(f);
            }
            c = self.get_space(f, c);
        }
        c
    }

    /// Reads spaces and tabs from `c` on, counting columns; returns the first other byte.
    fn get_space(&mut self, f: &mut Bytes, mut c: Ch) -> Ch {
        loop {
            if c == Ch::from(b' ') {
                self.in_column += 1;
            } else if c == Ch::from(b'\t') {
                self.tabs = true;
                self.in_column = (self.in_column / TABWIDTH + 1) * TABWIDTH;
            } else {
                return c;
            }
            c = self.getc(f);
        }
    }

    fn check_punctuation(&mut self, w: usize) {
        let word = self.word[w];
        let text = &self.parabuf[word.text..word.text + word.length as usize];
        let mut finish = text.len() - 1;
        let paren = is_open(text[0]);
        let punct = text[finish].is_ascii_punctuation();
        while finish > 0 && is_close(text[finish]) {
            finish -= 1;
        }
        let period = is_period(text[finish]);
        let word = &mut self.word[w];
        word.paren = paren;
        word.punct = punct;
        word.period = period;
    }

    /// Makes room when the paragraph fills a buffer: formats what there is, writes it up to
    /// a cheap break near the end, and keeps the rest as the start of the paragraph.
    fn flush_paragraph(&mut self) {
        if self.word_limit == 0 {
            // All one word: out with it as it is.
            self.out.extend_from_slice(&self.parabuf[..self.wptr]);
            self.spill();
            self.wptr = 0;
            return;
        }
        self.fmt_paragraph();
        let mut split_point = self.word_limit;
        let mut best_break = MAXCOST;
        let mut w = self.word[0].next_break;
        while w != self.word_limit {
            let gain = self.word[w]
                .best_cost
                .wrapping_sub(self.word[self.word[w].next_break].best_cost);
            if gain < best_break {
                split_point = w;
                best_break = gain;
            }
            if best_break <= MAXCOST - LINE_CREDIT {
                best_break += LINE_CREDIT;
            }
            w = self.word[w].next_break;
        }
        self.put_paragraph(split_point);
        let shift = self.word[split_point].text;
        self.parabuf.copy_within(shift..self.wptr, 0);
        self.wptr -= shift;
        for w in &mut self.word[split_point..=self.word_limit] {
            w.text -= shift;
        }
        self.word.copy_within(split_point..=self.word_limit, 0);
        self.word_limit -= split_point;
    }

    /// The cheapest way to break the paragraph: the best breaks of every suffix, from the
    /// shortest to the whole.
    fn fmt_paragraph(&mut self) {
        let wl = self.word_limit;
        self.word[wl].best_cost = 0;
        let saved_length = self.word[wl].length;
        // A sentinel that ends the search for a line's end at the paragraph's end.
        self.word[wl].length = self.s.max_width;
        for start in (0..wl).rev() {
            let mut best = MAXCOST;
            let mut len = if start == 0 {
                self.first_indent
            } else {
                self.other_indent
            };
            let mut w = start;
            len += self.word[w].length;
            loop {
                w += 1;
                let mut wcost = self.line_cost(w, len).wrapping_add(self.word[w].best_cost);
                if start == 0 && self.last_line_length > 0 {
                    wcost = wcost.wrapping_add(ragged_cost(len - self.last_line_length));
                }
                if wcost < best {
                    best = wcost;
                    self.word[start].next_break = w;
                    self.word[start].line_length = len;
                }
                if w == wl {
                    break;
                }
                len += self.word[w - 1].space + self.word[w].length;
                if len >= self.s.max_width {
                    break;
                }
            }
            self.word[start].best_cost = best.wrapping_add(self.base_cost(start));
        }
        self.word[wl].length = saved_length;
    }

    /// The part of the cost of breaking before word `this` that does not depend on lengths.
    fn base_cost(&self, this: usize) -> Cost {
        let mut cost = LINE_COST;
        let w = &self.word;
        if this > 0 {
            let before = &w[this - 1];
            if before.period {
                if before.last {
                    cost -= SENTENCE_BONUS;
                } else {
                    cost += NOBREAK_COST;
                }
            } else if before.punct {
                cost -= PUNCT_BONUS;
            } else if this > 1 && w[this - 2].last {
                cost += widow_cost(before.length);
            }
        }
        if w[this].paren {
            cost -= PAREN_BONUS;
        } else if w[this].last {
            cost += orphan_cost(w[this].length);
        }
        cost
    }

    /// The part of the cost of breaking before word `next` that depends on `len`, the length
    /// of the line ending there.
    fn line_cost(&self, next: usize, len: i64) -> Cost {
        if next == self.word_limit {
            return 0;
        }
        let mut cost = short_cost(self.s.goal_width - len);
        if self.word[next].next_break != self.word_limit {
            cost = cost.wrapping_add(ragged_cost(len - self.word[next].line_length));
        }
        cost
    }

    /// Writes the lines from the paragraph's start up to word `finish`, which is one of the
    /// chosen breaks.
    fn put_paragraph(&mut self, finish: usize) {
        self.put_line(0, self.first_indent);
        let mut w = self.word[0].next_break;
        while w != finish {
            self.put_line(w, self.other_indent);
            w = self.word[w].next_break;
        }
    }

    fn put_line(&mut self, mut w: usize, indent: i64) {
        self.out_column = 0;
        self.put_space(self.prefix_indent);
        self.out.extend_from_slice(&self.s.prefix);
        self.out_column += self.s.prefix.len() as i64;
        self.put_space(indent - self.out_column);
        let endline = self.word[w].next_break - 1;
        while w != endline {
            self.put_word(w);
            self.put_space(self.word[w].space);
            w += 1;
        }
        self.put_word(w);
        self.last_line_length = self.out_column;
        self.putc(b'\n');
        self.spill();
    }

    fn put_word(&mut self, w: usize) {
        let Word { text, length, .. } = self.word[w];
        self.out
            .extend_from_slice(&self.parabuf[text..text + length as usize]);
        self.out_column += length;
    }

    /// `space` columns of white space: tabs where they fit, when the input had tabs.
    fn put_space(&mut self, space: i64) {
        let target = self.out_column + space;
        if self.tabs {
            let tab_target = target / TABWIDTH * TABWIDTH;
            if self.out_column + 1 < tab_target {
                while self.out_column < tab_target {
                    self.putc(b'\t');
                    self.out_column = (self.out_column / TABWIDTH + 1) * TABWIDTH;
                }
            }
        }
        while self.out_column < target {
            self.putc(b' ');
            self.out_column += 1;
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum K {
    Crown,
    Prefix,
    Split,
    Tagged,
    Uniform,
    Width,
    Goal,
    Digit,
    Help,
    Version,
}

const SPECS: &[OptSpec<K>] = &[
    getopt::flag('c', "crown-margin", K::Crown),
    getopt::with_arg('p', "prefix", K::Prefix),
    getopt::flag('s', "split-only", K::Split),
    getopt::flag('t', "tagged-paragraph", K::Tagged),
    getopt::flag('u', "uniform-spacing", K::Uniform),
    getopt::with_arg('w', "width", K::Width),
    getopt::with_arg('g', "goal", K::Goal),
    getopt::long_flag("help", K::Help),
    getopt::long_flag("version", K::Version),
];

/// `--help`: GNU's usage line (the syntax is the interface), the rest in our words.
const HELP: &str = "Usage: fmt [-WIDTH] [OPTION]... [FILE]...
Refill the paragraphs of the FILEs (standard input when none or `-`) to standard
output. -WIDTH, as the first option only, is short for --width=WIDTH.

  -c, --crown-margin        keep the indents of a paragraph's first two lines
  -p, --prefix=STRING       refill only lines starting with STRING, and put it
                              back in front of each refilled line
  -s, --split-only          break long lines, never join short ones
  -t, --tagged-paragraph    like -c, but the first two indents must differ
  -u, --uniform-spacing     one space between words, two after a sentence
  -w, --width=WIDTH         longest line (75)
  -g, --goal=WIDTH          line length to aim for (93% of the width)
      --help, --version
";

/// The longest width accepted: half the paragraph buffer.
const MAX_WIDTH: u64 = MAXCHARS as u64 / 2;

/// gnulib's `xdectoumax(arg, 0, max, "", "invalid width", 0)`: a decimal number in range, or
/// its message.
fn width(arg: &str, max: u64) -> Result<i64, String> {
    let bad = |why: Option<&str>| {
        let mut m = format!("invalid width: {}", quote::locale(arg));
        if let Some(why) = why {
            m.push_str(": ");
            m.push_str(why);
        }
        m
    };
    const TOO_LARGE: &str = "Value too large for defined data type";
    match xstrtoumax(arg, 10, Some("")) {
        Ok(n) if n <= max => Ok(n as i64),
        // gnulib's heuristic: beyond half of INT_MAX is the type's limit, else the range's.
        Ok(n) if n > (i32::MAX / 2) as u64 => Err(bad(Some(TOO_LARGE))),
        Ok(_) => Err(bad(Some("Numerical result out of range"))),
        Err(NumError::Overflow) => Err(bad(Some(TOO_LARGE))),
        Err(NumError::Invalid | NumError::InvalidSuffix) => Err(bad(None)),
    }
}

fn settings(prog: &str, args: &[String], io: &mut Io) -> Result<(Settings, Vec<String>), i32> {
    let mut args = args.to_vec();
    let mut width_arg: Option<String> = None;
    // The old `-WIDTH`, recognised only as the first argument.
    if args.len() > 1
        && args[1].starts_with('-')
        && args[1][1..].starts_with(|c: char| c.is_ascii_digit())
    {
        width_arg = Some(args.remove(1)[1..].to_string());
    }
    let config = Config {
        digits: Some(K::Digit),
        ..Config::default()
    };
    let (parsed, bad) = getopt::parse_in_order(&args, SPECS, config);
    let mut s = Settings {
        crown: false,
        tagged: false,
        split: false,
        uniform: false,
        prefix: Vec::new(),
        prefix_lead_space: 0,
        prefix_full_length: 0,
        max_width: WIDTH,
        goal_width: 0,
    };
    let mut goal_arg: Option<String> = None;
    for opt in &parsed.opts {
        match opt.key {
            K::Crown => s.crown = true,
            K::Split => s.split = true,
            K::Tagged => s.tagged = true,
            K::Uniform => s.uniform = true,
            K::Width => width_arg = opt.arg.clone(),
            K::Goal => goal_arg = opt.arg.clone(),
            K::Prefix => {
                let p = opt.arg.clone().unwrap_or_default().into_bytes();
                let lead = p.iter().take_while(|&&b| b == b' ').count();
                let rest = &p[lead..];
                let trail = rest.iter().rev().take_while(|&&b| b == b' ').count();
                s.prefix_lead_space = lead as i64;
                s.prefix_full_length = rest.len() as i64;
                s.prefix = rest[..rest.len() - trail].to_vec();
            }
            K::Digit => {
                let digit = opt
                    .arg
                    .as_deref()
                    .unwrap_or_default()
                    .chars()
                    .next()
                    .unwrap_or('0');
                return Err(usage(
                    io,
                    prog,
                    &format!(
                        "invalid option -- {digit}; -WIDTH is recognized only when it is the first\noption; use -w N instead"
                    ),
                ));
            }
            K::Help => {
                let _ = io.out.write_all(HELP.as_bytes());
                return Err(0);
            }
            K::Version => {
                let _ = io.out.write_all(
                    gnu_version("fmt (GNU coreutils) 8.32", 2020, "Ross Paterson").as_bytes(),
                );
                return Err(0);
            }
        }
    }
    if let Some(message) = bad {
        return Err(usage(io, prog, &message));
    }
    let fail = |io: &mut Io, m: String| {
        report(io.out, io.err, prog, m);
        1
    };
    if let Some(arg) = &width_arg {
        s.max_width = width(arg, MAX_WIDTH).map_err(|m| fail(io, m))?;
    }
    if let Some(arg) = &goal_arg {
        s.goal_width = width(arg, s.max_width as u64).map_err(|m| fail(io, m))?;
        if width_arg.is_none() {
            s.max_width = s.goal_width + 10;
        }
    } else {
        s.goal_width = s.max_width * (2 * (100 - LEEWAY) + 1) / 200;
    }
    Ok((s, parsed.operands))
}

fn run(args: &[String], io: &mut Io) -> i32 {
    let prog = prog(args, "fmt");
    let (settings, files) = match settings(&prog, args, io) {
        Ok(v) => v,
        Err(status) => return status,
    };
    let mut fmt = Fmt::new(&settings, io.out);
    let files = if files.is_empty() {
        vec!["-".to_string()]
    } else {
        files
    };
    let mut status = 0;
    for name in &files {
        if name == "-" {
            fmt.file(&mut Bytes::new(io.stdin));
        } else {
            match std::fs::File::open(name) {
                Ok(mut f) => fmt.file(&mut Bytes::new(&mut f)),
                Err(e) => {
                    let m = format!(
                        "cannot open {} for reading: {}",
                        quote::shell_always(name),
                        sys::strerror(&e)
                    );
                    fmt.write_out();
                    report(fmt.writer, io.err, &prog, m);
                    status = 1;
                }
            }
        }
        if let Some(e) = fmt.error.take() {
            return write_failed(args, &e, io.err);
        }
    }
    status
}
