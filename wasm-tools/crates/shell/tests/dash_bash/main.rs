//! Differential tests of the shell against the host's real shells: `/bin/sh` (dash, as in
//! upstream's Ubuntu image) and `/bin/bash`. Each case runs `SHELL -c SCRIPT SHELL` on both
//! sides, this binary becoming our shell (started under the same name) when
//! `SHELL_UNDER_TEST` is set, and compares standard output, standard error and exit status.
//! The scripts use builtins only: natively the shell cannot start programs or open pipes.
//! A missing host shell is a SKIP, or a failure under `CI=true`.

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
    ];

    /// bash: the line it names, and the lines before a syntax error running first.
    const BASH: &[&str] = &[
        "nosuch1 \"a\nb\"\nnosuch2 x \"y\nz\"",
        "nosuch1 a \"b\nc\" d\nnosuch2",
        "echo a\nif true; then\necho b",
        "echo a 'b\n\nc\nd",
        "echo a\n\necho \"b\nc",
        "echo $(echo",
        "echo ${x",
        "echo $((1+2",
        "exit 3\necho )",
        "echo a; echo )",
        "echo a\necho )\necho b",
        "nosuch; echo $?",
    ];

    fn run(shell: &str, host: &str, script: &str, ours: bool) -> (i32, String, String) {
        let mut cmd = if ours {
            let mut c = Command::new(std::env::current_exe().unwrap());
            c.env("SHELL_UNDER_TEST", "1").arg0(shell);
            c
        } else {
            Command::new(host)
        };
        cmd.args(["-c", script, shell])
            .env("LC_ALL", "C")
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

    pub fn run_all() {
        let ci = std::env::var("CI").is_ok_and(|v| v == "true");
        let (mut pass, mut fail) = (0, 0);
        for (shell, host, scripts) in [("sh", "/bin/sh", DASH), ("bash", "/bin/bash", BASH)] {
            if !std::path::Path::new(host).exists() {
                assert!(!ci, "{host} is required in CI");
                println!("SKIP {shell}: no {host}");
                continue;
            }
            for script in scripts {
                let theirs = run(shell, host, script, false);
                let ours = run(shell, host, script, true);
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
