//! jq 1.6's printer: its number format, string escapes, indentation and colours.

use jaq_json::{Num, Val};

/// How values are written, from the command line's options.
#[derive(Clone, Debug)]
pub struct Style {
    /// Spaces per level; `None` writes everything on one line (`-c`, `--indent 0`).
    pub indent: Option<usize>,
    /// Indent with one tab per level (`--tab`).
    pub tab: bool,
    /// Escape every non-ASCII character as `\uXXXX` (`-a`).
    pub ascii: bool,
    /// Object keys in byte order (`-S`).
    pub sort_keys: bool,
    /// ANSI colours (`-C`).
    pub color: bool,
}

impl Default for Style {
    fn default() -> Self {
        Style {
            indent: Some(2),
            tab: false,
            ascii: false,
            sort_keys: false,
            color: false,
        }
    }
}

impl Style {
    /// On one line, no colour: how jq writes values inside its messages.
    pub fn compact() -> Self {
        Style {
            indent: None,
            ..Style::default()
        }
    }
}

const RESET: &str = "\x1b[0m";
const FIELD_COLOR: &str = "\x1b[34;1m";

/// jq 1.6's colours by kind: null, false, true, numbers, strings, arrays, objects.
fn color_of(v: &Val) -> &'static str {
    match v {
        Val::Null => "\x1b[1;30m",
        Val::Bool(_) | Val::Num(_) => "\x1b[0;39m",
        Val::TStr(_) | Val::BStr(_) => "\x1b[0;32m",
        Val::Arr(_) | Val::Obj(_) => "\x1b[1;39m",
    }
}

/// The value as jq writes it with `style` (no trailing newline).
pub fn to_text(v: &Val, style: &Style) -> String {
    let mut out = String::new();
    write_value(&mut out, v, style, 0);
    out
}

/// The value on one line, as in messages and `tojson`.
pub fn compact(v: &Val) -> String {
    to_text(v, &Style::compact())
}

/// jq 1.6's `jv_dump_string_trunc` into its 15-byte buffers: at most 14 bytes, the last three
/// replaced by `...` when cut.
pub fn truncated(v: &Val) -> String {
    let text = compact(v);
    if text.len() <= 14 {
        return text;
    }
    let mut cut = text.as_bytes()[..11].to_vec();
    cut.extend_from_slice(b"...");
    String::from_utf8_lossy(&cut).into_owned()
}

fn newline_and_indent(out: &mut String, style: &Style, level: usize) {
    if let Some(width) = style.indent {
        out.push('\n');
        if style.tab {
            out.extend(std::iter::repeat_n('\t', level));
        } else {
            out.extend(std::iter::repeat_n(' ', level * width));
        }
    }
}

fn write_value(out: &mut String, v: &Val, style: &Style, level: usize) {
    let color = style.color.then(|| color_of(v));
    if let Some(c) = color {
        out.push_str(c);
    }
    match v {
        Val::Null => out.push_str("null"),
        Val::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Val::Num(n) => out.push_str(&number(n)),
        Val::TStr(b) | Val::BStr(b) => write_string(out, &String::from_utf8_lossy(b), style.ascii),
        Val::Arr(items) if items.is_empty() => out.push_str("[]"),
        Val::Arr(items) => {
            out.push('[');
            newline_and_indent(out, style, level + 1);
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                    newline_and_indent(out, style, level + 1);
                }
                write_value(out, item, style, level + 1);
                if let Some(c) = color {
                    out.push_str(c);
                }
            }
            newline_and_indent(out, style, level);
            if let Some(c) = color {
                out.push_str(c);
            }
            out.push(']');
        }
        Val::Obj(map) if map.is_empty() => out.push_str("{}"),
        Val::Obj(map) => {
            out.push('{');
            newline_and_indent(out, style, level + 1);
            let mut fields: Vec<(&Val, &Val)> = map.iter().collect();
            if style.sort_keys {
                fields.sort_by(|a, b| key_bytes(a.0).cmp(key_bytes(b.0)));
            }
            for (i, (key, value)) in fields.into_iter().enumerate() {
                if i > 0 {
                    out.push(',');
                    newline_and_indent(out, style, level + 1);
                }
                if color.is_some() {
                    out.push_str(RESET);
                    out.push_str(FIELD_COLOR);
                }
                match key {
                    Val::TStr(b) | Val::BStr(b) => {
                        write_string(out, &String::from_utf8_lossy(b), style.ascii)
                    }
                    other => write_string(out, &compact(other), style.ascii),
                }
                if let Some(c) = color {
                    out.push_str(RESET);
                    out.push_str(c);
                }
                out.push(':');
                if style.indent.is_some() {
                    out.push(' ');
                }
                if color.is_some() {
                    out.push_str(RESET);
                }
                write_value(out, value, style, level + 1);
                if let Some(c) = color {
                    out.push_str(c);
                }
            }
            newline_and_indent(out, style, level);
            if let Some(c) = color {
                out.push_str(c);
            }
            out.push('}');
        }
    }
    if color.is_some() {
        out.push_str(RESET);
    }
}

fn key_bytes(k: &Val) -> &[u8] {
    match k {
        Val::TStr(b) | Val::BStr(b) => b,
        _ => b"",
    }
}

/// A string in JSON quotes, escaped as jq 1.6 escapes: the two-character escapes for `"`, `\`
/// and five controls, `\u00XX` for the other controls and DEL, everything else as is (or as
/// `\uXXXX`, surrogate pairs beyond the BMP, with `ascii`).
pub fn write_string(out: &mut String, s: &str, ascii: bool) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            c if (c as u32) < 0x20 || c == '\u{7f}' => {
                out.push_str(&format!("\\u{:04x}", c as u32));
            }
            c if ascii && !c.is_ascii() => {
                let mut units = [0u16; 2];
                for unit in c.encode_utf16(&mut units) {
                    out.push_str(&format!("\\u{unit:04x}"));
                }
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

/// The number's value as jq 1.6 holds it: every number is a double.
pub fn as_f64(n: &Num) -> f64 {
    match n {
        Num::Int(i) => *i as f64,
        Num::Float(f) => *f,
        other => other.to_string().parse().unwrap_or(f64::NAN),
    }
}

/// A number as jq 1.6 prints it: NaN as `null`, infinities as the largest double, otherwise
/// the shortest digits that read back, in plain notation unless the exponent is below -4 or
/// beyond the digits by more than 15 (then `1e+17`, `1e-05`: two exponent digits at least).
pub fn number(n: &Num) -> String {
    format_double(as_f64(n))
}

/// See [`number`].
pub fn format_double(mut d: f64) -> String {
    if d.is_nan() {
        return "null".to_string();
    }
    if d.is_infinite() {
        d = if d > 0.0 { f64::MAX } else { -f64::MAX };
    }
    if d == 0.0 {
        return if d.is_sign_negative() { "-0" } else { "0" }.to_string();
    }
    // Rust's `{:e}` gives the shortest round-tripping digits: "1.2345e-7".
    let sci = format!("{:e}", d.abs());
    let (mantissa, exponent) = sci.split_once('e').unwrap_or((&sci, "0"));
    let digits: String = mantissa.chars().filter(|c| c.is_ascii_digit()).collect();
    let exponent: i64 = exponent.parse().unwrap_or(0);
    let decpt = exponent + 1;
    let ndigits = digits.len() as i64;
    let mut out = String::new();
    if d < 0.0 {
        out.push('-');
    }
    if decpt <= -4 || decpt > ndigits + 15 {
        out.push_str(&digits[..1]);
        if ndigits > 1 {
            out.push('.');
            out.push_str(&digits[1..]);
        }
        let e = decpt - 1;
        out.push('e');
        out.push(if e < 0 { '-' } else { '+' });
        out.push_str(&format!("{:02}", e.abs()));
    } else if decpt <= 0 {
        out.push_str("0.");
        out.extend(std::iter::repeat_n('0', (-decpt) as usize));
        out.push_str(&digits);
    } else if decpt >= ndigits {
        out.push_str(&digits);
        out.extend(std::iter::repeat_n('0', (decpt - ndigits) as usize));
    } else {
        out.push_str(&digits[..decpt as usize]);
        out.push('.');
        out.push_str(&digits[decpt as usize..]);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Measured with jq 1.6 on Ubuntu 22.04.
    #[test]
    fn numbers_as_jq_1_6_prints_them() {
        let cases: &[(f64, &str)] = &[
            (1.0, "1"),
            (1e17, "1e+17"),
            (1e16, "1e+16"),
            (1e15, "1000000000000000"),
            (12345678901234567.0, "12345678901234568"),
            (123456789012345678901.0, "123456789012345680000"),
            (0.1, "0.1"),
            (1e-5, "1e-05"),
            (0.0001, "0.0001"),
            (1e-7, "1e-07"),
            (1.25e-10, "1.25e-10"),
            (1.5e300, "1.5e+300"),
            (f64::INFINITY, "1.7976931348623157e+308"),
            (-0.0, "-0"),
            (std::f64::consts::PI, "3.141592653589793"),
            (10.0 / 3.0, "3.3333333333333335"),
            (1.23e-18, "1.23e-18"),
            (300.0, "300"),
        ];
        for &(d, want) in cases {
            assert_eq!(format_double(d), want, "{d}");
        }
    }

    #[test]
    fn strings_escape_as_jq_does() {
        let mut s = String::new();
        write_string(&mut s, "x\u{1}y\u{7f}\u{80}\"\\/\n", false);
        assert_eq!(s, "\"x\\u0001y\\u007f\u{80}\\\"\\\\/\\n\"");
        let mut s = String::new();
        write_string(&mut s, "é☃😀", true);
        assert_eq!(s, "\"\\u00e9\\u2603\\ud83d\\ude00\"");
    }
}
