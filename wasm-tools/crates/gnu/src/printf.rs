//! The conversions of C's `printf(3)` as glibc prints them, for every program that formats
//! with it: the shell's `printf` builtin, awk's `printf`/`sprintf`/`CONVFMT`, `find -printf`
//! and `hexdump -e`. Each caller parses its own format language (they differ: awk takes `*`
//! from its arguments, hexdump counts bytes, bash has `%b` and `%q`) and converts its own
//! arguments; what a conversion prints from a spec and a value is the same everywhere.
//!
//! Rust's `{:.N}` and `{:.Ne}` round exactly as glibc does (half to even on the exact binary
//! value), so only the exponent syntax, the `%g` style choice and the flags are written here.

/// Flags, width and precision of one conversion, as written between `%` and the letter.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Spec {
    /// `-`: pad on the right.
    pub left: bool,
    /// `+`: a sign on non-negative numbers.
    pub plus: bool,
    /// ` `: a space where a `+` would go.
    pub space: bool,
    /// `#`: the alternate form (`0x`, a leading `0`, a point that always shows).
    pub alt: bool,
    /// `0`: pad numbers with zeros after the sign.
    pub zero: bool,
    pub width: usize,
    pub precision: Option<usize>,
}

/// Pads `body` to the width with spaces, on the side the spec asks for.
fn pad(out: &mut Vec<u8>, spec: &Spec, body: &[u8]) {
    let fill = spec.width.saturating_sub(body.len());
    if !spec.left {
        out.resize(out.len() + fill, b' ');
    }
    out.extend_from_slice(body);
    if spec.left {
        out.resize(out.len() + fill, b' ');
    }
}

/// `%s` and `%c`: the bytes, cut to the precision, padded (glibc ignores `0` for them).
pub fn string(out: &mut Vec<u8>, spec: &Spec, s: &[u8]) {
    let s = match spec.precision {
        Some(p) if p < s.len() => &s[..p],
        _ => s,
    };
    pad(out, spec, s);
}

/// A number's sign or prefix, then its digits; `0` fills between the two when it applies.
fn number(out: &mut Vec<u8>, spec: &Spec, prefix: &[u8], digits: &[u8], zero_fill: bool) {
    let len = prefix.len() + digits.len();
    if spec.zero && !spec.left && zero_fill && spec.width > len {
        out.extend_from_slice(prefix);
        out.resize(out.len() + spec.width - len, b'0');
        out.extend_from_slice(digits);
        return;
    }
    let mut body = Vec::with_capacity(len);
    body.extend_from_slice(prefix);
    body.extend_from_slice(digits);
    pad(out, spec, &body);
}

/// The sign a number prints with: `-` for the sign bit (so `-0` and negative NaN keep it),
/// else what `+` or ` ` ask for.
fn sign(spec: &Spec, negative: bool) -> &'static [u8] {
    if negative {
        b"-"
    } else if spec.plus {
        b"+"
    } else if spec.space {
        b" "
    } else {
        b""
    }
}

/// `%d %i %o %u %x %X`. Only `d` and `i` are signed; for the others the caller passes the
/// value already reduced to its unsigned width (C converts the argument to `unsigned`).
pub fn integer(out: &mut Vec<u8>, spec: &Spec, conv: u8, value: i128) {
    let magnitude = value.unsigned_abs();
    let mut digits = match conv {
        b'o' => format!("{magnitude:o}"),
        b'x' => format!("{magnitude:x}"),
        b'X' => format!("{magnitude:X}"),
        _ => magnitude.to_string(),
    }
    .into_bytes();
    // C: precision 0 prints no digits for 0; a precision pads digits with zeros.
    if spec.precision == Some(0) && magnitude == 0 {
        digits.clear();
    }
    if let Some(p) = spec.precision
        && digits.len() < p
    {
        digits.splice(0..0, std::iter::repeat_n(b'0', p - digits.len()));
    }
    let prefix: &[u8] = match conv {
        b'd' | b'i' => sign(spec, value < 0),
        b'x' if spec.alt && magnitude != 0 => b"0x",
        b'X' if spec.alt && magnitude != 0 => b"0X",
        _ => b"",
    };
    // `#o` makes the first digit a 0, even of an empty `%#.0o` of 0.
    if conv == b'o' && spec.alt && digits.first() != Some(&b'0') {
        digits.insert(0, b'0');
    }
    // With a precision, `0` is ignored for integers.
    number(out, spec, prefix, &digits, spec.precision.is_none());
}

/// `%e %E %f %F %g %G` (no caller of ours formats hexadecimal floats, `%a`).
pub fn float(out: &mut Vec<u8>, spec: &Spec, conv: u8, v: f64) {
    let upper = conv.is_ascii_uppercase();
    let prefix = sign(spec, v.is_sign_negative());
    let a = v.abs();
    if !a.is_finite() {
        let word: &[u8] = match (a.is_nan(), upper) {
            (true, false) => b"nan",
            (true, true) => b"NAN",
            (false, false) => b"inf",
            (false, true) => b"INF",
        };
        return number(out, spec, prefix, word, false);
    }
    let p = spec.precision.unwrap_or(6);
    let mut digits = match conv.to_ascii_lowercase() {
        b'f' => fixed(a, p, spec.alt),
        b'e' => exponent(a, p, spec.alt),
        _ => general(a, p, spec.alt),
    };
    if upper {
        digits.make_ascii_uppercase();
    }
    number(out, spec, prefix, &digits, true);
}

/// `%f` digits: `p` decimals; `#` keeps the point when there are none.
fn fixed(a: f64, p: usize, alt: bool) -> Vec<u8> {
    let mut s = format!("{a:.p$}").into_bytes();
    if alt && p == 0 {
        s.push(b'.');
    }
    s
}

/// `%e` digits: `d.ddde±XX`, at least two exponent digits.
fn exponent(a: f64, p: usize, alt: bool) -> Vec<u8> {
    let e = format!("{a:.p$e}");
    let (mantissa, exp) = e.split_once('e').unwrap_or((&e, "0"));
    let x: i32 = exp.parse().unwrap_or(0);
    let mut s = mantissa.as_bytes().to_vec();
    if alt && p == 0 {
        s.push(b'.');
    }
    s.extend_from_slice(
        format!("e{}{:02}", if x < 0 { '-' } else { '+' }, x.unsigned_abs()).as_bytes(),
    );
    s
}

/// `%g` digits: `p` significant digits in `%e` style when the exponent (after rounding) is
/// below -4 or at least `p`, else in `%f` style; trailing zeros dropped unless `#`.
fn general(a: f64, p: usize, alt: bool) -> Vec<u8> {
    let p = p.max(1);
    let rounded = format!("{a:.prec$e}", prec = p - 1);
    let x: i64 = rounded
        .rsplit_once('e')
        .and_then(|(_, x)| x.parse().ok())
        .unwrap_or(0);
    let mut s = if x < -4 || x >= p as i64 {
        exponent(a, p - 1, alt)
    } else {
        fixed(a, (p as i64 - 1 - x).max(0) as usize, alt)
    };
    if !alt {
        strip_fraction_zeros(&mut s);
    }
    s
}

/// Drops trailing zeros of the fraction, and the point if nothing is left after it.
fn strip_fraction_zeros(s: &mut Vec<u8>) {
    let mantissa_end = s.iter().position(|&c| c == b'e').unwrap_or(s.len());
    if !s[..mantissa_end].contains(&b'.') {
        return;
    }
    let mut end = mantissa_end;
    while s[end - 1] == b'0' {
        end -= 1;
    }
    if s[end - 1] == b'.' {
        end -= 1;
    }
    s.drain(end..mantissa_end);
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Formats one conversion written C's way (`%-08.3e|`, text after it copied); just enough
    /// parsing for tests.
    fn c(format: &str, value: f64) -> String {
        let b = format.as_bytes();
        let mut spec = Spec::default();
        let mut i = 1;
        while let Some(&f) = b.get(i).filter(|f| b"-+ #0".contains(f)) {
            match f {
                b'-' => spec.left = true,
                b'+' => spec.plus = true,
                b' ' => spec.space = true,
                b'#' => spec.alt = true,
                _ => spec.zero = true,
            }
            i += 1;
        }
        let digits = |i: &mut usize| {
            let start = *i;
            while b[*i].is_ascii_digit() {
                *i += 1;
            }
            format[start..*i].parse::<usize>().unwrap_or(0)
        };
        spec.width = digits(&mut i);
        if b[i] == b'.' {
            i += 1;
            spec.precision = Some(digits(&mut i));
        }
        let mut out = Vec::new();
        match b[i] {
            b's' => string(&mut out, &spec, value.to_string().as_bytes()),
            conv @ (b'd' | b'i' | b'o' | b'u' | b'x' | b'X') => {
                integer(&mut out, &spec, conv, value as i128)
            }
            conv => float(&mut out, &spec, conv, value),
        }
        out.extend_from_slice(&b[i + 1..]);
        String::from_utf8(out).unwrap()
    }

    /// Expected texts are what GNU `printf(1)` (coreutils on glibc) printed for the same format
    /// and value; `%05s`, which coreutils refuses, as mawk's `printf` printed it.
    #[test]
    fn as_glibc_prints() {
        let cases: &[(&str, f64, &str)] = &[
            ("%5.3d", 7.0, "  007"),
            ("%+d", 3.0, "+3"),
            ("% d", 4.0, " 4"),
            ("%05d", -42.0, "-0042"),
            ("%-05d|", 42.0, "42   |"),
            ("%08.3d", 5.0, "     005"),
            ("%.0d|", 0.0, "|"),
            ("%#.0o", 0.0, "0"),
            ("%#.3o", 8.0, "010"),
            ("%#o", 8.0, "010"),
            ("%#x", 255.0, "0xff"),
            ("%#X", 0.0, "0"),
            ("%#010x", 255.0, "0x000000ff"),
            ("%+u", 5.0, "5"),
            ("%5.2f", 3.14259, " 3.14"),
            ("%05.1f", 3.14259, "003.1"),
            ("%-08.3e", 1234.5, "1.234e+03"),
            ("%e", 1234.5, "1.234500e+03"),
            ("%E", 12.0, "1.200000E+01"),
            ("%.0e", 12345.0, "1e+04"),
            ("%#.0e", 12345.0, "1.e+04"),
            ("%#.0f", 3.0, "3."),
            ("%.2f", 0.125, "0.12"),
            ("%.0f", 2.5, "2"),
            ("%g", 100000.0, "100000"),
            ("%g", 1e6, "1e+06"),
            ("%g", 999999.5, "1e+06"),
            ("%g", 0.0001, "0.0001"),
            ("%g", 0.0001234, "0.0001234"),
            ("%g", 123456789.0, "1.23457e+08"),
            ("%G", 1e-10, "1E-10"),
            ("%.3g", 0.0, "0"),
            ("%#g", 1.0, "1.00000"),
            ("%#.3g", 100.0, "100."),
            ("%+.3g", 0.0001234, "+0.000123"),
            ("%.0g", 0.5, "0.5"),
            ("%g", -0.0, "-0"),
            ("%08g", -1.5, "-00001.5"),
            ("%f", f64::INFINITY, "inf"),
            ("%05f", f64::NEG_INFINITY, " -inf"),
            ("%F", f64::NAN, "NAN"),
            ("%+e", f64::INFINITY, "+inf"),
            ("%.2s", 123.0, "12"),
            ("%-5s|", 1.0, "1    |"),
            ("%05s", 12.0, "   12"),
        ];
        for &(format, value, want) in cases {
            assert_eq!(c(format, value), want, "{format} of {value}");
        }
    }
}
