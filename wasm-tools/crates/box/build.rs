//! Link setting of the wasm module (see `src/libc_paths.rs`).

fn main() {
    if std::env::var("CARGO_CFG_TARGET_OS").as_deref() == Ok("wasi") {
        println!("cargo:rustc-link-arg-bins=--wrap=__wasilibc_find_relpath_alloc");
    }
}
