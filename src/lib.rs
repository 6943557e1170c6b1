//! intercode-wasm: the InterCode interactive coding benchmark without Docker.
//!
//! Layers, from the bottom up (a module only uses the ones listed before it):
//!
//! * [`sandbox`] — the only wasmtime code: one engine, the cached guest module, one process run,
//!   the `intercode` host imports (spawn, pipes, metadata) the guest shell uses instead of fork/exec.
//! * [`fs`] — the only host-filesystem code: tree images, per-episode directories, snapshots and
//!   the git-status-style diff the bash reward needs.
//! * [`reward`] — upstream InterCode's scoring, reproduced exactly.
//! * [`data`] — task files (upstream's and our fixtures) and trajectories.
//! * [`env`] — the [`env::Env`] contract, the one episode state machine, [`env::EnvSpec`] (the
//!   one way to build an env) and the bash, SQL and Python envs.
//! * [`harness`] — policies (gold, replay, chat strategies), the runner, run directories,
//!   metrics, reports and exports.
//! * `server` (feature `server`) — the MCP server and the HTTP gym API.
//! * front ends (the `intercode` binary: `cli`; `server`) build on these and nothing below
//!   imports them.
//!
//! ```no_run
//! use intercode::env::{Env, EnvKind, EnvSpec};
//! # fn main() -> intercode::Result<()> {
//! let mut env = EnvSpec::new(EnvKind::Bash).build()?; // the embedded fixtures
//! let reset = env.reset(0)?;
//! println!("{}", reset.query);
//! let step = env.step("ls /")?;
//! println!("{} (exit {:?})", step.observation, step.exit_status);
//! println!("reward so far {}", env.evaluate()?.reward);
//! let done = env.step("submit")?;
//! println!("reward {}", done.reward);
//! # Ok(()) }
//! ```

pub mod conformance;
pub mod data;
pub mod env;
pub mod error;
pub mod fs;
pub mod harness;
pub mod reward;
pub mod sandbox;
#[cfg(feature = "server")]
pub mod server;

pub use error::{Error, ErrorKind, Result};
