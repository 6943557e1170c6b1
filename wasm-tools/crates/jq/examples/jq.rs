//! The applet as a native program, for trying it beside jq 1.6.
fn main() {
    std::process::exit(jq::main(std::env::args_os().collect()));
}
