//! A pinned wall clock, so time-relative tasks (`find -mtime`, `date`) are reproducible: the
//! guest sees a fixed start instant plus the real time elapsed since the action began.

use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};
use wasmtime_wasi::HostWallClock;

/// A wall clock that starts at a fixed instant.
#[derive(Debug, Clone, Copy)]
pub struct PinnedClock {
    since_epoch: Duration,
}

impl PinnedClock {
    pub fn at(time: SystemTime) -> PinnedClock {
        PinnedClock {
            since_epoch: time.duration_since(UNIX_EPOCH).unwrap_or_default(),
        }
    }

    pub fn at_unix(seconds: i64) -> PinnedClock {
        PinnedClock {
            since_epoch: Duration::from_secs(seconds.max(0) as u64),
        }
    }

    pub fn unix_seconds(&self) -> u64 {
        self.since_epoch.as_secs()
    }
}

/// The per-action instance handed to every process of the action.
#[derive(Clone)]
pub(crate) struct SharedClock(Arc<(PinnedClock, Instant)>);

impl SharedClock {
    pub fn new(clock: PinnedClock) -> SharedClock {
        SharedClock(Arc::new((clock, Instant::now())))
    }
}

impl HostWallClock for SharedClock {
    fn resolution(&self) -> Duration {
        Duration::from_nanos(1)
    }

    fn now(&self) -> Duration {
        self.0.0.since_epoch + self.0.1.elapsed()
    }
}
