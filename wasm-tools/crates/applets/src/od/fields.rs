//! One output line of one type: the fields of a block, right-aligned, with the line's padding
//! spread over them as GNU does (so the lines of every type of a block end in the same column).

use super::float;
use super::spec::{Kind, Spec};
use std::io::{self, Write};

/// Names of the control characters and space, for `-t a`.
const NAMES: [&str; 33] = [
    "nul", "soh", "stx", "etx", "eot", "enq", "ack", "bel", "bs", "ht", "nl", "vt", "ff", "cr",
    "so", "si", "dle", "dc1", "dc2", "dc3", "dc4", "nak", "syn", "etb", "can", "em", "sub", "esc",
    "fs", "gs", "rs", "us", "sp",
];

/// Byte order of multi-byte fields.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Endian {
    Little,
    Big,
}

/// Writes the fields of `block` (a whole block, zero-padded as far as its last field) to
/// `out`: `fields` per block of which the last `blank` are left out, `pad` extra spaces spread
/// over the line. Padding is written, never built, so `-w 100000000` costs no memory.
pub fn write_line(
    out: &mut dyn Write,
    spec: &Spec,
    block: &[u8],
    fields: usize,
    blank: usize,
    pad: u64,
    endian: Endian,
) -> io::Result<()> {
    // In 64 bits: `pad * (i - 1)` overflows a 32-bit usize for wide lines.
    let fields_wide = fields as u64;
    let mut pad_remaining = pad;
    for (n, i) in (blank + 1..=fields).rev().enumerate() {
        let next_pad = pad * (i as u64 - 1) / fields_wide;
        let width = pad_remaining - next_pad + spec.width as u64;
        let bytes = &block[n * spec.size..(n + 1) * spec.size];
        let text = field(spec, bytes, endian);
        spaces(out, width.saturating_sub(text.len() as u64))?;
        out.write_all(text.as_bytes())?;
        pad_remaining = next_pad;
    }
    Ok(())
}

/// Writes `n` spaces.
pub fn spaces(out: &mut dyn Write, mut n: u64) -> io::Result<()> {
    const CHUNK: &[u8; 64] = &[b' '; 64];
    while n > 0 {
        let k = n.min(CHUNK.len() as u64) as usize;
        out.write_all(&CHUNK[..k])?;
        n -= k as u64;
    }
    Ok(())
}

/// The text of one field.
fn field(spec: &Spec, bytes: &[u8], endian: Endian) -> String {
    let mut ordered = [0u8; 16];
    let ordered = &mut ordered[..bytes.len()];
    ordered.copy_from_slice(bytes);
    if endian == Endian::Big {
        ordered.reverse();
    }
    match spec.kind {
        Kind::Named => named(bytes[0]),
        Kind::Char => char_escape(bytes[0]),
        Kind::Float => match spec.size {
            4 => float::float32(f32::from_le_bytes(array(ordered))),
            8 => float::float64(f64::from_le_bytes(array(ordered))),
            _ => float::float80(&array(&ordered[..10])),
        },
        Kind::Signed | Kind::Unsigned | Kind::Octal | Kind::Hex => {
            let mut wide = [0u8; 8];
            wide[..ordered.len()].copy_from_slice(ordered);
            let value = u64::from_le_bytes(wide);
            match spec.kind {
                Kind::Signed => {
                    let shift = 64 - 8 * spec.size as u32;
                    (((value << shift) as i64) >> shift).to_string()
                }
                Kind::Unsigned => value.to_string(),
                Kind::Octal => format!("{value:0w$o}", w = spec.width),
                _ => format!("{value:0w$x}", w = spec.width),
            }
        }
    }
}

fn array<const N: usize>(bytes: &[u8]) -> [u8; N] {
    let mut a = [0u8; N];
    a.copy_from_slice(&bytes[..N]);
    a
}

fn named(byte: u8) -> String {
    match byte & 0x7f {
        127 => "del".to_string(),
        c @ 0..=32 => NAMES[usize::from(c)].to_string(),
        c => char::from(c).to_string(),
    }
}

fn char_escape(byte: u8) -> String {
    match byte {
        0 => "\\0".to_string(),
        7 => "\\a".to_string(),
        8 => "\\b".to_string(),
        12 => "\\f".to_string(),
        b'\n' => "\\n".to_string(),
        b'\r' => "\\r".to_string(),
        b'\t' => "\\t".to_string(),
        11 => "\\v".to_string(),
        0x20..=0x7e => char::from(byte).to_string(),
        _ => format!("{byte:03o}"),
    }
}

/// `  >…<`: the block's bytes, printable ones as they are and the rest as dots.
pub fn trailer(out: &mut dyn Write, bytes: &[u8]) -> io::Result<()> {
    let shown: Vec<u8> = bytes
        .iter()
        .map(|&b| if (0x20..=0x7e).contains(&b) { b } else { b'.' })
        .collect();
    out.write_all(b"  >")?;
    out.write_all(&shown)?;
    out.write_all(b"<")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(kind: Kind, size: usize, width: usize) -> Spec {
        Spec {
            kind,
            size,
            width,
            trailer: false,
        }
    }

    fn line(
        out: &mut Vec<u8>,
        spec: &Spec,
        block: &[u8],
        fields: usize,
        blank: usize,
        pad: u64,
        endian: Endian,
    ) {
        write_line(out, spec, block, fields, blank, pad, endian).unwrap();
    }

    // Expected lines: GNU od 9.1 (`od -An …` on the same bytes).
    #[test]
    fn fields_as_gnu_od() {
        let mut out = Vec::new();
        let block = [0x00, 0x00, 0x80, 0x3f, 0xff, 0xff, 0x7f, 0x7f];
        line(
            &mut out,
            &spec(Kind::Octal, 2, 6),
            &block,
            4,
            0,
            4,
            Endian::Little,
        );
        assert_eq!(
            String::from_utf8_lossy(&out),
            " 000000 037600 177777 077577"
        );
        out.clear();
        line(
            &mut out,
            &spec(Kind::Signed, 1, 4),
            &block,
            8,
            0,
            8,
            Endian::Little,
        );
        assert_eq!(
            String::from_utf8_lossy(&out),
            "    0    0 -128   63   -1   -1  127  127"
        );
        out.clear();
        line(
            &mut out,
            &spec(Kind::Hex, 4, 8),
            &block,
            2,
            0,
            2,
            Endian::Big,
        );
        assert_eq!(String::from_utf8_lossy(&out), " 0000803f ffff7f7f");
        out.clear();
        let chars = [0xc3, 0xa9, 0x7f, 0x80, 0xff, b' ', 0, b'\t'];
        line(
            &mut out,
            &spec(Kind::Named, 1, 3),
            &chars,
            8,
            0,
            8,
            Endian::Little,
        );
        assert_eq!(
            String::from_utf8_lossy(&out),
            "   C   ) del nul del  sp nul  ht"
        );
        out.clear();
        line(
            &mut out,
            &spec(Kind::Char, 1, 3),
            &chars,
            8,
            2,
            8,
            Endian::Little,
        );
        assert_eq!(String::from_utf8_lossy(&out), " 303 251 177 200 377    ");
    }
}
