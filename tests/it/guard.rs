//! The guarded mode: destructive bash commands stopped before they touch the episode (and run
//! once confirmed), the SQL read-only bypass corpus refused by the lint, checkpoints rolled
//! back in every env, and a critic's veto reaching the agent.

use intercode::env::{Env, EnvKind, EnvSpec};
use intercode::harness::guard::{Critic, GuardOptions, GuardedEnv};

fn guarded(kind: EnvKind, critic: Option<Critic>) -> GuardedEnv {
    let mut spec = EnvSpec::new(kind);
    spec.read_only = kind == EnvKind::Sql;
    let mut env = GuardedEnv::new(spec.build().expect("env"), GuardOptions::all(critic));
    env.reset(0).expect("reset");
    env
}

/// What `cat` shows of a file (through an ordinary action, so after any refusal).
fn contents(env: &mut GuardedEnv, path: &str) -> String {
    let step = env.step(&format!("cat {path}")).expect("cat");
    step.observation
}

#[test]
fn destructive_commands_are_refused_until_confirmed_and_change_nothing() {
    let cases = [
        (
            "cat /project/README.md > /project/README.md",
            "/project/README.md",
        ),
        ("rm -rf /project/src", "/project/src/main.c"),
        ("sed -i d /project/src/util.c", "/project/src/util.c"),
        (
            "find /project/cache -name '*.tmp' -delete",
            "/project/cache/session1.tmp",
        ),
        ("> /project/logs/access.log", "/project/logs/access.log"),
        (
            "cd /project && rm scripts/build.sh",
            "/project/scripts/build.sh",
        ),
    ];
    for (command, victim) in cases {
        let mut env = guarded(EnvKind::Bash, None);
        let before = contents(&mut env, victim);
        assert!(
            !before.is_empty() && !before.contains("No such file"),
            "{command}"
        );
        let refused = env.step(command).unwrap();
        assert!(!refused.action_executed, "{command}");
        assert!(
            refused.observation.starts_with("refused by the guard")
                && refused.observation.contains(victim),
            "{command}: {}",
            refused.observation
        );
        assert_eq!(refused.info["guard"]["refused"], "destructive");
        assert_eq!(
            contents(&mut env, victim),
            before,
            "{command} changed the file"
        );
        // Sent again right after, the command is confirmed and runs.
        let refused_again = env.step(command).unwrap();
        assert!(
            !refused_again.action_executed,
            "the cat in between resets the confirmation"
        );
        let ran = env.step(command).unwrap();
        assert!(
            ran.info.get("guard").is_none(),
            "{command}: {}",
            ran.observation
        );
        assert_ne!(
            contents(&mut env, victim),
            before,
            "{command} did not run once confirmed"
        );
    }
}

#[test]
fn harmless_commands_pass_the_gate() {
    let mut env = guarded(EnvKind::Bash, None);
    for command in [
        "ls -la /project",
        "mkdir -p /tmp/work && cp /project/README.md /tmp/work/",
        "echo new >> /project/README.md",
        "rm /tmp/work/README.md",
    ] {
        let step = env.step(command).unwrap();
        assert!(
            step.info.get("guard").is_none(),
            "{command}: {}",
            step.observation
        );
        assert!(step.action_executed, "{command}: {}", step.observation);
    }
    assert_eq!(env.stats().destructive_refused, 0);
    assert_eq!(env.stats().dry_runs, 4);
}

#[test]
fn the_sql_bypass_corpus_is_refused_before_it_runs() {
    let mut env = guarded(EnvKind::Sql, None);
    let table = {
        let step = env.step("SHOW TABLES").unwrap();
        assert!(step.action_executed, "{}", step.observation);
        step.observation
    };
    let first_table = table.split('\'').nth(1).expect("a table name").to_string();
    let corpus = [
        format!("SELECT 1; COMMIT; DROP TABLE {first_table}"),
        format!("SELECT 1; /* harmless */ DELETE FROM {first_table}"),
        format!("-- just a comment\nDROP TABLE {first_table}"),
        format!("DELETE FROM {first_table}"),
        format!("UPDATE {first_table} SET rowid = rowid"),
        "PRAGMA writable_schema = 1".to_string(),
        "PRAGMA writable_schema".to_string(),
        "ATTACH DATABASE '/tmp/x.db' AS x".to_string(),
        "VACUUM INTO '/tmp/copy.db'".to_string(),
        format!("WITH gone AS (DELETE FROM {first_table} RETURNING *) SELECT * FROM gone"),
        format!("CREATE TABLE copy AS SELECT * FROM {first_table}"),
        format!("ALTER TABLE {first_table} RENAME TO renamed"),
        "BEGIN; DROP TABLE x; COMMIT".to_string(),
    ];
    for sql in &corpus {
        let step = env.step(sql).unwrap();
        assert!(!step.action_executed, "{sql}: ran");
        assert_eq!(
            step.info["guard"]["refused"], "sql_lint",
            "{sql}: {}",
            step.observation
        );
        assert!(
            step.observation.len() > "refused by the guard: ".len(),
            "{sql}"
        );
    }
    assert_eq!(env.stats().sql_refused, corpus.len());
    // Nothing changed: the table is still there with its rows.
    assert_eq!(env.step("SHOW TABLES").unwrap().observation, table);
    let count = env
        .step(&format!("SELECT count(*) FROM {first_table}"))
        .unwrap();
    assert!(count.action_executed, "{}", count.observation);
}

#[test]
fn a_critics_veto_reaches_the_agent_and_the_episode_goes_on() {
    let critic = Critic::Command(vec![
        "sh".into(),
        "-c".into(),
        "grep -q '\"action\":\"SELECT 1\"' && { echo 'check the schema first'; exit 1; }; exit 0"
            .into(),
    ]);
    let mut env = guarded(EnvKind::Sql, Some(critic));
    env.step("SELECT 1").unwrap();
    let vetoed = env.step("submit").unwrap();
    assert!(!vetoed.done);
    assert!(
        vetoed.observation.contains("check the schema first"),
        "{}",
        vetoed.observation
    );
    assert_eq!(env.stats().vetoes, 1);
    // The trajectory no longer has the action the critic objects to: accepted.
    env.reset(0).unwrap();
    env.step("SHOW TABLES").unwrap();
    assert!(env.step("submit").unwrap().done);
}

#[test]
fn checkpoints_roll_every_env_back() {
    // Bash: the tree is copied, so the rollback restores files exactly.
    let mut env = EnvSpec::new(EnvKind::Bash).build().unwrap();
    env.reset(0).unwrap();
    env.step("echo one > /tmp/a").unwrap();
    let cp = env.checkpoint().unwrap();
    env.step("echo two > /tmp/a; rm -rf /project").unwrap();
    env.rollback(&cp).unwrap();
    assert_eq!(env.turns().len(), 1);
    assert_eq!(env.step("cat /tmp/a").unwrap().observation, "one\n");
    assert!(env.step("ls /project/README.md").unwrap().action_executed);

    // SQL: rebuilt by replaying the kept statements on a fresh copy.
    let mut env = EnvSpec::new(EnvKind::Sql).build().unwrap();
    env.reset(0).unwrap();
    env.step("CREATE TABLE kept (x)").unwrap();
    let cp = env.checkpoint().unwrap();
    env.step("DROP TABLE kept").unwrap();
    env.rollback(&cp).unwrap();
    assert!(env.step("SELECT * FROM kept").unwrap().action_executed);

    // Python: the namespace rebuilt by replaying the kept cells.
    let mut env = EnvSpec::new(EnvKind::Python).build().unwrap();
    env.reset(0).unwrap();
    env.step("x = 41").unwrap();
    let cp = env.checkpoint().unwrap();
    env.step("x = 0").unwrap();
    env.rollback(&cp).unwrap();
    assert_eq!(env.step("x + 1").unwrap().observation, "42");
}

/// `intercode run --guard --critic-cmd`: the veto is in the record as a refused submission.
#[test]
fn the_harness_records_guard_refusals() {
    let dir = tempfile::tempdir().unwrap();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_intercode"))
        .args([
            "run",
            "sql",
            "--agent",
            "gold",
            "--only",
            "0",
            "--max-turns",
            "3",
            "--guard",
            "--critic-cmd",
            "sh -c false",
            "--out",
        ])
        .arg(dir.path().join("run"))
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let run = intercode::harness::run_dir::read_run(&dir.path().join("run")).unwrap();
    let record = &run.records[0];
    assert_eq!(
        record.end,
        intercode::data::trajectory::EpisodeEnd::TurnLimit
    );
    let refused: Vec<_> = record
        .actions
        .iter()
        .filter_map(|t| t.refused.as_deref())
        .collect();
    assert_eq!(refused, ["critic", "critic"], "{:?}", record.actions);
    assert_eq!(run.manifest.context["guard"]["sql_lint"], true);
}
