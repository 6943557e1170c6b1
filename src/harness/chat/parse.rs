//! Reading actions out of model replies.
//!
//! The rules are strict on purpose, so that a score measures the model and not a lenient
//! parser:
//!
//! * Fenced strategies act on the first fenced code block whose language tag fits the env
//!   (```` ```bash ````/`sh`/`shell`/`console`, ```` ```sql ````/`mysql`/`sqlite`,
//!   ```` ```python ````/`py`/`python3`, any case) or that has no tag. A block the model left
//!   unclosed at the end of its reply counts; a one-line block (```` ```ls -la``` ````) counts.
//!   Prose without a fence is no action, however command-like it looks: the strategy re-asks.
//! * Upstream replaced every `\n` of a reply with a space (for bash), which turned multi-line
//!   commands and heredocs into different commands; replies are used as written here.
//! * A code block that is exactly `submit` (Python: `submit <function>`) or `skip` is that
//!   decision, not a command. A Python block is one cell, however many lines.
//! * Bash: a leading `$ ` shell prompt is dropped (models copy it from transcripts).

use crate::env::EnvKind;
use crate::harness::policy::Action;

/// The fence tags each env accepts (an untagged fence is accepted everywhere).
fn tags(env: EnvKind) -> &'static [&'static str] {
    match env {
        EnvKind::Bash => &["bash", "sh", "shell", "console"],
        EnvKind::Sql => &["sql", "mysql", "sqlite", "sqlite3"],
        EnvKind::Python => &["python", "py", "python3"],
    }
}

fn is_any_tag(word: &str) -> bool {
    [EnvKind::Bash, EnvKind::Sql, EnvKind::Python]
        .iter()
        .any(|&env| tags(env).contains(&word))
}

/// The action in a fenced reply, if there is one.
pub fn fenced_action(reply: &str, env: EnvKind) -> Option<Action> {
    code_block(reply, env).map(|code| command_action(&code, env))
}

/// The first non-empty fenced block whose tag fits `env`.
pub fn code_block(reply: &str, env: EnvKind) -> Option<String> {
    let lines: Vec<&str> = reply.lines().collect();
    let mut i = 0;
    while i < lines.len() {
        let Some(info) = lines[i].trim_start().strip_prefix("```") else {
            i += 1;
            continue;
        };
        let info = info.trim();
        if let Some(inner) = info.strip_suffix("```") {
            // A one-line block; its first word may still be a tag (```bash ls```).
            if let Some(code) = one_line_block(inner.trim(), env) {
                return Some(code);
            }
            i += 1;
            continue;
        }
        let tag = info
            .split_whitespace()
            .next()
            .unwrap_or("")
            .to_ascii_lowercase();
        let close = (i + 1..lines.len())
            .find(|&j| is_closing_fence(lines[j]))
            .unwrap_or(lines.len());
        if tag.is_empty() || tags(env).contains(&tag.as_str()) {
            let code = tidy(&lines[i + 1..close]);
            if !code.is_empty() {
                return Some(code);
            }
        }
        i = close + 1;
    }
    None
}

fn one_line_block(inner: &str, env: EnvKind) -> Option<String> {
    let (first, rest) = inner.split_once(char::is_whitespace).unwrap_or((inner, ""));
    let first_lower = first.to_ascii_lowercase();
    let code = if is_any_tag(&first_lower) {
        if !tags(env).contains(&first_lower.as_str()) {
            return None;
        }
        rest.trim()
    } else {
        inner
    };
    (!code.is_empty()).then(|| code.to_string())
}

fn is_closing_fence(line: &str) -> bool {
    let t = line.trim();
    t.len() >= 3 && t.bytes().all(|b| b == b'`')
}

/// The block's lines without blank lines around them; indentation is kept (Python needs it).
fn tidy(lines: &[&str]) -> String {
    let start = lines
        .iter()
        .position(|l| !l.trim().is_empty())
        .unwrap_or(lines.len());
    lines[start..].join("\n").trim_end().to_string()
}

/// A block's code as an action: `submit` / `submit <name>` / `skip`, or a command to run.
pub fn command_action(code: &str, env: EnvKind) -> Action {
    let code = match env {
        EnvKind::Bash => strip_prompt(code),
        EnvKind::Sql | EnvKind::Python => code.to_string(),
    };
    let t = code.trim();
    if t == "skip" {
        return Action::Skip;
    }
    if t == "submit" {
        return Action::Submit(None);
    }
    if let Some(name) = t.strip_prefix("submit ") {
        let name = name.trim().trim_end_matches("()");
        if is_identifier(name) {
            // Only Python's submit names something (the function to test).
            return Action::Submit((env == EnvKind::Python).then(|| name.to_string()));
        }
    }
    Action::Run(code)
}

/// Drops `$ ` from the first line and from every later line that has it.
fn strip_prompt(code: &str) -> String {
    if !code.trim_start().starts_with("$ ") {
        return code.to_string();
    }
    code.lines()
        .map(|l| l.trim_start().strip_prefix("$ ").unwrap_or(l))
        .collect::<Vec<_>>()
        .join("\n")
}

fn is_identifier(s: &str) -> bool {
    let mut chars = s.chars();
    chars.next().is_some_and(|c| c.is_alphabetic() || c == '_')
        && chars.all(|c| c.is_alphanumeric() || c == '_')
}

/// The name of the last top-level `def` in a Python cell.
pub fn defined_function(code: &str) -> Option<String> {
    code.lines()
        .filter_map(|l| {
            let rest = l
                .strip_prefix("def ")
                .or_else(|| l.strip_prefix("async def "))?;
            let name = rest.split('(').next()?.trim();
            is_identifier(name).then(|| name.to_string())
        })
        .next_back()
}

/// The reply up to the first stop sequence: endpoints that ignore `stop` (some local servers)
/// would otherwise let the model invent the observation.
pub fn cut_at_stop<'a>(reply: &'a str, stop: &[String]) -> &'a str {
    stop.iter()
        .filter_map(|s| reply.find(s.as_str()))
        .min()
        .map_or(reply, |end| &reply[..end])
}

/// A ReAct turn: `Thought k: ...` then `Action k: execute[<command>]` / `submit` / `skip`.
#[derive(Debug, Clone, PartialEq)]
pub struct ReactTurn {
    pub thought: Option<String>,
    pub action: Option<Action>,
}

/// Reads a ReAct reply (already cut at the stop sequence). The command of `execute[...]` runs
/// to the last `]` of the reply, so brackets inside it (`a[0]`, `[ -f x ]`) and several lines
/// are fine; a fenced block inside the brackets is unwrapped.
pub fn react_turn(reply: &str, env: EnvKind) -> ReactTurn {
    let mut offset = 0;
    let mut found = None;
    for line in reply.split_inclusive('\n') {
        if let Some(rest) = after_label(line, "Action") {
            found = Some((offset, offset + (line.len() - rest.len())));
            break;
        }
        offset += line.len();
    }
    let (thought_text, action_text) = match found {
        Some((line_start, rest_start)) => (&reply[..line_start], Some(&reply[rest_start..])),
        None => (reply, None),
    };
    let thought = thought_text
        .lines()
        .map(|l| after_label(l, "Thought").unwrap_or(l))
        .collect::<Vec<_>>()
        .join("\n")
        .trim()
        .to_string();
    ReactTurn {
        thought: (!thought.is_empty()).then_some(thought),
        action: action_text.and_then(|a| react_action(a.trim(), env)),
    }
}

fn react_action(text: &str, env: EnvKind) -> Option<Action> {
    let lower = text.to_ascii_lowercase();
    if lower.starts_with("execute[") {
        let inner = &text["execute[".len()..];
        let inner = inner.rfind(']').map_or(inner, |end| &inner[..end]);
        let code = if inner.contains("```") {
            code_block(inner, env)?
        } else {
            inner.trim().to_string()
        };
        return (!code.is_empty()).then(|| command_action(&code, env));
    }
    let first_line = text.lines().next().unwrap_or("").trim();
    let (word, arg) = match first_line.split_once(['[', ' ']) {
        Some((w, a)) => (w, a.trim_end_matches(']').trim()),
        None => (first_line, ""),
    };
    match word.to_ascii_lowercase().as_str() {
        "skip" => Some(Action::Skip),
        "submit" if arg.is_empty() => Some(Action::Submit(None)),
        "submit" => Some(command_action(&format!("submit {arg}"), env)),
        _ => None,
    }
}

/// The text after `Label:` or `Label <k>:` at the start of `line`.
fn after_label<'a>(line: &'a str, label: &str) -> Option<&'a str> {
    let rest = line.trim_start().strip_prefix(label)?;
    let rest = rest.trim_start_matches(' ');
    let rest = rest.trim_start_matches(|c: char| c.is_ascii_digit());
    rest.trim_start_matches(' ').strip_prefix(':')
}

/// The steps of a numbered plan (`1. ...` or `1) ...`). A step's wrapped lines join it; a blank
/// line ends it, so prose after the plan is not taken for part of the last step. Fence lines
/// are dropped, their content kept.
pub fn plan_steps(reply: &str) -> Vec<String> {
    let mut steps: Vec<String> = Vec::new();
    let mut open = false;
    for line in reply.lines() {
        let t = line.trim().trim_start_matches("**");
        if t.starts_with("```") {
            continue;
        }
        if let Some(rest) = numbered(t) {
            steps.push(rest.trim().trim_start_matches("**").trim().to_string());
            open = true;
        } else if t.is_empty() {
            open = false;
        } else if open && let Some(last) = steps.last_mut() {
            if !last.is_empty() {
                last.push(' ');
            }
            last.push_str(t);
        }
    }
    steps.retain(|s| !s.is_empty());
    steps
}

/// `"3. Do x"` → `"Do x"`: up to 3 digits, then `.` or `)` (with an optional `**` after), then
/// a space.
fn numbered(line: &str) -> Option<&str> {
    let digits = line.bytes().take_while(u8::is_ascii_digit).count();
    if digits == 0 || digits > 3 {
        return None;
    }
    let rest = line[digits..].strip_prefix(['.', ')'])?;
    let rest = rest.strip_prefix("**").unwrap_or(rest);
    if rest.is_empty() {
        return Some(rest);
    }
    rest.starts_with(char::is_whitespace).then_some(rest)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(s: &str) -> Option<Action> {
        Some(Action::Run(s.to_string()))
    }

    #[test]
    fn first_fitting_block_wins() {
        let reply = "Let me look.\n```BASH\nls -la /tmp\n```\nthen\n```bash\npwd\n```";
        assert_eq!(fenced_action(reply, EnvKind::Bash), run("ls -la /tmp"));
        // A block in another language is passed over.
        let reply = "```python\nprint(1)\n```\n```sh\necho hi\n```";
        assert_eq!(fenced_action(reply, EnvKind::Bash), run("echo hi"));
        assert_eq!(
            fenced_action("```\nSELECT 1;\n```", EnvKind::Sql),
            run("SELECT 1;")
        );
        assert_eq!(
            fenced_action("```sql\nSHOW TABLES", EnvKind::Sql),
            run("SHOW TABLES")
        );
        assert_eq!(fenced_action("Run ```ls -l``` now", EnvKind::Bash), None);
        assert_eq!(fenced_action("```ls -l```", EnvKind::Bash), run("ls -l"));
        assert_eq!(
            fenced_action("```bash ls -l```", EnvKind::Bash),
            run("ls -l")
        );
    }

    #[test]
    fn no_fence_is_no_action() {
        assert_eq!(fenced_action("ls -la", EnvKind::Bash), None);
        assert_eq!(fenced_action("I would run `ls`.", EnvKind::Bash), None);
        assert_eq!(fenced_action("```bash\n\n```", EnvKind::Bash), None);
    }

    #[test]
    fn multi_line_commands_stay_multi_line() {
        let reply = "```bash\nfor f in *.txt; do\n  wc -l \"$f\"\ndone\n```";
        assert_eq!(
            fenced_action(reply, EnvKind::Bash),
            run("for f in *.txt; do\n  wc -l \"$f\"\ndone")
        );
        let cell = "```python\ndef add(a, b):\n    return a + b\n\nprint(add(1, 2))\n```";
        assert_eq!(
            fenced_action(cell, EnvKind::Python),
            run("def add(a, b):\n    return a + b\n\nprint(add(1, 2))")
        );
    }

    #[test]
    fn submit_skip_and_prompts() {
        assert_eq!(
            fenced_action("```bash\nsubmit\n```", EnvKind::Bash),
            Some(Action::Submit(None))
        );
        assert_eq!(
            fenced_action("```sql\nskip\n```", EnvKind::Sql),
            Some(Action::Skip)
        );
        assert_eq!(
            fenced_action("```python\nsubmit add\n```", EnvKind::Python),
            Some(Action::Submit(Some("add".into())))
        );
        assert_eq!(
            fenced_action("```\nsubmit add()\n```", EnvKind::Python),
            Some(Action::Submit(Some("add".into())))
        );
        assert_eq!(
            fenced_action("```bash\n$ ls\n$ pwd\n```", EnvKind::Bash),
            run("ls\npwd")
        );
        assert_eq!(
            defined_function("import os\ndef helper(x):\n  pass\ndef main (y):\n  pass"),
            Some("main".into())
        );
        assert_eq!(defined_function("x = 1"), None);
    }

    #[test]
    fn react_reads_thought_and_execute() {
        let t = react_turn(
            "Thought 1: list everything\nAction 1: execute[ls -la]",
            EnvKind::Bash,
        );
        assert_eq!(t.thought.as_deref(), Some("list everything"));
        assert_eq!(t.action, run("ls -la"));
        let t = react_turn(
            "Thought: check\nAction: execute[[ -f a ] && echo yes]",
            EnvKind::Bash,
        );
        assert_eq!(t.action, run("[ -f a ] && echo yes"));
        let t = react_turn("Thought 3: done\nAction 3: submit", EnvKind::Bash);
        assert_eq!(t.action, Some(Action::Submit(None)));
        let t = react_turn("Action: submit[add]", EnvKind::Python);
        assert_eq!(t.action, Some(Action::Submit(Some("add".into()))));
        assert_eq!(t.thought, None);
        let t = react_turn("Action: execute[```sql\nSELECT 1\n```]", EnvKind::Sql);
        assert_eq!(t.action, run("SELECT 1"));
        let t = react_turn("Thought 1: hmm, no idea", EnvKind::Bash);
        assert_eq!(t.action, None);
        assert_eq!(t.thought.as_deref(), Some("hmm, no idea"));
    }

    #[test]
    fn stop_sequences_cut_the_reply() {
        let stop = vec!["\nObservation".to_string()];
        let reply = "Thought 1: x\nAction 1: execute[ls]\nObservation 1: a b c\nThought 2: y";
        assert_eq!(
            cut_at_stop(reply, &stop),
            "Thought 1: x\nAction 1: execute[ls]"
        );
        assert_eq!(cut_at_stop("plain", &stop), "plain");
    }

    #[test]
    fn plans_are_numbered_steps() {
        let reply = "Here is my plan:\n1. List the files in /data\n2) Count the lines\n   of each file\n\n**3.** Print the total\n\nThat should do it.";
        assert_eq!(
            plan_steps(reply),
            [
                "List the files in /data",
                "Count the lines of each file",
                "Print the total"
            ]
        );
        assert_eq!(plan_steps("1.5 GB is the size"), Vec::<String>::new());
        assert!(plan_steps("no plan here").is_empty());
    }
}
