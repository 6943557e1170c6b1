//! What replaying an upstream log turn by turn found, shared by the envs' replays
//! ([`super::sql::replay`], [`super::bash::replay`]): the turns whose reward differed, grouped by
//! cause with a few examples each.

use serde::Serialize;
use std::collections::BTreeMap;

/// Examples kept per cause.
const MAX_EXAMPLES: usize = 3;
/// Characters of an action or observation kept in an example.
const CLIP_CHARS: usize = 300;

/// One turn whose reward we did not reproduce.
#[derive(Debug, Clone, Serialize)]
pub struct ReplayMismatch {
    pub task: usize,
    pub turn: usize,
    pub action: String,
    pub logged_reward: f64,
    pub reward: f64,
    pub logged_observation: String,
    pub observation: String,
}

impl ReplayMismatch {
    /// A mismatch with its texts whole.
    pub fn new(
        task: usize,
        turn: usize,
        action: &str,
        (logged_reward, reward): (f64, f64),
        (logged_observation, observation): (&str, &str),
    ) -> ReplayMismatch {
        ReplayMismatch {
            task,
            turn,
            action: action.to_string(),
            logged_reward,
            reward,
            logged_observation: logged_observation.to_string(),
            observation: observation.to_string(),
        }
    }

    /// The same mismatch with its texts clipped for a report.
    pub fn clip(&self) -> ReplayMismatch {
        ReplayMismatch {
            action: clip(&self.action),
            logged_observation: clip(&self.logged_observation),
            observation: clip(&self.observation),
            ..self.clone()
        }
    }

    /// A mismatch with its texts clipped for a report.
    pub fn clipped(
        task: usize,
        turn: usize,
        action: &str,
        rewards: (f64, f64),
        observations: (&str, &str),
    ) -> ReplayMismatch {
        ReplayMismatch::new(task, turn, action, rewards, observations).clip()
    }
}

/// How often a cause occurred, with a few examples.
#[derive(Debug, Clone, Default, Serialize)]
pub struct CauseStats {
    pub count: usize,
    pub examples: Vec<ReplayMismatch>,
}

/// Mismatches by cause.
pub type Causes = BTreeMap<String, CauseStats>;

/// Counts one mismatch under `cause`, keeping it as an example while there is room.
pub fn record(causes: &mut Causes, cause: String, mismatch: ReplayMismatch) {
    let entry = causes.entry(cause).or_default();
    entry.count += 1;
    if entry.examples.len() < MAX_EXAMPLES {
        entry.examples.push(mismatch);
    }
}

/// Adds `other`'s counts and examples to `into`.
pub fn merge(into: &mut Causes, other: Causes) {
    for (cause, stats) in other {
        let entry = into.entry(cause).or_default();
        entry.count += stats.count;
        for ex in stats.examples {
            if entry.examples.len() < MAX_EXAMPLES {
                entry.examples.push(ex);
            }
        }
    }
}

fn clip(s: &str) -> String {
    if s.chars().count() > CLIP_CHARS {
        let mut c: String = s.chars().take(CLIP_CHARS).collect();
        c.push('…');
        c
    } else {
        s.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn examples_are_capped_and_clipped_but_every_mismatch_counts() {
        let mut causes = Causes::new();
        let long = "x".repeat(1000);
        for turn in 0..5 {
            let m = ReplayMismatch::clipped(1, turn, &long, (1.0, 0.5), ("a", "b"));
            record(&mut causes, "c".into(), m);
        }
        let mut other = Causes::new();
        record(
            &mut other,
            "c".into(),
            ReplayMismatch::clipped(2, 0, "y", (0.0, 1.0), ("", "")),
        );
        merge(&mut causes, other);
        let c = &causes["c"];
        assert_eq!(c.count, 6);
        assert_eq!(c.examples.len(), MAX_EXAMPLES);
        assert_eq!(c.examples[0].action.chars().count(), CLIP_CHARS + 1);
    }
}
