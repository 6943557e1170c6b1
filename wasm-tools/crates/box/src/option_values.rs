//! Option values GNU refuses, refused in GNU's words. uutils refuses most bad values too, but
//! in its own: clap's `error: invalid value 'x' for '--starting-line-number <NUMBER>'`, or
//! `uniq: Invalid argument for skip-fields: x` where GNU says `uniq: x: invalid number of
//! fields to skip`, or a zero count without gnulib's `: Numerical result out of range`. Before
//! such a utility runs, its command line is read as GNU's `getopt_long` reads it (the
//! utility's whole option table, so bundles and abbreviations split as GNU splits them) and
//! each value is checked the way the GNU program checks it, in order: the first refusal is
//! GNU's message and status. A command line this table cannot read is left to uutils.

use gnu::getopt::{self, Config, OptSpec, flag, long_arg, long_flag, long_opt_arg, with_arg};
use gnu::xstrtol::{NumError, xstrtoimax, xstrtoumax};
use std::ffi::OsString;
use std::io::Write;

/// How GNU checks one option's value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Check {
    /// uniq's `size_opt`: a count without suffix, overflow allowed (`x: MESSAGE`).
    Size(&'static str),
    /// gnulib's `xdectoimax(value, min, max, "", MESSAGE, 0)`.
    Decimal {
        min: i64,
        max: i64,
        message: &'static str,
    },
    /// A count whose other refusals uutils words as GNU does; only zero is refused here
    /// (`xdectoumax` with a minimum of 1).
    NotZero(&'static str),
    /// nl's `-h`/`-b`/`-f` numbering style (`a`, `t`, `n` or `pBRE`).
    Style(&'static str),
    /// nl's `-n` line number format.
    Format,
    /// shuf's `-n`: a count without suffix, overflow allowed.
    LineCount,
    /// sort's `-t`: one character (or `\0`).
    Tab,
    /// sort's `-S`: gnulib's `xstrtol_fatal` names the option as typed (uutils always says
    /// `--buffer-size`); only a value with no number at all is refused here.
    BufferSize,
    /// One of a list (gnulib's `argmatch`: the word or an unambiguous prefix of it); a refusal
    /// lists the valid words and ends with the Try line.
    Choice(&'static str, &'static [&'static str]),
}

type Spec = OptSpec<Option<Check>>;

const HELP: Spec = long_flag("help", None);
const VERSION: Spec = long_flag("version", None);

/// GNU uniq 8.32's options.
const UNIQ: &[Spec] = &[
    flag('c', "count", None),
    flag('d', "repeated", None),
    flag('D', "", None),
    long_opt_arg("all-repeated", None),
    long_opt_arg("group", None),
    with_arg(
        'f',
        "skip-fields",
        Some(Check::Size("invalid number of fields to skip")),
    ),
    flag('i', "ignore-case", None),
    with_arg(
        's',
        "skip-chars",
        Some(Check::Size("invalid number of bytes to skip")),
    ),
    flag('u', "unique", None),
    with_arg(
        'w',
        "check-chars",
        Some(Check::Size("invalid number of bytes to compare")),
    ),
    flag('z', "zero-terminated", None),
    HELP,
    VERSION,
];

/// GNU nl 8.32's options.
const NL: &[Spec] = &[
    with_arg('h', "header-numbering", Some(Check::Style("header"))),
    with_arg('b', "body-numbering", Some(Check::Style("body"))),
    with_arg('f', "footer-numbering", Some(Check::Style("footer"))),
    with_arg(
        'v',
        "starting-line-number",
        Some(Check::Decimal {
            min: i64::MIN,
            max: i64::MAX,
            message: "invalid starting line number",
        }),
    ),
    with_arg(
        'i',
        "line-increment",
        Some(Check::Decimal {
            min: 1,
            max: i64::MAX,
            message: "invalid line number increment",
        }),
    ),
    flag('p', "no-renumber", None),
    with_arg(
        'l',
        "join-blank-lines",
        Some(Check::Decimal {
            min: 1,
            max: i64::MAX,
            message: "invalid line number of blank lines",
        }),
    ),
    with_arg('s', "number-separator", None),
    with_arg(
        'w',
        "number-width",
        Some(Check::Decimal {
            min: 1,
            max: i32::MAX as i64,
            message: "invalid line number field width",
        }),
    ),
    with_arg('n', "number-format", Some(Check::Format)),
    with_arg('d', "section-delimiter", None),
    HELP,
    VERSION,
];

/// GNU split 8.32's options (`-NUM` is `-l NUM`).
const SPLIT: &[Spec] = &[
    with_arg('a', "suffix-length", None),
    long_arg("additional-suffix", None),
    with_arg(
        'b',
        "bytes",
        Some(Check::NotZero("invalid number of bytes")),
    ),
    with_arg(
        'C',
        "line-bytes",
        Some(Check::NotZero("invalid number of bytes")),
    ),
    with_arg(
        'l',
        "lines",
        Some(Check::NotZero("invalid number of lines")),
    ),
    with_arg(
        'n',
        "number",
        Some(Check::NotZero("invalid number of chunks")),
    ),
    flag('e', "elide-empty-files", None),
    flag('u', "unbuffered", None),
    flag('d', "", None),
    long_opt_arg("numeric-suffixes", None),
    flag('x', "", None),
    long_opt_arg("hex-suffixes", None),
    long_arg("filter", None),
    long_flag("verbose", None),
    with_arg('t', "separator", None),
    long_arg("-io-blksize", None),
    HELP,
    VERSION,
];

/// GNU shuf 8.32's options.
const SHUF: &[Spec] = &[
    flag('e', "echo", None),
    with_arg('i', "input-range", None),
    with_arg('n', "head-count", Some(Check::LineCount)),
    with_arg('o', "output", None),
    long_arg("random-source", None),
    flag('r', "repeat", None),
    flag('z', "zero-terminated", None),
    HELP,
    VERSION,
];

/// GNU sort 8.32's options.
const SORT: &[Spec] = &[
    flag('b', "ignore-leading-blanks", None),
    flag('c', "", None),
    long_opt_arg("check", None),
    flag('C', "", None),
    long_arg("compress-program", None),
    long_flag("debug", None),
    flag('d', "dictionary-order", None),
    flag('f', "ignore-case", None),
    long_arg("files0-from", None),
    flag('g', "general-numeric-sort", None),
    flag('h', "human-numeric-sort", None),
    flag('i', "ignore-nonprinting", None),
    with_arg('k', "key", None),
    flag('m', "merge", None),
    flag('M', "month-sort", None),
    flag('n', "numeric-sort", None),
    with_arg('o', "output", None),
    long_arg("parallel", None),
    flag('R', "random-sort", None),
    long_arg("random-source", None),
    flag('r', "reverse", None),
    flag('s', "stable", None),
    with_arg('S', "buffer-size", Some(Check::BufferSize)),
    long_arg("sort", None),
    with_arg('t', "field-separator", Some(Check::Tab)),
    with_arg('T', "temporary-directory", None),
    flag('u', "unique", None),
    flag('V', "version-sort", None),
    with_arg('y', "", None),
    flag('z', "zero-terminated", None),
    long_arg("batch-size", None),
    HELP,
    VERSION,
];

/// GNU fold 8.32's options (`-NUM` is `-w NUM`).
const FOLD: &[Spec] = &[
    flag('b', "bytes", None),
    flag('s', "spaces", None),
    with_arg(
        'w',
        "width",
        Some(Check::NotZero("invalid number of columns")),
    ),
    HELP,
    VERSION,
];

/// GNU numfmt 8.32's options.
const NUMFMT: &[Spec] = &[
    long_flag("debug", None),
    with_arg('d', "delimiter", None),
    long_arg("field", None),
    long_arg("format", None),
    long_arg(
        "from",
        Some(Check::Choice(
            "--from",
            &["none", "auto", "si", "iec", "iec-i"],
        )),
    ),
    long_arg("from-unit", None),
    long_flag("grouping", None),
    long_opt_arg("header", None),
    long_arg(
        "invalid",
        Some(Check::Choice(
            "--invalid",
            &["abort", "fail", "warn", "ignore"],
        )),
    ),
    long_arg("padding", None),
    long_arg(
        "round",
        Some(Check::Choice(
            "--round",
            &["up", "down", "from-zero", "towards-zero", "nearest"],
        )),
    ),
    long_arg("suffix", None),
    long_arg(
        "to",
        Some(Check::Choice("--to", &["none", "si", "iec", "iec-i"])),
    ),
    long_arg("to-unit", None),
    flag('z', "zero-terminated", None),
    HELP,
    VERSION,
];

/// Each utility with its option table, whether `-NUM` is an option, and GNU's status for a
/// refused value.
fn table(name: &str) -> Option<(&'static [Spec], bool, i32)> {
    Some(match name {
        "uniq" => (UNIQ, false, 1),
        "nl" => (NL, false, 1),
        "split" => (SPLIT, true, 1),
        "shuf" => (SHUF, false, 1),
        "sort" => (SORT, false, 2),
        "fold" => (FOLD, true, 1),
        "numfmt" => (NUMFMT, false, 1),
        _ => return None,
    })
}

/// `Some(status)` when GNU `name` refuses one of the option values in `args` (argv[0]
/// included); GNU's message has been written then.
pub fn check(name: &str, args: &[OsString]) -> Option<i32> {
    let (specs, digits, status) = table(name)?;
    let args: Vec<String> = args
        .iter()
        .map(|a| a.to_str().map(str::to_string))
        .collect::<Option<_>>()?;
    let config = Config {
        stop_at_operand: false,
        digits: digits.then_some(None),
    };
    let parsed = getopt::parse(&args, specs, config).ok()?;
    let mut text = String::new();
    let mut needs_usage = false;
    for opt in &parsed.opts {
        let (Some(check), Some(value)) = (opt.key, opt.arg.as_deref()) else {
            continue;
        };
        let check = match check {
            Check::BufferSize if opt.spelled.starts_with("--") => continue,
            check => check,
        };
        match refusal(check, value) {
            None => {}
            Some(Refusal::Fatal(message)) => {
                text.push_str(&format!("{name}: {message}\n"));
                return Some(report(&text, status));
            }
            Some(Refusal::WithUsage(message)) => {
                text.push_str(&format!("{name}: {message}\n"));
                needs_usage = true;
                break;
            }
            Some(Refusal::ThenUsage(message)) => {
                text.push_str(&format!("{name}: {message}\n"));
                needs_usage = true;
            }
        }
    }
    if !needs_usage {
        return None;
    }
    text.push_str(&format!("{}\n", gnu::usage::try_help(name)));
    Some(report(&text, status))
}

/// Writes GNU's messages in one piece (processes refused side by side keep their lines whole).
fn report(text: &str, status: i32) -> i32 {
    let _ = std::io::stderr().write_all(text.as_bytes());
    status
}

/// How GNU refuses a value: at once, at once with the `Try` line, or after reading every
/// option, with the `Try` line.
#[derive(Debug, PartialEq, Eq)]
enum Refusal {
    Fatal(String),
    WithUsage(String),
    ThenUsage(String),
}

/// `strerror(ERANGE)` and `strerror(EOVERFLOW)` in glibc's words.
const ERANGE_TEXT: &str = "Numerical result out of range";
const EOVERFLOW_TEXT: &str = "Value too large for defined data type";

fn refusal(check: Check, value: &str) -> Option<Refusal> {
    let quoted = gnu::quote::locale(value);
    match check {
        Check::Size(message) => match xstrtoumax(value, 10, Some("")) {
            Ok(_) | Err(NumError::Overflow) => None,
            Err(_) => Some(Refusal::Fatal(format!("{value}: {message}"))),
        },
        Check::LineCount => match xstrtoumax(value, 10, Some("")) {
            Ok(_) | Err(NumError::Overflow) => None,
            Err(_) => Some(Refusal::Fatal(format!("invalid line count: {quoted}"))),
        },
        Check::Decimal { min, max, message } => {
            let reason = match xstrtoimax(value) {
                Ok(n) if (min..=max).contains(&n) => return None,
                // gnulib's heuristic: a limit far from int's range is a type's overflow.
                Ok(n) if n > i64::from(i32::MAX / 2) || n < i64::from(i32::MIN / 2) => {
                    Some(EOVERFLOW_TEXT)
                }
                Ok(_) => Some(ERANGE_TEXT),
                Err(NumError::Overflow) => Some(EOVERFLOW_TEXT),
                Err(_) => None,
            };
            Some(Refusal::Fatal(match reason {
                Some(reason) => format!("{message}: {quoted}: {reason}"),
                None => format!("{message}: {quoted}"),
            }))
        }
        Check::NotZero(message) => {
            let zero = !value.is_empty() && value.bytes().all(|b| b == b'0');
            zero.then(|| Refusal::Fatal(format!("{message}: {quoted}: {ERANGE_TEXT}")))
        }
        Check::Style(which) => match value.as_bytes().first() {
            Some(b'a' | b't' | b'n' | b'p') => None,
            _ => Some(Refusal::ThenUsage(format!(
                "invalid {which} numbering style: {quoted}"
            ))),
        },
        Check::Format => match value {
            "ln" | "rn" | "rz" => None,
            _ => Some(Refusal::ThenUsage(format!(
                "invalid line numbering format: {quoted}"
            ))),
        },
        Check::BufferSize => match xstrtoumax(value, 10, Some("bEgGkKmMPtTYZ%")) {
            Err(NumError::Invalid) => Some(Refusal::Fatal(format!("invalid -S argument {quoted}"))),
            _ => None,
        },
        Check::Choice(option, words) => {
            if words.contains(&value) {
                return None;
            }
            let matching = words.iter().filter(|w| w.starts_with(value)).count();
            if matching == 1 {
                return None;
            }
            let problem = if matching > 1 { "ambiguous" } else { "invalid" };
            let mut text = format!(
                "{problem} argument {quoted} for {}\nValid arguments are:",
                gnu::quote::locale(option)
            );
            for word in words {
                text.push_str(&format!("\n  - {}", gnu::quote::locale(word)));
            }
            Some(Refusal::WithUsage(text))
        }
        Check::Tab => {
            if value.is_empty() {
                Some(Refusal::Fatal("empty tab".to_string()))
            } else if value.len() > 1 && value != "\\0" {
                Some(Refusal::Fatal(format!("multi-character tab {quoted}")))
            } else {
                None
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn refused(check: Check, value: &str) -> Option<String> {
        refusal(check, value).map(|r| match r {
            Refusal::Fatal(m) | Refusal::WithUsage(m) | Refusal::ThenUsage(m) => m,
        })
    }

    // Expected texts: GNU coreutils 8.32 on Ubuntu 22.04 (C locale), e.g. `nl -w 0`.
    #[test]
    fn values_are_refused_in_gnus_words() {
        let width = Check::Decimal {
            min: 1,
            max: i32::MAX as i64,
            message: "invalid line number field width",
        };
        assert_eq!(
            refused(width, "x").as_deref(),
            Some("invalid line number field width: 'x'")
        );
        assert_eq!(
            refused(width, "0").as_deref(),
            Some("invalid line number field width: '0': Numerical result out of range")
        );
        assert_eq!(refused(width, " +7"), None);
        let skip = Check::Size("invalid number of fields to skip");
        assert_eq!(
            refused(skip, "-1").as_deref(),
            Some("-1: invalid number of fields to skip")
        );
        assert_eq!(refused(skip, "99999999999999999999999"), None);
        assert_eq!(refused(skip, "+2"), None);
        assert_eq!(
            refused(Check::NotZero("invalid number of lines"), "00").as_deref(),
            Some("invalid number of lines: '00': Numerical result out of range")
        );
        assert_eq!(
            refused(Check::NotZero("invalid number of lines"), "x"),
            None
        );
        assert_eq!(refused(Check::Style("body"), "pa"), None);
        assert_eq!(
            refusal(Check::Style("body"), "x"),
            Some(Refusal::ThenUsage(
                "invalid body numbering style: 'x'".to_string()
            ))
        );
        assert_eq!(refused(Check::Tab, "\\0"), None);
        assert_eq!(
            refused(Check::Choice("--to", &["none", "si", "iec", "iec-i"]), "x").as_deref(),
            Some(
                "invalid argument 'x' for '--to'\nValid arguments are:\n  - 'none'\n  - 'si'\n  \
                 - 'iec'\n  - 'iec-i'"
            )
        );
        assert_eq!(
            refused(Check::Choice("--to", &["none", "si", "iec", "iec-i"]), "ie").as_deref(),
            Some(
                "ambiguous argument 'ie' for '--to'\nValid arguments are:\n  - 'none'\n  - 'si'\n  \
                 - 'iec'\n  - 'iec-i'"
            )
        );
        assert_eq!(
            refused(Check::Tab, "ab").as_deref(),
            Some("multi-character tab 'ab'")
        );
        assert_eq!(refused(Check::Tab, "").as_deref(), Some("empty tab"));
        assert_eq!(
            refused(Check::LineCount, "-1").as_deref(),
            Some("invalid line count: '-1'")
        );
    }

    #[test]
    fn options_are_read_as_getopt_reads_them() {
        let words =
            |line: &str| -> Vec<OsString> { line.split_whitespace().map(OsString::from).collect() };
        // `-cf x`: the bundle's `f` takes the next word.
        assert_eq!(check("uniq", &words("uniq -cf x")), Some(1));
        assert_eq!(check("uniq", &words("uniq -cf 2 file")), None);
        assert_eq!(check("nl", &words("nl --starting=5")), None);
        assert_eq!(check("sort", &words("sort -rt, -k2")), None);
        assert_eq!(check("sort", &words("sort -rt ab")), Some(2));
        // An option GNU does not know is not this module's to answer.
        assert_eq!(check("uniq", &words("uniq --bogus -f x")), None);
        assert_eq!(check("split", &words("split -l 0")), Some(1));
        assert_eq!(check("sort", &words("sort -S x")), Some(2));
        assert_eq!(check("sort", &words("sort --buffer-size=x")), None);
        assert_eq!(check("sort", &words("sort -S 50%")), None);
        assert_eq!(check("numfmt", &words("numfmt --to=iec-i 1024")), None);
        assert_eq!(check("numfmt", &words("numfmt --to=x 1024")), Some(1));
        assert_eq!(check("numfmt", &words("numfmt --round=n 1")), None);
        assert_eq!(check("numfmt", &words("numfmt --from=a 1")), None);
        assert_eq!(check("numfmt", &words("numfmt --to= 1")), Some(1));
    }
}
