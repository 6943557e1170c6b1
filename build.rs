//! Build script; each step lives in its own file under `build/`:
//!
//! * `build/guest.rs`: builds the guest (`wasm-tools/`) into `$OUT_DIR/intercode-box.wasm`;
//! * `build/fixtures.rs`: packs `fixtures/bash/tree` into `$OUT_DIR/bash_tree.tar`.

use std::path::PathBuf;

#[path = "build/fixtures.rs"]
mod fixtures;
#[path = "build/guest.rs"]
mod guest;

fn main() {
    let manifest_dir = PathBuf::from(
        std::env::var_os("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR"),
    );
    let out_dir = PathBuf::from(std::env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"));
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-changed=build");
    guest::build(&manifest_dir, &out_dir);
    fixtures::pack_bash_tree(&manifest_dir, &out_dir);
}
