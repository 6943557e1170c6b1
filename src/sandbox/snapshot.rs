//! Snapshots of a guest after its start-up work, saved as a new module.
//!
//! Starting a RustPython interpreter (its own init, the harness, the warm-up imports) costs tens
//! of milliseconds of guest code, and every episode, `evaluate` fork and restart needs a fresh
//! one. That work gives the same linear memory every time (no clock or randomness reaches it),
//! so it is done once: the guest exports an init function that does the start-up and returns;
//! afterwards the instance's memory and mutable globals are written into a copy of the module as
//! its initial state (wasmtime-wizer's rewrite). A process of that module maps the memory
//! copy-on-write and its `_start` goes straight to serving requests.
//!
//! Wizer reads state through exports it adds ("instrumentation"), so the module every process
//! runs is the instrumented one: the same code with a few more exports.

use std::future::Future;
use std::task::{Context, Poll, Waker};
use wasmtime::{Instance, Store, Val};
use wasmtime_wizer::{InstanceState, SnapshotVal, ValType, Wizer};

fn wizer(init_func: &str) -> Wizer {
    let mut w = Wizer::new();
    w.init_func(init_func);
    w
}

/// `wasm` with its mutable globals and memories exported under Wizer's names.
pub(crate) fn instrument(wasm: &[u8]) -> crate::Result<Vec<u8>> {
    let (_, instrumented) = Wizer::new()
        .instrument(wasm)
        .map_err(|e| crate::Error::Guest(format!("cannot instrument the guest: {e:#}")))?;
    Ok(instrumented)
}

/// The module `wasm` with the state of `instance` (an instance of [`instrument`]`(wasm)` whose
/// init function has returned) as its initial state.
pub(crate) fn snapshot<T: Send>(
    wasm: &[u8],
    init_func: &str,
    store: &mut Store<T>,
    instance: Instance,
) -> crate::Result<Vec<u8>> {
    let w = wizer(init_func);
    let (cx, _) = w
        .instrument(wasm)
        .map_err(|e| crate::Error::Guest(format!("cannot instrument the guest: {e:#}")))?;
    let mut state = Live { store, instance };
    let rewritten = now(w.snapshot(&cx, &mut state))
        .map_err(|e| crate::Error::Guest(format!("cannot snapshot the guest: {e:#}")))?;
    Ok(rewritten)
}

/// Runs a future that never waits: Wizer's interface is async, ours reads memory directly.
fn now<F: Future>(future: F) -> F::Output {
    let mut future = std::pin::pin!(future);
    match future
        .as_mut()
        .poll(&mut Context::from_waker(Waker::noop()))
    {
        Poll::Ready(v) => v,
        Poll::Pending => unreachable!("the snapshot's reads complete at once"),
    }
}

/// A finished instance, read by Wizer.
struct Live<'a, T: 'static> {
    store: &'a mut Store<T>,
    instance: Instance,
}

impl<T: Send> InstanceState for Live<'_, T> {
    async fn global_get(&mut self, name: &str, _: ValType) -> SnapshotVal {
        let global = self
            .instance
            .get_global(&mut *self.store, name)
            .expect("the instrumented module exports its globals");
        match global.get(&mut *self.store) {
            Val::I32(x) => SnapshotVal::I32(x),
            Val::I64(x) => SnapshotVal::I64(x),
            Val::F32(x) => SnapshotVal::F32(x),
            Val::F64(x) => SnapshotVal::F64(x),
            Val::V128(x) => SnapshotVal::V128(x.as_u128()),
            // Wizer refuses modules with reference-typed mutable globals before this point.
            other => unreachable!("a mutable global of type {:?}", other.ty(&*self.store)),
        }
    }

    async fn memory_contents(&mut self, name: &str, contents: impl FnOnce(&[u8]) + Send) {
        let memory = self
            .instance
            .get_memory(&mut *self.store, name)
            .expect("the instrumented module exports its memories");
        contents(memory.data(&*self.store))
    }
}
