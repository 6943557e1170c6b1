"""The native API: reset / step / evaluate / submit / skip for the three envs, and the error
types a caller can rely on."""

from __future__ import annotations

import pytest

import intercode_wasm as ic
from intercode_wasm import (
    BadInputError,
    BashEnv,
    EpisodeStateError,
    IntercodeError,
    PythonEnv,
    SqlEnv,
    StepResult,
)


def test_bash_episode() -> None:
    with BashEnv() as env:
        query = env.reset(0)
        assert "ERROR" in query and env.tasks[0].query == query
        step = env.step("grep -c ERROR /project/logs/app.log")
        assert isinstance(step, StepResult)
        assert step.action_executed and step.exit_status == 0 and not step.done
        assert step.reward == 0
        assert env.evaluate().reward == 1.0  # scored, still running
        assert not env.done
        failed = env.step("ls /nonexistent")
        assert not failed.action_executed and failed.exit_status == 2
        assert "No such file" in failed.observation
        # The last observation decides the answer part of the reward.
        assert env.evaluate().reward < 1.0
        env.step(env.gold)
        done = env.submit()
        assert done.done and done.reward == 1.0 and done.action_executed
        assert done.upstream_info()["action_executed"] is True
        assert [t["action"] for t in env.turns()][-1] == "submit"


def test_bash_keeps_the_working_directory_between_actions() -> None:
    with BashEnv() as env:
        env.reset(0)
        env.step("cd /project/logs")
        assert env.step("pwd").observation == "/project/logs\n"


def test_sql_episode() -> None:
    with SqlEnv() as env:
        env.reset(0)
        step = env.step("SELECT count(*) FROM customers")
        assert step.observation == "[(6,)]"
        assert step.info["rows"] == [[6]] and step.info["columns"] == ["count(*)"]
        assert step.exit_status is None
        assert env.evaluate().reward == 1.0
        bad = env.step("SELECT nope FROM customers")
        assert not bad.action_executed and bad.observation.startswith("Error executing query")
        assert env.step("SHOW TABLES").action_executed
        assert env.step("USE school").action_executed
        assert env.step("submit").reward == 0.0


def test_sql_values_keep_their_python_types() -> None:
    with SqlEnv() as env:
        env.reset(2)
        step = env.step("SELECT name, price FROM products ORDER BY price DESC LIMIT 2")
        assert step.info["rows"] == [["Monitor", 199.0], ["Keyboard", 49.5]]
        assert isinstance(step.info["rows"][0][1], float)
        assert env.step("SELECT NULL, 1, 1.0").info["rows"] == [[None, 1, 1.0]]


def test_python_episode() -> None:
    with PythonEnv() as env:
        env.reset(0)
        step = env.step("def sum_of_squares(nums):\n    return sum(n * n for n in nums)")
        assert step.action_executed and step.info == {"output": "", "error": ""}
        assert env.step("sum_of_squares([1, 2])").observation == "5"
        raised = env.step("1 / 0")
        assert not raised.action_executed
        assert raised.info["error"] == "ZeroDivisionError: division by zero"
        assert env.evaluate().reward == 1.0
        assert env.submit("sum_of_squares").reward == 1.0


def test_skip_ends_with_reward_zero() -> None:
    with SqlEnv() as env:
        env.reset(0)
        skipped = env.skip()
        assert skipped.done and skipped.reward == 0 and skipped.observation == "skipped"
        with pytest.raises(EpisodeStateError):
            env.step("SELECT 1")


def test_tasks_and_spec() -> None:
    with SqlEnv(timeout_secs=5) as env:
        assert env.kind == "sql"
        assert env.spec["timeout_secs"] == 5 and env.spec["sql_data"] == "fixtures"
        n = len(env.tasks)
        assert n >= 20 and len(env.tasks[:3]) == 3
        task = env.tasks[-1]
        assert task.query and task.gold and task.tables
        env.reset(n - 1)
        assert env.current_index == n - 1
        assert env.gold == task.gold


@pytest.mark.parametrize("make", [BashEnv, SqlEnv, PythonEnv])
def test_errors_for_bad_input_and_wrong_time(make: type[ic.Env]) -> None:
    with make() as env:
        # A step before any reset: the episode state is wrong, nothing is lost.
        with pytest.raises(EpisodeStateError) as e:
            env.step("ls")
        assert isinstance(e.value, RuntimeError) and isinstance(e.value, IntercodeError)
        with pytest.raises(EpisodeStateError):
            env.evaluate()
        # A task index out of range: bad input, also a ValueError.
        with pytest.raises(BadInputError) as bad:
            env.reset(10_000)
        assert isinstance(bad.value, ValueError)
        assert "out of range" in str(bad.value)
        with pytest.raises(IndexError):
            env.tasks[10_000]
        with pytest.raises(OverflowError):
            env.reset(-1)
        # A step after the end.
        env.reset(0)
        env.submit()
        with pytest.raises(EpisodeStateError, match="reset"):
            env.step("submit")
        env.reset(1)  # and reset goes on
        env.close()
        assert env.closed
        with pytest.raises(EpisodeStateError, match="closed"):
            env.reset(0)
        env.close()  # closing twice is fine


def test_bad_specs_are_bad_input() -> None:
    with pytest.raises(BadInputError, match="unknown field"):
        ic.Env(env="sql", readonly=True)
    with pytest.raises(BadInputError, match="timeout_secs"):
        SqlEnv(timeout_secs=0)
    with pytest.raises(BadInputError):
        SqlEnv(env="bash")
    with pytest.raises(BadInputError):
        BashEnv(tasks="/nowhere/tasks.json")


def test_env_from_a_spec_dict() -> None:
    with ic.Env({"env": "python"}) as env:
        assert isinstance(env, ic.Env) and env.kind == "python"
        env.reset(0)
        assert env.step("2 + 3").observation == "5"


def test_is_complete_asks_the_envs_parser() -> None:
    with PythonEnv() as env:
        env.reset(0)
        assert not env.is_complete("def f(x):")
        assert env.is_complete("x = 1")
    with BashEnv() as env:
        env.reset(0)
        assert not env.is_complete("cat <<EOF\nabc")
        assert env.is_complete("cat <<EOF\nabc\nEOF")
