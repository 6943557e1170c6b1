//! `tools` (not in upstream): the model acts through function calls instead of code fences.
//! Each request offers two tools, `execute {command}` and `submit` (Python:
//! `submit {function_name}`); the first call of a reply is the action, and its result (the cut
//! observation and the reward) goes back as the tool message answering that call's id.
//!
//! OpenAI-style endpoints reject a request in which any earlier tool call lacks an answer, so
//! every further call of a reply is answered too, with a note that it did not run. A reply with
//! no call gets one reminder, then the episode fails as `Malformed`.

use serde_json::{Map, Value, json};

use super::dialogue::{Context, Functions, Read, Shape, assistant_message};
use super::parse;
use crate::env::EnvKind;
use crate::harness::model::{ChatMessage, ChatReply, ToolCall, ToolSpec};
use crate::harness::policy::{Action, Decision, Observation, PolicyError, TaskView};

/// Extra calls when a reply has no usable tool call.
pub(super) const RE_ASKS: usize = 1;

/// The answer to the calls of a reply after the first.
pub(super) const NOT_RUN: &str =
    "Not run: only the first tool call of a reply is carried out. Call one tool per reply.";

/// The two tools offered on every request.
pub(super) fn tool_specs(env: EnvKind) -> Vec<ToolSpec> {
    let (what, command) = match env {
        EnvKind::Bash => ("a bash command", "The command line to run."),
        EnvKind::Sql => ("an SQL statement", "The SQL statement to run."),
        EnvKind::Python => (
            "Python code in the interpreter",
            "The code to run (one cell; definitions persist between calls).",
        ),
    };
    let submit_parameters = match env {
        EnvKind::Python => json!({
            "type": "object",
            "properties": {
                "function_name": {
                    "type": "string",
                    "description": "The name of the function that solves the task."
                }
            }
        }),
        EnvKind::Bash | EnvKind::Sql => json!({ "type": "object", "properties": {} }),
    };
    vec![
        ToolSpec {
            name: "execute".to_string(),
            description: format!("Run {what} and return its output and the current reward."),
            parameters: json!({
                "type": "object",
                "properties": {
                    "command": { "type": "string", "description": command }
                },
                "required": ["command"]
            }),
        },
        ToolSpec {
            name: "submit".to_string(),
            description: "Finish the task: the current state is scored.".to_string(),
            parameters: submit_parameters,
        },
    ]
}

#[derive(Debug, Clone)]
pub(super) struct Tools {
    task: TaskView,
    dialogue: Vec<ChatMessage>,
    specs: Vec<ToolSpec>,
    /// The ids of the last reply's calls; the first is the one that ran.
    pending: Vec<String>,
    started: bool,
    functions: Functions,
}

impl Tools {
    pub fn start(ctx: &Context, task: &TaskView) -> Result<Tools, PolicyError> {
        let query = ctx.render("query", &ctx.base_vars(task))?;
        Ok(Tools {
            task: task.clone(),
            dialogue: vec![ctx.system_message(task)?, ChatMessage::user(query)],
            specs: tool_specs(ctx.env),
            pending: Vec::new(),
            started: false,
            functions: Functions::default(),
        })
    }

    pub fn act(&mut self, ctx: &Context, obs: &Observation) -> Result<Decision, PolicyError> {
        if self.started {
            let text = ctx.render("observation", &ctx.observation_vars(&self.task, obs))?;
            let pending = std::mem::take(&mut self.pending);
            match pending.split_first() {
                Some((ran, rest)) => {
                    self.dialogue.push(ChatMessage::tool(ran.as_str(), text));
                    for id in rest {
                        self.dialogue.push(ChatMessage::tool(id.as_str(), NOT_RUN));
                    }
                }
                // Not reached (every action came from a call), but an observation is never lost.
                None => self.dialogue.push(ChatMessage::user(text)),
            }
        }
        self.started = true;
        let remind = ctx.render("remind", &ctx.turn_vars(&self.task, obs.turn))?;
        let shape = Shape {
            window: ctx.window,
            stop: &[],
            tools: &self.specs,
            re_asks: RE_ASKS,
        };
        let answer = ctx.converse(&mut self.dialogue, &shape, |reply| {
            (
                assistant_message(reply),
                read_calls(reply, ctx.env, &remind),
            )
        })?;
        let (action, ids) = answer.value;
        self.pending = ids;
        let content = answer.reply.content.trim();
        Ok(Decision {
            action: self.functions.note(ctx.env, action),
            thought: (!content.is_empty()).then(|| content.to_string()),
            response: Some(raw_reply(&answer.reply)),
            usage: answer.usage,
        })
    }
}

/// The action of a reply's first call and the ids to answer next turn; or the messages that
/// answer the calls (all of them: the endpoint demands it) and remind the model.
fn read_calls(reply: &ChatReply, env: EnvKind, remind: &str) -> Read<(Action, Vec<String>)> {
    let Some((first, rest)) = reply.tool_calls.split_first() else {
        return Read::Reask(vec![ChatMessage::user(remind)]);
    };
    match call_action(first, env) {
        Ok(action) => Read::Act((
            action,
            reply.tool_calls.iter().map(|c| c.id.clone()).collect(),
        )),
        Err(why) => {
            let mut answers = vec![ChatMessage::tool(
                first.id.as_str(),
                format!("Error: {why}. {remind}"),
            )];
            answers.extend(
                rest.iter()
                    .map(|c| ChatMessage::tool(c.id.as_str(), NOT_RUN)),
            );
            Read::Reask(answers)
        }
    }
}

/// The action a call asks for, or what is wrong with it (told to the model).
fn call_action(call: &ToolCall, env: EnvKind) -> Result<Action, String> {
    let args: Value = if call.arguments.trim().is_empty() {
        Value::Object(Map::new())
    } else {
        serde_json::from_str(&call.arguments)
            .map_err(|e| format!("the arguments are not a JSON object ({e})"))?
    };
    match call.name.as_str() {
        "execute" => {
            let command = args
                .get("command")
                .and_then(Value::as_str)
                .filter(|c| !c.trim().is_empty())
                .ok_or("execute needs a non-empty string argument `command`")?;
            // `execute {"command": "submit"}` means submit, as a fenced `submit` does.
            Ok(parse::command_action(command, env))
        }
        "submit" => {
            let name = args.get("function_name").and_then(Value::as_str);
            Ok(match (env, name) {
                (EnvKind::Python, Some(n)) if !n.trim().is_empty() => {
                    Action::Submit(Some(n.trim().to_string()))
                }
                _ => Action::Submit(None),
            })
        }
        other => Err(format!(
            "there is no tool named {other:?}; the tools are execute and submit"
        )),
    }
}

/// The reply as recorded: its text and its calls, as JSON.
fn raw_reply(reply: &ChatReply) -> String {
    json!({ "content": reply.content, "tool_calls": reply.tool_calls }).to_string()
}

#[cfg(test)]
mod tests {
    use super::super::StrategyKind;
    use super::super::testing::{Scripted, calls, obs, started, text};
    use super::NOT_RUN;
    use crate::env::EnvKind;
    use crate::harness::model::Role;
    use crate::harness::policy::{Action, Policy, PolicyError};

    #[test]
    fn tool_calls_are_the_actions_and_results_answer_their_ids() {
        let model = Scripted::new(vec![
            calls(
                "Looking first.",
                &[("call_1", "execute", r#"{"command": "ls /data"}"#)],
            ),
            calls(
                "",
                &[
                    ("call_2", "execute", r#"{"command": "wc -l /data/a"}"#),
                    ("call_3", "execute", r#"{"command": "pwd"}"#),
                ],
            ),
            calls("", &[("call_4", "submit", "{}")]),
        ]);
        let mut p = started(
            &model,
            StrategyKind::Tools,
            EnvKind::Bash,
            "count lines of a",
        );
        assert!(p.wants_reward());
        let d = p.act(&obs(0, "", None)).unwrap();
        assert_eq!(d.action, Action::Run("ls /data".into()));
        assert_eq!(d.thought.as_deref(), Some("Looking first."));
        assert!(d.response.unwrap().contains("call_1"));
        let d = p.act(&obs(1, "a", Some(0.67))).unwrap();
        assert_eq!(d.action, Action::Run("wc -l /data/a".into()));
        assert_eq!(d.thought, None);
        let d = p.act(&obs(2, "3 /data/a", Some(1.0))).unwrap();
        assert_eq!(d.action, Action::Submit(None));

        let requests = model.requests();
        let names: Vec<&str> = requests[0].tools.iter().map(|t| t.name.as_str()).collect();
        assert_eq!(names, ["execute", "submit"]);
        let second = &requests[1].messages;
        assert_eq!(second[2].role, Role::Assistant);
        assert_eq!(second[2].tool_calls[0].id, "call_1");
        assert_eq!(second[3].role, Role::Tool);
        assert_eq!(second[3].tool_call_id.as_deref(), Some("call_1"));
        assert!(second[3].content.contains("0.67"), "{}", second[3].content);
        // Both calls of the second reply are answered; only the first ran.
        let third = &requests[2].messages;
        assert_eq!(third[5].tool_call_id.as_deref(), Some("call_2"));
        assert!(third[5].content.contains("3 /data/a"));
        assert_eq!(third[6].tool_call_id.as_deref(), Some("call_3"));
        assert_eq!(third[6].content, NOT_RUN);
    }

    #[test]
    fn python_submit_names_the_function() {
        let model = Scripted::new(vec![
            calls(
                "",
                &[(
                    "a",
                    "execute",
                    r#"{"command": "def sq(x):\n    return x * x"}"#,
                )],
            ),
            calls("", &[("b", "submit", "")]),
        ]);
        let mut p = started(&model, StrategyKind::Tools, EnvKind::Python, "square");
        assert_eq!(
            p.act(&obs(0, "", None)).unwrap().action,
            Action::Run("def sq(x):\n    return x * x".into())
        );
        let d = p.act(&obs(1, "", Some(0.0))).unwrap();
        assert_eq!(d.action, Action::Submit(Some("sq".into())));
        let submit = &model.requests()[0].tools[1];
        assert!(submit.parameters["properties"]["function_name"].is_object());
    }

    #[test]
    fn text_without_a_call_is_reminded_once() {
        let model = Scripted::new(vec![
            text("I would list the files."),
            calls("", &[("c1", "execute", r#"{"command": "ls"}"#)]),
        ]);
        let mut p = started(&model, StrategyKind::Tools, EnvKind::Bash, "list");
        assert_eq!(
            p.act(&obs(0, "", None)).unwrap().action,
            Action::Run("ls".into())
        );
        let reminder = model.requests()[1].messages.last().unwrap().clone();
        assert_eq!(reminder.role, Role::User);

        let model = Scripted::new(vec![text("no"), text("still no"), text("never")]);
        let mut p = started(&model, StrategyKind::Tools, EnvKind::Bash, "list");
        assert!(matches!(
            p.act(&obs(0, "", None)),
            Err(PolicyError::Malformed(_))
        ));
        assert_eq!(model.requests().len(), 2);
    }

    #[test]
    fn a_bad_call_is_answered_and_counts_as_the_reminder() {
        let model = Scripted::new(vec![
            calls("", &[("x1", "run_shell", r#"{"cmd": "ls"}"#)]),
            calls("", &[("x2", "execute", r#"{"command": "ls"}"#)]),
        ]);
        let mut p = started(&model, StrategyKind::Tools, EnvKind::Bash, "list");
        assert_eq!(
            p.act(&obs(0, "", None)).unwrap().action,
            Action::Run("ls".into())
        );
        let answer = model.requests()[1].messages.last().unwrap().clone();
        assert_eq!(answer.tool_call_id.as_deref(), Some("x1"));
        assert!(answer.content.contains("run_shell"), "{}", answer.content);
    }
}
