//! `strftime` and `mktime` as mawk 1.3.4 provides them, in UTC: the sandbox, like upstream's
//! containers (no `TZ`, no `/etc/localtime`), runs on UTC, so `%Z` is `UTC` and `%z` `+0000`.

use crate::common::time::{Tm, strftime_one};

/// (year, month, day) → days since 1970-01-01, as mktime counts: a month outside 1..=12 moves
/// the year, and a day outside the month runs on into the next ones.
fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = y + (m - 1).div_euclid(12);
    let m = (m - 1).rem_euclid(12) + 1;
    crate::common::time::days_from_civil(y, m as u32, 1) + (d - 1)
}

/// glibc's `strftime(3)` on a byte string. `%N` and `%+` are `date`'s extensions, not the C
/// library's, so mawk prints them as written, like every other unknown conversion.
pub fn strftime(fmt: &[u8], t: i64) -> Vec<u8> {
    let tm = Tm::from_epoch(t, 0);
    let mut out = Vec::new();
    let mut i = 0;
    while i < fmt.len() {
        if fmt[i] != b'%' || i + 1 >= fmt.len() {
            out.push(fmt[i]);
            i += 1;
            continue;
        }
        let c = fmt[i + 1];
        i += 2;
        let known = match c {
            b'N' | b'+' => None,
            c if c.is_ascii() => strftime_one(char::from(c), &tm),
            _ => None,
        };
        match known {
            Some(s) => out.extend_from_slice(s.as_bytes()),
            None => out.extend_from_slice(&[b'%', c]),
        }
    }
    out
}

/// `mktime("YYYY MM DD HH MM SS [DST]")`: out-of-range fields are normalised as by C
/// `mktime`; -1 (None) for text that is not six numbers.
pub fn mktime(spec: &[u8]) -> Option<i64> {
    let text = String::from_utf8_lossy(spec);
    let nums: Vec<i64> = text
        .split_whitespace()
        .map(|w| w.parse::<i64>().ok())
        .collect::<Option<_>>()?;
    if nums.len() < 6 {
        return None;
    }
    let [y, mo, d, h, mi, s] = [nums[0], nums[1], nums[2], nums[3], nums[4], nums[5]];
    if [y, mo, d, h, mi, s].iter().any(|v| v.abs() > 1_000_000_000) {
        return None;
    }
    let days = days_from_civil(y, mo, d);
    Some(days * 86_400 + h * 3600 + mi * 60 + s)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats() {
        let t = 1_685_622_896; // Thu Jun  1 12:34:56 2023 UTC
        assert_eq!(
            String::from_utf8(strftime(
                b"%c|%x|%X|%D|%e|%j|%U|%W|%u|%w|%C|%g|%G|%V|%h|%I|%p|%Z|%z|%s|%k|%l",
                t
            ))
            .unwrap(),
            "Thu Jun  1 12:34:56 2023|06/01/23|12:34:56|06/01/23| 1|152|22|22|4|4|20|23|2023|22|Jun|12|PM|UTC|+0000|1685622896|12|12"
        );
        assert_eq!(mktime(b"2023 06 01 12 34 56"), Some(t));
        assert_eq!(mktime(b"2023 13 45 0 0 0"), Some(1_707_868_800));
        assert_eq!(mktime(b"bad"), None);
        assert_eq!(
            String::from_utf8(strftime(b"%N|%+|%q|%", t)).unwrap(),
            "%N|%+|%q|%"
        );
    }
}
