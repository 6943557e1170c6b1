//! What the action knows of each of its processes, for `ps`/`pgrep`/`pstree` (the `proc_list`
//! hostcall) and `kill`/`timeout` (`proc_signal`). The wire format is the guest crate's
//! [`hostcalls::ProcTable`], so host and guest share one definition.
//!
//! Only the action's own processes are ever listed, plus a synthetic init (pid 1, `/bin/bash`,
//! as upstream's container ran): nothing of the host can appear, because the table is built
//! from the action's spawn records alone. Pids count up from 2 in every action, like a fresh
//! container's.

use ::hostcalls::proc::{INIT_PID, signal};
use ::hostcalls::{ProcEntry, ProcTable};
use std::sync::atomic::{AtomicBool, AtomicI32, Ordering};
use std::time::Duration;

/// One process of the action, shared by its record in the action's table and its own store.
#[derive(Debug)]
pub(crate) struct ProcInfo {
    pub pid: u32,
    /// The process that spawned it; 0 for the action's root (upstream's `docker exec` started
    /// it from outside the container).
    pub ppid: u32,
    /// The command line `ps` shows: a subshell shows its parent's, as a forked bash does.
    pub argv: Vec<String>,
    /// Wall-clock start on the action's (pinned) clock.
    pub start: Duration,
    /// A terminating signal delivered and not yet acted on (0: none).
    pending: AtomicI32,
    /// The process has ended (its parent may not have waited for it yet).
    ended: AtomicBool,
}

impl ProcInfo {
    pub fn new(pid: u32, ppid: u32, argv: Vec<String>, start: Duration) -> ProcInfo {
        ProcInfo {
            pid,
            ppid,
            argv,
            start,
            pending: AtomicI32::new(0),
            ended: AtomicBool::new(false),
        }
    }

    /// The signal that ends this process, once one was delivered.
    pub fn killed_by(&self) -> Option<i32> {
        match self.pending.load(Ordering::SeqCst) {
            0 => None,
            n => Some(n),
        }
    }

    /// Records a terminating signal; the first one wins, as the process dies of it.
    pub fn deliver(&self, sig: i32) {
        if signal::terminates(sig) {
            let _ = self
                .pending
                .compare_exchange(0, sig, Ordering::SeqCst, Ordering::SeqCst);
        }
    }

    pub fn mark_ended(&self) {
        self.ended.store(true, Ordering::SeqCst);
    }

    pub fn has_ended(&self) -> bool {
        self.ended.load(Ordering::SeqCst)
    }
}

/// The status bash reports for a process a signal ended.
pub(crate) fn signalled_status(sig: i32) -> i32 {
    128 + sig
}

/// Builds the table `caller` sees from the action's live processes; `init_start` is when the
/// synthetic init "started" (the action's start).
pub(crate) fn snapshot<'a>(
    caller: u32,
    live: impl Iterator<Item = &'a ProcInfo>,
    init_start: Duration,
) -> ProcTable {
    let live: Vec<&ProcInfo> = live.filter(|p| !p.has_ended()).collect();
    let mut entries: Vec<ProcEntry> = live
        .iter()
        .map(|p| ProcEntry {
            pid: p.pid,
            // An orphan is adopted by init, as on Linux.
            ppid: if p.ppid == 0 || live.iter().any(|q| q.pid == p.ppid) {
                p.ppid
            } else {
                INIT_PID
            },
            state: if p.pid == caller { b'R' } else { b'S' },
            start_ns: nanos(p.start),
            argv: p.argv.clone(),
        })
        .collect();
    entries.push(ProcEntry {
        pid: INIT_PID,
        ppid: 0,
        state: b'S',
        start_ns: nanos(init_start),
        argv: vec!["/bin/bash".into()],
    });
    entries.sort_by_key(|e| e.pid);
    ProcTable { caller, entries }
}

fn nanos(d: Duration) -> i64 {
    i64::try_from(d.as_nanos()).unwrap_or(i64::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn info(pid: u32, ppid: u32, argv: &[&str]) -> ProcInfo {
        ProcInfo::new(
            pid,
            ppid,
            argv.iter().map(|s| s.to_string()).collect(),
            Duration::from_secs(100),
        )
    }

    #[test]
    fn the_table_holds_init_and_the_live_processes_only() {
        let root = info(2, 0, &["/bin/bash", "-c", "sleep 5 & ps"]);
        let sleep = info(3, 2, &["sleep", "5"]);
        let done = info(4, 2, &["true"]);
        done.mark_ended();
        let ps = info(5, 2, &["ps"]);
        let t = snapshot(5, [&root, &sleep, &done, &ps].into_iter(), Duration::ZERO);
        let pids: Vec<u32> = t.entries.iter().map(|e| e.pid).collect();
        assert_eq!(pids, [1, 2, 3, 5]);
        assert_eq!(t.get(1).unwrap().argv, ["/bin/bash"]);
        assert_eq!(t.get(5).unwrap().state, b'R');
        assert_eq!(t.get(3).unwrap().state, b'S');
        // And it crosses the wire intact.
        assert_eq!(ProcTable::decode(&t.encode()), Some(t));
    }

    #[test]
    fn orphans_are_adopted_by_init() {
        let child = info(7, 6, &["sleep", "9"]);
        let t = snapshot(7, [&child].into_iter(), Duration::ZERO);
        assert_eq!(t.get(7).unwrap().ppid, INIT_PID);
    }

    #[test]
    fn the_first_terminating_signal_wins() {
        let p = info(2, 0, &["sleep"]);
        p.deliver(0);
        p.deliver(17);
        assert_eq!(p.killed_by(), None);
        p.deliver(15);
        p.deliver(9);
        assert_eq!(p.killed_by(), Some(15));
        assert_eq!(signalled_status(15), 143);
    }
}
