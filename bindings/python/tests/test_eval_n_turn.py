"""Upstream's Try Again harness on the drop-in gives the rewards the CLI gives.

``fixtures/eval_n_turn_like.py`` makes upstream ``eval_n_turn.py``'s calls with a stub policy
that replays fixed actions and writes upstream's results file; ``intercode run ENV --agent
replay --from THAT_FILE`` replays the same actions through the Rust harness. Every per-turn
reward must be the same.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any, Optional

import pytest

from conftest import FIXTURES, REPO, run_cli

SCRIPT = Path(__file__).parent / "fixtures" / "eval_n_turn_like.py"

BASH_ACTIONS = {
    "0": ["ls /project/logs", "grep ERROR /project/logs/app.log", "grep -c ERROR /project/logs/app.log"],
    "1": ["find /project | wc -l", "find /project -type f | wc -l"],
    "2": ["head -3 /project/data/sales.csv", "rm /project/data/sales.csv", "echo 0"],
    "4": ["awk '{print $9}' /project/logs/access.log | sort | uniq -c | sort -rn"],
}
SQL_ACTIONS = {
    "0": ["SHOW TABLES", "DESC customers", "SELECT count(*) FROM customers"],
    "1": ["SELECT name FROM customers", "SELECT name FROM customers WHERE city = 'London'"],
    "2": [
        "SELECT name, price FROM products ORDER BY price",
        "SELECT name, price FROM products ORDER BY price DESC",
    ],
    "4": ["SELECT category, avg(price) FROM products GROUP BY category", "SELECT nope"],
}
PY_ACTIONS = {
    "0": [
        "def sum_of_squares(nums):\n    return sum(nums)",
        "def sum_of_squares(nums):\n    return sum(n * n for n in nums)",
    ],
    "1": ["def reverse_words(s):\n    return s[::-1]"],
    "3": [
        "def is_palindrome(s):\n    return s == s[::-1]",
        "def is_palindrome(s):\n    t = [c for c in s.lower() if c.isalpha()]\n    return t == t[::-1]",
    ],
}


def run_harness(
    tmp_path: Path,
    env: str,
    actions: dict[str, list[Optional[str]]],
    data_path: Optional[Path] = None,
    sql_data: Optional[str] = None,
) -> dict[str, Any]:
    actions_file = tmp_path / f"{env}_actions.json"
    actions_file.write_text(json.dumps(actions))
    # Upstream's file name carries the env (`ic_<env>_...`), which the CLI reads.
    log_path = tmp_path / f"ic_{env}_stub_policy.json"
    cmd = [sys.executable, str(SCRIPT), "--env", env, "--actions", str(actions_file)]
    cmd += ["--log_path", str(log_path), "--traj_dir", str(tmp_path / "traj")]
    if data_path is not None:
        cmd += ["--data_path", str(data_path)]
    if sql_data is not None:
        cmd += ["--sql_data", sql_data]
    subprocess.run(cmd, check=True, cwd=tmp_path, timeout=600)
    log: dict[str, Any] = json.loads(log_path.read_text())
    log["__path__"] = str(log_path)
    return log


def cli_rewards(
    cli: Path, env: str, log: dict[str, Any], *extra: str
) -> dict[str, list[float]]:
    only = ",".join(k for k in log if k != "__path__")
    records = run_cli(
        cli, "run", env, "--agent", "replay", "--from", log["__path__"], "--only", only, *extra
    )
    return {str(r["task_index"]): [a["reward"] for a in r["actions"]] for r in records}


def harness_rewards(log: dict[str, Any]) -> dict[str, list[float]]:
    return {
        k: [float(r) for r in v["turn_history"]["rewards"]]
        for k, v in log.items()
        if k != "__path__"
    }


def test_bash_rewards_equal_the_cli_replay(tmp_path: Path, intercode_cli: Path) -> None:
    log = run_harness(tmp_path, "bash", BASH_ACTIONS)
    ours = harness_rewards(log)
    assert ours == cli_rewards(intercode_cli, "bash", log)
    # The harness stopped at reward 1, as upstream's does, and the log says so.
    assert ours["0"][-1] == 1.0 and log["0"]["summary"]["turns_taken"] == 3
    assert 0 < min(ours["2"]) < 1
    assert (tmp_path / "traj" / "logs_ic_bash").is_dir()


def test_sql_rewards_equal_the_cli_replay(tmp_path: Path, intercode_cli: Path) -> None:
    tasks = FIXTURES / "sql" / "tasks.json"
    log = run_harness(tmp_path, "sql", SQL_ACTIONS, tasks, sql_data="fixtures")
    ours = harness_rewards(log)
    assert ours == cli_rewards(intercode_cli, "sql", log, "--tasks", str(tasks))
    assert ours["2"] == [ours["2"][0], 1.0] and ours["2"][0] < 1.0  # order counts
    assert log["0"]["hardness"] == "easy"


def test_python_rewards_equal_the_cli_replay(tmp_path: Path, intercode_cli: Path) -> None:
    tasks = FIXTURES / "python" / "tasks.json"
    log = run_harness(tmp_path, "python", PY_ACTIONS, tasks)
    ours = harness_rewards(log)
    assert ours == cli_rewards(intercode_cli, "python", log, "--tasks", str(tasks))
    assert ours["0"] == [ours["0"][0], 1.0] and ours["0"][0] < 1.0


def test_upstream_data_rewards_equal_the_cli_replay(
    tmp_path: Path, intercode_cli: Path, shared: Path
) -> None:
    """Upstream's own task files, with no extra argument: nl2bash fs_1 and Spider dev on
    upstream's MySQL rows."""
    data = shared / "intercode-upstream" / "data"
    nl2bash = data / "nl2bash" / "nl2bash_fs_1.json"
    golds = json.loads(nl2bash.read_text())
    actions = {"0": ["ls /", golds[0]["gold"]], "5": ["echo hello", golds[5]["gold"]]}
    log = run_harness(tmp_path, "bash", actions, nl2bash)
    assert harness_rewards(log) == cli_rewards(
        intercode_cli, "bash", log, "--tasks", str(nl2bash), "--data-dir", str(shared)
    )
    spider = data / "sql" / "spider" / "ic_spider_dev.json"
    records = json.loads(spider.read_text())
    actions = {str(i): ["SHOW TABLES", records[i]["gold"]] for i in (0, 7, 54)}
    log = run_harness(tmp_path, "sql", actions, spider)
    assert harness_rewards(log) == cli_rewards(
        intercode_cli, "sql", log, "--data", "upstream-mysql", "--data-dir", str(shared)
    )
    assert all(r[-1] == 1.0 for r in harness_rewards(log).values())


def test_the_fixture_only_changed_the_import_line() -> None:
    text = SCRIPT.read_text()
    imports = [
        line
        for line in text.splitlines()
        if line.startswith(("from ", "import ")) and "intercode" in line
    ]
    assert imports == ["from intercode_wasm.envs import ACTION_EXEC, BashEnv, PythonEnv, SqlEnv"]
    assert str(REPO) not in text
