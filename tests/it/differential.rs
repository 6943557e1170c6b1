//! The same commands in the sandbox and in native GNU bash, each on its own fresh copy of the
//! fixture tree: stdout+stderr, exit status and the resulting files (paths, kinds, contents,
//! executable bits) are compared, and the agreement rate is printed.

use intercode::env::Env;
use intercode::env::bash::{BashEnv, BashOptions};
use intercode::fs::{EpisodeDir, Snapshot};
use std::collections::BTreeMap;
use std::process::Command;

const CORPUS: &str = include_str!("corpus/bash.txt");

/// What the tree looks like under `project/`: path → (kind, md5, executable).
fn tree_of(dir: &cap_std::fs::Dir) -> BTreeMap<String, String> {
    let snap = Snapshot::capture(dir).expect("snapshot");
    snap.iter()
        .filter(|(p, _)| p.starts_with("project"))
        .map(|(p, e)| {
            // Compressed archives embed timestamps; their listings are compared by the
            // commands themselves, not their bytes.
            let compressed = p.ends_with(".gz") || p.ends_with(".tgz");
            let md5 = match e.md5 {
                Some(d) if !compressed => format!("{d:02x?}"),
                _ => String::new(),
            };
            (
                p.to_string(),
                format!("{:?} {md5} x={}", e.kind, e.mode & 0o111 != 0),
            )
        })
        .collect()
}

#[test]
fn sandbox_agrees_with_gnu_bash() {
    if Command::new("bash").arg("--version").output().is_err() {
        assert!(
            std::env::var("CI").as_deref() != Ok("true"),
            "bash missing in CI"
        );
        eprintln!("note: no native bash; skipping");
        return;
    }
    let set = intercode::data::fixtures::bash_tasks().unwrap();
    let tree = set.tree.clone();
    let mut env = BashEnv::new(set, BashOptions::default()).unwrap();
    let commands: Vec<&str> = CORPUS
        .lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .collect();
    let mut agree = 0;
    let mut report = Vec::new();
    for cmd in &commands {
        env.reset(0).unwrap();
        let step = env.step(cmd).unwrap();
        let ours_status = step.exit_status.map(i64::from);
        // On a disk filesystem, like upstream's container: tmpfs reports directories with no
        // blocks, which `du` would show.
        let native = EpisodeDir::new_in(&std::env::temp_dir(), &tree).unwrap();
        let out = Command::new("/bin/bash")
            .arg("-c")
            .arg(cmd)
            .current_dir(native.path())
            .env_clear()
            .env("PATH", "/usr/local/bin:/usr/bin:/bin")
            .env("HOME", "/root")
            .env("LC_ALL", "C")
            .env("TZ", "UTC")
            .output()
            .unwrap();
        let mut native_text = String::from_utf8_lossy(&out.stdout).into_owned();
        native_text.push_str(&String::from_utf8_lossy(&out.stderr));
        let native_status = out.status.code().map(i64::from);
        let ours_tree = env.episode_tree().map(tree_of);
        let native_tree = tree_of(native.dir());
        let same_files = ours_tree.as_ref() == Some(&native_tree);
        // stderr ordering between our interleaved capture and a separate native capture can
        // differ, so outputs are compared as multisets of lines.
        let lines = |s: &str| {
            let mut v: Vec<String> = s.lines().map(str::to_string).collect();
            v.sort();
            v
        };
        let same_out = lines(&step.observation) == lines(&native_text);
        if same_out && ours_status == native_status && same_files {
            agree += 1;
        } else {
            report.push(format!(
                "DIFF {cmd}\n  ours   ({ours_status:?}): {:?}\n  native ({native_status:?}): {:?}{}",
                step.observation.chars().take(240).collect::<String>(),
                native_text.chars().take(240).collect::<String>(),
                if same_files { "" } else { "\n  (resulting files differ)" }
            ));
        }
    }
    println!("{}", report.join("\n"));
    let rate = 100.0 * agree as f64 / commands.len() as f64;
    println!(
        "differential corpus: {agree}/{} commands agree with GNU bash ({rate:.1}%)",
        commands.len()
    );
    assert!(commands.len() >= 100);
    // Regression floor; the figure is printed above.
    assert!(rate >= 97.0, "agreement fell to {rate:.1}%");
}
