//! Differential tests: each case runs our applet and the GNU tool on the host with the same
//! arguments, stdin, working directory and environment (`LC_ALL=C`, `TZ=UTC`), and compares
//! standard output, standard error and the exit status (and, for commands that change files,
//! the resulting tree).
//!
//! This binary has its own `main` (no libtest) so it can also *be* the applet under test: when
//! `APPLET_UNDER_TEST` is set it dispatches to `applets::lookup` and exits, which lets find's
//! `-exec` and xargs spawn real host programs exactly as the GNU tools do.
//!
//! Cases whose GNU reference program is missing on the host are reported as SKIP (install
//! `tree` and `bsdextrautils` for full coverage); the InterCode file-system cases are
//! skipped when `../shared/intercode-upstream/filesystems` is absent, except under `CI=true`,
//! where a missing reference is a failure.
//!
//! Known, intended differences are normalised per case (see [`Order`]): GNU `find`, `du` and
//! `grep -r` print in `readdir` order while ours sort by name, so those cases compare sorted
//! lines; our ordering is covered by the unit tests.

#[cfg(unix)]
mod cases;
#[cfg(unix)]
#[path = "../support/mod.rs"]
mod support;

/// The harness needs a host with GNU tools; it is empty on other targets (the guest).
#[cfg(not(unix))]
fn main() {}

#[cfg(unix)]
fn main() {
    harness::main();
}

#[cfg(unix)]
mod harness {

    use std::collections::BTreeMap;
    use std::os::unix::process::CommandExt;
    use std::path::{Path, PathBuf};
    use std::process::Command;

    use super::cases::cases;

    /// How outputs are compared.
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    pub enum Order {
        Exact,
        /// Compare stdout as a sorted list of lines (readdir order differs).
        SortLines,
        /// Compare stdout as a sorted list of NUL-terminated records.
        SortNul,
        /// Compare stdout as a sorted list of blank-separated words (batched `-exec … +`).
        SortWords,
    }

    /// The tree a case runs in.
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    pub enum Fixture {
        /// Built by [`build_synthetic`]: sizes, modes, symlinks, hard links, old/new mtimes.
        Synthetic,
        /// An InterCode file system (`fs_N.effective.tar.gz`) extracted.
        Fs(u8),
    }

    pub struct Case {
        pub name: &'static str,
        pub tool: &'static str,
        pub args: &'static [&'static str],
        pub stdin: &'static [u8],
        pub order: Order,
        pub fixture: Fixture,
        /// The command changes the tree: run each side on its own copy and compare the trees.
        pub mutates: bool,
        /// The GNU program to compare with, when it differs from `tool` (e.g. `egrep`).
        pub reference: Option<&'static str>,
        /// Drop stdout lines starting with this before comparing (a documented difference, such
        /// as `stat`'s birth time, which the host does not report).
        pub drop_prefix: &'static [&'static str],
    }

    impl Case {
        pub const fn new(
            name: &'static str,
            tool: &'static str,
            args: &'static [&'static str],
        ) -> Case {
            Case {
                name,
                tool,
                args,
                stdin: b"",
                order: Order::Exact,
                fixture: Fixture::Synthetic,
                mutates: false,
                reference: None,
                drop_prefix: &[],
            }
        }
        pub const fn drop_prefix(mut self, p: &'static [&'static str]) -> Case {
            self.drop_prefix = p;
            self
        }
        pub const fn sorted(mut self) -> Case {
            self.order = Order::SortLines;
            self
        }
        pub const fn sorted_nul(mut self) -> Case {
            self.order = Order::SortNul;
            self
        }
        pub const fn words(mut self) -> Case {
            self.order = Order::SortWords;
            self
        }
        pub const fn stdin(mut self, s: &'static [u8]) -> Case {
            self.stdin = s;
            self
        }
        pub const fn fs(mut self, n: u8) -> Case {
            self.fixture = Fixture::Fs(n);
            self
        }
        pub const fn mutates(mut self) -> Case {
            self.mutates = true;
            self
        }
    }

    struct Outcome {
        status: i32,
        stdout: Vec<u8>,
        stderr: Vec<u8>,
        tree: String,
    }

    fn shared_fs(n: u8) -> PathBuf {
        Path::new(
            &std::env::var("CARGO_MANIFEST_DIR")
                .unwrap_or_else(|_| env!("CARGO_MANIFEST_DIR").to_string()),
        )
        .join("../../../../shared/intercode-upstream/filesystems")
        .join(format!("fs_{n}.effective.tar.gz"))
    }

    fn set_mtime(path: &Path, secs_ago: i64) {
        let t = std::time::SystemTime::now() - std::time::Duration::from_secs(secs_ago as u64);
        let f = std::fs::File::options()
            .write(true)
            .open(path)
            .or_else(|_| std::fs::File::open(path));
        if let Ok(f) = f {
            let _ = f.set_modified(t);
        }
    }

    /// A tree exercising what the applets look at.
    pub fn build_synthetic(root: &Path) {
        use std::fs;
        use std::os::unix::fs::{PermissionsExt, symlink};
        let w = |p: &str, data: &[u8]| {
            let path = root.join(p);
            fs::create_dir_all(path.parent().unwrap()).unwrap();
            fs::write(path, data).unwrap();
        };
        w(
            "testbed/hello.c",
            b"#include <stdio.h>\nint main() { printf(\"Hello, World!\\n\"); }\n",
        );
        w("testbed/empty.txt", b"");
        w("testbed/three.txt", b"ab\n");
        w("testbed/big.bin", &[0u8; 5000]);
        w("testbed/k2.dat", &vec![b'x'; 2048]);
        w("testbed/k1plus.dat", &vec![b'y'; 1025]);
        w(
            "testbed/dir1/a.txt",
            b"hello world\nHello again\nbanana split\n\nfoo bar baz\n",
        );
        w("testbed/dir1/b.TXT", b"apple\nBanana\ncherry\napple pie\n");
        w("testbed/dir1/sub/deep.py", b"print('hello')\n# foo\n");
        w("testbed/dir1/sub/.hidden", b"secret foo\n");
        w("testbed/dir2/space name.txt", b"with space\nhello there\n");
        w("testbed/dir2/data.csv", b"a,b,c\n1,2,3\n4,5,6\n");
        w("testbed/dir2/script.sh", b"#!/bin/sh\necho hi\n");
        w("testbed/dir2/foo12", b"foo\n");
        w("testbed/dir2/text3", b"three\n");
        w("testbed/bin.dat", b"abc\0def\nhello binary\n");
        w("testbed/words.txt", b"the cat sat on the mat\ncatalog of cats\nconcat\nThe Cat\n\"quoted\" 'single' back\\slash\n");
        fs::create_dir_all(root.join("testbed/emptydir")).unwrap();
        fs::create_dir_all(root.join("testbed/dir3/x/y/z")).unwrap();
        let mode = |p: &str, m: u32| {
            fs::set_permissions(root.join(p), fs::Permissions::from_mode(m)).unwrap();
        };
        mode("testbed/dir2/script.sh", 0o755);
        mode("testbed/three.txt", 0o400);
        mode("testbed/k2.dat", 0o777);
        mode("testbed/dir2/foo12", 0o553);
        mode("testbed/dir2/text3", 0o4755);
        symlink("hello.c", root.join("testbed/link.c")).unwrap();
        symlink("dir1", root.join("testbed/linkdir")).unwrap();
        symlink("nowhere", root.join("testbed/dangling")).unwrap();
        symlink("data.csv", root.join("testbed/dir2/ln")).unwrap();
        fs::hard_link(
            root.join("testbed/hello.c"),
            root.join("testbed/dir3/hard.c"),
        )
        .unwrap();
        set_mtime(&root.join("testbed/dir1/a.txt"), 10 * 86_400 + 100);
        set_mtime(&root.join("testbed/dir1/b.TXT"), 2 * 86_400 + 100);
        set_mtime(&root.join("testbed/dir2/data.csv"), 40 * 86_400);
        set_mtime(&root.join("testbed/big.bin"), 30 * 60);
        set_mtime(&root.join("testbed/empty.txt"), 400 * 86_400);
    }

    fn prepare(fixture: Fixture) -> Option<tempfile::TempDir> {
        let dir = tempfile::tempdir().unwrap();
        match fixture {
            Fixture::Synthetic => build_synthetic(dir.path()),
            Fixture::Fs(n) => {
                let tar = shared_fs(n);
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

    /// A listing of a tree after a mutating command: path, type, mode, size.
    fn snapshot(root: &Path) -> String {
        use std::os::unix::fs::MetadataExt;
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
                let size = if m.is_dir() { 0 } else { m.size() };
                out.insert(rel, format!("{:o} {size}", m.mode()));
                if m.is_dir() {
                    stack.push(p);
                }
            }
        }
        out.into_iter().map(|(k, v)| format!("{k} {v}\n")).collect()
    }

    fn run_side(case: &Case, ours: bool, cwd: &Path) -> std::io::Result<Outcome> {
        let mut cmd = if ours {
            let mut c = Command::new(std::env::current_exe()?);
            c.env("APPLET_UNDER_TEST", case.tool);
            c
        } else {
            Command::new(case.reference.unwrap_or(case.tool))
        };
        cmd.arg0(case.reference.unwrap_or(case.tool))
            .args(case.args)
            .current_dir(cwd)
            .env("LC_ALL", "C")
            .env("TZ", "UTC")
            .env("PWD", cwd)
            .env_remove("COLUMNS")
            .env_remove("POSIXLY_CORRECT");
        let (status, stdout, stderr) =
            super::support::output_with_stdin(&mut cmd, case.stdin.to_vec())?;
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

    fn normalise(data: &[u8], order: Order) -> Vec<u8> {
        match order {
            Order::Exact => data.to_vec(),
            Order::SortWords => {
                let mut w: Vec<&[u8]> = data
                    .split(|b| b.is_ascii_whitespace())
                    .filter(|w| !w.is_empty())
                    .collect();
                w.sort();
                w.join(&b' ')
            }
            Order::SortLines | Order::SortNul => {
                let sep = if order == Order::SortNul { 0 } else { b'\n' };
                let mut recs: Vec<&[u8]> = data.split(|&b| b == sep).collect();
                recs.sort();
                recs.join(&sep)
            }
        }
    }

    fn show(data: &[u8]) -> String {
        let s = String::from_utf8_lossy(data)
            .replace('\r', "\\r")
            .replace('\0', "\\0");
        if s.len() > 3000 {
            format!("{}…[{} bytes]", &s[..3000], s.len())
        } else {
            s
        }
    }

    /// Gold commands whose output upstream recorded (`derived/bash_gold_outputs.json`) and that
    /// only need one of our applets: run ours on the rebuilt tree and compare with any of the
    /// recorded outputs. This is where tree 2.0.2's report line is checked, since the host's tree
    /// 2.1 counts differently.
    fn upstream_cases(filter: &[String]) -> (usize, usize, usize, Vec<String>) {
        /// (name, file system, gold index, applet, relative arguments, root to make absolute)
        type Upstream = (
            &'static str,
            u8,
            usize,
            &'static str,
            &'static [&'static str],
            &'static str,
        );
        let cases: &[Upstream] = &[
            ("upstream/fs2-tree", 2, 2, "tree", &["system"], "system"),
            (
                "upstream/fs2-tree-a",
                2,
                3,
                "tree",
                &["-a", "system/folder2"],
                "system",
            ),
            (
                "upstream/fs3-tree-pugf",
                3,
                54,
                "tree",
                &["workspace", "-p", "-u", "-g", "-f"],
                "workspace",
            ),
        ];
        let json_path = Path::new(
            &std::env::var("CARGO_MANIFEST_DIR")
                .unwrap_or_else(|_| env!("CARGO_MANIFEST_DIR").to_string()),
        )
        .join("../../../../shared/intercode-upstream/derived/bash_gold_outputs.json");
        let (mut pass, mut fail, mut skip) = (0, 0, 0);
        let mut failures = Vec::new();
        let Ok(text) = std::fs::read_to_string(&json_path) else {
            println!("SKIP upstream cases ({} not found)", json_path.display());
            return (0, 0, cases.len(), failures);
        };
        let gold: serde_json::Value = serde_json::from_str(&text).expect("gold outputs parse");
        for &(name, fs, index, tool, args, root) in cases {
            if !filter.is_empty() && !filter.iter().any(|f| name.contains(f.as_str())) {
                continue;
            }
            let Some(dir) = prepare(Fixture::Fs(fs)) else {
                skip += 1;
                continue;
            };
            let case = Case::new(name, tool, args);
            let Ok(ours) = run_side(&case, true, dir.path()) else {
                fail += 1;
                failures.push(name.to_string());
                continue;
            };
            // We ran with relative paths; upstream used absolute ones.
            let mut shown = String::new();
            for line in String::from_utf8_lossy(&ours.stdout).split_inclusive('\n') {
                let mut l = String::new();
                let mut rest = line;
                while let Some(i) = rest.find(root) {
                    let before_ok = i == 0 || rest[..i].ends_with(' ') || rest[..i].ends_with('\t');
                    l.push_str(&rest[..i]);
                    if before_ok {
                        l.push('/');
                    }
                    l.push_str(root);
                    rest = &rest[i + root.len()..];
                }
                l.push_str(rest);
                shown.push_str(&l);
            }
            let recorded: Vec<String> = gold[format!("fs_{fs}")][index]["observed_eval_obs"]
                .as_array()
                .map(|a| {
                    a.iter()
                        .filter_map(|o| o["eval_obs"].as_str().map(String::from))
                        .collect()
                })
                .unwrap_or_default();
            if recorded.contains(&shown) {
                pass += 1;
                println!("ok   {name}");
            } else {
                fail += 1;
                failures.push(name.to_string());
                println!(
                    "FAIL {name}\n  --- ours\n{shown}\n  --- upstream recorded\n{}",
                    recorded.join("\n  --- or\n")
                );
            }
        }
        (pass, fail, skip, failures)
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
        let (mut pass, mut fail, mut skip) = (0, 0, 0);
        let mut failures = Vec::new();
        for case in cases() {
            if !filter.is_empty() && !filter.iter().any(|f| case.name.contains(f.as_str())) {
                continue;
            }
            let reference = case.reference.unwrap_or(case.tool);
            if !super::support::have(reference) {
                println!("SKIP {} (no GNU `{reference}` on this host)", case.name);
                if ci {
                    fail += 1;
                    failures.push(case.name.to_string());
                } else {
                    skip += 1;
                }
                continue;
            }
            let (Some(d1), Some(d2)) = (prepare(case.fixture), prepare(case.fixture)) else {
                println!("SKIP {} (InterCode file systems not found)", case.name);
                if ci {
                    fail += 1;
                    failures.push(case.name.to_string());
                } else {
                    skip += 1;
                }
                continue;
            };
            // Non-mutating cases run both sides in the same tree, so inode numbers and times
            // agree; mutating ones get identical copies.
            let (gnu_dir, our_dir) = if case.mutates {
                (d1.path(), d2.path())
            } else {
                (d1.path(), d1.path())
            };
            let gnu = run_side(&case, false, gnu_dir);
            let ours = run_side(&case, true, our_dir);
            let (Ok(gnu), Ok(ours)) = (gnu, ours) else {
                println!("FAIL {} (could not run)", case.name);
                fail += 1;
                failures.push(case.name.to_string());
                continue;
            };
            let norm = |o: &Outcome, dir: &Path| {
                let d = dir.to_string_lossy().into_owned();
                let replace = |v: &[u8]| -> Vec<u8> {
                    let s = String::from_utf8_lossy(v).replace(&d, "@");
                    s.split_inclusive('\n')
                        .filter(|l| !case.drop_prefix.iter().any(|p| l.starts_with(p)))
                        .collect::<String>()
                        .into_bytes()
                };
                (
                    normalise(&replace(&o.stdout), case.order),
                    replace(&o.stderr),
                    o.tree.clone(),
                )
            };
            let (g_out, g_err, g_tree) = norm(&gnu, gnu_dir);
            let (o_out, o_err, o_tree) = norm(&ours, our_dir);
            let same =
                g_out == o_out && g_err == o_err && gnu.status == ours.status && g_tree == o_tree;
            if same {
                pass += 1;
                println!("ok   {}", case.name);
            } else {
                fail += 1;
                failures.push(case.name.to_string());
                println!("FAIL {} : {} {}", case.name, case.tool, case.args.join(" "));
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
            }
        }
        let (up_pass, up_fail, up_skip, up_failures) = upstream_cases(&filter);
        failures.extend(up_failures);
        fail += up_fail;
        println!("\ndifferential: {pass} agree, {fail} differ, {skip} skipped");
        println!("upstream gold outputs: {up_pass} agree, {up_fail} differ, {up_skip} skipped");
        if fail > 0 {
            println!("differing: {}", failures.join(", "));
            std::process::exit(1);
        }
    }
}
