//! GNU `getopt_long`-compatible option parsing.
//!
//! Supported: combined short flags (`-rnw`), attached or separate short arguments (`-n5`,
//! `-n 5`), optional short arguments (attached only), `--long`, `--long=value`,
//! `--long value`, unique-prefix abbreviations of long options, `--` and a lone `-` operand,
//! GNU argument permutation (operands may come before options) unless the applet asks to stop
//! at the first operand (xargs, like GNU's `+` optstring) or `POSIXLY_CORRECT` is set.
//! Error texts are glibc's.

use crate::usage;

/// Whether an option takes an argument.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HasArg {
    No,
    Required,
    /// Only attached: `-iX` / `--opt=X`.
    Optional,
}

/// One option: a short letter and/or a long name, both reporting `key`.
#[derive(Debug, Clone, Copy)]
pub struct OptSpec<K> {
    pub short: Option<char>,
    pub long: Option<&'static str>,
    pub arg: HasArg,
    pub key: K,
}

/// Shorthand constructors for option tables.
pub const fn flag<K>(short: char, long: &'static str, key: K) -> OptSpec<K> {
    OptSpec {
        short: Some(short),
        long: if long.is_empty() { None } else { Some(long) },
        arg: HasArg::No,
        key,
    }
}

pub const fn with_arg<K>(short: char, long: &'static str, key: K) -> OptSpec<K> {
    OptSpec {
        short: Some(short),
        long: if long.is_empty() { None } else { Some(long) },
        arg: HasArg::Required,
        key,
    }
}

pub const fn long_flag<K>(long: &'static str, key: K) -> OptSpec<K> {
    OptSpec {
        short: None,
        long: Some(long),
        arg: HasArg::No,
        key,
    }
}

pub const fn long_arg<K>(long: &'static str, key: K) -> OptSpec<K> {
    OptSpec {
        short: None,
        long: Some(long),
        arg: HasArg::Required,
        key,
    }
}

pub const fn long_opt_arg<K>(long: &'static str, key: K) -> OptSpec<K> {
    OptSpec {
        short: None,
        long: Some(long),
        arg: HasArg::Optional,
        key,
    }
}

pub const fn short_opt_arg<K>(short: char, long: &'static str, key: K) -> OptSpec<K> {
    OptSpec {
        short: Some(short),
        long: if long.is_empty() { None } else { Some(long) },
        arg: HasArg::Optional,
        key,
    }
}

/// A parsed option occurrence.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Opt<K> {
    pub key: K,
    pub arg: Option<String>,
    /// How the user wrote it (`-n`, `--count`), for messages.
    pub spelled: String,
}

/// The result of parsing: options in order, then operands in order.
#[derive(Debug, Clone)]
pub struct Parsed<K> {
    pub opts: Vec<Opt<K>>,
    pub operands: Vec<String>,
}

/// How parsing behaves beyond the option table.
#[derive(Debug, Clone, Copy)]
pub struct Config<K> {
    /// Stop at the first operand (everything after it is an operand).
    pub stop_at_operand: bool,
    /// Digits as options, accumulated like grep's `-NUM` (reported with this key and the
    /// digits as the argument).
    pub digits: Option<K>,
}

impl<K> Default for Config<K> {
    fn default() -> Self {
        Config {
            stop_at_operand: false,
            digits: None,
        }
    }
}

/// Parses `args[1..]` (`args[0]` is the program name). On error returns glibc's message
/// (without the program prefix), e.g. `invalid option -- 'y'`.
pub fn parse<K: Copy + PartialEq>(
    args: &[String],
    specs: &[OptSpec<K>],
    config: Config<K>,
) -> Result<Parsed<K>, String> {
    match parse_in_order(args, specs, config) {
        (parsed, None) => Ok(parsed),
        (_, Some(message)) => Err(message),
    }
}

/// [`parse`] for a utility that acts on each option as `getopt_long` returns it: the options
/// before the first bad one, and that one's message. GNU's `ls --time=x --bogus` reports the
/// bad `--time` value, which it met first, and never reaches `--bogus`.
pub fn parse_in_order<K: Copy + PartialEq>(
    args: &[String],
    specs: &[OptSpec<K>],
    config: Config<K>,
) -> (Parsed<K>, Option<String>) {
    let posixly = std::env::var_os("POSIXLY_CORRECT").is_some();
    let stop_at_operand = config.stop_at_operand || posixly;
    let mut opts = Vec::new();
    let mut operands = Vec::new();
    let mut i = 1;
    while i < args.len() {
        let a = &args[i];
        i += 1;
        if a == "--" {
            operands.extend(args[i..].iter().cloned());
            break;
        }
        if let Some(body) = a.strip_prefix("--") {
            let (name, inline) = match body.split_once('=') {
                Some((n, v)) => (n, Some(v.to_string())),
                None => (body, None),
            };
            let spec = match find_long(specs, name, a) {
                Ok(spec) => spec,
                Err(message) => return (Parsed { opts, operands }, Some(message)),
            };
            let long = spec.long.unwrap_or(name);
            let arg = match spec.arg {
                HasArg::No => {
                    if inline.is_some() {
                        return (
                            Parsed { opts, operands },
                            Some(usage::long_takes_no_argument(long)),
                        );
                    }
                    None
                }
                HasArg::Optional => inline,
                HasArg::Required => match inline {
                    Some(v) => Some(v),
                    None => {
                        if i < args.len() {
                            i += 1;
                            Some(args[i - 1].clone())
                        } else {
                            return (
                                Parsed { opts, operands },
                                Some(usage::long_requires_argument(long)),
                            );
                        }
                    }
                },
            };
            opts.push(Opt {
                key: spec.key,
                arg,
                spelled: format!("--{long}"),
            });
            continue;
        }
        if a.len() > 1 && a.starts_with('-') {
            let chars: Vec<char> = a[1..].chars().collect();
            let mut j = 0;
            while j < chars.len() {
                let c = chars[j];
                j += 1;
                if c.is_ascii_digit()
                    && let Some(key) = config.digits
                {
                    let mut digits = String::from(c);
                    while j < chars.len() && chars[j].is_ascii_digit() {
                        digits.push(chars[j]);
                        j += 1;
                    }
                    opts.push(Opt {
                        key,
                        arg: Some(digits),
                        spelled: format!("-{c}"),
                    });
                    continue;
                }
                let Some(spec) = specs.iter().find(|s| s.short == Some(c)) else {
                    return (Parsed { opts, operands }, Some(usage::invalid_option(c)));
                };
                let rest: String = chars[j..].iter().collect();
                let arg = match spec.arg {
                    HasArg::No => None,
                    HasArg::Optional => {
                        j = chars.len();
                        if rest.is_empty() { None } else { Some(rest) }
                    }
                    HasArg::Required => {
                        j = chars.len();
                        if !rest.is_empty() {
                            Some(rest)
                        } else if i < args.len() {
                            i += 1;
                            Some(args[i - 1].clone())
                        } else {
                            return (Parsed { opts, operands }, Some(usage::requires_argument(c)));
                        }
                    }
                };
                opts.push(Opt {
                    key: spec.key,
                    arg,
                    spelled: format!("-{c}"),
                });
            }
            continue;
        }
        operands.push(a.clone());
        if stop_at_operand {
            operands.extend(args[i..].iter().cloned());
            break;
        }
    }
    (Parsed { opts, operands }, None)
}

fn find_long<'s, K: PartialEq>(
    specs: &'s [OptSpec<K>],
    name: &str,
    spelled: &str,
) -> Result<&'s OptSpec<K>, String> {
    if let Some(s) = specs.iter().find(|s| s.long == Some(name)) {
        return Ok(s);
    }
    let candidates: Vec<&OptSpec<K>> = specs
        .iter()
        .filter(|s| !name.is_empty() && s.long.is_some_and(|l| l.starts_with(name)))
        .collect();
    match candidates.len() {
        0 => {
            let shown = spelled.split('=').next().unwrap_or(spelled);
            Err(usage::unrecognized_option(shown))
        }
        1 => Ok(candidates[0]),
        _ => {
            // Several spellings of one option are not an ambiguity (glibc compares what the
            // candidates would report).
            let first = candidates[0];
            if candidates
                .iter()
                .all(|c| c.key == first.key && c.arg == first.arg)
            {
                return Ok(first);
            }
            // glibc names the option as typed, value included (`'--s=3' is ambiguous`).
            let typed = spelled.strip_prefix("--").unwrap_or(spelled);
            let mut msg = format!("option '--{typed}' is ambiguous; possibilities:");
            for c in candidates {
                msg.push_str(&format!(" '--{}'", c.long.unwrap_or_default()));
            }
            Err(msg)
        }
    }
}

/// Parses a non-negative decimal integer the way GNU's `xstrtoumax` callers accept it.
pub fn parse_uint(s: &str) -> Option<u64> {
    let t = s.trim_start();
    let t = t.strip_prefix('+').unwrap_or(t);
    if t.is_empty() || !t.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    t.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    enum K {
        A,
        B,
        N,
        Color,
        Count,
        Ctx,
    }

    const SPECS: &[OptSpec<K>] = &[
        flag('a', "all", K::A),
        flag('b', "", K::B),
        with_arg('n', "number", K::N),
        long_opt_arg("color", K::Color),
        flag('c', "count", K::Count),
        with_arg('C', "context", K::Ctx),
    ];

    fn args(v: &[&str]) -> Vec<String> {
        std::iter::once("prog")
            .chain(v.iter().copied())
            .map(String::from)
            .collect()
    }

    fn p(v: &[&str]) -> Result<Parsed<K>, String> {
        parse(&args(v), SPECS, Config::default())
    }

    #[test]
    fn combined_and_attached() {
        let r = p(&["-abn5", "x", "-n", "7", "--number=9", "--number", "10"]).unwrap();
        let keys: Vec<_> = r.opts.iter().map(|o| (o.key, o.arg.clone())).collect();
        assert_eq!(
            keys,
            vec![
                (K::A, None),
                (K::B, None),
                (K::N, Some("5".into())),
                (K::N, Some("7".into())),
                (K::N, Some("9".into())),
                (K::N, Some("10".into())),
            ]
        );
        assert_eq!(r.operands, vec!["x"]);
    }

    #[test]
    fn double_dash_and_dash() {
        let r = p(&["-", "--", "-a"]).unwrap();
        assert!(r.opts.is_empty());
        assert_eq!(r.operands, vec!["-", "-a"]);
    }

    #[test]
    fn abbreviations() {
        let r = p(&["--al", "--col=never", "--cou"]).unwrap();
        assert_eq!(r.opts[0].key, K::A);
        assert_eq!(r.opts[1].arg.as_deref(), Some("never"));
        assert_eq!(r.opts[2].key, K::Count);
        assert_eq!(
            p(&["--co"]).unwrap_err(),
            "option '--co' is ambiguous; possibilities: '--color' '--count' '--context'"
        );
    }

    #[test]
    fn errors_like_glibc() {
        assert_eq!(p(&["-y"]).unwrap_err(), "invalid option -- 'y'");
        assert_eq!(
            p(&["-n"]).unwrap_err(),
            "option requires an argument -- 'n'"
        );
        assert_eq!(
            p(&["--nope=1"]).unwrap_err(),
            "unrecognized option '--nope'"
        );
        assert_eq!(
            p(&["--number"]).unwrap_err(),
            "option '--number' requires an argument"
        );
        assert_eq!(
            p(&["--all=1"]).unwrap_err(),
            "option '--all' doesn't allow an argument"
        );
    }

    #[test]
    fn stop_at_operand_and_digits() {
        let cfg = Config {
            stop_at_operand: true,
            digits: Some(K::Ctx),
        };
        let r = parse(&args(&["-12", "cmd", "-a"]), SPECS, cfg).unwrap();
        assert_eq!(r.opts[0].arg.as_deref(), Some("12"));
        assert_eq!(r.operands, vec!["cmd", "-a"]);
    }
}
