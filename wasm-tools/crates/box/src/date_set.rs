//! `date -s DATE` / `date --set=DATE`. Upstream's container could not set the clock (Docker
//! grants no `CAP_SYS_TIME`), so GNU date answered "date: cannot set date: Operation not
//! permitted", printed the date it was given and exited 1; uu_date aborts on WASI
//! ("setting date not implemented"). Agents try it to make `find -mtime` or `cal` see another
//! day. An invalid date is uu_date's own "invalid date" error, as in GNU.

use std::ffi::OsString;
use std::io::Write;

/// `Some(status)` when `args` ask to set the clock.
pub fn run(args: &[OsString]) -> Option<i32> {
    let (shown, value) = shown_instead(args)?;
    let valid = matches!(
        parse_datetime::parse_datetime(&value),
        Ok(parse_datetime::ParsedDateTime::InRange(_))
    );
    if valid {
        let _ = writeln!(
            std::io::stderr(),
            "date: cannot set date: Operation not permitted"
        );
    }
    let status = uu_date::uumain(shown.into_iter());
    Some(if valid && status == 0 { 1 } else { status })
}

/// `args` with the date to set given as the date to show (`-d`), and that date.
fn shown_instead(args: &[OsString]) -> Option<(Vec<OsString>, String)> {
    let mut out = Vec::with_capacity(args.len());
    let mut value = None;
    let mut rest = args.iter().enumerate();
    while let Some((i, arg)) = rest.next() {
        let text = arg.to_string_lossy();
        if i == 0 || value.is_some() || text == "--" {
            out.push(arg.clone());
            if text == "--" {
                out.extend(rest.by_ref().map(|(_, a)| a.clone()));
            }
            continue;
        }
        if ["-d", "--date", "-f", "--file", "-r", "--reference"].contains(&text.as_ref()) {
            // An option whose value is the next word, whatever it looks like.
            out.push(arg.clone());
            out.extend(rest.next().map(|(_, a)| a.clone()));
            continue;
        }
        let given = if text == "-s" || text == "--set" {
            rest.next().map(|(_, a)| a.to_string_lossy().into_owned())
        } else if let Some(v) = text.strip_prefix("--set=") {
            Some(v.to_string())
        } else if let Some(v) = text.strip_prefix("-s").filter(|v| !v.is_empty()) {
            Some(v.to_string())
        } else {
            out.push(arg.clone());
            continue;
        };
        let given = given?;
        out.push("-d".into());
        out.push(given.clone().into());
        value = Some(given);
    }
    Some((out, value?))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(args: &[&str]) -> Vec<OsString> {
        args.iter().map(OsString::from).collect()
    }

    #[test]
    fn every_spelling_of_set_becomes_a_date_to_show() {
        for args in [
            &["date", "-s", "01 dec 2120"][..],
            &["date", "--set", "01 dec 2120"],
            &["date", "--set=01 dec 2120"],
            &["date", "-s01 dec 2120"],
        ] {
            let (shown, value) = shown_instead(&words(args)).unwrap();
            assert_eq!(shown, words(&["date", "-d", "01 dec 2120"]), "{args:?}");
            assert_eq!(value, "01 dec 2120");
        }
        let (shown, _) = shown_instead(&words(&["date", "-u", "-s", "x", "+%F"])).unwrap();
        assert_eq!(shown, words(&["date", "-u", "-d", "x", "+%F"]));
    }

    #[test]
    fn other_dates_are_left_alone() {
        assert!(shown_instead(&words(&["date", "+%s"])).is_none());
        assert!(shown_instead(&words(&["date", "-d", "-s"])).is_none());
        assert!(shown_instead(&words(&["date", "--", "-s"])).is_none());
        assert!(shown_instead(&words(&["date", "-s"])).is_none());
    }
}
