//! Backslash escapes, decoded once for every program that has them. The programs agree on the
//! core (`\a \b \f \n \r \t \v \\`) and differ at the edges: which other letters count, how
//! octal digits are read, whether `\x`, `\u` and `\cX` exist, whether `\c` ends the output.
//! Each program's rules are a [`Dialect`]; what a program does with an escape it does not know
//! (keep it, warn, drop the backslash) stays with the program, which sees [`Escape::Unknown`].
//!
//! The dialects below were measured on bash 5, dash, mawk, GNU find and GNU stat in the C
//! locale, the one upstream's containers ran in.

/// How octal escapes are written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Octal {
    /// `\NNN`, one to three digits (`$'…'`, printf's format, awk, find, stat).
    UpToThree,
    /// `\0NNN`: a zero, then up to three digits (bash's `echo -e`; `\101` is not an escape).
    AfterZero,
    /// Either form (printf's `%b`, dash's `echo`): `\0101` and `\101` are both `A`.
    Either,
}

/// One program's escapes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Dialect {
    /// Letters that stand for themselves or a control character beyond the core set: `e`/`E`
    /// (ESC), `'`, `"`, `?`.
    pub extra: &'static [u8],
    pub octal: Octal,
    /// `\xHH`, one or two hex digits.
    pub hex: bool,
    /// `\uHHHH` and `\UHHHHHHHH`.
    pub unicode: bool,
    /// `\cX`: the control character of `X` (`$'\cA'` is 0x01, `$'\c?'` is DEL).
    pub control: bool,
    /// `\c` ends the output (echo, `%b`, `find -printf`).
    pub stop_c: bool,
}

/// bash's `$'…'`.
pub const BASH_ANSI_C: Dialect = Dialect {
    extra: b"eE'\"?",
    octal: Octal::UpToThree,
    hex: true,
    unicode: true,
    control: true,
    stop_c: false,
};
/// The format string of bash's `printf`.
pub const BASH_PRINTF: Dialect = Dialect {
    extra: b"eE'\"?",
    octal: Octal::UpToThree,
    hex: true,
    unicode: true,
    control: false,
    stop_c: false,
};
/// An argument of bash's `printf %b`.
pub const BASH_PRINTF_B: Dialect = Dialect {
    extra: b"eE",
    octal: Octal::Either,
    hex: true,
    unicode: true,
    control: false,
    stop_c: true,
};
/// bash's `echo -e`.
pub const BASH_ECHO: Dialect = Dialect {
    extra: b"eE",
    octal: Octal::AfterZero,
    hex: true,
    unicode: true,
    control: false,
    stop_c: true,
};
/// dash's `echo`, which always interprets escapes.
pub const DASH_ECHO: Dialect = Dialect {
    extra: b"e",
    octal: Octal::Either,
    hex: false,
    unicode: false,
    control: false,
    stop_c: true,
};
/// mawk's string literals and command-line assignments.
pub const AWK: Dialect = Dialect {
    extra: b"\"",
    octal: Octal::UpToThree,
    hex: true,
    unicode: false,
    control: false,
    stop_c: false,
};
/// GNU find's `-printf` (and `-fprintf`).
pub const FIND: Dialect = Dialect {
    extra: b"",
    octal: Octal::UpToThree,
    hex: false,
    unicode: false,
    control: false,
    stop_c: true,
};
/// GNU stat's `--printf`.
pub const STAT: Dialect = Dialect {
    extra: b"e\"",
    octal: Octal::UpToThree,
    hex: true,
    unicode: false,
    control: false,
    stop_c: false,
};

/// What one escape stands for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Escape {
    Byte(u8),
    /// A `\u`/`\U` code point of 0x80 or more, which the C locale cannot print as a character;
    /// [`code_point_text`] is how bash writes it there.
    CodePoint(u32),
    /// `\c`: nothing more is printed.
    Stop,
    /// Not an escape in this dialect (or nothing follows the backslash); the caller decides
    /// whether the backslash stays.
    Unknown,
}

/// Decodes the escape whose text (after the backslash) starts `rest`. Returns what it stands
/// for and how many bytes of `rest` it used (0 for [`Escape::Unknown`]).
pub fn decode_one(rest: &[u8], dialect: &Dialect) -> (Escape, usize) {
    let Some(&c) = rest.first() else {
        return (Escape::Unknown, 0);
    };
    let byte = |b: u8| (Escape::Byte(b), 1);
    match c {
        b'a' => byte(0x07),
        b'b' => byte(0x08),
        b'f' => byte(0x0c),
        b'n' => byte(b'\n'),
        b'r' => byte(b'\r'),
        b't' => byte(b'\t'),
        b'v' => byte(0x0b),
        b'\\' => byte(b'\\'),
        b'e' | b'E' if dialect.extra.contains(&c) => byte(0x1b),
        b'\'' | b'"' | b'?' if dialect.extra.contains(&c) => byte(c),
        b'c' if dialect.control => match rest.get(1) {
            Some(b'?') => (Escape::Byte(0x7f), 2),
            Some(&x) => (Escape::Byte(x.to_ascii_uppercase() & 0x1f), 2),
            None => (Escape::Unknown, 0),
        },
        b'c' if dialect.stop_c => (Escape::Stop, 1),
        b'0' if dialect.octal != Octal::UpToThree => {
            let (value, digits) = number(&rest[1..], 8, 3);
            (Escape::Byte(value as u8), 1 + digits)
        }
        b'0'..=b'7' if dialect.octal != Octal::AfterZero => {
            let (value, digits) = number(rest, 8, 3);
            (Escape::Byte(value as u8), digits)
        }
        b'x' if dialect.hex => match number(&rest[1..], 16, 2) {
            (_, 0) => (Escape::Unknown, 0),
            (value, digits) => (Escape::Byte(value as u8), 1 + digits),
        },
        b'u' | b'U' if dialect.unicode => {
            let max = if c == b'u' { 4 } else { 8 };
            match number(&rest[1..], 16, max) {
                (_, 0) => (Escape::Unknown, 0),
                (value, digits) if value < 0x80 => (Escape::Byte(value as u8), 1 + digits),
                (value, digits) => (Escape::CodePoint(value), 1 + digits),
            }
        }
        _ => (Escape::Unknown, 0),
    }
}

/// Reads up to `max` digits of `radix` from the start of `s`: (value, digits read).
fn number(s: &[u8], radix: u32, max: usize) -> (u32, usize) {
    let mut value = 0u32;
    let mut used = 0;
    while used < max
        && let Some(d) = s.get(used).and_then(|&b| char::from(b).to_digit(radix))
    {
        value = value.wrapping_mul(radix).wrapping_add(d);
        used += 1;
    }
    (value, used)
}

/// A code point the C locale cannot encode, as bash writes it there: `\u263A`, `\U0001F600`.
pub fn code_point_text(code_point: u32) -> String {
    if code_point <= 0xffff {
        format!("\\u{code_point:04X}")
    } else {
        format!("\\U{code_point:08X}")
    }
}

/// Decodes every escape of `s`, keeping the backslash of unknown ones. The bool is true when
/// `\c` stopped the text (what comes after it is dropped).
pub fn decode(s: &[u8], dialect: &Dialect) -> (Vec<u8>, bool) {
    let mut out = Vec::with_capacity(s.len());
    let mut i = 0;
    while i < s.len() {
        if s[i] != b'\\' {
            out.push(s[i]);
            i += 1;
            continue;
        }
        let (escape, used) = decode_one(&s[i + 1..], dialect);
        match escape {
            Escape::Byte(b) => out.push(b),
            Escape::CodePoint(c) => out.extend_from_slice(code_point_text(c).as_bytes()),
            Escape::Stop => return (out, true),
            Escape::Unknown => out.push(b'\\'),
        }
        i += 1 + used;
    }
    (out, false)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(s: &str, dialect: &Dialect) -> (Vec<u8>, bool) {
        decode(s.as_bytes(), dialect)
    }

    /// Each row: an escape, then what bash's `$'…'`, `printf` format, `printf %b`, `echo -e`,
    /// dash's `echo`, mawk, `find -printf` and `stat --printf` printed for `Z<escape>Z` on the
    /// host in the C locale (`None`: the output stopped after `Z`). find and stat also warn
    /// about escapes they do not know; stat then prints the letter alone, which is stat's
    /// business, so here it reads as kept.
    #[test]
    fn as_the_programs_print() {
        #[rustfmt::skip]
        let rows: &[(&str, [Option<&[u8]>; 8])] = &[
            ("e", [Some(b"\x1b"), Some(b"\x1b"), Some(b"\x1b"), Some(b"\x1b"), Some(b"\x1b"), Some(b"\\e"), Some(b"\\e"), Some(b"\x1b")]),
            ("E", [Some(b"\x1b"), Some(b"\x1b"), Some(b"\x1b"), Some(b"\x1b"), Some(b"\\E"), Some(b"\\E"), Some(b"\\E"), Some(b"\\E")]),
            ("'", [Some(b"'"), Some(b"'"), Some(b"\\'"), Some(b"\\'"), Some(b"\\'"), Some(b"\\'"), Some(b"\\'"), Some(b"\\'")]),
            ("?", [Some(b"?"), Some(b"?"), Some(b"\\?"), Some(b"\\?"), Some(b"\\?"), Some(b"\\?"), Some(b"\\?"), Some(b"\\?")]),
            ("\"", [Some(b"\""), Some(b"\""), Some(b"\\\""), Some(b"\\\""), Some(b"\\\""), Some(b"\""), Some(b"\\\""), Some(b"\"")]),
            ("c", [None, Some(b"\\c"), None, None, None, Some(b"\\c"), None, Some(b"\\c")]),
            ("x41", [Some(b"A"), Some(b"A"), Some(b"A"), Some(b"A"), Some(b"\\x41"), Some(b"A"), Some(b"\\x41"), Some(b"A")]),
            ("x414", [Some(b"A4"), Some(b"A4"), Some(b"A4"), Some(b"A4"), Some(b"\\x414"), Some(b"A4"), Some(b"\\x414"), Some(b"A4")]),
            ("xg", [Some(b"\\xg"), Some(b"\\xg"), Some(b"\\xg"), Some(b"\\xg"), Some(b"\\xg"), Some(b"\\xg"), Some(b"\\xg"), Some(b"\\xg")]),
            ("0101", [Some(b"\x081"), Some(b"\x081"), Some(b"A"), Some(b"A"), Some(b"A"), Some(b"\x081"), Some(b"\x081"), Some(b"\x081")]),
            ("101", [Some(b"A"), Some(b"A"), Some(b"A"), Some(b"\\101"), Some(b"A"), Some(b"A"), Some(b"A"), Some(b"A")]),
            ("18", [Some(b"\x018"), Some(b"\x018"), Some(b"\x018"), Some(b"\\18"), Some(b"\x018"), Some(b"\x018"), Some(b"\x018"), Some(b"\x018")]),
            ("8", [Some(b"\\8"), Some(b"\\8"), Some(b"\\8"), Some(b"\\8"), Some(b"\\8"), Some(b"\\8"), Some(b"\\8"), Some(b"\\8")]),
            ("q", [Some(b"\\q"), Some(b"\\q"), Some(b"\\q"), Some(b"\\q"), Some(b"\\q"), Some(b"\\q"), Some(b"\\q"), Some(b"\\q")]),
            ("u263a", [Some(b"\\u263A"), Some(b"\\u263A"), Some(b"\\u263A"), Some(b"\\u263A"), Some(b"\\u263a"), Some(b"\\u263a"), Some(b"\\u263a"), Some(b"\\u263a")]),
            ("U0041", [Some(b"A"), Some(b"A"), Some(b"A"), Some(b"A"), Some(b"\\U0041"), Some(b"\\U0041"), Some(b"\\U0041"), Some(b"\\U0041")]),
            ("cA", [Some(b"\x01"), Some(b"\\cA"), None, None, None, Some(b"\\cA"), None, Some(b"\\cA")]),
            ("/", [Some(b"\\/"), Some(b"\\/"), Some(b"\\/"), Some(b"\\/"), Some(b"\\/"), Some(b"\\/"), Some(b"\\/"), Some(b"\\/")]),
        ];
        let dialects = [
            BASH_ANSI_C,
            BASH_PRINTF,
            BASH_PRINTF_B,
            BASH_ECHO,
            DASH_ECHO,
            AWK,
            FIND,
            STAT,
        ];
        for (escape, wants) in rows {
            for (dialect, want) in dialects.iter().zip(wants) {
                if *escape == "c" && *dialect == BASH_ANSI_C {
                    continue; // `$'\cZ'` takes the Z: in `edges`.
                }
                let got = text(&format!("Z\\{escape}Z"), dialect);
                let want = match want {
                    Some(middle) => ([b"Z", *middle, b"Z"].concat(), false),
                    None => (b"Z".to_vec(), true),
                };
                assert_eq!(got, want, "\\{escape} in {dialect:?}");
            }
        }
    }

    #[test]
    fn edges() {
        // Nothing after the backslash: it stays.
        assert_eq!(text("Z\\", &BASH_ECHO), (b"Z\\".to_vec(), false));
        assert_eq!(decode_one(b"", &FIND), (Escape::Unknown, 0));
        assert_eq!(text("Z\\cZ", &BASH_ANSI_C), (b"Z\x1a".to_vec(), false));
        // `\c` with nothing to control keeps both characters.
        assert_eq!(text("\\c", &BASH_ANSI_C), (b"\\c".to_vec(), false));
        assert_eq!(
            text("\\c?\\ca", &BASH_ANSI_C),
            (b"\x7f\x01".to_vec(), false)
        );
        // Octal wraps to a byte: `\777` is 0xff.
        assert_eq!(text("\\777", &BASH_PRINTF), (vec![0xff], false));
        assert_eq!(text("\\U0001F600", &BASH_ANSI_C).0, b"\\U0001F600");
        assert_eq!(
            decode_one(b"u263a", &BASH_ECHO),
            (Escape::CodePoint(0x263a), 5)
        );
    }
}
