//! The episode state machine every env shares. An env implements [`Backend`] — how to start a
//! task, run one action, and score the current state — and [`Episodes`] turns it into an
//! [`Env`]: it parses the `submit` / `skip` keywords, keeps the last observation (what `submit`
//! returns, as upstream), refuses steps before `reset` or after the end, records the turns, and
//! shapes every [`Step`] the same way, so the three envs cannot drift apart.
//!
//! ```
//! use intercode::env::{Env, sql::SqlEnv};
//! let mut env = SqlEnv::new(intercode::data::spider::fixtures()?, Default::default())?;
//! assert!(env.step("SELECT 1").is_err()); // no episode yet
//! env.reset(0)?;
//! let gold = env.gold()?;
//! env.step(&gold)?;
//! assert_eq!(env.evaluate()?.reward, 1.0); // scored, still running
//! assert_eq!(env.step("submit")?.reward, 1.0); // scored and over
//! assert!(env.step("SELECT 1").is_err());
//! # Ok::<(), intercode::Error>(())
//! ```

use super::{Checkpoint, DryRun, Env, EnvKind, Evaluation, Keyword, Reset, Step, TaskInfo};
use crate::data::trajectory::TurnRecord;
use crate::{Error, Result};
use serde_json::{Map, Value};
use std::any::Any;
use std::sync::Arc;
use std::time::Duration;

/// What one executed action gave.
#[derive(Debug, Clone, Default)]
pub struct Executed {
    pub observation: String,
    pub action_executed: bool,
    pub exit_status: Option<i32>,
    /// Env-specific details (SQL rows, Python output/error, interruptions).
    pub info: Map<String, Value>,
}

/// What an env does; [`Episodes`] does the rest.
pub trait Backend: Send {
    const KIND: EnvKind;
    fn task_count(&self) -> usize;
    fn task(&self, index: usize) -> Result<TaskInfo>;
    /// Fresh state for task `index` (the index is checked already). Returns the observation the
    /// episode starts with: the query for bash and Python; `None` for SQL, whose upstream reset
    /// ends with `use <db>`.
    fn begin(&mut self, index: usize) -> Result<String>;
    /// Runs one action of the running episode.
    fn execute(&mut self, action: &str) -> Result<Executed>;
    /// Scores the running episode. `last_observation` is what the last action showed (the
    /// start observation before any); `submitted` the name given to `submit` (Python);
    /// `ending` tells whether this is the final `submit` (the backend may then reuse the
    /// episode's state destructively) or an `evaluate`, which must leave it as it was.
    fn score(
        &mut self,
        submitted: Option<&str>,
        last_observation: &str,
        ending: bool,
    ) -> Result<Evaluation>;
    /// A copy of the running episode's state, when the env can make one cheaply (the bash
    /// tree); `None` (the default): rolling back replays the actions instead.
    fn save(&mut self) -> Result<Option<Arc<dyn Any + Send + Sync>>> {
        Ok(None)
    }
    /// Puts back a copy made by [`Backend::save`] in this episode.
    fn load(&mut self, saved: &(dyn Any + Send + Sync)) -> Result<()> {
        let _ = saved;
        Err(Error::Other("this env makes no copies".into()))
    }
    /// See [`Env::dry_run`].
    fn dry_run(&mut self, action: &str) -> Result<Option<DryRun>> {
        let _ = action;
        Ok(None)
    }
    /// See [`Env::is_complete`]; one line is one action unless the env says otherwise.
    fn is_complete(&mut self, source: &str) -> Result<bool> {
        let _ = source;
        Ok(true)
    }
    /// See [`Env::action_timeout`].
    fn action_timeout(&self) -> Duration;
    /// See [`Env::set_action_timeout`]; `timeout` is positive.
    fn set_action_timeout(&mut self, timeout: Duration);
}

#[derive(Debug)]
struct EpisodeState {
    index: usize,
    last_observation: String,
    turns: Vec<TurnRecord>,
    done: bool,
}

/// An env: a [`Backend`] and the episode it is running. Derefs to the backend for its
/// env-specific accessors (the bash tree, the SQL result rows, the Python runtime).
pub struct Episodes<B> {
    backend: B,
    state: Option<EpisodeState>,
}

impl<B: Backend> Episodes<B> {
    pub fn from_backend(backend: B) -> Episodes<B> {
        Episodes {
            backend,
            state: None,
        }
    }

    pub fn backend(&self) -> &B {
        &self.backend
    }

    pub fn backend_mut(&mut self) -> &mut B {
        &mut self.backend
    }

    /// The running episode, or why there is none.
    fn live(&mut self) -> Result<&mut EpisodeState> {
        match self.state.as_mut() {
            None => Err(Error::NoEpisode),
            Some(s) if s.done => Err(Error::EpisodeOver),
            Some(s) => Ok(s),
        }
    }

    fn execute(&mut self, action: &str) -> Result<Step> {
        self.live()?;
        let ran = self.backend.execute(action)?;
        let state = self.live()?;
        state.last_observation.clone_from(&ran.observation);
        let mut turn = TurnRecord::new(action, &ran.observation, ran.exit_status);
        turn.action_executed = ran.action_executed;
        state.turns.push(turn);
        Ok(Step {
            observation: ran.observation,
            reward: 0.0,
            done: false,
            action_executed: ran.action_executed,
            exit_status: ran.exit_status,
            info: ran.info,
        })
    }
}

impl<B> std::ops::Deref for Episodes<B> {
    type Target = B;
    fn deref(&self) -> &B {
        &self.backend
    }
}

impl<B> std::ops::DerefMut for Episodes<B> {
    fn deref_mut(&mut self) -> &mut B {
        &mut self.backend
    }
}

impl<B: Backend> Env for Episodes<B> {
    fn kind(&self) -> EnvKind {
        B::KIND
    }

    fn task_count(&self) -> usize {
        self.backend.task_count()
    }

    fn task(&self, index: usize) -> Result<TaskInfo> {
        self.backend.task(index)
    }

    fn reset(&mut self, index: usize) -> Result<Reset> {
        let query = self.backend.task(index)?.query;
        // The old episode's state goes first, whatever happens next.
        self.state = None;
        let start = self.backend.begin(index)?;
        self.state = Some(EpisodeState {
            index,
            last_observation: start,
            turns: Vec::new(),
            done: false,
        });
        Ok(Reset { index, query })
    }

    fn step(&mut self, action: &str) -> Result<Step> {
        self.live()?;
        match Keyword::parse(action) {
            Some(Keyword::Skip) => self.skip(),
            Some(Keyword::Submit(name)) => self.submit_named(name.as_deref()),
            None => self.execute(action),
        }
    }

    fn evaluate(&mut self) -> Result<Evaluation> {
        let last = self.live()?.last_observation.clone();
        self.backend.score(None, &last, false)
    }

    fn submit_named(&mut self, name: Option<&str>) -> Result<Step> {
        let last = self.live()?.last_observation.clone();
        let scored = self.backend.score(name, &last, true)?;
        let state = self.live()?;
        state.done = true;
        let action = match name {
            Some(n) => format!("submit {n}"),
            None => "submit".to_string(),
        };
        state.turns.push(TurnRecord::new(&action, "", None));
        Ok(Step {
            // Upstream returns the previous observation with the score.
            observation: last,
            reward: scored.reward,
            done: true,
            action_executed: true,
            exit_status: None,
            info: scored.info,
        })
    }

    fn skip(&mut self) -> Result<Step> {
        let state = self.live()?;
        state.done = true;
        state.turns.push(TurnRecord::new("skip", "skipped", None));
        Ok(Step {
            observation: "skipped".into(),
            reward: 0.0,
            done: true,
            action_executed: true,
            exit_status: None,
            info: Map::new(),
        })
    }

    fn turns(&self) -> &[TurnRecord] {
        self.state.as_ref().map_or(&[], |s| s.turns.as_slice())
    }

    fn checkpoint(&mut self) -> Result<Checkpoint> {
        let state = self.live()?;
        let (index, turns, last_observation) = (
            state.index,
            state.turns.len(),
            state.last_observation.clone(),
        );
        Ok(Checkpoint {
            index,
            turns,
            last_observation,
            saved: self.backend.save()?,
        })
    }

    fn rollback(&mut self, checkpoint: &Checkpoint) -> Result<()> {
        let state = self.live()?;
        if state.index != checkpoint.index || state.turns.len() < checkpoint.turns {
            return Err(Error::InvalidSpec(
                "that checkpoint belongs to another episode or a later turn".into(),
            ));
        }
        let kept: Vec<TurnRecord> = state.turns[..checkpoint.turns].to_vec();
        match &checkpoint.saved {
            Some(saved) => self.backend.load(saved.as_ref())?,
            None => {
                // Rebuild by replaying: a fresh episode of the same task, then every kept
                // action again (outcomes are deterministic: pinned seeds and clock).
                self.backend.begin(checkpoint.index)?;
                for turn in &kept {
                    self.backend.execute(&turn.action)?;
                }
            }
        }
        let state = self.live()?;
        state.turns = kept;
        state
            .last_observation
            .clone_from(&checkpoint.last_observation);
        Ok(())
    }

    fn dry_run(&mut self, action: &str) -> Result<Option<DryRun>> {
        self.live()?;
        if Keyword::parse(action).is_some() {
            return Ok(None);
        }
        self.backend.dry_run(action)
    }

    fn current_index(&self) -> Option<usize> {
        self.state.as_ref().map(|s| s.index)
    }

    fn is_done(&self) -> bool {
        self.state.as_ref().is_some_and(|s| s.done)
    }

    fn is_complete(&mut self, source: &str) -> Result<bool> {
        if Keyword::parse(source).is_some() {
            return Ok(true);
        }
        self.backend.is_complete(source)
    }

    fn action_timeout(&self) -> Duration {
        self.backend.action_timeout()
    }

    fn set_action_timeout(&mut self, timeout: Duration) -> Result<()> {
        if timeout.is_zero() {
            return Err(Error::InvalidSpec(
                "an action's time limit must be positive".into(),
            ));
        }
        self.backend.set_action_timeout(timeout);
        Ok(())
    }
}
