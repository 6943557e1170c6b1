//! `pgrep` and `pkill` (procps-ng 3.3.17): select processes by an extended regular expression
//! on their name (or, with `-f`, their command line) and list or signal them.
//!
//! Exit statuses as procps: 0 something matched, 1 nothing did, 2 a usage error, 3 a fatal
//! error. Neither tool ever selects itself.

use super::args;
use crate::common::Io;
use crate::common::getopt::{self, Config, HasArg, OptSpec};
use crate::common::io::run_main;
use crate::common::rx::{Rx, Syntax};
use hostcalls::ProcEntry;
use hostcalls::proc::signal;
use std::ffi::OsString;

pub fn pgrep_main(args: Vec<OsString>) -> i32 {
    run_main(args, |a, io| run(a, io, false))
}

pub fn pkill_main(args: Vec<OsString>) -> i32 {
    run_main(args, |a, io| run(a, io, true))
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum K {
    Delim,
    ListName,
    ListFull,
    Inverse,
    Lightweight,
    Count,
    Full,
    Pgroup,
    Group,
    IgnoreCase,
    Newest,
    Oldest,
    Older,
    Parent,
    Session,
    Terminal,
    Euid,
    Uid,
    Exact,
    Pidfile,
    LogPidfile,
    Runstates,
    Ns,
    NsList,
    Help,
    Version,
    Signal,
    Echo,
}

const fn o(short: Option<char>, long: &'static str, arg: HasArg, key: K) -> OptSpec<K> {
    OptSpec {
        short,
        long: Some(long),
        arg,
        key,
    }
}

use HasArg::{No, Required as Req};

const COMMON: &[OptSpec<K>] = &[
    o(Some('c'), "count", No, K::Count),
    o(Some('f'), "full", No, K::Full),
    o(Some('g'), "pgroup", Req, K::Pgroup),
    o(Some('G'), "group", Req, K::Group),
    o(Some('i'), "ignore-case", No, K::IgnoreCase),
    o(Some('n'), "newest", No, K::Newest),
    o(Some('o'), "oldest", No, K::Oldest),
    o(Some('O'), "older", Req, K::Older),
    o(Some('P'), "parent", Req, K::Parent),
    o(Some('s'), "session", Req, K::Session),
    o(Some('t'), "terminal", Req, K::Terminal),
    o(Some('u'), "euid", Req, K::Euid),
    o(Some('U'), "uid", Req, K::Uid),
    o(Some('x'), "exact", No, K::Exact),
    o(Some('F'), "pidfile", Req, K::Pidfile),
    o(Some('L'), "logpidfile", No, K::LogPidfile),
    o(Some('r'), "runstates", Req, K::Runstates),
    o(None, "ns", Req, K::Ns),
    o(None, "nslist", Req, K::NsList),
    o(Some('h'), "help", No, K::Help),
    o(Some('V'), "version", No, K::Version),
];

const PGREP_ONLY: &[OptSpec<K>] = &[
    o(Some('d'), "delimiter", Req, K::Delim),
    o(Some('l'), "list-name", No, K::ListName),
    o(Some('a'), "list-full", No, K::ListFull),
    o(Some('v'), "inverse", No, K::Inverse),
    o(Some('w'), "lightweight", No, K::Lightweight),
];

const PKILL_ONLY: &[OptSpec<K>] = &[
    o(None, "signal", Req, K::Signal),
    o(Some('e'), "echo", No, K::Echo),
];

const COMMON_HELP: &str = " -c, --count               count of matching processes
 -f, --full                use full process name to match
 -g, --pgroup <PGID,...>   match listed process group IDs
 -G, --group <GID,...>     match real group IDs
 -i, --ignore-case         match case insensitively
 -n, --newest              select most recently started
 -o, --oldest              select least recently started
 -O, --older <seconds>     select where older than seconds
 -P, --parent <PPID,...>   match only child processes of the given parent
 -s, --session <SID,...>   match session IDs
 -t, --terminal <tty,...>  match by controlling terminal
 -u, --euid <ID,...>       match by effective IDs
 -U, --uid <ID,...>        match by real IDs
 -x, --exact               match exactly with the command name
 -F, --pidfile <file>      read PIDs from file
 -L, --logpidfile          fail if PID file is not locked
 -r, --runstates <state>   match runstates [D,S,Z,...]
 --ns <PID>                match the processes that belong to the same
                           namespace as <pid>
 --nslist <ns,...>         list which namespaces will be considered for
                           the --ns option.
                           Available namespaces: ipc, mnt, net, pid, user, uts

 -h, --help     display this help and exit
 -V, --version  output version information and exit

";

/// procps 3.3.17's usage text (as upstream's logs show it for pgrep).
fn usage(prog: &str, pkill: bool) -> String {
    let mut s = format!("\nUsage:\n {prog} [options] <pattern>\n\nOptions:\n");
    if pkill {
        s.push_str(" -<sig>, --signal <sig>    signal to send (either number or name)\n");
        s.push_str(" -e, --echo                display what is killed\n");
    } else {
        s.push_str(
            " -d, --delimiter <string>  specify output delimiter
 -l, --list-name           list PID and process name
 -a, --list-full           list PID and full command line
 -v, --inverse             negates the matching
 -w, --lightweight         list all TID
",
        );
    }
    s.push_str(COMMON_HELP);
    s.push_str(&format!("For more details see {prog}(1).\n"));
    s
}

/// pkill's `-SIGNAL` option (`-9`, `-KILL`, `-SIGHUP`): the first argument that reads as one
/// is taken out before the other options are parsed, as procps does.
fn take_signal_option(args: &mut Vec<String>) -> Option<i32> {
    for i in 1..args.len() {
        if args[i] == "--" {
            break;
        }
        if let Some(s) = args[i].strip_prefix('-')
            && !s.starts_with('-')
            && let Some(n) = signal::parse(s)
        {
            args.remove(i);
            return Some(n);
        }
    }
    None
}

fn run(argv: &[String], io: &mut Io, pkill: bool) -> i32 {
    let prog = if pkill { "pkill" } else { "pgrep" };
    let mut argv = argv.to_vec();
    let mut sig = signal::TERM;
    if pkill && let Some(n) = take_signal_option(&mut argv) {
        sig = n;
    }
    let specs: Vec<OptSpec<K>> = COMMON
        .iter()
        .chain(if pkill { PKILL_ONLY } else { PGREP_ONLY })
        .copied()
        .collect();
    let parsed = match getopt::parse(&argv, &specs, Config::default()) {
        Ok(p) => p,
        Err(msg) => {
            let _ = write!(io.err, "{prog}: {msg}\n{}", usage(prog, pkill));
            return 2;
        }
    };
    let mut delim = "\n".to_string();
    let (mut list_name, mut list_full, mut inverse, mut count, mut full) =
        (false, false, false, false, false);
    let (mut icase, mut newest, mut oldest, mut exact, mut echo) =
        (false, false, false, false, false);
    let mut parents: Vec<u32> = Vec::new();
    let mut users: Vec<String> = Vec::new();
    let mut older: Option<i64> = None;
    let mut states: Option<String> = None;
    let mut criteria = false;
    for opt in &parsed.opts {
        let arg = opt.arg.clone().unwrap_or_default();
        match opt.key {
            K::Delim => delim = arg,
            K::ListName => list_name = true,
            K::ListFull => list_full = true,
            K::Inverse => inverse = true,
            K::Lightweight | K::LogPidfile | K::NsList => {}
            K::Count => count = true,
            K::Full => full = true,
            K::IgnoreCase => icase = true,
            K::Newest => {
                newest = true;
                criteria = true;
            }
            K::Oldest => {
                oldest = true;
                criteria = true;
            }
            K::Exact => exact = true,
            K::Echo => echo = true,
            K::Older => {
                match arg.parse::<i64>() {
                    Ok(n) => older = Some(n),
                    Err(_) => {
                        let _ = writeln!(io.err, "{prog}: invalid argument for option 'O': {arg}");
                        return 2;
                    }
                }
                criteria = true;
            }
            K::Parent => {
                for p in arg.split(',') {
                    match p.parse() {
                        Ok(n) => parents.push(n),
                        Err(_) => {
                            let _ =
                                writeln!(io.err, "{prog}: invalid argument for option 'P': {p}");
                            return 2;
                        }
                    }
                }
                criteria = true;
            }
            K::Euid | K::Uid => {
                users.extend(arg.split(',').map(String::from));
                criteria = true;
            }
            K::Runstates => {
                states = Some(arg);
                criteria = true;
            }
            K::Pgroup | K::Group | K::Session | K::Terminal | K::Pidfile | K::Ns => {
                criteria = true;
            }
            K::Signal => match signal::parse(&arg) {
                Some(n) => sig = n,
                None => {
                    let _ = writeln!(io.err, "{prog}: Unknown signal \"{arg}\".");
                    return 2;
                }
            },
            K::Help => {
                let _ = write!(io.out, "{}", usage(prog, pkill));
                return 0;
            }
            K::Version => {
                let _ = writeln!(io.out, "{prog} from procps-ng 3.3.17");
                return 0;
            }
        }
    }
    if parsed.operands.len() > 1 {
        let _ = writeln!(
            io.err,
            "{prog}: only one pattern can be provided\nTry `{prog} --help' for more information."
        );
        return 2;
    }
    let pattern = parsed.operands.first().cloned();
    if pattern.is_none() && !criteria {
        let _ = writeln!(
            io.err,
            "{prog}: no matching criteria specified\nTry `{prog} --help' for more information."
        );
        return 2;
    }
    let rx = match &pattern {
        Some(p) => {
            let anchored = if exact { format!("^({p})$") } else { p.clone() };
            match Rx::new(&anchored, Syntax::Extended, icase) {
                Ok(r) => Some(r),
                Err(e) => {
                    let _ = writeln!(io.err, "{prog}: {e}");
                    return 2;
                }
            }
        }
        None => None,
    };
    for u in &users {
        if u != "root" && u != "0" && u.parse::<u32>().is_err() {
            let _ = writeln!(io.err, "{prog}: invalid user name: {u}");
            return 2;
        }
    }
    let table = match super::load() {
        Ok(t) => t,
        Err(msg) => {
            let _ = writeln!(io.err, "{prog}: {msg}");
            return 3;
        }
    };
    let now = crate::common::time::now_ns();
    let matches_one = |e: &ProcEntry| -> bool {
        let name_ok = match &rx {
            Some(r) => {
                let hay = if full { args(e) } else { e.comm() };
                r.is_match(hay.as_bytes())
            }
            None => true,
        };
        let parent_ok = parents.is_empty() || parents.contains(&e.ppid);
        let user_ok = users.is_empty() || users.iter().any(|u| u == "root" || u == "0");
        let state_ok = states
            .as_ref()
            .is_none_or(|s| s.as_bytes().contains(&e.state));
        let older_ok = older.is_none_or(|o| super::age_secs(e, now) >= o);
        (name_ok && parent_ok && user_ok && state_ok && older_ok) != inverse
    };
    let mut hits: Vec<&ProcEntry> = table
        .entries
        .iter()
        .filter(|e| e.pid != table.caller)
        .filter(|e| matches_one(e))
        .collect();
    if newest || oldest {
        let pick = if newest {
            hits.iter().max_by_key(|e| (e.start_ns, e.pid)).copied()
        } else {
            hits.iter().min_by_key(|e| (e.start_ns, e.pid)).copied()
        };
        hits = pick.into_iter().collect();
    }
    let mut out = String::new();
    if pkill {
        let mut killed = 0;
        for e in &hits {
            match hostcalls::proc_signal(e.pid, sig) {
                Ok(()) => {
                    killed += 1;
                    if echo {
                        out.push_str(&format!("{} killed (pid {})\n", e.comm(), e.pid));
                    }
                }
                Err(err) => {
                    let _ = writeln!(
                        io.err,
                        "{prog}: killing pid {} failed: {}",
                        e.pid,
                        crate::common::sys::strerror(&err)
                    );
                }
            }
        }
        if count {
            out.push_str(&format!("{}\n", hits.len()));
        }
        let _ = io.out.write_all(out.as_bytes());
        return if killed > 0 { 0 } else { 1 };
    }
    if count {
        out.push_str(&format!("{}\n", hits.len()));
    } else {
        let items: Vec<String> = hits
            .iter()
            .map(|e| {
                if list_full {
                    format!("{} {}", e.pid, args(e))
                } else if list_name {
                    format!("{} {}", e.pid, e.comm())
                } else {
                    e.pid.to_string()
                }
            })
            .collect();
        if !items.is_empty() {
            out.push_str(&items.join(&delim));
            out.push('\n');
        }
    }
    let _ = io.out.write_all(out.as_bytes());
    if hits.is_empty() { 1 } else { 0 }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn signal_options_are_taken_out_first() {
        let mut a: Vec<String> = ["pkill", "-9", "-x", "sleep"].map(String::from).to_vec();
        assert_eq!(take_signal_option(&mut a), Some(9));
        assert_eq!(a, ["pkill", "-x", "sleep"]);
        let mut a: Vec<String> = ["pkill", "-KILL", "sleep"].map(String::from).to_vec();
        assert_eq!(take_signal_option(&mut a), Some(9));
    }
}
