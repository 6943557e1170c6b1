//! A small harness so tests read like the episode they describe:
//! `TestEpisode::fixture(0).step("ls /").observes("project").exit(0)`.

use intercode::env::bash::{BashEnv, BashOptions};
use intercode::env::{Env, Step};
use std::path::PathBuf;

pub struct TestEpisode {
    pub env: BashEnv,
    last: Option<Step>,
}

impl TestEpisode {
    /// An episode on task `index` of the embedded fixtures.
    pub fn fixture(index: usize) -> TestEpisode {
        TestEpisode::with_options(index, BashOptions::default())
    }

    pub fn with_options(index: usize, options: BashOptions) -> TestEpisode {
        let set = intercode::data::fixtures::bash_tasks().expect("fixtures load");
        let mut env = BashEnv::new(set, options).expect("bash env");
        env.reset(index).expect("reset");
        TestEpisode { env, last: None }
    }

    pub fn step(&mut self, action: &str) -> &mut Self {
        let step = self.env.step(action).expect("step");
        self.last = Some(step);
        self
    }

    pub fn last(&self) -> &Step {
        self.last.as_ref().expect("no step yet")
    }

    pub fn output(&self) -> &str {
        &self.last.as_ref().expect("no step yet").observation
    }

    /// Asserts the exact observation.
    pub fn observes(&mut self, expected: &str) -> &mut Self {
        assert_eq!(self.output(), expected, "observation differs");
        self
    }

    pub fn observes_containing(&mut self, needle: &str) -> &mut Self {
        assert!(
            self.output().contains(needle),
            "observation does not contain {needle:?}:\n{}",
            self.output()
        );
        self
    }

    pub fn exit(&mut self, code: i64) -> &mut Self {
        let step = self.last.as_ref().expect("no step yet");
        assert_eq!(
            step.exit_status.map(i64::from),
            Some(code),
            "exit status; observation was:\n{}",
            step.observation
        );
        self
    }

    pub fn submit(&mut self) -> Step {
        self.env.submit().expect("submit")
    }
}

/// The checkout being tested. Read at run time (cargo sets it for test binaries): the
/// compile-time value can name another checkout when several share one target directory.
pub fn manifest_dir() -> PathBuf {
    std::env::var_os("CARGO_MANIFEST_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")))
}

/// `../shared` beside the checkout: required under CI, optional elsewhere.
pub fn shared_dir() -> Option<PathBuf> {
    let dir = manifest_dir().join("../shared");
    if dir.is_dir() {
        return Some(dir);
    }
    if std::env::var("CI").as_deref() == Ok("true") {
        panic!("../shared is missing, and CI=true: the data tests must run in CI");
    }
    eprintln!("note: ../shared is missing; skipping a test that needs it");
    None
}
