//! AWK values and the string ⇄ number conversions, following mawk 1.3.4-20200120 (the awk
//! upstream InterCode ran), which differs from POSIX and gawk in a few visible places:
//!
//! * a number prints as an integer only when it is integral and `|d| <= 2^31-1`; anything
//!   else goes through `CONVFMT`/`OFMT` (`print 2^31` → `2.14748e+09`);
//! * string → number is C `strtod` on the longest prefix, so `"0x1A"+0` is 26 and `"inf"+0`
//!   is `inf`;
//! * input that "looks numeric" (a strnum) must end, before trailing blanks, in a digit or a
//!   `.` and be consumed whole by `strtod`: `0x10` is the number 16, `0x1A` and `inf` are
//!   strings;
//! * numbers compare by the sign of their difference, so NaN equals everything.

use std::cmp::Ordering;
use std::rc::Rc;

/// AWK strings are byte strings: mawk is byte-oriented (`length("é")` is 2).
pub type Str = Rc<[u8]>;

#[derive(Clone, Debug, Default)]
pub enum Value {
    /// Never assigned: "" as a string and 0 as a number, and compares like a strnum.
    #[default]
    Uninit,
    Num(f64),
    Str(Str),
    /// Text from input (fields, getline, split, ARGV, ENVIRON, -v). When it looks numeric
    /// (a "strnum") it compares as a number; it always prints as its text. Whether it looks
    /// numeric is worked out on use: most fields are never compared or added.
    Input(Str),
}

impl Value {
    /// A value read from input: a strnum when it looks numeric, else a string.
    pub fn from_input(s: &[u8]) -> Value {
        Value::Input(Rc::from(s))
    }

    pub fn from_input_rc(s: Str) -> Value {
        Value::Input(s)
    }

    pub fn to_num(&self) -> f64 {
        match self {
            Value::Uninit => 0.0,
            Value::Num(n) => *n,
            // A strnum's value is what strtod reads, like any string's.
            Value::Str(s) | Value::Input(s) => strtod(s).0,
        }
    }

    /// The string value, converting numbers with `fmt` (CONVFMT or OFMT).
    pub fn to_str_with(&self, fmt: &[u8]) -> Str {
        match self {
            Value::Uninit => Rc::from(&b""[..]),
            Value::Num(n) => Rc::from(num_to_str(*n, fmt)),
            Value::Str(s) | Value::Input(s) => s.clone(),
        }
    }

    /// Appends the string value to `out` without an intermediate allocation for strings.
    pub fn append_to(&self, out: &mut Vec<u8>, fmt: &[u8]) {
        match self {
            Value::Uninit => {}
            Value::Num(n) => out.extend_from_slice(&num_to_str(*n, fmt)),
            Value::Str(s) | Value::Input(s) => out.extend_from_slice(s),
        }
    }

    pub fn truthy(&self) -> bool {
        match self {
            Value::Uninit => false,
            Value::Num(n) => *n != 0.0,
            Value::Str(s) => !s.is_empty(),
            Value::Input(s) => match looks_numeric(s) {
                Some(n) => n != 0.0,
                None => !s.is_empty(),
            },
        }
    }

    fn is_numeric(&self) -> bool {
        match self {
            Value::Str(_) => false,
            Value::Input(s) => looks_numeric(s).is_some(),
            Value::Num(_) | Value::Uninit => true,
        }
    }
}

/// POSIX comparison: numeric when both sides are numbers, strnums or uninitialised, else
/// bytewise on the string values.
pub fn compare(a: &Value, b: &Value, convfmt: &[u8]) -> Ordering {
    if a.is_numeric() && b.is_numeric() {
        num_cmp(a.to_num(), b.to_num())
    } else {
        a.to_str_with(convfmt).cmp(&b.to_str_with(convfmt))
    }
}

/// mawk compares doubles by the sign of `a - b`; NaN (and inf - inf) therefore compare equal.
pub fn num_cmp(a: f64, b: f64) -> Ordering {
    let d = a - b;
    if d > 0.0 {
        Ordering::Greater
    } else if d < 0.0 {
        Ordering::Less
    } else {
        Ordering::Equal
    }
}

/// The number → string rule shared by CONVFMT and OFMT.
pub fn num_to_str(n: f64, fmt: &[u8]) -> Vec<u8> {
    if n == n.trunc() && n.abs() <= 2147483647.0 {
        return format!("{}", n as i64).into_bytes();
    }
    // A bad CONVFMT falls back to the default rather than failing a conversion.
    if fmt != b"%.6g"
        && let Ok(s) = super::format::sprintf(fmt, &[Value::Num(n)], b"%.6g")
    {
        return s;
    }
    let mut s = Vec::new();
    let spec = gnu::printf::Spec {
        precision: Some(6),
        ..Default::default()
    };
    gnu::printf::float(&mut s, &spec, b'g', n);
    s
}

fn is_space(c: u8) -> bool {
    matches!(c, b' ' | b'\t' | b'\n' | b'\r' | b'\x0b' | b'\x0c')
}

/// mawk's strnum test (see the module docs).
pub fn looks_numeric(s: &[u8]) -> Option<f64> {
    let end = s.iter().rposition(|&c| !is_space(c))?;
    let last = s[end];
    if !(last.is_ascii_digit() || last == b'.') {
        return None;
    }
    let (v, used) = strtod(s);
    if used == 0 {
        return None;
    }
    if s[used..].iter().all(|&c| is_space(c)) {
        Some(v)
    } else {
        None
    }
}

/// C `strtod` on a byte string: leading blanks, sign, decimal or hexadecimal digits,
/// `inf`/`infinity`/`nan[(…)]`. Returns the value and the number of bytes consumed (0 when
/// nothing numeric was found, and then the value is 0).
pub fn strtod(s: &[u8]) -> (f64, usize) {
    let mut i = 0;
    while i < s.len() && is_space(s[i]) {
        i += 1;
    }
    let mut neg = false;
    if i < s.len() && (s[i] == b'+' || s[i] == b'-') {
        neg = s[i] == b'-';
        i += 1;
    }
    let sign = |v: f64| if neg { -v } else { v };
    let rest = &s[i..];
    let lower_starts = |p: &[u8]| rest.len() >= p.len() && rest[..p.len()].eq_ignore_ascii_case(p);
    if lower_starts(b"infinity") {
        return (sign(f64::INFINITY), i + 8);
    }
    if lower_starts(b"inf") {
        return (sign(f64::INFINITY), i + 3);
    }
    if lower_starts(b"nan") {
        let mut j = i + 3;
        if j < s.len() && s[j] == b'(' {
            let mut k = j + 1;
            while k < s.len() && (s[k].is_ascii_alphanumeric() || s[k] == b'_') {
                k += 1;
            }
            if k < s.len() && s[k] == b')' {
                j = k + 1;
            }
        }
        return (sign(f64::NAN), j);
    }
    if rest.len() >= 2 && rest[0] == b'0' && (rest[1] | 0x20) == b'x' {
        if let Some((v, used)) = hex_float(&rest[2..]) {
            return (sign(v), i + 2 + used);
        }
        // "0x" without hex digits: strtod parses the "0".
        return (sign(0.0), i + 1);
    }
    let start = i;
    let mut j = i;
    let mut digits = 0;
    while j < s.len() && s[j].is_ascii_digit() {
        j += 1;
        digits += 1;
    }
    if j < s.len() && s[j] == b'.' {
        j += 1;
        while j < s.len() && s[j].is_ascii_digit() {
            j += 1;
            digits += 1;
        }
    }
    if digits == 0 {
        return (0.0, 0);
    }
    if j < s.len() && (s[j] | 0x20) == b'e' {
        let mut k = j + 1;
        if k < s.len() && (s[k] == b'+' || s[k] == b'-') {
            k += 1;
        }
        if k < s.len() && s[k].is_ascii_digit() {
            while k < s.len() && s[k].is_ascii_digit() {
                k += 1;
            }
            j = k;
        }
    }
    // The slice is ASCII digits, '.', 'e' and a sign, which Rust's parser accepts (it rejects
    // a lone "." but digits > 0 rules that out; "5." and ".5" are fine).
    let text = std::str::from_utf8(&s[start..j]).unwrap_or("0");
    let v = text.parse::<f64>().unwrap_or(0.0);
    (sign(v), j)
}

fn hex_float(s: &[u8]) -> Option<(f64, usize)> {
    let mut i = 0;
    let mut mant = 0f64;
    let mut digits = 0;
    let mut exp: i64 = 0;
    while i < s.len() && s[i].is_ascii_hexdigit() {
        mant = mant * 16.0 + f64::from((s[i] as char).to_digit(16)?);
        i += 1;
        digits += 1;
    }
    if i < s.len() && s[i] == b'.' {
        i += 1;
        while i < s.len() && s[i].is_ascii_hexdigit() {
            mant = mant * 16.0 + f64::from((s[i] as char).to_digit(16)?);
            exp -= 4;
            i += 1;
            digits += 1;
        }
    }
    if digits == 0 {
        return None;
    }
    if i < s.len() && (s[i] | 0x20) == b'p' {
        let mut k = i + 1;
        let mut eneg = false;
        if k < s.len() && (s[k] == b'+' || s[k] == b'-') {
            eneg = s[k] == b'-';
            k += 1;
        }
        if k < s.len() && s[k].is_ascii_digit() {
            let mut e: i64 = 0;
            while k < s.len() && s[k].is_ascii_digit() {
                e = (e * 10 + i64::from(s[k] - b'0')).min(100_000);
                k += 1;
            }
            exp += if eneg { -e } else { e };
            i = k;
        }
    }
    let exp = exp.clamp(-5000, 5000) as i32;
    Some((mant * 2f64.powi(exp), i))
}

/// `d_to_I` in mawk: clamp to ±(2^31-1), NaN → -(2^31-1).
pub fn to_int32(d: f64) -> i64 {
    const MAX: f64 = 2147483647.0;
    if d >= MAX {
        MAX as i64
    } else if d > -MAX {
        d as i64
    } else {
        -(MAX as i64)
    }
}

/// `d_to_U` in mawk: clamp to 0..=2^32-1, NaN → 0.
pub fn to_uint32(d: f64) -> u64 {
    const MAX: f64 = 4294967295.0;
    if d >= MAX {
        MAX as u64
    } else if d > 0.0 {
        d as u64
    } else {
        0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strtod_forms() {
        assert_eq!(strtod(b"  12abc"), (12.0, 4));
        assert_eq!(strtod(b"0x1A"), (26.0, 4));
        assert_eq!(strtod(b"0x"), (0.0, 1));
        assert_eq!(strtod(b"-.5e1x"), (-5.0, 5));
        assert_eq!(strtod(b"1e"), (1.0, 1));
        assert_eq!(strtod(b"abc"), (0.0, 0));
        assert_eq!(strtod(b"."), (0.0, 0));
        assert!(strtod(b"inf").0.is_infinite());
        assert!(strtod(b"nan").0.is_nan());
        assert_eq!(strtod(b"0x1p3"), (8.0, 5));
    }

    #[test]
    fn strnum_rules() {
        assert_eq!(looks_numeric(b" 3 "), Some(3.0));
        assert_eq!(looks_numeric(b"0x10"), Some(16.0));
        assert_eq!(looks_numeric(b"0x1A"), None);
        assert_eq!(looks_numeric(b"inf"), None);
        assert_eq!(looks_numeric(b"1e"), None);
        assert_eq!(looks_numeric(b"5."), Some(5.0));
        assert_eq!(looks_numeric(b"."), None);
        assert_eq!(looks_numeric(b""), None);
    }

    #[test]
    fn number_output() {
        assert_eq!(num_to_str(3.0, b"%.6g"), b"3");
        assert_eq!(num_to_str(-0.0, b"%.6g"), b"0");
        assert_eq!(num_to_str(2147483648.0, b"%.6g"), b"2.14748e+09");
        assert_eq!(num_to_str(0.1 + 0.2, b"%.6g"), b"0.3");
        assert_eq!(num_to_str(3.14259, b"%.2f"), b"3.14");
    }

    #[test]
    fn clamps() {
        assert_eq!(to_int32(3e9), 2147483647);
        assert_eq!(to_int32(-1e30), -2147483647);
        assert_eq!(to_int32(f64::NAN), -2147483647);
        assert_eq!(to_uint32(-1.0), 0);
        assert_eq!(to_uint32(4294967296.0), 4294967295);
    }
}
