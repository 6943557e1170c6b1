//! Where bash finds an arithmetic expression malformed, and how it says so. The evaluator
//! works on brush-parser's tree, which keeps no positions; when that parser refuses an
//! expression, this reads it again the way bash's own one-pass reader (`expr.c`) does, token
//! by token, to find the first error and the token bash names:
//!
//! ```text
//! 1 +: syntax error: operand expected (error token is "+")
//! 1 2 : syntax error in expression (error token is "2 ")
//! 1 + 1.5: syntax error: invalid arithmetic operator (error token is ".5")
//! 08: value too great for base (error token is "08")
//! ```
//!
//! The error token is the text from the start of the last token bash read (at the end of the
//! text that is still the token before it) to the end; the expression is named without its
//! leading blanks, and only up to the end of a malformed number (bash ends the text there
//! while it converts the number).

/// A token of bash's arithmetic reader.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Tok {
    /// The end of the text.
    End,
    Num,
    /// A variable name, with its subscript if any.
    Name,
    /// An operator or parenthesis, by its text.
    Op(&'static str),
    /// `++`/`--` before a name.
    PreStep,
    /// `++`/`--` after a name.
    PostStep,
    /// An assignment operator (`=`, `+=`, `<<=`…).
    Assign,
}

impl Tok {
    /// bash's `_is_arithop` or `_is_multiop` of the token: an operator or a parenthesis, after
    /// which an unknown character is a missing operand rather than an unknown operator.
    fn is_operator(self) -> bool {
        matches!(
            self,
            Tok::Op(_) | Tok::PreStep | Tok::PostStep | Tok::Assign
        )
    }
}

/// Operators of two characters (three for the shift assignments), longest first.
const MULTI: &[(&str, Tok)] = &[
    ("<<=", Tok::Assign),
    (">>=", Tok::Assign),
    ("==", Tok::Op("==")),
    ("!=", Tok::Op("!=")),
    (">=", Tok::Op(">=")),
    ("<=", Tok::Op("<=")),
    ("<<", Tok::Op("<<")),
    (">>", Tok::Op(">>")),
    ("&&", Tok::Op("&&")),
    ("||", Tok::Op("||")),
    ("**", Tok::Op("**")),
];

const SINGLE: &[&str] = &[
    "=", "<", ">", "+", "-", "*", "/", "%", "!", "~", "&", "|", "^", "?", ":", "(", ")", ",",
];

struct Reader<'a> {
    text: &'a str,
    /// Where the next token starts (blanks before it included).
    at: usize,
    tok: Tok,
    /// The token before `tok`: bash's `lasttok`.
    previous: Tok,
    /// Where the last token that was not the end started: bash's `lasttp`.
    last_start: usize,
}

/// Why reading stopped: bash's message and, for a malformed number, where bash cut the
/// expression it names.
struct Failure {
    message: &'static str,
    cut: Option<usize>,
}

type Read<T> = Result<T, Failure>;

fn fail<T>(message: &'static str) -> Read<T> {
    Err(Failure { message, cut: None })
}

fn is_blank(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n')
}

impl Reader<'_> {
    /// bash's `readtok`.
    fn next(&mut self) -> Read<()> {
        self.previous = self.tok;
        let bytes = self.text.as_bytes();
        while self.at < bytes.len() && is_blank(bytes[self.at]) {
            self.at += 1;
        }
        if self.at == bytes.len() {
            self.tok = Tok::End;
            return Ok(());
        }
        let start = self.at;
        self.last_start = start;
        let c = bytes[start];
        let rest = &self.text[start..];
        if c.is_ascii_alphabetic() || c == b'_' {
            let mut end = start;
            while end < bytes.len() && (bytes[end].is_ascii_alphanumeric() || bytes[end] == b'_') {
                end += 1;
            }
            if bytes.get(end) == Some(&b'[') {
                end = crate::first_error::subscript_end(bytes, start).ok_or(Failure {
                    message: "bad array subscript",
                    cut: None,
                })?;
            }
            self.at = end;
            self.tok = Tok::Name;
            return Ok(());
        }
        if c.is_ascii_digit() {
            let mut end = start;
            while end < bytes.len()
                && (bytes[end].is_ascii_alphanumeric() || matches!(bytes[end], b'#' | b'@' | b'_'))
            {
                end += 1;
            }
            if let Err(message) = number(&self.text[start..end]) {
                return Err(Failure {
                    message,
                    cut: Some(end),
                });
            }
            self.at = end;
            self.tok = Tok::Num;
            return Ok(());
        }
        let previous = self.previous;
        for (op, tok) in MULTI {
            if rest.starts_with(op) {
                self.at = start + op.len();
                self.tok = *tok;
                return Ok(());
            }
        }
        let pair = rest.as_bytes().get(1).copied();
        if matches!(c, b'+' | b'-') && pair == Some(c) {
            if previous == Tok::Name {
                self.at = start + 2;
                self.tok = Tok::PostStep;
                return Ok(());
            }
            let after = rest[2..].trim_start_matches([' ', '\t', '\n']);
            if after
                .bytes()
                .next()
                .is_some_and(|b| b.is_ascii_alphabetic() || b == b'_')
            {
                self.at = start + 2;
                self.tok = Tok::PreStep;
                return Ok(());
            }
        }
        if pair == Some(b'=') && b"*/%+-&^|".contains(&c) {
            self.at = start + 2;
            self.tok = Tok::Assign;
            return Ok(());
        }
        match SINGLE
            .iter()
            .find(|op| rest.as_bytes()[0] == op.as_bytes()[0])
        {
            Some(&"=") => {
                self.at = start + 1;
                self.tok = Tok::Assign;
                Ok(())
            }
            Some(op) => {
                self.at = start + 1;
                self.tok = Tok::Op(op);
                Ok(())
            }
            None if previous == Tok::End || previous.is_operator() => {
                fail("syntax error: operand expected")
            }
            None => fail("syntax error: invalid arithmetic operator"),
        }
    }

    fn is(&self, op: &str) -> bool {
        matches!(self.tok, Tok::Op(t) if t == op)
    }

    /// `expcomma`: assignments separated by commas.
    fn comma(&mut self) -> Read<()> {
        self.assign()?;
        while self.is(",") {
            self.next()?;
            self.assign()?;
        }
        Ok(())
    }

    /// `expassign`: a conditional, or a name's assignment.
    fn assign(&mut self) -> Read<()> {
        self.conditional()?;
        if self.tok == Tok::Assign {
            // bash checks the token read just before the operator.
            if self.previous != Tok::Name {
                return fail("attempted assignment to non-variable");
            }
            self.next()?;
            self.assign()?;
        }
        Ok(())
    }

    /// `expcond`: `a ? b : c`.
    fn conditional(&mut self) -> Read<()> {
        self.binary(0)?;
        if self.is("?") {
            self.next()?;
            if self.tok == Tok::End || self.is(":") {
                return fail("expression expected");
            }
            self.comma()?;
            if !self.is(":") {
                return fail("`:' expected for conditional expression");
            }
            self.next()?;
            if self.tok == Tok::End {
                return fail("expression expected");
            }
            self.conditional()?;
        }
        Ok(())
    }

    /// The binary operators from `||` (level 0) down to `*`, `/`, `%`, then `**`.
    fn binary(&mut self, level: usize) -> Read<()> {
        const LEVELS: &[&[&str]] = &[
            &["||"],
            &["&&"],
            &["|"],
            &["^"],
            &["&"],
            &["==", "!="],
            &["<=", ">=", "<", ">"],
            &["<<", ">>"],
            &["+", "-"],
            &["*", "/", "%"],
        ];
        let Some(ops) = LEVELS.get(level) else {
            return self.power();
        };
        self.binary(level + 1)?;
        while ops.iter().any(|op| self.is(op)) {
            self.next()?;
            self.binary(level + 1)?;
        }
        Ok(())
    }

    /// `exppower`: `**` binds to the right.
    fn power(&mut self) -> Read<()> {
        self.unary()?;
        if self.is("**") {
            self.next()?;
            self.power()?;
        }
        Ok(())
    }

    /// `exp1`: `!`, `~`, `-`, `+` before an operand.
    fn unary(&mut self) -> Read<()> {
        if ["!", "~", "-", "+"].iter().any(|op| self.is(op)) {
            self.next()?;
            return self.unary();
        }
        self.operand()
    }

    /// `exp0`: a number, a name (with `++`/`--`), or a parenthesised expression.
    fn operand(&mut self) -> Read<()> {
        match self.tok {
            Tok::PreStep => {
                self.next()?;
                if self.tok != Tok::Name {
                    return fail("identifier expected after pre-increment or pre-decrement");
                }
                self.next()
            }
            Tok::Op("(") => {
                self.next()?;
                self.comma()?;
                if !self.is(")") {
                    return fail("missing `)'");
                }
                self.next()
            }
            Tok::Num => self.next(),
            Tok::Name => {
                self.next()?;
                if self.tok == Tok::PostStep {
                    return self.next();
                }
                Ok(())
            }
            _ => fail("syntax error: operand expected"),
        }
    }
}

/// A number as bash reads one (`strlong`): `0x` hex, a leading `0` octal, `BASE#DIGITS` with
/// a base from 2 to 64 (digits 0-9, a-z, A-Z, `@`, `_`), else decimal.
fn number(text: &str) -> Result<(), &'static str> {
    let (base, digits) = if let Some((base, digits)) = text.split_once('#') {
        match base.parse::<u32>() {
            Ok(b) if (2..=64).contains(&b) => (b, digits),
            _ => return Err("invalid arithmetic base"),
        }
    } else if let Some(hex) = text.strip_prefix("0x").or_else(|| text.strip_prefix("0X")) {
        (16, hex)
    } else if text.len() > 1 && text.starts_with('0') {
        (8, &text[1..])
    } else {
        (10, text)
    };
    for c in digits.chars() {
        let value = match c {
            '0'..='9' => c as u32 - '0' as u32,
            'a'..='z' => c as u32 - 'a' as u32 + 10,
            'A'..='Z' if base <= 36 => c as u32 - 'A' as u32 + 10,
            'A'..='Z' => c as u32 - 'A' as u32 + 36,
            '@' => 62,
            '_' => 63,
            _ => return Err("invalid number"),
        };
        if value >= base {
            return Err("value too great for base");
        }
    }
    Ok(())
}

/// bash's message for the malformed arithmetic expression `text`, as it follows `bash: line
/// N: ` (or `((: `, `let: `), or `None` when bash would read it without a syntax error.
pub fn syntax_error(text: &str) -> Option<String> {
    let expression = text.trim_start_matches([' ', '\t', '\n']);
    if expression.is_empty() {
        return None;
    }
    let mut reader = Reader {
        text: expression,
        at: 0,
        tok: Tok::End,
        previous: Tok::End,
        last_start: 0,
    };
    let result = reader.next().and_then(|()| {
        reader.comma()?;
        if reader.tok != Tok::End {
            return fail("syntax error in expression");
        }
        Ok(())
    });
    let failure = result.err()?;
    let token_end = failure.cut.unwrap_or(expression.len());
    let shown = &expression[..token_end];
    let token = &expression[reader.last_start.min(token_end)..token_end];
    Some(format!(
        "{shown}: {} (error token is \"{token}\")",
        failure.message
    ))
}

/// The token bash names when the exponent after the last `**` of `expression` (leading blanks
/// dropped) is negative: bash reads the exponent and the token after it before it computes the
/// power, so that is the last token it read (the exponent's own at the end of the text).
pub fn exponent_error_token(expression: &str) -> &str {
    let Some(at) = expression.rfind("**") else {
        return "";
    };
    let mut reader = Reader {
        text: expression,
        at: at + 2,
        tok: Tok::Op("**"),
        previous: Tok::End,
        last_start: at,
    };
    // A malformed exponent would have been a syntax error first; what was read still counts.
    let _ = reader.next().and_then(|()| reader.unary());
    &expression[reader.last_start..]
}

#[cfg(test)]
mod tests {
    use super::{exponent_error_token, syntax_error};

    #[test]
    fn a_negative_exponent_names_the_token_after_it() {
        assert_eq!(exponent_error_token("2 ** -1 "), "1 ");
        assert_eq!(exponent_error_token("2 ** -1 + 3"), "+ 3");
        assert_eq!(exponent_error_token("2**-x"), "x");
    }

    /// Expected texts: GNU bash 5.1.16 (Ubuntu 22.04), `echo $((TEXT))`, after `bash: line 1: `.
    #[test]
    fn errors_are_found_where_bash_finds_them() {
        let cases = [
            (
                "1 +",
                "1 +: syntax error: operand expected (error token is \"+\")",
            ),
            (
                "2 * * 3",
                "2 * * 3: syntax error: operand expected (error token is \"* 3\")",
            ),
            (
                " 1 2 ",
                "1 2 : syntax error in expression (error token is \"2 \")",
            ),
            (
                "a b",
                "a b: syntax error in expression (error token is \"b\")",
            ),
            ("08", "08: value too great for base (error token is \"08\")"),
            (
                "1 = 2",
                "1 = 2: attempted assignment to non-variable (error token is \"= 2\")",
            ),
            (
                "1 ? 2",
                "1 ? 2: `:' expected for conditional expression (error token is \"2\")",
            ),
            (
                " 1e3 + 1",
                "1e3: value too great for base (error token is \"1e3\")",
            ),
            (
                "'5' + 1 ",
                "'5' + 1 : syntax error: operand expected (error token is \"'5' + 1 \")",
            ),
            (
                "1 + 1.5",
                "1 + 1.5: syntax error: invalid arithmetic operator (error token is \".5\")",
            ),
            (
                "4 > > 2",
                "4 > > 2: syntax error: operand expected (error token is \"> 2\")",
            ),
            (
                "!  ",
                "!  : syntax error: operand expected (error token is \"!  \")",
            ),
            (
                "1 '2' ",
                "1 '2' : syntax error: invalid arithmetic operator (error token is \"'2' \")",
            ),
            (
                "5++ ",
                "5++ : syntax error: operand expected (error token is \"+ \")",
            ),
            (
                "x++ + ",
                "x++ + : syntax error: operand expected (error token is \"+ \")",
            ),
            (
                "1 ? : 2 ",
                "1 ? : 2 : expression expected (error token is \": 2 \")",
            ),
            (
                "1 ? 2 : ",
                "1 ? 2 : : expression expected (error token is \": \")",
            ),
            (
                "1 , ",
                "1 , : syntax error: operand expected (error token is \", \")",
            ),
            (
                "3#5",
                "3#5: value too great for base (error token is \"3#5\")",
            ),
            (
                "65#1",
                "65#1: invalid arithmetic base (error token is \"65#1\")",
            ),
            (
                "1 @ 2 ",
                "1 @ 2 : syntax error: invalid arithmetic operator (error token is \"@ 2 \")",
            ),
            (
                "1 += 2 ",
                "1 += 2 : attempted assignment to non-variable (error token is \"+= 2 \")",
            ),
            (
                "x = ",
                "x = : syntax error: operand expected (error token is \"= \")",
            ),
            (
                "2 ** ",
                "2 ** : syntax error: operand expected (error token is \"** \")",
            ),
            (
                "1 | | 2 ",
                "1 | | 2 : syntax error: operand expected (error token is \"| 2 \")",
            ),
            (
                "1 $ 2 ",
                "1 $ 2 : syntax error: invalid arithmetic operator (error token is \"$ 2 \")",
            ),
            (
                "abc def ghi ",
                "abc def ghi : syntax error in expression (error token is \"def ghi \")",
            ),
            (
                "5 +   ",
                "5 +   : syntax error: operand expected (error token is \"+   \")",
            ),
        ];
        for (text, want) in cases {
            assert_eq!(syntax_error(text).as_deref(), Some(want), "{text:?}");
        }
    }

    #[test]
    fn what_bash_reads_is_no_error() {
        for text in [
            "3 ++ 4",
            "++x",
            "x++",
            "0x",
            "1 ? 2 : 3",
            "a[1+2] = 4",
            "x += 2, y",
            "-(-1)",
            "2**3**2",
            "64#@_",
        ] {
            assert_eq!(syntax_error(text), None, "{text:?}");
        }
    }
}
