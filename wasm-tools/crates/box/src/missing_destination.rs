//! `cp`/`mv SOURCE DEST` where DEST names nothing that can be created: the empty name, or a
//! name ending in `/` (a directory) that does not exist. GNU tries to create it and words the
//! failure as such (`cp: cannot create regular file 'missing/': Not a directory`, `mv: cannot
//! move 'a' to 'no/such/': No such file or directory`); uutils refuses the operand instead
//! (`'missing/' is not a directory`, `cannot make an empty path absolute`). Only a source that
//! exists and is not a directory is answered here: a directory source is created at the name.

use std::io::Write;

/// The status after GNU's message, when `operands` (those of `cp` or `mv`, with no `-t`/`-T`)
/// are such a copy or move.
pub fn check(name: &str, operands: &[String]) -> Option<i32> {
    let [source, dest] = operands else {
        return None;
    };
    if !dest.is_empty() && !dest.ends_with('/') {
        return None;
    }
    let source_stat = hostcalls::stat(source, true).ok()?;
    if source_stat.is_dir() || hostcalls::stat(dest, true).is_ok() {
        return None;
    }
    let reason = if dest.is_empty() {
        "No such file or directory"
    } else {
        let trimmed = dest.trim_end_matches('/');
        let parent = match trimmed.rfind('/') {
            Some(0) => "/",
            Some(at) => &trimmed[..at],
            None => ".",
        };
        if hostcalls::stat(parent, true).is_ok_and(|st| st.is_dir()) {
            "Not a directory"
        } else {
            "No such file or directory"
        }
    };
    let quote = applets::locale_quote;
    let message = match name {
        "cp" => format!("cp: cannot create regular file {}: {reason}", quote(dest)),
        _ => format!(
            "{name}: cannot move {} to {}: {reason}",
            quote(source),
            quote(dest)
        ),
    };
    let _ = writeln!(std::io::stderr(), "{message}");
    Some(1)
}

/// `mv`'s operands, or `None` when a target directory is given (`-t`, `-T`) or an option
/// cannot be read here.
pub fn mv_operands(args: &[std::ffi::OsString]) -> Option<Vec<String>> {
    let mut operands = Vec::new();
    let mut words = args.iter().skip(1).map(|a| a.to_str());
    let mut only_operands = false;
    while let Some(word) = words.next() {
        let word = word?;
        if only_operands || word == "-" || !word.starts_with('-') {
            operands.push(word.to_string());
        } else if word == "--" {
            only_operands = true;
        } else if let Some(long) = word.strip_prefix("--") {
            let name = long.split_once('=').map_or(long, |(n, _)| n);
            match name {
                "target-directory" | "no-target-directory" => return None,
                "suffix" if !long.contains('=') => {
                    words.next();
                }
                _ => {}
            }
        } else {
            let letters = &word[1..];
            if letters.contains(['t', 'T']) {
                return None;
            }
            // `-S SUFFIX`: the value is the rest of the word or the next one.
            if letters.ends_with('S') {
                words.next();
            }
        }
    }
    Some(operands)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::ffi::OsString;

    fn args(a: &[&str]) -> Vec<OsString> {
        a.iter().map(OsString::from).collect()
    }

    #[test]
    fn mv_operands_skip_option_values_and_give_up_on_target_directories() {
        assert_eq!(
            mv_operands(&args(&["mv", "-f", "-S", "~", "a", "b/"])),
            Some(vec!["a".to_string(), "b/".to_string()])
        );
        assert_eq!(mv_operands(&args(&["mv", "-t", "d", "a"])), None);
        assert_eq!(
            mv_operands(&args(&["mv", "--no-target-directory", "a", "b"])),
            None
        );
        assert_eq!(
            mv_operands(&args(&["mv", "--", "-a", ""])),
            Some(vec!["-a".to_string(), String::new()])
        );
    }

    #[test]
    fn a_missing_directory_destination_is_refused_in_gnu_words() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("a.txt");
        std::fs::write(&file, "a").unwrap();
        let file = file.to_str().unwrap().to_string();
        let missing = format!("{}/missing/", dir.path().display());
        let deeper = format!("{}/no/such/", dir.path().display());
        assert_eq!(check("cp", &[file.clone(), missing.clone()]), Some(1));
        assert_eq!(check("mv", &[file.clone(), deeper]), Some(1));
        assert_eq!(check("mv", &[file.clone(), String::new()]), Some(1));
        // An existing directory, a directory source, or no slash: left to the utility.
        assert_eq!(
            check("cp", &[file.clone(), format!("{}/", dir.path().display())]),
            None
        );
        assert_eq!(
            check("cp", &[dir.path().display().to_string(), missing]),
            None
        );
        assert_eq!(check("mv", &[file, "b".to_string()]), None);
    }
}
