//! `cal` and `ncal` (Debian's ncal package, bsdmainutils in Ubuntu 22.04).
//!
//! `cal` (and `ncal -C`/`-b`) prints months side by side with weeks as rows, Sunday first,
//! three months to a row (two with `-j`); `ncal` prints weekdays as rows, four months to a row.
//! Dates before 14 September 1752 are in the Julian calendar, as in Britain and its colonies
//! (`cal 9 1752` skips eleven days). Today is never highlighted: the sandbox's standard output
//! is not a terminal. Texts and status 64 (`EX_USAGE`) follow the host's `ncal`, which the
//! differential tests compare against.

use crate::common::getopt::{self, OptSpec, flag, with_arg};
use crate::common::io::run_main;
use crate::common::time::{
    MONTHS, Tm, days_from_civil, days_from_julian, julian_from_days, now_ns,
};
use crate::common::{Io, time};
use std::ffi::OsString;

pub fn main(args: Vec<OsString>) -> i32 {
    run_main(args, run)
}

const EX_USAGE: i32 = 64;

const USAGE: &str = "\
Usage: cal [general options] [-jy] [[month] year]
       cal [general options] [-j] [-m month] [year]
       ncal -C [general options] [-jy] [[month] year]
       ncal -C [general options] [-j] [-m month] [year]
       ncal [general options] [-bhJjpwySM] [-H yyyy-mm-dd] [-s country_code] [-W number of days] [[month] year]
       ncal [general options] [-Jeo] [year]
General options: [-31] [-A months] [-B months] [-d yyyy-mm]
";

/// Last day of the Julian calendar in the British switch, as a day number.
fn switch_day() -> i64 {
    days_from_julian(1752, 9, 2)
}

/// A calendar date's day number: Julian up to the switch, Gregorian after.
fn day_number(y: i64, m: u32, d: u32) -> i64 {
    let julian = days_from_julian(y, m, d);
    if julian <= switch_day() {
        julian
    } else {
        days_from_civil(y, m, d)
    }
}

/// Inverse of [`day_number`].
fn date_of(n: i64) -> (i64, u32, u32) {
    if n <= switch_day() {
        julian_from_days(n)
    } else {
        time::civil_from_days(n)
    }
}

/// Weekday of a day number, 0 = Sunday (1970-01-01 was a Thursday).
fn weekday(n: i64) -> i64 {
    (n + 4).rem_euclid(7)
}

/// One month laid out: its day cells (day of month, or of year with `-j`) in display order.
struct Month {
    name: &'static str,
    year: i64,
    /// Day number of the 1st and of the 1st of the next month.
    first: i64,
    last: i64,
    jan1: i64,
}

impl Month {
    fn new(year: i64, month: u32) -> Month {
        let (ny, nm) = if month == 12 {
            (year + 1, 1)
        } else {
            (year, month + 1)
        };
        Month {
            name: MONTHS[month as usize - 1],
            year,
            first: day_number(year, month, 1),
            last: day_number(ny, nm, 1),
            jan1: day_number(year, 1, 1),
        }
    }

    /// The cell for day number `n` (`dw` wide, right-aligned), blank outside the month.
    fn cell(&self, n: i64, julian_days: bool, dw: usize) -> String {
        if n < self.first {
            return " ".repeat(dw);
        }
        let v = if julian_days {
            n - self.jan1 + 1
        } else {
            i64::from(date_of(n).2)
        };
        format!("{v:>dw$}")
    }

    /// `cal` layout: row `i` (0..6) of the weeks, Sunday first, without its leading blank.
    fn week_row(&self, i: i64, julian_days: bool) -> String {
        let dw = if julian_days { 4 } else { 3 };
        let start = self.first - weekday(self.first) + 7 * i;
        let mut s = String::new();
        let mut n = start;
        while n < self.last && n < start + 7 {
            s.push_str(&self.cell(n, julian_days, dw));
            n += 1;
        }
        if s.is_empty() { s } else { s[1..].to_string() }
    }

    /// `ncal` layout: the row of weekday `wd` (offset from the first weekday shown).
    fn weekday_row(&self, wd: i64, week_start: i64, julian_days: bool) -> String {
        let dw = if julian_days { 4 } else { 3 };
        let back = (weekday(self.first) - week_start).rem_euclid(7);
        let mut n = self.first - back + wd;
        let mut s = String::new();
        while n < self.last {
            s.push_str(&self.cell(n, julian_days, dw));
            n += 7;
        }
        s
    }
}

/// Leading blanks that centre `s` in `w` columns (no trailing padding), as ncal's `center`.
fn center(s: &str, w: usize) -> String {
    format!("{}{s}", " ".repeat(w.saturating_sub(s.len()) / 2))
}

/// (year, month) `k` months after (`k` may be negative).
fn add_months(y: i64, m: u32, k: i64) -> (i64, u32) {
    let idx = y * 12 + i64::from(m) - 1 + k;
    (idx.div_euclid(12), (idx.rem_euclid(12) + 1) as u32)
}

struct Layout {
    backward: bool,
    julian_days: bool,
    monday_first: bool,
}

/// `cal`: rows of `mpl` months side by side.
fn print_backward(out: &mut String, lay: &Layout, y: i64, m: u32, before: i64, after: i64) {
    let (mpl, mw) = if lay.julian_days { (2, 27) } else { (3, 20) };
    let (y, m) = add_months(y, m, -before);
    let total = before + after + 1;
    // A year heading when the months fill at least one row, starting at its first column.
    let header = total >= mpl && (m as i64 - 1) % mpl == 0;
    let mut prev_year = None;
    let mut k = 0;
    while k < total {
        let count = mpl.min(total - k);
        let months: Vec<Month> = (0..count)
            .map(|i| {
                let (yy, mm) = add_months(y, m, k + i);
                Month::new(yy, mm)
            })
            .collect();
        if k != 0 {
            out.push('\n');
        }
        if header && prev_year != Some(months[0].year) {
            out.push_str(&center(&months[0].year.to_string(), (mpl * mw) as usize));
            out.push('\n');
            prev_year = Some(months[0].year);
        }
        for mo in &months {
            let title = if header {
                mo.name.to_string()
            } else {
                format!("{} {}", mo.name, mo.year)
            };
            out.push_str(&format!(
                "{:<w$}  ",
                center(&title, mw as usize),
                w = mw as usize
            ));
        }
        out.push('\n');
        let sep = if lay.julian_days { " " } else { "" };
        for _ in &months {
            for d in ["Su", "Mo", "Tu", "We", "Th", "Fr", "Sa"] {
                out.push_str(&format!("{sep}{d} "));
            }
            out.push(' ');
        }
        out.push('\n');
        for i in 0..6 {
            for mo in &months {
                out.push_str(&format!(
                    "{:<w$}  ",
                    mo.week_row(i, lay.julian_days),
                    w = mw as usize
                ));
            }
            out.push('\n');
        }
        k += mpl;
    }
}

/// `ncal`: weekdays as rows, `mpl` months side by side.
fn print_vertical(out: &mut String, lay: &Layout, y: i64, m: u32, before: i64, after: i64) {
    let (mpl, mw) = if lay.julian_days { (3, 24) } else { (4, 18) };
    let (y, m) = add_months(y, m, -before);
    let total = before + after + 1;
    // A year heading when the months fill at least one row, starting at its first column.
    let header = total >= mpl && (m as i64 - 1) % mpl == 0;
    let week_start = if lay.monday_first { 1 } else { 0 };
    let names = ["Su", "Mo", "Tu", "We", "Th", "Fr", "Sa"];
    let mut prev_year = None;
    let mut k = 0;
    while k < total {
        let count = mpl.min(total - k);
        let months: Vec<Month> = (0..count)
            .map(|i| {
                let (yy, mm) = add_months(y, m, k + i);
                Month::new(yy, mm)
            })
            .collect();
        if k != 0 {
            out.push('\n');
        }
        if header && prev_year != Some(months[0].year) {
            out.push_str(&center(&months[0].year.to_string(), (mpl * mw) as usize));
            out.push('\n');
            prev_year = Some(months[0].year);
        }
        out.push_str("    ");
        for mo in &months {
            if header {
                out.push_str(&format!("{:<w$}", mo.name, w = mw as usize));
            } else {
                let w = mw as usize - mo.name.len() - 1;
                out.push_str(&format!("{} {:<w$}", mo.name, mo.year));
            }
        }
        out.push('\n');
        for wd in 0..7 {
            out.push_str(names[((wd + week_start) % 7) as usize]);
            for mo in &months {
                out.push_str(&format!(
                    "{:<w$}",
                    mo.weekday_row(wd, week_start, lay.julian_days),
                    w = mw as usize
                ));
            }
            out.push('\n');
        }
        k += mpl;
    }
}

/// `strtol` on a whole argument: optional blanks and sign, digits, nothing after.
fn whole_number(s: &str) -> Option<i64> {
    let t = s.trim_start();
    let digits = t.strip_prefix(['+', '-']).unwrap_or(t);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let v: i64 = digits.parse().unwrap_or(i64::MAX);
    Some(if t.starts_with('-') { -v } else { v })
}

/// The leading number `strtol` would read, and the rest.
fn leading_number(s: &str) -> Option<(i64, &str)> {
    let t = s.trim_start();
    let body = t.strip_prefix(['+', '-']).unwrap_or(t);
    let n = body.bytes().take_while(u8::is_ascii_digit).count();
    if n == 0 {
        return None;
    }
    let v: i64 = body[..n].parse().unwrap_or(i64::MAX);
    Some((if t.starts_with('-') { -v } else { v }, &body[n..]))
}

/// ncal's `parsemonth`: a number (with `f`/`p` for next/previous year) or a month name or
/// abbreviation (what `strptime` `%B`/`%b` accept at the start). Returns (month, year).
fn parse_month(s: &str, cur_m: u32, cur_y: i64) -> Option<(u32, i64)> {
    if let Some((nm, rest)) = leading_number(s) {
        let ny = match rest {
            "" => cur_y,
            "f" | "F" if nm <= i64::from(cur_m) => cur_y + 1,
            "f" | "F" => cur_y,
            "p" | "P" if nm >= i64::from(cur_m) => cur_y - 1,
            "p" | "P" => cur_y,
            _ => return None,
        };
        return (1..=12).contains(&nm).then_some((nm as u32, ny));
    }
    let lower = s.to_ascii_lowercase();
    MONTHS
        .iter()
        .position(|name| {
            let name = name.to_ascii_lowercase();
            lower.starts_with(&name) || lower.starts_with(&name[..3])
        })
        .map(|i| (i as u32 + 1, cur_y))
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Key {
    Three,
    One,
    After,
    Before,
    Backward,
    Debug,
    NoHighlight,
    JulianDays,
    Month,
    Year,
    Monday,
    Sunday,
    Unsupported,
}

/// One option table for both names (as ncal has); the ncal-only options make `cal` print its
/// usage without an "invalid option" line.
fn specs() -> Vec<OptSpec<Key>> {
    vec![
        flag('3', "", Key::Three),
        flag('1', "", Key::One),
        with_arg('A', "", Key::After),
        with_arg('B', "", Key::Before),
        flag('C', "", Key::Backward),
        with_arg('d', "", Key::Debug),
        flag('j', "", Key::JulianDays),
        with_arg('m', "", Key::Month),
        flag('y', "", Key::Year),
        flag('b', "", Key::Backward),
        flag('h', "", Key::NoHighlight),
        flag('M', "", Key::Monday),
        flag('S', "", Key::Sunday),
        flag('J', "", Key::Unsupported),
        flag('e', "", Key::Unsupported),
        flag('o', "", Key::Unsupported),
        flag('p', "", Key::Unsupported),
        flag('w', "", Key::Unsupported),
        with_arg('H', "", Key::Unsupported),
        with_arg('s', "", Key::Unsupported),
        with_arg('W', "", Key::Unsupported),
    ]
}

/// Options only `ncal` has.
fn ncal_only(k: Key) -> bool {
    matches!(
        k,
        Key::NoHighlight | Key::Monday | Key::Sunday | Key::Unsupported
    )
}

fn usage(io: &mut Io) -> i32 {
    let _ = io.err.write_all(USAGE.as_bytes());
    EX_USAGE
}

pub fn run(args: &[String], io: &mut Io) -> i32 {
    let prog = args
        .first()
        .map(|a| a.rsplit('/').next().unwrap_or(a).to_string())
        .unwrap_or_else(|| "cal".into());
    let called_cal = prog.starts_with("cal");
    let fail = |io: &mut Io, msg: String| {
        let _ = writeln!(io.err, "{prog}: {msg}");
        EX_USAGE
    };
    let parsed = match getopt::parse(args, &specs(), getopt::Config::default()) {
        Ok(p) => p,
        Err(msg) => {
            let _ = writeln!(io.err, "{prog}: {msg}");
            return usage(io);
        }
    };
    let mut lay = Layout {
        backward: called_cal,
        julian_days: false,
        monday_first: false,
    };
    let (mut three, mut whole_year) = (false, false);
    let (mut after, mut before) = (0i64, 0i64);
    let mut month_opt: Option<String> = None;
    let mut today_opt: Option<String> = None;
    for o in &parsed.opts {
        let arg = o.arg.clone().unwrap_or_default();
        if called_cal && (ncal_only(o.key) || o.spelled == "-b") {
            return usage(io);
        }
        match o.key {
            Key::Three => three = true,
            Key::One => three = false,
            Key::After => after = leading_number(&arg).map_or(0, |n| n.0).max(0),
            Key::Before => before = leading_number(&arg).map_or(0, |n| n.0).max(0),
            Key::Backward => lay.backward = true,
            Key::Debug => today_opt = Some(arg),
            Key::NoHighlight => {}
            Key::JulianDays => lay.julian_days = true,
            Key::Month => month_opt = Some(arg),
            Key::Year => whole_year = true,
            Key::Monday => lay.monday_first = true,
            Key::Sunday => lay.monday_first = false,
            Key::Unsupported => return usage(io),
        }
    }
    let ops = &parsed.operands;
    if ops.len() > 2 {
        return usage(io);
    }
    // Today, from the clock or `-d yyyy-mm`.
    let now = Tm::from_ns(now_ns());
    let (mut y, mut m) = (now.year, now.month);
    if let Some(d) = &today_opt {
        y = leading_number(d).map_or(0, |n| n.0);
        m = d
            .get(5..)
            .and_then(leading_number)
            .map_or(0, |n| n.0.clamp(0, 12) as u32);
        if m == 0 {
            // Month 0 reads as December of the year before.
            y -= 1;
            m = 12;
        }
    }
    let given_month = ops.len() == 2;
    let given_year = !ops.is_empty();
    if let Some(yarg) = ops.last() {
        let Some(v) = whole_number(yarg) else {
            return fail(io, format!("not a valid year {yarg}"));
        };
        y = v;
    }
    if !(1..=9999).contains(&y) {
        let shown = ops.last().cloned().unwrap_or_else(|| y.to_string());
        return fail(io, format!("year `{shown}' not in range 1..9999"));
    }
    // A month operand takes the place of `-m`.
    let month_text = if given_month {
        Some(ops[0].clone())
    } else {
        month_opt.clone()
    };
    // `f`/`p` month suffixes count from today's month only when no operand is given.
    let cur_m = if ops.is_empty() { m } else { 0 };
    if let Some(t) = &month_text {
        match parse_month(t, cur_m, y) {
            Some((nm, ny)) => {
                m = nm;
                y = ny;
            }
            None => {
                return fail(
                    io,
                    format!("{t} is neither a month number (1..12) nor a name"),
                );
            }
        }
    }
    let any_month = given_month || month_opt.is_some();
    if three && given_year && !any_month && !whole_year {
        return fail(
            io,
            "-3 together with a given year but no given month is not supported.".into(),
        );
    }
    let (mut b, mut a) = (0, 0);
    if whole_year || (given_year && !any_month) {
        m = 1;
        a = 11;
    } else if three {
        b = 1;
        a = 1;
    }
    b += before;
    a += after;
    let mut out = String::new();
    if lay.backward {
        print_backward(&mut out, &lay, y, m, b, a);
    } else {
        print_vertical(&mut out, &lay, y, m, b, a);
    }
    let _ = io.out.write_all(out.as_bytes());
    0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn september_1752_skips_eleven_days() {
        let m = Month::new(1752, 9);
        assert_eq!(m.week_row(0, false), "       1  2 14 15 16");
        assert_eq!(m.week_row(0, true), "        245 246 247 248 249");
    }

    /// Upstream log (fs_4): `cal 06 2023`.
    #[test]
    fn june_2023_as_upstream_logged() {
        let argv: Vec<String> = ["cal", "06", "2023"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        let (code, out, _) = crate::common::io::capture_text(run, &argv, b"");
        assert_eq!(code, 0);
        assert_eq!(
            out,
            "     June 2023        \nSu Mo Tu We Th Fr Sa  \n             1  2  3  \n 4  5  6  7  8  9 10  \n11 12 13 14 15 16 17  \n18 19 20 21 22 23 24  \n25 26 27 28 29 30     \n                      \n"
        );
    }
}
