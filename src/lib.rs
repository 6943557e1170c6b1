//! intercode-wasm: the InterCode interactive coding benchmark without Docker.
//!
//! Layers, from the bottom up (a module only uses the ones listed before it):
//!
//! * [`sandbox`] — the only wasmtime code: one engine, the cached guest module, one process run,
//!   the `intercode` host imports (spawn, pipes, metadata) the guest shell uses instead of fork/exec.
//! * [`fs`] — the only host-filesystem code: tree images, per-episode directories, snapshots and
//!   the git-status-style diff the bash reward needs.
//! * [`env`] — the [`env::Env`] contract (`reset`, `step`, `submit`) and the bash and SQL envs.
//! * [`reward`] — upstream InterCode's scoring, reproduced exactly.
//! * [`data`] — task files (upstream's and our fixtures) and trajectories.
//! * [`agent`] — policies that produce actions (gold, replay).
//! * `cli` (binary only) — the `intercode` command.
//!
//! ```no_run
//! use intercode::env::{Env, bash::BashEnv};
//! use intercode::data::fixtures;
//! # fn main() -> intercode::Result<()> {
//! let tasks = fixtures::bash_tasks()?;
//! let mut env = BashEnv::new(tasks, Default::default())?;
//! let reset = env.reset(0)?;
//! println!("{}", reset.query);
//! let step = env.step("ls /")?;
//! println!("{}", step.observation);
//! let done = env.step("submit")?;
//! println!("reward {}", done.reward);
//! # Ok(()) }
//! ```

pub mod agent;
pub mod data;
pub mod env;
pub mod error;
pub mod fs;
pub mod reward;
pub mod sandbox;

pub use error::{Error, Result};
