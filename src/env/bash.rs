//! InterCode-Bash: each action runs as `/bin/bash -c '<action>'` in the episode's sandbox; the
//! working directory carries over between actions (and, with [`BashOptions::persistent`], the
//! shell's variables and functions too). `submit` runs the gold command in a second fresh copy
//! of the same tree and scores the episode with upstream's reward.
//!
//! Deliberate differences from upstream, all in the user's favour:
//! * every episode starts from a fresh copy of the tree (upstream only reset what git tracked,
//!   so deleting `/bin` broke later tasks); its reset is available as [`Reset::UpstreamGit`];
//! * `cd` is the shell's own (upstream parsed it by hand: `cd /x && ls` broke every later
//!   command of the episode);
//! * actions run as typed. Upstream's `bash -c "<action>"` + `shlex.split` quoting, which
//!   drops inner double quotes, is available as [`Quoting::Upstream`] for score fidelity;
//! * the gold run also has a time limit (upstream had none).

pub mod replay;
mod upstream_cd;
use super::episode::{Backend, Episodes, Executed};
use super::{DryRun, EnvKind, Evaluation, TaskInfo};
use crate::data::task::BashTaskSet;
use crate::fs::episode::EpisodePool;
use crate::fs::{EpisodeDir, Snapshot, TreeImage};
use crate::reward::bash as reward;
use crate::sandbox::{Limits, PinnedClock, RunOutcome, RunRequest, RunStatus, Sandbox, Watch};
use serde_json::Value;
use std::any::Any;
use std::sync::Arc;
use std::time::Duration;

/// How an action string becomes the shell's script.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Quoting {
    /// The action is the script, exactly as typed.
    #[default]
    Faithful,
    /// Upstream's `'/bin/bash -c "' + action + '"'` split with POSIX `shlex`: inner double
    /// quotes toggle the outer quoting, extra words become `$0 $1 …`, unbalanced quotes give
    /// `Malformed command`, and so does output that is not UTF-8 (upstream's harness decoded
    /// it, and the decoding error fell into the same `except`).
    Upstream,
}

/// What an episode's tree is at `reset`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Reset {
    /// A fresh copy of the task's tree, every episode and every gold run.
    #[default]
    Fresh,
    /// The previous episode's tree after upstream's `git reset --hard; git clean -fd`.
    UpstreamGit,
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
    /// Upstream's reset between tasks instead of a fresh tree: the agent's tree and the gold's
    /// each live for the whole run, and only what git tracks is put back
    /// ([`crate::fs::git_reset`]), so changes under `/root`, `/usr` or `/etc`, `chmod`s and
    /// `touch`es carry over to later tasks as they did in upstream's containers.
    pub reset: Reset,
    /// Bytes the episode's files may take (base system and task tree included, ~100 KB).
    /// Episode trees live in memory (tmpfs), so `yes > f` must not fill the machine's RAM
    /// for 10 s; 256 MiB is far above what any task writes. Checked while an action runs
    /// (every 10 ms or more), so a fast writer overshoots by what it writes meanwhile; an
    /// action that grows the tree past the limit is stopped, one that shrinks it is not.
    pub disk_bytes: u64,
    /// How deep directories may nest below `/`. Every walk of the tree (the disk watch, the
    /// snapshot after an action, the pool's restore) holds descriptors per level, and a
    /// `mkdir d; cd d` loop builds thousands of levels in seconds; no task goes past a few
    /// dozen. Checked with the disk limit, in the same way.
    pub max_dir_depth: usize,
}

impl Default for BashOptions {
    fn default() -> Self {
        BashOptions {
            limits: Limits::default(),
            gold_timeout: Duration::from_secs(60),
            clock: None,
            persistent: false,
            quoting: Quoting::Faithful,
            reset: Reset::Fresh,
            disk_bytes: 256 << 20,
            max_dir_depth: 128,
        }
    }
}

/// Stops an action that grows the episode's tree past `limit` bytes. The first check only
/// notes the size (an action may start over the limit and be the one cleaning up); later
/// ones stop the action when the tree is over the limit and bigger than at that first check.
fn disk_watch(root: cap_std::fs::Dir, limit: u64, max_depth: usize) -> Watch {
    use crate::fs::usage::{TreeUsage, tree_usage};
    let first = std::sync::Mutex::new(None::<TreeUsage>);
    Watch(std::sync::Arc::new(move || {
        let mut first = first.lock().unwrap_or_else(|e| e.into_inner());
        let stop_above = first.map_or(u64::MAX, |f| f.bytes).max(limit);
        let now = tree_usage(&root, stop_above, max_depth + 1);
        match *first {
            None => {
                *first = Some(now);
                None
            }
            Some(at_first) if now.bytes > limit && now.bytes > at_first.bytes => Some(format!(
                "intercode: the episode's files passed the disk limit of {} MiB; the command \
                 was stopped",
                limit >> 20
            )),
            Some(at_first) if now.deepest > max_depth && now.deepest > at_first.deepest => {
                Some(format!(
                    "intercode: directories nested deeper than {max_depth} levels; the command \
                     was stopped"
                ))
            }
            Some(_) => None,
        }
    }))
}

/// Upstream's environment: what `docker exec` as root gives a command in the Ubuntu image (no
/// TTY, no login: no `USER`, `LOGNAME`, `SHELL` or `TERM`), as upstream's logged `env` outputs
/// show; the shell adds `PWD`, `SHLVL` and `_` as bash does. (The image's own build variables,
/// `file_system_version` and `script`, are left out: they only named upstream's setup script.)
/// Also what the conformance command gives native bash.
pub fn base_env() -> Vec<(String, String)> {
    [
        ("HOSTNAME", crate::fs::base_system::HOSTNAME),
        ("HOME", "/root"),
        (
            "PATH",
            "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
        ),
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
    /// The gold's run for this episode's task, made at the first `evaluate`/`submit` and kept
    /// for the rest of the episode: try-again scores after every action, and the gold's
    /// outcome cannot change within an episode.
    gold: Option<GoldRun>,
}

/// A copy of a bash episode's state ([`Backend::save`]): its files, and the shell's working
/// directory and kept definitions.
struct Saved {
    tree: TreeImage,
    cwd: String,
    prelude: String,
}

/// The gold command's result in its own fresh tree.
struct GoldRun {
    dir: EpisodeDir,
    observation: String,
    status: String,
    snapshot: Snapshot,
    corrupt: bool,
}

/// The bash env: episodes of [`Bash`].
pub type BashEnv = Episodes<Bash>;

impl BashEnv {
    pub fn new(tasks: BashTaskSet, options: BashOptions) -> crate::Result<BashEnv> {
        Ok(Episodes::from_backend(Bash::new(tasks, options)?))
    }
}

/// InterCode-Bash's [`Backend`]: the sandbox, the episode pool and the task set.
pub struct Bash {
    tasks: BashTaskSet,
    /// Fresh copies of base system + task tree, prepared ahead of `reset` and `submit`.
    pool: EpisodePool,
    baseline: Snapshot,
    sandbox: Sandbox,
    options: BashOptions,
    episode: Option<Episode>,
    /// With [`Reset::UpstreamGit`], the gold's tree as the last gold run left it (upstream's
    /// evaluation container).
    eval_tree: Option<EpisodeDir>,
}

/// What one command did in a directory (used for the agent's actions and the gold).
pub struct CommandResult {
    pub observation: String,
    /// The output held bytes that are not UTF-8 (the observation has U+FFFD in their place).
    pub not_utf8: bool,
    pub exit_status: Option<i32>,
    pub cwd: Option<String>,
    pub prelude: Option<String>,
}

impl Bash {
    pub fn new(tasks: BashTaskSet, options: BashOptions) -> crate::Result<Bash> {
        // `python3` is the Python guest, run as a process that sees the episode's files.
        let sandbox = Sandbox::global()?
            .with_program("python3", std::sync::Arc::new(super::python::repl::module));
        let names = applet_names(&sandbox)?;
        let names: Vec<&str> = names.iter().map(String::as_str).collect();
        let mut image = crate::fs::base_system::base_system(&names);
        image.merge(tasks.tree.clone());
        let baseline = Snapshot::from_image(&image);
        Ok(Bash {
            tasks,
            pool: EpisodePool::new(image),
            baseline,
            sandbox,
            options,
            episode: None,
            eval_tree: None,
        })
    }

    /// The image every episode starts from (base system + task tree).
    pub fn image(&self) -> &TreeImage {
        self.pool.image()
    }

    /// The environment of an action on this env's tree: [`base_env`], plus, on the tree of
    /// upstream's `nl2bash_fs_N` image, the two variables its Dockerfile sets (`ENV
    /// file_system_version=N`, `ENV script=setup_nl2b_fs_N.sh`), which `env` and `set` show.
    pub fn environment(&self) -> Vec<(String, String)> {
        let mut env = base_env();
        if let Some(n) = self.tasks.name.strip_prefix("nl2bash_fs_")
            && !n.is_empty()
            && n.bytes().all(|b| b.is_ascii_digit())
        {
            env.push(("file_system_version".into(), n.to_string()));
            env.push(("script".into(), format!("setup_nl2b_fs_{n}.sh")));
        }
        env
    }

    pub fn tasks(&self) -> &BashTaskSet {
        &self.tasks
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
                        not_utf8: false,
                        exit_status: None,
                        cwd: None,
                        prelude: None,
                    });
                }
            },
        };
        let mut env = self.environment();
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
                    self.options.max_dir_depth,
                )),
            },
            &limits,
        )?;
        if out.left_running {
            dir.taint();
        }
        Ok(to_result(out))
    }

    fn task_at(&self, index: usize) -> crate::Result<&crate::data::task::BashTask> {
        self.tasks.tasks.get(index).ok_or(crate::Error::TaskIndex {
            index,
            len: self.tasks.tasks.len(),
        })
    }

    /// Runs the gold of task `index` in a fresh tree, or with [`Reset::UpstreamGit`] in the
    /// evaluation tree after upstream's reset.
    fn run_gold(&mut self, index: usize) -> crate::Result<GoldRun> {
        let gold = self.task_at(index)?.gold.clone();
        let dir = match self.options.reset {
            Reset::Fresh => self.pool.take()?,
            Reset::UpstreamGit => {
                let used = match self.eval_tree.take() {
                    Some(used) => used,
                    None => self.pool.take()?,
                };
                self.reset_like_upstream(used)?
            }
        };
        let run = self.run_in(&dir, &gold, "/", "", self.options.gold_timeout)?;
        let snapshot = Snapshot::capture(dir.dir())?;
        let status = crate::fs::status::render_short(&crate::fs::status::git_status(
            &self.baseline,
            &snapshot,
        ));
        Ok(GoldRun {
            dir,
            observation: run.observation,
            status,
            snapshot,
            corrupt: run.exit_status.is_none(),
        })
    }

    /// An action as upstream's env ran it: its own `cd` handling and working directory (see
    /// [`upstream_cd`]), nothing else kept between actions.
    fn execute_as_upstream(&mut self, action: &str) -> crate::Result<Executed> {
        use upstream_cd::UpstreamCd;
        let ep = self.episode.as_ref().ok_or(crate::Error::NoEpisode)?;
        let (script, cwd, next_workdir) = match upstream_cd::upstream_cd(action, &ep.cwd) {
            Some(UpstreamCd::To(path)) => (format!("cd {path}"), "/".to_string(), Some(path)),
            Some(UpstreamCd::Malformed) => return Ok(unexecuted("Malformed command".into())),
            None => {
                let inside = ep.cwd.trim_start_matches('/');
                let inside = if inside.is_empty() { "." } else { inside };
                match ep.dir.dir().metadata(inside) {
                    Ok(m) if m.is_dir() => {}
                    found => {
                        let message = upstream_cd::missing_workdir(&ep.cwd, found.is_ok());
                        return Ok(unexecuted(message));
                    }
                }
                (action.to_string(), ep.cwd.clone(), None)
            }
        };
        let result = self.run_in(&ep.dir, &script, &cwd, "", self.options.limits.timeout)?;
        if result.not_utf8 && result.exit_status.is_some() {
            // `output.decode("utf-8")` raised inside upstream's `try`, whose `except` answers
            // every error alike (a timeout has its own answer, kept above).
            return Ok(unexecuted("Malformed command".into()));
        }
        let ep = self.episode.as_mut().ok_or(crate::Error::NoEpisode)?;
        if result.exit_status == Some(0)
            && let Some(path) = next_workdir
        {
            ep.cwd = path;
        }
        Ok(Executed {
            observation: result.observation,
            action_executed: result.exit_status == Some(0),
            exit_status: result.exit_status,
            info: Default::default(),
        })
    }

    fn end_episode(&mut self) {
        if let Some(old) = self.episode.take() {
            self.pool.discard(old.dir);
            if let Some(gold) = old.gold {
                self.discard_eval_tree(gold.dir);
            }
        }
    }

    /// A gold run's tree: kept as the evaluation tree with [`Reset::UpstreamGit`].
    fn discard_eval_tree(&mut self, dir: EpisodeDir) {
        if self.options.reset == Reset::UpstreamGit {
            if let Some(old) = self.eval_tree.replace(dir) {
                self.pool.discard(old);
            }
        } else {
            self.pool.discard(dir);
        }
    }

    /// `used` after upstream's `git reset --hard; git clean -fd`, in a new directory. A tree
    /// that cannot be read back (a name that is not UTF-8) is replaced by a fresh one.
    fn reset_like_upstream(&self, used: EpisodeDir) -> crate::Result<EpisodeDir> {
        let now = match self.options.clock {
            Some(clock) => i64::try_from(clock.unix_seconds()).unwrap_or(i64::MAX),
            None => std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| i64::try_from(d.as_secs()).unwrap_or(i64::MAX)),
        };
        let reset = TreeImage::from_dir(used.path())
            .map(|current| crate::fs::git_reset::after_git_reset(&current, self.pool.image(), now));
        self.pool.discard(used);
        match reset {
            Ok(image) => EpisodeDir::new(&image),
            Err(e) => {
                tracing::warn!("the used tree could not be read back ({e}); starting afresh");
                self.pool.take()
            }
        }
    }
}

/// An action upstream's env answered without running anything.
fn unexecuted(observation: String) -> Executed {
    Executed {
        observation,
        action_executed: false,
        exit_status: None,
        info: Default::default(),
    }
}

fn to_result(out: RunOutcome) -> CommandResult {
    let lossy = String::from_utf8_lossy(&out.output);
    // Only when a byte was replaced is the output looked at again; a sequence cut short by the
    // output cap says nothing about what the program wrote.
    let not_utf8 = matches!(lossy, std::borrow::Cow::Owned(_))
        && std::str::from_utf8(&out.output)
            .is_err_and(|e| e.error_len().is_some() || out.truncated_bytes == 0);
    let mut observation = lossy.into_owned();
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
            not_utf8,
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
            not_utf8,
            exit_status: None,
            cwd: None,
            prelude: None,
        },
        RunStatus::TimedOut => CommandResult {
            // Upstream's exact observation on timeout.
            observation: "Command timed out".into(),
            not_utf8: false,
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

/// Programs the guest answers to, asked from the guest itself once per process: they get a
/// placeholder in `/usr/bin`.
///
/// The shell's `compgen -c` also lists its builtins and keywords, which have no program in
/// Ubuntu's `/usr/bin` (`which cd` finds nothing there, `xargs cd` cannot run), except these.
fn applet_names(sandbox: &Sandbox) -> crate::Result<Vec<String>> {
    /// The builtins Ubuntu 22.04 also ships as programs (coreutils, procps).
    const BUILTINS_THAT_ARE_PROGRAMS: [&str; 8] = [
        "[", "echo", "false", "kill", "printf", "pwd", "test", "true",
    ];
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
            argv: vec![
                "bash".into(),
                "-c".into(),
                "compgen -c; echo /; compgen -b; compgen -k".into(),
            ],
            env: vec![],
            cwd: "/".into(),
            stdin: None,
            report: false,
            watch: None,
        },
        &Limits::default(),
    )?;
    let listing = String::from_utf8_lossy(&out.output);
    // `/` cannot be a command name: it separates the two answers.
    let (commands, shell_words) = listing.split_once("\n/\n").unwrap_or((&listing, ""));
    let mut shell_only: std::collections::HashSet<&str> = shell_words
        .lines()
        .filter(|w| !BUILTINS_THAT_ARE_PROGRAMS.contains(w))
        .collect();
    // The module's own name, which it answers to as the shell.
    shell_only.insert("intercode-box");
    let mut names: Vec<String> = commands
        .lines()
        .filter(|n| !n.is_empty() && !shell_only.contains(n))
        .map(str::to_string)
        .collect();
    names.extend(["sh", "bash"].iter().map(|s| s.to_string()));
    names.sort();
    names.dedup();
    Ok(NAMES.get_or_init(|| names).clone())
}

impl Backend for Bash {
    fn action_timeout(&self) -> Duration {
        self.options.limits.timeout
    }

    fn set_action_timeout(&mut self, timeout: Duration) {
        self.options.limits.timeout = timeout;
    }

    const KIND: EnvKind = EnvKind::Bash;

    fn task_count(&self) -> usize {
        self.tasks.tasks.len()
    }

    fn task(&self, index: usize) -> crate::Result<TaskInfo> {
        let task = self.task_at(index)?;
        Ok(TaskInfo {
            query: task.query.clone(),
            gold: task.gold.clone(),
            category: Some(self.tasks.name.clone()),
            tables: Vec::new(),
        })
    }

    fn begin(&mut self, index: usize) -> crate::Result<String> {
        let query = self.task_at(index)?.query.clone();
        // Upstream reset its container before every task, the first one too: `/tmp` and the
        // other empty directories were gone from the start.
        let dir = match self.options.reset {
            Reset::Fresh => {
                self.end_episode();
                self.pool.take()?
            }
            Reset::UpstreamGit => {
                let used = match self.episode.take() {
                    Some(old) => {
                        if let Some(gold) = old.gold {
                            self.discard_eval_tree(gold.dir);
                        }
                        old.dir
                    }
                    None => self.pool.take()?,
                };
                self.reset_like_upstream(used)?
            }
        };
        self.episode = Some(Episode {
            index,
            dir,
            cwd: "/".into(),
            prelude: String::new(),
            gold: None,
        });
        // Upstream's observation before anything runs is the query.
        Ok(query)
    }

    fn execute(&mut self, action: &str) -> crate::Result<Executed> {
        if self.options.quoting == Quoting::Upstream {
            return self.execute_as_upstream(action);
        }
        let ep = self.episode.as_ref().ok_or(crate::Error::NoEpisode)?;
        let result = self.run_in(
            &ep.dir,
            action,
            &ep.cwd,
            &ep.prelude,
            self.options.limits.timeout,
        )?;
        let persistent = self.options.persistent;
        let ep = self.episode.as_mut().ok_or(crate::Error::NoEpisode)?;
        if let Some(c) = &result.cwd {
            ep.cwd.clone_from(c);
        }
        if persistent && let Some(p) = result.prelude {
            ep.prelude = p;
        }
        Ok(Executed {
            observation: result.observation,
            action_executed: result.exit_status == Some(0),
            exit_status: result.exit_status,
            info: Default::default(),
        })
    }

    fn score(
        &mut self,
        _submitted: Option<&str>,
        last_observation: &str,
        _ending: bool,
    ) -> crate::Result<Evaluation> {
        let index = self.episode.as_ref().ok_or(crate::Error::NoEpisode)?.index;
        if self.episode.as_ref().is_some_and(|e| e.gold.is_none()) {
            let gold = self.run_gold(index)?;
            if let Some(ep) = self.episode.as_mut() {
                ep.gold = Some(gold);
            }
        }
        let ep = self.episode.as_ref().ok_or(crate::Error::NoEpisode)?;
        let gold = ep.gold.as_ref().ok_or(crate::Error::NoEpisode)?;
        let agent_snap = Snapshot::capture(ep.dir.dir())?;
        let agent_status = crate::fs::status::render_short(&crate::fs::status::git_status(
            &self.baseline,
            &agent_snap,
        ));
        let r = reward::score(
            last_observation,
            &gold.observation,
            &agent_status,
            &gold.status,
            reward::content_check(ep.dir.dir(), gold.dir.dir()),
        );
        let mut info = r.to_info();
        if gold.corrupt {
            info.insert("corrupt_gold".into(), Value::Bool(true));
        }
        // Files that were there before the episode, destroyed by the agent but not by the gold.
        let gold_destroyed = self.baseline.destroyed_in(&gold.snapshot);
        let destructive: Vec<Value> = self
            .baseline
            .destroyed_in(&agent_snap)
            .into_iter()
            .filter(|p| !gold_destroyed.contains(p))
            .map(|p| Value::String(format!("/{p}")))
            .collect();
        if !destructive.is_empty() {
            info.insert("destructive".into(), Value::Array(destructive));
        }
        Ok(Evaluation {
            reward: r.reward,
            info,
        })
    }

    /// Copies the episode's tree (about a millisecond for a task tree of a few hundred paths).
    fn save(&mut self) -> crate::Result<Option<Arc<dyn Any + Send + Sync>>> {
        let ep = self.episode.as_ref().ok_or(crate::Error::NoEpisode)?;
        Ok(Some(Arc::new(Saved {
            tree: TreeImage::from_dir(ep.dir.path())?,
            cwd: ep.cwd.clone(),
            prelude: ep.prelude.clone(),
        })))
    }

    fn load(&mut self, saved: &(dyn Any + Send + Sync)) -> crate::Result<()> {
        let saved = saved
            .downcast_ref::<Saved>()
            .ok_or_else(|| crate::Error::Other("not a bash checkpoint".into()))?;
        let dir = EpisodeDir::new(&saved.tree)?;
        let ep = self.episode.as_mut().ok_or(crate::Error::NoEpisode)?;
        let old = std::mem::replace(&mut ep.dir, dir);
        ep.cwd.clone_from(&saved.cwd);
        ep.prelude.clone_from(&saved.prelude);
        self.pool.discard(old);
        Ok(())
    }

    /// Runs the action on a copy of the tree and compares the files the episode started with
    /// before and after it.
    fn dry_run(&mut self, action: &str) -> crate::Result<Option<DryRun>> {
        let ep = self.episode.as_ref().ok_or(crate::Error::NoEpisode)?;
        let image = TreeImage::from_dir(ep.dir.path())?;
        let copy = EpisodeDir::new(&image)?;
        let before = Snapshot::from_image(&image);
        let result = self.run_in(
            &copy,
            action,
            &ep.cwd,
            &ep.prelude,
            self.options.limits.timeout,
        )?;
        let after = Snapshot::capture(copy.dir())?;
        let already = self.baseline.destroyed_in(&before);
        let destroyed = self
            .baseline
            .destroyed_in(&after)
            .into_iter()
            .filter(|p| !already.contains(p))
            .map(|p| format!("/{p}"))
            .collect();
        Ok(Some(DryRun {
            destroyed,
            observation: result.observation,
        }))
    }

    /// Asks the shell's own parser (`bash -n`, which runs nothing) in the episode's sandbox:
    /// an open here-document, quote or `if` without `fi` needs more lines; anything else,
    /// including a plain syntax error, is complete (running it reports the error).
    fn is_complete(&mut self, source: &str) -> crate::Result<bool> {
        let ep = self.episode.as_ref().ok_or(crate::Error::NoEpisode)?;
        let out = self.sandbox.run(
            ep.dir.path(),
            ep.dir.dir(),
            self.options.clock,
            &RunRequest {
                argv: vec!["/bin/bash".into(), "-n".into(), "-c".into(), source.into()],
                env: self.environment(),
                cwd: ep.cwd.clone(),
                stdin: None,
                report: false,
                watch: None,
            },
            &Limits {
                timeout: Duration::from_secs(5),
                ..self.options.limits.clone()
            },
        )?;
        let text = String::from_utf8_lossy(&out.output);
        Ok(!(text.contains("unexpected end of file")
            || text.contains("unexpected EOF")
            || text.contains("here-document")
            || text.contains("here document")))
    }
}
