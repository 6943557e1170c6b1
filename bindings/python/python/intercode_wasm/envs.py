"""Upstream's import path: ``from intercode_wasm.envs import BashEnv, SqlEnv, PythonEnv``
mirrors ``from intercode.envs import BashEnv, SqlEnv, PythonEnv``. See
:mod:`intercode_wasm.compat`."""

from .compat import (
    ACTION_EXEC,
    AGENT_OBS,
    CORRUPT_GOLD,
    EVAL_OBS,
    IMAGE_ENVS,
    REWARD,
    BashEnv,
    IntercodeDataLoader,
    IntercodeEnv,
    PythonEnv,
    SqlEnv,
)

__all__ = [
    "ACTION_EXEC",
    "AGENT_OBS",
    "CORRUPT_GOLD",
    "EVAL_OBS",
    "IMAGE_ENVS",
    "REWARD",
    "BashEnv",
    "IntercodeDataLoader",
    "IntercodeEnv",
    "PythonEnv",
    "SqlEnv",
]
