//! glibc's `getopt_long` / `getopt_long_only` over the user's parameters, as util-linux's
//! getopt(1) drives it: optstring modes (`+` stop at the first non-option, `-` keep
//! non-options in place, `POSIXLY_CORRECT`), optional arguments (`c::`, `--name=`),
//! abbreviated long options, and glibc's messages. The common option parser is for fixed
//! tables and has none of the modes, hence this one.

use gnu::usage;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HasArg {
    No,
    Required,
    Optional,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LongOpt {
    pub name: String,
    pub arg: HasArg,
}

/// One result, in output order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Item {
    Short(char, HasArg, Option<String>),
    Long(String, HasArg, Option<String>),
    /// A non-option kept in place (optstring starting with `-`).
    InPlace(String),
}

pub struct Parsed {
    pub items: Vec<Item>,
    pub operands: Vec<String>,
    /// The messages of the errors met (glibc's, without the program name).
    pub errors: Vec<String>,
}

/// The short options: letter → kind.
fn short_kind(optstring: &str, c: char) -> Option<HasArg> {
    if c == ':' || c == '+' || c == '-' {
        return None;
    }
    let chars: Vec<char> = optstring.chars().collect();
    let i = chars.iter().position(|&x| x == c)?;
    Some(match (chars.get(i + 1), chars.get(i + 2)) {
        (Some(':'), Some(':')) => HasArg::Optional,
        (Some(':'), _) => HasArg::Required,
        _ => HasArg::No,
    })
}

/// `Ok(Some(i))` for a match, `Ok(None)` for none, `Err` for an ambiguity.
fn find_long(
    longs: &[LongOpt],
    name: &str,
    long_only: bool,
    dashes: &str,
) -> Result<Option<usize>, String> {
    if let Some(i) = longs.iter().position(|l| l.name == name) {
        return Ok(Some(i));
    }
    let matches: Vec<usize> = (0..longs.len())
        .filter(|&i| longs[i].name.starts_with(name))
        .collect();
    match matches.len() {
        0 => Ok(None),
        1 => Ok(Some(matches[0])),
        _ => {
            let _ = long_only;
            let mut msg = format!("option '{dashes}{name}' is ambiguous; possibilities:");
            for i in matches {
                msg.push_str(&format!(" '{dashes}{}'", longs[i].name));
            }
            Err(msg)
        }
    }
}

pub fn parse(params: &[String], optstring: &str, longs: &[LongOpt], long_only: bool) -> Parsed {
    let mut in_place = optstring.starts_with('-');
    // A `:` first (after the mode) silences glibc's messages; the errors still count.
    let quiet = optstring.trim_start_matches(['+', '-']).starts_with(':');
    let mut stop_at_operand = optstring.starts_with('+');
    if !in_place && std::env::var_os("POSIXLY_CORRECT").is_some() {
        stop_at_operand = true;
    }
    if stop_at_operand {
        in_place = false;
    }
    let mut out = Parsed {
        items: Vec::new(),
        operands: Vec::new(),
        errors: Vec::new(),
    };
    let mut i = 0;
    while i < params.len() {
        let a = &params[i];
        i += 1;
        if a == "--" {
            out.operands.extend(params[i..].iter().cloned());
            break;
        }
        if a.len() < 2 || !a.starts_with('-') {
            if in_place {
                out.items.push(Item::InPlace(a.clone()));
                continue;
            }
            out.operands.push(a.clone());
            if stop_at_operand {
                out.operands.extend(params[i..].iter().cloned());
                break;
            }
            continue;
        }
        let double = a.starts_with("--");
        // A long option: `--name`, or with -a `-name` unless it is one known short letter.
        let body = if double { &a[2..] } else { &a[1..] };
        let first = body.chars().next().unwrap_or('-');
        let try_long = double
            || (long_only && (body.chars().count() > 1 || short_kind(optstring, first).is_none()));
        if try_long {
            let dashes = if double { "--" } else { "-" };
            let (name, inline) = match body.split_once('=') {
                Some((n, v)) => (n, Some(v.to_string())),
                None => (body, None),
            };
            match find_long(longs, name, long_only, dashes) {
                Err(msg) => {
                    out.errors.push(msg);
                    continue;
                }
                Ok(Some(k)) => {
                    let l = &longs[k];
                    let arg = match l.arg {
                        HasArg::No if inline.is_some() => {
                            out.errors.push(format!(
                                "option '{dashes}{}' doesn't allow an argument",
                                l.name
                            ));
                            continue;
                        }
                        HasArg::No => None,
                        HasArg::Optional => inline,
                        HasArg::Required => match inline {
                            Some(v) => Some(v),
                            None if i < params.len() => {
                                i += 1;
                                Some(params[i - 1].clone())
                            }
                            None => {
                                out.errors.push(format!(
                                    "option '{dashes}{}' requires an argument",
                                    l.name
                                ));
                                continue;
                            }
                        },
                    };
                    out.items.push(Item::Long(l.name.clone(), l.arg, arg));
                    continue;
                }
                Ok(None) => {
                    if double || short_kind(optstring, first).is_none() {
                        out.errors.push(usage::unrecognized_option(a));
                        continue;
                    }
                }
            }
        }
        let chars: Vec<char> = body.chars().collect();
        let mut j = 0;
        while j < chars.len() {
            let c = chars[j];
            j += 1;
            let Some(kind) = short_kind(optstring, c) else {
                out.errors.push(usage::invalid_option(c));
                continue;
            };
            let rest: String = chars[j..].iter().collect();
            let arg = match kind {
                HasArg::No => None,
                HasArg::Optional => {
                    j = chars.len();
                    if rest.is_empty() { None } else { Some(rest) }
                }
                HasArg::Required => {
                    j = chars.len();
                    if !rest.is_empty() {
                        Some(rest)
                    } else if i < params.len() {
                        i += 1;
                        Some(params[i - 1].clone())
                    } else {
                        out.errors.push(usage::requires_argument(c));
                        break;
                    }
                }
            };
            out.items.push(Item::Short(c, kind, arg));
        }
    }
    if quiet {
        out.errors.iter_mut().for_each(String::clear);
    }
    out
}
