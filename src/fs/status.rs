//! `git status --short` without git: compares a current [`Snapshot`] with the committed tree
//! (a baseline snapshot) the way upstream's repository at `/` would report it.
//!
//! Upstream commits the whole task tree at `/` with its `.gitignore` ([`IGNORED_NAMES`]) and the
//! bash reward parses `git status --short`. What we reproduce (checked against git 2.47 and
//! the statuses logged upstream with git 2.34):
//!
//! * Tracked = regular files and symlinks of the baseline whose path has no ignored component
//!   (git does not track directories, and the ignore patterns are unanchored).
//! * ` M path`: contents differ, the owner-executable bit differs (git records only 644/755;
//!   other mode bits and mtimes are invisible), a symlink target differs, or the file can no
//!   longer be read (git would error out there; "modified" is the sensible reading).
//! * ` D path`: missing, or replaced by a directory or a FIFO/socket. When a tracked file is
//!   replaced by a directory, git shows only ` D path` and hides the directory's contents.
//! * ` T path`: a file became a symlink or the reverse.
//! * `?? path`: an untracked file or symlink (symlinks are never followed, even to a
//!   directory). An untracked directory, i.e. one containing no tracked path, is collapsed to
//!   `?? dir/` when it holds at least one non-ignored file or symlink at any depth; otherwise
//!   (empty, only empty dirs, only ignored names) it is not shown at all. A directory that holds
//!   tracked paths is listed entry by entry. A tracked directory replaced by a file shows
//!   ` D dir/x` for each tracked path below it plus `?? dir`.
//! * Order: tracked changes by path, then untracked entries by displayed path (bytewise).
//! * Quoting (git's `quote_c_style` with core.quotePath=true and, in short format, quoting of
//!   paths containing a space): a path containing a space, `"`, `\`, a control character, DEL
//!   or any non-ASCII byte is printed inside double quotes; `\a \b \t \n \v \f \r \" \\` are
//!   escaped by name, other control bytes and every byte >= 0x80 as three octal digits, and the
//!   space stays a space. Upstream's logs show `"system/folder2/special text3.txt"` this way.
//!
//! Upstream then reads the text with `s.split()` taken pairwise ([`parse_status_like_upstream`]),
//! so quoted paths with spaces fall apart into misaligned pairs exactly as they did upstream.
//!
//! ```
//! use intercode::fs::{image::{Entry, TreeImage}, snapshot::Snapshot, status::*};
//! let mut base = TreeImage::empty();
//! base.insert("testbed/a.txt", Entry::file(b"a".to_vec(), 0o644, 0)).unwrap();
//! let mut now = base.clone();
//! now.insert("testbed/a.txt", Entry::file(b"b".to_vec(), 0o644, 0)).unwrap();
//! now.insert("testbed/new/x", Entry::file(b"x".to_vec(), 0o644, 0)).unwrap();
//! let st = git_status(&Snapshot::from_image(&base), &Snapshot::from_image(&now));
//! assert_eq!(render_short(&st), " M testbed/a.txt\n?? testbed/new/\n");
//! ```

use std::collections::{BTreeMap, BTreeSet, HashSet};
use std::fmt::Write as _;

use super::base_system::IGNORED_NAMES;
use super::snapshot::{Kind, SnapEntry, Snapshot};

/// The two-letter code of one `git status --short` line (index column, worktree column).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum StatusCode {
    Modified,
    Deleted,
    TypeChanged,
    Untracked,
}

impl StatusCode {
    /// The `XY` columns as git prints them (`" M"`, `" D"`, `" T"`, `"??"`).
    pub fn xy(self) -> &'static str {
        match self {
            StatusCode::Modified => " M",
            StatusCode::Deleted => " D",
            StatusCode::TypeChanged => " T",
            StatusCode::Untracked => "??",
        }
    }

    /// The status token upstream's `split()` sees (`"M"`, `"D"`, `"T"`, `"??"`).
    pub fn token(self) -> &'static str {
        self.xy().trim_start()
    }
}

/// One line of `git status --short`. `path` is unquoted; a collapsed untracked directory ends
/// with `/`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StatusEntry {
    pub path: String,
    pub code: StatusCode,
}

/// Whether upstream's `.gitignore` hides `path`: some component is one of [`IGNORED_NAMES`].
pub fn is_ignored(path: &str) -> bool {
    path.split('/').any(|c| IGNORED_NAMES.contains(&c))
}

/// What `git status --short` would print for `current`, given the committed `baseline`.
pub fn git_status(baseline: &Snapshot, current: &Snapshot) -> Vec<StatusEntry> {
    let tracked: BTreeMap<&str, &SnapEntry> = baseline
        .iter()
        .filter(|(p, e)| matches!(e.kind, Kind::File | Kind::Symlink) && !is_ignored(p))
        .collect();
    let mut tracked_dirs: HashSet<&str> = HashSet::from([""]);
    for path in tracked.keys() {
        for (i, _) in path.match_indices('/') {
            tracked_dirs.insert(&path[..i]);
        }
    }

    let mut out = Vec::new();
    for (&path, base) in &tracked {
        let code = match current.get(path) {
            None => Some(StatusCode::Deleted),
            Some(now) => match (base.kind, now.kind) {
                (_, Kind::Dir | Kind::Other) => Some(StatusCode::Deleted),
                (a, b) if a != b => Some(StatusCode::TypeChanged),
                (Kind::Symlink, _) => (base.target != now.target).then_some(StatusCode::Modified),
                _ => {
                    let exec_changed = (base.mode ^ now.mode) & 0o100 != 0;
                    let content_changed = now.md5.is_none() || base.md5 != now.md5;
                    (exec_changed || content_changed).then_some(StatusCode::Modified)
                }
            },
        };
        if let Some(code) = code {
            out.push(StatusEntry {
                path: path.to_string(),
                code,
            });
        }
    }

    let mut untracked = BTreeSet::new();
    'paths: for (path, now) in current.iter() {
        if !matches!(now.kind, Kind::File | Kind::Symlink)
            || tracked.contains_key(path)
            || is_ignored(path)
        {
            continue;
        }
        for (i, _) in path.match_indices('/') {
            let ancestor = &path[..i];
            if tracked.contains_key(ancestor) {
                // A tracked file replaced by a directory: git hides what is inside.
                continue 'paths;
            }
            if !tracked_dirs.contains(ancestor) {
                untracked.insert(format!("{ancestor}/"));
                continue 'paths;
            }
        }
        untracked.insert(path.to_string());
    }
    out.extend(untracked.into_iter().map(|path| StatusEntry {
        path,
        code: StatusCode::Untracked,
    }));
    out
}

/// Quotes a path the way `git status --short` prints it (see the module docs).
pub fn quote_path(path: &str) -> String {
    let needs = |b: u8| b <= b' ' || b == b'"' || b == b'\\' || b >= 0x7f;
    if !path.bytes().any(needs) {
        return path.to_string();
    }
    let mut out = String::with_capacity(path.len() + 8);
    out.push('"');
    for b in path.bytes() {
        match b {
            0x07 => out.push_str("\\a"),
            0x08 => out.push_str("\\b"),
            b'\t' => out.push_str("\\t"),
            b'\n' => out.push_str("\\n"),
            0x0b => out.push_str("\\v"),
            0x0c => out.push_str("\\f"),
            b'\r' => out.push_str("\\r"),
            b'"' => out.push_str("\\\""),
            b'\\' => out.push_str("\\\\"),
            b' ' => out.push(' '),
            b if !(b' '..0x7f).contains(&b) => {
                let _ = write!(out, "\\{b:03o}");
            }
            b => out.push(char::from(b)),
        }
    }
    out.push('"');
    out
}

/// The text of `git status --short` for these entries (one `XY path` line each).
pub fn render_short(entries: &[StatusEntry]) -> String {
    let mut out = String::new();
    for e in entries {
        let _ = writeln!(out, "{} {}", e.code.xy(), quote_path(&e.path));
    }
    out
}

/// Upstream's `parse_status`: `toks = s.split()`, then `(toks[i+1], toks[i])` for even `i`,
/// giving `(path, status)` pairs. Splitting follows Python's `str.split()` (Unicode whitespace
/// plus the ASCII separators U+001C..U+001F). Upstream crashes with `IndexError` on an odd
/// number of tokens; we drop the dangling last token instead.
pub fn parse_status_like_upstream(text: &str) -> Vec<(String, String)> {
    let is_py_space = |c: char| c.is_whitespace() || ('\u{1c}'..='\u{1f}').contains(&c);
    let tokens: Vec<&str> = text.split(is_py_space).filter(|t| !t.is_empty()).collect();
    tokens
        .chunks_exact(2)
        .map(|pair| (pair[1].to_string(), pair[0].to_string()))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fs::episode::EpisodeDir;
    use crate::fs::image::{Entry, TreeImage};
    use std::os::unix::fs::PermissionsExt;

    fn file(img: &mut TreeImage, path: &str, body: &str, mode: u32) {
        img.insert(path, Entry::file(body.as_bytes().to_vec(), mode, 1))
            .unwrap();
    }

    /// The scenario below was run with real git 2.47 (`git init`, a `.gitignore` with `bin`,
    /// `etc`, `usr`, `.dockerenv`, commit, then the same changes); `expected` is its output.
    #[test]
    fn matches_real_git_on_a_mixed_scenario() {
        let mut base = TreeImage::empty();
        for (p, body, mode) in [
            ("t/f1", "a", 0o644),
            ("t/d1/x", "b", 0o644),
            ("t/d2/y", "c", 0o644),
            ("t/d3/z", "h", 0o644),
            ("t/exe", "s", 0o644),
            ("t/mode", "m", 0o644),
            ("t/keep/k", "k", 0o644),
            ("t/tomod", "q", 0o644),
        ] {
            file(&mut base, p, body, mode);
        }
        base.insert("t/ln", Entry::symlink("f1", 1)).unwrap();

        let ep = EpisodeDir::new(&base).unwrap();
        let root = ep.path();
        let sh = |cmd: &str| {
            let ok = std::process::Command::new("sh")
                .arg("-c")
                .arg(cmd)
                .current_dir(root)
                .status()
                .unwrap()
                .success();
            assert!(ok, "{cmd}");
        };
        sh("rm t/f1 && mkdir t/f1 && echo z > t/f1/inner");
        sh("rm -r t/d1 && echo file > t/d1");
        sh("rm t/ln && echo notlink > t/ln");
        sh("chmod +x t/exe && chmod 600 t/mode && touch -d 2001-01-01 t/tomod");
        sh("echo changed > t/tomod.bak");
        sh("mkdir -p 'new dir/sub' && echo n > 'new dir/sub/f' && mkdir emptyd");
        sh("mkdir -p onlyempty/a/b && mkdir -p onlyign/bin && echo i > onlyign/bin/x");
        sh("mkdir -p t/keep/newsub && echo w > t/keep/newsub/w && echo u > t/keep/u");
        sh("ln -s /etc uplink && ln -s t ldir && mkdir -p t/bin && echo ig > t/bin/x");
        sh("echo de > .dockerenv && mkdir -p t/d2/e && rm t/d2/y && rm -r t/d3 && mkdir t/d3");

        let now = Snapshot::capture(ep.dir()).unwrap();
        let got = render_short(&git_status(&Snapshot::from_image(&base), &now));
        let expected = [
            " D t/d1/x",
            " D t/d2/y",
            " D t/d3/z",
            " M t/exe",
            " D t/f1",
            " T t/ln",
            "?? ldir",
            "?? \"new dir/\"",
            "?? t/d1",
            "?? t/keep/newsub/",
            "?? t/keep/u",
            "?? t/tomod.bak",
            "?? uplink",
            "",
        ]
        .join("\n");
        assert_eq!(got, expected);
        // Capturing only tracked names gives the same answer.
        let tracked_only = Snapshot::capture_tracked(ep.dir()).unwrap();
        assert_eq!(
            render_short(&git_status(&Snapshot::from_image(&base), &tracked_only)),
            expected
        );
    }

    #[test]
    fn unchanged_tree_is_clean_and_ignored_paths_never_show() {
        let mut base = TreeImage::empty();
        file(&mut base, "testbed/a.txt", "a", 0o644);
        file(&mut base, "etc/passwd", "root", 0o644);
        let mut now = base.clone();
        file(&mut now, "etc/passwd", "changed", 0o644);
        file(&mut now, "usr/bin/new", "x", 0o755);
        file(&mut now, "testbed/lib/x.so", "x", 0o644);
        file(&mut now, "testbed/sub/.dockerenv", "x", 0o644);
        // Mode bits other than u+x and mtimes are invisible to git.
        now.insert("testbed/a.txt", Entry::file(b"a".to_vec(), 0o600, 99))
            .unwrap();
        let st = git_status(&Snapshot::from_image(&base), &Snapshot::from_image(&now));
        assert!(st.is_empty(), "{st:?}");
    }

    #[test]
    fn type_changes_symlink_retargets_and_dir_to_file() {
        let mut base = TreeImage::empty();
        file(&mut base, "a", "a", 0o644);
        base.insert("l", Entry::symlink("a", 1)).unwrap();
        base.insert("m", Entry::symlink("a", 1)).unwrap();
        file(&mut base, "d/x", "x", 0o644);
        file(&mut base, "d/y", "y", 0o644);
        let mut now = TreeImage::empty();
        now.insert("a", Entry::symlink("l", 1)).unwrap();
        file(&mut now, "l", "a", 0o644);
        now.insert("m", Entry::symlink("b", 1)).unwrap();
        file(&mut now, "d", "now a file", 0o644);
        let st = git_status(&Snapshot::from_image(&base), &Snapshot::from_image(&now));
        assert_eq!(
            render_short(&st),
            " T a\n D d/x\n D d/y\n T l\n M m\n?? d\n"
        );
    }

    #[test]
    fn unreadable_tracked_file_counts_as_modified() {
        let mut base = TreeImage::empty();
        file(&mut base, "a", "a", 0o644);
        let now: Snapshot = Snapshot::from_image(&base)
            .iter()
            .map(|(p, e)| {
                (
                    p.to_string(),
                    SnapEntry {
                        md5: None,
                        ..e.clone()
                    },
                )
            })
            .collect();
        let st = git_status(&Snapshot::from_image(&base), &now);
        assert_eq!(
            st,
            [StatusEntry {
                path: "a".into(),
                code: StatusCode::Modified
            }]
        );
    }

    #[test]
    fn quoting_matches_git() {
        // Expected strings were printed by git 2.47 for files with these names.
        assert_eq!(quote_path("plain/path.txt"), "plain/path.txt");
        assert_eq!(quote_path("d/a b.txt"), "\"d/a b.txt\"");
        assert_eq!(quote_path("back\\slash"), "\"back\\\\slash\"");
        assert_eq!(quote_path("c\tt"), "\"c\\tt\"");
        assert_eq!(quote_path("q\"x"), "\"q\\\"x\"");
        assert_eq!(quote_path("é.txt"), "\"\\303\\251.txt\"");
        assert_eq!(quote_path("Icon\r"), "\"Icon\\r\"");
        assert_eq!(quote_path("x\u{1}\u{7f}"), "\"x\\001\\177\"");
        assert_eq!(quote_path("new dir/"), "\"new dir/\"");
    }

    #[test]
    fn upstream_parser_pairs_tokens_and_misaligns_spaces() {
        let text = " M a.txt\n?? \"special text3.txt\"\n D b\n";
        assert_eq!(
            parse_status_like_upstream(text),
            [
                ("a.txt".to_string(), "M".to_string()),
                ("\"special".to_string(), "??".to_string()),
                ("D".to_string(), "text3.txt\"".to_string()),
            ]
        );
        // Odd token count: upstream raises IndexError; we drop the dangling token.
        assert_eq!(
            parse_status_like_upstream("?? \"a b\"\n"),
            [("\"a".to_string(), "??".to_string())]
        );
        assert!(parse_status_like_upstream("").is_empty());
        assert!(parse_status_like_upstream("\u{1c}\u{a0}\n").is_empty());
    }

    #[test]
    fn permissions_on_real_files_are_read_back() {
        // A chmod +x through the real filesystem is seen as M.
        let mut base = TreeImage::empty();
        file(&mut base, "s.sh", "echo", 0o644);
        let ep = EpisodeDir::new(&base).unwrap();
        std::fs::set_permissions(
            ep.path().join("s.sh"),
            std::fs::Permissions::from_mode(0o744),
        )
        .unwrap();
        let st = git_status(
            &Snapshot::from_image(&base),
            &Snapshot::capture(ep.dir()).unwrap(),
        );
        assert_eq!(render_short(&st), " M s.sh\n");
    }
}
