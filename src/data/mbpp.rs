//! InterCode-Python task sets: MBPP (Mostly Basic Python Problems) in upstream's shape, and our
//! own embedded fixtures.
//!
//! A [`PythonTask`] is upstream's record (`ic_mbpp.json`): the query, the gold solution, the
//! assert-statement tests, the MBPP `task_id` and `test_setup_code`. Three file shapes load into
//! it ([`load`] picks by content):
//!
//! * upstream's `ic_mbpp.json` (a JSON array of task records), read unchanged;
//! * the original `mbpp.jsonl` (one object per line: `text`, `code`, `test_list`,
//!   `challenge_test_list`, `task_id`, `test_setup_code`), mapped the way upstream built its
//!   file: tests are `test_list + challenge_test_list`;
//! * `sanitized-mbpp.json` (`prompt`, `code`, `test_imports`, `test_list`), whose
//!   `test_imports` become the test setup code.
//!
//! [`fixtures`] is the default task set: tasks written for this project
//! (`fixtures/python/tasks.json`, same shape as upstream's).
//!
//! ```
//! let set = intercode::data::mbpp::fixtures()?;
//! assert!(set.tasks.len() >= 20);
//! assert_eq!(set.tasks[0].tested_function(), Some("sum_of_squares"));
//! # Ok::<(), intercode::Error>(())
//! ```

use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::{Error, Result};

/// Upstream's task file, relative to the shared data folder.
pub const IC_MBPP: &str = "intercode-upstream/data/python/mbpp/ic_mbpp.json";
/// The original MBPP release, relative to the shared data folder.
pub const MBPP_JSONL: &str = "datasets/mbpp/mbpp.jsonl";
/// The hand-verified MBPP subset, relative to the shared data folder.
pub const SANITIZED_MBPP: &str = "datasets/mbpp/sanitized-mbpp.json";

const FIXTURES_JSON: &str = include_str!("../../fixtures/python/tasks.json");

/// One InterCode-Python task, as upstream's `ic_mbpp.json` records it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PythonTask {
    pub query: String,
    /// The reference solution (MBPP golds use `\r\n` line endings and tabs).
    pub gold: String,
    /// Statements (MBPP: `assert ...`) run against the submitted function.
    pub tests: Vec<String>,
    #[serde(default)]
    pub task_id: Option<u64>,
    #[serde(default)]
    pub test_setup_code: String,
}

impl PythonTask {
    /// The name of the function the tests call, as upstream found it: the first match of
    /// `def (\w+)\(` in the gold. Six MBPP golds write `def name (args)`, where upstream's
    /// regex found nothing and its reward crashed; for those the first `def` with blanks
    /// around the name is taken ([`first_def`]).
    pub fn tested_function(&self) -> Option<&str> {
        tested_function(&self.gold)
    }
}

/// See [`PythonTask::tested_function`].
pub fn tested_function(gold: &str) -> Option<&str> {
    static UPSTREAM: std::sync::OnceLock<regex::Regex> = std::sync::OnceLock::new();
    let re = UPSTREAM.get_or_init(|| regex::Regex::new(r"def (\w+)\(").expect("valid regex"));
    match re.captures(gold) {
        Some(c) => c.get(1).map(|m| m.as_str()),
        None => first_def(gold),
    }
}

/// The name of the first function definition in `source`, with any blanks between `def`, the
/// name and the parenthesis.
pub fn first_def(source: &str) -> Option<&str> {
    let mut rest = source;
    while let Some(at) = rest.find("def") {
        let before_ok = at == 0
            || !rest[..at]
                .chars()
                .next_back()
                .is_some_and(|c| c.is_alphanumeric() || c == '_');
        let after = &rest[at + 3..];
        let name_start = after.trim_start_matches([' ', '\t']);
        if before_ok && name_start.len() < after.len() {
            let len = name_start
                .find(|c: char| !(c.is_alphanumeric() || c == '_'))
                .unwrap_or(name_start.len());
            let name = &name_start[..len];
            let tail = name_start[len..].trim_start_matches([' ', '\t']);
            if !name.is_empty()
                && !name.starts_with(|c: char| c.is_ascii_digit())
                && tail.starts_with('(')
            {
                return Some(name);
            }
        }
        rest = &rest[at + 3..];
    }
    None
}

/// A named list of tasks.
#[derive(Debug, Clone)]
pub struct PythonTaskSet {
    pub name: String,
    pub tasks: Vec<PythonTask>,
}

/// The embedded default task set, named `fixtures`.
pub fn fixtures() -> Result<PythonTaskSet> {
    Ok(PythonTaskSet {
        name: "fixtures".into(),
        tasks: parse_ic(FIXTURES_JSON, Path::new("fixtures/python/tasks.json"))?,
    })
}

/// Loads any of the three MBPP shapes (see the module docs), named after the file.
pub fn load(path: &Path) -> Result<PythonTaskSet> {
    #[allow(clippy::disallowed_methods)]
    let text = std::fs::read_to_string(path).map_err(|e| Error::io(path, e))?;
    let name = path
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| "mbpp".into());
    let trimmed = text.trim_start();
    let tasks = if trimmed.starts_with('[') {
        let values: Vec<serde_json::Value> =
            serde_json::from_str(&text).map_err(|e| bad(path, e))?;
        if values.first().is_some_and(|v| v.get("prompt").is_some()) {
            parse_sanitized(&text, path)?
        } else {
            parse_ic(&text, path)?
        }
    } else {
        parse_jsonl(&text, path)?
    };
    Ok(PythonTaskSet { name, tasks })
}

fn bad(path: &Path, e: impl std::fmt::Display) -> Error {
    Error::TaskFile {
        path: path.to_path_buf(),
        reason: e.to_string(),
    }
}

fn check(tasks: &[PythonTask], path: &Path) -> Result<()> {
    for (i, t) in tasks.iter().enumerate() {
        if t.tests.is_empty() {
            return Err(bad(path, format!("task {i} has no tests")));
        }
    }
    Ok(())
}

/// Upstream's shape: a JSON array of [`PythonTask`].
pub fn parse_ic(text: &str, path: &Path) -> Result<Vec<PythonTask>> {
    let tasks: Vec<PythonTask> = serde_json::from_str(text).map_err(|e| bad(path, e))?;
    check(&tasks, path)?;
    Ok(tasks)
}

#[derive(Deserialize)]
struct MbppLine {
    text: String,
    code: String,
    task_id: u64,
    #[serde(default)]
    test_setup_code: String,
    test_list: Vec<String>,
    #[serde(default)]
    challenge_test_list: Vec<String>,
}

/// The original `mbpp.jsonl`.
pub fn parse_jsonl(text: &str, path: &Path) -> Result<Vec<PythonTask>> {
    let mut tasks = Vec::new();
    for (n, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let m: MbppLine =
            serde_json::from_str(line).map_err(|e| bad(path, format!("line {}: {e}", n + 1)))?;
        let mut tests = m.test_list;
        tests.extend(m.challenge_test_list);
        tasks.push(PythonTask {
            query: m.text,
            gold: m.code,
            tests,
            task_id: Some(m.task_id),
            test_setup_code: m.test_setup_code,
        });
    }
    check(&tasks, path)?;
    Ok(tasks)
}

#[derive(Deserialize)]
struct SanitizedTask {
    prompt: String,
    code: String,
    task_id: u64,
    #[serde(default)]
    test_imports: Vec<String>,
    test_list: Vec<String>,
}

/// `sanitized-mbpp.json`.
pub fn parse_sanitized(text: &str, path: &Path) -> Result<Vec<PythonTask>> {
    let raw: Vec<SanitizedTask> = serde_json::from_str(text).map_err(|e| bad(path, e))?;
    let tasks: Vec<PythonTask> = raw
        .into_iter()
        .map(|t| PythonTask {
            query: t.prompt,
            gold: t.code,
            tests: t.test_list,
            task_id: Some(t.task_id),
            test_setup_code: t.test_imports.join("\n"),
        })
        .collect();
    check(&tasks, path)?;
    Ok(tasks)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tested_function_is_upstreams_then_spaced_defs() {
        // Upstream's regex wins where it matches, even past a spaced helper (MBPP task 6).
        assert_eq!(
            tested_function("def is_Power (x):\n  pass\ndef differ(a,b):\n  pass"),
            Some("differ")
        );
        assert_eq!(
            tested_function("def count_Pairs (arr,n): \r\n"),
            Some("count_Pairs")
        );
        assert_eq!(
            tested_function("def helper(x): pass\ndef main(y): pass"),
            Some("helper")
        );
        assert_eq!(tested_function("x = 1"), None);
    }

    #[test]
    fn first_def_accepts_upstreams_misses() {
        assert_eq!(first_def("def f(x): return x"), Some("f"));
        assert_eq!(
            first_def("R = 3\r\ndef min_cost(cost, m, n): \r\n"),
            Some("min_cost")
        );
        assert_eq!(
            first_def("def count_Pairs (arr,n): \r\n"),
            Some("count_Pairs")
        );
        assert_eq!(first_def("def\tg\t(a):"), Some("g"));
        assert_eq!(first_def("undefined = 1\ndef h():"), Some("h"));
        assert_eq!(first_def("class A:\n  def m(self): pass"), Some("m"));
        assert_eq!(first_def("x = 'no function'"), None);
        assert_eq!(first_def("define(3)"), None);
    }

    #[test]
    fn fixture_tasks_are_well_formed() {
        let set = fixtures().unwrap();
        assert!(set.tasks.len() >= 20, "{}", set.tasks.len());
        for (i, t) in set.tasks.iter().enumerate() {
            assert!(
                t.tested_function().is_some(),
                "task {i}: no def in the gold"
            );
            assert!(!t.query.trim().is_empty(), "task {i}: empty query");
            // Each test calls a function of the gold (not always the tested name: one fixture
            // defines a helper first, as 40 MBPP golds do).
            let defs: Vec<&str> = t
                .gold
                .split("def ")
                .skip(1)
                .filter_map(|rest| rest.split(['(', ' ']).next())
                .collect();
            for test in &t.tests {
                assert!(test.starts_with("assert "), "task {i}: {test}");
                assert!(
                    defs.iter().any(|d| test.contains(d)),
                    "task {i}: {test} calls none of {defs:?}"
                );
            }
        }
    }

    #[test]
    fn parses_the_three_shapes() {
        let jsonl = r#"{"text": "q", "code": "def f():\r\n\treturn 1", "task_id": 7, "test_setup_code": "", "test_list": ["assert f() == 1"], "challenge_test_list": ["assert f() != 2"]}"#;
        let t = parse_jsonl(jsonl, Path::new("x.jsonl")).unwrap();
        assert_eq!(t[0].tests, ["assert f() == 1", "assert f() != 2"]);
        assert_eq!(t[0].task_id, Some(7));
        let sanitized = r#"[{"source_file": "s", "task_id": 2, "prompt": "p", "code": "def g(): pass", "test_imports": ["import math"], "test_list": ["assert g() is None"]}]"#;
        let t = parse_sanitized(sanitized, Path::new("s.json")).unwrap();
        assert_eq!(t[0].test_setup_code, "import math");
        assert!(
            parse_ic(
                r#"[{"query": "q", "gold": "g", "tests": []}]"#,
                Path::new("e")
            )
            .is_err()
        );
    }
}
