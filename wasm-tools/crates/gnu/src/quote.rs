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
            _ => push_c_escaped(&mut out, b),
        }
    }
    out
}

/// A byte as C writes it in a string: printable ASCII as itself, `\a \b \t \n \v \f \r` for
/// those controls, three-digit octal for the rest.
fn push_c_escaped(out: &mut String, b: u8) {
    match b {
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

/// gnulib's `quote` in the C locale (upstream's agents ran without a locale), as `mkdir`,
/// `rmdir` and the usage errors print names: `'name'`, with `\'` and `\\` inside, C escapes
/// for control characters and three-digit octal for other unprintable bytes (every byte ≥ 0x80
/// in the C locale).
pub fn locale(name: &str) -> String {
    locale_bytes(name.as_bytes())
}

/// [`locale`] of bytes that need not be UTF-8 (`pathchk` shows one byte of a name).
pub fn locale_bytes(name: &[u8]) -> String {
    let mut out = String::with_capacity(name.len() + 2);
    out.push('\'');
    for &b in name {
        match b {
            b'\\' | b'\'' => {
                out.push('\\');
                out.push(b as char);
            }
            _ => push_c_escaped(&mut out, b),
        }
    }
    out.push('\'');
    out
}

/// Shell quoting as coreutils' `shell-escape-always` style prints it (`stat %N`, `ls`
/// messages): `'name'`, with `'\''` for embedded single quotes.
pub fn shell_always(name: &str) -> String {
    let unprintable = |b: u8| !(0x20..0x7f).contains(&b);
    if name.bytes().any(unprintable) && !name.contains('\'') {
        return shell_escaped(name.as_bytes(), unprintable);
    }
    if name.contains('\'') {
        // coreutils switches to double quotes when that avoids escaping.
        if !name.contains(['"', '$', '`', '\\']) {
            return format!("\"{name}\"");
        }
        return format!("'{}'", name.replace('\'', "'\\''"));
    }
    format!("'{name}'")
}

/// The shell-escape style's form for a name with unprintable bytes (every byte ≥ 0x80 in the
/// C locale): single quotes, and each run of unprintable bytes as `$'…'` with C escapes and
/// octal, so `a\nb` is `'a'$'\n''b'` and `café` is `'caf'$'\303\251'`.
fn shell_escaped(bytes: &[u8], unprintable: impl Fn(u8) -> bool) -> String {
    let mut out = String::from("'");
    let mut escaping = false;
    for &b in bytes {
        if unprintable(b) {
            if !escaping {
                out.push_str("'$'");
                escaping = true;
            }
            push_c_escaped(&mut out, b);
        } else {
            if escaping {
                out.push_str("''");
                escaping = false;
            }
            out.push(b as char);
        }
    }
    out.push('\'');
    out
}

/// gnulib's `quotef` (coreutils' error messages about a file): the name as it is when the
/// shell would read it back unchanged, else [`shell_always`]. Needing quotes, as in GNU's
/// shell-escape style with `:` added: blanks and the shell's special characters
/// (`!"$&'()*;<=>?[\^`|`), control and non-ASCII bytes, `:`; a lone `{` or `}`; `#` or `~` at
/// the start. So `{}`, `a]` and `x#` stay bare while `a=b`, `a:b` and `#x` are quoted.
pub fn shell_if_needed(name: &str) -> String {
    let b = name.as_bytes();
    let special = |(i, &c): (usize, &u8)| match c {
        b'{' | b'}' => b.len() == 1,
        b'#' | b'~' => i == 0,
        _ => !(c.is_ascii_alphanumeric() || b"_@%+,./-]".contains(&c)),
    };
    if b.is_empty() || b.iter().enumerate().any(special) {
        shell_always(name)
    } else {
        name.to_string()
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
        // GNU ls 9.1 --quoting-style=shell-escape-always, LC_ALL=C.
        assert_eq!(shell_always("a\nb"), "'a'$'\\n''b'");
        assert_eq!(shell_always("\nx"), "''$'\\n''x'");
        assert_eq!(shell_always("x\u{7f}"), "'x'$'\\177'");
        assert_eq!(shell_always("caf\u{e9}"), "'caf'$'\\303\\251'");
    }

    /// gnulib's `quote` in the C locale, as `mkdir ''` and GNU's usage errors print it.
    #[test]
    fn locale_quotes_escape_the_unprintable() {
        assert_eq!(locale("it's"), "'it\\'s'");
        assert_eq!(locale("a\tb"), "'a\\tb'");
        assert_eq!(locale("\u{e9}"), "'\\303\\251'");
    }

    /// Ubuntu 22.04's `cat` and `md5sum` on missing files of these names.
    #[test]
    fn quotes_only_what_gnu_quotef_quotes() {
        for (name, shown) in [
            ("a=b", "'a=b'"),
            ("{}", "{}"),
            ("{", "'{'"),
            ("#x", "'#x'"),
            ("x#", "x#"),
            ("~", "'~'"),
            ("a~", "a~"),
            ("a:b", "'a:b'"),
            ("%+@,^", "'%+@,^'"),
            ("a]", "a]"),
            ("x!", "'x!'"),
            ("a?b", "'a?b'"),
            ("", "''"),
            ("dir/file-1.txt", "dir/file-1.txt"),
        ] {
            assert_eq!(shell_if_needed(name), shown, "{name}");
        }
    }
}
