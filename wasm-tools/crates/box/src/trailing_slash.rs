//! `rm -r dir/` and `rmdir dir/`: WASI refuses to remove a directory named with a trailing
//! slash (`Invalid argument`), where Linux removes it. The slashes are dropped from operands
//! that name a directory before uutils sees them. The operand only reappears in a message when
//! something inside could not be removed (`rm` names the inner path, which reads the same), or,
//! for `rmdir`, when the directory is not empty: that message is GNU's, printed here with the
//! name as typed, and the operand is not passed on.

use std::ffi::OsString;
use std::io::Write;

/// `args` (program name first) with the trailing slashes of directory operands removed, and
/// for `rmdir`, the status its refusals already decided (`None` when there were none).
pub fn strip(name: &str, args: Vec<OsString>) -> (Vec<OsString>, Option<i32>) {
    let ignore_non_empty = args.iter().any(|a| a == "--ignore-fail-on-non-empty");
    let mut options_end = false;
    let mut refused = None;
    let mut kept = Vec::with_capacity(args.len());
    for (i, arg) in args.into_iter().enumerate() {
        let Some(text) = arg.to_str() else {
            kept.push(arg);
            continue;
        };
        if i == 0 || (!options_end && text.starts_with('-') && text != "-") {
            options_end |= text == "--";
            kept.push(arg);
            continue;
        }
        let trimmed = text.trim_end_matches('/');
        let is_dir = std::fs::symlink_metadata(trimmed).is_ok_and(|m| m.is_dir());
        if trimmed.is_empty() || trimmed.len() == text.len() || !is_dir {
            kept.push(arg);
            continue;
        }
        let empty = std::fs::read_dir(trimmed).is_ok_and(|mut d| d.next().is_none());
        if name == "rmdir" && !empty {
            if !ignore_non_empty {
                let _ = writeln!(
                    std::io::stderr(),
                    "rmdir: failed to remove {}: Directory not empty",
                    applets::locale_quote(text)
                );
                refused = Some(1);
            }
            continue;
        }
        kept.push(OsString::from(trimmed));
    }
    (kept, refused)
}

#[cfg(test)]
mod tests {
    use super::strip;
    use std::ffi::OsString;

    fn strs(v: Vec<OsString>) -> Vec<String> {
        v.into_iter().map(|s| s.into_string().unwrap()).collect()
    }

    #[test]
    fn only_directory_operands_lose_their_slashes() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("d");
        std::fs::create_dir(&dir).unwrap();
        std::fs::write(tmp.path().join("f"), "").unwrap();
        let d = format!("{}/", dir.display());
        let f = format!("{}/f/", tmp.path().display());
        let args = vec![
            "rm".into(),
            "-rf".into(),
            d.clone().into(),
            f.clone().into(),
        ];
        let (kept, refused) = strip("rm", args);
        assert_eq!(
            strs(kept),
            ["rm", "-rf", d.trim_end_matches('/'), f.as_str()]
        );
        assert_eq!(refused, None);
        // A directory rmdir cannot remove is refused here, in GNU's words.
        std::fs::write(dir.join("x"), "").unwrap();
        let args = vec!["rmdir".into(), d.clone().into()];
        let (kept, refused) = strip("rmdir", args);
        assert_eq!(strs(kept), ["rmdir"]);
        assert_eq!(refused, Some(1));
    }
}
