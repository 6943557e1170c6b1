//! POSIX (GNU) regular expressions on top of the pure-Rust engines.
//!
//! GNU BRE, ERE and the emacs syntax (`find -regex`'s default) are *translated* to the
//! `regex` crate's syntax, then compiled in byte mode with Unicode off: the C locale, where a
//! character is a byte, `[[:alpha:]]` is ASCII and `-i` folds ASCII only. Patterns with
//! back-references (`\(a\)\1`) go to `fancy-regex` in its ASCII bytes mode instead, since
//! finite automata cannot express them.
//!
//! Matching differs from POSIX in one respect, and [`Rx::find_at`] repairs it: the `regex`
//! crate picks the leftmost-*first* alternative, POSIX the leftmost-*longest* match. Whether a
//! line matches is the same either way; for match extents (`grep -o`) the end is recomputed
//! with a DFA in "all matches" mode anchored at the match start, which yields the longest end.
//!
//! GNU extensions supported: `\w \W \s \S \b \B \< \> \` \'`, `\+ \?` and `\|` in BRE,
//! back-references in ERE. Differences: sub-expression extents are Perl-like, not POSIX (only
//! visible through back-references); patterns with back-references use leftmost-first ends.

use regex_automata::{Anchored, Input, MatchKind, hybrid};
use std::cell::RefCell;

/// Which regular expression dialect a pattern is written in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Syntax {
    /// POSIX basic (grep's default, `find -regextype posix-basic`).
    Basic,
    /// POSIX extended (`grep -E`, `find -regextype posix-extended`).
    Extended,
    /// GNU emacs syntax (`find -regex` default): `\( \| \)` but unescaped `+ ?`.
    Emacs,
}

/// A translated pattern: regex-crate syntax plus what the translation learned.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Translated {
    pub pattern: String,
    pub backrefs: bool,
    /// Capturing groups in the pattern.
    pub groups: usize,
}

/// Options for [`translate`].
#[derive(Debug, Clone, Copy, Default)]
pub struct TrOptions {
    /// Number of capturing groups in earlier patterns this one is joined with (grep's multiple
    /// patterns), so back-references are renumbered.
    pub group_offset: usize,
    /// Reject `[:space:]` outside a bracket like GNU grep does.
    pub grep_class_check: bool,
}

const WORD: &str = "[0-9A-Za-z_]";
const NOT_WORD: &str = "[^0-9A-Za-z_]";

fn push_literal(out: &mut String, c: char) {
    if c.is_ascii_alphanumeric() || c == ' ' || c == '_' {
        out.push(c);
    } else if c.is_ascii() {
        // Escaping every other ASCII character as \xHH is always valid in the target syntax.
        out.push_str(&format!("\\x{:02X}", c as u32));
    } else {
        let mut buf = [0u8; 4];
        for b in c.encode_utf8(&mut buf).bytes() {
            out.push_str(&format!("\\x{b:02X}"));
        }
    }
}

/// Translates a GNU regular expression to the `regex` crate's syntax.
pub fn translate(pat: &str, syntax: Syntax, opts: TrOptions) -> Result<Translated, String> {
    let chars: Vec<char> = pat.chars().collect();
    let mut out = String::new();
    // Output offsets where open groups start, and whether each is capturing.
    let mut open: Vec<usize> = Vec::new();
    let mut closed_groups = 0usize;
    let mut total_groups = 0usize;
    // Start (in `out`) of the last complete atom a quantifier may apply to.
    let mut atom: Option<usize> = None;
    let mut last_quant = false;
    // At the start of the pattern or just after `(` or `|`: where BRE treats `*` and `^`
    // specially.
    let mut at_start = true;
    let mut backrefs = false;
    let basic = syntax == Syntax::Basic;
    let ere = syntax == Syntax::Extended;
    let mut i = 0;

    macro_rules! quantify {
        ($q:expr) => {{
            match atom {
                Some(a) => {
                    if last_quant {
                        let inner = out.split_off(a);
                        out.push_str("(?:");
                        out.push_str(&inner);
                        out.push(')');
                    }
                    out.push_str($q);
                    last_quant = true;
                }
                None => {
                    if ere {
                        // GNU ERE ignores a quantifier with nothing to repeat.
                    } else {
                        let a = out.len();
                        push_literal(&mut out, $q.chars().next().unwrap_or('*'));
                        atom = Some(a);
                        last_quant = false;
                    }
                }
            }
            at_start = false;
        }};
    }

    while i < chars.len() {
        let c = chars[i];
        i += 1;
        // Classify the token.
        let (tok, esc) = if c == '\\' {
            if i >= chars.len() {
                return Err("Trailing backslash".into());
            }
            i += 1;
            (chars[i - 1], true)
        } else {
            (c, false)
        };
        let group_open = (tok == '(') && (esc != ere);
        let group_close = (tok == ')') && (esc != ere);
        let alt = (tok == '|') && (esc != ere);
        let plus_q = (tok == '+' || tok == '?') && (if basic { esc } else { !esc });
        let interval = tok == '{' && (if basic { esc } else { ere && !esc });
        if group_open {
            open.push(out.len());
            total_groups += 1;
            out.push('(');
            atom = None;
            last_quant = false;
            at_start = true;
            continue;
        }
        if group_close {
            match open.pop() {
                Some(start) => {
                    out.push(')');
                    closed_groups += 1;
                    atom = Some(start);
                    last_quant = false;
                    at_start = false;
                }
                None if ere => {
                    let a = out.len();
                    push_literal(&mut out, ')');
                    atom = Some(a);
                    last_quant = false;
                    at_start = false;
                }
                None => return Err("Unmatched ) or \\)".into()),
            }
            continue;
        }
        if alt {
            out.push('|');
            atom = None;
            last_quant = false;
            at_start = true;
            continue;
        }
        if !esc && tok == '*' {
            if at_start && !ere {
                let a = out.len();
                push_literal(&mut out, '*');
                atom = Some(a);
                last_quant = false;
                at_start = false;
            } else {
                quantify!("*");
            }
            continue;
        }
        if plus_q {
            if at_start && !ere {
                let a = out.len();
                push_literal(&mut out, tok);
                atom = Some(a);
                last_quant = false;
                at_start = false;
            } else {
                quantify!(if tok == '+' { "+" } else { "?" });
            }
            continue;
        }
        if interval {
            // Parse m,n up to the closing brace (`\}` in BRE).
            let mut j = i;
            let mut body = String::new();
            while j < chars.len() && (chars[j].is_ascii_digit() || chars[j] == ',') {
                body.push(chars[j]);
                j += 1;
            }
            let close_ok = if basic {
                j + 1 < chars.len() && chars[j] == '\\' && chars[j + 1] == '}'
            } else {
                j < chars.len() && chars[j] == '}'
            };
            let parts: Vec<&str> = body.split(',').collect();
            let valid = close_ok
                && !body.is_empty()
                && parts.len() <= 2
                && !(parts.len() == 1 && parts[0].is_empty());
            if !valid {
                if ere {
                    let a = out.len();
                    push_literal(&mut out, '{');
                    atom = Some(a);
                    last_quant = false;
                    at_start = false;
                    continue;
                }
                return Err(if close_ok {
                    "Invalid content of \\{\\}".into()
                } else {
                    "Unmatched \\{".into()
                });
            }
            let lo: u32 = if parts[0].is_empty() {
                0
            } else {
                parts[0].parse().map_err(|_| "Regular expression too big")?
            };
            let q = if parts.len() == 1 {
                format!("{{{lo}}}")
            } else if parts[1].is_empty() {
                format!("{{{lo},}}")
            } else {
                let hi: u32 = parts[1].parse().map_err(|_| "Regular expression too big")?;
                if hi < lo {
                    return Err("Invalid content of \\{\\}".into());
                }
                format!("{{{lo},{hi}}}")
            };
            if lo > 32767 {
                return Err("Regular expression too big".into());
            }
            i = if basic { j + 2 } else { j + 1 };
            if atom.is_none() && !ere {
                // BRE `\{` with nothing before it is an error in GNU.
                return Err("Invalid preceding regular expression".into());
            }
            quantify!(&q);
            continue;
        }
        if esc {
            let a = out.len();
            match tok {
                '1'..='9' => {
                    let n = tok as usize - '0' as usize;
                    if n > closed_groups {
                        return Err("Invalid back reference".into());
                    }
                    backrefs = true;
                    out.push_str(&format!("\\{}", n + opts.group_offset));
                }
                'w' => out.push_str(WORD),
                'W' => out.push_str(NOT_WORD),
                's' => out.push_str("[[:space:]]"),
                'S' => out.push_str("[^[:space:]]"),
                'b' | 'B' | '<' | '>' | '`' | '\'' => {
                    out.push_str(match tok {
                        'b' => "\\b",
                        'B' => "\\B",
                        '<' => "\\b{start}",
                        '>' => "\\b{end}",
                        '`' => "\\A",
                        _ => "\\z",
                    });
                    // Assertions cannot be repeated; a following `*` is literal-ish in GNU
                    // and harmless to treat as applying to nothing.
                    atom = None;
                    last_quant = false;
                    at_start = false;
                    continue;
                }
                other => push_literal(&mut out, other),
            }
            atom = Some(a);
            last_quant = false;
            at_start = false;
            continue;
        }
        match tok {
            '^' => {
                if ere || at_start {
                    out.push('^');
                    atom = None;
                    last_quant = false;
                    // `^*` in BRE: the star is literal.
                    at_start = !ere;
                    continue;
                }
                let a = out.len();
                push_literal(&mut out, '^');
                atom = Some(a);
            }
            '$' => {
                let at_end = i >= chars.len()
                    || (!ere
                        && chars[i] == '\\'
                        && i + 1 < chars.len()
                        && (chars[i + 1] == ')' || chars[i + 1] == '|'));
                if ere || at_end {
                    out.push('$');
                    atom = None;
                    last_quant = false;
                    at_start = false;
                    continue;
                }
                let a = out.len();
                push_literal(&mut out, '$');
                atom = Some(a);
            }
            '.' => {
                atom = Some(out.len());
                out.push('.');
            }
            '[' => {
                let a = out.len();
                i = bracket(&chars, i, &mut out, opts.grep_class_check)?;
                atom = Some(a);
            }
            other => {
                let a = out.len();
                push_literal(&mut out, other);
                atom = Some(a);
            }
        }
        last_quant = false;
        at_start = false;
    }
    if !open.is_empty() {
        return Err("Unmatched ( or \\(".into());
    }
    Ok(Translated {
        pattern: out,
        backrefs,
        groups: total_groups,
    })
}

const CLASSES: &[&str] = &[
    "alpha", "digit", "alnum", "upper", "lower", "space", "blank", "punct", "print", "graph",
    "cntrl", "xdigit",
];

/// Translates the bracket expression whose `[` was just consumed (`chars[i]` is the first
/// character inside). Returns the index after the closing `]`.
fn bracket(
    chars: &[char],
    mut i: usize,
    out: &mut String,
    grep_check: bool,
) -> Result<usize, String> {
    let unmatched = || "Unmatched [, [^, [:, [., or [=".to_string();
    let start = i;
    let mut negate = false;
    if i < chars.len() && chars[i] == '^' {
        negate = true;
        i += 1;
    }
    let mut items = String::new();
    let mut first = true;
    // The last single character pushed and where its bytes start in `items`, so a following
    // `-x` can turn it into a range.
    let mut prev_single: Option<(char, usize)> = None;
    loop {
        if i >= chars.len() {
            return Err(unmatched());
        }
        let c = chars[i];
        if c == ']' && !first {
            i += 1;
            break;
        }
        first = false;
        if c == '[' && i + 1 < chars.len() && matches!(chars[i + 1], ':' | '=' | '.') {
            let kind = chars[i + 1];
            let body_start = i + 2;
            let mut j = body_start;
            while j + 1 < chars.len() && !(chars[j] == kind && chars[j + 1] == ']') {
                j += 1;
            }
            if j + 1 >= chars.len() {
                return Err(unmatched());
            }
            let name: String = chars[body_start..j].iter().collect();
            i = j + 2;
            match kind {
                ':' => {
                    if !CLASSES.contains(&name.as_str()) {
                        return Err("Invalid character class name".into());
                    }
                    items.push_str(&format!("[:{name}:]"));
                    prev_single = None;
                }
                _ => {
                    // Equivalence classes and collating symbols of one character are that
                    // character in the C locale.
                    let mut it = name.chars();
                    match (it.next(), it.next()) {
                        (Some(ch), None) => {
                            let at = items.len();
                            push_class_char(&mut items, ch);
                            prev_single = Some((ch, at));
                        }
                        _ => return Err("Invalid collation character".into()),
                    }
                }
            }
            continue;
        }
        if c == '-'
            && let Some((lo, lo_at)) = prev_single
            && i + 1 < chars.len()
            && chars[i + 1] != ']'
        {
            let mut hi = chars[i + 1];
            let mut next = i + 2;
            if hi == '[' && i + 2 < chars.len() && chars[i + 2] == '.' {
                // [.x.] as a range end.
                let mut j = i + 3;
                while j + 1 < chars.len() && !(chars[j] == '.' && chars[j + 1] == ']') {
                    j += 1;
                }
                if j + 1 >= chars.len() || j != i + 4 {
                    return Err(unmatched());
                }
                hi = chars[i + 3];
                next = j + 2;
            }
            if (hi as u32) < (lo as u32) {
                return Err("Invalid range end".into());
            }
            // Replace the single char just pushed with a range.
            items.truncate(lo_at);
            if !lo.is_ascii() {
                // Multi-byte range ends do not exist in the C locale; keep the bytes.
                push_class_char(&mut items, lo);
                push_class_char(&mut items, hi);
            } else {
                items.push_str(&format!("\\x{:02X}-", lo as u32));
                if hi.is_ascii() {
                    items.push_str(&format!("\\x{:02X}", hi as u32));
                } else {
                    items.push_str("\\x7F");
                    push_class_char(&mut items, hi);
                }
            }
            prev_single = None;
            i = next;
            continue;
        }
        let at = items.len();
        push_class_char(&mut items, c);
        prev_single = Some((c, at));
        i += 1;
    }
    let inner: String = chars[start..i - 1].iter().collect();
    if grep_check && inner.len() >= 2 && inner.starts_with(':') && inner.ends_with(':') && !negate {
        return Err("character class syntax is [[:space:]], not [:space:]".into());
    }
    out.push('[');
    if negate {
        out.push('^');
    }
    out.push_str(&items);
    out.push(']');
    Ok(i)
}

fn push_class_char(items: &mut String, c: char) {
    let mut buf = [0u8; 4];
    for b in c.encode_utf8(&mut buf).bytes() {
        items.push_str(&format!("\\x{b:02X}"));
    }
}

/// How a compiled pattern matches.
enum Engine {
    Fast(regex::bytes::Regex),
    Fancy(fancy_regex::Regex),
}

/// A compiled pattern, C-locale byte semantics.
pub struct Rx {
    engine: Engine,
    /// DFA that finds the longest match end from a given start (POSIX extents).
    longest: Option<(hybrid::dfa::DFA, RefCell<hybrid::dfa::Cache>)>,
}

impl std::fmt::Debug for Rx {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Rx")
    }
}

/// Limits that keep a hostile pattern from exhausting the instance's memory.
const SIZE_LIMIT: usize = 64 << 20;

impl Rx {
    /// Compiles a pattern already in regex-crate syntax (see [`translate`]).
    pub fn from_translated(t: &Translated, icase: bool) -> Result<Rx, String> {
        if t.backrefs {
            return Rx::fancy(&t.pattern, icase);
        }
        let re = regex::bytes::RegexBuilder::new(&t.pattern)
            .unicode(false)
            .case_insensitive(icase)
            .dot_matches_new_line(true)
            .size_limit(SIZE_LIMIT)
            .build()
            .map_err(|e| compile_error(&e.to_string()))?;
        let syntax = regex_automata::util::syntax::Config::new()
            .unicode(false)
            .utf8(false)
            .case_insensitive(icase)
            .dot_matches_new_line(true);
        let longest = hybrid::dfa::DFA::builder()
            .syntax(syntax)
            .configure(hybrid::dfa::DFA::config().match_kind(MatchKind::All))
            .build(&t.pattern)
            .ok()
            .map(|dfa| {
                let cache = dfa.create_cache();
                (dfa, RefCell::new(cache))
            });
        Ok(Rx {
            engine: Engine::Fast(re),
            longest,
        })
    }

    /// Compiles Perl syntax (`grep -P`): the fast engine when it accepts the pattern,
    /// otherwise `fancy-regex` (look-around, back-references).
    pub fn perl(pat: &str, icase: bool) -> Result<Rx, String> {
        match regex::bytes::RegexBuilder::new(pat)
            .unicode(false)
            .case_insensitive(icase)
            .size_limit(SIZE_LIMIT)
            .build()
        {
            Ok(re) => Ok(Rx {
                engine: Engine::Fast(re),
                longest: None,
            }),
            Err(_) => Rx::fancy(pat, icase),
        }
    }

    fn fancy(pat: &str, icase: bool) -> Result<Rx, String> {
        let re = fancy_regex::RegexBuilder::new(pat)
            .bytes_mode(fancy_regex::BytesMode::Ascii)
            .case_insensitive(icase)
            .dot_matches_new_line(true)
            .delegate_size_limit(SIZE_LIMIT)
            .build()
            .map_err(|e| compile_error(&e.to_string()))?;
        Ok(Rx {
            engine: Engine::Fancy(re),
            longest: None,
        })
    }

    /// Compiles a GNU pattern of the given syntax.
    pub fn new(pat: &str, syntax: Syntax, icase: bool) -> Result<Rx, String> {
        let t = translate(pat, syntax, TrOptions::default())?;
        Rx::from_translated(&t, icase)
    }

    pub fn is_match(&self, hay: &[u8]) -> bool {
        match &self.engine {
            Engine::Fast(re) => re.is_match(hay),
            // A backtracking limit hit counts as no match, like a regex that gives up.
            Engine::Fancy(re) => re.is_match(hay).unwrap_or(false),
        }
    }

    /// The leftmost match at or after `start` as (start, end), with the POSIX longest end
    /// when it can be computed.
    pub fn find_at(&self, hay: &[u8], start: usize) -> Option<(usize, usize)> {
        let (s, e) = match &self.engine {
            Engine::Fast(re) => {
                let m = re.find_at(hay, start)?;
                (m.start(), m.end())
            }
            Engine::Fancy(re) => {
                let m = re.find_from_pos(hay, start).ok()??;
                (m.start(), m.end())
            }
        };
        if let Some((dfa, cache)) = &self.longest {
            let input = Input::new(hay).range(s..).anchored(Anchored::Yes);
            if let Ok(mut cache) = cache.try_borrow_mut()
                && let Ok(Some(hm)) = dfa.try_search_fwd(&mut cache, &input)
                && hm.offset() >= e
            {
                return Some((s, hm.offset()));
            }
        }
        Some((s, e))
    }
}

/// The engines' messages are long multi-line reports; GNU tools print one short line.
fn compile_error(msg: &str) -> String {
    if msg.contains("size limit") {
        "Regular expression too big".into()
    } else if msg.contains("unclosed group") || msg.contains("unopened group") {
        "Unmatched ( or \\(".into()
    } else if msg.contains("class") {
        "Unmatched [, [^, [:, [., or [=".into()
    } else {
        "Invalid regular expression".into()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn m(pat: &str, syn: Syntax, hay: &str) -> bool {
        Rx::new(pat, syn, false).unwrap().is_match(hay.as_bytes())
    }

    fn o(pat: &str, syn: Syntax, hay: &str) -> Option<String> {
        let rx = Rx::new(pat, syn, false).unwrap();
        rx.find_at(hay.as_bytes(), 0)
            .map(|(s, e)| hay[s..e].to_string())
    }

    use Syntax::*;

    #[test]
    fn bre_basics() {
        assert!(m("a\\(b\\)*c", Basic, "abbc"));
        assert!(m("a+b", Basic, "xa+b"));
        assert!(!m("a+b", Basic, "aab"));
        assert!(m("a\\+b", Basic, "aab"));
        assert!(m("a\\{2,3\\}", Basic, "aa"));
        assert!(!m("^a\\{2\\}$", Basic, "aaa"));
        assert!(m("x\\|y", Basic, "y"));
        assert!(m("*a", Basic, "*a"));
        assert!(m("a^b", Basic, "a^b"));
        assert!(m("a$b", Basic, "a$b"));
        assert!(m("^$", Basic, ""));
        assert!(m("\\(^a\\)", Basic, "a"));
        assert!(m("[[:alpha:]]\\{3\\}", Basic, "abc"));
        assert!(!m("[[:alpha:]]\\{3\\}", Basic, "a1c"));
        assert!(!m("a.c", Basic, "a\u{e9}c"));
        assert!(m("a..c", Basic, "a\u{e9}c"));
    }

    #[test]
    fn ere_basics() {
        assert!(m("(ab)+", Extended, "abab"));
        assert!(m("a{2,}", Extended, "aa"));
        assert!(m("a{", Extended, "a{"));
        assert!(m("a{1,x}", Extended, "a{1,x}"));
        assert!(m("x)", Extended, "x)"));
        assert!(m("*a", Extended, "a"));
        assert!(m("\\.[^\\.]+$", Extended, "file.txt"));
        assert!(m("[]a]", Extended, "]"));
        assert!(m("[^]a]", Extended, "b"));
        assert!(m("[a\\]", Extended, "\\"));
    }

    #[test]
    fn emacs_syntax() {
        assert!(m(".*/\\(a\\|d\\)", Emacs, "./d"));
        assert!(m("a+", Emacs, "aa"));
        assert!(m("(", Emacs, "("));
    }

    #[test]
    fn gnu_escapes() {
        assert!(m("\\<foo\\>", Basic, "a foo b"));
        assert!(!m("\\<foo\\>", Basic, "afoo"));
        assert!(m("\\w\\W\\s\\S", Basic, "a- x"));
        assert!(m("\\bx", Basic, "a x"));
    }

    #[test]
    fn backrefs_use_fancy() {
        assert!(m("\\(ab\\)\\1", Basic, "abab"));
        assert!(!m("\\(ab\\)\\1", Basic, "abba"));
        assert!(m("(a)x\\1", Extended, "axa"));
    }

    #[test]
    fn longest_extents() {
        assert_eq!(o("a|ab", Extended, "xab").as_deref(), Some("ab"));
        assert_eq!(
            o("[[:alpha:]]{3,6}", Extended, "txt123abcdefgh").as_deref(),
            Some("txt")
        );
        assert_eq!(
            o("\\.[^\\.]+$", Extended, "a.tar.gz").as_deref(),
            Some(".gz")
        );
    }

    #[test]
    fn errors_like_gnu() {
        let e = |p: &str, s| {
            translate(
                p,
                s,
                TrOptions {
                    grep_class_check: true,
                    ..Default::default()
                },
            )
            .unwrap_err()
        };
        assert_eq!(e("(", Extended), "Unmatched ( or \\(");
        assert_eq!(e("a\\{1", Basic), "Unmatched \\{");
        assert_eq!(e("[z-a]", Basic), "Invalid range end");
        assert_eq!(e("x\\", Basic), "Trailing backslash");
        assert_eq!(e("\\(a\\)\\2", Basic), "Invalid back reference");
        assert_eq!(e("[[:foo:]]", Basic), "Invalid character class name");
        assert_eq!(
            e("[:alpha:]", Basic),
            "character class syntax is [[:space:]], not [:space:]"
        );
        assert_eq!(e("[abc", Basic), "Unmatched [, [^, [:, [., or [=");
    }

    #[test]
    fn case_insensitive() {
        let rx = Rx::new("hello", Basic, true).unwrap();
        assert!(rx.is_match(b"say HeLLo"));
    }
}
