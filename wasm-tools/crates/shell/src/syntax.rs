//! Parsing a script, and its syntax errors in the words of the shell being imitated.
//!
//! Both bash and dash read a `-c` script one complete command at a time and run each before
//! reading the next, so the commands on the lines before a syntax error have run (and printed)
//! by the time the error is reported. [`runnable_prefix`] finds those lines.

use crate::dialect::Dialect;
use brush_parser::ast::Program;
use brush_parser::{ParseError, TokenizerError};
use std::borrow::Cow;

/// A script that does not parse: the message (without the `bash: ` / `sh: ` prefix the caller
/// adds) and the line the shell names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SyntaxError {
    pub message: String,
    pub line: usize,
}

/// Parses a whole script as `dialect` reads it.
pub fn parse(text: &str, dialect: Dialect) -> Result<Program, SyntaxError> {
    parse_with_source(text, dialect).map(|(program, _)| program)
}

/// [`parse`], with the text the parser read (the script as rewritten for the parser: escaped
/// subscripts, reserved words taken as names), whose character offsets the tree's locations
/// count.
pub fn parse_with_source(text: &str, dialect: Dialect) -> Result<(Program, String), SyntaxError> {
    if dialect == Dialect::Bash
        && let Err(at) = crate::subscript::protect(text)
    {
        return Err(unexpected_eof(
            text,
            ']',
            1 + text[..at].matches('\n').count(),
        ));
    }
    match parse_quietly_with_source(text, dialect) {
        Ok(parsed) => Ok(parsed),
        Err(e) => {
            if dialect == Dialect::Bash
                && let Some(parsed) = process_substitution_as_command(text)
            {
                return Ok(parsed);
            }
            if let Some(parsed) = crate::first_error::reserved_words_as_plain(text)
                .and_then(|plain| parse_quietly_with_source(&plain, dialect).ok())
            {
                return Ok(parsed);
            }
            Err(match dialect {
                Dialect::Bash => bash_error(text, e),
                Dialect::Dash => dash_error(text, e),
            })
        }
    }
}

/// `<(cmd …) args`: to bash the substitution is a word like any other, here the command's
/// name (`/dev/fd/63`, which it then cannot execute). The parser takes `<` at a command's start
/// for a redirection, so the script is read with a word before it that expands to nothing.
fn process_substitution_as_command(text: &str) -> Option<(Program, String)> {
    let start = text.trim_start();
    if !(start.starts_with("<(") || start.starts_with(">(")) {
        return None;
    }
    parse_quietly_with_source(&format!("${{__intercode_nothing-}} {start}"), Dialect::Bash).ok()
}

fn parse_quietly(text: &str, dialect: Dialect) -> Result<Program, ParseError> {
    parse_quietly_with_source(text, dialect).map(|(program, _)| program)
}

fn parse_quietly_with_source(
    text: &str,
    dialect: Dialect,
) -> Result<(Program, String), ParseError> {
    // dash has no arrays: `execute[ls /]` is two words to it.
    let protected = match dialect {
        Dialect::Bash => crate::subscript::protect(text).unwrap_or(Cow::Borrowed(text)),
        Dialect::Dash => Cow::Borrowed(text),
    };
    let mut parser = brush_parser::Parser::new(
        std::io::BufReader::new(protected.as_bytes()),
        &dialect.parser_options(),
    );
    parser
        .parse_program()
        .map(|program| (program, protected.into_owned()))
}

/// The syntax error of a `$(…)` whose command `cmd` does not parse (`None` when it does), as bash 5.1 words it when
/// it reads the substitution from `rest` (the word's text after `$(`): each line of the
/// message with the line of `rest` it names (from 1), the quoted text being that line of
/// `rest`. bash's reader stops at the `)`, so that is the token it meets when the command is
/// cut short (`$(if)`: near unexpected token `)`).
pub fn substitution_error(cmd: &str, rest: &str) -> Option<Vec<(usize, String)>> {
    if parse(cmd, Dialect::Bash).is_ok() {
        return None;
    }
    let error = parse(&format!("{cmd})"), Dialect::Bash).err()?;
    let lines = error
        .message
        .lines()
        .map(|l| {
            let Some((n, what)) = l
                .strip_prefix("-c: line ")
                .and_then(|l| l.split_once(": "))
                .and_then(|(n, what)| Some((n.parse::<usize>().ok()?, what)))
            else {
                return (1, l.to_string());
            };
            // The quoted line of text is bash's current input line: the substitution's own.
            if what.starts_with('`') && what.ends_with('\'') {
                let shown = rest.lines().nth(n - 1).unwrap_or("");
                (n, format!("`{shown}'"))
            } else {
                (n, what.to_string())
            }
        })
        .collect();
    Some(lines)
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
    // bash names the first token its grammar rejects, whatever the parser tripped on later.
    if let Some((token, at)) = crate::first_error::first_unexpected(text) {
        let line = line_at(text, at);
        let line_text = text.lines().nth(line.saturating_sub(1)).unwrap_or(text);
        return SyntaxError {
            message: format!(
                "-c: line {line}: syntax error near unexpected token `{token}'\n-c: line {line}: `{line_text}'"
            ),
            line,
        };
    }
    match e {
        ParseError::ParsingNear(pos) => {
            let (token, line) = match word_after_a_compound_command(text, pos.index).or_else(|| {
                misplaced_reserved_word(text, pos.index).map(|(w, at)| (w.to_string(), at))
            }) {
                Some((word, at)) => (word, line_at(text, at)),
                None => match pattern_paren(text).filter(|at| *at < pos.index) {
                    Some(at) => ("(".to_string(), line_at(text, at)),
                    None => (token_at(text, pos.index), pos.line),
                },
            };
            let line_text = text.lines().nth(line.saturating_sub(1)).unwrap_or(text);
            SyntaxError {
                message: format!(
                    "-c: line {line}: syntax error near unexpected token `{token}'\n-c: line {line}: `{line_text}'"
                ),
                line,
            }
        }
        ParseError::ParsingAtEndOfInput => {
            // A redirection with nothing after it meets the newline bash appends to `-c`
            // text, and bash names that token; every other early end is "end of file".
            if let Some((word, line, _)) = reserved_words(text).stray {
                let line_text = text.lines().nth(line - 1).unwrap_or(text);
                SyntaxError {
                    message: format!(
                        "-c: line {line}: syntax error near unexpected token `{word}'\n-c: line {line}: `{line_text}'"
                    ),
                    line,
                }
            } else if ends_with_redirection(text) {
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
    if !matches!(crate::subscript::protect(text), Ok(Cow::Borrowed(_))) {
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
                let bang_argument = before == b'!' && bang_is_an_argument(&text[..i - 1]);
                // `@(` right after `$` is `$@(`…: leave such cases to the parser.
                let function_definition = bytes.get(i + 1) == Some(&b')');
                if (in_word || bang_in_word || bang_argument)
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

/// Whether a `!` after `before` is a command's argument (`cp -r /system/ !(*.txt) /d`), not
/// the pipeline negation at a command's start (`! (false)`).
fn bang_is_an_argument(before: &str) -> bool {
    let Some(prior) = before.strip_suffix([' ', '\t']) else {
        return false;
    };
    let prior = prior.trim_end_matches([' ', '\t']);
    let word_start = prior
        .rfind(|c: char| c.is_whitespace() || ";&|()`".contains(c))
        .map_or(0, |i| i + 1);
    let word = &prior[word_start..];
    !word.is_empty()
        && ![
            "if", "elif", "while", "until", "then", "do", "else", "!", "time", "{",
        ]
        .contains(&word)
}

/// Reserved words that cannot start a command: where one stands at a command's start, bash
/// and dash name it as the unexpected token.
const CLOSING_WORDS: &[&str] = &[
    "then", "else", "elif", "fi", "do", "done", "esac", "in", "}",
];

/// The closing reserved word standing at a command's start just before character `index`,
/// where the parser stopped one token later (`echo a; then echo b`), with its offset.
fn misplaced_reserved_word(text: &str, index: usize) -> Option<(&str, usize)> {
    let before = text.get(..index)?.trim_end();
    let start = before
        .rfind(|c: char| c.is_whitespace() || ";&|()".contains(c))
        .map_or(0, |i| i + 1);
    let word = &before[start..];
    if !CLOSING_WORDS.contains(&word) {
        return None;
    }
    // At a command's start: after an operator or a newline, or first in the text.
    let prior = before[..start].trim_end_matches([' ', '\t']);
    let at_command_start = prior.is_empty() || prior.ends_with([';', '&', '|', '(', '\n']);
    (at_command_start && !prior.ends_with(";;")).then_some((word, start))
}

/// `fi if …`, `done for …`, `done  The command…`: a word right after the keyword that closed a
/// compound command (only an operator, a redirection or a newline may follow one). bash names
/// that word; the parser stops at the keyword. `None` unless the keyword before `index` does
/// close what the text opened.
fn word_after_a_compound_command(text: &str, index: usize) -> Option<(String, usize)> {
    let (keyword, at) = misplaced_reserved_word(text, index)?;
    let end = at + keyword.len();
    parse_quietly(&text[..end], Dialect::Bash).ok()?;
    let gap = text[end..].len() - text[end..].trim_start_matches([' ', '\t']).len();
    let next = token_at(text, end);
    let is_word = next != "newline"
        && !next.starts_with(|c: char| ";&|()<>{}".contains(c) || c.is_ascii_digit());
    (gap > 0 && is_word).then_some((next, end + gap))
}

/// The line (from 1) of byte offset `at`.
fn line_at(text: &str, at: usize) -> usize {
    1 + text.get(..at).unwrap_or(text).matches('\n').count()
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
            let (token, line, expecting) = match misplaced_reserved_word(text, pos.index) {
                // dash adds what the open construct waited for: `"done" unexpected
                // (expecting "fi")`.
                Some((word, at)) => (
                    word.to_string(),
                    line_at(text, at),
                    expected_closer(&text[..at]).filter(|w| *w != word),
                ),
                None => (token_at(text, pos.index), pos.line, None),
            };
            if let Some(closer) = expecting {
                (
                    format!("\"{token}\" unexpected (expecting \"{closer}\")"),
                    line,
                )
            } else if token == "newline" {
                ("newline unexpected".to_string(), line + 1)
            } else if matches!(token.as_str(), "<" | ">" | ">>" | "<<") {
                // dash names a redirection operator where a file name should be by its kind.
                ("redirection unexpected".to_string(), line)
            } else {
                (format!("\"{token}\" unexpected"), line)
            }
        }
        ParseError::ParsingAtEndOfInput => match reserved_words(text).stray {
            Some((word, line, Some(closer))) => (
                format!("\"{word}\" unexpected (expecting \"{closer}\")"),
                line,
            ),
            Some((word, line, None)) => (format!("\"{word}\" unexpected"), line),
            None => (end_of_file(text), last_line),
        },
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
    closer_of(reserved_words(text).open.last().copied()?)
}

/// The word an open construct (see [`ReservedWords::open`]) waits for.
fn closer_of(open: &'static str) -> Option<&'static str> {
    match open {
        "for" => Some("do"),
        "for in" => None,
        "sub)" | "case)" => Some(")"),
        "case;;" => Some(";;"),
        other => Some(other),
    }
}

/// What following the reserved words of `text` found.
struct ReservedWords {
    /// What each open construct waits for; `for` and `for in` are a `for` before its `do`,
    /// `case)` a case waiting for a pattern's `)`, `case;;` one inside a branch.
    open: Vec<&'static str>,
    /// The first closing word at a command's start that closes nothing open (`echo a\nfi`),
    /// with its line and what the innermost open construct waited for instead.
    stray: Option<(String, usize, Option<&'static str>)>,
}

fn reserved_words(text: &str) -> ReservedWords {
    let mut open: Vec<&'static str> = Vec::new();
    let mut stray = None;
    let mut command_start = true;
    let mut line = 1;
    for word in shell_words(text) {
        if word == "\n" {
            line += 1;
        }
        let at_start = std::mem::replace(&mut command_start, false);
        if at_start && stray.is_none() {
            let top = open.last().copied();
            let closes = match word.as_str() {
                "then" => Some(top == Some("then")),
                "else" | "elif" | "fi" => Some(top == Some("fi")),
                "do" => Some(matches!(top, Some("do" | "for" | "for in"))),
                "done" => Some(top == Some("done")),
                "esac" => Some(matches!(top, Some("case)" | "case;;"))),
                "}" => Some(top == Some("}")),
                _ => None,
            };
            if closes == Some(false) {
                stray = Some((word.clone(), line, top.and_then(closer_of)));
            }
        }
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
            // `for NAME do`: without `in`, `do` may follow the name directly.
            "do" if top == Some("for") => {
                set_top(&mut open, "done");
                command_start = true;
            }
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
    ReservedWords { open, stray }
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

    #[test]
    fn a_word_after_a_closed_compound_command_is_the_unexpected_token() {
        let bash = |t: &str| parse(t, Dialect::Bash).unwrap_err().message;
        assert_eq!(
            bash("if true; then echo a; fi if true; then echo b; fi"),
            "-c: line 1: syntax error near unexpected token `if'\n\
             -c: line 1: `if true; then echo a; fi if true; then echo b; fi'"
        );
        assert_eq!(
            bash("for i in 1; do echo $i; done for j in 2; do echo; done"),
            "-c: line 1: syntax error near unexpected token `for'\n\
             -c: line 1: `for i in 1; do echo $i; done for j in 2; do echo; done'"
        );
        assert_eq!(
            bash("while false; do :; done  The command use"),
            "-c: line 1: syntax error near unexpected token `The'\n\
             -c: line 1: `while false; do :; done  The command use'"
        );
        // A stray closing word is still the unexpected token itself.
        assert_eq!(
            bash("echo a; fi"),
            "-c: line 1: syntax error near unexpected token `fi'\n-c: line 1: `echo a; fi'"
        );
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

    fn bash(text: &str) -> String {
        parse(text, Dialect::Bash).unwrap_err().message
    }

    // Expected texts: Ubuntu 22.04's bash 5.1.16 and dash 0.5.11 (upstream's image).
    #[test]
    fn a_closing_word_at_a_commands_start_is_the_unexpected_token() {
        assert_eq!(
            bash("echo a; then echo b"),
            "-c: line 1: syntax error near unexpected token `then'\n-c: line 1: `echo a; then echo b'"
        );
        assert_eq!(
            bash("echo a\nfi"),
            "-c: line 2: syntax error near unexpected token `fi'\n-c: line 2: `fi'"
        );
        assert_eq!(
            dash("echo a; then echo b"),
            "1: Syntax error: \"then\" unexpected"
        );
        assert_eq!(
            dash("if true; then echo a; done"),
            "1: Syntax error: \"done\" unexpected (expecting \"fi\")"
        );
        assert_eq!(dash("echo a\nfi"), "2: Syntax error: \"fi\" unexpected");
    }

    #[test]
    fn a_pattern_paren_in_an_argument_is_the_unexpected_token() {
        assert_eq!(
            bash("cp -r /system/ !(*.text) /dst"),
            "-c: line 1: syntax error near unexpected token `('\n-c: line 1: `cp -r /system/ !(*.text) /dst'"
        );
        assert!(parse("! (false)", Dialect::Bash).is_ok());
        assert!(parse("true && ! (false)", Dialect::Bash).is_ok());
    }

    #[test]
    fn a_subscript_that_never_closes_is_an_unexpected_eof() {
        assert_eq!(
            bash("echo a\nexecute[ls /x\necho b"),
            "-c: line 2: unexpected EOF while looking for matching `]'\n\
             -c: line 4: syntax error: unexpected end of file"
        );
        // dash has no arrays: two words, no error.
        assert!(parse("execute[ls /x", Dialect::Dash).is_ok());
    }

    #[test]
    fn dash_reads_for_name_do_without_in() {
        assert_eq!(
            dash("for file do x=1 [ -n \"$x\" ] && echo \"$x\" done"),
            "1: Syntax error: end of file unexpected (expecting \"done\")"
        );
        assert!(parse("for f do echo $f; done", Dialect::Dash).is_ok());
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

    /// bash 5.1 (Ubuntu 22.04) on `x=$(…)` words whose command does not parse.
    #[test]
    fn substitution_errors_name_the_rest_of_the_word() {
        let near = |t: &str| format!("syntax error near unexpected token `{t}'");
        assert_eq!(
            substitution_error("done", "done)"),
            Some(vec![(1, near("done")), (1, "`done)'".to_string())])
        );
        // The reader stops at the `)`: a command cut short meets it.
        assert_eq!(
            substitution_error("if", "if)"),
            Some(vec![(1, near(")")), (1, "`if)'".to_string())])
        );
        assert_eq!(
            substitution_error("fi", "fi)\"; echo b\""),
            Some(vec![(1, near("fi")), (1, "`fi)\"; echo b\"'".to_string())])
        );
        assert_eq!(
            substitution_error("echo a\necho b; done\n", "echo a\necho b; done\n)"),
            Some(vec![(2, near("done")), (2, "`echo b; done'".to_string())])
        );
        assert_eq!(substitution_error("echo a", "echo a)"), None);
    }
}
