//! How an absolute path that climbs above `/` is read, for the host and the guest alike.
//!
//! On Linux `/..` is `/`: `find ../testbed` in `/` and `ls /testbed/../..` work. The sandbox
//! opens every path beneath the episode's root, which refuses any `..` leading out of it as an
//! escape. Both sides of the sandbox (wasi-libc's resolution in the guest, the host's own
//! calls) rewrite such paths with this one rule before they are opened.

/// `absolute` with its `..` resolved by name when some `..` in it would climb above `/`;
/// `None` (use it as it is) otherwise. Only those paths are rewritten: resolving `name/..` by
/// name is wrong when `name` is a symbolic link, and these paths could not be opened anyway.
/// A trailing `/` is kept (it asks for a directory).
pub fn above_root_resolved(absolute: &[u8]) -> Option<Vec<u8>> {
    if !absolute.split(|&b| b == b'/').any(|c| c == b"..") {
        return None;
    }
    let mut kept: Vec<&[u8]> = Vec::new();
    let mut climbed_above = false;
    for component in absolute.split(|&b| b == b'/') {
        match component {
            b"" | b"." => {}
            b".." => climbed_above |= kept.pop().is_none(),
            name => kept.push(name),
        }
    }
    if !climbed_above {
        return None;
    }
    let mut out = Vec::with_capacity(absolute.len());
    for name in &kept {
        out.push(b'/');
        out.extend_from_slice(name);
    }
    if out.is_empty() || absolute.ends_with(b"/") {
        out.push(b'/');
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::above_root_resolved;

    fn resolved(path: &str) -> Option<String> {
        above_root_resolved(path.as_bytes()).map(|p| String::from_utf8(p).unwrap())
    }

    #[test]
    fn only_paths_climbing_above_the_root_are_rewritten() {
        assert_eq!(resolved("/../testbed"), Some("/testbed".into()));
        assert_eq!(
            resolved("/./../../etc/hostname"),
            Some("/etc/hostname".into())
        );
        assert_eq!(resolved("/testbed/../../x/"), Some("/x/".into()));
        assert_eq!(resolved("/testbed/dir1/../../.."), Some("/".into()));
        assert_eq!(resolved("/.."), Some("/".into()));
        assert_eq!(resolved("/../"), Some("/".into()));
        // Within the root a `..` after a name stays: the name may be a symbolic link.
        assert_eq!(resolved("/a/b/../c"), None);
        assert_eq!(resolved("/etc/../x"), None);
        assert_eq!(resolved("/testbed/..."), None);
        assert_eq!(resolved("/testbed"), None);
    }
}
