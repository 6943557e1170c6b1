//! readline's spelling of key sequences (`\C-x\C-g`, `\M-b`, `\e[A`, `\033`), both ways.

use std::cmp::Ordering;

/// The bytes a spelled key sequence sends. `\M-x` is ESC then `x`, as in readline's emacs
/// keymaps (meta keys arrive ESC-prefixed).
pub fn decode(spelled: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    let mut i = 0;
    let mut control = false;
    while i < spelled.len() {
        let (byte, next) = if spelled[i] == b'\\' && i + 1 < spelled.len() {
            match spelled[i + 1] {
                b'C' if spelled.get(i + 2) == Some(&b'-') => {
                    control = true;
                    i += 3;
                    continue;
                }
                b'M' if spelled.get(i + 2) == Some(&b'-') => {
                    out.push(0x1b);
                    i += 3;
                    continue;
                }
                b'e' => (0x1b, i + 2),
                b'a' => (0x07, i + 2),
                b'b' => (0x08, i + 2),
                b'd' => (0x7f, i + 2),
                b'f' => (0x0c, i + 2),
                b'n' => (b'\n', i + 2),
                b'r' => (b'\r', i + 2),
                b't' => (b'\t', i + 2),
                b'v' => (0x0b, i + 2),
                b'0'..=b'7' => {
                    let digits = spelled[i + 1..]
                        .iter()
                        .take(3)
                        .take_while(|d| (b'0'..=b'7').contains(*d))
                        .count();
                    let value = spelled[i + 1..i + 1 + digits]
                        .iter()
                        .fold(0u32, |v, d| v * 8 + u32::from(d - b'0'));
                    ((value & 0xff) as u8, i + 1 + digits)
                }
                b'x' => {
                    let digits = spelled[i + 2..]
                        .iter()
                        .take(2)
                        .take_while(|d| d.is_ascii_hexdigit())
                        .count();
                    let text = std::str::from_utf8(&spelled[i + 2..i + 2 + digits]).unwrap_or("");
                    (u8::from_str_radix(text, 16).unwrap_or(b'x'), i + 2 + digits)
                }
                other => (other, i + 2),
            }
        } else {
            (spelled[i], i + 1)
        };
        out.push(if std::mem::take(&mut control) {
            if byte == b'?' {
                0x7f
            } else {
                byte.to_ascii_lowercase() & 0x1f
            }
        } else {
            byte
        });
        i = next;
    }
    out
}

/// How readline spells `keys` in `bind -p`.
pub fn display(keys: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    for (i, &b) in keys.iter().enumerate() {
        match b {
            0x1b if i + 1 < keys.len() => out.extend_from_slice(b"\\M-"),
            0x1b => out.extend_from_slice(b"\\e"),
            0x7f => out.extend_from_slice(b"\\C-?"),
            0..=0x1f => {
                out.extend_from_slice(b"\\C-");
                out.push(b | 0x60);
            }
            b'"' | b'\\' => out.extend_from_slice(&[b'\\', b]),
            0x80..=0x9f => out.extend_from_slice(format!("\\{b:o}").as_bytes()),
            _ => out.push(b),
        }
    }
    out
}

/// The order readline lists a function's keys in: by byte, with a sequence that is also a
/// prefix of others after them (readline keeps it in the prefix's keymap, past every key).
pub fn order(a: &[u8], b: &[u8]) -> Ordering {
    match a.iter().zip(b).find(|(x, y)| x != y) {
        Some((x, y)) => x.cmp(y),
        None => b.len().cmp(&a.len()),
    }
}

/// `"KEYS": rest` (spaces allowed around both): the spelled keys and what they are bound to.
/// `None` when the text does not start with a quoted key sequence.
pub fn split_binding(spec: &str) -> Option<(&str, &str)> {
    let body = spec.trim_start().strip_prefix('"')?;
    let close = closing_quote(body)?;
    let rest = body[close + 1..].trim_start();
    let rest = rest.strip_prefix(':').unwrap_or(rest).trim_start();
    Some((&body[..close], rest))
}

/// Where the `"` that ends a quoted key sequence stands in `body` (the text after the opening
/// quote); a backslash escapes the character after it.
pub fn closing_quote(body: &str) -> Option<usize> {
    let mut escaped = false;
    body.char_indices().find_map(|(at, c)| {
        if escaped {
            escaped = false;
            None
        } else if c == '\\' {
            escaped = true;
            None
        } else {
            (c == '"').then_some(at)
        }
    })
}
