//! The action's process table and signals: the one definition of what `proc_list` returns and
//! what `proc_signal` accepts, shared by the host (which encodes) and the guest (which decodes),
//! so the two cannot drift.
//!
//! Wire format of a table (all integers little-endian):
//! `u32 caller_pid, u32 count`, then per entry
//! `u32 pid, u32 ppid, u8 state, i64 start_ns, u32 argc`, then argc length-prefixed
//! (`u32 len` + bytes) UTF-8 strings.

/// PID of the synthetic init every table shows: the container's `/bin/bash` (upstream ran the
/// container with bash as its command, and `pstree -p` printed `bash(1)`).
pub const INIT_PID: u32 = 1;

/// One process as `ps` sees it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProcEntry {
    pub pid: u32,
    /// 0 for processes started from outside the container (init, and each action's root, which
    /// upstream's `docker exec` started).
    pub ppid: u32,
    /// `R` running, `S` sleeping (waiting for a child, a pipe or a timer).
    pub state: u8,
    /// Wall-clock start, in nanoseconds since the Unix epoch (the episode's pinned clock).
    pub start_ns: i64,
    /// The command line as the process was started (`/bin/bash -c …`, `sleep 5`).
    pub argv: Vec<String>,
}

impl ProcEntry {
    /// `comm`: the kernel's name for the process, the basename of argv[0] cut to 15 bytes.
    pub fn comm(&self) -> String {
        let a0 = self.argv.first().map(String::as_str).unwrap_or("");
        let base = a0.rsplit('/').next().unwrap_or(a0);
        let mut end = base.len().min(15);
        while !base.is_char_boundary(end) {
            end -= 1;
        }
        base[..end].to_string()
    }
}

/// A snapshot of the action's processes, init included, in pid order.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ProcTable {
    /// The pid of the process that asked (`ps` marks itself running).
    pub caller: u32,
    pub entries: Vec<ProcEntry>,
}

impl ProcTable {
    pub fn encode(&self) -> Vec<u8> {
        let mut out = Vec::new();
        out.extend_from_slice(&self.caller.to_le_bytes());
        out.extend_from_slice(&(self.entries.len() as u32).to_le_bytes());
        for e in &self.entries {
            out.extend_from_slice(&e.pid.to_le_bytes());
            out.extend_from_slice(&e.ppid.to_le_bytes());
            out.push(e.state);
            out.extend_from_slice(&e.start_ns.to_le_bytes());
            out.extend_from_slice(&(e.argv.len() as u32).to_le_bytes());
            for a in &e.argv {
                out.extend_from_slice(&(a.len() as u32).to_le_bytes());
                out.extend_from_slice(a.as_bytes());
            }
        }
        out
    }

    pub fn decode(bytes: &[u8]) -> Option<ProcTable> {
        let mut r = Reader { bytes, pos: 0 };
        let caller = r.u32()?;
        let count = r.u32()? as usize;
        let mut entries = Vec::with_capacity(count.min(1024));
        for _ in 0..count {
            let pid = r.u32()?;
            let ppid = r.u32()?;
            let state = r.take(1)?[0];
            let start_ns = i64::from_le_bytes(r.take(8)?.try_into().ok()?);
            let argc = r.u32()? as usize;
            let mut argv = Vec::with_capacity(argc.min(1024));
            for _ in 0..argc {
                let len = r.u32()? as usize;
                argv.push(String::from_utf8(r.take(len)?.to_vec()).ok()?);
            }
            entries.push(ProcEntry {
                pid,
                ppid,
                state,
                start_ns,
                argv,
            });
        }
        (r.pos == bytes.len()).then_some(ProcTable { caller, entries })
    }

    pub fn get(&self, pid: u32) -> Option<&ProcEntry> {
        self.entries.iter().find(|e| e.pid == pid)
    }
}

struct Reader<'a> {
    bytes: &'a [u8],
    pos: usize,
}

impl Reader<'_> {
    fn take(&mut self, n: usize) -> Option<&[u8]> {
        let end = self.pos.checked_add(n)?;
        let s = self.bytes.get(self.pos..end)?;
        self.pos = end;
        Some(s)
    }
    fn u32(&mut self) -> Option<u32> {
        Some(u32::from_le_bytes(self.take(4)?.try_into().ok()?))
    }
}

/// Linux signal numbers and names (x86-64), as `kill -l` lists them.
pub mod signal {
    pub const HUP: i32 = 1;
    pub const INT: i32 = 2;
    pub const QUIT: i32 = 3;
    pub const KILL: i32 = 9;
    pub const TERM: i32 = 15;

    /// Names of signals 1–31 (without `SIG`), index = number − 1.
    pub const NAMES: [&str; 31] = [
        "HUP", "INT", "QUIT", "ILL", "TRAP", "ABRT", "BUS", "FPE", "KILL", "USR1", "SEGV", "USR2",
        "PIPE", "ALRM", "TERM", "STKFLT", "CHLD", "CONT", "STOP", "TSTP", "TTIN", "TTOU", "URG",
        "XCPU", "XFSZ", "VTALRM", "PROF", "WINCH", "POLL", "PWR", "SYS",
    ];

    /// The last real-time signal number.
    pub const RTMAX: i32 = 64;
    /// The first real-time signal number as glibc reports it (two are kept by NPTL).
    pub const RTMIN: i32 = 34;

    /// The name of a signal number (`TERM`, `RTMIN+3`), without `SIG`.
    pub fn name(n: i32) -> Option<String> {
        match n {
            1..=31 => Some(NAMES[n as usize - 1].to_string()),
            RTMIN => Some("RTMIN".into()),
            RTMAX => Some("RTMAX".into()),
            n if n > RTMIN && n <= RTMIN + 15 => Some(format!("RTMIN+{}", n - RTMIN)),
            n if n > RTMIN + 15 && n < RTMAX => Some(format!("RTMAX-{}", RTMAX - n)),
            _ => None,
        }
    }

    /// A signal by name (`TERM`, `SIGTERM`, case-insensitive, `IOT`/`CLD`/`IO` aliases,
    /// `RTMIN+n`) or number.
    pub fn parse(s: &str) -> Option<i32> {
        if let Ok(n) = s.parse::<i32>() {
            return (0..=RTMAX).contains(&n).then_some(n);
        }
        let up = s.to_ascii_uppercase();
        let bare = up.strip_prefix("SIG").unwrap_or(&up);
        match bare {
            "IOT" => return Some(6),
            "CLD" => return Some(17),
            "IO" => return Some(29),
            _ => {}
        }
        if let Some(i) = NAMES.iter().position(|n| *n == bare) {
            return Some(i as i32 + 1);
        }
        let rt = |rest: &str, base: i32, sign: i32| -> Option<i32> {
            let off: i32 = if rest.is_empty() {
                0
            } else {
                rest.strip_prefix(if sign > 0 { '+' } else { '-' })?
                    .parse()
                    .ok()?
            };
            let n = base + sign * off;
            (RTMIN..=RTMAX).contains(&n).then_some(n)
        };
        if let Some(rest) = bare.strip_prefix("RTMIN") {
            return rt(rest, RTMIN, 1);
        }
        if let Some(rest) = bare.strip_prefix("RTMAX") {
            return rt(rest, RTMAX, -1);
        }
        None
    }

    /// What the default action of a signal does to a process: end it (most signals), or
    /// nothing (`CHLD`, `URG`, `WINCH`; `STOP`/`CONT` job control, which the sandbox has not).
    pub fn terminates(n: i32) -> bool {
        !matches!(n, 0 | 17 | 18 | 19 | 20 | 21 | 22 | 23 | 28)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> ProcTable {
        ProcTable {
            caller: 3,
            entries: vec![
                ProcEntry {
                    pid: 1,
                    ppid: 0,
                    state: b'S',
                    start_ns: -7,
                    argv: vec!["/bin/bash".into()],
                },
                ProcEntry {
                    pid: 3,
                    ppid: 2,
                    state: b'R',
                    start_ns: 1_700_000_000_000_000_000,
                    argv: vec!["ps".into(), "aux".into(), "é".into()],
                },
            ],
        }
    }

    #[test]
    fn table_round_trips() {
        let t = sample();
        assert_eq!(ProcTable::decode(&t.encode()), Some(t));
    }

    #[test]
    fn truncated_or_padded_tables_are_refused() {
        let bytes = sample().encode();
        for cut in 0..bytes.len() {
            assert!(ProcTable::decode(&bytes[..cut]).is_none(), "cut at {cut}");
        }
        let mut padded = bytes.clone();
        padded.push(0);
        assert!(ProcTable::decode(&padded).is_none());
    }

    #[test]
    fn layout_is_fixed() {
        let bytes = sample().encode();
        assert_eq!(&bytes[0..4], &3u32.to_le_bytes());
        assert_eq!(&bytes[4..8], &2u32.to_le_bytes());
        assert_eq!(&bytes[8..12], &1u32.to_le_bytes());
        assert_eq!(bytes[16], b'S');
        assert_eq!(&bytes[17..25], &(-7i64).to_le_bytes());
        assert_eq!(&bytes[25..29], &1u32.to_le_bytes());
        assert_eq!(&bytes[33..42], b"/bin/bash");
    }

    #[test]
    fn comm_is_the_basename_cut_to_fifteen() {
        let mut e = sample().entries[0].clone();
        assert_eq!(e.comm(), "bash");
        e.argv = vec!["/x/a-very-long-command-name".into()];
        assert_eq!(e.comm(), "a-very-long-com");
    }

    #[test]
    fn signals_by_name_and_number() {
        assert_eq!(signal::parse("TERM"), Some(15));
        assert_eq!(signal::parse("sigkill"), Some(9));
        assert_eq!(signal::parse("0"), Some(0));
        assert_eq!(signal::parse("65"), None);
        assert_eq!(signal::parse("RTMIN+2"), Some(36));
        assert_eq!(signal::parse("RTMAX-1"), Some(63));
        assert_eq!(signal::name(50), Some("RTMAX-14".into()));
        assert_eq!(signal::name(49), Some("RTMIN+15".into()));
        assert_eq!(signal::parse("BOGUS"), None);
        for n in 1..=64 {
            if let Some(name) = signal::name(n) {
                assert_eq!(signal::parse(&name), Some(n), "{name}");
            }
        }
    }
}
