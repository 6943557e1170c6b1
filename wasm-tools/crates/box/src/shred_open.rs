//! GNU shred opens each file for writing before touching it and reports one it cannot open as
//! `shred: NAME: failed to open for writing: REASON` (the name quoted as `quotef` does); uutils
//! gives the reason alone, quoted its own way. `find … -delete -exec shred {} \;` in upstream's
//! logs prints one such line per file. Files that cannot be opened are reported here and left
//! off the command line before uutils runs (`unopenable`); the status is then 1.
//!
//! A file `-f` could make writable (permission denied) is left to uutils, which changes its
//! mode as GNU does.

use crate::unopenable;
use std::ffi::OsString;
use std::io::Write;

/// Short options that take a value (attached or in the next word).
const SHORT_WITH_VALUE: &[char] = &['n', 's'];
/// Long options that take a value, attached or in the next word.
const LONG_WITH_VALUE: &[&str] = &["iterations", "size", "random-source"];

/// Indices of the file operands and whether `-f`/`--force` was given; `None` for a command
/// line this module leaves to uutils (help, version, an option it does not know).
fn operands(args: &[OsString]) -> Option<(Vec<usize>, bool)> {
    let mut files = Vec::new();
    let mut force = false;
    let mut only_files = false;
    let mut i = 1;
    while i < args.len() {
        let word = args[i].to_str()?;
        if only_files || word == "-" || !word.starts_with('-') {
            files.push(i);
        } else if word == "--" {
            only_files = true;
        } else if let Some(long) = word.strip_prefix("--") {
            let name = long.split_once('=').map_or(long, |(n, _)| n);
            let known = ["force", "remove", "verbose", "exact", "zero"];
            let full = LONG_WITH_VALUE
                .iter()
                .chain(known.iter())
                .filter(|l| l.starts_with(name))
                .collect::<Vec<_>>();
            let [full] = full.as_slice() else {
                return None;
            };
            if **full == "force" {
                force = true;
            }
            if LONG_WITH_VALUE.contains(full) && !long.contains('=') {
                i += 1;
            }
        } else {
            for (at, c) in word.char_indices().skip(1) {
                match c {
                    'f' => force = true,
                    'u' | 'v' | 'x' | 'z' => {}
                    c if SHORT_WITH_VALUE.contains(&c) => {
                        if at + 1 == word.len() {
                            i += 1;
                        }
                        break;
                    }
                    _ => return None,
                }
            }
        }
        i += 1;
    }
    Some((files, force))
}

/// The command line to run (empty when no file is left) and whether a file was reported.
pub fn drop_unopenable(args: Vec<OsString>) -> (Vec<OsString>, bool) {
    let Some((files, force)) = operands(&args) else {
        return (args, false);
    };
    let mut dropped = Vec::new();
    let mut stderr = std::io::stderr();
    for &at in &files {
        let name = args[at].to_string_lossy();
        // `-` is standard output to GNU shred, which uutils handles.
        if name == "-" {
            continue;
        }
        let opened = std::fs::OpenOptions::new().write(true).open(&*name);
        let error = match opened {
            Ok(_) => continue,
            Err(e) if force && e.kind() == std::io::ErrorKind::PermissionDenied => continue,
            Err(e) => e,
        };
        let _ = writeln!(
            stderr,
            "shred: {}: failed to open for writing: {}",
            applets::quote_name(&name),
            applets::strerror(&error)
        );
        dropped.push(at);
    }
    let reported = !dropped.is_empty();
    (unopenable::leave_out(args, files.len(), &dropped), reported)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(words: &[&str]) -> Vec<OsString> {
        words.iter().map(OsString::from).collect()
    }

    #[test]
    fn operands_skip_option_values() {
        let a = args(&[
            "shred",
            "-n",
            "3",
            "-fu",
            "a",
            "--size=10",
            "--iterations",
            "2",
            "b",
        ]);
        assert_eq!(operands(&a), Some((vec![4, 8], true)));
        let a = args(&["shred", "-n3", "--rem", "--", "-x"]);
        assert_eq!(operands(&a), Some((vec![4], false)));
        assert_eq!(operands(&args(&["shred", "--bogus", "a"])), None);
        assert_eq!(operands(&args(&["shred", "-q", "a"])), None);
    }

    #[test]
    fn a_missing_file_is_reported_in_gnu_words_and_dropped() {
        let dir = std::env::temp_dir().join(format!("shred-open-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let kept = dir.join("kept");
        std::fs::write(&kept, "x").unwrap();
        let kept = kept.to_string_lossy().into_owned();
        let missing = dir.join("no such").to_string_lossy().into_owned();
        let (left, reported) = drop_unopenable(args(&["shred", "-u", &missing, &kept]));
        assert!(reported);
        assert_eq!(left, args(&["shred", "-u", &kept]));
        let (left, reported) = drop_unopenable(args(&["shred", &missing]));
        assert!(reported && left.is_empty());
    }
}
