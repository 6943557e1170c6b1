//! Builds the guest (`wasm-tools/`, target wasm32-wasip1) and places it in OUT_DIR, so one
//! `cargo build` / `cargo test` on a fresh clone does everything. Set `INTERCODE_GUEST_WASM`
//! to use a prebuilt module instead.

use std::path::{Path, PathBuf};
use std::process::Command;

const TARGET: &str = "wasm32-wasip1";

pub fn build(manifest_dir: &Path, out_dir: &Path) {
    let guest_dir = manifest_dir.join("wasm-tools");
    for p in ["Cargo.toml", "Cargo.lock", "crates"] {
        println!("cargo:rerun-if-changed={}", guest_dir.join(p).display());
    }
    println!("cargo:rerun-if-env-changed=INTERCODE_GUEST_WASM");
    println!("cargo:rerun-if-env-changed=INTERCODE_GUEST_TARGET_DIR");

    let wasm = match std::env::var_os("INTERCODE_GUEST_WASM") {
        Some(p) => PathBuf::from(p),
        None => cargo_build_guest(&guest_dir),
    };
    let bytes = std::fs::read(&wasm)
        .unwrap_or_else(|e| panic!("cannot read the guest module {}: {e}", wasm.display()));
    std::fs::write(out_dir.join("intercode-box.wasm"), &bytes).expect("write guest to OUT_DIR");
    println!("cargo:rustc-env=INTERCODE_GUEST_HASH={}", fnv64_hex(&bytes));
}

fn cargo_build_guest(guest_dir: &Path) -> PathBuf {
    ensure_target_installed();
    let target_dir = std::env::var_os("INTERCODE_GUEST_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| guest_dir.join("target"));
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let mut cmd = Command::new(cargo);
    cmd.current_dir(guest_dir)
        .args([
            "build",
            "--release",
            "--locked",
            "--target",
            TARGET,
            "-p",
            "intercode-box",
        ])
        .env("CARGO_TARGET_DIR", &target_dir);
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
        .unwrap_or_else(|e| panic!("cannot run cargo for the guest: {e}"));
    assert!(status.success(), "building the guest (wasm-tools/) failed");
    target_dir
        .join(TARGET)
        .join("release")
        .join("intercode-box.wasm")
}

/// rustup installs the targets listed in rust-toolchain.toml only when it installs the
/// toolchain; add the wasm target if an existing toolchain lacks it.
fn ensure_target_installed() {
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
