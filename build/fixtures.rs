//! Packs `fixtures/bash/tree` into `$OUT_DIR/bash_tree.tar`, which `data::fixtures` embeds.
//!
//! Git keeps neither mtimes nor modes other than 644/755, so the archive is made
//! deterministic here: every entry is owned by 0:0, files are 0644 or 0755 (by the
//! owner-executable bit of the checkout), directories 0755, and mtimes are
//! 2023-06-01T00:00:00Z unless `fixtures/bash/mtimes.txt` says otherwise. Entries are added in
//! sorted order so the bytes do not depend on readdir order.

use std::collections::BTreeMap;
use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;

/// 2023-06-01T00:00:00Z.
const DEFAULT_MTIME: u64 = 1_685_577_600;

/// Writes `out_dir/bash_tree.tar` from `manifest_dir/fixtures/bash`.
pub fn pack_bash_tree(manifest_dir: &Path, out_dir: &Path) {
    let fixtures = manifest_dir.join("fixtures/bash");
    let tree = fixtures.join("tree");
    let mtimes_path = fixtures.join("mtimes.txt");
    println!("cargo:rerun-if-changed={}", tree.display());
    println!("cargo:rerun-if-changed={}", mtimes_path.display());

    let mut mtimes = read_mtimes(&mtimes_path);
    let mut entries = Vec::new();
    collect(&tree, "", &mut entries);

    let mut builder = tar::Builder::new(Vec::new());
    for rel in &entries {
        let path = tree.join(rel);
        let meta =
            fs::symlink_metadata(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let mtime = mtimes.remove(rel.as_str()).unwrap_or(DEFAULT_MTIME);
        let mut header = tar::Header::new_gnu();
        header.set_uid(0);
        header.set_gid(0);
        header.set_mtime(mtime);
        let ft = meta.file_type();
        let result = if ft.is_symlink() {
            let target = fs::read_link(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            header.set_entry_type(tar::EntryType::Symlink);
            header.set_mode(0o777);
            header.set_size(0);
            builder.append_link(&mut header, rel, target)
        } else if ft.is_dir() {
            header.set_entry_type(tar::EntryType::Directory);
            header.set_mode(0o755);
            header.set_size(0);
            builder.append_data(&mut header, format!("{rel}/"), std::io::empty())
        } else if ft.is_file() {
            let bytes = fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            let executable = meta.permissions().mode() & 0o100 != 0;
            header.set_entry_type(tar::EntryType::Regular);
            header.set_mode(if executable { 0o755 } else { 0o644 });
            header.set_size(bytes.len() as u64);
            builder.append_data(&mut header, rel, bytes.as_slice())
        } else {
            panic!(
                "{}: only files, directories and symlinks belong in a fixture tree",
                path.display()
            );
        };
        result.unwrap_or_else(|e| panic!("packing {rel}: {e}"));
    }
    assert!(
        mtimes.is_empty(),
        "fixtures/bash/mtimes.txt names paths that are not in the tree: {:?}",
        mtimes.keys().collect::<Vec<_>>()
    );
    let tar = builder
        .into_inner()
        .expect("finishing an in-memory tar cannot fail");
    let out = out_dir.join("bash_tree.tar");
    fs::write(&out, tar).unwrap_or_else(|e| panic!("{}: {e}", out.display()));
}

/// Relative paths of everything below `dir`, parents first, each directory's children sorted.
fn collect(dir: &Path, prefix: &str, out: &mut Vec<String>) {
    let mut names: Vec<String> = fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|entry| {
            let entry = entry.unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
            entry
                .file_name()
                .into_string()
                .unwrap_or_else(|n| panic!("non-UTF-8 fixture name {n:?}"))
        })
        .collect();
    names.sort();
    for name in names {
        let rel = if prefix.is_empty() {
            name.clone()
        } else {
            format!("{prefix}/{name}")
        };
        out.push(rel.clone());
        let path = dir.join(&name);
        if fs::symlink_metadata(&path).is_ok_and(|m| m.file_type().is_dir()) {
            collect(&path, &rel, out);
        }
    }
}

/// Parses `mtimes.txt`: `<epoch seconds> <relative path>` per line, `#` comments.
fn read_mtimes(path: &Path) -> BTreeMap<String, u64> {
    let text = fs::read_to_string(path).unwrap_or_default();
    let mut map = BTreeMap::new();
    for (i, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let (secs, rel) = line
            .split_once(char::is_whitespace)
            .unwrap_or_else(|| panic!("{}:{}: expected `<seconds> <path>`", path.display(), i + 1));
        let secs = secs
            .parse()
            .unwrap_or_else(|e| panic!("{}:{}: bad seconds {secs:?}: {e}", path.display(), i + 1));
        map.insert(rel.trim().to_string(), secs);
    }
    map
}
