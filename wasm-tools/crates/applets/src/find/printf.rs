//! `-printf` formats: compiled once at parse time into [`Piece`]s, rendered per file.
//!
//! Directives follow findutils 4.9: `%p %P %f %h %H %d %s %k %b %m %M %u %U %g %G %i %n %l
//! %y %Y %D %S %a %c %t %A? %C? %T?` (`?` a `strftime` letter, plus `@`; `S`, `T` and `+`
//! carry GNU's ten-digit fraction), flags `-` `#` `+`, width and precision. Escapes `\n \t \0
//! \\ \a \b \f \r \v \c \NNN`. Unknown directives and escapes are printed literally after a
//! warning, as GNU does.

use super::Entry;
use crate::common::mode::{mode_string, type_char};
use crate::common::sys;
use crate::common::time::{Tm, strftime, strftime_one};
use gnu::escape::{self, Escape};

/// One compiled element of a format.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Piece {
    Text(Vec<u8>),
    Directive {
        left: bool,
        alt: bool,
        plus: bool,
        width: Option<usize>,
        precision: Option<usize>,
        conv: char,
        /// The `strftime` letter after `%A`, `%C`, `%T`.
        time: Option<char>,
    },
    /// `\c`: stop printing this format.
    Stop,
}

/// Compiles a format, returning GNU's warnings for what it does not understand.
pub fn compile(fmt: &str) -> (Vec<Piece>, Vec<String>) {
    let b = fmt.as_bytes();
    let mut pieces = Vec::new();
    let mut text = Vec::new();
    let mut warnings = Vec::new();
    let mut i = 0;
    let flush = |text: &mut Vec<u8>, pieces: &mut Vec<Piece>| {
        if !text.is_empty() {
            pieces.push(Piece::Text(std::mem::take(text)));
        }
    };
    while i < b.len() {
        let c = b[i];
        if c == b'\\' && i + 1 < b.len() {
            let (escape, used) = escape::decode_one(&b[i + 1..], &escape::FIND);
            match escape {
                Escape::Byte(byte) => text.push(byte),
                Escape::Stop => {
                    flush(&mut text, &mut pieces);
                    pieces.push(Piece::Stop);
                }
                Escape::CodePoint(_) | Escape::Unknown => {
                    let other = b[i + 1];
                    warnings.push(format!(
                        "warning: unrecognized escape `\\{}'",
                        other as char
                    ));
                    text.extend_from_slice(&[b'\\', other]);
                }
            }
            i += 1 + used.max(1);
            continue;
        }
        if c == b'%' {
            if i + 1 >= b.len() {
                text.push(b'%');
                i += 1;
                continue;
            }
            if b[i + 1] == b'%' {
                text.push(b'%');
                i += 2;
                continue;
            }
            let start = i;
            i += 1;
            let (mut left, mut alt, mut plus) = (false, false, false);
            while i < b.len() && matches!(b[i], b'-' | b'#' | b'+' | b' ' | b'0') {
                match b[i] {
                    b'-' => left = true,
                    b'#' => alt = true,
                    b'+' => plus = true,
                    _ => {}
                }
                i += 1;
            }
            let mut width = None;
            let ws = i;
            while i < b.len() && b[i].is_ascii_digit() {
                i += 1;
            }
            if i > ws {
                width = fmt[ws..i].parse().ok();
            }
            let mut precision = None;
            if i < b.len() && b[i] == b'.' {
                i += 1;
                let ps = i;
                while i < b.len() && b[i].is_ascii_digit() {
                    i += 1;
                }
                precision = Some(fmt[ps..i].parse().unwrap_or(0));
            }
            let Some(&conv) = b.get(i) else {
                text.extend_from_slice(&b[start..]);
                break;
            };
            i += 1;
            let conv = conv as char;
            let mut time = None;
            let known = match conv {
                'A' | 'C' | 'T' => {
                    if let Some(&t) = b.get(i) {
                        i += 1;
                        let t = t as char;
                        let tm = Tm::from_epoch(0, 0);
                        if t == '@' || strftime_one(t, &tm).is_some() {
                            time = Some(t);
                            true
                        } else {
                            warnings.push(format!(
                                "warning: unrecognized format directive `%{conv}{t}'"
                            ));
                            text.extend_from_slice(&b[start..i]);
                            continue;
                        }
                    } else {
                        false
                    }
                }
                'p' | 'P' | 'f' | 'h' | 'H' | 'd' | 's' | 'k' | 'b' | 'm' | 'M' | 'u' | 'U'
                | 'g' | 'G' | 'i' | 'n' | 'l' | 'y' | 'Y' | 'D' | 'S' | 'a' | 'c' | 't' => true,
                _ => false,
            };
            if !known {
                warnings.push(format!("warning: unrecognized format directive `%{conv}'"));
                text.extend_from_slice(&b[start..i]);
                continue;
            }
            flush(&mut text, &mut pieces);
            pieces.push(Piece::Directive {
                left,
                alt,
                plus,
                width,
                precision,
                conv,
                time,
            });
            continue;
        }
        text.push(c);
        i += 1;
    }
    flush(&mut text, &mut pieces);
    (pieces, warnings)
}

/// GNU's timestamp text: `strftime` plus a ten-digit fraction after seconds.
fn fraction(nanos: u32) -> String {
    format!(".{nanos:09}0")
}

fn ctime_like(ns: i64) -> String {
    let tm = Tm::from_ns(ns);
    format!(
        "{}{} {}",
        strftime("%a %b %e %H:%M:%S", &tm),
        fraction(tm.nanos),
        tm.year
    )
}

fn time_directive(ns: i64, t: char) -> String {
    let tm = Tm::from_ns(ns);
    match t {
        '@' => format!("{}{}", ns.div_euclid(1_000_000_000), fraction(tm.nanos)),
        'S' => format!("{:02}{}", tm.sec, fraction(tm.nanos)),
        'T' => format!("{}{}", strftime("%H:%M:%S", &tm), fraction(tm.nanos)),
        '+' => format!(
            "{}{}",
            strftime("%Y-%m-%d+%H:%M:%S", &tm),
            fraction(tm.nanos)
        ),
        other => strftime_one(other, &tm).unwrap_or_default(),
    }
}

/// `%S`'s sparseness: C's `%g`, six significant digits.
fn fmt_g(v: f64) -> String {
    let mut out = Vec::new();
    let spec = gnu::printf::Spec {
        precision: Some(6),
        ..Default::default()
    };
    gnu::printf::float(&mut out, &spec, b'g', v);
    String::from_utf8(out).unwrap_or_default()
}

/// `%f`: the last component, keeping one trailing slash (gnulib `base_name`).
pub fn base_name(path: &str) -> String {
    let trimmed = path.trim_end_matches('/');
    if trimmed.is_empty() {
        return if path.is_empty() {
            String::new()
        } else {
            "/".into()
        };
    }
    let base = match trimmed.rfind('/') {
        Some(i) => &trimmed[i + 1..],
        None => trimmed,
    };
    if trimmed.len() < path.len() {
        format!("{base}/")
    } else {
        base.to_string()
    }
}

/// Renders a compiled format for one file.
pub fn render(pieces: &[Piece], f: &Entry) -> Vec<u8> {
    let mut out = Vec::new();
    for p in pieces {
        match p {
            Piece::Text(t) => out.extend_from_slice(t),
            Piece::Stop => break,
            Piece::Directive {
                left,
                alt,
                plus,
                width,
                precision,
                conv,
                time,
            } => {
                let mut s = directive(*conv, *time, *alt, *plus, f);
                if let Some(p) = precision
                    && !matches!(conv, 'S')
                {
                    s = s.chars().take(*p).collect();
                }
                let len = s.chars().count();
                let pad = width.map_or(0, |w| w.saturating_sub(len));
                if *left {
                    out.extend_from_slice(s.as_bytes());
                    out.extend(std::iter::repeat_n(b' ', pad));
                } else {
                    out.extend(std::iter::repeat_n(b' ', pad));
                    out.extend_from_slice(s.as_bytes());
                }
            }
        }
    }
    out
}

fn type_letter(mode: u32) -> char {
    match type_char(mode) {
        '-' => 'f',
        c => c,
    }
}

fn directive(conv: char, time: Option<char>, alt: bool, plus: bool, f: &Entry) -> String {
    let st = &f.st;
    match conv {
        'p' => f.path.to_string(),
        'P' => {
            let rest = &f.path[f.start.len().min(f.path.len())..];
            rest.strip_prefix('/').unwrap_or(rest).to_string()
        }
        'f' => base_name(f.path),
        'h' => match f.path.rfind('/') {
            Some(i) => f.path[..i].to_string(),
            None => ".".to_string(),
        },
        'H' => f.start.to_string(),
        'd' => {
            if plus {
                format!("+{}", f.depth)
            } else {
                f.depth.to_string()
            }
        }
        's' => st.size.to_string(),
        'k' => st.blocks.div_ceil(2).to_string(),
        'b' => st.blocks.to_string(),
        'm' => {
            let m = st.mode & 0o7777;
            if alt {
                format!("{m:#o}").replace("0o", "0")
            } else {
                format!("{m:o}")
            }
        }
        'M' => mode_string(st.mode),
        'u' => sys::user_name(st.uid),
        'U' => st.uid.to_string(),
        'g' => sys::group_name(st.gid),
        'G' => st.gid.to_string(),
        'i' => st.ino.to_string(),
        'n' => st.nlink.to_string(),
        'D' => st.dev.to_string(),
        'l' => {
            if st.is_symlink() {
                hostcalls::read_link(f.path)
                    .map(|p| p.to_string_lossy().into_owned())
                    .unwrap_or_default()
            } else {
                String::new()
            }
        }
        'y' => type_letter(st.mode).to_string(),
        'Y' => {
            if st.is_symlink() {
                match hostcalls::stat(f.path, true) {
                    Ok(t) => type_letter(t.mode).to_string(),
                    Err(e) if sys::strerror(&e) == "Too many levels of symbolic links" => {
                        "L".into()
                    }
                    Err(_) => "N".into(),
                }
            } else {
                type_letter(st.mode).to_string()
            }
        }
        'S' => {
            if st.size == 0 {
                "1".into()
            } else {
                fmt_g(st.blocks as f64 * 512.0 / st.size as f64)
            }
        }
        'a' => ctime_like(st.atime_ns),
        'c' => ctime_like(st.ctime_ns),
        't' => ctime_like(st.mtime_ns),
        'A' => time_directive(st.atime_ns, time.unwrap_or('c')),
        'C' => time_directive(st.ctime_ns, time.unwrap_or('c')),
        'T' => time_directive(st.mtime_ns, time.unwrap_or('c')),
        _ => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn compile_escapes_and_warnings() {
        let (p, w) = compile("a\\tb\\101\\c%%\\q%e");
        assert_eq!(p[0], Piece::Text(b"a\tbA".to_vec()));
        assert_eq!(p[1], Piece::Stop);
        assert_eq!(p[2], Piece::Text(b"%\\q%e".to_vec()));
        assert_eq!(
            w,
            vec![
                "warning: unrecognized escape `\\q'".to_string(),
                "warning: unrecognized format directive `%e'".to_string()
            ]
        );
    }

    #[test]
    fn base_names() {
        assert_eq!(base_name("./"), "./");
        assert_eq!(base_name("d//"), "d/");
        assert_eq!(base_name("/"), "/");
        assert_eq!(base_name("/tmp"), "tmp");
        assert_eq!(base_name("a/b"), "b");
    }

    #[test]
    fn g_format() {
        assert_eq!(fmt_g(4096.0 / 3.0), "1365.33");
        assert_eq!(fmt_g(1.0), "1");
        assert_eq!(fmt_g(0.5), "0.5");
        assert_eq!(fmt_g(1234567.0), "1.23457e+06");
        // Rounding to six digits can carry into a seventh: C switches to the exponent form.
        assert_eq!(fmt_g(999999.5), "1e+06");
    }

    #[test]
    fn time_texts() {
        let ns = 1_682_935_200_123_456_789;
        assert_eq!(ctime_like(ns), "Mon May  1 10:00:00.1234567890 2023");
        assert_eq!(time_directive(ns, '@'), "1682935200.1234567890");
        assert_eq!(time_directive(ns, '+'), "2023-05-01+10:00:00.1234567890");
        assert_eq!(time_directive(ns, 'k'), "10");
    }
}
