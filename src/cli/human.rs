//! `--agent human`: a person at the terminal plays through the same loop, and into the same
//! records, as every other agent. Line editing and history come from rustyline when stdin is a
//! terminal (plain lines otherwise, so scripted sessions work). An action spans lines until the
//! env's own parser says it is complete: a here-document typed over three lines, a Python
//! `def` and its body, are one action each. `submit` scores the episode, `skip` gives up; end
//! of input submits.

use intercode::env::{Env, EnvSpec};
use intercode::harness::agents::AgentFactory;
use intercode::harness::policy::{Action, Decision, Observation, Policy, PolicyError, TaskView};
use std::io::{BufRead, IsTerminal, Write};

pub struct HumanAgent {
    spec: EnvSpec,
}

impl HumanAgent {
    pub fn new(spec: EnvSpec) -> HumanAgent {
        HumanAgent { spec }
    }
}

impl AgentFactory for HumanAgent {
    fn policy(&self) -> Result<Box<dyn Policy>, PolicyError> {
        // A private env of the same spec answers "is this action complete?": the runner owns
        // the episode's env, and parsing runs nothing.
        let parser = self
            .spec
            .build()
            .map_err(|e| PolicyError::Other(format!("env for the line reader: {e}")))?;
        let input = if std::io::stdin().is_terminal() {
            match rustyline::DefaultEditor::new() {
                Ok(editor) => Input::Editor(Box::new(editor)),
                Err(_) => Input::Lines,
            }
        } else {
            Input::Lines
        };
        Ok(Box::new(HumanPolicy { parser, input }))
    }
}

enum Input {
    Editor(Box<rustyline::DefaultEditor>),
    Lines,
}

struct HumanPolicy {
    parser: Box<dyn Env>,
    input: Input,
}

impl HumanPolicy {
    fn interactive(&self) -> bool {
        matches!(self.input, Input::Editor(_))
    }

    /// One line, or `None` at end of input (Ctrl-D) or Ctrl-C.
    fn read_line(&mut self, prompt: &str) -> Result<Option<String>, PolicyError> {
        match &mut self.input {
            Input::Editor(editor) => match editor.readline(prompt) {
                Ok(line) => Ok(Some(line)),
                Err(rustyline::error::ReadlineError::Eof)
                | Err(rustyline::error::ReadlineError::Interrupted) => Ok(None),
                Err(e) => Err(PolicyError::Other(format!("terminal: {e}"))),
            },
            Input::Lines => {
                let mut line = String::new();
                match std::io::stdin().lock().read_line(&mut line) {
                    Ok(0) => Ok(None),
                    Ok(_) => Ok(Some(line.trim_end_matches(['\n', '\r']).to_string())),
                    Err(e) => Err(PolicyError::Other(format!("stdin: {e}"))),
                }
            }
        }
    }

    fn show(&self, observation: &Observation) {
        let mut out = std::io::stdout().lock();
        if let Some(table) = super::sql::render_info(&observation.info) {
            let _ = out.write_all(table.as_bytes());
        } else {
            let _ = out.write_all(observation.text.as_bytes());
            if !observation.text.is_empty() && !observation.text.ends_with('\n') {
                let _ = writeln!(out);
            }
        }
        let _ = out.flush();
    }
}

impl Policy for HumanPolicy {
    fn reset(&mut self, task: &TaskView) -> Result<(), PolicyError> {
        self.parser
            .reset(task.index)
            .map_err(|e| PolicyError::Other(e.to_string()))?;
        let mut out = std::io::stdout().lock();
        let _ = writeln!(out, "Task {}: {}", task.index, task.query);
        if self.interactive() {
            let _ = writeln!(out, "(type commands; `submit` to score, `skip` to give up)");
        }
        Ok(())
    }

    fn act(&mut self, observation: &Observation) -> Result<Decision, PolicyError> {
        if observation.turn > 0 {
            self.show(observation);
        }
        let prompt = format!("{}> ", self.parser.name());
        let mut action = loop {
            match self.read_line(&prompt)? {
                None => return Ok(Decision::new(Action::Submit(None))),
                Some(line) if line.trim().is_empty() => continue,
                Some(line) => break line,
            }
        };
        while !self
            .parser
            .is_complete(&action)
            .map_err(|e| PolicyError::Other(e.to_string()))?
        {
            match self.read_line("... ")? {
                Some(more) => {
                    action.push('\n');
                    action.push_str(&more);
                }
                None => break,
            }
        }
        if let Input::Editor(editor) = &mut self.input {
            let _ = editor.add_history_entry(action.as_str());
        }
        let action = action.trim_end().to_string();
        Ok(Decision::new(
            match intercode::env::Keyword::parse(&action) {
                Some(intercode::env::Keyword::Submit(name)) => Action::Submit(name),
                Some(intercode::env::Keyword::Skip) => Action::Skip,
                None => Action::Run(action),
            },
        ))
    }
}
