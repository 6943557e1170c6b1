"""The drop-in for upstream's env classes: constructor, types of what reset/step return,
submit after every action, preprocess, trajectories, upstream's quirks as options."""

from __future__ import annotations

import decimal
import json
from pathlib import Path
from typing import Dict, List

import pytest

from conftest import FIXTURES
from intercode_wasm import BadInputError, EpisodeStateError, UnsupportedFeatureError
from intercode_wasm.envs import (
    ACTION_EXEC,
    AGENT_OBS,
    CORRUPT_GOLD,
    EVAL_OBS,
    REWARD,
    BashEnv,
    IntercodeEnv,
    PythonEnv,
    SqlEnv,
)

SQL_TASKS = FIXTURES / "sql" / "tasks.json"
PY_TASKS = FIXTURES / "python" / "tasks.json"


def use_db(record: Dict) -> List:
    return [f"use {record['db']}"]


def test_constants() -> None:
    assert (ACTION_EXEC, AGENT_OBS, EVAL_OBS, CORRUPT_GOLD, REWARD) == (
        "action_executed",
        "agent_obs",
        "eval_obs",
        "corrupt_gold",
        "reward",
    )


def test_image_names_map_to_envs() -> None:
    for image, cls in [
        ("intercode-nl2bash", BashEnv),
        ("intercode-bash:latest", BashEnv),
        ("docker-env-sql", SqlEnv),
        ("intercode-python", PythonEnv),
    ]:
        env = IntercodeEnv(image)
        assert env.name == cls.name
        env.close()
    with pytest.raises(BadInputError, match="unknown image"):
        IntercodeEnv("ubuntu")
    with pytest.raises(BadInputError):
        BashEnv("docker-env-sql")
    with pytest.raises(UnsupportedFeatureError):
        IntercodeEnv("intercode-ctf")
    with pytest.raises(UnsupportedFeatureError, match="network"):
        BashEnv("intercode-bash", ports={"3306": 3306})


def test_bash_reset_step_submit_keeps_going(tmp_path: Path) -> None:
    env = BashEnv("intercode-nl2bash", traj_dir=tmp_path)
    obs, info = env.reset(0)
    assert obs == env.query == env.data_loader.get(0)["query"] and info == {}
    assert env.gold == env.record["gold"] and len(env.data_loader) == len(env.env.tasks)
    obs, reward, done, info = env.step("grep -c ERROR /project/logs/app.log")
    assert isinstance(obs, str) and reward == 0 and done is False
    assert info == {ACTION_EXEC: True}
    # eval_n_turn.py: "submit" after every action, and the episode goes on.
    prev, reward, done, info = env.step("submit")
    assert prev == obs and reward == 1.0 and done is True and info[ACTION_EXEC] is True
    assert set(info[REWARD]) == {"file_diff", "file_changes", "answer_similarity"}
    obs, reward, done, info = env.step("ls /nope")
    assert done is False and info[ACTION_EXEC] is False
    assert REWARD in info  # upstream's info keeps the previous reward's fields
    _, reward, _, _ = env.step("submit")
    assert reward < 1.0
    # Each submit saved upstream's trajectory file.
    logs = sorted((tmp_path / "logs_ic_bash").glob("log_*.json"))
    assert len(logs) == 2
    saved = json.loads(logs[-1].read_text())
    assert set(saved) == {"environment", "query_idx", "query", "gold", "reward", "trajectory", "info"}
    assert saved["environment"] == "ic_bash" and saved["query_idx"] == 0
    assert [t["action"] for t in saved["trajectory"]] == [
        "grep -c ERROR /project/logs/app.log",
        "submit",
        "ls /nope",
        "submit",
    ]
    assert saved["trajectory"][1]["observation"] == "None"
    assert env.step("skip") == ("skipped", 0, True, {})
    env.close()


def test_sql_observations_are_lists_of_tuples() -> None:
    env = SqlEnv("docker-env-sql", data_path=SQL_TASKS, preprocess=use_db, sql_data="fixtures")
    obs, info = env.reset(0)
    assert obs is None and info == {ACTION_EXEC: True}  # the output of `use db`
    obs, _, _, info = env.step("SELECT name, city FROM customers ORDER BY customer_id LIMIT 2")
    assert isinstance(obs, list) and all(isinstance(r, tuple) for r in obs)
    assert obs[0] == ("Ada Lovelace", "London")
    obs, _, _, info = env.step("SELECT nope FROM customers")
    assert isinstance(obs, str) and obs.startswith("Error executing query") and not info[ACTION_EXEC]
    obs, _, _, _ = env.step("CREATE TABLE t (x int)")
    assert obs is None
    env.step(env.gold)
    _, reward, done, info = env.step("submit")
    assert reward == 1.0 and done and info[CORRUPT_GOLD] is False
    assert info[AGENT_OBS] == info[EVAL_OBS]
    # The episode is still open: the agent's table is there.
    obs, _, _, info = env.step("SELECT count(*) FROM t")
    assert obs == [(0,)]
    # A new episode starts fresh (upstream's SQL env never reset).
    env.reset(0)
    _, _, _, info = env.step("SELECT count(*) FROM t")
    assert info[ACTION_EXEC] is False
    env.close()


def test_sql_values_json_cannot_hold_come_back_as_python_objects() -> None:
    from intercode_wasm.compat import _sql_rows
    from intercode_wasm import StepResult

    rows = [["Decimal('10.50')", "Decimal('1')", "datetime.date(2020, 1, 2)", "b'\\x00a'"]]
    text = "[(Decimal('10.50'), 'Decimal(\\'1\\')', datetime.date(2020, 1, 2), b'\\x00a')]"
    step = StepResult(text, 0.0, False, True, None, {"rows": rows})
    (row,) = _sql_rows(step)
    assert row[0] == decimal.Decimal("10.50") and isinstance(row[0], decimal.Decimal)
    assert row[1] == "Decimal('1')"  # a string column holding that text stays a string
    assert str(row[2]) == "2020-01-02" and row[3] == b"\x00a"


def test_python_observations_are_dicts() -> None:
    env = PythonEnv("intercode-python", data_path=PY_TASKS)
    obs, _ = env.reset(0)
    assert obs == env.query
    obs, _, _, info = env.step("def sum_of_squares(nums):\n    return sum(n * n for n in nums)")
    assert obs == {"output": "", "error": ""} and info[ACTION_EXEC] is True
    obs, _, _, info = env.step("sum_of_squares([3])")
    assert obs == {"output": "9", "error": ""}
    obs, _, _, info = env.step("undefined_name")
    assert obs["error"].startswith("NameError") and info[ACTION_EXEC] is False
    _, reward, done, info = env.step("submit sum_of_squares")
    assert reward == 1.0 and done
    # still running
    obs, _, _, _ = env.step("sum_of_squares([1, 1])")
    assert obs["output"] == "2"
    env.close()


def test_upstream_quirks_are_options() -> None:
    upstream = PythonEnv("intercode-python", upstream_python_action_executed=True)
    upstream.reset(0)
    assert upstream.step("1 / 0")[3][ACTION_EXEC] is True  # inverted, as upstream's
    assert upstream.step("1 + 1")[3][ACTION_EXEC] is False
    upstream.close()
    quoted = BashEnv("intercode-bash", upstream_quoting=True)
    quoted.reset(0)
    assert quoted.step('echo "a b"')[0] == "a\n"  # upstream's shlex split the command
    quoted.close()
    faithful = BashEnv("intercode-bash")
    faithful.reset(0)
    assert faithful.step('echo "a b"')[0] == "a b\n"
    faithful.close()


def test_end_on_submit_ends_the_episode() -> None:
    env = SqlEnv("docker-env-sql", end_on_submit=True)
    env.reset(0)
    env.step("SELECT 1")
    env.step("submit")
    with pytest.raises(EpisodeStateError):
        env.step("SELECT 1")
    env.close()


def test_preprocess_failure_raises() -> None:
    def broken(record: Dict) -> List:
        return ["use no_such_db"]

    env = SqlEnv("docker-env-sql", data_path=SQL_TASKS, preprocess=broken, sql_data="fixtures")
    with pytest.raises(RuntimeError, match="no_such_db"):
        env.reset(0)
    env.close()


def test_random_index_and_data_loader() -> None:
    env = SqlEnv("docker-env-sql", data_path=SQL_TASKS, sql_data="fixtures", preprocess=use_db)
    record = env.data_loader.get(3)
    assert record == json.loads(SQL_TASKS.read_text())[3]
    env.reset()
    assert 0 <= env.query_idx < len(env.data_loader)
    with pytest.raises(BadInputError):
        env.data_loader.get(len(env.data_loader))
    env.close()


def test_upstream_data_paths(shared: Path) -> None:
    data = shared / "intercode-upstream" / "data"
    bash = BashEnv("intercode-nl2bash", data_path=data / "nl2bash" / "nl2bash_fs_1.json")
    bash.reset(0)
    bash.step(bash.gold)
    assert bash.step("submit")[1] == 1.0
    bash.close()
    sql = SqlEnv(
        "docker-env-sql",
        data_path=data / "sql" / "spider" / "ic_spider_dev.json",
        preprocess=use_db,
    )
    assert len(sql.data_loader) == 1034
    obs, _ = sql.reset(0)
    assert obs is None
    sql.step(sql.gold)
    assert sql.step("submit")[1] == 1.0
    sql.close()
