//! jq 1.6's `@csv`, `@tsv`, `@sh`, `@html`, `@uri`, `@base64` and `@base64d`, with its
//! messages for what they refuse.

use crate::messages::described;
use crate::output::{compact, number};
use jaq_json::Val;

fn text_of(v: &Val) -> String {
    match v {
        Val::TStr(b) | Val::BStr(b) => String::from_utf8_lossy(b).into_owned(),
        other => compact(other),
    }
}

/// The format `name` applied to `v`, or jq's message.
pub fn apply(name: &str, v: &Val) -> Result<String, String> {
    match name {
        "csv" | "tsv" => row(name, v),
        "sh" => shell(v),
        "html" => Ok(text_of(v)
            .chars()
            .map(|c| match c {
                '<' => "&lt;".to_string(),
                '>' => "&gt;".to_string(),
                '&' => "&amp;".to_string(),
                '\'' => "&apos;".to_string(),
                '"' => "&quot;".to_string(),
                c => c.to_string(),
            })
            .collect()),
        "uri" => Ok(text_of(v)
            .bytes()
            .map(|b| {
                if b.is_ascii_alphanumeric() || b"-_.!~*'()".contains(&b) {
                    (b as char).to_string()
                } else {
                    format!("%{b:02X}")
                }
            })
            .collect()),
        "base64" => Ok(base64_encode(text_of(v).as_bytes())),
        "base64d" => {
            let t = text_of(v);
            base64_decode(&t)
                .map(|b| String::from_utf8_lossy(&b).into_owned())
                .ok_or_else(|| format!("{} trailing base64 byte found", described(v)))
        }
        other => Err(format!("{other} is not a valid format")),
    }
}

fn row(name: &str, v: &Val) -> Result<String, String> {
    let Val::Arr(items) = v else {
        return Err(format!(
            "{} cannot be {name}-formatted, only array",
            described(v)
        ));
    };
    let mut cells = Vec::new();
    for item in items.iter() {
        cells.push(match item {
            Val::Null => String::new(),
            Val::Bool(b) => b.to_string(),
            Val::Num(n) => number(n),
            Val::TStr(b) | Val::BStr(b) => {
                let s = String::from_utf8_lossy(b);
                if name == "csv" {
                    format!("\"{}\"", s.replace('"', "\"\""))
                } else {
                    s.replace('\\', "\\\\")
                        .replace('\t', "\\t")
                        .replace('\n', "\\n")
                        .replace('\r', "\\r")
                }
            }
            other => return Err(format!("{} is not valid in a csv row", described(other))),
        });
    }
    Ok(cells.join(if name == "csv" { "," } else { "\t" }))
}

fn shell(v: &Val) -> Result<String, String> {
    let quote = |item: &Val| -> Result<String, String> {
        match item {
            Val::TStr(b) | Val::BStr(b) => Ok(format!(
                "'{}'",
                String::from_utf8_lossy(b).replace('\'', "'\\''")
            )),
            Val::Arr(_) | Val::Obj(_) => {
                Err(format!("{} can not be escaped for shell", described(item)))
            }
            other => Ok(compact(other)),
        }
    };
    match v {
        Val::Arr(items) => Ok(items
            .iter()
            .map(quote)
            .collect::<Result<Vec<_>, _>>()?
            .join(" ")),
        other => quote(other),
    }
}

const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

fn base64_encode(bytes: &[u8]) -> String {
    let mut out = String::new();
    for chunk in bytes.chunks(3) {
        let n = chunk
            .iter()
            .enumerate()
            .fold(0u32, |n, (i, &b)| n | (u32::from(b) << (16 - 8 * i)));
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(ALPHABET[((n >> (18 - 6 * i)) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

/// Decodes up to the first `=`; `None` when a lone trailing character carries no whole byte.
fn base64_decode(text: &str) -> Option<Vec<u8>> {
    let mut bits = 0u32;
    let mut nbits = 0;
    let mut out = Vec::new();
    let mut count = 0;
    for c in text.bytes() {
        if c == b'=' {
            break;
        }
        let value = ALPHABET.iter().position(|&a| a == c)?;
        count += 1;
        bits = (bits << 6) | value as u32;
        nbits += 6;
        if nbits >= 8 {
            nbits -= 8;
            out.push((bits >> nbits) as u8);
            bits &= (1 << nbits) - 1;
        }
    }
    if count % 4 == 1 {
        return None;
    }
    Some(out)
}
