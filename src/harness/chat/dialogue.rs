//! What every strategy shares: the run's fixed context (model, env, template, limits), the
//! placeholder values known from the task, and the ask–read–re-ask loop around a model call.

use std::sync::Arc;

use super::StrategyKind;
use super::parse;
use super::prompts::{self, Template, Vars};
use super::window::{ObservationLimit, Window, shown_observation};
use crate::data::trajectory::Usage;
use crate::env::EnvKind;
use crate::harness::model::{
    ChatMessage, ChatModel, ChatReply, ChatRequest, ModelError, Role, Sampling, ToolSpec,
};
use crate::harness::policy::{Action, Decision, Observation, PolicyError, TaskView};

/// Extra calls when a reply has no code block (single-turn, try-again, plan-solve).
pub(super) const CODE_RE_ASKS: usize = 2;

/// Everything fixed for a run: built once by [`super::chat_policy`], shared by the clones.
pub(super) struct Context {
    pub model: Arc<dyn ChatModel>,
    pub env: EnvKind,
    pub strategy: StrategyKind,
    pub template: Template,
    pub window: Window,
    pub limit: ObservationLimit,
    pub max_turns: usize,
    pub refine_turns: usize,
    pub schema_hint: bool,
    pub sampling: Sampling,
}

/// What a model call is sent with, besides the messages.
pub(super) struct Shape<'a> {
    pub window: Window,
    pub stop: &'a [String],
    pub tools: &'a [ToolSpec],
    /// Extra calls after a reply without an action, before giving up with `Malformed`.
    pub re_asks: usize,
}

/// What the strategy makes of one reply.
pub(super) enum Read<T> {
    /// The reply held what was asked for.
    Act(T),
    /// It did not: append these messages and ask again.
    Reask(Vec<ChatMessage>),
}

/// A successful exchange: the value read, the reply it came from, and the tokens of every call
/// it took.
pub(super) struct Answer<T> {
    pub value: T,
    pub reply: ChatReply,
    pub usage: Usage,
}

impl Context {
    /// The values every section can use.
    pub fn base_vars(&self, task: &TaskView) -> Vars {
        let mut vars = Vars::default();
        vars.set("query", task.query.as_str())
            .set("setting", prompts::setting(self.env))
            .set("language", prompts::env_name(self.env))
            .set("max_turns", self.max_turns.to_string())
            .set("tables", tables_text(&task.tables));
        vars
    }

    /// [`Self::base_vars`] plus the turn counters: `turn` actions taken so far.
    pub fn turn_vars(&self, task: &TaskView, turn: usize) -> Vars {
        let mut vars = self.base_vars(task);
        vars.set("turn", turn.to_string()).set(
            "turns_left",
            self.max_turns.saturating_sub(turn).to_string(),
        );
        vars
    }

    /// [`Self::turn_vars`] plus the observation as shown and the reward.
    pub fn observation_vars(&self, task: &TaskView, obs: &Observation) -> Vars {
        let mut vars = self.turn_vars(task, obs.turn);
        vars.set("observation", self.shown(&obs.text))
            .set("reward", reward_text(obs.reward));
        vars
    }

    pub fn render(&self, section: &str, vars: &Vars) -> Result<String, PolicyError> {
        self.template
            .render(section, vars)
            .map_err(|e| PolicyError::Other(e.to_string()))
    }

    /// The system message; with the schema hint, the rendered `schema` section follows it in
    /// the same message (a second system message would be message 2 and push the task out of
    /// the "first 2" the window keeps).
    pub fn system_message(&self, task: &TaskView) -> Result<ChatMessage, PolicyError> {
        let vars = self.base_vars(task);
        let mut text = self.render("system", &vars)?;
        if self.schema_hint {
            text.push_str("\n\n");
            text.push_str(&self.render("schema", &vars)?);
        }
        Ok(ChatMessage::system(text))
    }

    /// How a conversation opens: the system message, then the task.
    pub fn opening(&self, task: &TaskView) -> Result<Vec<ChatMessage>, PolicyError> {
        let query = self.render("query", &self.base_vars(task))?;
        Ok(vec![self.system_message(task)?, ChatMessage::user(query)])
    }

    /// One fenced code action from the model given `dialogue` (the strategies that answer
    /// in a code block), re-asking with the template's `retry` section up to
    /// [`CODE_RE_ASKS`] times.
    pub fn ask_for_code(
        &self,
        task: &TaskView,
        functions: &mut Functions,
        dialogue: &mut Vec<ChatMessage>,
        window: Window,
        turn: usize,
    ) -> Result<Decision, PolicyError> {
        let retry = self.render("retry", &self.turn_vars(task, turn))?;
        let shape = Shape {
            window,
            stop: &[],
            tools: &[],
            re_asks: CODE_RE_ASKS,
        };
        let answer = self.converse(dialogue, &shape, |reply| {
            let read = match parse::fenced_action(&reply.content, self.env) {
                Some(action) => Read::Act(action),
                None => Read::Reask(vec![ChatMessage::user(retry.clone())]),
            };
            (assistant_message(reply), read)
        })?;
        Ok(Decision {
            action: functions.note(self.env, answer.value),
            thought: None,
            response: Some(answer.reply.content),
            usage: answer.usage,
        })
    }

    /// An observation cut to the limits.
    pub fn shown(&self, text: &str) -> String {
        shown_observation(text, self.env, self.limit)
    }

    /// Calls the model on `dialogue` until `read` finds what it wants, re-asking up to
    /// `shape.re_asks` times. Each reply is appended to `dialogue` as the message `read` returns
    /// with it (so strategies decide what of a reply stays in the history).
    pub fn converse<T>(
        &self,
        dialogue: &mut Vec<ChatMessage>,
        shape: &Shape,
        mut read: impl FnMut(&ChatReply) -> (ChatMessage, Read<T>),
    ) -> Result<Answer<T>, PolicyError> {
        let mut usage = Usage::default();
        let mut attempt = 0;
        loop {
            let request = ChatRequest {
                messages: shape.window.select(dialogue),
                tools: shape.tools.to_vec(),
                stop: shape.stop.to_vec(),
            };
            let reply = self.model.complete(&request).map_err(policy_error)?;
            usage.add(reply.usage);
            let (kept, outcome) = read(&reply);
            dialogue.push(kept);
            match outcome {
                Read::Act(value) => {
                    return Ok(Answer {
                        value,
                        reply,
                        usage,
                    });
                }
                Read::Reask(more) if attempt < shape.re_asks => {
                    dialogue.extend(more);
                    attempt += 1;
                }
                Read::Reask(_) => {
                    return Err(PolicyError::Malformed(format!(
                        "{} replies in a row held no usable action; the last: {:?}",
                        attempt + 1,
                        excerpt(&reply)
                    )));
                }
            }
        }
    }
}

pub(super) fn policy_error(e: ModelError) -> PolicyError {
    match e {
        ModelError::Endpoint(m) => PolicyError::Endpoint(m),
        ModelError::Malformed(m) => PolicyError::Malformed(m),
    }
}

/// The assistant message that records `reply`, tool calls included.
pub(super) fn assistant_message(reply: &ChatReply) -> ChatMessage {
    ChatMessage {
        role: Role::Assistant,
        content: reply.content.clone(),
        tool_calls: reply.tool_calls.clone(),
        tool_call_id: None,
    }
}

fn excerpt(reply: &ChatReply) -> String {
    const MAX: usize = 200;
    let text = if reply.content.is_empty() && !reply.tool_calls.is_empty() {
        format!("tool calls {:?}", reply.tool_calls)
    } else {
        reply.content.clone()
    };
    match text.char_indices().nth(MAX) {
        Some((end, _)) => format!("{}…", &text[..end]),
        None => text,
    }
}

/// `{{tables}}`: one `- table(column, column)` line per table.
fn tables_text(tables: &[(String, Vec<String>)]) -> String {
    if tables.is_empty() {
        // Bash and Python tasks, or a database without tables: never a blank line.
        return "(no tables)".to_string();
    }
    tables
        .iter()
        .map(|(name, columns)| format!("- {name}({})", columns.join(", ")))
        .collect::<Vec<_>>()
        .join("\n")
}

/// `{{reward}}`: at most 3 decimals, always with a decimal point (`1.0`, `0.67`, `0.01`), the
/// way upstream's Python printed its rounded rewards.
pub(super) fn reward_text(reward: Option<f64>) -> String {
    let Some(r) = reward else {
        return "n/a".to_string();
    };
    let fixed = format!("{r:.3}");
    let trimmed = fixed.trim_end_matches('0');
    if trimmed.ends_with('.') {
        format!("{trimmed}0")
    } else {
        trimmed.to_string()
    }
}

/// Python: the function a bare `submit` means. Upstream's Python env needs `submit <name>`; a
/// model that writes plain `submit` (or a strategy that submits for it) gets the last function
/// it defined, which is what it is working on.
#[derive(Debug, Clone, Default)]
pub(super) struct Functions {
    last: Option<String>,
}

impl Functions {
    /// Remembers what `action` defines and fills in a bare Python submit.
    pub fn note(&mut self, env: EnvKind, action: Action) -> Action {
        if env != EnvKind::Python {
            return action;
        }
        match action {
            Action::Run(code) => {
                if let Some(name) = parse::defined_function(&code) {
                    self.last = Some(name);
                }
                Action::Run(code)
            }
            Action::Submit(None) => Action::Submit(self.last.clone()),
            other => other,
        }
    }

    /// The submit a strategy makes on the model's behalf.
    pub fn submit(&self, env: EnvKind) -> Action {
        match env {
            EnvKind::Python => Action::Submit(self.last.clone()),
            EnvKind::Bash | EnvKind::Sql => Action::Submit(None),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rewards_print_like_upstream() {
        assert_eq!(reward_text(Some(1.0)), "1.0");
        assert_eq!(reward_text(Some(0.0)), "0.0");
        assert_eq!(reward_text(Some(0.67)), "0.67");
        assert_eq!(reward_text(Some(0.01 + 0.33 + 0.33)), "0.67");
        assert_eq!(reward_text(Some(-0.5)), "-0.5");
        assert_eq!(reward_text(None), "n/a");
    }

    #[test]
    fn tables_list_one_per_line() {
        let tables = vec![
            (
                "singer".to_string(),
                vec!["id".to_string(), "name".to_string()],
            ),
            ("concert".to_string(), vec!["year".to_string()]),
        ];
        assert_eq!(tables_text(&tables), "- singer(id, name)\n- concert(year)");
        assert_eq!(tables_text(&[]), "(no tables)");
    }

    #[test]
    fn python_submit_names_the_last_function() {
        let mut f = Functions::default();
        let env = EnvKind::Python;
        assert_eq!(f.note(env, Action::Submit(None)), Action::Submit(None));
        f.note(
            env,
            Action::Run("def area(r):\n    return 3 * r * r".into()),
        );
        assert_eq!(
            f.note(env, Action::Submit(None)),
            Action::Submit(Some("area".into()))
        );
        assert_eq!(f.submit(env), Action::Submit(Some("area".into())));
        assert_eq!(f.submit(EnvKind::Bash), Action::Submit(None));
    }
}
