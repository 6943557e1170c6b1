//! Differential conformance of the bash env against native GNU bash: each command runs in the
//! sandbox and natively on identical fresh copies of the same tree, with the same environment,
//! and the two are compared on output (stdout and stderr interleaved as written), exit status
//! and the resulting tree (paths, kinds, contents, modes, symlink targets).
//!
//! The native side runs in a private mount namespace (bubblewrap): the episode's top-level
//! directories are bound at `/` (so `/testbed`, `/system`, `/etc/passwd` are the task's), a
//! system's `/usr` (and `/bin`, `/lib`…, and the tools' own configuration under `/etc`) is bound
//! read-only for the tools, and nothing of the host's `/tmp`, `/root` or `/home` is visible; no
//! network. That system is the reference: upstream's image (Ubuntu 22.04 with upstream's
//! packages, built by `scripts/ubuntu-reference`) or, failing that, this host.
//!
//! Where GNU's own order depends on the filesystem (readdir order: `find` without `sort`, `ls
//! -U`), outputs are compared as sets of lines. Whether a command is such a case is measured,
//! not guessed: the native side also runs on two copies of the tree on the filesystem the
//! sandbox's episodes live on (tmpfs, which lists entries by the order they were added; newest
//! first on current kernels), written in opposite orders, and a difference in order only
//! between those two runs marks the command "unordered" in the report. Where more than the
//! order of lines moves with the listing order (`find | head -3` picks other files, `find -exec
//! cat {} +` joins them in another order), the sandbox is compared with GNU on each of the two
//! copies: on tmpfs one lists every directory in name order, the order the sandbox's `find`,
//! `ls` and `du` walk in, and the other in the order of the sandbox's own episode (`ls -U`).
//! Agreeing with GNU on one of them exactly (output, exit status, files) is agreement, and the
//! report names those commands.

use crate::env::Env;
use crate::env::bash::BashEnv;
use crate::fs::{EpisodeDir, Snapshot};
use crate::{Error, Result};
use serde::Serialize;
use std::collections::BTreeMap;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Bytes of native output kept (as the sandbox keeps 1 MiB).
const OUTPUT_CAP: u64 = 1 << 20;
/// The tools' own configuration, bound from the reference system over the task's `/etc` (mount
/// points bwrap creates in the native tree; they are left out of the comparison): Debian and
/// Ubuntu reach `awk` (mawk) and friends through /etc/alternatives, and ImageMagick reads its
/// policy and delegates from its directory; bash's readline takes the key bindings `bind` lists
/// from /etc/inputrc.
const SYSTEM_ETC: &[&str] = &["/etc/alternatives", "/etc/ImageMagick-6", "/etc/inputrc"];
/// Docker's default capability set: what upstream's commands ran with.
const DOCKER_CAPABILITIES: &[&str] = &[
    "CHOWN",
    "DAC_OVERRIDE",
    "FSETID",
    "FOWNER",
    "MKNOD",
    "NET_RAW",
    "SETGID",
    "SETUID",
    "SETFCAP",
    "SETPCAP",
    "NET_BIND_SERVICE",
    "SYS_CHROOT",
    "KILL",
    "AUDIT_WRITE",
];
/// Top-level names the native side takes from the reference system (or makes: /proc, /dev),
/// never from the episode.
const HOST_DIRS: &[&str] = &[
    "usr", "bin", "sbin", "lib", "lib32", "lib64", "libx32", "proc", "dev", "sys",
];
/// The merged-/usr links (or, on an older system, directories) of a root file system.
const SYSTEM_LINKS: &[&str] = &["bin", "sbin", "lib", "lib32", "lib64", "libx32"];

/// Where `scripts/ubuntu-reference` builds upstream's image: `$INTERCODE_REFERENCE_ROOT`, else
/// `~/.cache/intercode-ubuntu-22.04`.
pub fn reference_root() -> PathBuf {
    if let Some(dir) = std::env::var_os("INTERCODE_REFERENCE_ROOT").filter(|d| !d.is_empty()) {
        return PathBuf::from(dir);
    }
    let home = std::env::var_os("HOME").unwrap_or_else(|| "/root".into());
    Path::new(&home).join(".cache/intercode-ubuntu-22.04")
}

/// Whether `root` holds a system the native side can run (its `/bin/bash`).
pub fn is_system_root(root: &Path) -> bool {
    root.join("bin/bash").is_file()
}

/// The commands of a corpus file: one per line, `#` comments and blank lines skipped.
pub fn parse_corpus(text: &str) -> Vec<String> {
    text.lines()
        .map(str::trim_end)
        .filter(|l| !l.trim().is_empty() && !l.trim_start().starts_with('#'))
        .map(str::to_string)
        .collect()
}

/// Why a command disagrees.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Cause {
    Output,
    ExitStatus,
    Files,
    /// One side ran into the time limit and the other did not.
    Timeout,
}

/// One command's comparison.
#[derive(Debug, Clone, Serialize)]
pub struct Row {
    pub command: String,
    pub agree: bool,
    /// GNU's own output order depended on the filesystem; lines were compared as a set.
    pub unordered: bool,
    /// Files GNU wrote in the filesystem's listing order (an archive of a directory, a list of
    /// its entries), compared as the set of their members or lines.
    pub unordered_files: Vec<String>,
    /// GNU answered differently on two copies of the tree that differ only in the order their
    /// directories list entries: a disagreement may be that order, not behaviour.
    pub order_dependent: bool,
    /// GNU's answer moved with the listing order, and GNU on a copy of the tree whose
    /// directories list their entries in the order the sandbox walks them answered exactly as
    /// the sandbox (output, exit status and files): the command agrees in that listing order.
    pub in_our_listing_order: bool,
    pub causes: Vec<Cause>,
    pub ours_output: String,
    pub ours_status: Option<i32>,
    pub native_output: String,
    pub native_status: Option<i32>,
    /// Paths whose kind, contents, mode or target differ (at most 20).
    pub files_differing: Vec<String>,
}

/// A corpus's result.
#[derive(Debug, Clone, Serialize)]
pub struct Report {
    pub corpus: String,
    pub commands: usize,
    pub agree: usize,
    /// Commands whose output or files were compared order-insensitively.
    pub unordered: usize,
    pub disagree_by_cause: BTreeMap<String, usize>,
    /// The system native bash ran on ([`Native::reference`]).
    pub reference: String,
    pub rows: Vec<Row>,
}

impl Report {
    pub fn agreement(&self) -> f64 {
        if self.commands == 0 {
            return 0.0;
        }
        100.0 * self.agree as f64 / self.commands as f64
    }

    /// The summary table (Markdown).
    pub fn table(&self) -> String {
        let mut s = String::from(
            "| corpus | commands | agree | of which unordered | output | exit status | files | timeout |\n\
             | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n",
        );
        let n = |k: &str| self.disagree_by_cause.get(k).copied().unwrap_or(0);
        s.push_str(&format!(
            "| {} | {} | {} ({:.1}%) | {} | {} | {} | {} | {} |\n",
            self.corpus,
            self.commands,
            self.agree,
            self.agreement(),
            self.unordered,
            n("output"),
            n("exit_status"),
            n("files"),
            n("timeout"),
        ));
        s
    }
}

/// How the native side is run.
#[derive(Debug, Clone)]
pub struct Native {
    /// The bubblewrap program.
    pub bwrap: String,
    pub timeout: Duration,
    /// The root file system whose `/usr`, `/bin`, `/lib`… and tools' `/etc` configuration the
    /// native side uses: `/` is this host; [`reference_root`] is upstream's image.
    pub system_root: PathBuf,
}

impl Default for Native {
    fn default() -> Self {
        Native {
            bwrap: "bwrap".into(),
            timeout: Duration::from_secs(10),
            system_root: PathBuf::from("/"),
        }
    }
}

/// What native bash did.
#[derive(Debug, Clone)]
struct NativeRun {
    output: String,
    status: Option<i32>,
}

impl Native {
    /// What the native side runs on, for reports: the system's name (its os-release) and where
    /// it is.
    pub fn reference(&self) -> String {
        let os_release = std::fs::read_to_string(self.system_root.join("usr/lib/os-release"))
            .or_else(|_| std::fs::read_to_string(self.system_root.join("etc/os-release")))
            .unwrap_or_default();
        let name = os_release
            .lines()
            .find_map(|l| l.strip_prefix("PRETTY_NAME="))
            .map_or("unknown system".to_string(), |v| {
                v.trim_matches('"').to_string()
            });
        if self.system_root == Path::new("/") {
            format!("{name} (this host)")
        } else {
            format!("{name} ({})", self.system_root.display())
        }
    }

    /// Checks that bubblewrap runs here (it needs unprivileged user namespaces) and that the
    /// reference system has a bash.
    pub fn check(&self) -> Result<()> {
        if !is_system_root(&self.system_root) {
            return Err(Error::Other(format!(
                "no system at {} (no bin/bash; scripts/ubuntu-reference builds upstream's)",
                self.system_root.display()
            )));
        }
        let out = Command::new(&self.bwrap)
            .args(["--ro-bind", "/", "/", "--unshare-all", "true"])
            .output()
            .map_err(|e| {
                Error::Other(format!(
                    "cannot run {}: {e} (install bubblewrap)",
                    self.bwrap
                ))
            })?;
        if !out.status.success() {
            return Err(Error::Other(format!(
                "{} does not work here: {}",
                self.bwrap,
                String::from_utf8_lossy(&out.stderr).trim()
            )));
        }
        Ok(())
    }

    /// Runs `/bin/bash -c command` with `root` at `/` and the reference system's directories
    /// mounted over it.
    fn run(&self, root: &Path, command: &str, env: &[(String, String)]) -> Result<NativeRun> {
        let as_root = rustix::process::geteuid().is_root();
        let mut args: Vec<String> = if as_root {
            // Without a user namespace, so that root's capabilities reach files owned by other
            // users, as in upstream's container; and only the capabilities Docker grants a
            // container by default (no CAP_SYS_ADMIN, CAP_SYS_TIME, CAP_SYS_BOOT…), so a command
            // cannot remount, reset the host's clock or reboot it.
            let mut a: Vec<String> = [
                "--unshare-ipc",
                "--unshare-pid",
                "--unshare-net",
                "--unshare-uts",
                "--unshare-cgroup-try",
            ]
            .map(String::from)
            .to_vec();
            // bwrap keeps every capability of a root caller unless told otherwise.
            a.extend(["--cap-drop".into(), "ALL".into()]);
            for cap in DOCKER_CAPABILITIES {
                a.extend(["--cap-add".into(), format!("CAP_{cap}")]);
            }
            a
        } else {
            vec!["--unshare-all".into()]
        };
        args.extend([
            // The base system's hostname, not the host's: its facts are not what is compared.
            "--hostname".into(),
            crate::fs::base_system::HOSTNAME.into(),
            "--die-with-parent".into(),
            "--new-session".into(),
            // The episode's tree is `/` itself, not entries bound into an empty tmpfs root:
            // what a command writes at `/` (`tar -cf /backup.tar`, `ln -s x /`, `> out.txt` in
            // the working directory `/`) lands in the tree and is compared, as in the sandbox.
            // The mount points made below for the system's directories are HOST_DIRS, which
            // the comparison leaves out.
            "--bind".into(),
            root.display().to_string(),
            "/".into(),
            "--proc".into(),
            "/proc".into(),
            "--dev".into(),
            "/dev".into(),
            "--ro-bind".into(),
            self.system_root.join("usr").display().to_string(),
            "/usr".into(),
        ]);
        for link in SYSTEM_LINKS {
            let system = self.system_root.join(link);
            let in_tree = std::fs::symlink_metadata(root.join(link)).ok();
            match std::fs::read_link(&system) {
                // The tree's own merged-/usr link (`bin -> usr/bin`) already points into the
                // system's /usr; bwrap cannot make a symlink where one exists.
                Ok(_) if in_tree.as_ref().is_some_and(|m| m.is_symlink()) => {}
                // A directory of the tree where the system has a link: the system's directory
                // over it.
                Ok(target) if in_tree.is_some() => {
                    args.extend([
                        "--ro-bind".into(),
                        self.system_root.join(target).display().to_string(),
                        format!("/{link}"),
                    ]);
                }
                Ok(target) => {
                    args.extend([
                        "--symlink".into(),
                        target.display().to_string(),
                        format!("/{link}"),
                    ]);
                }
                Err(_) if system.is_dir() => {
                    args.extend([
                        "--ro-bind".into(),
                        system.display().to_string(),
                        format!("/{link}"),
                    ]);
                }
                Err(_) => {}
            }
        }
        // The tools' own configuration under the task's /etc.
        for etc in SYSTEM_ETC {
            let system = self.system_root.join(&etc[1..]);
            if system.exists() {
                args.extend([
                    "--ro-bind".into(),
                    system.display().to_string(),
                    (*etc).into(),
                ]);
            }
        }
        args.extend(["--chdir".into(), "/".into(), "--clearenv".into()]);
        for (k, v) in env {
            args.extend(["--setenv".into(), k.clone(), v.clone()]);
        }
        args.extend(["/bin/bash".into(), "-c".into(), command.into()]);

        // stdout and stderr share one pipe, as in the sandbox: the output interleaves as written.
        let (reader, writer) = std::io::pipe().map_err(Error::PlainIo)?;
        let mut child = Command::new(&self.bwrap)
            .args(&args)
            .stdin(Stdio::null())
            .stdout(writer.try_clone().map_err(Error::PlainIo)?)
            .stderr(writer)
            .spawn()
            .map_err(|e| Error::Other(format!("cannot start {}: {e}", self.bwrap)))?;
        let drain = std::thread::spawn(move || {
            let mut kept = Vec::new();
            let mut reader = reader;
            let _ = (&mut reader).take(OUTPUT_CAP).read_to_end(&mut kept);
            // Whatever is beyond the cap is read and dropped so the writer never blocks.
            let _ = std::io::copy(&mut reader, &mut std::io::sink());
            kept
        });
        let deadline = Instant::now() + self.timeout;
        let status = loop {
            match child.try_wait().map_err(Error::PlainIo)? {
                Some(status) => break status.code(),
                None if Instant::now() >= deadline => {
                    let _ = child.kill();
                    let _ = child.wait();
                    break None;
                }
                None => std::thread::sleep(Duration::from_millis(2)),
            }
        };
        let output = drain.join().unwrap_or_default();
        let output = if status.is_none() {
            "Command timed out".to_string()
        } else {
            String::from_utf8_lossy(&output).into_owned()
        };
        Ok(NativeRun { output, status })
    }
}

/// `bash: line 3: ` and `/bin/bash: line 3: ` are the same message; so are program names
/// given with or without their directory at the start of a line.
fn normalize(output: &str) -> String {
    output
        .lines()
        .map(|l| {
            let l = l
                .strip_prefix("/bin/bash: ")
                .map_or(l.to_string(), |r| format!("bash: {r}"));
            l.strip_prefix("/usr/bin/")
                .map_or(l.clone(), str::to_string)
        })
        .collect::<Vec<_>>()
        .join("\n")
}

fn sorted_lines(s: &str) -> Vec<&str> {
    let mut v: Vec<&str> = s.lines().collect();
    v.sort_unstable();
    v
}

/// Path → what is compared of it, for everything outside the host-provided directories.
fn tree_of(dir: &cap_std::fs::Dir) -> Result<BTreeMap<String, String>> {
    let snap = Snapshot::capture(dir)?;
    Ok(snap
        .iter()
        .filter(|(p, _)| {
            let top = p.split('/').next().unwrap_or_default();
            !HOST_DIRS.contains(&top)
                && !SYSTEM_ETC
                    .iter()
                    .any(|h| *p == &h[1..] || p.starts_with(&format!("{}/", &h[1..])))
        })
        .map(|(p, e)| {
            let md5 = e.md5.map(|d| format!("{d:02x?}")).unwrap_or_default();
            let target = e.target.clone().unwrap_or_default();
            (
                p.to_string(),
                format!("{:?} {md5} {:o} {target}", e.kind, e.mode),
            )
        })
        .collect())
}

fn differing(a: &BTreeMap<String, String>, b: &BTreeMap<String, String>) -> Vec<String> {
    let mut out: Vec<String> = a
        .iter()
        .filter(|(k, v)| b.get(*k) != Some(*v))
        .map(|(k, _)| k.clone())
        .chain(b.keys().filter(|k| !a.contains_key(*k)).cloned())
        .collect();
    out.sort();
    out.dedup();
    out
}

/// Re-inserts every entry of every directory below `dir` in reverse name order, so that a
/// filesystem that lists entries in insertion order (tmpfs) lists them the other way round
/// from a copy written in name order. Directory times are put back.
fn reverse_insertion_order(dir: &Path) -> Result<()> {
    let meta = std::fs::metadata(dir).map_err(|e| Error::io(dir, e))?;
    let mut names: Vec<_> = std::fs::read_dir(dir)
        .map_err(|e| Error::io(dir, e))?
        .flatten()
        .map(|e| e.file_name())
        .collect();
    names.sort();
    for name in names.iter().rev() {
        let path = dir.join(name);
        if std::fs::symlink_metadata(&path).is_ok_and(|m| m.is_dir()) {
            reverse_insertion_order(&path)?;
        }
        let mut temp = std::ffi::OsString::from(".intercode-reorder-");
        temp.push(name);
        let temp = dir.join(temp);
        std::fs::rename(&path, &temp).map_err(|e| Error::io(&path, e))?;
        std::fs::rename(&temp, &path).map_err(|e| Error::io(&path, e))?;
    }
    let times = std::fs::FileTimes::new()
        .set_accessed(meta.accessed().map_err(|e| Error::io(dir, e))?)
        .set_modified(meta.modified().map_err(|e| Error::io(dir, e))?);
    std::fs::File::open(dir)
        .and_then(|f| f.set_times(times))
        .map_err(|e| Error::io(dir, e))
}

/// The native side on two copies of the tree on the filesystem the sandbox's episodes live on,
/// written in opposite orders: what differs between the two runs depends on the listing order.
/// On tmpfs one copy lists every directory's entries in name order (the order the sandbox's
/// `find`, `ls`, `du`… walk in) and the other in the reverse.
struct OrderProbe {
    forward: CopyRun,
    backward: CopyRun,
}

/// What GNU did on one copy of the tree.
struct CopyRun {
    output: String,
    status: Option<i32>,
    tree: BTreeMap<String, String>,
}

impl OrderProbe {
    fn run(
        native: &Native,
        listing_order_fs: &Path,
        image: &crate::fs::TreeImage,
        command: &str,
        env: &[(String, String)],
    ) -> Result<OrderProbe> {
        let forward = EpisodeDir::new_in(listing_order_fs, image)?;
        let backward = EpisodeDir::new_in(listing_order_fs, image)?;
        reverse_insertion_order(backward.path())?;
        let run = |copy: &EpisodeDir| -> Result<CopyRun> {
            let run = native.run(copy.path(), command, env)?;
            Ok(CopyRun {
                output: normalize(&run.output),
                status: run.status,
                tree: tree_of(copy.dir())?,
            })
        };
        Ok(OrderProbe {
            forward: run(&forward)?,
            backward: run(&backward)?,
        })
    }

    /// GNU's answer moved with the listing order (output or files).
    fn order_dependent(&self) -> bool {
        self.forward.output != self.backward.output || self.forward.tree != self.backward.tree
    }

    /// The sandbox answered exactly as GNU did on one of the two copies: output, exit status
    /// and files.
    fn agrees_on_a_copy(
        &self,
        output: &str,
        status: Option<i32>,
        tree: &BTreeMap<String, String>,
    ) -> bool {
        [&self.forward, &self.backward].into_iter().any(|copy| {
            copy.status == status && copy.output == output && differing(tree, &copy.tree).is_empty()
        })
    }

    /// The two runs printed the same lines in another order.
    fn output_depends_on_order(&self) -> bool {
        self.forward.output != self.backward.output
            && sorted_lines(&self.forward.output) == sorted_lines(&self.backward.output)
    }
}

/// What is compared of a file GNU wrote in the listing order of a directory: a tar archive as
/// the set of its members (each one's header, full name and contents) plus its length, a gzip
/// stream as its header plus what it decompresses to, anything else as the set of its lines.
fn order_free_digest(bytes: &[u8]) -> Vec<Vec<u8>> {
    const GZIP_HEADER: usize = 10;
    if bytes.starts_with(&[0x1f, 0x8b]) && bytes.len() > GZIP_HEADER {
        let mut plain = Vec::new();
        if flate2::read::MultiGzDecoder::new(bytes)
            .read_to_end(&mut plain)
            .is_ok()
        {
            let mut digest = order_free_digest(&plain);
            digest.insert(0, bytes[..GZIP_HEADER].to_vec());
            return digest;
        }
    }
    let mut parts = tar_members(bytes).unwrap_or_else(|| {
        bytes
            .split_inclusive(|&b| b == b'\n')
            .map(<[u8]>::to_vec)
            .collect()
    });
    parts.sort_unstable();
    parts.insert(0, bytes.len().to_le_bytes().to_vec());
    parts
}

/// Two gzip streams that decompress to the same bytes: the difference is the compressor, not
/// the listing order, and stays a difference. (When the members are in another order too, the
/// compressed bytes cannot be compared, and only what they decompress to is.)
fn only_the_compression_differs(a: &[u8], b: &[u8]) -> bool {
    let inflate = |bytes: &[u8]| {
        let mut plain = Vec::new();
        (bytes.starts_with(&[0x1f, 0x8b])
            && flate2::read::MultiGzDecoder::new(bytes)
                .read_to_end(&mut plain)
                .is_ok())
        .then_some(plain)
    };
    matches!((inflate(a), inflate(b)), (Some(x), Some(y)) if x == y)
}

/// A tar archive's members, each as its full name, its header block and its contents; `None`
/// when `bytes` is not a whole ustar/GNU archive.
fn tar_members(bytes: &[u8]) -> Option<Vec<Vec<u8>>> {
    const BLOCK: usize = 512;
    if bytes.len() < BLOCK || bytes.get(257..262) != Some(b"ustar".as_slice()) {
        return None;
    }
    let mut archive = tar::Archive::new(bytes);
    let mut members = Vec::new();
    for entry in archive.entries().ok()? {
        let mut entry = entry.ok()?;
        let mut member = entry.path_bytes().into_owned();
        member.push(0);
        member.extend_from_slice(entry.header().as_bytes());
        entry.read_to_end(&mut member).ok()?;
        members.push(member);
    }
    Some(members)
}

/// Runs `commands` on task 0 of `env`'s tree in the sandbox and natively.
pub fn run(
    env: &mut BashEnv,
    corpus: &str,
    commands: &[String],
    native: &Native,
) -> Result<Report> {
    native.check()?;
    let image = env.image().clone();
    let scratch = std::env::temp_dir();
    // Where the sandbox's episodes live (tmpfs when there is one, which lists a directory by
    // the order its entries were added): the two copies written there in opposite orders list
    // as the sandbox's episode does and as its `find` and `ls` walk (name order).
    let listing_order_fs = crate::fs::episode::default_parent();
    let base_env = env.environment();
    let mut rows = Vec::with_capacity(commands.len());
    for command in commands {
        env.reset(0)?;
        let step = env.step(command)?;
        let ours_tree = tree_of(
            env.episode_tree()
                .ok_or_else(|| Error::Other("no episode".into()))?,
        )?;
        let ours_output = normalize(&step.observation);

        // On disk, like upstream's container: tmpfs reports directories differently to `du`.
        let first = EpisodeDir::new_in(&scratch, &image)?;
        let a = native.run(first.path(), command, &base_env)?;
        let native_tree = tree_of(first.dir())?;
        let native_output = normalize(&a.output);
        // Does GNU's order depend on the directories' listing order? Two more copies, on a
        // filesystem that lists in insertion order, written in opposite orders, tell. Asked
        // only where it could matter: the same lines in another order, or files that differ.
        let mut probe: Option<OrderProbe> = None;
        let probed = |probe: &mut Option<OrderProbe>| -> Result<()> {
            if probe.is_none() {
                *probe = Some(OrderProbe::run(
                    native,
                    &listing_order_fs,
                    &image,
                    command,
                    &base_env,
                )?);
            }
            Ok(())
        };
        let unordered = ours_output != native_output
            && sorted_lines(&ours_output) == sorted_lines(&native_output)
            && {
                probed(&mut probe)?;
                probe
                    .as_ref()
                    .is_some_and(OrderProbe::output_depends_on_order)
            };
        let mut files_differing = differing(&ours_tree, &native_tree);
        let mut unordered_files = Vec::new();
        if !files_differing.is_empty() {
            probed(&mut probe)?;
            let ours_dir = env
                .episode_tree()
                .ok_or_else(|| Error::Other("no episode".into()))?;
            let files_moving_with_order = probe
                .as_ref()
                .map(|p| differing(&p.forward.tree, &p.backward.tree))
                .unwrap_or_default();
            files_differing.retain(|path| {
                let same_members = files_moving_with_order.contains(path)
                    && match (ours_dir.read(path), first.dir().read(path)) {
                        (Ok(ours), Ok(gnu)) => {
                            order_free_digest(&ours) == order_free_digest(&gnu)
                                && !only_the_compression_differs(&ours, &gnu)
                        }
                        _ => false,
                    };
                if same_members {
                    unordered_files.push(path.clone());
                }
                !same_members
            });
        }

        let same_output = if unordered {
            sorted_lines(&ours_output) == sorted_lines(&native_output)
        } else {
            ours_output == native_output
        };
        // A disagreement is probed too (unless GNU ran into the time limit, which the probe
        // would only repeat twice): does GNU's own answer move with the listing order?
        if (!same_output || !files_differing.is_empty()) && a.status.is_some() {
            probed(&mut probe)?;
        }
        let order_dependent = probe.as_ref().is_some_and(OrderProbe::order_dependent);
        let differs = !same_output || !files_differing.is_empty() || step.exit_status != a.status;
        let in_our_listing_order = differs
            && order_dependent
            && probe
                .as_ref()
                .is_some_and(|p| p.agrees_on_a_copy(&ours_output, step.exit_status, &ours_tree));
        let mut causes = Vec::new();
        if in_our_listing_order {
            files_differing.clear();
        }
        let timed_out =
            |o: &Option<i32>, text: &str| o.is_none() && text.trim() == "Command timed out";
        if timed_out(&step.exit_status, &step.observation) != timed_out(&a.status, &a.output) {
            causes.push(Cause::Timeout);
        }
        if !same_output && !in_our_listing_order {
            causes.push(Cause::Output);
        }
        if step.exit_status != a.status && !in_our_listing_order {
            causes.push(Cause::ExitStatus);
        }
        if !files_differing.is_empty() {
            causes.push(Cause::Files);
        }
        files_differing.truncate(20);
        rows.push(Row {
            command: command.clone(),
            agree: causes.is_empty(),
            unordered,
            unordered_files,
            order_dependent,
            in_our_listing_order,
            causes,
            ours_output,
            ours_status: step.exit_status,
            native_output,
            native_status: a.status,
            files_differing,
        });
    }
    let mut disagree_by_cause = BTreeMap::new();
    for row in &rows {
        for cause in &row.causes {
            let key = serde_json::to_value(cause)
                .ok()
                .and_then(|v| v.as_str().map(str::to_string))
                .unwrap_or_default();
            *disagree_by_cause.entry(key).or_insert(0) += 1;
        }
    }
    Ok(Report {
        corpus: corpus.to_string(),
        commands: rows.len(),
        agree: rows.iter().filter(|r| r.agree).count(),
        unordered: rows
            .iter()
            .filter(|r| r.unordered || !r.unordered_files.is_empty() || r.in_our_listing_order)
            .count(),
        disagree_by_cause,
        reference: native.reference(),
        rows,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn program_name_prefixes_are_the_same_message() {
        assert_eq!(
            normalize("/bin/bash: line 1: x: command not found\nok"),
            "bash: line 1: x: command not found\nok"
        );
    }

    #[test]
    fn the_reference_is_named_by_its_os_release_and_place() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("usr/lib")).unwrap();
        std::fs::write(
            dir.path().join("usr/lib/os-release"),
            "NAME=\"Ubuntu\"\nPRETTY_NAME=\"Ubuntu 22.04.5 LTS\"\n",
        )
        .unwrap();
        let native = Native {
            system_root: dir.path().to_path_buf(),
            ..Native::default()
        };
        assert_eq!(
            native.reference(),
            format!("Ubuntu 22.04.5 LTS ({})", dir.path().display())
        );
        assert!(Native::default().reference().ends_with(" (this host)"));
    }

    #[test]
    fn a_root_without_bash_is_refused_with_the_way_to_build_one() {
        let dir = tempfile::tempdir().unwrap();
        let native = Native {
            system_root: dir.path().to_path_buf(),
            ..Native::default()
        };
        let err = native.check().unwrap_err().to_string();
        assert!(err.contains("scripts/ubuntu-reference"), "{err}");
    }

    /// A tar archive of `members` (name, contents) in the order given, gzip-compressed or not.
    fn archive(members: &[(&str, &str)], gzip: bool) -> Vec<u8> {
        let mut builder = tar::Builder::new(Vec::new());
        for (name, contents) in members {
            let mut header = tar::Header::new_gnu();
            header.set_size(contents.len() as u64);
            header.set_mode(0o644);
            header.set_mtime(1_600_000_000);
            builder
                .append_data(&mut header, name, contents.as_bytes())
                .unwrap();
        }
        let tar = builder.into_inner().unwrap();
        if !gzip {
            return tar;
        }
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        std::io::Write::write_all(&mut gz, &tar).unwrap();
        gz.finish().unwrap()
    }

    #[test]
    fn archives_of_the_same_members_in_another_order_compare_equal() {
        for gzip in [false, true] {
            let ab = archive(&[("d/a", "1"), ("d/b", "2")], gzip);
            let ba = archive(&[("d/b", "2"), ("d/a", "1")], gzip);
            assert_ne!(ab, ba);
            assert_eq!(
                order_free_digest(&ab),
                order_free_digest(&ba),
                "gzip {gzip}"
            );
        }
    }

    #[test]
    fn archives_that_differ_in_a_member_or_its_contents_do_not() {
        let ab = archive(&[("d/a", "1"), ("d/b", "2")], true);
        let changed = archive(&[("d/b", "3"), ("d/a", "1")], true);
        let renamed = archive(&[("d/c", "2"), ("d/a", "1")], true);
        let fewer = archive(&[("d/a", "1")], true);
        for other in [changed, renamed, fewer] {
            assert_ne!(order_free_digest(&ab), order_free_digest(&other));
        }
    }

    #[test]
    fn a_compressor_difference_is_not_an_order_difference() {
        let tar = archive(&[("d/a", "1"), ("d/b", "2")], false);
        let mut fast = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        std::io::Write::write_all(&mut fast, &tar).unwrap();
        let fast = fast.finish().unwrap();
        let default = archive(&[("d/a", "1"), ("d/b", "2")], true);
        assert_ne!(fast, default);
        assert!(only_the_compression_differs(&fast, &default));
        let reordered = archive(&[("d/b", "2"), ("d/a", "1")], true);
        assert!(!only_the_compression_differs(&reordered, &default));
        assert!(!only_the_compression_differs(&tar, &tar));
    }

    #[test]
    fn other_files_compare_as_sets_of_lines() {
        assert_eq!(
            order_free_digest(b"./b\n./a\n"),
            order_free_digest(b"./a\n./b\n")
        );
        assert_ne!(
            order_free_digest(b"./a\n./b\n"),
            order_free_digest(b"./a\n")
        );
        assert_ne!(
            order_free_digest(b"./a\n./a\n"),
            order_free_digest(b"./a\n")
        );
    }

    #[test]
    fn corpus_lines_skip_comments_and_blanks() {
        assert_eq!(
            parse_corpus("# c\n\necho a\n  # d\nls -l  \n"),
            vec!["echo a", "ls -l"]
        );
    }

    #[test]
    fn a_copy_agrees_only_on_output_status_and_files_together() {
        let copy = |output: &str, status, file: &str| CopyRun {
            output: output.into(),
            status,
            tree: BTreeMap::from([("testbed/a".to_string(), file.to_string())]),
        };
        let probe = OrderProbe {
            forward: copy("b\na", Some(0), "x"),
            backward: copy("a\nb", Some(0), "x"),
        };
        assert!(probe.order_dependent());
        let tree = |file: &str| BTreeMap::from([("testbed/a".to_string(), file.to_string())]);
        assert!(probe.agrees_on_a_copy("a\nb", Some(0), &tree("x")));
        assert!(probe.agrees_on_a_copy("b\na", Some(0), &tree("x")));
        assert!(!probe.agrees_on_a_copy("a\nb", Some(1), &tree("x")));
        assert!(!probe.agrees_on_a_copy("a\nb", Some(0), &tree("y")));
        assert!(!probe.agrees_on_a_copy("a", Some(0), &tree("x")));
    }
}
