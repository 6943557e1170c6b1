//! The harness: what evaluates an agent or a model on the envs.
//!
//! * [`policy`] — what an agent sees and decides ([`policy::Policy`]); never the gold;
//! * [`agents`] — the agents that need no model: gold and replay;
//! * [`model`] — the chat-model interface; [`chat`] — the chat agent's strategies (single-turn,
//!   try-again, ReAct, plan-and-solve, tools) and their prompts; `openai` (feature `http`) —
//!   any OpenAI-compatible endpoint;
//! * [`runner`] — the one episode loop and the parallel runner; [`run_dir`] — a run on disk
//!   (manifest + one JSON line per episode), resume, shards and merge;
//! * [`metrics`], [`report`], [`export`] — numbers, a terminal table and an HTML report, and
//!   upstream's log format and ATIF, all computed from the records.

pub mod agents;
pub mod chat;
pub mod export;
pub mod guard;
pub mod metrics;
pub mod model;
#[cfg(feature = "http")]
pub mod openai;
pub mod policy;
pub mod report;
pub mod run_dir;
pub mod runner;
