//! Commands of the bash sandbox that live in another guest module: `python3` is the Python
//! guest. The shell starts them by name like any applet; the host runs them from their own
//! module as a process of the same action, so they share its tree, stdio, environment, limits
//! and cancellation, and see nothing else.
//!
//! A program's module is loaded (or compiled) the first time the program runs, not before: a
//! bash episode that never starts `python3` never pays for an 18 MB module. The time spent
//! loading is not counted against the action's timeout (see [`super::action`]).

use super::process::ProcState;
use super::repl::{self, ReplModule};
use super::{Shared, poll};
use std::sync::{Arc, OnceLock};
use wasmtime::{Caller, Linker};

/// Loads the module a program runs from (usually a process-wide `OnceLock`).
pub type Loader = Arc<dyn Fn() -> crate::Result<ReplModule> + Send + Sync>;

/// One command served by another module.
pub(crate) struct Program {
    name: String,
    loader: Loader,
    linked: OnceLock<Result<Arc<Shared>, String>>,
}

impl Program {
    /// Native stack of the thread a process of this program runs on.
    pub const THREAD_STACK: usize = repl::THREAD_STACK;

    /// The module linked against the sandbox's imports; loaded on first use.
    pub fn shared(&self) -> Result<Arc<Shared>, String> {
        self.linked
            .get_or_init(|| {
                let module = (self.loader)().map_err(|e| e.to_string())?;
                link(&module).map(Arc::new).map_err(|e| format!("{e:#}"))
            })
            .clone()
    }

    pub fn name(&self) -> &str {
        &self.name
    }
}

/// The programs of one sandbox, found by the base name of argv[0].
#[derive(Clone, Default)]
pub(crate) struct Programs(Arc<Vec<Arc<Program>>>);

impl Programs {
    pub fn with(&self, name: &str, loader: Loader) -> Programs {
        let mut list: Vec<Arc<Program>> =
            self.0.iter().filter(|p| p.name != name).cloned().collect();
        list.push(Arc::new(Program {
            name: name.to_string(),
            loader,
            linked: OnceLock::new(),
        }));
        Programs(Arc::new(list))
    }

    pub fn find(&self, argv0: &str) -> Option<Arc<Program>> {
        let base = argv0.rsplit('/').next().unwrap_or(argv0);
        self.0.iter().find(|p| p.name == base).cloned()
    }
}

/// Links a program's module for processes of a bash action: WASI, our `proc_exit` and a
/// cancellable `poll_oneoff`. Its other imports (a REPL's request channel) trap if called.
fn link(module: &ReplModule) -> wasmtime::Result<Shared> {
    let engine = module.engine().clone();
    let mut linker: Linker<ProcState> = Linker::new(&engine);
    super::add_wasi(&mut linker)?;
    linker.func_wrap(
        "wasi_snapshot_preview1",
        "poll_oneoff",
        |caller: Caller<'_, ProcState>, subs: u32, events: u32, nsubs: u32, out: u32| {
            poll::poll_oneoff(caller, subs, events, nsubs, out, |state, deadline| {
                state.action.sleep_for_process(&state.me, deadline)
            })
        },
    )?;
    linker.define_unknown_imports_as_traps(module.module())?;
    let pre = linker.instantiate_pre(module.module())?;
    Ok(Shared { engine, pre })
}
