//! The episode table: every open episode of the server (gym envs and MCP episodes alike) under
//! an id, with its checkpoints.
//!
//! * **Concurrency** — one async mutex per episode: requests on the same episode queue up in
//!   order, requests on different episodes run side by side. The sandbox work itself (building
//!   an env, an action, scoring, a rollback, dropping an env and its directories) is blocking,
//!   so it runs on tokio's blocking pool ([`tokio::task::spawn_blocking`]) and never stalls the
//!   executor that answers other requests.
//! * **Bounds** — at most [`Limits::max_episodes`] open at once, no new episode while the
//!   process's resident memory is over [`Limits::max_memory_mib`], and an episode idle for
//!   [`Limits::idle_timeout`] is closed by a reaper task: clients that vanish without `close`
//!   must not pile up sandboxes. The undo history is bounded too ([`Limits::undo_depth`]).
//! * **Free sandboxes** — an MCP episode opened without a task index runs task 0 of its task
//!   set (the bash tree, the SQL databases, a fresh interpreter) but never shows that task's
//!   query or gold, and refuses `evaluate`/`submit`: there is nothing to score.

use super::ServerError;
use crate::env::{Checkpoint, Env, EnvKind, EnvSpec, Evaluation, Keyword, Step};
use crate::harness::guard::{GuardOptions, GuardedEnv};
use serde::Serialize;
use std::collections::{HashMap, VecDeque};
use std::hash::{BuildHasher, Hasher};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex as StdMutex};
use std::time::{Duration, Instant};
use tokio::sync::Mutex;

type Result<T, E = ServerError> = std::result::Result<T, E>;

/// How much the server lets its clients hold.
#[derive(Debug, Clone, PartialEq)]
pub struct Limits {
    /// Episodes open at once; opening one more is refused until one is closed or expires.
    pub max_episodes: usize,
    /// An episode nobody used for this long is closed.
    pub idle_timeout: Duration,
    /// No new episode while the server's resident memory is above this many MiB.
    pub max_memory_mib: Option<u64>,
    /// Automatic undo points kept per episode (the oldest are dropped first). A bash undo
    /// point is an in-memory copy of the episode's tree (a few KiB for upstream's trees, but
    /// an agent may write up to the episode's disk limit), so this bounds memory per episode;
    /// over `max_memory_mib`, episodes keep only their latest undo point.
    pub undo_depth: usize,
    /// Named checkpoints kept per episode.
    pub max_checkpoints: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            // The load test runs 64 at once; twice that leaves room for other clients.
            max_episodes: 128,
            idle_timeout: Duration::from_secs(30 * 60),
            max_memory_mib: None,
            undo_depth: 16,
            max_checkpoints: 16,
        }
    }
}

/// An open episode: its env and the server-side state around it.
pub struct Episode {
    env: Box<dyn Env>,
    guarded: bool,
    /// Opened without a task: the task's query, gold and score stay hidden.
    free: bool,
    /// Take an undo point before every action (MCP episodes; the gym API has no undo).
    auto_undo: bool,
    undo: VecDeque<Checkpoint>,
    named: HashMap<String, Checkpoint>,
    undo_depth: usize,
    max_checkpoints: usize,
    max_memory_mib: Option<u64>,
}

/// What opening an episode on a task tells the client.
#[derive(Debug, Clone, Serialize)]
pub struct Started {
    pub task_index: Option<usize>,
    pub query: Option<String>,
    pub task_count: usize,
}

/// What a list of the episode's files or tables holds.
#[derive(Debug, Clone)]
pub enum Listing {
    /// Bash: `ls -la` of the path, as the shell printed it.
    Files {
        path: String,
        text: String,
        exit_status: Option<i32>,
        truncated: bool,
    },
    /// SQL: the tables of the task's database and their columns.
    Tables(Vec<(String, Vec<String>)>),
}

/// A file's contents as `cat` printed them in the sandbox.
#[derive(Debug, Clone)]
pub struct FileText {
    pub content: String,
    pub exit_status: Option<i32>,
    pub truncated: bool,
}

/// Printed after a probe command so its exit status survives the trip through an observation
/// (a dry run reports only what the command printed). Output cut by the sandbox's cap loses
/// it, which is how a probe knows it was truncated.
const PROBE_STATUS: &str = "\n@@intercode-probe-status=";

impl Episode {
    fn new(env: Box<dyn Env>, guarded: bool, limits: &Limits) -> Episode {
        Episode {
            env,
            guarded,
            free: false,
            auto_undo: false,
            undo: VecDeque::new(),
            named: HashMap::new(),
            undo_depth: limits.undo_depth,
            max_checkpoints: limits.max_checkpoints,
            max_memory_mib: limits.max_memory_mib,
        }
    }

    pub fn env(&mut self) -> &mut dyn Env {
        self.env.as_mut()
    }

    pub fn kind(&self) -> EnvKind {
        self.env.kind()
    }

    pub fn guarded(&self) -> bool {
        self.guarded
    }

    pub fn is_free(&self) -> bool {
        self.free
    }

    /// Starts the episode on `task` (MCP `open_episode`), or a free sandbox on task 0 without
    /// showing it. Turns on automatic undo points.
    pub fn start(&mut self, task: Option<usize>) -> Result<Started> {
        let reset = self.env.reset(task.unwrap_or(0))?;
        self.free = task.is_none();
        self.auto_undo = true;
        self.undo.clear();
        self.named.clear();
        Ok(Started {
            task_index: task,
            query: task.map(|_| reset.query),
            task_count: self.env.task_count(),
        })
    }

    /// Gym `reset`: a fresh episode of task `index`, no undo history.
    pub fn reset(&mut self, index: usize) -> Result<crate::env::Reset> {
        let reset = self.env.reset(index)?;
        self.free = false;
        self.undo.clear();
        self.named.clear();
        Ok(reset)
    }

    fn refuse_if_free(&self, what: &str) -> Result<()> {
        if self.free {
            return Err(ServerError::BadRequest(format!(
                "this is a free sandbox (opened without a task): there is nothing to {what}; \
                 close it, or open an episode with a task index"
            )));
        }
        Ok(())
    }

    /// Runs one action (or `submit`/`skip`), first saving an undo point when the episode keeps
    /// them. The point is kept only if the action became a turn: a refusal by the guard
    /// changed nothing, so there is nothing to undo.
    pub fn run(&mut self, action: &str) -> Result<Step> {
        if let Some(Keyword::Submit(_)) = Keyword::parse(action) {
            self.refuse_if_free("submit")?;
        }
        let before = self.env.turns().len();
        let point = if self.auto_undo && !self.env.is_done() && self.env.current_index().is_some() {
            Some(self.env.checkpoint()?)
        } else {
            None
        };
        let step = self.env.step(action)?;
        if let Some(point) = point
            && !step.done
            && self.env.turns().len() > before
        {
            if self.undo.len() >= self.undo_depth {
                self.undo.pop_front();
            }
            self.undo.push_back(point);
            if let Some(limit) = self.max_memory_mib
                && resident_kib().is_some_and(|k| k / 1024 > limit)
            {
                // Over the server's memory limit: older undo points go first.
                self.undo.drain(..self.undo.len() - 1);
            }
        }
        Ok(step)
    }

    pub fn evaluate(&mut self) -> Result<Evaluation> {
        self.refuse_if_free("evaluate")?;
        Ok(self.env.evaluate()?)
    }

    /// Ends the episode and scores it, unless the guard's critic vetoes (then `done` is false
    /// and the episode goes on).
    pub fn submit(&mut self, function_name: Option<&str>) -> Result<Step> {
        self.refuse_if_free("submit")?;
        Ok(self.env.submit_named(function_name)?)
    }

    /// Saves the episode's state under `name` (replacing an older checkpoint of that name).
    pub fn checkpoint(&mut self, name: &str) -> Result<usize> {
        if name.trim().is_empty() {
            return Err(ServerError::BadRequest("a checkpoint needs a name".into()));
        }
        if !self.named.contains_key(name) && self.named.len() >= self.max_checkpoints {
            return Err(ServerError::BadRequest(format!(
                "this episode already has {} named checkpoints, the most it keeps",
                self.max_checkpoints
            )));
        }
        let point = self.env.checkpoint()?;
        let turns = point.turns;
        self.named.insert(name.to_string(), point);
        Ok(turns)
    }

    /// Brings the episode back to before its last action, or to the checkpoint `name`.
    /// Returns the number of actions the episode now has. Undo points and checkpoints made
    /// after the restored point are dropped: they belong to a history that no longer exists.
    pub fn undo(&mut self, name: Option<&str>) -> Result<usize> {
        let point = match name {
            Some(name) => self.named.get(name).cloned().ok_or_else(|| {
                let mut known: Vec<&str> = self.named.keys().map(String::as_str).collect();
                known.sort_unstable();
                ServerError::BadRequest(format!(
                    "no checkpoint named {name:?} in this episode (it has: {})",
                    if known.is_empty() {
                        "none".to_string()
                    } else {
                        known.join(", ")
                    }
                ))
            })?,
            None => self.undo.back().cloned().ok_or_else(|| {
                ServerError::BadRequest(
                    "nothing to undo: no action of this episode is left to take back".into(),
                )
            })?,
        };
        self.env.rollback(&point)?;
        let turns = point.turns;
        self.undo.retain(|p| p.turns < turns);
        self.named.retain(|_, p| p.turns <= turns);
        Ok(turns)
    }

    /// The bash episode's files at `path` (its working directory when `None`), or the SQL
    /// task's tables. Records no turn: bash runs `ls` on a throwaway copy of the episode.
    pub fn list(&mut self, path: Option<&str>) -> Result<Listing> {
        match self.env.kind() {
            EnvKind::Bash => {
                let path = path.unwrap_or(".");
                let (text, exit_status, truncated) =
                    self.probe(&format!("command ls -la -- {}", shell_quote(path)))?;
                Ok(Listing::Files {
                    path: path.to_string(),
                    text,
                    exit_status,
                    truncated,
                })
            }
            EnvKind::Sql => {
                // The task database's schema as the task defines it (what a `SHOW TABLES`
                // would list before the agent changed anything): cheap and turn-free.
                let index = self.env.current_index().ok_or(crate::Error::NoEpisode)?;
                Ok(Listing::Tables(self.env.task(index)?.tables))
            }
            EnvKind::Python => Err(ServerError::BadRequest(
                "a Python episode has no files or tables (its interpreter has no file system): \
                 run `print(dir())` to see the names it holds"
                    .into(),
            )),
        }
    }

    /// A bash episode's file, as `cat` prints it in the sandbox. Records no turn.
    pub fn read_file(&mut self, path: &str) -> Result<FileText> {
        if self.env.kind() != EnvKind::Bash {
            return Err(ServerError::BadRequest(format!(
                "a {} episode has no files to read",
                self.env.kind()
            )));
        }
        let (content, exit_status, truncated) =
            self.probe(&format!("command cat -- {}", shell_quote(path)))?;
        Ok(FileText {
            content,
            exit_status,
            truncated,
        })
    }

    /// Runs `command` on a throwaway copy of the bash episode (the episode and its turns stay
    /// as they were) and returns what it printed, its exit status and whether the output was
    /// cut.
    fn probe(&mut self, command: &str) -> Result<(String, Option<i32>, bool)> {
        // `\n` is printf's own escape; the rest of the marker is plain ASCII.
        let script = format!(
            "{command}; printf '\\n{}%d' \"$?\"",
            PROBE_STATUS.trim_start_matches('\n')
        );
        let dry = self.env.dry_run(&script)?.ok_or_else(|| {
            ServerError::BadRequest("this episode cannot look at files without an action".into())
        })?;
        let out = dry.observation;
        match out.rfind(PROBE_STATUS) {
            Some(at) => {
                let status = out[at + PROBE_STATUS.len()..].trim().parse().ok();
                Ok((out[..at].to_string(), status, false))
            }
            None => Ok((out, None, true)),
        }
    }
}

/// `s` as one single-quoted shell word.
fn shell_quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', r"'\''"))
}

struct Slot {
    episode: Arc<Mutex<Episode>>,
    /// Milliseconds since the table's epoch when the episode was last touched.
    last_used: AtomicU64,
}

/// The open episodes, by id.
pub struct EpisodeTable {
    slots: StdMutex<HashMap<String, Arc<Slot>>>,
    limits: Limits,
    /// How guarded episodes are guarded (with the server's critic, if any).
    guard: GuardOptions,
    /// Every episode is guarded (`--guard`), not only those opened with `guard: true`.
    guard_all: bool,
    epoch: Instant,
    counter: AtomicU64,
    /// Makes ids hard to guess, so one local client cannot stumble into another's episode.
    salt: u64,
}

impl EpisodeTable {
    /// `guard`: how a guarded episode is guarded; `guard_all`: every episode is.
    pub fn new(limits: Limits, guard: GuardOptions, guard_all: bool) -> EpisodeTable {
        EpisodeTable {
            slots: StdMutex::new(HashMap::new()),
            limits,
            guard,
            guard_all,
            epoch: Instant::now(),
            counter: AtomicU64::new(0),
            salt: std::collections::hash_map::RandomState::new()
                .build_hasher()
                .finish(),
        }
    }

    pub fn limits(&self) -> &Limits {
        &self.limits
    }

    /// Whether every episode is guarded.
    pub fn guards_all(&self) -> bool {
        self.guard_all
    }

    /// Open episodes.
    pub fn len(&self) -> usize {
        self.lock_slots().len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    fn lock_slots(&self) -> std::sync::MutexGuard<'_, HashMap<String, Arc<Slot>>> {
        // A panic while holding this lock only ever interrupts a map insert/remove; the map
        // is still valid.
        self.slots
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    fn now_ms(&self) -> u64 {
        u64::try_from(self.epoch.elapsed().as_millis()).unwrap_or(u64::MAX)
    }

    fn next_id(&self) -> String {
        let n = self.counter.fetch_add(1, Ordering::Relaxed);
        let mut h = std::collections::hash_map::DefaultHasher::new();
        h.write_u64(self.salt);
        h.write_u64(n);
        format!("ep-{n}-{:012x}", h.finish() & 0xffff_ffff_ffff)
    }

    fn check_capacity(&self) -> Result<()> {
        let open = self.len();
        if open >= self.limits.max_episodes {
            return Err(ServerError::Capacity(format!(
                "{open} episodes are open, the most this server allows: close one first"
            )));
        }
        if let Some(limit) = self.limits.max_memory_mib
            && let Some(used) = resident_kib().map(|k| k / 1024)
            && used > limit
        {
            return Err(ServerError::Capacity(format!(
                "the server holds {used} MiB, over its limit of {limit} MiB: close episodes first"
            )));
        }
        Ok(())
    }

    /// Builds an env from `spec` (guarded when the server guards everything or `guard` asks)
    /// and files it under a new id. A guarded SQL episode is also opened read-only, so the
    /// database's own authorizer backs up the lint.
    pub async fn open(&self, mut spec: EnvSpec, guard: bool) -> Result<String> {
        self.check_capacity()?;
        // A path the client named that is not there is the client's mistake, not a host
        // failure (the library reports a failed read as an I/O error).
        for (what, path) in [
            ("task file", &spec.tasks),
            ("file tree", &spec.fs),
            ("data directory", &spec.data_dir),
        ] {
            if let Some(path) = path
                && !path.exists()
            {
                return Err(ServerError::BadRequest(format!(
                    "no {what} {} on the server",
                    path.display()
                )));
            }
        }
        let options = (self.guard_all || guard).then(|| self.guard.clone());
        if options.is_some() && spec.env == EnvKind::Sql {
            spec.read_only = true;
        }
        let limits = self.limits.clone();
        let episode = blocking(move || {
            let env = spec.build()?;
            Ok(match options {
                Some(options) => Episode::new(
                    Box::new(GuardedEnv::new(env, options)) as Box<dyn Env>,
                    true,
                    &limits,
                ),
                None => Episode::new(env, false, &limits),
            })
        })
        .await?;
        let id = self.next_id();
        let slot = Arc::new(Slot {
            episode: Arc::new(Mutex::new(episode)),
            last_used: AtomicU64::new(self.now_ms()),
        });
        let refused = {
            let mut slots = self.lock_slots();
            // Checked again: other opens may have finished while this env was being built.
            if slots.len() >= self.limits.max_episodes {
                true
            } else {
                slots.insert(id.clone(), slot.clone());
                false
            }
        };
        if refused {
            drop_blocking(slot);
            return Err(ServerError::Capacity(format!(
                "{} episodes are open, the most this server allows: close one first",
                self.limits.max_episodes
            )));
        }
        tracing::debug!(id, "episode opened");
        Ok(id)
    }

    fn slot(&self, id: &str) -> Result<Arc<Slot>> {
        let slot = self
            .lock_slots()
            .get(id)
            .cloned()
            .ok_or_else(|| ServerError::UnknownEpisode(id.to_string()))?;
        slot.last_used.store(self.now_ms(), Ordering::Relaxed);
        Ok(slot)
    }

    /// Runs `f` on episode `id` on the blocking pool, after the requests on that episode
    /// that came before it.
    pub async fn with<R, F>(&self, id: &str, f: F) -> Result<R>
    where
        F: FnOnce(&mut Episode) -> Result<R> + Send + 'static,
        R: Send + 'static,
    {
        let slot = self.slot(id)?;
        let mut guard = slot.episode.clone().lock_owned().await;
        let result = blocking(move || f(&mut guard)).await;
        slot.last_used.store(self.now_ms(), Ordering::Relaxed);
        result
    }

    /// Closes episode `id`, after the requests on it still running; its sandbox is freed on
    /// the blocking pool. Returns the number of actions it had.
    pub async fn close(&self, id: &str) -> Result<usize> {
        let slot = self
            .lock_slots()
            .remove(id)
            .ok_or_else(|| ServerError::UnknownEpisode(id.to_string()))?;
        let guard = slot.episode.clone().lock_owned().await;
        let turns = guard.env.turns().len();
        drop(guard);
        drop_blocking(slot);
        tracing::debug!(id, "episode closed");
        Ok(turns)
    }

    /// Closes the episodes idle longer than the limit and not busy; returns how many.
    pub fn reap(&self) -> usize {
        let now = self.now_ms();
        let idle_ms = u64::try_from(self.limits.idle_timeout.as_millis()).unwrap_or(u64::MAX);
        let expired: Vec<(String, Arc<Slot>)> = {
            let mut slots = self.lock_slots();
            let ids: Vec<String> = slots
                .iter()
                .filter(|(_, s)| {
                    now.saturating_sub(s.last_used.load(Ordering::Relaxed)) > idle_ms
                        // In use right now: not idle, whatever the clock says.
                        && s.episode.try_lock().is_ok()
                })
                .map(|(id, _)| id.clone())
                .collect();
            ids.into_iter()
                .filter_map(|id| slots.remove(&id).map(|s| (id, s)))
                .collect()
        };
        for (id, slot) in &expired {
            tracing::info!(
                id,
                "episode expired after {:?} idle",
                self.limits.idle_timeout
            );
            drop_blocking(slot.clone());
        }
        expired.len()
    }

    /// Starts the task that closes idle episodes (needs a tokio runtime); it ends when the
    /// table is dropped.
    pub fn spawn_reaper(self: &Arc<Self>) {
        let table = Arc::downgrade(self);
        let every = (self.limits.idle_timeout / 4)
            .clamp(Duration::from_millis(50), Duration::from_secs(30));
        tokio::spawn(async move {
            let mut tick = tokio::time::interval(every);
            tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
            loop {
                tick.tick().await;
                let Some(table) = table.upgrade() else { break };
                table.reap();
            }
        });
    }
}

/// Runs blocking sandbox work off the async executor; a panic in it is a host failure.
async fn blocking<R: Send + 'static>(f: impl FnOnce() -> Result<R> + Send + 'static) -> Result<R> {
    tokio::task::spawn_blocking(f)
        .await
        .map_err(|e| ServerError::Worker(e.to_string()))?
}

/// Drops an episode (its env removes its directories) on the blocking pool when a runtime is
/// there, else right here.
fn drop_blocking(slot: Arc<Slot>) {
    match tokio::runtime::Handle::try_current() {
        Ok(handle) => {
            handle.spawn_blocking(move || drop(slot));
        }
        Err(_) => drop(slot),
    }
}

/// The resident memory of this process in KiB (`VmRSS` of `/proc/self/status`), where the
/// system has one.
pub fn resident_kib() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))?
        .trim()
        .trim_end_matches("kB")
        .trim()
        .parse()
        .ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shell_words_survive_quotes() {
        assert_eq!(shell_quote("a b"), "'a b'");
        assert_eq!(shell_quote("it's"), r"'it'\''s'");
    }

    #[test]
    fn ids_differ() {
        let t = EpisodeTable::new(Limits::default(), GuardOptions::all(None), false);
        assert_ne!(t.next_id(), t.next_id());
    }
}
