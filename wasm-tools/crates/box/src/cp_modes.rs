//! `cp` with GNU's permission bits. uutils' cp sets modes through `std::fs::set_permissions`,
//! which WASI preview 1 does not have: `cp -p` and `cp -a` failed with "Function not
//! implemented", and a plain `cp` gave every new file the host's default mode (a script lost its
//! `x` bits). So uutils copies with mode preservation turned off (`--no-preserve=mode`, the last
//! flag wins there as in GNU) and this module then sets the modes GNU would have: the source's
//! mode when it is preserved (`-p`, `-a`, `--preserve=mode`), else, on files and directories the
//! copy created, the source's mode less the umask. Which destination each source went to is
//! worked out before the copy, from the operands as GNU reads them.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

/// Entries of a recursive copy whose modes are set; beyond this the rest keep the default.
const MAX_ENTRIES: usize = 100_000;

/// What of the command line decides where sources go and which modes they get.
#[derive(Debug, Default, PartialEq)]
pub(crate) struct Plan {
    pub(crate) recursive: bool,
    pub(crate) preserve_mode: bool,
    pub(crate) target_dir: Option<String>,
    pub(crate) no_target_dir: bool,
    pub(crate) parents: bool,
    /// `-n`/`--no-clobber`: existing destinations are left alone, silently.
    pub(crate) no_clobber: bool,
    /// `-v`/`--verbose`.
    pub(crate) verbose: bool,
    pub(crate) operands: Vec<String>,
    /// The option words, less `--parents` and the target directory, in order (values
    /// included): what a copy of one source with `--parents` worked out runs with.
    pub(crate) options: Vec<String>,
}

/// Long options that take a value in the next argument when written without `=`.
const LONG_WITH_VALUE: &[&str] = &[
    "--target-directory",
    "--suffix",
    "--no-preserve",
    "--sparse",
];

/// Reads the options GNU cp's placement and modes depend on (`None` for anything this cannot
/// read: uutils then reports it, and no modes are touched).
fn plan(args: &[String]) -> Option<Plan> {
    let mut p = Plan::default();
    let mut it = args.iter().skip(1);
    let mut only_operands = false;
    // `--preserve` and `--no-preserve` apply in order, the last one deciding.
    let attr_list = |list: &str| list.split(',').any(|a| a == "mode" || a == "all");
    while let Some(arg) = it.next() {
        if only_operands || arg == "-" || !arg.starts_with('-') {
            p.operands.push(arg.clone());
            continue;
        }
        if arg == "--" {
            only_operands = true;
            continue;
        }
        if let Some(long) = arg.strip_prefix("--") {
            let inline = long.split_once('=').map(|(_, v)| v.to_string());
            let value = match inline {
                Some(v) => Some(v),
                None if LONG_WITH_VALUE.contains(&arg.as_str()) => it.next().cloned(),
                None => None,
            };
            let name = long.split_once('=').map_or(long, |(name, _)| name);
            if !matches!(name, "parents" | "target-directory") {
                p.options.push(arg.clone());
                if let (None, Some(v)) = (long.split_once('='), &value) {
                    p.options.push(v.clone());
                }
            }
            match name {
                "recursive" => p.recursive = true,
                "archive" => {
                    p.recursive = true;
                    p.preserve_mode = true;
                }
                "preserve" => p.preserve_mode |= value.as_deref().is_none_or(attr_list),
                "no-preserve" if value.as_deref().is_some_and(attr_list) => {
                    p.preserve_mode = false;
                }
                "target-directory" => p.target_dir = Some(value?),
                "no-target-directory" => p.no_target_dir = true,
                "parents" => p.parents = true,
                "no-clobber" => p.no_clobber = true,
                "verbose" => p.verbose = true,
                _ => {}
            }
            continue;
        }
        // A cluster of short options; `-S` and `-t` take the rest or the next argument.
        let cluster = &arg[1..];
        let kept_until = cluster.find('t').unwrap_or(cluster.len());
        if kept_until > 0 {
            p.options.push(format!("-{}", &cluster[..kept_until]));
        }
        for (i, c) in cluster.char_indices() {
            match c {
                'r' | 'R' => p.recursive = true,
                'a' => {
                    p.recursive = true;
                    p.preserve_mode = true;
                }
                'p' => p.preserve_mode = true,
                'n' => p.no_clobber = true,
                'v' => p.verbose = true,
                'T' => p.no_target_dir = true,
                't' | 'S' => {
                    let rest = &cluster[i + 1..];
                    let value = if rest.is_empty() {
                        it.next()?.clone()
                    } else {
                        rest.to_string()
                    };
                    if c == 't' {
                        p.target_dir = Some(value);
                    } else if rest.is_empty() {
                        // `-S` with its suffix in the next word.
                        p.options.push(value);
                    }
                    break;
                }
                _ => {}
            }
        }
    }
    Some(p)
}

/// One source entry and where the copy puts it.
#[derive(Debug, PartialEq)]
pub(crate) struct Pair {
    source: PathBuf,
    dest: PathBuf,
    /// The destination existed before the copy (its mode then stays unless preserved).
    existed: bool,
}

fn lstat(path: &Path) -> Option<hostcalls::Stat> {
    hostcalls::stat(&path.to_string_lossy(), false).ok()
}

/// Where each source goes, as GNU cp decides: into a directory (`-t`, several sources, or an
/// existing directory as the last operand) under its base name (its whole name with
/// `--parents`), else to the destination itself.
fn pairs(p: &Plan) -> Vec<Pair> {
    let (sources, dir, into_dir): (&[String], &str, bool) = match &p.target_dir {
        Some(dir) => (&p.operands[..], dir.as_str(), true),
        None => {
            let Some((last, sources)) = p.operands.split_last() else {
                return Vec::new();
            };
            let into_dir =
                !p.no_target_dir && hostcalls::stat(last, true).is_ok_and(|st| st.is_dir());
            if sources.is_empty() || (!into_dir && sources.len() > 1) {
                return Vec::new();
            }
            (sources, last.as_str(), into_dir)
        }
    };
    let mut out = Vec::new();
    for source in sources {
        let dest = if !into_dir {
            PathBuf::from(dir)
        } else if p.parents {
            Path::new(dir).join(source.trim_start_matches('/'))
        } else {
            let base = Path::new(source.trim_end_matches('/'))
                .file_name()
                .map(PathBuf::from)
                .unwrap_or_default();
            Path::new(dir).join(base)
        };
        walk(Path::new(source), &dest, p.recursive, &mut out);
    }
    out
}

/// `source` and, when copying recursively, everything beneath it (symbolic links not followed).
pub(crate) fn walk(source: &Path, dest: &Path, recursive: bool, out: &mut Vec<Pair>) {
    if out.len() >= MAX_ENTRIES {
        return;
    }
    let Some(st) = lstat(source) else { return };
    out.push(Pair {
        source: source.to_path_buf(),
        dest: dest.to_path_buf(),
        existed: lstat(dest).is_some(),
    });
    if !(recursive && st.is_dir()) {
        return;
    }
    let Ok(entries) = std::fs::read_dir(source) else {
        return;
    };
    let mut names: Vec<_> = entries.flatten().map(|e| e.file_name()).collect();
    names.sort();
    for name in names {
        walk(&source.join(&name), &dest.join(&name), true, out);
    }
}

/// The mode GNU leaves on `pair.dest`, if it sets one.
pub(crate) fn wanted_mode(pair: &Pair, preserve: bool) -> Option<u32> {
    let source = lstat(&pair.source)?;
    if source.is_symlink() || lstat(&pair.dest)?.is_symlink() {
        return None;
    }
    if preserve {
        Some(source.mode & 0o7777)
    } else if !pair.existed {
        Some(source.mode & 0o777 & !applets::UMASK)
    } else {
        None
    }
}

/// `--preserve=LIST` and `--no-preserve=LIST` without `ownership`, which uutils knows only on
/// unix targets (every file is root's in the sandbox, so there is nothing to preserve); a list
/// left empty drops the option.
fn without_ownership(args: Vec<OsString>) -> Vec<OsString> {
    let mut out = Vec::with_capacity(args.len());
    let mut only_operands = false;
    for arg in args {
        let text = arg.to_string_lossy();
        only_operands |= text == "--";
        let split = text
            .split_once('=')
            .filter(|(name, _)| !only_operands && matches!(*name, "--preserve" | "--no-preserve"));
        let Some((name, list)) = split else {
            out.push(arg);
            continue;
        };
        let kept: Vec<&str> = list.split(',').filter(|a| *a != "ownership").collect();
        if !kept.is_empty() {
            out.push(OsString::from(format!("{name}={}", kept.join(","))));
        }
    }
    out
}

pub fn main(args: Vec<OsString>) -> i32 {
    let args = without_ownership(args);
    if let Some(status) = crate::gnu_usage::check("cp", &args) {
        return status;
    }
    let strings: Vec<String> = args
        .iter()
        .map(|a| a.to_string_lossy().into_owned())
        .collect();
    let plan = plan(&strings);
    // Several sources need a directory to go into; GNU 8.32 says so in these words (uutils
    // adds a colon after "target").
    if let Some(p) = &plan
        && p.target_dir.is_none()
        && !p.no_target_dir
        && let [_, _, .., last] = p.operands.as_slice()
        && !hostcalls::stat(last, true).is_ok_and(|st| st.is_dir())
    {
        let _ = std::io::Write::write_fmt(
            &mut std::io::stderr(),
            format_args!(
                "cp: target {} is not a directory\n",
                applets::shell_quote(last)
            ),
        );
        return 1;
    }
    if let Some(p) = &plan
        && p.target_dir.is_none()
        && !p.no_target_dir
        && !p.parents
        && let Some(status) = crate::missing_destination::check("cp", &p.operands)
    {
        return status;
    }
    // GNU answers this one as a usage error; uutils leaves out the hint.
    if let Some(p) = &plan
        && p.parents
        && p.target_dir.is_none()
        && let [_, .., last] = p.operands.as_slice()
        && !hostcalls::stat(last, true).is_ok_and(|st| st.is_dir())
    {
        let _ = std::io::Write::write_fmt(
            &mut std::io::stderr(),
            format_args!(
                "cp: with --parents, the destination must be a directory\n\
                 Try 'cp --help' for more information.\n"
            ),
        );
        return 1;
    }
    if let Some(p) = &plan
        && p.parents
    {
        return crate::cp_parents::run(p);
    }
    let targets = plan.as_ref().map(pairs).unwrap_or_default();
    // With `-n`, GNU 8.32 skips every destination that exists without a word, the source
    // itself included (`find … -exec cp -n {} DIR \;` meeting DIR's own files); uutils calls
    // that "the same file", an error.
    if plan.as_ref().is_some_and(|p| p.no_clobber)
        && !targets.is_empty()
        && targets.iter().all(|t| t.existed)
    {
        return 0;
    }
    // The last `--preserve`/`--no-preserve` wins in uutils as in GNU: this one, placed after
    // every option (before `--`, if any), turns off the mode setting WASI cannot do.
    let mut args = args;
    let at = args.iter().position(|a| a == "--").unwrap_or(args.len());
    args.insert(at, OsString::from("--no-preserve=mode"));
    let status = uu_cp::uumain(args.into_iter());
    if let Some(plan) = plan {
        set_modes(&targets, plan.preserve_mode);
    }
    status
}

/// Gives each copied entry the mode GNU would have (uutils copied without modes).
pub(crate) fn set_modes(targets: &[Pair], preserve: bool) {
    for pair in targets {
        if let Some(mode) = wanted_mode(pair, preserve) {
            let dest = pair.dest.to_string_lossy();
            if hostcalls::stat(&dest, false).is_ok_and(|st| st.mode & 0o7777 != mode) {
                let _ = hostcalls::chmod(&dest, mode);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(a: &[&str]) -> Vec<String> {
        a.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn ownership_is_dropped_from_preserve_lists() {
        let os = |a: &[&str]| a.iter().map(OsString::from).collect::<Vec<_>>();
        assert_eq!(
            without_ownership(os(&[
                "cp",
                "--preserve=mode,ownership,timestamps",
                "a",
                "b"
            ])),
            os(&["cp", "--preserve=mode,timestamps", "a", "b"])
        );
        assert_eq!(
            without_ownership(os(&[
                "cp",
                "--preserve=ownership",
                "a",
                "--",
                "--preserve=ownership"
            ])),
            os(&["cp", "a", "--", "--preserve=ownership"])
        );
    }

    #[test]
    fn options_that_decide_placement_and_modes() {
        let p = plan(&args(&["cp", "-rp", "a", "b"])).unwrap();
        assert!(p.recursive && p.preserve_mode);
        assert_eq!(p.operands, ["a", "b"]);
        let p = plan(&args(&["cp", "-a", "--no-preserve=mode", "a", "b"])).unwrap();
        assert!(p.recursive && !p.preserve_mode);
        let p = plan(&args(&["cp", "--preserve=timestamps", "a", "b"])).unwrap();
        assert!(!p.preserve_mode);
        let p = plan(&args(&["cp", "--preserve", "-tdir", "a", "b"])).unwrap();
        assert!(p.preserve_mode);
        assert_eq!(p.target_dir.as_deref(), Some("dir"));
        assert_eq!(p.operands, ["a", "b"]);
        let p = plan(&args(&["cp", "-S", ".bak", "--", "-x", "y"])).unwrap();
        assert_eq!(p.operands, ["-x", "y"]);
        let p = plan(&args(&[
            "cp",
            "--target-directory",
            "d",
            "--parents",
            "a/b",
        ]))
        .unwrap();
        assert!(p.parents);
        assert_eq!(p.target_dir.as_deref(), Some("d"));
        assert_eq!(p.operands, ["a/b"]);
    }

    #[test]
    fn a_copy_keeps_gnu_modes() {
        use std::os::unix::fs::PermissionsExt;
        let d = tempfile::tempdir().unwrap();
        let src = d.path().join("src");
        std::fs::create_dir(&src).unwrap();
        std::fs::write(src.join("run.sh"), "echo").unwrap();
        std::fs::set_permissions(src.join("run.sh"), std::fs::Permissions::from_mode(0o750))
            .unwrap();
        std::fs::set_permissions(&src, std::fs::Permissions::from_mode(0o700)).unwrap();
        let dest = d.path().join("dest");
        let plan = Plan {
            recursive: true,
            operands: vec![
                src.to_string_lossy().into_owned(),
                dest.to_string_lossy().into_owned(),
            ],
            ..Plan::default()
        };
        let found = pairs(&plan);
        assert_eq!(found.len(), 2);
        assert_eq!(found[1].dest, dest.join("run.sh"));
        assert!(!found[1].existed);
        // The copy, with the host's default modes.
        std::fs::create_dir(&dest).unwrap();
        std::fs::write(dest.join("run.sh"), "echo").unwrap();
        assert_eq!(wanted_mode(&found[0], false), Some(0o700));
        assert_eq!(wanted_mode(&found[1], false), Some(0o750));
        assert_eq!(wanted_mode(&found[1], true), Some(0o750));
        // Into an existing directory: under the source's base name.
        let found = pairs(&plan);
        assert_eq!(found[1].dest, dest.join("src/run.sh"));
    }
}
