//! `date +FORMAT` read as GNU date 8.32 reads it. uu_date formats with chrono's strftime, which
//! knows conversions GNU does not (`%f` fractional seconds, `%i`, `%+`…) and not GNU's `E`/`O`
//! modifiers (`%Ey`, `%Od`). GNU prints an unknown conversion as it was written and ignores
//! the modifiers, so before uu_date sees the format, unknown conversions are escaped (`%%f`)
//! and modifiers dropped. A second operand is GNU's "extra operand" usage error.

use std::ffi::OsString;
use std::io::Write;

/// The conversions of GNU date 8.32.
const GNU_CONVERSIONS: &[u8] = b"aAbBcCdDeFgGhHIjklmMnNpPqrRsStTuUVwWxXyYzZ%";
/// Options of date that take a separate value.
const WITH_VALUE: &[&str] = &[
    "-d",
    "--date",
    "-f",
    "--file",
    "-r",
    "--reference",
    "-s",
    "--set",
];

/// `Err(status)` after GNU's usage error; else the arguments with the format rewritten.
pub fn prepare(args: Vec<OsString>) -> Result<Vec<OsString>, i32> {
    let mut operands = Vec::new();
    let mut skip_value = false;
    let mut options_end = false;
    for (i, arg) in args.iter().enumerate().skip(1) {
        let text = arg.to_string_lossy();
        if skip_value {
            skip_value = false;
            continue;
        }
        if !options_end && text.starts_with('-') && text.len() > 1 {
            options_end = text == "--";
            skip_value = WITH_VALUE.contains(&text.as_ref());
            continue;
        }
        operands.push(i);
    }
    if let Some(&extra) = operands.get(1) {
        let message = gnu::usage::extra_operand(&args[extra].to_string_lossy());
        let _ = write!(
            std::io::stderr(),
            "{}",
            gnu::usage::report("date", &message)
        );
        return Err(1);
    }
    let mut args = args;
    if let Some(&at) = operands.first()
        && let Some(format) = args[at].to_str().and_then(|f| f.strip_prefix('+'))
    {
        args[at] = OsString::from(format!("+{}", gnu_format(format)));
    }
    Ok(args)
}

/// `format` with the conversions GNU does not know escaped and `E`/`O` modifiers dropped.
fn gnu_format(format: &str) -> String {
    let b = format.as_bytes();
    let mut out = String::with_capacity(format.len() + 4);
    let mut i = 0;
    while i < b.len() {
        if b[i] != b'%' {
            let next = format[i..].find('%').map_or(b.len(), |n| i + n);
            out.push_str(&format[i..next]);
            i = next;
            continue;
        }
        // %, flags, width, colons (for %:z), a modifier, the conversion.
        let mut j = i + 1;
        while j < b.len() && b"-_0^#".contains(&b[j]) {
            j += 1;
        }
        while j < b.len() && b[j].is_ascii_digit() {
            j += 1;
        }
        while j < b.len() && b[j] == b':' {
            j += 1;
        }
        let modifier = j < b.len() && (b[j] == b'E' || b[j] == b'O');
        let conversion_at = if modifier { j + 1 } else { j };
        match b.get(conversion_at) {
            Some(c) if GNU_CONVERSIONS.contains(c) => {
                out.push_str(&format[i..j]);
                out.push(char::from(*c));
                i = conversion_at + 1;
            }
            // Unknown (or cut short): GNU prints the `%` and goes on from the next byte.
            _ => {
                out.push_str("%%");
                i += 1;
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unknown_conversions_are_literal_and_modifiers_are_dropped() {
        assert_eq!(gnu_format("%f-%t|%J"), "%%f-%t|%%J");
        assert_eq!(gnu_format("%Ey%Od%5N"), "%y%d%5N");
        assert_eq!(gnu_format("%-d %_H %^a %#Z %:z"), "%-d %_H %^a %#Z %:z");
        assert_eq!(gnu_format("100%"), "100%%");
        assert_eq!(gnu_format("%%f"), "%%f");
    }

    #[test]
    fn a_second_operand_is_extra() {
        let args = |v: &[&str]| v.iter().map(OsString::from).collect::<Vec<_>>();
        assert_eq!(prepare(args(&["date", "+%f", "%t"])), Err(1));
        assert_eq!(
            prepare(args(&["date", "-d", "@0", "+%f"])),
            Ok(args(&["date", "-d", "@0", "+%%f"]))
        );
    }
}
