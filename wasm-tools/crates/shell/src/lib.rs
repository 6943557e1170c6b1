//! A bash-compatible shell for the sandbox.
//!
//! The syntax comes from brush-parser (a maintained, MIT-licensed bash parser); the executor is
//! ours, written for a world without fork/exec: external commands, pipeline stages and
//! subshells are fresh instances started by the host (see [`hostcalls`]). Invocation:
//!
//! * `sh -c 'script' [name [args…]]`, `sh script.sh [args…]`, `sh` (script on stdin);
//! * `sh --intercode-subshell 'prelude+script' name` — our stand-in for fork, used by the
//!   executor itself.
//!
//! When `INTERCODE_REPORT_HANDLE` names a handle, the shell writes its final working directory
//! and a state prelude (variables, functions) there on exit, so the host can carry the
//! directory (and, in persistent mode, the whole state) into the next action.

mod arith;
mod arith_syntax;
mod builtin_options;
mod builtins;
mod callstack;
mod compgen;
mod dialect;
mod dirstack;
mod error;
mod exec;
mod expand;
mod first_error;
mod getopts;
mod glob;
mod hash;
mod jobs;
mod printf;
mod quote;
mod readline;
mod script_text;
mod state;
mod subscript;
mod syntax;
mod text;
mod timing;
mod trap;
mod umask;

use state::{Flow, Shell};
use std::ffi::OsString;

/// Parses a whole script as bash reads it; the error text is shaped like bash's.
pub fn parse(text: &str) -> Result<brush_parser::ast::Program, String> {
    syntax::parse(text, dialect::Dialect::Bash).map_err(|e| e.message)
}

/// `bash FILE` / `sh FILE` when FILE cannot be read. bash then looks a name without a slash
/// up in `PATH` and finds the program agents meant to run (`bash cat f.txt`), which it
/// refuses as a binary, in Ubuntu 22.04's bash 5.1 words (upstream's logs:
/// `/usr/bin/cat: /usr/bin/cat: cannot execute binary file`); dash does not search.
/// A directory: bash names it twice and refuses it (`dir1: dir1: Is a directory`, 126); dash
/// reads it as an empty script.
fn script_not_read(
    shell: &Shell,
    argv0: &str,
    (file, path): (&str, &str),
    e: &std::io::Error,
    applets: &[&str],
) -> i32 {
    let missing = e.kind() == std::io::ErrorKind::NotFound;
    if std::fs::metadata(path).is_ok_and(|m| m.is_dir()) {
        return match shell.dialect {
            dialect::Dialect::Dash => 0,
            dialect::Dialect::Bash => {
                shell.err(&format!("{file}: {file}: Is a directory\n"));
                126
            }
        };
    }
    match shell.dialect {
        dialect::Dialect::Dash => {
            let why = if missing {
                "No such file".to_string()
            } else {
                error::error_text(e)
            };
            shell.err(&format!("{argv0}: 0: cannot open {file}: {why}\n"));
            2
        }
        dialect::Dialect::Bash if missing && !file.contains('/') && applets.contains(&file) => {
            let found = format!("/usr/bin/{file}");
            shell.err(&format!("{found}: {found}: cannot execute binary file\n"));
            126
        }
        dialect::Dialect::Bash => {
            shell.err(&format!("{argv0}: {file}: {}\n", error::error_text(e)));
            127
        }
    }
}

/// `bash NAME` when `./NAME` does not exist: bash looks NAME up in `PATH` and reads what it
/// finds as a script. Of the programs in `/usr/bin`, only the shell scripts Ubuntu ships as
/// such (`egrep`, `fgrep`: `exec grep -E "$@"`) run that way; the found path and the text.
fn script_on_path(shell: &Shell, file: &str, e: &std::io::Error) -> Option<(String, String)> {
    if shell.dialect != dialect::Dialect::Bash
        || e.kind() != std::io::ErrorKind::NotFound
        || file.contains('/')
    {
        return None;
    }
    let found = format!("/usr/bin/{file}");
    let text = std::fs::read_to_string(&found).ok()?;
    text.starts_with("#!").then_some((found, text))
}

/// Entry point from the multicall box. `applets` are the command names the module provides.
pub fn main(args: Vec<OsString>, applets: &[&str]) -> i32 {
    let args: Vec<String> = args
        .into_iter()
        .map(|a| a.to_string_lossy().into_owned())
        .collect();
    let argv0 = args.first().cloned().unwrap_or_else(|| "sh".into());
    let mut shell = Shell::new(argv0.clone(), applets);
    if let Some(depth) = std::env::var("INTERCODE_SUBSHELL_DEPTH")
        .ok()
        .and_then(|d| d.parse().ok())
    {
        shell.subst_depth = depth;
        shell.unset("INTERCODE_SUBSHELL_DEPTH");
    }
    let report = std::env::var("INTERCODE_REPORT_HANDLE")
        .ok()
        .and_then(|h| h.parse::<u32>().ok());
    if report.is_some() {
        shell.unset("INTERCODE_REPORT_HANDLE");
    }
    // Before the prelude, whose function definitions it names.
    if let Ok(source) = std::env::var("INTERCODE_DEFINITION_SOURCE") {
        shell.unset("INTERCODE_DEFINITION_SOURCE");
        shell.definition_source = Some(source.into());
    }
    if let Ok(source) = std::env::var("INTERCODE_FUNCTION_SOURCE") {
        shell.unset("INTERCODE_FUNCTION_SOURCE");
        shell.function_source = Some(source.into());
    }
    if let Some(prelude) = std::env::var("INTERCODE_PRELUDE")
        .ok()
        .filter(|p| !p.is_empty())
    {
        shell.unset("INTERCODE_PRELUDE");
        shell.in_prelude = true;
        shell.run_script_text(&prelude);
        shell.in_prelude = false;
        // The prelude's lines are not the script's.
        shell.line = 1;
        shell.flow = Flow::Normal;
    }
    if let Some(level) = std::env::var("INTERCODE_TRACE_LEVEL")
        .ok()
        .and_then(|l| l.parse().ok())
    {
        shell.unset("INTERCODE_TRACE_LEVEL");
        shell.trace_level = level;
    }
    if let Some(base) = std::env::var("INTERCODE_LINE_BASE")
        .ok()
        .and_then(|b| b.parse::<i64>().ok())
    {
        shell.unset("INTERCODE_LINE_BASE");
        shell.line_base = base;
    }

    let mut i = 1;
    let mut script: Option<String> = None;
    let mut is_subshell = false;
    // `-n`: read and parse the script, run nothing (interactive front ends ask this to know
    // whether lines typed so far form a whole command).
    let mut noexec = false;
    while i < args.len() {
        let a = &args[i];
        match a.as_str() {
            "-c" => {
                script = args.get(i + 1).cloned();
                shell.definition_source = Some("environment".into());
                i += 2;
                break;
            }
            "--intercode-subshell" => {
                script = args.get(i + 1).cloned();
                is_subshell = true;
                i += 2;
                break;
            }
            "-n" => noexec = true,
            "-e" => shell.options.errexit = true,
            "-x" => shell.options.xtrace = true,
            "-u" => shell.options.nounset = true,
            "-o" => {
                if args.get(i + 1).map(String::as_str) == Some("pipefail") {
                    shell.options.pipefail = true;
                }
                i += 1;
            }
            "--" => {
                i += 1;
                break;
            }
            s if s.starts_with('-') && s.len() > 1 && !s.starts_with("--") => {}
            s if s.starts_with("--") => {}
            _ => break,
        }
        i += 1;
    }
    if noexec {
        let text = match script {
            Some(text) => text,
            None => {
                let mut input = Vec::new();
                let _ = hostcalls::read_to_end(0, &mut input);
                String::from_utf8_lossy(&input).into_owned()
            }
        };
        return match syntax::parse(&text, shell.dialect) {
            Ok(_) => 0,
            Err(e) => {
                shell.syntax_error(&argv0, &e.message);
                2
            }
        };
    }
    if !is_subshell {
        shell.enter_shell_level();
        if shell.dialect == dialect::Dialect::Bash {
            shell.init_bash_variables(&argv0, script.as_deref());
        }
    }
    let status = match script {
        Some(text) => {
            shell.oneshot_allowed = true;
            if let Some(name) = args.get(i) {
                shell.name = name.clone();
                // A subshell's positional parameters come with its prelude.
                if !is_subshell {
                    shell.positional = args[i + 1..].to_vec();
                }
            }
            shell.in_subshell = is_subshell;
            shell.run_script_text(&text)
        }
        None => match args.get(i) {
            Some(file) => {
                let path = shell.absolute(file);
                match std::fs::read_to_string(&path) {
                    Ok(text) => {
                        shell.name = file.clone();
                        shell.positional = args[i + 1..].to_vec();
                        shell.run_script_text(&text)
                    }
                    Err(e) => match script_on_path(&shell, file, &e) {
                        Some((found, text)) => {
                            shell.name = found;
                            shell.positional = args[i + 1..].to_vec();
                            shell.run_script_text(&text)
                        }
                        None => script_not_read(&shell, &argv0, (file, &path), &e, applets),
                    },
                }
            }
            None => {
                let mut input = Vec::new();
                let _ = hostcalls::read_to_end(0, &mut input);
                shell.run_script_text(&String::from_utf8_lossy(&input))
            }
        },
    };
    let code = shell.exit_code.unwrap_or(status);
    let code = shell.run_exit_trap(code);
    // Background jobs still running when a `-c` script ends are waited for, so their output
    // reaches the observation (the host kills whatever outlives the action's deadline).
    for job in std::mem::take(&mut shell.background) {
        let _ = hostcalls::wait(job.pid);
    }
    if let Some(h) = report {
        let mut text = format!("{}\0", shell.cwd);
        text.push_str(&shell.prelude());
        let _ = hostcalls::write_all(h, text.as_bytes());
        let _ = hostcalls::close(h);
    }
    code
}
