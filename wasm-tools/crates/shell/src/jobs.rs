//! Background jobs and signals: the `kill` and `wait` builtins, and bash's report of a
//! background job that a signal ended (`bash: line 1:  1234 Killed   sleep 5`).
//!
//! A job is reaped either by `wait` or, without blocking, after each foreground command (where
//! bash, told by SIGCHLD, would notice it); the report follows bash's rules for a
//! non-interactive shell: every signal but INT, TERM and PIPE is reported. Jobs still running
//! when the script ends are waited for silently (their output belongs to the observation).

use crate::state::Shell;
use hostcalls::proc::signal;

/// One `&` job: its process and its text, as `jobs` and the reports show it.
#[derive(Debug, Clone)]
pub struct Job {
    pub pid: u32,
    pub text: String,
}

const KILL_USAGE: &str = "kill: usage: kill [-s sigspec | -n signum | -sigspec] pid | jobspec ... or kill -l [sigspec]\n";

/// What `strsignal` calls a signal in the C locale (bash prints it in job reports).
fn description(sig: i32) -> String {
    let s = match sig {
        1 => "Hangup",
        2 => "Interrupt",
        3 => "Quit",
        4 => "Illegal instruction",
        5 => "Trace/breakpoint trap",
        6 => "Aborted",
        7 => "Bus error",
        8 => "Floating point exception",
        9 => "Killed",
        10 => "User defined signal 1",
        11 => "Segmentation fault",
        12 => "User defined signal 2",
        13 => "Broken pipe",
        14 => "Alarm clock",
        15 => "Terminated",
        16 => "Stack fault",
        24 => "CPU time limit exceeded",
        25 => "File size limit exceeded",
        26 => "Virtual timer expired",
        27 => "Profiling timer expired",
        29 => "I/O possible",
        30 => "Power failure",
        31 => "Bad system call",
        n => return format!("Unknown signal {n}"),
    };
    s.to_string()
}

/// A signal's name as bash spells it: like psmisc's but 29 is `IO` (psmisc says `POLL`).
fn bash_name(n: i32) -> Option<String> {
    if n == 29 {
        return Some("IO".into());
    }
    signal::name(n)
}

/// `kill -l`: every signal as `NN) SIGNAME`, five to a line, tab-separated.
fn signal_table() -> String {
    let mut out = String::new();
    let mut k = 0;
    for n in 1..=signal::RTMAX {
        let Some(name) = bash_name(n) else {
            continue;
        };
        k += 1;
        out.push_str(&format!("{n:2}) SIG{name}"));
        out.push(if k % 5 == 0 { '\n' } else { '\t' });
    }
    if k % 5 != 0 {
        out.push('\n');
    }
    out
}

impl Shell {
    pub fn add_job(&mut self, pid: u32, text: String) {
        self.background.push(Job { pid, text });
    }

    /// After a foreground command: reap background jobs that have ended, reporting the ones
    /// a signal ended. Costs nothing when there are no jobs.
    pub fn reap_finished_jobs(&mut self) {
        if self.background.is_empty() {
            return;
        }
        let jobs = std::mem::take(&mut self.background);
        for job in jobs {
            match hostcalls::wait_timeout(job.pid, std::time::Duration::ZERO) {
                Ok(Some(status)) => {
                    self.report_job_end(&job, status);
                    self.reaped.push((job.pid, status));
                }
                Ok(None) => self.background.push(job),
                Err(_) => {}
            }
        }
    }

    fn report_job_end(&self, job: &Job, status: i32) {
        let sig = status - 128;
        if status > 128 && sig <= signal::RTMAX && ![2, 13, 15].contains(&sig) {
            self.error(&format!(
                "{:>5} {:<22}  {}",
                job.pid,
                description(sig),
                job.text
            ));
        }
    }

    /// `disown [-ah] [%job | pid ...]`: forgets jobs (`-h` keeps them: no hangup reaches an
    /// action's jobs anyway). Without operands, the current job.
    pub fn builtin_disown(&mut self, args: &[String]) -> i32 {
        let (mut all, mut keep) = (false, false);
        let mut operands = Vec::new();
        for a in args {
            match a.as_str() {
                "-a" => all = true,
                "-h" => keep = true,
                "-ah" | "-ha" => {
                    all = true;
                    keep = true;
                }
                _ => operands.push(a.clone()),
            }
        }
        if keep {
            return 0;
        }
        if all {
            self.background.clear();
            return 0;
        }
        if operands.is_empty() {
            if self.background.pop().is_none() {
                self.error("disown: current: no such job");
                return 1;
            }
            return 0;
        }
        let mut status = 0;
        for a in operands {
            let pid = match a.strip_prefix('%') {
                Some(spec) => self.job_pid(spec),
                None => a.parse::<u32>().ok(),
            };
            match pid.and_then(|p| self.background.iter().position(|j| j.pid == p)) {
                Some(i) => {
                    self.background.remove(i);
                }
                None => {
                    self.error(&format!("disown: {a}: no such job"));
                    status = 1;
                }
            }
        }
        status
    }

    /// `wait [pid | %job ...]`.
    pub fn builtin_wait(&mut self, args: &[String]) -> i32 {
        if args.is_empty() {
            let mut status = 0;
            for job in std::mem::take(&mut self.background) {
                status = hostcalls::wait(job.pid).unwrap_or(127);
                self.report_job_end(&job, status);
            }
            let _ = status;
            self.reaped.clear();
            return 0;
        }
        let mut status = 0;
        for a in args {
            let pid = if let Some(spec) = a.strip_prefix('%') {
                match self.job_pid(spec) {
                    Some(p) => p,
                    None => {
                        self.error(&format!("wait: {a}: no such job"));
                        status = 127;
                        continue;
                    }
                }
            } else {
                match a.parse::<u32>() {
                    Ok(p) => p,
                    Err(_) => {
                        self.error(&format!("wait: `{a}': not a pid or valid job spec"));
                        status = 2;
                        continue;
                    }
                }
            };
            if let Some(k) = self.reaped.iter().position(|(p, _)| *p == pid) {
                status = self.reaped.remove(k).1;
                continue;
            }
            let job = self.background.iter().position(|j| j.pid == pid);
            match hostcalls::wait(pid) {
                Ok(s) => {
                    status = s;
                    if let Some(i) = job {
                        let job = self.background.remove(i);
                        self.report_job_end(&job, s);
                    }
                }
                Err(_) => {
                    self.error(&format!("wait: pid {pid} is not a child of this shell"));
                    status = 127;
                }
            }
        }
        status
    }

    /// `%1`, `%%`, `%+`, `%-`, `%name`: the pid of a job.
    fn job_pid(&self, spec: &str) -> Option<u32> {
        let jobs = &self.background;
        match spec {
            "" | "%" | "+" => jobs.last().map(|j| j.pid),
            "-" => jobs.iter().rev().nth(1).or(jobs.last()).map(|j| j.pid),
            s if s.bytes().all(|b| b.is_ascii_digit()) => {
                let n: usize = s.parse().ok()?;
                jobs.get(n.checked_sub(1)?).map(|j| j.pid)
            }
            s => jobs.iter().find(|j| j.text.starts_with(s)).map(|j| j.pid),
        }
    }

    /// The `kill` builtin, with bash's messages and statuses.
    pub fn builtin_kill(&mut self, args: &[String]) -> i32 {
        if args.is_empty() {
            self.err(KILL_USAGE);
            return 2;
        }
        let mut sig = signal::TERM;
        let mut saw_signal = false;
        let mut i = 0;
        while i < args.len() {
            let a = args[i].as_str();
            match a {
                "-l" | "-L" | "--list" => return self.kill_list(&args[i + 1..]),
                "-s" | "-n" => {
                    let Some(spec) = args.get(i + 1) else {
                        self.error(&format!("kill: {a}: option requires an argument"));
                        return 1;
                    };
                    match signal::parse(spec) {
                        Some(n) => sig = n,
                        None => {
                            self.error(&format!("kill: {spec}: invalid signal specification"));
                            return 1;
                        }
                    }
                    saw_signal = true;
                    i += 2;
                    continue;
                }
                "--" => {
                    i += 1;
                    break;
                }
                _ => {}
            }
            // Only the first `-SIGSPEC` names the signal; later `-N` words are targets.
            match a.strip_prefix('-') {
                Some(spec) if !spec.is_empty() && !saw_signal => {
                    match signal::parse(spec) {
                        Some(n) => sig = n,
                        None => {
                            self.error(&format!("kill: {spec}: invalid signal specification"));
                            return 1;
                        }
                    }
                    saw_signal = true;
                    i += 1;
                }
                _ => break,
            }
        }
        let targets = &args[i..];
        if targets.is_empty() {
            self.err(KILL_USAGE);
            return 2;
        }
        let mut status = 0;
        for t in targets {
            let pid: i64 = if let Some(spec) = t.strip_prefix('%') {
                match self.job_pid(spec) {
                    Some(p) => i64::from(p),
                    None => {
                        self.error(&format!("kill: {t}: no such job"));
                        status = 1;
                        continue;
                    }
                }
            } else {
                match t.parse::<i64>() {
                    Ok(p) => p,
                    Err(_) => {
                        self.error(&format!("kill: {t}: arguments must be process or job IDs"));
                        status = 1;
                        continue;
                    }
                }
            };
            let sent = u32::try_from(pid)
                .ok()
                .filter(|p| *p > 0)
                .is_some_and(|p| hostcalls::proc_signal(p, sig).is_ok());
            if !sent {
                // Process groups (0, negative) are not modelled: nothing answers to them.
                self.error(&format!("kill: ({pid}) - No such process"));
                status = 1;
            }
        }
        status
    }

    /// `kill -l [sigspec ...]`: the table, or names for numbers and numbers for names.
    fn kill_list(&mut self, specs: &[String]) -> i32 {
        if specs.is_empty() {
            self.out(&signal_table());
            return 0;
        }
        let mut status = 0;
        for s in specs {
            if let Ok(n) = s.parse::<i32>() {
                // An exit status of a signalled process names its signal.
                let n = if n > 128 { n - 128 } else { n };
                match bash_name(n) {
                    Some(name) => {
                        self.out(&format!("{name}\n"));
                    }
                    None => {
                        self.error(&format!("kill: {s}: invalid signal specification"));
                        status = 1;
                    }
                }
            } else {
                match signal::parse(s).filter(|n| *n > 0) {
                    Some(n) => {
                        self.out(&format!("{n}\n"));
                    }
                    None => {
                        self.error(&format!("kill: {s}: invalid signal specification"));
                        status = 1;
                    }
                }
            }
        }
        status
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_signal_table_lists_five_per_line() {
        let t = signal_table();
        assert!(t.starts_with(" 1) SIGHUP\t 2) SIGINT\t 3) SIGQUIT\t 4) SIGILL\t 5) SIGTRAP\n"));
        assert!(t.ends_with("63) SIGRTMAX-1\t64) SIGRTMAX\t\n"));
        assert!(!t.contains("32)"));
    }

    /// Against the host's bash (same table in 5.1 and 5.2), when it is installed.
    #[test]
    fn the_signal_table_is_bashs() {
        let Ok(out) = std::process::Command::new("bash")
            .args(["-c", "kill -l"])
            .output()
        else {
            eprintln!("SKIP: no bash on this host");
            return;
        };
        assert_eq!(String::from_utf8_lossy(&out.stdout), signal_table());
    }

    #[test]
    fn job_reports_use_strsignal_texts() {
        assert_eq!(description(9), "Killed");
        assert_eq!(description(1), "Hangup");
        assert_eq!(
            format!("{:>5} {:<22}  {}", 3, description(9), "sleep 5"),
            "    3 Killed                  sleep 5"
        );
    }
}
