//! `pstree` (psmisc 23.4): the action's processes as a tree, from init (pid 1) or a given pid.
//!
//! Upstream's container had no locale, so lines are drawn in ASCII (`-+-`, ` |-`, `` `-``).
//! Each action's root was started by `docker exec`, outside init's tree: a plain `pstree`
//! shows `bash` alone, as upstream's logs do (`pstree -p` printed `bash(1)`). Siblings are
//! sorted by name (by pid with `-n`); identical leaf siblings are merged as `N*[name]` unless
//! `-p`, `-a` or `-c` asks for every process.

use crate::common::Io;
use crate::common::io::run_main;
use hostcalls::{ProcEntry, ProcTable};
use std::ffi::OsString;

pub fn main(args: Vec<OsString>) -> i32 {
    run_main(args, run)
}

const USAGE: &str = "Usage: pstree [-acglpsStTuZ] [ -h | -H PID ] [ -n | -N type ]
              [ -A | -G | -U ] [ PID | USER ]
   or: pstree -V

Display a tree of processes.

  -a, --arguments     show command line arguments
  -A, --ascii         use ASCII line drawing characters
  -c, --compact-not   don't compact identical subtrees
  -C, --color=TYPE    color process by attribute
                      (age)
  -g, --show-pgids    show process group ids; implies -c
  -G, --vt100         use VT100 line drawing characters
  -h, --highlight-all highlight current process and its ancestors
  -H PID, --highlight-pid=PID
                      highlight this process and its ancestors
  -l, --long          don't truncate long lines
  -n, --numeric-sort  sort output by PID
  -N TYPE, --ns-sort=TYPE
                      sort output by this namespace type
                              (cgroup, ipc, mnt, net, pid, time, user, uts)
  -p, --show-pids     show PIDs; implies -c
  -s, --show-parents  show parents of the selected process
  -S, --ns-changes    show namespace transitions
  -t, --thread-names  show full thread names
  -T, --hide-threads  hide threads, show only processes
  -u, --uid-changes   show uid transitions
  -U, --unicode       use UTF-8 (Unicode) line drawing characters
  -V, --version       display version information
  -Z, --security-context
                      show security attributes

  PID    start at this PID; default is 1 (init)
  USER   show only trees rooted at processes of this user

";

#[derive(Default)]
struct Opts {
    args: bool,
    pids: bool,
    compact: bool,
    numeric: bool,
}

fn run(argv: &[String], io: &mut Io) -> i32 {
    let mut o = Opts {
        compact: true,
        ..Opts::default()
    };
    let mut start: Option<u32> = None;
    let mut i = 1;
    while i < argv.len() {
        let a = &argv[i];
        i += 1;
        if let Some(long) = a.strip_prefix("--") {
            match long {
                "arguments" => o.args = true,
                "show-pids" => o.pids = true,
                "compact-not" => o.compact = false,
                "numeric-sort" => o.numeric = true,
                "ascii" | "long" | "hide-threads" | "unicode" | "vt100" | "thread-names"
                | "show-parents" | "uid-changes" | "ns-changes" | "show-pgids"
                | "highlight-all" => {}
                "version" => {
                    let _ = writeln!(io.err, "pstree (PSmisc) 23.4");
                    return 0;
                }
                _ => {
                    let _ = writeln!(io.err, "pstree: unrecognized option '{a}'");
                    return usage(io);
                }
            }
            continue;
        }
        if let Some(letters) = a.strip_prefix('-').filter(|l| !l.is_empty()) {
            for c in letters.chars() {
                match c {
                    'a' => o.args = true,
                    'p' => o.pids = true,
                    'c' => o.compact = false,
                    'n' => o.numeric = true,
                    'A' | 'l' | 'T' | 'U' | 'G' | 't' | 's' | 'u' | 'S' | 'g' | 'h' | 'Z' => {}
                    'V' => {
                        let _ = writeln!(io.err, "pstree (PSmisc) 23.4");
                        return 0;
                    }
                    _ => {
                        let _ = writeln!(io.err, "pstree: invalid option -- '{c}'");
                        return usage(io);
                    }
                }
            }
            continue;
        }
        match a.parse::<u32>() {
            Ok(p) => start = Some(p),
            // A user name: everything here is root's.
            Err(_) if a == "root" => {}
            Err(_) => {
                let _ = writeln!(io.err, "No such user name: {a}");
                return 1;
            }
        }
    }
    if o.pids || o.args {
        o.compact = false;
    }
    let table = match hostcalls::proc_list() {
        Ok(t) => t,
        Err(e) => {
            let _ = writeln!(io.err, "pstree: cannot read the process table: {e}");
            return 1;
        }
    };
    let root = start.unwrap_or(hostcalls::proc::INIT_PID);
    let Some(entry) = table.get(root) else {
        // psmisc prints nothing and fails for a pid that does not exist.
        return 1;
    };
    let mut out = String::new();
    for line in render(&table, entry, &o) {
        out.push_str(&line);
        out.push('\n');
    }
    let _ = io.out.write_all(out.as_bytes());
    0
}

fn usage(io: &mut Io) -> i32 {
    let _ = io.err.write_all(USAGE.as_bytes());
    1
}

fn label(e: &ProcEntry, o: &Opts) -> String {
    let mut s = e.comm();
    if o.pids {
        s.push_str(&if o.args {
            format!(",{}", e.pid)
        } else {
            format!("({})", e.pid)
        });
    }
    if o.args {
        for a in e.argv.iter().skip(1) {
            s.push(' ');
            s.push_str(a);
        }
    }
    s
}

fn children<'a>(table: &'a ProcTable, e: &ProcEntry, o: &Opts) -> Vec<&'a ProcEntry> {
    let mut kids: Vec<&ProcEntry> = table
        .entries
        .iter()
        .filter(|k| k.ppid == e.pid && k.pid != e.pid)
        .collect();
    if o.numeric {
        kids.sort_by_key(|k| k.pid);
    } else {
        kids.sort_by(|a, b| a.comm().cmp(&b.comm()).then(a.pid.cmp(&b.pid)));
    }
    kids
}

/// The lines of `e`'s subtree, each starting at the subtree's own column.
fn render(table: &ProcTable, e: &ProcEntry, o: &Opts) -> Vec<String> {
    let me = label(e, o);
    let mut subs: Vec<Vec<String>> = children(table, e, o)
        .into_iter()
        .map(|k| render(table, k, o))
        .collect();
    if o.compact {
        subs = merge_identical(subs);
    }
    if subs.is_empty() {
        return vec![me];
    }
    if o.args {
        // One process per line, children two columns in.
        let mut lines = vec![me];
        let n = subs.len();
        for (k, sub) in subs.into_iter().enumerate() {
            let last = k + 1 == n;
            for (j, l) in sub.into_iter().enumerate() {
                let lead = match (j, last) {
                    (0, false) => "  |-",
                    (0, true) => "  `-",
                    (_, false) => "  | ",
                    (_, true) => "    ",
                };
                lines.push(format!("{lead}{l}"));
            }
        }
        return lines;
    }
    let pad = " ".repeat(me.len());
    let mut lines = Vec::new();
    let n = subs.len();
    for (k, sub) in subs.into_iter().enumerate() {
        let last = k + 1 == n;
        for (j, l) in sub.into_iter().enumerate() {
            let line = match (k, j, n) {
                (0, 0, 1) => format!("{me}---{l}"),
                (0, 0, _) => format!("{me}-+-{l}"),
                (_, 0, _) if last => format!("{pad} `-{l}"),
                (_, 0, _) => format!("{pad} |-{l}"),
                _ if n == 1 => format!("{pad}   {l}"),
                _ if last => format!("{pad}   {l}"),
                _ => format!("{pad} | {l}"),
            };
            lines.push(line);
        }
    }
    lines
}

/// Equal one-line siblings become one `N*[name]`.
fn merge_identical(subs: Vec<Vec<String>>) -> Vec<Vec<String>> {
    let mut out: Vec<(Vec<String>, usize)> = Vec::new();
    for s in subs {
        match out.iter_mut().find(|(t, _)| *t == s && s.len() == 1) {
            Some((_, n)) => *n += 1,
            None => out.push((s, 1)),
        }
    }
    out.into_iter()
        .map(|(s, n)| {
            if n > 1 {
                vec![format!("{n}*[{}]", s[0])]
            } else {
                s
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(pid: u32, ppid: u32, argv: &[&str]) -> ProcEntry {
        ProcEntry {
            pid,
            ppid,
            state: b'S',
            start_ns: 0,
            argv: argv.iter().map(|s| s.to_string()).collect(),
        }
    }

    #[test]
    fn trees_are_drawn_in_ascii() {
        let t = ProcTable {
            caller: 5,
            entries: vec![
                entry(1, 0, &["/bin/bash"]),
                entry(2, 1, &["/bin/bash", "-c", "x"]),
                entry(3, 2, &["sleep", "5"]),
                entry(4, 2, &["sleep", "5"]),
                entry(5, 2, &["pstree"]),
            ],
        };
        let o = Opts {
            compact: true,
            ..Opts::default()
        };
        assert_eq!(
            render(&t, &t.entries[0], &o),
            ["bash---bash-+-pstree", "            `-2*[sleep]"]
        );
        let o = Opts {
            pids: true,
            ..Opts::default()
        };
        assert_eq!(
            render(&t, &t.entries[0], &o),
            [
                "bash(1)---bash(2)-+-pstree(5)",
                "                  |-sleep(3)",
                "                  `-sleep(4)"
            ]
        );
    }
}
