//! hexdump's format language: a format string (one `-e` argument) is a list of format units
//! `[iterations][/bytes] "text with %conversions"`; each unit's text is split into print
//! units, one conversion each with the literal text before it, plus a trailing text-only one.
//!
//! Checks and error texts are util-linux's: malformed units are rejected while the options are
//! read (`bad format {…}`), conversions once all formats are known (`rewrite`), which is why
//! the two steps are separate here too.

/// A conversion the print unit applies to its bytes (or to the offset).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Conv {
    /// `%d %i` (signed) and `%o %u %x %X`.
    Int { signed: bool, radix: u8 },
    /// `%e %E %f %g %G`.
    Float(u8),
    /// `%c`: the byte itself.
    Char,
    /// `%s`: bytes up to a NUL, at most the byte count.
    Str,
    /// `%_c`: printable byte, C escape, or three-digit octal.
    Escaped,
    /// `%_p`: printable byte or `.`.
    Printable,
    /// `%_u`: printable byte, ASCII control name, or hex.
    AsciiName,
    /// `%_a[dox]`: offset of the next byte; radix 0 when no letter followed (prints nothing).
    Offset(u8),
}

/// printf flags, width and precision of one conversion.
pub use gnu::printf::Spec;

/// One print unit: literal text, then at most one conversion consuming `bytes` bytes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Print {
    pub text: Vec<u8>,
    pub conv: Option<(Conv, Spec)>,
    pub bytes: usize,
}

/// One format unit as written, then as rewritten into print units.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unit {
    pub reps: usize,
    pub reps_given: bool,
    /// Byte count given after the slash (0 when none).
    pub byte_count: usize,
    /// The quoted text with escapes decoded.
    pub text: Vec<u8>,
    pub prints: Vec<Print>,
    /// Holds `%_A`: displayed only once, after all input.
    pub at_end: bool,
    /// On the last iteration, leave out the final whitespace character of the last print unit.
    pub trim_last_space: bool,
}

impl Unit {
    /// Bytes one iteration consumes.
    pub fn bytes_per_rep(&self) -> usize {
        if self.byte_count > 0 {
            return self.byte_count;
        }
        self.prints.iter().map(|p| p.bytes).sum()
    }
}

/// The units of one format string.
pub type Format = Vec<Unit>;

fn skip_space(s: &[u8], mut i: usize) -> usize {
    while i < s.len() && s[i].is_ascii_whitespace() {
        i += 1;
    }
    i
}

fn digits_end(s: &[u8], mut i: usize) -> usize {
    while i < s.len() && s[i].is_ascii_digit() {
        i += 1;
    }
    i
}

fn number(s: &[u8]) -> usize {
    std::str::from_utf8(s)
        .ok()
        .and_then(|t| t.parse().ok())
        .unwrap_or(usize::MAX)
}

/// Splits a format string into its units (util-linux's `add`); `Err` is the message.
pub fn parse_format(fmt: &str) -> Result<Format, String> {
    let bad = || format!("bad format {{{fmt}}}");
    let s = fmt.as_bytes();
    let mut units = Vec::new();
    let mut i = 0;
    loop {
        i = skip_space(s, i);
        if i >= s.len() {
            break;
        }
        let mut unit = Unit {
            reps: 1,
            reps_given: false,
            byte_count: 0,
            text: Vec::new(),
            prints: Vec::new(),
            at_end: false,
            trim_last_space: false,
        };
        if s[i].is_ascii_digit() {
            let end = digits_end(s, i);
            if end < s.len() && !s[end].is_ascii_whitespace() && s[end] != b'/' {
                return Err(bad());
            }
            if end >= s.len() {
                return Err(bad());
            }
            unit.reps = number(&s[i..end]);
            unit.reps_given = true;
            i = skip_space(s, end);
        }
        if i < s.len() && s[i] == b'/' {
            i = skip_space(s, i + 1);
        }
        if i < s.len() && s[i].is_ascii_digit() {
            let end = digits_end(s, i);
            // The byte count must be followed by white space before the quoted text.
            if end >= s.len() || !s[end].is_ascii_whitespace() {
                return Err(bad());
            }
            unit.byte_count = number(&s[i..end]);
            i = skip_space(s, end + 1);
        }
        if i >= s.len() || s[i] != b'"' {
            return Err(bad());
        }
        let start = i + 1;
        let Some(len) = s[start..].iter().position(|&b| b == b'"') else {
            return Err(bad());
        };
        unit.text = unescape(&s[start..start + len]);
        i = start + len + 1;
        units.push(unit);
    }
    Ok(units)
}

/// C's single-character escapes; a backslash before anything else just keeps that character.
fn unescape(s: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(s.len());
    let mut i = 0;
    while i < s.len() {
        if s[i] != b'\\' || i + 1 >= s.len() {
            out.push(s[i]);
            i += 1;
            continue;
        }
        i += 1;
        out.push(match s[i] {
            b'a' => 7,
            b'b' => 8,
            b'f' => 12,
            b'n' => b'\n',
            b'r' => b'\r',
            b't' => b'\t',
            b'v' => 11,
            b'0' => 0,
            c => c,
        });
        i += 1;
    }
    out
}

const FLAG_OR_WIDTH: &[u8] = b"#-+ 0123456789";

/// Reads flags and width (and the precision) after a `%`; returns the spec and where the
/// conversion character is.
fn read_spec(s: &[u8], mut i: usize) -> (Spec, usize) {
    let mut spec = Spec::default();
    let mut width = Vec::new();
    while i < s.len() && FLAG_OR_WIDTH.contains(&s[i]) {
        match s[i] {
            b'-' => spec.left = true,
            b'+' => spec.plus = true,
            b' ' => spec.space = true,
            b'#' => spec.alt = true,
            b'0' if width.is_empty() => spec.zero = true,
            d => width.push(d),
        }
        i += 1;
    }
    spec.width = if width.is_empty() { 0 } else { number(&width) };
    if i < s.len() && s[i] == b'.' {
        let end = digits_end(s, i + 1);
        spec.precision = Some(if end > i + 1 {
            number(&s[i + 1..end])
        } else {
            0
        });
        i = end;
    }
    (spec, i)
}

fn conv_text(s: &[u8], from: usize, len: usize) -> String {
    String::from_utf8_lossy(&s[from..(from + len).min(s.len())]).into_owned()
}

/// Turns one unit's text into print units, checking byte counts (util-linux's `rewrite`).
fn rewrite_unit(unit: &mut Unit) -> Result<(), String> {
    let s = unit.text.clone();
    let mut prints = Vec::new();
    let mut i = 0;
    let mut data_convs = 0;
    while i < s.len() {
        let Some(pct) = s[i..].iter().position(|&b| b == b'%').map(|p| p + i) else {
            prints.push(Print {
                text: s[i..].to_vec(),
                conv: None,
                bytes: 0,
            });
            break;
        };
        let (spec, c) = read_spec(&s, pct + 1);
        // The byte count a conversion takes: the unit's if allowed, else its default;
        // `name_len` is how much of the text names the conversion in the message.
        let fixed = |allowed: &[usize], default: usize, name_len: usize| -> Result<usize, String> {
            match unit.byte_count {
                0 => Ok(default),
                n if allowed.contains(&n) => Ok(n),
                _ => Err(format!(
                    "bad byte count for conversion character {}",
                    conv_text(&s, c, name_len)
                )),
            }
        };
        let ch = s.get(c).copied().unwrap_or(0);
        let (conv, bytes, end) = match ch {
            b'c' => (Conv::Char, fixed(&[1], 1, 1)?, c + 1),
            b'd' | b'i' | b'o' | b'u' | b'x' | b'X' => {
                let signed = matches!(ch, b'd' | b'i');
                let radix = if signed { b'd' } else { ch };
                (
                    Conv::Int { signed, radix },
                    fixed(&[1, 2, 4, 8], 4, 1)?,
                    c + 1,
                )
            }
            b'e' | b'E' | b'f' | b'g' | b'G' => (Conv::Float(ch), fixed(&[4, 8], 8, 1)?, c + 1),
            b's' => {
                let n = if unit.byte_count > 0 {
                    unit.byte_count
                } else if let Some(p) = spec.precision {
                    p
                } else {
                    return Err("%s requires a precision or a byte count".into());
                };
                (Conv::Str, n, c + 1)
            }
            b'_' => match s.get(c + 1).copied().unwrap_or(0) {
                b'a' | b'A' => {
                    if s[c + 1] == b'A' {
                        unit.at_end = true;
                    }
                    let radix = match s.get(c + 2) {
                        Some(&r @ (b'd' | b'o' | b'x')) => r,
                        _ => 0,
                    };
                    let end = if radix == 0 { c + 2 } else { c + 3 };
                    (Conv::Offset(radix), 0, end)
                }
                b'c' => (Conv::Escaped, fixed(&[1], 1, 2)?, c + 2),
                b'p' => (Conv::Printable, fixed(&[1], 1, 2)?, c + 2),
                b'u' => (Conv::AsciiName, fixed(&[1], 1, 2)?, c + 2),
                _ => {
                    return Err(format!("bad conversion character %{}", conv_text(&s, c, 2)));
                }
            },
            _ => {
                return Err(format!("bad conversion character %{}", conv_text(&s, c, 1)));
            }
        };
        if !matches!(conv, Conv::Offset(_)) {
            data_convs += 1;
            if unit.byte_count > 0 && data_convs > 1 {
                return Err("byte count with multiple conversion characters".into());
            }
        }
        prints.push(Print {
            text: s[i..pct].to_vec(),
            conv: Some((conv, spec)),
            bytes,
        });
        i = end;
    }
    unit.prints = prints;
    Ok(())
}

/// Bytes one format consumes per block.
pub fn format_size(format: &Format) -> usize {
    format.iter().map(|u| u.reps * u.bytes_per_rep()).sum()
}

/// Prepares every format for display: print units, the block size (returned), formats
/// shorter than a block repeating their last unit, and the trailing-space rule.
pub fn rewrite(formats: &mut [Format]) -> Result<usize, String> {
    for unit in formats.iter_mut().flatten() {
        rewrite_unit(unit)?;
    }
    let block = formats.iter().map(format_size).max().unwrap_or(0);
    for format in formats.iter_mut() {
        let size = format_size(format);
        if let Some(last) = format.last_mut() {
            let per = last.bytes_per_rep();
            if size < block && !last.reps_given && per > 0 {
                last.reps += (block - size) / per;
            }
        }
        for unit in format.iter_mut() {
            unit.trim_last_space = unit.reps > 1
                && unit.prints.last().is_some_and(|p| {
                    p.conv.is_none() && p.text.last().is_some_and(|b| b.is_ascii_whitespace())
                });
        }
    }
    Ok(block)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn units_and_errors() {
        let f = parse_format(r#""%07.7_ax " 8/2 "%04x " "\n""#).unwrap();
        assert_eq!(f.len(), 3);
        assert_eq!((f[1].reps, f[1].byte_count), (8, 2));
        assert_eq!(f[2].text, b"\n");
        assert_eq!(
            parse_format("1/1 %02x").unwrap_err(),
            "bad format {1/1 %02x}"
        );
        let mut fs = vec![parse_format(r#"4 "%y""#).unwrap()];
        assert_eq!(rewrite(&mut fs).unwrap_err(), "bad conversion character %y");
    }
}
