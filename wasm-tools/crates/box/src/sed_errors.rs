//! `sed` with GNU's words for a script that does not compile.
//!
//! The sed crate reports a bad script as `<script argument 1>:1:8: error: invalid substitute
//! flag: 'q'`; GNU sed 4.8, which upstream ran, says `-e expression #1, char 7: unknown option
//! to `s'`. Agents read that line to fix their command and the reward compares it, so the
//! script is compiled once beforehand with the crate's own compiler; when that fails with a
//! message GNU words differently, GNU's line is printed and sed is not run. Everything else
//! (a script that compiles, options the crate's parser refuses, a script read from standard
//! input) goes to the crate unchanged.

use sed::sed::command::{CharacterMode, ProcessingContext};
use sed::sed::compiler::compile;
use sed::sed::script_line_provider::ScriptValue;
use std::ffi::OsString;
use std::io::Write;

pub fn main(args: Vec<OsString>) -> i32 {
    if let Some(status) = refuse_bad_script(&args) {
        return status;
    }
    match missing_inputs(&args) {
        Some(Inputs::Done(status)) => status,
        Some(Inputs::Without(rest)) => sed::sed::uumain(rest.into_iter()).max(CANT_READ),
        None => sed::sed::uumain(args.into_iter()),
    }
}

/// GNU's exit status when an input file could not be read, and for `-i` without files.
const CANT_READ: i32 = 2;
const NO_INPUT_FILES: i32 = 4;

enum Inputs {
    /// Nothing left to run: sed's status.
    Done(i32),
    /// The arguments without the input files that do not exist, already reported.
    Without(Vec<OsString>),
}

/// Input files that do not exist. GNU sed says `can't read FILE: No such file or directory`
/// and goes on with the next file (status 2); the crate stops at the first. Handled here when
/// the missing files come before every readable one, so the messages still come first; `-i`
/// with no file at all is GNU's `no input files`.
fn missing_inputs(args: &[OsString]) -> Option<Inputs> {
    let matches = sed::sed::uu_app().try_get_matches_from(args).ok()?;
    let scripts_given = matches.contains_id("expression") || matches.contains_id("script-file");
    let mut operands: Vec<(usize, std::path::PathBuf)> = Vec::new();
    if scripts_given
        && let (Some(i), Some(v)) = (
            matches.index_of("script"),
            matches.get_one::<String>("script"),
        )
    {
        operands.push((i, v.into()));
    }
    if let (Some(indices), Some(values)) = (
        matches.indices_of("file"),
        matches.get_many::<std::path::PathBuf>("file"),
    ) {
        operands.extend(indices.zip(values.cloned()));
    }
    operands.sort_by_key(|(i, _)| *i);
    let in_place = matches.value_source("in-place") == Some(clap::parser::ValueSource::CommandLine);
    if operands.is_empty() {
        if in_place {
            let _ = writeln!(std::io::stderr(), "sed: no input files");
            return Some(Inputs::Done(NO_INPUT_FILES));
        }
        return None;
    }
    let exists = |p: &std::path::Path| p == "-" || std::fs::symlink_metadata(p).is_ok();
    let leading_missing = operands.iter().take_while(|(_, p)| !exists(p)).count();
    if leading_missing == 0 || operands[leading_missing..].iter().any(|(_, p)| !exists(p)) {
        return None;
    }
    for (_, path) in &operands[..leading_missing] {
        let _ = writeln!(
            std::io::stderr(),
            "sed: can't read {}: No such file or directory",
            path.display()
        );
    }
    if leading_missing == operands.len() {
        return Some(Inputs::Done(CANT_READ));
    }
    // clap's indices are not argv's (an option's value shares its option's index), so the
    // operands are found in argv again: they come in the same order.
    let mut positions = operand_positions(args);
    if !scripts_given && !positions.is_empty() {
        // The first operand is the script.
        positions.remove(0);
    }
    if positions.len() != operands.len() {
        return None;
    }
    let dropped = &positions[..leading_missing];
    Some(Inputs::Without(
        args.iter()
            .enumerate()
            .filter(|(i, _)| !dropped.contains(i))
            .map(|(_, a)| a.clone())
            .collect(),
    ))
}

/// Where sed's operands (the script when no `-e`/`-f` gives one, then the files) are in
/// `args`: every word that is neither an option nor the value of `-e`, `-f` or `-l`.
fn operand_positions(args: &[OsString]) -> Vec<usize> {
    let mut positions = Vec::new();
    let mut value_next = false;
    let mut only_operands = false;
    for (i, arg) in args.iter().enumerate().skip(1) {
        let word = arg.to_string_lossy();
        if value_next {
            value_next = false;
        } else if only_operands || word == "-" || !word.starts_with('-') {
            positions.push(i);
        } else if word == "--" {
            only_operands = true;
        } else if let Some(long) = word.strip_prefix("--") {
            value_next =
                ["expression", "file", "line-length"].contains(&long) && !long.contains('=');
        } else if let Some(at) = word[1..].find(['e', 'f', 'l']) {
            // The value is the rest of the cluster, or the next word.
            value_next = at + 2 == word.len();
        }
    }
    positions
}

/// A script as given: its text (for positions), or the file it is read from.
enum Script {
    Text(String),
    File(String),
}

/// GNU's exit status for a script that does not compile, and for a jump to a missing label
/// (GNU's `panic`).
const BAD_SCRIPT: i32 = 1;
const MISSING_LABEL: i32 = 4;

fn refuse_bad_script(args: &[OsString]) -> Option<i32> {
    let matches = sed::sed::uu_app().try_get_matches_from(args).ok()?;
    let scripts = scripts_of(&matches)?;
    let values = || {
        scripts
            .iter()
            .map(|s| match s {
                Script::Text(t) => ScriptValue::StringVal(t.clone()),
                Script::File(f) => ScriptValue::PathVal(f.into()),
            })
            .collect()
    };
    let locale = ["LC_ALL", "LC_CTYPE", "LANG"]
        .into_iter()
        .find_map(|name| std::env::var(name).ok().filter(|v| !v.is_empty()))
        .unwrap_or_else(|| "C".into());
    let context = |character_mode| ProcessingContext {
        regex_extended: matches.get_flag("regexp-extended"),
        posix: matches.get_flag("posix"),
        sandbox: matches.get_flag("sandbox"),
        null_data: matches.get_flag("null-data"),
        quiet: matches.get_flag("quiet"),
        character_mode,
        ..ProcessingContext::default()
    };
    let mode = sed::sed::character_mode_for_locale(&locale).ok()?;
    let mut error = compile(values(), &mut context(mode)).err()?;
    if mode == CharacterMode::Byte && error.to_string().contains(BACK_REFERENCES_REFUSED) {
        // The crate matches back-references (`s/\(a\)\1/x/`, which GNU sed takes in any
        // locale) only in its UTF-8 mode; such a script runs there, which differs from the C
        // locale only for input that is not ASCII.
        match compile(values(), &mut context(CharacterMode::Utf8)) {
            Ok(_) => {
                run_in_utf8_mode();
                return None;
            }
            Err(e) => error = e,
        }
    }
    let (line, status) = gnu_line(&error.to_string(), &scripts)?;
    let _ = writeln!(std::io::stderr(), "sed: {line}");
    Some(status)
}

/// The crate's refusal of a back-reference in its byte (C locale) mode.
const BACK_REFERENCES_REFUSED: &str = "back-references are not supported in byte mode";

/// Makes the crate, which reads the locale from the environment, run in its UTF-8 mode.
#[allow(unsafe_code)]
fn run_in_utf8_mode() {
    // SAFETY: the box is a single-threaded WASI process; nothing reads the environment
    // concurrently.
    unsafe { std::env::set_var("LC_ALL", "C.UTF-8") };
}

/// The scripts in the order sed reads them, as the crate collects them (`-e` and `-f` in
/// argument order; else the first operand). `None` when one is standard input: compiling it
/// here would consume what sed must read.
fn scripts_of(matches: &clap::ArgMatches) -> Option<Vec<Script>> {
    let mut indexed: Vec<(usize, Script)> = Vec::new();
    if let (Some(indices), Some(values)) = (
        matches.indices_of("expression"),
        matches.get_many::<String>("expression"),
    ) {
        indexed.extend(
            indices
                .zip(values)
                .map(|(i, v)| (i, Script::Text(v.clone()))),
        );
    }
    if let (Some(indices), Some(values)) = (
        matches.indices_of("script-file"),
        matches.get_many::<std::path::PathBuf>("script-file"),
    ) {
        for (i, path) in indices.zip(values) {
            let name = path.to_string_lossy().into_owned();
            if name == "-" || name == "/dev/stdin" {
                return None;
            }
            indexed.push((i, Script::File(name)));
        }
    }
    if indexed.is_empty() {
        indexed.push((
            0,
            Script::Text(matches.get_one::<String>("script")?.clone()),
        ));
    }
    indexed.sort_by_key(|(i, _)| *i);
    Some(indexed.into_iter().map(|(_, s)| s).collect())
}

/// GNU's line (without `sed: `) and exit status for the crate's error `text`
/// (`NAME:LINE:COLUMN: error: MESSAGE`, perhaps followed by a drawn snippet); `None` when the
/// message is not one whose GNU wording is known.
fn gnu_line(text: &str, scripts: &[Script]) -> Option<(String, i32)> {
    let (location, rest) = text.split_once(": error: ")?;
    if location.contains('\n') {
        return None;
    }
    let message = rest.lines().next()?;
    let mut parts = location.rsplitn(3, ':');
    let column: usize = parts.next()?.parse().ok()?;
    let line: usize = parts.next()?.parse().ok()?;
    let name = parts.next()?;

    if let Some(label) = message
        .strip_prefix("undefined label `")
        .and_then(|l| l.strip_suffix('\''))
    {
        return Some((
            format!("can't find label for jump to `{label}'"),
            MISSING_LABEL,
        ));
    }
    let (which, script) = script_named(name, scripts)?;
    let script_line = match script {
        Script::Text(t) => t.split('\n').nth(line.checked_sub(1)?)?,
        Script::File(_) => "",
    };
    // Regular-expression errors come with the pattern and, lines later, the regex crate's
    // report.
    let message = regex_message(rest).unwrap_or(message);
    let (gnu, column) = gnu_message(message, column, script_line)?;
    let place = match script {
        Script::Text(t) => {
            let char_index = if gnu == UNMATCHED_BRACE {
                // GNU finds an unclosed block at the end of the program, past every position.
                None
            } else {
                Some(gnu_char(t, line, column))
            };
            format!("-e expression #{which}, char {}", char_index.unwrap_or(0))
        }
        Script::File(path) => format!("file {path} line {line}"),
    };
    Some((format!("{place}: {gnu}"), BAD_SCRIPT))
}

const UNMATCHED_BRACE: &str = "unmatched `{'";

/// The script the crate calls `name`, with GNU's number for it: scripts given as text count
/// `-e expression #1, #2…`; script files are named by their path.
fn script_named<'a>(name: &str, scripts: &'a [Script]) -> Option<(usize, &'a Script)> {
    if let Some(k) = name
        .strip_prefix("<script argument ")
        .and_then(|n| n.strip_suffix('>'))
    {
        let index = k.parse::<usize>().ok()?.checked_sub(1)?;
        let script = scripts.get(index)?;
        let which = scripts[..=index]
            .iter()
            .filter(|s| matches!(s, Script::Text(_)))
            .count();
        return Some((which, script));
    }
    scripts
        .iter()
        .find(|s| matches!(s, Script::File(p) if p == name))
        .map(|s| (0, s))
}

/// GNU's character count for the crate's 1-based (`line`, `column`): GNU counts the bytes it
/// had read, lines before included with their newlines, and stops at the end of the text
/// where the crate points one past it.
fn gnu_char(text: &str, line: usize, column: usize) -> usize {
    let lines: Vec<&str> = text.split('\n').collect();
    let before: usize = lines
        .iter()
        .take(line.saturating_sub(1))
        .map(|l| l.len() + 1)
        .sum();
    let this = lines.get(line.saturating_sub(1)).copied().unwrap_or("");
    let within: usize = this.chars().take(column).map(char::len_utf8).sum();
    before + within
}

/// GNU's wording for the regex crate's report inside `invalid regex '…': …`.
fn regex_message(report: &str) -> Option<&'static str> {
    if !report.starts_with("invalid regex '") {
        return None;
    }
    let kind = report.rsplit("error: ").next()?.lines().next()?.trim();
    Some(match kind {
        "unclosed group" => "Unmatched ( or \\(",
        "unopened group" => "Unmatched ) or \\)",
        "repetition operator missing expression" => "Invalid preceding regular expression",
        "unclosed character class" => "Unmatched [, [^, [:, [., or [=",
        _ => return None,
    })
}

/// The command letter of the script's last command (`1,3s/a` → `s`), when its addresses are
/// complete: what a regex left open at the end of the script belongs to.
fn command_at_end(line: &str) -> Option<char> {
    let command = line.rsplit([';', '\n', '{']).next()?.trim_start();
    let rest = skip_address(command)?;
    let rest = match rest.strip_prefix(',') {
        Some(second) => skip_address(second)?,
        None => rest,
    };
    let rest = rest.trim_start();
    let rest = rest.strip_prefix('!').unwrap_or(rest).trim_start();
    let mut chars = rest.chars();
    let letter = chars.next()?;
    let delimiter = chars.next()?;
    (matches!(letter, 's' | 'y') && !delimiter.is_alphanumeric() && !"\\\n".contains(delimiter))
        .then_some(letter)
}

/// `text` after one address (a line number, `$`, `/re/` or `\cREc`); `None` when a regex
/// address is still open.
fn skip_address(text: &str) -> Option<&str> {
    let closing = |body: &str, delimiter: char| -> Option<usize> {
        let mut escaped = false;
        for (i, c) in body.char_indices() {
            match c {
                _ if escaped => escaped = false,
                '\\' => escaped = true,
                c if c == delimiter => return Some(i + c.len_utf8()),
                _ => {}
            }
        }
        None
    };
    if let Some(body) = text.strip_prefix('/') {
        return Some(&body[closing(body, '/')?..]);
    }
    if let Some(body) = text.strip_prefix('\\') {
        let delimiter = body.chars().next()?;
        let body = &body[delimiter.len_utf8()..];
        return Some(&body[closing(body, delimiter)?..]);
    }
    if let Some(rest) = text.strip_prefix('$') {
        return Some(rest);
    }
    Some(text.trim_start_matches(|c: char| c.is_ascii_digit() || c == '~'))
}

/// GNU sed 4.8's message for the crate's, and the column GNU's count ends at.
fn gnu_message(message: &str, column: usize, line: &str) -> Option<(String, usize)> {
    let same = |m: &str| Some((m.to_string(), column));
    if message.starts_with("invalid substitute flag") {
        return same("unknown option to `s'");
    }
    if let Some(code) = message
        .strip_prefix("invalid command code `")
        .and_then(|c| c.strip_suffix('\''))
    {
        return same(&format!("unknown command: `{code}'"));
    }
    if message.starts_with("extra characters at the end of the ") {
        return same("extra characters after command");
    }
    if message.starts_with("command `") && message.ends_with("' expects \\ followed by text") {
        return same("expected \\ after `a', `c' or `i'");
    }
    if message.starts_with("address 0 can only be used") {
        return same("invalid usage of line address 0");
    }
    if message == "multiple 'g' or numeric flags in substitute command" {
        // One message for two of GNU's: which flag came again is the character at the column.
        let flag = line.chars().nth(column.checked_sub(1)?)?;
        return if flag == 'g' {
            same("multiple `g' options to `s' command")
        } else if flag.is_ascii_digit() {
            same("multiple number options to `s' command")
        } else {
            None
        };
    }
    if message == "negation already applied" {
        // GNU counts up to the second `!`; the crate points past it.
        return Some(("multiple `!'s".into(), column.checked_sub(1)?));
    }
    let gnu = match message {
        "unterminated substitute replacement"
        | "unterminated substitute replacement (unexpected EOF)"
        | "Unterminated bracket expression"
        | "unterminated `s' command" => "unterminated `s' command",
        "unterminated transliteration string" | "unterminated `y' command" => {
            "unterminated `y' command"
        }
        "transliteration strings are not the same length" => {
            "strings for `y' command are different lengths"
        }
        "command expected" => "missing command",
        // The crate says so of an `s` command's pattern too; GNU names the command.
        "unterminated regular expression" => match command_at_end(line) {
            Some('s') => "unterminated `s' command",
            Some('y') => "unterminated `y' command",
            _ => "unterminated address regex",
        },
        "empty label" => "\":\" lacks a label",
        "missing file path" => "missing filename in r/R/w/W commands",
        "unmatched `{'" => UNMATCHED_BRACE,
        "unexpected `}'"
        | "unexpected `,'"
        | "incomplete command"
        | "Unmatched \\{"
        | "Invalid content of \\{\\}"
        | "expected newer version of sed" => message,
        m if m.starts_with("invalid reference \\") && m.ends_with(" on `s' command's RHS") => m,
        "Unmatched ( or \\("
        | "Unmatched ) or \\)"
        | "Invalid preceding regular expression"
        | "Unmatched [, [^, [:, [., or [=" => message,
        _ => return None,
    };
    // At the end of the text GNU's count stops at its length; the crate points one past it.
    Some((gnu.to_string(), column.min(line.chars().count())))
}

#[cfg(test)]
mod tests {

    #[test]
    fn missing_inputs_before_readable_ones_are_dropped() {
        let tmp = tempfile::tempdir().unwrap();
        let f = tmp.path().join("f");
        std::fs::write(&f, "a\n").unwrap();
        let missing = tmp.path().join("nofile");
        let os = |v: &[&str]| v.iter().map(OsString::from).collect::<Vec<_>>();
        let f = f.to_str().unwrap();
        let missing = missing.to_str().unwrap();
        match missing_inputs(&os(&["sed", "-n", "p", missing, f])) {
            Some(Inputs::Without(rest)) => assert_eq!(rest, os(&["sed", "-n", "p", f])),
            _ => panic!("the missing file is dropped"),
        }
        match missing_inputs(&os(&["sed", "-e", "p", missing, f])) {
            Some(Inputs::Without(rest)) => assert_eq!(rest, os(&["sed", "-e", "p", f])),
            _ => panic!("the missing file is dropped"),
        }
        assert!(matches!(
            missing_inputs(&os(&["sed", "-i", "s/a/b/", missing])),
            Some(Inputs::Done(2))
        ));
        assert!(matches!(
            missing_inputs(&os(&["sed", "-i", "s/a/b/"])),
            Some(Inputs::Done(4))
        ));
        // Option values do not count as operands: `-e :a -e N` before the missing file.
        match missing_inputs(&os(&[
            "sed", "-i", "s/x//", "-e", ":a", "-ne", "N", missing, f,
        ])) {
            Some(Inputs::Without(rest)) => {
                assert_eq!(rest, os(&["sed", "-i", "-e", ":a", "-ne", "N", f]))
            }
            _ => panic!("the script-looking operand and the missing file are dropped"),
        }
        // A missing file after a readable one is left to sed.
        assert!(missing_inputs(&os(&["sed", "p", f, missing])).is_none());
        assert!(missing_inputs(&os(&["sed", "p"])).is_none());
    }

    use super::*;

    /// `sed SCRIPT` (one text script): the line printed after `sed: `.
    fn one(error: &str, script: &str) -> Option<String> {
        gnu_line(error, &[Script::Text(script.into())]).map(|(l, _)| l)
    }

    // Expected lines: GNU sed 4.9 (Debian 12) on the same scripts, which words these as 4.8.
    #[test]
    fn script_errors_read_as_gnu_prints_them() {
        let cases = [
            (
                "<script argument 1>:1:7: error: invalid substitute flag: 'q'",
                "s/a/b/q",
                "-e expression #1, char 7: unknown option to `s'",
            ),
            (
                "<script argument 1>:1:6: error: unterminated substitute replacement",
                "s/a/b",
                "-e expression #1, char 5: unterminated `s' command",
            ),
            (
                "<script argument 1>:1:1: error: invalid command code `k'",
                "k",
                "-e expression #1, char 1: unknown command: `k'",
            ),
            (
                "<script argument 1>:1:6: error: command expected",
                "/abc/",
                "-e expression #1, char 5: missing command",
            ),
            (
                "<script argument 1>:1:5: error: unterminated regular expression",
                "/abc",
                "-e expression #1, char 4: unterminated address regex",
            ),
            (
                "<script argument 1>:1:4: error: unterminated regular expression",
                "s/a",
                "-e expression #1, char 3: unterminated `s' command",
            ),
            (
                "<script argument 1>:1:8: error: unterminated regular expression",
                "/x/!s|a",
                "-e expression #1, char 7: unterminated `s' command",
            ),
            (
                "<script argument 1>:1:10: error: unterminated regular expression",
                "s/a/b/;/c",
                "-e expression #1, char 9: unterminated address regex",
            ),
            (
                "<script argument 1>:1:3: error: extra characters at the end of the p command",
                "p x",
                "-e expression #1, char 3: extra characters after command",
            ),
            (
                "<script argument 1>:1:1: error: unmatched `{'",
                "{p",
                "-e expression #1, char 0: unmatched `{'",
            ),
            (
                "<script argument 1>:1:2: error: command `a' expects \\ followed by text",
                "a",
                "-e expression #1, char 1: expected \\ after `a', `c' or `i'",
            ),
            (
                "<script argument 1>:1:2: error: empty label",
                ":",
                "-e expression #1, char 1: \":\" lacks a label",
            ),
            (
                "<script argument 1>:1:9: error: transliteration strings are not the same length",
                "y/abc/de/",
                "-e expression #1, char 9: strings for `y' command are different lengths",
            ),
            (
                "<script argument 1>:1:33: error: invalid reference \\3 on `s' command's RHS",
                "s/([0-9]+)\\s+(.*):(.*)/\\2:\\1:\\3/",
                "-e expression #1, char 32: invalid reference \\3 on `s' command's RHS",
            ),
            (
                "<script argument 1>:1:8: error: invalid regex '(a': regex parse error:\n    (a\n    ^\nerror: unclosed group",
                "s/(a/b/",
                "-e expression #1, char 7: Unmatched ( or \\(",
            ),
            (
                "<script argument 1>:1:8: error: Unterminated bracket expression",
                "s/[a/b/",
                "-e expression #1, char 7: unterminated `s' command",
            ),
            (
                "<script argument 1>:2:7: error: invalid substitute flag: 'q'",
                "p\ns/a/b/q",
                "-e expression #1, char 9: unknown option to `s'",
            ),
            (
                "<script argument 1>:1:8: error: multiple 'g' or numeric flags in substitute command",
                "s/a/b/gg",
                "-e expression #1, char 8: multiple `g' options to `s' command",
            ),
            (
                "<script argument 1>:1:4: error: negation already applied",
                "3!!p",
                "-e expression #1, char 3: multiple `!'s",
            ),
            (
                "<script argument 1>:1:2: error: missing file path",
                "w",
                "-e expression #1, char 1: missing filename in r/R/w/W commands",
            ),
            (
                "<script argument 1>:1:2: error: address 0 can only be used with ~step, a second regular expression, or a read command",
                "0p",
                "-e expression #1, char 2: invalid usage of line address 0",
            ),
        ];
        for (crate_error, script, gnu) in cases {
            assert_eq!(one(crate_error, script).as_deref(), Some(gnu), "{script}");
        }
    }

    #[test]
    fn expressions_are_numbered_among_text_scripts_and_files_by_path() {
        let scripts = [
            Script::File("x.sed".into()),
            Script::Text("p".into()),
            Script::Text("k".into()),
        ];
        let (line, status) = gnu_line(
            "<script argument 3>:1:1: error: invalid command code `k'",
            &scripts,
        )
        .unwrap();
        assert_eq!(line, "-e expression #2, char 1: unknown command: `k'");
        assert_eq!(status, 1);
        let (line, _) = gnu_line("x.sed:2:1: error: invalid command code `k'", &scripts).unwrap();
        assert_eq!(line, "file x.sed line 2: unknown command: `k'");
    }

    #[test]
    fn a_missing_label_is_gnus_panic() {
        let got = gnu_line(
            "<script argument 1>:1:1: error: undefined label `foo'",
            &[Script::Text("bfoo".into())],
        );
        assert_eq!(
            got,
            Some(("can't find label for jump to `foo'".to_string(), 4))
        );
    }

    #[test]
    fn unknown_messages_are_left_to_the_crate() {
        assert_eq!(
            one("<script argument 1>:1:1: error: something new", "x"),
            None
        );
        assert_eq!(one("sed: couldn't open file", "x"), None);
    }
}
