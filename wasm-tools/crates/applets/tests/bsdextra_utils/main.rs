//! Differential tests of util-linux's `hexdump`/`hd`, `colrm`, `col`, `look` (Debian's
//! bsdextrautils) and `getopt` (util-linux) against the host's tools, in the style of
//! `tests/bsd_utils`: each case runs the host tool and this binary (which becomes the applet
//! when `APPLET_UNDER_TEST` is set) with the same arguments and standard input, in a fresh
//! directory holding the same fixture files, under `LC_ALL=C`, and compares standard output,
//! standard error and exit status. A missing host tool is a SKIP, or a failure under
//! `CI=true`.

#[cfg(unix)]
#[path = "../support/mod.rs"]
mod support;

#[cfg(not(unix))]
fn main() {}

#[cfg(unix)]
fn main() {
    if let Ok(name) = std::env::var("APPLET_UNDER_TEST") {
        let main = applets::lookup(&name).unwrap_or_else(|| panic!("no applet {name}"));
        let args: Vec<std::ffi::OsString> = std::env::args_os().collect();
        std::process::exit(main(args));
    }
    harness::run_all();
}

#[cfg(unix)]
mod cases;

#[cfg(unix)]
mod harness {
    use std::os::unix::process::CommandExt;
    use std::path::Path;
    use std::process::Command;

    pub struct Case {
        pub name: String,
        pub tool: &'static str,
        pub args: Vec<String>,
        pub stdin: Vec<u8>,
    }

    pub fn case(name: &str, tool: &'static str, args: &[&str]) -> Case {
        Case {
            name: name.to_string(),
            tool,
            args: args.iter().map(|s| s.to_string()).collect(),
            stdin: Vec::new(),
        }
    }

    impl Case {
        pub fn stdin(mut self, data: &[u8]) -> Case {
            self.stdin = data.to_vec();
            self
        }
    }

    /// Deterministic bytes covering every value (a simple LCG), for binary fixtures.
    pub fn binary(len: usize) -> Vec<u8> {
        let mut x: u32 = 12345;
        (0..len)
            .map(|i| {
                x = x.wrapping_mul(1_103_515_245).wrapping_add(12345);
                if i % 3 == 0 { i as u8 } else { (x >> 16) as u8 }
            })
            .collect()
    }

    /// A word list for `look`, sorted bytewise and sorted ignoring case (`sort` and `sort -f`
    /// in the C locale): syllable words in both cases, with hyphens, apostrophes, digits.
    fn dictionaries() -> (Vec<u8>, Vec<u8>) {
        let syllables = [
            "a", "ab", "Ab", "ba", "co", "Co", "co-", "d'", "x1", "_z", "zz",
        ];
        let mut words = Vec::new();
        for a in syllables {
            words.push(a.to_string());
            for b in syllables {
                words.push(format!("{a}{b}"));
                words.push(format!("{a}{b}e"));
            }
        }
        words.sort();
        words.dedup();
        let c_sorted = words.iter().map(|w| format!("{w}\n")).collect::<String>();
        // sort -f: compare upper-cased, then fall back to the bytes (as `sort -f` without -s).
        words.sort_by(|x, y| {
            x.to_ascii_uppercase()
                .cmp(&y.to_ascii_uppercase())
                .then_with(|| x.cmp(y))
        });
        let fold_sorted = words.iter().map(|w| format!("{w}\n")).collect::<String>();
        (c_sorted.into_bytes(), fold_sorted.into_bytes())
    }

    /// The files every case can name.
    fn fixtures(dir: &Path) {
        let w = |name: &str, data: &[u8]| std::fs::write(dir.join(name), data).unwrap();
        w("empty", b"");
        for n in [1, 15, 16, 17, 31, 32, 33, 100] {
            w(&format!("b{n}"), &binary(n));
        }
        w("t13", b"Hello world!\n");
        w("z40", &[0u8; 40]);
        w("z64", &[0u8; 64]);
        w("a17", &[b'a'; 17]);
        let mut rep = Vec::new();
        for _ in 0..4 {
            rep.extend_from_slice(b"0123456789abcdef");
        }
        rep.extend_from_slice(b"XYZ");
        for _ in 0..3 {
            rep.extend_from_slice(b"0123456789abcdef");
        }
        w("rep", &rep);
        w("all", &(0..=255u8).collect::<Vec<u8>>());
        w(
            "lines",
            b"short\nthe quick brown fox jumps over\n\ttabbed\tline here\nx\n\nlast line without newline",
        );
        w(
            "words",
            b"Apple\napple\napplet\napply\nbanana\nBand\nband\nbandana\ncherry\nco-op\ncoop\ncoordinate\n",
        );
        w(
            "overstrike",
            b"N\x08NA\x08AM\x08ME\x08E\n_\x08u_\x08n_\x08d_\x08e_\x08r\tline\n  spaced    out\ttabs\n",
        );
        let (c_sorted, fold_sorted) = dictionaries();
        w("dict_c", &c_sorted);
        w("dict_f", &fold_sorted);
        std::fs::create_dir(dir.join("subdir")).unwrap();
    }

    fn run_side(case: &Case, ours: bool, dir: &Path) -> (i32, Vec<u8>, Vec<u8>) {
        let mut cmd = if ours {
            let mut c = Command::new(std::env::current_exe().unwrap());
            c.env("APPLET_UNDER_TEST", case.tool);
            c
        } else {
            Command::new(case.tool)
        };
        cmd.arg0(case.tool)
            .args(&case.args)
            .current_dir(dir)
            .env("LC_ALL", "C")
            .env("TZ", "UTC")
            .env_remove("LANG")
            .env_remove("GETOPT_COMPATIBLE")
            .env_remove("POSIXLY_CORRECT");
        super::support::output_with_stdin(&mut cmd, case.stdin.clone()).unwrap_or((
            -1,
            Vec::new(),
            b"could not run".to_vec(),
        ))
    }

    fn show(v: &[u8]) -> String {
        String::from_utf8_lossy(v).replace('\t', "\\t")
    }

    pub fn run_all() {
        let filter: Vec<String> = std::env::args()
            .skip(1)
            .filter(|a| !a.starts_with('-'))
            .collect();
        let ci = std::env::var("CI").is_ok_and(|v| v == "true");
        let (mut pass, mut fail, mut skip) = (0, 0, 0);
        for case in super::cases::cases() {
            if !filter.is_empty() && !filter.iter().any(|f| case.name.contains(f.as_str())) {
                continue;
            }
            if !super::support::have(case.tool) {
                println!("SKIP {} (no `{}` on this host)", case.name, case.tool);
                if ci {
                    fail += 1;
                } else {
                    skip += 1;
                }
                continue;
            }
            let dir = tempfile::tempdir().unwrap();
            fixtures(dir.path());
            let host = run_side(&case, false, dir.path());
            let ours = run_side(&case, true, dir.path());
            if host == ours {
                pass += 1;
                continue;
            }
            fail += 1;
            println!("FAIL {} : {} {:?}", case.name, case.tool, case.args);
            if host.0 != ours.0 {
                println!("  status: host {} ours {}", host.0, ours.0);
            }
            if host.1 != ours.1 {
                println!(
                    "  --- host stdout\n{}\n  --- our stdout\n{}",
                    show(&host.1),
                    show(&ours.1)
                );
            }
            if host.2 != ours.2 {
                println!(
                    "  --- host stderr\n{}\n  --- our stderr\n{}",
                    show(&host.2),
                    show(&ours.2)
                );
            }
        }
        println!("bsdextra_utils: {pass} passed, {fail} failed, {skip} skipped");
        if fail > 0 {
            std::process::exit(1);
        }
    }
}
