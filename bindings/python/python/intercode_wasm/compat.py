"""A drop-in for upstream InterCode's env classes (``intercode.envs``), without Docker.

Upstream's experiment scripts change one line::

    from intercode.envs import BashEnv, SqlEnv, PythonEnv          # upstream, Docker
    from intercode_wasm.envs import BashEnv, SqlEnv, PythonEnv     # this package, no Docker

and keep their calls: ``Env(image_name, data_path=…, preprocess=…, traj_dir=…, verbose=…)``,
``reset(index)`` → ``(observation, info)``, ``step(action)`` → ``(observation, reward, done,
info)`` with upstream's types (bash: text; SQL: a list of tuples, or ``None``, or the error
text; Python: a dict ``{"output", "error"}``), ``step("submit")`` after every action and the
episode going on, ``save_trajectory()`` in upstream's format, ``data_loader``, ``close()``.

Image names map to envs: ``intercode-nl2bash`` and ``intercode-bash`` → bash, ``docker-env-sql``
→ SQL, ``intercode-python`` → Python (a ``:tag`` is ignored). ``data_path`` is upstream's task
file: a bash ``nl2bash_fs_N.json`` finds its file tree under the data directory as the CLI
does; upstream's ``ic_spider_dev.json`` runs on upstream's MySQL rows (``upstream-mysql``); an
MBPP file runs the Python env. Without ``data_path`` the embedded fixtures are the tasks.

Where upstream was broken, the default is correct and upstream's behaviour is an option:

* ``upstream_quoting=True``: bash actions go through upstream's ``bash -c "…"`` + ``shlex``
  quoting, which dropped inner double quotes (scores match old logs);
* ``upstream_reset=True``: one bash tree lives for the whole run and only what git tracks is
  put back between tasks, as in upstream's containers (changes under ``/root`` carry over);
* ``upstream_python_action_executed=True``: the Python env's ``action_executed`` is inverted
  as upstream's was (True when the action raised);
* ``end_on_submit=True``: ``submit`` / ``skip`` end the episode (a later step raises
  ``EpisodeStateError``). By default they score it and leave it running, as upstream's env did
  in effect (its harness steps ``submit`` after every action and goes on).

Other keyword arguments: ``timeout_secs``, ``clock``, ``persistent``, ``fs``, ``sql_data``,
``data_dir``, ``read_only`` (see :data:`intercode_wasm.spec_fields`). Docker's ``command`` and
``environment`` are accepted and ignored; ``ports`` and ``volumes`` cannot be honoured (the
sandbox has no network and no host directories) and raise
:class:`~intercode_wasm.UnsupportedFeatureError`.

Deliberate differences: every episode starts from fresh state (upstream's SQL env never reset
and its bash env only reset what git tracked); Python errors read ``Type: message`` (upstream's
``Error: message``) and the observation always has both keys; two trajectories saved in the
same second do not overwrite each other. ``is_agent`` is accepted and has no effect (upstream
read further ``def`` lines from ``input()`` when it was False).
"""

from __future__ import annotations

import ast
import csv
import datetime
import decimal
import json
import logging
import os
import random
import re
from pathlib import Path
from typing import Any, Callable, ClassVar, Optional, Union

from ._env import Env, StepResult
from ._errors import BadInputError, UnsupportedFeatureError

__all__ = [
    "ACTION_EXEC",
    "AGENT_OBS",
    "EVAL_OBS",
    "CORRUPT_GOLD",
    "REWARD",
    "IMAGE_ENVS",
    "IntercodeDataLoader",
    "IntercodeEnv",
    "BashEnv",
    "SqlEnv",
    "PythonEnv",
]

ACTION_EXEC = "action_executed"
AGENT_OBS = "agent_obs"
EVAL_OBS = "eval_obs"
CORRUPT_GOLD = "corrupt_gold"
REWARD = "reward"

#: Upstream's Docker image names and the env each stands for.
IMAGE_ENVS: dict[str, str] = {
    "intercode-nl2bash": "bash",
    "intercode-bash": "bash",
    "docker-env-sql": "sql",
    "intercode-python": "python",
}

#: Upstream's ``env.name`` per env (the ``environment`` field of its logs).
_UPSTREAM_NAMES = {"bash": "ic_bash", "sql": "ic_sql", "python": "ic_python"}

#: The file upstream's SQL runs used; it selects upstream's MySQL rows.
_SPIDER_DEV = "ic_spider_dev.json"

#: Keyword arguments that go into the EnvSpec as they are.
_SPEC_KWARGS = (
    "timeout_secs",
    "clock",
    "persistent",
    "fs",
    "sql_data",
    "data_dir",
    "read_only",
    "upstream_reset",
)

Observation = Union[str, None, list[tuple[Any, ...]], dict[str, str]]
Preprocess = Callable[[dict[str, Any]], list[str]]

log = logging.getLogger("intercode_wasm")


def _image_env(image_name: str) -> str:
    base = image_name.rsplit("/", 1)[-1].split(":", 1)[0]
    if base in IMAGE_ENVS:
        return IMAGE_ENVS[base]
    if base in ("bash", "sql", "python"):
        return base
    if "ctf" in base:
        raise UnsupportedFeatureError(
            f"image {image_name!r}: the CTF env is not part of intercode-wasm"
        )
    known = ", ".join(sorted(IMAGE_ENVS))
    raise BadInputError(f"unknown image {image_name!r}: expected one of {known}")


class IntercodeDataLoader:
    """Upstream's data loader: the task records of ``data_path`` (``.json`` list, ``.jsonl``,
    ``.csv``, ``.tsv``); ``len(loader)``, ``loader.get(i)`` (a random record for ``None``)."""

    def __init__(self, records: list[dict[str, Any]]) -> None:
        self.data = records

    @classmethod
    def from_file(cls, path: Union[str, "os.PathLike[str]"]) -> "IntercodeDataLoader":
        p = Path(path)
        suffix = p.suffix.lower()
        if suffix == ".json":
            data = json.loads(p.read_text(encoding="utf-8"))
            if isinstance(data, dict):
                # pandas' default orient for a dict of columns: {column: {row: value}}.
                columns = list(data)
                rows = sorted({r for c in columns for r in data[c]}, key=_row_key)
                data = [{c: data[c][r] for c in columns if r in data[c]} for r in rows]
        elif suffix == ".jsonl":
            lines = p.read_text(encoding="utf-8").splitlines()
            data = [json.loads(line) for line in lines if line.strip()]
        elif suffix in (".csv", ".tsv"):
            with p.open(newline="", encoding="utf-8") as f:
                data = list(csv.DictReader(f, delimiter="\t" if suffix == ".tsv" else ","))
        else:
            raise BadInputError(
                f"{p}: task files are .json, .jsonl, .csv or .tsv (pickles are not read: "
                "loading one runs arbitrary code)"
            )
        if not isinstance(data, list) or not all(isinstance(r, dict) for r in data):
            raise BadInputError(f"{p}: expected a list of task records")
        if data and not all("query" in r for r in data):
            raise BadInputError(f"{p}: every task record needs a 'query'")
        return cls(data)

    def __len__(self) -> int:
        return len(self.data)

    def get(self, index: Optional[int] = None) -> dict[str, Any]:
        """Record ``index`` (a random one for ``None``), without NaN values (as upstream)."""
        if index is None:
            index = random.randrange(len(self.data))
        if not 0 <= index < len(self.data):
            raise BadInputError(
                f"task index {index} out of range (the task set has {len(self.data)} tasks)"
            )
        return {
            k: v for k, v in self.data[index].items() if not (isinstance(v, float) and v != v)
        }


def _row_key(r: str) -> tuple[int, Union[int, str]]:
    return (0, int(r)) if r.isdigit() else (1, r)


# Values the SQL env could not carry as JSON arrive as their Python repr (see `_sql_rows`).
_DECIMAL = re.compile(r"Decimal\('([-+0-9.Ee]+|NaN|-?Infinity)'\)")
_DATETIME = re.compile(r"datetime\.(datetime|date|time)\(([-0-9, ]*)\)")
_TIMEDELTA = re.compile(r"datetime\.timedelta\(((?:\w+=-?\d+(?:, )?)*)\)")


def _python_value(text: str) -> Any:
    """The object whose repr is ``text`` (Decimal, datetime, bytes, a big int), or ``text``."""
    m = _DECIMAL.fullmatch(text)
    if m:
        return decimal.Decimal(m.group(1))
    m = _DATETIME.fullmatch(text)
    if m:
        cls = getattr(datetime, m.group(1))
        return cls(*(int(x) for x in m.group(2).split(",") if x.strip()))
    m = _TIMEDELTA.fullmatch(text)
    if m:
        kwargs = dict(part.split("=") for part in m.group(1).split(", ") if part)
        return datetime.timedelta(**{k: int(v) for k, v in kwargs.items()})
    if text.startswith(("b'", 'b"')):
        try:
            return ast.literal_eval(text)
        except (ValueError, SyntaxError):
            return text
    if text.lstrip("-").isdigit():
        return int(text)
    return text


def _maybe_repr(value: str) -> bool:
    return value[:1] in ("D", "d", "b") or value.lstrip("-").isdigit()


def _sql_rows(step: StepResult) -> list[tuple[Any, ...]]:
    """The result rows as upstream's cursor gave them: a list of tuples.

    The library passes rows as JSON; values JSON cannot hold (MySQL's ``Decimal`` and
    ``datetime``, blobs, integers beyond 64 bits) come as their Python repr. Such a string
    is turned back into its object when the observation (Python's ``str(rows)``) shows it
    unquoted, i.e. it was not a string column holding that text.
    """
    rows = step.info.get("rows") or []
    text = step.observation
    out = []
    for row in rows:
        values = []
        for v in row:
            if (
                isinstance(v, str)
                and _maybe_repr(v)
                and v in text
                and repr(v) not in text
            ):
                v = _python_value(v)
            values.append(v)
        out.append(tuple(values))
    return out


class IntercodeEnv:
    """Upstream's env API over one intercode-wasm env. Use :class:`BashEnv`, :class:`SqlEnv`
    or :class:`PythonEnv` (or this class, which takes the env from the image name)."""

    name: str = "intercode"
    _kind: ClassVar[Optional[str]] = None

    def __init__(
        self,
        image_name: str,
        data_path: Optional[Union[str, "os.PathLike[str]"]] = None,
        preprocess: Optional[Preprocess] = None,
        traj_dir: Optional[Union[str, "os.PathLike[str]"]] = None,
        verbose: bool = False,
        is_agent: bool = True,
        **kwargs: Any,
    ) -> None:
        kind = _image_env(image_name)
        if self._kind is not None and kind != self._kind:
            raise BadInputError(
                f"{type(self).__name__} runs {self._kind} episodes; image {image_name!r} is a "
                f"{kind} image"
            )
        for docker_only in ("ports", "volumes"):
            if kwargs.get(docker_only):
                raise UnsupportedFeatureError(
                    f"{docker_only!r}: the sandbox has no network and sees no host directory"
                )
        self.image_name = image_name
        self.kind = kind
        self.data_path = os.fspath(data_path) if data_path is not None else None
        self.preprocess = preprocess
        self.traj_dir = os.fspath(traj_dir) if traj_dir is not None else None
        self.verbose = verbose
        self.is_agent = is_agent
        self.upstream_python_action_executed = bool(
            kwargs.pop("upstream_python_action_executed", False)
        )
        self.end_on_submit = bool(kwargs.pop("end_on_submit", False))
        if type(self).name == IntercodeEnv.name:
            self.name = _UPSTREAM_NAMES[kind]
        if verbose:
            logging.basicConfig(level=logging.INFO)
        self.env = Env(self._spec(kind, kwargs))
        self.data_loader = self._data_loader()
        self.logger = log

        self.info: dict[str, Any] = {}
        self.trajectory: list[tuple[str, Observation]] = []
        self.observation: Observation = None
        self.query: Optional[str] = None
        self.gold: str = "N/A"
        self.record: dict[str, Any] = {}
        self.query_idx: Optional[int] = None
        self.reward: Optional[float] = None

    # -- construction ---------------------------------------------------------------------

    def _spec(self, kind: str, kwargs: dict[str, Any]) -> dict[str, Any]:
        spec: dict[str, Any] = {"env": kind}
        for key in _SPEC_KWARGS:
            if key in kwargs:
                spec[key] = kwargs.pop(key)
        if kwargs.pop("upstream_quoting", False):
            spec["upstream_quoting"] = True
        for key in ("command", "environment"):
            kwargs.pop(key, None)
        if kwargs:
            log.debug("ignoring keyword arguments %s (upstream dropped them too)", sorted(kwargs))
        if self.data_path is None:
            return spec
        path = Path(self.data_path)
        if kind == "sql":
            # The databases live in the data directory upstream's file sits in:
            # shared/intercode-upstream/data/sql/spider/ic_spider_dev.json → shared/.
            upstream = [p for p in path.resolve().parents if p.name == "intercode-upstream"]
            if upstream and "data_dir" not in spec:
                spec["data_dir"] = str(upstream[0].parent)
            if "sql_data" not in spec:
                spec["sql_data"] = "upstream-mysql"
                if path.name == _SPIDER_DEV:
                    return spec  # upstream's own task file: the set the data holds
        spec["tasks"] = str(path)
        return spec

    def _data_loader(self) -> IntercodeDataLoader:
        if self.data_path is not None:
            return IntercodeDataLoader.from_file(self.data_path)
        # The embedded fixtures: their records as the library describes them.
        records = []
        for task in self.env.tasks:
            record: dict[str, Any] = {"query": task.query, "gold": task.gold}
            if self.kind == "sql":
                record["hardness"] = task.category
                record["db_tables"] = {t: cols for t, cols in task.tables}
            records.append(record)
        return IntercodeDataLoader(records)

    # -- upstream's API -------------------------------------------------------------------

    def reset(self, index: Optional[int] = None) -> tuple[Observation, dict[str, Any]]:
        """Starts task ``index`` (a random one for ``None``): fresh state, then the
        ``preprocess`` commands. Returns ``(observation, info)``: the query, or the last
        preprocess command's observation (``None`` after SQL's ``use db``)."""
        self.info = {}
        self.trajectory = []
        self.observation = None
        self.reward = None
        if index is None:
            index = random.randrange(len(self.data_loader))
        self.record = self.data_loader.get(index)
        self.query = self.record["query"]
        self.gold = self.record.get("gold", "N/A")
        self.query_idx = index
        self.env.reset(index)
        self.observation = self.query
        if self.verbose:
            log.info("query %d: %s", index, self.query)
        if self.preprocess is not None:
            for command in self.preprocess(self.record):
                self.exec_action(command)
                if not self.info[ACTION_EXEC]:
                    raise RuntimeError(f"Preprocess command failed to execute: {command}")
        return self.observation, self.info

    def step(self, action: str) -> tuple[Observation, float, bool, dict[str, Any]]:
        """Runs ``action``; ``submit`` scores the episode, ``skip`` gives it up (both return
        ``done=True``; see ``end_on_submit``)."""
        if action == "skip":
            if self.end_on_submit:
                self.env.skip()
            return "skipped", 0, True, {}
        if action.startswith("submit"):
            self.trajectory.append((action, None))
            reward, info = self.get_reward(action)
            info[ACTION_EXEC] = True
            self.info = info
            self.reward = reward
            if self.traj_dir is not None:
                self.save_trajectory()
            if self.verbose:
                log.info("submit: reward %s", reward)
            return self.observation, reward, True, self.info
        self.exec_action(action)
        self.trajectory.append((action, self.observation))
        return self.observation, 0, False, self.info

    def exec_action(self, action: str) -> None:
        """Runs ``action`` in the episode; sets ``observation`` and ``info["action_executed"]``."""
        step = self.env.step(action)
        self.observation = self._observation(step)
        self.info[ACTION_EXEC] = self._executed(step)
        if self.verbose:
            log.info("action: %s\nobservation: %s", action, self.observation)

    def get_reward(self, action: str = "submit") -> tuple[float, dict[str, Any]]:
        """The score now, as ``(reward, info)``. Without ``data_path``'s tasks upstream
        scored 0 ("tool mode"); here the fixtures are the tasks, so it scores them."""
        parts = action.split(" ", 1)
        name = parts[1].strip() if len(parts) > 1 and parts[1].strip() else None
        if self.end_on_submit:
            done = self.env.submit(name)
            return done.reward, dict(done.info)
        # Scoring without ending: the episode stays open for the next action, as upstream's
        # harness used it. The tested Python function is the one the agent defined last when
        # it defined none of the tested name (upstream's harness submitted the function it had
        # just run); an explicit other name is not passed on (the library's evaluate() takes
        # none).
        scored = self.env.evaluate()
        return scored.reward, dict(scored.info)

    def _observation(self, step: StepResult) -> Observation:
        return step.observation

    def _executed(self, step: StepResult) -> bool:
        return step.action_executed

    def get_available_actions(self) -> list[str]:
        return []

    def reset_container(self) -> None:
        """Nothing to do: every ``reset`` starts from fresh state."""

    def save_trajectory(self) -> str:
        """Writes ``{traj_dir}/logs_{name}/log_{YYYYMMDDHHMMSS}.json`` (upstream's format:
        environment, query_idx, query, gold, reward, trajectory of {action, observation},
        info); returns its path. A second save in the same second gets ``_1``, ``_2``, …
        (upstream overwrote the first)."""
        if self.traj_dir is None:
            raise BadInputError("save_trajectory needs traj_dir")
        folder = Path(self.traj_dir) / f"logs_{self.name}"
        folder.mkdir(parents=True, exist_ok=True)
        stamp = datetime.datetime.now().strftime("%Y%m%d%H%M%S")
        path = folder / f"log_{stamp}.json"
        n = 0
        while path.exists():
            n += 1
            path = folder / f"log_{stamp}_{n}.json"
        record = {
            "environment": self.name,
            "query_idx": self.query_idx,
            "query": self.query,
            "gold": self.gold,
            "reward": self.reward,
            "trajectory": [
                {"action": a, "observation": str(o)} for a, o in self.trajectory
            ],
            "info": self.info,
        }
        path.write_text(json.dumps(record, indent=2, default=str), encoding="utf-8")
        return str(path)

    def close(self) -> None:
        self.env.close()

    def __enter__(self) -> "IntercodeEnv":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class BashEnv(IntercodeEnv):
    """Upstream's ``BashEnv``: observations are the command's output (stdout and stderr)."""

    name: str = "ic_bash"
    _kind: ClassVar[Optional[str]] = "bash"


class SqlEnv(IntercodeEnv):
    """Upstream's ``SqlEnv``: observations are the rows as a list of tuples, ``None`` for a
    statement without a result set, or ``"Error executing query: …"``."""

    name: str = "ic_sql"
    _kind: ClassVar[Optional[str]] = "sql"

    def _observation(self, step: StepResult) -> Observation:
        if "rows" in step.info:
            return _sql_rows(step)
        if step.action_executed:
            return None
        return step.observation


class PythonEnv(IntercodeEnv):
    """Upstream's ``PythonEnv``: observations are ``{"output": …, "error": …}``."""

    name: str = "ic_python"
    _kind: ClassVar[Optional[str]] = "python"

    def _observation(self, step: StepResult) -> Observation:
        return {"output": step.info.get("output", ""), "error": step.info.get("error", "")}

    def _executed(self, step: StepResult) -> bool:
        if self.upstream_python_action_executed:
            # Upstream's inverted flag: True exactly when the action printed an error.
            return bool(step.info.get("error"))
        return step.action_executed

