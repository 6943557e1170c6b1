//! Pathname expansion and shell pattern matching. Patterns are translated to regular
//! expressions by brush-parser; directories are read through WASI (the sandbox's `/`).
//! Results are sorted in byte order, as bash does in the C locale upstream's container used.

use regex::Regex;

/// A whole-string matcher for a shell pattern (`case`, `[[ == ]]`, `${v#p}`).
pub fn pattern_regex(pattern: &str, icase: bool) -> Option<Regex> {
    let body = brush_parser::pattern::pattern_to_regex_str(pattern, true).ok()?;
    let flags = if icase { "(?is)" } else { "(?s)" };
    Regex::new(&format!("{flags}^(?:{body})$")).ok()
}

/// A matcher for a pattern anywhere in a string (`${v/p/r}`), leftmost-longest like bash.
pub fn pattern_regex_unanchored(pattern: &str) -> Option<Regex> {
    let body = brush_parser::pattern::pattern_to_regex_str(pattern, true).ok()?;
    Regex::new(&format!("(?s){body}")).ok()
}

pub fn matches(pattern: &str, text: &str) -> bool {
    pattern_regex(pattern, false).is_some_and(|re| re.is_match(text))
}

fn has_glob_chars(component: &str) -> bool {
    let mut escaped = false;
    for c in component.chars() {
        if escaped {
            escaped = false;
            continue;
        }
        match c {
            '\\' => escaped = true,
            '*' | '?' | '[' => return true,
            _ => {}
        }
    }
    false
}

fn unescape(component: &str) -> String {
    let mut out = String::new();
    let mut chars = component.chars();
    while let Some(c) = chars.next() {
        if c == '\\' {
            if let Some(n) = chars.next() {
                out.push(n);
            }
        } else {
            out.push(c);
        }
    }
    out
}

/// The `shopt` options that change pathname expansion.
#[derive(Debug, Clone, Copy, Default)]
pub struct GlobOptions {
    /// Names starting with `.` match without a leading `.` in the pattern.
    pub dotglob: bool,
    /// A component that is exactly `**` matches any depth of directories (bash 5.1: it does
    /// not descend into symbolic links to directories, though it lists them).
    pub globstar: bool,
    pub nocaseglob: bool,
}

/// Expands a glob pattern (quoted characters already backslash-escaped) relative to `cwd`.
pub fn expand(pattern: &str, cwd: &str, options: GlobOptions) -> Vec<String> {
    let absolute = pattern.starts_with('/');
    let components: Vec<&str> = pattern.split('/').filter(|c| !c.is_empty()).collect();
    let trailing_slash = pattern.ends_with('/');
    // Each candidate: (display path as the user wrote it, absolute path on the sandbox).
    let mut candidates: Vec<(String, String)> = vec![if absolute {
        (String::from("/"), String::from("/"))
    } else {
        (String::new(), cwd.to_string())
    }];
    let mut recursed = false;
    for (i, comp) in components.iter().enumerate() {
        let last = i + 1 == components.len();
        let mut next = Vec::new();
        if options.globstar && *comp == "**" {
            recursed = true;
            for (shown, real) in &candidates {
                if !is_dir(real) {
                    continue;
                }
                // Zero directories: the directory itself (named with its slash when `**`
                // ends the pattern, and not at all for the working directory).
                if !last || trailing_slash {
                    next.push((shown.clone(), real.clone()));
                } else if !shown.is_empty() {
                    next.push((format!("{}/", shown.trim_end_matches('/')), real.clone()));
                }
                descend(
                    shown,
                    real,
                    options.dotglob,
                    last && !trailing_slash,
                    &mut next,
                );
            }
        } else if has_glob_chars(comp) {
            let Some(re) = pattern_regex(comp, options.nocaseglob) else {
                return vec![];
            };
            let allow_hidden = options.dotglob || comp.starts_with('.') || comp.starts_with("\\.");
            for (shown, real) in &candidates {
                let Ok(rd) = std::fs::read_dir(real) else {
                    continue;
                };
                // bash 5.1 (upstream's; 5.2 added `globskipdots`) lets a pattern that starts
                // with a dot match `.` and `..` too: `rm -rf dir/.*` names them.
                let dots = comp.starts_with('.') || comp.starts_with("\\.");
                let mut names: Vec<String> = rd
                    .filter_map(|e| e.ok())
                    .map(|e| e.file_name().to_string_lossy().into_owned())
                    .chain(
                        dots.then(|| [".".to_string(), "..".to_string()])
                            .into_iter()
                            .flatten(),
                    )
                    .filter(|n| allow_hidden || !n.starts_with('.'))
                    .filter(|n| re.is_match(n))
                    .collect();
                names.sort();
                for n in names {
                    let real_child = join(real, &n);
                    if (!last || trailing_slash) && !is_dir(&real_child) {
                        continue;
                    }
                    next.push((join_shown(shown, &n), real_child));
                }
            }
        } else {
            let lit = unescape(comp);
            for (shown, real) in &candidates {
                let real_child = join(real, &lit);
                if std::fs::symlink_metadata(&real_child).is_ok() {
                    next.push((join_shown(shown, &lit), real_child));
                }
            }
        }
        candidates = next;
        if candidates.is_empty() {
            return vec![];
        }
    }
    let mut shown: Vec<String> = candidates
        .into_iter()
        .map(|(shown, _)| {
            if trailing_slash {
                format!("{shown}/")
            } else {
                shown
            }
        })
        .collect();
    // bash sorts what `**` found as whole paths (`g/b.sh` before `g/b/c.sh`).
    if recursed {
        shown.sort();
        shown.dedup();
    }
    shown
}

/// Everything beneath `real` for `**`: every entry (`everything`) or directories only; hidden
/// names only with `dotglob`; symbolic links to directories listed, not entered.
fn descend(
    shown: &str,
    real: &str,
    dotglob: bool,
    everything: bool,
    out: &mut Vec<(String, String)>,
) {
    let Ok(rd) = std::fs::read_dir(real) else {
        return;
    };
    let mut names: Vec<String> = rd
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| dotglob || !n.starts_with('.'))
        .collect();
    names.sort();
    for name in names {
        let real_child = join(real, &name);
        let shown_child = join_shown(shown, &name);
        let entered = std::fs::symlink_metadata(&real_child).is_ok_and(|m| m.is_dir());
        if everything || is_dir(&real_child) {
            out.push((shown_child.clone(), real_child.clone()));
        }
        if entered {
            descend(&shown_child, &real_child, dotglob, everything, out);
        }
    }
}

fn join(dir: &str, name: &str) -> String {
    if dir.ends_with('/') {
        format!("{dir}{name}")
    } else {
        format!("{dir}/{name}")
    }
}

fn join_shown(shown: &str, name: &str) -> String {
    if shown.is_empty() {
        name.to_string()
    } else {
        join(shown, name)
    }
}

fn is_dir(path: &str) -> bool {
    std::fs::metadata(path).is_ok_and(|m| m.is_dir())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn patterns() {
        assert!(matches("*.txt", "a.txt"));
        assert!(!matches("*.txt", "a.txt.bak"));
        assert!(matches("text[2-4]", "text3"));
        assert!(matches("foo??", "foo12"));
        assert!(matches("\\*", "*"));
        assert!(!matches("\\*", "x"));
    }

    #[test]
    fn expands_relative_to_cwd() {
        let dir = std::env::temp_dir().join(format!("glob-test-{}", std::process::id()));
        let _ = std::fs::create_dir_all(dir.join("sub"));
        for f in ["b.txt", "a.txt", ".h.txt", "c.md"] {
            std::fs::write(dir.join(f), "").unwrap();
        }
        let cwd = dir.to_string_lossy().into_owned();
        let plain = GlobOptions::default();
        assert_eq!(expand("*.txt", &cwd, plain), ["a.txt", "b.txt"]);
        assert_eq!(expand("*/", &cwd, plain), ["sub/"]);
        // bash 5.1: a leading dot matches `.` and `..` as well; `*` never does.
        assert_eq!(expand(".*", &cwd, plain), [".", "..", ".h.txt"]);
        let dotglob = GlobOptions {
            dotglob: true,
            ..plain
        };
        assert_eq!(
            expand("*", &cwd, dotglob),
            [".h.txt", "a.txt", "b.txt", "c.md", "sub"]
        );
        let abs = expand(&format!("{cwd}/*.md"), "/", plain);
        assert_eq!(abs, [format!("{cwd}/c.md")]);
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// As bash 5.1 expands them (`shopt -s globstar`) on the same tree.
    #[test]
    fn globstar_matches_any_depth() {
        let dir = std::env::temp_dir().join(format!("globstar-test-{}", std::process::id()));
        let g = dir.join("g");
        let _ = std::fs::create_dir_all(g.join("b"));
        let _ = std::fs::create_dir_all(g.join(".h"));
        for f in ["b.sh", "b/c.sh", "a.sh", ".h/x.sh", "b/.y.sh"] {
            std::fs::write(g.join(f), "").unwrap();
        }
        let cwd = dir.to_string_lossy().into_owned();
        let on = GlobOptions {
            globstar: true,
            ..GlobOptions::default()
        };
        assert_eq!(
            expand("g/**/*.sh", &cwd, on),
            ["g/a.sh", "g/b.sh", "g/b/c.sh"]
        );
        assert_eq!(
            expand("g/**", &cwd, on),
            ["g/", "g/a.sh", "g/b", "g/b.sh", "g/b/c.sh"]
        );
        assert_eq!(expand("g/**/", &cwd, on), ["g/", "g/b/"]);
        assert!(expand("x/**", &cwd, on).is_empty());
        // Without globstar, `**` is `*`.
        assert_eq!(
            expand("g/**/*.sh", &cwd, GlobOptions::default()),
            ["g/b/c.sh"]
        );
        let _ = std::fs::remove_dir_all(&dir);
    }
}
