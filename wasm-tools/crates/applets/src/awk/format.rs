//! `printf`/`sprintf` formatting with C semantics, plus mawk's argument conversions: `%d %i`
//! clamp to ±(2^31-1), `%o %x %X %u` clamp to 0..=2^32-1, `%c` of a number is its low byte
//! and `%c` of "" is a NUL byte, `%s` of a number uses CONVFMT. Too few arguments and unknown
//! conversions are errors (mawk: "not enough arguments passed to printf(…)", "improper
//! conversion"), where gawk would print empty values.

use super::value::{Value, to_int32, to_uint32};
use gnu::printf::{self, Spec};

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
        if i < fmt.len() && fmt[i] == b'.' {
            i += 1;
            if i < fmt.len() && fmt[i] == b'*' {
                let p = to_int32(take!().to_num());
                // A negative precision is taken as if it were omitted (C99 7.19.6.1).
                spec.precision = if p < 0 {
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
                spec.precision = Some(p);
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
                printf::integer(&mut out, &spec, conv, i128::from(v));
            }
            b'o' | b'x' | b'X' | b'u' => {
                let v = to_uint32(take!().to_num());
                printf::integer(&mut out, &spec, conv, i128::from(v));
            }
            b'e' | b'E' | b'f' | b'F' | b'g' | b'G' => {
                let v = take!().to_num();
                // mawk hands the precision to C; capped so `%.999999999f` is not a 1 GB string.
                spec.precision = spec.precision.map(|p| p.min(1000));
                printf::float(&mut out, &spec, conv, v);
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
                // C's `%c` has no precision: the one character always prints.
                spec.precision = None;
                printf::string(&mut out, &spec, &[byte]);
            }
            b's' => {
                let s = take!().to_str_with(convfmt);
                printf::string(&mut out, &spec, &s);
            }
            _ => return Err(FormatError::Improper(next + 1)),
        }
    }
    Ok(out)
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
