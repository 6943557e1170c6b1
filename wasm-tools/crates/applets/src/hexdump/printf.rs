//! The C `printf` conversions hexdump's print units use, over raw input bytes: integers of
//! 1, 2, 4 or 8 bytes (little-endian, as on the x86 machines upstream ran), floats of 4 or 8
//! bytes, and strings. Only what hexdump's conversions need; flags as in C.

use super::format::Spec;

/// Pads `body` (sign and prefix included) to the width with spaces, left or right.
fn pad(out: &mut Vec<u8>, spec: &Spec, body: &[u8]) {
    let fill = spec.width.saturating_sub(body.len());
    if !spec.minus {
        out.resize(out.len() + fill, b' ');
    }
    out.extend_from_slice(body);
    if spec.minus {
        out.resize(out.len() + fill, b' ');
    }
}

/// `%s` (and `%c`, hexdump's character conversions): the bytes, cut to the precision.
pub fn string(out: &mut Vec<u8>, spec: &Spec, s: &[u8]) {
    let s = match spec.precision {
        Some(p) if p < s.len() => &s[..p],
        _ => s,
    };
    pad(out, spec, s);
}

/// Places sign/prefix and digits, zero-filling between them when `0` applies.
fn number(out: &mut Vec<u8>, spec: &Spec, prefix: &[u8], digits: &[u8], zero_ok: bool) {
    let len = prefix.len() + digits.len();
    if spec.zero && !spec.minus && zero_ok && spec.width > len {
        out.extend_from_slice(prefix);
        out.resize(out.len() + spec.width - len, b'0');
        out.extend_from_slice(digits);
        return;
    }
    let mut body = prefix.to_vec();
    body.extend_from_slice(digits);
    pad(out, spec, &body);
}

/// `%d %i %o %u %x %X` of a value already widened (sign-extended for the signed ones).
pub fn integer(out: &mut Vec<u8>, spec: &Spec, radix: u8, value: i128) {
    let neg = value < 0;
    let mag = value.unsigned_abs();
    let mut digits = match radix {
        b'o' => format!("{mag:o}"),
        b'x' => format!("{mag:x}"),
        b'X' => format!("{mag:X}"),
        _ => format!("{mag}"),
    }
    .into_bytes();
    if spec.precision == Some(0) && mag == 0 {
        digits.clear();
    }
    if let Some(p) = spec.precision
        && digits.len() < p
    {
        let mut z = vec![b'0'; p - digits.len()];
        z.extend_from_slice(&digits);
        digits = z;
    }
    let mut prefix: Vec<u8> = Vec::new();
    match radix {
        b'd' => {
            if neg {
                prefix.push(b'-');
            } else if spec.plus {
                prefix.push(b'+');
            } else if spec.space {
                prefix.push(b' ');
            }
        }
        b'o' if spec.alt && digits.first() != Some(&b'0') => digits.insert(0, b'0'),
        b'x' if spec.alt && mag != 0 => prefix.extend_from_slice(b"0x"),
        b'X' if spec.alt && mag != 0 => prefix.extend_from_slice(b"0X"),
        _ => {}
    }
    number(out, spec, &prefix, &digits, spec.precision.is_none());
}

/// `%e`/`%E` digits: mantissa with `precision` decimals and a signed two-digit exponent.
fn exponent_form(v: f64, precision: usize, upper: bool) -> String {
    let s = format!("{v:.precision$e}");
    let (mant, exp) = s.split_once('e').unwrap_or((&s, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let sign = if exp < 0 { '-' } else { '+' };
    let e = if upper { 'E' } else { 'e' };
    format!("{mant}{e}{sign}{:02}", exp.unsigned_abs())
}

/// Drops trailing fraction zeros (and a bare point), as `%g` does without `#`.
fn strip_zeros(s: String) -> String {
    let (num, exp) = match s.find(['e', 'E']) {
        Some(i) => (s[..i].to_string(), s[i..].to_string()),
        None => (s.clone(), String::new()),
    };
    if !num.contains('.') {
        return s;
    }
    let num = num.trim_end_matches('0').trim_end_matches('.');
    format!("{num}{exp}")
}

/// `%e %E %f %g %G`.
pub fn float(out: &mut Vec<u8>, spec: &Spec, conv: u8, v: f64) {
    let upper = conv.is_ascii_uppercase();
    let sign: &[u8] = if v.is_sign_negative() {
        b"-"
    } else if spec.plus {
        b"+"
    } else if spec.space {
        b" "
    } else {
        b""
    };
    let a = v.abs();
    if !a.is_finite() {
        let word = match (a.is_nan(), upper) {
            (true, false) => "nan",
            (true, true) => "NAN",
            (false, false) => "inf",
            (false, true) => "INF",
        };
        return number(out, spec, sign, word.as_bytes(), false);
    }
    let p = spec.precision.unwrap_or(6);
    let mut digits = match conv.to_ascii_lowercase() {
        b'f' => format!("{a:.p$}"),
        b'e' => exponent_form(a, p, upper),
        _ => {
            let p = p.max(1);
            let e = exponent_form(a, p - 1, upper);
            let exp: i32 = e[e.find(['e', 'E']).unwrap_or(0) + 1..]
                .parse()
                .unwrap_or(0);
            let s = if exp < -4 || exp >= p as i32 {
                e
            } else {
                let decimals = (p as i32 - 1 - exp).max(0) as usize;
                format!("{a:.decimals$}")
            };
            if spec.alt { s } else { strip_zeros(s) }
        }
    };
    if spec.alt && !digits.contains('.') {
        match digits.find(['e', 'E']) {
            Some(i) => digits.insert(i, '.'),
            None => digits.push('.'),
        }
    }
    number(out, spec, sign, digits.as_bytes(), true);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(width: usize, precision: Option<usize>) -> Spec {
        Spec {
            width,
            precision,
            ..Spec::default()
        }
    }

    #[test]
    fn c_like() {
        let mut o = Vec::new();
        integer(&mut o, &spec(7, Some(7)), b'x', 0x1d);
        assert_eq!(o, b"000001d");
        o.clear();
        float(&mut o, &spec(0, None), b'g', 0.0001234);
        assert_eq!(o, b"0.0001234");
        o.clear();
        float(&mut o, &spec(0, None), b'e', 1234.5);
        assert_eq!(o, b"1.234500e+03");
    }
}
