//! POSIX ERE as mawk 1.3.4-20200120 reads it, translated to the `regex` crate's syntax, and
//! matched with POSIX leftmost-longest semantics.
//!
//! mawk's dialect: `.` matches newline; `{` and `}` are ordinary characters (this mawk has no
//! interval expressions — `gawk` mode turns them on); an unknown escape such as `\d` or `\y`
//! is the literal character; `^`/`$` are anchors anywhere (so `a^b` never matches); a
//! quantifier after a quantifier applies to the whole (`a+?` is `(a+)?`, not lazy); an empty
//! operand (`()`, `a||b`, `*a`) and `^*` are errors. Bracket expressions take `]` first,
//! `[:class:]`, backslash escapes and ranges; a reversed range such as `[z-a]` is empty;
//! collating elements (`[.a.]`, `[=a=]`) match nothing, as in mawk.
//!
//! Matching is bytewise (`(?s-u)`): non-ASCII bytes are escaped as `\xHH`.
//!
//! The `regex` crate finds leftmost-*first* matches; POSIX wants the leftmost-*longest*
//! (`match("abcd", /ab|abcd/)` sets RLENGTH to 4). Both agree on where the leftmost match
//! starts, so we take the start from `regex` and the end from an anchored lazy DFA built
//! with `MatchKind::All`, whose forward search reports the longest match.

use regex_automata::hybrid::dfa::{Cache, DFA};
use regex_automata::util::syntax;
use regex_automata::{Anchored, Input, MatchKind};
use std::cell::{OnceCell, RefCell};

pub struct AwkRegex {
    re: regex::bytes::Regex,
    pattern: String,
    /// Built on first use: only match positions (match, sub, gsub, split, FS, RS) need it.
    longest: OnceCell<Option<(DFA, RefCell<Cache>)>>,
}

impl std::fmt::Debug for AwkRegex {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "AwkRegex({:?})", self.pattern)
    }
}

/// Size limits keep hostile patterns from eating the sandbox's memory.
const SIZE_LIMIT: usize = 8 << 20;

impl AwkRegex {
    /// Compiles an awk ERE; the error text is mawk's reason (`missing operand`, …).
    pub fn new(ere: &[u8], intervals: bool) -> Result<AwkRegex, String> {
        let pattern = translate(ere, intervals)?;
        let re = regex::bytes::RegexBuilder::new(&pattern)
            .unicode(false)
            .dot_matches_new_line(true)
            .size_limit(SIZE_LIMIT)
            .dfa_size_limit(SIZE_LIMIT)
            .build()
            .map_err(|e| match e {
                regex::Error::CompiledTooBig(_) => "regular expression too big".to_string(),
                _ => "syntax error".to_string(),
            })?;
        Ok(AwkRegex {
            re,
            pattern,
            longest: OnceCell::new(),
        })
    }

    pub fn is_match(&self, hay: &[u8]) -> bool {
        self.re.is_match(hay)
    }

    /// The leftmost-longest match starting the search at `start` (anchors still see the
    /// whole haystack, so `^` cannot match after position 0).
    pub fn find_at(&self, hay: &[u8], start: usize) -> Option<(usize, usize)> {
        let m = self.re.find_at(hay, start)?;
        let (s, e) = (m.start(), m.end());
        let longest = self.longest.get_or_init(|| {
            let dfa = DFA::builder()
                .configure(
                    DFA::config()
                        .match_kind(MatchKind::All)
                        .cache_capacity(2 << 20),
                )
                .syntax(
                    syntax::Config::new()
                        .unicode(false)
                        .utf8(false)
                        .dot_matches_new_line(true),
                )
                .thompson(
                    regex_automata::nfa::thompson::Config::new().nfa_size_limit(Some(SIZE_LIMIT)),
                )
                .build(&self.pattern)
                .ok()?;
            let cache = dfa.create_cache();
            Some((dfa, RefCell::new(cache)))
        });
        if let Some((dfa, cache)) = longest {
            let input = Input::new(hay).range(s..).anchored(Anchored::Yes);
            // The lazy DFA may give up on pathological inputs; the leftmost-first end is
            // then the best answer we have.
            if let Ok(Some(hm)) = dfa.try_search_fwd(&mut cache.borrow_mut(), &input) {
                return Some((s, hm.offset().max(e)));
            }
        }
        Some((s, e))
    }
}

/// Translates an awk ERE into `regex` syntax (see the module docs for the dialect).
pub fn translate(ere: &[u8], intervals: bool) -> Result<String, String> {
    let mut p = Translator {
        src: ere,
        i: 0,
        out: String::with_capacity(ere.len() * 2),
        intervals,
        depth: 0,
    };
    // An unmatched ')' is literal (the branch loop handles it), so this consumes everything.
    p.alternation()?;
    Ok(p.out)
}

struct Translator<'a> {
    src: &'a [u8],
    i: usize,
    out: String,
    intervals: bool,
    depth: usize,
}

const MAX_DEPTH: usize = 200;

impl Translator<'_> {
    fn peek(&self) -> Option<u8> {
        self.src.get(self.i).copied()
    }

    fn alternation(&mut self) -> Result<(), String> {
        loop {
            let before = self.out.len();
            self.branch()?;
            if self.out.len() == before {
                // An empty branch: `()`, `a|`, `|a`, and the empty regex itself.
                if self.depth > 0 && self.i >= self.src.len() {
                    return Err("missing ')'".into());
                }
                let at_top_empty = self.depth == 0 && self.src.is_empty();
                if !at_top_empty {
                    return Err("missing operand".into());
                }
            }
            if self.peek() == Some(b'|') {
                self.i += 1;
                self.out.push('|');
                continue;
            }
            return Ok(());
        }
    }

    fn branch(&mut self) -> Result<(), String> {
        let mut first = true;
        while let Some(c) = self.peek() {
            if c == b'|' || (c == b')' && self.depth > 0) {
                break;
            }
            if c == b')' {
                // Unmatched ')' at top level: literal.
                self.i += 1;
                self.out.push_str("\\)");
                first = false;
                continue;
            }
            let atom_start = self.out.len();
            match c {
                b'^' | b'$' => {
                    self.i += 1;
                    self.out.push(c as char);
                    if c == b'^' && matches!(self.peek(), Some(b'*' | b'+')) {
                        return Err("syntax error ^* or ^+".into());
                    }
                    // mawk ignores a quantifier on an anchor (`$*` matches the empty
                    // string); `regex` would reject it.
                    while matches!(self.peek(), Some(b'*' | b'+' | b'?')) {
                        self.i += 1;
                    }
                    first = false;
                    continue;
                }
                b'*' | b'+' | b'?' => {
                    if first {
                        return Err("missing operand".into());
                    }
                    // A quantifier with nothing quantifiable before it (after an anchor).
                    self.i += 1;
                    continue;
                }
                b'(' => {
                    self.i += 1;
                    self.depth += 1;
                    if self.depth > MAX_DEPTH {
                        return Err("regular expression too big".into());
                    }
                    self.out.push_str("(?:");
                    self.alternation()?;
                    if self.peek() != Some(b')') {
                        return Err("missing ')'".into());
                    }
                    self.i += 1;
                    self.depth -= 1;
                    self.out.push(')');
                }
                b'[' => {
                    self.i += 1;
                    self.bracket()?;
                }
                b'.' => {
                    self.i += 1;
                    self.out.push('.');
                }
                b'\\' => {
                    self.i += 1;
                    let b = self.escape();
                    push_lit(&mut self.out, b);
                }
                b'{' if self.intervals && first => {
                    self.i += 1;
                    push_lit(&mut self.out, b'{');
                }
                _ => {
                    self.i += 1;
                    push_lit(&mut self.out, c);
                }
            }
            first = false;
            self.quantifiers(atom_start)?;
        }
        Ok(())
    }

    /// Applies any run of quantifiers to the atom that starts at `atom_start` in `out`.
    fn quantifiers(&mut self, atom_start: usize) -> Result<(), String> {
        let mut quantified = false;
        loop {
            let q: String = match self.peek() {
                Some(c @ (b'*' | b'+' | b'?')) => {
                    self.i += 1;
                    (c as char).to_string()
                }
                Some(b'{') if self.intervals => match self.interval() {
                    Some(q) => q,
                    None => return Ok(()),
                },
                _ => return Ok(()),
            };
            if quantified {
                // ERE `a+?` is `(a+)?`; in `regex` syntax it would be a lazy `+`.
                let atom = self.out.split_off(atom_start);
                self.out.push_str("(?:");
                self.out.push_str(&atom);
                self.out.push(')');
            }
            self.out.push_str(&q);
            quantified = true;
        }
    }

    /// `{n}`, `{n,}`, `{n,m}` (gawk mode only); anything else leaves `{` literal.
    fn interval(&mut self) -> Option<String> {
        let rest = &self.src[self.i..];
        let close = rest.iter().position(|&c| c == b'}')?;
        let body = std::str::from_utf8(&rest[1..close]).ok()?;
        let valid = !body.is_empty()
            && body.chars().all(|c| c.is_ascii_digit() || c == ',')
            && body.matches(',').count() <= 1
            && !body.starts_with(',');
        if !valid {
            return None;
        }
        let nums: Vec<u32> = body
            .split(',')
            .filter(|s| !s.is_empty())
            .map(|s| s.parse().ok())
            .collect::<Option<_>>()?;
        if nums.iter().any(|&n| n > 255) || (nums.len() == 2 && nums[0] > nums[1]) {
            return None;
        }
        self.i += close + 1;
        Some(format!("{{{body}}}"))
    }

    /// The byte an escape stands for (the backslash is consumed already).
    fn escape(&mut self) -> u8 {
        let Some(c) = self.peek() else {
            // A trailing backslash is a literal backslash.
            return b'\\';
        };
        self.i += 1;
        match c {
            b'n' => b'\n',
            b't' => b'\t',
            b'r' => b'\r',
            b'f' => 0x0c,
            b'v' => 0x0b,
            b'a' => 0x07,
            b'b' => 0x08,
            b'0'..=b'7' => {
                let mut v = u32::from(c - b'0');
                for _ in 0..2 {
                    match self.peek() {
                        Some(d @ b'0'..=b'7') => {
                            v = v * 8 + u32::from(d - b'0');
                            self.i += 1;
                        }
                        _ => break,
                    }
                }
                v as u8
            }
            _ => c,
        }
    }

    fn bracket(&mut self) -> Result<(), String> {
        let bad = || "bad class -- [], [^] or [".to_string();
        let mut negate = false;
        if self.peek() == Some(b'^') {
            negate = true;
            self.i += 1;
        }
        // Items as (lo, hi) byte ranges plus named classes.
        let mut ranges: Vec<(u8, u8)> = Vec::new();
        let mut classes: Vec<&'static str> = Vec::new();
        let mut first = true;
        loop {
            let Some(c) = self.peek() else {
                return Err(bad());
            };
            if c == b']' && !first {
                self.i += 1;
                break;
            }
            first = false;
            if c == b'[' && matches!(self.src.get(self.i + 1), Some(b':' | b'.' | b'=')) {
                let kind = self.src[self.i + 1];
                let body_start = self.i + 2;
                let end = self.src[body_start..]
                    .windows(2)
                    .position(|w| w[0] == kind && w[1] == b']')
                    .ok_or_else(bad)?;
                let name = &self.src[body_start..body_start + end];
                self.i = body_start + end + 2;
                if kind == b':' {
                    let class = match name {
                        b"alpha" => "alpha",
                        b"digit" => "digit",
                        b"alnum" => "alnum",
                        b"upper" => "upper",
                        b"lower" => "lower",
                        b"space" => "space",
                        b"blank" => "blank",
                        b"punct" => "punct",
                        b"print" => "print",
                        b"graph" => "graph",
                        b"cntrl" => "cntrl",
                        b"xdigit" => "xdigit",
                        _ => return Err(bad()),
                    };
                    classes.push(class);
                }
                // Collating symbols and equivalence classes match nothing (as in mawk).
                continue;
            }
            self.i += 1;
            let lo = if c == b'\\' { self.escape() } else { c };
            // A range `lo-hi`, unless '-' is last.
            if self.peek() == Some(b'-') && self.src.get(self.i + 1).is_some_and(|&n| n != b']') {
                self.i += 1;
                let h = self.src[self.i];
                self.i += 1;
                let hi = if h == b'\\' { self.escape() } else { h };
                if lo <= hi {
                    ranges.push((lo, hi));
                }
                continue;
            }
            ranges.push((lo, lo));
        }
        if ranges.is_empty() && classes.is_empty() {
            // Everything was an empty range or a collating element: matches nothing (or,
            // negated, any byte).
            self.out.push_str(if negate {
                "[\\x00-\\xFF]"
            } else {
                "[^\\x00-\\xFF]"
            });
            return Ok(());
        }
        self.out.push('[');
        if negate {
            self.out.push('^');
        }
        for (lo, hi) in ranges {
            push_class_byte(&mut self.out, lo);
            if hi != lo {
                self.out.push('-');
                push_class_byte(&mut self.out, hi);
            }
        }
        for c in classes {
            self.out.push_str("[:");
            self.out.push_str(c);
            self.out.push_str(":]");
        }
        self.out.push(']');
        Ok(())
    }
}

/// Everything but letters and digits goes out as `\xHH`: a backslash escape would be risky
/// (`\<` is a word boundary in `regex`).
fn push_lit(out: &mut String, b: u8) {
    if b.is_ascii_alphanumeric() || b == b'_' || b == b' ' {
        out.push(b as char);
    } else {
        out.push_str(&format!("\\x{b:02X}"));
    }
}

fn push_class_byte(out: &mut String, b: u8) {
    if b.is_ascii_alphanumeric() {
        out.push(b as char);
    } else {
        out.push_str(&format!("\\x{b:02X}"));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn m(re: &str, hay: &str) -> Option<(usize, usize)> {
        AwkRegex::new(re.as_bytes(), false)
            .unwrap()
            .find_at(hay.as_bytes(), 0)
    }

    #[test]
    fn leftmost_longest() {
        assert_eq!(m("ab|abcd", "abcd"), Some((0, 4)));
        assert_eq!(m("(a|ab)(c|bcd)", "abcd"), Some((0, 4)));
        assert_eq!(m("x*", "abc"), Some((0, 0)));
        assert_eq!(m("a+?", "aaa"), Some((0, 3)));
    }

    #[test]
    fn mawk_dialect() {
        assert_eq!(m("x{2}", "xx{2}"), Some((1, 5)));
        assert_eq!(m("\\d", "d1"), Some((0, 1)));
        assert_eq!(m("[^]a]", "]ab"), Some((2, 3)));
        assert_eq!(m("[]a]", "]"), Some((0, 1)));
        assert_eq!(m("[a-]", "-"), Some((0, 1)));
        assert_eq!(m("[a\\]b]", "x]"), Some((1, 2)));
        assert_eq!(m("[[:alpha:]]+", "12ab3"), Some((2, 4)));
        assert_eq!(m("[z-a]", "b"), None);
        assert_eq!(m("a.b", "a\nb"), Some((0, 3)));
        assert_eq!(m("a)", "a)"), Some((0, 2)));
        assert_eq!(m("a^b", "a^b"), None);
        assert_eq!(m("\u{e9}", "x\u{e9}"), Some((1, 3)));
        for bad in ["*a", "()", "a||b", "(|a)", "a(", "[abc", "^*a", "+"] {
            assert!(AwkRegex::new(bad.as_bytes(), false).is_err(), "{bad}");
        }
        assert!(AwkRegex::new(b"", false).is_ok());
    }

    #[test]
    fn intervals_in_gawk_mode() {
        let re = AwkRegex::new(b"[[:alpha:]]{3,6}", true).unwrap();
        assert_eq!(re.find_at(b"ab abcdefgh", 0), Some((3, 9)));
    }
}
