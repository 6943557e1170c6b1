//! Tasks and trajectories: upstream's task files, our embedded fixtures, and the JSON Lines
//! records of finished episodes.

pub mod download;
pub mod fixtures;
pub mod fs_build;
pub mod mbpp;
pub mod nl2bash;
pub mod spider;
pub mod task;
pub mod trajectory;
pub mod upstream_log;
