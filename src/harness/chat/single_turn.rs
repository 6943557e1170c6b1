//! `single-turn`: one answer, no feedback. The model sees the task once and gives one command;
//! when the runner comes back after running it, the policy submits.

use super::dialogue::{CODE_RE_ASKS, Context, Functions};
use crate::harness::model::ChatMessage;
use crate::harness::policy::{Decision, Observation, PolicyError, TaskView};

/// Extra calls when a reply has no code block.
pub(super) const RE_ASKS: usize = CODE_RE_ASKS;

#[derive(Debug, Clone)]
pub(super) struct SingleTurn {
    task: TaskView,
    dialogue: Vec<ChatMessage>,
    acted: bool,
    functions: Functions,
}

impl SingleTurn {
    pub fn start(ctx: &Context, task: &TaskView) -> Result<SingleTurn, PolicyError> {
        Ok(SingleTurn {
            task: task.clone(),
            dialogue: ctx.opening(task)?,
            acted: false,
            functions: Functions::default(),
        })
    }

    pub fn act(&mut self, ctx: &Context, _obs: &Observation) -> Result<Decision, PolicyError> {
        if self.acted {
            return Ok(Decision::new(self.functions.submit(ctx.env)));
        }
        let decision = ctx.ask_for_code(
            &self.task,
            &mut self.functions,
            &mut self.dialogue,
            ctx.window,
            0,
        )?;
        self.acted = true;
        Ok(decision)
    }
}

#[cfg(test)]
mod tests {
    use super::super::StrategyKind;
    use super::super::testing::{CALL, Scripted, obs, started, text};
    use crate::env::EnvKind;
    use crate::harness::model::Role;
    use crate::harness::policy::{Action, Policy};

    #[test]
    fn one_action_then_submit() {
        let model = Scripted::new(vec![text("```bash\nls /data\n```")]);
        let mut p = started(
            &model,
            StrategyKind::SingleTurn,
            EnvKind::Bash,
            "list /data",
        );
        assert!(!p.wants_reward());
        let d = p.act(&obs(0, "", None)).unwrap();
        assert_eq!(d.action, Action::Run("ls /data".into()));
        assert_eq!(d.usage, CALL);
        assert_eq!(d.response.as_deref(), Some("```bash\nls /data\n```"));
        let d = p.act(&obs(1, "a b", None)).unwrap();
        assert_eq!(d.action, Action::Submit(None));
        assert_eq!(model.requests().len(), 1);
        let first = &model.requests()[0];
        assert_eq!(first.messages.len(), 2);
        assert_eq!(first.messages[0].role, Role::System);
        assert!(first.messages[1].content.contains("list /data"));
    }

    #[test]
    fn python_submits_the_function_it_wrote() {
        let model = Scripted::new(vec![text(
            "```python\ndef double(x):\n    return 2 * x\n```",
        )]);
        let mut p = started(
            &model,
            StrategyKind::SingleTurn,
            EnvKind::Python,
            "double it",
        );
        p.act(&obs(0, "", None)).unwrap();
        let d = p.act(&obs(1, "", None)).unwrap();
        assert_eq!(d.action, Action::Submit(Some("double".into())));
    }
}
