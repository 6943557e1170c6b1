//! `intercode shell ENV --task N`: a person plays an episode. Lines typed are actions;
//! `submit` scores the episode, `skip` abandons it. Reads stdin when it is not a terminal, so
//! scripted sessions work too.

use super::ShellArgs;
use std::io::{BufRead, IsTerminal, Write};
use std::process::ExitCode;

pub fn shell(args: ShellArgs) -> anyhow::Result<ExitCode> {
    let mut env = super::run::make_env(args.env, &args.source)?;
    let reset = env.reset(args.task)?;
    let interactive = std::io::stdin().is_terminal();
    let mut out = std::io::stdout();
    writeln!(out, "Task {}: {}", reset.index, reset.query)?;
    if interactive {
        writeln!(out, "(type commands; `submit` to score, `skip` to give up)")?;
    }
    let stdin = std::io::stdin();
    let mut lines = stdin.lock().lines();
    loop {
        if interactive {
            write!(out, "{}> ", env.name())?;
            out.flush()?;
        }
        let Some(line) = lines.next() else {
            // End of input: score what was done, like an implicit submit.
            let step = env.submit()?;
            print_reward(&mut out, &step)?;
            return Ok(ExitCode::SUCCESS);
        };
        let mut action = line?;
        if action.trim().is_empty() {
            continue;
        }
        // Python blocks span lines: keep reading until the interpreter's parser has a whole
        // statement (a blank line ends an indented block).
        while !env.is_complete(&action)? {
            if interactive {
                write!(out, "... ")?;
                out.flush()?;
            }
            match lines.next() {
                Some(more) => {
                    action.push('\n');
                    action.push_str(&more?);
                }
                None => break,
            }
        }
        let step = env.step(action.trim_end())?;
        if step.done {
            print_reward(&mut out, &step)?;
            return Ok(ExitCode::SUCCESS);
        }
        if let Some(table) = super::sql::render(&step) {
            out.write_all(table.as_bytes())?;
            continue;
        }
        out.write_all(step.observation.as_bytes())?;
        if !step.observation.is_empty() && !step.observation.ends_with('\n') {
            writeln!(out)?;
        }
    }
}

fn print_reward(out: &mut impl Write, step: &intercode::env::Step) -> anyhow::Result<()> {
    writeln!(out, "reward: {}", step.reward)?;
    writeln!(out, "{}", serde_json::to_string_pretty(&step.info)?)?;
    Ok(())
}
