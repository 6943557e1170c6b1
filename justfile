# Mirrors CI (.ci/run → scripts/test). `just` is optional: every recipe is one plain command.

export CARGO_TARGET_DIR := env_var_or_default("CARGO_TARGET_DIR", env_var("HOME") + "/.cache/intercode-target")
export INTERCODE_GUEST_TARGET_DIR := env_var_or_default("INTERCODE_GUEST_TARGET_DIR", env_var("HOME") + "/.cache/intercode-guest-target")

# Run the gold agent over the embedded fixtures.
default:
    cargo run --release -- run bash --agent gold

# Build only the wasm guest.
guest:
    cd wasm-tools && CARGO_TARGET_DIR=$INTERCODE_GUEST_TARGET_DIR cargo build --release --target wasm32-wasip1 -p intercode-box

test:
    ./scripts/test

lint:
    cargo clippy --release --all-targets -- -D warnings
    cd wasm-tools && CARGO_TARGET_DIR=$INTERCODE_GUEST_TARGET_DIR cargo clippy --release --target wasm32-wasip1 --workspace -- -D warnings

fmt:
    cargo fmt --all && cd wasm-tools && cargo fmt --all && cd ../python-guest && cargo fmt --all

bench:
    cargo bench

ci:
    ./.ci/run
