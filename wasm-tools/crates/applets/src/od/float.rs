//! Floating-point fields as GNU od prints them: gnulib's `ftoastr`, i.e. C's `%.*g` at the
//! smallest precision, starting from `FLT_DIG`/`DBL_DIG`/`LDBL_DIG` (from 1 below the smallest
//! normal number), whose text reads back as the same value, up to the digits that always
//! suffice. So `1` is `1`, `3.4028235e+38` keeps eight digits, and NaN is `nan` or `-nan`.
//!
//! `float` and `double` use Rust's exact formatting and parsing, which round as glibc's
//! `printf` and `strtod` do. The x87 80-bit `long double` has no Rust type: its digits come from
//! exact integer arithmetic, and "reads back" is decided by the rounding interval of the value.

use num_bigint::BigUint;

/// `%.{prec}g` from the first `prec` significant digits (already rounded) and the decimal
/// exponent of the first one: `%e` when the exponent is below -4 or at least `prec`, else
/// `%f`; trailing zeros and a trailing point removed, as without the `#` flag.
fn g_layout(negative: bool, digits: &str, exponent: i32, prec: usize) -> String {
    let mut out = String::new();
    if negative {
        out.push('-');
    }
    let prec_i = i32::try_from(prec).unwrap_or(i32::MAX);
    if exponent < -4 || exponent >= prec_i {
        let (first, rest) = digits.split_at(1);
        out.push_str(first);
        let rest = rest.trim_end_matches('0');
        if !rest.is_empty() {
            out.push('.');
            out.push_str(rest);
        }
        let sign = if exponent < 0 { '-' } else { '+' };
        out.push_str(&format!("e{sign}{:02}", exponent.unsigned_abs()));
    } else if exponent < 0 {
        let fraction = format!(
            "{}{digits}",
            "0".repeat(exponent.unsigned_abs() as usize - 1)
        );
        let fraction = fraction.trim_end_matches('0');
        out.push_str("0.");
        out.push_str(fraction);
    } else {
        let point = exponent as usize + 1;
        let (int, fraction) = digits.split_at(point.min(digits.len()));
        out.push_str(int);
        let fraction = fraction.trim_end_matches('0');
        if !fraction.is_empty() {
            out.push('.');
            out.push_str(fraction);
        }
    }
    out
}

/// `%.{prec}g` of a finite, non-negative `f64` (an `f32` widens exactly).
fn g_of_f64(value: f64, negative: bool, prec: usize) -> String {
    let e_form = format!("{:.*e}", prec - 1, value);
    let (mantissa, exponent) = e_form.split_once('e').unwrap_or((&e_form, "0"));
    let digits: String = mantissa.chars().filter(char::is_ascii_digit).collect();
    g_layout(negative, &digits, exponent.parse().unwrap_or(0), prec)
}

fn special(negative: bool, nan: bool) -> String {
    let word = if nan { "nan" } else { "inf" };
    if negative {
        format!("-{word}")
    } else {
        word.to_string()
    }
}

/// ftoastr for a value that widens exactly to `f64`: the first precision in `precisions`
/// whose `%g` text reads back (by `reads_back`) as the value, else the last.
fn shortest(
    value: f64,
    precisions: std::ops::RangeInclusive<usize>,
    reads_back: impl Fn(&str) -> bool,
) -> String {
    let last = *precisions.end();
    for prec in precisions {
        let text = g_of_f64(value.abs(), value.is_sign_negative(), prec);
        if prec == last || reads_back(&text) {
            return text;
        }
    }
    unreachable!("the loop returns at the last precision")
}

/// A 4-byte float (`-t fF`).
pub fn float32(x: f32) -> String {
    if !x.is_finite() {
        return special(x.is_sign_negative(), x.is_nan());
    }
    let start = if x.abs() < f32::MIN_POSITIVE { 1 } else { 6 };
    shortest(f64::from(x), start..=9, |text| {
        text.parse::<f32>().is_ok_and(|back| back == x)
    })
}

/// An 8-byte double (`-t fD`, the default of `-t f`).
pub fn float64(x: f64) -> String {
    if !x.is_finite() {
        return special(x.is_sign_negative(), x.is_nan());
    }
    let start = if x.abs() < f64::MIN_POSITIVE { 1 } else { 15 };
    shortest(x, start..=17, |text| {
        text.parse::<f64>().is_ok_and(|back| back == x)
    })
}

/// The x87 extended format in the first 10 of 16 bytes (little-endian): 64-bit significand
/// with an explicit integer bit, 15-bit exponent, sign.
pub fn float80(bytes: &[u8; 10]) -> String {
    let significand = u64::from_le_bytes(bytes[..8].try_into().unwrap_or([0; 8]));
    let top = u16::from_le_bytes([bytes[8], bytes[9]]);
    let negative = top & 0x8000 != 0;
    let exponent_field = i32::from(top & 0x7fff);
    let integer_bit = significand >> 63 == 1;
    if exponent_field == 0x7fff {
        // Infinity only with the integer bit set and nothing else; every other pattern
        // (NaNs, pseudo-infinities, pseudo-NaNs) glibc prints as NaN.
        let infinite = significand == 1 << 63;
        return special(negative, !infinite);
    }
    if exponent_field != 0 && !integer_bit {
        // An "unnormal": the FPU refuses it as an invalid operand; glibc prints NaN.
        return special(negative, true);
    }
    if significand == 0 {
        return if negative { "-0" } else { "0" }.to_string();
    }
    // value = significand × 2^scale; a (pseudo-)denormal has the scale of exponent 1.
    let scale = exponent_field.max(1) - 16383 - 63;
    let value = Binary { significand, scale };
    let subnormal = exponent_field == 0 && !integer_bit;
    let start = if subnormal { 1 } else { 18 };
    // A pseudo-denormal (exponent 0, integer bit set) compares as its value, but glibc prints
    // it from the fraction bits alone when there are any (measured: 0x8000000000000001 prints
    // 2^-16445, 0x8000000000000000 prints 2^-16382), so it never reads back and gets all 21
    // digits.
    let fraction = significand & !(1 << 63);
    let shown = if exponent_field == 0 && integer_bit && fraction != 0 {
        Binary {
            significand: fraction,
            scale,
        }
    } else {
        Binary { significand, scale }
    };
    let exact = shown.decimal();
    for prec in start..=21 {
        let (digits, exponent) = exact.rounded(prec);
        let text = g_layout(negative, &digits, exponent, prec);
        if prec == 21 || value.reads_back(&digits, exponent) {
            return text;
        }
    }
    unreachable!("the loop returns at precision 21")
}

/// A positive binary value `significand × 2^scale`.
struct Binary {
    significand: u64,
    scale: i32,
}

/// An exact decimal expansion: `0.d₁d₂… × 10^(exponent + 1)`, i.e. `exponent` is that of `d₁`.
struct Decimal {
    digits: Vec<u8>,
    exponent: i32,
}

impl Binary {
    fn decimal(&self) -> Decimal {
        // m × 2^s = m × 5^-s / 10^-s for s < 0, so the digits are those of an integer.
        let (integer, point_shift) = if self.scale >= 0 {
            (BigUint::from(self.significand) << self.scale as usize, 0)
        } else {
            let k = self.scale.unsigned_abs();
            (
                BigUint::from(self.significand) * BigUint::from(5u8).pow(k),
                i32::try_from(k).unwrap_or(i32::MAX),
            )
        };
        let digits: Vec<u8> = integer.to_str_radix(10).into_bytes();
        let exponent = i32::try_from(digits.len()).unwrap_or(i32::MAX) - 1 - point_shift;
        Decimal { digits, exponent }
    }

    /// Whether `0.digits × 10^(exponent+1)` rounds (to nearest, ties to even) back to this
    /// value among 64-bit significands: it must lie strictly inside the interval halfway to
    /// the neighbours, or on its edge when the significand is even.
    fn reads_back(&self, digits: &str, exponent: i32) -> bool {
        let m = self.significand;
        let d = BigUint::parse_bytes(digits.as_bytes(), 10).unwrap_or_default();
        // d × 10^q is the decimal; the edges are (2m ± 1) × 2^(scale - 1), or below a power
        // of two (4m - 1) × 2^(scale - 2) where the spacing halves.
        let q = exponent - (i32::try_from(digits.len()).unwrap_or(i32::MAX) - 1);
        let power_of_two_edge = m == 1 << 63 && self.scale > -16445;
        let (low, low_shift) = if power_of_two_edge {
            (BigUint::from(m) * 4u8 - 1u8, self.scale - 2)
        } else {
            (BigUint::from(m) * 2u8 - 1u8, self.scale - 1)
        };
        let high = BigUint::from(m) * 2u8 + 1u8;
        let even = m.is_multiple_of(2);
        let above_low = compare(&d, q, &low, low_shift);
        let below_high = compare(&d, q, &high, self.scale - 1);
        let inside_low = above_low.is_gt() || (even && above_low.is_eq());
        let inside_high = below_high.is_lt() || (even && below_high.is_eq());
        inside_low && inside_high
    }
}

/// Compares `d × 10^q` with `b × 2^s` exactly.
fn compare(d: &BigUint, q: i32, b: &BigUint, s: i32) -> std::cmp::Ordering {
    let mut left = d.clone();
    let mut right = b.clone();
    if q >= 0 {
        left *= BigUint::from(10u8).pow(q.unsigned_abs());
    } else {
        right *= BigUint::from(10u8).pow(q.unsigned_abs());
    }
    if s >= 0 {
        right <<= s as usize;
    } else {
        left <<= s.unsigned_abs() as usize;
    }
    left.cmp(&right)
}

impl Decimal {
    /// The first `prec` significant digits rounded to nearest, ties to even (the expansion is
    /// exact, so a tie is a real tie), and the exponent of the first digit after rounding.
    fn rounded(&self, prec: usize) -> (String, i32) {
        let mut kept: Vec<u8> = self.digits.iter().take(prec).copied().collect();
        kept.resize(prec, b'0');
        let rest = self.digits.get(prec..).unwrap_or(&[]);
        let round_up = match rest.first() {
            Some(b'5') => {
                rest[1..].iter().any(|&c| c != b'0') || kept.last().is_some_and(|&c| c % 2 == 1)
            }
            Some(&c) => c > b'5',
            None => false,
        };
        let mut exponent = self.exponent;
        if round_up {
            let mut i = kept.len();
            loop {
                if i == 0 {
                    kept.insert(0, b'1');
                    kept.truncate(prec);
                    exponent += 1;
                    break;
                }
                i -= 1;
                if kept[i] == b'9' {
                    kept[i] = b'0';
                } else {
                    kept[i] += 1;
                    break;
                }
            }
        }
        (String::from_utf8(kept).unwrap_or_default(), exponent)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ld(hex_le: [u8; 10]) -> String {
        float80(&hex_le)
    }

    // Expected texts: GNU od 9.1 (`od -An -tfF`, `-tfD`, `-tfL`) on x86_64, values as bytes.
    #[test]
    fn floats_print_as_gnu_od() {
        assert_eq!(float32(1.0), "1");
        assert_eq!(float32(f32::MAX), "3.4028235e+38");
        assert_eq!(float32(f32::from_bits(1)), "1e-45");
        assert_eq!(float32(f32::from_bits(0x7fc0_0000)), "nan");
        assert_eq!(float32(f32::from_bits(0x0063_6261)), "9.127006e-39");
        assert_eq!(float32(-0.0), "-0");
        assert_eq!(float32(100_000.0), "100000");
        assert_eq!(float32(1_000_000.0), "1e+06");
        assert_eq!(float32(0.0001), "0.0001");
        assert_eq!(float32(0.00001), "1e-05");
        assert_eq!(
            float64(f64::from_bits(0x7fc0_0000_3f80_0000)),
            "2.247116950146618e+307"
        );
        assert_eq!(
            float64(f64::from_bits(0x0000_0001_7f7f_ffff)),
            "3.178849163e-314"
        );
        assert_eq!(float64(f64::NEG_INFINITY), "-inf");
    }

    #[test]
    fn long_doubles_print_as_gnu_od() {
        assert_eq!(ld([0, 0, 0, 0, 0, 0, 0, 0x80, 0xff, 0x3f]), "1");
        assert_eq!(ld([0, 0, 0, 0, 0, 0, 0, 0x00, 0xff, 0x3f]), "nan");
        assert_eq!(ld([0, 0, 0, 0, 0, 0, 0, 0x00, 0xff, 0xbf]), "-nan");
        assert_eq!(ld([0, 0, 0, 0, 0, 0, 0, 0x80, 0xff, 0x7f]), "inf");
        assert_eq!(ld([0, 0, 0, 0, 0, 0, 0, 0x00, 0xff, 0x7f]), "nan");
        assert_eq!(ld([1, 0, 0, 0, 0, 0, 0, 0x00, 0, 0]), "4e-4951");
        assert_eq!(
            ld([1, 0, 0, 0, 0, 0, 0, 0x80, 0, 0]),
            "3.64519953188247460253e-4951"
        );
        assert_eq!(
            ld([0xab, 0xcd, 0, 0, 0, 0, 0, 0xc0, 0x12, 0x40]),
            "786432.00000000299286"
        );
        assert_eq!(
            ld([0, 0, 0, 0, 0, 0, 0, 0x80, 0, 0]),
            "3.3621031431120935063e-4932"
        );
        assert_eq!(
            ld([3, 0, 0, 0, 0, 0, 0, 0x80, 0, 0]),
            "1.09355985956474238076e-4950"
        );
    }
}
