//! Test support: a chat model that plays back scripted replies and records every request, plus
//! task and observation builders.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};

use serde_json::Map;

use super::{ChatPolicy, ChatSettings, StrategyKind, chat_policy};
use crate::data::trajectory::Usage;
use crate::env::EnvKind;
use crate::harness::model::{ChatModel, ChatReply, ChatRequest, ModelError, ToolCall};
use crate::harness::policy::{Observation, Policy, TaskView};

pub(super) struct Scripted {
    replies: Mutex<VecDeque<Result<ChatReply, ModelError>>>,
    requests: Mutex<Vec<ChatRequest>>,
}

/// Every scripted call costs this much, so sums are easy to check.
pub(super) const CALL: Usage = Usage {
    prompt_tokens: 10,
    completion_tokens: 5,
    requests: 1,
};

impl Scripted {
    pub fn new(replies: Vec<ChatReply>) -> Arc<Scripted> {
        Self::with_results(replies.into_iter().map(Ok).collect())
    }

    pub fn with_results(replies: Vec<Result<ChatReply, ModelError>>) -> Arc<Scripted> {
        Arc::new(Scripted {
            replies: Mutex::new(replies.into()),
            requests: Mutex::new(Vec::new()),
        })
    }

    pub fn requests(&self) -> Vec<ChatRequest> {
        self.requests.lock().unwrap().clone()
    }
}

impl ChatModel for Scripted {
    fn complete(&self, request: &ChatRequest) -> Result<ChatReply, ModelError> {
        self.requests.lock().unwrap().push(request.clone());
        self.replies
            .lock()
            .unwrap()
            .pop_front()
            .unwrap_or_else(|| Err(ModelError::Endpoint("the script ran out".into())))
    }

    fn name(&self) -> &str {
        "scripted"
    }
}

pub(super) fn text(content: &str) -> ChatReply {
    ChatReply {
        content: content.to_string(),
        tool_calls: Vec::new(),
        usage: CALL,
        finish_reason: Some("stop".into()),
    }
}

pub(super) fn calls(content: &str, calls: &[(&str, &str, &str)]) -> ChatReply {
    ChatReply {
        tool_calls: calls
            .iter()
            .map(|(id, name, arguments)| ToolCall {
                id: id.to_string(),
                name: name.to_string(),
                arguments: arguments.to_string(),
            })
            .collect(),
        finish_reason: Some("tool_calls".into()),
        ..text(content)
    }
}

pub(super) fn task(env: EnvKind, query: &str) -> TaskView {
    TaskView {
        env,
        index: 0,
        query: query.to_string(),
        tables: Vec::new(),
    }
}

pub(super) fn obs(turn: usize, text: &str, reward: Option<f64>) -> Observation {
    Observation {
        turn,
        text: text.to_string(),
        reward,
        done: false,
        action_executed: true,
        exit_status: Some(0),
        info: Map::new(),
    }
}

/// A policy of `strategy` on `env` over `model`, reset on a task with `query`.
pub(super) fn started(
    model: &Arc<Scripted>,
    strategy: StrategyKind,
    env: EnvKind,
    query: &str,
) -> ChatPolicy {
    let settings = ChatSettings {
        strategy,
        ..ChatSettings::default()
    };
    started_with(model, &settings, env, query)
}

pub(super) fn started_with(
    model: &Arc<Scripted>,
    settings: &ChatSettings,
    env: EnvKind,
    query: &str,
) -> ChatPolicy {
    let mut policy = chat_policy(model.clone(), settings, env).unwrap();
    policy.reset(&task(env, query)).unwrap();
    policy
}
