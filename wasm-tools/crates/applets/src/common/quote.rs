//! Quoting file names for display the way GNU tools do in the C locale.

/// GNU's "escape" quoting as `find -ls` and `tree` use it: C escapes (`\t`, `\n`, …) and
/// three-digit octal for other unprintable bytes (every byte ≥ 0x80 in the C locale), a
/// doubled backslash, and a backslash before space and `"`.
pub fn escape(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    for &b in name.as_bytes() {
        match b {
            b'\\' | b' ' | b'"' => {
                out.push('\\');
                out.push(b as char);
            }
            7 => out.push_str("\\a"),
            8 => out.push_str("\\b"),
            9 => out.push_str("\\t"),
            10 => out.push_str("\\n"),
            11 => out.push_str("\\v"),
            12 => out.push_str("\\f"),
            13 => out.push_str("\\r"),
            0x20..=0x7e => out.push(b as char),
            _ => out.push_str(&format!("\\{b:03o}")),
        }
    }
    out
}

/// gnulib's `quote` in the C locale (upstream's agents ran without a locale), as `mkdir`,
/// `rmdir` and the usage errors print names: `'name'`, with `\'` and `\\` inside.
pub fn locale(name: &str) -> String {
    format!("'{}'", name.replace('\\', "\\\\").replace('\'', "\\'"))
}

/// Shell quoting as coreutils' `shell-escape-always` style prints it (`stat %N`, `ls`
/// messages): `'name'`, with `'\''` for embedded single quotes.
pub fn shell_always(name: &str) -> String {
    if name.contains('\'') {
        // coreutils switches to double quotes when that avoids escaping.
        if !name.contains(['"', '$', '`', '\\']) {
            return format!("\"{name}\"");
        }
        return format!("'{}'", name.replace('\'', "'\\''"));
    }
    format!("'{name}'")
}

/// gnulib's `quotef` (coreutils' error messages about a file): the name as it is when it
/// needs no quoting for the shell, else [`shell_always`].
pub fn shell_if_needed(name: &str) -> String {
    let plain = !name.is_empty()
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"_@%+=:,./-".contains(&b));
    if plain {
        name.to_string()
    } else {
        shell_always(name)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_like_find_ls() {
        assert_eq!(escape("a b"), "a\\ b");
        assert_eq!(escape("c\\d"), "c\\\\d");
        assert_eq!(escape("g\"h"), "g\\\"h");
        assert_eq!(escape("m\tn"), "m\\tn");
        assert_eq!(escape("o\u{1}p"), "o\\001p");
        assert_eq!(escape("\u{e9}"), "\\303\\251");
        assert_eq!(escape("e'f*$;"), "e'f*$;");
    }

    #[test]
    fn shell_quotes() {
        assert_eq!(shell_always("a.txt"), "'a.txt'");
        assert_eq!(shell_always("it's"), "\"it's\"");
    }
}
