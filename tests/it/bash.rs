//! The bash environment end to end: real wasmtime, the real guest, real episode directories.

use crate::harness::TestEpisode;
use intercode::env::Env;
use intercode::env::bash::{BashEnv, BashOptions, Quoting, Reset};
use std::time::{Duration, Instant};

#[test]
fn every_fixture_gold_scores_one() {
    let set = intercode::data::fixtures::bash_tasks().unwrap();
    let n = set.tasks.len();
    let mut env = BashEnv::new(set, BashOptions::default()).unwrap();
    let mut failures = Vec::new();
    for i in 0..n {
        env.reset(i).unwrap();
        let gold = env.gold().unwrap();
        let step = env.step(&gold).unwrap();
        let executed = step.action_executed;
        let out = step.observation.clone();
        let done = env.submit().unwrap();
        if done.reward != 1.0 || !executed {
            failures.push(format!(
                "task {i}: reward {} exit ok {executed}: {out}",
                done.reward
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn doing_nothing_scores_upstreams_floor() {
    // Upstream's own test asserts 0.67 for an empty episode with a read-only gold.
    let mut ep = TestEpisode::fixture(1);
    let r = ep.submit();
    assert!(
        (r.reward - 0.67).abs() < 1e-9 || r.reward < 0.67,
        "{}",
        r.reward
    );
}

#[test]
fn pipes_redirections_and_substitutions() {
    let mut ep = TestEpisode::fixture(0);
    ep.step("echo hello world | tr a-z A-Z")
        .observes("HELLO WORLD\n")
        .exit(0);
    ep.step("echo one > /tmp/f; echo two >> /tmp/f; cat /tmp/f")
        .observes("one\ntwo\n");
    ep.step("echo \"$(echo nested $(echo deep))\"")
        .observes("nested deep\n");
    ep.step("x=5; echo $((x * 2)) ${x:-d} ${y:-d}")
        .observes("10 5 d\n");
    ep.step("printf '%s-%03d\\n' a 7").observes("a-007\n");
    ep.step("ls /nonexistent 2>/dev/null; echo status $?")
        .observes("status 2\n");
    ep.step("echo err >&2").observes("err\n");
    ep.step("for i in 1 2 3; do echo -n $i; done; echo")
        .observes("123\n");
    ep.step("cat <<EOF\nline $((1+1))\nEOF")
        .observes("line 2\n");
    ep.step("read a b <<< 'x y z'; echo $b").observes("y z\n");
    ep.step("echo {a,b}{1,2}").observes("a1 a2 b1 b2\n");
    ep.step("f() { echo in $1; }; f arg").observes("in arg\n");
    ep.step("[[ abc == a* ]] && echo yes").observes("yes\n");
    ep.step("case x.txt in *.txt) echo text;; *) echo other;; esac")
        .observes("text\n");
    ep.step("cd /project && ls -d */ | head -n 2 | wc -l")
        .observes("2\n");
}

#[test]
fn missing_command_is_127() {
    let mut ep = TestEpisode::fixture(0);
    ep.step("definitely-not-a-command")
        .observes("/bin/bash: line 1: definitely-not-a-command: command not found\n")
        .exit(127);
    ep.step("/project")
        .exit(126)
        .observes_containing("Is a directory");
}

#[test]
fn working_directory_persists_between_actions() {
    let mut ep = TestEpisode::fixture(0);
    ep.step("cd /project/data").exit(0);
    ep.step("pwd").observes("/project/data\n");
    ep.step("cd /nowhere")
        .exit(1)
        .observes_containing("No such file or directory");
    ep.step("pwd").observes("/project/data\n");
    // Variables do not persist (upstream: a fresh shell per action)...
    ep.step("export V=1");
    ep.step("echo ${V:-unset}").observes("unset\n");
}

#[test]
fn persistent_mode_keeps_variables_and_functions() {
    let options = BashOptions {
        persistent: true,
        ..BashOptions::default()
    };
    let mut ep = TestEpisode::with_options(0, options);
    ep.step("V=kept; greet() { echo hi $1; }");
    ep.step("echo $V; greet you").observes("kept\nhi you\n");
}

#[test]
fn pipeline_with_early_exit_reader_ends() {
    let mut ep = TestEpisode::fixture(0);
    let start = Instant::now();
    ep.step("yes | head -n 1").observes("y\n").exit(0);
    assert!(start.elapsed() < Duration::from_secs(5));
    ep.step("yes | head -n 2; echo ${PIPESTATUS[0]} ${PIPESTATUS[1]}")
        .observes("y\ny\n141 0\n");
}

#[test]
fn infinite_loop_times_out_and_the_episode_goes_on() {
    let options = BashOptions {
        limits: intercode::sandbox::Limits {
            timeout: Duration::from_millis(700),
            ..Default::default()
        },
        ..BashOptions::default()
    };
    let mut ep = TestEpisode::with_options(0, options);
    let start = Instant::now();
    ep.step("while :; do :; done").observes("Command timed out");
    assert!(
        start.elapsed() < Duration::from_secs(5),
        "{:?}",
        start.elapsed()
    );
    ep.step("sleep 100").observes("Command timed out");
    assert!(start.elapsed() < Duration::from_secs(8));
    ep.step("echo alive").observes("alive\n");
}

#[test]
fn fork_bomb_is_contained() {
    let options = BashOptions {
        limits: intercode::sandbox::Limits {
            timeout: Duration::from_secs(2),
            ..Default::default()
        },
        ..BashOptions::default()
    };
    let mut ep = TestEpisode::with_options(0, options);
    let start = Instant::now();
    ep.step(":(){ :|:& };:");
    assert!(
        start.elapsed() < Duration::from_secs(10),
        "{:?}",
        start.elapsed()
    );
    ep.step("echo alive").observes("alive\n");
}

/// `yes > f` and friends fill the episode's (in-memory) tree until the disk limit stops them;
/// cleaning up afterwards works, and so does the next episode.
#[test]
fn disk_floods_are_stopped_at_the_limit() {
    let options = BashOptions {
        disk_bytes: 8 << 20,
        ..BashOptions::default()
    };
    let mut ep = TestEpisode::with_options(0, options);
    // Stopped by the disk watch (its message), not by the 10 s timeout.
    ep.step("yes > /tmp/flood");
    ep.observes_containing("disk limit of 8 MiB");
    let size: u64 = ep
        .step("stat -c %s /tmp/flood")
        .output()
        .trim()
        .parse()
        .unwrap();
    // Stopped a few checks past the limit (how far depends on the machine's speed), far
    // below the gigabytes 10 s of `yes` writes.
    assert!((8 << 20..512 << 20).contains(&size), "{size} bytes");
    ep.step("dd if=/dev/zero of=/tmp/more bs=1M count=100");
    ep.observes_containing("disk limit of 8 MiB");
    // Over the limit, an action that shrinks the tree runs to its end.
    ep.step("rm /tmp/flood /tmp/more && echo cleaned")
        .observes("cleaned\n");
    ep.step("dd if=/dev/zero of=/tmp/ok bs=1K count=1000 status=none && wc -c < /tmp/ok")
        .observes("1024000\n");
}

#[test]
fn output_floods_are_truncated() {
    let options = BashOptions {
        limits: intercode::sandbox::Limits {
            timeout: Duration::from_secs(2),
            output_bytes: 4096,
            ..Default::default()
        },
        ..BashOptions::default()
    };
    let mut ep = TestEpisode::with_options(0, options);
    ep.step("seq 1 100000");
    assert!(ep.output().len() < 4096 + 100);
    ep.observes_containing("[output truncated:");
}

#[test]
fn nothing_escapes_the_episode_root() {
    let mut ep = TestEpisode::fixture(0);
    // `..` above the root is refused (WASI: EPERM) instead of resolving to `/`.
    ep.step("cat /../../etc/shadow")
        .observes_containing("cat: /../../etc/shadow: ");
    ep.step("ln -s / /tmp/x; ls /tmp/x/..")
        .observes_containing("ls:");
    // A relative symlink pointing outside dangles inside the sandbox.
    ep.step("ln -s ../../../../../../etc/passwd /tmp/p; cat /tmp/p")
        .observes_containing("cat:");
    ep.step("echo hi > /tmp/p").observes_containing("/tmp/p");
    let r = ep.submit();
    assert!(r.reward <= 1.0);
}

#[test]
fn absolute_symlinks_are_created_and_listed_but_not_followed_outside() {
    let mut ep = TestEpisode::fixture(0);
    // Upstream golds do this (`ln /testbed/dir -s /`): the link stores an absolute target.
    ep.step("ln -s /project/data /project/abs && ls -l /project/abs | sed 's/.* -> //'")
        .observes("/project/data\n")
        .exit(0);
    ep.step("readlink /project/abs; stat -c %N /project/abs")
        .observes_containing("'/project/abs' -> '/project/data'");
}

/// Episode directories are reused (restored path by path): whatever one episode did, the next
/// ones see the tree as it was, listing for listing, with the same times and modes.
#[test]
fn nothing_carries_over_to_the_next_episode() {
    let mut ep = TestEpisode::fixture(0);
    let look = "ls -laR --time-style=+%s / 2>&1 | grep -v ' \\.\\.\\?$'; \
                find / -newer /etc/hostname | sort; md5sum $(find /project -type f | sort)";
    let before = ep.step(look).output().to_string();
    assert!(
        before.lines().count() > 100 && before.contains("project/README.md"),
        "{before}"
    );
    // Shortly after reset, then again after a few episodes have cycled through the pool.
    for round in 0..4 {
        ep.step(
            "echo gone > project/README.md; rm -rf project/data; mkdir -p new/deep; \
             touch -d 2001-01-01 project/notes.txt; chmod 000 project/docs; ln -s / project/up; \
             echo x >> /etc/hostname; mv project/src project/src2; chmod 700 /",
        );
        ep.submit();
        ep.env.reset(0).expect("reset");
        let after = ep.step(look).output().to_string();
        assert_eq!(
            after, before,
            "round {round}: the previous episode left traces"
        );
    }
}

/// `python3` is the Python guest run as a process of the action: a command like any other.
#[test]
fn python3_is_a_command_like_any_other() {
    let mut ep = TestEpisode::fixture(0);
    ep.step("command -v python3; test -x /usr/bin/python3 && echo listed")
        .observes("/usr/bin/python3\nlisted\n");
    ep.step("python3 -c 'import sys; print(sys.argv[1:]); sys.exit(4)' a 'b c'")
        .observes("['a', 'b c']\n")
        .exit(4);
    ep.step("printf '#!/usr/bin/env python3\\nimport sys\\nprint(sys.stdin.read().upper())\\n' > /tmp/up && chmod +x /tmp/up && echo hi | /tmp/up")
        .observes("HI\n\n")
        .exit(0);
    // A writer into a closed pipe dies of it, as CPython does of SIGPIPE.
    ep.step("python3 -c 'while True: print(1)' | head -n 2; echo ${PIPESTATUS[@]}")
        .observes("1\n1\n141 0\n");
    ep.step("python3 -q -z")
        .observes_containing("Unknown option: -z\nusage: python3 [option]")
        .exit(2);
}

/// What Python reads and writes is the episode's tree, the shell's view of it, and nothing of
/// the host's.
#[test]
fn python3_sees_the_episode_files_and_nothing_else() {
    let canary = tempfile::Builder::new()
        .prefix("intercode-canary-")
        .tempfile_in("/tmp")
        .unwrap();
    std::fs::write(canary.path(), "host secret").unwrap();
    let name = canary.path().display().to_string();
    let mut ep = TestEpisode::fixture(0);
    ep.step("python3 -c 'import os; print(sorted(os.listdir(\"/\")) == sorted(os.listdir(\"/\")))'; ls / | tr '\\n' ' '");
    let listing = ep.output().to_string();
    ep.step("python3 -c 'import os; print(\" \".join(sorted(os.listdir(\"/\"))))'");
    assert_eq!(
        ep.output().trim(),
        listing.lines().nth(1).unwrap_or_default().trim(),
        "python3 and ls see different roots"
    );
    ep.step(&format!(
        "python3 -c 'print(open(\"{name}\").read())' 2>&1 | tail -n 1"
    ))
    .observes_containing("FileNotFoundError");
    ep.step("python3 -c 'print(open(\"/../../../etc/hostname\").read())' 2>&1 | tail -n 1")
        .observes_containing("Error");
    ep.step("echo from-shell > /tmp/a; python3 -c 'open(\"/tmp/b\", \"w\").write(open(\"/tmp/a\").read().upper())'; cat /tmp/b")
        .observes("FROM-SHELL\n");
    assert_eq!(
        std::fs::read_to_string(canary.path()).unwrap(),
        "host secret"
    );
}

#[test]
fn python3_loops_sleeps_and_allocations_end_within_the_action_limits() {
    let options = BashOptions {
        limits: intercode::sandbox::Limits {
            timeout: Duration::from_millis(1500),
            ..Default::default()
        },
        ..BashOptions::default()
    };
    let mut ep = TestEpisode::with_options(0, options);
    // Load the module first: the first `python3` of a process may compile it.
    ep.step("python3 -c pass").exit(0);
    for looping in [
        "python3 -c 'while True: pass'",
        "python3 -c 'import time; time.sleep(100)'",
        "python3 -c 'while True: print(1)' > /dev/null",
    ] {
        let start = Instant::now();
        ep.step(looping).observes("Command timed out");
        assert!(
            start.elapsed() < Duration::from_secs(6),
            "{looping}: {:?}",
            start.elapsed()
        );
    }
    let start = Instant::now();
    ep.step("python3 -c 'x = bytearray(4 * 1024**3)'; echo status $?");
    assert!(ep.output().contains("status 1") || ep.output().contains("status 134"));
    assert!(start.elapsed() < Duration::from_secs(6));
    ep.step("python3 -c $'def r(): r()\\nr()' 2>&1 | tail -n 1")
        .observes_containing("RecursionError");
    ep.step("echo alive").observes("alive\n");
}

/// Processes of one action share a memory budget: many big processes at once cannot add up
/// past it, and what they held is given back when they end.
#[test]
fn an_actions_processes_share_one_memory_budget() {
    let options = BashOptions {
        limits: intercode::sandbox::Limits {
            memory_per_action: 300 << 20,
            ..Default::default()
        },
        ..BashOptions::default()
    };
    let mut ep = TestEpisode::with_options(0, options);
    let hog = "python3 -c 'x = bytearray(150 * 2**20); import time; time.sleep(1); print(\"ok\")'";
    ep.step(&format!(
        "for i in 1 2 3; do {hog} 2>/dev/null & done; wait"
    ));
    // (The two that ran out are reported as bash reports jobs a signal ended; their text
    // holds "ok" too, hence whole lines.)
    let oks = ep.output().lines().filter(|l| *l == "ok").count();
    assert_eq!(oks, 1, "{}", ep.output());
    ep.step(&format!("{hog}; {hog}")).observes("ok\nok\n");
}

/// Directories nest at most `max_dir_depth` levels: a `mkdir; cd` loop is stopped there, and
/// the tree stays walkable with a handful of descriptors.
#[test]
fn deep_directory_loops_are_stopped_at_the_nesting_limit() {
    let mut ep = TestEpisode::fixture(0);
    ep.step("cd /tmp; for i in $(seq 1 5000); do mkdir d && cd d || break; done")
        .observes_containing("directories nested deeper than 128 levels");
    // One `mkdir -p` may finish between two checks; whatever depth it reached, the episode
    // and the next one go on.
    ep.step("mkdir -p /tmp/p/$(printf 'x/%.0s' $(seq 1 1500))");
    ep.step("rm -rf /tmp/d /tmp/p && mkdir -p /tmp/$(printf 'y/%.0s' $(seq 1 100)) && echo ok")
        .observes("ok\n");
    ep.env.reset(0).unwrap();
    ep.step("ls /tmp | wc -l").observes("0\n");
}

/// What agents read about the machine is what upstream's agents read (ubuntu:22.04 under
/// Docker Desktop): the 20 accounts of its `/etc/passwd`, `df -h` on any path giving the
/// overlay root as logged (`df -h /workspace` in fs_3 runs), the LinuxKit kernel, 4
/// processors, no logged-in users, the top-level directories of `ls /`.
#[test]
fn the_base_system_is_upstreams_machine() {
    let mut ep = TestEpisode::fixture(0);
    ep.step("cat /etc/passwd | wc -l").observes("20\n");
    ep.step("cut -d: -f1 /etc/group | sort | head -n 3")
        .observes("_ssh\nadm\naudio\n");
    ep.step("df -h /project").observes(
        "Filesystem      Size  Used Avail Use% Mounted on\n\
         overlay          59G   37G   19G  67% /\n",
    );
    ep.step("df . | tail -1 | awk '{print $1}'")
        .observes("overlay\n");
    ep.step("uname -r; uname -m; arch; nproc; hostname; cat /proc/sys/kernel/hostname")
        .observes("5.15.49-linuxkit\naarch64\naarch64\n4\n4d01390b86bf\n4d01390b86bf\n");
    ep.step("who | wc -l; users; w | head -n 1 | awk '{print $NF}'; uptime | awk '{print $10}'")
        .observes("0\n0.03\n0.03\n");
    ep.step("free | awk 'NR==2 {print $2}'")
        .observes("8039440\n");
    ep.step("logname; tty")
        .observes("logname: no login name\nnot a tty\n")
        .exit(1);
    ep.step("ls / | tr '\\n' ' '").observes(
        "bin boot dev etc home lib media opt proc project root run sbin srv sys tmp usr var ",
    );
    ep.step("grep $(hostname) /etc/hosts | awk '{print $1}'")
        .observes("172.17.0.2\n");
}

/// The process table: this action's processes under a synthetic init, never the host's.
/// Upstream's container printed `pstree -p` as `bash(1)` (text-bison-001 fs_4), `pstree -a` as
/// `bash` (gpt-4 fs_4), and `ps -ef` as init plus the action's own processes (gpt-3.5
/// plan_solve fs_4).
#[test]
fn ps_lists_the_actions_processes_under_init_and_nothing_of_the_host() {
    let mut ep = TestEpisode::fixture(0);
    ep.step("pstree -p").observes("bash(1)\n").exit(0);
    ep.step("pstree -a").observes("bash\n");
    ep.step("pstree").observes("bash\n");
    // Root shell (pid 2, started from outside like `docker exec`), then its children.
    ep.step("ps -e -o pid= -o ppid= -o comm=")
        .observes("    1     0 bash\n    2     0 bash\n    3     2 ps\n");
    ep.step("sleep 5 & ps -o pid,ppid,cmd")
        .observes(
            "  PID  PPID CMD\n    2     0 /bin/bash -c sleep 5 & ps -o pid,ppid,cmd\n    3     2 sleep 5\n    4     2 ps -o pid,ppid,cmd\n",
        );
    let out = ep.step("ps -ef").output().to_string();
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(
        lines[0],
        "UID        PID  PPID  C STIME TTY          TIME CMD"
    );
    assert!(lines[1].starts_with("root         1     0  0 "), "{out}");
    assert!(lines[1].ends_with(" pts/0    00:00:00 /bin/bash"), "{out}");
    assert!(
        lines[2].ends_with(" ?        00:00:00 /bin/bash -c ps -ef"),
        "{out}"
    );
    assert!(lines[3].ends_with(" ?        00:00:00 ps -ef"), "{out}");
    assert_eq!(lines.len(), 4, "{out}");
    let out = ep.step("ps aux").output().to_string();
    assert!(out.starts_with(
        "USER       PID %CPU %MEM    VSZ   RSS TTY      STAT START   TIME COMMAND\nroot         1  0.0  0.0   4136  3364 pts/0    Ss+  "
    ), "{out}");
    // However many processes the action has, only they and init are listed.
    ep.step("for i in 1 2 3; do sleep 1 & done; ps -e -o comm=")
        .observes("bash\nbash\nsleep\nsleep\nsleep\nps\n");
}

/// Upstream's logged `ps` errors (starchat and gpt-4 fs_1) and pgrep's (chat-bison fs_4,
/// text-davinci-003 fs_1).
#[test]
fn ps_and_pgrep_errors_read_as_upstreams() {
    let usage = "\nUsage:\n ps [options]\n\n Try 'ps --help <simple|list|output|threads|misc|all>'\n  or 'ps --help <s|l|o|t|m|a>'\n for additional help text.\n\nFor more details see ps(1).\n";
    let mut ep = TestEpisode::fixture(0);
    ep.step("ps -o comm= -p $PPID")
        .observes(&format!("error: process ID out of range\n{usage}"))
        .exit(1);
    ep.step("ps -o comm= -p $ppid").observes(&format!(
        "error: list of process IDs must follow -p\n{usage}"
    ));
    ep.step("ps -ef --forest --cols 1000 --args")
        .observes(&format!("error: unknown gnu long option\n{usage}"));
    ep.step("pstree -p $(pgrep -x)")
        .observes("pgrep: no matching criteria specified\nTry `pgrep --help' for more information.\nbash(1)\n");
    ep.step("pgrep -c screen").observes("0\n").exit(1);
    ep.step("pgrep -x screen").observes("").exit(1);
    ep.step("ps -ef | grep -v grep | grep screen")
        .observes("")
        .exit(1);
}

#[test]
fn background_jobs_can_be_listed_and_signalled() {
    let mut ep = TestEpisode::fixture(0);
    ep.step("sleep 5 & pgrep sleep").observes("3\n").exit(0);
    ep.step("sleep 5 & pgrep -l sleep; pgrep -a sleep")
        .observes("3 sleep\n3 sleep 5\n");
    // The killed sleep ends at once, not after its 5 s.
    let started = Instant::now();
    ep.step("sleep 5 & kill $!; wait $!; echo $?")
        .observes("143\n");
    assert!(
        started.elapsed() < Duration::from_secs(4),
        "kill did not end the sleep"
    );
    // KILL is reported when the job is reaped; TERM and INT are not (bash's rules).
    ep.step("sleep 5 & kill -9 $!; wait $!; echo $?")
        .observes("/bin/bash: line 1:     3 Killed                  sleep 5\n137\n");
    ep.step("sleep 5 & kill -s INT %1; wait; echo $?")
        .observes("0\n");
    ep.step("sleep 5 & sleep 5 & pkill sleep; wait; echo done")
        .observes("done\n");
    ep.step("sleep 5 & killall sleep; wait $!; echo $?")
        .observes("143\n");
    ep.step("killall sleep")
        .observes("sleep: no process found\n")
        .exit(1);
    ep.step("kill 12345")
        .observes("/bin/bash: line 1: kill: (12345) - No such process\n")
        .exit(1);
    ep.step("kill").observes("kill: usage: kill [-s sigspec | -n signum | -sigspec] pid | jobspec ... or kill -l [sigspec]\n").exit(2);
    ep.step("kill -l 9; kill -l 143; kill -l TERM")
        .observes("KILL\nTERM\n15\n");
    ep.step("kill -0 1 && echo init is there")
        .observes("init is there\n");
}

#[test]
fn timeout_and_the_command_wrappers() {
    let mut ep = TestEpisode::fixture(0);
    // The timed-out sleep ends after 0.2 s, not after its 5 s.
    let started = Instant::now();
    ep.step("timeout 0.2 sleep 5; echo $?").observes("124\n");
    assert!(
        started.elapsed() < Duration::from_secs(4),
        "the timeout did not fire"
    );
    ep.step("timeout --preserve-status 0.2 sleep 5; echo $?")
        .observes("143\n");
    ep.step("timeout -s KILL 0.2 sleep 5; echo $?")
        .observes("137\n");
    // The whole group ends: the shell and the sleep it waits for.
    ep.step("timeout 0.2 bash -c 'sleep 5; echo never'; echo $?")
        .observes("124\n");
    ep.step("timeout 5 bash -c 'exit 3'; echo $?")
        .observes("3\n");
    ep.step("timeout 1m echo fast").observes("fast\n");
    ep.step("timeout x sleep 1")
        .observes(
            "timeout: invalid time interval 'x'\nTry 'timeout --help' for more information.\n",
        )
        .exit(125);
    ep.step("nohup echo hi").observes("hi\n").exit(0);
    ep.step("nice").observes("0\n");
    ep.step("nice -n 10 echo low").observes("low\n");
    ep.step("stdbuf -oL echo buffered").observes("buffered\n");
    ep.step("nohup")
        .observes("nohup: missing operand\nTry 'nohup --help' for more information.\n")
        .exit(125);
}

/// `--quirks upstream`: one tree lives for the whole run, and between tasks only what git
/// tracks is put back (`git reset --hard; git clean -fd`), as in upstream's containers.
#[test]
fn upstream_reset_puts_back_only_what_git_tracks() {
    let options = BashOptions {
        reset: Reset::UpstreamGit,
        ..BashOptions::default()
    };
    let mut ep = TestEpisode::with_options(0, options);
    // Upstream reset before the first task too: the empty, untracked `/tmp` is gone.
    ep.step("ls -d /tmp").exit(2);
    ep.step(
        "echo gone > /project/README.md; echo new > /project/new.txt; mkdir -p /project/made/deep \
         /tmp; echo kept > /root/note; chmod 600 /project/notes.txt; rm -rf /project/src; \
         echo scratch > /tmp/f",
    )
    .exit(0);
    ep.submit();
    ep.env.reset(1).expect("reset");
    let look = "md5sum /project/README.md; find /project/src | sort";
    let after = ep.step(look).output().to_string();
    let fresh = TestEpisode::fixture(1).step(look).output().to_string();
    // Tracked files are back as committed; untracked files and emptied directories are gone.
    assert_eq!(after, fresh);
    ep.step("ls -d /project/new.txt /project/made /tmp 2>&1")
        .observes(
            "ls: cannot access '/project/new.txt': No such file or directory\n\
         ls: cannot access '/project/made': No such file or directory\n\
         ls: cannot access '/tmp': No such file or directory\n",
        );
    // What git cannot see carries over: a file under the ignored `/root`, a tracked file's mode.
    ep.step("cat /root/note; stat -c %a /project/notes.txt")
        .observes("kept\n600\n");
}

/// Upstream's harness decoded every action's output as UTF-8, inside the `try` whose catch-all
/// answered `Malformed command`, so output that is not UTF-8 (`bind -p`, `gzip` to the
/// terminal in upstream's logs) came back as that, not run. Only its quoting does this; as
/// typed, the bytes show as U+FFFD.
#[test]
fn upstream_quoting_answers_undecodable_output_as_upstream_did() {
    let options = BashOptions {
        quoting: Quoting::Upstream,
        ..BashOptions::default()
    };
    let mut ep = TestEpisode::with_options(0, options);
    ep.step("printf 'caf\\351\\n'")
        .observes("Malformed command");
    assert!(!ep.last().action_executed);
    assert_eq!(ep.last().exit_status, None);
    ep.step("printf 'caf\\303\\251\\n'")
        .observes("caf\u{e9}\n")
        .exit(0);
    assert!(ep.last().action_executed);
    TestEpisode::fixture(0)
        .step("printf 'caf\\351\\n'")
        .observes("caf\u{fffd}\n")
        .exit(0);
}

/// Processes running side by side each write their error messages in several pieces (the
/// program's name, the text, the newline); a message is still one line of the observation.
#[test]
fn concurrent_error_messages_keep_their_lines_whole() {
    let mut ep = TestEpisode::fixture(0);
    let out = ep
        .step(
            "for i in 1 2 3 4 5 6 7 8 9; do ls /a$i | ls /b$i | uniq /c$i | ls /d$i | uniq x y z; done 2>&1",
        )
        .output()
        .to_string();
    let whole = regex::Regex::new(
        r"^(ls: cannot access '/[abd][1-9]': No such file or directory|uniq: /c[1-9]: No such file or directory|uniq: extra operand 'z'|Try 'uniq --help' for more information\.)$",
    )
    .unwrap();
    assert_eq!(out.lines().count(), 9 * 6, "{out}");
    for line in out.lines() {
        assert!(
            whole.is_match(line),
            "a message was cut into: {line:?}\n{out}"
        );
    }
}
