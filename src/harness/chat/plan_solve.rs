//! `plan-solve`: the model first writes a numbered plan; then each step becomes one command, one
//! model call per step; then, with `refine_turns`, a few try-again turns; then the policy
//! submits.
//!
//! Each step call is a fresh two-message exchange (system; the task, the whole plan, the step
//! and the last observation), so steps never crowd each other out of the context. Upstream's
//! bash runs lost every fs_1 task because commands kept their ```` ``` ```` fences; here steps
//! are read with the same fence parser as every other strategy.

use super::dialogue::{CODE_RE_ASKS, Context, Functions, Read, Shape, assistant_message};
use super::parse;
use super::window::Window;
use crate::data::trajectory::Usage;
use crate::harness::model::ChatMessage;
use crate::harness::policy::{Decision, Observation, PolicyError, TaskView};

/// Extra calls when the plan has no numbered steps or a step reply has no code block.
pub(super) const RE_ASKS: usize = CODE_RE_ASKS;

#[derive(Debug, Clone)]
pub(super) struct PlanSolve {
    task: TaskView,
    plan: Vec<String>,
    next_step: usize,
    refine: Vec<ChatMessage>,
    refined: usize,
    /// The last action's observation as shown, and its reward.
    last: Option<(String, Option<f64>)>,
    functions: Functions,
}

impl PlanSolve {
    pub fn start(_ctx: &Context, task: &TaskView) -> Result<PlanSolve, PolicyError> {
        Ok(PlanSolve {
            task: task.clone(),
            plan: Vec::new(),
            next_step: 0,
            refine: Vec::new(),
            refined: 0,
            last: None,
            functions: Functions::default(),
        })
    }

    pub fn act(&mut self, ctx: &Context, obs: &Observation) -> Result<Decision, PolicyError> {
        let mut usage = Usage::default();
        let mut plan_note = None;
        if self.plan.is_empty() {
            self.plan = self.make_plan(ctx, &mut usage)?;
            plan_note = Some(format!("Plan:\n{}", numbered(&self.plan)));
        } else {
            self.last = Some((ctx.shown(&obs.text), obs.reward));
        }
        if self.next_step < self.plan.len() {
            let mut decision = self.step(ctx, obs)?;
            usage.add(decision.usage);
            decision.usage = usage;
            if let (Some(plan), Some(step)) = (plan_note, decision.thought.as_mut()) {
                *step = format!("{plan}\n{step}");
            }
            return Ok(decision);
        }
        if self.refined < ctx.refine_turns {
            return self.refine(ctx, obs);
        }
        Ok(Decision::new(self.functions.submit(ctx.env)))
    }

    fn make_plan(&self, ctx: &Context, usage: &mut Usage) -> Result<Vec<String>, PolicyError> {
        let vars = ctx.base_vars(&self.task);
        let mut dialogue = vec![
            ctx.system_message(&self.task)?,
            ChatMessage::user(ctx.render("plan", &vars)?),
        ];
        let retry = ctx.render("plan_retry", &ctx.turn_vars(&self.task, 0))?;
        let shape = Shape {
            window: Window::ALL,
            stop: &[],
            tools: &[],
            re_asks: RE_ASKS,
        };
        let answer = ctx.converse(&mut dialogue, &shape, |reply| {
            let steps = parse::plan_steps(&reply.content);
            let read = if steps.is_empty() {
                Read::Reask(vec![ChatMessage::user(retry.clone())])
            } else {
                Read::Act(steps)
            };
            (assistant_message(reply), read)
        })?;
        usage.add(answer.usage);
        Ok(answer.value)
    }

    fn step(&mut self, ctx: &Context, obs: &Observation) -> Result<Decision, PolicyError> {
        let index = self.next_step;
        let mut vars = ctx.turn_vars(&self.task, obs.turn);
        vars.set("plan", numbered(&self.plan))
            .set("step", (index + 1).to_string())
            .set("steps", self.plan.len().to_string())
            .set("plan_step", self.plan[index].as_str())
            .set("observation", self.last_observation());
        let mut dialogue = vec![
            ctx.system_message(&self.task)?,
            ChatMessage::user(ctx.render("step", &vars)?),
        ];
        let answer = ctx.ask_for_code(
            &self.task,
            &mut self.functions,
            &mut dialogue,
            Window::ALL,
            obs.turn,
        )?;
        self.next_step += 1;
        Ok(Decision {
            thought: Some(format!(
                "Step {}/{}: {}",
                index + 1,
                self.plan.len(),
                self.plan[index]
            )),
            ..answer
        })
    }

    fn refine(&mut self, ctx: &Context, obs: &Observation) -> Result<Decision, PolicyError> {
        if self.refined == 0 {
            let mut vars = ctx.observation_vars(&self.task, obs);
            vars.set("plan", numbered(&self.plan));
            self.refine = vec![
                ctx.system_message(&self.task)?,
                ChatMessage::user(ctx.render("refine", &vars)?),
            ];
        } else {
            let text = ctx.render("observation", &ctx.observation_vars(&self.task, obs))?;
            self.refine.push(ChatMessage::user(text));
        }
        self.refined += 1;
        let mut dialogue = std::mem::take(&mut self.refine);
        let answer = ctx.ask_for_code(
            &self.task,
            &mut self.functions,
            &mut dialogue,
            ctx.window,
            obs.turn,
        );
        self.refine = dialogue;
        Ok(Decision {
            thought: Some(format!("Refine turn {}/{}", self.refined, ctx.refine_turns)),
            ..answer?
        })
    }

    fn last_observation(&self) -> String {
        match &self.last {
            Some((text, _)) => text.clone(),
            None => "(nothing has run yet)".to_string(),
        }
    }
}

/// `{{plan}}`: the steps as a numbered list.
fn numbered(plan: &[String]) -> String {
    plan.iter()
        .enumerate()
        .map(|(i, step)| format!("{}. {step}", i + 1))
        .collect::<Vec<_>>()
        .join("\n")
}

#[cfg(test)]
mod tests {
    use super::super::testing::{Scripted, obs, started, started_with, text};
    use super::super::{ChatSettings, StrategyKind};
    use crate::env::EnvKind;
    use crate::harness::policy::{Action, Policy, PolicyError};

    #[test]
    fn one_call_per_step_then_submit() {
        let model = Scripted::new(vec![
            text("Plan:\n1. Find the log files\n2. Count their lines\n3. Print the total"),
            text("```bash\nfind / -name '*.log'\n```"),
            text("```bash\nwc -l /var/a.log\n```"),
            text("```bash\ncat /var/a.log | wc -l\n```"),
        ]);
        let mut p = started(
            &model,
            StrategyKind::PlanSolve,
            EnvKind::Bash,
            "count log lines",
        );
        assert!(!p.wants_reward());
        let d = p.act(&obs(0, "", None)).unwrap();
        assert_eq!(d.action, Action::Run("find / -name '*.log'".into()));
        assert_eq!(d.usage.requests, 2, "plan + step 1");
        let thought = d.thought.unwrap();
        assert!(
            thought.starts_with("Plan:\n1. Find the log files"),
            "{thought}"
        );
        assert!(
            thought.ends_with("Step 1/3: Find the log files"),
            "{thought}"
        );
        let d = p.act(&obs(1, "/var/a.log", None)).unwrap();
        assert_eq!(d.action, Action::Run("wc -l /var/a.log".into()));
        assert_eq!(d.thought.as_deref(), Some("Step 2/3: Count their lines"));
        assert_eq!(d.usage.requests, 1);
        let d = p.act(&obs(2, "12 /var/a.log", None)).unwrap();
        assert_eq!(d.action, Action::Run("cat /var/a.log | wc -l".into()));
        assert_eq!(
            p.act(&obs(3, "12", None)).unwrap().action,
            Action::Submit(None)
        );

        let requests = model.requests();
        assert_eq!(requests.len(), 4);
        // Each step call is system + one step message carrying the plan, the step and the
        // last observation.
        let step2 = &requests[2].messages;
        assert_eq!(step2.len(), 2);
        assert!(step2[1].content.contains("Count their lines"));
        assert!(step2[1].content.contains("3. Print the total"));
        assert!(step2[1].content.contains("/var/a.log"));
    }

    #[test]
    fn refine_turns_follow_the_steps() {
        let model = Scripted::new(vec![
            text("1. Show the tables"),
            text("```sql\nSHOW TABLES\n```"),
            text("```sql\nSELECT count(*) FROM singer\n```"),
            text("```sql\nSELECT count(*) FROM singer WHERE age > 20\n```"),
        ]);
        let settings = ChatSettings {
            strategy: StrategyKind::PlanSolve,
            refine_turns: 2,
            ..ChatSettings::default()
        };
        let mut p = started_with(&model, &settings, EnvKind::Sql, "how many singers over 20?");
        assert!(p.wants_reward());
        p.act(&obs(0, "", None)).unwrap();
        let d = p.act(&obs(1, "[('singer',)]", Some(0.0))).unwrap();
        assert_eq!(d.action, Action::Run("SELECT count(*) FROM singer".into()));
        let d = p.act(&obs(2, "[(6,)]", Some(0.0))).unwrap();
        assert_eq!(
            d.action,
            Action::Run("SELECT count(*) FROM singer WHERE age > 20".into())
        );
        assert_eq!(d.thought.as_deref(), Some("Refine turn 2/2"));
        assert_eq!(
            p.act(&obs(3, "[(4,)]", Some(1.0))).unwrap().action,
            Action::Submit(None)
        );
        let requests = model.requests();
        let refine1 = &requests[2].messages;
        assert_eq!(refine1.len(), 2);
        assert!(refine1[1].content.contains("[('singer',)]"));
        let refine2 = &requests[3].messages;
        assert_eq!(refine2.len(), 4);
        assert!(refine2[3].content.contains("[(6,)]"));
    }

    #[test]
    fn no_plan_is_re_asked_then_malformed() {
        let model = Scripted::new(vec![text("Sure!"), text("I will do it."), text("Done.")]);
        let mut p = started(&model, StrategyKind::PlanSolve, EnvKind::Bash, "q");
        assert!(matches!(
            p.act(&obs(0, "", None)),
            Err(PolicyError::Malformed(_))
        ));
        assert_eq!(model.requests().len(), 3);
    }
}
