//! Differential tests of the shell against real shells: `/bin/sh` (dash) and `/bin/bash` of
//! upstream's image (Ubuntu 22.04: bash 5.1, dash 0.5.11), run in bubblewrap on the root
//! `scripts/ubuntu-reference` builds (`$INTERCODE_REFERENCE_ROOT`, else
//! `~/.cache/intercode-ubuntu-22.04`), or the host's own shells when that root is absent
//! (outside CI; the host's bash only if it is 5.1 too, as other versions word errors
//! differently). Each case runs `SHELL -c SCRIPT SHELL` on both
//! sides, this binary becoming our shell (started under the same name) when
//! `SHELL_UNDER_TEST` is set, and compares standard output, standard error and exit status.
//! The scripts use builtins only: natively the shell cannot start programs or open pipes.
//! A missing shell is a SKIP; under `CI=true` a missing reference root or shell is a failure.

#[cfg(not(unix))]
fn main() {}

#[cfg(unix)]
fn main() {
    if std::env::var_os("SHELL_UNDER_TEST").is_some() {
        let args: Vec<std::ffi::OsString> = std::env::args_os().collect();
        std::process::exit(shell::main(args, &[]));
    }
    harness::run_all();
}

#[cfg(unix)]
mod harness {
    use std::os::unix::process::CommandExt;
    use std::process::{Command, Stdio};

    /// dash: its messages, syntax errors, echo, test and the bash features it lacks.
    const DASH: &[&str] = &[
        "for file do x=1 [ -n \"$x\" ] && echo \"$x\" done",
        "for file do echo $file; done; echo ok",
        "echo a; then echo b",
        "if true; then echo a; done",
        "echo a\nfi",
        "x=abc; echo \"${x:1:1}\"; echo after",
        "x=.a; echo \"${x/\\./}\"; echo after",
        "nosuch; echo $?",
        "for f in a; do echo $f &; done",
        "if true; then echo",
        "if true",
        "while true; do echo",
        "for i",
        "for i in 1 2",
        "case x in",
        "case x in a) echo",
        "{ echo",
        "( echo",
        "echo )",
        "echo a; echo )",
        "echo a\necho )\necho b",
        "echo a\nwhile true\ndo echo",
        "echo \"abc",
        "echo a\necho \"b\nc",
        "echo >",
        "echo >\n",
        "echo < <(x)",
        "echo <<< x",
        "wc -l <(echo)",
        "a=(1 2)",
        "[[ -f /etc/passwd ]]; echo $?",
        "echo -e \"a\\tb\"; echo \"c\\td\"; echo {1..3}; echo -n x; echo",
        "echo \"\\0101\\101\\x41\\e\"; echo -n -e x; echo; echo -- a; echo \"a\\cb\" c",
        "[ a == a ]; echo $?; test \"\" == x; echo $?; [ a = a ]; echo $?",
        "[ -n a == b ]; echo $?; [ a = a -a b == b ]; echo $?",
        "declare -A x; echo $?; source /dev/null; echo $?; let x=1; echo $?",
        "typeset y; echo $?; shopt -s nullglob; echo $?",
        "x=abc; echo ${x//b/c}; echo after",
        "x=abc; echo ${x:0:1}; echo after",
        "cd /nonexistent; echo $?; cd /etc/passwd; echo $?",
        "nosuch1\nnosuch2 \"a\nb\"\nnosuch3",
        "nosuch2 a \"a\nb\" c\nnosuch3",
        "echo ${x",
        "echo $((1+",
        "echo $((5/0+1)); echo after",
    ];

    /// bash: the line it names, and the lines before a syntax error running first.
    const BASH: &[&str] = &[
        "$'ex\\tcmd'; \"a\nb\"; echo $?",
        "echo a; then echo b",
        "echo a\nfi",
        "if true; then echo a; done",
        "echo | do b",
        "cp -r /s/ !(*.text) /d",
        "echo \"a ${}\"; echo after",
        "execute[ls /x",
        "echo a\nexecute[ls /x\necho b",
        "execute[ls\n/]",
        "let x=5/0+1; echo $?; ((y = 2 % 0)); echo $?; echo $(( 1 / 0 )); echo after",
        "nosuch1 \"a\nb\"\nnosuch2 x \"y\nz\"",
        "nosuch1 a \"b\nc\" d\nnosuch2",
        "echo a\nif true; then\necho b",
        "echo a 'b\n\nc\nd",
        "echo a\n\necho \"b\nc",
        "echo $(echo",
        "echo ${x",
        "echo $((1+2",
        "exit 3\necho )",
        "echo 'abc",
        "false\necho \"a",
        "echo $(\nls\necho",
        "echo $((1+\n2",
        "echo a\necho ${x\n",
        "read x < <(echo your",
        "echo `ab",
        "tar czf /b.tar /testbed/**/*(?!testbed)",
        "echo *(a)",
        "tar czf /b.tar /testbed/*/(?!testbed)",
        "f() { echo",
        "I apologize. Here's the command: echo a | sed 's|x||;s|y||'  Output: z",
        "It's here: echo a; echo )",
        "shopt -s dotglob ls -a; echo $?",
        "shopt nullglob dotglob; echo $?; shopt -s nullglob; shopt -q nullglob; echo $?",
        "shopt -x; echo $?",
        "shopt -p extglob cmdhist; shopt -s; shopt",
        "shopt -su dotglob; echo $?",
        "echo $BASH_VERSION ${BASH_VERSINFO[@]:0:5} $OPTERR $EUID $UID $OSTYPE; echo $BASH_EXECUTION_STRING",
        "echo $SHELLOPTS; set -eu; echo $SHELLOPTS; shopt -s nullglob; echo $BASHOPTS",
        "EUID=5; echo $?",
        "echo a; echo )",
        "echo a\necho )\necho b",
        "nosuch; echo $?",
        // The first token bash's grammar rejects is the one it names, whatever follows.
        "find . -name x  (Note: it's)",
        "echo a\necho hi (x) it's",
        "foo (x)",
        "Step: `ln -s / /w` (This creates the link)",
        "x=1 if ! echo; then echo; fi",
        "x=() for f in a; do echo; done",
        "x=1 while true; do echo; done",
        "while read -r l; do echo \"$l\"; done <(echo a | cat) | cat",
        "fi (x)",
        "for x in (a); do echo; done",
        // `bind` answers from readline's default tables, with the warning of a shell without
        // line editing until `set -o emacs`/`set -o vi` turns it on.
        "bind -p; echo $?",
        "bind -P; bind -l; bind -q digit-argument; bind -q abort",
        "bind -v; bind -V; bind -m emacs-meta -p; bind -m emacs-ctlx -P",
        "set -o emacs; bind -P; echo $SHELLOPTS; set +o emacs; bind -q abort",
        "set -o vi; bind -p; bind -m vi -p; bind -m emacs -p; bind -v; set -o; echo $SHELLOPTS",
        "bind -q alias-expand-line; echo $?; bind -q nosuch; echo $?; bind -m nosuch -p; echo $?",
        "bind -q; echo $?; bind -z; echo $?; bind -f /nonexistent; echo $?; bind; echo $?",
        "bind '\"\\C-x\": abort'; bind -q abort; bind -r '\\C-a'; bind -q beginning-of-line",
        "bind -u end-of-line; bind -q end-of-line; bind -x '\"\\C-y\": echo hi'; bind -X; bind -x '\\C-y: x'; echo $?",
        "bind -p readline; bind 'foo bar'; bind '\"\\C-x\"'; bind 'set foo'; bind 'set bell-style none'; bind '\"abc'; echo $?",
        "set -o; set +o; set -o nosuch; echo $?; set -o emacs; set -o; set +o; set -z; echo $?; set -eo pipefail; echo $SHELLOPTS",
        // Backslash escapes: each of echo, `%b`, printf's format and `$'…'` has its own set.
        r#"echo -e "q\'\?\"z\0101\101\u41\u263a"; printf "%b|\%d|\'\?\n" "\'\?\0101\101" 5"#,
        r#"x=$'a\cAb\0c'; echo ${#x}; y=$'\u263a\u41\c?'; echo "$y" ${#y}; printf "\xg|%b\n" "\u"; echo $?"#,
        "printf '%g|%.3g|%#g|%5.1e|%.0d|%#.3o|%.*d|%u\n' 999999.5 0.0001 2 -nan 0 8 -1 0 -1",
    ];

    /// Upstream's image as `scripts/ubuntu-reference` builds it, when it has been built.
    fn reference_root() -> Option<std::path::PathBuf> {
        let root = match std::env::var_os("INTERCODE_REFERENCE_ROOT").filter(|d| !d.is_empty()) {
            Some(dir) => std::path::PathBuf::from(dir),
            None => std::path::Path::new(&std::env::var_os("HOME")?)
                .join(".cache/intercode-ubuntu-22.04"),
        };
        root.join(".intercode-reference").exists().then_some(root)
    }

    /// bubblewrap, found on this process's PATH.
    fn bwrap() -> std::path::PathBuf {
        std::env::var_os("PATH")
            .iter()
            .flat_map(std::env::split_paths)
            .map(|dir| dir.join("bwrap"))
            .find(|p| p.is_file())
            .unwrap_or_else(|| "bwrap".into())
    }

    fn run(
        shell: &str,
        host: &str,
        script: &str,
        ours: bool,
        root: Option<&std::path::Path>,
    ) -> (i32, String, String) {
        let mut cmd = if ours {
            let mut c = Command::new(std::env::current_exe().unwrap());
            c.env("SHELL_UNDER_TEST", "1").arg0(shell);
            c
        } else if let Some(root) = root {
            // By its full path: the command's own PATH (below) is not this process's.
            let mut c = Command::new(bwrap());
            c.arg("--ro-bind")
                .arg(root)
                .args([
                    "/",
                    "--proc",
                    "/proc",
                    "--dev",
                    "/dev",
                    "--unshare-all",
                    "--",
                ])
                .arg(host);
            c
        } else {
            Command::new(host)
        };
        cmd.args(["-c", script, shell])
            .env("LC_ALL", "C")
            // Upstream's commands ran without TERM (bash then sets it to `dumb`), which
            // readline's bindings and variables depend on.
            .env_remove("TERM")
            .env("PATH", "/nonexistent")
            .env_remove("LANG")
            .current_dir("/")
            .stdin(Stdio::null());
        match cmd.output() {
            Ok(o) => (
                o.status.code().unwrap_or(-1),
                String::from_utf8_lossy(&o.stdout).into_owned(),
                String::from_utf8_lossy(&o.stderr).into_owned(),
            ),
            Err(e) => (-1, String::new(), format!("could not run: {e}")),
        }
    }

    /// The bash version of upstream's image (Ubuntu 22.04).
    const UPSTREAM_BASH: &str = "5.1";

    /// `MAJOR.MINOR` of the host's `/bin/bash`.
    fn host_bash_version() -> Option<String> {
        let out = Command::new("/bin/bash")
            .args(["-c", "echo ${BASH_VERSINFO[0]}.${BASH_VERSINFO[1]}"])
            .output()
            .ok()?;
        Some(String::from_utf8_lossy(&out.stdout).trim().to_string())
    }

    pub fn run_all() {
        let ci = std::env::var("CI").is_ok_and(|v| v == "true");
        let root = reference_root();
        match &root {
            Some(root) => println!("reference: {}", root.display()),
            None if ci => panic!("CI needs upstream's image: run scripts/ubuntu-reference"),
            None => println!("reference: this host's shells (no scripts/ubuntu-reference root)"),
        }
        let (mut pass, mut fail) = (0, 0);
        for (shell, host, scripts) in [("sh", "/bin/sh", DASH), ("bash", "/bin/bash", BASH)] {
            let exists = match &root {
                Some(root) => root.join(host.trim_start_matches('/')).exists(),
                None => std::path::Path::new(host).exists(),
            };
            if !exists {
                assert!(!ci, "{host} is required in CI");
                println!("SKIP {shell}: no {host}");
                continue;
            }
            if root.is_none()
                && shell == "bash"
                && let Some(version) = host_bash_version().filter(|v| v != UPSTREAM_BASH)
            {
                // Another bash words errors and variables differently (5.2: `globskipdots`,
                // one message for an unclosed quote): comparing with it would fail on what
                // upstream's bash does.
                println!(
                    "SKIP bash: this host's bash is {version}, upstream's was {UPSTREAM_BASH} \
                     (scripts/ubuntu-reference builds upstream's image)"
                );
                continue;
            }
            for script in scripts {
                let theirs = run(shell, host, script, false, root.as_deref());
                let ours = run(shell, host, script, true, root.as_deref());
                if theirs == ours {
                    pass += 1;
                } else {
                    fail += 1;
                    println!("FAIL {shell} -c {script:?}\n  real: {theirs:?}\n  ours: {ours:?}");
                }
            }
        }
        println!("dash_bash: {pass} passed, {fail} failed");
        if fail > 0 {
            std::process::exit(1);
        }
    }
}
