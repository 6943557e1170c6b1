//! The only host-filesystem code in the crate.
//!
//! An episode's file tree lives in a fresh host directory ([`episode::EpisodeDir`]) written
//! from an in-memory [`image::TreeImage`] (a task tree overlaid on [`base_system`]). After the
//! episode, [`snapshot::Snapshot`] captures the tree without following symlinks and
//! [`status::git_status`] turns it into the `git status --short` text upstream's reward
//! parses; [`hash::md5sum_in_root`] answers the reward's `md5sum` comparisons.
//!
//! Everything here works through `cap_std::fs::Dir` handles below one root, so a path or a
//! symlink planted by a guest cannot make the host touch anything outside the episode.

pub mod base_system;
pub mod episode;
pub mod git_reset;
pub mod hash;
pub mod host;
pub mod image;
pub mod links;
pub mod reuse;
pub mod snapshot;
pub mod status;
pub mod usage;
pub mod walk;

pub use episode::EpisodeDir;
pub use image::TreeImage;
pub use snapshot::Snapshot;
