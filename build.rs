//! Build script; each step lives in its own file under `build/`:
//!
//! * `build/guest.rs`: builds the two wasm32-wasip1 guests into OUT_DIR — the multicall box
//!   (`wasm-tools/` → `intercode-box.wasm`) and the Python REPL (`python-guest/`: RustPython
//!   0.4.0 → `intercode-python.wasm`);
//! * `build/fixtures.rs`: packs `fixtures/bash/tree` into `$OUT_DIR/bash_tree.tar`.

use std::path::PathBuf;

#[path = "build/fixtures.rs"]
mod fixtures;
#[path = "build/guest.rs"]
mod guest;

const BOX: guest::Guest = guest::Guest {
    dir: "wasm-tools",
    package: Some("intercode-box"),
    artifact: "intercode-box.wasm",
    watch: &["Cargo.toml", "Cargo.lock", "crates"],
    env_prefix: "INTERCODE_GUEST",
    home_cache: None,
};

const PYTHON: guest::Guest = guest::Guest {
    dir: "python-guest",
    package: None,
    artifact: "intercode-python.wasm",
    watch: &["Cargo.toml", "Cargo.lock", "src", ".cargo/config.toml"],
    env_prefix: "INTERCODE_PYTHON",
    home_cache: Some(".cache/intercode-python-target"),
};

fn main() {
    let manifest_dir = PathBuf::from(
        std::env::var_os("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR"),
    );
    let out_dir = PathBuf::from(std::env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"));
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-changed=build");
    // The two guests build side by side. Cargo starts this script late on a fresh machine (it
    // runs units with many dependents first, and only the host crate depends on this one), so
    // the guests are the tail of the first build; one after the other, each one's serial phases
    // (its biggest crate, its link-time optimisation) left a core idle.
    std::thread::scope(|scope| {
        let python = scope.spawn(|| PYTHON.build(&manifest_dir, &out_dir));
        BOX.build(&manifest_dir, &out_dir);
        fixtures::pack_bash_tree(&manifest_dir, &out_dir);
        if let Err(panic) = python.join() {
            std::panic::resume_unwind(panic);
        }
    });
}
