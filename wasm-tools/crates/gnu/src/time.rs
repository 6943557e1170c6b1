//! Calendar arithmetic and `strftime` for timestamps.
//!
//! The sandbox's zone is UTC (the host passes `TZ=UTC`, and upstream's containers had no
//! `TZ`, which glibc also treats as UTC), so every local time here *is* UTC and no zone
//! database is needed. Formats follow the C locale.

/// A broken-down UTC time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Tm {
    pub year: i64,
    /// 1–12.
    pub month: u32,
    /// 1–31.
    pub day: u32,
    pub hour: u32,
    pub min: u32,
    pub sec: u32,
    /// 0 = Sunday.
    pub wday: u32,
    /// 0-based day of the year.
    pub yday: u32,
    pub nanos: u32,
}

const DAY: i64 = 86_400;

/// Days since 1970-01-01 → (year, month, day), proleptic Gregorian.
pub fn civil_from_days(z: i64) -> (i64, u32, u32) {
    // Shift the epoch to 0000-03-01 so leap days fall at the end of each 400-year era.
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let y = yoe + era * 400 + i64::from(m <= 2);
    (y, m, d)
}

/// (year, month, day) → days since 1970-01-01.
pub fn days_from_civil(y: i64, m: u32, d: u32) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y.rem_euclid(400);
    let m = i64::from(m);
    let doy = (153 * (if m > 2 { m - 3 } else { m + 9 }) + 2) / 5 + i64::from(d) - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// Julian-calendar (year, month, day) → days since 1970-01-01 (Gregorian), for dates before
/// a country's switch to the Gregorian calendar (`cal 9 1752`). Same day numbering as
/// [`days_from_civil`], so the two calendars can be mixed on one axis.
pub fn days_from_julian(y: i64, m: u32, d: u32) -> i64 {
    // Count from 1 March of year 0 so the leap day ends each four-year cycle.
    let y = if m <= 2 { y - 1 } else { y };
    let m = i64::from(m);
    let doy = (153 * (if m > 2 { m - 3 } else { m + 9 }) + 2) / 5 + i64::from(d) - 1;
    let days_since_march_0 = y.div_euclid(4) * 1461 + y.rem_euclid(4) * 365 + doy;
    // 0000-03-01 (Julian) is 1970-01-01 minus 719_470 days.
    days_since_march_0 - 719_470
}

/// Inverse of [`days_from_julian`].
pub fn julian_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_470;
    let cycle = z.div_euclid(1461);
    let r = z.rem_euclid(1461);
    // The last year of a cycle is the leap one (366 days), so cap the year index at 3.
    let yoc = (r / 365).min(3);
    let doy = r - yoc * 365;
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let y = cycle * 4 + yoc + i64::from(m <= 2);
    (y, m, d)
}

pub fn is_leap(y: i64) -> bool {
    (y % 4 == 0 && y % 100 != 0) || y % 400 == 0
}

impl Tm {
    /// Breaks down seconds since the epoch (plus nanoseconds) in UTC.
    pub fn from_epoch(secs: i64, nanos: u32) -> Tm {
        let days = secs.div_euclid(DAY);
        let rem = secs.rem_euclid(DAY);
        let (year, month, day) = civil_from_days(days);
        let yday = (days - days_from_civil(year, 1, 1)) as u32;
        Tm {
            year,
            month,
            day,
            hour: (rem / 3600) as u32,
            min: (rem % 3600 / 60) as u32,
            sec: (rem % 60) as u32,
            wday: (days + 4).rem_euclid(7) as u32,
            yday,
            nanos,
        }
    }

    /// From a nanosecond timestamp as `hostcalls::Stat` carries it.
    pub fn from_ns(ns: i64) -> Tm {
        Tm::from_epoch(
            ns.div_euclid(1_000_000_000),
            ns.rem_euclid(1_000_000_000) as u32,
        )
    }

    pub fn epoch(&self) -> i64 {
        days_from_civil(self.year, self.month, self.day) * DAY
            + i64::from(self.hour) * 3600
            + i64::from(self.min) * 60
            + i64::from(self.sec)
    }
}

/// Full weekday names of the C locale, Sunday first.
pub const WDAYS: [&str; 7] = [
    "Sunday",
    "Monday",
    "Tuesday",
    "Wednesday",
    "Thursday",
    "Friday",
    "Saturday",
];
/// Full month names of the C locale.
pub const MONTHS: [&str; 12] = [
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

pub fn month_abbr(m: u32) -> &'static str {
    &MONTHS[(m as usize + 11) % 12][..3]
}

/// ISO 8601 week-based year and week number.
fn iso_week(tm: &Tm) -> (i64, u32) {
    let wday = (tm.wday + 6) % 7; // Monday = 0
    let yday = tm.yday as i64;
    let mut year = tm.year;
    let mut week = (yday - wday as i64 + 10) / 7;
    if week < 1 {
        year -= 1;
        let prev_days = if is_leap(year) { 366 } else { 365 };
        week = (yday + prev_days - wday as i64 + 10) / 7;
    } else {
        let days = if is_leap(year) { 366 } else { 365 };
        if week == 53 && (yday - wday as i64) >= days - 3 {
            year += 1;
            week = 1;
        }
    }
    (year, week as u32)
}

/// Formats one `strftime` conversion character (C locale, UTC). Unknown characters come
/// back as `None` so callers can apply their own rules.
pub fn strftime_one(c: char, tm: &Tm) -> Option<String> {
    let twelve = if tm.hour.is_multiple_of(12) {
        12
    } else {
        tm.hour % 12
    };
    Some(match c {
        'a' => WDAYS[tm.wday as usize][..3].to_string(),
        'A' => WDAYS[tm.wday as usize].to_string(),
        'b' | 'h' => month_abbr(tm.month).to_string(),
        'B' => MONTHS[tm.month as usize - 1].to_string(),
        'c' => strftime("%a %b %e %H:%M:%S %Y", tm),
        'C' => format!("{:02}", tm.year.div_euclid(100)),
        'd' => format!("{:02}", tm.day),
        'D' | 'x' => strftime("%m/%d/%y", tm),
        'e' => format!("{:2}", tm.day),
        'F' => format!("{}-{:02}-{:02}", tm.year, tm.month, tm.day),
        'g' => format!("{:02}", iso_week(tm).0.rem_euclid(100)),
        'G' => iso_week(tm).0.to_string(),
        'H' => format!("{:02}", tm.hour),
        'I' => format!("{twelve:02}"),
        'j' => format!("{:03}", tm.yday + 1),
        'k' => format!("{:2}", tm.hour),
        'l' => format!("{twelve:2}"),
        'm' => format!("{:02}", tm.month),
        'M' => format!("{:02}", tm.min),
        'n' => "\n".to_string(),
        'N' => format!("{:09}", tm.nanos),
        'p' => (if tm.hour < 12 { "AM" } else { "PM" }).to_string(),
        'P' => (if tm.hour < 12 { "am" } else { "pm" }).to_string(),
        'r' => strftime("%I:%M:%S %p", tm),
        'R' => strftime("%H:%M", tm),
        's' => tm.epoch().to_string(),
        'S' => format!("{:02}", tm.sec),
        't' => "\t".to_string(),
        'T' | 'X' => strftime("%H:%M:%S", tm),
        'u' => (if tm.wday == 0 { 7 } else { tm.wday }).to_string(),
        'U' => format!("{:02}", (tm.yday + 7 - tm.wday) / 7),
        'V' => format!("{:02}", iso_week(tm).1),
        'w' => tm.wday.to_string(),
        'W' => format!("{:02}", (tm.yday + 7 - (tm.wday + 6) % 7) / 7),
        'y' => format!("{:02}", tm.year.rem_euclid(100)),
        'Y' => tm.year.to_string(),
        'z' => "+0000".to_string(),
        'Z' => "UTC".to_string(),
        '+' => strftime("%a %b %e %H:%M:%S %Z %Y", tm),
        '%' => "%".to_string(),
        _ => return None,
    })
}

/// `strftime` for a whole format; unknown conversions are copied through.
pub fn strftime(fmt: &str, tm: &Tm) -> String {
    let mut out = String::new();
    let mut chars = fmt.chars();
    while let Some(c) = chars.next() {
        if c != '%' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some(k) => match strftime_one(k, tm) {
                Some(s) => out.push_str(&s),
                None => {
                    out.push('%');
                    out.push(k);
                }
            },
            None => out.push('%'),
        }
    }
    out
}

/// Dates as `find -newermt` and `tar --mtime` take them, in nanoseconds: `@SECONDS`,
/// `YYYY-MM-DD`, `YYYY-MM-DD HH:MM[:SS]` (also with `T`), in UTC. GNU accepts far more (it
/// uses `parse_datetime`); these are the forms seen in practice.
pub fn parse_date(s: &str) -> Option<i64> {
    let s = s.trim();
    if let Some(secs) = s.strip_prefix('@') {
        let v: f64 = secs.parse().ok()?;
        return Some((v * 1e9) as i64);
    }
    let (date, time) = match s.split_once([' ', 'T']) {
        Some((d, t)) => (d, Some(t.trim())),
        None => (s, None),
    };
    let mut d = date.split('-');
    let y: i64 = d.next()?.parse().ok()?;
    let m: u32 = d.next()?.parse().ok()?;
    let day: u32 = d.next()?.parse().ok()?;
    if d.next().is_some() || !(1..=12).contains(&m) || !(1..=31).contains(&day) {
        return None;
    }
    let mut secs = days_from_civil(y, m, day) * 86_400;
    if let Some(t) = time {
        let mut parts = t.split(':');
        let h: i64 = parts.next()?.parse().ok()?;
        let mi: i64 = parts.next().unwrap_or("0").parse().ok()?;
        let se: f64 = parts.next().unwrap_or("0").parse().ok()?;
        secs += h * 3600 + mi * 60;
        return Some(secs * 1_000_000_000 + (se * 1e9) as i64);
    }
    Some(secs * 1_000_000_000)
}

/// The current time in nanoseconds since the epoch (the host pins the sandbox clock).
pub fn now_ns() -> i64 {
    match std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH) {
        Ok(d) => d.as_nanos() as i64,
        Err(e) => -(e.duration().as_nanos() as i64),
    }
}

/// `ls -l` style date: `Mon DD HH:MM` for times within the last six months (and not in the
/// future), else `Mon DD  YYYY`. Six months is half of the Gregorian year, as in coreutils.
pub fn ls_date(ns: i64, now_ns: i64) -> String {
    const HALF_YEAR_NS: i64 = 31_556_952 / 2 * 1_000_000_000;
    let tm = Tm::from_ns(ns);
    if now_ns - HALF_YEAR_NS < ns && ns <= now_ns {
        strftime("%b %e %H:%M", &tm)
    } else {
        strftime("%b %e  %Y", &tm)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn civil_round_trip() {
        for days in [-800_000, -1, 0, 1, 59, 60, 365, 10_957, 19_500, 2_932_896] {
            let (y, m, d) = civil_from_days(days);
            assert_eq!(days_from_civil(y, m, d), days, "{y}-{m}-{d}");
        }
        assert_eq!(civil_from_days(0), (1970, 1, 1));
        assert_eq!(civil_from_days(19_478), (2023, 5, 1));
    }

    #[test]
    fn julian_calendar() {
        // The British switch: Wednesday 2 September 1752 (Julian) was followed by Thursday
        // 14 September 1752 (Gregorian).
        assert_eq!(
            days_from_julian(1752, 9, 2) + 1,
            days_from_civil(1752, 9, 14)
        );
        // Both calendars agree in the third century, and 1 January 1 (Julian) is JDN 1721424.
        assert_eq!(days_from_julian(200, 3, 1), days_from_civil(200, 3, 1));
        assert_eq!(days_from_julian(1, 1, 1), 1_721_424 - 2_440_588);
        for z in [-800_000, -719_000, -80_000, -1, 0, 59, 1461] {
            let (y, m, d) = julian_from_days(z);
            assert_eq!(days_from_julian(y, m, d), z, "{y}-{m}-{d}");
        }
        // 1700 was a leap year in the Julian calendar only.
        assert_eq!(
            days_from_julian(1700, 3, 1) - days_from_julian(1700, 2, 28),
            2
        );
        assert!(!is_leap(1700));
    }

    #[test]
    fn strftime_c_locale() {
        // 2023-05-01 10:00:00 UTC was a Monday.
        let tm = Tm::from_epoch(1_682_935_200, 123_456_789);
        assert_eq!(strftime("%c", &tm), "Mon May  1 10:00:00 2023");
        assert_eq!(
            strftime("%F %T %j %U %W %V %G %u %w %p %I", &tm),
            "2023-05-01 10:00:00 121 18 18 18 2023 1 1 AM 10"
        );
        assert_eq!(
            strftime("%D|%x|%Z|%z|%%|%q", &tm),
            "05/01/23|05/01/23|UTC|+0000|%|%q"
        );
    }

    #[test]
    fn iso_week_edges() {
        // 2021-01-01 (Friday) belongs to 2020-W53; 2024-12-30 (Monday) to 2025-W01.
        let tm = Tm::from_epoch(days_from_civil(2021, 1, 1) * DAY, 0);
        assert_eq!(strftime("%G-%V", &tm), "2020-53");
        let tm = Tm::from_epoch(days_from_civil(2024, 12, 30) * DAY, 0);
        assert_eq!(strftime("%G-%V", &tm), "2025-01");
    }

    #[test]
    fn ls_dates() {
        let now = 1_795_971_736_000_000_000;
        assert_eq!(ls_date(1_682_935_200_000_000_000, now), "May  1  2023");
        assert_eq!(ls_date(now - 60_000_000_000, now), "Nov 29 17:01");
    }
}
