//! The `chat` agent: a [`Policy`] driven by a [`ChatModel`], in one of five strategies.
//!
//! | strategy | per turn | feedback | upstream |
//! |---|---|---|---|
//! | `single-turn` | one command, then submit | none | `eval_n_turn.py --max_turns 1` |
//! | `try-again` | one fenced command | output + reward | `eval_n_turn.py` (the paper's main setting) |
//! | `react` | `Thought` + `Action: execute[...]` | output | `eval_react.py` |
//! | `plan-solve` | a plan, then one command per step (+ refine turns) | last output | `eval_plan_solve.py` |
//! | `tools` | an `execute` / `submit` function call | output + reward | — |
//!
//! Pieces: [`prompts`] (templates: format, loading, hashes), [`parse`] (actions out of replies),
//! [`window`] (which messages and how much output the model sees), `dialogue` (the model call
//! and re-ask loop every strategy shares), and one module per strategy.
//!
//! [`chat_policy`] loads and checks the templates once; the policy is cheap to clone, so a runner
//! builds one and clones it per worker, calling [`Policy::reset`] per episode.
//! [`ChatPolicy::describe`] is what the run's manifest records: what the model was shown.

mod dialogue;
pub mod parse;
mod plan_solve;
pub mod prompts;
mod react;
mod single_turn;
#[cfg(test)]
mod testing;
mod tools;
mod try_again;
pub mod window;

use std::fmt;
use std::str::FromStr;
use std::sync::Arc;

use serde::{Deserialize, Serialize};

use self::dialogue::Context;
pub use self::prompts::{PromptSource, TemplateError, TemplateInfo};
pub use self::window::ObservationLimit;
use self::window::Window;
use crate::env::EnvKind;
use crate::harness::model::{ChatModel, Sampling};
use crate::harness::policy::{Decision, Observation, Policy, PolicyError, TaskView};

/// How the chat agent talks to the model.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum StrategyKind {
    SingleTurn,
    TryAgain,
    React,
    PlanSolve,
    Tools,
}

impl StrategyKind {
    pub const ALL: [StrategyKind; 5] = [
        StrategyKind::SingleTurn,
        StrategyKind::TryAgain,
        StrategyKind::React,
        StrategyKind::PlanSolve,
        StrategyKind::Tools,
    ];

    /// The name on the command line, in template paths and in the manifest.
    pub fn name(self) -> &'static str {
        match self {
            StrategyKind::SingleTurn => "single-turn",
            StrategyKind::TryAgain => "try-again",
            StrategyKind::React => "react",
            StrategyKind::PlanSolve => "plan-solve",
            StrategyKind::Tools => "tools",
        }
    }
}

impl fmt::Display for StrategyKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for StrategyKind {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        StrategyKind::ALL
            .into_iter()
            .find(|k| k.name() == s)
            .ok_or_else(|| {
                let names: Vec<&str> = StrategyKind::ALL.iter().map(|k| k.name()).collect();
                format!("unknown strategy {s:?} (one of: {})", names.join(", "))
            })
    }
}

/// The chat agent's settings for a run.
#[derive(Debug, Clone, PartialEq)]
pub struct ChatSettings {
    pub strategy: StrategyKind,
    /// Held by the HTTP client, not by requests; kept here so the manifest can show it.
    pub sampling: Sampling,
    /// The run's turn budget, shown to the model as `{{max_turns}}` / `{{turns_left}}` (the
    /// runner enforces it).
    pub max_turns: usize,
    /// K of "first 2 + last K messages"; `None` = the default of the strategy and env
    /// (upstream's: bash 7, SQL 5, Python 7; ReAct keeps everything, as its single growing
    /// prompt did).
    pub window: Option<usize>,
    /// `None` = upstream's: 1000 characters / 50 rows, ReAct 350 / 25.
    pub observation_limit: Option<ObservationLimit>,
    pub prompts: PromptSource,
    /// `plan-solve` only: try-again turns after the last step.
    pub refine_turns: usize,
    /// SQL only: list the database's tables and columns after the system prompt (upstream's
    /// "handicap").
    pub schema_hint: bool,
}

impl Default for ChatSettings {
    fn default() -> Self {
        ChatSettings {
            strategy: StrategyKind::TryAgain,
            sampling: Sampling::default(),
            max_turns: 10,
            window: None,
            observation_limit: None,
            prompts: PromptSource::Builtin,
            refine_turns: 0,
            schema_hint: false,
        }
    }
}

/// What the model was shown, for the run's manifest.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ContextPolicy {
    pub strategy: StrategyKind,
    /// `"bash"`, `"sql"`, `"python"`.
    pub env: String,
    /// The model's name as its endpoint knows it.
    pub model: String,
    /// Which messages each request carries, e.g. `"first 2 + last 7 messages"`.
    pub history: String,
    pub observation_limit: ObservationLimit,
    pub template: TemplateInfo,
    pub max_turns: usize,
    pub refine_turns: usize,
    pub schema_hint: bool,
    /// Extra model calls within a turn when a reply holds no action, before the episode fails.
    pub re_asks: usize,
    /// Stop sequences sent with every request.
    pub stop: Vec<String>,
    /// Functions offered to the model (`tools` strategy).
    pub tools: Vec<String>,
    pub sampling: Sampling,
}

/// The chat agent. Clones share the model and the loaded template.
#[derive(Clone)]
pub struct ChatPolicy {
    ctx: Arc<Context>,
    episode: Option<Episode>,
}

/// The running episode's state, by strategy.
#[derive(Debug, Clone)]
enum Episode {
    SingleTurn(single_turn::SingleTurn),
    TryAgain(try_again::TryAgain),
    React(react::React),
    PlanSolve(plan_solve::PlanSolve),
    Tools(tools::Tools),
}

/// Upstream's window for each strategy and env.
fn default_window(strategy: StrategyKind, env: EnvKind) -> Window {
    match (strategy, env) {
        (StrategyKind::React, _) => Window::ALL,
        (_, EnvKind::Sql) => Window::first_two_and_last(5),
        (_, EnvKind::Bash | EnvKind::Python) => Window::first_two_and_last(7),
    }
}

/// Builds the chat agent for `env`: checks the settings, loads and checks the template.
pub fn chat_policy(
    model: Arc<dyn ChatModel>,
    settings: &ChatSettings,
    env: EnvKind,
) -> Result<ChatPolicy, String> {
    let strategy = settings.strategy;
    if settings.max_turns == 0 {
        return Err("max_turns must be at least 1".to_string());
    }
    if settings.window == Some(0) {
        return Err("the dialogue window must keep at least 1 recent message".to_string());
    }
    let limit = settings.observation_limit.unwrap_or(match strategy {
        StrategyKind::React => ObservationLimit::REACT,
        _ => ObservationLimit::CHAT,
    });
    if limit.max_chars == 0 || limit.max_rows == 0 {
        return Err("observation limits must be at least 1 character and 1 row".to_string());
    }
    if settings.refine_turns > 0 && strategy != StrategyKind::PlanSolve {
        return Err(format!(
            "refine turns apply to plan-solve only, not {strategy}"
        ));
    }
    if settings.schema_hint && env != EnvKind::Sql {
        return Err(format!(
            "the schema hint is for SQL tasks, not {}",
            prompts::env_name(env)
        ));
    }
    let template = prompts::load(&settings.prompts, strategy, env).map_err(|e| e.to_string())?;
    if settings.schema_hint && !template.has("schema") {
        return Err(format!(
            "{}: the schema hint needs a `schema` section",
            template.info().source
        ));
    }
    let window = match settings.window {
        Some(k) => Window::first_two_and_last(k),
        None => default_window(strategy, env),
    };
    Ok(ChatPolicy {
        ctx: Arc::new(Context {
            model,
            env,
            strategy,
            template,
            window,
            limit,
            max_turns: settings.max_turns,
            refine_turns: settings.refine_turns,
            schema_hint: settings.schema_hint,
            sampling: settings.sampling.clone(),
        }),
        episode: None,
    })
}

impl ChatPolicy {
    pub fn strategy(&self) -> StrategyKind {
        self.ctx.strategy
    }

    /// What the model is shown, for the manifest.
    pub fn describe(&self) -> ContextPolicy {
        let ctx = &self.ctx;
        let window = ctx.window.describe();
        let (history, re_asks, stop, tools) = match ctx.strategy {
            StrategyKind::SingleTurn => (
                format!("{window}; one action"),
                single_turn::RE_ASKS,
                Vec::new(),
                Vec::new(),
            ),
            StrategyKind::TryAgain => (window, try_again::RE_ASKS, Vec::new(), Vec::new()),
            StrategyKind::React => (
                window,
                react::RE_ASKS,
                vec![react::STOP.to_string()],
                Vec::new(),
            ),
            StrategyKind::PlanSolve => (
                format!(
                    "plan: system + plan request; each step: system + one step message \
                     (plan, step, last observation); refine turns: {window}"
                ),
                plan_solve::RE_ASKS,
                Vec::new(),
                Vec::new(),
            ),
            StrategyKind::Tools => (
                window,
                tools::RE_ASKS,
                Vec::new(),
                tools::tool_specs(ctx.env)
                    .into_iter()
                    .map(|t| t.name)
                    .collect(),
            ),
        };
        ContextPolicy {
            strategy: ctx.strategy,
            env: prompts::env_name(ctx.env).to_string(),
            model: ctx.model.name().to_string(),
            history,
            observation_limit: ctx.limit,
            template: ctx.template.info().clone(),
            max_turns: ctx.max_turns,
            refine_turns: ctx.refine_turns,
            schema_hint: ctx.schema_hint,
            re_asks,
            stop,
            tools,
            sampling: ctx.sampling.clone(),
        }
    }
}

impl Policy for ChatPolicy {
    fn reset(&mut self, task: &TaskView) -> Result<(), PolicyError> {
        let ctx = &self.ctx;
        if task.env != ctx.env {
            return Err(PolicyError::Other(format!(
                "this chat policy was built for {} tasks, not {:?}",
                prompts::env_name(ctx.env),
                task.env
            )));
        }
        self.episode = Some(match ctx.strategy {
            StrategyKind::SingleTurn => {
                Episode::SingleTurn(single_turn::SingleTurn::start(ctx, task)?)
            }
            StrategyKind::TryAgain => Episode::TryAgain(try_again::TryAgain::start(ctx, task)?),
            StrategyKind::React => Episode::React(react::React::start(ctx, task)?),
            StrategyKind::PlanSolve => Episode::PlanSolve(plan_solve::PlanSolve::start(ctx, task)?),
            StrategyKind::Tools => Episode::Tools(tools::Tools::start(ctx, task)?),
        });
        Ok(())
    }

    fn act(&mut self, observation: &Observation) -> Result<Decision, PolicyError> {
        let ctx = &self.ctx;
        match self.episode.as_mut() {
            None => Err(PolicyError::Other("act called before reset".to_string())),
            Some(Episode::SingleTurn(s)) => s.act(ctx, observation),
            Some(Episode::TryAgain(s)) => s.act(ctx, observation),
            Some(Episode::React(s)) => s.act(ctx, observation),
            Some(Episode::PlanSolve(s)) => s.act(ctx, observation),
            Some(Episode::Tools(s)) => s.act(ctx, observation),
        }
    }

    /// Try-again and tools show the reward; plan-solve shows it in its refine turns.
    fn wants_reward(&self) -> bool {
        match self.ctx.strategy {
            StrategyKind::TryAgain | StrategyKind::Tools => true,
            StrategyKind::PlanSolve => self.ctx.refine_turns > 0,
            StrategyKind::SingleTurn | StrategyKind::React => false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::testing::{Scripted, obs, started_with, task, text};
    use super::*;

    #[test]
    fn strategy_names_round_trip() {
        for k in StrategyKind::ALL {
            assert_eq!(k.name().parse::<StrategyKind>().unwrap(), k);
            assert_eq!(serde_json::to_value(k).unwrap(), k.name());
        }
        assert!(
            "tryagain"
                .parse::<StrategyKind>()
                .unwrap_err()
                .contains("try-again")
        );
    }

    #[test]
    fn describe_is_the_manifest_entry() {
        let model = Scripted::new(vec![]);
        let settings = ChatSettings {
            strategy: StrategyKind::React,
            ..ChatSettings::default()
        };
        let p = chat_policy(model, &settings, EnvKind::Bash).unwrap();
        let d = p.describe();
        assert_eq!(d.history, "all messages");
        assert_eq!(d.observation_limit, ObservationLimit::REACT);
        assert_eq!(d.template.source, "builtin:react/bash.md");
        assert_eq!(d.stop, ["\nObservation"]);
        let json = serde_json::to_value(&d).unwrap();
        assert_eq!(json["strategy"], "react");
        assert_eq!(json["model"], "scripted");
        assert_eq!(json["template"]["hash"].as_str().unwrap().len(), 16);
        assert_eq!(serde_json::from_value::<ContextPolicy>(json).unwrap(), d);
    }

    #[test]
    fn settings_are_checked() {
        let model: Arc<dyn ChatModel> = Scripted::new(vec![]);
        let bad = |s: ChatSettings, env| chat_policy(model.clone(), &s, env).err().unwrap();
        let base = ChatSettings::default();
        assert!(
            bad(
                ChatSettings {
                    max_turns: 0,
                    ..base.clone()
                },
                EnvKind::Bash
            )
            .contains("max_turns")
        );
        assert!(
            bad(
                ChatSettings {
                    schema_hint: true,
                    ..base.clone()
                },
                EnvKind::Bash
            )
            .contains("SQL")
        );
        assert!(
            bad(
                ChatSettings {
                    refine_turns: 1,
                    ..base.clone()
                },
                EnvKind::Sql
            )
            .contains("plan-solve")
        );
        assert!(
            bad(
                ChatSettings {
                    window: Some(0),
                    ..base.clone()
                },
                EnvKind::Sql
            )
            .contains("window")
        );
    }

    #[test]
    fn the_schema_hint_lists_tables_in_the_system_message() {
        let model = Scripted::new(vec![text("```sql\nSELECT 1\n```")]);
        let settings = ChatSettings {
            schema_hint: true,
            ..ChatSettings::default()
        };
        let mut p = chat_policy(model.clone(), &settings, EnvKind::Sql).unwrap();
        let mut t = task(EnvKind::Sql, "how many?");
        t.tables = vec![("singer".into(), vec!["id".into(), "name".into()])];
        p.reset(&t).unwrap();
        p.act(&obs(0, "", None)).unwrap();
        let system = &model.requests()[0].messages[0].content;
        assert!(system.contains("- singer(id, name)"), "{system}");
        assert_eq!(model.requests()[0].messages.len(), 2);
    }

    #[test]
    fn reset_starts_over_and_checks_the_env() {
        let model = Scripted::new(vec![text("```\nls\n```"), text("```\npwd\n```")]);
        let mut p = started_with(&model, &ChatSettings::default(), EnvKind::Bash, "first");
        p.act(&obs(0, "", None)).unwrap();
        p.reset(&task(EnvKind::Bash, "second")).unwrap();
        p.act(&obs(0, "", None)).unwrap();
        let again = &model.requests()[1].messages;
        assert_eq!(again.len(), 2);
        assert!(again[1].content.contains("second"));
        assert!(p.reset(&task(EnvKind::Sql, "x")).is_err());
        let fresh = chat_policy(model, &ChatSettings::default(), EnvKind::Bash).unwrap();
        assert!(fresh.clone().act(&obs(0, "", None)).is_err());
    }
}
