//! Upstream's `cd`, for `--upstream-quoting` runs (UPSTREAM-BEHAVIOUR.md §2.1): upstream's bash
//! env ran every action in a fresh shell and kept the working directory itself. An action that
//! *starts* with `cd` had everything after its first `cd ` taken as the path, joined to the kept
//! directory by plain string rules (`.`, `..` and empty segments resolved; no `~`, no `-`, no
//! quotes removed), and run as `cd PATH` from `/`; when that exited 0 the joined string became
//! the directory of every later command, as docker's `workdir`. So `cd /x && ls` kept the
//! directory `/x && ls`, and every later command of the episode failed with docker's message.

/// What an action that starts with `cd` does under upstream's rules.
#[derive(Debug, PartialEq, Eq)]
pub enum UpstreamCd {
    /// Run `cd PATH` from `/`; on success PATH is the new working directory.
    To(String),
    /// No `cd ` in it (`cd` alone, `cdx`): upstream's env raised and the harness crashed.
    Malformed,
}

/// `None` when `action` is not a `cd` to upstream (it does not start with `cd`).
pub fn upstream_cd(action: &str, workdir: &str) -> Option<UpstreamCd> {
    if !action.starts_with("cd") {
        return None;
    }
    Some(match action.find("cd ") {
        Some(at) => UpstreamCd::To(joined(workdir, action[at + 3..].trim())),
        None => UpstreamCd::Malformed,
    })
}

/// `changed` taken from `current` by string rules alone.
fn joined(current: &str, changed: &str) -> String {
    if changed.is_empty() {
        return current.to_string();
    }
    let base = if changed.starts_with('/') {
        ""
    } else {
        current
    };
    let mut segments: Vec<&str> = Vec::new();
    for segment in base.split('/').chain(changed.split('/')) {
        match segment {
            ".." => {
                segments.pop();
            }
            "" | "." => {}
            s => segments.push(s),
        }
    }
    format!("/{}", segments.join("/"))
}

/// What docker answered for a command whose working directory does not exist (`is_file`: it
/// exists but is not a directory), from upstream's logs.
pub fn missing_workdir(workdir: &str, is_file: bool) -> String {
    let why = if is_file {
        "not a directory"
    } else {
        "no such file or directory"
    };
    format!(
        "OCI runtime exec failed: exec failed: unable to start container process: chdir to cwd \
         (\"{workdir}\") set in config.json failed: {why}: unknown\r\n"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_are_joined_as_strings() {
        let to = |a: &str, w: &str| upstream_cd(a, w);
        assert_eq!(to("ls", "/"), None);
        assert_eq!(
            to("cd /testbed", "/"),
            Some(UpstreamCd::To("/testbed".into()))
        );
        assert_eq!(
            to("cd dir2/../dir1/", "/testbed"),
            Some(UpstreamCd::To("/testbed/dir1".into()))
        );
        assert_eq!(to("cd ../..", "/a"), Some(UpstreamCd::To("/".into())));
        assert_eq!(to("cd .//x/.", "/a"), Some(UpstreamCd::To("/a/x".into())));
        // Everything after the first `cd ` is the path, operators and quotes included.
        assert_eq!(
            to("cd /x && ls", "/"),
            Some(UpstreamCd::To("/x && ls".into()))
        );
        assert_eq!(
            to("cd \"$(which python)\"", "/"),
            Some(UpstreamCd::To("/\"$(which python)\"".into()))
        );
        assert_eq!(to("cd", "/a"), Some(UpstreamCd::Malformed));
        assert_eq!(to("cdx", "/a"), Some(UpstreamCd::Malformed));
        // `cd ` alone keeps the directory.
        assert_eq!(to("cd ", "/a"), Some(UpstreamCd::To("/a".into())));
    }

    #[test]
    fn dockers_message_names_the_directory() {
        // As logged by upstream (gpt-3.5, fs_1): the message ends in \r\n.
        assert_eq!(
            missing_workdir("/$(which python)", false),
            "OCI runtime exec failed: exec failed: unable to start container process: chdir to \
             cwd (\"/$(which python)\") set in config.json failed: no such file or directory: \
             unknown\r\n"
        );
    }
}
