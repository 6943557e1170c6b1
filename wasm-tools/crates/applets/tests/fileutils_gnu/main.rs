//! Differential tests of `ls`, `ln`, `diff`, `cmp`, `more`, `less`, `od`, `fmt` and `pathchk` against the host's GNU
//! coreutils, diffutils and util-linux, in the style of `tests/gnu_diff`: each case runs our
//! applet (this binary, which becomes the applet when `APPLET_UNDER_TEST` is set) and the
//! host tool with the same arguments, stdin, working directory and `LC_ALL=C TZ=UTC`, and
//! compares standard output, standard error, exit status and, for `ln`, the resulting tree.
//!
//! Besides the hand-written cases there is a randomised `diff` corpus (seeded, so failures
//! reproduce): pairs of files drawn from tiny alphabets, which have many equally short edit
//! scripts, run under every output format and white-space option. `DIFF_RANDOM_PAIRS` sets its
//! size (default 250 pairs).
//!
//! A missing reference tool is a SKIP, or a failure under `CI=true`. Upstream gold commands
//! that only need these applets are checked against the outputs upstream recorded.

#[cfg(unix)]
mod cases;
#[cfg(unix)]
#[path = "../support/mod.rs"]
mod support;

#[cfg(not(unix))]
fn main() {}

#[cfg(unix)]
fn main() {
    harness::main();
}

#[cfg(unix)]
pub mod harness {
    use std::collections::BTreeMap;
    use std::os::unix::fs::{MetadataExt, PermissionsExt, symlink};
    use std::os::unix::process::CommandExt;
    use std::path::{Path, PathBuf};
    use std::process::Command;
    use std::time::{Duration, SystemTime};

    /// The tree a case runs in.
    #[derive(Debug, Clone, PartialEq, Eq)]
    pub enum Fixture {
        /// [`build_tree`].
        Tree,
        /// Two files `a` and `b` with these contents.
        Pair(Vec<u8>, Vec<u8>),
        /// An InterCode file system (`fs_N.effective.tar.gz`).
        Fs(u8),
    }

    #[derive(Debug, Clone)]
    pub struct Case {
        pub name: String,
        pub tool: &'static str,
        pub args: Vec<String>,
        pub stdin: Vec<u8>,
        pub fixture: Fixture,
        pub mutates: bool,
        pub env: Vec<(&'static str, String)>,
    }

    impl Case {
        pub fn new(name: impl Into<String>, tool: &'static str, args: &[&str]) -> Case {
            Case {
                name: name.into(),
                tool,
                args: args.iter().map(|s| s.to_string()).collect(),
                stdin: Vec::new(),
                fixture: Fixture::Tree,
                mutates: false,
                env: Vec::new(),
            }
        }
        pub fn stdin(mut self, s: &[u8]) -> Case {
            self.stdin = s.to_vec();
            self
        }
        pub fn mutates(mut self) -> Case {
            self.mutates = true;
            self
        }
        pub fn fs(mut self, n: u8) -> Case {
            self.fixture = Fixture::Fs(n);
            self
        }
        pub fn pair(mut self, a: &[u8], b: &[u8]) -> Case {
            self.fixture = Fixture::Pair(a.to_vec(), b.to_vec());
            self
        }
        pub fn env(mut self, k: &'static str, v: &str) -> Case {
            self.env.push((k, v.to_string()));
            self
        }
    }

    pub struct Outcome {
        pub status: i32,
        pub stdout: Vec<u8>,
        pub stderr: Vec<u8>,
        pub tree: String,
    }

    fn set_mtime(path: &Path, t: SystemTime) {
        let f = std::fs::File::options()
            .write(true)
            .open(path)
            .or_else(|_| std::fs::File::open(path));
        if let Ok(f) = f {
            let _ = f.set_modified(t);
        }
    }

    fn ago(secs: u64) -> SystemTime {
        SystemTime::now() - Duration::from_secs(secs)
    }

    /// Files with every attribute `ls -l` shows: modes with special bits, old (> 6 months),
    /// recent and future mtimes, sizes of different widths, sparse files, symlinks (relative,
    /// absolute, dangling, to a directory), hard links, hidden and odd names.
    pub fn build_tree(root: &Path) {
        use std::fs;
        let w = |p: &str, data: &[u8]| {
            let path = root.join(p);
            fs::create_dir_all(path.parent().unwrap()).unwrap();
            fs::write(path, data).unwrap();
        };
        w(
            "t/hello.c",
            b"#include <stdio.h>\nint main() { return 0; }\n",
        );
        w("t/empty.txt", b"");
        w("t/big.bin", &vec![b'x'; 123_456]);
        w("t/k5.dat", &vec![b'y'; 5000]);
        w("t/.hidden", b"secret\n");
        w("t/space name.txt", b"with space\n");
        w("t/script.sh", b"#!/bin/sh\necho hi\n");
        w("t/suid", b"s\n");
        w("t/sgid", b"g\n");
        w("t/a.tar.gz", b"not really\n");
        w("t/file10", b"10\n");
        w("t/file9", b"9\n");
        w("t/File2", b"F2\n");
        w("t/-dash", b"dash\n");
        w("t/_under", b"u\n");
        w("t/UPPER", b"U\n");
        w("t/dir1/a.txt", b"one\ntwo\nthree\n");
        w("t/dir1/b.txt", b"apple\nbanana\n");
        w("t/dir1/sub/deep.txt", b"deep\n");
        w("t/dir1/sub/.dot", b"dot\n");
        w("t/dir2/a.txt", b"one\n2\nthree\n");
        w("t/dir2/c.txt", b"cherry\n");
        w("t/dir2/sub/deep.txt", b"deeper\n");
        w("t/dir2/extra/x", b"x\n");
        fs::create_dir_all(root.join("t/emptydir")).unwrap();
        fs::create_dir_all(root.join("t/sticky")).unwrap();
        // A sparse file: large size, few blocks.
        {
            let f = fs::File::create(root.join("t/sparse")).unwrap();
            f.set_len(3 << 20).unwrap();
        }
        let mode = |p: &str, m: u32| {
            fs::set_permissions(root.join(p), fs::Permissions::from_mode(m)).unwrap();
        };
        mode("t/script.sh", 0o755);
        mode("t/suid", 0o4755);
        mode("t/sgid", 0o2644);
        mode("t/sticky", 0o1777);
        mode("t/empty.txt", 0o400);
        mode("t/k5.dat", 0o666);
        symlink("hello.c", root.join("t/link.c")).unwrap();
        symlink("dir1", root.join("t/linkdir")).unwrap();
        symlink("nowhere", root.join("t/dangling")).unwrap();
        symlink("/etc/hostname", root.join("t/abs")).unwrap();
        fs::hard_link(root.join("t/hello.c"), root.join("t/dir1/hard.c")).unwrap();
        let t = |p: &str, when: SystemTime| set_mtime(&root.join(p), when);
        let fixed = |secs: u64| SystemTime::UNIX_EPOCH + Duration::from_secs(secs);
        t("t/big.bin", ago(30 * 60));
        t("t/k5.dat", ago(3 * 86_400));
        t("t/hello.c", ago(40 * 86_400));
        t("t/empty.txt", fixed(1_685_577_599)); // 2023-05-31 23:59:59
        t("t/script.sh", fixed(1_653_955_200)); // 2022-05-31
        t("t/file10", ago(200 * 86_400));
        t("t/file9", ago(100 * 86_400));
        t(
            "t/File2",
            SystemTime::now() + Duration::from_secs(86_400 * 30),
        );
        t("t/suid", fixed(946_684_800)); // 2000-01-01
        t("t/sgid", ago(7 * 86_400));
        t("t/dir1/a.txt", fixed(1_600_000_000));
        t("t/dir2/a.txt", fixed(1_600_000_100));
    }

    fn shared() -> PathBuf {
        Path::new(
            &std::env::var("CARGO_MANIFEST_DIR")
                .unwrap_or_else(|_| env!("CARGO_MANIFEST_DIR").to_string()),
        )
        .join("../../../../shared/intercode-upstream")
    }

    pub fn prepare(fixture: &Fixture) -> Option<tempfile::TempDir> {
        let dir = tempfile::tempdir().unwrap();
        match fixture {
            Fixture::Tree => build_tree(dir.path()),
            Fixture::Pair(a, b) => {
                std::fs::write(dir.path().join("a"), a).unwrap();
                std::fs::write(dir.path().join("b"), b).unwrap();
            }
            Fixture::Fs(n) => {
                let tar = shared()
                    .join("filesystems")
                    .join(format!("fs_{n}.effective.tar.gz"));
                if !tar.exists() {
                    return None;
                }
                let ok = Command::new("tar")
                    .arg("xzf")
                    .arg(&tar)
                    .current_dir(dir.path())
                    .status()
                    .is_ok_and(|s| s.success());
                if !ok {
                    return None;
                }
            }
        }
        Some(dir)
    }

    /// Names, types, modes, sizes, link counts, link targets and contents of a tree.
    pub fn snapshot(root: &Path) -> String {
        let mut out = BTreeMap::new();
        let mut stack = vec![root.to_path_buf()];
        while let Some(d) = stack.pop() {
            let Ok(rd) = std::fs::read_dir(&d) else {
                continue;
            };
            for e in rd.flatten() {
                let p = e.path();
                let Ok(m) = std::fs::symlink_metadata(&p) else {
                    continue;
                };
                let rel = p.strip_prefix(root).unwrap().to_string_lossy().into_owned();
                let extra = if m.file_type().is_symlink() {
                    format!("-> {}", std::fs::read_link(&p).unwrap().display())
                } else if m.is_file() {
                    format!("{:?}", std::fs::read(&p).unwrap_or_default().len())
                } else {
                    String::new()
                };
                let nlink = if m.is_dir() { 0 } else { m.nlink() };
                out.insert(rel, format!("{:o} {nlink} {extra}", m.mode()));
                if m.is_dir() {
                    stack.push(p);
                }
            }
        }
        out.into_iter().map(|(k, v)| format!("{k} {v}\n")).collect()
    }

    pub fn run_side(case: &Case, ours: bool, cwd: &Path) -> std::io::Result<Outcome> {
        let mut cmd = if ours {
            let mut c = Command::new(std::env::current_exe()?);
            c.env("APPLET_UNDER_TEST", case.tool);
            c
        } else {
            Command::new(case.tool)
        };
        cmd.arg0(case.tool)
            .args(&case.args)
            .current_dir(cwd)
            .env("LC_ALL", "C")
            .env("TZ", "UTC")
            .env("PWD", cwd)
            .env_remove("COLUMNS")
            .env_remove("LS_COLORS")
            .env_remove("TIME_STYLE")
            .env_remove("QUOTING_STYLE")
            .env_remove("POSIXLY_CORRECT")
            .env_remove("LANG")
            .env_remove("LC_MESSAGES");
        for (k, v) in &case.env {
            cmd.env(k, v);
        }
        let (status, stdout, stderr) =
            super::support::output_with_stdin(&mut cmd, case.stdin.clone())?;
        Ok(Outcome {
            status,
            stdout,
            stderr,
            tree: if case.mutates {
                snapshot(cwd)
            } else {
                String::new()
            },
        })
    }

    fn show(data: &[u8]) -> String {
        let s = String::from_utf8_lossy(data).replace('\t', "\\t");
        if s.len() > 4000 {
            format!("{}…[{} bytes]", &s[..4000], s.len())
        } else {
            s
        }
    }

    /// Runs one case; `Ok(true)` if both sides agree.
    fn check(case: &Case, verbose_ok: bool) -> Option<bool> {
        // Read-only cases share one tree (so inode numbers and times agree); mutating ones get
        // identical copies.
        let d1 = prepare(&case.fixture)?;
        let d2 = if case.mutates {
            Some(prepare(&case.fixture)?)
        } else {
            None
        };
        let (gnu_dir, our_dir) = (d1.path(), d2.as_ref().map_or(d1.path(), |d| d.path()));
        let (Ok(gnu), Ok(ours)) = (
            run_side(case, false, gnu_dir),
            run_side(case, true, our_dir),
        ) else {
            println!("FAIL {} (could not run)", case.name);
            return Some(false);
        };
        let norm = |o: &Outcome, dir: &Path| {
            let d = dir.to_string_lossy().into_owned();
            let r = |v: &[u8]| String::from_utf8_lossy(v).replace(&d, "@").into_bytes();
            (r(&o.stdout), r(&o.stderr), o.tree.clone())
        };
        let (g_out, g_err, g_tree) = norm(&gnu, gnu_dir);
        let (o_out, o_err, o_tree) = norm(&ours, our_dir);
        let same =
            g_out == o_out && g_err == o_err && gnu.status == ours.status && g_tree == o_tree;
        if same {
            if verbose_ok {
                println!("ok   {}", case.name);
            }
            return Some(true);
        }
        println!("FAIL {} : {} {:?}", case.name, case.tool, case.args);
        if let Fixture::Pair(a, b) = &case.fixture {
            println!("  --- a\n{}\n  --- b\n{}", show(a), show(b));
        }
        if gnu.status != ours.status {
            println!("  status: gnu {} ours {}", gnu.status, ours.status);
        }
        if g_out != o_out {
            println!(
                "  --- gnu stdout\n{}\n  --- our stdout\n{}",
                show(&g_out),
                show(&o_out)
            );
        }
        if g_err != o_err {
            println!(
                "  --- gnu stderr\n{}\n  --- our stderr\n{}",
                show(&g_err),
                show(&o_err)
            );
        }
        if g_tree != o_tree {
            println!("  --- gnu tree\n{g_tree}\n  --- our tree\n{o_tree}");
        }
        Some(false)
    }

    /// A small deterministic generator (xorshift), so random cases reproduce.
    pub struct Rng(u64);

    impl Rng {
        pub fn new(seed: u64) -> Rng {
            Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
        }
        pub fn next_u64(&mut self) -> u64 {
            let mut x = self.0;
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            self.0 = x;
            x
        }
        pub fn below(&mut self, n: u64) -> u64 {
            self.next_u64() % n.max(1)
        }
    }

    /// A random file: lines from a small alphabet (so many edit scripts are equally short),
    /// with white-space and case variants, blank lines, and sometimes no final newline.
    fn random_text(rng: &mut Rng, lines: usize, alphabet: u64) -> Vec<u8> {
        let mut v = Vec::new();
        for _ in 0..lines {
            let base = (b'a' + rng.below(alphabet) as u8) as char;
            let line = match rng.below(20) {
                0 => String::new(),
                1 => format!("{base} "),
                2 => format!(" {base}"),
                3 => base.to_ascii_uppercase().to_string(),
                4 => format!("{base}\t{base}"),
                5 => format!("{base}        {base}"),
                6 => "  ".to_string(),
                _ => base.to_string(),
            };
            v.extend_from_slice(line.as_bytes());
            v.push(b'\n');
        }
        if !v.is_empty() && rng.below(6) == 0 {
            v.pop();
        }
        v
    }

    /// Derives a second file from the first by random edits, as real revisions do.
    fn mutate(rng: &mut Rng, a: &[u8], alphabet: u64) -> Vec<u8> {
        let mut lines: Vec<Vec<u8>> = a
            .split_inclusive(|&b| b == b'\n')
            .map(|l| l.to_vec())
            .collect();
        let edits = 1 + rng.below(6);
        for _ in 0..edits {
            let at = rng.below(lines.len() as u64 + 1) as usize;
            match rng.below(3) {
                0 if at < lines.len() => {
                    let n = (1 + rng.below(3) as usize).min(lines.len() - at);
                    lines.drain(at..at + n);
                }
                1 => {
                    let n = 1 + rng.below(3) as usize;
                    let new = random_text(rng, n, alphabet);
                    let mut new: Vec<Vec<u8>> = new
                        .split_inclusive(|&b| b == b'\n')
                        .map(|l| l.to_vec())
                        .collect();
                    if let Some(l) = new.last_mut()
                        && l.last() != Some(&b'\n')
                    {
                        l.push(b'\n');
                    }
                    for (k, l) in new.into_iter().enumerate() {
                        lines.insert(at + k, l);
                    }
                }
                _ if at < lines.len() => {
                    let c = (b'a' + rng.below(alphabet) as u8) as char;
                    lines[at] = format!("{c}\n").into_bytes();
                }
                _ => {}
            }
        }
        let mut v: Vec<u8> = lines.concat();
        // Keep or toggle the final newline.
        if rng.below(8) == 0 {
            if v.last() == Some(&b'\n') {
                v.pop();
            } else if !v.is_empty() {
                v.push(b'\n');
            }
        }
        v
    }

    pub fn random_diff_cases(pairs: usize) -> Vec<Case> {
        const OPTION_SETS: &[&[&str]] = &[
            &[],
            &["-u"],
            &["-U", "0"],
            &["-U1"],
            &["-c"],
            &["-b"],
            &["-w", "-u"],
            &["-i"],
            &["-B"],
            &["-B", "-U", "1"],
            &["-E", "-Z"],
            &["-Z", "-c"],
            &["-d"],
            &["-q"],
            &["-y"],
            &["-y", "-W", "40"],
            &["-y", "--left-column", "-W", "33"],
            &["-y", "--suppress-common-lines", "-t", "-W", "50"],
            &["-y", "-B", "-W", "21"],
            &["-y", "-w", "--tabsize=3", "-W", "30"],
        ];
        let mut rng = Rng::new(0x5eed);
        let mut v = Vec::new();
        for p in 0..pairs {
            // Mostly small files; every tenth is longer, to exercise the discarding of lines
            // with many matches.
            let (len, alphabet) = if p % 10 == 9 {
                (100 + rng.below(300) as usize, 3 + rng.below(6))
            } else {
                (rng.below(25) as usize, 2 + rng.below(4))
            };
            let a = random_text(&mut rng, len, alphabet);
            let b = if rng.below(4) == 0 {
                let n = rng.below(25) as usize;
                random_text(&mut rng, n, alphabet)
            } else {
                mutate(&mut rng, &a, alphabet)
            };
            let opts = OPTION_SETS[p % OPTION_SETS.len()];
            let alt = OPTION_SETS[(p * 7 + 3) % OPTION_SETS.len()];
            for set in [&[][..], opts, alt] {
                let mut args: Vec<&str> = set.to_vec();
                args.push("a");
                args.push("b");
                v.push(
                    Case::new(format!("diff/random-{p}{}", set.join("")), "diff", &args)
                        .pair(&a, &b),
                );
            }
        }
        v
    }

    /// Random combinations of `ls` options and operands on the synthetic tree.
    pub fn random_ls_cases(n: usize) -> Vec<Case> {
        const FLAGS: &[&str] = &[
            "-a",
            "-A",
            "-l",
            "-s",
            "-h",
            "-i",
            "-n",
            "-g",
            "-o",
            "-G",
            "-p",
            "-F",
            "-r",
            "-t",
            "-S",
            "-X",
            "-v",
            "-R",
            "-d",
            "-1",
            "-C",
            "-x",
            "-m",
            "-k",
            "-L",
            "-H",
            "-c",
            "-U",
            "-B",
            "-Q",
            "-b",
            "-N",
            "-q",
            "-f",
            "--si",
            "--full-time",
            "--group-directories-first",
            "--file-type",
            "--time-style=long-iso",
            "--block-size=K",
            "-w",
            "-T",
        ];
        const OPERANDS: &[&str] = &[
            "t",
            "t/dir1",
            "t/dir2",
            "t/hello.c",
            "t/linkdir",
            "t/dangling",
            "t/link.c",
            "t/emptydir",
            "nope",
            "t/sticky",
            "t/dir1/sub",
            "t/big.bin",
        ];
        let mut rng = Rng::new(4242);
        let mut v = Vec::new();
        for k in 0..n {
            let mut args: Vec<String> = Vec::new();
            for _ in 0..1 + rng.below(4) {
                let f = FLAGS[rng.below(FLAGS.len() as u64) as usize];
                args.push(f.to_string());
                match f {
                    "-w" => args.push((20 + rng.below(80)).to_string()),
                    "-T" => args.push(rng.below(9).to_string()),
                    _ => {}
                }
            }
            // -U and -f list in readdir order, which only matches for a single entry.
            let unsorted = args.iter().any(|a| a == "-U" || a == "-f");
            // At least one operand: listing the working directory would show `..`, the
            // shared /tmp, which other processes change between the two runs.
            let count = if unsorted { 1 } else { 1 + rng.below(3) };
            for _ in 0..count {
                let op = if unsorted {
                    ["t/hello.c", "t/dir1/sub", "t/emptydir", "nope"][rng.below(4) as usize]
                } else {
                    OPERANDS[rng.below(OPERANDS.len() as u64) as usize]
                };
                args.push(op.to_string());
            }
            if unsorted && count == 1 && args.last().is_some_and(|a| a == "t/dir1/sub") {
                // Two entries in readdir order: keep -a out so only one is listed.
                args.retain(|a| a != "-a" && a != "-f");
            }
            let refs: Vec<&str> = args.iter().map(String::as_str).collect();
            v.push(Case::new(format!("ls/random-{k}"), "ls", &refs));
        }
        v
    }

    /// Big inputs where the search hits GNU's `too_expensive` limit.
    /// Random `od` command lines over random binary files: bytes that make interesting floats
    /// (whole numbers, NaNs, infinities, subnormals), runs of repeated blocks, text, and every
    /// option that changes the layout. `OD_RANDOM_CASES` sets the count (default 300).
    pub fn random_od_cases(n: usize) -> Vec<Case> {
        const TYPES: &[&str] = &[
            "-tfF", "-tfD", "-tfL", "-tf", "-f", "-e", "-tx1", "-tx2z", "-td4", "-tu8", "-to2",
            "-tdC", "-tc", "-ta", "-c", "-b", "-x", "-i", "-l", "-s", "-d", "-o", "-tx8", "-tfFz",
            "-td1", "-tuS",
        ];
        const LAYOUT: &[&[&str]] = &[
            &[],
            &["-Ax"],
            &["-Ad"],
            &["-An"],
            &["-v"],
            &["-w8"],
            &["-w32"],
            &["-w"],
            &["-w24"],
            &["-j3"],
            &["-j", "0x11"],
            &["-N", "13"],
            &["-N5", "-j7"],
            &["--endian=big"],
        ];
        let mut rng = Rng::new(0x0d0d);
        let mut v = Vec::new();
        for k in 0..n {
            let len = rng.below(90) as usize;
            let mut data = Vec::with_capacity(len);
            while data.len() < len {
                match rng.below(7) {
                    0 => data.extend_from_slice(&(rng.below(2000) as f32 - 1000.0).to_le_bytes()),
                    1 => data.extend_from_slice(&(rng.below(1 << 20) as f64 / 7.0).to_le_bytes()),
                    2 => data.extend_from_slice(&[0; 16]),
                    3 => data.extend_from_slice(
                        b"text, with words
",
                    ),
                    4 => data.extend_from_slice(&[0xff, 0xff, 0x7f, 0x7f, 0, 0, 0xc0, 0xff]),
                    _ => {
                        for _ in 0..rng.below(12) {
                            data.push(rng.next_u64() as u8);
                        }
                    }
                }
            }
            data.truncate(len);
            let mut args: Vec<String> = Vec::new();
            for _ in 0..1 + rng.below(3) {
                args.push(TYPES[rng.below(TYPES.len() as u64) as usize].to_string());
            }
            for _ in 0..rng.below(3) {
                let set = LAYOUT[rng.below(LAYOUT.len() as u64) as usize];
                args.extend(set.iter().map(|s| s.to_string()));
            }
            args.push("a".to_string());
            if rng.below(4) == 0 {
                args.push("b".to_string());
            }
            let refs: Vec<&str> = args.iter().map(String::as_str).collect();
            let b: Vec<u8> = (0..rng.below(40)).map(|_| rng.next_u64() as u8).collect();
            v.push(Case::new(format!("od/random-{k}"), "od", &refs).pair(&data, &b));
        }
        v
    }

    /// Random text through random `fmt` options: words with the punctuation fmt's costs weigh
    /// (sentence ends, abbreviations, brackets, quotes), runs of one to three spaces or tabs,
    /// indents that change between lines, blank lines, prefixed lines and paragraphs long
    /// enough to fill fmt's buffers. `FMT_RANDOM_CASES` sets the count (default 300).
    pub fn random_fmt_cases(n: usize) -> Vec<Case> {
        const WORDS: &[&str] = &[
            "a",
            "the",
            "word",
            "longerword",
            "x",
            "end.",
            "Mr.",
            "e.g.",
            "why?",
            "yes!",
            "(open",
            "close)",
            "\"quoted\"",
            "said.\"",
            "list,",
            "semi;",
            "colon:",
            "done.)",
            "'single'",
            "[bracket]",
            "hyphen-ated",
            "verylongwordthatdoesnotfitanywhere",
            "9.",
            "-dash",
            "#",
            "//",
        ];
        const OPTIONS: &[&[&str]] = &[
            &[],
            &["-u"],
            &["-s"],
            &["-c"],
            &["-t"],
            &["-w", "20"],
            &["-w30"],
            &["-w", "50"],
            &["-g", "25"],
            &["-w", "40", "-g", "35"],
            &["-p", "#"],
            &["-p", " // "],
            &["-12"],
            &["-w", "1"],
        ];
        let mut rng = Rng::new(0xf0f0);
        let mut v = Vec::new();
        for k in 0..n {
            let mut text = Vec::new();
            let most = if rng.below(8) == 0 { 400 } else { 12 };
            let lines = 1 + rng.below(most);
            for _ in 0..lines {
                match rng.below(10) {
                    0 => {
                        text.push(b'\n');
                        continue;
                    }
                    1 => text.extend_from_slice(b"# "),
                    2 => text.extend_from_slice(b" // "),
                    _ => {}
                }
                for _ in 0..rng.below(3) {
                    text.push(if rng.below(4) == 0 { b'\t' } else { b' ' });
                }
                for w in 0..1 + rng.below(14) {
                    if w > 0 {
                        let gap = match rng.below(10) {
                            0 => "  ",
                            1 => "   ",
                            2 => "\t",
                            _ => " ",
                        };
                        text.extend_from_slice(gap.as_bytes());
                    }
                    text.extend_from_slice(
                        WORDS[rng.below(WORDS.len() as u64) as usize].as_bytes(),
                    );
                }
                if rng.below(6) == 0 {
                    text.push(b' ');
                }
                text.push(b'\n');
            }
            if rng.below(10) == 0 {
                text.pop();
            }
            let mut args: Vec<String> = Vec::new();
            for _ in 0..rng.below(3) {
                let set = OPTIONS[rng.below(OPTIONS.len() as u64) as usize];
                // `-WIDTH` counts only as the first argument.
                let old_width = set.first().is_some_and(|o| {
                    o.strip_prefix('-')
                        .is_some_and(|d| d.starts_with(|c: char| c.is_ascii_digit()))
                });
                if old_width && !args.is_empty() {
                    continue;
                }
                args.extend(set.iter().map(|s| s.to_string()));
            }
            args.push("a".to_string());
            let refs: Vec<&str> = args.iter().map(String::as_str).collect();
            v.push(Case::new(format!("fmt/random-{k}"), "fmt", &refs).pair(&text, b""));
        }
        v
    }

    pub fn expensive_diff_cases() -> Vec<Case> {
        let mut rng = Rng::new(77);
        let mut v = Vec::new();
        for k in 0..3 {
            let n = 3000 + 1500 * k;
            let mk = |rng: &mut Rng| -> Vec<u8> {
                (0..n)
                    .flat_map(|_| format!("{}\n", rng.below(40)).into_bytes())
                    .collect()
            };
            let (a, b) = (mk(&mut rng), mk(&mut rng));
            v.push(Case::new(format!("diff/expensive-{k}"), "diff", &["a", "b"]).pair(&a, &b));
            v.push(
                Case::new(
                    format!("diff/expensive-{k}-H"),
                    "diff",
                    &["-H", "-u", "a", "b"],
                )
                .pair(&a, &b),
            );
        }
        v
    }

    /// Gold commands upstream recorded whose output only depends on these applets, run on the
    /// rebuilt file systems.
    fn upstream_checks() -> (usize, usize, usize) {
        let json = shared().join("derived/bash_gold_outputs.json");
        let Ok(text) = std::fs::read_to_string(&json) else {
            println!("SKIP upstream checks ({} not found)", json.display());
            return (0, 0, 1);
        };
        let gold: serde_json::Value = serde_json::from_str(&text).expect("gold outputs parse");
        let recorded = |fs: u8, index: usize| -> Vec<String> {
            gold[format!("fs_{fs}")][index]["observed_eval_obs"]
                .as_array()
                .map(|a| {
                    a.iter()
                        .filter_map(|o| o["eval_obs"].as_str().map(String::from))
                        .collect()
                })
                .unwrap_or_default()
        };
        let ours = |tool: &'static str, args: &[&str], cwd: &Path| -> Vec<u8> {
            run_side(&Case::new("upstream", tool, args), true, cwd)
                .map(|o| o.stdout)
                .unwrap_or_default()
        };
        let (mut pass, mut fail, mut skip) = (0, 0, 0);
        let mut verdict = |name: &str, got: String, want: Vec<String>| {
            if want.contains(&got) {
                pass += 1;
                println!("ok   {name}");
            } else {
                fail += 1;
                println!(
                    "FAIL {name}\n  --- ours\n{got}\n  --- upstream\n{}",
                    want.join("\n  --- or\n")
                );
            }
        };
        if let Some(dir) = prepare(&Fixture::Fs(3)) {
            let d = dir.path();
            // fs_3 #46: diff <(ls /workspace/dir1) <(ls /workspace/dir2)
            let l1 = ours("ls", &["workspace/dir1"], d);
            let l2 = ours("ls", &["workspace/dir2"], d);
            std::fs::write(d.join("l1"), l1).unwrap();
            std::fs::write(d.join("l2"), l2).unwrap();
            let got = String::from_utf8_lossy(&ours("diff", &["l1", "l2"], d)).into_owned();
            verdict("upstream/fs3-46-diff-ls", got, recorded(3, 46));
            // fs_3 #39: diff long.txt terminate.txt | grep ^[\>\<] | wc -l
            let out = ours(
                "diff",
                &["workspace/dir1/long.txt", "workspace/dir1/terminate.txt"],
                d,
            );
            let n = String::from_utf8_lossy(&out)
                .lines()
                .filter(|l| l.starts_with('>') || l.starts_with('<'))
                .count();
            verdict(
                "upstream/fs3-39-diff-count",
                format!("{n}\n"),
                recorded(3, 39),
            );
            // fs_3 #40: diff -U 0 terminate.txt long.txt | grep -v ^@ | wc -l
            let out = ours(
                "diff",
                &[
                    "-U",
                    "0",
                    "workspace/dir1/terminate.txt",
                    "workspace/dir1/long.txt",
                ],
                d,
            );
            let n = String::from_utf8_lossy(&out)
                .lines()
                .filter(|l| !l.starts_with('@'))
                .count();
            verdict("upstream/fs3-40-diff-U0", format!("{n}\n"), recorded(3, 40));
            // fs_3 #8 and #9: find -perm … -exec ls -l {} \; (dates are the rebuild's, so
            // compare everything before the date).
            for (idx, file) in [
                (8, "workspace/dir1/readonly.txt"),
                (9, "workspace/dir1/all.txt"),
            ] {
                let out = String::from_utf8_lossy(&ours("ls", &["-l", file], d)).into_owned();
                let head = |s: &str| s.split_whitespace().take(5).collect::<Vec<_>>().join(" ");
                let want: Vec<String> = recorded(3, idx).iter().map(|s| head(s)).collect();
                verdict(&format!("upstream/fs3-{idx}-ls-l"), head(&out), want);
            }
        } else {
            skip += 1;
        }
        if let Some(dir) = prepare(&Fixture::Fs(2)) {
            // fs_2 #35: diff -qr /system/folder1 /system/folder1 | sort
            let got = String::from_utf8_lossy(&ours(
                "diff",
                &["-qr", "system/folder1", "system/folder1"],
                dir.path(),
            ))
            .into_owned();
            verdict("upstream/fs2-35-diff-qr", got, recorded(2, 35));
        } else {
            skip += 1;
        }
        (pass, fail, skip)
    }

    pub fn main() {
        if let Ok(name) = std::env::var("APPLET_UNDER_TEST") {
            let main = applets::lookup(&name).unwrap_or_else(|| panic!("no applet {name}"));
            let args: Vec<std::ffi::OsString> = std::env::args_os().collect();
            std::process::exit(main(args));
        }
        let filter: Vec<String> = std::env::args()
            .skip(1)
            .filter(|a| !a.starts_with('-'))
            .collect();
        let ci = std::env::var("CI").is_ok_and(|v| v == "true");
        let pairs = std::env::var("DIFF_RANDOM_PAIRS")
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(250);
        let mut all = super::cases::cases();
        all.extend(random_diff_cases(pairs));
        all.extend(expensive_diff_cases());
        let ls_random = std::env::var("LS_RANDOM_CASES")
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(300);
        all.extend(random_ls_cases(ls_random));
        let od_random = std::env::var("OD_RANDOM_CASES")
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(300);
        all.extend(random_od_cases(od_random));
        let fmt_random = std::env::var("FMT_RANDOM_CASES")
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(300);
        all.extend(random_fmt_cases(fmt_random));
        let (mut pass, mut fail, mut skip) = (0, 0, 0);
        let mut per_tool: BTreeMap<&str, (usize, usize)> = BTreeMap::new();
        let mut failures = Vec::new();
        for case in &all {
            if !filter.is_empty() && !filter.iter().any(|f| case.name.contains(f.as_str())) {
                continue;
            }
            if !super::support::have(case.tool) {
                println!("SKIP {} (no `{}` on this host)", case.name, case.tool);
                if ci {
                    fail += 1;
                    failures.push(case.name.clone());
                } else {
                    skip += 1;
                }
                continue;
            }
            let random = case.name.starts_with("diff/random")
                || case.name.starts_with("diff/expensive")
                || case.name.starts_with("ls/random")
                || case.name.starts_with("od/random")
                || case.name.starts_with("fmt/random");
            match check(case, !random) {
                None => {
                    println!("SKIP {} (InterCode file systems not found)", case.name);
                    if ci {
                        fail += 1;
                        failures.push(case.name.clone());
                    } else {
                        skip += 1;
                    }
                }
                Some(ok) => {
                    let e = per_tool.entry(case.tool).or_default();
                    if ok {
                        pass += 1;
                        e.0 += 1;
                    } else {
                        fail += 1;
                        e.1 += 1;
                        failures.push(case.name.clone());
                    }
                }
            }
        }
        let (up_pass, up_fail, up_skip) =
            if filter.is_empty() || filter.iter().any(|f| "upstream".contains(f.as_str())) {
                upstream_checks()
            } else {
                (0, 0, 0)
            };
        if ci && up_skip > 0 {
            fail += up_skip;
        }
        fail += up_fail;
        println!();
        for (tool, (p, f)) in &per_tool {
            println!("{tool}: {p} agree, {f} differ");
        }
        println!("differential: {pass} agree, {fail} differ, {skip} skipped");
        println!("upstream gold outputs: {up_pass} agree, {up_fail} differ, {up_skip} skipped");
        if fail > 0 {
            if !failures.is_empty() {
                println!("differing: {}", failures.join(", "));
            }
            std::process::exit(1);
        }
    }
}
