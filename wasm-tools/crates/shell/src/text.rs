//! Text as the shell carries it: `String`s in which bytes that are not UTF-8 on their own
//! travel as private-use chars ([`raw_byte`]) until a builtin writes them ([`output_bytes`]),
//! and backslash escapes decoded into such text in each program's dialect ([`unescape`]).

/// Where [`raw_byte`] puts bytes 0x80–0xFF among chars (a private-use block no text uses).
const RAW_BYTE_BASE: u32 = 0xF780;

/// A byte that is not UTF-8 on its own (`echo -e '\x80'`, `printf '\200'`), carried in the
/// shell's `String`s as a private-use char until [`output_bytes`] writes it out as that byte.
pub fn raw_byte(b: u8) -> char {
    if b < 0x80 {
        char::from(b)
    } else {
        char::from_u32(RAW_BYTE_BASE + u32::from(b - 0x80)).unwrap_or(char::REPLACEMENT_CHARACTER)
    }
}

/// The bytes a builtin writes for `s`: UTF-8, except chars made by [`raw_byte`].
pub fn output_bytes(s: &str) -> std::borrow::Cow<'_, [u8]> {
    let is_raw = |c: char| (RAW_BYTE_BASE..RAW_BYTE_BASE + 0x80).contains(&u32::from(c));
    if !s.chars().any(is_raw) {
        return std::borrow::Cow::Borrowed(s.as_bytes());
    }
    let mut out = Vec::with_capacity(s.len());
    for c in s.chars() {
        if is_raw(c) {
            out.push(0x80 + (u32::from(c) - RAW_BYTE_BASE) as u8);
        } else {
            let mut buf = [0u8; 4];
            out.extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
        }
    }
    std::borrow::Cow::Owned(out)
}

/// Decodes the backslash escape whose text (after the backslash) starts `rest`, in one
/// program's dialect: what it stands for and how many chars it used (see [`gnu::escape`]).
pub fn escape_at(rest: &[char], dialect: &gnu::escape::Dialect) -> (gnu::escape::Escape, usize) {
    // The longest escape is `\UHHHHHHHH`; escapes are ASCII, so a char beyond it ends the text
    // the decoder sees (0xff matches no letter or digit) and byte counts are char counts.
    let mut head = [0u8; 9];
    let len = rest.len().min(head.len());
    for (byte, &c) in head.iter_mut().zip(&rest[..len]) {
        *byte = u8::try_from(c).ok().filter(u8::is_ascii).unwrap_or(0xff);
    }
    gnu::escape::decode_one(&head[..len], dialect)
}

/// Appends what an escape stands for to a shell string: a byte as [`raw_byte`] carries it, a
/// code point the C locale cannot print as bash writes it there (`\u263A`).
pub fn push_escape(out: &mut String, escape: gnu::escape::Escape) {
    match escape {
        gnu::escape::Escape::Byte(b) => out.push(raw_byte(b)),
        gnu::escape::Escape::CodePoint(c) => out.push_str(&gnu::escape::code_point_text(c)),
        gnu::escape::Escape::Stop | gnu::escape::Escape::Unknown => {}
    }
}

/// Decodes every escape of `s` in `dialect`, keeping the backslash of unknown ones; the bool
/// is true when `\c` stopped the text.
pub fn unescape(s: &str, dialect: &gnu::escape::Dialect) -> (String, bool) {
    let chars: Vec<char> = s.chars().collect();
    let mut out = String::with_capacity(s.len());
    let mut i = 0;
    while i < chars.len() {
        if chars[i] != '\\' {
            out.push(chars[i]);
            i += 1;
            continue;
        }
        let (escape, used) = escape_at(&chars[i + 1..], dialect);
        match escape {
            gnu::escape::Escape::Stop => return (out, true),
            gnu::escape::Escape::Unknown => out.push('\\'),
            known => push_escape(&mut out, known),
        }
        i += 1 + used;
    }
    (out, false)
}
