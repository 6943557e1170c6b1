//! InterCode-Bash: each action runs as `/bin/bash -c '<action>'` in the episode's sandbox; the
//! working directory carries over between actions (and, with [`BashOptions::persistent`], the
//! shell's variables and functions too). `submit` runs the gold command in a second fresh copy
//! of the same tree and scores the episode with upstream's reward.
//!
//! Deliberate differences from upstream, all in the user's favour:
//! * every episode starts from a fresh copy of the tree (upstream only reset what git tracked,
//!   so deleting `/bin` broke later tasks);
//! * `cd` is the shell's own (upstream parsed it by hand: `cd /x && ls` broke every later
//!   command of the episode);
//! * actions run as typed. Upstream's `bash -c "<action>"` + `shlex.split` quoting, which
//!   drops inner double quotes, is available as [`Quoting::Upstream`] for score fidelity;
//! * the gold run also has a time limit (upstream had none).

use super::{Env, Keyword, Reset, Step};
use crate::data::task::BashTaskSet;
use crate::data::trajectory::TurnRecord;
use crate::fs::episode::EpisodePool;
use crate::fs::{EpisodeDir, Snapshot, TreeImage};
use crate::reward::bash as reward;
use crate::sandbox::{Limits, PinnedClock, RunOutcome, RunRequest, RunStatus, Sandbox, Watch};
use serde_json::{Map, Value};
use std::time::Duration;

/// How an action string becomes the shell's script.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Quoting {
    /// The action is the script, exactly as typed.
    #[default]
    Faithful,
    /// Upstream's `'/bin/bash -c "' + action + '"'` split with POSIX `shlex`: inner double
    /// quotes toggle the outer quoting, extra words become `$0 $1 …`, unbalanced quotes give
    /// `Malformed command`.
    Upstream,
}

#[derive(Debug, Clone)]
pub struct BashOptions {
    pub limits: Limits,
    /// Time limit of the gold command at `submit`: generous, since a gold is trusted, but
    /// bounded so a broken gold cannot hang a run.
    pub gold_timeout: Duration,
    /// Pinned wall clock (`--clock`), for reproducible time-relative tasks.
    pub clock: Option<PinnedClock>,
    /// Keep variables and functions between actions (upstream: a fresh shell per action).
    pub persistent: bool,
    pub quoting: Quoting,
    /// Bytes the episode's files may take (base system and task tree included, ~100 KB).
    /// Episode trees live in memory (tmpfs), so `yes > f` must not fill the machine's RAM
    /// for 10 s; 256 MiB is far above what any task writes. Checked while an action runs
    /// (every 10 ms or more), so a fast writer overshoots by what it writes meanwhile; an
    /// action that grows the tree past the limit is stopped, one that shrinks it is not.
    pub disk_bytes: u64,
}

impl Default for BashOptions {
    fn default() -> Self {
        BashOptions {
            limits: Limits::default(),
            gold_timeout: Duration::from_secs(60),
            clock: None,
            persistent: false,
            quoting: Quoting::Faithful,
            disk_bytes: 256 << 20,
        }
    }
}

/// Stops an action that grows the episode's tree past `limit` bytes. The first check only
/// notes the size (an action may start over the limit and be the one cleaning up); later
/// ones stop the action when the tree is over the limit and bigger than at that first check.
fn disk_watch(root: cap_std::fs::Dir, limit: u64) -> Watch {
    let first = std::sync::Mutex::new(None::<u64>);
    Watch(std::sync::Arc::new(move || {
        let mut first = first.lock().unwrap_or_else(|e| e.into_inner());
        let used = crate::fs::usage::tree_bytes(&root, first.unwrap_or(u64::MAX).max(limit));
        match *first {
            None => {
                *first = Some(used);
                None
            }
            Some(at_first) if used > limit && used > at_first => Some(format!(
                "intercode: the episode's files passed the disk limit of {} MiB; the command \
                 was stopped",
                limit >> 20
            )),
            Some(_) => None,
        }
    }))
}

/// Upstream's environment (`docker exec` as root in Ubuntu, no TTY).
fn base_env() -> Vec<(String, String)> {
    [
        ("HOME", "/root"),
        ("USER", "root"),
        ("LOGNAME", "root"),
        ("HOSTNAME", crate::fs::base_system::HOSTNAME),
        (
            "PATH",
            "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
        ),
        ("SHELL", "/bin/bash"),
        ("TZ", "UTC"),
        ("TERM", "xterm"),
    ]
    .iter()
    .map(|(k, v)| (k.to_string(), v.to_string()))
    .collect()
}

struct Episode {
    index: usize,
    dir: EpisodeDir,
    cwd: String,
    prelude: String,
    /// Output of the last executed action; the query until something runs (upstream).
    last_observation: String,
    turns: Vec<TurnRecord>,
    done: bool,
}

pub struct BashEnv {
    tasks: BashTaskSet,
    /// Fresh copies of base system + task tree, prepared ahead of `reset` and `submit`.
    pool: EpisodePool,
    baseline: Snapshot,
    sandbox: Sandbox,
    options: BashOptions,
    episode: Option<Episode>,
}

/// What one command did in a directory (used for the agent's actions and the gold).
pub struct CommandResult {
    pub observation: String,
    pub exit_status: Option<i32>,
    pub cwd: Option<String>,
    pub prelude: Option<String>,
}

impl BashEnv {
    pub fn new(tasks: BashTaskSet, options: BashOptions) -> crate::Result<BashEnv> {
        let sandbox = Sandbox::global()?;
        let names = applet_names(&sandbox)?;
        let names: Vec<&str> = names.iter().map(String::as_str).collect();
        let mut image = crate::fs::base_system::base_system(&names);
        image.merge(tasks.tree.clone());
        let baseline = Snapshot::from_image(&image);
        Ok(BashEnv {
            tasks,
            pool: EpisodePool::new(image),
            baseline,
            sandbox,
            options,
            episode: None,
        })
    }

    /// The image every episode starts from (base system + task tree).
    pub fn image(&self) -> &TreeImage {
        self.pool.image()
    }

    pub fn tasks(&self) -> &BashTaskSet {
        &self.tasks
    }

    /// The actions of the current episode so far.
    pub fn turns(&self) -> &[TurnRecord] {
        self.episode
            .as_ref()
            .map(|e| e.turns.as_slice())
            .unwrap_or(&[])
    }

    /// The current episode's directory (for tests and tools that inspect the result).
    pub fn episode_tree(&self) -> Option<&cap_std::fs::Dir> {
        self.episode.as_ref().map(|e| e.dir.dir())
    }

    /// The current working directory of the episode's shell.
    pub fn cwd(&self) -> Option<&str> {
        self.episode.as_ref().map(|e| e.cwd.as_str())
    }

    /// Runs `script` in `dir` as upstream's `/bin/bash -c`; limits and timeouts become text.
    pub fn run_in(
        &self,
        dir: &EpisodeDir,
        script: &str,
        cwd: &str,
        prelude: &str,
        timeout: Duration,
    ) -> crate::Result<CommandResult> {
        let argv = match self.options.quoting {
            Quoting::Faithful => vec!["/bin/bash".to_string(), "-c".into(), script.to_string()],
            Quoting::Upstream => match upstream_argv(script) {
                Some(argv) => argv,
                None => {
                    return Ok(CommandResult {
                        observation: "Malformed command".into(),
                        exit_status: None,
                        cwd: None,
                        prelude: None,
                    });
                }
            },
        };
        let mut env = base_env();
        env.push(("INTERCODE_REPORT_HANDLE".into(), "3".into()));
        if !prelude.is_empty() {
            env.push(("INTERCODE_PRELUDE".into(), prelude.to_string()));
        }
        let limits = Limits {
            timeout,
            ..self.options.limits.clone()
        };
        let out = self.sandbox.run(
            dir.path(),
            dir.dir(),
            self.options.clock,
            &RunRequest {
                argv,
                env,
                cwd: cwd.to_string(),
                stdin: None,
                report: true,
                watch: Some(disk_watch(
                    dir.dir().try_clone().map_err(crate::Error::PlainIo)?,
                    self.options.disk_bytes,
                )),
            },
            &limits,
        )?;
        if out.left_running {
            dir.taint();
        }
        Ok(to_result(out))
    }

    fn current(&mut self) -> crate::Result<&mut Episode> {
        self.episode.as_mut().ok_or(crate::Error::NoEpisode)
    }

    fn task_at(&self, index: usize) -> crate::Result<&crate::data::task::BashTask> {
        self.tasks.tasks.get(index).ok_or(crate::Error::TaskIndex {
            index,
            len: self.tasks.tasks.len(),
        })
    }

    fn submit_episode(&mut self) -> crate::Result<Step> {
        let ep = self.episode.as_ref().ok_or(crate::Error::NoEpisode)?;
        let gold = self.task_at(ep.index)?.gold.clone();
        let gold_dir = self.pool.take()?;
        let gold_run = self.run_in(&gold_dir, &gold, "/", "", self.options.gold_timeout)?;
        let agent_snap = Snapshot::capture(ep.dir.dir())?;
        let gold_snap = Snapshot::capture(gold_dir.dir())?;
        let agent_status = crate::fs::status::render_short(&crate::fs::status::git_status(
            &self.baseline,
            &agent_snap,
        ));
        let gold_status = crate::fs::status::render_short(&crate::fs::status::git_status(
            &self.baseline,
            &gold_snap,
        ));
        let r = reward::score(
            &ep.last_observation,
            &gold_run.observation,
            &agent_status,
            &gold_status,
            reward::content_check(ep.dir.dir(), gold_dir.dir()),
        );
        let mut info = r.to_info();
        info.insert("action_executed".into(), Value::Bool(true));
        if gold_run.exit_status.is_none() {
            info.insert("corrupt_gold".into(), Value::Bool(true));
        }
        let observation = ep.last_observation.clone();
        let reward = r.reward;
        self.pool.discard(gold_dir);
        if let Some(ep) = self.episode.as_mut() {
            ep.done = true;
        }
        Ok(Step {
            observation,
            reward,
            done: true,
            info,
        })
    }
}

fn to_result(out: RunOutcome) -> CommandResult {
    let mut observation = String::from_utf8_lossy(&out.output).into_owned();
    if out.truncated_bytes > 0 {
        observation.push_str(&format!(
            "\n[output truncated: {} more bytes]\n",
            out.truncated_bytes
        ));
    }
    let (cwd, prelude) = match &out.report {
        Some(bytes) => {
            let text = String::from_utf8_lossy(bytes);
            match text.split_once('\0') {
                Some((cwd, prelude)) if cwd.starts_with('/') => {
                    (Some(cwd.to_string()), Some(prelude.to_string()))
                }
                _ => (None, None),
            }
        }
        None => (None, None),
    };
    match out.status {
        RunStatus::Exited(code) => CommandResult {
            observation,
            exit_status: Some(code),
            cwd,
            prelude,
        },
        RunStatus::Stopped(reason) => CommandResult {
            observation: if observation.is_empty() || observation.ends_with('\n') {
                format!("{observation}{reason}")
            } else {
                format!("{observation}\n{reason}")
            },
            exit_status: None,
            cwd: None,
            prelude: None,
        },
        RunStatus::TimedOut => CommandResult {
            // Upstream's exact observation on timeout.
            observation: "Command timed out".into(),
            exit_status: None,
            cwd: None,
            prelude: None,
        },
    }
}

/// The argv upstream's docker-py produced: `shlex.split('/bin/bash -c "' + action + '"')`.
pub fn upstream_argv(action: &str) -> Option<Vec<String>> {
    let line = format!("/bin/bash -c \"{}\"", action.trim());
    super::shlex::split(&line)
}

/// Names the guest answers to, asked from the guest itself once per process.
fn applet_names(sandbox: &Sandbox) -> crate::Result<Vec<String>> {
    static NAMES: std::sync::OnceLock<Vec<String>> = std::sync::OnceLock::new();
    if let Some(n) = NAMES.get() {
        return Ok(n.clone());
    }
    let dir = EpisodeDir::new(&TreeImage::empty())?;
    let out = sandbox.run(
        dir.path(),
        dir.dir(),
        None,
        &RunRequest {
            argv: vec!["sh".into(), "-c".into(), "compgen -c".into()],
            env: vec![],
            cwd: "/".into(),
            stdin: None,
            report: false,
            watch: None,
        },
        &Limits::default(),
    )?;
    let builtins = ["sh", "bash"];
    let mut names: Vec<String> = String::from_utf8_lossy(&out.output)
        .lines()
        .map(str::to_string)
        .filter(|n| !n.is_empty())
        .collect();
    names.extend(builtins.iter().map(|s| s.to_string()));
    names.sort();
    names.dedup();
    Ok(NAMES.get_or_init(|| names).clone())
}

impl Env for BashEnv {
    fn name(&self) -> &'static str {
        "bash"
    }

    fn task_count(&self) -> usize {
        self.tasks.tasks.len()
    }

    fn reset(&mut self, index: usize) -> crate::Result<Reset> {
        let query = self.task_at(index)?.query.clone();
        if let Some(old) = self.episode.take() {
            self.pool.discard(old.dir);
        }
        let dir = self.pool.take()?;
        self.episode = Some(Episode {
            index,
            dir,
            cwd: "/".into(),
            prelude: String::new(),
            last_observation: query.clone(),
            turns: Vec::new(),
            done: false,
        });
        Ok(Reset { index, query })
    }

    fn step(&mut self, action: &str) -> crate::Result<Step> {
        if self.current()?.done {
            return Err(crate::Error::Other(
                "the episode is over: call reset to start another".into(),
            ));
        }
        match Keyword::parse(action) {
            Some(Keyword::Skip) => {
                let ep = self.current()?;
                ep.done = true;
                ep.turns.push(TurnRecord::new(action, "skipped", None));
                let mut info = Map::new();
                info.insert("action_executed".into(), Value::Bool(true));
                return Ok(Step {
                    observation: "skipped".into(),
                    reward: 0.0,
                    done: true,
                    info,
                });
            }
            Some(Keyword::Submit(_)) => return self.submit_episode(),
            None => {}
        }
        let timeout = self.options.limits.timeout;
        let persistent = self.options.persistent;
        let (cwd, prelude) = {
            let ep = self.current()?;
            (ep.cwd.clone(), ep.prelude.clone())
        };
        let ep = self.episode.as_ref().ok_or(crate::Error::NoEpisode)?;
        let result = self.run_in(&ep.dir, action, &cwd, &prelude, timeout)?;
        let ep = self.current()?;
        if let Some(c) = &result.cwd {
            ep.cwd = c.clone();
        }
        if persistent && let Some(p) = result.prelude {
            ep.prelude = p;
        }
        ep.last_observation = result.observation.clone();
        ep.turns.push(TurnRecord::new(
            action,
            &result.observation,
            result.exit_status,
        ));
        let mut info = Map::new();
        info.insert(
            "action_executed".into(),
            Value::Bool(result.exit_status == Some(0)),
        );
        if let Some(code) = result.exit_status {
            info.insert("exit_status".into(), Value::from(code));
        }
        Ok(Step {
            observation: result.observation,
            reward: 0.0,
            done: false,
            info,
        })
    }

    fn gold(&self) -> crate::Result<String> {
        let ep = self.episode.as_ref().ok_or(crate::Error::NoEpisode)?;
        Ok(self.task_at(ep.index)?.gold.clone())
    }
}
