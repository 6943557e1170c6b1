//! The one `poll_oneoff` (and the one cancellable sleep) of our guests that sleep (`time.sleep` in Python): wasmtime-wasi's own
//! would block the thread past the process's cancellation, leaving it running after a timeout.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Condvar, Mutex};
use std::time::{Duration, Instant, SystemTime};

/// Sleeps until `deadline` on `wake`, which cancellation notifies after setting `cancelled`;
/// false when cancelled first. (The one sleep of actions and of REPL processes.)
pub(crate) fn sleep_until(
    wake: &(Mutex<()>, Condvar),
    cancelled: &AtomicBool,
    deadline: Instant,
) -> bool {
    sleep_until_unless(wake, deadline, || cancelled.load(Ordering::SeqCst))
}

/// Sleeps until `deadline` on `wake`; false as soon as `stop` holds (it is asked whenever
/// `wake` is notified, so whoever makes it true must notify after).
pub(crate) fn sleep_until_unless(
    wake: &(Mutex<()>, Condvar),
    deadline: Instant,
    stop: impl Fn() -> bool,
) -> bool {
    let mut guard = wake.0.lock().unwrap_or_else(|e| e.into_inner());
    loop {
        if stop() {
            return false;
        }
        let now = Instant::now();
        if now >= deadline {
            return true;
        }
        guard = wake
            .1
            .wait_timeout(guard, deadline - now)
            .unwrap_or_else(|e| e.into_inner())
            .0;
    }
}
use wasmtime::{AsContextMut, Caller, Memory, Trap};

fn memory<T>(caller: &mut Caller<'_, T>) -> wasmtime::Result<Memory> {
    caller
        .get_export("memory")
        .and_then(|e| e.into_memory())
        .ok_or_else(|| wasmtime::Error::msg("the guest exports no memory"))
}

/// WASI `poll_oneoff`, shadowed so that a sleeping guest can be cancelled.
///
/// Every fd subscription is reported ready at once (a read that then blocks is a blocking
/// read, which is what these guests do anyway); clock subscriptions sleep through
/// `sleep_until(state, deadline)`, which returns false when the process is cancelled (then the
/// call traps, ending the process).
pub(crate) fn poll_oneoff<T>(
    mut caller: Caller<'_, T>,
    subs: u32,
    events: u32,
    nsubs: u32,
    nevents_out: u32,
    sleep_until: impl Fn(&T, Instant) -> bool,
) -> wasmtime::Result<i32> {
    const ERRNO_SUCCESS: i32 = 0;
    const ERRNO_INVAL: i32 = 28;
    const SUB_SIZE: usize = 48;
    const EVENT_SIZE: usize = 32;
    const CLOCK_REALTIME: u32 = 0;
    const ABSTIME: u16 = 1;
    // Far more than any real program polls at once, and it bounds what we allocate.
    const MAX_SUBS: u32 = 1 << 12;
    if nsubs == 0 || nsubs > MAX_SUBS {
        return Ok(ERRNO_INVAL);
    }
    let mem = memory(&mut caller)?;
    let mut raw = vec![0u8; nsubs as usize * SUB_SIZE];
    mem.read(&caller, subs as usize, &mut raw)?;
    let u64_at = |b: &[u8], o: usize| u64::from_le_bytes(b[o..o + 8].try_into().expect("8 bytes"));
    let now = Instant::now();
    // (userdata, tag, deadline for clocks)
    let mut parsed = Vec::with_capacity(nsubs as usize);
    for sub in raw.chunks_exact(SUB_SIZE) {
        let userdata = u64_at(sub, 0);
        let tag = sub[8];
        let deadline = if tag == 0 {
            let id = u32::from_le_bytes(sub[16..20].try_into().expect("4 bytes"));
            let timeout = Duration::from_nanos(u64_at(sub, 24));
            let flags = u16::from_le_bytes(sub[40..42].try_into().expect("2 bytes"));
            if flags & ABSTIME != 0 {
                if id == CLOCK_REALTIME {
                    let since_epoch = SystemTime::now()
                        .duration_since(SystemTime::UNIX_EPOCH)
                        .unwrap_or_default();
                    Some(now + timeout.saturating_sub(since_epoch))
                } else {
                    // An absolute monotonic deadline: our clock's origin is not the guest's;
                    // report it due (a spurious early wake-up, which callers must handle).
                    Some(now)
                }
            } else {
                Some(now + timeout)
            }
        } else {
            None
        };
        parsed.push((userdata, tag, deadline));
    }
    let any_fd = parsed.iter().any(|(_, tag, _)| *tag != 0);
    let earliest = parsed.iter().filter_map(|p| p.2).min();
    if !any_fd
        && let Some(deadline) = earliest
        && !sleep_until(caller.data(), deadline)
    {
        return Err(wasmtime::Error::new(Trap::Interrupt));
    }
    let fired = Instant::now();
    let mut out = Vec::new();
    for (userdata, tag, deadline) in parsed {
        let ready = match deadline {
            Some(d) => !any_fd && d <= fired,
            None => true,
        };
        if !ready {
            continue;
        }
        let mut ev = [0u8; EVENT_SIZE];
        ev[0..8].copy_from_slice(&userdata.to_le_bytes());
        // error (u16) = 0 at 8..10; type at 10.
        ev[10] = tag;
        if tag != 0 {
            // fd_readwrite.flags: hangup for a closed stdin; harmless for writes.
            let hangup: u16 = if tag == 1 { 1 } else { 0 };
            ev[24..26].copy_from_slice(&hangup.to_le_bytes());
        }
        out.extend_from_slice(&ev);
    }
    let n = (out.len() / EVENT_SIZE) as u32;
    let mut ctx = caller.as_context_mut();
    mem.write(&mut ctx, events as usize, &out)?;
    mem.write(&mut ctx, nevents_out as usize, &n.to_le_bytes())?;
    Ok(ERRNO_SUCCESS)
}
