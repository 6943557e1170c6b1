//! Differential tests of our `awk` against the host's mawk 1.3.4 (the awk upstream InterCode
//! ran): every case runs both programs with the same argv, stdin and working directory and
//! compares standard output and exit status; standard error is compared too but only
//! reported. The run ends with the agreement rate.
//!
//! Like `gnu_diff`, this binary has its own `main` so it can also *be* the applet under test
//! (`APPLET_UNDER_TEST=awk`), which lets `system()` and pipes spawn real host commands.
//!
//! Both sides are invoked with argv[0] `awk`, as upstream's `/usr/bin/awk` symlink did, so
//! error messages read `awk: …` on both. Without `/usr/bin/mawk` every case is skipped.

mod corpus;

use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Command, Stdio};

pub struct Case {
    pub name: &'static str,
    pub args: Vec<&'static str>,
    pub stdin: &'static str,
    /// Compare stdout as sorted lines (for output whose order is not the point).
    pub sorted: bool,
    /// A file the program writes, compared after the run.
    pub output_file: Option<&'static str>,
}

struct Outcome {
    status: i32,
    stdout: Vec<u8>,
    stderr: Vec<u8>,
    file: Option<Vec<u8>>,
}

fn fixture(dir: &Path) {
    for (name, data) in corpus::FILES {
        std::fs::write(dir.join(name), data).unwrap();
    }
}

fn run(case: &Case, ours: bool, dir: &Path) -> std::io::Result<Outcome> {
    if let Some(f) = case.output_file {
        let _ = std::fs::remove_file(dir.join(f));
    }
    let mut cmd = if ours {
        Command::new(std::env::current_exe()?)
    } else {
        Command::new("/usr/bin/mawk")
    };
    cmd.env_clear();
    if ours {
        cmd.env("APPLET_UNDER_TEST", "awk");
    }
    cmd.arg0("awk")
        .args(&case.args)
        .current_dir(dir)
        // A child that somehow lost APPLET_UNDER_TEST must not rerun the whole suite.
        .env("AWK_MAWK_CHILD", "1")
        .env("LC_ALL", "C")
        .env("PATH", "/usr/bin:/bin")
        .env("HOME", "/root")
        .env("TZ", "UTC")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = cmd.spawn()?;
    let mut stdin = child.stdin.take().expect("piped");
    let data = case.stdin.as_bytes().to_vec();
    let writer = std::thread::spawn(move || {
        use std::io::Write;
        let _ = stdin.write_all(&data);
    });
    let out = child.wait_with_output()?;
    let _ = writer.join();
    use std::os::unix::process::ExitStatusExt;
    let status = out
        .status
        .code()
        .unwrap_or_else(|| 128 + out.status.signal().unwrap_or(0));
    let file = case
        .output_file
        .map(|f| std::fs::read(dir.join(f)).unwrap_or_default());
    Ok(Outcome {
        status,
        stdout: out.stdout,
        stderr: out.stderr,
        file,
    })
}

fn sorted_lines(b: &[u8]) -> Vec<u8> {
    let mut v: Vec<&[u8]> = b.split(|&c| c == b'\n').collect();
    v.sort();
    v.join(&b'\n')
}

fn main() {
    if let Ok(name) = std::env::var("APPLET_UNDER_TEST") {
        let main = applets::lookup(&name).unwrap_or_else(|| panic!("no applet {name}"));
        std::process::exit(main(std::env::args_os().collect()));
    }
    if std::env::var_os("AWK_MAWK_CHILD").is_some() {
        eprintln!("awk_mawk: child started without APPLET_UNDER_TEST");
        std::process::exit(99);
    }
    let filter: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with('-'))
        .collect();
    if !Path::new("/usr/bin/mawk").exists() {
        println!("SKIP all: /usr/bin/mawk not installed");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    fixture(dir.path());
    let (mut agree, mut differ, mut stderr_differ) = (0, 0, 0);
    let mut failures = Vec::new();
    let cases = corpus::cases();
    for case in &cases {
        if !filter.is_empty() && !filter.iter().any(|f| case.name.contains(f.as_str())) {
            continue;
        }
        let (Ok(m), Ok(o)) = (run(case, false, dir.path()), run(case, true, dir.path())) else {
            println!("FAIL {} (could not run)", case.name);
            differ += 1;
            failures.push(case.name);
            continue;
        };
        let (mo, oo) = if case.sorted {
            (sorted_lines(&m.stdout), sorted_lines(&o.stdout))
        } else {
            (m.stdout.clone(), o.stdout.clone())
        };
        if mo == oo && m.status == o.status && m.file == o.file {
            agree += 1;
            if m.stderr != o.stderr {
                stderr_differ += 1;
                println!(
                    "ok   {} (stderr differs)\n  --- mawk\n{}  --- ours\n{}",
                    case.name,
                    String::from_utf8_lossy(&m.stderr),
                    String::from_utf8_lossy(&o.stderr)
                );
            } else {
                println!("ok   {}", case.name);
            }
        } else {
            differ += 1;
            failures.push(case.name);
            println!("FAIL {} : awk {:?}", case.name, case.args);
            if m.status != o.status {
                println!("  status: mawk {} ours {}", m.status, o.status);
            }
            if mo != oo {
                println!(
                    "  --- mawk stdout\n{}\n  --- our stdout\n{}",
                    String::from_utf8_lossy(&m.stdout),
                    String::from_utf8_lossy(&o.stdout)
                );
            }
            if m.file != o.file {
                println!(
                    "  --- mawk file\n{}\n  --- our file\n{}",
                    String::from_utf8_lossy(&m.file.clone().unwrap_or_default()),
                    String::from_utf8_lossy(&o.file.clone().unwrap_or_default())
                );
            }
            println!(
                "  --- mawk stderr\n{}  --- our stderr\n{}",
                String::from_utf8_lossy(&m.stderr),
                String::from_utf8_lossy(&o.stderr)
            );
        }
    }
    let total = agree + differ;
    println!(
        "\nawk vs mawk: {agree}/{total} agree ({:.1}%), {differ} differ; stderr differs in {stderr_differ} agreeing cases",
        if total > 0 {
            100.0 * agree as f64 / total as f64
        } else {
            100.0
        }
    );
    if differ > 0 {
        println!("differing: {}", failures.join(", "));
        std::process::exit(1);
    }
}
