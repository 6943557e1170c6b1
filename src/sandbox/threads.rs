//! Threads with a guest-sized stack, kept for the next guest when their job ends.
//!
//! A REPL guest needs a thread with a 72 MiB stack, and an episode starts two or three of them
//! (the agent's interpreter, the gold's, an `evaluate` fork). glibc keeps only 40 MiB of freed
//! stacks, so each such thread used to map and unmap its stack; in a multi-threaded process every
//! unmap interrupts the other cores to flush their TLBs. Profiled over 400 MBPP episodes that was
//! most of the run's time (72% in the kernel, mostly those flushes). Idle threads here wait for
//! the next job instead, and leave after [`IDLE_LIFETIME`] without one.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{Receiver, Sender, channel};
use std::sync::{Arc, Condvar, Mutex};
use std::time::Duration;

/// How long an idle thread waits for a job before it exits.
const IDLE_LIFETIME: Duration = Duration::from_secs(10);
/// Idle threads kept at most (more exit at once).
const MAX_IDLE: usize = 32;

/// A job runs, then returns what publishes its result: the thread is back on the idle list
/// before anyone learns the job is done, so a caller that starts the next job at once gets it.
type Job = Box<dyn FnOnce() -> Box<dyn FnOnce() + Send> + Send>;

/// A job running on a pooled thread: like a `JoinHandle`.
pub(crate) struct Task<T> {
    done: Arc<Done<T>>,
}

struct Done<T> {
    result: Mutex<Option<std::thread::Result<T>>>,
    cv: Condvar,
}

impl<T> Task<T> {
    pub(crate) fn is_finished(&self) -> bool {
        self.done
            .result
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .is_some()
    }

    /// Waits up to `timeout` for the job to finish; whether it has.
    pub(crate) fn wait_timeout(&self, timeout: Duration) -> bool {
        let r = self.done.result.lock().unwrap_or_else(|e| e.into_inner());
        let (r, _) = self
            .done
            .cv
            .wait_timeout_while(r, timeout, |r| r.is_none())
            .unwrap_or_else(|e| e.into_inner());
        r.is_some()
    }

    /// Waits for the job; `Err` if it panicked.
    pub(crate) fn join(self) -> std::thread::Result<T> {
        let mut r = self.done.result.lock().unwrap_or_else(|e| e.into_inner());
        loop {
            if let Some(result) = r.take() {
                return result;
            }
            r = self.done.cv.wait(r).unwrap_or_else(|e| e.into_inner());
        }
    }
}

/// Idle threads of one stack size, each waiting on its own channel (with an id to find it).
struct Idle {
    stack_size: usize,
    waiting: Mutex<Vec<(u64, Sender<Job>)>>,
}

/// Runs `job` on an idle thread with `stack_size` bytes of stack, or a new one.
pub(crate) fn spawn<T: Send + 'static>(
    name: &str,
    stack_size: usize,
    job: impl FnOnce() -> T + Send + 'static,
) -> std::io::Result<Task<T>> {
    static POOLS: Mutex<Vec<Arc<Idle>>> = Mutex::new(Vec::new());
    let pool = {
        let mut pools = POOLS.lock().unwrap_or_else(|e| e.into_inner());
        match pools.iter().find(|p| p.stack_size == stack_size) {
            Some(p) => p.clone(),
            None => {
                let p = Arc::new(Idle {
                    stack_size,
                    waiting: Mutex::new(Vec::new()),
                });
                pools.push(p.clone());
                p
            }
        }
    };
    let done = Arc::new(Done {
        result: Mutex::new(None),
        cv: Condvar::new(),
    });
    let finished = done.clone();
    let mut job: Job = Box::new(move || {
        let result = catch_unwind(AssertUnwindSafe(job));
        Box::new(move || {
            *finished.result.lock().unwrap_or_else(|e| e.into_inner()) = Some(result);
            finished.cv.notify_all();
        })
    });
    // An idle thread that left between being listed and now refuses the job: try the next.
    loop {
        let idle = pool.waiting.lock().unwrap_or_else(|e| e.into_inner()).pop();
        let Some((_, tx)) = idle else { break };
        match tx.send(job) {
            Ok(()) => return Ok(Task { done }),
            Err(refused) => job = refused.0,
        }
    }
    static NEXT_ID: AtomicU64 = AtomicU64::new(0);
    let id = NEXT_ID.fetch_add(1, Ordering::Relaxed);
    let (tx, rx) = channel();
    let _ = tx.send(job);
    std::thread::Builder::new()
        .name(name.to_string())
        .stack_size(stack_size)
        .spawn(move || serve(&pool, id, tx, rx))?;
    Ok(Task { done })
}

/// A pooled thread: runs jobs until it has been idle for [`IDLE_LIFETIME`].
fn serve(pool: &Idle, id: u64, tx: Sender<Job>, rx: Receiver<Job>) {
    while let Ok(job) = rx.recv_timeout(IDLE_LIFETIME) {
        let publish = job();
        let stay = {
            let mut waiting = pool.waiting.lock().unwrap_or_else(|e| e.into_inner());
            let stay = waiting.len() < MAX_IDLE;
            if stay {
                waiting.push((id, tx.clone()));
            }
            stay
        };
        publish();
        if !stay {
            return;
        }
    }
    // Timed out: leave the idle list. A job sent in the meantime is already queued on this
    // channel: run it (and any other) before leaving; later sends are refused and go elsewhere.
    pool.waiting
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .retain(|(i, _)| *i != id);
    drop(tx);
    while let Ok(job) = rx.try_recv() {
        job()();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_thread_is_reused_and_panics_are_results() {
        // A stack size of its own, so no other test shares these threads.
        const STACK: usize = (1 << 20) + 3 * 4096;
        let id = || std::thread::current().id();
        let first = spawn("t", STACK, id).unwrap().join().unwrap();
        let second = spawn("t", STACK, id).unwrap().join().unwrap();
        assert_eq!(first, second);
        assert_ne!(first, std::thread::current().id());
        let panicked = spawn("t", STACK, || -> u8 { panic!("boom") }).unwrap();
        assert!(panicked.join().is_err());
        let after = spawn("t", STACK, || 7).unwrap();
        assert_eq!(after.join().unwrap(), 7);
    }
}
