//! GNU paste opens every file before it pastes a line, and ends at the first it cannot open:
//! `paste: NAME: No such file or directory` (the name quoted as `quotef` does), status 1,
//! nothing pasted. uutils' paste stops there too but leaves the name out of the message
//! (`paste: No such file or directory`). That first file is reported here before uutils runs.
//! `-s` (one file at a time, each failure reported as it comes) is left to uutils.

use std::ffi::OsString;
use std::io::Write;

/// `Some(1)` when a file of a parallel paste cannot be opened (the message is written).
pub fn check(args: &[OsString]) -> Option<i32> {
    let mut files = Vec::new();
    let mut words = args.iter().skip(1).map(|a| a.to_str());
    let mut only_files = false;
    while let Some(word) = words.next() {
        let word = word?;
        if only_files || word == "-" || !word.starts_with('-') {
            files.push(word);
        } else if word == "--" {
            only_files = true;
        } else if let Some(long) = word.strip_prefix("--") {
            let name = long.split_once('=').map_or(long, |(n, _)| n);
            if name.is_empty() {
                return None;
            }
            if "serial".starts_with(name) {
                return None;
            }
            if "delimiters".starts_with(name) && !long.contains('=') {
                words.next();
            } else if !"zero-terminated".starts_with(name) && !"delimiters".starts_with(name) {
                // --help, --version, or one GNU refuses: not this module's.
                return None;
            }
        } else {
            for (i, c) in word.char_indices().skip(1) {
                match c {
                    's' => return None,
                    'z' => {}
                    'd' => {
                        if i + 1 == word.len() {
                            words.next();
                        }
                        break;
                    }
                    _ => return None,
                }
            }
        }
    }
    for name in files {
        if name == "-" {
            continue;
        }
        if let Err(e) = std::fs::File::open(name) {
            let _ = writeln!(
                std::io::stderr(),
                "paste: {}: {}",
                applets::quote_name(name),
                applets::strerror(&e)
            );
            return Some(1);
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(line: &str) -> Vec<OsString> {
        line.split_whitespace().map(OsString::from).collect()
    }

    #[test]
    fn only_parallel_pastes_of_a_missing_file_are_answered_here() {
        assert_eq!(check(&words("paste /no/such/a")), Some(1));
        assert_eq!(check(&words("paste -d , /no/such/a")), Some(1));
        assert_eq!(check(&words("paste -d, -z /no/such/a")), Some(1));
        assert_eq!(check(&words("paste -s /no/such/a")), None);
        assert_eq!(check(&words("paste --help /no/such/a")), None);
        assert_eq!(check(&words("paste -d /no/such/a")), None);
        assert_eq!(check(&words("paste -")), None);
    }
}
