//! InterCode-Python's MBPP reward (upstream `get_reward_mbpp`, UPSTREAM-BEHAVIOUR §4).
//!
//! At `submit <name>` upstream binds the gold's tested function name to the agent's function
//! (`f"{tested} = {name}"` in the agent's namespace), runs the test setup code and every test
//! there, then runs the setup code, the gold and the tests in a fresh namespace, and scores the
//! **share of tests whose result (output, error) equals the gold's**: agreement with the gold's
//! behaviour, not passing. This module holds that scoring; the Python env runs the code.
//!
//! Deliberate differences from upstream (all documented in `env::python`):
//! * the tested name is upstream's (the first match of `def (\w+)\(` in the gold), and for the
//!   six golds written `def name (args)`, where upstream's regex found nothing and its reward
//!   crashed, the first `def` ([`crate::data::mbpp::tested_function`]);
//! * the gold runs before its test setup code, so setup code that builds objects of the gold's
//!   classes works (upstream's order made the golds of MBPP 367 and 927 fail their own tests);
//! * `pass_rate`, the share of tests that ran without an exception in the agent's namespace,
//!   is reported beside the reward;
//! * `submit` without a name is accepted: the agent's function is taken to carry the tested name.
//!
//! ```
//! use intercode::reward::python::{score, TestResult};
//! let pass = TestResult::passed("");
//! let fail = TestResult::failed("", "AssertionError");
//! let tests = vec!["assert f(1) == 1".to_string(), "assert f(2) == 4".to_string()];
//! let r = score(&tests, Some("f"), &[pass.clone(), fail.clone()], &[pass.clone(), pass]);
//! assert_eq!((r.reward, r.pass_rate), (0.5, 0.5));
//! ```

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// What one test statement did: upstream's `{"output", "error"}` pair (both stripped), and
/// whether it ran without an exception.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TestResult {
    pub output: String,
    pub error: String,
    pub passed: bool,
}

impl TestResult {
    pub fn passed(output: &str) -> TestResult {
        TestResult {
            output: output.trim().to_string(),
            error: String::new(),
            passed: true,
        }
    }

    pub fn failed(output: &str, error: &str) -> TestResult {
        TestResult {
            output: output.trim().to_string(),
            error: error.trim().to_string(),
            passed: false,
        }
    }

    /// Upstream's comparison: the (output, error) pair.
    pub fn same_behaviour(&self, other: &TestResult) -> bool {
        self.output == other.output && self.error == other.error
    }

    fn to_value(&self) -> Value {
        serde_json::json!({ "output": self.output, "error": self.error })
    }
}

/// The scored episode.
#[derive(Debug, Clone, PartialEq)]
pub struct PythonReward {
    /// Share of tests whose result equals the gold's (upstream's reward).
    pub reward: f64,
    /// Share of tests that ran without an exception for the agent.
    pub pass_rate: f64,
    /// The name given to `submit` (or the tested name when none was given).
    pub submitted_function: Option<String>,
    pub tests: Vec<String>,
    pub agent: Vec<TestResult>,
    pub gold: Vec<TestResult>,
}

/// Scores one episode; `agent[i]` and `gold[i]` are the results of `tests[i]`.
pub fn score(
    tests: &[String],
    submitted_function: Option<&str>,
    agent: &[TestResult],
    gold: &[TestResult],
) -> PythonReward {
    assert_eq!(tests.len(), agent.len(), "one agent result per test");
    assert_eq!(tests.len(), gold.len(), "one gold result per test");
    let n = tests.len().max(1) as f64;
    let same = agent
        .iter()
        .zip(gold)
        .filter(|(a, g)| a.same_behaviour(g))
        .count();
    let passed = agent.iter().filter(|a| a.passed).count();
    PythonReward {
        reward: same as f64 / n,
        pass_rate: passed as f64 / n,
        submitted_function: submitted_function.map(str::to_string),
        tests: tests.to_vec(),
        agent: agent.to_vec(),
        gold: gold.to_vec(),
    }
}

impl PythonReward {
    /// Upstream's info keys (`submitted_function`, `agent_obs`, `eval_obs`, `reward`) plus
    /// `pass_rate`, `tests_passed`, `tests_total` and `gold_pass_rate`.
    pub fn to_info(&self) -> Map<String, Value> {
        let obs = |results: &[TestResult]| {
            let mut m = Map::new();
            for (t, r) in self.tests.iter().zip(results) {
                m.insert(t.clone(), r.to_value());
            }
            Value::Object(m)
        };
        let mut info = Map::new();
        info.insert(
            "submitted_function".into(),
            self.submitted_function
                .clone()
                .map_or(Value::Null, Value::String),
        );
        info.insert("agent_obs".into(), obs(&self.agent));
        info.insert("eval_obs".into(), obs(&self.gold));
        info.insert("reward".into(), self.reward.into());
        info.insert("pass_rate".into(), self.pass_rate.into());
        info.insert(
            "tests_passed".into(),
            self.agent.iter().filter(|a| a.passed).count().into(),
        );
        info.insert("tests_total".into(), self.tests.len().into());
        let gold_passed = self.gold.iter().filter(|g| g.passed).count();
        info.insert(
            "gold_pass_rate".into(),
            (gold_passed as f64 / self.tests.len().max(1) as f64).into(),
        );
        info
    }
}

/// The statement that binds the tested name to the submitted one (upstream:
/// `f"{func_name_ref} = {func_name}"`), or `None` when no aliasing is needed or possible.
/// Only plain identifiers are accepted; upstream executed whatever followed `submit`.
pub fn alias_statement(tested: Option<&str>, submitted: Option<&str>) -> Option<String> {
    let (tested, submitted) = (tested?, submitted?);
    if tested == submitted || !is_identifier(submitted) || !is_identifier(tested) {
        return None;
    }
    Some(format!("{tested} = {submitted}"))
}

/// A Python identifier (ASCII letters, digits, underscores and any non-ASCII letter; not
/// starting with a digit). Keywords are not rejected: binding to one fails at run time.
pub fn is_identifier(s: &str) -> bool {
    let mut chars = s.chars();
    matches!(chars.next(), Some(c) if c == '_' || c.is_alphabetic())
        && chars.all(|c| c == '_' || c.is_alphanumeric())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tests(n: usize) -> Vec<String> {
        (0..n).map(|i| format!("assert f({i})")).collect()
    }

    #[test]
    fn reward_is_agreement_with_the_gold_not_passing() {
        let fail = TestResult::failed("", "AssertionError");
        let ok = TestResult::passed("");
        // The gold fails a test too: an agent failing it the same way agrees.
        let r = score(
            &tests(3),
            Some("g"),
            &[ok.clone(), fail.clone(), fail.clone()],
            &[ok.clone(), fail.clone(), ok.clone()],
        );
        assert!((r.reward - 2.0 / 3.0).abs() < 1e-12);
        assert!((r.pass_rate - 1.0 / 3.0).abs() < 1e-12);
        // Output is part of the comparison.
        let r = score(
            &tests(1),
            None,
            &[TestResult::passed("1\n")],
            &[TestResult::passed("2")],
        );
        assert_eq!(r.reward, 0.0);
        assert_eq!(r.pass_rate, 1.0);
    }

    #[test]
    fn info_has_upstreams_keys() {
        let ok = TestResult::passed("");
        let info = score(
            &tests(2),
            Some("mine"),
            &[ok.clone(), ok.clone()],
            &[ok.clone(), ok],
        )
        .to_info();
        for key in [
            "submitted_function",
            "agent_obs",
            "eval_obs",
            "reward",
            "pass_rate",
        ] {
            assert!(info.contains_key(key), "{key}");
        }
        assert_eq!(info["agent_obs"]["assert f(1)"]["error"], "");
        assert_eq!(info["submitted_function"], "mine");
    }

    #[test]
    fn alias_only_for_identifiers() {
        assert_eq!(
            alias_statement(Some("min_cost"), Some("solve")),
            Some("min_cost = solve".into())
        );
        assert_eq!(alias_statement(Some("f"), Some("f")), None);
        assert_eq!(alias_statement(None, Some("f")), None);
        assert_eq!(alias_statement(Some("f"), Some("os.system('x')")), None);
        assert_eq!(alias_statement(Some("f"), Some("2x")), None);
        assert!(is_identifier("_x1") && is_identifier("número") && !is_identifier(""));
    }
}
