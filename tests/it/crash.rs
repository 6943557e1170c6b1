//! What a run killed with SIGKILL leaves behind: its episode directories (tmpfs, i.e. memory)
//! are removed by the next run; a torn last record is skipped (see `harness_run`); and the
//! compiled-module cache only loads what nobody else could have planted.

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

fn episode_dirs(root: &Path) -> Vec<String> {
    std::fs::read_dir(root)
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with("intercode-episode-"))
        .collect()
}

#[test]
fn the_next_run_removes_what_a_killed_run_left() {
    let root = tempfile::tempdir().unwrap();
    // A human agent waiting at its prompt: an episode is open when the kill comes.
    let mut child = Command::new(env!("CARGO_BIN_EXE_intercode"))
        .args(["run", "bash", "--agent", "human", "--only", "0"])
        .env("INTERCODE_EPISODE_ROOT", root.path())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(60);
    while episode_dirs(root.path()).is_empty() {
        assert!(Instant::now() < deadline, "no episode directory appeared");
        std::thread::sleep(Duration::from_millis(20));
    }
    std::thread::sleep(Duration::from_millis(200));
    let pid = child.id();
    child.kill().unwrap();
    child.wait().unwrap();
    let left = episode_dirs(root.path());
    assert!(
        left.iter()
            .any(|n| n.starts_with(&format!("intercode-episode-{pid}-"))),
        "{left:?}"
    );
    // A directory of a live process (this test's) is not touched.
    let live = root.path().join(format!(
        "intercode-episode-{}-{}-keep",
        std::process::id(),
        own_start_time()
    ));
    std::fs::create_dir(&live).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_intercode"))
        .args(["run", "bash", "--agent", "gold", "--only", "0"])
        .env("INTERCODE_EPISODE_ROOT", root.path())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let after = episode_dirs(root.path());
    assert_eq!(
        after,
        [live.file_name().unwrap().to_string_lossy().into_owned()]
    );
}

fn own_start_time() -> u64 {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap();
    let after = &stat[stat.rfind(')').unwrap() + 1..];
    after.split_whitespace().nth(19).unwrap().parse().unwrap()
}

fn run_with_cache(cache: &Path) -> (bool, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_intercode"))
        .args(["run", "bash", "--agent", "gold", "--only", "0"])
        .env("INTERCODE_CACHE_DIR", cache)
        .env("INTERCODE_LOG", "warn")
        .output()
        .unwrap();
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn entries(dir: &Path, ext: &str) -> Vec<std::path::PathBuf> {
    std::fs::read_dir(dir)
        .map(|d| {
            d.flatten()
                .map(|e| e.path())
                .filter(|p| p.extension().is_some_and(|x| x == ext))
                .collect()
        })
        .unwrap_or_default()
}

#[test]
fn a_cache_others_can_write_is_refused_and_a_tampered_entry_is_recompiled() {
    use std::os::unix::fs::PermissionsExt;
    let tmp = tempfile::tempdir().unwrap();

    // World-writable: not used at all (compiled in memory), nothing written into it.
    let shared = tmp.path().join("shared");
    std::fs::create_dir(&shared).unwrap();
    std::fs::set_permissions(&shared, std::fs::Permissions::from_mode(0o777)).unwrap();
    let (ok, err) = run_with_cache(&shared);
    assert!(ok, "{err}");
    assert!(err.contains("writable by others"), "{err}");
    assert!(entries(&shared, "cwasm").is_empty());

    // Owned by someone else (root can hand it over): refused the same way.
    if rustix_is_root() {
        let foreign = tmp.path().join("foreign");
        std::fs::create_dir(&foreign).unwrap();
        std::os::unix::fs::chown(&foreign, Some(65534), Some(65534)).unwrap();
        let (ok, err) = run_with_cache(&foreign);
        assert!(ok, "{err}");
        assert!(err.contains("belongs to uid 65534"), "{err}");
    }

    // Ours: the entry is written with its keyed hash; a changed byte is caught, and the
    // module is compiled again and stored again (never loaded).
    let mine = tmp.path().join("mine");
    let (ok, err) = run_with_cache(&mine);
    assert!(ok, "{err}");
    let cwasm = entries(&mine, "cwasm");
    assert_eq!(cwasm.len(), 1, "{cwasm:?}");
    assert_eq!(entries(&mine, "mac").len(), 1);
    let original = std::fs::read(&cwasm[0]).unwrap();
    let mut tampered = original.clone();
    let middle = tampered.len() / 2;
    tampered[middle] ^= 0x55;
    std::fs::write(&cwasm[0], &tampered).unwrap();
    let (ok, err) = run_with_cache(&mine);
    assert!(ok, "{err}");
    assert!(err.contains("does not match its keyed hash"), "{err}");
    assert_eq!(
        std::fs::read(&cwasm[0]).unwrap(),
        original,
        "recompiled and stored again"
    );
    // And the good entry now loads without a word.
    let (ok, err) = run_with_cache(&mine);
    assert!(
        ok && !err.contains("keyed hash") && !err.contains("not using"),
        "{err}"
    );
}

fn rustix_is_root() -> bool {
    std::fs::read_to_string("/proc/self/status")
        .unwrap_or_default()
        .lines()
        .find(|l| l.starts_with("Uid:"))
        .and_then(|l| l.split_whitespace().nth(2).map(|u| u == "0"))
        .unwrap_or(false)
}
