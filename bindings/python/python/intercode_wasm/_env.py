"""The native Pythonic API: one class per env over the Rust library's ``Env``.

Every env is built from an ``EnvSpec`` (the same spec the ``intercode`` CLI builds from, so an
env behaves the same from Python as from the command line)::

    from intercode_wasm import SqlEnv

    with SqlEnv() as env:                     # the embedded SQL fixtures
        query = env.reset(0)
        step = env.step("SELECT count(*) FROM customers")
        print(step.observation, step.action_executed)
        print(env.evaluate().reward)          # scored, the episode goes on
        print(env.submit().reward)            # scored and over

Calls that run sandbox work release the GIL: threads driving different envs run in parallel.
One env is used by one thread at a time (calls on the same env from several threads are
serialized by a lock inside it).
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator, Mapping, Sequence
from typing import Any, NamedTuple, Optional, Union, overload

from . import _native

__all__ = [
    "Env",
    "BashEnv",
    "SqlEnv",
    "PythonEnv",
    "StepResult",
    "Evaluation",
    "TaskInfo",
    "Tasks",
    "ExecOutput",
    "spec_fields",
]

PathLike = Union[str, "os.PathLike[str]"]

#: The fields of the library's ``EnvSpec`` (``src/env/spec.rs``), with what each means.
spec_fields: dict[str, str] = {
    "env": "bash | sql | python",
    "tasks": "task file in upstream's format; None: the embedded fixtures",
    "fs": "bash: the file tree (fs_N.effective.tar.gz); None: found beside the task file",
    "sql_data": "sql: fixtures | spider | upstream-mysql",
    "data_dir": "where the public data lives; None: $INTERCODE_DATA_DIR, else ../shared",
    "timeout_secs": "seconds one action may run (default 10)",
    "clock": "bash: pin the sandbox clock to these seconds since the epoch",
    "persistent": "bash: keep shell variables and functions between actions",
    "upstream_quoting": "bash: upstream's broken bash -c \"...\" quoting",
    "upstream_reset": "bash: upstream's reset between tasks (one tree per run, "
    "git puts back what it tracks)",
    "read_only": "sql: refuse every statement that would write",
}


class StepResult(NamedTuple):
    """What one ``step`` (or ``submit`` / ``skip``) returned."""

    observation: str
    """What the agent sees: bash output (stdout and stderr), the SQL rows as Python's
    ``str(rows)`` (or the error), the Python REPL's output."""
    reward: float
    """0 for an executed action; the score for ``submit``."""
    done: bool
    """True once the episode ended (``submit`` / ``skip``)."""
    action_executed: bool
    """The action ran without error (bash: exit status 0; SQL: no error; Python: no
    exception). True for ``submit`` and ``skip``."""
    exit_status: Optional[int]
    """The bash process's exit status; None for SQL, Python, and a stopped command."""
    info: dict[str, Any]
    """The rest: SQL ``columns`` / ``rows`` / ``database``; Python ``output`` / ``error``;
    after ``submit`` the reward's parts."""

    def upstream_info(self) -> dict[str, Any]:
        """Upstream's ``info`` dict: ``info`` plus ``action_executed`` (and ``exit_status``
        where there is one)."""
        info = dict(self.info)
        info["action_executed"] = self.action_executed
        if self.exit_status is not None:
            info["exit_status"] = self.exit_status
        return info

    def as_upstream(self) -> tuple[str, float, bool, dict[str, Any]]:
        """``(observation, reward, done, info)``, the shape of upstream's ``step``."""
        return self.observation, self.reward, self.done, self.upstream_info()


class Evaluation(NamedTuple):
    """A score taken without ending the episode."""

    reward: float
    info: dict[str, Any]


class TaskInfo(NamedTuple):
    """One task of the env's task set."""

    query: str
    gold: str
    category: Optional[str]
    """SQL: Spider hardness; bash: the task set's name; Python: None."""
    tables: list[tuple[str, list[str]]]
    """SQL: the tables of the task's database with their columns."""


class ExecOutput(NamedTuple):
    """What ``BashEnv.exec`` ran: a process's result."""

    returncode: Optional[int]
    """None when the sandbox stopped the command (a timeout or a limit; ``stdout`` says
    which)."""
    stdout: str
    stderr: str
    separated: bool
    """False when the output was cut at the sandbox's output limit before stderr could be
    told apart; everything is then in ``stdout``."""


class Tasks(Sequence[TaskInfo]):
    """The env's task set: ``len(env.tasks)``, ``env.tasks[i].query``."""

    def __init__(self, native: _native.NativeEnv) -> None:
        self._native = native

    def __len__(self) -> int:
        return self._native.task_count()

    @overload
    def __getitem__(self, index: int) -> TaskInfo: ...

    @overload
    def __getitem__(self, index: slice) -> list[TaskInfo]: ...

    def __getitem__(self, index: Union[int, slice]) -> Union[TaskInfo, list[TaskInfo]]:
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(len(self)))]
        n = len(self)
        if index < 0:
            index += n
        if not 0 <= index < n:
            raise IndexError(f"task index {index} out of range ({n} tasks)")
        t = self._native.task(index)
        return TaskInfo(t["query"], t["gold"], t["category"], t["tables"])

    def __iter__(self) -> Iterator[TaskInfo]:
        for i in range(len(self)):
            yield self[i]


def _spec_value(value: Any) -> Any:
    """Paths become strings for the JSON spec."""
    if isinstance(value, os.PathLike):
        return os.fspath(value)
    return value


class Env:
    """An InterCode env (bash, SQL or Python), built from an ``EnvSpec``.

    ``Env({"env": "sql", "sql_data": "spider"})`` or ``Env(env="sql", sql_data="spider")``;
    the fields are those of :data:`spec_fields`. Unknown fields are refused
    (:class:`~intercode_wasm.BadInputError`).

    Errors: :class:`~intercode_wasm.EpisodeStateError` for a call at the wrong time (a step
    before ``reset`` or after the end), :class:`~intercode_wasm.BadInputError` for wrong input
    (a task index out of range, a bad spec), :class:`~intercode_wasm.HostError` for a host
    failure. Exit codes, SQL errors and Python exceptions are observations, not errors.
    """

    _kind: Optional[str] = None

    def __init__(self, spec: Optional[Mapping[str, Any]] = None, /, **fields: Any) -> None:
        merged: dict[str, Any] = dict(spec or {})
        merged.update(fields)
        if self._kind is not None:
            given = merged.setdefault("env", self._kind)
            if given != self._kind:
                from ._errors import BadInputError

                raise BadInputError(f"{type(self).__name__} is a {self._kind} env, not {given}")
        spec_json = json.dumps({k: _spec_value(v) for k, v in merged.items()})
        self._native = _native.NativeEnv(spec_json)
        self._tasks = Tasks(self._native)

    # -- what the env is ------------------------------------------------------------------

    @property
    def kind(self) -> str:
        """``"bash"``, ``"sql"`` or ``"python"``."""
        return self._native.kind

    @property
    def spec(self) -> dict[str, Any]:
        """The spec the env was built from, every field filled in."""
        spec: dict[str, Any] = json.loads(self._native.spec_json)
        return spec

    @property
    def tasks(self) -> Tasks:
        """The task set (``len``, indexing, iteration)."""
        return self._tasks

    # -- the episode ----------------------------------------------------------------------

    def reset(self, index: int) -> str:
        """Starts a fresh episode on task ``index``; returns the task's query."""
        return self._native.reset(index)

    def step(self, action: str) -> StepResult:
        """Runs one action; ``"submit"`` / ``"submit NAME"`` / ``"skip"`` end the episode."""
        return StepResult(*self._native.step(action))

    def evaluate(self) -> Evaluation:
        """Scores the episode as ``submit`` would, without ending it."""
        return Evaluation(*self._native.evaluate())

    def submit(self, name: Optional[str] = None) -> StepResult:
        """Ends the episode and scores it (``name``: the Python function to test)."""
        return StepResult(*self._native.submit(name))

    def skip(self) -> StepResult:
        """Ends the episode with reward 0."""
        return StepResult(*self._native.skip())

    @property
    def current_index(self) -> Optional[int]:
        """The task index of the running (or just ended) episode."""
        return self._native.current_index()

    @property
    def done(self) -> bool:
        """Whether the current episode has ended."""
        return self._native.is_done()

    @property
    def gold(self) -> str:
        """The current task's gold solution."""
        return self._native.gold()

    def turns(self) -> list[dict[str, Any]]:
        """The episode's actions so far with their observations (``submit`` included)."""
        turns: list[dict[str, Any]] = self._native.turns()
        return turns

    def is_complete(self, source: str) -> bool:
        """Whether ``source`` is a whole action, or more lines must follow (a here-document,
        an indented Python block)."""
        return self._native.is_complete(source)

    # -- lifetime -------------------------------------------------------------------------

    def close(self) -> None:
        """Frees the episode's sandbox, databases or interpreter. Idempotent."""
        self._native.close()

    @property
    def closed(self) -> bool:
        return self._native.closed

    def __enter__(self) -> "Env":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        state = "closed" if self.closed else f"task {self.current_index}"
        return f"{type(self).__name__}({self._native.spec_json}; {state})"


class BashEnv(Env):
    """InterCode-Bash: each action is a bash script run in the episode's sandbox (a fresh copy
    of the task's file tree; no network, no host files). ``submit`` runs the gold in another
    fresh copy and compares files and output."""

    _kind = "bash"

    def __enter__(self) -> "BashEnv":
        return self

    def exec(
        self,
        argv: Sequence[str],
        stdin: Union[str, bytes, None] = None,
        cwd: Optional[str] = None,
        env: Optional[Mapping[str, str]] = None,
        timeout: Optional[float] = None,
    ) -> ExecOutput:
        """Runs ``argv`` as one process in the running episode: its own stdin (bytes are
        passed exactly), working directory and environment variables, stdout and stderr
        apart. It is one turn of the episode; the episode's own working directory and shell
        variables are left as they were. ``timeout`` (seconds) shortens the env's time limit
        for this call: the command is stopped then (``returncode`` None, ``Command timed
        out``)."""
        data = stdin.encode("utf-8") if isinstance(stdin, str) else stdin
        pairs = list((env or {}).items())
        return ExecOutput(*self._native.exec(list(argv), data, cwd, pairs, timeout))


class SqlEnv(Env):
    """InterCode-SQL: each action is a SQL statement (SQLite, with MySQL's ``SHOW TABLES``,
    ``DESCRIBE``, ``USE db`` emulated) on the episode's own copy of the task's database;
    ``submit`` scores the last result against the gold's rows as upstream did."""

    _kind = "sql"

    def __enter__(self) -> "SqlEnv":
        return self


class PythonEnv(Env):
    """InterCode-Python: each action is Python code run in the episode's interpreter
    (RustPython in wasm: no files, no network); ``submit NAME`` runs the task's tests on
    function ``NAME`` and compares with the gold's results."""

    _kind = "python"

    def __enter__(self) -> "PythonEnv":
        return self
