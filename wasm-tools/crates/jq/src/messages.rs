//! jq 1.6's words for what goes wrong: runtime errors, rewritten from jaq's messages, and
//! the C library's texts for file errors.

use crate::output::truncated;
use jaq_json::Val;

/// jq's name for a value's kind.
pub fn kind(v: &Val) -> &'static str {
    match v {
        Val::Null => "null",
        Val::Bool(_) => "boolean",
        Val::Num(_) => "number",
        Val::TStr(_) | Val::BStr(_) => "string",
        Val::Arr(_) => "array",
        Val::Obj(_) => "object",
    }
}

/// `kind (value)`, the value cut as jq cuts it in messages.
pub fn described(v: &Val) -> String {
    format!("{} ({})", kind(v), truncated(v))
}

/// An I/O error as `strerror` words it, without Rust's "(os error N)".
pub fn strerror(e: &std::io::Error) -> String {
    let text = e.to_string();
    match text.find(" (os error") {
        Some(at) => text[..at].to_string(),
        None => text,
    }
}

/// The message of an uncaught error: `Ok(text)` for a string (printed as is), `Err(value)`
/// for anything else (printed as JSON after "(not a string)"). jaq's own messages for the
/// errors jq also raises are rewritten in jq's words.
pub fn runtime(v: Val) -> Result<String, Val> {
    let Val::TStr(bytes) = &v else {
        return Err(v);
    };
    let text = String::from_utf8_lossy(bytes).into_owned();
    Ok(rewrite(&text).unwrap_or(text))
}

fn rewrite(text: &str) -> Option<String> {
    if let Some(rest) = text.strip_prefix("cannot index ") {
        let (l, rest) = leading_value(rest)?;
        let r_text = rest.strip_prefix(" with ")?;
        let (r, tail) = leading_value(r_text)?;
        if !tail.is_empty() {
            return None;
        }
        return Some(match &r {
            Val::TStr(key) => format!(
                "Cannot index {} with string \"{}\"",
                kind(&l),
                String::from_utf8_lossy(key)
            ),
            other => format!("Cannot index {} with {}", kind(&l), kind(other)),
        });
    }
    if let Some(rest) = text.strip_prefix("cannot use ") {
        let (v, tail) = leading_value(rest)?;
        return match tail {
            " as iterable" | " as iterable (array or object)" => {
                Some(format!("Cannot iterate over {}", described(&v)))
            }
            " as object or array" | " as object" => Some(format!("{} has no keys", described(&v))),
            " as string" => Some(format!(
                "{} cannot be matched, as it is not a string",
                described(&v)
            )),
            " as number" => Some(format!("{} number required", described(&v))),
            _ => None,
        };
    }
    if let Some(subject) = text.strip_suffix(" has no length") {
        let (v, tail) = leading_value(subject)?;
        return tail
            .is_empty()
            .then(|| format!("{} has no length", described(&v)));
    }
    if let Some(rest) = text.strip_prefix("cannot calculate ") {
        let (l, rest) = leading_value(rest)?;
        let rest = rest.strip_prefix(' ')?;
        let (op, rest) = rest.split_once(' ')?;
        let (r, tail) = leading_value(rest)?;
        if !tail.is_empty() {
            return None;
        }
        let verb = match op {
            "+" => "added",
            "-" => "subtracted",
            "*" => "multiplied",
            "/" | "%" => "divided",
            _ => return None,
        };
        return Some(format!(
            "{} and {} cannot be {verb}",
            described(&l),
            described(&r)
        ));
    }
    None
}

/// A JSON value at the start of `text` (as jaq writes values in its messages), and the rest.
fn leading_value(text: &str) -> Option<(Val, &str)> {
    let bytes = text.as_bytes();
    let mut reader = crate::input::Reader::new(bytes);
    let v = reader.next_value()?.ok()?;
    let read = reader.offset();
    // Strings and containers end at their closing character; a number or literal is only
    // known to end at the character after it, which the reader has consumed (unless EOF).
    let end = match v {
        Val::TStr(_) | Val::Arr(_) | Val::Obj(_) => read,
        _ if read == bytes.len() && !bytes[read - 1].is_ascii_whitespace() => read,
        _ => read - 1,
    };
    Some((v, &text[end..]))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn said(jaq: &str) -> String {
        runtime(Val::utf8_str(jaq.to_string())).unwrap()
    }

    /// jaq's messages against what jq 1.6 said for the same filters on Ubuntu 22.04.
    #[test]
    fn jaq_messages_in_jq_words() {
        assert_eq!(
            said(r#"cannot index "x" with "b""#),
            r#"Cannot index string with string "b""#
        );
        assert_eq!(
            said("cannot index {} with 0"),
            "Cannot index object with number"
        );
        assert_eq!(
            said("cannot use null as iterable (array or object)"),
            "Cannot iterate over null (null)"
        );
        assert_eq!(
            said("cannot use 5 as iterable (array or object)"),
            "Cannot iterate over number (5)"
        );
        assert_eq!(
            said(r#"cannot calculate 1 + "a""#),
            r#"number (1) and string ("a") cannot be added"#
        );
        assert_eq!(
            said(r#"cannot calculate {} - 1"#),
            "object ({}) and number (1) cannot be subtracted"
        );
        assert_eq!(said("true has no length"), "boolean (true) has no length");
        assert_eq!(
            said("cannot use 1 as string"),
            "number (1) cannot be matched, as it is not a string"
        );
        assert_eq!(
            said(r#"cannot calculate {"aaaa":1,"bbbb":2} - 1"#),
            r#"object ({"aaaa":1,"...) and number (1) cannot be subtracted"#
        );
        assert_eq!(said("boom"), "boom");
        assert!(runtime(Val::Null).is_err());
    }
}
