//! A guard against running out of stack. The guest's wasm stack is small and fixed (1 MiB by
//! default for wasm32-wasip1) and overflowing it traps the whole instance; the parser and
//! the evaluator recurse, so they check how far the stack has grown and report an awk error
//! instead. Addresses of locals are a safe proxy for the stack pointer on every target.

/// How much stack the awk interpreter may use, below the point where it started.
#[cfg(target_family = "wasm")]
const BUDGET: usize = 640 * 1024;
/// Natively the tests run on 2 MiB threads, and debug frames are several times larger.
#[cfg(not(target_family = "wasm"))]
const BUDGET: usize = 1536 * 1024;

/// An address in the current stack frame.
#[inline(always)]
pub fn here() -> usize {
    let probe = 0u8;
    std::hint::black_box(&probe) as *const u8 as usize
}

/// True once the stack has grown more than the budget since `base` (from [`here`]).
#[inline(always)]
pub fn exhausted(base: usize) -> bool {
    base.abs_diff(here()) > BUDGET
}
