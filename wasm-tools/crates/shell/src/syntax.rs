//! Parsing a script, and its syntax errors in the words of the shell being imitated.
//!
//! Both bash and dash read a `-c` script one complete command at a time and run each before
//! reading the next, so the commands on the lines before a syntax error have run (and printed)
//! by the time the error is reported. [`runnable_prefix`] finds those lines.

use crate::dialect::Dialect;
use brush_parser::ast::Program;
use brush_parser::{ParseError, TokenizerError};

/// A script that does not parse: the message (without the `bash: ` / `sh: ` prefix the caller
/// adds) and the line the shell names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SyntaxError {
    pub message: String,
    pub line: usize,
}

/// Parses a whole script as `dialect` reads it.
pub fn parse(text: &str, dialect: Dialect) -> Result<Program, SyntaxError> {
    parse_quietly(text, dialect).map_err(|e| match dialect {
        Dialect::Bash => bash_error(text, e),
        Dialect::Dash => dash_error(text, e),
    })
}

fn parse_quietly(text: &str, dialect: Dialect) -> Result<Program, ParseError> {
    let protected = crate::subscript::protect(text);
    let mut parser = brush_parser::Parser::new(
        std::io::BufReader::new(protected.as_bytes()),
        &dialect.parser_options(),
    );
    parser.parse_program()
}

/// The complete commands before the syntax error on line `error_line`: the longest run of
/// whole lines, ending before that line, that parses on its own. `None` when there is none.
pub fn runnable_prefix(text: &str, dialect: Dialect, error_line: usize) -> Option<Program> {
    let line_ends: Vec<usize> = text
        .char_indices()
        .filter(|(_, c)| *c == '\n')
        .map(|(i, _)| i)
        .take(error_line.saturating_sub(1))
        .collect();
    line_ends
        .iter()
        .rev()
        .find_map(|&end| parse_quietly(&text[..end], dialect).ok())
        .filter(|p| !p.complete_commands.is_empty())
}

fn bash_error(text: &str, e: ParseError) -> SyntaxError {
    match e {
        ParseError::ParsingNear(pos) => {
            let line_text = text.lines().nth(pos.line.saturating_sub(1)).unwrap_or(text);
            let token = token_at(text, pos.index);
            SyntaxError {
                message: format!(
                    "-c: line {0}: syntax error near unexpected token `{token}'\n-c: line {0}: `{line_text}'",
                    pos.line
                ),
                line: pos.line,
            }
        }
        ParseError::ParsingAtEndOfInput => {
            // A redirection with nothing after it meets the newline bash appends to `-c`
            // text, and bash names that token; every other early end is "end of file".
            if ends_with_redirection(text) {
                let n = text.trim_end().lines().count().max(1);
                let line_text = text.trim_end().lines().last().unwrap_or("");
                SyntaxError {
                    message: format!(
                        "-c: line {n}: syntax error near unexpected token `newline'\n-c: line {n}: `{line_text}'"
                    ),
                    line: n,
                }
            } else if let Some(at) = pattern_paren(text) {
                // `*(…)` with extglob off (as in `bash -c`): the `(` is the unexpected token.
                let line = 1 + text[..at].matches('\n').count();
                let line_text = text.lines().nth(line - 1).unwrap_or(text);
                SyntaxError {
                    message: format!(
                        "-c: line {line}: syntax error near unexpected token `('\n-c: line {line}: `{line_text}'"
                    ),
                    line,
                }
            } else if let Some(opener) = unclosed_process_substitution(text) {
                unexpected_eof(text, ')', line_of(text, opener))
            } else {
                // bash counts the newline it appends to `-c` text as one more line.
                let n = text.lines().count() + 1;
                SyntaxError {
                    message: format!("-c: line {n}: syntax error: unexpected end of file"),
                    line: n,
                }
            }
        }
        ParseError::Tokenizing { inner, position } => {
            // bash reads a script token by token, so a syntax error before the quote that
            // never closes is what it reports ("Here's the command: a ||; b 'c").
            if let TokenizerError::UnterminatedSingleQuote(p)
            | TokenizerError::UnterminatedDoubleQuote(p)
            | TokenizerError::UnterminatedBackquote(p) = &inner
                && let Some(earlier) = error_before(text, p.index)
            {
                return earlier;
            }
            let end_line = position.map(|p| p.line).unwrap_or(1);
            // An unclosed quote is reported on the line where the quote opened.
            let (quote, line) = match &inner {
                TokenizerError::UnterminatedSingleQuote(p)
                | TokenizerError::UnterminatedAnsiCQuote(p) => (Some('\''), p.line),
                TokenizerError::UnterminatedDoubleQuote(p) => (Some('"'), p.line),
                TokenizerError::UnterminatedBackquote(p) => (Some('`'), p.line),
                _ => (None, end_line),
            };
            // `$(`, `${` and `$((` are reported on the line where they opened, too.
            let (closer, line) = match (quote, &inner) {
                (Some(q), _) => (Some(q), line),
                (None, TokenizerError::UnterminatedCommandSubstitution) => {
                    (Some(')'), line_of(text, "$("))
                }
                (None, TokenizerError::UnterminatedVariable) => (Some('}'), line_of(text, "${")),
                (None, TokenizerError::UnterminatedExpansion) => match last_opened(text) {
                    "${" => (Some('}'), line_of(text, "${")),
                    opener => (Some(')'), line_of(text, opener)),
                },
                _ => (None, line),
            };
            match closer {
                Some(q) => unexpected_eof(text, q, line),
                None => SyntaxError {
                    message: format!("-c: line {line}: syntax error: {inner}"),
                    line,
                },
            }
        }
    }
}

/// The "near unexpected token" error bash meets in `text` before character `quote_at`, where a
/// quote opens that never closes; `None` when the text before it parses or merely ends early.
fn error_before(text: &str, quote_at: usize) -> Option<SyntaxError> {
    // Positions are the parser's, in the text as `subscript::protect` gives it.
    if matches!(crate::subscript::protect(text), std::borrow::Cow::Owned(_)) {
        return None;
    }
    let cut = text.char_indices().nth(quote_at).map(|(i, _)| i)?;
    match parse_quietly(&text[..cut], Dialect::Bash) {
        Err(e @ ParseError::ParsingNear(_)) => Some(bash_error(text, e)),
        _ => None,
    }
}

/// bash 5.1 (upstream's) on a construct still open at the end of the text: where it opened,
/// then the end of the text, counted past the newline bash appends to `-c` text. (bash 5.2
/// drops the second line.)
fn unexpected_eof(text: &str, closer: char, line: usize) -> SyntaxError {
    let end = text.lines().count() + 1;
    SyntaxError {
        message: format!(
            "-c: line {line}: unexpected EOF while looking for matching `{closer}'\n\
             -c: line {end}: syntax error: unexpected end of file"
        ),
        line,
    }
}

/// Where a `(` opens in the middle of a word, outside quotes (`*(a)`, `dir/(x)`): without
/// `extglob` bash reads it as an unexpected token. (`$(`, `<(`, `>(` and `name=(` are not.)
fn pattern_paren(text: &str) -> Option<usize> {
    let bytes = text.as_bytes();
    let (mut single, mut double) = (false, false);
    let mut i = 0;
    while i < bytes.len() {
        let c = bytes[i];
        match c {
            b'\\' if !single => i += 1,
            b'\'' if !double => single = !single,
            b'"' if !single => double = !double,
            b'(' if !single && !double && i > 0 => {
                let before = bytes[i - 1];
                let in_word = before.is_ascii_alphanumeric()
                    || matches!(
                        before,
                        b'*' | b'?' | b'+' | b'@' | b'/' | b'.' | b'-' | b'_'
                    );
                let bang_in_word = before == b'!' && i > 1 && !bytes[i - 2].is_ascii_whitespace();
                // `@(` right after `$` is `$@(`…: leave such cases to the parser.
                let function_definition = bytes.get(i + 1) == Some(&b')');
                if (in_word || bang_in_word)
                    && !function_definition
                    && !(i > 1 && bytes[i - 2] == b'$')
                {
                    return Some(i);
                }
            }
            _ => {}
        }
        i += 1;
    }
    None
}

/// `<(` or `>(`, when the last process substitution in `text` is still open at its end.
fn unclosed_process_substitution(text: &str) -> Option<&'static str> {
    let (at, opener) = ["<(", ">("]
        .into_iter()
        .filter_map(|o| text.rfind(o).map(|i| (i, o)))
        .max()?;
    let rest = &text[at + 1..];
    (rest.matches('(').count() > rest.matches(')').count()).then_some(opener)
}

/// The line (from 1) of the last `opener` in `text`.
fn line_of(text: &str, opener: &str) -> usize {
    let at = text.rfind(opener).unwrap_or(0);
    1 + text[..at].matches('\n').count()
}

/// Which of `$(`, `$((` and `${` opens last in `text`.
fn last_opened(text: &str) -> &'static str {
    let at = |p: &str| text.rfind(p).map_or(-1, |i| i as i64);
    let (paren, arith, brace) = (at("$("), at("$(("), at("${"));
    if brace > paren {
        "${"
    } else if arith >= 0 && arith == paren {
        "$(("
    } else {
        "$("
    }
}

/// dash's words: `Syntax error: "fi" unexpected`, `Syntax error: end of file unexpected
/// (expecting "done")`, `Syntax error: Unterminated quoted string`. dash names the line its
/// reader has reached, which is past the newline when the newline is the unexpected token.
fn dash_error(text: &str, e: ParseError) -> SyntaxError {
    let last_line = text.matches('\n').count() + 1;
    // `<<<` is not an operator to dash: a redirection where a file name should be. (The
    // parser in sh mode reads it as a here-document instead.)
    let words = shell_words(text);
    if let Some(at) = words.iter().position(|w| w.starts_with("<<<")) {
        let line = 1 + words[..at].iter().filter(|w| *w == "\n").count();
        return SyntaxError {
            message: format!("{line}: Syntax error: redirection unexpected"),
            line,
        };
    }
    let (what, line) = match e {
        ParseError::ParsingNear(pos) => {
            let token = token_at(text, pos.index);
            if token == "newline" {
                ("newline unexpected".to_string(), pos.line + 1)
            } else if matches!(token.as_str(), "<" | ">" | ">>" | "<<") {
                // dash names a redirection operator where a file name should be by its kind.
                ("redirection unexpected".to_string(), pos.line)
            } else {
                (format!("\"{token}\" unexpected"), pos.line)
            }
        }
        ParseError::ParsingAtEndOfInput => (end_of_file(text), last_line),
        ParseError::Tokenizing { inner, .. } => {
            let what = match inner {
                TokenizerError::UnterminatedSingleQuote(_)
                | TokenizerError::UnterminatedDoubleQuote(_)
                | TokenizerError::UnterminatedAnsiCQuote(_) => {
                    "Unterminated quoted string".to_string()
                }
                TokenizerError::UnterminatedBackquote(_) => {
                    "EOF in backquote substitution".to_string()
                }
                TokenizerError::UnterminatedVariable => "Missing '}'".to_string(),
                TokenizerError::UnterminatedCommandSubstitution => {
                    "end of file unexpected (expecting \")\")".to_string()
                }
                TokenizerError::UnterminatedExpansion => match last_opened(text) {
                    "${" => "Missing '}'".to_string(),
                    "$((" => "Missing '))'".to_string(),
                    _ => "end of file unexpected (expecting \")\")".to_string(),
                },
                _ => end_of_file(text),
            };
            (what, last_line)
        }
    };
    SyntaxError {
        message: format!("{line}: Syntax error: {what}"),
        line,
    }
}

/// `end of file unexpected`, with the word dash was waiting for when a construct is open.
fn end_of_file(text: &str) -> String {
    match expected_closer(text) {
        Some(word) => format!("end of file unexpected (expecting \"{word}\")"),
        None => "end of file unexpected".to_string(),
    }
}

/// The word that would continue the innermost construct still open at the end of `text`,
/// found from the reserved words at command positions (quotes and comments skipped).
fn expected_closer(text: &str) -> Option<&'static str> {
    // What each open construct waits for; `for` and `for in` are a `for` before its `do`,
    // `case)` a case waiting for a pattern's `)`, `case;;` one inside a branch.
    let mut open: Vec<&'static str> = Vec::new();
    let mut command_start = true;
    for word in shell_words(text) {
        let at_start = std::mem::replace(&mut command_start, false);
        let top = open.last().copied();
        let set_top = |open: &mut Vec<&'static str>, w: &'static str| {
            if let Some(t) = open.last_mut() {
                *t = w;
            }
        };
        match word.as_str() {
            "\n" | ";" | "&" | "|" | "&&" | "||" => command_start = true,
            ";;" if top == Some("case;;") => set_top(&mut open, "case)"),
            ";;" => {}
            "(" => {
                open.push("sub)");
                command_start = true;
            }
            ")" => match top {
                Some("sub)") => {
                    open.pop();
                }
                Some("case)") => {
                    set_top(&mut open, "case;;");
                    command_start = true;
                }
                _ => {}
            },
            "in" if top == Some("for") => set_top(&mut open, "for in"),
            w if at_start => {
                command_start = true;
                match w {
                    "if" => open.push("then"),
                    "elif" => set_top(&mut open, "then"),
                    "then" | "else" => set_top(&mut open, "fi"),
                    "while" | "until" => open.push("do"),
                    "for" => {
                        open.push("for");
                        command_start = false;
                    }
                    "do" => set_top(&mut open, "done"),
                    "case" => {
                        open.push("case)");
                        command_start = false;
                    }
                    "{" => open.push("}"),
                    "!" => {}
                    "fi" | "done" | "}" | "esac" => {
                        open.pop();
                    }
                    _ => command_start = false,
                }
            }
            _ => {}
        }
    }
    match open.last().copied()? {
        "for" => Some("do"),
        "for in" => None,
        "sub)" | "case)" => Some(")"),
        "case;;" => Some(";;"),
        other => Some(other),
    }
}

/// Words and operators of `text`, newlines kept as `"\n"`, quoted text and comments dropped
/// (enough to follow reserved words, not a tokenizer).
fn shell_words(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut word = String::new();
    let mut chars = text.chars().peekable();
    let flush = |word: &mut String, out: &mut Vec<String>| {
        if !word.is_empty() {
            out.push(std::mem::take(word));
        }
    };
    while let Some(c) = chars.next() {
        match c {
            '\'' | '"' => {
                word.push('q');
                for d in chars.by_ref() {
                    if d == c {
                        break;
                    }
                }
            }
            '\\' => {
                chars.next();
                word.push('q');
            }
            '#' if word.is_empty() => {
                for d in chars.by_ref() {
                    if d == '\n' {
                        out.push("\n".into());
                        break;
                    }
                }
            }
            ' ' | '\t' => flush(&mut word, &mut out),
            '\n' | '(' | ')' => {
                flush(&mut word, &mut out);
                out.push(c.to_string());
            }
            '&' | '|' | ';' => {
                flush(&mut word, &mut out);
                if chars.peek() == Some(&c) {
                    chars.next();
                    out.push(format!("{c}{c}"));
                } else {
                    out.push(c.to_string());
                }
            }
            _ => word.push(c),
        }
    }
    flush(&mut word, &mut out);
    out
}

/// Whether the script's last token is a redirection operator (`cmd >`, `cat <<`, `x <y>`).
fn ends_with_redirection(text: &str) -> bool {
    let t = text.trim_end();
    [">", "<", ">&", "<&", ">|", "<>"]
        .iter()
        .any(|op| t.ends_with(op))
        && !t.ends_with("\\>")
        && !t.ends_with("\\<")
}

fn token_at(text: &str, index: usize) -> String {
    let rest = text.get(index..).unwrap_or("");
    let rest = rest.trim_start();
    for op in [
        ";;", "&&", "||", ">>", "<<", "(", ")", "|", ";", "&", "<", ">", "{", "}",
    ] {
        if rest.starts_with(op) {
            return op.to_string();
        }
    }
    let word: String = rest.chars().take_while(|c| !c.is_whitespace()).collect();
    if word.is_empty() {
        "newline".into()
    } else {
        word
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dash(text: &str) -> String {
        parse(text, Dialect::Dash).unwrap_err().message
    }

    // Expected texts are dash 0.5.12's answers to `sh -c TEXT` (Debian), which upstream's
    // Ubuntu 22.04 dash 0.5.11 words the same.
    #[test]
    fn dash_words_its_syntax_errors() {
        assert_eq!(
            dash("if true; then echo x fi"),
            "1: Syntax error: end of file unexpected (expecting \"fi\")"
        );
        assert_eq!(
            dash("if true"),
            "1: Syntax error: end of file unexpected (expecting \"then\")"
        );
        assert_eq!(
            dash("while true; do echo"),
            "1: Syntax error: end of file unexpected (expecting \"done\")"
        );
        assert_eq!(
            dash("for i in 1 2"),
            "1: Syntax error: end of file unexpected"
        );
        assert_eq!(
            dash("{ echo"),
            "1: Syntax error: end of file unexpected (expecting \"}\")"
        );
        assert_eq!(
            dash("for f in a; do compress $f &; done"),
            "1: Syntax error: \";\" unexpected"
        );
        assert_eq!(dash("echo )"), "1: Syntax error: \")\" unexpected");
        assert_eq!(
            dash("echo \"abc"),
            "1: Syntax error: Unterminated quoted string"
        );
        assert_eq!(
            dash("echo a\necho \"b\nc"),
            "3: Syntax error: Unterminated quoted string"
        );
        assert_eq!(dash("echo >\n"), "2: Syntax error: newline unexpected");
        assert_eq!(
            dash("wc -l < <(find .)"),
            "1: Syntax error: redirection unexpected"
        );
    }

    #[test]
    fn bash_names_the_line_an_unclosed_quote_opened_on() {
        let e = parse("echo a 'b\n\nc\nd", Dialect::Bash).unwrap_err();
        assert_eq!(
            e.message,
            "-c: line 1: unexpected EOF while looking for matching `''\n\
             -c: line 5: syntax error: unexpected end of file"
        );
    }

    #[test]
    fn lines_before_the_error_are_runnable() {
        let text = "echo a\nif true; then\necho b";
        let e = parse(text, Dialect::Bash).unwrap_err();
        let prefix = runnable_prefix(text, Dialect::Bash, e.line).unwrap();
        assert_eq!(prefix.complete_commands.len(), 1);
        assert!(runnable_prefix("echo a; echo )", Dialect::Bash, 1).is_none());
    }
}
