//! `intercode download`: fetches the public data the benchmark runs on (upstream InterCode's
//! task files and logs, Spider dev, MBPP) into a data directory laid out like `../shared`, so
//! `--data-dir DIR` finds it.
//!
//! Every file is pinned: a repository, a commit, a path, and the git blob id of its contents
//! (`sources.tsv`). A file is written only when its bytes hash to that id, through a temporary
//! file renamed into place, so an interrupted or tampered download never leaves a wrong file
//! behind, and a second run fetches only what is missing or wrong. One failure does not stop
//! the others: the report lists each.
//!
//! The bash file trees (`filesystems/fs_N.effective.tar.gz`) have no public copy: upstream
//! builds them inside Docker with its setup scripts. The `bash` group fetches those scripts
//! and [`crate::data::fs_build`] builds the trees from them in our sandbox.

#[cfg(feature = "http")]
use std::io::Read;
use std::path::{Path, PathBuf};
use std::time::Duration;

use sha1::{Digest, Sha1};

#[cfg(feature = "http")]
use crate::{Error, Result};

/// Where raw files of public GitHub repositories are served from.
pub const GITHUB_RAW: &str = "https://raw.githubusercontent.com";

/// The largest file we accept (the MySQL dump is ~1 MB, the largest log ~30 MB).
#[cfg(feature = "http")]
const MAX_BYTES: u64 = 256 << 20;

/// One pinned public file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Source {
    /// `bash`, `sql`, `python` or `logs`.
    pub group: String,
    /// `owner/name` on GitHub.
    pub repo: String,
    pub commit: String,
    /// Path inside the repository.
    pub path: String,
    /// Git blob id (SHA-1 of `blob <len>\0<bytes>`).
    pub blob: String,
    /// Where it goes, relative to the data directory.
    pub dest: String,
}

impl Source {
    pub fn url(&self, base: &str) -> String {
        format!(
            "{}/{}/{}/{}",
            base.trim_end_matches('/'),
            self.repo,
            self.commit,
            self.path
        )
    }
}

/// Every file `intercode download` knows.
pub fn sources() -> Vec<Source> {
    include_str!("sources.tsv")
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .filter_map(|l| {
            let f: Vec<&str> = l.split('\t').collect();
            let [group, repo, commit, path, blob, dest] = f.as_slice() else {
                return None;
            };
            Some(Source {
                group: group.to_string(),
                repo: repo.to_string(),
                commit: commit.to_string(),
                path: path.to_string(),
                blob: blob.to_string(),
                dest: dest.to_string(),
            })
        })
        .collect()
}

/// The groups, for `--only` and its error message.
pub const GROUPS: &[&str] = &["bash", "sql", "python", "logs"];

/// Git's id of a blob with these contents.
pub fn git_blob_id(bytes: &[u8]) -> String {
    let mut h = Sha1::new();
    h.update(format!("blob {}\0", bytes.len()).as_bytes());
    h.update(bytes);
    h.finalize().iter().map(|b| format!("{b:02x}")).collect()
}

/// What happened to one file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Fetched {
    /// Already there with the right contents.
    Present,
    /// Downloaded and checked (bytes).
    Downloaded(u64),
    /// Could not be had; the reason.
    Failed(String),
}

/// How to download.
#[derive(Debug, Clone)]
pub struct DownloadOptions {
    /// Replaces [`GITHUB_RAW`] (a mirror, or a local server in tests).
    pub base_url: String,
    /// Only these groups (all when empty).
    pub groups: Vec<String>,
    /// Per-request timeout.
    pub timeout: Duration,
}

impl Default for DownloadOptions {
    fn default() -> Self {
        DownloadOptions {
            base_url: GITHUB_RAW.to_string(),
            groups: Vec::new(),
            timeout: Duration::from_secs(60),
        }
    }
}

#[cfg(feature = "http")]
/// Fetches every selected source into `data_dir`, calling `progress` after each file.
pub fn download(
    data_dir: &Path,
    options: &DownloadOptions,
    mut progress: impl FnMut(&Source, &Fetched),
) -> Result<Vec<(Source, Fetched)>> {
    for g in &options.groups {
        if !GROUPS.contains(&g.as_str()) {
            return Err(Error::Other(format!(
                "unknown data group {g:?}: expected one of {}",
                GROUPS.join(", ")
            )));
        }
    }
    let agent = ureq::AgentBuilder::new()
        .timeout(options.timeout)
        .user_agent(concat!("intercode-wasm/", env!("CARGO_PKG_VERSION")))
        .build();
    let mut report = Vec::new();
    for source in sources() {
        if !options.groups.is_empty() && !options.groups.contains(&source.group) {
            continue;
        }
        let dest = data_dir.join(&source.dest);
        let fetched = if is_intact(&dest, &source.blob) {
            Fetched::Present
        } else {
            match fetch_one(&agent, &source, &options.base_url, &dest) {
                Ok(n) => Fetched::Downloaded(n),
                Err(e) => Fetched::Failed(e),
            }
        };
        progress(&source, &fetched);
        report.push((source, fetched));
    }
    Ok(report)
}

#[cfg(feature = "http")]
fn is_intact(path: &Path, blob: &str) -> bool {
    std::fs::read(path).is_ok_and(|bytes| git_blob_id(&bytes) == blob)
}

#[cfg(feature = "http")]
fn fetch_one(
    agent: &ureq::Agent,
    source: &Source,
    base: &str,
    dest: &Path,
) -> std::result::Result<u64, String> {
    let url = source.url(base);
    let response = agent.get(&url).call().map_err(|e| match e {
        ureq::Error::Status(code, _) => format!("{url}: HTTP {code}"),
        other => format!("{url}: {other}"),
    })?;
    let mut bytes = Vec::new();
    response
        .into_reader()
        .take(MAX_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| format!("{url}: {e}"))?;
    if bytes.len() as u64 > MAX_BYTES {
        return Err(format!("{url}: larger than {MAX_BYTES} bytes"));
    }
    let got = git_blob_id(&bytes);
    if got != source.blob {
        return Err(format!(
            "{url}: contents differ from the pinned file (blob {got}, expected {})",
            source.blob
        ));
    }
    write_atomically(dest, &bytes).map_err(|e| format!("{}: {e}", dest.display()))?;
    Ok(bytes.len() as u64)
}

/// Writes through a temporary file in the same directory, renamed into place.
pub fn write_atomically(dest: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let dir = dest
        .parent()
        .map_or_else(|| PathBuf::from("."), Path::to_path_buf);
    std::fs::create_dir_all(&dir)?;
    let mut tmp = tempfile::NamedTempFile::new_in(&dir)?;
    std::io::Write::write_all(&mut tmp, bytes)?;
    tmp.persist(dest).map_err(|e| e.error)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blob_ids_match_git() {
        // `printf 'hello\n' | git hash-object --stdin`
        assert_eq!(
            git_blob_id(b"hello\n"),
            "ce013625030ba8dba906f756967f9e9ca394464a"
        );
        // The empty blob.
        assert_eq!(git_blob_id(b""), "e69de29bb2d1d6434b8b29ae775ad8c2e48c5391");
    }

    #[test]
    fn the_manifest_is_well_formed() {
        let all = sources();
        let lines = include_str!("sources.tsv")
            .lines()
            .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
            .count();
        assert_eq!(all.len(), lines, "a line of sources.tsv did not parse");
        for s in &all {
            assert!(GROUPS.contains(&s.group.as_str()), "{s:?}");
            assert_eq!(s.commit.len(), 40, "{s:?}");
            assert_eq!(s.blob.len(), 40, "{s:?}");
            assert!(!s.dest.starts_with('/') && !s.dest.contains(".."), "{s:?}");
        }
        let mut dests: Vec<&str> = all.iter().map(|s| s.dest.as_str()).collect();
        dests.sort();
        dests.dedup();
        assert_eq!(dests.len(), all.len(), "two sources write the same file");
    }

    #[test]
    fn unknown_groups_are_refused_before_anything_is_fetched() {
        let dir = tempfile::tempdir().unwrap();
        let options = DownloadOptions {
            groups: vec!["bogus".into()],
            ..DownloadOptions::default()
        };
        let err = download(dir.path(), &options, |_, _| {}).unwrap_err();
        assert!(err.to_string().contains("bash, sql, python, logs"), "{err}");
    }
}
