//! One integration-test binary: the envs end to end through the public library API.

mod bash;
mod cli;
mod conformance;
mod crash;
mod download;
mod fs_build;
mod fuzz;
mod guard;
mod harness;
#[cfg(feature = "http")]
mod harness_run;
mod hostile;
#[cfg(feature = "http")]
mod openai_client;
mod python;
mod report_browser;
#[cfg(feature = "server")]
mod server;
mod sql;
mod support;
mod upstream_bash;
