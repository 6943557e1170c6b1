//! The `intercode` command: parse, set up logging, hand over to `cli::run`.

mod cli;

use clap::Parser;
use std::process::ExitCode;

fn main() -> ExitCode {
    let args = cli::Cli::parse();
    tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_env("INTERCODE_LOG")
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn")),
        )
        .with_writer(std::io::stderr)
        .init();
    match cli::run(args) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("intercode: {e:#}");
            ExitCode::from(2)
        }
    }
}
