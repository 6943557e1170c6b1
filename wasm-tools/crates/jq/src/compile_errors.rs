//! Errors in the filter, worded as jq 1.6 words them: `jq: error: foo/0 is not defined at
//! <top-level>, line 1:`, the line, then `jq: 1 compile error`; exit status 3.

use jaq_core::compile::Undefined;
use jaq_core::load;

/// Byte offset of `part` (a slice of `code`) in `code`; the end when it is not one.
fn offset_in(code: &str, part: &str) -> usize {
    let start = code.as_ptr() as usize;
    let at = part.as_ptr() as usize;
    if at >= start && at <= start + code.len() {
        at - start
    } else {
        code.len()
    }
}

/// `at <top-level>, line N:` and the line, followed by as many spaces as the error's column.
fn located(code: &str, offset: usize) -> String {
    let offset = offset.min(code.len());
    let line_start = code[..offset].rfind('\n').map_or(0, |i| i + 1);
    let line_end = code[offset..].find('\n').map_or(code.len(), |i| offset + i);
    let line_no = code[..offset].matches('\n').count() + 1;
    format!(
        "at <top-level>, line {line_no}:\n{}{}",
        &code[line_start..line_end],
        " ".repeat(offset - line_start)
    )
}

/// Where jq points when the filter ends too early: at the start of its last token.
fn last_token_start(code: &str) -> usize {
    let trimmed = code.trim_end();
    let Some(last) = trimmed.chars().last() else {
        return 0;
    };
    let word = |c: char| c.is_alphanumeric() || c == '_' || c == '$' || c == '.';
    if word(last) {
        trimmed
            .char_indices()
            .rev()
            .take_while(|&(_, c)| word(c))
            .last()
            .map_or(0, |(i, _)| i)
    } else {
        trimmed.len() - last.len_utf8()
    }
}

/// How jq's grammar names the token an error stopped at.
fn token_name(got: &str) -> String {
    let Some(c) = got.chars().next() else {
        return "$end".to_string();
    };
    const KEYWORDS: &[&str] = &[
        "def", "as", "if", "then", "elif", "else", "end", "and", "or", "not", "reduce", "foreach",
        "try", "catch", "label", "import", "include", "__loc__",
    ];
    let word: String = got
        .chars()
        .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
        .collect();
    if KEYWORDS.contains(&word.as_str()) {
        return word;
    }
    if c.is_ascii_alphabetic() || c == '_' {
        "IDENT".to_string()
    } else if c.is_ascii_digit() {
        "LITERAL".to_string()
    } else if c == '"' {
        "QQSTRING_START".to_string()
    } else if c.is_ascii_punctuation() {
        format!("'{c}'")
    } else {
        "INVALID_CHARACTER".to_string()
    }
}

fn finish(messages: Vec<String>) -> i32 {
    for m in &messages {
        eprintln!("jq: error: {m}");
    }
    let n = messages.len().max(1);
    eprintln!("jq: {n} compile error{}", if n == 1 { "" } else { "s" });
    3
}

/// Errors of reading the filter's text.
pub fn report_load(code: &str, errors: load::Errors<&str, ()>) -> i32 {
    let mut messages = Vec::new();
    for (_file, error) in errors {
        match error {
            load::Error::Lex(errs) => {
                for (expect, got) in errs {
                    let (name, at) = match expect {
                        load::lex::Expect::Delim(_) => ("$end".to_string(), last_token_start(code)),
                        _ => (token_name(got), offset_in(code, got)),
                    };
                    messages.push(format!(
                        "syntax error, unexpected {name} (Unix shell quoting issues?) {}",
                        located(code, at)
                    ));
                }
            }
            load::Error::Parse(errs) => {
                for (_expect, got) in errs {
                    let at = if got.is_empty() {
                        last_token_start(code)
                    } else {
                        offset_in(code, got)
                    };
                    messages.push(format!(
                        "syntax error, unexpected {} (Unix shell quoting issues?) {}",
                        token_name(got),
                        located(code, at)
                    ));
                }
            }
            load::Error::Io(errs) => {
                for (path, e) in errs {
                    messages.push(format!("{path}: {e}"));
                }
            }
        }
    }
    finish(messages)
}

/// Names the filter uses that nothing defines.
pub fn report_compile(code: &str, errors: jaq_core::compile::Errors<&str, ()>) -> i32 {
    let mut messages = Vec::new();
    for (_file, errs) in errors {
        for (name, undefined) in errs {
            let what = match undefined {
                Undefined::Filter(arity) => format!("{name}/{arity}"),
                Undefined::Var => name.to_string(),
                Undefined::Label => format!("$*label-{name}"),
                _ => name.to_string(),
            };
            messages.push(format!(
                "{what} is not defined {}",
                located(code, offset_in(code, name))
            ));
        }
    }
    finish(messages)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// jq 1.6 points an early end at the start of the filter's last token.
    #[test]
    fn an_early_end_points_at_the_last_token() {
        assert_eq!(last_token_start(".nope |"), 6);
        assert_eq!(last_token_start("limit(0; 1,2),"), 13);
        assert_eq!(last_token_start(".a | map("), 8);
        assert_eq!(last_token_start("if . then 1"), 10);
        assert_eq!(
            located("a |\nfoo bar", 8),
            "at <top-level>, line 2:\nfoo bar    "
        );
    }
}
