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
mod builtins;
mod exec;
mod expand;
mod glob;
mod jobs;
mod printf;
mod state;
mod subscript;

use state::{Flow, Shell};
use std::ffi::OsString;

/// Parses a whole script; the error text is shaped like bash's.
pub fn parse(text: &str) -> Result<brush_parser::ast::Program, String> {
    let protected = subscript::protect(text);
    let mut parser = brush_parser::Parser::new(
        std::io::BufReader::new(protected.as_bytes()),
        &expand::parser_options(),
    );
    parser.parse_program().map_err(|e| match e {
        brush_parser::ParseError::ParsingNear(pos) => {
            let line_text = text.lines().nth(pos.line.saturating_sub(1)).unwrap_or(text);
            let token = token_at(text, pos.index);
            format!(
                "-c: line {}: syntax error near unexpected token `{token}'\n-c: line {}: `{line_text}'",
                pos.line, pos.line
            )
        }
        brush_parser::ParseError::ParsingAtEndOfInput => {
            // A redirection with nothing after it meets the newline bash appends to `-c`
            // text, and bash names that token; every other early end is "end of file".
            if ends_with_redirection(text) {
                let n = text.trim_end().lines().count().max(1);
                let line_text = text.trim_end().lines().last().unwrap_or("");
                format!(
                    "-c: line {n}: syntax error near unexpected token `newline'\n-c: line {n}: `{line_text}'"
                )
            } else {
                // bash counts the newline it appends to `-c` text as one more line.
                format!(
                    "-c: line {}: syntax error: unexpected end of file",
                    text.lines().count() + 1
                )
            }
        }
        brush_parser::ParseError::Tokenizing { inner, position } => {
            let line = position.map(|p| p.line).unwrap_or(1);
            let msg = inner.to_string();
            if msg.contains("unterminated") || msg.contains("quote") {
                format!(
                    "-c: line {line}: unexpected EOF while looking for matching `{}'",
                    if msg.contains("single") { "'" } else { "\"" }
                )
            } else {
                format!("-c: line {line}: syntax error: {msg}")
            }
        }
    })
}

/// Whether the script's last token is a redirection operator (`cmd >`, `cat <<`, `x <y>`).
fn ends_with_redirection(text: &str) -> bool {
    let t = text.trim_end();
    [">", "<", ">&", "<&", ">|", "<>"]
        .iter()
        .any(|op| t.ends_with(op))
        && !t.ends_with("\\>")
        && !t.ends_with("\\<")
}

fn token_at(text: &str, index: usize) -> String {
    let rest = text.get(index..).unwrap_or("");
    let rest = rest.trim_start();
    for op in [
        ";;", "&&", "||", ">>", "<<", "(", ")", "|", ";", "&", "<", ">", "{", "}",
    ] {
        if rest.starts_with(op) {
            return op.to_string();
        }
    }
    let word: String = rest.chars().take_while(|c| !c.is_whitespace()).collect();
    if word.is_empty() {
        "newline".into()
    } else {
        word
    }
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
    if let Some(prelude) = std::env::var("INTERCODE_PRELUDE")
        .ok()
        .filter(|p| !p.is_empty())
    {
        shell.unset("INTERCODE_PRELUDE");
        shell.run_script_text(&prelude);
        shell.flow = Flow::Normal;
    }
    if let Some(base) = std::env::var("INTERCODE_LINE_BASE")
        .ok()
        .and_then(|b| b.parse().ok())
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
        return match parse(&text) {
            Ok(_) => 0,
            Err(e) => {
                shell.syntax_error(&argv0, &e);
                2
            }
        };
    }
    if !is_subshell {
        shell.enter_shell_level();
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
                    Err(e) => {
                        shell.err(&format!("{argv0}: {file}: {}\n", exec::error_text(&e)));
                        127
                    }
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
