//! `intercode::conformance`: the bash env against native GNU bash in bubblewrap, on our own
//! corpus (`corpus/bash.txt`) and on a seeded sample of the actions real agents typed in
//! upstream's logs (not written by us, not written to pass).

use crate::harness::shared_dir;
use intercode::conformance::{self, Native, Report};
use intercode::env::bash::{BashEnv, BashOptions};
use intercode::env::spec::EnvSpec;
use std::collections::BTreeSet;
use std::time::Duration;

const CORPUS: &str = include_str!("corpus/bash.txt");

/// The reference is upstream's image, Ubuntu 22.04 with upstream's packages, as
/// `scripts/ubuntu-reference` builds it (`.ci/run` does, before the tests): the known
/// differences and the floor below are measured against it. `INTERCODE_REFERENCE_ROOT=/`
/// compares with this host's tools instead. Both it and bubblewrap are required in CI;
/// elsewhere their absence skips.
fn native() -> Option<Native> {
    let native = Native {
        timeout: Duration::from_secs(5),
        system_root: conformance::reference_root(),
        ..Native::default()
    };
    match native.check() {
        Ok(()) => Some(native),
        Err(e) if std::env::var("CI").as_deref() == Ok("true") => {
            panic!("bubblewrap and the reference system must work in CI: {e}")
        }
        Err(e) => {
            eprintln!("note: skipping, {e}");
            None
        }
    }
}

fn print(report: &Report) {
    println!("native reference: {}", report.reference);
    for row in report.rows.iter().filter(|r| !r.agree) {
        println!(
            "DIFF {:?} {}\n  ours   ({:?}): {:?}\n  native ({:?}): {:?}",
            row.causes,
            row.command,
            row.ours_status,
            row.ours_output.chars().take(240).collect::<String>(),
            row.native_status,
            row.native_output.chars().take(240).collect::<String>()
        );
    }
    print!("{}", report.table());
}

const KNOWN_DIFFERENCES: &str = include_str!("corpus/bash-known-differences.tsv");

#[test]
fn our_corpus_agrees_with_gnu_bash() {
    let Some(native) = native() else { return };
    let set = intercode::data::fixtures::bash_tasks().unwrap();
    let mut env = BashEnv::new(set, BashOptions::default()).unwrap();
    let commands = conformance::parse_corpus(CORPUS);
    assert!(commands.len() >= 150);
    let report = conformance::run(&mut env, "corpus/bash.txt", &commands, &native).unwrap();
    print(&report);
    let known: BTreeSet<&str> = KNOWN_DIFFERENCES
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(|l| l.split_once('\t').map_or(l, |(command, _)| command))
        .collect();
    let unexpected: Vec<&str> = report
        .rows
        .iter()
        .filter(|r| !r.agree && !known.contains(r.command.as_str()))
        .map(|r| r.command.as_str())
        .collect();
    let now_agreeing: Vec<&str> = report
        .rows
        .iter()
        .filter(|r| r.agree && known.contains(r.command.as_str()))
        .map(|r| r.command.as_str())
        .collect();
    assert!(
        unexpected.is_empty(),
        "disagreements not in corpus/bash-known-differences.tsv: {unexpected:#?}"
    );
    assert!(
        now_agreeing.is_empty(),
        "these agree now; remove them from corpus/bash-known-differences.tsv: {now_agreeing:#?}"
    );
}

/// FNV-1a: a seeded, dependency-free order for sampling.
fn fnv(s: &str) -> u64 {
    s.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3)
    })
}

/// Distinct bash actions of upstream's logs for nl2bash fs_`n`.
fn logged_actions(shared: &std::path::Path, n: u8) -> Vec<String> {
    let mut actions = BTreeSet::new();
    let results = shared.join("intercode-upstream/data/results/bash");
    for model in std::fs::read_dir(&results).unwrap().flatten() {
        for file in std::fs::read_dir(model.path()).unwrap().flatten() {
            let Ok(log) = intercode::data::upstream_log::read(&file.path()) else {
                continue;
            };
            if log.fs_number() != Some(n) {
                continue;
            }
            for ep in &log.episodes {
                for a in &ep.actions {
                    let a = a.trim();
                    if !a.is_empty() && a != "submit" && a.len() < 2000 {
                        actions.insert(a.to_string());
                    }
                }
            }
        }
    }
    actions.into_iter().collect()
}

#[test]
fn logged_agent_actions_agree_with_gnu_bash() {
    let Some(native) = native() else { return };
    let Some(shared) = shared_dir() else { return };
    const PER_TREE: usize = 75;
    let mut total = (0, 0);
    let mut reports = Vec::new();
    for n in 1..=4u8 {
        let mut actions = logged_actions(&shared, n);
        assert!(
            actions.len() > PER_TREE,
            "fs_{n}: {} actions",
            actions.len()
        );
        let distinct = actions.len();
        actions.sort_by_key(|a| fnv(a));
        actions.truncate(PER_TREE);
        let mut spec = EnvSpec::new(intercode::env::EnvKind::Bash);
        spec.tasks = Some(shared.join(format!(
            "intercode-upstream/data/nl2bash/nl2bash_fs_{n}.json"
        )));
        spec.timeout_secs = 5;
        let mut env = spec.build_bash().unwrap();
        let name = format!("upstream logs fs_{n} ({PER_TREE} of {distinct} distinct actions)");
        let report = conformance::run(&mut env, &name, &actions, &native).unwrap();
        print(&report);
        total.0 += report.commands;
        total.1 += report.agree;
        reports.push(report);
    }
    // Every command's comparison, for reading the disagreements one by one (as the CLI's --json).
    if let Some(out) = std::env::var_os("INTERCODE_CONFORMANCE_JSON") {
        std::fs::write(&out, serde_json::to_string_pretty(&reports).unwrap()).unwrap();
    }
    let rate = 100.0 * total.1 as f64 / total.0 as f64;
    println!(
        "logged agent actions: {}/{} agree with GNU bash ({rate:.1}%)",
        total.1, total.0
    );
    // Regression floor below the figure measured when written; raise it as fidelity improves.
    assert!(rate >= FLOOR, "agreement fell to {rate:.1}%");
}

/// 250/300 (83.3%) on upstream's image when last measured (session 8: fs_1 61, fs_2 67, fs_3
/// 69, fs_4 53); 241/300 in session 7, 219/300 with session 6's sandbox.
const FLOOR: f64 = 80.0;

/// The native side runs with a container's capabilities, not the machine's: a corpus line
/// cannot reset the host's clock, remount or rename the host (it did once, while this was
/// written, before capabilities were dropped).
#[test]
fn native_commands_cannot_change_the_machine() {
    let Some(native) = native() else { return };
    let set = intercode::data::fixtures::bash_tasks().unwrap();
    let mut env = BashEnv::new(set, BashOptions::default()).unwrap();
    let before = std::time::SystemTime::now();
    let hostname = std::fs::read_to_string("/proc/sys/kernel/hostname").unwrap_or_default();
    let commands: Vec<String> = [
        "date -s '2020-01-01 00:00:00' >/dev/null 2>&1; echo $?",
        "mount -o remount,rw /usr >/dev/null 2>&1; echo $?",
        "hostname changed-by-a-test >/dev/null 2>&1; cat /proc/sys/kernel/hostname",
    ]
    .map(String::from)
    .to_vec();
    let report = conformance::run(&mut env, "hostile", &commands, &native).unwrap();
    let after = std::time::SystemTime::now();
    assert!(after >= before, "the host's clock went back");
    assert_eq!(
        std::fs::read_to_string("/proc/sys/kernel/hostname").unwrap_or_default(),
        hostname
    );
    assert_ne!(
        report.rows[0].native_output, "0",
        "date -s succeeded natively"
    );
    assert_ne!(
        report.rows[1].native_output, "0",
        "remount succeeded natively"
    );
}

const LOGGED_SKIPS: &str = include_str!("corpus/logged-actions-skip.tsv");
const LOGGED_KNOWN: &str = include_str!("corpus/logged-actions-known-differences.tsv");

/// Why an action of the logs is not compared: the first command of
/// `corpus/logged-actions-skip.tsv` it runs (the first word of a pipeline stage, after `sudo`).
fn skip_reason(action: &str) -> Option<&'static str> {
    let commands: Vec<&str> = action
        .split(|c: char| "|;&()`\n".contains(c))
        .filter_map(|stage| {
            let mut words = stage.split_whitespace();
            match words.next()? {
                "sudo" => words.next(),
                word => Some(word),
            }
        })
        .collect();
    LOGGED_SKIPS
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .filter_map(|l| l.split_once('\t'))
        .find(|(command, _)| commands.contains(command))
        .map(|(_, reason)| reason)
}

/// Whether only the output differs, and only in how the writes of commands running at once
/// (a pipeline's stages, a background job) interleaved: the same bytes in another order.
fn interleaved(row: &conformance::Row) -> bool {
    let only_output = row.causes.len() == 1
        && serde_json::to_value(row.causes[0])
            .ok()
            .and_then(|v| v.as_str().map(str::to_string))
            == Some("output".to_string());
    let concurrent = row.command.contains('|') || row.command.contains('&');
    let sorted = |s: &str| {
        let mut b = s.as_bytes().to_vec();
        b.sort_unstable();
        b
    };
    only_output && concurrent && sorted(&row.ours_output) == sorted(&row.native_output)
}

/// A disagreement's reason for the known-differences file: what differs, and the class of
/// command when it is one whose answer cannot match (the clock, the machine, randomness).
fn known_reason(row: &conformance::Row) -> String {
    let causes: Vec<String> = row
        .causes
        .iter()
        .map(|c| {
            serde_json::to_value(c)
                .ok()
                .and_then(|v| v.as_str().map(str::to_string))
                .unwrap_or_default()
        })
        .collect();
    let words: Vec<&str> = row
        .command
        .split(|c: char| c.is_whitespace() || "|;&()`".contains(c))
        .filter(|w| !w.is_empty())
        .collect();
    let runs = |names: &[&str]| words.iter().any(|w| names.contains(w));
    let class = if runs(&["date", "stat", "touch", "uptime", "cal", "ncal"])
        || row.command.contains("-mtime")
        || row.command.contains("-newer")
        || row.command.contains("-mmin")
        || words
            .windows(2)
            .any(|w| w[0] == "ls" && w[1].starts_with('-') && w[1].contains('l'))
    {
        "the clock or file times"
    } else if searches_the_whole_system(&words)
        || (!runs(&["cd"])
            && row
                .command
                .split(|c: char| "|;&()`\n".contains(c))
                .any(|segment| {
                    greps_the_working_directory(&segment.split_whitespace().collect::<Vec<_>>())
                }))
    {
        "the base system's files (a search from /, where upstream's image has all of Ubuntu)"
    } else if interleaved(row) {
        "the order concurrent commands wrote in (the same bytes, interleaved otherwise)"
    } else if row.order_dependent {
        "the listing order (GNU answers differently when directories list their entries in \
         another order)"
    } else if runs(&["RANDOM", "mktemp", "shuf", "$RANDOM"]) || row.command.contains("$RANDOM") {
        "randomness"
    } else if runs(&[
        "uname", "hostname", "df", "du", "free", "id", "whoami", "env", "printenv",
    ]) || row.command.contains("/proc")
    {
        "facts of the machine"
    } else if row.native_output.contains("Read-only file system")
        && !row.ours_output.contains("Read-only file system")
    {
        "the reference's base system is read-only (upstream's container could write to it, as \
         the sandbox can)"
    } else if only_multilib_links_differ(row) {
        "the architecture (the amd64 reference has /lib64; most of upstream's logs come from an \
         image without it, as the sandbox's base system)"
    } else {
        "not yet analysed"
    };
    format!("{}: {class}", causes.join("+"))
}

/// Whether the two outputs are the same once lines naming amd64's multilib links (`lib64`,
/// `lib32`, `libx32`) are left out. Upstream's logs show `/` both with them (an amd64 image)
/// and without (most runs); the sandbox follows the majority, the reference is amd64.
fn only_multilib_links_differ(row: &conformance::Row) -> bool {
    let kept = |s: &str| -> Vec<String> {
        s.lines()
            .filter(|l| !["lib64", "lib32", "libx32"].iter().any(|n| l.contains(n)))
            .map(str::to_string)
            .collect()
    };
    row.ours_output != row.native_output && kept(&row.ours_output) == kept(&row.native_output)
}

/// A `find`, `grep -r`, `du` or `ls -R` over `/` itself (the working directory is `/`, so `.`,
/// `*` and a missing or unset start directory are `/` too): its answer lists or reads the whole
/// system, and the sandbox's base system holds only the files agents read, not all of Ubuntu.
fn searches_the_whole_system(words: &[&str]) -> bool {
    if words.iter().any(|w| *w == "cd" || *w == "-C") {
        return false;
    }
    let root = |w: &str| matches!(w, "/" | "." | "./" | "*" | "/*") || w.starts_with('$');
    words.iter().enumerate().any(|(i, w)| {
        let rest = &words[i + 1..];
        match *w {
            "find" => rest
                .first()
                .is_none_or(|first| root(first) || first.starts_with('-')),
            "grep" | "egrep" => {
                let recursive = rest.iter().any(|o| {
                    o.starts_with('-')
                        && !o.starts_with("--")
                        && (o.contains('r') || o.contains('R'))
                });
                recursive && rest.iter().any(|o| root(o))
            }
            "du" | "tree" => rest.iter().any(|o| root(o)),
            "ls" => {
                rest.iter().any(|o| o.starts_with('-') && o.contains('R'))
                    && rest.iter().any(|o| root(o))
            }
            _ => false,
        }
    })
}

/// A recursive grep given only its pattern: GNU searches the working directory, which is `/`.
fn greps_the_working_directory(words: &[&str]) -> bool {
    let Some((&"grep" | &"egrep", rest)) = words.split_first() else {
        return false;
    };
    let recursive = rest.iter().any(|o| {
        o.starts_with('-') && !o.starts_with("--") && (o.contains('r') || o.contains('R'))
    });
    let operands = rest.iter().filter(|o| !o.starts_with('-')).count();
    recursive && operands == 1 && !rest.iter().any(|o| *o == "-e" || *o == "-f")
}

/// The key of an action in the known-differences file: its tree and a hash of its text.
fn logged_key(n: u8, action: &str) -> String {
    format!("fs_{n}\t{:016x}", fnv(action))
}

/// Every distinct action agents typed in upstream's bash logs (6,000 over the four trees), run
/// in the sandbox and natively on upstream's image. Heavy: 25 minutes on 2 cores (0.25 s per
/// action; commands that run into the 5 s limit cost it on both sides), so it is not yet a step
/// of `scripts/test`; run it with
/// `cargo test --release --test it every_logged -- --ignored --nocapture`. Every action that
/// disagrees is listed in
/// `corpus/logged-actions-known-differences.tsv`; an action that is not listed and disagrees
/// (twice: a command near the time limit may land on either side once) fails the test.
/// `INTERCODE_UPDATE_KNOWN=1` rewrites the list from this run.
#[test]
#[ignore = "heavy: 25 minutes on 2 cores"]
fn every_logged_agent_action_against_gnu_bash() {
    let Some(native) = native() else { return };
    let Some(shared) = shared_dir() else { return };
    let known: BTreeSet<String> = LOGGED_KNOWN
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .filter_map(|l| {
            let mut fields = l.splitn(3, '\t');
            Some(format!("{}\t{}", fields.next()?, fields.next()?))
        })
        .collect();
    let mut listing = String::new();
    let (mut commands, mut agree, mut skipped) = (0, 0, 0);
    let mut by_cause = std::collections::BTreeMap::<String, usize>::new();
    let mut unexpected = Vec::new();
    let mut now_agreeing = 0;
    let mut tables = String::new();
    let mut all_reports: Vec<Report> = Vec::new();
    for n in 1..=4u8 {
        let (actions, skips): (Vec<String>, Vec<String>) = logged_actions(&shared, n)
            .into_iter()
            .partition(|a| skip_reason(a).is_none());
        skipped += skips.len();
        let build = || {
            let mut spec = EnvSpec::new(intercode::env::EnvKind::Bash);
            spec.tasks = Some(shared.join(format!(
                "intercode-upstream/data/nl2bash/nl2bash_fs_{n}.json"
            )));
            spec.timeout_secs = 5;
            spec.build_bash().unwrap()
        };
        // Two workers: each half on its own env (the native side is processes).
        let half = actions.len().div_ceil(2);
        let name = format!("upstream logs fs_{n} (every distinct action)");
        let reports: Vec<Report> = std::thread::scope(|scope| {
            let workers: Vec<_> = actions
                .chunks(half.max(1))
                .map(|chunk| {
                    let native = native.clone();
                    let name = name.clone();
                    let mut env = build();
                    scope.spawn(move || conformance::run(&mut env, &name, chunk, &native).unwrap())
                })
                .collect();
            workers.into_iter().map(|w| w.join().unwrap()).collect()
        });
        let mut env = build();
        all_reports.extend(reports.iter().cloned());
        for report in &reports {
            tables.push_str(&report.table());
            for row in &report.rows {
                commands += 1;
                let key = logged_key(n, &row.command);
                if row.agree {
                    agree += 1;
                    now_agreeing += usize::from(known.contains(&key));
                    continue;
                }
                for cause in &row.causes {
                    let cause = serde_json::to_value(cause).unwrap();
                    *by_cause
                        .entry(cause.as_str().unwrap_or("").into())
                        .or_default() += 1;
                }
                let clipped: String = row
                    .command
                    .chars()
                    .take(120)
                    .map(|c| if c.is_control() { ' ' } else { c })
                    .collect();
                listing.push_str(&format!("{key}\t{}\t{clipped}\n", known_reason(row)));
                if !known.contains(&key) {
                    let again = conformance::run(
                        &mut env,
                        "again",
                        std::slice::from_ref(&row.command),
                        &native,
                    )
                    .unwrap();
                    if !again.rows[0].agree {
                        unexpected.push(format!(
                            "fs_{n}: {}\n  ours   ({:?}): {:?}\n  native ({:?}): {:?}",
                            row.command,
                            row.ours_status,
                            row.ours_output.chars().take(240).collect::<String>(),
                            row.native_status,
                            row.native_output.chars().take(240).collect::<String>()
                        ));
                    }
                }
            }
        }
    }
    print!("{tables}");
    // Every command's comparison, for reading the disagreements one by one.
    if let Some(out) = std::env::var_os("INTERCODE_CONFORMANCE_JSON") {
        std::fs::write(&out, serde_json::to_string_pretty(&all_reports).unwrap()).unwrap();
    }
    let rate = 100.0 * agree as f64 / commands.max(1) as f64;
    println!(
        "every logged agent action: {agree}/{commands} agree with GNU bash ({rate:.1}%), \
         {skipped} skipped (corpus/logged-actions-skip.tsv); disagreements by cause: {by_cause:?}"
    );
    if now_agreeing > 0 {
        println!(
            "{now_agreeing} listed actions agree now: INTERCODE_UPDATE_KNOWN=1 rewrites the list"
        );
    }
    if std::env::var_os("INTERCODE_UPDATE_KNOWN").is_some() {
        let path = crate::harness::manifest_dir()
            .join("tests/it/corpus/logged-actions-known-differences.tsv");
        let header = "# Actions of upstream's bash logs that the sandbox answers differently from \
                      GNU bash on upstream's image (conformance::every_logged_agent_action_against_gnu_bash).\n\
                      # Written by INTERCODE_UPDATE_KNOWN=1; the test fails when an action not \
                      listed here disagrees.\n# tree<TAB>FNV-1a of the action<TAB>what differs: \
                      class<TAB>the action (first 120 characters)\n";
        std::fs::write(&path, format!("{header}{listing}")).unwrap();
        println!("wrote {}", path.display());
        return;
    }
    assert!(
        unexpected.is_empty(),
        "{} actions disagree that are not in corpus/logged-actions-known-differences.tsv:\n{}",
        unexpected.len(),
        unexpected.join("\n")
    );
}
