//! `printf`/`sprintf` formatting with C semantics, plus mawk's argument conversions: `%d %i`
//! clamp to ±(2^31-1), `%o %x %X %u` clamp to 0..=2^32-1, `%c` of a number is its low byte
//! and `%c` of "" is a NUL byte, `%s` of a number uses CONVFMT. Too few arguments and unknown
//! conversions are errors (mawk: "not enough arguments passed to printf(…)", "improper
//! conversion"), where gawk would print empty values.

use super::value::{Value, to_int32, to_uint32};

#[derive(Default, Clone, Copy)]
pub struct Spec {
    pub left: bool,
    pub plus: bool,
    pub space: bool,
    pub alt: bool,
    pub zero: bool,
    pub width: usize,
}

#[derive(Debug, PartialEq, Eq)]
pub enum FormatError {
    /// Carries what was formatted before the missing argument (mawk's printf prints it).
    NotEnoughArgs(Vec<u8>),
    /// A conversion mawk rejects; carries the argument number (1-based) for the message.
    Improper(usize),
}

/// Formats `args` per `fmt`. `convfmt` converts numbers given to `%s`.
pub fn sprintf(fmt: &[u8], args: &[Value], convfmt: &[u8]) -> Result<Vec<u8>, FormatError> {
    let mut out = Vec::with_capacity(fmt.len() + 16);
    let mut next = 0usize;
    // `None` is "not enough arguments"; the caller attaches the partial output.
    let take = |next: &mut usize| -> Option<&Value> {
        let v = args.get(*next)?;
        *next += 1;
        Some(v)
    };
    macro_rules! take {
        () => {
            match take(&mut next) {
                Some(v) => v,
                None => return Err(FormatError::NotEnoughArgs(out)),
            }
        };
    }
    let mut i = 0;
    while i < fmt.len() {
        let c = fmt[i];
        if c != b'%' {
            out.push(c);
            i += 1;
            continue;
        }
        i += 1;
        if i < fmt.len() && fmt[i] == b'%' {
            out.push(b'%');
            i += 1;
            continue;
        }
        let mut spec = Spec::default();
        while i < fmt.len() {
            match fmt[i] {
                b'-' => spec.left = true,
                b'+' => spec.plus = true,
                b' ' => spec.space = true,
                b'#' => spec.alt = true,
                b'0' => spec.zero = true,
                _ => break,
            }
            i += 1;
        }
        if i < fmt.len() && fmt[i] == b'*' {
            let w = to_int32(take!().to_num());
            if w < 0 {
                spec.left = true;
            }
            // Same cap as a literal width: a 2 GiB field is not a formatting request.
            spec.width = (w.unsigned_abs() as usize).min(1 << 20);
            i += 1;
        } else {
            let mut w = 0usize;
            while i < fmt.len() && fmt[i].is_ascii_digit() {
                w = (w * 10 + usize::from(fmt[i] - b'0')).min(1 << 20);
                i += 1;
            }
            spec.width = w;
        }
        let mut prec: Option<usize> = None;
        if i < fmt.len() && fmt[i] == b'.' {
            i += 1;
            if i < fmt.len() && fmt[i] == b'*' {
                let p = to_int32(take!().to_num());
                // A negative precision is taken as if it were omitted (C99 7.19.6.1).
                prec = if p < 0 {
                    None
                } else {
                    Some((p as usize).min(1 << 20))
                };
                i += 1;
            } else {
                let mut p = 0usize;
                while i < fmt.len() && fmt[i].is_ascii_digit() {
                    p = (p * 10 + usize::from(fmt[i] - b'0')).min(1 << 20);
                    i += 1;
                }
                prec = Some(p);
            }
        }
        // Length modifiers mean nothing for awk's doubles; C printf (and mawk) accept them.
        while i < fmt.len() && matches!(fmt[i], b'h' | b'l' | b'L' | b'q') {
            i += 1;
        }
        let Some(&conv) = fmt.get(i) else {
            // A trailing '%' with flags only: C prints it as is; mawk complains. Be lenient.
            out.push(b'%');
            break;
        };
        i += 1;
        match conv {
            b'd' | b'i' => {
                let v = to_int32(take!().to_num());
                let digits = int_digits(v.unsigned_abs(), 10, false, prec);
                let sign: &[u8] = if v < 0 {
                    b"-"
                } else if spec.plus {
                    b"+"
                } else if spec.space {
                    b" "
                } else {
                    b""
                };
                pad_num(&mut out, sign, &digits, &spec, prec.is_none());
            }
            b'o' | b'x' | b'X' | b'u' => {
                let v = to_uint32(take!().to_num());
                let (base, upper) = match conv {
                    b'o' => (8, false),
                    b'x' => (16, false),
                    b'X' => (16, true),
                    _ => (10, false),
                };
                let mut digits = int_digits(v, base, upper, prec);
                let mut prefix: &[u8] = b"";
                if spec.alt {
                    if conv == b'o' && digits.first() != Some(&b'0') {
                        digits.insert(0, b'0');
                    } else if v != 0 && conv == b'x' {
                        prefix = b"0x";
                    } else if v != 0 && conv == b'X' {
                        prefix = b"0X";
                    }
                }
                pad_num(&mut out, prefix, &digits, &spec, prec.is_none());
            }
            b'e' | b'E' | b'f' | b'F' | b'g' | b'G' => {
                let v = take!().to_num();
                let body = fmt_float(v.abs(), conv, prec, &spec);
                // C prints the sign bit: -0 and negative NaN keep their '-'.
                let sign: &[u8] = if v.is_sign_negative() {
                    b"-"
                } else if spec.plus {
                    b"+"
                } else if spec.space {
                    b" "
                } else {
                    b""
                };
                pad_num(&mut out, sign, &body, &spec, v.is_finite());
            }
            b'c' => {
                let byte = match take!() {
                    Value::Num(n) => to_int32(*n) as u8,
                    // mawk prints the first byte of the string, which is the NUL terminator
                    // for "".
                    v => {
                        let s = v.to_str_with(convfmt);
                        s.first().copied().unwrap_or(0)
                    }
                };
                pad_str(&mut out, &[byte], &spec);
            }
            b's' => {
                let s = take!().to_str_with(convfmt);
                let s = match prec {
                    Some(p) if p < s.len() => &s[..p],
                    _ => &s[..],
                };
                pad_str(&mut out, s, &spec);
            }
            _ => return Err(FormatError::Improper(next + 1)),
        }
    }
    Ok(out)
}

fn int_digits(mut v: u64, base: u64, upper: bool, prec: Option<usize>) -> Vec<u8> {
    let table: &[u8; 16] = if upper {
        b"0123456789ABCDEF"
    } else {
        b"0123456789abcdef"
    };
    let mut d = Vec::new();
    while v > 0 {
        d.push(table[(v % base) as usize]);
        v /= base;
    }
    // C: precision 0 with value 0 prints no digits.
    let min = prec.unwrap_or(1);
    while d.len() < min {
        d.push(b'0');
    }
    d.reverse();
    d
}

/// Pads a numeric conversion: `prefix` (sign or 0x) goes before any zero padding.
fn pad_num(out: &mut Vec<u8>, prefix: &[u8], body: &[u8], spec: &Spec, zero_ok: bool) {
    let len = prefix.len() + body.len();
    let fill = spec.width.saturating_sub(len);
    if spec.left {
        out.extend_from_slice(prefix);
        out.extend_from_slice(body);
        out.resize(out.len() + fill, b' ');
    } else if spec.zero && zero_ok {
        out.extend_from_slice(prefix);
        out.resize(out.len() + fill, b'0');
        out.extend_from_slice(body);
    } else {
        out.resize(out.len() + fill, b' ');
        out.extend_from_slice(prefix);
        out.extend_from_slice(body);
    }
}

/// Pads `%s`/`%c`; glibc ignores the `0` flag for them.
fn pad_str(out: &mut Vec<u8>, s: &[u8], spec: &Spec) {
    let fill = spec.width.saturating_sub(s.len());
    if spec.left {
        out.extend_from_slice(s);
        out.resize(out.len() + fill, b' ');
    } else {
        out.resize(out.len() + fill, b' ');
        out.extend_from_slice(s);
    }
}

/// Formats a non-negative magnitude (the caller adds the sign) for `%e %f %g` and their
/// upper-case forms. Rust's `{:.N}`/`{:.Ne}` round exactly like glibc (half-to-even on the
/// exact binary value), so only the exponent syntax and `%g` rules are ours.
pub fn fmt_float(v: f64, conv: u8, prec: Option<usize>, spec: &Spec) -> Vec<u8> {
    let upper = conv.is_ascii_uppercase();
    let v = v.abs();
    if !v.is_finite() {
        let s: &[u8] = if v.is_nan() { b"nan" } else { b"inf" };
        return if upper {
            s.to_ascii_uppercase()
        } else {
            s.to_vec()
        };
    }
    let p = prec.unwrap_or(6).min(1000);
    let mut s = match conv | 0x20 {
        b'f' => {
            let mut s = format!("{v:.p$}").into_bytes();
            if spec.alt && p == 0 {
                s.push(b'.');
            }
            s
        }
        b'e' => exp_form(v, p, spec.alt),
        _ => {
            let p = if p == 0 { 1 } else { p };
            // The exponent after rounding to p significant digits decides the style.
            let e = format!("{v:.prec$e}", prec = p - 1);
            let x: i64 = e
                .rsplit_once('e')
                .and_then(|(_, x)| x.parse().ok())
                .unwrap_or(0);
            let mut s = if x < -4 || x >= p as i64 {
                exp_form(v, p - 1, spec.alt)
            } else {
                let fp = (p as i64 - 1 - x).max(0) as usize;
                let mut s = format!("{v:.fp$}").into_bytes();
                if spec.alt && fp == 0 {
                    s.push(b'.');
                }
                s
            };
            if !spec.alt {
                strip_zeros(&mut s);
            }
            s
        }
    };
    if upper {
        s.make_ascii_uppercase();
    }
    s
}

/// `d.ddde±XX` with at least two exponent digits, as C prints it.
fn exp_form(v: f64, p: usize, alt: bool) -> Vec<u8> {
    let e = format!("{v:.p$e}");
    let (mant, exp) = e.split_once('e').unwrap_or((&e, "0"));
    let x: i64 = exp.parse().unwrap_or(0);
    let mut s = mant.as_bytes().to_vec();
    if alt && p == 0 {
        s.push(b'.');
    }
    s.push(b'e');
    s.push(if x < 0 { b'-' } else { b'+' });
    let xs = x.unsigned_abs().to_string();
    if xs.len() < 2 {
        s.push(b'0');
    }
    s.extend_from_slice(xs.as_bytes());
    s
}

/// `%g` drops trailing zeros of the fraction (and the point), in either style.
fn strip_zeros(s: &mut Vec<u8>) {
    let epos = s.iter().position(|&c| c == b'e');
    let (mant_end, tail) = match epos {
        Some(p) => (p, s[p..].to_vec()),
        None => (s.len(), Vec::new()),
    };
    if !s[..mant_end].contains(&b'.') {
        return;
    }
    let mut end = mant_end;
    while end > 0 && s[end - 1] == b'0' {
        end -= 1;
    }
    if end > 0 && s[end - 1] == b'.' {
        end -= 1;
    }
    s.truncate(end);
    s.extend_from_slice(&tail);
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::rc::Rc;

    fn f(fmt: &str, args: &[Value]) -> String {
        String::from_utf8(sprintf(fmt.as_bytes(), args, b"%.6g").unwrap()).unwrap()
    }
    fn n(x: f64) -> Value {
        Value::Num(x)
    }
    fn s(x: &str) -> Value {
        Value::Str(Rc::from(x.as_bytes()))
    }

    #[test]
    fn c_like() {
        assert_eq!(
            f(
                "%d %d %i %c %c %5.2f|%-5s|%5s|%x %X %o %u %e %g %%",
                &[
                    n(3.9),
                    n(-3.9),
                    s("12abc"),
                    n(65.0),
                    s("hello"),
                    n(3.14259),
                    s("ab"),
                    s("cd"),
                    n(255.0),
                    n(255.0),
                    n(8.0),
                    n(-1.0),
                    n(12345.678),
                    n(0.0001234)
                ]
            ),
            "3 -3 12 A h  3.14|ab   |   cd|ff FF 10 0 1.234568e+04 0.0001234 %"
        );
        assert_eq!(
            f(
                "[%05s][%-5c][%5c][%.1s][%05.1f][%-08.3e][%#x][%#o][%+.3g][% g][%G][%E]",
                &[
                    s("ab"),
                    s("x"),
                    n(66.0),
                    s("xyz"),
                    n(3.14259),
                    n(1234.5),
                    n(255.0),
                    n(8.0),
                    n(0.0001234),
                    n(5.0),
                    n(1e-10),
                    n(12.0)
                ]
            ),
            "[   ab][x    ][    B][x][003.1][1.234e+03][0xff][010][+0.000123][ 5][1E-10][1.200000E+01]"
        );
        assert_eq!(
            f(
                "%*d|%-*d|%.*f",
                &[n(5.0), n(42.0), n(4.0), n(7.0), n(2.0), n(3.14259)]
            ),
            "   42|7   |3.14"
        );
        assert_eq!(
            f(
                "%5.3d %+d % d %05d %-05d|",
                &[n(7.0), n(3.0), n(4.0), n(42.0), n(42.0)]
            ),
            "  007 +3  4 00042 42   |"
        );
        assert_eq!(
            f(
                "%g %g %g %g",
                &[n(100000.0), n(1e6), n(0.0001), n(123456789.0)]
            ),
            "100000 1e+06 0.0001 1.23457e+08"
        );
        assert_eq!(
            f("%.0e %#.0f %.3g", &[n(12345.0), n(3.0), n(0.0)]),
            "1e+04 3. 0"
        );
    }

    #[test]
    fn errors() {
        assert_eq!(
            sprintf(b"%d-%d", &[n(1.0)], b"%.6g"),
            Err(FormatError::NotEnoughArgs(b"1-".to_vec()))
        );
        assert!(matches!(
            sprintf(b"%z", &[n(1.0)], b"%.6g"),
            Err(FormatError::Improper(_))
        ));
    }
}
