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
    raise_open_file_limit();
    match cli::run(args) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("intercode: {e:#}");
            ExitCode::from(2)
        }
    }
}

/// Every episode holds directory handles while its tree is walked, and `-j N` runs N at once;
/// the soft limit of many systems (1024) is far below the hard one. Raise it as far as the
/// hard limit allows, as build tools do.
fn raise_open_file_limit() {
    use rustix::process::{Resource, getrlimit, setrlimit};
    let mut limit = getrlimit(Resource::Nofile);
    if limit.current < limit.maximum {
        limit.current = limit.maximum;
        if let Err(e) = setrlimit(Resource::Nofile, limit) {
            tracing::debug!("could not raise the open-file limit: {e}");
        }
    }
}
