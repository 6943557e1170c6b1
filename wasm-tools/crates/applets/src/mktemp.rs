//! `mktemp` (GNU coreutils): creates a unique file or directory and prints its name.
//!
//! Supported: `-d`, `-u`, `-q`, `-p DIR`/`--tmpdir[=DIR]`, `-t`, `--suffix=SUFF`, templates
//! ending in at least three `X`s (default `tmp.XXXXXXXXXX` in `$TMPDIR` or `/tmp`), GNU's
//! messages.
//!
//! Names are *deterministic*: the X's are filled from a generator seeded by the template, and a
//! name that exists is skipped. Episodes are meant to be reproducible, and uniqueness, not
//! unpredictability, is what mktemp's callers rely on inside a single-user sandbox.

use crate::common::io::{prog, run_main};
use crate::common::{Io, sys};
use gnu::usage;
use std::ffi::OsString;

pub fn main(args: Vec<OsString>) -> i32 {
    run_main(args, run)
}

const CHARS: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";

/// A small deterministic generator (splitmix64).
struct Gen(u64);

impl Gen {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
}

fn fill(template: &str, xs: usize, g: &mut Gen) -> String {
    let keep = template.len() - xs;
    let mut s = template[..keep].to_string();
    for _ in 0..xs {
        s.push(CHARS[(g.next() % CHARS.len() as u64) as usize] as char);
    }
    s
}

pub fn run(args: &[String], io: &mut Io) -> i32 {
    let prog = prog(args, "mktemp");
    let (mut dir, mut dry, mut quiet, mut t_flag) = (false, false, false, false);
    let mut tmpdir: Option<Option<String>> = None;
    let mut suffix = String::new();
    let mut templates = Vec::new();
    let mut i = 1;
    let usage = |io: &mut Io, msg: &str| {
        let _ = io.err.write_all(usage::report(&prog, msg).as_bytes());
        1
    };
    while i < args.len() {
        let a = args[i].clone();
        i += 1;
        match a.as_str() {
            "--directory" => dir = true,
            "--dry-run" => dry = true,
            "--quiet" => quiet = true,
            "--tmpdir" => tmpdir = Some(None),
            s if s.starts_with("--tmpdir=") => {
                tmpdir = Some(Some(s["--tmpdir=".len()..].to_string()))
            }
            s if s.starts_with("--suffix=") => suffix = s["--suffix=".len()..].to_string(),
            "--suffix" => match args.get(i) {
                Some(v) => {
                    suffix = v.clone();
                    i += 1;
                }
                None => return usage(io, "option '--suffix' requires an argument"),
            },
            "--" => {
                templates.extend(args[i..].iter().cloned());
                break;
            }
            s if s.starts_with("--") => return usage(io, &usage::unrecognized_option(s)),
            s if s.starts_with('-') && s.len() > 1 => {
                let chars: Vec<char> = s[1..].chars().collect();
                let mut j = 0;
                while j < chars.len() {
                    match chars[j] {
                        'd' => dir = true,
                        'u' => dry = true,
                        'q' => quiet = true,
                        't' => t_flag = true,
                        'p' => {
                            let rest: String = chars[j + 1..].iter().collect();
                            let v = if !rest.is_empty() {
                                rest
                            } else if let Some(v) = args.get(i) {
                                i += 1;
                                v.clone()
                            } else {
                                return usage(io, "option requires an argument -- 'p'");
                            };
                            tmpdir = Some(Some(v));
                            j = chars.len();
                            continue;
                        }
                        c => return usage(io, &usage::invalid_option(c)),
                    }
                    j += 1;
                }
            }
            _ => templates.push(a),
        }
    }
    if templates.len() > 1 {
        return usage(io, "too many templates");
    }
    let explicit = templates.pop();
    let template = explicit
        .clone()
        .unwrap_or_else(|| "tmp.XXXXXXXXXX".to_string());
    let env_tmp = std::env::var("TMPDIR").ok().filter(|s| !s.is_empty());
    let base_dir: Option<String> = if explicit.is_none() || t_flag || tmpdir.is_some() {
        let given = tmpdir.clone().flatten().filter(|s| !s.is_empty());
        Some(given.or(env_tmp).unwrap_or_else(|| "/tmp".to_string()))
    } else {
        None
    };
    if base_dir.is_some() && explicit.is_some() && template.contains('/') {
        let _ = writeln!(
            io.err,
            "{prog}: invalid template, '{template}', contains directory separator"
        );
        return 1;
    }
    let full = format!("{template}{suffix}");
    let xs = template.bytes().rev().take_while(|&b| b == b'X').count();
    if xs < 3 {
        if !quiet {
            let _ = writeln!(io.err, "{prog}: too few X's in template '{full}'");
        }
        return 1;
    }
    let path_of = |name: &str| match &base_dir {
        Some(d) if d.ends_with('/') => format!("{d}{name}"),
        Some(d) => format!("{d}/{name}"),
        None => name.to_string(),
    };
    let mut g = Gen(template.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x1000_0000_01b3)
    }));
    for _ in 0..1000 {
        let name = format!("{}{suffix}", fill(&template, xs, &mut g));
        let path = path_of(&name);
        if hostcalls::stat(&path, false).is_ok() {
            continue;
        }
        if !dry {
            let r = if dir {
                std::fs::create_dir(&path).and_then(|()| hostcalls::chmod(&path, 0o700))
            } else {
                std::fs::OpenOptions::new()
                    .write(true)
                    .create_new(true)
                    .open(&path)
                    .and_then(|_| hostcalls::chmod(&path, 0o600))
            };
            if let Err(e) = r {
                if e.kind() == std::io::ErrorKind::AlreadyExists {
                    continue;
                }
                if !quiet {
                    let what = if dir { "directory" } else { "file" };
                    let _ = writeln!(
                        io.err,
                        "{prog}: failed to create {what} via template '{}': {}",
                        path_of(&full),
                        sys::strerror(&e)
                    );
                }
                return 1;
            }
        }
        let _ = writeln!(io.out, "{path}");
        return 0;
    }
    if !quiet {
        let _ = writeln!(
            io.err,
            "{prog}: failed to create file via template '{}': File exists",
            path_of(&full)
        );
    }
    1
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mk(args: &[&str]) -> (i32, String, String) {
        let argv: Vec<String> = std::iter::once("mktemp")
            .chain(args.iter().copied())
            .map(String::from)
            .collect();
        crate::common::io::capture_text(run, &argv, b"")
    }

    #[test]
    fn deterministic_and_unique() {
        let d = tempfile::tempdir().unwrap();
        let dir = d.path().to_str().unwrap();
        let (c1, a, _) = mk(&["-p", dir]);
        let (c2, b, _) = mk(&["-p", dir]);
        assert_eq!((c1, c2), (0, 0));
        assert_ne!(a, b);
        assert!(a.starts_with(&format!("{dir}/tmp.")));
        assert_eq!(a.trim().len(), dir.len() + 1 + 14);
        let (_, dry, _) = mk(&["-u", "-p", dir]);
        assert!(!std::path::Path::new(dry.trim()).exists());
        let (_, made, _) = mk(&["-d", "-p", dir, "fooXXX"]);
        assert!(std::path::Path::new(made.trim()).is_dir());
    }

    #[test]
    fn too_few_xs() {
        assert_eq!(
            mk(&["XX"]),
            (
                1,
                String::new(),
                "mktemp: too few X's in template 'XX'\n".into()
            )
        );
    }
}
