//! Run metrics: what a run's episode records say about an agent beyond its success rate.
//!
//! Everything is computed from [`EpisodeRecord`]s alone, so a report can be recomputed from old
//! trajectory files whenever a definition here changes.
//!
//! Terms the definitions use:
//!
//! * **scored episode**: an episode that did not end in a harness error. A harness error is the
//!   harness's failure, not the model's, so those episodes are counted and listed apart
//!   ([`Metrics::harness_errors`]) and left out of every other metric.
//! * **action**: one entry of the record's `actions` (upstream's turn); the final `submit` is
//!   not an action.
//! * **failed action**: an action whose `action_executed` is false.
//! * **solving turn** (solved episodes only): the 1-based index of the first action whose
//!   per-turn reward is 1.0, or, when no action carries a per-turn reward of 1.0, the number of
//!   actions (the last action; 0 for an episode solved without any action).
//! * **near-repeat**: two actions are near-repeats when they are equal after trimming and
//!   collapsing every whitespace run to one space, or when the normalized similarity of those
//!   collapsed texts, 1 − (Levenshtein distance ÷ length of the longer), counted in characters,
//!   is at least 0.9.
//!
//! Shares are fractions in 0..=1; a share or mean whose denominator is empty is `None`.

use std::collections::{BTreeMap, HashMap};

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::data::trajectory::{EpisodeEnd, EpisodeRecord, TurnRecord, Usage};

/// Upstream's chat policy (try-again) cuts every observation to this many characters before the
/// model sees it (`response_limit`); a longer observation is a data dump rather than an answer.
pub const DUMP_OBSERVATION_CHARS: usize = 1000;

/// Two actions count as the same attempt when their edit distance is at most the longer
/// length divided by this: a normalized similarity of at least 0.9.
const NEAR_REPEAT_DISTANCE_DIVISOR: usize = 10;

/// The category name of episodes without one, when other episodes of the run have one.
pub const NO_CATEGORY: &str = "(none)";

/// What a model costs, per million tokens, in whatever currency the price file uses.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Price {
    pub input_per_mtok: f64,
    pub output_per_mtok: f64,
}

impl Price {
    /// The cost of `usage` at this price.
    pub fn cost(&self, usage: Usage) -> f64 {
        (usage.prompt_tokens as f64 * self.input_per_mtok
            + usage.completion_tokens as f64 * self.output_per_mtok)
            / 1_000_000.0
    }
}

/// Parses a price file: `{"model-name": {"input_per_mtok": 2.5, "output_per_mtok": 10.0}}`.
/// Unknown fields and negative or missing prices are errors, so a typo cannot silently price a
/// model at zero.
pub fn load_prices(text: &str) -> Result<HashMap<String, Price>, String> {
    let prices: HashMap<String, Price> =
        serde_json::from_str(text).map_err(|e| format!("price file: {e}"))?;
    for (model, price) in &prices {
        for (field, value) in [
            ("input_per_mtok", price.input_per_mtok),
            ("output_per_mtok", price.output_per_mtok),
        ] {
            if !(value.is_finite() && value >= 0.0) {
                return Err(format!(
                    "price file: model {model:?}: {field} must be a non-negative number, got {value}"
                ));
            }
        }
    }
    Ok(prices)
}

/// Nearest-rank summary of a distribution of non-negative counts.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Distribution {
    pub mean: f64,
    /// The value at rank ⌈0.5·n⌉ of the n values sorted ascending.
    pub p50: usize,
    /// The value at rank ⌈0.9·n⌉ of the n values sorted ascending.
    pub p90: usize,
    pub max: usize,
}

impl Distribution {
    fn of(mut values: Vec<usize>) -> Option<Distribution> {
        if values.is_empty() {
            return None;
        }
        values.sort_unstable();
        let mean = values.iter().sum::<usize>() as f64 / values.len() as f64;
        Some(Distribution {
            mean,
            p50: nearest_rank(&values, 50),
            p90: nearest_rank(&values, 90),
            max: values[values.len() - 1],
        })
    }
}

/// The nearest-rank percentile of sorted, non-empty `values`.
fn nearest_rank(sorted: &[usize], percent: usize) -> usize {
    let rank = (sorted.len() * percent).div_ceil(100).max(1);
    sorted[rank - 1]
}

/// Success on the scored episodes of one category.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CategoryMetrics {
    /// The record's `category` (SQL: Spider hardness; bash: task set), or [`NO_CATEGORY`].
    pub category: String,
    pub episodes: usize,
    pub solved: usize,
    pub success_rate: f64,
}

/// Everything [`compute`] measures about one run.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Metrics {
    /// Number of episode records, harness errors included.
    pub episodes: usize,
    /// Number of episodes that ended in a harness error (the harness failed, not the model).
    pub harness_errors: usize,
    /// Task indices of the episodes that ended in a harness error, in record order.
    pub harness_error_tasks: Vec<usize>,
    /// Harness errors divided by all episodes.
    pub harness_error_share: Option<f64>,
    /// Number of scored episodes (episodes that did not end in a harness error), the
    /// denominator of every metric below unless its definition names another.
    pub scored_episodes: usize,
    /// Number of scored episodes whose final reward is exactly 1.0.
    pub solved: usize,
    /// Success rate: solved episodes divided by scored episodes.
    pub success_rate: Option<f64>,
    /// Mean final reward over scored episodes.
    pub mean_reward: Option<f64>,
    /// First-pass success rate: share of scored episodes that are solved with a solving turn of
    /// at most 1 (the first action's per-turn reward is 1.0, or, without per-turn rewards, the
    /// episode is solved with at most one action).
    pub first_pass_success_rate: Option<f64>,
    /// Recovered success rate: share of scored episodes that are solved but not first-pass
    /// (success rate = first-pass + recovered).
    pub recovered_success_rate: Option<f64>,
    /// Number of scored episodes with at least one failed action.
    pub episodes_with_failed_action: usize,
    /// Error-recovery rate: among scored episodes with at least one failed action, the share
    /// that are solved.
    pub error_recovery_rate: Option<f64>,
    /// Mean turns to recover: over solved episodes whose first failed action comes no later
    /// than the solving turn, the mean of (solving turn − turn number of the first failed action),
    /// i.e. the actions taken after the first failure up to and including the solving one.
    pub mean_turns_to_recover: Option<f64>,
    /// Mean turns: mean number of actions per scored episode (upstream's `turns_taken`).
    pub mean_turns: Option<f64>,
    /// Error share (upstream's "Error %" ÷ 100): over scored episodes with at least one action,
    /// the mean of (failed actions ÷ actions).
    pub mean_error_share: Option<f64>,
    /// Error rate by turn: element i−1 is, among scored episodes that have an i-th action, the
    /// share whose i-th action failed (i from 1 to the most actions of any scored episode).
    pub error_rate_by_turn: Vec<f64>,
    /// Success rate by turn (cumulative): element k−1 is the share of scored episodes that are
    /// solved with a solving turn of at most k (k from 1 to the most actions of any scored
    /// episode, at least 1).
    pub success_rate_by_turn: Vec<f64>,
    /// Churn actions: number of actions (in scored episodes) that near-repeat an earlier action
    /// of the same episode and either directly follow a failed action or got exactly the same
    /// observation as an earlier action they near-repeat.
    pub churn_actions: usize,
    /// Number of scored episodes with at least one churn action.
    pub churn_episodes: usize,
    /// Churn share: scored episodes with at least one churn action divided by scored episodes.
    pub churn_episode_share: Option<f64>,
    /// Loop episodes: number of scored episodes with four consecutive actions A, B, A′, B′
    /// where A′ near-repeats A, B′ near-repeats B, and A and B are not near-repeats.
    pub loop_episodes: usize,
    /// Number of scored episodes whose record lists at least one destructive mutation.
    pub destructive_episodes: usize,
    /// Destructive share: scored episodes with at least one destructive mutation divided by
    /// scored episodes.
    pub destructive_episode_share: Option<f64>,
    /// Total number of destructive mutations listed across scored episodes.
    pub destructive_mutations: usize,
    /// Observation characters per scored episode: the sum over its actions of the observation's
    /// length in characters, summarized as mean and nearest-rank p50, p90 and max.
    pub observation_chars: Option<Distribution>,
    /// Number of actions (in scored episodes) whose observation is longer than 1000 characters.
    pub dump_turns: usize,
    /// Dump-turn share: actions whose observation is longer than 1000 characters (the length
    /// upstream's try-again policy cuts observations to) divided by all actions of scored
    /// episodes.
    pub dump_turn_share: Option<f64>,
    /// Number of premature submissions: scored episodes the agent ended itself by submitting
    /// with a final reward below 1.0 although its last action executed and printed a
    /// non-whitespace observation.
    pub premature_submissions: usize,
    /// Premature-submission share: premature submissions divided by scored episodes.
    pub premature_submission_share: Option<f64>,
    /// Prompt tokens summed over scored episodes (an episode's own usage, or the sum of its
    /// actions' usage when the episode's is empty).
    pub prompt_tokens: u64,
    /// Completion tokens summed over scored episodes, counted like `prompt_tokens`.
    pub completion_tokens: u64,
    /// Model requests (retries included) summed over scored episodes, counted like
    /// `prompt_tokens`.
    pub requests: u64,
    /// Mean prompt tokens per scored episode.
    pub mean_prompt_tokens: Option<f64>,
    /// Mean completion tokens per scored episode.
    pub mean_completion_tokens: Option<f64>,
    /// Cost: prompt tokens × input price + completion tokens × output price (prices per
    /// million tokens), over scored episodes; `None` without a price.
    pub cost: Option<f64>,
    /// Cost per solved task: cost divided by solved episodes; `None` without a price or
    /// without a solved episode.
    pub cost_per_solved: Option<f64>,
    /// Wall time: the episodes' `wall_ms` (reset to final step) summed over scored episodes,
    /// in milliseconds.
    pub wall_ms_total: u64,
    /// Mean wall time per scored episode, in milliseconds.
    pub mean_wall_ms: Option<f64>,
    /// Per category (the record's `category`; episodes without one as "(none)", and no
    /// breakdown at all when no episode has one): scored episodes, solved episodes and
    /// success rate, easy/medium/hard/extra first, then the others alphabetically.
    pub by_category: Vec<CategoryMetrics>,
    /// Mean of every numeric value of the final `info`, at the top level or one object deep
    /// (keyed `outer.inner`, e.g. bash's `reward.file_diff`), over the scored episodes that
    /// have it.
    pub info_means: BTreeMap<String, f64>,
}

/// Computes every metric of one run; `price` is the run model's price, if known.
pub fn compute(records: &[EpisodeRecord], price: Option<&Price>) -> Metrics {
    let harness_error_tasks: Vec<usize> = records
        .iter()
        .filter(|r| r.end == EpisodeEnd::HarnessError)
        .map(|r| r.task_index)
        .collect();
    let scored: Vec<&EpisodeRecord> = records
        .iter()
        .filter(|r| r.end != EpisodeEnd::HarnessError)
        .collect();
    let facts: Vec<EpisodeFacts> = scored.iter().map(|r| EpisodeFacts::of(r)).collect();
    let n = facts.len();
    let count = |keep: fn(&EpisodeFacts) -> bool| facts.iter().filter(|f| keep(f)).count();

    let solved = count(|f| f.solving_turn.is_some());
    let first_pass = count(|f| f.solving_turn.is_some_and(|t| t <= 1));
    let with_failure: Vec<&EpisodeFacts> =
        facts.iter().filter(|f| f.first_failed.is_some()).collect();
    let churn_episodes = count(|f| f.churn_actions > 0);
    let destructive_episodes = count(|f| f.destructive > 0);
    let premature = count(|f| f.premature);
    let all_actions: usize = facts.iter().map(|f| f.failed_at.len()).sum();
    let dump_turns: usize = facts.iter().map(|f| f.dump_turns).sum();
    let usage = total_usage(&scored);
    let cost = price.map(|p| p.cost(usage));

    Metrics {
        episodes: records.len(),
        harness_errors: harness_error_tasks.len(),
        harness_error_share: ratio(harness_error_tasks.len(), records.len()),
        harness_error_tasks,
        scored_episodes: n,
        solved,
        success_rate: ratio(solved, n),
        mean_reward: mean(scored.iter().map(|r| r.reward)),
        first_pass_success_rate: ratio(first_pass, n),
        recovered_success_rate: ratio(solved - first_pass, n),
        episodes_with_failed_action: with_failure.len(),
        error_recovery_rate: ratio(
            with_failure
                .iter()
                .filter(|f| f.solving_turn.is_some())
                .count(),
            with_failure.len(),
        ),
        mean_turns_to_recover: mean(facts.iter().filter_map(EpisodeFacts::turns_to_recover)),
        mean_turns: mean(facts.iter().map(|f| f.failed_at.len() as f64)),
        mean_error_share: mean(facts.iter().filter_map(EpisodeFacts::error_share)),
        error_rate_by_turn: error_rate_by_turn(&facts),
        success_rate_by_turn: success_rate_by_turn(&facts),
        churn_actions: facts.iter().map(|f| f.churn_actions).sum(),
        churn_episodes,
        churn_episode_share: ratio(churn_episodes, n),
        loop_episodes: count(|f| f.has_loop),
        destructive_episodes,
        destructive_episode_share: ratio(destructive_episodes, n),
        destructive_mutations: facts.iter().map(|f| f.destructive).sum(),
        observation_chars: Distribution::of(facts.iter().map(|f| f.observation_chars).collect()),
        dump_turns,
        dump_turn_share: ratio(dump_turns, all_actions),
        premature_submissions: premature,
        premature_submission_share: ratio(premature, n),
        prompt_tokens: usage.prompt_tokens,
        completion_tokens: usage.completion_tokens,
        requests: usage.requests,
        mean_prompt_tokens: ratio_u64(usage.prompt_tokens, n),
        mean_completion_tokens: ratio_u64(usage.completion_tokens, n),
        cost,
        cost_per_solved: cost.filter(|_| solved > 0).map(|c| c / solved as f64),
        wall_ms_total: scored.iter().map(|r| r.wall_ms).sum(),
        mean_wall_ms: mean(scored.iter().map(|r| r.wall_ms as f64)),
        by_category: by_category(&scored),
        info_means: info_means(&scored),
    }
}

/// What the metrics need to know about one scored episode.
#[derive(Debug)]
struct EpisodeFacts {
    /// `Some` exactly when the episode is solved.
    solving_turn: Option<usize>,
    /// 1-based index of the first failed action.
    first_failed: Option<usize>,
    /// One entry per action: did it fail.
    failed_at: Vec<bool>,
    churn_actions: usize,
    has_loop: bool,
    destructive: usize,
    observation_chars: usize,
    dump_turns: usize,
    premature: bool,
}

impl EpisodeFacts {
    fn of(record: &EpisodeRecord) -> EpisodeFacts {
        let actions = &record.actions;
        let failed_at: Vec<bool> = actions.iter().map(|t| !t.action_executed).collect();
        let collapsed: Vec<Vec<char>> = actions
            .iter()
            .map(|t| collapse_whitespace(&t.action))
            .collect();
        let observation_lengths: Vec<usize> = actions
            .iter()
            .map(|t| t.observation.chars().count())
            .collect();
        EpisodeFacts {
            solving_turn: solving_turn(record),
            first_failed: failed_at.iter().position(|&f| f).map(|i| i + 1),
            churn_actions: churn_actions(actions, &collapsed),
            has_loop: has_period_two_loop(&collapsed),
            failed_at,
            destructive: record.destructive.len(),
            observation_chars: observation_lengths.iter().sum(),
            dump_turns: observation_lengths
                .iter()
                .filter(|&&len| len > DUMP_OBSERVATION_CHARS)
                .count(),
            premature: is_premature_submission(record),
        }
    }

    fn turns_to_recover(&self) -> Option<f64> {
        let solving = self.solving_turn?;
        let failed = self.first_failed?;
        // A failure after the solving turn is not something the agent recovered from.
        (failed <= solving).then(|| (solving - failed) as f64)
    }

    fn error_share(&self) -> Option<f64> {
        let failed = self.failed_at.iter().filter(|&&f| f).count();
        ratio(failed, self.failed_at.len())
    }
}

/// The solving turn (see the module docs), `None` for an unsolved episode.
fn solving_turn(record: &EpisodeRecord) -> Option<usize> {
    if !record.solved() {
        return None;
    }
    let first_perfect = record.actions.iter().position(|t| t.reward == Some(1.0));
    Some(first_perfect.map_or(record.actions.len(), |i| i + 1))
}

/// The agent submitted a wrong answer right after an action that ran and showed it something:
/// it stopped while it still had material to work with.
fn is_premature_submission(record: &EpisodeRecord) -> bool {
    record.end == EpisodeEnd::Submitted
        && record.reward < 1.0
        && record
            .actions
            .last()
            .is_some_and(|t| t.action_executed && !t.observation.trim().is_empty())
}

fn error_rate_by_turn(facts: &[EpisodeFacts]) -> Vec<f64> {
    let longest = facts.iter().map(|f| f.failed_at.len()).max().unwrap_or(0);
    (0..longest)
        .map(|i| {
            let at_turn: Vec<bool> = facts
                .iter()
                .filter_map(|f| f.failed_at.get(i))
                .copied()
                .collect();
            let failed = at_turn.iter().filter(|&&f| f).count();
            // Some episode has an action at every index below `longest`, so this never divides by 0.
            failed as f64 / at_turn.len() as f64
        })
        .collect()
}

fn success_rate_by_turn(facts: &[EpisodeFacts]) -> Vec<f64> {
    if facts.is_empty() {
        return Vec::new();
    }
    let longest = facts.iter().map(|f| f.failed_at.len()).max().unwrap_or(0);
    (1..=longest.max(1))
        .map(|k| {
            let solved_by_k = facts
                .iter()
                .filter(|f| f.solving_turn.is_some_and(|t| t <= k))
                .count();
            solved_by_k as f64 / facts.len() as f64
        })
        .collect()
}

/// Counts churn actions (see [`Metrics::churn_actions`]); `collapsed` holds each action's text
/// with whitespace collapsed.
fn churn_actions(actions: &[TurnRecord], collapsed: &[Vec<char>]) -> usize {
    (1..actions.len())
        .filter(|&i| {
            let after_failure = !actions[i - 1].action_executed;
            (0..i).any(|j| {
                near_repeat(&collapsed[i], &collapsed[j])
                    && (after_failure || actions[i].observation == actions[j].observation)
            })
        })
        .count()
}

/// An A-B-A-B stretch: the agent alternates between two different attempts.
fn has_period_two_loop(collapsed: &[Vec<char>]) -> bool {
    collapsed.windows(4).any(|w| {
        near_repeat(&w[0], &w[2]) && near_repeat(&w[1], &w[3]) && !near_repeat(&w[0], &w[1])
    })
}

/// The action's characters with leading and trailing whitespace dropped and every inner
/// whitespace run made one space.
fn collapse_whitespace(text: &str) -> Vec<char> {
    let mut out = Vec::with_capacity(text.len());
    for word in text.split_whitespace() {
        if !out.is_empty() {
            out.push(' ');
        }
        out.extend(word.chars());
    }
    out
}

/// Whether two whitespace-collapsed actions are near-repeats (see the module docs).
fn near_repeat(a: &[char], b: &[char]) -> bool {
    if a == b {
        return true;
    }
    // similarity = 1 − d/longer ≥ 0.9  ⇔  10·d ≤ longer  ⇔  d ≤ ⌊longer/10⌋ for a whole d.
    // Integer arithmetic on purpose: in floating point 10 × (1 − 0.9) is just below 1.
    let limit = a.len().max(b.len()) / NEAR_REPEAT_DISTANCE_DIVISOR;
    edit_distance_within(a, b, limit).is_some()
}

/// The Levenshtein distance between `a` and `b` (inserting, deleting or substituting one
/// character costs 1), or `None` when it exceeds `limit`.
///
/// Actions can be long code cells, so this fills only the diagonal band |i − j| ≤ `limit` of
/// the table (a path that leaves the band already costs more than `limit`) and stops as soon
/// as a whole row exceeds `limit`. Cells just outside the band hold `limit + 1`, a lower bound
/// of their true value, so a result above `limit` stays above it and one within is exact.
fn edit_distance_within(a: &[char], b: &[char], limit: usize) -> Option<usize> {
    // No distance exceeds the longer length; capping keeps `limit + 1` from overflowing.
    let limit = limit.min(a.len().max(b.len()));
    if a.len().abs_diff(b.len()) > limit {
        return None;
    }
    let beyond = limit + 1;
    // previous[j]: the distance between a[..i] and b[..j] for the row above.
    let mut previous: Vec<usize> = (0..=b.len()).map(|j| j.min(beyond)).collect();
    let mut current = vec![beyond; b.len() + 1];
    for (row, &ca) in a.iter().enumerate() {
        let i = row + 1;
        let low = i.saturating_sub(limit).max(1);
        let high = (i + limit).min(b.len());
        current[low - 1] = if low == 1 { i.min(beyond) } else { beyond };
        let mut row_min = current[low - 1];
        for j in low..=high {
            let substitute = previous[j - 1] + usize::from(ca != b[j - 1]);
            current[j] = substitute.min(previous[j] + 1).min(current[j - 1] + 1);
            row_min = row_min.min(current[j]);
        }
        if high < b.len() {
            current[high + 1] = beyond;
        }
        // Every path to the last cell crosses this row, so it costs at least the row's minimum.
        if row_min > limit {
            return None;
        }
        std::mem::swap(&mut previous, &mut current);
    }
    let distance = previous[b.len()];
    (distance <= limit).then_some(distance)
}

/// Token usage of the episodes: each episode's own, or its actions' when it recorded none.
fn total_usage(scored: &[&EpisodeRecord]) -> Usage {
    let mut total = Usage::default();
    for record in scored {
        if record.usage.is_empty() {
            record.actions.iter().for_each(|t| total.add(t.usage));
        } else {
            total.add(record.usage);
        }
    }
    total
}

fn by_category(scored: &[&EpisodeRecord]) -> Vec<CategoryMetrics> {
    if scored.iter().all(|r| r.category.is_none()) {
        return Vec::new();
    }
    let mut counts: BTreeMap<&str, (usize, usize)> = BTreeMap::new();
    for record in scored {
        let name = record.category.as_deref().unwrap_or(NO_CATEGORY);
        let entry = counts.entry(name).or_default();
        entry.0 += 1;
        entry.1 += usize::from(record.solved());
    }
    let mut categories: Vec<CategoryMetrics> = counts
        .into_iter()
        .map(|(name, (episodes, solved))| CategoryMetrics {
            category: name.to_string(),
            episodes,
            solved,
            success_rate: solved as f64 / episodes as f64,
        })
        .collect();
    categories.sort_by(|a, b| category_order(&a.category, &b.category));
    categories
}

/// Spider's hardness levels in increasing difficulty, then everything else alphabetically,
/// with [`NO_CATEGORY`] last.
pub(crate) fn category_order(a: &str, b: &str) -> std::cmp::Ordering {
    fn rank(name: &str) -> usize {
        match name {
            "easy" => 0,
            "medium" => 1,
            "hard" => 2,
            "extra" => 3,
            NO_CATEGORY => 5,
            _ => 4,
        }
    }
    rank(a).cmp(&rank(b)).then_with(|| a.cmp(b))
}

fn info_means(scored: &[&EpisodeRecord]) -> BTreeMap<String, f64> {
    let mut sums: BTreeMap<String, (f64, usize)> = BTreeMap::new();
    let mut add = |key: String, value: &Value| {
        if let Some(x) = value.as_f64() {
            let entry = sums.entry(key).or_default();
            entry.0 += x;
            entry.1 += 1;
        }
    };
    for record in scored {
        for (key, value) in &record.info {
            match value {
                Value::Object(inner) => {
                    inner.iter().for_each(|(k, v)| add(format!("{key}.{k}"), v))
                }
                _ => add(key.clone(), value),
            }
        }
    }
    sums.into_iter()
        .map(|(key, (sum, n))| (key, sum / n as f64))
        .collect()
}

fn ratio(part: usize, whole: usize) -> Option<f64> {
    (whole > 0).then(|| part as f64 / whole as f64)
}

fn ratio_u64(part: u64, whole: usize) -> Option<f64> {
    (whole > 0).then(|| part as f64 / whole as f64)
}

fn mean(values: impl Iterator<Item = f64>) -> Option<f64> {
    let (sum, n) = values.fold((0.0, 0usize), |(s, n), v| (s + v, n + 1));
    (n > 0).then(|| sum / n as f64)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{Map, json};

    fn turn(action: &str, observation: &str, executed: bool) -> TurnRecord {
        let mut t = TurnRecord::new(action, observation, Some(if executed { 0 } else { 1 }));
        t.action_executed = executed;
        t
    }

    fn ok(action: &str) -> TurnRecord {
        turn(action, "out", true)
    }

    fn fail(action: &str) -> TurnRecord {
        turn(action, "error", false)
    }

    fn with_reward(mut t: TurnRecord, reward: f64) -> TurnRecord {
        t.reward = Some(reward);
        t
    }

    fn episode(task_index: usize, actions: Vec<TurnRecord>, reward: f64) -> EpisodeRecord {
        EpisodeRecord {
            env: "bash".into(),
            task_index,
            query: "q".into(),
            gold: "g".into(),
            category: None,
            actions,
            reward,
            info: Map::new(),
            end: EpisodeEnd::Submitted,
            error: None,
            destructive: Vec::new(),
            usage: Usage::default(),
            wall_ms: 0,
        }
    }

    fn harness_error(task_index: usize) -> EpisodeRecord {
        EpisodeRecord {
            end: EpisodeEnd::HarnessError,
            error: Some("sandbox fault".into()),
            // A harness error must not count even with a perfect reward or failed actions.
            ..episode(task_index, vec![fail("x"), fail("x")], 1.0)
        }
    }

    fn close(actual: Option<f64>, expected: f64) -> bool {
        actual.is_some_and(|a| (a - expected).abs() < 1e-9)
    }

    #[test]
    fn harness_errors_are_listed_and_left_out_of_every_denominator() {
        let records = [
            episode(0, vec![ok("ls")], 1.0),
            harness_error(7),
            episode(2, vec![fail("cat x"), ok("cat y")], 0.0),
            harness_error(9),
        ];
        let m = compute(&records, None);
        assert_eq!(m.episodes, 4);
        assert_eq!(m.harness_errors, 2);
        assert_eq!(m.harness_error_tasks, [7, 9]);
        assert!(close(m.harness_error_share, 0.5));
        assert_eq!(m.scored_episodes, 2);
        assert_eq!(m.solved, 1);
        assert!(close(m.success_rate, 0.5));
        assert!(close(m.mean_reward, 0.5));
        assert_eq!(m.episodes_with_failed_action, 1);
        assert!(close(m.error_recovery_rate, 0.0));
        assert!(close(m.mean_turns, 1.5));
        assert_eq!(m.churn_actions, 0);
    }

    #[test]
    fn first_pass_and_recovered_success_split_the_success_rate() {
        let records = [
            // Solved with one action and no per-turn rewards: first pass.
            episode(0, vec![ok("ls")], 1.0),
            // A failure then the fix: recovered, one turn to recover.
            episode(1, vec![fail("cat x"), ok("cat y")], 1.0),
            // Per-turn reward 1.0 on the first action, then more actions: still first pass.
            episode(2, vec![with_reward(ok("a"), 1.0), ok("b")], 1.0),
            // Per-turn rewards that reach 1.0 on turn 3, after a failure on turn 1.
            episode(
                3,
                vec![
                    with_reward(fail("a"), 0.0),
                    with_reward(ok("b"), 0.5),
                    with_reward(ok("c"), 1.0),
                ],
                1.0,
            ),
            episode(4, vec![fail("a"), ok("b")], 0.5),
        ];
        let m = compute(&records, None);
        assert!(close(m.success_rate, 0.8));
        assert!(close(m.first_pass_success_rate, 0.4));
        assert!(close(m.recovered_success_rate, 0.4));
        // Failed actions in episodes 1, 3 and 4; 1 and 3 solved.
        assert_eq!(m.episodes_with_failed_action, 3);
        assert!(close(m.error_recovery_rate, 2.0 / 3.0));
        // Episode 1: 2 − 1 = 1; episode 3: 3 − 1 = 2.
        assert!(close(m.mean_turns_to_recover, 1.5));
    }

    #[test]
    fn a_failure_after_the_solving_turn_is_not_a_recovery() {
        let records = [episode(
            0,
            vec![with_reward(ok("a"), 1.0), with_reward(fail("b"), 1.0)],
            1.0,
        )];
        let m = compute(&records, None);
        assert!(close(m.error_recovery_rate, 1.0));
        assert_eq!(m.mean_turns_to_recover, None);
        assert!(close(m.first_pass_success_rate, 1.0));
    }

    #[test]
    fn error_share_and_error_rate_by_turn() {
        let records = [
            episode(0, vec![fail("a"), ok("b")], 0.0),
            episode(1, vec![ok("a")], 0.0),
            // No action: left out of the error share, counted in mean turns.
            episode(2, vec![], 0.0),
        ];
        let m = compute(&records, None);
        // (1/2 + 0/1) / 2
        assert!(close(m.mean_error_share, 0.25));
        assert_eq!(m.error_rate_by_turn, [0.5, 0.0]);
        assert!(close(m.mean_turns, 1.0));
    }

    #[test]
    fn success_rate_by_turn_is_cumulative_over_the_solving_turn() {
        let records = [
            episode(0, vec![fail("a"), ok("b")], 1.0),
            episode(1, vec![ok("a")], 1.0),
            episode(2, vec![ok("a"), ok("b"), ok("c")], 0.0),
        ];
        let m = compute(&records, None);
        let expected = [1.0 / 3.0, 2.0 / 3.0, 2.0 / 3.0];
        assert_eq!(m.success_rate_by_turn.len(), 3);
        for (got, want) in m.success_rate_by_turn.iter().zip(expected) {
            assert!((got - want).abs() < 1e-9, "{:?}", m.success_rate_by_turn);
        }
        // Solved without acting: solved by turn 1.
        let m = compute(&[episode(0, vec![], 1.0)], None);
        assert_eq!(m.success_rate_by_turn, [1.0]);
        assert!(compute(&[], None).success_rate_by_turn.is_empty());
    }

    #[test]
    fn repeating_after_a_failure_is_churn() {
        let records = [episode(0, vec![fail("make"), ok("make")], 0.0)];
        let m = compute(&records, None);
        assert_eq!(m.churn_actions, 1);
        assert_eq!(m.churn_episodes, 1);
        assert!(close(m.churn_episode_share, 1.0));
    }

    #[test]
    fn repeating_with_an_unchanged_observation_is_churn_and_a_changed_one_is_not() {
        let same = episode(
            0,
            vec![
                turn("ls  -la\t/tmp", "a", true),
                turn("touch b", "", true),
                turn("ls -la /tmp", "a", true),
            ],
            0.0,
        );
        let changed = episode(
            1,
            vec![
                turn("ls", "a", true),
                turn("touch b", "", true),
                turn("ls", "a b", true),
            ],
            0.0,
        );
        let m = compute(&[same, changed], None);
        assert_eq!(m.churn_actions, 1);
        assert_eq!(m.churn_episodes, 1);
        assert!(close(m.churn_episode_share, 0.5));
    }

    #[test]
    fn near_verbatim_repeats_count_and_different_commands_do_not() {
        let near = |a: &str, b: &str| near_repeat(&collapse_whitespace(a), &collapse_whitespace(b));
        // 22 vs 23 characters, one deletion: similarity 1 − 1/23 ≥ 0.9.
        assert!(near("cat /home/user/file.tx", "cat /home/user/file.txt"));
        // 10 characters, one substitution: similarity exactly 0.9.
        assert!(near("abcdefghij", "abcdefghiX"));
        // 10 characters, two substitutions: 0.8.
        assert!(!near("abcdefghij", "abcdefghXY"));
        // One substitution in two characters is far from similar.
        assert!(!near("ls", "ll"));
        assert!(near("", ""));
        assert!(near(" ls\t -la \n", "ls -la"));
        let records = [episode(
            0,
            vec![
                fail("cat /home/user/file.txt"),
                fail("cat /home/user/file.tx"),
                fail("grep foo bar"),
            ],
            0.0,
        )];
        assert_eq!(compute(&records, None).churn_actions, 1);
    }

    #[test]
    fn edit_distance_is_levenshtein_and_stops_past_the_limit() {
        let chars = |s: &str| s.chars().collect::<Vec<_>>();
        let distance = |a: &str, b: &str| edit_distance_within(&chars(a), &chars(b), usize::MAX);
        assert_eq!(distance("kitten", "sitting"), Some(3));
        assert_eq!(distance("", "abc"), Some(3));
        assert_eq!(distance("flaw", "lawn"), Some(2));
        assert_eq!(distance("héllo", "hello"), Some(1));
        assert_eq!(
            edit_distance_within(&chars("kitten"), &chars("sitting"), 2),
            None
        );
        assert_eq!(
            edit_distance_within(&chars("kitten"), &chars("sitting"), 3),
            Some(3)
        );
    }

    /// The whole Levenshtein table, the textbook way.
    fn reference_distance(a: &[char], b: &[char]) -> usize {
        let mut table = vec![vec![0; b.len() + 1]; a.len() + 1];
        for (i, row) in table.iter_mut().enumerate() {
            row[0] = i;
        }
        table[0] = (0..=b.len()).collect();
        for i in 1..=a.len() {
            for j in 1..=b.len() {
                let substitute = table[i - 1][j - 1] + usize::from(a[i - 1] != b[j - 1]);
                table[i][j] = substitute.min(table[i - 1][j] + 1).min(table[i][j - 1] + 1);
            }
        }
        table[a.len()][b.len()]
    }

    #[test]
    fn banded_edit_distance_agrees_with_the_whole_table() {
        // A fixed linear congruential sequence: varied pairs, same every run.
        let mut state: u64 = 0x2545_f491_4f6c_dd1d;
        let mut next = |bound: u64| {
            state = state
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1);
            (state >> 33) % bound
        };
        for _ in 0..2000 {
            let a: Vec<char> = (0..next(14))
                .map(|_| (b'a' + next(3) as u8) as char)
                .collect();
            let mut b = a.clone();
            for _ in 0..next(5) {
                let at = next(b.len() as u64 + 1) as usize;
                match next(3) {
                    0 => b.insert(at, 'x'),
                    1 if at < b.len() => drop(b.remove(at)),
                    _ if at < b.len() => b[at] = 'b',
                    _ => {}
                }
            }
            let truth = reference_distance(&a, &b);
            for limit in 0..8 {
                let expected = (truth <= limit).then_some(truth);
                assert_eq!(
                    edit_distance_within(&a, &b, limit),
                    expected,
                    "{a:?} {b:?} {limit}"
                );
            }
        }
    }

    #[test]
    fn alternating_between_two_attempts_is_a_loop() {
        let abab = episode(0, vec![ok("ls"), ok("pwd"), ok("ls"), ok("pwd")], 0.0);
        let abac = episode(1, vec![ok("ls"), ok("pwd"), ok("ls"), ok("cd /")], 0.0);
        let aaaa = episode(2, vec![ok("ls"), ok("ls"), ok("ls"), ok("ls")], 0.0);
        let short = episode(3, vec![ok("ls"), ok("pwd"), ok("ls")], 0.0);
        assert_eq!(compute(std::slice::from_ref(&abab), None).loop_episodes, 1);
        assert_eq!(compute(&[abac, aaaa, short], None).loop_episodes, 0);
    }

    #[test]
    fn destructive_mutations_are_counted_per_episode_and_in_total() {
        let mut wrecked = episode(0, vec![ok("rm -rf /data")], 0.0);
        wrecked.destructive = vec!["/data/a".into(), "/data/b".into()];
        let records = [
            wrecked,
            episode(1, vec![ok("ls")], 1.0),
            episode(2, vec![], 0.0),
            episode(3, vec![], 0.0),
        ];
        let m = compute(&records, None);
        assert_eq!(m.destructive_episodes, 1);
        assert_eq!(m.destructive_mutations, 2);
        assert!(close(m.destructive_episode_share, 0.25));
    }

    #[test]
    fn observation_sizes_and_dump_turns() {
        let big = "x".repeat(DUMP_OBSERVATION_CHARS + 1);
        let edge = "é".repeat(DUMP_OBSERVATION_CHARS);
        let records = [
            episode(0, vec![turn("a", &big, true), turn("b", "abc", true)], 0.0),
            // Exactly 1000 characters (2000 bytes) is not a dump.
            episode(1, vec![turn("a", &edge, true)], 0.0),
            episode(2, vec![turn("a", "1234567", true)], 0.0),
            episode(3, vec![turn("a", "", true)], 0.0),
        ];
        let m = compute(&records, None);
        let obs = m.observation_chars.expect("four episodes");
        // Sorted per-episode totals: 0, 7, 1000, 1004.
        assert_eq!((obs.p50, obs.p90, obs.max), (7, 1004, 1004));
        assert!((obs.mean - 2011.0 / 4.0).abs() < 1e-9);
        assert_eq!(m.dump_turns, 1);
        assert!(close(m.dump_turn_share, 0.2));
    }

    #[test]
    fn nearest_rank_percentiles() {
        let ten: Vec<usize> = (1..=10).collect();
        assert_eq!(nearest_rank(&ten, 50), 5);
        assert_eq!(nearest_rank(&ten, 90), 9);
        assert_eq!(nearest_rank(&[4], 50), 4);
        assert_eq!(nearest_rank(&[1, 2], 90), 2);
    }

    #[test]
    fn premature_submission_needs_a_working_last_action_and_a_wrong_answer() {
        let premature = episode(0, vec![fail("a"), turn("b", "rows", true)], 0.5);
        let last_failed = episode(1, vec![turn("b", "error", false)], 0.0);
        let blank_output = episode(2, vec![turn("b", " \n", true)], 0.0);
        let solved = episode(3, vec![turn("b", "rows", true)], 1.0);
        let mut out_of_turns = episode(4, vec![turn("b", "rows", true)], 0.0);
        out_of_turns.end = EpisodeEnd::TurnLimit;
        let m = compute(
            &[premature, last_failed, blank_output, solved, out_of_turns],
            None,
        );
        assert_eq!(m.premature_submissions, 1);
        assert!(close(m.premature_submission_share, 0.2));
    }

    #[test]
    fn tokens_cost_and_wall_time() {
        let usage = |prompt, completion| Usage {
            prompt_tokens: prompt,
            completion_tokens: completion,
            requests: 1,
        };
        let mut a = episode(0, vec![ok("ls")], 1.0);
        a.usage = usage(600_000, 100_000);
        a.wall_ms = 1500;
        // No episode usage: its actions' usage counts instead.
        let mut t1 = ok("ls");
        t1.usage = usage(300_000, 200_000);
        let mut t2 = ok("ls");
        t2.usage = usage(100_000, 200_000);
        let mut b = episode(1, vec![t1, t2], 0.0);
        b.wall_ms = 500;
        let mut failed = harness_error(2);
        failed.usage = usage(9_000_000, 9_000_000);
        failed.wall_ms = 100_000;
        let records = [a, b, failed];
        let price = Price {
            input_per_mtok: 2.5,
            output_per_mtok: 10.0,
        };
        let m = compute(&records, Some(&price));
        assert_eq!((m.prompt_tokens, m.completion_tokens), (1_000_000, 500_000));
        assert_eq!(m.requests, 3);
        assert!(close(m.mean_prompt_tokens, 500_000.0));
        assert!(close(m.mean_completion_tokens, 250_000.0));
        // 1 Mtok × 2.5 + 0.5 Mtok × 10
        assert!(close(m.cost, 7.5));
        assert!(close(m.cost_per_solved, 7.5));
        assert_eq!(m.wall_ms_total, 2000);
        assert!(close(m.mean_wall_ms, 1000.0));

        assert_eq!(compute(&records, None).cost, None);
        let unsolved = [episode(0, vec![], 0.0)];
        let m = compute(&unsolved, Some(&price));
        assert_eq!((m.cost, m.cost_per_solved), (Some(0.0), None));
    }

    #[test]
    fn price_files_parse_and_typos_are_errors() {
        let prices =
            load_prices(r#"{"gpt-4o": {"input_per_mtok": 2.5, "output_per_mtok": 10}}"#).unwrap();
        assert_eq!(prices["gpt-4o"].output_per_mtok, 10.0);
        for bad in [
            r#"{"m": {"input_per_mtok": 2.5}}"#,
            r#"{"m": {"input_per_mtok": 2.5, "output_per_mtok": 1, "cached": 1}}"#,
            r#"{"m": {"input_per_mtok": -1, "output_per_mtok": 1}}"#,
            "not json",
        ] {
            assert!(load_prices(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn categories_break_down_in_difficulty_order() {
        let in_category = |i, category: Option<&str>, reward| EpisodeRecord {
            category: category.map(str::to_string),
            ..episode(i, vec![], reward)
        };
        let records = [
            in_category(0, Some("hard"), 1.0),
            in_category(1, Some("easy"), 1.0),
            in_category(2, Some("easy"), 0.0),
            in_category(3, Some("extra"), 0.0),
            in_category(4, Some("nl2bash_fs_1"), 1.0),
            in_category(5, None, 0.0),
        ];
        let m = compute(&records, None);
        let names: Vec<&str> = m.by_category.iter().map(|c| c.category.as_str()).collect();
        assert_eq!(
            names,
            ["easy", "hard", "extra", "nl2bash_fs_1", NO_CATEGORY]
        );
        assert_eq!(
            m.by_category[0],
            CategoryMetrics {
                category: "easy".into(),
                episodes: 2,
                solved: 1,
                success_rate: 0.5,
            }
        );
        let uncategorized = compute(&[episode(0, vec![], 1.0)], None);
        assert!(uncategorized.by_category.is_empty());
    }

    #[test]
    fn numeric_info_values_are_averaged_one_level_deep() {
        let with_info = |i, info: Value| EpisodeRecord {
            info: info.as_object().cloned().unwrap(),
            ..episode(i, vec![], 0.0)
        };
        let records = [
            with_info(
                0,
                json!({"reward": {"file_diff": 0.5, "answer_similarity": 1.0}, "agent_obs": "x"}),
            ),
            with_info(
                1,
                json!({"reward": {"file_diff": 0.25}, "answer_similarity": 0.5}),
            ),
        ];
        let m = compute(&records, None);
        let expected = BTreeMap::from([
            ("answer_similarity".to_string(), 0.5),
            ("reward.answer_similarity".to_string(), 1.0),
            ("reward.file_diff".to_string(), 0.375),
        ]);
        assert_eq!(m.info_means, expected);
    }

    #[test]
    fn no_records_give_empty_metrics_without_panicking() {
        let m = compute(&[], None);
        assert_eq!((m.episodes, m.scored_episodes, m.solved), (0, 0, 0));
        assert_eq!(m.success_rate, None);
        assert_eq!(m.observation_chars, None);
        assert!(m.error_rate_by_turn.is_empty());
        let only_errors = compute(&[harness_error(0)], None);
        assert_eq!(only_errors.success_rate, None);
        assert!(close(only_errors.harness_error_share, 1.0));
    }
}
