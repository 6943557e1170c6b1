//! Resource limits of one action. Every number has its reason beside it; hitting a limit is an
//! observation for the agent (a message in the output, an exit status), never a harness error.

use std::time::Duration;

/// Limits applied to one action (one command line typed by the agent, and everything it spawns).
#[derive(Debug, Clone)]
pub struct Limits {
    /// Wall-clock budget of the whole action. 10 s is upstream's `TIMEOUT_DURATION`; the
    /// observation is then upstream's `Command timed out`.
    pub timeout: Duration,
    /// Linear memory per process. 256 MiB lets `sort` of a few MB and `find` over big trees work
    /// while a runaway allocation in one command cannot take the machine (24 GiB, shared).
    pub memory_per_process: usize,
    /// Linear memory of all the action's processes together. Without it, 60 background
    /// processes of 250 MiB each would take 15 GiB while every one stays under its own limit.
    /// 1 GiB leaves a pipeline of big sorts (or several `python3`) room to work.
    pub memory_per_action: usize,
    /// Output bytes kept for the observation. Upstream's harness shows models at most ~1000
    /// characters; 1 MiB keeps every realistic output whole and stops `yes` from eating memory.
    pub output_bytes: usize,
    /// Processes alive at once. Pipelines in the benchmark have at most 7 stages and `xargs -P10`
    /// is the widest fan-out; 64 leaves headroom while a fork bomb hits the wall fast.
    pub live_processes: u32,
    /// Processes started over the whole action (`find -exec` on a few thousand files is fine).
    pub total_processes: u32,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            timeout: Duration::from_secs(10),
            memory_per_process: 256 << 20,
            memory_per_action: 1 << 30,
            output_bytes: 1 << 20,
            live_processes: 64,
            total_processes: 20_000,
        }
    }
}

/// Size of the instance pool: the most processes that can be alive at once across every
/// action running in this process (episodes may run on several threads).
pub(crate) const POOL_INSTANCES: u32 = 256;
/// Largest linear memory a guest can ever reserve (the per-action limit may be lower).
pub(crate) const POOL_MAX_MEMORY: usize = 1 << 30;
/// How often the epoch ticker fires: the granularity of timeouts and cancellation.
pub(crate) const EPOCH_TICK: Duration = Duration::from_millis(10);
