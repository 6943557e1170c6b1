//! `intercode mcp` and `intercode serve`: the options turned into an [`AppState`], a tokio
//! runtime, and the transport.

use super::{McpArgs, ServeArgs, ServerArgs};
use anyhow::Context;
use intercode::harness::guard::{Critic, GuardOptions};
use intercode::server::episodes::Limits;
use intercode::server::{AppState, HttpOptions};
use std::net::SocketAddr;
use std::process::ExitCode;
use std::time::Duration;

pub fn mcp(args: McpArgs) -> anyhow::Result<ExitCode> {
    let state = state(&args.server)?;
    let runtime = runtime()?;
    match &args.http {
        None => runtime.block_on(async {
            state.spawn_reaper();
            intercode::server::mcp::serve_stdio(state).await
        })?,
        Some(addr) => {
            let addr = address(addr, args.server.allow_remote)?;
            let options = HttpOptions {
                allow_remote: args.server.allow_remote,
            };
            runtime.block_on(serve_http(
                addr,
                intercode::server::mcp_only(state.clone(), &options),
                state,
                "MCP (Streamable HTTP) at http://{}/mcp",
            ))?;
        }
    }
    Ok(ExitCode::SUCCESS)
}

pub fn serve(args: ServeArgs) -> anyhow::Result<ExitCode> {
    let state = state(&args.server)?;
    let addr = address(&args.http, args.server.allow_remote)?;
    let options = HttpOptions {
        allow_remote: args.server.allow_remote,
    };
    runtime()?.block_on(serve_http(
        addr,
        intercode::server::app(state.clone(), &options),
        state,
        "gym API at http://{}/envs (OpenAPI: /openapi.json), MCP at /mcp",
    ))?;
    Ok(ExitCode::SUCCESS)
}

fn runtime() -> anyhow::Result<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("starting the async runtime")
}

fn state(args: &ServerArgs) -> anyhow::Result<AppState> {
    let critic = match (&args.critic_cmd, &args.critic_url) {
        (Some(cmd), _) => Some(Critic::Command(
            intercode::env::shlex::split(cmd)
                .filter(|argv| !argv.is_empty())
                .with_context(|| format!("--critic-cmd {cmd:?}: not a command line"))?,
        )),
        (None, Some(url)) => Some(Critic::Http(url.clone())),
        (None, None) => None,
    };
    anyhow::ensure!(args.max_episodes > 0, "--max-episodes must be at least 1");
    anyhow::ensure!(
        args.idle_timeout > 0,
        "--idle-timeout must be at least 1 second"
    );
    let limits = Limits {
        max_episodes: args.max_episodes,
        idle_timeout: Duration::from_secs(args.idle_timeout),
        max_memory_mib: args.max_memory_mb,
        ..Limits::default()
    };
    Ok(AppState::new(limits, GuardOptions::all(critic), args.guard))
}

/// The address to listen on; loopback only unless `--allow-remote`.
fn address(addr: &str, allow_remote: bool) -> anyhow::Result<SocketAddr> {
    let addr: SocketAddr = match addr.strip_prefix("localhost:") {
        Some(port) => format!("127.0.0.1:{port}").parse(),
        None => addr.parse(),
    }
    .with_context(|| format!("{addr:?} is not an address like 127.0.0.1:8080"))?;
    anyhow::ensure!(
        addr.ip().is_loopback() || allow_remote,
        "{addr} is not a loopback address: anyone who reaches it could run sandboxes and read \
         the server's task files; pass --allow-remote if that is what you want"
    );
    Ok(addr)
}

async fn serve_http(
    addr: SocketAddr,
    router: axum::Router,
    state: AppState,
    banner: &str,
) -> anyhow::Result<()> {
    let listener = tokio::net::TcpListener::bind(addr)
        .await
        .with_context(|| format!("listening on {addr}"))?;
    let bound = listener.local_addr()?;
    state.spawn_reaper();
    // The bound address on stderr (port 0 picks one): scripts and tests read it from there.
    eprintln!("intercode: {}", banner.replace("{}", &bound.to_string()));
    axum::serve(listener, router)
        .with_graceful_shutdown(shutdown())
        .await
        .context("serving HTTP")?;
    Ok(())
}

/// Ctrl-C or SIGTERM: stop taking requests, let the running ones finish, then the episodes
/// are dropped (their sandbox directories removed) on the way out.
async fn shutdown() {
    let mut term = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()).ok();
    tokio::select! {
        _ = tokio::signal::ctrl_c() => {}
        () = async {
            match term.as_mut() {
                Some(t) => { t.recv().await; }
                None => std::future::pending::<()>().await,
            }
        } => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_loopback_without_allow_remote() {
        assert!(address("127.0.0.1:0", false).is_ok());
        assert!(address("localhost:8080", false).is_ok());
        assert!(address("[::1]:8080", false).is_ok());
        assert!(address("0.0.0.0:8080", false).is_err());
        assert!(address("0.0.0.0:8080", true).is_ok());
        assert!(address("nonsense", true).is_err());
    }
}
