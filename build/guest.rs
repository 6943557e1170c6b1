//! Builds a wasm32-wasip1 guest workspace with a nested `cargo build` and places the module in
//! OUT_DIR, so one `cargo build` / `cargo test` on a fresh clone does everything. Two guests use
//! it: the multicall box (`wasm-tools/`) and the Python REPL (`python-guest/`).
//!
//! For each guest, `<PREFIX>_WASM=path` uses a prebuilt module instead and
//! `<PREFIX>_TARGET_DIR` chooses the guest's cargo target dir; the module's FNV-64 hash is
//! exported as `<PREFIX>_HASH` (the key of the on-disk compiled-module cache).

use std::path::{Path, PathBuf};
use std::process::Command;

const TARGET: &str = "wasm32-wasip1";

/// One guest workspace to build.
pub struct Guest {
    /// Directory of the guest workspace, relative to the host crate.
    pub dir: &'static str,
    /// Package to build (`-p`), when the workspace has several.
    pub package: Option<&'static str>,
    /// File name of the module, in `target/wasm32-wasip1/release/` and in OUT_DIR.
    pub artifact: &'static str,
    /// Paths inside `dir` whose changes trigger a rebuild.
    pub watch: &'static [&'static str],
    /// Prefix of the environment variables (`INTERCODE_GUEST`, `INTERCODE_PYTHON`).
    pub env_prefix: &'static str,
    /// Target dir when `<PREFIX>_TARGET_DIR` is unset, under `$HOME` (shared by every checkout
    /// on the machine: a cold RustPython build takes minutes, an unchanged one a second);
    /// `None`: the workspace's own `target/`.
    pub home_cache: Option<&'static str>,
}

impl Guest {
    pub fn build(&self, manifest_dir: &Path, out_dir: &Path) {
        let guest_dir = manifest_dir.join(self.dir);
        for p in self.watch {
            println!("cargo:rerun-if-changed={}", guest_dir.join(p).display());
        }
        let wasm_var = format!("{}_WASM", self.env_prefix);
        let target_var = format!("{}_TARGET_DIR", self.env_prefix);
        println!("cargo:rerun-if-env-changed={wasm_var}");
        println!("cargo:rerun-if-env-changed={target_var}");

        let wasm = match std::env::var_os(&wasm_var) {
            Some(p) => PathBuf::from(p),
            None => self.cargo_build(&guest_dir, &target_var),
        };
        let bytes = std::fs::read(&wasm)
            .unwrap_or_else(|e| panic!("cannot read the guest module {}: {e}", wasm.display()));
        std::fs::write(out_dir.join(self.artifact), &bytes).expect("write guest to OUT_DIR");
        println!(
            "cargo:rustc-env={}_HASH={}",
            self.env_prefix,
            fnv64_hex(&bytes)
        );
    }

    fn target_dir(&self, guest_dir: &Path, target_var: &str) -> PathBuf {
        if let Some(d) = std::env::var_os(target_var) {
            return PathBuf::from(d);
        }
        match (self.home_cache, std::env::var_os("HOME")) {
            (Some(sub), Some(home)) => PathBuf::from(home).join(sub),
            _ => guest_dir.join("target"),
        }
    }

    fn cargo_build(&self, guest_dir: &Path, target_var: &str) -> PathBuf {
        ensure_target_installed();
        let target_dir = self.target_dir(guest_dir, target_var);
        let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
        let mut cmd = Command::new(cargo);
        cmd.current_dir(guest_dir)
            .args(["build", "--release", "--locked", "--target", TARGET])
            .env("CARGO_TARGET_DIR", &target_dir);
        if let Some(p) = self.package {
            cmd.args(["-p", p]);
        }
        // Settings of the outer (host) build must not leak into the guest build.
        for var in [
            "RUSTFLAGS",
            "CARGO_ENCODED_RUSTFLAGS",
            "CARGO_BUILD_TARGET",
            "RUSTC_WORKSPACE_WRAPPER",
            "CARGO_PROFILE_RELEASE_DEBUG",
            "CARGO_MAKEFLAGS",
            "MAKEFLAGS",
            "MFLAGS",
        ] {
            cmd.env_remove(var);
        }
        let status = cmd
            .status()
            .unwrap_or_else(|e| panic!("cannot run cargo for the guest {}: {e}", self.dir));
        assert!(
            status.success(),
            "building the guest ({}/) failed",
            self.dir
        );
        target_dir.join(TARGET).join("release").join(self.artifact)
    }
}

/// rustup installs the targets listed in rust-toolchain.toml only when it installs the
/// toolchain; add the wasm target if an existing toolchain lacks it.
fn ensure_target_installed() {
    // Both guests build at once (see build.rs); one check is enough.
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(add_target_if_missing);
}

fn add_target_if_missing() {
    let rustc = std::env::var_os("RUSTC").unwrap_or_else(|| "rustc".into());
    let sysroot = Command::new(rustc)
        .args(["--print", "sysroot"])
        .output()
        .ok()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string());
    let installed = sysroot
        .map(|s| Path::new(&s).join("lib/rustlib").join(TARGET).exists())
        .unwrap_or(false);
    if !installed {
        let _ = Command::new("rustup")
            .args(["target", "add", TARGET])
            .status();
    }
}

fn fnv64_hex(bytes: &[u8]) -> String {
    let mut h: u64 = 0xcbf29ce484222325;
    for b in bytes {
        h ^= u64::from(*b);
        h = h.wrapping_mul(0x100000001b3);
    }
    format!("{h:016x}")
}
