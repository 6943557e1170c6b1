//! `od -t TYPE` strings checked before uutils' od sees them, so a bad one is refused in GNU's
//! words (`od: invalid character 'g' in type string 'g'`, `od: invalid type string 'x9';` and
//! `this system doesn't provide a 9-byte integral type`), status 1; uutils words them its own
//! way. The grammar is GNU's: letters `a c d f o u x`, a size after `d o u x` (digits or
//! `C S I L`) and after `f` (digits or `F D L`), each unit optionally followed by `z`.

use crate::od_args::{self, Arg};
use std::ffi::OsString;
use std::io::Write;

/// Integral sizes an x86_64 system provides (char, short, int, long).
const INTEGRAL: &[u64] = &[1, 2, 4, 8];
/// Floating point sizes (float, double, long double).
const FLOATING: &[u64] = &[4, 8, 16];

/// `Some(status)` when a type string is bad (the message is written).
pub fn check(args: &[OsString]) -> Option<i32> {
    for spec in type_strings(args) {
        if let Err(msg) = validate(&spec) {
            let _ = writeln!(std::io::stderr(), "od: {msg}");
            return Some(1);
        }
    }
    None
}

/// The values of `-t TYPE`, `-tTYPE`, `--format=TYPE` and `--format TYPE`, up to `--`.
fn type_strings(args: &[OsString]) -> Vec<String> {
    od_args::parse(args)
        .into_iter()
        .filter_map(|arg| match arg {
            Arg::Type(spec) => Some(spec),
            _ => None,
        })
        .collect()
}

fn validate(spec: &str) -> Result<(), String> {
    let bytes = spec.as_bytes();
    let mut i = 0;
    let bad_char = |c: u8| format!("invalid character '{}' in type string '{spec}'", c as char);
    while i < bytes.len() {
        let c = bytes[i];
        i += 1;
        match c {
            b'a' | b'c' => {}
            b'd' | b'o' | b'u' | b'x' | b'f' => {
                let floating = c == b'f';
                let digits = bytes[i..].iter().take_while(|b| b.is_ascii_digit()).count();
                if digits > 0 {
                    let text = &spec[i..i + digits];
                    i += digits;
                    let Ok(size) = text.parse::<u64>() else {
                        return Err(format!("invalid type string '{spec}'"));
                    };
                    let (sizes, kind) = if floating {
                        (FLOATING, "floating point")
                    } else {
                        (INTEGRAL, "integral")
                    };
                    if !sizes.contains(&size) {
                        return Err(format!(
                            "invalid type string '{spec}';\nthis system doesn't provide a {size}-byte {kind} type"
                        ));
                    }
                } else {
                    let letters: &[u8] = if floating { b"FDL" } else { b"CSIL" };
                    if bytes.get(i).is_some_and(|b| letters.contains(b)) {
                        i += 1;
                    }
                }
            }
            other => return Err(bad_char(other)),
        }
        if bytes.get(i) == Some(&b'z') {
            i += 1;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(a: &[&str]) -> Vec<OsString> {
        std::iter::once("od")
            .chain(a.iter().copied())
            .map(OsString::from)
            .collect()
    }

    // Expected messages: GNU od (coreutils 9.1) in the C locale.
    #[test]
    fn type_strings_in_gnu_words() {
        assert_eq!(
            validate("g").unwrap_err(),
            "invalid character 'g' in type string 'g'"
        );
        assert_eq!(
            validate("double").unwrap_err(),
            "invalid character 'b' in type string 'double'"
        );
        assert_eq!(
            validate("x9").unwrap_err(),
            "invalid type string 'x9';\nthis system doesn't provide a 9-byte integral type"
        );
        assert_eq!(
            validate("f2").unwrap_err(),
            "invalid type string 'f2';\nthis system doesn't provide a 2-byte floating point type"
        );
        assert_eq!(
            validate("a2").unwrap_err(),
            "invalid character '2' in type string 'a2'"
        );
        for good in ["x1z", "d8", "fL", "f16", "c", "a", "xC", "uL", "o2x4z"] {
            assert_eq!(validate(good), Ok(()), "{good}");
        }
    }

    #[test]
    fn finds_every_form_of_the_option() {
        assert_eq!(
            type_strings(&args(&[
                "-t",
                "x1",
                "-tg",
                "--format=c",
                "--format",
                "d",
                "f"
            ])),
            ["x1", "g", "c", "d"]
        );
        assert_eq!(
            type_strings(&args(&["-An", "-w8", "-vtd8", "--", "-tq"])),
            ["d8"]
        );
        assert_eq!(
            type_strings(&args(&["-j", "t", "-w", "x"])),
            Vec::<String>::new()
        );
    }
}
