//! The chat-model interface the chat strategies talk to: OpenAI's chat-completions shapes,
//! reduced to what the strategies use. The HTTP implementation lives apart
//! ([`crate::harness::openai`], behind the `http` feature) so the core carries no HTTP client;
//! tests script a model with a real HTTP server on 127.0.0.1.

use crate::data::trajectory::Usage;
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    System,
    User,
    Assistant,
    Tool,
}

/// A function call the model asked for (`tools` strategy).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolCall {
    pub id: String,
    pub name: String,
    /// The arguments as the model wrote them (a JSON object in a string, per OpenAI).
    pub arguments: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ChatMessage {
    pub role: Role,
    pub content: String,
    /// Assistant messages: the tool calls it made.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tool_calls: Vec<ToolCall>,
    /// Tool messages: which call this answers.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_call_id: Option<String>,
}

impl ChatMessage {
    pub fn system(content: impl Into<String>) -> ChatMessage {
        ChatMessage::plain(Role::System, content)
    }
    pub fn user(content: impl Into<String>) -> ChatMessage {
        ChatMessage::plain(Role::User, content)
    }
    pub fn assistant(content: impl Into<String>) -> ChatMessage {
        ChatMessage::plain(Role::Assistant, content)
    }
    pub fn tool(call_id: impl Into<String>, content: impl Into<String>) -> ChatMessage {
        ChatMessage {
            role: Role::Tool,
            content: content.into(),
            tool_calls: Vec::new(),
            tool_call_id: Some(call_id.into()),
        }
    }
    fn plain(role: Role, content: impl Into<String>) -> ChatMessage {
        ChatMessage {
            role,
            content: content.into(),
            tool_calls: Vec::new(),
            tool_call_id: None,
        }
    }
}

/// A function the model may call: name, description and a JSON-schema for the arguments.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolSpec {
    pub name: String,
    pub description: String,
    pub parameters: serde_json::Value,
}

/// Sampling settings, the same for every request of a run (written into the run's manifest).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Sampling {
    pub temperature: f64,
    pub max_tokens: u32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seed: Option<u64>,
}

impl Default for Sampling {
    /// Upstream's: temperature 0, 512 tokens.
    fn default() -> Self {
        Sampling {
            temperature: 0.0,
            max_tokens: 512,
            seed: None,
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct ChatRequest {
    pub messages: Vec<ChatMessage>,
    pub tools: Vec<ToolSpec>,
    /// Stop sequences (ReAct stops before the next `Observation`).
    pub stop: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Default)]
pub struct ChatReply {
    pub content: String,
    pub tool_calls: Vec<ToolCall>,
    pub usage: Usage,
    pub finish_reason: Option<String>,
}

/// Why a request failed after the client's own retries. Both are harness failures.
#[derive(Debug, Clone, thiserror::Error)]
pub enum ModelError {
    #[error("endpoint: {0}")]
    Endpoint(String),
    #[error("malformed response: {0}")]
    Malformed(String),
}

/// A chat model. Implementations retry transient failures themselves and are shared by the
/// run's workers (hence `Sync`).
pub trait ChatModel: Send + Sync {
    fn complete(&self, request: &ChatRequest) -> Result<ChatReply, ModelError>;
    /// The model's name as the endpoint knows it (for records and prices).
    fn name(&self) -> &str;
}
