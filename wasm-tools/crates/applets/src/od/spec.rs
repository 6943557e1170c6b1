//! Output types (`-t TYPE` and the traditional letters): GNU's grammar and field widths on
//! x86_64. Letters `a c d f o u x`; a size after `d o u x` (digits or `C S I L`) and after `f`
//! (digits or `F D L`); each type optionally followed by `z` (the printable-bytes trailer).

/// What a field shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Signed,
    Unsigned,
    Octal,
    Hex,
    Float,
    /// `-t a`: names of ASCII characters, high bit ignored.
    Named,
    /// `-t c`: characters or backslash escapes.
    Char,
}

/// One output type.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Spec {
    pub kind: Kind,
    /// Bytes per field.
    pub size: usize,
    /// Minimum characters per field, before padding.
    pub width: usize,
    /// Printable bytes after the line (`z`).
    pub trailer: bool,
}

/// Integral sizes an x86_64 system provides (char, short, int, long).
const INTEGRAL: &[usize] = &[1, 2, 4, 8];
/// Floating point sizes (float, double, long double).
const FLOATING: &[usize] = &[4, 8, 16];

/// Characters a value of `size` bytes needs: octal, signed and unsigned decimal, hex.
fn digits(kind: Kind, size: usize) -> usize {
    const OCTAL: [usize; 9] = [0, 3, 6, 8, 11, 14, 16, 19, 22];
    const SIGNED: [usize; 9] = [1, 4, 6, 8, 11, 13, 16, 18, 20];
    const UNSIGNED: [usize; 9] = [0, 3, 5, 8, 10, 13, 15, 17, 20];
    match kind {
        Kind::Octal => OCTAL[size],
        Kind::Signed => SIGNED[size],
        Kind::Unsigned => UNSIGNED[size],
        Kind::Hex => 2 * size,
        // gnulib's FLT/DBL/LDBL_STRLEN_BOUND: sign, digits, point, exponent.
        Kind::Float => match size {
            4 => 15,
            8 => 24,
            _ => 29,
        },
        Kind::Named | Kind::Char => 3,
    }
}

/// Decodes a whole type string into `out`; on error nothing is added and the message (without
/// the program name) is returned.
pub fn decode(text: &str, out: &mut Vec<Spec>) -> Result<(), String> {
    let bytes = text.as_bytes();
    let quoted = crate::common::quote::locale(text);
    let mut specs = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        let letter = bytes[i];
        i += 1;
        let kind = match letter {
            b'd' => Kind::Signed,
            b'u' => Kind::Unsigned,
            b'o' => Kind::Octal,
            b'x' => Kind::Hex,
            b'f' => Kind::Float,
            b'a' => Kind::Named,
            b'c' => Kind::Char,
            other => {
                return Err(format!(
                    "invalid character '{}' in type string {quoted}",
                    other as char
                ));
            }
        };
        let size = match kind {
            Kind::Named | Kind::Char => 1,
            _ => {
                let floating = kind == Kind::Float;
                let named: &[(u8, usize)] = if floating {
                    &[(b'F', 4), (b'D', 8), (b'L', 16)]
                } else {
                    &[(b'C', 1), (b'S', 2), (b'I', 4), (b'L', 8)]
                };
                if let Some(&(_, size)) = named.iter().find(|(c, _)| bytes.get(i) == Some(c)) {
                    i += 1;
                    size
                } else {
                    let n = bytes[i..].iter().take_while(|b| b.is_ascii_digit()).count();
                    if n == 0 {
                        if floating { 8 } else { 4 }
                    } else {
                        let digits_text = &text[i..i + n];
                        i += n;
                        let Ok(size) = digits_text.parse::<u64>() else {
                            return Err(format!("invalid type string {quoted}"));
                        };
                        let (sizes, what) = if floating {
                            (FLOATING, "floating point")
                        } else {
                            (INTEGRAL, "integral")
                        };
                        match usize::try_from(size) {
                            Ok(s) if sizes.contains(&s) => s,
                            _ => {
                                return Err(format!(
                                    "invalid type string {quoted};\nthis system doesn't provide a {size}-byte {what} type"
                                ));
                            }
                        }
                    }
                }
            }
        };
        let trailer = bytes.get(i) == Some(&b'z');
        if trailer {
            i += 1;
        }
        specs.push(Spec {
            kind,
            size,
            width: digits(kind, size),
            trailer,
        });
    }
    out.extend(specs);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn one(text: &str) -> Result<Vec<Spec>, String> {
        let mut v = Vec::new();
        decode(text, &mut v).map(|()| v)
    }

    // Expected messages: GNU od (coreutils 9.1) in the C locale.
    #[test]
    fn bad_type_strings_in_gnu_words() {
        assert_eq!(
            one("g").unwrap_err(),
            "invalid character 'g' in type string 'g'"
        );
        assert_eq!(
            one("double").unwrap_err(),
            "invalid character 'b' in type string 'double'"
        );
        assert_eq!(
            one("x9").unwrap_err(),
            "invalid type string 'x9';\nthis system doesn't provide a 9-byte integral type"
        );
        assert_eq!(
            one("f2").unwrap_err(),
            "invalid type string 'f2';\nthis system doesn't provide a 2-byte floating point type"
        );
        assert_eq!(
            one("a2").unwrap_err(),
            "invalid character '2' in type string 'a2'"
        );
    }

    #[test]
    fn sizes_and_widths() {
        let s = one("x1zd8fLcuofF").unwrap();
        let shape: Vec<(Kind, usize, usize, bool)> = s
            .iter()
            .map(|s| (s.kind, s.size, s.width, s.trailer))
            .collect();
        assert_eq!(
            shape,
            [
                (Kind::Hex, 1, 2, true),
                (Kind::Signed, 8, 20, false),
                (Kind::Float, 16, 29, false),
                (Kind::Char, 1, 3, false),
                (Kind::Unsigned, 4, 10, false),
                (Kind::Octal, 4, 11, false),
                (Kind::Float, 4, 15, false),
            ]
        );
    }
}
