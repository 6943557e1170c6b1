//! The awk tokenizer. Whether `/` starts a regex or divides is decided by the parser, which
//! asks [`Lexer::regex_at`] to re-read a `/` or `/=` token as a regex when it expects an
//! operand; that is exact where a previous-token heuristic is not (`a / b / c` vs `x = /re/`).

use super::value::Str;
use std::rc::Rc;

#[derive(Debug, Clone, PartialEq)]
pub enum Tok {
    Newline,
    Eof,
    LBrace,
    RBrace,
    LParen,
    RParen,
    LBracket,
    RBracket,
    Semi,
    Comma,
    Plus,
    Minus,
    Star,
    Slash,
    Percent,
    Caret,
    Not,
    Gt,
    Lt,
    Pipe,
    Question,
    Colon,
    Tilde,
    NoMatch,
    Dollar,
    Eq,
    Ne,
    Le,
    Ge,
    And,
    Or,
    Incr,
    Decr,
    Append,
    Assign,
    AddAssign,
    SubAssign,
    MulAssign,
    DivAssign,
    ModAssign,
    PowAssign,
    Number(f64),
    Str(Str),
    Ere(Str),
    Name(String),
    /// A name immediately followed by `(`: a user function call.
    FuncName(String),
    Builtin(Builtin),
    Begin,
    End,
    Function,
    Getline,
    Print,
    Printf,
    If,
    Else,
    While,
    For,
    Do,
    Break,
    Continue,
    Next,
    Nextfile,
    Exit,
    Return,
    Delete,
    In,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Builtin {
    Length,
    Substr,
    Index,
    Split,
    Sub,
    Gsub,
    Match,
    Sprintf,
    Sin,
    Cos,
    Atan2,
    Exp,
    Log,
    Sqrt,
    Int,
    Rand,
    Srand,
    Tolower,
    Toupper,
    System,
    Close,
    Fflush,
    /// mawk 1.3.4 time functions.
    Systime,
    Strftime,
    Mktime,
}

#[derive(Debug, Clone)]
pub struct Token {
    pub tok: Tok,
    pub line: usize,
    /// Byte offset where the token starts (to re-read `/` as a regex).
    pub start: usize,
}

/// A lexical error with mawk's wording (the caller adds the prefix).
#[derive(Debug)]
pub struct LexError {
    pub line: usize,
    pub msg: String,
    /// mawk reports unexpected characters as `1: unexpected character` (no "line").
    pub bare_line: bool,
}

pub struct Lexer<'a> {
    src: &'a [u8],
    pos: usize,
    line: usize,
    /// gawk mode accepts `**` and `**=`; mawk rejects them.
    pub gawk: bool,
}

impl<'a> Lexer<'a> {
    pub fn new(src: &'a [u8], gawk: bool) -> Lexer<'a> {
        Lexer {
            src,
            pos: 0,
            line: 1,
            gawk,
        }
    }

    /// The line mawk reports for errors at end of file.
    pub fn eof_line(&self) -> usize {
        let nl = self.src.iter().filter(|&&c| c == b'\n').count();
        1 + nl + usize::from(!self.src.ends_with(b"\n"))
    }

    fn peek_byte(&self, off: usize) -> Option<u8> {
        self.src.get(self.pos + off).copied()
    }

    pub fn next_token(&mut self) -> Result<Token, LexError> {
        // Blanks, comments and backslash-newline continuations.
        loop {
            match self.peek_byte(0) {
                Some(b' ' | b'\t' | b'\r') => self.pos += 1,
                Some(b'\\') if matches!(self.peek_byte(1), Some(b'\n')) => {
                    self.pos += 2;
                    self.line += 1;
                }
                Some(b'\\')
                    if matches!(self.peek_byte(1), Some(b'\r'))
                        && matches!(self.peek_byte(2), Some(b'\n')) =>
                {
                    self.pos += 3;
                    self.line += 1;
                }
                Some(b'#') => {
                    while let Some(c) = self.peek_byte(0) {
                        if c == b'\n' {
                            break;
                        }
                        self.pos += 1;
                    }
                }
                _ => break,
            }
        }
        let start = self.pos;
        let line = self.line;
        let mk = |tok| Token { tok, line, start };
        let Some(c) = self.peek_byte(0) else {
            return Ok(Token {
                tok: Tok::Eof,
                line: self.eof_line(),
                start,
            });
        };
        self.pos += 1;
        let next = self.peek_byte(0);
        let two = |lx: &mut Lexer, t: Tok| {
            lx.pos += 1;
            Ok(mk(t))
        };
        match c {
            b'\n' => {
                self.line += 1;
                Ok(mk(Tok::Newline))
            }
            b'{' => Ok(mk(Tok::LBrace)),
            b'}' => Ok(mk(Tok::RBrace)),
            b'(' => Ok(mk(Tok::LParen)),
            b')' => Ok(mk(Tok::RParen)),
            b'[' => Ok(mk(Tok::LBracket)),
            b']' => Ok(mk(Tok::RBracket)),
            b';' => Ok(mk(Tok::Semi)),
            b',' => Ok(mk(Tok::Comma)),
            b'?' => Ok(mk(Tok::Question)),
            b':' => Ok(mk(Tok::Colon)),
            b'~' => Ok(mk(Tok::Tilde)),
            b'$' => Ok(mk(Tok::Dollar)),
            b'+' => match next {
                Some(b'+') => two(self, Tok::Incr),
                Some(b'=') => two(self, Tok::AddAssign),
                _ => Ok(mk(Tok::Plus)),
            },
            b'-' => match next {
                Some(b'-') => two(self, Tok::Decr),
                Some(b'=') => two(self, Tok::SubAssign),
                _ => Ok(mk(Tok::Minus)),
            },
            b'*' => match next {
                Some(b'=') => two(self, Tok::MulAssign),
                Some(b'*') if self.gawk => {
                    self.pos += 1;
                    if self.peek_byte(0) == Some(b'=') {
                        two(self, Tok::PowAssign)
                    } else {
                        Ok(mk(Tok::Caret))
                    }
                }
                _ => Ok(mk(Tok::Star)),
            },
            b'/' => match next {
                Some(b'=') => two(self, Tok::DivAssign),
                _ => Ok(mk(Tok::Slash)),
            },
            b'%' => match next {
                Some(b'=') => two(self, Tok::ModAssign),
                _ => Ok(mk(Tok::Percent)),
            },
            b'^' => match next {
                Some(b'=') => two(self, Tok::PowAssign),
                _ => Ok(mk(Tok::Caret)),
            },
            b'!' => match next {
                Some(b'=') => two(self, Tok::Ne),
                Some(b'~') => two(self, Tok::NoMatch),
                _ => Ok(mk(Tok::Not)),
            },
            b'=' => match next {
                Some(b'=') => two(self, Tok::Eq),
                _ => Ok(mk(Tok::Assign)),
            },
            b'<' => match next {
                Some(b'=') => two(self, Tok::Le),
                _ => Ok(mk(Tok::Lt)),
            },
            b'>' => match next {
                Some(b'=') => two(self, Tok::Ge),
                Some(b'>') => two(self, Tok::Append),
                _ => Ok(mk(Tok::Gt)),
            },
            b'&' if next == Some(b'&') => two(self, Tok::And),
            b'|' => match next {
                Some(b'|') => two(self, Tok::Or),
                _ => Ok(mk(Tok::Pipe)),
            },
            b'"' => self.string(start, line),
            b'0'..=b'9' | b'.' => {
                self.pos = start;
                self.number(start, line)
            }
            c if c.is_ascii_alphabetic() || c == b'_' => {
                while self
                    .peek_byte(0)
                    .is_some_and(|c| c.is_ascii_alphanumeric() || c == b'_')
                {
                    self.pos += 1;
                }
                let word = String::from_utf8_lossy(&self.src[start..self.pos]).into_owned();
                Ok(mk(self.word(word)))
            }
            _ => Err(LexError {
                line,
                msg: format!("unexpected character '{}'", show_char(c)),
                bare_line: true,
            }),
        }
    }

    fn word(&self, w: String) -> Tok {
        let b = |b| Tok::Builtin(b);
        match w.as_str() {
            "BEGIN" => Tok::Begin,
            "END" => Tok::End,
            "function" => Tok::Function,
            "func" if self.gawk => Tok::Function,
            "getline" => Tok::Getline,
            "print" => Tok::Print,
            "printf" => Tok::Printf,
            "if" => Tok::If,
            "else" => Tok::Else,
            "while" => Tok::While,
            "for" => Tok::For,
            "do" => Tok::Do,
            "break" => Tok::Break,
            "continue" => Tok::Continue,
            "next" => Tok::Next,
            "nextfile" => Tok::Nextfile,
            "exit" => Tok::Exit,
            "return" => Tok::Return,
            "delete" => Tok::Delete,
            "in" => Tok::In,
            "length" => b(Builtin::Length),
            "substr" => b(Builtin::Substr),
            "index" => b(Builtin::Index),
            "split" => b(Builtin::Split),
            "sub" => b(Builtin::Sub),
            "gsub" => b(Builtin::Gsub),
            "match" => b(Builtin::Match),
            "sprintf" => b(Builtin::Sprintf),
            "sin" => b(Builtin::Sin),
            "cos" => b(Builtin::Cos),
            "atan2" => b(Builtin::Atan2),
            "exp" => b(Builtin::Exp),
            "log" => b(Builtin::Log),
            "sqrt" => b(Builtin::Sqrt),
            "int" => b(Builtin::Int),
            "rand" => b(Builtin::Rand),
            "srand" => b(Builtin::Srand),
            "tolower" => b(Builtin::Tolower),
            "toupper" => b(Builtin::Toupper),
            "system" => b(Builtin::System),
            "close" => b(Builtin::Close),
            "fflush" => b(Builtin::Fflush),
            "systime" => b(Builtin::Systime),
            "strftime" => b(Builtin::Strftime),
            "mktime" => b(Builtin::Mktime),
            _ => {
                if self.peek_byte(0) == Some(b'(') {
                    Tok::FuncName(w)
                } else {
                    Tok::Name(w)
                }
            }
        }
    }

    fn number(&mut self, start: usize, line: usize) -> Result<Token, LexError> {
        let s = self.src;
        let mut i = self.pos;
        let mut digits = 0;
        while i < s.len() && s[i].is_ascii_digit() {
            i += 1;
            digits += 1;
        }
        if i < s.len() && s[i] == b'.' {
            i += 1;
            while i < s.len() && s[i].is_ascii_digit() {
                i += 1;
                digits += 1;
            }
        }
        if digits == 0 {
            return Err(LexError {
                line,
                msg: "unexpected character '.'".into(),
                bare_line: true,
            });
        }
        if i < s.len() && (s[i] | 0x20) == b'e' {
            let mut k = i + 1;
            if k < s.len() && (s[k] == b'+' || s[k] == b'-') {
                k += 1;
            }
            if k < s.len() && s[k].is_ascii_digit() {
                while k < s.len() && s[k].is_ascii_digit() {
                    k += 1;
                }
                i = k;
            }
        }
        let text = std::str::from_utf8(&s[self.pos..i]).unwrap_or("0");
        let v = text.parse::<f64>().unwrap_or(0.0);
        self.pos = i;
        Ok(Token {
            tok: Tok::Number(v),
            line,
            start,
        })
    }

    fn string(&mut self, start: usize, line: usize) -> Result<Token, LexError> {
        let mut out = Vec::new();
        loop {
            let Some(c) = self.peek_byte(0) else {
                return Err(self.runaway("string constant \"", start + 1));
            };
            match c {
                b'"' => {
                    self.pos += 1;
                    break;
                }
                b'\n' => return Err(self.runaway("string constant \"", start + 1)),
                b'\\' => {
                    self.pos += 1;
                    match self.peek_byte(0) {
                        Some(b'\n') => {
                            // An escaped newline continues the string.
                            self.pos += 1;
                            self.line += 1;
                        }
                        Some(_) => {
                            let (bytes, used) = unescape_one(&self.src[self.pos..]);
                            out.extend_from_slice(&bytes);
                            self.pos += used;
                        }
                        None => out.push(b'\\'),
                    }
                }
                _ => {
                    out.push(c);
                    self.pos += 1;
                }
            }
        }
        Ok(Token {
            tok: Tok::Str(Rc::from(out)),
            line,
            start,
        })
    }

    fn runaway(&self, what: &str, from: usize) -> LexError {
        // mawk shows up to 10 bytes of what follows the opening quote or slash.
        let rest = &self.src[from..];
        let end = rest
            .iter()
            .position(|&c| c == b'\n')
            .unwrap_or(rest.len())
            .min(10);
        LexError {
            line: self.line,
            msg: format!(
                "runaway {what}{} ...",
                String::from_utf8_lossy(&rest[..end])
            ),
            bare_line: false,
        }
    }

    /// Re-reads from `start` (where a `/` or `/=` token began) as a regex literal. The
    /// body is kept raw for the regex translator except that `\/` becomes `/`.
    pub fn regex_at(&mut self, start: usize, line: usize) -> Result<Token, LexError> {
        self.pos = start + 1;
        self.line = line;
        let mut out = Vec::new();
        let mut in_bracket = false;
        let mut bracket_start = 0;
        loop {
            let Some(c) = self.peek_byte(0) else {
                return Err(self.runaway("regular expression /", start + 1));
            };
            match c {
                b'\n' => return Err(self.runaway("regular expression /", start + 1)),
                b'\\' => {
                    match self.peek_byte(1) {
                        Some(b'/') => out.push(b'/'),
                        Some(b'\n') => {
                            self.line += 1;
                        }
                        Some(n) => {
                            out.push(b'\\');
                            out.push(n);
                        }
                        None => return Err(self.runaway("regular expression /", start + 1)),
                    }
                    self.pos += 2;
                    continue;
                }
                b'[' if !in_bracket => {
                    in_bracket = true;
                    bracket_start = out.len();
                }
                b'[' if matches!(self.peek_byte(1), Some(b':' | b'.' | b'=')) => {
                    // `[:alpha:]` inside a bracket: its `]` does not close the bracket.
                    let kind = self.src[self.pos + 1];
                    let rest = &self.src[self.pos + 2..];
                    if let Some(end) = rest.windows(2).position(|w| w[0] == kind && w[1] == b']') {
                        let stop = self.pos + 2 + end + 2;
                        if !self.src[self.pos..stop].contains(&b'\n') {
                            out.extend_from_slice(&self.src[self.pos..stop]);
                            self.pos = stop;
                            continue;
                        }
                    }
                }
                b']' if in_bracket => {
                    // `]` right after `[` or `[^` is a member, not the end.
                    let body = &out[bracket_start + 1..];
                    if !(body.is_empty() || body == b"^") {
                        in_bracket = false;
                    }
                }
                b'/' if !in_bracket => {
                    self.pos += 1;
                    break;
                }
                _ => {}
            }
            out.push(c);
            self.pos += 1;
        }
        Ok(Token {
            tok: Tok::Ere(Rc::from(out)),
            line,
            start,
        })
    }

    /// The resume point, for the parser's backtracking over `print (…)`.
    pub fn position(&self) -> (usize, usize) {
        (self.pos, self.line)
    }

    pub fn set_position(&mut self, (pos, line): (usize, usize)) {
        self.pos = pos;
        self.line = line;
    }
}

fn show_char(c: u8) -> String {
    if c.is_ascii_graphic() || c == b' ' {
        (c as char).to_string()
    } else {
        format!("\\{c:03o}")
    }
}

/// Interprets one escape sequence (the text after a backslash) as mawk does in string
/// literals, `-v` values and command-line assignments: `\" \\ \n`… and octal and hex escapes
/// are translated, an unknown escape keeps its backslash (`"\."` is `\.`, which matters when
/// the string is used as a dynamic regex; mawk also keeps the backslash of `\/` in strings).
pub fn unescape_one(s: &[u8]) -> (Vec<u8>, usize) {
    match gnu::escape::decode_one(s, &gnu::escape::AWK) {
        (gnu::escape::Escape::Byte(b), used) => (vec![b], used),
        _ => match s.first() {
            Some(&c) => (vec![b'\\', c], 1),
            None => (vec![b'\\'], 0),
        },
    }
}

/// Processes escapes in a whole command-line string (`-v x=…`, `x=…` operands, `-F`).
pub fn unescape(s: &[u8]) -> Vec<u8> {
    gnu::escape::decode(s, &gnu::escape::AWK).0
}

#[cfg(test)]
mod tests {
    use super::*;

    fn toks(src: &str) -> Vec<Tok> {
        let mut lx = Lexer::new(src.as_bytes(), false);
        let mut v = Vec::new();
        loop {
            let t = lx.next_token().unwrap();
            if t.tok == Tok::Eof {
                return v;
            }
            v.push(t.tok);
        }
    }

    #[test]
    fn basics() {
        assert_eq!(
            toks("x += 1e3 # c\n"),
            vec![
                Tok::Name("x".into()),
                Tok::AddAssign,
                Tok::Number(1000.0),
                Tok::Newline
            ]
        );
        assert_eq!(toks("f(x)")[0], Tok::FuncName("f".into()));
        assert_eq!(toks("f (x)")[0], Tok::Name("f".into()));
        assert_eq!(
            toks(r#""a\.b\t\"""#),
            vec![Tok::Str(Rc::from(&b"a\\.b\t\""[..]))]
        );
    }

    #[test]
    fn regex_reread() {
        let mut lx = Lexer::new(b"/[/]a\\/b/ x", false);
        let t = lx.next_token().unwrap();
        assert_eq!(t.tok, Tok::Slash);
        let r = lx.regex_at(t.start, t.line).unwrap();
        assert_eq!(r.tok, Tok::Ere(Rc::from(&b"[/]a/b"[..])));
        assert_eq!(lx.next_token().unwrap().tok, Tok::Name("x".into()));
    }

    #[test]
    fn escapes() {
        assert_eq!(unescape(b"a\\tb\\/\\x41\\101"), b"a\tb\\/AA");
    }
}
