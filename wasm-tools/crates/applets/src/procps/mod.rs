//! procps (`ps`, `pgrep`, `pkill`) over the action's process table (the `proc_list` hostcall).
//!
//! What the table cannot know is filled in the way upstream's container showed it: everything
//! runs as root; init (pid 1, `/bin/bash`) owns the terminal `pts/0` and is its foreground
//! session leader (`Ss+`); each action's root was started by `docker exec` (parent 0, its own
//! session, no terminal); CPU times are zero.

pub mod pgrep;
pub mod ps;

use crate::common::time::Tm;
use hostcalls::{ProcEntry, ProcTable};

/// The table, or the error text procps tools print when /proc cannot be read.
pub fn load() -> Result<ProcTable, String> {
    hostcalls::proc_list().map_err(|e| format!("cannot read the process table: {e}"))
}

/// The controlling terminal as `ps` names it.
pub fn tty(e: &ProcEntry) -> &'static str {
    if e.pid == hostcalls::proc::INIT_PID {
        "pts/0"
    } else {
        "?"
    }
}

/// A session leader: init and every action's root (started from outside the container).
pub fn session_leader(e: &ProcEntry) -> bool {
    e.ppid == 0
}

/// The session a process belongs to: its own pid for leaders, else its leader's.
pub fn session_of(table: &ProcTable, e: &ProcEntry) -> u32 {
    let mut cur = e;
    for _ in 0..table.entries.len() {
        if session_leader(cur) {
            return cur.pid;
        }
        match table.get(cur.ppid) {
            Some(p) => cur = p,
            None => break,
        }
    }
    cur.pid
}

/// `ps`'s STAT: state, `s` for a session leader, `+` for the terminal's foreground group.
pub fn stat(e: &ProcEntry) -> String {
    let mut s = String::from(e.state as char);
    if session_leader(e) {
        s.push('s');
    }
    if e.pid == hostcalls::proc::INIT_PID {
        s.push('+');
    }
    s
}

/// The command line `ps` shows as `args`; `[comm]` for a process without one.
pub fn args(e: &ProcEntry) -> String {
    if e.argv.is_empty() {
        format!("[{}]", e.comm())
    } else {
        e.argv.join(" ")
    }
}

/// Virtual and resident sizes (KiB) to show: the sandbox has no such figures, so these are
/// typical values of the same programs on upstream's image (from its `ps aux` logs where
/// there are some).
pub fn memory_kib(e: &ProcEntry) -> (u64, u64) {
    match (e.pid, e.comm().as_str()) {
        (1, _) => (4136, 3364),
        (_, "bash" | "sh") => (3872, 2908),
        (_, "ps") => (6412, 1648),
        (_, "less" | "more") => (2656, 1060),
        _ => (2788, 1040),
    }
}

/// Seconds since a process started, never negative.
pub fn age_secs(e: &ProcEntry, now_ns: i64) -> i64 {
    ((now_ns - e.start_ns) / 1_000_000_000).max(0)
}

/// `HH:MM` for a start today, `MmmDD` for an earlier one this year, else the year (`ps`'s
/// STIME and START).
pub fn short_start(start_ns: i64, now_ns: i64) -> String {
    let t = Tm::from_ns(start_ns);
    let now = Tm::from_ns(now_ns);
    if now_ns - start_ns < 86_400_000_000_000 && t.day == now.day {
        format!("{:02}:{:02}", t.hour, t.min)
    } else if t.year == now.year {
        format!("{}{:02}", crate::common::time::month_abbr(t.month), t.day)
    } else {
        format!("{:>5}", t.year)
    }
}
