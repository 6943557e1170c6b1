//! `df` and `free` against the host's GNU coreutils `df` and procps `free`.
//!
//! The sandbox's `df` reports a fixed table (upstream's container), so what is compared is the
//! layout: the host's `df` runs on some of the host's own mounts, and our [`df::render`] gets
//! the same mounts with the same `statfs` figures (read with `stat -f`, before and after, and
//! retried while a busy disk changes them). `free` runs inside bubblewrap with a made-up
//! `/proc/meminfo` bound over the real one, and ours renders the same text.
//!
//! Known version difference, normalised before comparing: the host has procps 4, whose
//! `free` pads the row labels one column wider than 3.3.17 (Ubuntu 22.04, upstream's image).
//! The figures are chosen so that 3.3.17's and 4's definitions of `used` agree.
//!
//! A missing reference tool is a SKIP, or a failure under `CI=true`.

use applets::df::{self, Field, Layout, Mode, Mount, Units};
use applets::free::{self, Extras, MemInfo, Scale};
use std::process::Command;

fn main() {
    let mut failures = 0;
    let mut ran = 0;
    for (name, result) in [("df", df_cases()), ("free", free_cases())] {
        match result {
            Ok(n) => {
                println!("{name}: {n} cases agree with the host tool");
                ran += n;
            }
            Err(Skip(why)) if std::env::var("CI").as_deref() != Ok("true") => {
                println!("{name}: SKIP ({why})");
            }
            Err(Skip(why)) => {
                println!("{name}: FAILED ({why})");
                failures += 1;
            }
        }
    }
    println!("{ran} passed, {failures} failed");
    if failures > 0 {
        std::process::exit(1);
    }
}

struct Skip(String);

fn run(cmd: &str, args: &[&str]) -> Result<String, Skip> {
    let out = Command::new(cmd)
        .args(args)
        .env("LC_ALL", "C")
        .output()
        .map_err(|e| Skip(format!("cannot run {cmd}: {e}")))?;
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

/// The host's view of one mount point, as `df` will compute it.
fn host_mount(path: &str) -> Result<Mount, Skip> {
    let st = run("stat", &["-f", "-c", "%b %f %a %S %c %d", path])?;
    let n: Vec<u64> = st
        .split_whitespace()
        .filter_map(|v| v.parse().ok())
        .collect();
    if n.len() != 6 {
        return Err(Skip(format!("stat -f {path}: {st}")));
    }
    let ident = run("df", &["--output=source,fstype,target", path])?;
    let row: Vec<&str> = ident
        .lines()
        .nth(1)
        .unwrap_or("")
        .split_whitespace()
        .collect();
    let [source, fstype, target] = row[..] else {
        return Err(Skip(format!("df --output on {path}: {ident}")));
    };
    let (blocks, bfree, bavail, frsize) = (n[0], n[1], n[2], n[3]);
    Ok(Mount {
        source: source.into(),
        fstype: fstype.into(),
        target: target.into(),
        size: blocks * frsize,
        used: (blocks - bfree) * frsize,
        avail: bavail * frsize,
        inodes: n[4],
        ifree: n[5],
        listed: true,
    })
}

fn units(args: &[&str]) -> Units {
    let mut u = Units::Blocks(1024, String::new());
    let mut i = 0;
    while i < args.len() {
        let a = args[i];
        if a == "-B" {
            i += 1;
            u = match args[i] {
                "MB" => Units::Blocks(1_000_000, "MB".into()),
                "512" => Units::Blocks(512, String::new()),
                "4096" => Units::Blocks(4096, String::new()),
                other => panic!("case table: -B {other}"),
            };
        } else if a == "-BM" {
            u = Units::Blocks(1 << 20, "M".into());
        } else if !a.starts_with("--") {
            for c in a.chars().skip(1) {
                match c {
                    'h' => u = Units::Human,
                    'H' => u = Units::Si,
                    'm' => u = Units::Blocks(1 << 20, String::new()),
                    'k' => u = Units::Blocks(1024, String::new()),
                    _ => {}
                }
            }
        }
        i += 1;
    }
    u
}

fn layout(args: &[&str]) -> Layout {
    let u = units(args);
    let letters: String = args
        .iter()
        .filter(|a| !a.starts_with("--") && a.starts_with('-'))
        .map(|a| &a[1..])
        .collect();
    if let Some(out) = args.iter().find(|a| a.starts_with("--output")) {
        use Field::*;
        let fields = match out.split_once('=') {
            None => vec![
                Source, Fstype, Itotal, Iused, Iavail, Ipcent, Size, Used, Avail, Pcent, File,
                Target,
            ],
            Some((_, "target,source,pcent")) => vec![Target, Source, Pcent],
            Some((_, "source,size,avail,file")) => vec![Source, Size, Avail, File],
            Some(other) => panic!("case table: {other:?}"),
        };
        return Layout {
            fields,
            units: u,
            mode: Mode::Output,
        };
    }
    Layout::classic(
        letters.contains('i'),
        letters.contains('T'),
        letters.contains('P'),
        u,
    )
}

const DF_CASES: &[&[&str]] = &[
    &[],
    &["-h"],
    &["-H"],
    &["-k"],
    &["-m"],
    &["-BM"],
    &["-B", "MB"],
    &["-B", "512"],
    &["-B", "4096"],
    &["-T"],
    &["-hT"],
    &["-P"],
    &["-Pm"],
    &["-Ph"],
    &["-i"],
    &["-ih"],
    &["-iT"],
    &["--output"],
    &["--output=target,source,pcent"],
    &["--output=source,size,avail,file"],
    &["--total"],
    &["-h", "--total"],
];

fn df_cases() -> Result<usize, Skip> {
    run("df", &["--version"])?;
    let paths: Vec<&str> = ["/", "/dev/shm", "/proc", "/sys"]
        .into_iter()
        .filter(|p| std::path::Path::new(p).exists())
        .collect();
    let mut n = 0;
    for case in DF_CASES {
        let mut attempt = 0;
        loop {
            attempt += 1;
            let before: Vec<Mount> = paths
                .iter()
                .map(|p| host_mount(p))
                .collect::<Result<_, _>>()?;
            let mut args: Vec<&str> = case.to_vec();
            args.extend(&paths);
            let native = run("df", &args)?;
            let after: Vec<Mount> = paths
                .iter()
                .map(|p| host_mount(p))
                .collect::<Result<_, _>>()?;
            if before != after {
                assert!(attempt < 20, "the host's mounts never held still");
                continue;
            }
            let mut rows: Vec<(Mount, String)> = before
                .into_iter()
                .zip(&paths)
                .map(|(m, p)| (m, p.to_string()))
                .collect();
            if case.contains(&"--total") {
                let t = df::total_row(&rows);
                rows.push(t);
            }
            let ours = df::render(&rows, &layout(case));
            assert_eq!(ours, native, "df {}", case.join(" "));
            n += 1;
            break;
        }
    }
    Ok(n)
}

/// The base system's figures, and a small machine whose numbers cross the `-h` unit borders.
const MEMINFOS: &[&str] = &[
    "MemTotal:        8039440 kB\nMemFree:         5386352 kB\nMemAvailable:    7481320 kB\n\
     Buffers:          104220 kB\nCached:          1893400 kB\nSwapCached:            0 kB\n\
     Shmem:            338432 kB\nSReclaimable:      97348 kB\nSwapTotal:       1048572 kB\n\
     SwapFree:        1048572 kB\n",
    "MemTotal:         1023 kB\nMemFree:           1 kB\nMemAvailable:     1021 kB\n\
     Buffers:          10 kB\nCached:          1000 kB\nShmem:               0 kB\n\
     SReclaimable:      10 kB\nSwapTotal:       10240 kB\nSwapFree:        10239 kB\n",
    "MemTotal:        98765432 kB\nMemFree:          1234567 kB\nMemAvailable:   61234567 kB\n\
     Buffers:          1000000 kB\nCached:         58000000 kB\nShmem:             99999 kB\n\
     SReclaimable:     1000000 kB\nSwapTotal:              0 kB\nSwapFree:               0 kB\n",
];

const FREE_CASES: &[&[&str]] = &[
    &[],
    &["-b"],
    &["-k"],
    &["-m"],
    &["-g"],
    &["-h"],
    &["-h", "--si"],
    &["--mega"],
    &["-w"],
    &["-t"],
    &["-mt"],
    &["-hw"],
];

fn free_scale(args: &[&str]) -> (Scale, Extras) {
    let flags: String = args
        .iter()
        .filter(|a| !a.starts_with("--"))
        .map(|a| a.trim_start_matches('-'))
        .collect();
    let si = args.contains(&"--si") || args.contains(&"--mega");
    let base: u64 = if si { 1000 } else { 1024 };
    let power = if flags.contains('b') {
        0
    } else if flags.contains('m') || args.contains(&"--mega") {
        2
    } else if flags.contains('g') {
        3
    } else {
        1
    };
    (
        Scale {
            unit: base.pow(power),
            human: flags.contains('h'),
            si,
        },
        Extras {
            wide: flags.contains('w'),
            totals: flags.contains('t'),
            lohi: false,
        },
    )
}

/// procps 4 pads the label column to 8 where 3.3.17 pads to 7.
fn as_3_3_17(line: &str) -> String {
    let mut s = line.to_string();
    if s.len() > 7 && s.as_bytes()[7] == b' ' {
        s.remove(7);
    }
    s
}

fn free_cases() -> Result<usize, Skip> {
    run("free", &["--version"])?;
    run("bwrap", &["--version"])?;
    let dir = tempfile::tempdir().map_err(|e| Skip(e.to_string()))?;
    let mut n = 0;
    for (i, text) in MEMINFOS.iter().enumerate() {
        let fake = dir.path().join(format!("meminfo{i}"));
        std::fs::write(&fake, text).map_err(|e| Skip(e.to_string()))?;
        let fake = fake.display().to_string();
        for case in FREE_CASES {
            let mut args = vec![
                "--ro-bind",
                "/",
                "/",
                "--dev",
                "/dev",
                "--proc",
                "/proc",
                "--ro-bind",
                &fake,
                "/proc/meminfo",
                "free",
            ];
            args.extend(case.iter());
            let native = run("bwrap", &args)?;
            if native.is_empty() {
                return Err(Skip("bwrap could not run free".into()));
            }
            let native: String = native.lines().map(|l| as_3_3_17(l) + "\n").collect();
            let (s, x) = free_scale(case);
            let ours = free::render(&MemInfo::parse(text), s, x);
            assert_eq!(ours, native, "free {} on meminfo #{i}", case.join(" "));
            n += 1;
        }
    }
    Ok(n)
}
