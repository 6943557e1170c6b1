//! `sleep`: waits through the host so that cancelling the action (timeout) ends it at once;
//! WASI's own `poll_oneoff` sleep cannot be interrupted.

use std::ffi::OsString;
use std::time::Duration;

pub fn main(args: Vec<OsString>) -> i32 {
    let mut total = 0f64;
    let operands: Vec<String> = args
        .iter()
        .skip(1)
        .map(|a| a.to_string_lossy().into_owned())
        .collect();
    if operands.is_empty() {
        eprint!("{}", gnu::usage::report("sleep", "missing operand"));
        return 1;
    }
    for op in &operands {
        match parse_duration(op) {
            Some(s) => total += s,
            None => {
                let message = format!("invalid time interval {}", gnu::quote::locale(op));
                eprint!("{}", gnu::usage::report("sleep", &message));
                return 1;
            }
        }
    }
    let d = Duration::from_secs_f64(total.min(1e9));
    match hostcalls::sleep(d) {
        Ok(()) => 0,
        Err(_) => 130,
    }
}

/// GNU syntax: a number with an optional suffix s, m, h or d.
fn parse_duration(s: &str) -> Option<f64> {
    let (num, mult) = match s.chars().last()? {
        's' => (&s[..s.len() - 1], 1.0),
        'm' => (&s[..s.len() - 1], 60.0),
        'h' => (&s[..s.len() - 1], 3600.0),
        'd' => (&s[..s.len() - 1], 86400.0),
        _ => (s, 1.0),
    };
    let v: f64 = num.parse().ok()?;
    (v >= 0.0 && v.is_finite()).then_some(v * mult)
}

#[cfg(test)]
mod tests {
    #[test]
    fn durations() {
        assert_eq!(super::parse_duration("1.5"), Some(1.5));
        assert_eq!(super::parse_duration("2m"), Some(120.0));
        assert_eq!(super::parse_duration("x"), None);
        assert_eq!(super::parse_duration("-1"), None);
    }
}
