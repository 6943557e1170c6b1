//! `cp --parents` as GNU 8.32 does it. Each source goes to the target directory under its
//! whole name, leading slashes dropped (`cp --parents /etc/hostname y` makes
//! `y/etc/hostname`), after the directories on the way are made. uutils joins the target with
//! the source as a path, so an absolute source replaced the target and every copy met itself
//! ("'/etc/hostname' and '/etc/hostname' are the same file"): nothing was copied.
//!
//! Here the directories are made as GNU makes them (one `SRC -> DEST` line each with `-v`,
//! the source directory's mode, "failed to get attributes of" a missing one), then uutils
//! copies each source to its destination named outright (`-T`), with the rest of the options.

use crate::cp_modes::{Plan, set_modes, walk};
use std::ffi::OsString;
use std::io::Write;
use std::path::Path;

/// Copies every source of `plan` (whose target is a directory: checked before) and returns
/// the exit status.
pub fn run(plan: &Plan) -> i32 {
    let (sources, dir): (&[String], &str) = match &plan.target_dir {
        Some(dir) => (&plan.operands[..], dir),
        None => match plan.operands.split_last() {
            Some((last, sources)) => (sources, last),
            None => return uu_cp::uumain(["cp".into()].into_iter()),
        },
    };
    let mut status = 0;
    for source in sources {
        status = status.max(copy_one(plan, source, dir));
    }
    status
}

/// GNU's `file_name_concat`: one `/` between the two.
fn concat(dir: &str, name: &str) -> String {
    if dir.ends_with('/') {
        format!("{dir}{name}")
    } else {
        format!("{dir}/{name}")
    }
}

fn copy_one(plan: &Plan, source: &str, dir: &str) -> i32 {
    let relative = source.trim_start_matches('/');
    let dest = concat(dir, relative);
    if !make_parents(plan, source, relative, dir) {
        return 1;
    }
    let mut args: Vec<OsString> = vec!["cp".into()];
    args.extend(plan.options.iter().map(OsString::from));
    // The last `--no-preserve` wins: modes are set afterwards (WASI cannot set them).
    args.extend(["--no-preserve=mode", "-T", "--"].map(OsString::from));
    args.push(source.into());
    args.push(dest.as_str().into());
    let mut targets = Vec::new();
    walk(
        Path::new(source),
        Path::new(&dest),
        plan.recursive,
        &mut targets,
    );
    let status = uu_cp::uumain(args.into_iter());
    set_modes(&targets, plan.preserve_mode);
    status
}

/// Makes the directories of `relative` (the source's name less its leading slashes) below
/// `dir` that do not exist yet, each with its source directory's mode. `false` after GNU's
/// message when a source directory cannot be examined.
fn make_parents(plan: &Plan, source: &str, relative: &str, dir: &str) -> bool {
    let leading = &source[..source.len() - relative.len()];
    let components: Vec<&str> = relative.split('/').filter(|c| !c.is_empty()).collect();
    let Some((_, parents)) = components.split_last() else {
        return true;
    };
    let mut src = leading.to_string();
    let mut dst = dir.to_string();
    for component in parents {
        src = if src.is_empty() || src.ends_with('/') {
            format!("{src}{component}")
        } else {
            format!("{src}/{component}")
        };
        dst = concat(&dst, component);
        let st = match hostcalls::stat(&src, true) {
            Ok(st) => st,
            Err(e) => {
                let _ = writeln!(
                    std::io::stderr(),
                    "cp: failed to get attributes of {}: {}",
                    applets::shell_quote(&src),
                    applets::strerror(&e)
                );
                return false;
            }
        };
        if hostcalls::stat(&dst, true).is_ok() {
            continue;
        }
        if let Err(e) = std::fs::create_dir(&dst) {
            let _ = writeln!(
                std::io::stderr(),
                "cp: cannot make directory {}: {}",
                applets::shell_quote(&dst),
                applets::strerror(&e)
            );
            return false;
        }
        let mode = if plan.preserve_mode {
            st.mode & 0o7777
        } else {
            st.mode & 0o777 & !applets::UMASK
        };
        let _ = hostcalls::chmod(&dst, mode);
        if plan.verbose {
            let _ = writeln!(std::io::stdout(), "{src} -> {dst}");
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use super::concat;

    #[test]
    fn names_as_gnu_joins_them() {
        assert_eq!(concat(".", "testbed/hello.php"), "./testbed/hello.php");
        assert_eq!(concat("./", "testbed"), "./testbed");
        assert_eq!(concat("y", "etc/hostname"), "y/etc/hostname");
    }
}
