"""intercode-wasm: InterCode (bash, SQL and Python interactive coding episodes) without Docker.

Three ways in:

* the native API — :class:`BashEnv`, :class:`SqlEnv`, :class:`PythonEnv` (or :class:`Env` with a
  spec): ``reset(i)`` → query, ``step(action)`` → :class:`StepResult`, ``evaluate()``,
  ``submit()``, ``skip()``, context managers;
* :mod:`intercode_wasm.envs` (also :mod:`intercode_wasm.compat`) — upstream InterCode's env
  classes, so ``from intercode.envs import BashEnv`` becomes
  ``from intercode_wasm.envs import BashEnv`` and nothing else changes;
* :mod:`intercode_wasm.inspect` — the ``intercode`` sandbox for inspect_ai (needs
  ``inspect_ai``; registered automatically through its entry point).

Errors: every one is an :class:`IntercodeError`; :class:`EpisodeStateError` (a call at the
wrong time; also a ``RuntimeError``), :class:`BadInputError` (also a ``ValueError``),
:class:`HostError`, :class:`UnsupportedFeatureError` (also a ``NotImplementedError``).
"""

from ._env import (
    BashEnv,
    Env,
    Evaluation,
    ExecOutput,
    PythonEnv,
    SqlEnv,
    StepResult,
    TaskInfo,
    Tasks,
    spec_fields,
)
from ._errors import (
    BadInputError,
    EpisodeStateError,
    HostError,
    IntercodeError,
    UnsupportedFeatureError,
)
from ._native import __version__

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
    "IntercodeError",
    "EpisodeStateError",
    "BadInputError",
    "HostError",
    "UnsupportedFeatureError",
    "__version__",
]
