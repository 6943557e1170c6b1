//! Differential tests of `cal`/`ncal` (Debian's ncal package) against the host's tool, in the style of `tests/fileutils_gnu`: each case
//! runs the host tool and this binary (which becomes the applet when `APPLET_UNDER_TEST` is
//! set) with the same arguments and `LC_ALL=C TZ=UTC`, and compares standard output,
//! standard error and exit status. "Today" is pinned with ncal's own `-d yyyy-mm` on both
//! sides. A missing host tool is a SKIP, or a failure under `CI=true`.

#[cfg(unix)]
#[path = "../support/mod.rs"]
mod support;

#[cfg(not(unix))]
fn main() {}

#[cfg(unix)]
fn main() {
    if let Ok(name) = std::env::var("APPLET_UNDER_TEST") {
        let main = applets::lookup(&name).unwrap_or_else(|| panic!("no applet {name}"));
        let args: Vec<std::ffi::OsString> = std::env::args_os().collect();
        std::process::exit(main(args));
    }
    harness::run_all();
}

#[cfg(unix)]
mod cases;

#[cfg(unix)]
mod harness {
    use std::os::unix::process::CommandExt;
    use std::process::Command;

    pub struct Case {
        pub name: String,
        pub tool: &'static str,
        pub args: Vec<String>,
    }

    pub fn case(name: &str, tool: &'static str, args: &[&str]) -> Case {
        Case {
            name: name.to_string(),
            tool,
            args: args.iter().map(|s| s.to_string()).collect(),
        }
    }

    fn run_side(case: &Case, ours: bool, dir: &std::path::Path) -> (i32, Vec<u8>, Vec<u8>) {
        let mut cmd = if ours {
            let mut c = Command::new(std::env::current_exe().unwrap());
            c.env("APPLET_UNDER_TEST", case.tool);
            c
        } else {
            Command::new(case.tool)
        };
        cmd.arg0(case.tool)
            .args(&case.args)
            .current_dir(dir)
            .env("LC_ALL", "C")
            .env("TZ", "UTC")
            .env_remove("LANG")
            .env_remove("POSIXLY_CORRECT");
        super::support::output_with_stdin(&mut cmd, Vec::new()).unwrap_or((
            -1,
            Vec::new(),
            b"could not run".to_vec(),
        ))
    }

    fn show(v: &[u8]) -> String {
        String::from_utf8_lossy(v).replace('\t', "\\t")
    }

    pub fn run_all() {
        let filter: Vec<String> = std::env::args()
            .skip(1)
            .filter(|a| !a.starts_with('-'))
            .collect();
        let ci = std::env::var("CI").is_ok_and(|v| v == "true");
        let (mut pass, mut fail, mut skip) = (0, 0, 0);
        for case in super::cases::cases() {
            if !filter.is_empty() && !filter.iter().any(|f| case.name.contains(f.as_str())) {
                continue;
            }
            if !super::support::have(case.tool) {
                println!("SKIP {} (no `{}` on this host)", case.name, case.tool);
                if ci {
                    fail += 1;
                } else {
                    skip += 1;
                }
                continue;
            }
            let dir = tempfile::tempdir().unwrap();
            let host = run_side(&case, false, dir.path());
            let ours = run_side(&case, true, dir.path());
            if host == ours {
                pass += 1;
                continue;
            }
            fail += 1;
            println!("FAIL {} : {} {:?}", case.name, case.tool, case.args);
            if host.0 != ours.0 {
                println!("  status: host {} ours {}", host.0, ours.0);
            }
            if host.1 != ours.1 {
                println!(
                    "  --- host stdout\n{}\n  --- our stdout\n{}",
                    show(&host.1),
                    show(&ours.1)
                );
            }
            if host.2 != ours.2 {
                println!(
                    "  --- host stderr\n{}\n  --- our stderr\n{}",
                    show(&host.2),
                    show(&ours.2)
                );
            }
        }
        println!("bsd_utils: {pass} passed, {fail} failed, {skip} skipped");
        if fail > 0 {
            std::process::exit(1);
        }
    }
}
