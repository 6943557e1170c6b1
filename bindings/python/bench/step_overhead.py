"""What a Python ``step()`` costs over the Rust call, and episodes per second from Python.

    python bindings/python/bench/step_overhead.py [--steps N] [--episodes N]

* Overhead: a SQL ``SELECT 1`` step timed inside the library (``NativeEnv.time_steps``: the
  Rust ``Env::step`` alone, measured in the same process on the same env) against the same
  step called from Python — through the raw extension call (a tuple back) and through the
  native API (``SqlEnv.step`` → ``StepResult``). The difference is what the binding adds:
  the call, releasing and retaking the GIL, locking the env, converting the result.
  Target: under 50 µs.
* Throughput: whole episodes (reset, the gold action, submit) per second with 1 and 2
  threads, each thread driving its own env, for SQL and bash.
"""

from __future__ import annotations

import argparse
import statistics
import threading
import time
from typing import Callable

from intercode_wasm import BashEnv, Env, SqlEnv


def per_call_us(samples_ns: list[int]) -> tuple[float, float]:
    """(median, mean) in microseconds."""
    return statistics.median(samples_ns) / 1e3, statistics.fmean(samples_ns) / 1e3


def time_python(call: Callable[[], object], n: int) -> list[int]:
    out = []
    clock = time.perf_counter_ns
    for _ in range(n):
        start = clock()
        call()
        out.append(clock() - start)
    return out


def overhead(steps: int) -> None:
    with SqlEnv() as env:
        env.reset(0)
        native = env._native
        # Warm-up: statement caches, allocator.
        native.time_steps("SELECT 1", 500)
        time_python(lambda: env.step("SELECT 1"), 500)
        rust = native.time_steps("SELECT 1", steps)
        raw = time_python(lambda: native.step("SELECT 1"), steps)
        api = time_python(lambda: env.step("SELECT 1"), steps)
    rust_med, rust_mean = per_call_us(rust)
    raw_med, raw_mean = per_call_us(raw)
    api_med, api_mean = per_call_us(api)
    print(f"SQL `SELECT 1` step, {steps} calls each (median / mean, µs):")
    print(f"  Rust Env::step inside the library   {rust_med:8.2f} / {rust_mean:8.2f}")
    print(f"  Python -> extension (tuple)          {raw_med:8.2f} / {raw_mean:8.2f}")
    print(f"  Python SqlEnv.step (StepResult)      {api_med:8.2f} / {api_mean:8.2f}")
    added = api_med - rust_med
    verdict = "under" if added < 50 else "OVER"
    print(f"  overhead of a Python step(): {added:.2f} µs median ({verdict} the 50 µs target)")


def episodes(make: Callable[[], Env], threads: int, per_thread: int) -> float:
    """Episodes per second: each thread resets, runs the gold, submits, per_thread times."""
    envs = [make() for _ in range(threads)]
    for env in envs:  # warm: the first episode builds caches (gold results, pools)
        n = len(env.tasks)
        for i in range(min(n, 5)):
            env.reset(i)
            env.step(env.gold)
            env.submit()
    barrier = threading.Barrier(threads + 1)

    def work(env: Env) -> None:
        n = len(env.tasks)
        barrier.wait()
        for k in range(per_thread):
            env.reset(k % min(n, 5))
            env.step(env.gold)
            assert env.submit().reward == 1.0

    workers = [threading.Thread(target=work, args=(e,)) for e in envs]
    for w in workers:
        w.start()
    barrier.wait()
    start = time.perf_counter()
    for w in workers:
        w.join()
    took = time.perf_counter() - start
    for env in envs:
        env.close()
    return threads * per_thread / took


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=20_000)
    parser.add_argument("--episodes", type=int, default=200, help="SQL episodes per thread")
    args = parser.parse_args()
    overhead(args.steps)
    print("Episodes per second (reset, gold action, submit; one env per thread):")
    for name, make, per in [
        ("sql", SqlEnv, args.episodes),
        ("bash", BashEnv, max(10, args.episodes // 10)),
    ]:
        one = episodes(make, 1, per)
        two = episodes(make, 2, per)
        print(f"  {name:5s} 1 thread {one:8.1f}/s   2 threads {two:8.1f}/s   ({two / one:.2f}x)")


if __name__ == "__main__":
    main()
