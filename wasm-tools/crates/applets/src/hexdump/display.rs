//! Applying the formats to the input, block by block (util-linux's `display`).

use super::format::{Conv, Format, Print, Spec};
use super::input::Input;
use gnu::printf;
use std::io::{self, Write};

/// Bytes from `pos`, zero beyond the block (a unit overlapping the end shows zero bytes).
fn bytes_at(block: &[u8], pos: usize, n: usize) -> Vec<u8> {
    (pos..pos + n)
        .map(|i| block.get(i).copied().unwrap_or(0))
        .collect()
}

fn int_value(b: &[u8], signed: bool) -> i128 {
    let mut raw = [0u8; 8];
    raw[..b.len().min(8)].copy_from_slice(&b[..b.len().min(8)]);
    let u = u64::from_le_bytes(raw);
    if !signed || b.is_empty() || b.len() >= 8 {
        return if signed { u as i64 as i128 } else { u as i128 };
    }
    let shift = 64 - 8 * b.len() as u32;
    (((u << shift) as i64) >> shift) as i128
}

/// What `%_u` shows for control characters.
const CONTROL_NAMES: [&str; 32] = [
    "nul", "soh", "stx", "etx", "eot", "enq", "ack", "bel", "bs", "ht", "lf", "vt", "ff", "cr",
    "so", "si", "dle", "dc1", "dc2", "dc3", "dc4", "nak", "syn", "etb", "can", "em", "sub", "esc",
    "fs", "gs", "rs", "us",
];

fn printable(b: u8) -> bool {
    (0x20..0x7f).contains(&b)
}

fn offset(out: &mut Vec<u8>, spec: &Spec, radix: u8, address: u64) {
    if radix != 0 {
        printf::integer(out, spec, radix, address as i128);
    }
}

/// One conversion over its bytes.
fn convert(out: &mut Vec<u8>, conv: Conv, spec: &Spec, b: &[u8], address: u64) {
    let byte = b.first().copied().unwrap_or(0);
    match conv {
        Conv::Int { signed, radix } => printf::integer(out, spec, radix, int_value(b, signed)),
        Conv::Float(c) => {
            let v = if b.len() == 4 {
                f32::from_le_bytes([b[0], b[1], b[2], b[3]]) as f64
            } else {
                let mut raw = [0u8; 8];
                raw.copy_from_slice(&b[..8]);
                f64::from_le_bytes(raw)
            };
            printf::float(out, spec, c, v)
        }
        Conv::Char => printf::string(out, spec, &[byte]),
        Conv::Str => {
            let end = b.iter().position(|&c| c == 0).unwrap_or(b.len());
            printf::string(out, spec, &b[..end]);
        }
        Conv::Escaped => {
            let esc: Option<&[u8]> = match byte {
                0 => Some(b"\\0"),
                7 => Some(b"\\a"),
                8 => Some(b"\\b"),
                12 => Some(b"\\f"),
                b'\n' => Some(b"\\n"),
                b'\r' => Some(b"\\r"),
                b'\t' => Some(b"\\t"),
                11 => Some(b"\\v"),
                _ => None,
            };
            match esc {
                Some(e) => printf::string(out, spec, e),
                None if printable(byte) => printf::string(out, spec, &[byte]),
                None => printf::string(out, spec, format!("{byte:03o}").as_bytes()),
            }
        }
        Conv::Printable => {
            let c = if printable(byte) { byte } else { b'.' };
            printf::string(out, spec, &[c]);
        }
        Conv::AsciiName => {
            if byte < 0x20 {
                printf::string(out, spec, CONTROL_NAMES[byte as usize].as_bytes());
            } else if byte == 0x7f {
                printf::string(out, spec, b"del");
            } else if printable(byte) {
                printf::string(out, spec, &[byte]);
            } else {
                printf::string(out, spec, format!("{byte:02x}").as_bytes());
            }
        }
        Conv::Offset(radix) => offset(out, spec, radix, address),
    }
}

/// Prints one print unit: its text, then its conversion, or blanks as wide as the
/// conversion's field once the input has ended before it.
fn print_unit(
    out: &mut Vec<u8>,
    p: &Print,
    text: &[u8],
    block: &[u8],
    pos: usize,
    address: u64,
    end: Option<u64>,
) {
    out.extend_from_slice(text);
    let Some((conv, spec)) = &p.conv else {
        return;
    };
    if end.is_some_and(|e| address >= e) {
        out.resize(out.len() + spec.width, b' ');
        return;
    }
    // `%s` is C's: it reads on to a NUL (or its precision), past its own byte count.
    let bytes = match conv {
        Conv::Str => block.get(pos..).unwrap_or_default().to_vec(),
        _ => bytes_at(block, pos, p.bytes),
    };
    convert(out, *conv, spec, &bytes, address);
}

/// Displays one block through every format; `end` is the offset where input ended inside it.
fn display_block(
    out: &mut Vec<u8>,
    formats: &[Format],
    block: &[u8],
    start: u64,
    end: Option<u64>,
) {
    for format in formats {
        let (mut address, mut pos) = (start, 0usize);
        // util-linux stops a format at its `%_A` unit: what follows it is never shown.
        for unit in format.iter().take_while(|u| !u.at_end) {
            for rep in 0..unit.reps {
                let last_rep = rep + 1 == unit.reps;
                for (k, p) in unit.prints.iter().enumerate() {
                    let mut text = &p.text[..];
                    if last_rep && unit.trim_last_space && k + 1 == unit.prints.len() {
                        text = &text[..text.len() - 1];
                    }
                    print_unit(out, p, text, block, pos, address, end);
                    address += p.bytes as u64;
                    pos += p.bytes;
                }
            }
        }
    }
}

/// The final `%_A` unit (the last one given): its texts and the offset where input ended.
fn display_end(out: &mut Vec<u8>, formats: &[Format], end: u64) {
    let Some(unit) = formats.iter().flatten().rfind(|u| u.at_end) else {
        return;
    };
    for p in &unit.prints {
        match &p.conv {
            None => out.extend_from_slice(&p.text),
            Some((Conv::Offset(radix), spec)) => {
                out.extend_from_slice(&p.text);
                offset(out, spec, *radix, end);
            }
            Some(_) => {}
        }
    }
}

pub fn dump(
    formats: &[Format],
    block_size: usize,
    verbose: bool,
    input: &mut Input,
    out: &mut dyn Write,
    err: &mut dyn Write,
    prog: &str,
) -> io::Result<()> {
    let mut block = vec![0u8; block_size];
    let mut previous: Option<Vec<u8>> = None;
    let mut squeezed = false;
    let mut end = None;
    let mut text = Vec::new();
    loop {
        block.fill(0);
        let got = input.fill(&mut block, err, prog);
        if got == 0 {
            break;
        }
        let start = input.offset - got as u64;
        if got == block_size && !verbose && previous.as_deref() == Some(&block[..]) {
            if !squeezed {
                out.write_all(b"*\n")?;
                squeezed = true;
            }
            continue;
        }
        squeezed = false;
        if got < block_size {
            end = Some(start + got as u64);
        }
        text.clear();
        display_block(&mut text, formats, &block, start, end);
        out.write_all(&text)?;
        if end.is_some() {
            break;
        }
        previous = Some(block.clone());
    }
    let end = match end {
        Some(e) => e,
        None if input.offset == 0 => return Ok(()),
        None => input.offset,
    };
    text.clear();
    display_end(&mut text, formats, end);
    out.write_all(&text)
}
