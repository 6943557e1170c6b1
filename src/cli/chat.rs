//! `--agent chat`: a chat model behind an OpenAI-compatible endpoint, prompted by a strategy.
//! One HTTP client (its in-flight cap shared) serves every worker; each worker gets its own
//! policy.

use super::ChatArgs;
use super::agent::BuiltAgent;
use anyhow::Context;
use intercode::env::EnvSpec;
use intercode::harness::agents::AgentFactory;
use intercode::harness::chat::{self, ChatPolicy, ChatSettings, PromptSource, StrategyKind};
use intercode::harness::model::{ChatModel, Sampling};
use intercode::harness::openai::{OpenAiClient, OpenAiSettings};
use intercode::harness::policy::{Policy, PolicyError};
use std::sync::Arc;
use std::time::Duration;

pub fn build(args: &ChatArgs, max_turns: usize, spec: &EnvSpec) -> anyhow::Result<BuiltAgent> {
    let base_url = args
        .base_url
        .clone()
        .context("--agent chat needs --base-url (an OpenAI-compatible endpoint)")?;
    let model = args
        .model
        .clone()
        .context("--agent chat needs --model (the model name the endpoint knows)")?;
    let sampling = Sampling {
        temperature: args.temperature,
        max_tokens: args.max_tokens,
        seed: args.seed,
    };
    let settings = OpenAiSettings {
        api_key_env: Some(args.api_key_env.clone()),
        sampling: sampling.clone(),
        request_timeout: Duration::from_secs(args.request_timeout.max(1)),
        retries: args.retries,
        max_concurrent: args.max_concurrent.max(1),
        ..OpenAiSettings::new(base_url, model.clone())
    };
    // A local server needs no key: an unset variable is fine, a set one is sent.
    let client = match OpenAiClient::new(settings.clone()) {
        Ok(c) => c,
        Err(_) if std::env::var_os(&args.api_key_env).is_none() => {
            OpenAiClient::new(OpenAiSettings {
                api_key_env: None,
                ..settings
            })?
        }
        Err(e) => return Err(e.into()),
    };
    let strategy: StrategyKind = args
        .strategy
        .parse()
        .map_err(|e: String| anyhow::anyhow!(e))?;
    let chat_settings = ChatSettings {
        strategy,
        sampling: sampling.clone(),
        max_turns,
        window: args.window,
        observation_limit: None,
        prompts: match &args.prompts {
            Some(dir) => PromptSource::Dir(dir.clone()),
            None => PromptSource::Builtin,
        },
        refine_turns: args.refine_turns,
        schema_hint: args.handicap,
    };
    let model_arc: Arc<dyn ChatModel> = Arc::new(client);
    let policy = chat::chat_policy(model_arc, &chat_settings, spec.env)
        .map_err(|e| anyhow::anyhow!("chat agent: {e}"))?;
    let context = serde_json::to_value(policy.describe())?;
    Ok(BuiltAgent {
        name: "chat".into(),
        model: Some(model),
        strategy: Some(strategy.name().to_string()),
        context,
        sampling: serde_json::to_value(&sampling)?,
        factory: Box::new(ChatAgent { policy }),
    })
}

/// Every worker gets a clone of the one policy built (templates loaded once).
struct ChatAgent {
    policy: ChatPolicy,
}

impl AgentFactory for ChatAgent {
    fn policy(&self) -> Result<Box<dyn Policy>, PolicyError> {
        Ok(Box::new(self.policy.clone()))
    }
}
