//! Bash reads a word that starts a command as `NAME[SUBSCRIPT]` as one word, blanks, newlines
//! and operators inside the brackets included, because it might be an array assignment
//! (`a[i + 1]=x`). So `execute[ls /system/]`, which ReAct agents type all the time, is one word
//! to bash: it fails as a path (`No such file or directory`, status 127) instead of running
//! `execute[ls` with the argument `/system/]`. Expansions inside the brackets still happen
//! (`execute[echo $(date)]` runs `date`, and its unquoted output is split as usual), and
//! brackets that never close are an "unexpected EOF while looking for matching `]'". The
//! parser we use splits such words, so before parsing, the blanks and operators inside such
//! brackets are escaped with a backslash (a newline is quoted), which gives the word bash
//! reads. Only words at a command's start are touched, only when they are not followed by `=`
//! (real assignments are left to the parser), and never inside quotes, expansions or comments.

use std::borrow::Cow;

/// Bytes a bracketed subscript keeps as part of the word, which the parser would split at.
const SPLITTING: &[u8] = b" \t\n;&|<>()";
/// Words after which another command starts.
const RESERVED: &[&str] = &[
    "then", "do", "else", "elif", "if", "while", "until", "!", "time", "{",
];

/// `text` with the subscripts of command-start words protected from splitting, or
/// `Err(offset)` of a command-start `NAME[` whose brackets never close.
pub fn protect(text: &str) -> Result<Cow<'_, str>, usize> {
    if !text.contains('[') {
        return Ok(Cow::Borrowed(text));
    }
    let b = text.as_bytes();
    let mut out = String::with_capacity(text.len() + 8);
    let mut changed = false;
    let mut i = 0;
    let mut command_start = true;
    while i < b.len() {
        match b[i] {
            b'\'' => {
                let end = find_from(b, i + 1, b'\'').map_or(b.len(), |e| e + 1);
                out.push_str(&text[i..end]);
                i = end;
                command_start = false;
            }
            // Commands inside `$(…)` and backquotes start after their `(` and `` ` `` below.
            b'"' => {
                let end = double_quote_end(b, i + 1);
                out.push_str(&text[i..end]);
                i = end;
                command_start = false;
            }
            b'$' if matches!(b.get(i + 1), Some(b'{' | b'\'')) => {
                let end = construct_end(b, i).unwrap_or(b.len());
                out.push_str(&text[i..end]);
                i = end;
                command_start = false;
            }
            b'\\' => {
                let end = next_char_end(text, (i + 1).min(b.len()));
                out.push_str(&text[i..end]);
                i = end;
                command_start = false;
            }
            b' ' | b'\t' => {
                out.push(b[i] as char);
                i += 1;
            }
            b'\n' | b';' | b'&' | b'|' | b'(' | b')' | b'`' => {
                out.push(b[i] as char);
                i += 1;
                command_start = true;
            }
            b'#' => {
                let end = find_from(b, i, b'\n').unwrap_or(b.len());
                out.push_str(&text[i..end]);
                i = end;
            }
            _ => {
                if command_start {
                    match subscript_word(b, i) {
                        Subscript::Protect(end) => {
                            escape_subscript(text, i, end, &mut out);
                            changed = true;
                            i = end;
                            command_start = false;
                            continue;
                        }
                        Subscript::Unclosed => return Err(i),
                        Subscript::None => {}
                    }
                }
                let end = word_end(b, i);
                let word = &text[i..end];
                out.push_str(word);
                i = end;
                // Assignments before a command leave the command still to come.
                let assignment = word
                    .split_once('=')
                    .is_some_and(|(name, _)| is_name(name.as_bytes()));
                command_start = RESERVED.contains(&word) || (command_start && assignment);
            }
        }
    }
    Ok(if changed {
        Cow::Owned(out)
    } else {
        Cow::Borrowed(text)
    })
}

fn find_from(b: &[u8], from: usize, byte: u8) -> Option<usize> {
    b.get(from..)?
        .iter()
        .position(|c| *c == byte)
        .map(|p| from + p)
}

fn next_char_end(text: &str, at: usize) -> usize {
    text[at..].chars().next().map_or(at, |c| at + c.len_utf8())
}

/// The end (exclusive) of the quoted string or expansion starting at `from` (`"…"`, `` `…` ``,
/// `$(…)`, `$((…))`, `${…}`, `$'…'`), nested ones included; `None` when `from` starts none
/// (a lone `$`). An unterminated one ends with the text.
fn construct_end(b: &[u8], from: usize) -> Option<usize> {
    match (b[from], b.get(from + 1)) {
        (b'"', _) => Some(double_quote_end(b, from + 1)),
        (b'`', _) => Some(escaped_end(b, from + 1, b'`')),
        (b'$', Some(b'(')) => Some(balanced_end(b, from + 2, b'(', b')')),
        (b'$', Some(b'{')) => Some(balanced_end(b, from + 2, b'{', b'}')),
        (b'$', Some(b'\'')) => Some(escaped_end(b, from + 2, b'\'')),
        _ => None,
    }
}

/// Whether the construct `b[start..end]` (see [`construct_end`]) ends with its closer.
fn closed(b: &[u8], start: usize, end: usize) -> bool {
    let opener_len = if b[start] == b'$' { 2 } else { 1 };
    let closer = match (b[start], b.get(start + 1)) {
        (b'$', Some(b'(')) => b')',
        (b'$', Some(b'{')) => b'}',
        (b'$', _) => b'\'',
        (c, _) => c,
    };
    end > start + opener_len && b.get(end - 1) == Some(&closer)
}

/// The end (exclusive) of a double-quoted string whose content starts at `from`.
fn double_quote_end(b: &[u8], from: usize) -> usize {
    let mut i = from;
    while i < b.len() {
        match b[i] {
            b'\\' => i += 2,
            b'"' => return i + 1,
            b'`' | b'$' => i = construct_end(b, i).unwrap_or(i + 1),
            _ => i += 1,
        }
    }
    b.len()
}

/// The end (exclusive) of a string closed by `closer` whose content starts at `from`, a
/// backslash escaping the byte after it (`` `…` ``, `$'…'`).
fn escaped_end(b: &[u8], from: usize, closer: u8) -> usize {
    let mut i = from;
    while i < b.len() {
        match b[i] {
            b'\\' => i += 2,
            c if c == closer => return i + 1,
            _ => i += 1,
        }
    }
    b.len()
}

/// The end of `$(…)`, `$((…))` or `${…}` whose content starts at `from`: the `close` that
/// balances the opening one, quotes and nested expansions skipped.
fn balanced_end(b: &[u8], from: usize, open: u8, close: u8) -> usize {
    let mut depth = 1usize;
    let mut i = from;
    while i < b.len() {
        match b[i] {
            b'\\' => i += 2,
            b'\'' => i = find_from(b, i + 1, b'\'').map_or(b.len(), |e| e + 1),
            b'"' | b'`' | b'$' => i = construct_end(b, i).unwrap_or(i + 1),
            c => {
                i += 1;
                if c == open {
                    depth += 1;
                } else if c == close {
                    depth -= 1;
                    if depth == 0 {
                        return i;
                    }
                }
            }
        }
    }
    b.len()
}

/// The end of a plain word (up to a blank, an operator or a quote).
fn word_end(b: &[u8], from: usize) -> usize {
    let mut i = from;
    while i < b.len() && !b" \t\n;&|<>()`'\"\\".contains(&b[i]) {
        i += 1;
    }
    i.max(from + 1).min(b.len())
}

fn is_name(s: &[u8]) -> bool {
    !s.is_empty()
        && (s[0].is_ascii_alphabetic() || s[0] == b'_')
        && s.iter().all(|c| c.is_ascii_alphanumeric() || *c == b'_')
}

/// What a command-start word beginning at some offset is.
enum Subscript {
    /// Not a `NAME[…]` word, or one the parser reads right.
    None,
    /// A `NAME[…]` word with blanks, newlines or operators in its brackets, ending here.
    Protect(usize),
    /// `NAME[` whose brackets never close.
    Unclosed,
}

/// Whether a `NAME[...]` word that needs protecting starts at `from`, and where it ends.
fn subscript_word(b: &[u8], from: usize) -> Subscript {
    let mut i = from;
    while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_') {
        i += 1;
    }
    if i == from || b.get(i) != Some(&b'[') || !is_name(&b[from..i]) {
        return Subscript::None;
    }
    let open = i;
    let mut depth = 0usize;
    let mut needs = false;
    while i < b.len() {
        match b[i] {
            b'[' => depth += 1,
            b']' => {
                depth -= 1;
                if depth == 0 {
                    break;
                }
            }
            b'\'' => match find_from(b, i + 1, b'\'') {
                Some(end) => i = end,
                None => return Subscript::None,
            },
            b'"' | b'`' | b'$' if construct_end(b, i).is_some() => {
                let end = construct_end(b, i).unwrap_or(b.len());
                if !closed(b, i, end) {
                    // Unterminated: the parser reports that quote or expansion.
                    return Subscript::None;
                }
                i = end;
                continue;
            }
            b'\\' => i += 1,
            c if SPLITTING.contains(&c) => needs = true,
            _ => {}
        }
        i += 1;
    }
    if i >= b.len() {
        return Subscript::Unclosed;
    }
    let after = &b[i + 1..];
    if !needs || i == open || after.starts_with(b"=") || after.starts_with(b"+=") {
        return Subscript::None;
    }
    // The word goes on after the brackets up to the next blank or operator.
    Subscript::Protect(word_end(b, i + 1).max(i + 1))
}

/// Copies `text[from..end]`, escaping the splitting bytes inside the brackets (not in quotes).
fn escape_subscript(text: &str, from: usize, end: usize, out: &mut String) {
    let b = text.as_bytes();
    let open = from + b[from..].iter().position(|c| *c == b'[').unwrap_or(0);
    out.push_str(&text[from..open]);
    let mut i = open;
    let mut depth = 0usize;
    while i < end {
        match b[i] {
            b'\'' => {
                let e = find_from(b, i + 1, b'\'').map_or(end, |e| e + 1).min(end);
                out.push_str(&text[i..e]);
                i = e;
                continue;
            }
            b'"' | b'`' | b'$' if construct_end(b, i).is_some() => {
                let e = construct_end(b, i).unwrap_or(end).min(end);
                out.push_str(&text[i..e]);
                i = e;
                continue;
            }
            b'\n' if depth > 0 => {
                // A backslash before a newline would join the lines; quotes keep it.
                out.push_str("'\n'");
                i += 1;
                continue;
            }
            b'\\' => {
                let e = next_char_end(text, (i + 1).min(end));
                out.push_str(&text[i..e]);
                i = e;
                continue;
            }
            b'[' => depth += 1,
            b']' => depth = depth.saturating_sub(1),
            c if depth > 0 && SPLITTING.contains(&c) => out.push('\\'),
            _ => {}
        }
        let e = next_char_end(text, i);
        out.push_str(&text[i..e]);
        i = e;
    }
}

#[cfg(test)]
mod tests {
    use super::protect;

    fn protected(text: &str) -> String {
        protect(text).unwrap().into_owned()
    }

    #[test]
    fn react_syntax_typed_as_a_command_is_one_word() {
        assert_eq!(protected("execute[ls /system/]"), "execute[ls\\ /system/]");
        assert_eq!(
            protected("cd /x && execute[find . | wc -l]; echo $?"),
            "cd /x && execute[find\\ .\\ \\|\\ wc\\ -l]; echo $?"
        );
        assert_eq!(
            protected("execute[grep \"a b\" f]"),
            "execute[grep\\ \"a b\"\\ f]"
        );
        // bash goes on reading the subscript past a newline.
        assert_eq!(protected("execute[ls\n/]"), "execute[ls'\n'/]");
    }

    /// Expansions inside the brackets stay whole, so they still expand (bash:
    /// `execute[echo $(echo a b)]` is "execute[echo a: command not found").
    #[test]
    fn expansions_inside_the_brackets_are_left_whole() {
        assert_eq!(
            protected("execute[echo $(date +\"%Y %m\") x]"),
            "execute[echo\\ $(date +\"%Y %m\")\\ x]"
        );
        assert_eq!(
            protected("execute[echo \"$(date +\"%Y %m\")\"]"),
            "execute[echo\\ \"$(date +\"%Y %m\")\"]"
        );
        assert_eq!(
            protected("execute[echo `echo a b` ${x:-a b} $'a b']"),
            "execute[echo\\ `echo a b`\\ ${x:-a b}\\ $'a b']"
        );
    }

    #[test]
    fn brackets_that_never_close_are_an_error_where_they_opened() {
        assert_eq!(protect("echo a\nexecute[ls /x\necho b"), Err(7));
        assert_eq!(protect("execute[tar -czf /a.tgz $(find /v)"), Err(0));
        // An unclosed quote inside is the quote's error, left to the parser.
        assert!(protect("execute[echo 'a]").is_ok());
    }

    #[test]
    fn everything_else_is_left_alone() {
        for text in [
            "echo a[1 2]",
            "a[1]=x",
            "a[i + 1]=x",
            "echo 'execute[ls /]'",
            "[ -f x ] && echo y",
            "ls [ab]*",
            "execute[ls]",
            "x=1 # execute[ls /]",
            "echo \"$(echo \"a[\")\"",
        ] {
            assert_eq!(protected(text), text, "{text}");
        }
    }

    #[test]
    fn command_start_follows_separators_keywords_and_assignments() {
        assert_eq!(
            protected("if execute[a b]; then :; fi"),
            "if execute[a\\ b]; then :; fi"
        );
        assert_eq!(protected("X=1 execute[a b]"), "X=1 execute[a\\ b]");
        assert_eq!(protected("echo $(execute[a b])"), "echo $(execute[a\\ b])");
    }
}
