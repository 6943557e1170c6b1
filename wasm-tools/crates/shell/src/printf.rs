//! bash's `printf` builtin: conversions `%s %b %q %c %d %i %u %o %x %X %e %E %f %F %g %G %%`
//! with flags, width and precision (`*` too); the format is reused while arguments remain.
//! The numeric conversions are C's, from the `gnu` crate.

use gnu::escape::Escape;
use gnu::printf::{self, Spec};

/// Formats; returns (text, exit status, error messages).
pub fn format(fmt: &str, args: &[String]) -> (String, i32, Vec<String>) {
    let mut out = String::new();
    let mut errors = Vec::new();
    let mut status = 0;
    let mut idx = 0;
    loop {
        let consumed_before = idx;
        let stop = format_once(fmt, args, &mut idx, &mut out, &mut errors, &mut status);
        if stop || idx >= args.len() || idx == consumed_before {
            break;
        }
    }
    (out, status, errors)
}

fn next_arg<'a>(args: &'a [String], idx: &mut usize) -> Option<&'a str> {
    let a = args.get(*idx).map(String::as_str);
    if a.is_some() {
        *idx += 1;
    }
    a
}

fn parse_int(s: &str, errors: &mut Vec<String>, status: &mut i32) -> i64 {
    let t = s.trim();
    if let Some(c) = t.strip_prefix('\'').or_else(|| t.strip_prefix('"')) {
        return c.chars().next().map(|c| c as i64).unwrap_or(0);
    }
    match crate::arith::parse_number(t) {
        Some(n) => n,
        None if t.is_empty() => 0,
        None => {
            // bash prints the leading numeric part and complains.
            let digits: String = t
                .chars()
                .enumerate()
                .take_while(|(i, c)| c.is_ascii_digit() || (*i == 0 && (*c == '-' || *c == '+')))
                .map(|(_, c)| c)
                .collect();
            errors.push(format!("{s}: invalid number"));
            *status = 1;
            digits.parse().unwrap_or(0)
        }
    }
}

fn parse_float(s: &str, errors: &mut Vec<String>, status: &mut i32) -> f64 {
    let t = s.trim();
    if t.is_empty() {
        return 0.0;
    }
    t.parse().unwrap_or_else(|_| {
        errors.push(format!("{s}: invalid number"));
        *status = 1;
        0.0
    })
}

/// One pass over the format. Returns true when `\c` stopped output.
fn format_once(
    fmt: &str,
    args: &[String],
    idx: &mut usize,
    out: &mut String,
    errors: &mut Vec<String>,
    status: &mut i32,
) -> bool {
    let chars: Vec<char> = fmt.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c == '\\' {
            let (used, stop) = escape(&chars[i + 1..], false, out, errors);
            if stop {
                return true;
            }
            i += 1 + used;
            continue;
        }
        if c != '%' {
            out.push(c);
            i += 1;
            continue;
        }
        i += 1;
        if i < chars.len() && chars[i] == '%' {
            out.push('%');
            i += 1;
            continue;
        }
        let mut flags = String::new();
        while i < chars.len() && "-+ #0".contains(chars[i]) {
            flags.push(chars[i]);
            i += 1;
        }
        let mut width: Option<usize> = None;
        let mut left = flags.contains('-');
        if i < chars.len() && chars[i] == '*' {
            let w = parse_int(next_arg(args, idx).unwrap_or("0"), errors, status);
            if w < 0 {
                left = true;
            }
            width = Some(w.unsigned_abs() as usize);
            i += 1;
        } else {
            let start = i;
            while i < chars.len() && chars[i].is_ascii_digit() {
                i += 1;
            }
            if i > start {
                width = chars[start..i].iter().collect::<String>().parse().ok();
            }
        }
        let mut precision: Option<usize> = None;
        if i < chars.len() && chars[i] == '.' {
            i += 1;
            if i < chars.len() && chars[i] == '*' {
                let p = parse_int(next_arg(args, idx).unwrap_or("0"), errors, status);
                // A negative precision is taken as if it were omitted (C99 7.19.6.1).
                precision = usize::try_from(p).ok();
                i += 1;
            } else {
                let start = i;
                while i < chars.len() && chars[i].is_ascii_digit() {
                    i += 1;
                }
                precision = Some(
                    chars[start..i]
                        .iter()
                        .collect::<String>()
                        .parse()
                        .unwrap_or(0),
                );
            }
        }
        // Length modifiers are accepted and ignored.
        // bash's LENMODS: no `q`, which is its own conversion.
        while i < chars.len() && "hlLjzt".contains(chars[i]) {
            i += 1;
        }
        let Some(&conv) = chars.get(i) else {
            errors.push(format!("`{}': missing format character", fmt));
            *status = 1;
            return true;
        };
        i += 1;
        let spec = Spec {
            left,
            plus: flags.contains('+'),
            space: flags.contains(' '),
            alt: flags.contains('#'),
            zero: flags.contains('0'),
            width: width.unwrap_or(0),
            precision,
        };
        let body = match conv {
            's' => {
                let s = next_arg(args, idx).unwrap_or("").to_string();
                match precision {
                    Some(p) => s.chars().take(p).collect(),
                    None => s,
                }
            }
            'b' => {
                let s = next_arg(args, idx).unwrap_or("");
                let chars: Vec<char> = s.chars().collect();
                let mut text = String::new();
                let mut j = 0;
                let mut stop = false;
                while j < chars.len() {
                    if chars[j] == '\\' {
                        let (used, st) = escape(&chars[j + 1..], true, &mut text, errors);
                        j += 1 + used;
                        if st {
                            stop = true;
                            break;
                        }
                    } else {
                        text.push(chars[j]);
                        j += 1;
                    }
                }
                if stop {
                    out.push_str(&pad(&text, width, left, false));
                    return true;
                }
                text
            }
            'q' => crate::quote::backslash_quote(next_arg(args, idx).unwrap_or("")),
            'c' => next_arg(args, idx)
                .and_then(|s| s.chars().next())
                .map(String::from)
                .unwrap_or_default(),
            'd' | 'i' | 'u' | 'o' | 'x' | 'X' => {
                let n = parse_int(next_arg(args, idx).unwrap_or("0"), errors, status);
                // bash converts through intmax_t, and to uintmax_t for the unsigned ones.
                let value = if matches!(conv, 'd' | 'i') {
                    i128::from(n)
                } else {
                    i128::from(n as u64)
                };
                numeric(|out| printf::integer(out, &spec, conv as u8, value))
            }
            'e' | 'E' | 'f' | 'F' | 'g' | 'G' => {
                let v = parse_float(next_arg(args, idx).unwrap_or("0"), errors, status);
                numeric(|out| printf::float(out, &spec, conv as u8, v))
            }
            other => {
                errors.push(format!("%{other}: invalid format character"));
                *status = 1;
                return true;
            }
        };
        if matches!(conv, 's' | 'b' | 'q' | 'c') {
            out.push_str(&pad(&body, width, left, false));
        } else {
            out.push_str(&body);
        }
    }
    false
}

fn pad(s: &str, width: Option<usize>, left: bool, _zero: bool) -> String {
    let w = width.unwrap_or(0);
    let n = s.chars().count();
    if n >= w {
        return s.to_string();
    }
    let fill = " ".repeat(w - n);
    if left {
        format!("{s}{fill}")
    } else {
        format!("{fill}{s}")
    }
}

/// A numeric conversion's text (ASCII, so no raw bytes to carry).
fn numeric(convert: impl FnOnce(&mut Vec<u8>)) -> String {
    let mut out = Vec::new();
    convert(&mut out);
    String::from_utf8_lossy(&out).into_owned()
}

/// A backslash escape in a printf format (or a `%b` argument): appends its text to `out` and
/// returns (chars used after the backslash, whether `\c` stopped the output). bash complains
/// about `\x` and `\u` without digits but prints them as written and keeps its status.
fn escape(rest: &[char], in_b: bool, out: &mut String, errors: &mut Vec<String>) -> (usize, bool) {
    let dialect = if in_b {
        &gnu::escape::BASH_PRINTF_B
    } else {
        &gnu::escape::BASH_PRINTF
    };
    let (escape, used) = crate::text::escape_at(rest, dialect);
    match escape {
        Escape::Stop => return (used, true),
        Escape::Unknown => {
            match rest.first() {
                Some('x') => errors.push("missing hex digit for \\x".to_string()),
                Some(&c @ ('u' | 'U')) => errors.push(format!("missing unicode digit for \\{c}")),
                _ => {}
            }
            out.push('\\');
        }
        known => crate::text::push_escape(out, known),
    }
    (used, false)
}

#[cfg(test)]
mod tests {
    use super::format;

    fn f(fmt: &str, args: &[&str]) -> String {
        let args: Vec<String> = args.iter().map(|s| s.to_string()).collect();
        format(fmt, &args).0
    }

    #[test]
    fn conversions_match_bash() {
        assert_eq!(f("%s-%s\\n", &["a", "b", "c"]), "a-b\nc-\n");
        assert_eq!(f("%5d|%-5d|%05d", &["42", "42", "42"]), "   42|42   |00042");
        assert_eq!(f("%x %X %o", &["255", "255", "8"]), "ff FF 10");
        assert_eq!(f("%.2f", &["3.14159"]), "3.14");
        assert_eq!(f("%e", &["12345.678"]), "1.234568e+04");
        assert_eq!(f("%g %g", &["0.0001", "123456789"]), "0.0001 1.23457e+08");
        assert_eq!(f("%b", &["a\\tb"]), "a\tb");
        assert_eq!(f("%10s|", &["hi"]), "        hi|");
        assert_eq!(f("%c", &["hello"]), "h");
        assert_eq!(f("%%", &[]), "%");
        assert_eq!(f("%d", &["'A"]), "65");
        // Measured with bash 5.2 on glibc.
        assert_eq!(
            f("%g|%.3g|%#g", &["999999.5", "0.0001", "2"]),
            "1e+06|0.0001|2.00000"
        );
        assert_eq!(
            f("%f|%5.1e|%G", &["inf", "-nan", "1e-10"]),
            "inf| -nan|1E-10"
        );
        assert_eq!(
            f("%.0d|%#.3o|%#x|%+i", &["0", "8", "255", "5"]),
            "|010|0xff|+5"
        );
        assert_eq!(f("%.*d|%u", &["-1", "0", "-1"]), "0|18446744073709551615");
        assert_eq!(
            f("\\'\\?\\%d|%b", &["5", "\\'\\?\\101\\0101"]),
            "'?\\5|\\'\\?AA"
        );
        assert_eq!(f("a\\cb|%b|", &["x\\cy"]), "a\\cb|x");
        let args = ["\\xg".to_string()];
        let (text, status, errors) = format("\\xg|%b", &args);
        assert_eq!((text.as_str(), status), ("\\xg|\\xg", 0));
        assert_eq!(errors, ["missing hex digit for \\x"; 2]);
    }
}
