//! `react`: Thought / Action / Observation. Each reply is `Thought k: ...` then
//! `Action k: execute[<command>]` (or `submit`, `skip`); the call stops at `\nObservation` so the
//! model cannot invent the result, and the observation comes back as the next user message,
//! `Observation k: ...`. No reward is shown (upstream's ReAct showed none); at the turn limit the
//! runner submits.
//!
//! Upstream ran ReAct as one growing completion prompt; with a chat model the same transcript
//! is a dialogue: the demos in the system message, each Thought/Action an assistant message,
//! each Observation a user message.

use super::dialogue::{Context, Functions, Read, Shape};
use super::parse;
use crate::harness::model::ChatMessage;
use crate::harness::policy::{Decision, Observation, PolicyError, TaskView};

/// Where the model must stop writing.
pub(super) const STOP: &str = "\nObservation";

/// Extra calls when a reply has no `Action:` line.
pub(super) const RE_ASKS: usize = 2;

#[derive(Debug, Clone)]
pub(super) struct React {
    task: TaskView,
    dialogue: Vec<ChatMessage>,
    started: bool,
    functions: Functions,
}

impl React {
    pub fn start(ctx: &Context, task: &TaskView) -> Result<React, PolicyError> {
        Ok(React {
            task: task.clone(),
            dialogue: ctx.opening(task)?,
            started: false,
            functions: Functions::default(),
        })
    }

    pub fn act(&mut self, ctx: &Context, obs: &Observation) -> Result<Decision, PolicyError> {
        if self.started {
            let text = ctx.render("observation", &ctx.observation_vars(&self.task, obs))?;
            self.dialogue.push(ChatMessage::user(text));
        }
        self.started = true;
        let retry = ctx.render("retry", &ctx.turn_vars(&self.task, obs.turn))?;
        let stop = [STOP.to_string()];
        let shape = Shape {
            window: ctx.window,
            stop: &stop,
            tools: &[],
            re_asks: RE_ASKS,
        };
        let answer = ctx.converse(&mut self.dialogue, &shape, |reply| {
            // Only what precedes the stop sequence is the model's turn, whether or not the
            // endpoint honoured `stop`.
            let kept = parse::cut_at_stop(&reply.content, &stop).trim_end();
            let turn = parse::react_turn(kept, ctx.env);
            let read = match turn.action {
                Some(action) => Read::Act((action, turn.thought)),
                None => Read::Reask(vec![ChatMessage::user(retry.clone())]),
            };
            (ChatMessage::assistant(kept), read)
        })?;
        let (action, thought) = answer.value;
        Ok(Decision {
            action: self.functions.note(ctx.env, action),
            thought,
            response: Some(answer.reply.content),
            usage: answer.usage,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::super::StrategyKind;
    use super::super::testing::{Scripted, obs, started, text};
    use super::STOP;
    use crate::env::EnvKind;
    use crate::harness::model::Role;
    use crate::harness::policy::{Action, Policy, PolicyError};

    #[test]
    fn thought_action_observation() {
        let model = Scripted::new(vec![
            // An endpoint that ignored the stop sequence: the invented observation is dropped.
            text("Thought 1: see what is there\nAction 1: execute[ls -la]\nObservation 1: made up"),
            text("Thought 2: found it\nAction 2: submit"),
        ]);
        let mut p = started(&model, StrategyKind::React, EnvKind::Bash, "find the log");
        assert!(!p.wants_reward());
        let d = p.act(&obs(0, "", None)).unwrap();
        assert_eq!(d.action, Action::Run("ls -la".into()));
        assert_eq!(d.thought.as_deref(), Some("see what is there"));
        let long = "z".repeat(1000);
        let d = p.act(&obs(1, &long, Some(0.5))).unwrap();
        assert_eq!(d.action, Action::Submit(None));
        assert_eq!(d.thought.as_deref(), Some("found it"));

        let requests = model.requests();
        assert_eq!(requests[0].stop, [STOP]);
        let sent = &requests[1].messages;
        assert_eq!(sent[2].role, Role::Assistant);
        assert_eq!(
            sent[2].content,
            "Thought 1: see what is there\nAction 1: execute[ls -la]"
        );
        let observation = &sent[3].content;
        assert!(observation.starts_with("Observation 1:"), "{observation}");
        // ReAct's limit is 350 characters, and no reward is shown.
        assert!(observation.contains(&"z".repeat(350)) && !observation.contains(&"z".repeat(351)));
        assert!(!observation.contains("0.5"));
    }

    #[test]
    fn a_reply_without_an_action_is_re_asked() {
        let model = Scripted::new(vec![
            text("Thought 1: let me think"),
            text("Thought 1: ok\nAction 1: execute[SHOW TABLES]"),
        ]);
        let mut p = started(&model, StrategyKind::React, EnvKind::Sql, "q");
        let d = p.act(&obs(0, "", None)).unwrap();
        assert_eq!(d.action, Action::Run("SHOW TABLES".into()));
        assert_eq!(d.usage.requests, 2);

        let model = Scripted::new(vec![text("no"), text("no"), text("no")]);
        let mut p = started(&model, StrategyKind::React, EnvKind::Sql, "q");
        assert!(matches!(
            p.act(&obs(0, "", None)),
            Err(PolicyError::Malformed(_))
        ));
    }
}
