//! Upstream InterCode's scoring, reproduced exactly and checked against upstream's own logs.

pub mod bash;
pub mod python;
pub mod sql;
pub mod tfidf;
