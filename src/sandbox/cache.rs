//! The compiled-module cache. Cranelift needs seconds for the multicall module; loading a
//! precompiled `.cwasm` with mmap takes about a millisecond. The key covers everything that
//! makes a compiled artifact incompatible: the guest bytes, the wasmtime version and the
//! engine's configuration.

use std::hash::{DefaultHasher, Hash, Hasher};
use std::path::PathBuf;
use wasmtime::{Engine, Module};

/// Where compiled modules live: `$INTERCODE_CACHE_DIR`, else `$XDG_CACHE_HOME/intercode-wasm`,
/// else `~/.cache/intercode-wasm`, else a directory under the system temp dir.
pub(crate) fn cache_dir() -> PathBuf {
    if let Some(d) = std::env::var_os("INTERCODE_CACHE_DIR") {
        return PathBuf::from(d);
    }
    if let Some(d) = std::env::var_os("XDG_CACHE_HOME") {
        return PathBuf::from(d).join("intercode-wasm");
    }
    if let Some(h) = std::env::var_os("HOME") {
        return PathBuf::from(h).join(".cache").join("intercode-wasm");
    }
    std::env::temp_dir().join("intercode-wasm")
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
    let dir = cache_dir();
    let path = dir.join(format!("{}.cwasm", cache_key(engine, wasm_hash)));
    if path.exists() {
        // SAFETY: the file was written by `Module::serialize` of this same wasmtime version and
        // engine configuration (both are in the file name), into a directory only we write;
        // wasmtime additionally checks the header and rejects incompatible artifacts.
        #[expect(
            unsafe_code,
            reason = "loading our own precompiled module is the one unsafe"
        )]
        let loaded = unsafe { Module::deserialize_file(engine, &path) };
        match loaded {
            Ok(m) => return Ok(m),
            Err(e) => tracing::warn!("ignoring unusable module cache {}: {e:#}", path.display()),
        }
    }
    tracing::info!(
        "compiling the guest module (once; cached in {})",
        dir.display()
    );
    let module = Module::new(engine, wasm)?;
    if let Err(e) = store(&dir, &path, &module) {
        tracing::warn!(
            "could not cache the compiled guest in {}: {e}",
            dir.display()
        );
    }
    Ok(module)
}

/// Writes atomically (temp file + rename) so concurrent runs never read a half-written file.
fn store(dir: &std::path::Path, path: &std::path::Path, module: &Module) -> crate::Result<()> {
    let bytes = module.serialize()?;
    #[allow(clippy::disallowed_methods)]
    std::fs::create_dir_all(dir).map_err(|e| crate::Error::io(dir, e))?;
    let tmp = tempfile::NamedTempFile::new_in(dir).map_err(|e| crate::Error::io(dir, e))?;
    #[allow(clippy::disallowed_methods)]
    std::fs::write(tmp.path(), &bytes).map_err(|e| crate::Error::io(tmp.path(), e))?;
    tmp.persist(path)
        .map_err(|e| crate::Error::io(path, e.error))?;
    Ok(())
}
