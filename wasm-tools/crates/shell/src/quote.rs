//! How the shell quotes text it shows back as shell input: `set`, `declare -p`, `printf %q`,
//! `set -x` traces and the names in its messages.

/// Single-quotes a string for reuse as shell input (`'it'\''s'`).
pub fn shell_quote(s: &str) -> String {
    if !s.is_empty()
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || "_-./=:,+@%".contains(c))
    {
        return s.to_string();
    }
    format!("'{}'", s.replace('\'', "'\\''"))
}

/// Always single-quoted, as bash's `sh_single_quote` (`trap -p`): `''` for nothing.
pub fn single_quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', "'\\''"))
}

/// `printf %q` (bash's `sh_backslash_quote`): characters the shell would read specially get a
/// backslash (`it\'s\ a\ \$test`), `~` only where a tilde expands and `#` only first; nothing
/// is `''`; text with control or non-ASCII bytes is `$'…'` instead.
pub fn backslash_quote(s: &str) -> String {
    if s.is_empty() {
        return "''".into();
    }
    ansi_c_or(s, backslash_escape)
}

fn backslash_escape(s: &str) -> String {
    let mut out = String::new();
    let mut previous: Option<char> = None;
    for c in s.chars() {
        let special = match c {
            ' ' | '\t' | '\n' | '\'' | '"' | '\\' | '|' | '&' | ';' | '(' | ')' | '<' | '>'
            | '!' | '{' | '}' | '*' | '[' | '?' | ']' | '^' | '$' | '`' | ',' => true,
            '~' => matches!(previous, None | Some('=') | Some(':')),
            '#' => previous.is_none(),
            _ => false,
        };
        if special {
            out.push('\\');
        }
        out.push(c);
        previous = Some(c);
    }
    out
}

/// `s` in `$'…'` when it holds a byte bash would not show as is, else quoted by `quote`: the
/// rule bash's `set`, `declare -p`, `${x@Q}` and `printf %q` share, each with its own `quote`.
pub fn ansi_c_or(s: &str, quote: fn(&str) -> String) -> String {
    if needs_ansi_c_quoting(s) {
        ansi_c_quote(s)
    } else {
        quote(s)
    }
}

/// bash's `ansic_shouldquote` in the C locale (upstream's): a byte that is not printable ASCII.
pub fn needs_ansi_c_quoting(s: &str) -> bool {
    s.bytes().any(|b| !(0x20..0x7f).contains(&b))
}

/// bash's `ansic_quote`: `$'…'` with C escapes, `\'` and `\\`, and other unprintable bytes in
/// three octal digits.
pub fn ansi_c_quote(s: &str) -> String {
    let mut out = String::from("$'");
    for b in s.bytes() {
        match b {
            b'\n' => out.push_str("\\n"),
            b'\t' => out.push_str("\\t"),
            b'\r' => out.push_str("\\r"),
            0x1b => out.push_str("\\E"),
            0x07 => out.push_str("\\a"),
            0x08 => out.push_str("\\b"),
            0x0b => out.push_str("\\v"),
            0x0c => out.push_str("\\f"),
            b'\'' => out.push_str("\\'"),
            b'\\' => out.push_str("\\\\"),
            b if !(0x20..0x7f).contains(&b) => out.push_str(&format!("\\{b:03o}")),
            b => out.push(b as char),
        }
    }
    out.push('\'');
    out
}

/// An array element as `set` and `declare -p` show it: in double quotes, `"`, `\`, `$` and
/// `` ` `` escaped.
pub fn double_quote(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        if matches!(c, '"' | '\\' | '$' | '`') {
            out.push('\\');
        }
        out.push(c);
    }
    out.push('"');
    out
}

/// Quoting for `set -x` traces, like bash's (only quote when needed).
pub fn xtrace_quote(s: &str) -> String {
    shell_quote(s)
}
