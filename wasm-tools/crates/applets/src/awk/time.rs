//! `strftime` and `mktime` as mawk 1.3.4 provides them, in UTC: the sandbox, like upstream's
//! containers (no `TZ`, no `/etc/localtime`), runs on UTC, so `%Z` is `UTC` and `%z` `+0000`.

use crate::common::time::civil_from_days;

/// (year, month, day) → days since 1970-01-01, as mktime counts: a month outside 1..=12 moves
/// the year, and a day outside the month runs on into the next ones.
fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = y + (m - 1).div_euclid(12);
    let m = (m - 1).rem_euclid(12) + 1;
    crate::common::time::days_from_civil(y, m as u32, 1) + (d - 1)
}

fn is_leap(y: i64) -> bool {
    (y % 4 == 0 && y % 100 != 0) || y % 400 == 0
}

struct Tm {
    year: i64,
    mon: u32,
    mday: u32,
    hour: i64,
    min: i64,
    sec: i64,
    /// 0 = Sunday.
    wday: i64,
    /// 0-based day of the year.
    yday: i64,
}

fn tm(t: i64) -> Tm {
    let days = t.div_euclid(86_400);
    let secs = t.rem_euclid(86_400);
    let (year, mon, mday) = civil_from_days(days);
    Tm {
        year,
        mon,
        mday,
        hour: secs / 3600,
        min: secs % 3600 / 60,
        sec: secs % 60,
        wday: (days + 4).rem_euclid(7),
        yday: days - days_from_civil(year, 1, 1),
    }
}

const DAYS: [&str; 7] = [
    "Sunday",
    "Monday",
    "Tuesday",
    "Wednesday",
    "Thursday",
    "Friday",
    "Saturday",
];
const MONTHS: [&str; 12] = [
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
];

/// ISO 8601 week-based year and week number.
fn iso_week(t: &Tm) -> (i64, i64) {
    let wday = (t.wday + 6) % 7; // Monday = 0
    let mut year = t.year;
    let mut week = (t.yday - wday + 10) / 7;
    if week < 1 {
        year -= 1;
        let prev_len = if is_leap(year) { 366 } else { 365 };
        week = (t.yday + prev_len - wday + 10) / 7;
    } else {
        // The week belongs to next year when its Thursday does.
        let len = if is_leap(year) { 366 } else { 365 };
        let thursday = t.yday - wday + 3;
        if thursday >= len {
            year += 1;
            week = 1;
        }
    }
    (year, week)
}

pub fn strftime(fmt: &[u8], t: i64) -> Vec<u8> {
    let tm = tm(t);
    let mut out = Vec::new();
    let mut i = 0;
    let h12 = |h: i64| if h % 12 == 0 { 12 } else { h % 12 };
    while i < fmt.len() {
        if fmt[i] != b'%' || i + 1 >= fmt.len() {
            out.push(fmt[i]);
            i += 1;
            continue;
        }
        let c = fmt[i + 1];
        i += 2;
        let s = match c {
            b'a' => DAYS[tm.wday as usize][..3].to_string(),
            b'A' => DAYS[tm.wday as usize].to_string(),
            b'b' | b'h' => MONTHS[(tm.mon - 1) as usize][..3].to_string(),
            b'B' => MONTHS[(tm.mon - 1) as usize].to_string(),
            b'c' => format!(
                "{} {} {:2} {:02}:{:02}:{:02} {}",
                &DAYS[tm.wday as usize][..3],
                &MONTHS[(tm.mon - 1) as usize][..3],
                tm.mday,
                tm.hour,
                tm.min,
                tm.sec,
                tm.year
            ),
            b'C' => format!("{:02}", tm.year.div_euclid(100)),
            b'd' => format!("{:02}", tm.mday),
            b'D' | b'x' => format!(
                "{:02}/{:02}/{:02}",
                tm.mon,
                tm.mday,
                tm.year.rem_euclid(100)
            ),
            b'e' => format!("{:2}", tm.mday),
            b'F' => format!("{}-{:02}-{:02}", tm.year, tm.mon, tm.mday),
            b'g' => format!("{:02}", iso_week(&tm).0.rem_euclid(100)),
            b'G' => iso_week(&tm).0.to_string(),
            b'H' => format!("{:02}", tm.hour),
            b'I' => format!("{:02}", h12(tm.hour)),
            b'j' => format!("{:03}", tm.yday + 1),
            b'k' => format!("{:2}", tm.hour),
            b'l' => format!("{:2}", h12(tm.hour)),
            b'm' => format!("{:02}", tm.mon),
            b'M' => format!("{:02}", tm.min),
            b'n' => "\n".into(),
            b'p' => (if tm.hour < 12 { "AM" } else { "PM" }).into(),
            b'P' => (if tm.hour < 12 { "am" } else { "pm" }).into(),
            b'r' => format!(
                "{:02}:{:02}:{:02} {}",
                h12(tm.hour),
                tm.min,
                tm.sec,
                if tm.hour < 12 { "AM" } else { "PM" }
            ),
            b'R' => format!("{:02}:{:02}", tm.hour, tm.min),
            b's' => t.to_string(),
            b'S' => format!("{:02}", tm.sec),
            b't' => "\t".into(),
            b'T' | b'X' => format!("{:02}:{:02}:{:02}", tm.hour, tm.min, tm.sec),
            b'u' => (if tm.wday == 0 { 7 } else { tm.wday }).to_string(),
            b'U' => format!("{:02}", (tm.yday + 7 - tm.wday) / 7),
            b'V' => format!("{:02}", iso_week(&tm).1),
            b'w' => tm.wday.to_string(),
            b'W' => format!("{:02}", (tm.yday + 7 - (tm.wday + 6) % 7) / 7),
            b'y' => format!("{:02}", tm.year.rem_euclid(100)),
            b'Y' => tm.year.to_string(),
            b'z' => "+0000".into(),
            b'Z' => "UTC".into(),
            b'%' => "%".into(),
            other => format!("%{}", other as char),
        };
        out.extend_from_slice(s.as_bytes());
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
        assert_eq!(civil_from_days(0), (1970, 1, 1));
    }
}
