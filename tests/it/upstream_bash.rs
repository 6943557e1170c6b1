//! Gold replay against upstream's recorded gold outputs (`derived/bash_gold_outputs.json`):
//! how many of the 200 upstream gold commands exit 0 here, and how many print exactly an output
//! upstream recorded. Skipped, as the issue defines: golds upstream's quoting rewrote, golds that
//! depend on the current time or the network, and all of fs_4 (the host system itself).

use crate::harness::shared_dir;
use intercode::env::Env;
use intercode::env::bash::{BashEnv, BashOptions};
use serde_json::Value;

/// fs → task indices whose gold depends on "now" or the network (UPSTREAM-BEHAVIOUR §2.5).
const TIME_OR_NETWORK: &[(&str, &[usize])] = &[
    ("fs_1", &[11, 12, 46, 47]),
    ("fs_2", &[17, 18, 19, 25, 32, 39, 41, 42, 49]),
    ("fs_3", &[0, 2, 3, 12, 33]),
];

#[test]
fn upstream_gold_outputs_reproduce() {
    let Some(shared) = shared_dir() else { return };
    let up = shared.join("intercode-upstream");
    let recorded: Value = serde_json::from_str(
        &std::fs::read_to_string(up.join("derived/bash_gold_outputs.json")).unwrap(),
    )
    .unwrap();
    let (mut considered, mut exit0, mut exact, mut same_lines, mut skipped) = (0, 0, 0, 0, 0);
    let mut report = Vec::new();
    for fs in ["fs_1", "fs_2", "fs_3", "fs_4"] {
        let tasks = up.join(format!("data/nl2bash/nl2bash_{fs}.json"));
        let tree = up.join(format!("filesystems/{fs}.effective.tar.gz"));
        let set = intercode::data::nl2bash::load_upstream(&tasks, &tree).unwrap();
        let mut env = BashEnv::new(set, BashOptions::default()).unwrap();
        let skip_list = TIME_OR_NETWORK
            .iter()
            .find(|(f, _)| *f == fs)
            .map(|(_, l)| *l)
            .unwrap_or(&[]);
        for rec in recorded[fs].as_array().unwrap() {
            let index = rec["index"].as_u64().unwrap() as usize;
            let gold = rec["gold"].as_str().unwrap();
            let quoted = rec["gold_after_upstream_quoting"].as_array().unwrap();
            let rewritten = quoted.len() != 1 || quoted[0].as_str() != Some(gold);
            if fs == "fs_4" || rewritten || skip_list.contains(&index) {
                skipped += 1;
                continue;
            }
            considered += 1;
            env.reset(index).unwrap();
            let step = env.step(gold).unwrap();
            if step.action_executed {
                exit0 += 1;
            }
            let ours = step.observation.clone();
            let outputs: Vec<&str> = rec["observed_eval_obs"]
                .as_array()
                .unwrap()
                .iter()
                .filter_map(|o| o["eval_obs"].as_str())
                .collect();
            if outputs.contains(&ours.as_str()) {
                exact += 1;
            } else {
                fn sorted(s: &str) -> Vec<&str> {
                    let mut v: Vec<&str> = s.lines().collect();
                    v.sort_unstable();
                    v
                }
                let reordered = outputs.iter().any(|o| sorted(o) == sorted(&ours));
                if reordered {
                    same_lines += 1;
                }
                report.push(format!(
                    "{fs} #{index} {}: {gold}\n    ours: {:?}\n    upstream: {:?}",
                    if reordered { "ORDER" } else { "DIFF" },
                    ours.chars().take(300).collect::<String>(),
                    outputs
                        .first()
                        .map(|o| o.chars().take(300).collect::<String>())
                ));
            }
            env.submit().unwrap();
        }
    }
    println!("{}", report.join("\n"));
    let pct = |n: usize| 100.0 * n as f64 / considered.max(1) as f64;
    println!(
        "upstream gold replay: {considered} considered ({skipped} skipped), {exit0} exit 0 \
         ({:.1}%), {exact} exact output ({:.1}%), {same_lines} more with the same lines in \
         another order; exact-or-reordered {:.1}%",
        pct(exit0),
        pct(exact),
        pct(exact + same_lines)
    );
    // A floor that catches regressions; the target is 90%, the figure is printed above.
    assert!(
        pct(exact + same_lines) >= 50.0,
        "gold replay fell to {:.1}%",
        pct(exact + same_lines)
    );
}

/// Upstream's per-turn rewards, replayed turn by turn (`intercode replay` on a bash log): a
/// Try Again log of gpt-4 on fs_4, every action run on a fresh episode of its task and scored
/// after each turn as upstream's harness did.
#[test]
fn a_logged_bash_run_replays_to_its_logged_rewards() {
    let Some(shared) = shared_dir() else { return };
    let up = shared.join("intercode-upstream");
    let log = intercode::data::upstream_log::read(
        &up.join("data/results/bash/gpt-4/ic_bash_multiturn_gpt-4_10_turns_fs_4.json"),
    )
    .unwrap();
    let set = intercode::data::nl2bash::load_upstream(
        &up.join("data/nl2bash/nl2bash_fs_4.json"),
        &up.join("filesystems/fs_4.effective.tar.gz"),
    )
    .unwrap();
    let options = BashOptions {
        quoting: intercode::env::bash::Quoting::Upstream,
        ..BashOptions::default()
    };
    let mut env = BashEnv::new(set, options).unwrap();
    let golds = intercode::env::bash::replay::logged_gold_outputs([&log]);
    let report = intercode::env::bash::replay::replay_log(&mut env, &log, &golds).unwrap();
    println!(
        "{} episodes, {}/{} logged turn rewards reproduced ({:.1}%)",
        report.episodes,
        report.reproduced,
        report.scored_turns,
        100.0 * report.share()
    );
    for (cause, stats) in &report.causes {
        println!("  {cause}: {}", stats.count);
    }
    assert_eq!(report.episodes, 27);
    assert!(report.scored_turns > 100, "{} scored", report.scored_turns);
    // 73.3% when written (session 7), 74.8% in session 8: a floor below it, to be raised as
    // fidelity improves.
    assert!(report.share() >= 0.72, "{:.3}", report.share());
    // Every mismatch names its log and cause (`intercode replay --mismatches`).
    let first = serde_json::to_value(&report.mismatches[0]).unwrap();
    assert_eq!(first["log"].as_str(), Some(log.path.to_str().unwrap()));
    assert!(first["cause"].as_str().is_some_and(|c| !c.is_empty()));
}
