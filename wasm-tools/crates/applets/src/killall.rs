//! `killall` (psmisc 23.4): signal the action's processes by name.
//!
//! A name matches a process's `comm` exactly (only its first 15 bytes for longer names, unless
//! `-e`), or as an extended regular expression with `-r`. Every name that matches nothing
//! prints `NAME: no process found`; the exit status is 1 when any name matched nothing.

use crate::common::Io;
use crate::common::io::run_main;
use crate::common::rx::{Rx, Syntax};
use hostcalls::proc::signal;
use std::ffi::OsString;

pub fn main(args: Vec<OsString>) -> i32 {
    run_main(args, run)
}

const USAGE: &str = "Usage: killall [OPTION]... [--] NAME...
       killall -l, --list
       killall -V, --version

  -e,--exact          require exact match for very long names
  -I,--ignore-case    case insensitive process name match
  -g,--process-group  kill process group instead of process
  -y,--younger-than   kill processes younger than TIME
  -o,--older-than     kill processes older than TIME
  -i,--interactive    ask for confirmation before killing
  -l,--list           list all known signal names
  -q,--quiet          don't print complaints
  -r,--regexp         interpret NAME as an extended regular expression
  -s,--signal SIGNAL  send this signal instead of SIGTERM
  -u,--user USER      kill only process(es) running as USER
  -v,--verbose        report if the signal was successfully sent
  -V,--version        display version information
  -w,--wait           wait for processes to die
  -n,--ns PID         match processes that belong to the same namespaces
                      as PID
  -Z,--context REGEXP kill only process(es) having context
                      (must precede other arguments)

";

/// `killall -l`: the signal names 1–31, sixteen to a line.
pub fn signal_list() -> String {
    let mut s = String::new();
    for (i, name) in signal::NAMES.iter().enumerate() {
        s.push_str(name);
        s.push(if i == 15 || i + 1 == signal::NAMES.len() {
            '\n'
        } else {
            ' '
        });
    }
    s
}

fn run(argv: &[String], io: &mut Io) -> i32 {
    let (mut exact, mut icase, mut quiet, mut regex, mut verbose, mut wait) =
        (false, false, false, false, false, false);
    let mut sig = signal::TERM;
    let mut names: Vec<String> = Vec::new();
    let mut i = 1;
    while i < argv.len() {
        let a = &argv[i];
        i += 1;
        if a == "--" {
            names.extend(argv[i..].iter().cloned());
            break;
        }
        let Some(body) = a.strip_prefix('-').filter(|b| !b.is_empty()) else {
            names.push(a.clone());
            continue;
        };
        let long = body.strip_prefix('-');
        match long {
            Some("list") => {
                let _ = io.out.write_all(signal_list().as_bytes());
                return 0;
            }
            Some("exact") => exact = true,
            Some("ignore-case") => icase = true,
            Some("quiet") => quiet = true,
            Some("regexp") => regex = true,
            Some("verbose") => verbose = true,
            Some("wait") => wait = true,
            Some("version") => {
                let _ = writeln!(io.err, "killall (PSmisc) 23.4");
                return 0;
            }
            Some("signal") => {
                let Some(v) = argv.get(i) else {
                    let _ = io.err.write_all(USAGE.as_bytes());
                    return 1;
                };
                i += 1;
                match signal::parse(v) {
                    Some(n) => sig = n,
                    None => return unknown_signal(io, v),
                }
            }
            Some(_) => {
                let _ = io.err.write_all(USAGE.as_bytes());
                return 1;
            }
            None => {
                // `-9`, `-KILL`: a signal; otherwise a bundle of letters.
                // No option letter is a signal name, so trying the name first is safe.
                if let Some(n) = signal::parse(body) {
                    sig = n;
                    continue;
                }
                let chars: Vec<char> = body.chars().collect();
                let mut j = 0;
                while j < chars.len() {
                    let c = chars[j];
                    j += 1;
                    match c {
                        'e' => exact = true,
                        'I' => icase = true,
                        'q' => quiet = true,
                        'r' => regex = true,
                        'v' => verbose = true,
                        'w' => wait = true,
                        'g' | 'i' => {}
                        'l' => {
                            let _ = io.out.write_all(signal_list().as_bytes());
                            return 0;
                        }
                        'V' => {
                            let _ = writeln!(io.err, "killall (PSmisc) 23.4");
                            return 0;
                        }
                        's' | 'u' | 'o' | 'y' | 'n' | 'Z' => {
                            let rest: String = chars[j..].iter().collect();
                            j = chars.len();
                            let v = if rest.is_empty() {
                                i += 1;
                                argv.get(i - 1).cloned()
                            } else {
                                Some(rest)
                            };
                            let Some(v) = v else {
                                let _ = io.err.write_all(USAGE.as_bytes());
                                return 1;
                            };
                            if c == 's' {
                                match signal::parse(&v) {
                                    Some(n) => sig = n,
                                    None => return unknown_signal(io, &v),
                                }
                            }
                        }
                        _ => {
                            // An unknown letter: psmisc reads the whole word as a signal name.
                            return unknown_signal(io, body);
                        }
                    }
                }
            }
        }
    }
    if names.is_empty() {
        let _ = io.err.write_all(USAGE.as_bytes());
        return 1;
    }
    let table = match hostcalls::proc_list() {
        Ok(t) => t,
        Err(e) => {
            let _ = writeln!(io.err, "killall: cannot read the process table: {e}");
            return 1;
        }
    };
    let mut status = 0;
    let mut signalled: Vec<u32> = Vec::new();
    for name in &names {
        let rx = if regex {
            match Rx::new(name, Syntax::Extended, icase) {
                Ok(r) => Some(r),
                Err(e) => {
                    let _ = writeln!(io.err, "killall: Bad regular expression: {e}");
                    return 1;
                }
            }
        } else {
            None
        };
        let mut found = false;
        for e in &table.entries {
            if e.pid == table.caller {
                continue;
            }
            let comm = e.comm();
            let hit = match &rx {
                Some(r) => r.is_match(comm.as_bytes()),
                None => {
                    let base = name.rsplit('/').next().unwrap_or(name);
                    let wanted = if !exact && base.len() > 15 {
                        &base[..15]
                    } else {
                        base
                    };
                    if icase {
                        comm.eq_ignore_ascii_case(wanted)
                    } else {
                        comm == wanted
                    }
                }
            };
            if !hit {
                continue;
            }
            found = true;
            match hostcalls::proc_signal(e.pid, sig) {
                Ok(()) => {
                    signalled.push(e.pid);
                    if verbose {
                        let _ = writeln!(io.err, "Killed {comm}({}) with signal {sig}", e.pid);
                    }
                }
                Err(err) => {
                    if !quiet {
                        let _ = writeln!(
                            io.err,
                            "{comm}({}): {}",
                            e.pid,
                            crate::common::sys::strerror(&err)
                        );
                    }
                    status = 1;
                }
            }
        }
        if !found {
            if !quiet {
                let _ = writeln!(io.err, "{name}: no process found");
            }
            status = 1;
        }
    }
    if wait {
        wait_for_exit(&signalled);
    }
    status
}

fn unknown_signal(io: &mut Io, name: &str) -> i32 {
    let _ = writeln!(io.err, "{name}: unknown signal; killall -l lists signals.");
    1
}

/// `-w`: polls until none of the signalled processes is left.
fn wait_for_exit(pids: &[u32]) {
    loop {
        let Ok(t) = hostcalls::proc_list() else {
            return;
        };
        if !pids.iter().any(|p| t.get(*p).is_some()) {
            return;
        }
        let _ = hostcalls::sleep(std::time::Duration::from_millis(20));
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn signal_list_has_two_lines() {
        let l = super::signal_list();
        assert_eq!(l.lines().count(), 2);
        assert!(l.starts_with("HUP INT QUIT"));
        assert!(l.ends_with("PWR SYS\n"));
    }
}
