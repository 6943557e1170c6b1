//! The `time` keyword's report, in bash's `TIMEFORMAT` language: `%[p][l]R` (elapsed), `U`
//! and `S` (CPU time in user and system mode), `%P` (CPU percentage), `%%`.

use std::time::Duration;

/// bash's report when `TIMEFORMAT` is unset.
pub const DEFAULT_FORMAT: &str = "\nreal\t%3lR\nuser\t%3lU\nsys\t%3lS";
/// `time -p`'s report (POSIX).
pub const POSIX_FORMAT: &str = "real %2R\nuser %2U\nsys %2S";

/// The report for a pipeline that took `real`. The guest cannot read its CPU time (WASI has
/// no process clock), so user and system time are reported as 0: most actions are short, and
/// bash itself then prints zeros.
pub fn report(format: &str, real: Duration) -> String {
    let user = Duration::ZERO;
    let system = Duration::ZERO;
    let mut out = String::new();
    let mut chars = format.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '%' {
            out.push(c);
            continue;
        }
        let mut precision = 3;
        if let Some(d) = chars.peek().and_then(|d| d.to_digit(10)) {
            precision = d.min(3) as usize;
            chars.next();
        }
        let long = chars.peek() == Some(&'l');
        if long {
            chars.next();
        }
        match chars.next() {
            Some('%') => out.push('%'),
            Some('R') => out.push_str(&seconds(real, precision, long)),
            Some('U') => out.push_str(&seconds(user, precision, long)),
            Some('S') => out.push_str(&seconds(system, precision, long)),
            Some('P') => {
                let cpu = (user + system).as_secs_f64();
                let percent = if real.is_zero() {
                    0.0
                } else {
                    cpu * 100.0 / real.as_secs_f64()
                };
                out.push_str(&format!("{percent:.precision$}"));
            }
            // bash prints an unknown escape as it is.
            Some(other) => {
                out.push('%');
                out.push(other);
            }
            None => out.push('%'),
        }
    }
    out.push('\n');
    out
}

/// `d` with `precision` decimals, truncated as bash does, as `1.250` or (long) `0m1.250s`.
fn seconds(d: Duration, precision: usize, long: bool) -> String {
    let whole = d.as_secs();
    let fraction = (d.subsec_millis() as u64) / 10u64.pow(3 - precision as u32);
    let decimals = if precision == 0 {
        String::new()
    } else {
        format!(".{fraction:0precision$}")
    };
    if long {
        format!("{}m{}{decimals}s", whole / 60, whole % 60)
    } else {
        format!("{whole}{decimals}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_as_bash() {
        let d = Duration::from_millis(65_432);
        assert_eq!(
            report(DEFAULT_FORMAT, d),
            "\nreal\t1m5.432s\nuser\t0m0.000s\nsys\t0m0.000s\n"
        );
        assert_eq!(report(POSIX_FORMAT, d), "real 65.43\nuser 0.00\nsys 0.00\n");
        assert_eq!(report("%0R|%1lR|100%%|%x", d), "65|1m5.4s|100%|%x\n");
    }
}
