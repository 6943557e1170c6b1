//! `try-again`, upstream's main setting: system and task messages, then after every action a
//! user message with the (cut) observation and the reward, until the model submits, reaches
//! reward 1 (the runner stops it) or runs out of turns.
//!
//! A reply without a code block is re-asked with the template's `retry` message, up to twice,
//! within the same turn. Upstream instead spent a turn on it (reward 0, the retry text as the
//! observation); here a turn is always an action, and a model that never writes code ends the
//! episode as `Malformed`, a harness-side failure the report shows apart.

use super::dialogue::{CODE_RE_ASKS, Context, Functions};
use crate::harness::model::ChatMessage;
use crate::harness::policy::{Decision, Observation, PolicyError, TaskView};

/// Extra calls when a reply has no code block.
pub(super) const RE_ASKS: usize = CODE_RE_ASKS;

#[derive(Debug, Clone)]
pub(super) struct TryAgain {
    task: TaskView,
    dialogue: Vec<ChatMessage>,
    started: bool,
    functions: Functions,
}

impl TryAgain {
    pub fn start(ctx: &Context, task: &TaskView) -> Result<TryAgain, PolicyError> {
        Ok(TryAgain {
            task: task.clone(),
            dialogue: ctx.opening(task)?,
            started: false,
            functions: Functions::default(),
        })
    }

    pub fn act(&mut self, ctx: &Context, obs: &Observation) -> Result<Decision, PolicyError> {
        // The first call follows the reset, whose observation is not the result of an action.
        if self.started {
            let text = ctx.render("observation", &ctx.observation_vars(&self.task, obs))?;
            self.dialogue.push(ChatMessage::user(text));
        }
        self.started = true;
        ctx.ask_for_code(
            &self.task,
            &mut self.functions,
            &mut self.dialogue,
            ctx.window,
            obs.turn,
        )
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::{CALL, Scripted, obs, started, started_with, text};
    use super::super::{ChatSettings, StrategyKind};
    use crate::data::trajectory::Usage;
    use crate::env::EnvKind;
    use crate::harness::model::Role;
    use crate::harness::policy::{Action, Policy, PolicyError};

    #[test]
    fn shows_the_cut_observation_and_the_reward() {
        let model = Scripted::new(vec![
            text("```bash\ncat big.log\n```"),
            text("Better:\n```bash\nwc -l big.log\n```"),
        ]);
        let mut p = started(&model, StrategyKind::TryAgain, EnvKind::Bash, "count lines");
        assert!(p.wants_reward() && p.stops_on_success());
        assert_eq!(
            p.act(&obs(0, "", None)).unwrap().action,
            Action::Run("cat big.log".into())
        );
        let big = "y".repeat(5000);
        let d = p.act(&obs(1, &big, Some(0.34))).unwrap();
        assert_eq!(d.action, Action::Run("wc -l big.log".into()));
        let sent = &model.requests()[1].messages;
        assert_eq!(sent.len(), 4);
        let feedback = &sent[3];
        assert_eq!(feedback.role, Role::User);
        assert!(feedback.content.contains("0.34"), "{}", feedback.content);
        assert!(feedback.content.contains(&"y".repeat(1000)));
        assert!(!feedback.content.contains(&"y".repeat(1001)));
        assert!(feedback.content.contains("5000 characters"));
    }

    #[test]
    fn the_window_keeps_the_first_two_and_the_last_k() {
        let replies = (0..6)
            .map(|i| text(&format!("```sql\nSELECT {i}\n```")))
            .collect();
        let model = Scripted::new(replies);
        let settings = ChatSettings {
            strategy: StrategyKind::TryAgain,
            window: Some(3),
            ..ChatSettings::default()
        };
        let mut p = started_with(&model, &settings, EnvKind::Sql, "how many singers?");
        for turn in 0..6 {
            p.act(&obs(turn, &format!("[({turn},)]"), Some(0.0)))
                .unwrap();
        }
        let last = &model.requests()[5].messages;
        // Full dialogue: system, task, then (assistant, user) per action: 2 + 2 * 5 = 12.
        assert_eq!(last.len(), 2 + 3);
        assert_eq!(last[0].role, Role::System);
        assert!(last[1].content.contains("how many singers?"));
        let tail: Vec<&str> = last[2..].iter().map(|m| m.content.as_str()).collect();
        assert!(tail[0].contains("[(4,)]"), "{tail:?}");
        assert_eq!(tail[1], "```sql\nSELECT 4\n```");
        assert!(tail[2].contains("[(5,)]"), "{tail:?}");
    }

    #[test]
    fn default_windows_follow_upstream() {
        for (env, k) in [(EnvKind::Bash, 7), (EnvKind::Sql, 5), (EnvKind::Python, 7)] {
            let model = Scripted::new(vec![]);
            let p = started(&model, StrategyKind::TryAgain, env, "q");
            assert_eq!(p.describe().history, format!("first 2 + last {k} messages"));
        }
    }

    #[test]
    fn prose_is_re_asked_then_malformed() {
        let model = Scripted::new(vec![
            text("I think ls would work."),
            text("Still just talking."),
            text("ls"),
        ]);
        let mut p = started(&model, StrategyKind::TryAgain, EnvKind::Bash, "list");
        let err = p.act(&obs(0, "", None)).unwrap_err();
        assert!(matches!(err, PolicyError::Malformed(_)), "{err}");
        let requests = model.requests();
        assert_eq!(requests.len(), 3);
        let retry = requests[1].messages.last().unwrap();
        assert_eq!(retry.role, Role::User);
        assert!(retry.content.contains("```bash"), "{}", retry.content);
    }

    #[test]
    fn a_re_ask_that_works_sums_the_usage() {
        let model = Scripted::new(vec![text("hmm"), text("```\npwd\n```")]);
        let mut p = started(&model, StrategyKind::TryAgain, EnvKind::Bash, "where am I");
        let d = p.act(&obs(0, "", None)).unwrap();
        assert_eq!(d.action, Action::Run("pwd".into()));
        let mut two = Usage::default();
        two.add(CALL);
        two.add(CALL);
        assert_eq!(d.usage, two);
    }

    #[test]
    fn endpoint_errors_pass_through() {
        let model = Scripted::new(vec![]);
        let mut p = started(&model, StrategyKind::TryAgain, EnvKind::Bash, "q");
        assert!(matches!(
            p.act(&obs(0, "", None)),
            Err(PolicyError::Endpoint(_))
        ));
    }
}
