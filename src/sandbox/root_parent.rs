//! `/..` is `/`: at the root of a file system, `..` names the root itself (`ln -s x ..` in
//! `/` links `/x`). The guest's hostcall paths reach the host relative to the episode's root,
//! where cap-std refuses any `..` that would climb out of it. The leading `..` of such a path
//! climbs no further than the root, so it is dropped. A `..` after a name is left alone (the
//! name may be a symbolic link). (The paths the guest resolves through WASI itself still meet
//! cap-std's refusal: `ls ..` in `/` says "Permission denied".)

use std::borrow::Cow;

/// `rel` (a path relative to the root) without the `.` and `..` components it starts with.
pub(crate) fn strip_leading_dots(rel: &str) -> Cow<'_, str> {
    let mut rest = rel;
    let mut climbed = false;
    loop {
        let (first, after) = match rest.split_once('/') {
            Some((f, a)) => (f, a),
            None => (rest, ""),
        };
        match first {
            ".." => climbed = true,
            "." | "" if !rest.is_empty() => {}
            _ => break,
        }
        rest = after;
        if rest.is_empty() {
            break;
        }
    }
    if !climbed {
        return Cow::Borrowed(rel);
    }
    if rest.is_empty() {
        Cow::Borrowed(".")
    } else {
        Cow::Borrowed(rest)
    }
}

#[cfg(test)]
mod tests {
    use super::strip_leading_dots;

    #[test]
    fn only_a_climb_above_the_root_is_dropped() {
        assert_eq!(strip_leading_dots(".."), ".");
        assert_eq!(strip_leading_dots("../etc/hostname"), "etc/hostname");
        assert_eq!(strip_leading_dots("./../../testbed/"), "testbed/");
        assert_eq!(strip_leading_dots("../"), ".");
        // Nothing climbs: the path is the guest's own.
        assert_eq!(strip_leading_dots("etc/../x"), "etc/../x");
        assert_eq!(strip_leading_dots("./a"), "./a");
        assert_eq!(strip_leading_dots("."), ".");
        assert_eq!(strip_leading_dots(""), "");
        assert_eq!(strip_leading_dots("..a/b"), "..a/b");
    }
}
