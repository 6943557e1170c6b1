//! `fnmatch(3)` for `find -name/-path`, `grep --include`, `tree -P/-I`.
//!
//! Bytes, C locale: `*`, `?`, bracket expressions with `!`/`^` negation, ranges and POSIX
//! classes (`[[:digit:]]`), and backslash escapes. With `pathname`, wildcards do not match
//! `/`; `find` never sets it, and it never sets `FNM_PERIOD` either, so `*` matches a
//! leading dot.

#[derive(Debug, Clone, Copy, Default)]
pub struct Flags {
    pub casefold: bool,
    pub pathname: bool,
}

/// Does `name` match `pattern`?
pub fn fnmatch(pattern: &[u8], name: &[u8], flags: Flags) -> bool {
    // Iterative matcher with single-star backtracking: on a mismatch, retry from the last
    // `*` one byte further. This is linear-ish and never recurses.
    let (mut p, mut n) = (0usize, 0usize);
    let mut star: Option<(usize, usize)> = None;
    while n < name.len() {
        if p < pattern.len() {
            match pattern[p] {
                b'*' => {
                    while p < pattern.len() && pattern[p] == b'*' {
                        p += 1;
                    }
                    star = Some((p, n));
                    continue;
                }
                b'?' if !(flags.pathname && name[n] == b'/') => {
                    p += 1;
                    n += 1;
                    continue;
                }
                b'[' => {
                    if let Some((matched, next)) = bracket(pattern, p, name[n], flags) {
                        if matched && !(flags.pathname && name[n] == b'/') {
                            p = next;
                            n += 1;
                            continue;
                        }
                    } else if eq(b'[', name[n], flags) {
                        // An unterminated bracket is an ordinary character.
                        p += 1;
                        n += 1;
                        continue;
                    }
                }
                b'\\' if p + 1 < pattern.len() && eq(pattern[p + 1], name[n], flags) => {
                    p += 2;
                    n += 1;
                    continue;
                }
                b'\\' if p + 1 < pattern.len() => {}
                c if c != b'?' && eq(c, name[n], flags) => {
                    p += 1;
                    n += 1;
                    continue;
                }
                _ => {}
            }
        }
        match star {
            Some((sp, sn)) if !(flags.pathname && name[sn] == b'/') => {
                star = Some((sp, sn + 1));
                p = sp;
                n = sn + 1;
            }
            _ => return false,
        }
    }
    while p < pattern.len() && pattern[p] == b'*' {
        p += 1;
    }
    p == pattern.len()
}

fn eq(a: u8, b: u8, flags: Flags) -> bool {
    if flags.casefold {
        a.eq_ignore_ascii_case(&b)
    } else {
        a == b
    }
}

/// Matches `c` against the bracket expression starting at `pattern[start] == b'['`.
/// Returns (matched, index after `]`), or `None` if the bracket is unterminated.
fn bracket(pattern: &[u8], start: usize, c: u8, flags: Flags) -> Option<(bool, usize)> {
    let mut i = start + 1;
    let negate = i < pattern.len() && (pattern[i] == b'!' || pattern[i] == b'^');
    if negate {
        i += 1;
    }
    let mut matched = false;
    let mut first = true;
    loop {
        if i >= pattern.len() {
            return None;
        }
        let mut lo = pattern[i];
        if lo == b']' && !first {
            i += 1;
            break;
        }
        first = false;
        if lo == b'[' && pattern.get(i + 1) == Some(&b':') {
            let rest = &pattern[i + 2..];
            if let Some(end) = rest.windows(2).position(|w| w == b":]") {
                let class = &rest[..end];
                if class_matches(class, c) || (flags.casefold && class_matches(class, swap_case(c)))
                {
                    matched = true;
                }
                i += 2 + end + 2;
                continue;
            }
        }
        if lo == b'\\' && i + 1 < pattern.len() {
            i += 1;
            lo = pattern[i];
        }
        i += 1;
        let mut hi = lo;
        if i + 1 < pattern.len() && pattern[i] == b'-' && pattern[i + 1] != b']' {
            hi = pattern[i + 1];
            i += 2;
            if hi == b'\\' && i < pattern.len() {
                hi = pattern[i];
                i += 1;
            }
        }
        let in_range = |x: u8| lo <= x && x <= hi;
        if in_range(c) || (flags.casefold && in_range(swap_case(c))) {
            matched = true;
        }
    }
    Some((matched != negate, i))
}

fn swap_case(c: u8) -> u8 {
    if c.is_ascii_lowercase() {
        c.to_ascii_uppercase()
    } else {
        c.to_ascii_lowercase()
    }
}

/// POSIX character classes in the C locale.
pub fn class_matches(class: &[u8], c: u8) -> bool {
    match class {
        b"alpha" => c.is_ascii_alphabetic(),
        b"digit" => c.is_ascii_digit(),
        b"alnum" => c.is_ascii_alphanumeric(),
        b"upper" => c.is_ascii_uppercase(),
        b"lower" => c.is_ascii_lowercase(),
        b"space" => matches!(c, b' ' | b'\t' | b'\n' | b'\r' | 0x0b | 0x0c),
        b"blank" => c == b' ' || c == b'\t',
        b"punct" => c.is_ascii_punctuation(),
        b"print" => (0x20..0x7f).contains(&c),
        b"graph" => c.is_ascii_graphic(),
        b"cntrl" => c < 0x20 || c == 0x7f,
        b"xdigit" => c.is_ascii_hexdigit(),
        _ => false,
    }
}

/// Convenience for `&str` operands.
pub fn matches(pattern: &str, name: &str, casefold: bool) -> bool {
    fnmatch(
        pattern.as_bytes(),
        name.as_bytes(),
        Flags {
            casefold,
            pathname: false,
        },
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn m(p: &str, n: &str) -> bool {
        matches(p, n, false)
    }

    #[test]
    fn wildcards() {
        assert!(m("*.txt", "a.txt"));
        assert!(m("*.txt", ".hidden.txt"));
        assert!(!m("*.txt", "a.txt.bak"));
        assert!(m("foo??", "foo12"));
        assert!(!m("foo??", "foo1"));
        assert!(m("*", ""));
        assert!(m("a*b*c", "aXXbYYc"));
        assert!(!m("a*b*c", "aXXbYY"));
        assert!(m("*FooBar*", "FooBar.html"));
        assert!(m("/testbed/*/x", "/testbed/a/b/x"));
    }

    #[test]
    fn brackets() {
        assert!(m("text[2-4]", "text3"));
        assert!(!m("text[2-4]", "text5"));
        assert!(m("[!a]", "b"));
        assert!(!m("[^a]", "a"));
        assert!(m("[]]", "]"));
        assert!(m("[[:digit:]]x", "7x"));
        assert!(!m("[[:alpha:]]", "1"));
        assert!(m("a[", "a["));
        assert!(m("\\*", "*"));
        assert!(!m("\\*", "a"));
    }

    #[test]
    fn casefold_and_pathname() {
        assert!(matches("*.TXT", "a.txt", true));
        assert!(matches("[A-C]x", "bx", true));
        let f = Flags {
            casefold: false,
            pathname: true,
        };
        assert!(!fnmatch(b"a*c", b"a/c", f));
        assert!(fnmatch(b"a/*", b"a/c", f));
    }
}
