//! Bash reads a word that starts a command as `NAME[SUBSCRIPT]` as one word, blanks and
//! operators inside the brackets included, because it might be an array assignment
//! (`a[i + 1]=x`). So `execute[ls /system/]`, which ReAct agents type all the time, is one word
//! to bash: it fails as a path (`No such file or directory`, status 127) instead of running
//! `execute[ls` with the argument `/system/]`. The parser we use splits such words, so before
//! parsing, the blanks and operators inside such brackets are escaped with a backslash, which
//! gives the word bash reads. Only words at a command's start are touched, only when the
//! brackets close on the same line and are not followed by `=` (real assignments are left to
//! the parser), and never inside quotes or comments.

use std::borrow::Cow;

/// Bytes a bracketed subscript keeps as part of the word, which the parser would split at.
const SPLITTING: &[u8] = b" \t;&|<>()";
/// Words after which another command starts.
const RESERVED: &[&str] = &[
    "then", "do", "else", "elif", "if", "while", "until", "!", "time", "{",
];

pub fn protect(text: &str) -> Cow<'_, str> {
    if !text.contains('[') {
        return Cow::Borrowed(text);
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
            b'"' => {
                let end = double_quote_end(b, i + 1);
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
                if command_start && let Some(end) = subscript_word(b, i) {
                    escape_subscript(text, i, end, &mut out);
                    changed = true;
                    i = end;
                    command_start = false;
                    continue;
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
    if changed {
        Cow::Owned(out)
    } else {
        Cow::Borrowed(text)
    }
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

/// The end (exclusive) of a double-quoted string whose content starts at `from`.
fn double_quote_end(b: &[u8], from: usize) -> usize {
    let mut i = from;
    while i < b.len() {
        match b[i] {
            b'\\' => i += 2,
            b'"' => return i + 1,
            _ => i += 1,
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

/// Where a `NAME[...]` word that needs protecting ends, if one starts at `from`.
fn subscript_word(b: &[u8], from: usize) -> Option<usize> {
    let mut i = from;
    while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_') {
        i += 1;
    }
    if i == from || b.get(i) != Some(&b'[') || !is_name(&b[from..i]) {
        return None;
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
            b'\n' => return None,
            b'\'' => i = find_from(b, i + 1, b'\'')?,
            b'"' => i = double_quote_end(b, i + 1).checked_sub(1)?,
            b'\\' => i += 1,
            c if SPLITTING.contains(&c) => needs = true,
            _ => {}
        }
        i += 1;
    }
    if i >= b.len() || !needs || i == open {
        return None;
    }
    let after = &b[i + 1..];
    if after.starts_with(b"=") || after.starts_with(b"+=") {
        return None;
    }
    // The word goes on after the brackets up to the next blank or operator.
    Some(word_end(b, i + 1).max(i + 1))
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
            b'"' => {
                let e = double_quote_end(b, i + 1).min(end);
                out.push_str(&text[i..e]);
                i = e;
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

    #[test]
    fn react_syntax_typed_as_a_command_is_one_word() {
        assert_eq!(protect("execute[ls /system/]"), "execute[ls\\ /system/]");
        assert_eq!(
            protect("cd /x && execute[find . | wc -l]; echo $?"),
            "cd /x && execute[find\\ .\\ \\|\\ wc\\ -l]; echo $?"
        );
        assert_eq!(
            protect("execute[grep \"a b\" f]"),
            "execute[grep\\ \"a b\"\\ f]"
        );
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
            "execute[ls\n/]",
        ] {
            assert_eq!(protect(text), text, "{text}");
        }
    }

    #[test]
    fn command_start_follows_separators_keywords_and_assignments() {
        assert_eq!(
            protect("if execute[a b]; then :; fi"),
            "if execute[a\\ b]; then :; fi"
        );
        assert_eq!(protect("X=1 execute[a b]"), "X=1 execute[a\\ b]");
        assert_eq!(protect("echo $(execute[a b])"), "echo $(execute[a\\ b])");
    }
}
