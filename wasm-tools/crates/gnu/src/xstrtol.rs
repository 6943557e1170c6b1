//! gnulib's `xstrtoumax`, with which coreutils reads sizes and counts (`od -j 1K`, `-N 0x10`),
//! and `xstrtol_fatal`'s wording of its failures (`invalid -j argument 'x'`, `invalid suffix in
//! --skip-bytes argument '5q'`, `-N argument '99…9' too large`).

/// Why a number was refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NumError {
    /// No number, or a minus sign.
    Invalid,
    /// A character after the number that is not an accepted suffix.
    InvalidSuffix,
    /// The value does not fit 64 bits.
    Overflow,
}

/// Reads `s` as `xstrtoumax(s, NULL, base, &v, suffixes)` does: leading blanks, an optional
/// `+`, digits in `base` (0: C prefixes `0x` and `0`), then at most one multiplier from
/// `suffixes` (`b` 512, `B` 1024 alone, `K k M m G g T t P E Z Y` powers of 1024, `c` 1, `w` 2).
/// A `0` in `suffixes` also allows `KiB` (1024) and `KB`/`KD` (1000) spellings. A suffix with
/// no number before it counts 1 of it. `None` for `suffixes` takes no suffix at all (anything
/// left over is then ignored, as gnulib does).
pub fn xstrtoumax(s: &str, base: u32, suffixes: Option<&str>) -> Result<u64, NumError> {
    let trimmed = s.trim_start_matches([' ', '\t', '\n', '\x0b', '\x0c', '\r']);
    if trimmed.starts_with('-') {
        return Err(NumError::Invalid);
    }
    let (value, rest, mut overflow) = strtoumax(trimmed, base);
    let value = match value {
        Some(v) => v,
        None => match (suffixes, rest.chars().next()) {
            (Some(valid), Some(c)) if valid.contains(c) => 1,
            _ => return Err(NumError::Invalid),
        },
    };
    let Some(valid) = suffixes else {
        return if overflow {
            Err(NumError::Overflow)
        } else {
            Ok(value)
        };
    };
    let Some(first) = rest.chars().next() else {
        return if overflow {
            Err(NumError::Overflow)
        } else {
            Ok(value)
        };
    };
    if !valid.contains(first) {
        return Err(NumError::InvalidSuffix);
    }
    let bytes = rest.as_bytes();
    let mut power_base: u64 = 1024;
    let mut suffix_len = 1;
    if "EGgkKMmPTtYZ".contains(first) && valid.contains('0') {
        match bytes.get(1) {
            Some(b'i') if bytes.get(2) == Some(&b'B') => suffix_len += 2,
            Some(b'B' | b'D') => {
                power_base = 1000;
                suffix_len += 1;
            }
            _ => {}
        }
    }
    let multiplier = match first {
        'b' => Some(512),
        'B' => Some(1024),
        'c' => Some(1),
        'w' => Some(2),
        'k' | 'K' => power_base.checked_pow(1),
        'M' | 'm' => power_base.checked_pow(2),
        'G' | 'g' => power_base.checked_pow(3),
        'T' | 't' => power_base.checked_pow(4),
        'P' => power_base.checked_pow(5),
        'E' => power_base.checked_pow(6),
        'Z' => power_base.checked_pow(7),
        'Y' => power_base.checked_pow(8),
        _ => return Err(NumError::InvalidSuffix),
    };
    let scaled = multiplier.and_then(|m| value.checked_mul(m));
    overflow |= scaled.is_none();
    if rest.len() > suffix_len {
        return Err(NumError::InvalidSuffix);
    }
    match scaled {
        Some(v) if !overflow => Ok(v),
        _ => Err(NumError::Overflow),
    }
}

/// C's `strtoumax` on text without leading blanks or sign other than `+`: the value (`None`
/// when no digit was read), the rest of the text, and whether the value overflowed.
fn strtoumax(s: &str, base: u32) -> (Option<u64>, &str, bool) {
    let body = s.strip_prefix('+').unwrap_or(s);
    let bytes = body.as_bytes();
    let hex_prefix = bytes.len() > 2
        && bytes[0] == b'0'
        && matches!(bytes[1], b'x' | b'X')
        && (bytes[2] as char).is_ascii_hexdigit();
    let (radix, start) = match base {
        0 if hex_prefix => (16, 2),
        0 if bytes.first() == Some(&b'0') => (8, 0),
        0 => (10, 0),
        16 if hex_prefix => (16, 2),
        b => (b, 0),
    };
    let digits = body[start..]
        .chars()
        .take_while(|c| c.is_digit(radix))
        .count();
    if digits == 0 {
        return (None, s, false);
    }
    let mut value: u64 = 0;
    let mut overflow = false;
    for c in body[start..start + digits].chars() {
        let d = u64::from(c.to_digit(radix).unwrap_or(0));
        match value
            .checked_mul(u64::from(radix))
            .and_then(|v| v.checked_add(d))
        {
            Some(v) => value = v,
            None => {
                overflow = true;
                value = u64::MAX;
            }
        }
    }
    (Some(value), &body[start + digits..], overflow)
}

/// Reads `s` as `xstrtoimax(s, NULL, 10, &v, "")` does (what gnulib's `xdectoimax` reads):
/// leading blanks, an optional sign, decimal digits and nothing after them.
pub fn xstrtoimax(s: &str) -> Result<i64, NumError> {
    let body = s.trim_start_matches([' ', '\t', '\n', '\x0b', '\x0c', '\r']);
    let (negative, digits) = match body.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, body),
    };
    // strtoimax takes one sign, right before the digits.
    if negative && !digits.starts_with(|c: char| c.is_ascii_digit()) {
        return Err(NumError::Invalid);
    }
    let magnitude = i128::from(xstrtoumax(digits, 10, Some(""))?);
    i64::try_from(if negative { -magnitude } else { magnitude }).map_err(|_| NumError::Overflow)
}

/// `xstrtol_fatal`'s message for option `option` (as `-j` or `--skip-bytes`) and its argument.
pub fn message(err: NumError, option: &str, arg: &str) -> String {
    match err {
        NumError::Invalid => format!("invalid {option} argument '{arg}'"),
        NumError::InvalidSuffix => format!("invalid suffix in {option} argument '{arg}'"),
        NumError::Overflow => format!("{option} argument '{arg}' too large"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const OD: Option<&str> = Some("bEGKkMmPTYZ0");

    // Expected values: GNU od 9.1 (`od -j …`) and gnulib's documented multipliers.
    #[test]
    fn reads_numbers_and_multipliers_as_gnulib() {
        assert_eq!(xstrtoumax("010", 0, OD), Ok(8));
        assert_eq!(xstrtoumax("0x10", 0, OD), Ok(16));
        assert_eq!(xstrtoumax(" +12", 0, OD), Ok(12));
        assert_eq!(xstrtoumax("1K", 0, OD), Ok(1024));
        assert_eq!(xstrtoumax("1KiB", 0, OD), Ok(1024));
        assert_eq!(xstrtoumax("1kB", 0, OD), Ok(1000));
        assert_eq!(xstrtoumax("2b", 0, OD), Ok(1024));
        assert_eq!(xstrtoumax("M", 0, OD), Ok(1 << 20));
        assert_eq!(xstrtoumax("0x", 0, OD), Err(NumError::InvalidSuffix));
        assert_eq!(xstrtoumax("x", 0, OD), Err(NumError::Invalid));
        assert_eq!(xstrtoumax("-1", 0, OD), Err(NumError::Invalid));
        assert_eq!(xstrtoimax(" -5"), Ok(-5));
        assert_eq!(xstrtoimax("+7"), Ok(7));
        assert_eq!(xstrtoimax("-9223372036854775808"), Ok(i64::MIN));
        assert_eq!(xstrtoimax("9223372036854775808"), Err(NumError::Overflow));
        assert_eq!(xstrtoimax("5x"), Err(NumError::InvalidSuffix));
        assert_eq!(xstrtoimax("x"), Err(NumError::Invalid));
        assert_eq!(xstrtoimax("- 5"), Err(NumError::Invalid));
        assert_eq!(xstrtoumax("5q", 0, OD), Err(NumError::InvalidSuffix));
        assert_eq!(xstrtoumax("1KBx", 0, OD), Err(NumError::InvalidSuffix));
        assert_eq!(
            xstrtoumax("99999999999999999999999", 0, OD),
            Err(NumError::Overflow)
        );
        assert_eq!(xstrtoumax("1Y", 0, OD), Err(NumError::Overflow));
        assert_eq!(xstrtoumax("8x", 10, Some("")), Err(NumError::InvalidSuffix));
        assert_eq!(xstrtoumax("08", 10, Some("")), Ok(8));
    }

    #[test]
    fn words_failures_as_xstrtol_fatal() {
        assert_eq!(
            message(NumError::Invalid, "-j", "x"),
            "invalid -j argument 'x'"
        );
        assert_eq!(
            message(NumError::InvalidSuffix, "--skip-bytes", "5q"),
            "invalid suffix in --skip-bytes argument '5q'"
        );
        assert_eq!(
            message(NumError::Overflow, "-N", "1Y"),
            "-N argument '1Y' too large"
        );
    }
}
