//! `cat`: uutils' cat, plus GNU cat's refusal to copy the file it writes to.
//!
//! GNU cat compares each input's device and inode with those of its standard output; when
//! they match, the output is a regular file and the input has data left to read, it prints
//! `cat: FILE: input file is output file`, skips that input and ends with status 1. Without
//! the check, `find /dir -name '*.txt' -exec cat {} \; > /dir/all.txt` copies `all.txt` into
//! itself until the disk limit stops it (one of upstream's nl2bash golds does exactly that).
//!
//! The common case costs one `fstat` of stdout: only when an operand is the output file
//! itself are the other operands run in child `cat` processes, in order, around it.

use std::ffi::OsString;
use std::io::Write;

/// The operand positions of a cat command line: GNU permutes, so any non-option word is a
/// file, `-` is stdin, and everything after `--` is a file.
fn operands(args: &[OsString]) -> Vec<usize> {
    let mut out = Vec::new();
    let mut only_files = false;
    for (i, a) in args.iter().enumerate().skip(1) {
        let s = a.to_string_lossy();
        if !only_files && s == "--" {
            only_files = true;
        } else if only_files || s == "-" || !s.starts_with('-') {
            out.push(i);
        }
    }
    out
}

fn same_file(a: &hostcalls::Stat, b: &hostcalls::Stat) -> bool {
    a.dev == b.dev && a.ino == b.ino
}

fn stat_operand(arg: &OsString) -> Option<hostcalls::Stat> {
    let s = arg.to_string_lossy();
    if s == "-" {
        hostcalls::fstat(hostcalls::STDIN).ok()
    } else {
        hostcalls::stat(&s, true).ok()
    }
}

/// When no operand can be opened, GNU's report of each (`cat: {}: No such file or directory`,
/// names quoted as gnulib's `quotef`, where uutils quotes `{}` too) and status 1. With some
/// input to copy, uutils reports as it goes, in order with the output.
fn none_opens(args: &[OsString]) -> Option<i32> {
    let at = operands(args);
    if at.is_empty() {
        return None;
    }
    let mut reports = Vec::new();
    for &i in &at {
        let name = args[i].to_str()?;
        if name == "-" {
            return None;
        }
        match std::fs::File::open(name) {
            Ok(_) => return None,
            Err(e) => reports.push(format!(
                "cat: {}: {}",
                applets::quote_name(name),
                applets::strerror(&e)
            )),
        }
    }
    let mut stderr = std::io::stderr();
    for report in reports {
        let _ = writeln!(stderr, "{report}");
    }
    Some(1)
}

pub fn main(args: Vec<OsString>) -> i32 {
    if let Some(status) = crate::gnu_usage::check("cat", &args) {
        return status;
    }
    if let Some(status) = none_opens(&args) {
        return status;
    }
    let Some(out) = hostcalls::fstat(hostcalls::STDOUT)
        .ok()
        .filter(hostcalls::Stat::is_file)
    else {
        return uu_cat::uumain(args.into_iter());
    };
    let operand_at = operands(&args);
    let is_output: Vec<bool> = operand_at
        .iter()
        .map(|&i| stat_operand(&args[i]).is_some_and(|st| same_file(&st, &out)))
        .collect();
    if !is_output.contains(&true) {
        return uu_cat::uumain(args.into_iter());
    }
    let options: Vec<String> = args
        .iter()
        .enumerate()
        .skip(1)
        .filter(|(i, _)| !operand_at.contains(i))
        .map(|(_, a)| a.to_string_lossy().into_owned())
        .filter(|a| a != "--")
        .collect();
    let mut status = 0;
    let mut group: Vec<String> = Vec::new();
    let flush = |group: &mut Vec<String>, status: &mut i32| {
        if group.is_empty() {
            return;
        }
        let mut argv = vec!["cat".to_string()];
        argv.extend(options.iter().cloned());
        argv.push("--".into());
        argv.append(group);
        let code = run_child(argv);
        *status = (*status).max(code);
    };
    for (k, &i) in operand_at.iter().enumerate() {
        let name = args[i].to_string_lossy().into_owned();
        if !is_output[k] {
            group.push(name);
            continue;
        }
        flush(&mut group, &mut status);
        // An empty output file has nothing to copy: GNU reads it and writes nothing.
        let size = hostcalls::fstat(hostcalls::STDOUT).map_or(0, |st| st.size);
        if size > 0 {
            let _ = writeln!(std::io::stderr(), "cat: {name}: input file is output file");
            status = status.max(1);
        }
    }
    flush(&mut group, &mut status);
    status
}

/// Runs `cat ARGS` as a child with this process's stdio, environment and cwd.
fn run_child(argv: Vec<String>) -> i32 {
    let _ = std::io::stdout().flush();
    let request = hostcalls::SpawnRequest {
        argv,
        env: std::env::vars().collect(),
        cwd: applets::current_dir(),
        stdio: [hostcalls::STDIN, hostcalls::STDOUT, hostcalls::STDERR],
    };
    match hostcalls::spawn(&request).and_then(hostcalls::wait) {
        Ok(code) => code,
        Err(e) => {
            let _ = writeln!(std::io::stderr(), "cat: {e}");
            1
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(s: &[&str]) -> Vec<OsString> {
        s.iter().map(OsString::from).collect()
    }

    #[test]
    fn operands_are_every_non_option_word_and_everything_after_dashdash() {
        assert_eq!(
            operands(&args(&["cat", "-n", "a", "-", "b", "-E"])),
            vec![2, 3, 4]
        );
        assert_eq!(operands(&args(&["cat", "--", "-n", "x"])), vec![2, 3]);
    }
}
