//! `intercode download` against a real HTTP server on 127.0.0.1 that serves the public files
//! from `../shared` (identical bytes: same git blob ids) under GitHub's raw URL layout.

use intercode::data::download::{self, DownloadOptions, Fetched, Source};
use std::io::{BufRead, BufReader, Write};
use std::net::TcpListener;
use std::path::{Path, PathBuf};

/// Serves `shared/<dest>` at each source's URL path; `tamper` names a dest whose bytes are
/// served altered. Returns the base URL.
fn serve(shared: PathBuf, tamper: Option<String>) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
    let base = format!("http://{}", listener.local_addr().unwrap());
    let sources = download::sources();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { continue };
            let mut reader = BufReader::new(stream.try_clone().unwrap());
            let mut request = String::new();
            if reader.read_line(&mut request).is_err() {
                continue;
            }
            loop {
                let mut header = String::new();
                if reader.read_line(&mut header).unwrap_or(0) == 0 || header == "\r\n" {
                    break;
                }
            }
            let path = request.split_whitespace().nth(1).unwrap_or("/").to_string();
            let found: Option<&Source> = sources.iter().find(|s| s.url("") == path);
            let body = found.and_then(|s| {
                let mut bytes = std::fs::read(shared.join(&s.dest)).ok()?;
                if tamper.as_deref() == Some(s.dest.as_str()) {
                    bytes.extend_from_slice(b"\n-- altered --\n");
                }
                Some(bytes)
            });
            let (status, body) = match body {
                Some(b) => ("200 OK", b),
                None => ("404 Not Found", b"not here".to_vec()),
            };
            let head = format!(
                "HTTP/1.1 {status}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
                body.len()
            );
            let _ = stream.write_all(head.as_bytes());
            let _ = stream.write_all(&body);
        }
    });
    base
}

fn options(base: &str, groups: &[&str]) -> DownloadOptions {
    DownloadOptions {
        base_url: base.to_string(),
        groups: groups.iter().map(|g| g.to_string()).collect(),
        ..DownloadOptions::default()
    }
}

#[test]
fn downloads_every_pinned_file_and_the_envs_run_on_it() {
    let Some(shared) = crate::harness::shared_dir() else {
        return;
    };
    let base = serve(shared.clone(), None);
    let target = tempfile::tempdir().unwrap();
    let report = download::download(target.path(), &options(&base, &[]), |_, _| {}).unwrap();
    assert_eq!(report.len(), download::sources().len());
    let mut downloaded = 0;
    for (source, fetched) in &report {
        let in_shared = shared.join(&source.dest).is_file();
        match fetched {
            Fetched::Downloaded(n) => {
                downloaded += 1;
                let got = std::fs::read(target.path().join(&source.dest)).unwrap();
                assert_eq!(got.len() as u64, *n);
                assert_eq!(download::git_blob_id(&got), source.blob, "{}", source.dest);
            }
            // `../shared` lacks one upstream log and the setup scripts; the server answers
            // 404 for those.
            Fetched::Failed(why) => {
                assert!(!in_shared, "{}: {why}", source.dest);
                assert!(why.contains("HTTP 404"), "{why}");
                assert!(!target.path().join(&source.dest).exists());
            }
            Fetched::Present => panic!("nothing was there yet: {}", source.dest),
        }
    }
    println!(
        "download: {downloaded}/{} pinned files fetched and verified from the local server",
        report.len()
    );
    let in_shared = report
        .iter()
        .filter(|(s, _)| shared.join(&s.dest).is_file())
        .count();
    assert_eq!(downloaded, in_shared);

    // A second run fetches nothing; a damaged file is fetched again.
    std::fs::write(target.path().join("datasets/mbpp/mbpp.jsonl"), b"damaged").unwrap();
    let again = download::download(target.path(), &options(&base, &["python"]), |_, _| {}).unwrap();
    for (source, fetched) in &again {
        let want_refetch = source.dest == "datasets/mbpp/mbpp.jsonl";
        assert_eq!(
            matches!(fetched, Fetched::Downloaded(_)),
            want_refetch,
            "{}: {fetched:?}",
            source.dest
        );
    }

    // What was downloaded is what the envs read.
    let set = intercode::data::spider::load(
        intercode::data::spider::SqlData::Spider,
        target.path(),
        None,
    )
    .unwrap();
    assert_eq!(set.tasks.len(), 1034);
    let mbpp =
        intercode::data::mbpp::load(&target.path().join(intercode::data::mbpp::IC_MBPP)).unwrap();
    assert_eq!(mbpp.tasks.len(), 974);
}

#[test]
fn altered_bytes_are_refused_and_never_written() {
    let Some(shared) = crate::harness::shared_dir() else {
        return;
    };
    let victim = "datasets/mbpp/sanitized-mbpp.json";
    let base = serve(shared, Some(victim.to_string()));
    let target = tempfile::tempdir().unwrap();
    let report =
        download::download(target.path(), &options(&base, &["python"]), |_, _| {}).unwrap();
    for (source, fetched) in &report {
        if source.dest == victim {
            let Fetched::Failed(why) = fetched else {
                panic!("altered file accepted: {fetched:?}");
            };
            assert!(why.contains("contents differ"), "{why}");
            assert!(!target.path().join(victim).exists());
        } else {
            assert!(matches!(fetched, Fetched::Downloaded(_)), "{fetched:?}");
        }
    }
}

#[test]
fn the_cli_reports_each_file_and_fails_when_the_server_is_unreachable() {
    let target = tempfile::tempdir().unwrap();
    // A port nobody listens on: bind, note the port, close.
    let port = TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_intercode"))
        .args(["download", "--only", "python", "--base-url"])
        .arg(format!("http://127.0.0.1:{port}"))
        .arg("--data-dir")
        .arg(target.path())
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    assert!(
        stdout.contains("FAILED      datasets/mbpp/mbpp.jsonl"),
        "{stdout}"
    );
    assert!(
        stdout.contains("3 files: 0 downloaded, 0 already present, 3 failed"),
        "{stdout}"
    );
    assert!(is_empty_dir(target.path()));
}

fn is_empty_dir(p: &Path) -> bool {
    std::fs::read_dir(p).unwrap().next().is_none()
}
