"""Many envs on many threads at once, and nothing of the host reachable from an episode."""

from __future__ import annotations

import os
import threading
import time
import uuid
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from intercode_wasm import BashEnv, PythonEnv, SqlEnv


def _episode(worker: int) -> tuple[int, float, str]:
    """A whole episode on a fresh env of the kind this worker drives."""
    kind = worker % 3
    if kind == 0:
        with BashEnv() as env:
            env.reset(worker % 5)
            # Files the gold does not touch would cost reward: only print.
            mine = env.step(f"echo worker {worker}").observation
            env.step(env.gold)
            return worker, env.submit().reward, mine
    if kind == 1:
        with SqlEnv() as env:
            env.reset(worker % 5)
            mine = env.step(f"SELECT {worker}").observation
            env.step(env.gold)
            return worker, env.submit().reward, mine
    with PythonEnv() as env:
        env.reset(0)
        mine = env.step(f"print({worker})").observation
        env.step("def sum_of_squares(nums):\n    return sum(n * n for n in nums)")
        return worker, env.submit().reward, mine


def test_eight_threads_with_their_own_envs() -> None:
    with ThreadPoolExecutor(max_workers=8) as pool:
        results = list(pool.map(_episode, range(16)))
    for worker, reward, mine in results:
        assert reward == 1.0, worker
        # Each episode saw its own action's output, nobody else's.
        expected = [f"worker {worker}\n", f"[({worker},)]", f"{worker}"][worker % 3]
        assert mine == expected


def test_the_gil_is_released_during_an_action() -> None:
    """A slow action on one thread does not stop Python code on another."""
    with BashEnv() as env:
        env.reset(0)
        ticks = 0
        stop = threading.Event()

        def count() -> None:
            nonlocal ticks
            while not stop.is_set():
                ticks += 1
                time.sleep(0.001)

        t = threading.Thread(target=count)
        t.start()
        start = time.monotonic()
        env.step("sleep 1")
        stop.set()
        t.join()
        assert time.monotonic() - start >= 0.9
        assert ticks > 100  # the counter kept running while the sandbox slept


def test_one_env_shared_by_threads_is_serialized() -> None:
    with SqlEnv() as env:
        env.reset(0)
        with ThreadPoolExecutor(max_workers=4) as pool:
            outs = list(pool.map(lambda i: env.step(f"SELECT {i}").observation, range(40)))
        assert outs == [f"[({i},)]" for i in range(40)]
        assert len(env.turns()) == 40


@pytest.fixture()
def canary() -> Path:
    path = Path("/tmp") / f"intercode-canary-{uuid.uuid4().hex}"
    path.write_text("host secret\n")
    yield path
    path.unlink()


def test_bash_sees_no_host_file(canary: Path) -> None:
    with BashEnv() as env:
        env.reset(0)
        hostname = env.step("cat /etc/hostname").observation.strip()
        # Upstream's container id, never the machine's own name.
        assert hostname == "4d01390b86bf"
        host_name = Path("/etc/hostname").read_text().strip() if Path(
            "/etc/hostname"
        ).exists() else os.uname().nodename
        assert hostname != host_name
        seen = env.step(f"cat {canary}")
        assert "host secret" not in seen.observation and not seen.action_executed
        assert canary.name not in env.step("ls -a /tmp").observation
        assert "No such file" in env.step(f"ls {canary}").observation
        # No path climbs out of the episode's root.
        escape = env.step(f"cat /../../..{canary}; cd /; cd ..; pwd; ls /proc /sys /dev")
        assert "host secret" not in escape.observation
        passwd = env.step("cat /etc/passwd").observation
        assert Path("/etc/passwd").read_text() != passwd


def test_python_sees_no_file_at_all(canary: Path) -> None:
    with PythonEnv() as env:
        env.reset(0)
        for code in ("open('/etc/passwd').read()", f"open({str(canary)!r}).read()"):
            step = env.step(code)
            assert not step.action_executed
            assert "host secret" not in step.observation and "root:" not in step.observation
        listing = env.step("import os\ntry:\n    print(os.listdir('/'))\nexcept OSError as e:\n    print('refused', type(e).__name__)")
        assert "refused" in listing.observation or listing.observation in ("[]", "")
        sockets = env.step("import socket\nsocket.create_connection(('127.0.0.1', 22), 1)")
        assert not sockets.action_executed


def test_sql_reads_no_host_file(canary: Path) -> None:
    with SqlEnv() as env:
        env.reset(0)
        for sql in (
            f"ATTACH DATABASE '{canary}' AS host",
            f"SELECT readfile('{canary}')",
            "SELECT load_extension('/lib/x86_64-linux-gnu/libc.so.6')",
        ):
            step = env.step(sql)
            assert not step.action_executed, sql
            assert "host secret" not in step.observation
