//! jq 1.6's JSON reader: a stream of values from bytes, with its tolerances (`NaN`, leading
//! zeros, a trailing value without a separator before EOF) and its messages and positions
//! (`Unfinished JSON term at EOF at line 2, column 0`).

use jaq_json::{Map, Num, Rc, Val};

/// What went wrong, in jq's words, with the position where the reader stopped.
#[derive(Clone, Debug, PartialEq)]
pub struct ParseError(pub String);

#[derive(Clone, Copy, PartialEq)]
enum State {
    Normal,
    InString,
    InStringEscape,
}

/// An open container, or an object's key waiting for its value.
enum Frame {
    Array(Vec<Val>),
    Object(Map),
    Key(String),
}

/// Reads one value after another from a byte slice.
pub struct Reader<'a> {
    bytes: &'a [u8],
    pos: usize,
    line: usize,
    column: usize,
    state: State,
    token: Vec<u8>,
    stack: Vec<Frame>,
    next: Option<Val>,
    failed: bool,
}

const MAX_DEPTH: usize = 256;

impl<'a> Reader<'a> {
    pub fn new(bytes: &'a [u8]) -> Self {
        Reader {
            bytes,
            pos: 0,
            line: 1,
            column: 0,
            state: State::Normal,
            token: Vec::new(),
            stack: Vec::new(),
            next: None,
            failed: false,
        }
    }

    /// How many bytes have been read.
    pub fn offset(&self) -> usize {
        self.pos
    }

    fn error(&mut self, msg: &str) -> ParseError {
        self.failed = true;
        ParseError(format!(
            "{msg} at line {}, column {}",
            self.line, self.column
        ))
    }

    fn eof_error(&mut self, msg: &str) -> ParseError {
        self.failed = true;
        ParseError(format!(
            "{msg} at EOF at line {}, column {}",
            self.line, self.column
        ))
    }

    /// The next complete value, an error (after which nothing more is read) or the end.
    pub fn next_value(&mut self) -> Option<Result<Val, ParseError>> {
        if self.failed {
            return None;
        }
        while self.pos < self.bytes.len() {
            let ch = self.bytes[self.pos];
            self.pos += 1;
            self.column += 1;
            if ch == b'\n' {
                self.line += 1;
                self.column = 0;
            }
            match self.scan(ch) {
                Ok(Some(v)) => return Some(Ok(v)),
                Ok(None) => {}
                Err(msg) => return Some(Err(self.error(msg))),
            }
        }
        self.finish()
    }

    fn finish(&mut self) -> Option<Result<Val, ParseError>> {
        if self.state != State::Normal {
            return Some(Err(self.eof_error("Unfinished string")));
        }
        if let Err(msg) = self.check_literal() {
            return Some(Err(self.eof_error(msg)));
        }
        if !self.stack.is_empty() {
            return Some(Err(self.eof_error("Unfinished JSON term")));
        }
        self.failed = true;
        self.next.take().map(Ok)
    }

    fn scan(&mut self, ch: u8) -> Result<Option<Val>, &'static str> {
        match self.state {
            State::Normal => match ch {
                b' ' | b'\t' | b'\r' | b'\n' => {
                    self.check_literal()?;
                    Ok(self.done())
                }
                b'[' | b',' | b']' | b'{' | b':' | b'}' => {
                    self.check_literal()?;
                    self.structure(ch)?;
                    Ok(self.done())
                }
                b'"' => {
                    self.check_literal()?;
                    self.state = State::InString;
                    Ok(self.done())
                }
                _ => {
                    self.token.push(ch);
                    Ok(None)
                }
            },
            State::InString | State::InStringEscape => {
                if ch == b'"' && self.state == State::InString {
                    self.state = State::Normal;
                    let s = self.found_string()?;
                    self.value(Val::utf8_str(s))?;
                    Ok(self.done())
                } else {
                    self.token.push(ch);
                    self.state = if ch == b'\\' && self.state == State::InString {
                        State::InStringEscape
                    } else {
                        State::InString
                    };
                    Ok(None)
                }
            }
        }
    }

    fn done(&mut self) -> Option<Val> {
        if self.stack.is_empty() {
            self.next.take()
        } else {
            None
        }
    }

    fn value(&mut self, v: Val) -> Result<(), &'static str> {
        if self.next.is_some() {
            return Err("Expected separator between values");
        }
        self.next = Some(v);
        Ok(())
    }

    fn check_literal(&mut self) -> Result<(), &'static str> {
        if self.token.is_empty() {
            return Ok(());
        }
        let token = std::mem::take(&mut self.token);
        let pattern: Option<(&[u8], Val)> = match token[0] {
            b't' => Some((b"true", Val::Bool(true))),
            b'f' => Some((b"false", Val::Bool(false))),
            b'n' => Some((b"null", Val::Null)),
            _ => None,
        };
        let v = match pattern {
            Some((word, v)) if token == word => v,
            Some(_) => return Err("Invalid literal"),
            None => {
                let text = std::str::from_utf8(&token).map_err(|_| "Invalid numeric literal")?;
                number_value(strtod(text).ok_or("Invalid numeric literal")?)
            }
        };
        self.value(v)
    }

    fn structure(&mut self, ch: u8) -> Result<(), &'static str> {
        match ch {
            b'[' | b'{' => {
                if self.stack.len() >= MAX_DEPTH {
                    return Err("Exceeds depth limit for parsing");
                }
                if self.next.is_some() {
                    return Err("Expected separator between values");
                }
                self.stack.push(if ch == b'[' {
                    Frame::Array(Vec::new())
                } else {
                    Frame::Object(Map::default())
                });
            }
            b':' => {
                if !matches!(self.stack.last(), Some(Frame::Object(_))) {
                    return Err("':' not as part of an object");
                }
                let key = match self.next.take() {
                    None => return Err("Expected string key before ':'"),
                    Some(Val::TStr(b)) => String::from_utf8_lossy(&b).into_owned(),
                    Some(_) => return Err("Object keys must be strings"),
                };
                self.stack.push(Frame::Key(key));
            }
            b',' => {
                let Some(v) = self.next.take() else {
                    return Err("Expected value before ','");
                };
                match self.stack.last_mut() {
                    None => return Err("',' not as part of an object or array"),
                    Some(Frame::Array(items)) => items.push(v),
                    Some(Frame::Key(_)) => {
                        let Some(Frame::Key(key)) = self.stack.pop() else {
                            unreachable!()
                        };
                        if let Some(Frame::Object(map)) = self.stack.last_mut() {
                            map.insert(Val::utf8_str(key), v);
                        }
                    }
                    Some(Frame::Object(_)) => {
                        return Err("Objects must consist of key:value pairs");
                    }
                }
            }
            b']' => {
                let Some(Frame::Array(items)) = self.stack.last_mut() else {
                    return Err("Unmatched ']'");
                };
                if let Some(v) = self.next.take() {
                    items.push(v);
                } else if !items.is_empty() {
                    return Err("Expected another array element");
                }
                let Some(Frame::Array(items)) = self.stack.pop() else {
                    unreachable!()
                };
                self.next = Some(Val::Arr(Rc::new(items)));
            }
            _ => {
                // '}'
                if self.stack.is_empty() {
                    return Err("Unmatched '}'");
                }
                if let Some(v) = self.next.take() {
                    let Some(Frame::Key(key)) = self.stack.pop() else {
                        return Err("Objects must consist of key:value pairs");
                    };
                    if let Some(Frame::Object(map)) = self.stack.last_mut() {
                        map.insert(Val::utf8_str(key), v);
                    }
                } else {
                    match self.stack.last() {
                        Some(Frame::Object(map)) if !map.is_empty() => {
                            return Err("Expected another key-value pair");
                        }
                        Some(Frame::Object(_)) => {}
                        _ => return Err("Unmatched '}'"),
                    }
                }
                let Some(Frame::Object(map)) = self.stack.pop() else {
                    return Err("Unmatched '}'");
                };
                self.next = Some(Val::obj(map));
            }
        }
        Ok(())
    }

    /// The text of the string just closed, escapes decoded.
    fn found_string(&mut self) -> Result<String, &'static str> {
        let raw = std::mem::take(&mut self.token);
        let mut out: Vec<u8> = Vec::with_capacity(raw.len());
        let mut i = 0;
        while i < raw.len() {
            let c = raw[i];
            i += 1;
            if c != b'\\' {
                out.push(c);
                continue;
            }
            let Some(&e) = raw.get(i) else {
                return Err("Expected escape character at end of string");
            };
            i += 1;
            let simple = match e {
                b'\\' | b'"' | b'/' => Some(e),
                b'b' => Some(8),
                b'f' => Some(12),
                b't' => Some(b'\t'),
                b'n' => Some(b'\n'),
                b'r' => Some(b'\r'),
                b'u' => None,
                _ => return Err("Invalid escape"),
            };
            if let Some(b) = simple {
                out.push(b);
                continue;
            }
            let hex = |at: usize| -> Option<u32> {
                let h = raw.get(at..at + 4)?;
                u32::from_str_radix(std::str::from_utf8(h).ok()?, 16).ok()
            };
            let Some(unit) = hex(i) else {
                return Err("Invalid \\uXXXX escape");
            };
            i += 4;
            let code = if (0xD800..0xDC00).contains(&unit) {
                if raw.get(i) != Some(&b'\\') || raw.get(i + 1) != Some(&b'u') {
                    return Err("Invalid \\uXXXX\\uXXXX surrogate pair escape");
                }
                let low = hex(i + 2).ok_or("Invalid \\uXXXX\\uXXXX surrogate pair escape")?;
                if !(0xDC00..0xE000).contains(&low) {
                    return Err("Invalid \\uXXXX\\uXXXX surrogate pair escape");
                }
                i += 6;
                0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00)
            } else if (0xDC00..0xE000).contains(&unit) {
                0xFFFD
            } else {
                unit
            };
            let ch = char::from_u32(code).unwrap_or('\u{FFFD}');
            let mut buf = [0u8; 4];
            out.extend_from_slice(ch.encode_utf8(&mut buf).as_bytes());
        }
        Ok(String::from_utf8_lossy(&out).into_owned())
    }
}

/// A number as jq holds it: a double, kept as an integer when it is one exactly and fits the
/// machine word (32 bits in the wasm guest), so that it indexes arrays as jq's do.
pub fn number_value(d: f64) -> Val {
    let exact = 9_007_199_254_740_992.0_f64.min(isize::MAX as f64);
    if d.fract() == 0.0 && d.abs() <= exact && !(d == 0.0 && d.is_sign_negative()) {
        Val::Num(Num::Int(d as isize))
    } else {
        Val::Num(Num::Float(d))
    }
}

/// C's `strtod` on a whole token, as jq's reader applies it: decimal numbers with an optional
/// sign, point and exponent, and `nan`/`inf`/`infinity` in any case.
pub fn strtod(text: &str) -> Option<f64> {
    let unsigned = text.strip_prefix(['+', '-']).unwrap_or(text);
    let negative = text.starts_with('-');
    let lower = unsigned.to_ascii_lowercase();
    let special = match lower.as_str() {
        "nan" => Some(f64::NAN),
        "inf" | "infinity" => Some(f64::INFINITY),
        _ => None,
    };
    if let Some(v) = special {
        return Some(if negative { -v } else { v });
    }
    let b = unsigned.as_bytes();
    let mut i = 0;
    let digits = |i: &mut usize| {
        let start = *i;
        while *i < b.len() && b[*i].is_ascii_digit() {
            *i += 1;
        }
        *i - start
    };
    let int_digits = digits(&mut i);
    let mut frac_digits = 0;
    if i < b.len() && b[i] == b'.' {
        i += 1;
        frac_digits = digits(&mut i);
    }
    if int_digits + frac_digits == 0 {
        return None;
    }
    if i < b.len() && (b[i] == b'e' || b[i] == b'E') {
        let mut j = i + 1;
        if j < b.len() && (b[j] == b'+' || b[j] == b'-') {
            j += 1;
        }
        if digits(&mut j) == 0 {
            return None;
        }
        i = j;
    }
    if i != b.len() {
        return None;
    }
    let mut normal = unsigned.to_string();
    if normal.starts_with('.') {
        normal.insert(0, '0');
    }
    let v: f64 = normal
        .replace(".e", ".0e")
        .replace(".E", ".0E")
        .parse()
        .ok()?;
    Some(if negative { -v } else { v })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read_all(text: &str) -> Vec<Result<String, String>> {
        let mut r = Reader::new(text.as_bytes());
        let mut out = Vec::new();
        while let Some(v) = r.next_value() {
            out.push(v.map(|v| crate::output::compact(&v)).map_err(|e| e.0));
        }
        out
    }

    /// Messages and positions measured with jq 1.6 on Ubuntu 22.04.
    #[test]
    fn reads_and_fails_as_jq_1_6() {
        assert_eq!(
            read_all("1 [2, {\"a\":01}]\n"),
            [Ok("1".into()), Ok("[2,{\"a\":1}]".into())]
        );
        assert_eq!(
            read_all("{\"a\":1\n"),
            [Err("Unfinished JSON term at EOF at line 2, column 0".into())]
        );
        assert_eq!(
            read_all("nope\n"),
            [Err("Invalid literal at line 2, column 0".into())]
        );
        assert_eq!(
            read_all("[1,]\n"),
            [Err(
                "Expected another array element at line 1, column 4".into()
            )]
        );
        assert_eq!(
            read_all("{'a':1}\n"),
            [Err("Invalid numeric literal at line 1, column 5".into())]
        );
        assert_eq!(
            read_all("{\"a\":1,}\n"),
            [Err(
                "Expected another key-value pair at line 1, column 8".into()
            )]
        );
        assert_eq!(
            read_all("[1 2]\n"),
            [Err(
                "Expected separator between values at line 1, column 5".into()
            )]
        );
        assert_eq!(
            read_all("{\"a\" 1}\n"),
            [Err(
                "Expected separator between values at line 1, column 7".into()
            )]
        );
        assert_eq!(
            read_all("}\n"),
            [Err("Unmatched '}' at line 1, column 1".into())]
        );
        assert_eq!(
            read_all("\"\\x\"\n"),
            [Err("Invalid escape at line 1, column 4".into())]
        );
        assert_eq!(
            read_all("\"abc\n"),
            [Err("Unfinished string at EOF at line 2, column 0".into())]
        );
        assert_eq!(
            read_all("[1,2"),
            [Err("Unfinished JSON term at EOF at line 1, column 4".into())]
        );
        assert_eq!(
            read_all("NaN 1e5 -0.0 1.000\n"),
            [
                Ok("null".into()),
                Ok("100000".into()),
                Ok("-0".into()),
                Ok("1".into())
            ]
        );
        assert_eq!(
            read_all("{\"a\":1} garbage\n"),
            [
                Ok("{\"a\":1}".into()),
                Err("Invalid numeric literal at line 2, column 0".into())
            ]
        );
    }
}
