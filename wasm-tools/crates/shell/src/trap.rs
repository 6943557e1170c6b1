//! `trap`: the commands the shell runs on its own exit (`EXIT`) and after a failing command
//! (`ERR`). No signal reaches an action's shell but the host's kill, so the handlers of real
//! signals are only kept, for `trap -p` to show.

use crate::quote::single_quote;
use crate::state::{Flow, Shell};
use hostcalls::proc::signal;

/// Keys after the signal numbers (0 is `EXIT`), in the order `trap -p` lists them.
const DEBUG: i32 = signal::RTMAX + 1;
const ERR: i32 = signal::RTMAX + 2;
const RETURN: i32 = signal::RTMAX + 3;

/// A trap's key from what the user typed: `EXIT`, `0`, `ERR`, `INT`, `SIGINT`, `2`…
fn parse_spec(spec: &str) -> Option<i32> {
    let upper = spec.to_ascii_uppercase();
    match upper.strip_prefix("SIG").unwrap_or(&upper) {
        "EXIT" => Some(0),
        "DEBUG" => Some(DEBUG),
        "ERR" => Some(ERR),
        "RETURN" => Some(RETURN),
        _ => signal::parse(spec),
    }
}

/// The name `trap -p` prints for a key.
fn spec_name(key: i32) -> String {
    match key {
        0 => "EXIT".into(),
        DEBUG => "DEBUG".into(),
        ERR => "ERR".into(),
        RETURN => "RETURN".into(),
        n => format!("SIG{}", signal::name(n).unwrap_or_else(|| n.to_string())),
    }
}

impl Shell {
    pub fn builtin_trap(&mut self, args: &[String]) -> i32 {
        let mut args = args;
        let mut print = false;
        while let Some(first) = args.first() {
            match first.as_str() {
                "--" => {
                    args = &args[1..];
                    break;
                }
                "-p" => print = true,
                "-l" => {
                    let names: Vec<String> = (1..=31)
                        .map(|n| format!("{n:2}) {}", spec_name(n)))
                        .collect();
                    let mut out = String::new();
                    for row in names.chunks(5) {
                        out.push_str(&row.join("\t"));
                        out.push('\n');
                    }
                    self.out(&out);
                    return 0;
                }
                s if s.starts_with('-') && s.len() > 1 => {
                    self.error(&format!("trap: {s}: invalid option"));
                    self.err("trap: usage: trap [-lp] [[arg] signal_spec ...]\n");
                    return 2;
                }
                _ => break,
            }
            args = &args[1..];
        }
        if print || args.is_empty() {
            return self.print_traps(args);
        }
        // `trap SIG…` (the first word a signal, nothing else) and `trap - SIG…` reset.
        let (action, specs) = if args.len() == 1 {
            (None, args)
        } else if args[0] == "-" {
            (None, &args[1..])
        } else {
            (Some(args[0].clone()), &args[1..])
        };
        let mut status = 0;
        for spec in specs {
            match parse_spec(spec) {
                Some(key) => match &action {
                    Some(command) => {
                        self.traps.insert(key, command.clone());
                    }
                    None => {
                        self.traps.remove(&key);
                    }
                },
                None => {
                    self.error(&format!("trap: {spec}: invalid signal specification"));
                    status = 1;
                }
            }
        }
        status
    }

    fn print_traps(&mut self, specs: &[String]) -> i32 {
        let mut keys = Vec::new();
        let mut status = 0;
        for spec in specs {
            match parse_spec(spec) {
                Some(key) => keys.push(key),
                None => {
                    self.error(&format!("trap: {spec}: invalid signal specification"));
                    status = 1;
                }
            }
        }
        if specs.is_empty() {
            keys = self.traps.keys().copied().collect();
        }
        let mut out = String::new();
        for key in keys {
            if let Some(command) = self.traps.get(&key) {
                out.push_str(&format!(
                    "trap -- {} {}\n",
                    single_quote(command),
                    spec_name(key)
                ));
            }
        }
        self.out(&out);
        status
    }

    /// Runs the `EXIT` trap, once, as the shell ends with `status`; returns the status the
    /// shell ends with (the trap's own `exit N` changes it).
    pub fn run_exit_trap(&mut self, status: i32) -> i32 {
        let Some(command) = self.traps.remove(&0) else {
            return status;
        };
        self.flow = Flow::Normal;
        self.exit_code = None;
        self.last_status = status;
        self.run_script_text(&command);
        self.exit_code.unwrap_or(status)
    }

    /// Runs the `ERR` trap after a command failed with `status` where `set -e` would act; `$?`
    /// in the trap is that status, and stays so after it.
    pub fn run_err_trap(&mut self, status: i32) {
        // Functions do not inherit the trap (no `set -E` here).
        if self.func_depth > 0 || self.running_err_trap {
            return;
        }
        let Some(command) = self.traps.get(&ERR).cloned() else {
            return;
        };
        self.running_err_trap = true;
        self.last_status = status;
        self.run_script_text(&command);
        self.running_err_trap = false;
        if self.flow == Flow::Normal {
            self.last_status = status;
        }
    }
}
