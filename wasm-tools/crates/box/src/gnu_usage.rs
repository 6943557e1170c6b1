//! Bad options answered in GNU's words. uutils reports an unknown option in clap's:
//!
//! ```text
//! error: unexpected argument '--exclude' found
//!
//!   tip: to pass '--exclude' as a value, use '-- --exclude'
//! ...
//! ```
//!
//! where GNU coreutils print `cp: unrecognized option '--exclude=*.txt'` (or
//! `cp: invalid option -- 'z'`) and `Try 'cp --help' for more information.`, status 1. Agents
//! read these messages and the reward compares output, so before a utility runs, its command
//! line is checked against the utility's own clap definition and an unknown option is reported
//! as GNU would, with GNU's status (2 for sort). Utilities that read options clap
//! does not see (`echo`, `printf`, `test`, `expr`, `seq`'s negative numbers) are not listed, and
//! the obsolete `-NUM` forms stay with the utility that rewrites them.

use clap::error::{ContextKind, ContextValue, ErrorKind};
use gnu::usage;
use std::ffi::OsString;
use std::io::Write;

type App = fn() -> clap::Command;

/// Each utility with its clap definition and the status GNU exits with on a usage error.
const APPS: &[(&str, App, i32)] = &[
    ("b2sum", uu_b2sum::uu_app, 1),
    ("base32", uu_base32::uu_app, 1),
    ("base64", uu_base64::uu_app, 1),
    ("basename", uu_basename::uu_app, 1),
    ("basenc", uu_basenc::uu_app, 1),
    ("cat", uu_cat::uu_app, 1),
    ("cksum", uu_cksum::uu_app, 1),
    ("cp", uu_cp::uu_app, 1),
    ("csplit", uu_csplit::uu_app, 1),
    ("cut", uu_cut::uu_app, 1),
    ("date", uu_date::uu_app, 1),
    ("dircolors", uu_dircolors::uu_app, 1),
    ("dirname", uu_dirname::uu_app, 1),
    ("expand", uu_expand::uu_app, 1),
    ("factor", uu_factor::uu_app, 1),
    ("fold", uu_fold::uu_app, 1),
    ("head", uu_head::uu_app, 1),
    ("join", uu_join::uu_app, 1),
    ("link", uu_link::uu_app, 1),
    ("md5sum", uu_md5sum::uu_app, 1),
    ("mv", uu_mv::uu_app, 1),
    ("nl", uu_nl::uu_app, 1),
    ("numfmt", uu_numfmt::uu_app, 1),
    ("paste", uu_paste::uu_app, 1),
    ("pr", uu_pr::uu_app, 1),
    ("ptx", uu_ptx::uu_app, 1),
    ("pwd", uu_pwd::uu_app, 1),
    ("readlink", uu_readlink::uu_app, 1),
    ("realpath", uu_realpath::uu_app, 1),
    ("rm", uu_rm::uu_app, 1),
    ("rmdir", uu_rmdir::uu_app, 1),
    ("sha1sum", uu_sha1sum::uu_app, 1),
    ("sha224sum", uu_sha224sum::uu_app, 1),
    ("sha256sum", uu_sha256sum::uu_app, 1),
    ("sha384sum", uu_sha384sum::uu_app, 1),
    ("sha512sum", uu_sha512sum::uu_app, 1),
    ("shred", uu_shred::uu_app, 1),
    ("shuf", uu_shuf::uu_app, 1),
    ("sort", uu_sort::uu_app, 2),
    ("split", uu_split::uu_app, 1),
    ("sum", uu_sum::uu_app, 1),
    ("tail", uu_tail::uu_app, 1),
    ("tee", uu_tee::uu_app, 1),
    ("touch", uu_touch::uu_app, 1),
    ("tr", uu_tr::uu_app, 1),
    ("truncate", uu_truncate::uu_app, 1),
    ("tsort", uu_tsort::uu_app, 1),
    ("unexpand", uu_unexpand::uu_app, 1),
    ("uniq", uu_uniq::uu_app, 1),
    ("unlink", uu_unlink::uu_app, 1),
    ("wc", uu_wc::uu_app, 1),
    ("yes", uu_yes::uu_app, 1),
];

/// `Some(status)` when `args` (argv[0] included) hold an option `name` does not know, or end
/// with an option that lacks its value; GNU's message is printed then.
pub fn check(name: &str, args: &[OsString]) -> Option<i32> {
    if name == "sort" {
        let files = sort_file_operands(args);
        if files.iter().any(|f| f.is_empty()) {
            // An unquoted, unset variable's `"$files"`: uutils fails reading it through WASI.
            let _ = writeln!(
                std::io::stderr(),
                "sort: cannot read: '': No such file or directory"
            );
            return Some(2);
        }
        // GNU reads its inputs in order and stops at a directory (reading one fails); through
        // WASI uutils only gets "Bad file descriptor". A missing file before it is uutils' to
        // report, in the same words as GNU.
        let first_unreadable = files
            .iter()
            .find(|f| f.as_os_str() != "-" && std::fs::metadata(f).map_or(true, |m| m.is_dir()));
        if let Some(dir) = first_unreadable
            && std::fs::metadata(dir).is_ok()
        {
            let _ = writeln!(
                std::io::stderr(),
                "sort: read failed: {}: Is a directory",
                dir.to_string_lossy()
            );
            return Some(2);
        }
    }
    const CHECKSUMS: &[&str] = &[
        "md5sum",
        "sha1sum",
        "sha224sum",
        "sha256sum",
        "sha384sum",
        "sha512sum",
        "b2sum",
    ];
    if CHECKSUMS.contains(&name)
        && let Some(message) = checksum_options_refused(args)
    {
        // uutils says the first line (or nothing) but not the second.
        let _ = std::io::stderr().write_all(usage::report(name, message).as_bytes());
        return Some(1);
    }
    if name == "tr"
        && let Some(message) = tr_extra_operand(args)
    {
        let text = format!("{message}{}\n", usage::try_help("tr"));
        let _ = std::io::stderr().write_all(text.as_bytes());
        return Some(1);
    }
    let during_options = match name {
        "cut" => cut_option_refused(args),
        "seq" => seq_extra_operand(args),
        _ => None,
    };
    if let Some(message) = during_options {
        refuse(name, &message);
        return Some(1);
    }
    let (_, app, status) = APPS.iter().find(|(n, _, _)| *n == name)?;
    let parsed = app().try_get_matches_from(args.iter());
    if let Ok(matches) = &parsed
        && let Some(message) = operands_refused(name, matches, args)
    {
        refuse(name, &message);
        return Some(*status);
    }
    let err = parsed.err()?;
    // Options are checked before operands, as getopt reads them all first.
    let extra =
        || extra_operand(name, args).map(|w| format!("{name}: {}", usage::extra_operand(&w)));
    if let Some(status) = empty_operand(name, &err, args) {
        return Some(status);
    }
    // getopt reads every option before any operand counts, so an unknown option anywhere
    // is the error, even where clap first met one operand too many (`unlink a b -s`, which
    // clap reports as the unexpected argument `b`).
    if let Some(message) = first_unknown_option(name, *app, args) {
        refuse(name, &message);
        return Some(*status);
    }
    let message = match err.kind() {
        ErrorKind::MissingRequiredArgument | ErrorKind::TooFewValues => missing_operand(name, args),
        ErrorKind::UnknownArgument => {
            let Some(ContextValue::String(bad)) = err.get(ContextKind::InvalidArg) else {
                return None;
            };
            unknown_option(name, bad, args).or_else(extra)?
        }
        ErrorKind::InvalidValue => missing_value(name, &err, args)?,
        _ => extra()?,
    };
    refuse(name, &message);
    Some(*status)
}

/// A usage error line (`NAME: …`) and GNU's pointer to `--help`, on standard error in one
/// write, so that processes refused side by side (`find -exec … \; | …`) keep their lines whole.
fn refuse(name: &str, line: &str) {
    let text = format!("{line}\n{}\n", usage::try_help(name));
    let _ = std::io::stderr().write_all(text.as_bytes());
}

/// `tr` with more strings than its mode takes: one when deleting without squeezing, else two.
/// uutils words this as GNU does but quotes the operand without escaping its backslashes
/// (GNU: `extra operand '\\n'`).
fn tr_extra_operand(args: &[OsString]) -> Option<String> {
    let (mut delete, mut squeeze, mut options_end) = (false, false, false);
    let mut operands = Vec::new();
    for arg in args.iter().skip(1).map(|a| a.to_string_lossy()) {
        if options_end || arg == "-" || !arg.starts_with('-') {
            operands.push(arg.into_owned());
            continue;
        }
        match arg.as_ref() {
            "--" => options_end = true,
            "--delete" => delete = true,
            "--squeeze-repeats" => squeeze = true,
            long if long.starts_with("--") => {}
            bundle => {
                delete |= bundle.contains('d');
                squeeze |= bundle.contains('s');
            }
        }
    }
    let max = if delete && !squeeze { 1 } else { 2 };
    let extra = operands.get(max)?;
    let mut message = format!("tr: {}\n", usage::extra_operand(extra));
    if delete && !squeeze && operands.len() == 2 {
        message.push_str("Only one string may be given when deleting without squeezing repeats.\n");
    }
    Some(message)
}

/// `md5sum -b -c`, `sha256sum -w` and friends: options that only go with `--check`, or never
/// with it, which GNU's checksum utilities refuse before reading anything, in GNU's order of
/// checks (their short options take no values).
fn checksum_options_refused(args: &[OsString]) -> Option<&'static str> {
    let mut given = std::collections::HashSet::new();
    for arg in args.iter().skip(1).map(|a| a.to_string_lossy()) {
        match arg.as_ref() {
            "--" => break,
            long if long.starts_with("--") => {
                given.insert(long.trim_start_matches('-').to_string());
            }
            short if short.starts_with('-') && short.len() > 1 => {
                for c in short[1..].chars() {
                    let name = match c {
                        'c' => "check",
                        'b' => "binary",
                        't' => "text",
                        'w' => "warn",
                        'z' => "zero",
                        _ => continue,
                    };
                    given.insert(name.to_string());
                }
            }
            _ => {}
        }
    }
    let has = |name: &str| given.contains(name);
    let check = has("check");
    if check {
        if has("tag") {
            return Some("the --tag option is meaningless when verifying checksums");
        }
        if has("zero") {
            return Some("the --zero option is not supported when verifying checksums");
        }
        if has("binary") || has("text") {
            return Some(
                "the --binary and --text options are meaningless when verifying checksums",
            );
        }
        return None;
    }
    [
        (
            "ignore-missing",
            "the --ignore-missing option is meaningful only when verifying checksums",
        ),
        (
            "status",
            "the --status option is meaningful only when verifying checksums",
        ),
        (
            "warn",
            "the --warn option is meaningful only when verifying checksums",
        ),
        (
            "quiet",
            "the --quiet option is meaningful only when verifying checksums",
        ),
        (
            "strict",
            "the --strict option is meaningful only when verifying checksums",
        ),
    ]
    .into_iter()
    .find(|(option, _)| has(option))
    .map(|(_, message)| message)
}

/// `cut` given a second list (`-b1 -c1`, even `-f1 -f2`) or a delimiter of more than one byte
/// (`-d -f1` takes `-f1` as the delimiter): GNU refuses these as getopt reaches them, so an
/// unknown option before them is reported instead (left to the checks that follow).
fn cut_option_refused(args: &[OsString]) -> Option<String> {
    const REFUSED: &str = "cut: only one type of list may be specified";
    const DELIMITER: &str = "cut: the delimiter must be a single character";
    let mut lists = 0;
    let mut words = args.iter().skip(1).map(|a| a.to_string_lossy());
    while let Some(word) = words.next() {
        if word == "--" {
            return None;
        }
        if let Some(long) = word.strip_prefix("--") {
            let (name, inline) = long
                .split_once('=')
                .map_or((long, false), |(n, _)| (n, true));
            let known = [
                "bytes",
                "characters",
                "fields",
                "delimiter",
                "complement",
                "only-delimited",
                "output-delimiter",
                "zero-terminated",
            ];
            let [found] = known
                .iter()
                .filter(|k| !name.is_empty() && k.starts_with(name))
                .collect::<Vec<_>>()[..]
            else {
                return None;
            };
            if ["bytes", "characters", "fields"].contains(found) {
                lists += 1;
                if lists > 1 {
                    return Some(REFUSED.to_string());
                }
            }
            let takes_value = [
                "bytes",
                "characters",
                "fields",
                "delimiter",
                "output-delimiter",
            ];
            let value = if inline {
                long.split_once('=').map(|(_, v)| v.to_string())
            } else if takes_value.contains(found) {
                words.next().map(|v| v.into_owned())
            } else {
                None
            };
            if *found == "delimiter" && value.is_some_and(|v| v.len() > 1) {
                return Some(DELIMITER.to_string());
            }
            continue;
        }
        if !word.starts_with('-') || word == "-" {
            continue;
        }
        for (at, c) in word.char_indices().skip(1) {
            match c {
                'b' | 'c' | 'f' | 'd' => {
                    if c != 'd' {
                        lists += 1;
                        if lists > 1 {
                            return Some(REFUSED.to_string());
                        }
                    }
                    let value = if at + 1 == word.len() {
                        words.next().map(|v| v.into_owned())
                    } else {
                        Some(word[at + 1..].to_string())
                    };
                    if c == 'd' && value.is_some_and(|v| v.len() > 1) {
                        return Some(DELIMITER.to_string());
                    }
                    break;
                }
                'n' | 's' | 'z' => {}
                _ => return None,
            }
        }
    }
    None
}

/// `seq` with more than three numbers: GNU names the fourth. A word that starts with `-` and a
/// digit or a dot is a (negative) number, as GNU's seq reads it.
fn seq_extra_operand(args: &[OsString]) -> Option<String> {
    let mut operands = Vec::new();
    let mut words = args.iter().skip(1).map(|a| a.to_string_lossy());
    let mut options_done = false;
    while let Some(word) = words.next() {
        let negative_number = word
            .strip_prefix('-')
            .is_some_and(|rest| rest.starts_with(|c: char| c.is_ascii_digit() || c == '.'));
        if options_done || negative_number || word == "-" || !word.starts_with('-') {
            operands.push(word.into_owned());
        } else if word == "--" {
            options_done = true;
        } else if matches!(word.as_ref(), "-f" | "-s" | "--format" | "--separator") {
            words.next();
        }
    }
    let extra = operands.get(3)?;
    Some(format!("seq: {}", usage::extra_operand(extra)))
}

/// GNU's refusal of a command line clap accepts: `cp FILE` or `mv FILE` alone (uutils says
/// the first line of GNU's message but not the second, or clap's words), `truncate FILE`
/// without a size.
fn operands_refused(name: &str, matches: &clap::ArgMatches, args: &[OsString]) -> Option<String> {
    match name {
        "cp" | "mv" => {
            let id = if name == "cp" { "paths" } else { "files" };
            let paths: Vec<_> = matches.get_raw(id)?.collect();
            let [only] = paths.as_slice() else {
                return None;
            };
            if matches.get_raw("target-directory").is_some() {
                return None;
            }
            // coreutils names the file with `quoteaf` (shell quoting), not `quote`.
            Some(format!(
                "{name}: missing destination file operand after {}",
                gnu::quote::shell_always(&only.to_string_lossy())
            ))
        }
        "truncate" if !truncate_has_size(args) => Some(TRUNCATE_NEEDS_SIZE.to_string()),
        _ => None,
    }
}

/// GNU truncate's first check, before it counts its operands.
const TRUNCATE_NEEDS_SIZE: &str = "truncate: you must specify either '--size' or '--reference'";

/// Whether a `truncate` command line gives `-s`/`--size` or `-r`/`--reference` (the only
/// short options that take a value, so a bundle's letters up to one of them are flags).
fn truncate_has_size(args: &[OsString]) -> bool {
    for arg in args.iter().skip(1).map(|a| a.to_string_lossy()) {
        if arg == "--" {
            break;
        }
        if let Some(long) = arg.strip_prefix("--") {
            let name = long.split_once('=').map_or(long, |(n, _)| n);
            if !name.is_empty() && ("size".starts_with(name) || "reference".starts_with(name)) {
                return true;
            }
        } else if arg.len() > 1 && arg.starts_with('-') && arg[1..].contains(['s', 'r']) {
            return true;
        }
    }
    false
}

/// GNU's line for a command line without the operands the utility needs (`readlink`,
/// `cp a`).
fn missing_operand(name: &str, args: &[OsString]) -> String {
    let operands: Vec<String> = args
        .iter()
        .skip(1)
        .map(|a| a.to_string_lossy().into_owned())
        .filter(|a| a == "-" || !a.starts_with('-'))
        .collect();
    if name == "truncate" && !truncate_has_size(args) {
        return TRUNCATE_NEEDS_SIZE.to_string();
    }
    let target_given = args.iter().skip(1).any(|a| {
        let a = a.to_string_lossy();
        a.starts_with("--target-directory")
            || (a.starts_with('-') && !a.starts_with("--") && a.contains('t'))
    });
    match (name, operands.as_slice()) {
        ("cp" | "mv", _) if target_given => format!("{name}: missing file operand"),
        ("csplit", [.., last]) => format!("{name}: {}", usage::missing_operand_after(last)),
        ("cp" | "mv", [only]) => format!(
            "{name}: missing destination file operand after {}",
            gnu::quote::shell_always(only)
        ),
        ("cp" | "mv" | "touch" | "shred" | "truncate", _) => {
            format!("{name}: missing file operand")
        }
        // join names the one file it was given (`join a`); its options' values do not count.
        ("join", _) => match operands_of(name, args).as_deref() {
            Some([only]) => format!("{name}: {}", usage::missing_operand_after(only)),
            _ => format!("{name}: missing operand"),
        },
        _ => format!("{name}: missing operand"),
    }
}

/// An empty operand, which clap refuses as an invalid value where GNU tries the empty name:
/// `realpath ''` says the file does not exist.
fn empty_operand(name: &str, err: &clap::Error, args: &[OsString]) -> Option<i32> {
    let refused = matches!(
        err.kind(),
        ErrorKind::InvalidValue | ErrorKind::ValueValidation
    );
    // An option typed last without its value is `missing_value`'s.
    if !refused
        || !args.iter().skip(1).any(|a| a.is_empty())
        || args.last()?.to_string_lossy().starts_with('-')
    {
        return None;
    }
    match name {
        "realpath" => {
            let _ = writeln!(std::io::stderr(), "realpath: '': No such file or directory");
            Some(1)
        }
        _ => None,
    }
}

/// `sort`'s file operands (not the values of its options), in order.
fn sort_file_operands(args: &[OsString]) -> Vec<&OsString> {
    const WITH_VALUE: &[&str] = &[
        "-k",
        "-t",
        "-o",
        "-S",
        "-T",
        "--key",
        "--field-separator",
        "--output",
        "--buffer-size",
        "--temporary-directory",
    ];
    let mut only_operands = false;
    let mut files = Vec::new();
    for (i, a) in args.iter().enumerate().skip(1) {
        let previous = args[i - 1].to_string_lossy();
        let text = a.to_string_lossy();
        if !only_operands && text == "--" {
            only_operands = true;
            continue;
        }
        let is_value = !only_operands && WITH_VALUE.contains(&previous.as_ref());
        let is_option = !only_operands && text.starts_with('-') && text != "-";
        if !is_value && !is_option {
            files.push(a);
        }
    }
    files
}

/// Utilities with a fixed number of operands, and their short options that take a value in
/// the next word. GNU names the first operand past the limit; clap names another.
const OPERAND_LIMITS: &[(&str, usize, &str)] = &[
    ("uniq", 2, "fsw"),
    ("join", 2, "aejotv12"),
    ("link", 2, ""),
    ("unlink", 1, ""),
];

/// The first operand beyond `name`'s limit, if the command line has one.
fn extra_operand(name: &str, args: &[OsString]) -> Option<String> {
    let (_, limit, _) = OPERAND_LIMITS.iter().find(|(n, _, _)| *n == name)?;
    operands_of(name, args)?.get(*limit).cloned()
}

/// The operands of a utility of [`OPERAND_LIMITS`], its options' values left out.
fn operands_of(name: &str, args: &[OsString]) -> Option<Vec<String>> {
    let (_, _, with_value) = OPERAND_LIMITS.iter().find(|(n, _, _)| *n == name)?;
    let mut operands = Vec::new();
    let mut words = args.iter().skip(1).map(|a| a.to_string_lossy());
    let mut options_done = false;
    while let Some(w) = words.next() {
        if options_done || w == "-" || !w.starts_with('-') {
            operands.push(w.into_owned());
        } else if w == "--" {
            options_done = true;
        } else if !w.starts_with("--") {
            // `-f 1` takes the next word; `-f1` and `-df1` hold their value.
            let letters: Vec<char> = w.chars().skip(1).collect();
            if let Some(at) = letters.iter().position(|c| with_value.contains(*c))
                && at + 1 == letters.len()
            {
                words.next();
            }
        }
    }
    Some(operands)
}

/// GNU's line for the first argument that, on its own, is an option `name` does not know.
fn first_unknown_option(name: &str, app: App, args: &[OsString]) -> Option<String> {
    for arg in args.iter().skip(1) {
        let text = arg.to_string_lossy();
        if text == "--" {
            return None;
        }
        if !text.starts_with('-') || text == "-" {
            continue;
        }
        let alone = [OsString::from(name), arg.clone()];
        if let Err(e) = app().try_get_matches_from(alone.iter())
            && e.kind() == ErrorKind::UnknownArgument
            && let Some(ContextValue::String(bad)) = e.get(ContextKind::InvalidArg)
        {
            return unknown_option(name, bad, args);
        }
    }
    None
}

/// GNU's first line for the unknown option clap reported as `bad` (`--exclude`, `-z`).
fn unknown_option(name: &str, bad: &str, args: &[OsString]) -> Option<String> {
    if let Some(long) = bad.strip_prefix("--") {
        // GNU quotes the argument as typed, `=VALUE` included.
        let typed = args
            .iter()
            .skip(1)
            .map(|a| a.to_string_lossy())
            .find(|a| {
                a.strip_prefix("--")
                    .is_some_and(|rest| rest == long || rest.starts_with(&format!("{long}=")))
            })
            .map_or_else(|| bad.to_string(), |a| a.into_owned());
        return Some(format!("{name}: {}", usage::unrecognized_option(typed)));
    }
    let letter = bad.strip_prefix('-')?.chars().next()?;
    // `-5`, `-5f`: the obsolete count forms (head, tail, uniq, fold, split, sort's `-POS`…)
    // that each utility rewrites before clap sees them; the utility itself decides. Elsewhere
    // a digit is an option like any other (`rmdir -p0`).
    const COUNT_FORMS: &[&str] = &[
        "head", "tail", "uniq", "fold", "split", "sort", "pr", "expand", "unexpand",
    ];
    // sort's `-POS2` is one only after a `+POS1`; alone (`sort -0`, `sort -z0`) GNU refuses it.
    let obsolete_key = || {
        args.iter().any(|a| {
            a.to_string_lossy()
                .strip_prefix('+')
                .is_some_and(|p| p.starts_with(|c: char| c.is_ascii_digit()))
        })
    };
    if letter.is_ascii_digit() && COUNT_FORMS.contains(&name) && (name != "sort" || obsolete_key())
    {
        return None;
    }
    Some(format!("{name}: {}", usage::invalid_option(letter)))
}

/// GNU's line for an option typed last without its value (`cut -d`, `sort --key`). clap calls
/// this an invalid (empty) value; anything else it calls so is left to the utility.
fn missing_value(name: &str, err: &clap::Error, args: &[OsString]) -> Option<String> {
    match err.get(ContextKind::InvalidValue) {
        Some(ContextValue::String(v)) if v.is_empty() => {}
        _ => return None,
    }
    let last = args.get(1..)?.last()?.to_string_lossy();
    if let Some(long) = last.strip_prefix("--") {
        // getopt names the option in full even when an abbreviation was typed.
        let Some(ContextValue::String(spec)) = err.get(ContextKind::InvalidArg) else {
            return None;
        };
        let full = spec
            .split([' ', '='])
            .find(|w| w.starts_with("--"))
            .unwrap_or(&last);
        let full = if full.starts_with(&format!("--{long}")) {
            full.to_string()
        } else {
            format!("--{long}")
        };
        return Some(format!(
            "{name}: {}",
            usage::long_requires_argument(full.trim_start_matches("--"))
        ));
    }
    let letter = last.strip_prefix('-')?.chars().last()?;
    Some(format!("{name}: {}", usage::requires_argument(letter)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(s: &[&str]) -> Vec<OsString> {
        s.iter().map(OsString::from).collect()
    }

    #[test]
    fn refusals_getopt_meets_while_reading_options() {
        let cut = |s: &[&str]| cut_option_refused(&args(s));
        assert_eq!(
            cut(&["cut", "-f1", "-f", "2", "x"]).as_deref(),
            Some("cut: only one type of list may be specified")
        );
        assert_eq!(
            cut(&["cut", "-sf1", "--ch=2"]).as_deref(),
            Some("cut: only one type of list may be specified")
        );
        assert_eq!(
            cut(&["cut", "-d", "-f1", "x"]).as_deref(),
            Some("cut: the delimiter must be a single character")
        );
        // An unknown option first is getopt's error, not this one; one list and a one-byte
        // delimiter are fine.
        assert_eq!(cut(&["cut", "-x", "-b1", "-c1"]), None);
        assert_eq!(cut(&["cut", "-d,", "-f", "1", "-d", ":"]), None);
        let seq = |s: &[&str]| seq_extra_operand(&args(s));
        assert_eq!(
            seq(&["seq", "-s", ",", "1", "2", "3", "-4"]).as_deref(),
            Some("seq: extra operand '-4'")
        );
        assert_eq!(seq(&["seq", "-w", "-1", "-2", "-5"]), None);
        assert!(truncate_has_size(&args(&["truncate", "-cs", "0", "f"])));
        assert!(truncate_has_size(&args(&["truncate", "--ref=g", "f"])));
        assert!(!truncate_has_size(&args(&[
            "truncate", "-c", "f", "--", "-s"
        ])));
    }

    #[test]
    fn messages_quote_what_was_typed() {
        assert_eq!(
            unknown_option(
                "cp",
                "--exclude",
                &args(&["cp", "--exclude=*.txt", "a", "b"])
            )
            .unwrap(),
            "cp: unrecognized option '--exclude=*.txt'"
        );
        assert_eq!(
            unknown_option("rm", "-z", &args(&["rm", "-rz", "x"])).unwrap(),
            "rm: invalid option -- 'z'"
        );
    }

    // GNU uniq (coreutils 9.1, C locale) on these command lines.
    #[test]
    fn the_first_operand_past_the_limit_is_named() {
        let a = args(&["uniq", "-d", "x", "This", "command", "will", "list"]);
        assert_eq!(extra_operand("uniq", &a).as_deref(), Some("command"));
        let a = args(&["uniq", "-f", "1", "a", "b", "c"]);
        assert_eq!(extra_operand("uniq", &a).as_deref(), Some("c"));
        let a = args(&["uniq", "-f1", "-w", "2", "a", "b", "c"]);
        assert_eq!(extra_operand("uniq", &a).as_deref(), Some("c"));
        assert_eq!(extra_operand("uniq", &args(&["uniq", "a", "b"])), None);
        assert_eq!(gnu::quote::locale("it's"), "'it\\'s'");
        assert_eq!(check("uniq", &args(&["uniq", "a", "b", "c"])), Some(1));
    }

    #[test]
    fn unknown_options_are_found_and_known_ones_pass() {
        assert_eq!(
            check("cp", &args(&["cp", "--exclude=x", "a", "b"])),
            Some(1)
        );
        assert_eq!(check("rm", &args(&["rm", "-o", "x"])), Some(1));
        assert_eq!(check("wc", &args(&["wc", "-l", "f"])), None);
        assert_eq!(check("cp", &args(&["cp", "-a", "--", "-x", "y"])), None);
        assert_eq!(check("ls", &args(&["ls", "--nope"])), None);
        assert_eq!(check("sort", &args(&["sort", "--bogus"])), Some(2));
        // A digit is sort's obsolete `-POS2` only after a `+POS1`.
        assert_eq!(check("sort", &args(&["sort", "-z0", "f"])), Some(2));
        assert_eq!(check("sort", &args(&["sort", "-0"])), Some(2));
        assert_eq!(check("sort", &args(&["sort", "+1", "-2", "f"])), None);
        assert_eq!(check("rmdir", &args(&["rmdir", "-p0", "d"])), Some(1));
        assert_eq!(
            first_unknown_option(
                "unlink",
                uu_unlink::uu_app,
                &args(&["unlink", "/root/foobar", "ln", "-s", "x"])
            )
            .as_deref(),
            Some("unlink: invalid option -- 's'")
        );
        assert_eq!(
            tr_extra_operand(&args(&["tr", "-d", " ", "\\n"])).as_deref(),
            Some(
                "tr: extra operand '\\\\n'\n\
                 Only one string may be given when deleting without squeezing repeats.\n"
            )
        );
        assert_eq!(tr_extra_operand(&args(&["tr", "-ds", "a", "b"])), None);
        assert_eq!(
            tr_extra_operand(&args(&["tr", "a", "b", "c"])).as_deref(),
            Some("tr: extra operand 'c'\n")
        );
    }

    // GNU coreutils 8.32 (Ubuntu 22.04) on these command lines.
    #[test]
    fn missing_and_empty_operands_are_answered_as_gnu() {
        assert_eq!(check("readlink", &args(&["readlink"])), Some(1));
        assert_eq!(
            missing_operand("readlink", &args(&["readlink", "-f"])),
            "readlink: missing operand"
        );
        assert_eq!(
            missing_operand("cp", &args(&["cp", "-r", "a"])),
            "cp: missing destination file operand after 'a'"
        );
        // The file is quoted for the shell (`quoteaf`), an operand with gnulib's `quote`: GNU
        // coreutils with LC_ALL=C said so for `mv "a'b"` and `join -t , "a'b"`.
        assert_eq!(
            missing_operand("mv", &args(&["mv", "a'b"])),
            "mv: missing destination file operand after \"a'b\""
        );
        assert_eq!(
            missing_operand("join", &args(&["join", "-t", ",", "a'b"])),
            "join: missing operand after 'a\\'b'"
        );
        assert_eq!(
            missing_operand("join", &args(&["join", "-t", ",", "a"])),
            "join: missing operand after 'a'"
        );
        assert_eq!(
            missing_operand("join", &args(&["join", "-1", "2"])),
            "join: missing operand"
        );
        assert_eq!(
            missing_operand("cp", &args(&["cp"])),
            "cp: missing file operand"
        );
        assert_eq!(check("realpath", &args(&["realpath", ""])), Some(1));
    }

    #[test]
    fn sort_operands_are_told_from_option_values() {
        let files = |a: &[&str]| -> Vec<String> {
            sort_file_operands(&args(a))
                .iter()
                .map(|f| f.to_string_lossy().into_owned())
                .collect()
        };
        assert_eq!(files(&["sort", "-u", ""]), [""]);
        assert_eq!(files(&["sort", "-t", "", "f"]), ["f"]);
        assert_eq!(
            files(&["sort", "-k", "2", "-o", "out", "a", "-", "b"]),
            ["a", "-", "b"]
        );
        assert_eq!(files(&["sort", "-r", "--", "-k", "c"]), ["-k", "c"]);
        assert_eq!(check("sort", &args(&["sort", "-u", ""])), Some(2));
    }

    // Expected messages: GNU coreutils 8.32 (upstream's image), which checks in this order.
    #[test]
    fn checksum_options_that_need_or_refuse_check_are_refused() {
        let refused = |a: &[&str]| checksum_options_refused(&args(a));
        let mode = "the --binary and --text options are meaningless when verifying checksums";
        assert_eq!(refused(&["md5sum", "-b", "-c", "-"]), Some(mode));
        assert_eq!(refused(&["sha256sum", "-bc", "sums"]), Some(mode));
        assert_eq!(refused(&["md5sum", "--check", "--text", "x"]), Some(mode));
        assert_eq!(
            refused(&["sha256sum", "-w", "f"]),
            Some("the --warn option is meaningful only when verifying checksums")
        );
        assert_eq!(
            refused(&["md5sum", "-w", "--status", "f"]),
            Some("the --status option is meaningful only when verifying checksums")
        );
        assert_eq!(
            refused(&[
                "md5sum",
                "--strict",
                "--warn",
                "--quiet",
                "--status",
                "--ignore-missing"
            ]),
            Some("the --ignore-missing option is meaningful only when verifying checksums")
        );
        assert_eq!(
            refused(&["md5sum", "--tag", "-b", "-c", "f"]),
            Some("the --tag option is meaningless when verifying checksums")
        );
        assert_eq!(
            refused(&["md5sum", "-b", "-z", "-c", "f"]),
            Some("the --zero option is not supported when verifying checksums")
        );
        assert_eq!(refused(&["md5sum", "-c", "sums"]), None);
        assert_eq!(refused(&["md5sum", "-cw", "--status", "sums"]), None);
        assert_eq!(refused(&["md5sum", "-b", "--tag", "file"]), None);
        assert_eq!(refused(&["md5sum", "-c", "--", "-b"]), None);
    }

    #[test]
    fn obsolete_count_forms_are_left_to_the_utility() {
        for line in [
            &["head", "-5", "f"][..],
            &["tail", "-5f", "f"],
            &["tail", "+3", "f"],
            &["uniq", "-2", "f"],
            &["fold", "-20", "f"],
            &["sort", "-k1,1", "-t", ",", "f"],
        ] {
            assert_eq!(check(line[0], &args(line)), None, "{line:?}");
        }
    }

    #[test]
    fn an_option_typed_last_without_its_value_is_reported() {
        assert_eq!(check("cut", &args(&["cut", "-f1", "-d"])), Some(1));
        assert_eq!(check("sort", &args(&["sort", "-t"])), Some(2));
        let err = uu_cut::uu_app()
            .try_get_matches_from(["cut", "--delimiter"])
            .unwrap_err();
        assert_eq!(
            missing_value("cut", &err, &args(&["cut", "--delimiter"])).as_deref(),
            Some("cut: option '--delimiter' requires an argument")
        );
        let err = uu_cut::uu_app()
            .try_get_matches_from(["cut", "-d"])
            .unwrap_err();
        assert_eq!(
            missing_value("cut", &err, &args(&["cut", "-d"])).as_deref(),
            Some("cut: option requires an argument -- 'd'")
        );
    }
}
