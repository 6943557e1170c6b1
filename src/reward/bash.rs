//! Upstream InterCode's bash reward (`BashEnv.get_reward`), reproduced exactly.
//!
//! `reward = 0.01 + p1 + p2 + p3`, summed left to right in `f64`:
//!
//! * `p1` (`file_diff`): the `(path, status)` pairs of `git status --short`, parsed
//!   upstream's way ([`parse_status_like_upstream`]), compared as sets between the agent's tree
//!   and the gold's tree; `p1 = round(0.33 * (1 - erf(|miss| + |extra|)), 2)`, so 0 differences
//!   give 0.33, one gives 0.05, two or more give 0.
//! * `p2` (`file_changes`): for the pairs present on both sides whose status is `A`, `??` or
//!   `C`, upstream compares `md5sum <path>` (paths containing a `.`) or `md5deep -r <path>`
//!   (others) between the two containers. `md5deep` is not installed, so those always compare
//!   equal; `md5sum` of a directory prints the same error on both sides. `p2 = round(0.33 *
//!   same / total, 2)`, or 0.33 when there is nothing to compare. Modified (`M`) and deleted
//!   files are never content-checked.
//! * `p3` (`answer_similarity`): `round(0.33 * sim, 2)` with `sim` the TF-IDF similarity of the
//!   agent's last observation and the gold's output ([`super::tfidf`]), or exact string equality
//!   (1 or 0) when neither has a token.
//!
//! `round` is Python's: round-half-even on the exact binary value ([`round_half_even`]).
//!
//! Differences from upstream, all where upstream crashes or is arbitrary: an odd number of status
//! tokens drops the last token instead of raising `IndexError`; a path token that `shlex` cannot
//! split (an unbalanced quote) counts as equal content instead of raising `ValueError`; and
//! `diff_miss` / `diff_extra` / `diff_same.files` are sorted instead of in Python's set order.
//!
//! ```
//! use intercode::reward::bash::score;
//! let nothing_changed = score("out\n", "out\n", "", "", |_| true);
//! assert_eq!(nothing_changed.reward, 1.0);
//! let wrong_answer = score("", "hello world\n", "", "", |_| true);
//! assert_eq!(wrong_answer.reward, 0.67);
//! ```

use std::collections::BTreeSet;

use cap_std::fs::Dir;
use serde::Serialize;
use serde_json::{Map, Value};

use super::tfidf;
use crate::fs::hash::md5sum_in_root;
use crate::fs::status::parse_status_like_upstream;

/// Weight of each of the three parts.
const WEIGHT: f64 = 0.33;

/// Statuses whose files upstream content-checks (added, untracked, copied).
const CONTENT_CHECKED: &[&str] = &["A", "??", "C"];

/// The reward and every intermediate value upstream reports in `info`.
#[derive(Debug, Clone, PartialEq)]
pub struct BashReward {
    pub reward: f64,
    /// p1.
    pub file_diff: f64,
    /// p2.
    pub file_changes: f64,
    /// p3 = round(0.33 * similarity, 2).
    pub answer_similarity: f64,
    /// The raw TF-IDF similarity (or 1/0 from the equality fallback).
    pub similarity: f64,
    /// `(path, status)` pairs the gold produced and the agent did not.
    pub diff_miss: Vec<(String, String)>,
    /// `(path, status)` pairs the agent produced and the gold did not.
    pub diff_extra: Vec<(String, String)>,
    /// Present when some common pair was content-checked.
    pub diff_same: Option<DiffSame>,
    pub agent_obs: String,
    pub eval_obs: String,
}

/// The content check of p2.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct DiffSame {
    pub files: Vec<(String, String)>,
    pub correct: usize,
    pub total: usize,
}

/// Scores one episode. `agent_status` / `eval_status` are the `git status --short` texts of the
/// agent's and the gold's trees; `same_content(path_token)` answers upstream's per-path hash
/// comparison (use [`content_check`] for two episode directories).
pub fn score(
    agent_obs: &str,
    eval_obs: &str,
    agent_status: &str,
    eval_status: &str,
    mut same_content: impl FnMut(&str) -> bool,
) -> BashReward {
    let agent: BTreeSet<(String, String)> = parse_status_like_upstream(agent_status)
        .into_iter()
        .collect();
    let eval: BTreeSet<(String, String)> = parse_status_like_upstream(eval_status)
        .into_iter()
        .collect();
    let diff_miss: Vec<_> = eval.difference(&agent).cloned().collect();
    let diff_extra: Vec<_> = agent.difference(&eval).cloned().collect();
    let file_diff = file_diff_score(diff_miss.len() + diff_extra.len());

    let files: Vec<_> = agent
        .intersection(&eval)
        .filter(|(_, status)| CONTENT_CHECKED.contains(&status.as_str()))
        .cloned()
        .collect();
    let (file_changes, diff_same) = if files.is_empty() {
        (WEIGHT, None)
    } else {
        let correct = files.iter().filter(|(path, _)| same_content(path)).count();
        let total = files.len();
        // Python: round(0.33 * same / len(diff_same), 2), evaluated left to right.
        let p2 = round_half_even(WEIGHT * correct as f64 / total as f64, 2);
        (
            p2,
            Some(DiffSame {
                files,
                correct,
                total,
            }),
        )
    };

    let similarity = answer_similarity(agent_obs, eval_obs);
    let p3 = round_half_even(WEIGHT * similarity, 2);
    BashReward {
        reward: 0.01 + file_diff + file_changes + p3,
        file_diff,
        file_changes,
        answer_similarity: p3,
        similarity,
        diff_miss,
        diff_extra,
        diff_same,
        agent_obs: agent_obs.to_string(),
        eval_obs: eval_obs.to_string(),
    }
}

/// p1 for a given number of differing `(path, status)` pairs.
pub fn file_diff_score(differences: usize) -> f64 {
    round_half_even(WEIGHT * (1.0 - libm::erf(differences as f64)), 2)
}

/// Upstream's similarity: TF-IDF, or `1.0`/`0.0` by string equality when scikit-learn would
/// raise "empty vocabulary".
pub fn answer_similarity(agent_obs: &str, eval_obs: &str) -> f64 {
    tfidf::similarity(agent_obs, eval_obs).unwrap_or(if agent_obs == eval_obs { 1.0 } else { 0.0 })
}

/// Upstream's per-path content comparison between the agent's and the gold's episode roots.
pub fn content_check<'a>(agent_root: &'a Dir, gold_root: &'a Dir) -> impl FnMut(&str) -> bool + 'a {
    move |path| content_equal(agent_root, gold_root, path)
}

/// Whether upstream would find `path` (a token from the parsed status) equal on both sides.
pub fn content_equal(agent_root: &Dir, gold_root: &Dir, path: &str) -> bool {
    if !path.contains('.') {
        // `md5deep -r path`: not installed in either image, so both sides print the same
        // "executable file not found" error.
        return true;
    }
    // docker-py runs `shlex.split("md5sum " + path)`; a status token has no whitespace, so it
    // becomes exactly one argument. Upstream raises on unbalanced quotes; we call it equal.
    let Some(arg) = shlex_word(path) else {
        return true;
    };
    if arg.starts_with('-') {
        // An option or stdin (`-`): the output does not depend on either tree.
        return true;
    }
    md5sum_in_root(agent_root, &arg) == md5sum_in_root(gold_root, &arg)
}

/// Python's `shlex.split` (POSIX mode) of a single whitespace-free word; `None` where shlex
/// raises ("No closing quotation", "No escaped character").
pub fn shlex_word(word: &str) -> Option<String> {
    #[derive(PartialEq)]
    enum State {
        Plain,
        Single,
        Double,
    }
    let mut state = State::Plain;
    let mut out = String::with_capacity(word.len());
    let mut chars = word.chars().peekable();
    while let Some(c) = chars.next() {
        match state {
            State::Plain => match c {
                '\\' => out.push(chars.next()?),
                '\'' => state = State::Single,
                '"' => state = State::Double,
                c => out.push(c),
            },
            State::Single => match c {
                '\'' => state = State::Plain,
                c => out.push(c),
            },
            State::Double => match c {
                '"' => state = State::Plain,
                '\\' => match chars.next()? {
                    // Inside double quotes a backslash only escapes `"` and `\`.
                    e @ ('"' | '\\') => out.push(e),
                    e => {
                        out.push('\\');
                        out.push(e);
                    }
                },
                c => out.push(c),
            },
        }
    }
    (state == State::Plain).then_some(out)
}

/// Python's `round(x, ndigits)` for floats: the exact binary value rounded half-to-even to
/// `ndigits` decimals, then read back as the nearest `f64`. Rust's `{:.N}` formatting also
/// rounds the exact value half-to-even (checked in the tests: 0.125 -> 0.12, 0.375 -> 0.38,
/// 2.675 -> 2.67 because 2.675 is really 2.67499999...).
pub fn round_half_even(x: f64, ndigits: usize) -> f64 {
    if !x.is_finite() {
        return x;
    }
    format!("{x:.ndigits$}").parse().unwrap_or(x)
}

/// Upstream's `info` layout (field order as upstream's dict; `action_executed` is the env's).
#[derive(Serialize)]
struct Info<'a> {
    reward: Parts,
    diff_miss: &'a [(String, String)],
    diff_extra: &'a [(String, String)],
    #[serde(skip_serializing_if = "Option::is_none")]
    diff_same: Option<&'a DiffSame>,
    agent_obs: &'a str,
    eval_obs: &'a str,
    answer_similarity: f64,
}

#[derive(Serialize)]
struct Parts {
    file_diff: f64,
    file_changes: f64,
    answer_similarity: f64,
}

impl BashReward {
    fn info(&self) -> Info<'_> {
        Info {
            reward: Parts {
                file_diff: self.file_diff,
                file_changes: self.file_changes,
                answer_similarity: self.answer_similarity,
            },
            diff_miss: &self.diff_miss,
            diff_extra: &self.diff_extra,
            diff_same: self.diff_same.as_ref(),
            agent_obs: &self.agent_obs,
            eval_obs: &self.eval_obs,
            answer_similarity: self.similarity,
        }
    }

    /// Upstream's `info` dict: `{"reward": {"file_diff", "file_changes", "answer_similarity"},
    /// "diff_miss", "diff_extra", ["diff_same": {"files", "correct", "total"}], "agent_obs",
    /// "eval_obs", "answer_similarity": sim}`.
    pub fn to_info(&self) -> Map<String, Value> {
        match serde_json::to_value(self.info()) {
            Ok(Value::Object(map)) => map,
            // Serializing plain strings and finite-or-not floats into a Value cannot fail.
            _ => Map::new(),
        }
    }
}

/// Serializes as upstream's `info` layout (see [`BashReward::to_info`]), keeping its key order.
impl Serialize for BashReward {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.info().serialize(serializer)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fs::episode::EpisodeDir;
    use crate::fs::image::{Entry, TreeImage};
    use std::path::PathBuf;

    type LoggedInfo = (PathBuf, Value, Option<f64>);

    #[test]
    fn python_round_semantics() {
        // Expected values printed by CPython 3.11 `round(x, 2)`.
        let cases = [
            (0.125, 0.12),
            (0.375, 0.38),
            (2.675, 2.67),
            (0.165, 0.17), // 0.165 is 0.16500000000000000777...
            (0.33 * 0.5, 0.17),
            (0.005, 0.01),
            (0.015, 0.01),
            (0.025, 0.03),
            (1.005, 1.0),
            (0.33 * 2.0 / 3.0, 0.22),
            (0.33 * 3.0 / 4.0, 0.25),
            (0.335, 0.34),
            (0.345, 0.34),
            (-0.125, -0.12),
        ];
        for (x, want) in cases {
            assert_eq!(round_half_even(x, 2), want, "round({x}, 2)");
        }
        assert!(round_half_even(-0.001, 2).is_sign_negative());
        assert!(round_half_even(f64::NAN, 2).is_nan());
        assert_eq!(round_half_even(0.5, 0), 0.0);
        assert_eq!(round_half_even(1.5, 0), 2.0);
    }

    #[test]
    fn file_diff_values() {
        assert_eq!(file_diff_score(0), 0.33);
        assert_eq!(file_diff_score(1), 0.05);
        assert_eq!(file_diff_score(2), 0.0);
        assert_eq!(file_diff_score(40), 0.0);
        // 0.01 + 0.33 + 0.33 + 0.33 is exactly 1.0 in f64, which success checks rely on.
        assert_eq!(0.01 + 0.33 + 0.33 + 0.33, 1.0);
    }

    #[test]
    fn shlex_words() {
        assert_eq!(shlex_word("a.txt").as_deref(), Some("a.txt"));
        assert_eq!(shlex_word("\"Icon\\r\"").as_deref(), Some("Icon\\r"));
        assert_eq!(shlex_word("\"q\\\"x\"").as_deref(), Some("q\"x"));
        assert_eq!(shlex_word("\"b\\\\s\"").as_deref(), Some("b\\s"));
        assert_eq!(shlex_word("a\\.b").as_deref(), Some("a.b"));
        assert_eq!(shlex_word("'x\\y'").as_deref(), Some("x\\y"));
        assert_eq!(shlex_word("\"\"").as_deref(), Some(""));
        assert_eq!(shlex_word("\"special"), None);
        assert_eq!(shlex_word("a'b"), None);
        assert_eq!(shlex_word("x\\"), None);
    }

    #[test]
    fn scoring_cases() {
        // Nothing changed, same output: full marks.
        let r = score("a b c\n", "a b c\n", "", "", |_| unreachable!());
        assert_eq!(
            (r.file_diff, r.file_changes, r.answer_similarity),
            (0.33, 0.33, 0.33)
        );
        assert_eq!(r.reward, 1.0);
        assert!(r.diff_same.is_none());
        // Empty vocabulary falls back to equality.
        assert_eq!(score("", "", "", "", |_| true).reward, 1.0);
        assert_eq!(score("x", "", "", "", |_| true).reward, 0.67);

        // One extra file on the agent side and a shared new file with different contents.
        let agent = "?? project/new.txt\n?? project/junk.txt\n";
        let gold = "?? project/new.txt\n";
        let r = score("done", "done", agent, gold, |p| p != "project/new.txt");
        assert_eq!(r.diff_extra, [("project/junk.txt".into(), "??".into())]);
        assert!(r.diff_miss.is_empty());
        assert_eq!(r.file_diff, 0.05);
        assert_eq!(r.file_changes, 0.0);
        assert_eq!(
            r.diff_same,
            Some(DiffSame {
                files: vec![("project/new.txt".into(), "??".into())],
                correct: 0,
                total: 1
            })
        );
        assert_eq!(r.reward, 0.01 + 0.05 + 0.0 + 0.33);

        // M and D pairs count for p1 only and are never content-checked.
        let r = score(
            "",
            "",
            " M a.txt\n D b.txt\n",
            " M a.txt\n D b.txt\n",
            |_| panic!("M/D must not be hashed"),
        );
        assert_eq!(r.reward, 1.0);

        // Two of three shared files equal: round(0.33 * 2 / 3, 2) = 0.22.
        let st = "?? a.txt\n?? b.txt\n?? c.txt\n";
        let r = score("", "", st, st, |p| p != "c.txt");
        assert_eq!(r.file_changes, 0.22);
    }

    #[test]
    fn info_layout_matches_upstream() {
        let r = score("x y", "x y", "?? a.txt\n", "?? a.txt\n?? b/\n", |_| true);
        let json = serde_json::to_string(&r).unwrap();
        assert_eq!(
            json,
            r#"{"reward":{"file_diff":0.05,"file_changes":0.33,"answer_similarity":0.33},"diff_miss":[["b/","??"]],"diff_extra":[],"diff_same":{"files":[["a.txt","??"]],"correct":1,"total":1},"agent_obs":"x y","eval_obs":"x y","answer_similarity":1.0}"#
        );
        let info = r.to_info();
        assert_eq!(info["reward"]["file_diff"], 0.05);
        assert_eq!(info["answer_similarity"], 1.0);
        let none = score("", "", "", "", |_| true).to_info();
        assert!(!none.contains_key("diff_same"));
    }

    #[test]
    fn content_check_between_two_episode_dirs() {
        let mut img = TreeImage::empty();
        img.insert("p/same.txt", Entry::file(b"s".to_vec(), 0o644, 0))
            .unwrap();
        img.insert("p/dir.d", Entry::dir(0o755, 0)).unwrap();
        let mut agent_img = img.clone();
        agent_img
            .insert("p/diff.txt", Entry::file(b"agent".to_vec(), 0o644, 0))
            .unwrap();
        agent_img
            .insert("p/only_agent.txt", Entry::file(b"a".to_vec(), 0o644, 0))
            .unwrap();
        let mut gold_img = img;
        gold_img
            .insert("p/diff.txt", Entry::file(b"gold".to_vec(), 0o644, 0))
            .unwrap();
        let agent = EpisodeDir::new(&agent_img).unwrap();
        let gold = EpisodeDir::new(&gold_img).unwrap();
        let mut same = content_check(agent.dir(), gold.dir());
        assert!(same("p/same.txt"));
        assert!(same("/p/same.txt"));
        assert!(!same("p/diff.txt"));
        assert!(!same("p/only_agent.txt"));
        assert!(same("p/missing.txt")); // same error on both sides
        assert!(same("p/dir.d/")); // "Is a directory" on both sides
        assert!(same("p/newdir/")); // no dot: md5deep, never installed
        assert!(same("\"unbalanced.txt"));
    }

    /// Every `info` upstream logged for a bash episode (547 of them in `data/results/bash`):
    /// recompute the similarity from `agent_obs`/`eval_obs`, p3 from it, p1 from the logged
    /// diff lists, p2 from the logged content-check counts, and the total from those parts
    /// (compared with the episode's last logged turn reward).
    #[test]
    fn reproduces_every_logged_upstream_reward_part() {
        let root = PathBuf::from(
            std::env::var("CARGO_MANIFEST_DIR")
                .unwrap_or_else(|_| env!("CARGO_MANIFEST_DIR").to_string()),
        )
        .join("../shared/intercode-upstream/data/results/bash");
        if !root.is_dir() {
            assert!(
                std::env::var("CI").as_deref() != Ok("true"),
                "upstream logs missing at {}",
                root.display()
            );
            println!("skipped: upstream logs not found at {}", root.display());
            return;
        }
        let mut infos = Vec::new();
        let mut stack = vec![root];
        while let Some(dir) = stack.pop() {
            for entry in std::fs::read_dir(&dir).unwrap() {
                let path = entry.unwrap().path();
                if path.is_dir() {
                    stack.push(path);
                } else if path.extension().is_some_and(|e| e == "json") {
                    let text = std::fs::read_to_string(&path).unwrap();
                    let value: Value = serde_json::from_str(&text).unwrap();
                    collect_infos(&value, &path, &mut infos);
                }
            }
        }
        let mut checked_p2 = 0;
        let mut corrupt_gold = 0;
        let mut checked_total = 0;
        for (path, info, total) in &infos {
            let agent_obs = info["agent_obs"].as_str().unwrap();
            let logged_sim = info["answer_similarity"].as_f64().unwrap();
            // Two logged golds crashed (`eval_obs` null, upstream's corrupt_gold); scikit-learn
            // then raised on `None.lower()` and the fallback `agent_obs == None` gave 0.
            let sim = match info["eval_obs"].as_str() {
                Some(eval_obs) => answer_similarity(agent_obs, eval_obs),
                None => {
                    corrupt_gold += 1;
                    0.0
                }
            };
            assert_eq!(
                sim.to_bits(),
                logged_sim.to_bits(),
                "{}: similarity {sim} != logged {logged_sim}",
                path.display()
            );
            let parts = &info["reward"];
            assert_eq!(
                round_half_even(WEIGHT * sim, 2),
                parts["answer_similarity"].as_f64().unwrap()
            );
            let n = info["diff_miss"].as_array().unwrap().len()
                + info["diff_extra"].as_array().unwrap().len();
            assert_eq!(file_diff_score(n), parts["file_diff"].as_f64().unwrap());
            let p2 = match info.get("diff_same") {
                Some(same) => {
                    checked_p2 += 1;
                    let correct = same["correct"].as_u64().unwrap() as f64;
                    let total = same["total"].as_u64().unwrap() as f64;
                    round_half_even(WEIGHT * correct / total, 2)
                }
                None => WEIGHT,
            };
            assert_eq!(p2, parts["file_changes"].as_f64().unwrap());
            if let Some(total) = total {
                // Upstream's float sum, in upstream's order, equals the logged turn reward.
                let sum = 0.01 + file_diff_score(n) + p2 + round_half_even(WEIGHT * sim, 2);
                assert_eq!(sum.to_bits(), total.to_bits(), "{}", path.display());
                checked_total += 1;
            }
        }
        println!(
            "checked {} logged bash infos ({checked_p2} with a content check, {corrupt_gold} \
             with a crashed gold, {checked_total} against the logged total reward)",
            infos.len()
        );
        assert_eq!(checked_total, 547);
        assert_eq!(infos.len(), 547);
        assert_eq!(corrupt_gold, 2);
    }

    /// Collects `(file, info, logged total reward)`; the total is the episode's last turn
    /// reward where the log has one next to the info.
    fn collect_infos(value: &Value, file: &std::path::Path, out: &mut Vec<LoggedInfo>) {
        match value {
            Value::Object(map) => {
                let is_info = |v: &Value| {
                    v.get("agent_obs").is_some() && v.get("answer_similarity").is_some()
                };
                if is_info(value) {
                    out.push((file.to_path_buf(), value.clone(), None));
                    return;
                }
                let last_reward = map
                    .get("turn_history")
                    .and_then(|t| t.get("rewards"))
                    .and_then(Value::as_array)
                    .and_then(|r| r.last())
                    .and_then(Value::as_f64);
                for (key, v) in map {
                    if key == "info" && is_info(v) {
                        out.push((file.to_path_buf(), v.clone(), last_reward));
                    } else {
                        collect_infos(v, file, out);
                    }
                }
            }
            Value::Array(items) => {
                for v in items {
                    collect_infos(v, file, out);
                }
            }
            _ => {}
        }
    }
}
