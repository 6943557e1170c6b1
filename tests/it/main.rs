//! One integration-test binary: the envs end to end through the public library API.

mod bash;
mod cli;
mod differential;
mod download;
mod fs_build;
mod harness;
mod python;
mod sql;
mod upstream_bash;
