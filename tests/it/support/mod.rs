//! Helpers shared by the integration tests.

pub mod model_server;
