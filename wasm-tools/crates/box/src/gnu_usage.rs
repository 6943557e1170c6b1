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
//! as GNU would. Only utilities whose `uumain` hands its arguments to clap unchanged are listed,
//! so the check sees exactly what the utility would; everything else reaches `uumain` as before.

use clap::error::{ContextKind, ContextValue, ErrorKind};
use std::ffi::OsString;
use std::io::Write;

type App = fn() -> clap::Command;

const APPS: &[(&str, App)] = &[
    ("basename", uu_basename::uu_app),
    ("cat", uu_cat::uu_app),
    ("cksum", uu_cksum::uu_app),
    ("comm", uu_comm::uu_app),
    ("cp", uu_cp::uu_app),
    ("date", uu_date::uu_app),
    ("dirname", uu_dirname::uu_app),
    ("mkdir", uu_mkdir::uu_app),
    ("mv", uu_mv::uu_app),
    ("nl", uu_nl::uu_app),
    ("paste", uu_paste::uu_app),
    ("readlink", uu_readlink::uu_app),
    ("realpath", uu_realpath::uu_app),
    ("rm", uu_rm::uu_app),
    ("rmdir", uu_rmdir::uu_app),
    ("shuf", uu_shuf::uu_app),
    ("tee", uu_tee::uu_app),
    ("touch", uu_touch::uu_app),
    ("tr", uu_tr::uu_app),
    ("wc", uu_wc::uu_app),
];

/// `Some(status)` when `args` (argv[0] included) hold an option `name` does not know; the
/// GNU message is printed then.
pub fn check(name: &str, args: &[OsString]) -> Option<i32> {
    let (_, app) = APPS.iter().find(|(n, _)| *n == name)?;
    let err = app().try_get_matches_from(args.iter()).err()?;
    if err.kind() != ErrorKind::UnknownArgument {
        return None;
    }
    let Some(ContextValue::String(bad)) = err.get(ContextKind::InvalidArg) else {
        return None;
    };
    let message = gnu_message(name, bad, args)?;
    let _ = write!(
        std::io::stderr(),
        "{message}\nTry '{name} --help' for more information.\n"
    );
    Some(1)
}

/// GNU's first line for the unknown option clap reported as `bad` (`--exclude`, `-z`).
fn gnu_message(name: &str, bad: &str, args: &[OsString]) -> Option<String> {
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
        return Some(format!("{name}: unrecognized option '{typed}'"));
    }
    let letter = bad.strip_prefix('-')?.chars().next()?;
    Some(format!("{name}: invalid option -- '{letter}'"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(s: &[&str]) -> Vec<OsString> {
        s.iter().map(OsString::from).collect()
    }

    #[test]
    fn messages_quote_what_was_typed() {
        assert_eq!(
            gnu_message(
                "cp",
                "--exclude",
                &args(&["cp", "--exclude=*.txt", "a", "b"])
            )
            .unwrap(),
            "cp: unrecognized option '--exclude=*.txt'"
        );
        assert_eq!(
            gnu_message("rm", "-z", &args(&["rm", "-rz", "x"])).unwrap(),
            "rm: invalid option -- 'z'"
        );
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
    }
}
