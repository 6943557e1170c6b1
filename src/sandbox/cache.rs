//! The compiled-module cache. Cranelift needs seconds for the multicall module; loading a
//! precompiled `.cwasm` takes milliseconds. The key covers everything that makes a compiled
//! artifact incompatible: the guest bytes, the wasmtime version and the engine's
//! configuration.
//!
//! Loading an entry runs whatever native code it holds, so an entry is only loaded when nobody
//! else could have planted it:
//! * the directory belongs to the current user, is a real directory (not a symlink) and is
//!   writable by nobody else (created `0700`); otherwise the cache is not used and the module
//!   is compiled in memory;
//! * every entry has a keyed hash beside it (HMAC-SHA-256 with a per-directory secret key,
//!   `key`, `0600`); the entry's bytes are read once, checked, and deserialized from those
//!   same bytes (no window between check and use). A mismatch is reported, and the module
//!   recompiled and stored again;
//! * entries and keys are written atomically (temporary file + rename).
//!
//! The directory: `$INTERCODE_CACHE_DIR`, else `$XDG_CACHE_HOME/intercode-wasm`, else
//! `$HOME/.cache/intercode-wasm`, where an empty or relative `XDG_CACHE_HOME`/`HOME` counts as
//! unset (as the XDG spec says), else `intercode-wasm-<uid>` under the system temp dir — which
//! the ownership check protects like any other.

#![allow(clippy::disallowed_methods)]

use sha2::{Digest, Sha256};
use std::hash::{DefaultHasher, Hash, Hasher};
use std::io::{Read, Write};
use std::os::unix::fs::{DirBuilderExt, MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};
use wasmtime::{Engine, Module};

/// Where compiled modules live (see the module docs).
pub(crate) fn cache_dir() -> PathBuf {
    let non_empty = |name: &str| std::env::var_os(name).filter(|v| !v.is_empty());
    if let Some(d) = non_empty("INTERCODE_CACHE_DIR") {
        return PathBuf::from(d);
    }
    let absolute = |name: &str| {
        non_empty(name)
            .map(PathBuf::from)
            .filter(|p| p.is_absolute())
    };
    if let Some(d) = absolute("XDG_CACHE_HOME") {
        return d.join("intercode-wasm");
    }
    if let Some(h) = absolute("HOME") {
        return h.join(".cache").join("intercode-wasm");
    }
    std::env::temp_dir().join(format!(
        "intercode-wasm-{}",
        rustix::process::geteuid().as_raw()
    ))
}

fn cache_key(engine: &Engine, wasm_hash: &str) -> String {
    let mut h = DefaultHasher::new();
    engine.precompile_compatibility_hash().hash(&mut h);
    format!("{wasm_hash}-{:016x}", h.finish())
}

pub(crate) fn load_or_compile(
    engine: &Engine,
    wasm: &[u8],
    wasm_hash: &str,
) -> crate::Result<Module> {
    load_or_build(engine, wasm_hash, || Ok(wasm.to_vec()))
}

/// Like [`load_or_compile`] for a module whose bytes are costly to make (an instrumented or
/// snapshotted guest): `build` runs only when the cache has no usable entry for `key`.
pub(crate) fn load_or_build(
    engine: &Engine,
    key: &str,
    build: impl FnOnce() -> crate::Result<Vec<u8>>,
) -> crate::Result<Module> {
    let wasm_hash = key;
    let dir = cache_dir();
    let cache = match TrustedDir::open(&dir) {
        Ok(c) => Some(c),
        Err(why) => {
            tracing::warn!(
                "not using the module cache {}: {why}; compiling in memory",
                dir.display()
            );
            None
        }
    };
    let name = cache_key(engine, wasm_hash);
    if let Some(cache) = &cache {
        match cache.read_checked(&name) {
            Ok(Some(bytes)) => {
                // SAFETY: these bytes were written by `Module::serialize` into a directory
                // that only this user can write, and their keyed hash (secret key in that
                // directory) was checked just now on these very bytes; wasmtime additionally
                // checks the header and rejects artifacts of another version or config.
                #[expect(
                    unsafe_code,
                    reason = "loading our own precompiled module is the one unsafe"
                )]
                let loaded = unsafe { Module::deserialize(engine, &bytes) };
                match loaded {
                    Ok(m) => return Ok(m),
                    Err(e) => tracing::warn!("ignoring an unusable module cache entry: {e:#}"),
                }
            }
            Ok(None) => {}
            Err(why) => tracing::warn!("not loading cache entry {name}: {why}; recompiling"),
        }
    }
    tracing::info!(
        "compiling the guest module (once; cached in {})",
        dir.display()
    );
    let module = Module::new(engine, &build()?)?;
    if let Some(cache) = &cache
        && let Err(e) = module
            .serialize()
            .map_err(|e| e.to_string())
            .and_then(|bytes| cache.store(&name, &bytes))
    {
        tracing::warn!(
            "could not cache the compiled guest in {}: {e}",
            dir.display()
        );
    }
    Ok(module)
}

/// A cache directory that passed the ownership checks, with its secret key.
struct TrustedDir {
    dir: PathBuf,
    key: Vec<u8>,
}

/// Why a path is not safe to load native code from, or `Ok`.
fn owned_and_private(path: &Path, want_dir: bool) -> Result<(), String> {
    let meta = std::fs::symlink_metadata(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let me = rustix::process::geteuid().as_raw();
    if want_dir && !meta.is_dir() {
        return Err(format!("{} is not a directory", path.display()));
    }
    if !want_dir && !meta.is_file() {
        return Err(format!("{} is not a regular file", path.display()));
    }
    if meta.uid() != me {
        return Err(format!(
            "{} belongs to uid {}, not to this user ({me})",
            path.display(),
            meta.uid()
        ));
    }
    if meta.mode() & 0o022 != 0 {
        return Err(format!(
            "{} is writable by others (mode {:o})",
            path.display(),
            meta.mode() & 0o7777
        ));
    }
    Ok(())
}

const KEY_FILE: &str = "key";

impl TrustedDir {
    fn open(dir: &Path) -> Result<TrustedDir, String> {
        if let Err(e) = std::fs::DirBuilder::new()
            .recursive(true)
            .mode(0o700)
            .create(dir)
        {
            return Err(format!("cannot create it: {e}"));
        }
        owned_and_private(dir, true)?;
        let key_path = dir.join(KEY_FILE);
        if std::fs::symlink_metadata(&key_path).is_err() {
            let mut key = vec![0u8; 32];
            std::fs::File::open("/dev/urandom")
                .and_then(|mut f| f.read_exact(&mut key))
                .map_err(|e| format!("no random key: {e}"))?;
            write_atomically(dir, &key_path, &key, true)?;
        }
        owned_and_private(&key_path, false)?;
        let key = std::fs::read(&key_path).map_err(|e| format!("{}: {e}", key_path.display()))?;
        if key.len() < 32 {
            return Err(format!("{} is too short to be a key", key_path.display()));
        }
        Ok(TrustedDir {
            dir: dir.to_path_buf(),
            key,
        })
    }

    /// The entry's bytes when it exists and its keyed hash matches; `Ok(None)` when there is
    /// no entry; `Err` when it exists but cannot be trusted.
    fn read_checked(&self, name: &str) -> Result<Option<Vec<u8>>, String> {
        let entry = self.dir.join(entry_file(name));
        if std::fs::symlink_metadata(&entry).is_err() {
            return Ok(None);
        }
        owned_and_private(&entry, false)?;
        let mac_path = self.dir.join(format!("{name}.mac"));
        owned_and_private(&mac_path, false)?;
        let bytes = std::fs::read(&entry).map_err(|e| format!("{}: {e}", entry.display()))?;
        let recorded = std::fs::read_to_string(&mac_path)
            .map_err(|e| format!("{}: {e}", mac_path.display()))?;
        let expected = entry_mac(&self.key, name, &bytes);
        if !constant_time_eq(recorded.trim().as_bytes(), expected.as_bytes()) {
            return Err(format!(
                "{} does not match its keyed hash (tampered or damaged)",
                entry.display()
            ));
        }
        Ok(Some(bytes))
    }

    fn store(&self, name: &str, bytes: &[u8]) -> Result<(), String> {
        let entry = self.dir.join(entry_file(name));
        let mac_path = self.dir.join(format!("{name}.mac"));
        // A record lost in a crash is only recomputed: not worth a disk flush per task.
        let durable = !name.starts_with(RECORD_PREFIX);
        write_atomically(&self.dir, &entry, bytes, durable)?;
        write_atomically(
            &self.dir,
            &mac_path,
            entry_mac(&self.key, name, bytes).as_bytes(),
            durable,
        )
    }
}

/// A compiled module's file, or a record's (its name says which: see [`RECORD_PREFIX`]).
fn entry_file(name: &str) -> String {
    if name.starts_with(RECORD_PREFIX) {
        format!("{name}.json")
    } else {
        format!("{name}.cwasm")
    }
}

/// Names of records (small results kept across runs) start with this.
const RECORD_PREFIX: &str = "record-";

/// A record stored by [`store_record`] under `name`, if there is one this user wrote and it is
/// intact. Any doubt (a foreign directory, a bad keyed hash) reads as no record.
pub(crate) fn load_record(name: &str) -> Option<Vec<u8>> {
    let dir = TrustedDir::open(&cache_dir()).ok()?;
    match dir.read_checked(&format!("{RECORD_PREFIX}{name}")) {
        Ok(bytes) => bytes,
        Err(why) => {
            tracing::warn!("ignoring cache record {name}: {why}");
            None
        }
    }
}

/// Keeps `bytes` under `name` for later runs (best effort: a cache that cannot be written is
/// only slower).
pub(crate) fn store_record(name: &str, bytes: &[u8]) {
    let stored = TrustedDir::open(&cache_dir())
        .and_then(|dir| dir.store(&format!("{RECORD_PREFIX}{name}"), bytes));
    if let Err(why) = stored {
        tracing::debug!("not keeping cache record {name}: {why}");
    }
}

/// Temporary file (0600) in `dir`, then rename over `path`: readers see all or nothing.
fn write_atomically(dir: &Path, path: &Path, bytes: &[u8], durable: bool) -> Result<(), String> {
    let mut tmp = tempfile::Builder::new()
        .prefix(".tmp-")
        .permissions(std::fs::Permissions::from_mode(0o600))
        .tempfile_in(dir)
        .map_err(|e| format!("{}: {e}", dir.display()))?;
    tmp.write_all(bytes)
        .and_then(|()| match durable {
            true => tmp.as_file().sync_all(),
            false => Ok(()),
        })
        .map_err(|e| format!("{}: {e}", tmp.path().display()))?;
    tmp.persist(path)
        .map_err(|e| format!("{}: {}", path.display(), e.error))?;
    Ok(())
}

/// The keyed hash of an entry: its name is hashed too, so an entry copied under another
/// guest's name (a valid module, but not the one asked for) does not match.
fn entry_mac(key: &[u8], name: &str, bytes: &[u8]) -> String {
    hmac_hex(key, &[name.as_bytes(), b"\0", bytes])
}

/// HMAC-SHA-256 (RFC 2104) of the concatenated `message` parts under `key`, in hex.
fn hmac_hex(key: &[u8], message: &[&[u8]]) -> String {
    const BLOCK: usize = 64;
    let mut block_key = [0u8; BLOCK];
    if key.len() > BLOCK {
        block_key[..32].copy_from_slice(&Sha256::digest(key));
    } else {
        block_key[..key.len()].copy_from_slice(key);
    }
    let pad = |byte: u8| -> Vec<u8> { block_key.iter().map(|k| k ^ byte).collect() };
    let mut inner = Sha256::new().chain_update(pad(0x36));
    for part in message {
        inner.update(part);
    }
    let inner = inner.finalize();
    let outer = Sha256::new()
        .chain_update(pad(0x5c))
        .chain_update(inner)
        .finalize();
    outer.iter().map(|b| format!("{b:02x}")).collect()
}

fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hmac_matches_rfc_4231_case_2() {
        // RFC 4231, test case 2: key "Jefe", data "what do ya want for nothing?".
        assert_eq!(
            hmac_hex(b"Jefe", &[b"what do ya want ", b"for nothing?"]),
            "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"
        );
    }

    #[test]
    fn entries_round_trip_and_tampering_is_caught() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("cache");
        let cache = TrustedDir::open(&dir).unwrap();
        assert_eq!(cache.read_checked("m").unwrap(), None);
        cache.store("m", b"compiled bytes").unwrap();
        assert_eq!(cache.read_checked("m").unwrap().unwrap(), b"compiled bytes");
        // Same size, one byte changed.
        std::fs::write(dir.join("m.cwasm"), b"compiled bytez").unwrap();
        assert!(cache.read_checked("m").unwrap_err().contains("keyed hash"));
        // A valid entry copied under another name does not match there.
        cache.store("m", b"compiled bytes").unwrap();
        std::fs::copy(dir.join("m.cwasm"), dir.join("other.cwasm")).unwrap();
        std::fs::copy(dir.join("m.mac"), dir.join("other.mac")).unwrap();
        assert!(cache.read_checked("other").is_err());
        // A planted entry without a hash is refused too.
        std::fs::remove_file(dir.join("m.mac")).unwrap();
        assert!(cache.read_checked("m").is_err());
    }

    #[test]
    fn a_directory_others_can_write_is_refused() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("shared");
        std::fs::create_dir(&dir).unwrap();
        std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o777)).unwrap();
        let err = TrustedDir::open(&dir).err().expect("refused");
        assert!(err.contains("writable by others"), "{err}");
        let link = tmp.path().join("link");
        std::os::unix::fs::symlink(tmp.path(), &link).unwrap();
        assert!(TrustedDir::open(&link).is_err(), "a symlinked cache dir");
    }
}
