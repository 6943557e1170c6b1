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

/// 241/300 (80.3%) on upstream's image when last measured (session 7: fs_1 58, fs_2 65, fs_3
/// 67, fs_4 51); 219/300 on it with session 6's sandbox, 216/300 on this Debian host's tools.
const FLOOR: f64 = 75.0;

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
