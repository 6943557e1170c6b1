//! `intercode shell ENV --task N`: `run --agent human` on one task, with the reward and its
//! parts printed at the end.

use super::ShellArgs;
use intercode::harness::agents::AgentFactory;
use intercode::harness::runner;
use std::process::ExitCode;

pub fn shell(args: ShellArgs) -> anyhow::Result<ExitCode> {
    let spec = args.source.spec(args.env)?;
    let mut env = spec.build()?;
    let mut policy = super::human::HumanAgent::new(spec).policy()?;
    let record = runner::run_episode(env.as_mut(), policy.as_mut(), args.task, args.max_turns);
    if let Some(e) = &record.error {
        anyhow::bail!("{e}");
    }
    println!("reward: {}", record.reward);
    println!("{}", serde_json::to_string_pretty(&record.info)?);
    Ok(ExitCode::SUCCESS)
}
